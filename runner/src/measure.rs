//! The measuring method (see the book's methodology page): cold samples
//! with L2 flushed and host launch latency held out by a blocking kernel,
//! warm-up, adaptive sampling with a noise target and a time-out, SM clocks
//! read per sample with throttled samples dropped, an optional hot figure,
//! and the device's read/copy ceilings and launch floor measured the same
//! way in the same process.

use crate::clocks::Clocks;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DriverError, LaunchConfig,
    PushKernelArg, result, sys,
};
use std::sync::Arc;

pub use cuda_measured_core::method::{
    Ceilings, Ledger, MeasuredCeiling, POLICY, Policy, Samples, Taken, median, policy_of,
    rel_stdev, sample_until_stop, sample_within, stop_after,
};
use cuda_measured_core::problem::reports::{self, Direction};

/// Why a timed run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The driver refused a launch.
    #[error("launch refused: {0}")]
    Launch(DriverError),
    /// The work faulted while running.
    #[error("kernel fault: {0}")]
    Fault(DriverError),
}

/// Classifies an error raised while queueing work: sticky execution errors
/// surface at the next call, so they count as faults.
pub fn classify_queue_error(e: DriverError) -> RunError {
    if is_fault(&e) {
        RunError::Fault(e)
    } else {
        RunError::Launch(e)
    }
}

/// Whether a driver error is an execution fault (the context is lost).
pub fn is_fault(e: &DriverError) -> bool {
    use sys::cudaError_enum as E;
    matches!(
        e.0,
        E::CUDA_ERROR_ILLEGAL_ADDRESS
            | E::CUDA_ERROR_LAUNCH_FAILED
            | E::CUDA_ERROR_MISALIGNED_ADDRESS
            | E::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | E::CUDA_ERROR_ASSERT
            | E::CUDA_ERROR_HARDWARE_STACK_ERROR
            | E::CUDA_ERROR_INVALID_PC
            | E::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | E::CUDA_ERROR_LAUNCH_TIMEOUT
            | E::CUDA_ERROR_ECC_UNCORRECTABLE
    )
}

/// Support kernels and buffers of the method on one device.
pub struct Timer {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    _module: Arc<CudaModule>,
    empty: CudaFunction,
    read: CudaFunction,
    copy: CudaFunction,
    fma: CudaFunction,
    poison: SharedPoison,
    digest: crate::digest::AnswerDigest,
    device_judge: crate::device_check::DeviceJudge,
    flush: CudaSlice<u8>,
    flush_value: u8,
    /// The blocking kernel and event pair of the one stream.
    streams: StreamTimer,
    clocks: Option<Clocks>,
    default_clock_mhz: f64,
    sm_count: u32,
    l2_bytes: u64,
    /// What this process has spent of its example's measuring budget.
    ledger: Ledger,
}

/// Fills every SM's shared memory with NaN (`cm_poison_shared`: one block
/// per SM, each with the largest dynamic shared memory a block may have).
/// Launched before each launch of a correctness run, never in a timed one,
/// so that a kernel reading a shared slot that no thread wrote reads NaN
/// and fails its check instead of passing on leftovers.
#[derive(Debug, Clone)]
pub struct SharedPoison {
    function: CudaFunction,
    blocks: u32,
    bytes: u32,
}

impl SharedPoison {
    fn new(
        ctx: &Arc<CudaContext>,
        function: CudaFunction,
        sm_count: u32,
    ) -> Result<Self, DriverError> {
        use sys::CUdevice_attribute as A;
        let bytes = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?;
        function.set_attribute(
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes,
        )?;
        Ok(SharedPoison {
            function,
            blocks: sm_count,
            bytes: bytes as u32,
        })
    }

    /// Queues the poison on `stream`.
    pub fn launch(&self, stream: &Arc<CudaStream>) -> Result<(), DriverError> {
        let cfg = LaunchConfig {
            grid_dim: (self.blocks, 1, 1),
            block_dim: (1024, 1, 1),
            shared_mem_bytes: self.bytes,
        };
        let words = self.bytes / 4;
        let mut b = stream.launch_builder(&self.function);
        b.arg(&words);
        // SAFETY: the kernel takes one unsigned int and touches only its
        // own shared memory.
        unsafe { b.launch(cfg) }?;
        Ok(())
    }
}

