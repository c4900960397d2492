//! The run of a `transfer` example: copies between host and device memory
//! with no kernel of ours, timed by the method's event timer
//! ([`crate::measure::Timer::sample`]) and checked byte for byte
//! (`cuda_measured_core::problem::transfer`).
//!
//! A copy from or to page-locked memory is queued behind the blocking
//! kernel and flushed cold, as a kernel is. A copy from or to pageable
//! memory is not blocked: the driver stages it through its own page-locked
//! buffer and may wait on the stream inside the call, which a stream held
//! by the blocking kernel would not let it do until the blocker gave up;
//! so its interval includes the host's part of the copy, which is what a
//! pageable copy costs a program. Mapped host memory is not copied by the
//! driver: the support copy kernel reads or writes it through its device
//! pointer ([`Timer::mapped_copy`]), blocked and flushed as a kernel is.

use crate::figures;
use crate::measure::{self, Ceilings, RunError, Sampling, Timer};
use crate::problem::transfer::{self, HostMemory, TransferSpec};
use crate::problem::{Data, Direction, Elem, Instance, Problem, Shape, cache::SharedData};
use crate::record::{Record, SizeResult, Status};
use crate::size::Size;
use cuda_measured_core::problem::draw::INPUT_SEED;
use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DevicePtr, DriverError, PinnedHostSlice, sys,
};
use std::sync::Arc;
use std::time::Instant;

/// Skip the hot figure when one copy already takes this long (µs).
const HOT_LIMIT_US: f64 = 10_000.0;

/// What a transfer's run needs of the example's.
pub struct Context<'a> {
    /// The context everything runs in.
    pub ctx: &'a Arc<CudaContext>,
    /// The example.
    pub example: &'a crate::example::Example,
    /// Its problem (a [`transfer::Transfer`]).
    pub problem: &'a dyn Problem,
    /// Its `[transfer]` table.
    pub spec: TransferSpec,
    /// The sampling policy of this process.
    pub policy: &'a measure::Policy,
    /// This process's number, for sample dumps.
    pub process: usize,
    /// Where the measuring processes share prepared data.
    pub data_dir: Option<&'a std::path::Path>,
    /// Where raw samples are written, if anywhere.
    pub samples_dir: Option<&'a std::path::Path>,
    /// Datasheet memory bandwidth, GB/s.
    pub peak_gbs: f64,
    /// L2 bytes.
    pub l2_bytes: u64,
    /// The session's ceilings, the host link of the copy's direction among
    /// them.
    pub ceilings: &'a Ceilings,
}

/// A copy as the timer queues it on a stream: the driver's, or the
/// support copy kernel's for mapped memory.
type QueuedCopy = dyn FnMut(&Arc<CudaStream>) -> Result<(), DriverError>;

/// The host end of a copy.
enum HostEnd {
    Pinned(PinnedHostSlice<u8>),
    Pageable(Vec<u8>),
    /// Page-locked and mapped into the device's address space.
    Mapped(PinnedHostSlice<u8>),
}

impl HostEnd {
    fn new(ctx: &Arc<CudaContext>, memory: HostMemory, n: usize) -> Result<Self, DriverError> {
        Ok(match memory {
            // SAFETY: plain page-locked memory (not write-combined, which
            // the check reads back slowly), filled before any copy reads it.
            HostMemory::Pinned => HostEnd::Pinned(unsafe { ctx.alloc_pinned_with_flags(n, 0)? }),
            HostMemory::Pageable => HostEnd::Pageable(vec![0u8; n]),
            // SAFETY: as for pinned memory, mapped for the device too.
            HostMemory::Mapped => HostEnd::Mapped(unsafe {
                ctx.alloc_pinned_with_flags(n, sys::CU_MEMHOSTALLOC_DEVICEMAP)?
            }),
        })
    }

    fn bytes_mut(&mut self) -> Result<&mut [u8], DriverError> {
        match self {
            HostEnd::Pinned(p) | HostEnd::Mapped(p) => p.as_mut_slice(),
            HostEnd::Pageable(v) => Ok(v.as_mut_slice()),
        }
    }

    fn ptr(&mut self) -> Result<*mut u8, DriverError> {
        match self {
            HostEnd::Pinned(p) | HostEnd::Mapped(p) => p.as_mut_ptr(),
            HostEnd::Pageable(v) => Ok(v.as_mut_ptr()),
        }
    }

