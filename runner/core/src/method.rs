//! The measuring method's statistics, without a GPU: the sampling policy,
//! the stop rule, medians and spreads, the samples of one size and the
//! ceilings measured beside every example. The runner's timer
//! (`cuda-runner`'s `measure`) takes the samples; everything that decides
//! when to stop and what a sample set means lives here, where the book's
//! plugin and the reports can use it without linking CUDA.

use serde::{Deserialize, Serialize};

/// The sampling policy.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// Samples always taken.
    pub min_samples: usize,
    /// Relative standard deviation that ends sampling.
    pub target_noise: f64,
    /// GPU time (sum of samples) required before either stopping rule
    /// (noise target, settled noise) may end sampling, seconds; as in
    /// nvbench, a short kernel is sampled until this much GPU time or
    /// `max_samples`, so that its median is stable between runs.
    pub min_gpu_s: f64,
    /// Wall time after which sampling stops as soon as `min_samples` are
    /// kept, the figure labelled `noisy` if the noise target was not met,
    /// seconds.
    pub timeout_s: f64,
    /// Wall time after which sampling stops even with fewer than
    /// `min_samples` kept (the figure is then labelled `noisy`), seconds,
    /// where the policy has no budget (the collectives'); not split between
    /// processes. Under a budget, the budget ends such sampling instead
    /// ([`budget_ends`]), and this cap only a size whose every sample was
    /// dropped.
    pub max_wall_s: f64,
    /// Samples whose SM clock is below this fraction of the default clock
    /// are dropped and counted.
    pub throttle_fraction: f64,
    /// Upper bound on samples.
    pub max_samples: usize,
    /// Child processes that each measure the example with a share of the
    /// sampling budget; their samples are pooled per size. A fresh process
    /// brings fresh allocations, a fresh context and fresh code placement,
    /// and some kernels' times depend on those by a few percent, so one
    /// process is one draw of that state, not the kernel's time.
    pub processes: usize,
    /// The example's measuring budget, seconds, over all its processes:
    /// what its warm-ups, samples and hot figures may spend in all
    /// (infinite: none, as for the ceilings and the collectives). Not split
    /// by [`Policy::share`]: each process's [`Ledger`] takes its
    /// `1/processes` of it and spreads that over the `timed_sizes`. The
    /// budget ends a size's sampling only short of `min_samples` (past it,
    /// the time-out does), and never before [`BUDGET_FLOOR`] samples.
    pub budget_s: f64,
    /// Timed sizes of the example (every value of a sweep's) that share
    /// each process's part of the budget.
    pub timed_sizes: usize,
}

impl Policy {
    /// The policy of one of `processes` processes: the GPU time, sample
    /// cap and time-out are split between them; the minimum sample count
    /// and the noise targets are not.
    pub fn share(&self, processes: usize) -> Policy {
        let p = processes.max(1);
        Policy {
            min_gpu_s: self.min_gpu_s / p as f64,
            timeout_s: self.timeout_s / p as f64,
            max_samples: (self.max_samples / p).max(self.min_samples),
            processes: p,
            ..*self
        }
    }

    /// This policy with the example's measuring budget: `budget_s`
    /// seconds (its header's `budget_s`, else [`DEFAULT_BUDGET_S`]) over
    /// `timed_sizes` timed sizes.
    pub fn with_budget(&self, budget_s: f64, timed_sizes: usize) -> Policy {
        Policy {
            budget_s,
            timed_sizes: timed_sizes.max(1),
            ..*self
        }
    }

    /// This policy without a measuring budget (the ceilings measured beside
    /// an example are not the example's measuring).
    pub fn unbudgeted(&self) -> Policy {
        Policy {
            budget_s: f64::INFINITY,
            ..*self
        }
    }

    /// One process's part of the budget, seconds: `budget_s / processes`.
    pub fn process_budget_s(&self) -> f64 {
        self.budget_s / self.processes.max(1) as f64
    }
}

/// The sampling policy of one of `processes` processes measuring
/// `example`: [`POLICY`] shared between the processes, with the example's
/// measuring budget (its header's `budget_s`, else [`DEFAULT_BUDGET_S`])
/// over its timed sizes (every declared size of every value of its sweep).
pub fn policy_of(example: &crate::example::Example, processes: usize) -> Policy {
    let decl = &example.declaration;
    let timed = decl.sizes.len() * decl.sweep_values().len();
    POLICY
        .with_budget(decl.budget_s.map_or(DEFAULT_BUDGET_S, |s| s as f64), timed)
        .share(processes)
}

