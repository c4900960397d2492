//! Making NCCL loadable by cudarc before anything calls it (cudarc panics
//! on the first NCCL call when it cannot load the library). Why the
//! runner may have to run itself again is in the core's
//! `allreduce::nccl_library`.

use anyhow::{Context, Result, bail};
use cuda_measured_core::allreduce::nccl_library as lib;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

/// Returns when cudarc can load NCCL. When it cannot and a `libnccl.so.2`
/// is found, links it as `libnccl.so` into a folder under the temporary
/// directory and runs this process again with that folder first on
/// `LD_LIBRARY_PATH` (never returning); otherwise fails naming the fix.
pub fn ensure_loadable() -> Result<()> {
    // SAFETY: only tries to open the library by cudarc's names.
    if unsafe { cudarc::nccl::sys::is_culib_present() } {
        return Ok(());
    }
    let names = cudarc::get_lib_name_candidates("nccl");
    if let Some(shim) = std::env::var_os(lib::SHIM_GUARD_VAR) {
        bail!(
            "NCCL: {} links to a library that does not load (is it for another CUDA or architecture?); {}",
            Path::new(&shim).join(lib::SHIM_FILE).display(),
            lib::not_found(&names, &[])
        );
    }
    let python = python_package();
    let explicit = std::env::var(lib::PATH_VAR).ok();
    let path = std::env::var("LD_LIBRARY_PATH").ok();
    let candidates = lib::candidate_files(explicit.as_deref(), path.as_deref(), python.as_deref());
    let Some(found) = candidates.iter().find(|f| f.is_file()) else {
        bail!("{}", lib::not_found(&names, &candidates));
    };
    let shim = link(found)?;
    eprintln!(
        "[allreduce] NCCL: cudarc does not look for {}; using {} through {} (running again with it on LD_LIBRARY_PATH)",
        lib::WHEEL_FILE,
        found.display(),
        shim.join(lib::SHIM_FILE).display()
    );
    let exe = std::env::current_exe().context("locating cuda-runner itself")?;
    let error = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(
            "LD_LIBRARY_PATH",
            lib::with_shim_first(&shim, path.as_deref()),
        )
        .env(lib::SHIM_GUARD_VAR, &shim)
        .exec();
    Err(error).context("running cuda-runner again with NCCL on LD_LIBRARY_PATH")
}

/// The folder of `python3`'s `nvidia.nccl` package, if there is one.
fn python_package() -> Option<String> {
    let out = std::process::Command::new("python3")
        .args(["-c", lib::PYTHON_QUERY])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| lib::python_package(&String::from_utf8_lossy(&out.stdout)))
        .flatten()
}

/// A folder of this user's holding `libnccl.so` linked to `target`.
fn link(target: &Path) -> Result<PathBuf> {
    use std::hash::{Hash, Hasher};
    let target = target.canonicalize()?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    target.hash(&mut hasher);
    let dir = std::env::temp_dir().join(format!("cuda-measured-nccl-{:016x}", hasher.finish()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let shim = dir.join(lib::SHIM_FILE);
    if std::fs::read_link(&shim).ok().as_deref() != Some(target.as_path()) {
        let _ = std::fs::remove_file(&shim);
        std::os::unix::fs::symlink(&target, &shim)
            .with_context(|| format!("linking {} to {}", shim.display(), target.display()))?;
    }
    Ok(dir)
}

/// The NCCL file this process has loaded, from /proc/self/maps.
pub fn loaded_file() -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .find(|path| {
            Path::new(path)
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("libnccl.so"))
        })
        .map(str::to_string)
}
