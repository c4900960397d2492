//! Plain-text reports of records for the terminal.

use crate::record::Record;
use std::fmt::Write;
use std::time::Duration;

/// `m:ss` for progress lines.
pub fn elapsed(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}

/// One line per finished example: status and its largest size's figures.
pub fn outcome_line(r: &Record) -> String {
    let mut line = format!("{} ({:.1} s)", r.status.word(), r.wall_s);
    if let Some(s) = r.sizes.last() {
        let _ = write!(
            line,
            ", {}n = {}: {:.2} µs, {:.0} GB/s, {:.1}% of peak",
            s.sweep
                .as_ref()
                .map(|v| format!("{v}, "))
                .unwrap_or_default(),
            s.n,
            s.median_us,
            s.gbs,
            s.pct_peak
        );
    }
    if !r.message.is_empty() {
        let _ = write!(line, ": {}", r.message);
    }
    if let Some(cost) = &r.cost {
        let _ = write!(line, " [{}]", cost.describe());
    }
    line
}

/// The line for a GPU lane that stopped answering after `example` ended
/// with `record` ([`crate::session::Event::LaneLost`]), after the front
/// end's prefix.
pub fn lane_lost_line(
    lane: usize,
    example: &str,
    record: &Record,
    since_start: Duration,
) -> String {
    format!(
        "GPU lane {lane} stopped answering after {example} ended {} (elapsed {}): it takes no more examples, and {example} goes to a GPU that still answers, if one does",
        record.status.word(),
        elapsed(since_start)
    )
}

/// A readable table of all records and sizes.
pub fn table(records: &[Record]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<34} {:<13} {:>7} {:>11} {:>9} {:>7} {:>7} {:>9}",
        "example", "status", "n", "median µs", "GB/s", "% peak", "spread", "error"
    );
    for r in records {
        if r.sizes.is_empty() {
            let _ = writeln!(
                out,
                "{:<34} {:<13} {}",
                r.example,
                r.status.word(),
                r.message
            );
            continue;
        }
        for (i, s) in r.sizes.iter().enumerate() {
            let (name, status) = if i == 0 {
                (r.example.as_str(), r.status.word())
            } else {
                ("", "")
            };
            let _ = writeln!(
                out,
                "{:<34} {:<13} {:>7} {:>11.2} {:>9.0} {:>7.1} {:>6.2}% {:>9.1e}{}{}",
                name,
                status,
                s.n.to_string(),
                s.median_us,
                s.gbs,
                s.pct_peak,
                100.0 * s.rel_spread,
                s.error,
                if s.pass { "" } else { " ✗" },
                // The value of a sweep a row is of, after the figures.
                s.sweep
                    .as_ref()
                    .map(|v| format!("  {v}"))
                    .unwrap_or_default()
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Progress lines show elapsed time as minutes and zero-padded seconds.
    #[test]
    fn elapsed_is_minutes_and_seconds() {
        assert_eq!(elapsed(Duration::from_secs(61)), "1:01");
        assert_eq!(elapsed(Duration::from_secs(600)), "10:00");
    }

    // `cuda-runner run` shows where an example's measuring time went, as
    // the book build does.
    #[test]
    fn outcome_lines_show_the_cost_when_known() {
        let dir = std::env::temp_dir();
        let body = "/*+++\nproblem = \"sum_f32\"\nsizes = [1024]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\"]\n+++*/\n";
        let ex =
            crate::example::Example::from_inline(&dir, "src/ch.md", &dir, body, 1, "demo").unwrap();
        let mut r = Record::failure(&ex, "k", crate::record::Status::Pass, "", "");
        r.wall_s = 2.0;
        assert_eq!(outcome_line(&r), "pass (2.0 s)");
        r.cost = Some(crate::record::Cost {
            timing_s: 1.5,
            ..Default::default()
        });
        assert!(outcome_line(&r).ends_with("[start 0.0, context 0.0, compile 0.0, support 0.0, ceilings 0.0, inputs 0.0, checks 0.0, timing 1.5]"));
    }
}
