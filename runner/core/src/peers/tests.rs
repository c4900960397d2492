use super::*;

/// A record of `example` timed at N = 2^10 and 2^18 in the given
/// microseconds, passing or not.
fn record(example: &str, us: [f64; 2], pass: bool) -> Record {
    use crate::record::test_records;
    let mut r = test_records::record(example, &format!("key-{example}"));
    if !pass {
        r.status = Status::Wrong;
    }
    r.problem = "softmax_rows v1".into();
    r.sizes = vec![
        test_records::size(1 << 10, 1 << 29, us[0], pass),
        test_records::size(1 << 18, 1 << 29, us[1], pass),
    ];
    r
}

fn config(ours: &str) -> ProblemPeers {
    let text = format!(
        "[p]\nours = {ours}\nreference = \"t\"\n[[p.peer]]\nkey = \"t\"\nlabel = \"T\"\nshort = \"T\"\ncolour = \"#123456\"\n"
    );
    load_config(&text).unwrap().remove("p").unwrap()
}

// With several of our kernels, each size takes the fastest correct one
// and names it; every candidate's key is kept for staleness.
#[test]
fn several_kernels_compare_the_fastest_correct_one_at_each_size() {
    let warp = record("ch/warp", [100.0, 900.0], true);
    let block = record("ch/block", [150.0, 300.0], true);
    let wrong = record("ch/wrong", [50.0, 50.0], false);
    let lines =
        "{\"impl\": \"t\", \"n\": 1024, \"median_us\": 120.0, \"pass\": true, \"bytes\": 7}\n";
    let r = combine(
        "softmax_rows",
        &[warp, block, wrong],
        lines,
        &config("[\"ch/warp\", \"ch/block\", \"ch/wrong\"]"),
    )
    .unwrap();
    let picked: Vec<(Option<&str>, f64)> = r
        .rows
        .iter()
        .map(|row| {
            (
                row.ours_example.as_deref(),
                row.ours.as_ref().unwrap().median_us,
            )
        })
        .collect();
    assert_eq!(
        picked,
        [(Some("ch/warp"), 100.0), (Some("ch/block"), 300.0)]
    );
    assert_eq!(r.ours_keys.len(), 3);
    assert_eq!(r.rows[0].bytes, 1 << 29, "our record's bytes win");
    // A kernel of another problem is refused.
    let mut other = record("ch/other", [1.0, 1.0], true);
    other.problem = "sum_f32 v2".into();
    let cfg = config("[\"ch/warp\", \"ch/other\"]");
    let err = combine(
        "softmax_rows",
        &[record("ch/warp", [1.0, 1.0], true), other],
        "",
        &cfg,
    );
    assert!(
        err.unwrap_err()
            .to_string()
            .contains("only kernels of one problem")
    );
}

// One kernel keeps the report as it was: no per-row names, no key map.
#[test]
fn one_kernel_keeps_the_single_form() {
    let r = combine(
        "sum_f32",
        &[record("ch/only", [1.0, 2.0], true)],
        "",
        &config("\"ch/only\""),
    )
    .unwrap();
    assert!(r.ours_keys.is_empty());
    assert!(r.rows.iter().all(|row| row.ours_example.is_none()));
    assert_eq!(r.ours_example, "ch/only");
}

/// A matmul_f32 record of `example` at M = N = K = 2048 and 4096 taking
/// the given microseconds, as the runner writes one: the sizes' values,
/// their FLOP rate, TFLOP/s held to the FP32 FMA ceiling.
fn matmul_record(example: &str, us: [f64; 2]) -> Record {
    use crate::record::test_records;
    let dims = crate::problem::lookup("matmul_f32")
        .expect("matmul_f32 is a problem")
        .dims();
    let mut r = test_records::record(example, &format!("key-{example}"));
    r.problem = "matmul_f32 v2".into();
    r.sizes = [2048u64, 4096]
        .iter()
        .zip(us)
        .map(|(&side, us)| {
            let mut s = test_records::size(side.pow(3), 12 * side * side, us, true);
            s.dims = Dims::new(dims, &[side; 3]);
            s.figure = Some("tflops".into());
            s.ceiling = Some("fp32_fma".into());
            s.metrics.insert(
                "flop_per_s".into(),
                2.0 * (side.pow(3)) as f64 / (us * 1e-6),
            );
            s
        })
        .collect();
    r
}

