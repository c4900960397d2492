//! The pure parts of how an all-reduce is timed (the runner's
//! `allreduce::timing` takes the samples).
//!
//! The book's method times one kernel cold (L2 flushed, launch latency
//! held out by a blocking kernel). A collective is timed hot instead, as
//! nccl-tests times it and as training runs it, back to back: a message
//! below ~50 MB sits in L2 anyway, a cold flush on k GPUs would have to
//! be timed out of k intervals, and the figures compared with
//! (nccl-tests, torch.distributed) are hot. What stays: the blocking
//! kernel holds every rank's stream until the host has queued the whole
//! sample, one host write releases all ranks at once (the common start),
//! one event pair per rank brackets the sample, warm-up first, then at
//! least ten samples and the method's noise-based stop rule, and the
//! median with its spread is what is published.
//!
//! A sample is `reps` all-reduces back to back, enough for
//! [`SAMPLE_TARGET_US`] of GPU time, so that the event resolution
//! (~0.5 us) and the release skew between GPUs weigh little on small
//! messages, and few enough that the commands queued behind a blocker fit
//! in a stream ([`QUEUE_BUDGET`]). Events of different GPUs cannot be subtracted, so each rank
//! times its own interval from its start event, recorded right after its
//! blocker let go; since all blockers are released by the same host
//! write, each start stands for the common start, and the collective's
//! time is the slowest rank's (stop - start), [`collective_us`]. Each
//! rank's own time is kept beside it.

use crate::method::{Policy, median, rel_stdev};
use serde::{Deserialize, Serialize};

use super::bandwidth;

/// GPU time one sample aims for, microseconds (as the runner's hot figure).
pub const SAMPLE_TARGET_US: f64 = 200.0;
/// All-reduces per sample at most.
pub const MAX_REPS: u32 = 100;
/// Stream commands (launches, event records and waits) a sample may queue
/// on one stream behind its blocker. A stream holds on the order of a
/// thousand pending commands; past that the host waits in the launch call
/// for the GPU, which the blocker holds, and the sample ends only when the
/// blocker gives up. Half of that leaves room to spare.
pub const QUEUE_BUDGET: u32 = 512;

/// All-reduces per sample when one takes `single_us` and queues
/// `commands` stream commands per rank: enough for [`SAMPLE_TARGET_US`],
/// at most [`MAX_REPS`] and at most [`QUEUE_BUDGET`] commands, at least one.
pub fn reps_for(single_us: f64, commands: u32) -> u32 {
    let by_queue = (QUEUE_BUDGET / commands.max(1)).clamp(1, MAX_REPS);
    if !single_us.is_finite() || single_us <= 0.0 {
        return by_queue;
    }
    ((SAMPLE_TARGET_US / single_us).ceil() as u32).clamp(1, by_queue)
}

/// The collective's time from the ranks' own times: the slowest rank's.
pub fn collective_us(per_rank_us: &[f64]) -> f64 {
    per_rank_us.iter().copied().fold(0.0, f64::max)
}

/// The sampling policy: the method's, in one process (the collective is
/// not split over child processes), with the time-out and the GPU time
/// required before stopping as given.
pub fn policy(base: &Policy, timeout_s: f64, min_gpu_s: f64) -> Policy {
    Policy {
        timeout_s,
        min_gpu_s,
        processes: 1,
        ..*base
    }
}

/// What the runner's timer took for one implementation at one size.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CollectiveSamples {
    /// All-reduces per sample.
    pub reps: u32,
    /// Per kept sample, each rank's time per all-reduce, microseconds.
    pub per_rank_us: Vec<Vec<f64>>,
    /// Samples dropped because some rank's SM clock was throttled.
    pub throttled: u32,
    /// Samples where some rank's blocker timed out (host latency may be in).
    pub blocker_timeouts: u32,
    /// Whether sampling hit the time-out before the noise target.
    pub noisy: bool,
    /// Median SM clock over kept samples and ranks, MHz (0 when unknown).
    pub sm_clock_mhz: f64,
}

impl CollectiveSamples {
    /// The collective's time of each kept sample.
    pub fn times_us(&self) -> Vec<f64> {
        self.per_rank_us.iter().map(|r| collective_us(r)).collect()
    }
}