/// The support kernels (`support_kernels.cu`: blocker, ceilings, poison,
/// digest) compiled for `arch`; once per session when `data_dir` is the
/// session's shared folder (the first process leaves the cubin there,
/// keyed by the source, the options, the architecture and NVRTC's version).
pub fn support_cubin(arch: &str, data_dir: Option<&std::path::Path>) -> anyhow::Result<Vec<u8>> {
    const SOURCE: &str = include_str!("support_kernels.cu");
    let options = crate::compile::BASE_OPTIONS.join(" ");
    let name = format!(
        "support-{arch}-{}-{:016x}",
        crate::compile::nvrtc_version().unwrap_or_default(),
        xxhash_rust::xxh3::xxh3_64(format!("{options}\n{SOURCE}").as_bytes())
    );
    let cubin = crate::problem::cache::once_per_session_bytes(data_dir, &name, || {
        crate::compile::compile_source(
            SOURCE,
            "support_kernels.cu",
            crate::compile::BASE_OPTIONS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            arch,
        )
        .map(|c| c.cubin)
    })?;
    Ok(cubin)
}

/// The blocking kernel gives up after this long (the host queues far
/// faster), and says so in the flag's second word.
const BLOCKER_TIMEOUT_NS: u64 = 2_000_000_000;

/// One stream's part of a [`StreamTimer`].
struct Lane {
    stream: Arc<CudaStream>,
    /// `cm_blocker` of the support kernels, loaded in the stream's context.
    blocker: CudaFunction,
    /// The release flag as this stream's GPU addresses it.
    flag_dev: sys::CUdeviceptr,
    start: cudarc::driver::CudaEvent,
    stop: cudarc::driver::CudaEvent,
}

/// The one timer of the method, over a set of streams: one for a kernel
/// example, one per rank (each on its own GPU) for a collective. Each
/// stream has the blocking kernel (`cm_blocker`) and an event pair; all
/// blockers wait on one flag in page-locked host memory mapped into every
/// GPU, so that one host write releases every stream at once (the common
/// start of a collective). The sampling loop around it is the core's
/// [`sample_until_stop`].
pub struct StreamTimer {
    lanes: Vec<Lane>,
    _flag: cudarc::driver::PinnedHostSlice<i32>,
    flag_host: *mut i32,
}

