//! Every process the service starts. Compile workers (`cuda-runner
//! compile --from`), warm measuring workers (`cuda-runner worker`), GPU
//! probes (`cuda-runner device`) and Nsight Compute are all made from the
//! one [`Children`] the service holds, through its [`Launcher`]
//! (`cuda_measured_core::launcher`): a sandbox (bubblewrap) wraps every
//! one of them by giving [`Children::new`] a launcher with its command
//! prefix, and nothing else changes. The children read and write only the
//! service's work folder ([`Children::work_dir`], job files and results)
//! and the book's kernels; a sandbox must let them see both, the runner
//! itself, NVRTC's library folder and, to measure, /dev/nvidia*.

pub use cuda_measured_core::launcher::Launcher;
use std::path::{Path, PathBuf};

/// How the service starts its children, and where they work.
#[derive(Debug)]
pub struct Children {
    launcher: Launcher,
    runner: PathBuf,
    work: tempfile::TempDir,
}

impl Children {
    /// Children of `runner` (this executable) started by `launcher`, with
    /// a fresh work folder of their own, removed when the service ends.
    pub fn new(launcher: Launcher, runner: PathBuf) -> std::io::Result<Children> {
        let work = tempfile::Builder::new()
            .prefix("cuda-runner-serve-")
            .tempdir()?;
        Ok(Children {
            launcher,
            runner,
            work,
        })
    }

    /// The launcher every child goes through.
    pub fn launcher(&self) -> &Launcher {
        &self.launcher
    }

    /// The runner executable the children run.
    pub fn runner(&self) -> &Path {
        &self.runner
    }

    /// The folder job files and results are written to.
    pub fn work_dir(&self) -> &Path {
        self.work.path()
    }
}
