//! `cuda-runner serve`: the Run service a book's page posts a reader's
//! kernel to (issue 22; the contract is notes/run-api.md). The problem,
//! sizes, launch plan, inputs and check are the book's: the reader's text
//! replaces only the region the page shows ([`splice`]) of an example or
//! exercise stage the book has ([`catalog`]); it is compiled by a compile
//! worker within a time limit ([`job`]), its messages put at the reader's
//! lines ([`diagnostics`]), and, on a GPU, measured quickly on warm
//! workers ([`measure`]) and judged by the stage's gates ([`gates`],
//! Nsight Compute run on it for profile gates: [`profile`]); the
//! answer carries the record and the panel the book build renders for it
//! ([`answer`]). [`limits`] keeps floods out; every child is started by
//! one launcher ([`children`]), where a sandbox plugs in. [`http`] is the
//! front, [`api`] its types.

pub mod answer;
pub mod api;
pub mod catalog;
pub mod children;
pub mod diagnostics;
pub mod gates;
pub mod http;
pub mod job;
pub mod limits;
pub mod measure;
pub mod profile;
pub mod splice;

use anyhow::{Context, Result, bail};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Arguments of `serve`.
#[derive(clap::Args)]
pub struct Args {
    /// The book's root folder (holding book.toml).
    #[arg(long, default_value = ".")]
    pub book: PathBuf,
    /// Address to listen on (`127.0.0.1:0`: any free port, printed at
    /// start).
    #[arg(long, default_value = "127.0.0.1:8787")]
    pub listen: SocketAddr,
    /// Compile only, on a machine without a GPU: a kernel that compiles is
    /// answered `no_gpu`.
    #[arg(long)]
    pub compile_only: bool,
    /// Architecture compiled for.
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
    /// Requests that may wait behind the running one; beyond them the
    /// answer is 503 "busy, retry".
    #[arg(long, default_value_t = 8)]
    pub queue: usize,
    /// Requests a minute per client address (0: no limit); beyond them
    /// the answer is 429.
    #[arg(long, default_value_t = 30)]
    pub rate_per_minute: u32,
    /// Largest request body read, bytes; larger ones are answered 413.
    #[arg(long, default_value_t = 256 * 1024)]
    pub max_body_bytes: usize,
    /// Compile time limit of a request, seconds (an example's own
    /// `compile_timeout_s`, when lower, wins).
    #[arg(long, default_value_t = 20)]
    pub compile_timeout_s: u64,
    /// Time limit of a request's measuring process, seconds.
    #[arg(long, default_value_t = 30)]
    pub run_timeout_s: u64,
    /// Count requests against the last address of `X-Forwarded-For` (set
    /// by a reverse proxy in front) instead of the connecting address.
    #[arg(long)]
    pub trust_proxy: bool,
    /// How children (compiles, measurements, Nsight Compute) are started:
    /// `bwrap`, each in a bubblewrap sandbox (the service refuses to start
    /// when bubblewrap is missing or cannot make a sandbox here), or
    /// `none`, unsandboxed (only for a trusted machine and readers).
    #[arg(long, value_enum, default_value = "bwrap")]
    pub sandbox: SandboxChoice,
    /// A name for this instance, shown by `/health` (which of several
    /// instances behind a load balancer answered).
    #[arg(long)]
    pub instance_name: Option<String>,
    /// The Nsight Compute executable, run for an exercise stage whose
    /// gates read profile counters (GPU only).
    #[arg(long, default_value = "ncu")]
    pub ncu: PathBuf,
}

/// `--sandbox`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SandboxChoice {
    /// bubblewrap.
    Bwrap,
    /// No sandbox.
    None,
}

/// The sandbox `--sandbox` asks for: bubblewrap, found and checked by
/// making one sandbox, or none (said on stderr).
fn sandbox(choice: SandboxChoice) -> Result<cuda_runner::sandbox::Sandbox> {
    use cuda_runner::sandbox::{Bwrap, Sandbox};
    match choice {
        SandboxChoice::Bwrap => Bwrap::find()
            .map(Sandbox::Bwrap)
            .context("refusing to start without a sandbox (`--sandbox bwrap` is the default)"),
        SandboxChoice::None => {
            eprintln!(
                "cuda-runner serve: --sandbox none: readers' code is compiled and run unsandboxed, as this user, with this machine's files and network"
            );
            Ok(Sandbox::None)
        }
    }
}

/// `program` as a path: itself when it names a folder, else its place on
/// the service's PATH (a sandboxed child's PATH holds only the system's
/// folders), else itself.
fn on_path(program: &Path) -> PathBuf {
    if program.components().count() > 1 {
        return program.to_path_buf();
    }
    std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(program))
                .find(|candidate| candidate.is_file())
        })
        .unwrap_or_else(|| program.to_path_buf())
}

/// The folders GPU children must read to run Nsight Compute: the folder of
/// `ncu` itself (a launcher script, `/usr/local/cuda-13.0/bin/ncu`), and the
/// `nsight-compute*` folders it looks for beside the toolkit's `bin` and
/// under `/opt/nvidia` (on the H200, inside the sandbox without them, it
/// stopped with "nsight-compute directory is not found under
/// /usr/local/cuda-13.0/bin/../ or /opt/nvidia").
fn nsight_compute_folders(ncu: &Path) -> Vec<PathBuf> {
    let Some(bin) = ncu
        .canonicalize()
        .ok()
        .and_then(|real| real.parent().map(Path::to_path_buf))
    else {
        return Vec::new();
    };
    let mut folders = vec![bin.clone()];
    let toolkit = bin.parent().map(Path::to_path_buf);
    for root in toolkit.into_iter().chain([PathBuf::from("/opt/nvidia")]) {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_dir()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("nsight-compute"))
            })
            .collect();
        found.sort();
        folders.extend(found);
    }
    folders
}

