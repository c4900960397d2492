//! Ratios of two timings that a gate can trust: of records measured in
//! one session of the runner, or, across sessions, only where the ratio
//! clears its bound by more than times drift between sessions.
//!
//! Two records are of one session when they name the same GPU (its UUID)
//! and hold the same ceilings: the runner measures the read and copy
//! ceilings and the launch floor once per session and gives every record
//! of the session the same values (`runner/src/execute.rs`), so equal
//! ceilings to the last bit mean one session, and another session's
//! ceilings differ (the read ceiling moved 2.2% between the sessions of
//! 2026-12-01 and 2026-12-02).

use cuda_measured_core::record::Record;

/// How far a ratio of two timings of different sessions may move from
/// session to session, as a factor: above the 2.2% the read ceiling moved
/// between two sessions of the book's GPU, the largest drift the store
/// shows (within a session, the repeatability report's largest difference
/// of one example between two runs is 1.41%).
pub const ACROSS_SESSIONS: f64 = 1.03;

/// Whether `a` and `b` were measured in one session of the runner (a
/// record is of its own session).
pub fn same_session(a: &Record, b: &Record) -> bool {
    if std::ptr::eq(a, b) {
        return true;
    }
    let uuid = |r: &Record| r.gpu.as_ref().and_then(|g| g.uuid.clone());
    let ceilings = |r: &Record| {
        r.ceilings.as_ref().map(|c| {
            (
                c.read_gbs.to_bits(),
                c.copy_gbs.to_bits(),
                c.launch_floor_us.to_bits(),
            )
        })
    };
    uuid(a).is_some() && uuid(a) == uuid(b) && ceilings(a).is_some() && ceilings(a) == ceilings(b)
}

/// Which side of its bound a ratio must lie on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// At least the bound (a speed-up).
    AtLeast,
    /// At most the bound (a time over a peer's).
    AtMost,
}

/// The verdict on `ratio` against `bound`: `Some(passed)`, or `None` when
/// the ratio is of two sessions and lies within [`ACROSS_SESSIONS`] of the
/// bound, where drift alone could put it on either side.
pub fn verdict(ratio: f64, bound: f64, side: Side, one_session: bool) -> Option<bool> {
    let margin = if one_session { 1.0 } else { ACROSS_SESSIONS };
    let (clear_pass, clear_fail) = match side {
        Side::AtLeast => (ratio >= bound * margin, ratio < bound / margin),
        Side::AtMost => (ratio <= bound / margin, ratio > bound * margin),
    };
    if clear_pass {
        Some(true)
    } else if clear_fail || one_session {
        Some(false)
    } else {
        None
    }
}

/// Where a ratio of two sessions stands, for the reason of a gate it
/// cannot judge: what to do so that it can.
pub fn remedy(a: &str, a_record: &Record, b: &str, b_record: &Record) -> String {
    format!(
        "`{a}` (measured {}) and `{b}` (measured {}) are of different sessions, and their ratio lies within the {:.0}% drift between sessions of the bound: measure both in one run (`CUDA_MEASURED_MODE=force scripts/book` on a GPU machine, as bench/gpu-session.sh does)",
        a_record.measured_at,
        b_record.measured_at,
        (ACROSS_SESSIONS - 1.0) * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    // Within a session the bound alone decides; across sessions a ratio
    // within the drift of the bound is left unjudged, and one clear of it
    // is judged either way.
    #[test]
    fn across_sessions_only_clear_ratios_are_judged() {
        assert_eq!(verdict(1.01, 1.0, Side::AtLeast, true), Some(true));
        assert_eq!(verdict(0.99, 1.0, Side::AtLeast, true), Some(false));
        assert_eq!(verdict(1.01, 1.0, Side::AtLeast, false), None);
        assert_eq!(verdict(0.99, 1.0, Side::AtLeast, false), None);
        assert_eq!(verdict(1.04, 1.0, Side::AtLeast, false), Some(true));
        assert_eq!(verdict(0.96, 1.0, Side::AtLeast, false), Some(false));
        assert_eq!(verdict(0.96, 0.975, Side::AtMost, true), Some(true));
        assert_eq!(verdict(0.99, 0.975, Side::AtMost, true), Some(false));
        assert_eq!(verdict(0.96, 0.975, Side::AtMost, false), None);
        assert_eq!(verdict(0.90, 0.975, Side::AtMost, false), Some(true));
    }
}
