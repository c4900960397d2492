//! The quick measurement of a reader's kernel, on the GPU the service
//! probed at start: the book's measuring loop's bench (`IsolatedBench`,
//! core's `session`) with the service's preset (`Config::quick_service`:
//! one process on warm workers that stay up between requests, a sixteenth
//! of the method's sampling), children started through the service's
//! launcher, no shared data folder, one size, and inputs drawn from a seed
//! taken from the OS for each request. Every timed run's answer is
//! checked (`execute`'s `check_every_run`, on for the service's jobs).
//! A bandwidth-bound example is also timed at a guard size, a declared
//! size whose bytes take many launch floors at the read ceiling
//! ([`guard_size`]): a kernel that replays a remembered answer or skips
//! its input is then faster than its bytes allow there by a wide margin
//! and is refused as impossible, where at the quick size the margin can
//! be a microsecond. A
//! worker whose job faulted, timed out or failed to launch is given back
//! by `workers`; [`Gpu::keep_warm`] starts its successor between
//! requests.

use super::catalog::{Book, Runnable};
use super::children::Children;
use cuda_measured_core::declaration::Expectation;
use cuda_measured_core::workers::keeps_worker;
use cuda_runner::dims::Dims;
use cuda_runner::example::Example;
use cuda_runner::problem::Reports;
use cuda_runner::record::{GpuFacts, Record};
use cuda_runner::session::{Bench, Config, IsolatedBench};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The largest size a quick measurement runs at when the example has a
/// size no larger (the 2^22).
pub const QUICK_MAX_N: u64 = 1 << 22;

/// The smallest and largest guard sizes (elements): at 2^24 four-byte
/// elements, 64 MiB, read at the H200's ~4.5 TB/s take ~15 µs, five
/// launch floors; at 2^26, ~60 µs, and the inputs drawn for the request
/// stay a quarter of a GiB.
pub const GUARD_N: std::ops::RangeInclusive<u64> = (1 << 24)..=(1 << 26);

/// The GPU the service measures on.
#[derive(Debug)]
pub struct Gpu {
    /// Its facts, as probed at start.
    pub facts: GpuFacts,
    /// The bench and its warm workers, one job at a time.
    bench: Mutex<IsolatedBench>,
    /// A book example that passes, measured to start a worker (its
    /// context, support kernels and ceilings) before a reader needs one.
    warm_up: Option<Example>,
    /// Whether the last job's worker was given back (a fault, a time-out,
    /// a launch error), so a fresh one should be started.
    worker_lost: AtomicBool,
}

impl Gpu {
    /// The GPU `children` see, probed through the service's launcher;
    /// `None` when there is none.
    pub fn probe(children: &Children, book: &Book) -> Option<Gpu> {
        let mut bench =
            IsolatedBench::new(children.runner().to_path_buf(), Config::quick_service())
                .launched_by(children.gpu_launcher().clone())
                .without_shared_data();
        bench.quick = true;
        let facts = bench.probe()?;
        // A plain streaming kernel if the book has one (vector addition),
        // else any example meant to pass.
        let passing = || {
            book.examples
                .values()
                .map(|r| &r.example)
                .filter(|e| e.declaration.expect == Expectation::Pass)
        };
        let warm_up = passing()
            .find(|e| e.declaration.problem == "elementwise")
            .or_else(|| passing().next())
            .cloned();
        Some(Gpu {
            facts,
            bench: Mutex::new(bench),
            warm_up,
            worker_lost: AtomicBool::new(true),
        })
    }

    /// Starts a fresh worker when there is none (at start, and after a job
    /// that gave its worker back), by measuring a book example that passes;
    /// what it measured is dropped. Runs between requests, so the next
    /// reader's kernel finds a worker with its GPU open.
    pub fn keep_warm(&self) {
        if !self.worker_lost.swap(false, Ordering::SeqCst) {
            return;
        }
        let Some(example) = &self.warm_up else {
            return;
        };
        let mut one = example.clone();
        if let Some(smallest) = one.declaration.sizes.iter().min_by_key(|d| d.n_value()) {
            one.declaration.sizes = vec![*smallest];
        }
        let key = cuda_runner::key::example_key(&one);
        let mut bench = self.bench.lock().unwrap_or_else(|p| p.into_inner());
        bench.seed = Some(fresh_seed());
        let record = bench.measure(&one, &key, Duration::from_secs(120));
        if !keeps_worker(record.status) {
            eprintln!(
                "[cuda-runner serve] warming a worker up on {} failed: {}",
                one.id, record.message
            );
        }
    }