/// An example's measuring budget when its header declares none, seconds:
/// every process measures with its share of it, so that a slow example's
/// warm-ups, samples and hot figures end within it. As nvbench's
/// time-out, it may end sampling short of the minimum sample count; a
/// size that reaches the minimum is left to the stop rule's time-out as
/// before, so an example measures for at most its budget plus
/// `timeout_s` per timed size.
pub const DEFAULT_BUDGET_S: f64 = 30.0;

/// Samples a process keeps of each size however little budget is left, so
/// that the pooled figure of [`POLICY`]'s processes has at least that many
/// samples.
pub const BUDGET_FLOOR: usize = 1;

/// What one process has spent of its part of the example's budget: each
/// timed size may spend what is left over the sizes left, so that a fast
/// size leaves its unspent part to the sizes after it. A ledger covers one
/// example: it learns the example's timed sizes at its first size, and
/// once that many are done (a hot figure after the last still counts) the
/// next size starts a new one, so that a timer that measures example after
/// example gives each its whole budget.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    spent_s: f64,
    sizes_done: usize,
    /// The timed sizes of the example this ledger covers (0 before its
    /// first size).
    sizes: usize,
}

impl Ledger {
    /// Seconds the next timed size may spend, its warm-up and hot figure
    /// included (infinite without a budget).
    pub fn allowance(&self, policy: &Policy) -> f64 {
        if !policy.budget_s.is_finite() {
            return f64::INFINITY;
        }
        let (spent, done) = if self.complete() {
            (0.0, 0)
        } else {
            (self.spent_s, self.sizes_done)
        };
        let left = (policy.process_budget_s() - spent).max(0.0);
        left / policy.timed_sizes.saturating_sub(done).max(1) as f64
    }

    /// Starts a timed size of the example `policy` is of: a new ledger
    /// when the last example's sizes are all done.
    pub fn begin_size(&mut self, policy: &Policy) {
        if self.complete() {
            *self = Ledger::default();
        }
        if self.sizes == 0 {
            self.sizes = policy.timed_sizes.max(1);
        }
    }

    /// Counts `seconds` of measuring against the budget.
    pub fn spend(&mut self, seconds: f64) {
        self.spent_s += seconds;
    }

    /// Counts one timed size as sampled.
    pub fn size_done(&mut self) {
        self.sizes_done += 1;
    }

    /// Seconds spent so far.
    pub fn spent_s(&self) -> f64 {
        self.spent_s
    }

    /// Whether every timed size of the example it covers is done.
    fn complete(&self) -> bool {
        self.sizes > 0 && self.sizes_done >= self.sizes
    }
}

/// Whether a warm-up that took `warm_up_s` counts as the first sample of a
/// size with `allowance_s` of the budget: when one more run like it would
/// not fit, so that a launch slower than half the allowance is run once
/// for its floor sample, not twice. The correctness run before it at the
/// same size has already loaded the module and touched the data, which
/// is what a warm-up keeps out; a run that long has ramped the clock.
pub fn warm_up_is_a_sample(allowance_s: f64, warm_up_s: f64) -> bool {
    2.0 * warm_up_s > allowance_s
}

/// How the budget ended one size's sampling, as the record keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BudgetEnd {
    /// The example's budget, seconds, over all its processes.
    #[serde(with = "crate::nonfinite")]
    pub budget_s: f64,
    /// Wall seconds one sample took (the mean over the samples the budget
    /// allowed; for a pooled record the slowest process's).
    #[serde(with = "crate::nonfinite")]
    pub sample_s: f64,
}

/// Whether the budget ends sampling after `kept` samples (of `taken`,
/// throttled ones included) that took `elapsed_s` since the warm-up, with
/// `allowance_s` left for them: only short of `min_samples`, never before
/// [`BUDGET_FLOOR`], and when one more sample of the mean cost so far would
/// not fit.
pub fn budget_ends(
    policy: &Policy,
    allowance_s: f64,
    kept: usize,
    taken: usize,
    elapsed_s: f64,
) -> bool {
    if kept < BUDGET_FLOOR || kept >= policy.min_samples || taken == 0 {
        return false;
    }
    elapsed_s + elapsed_s / taken as f64 > allowance_s
}

