//! `cuda-runner peers --ours RECORD --peers LINES`: combine the book's
//! record of its kernel with the peers' JSON lines (bench/peers/run.sh)
//! into the stored comparison, printed as JSON.

use anyhow::{Context, Result};
use cuda_runner::record::Record;
use std::path::PathBuf;

/// Arguments of `peers`.
#[derive(clap::Args)]
pub struct Args {
    /// The problem compared.
    #[arg(long, default_value = "sum_f32")]
    pub problem: String,
    /// The book kernel's record (e.g. results/reductions/fast_reduce.json);
    /// repeated, the fastest correct one at each size is compared.
    #[arg(long, required = true)]
    pub ours: Vec<PathBuf>,
    /// The peers' JSON lines.
    #[arg(long)]
    pub peers: PathBuf,
    /// The peers' names and colours, by problem.
    #[arg(long, default_value = "bench/peers/peers.toml")]
    pub config: PathBuf,
    /// The peers were timed in the same measuring session as the book's
    /// records (the GPU session says so); pages then say "in one session".
    #[arg(long, conflicts_with = "two_sessions")]
    pub same_session: bool,
    /// The peers were timed in another session than the book's records
    /// (another GPU lease, perhaps another host); pages then say so.
    #[arg(long)]
    pub two_sessions: bool,
}

/// Reads the records, the peers' lines and their list, and prints the
/// comparison.
pub fn execute(args: Args) -> Result<()> {
    let Args {
        problem,
        ours,
        peers,
        config,
        same_session,
        two_sessions,
    } = args;
    let records = ours
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            serde_json::from_str::<Record>(&text)
                .with_context(|| format!("{} is not a record", path.display()))
        })
        .collect::<Result<Vec<Record>>>()?;
    let lines = std::fs::read_to_string(&peers)?;
    let configs = cuda_runner::peers::load_config(
        &std::fs::read_to_string(&config)
            .with_context(|| format!("reading {}", config.display()))?,
    )
    .with_context(|| format!("{} is not a peers list", config.display()))?;
    let entry = configs
        .get(&problem)
        .with_context(|| format!("{} lists no peers for `{problem}`", config.display()))?;
    let mut report = cuda_runner::peers::combine(&problem, &records, &lines, entry)?;
    report.one_session = match (same_session, two_sessions) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    };
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