    /// The reader's `example` measured quickly at one size within `limit`.
    pub fn measure(&self, runnable: &Runnable, example: &Example, limit: Duration) -> Record {
        let mut one = example.clone();
        one.declaration.sizes = quick_sizes(runnable, example);
        // The key of what was measured: the reader's code at these sizes.
        let key_one = cuda_runner::key::example_key(&one);
        let seed = fresh_seed();
        let mut bench = self
            .bench
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        bench.seed = Some(seed);
        let record = bench.measure(&one, &key_one, limit);
        if !keeps_worker(record.status) {
            self.worker_lost.store(true, Ordering::SeqCst);
        }
        record
    }
}

/// A seed no reader can predict, from the OS's generator.
pub fn fresh_seed() -> u64 {
    use rand::TryRngCore;
    rand::rngs::OsRng
        .try_next_u64()
        .unwrap_or_else(|_| rand::random())
}

/// The sizes a quick measurement runs at: [`quick_size`] first (the one
/// the answer reports and the gates judge), then its [`guard_size`] if it
/// has one.
pub fn quick_sizes(runnable: &Runnable, example: &Example) -> Vec<Dims> {
    let quick = quick_size(runnable, example);
    std::iter::once(quick)
        .chain(guard_size(example, quick))
        .collect()
}

/// The guard size of a cold, bandwidth-bound example (its figure GB/s
/// against the read or copy ceiling): its smallest declared size above
/// `quick` within [`GUARD_N`]; none for other problems (a latency, FLOP or
/// host-link figure, a warm problem), whose times the impossibility test
/// does not judge.
pub fn guard_size(example: &Example, quick: Dims) -> Option<Dims> {
    let problem = example.declaration.resolve_problem()?;
    if problem.warm() || !matches!(problem.reports(), Reports::Bandwidth(_)) {
        return None;
    }
    example
        .declaration
        .sizes
        .iter()
        .filter(|d| d.n_value() > quick.n_value() && GUARD_N.contains(&d.n_value()))
        .min_by_key(|d| d.n_value())
        .copied()
}

/// The one size a quick measurement reports: the stage's gate size for an
/// exercise (when the example declares it), else the first declared size
/// at or below [`QUICK_MAX_N`], else the smallest declared size.
pub fn quick_size(runnable: &Runnable, example: &Example) -> Dims {
    let sizes = &example.declaration.sizes;
    if let Some(stage) = &runnable.stage
        && let Some(at) = sizes.iter().find(|d| d.values() == stage.size.values())
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn example(path: &str) -> Example {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        Example::from_file(&root, &root.join("kernels"), path, None, None).unwrap()
    }

    fn at(example: &Example, n: u64) -> Dims {
        *example
            .declaration
            .sizes
            .iter()
            .find(|d| d.n_value() == n)
            .unwrap()
    }

    // A reduction stage at 2^22 is also timed at its declared 2^26, where
    // a replayed answer is far faster than its bytes allow.
    #[test]
    fn a_bandwidth_bound_example_gets_its_guard_size() {
        let e = example("exercise/reduction/stage6_solution.cu");
        assert_eq!(
            guard_size(&e, at(&e, 1 << 22)).map(|d| d.n_value()),
            Some(1 << 26)
        );
        let add = example("vector-add/add.cu");
        assert_eq!(
            guard_size(&add, at(&add, 1 << 20)).map(|d| d.n_value()),
            Some(1 << 24),
            "the smallest size in the guard range"
        );
    }

    // No guard where the impossibility test cannot judge (a latency
    // figure), or where nothing larger is declared.
    #[test]
    fn no_guard_without_a_bandwidth_figure_or_a_larger_size() {
        let chase = example("memory-hierarchy/chase.cu");
        let smallest = *chase
            .declaration
            .sizes
            .iter()
            .min_by_key(|d| d.n_value())
            .unwrap();
        assert_eq!(guard_size(&chase, smallest), None);
        let add = example("vector-add/add.cu");
        assert_eq!(guard_size(&add, at(&add, 1 << 26)), None);
    }
}
