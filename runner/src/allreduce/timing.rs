//! The timer of a collective on k GPUs: why it is hot and how the ranks'
//! times become one figure is in the core's `allreduce::timing`. Here:
//! one blocking kernel per rank (`cm_blocker` of the runner's support
//! kernels), all waiting on one flag in page-locked host memory mapped
//! into every GPU, so that one host write releases every rank at once;
//! one event pair per rank around `reps` all-reduces; the method's stop
//! rule over the collective's times; SM clocks read through NVML for every
//! rank after each sample, a sample dropped when any rank was throttled.

use super::ranks::{self, Rank};
use crate::clocks::Clocks;
use anyhow::{Context, Result};
use cuda_measured_core::allreduce::timing::{CollectiveSamples, collective_us, reps_for};
use cuda_measured_core::method::{Policy, median, rel_stdev, stop_after};
use cudarc::driver::{
    CudaEvent, CudaFunction, CudaModule, LaunchConfig, PinnedHostSlice, PushKernelArg, sys,
};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

/// A blocker gives up after this long (the host queues far faster), and
/// says so in the flag's second word.
const BLOCKER_TIMEOUT_NS: u64 = 2_000_000_000;

/// One rank's blocker and events.
struct RankTimer {
    _module: Arc<CudaModule>,
    blocker: CudaFunction,
    flag_dev: u64,
    start: CudaEvent,
    stop: CudaEvent,
}

/// The timer of a collective over `ranks`.
pub struct Timer {
    ranks: Vec<RankTimer>,
    _flag: PinnedHostSlice<i32>,
    flag_host: *mut i32,
    /// Every rank's SM clock, by its UUID; `None` where NVML or one
    /// of the GPUs cannot be opened (no sample is then dropped).
    clocks: Option<Vec<Clocks>>,
    default_clock_mhz: Vec<f64>,
}

