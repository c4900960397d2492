//! A matrix product against cuBLAS, from records and peer lines made
//! here and combined as `cuda-runner peers` combines them: sizes as the
//! problem writes them, TFLOP/s against the FP32 FMA ceiling, the time
//! ratio as for every problem; and stored bandwidth reports as before.

use super::chart::svg;
use super::render::{ours_label, peers_table};
use crate::test_support::record;
use cuda_measured_core::declaration::Expectation;
use cuda_measured_core::dims::Dims;
use cuda_measured_core::method::MeasuredCeiling;
use cuda_measured_core::peers::{Report, combine, load_config};
use cuda_measured_core::record::{Record, Status};
use cuda_measured_core::size::Size;

/// A record of `example` of matmul_f32 at M = N = K = 2048 and 4096,
/// timed in the given microseconds, as the runner writes one: the sizes'
/// values, their FLOP rate, TFLOP/s held to the FP32 FMA ceiling
/// measured beside it (51.2 TFLOP/s, datasheet figure 66.9).
fn matmul_record(example: &str, us: [f64; 2]) -> Record {
    let dims = cuda_measured_core::problem::lookup("matmul_f32")
        .expect("matmul_f32 is a problem")
        .dims();
    let mut r = record(Status::Pass, Expectation::Pass);
    r.example = example.into();
    r.key = format!("key-{example}");
    r.problem = "matmul_f32 v2".into();
    r.ceilings = Some(cuda_measured_core::method::Ceilings {
        read_gbs: 4328.2,
        copy_gbs: 3936.5,
        launch_floor_us: 2.784,
        buffer_bytes: 1 << 30,
        named: Default::default(),
    });
    r.ceilings.as_mut().expect("just set").named.insert(
        "fp32_fma".into(),
        MeasuredCeiling {
            value: 51.2,
            unit: "TFLOP/s".into(),
            peak: Some(66.9),
            sm_clock_mhz: Some(1980.0),
        },
    );
    let template = r.sizes[0].clone();
    r.sizes = [2048u64, 4096]
        .into_iter()
        .zip(us)
        .map(|(side, us)| {
            let mut s = template.clone();
            s.n = Size(side.pow(3));
            s.dims = Dims::new(dims, &[side; 3]);
            s.bytes = 12 * side * side;
            (s.median_us, s.min_us, s.max_us) = (us, us * 0.99, us * 1.02);
            s.figure = Some("tflops".into());
            s.ceiling = Some("fp32_fma".into());
            s.metrics.clear();
            s.metrics
                .insert("flop_per_s".into(), 2.0 * side.pow(3) as f64 / (us * 1e-6));
            s
        })
        .collect();
    r
}

/// matmul_peers.py's lines (pooled): a meta line, then torch_mm at
/// M = N = K = 2048, 4096 and 8192.
fn matmul_lines() -> String {
    let mut lines = vec![
        serde_json::json!({"impl": "meta", "source": "matmul_peers.py",
        "torch": "2.11.0+cu130", "cuda_runtime": "13.0"}),
    ];
    for (side, us) in [(2048u64, 360.0), (4096, 2800.0), (8192, 22000.0)] {
        let flop = 2 * side.pow(3);
        lines.push(serde_json::json!({
            "impl": "torch_mm", "n": side.pow(3), "dims": {"M": side, "N": side, "K": side},
            "bytes": 12 * side * side, "flop": flop, "median_us": us, "min_us": us * 0.99,
            "max_us": us * 1.01, "samples": 40, "rel_spread": 0.004, "noisy": false,
            "pass": true, "tflops": flop as f64 / (us * 1e-6) / 1e12
        }));
    }
    lines
        .iter()
        .map(|l| format!("{l}\n"))
        .collect::<Vec<_>>()
        .join("")
}

/// The comparison of `records` with the lines, under the book's own
/// entry of matmul_f32 in bench/peers/peers.toml.
fn matmul_report(records: &[Record]) -> Report {
    let config = load_config(include_str!("../../../../bench/peers/peers.toml"))
        .expect("the peers list parses");
    combine(
        "matmul_f32",
        records,
        &matmul_lines(),
        &config["matmul_f32"],
    )
    .expect("the report combines")
}

fn texts(row: &[crate::render::reports::Cell]) -> Vec<&str> {
    row.iter().map(|c| c.text.as_str()).collect()
}