/// Starts the service and answers until stopped (Ctrl-C, SIGTERM).
pub fn execute(args: Args) -> Result<()> {
    if cuda_runner::compile::nvrtc_version().is_none() {
        bail!("{}", cuda_runner::compile::CompileError::NoNvrtc);
    }
    let book = catalog::Book::load(&args.book)
        .with_context(|| format!("reading the book at {}", args.book.display()))?;
    let exe = std::env::current_exe().context("locating cuda-runner itself")?;
    let ncu = on_path(&args.ncu);
    // Nsight Compute's own folder (the launcher script and the binaries
    // beside it) readable by GPU children; its place on a GPU host is
    // /usr/local/cuda/bin (a link into the toolkit) or /opt/nvidia.
    let gpu_tools: Vec<PathBuf> = if args.compile_only {
        Vec::new()
    } else {
        nsight_compute_folders(&ncu)
    };
    let children = children::Children::new(sandbox(args.sandbox)?, exe, &book.kernels, &gpu_tools)
        .context("making the service's work folder")?;
    children.check()?;
    let gpu = if args.compile_only {
        None
    } else {
        match measure::Gpu::probe(&children, &book) {
            Some(gpu) => Some(gpu),
            None => bail!(
                "no usable GPU found (`cuda-runner device`, started through the {} sandbox, sees none); start with `cuda-runner serve --compile-only` to answer compiles without one{}",
                children.sandbox().name(),
                match children.sandbox() {
                    cuda_runner::sandbox::Sandbox::Bwrap(_) =>
                        "; where `cuda-runner device` does see the GPU, the sandbox hides it: the GPU's /dev/nvidia* nodes and the driver's libraries must be readable by the sandbox's user (README, Run service: sandbox)",
                    cuda_runner::sandbox::Sandbox::None => "",
                }
            ),
        }
    };
    let service = job::Service {
        scrub: diagnostics::Scrub::new(&book.root),
        book,
        children,
        arch: args.arch.clone(),
        compile_limit: Duration::from_secs(args.compile_timeout_s),
        run_limit: Duration::from_secs(args.run_timeout_s),
        gpu,
        ncu,
    };
    if let Some(gpu) = &service.gpu {
        let started = std::time::Instant::now();
        gpu.keep_warm();
        eprintln!(
            "[cuda-runner serve] a measuring worker is up on {} ({:.1} s)",
            gpu.facts.name,
            started.elapsed().as_secs_f64()
        );
    }
    let shared = Arc::new(http::Shared {
        service: Arc::new(service),
        queue: limits::Queue::new(args.queue),
        rate: limits::RateLimit::new(args.rate_per_minute),
        max_body: args.max_body_bytes,
        trust_proxy: args.trust_proxy,
        instance: args.instance_name.clone(),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the service's runtime")?;
    runtime.block_on(listen(args.listen, shared))
}

/// Binds `addr`, says where on stdout, and serves until a stop signal.
async fn listen(addr: SocketAddr, shared: Arc<http::Shared>) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    let bound = listener.local_addr()?;
    let service = &shared.service;
    let mode = match &service.gpu {
        Some(gpu) => format!("measuring on {}", gpu.facts.name),
        None => "compile-only".to_string(),
    };
    println!(
        "cuda-runner serve: listening on http://{bound} ({mode}; {} examples, {} stages)",
        service.book.examples.len(),
        service.book.stages.len()
    );
    use std::io::Write;
    std::io::stdout().flush()?;
    let app = http::router(Arc::clone(&shared));
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(stopped())
    .await
    .context("serving")
}

/// Ctrl-C or SIGTERM.
async fn stopped() {
    let interrupt = tokio::signal::ctrl_c();
    let mut terminate =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match &mut terminate {
            Some(t) => {
                t.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = interrupt => {}
        _ = terminated => {}
    }
}

#[cfg(test)]
mod tests {
    use super::nsight_compute_folders;

    /// Nsight Compute's launcher looks for its `nsight-compute*` folder
    /// beside the toolkit's `bin`: a sandboxed GPU child must be able to
    /// read it, not only the launcher's own folder.
    #[test]
    fn nsight_compute_folders_include_the_toolkits_install() {
        let toolkit = tempfile::tempdir().unwrap();
        let bin = toolkit.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(toolkit.path().join("nsight-compute-2025.3.1")).unwrap();
        std::fs::create_dir_all(toolkit.path().join("nvvm")).unwrap();
        std::fs::write(bin.join("ncu"), "#!/bin/sh\n").unwrap();
        let folders = nsight_compute_folders(&bin.join("ncu"));
        let names: Vec<String> = folders
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert!(names.contains(&"bin".to_string()), "{names:?}");
        assert!(
            names.contains(&"nsight-compute-2025.3.1".to_string()),
            "{names:?}"
        );
        assert!(!names.contains(&"nvvm".to_string()), "{names:?}");
    }
}