impl StreamTimer {
    /// A timer of `lanes`: each stream with the `cm_blocker` loaded in its
    /// own context. The flag is allocated in the first stream's context,
    /// portable to the others.
    pub fn new(lanes: Vec<(Arc<CudaStream>, CudaFunction)>) -> Result<Self, DriverError> {
        let Some((first, _)) = lanes.first() else {
            return Err(DriverError(sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE));
        };
        // SAFETY: two ints of page-locked memory, portable (every context)
        // and mapped into the devices; written below before any use.
        let mut flag = unsafe {
            first.context().alloc_pinned_with_flags::<i32>(
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
        let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let lanes = lanes
            .into_iter()
            .map(|(stream, blocker)| {
                let ctx = stream.context().clone();
                ctx.bind_to_thread()?;
                let mut flag_dev: sys::CUdeviceptr = 0;
                // SAFETY: flag_host was allocated portable and device-mapped;
                // the stream's context is current.
                unsafe { sys::cuMemHostGetDevicePointer_v2(&mut flag_dev, flag_host.cast(), 0) }
                    .result()?;
                Ok(Lane {
                    start: ctx.new_event(timing)?,
                    stop: ctx.new_event(timing)?,
                    stream,
                    blocker,
                    flag_dev,
                })
            })
            .collect::<Result<Vec<Lane>, DriverError>>()?;
        Ok(StreamTimer {
            lanes,
            _flag: flag,
            flag_host,
        })
    }

    /// Times what `enqueue` queues, on every stream between its event
    /// pair, with every stream held by its blocking kernel until all is
    /// queued. Returns each stream's time, µs, and whether a blocker gave
    /// up before the release (host latency may then be in).
    pub fn blocked<E: From<RunError>>(
        &mut self,
        enqueue: impl FnOnce() -> Result<(), E>,
    ) -> Result<(Vec<f64>, bool), E> {
        // SAFETY: every stream is idle here (each interval ends with a
        // synchronisation), so no blocker reads the flag while it is armed.
        unsafe {
            self.flag_host.write_volatile(0);
            self.flag_host.add(1).write_volatile(0);
        }
        let queued = self
            .arm()
            .map_err(|e| E::from(classify_queue_error(e)))
            .and_then(|()| enqueue())
            .and_then(|()| {
                self.record_stops()
                    .map_err(|e| E::from(classify_queue_error(e)))
            });
        // Released whatever happened, so that no blocker is left spinning.
        // SAFETY: flag_host is valid page-locked memory; blockers poll it.
        unsafe { self.flag_host.write_volatile(1) };
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        let synced = self.synchronize();
        queued?;
        synced?;
        let us = self.elapsed_us()?;
        // SAFETY: as above; the streams are idle again.
        let timed_out = unsafe { self.flag_host.add(1).read_volatile() } != 0;
        Ok((us, timed_out))
    }

    /// Times what `enqueue` queues on every stream between its event pair,
    /// without the blocking kernel: the host's time queueing it falls
    /// inside (for work the driver may wait on in the queueing call).
    pub fn unblocked<E: From<RunError>>(
        &mut self,
        enqueue: impl FnOnce() -> Result<(), E>,
    ) -> Result<Vec<f64>, E> {
        self.synchronize()?;
        for lane in &self.lanes {
            lane.start
                .record(&lane.stream)
                .map_err(classify_queue_error)?;
        }
        enqueue()?;
        self.record_stops().map_err(classify_queue_error)?;
        self.synchronize()?;
        Ok(self.elapsed_us()?)
    }

    /// Each stream's blocker, then its start event.
    fn arm(&self) -> Result<(), DriverError> {
        let one = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        for lane in &self.lanes {
            let mut b = lane.stream.launch_builder(&lane.blocker);
            b.arg(&lane.flag_dev).arg(&BLOCKER_TIMEOUT_NS);
            // SAFETY: the arguments match cm_blocker(volatile int*, unsigned long long).
            unsafe { b.launch(one) }?;
            lane.start.record(&lane.stream)?;
        }
        Ok(())
    }

    fn record_stops(&self) -> Result<(), DriverError> {
        self.lanes
            .iter()
            .try_for_each(|lane| lane.stop.record(&lane.stream))
    }

    /// Waits for every stream; a failure there is the work's fault.
    fn synchronize(&self) -> Result<(), RunError> {
        self.lanes
            .iter()
            .try_for_each(|lane| lane.stream.synchronize())
            .map_err(RunError::Fault)
    }

    fn elapsed_us(&self) -> Result<Vec<f64>, RunError> {
        self.lanes
            .iter()
            .map(|lane| {
                let ms = lane.start.elapsed_ms(&lane.stop).map_err(RunError::Fault)?;
                Ok(f64::from(ms) * 1000.0)
            })
            .collect()
    }
}

/// How each sample of [`Timer::sample`] is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampling {
    /// Flush L2 before each sample.
    pub flush: bool,
    /// Hold the stream with the blocking kernel while the work is queued,
    /// so that host launch latency stays out of the timed interval.
    pub blocked: bool,
}

impl Sampling {
    /// The method's default: L2 flushed, stream blocked.
    pub const COLD: Sampling = Sampling {
        flush: true,
        blocked: true,
    };
    /// No flush: the run before (or the warm-up run) left the data where
    /// the caches keep it.
    pub const WARM: Sampling = Sampling {
        flush: false,
        blocked: true,
    };
    /// Flushed, not blocked: for work the driver may wait on inside the
    /// queueing call.
    pub const UNBLOCKED: Sampling = Sampling {
        flush: true,
        blocked: false,
    };
}

/// Independent FMA chains per thread of `cm_fma` (its `CM_FMA_CHAINS`).
const FMA_CHAINS: u64 = 8;
/// Threads per block of `cm_fma`.
const FMA_BLOCK: u32 = 256;
/// Blocks per SM of `cm_fma`: 8 x 256 threads, 64 warps, the most an SM
/// of compute capability 9.0 holds.
const FMA_BLOCKS_PER_SM: u32 = 8;
/// Iterations of `cm_fma`'s loop: about a millisecond on an H200.
const FMA_ITERATIONS: u32 = 1 << 14;
/// Bytes each host-link ceiling copies.
pub const HOST_LINK_BYTES: usize = 256 << 20;

impl Timer {
    /// Compiles the support kernels for `arch` (once per session when
    /// `data_dir` is the session's shared folder: the first process
    /// leaves the cubin there, keyed by the source, the architecture and
    /// NVRTC's version) and allocates the flush buffer (twice the L2 size,
    /// at least 256 MiB).
    pub fn new(
        ctx: &Arc<CudaContext>,
        arch: &str,
        (sm_count, l2_bytes): (u32, u64),
        gpu_uuid: Option<&str>,
        data_dir: Option<&std::path::Path>,
    ) -> anyhow::Result<Self> {
        let cubin = support_cubin(arch, data_dir)?;
        let module = ctx.load_module(cudarc::nvrtc::Ptx::from_binary(cubin))?;
        let stream = ctx.default_stream();
        let flush_bytes = (2 * l2_bytes).max(256 << 20) as usize;
        // SAFETY: the flush buffer is only ever memset, never read.
        let flush = unsafe { stream.alloc::<u8>(flush_bytes)? };
        let streams =
            StreamTimer::new(vec![(stream.clone(), module.load_function("cm_blocker")?)])?;
        let default_clock_mhz =
            f64::from(ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?)
                / 1000.0;
        let poison = SharedPoison::new(ctx, module.load_function("cm_poison_shared")?, sm_count)?;
        let digest = crate::digest::AnswerDigest::new(module.load_function("cm_digest")?, sm_count);
        let device_judge = crate::device_check::DeviceJudge::new(&module)?;
        Ok(Timer {
            poison,
            digest,
            device_judge,
            empty: module.load_function("cm_empty")?,
            read: module.load_function("cm_read")?,
            copy: module.load_function("cm_copy")?,
            fma: module.load_function("cm_fma")?,
            _module: module,
            ctx: ctx.clone(),
            stream,
            flush,
            flush_value: 0,
            streams,
            clocks: Clocks::open(gpu_uuid),
            default_clock_mhz,
            sm_count,
            l2_bytes,
            ledger: Ledger::default(),
        })
    }