// The table shows each size as the problem writes it and our TFLOP/s
// against the FP32 FMA ceiling; the ratio is cuBLAS's time over ours, as
// for every problem; a size only cuBLAS ran has dashes for ours.
#[test]
fn a_matmul_table_reads_in_dims_and_tflops() {
    let report = matmul_report(&[matmul_record("matmul/double_buffer", [380.0, 2900.0])]);
    let table = peers_table(&report);
    let head: Vec<&str> = table.head.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        head,
        [
            "M x N x K",
            "ours µs",
            "cuBLAS µs",
            "cuBLAS / ours",
            "ours TFLOP/s",
            "% of FP32 FMA ceiling"
        ]
    );
    let want: [&[&str]; 3] = [
        &["M=N=K=2048", "380.0", "360.0", "0.947", "45.21", "88.3%"],
        &["M=N=K=4096", "2900", "2800", "0.966", "47.39", "92.6%"],
        &["M=N=K=8192", "—", "22000", "—", "—", "—"],
    ];
    for (row, want) in table.rows.iter().zip(want) {
        assert_eq!(texts(row), want);
    }
    assert_eq!(
        table.head[5].title.as_deref(),
        Some("ours TFLOP/s over the FP32 FMA ceiling measured with our kernel (51.20 TFLOP/s)")
    );
    assert!(!format!("{table:?}").contains("GB/s"), "{table:?}");
}

// The chart plots TFLOP/s with the FMA ceiling and its datasheet figure,
// a tick at each size labelled with its side under `M = N = K`, never
// the product M N K as a power of two.
#[test]
fn a_matmul_chart_plots_tflops_against_the_sides() {
    let report = matmul_report(&[matmul_record("matmul/double_buffer", [380.0, 2900.0])]);
    let svg = svg(&report).unwrap();
    for text in [
        ">TFLOP/s<",
        ">FP32 FMA ceiling (measured)<",
        ">datasheet peak<",
        ">M = N = K<",
        ">2048<",
        ">4096<",
        ">8192<",
        ">double_buffer (ours)<",
        ">cuBLAS SGEMM through torch.mm, TF32 off<",
        "median time and TFLOP/s against size",
    ] {
        assert!(svg.contains(text), "{text} not in the chart");
    }
    for text in [">GB/s<", "2³³", "2³⁶", ">N (elements)<"] {
        assert!(!svg.contains(text), "{text} in the chart");
    }
    // Sizes whose values differ are labelled in full under the names.
    let mut odd = report.clone();
    let dims = odd.rows[0].dims.unwrap().dims();
    odd.rows[0].dims = Dims::new(dims, &[4096, 2048, 1024]);
    let svg = super::chart::svg(&odd).unwrap();
    assert!(svg.contains(">M=4096, N=2048, K=1024<"), "{svg}");
    assert!(svg.contains(">M x N x K<"));
}

// With several of our kernels, each size names the fastest, and the
// headings speak of sizes, not of N.
#[test]
fn several_matmul_kernels_are_compared_at_each_size() {
    let report = matmul_report(&[
        matmul_record("matmul/double_buffer", [380.0, 3000.0]),
        matmul_record("matmul/tuned_128x128", [400.0, 2900.0]),
    ]);
    assert_eq!(
        ours_label(&report),
        "ours (fastest of our kernels at each size)"
    );
    let table = peers_table(&report);
    assert_eq!(
        table.head[2].title.as_deref(),
        Some("which of our kernels is fastest at this size")
    );
    let picked: Vec<&str> = table.rows.iter().map(|r| r[2].text.as_str()).collect();
    assert_eq!(picked, ["double_buffer", "tuned_128x128", "—"]);
    assert_eq!(texts(&table.rows[1])[5..], ["47.39", "92.6%"]);
}

// A stored report of a bandwidth problem of two dimensions, made before
// sizes kept their values, still shows N as a power of two and GB/s
// against the copy ceiling.
#[test]
fn stored_bandwidth_reports_keep_n_and_gbs() {
    let report: Report =
        serde_json::from_str(include_str!("../../../../results/peers/transpose.json")).unwrap();
    let table = peers_table(&report);
    assert_eq!(table.head[0].text, "N");
    assert_eq!(table.rows[0][0].text, "2^24");
    let last = table.head.len() - 1;
    assert_eq!(table.head[last - 1].text, "ours GB/s");
    assert_eq!(table.head[last].text, "% of copy ceiling");
    let svg = svg(&report).unwrap();
    assert!(svg.contains(">GB/s<") && svg.contains(">2²⁴<"));
    assert!(svg.contains("median time and GB/s against N"));
}