/// The method of [`crate::METHOD_VERSION`].
pub const POLICY: Policy = Policy {
    min_samples: 10,
    target_noise: 0.005,
    min_gpu_s: 0.1,
    timeout_s: 3.0,
    max_wall_s: 12.0,
    throttle_fraction: 0.75,
    max_samples: 2000,
    processes: 8,
    budget_s: f64::INFINITY,
    timed_sizes: 1,
};

/// Timed samples of one piece of work.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    /// Kept sample times, microseconds, in the order taken.
    pub times_us: Vec<f64>,
    /// Samples dropped because the SM clock was throttled.
    pub throttled: u32,
    /// Samples where the blocking kernel timed out (host latency may be in).
    pub blocker_timeouts: u32,
    /// Whether sampling hit the time-out before the noise target.
    pub noisy: bool,
    /// Median SM clock over kept samples, MHz (0 when unknown).
    pub sm_clock_mhz: f64,
    /// Set when the measuring budget, not the stop rule, ended sampling.
    pub budget: Option<BudgetEnd>,
}

impl Samples {
    /// Median time, microseconds.
    pub fn median(&self) -> f64 {
        median(&self.times_us)
    }
}

/// Device figures measured alongside every example.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ceilings {
    /// Read-only streaming bandwidth, GB/s (bytes read / time).
    #[serde(with = "crate::nonfinite")]
    pub read_gbs: f64,
    /// Copy bandwidth, GB/s, counting bytes read plus bytes written.
    #[serde(with = "crate::nonfinite")]
    pub copy_gbs: f64,
    /// Cold time of an empty kernel, microseconds.
    #[serde(with = "crate::nonfinite")]
    pub launch_floor_us: f64,
    /// Bytes streamed by the read measurement.
    pub buffer_bytes: u64,
    /// Further ceilings measured because the example's problem is held to
    /// them ([`crate::problem::reports::NamedCeiling`]: `fp32_fma`,
    /// `h2d_pinned`, `d2h_pinned`), by name; absent in records of problems
    /// held to the read or copy ceiling, and in every record made before
    /// it existed.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub named: std::collections::BTreeMap<String, MeasuredCeiling>,
}

/// One named ceiling as measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasuredCeiling {
    /// What was measured, in `unit`.
    #[serde(with = "crate::nonfinite")]
    pub value: f64,
    /// Its unit (`TFLOP/s`, `GB/s`).
    pub unit: String,
    /// The datasheet figure it compares with, in the same unit, where there
    /// is one (for `fp32_fma`: the device's clock x SMs x 128 lanes x 2
    /// FLOP); absent otherwise.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::nonfinite::option"
    )]
    pub peak: Option<f64>,
    /// Median SM clock over its kept samples, MHz, where it was read.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::nonfinite::option"
    )]
    pub sm_clock_mhz: Option<f64>,
}

impl Ceilings {
    /// The named ceiling `name`, if it was measured.
    pub fn named(&self, name: &str) -> Option<&MeasuredCeiling> {
        self.named.get(name)
    }
}

/// Replays a stream of samples through the stop rule as the timer takes
/// them: each `(time_us, elapsed_s)` is one kept sample and the wall time
/// since the warm-up when it was taken. Returns how many samples were kept
/// when sampling stopped and whether the figure is noisy, or `None` if the
/// stream ends first. The conformance test feeds the same streams to the
/// C++ and Python peers' rules (bench/peers/conformance).
pub fn replay(policy: &Policy, samples: &[(f64, f64)]) -> Option<(usize, bool)> {
    let mut times = Vec::new();
    let mut history = Vec::new();
    for &(t, elapsed) in samples {
        times.push(t);
        history.push(rel_stdev(&times));
        let gpu_s = times.iter().sum::<f64>() / 1e6;
        if let Some(noisy) = stop_after(policy, &history, gpu_s, elapsed) {
            return Some((times.len(), noisy));
        }
    }
    None
}

/// Median of a slice (0 when empty).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

/// Standard deviation over mean (0 for fewer than two values).
pub fn rel_stdev(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
    if mean > 0.0 { var.sqrt() / mean } else { 0.0 }
}

