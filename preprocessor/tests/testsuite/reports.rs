//! Stored reports in prose: `{{#peers}}` (chart, table, caption) and
//! `{{#repeatability}}`, with the `{{#ceiling}}` figures and the hot,
//! spread, samples and % of ceiling fields of `{{#measured}}` beside them.

use crate::book_test::BookTest;
use regex::Regex;

/// The chart's SVG replaced by the texts it shows, in drawing order: the
/// snapshot then reads as what a reader sees (titles, ticks, line labels,
/// legend) without the path coordinates.
fn redact_charts(html: &str) -> String {
    let chart = Regex::new(r#"(?s)<svg class="cm-chart"(.*?)</svg>"#).unwrap();
    let text = Regex::new(r"(?s)<text[^>]*>\s*([^<]*?)\s*</text>").unwrap();
    chart
        .replace_all(html, |caps: &regex::Captures<'_>| {
            let texts: Vec<&str> = text
                .captures_iter(&caps[1])
                .map(|t| t.get(1).unwrap().as_str())
                .collect();
            format!(
                "<svg class=\"cm-chart\">[chart: {}]</svg>",
                texts.join(" | ")
            )
        })
        .into_owned()
}

// A current comparison renders its chart, table and caption; one measured
// for an earlier version of the kernel is greyed and says so; one never
// measured shows the marker; the repeatability report lists every row with
// its verdict; figures from the record read like the panel's.
#[test]
fn peers_and_repeatability_render() {
    let test = BookTest::from_fixture("comparison");
    let run = test.build();
    run.assert_success();
    let peers = test.main_html("peers.html");
    let svg_start = peers.find("<svg class=\"cm-chart\"").expect("a chart");
    let svg = &peers[svg_start..peers[svg_start..].find("</svg>").unwrap() + svg_start];
    // mdBook writes attribute names in lower case; browsers read `viewbox`
    // in inline SVG as `viewBox`.
    let lower = svg.to_lowercase();
    assert!(
        lower.contains("viewbox=\"0 0 960 430\" width=\"100%\""),
        "{svg}"
    );
    for want in [
        "fill=\"currentColor\"",
        ">read ceiling (measured)<",
        ">fast_reduce (ours)<",
    ] {
        assert!(svg.contains(want), "{want} not in the chart");
    }
    assert!(
        !svg.lines().any(|l| l.trim().is_empty()),
        "blank line in the chart"
    );
    let pages: Vec<String> = test
        .chapter_pages()
        .iter()
        .skip(1)
        .map(|page| format!("===== {page}\n{}\n", redact_charts(&test.main_html(page))))
        .collect();
    insta::assert_snapshot!("comparison", pages.join("\n"));
    assert!(
        run.stderr.contains("3 example(s) or figure(s) are stale"),
        "{}",
        run.stderr
    );
}

// Other renderers get the tables alone.
#[test]
fn markdown_renderer_gets_report_tables() {
    let test = BookTest::from_fixture("comparison").env("MDBOOK_OUTPUT__MARKDOWN", "{}");
    test.build().assert_success();
    let pages = format!(
        "===== peers.md\n{}\n===== method.md\n{}",
        test.read("book/peers.md"),
        test.read("book/method.md")
    );
    insta::assert_snapshot!("comparison__markdown", pages);
}

// A strict build fails on a comparison that is not current or not there,
// naming the file and the fix; the repeatability report is never stale.
#[test]
fn strict_build_fails_on_old_comparisons() {
    let run = BookTest::from_fixture("comparison")
        .env("CUDA_MEASURED_STRICT", "1")
        .build();
    run.assert_failure();
    for want in [
        "[cuda] src/peers.md:13: {{#peers sum_f32_before}}: results/peers/sum_f32_before.json: measured for an earlier version of reductions/fast_reduce; run bench/gpu-session.sh on a GPU machine",
        "[cuda] src/peers.md:15: {{#peers scan_f32}}: not measured: results/peers/scan_f32.json does not exist; run bench/gpu-session.sh on a GPU machine",
        "[cuda] src/method.md:6: {{#measured reductions/fast_reduce hot 2^20}}: `reductions/fast_reduce` has no hot figure at N = 2^20",
        "strict build: 3 problem(s)",
    ] {
        assert!(
            run.stderr.contains(want),
            "stderr lacks {want:?}:\n{}",
            run.stderr
        );
    }
}