    /// Starts a new example's measuring budget: what the timer spent
    /// before no longer counts. The ledger starts a new one by itself once
    /// an example's timed sizes are all done; a timer that goes on to
    /// another example after one that stopped part-way calls this first.
    pub fn start_budget(&mut self) {
        self.ledger = Ledger::default();
    }

    /// The stream all work runs on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The answer digest of checks.
    pub fn answer_digest(&self) -> crate::digest::AnswerDigest {
        self.digest.clone()
    }

    /// The checks done on the GPU ([`crate::device_check`]).
    pub fn device_judge(&self) -> crate::device_check::DeviceJudge {
        self.device_judge.clone()
    }

    /// The shared-memory poison of correctness runs.
    pub fn shared_poison(&self) -> SharedPoison {
        self.poison.clone()
    }

    /// Cold samples of `work`: before each, `reset` (accumulators), an L2
    /// flush and the blocking kernel run outside the timed interval.
    pub fn cold<R, W>(&mut self, policy: &Policy, reset: R, work: W) -> Result<Samples, RunError>
    where
        R: FnMut(&Arc<CudaStream>) -> Result<(), DriverError>,
        W: FnMut(&Arc<CudaStream>) -> Result<(), DriverError>,
    {
        self.sample(policy, Sampling::COLD, reset, work)
    }

    /// Samples of `work` as `how` says: [`Sampling::COLD`] for kernels,
    /// [`Sampling::WARM`] for a problem whose data should stay in the
    /// cache the run before left it in, [`Sampling::UNBLOCKED`] for work
    /// the driver may wait on inside the queueing call (a copy from
    /// pageable memory), which a blocked stream would never let finish.
    /// Adaptive, with throttled samples dropped, as [`Timer::cold`]. Under
    /// a budget (`policy.budget_s` finite: one timed size of the example),
    /// the warm-up and the samples spend this size's allowance of the
    /// process's part ([`Ledger::allowance`]), and the budget may end
    /// sampling short of the minimum count ([`Samples::budget`]).
    pub fn sample<R, W>(
        &mut self,
        policy: &Policy,
        how: Sampling,
        mut reset: R,
        mut work: W,
    ) -> Result<Samples, RunError>
    where
        R: FnMut(&Arc<CudaStream>) -> Result<(), DriverError>,
        W: FnMut(&Arc<CudaStream>) -> Result<(), DriverError>,
    {
        if policy.budget_s.is_finite() {
            self.ledger.begin_size(policy);
        }
        let allowance = self.ledger.allowance(policy);
        let started = std::time::Instant::now();
        // Warm-up: module load, first-touch and clock ramp stay out.
        let (warm_us, warm_blocker) = self.one_sample(how, &mut reset, &mut work)?;
        let warm_up_s = started.elapsed().as_secs_f64();
        // A warm-up too slow for the budget to afford another run like it
        // is the first sample, its time counted from before it.
        let mut first =
            cuda_measured_core::method::warm_up_is_a_sample(allowance, warm_up_s).then(|| Taken {
                time_us: warm_us,
                blocker_timed_out: warm_blocker,
                sm_mhz: self.clocks.as_ref().map(|c| vec![c.sm_mhz()]),
                detail: (),
            });
        let (sampling, left) = match first {
            Some(_) => (started, allowance),
            None => (std::time::Instant::now(), allowance - warm_up_s),
        };
        let default_mhz = [self.default_clock_mhz];
        let outcome = sample_within(
            policy,
            left,
            1,
            &default_mhz,
            || {
                if let Some(taken) = first.take() {
                    return Ok(taken);
                }
                let (time_us, blocker_timed_out) = self.one_sample(how, &mut reset, &mut work)?;
                Ok(Taken {
                    time_us,
                    blocker_timed_out,
                    sm_mhz: self.clocks.as_ref().map(|c| vec![c.sm_mhz()]),
                    detail: (),
                })
            },
            || sampling.elapsed().as_secs_f64(),
        );
        if policy.budget_s.is_finite() {
            self.ledger.spend(started.elapsed().as_secs_f64());
            self.ledger.size_done();
        }
        Ok(outcome?.0)
    }

