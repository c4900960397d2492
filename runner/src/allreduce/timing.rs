//! The timer of a collective on k GPUs: why it is hot and how the ranks'
//! times become one figure is in the core's `allreduce::timing`. Here the
//! method's one timer ([`StreamTimer`]) holds every rank's stream with the
//! blocking kernel of the runner's support kernels, all released by one
//! host write, with one event pair per rank around `reps` all-reduces; the
//! method's sampling loop ([`sample_until_stop`]) applies the stop rule to
//! the collective's times and drops a sample when any rank's SM clock,
//! read through NVML after each sample, was throttled.

use super::ranks::Rank;
use crate::clocks::Clocks;
use crate::measure::{RunError, StreamTimer, Taken, sample_until_stop};
use anyhow::{Context, Result};
use cuda_measured_core::allreduce::timing::{CollectiveSamples, collective_us, reps_for};
use cuda_measured_core::method::Policy;
use cudarc::driver::CudaModule;
use std::collections::HashMap;
use std::sync::Arc;

/// The timer of a collective over a set of ranks.
pub struct Timer {
    streams: StreamTimer,
    _modules: Vec<Arc<CudaModule>>,
    /// Every rank's SM clock, by its UUID; `None` where NVML or one
    /// of the GPUs cannot be opened (no sample is then dropped).
    clocks: Option<Vec<Clocks>>,
    default_clock_mhz: Vec<f64>,
}

/// Why one sample failed: the timer's own driver calls, or the work.
enum SampleError {
    Timer(RunError),
    Work(anyhow::Error),
}

impl From<RunError> for SampleError {
    fn from(e: RunError) -> Self {
        SampleError::Timer(e)
    }
}

impl From<SampleError> for anyhow::Error {
    fn from(e: SampleError) -> Self {
        match e {
            // The driver's error stays in the chain, where the sweep looks
            // for a fault that lost a GPU.
            SampleError::Timer(RunError::Launch(e) | RunError::Fault(e)) => {
                anyhow::Error::new(e).context("the timed all-reduces failed on a GPU")
            }
            SampleError::Work(e) => e,
        }
    }
}

impl Timer {
    /// Loads the blocker on every rank and maps the release flag into
    /// every GPU.
    pub fn new(ranks: &[Rank]) -> Result<Self> {
        let mut cubins: HashMap<&str, Vec<u8>> = HashMap::new();
        let mut modules = Vec::new();
        let mut lanes = Vec::new();
        for rank in ranks {
            if !cubins.contains_key(rank.arch.as_str()) {
                let cubin = crate::measure::support_cubin(&rank.arch, None)
                    .context("compiling the blocking kernel")?;
                cubins.insert(&rank.arch, cubin);
            }
            let module = rank.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(
                cubins[rank.arch.as_str()].clone(),
            ))?;
            lanes.push((rank.stream.clone(), module.load_function("cm_blocker")?));
            modules.push(module);
        }
        Ok(Timer {
            streams: StreamTimer::new(lanes)?,
            _modules: modules,
            clocks: ranks
                .iter()
                .map(|r| Clocks::open(Some(&r.gpu.uuid)))
                .collect(),
            default_clock_mhz: ranks.iter().map(|r| r.gpu.default_sm_clock_mhz).collect(),
        })
    }

    /// Warm-up, then samples of `reps` back-to-back all-reduces (as many
    /// as fill [`SAMPLE_TARGET_US`](cuda_measured_core::allreduce::timing::SAMPLE_TARGET_US),
    /// within the queue budget for `commands` stream commands per
    /// all-reduce) until the method's stop rule says enough.
    pub fn sample<E>(
        &mut self,
        policy: &Policy,
        commands: u32,
        mut enqueue: E,
    ) -> Result<CollectiveSamples>
    where
        E: FnMut() -> Result<()>,
    {
        // Warm-up: first-use costs (NCCL's lazy connections, module
        // loading, clock ramp) stay out.
        self.interval(1, &mut enqueue)?;
        let (single, _) = self.interval(1, &mut enqueue)?;
        let reps = reps_for(collective_us(&single), commands);
        let default_mhz = self.default_clock_mhz.clone();
        let (samples, per_rank_us) = sample_until_stop(policy, reps, &default_mhz, || {
            let (per_rank, blocker_timed_out) = self.interval(reps, &mut enqueue)?;
            Ok::<_, anyhow::Error>(Taken {
                time_us: collective_us(&per_rank),
                blocker_timed_out,
                sm_mhz: self
                    .clocks
                    .as_ref()
                    .map(|c| c.iter().map(Clocks::sm_mhz).collect()),
                detail: per_rank,
            })
        })?;
        Ok(CollectiveSamples {
            reps,
            per_rank_us,
            throttled: samples.throttled,
            blocker_timeouts: samples.blocker_timeouts,
            noisy: samples.noisy,
            sm_clock_mhz: samples.sm_clock_mhz,
        })
    }

    /// One sample: every rank's blocker holds its stream while the host
    /// queues a start event, `reps` all-reduces and a stop event on every
    /// rank; one write releases them all. Returns each rank's time per
    /// all-reduce, µs, and whether a blocker timed out.
    fn interval<E>(&mut self, reps: u32, enqueue: &mut E) -> Result<(Vec<f64>, bool)>
    where
        E: FnMut() -> Result<()>,
    {
        let (us, timed_out) = self.streams.blocked(|| {
            (0..reps)
                .try_for_each(|_| enqueue())
                .map_err(SampleError::Work)
        })?;
        let per_rank = us.into_iter().map(|t| t / f64::from(reps)).collect();
        Ok((per_rank, timed_out))
    }
}
