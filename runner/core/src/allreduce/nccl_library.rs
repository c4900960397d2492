//! Where `cuda-runner allreduce` finds NCCL, without loading it.
//!
//! cudarc's dynamic loader (its `nccl` feature) opens the library by the
//! bare names of `cudarc::get_lib_name_candidates("nccl")`: `libnccl.so`,
//! `libnccl64.so` and friends, `libnccl.so.13`, `.12`, `.11`, `.10`, `.9`
//! and `.1`, with no path and no variable of its own. None of them is
//! `libnccl.so.2`, the SONAME of every NCCL 2 build and the only file the
//! nvidia-nccl wheel installs under PyTorch
//! (`site-packages/nvidia/nccl/lib/libnccl.so.2`); and the dynamic linker
//! reads `LD_LIBRARY_PATH` once, when a process starts. So pointing
//! `LD_LIBRARY_PATH` at the wheel's folder is not enough. When cudarc
//! cannot load NCCL, the runner looks for `libnccl.so.2` in
//! [`candidate_files`]' places, links it as `libnccl.so` ([`SHIM_FILE`])
//! into a folder of its own, and runs itself again with that folder first
//! on `LD_LIBRARY_PATH` ([`SHIM_GUARD_VAR`] marks the second run, so it
//! never loops).

use std::path::{Path, PathBuf};

/// The library's file name in the wheel and in system packages.
pub const WHEEL_FILE: &str = "libnccl.so.2";
/// A name cudarc's loader tries, linked to the file found.
pub const SHIM_FILE: &str = "libnccl.so";
/// An explicit path to the library file, tried first.
pub const PATH_VAR: &str = "CUDA_MEASURED_NCCL";
/// Set in the second run to the folder of the link.
pub const SHIM_GUARD_VAR: &str = "CUDA_MEASURED_NCCL_SHIM";
/// Prints the folder of the `nvidia.nccl` package (a namespace package in
/// newer wheels, so `__path__`, not `__file__`).
pub const PYTHON_QUERY: &str = "import nvidia.nccl as m; print(list(m.__path__)[0])";
/// System folders where distribution packages put libnccl.so.2.
pub const SYSTEM_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/local/cuda/lib64",
];

/// The files to try, in order: `explicit` (the [`PATH_VAR`] variable),
/// `libnccl.so.2` in each folder of `ld_library_path`, in the Python
/// package folder's `lib/` (`python_package`, what [`PYTHON_QUERY`]
/// printed), then in [`SYSTEM_DIRS`].
pub fn candidate_files(
    explicit: Option<&str>,
    ld_library_path: Option<&str>,
    python_package: Option<&str>,
) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = explicit
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .into_iter()
        .collect();
    let dirs = ld_library_path
        .unwrap_or("")
        .split(':')
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .chain(python_package.map(|p| Path::new(p.trim()).join("lib")))
        .chain(SYSTEM_DIRS.iter().map(PathBuf::from));
    for dir in dirs {
        let file = dir.join(WHEEL_FILE);
        if !files.contains(&file) {
            files.push(file);
        }
    }
    files
}

/// `LD_LIBRARY_PATH` with `shim` first.
pub fn with_shim_first(shim: &Path, old: Option<&str>) -> String {
    match old.filter(|o| !o.is_empty()) {
        Some(old) => format!("{}:{old}", shim.display()),
        None => shim.display().to_string(),
    }
}