    /// One cold sample; returns microseconds and whether the blocker timed out.
    fn one_cold<R, W>(&mut self, reset: &mut R, work: &mut W) -> Result<(f64, bool), RunError>
    where
        R: FnMut(&Arc<CudaStream>) -> Result<(), DriverError>,
        W: FnMut(&Arc<CudaStream>) -> Result<(), DriverError>,
    {
        self.one_sample(Sampling::COLD, reset, work)
    }

    /// One sample as `how` says; returns microseconds and whether the
    /// blocker timed out.
    fn one_sample<R, W>(
        &mut self,
        how: Sampling,
        reset: &mut R,
        work: &mut W,
    ) -> Result<(f64, bool), RunError>
    where
        R: FnMut(&Arc<CudaStream>) -> Result<(), DriverError>,
        W: FnMut(&Arc<CudaStream>) -> Result<(), DriverError>,
    {
        reset(&self.stream).map_err(classify_queue_error)?;
        if how.flush {
            self.flush_l2().map_err(classify_queue_error)?;
        }
        if how.blocked {
            self.blocked_interval(work)
        } else {
            self.interval(work).map(|t| (t, false))
        }
    }

    /// Times what `enqueue` queues between one event pair, without the
    /// blocking kernel: the host's time queueing it falls inside.
    fn interval<W>(&mut self, enqueue: &mut W) -> Result<f64, RunError>
    where
        W: FnMut(&Arc<CudaStream>) -> Result<(), DriverError>,
    {
        let stream = self.stream.clone();
        let us = self
            .streams
            .unblocked(|| enqueue(&stream).map_err(classify_queue_error))?;
        Ok(us[0])
    }

    /// Times what `enqueue` queues between one event pair, with the
    /// blocking kernel holding the stream until everything is queued.
    /// Returns microseconds and whether the blocker timed out.
    fn blocked_interval<W>(&mut self, enqueue: &mut W) -> Result<(f64, bool), RunError>
    where
        W: FnMut(&Arc<CudaStream>) -> Result<(), DriverError>,
    {
        let stream = self.stream.clone();
        let (us, timed_out) = self
            .streams
            .blocked(|| enqueue(&stream).map_err(classify_queue_error))?;
        Ok((us[0], timed_out))
    }

    /// Hot figure: `work` repeated back to back with L2 warm and nothing in
    /// between, median per repetition over 10 samples, microseconds; its
    /// time counts against the example's budget (a size the budget ended
    /// has none: the caller skips it).
    pub fn hot<W>(&mut self, mut work: W) -> Result<f64, RunError>
    where
        W: FnMut(&Arc<CudaStream>) -> Result<(), DriverError>,
    {
        let started = std::time::Instant::now();
        let mut nothing = |_: &Arc<CudaStream>| Ok(());
        let (single, _) = self.one_cold(&mut nothing, &mut work)?;
        let reps = ((200.0 / single.max(0.5)).ceil() as usize).clamp(1, 100);
        let mut repeated = |s: &Arc<CudaStream>| (0..reps).try_for_each(|_| work(s));
        let mut times = Vec::new();
        for _ in 0..11 {
            let (t, _) = self.blocked_interval(&mut repeated)?;
            times.push(t / reps as f64);
        }
        self.ledger.spend(started.elapsed().as_secs_f64());
        Ok(median(&times[1..]))
    }