/// The stopping rules, after a sample: `None` to go on, `Some(noisy)` to
/// stop, where `noisy` says the time-out ended sampling before the noise
/// target was met. `history` holds the noise estimate after each kept
/// sample (its length is the number kept), `gpu_s` their sum in seconds,
/// `elapsed` the wall time since the warm-up, seconds. Without a budget,
/// the wall cap (`max_wall_s`) ends sampling short of the minimum count;
/// with one, [`budget_ends`] does.
pub fn stop_after(policy: &Policy, history: &[f64], gpu_s: f64, elapsed: f64) -> Option<bool> {
    let n = history.len();
    let noise = history.last().copied().unwrap_or(0.0);
    if n >= policy.min_samples {
        let enough_time = gpu_s >= policy.min_gpu_s;
        if enough_time && noise <= policy.target_noise {
            return Some(false);
        }
        if enough_time && n >= 4 * policy.min_samples && noise_settled(history) {
            return Some(false);
        }
        if n >= policy.max_samples {
            return Some(false);
        }
        if elapsed > policy.timeout_s {
            return Some(noise > policy.target_noise);
        }
    }
    // Under a budget, [`budget_ends`] ends sampling short of the minimum
    // once the floor is kept; the wall cap stays for a size whose every
    // sample is dropped.
    let capped = !policy.budget_s.is_finite() || n < BUDGET_FLOOR;
    (capped && elapsed > policy.max_wall_s).then_some(true)
}

/// The noise estimate has stopped improving: over the last quarter of the
/// samples it moved by less than 1% of its value.
fn noise_settled(history: &[f64]) -> bool {
    let n = history.len();
    let back = history[n - n / 4 - 1];
    let now = history[n - 1];
    now > 0.0 && ((back - now) / now).abs() < 0.01
}

/// One sample a timer took, and the SM clocks read right after it.
#[derive(Debug, Clone)]
pub struct Taken<T> {
    /// The sample's time, microseconds (for a collective, the slowest
    /// rank's).
    pub time_us: f64,
    /// Whether a blocking kernel gave up before the host released it (host
    /// latency may be in the time).
    pub blocker_timed_out: bool,
    /// Each GPU's SM clock, MHz, in the order of the default clocks given
    /// to [`sample_until_stop`]; `None` where the clocks cannot be read at
    /// all (no sample is then dropped), `None` in the list where one GPU's
    /// could not be read this time.
    pub sm_mhz: Option<Vec<Option<f64>>>,
    /// What else the timer keeps of a kept sample (each rank's time).
    pub detail: T,
}

/// The method's sampling loop, the one every timer runs after its warm-up:
/// `take` a sample (of `reps` repetitions of the work, `reps` = 1 for a
/// kernel), drop it when any GPU's SM clock was under the policy's
/// throttle fraction of its `default_mhz`, and stop when [`stop_after`]
/// says so, counting the GPU time of every repetition. Returns the kept
/// samples' times and counts, and each kept sample's detail in order.
/// Without a budget: [`sample_within`] has it.
pub fn sample_until_stop<T, E>(
    policy: &Policy,
    reps: u32,
    default_mhz: &[f64],
    take: impl FnMut() -> Result<Taken<T>, E>,
) -> Result<(Samples, Vec<T>), E> {
    let started = std::time::Instant::now();
    sample_within(
        &policy.unbudgeted(),
        f64::INFINITY,
        reps,
        default_mhz,
        take,
        || started.elapsed().as_secs_f64(),
    )
}

