//! `cuda-runner profile`: runs an example's launches once under Nsight
//! Compute and stores its counters with the example's key. Here a stand-in
//! `ncu` answers with the CSV of a real H200 run (fast_reduce at 2^30, the
//! core's fixture runner/core/src/fixtures/ncu-two-kernels.csv) and the
//! line `launch-once` prints, so the command is checked
//! without a GPU; `bench/gpu-session.sh` runs it with the real tool.

use std::process::Command;

#[test]
fn profile_stores_the_counters_with_the_examples_key() {
    let book = tempfile::tempdir().unwrap();
    let kernels = book.path().join("kernels/reductions");
    std::fs::create_dir_all(&kernels).unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    std::fs::copy(
        format!("{root}/../kernels/reductions/fast_reduce.cu"),
        kernels.join("fast_reduce.cu"),
    )
    .unwrap();
    let csv = format!("{root}/core/src/fixtures/ncu-two-kernels.csv");
    let ncu = book.path().join("ncu");
    std::fs::write(
        &ncu,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'NVIDIA (R) Nsight Compute Command Line Profiler'; echo 'Version 2025.3.1.0'; exit 0; fi\necho 'cuda-runner launch-once: GPU NVIDIA H200'\ncat '{csv}'\n"
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ncu, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_cuda-runner"))
        .current_dir(book.path())
        .args([
            "profile",
            "kernels/reductions/fast_reduce.cu",
            "--size",
            "2^30",
            "--ncu",
        ])
        .arg(&ncu)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let stored = book
        .path()
        .join("results/profile/reductions/fast_reduce/1073741824.json");
    let profile: cuda_runner::profile::Profile =
        serde_json::from_str(&std::fs::read_to_string(stored).unwrap()).unwrap();
    assert_eq!(profile.example, "reductions/fast_reduce");
    assert_eq!(profile.gpu, "NVIDIA H200");
    assert_eq!(profile.tool, "ncu 2025.3.1.0");
    assert_eq!(profile.n, cuda_runner::size::Size(1 << 30));
    let example = cuda_runner::example::Example::from_file(
        book.path(),
        &book.path().join("kernels"),
        "reductions/fast_reduce.cu",
        None,
        None,
    )
    .unwrap();
    assert_eq!(profile.key, cuda_runner::key::example_key(&example));
    assert!(
        !profile
            .values("dram__throughput.avg.pct_of_peak_sustained_elapsed")
            .is_empty()
    );
}
