//! Every process the service starts. Compile workers (`cuda-runner
//! compile --from`) are made from [`Children::compile_launcher`]; warm
//! measuring workers (`cuda-runner worker`), GPU probes (`cuda-runner
//! device`) and Nsight Compute from [`Children::gpu_launcher`]. Both are
//! the core's [`Launcher`] (`cuda_measured_core::launcher`), made by the
//! service's [`Sandbox`] (`cuda_runner::sandbox`) for a policy each: a
//! compile child gets no GPU and reads the work folder; a GPU child gets
//! `/dev/nvidia*` and writes its results there. The children read and
//! write only the service's work folder (job files and results, made by
//! the launchers' `temp_file` there), the book's kernels,
//! the runner itself and the CUDA libraries of the loader path.

pub use cuda_measured_core::launcher::Launcher;
use cuda_runner::sandbox::{Policy, Sandbox};
use std::path::{Path, PathBuf};

/// How the service starts its children, and where they work.
#[derive(Debug)]
pub struct Children {
    sandbox: Sandbox,
    compile: Launcher,
    gpu: Launcher,
    runner: PathBuf,
    /// The work folder, held so that it lives (and is removed) with the
    /// service; the launchers name it as their scratch folder.
    _work: tempfile::TempDir,
}

impl Children {
    /// Children of `runner` (this executable) started in `sandbox`, able
    /// to read `kernels` (the book's) and, for GPU children, `gpu_tools`
    /// (Nsight Compute's folder), with a fresh work folder of their own,
    /// removed when the service ends.
    pub fn new(
        sandbox: Sandbox,
        runner: PathBuf,
        kernels: &Path,
        gpu_tools: &[PathBuf],
    ) -> std::io::Result<Children> {
        let work = tempfile::Builder::new()
            .prefix("cuda-runner-serve-")
            .tempdir()?;
        // A root service's sandbox runs as nobody: the folder becomes its.
        sandbox.share(work.path())?;
        let with_paths = |policy: Policy| policy.readable(&runner).readable(kernels);
        let in_work = |mut launcher: Launcher| {
            launcher.scratch = Some(work.path().to_path_buf());
            launcher
        };
        let compile =
            in_work(sandbox.launcher(&with_paths(Policy::compile()).readable(work.path())));
        let mut gpu_policy = with_paths(Policy::gpu()).writable(work.path());
        gpu_policy.readable.extend(gpu_tools.iter().cloned());
        let gpu = in_work(sandbox.launcher(&gpu_policy));
        Ok(Children {
            sandbox,
            compile,
            gpu,
            runner,
            _work: work,
        })
    }

    /// The launcher compile workers go through.
    pub fn compile_launcher(&self) -> &Launcher {
        &self.compile
    }

    /// The launcher measuring workers, GPU probes and Nsight Compute go
    /// through.
    pub fn gpu_launcher(&self) -> &Launcher {
        &self.gpu
    }

    /// The sandbox the launchers are made by.
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// The folder job files and results are written to (given to the
    /// sandbox's user; what the service makes in it by hand it gives with
    /// [`Sandbox::share`]).
    pub fn work_dir(&self) -> &Path {
        self._work.path()
    }

    /// The runner executable the children run.
    pub fn runner(&self) -> &Path {
        &self.runner
    }

    /// Starts `cuda-runner --version` through the compile launcher: an
    /// error naming what the sandbox said when it cannot run the runner
    /// (a runner or book the sandbox's user cannot read, say).
    pub fn check(&self) -> anyhow::Result<()> {
        let output = self
            .compile
            .command(&self.runner)
            .arg("--version")
            .stdin(std::process::Stdio::null())
            .output()?;
        if output.status.success() {
            return Ok(());
        }
        anyhow::bail!(
            "the {} sandbox cannot start {} ({}): {}. When the service runs as root, the sandbox runs as uid {} on the host: the runner, the book's kernels/ and the CUDA libraries must be readable by it (and their folders searchable)",
            self.sandbox.name(),
            self.runner.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim(),
            cuda_runner::sandbox::SANDBOX_UID
        )
    }
}
