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
use std::path::PathBuf;
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
    /// The Nsight Compute executable, run for an exercise stage whose
    /// gates read profile counters (GPU only).
    #[arg(long, default_value = "ncu")]
    pub ncu: PathBuf,
}

/// How the service starts its children: directly. A sandbox (issue 22,
/// item 3) gives a launcher with its command prefix here.
fn launcher(_args: &Args) -> children::Launcher {
    children::Launcher::direct()
}

/// Starts the service and answers until stopped (Ctrl-C, SIGTERM).
pub fn execute(args: Args) -> Result<()> {
    if cuda_runner::compile::nvrtc_version().is_none() {
        bail!("{}", cuda_runner::compile::CompileError::NoNvrtc);
    }
    let book = catalog::Book::load(&args.book)
        .with_context(|| format!("reading the book at {}", args.book.display()))?;
    let exe = std::env::current_exe().context("locating cuda-runner itself")?;
    let children = children::Children::new(launcher(&args), exe)
        .context("making the service's work folder")?;
    let gpu = if args.compile_only {
        None
    } else {
        match measure::Gpu::probe(&children, &book) {
            Some(gpu) => Some(gpu),
            None => bail!(
                "no usable GPU found (`cuda-runner device` sees none); start with `cuda-runner serve --compile-only` to answer compiles without one"
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
        ncu: args.ncu.clone(),
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