    /// The device's address of mapped host memory.
    fn device_ptr(&mut self) -> Result<sys::CUdeviceptr, DriverError> {
        let host = self.ptr()?;
        let mut dev: sys::CUdeviceptr = 0;
        // SAFETY: `host` is the start of a live allocation made with
        // CU_MEMHOSTALLOC_DEVICEMAP in the current context; flags must be 0.
        unsafe { sys::cuMemHostGetDevicePointer_v2(&mut dev, host.cast(), 0) }.result()?;
        Ok(dev)
    }
}

/// Times and checks every declared size into `record` and `samples_us`.
pub fn run_sizes(
    c: &Context<'_>,
    timer: &mut Timer,
    record: &mut Record,
    samples_us: &mut Vec<Vec<f64>>,
    phases: &mut Phases,
) -> Result<(), RunError> {
    for size in &c.example.declaration.sizes {
        let (result, times) = run_size(c, timer, size.n_value(), phases).map_err(|e| match e {
            Failure::Run(e) => e,
            Failure::Driver(e) => measure::classify_queue_error(e),
        })?;
        if !result.pass && record.message.is_empty() {
            record.message = format!("wrong at n = {size} bytes: the copy differs from its source");
        }
        record.sizes.push(result);
        samples_us.push(times);
    }
    record.status = if record.sizes.iter().all(|s| s.pass) {
        Status::Pass
    } else {
        Status::Wrong
    };
    Ok(())
}

/// Seconds a transfer's run spent outside its timed copies: preparing the
/// data and host memory, and checking the copy (the record's `inputs_s`
/// and `checks_s`).
#[derive(Debug, Default)]
pub struct Phases {
    /// Drawing or mapping the data, allocating and filling both ends.
    pub inputs_s: f64,
    /// Reading the destination back and comparing it with the source.
    pub checks_s: f64,
}

enum Failure {
    Run(RunError),
    Driver(DriverError),
}

impl From<RunError> for Failure {
    fn from(e: RunError) -> Self {
        Failure::Run(e)
    }
}

impl From<DriverError> for Failure {
    fn from(e: DriverError) -> Self {
        Failure::Driver(e)
    }
}

