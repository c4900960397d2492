//! `cuda-runner run PATHS`: measure examples, each in its own process with
//! a time limit, and print a table (or JSON).

use super::resolve::load_examples;
use anyhow::{Context, Result};
use cuda_runner::record::Record;
use cuda_runner::session::{self, Event, IsolatedBench, Job};
use cuda_runner::{isolate, key, report};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `run`.
#[derive(clap::Args)]
pub struct Args {
    /// `.cu` files with an example header, or folders holding them.
    pub paths: Vec<PathBuf>,
    /// Print the records as a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Time limit of each process of an example, seconds (a header's
    /// `timeout_s` wins; its `budget_s` may raise it, see `isolate::limit_for`).
    #[arg(long, default_value_t = isolate::DEFAULT_LIMIT.as_secs())]
    pub timeout_s: u64,
}

/// Measures every example named, reporting progress on stderr and the
/// records on stdout.
pub fn execute(args: Args) -> Result<()> {
    let limit = Duration::from_secs(args.timeout_s);
    let examples = load_examples(&args.paths)?;
    let keys: Vec<String> = examples.iter().map(key::example_key).collect();
    let config = session::Config::from_env();
    let jobs: Vec<Job<'_>> = examples
        .iter()
        .zip(&keys)
        .map(|(example, key)| Job {
            example,
            key,
            limit: isolate::limit_for(example, limit, config.processes),
        })
        .collect();
    let exe = std::env::current_exe().context("locating cuda-runner itself")?;
    let mut bench = IsolatedBench::new(exe, config);
    let mut on_event = |event: Event<'_>| match event {
        Event::Started { .. } => {}
        Event::Measuring {
            index,
            count,
            example,
            elapsed,
            lane,
        } => eprintln!(
            "[cuda-runner] {}/{count} {}{} (elapsed {})",
            index + 1,
            example.id,
            lane.map(|l| format!(" on GPU lane {l}"))
                .unwrap_or_default(),
            report::elapsed(elapsed)
        ),
        Event::Measured {
            example, record, ..
        } => {
            eprintln!(
                "[cuda-runner]   -> {} {}",
                example.id,
                report::outcome_line(record)
            );
        }
        Event::LaneLost {
            lane,
            example,
            record,
            elapsed,
        } => eprintln!(
            "[cuda-runner] {}",
            report::lane_lost_line(lane, &example.id, record, elapsed)
        ),
    };
    let done = session::run(&jobs, &mut bench, None, &mut on_event).map_err(|no_gpu| {
        anyhow::anyhow!("{no_gpu}: `cuda-runner run` measures on a GPU; `cuda-runner check` compiles without one")
    })?;
    let records: Vec<Record> = done.into_iter().map(|d| d.record).collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&records)?);
    } else {
        print!("{}", report::table(&records));
    }
    Ok(())
}
