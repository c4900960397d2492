//! The status page (`{{#status}}`): every example with its state, record
//! and key figure, linked to its panel; the same states as `mdbook-cuda
//! status`.

use crate::book_test::BookTest;
use regex::Regex;

/// The rows of a built status page, each as its cells' texts joined by
/// ` | `, the state's class first.
fn status_rows(html: &str) -> Vec<String> {
    let row = Regex::new(r#"(?s)<tr class="cm-state-([a-z-]+)">(.*?)</tr>"#).unwrap();
    let cell = Regex::new(r"(?s)<td[^>]*>(.*?)</td>").unwrap();
    let tag = Regex::new(r"<[^>]+>").unwrap();
    row.captures_iter(html)
        .map(|r| {
            let cells: Vec<String> = cell
                .captures_iter(&r[2])
                .map(|c| tag.replace_all(&c[1], "").into_owned())
                .collect();
            format!("{}: {}", &r[1], cells.join(" | "))
        })
        .collect()
}

// A fresh, a stale, a missing, a failed (not as declared), an expected
// failure and a broken example: one row each in reading order (a repeat
// listed once), with the GPU and day of the record and its key figure.
#[test]
fn status_page_lists_every_example() {
    let test = BookTest::from_fixture("status");
    test.build().assert_success();
    let html = test.main_html("status.html");
    assert_eq!(
        status_rows(&html),
        [
            "current: reductions/stride | current | src/reductions.md:5 | NVIDIA H200 | 2026-05-01 | 251.2 µs · 4274 GB/s at N = 2²⁸",
            "stale: reductions/old | stale | src/reductions.md:15 | NVIDIA H200 | 2026-04-20 | 251.2 µs · 4274 GB/s at N = 2²⁸",
            "expected-failure: reductions/racy | current (expected failure) | src/reductions.md:20 | NVIDIA H200 | 2026-05-01 | wrong: at N = 2²⁰ the sum is 1.0 but the …",
            "failed: reductions/wrong | failed | src/part/more.md:5 | NVIDIA H200 | 2026-05-01 | wrong: at N = 2²⁸ the sum is 1.34e8 but the …",
            "not-measured: reductions/new | not measured | src/part/more.md:10 | — | — | —",
            "broken: reductions/nope | broken | src/part/more.md:15 | — | — | kernels/reductions/nope.cu:1: cannot read the kernel file (No such file or …",
        ]
    );
    assert!(
        html.contains("<p class=\"cm-note\">6 examples: 1 current, 1 current (expected failure), 1 failed, 1 stale, 1 not measured, 1 broken</p>"),
        "{html}"
    );
    insta::assert_snapshot!("status__page", html);
}

// Each row links to its example's panel, which carries the anchor; each
// row of stored evidence to the heading of the section using it.
#[test]
fn status_links_lead_to_the_panels() {
    let test = BookTest::from_fixture("status");
    test.build().assert_success();
    let html = test.main_html("status.html");
    let link = Regex::new(r##"<a href="([^"#]+)#([^"]+)">"##).unwrap();
    let links: Vec<(String, String)> = link
        .captures_iter(&html)
        .map(|c| (c[1].to_string(), c[2].to_string()))
        .collect();
    assert_eq!(links.len(), 9, "{html}");
    for (page, anchor) in links {
        let target = test.main_html(&page);
        assert!(
            target.contains(&format!("id=\"{anchor}\"")),
            "{page} has no id=\"{anchor}\""
        );
    }
}

// Renderers other than html get the counts and a plain table.
#[test]
fn status_page_in_markdown() {
    let test = BookTest::from_fixture("status").env("MDBOOK_OUTPUT__MARKDOWN", "{}");
    test.build().assert_success();
    insta::assert_snapshot!("status__markdown", test.read("book/status.md"));
}

// `mdbook-cuda status` prints the same states, and fails as a strict
// build would; then the stored evidence the directives use, each file's
// state, use, date and tool, and the command that makes what is not current.
#[test]
fn status_command_uses_the_same_states() {
    let run = BookTest::from_fixture("status").mdbook_cuda(&["status"]);
    run.assert_failure();
    for line in [
        "current                     reductions/stride  src/reductions.md:5\n",
        "stale                       reductions/old     src/reductions.md:15\n",
        "current (expected failure)  reductions/racy    src/reductions.md:20\n",
        "failed                      reductions/wrong   src/part/more.md:5\n",
        "not measured                reductions/new     src/part/more.md:10\n",
        "broken                      reductions/nope    src/part/more.md:15\n",
        "current  Nsight Compute profile  results/profile/reductions/stride/268435456.json  src/reductions.md:39  2026-05-02  ncu 2025.3.1.0\n",
        "stale    ",
        "missing  SASS listing            results/sass/reductions/stride.json               src/reductions.md:44  —           —               scripts/sass\n",
        "[cuda] 3 stored evidence files: 1 current, 1 stale, 1 missing\n",
        "To make them: run scripts/sass (no GPU needed); on a GPU machine, run bench/gpu-session.sh OUTDIR profile.\n",
    ] {
        assert!(run.stdout.contains(line), "no {line:?} in:\n{}", run.stdout);
    }
}