    fn flush_l2(&mut self) -> Result<(), DriverError> {
        // Alternate the value so no memory system can skip a repeated write.
        self.flush_value = self.flush_value.wrapping_add(1);
        let len = self.flush.len();
        let (ptr, _sync) =
            cudarc::driver::DevicePtrMut::device_ptr_mut(&mut self.flush, &self.stream);
        // SAFETY: ptr addresses the whole flush allocation.
        unsafe { result::memset_d8_async(ptr, self.flush_value, len, self.stream.cu_stream()) }
    }

    /// The copy ceiling at one size: the median cold time, µs, of the
    /// support copy kernel moving `bytes` in all (half read, half
    /// written, as a kernel that reads once and writes once does), with
    /// the example's `policy`. A kernel of a few hundred MiB may end with
    /// part of its writes still in L2, as this copy may; the 4 GiB
    /// ceiling of [`Timer::ceilings`] cannot show that.
    pub fn copy_at(&mut self, bytes: u64, policy: &Policy) -> anyhow::Result<f64> {
        let n4 = (bytes / 32).max(1);
        // SAFETY: src is filled below before the copy reads it; dst is
        // only written.
        let mut src = unsafe { self.stream.alloc::<u8>((n4 * 16) as usize)? };
        let dst = unsafe { self.stream.alloc::<u8>((n4 * 16) as usize)? };
        {
            let (p, _s) = cudarc::driver::DevicePtrMut::device_ptr_mut(&mut src, &self.stream);
            // SAFETY: p addresses the whole allocation; 0x3f bytes are finite floats.
            unsafe {
                result::memset_d8_async(p, 0x3f, (n4 * 16) as usize, self.stream.cu_stream())?
            };
        }
        let cfg = copy_config(n4);
        let copy = self.copy.clone();
        let (src_ptr, dst_ptr) = {
            let (s, _a) = cudarc::driver::DevicePtr::device_ptr(&src, &self.stream);
            let (d, _b) = cudarc::driver::DevicePtr::device_ptr(&dst, &self.stream);
            (s, d)
        };
        let mut nothing = |_: &Arc<CudaStream>| Ok(());
        let t = self
            .cold(&policy.unbudgeted(), &mut nothing, |s| {
                let mut b = s.launch_builder(&copy);
                b.arg(&src_ptr).arg(&dst_ptr).arg(&n4);
                // SAFETY: both buffers hold n4 float4 values.
                unsafe { b.launch(cfg) }.map(|_| ())
            })?
            .median();
        drop((src, dst));
        self.ctx.synchronize()?;
        Ok(t)
    }

    /// Measures the read and copy ceilings and the launch floor.
    /// `policy` is the example's sampling policy (its time-out is capped
    /// at 2 s here).
    pub fn ceilings(&mut self, policy: &Policy) -> anyhow::Result<Ceilings> {
        // As many bytes as the largest example reads (2^30 floats), so the
        // fixed costs of a cold sample (the flush's dirty lines, ramp-up)
        // weigh on the ceiling no more than on the examples.
        let bytes = (8 * self.l2_bytes).max(4 << 30);
        let n4 = bytes / 16;
        // SAFETY: filled by the memsets below before any kernel reads them.
        let mut src = unsafe { self.stream.alloc::<u8>(bytes as usize)? };
        let mut dst = unsafe { self.stream.alloc::<u8>(bytes as usize)? };
        self.stream.memset_zeros(&mut dst)?;
        {
            let (p, _s) = cudarc::driver::DevicePtrMut::device_ptr_mut(&mut src, &self.stream);
            // SAFETY: p addresses the whole allocation; 0x3f bytes are finite floats.
            unsafe { result::memset_d8_async(p, 0x3f, bytes as usize, self.stream.cu_stream())? };
        }
        let grid = self.sm_count * 4;
        let cfg = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (512, 1, 1),
            shared_mem_bytes: 0,
        };
        let policy = Policy {
            timeout_s: policy.timeout_s.min(2.0),
            ..policy.unbudgeted()
        };
        let read = self.read.clone();
        let copy = self.copy.clone();
        let empty = self.empty.clone();
        let (src_ptr, dst_ptr) = {
            let (s, _a) = cudarc::driver::DevicePtr::device_ptr(&src, &self.stream);
            let (d, _b) = cudarc::driver::DevicePtr::device_ptr(&dst, &self.stream);
            (s, d)
        };
        let mut nothing = |_: &Arc<CudaStream>| Ok(());
        let read_t = self
            .cold(&policy, &mut nothing, |s| {
                let mut b = s.launch_builder(&read);
                b.arg(&src_ptr).arg(&n4).arg(&dst_ptr);
                // SAFETY: arguments match cm_read; dst is large enough for the sink.
                unsafe { b.launch(cfg) }.map(|_| ())
            })?
            .median();
        let half4 = n4 / 2;
        let dst_half = dst_ptr + half4 * 16;
        let copy_t = self
            .cold(&policy, &mut nothing, |s| {
                let mut b = s.launch_builder(&copy);
                b.arg(&src_ptr).arg(&dst_half).arg(&half4);
                // SAFETY: both ranges hold half4 float4 values inside their buffers.
                unsafe { b.launch(copy_config(half4)) }.map(|_| ())
            })?
            .median();
        let floor = self
            .cold(&policy, &mut nothing, |s| {
                let one = LaunchConfig {
                    grid_dim: (1, 1, 1),
                    block_dim: (32, 1, 1),
                    shared_mem_bytes: 0,
                };
                let mut b = s.launch_builder(&empty);
                // SAFETY: cm_empty takes no arguments.
                unsafe { b.launch(one) }.map(|_| ())
            })?
            .median();
        drop((src, dst));
        self.ctx.synchronize()?;
        Ok(Ceilings {
            read_gbs: bytes as f64 / (read_t * 1e-6) / 1e9,
            copy_gbs: (2 * half4 * 16) as f64 / (copy_t * 1e-6) / 1e9,
            launch_floor_us: floor,
            buffer_bytes: bytes,
            named: Default::default(),
        })
    }
}