/// A peer line of torch_mm at M = N = K = `side`, as matmul_peers.py
/// writes it.
fn matmul_line(side: u64, us: f64) -> String {
    serde_json::json!({
        "impl": "torch_mm", "n": side.pow(3), "dims": {"M": side, "N": side, "K": side},
        "bytes": 12 * side * side, "flop": 2 * side.pow(3), "median_us": us, "pass": true,
        "tflops": 2.0 * (side.pow(3)) as f64 / (us * 1e-6) / 1e12
    })
    .to_string()
}

// A matrix product's report keeps each size's dimensions and FLOP count
// (from our records, and from the peers' lines at sizes only they have),
// and its figure and ceiling: TFLOP/s against the FP32 FMA ceiling.
#[test]
fn a_matmul_report_keeps_dims_flop_and_its_figure() {
    let lines = format!(
        "{}\n{}\n",
        matmul_line(4096, 2000.0),
        matmul_line(8192, 15000.0)
    );
    let r = combine(
        "matmul_f32",
        &[matmul_record("mm/fast", [300.0, 2100.0])],
        &lines,
        &config("\"mm/fast\""),
    )
    .unwrap();
    assert_eq!(r.figure.as_deref(), Some("tflops"));
    assert_eq!(r.ceiling.as_deref(), Some("fp32_fma"));
    let sizes: Vec<String> = r.rows.iter().map(|row| row.size().to_string()).collect();
    assert_eq!(sizes, ["M=N=K=2048", "M=N=K=4096", "M=N=K=8192"]);
    let flop: Vec<Option<f64>> = r.rows.iter().map(|row| row.flop).collect();
    assert_eq!(
        flop,
        [2048f64, 4096.0, 8192.0].map(|side| Some(2.0 * side * side * side))
    );
    assert!(r.rows[2].ours.is_none());
    assert_eq!(r.rows[1].peers["torch_mm"].median_us, 2000.0);
    // Stored and read back, the same report.
    let json = serde_json::to_string(&r).unwrap();
    assert!(
        json.contains(r#""dims":{"M":4096,"N":4096,"K":4096}"#),
        "{json}"
    );
    assert_eq!(serde_json::from_str::<Report>(&json).unwrap(), r);
    // A line whose dimensions are not the records' at the same n is refused.
    let odd = matmul_line(4096, 2000.0).replace(
        r#"{"K":4096,"M":4096,"N":4096}"#,
        r#"{"M":8192,"N":2048,"K":4096}"#,
    );
    assert!(odd.contains("8192"), "{odd}");
    let err = combine(
        "matmul_f32",
        &[matmul_record("mm/fast", [300.0, 2100.0])],
        &odd,
        &config("\"mm/fast\""),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("size M=8192, N=2048, K=4096 is not the records' M=N=K=4096"),
        "{err}"
    );
    let short = line_dims("matmul_f32", &serde_json::json!({"M": 8, "N": 8})).unwrap_err();
    assert!(short.to_string().contains("has 2 values"), "{short}");
    let named = line_dims(
        "matmul_f32",
        &serde_json::json!({"M": 8, "N": 8, "rows": 8}),
    );
    assert!(
        named
            .unwrap_err()
            .to_string()
            .contains("no whole value of `K`")
    );
}

// Reports of bandwidth problems stored before sizes kept their dimensions
// read back and write out exactly as they were: no new field appears.
#[test]
fn stored_bandwidth_reports_write_back_unchanged() {
    for text in [
        include_str!("../../../../results/peers/sum_f32.json"),
        include_str!("../../../../results/peers/transpose.json"),
        include_str!("../../../../results/peers/transfer_h2d.json"),
    ] {
        let report: Report = serde_json::from_str(text).unwrap();
        assert!(report.figure.is_none() && report.ceiling.is_none());
        assert!(
            report
                .rows
                .iter()
                .all(|r| r.dims.is_none() && r.flop.is_none())
        );
        let back = serde_json::to_value(&report).unwrap();
        let stored: serde_json::Value = serde_json::from_str(text).unwrap();
        for key in ["figure", "ceiling"] {
            assert!(back.get(key).is_none(), "{key}");
        }
        for row in back["rows"].as_array().unwrap() {
            assert!(row.get("dims").is_none() && row.get("flop").is_none());
        }
        assert_eq!(
            back["rows"].as_array().unwrap().len(),
            stored["rows"].as_array().unwrap().len()
        );
    }
}
