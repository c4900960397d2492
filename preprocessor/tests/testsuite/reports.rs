//! Stored reports in prose: `{{#peers}}` (chart, table, caption) and
//! `{{#repeatability}}`, with the `{{#ceiling}}` figures and the hot,
//! spread, samples and % of ceiling fields of `{{#measured}}` beside them.

use crate::book_test::BookTest;
use regex::Regex;

/// The chart's SVG replaced by the texts it shows, in drawing order: the
/// snapshot then reads as what a reader sees (titles, ticks, line labels,
/// legend) without the path coordinates.
pub(crate) fn redact_charts(html: &str) -> String {
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
// naming the file and the fix; a current repeatability report is no problem.
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

// A repeatability report measured with another method, one whose example
// changed since, and one written before reports carried their method and
// keys are read, rendered greyed with the reason as note and tooltip, and
// fail a strict build like a stale comparison.
#[test]
fn stale_repeatability_reports_are_greyed_and_fail_strict() {
    let now = cuda_measured_core::METHOD_VERSION;
    type Edit = fn(&mut serde_json::Value);
    let cases: [(&str, Edit, String); 3] = [
        (
            "old method",
            |r| r["method_version"] = (cuda_measured_core::METHOD_VERSION - 1).into(),
            format!(
                "the measuring method changed from v{} to v{now} since it was measured",
                now - 1
            ),
        ),
        (
            "changed key",
            |r| r["keys"]["reductions/fast_reduce"] = "an-old-key".into(),
            "the code of reductions/fast_reduce changed since it was measured".into(),
        ),
        (
            "older file",
            |r| {
                let r = r.as_object_mut().unwrap();
                r.remove("method_version");
                r.remove("keys");
            },
            format!(
                "written before reports recorded the measuring method (now v{now}) and the keys of the examples"
            ),
        ),
    ];
    for (case, edit, reason) in cases {
        let book = |test: BookTest| {
            let path = test.root().join("results/repeatability.json");
            let mut report: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            edit(&mut report);
            std::fs::write(&path, report.to_string()).unwrap();
            test
        };
        let test = book(BookTest::from_fixture("comparison"));
        test.build().assert_success();
        let html = test.main_html("method.html");
        let mut chars = reason.chars();
        let first = chars.next().unwrap().to_uppercase().collect::<String>();
        let note = format!(
            "{first}{}: these figures may no longer hold. Run bench/gpu-session.sh on a GPU machine to measure them again.",
            chars.as_str()
        );
        let head = format!("<div class=\"cm-panel cm-repeatability cm-stale\" title=\"{note}\">");
        assert!(html.contains(&head), "{case}: {head:?} not in\n{html}");
        assert!(
            html.contains(&format!("<p class=\"cm-note\">{note}</p>")),
            "{case}: {html}"
        );
        assert!(
            html.contains("<td>reductions/fast_reduce</td><td>2²⁸</td><td>248.1</td>"),
            "{case}: the rows are still shown\n{html}"
        );

        let run =
            book(BookTest::from_fixture("comparison").env("CUDA_MEASURED_STRICT", "1")).build();
        run.assert_failure();
        for want in [
            format!(
                "[cuda] src/method.md:8: {{{{#repeatability}}}}: results/repeatability.json: {reason}; run bench/gpu-session.sh on a GPU machine"
            ),
            "strict build: 4 problem(s)".to_string(),
        ] {
            assert!(
                run.stderr.contains(&want),
                "{case}: stderr lacks {want:?}:\n{}",
                run.stderr
            );
        }
    }
}