/// The figures of one implementation at one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// All-reduces per sample.
    pub reps: u32,
    /// Samples kept.
    pub samples: usize,
    /// Median over samples of the slowest rank's time per all-reduce, µs.
    #[serde(with = "crate::nonfinite")]
    pub median_us: f64,
    /// Fastest sample, µs.
    #[serde(with = "crate::nonfinite")]
    pub min_us: f64,
    /// Slowest sample, µs.
    #[serde(with = "crate::nonfinite")]
    pub max_us: f64,
    /// Standard deviation over mean of the samples.
    pub rel_spread: f64,
    /// Each rank's own median, µs.
    pub per_rank_median_us: Vec<f64>,
    /// bytes / median, GB/s.
    #[serde(with = "crate::nonfinite")]
    pub algbw_gbs: f64,
    /// algbw x 2(k-1)/k, GB/s (0 for one rank).
    #[serde(with = "crate::nonfinite")]
    pub busbw_gbs: f64,
    /// Sampling ended on the time-out before the noise target.
    pub noisy: bool,
    /// Samples dropped for a throttled SM clock.
    pub throttled_dropped: u32,
    /// Samples whose blocker timed out.
    pub blocker_timeouts: u32,
    /// Median SM clock, MHz (0 when unknown).
    pub sm_clock_mhz: f64,
}

impl Timing {
    /// The figures of `samples` for a message of `bytes` over `ranks`.
    pub fn of(samples: &CollectiveSamples, bytes: u64, ranks: usize) -> Timing {
        let times = samples.times_us();
        let med = median(&times);
        let per_rank_median_us = (0..ranks)
            .map(|r| {
                let own: Vec<f64> = samples
                    .per_rank_us
                    .iter()
                    .filter_map(|s| s.get(r).copied())
                    .collect();
                median(&own)
            })
            .collect();
        Timing {
            reps: samples.reps,
            samples: times.len(),
            median_us: med,
            min_us: times.iter().copied().fold(f64::INFINITY, f64::min),
            max_us: times.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            rel_spread: rel_stdev(&times),
            per_rank_median_us,
            algbw_gbs: bandwidth::algbw_gbs(bytes, med),
            busbw_gbs: bandwidth::busbw_gbs(bytes, med, ranks),
            noisy: samples.noisy,
            throttled_dropped: samples.throttled,
            blocker_timeouts: samples.blocker_timeouts,
            sm_clock_mhz: samples.sm_clock_mhz,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::POLICY;

    // A sample holds about 200 us of all-reduces, between 1 and 100 of them.
    #[test]
    fn reps_fill_the_sample_target() {
        assert_eq!(reps_for(10.0, 1), 20);
        assert_eq!(reps_for(0.5, 1), MAX_REPS);
        assert_eq!(reps_for(5000.0, 1), 1);
        assert_eq!(reps_for(0.0, 1), MAX_REPS);
    }

    // A sample never queues more than the budget of commands on a stream,
    // however short the all-reduce, and always at least one all-reduce.
    #[test]
    fn reps_keep_the_queue_within_budget() {
        assert_eq!(reps_for(0.5, 26), QUEUE_BUDGET / 26);
        assert!(reps_for(0.5, 26) * 26 <= QUEUE_BUDGET);
        assert_eq!(reps_for(1.0, 10_000), 1);
        assert_eq!(reps_for(100.0, 26), 2);
    }

    // The collective is as slow as its slowest rank.
    #[test]
    fn collective_time_is_the_slowest_ranks() {
        assert_eq!(collective_us(&[3.0, 5.0, 4.0]), 5.0);
        assert_eq!(collective_us(&[7.5]), 7.5);
    }

    // The policy keeps the method's sample count and noise target, in one process.
    #[test]
    fn policy_keeps_the_methods_rules_in_one_process() {
        let p = policy(&POLICY, 0.5, 0.02);
        assert_eq!(p.min_samples, POLICY.min_samples);
        assert_eq!(p.target_noise, POLICY.target_noise);
        assert_eq!((p.timeout_s, p.min_gpu_s, p.processes), (0.5, 0.02, 1));
    }

    // Figures come from the slowest rank of each sample; each rank keeps its own median.
    #[test]
    fn figures_use_the_slowest_rank_per_sample() {
        let samples = CollectiveSamples {
            reps: 4,
            per_rank_us: vec![vec![10.0, 12.0], vec![11.0, 10.0], vec![10.0, 13.0]],
            ..CollectiveSamples::default()
        };
        let t = Timing::of(&samples, 1_000_000, 2);
        assert_eq!((t.median_us, t.min_us, t.max_us), (12.0, 11.0, 13.0));
        assert_eq!(t.per_rank_median_us, vec![10.0, 12.0]);
        assert!((t.algbw_gbs - 1e6 / 12e-6 / 1e9).abs() < 1e-9);
        assert_eq!(t.busbw_gbs, t.algbw_gbs);
        assert_eq!(t.samples, 3);
    }
}