impl Timer {
    /// The default SM clock (the driver's `CLOCK_RATE`), MHz.
    pub fn default_clock_mhz(&self) -> f64 {
        self.default_clock_mhz
    }

    /// The FP32 FMA ceiling: `cm_fma` (FMA_CHAINS independent chains of
    /// `fmaf` per thread, 64 warps on every SM), cold samples with the
    /// example's `policy` (time-out capped at 2 s), in TFLOP/s at 2 FLOP
    /// per FMA; beside it the datasheet figure of the same device, its
    /// default clock x SMs x 128 FP32 lanes x 2.
    pub fn fma_ceiling(&mut self, policy: &Policy) -> anyhow::Result<MeasuredCeiling> {
        let blocks = self.sm_count * FMA_BLOCKS_PER_SM;
        // SAFETY: the sink is written only under a condition the chains
        // never meet, and then by one thread.
        let sink = unsafe { self.stream.alloc::<f32>(1)? };
        let sink_ptr = {
            let (p, _s) = cudarc::driver::DevicePtr::device_ptr(&sink, &self.stream);
            p
        };
        let fma = self.fma.clone();
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (FMA_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let policy = Policy {
            timeout_s: policy.timeout_s.min(2.0),
            ..policy.unbudgeted()
        };
        let (a, b) = (0.999_f32, 0.001_f32);
        let mut nothing = |_: &Arc<CudaStream>| Ok(());
        let samples = self.cold(&policy, &mut nothing, |s| {
            let mut l = s.launch_builder(&fma);
            l.arg(&FMA_ITERATIONS).arg(&a).arg(&b).arg(&sink_ptr);
            // SAFETY: arguments match cm_fma's signature.
            unsafe { l.launch(cfg) }.map(|_| ())
        })?;
        drop(sink);
        let flop = 2.0
            * (FMA_CHAINS * u64::from(FMA_ITERATIONS)) as f64
            * f64::from(blocks)
            * f64::from(FMA_BLOCK);
        Ok(MeasuredCeiling {
            value: flop / (samples.median() * 1e-6) / 1e12,
            unit: reports::FP32_FMA.unit.to_string(),
            peak: Some(
                self.default_clock_mhz * 1e6 * f64::from(self.sm_count) * 128.0 * 2.0 / 1e12,
            ),
            sm_clock_mhz: (samples.sm_clock_mhz > 0.0).then_some(samples.sm_clock_mhz),
        })
    }

    /// The pinned host-link ceiling of `direction`: one cuMemcpy of
    /// [`HOST_LINK_BYTES`] between page-locked host memory and the device,
    /// cold and blocked as a kernel is, with the example's `policy`
    /// (time-out capped at 2 s), in GB/s.
    pub fn host_link_ceiling(
        &mut self,
        direction: Direction,
        policy: &Policy,
    ) -> anyhow::Result<MeasuredCeiling> {
        let bytes = HOST_LINK_BYTES;
        // SAFETY: plain page-locked memory (no write-combining, which the
        // CPU reads slowly), filled below before any copy reads it.
        let mut host = unsafe { self.ctx.alloc_pinned_with_flags::<u8>(bytes, 0)? };
        host.as_mut_slice()?.fill(0x3f);
        // SAFETY: zeroed below before a copy reads it.
        let mut dev = unsafe { self.stream.alloc::<u8>(bytes)? };
        self.stream.memset_zeros(&mut dev)?;
        self.stream.synchronize()?;
        let host_ptr = host.as_mut_ptr()?;
        let dev_ptr = {
            let (p, _s) = cudarc::driver::DevicePtr::device_ptr(&dev, &self.stream);
            p
        };
        let policy = Policy {
            timeout_s: policy.timeout_s.min(2.0),
            ..policy.unbudgeted()
        };
        let mut nothing = |_: &Arc<CudaStream>| Ok(());
        let copy = host_copy(direction, host_ptr, dev_ptr, bytes);
        let t = self.cold(&policy, &mut nothing, copy)?.median();
        self.stream.synchronize()?;
        drop((host, dev));
        Ok(MeasuredCeiling {
            value: bytes as f64 / (t * 1e-6) / 1e9,
            unit: direction.ceiling().unit.to_string(),
            peak: None,
            sm_clock_mhz: None,
        })
    }

    /// The named ceiling `ceiling`, measured.
    pub fn named_ceiling(
        &mut self,
        ceiling: reports::NamedCeiling,
        policy: &Policy,
    ) -> anyhow::Result<MeasuredCeiling> {
        match ceiling.name {
            n if n == reports::FP32_FMA.name => self.fma_ceiling(policy),
            n if n == reports::H2D_PINNED.name => self.host_link_ceiling(Direction::H2d, policy),
            n if n == reports::D2H_PINNED.name => self.host_link_ceiling(Direction::D2h, policy),
            other => anyhow::bail!("the runner cannot measure a ceiling called `{other}`"),
        }
    }
}

/// A copy of `bytes` between `host` and `dev` in `direction`, queued on
/// the stream it is given: the work of a host-link sample.
///
/// The pointers must address `bytes` bytes each for as long as the copy
/// is queued; host memory that is not page-locked makes the call wait on
/// the stream, so it must not be queued behind the blocking kernel.
pub fn host_copy(
    direction: Direction,
    host: *mut u8,
    dev: sys::CUdeviceptr,
    bytes: usize,
) -> impl FnMut(&Arc<CudaStream>) -> Result<(), DriverError> {
    move |s: &Arc<CudaStream>| {
        // SAFETY: the caller keeps both allocations of `bytes` bytes alive
        // while the copy is queued (the timer synchronises every sample).
        unsafe {
            match direction {
                Direction::H2d => {
                    sys::cuMemcpyHtoDAsync_v2(dev, host.cast(), bytes, s.cu_stream()).result()
                }
                Direction::D2h => {
                    sys::cuMemcpyDtoHAsync_v2(host.cast(), dev, bytes, s.cu_stream()).result()
                }
            }
        }
    }
}

impl Timer {
    /// A copy of `bytes` (a multiple of 16) from `src` to `dst` by the
    /// support copy kernel, one float4 per thread: the copy of a
    /// `transfer` from or to mapped host memory, one end of which is the
    /// device's address of that memory.
    pub fn mapped_copy(
        &self,
        src: sys::CUdeviceptr,
        dst: sys::CUdeviceptr,
        bytes: u64,
    ) -> impl FnMut(&Arc<CudaStream>) -> Result<(), DriverError> + use<> {
        let copy = self.copy.clone();
        let n4 = bytes / 16;
        let cfg = copy_config(n4);
        move |s: &Arc<CudaStream>| {
            let mut b = s.launch_builder(&copy);
            b.arg(&src).arg(&dst).arg(&n4);
            // SAFETY: both ends hold `bytes` bytes, n4 whole float4s (the
            // declaration refuses a mapped size that is not a multiple of
            // 16), and the caller keeps them alive while the copy is queued.
            unsafe { b.launch(cfg) }.map(|_| ())
        }
    }
}

/// `cm_copy`'s launch: one float4 per thread, 256 threads a block.
fn copy_config(n4: u64) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (u32::try_from(n4.div_ceil(256)).unwrap_or(u32::MAX), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}
