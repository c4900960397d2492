//! What a comparison shows beside its times, and what holds it there, as
//! the problem's records do: GB/s of the bytes moved against the read or
//! copy ceiling measured with our kernel (for a copy over the host link,
//! the pinned link of its direction) and the datasheet peak; or, for a
//! problem whose figure counts floating-point operations (a matrix
//! product), TFLOP/s against the FLOP ceiling its records name (the
//! measured FP32 FMA rate) and the datasheet figure beside it. The table
//! and the chart both read it, so they agree.

use crate::figures;
use cuda_measured_core::peers::{Report, Row, Timing};
use cuda_measured_core::problem::{Bound, lookup};

/// A comparison's figure and its ceiling.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Scale {
    /// TFLOP/s of each size's FLOP count, not GB/s of its bytes.
    pub flops: bool,
    /// A copy over the host link, held to the pinned link.
    pub host_link: bool,
    /// A kernel that writes as much as it reads, held at each size to the
    /// copy ceiling measured there where its record has one.
    pub copy: bool,
    /// The ceiling measured with our kernel, in the figure's unit.
    pub ceiling: Option<f64>,
    /// The ceiling in words, before ` ceiling`: `read`, `copy`,
    /// `pinned host-link`, `FP32 FMA`.
    pub kind: &'static str,
    /// The datasheet figure the chart draws dashed, in the figure's unit.
    pub peak: Option<f64>,
}

impl Scale {
    /// The scale of `report`: its own figure (`tflops`) where it names
    /// one, else GB/s against the ceiling of the problem's bound.
    pub fn of(report: &Report) -> Scale {
        if report.figure.as_deref() == Some("tflops") {
            let name = report.ceiling.as_deref().unwrap_or_default();
            let measured = report.ceilings.as_ref().and_then(|c| c.named(name));
            return Scale {
                flops: true,
                host_link: false,
                copy: false,
                ceiling: measured.map(|m| m.value),
                kind: match name {
                    "fp32_fma" => "FP32 FMA",
                    _ => "FLOP",
                },
                peak: measured.and_then(|m| m.peak),
            };
        }
        let host_link = super::chart::host_link_ceiling(report);
        let copy = host_link.is_none()
            && lookup(&report.problem).is_some_and(|p| p.bound() == Bound::Copy);
        Scale {
            flops: false,
            host_link: host_link.is_some(),
            copy,
            ceiling: host_link.or_else(|| {
                report
                    .ceilings
                    .as_ref()
                    .map(|c| if copy { c.copy_gbs } else { c.read_gbs })
            }),
            kind: match (host_link, copy) {
                (Some(_), _) => "pinned host-link",
                (None, true) => "copy",
                (None, false) => "read",
            },
            peak: (report.peak_gbs > 0.0 && host_link.is_none()).then_some(report.peak_gbs),
        }
    }

    /// The figure's unit: `GB/s` or `TFLOP/s`.
    pub fn unit(&self) -> &'static str {
        if self.flops { "TFLOP/s" } else { "GB/s" }
    }

    /// The figure of timing `t` at `row`'s size, or `None` where the row
    /// lacks what it counts (a FLOP count).
    pub fn value(&self, row: &Row, t: &Timing) -> Option<f64> {
        if self.flops {
            row.flop.map(|flop| flop / (t.median_us * 1e6))
        } else {
            Some(super::render::gbs(row, t))
        }
    }

    /// The ceiling `row`'s figure is held to: the copy ceiling measured at
    /// that very size where there is one, else the session's.
    pub fn ceiling_at(&self, row: &Row) -> Option<f64> {
        if self.copy {
            row.ceiling_gbs.or(self.ceiling)
        } else {
            self.ceiling
        }
    }

    /// A figure's number alone, for cells under a heading with its unit.
    pub fn number(&self, v: f64) -> String {
        if self.flops {
            let text = figures::tflops(v);
            text.split(' ').next().unwrap_or_default().to_string()
        } else {
            figures::gbs_number(v)
        }
    }

    /// A figure with its unit: `4275 GB/s`, `51.30 TFLOP/s`.
    pub fn text(&self, v: f64) -> String {
        if self.flops {
            figures::tflops(v)
        } else {
            figures::gbs(v)
        }
    }

    /// What the figure is, for the heading's tooltip.
    pub fn what(&self) -> &'static str {
        if self.flops {
            "the problem's floating-point operations at each size over our median time"
        } else {
            "bytes moved over our median time"
        }
    }

    /// The ceiling column's tooltip.
    pub fn ceiling_title(&self) -> String {
        let kind = self.kind;
        let unit = self.unit();
        match self.ceiling {
            Some(r) if self.copy => format!(
                "ours GB/s over the copy ceiling measured with our kernel at each size (the same bytes; {} over 4 GiB)",
                self.text(r)
            ),
            Some(r) => format!(
                "ours {unit} over the {kind} ceiling measured with our kernel ({})",
                self.text(r)
            ),
            None => format!("no {kind} ceiling was measured with our kernel"),
        }
    }

    /// The ceiling line's label in the chart.
    pub fn ceiling_label(&self) -> String {
        if self.host_link {
            "pinned host link (measured, 256 MiB)".into()
        } else if self.copy {
            "copy ceiling (measured, 4 GiB)".into()
        } else if self.flops {
            format!("{} ceiling (measured)", self.kind)
        } else {
            "read ceiling (measured)".into()
        }
    }
}
