//! What a problem reports and which measured ceiling it is held to.
//!
//! Every record carries a size's time, spread and bandwidth; what a
//! problem adds is its *primary figure* (the one its panel, the status page
//! and a ladder show first) and the ceiling `pct_ceiling` is a percentage
//! of. Bandwidth problems (a sum, softmax) are held to the read or copy
//! ceiling as before; a matrix product reports FLOP/s against the measured
//! FP32 FMA ceiling; a pointer chase reports time per dependent access in
//! nanoseconds and SM cycles and has no ceiling; a host-device copy reports
//! GB/s against the measured pinned host link of its direction.
//!
//! A ceiling other than read and copy is a [`NamedCeiling`]: a name, the
//! unit it is measured in and the size figure it bounds. Records keep
//! each one measured for them in `ceilings.named` by that name, so a later
//! ceiling (a tensor-core MMA rate) is one more constant here and one more
//! measurement in the runner, not a new field.

use super::Bound;

/// The work unit whose rate [`crate::figures::value`] turns into `tflops`
/// (a problem's work is counted in it).
pub const FLOP: &str = "flop";
/// The work unit (dependent loads per run) whose rate
/// [`crate::figures::value`] turns into `ns_per_access` and
/// `cycles_per_access`.
pub const ACCESSES: &str = "accesses";

/// A measured device figure a problem may be held to, besides the read and
/// copy ceilings every record carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedCeiling {
    /// Its name in records (`ceilings.named`) and in a size's `ceiling`.
    pub name: &'static str,
    /// The unit its value is stored in (`TFLOP/s`, `GB/s`).
    pub unit: &'static str,
    /// The figure of a size it bounds ([`crate::figures::value`]), in the
    /// same unit.
    pub figure: &'static str,
    /// How the runner measures it, one sentence for tooltips.
    pub how: &'static str,
}

/// FP32 fused multiply-adds: independent `fmaf` chains on every SM.
pub const FP32_FMA: NamedCeiling = NamedCeiling {
    name: "fp32_fma",
    unit: "TFLOP/s",
    figure: "tflops",
    how: "FP32 FMA rate of the runner's kernel of independent fmaf chains on every SM (2 FLOP per FMA)",
};

/// Host to device over the host link, from page-locked host memory.
pub const H2D_PINNED: NamedCeiling = NamedCeiling {
    name: "h2d_pinned",
    unit: "GB/s",
    figure: "gbs",
    how: "host-to-device cuMemcpy from page-locked host memory, 256 MiB",
};

/// Device to host over the host link, into page-locked host memory.
pub const D2H_PINNED: NamedCeiling = NamedCeiling {
    name: "d2h_pinned",
    unit: "GB/s",
    figure: "gbs",
    how: "device-to-host cuMemcpy into page-locked host memory, 256 MiB",
};

/// Every named ceiling the runner can measure.
pub const NAMED_CEILINGS: &[NamedCeiling] = &[FP32_FMA, H2D_PINNED, D2H_PINNED];

/// The named ceiling called `name`.
pub fn named_ceiling(name: &str) -> Option<NamedCeiling> {
    NAMED_CEILINGS.iter().copied().find(|c| c.name == name)
}

/// Which way a host-device copy goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Host to device.
    H2d,
    /// Device to host.
    D2h,
}

impl Direction {
    /// `h2d` or `d2h`, as headers write it.
    pub fn name(self) -> &'static str {
        match self {
            Direction::H2d => "h2d",
            Direction::D2h => "d2h",
        }
    }

    /// The pinned host-link ceiling of this direction.
    pub fn ceiling(self) -> NamedCeiling {
        match self {
            Direction::H2d => H2D_PINNED,
            Direction::D2h => D2H_PINNED,
        }
    }
}

/// What a problem reports, and against which ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reports {
    /// Bytes over the median, GB/s, as a percentage of the read or copy
    /// ceiling (every problem before this one).
    Bandwidth(Bound),
    /// The problem's `flop` work per run over the median, TFLOP/s, as a
    /// percentage of a measured FLOP ceiling ([`FP32_FMA`]).
    Flops(NamedCeiling),
    /// The median over the problem's `accesses` work (dependent loads per
    /// run): nanoseconds per access, and SM cycles per access at the SM
    /// clock the samples recorded. No ceiling.
    Latency,
    /// Bytes over the median, GB/s, as a percentage of the measured pinned
    /// host link of this direction.
    HostLink(Direction),
}

impl Reports {
    /// The figure shown first (`gbs`, `tflops`, `ns_per_access`).
    pub fn primary(self) -> &'static str {
        match self {
            Reports::Bandwidth(_) | Reports::HostLink(_) => "gbs",
            Reports::Flops(c) => c.figure,
            Reports::Latency => "ns_per_access",
        }
    }

    /// The value of a size's `ceiling` field: absent for the read ceiling
    /// (as records have always had it), `copy`, or a named ceiling's name;
    /// absent too for a latency problem, which has none.
    pub fn ceiling_field(self) -> Option<&'static str> {
        match self {
            Reports::Bandwidth(Bound::Read) | Reports::Latency => None,
            Reports::Bandwidth(Bound::Copy) => Some(Bound::Copy.name()),
            Reports::Flops(c) => Some(c.name),
            Reports::HostLink(d) => Some(d.ceiling().name),
        }
    }

    /// The named ceiling the runner must measure for it, if any.
    pub fn named_ceiling(self) -> Option<NamedCeiling> {
        match self {
            Reports::Bandwidth(_) | Reports::Latency => None,
            Reports::Flops(c) => Some(c),
            Reports::HostLink(d) => Some(d.ceiling()),
        }
    }

    /// The value of a size's `figure` field: absent when the primary
    /// figure is bandwidth (every record made before it existed).
    pub fn figure_field(self) -> Option<&'static str> {
        match self.primary() {
            "gbs" => None,
            other => Some(other),
        }
    }

    /// Whether sizes have a `pct_ceiling`.
    pub fn has_ceiling(self) -> bool {
        !matches!(self, Reports::Latency)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Bandwidth problems keep the fields records have always had (no
    // `figure`, no `ceiling` for read), so their records stay as they were;
    // the others name their figure and ceiling, and every named ceiling is
    // found by its name.
    #[test]
    fn existing_problems_keep_their_fields() {
        assert_eq!(Reports::Bandwidth(Bound::Read).ceiling_field(), None);
        assert_eq!(
            Reports::Bandwidth(Bound::Copy).ceiling_field(),
            Some("copy")
        );
        assert_eq!(Reports::Bandwidth(Bound::Copy).figure_field(), None);
        assert_eq!(Reports::Flops(FP32_FMA).figure_field(), Some("tflops"));
        assert_eq!(Reports::Flops(FP32_FMA).ceiling_field(), Some("fp32_fma"));
        assert_eq!(Reports::Latency.ceiling_field(), None);
        assert!(!Reports::Latency.has_ceiling());
        assert_eq!(
            Reports::HostLink(Direction::D2h).ceiling_field(),
            Some("d2h_pinned")
        );
        for c in NAMED_CEILINGS {
            assert_eq!(named_ceiling(c.name), Some(*c));
        }
        assert_eq!(named_ceiling("fp64_fma"), None);
    }
}