fn run_size(
    c: &Context<'_>,
    timer: &mut Timer,
    n: u64,
    phases: &mut Phases,
) -> Result<(SizeResult, Vec<f64>), Failure> {
    let stream = timer.stream().clone();
    let instance = Instance {
        shape: Shape::flat(n),
        dtype: Elem::I32,
    };
    let len = n as usize;
    let drawn = Instant::now();
    let prepared = SharedData::open(c.data_dir, c.problem, &instance, INPUT_SEED, Data::Timed);
    let mut host = HostEnd::new(c.ctx, c.spec.host, len)?;
    // SAFETY: written (poisoned or filled) below before anything reads it.
    let mut dev: CudaSlice<u8> = unsafe { stream.alloc::<u8>(len.max(1))? };
    let dev_ptr = dev.device_ptr(&stream).0;
    // The source holds the data, the destination a poison that a byte the
    // copy never wrote keeps (0xff; a drawn byte is 0xff one time in 256).
    {
        let source = &prepared
            .input_bytes(transfer::DATA)
            .expect("a transfer prepares its data")[..len];
        match c.spec.direction {
            Direction::H2d => host.bytes_mut()?.copy_from_slice(source),
            Direction::D2h => stream.memcpy_htod(source, &mut dev)?,
        }
    }
    // The source's GPU digest, once per session: the check compares the
    // destination's with it on the GPU instead of reading a GiB back to
    // compare byte by byte (about 3 s a process at 1 GiB, measured on the
    // H200). A copy to the device digests its source uploaded by the
    // driver into the destination before the poison; a copy from it, the
    // device source just uploaded.
    let digest = timer.answer_digest();
    let source_digest = crate::problem::cache::once_per_session(
        c.data_dir,
        &format!(
            "digest-{}",
            crate::problem::cache::data_key(c.problem, &instance, INPUT_SEED, Data::Timed)
        ),
        || -> Result<[u64; 2], DriverError> {
            if c.spec.direction == Direction::H2d {
                stream.memcpy_htod(&*host.bytes_mut()?, &mut dev)?;
            }
            digest.of(&dev, &stream)
        },
    )?;
    poison_destination(c.spec.direction, &dev, &mut host, &stream)?;
    stream.synchronize()?;
    phases.inputs_s += drawn.elapsed().as_secs_f64();
    let mut copy: Box<QueuedCopy> = match c.spec.host {
        HostMemory::Mapped => {
            let mapped = host.device_ptr()?;
            let (src, dst) = match c.spec.direction {
                Direction::H2d => (mapped, dev_ptr),
                Direction::D2h => (dev_ptr, mapped),
            };
            Box::new(timer.mapped_copy(src, dst, n))
        }
        _ => Box::new(measure::host_copy(
            c.spec.direction,
            host.ptr()?,
            dev_ptr,
            len,
        )),
    };
    copy(&stream)?;
    stream.synchronize()?;
    let sampling = match c.spec.host {
        HostMemory::Pinned | HostMemory::Mapped => Sampling::COLD,
        HostMemory::Pageable => Sampling::UNBLOCKED,
    };
    // The destination is poisoned again before every timed copy, outside
    // its interval, so the check after the samples sees what the last
    // timed copy wrote: one that wrote nothing leaves the poison and fails
    // (without this the bytes of the checked copy above would pass it).
    let mut repoison = |s: &Arc<CudaStream>| {
        poison_destination(c.spec.direction, &dev, &mut host, s)?;
        s.synchronize()
    };
    let samples = timer.sample(c.policy, sampling, &mut repoison, &mut copy)?;
    crate::diagnostics::dump_samples(
        c.samples_dir,
        &c.example.id,
        n,
        c.process,
        &samples.times_us,
    );
    // One check, of what the last timed copy wrote into a poisoned
    // destination: a copy that skipped a byte leaves 0xff there. The
    // destination's GPU digest equal to the source's passes it (a copy
    // from the device digests the host's bytes uploaded by the driver);
    // any other is compared byte by byte, to say which bytes differ.
    let checked = Instant::now();
    let landed = match c.spec.direction {
        Direction::H2d => digest.of(&dev, &stream)?,
        Direction::D2h => {
            // SAFETY: written whole by the upload before it is digested.
            let mut back: CudaSlice<u8> = unsafe { stream.alloc::<u8>(len.max(1))? };
            stream.memcpy_htod(&*host.bytes_mut()?, &mut back)?;
            digest.of(&back, &stream)?
        }
    };
    let verdict = if landed == source_digest {
        transfer::all_equal(len)
    } else {
        // The source's bytes are compared where they lie (the session's
        // mapped data file), not copied out first.
        let source = prepared
            .input_bytes(transfer::DATA)
            .expect("a transfer prepares its data");
        match c.spec.direction {
            Direction::H2d => {
                let mut back = vec![0u8; len];
                stream.memcpy_dtoh(&dev, &mut back)?;
                stream.synchronize()?;
                transfer::compare(source, &back, len)
            }
            Direction::D2h => transfer::compare(source, host.bytes_mut()?, len),
        }
    };
    phases.checks_s += checked.elapsed().as_secs_f64();
    let hot_median_us = match c.spec.host {
        HostMemory::Pinned | HostMemory::Mapped
            if samples.median() < HOT_LIMIT_US && samples.budget.is_none() =>
        {
            Some(timer.hot(&mut copy)?)
        }
        _ => None,
    };
    let mut figures = SizeResult {
        n: Size(n),
        bytes: n,
        launches: vec![c.spec.describe()],
        hot_median_us,
        sm_clock_mhz: samples.sm_clock_mhz,
        throttled_dropped: samples.throttled,
        budget: samples.budget,
        error: verdict.error,
        tolerance: verdict.tolerance,
        pass: verdict.pass,
        ..SizeResult::default()
    };
    figures::set_kind(&mut figures, c.problem.reports());
    let reference = figures::Reference {
        peak_gbs: c.peak_gbs,
        l2_bytes: c.l2_bytes,
        ceilings: c.ceilings,
    };
    figures::derive(&mut figures, &samples.times_us, samples.noisy, &reference);
    figures::hold_to_ceiling(&mut figures, c.ceilings);
    stream.synchronize()?;
    drop(dev);
    Ok((figures, samples.times_us))
}

/// Fills `dev` with 0xff bytes.
/// Fills the copy's destination with the poison (0xff): the device buffer
/// for a copy to the device, the host buffer for a copy from it (after the
/// stream's work, so no copy still writes it).
fn poison_destination(
    direction: Direction,
    dev: &CudaSlice<u8>,
    host: &mut HostEnd,
    stream: &Arc<CudaStream>,
) -> Result<(), DriverError> {
    match direction {
        Direction::H2d => poison(dev, stream),
        Direction::D2h => {
            stream.synchronize()?;
            host.bytes_mut()?.fill(0xff);
            Ok(())
        }
    }
}

fn poison(dev: &CudaSlice<u8>, stream: &Arc<CudaStream>) -> Result<(), DriverError> {
    let (ptr, _sync) = dev.device_ptr(stream);
    // SAFETY: ptr addresses dev.len() bytes of a live allocation.
    unsafe { cudarc::driver::result::memset_d8_async(ptr, 0xff, dev.len(), stream.cu_stream()) }
}
