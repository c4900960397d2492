//! What a sandboxed child can see of the file system: bubblewrap's
//! options that build its root from nothing (an empty tmpfs, read-only at
//! the end) by naming what goes in, never by hiding what must not.
//!
//! In: the system's programs and libraries (`/usr`, and `/bin`, `/sbin`,
//! `/lib*` as the host has them: links into `/usr` or folders), the
//! loader's cache, the shared libraries (`*.so*` files only) of the
//! folders on `LD_LIBRARY_PATH` (NVRTC, and on a GPU host the CUDA
//! driver's), the child's own executable, the paths the caller names
//! (a request's job folder, read-only, or an output folder), a fresh
//! /proc, a minimal /dev with the GPU's `/dev/nvidia*` nodes for a GPU
//! child, `/sys` read-only for a GPU child (the driver and NVML read the
//! PCI topology there), and an empty private /tmp. Out: everything else,
//! the home folder, the repository, its `results/` and `/etc` (but the
//! loader's files) among it.

use std::path::{Path, PathBuf};

/// The system folders bound read-only (or re-created as the links they
/// are on the host).
const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];

/// Files of /etc the dynamic loader (and `/usr/bin` tools' alternatives)
/// read; nothing else of /etc (no passwd, hosts, secrets) goes in.
const ETC: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
];

/// The bubblewrap options that mount the system: `/usr` and its
/// companions, the loader's files, /proc, /dev and a private /tmp and
/// /dev/shm of `tmp_bytes` each.
pub fn system(tmp_bytes: u64, gpu: bool) -> Vec<String> {
    let mut args = Vec::new();
    for dir in SYSTEM {
        let path = Path::new(dir);
        match std::fs::read_link(path) {
            Ok(target) => push(&mut args, "--symlink", &target, path),
            Err(_) if path.is_dir() => push(&mut args, "--ro-bind", path, path),
            Err(_) => {}
        }
    }
    for file in ETC {
        if Path::new(file).exists() {
            push(&mut args, "--ro-bind", Path::new(file), Path::new(file));
        }
    }
    args.extend(["--proc", "/proc", "--dev", "/dev"].map(String::from));
    for dir in ["/tmp", "/dev/shm"] {
        args.extend([
            "--size".into(),
            tmp_bytes.to_string(),
            "--tmpfs".into(),
            dir.into(),
        ]);
    }
    if gpu {
        for node in gpu_devices(Path::new("/dev")) {
            push(&mut args, "--dev-bind", &node, &node);
        }
        push(&mut args, "--ro-bind", Path::new("/sys"), Path::new("/sys"));
    }
    args
}

/// The GPU device nodes under `dev`: `nvidia0`, `nvidiactl`, `nvidia-uvm`,
/// `nvidia-uvm-tools`, `nvidia-modeset`, the `nvidia-caps` folder, ...
/// (whichever exist), sorted.
pub fn gpu_devices(dev: &Path) -> Vec<PathBuf> {
    let mut nodes: Vec<PathBuf> = std::fs::read_dir(dev)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().starts_with("nvidia"))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    nodes.sort();
    nodes
}

/// Whether `path` lies in a folder [`system`] binds already.
fn under_system(path: &Path) -> bool {
    SYSTEM.iter().any(|dir| path.starts_with(dir))
}

/// The names CUDA's libraries start with: NVRTC (and its built-in
/// headers' library), the driver, NVML, the runtime, the JIT linker.
const CUDA_LIBRARIES: &[&str] = &[
    "libnvrtc",
    "libcuda",
    "libnvidia-",
    "libcudart",
    "libnvJitLink",
];

/// The CUDA libraries on the loader path `ld_path` (`LD_LIBRARY_PATH`'s
/// value) that [`system`] does not bind already: from each folder on it
/// that holds a CUDA library ([`CUDA_LIBRARIES`]), every `lib*.so*`
/// file's path (bound with links followed); and the folders, canonical,
/// that the sandbox's own `LD_LIBRARY_PATH` names (those and the system's
/// on the loader path). Only library files go in: a loader folder that
/// holds anything else (the repository's `.tools/`) does not expose it,
/// and one without a CUDA library (a Rust toolchain's in a home folder,
/// which cargo puts on the loader path of tests) is left out.
pub fn libraries(ld_path: &str) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for entry in ld_path.split(':').filter(|e| !e.is_empty()) {
        let Ok(dir) = Path::new(entry).canonicalize() else {
            continue;
        };
        if dirs.contains(&dir) {
            continue;
        }
        if under_system(&dir) {
            dirs.push(dir);
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| is_library(name) && dir.join(name).is_file())
            .collect();
        if !names
            .iter()
            .any(|n| CUDA_LIBRARIES.iter().any(|p| n.starts_with(p)))
        {
            continue;
        }
        files.extend(names.iter().map(|n| dir.join(n)));
        dirs.push(dir);
    }
    files.sort();
    (files, dirs)
}