impl Timer {
    /// Loads the blocker on every rank and maps the release flag into
    /// every GPU.
    pub fn new(ranks: &[Rank]) -> Result<Self> {
        let first = &ranks[0];
        // SAFETY: two ints of page-locked memory, portable (every context)
        // and mapped into the devices; written below before any use.
        let mut flag = unsafe {
            first.ctx.alloc_pinned_with_flags::<i32>(
                2,
                sys::CU_MEMHOSTALLOC_PORTABLE | sys::CU_MEMHOSTALLOC_DEVICEMAP,
            )
        }?;
        let flag_host = flag.as_mut_ptr()?;
        // SAFETY: flag_host points at two ints; no kernel runs yet.
        unsafe {
            flag_host.write_volatile(1);
            flag_host.add(1).write_volatile(0);
        }
        let mut cubins: HashMap<&str, Vec<u8>> = HashMap::new();
        let mut timers = Vec::new();
        for rank in ranks {
            if !cubins.contains_key(rank.arch.as_str()) {
                let cubin = crate::measure::support_cubin(&rank.arch, None)
                    .context("compiling the blocking kernel")?;
                cubins.insert(&rank.arch, cubin);
            }
            let module = rank.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(
                cubins[rank.arch.as_str()].clone(),
            ))?;
            rank.ctx.bind_to_thread()?;
            let mut flag_dev: sys::CUdeviceptr = 0;
            // SAFETY: flag_host was allocated portable and device-mapped.
            unsafe { sys::cuMemHostGetDevicePointer_v2(&mut flag_dev, flag_host.cast(), 0) }
                .result()?;
            let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
            timers.push(RankTimer {
                blocker: module.load_function("cm_blocker")?,
                _module: module,
                flag_dev,
                start: rank.ctx.new_event(timing)?,
                stop: rank.ctx.new_event(timing)?,
            });
        }
        let uuids: Vec<String> = ranks.iter().map(|r| r.gpu.uuid.clone()).collect();
        Ok(Timer {
            ranks: timers,
            _flag: flag,
            flag_host,
            clocks: uuids.iter().map(|u| Clocks::open(Some(u))).collect(),
            default_clock_mhz: ranks.iter().map(|r| r.gpu.default_sm_clock_mhz).collect(),
        })
    }

    /// Warm-up, then samples of `reps` back-to-back all-reduces (as many
    /// as fill [`SAMPLE_TARGET_US`](cuda_measured_core::allreduce::timing::SAMPLE_TARGET_US),
    /// within the queue budget for `commands` stream commands per
    /// all-reduce) until the method's stop rule says enough.
    pub fn sample<E>(
        &mut self,
        ranks: &[Rank],
        policy: &Policy,
        commands: u32,
        mut enqueue: E,
    ) -> Result<CollectiveSamples>
    where
        E: FnMut() -> Result<()>,
    {
        // Warm-up: first-use costs (NCCL's lazy connections, module
        // loading, clock ramp) stay out.
        self.interval(ranks, 1, &mut enqueue)?;
        let (single, _) = self.interval(ranks, 1, &mut enqueue)?;
        let reps = reps_for(collective_us(&single), commands);
        let mut samples = CollectiveSamples {
            reps,
            ..CollectiveSamples::default()
        };
        let mut clocks = Vec::new();
        let mut history = Vec::new();
        let mut times = Vec::new();
        let started = Instant::now();
        loop {
            let (per_rank, timed_out) = self.interval(ranks, reps, &mut enqueue)?;
            samples.blocker_timeouts += u32::from(timed_out);
            let rank_clocks = self
                .clocks
                .as_ref()
                .map(|c| c.iter().map(Clocks::sm_mhz).collect::<Vec<_>>());
            let throttled = rank_clocks.as_ref().is_some_and(|c| {
                c.iter()
                    .zip(&self.default_clock_mhz)
                    .any(|(clock, default)| {
                        clock.is_some_and(|c| c < policy.throttle_fraction * default)
                    })
            });
            if throttled {
                samples.throttled += 1;
            } else {
                times.push(collective_us(&per_rank));
                samples.per_rank_us.push(per_rank);
                history.push(rel_stdev(&times));
                clocks.extend(rank_clocks.into_iter().flatten().flatten());
            }
            let gpu_s = times.iter().sum::<f64>() * f64::from(reps) / 1e6;
            let elapsed = started.elapsed().as_secs_f64();
            if let Some(noisy) = stop_after(policy, &history, gpu_s, elapsed) {
                samples.noisy = noisy;
                break;
            }
        }
        samples.sm_clock_mhz = median(&clocks);
        Ok(samples)
    }

    /// One sample: every rank's blocker holds its stream while the host
    /// queues a start event, `reps` all-reduces and a stop event on every
    /// rank; one write releases them all. Returns each rank's time per
    /// all-reduce, µs, and whether a blocker timed out.
    fn interval<E>(
        &mut self,
        ranks: &[Rank],
        reps: u32,
        enqueue: &mut E,
    ) -> Result<(Vec<f64>, bool)>
    where
        E: FnMut() -> Result<()>,
    {
        // SAFETY: every stream is idle here (each interval ends with a
        // synchronisation), so no blocker reads the flag while it is armed.
        unsafe {
            self.flag_host.write_volatile(0);
            self.flag_host.add(1).write_volatile(0);
        }
        let queued = self.queue(ranks, reps, enqueue);
        // Released whatever happened, so that no blocker is left spinning.
        // SAFETY: flag_host is valid page-locked memory; blockers poll it.
        unsafe { self.flag_host.write_volatile(1) };
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        let synced = ranks::synchronize(ranks).context("the timed all-reduces failed on a GPU");
        queued?;
        synced?;
        let per_rank = self
            .ranks
            .iter()
            .map(|t| Ok(f64::from(t.start.elapsed_ms(&t.stop)?) * 1000.0 / f64::from(reps)))
            .collect::<Result<Vec<f64>>>()?;
        // SAFETY: as above; the streams are idle again.
        let timed_out = unsafe { self.flag_host.add(1).read_volatile() } != 0;
        Ok((per_rank, timed_out))
    }

    fn queue<E>(&mut self, ranks: &[Rank], reps: u32, enqueue: &mut E) -> Result<()>
    where
        E: FnMut() -> Result<()>,
    {
        let one = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        for (t, rank) in self.ranks.iter().zip(ranks) {
            let mut b = rank.stream.launch_builder(&t.blocker);
            b.arg(&t.flag_dev).arg(&BLOCKER_TIMEOUT_NS);
            // SAFETY: the arguments match cm_blocker(volatile int*, unsigned long long).
            unsafe { b.launch(one) }?;
            t.start.record(&rank.stream)?;
        }
        for _ in 0..reps {
            enqueue()?;
        }
        for (t, rank) in self.ranks.iter().zip(ranks) {
            t.stop.record(&rank.stream)?;
        }
        Ok(())
    }
}
