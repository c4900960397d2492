//! `cuda-runner allreduce` finds NCCL where cudarc's loader does not look:
//! a `libnccl.so.2` (the wheel's only file) is linked as `libnccl.so` and
//! the runner runs itself again with it on `LD_LIBRARY_PATH`. No GPU and no
//! real NCCL needed: the C library stands in for NCCL, since only loading
//! is tested (`--gpus 0` stops the run before any NCCL call).

use std::path::PathBuf;
use std::process::Command;

/// The C library this test process has loaded: a shared library every
/// Linux machine can load.
fn loaded_libc() -> PathBuf {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| p.contains("libc.so"))
        .map(PathBuf::from)
        .expect("this process has a C library mapped")
}

fn allreduce(dir: &std::path::Path, nccl: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cuda-runner"))
        .args(["allreduce", "--impls", "nccl", "--gpus", "0", "--out"])
        .arg(dir.join("report.json"))
        .env("CUDA_MEASURED_NCCL", nccl)
        .env("TMPDIR", dir)
        .env("RUST_BACKTRACE", "0")
        .env_remove("CUDA_MEASURED_NCCL_SHIM")
        .output()
        .unwrap()
}

// A file named libnccl.so.2 is linked as libnccl.so, the runner runs
// again with it on the loader path, and the second run gets past the
// library check (to the driver check, or to refusing --gpus 0).
#[test]
fn a_wheel_style_libnccl_so_2_is_found_through_a_link() {
    // SAFETY: only tries to open the library by cudarc's names.
    if unsafe { cudarc::nccl::sys::is_culib_present() } {
        eprintln!("cudarc loads NCCL on this machine already: there is nothing to link");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let wheel = dir.path().join("lib");
    std::fs::create_dir(&wheel).unwrap();
    let file = wheel.join("libnccl.so.2");
    std::os::unix::fs::symlink(loaded_libc(), &file).unwrap();
    let out = allreduce(dir.path(), &file);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cudarc does not look for libnccl.so.2"),
        "{stderr}"
    );
    assert!(
        stderr.contains("no CUDA driver") || stderr.contains("--gpus 0"),
        "{stderr}"
    );
    assert!(!stderr.contains("NCCL was not found"), "{stderr}");
    let shims: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("cuda-measured-nccl-")
        })
        .collect();
    assert_eq!(shims.len(), 1);
    assert!(shims[0].path().join("libnccl.so").exists());
}

// A named file that does not exist is not linked; with no NCCL anywhere
// else the run fails naming what was searched and how to fix it.
#[test]
fn a_missing_library_is_named_with_the_fix() {
    // SAFETY: only tries to open the library by cudarc's names.
    if unsafe { cudarc::nccl::sys::is_culib_present() } {
        eprintln!("cudarc loads NCCL on this machine already: nothing is missing");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere/libnccl.so.2");
    let out = allreduce(dir.path(), &missing);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    // Either nothing was found (the message names the places searched and
    // the fix), or a system NCCL was (and the run went on past it).
    if stderr.contains("NCCL was not found") {
        assert!(stderr.contains(&missing.display().to_string()), "{stderr}");
        assert!(stderr.contains("CUDA_MEASURED_NCCL="), "{stderr}");
    } else {
        assert!(stderr.contains("cudarc does not look for"), "{stderr}");
    }
}
