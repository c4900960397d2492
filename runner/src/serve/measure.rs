//! The quick measurement of a reader's kernel, on the GPU the service
//! probed at start: the book's measuring loop's bench (`IsolatedBench`,
//! core's `session`) with the service's preset (`Config::quick_service`:
//! one process on warm workers that stay up between requests, a sixteenth
//! of the method's sampling), children started through the service's
//! launcher, no shared data folder, one size, and inputs drawn from a seed
//! taken from the OS for each request. Each timed size's answer is checked
//! as the book's are: the first run's before timing, the last timed run's
//! after it (`execute::SizeRunner::run`). A worker whose job faulted,
//! timed out or failed to launch is given back by `workers`, so the next
//! request gets a fresh one.

use super::catalog::Runnable;
use super::children::Children;
use cuda_runner::dims::Dims;
use cuda_runner::example::Example;
use cuda_runner::record::{GpuFacts, Record};
use cuda_runner::session::{Bench, Config, IsolatedBench};
use std::sync::Mutex;
use std::time::Duration;

/// The largest size a quick measurement runs at when the example has a
/// size no larger (the 2^22).
pub const QUICK_MAX_N: u64 = 1 << 22;

/// The GPU the service measures on.
#[derive(Debug)]
pub struct Gpu {
    /// Its facts, as probed at start.
    pub facts: GpuFacts,
    /// The bench and its warm workers, one job at a time.
    bench: Mutex<IsolatedBench>,
}

impl Gpu {
    /// The GPU `children` see, probed through the service's launcher;
    /// `None` when there is none.
    pub fn probe(children: &Children) -> Option<Gpu> {
        let mut bench =
            IsolatedBench::new(children.runner().to_path_buf(), Config::quick_service())
                .launched_by(children.launcher().clone())
                .without_shared_data();
        bench.quick = true;
        let facts = bench.probe()?;
        Some(Gpu {
            facts,
            bench: Mutex::new(bench),
        })
    }

    /// The reader's `example` measured quickly at one size within `limit`.
    pub fn measure(&self, runnable: &Runnable, example: &Example, limit: Duration) -> Record {
        let mut one = example.clone();
        one.declaration.sizes = vec![quick_size(runnable, example)];
        // The key of what was measured: the reader's code at this size.
        let key_one = cuda_runner::key::example_key(&one);
        let seed = fresh_seed();
        let mut bench = self
            .bench
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        bench.seed = Some(seed);
        bench.measure(&one, &key_one, limit)
    }
}

/// A seed no reader can predict, from the OS's generator.
pub fn fresh_seed() -> u64 {
    use rand::TryRngCore;
    rand::rngs::OsRng
        .try_next_u64()
        .unwrap_or_else(|_| rand::random())
}

/// The one size a quick measurement runs at: the stage's gate size for an
/// exercise (when the example declares it), else the first declared size
/// at or below [`QUICK_MAX_N`], else the smallest declared size.
pub fn quick_size(runnable: &Runnable, example: &Example) -> Dims {
    let sizes = &example.declaration.sizes;
    if let Some(stage) = &runnable.stage
        && let Some(at) = sizes.iter().find(|d| d.n_value() == stage.size.0)
    {
        return *at;
    }
    sizes
        .iter()
        .find(|d| d.n_value() <= QUICK_MAX_N)
        .or_else(|| sizes.iter().min_by_key(|d| d.n_value()))
        .copied()
        .expect("a resolved example declares at least one size")
}