/// [`sample_until_stop`] with `allowance_s` seconds of the budget left for
/// the samples, and `elapsed` the wall seconds since sampling began: also
/// stops when [`budget_ends`] says so, and marks the samples
/// ([`Samples::budget`], not noisy; its `budget_s` is the policy's).
pub fn sample_within<T, E>(
    policy: &Policy,
    allowance_s: f64,
    reps: u32,
    default_mhz: &[f64],
    mut take: impl FnMut() -> Result<Taken<T>, E>,
    mut elapsed: impl FnMut() -> f64,
) -> Result<(Samples, Vec<T>), E> {
    let mut samples = Samples::default();
    let mut details = Vec::new();
    let mut clocks = Vec::new();
    let mut history = Vec::new();
    let mut taken_count = 0;
    loop {
        let taken = take()?;
        taken_count += 1;
        samples.blocker_timeouts += u32::from(taken.blocker_timed_out);
        let throttled = taken.sm_mhz.as_ref().is_some_and(|c| {
            c.iter().zip(default_mhz).any(|(clock, default)| {
                clock.is_some_and(|c| c < policy.throttle_fraction * default)
            })
        });
        if throttled {
            samples.throttled += 1;
        } else {
            samples.times_us.push(taken.time_us);
            details.push(taken.detail);
            history.push(rel_stdev(&samples.times_us));
            clocks.extend(taken.sm_mhz.into_iter().flatten().flatten());
        }
        let gpu_s = samples.times_us.iter().sum::<f64>() * f64::from(reps) / 1e6;
        let elapsed = elapsed();
        if let Some(noisy) = stop_after(policy, &history, gpu_s, elapsed) {
            samples.noisy = noisy;
            break;
        }
        if budget_ends(policy, allowance_s, history.len(), taken_count, elapsed) {
            samples.budget = Some(BudgetEnd {
                budget_s: policy.budget_s,
                sample_s: elapsed / taken_count as f64,
            });
            break;
        }
    }
    samples.sm_clock_mhz = median(&clocks);
    Ok((samples, details))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A policy that stops at `min` kept samples (any noise, no GPU time).
    fn stops_at(min: usize) -> Policy {
        Policy {
            min_samples: min,
            target_noise: f64::INFINITY,
            min_gpu_s: 0.0,
            ..POLICY
        }
    }

    // The loop drops a sample taken while any GPU ran under the throttle
    // fraction of its default clock (here the second of two GPUs, every
    // third sample), counts it and the blocker's time-outs, keeps the
    // others' times and details in order, and takes the median clock of
    // the kept samples over every GPU; a GPU whose clock is unknown drops
    // nothing.
    #[test]
    fn throttled_samples_are_dropped_and_counted() {
        let mut k = 0;
        let (samples, details) = sample_until_stop(&stops_at(4), 1, &[1000.0, 2000.0], || {
            k += 1;
            let slow = k % 3 == 0;
            Ok::<_, ()>(Taken {
                time_us: f64::from(k),
                blocker_timed_out: k == 2,
                sm_mhz: Some(vec![Some(900.0), if slow { Some(1400.0) } else { None }]),
                detail: k,
            })
        })
        .unwrap();
        assert_eq!(details, [1, 2, 4, 5]);
        assert_eq!(samples.times_us, [1.0, 2.0, 4.0, 5.0]);
        assert_eq!((samples.throttled, samples.blocker_timeouts), (1, 1));
        assert_eq!(samples.sm_clock_mhz, 900.0);
        assert!(!samples.noisy);
    }

    // The stop rule counts the GPU time of every repetition: 10 samples of
    // 10 ms are 0.1 s with one repetition each, 1 s with ten, and a
    // policy that wants 0.5 s of GPU time stops at 10 samples only then.
    #[test]
    fn repetitions_count_towards_the_gpu_time() {
        let policy = Policy {
            min_gpu_s: 0.5,
            target_noise: f64::INFINITY,
            max_samples: 60,
            ..POLICY
        };
        let taken = |reps| {
            sample_until_stop(&policy, reps, &[], || {
                Ok::<_, ()>(Taken {
                    time_us: 10_000.0,
                    blocker_timed_out: false,
                    sm_mhz: None,
                    detail: (),
                })
            })
            .unwrap()
            .0
            .times_us
            .len()
        };
        assert_eq!(taken(10), 10);
        assert_eq!(taken(1), 50);
    }

    // A failed sample ends the loop with its error.
    #[test]
    fn a_failed_sample_is_the_error() {
        let mut k = 0;
        let e = sample_until_stop::<(), _>(&stops_at(10), 1, &[], || {
            k += 1;
            if k == 3 {
                Err(k)
            } else {
                Ok(Taken {
                    time_us: 1.0,
                    blocker_timed_out: false,
                    sm_mhz: None,
                    detail: (),
                })
            }
        });
        assert_eq!(e.unwrap_err(), 3);
    }

    // The median is the middle value, the mean of the two middles for even counts.
    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    // Identical samples have no spread; a 10% outlier shows up.
    #[test]
    fn spread_reflects_outliers() {
        assert_eq!(rel_stdev(&[5.0; 10]), 0.0);
        let mut v = vec![100.0; 9];
        v.push(110.0);
        assert!(rel_stdev(&v) > 0.02);
    }

    // Each of several processes gets an equal share of the budget, never
    // fewer than the minimum sample count.
    #[test]
    fn shares_split_the_budget() {
        let one = POLICY.share(4);
        assert_eq!(one.processes, 4);
        assert!((one.min_gpu_s * 4.0 - POLICY.min_gpu_s).abs() < 1e-12);
        assert_eq!(one.max_samples * 4, POLICY.max_samples);
        assert_eq!(one.min_samples, POLICY.min_samples);
        assert_eq!(POLICY.share(1000).max_samples, POLICY.min_samples);
    }

    // A slow, steady kernel that passes the time-out before its tenth
    // sample stops at the tenth, and is not labelled noisy for having been
    // slow (method v3 labelled it; v4 does not).
    #[test]
    fn a_slow_steady_kernel_is_not_noisy() {
        let p = POLICY.share(8);
        let steady = vec![0.0001; 10];
        assert_eq!(stop_after(&p, &steady[..4], 0.47, 0.47), None);
        assert_eq!(stop_after(&p, &steady, 1.18, 1.18), Some(false));
    }

    // Past the time-out with the minimum count, a spread above the target
    // stops sampling and labels the figure; before it, sampling goes on.
    #[test]
    fn the_time_out_labels_only_a_noisy_figure() {
        let p = POLICY;
        let noisy = vec![0.02; 10];
        assert_eq!(stop_after(&p, &noisy, 1e-3, 1.0), None);
        assert_eq!(stop_after(&p, &noisy, 1e-3, p.timeout_s + 0.1), Some(true));
    }

    // Short of the minimum count, only the hard wall-time cap stops, and
    // labels the figure noisy; the cap is not split between processes.
    #[test]
    fn the_wall_cap_stops_short_of_the_minimum() {
        let p = POLICY.share(8);
        let few = vec![0.0; 3];
        assert_eq!(stop_after(&p, &few, 9.0, 11.9), None);
        assert_eq!(stop_after(&p, &few, 9.0, 12.1), Some(true));
        assert_eq!(p.max_wall_s, POLICY.max_wall_s);
    }

    // Enough samples and GPU time with a small spread stop without a label;
    // 2000 samples stop whatever the spread.
    #[test]
    fn the_noise_target_and_the_cap_stop_sampling() {
        let p = POLICY;
        assert_eq!(stop_after(&p, &[0.001; 10], 0.2, 0.3), Some(false));
        assert_eq!(stop_after(&p, &[0.001; 10], 0.01, 0.3), None);
        let rising: Vec<f64> = (0..p.max_samples).map(|i| 0.01 + i as f64 * 1e-4).collect();
        assert_eq!(stop_after(&p, &rising, 0.01, 0.5), Some(false));
    }

    // Sampling stops once the noise estimate no longer moves.
    #[test]
    fn settled_noise_is_detected() {
        let flat = vec![0.02; 40];
        assert!(noise_settled(&flat));
        let falling: Vec<f64> = (1..=40).map(|i| 1.0 / i as f64).collect();
        assert!(!noise_settled(&falling));
    }

    /// One process measuring one size as the runner's timer does (its
    /// [`Ledger`], the warm-up, [`sample_within`]), with samples that
    /// cost `cost_s` of wall time each on a clock the sampler advances;
    /// returns the samples and the seconds the process spent.
    fn one_process(policy: &Policy, ledger: &mut Ledger, cost_s: f64) -> (Samples, f64) {
        let clock = std::cell::Cell::new(0.0);
        ledger.begin_size(policy);
        let allowance = ledger.allowance(policy);
        clock.set(clock.get() + cost_s); // the warm-up
        let warm_up_s = clock.get();
        let kept = warm_up_is_a_sample(allowance, warm_up_s);
        let (start, left) = if kept {
            (0.0, allowance)
        } else {
            (warm_up_s, allowance - warm_up_s)
        };
        let mut first = kept;
        let take = || {
            if !std::mem::take(&mut first) {
                clock.set(clock.get() + cost_s);
            }
            Ok::<_, ()>(Taken {
                time_us: cost_s * 1e6,
                blocker_timed_out: false,
                sm_mhz: None,
                detail: (),
            })
        };
        let (samples, _) =
            sample_within(policy, left, 1, &[], take, || clock.get() - start).unwrap();
        ledger.spend(clock.get());
        ledger.size_done();
        (samples, clock.get())
    }

    /// The default budget over one timed size, one process's share of 8.
    fn budgeted() -> Policy {
        POLICY.with_budget(DEFAULT_BUDGET_S, 1).share(8)
    }

    // A kernel whose launches take 2 s: each of the 8 processes runs it
    // once (its warm-up is its floor sample, as another run would not fit
    // its 3.75 s), so the example measures within its 30 s budget with 8
    // pooled samples, each size marked with the budget and what one
    // sample took, and not labelled noisy.
    #[test]
    fn a_slow_kernel_ends_within_its_budget_with_the_floor() {
        let policy = budgeted();
        let mut total = 0.0;
        let mut pooled = 0;
        for _ in 0..8 {
            let (samples, spent) = one_process(&policy, &mut Ledger::default(), 2.0);
            assert_eq!(samples.times_us.len(), BUDGET_FLOOR);
            assert!(!samples.noisy);
            assert_eq!(
                samples.budget,
                Some(BudgetEnd {
                    budget_s: 30.0,
                    sample_s: 2.0
                })
            );
            total += spent;
            pooled += samples.times_us.len();
        }
        assert!(total <= DEFAULT_BUDGET_S, "{total}");
        assert_eq!(pooled, 8);
    }

    // Whatever a launch costs, up to the process's whole share, a process
    // ends within its share with at least the floor; a launch slower than
    // the share still gets the floor, run once.
    #[test]
    fn every_launch_time_ends_within_the_share() {
        let policy = budgeted();
        for cost_ms in (10..=3750).step_by(10).chain([5000, 20_000]) {
            let cost = f64::from(cost_ms) / 1000.0;
            let (samples, spent) = one_process(&policy, &mut Ledger::default(), cost);
            assert!(samples.times_us.len() >= BUDGET_FLOOR, "{cost}");
            if cost <= policy.process_budget_s() {
                assert!(spent <= policy.process_budget_s() + 1e-9, "{cost}: {spent}");
            } else {
                assert_eq!(spent, cost, "run once");
            }
        }
    }

    // Under the budget a fast kernel samples exactly as without one, even
    // where its part of the budget is shorter than the time-out: the same
    // stream of samples (1 ms of wall each, noisy enough to run to the
    // time-out) keeps the same samples and label, and no budget mark.
    #[test]
    fn a_fast_kernel_samples_as_without_a_budget() {
        let run = |policy: &Policy, allowance: f64| {
            let clock = std::cell::Cell::new(0.0);
            let mut k = 0u32;
            let take = || {
                k += 1;
                clock.set(clock.get() + 0.001);
                Ok::<_, ()>(Taken {
                    time_us: 100.0 + f64::from(k % 7) * 3.0,
                    blocker_timed_out: false,
                    sm_mhz: None,
                    detail: (),
                })
            };
            sample_within(policy, allowance, 1, &[], take, || clock.get())
                .unwrap()
                .0
        };
        let before = run(&POLICY.share(8), f64::INFINITY);
        // 24 timed sizes: each size's part (0.16 s) is shorter than the
        // time-out the stop rule samples to.
        let policy = POLICY.with_budget(DEFAULT_BUDGET_S, 24).share(8);
        assert!(Ledger::default().allowance(&policy) < policy.timeout_s);
        let now = run(&policy, Ledger::default().allowance(&policy) - 0.001);
        assert_eq!(now.times_us, before.times_us);
        assert_eq!(now.noisy, before.noisy);
        assert!(now.budget.is_none());
        assert!(before.times_us.len() > policy.min_samples);
    }

    // The budget ends sampling only short of the minimum count, never
    // before the floor, and when one more sample of the mean cost would
    // not fit what is left.
    #[test]
    fn the_budget_ends_only_short_of_the_minimum() {
        let p = budgeted();
        assert!(!budget_ends(&p, 1.0, 0, 1, 5.0), "the floor first");
        assert!(budget_ends(&p, 1.0, 1, 1, 0.6));
        assert!(!budget_ends(&p, 1.0, 1, 1, 0.4));
        assert!(!budget_ends(&p, 1.0, p.min_samples, p.min_samples, 5.0));
        // Without a budget the wall cap still ends sampling short of the
        // minimum; under one it does only before the floor is kept.
        let few = vec![0.0; 3];
        assert_eq!(stop_after(&POLICY.share(8), &few, 9.0, 12.1), Some(true));
        assert_eq!(stop_after(&p, &few, 9.0, 12.1), None);
        assert_eq!(stop_after(&p, &[], 0.0, 12.1), Some(true));
    }

    // Sharing keeps the example's whole budget (each process takes its
    // 1/processes through the ledger); a size may spend what is left over
    // the sizes left, so a fast size leaves its part to the next; a timer
    // that goes on to another example starts a new ledger for it.
    #[test]
    fn shares_and_the_ledger_split_the_budget() {
        let p = POLICY.with_budget(60.0, 3).share(4);
        assert_eq!((p.budget_s, p.timed_sizes, p.processes), (60.0, 3, 4));
        assert_eq!(p.process_budget_s(), 15.0);
        let mut ledger = Ledger::default();
        assert_eq!(ledger.allowance(&p), 5.0);
        ledger.begin_size(&p);
        ledger.spend(1.0);
        ledger.size_done();
        assert_eq!(ledger.allowance(&p), 7.0);
        ledger.begin_size(&p);
        ledger.spend(20.0);
        ledger.size_done();
        assert_eq!(ledger.allowance(&p), 0.0);
        ledger.begin_size(&p);
        ledger.size_done();
        // The example's three sizes done (and a hot figure after the
        // last), the next example's first size has its whole part.
        ledger.spend(1.0);
        let next = POLICY.with_budget(30.0, 2).share(4);
        assert_eq!(ledger.allowance(&next), 3.75);
        ledger.begin_size(&next);
        assert_eq!((ledger.spent_s(), ledger.allowance(&next)), (0.0, 3.75));
        assert_eq!(Ledger::default().allowance(&POLICY.share(8)), f64::INFINITY);
        assert_eq!(p.unbudgeted().budget_s, f64::INFINITY);
    }

    const EXAMPLE: &str = "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\"]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\"]\n+++*/\nextern \"C\" __global__ void k(const float* x, float* out, unsigned n) {}\n";

    // The policy of an example carries its header's budget (else the
    // default) over its timed sizes, every size of every swept value.
    #[test]
    fn the_policy_has_the_examples_budget_over_its_timed_sizes() {
        let dir = tempfile::tempdir().unwrap();
        let example = |body: &str| {
            crate::example::Example::from_inline(
                dir.path(),
                "src/ch.md",
                dir.path(),
                body,
                1,
                "demo",
            )
            .unwrap()
        };
        let plain = policy_of(&example(EXAMPLE), 8);
        assert_eq!(
            (plain.budget_s, plain.timed_sizes, plain.processes),
            (DEFAULT_BUDGET_S, 1, 8)
        );
        let swept = policy_of(
            &example(&EXAMPLE.replace(
                "sizes = [\"2^20\"]",
                "sizes = [\"2^20\", \"2^22\"]\nbudget_s = 60\n[sweep]\nSTRIDE = [1, 2, 4]",
            )),
            8,
        );
        assert_eq!((swept.budget_s, swept.timed_sizes), (60.0, 6));
    }

    /// One conformance line per canned stream: `name stop N noisy|quiet
    /// median M` or `name never`.
    fn conformance(streams: &str) -> String {
        let mut out = String::new();
        for line in streams
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let (head, body) = line.split_once(" : ").expect("a stream line has ' : '");
            let f: Vec<&str> = head.split_whitespace().collect();
            let num = |i: usize| f[i].parse::<f64>().unwrap();
            let policy = Policy {
                min_samples: f[1].parse().unwrap(),
                target_noise: num(2),
                min_gpu_s: num(3),
                timeout_s: num(4),
                max_wall_s: num(5),
                max_samples: f[6].parse().unwrap(),
                ..POLICY
            };
            let samples: Vec<(f64, f64)> = body
                .split_whitespace()
                .map(|s| {
                    let (t, e) = s.split_once('@').unwrap();
                    (t.parse().unwrap(), e.parse().unwrap())
                })
                .collect();
            match replay(&policy, &samples) {
                Some((n, noisy)) => {
                    let times: Vec<f64> = samples[..n].iter().map(|s| s.0).collect();
                    out.push_str(&format!(
                        "{} stop {n} {} median {:.3}\n",
                        f[0],
                        if noisy { "noisy" } else { "quiet" },
                        median(&times)
                    ));
                }
                None => out.push_str(&format!("{} never\n", f[0])),
            }
        }
        out
    }

    // The Rust stop rule gives the committed verdict on every canned stream;
    // the C++ (cub_sum.cu) and Python (python_peers.py) rules are held to
    // the same file by scripts/test, so the three methods cannot drift.
    #[test]
    fn the_stop_rule_matches_the_conformance_file() {
        let got = conformance(include_str!("../../../bench/peers/conformance/streams.txt"));
        let want = include_str!("../../../bench/peers/conformance/expected.txt");
        assert_eq!(got, want);
    }
}
