use super::*;
use crate::test_support::{ALLREDUCE_1GPU, ALLREDUCE_2GPU, allreduce_json};

/// The real report of one H200.
pub(crate) fn one_gpu() -> Report {
    serde_json::from_value(allreduce_json(ALLREDUCE_1GPU, Some("k"))).unwrap()
}

/// The synthetic report of two H200s: NV18 between them, two-shot failing
/// its check at 8 B, NCCL noisy at 2 KiB, 4 GiB skipped.
pub(crate) fn two_gpus() -> Report {
    serde_json::from_value(allreduce_json(ALLREDUCE_2GPU, Some("k"))).unwrap()
}

fn texts(row: &[Cell]) -> Vec<&str> {
    row.iter().map(|c| c.text.as_str()).collect()
}

fn view(report: Report, stale: Option<&str>) -> AllreduceView {
    AllreduceView {
        gpus: report.ranks,
        file: format!("results/allreduce/nvidia-h200-{}gpu.json", report.ranks),
        stored: Ok(Stored {
            report,
            stale: stale.map(str::to_string),
        }),
    }
}

// The facts name the GPUs, the link in short form, NCCL, the day, how it
// was timed and that multicast was off.
#[test]
fn facts_lines() {
    assert_eq!(
        facts(&two_gpus()),
        "2 × NVIDIA H200 · NV18 (18 NVLinks) · NCCL 2.28.3 · measured 2026-12-03 · hot timing, the slowest rank · NVLink multicast off"
    );
    assert_eq!(
        facts(&one_gpu()),
        "1 × NVIDIA H200 · one GPU, no link · NCCL 2.28.3 · measured 2026-12-01 · hot timing, the slowest rank · NVLink multicast off"
    );
    let mut on = two_gpus();
    on.environment.remove("NCCL_NVLS_ENABLE");
    on.link.nvidia_smi_topo = None;
    let facts = facts(&on);
    assert!(facts.contains("· link not recorded ·"), "{facts}");
    assert!(
        facts.ends_with("NVLink multicast not known to be off"),
        "{facts}"
    );
}

// Over two GPUs each size has every implementation's time, algbw and
// busbw and the fastest; a failed check is ✗ with its error, a noisy
// timing ~, and both marks are explained.
#[test]
fn two_gpu_table() {
    let table = table(&two_gpus());
    let head: Vec<&str> = texts(&table.head);
    assert_eq!(
        head,
        [
            "size",
            "nccl µs",
            "nccl algbw",
            "nccl busbw",
            "nccl-inplace µs",
            "nccl-inplace algbw",
            "nccl-inplace busbw",
            "one-shot µs",
            "one-shot algbw",
            "one-shot busbw",
            "two-shot µs",
            "two-shot algbw",
            "two-shot busbw",
            "fastest"
        ]
    );
    assert_eq!(table.rows.len(), 14);
    let first = &table.rows[0];
    assert_eq!(
        texts(first),
        [
            "8 B", "9.000", "0.00", "0.00", "9.300", "0.00", "0.00", "5.500", "0.00", "0.00", "✗",
            "—", "—", "one-shot"
        ]
    );
    assert!(
        first[10]
            .title
            .as_deref()
            .unwrap()
            .starts_with("wrong answer: 1 of 4")
    );
    assert_eq!(
        first[13].title.as_deref(),
        Some("one-shot 5.500 µs against nccl 9.000 µs: ahead by 63.6%")
    );
    assert_eq!(texts(&table.rows[4])[1], "9.006 ~");
    assert_eq!(texts(table.rows.last().unwrap())[13], "two-shot");
    assert_eq!(
        table.notes,
        [
            "✗ the check of every rank's output failed: not timed",
            "~ noisy: the noise target was not met before the time-out"
        ]
    );
}

// With one GPU busbw is 0 by definition: the table leaves it out and a
// note says why; NCCL in place, which then moves nothing, is never the
// fastest.
#[test]
fn one_gpu_table_has_no_busbw() {
    let report = one_gpu();
    let table = table(&report);
    assert_eq!(table.head.len(), 1 + 4 * 2 + 1);
    assert!(!texts(&table.head).iter().any(|h| h.contains("busbw")));
    assert_eq!(
        texts(&table.rows[13]),
        [
            "256 MiB", "128.5", "2089", "0.020", "13421773", "146.1", "1837", "156.1", "1719",
            "nccl"
        ]
    );
    assert_eq!(
        table.rows[13][9].title.as_deref(),
        Some("nccl 128.5 µs against one-shot 146.1 µs: ahead by 13.7%")
    );
    assert!(one_gpu_note(&report).unwrap().contains("0 by definition"));
    assert_eq!(one_gpu_note(&two_gpus()), None);
}

