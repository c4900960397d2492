//! All-reduce reports in prose: `{{#allreduce GPUS}}` (facts, chart,
//! table, caption) and `{{#allreduce_figure}}`, from the real report of
//! one H200 and a synthetic one of two; a report not made yet, and one
//! made before the kernels changed; the status page's stored evidence.

use crate::book_test::BookTest;
use crate::reports::redact_charts;

// The reports of one and two GPUs render their facts, chart, table and
// caption, the figures read from them; the one of four GPUs, never made,
// says how to make it; the status page lists all three files.
#[test]
fn allreduce_reports_render() {
    let test = BookTest::from_fixture("allreduce");
    let run = test.build();
    run.assert_success();
    let html = test.main_html("allreduce.html");
    for want in [
        "<div class=\"cm-panel cm-allreduce cm-pass\" data-gpus=\"1\">",
        ">median time, µs (log scale); one GPU: busbw is 0 by definition<",
        "<div class=\"cm-panel cm-allreduce cm-wrong\" data-gpus=\"2\">",
        ">bus bandwidth, GB/s<",
        "<span class=\"cm-facts\">2 × NVIDIA H200 · NV18 (18 NVLinks) · NCCL 2.28.3 · measured 2026-12-03 · hot timing, the slowest rank · NVLink multicast off</span>",
        "<div class=\"cm-panel cm-allreduce cm-missing\" data-gpus=\"4\">",
    ] {
        assert!(html.contains(want), "{want} not in\n{html}");
    }
    let pages: Vec<String> = test
        .chapter_pages()
        .iter()
        .map(|page| format!("===== {page}\n{}\n", redact_charts(&test.main_html(page))))
        .collect();
    insta::assert_snapshot!("allreduce", pages.join("\n"));
    assert!(
        run.stderr.contains("2 example(s) or figure(s) are stale"),
        "{}",
        run.stderr
    );
}

// Other renderers get the facts, notes, tables and captions.
#[test]
fn markdown_renderer_gets_allreduce_tables() {
    let test = BookTest::from_fixture("allreduce").env("MDBOOK_OUTPUT__MARKDOWN", "{}");
    test.build().assert_success();
    insta::assert_snapshot!("allreduce__markdown", test.read("book/allreduce.md"));
}

// A report never made fails a strict build, with the command that makes
// it, and waits in the author's build.
#[test]
fn a_missing_report_fails_strict_and_waits_for_the_author() {
    let strict = BookTest::from_fixture("allreduce")
        .env("CUDA_MEASURED_STRICT", "1")
        .build();
    strict.assert_failure();
    for want in [
        "[cuda] src/allreduce.md:20: {{#allreduce_figure 4 nccl busbw 256MiB}}: not measured: results/allreduce/nvidia-h200-4gpu.json does not exist; run `cuda-runner allreduce --gpus 4` in the book's root on a machine with 4 GPUs and commit results/allreduce/",
        "[cuda] src/allreduce.md:22: {{#allreduce 4}}: not measured: results/allreduce/nvidia-h200-4gpu.json does not exist;",
        "strict build: 2 problem(s)",
    ] {
        assert!(
            strict.stderr.contains(want),
            "stderr lacks {want:?}:\n{}",
            strict.stderr
        );
    }
    BookTest::from_fixture("allreduce")
        .env("CUDA_MEASURED_STRICT", "author")
        .build()
        .assert_success();
}

// After an edit to a kernel the reports are greyed and say why; a strict
// build fails on them and the author's build waits for the GPUs.
#[test]
fn a_kernel_edit_makes_the_reports_stale() {
    let edited = |strict: &str| {
        let test = BookTest::from_fixture("allreduce").env("CUDA_MEASURED_STRICT", strict);
        let kernel = test.root().join("kernels/allreduce/two_shot.cu");
        let text = std::fs::read_to_string(&kernel).unwrap();
        std::fs::write(&kernel, text.replace("{}", "{ }")).unwrap();
        test
    };
    let test = edited("0");
    test.build().assert_success();
    let html = test.main_html("allreduce.html");
    let note = "The all-reduce kernels (kernels/allreduce/) changed since it was measured: these figures may no longer hold; run <code>cuda-runner allreduce --gpus 2</code> in the book's root on a machine with 2 GPUs and commit results/allreduce/.";
    assert!(
        html.contains("<div class=\"cm-panel cm-allreduce cm-stale\" data-gpus=\"2\">"),
        "{html}"
    );
    assert!(
        html.contains(&format!("<p class=\"cm-note\">{note}</p>")),
        "{html}"
    );
    assert!(
        html.contains("<td>512 KiB</td>"),
        "the stale report's rows are still shown\n{html}"
    );
    let strict = edited("1").build();
    strict.assert_failure();
    let want = "[cuda] src/allreduce.md:16: {{#allreduce 2}}: results/allreduce/nvidia-h200-2gpu.json: the all-reduce kernels (kernels/allreduce/) changed since it was measured; run `cuda-runner allreduce --gpus 2` in the book's root on a machine with 2 GPUs and commit results/allreduce/";
    assert!(strict.stderr.contains(want), "{}", strict.stderr);
    edited("author").build().assert_success();
}