/// The folder [`PYTHON_QUERY`] printed, if it printed one.
pub fn python_package(stdout: &str) -> Option<String> {
    stdout
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// The message when no NCCL is found: what cudarc tried, where the runner
/// looked, and how to fix it.
pub fn not_found(cudarc_names: &[String], searched: &[PathBuf]) -> String {
    let searched: Vec<String> = searched.iter().map(|p| p.display().to_string()).collect();
    let mut names: Vec<&str> = Vec::new();
    for name in cudarc_names {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    format!(
        "NCCL was not found. cudarc loads it by the names {}; the runner also looked for {WHEEL_FILE} at {}. \
         Install it (`pip install nvidia-nccl-cu13`, or PyTorch, which brings it), or name the file: \
         {PATH_VAR}=/path/to/{WHEEL_FILE} (the wheel's is in the folder printed by \
         `python3 -c 'import nvidia.nccl as m, os; print(os.path.join(list(m.__path__)[0], \"lib\"))'`)",
        names.join(", "),
        searched.join(", ")
    )
}

/// NCCL's version code as `major.minor.patch` (`22703` is `2.27.3`; codes
/// before 2.9 were `major * 1000 + minor * 100 + patch`).
pub fn version_string(code: i32) -> String {
    if code >= 10_000 {
        format!("{}.{}.{}", code / 10_000, (code % 10_000) / 100, code % 100)
    } else {
        format!("{}.{}.{}", code / 1000, (code % 1000) / 100, code % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The explicit file comes first, then LD_LIBRARY_PATH, the wheel's lib/
    // and the system folders, each once.
    #[test]
    fn candidates_are_tried_in_the_documented_order() {
        let files = candidate_files(
            Some("/opt/nccl/libnccl.so.2.27.3"),
            Some("/a::/b:/usr/lib64"),
            Some("/venv/site-packages/nvidia/nccl\n"),
        );
        let shown: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(
            shown[..4],
            [
                "/opt/nccl/libnccl.so.2.27.3",
                "/a/libnccl.so.2",
                "/b/libnccl.so.2",
                "/usr/lib64/libnccl.so.2",
            ]
        );
        assert_eq!(shown[4], "/venv/site-packages/nvidia/nccl/lib/libnccl.so.2");
        assert_eq!(
            shown
                .iter()
                .filter(|s| *s == "/usr/lib64/libnccl.so.2")
                .count(),
            1
        );
    }

    // With nothing set, only the system folders are searched.
    #[test]
    fn without_hints_only_system_folders_are_searched() {
        assert_eq!(candidate_files(None, None, None).len(), SYSTEM_DIRS.len());
        assert_eq!(
            candidate_files(Some(""), Some(""), None).len(),
            SYSTEM_DIRS.len()
        );
    }

    // The shim folder goes in front of whatever was there.
    #[test]
    fn shim_goes_first_on_the_library_path() {
        let shim = Path::new("/tmp/shim");
        assert_eq!(with_shim_first(shim, Some("/x:/y")), "/tmp/shim:/x:/y");
        assert_eq!(with_shim_first(shim, None), "/tmp/shim");
        assert_eq!(with_shim_first(shim, Some("")), "/tmp/shim");
    }

    // Python's answer is its first non-empty line.
    #[test]
    fn python_package_is_the_first_line_printed() {
        assert_eq!(
            python_package("\n /x/nvidia/nccl \n"),
            Some("/x/nvidia/nccl".into())
        );
        assert_eq!(python_package(""), None);
    }

    // The message names cudarc's names once each, the places searched and both fixes.
    #[test]
    fn not_found_names_the_fix() {
        let names = [
            "libnccl.so".to_string(),
            "libnccl.so.13".into(),
            "libnccl.so".into(),
        ];
        let m = not_found(&names, &[PathBuf::from("/a/libnccl.so.2")]);
        assert!(m.contains("names libnccl.so, libnccl.so.13;"), "{m}");
        assert!(m.contains("/a/libnccl.so.2"));
        assert!(m.contains(PATH_VAR));
        assert!(m.contains("pip install"));
    }

    // Version codes read in both of NCCL's encodings.
    #[test]
    fn version_codes_read_in_both_encodings() {
        assert_eq!(version_string(22703), "2.27.3");
        assert_eq!(version_string(21903), "2.19.3");
        assert_eq!(version_string(2804), "2.8.4");
    }
}