// The caption gives the software, the method and what was not run.
#[test]
fn caption_names_software_method_and_skips() {
    let caption = caption(&two_gpus());
    assert!(
        caption.starts_with(
            "driver 580.159.04 · CUDA driver API 13.0 · NVRTC 13.0 · NCCL 2.28.3 · cuda-runner 0.1.0 · each time the median"
        ),
        "{caption}"
    );
    assert!(caption.contains("busbw = algbw × 2(k−1)/k (nccl-tests)"));
    assert!(caption.ends_with("4 GiB not run: skipped 4 GiB: each GPU needs 8.5 GiB (input, output and 512 MiB), the least free is 8.1 GiB"));
}

// A current panel holds head, chart, table and caption without a blank
// line; a failed check makes it ✗; a stale one is greyed with the command
// that measures it again; a missing one says how to make it.
#[test]
fn html_panels() {
    let current = html(&view(one_gpu(), None)).into_string();
    assert!(
        current.starts_with("<div class=\"cm-panel cm-allreduce cm-pass\" data-gpus=\"1\">"),
        "{current}"
    );
    assert!(current.contains("<span class=\"cm-mark\">✓</span>"));
    assert!(current.contains("<div class=\"cm-figure cm-table cm-sizes\"><svg class=\"cm-chart\""));
    assert!(current.contains("<p class=\"cm-note\">With one GPU no byte crosses a link"));
    assert!(!current.lines().any(|l| l.trim().is_empty()));
    let failed = html(&view(two_gpus(), None)).into_string();
    assert!(failed.starts_with("<div class=\"cm-panel cm-allreduce cm-wrong\" data-gpus=\"2\">"));
    let stale = html(&view(
        two_gpus(),
        Some("the all-reduce kernels (kernels/allreduce/) changed since it was measured"),
    ))
    .into_string();
    assert!(stale.contains("cm-panel cm-allreduce cm-stale"), "{stale}");
    assert!(stale.contains(
        "<p class=\"cm-note\">The all-reduce kernels (kernels/allreduce/) changed since it was measured: these figures may no longer hold; run <code>cuda-runner allreduce --gpus 2</code> in the book's root on a machine with 2 GPUs and commit results/allreduce/.</p>"
    ), "{stale}");
    let missing = html(&AllreduceView {
        gpus: 4,
        file: "results/allreduce/nvidia-h200-4gpu.json".into(),
        stored: Err(crate::stored::StoredError::Absent {
            absent: "not measured",
            shown: "results/allreduce/nvidia-h200-4gpu.json".into(),
            fix: super::super::reallreduce(4),
        }),
    })
    .into_string();
    assert!(
        missing.starts_with("<div class=\"cm-panel cm-allreduce cm-missing\" data-gpus=\"4\">")
    );
    assert!(missing.contains("All-reduce (f32 sum) over 4 GPUs: not measured"));
    assert!(missing.contains("run <code>cuda-runner allreduce --gpus 4</code> in the book's root"));
}

// Other renderers get the head, the notes, the table and the caption.
#[test]
fn markdown_report() {
    let md = markdown(&view(
        one_gpu(),
        Some("written before reports recorded the key"),
    ));
    assert!(
        md.starts_with(
            "**✓ All-reduce (f32 sum) over 1 GPU** · 1 × NVIDIA H200 · one GPU, no link"
        ),
        "{md}"
    );
    assert!(md.contains("*Written before reports recorded the key: these figures may no longer hold; run `cuda-runner allreduce --gpus 1` in the book's root on a machine with a GPU and commit results/allreduce/.*"), "{md}");
    assert!(md.contains("| size | nccl µs | nccl algbw |"), "{md}");
    assert!(md.contains("| 8 B | 1.612 | 0.00 | 0.020 | 0.40 |"), "{md}");
    assert!(md.trim_end().ends_with("*"), "{md}");
}