/// `libnvrtc.so`, `libnvrtc.so.13`, `libcuda.so.1`: a shared library's
/// file name.
fn is_library(name: &str) -> bool {
    name.starts_with("lib") && (name.ends_with(".so") || name.contains(".so."))
}

/// The options binding `path` (a file or a folder, canonical) read-only,
/// or writable, at the same path inside; none for a path already inside
/// through [`system`] (unless writable), or one that does not exist.
pub fn bind(path: &Path, writable: bool) -> Vec<String> {
    let Ok(real) = path.canonicalize() else {
        return Vec::new();
    };
    if under_system(&real) && !writable {
        return Vec::new();
    }
    let mut args = Vec::new();
    let option = if writable { "--bind" } else { "--ro-bind" };
    push(&mut args, option, &real, &real);
    args
}

fn push(args: &mut Vec<String>, option: &str, from: &Path, to: &Path) {
    args.push(option.to_string());
    args.push(from.to_string_lossy().into_owned());
    args.push(to.to_string_lossy().into_owned());
}

#[cfg(test)]
mod tests {
    use super::*;

    // Only the shared libraries of a loader-path folder holding a CUDA
    // library are bound, each at its path; the folder's other files (a
    // note, a secret) are not, nor a folder of other libraries (a Rust
    // toolchain's). A folder under /usr binds nothing of its own (it is
    // in already) but stays on the sandbox's loader path.
    #[test]
    fn only_library_files_of_cuda_loader_folders_go_in() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "libnvrtc.so.13",
            "libnvrtc-builtins.so.13.0",
            "secret.txt",
            "lib.sonnet",
        ] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        std::os::unix::fs::symlink("libnvrtc.so.13", dir.path().join("libnvrtc.so")).unwrap();
        let toolchain = tempfile::tempdir().unwrap();
        std::fs::write(toolchain.path().join("libstd-1234.so"), "x").unwrap();
        let ld = format!(
            "{}:{}:/usr/lib:/no/such/folder:",
            dir.path().display(),
            toolchain.path().display()
        );
        let (files, dirs) = libraries(&ld);
        let real = dir.path().canonicalize().unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|f| {
                assert_eq!(f.parent().unwrap(), real);
                f.file_name().unwrap().to_string_lossy().into_owned()
            })
            .collect();
        assert_eq!(
            names,
            ["libnvrtc-builtins.so.13.0", "libnvrtc.so", "libnvrtc.so.13"]
        );
        assert_eq!(dirs, [real, PathBuf::from("/usr/lib")]);
    }

    // The GPU's nodes are found by name under a /dev, sorted; other
    // devices are not.
    #[test]
    fn gpu_nodes_are_the_nvidia_ones() {
        let dev = tempfile::tempdir().unwrap();
        for name in ["nvidia0", "nvidiactl", "nvidia-uvm", "null", "sda"] {
            std::fs::write(dev.path().join(name), "").unwrap();
        }
        std::fs::create_dir(dev.path().join("nvidia-caps")).unwrap();
        let names: Vec<String> = gpu_devices(dev.path())
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["nvidia-caps", "nvidia-uvm", "nvidia0", "nvidiactl"]);
    }

    // A compile child gets no GPU node and no /sys; a GPU child gets /sys
    // read-only. Both get a size-bounded private /tmp.
    #[test]
    fn devices_and_sys_only_for_a_gpu_child() {
        let compile = system(1024, false);
        assert!(
            !compile
                .iter()
                .any(|a| a == "/sys" || a.starts_with("/dev/nvidia"))
        );
        let tmp = compile.iter().position(|a| a == "/tmp").unwrap();
        assert_eq!(compile[tmp - 3..tmp], ["--size", "1024", "--tmpfs"]);
        let gpu = system(1024, true);
        let sys = gpu.iter().position(|a| a == "/sys").unwrap();
        assert_eq!(gpu[sys - 1], "--ro-bind");
    }
}
