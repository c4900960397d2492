//! The ranks of a run: one GPU each (ordinals 0..k under
//! `CUDA_VISIBLE_DEVICES`), its primary context (the one NCCL uses too), a
//! stream of its own, what the driver says the GPU is, and peer access
//! between every pair of distinct GPUs.

use anyhow::{Context, Result, bail};
use cuda_measured_core::allreduce::report::{RankGpu, uuid_string};
use cudarc::driver::{CudaContext, CudaStream, sys};
use std::ffi::{CStr, c_char};
use std::sync::Arc;

/// One rank's GPU.
pub struct Rank {
    /// The rank (its GPU's ordinal).
    pub index: usize,
    /// The GPU's primary context.
    pub ctx: Arc<CudaContext>,
    /// The stream every piece of this rank's work runs on.
    pub stream: Arc<CudaStream>,
    /// The GPU, as the report names it.
    pub gpu: RankGpu,
    /// `sm_90` for compute capability 9.0.
    pub arch: String,
}

/// Opens GPUs 0..`count`. Buffers here are raw allocations and every
/// stream is ordered by hand, so cudarc's event tracking is off: it would
/// record events on other ranks' work inside the timed region.
pub fn open(count: usize) -> Result<Vec<Rank>> {
    let visible = CudaContext::device_count().context("counting the GPUs")? as usize;
    if count > visible {
        bail!("--gpus {count}: only {visible} GPU(s) are visible");
    }
    (0..count)
        .map(|index| {
            let ctx = CudaContext::new(index).with_context(|| format!("opening GPU {index}"))?;
            // SAFETY: no CudaSlice is made in these contexts before this
            // call; the all-reduce orders its streams itself (barriers and
            // synchronisations in ours.rs, nccl.rs and timing.rs).
            unsafe { ctx.disable_event_tracking() };
            let stream = ctx.new_stream()?;
            let gpu = identity(&ctx, index)?;
            let arch = format!("sm_{}", gpu.compute_capability.replace('.', ""));
            Ok(Rank {
                index,
                ctx,
                stream,
                gpu,
                arch,
            })
        })
        .collect()
}

/// What the driver says rank `index`'s GPU is.
fn identity(ctx: &Arc<CudaContext>, index: usize) -> Result<RankGpu> {
    use sys::CUdevice_attribute as A;
    let (major, minor) = ctx.compute_capability()?;
    let uuid = ctx.uuid()?;
    let bytes: [u8; 16] = uuid.bytes.map(|b| b as u8);
    let mut bus = [0 as c_char; 32];
    // SAFETY: the buffer holds 32 chars, the length passed.
    unsafe { sys::cuDeviceGetPCIBusId(bus.as_mut_ptr(), bus.len() as i32, ctx.cu_device()) }
        .result()?;
    // SAFETY: the driver wrote a NUL-terminated string into the buffer.
    let pci_bus_id = unsafe { CStr::from_ptr(bus.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    Ok(RankGpu {
        rank: index,
        ordinal: ctx.ordinal(),
        name: ctx.name()?,
        uuid: uuid_string(&bytes),
        pci_bus_id,
        compute_capability: format!("{major}.{minor}"),
        sm_count: ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
        memory_bytes: ctx.total_mem()? as u64,
        default_sm_clock_mhz: f64::from(ctx.attribute(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?) / 1000.0,
    })
}

/// `can[r][s]`: whether rank r's GPU can read rank s's memory, as
/// `cuDeviceCanAccessPeer` says (a GPU always reads its own).
pub fn peer_access(ranks: &[Rank]) -> Result<Vec<Vec<bool>>> {
    ranks
        .iter()
        .map(|r| {
            ranks
                .iter()
                .map(|s| {
                    if r.index == s.index {
                        return Ok(true);
                    }
                    let mut can = 0;
                    // SAFETY: both are valid devices; `can` is written.
                    unsafe {
                        sys::cuDeviceCanAccessPeer(&mut can, r.ctx.cu_device(), s.ctx.cu_device())
                    }
                    .result()?;
                    Ok(can != 0)
                })
                .collect()
        })
        .collect()
}

/// Enables peer access from every rank's context to every other rank's;
/// fails, naming the pair, where `can` says a pair cannot. With one rank
/// there is no pair and nothing is enabled: the kernels read the rank's
/// own buffers, the same code path.
pub fn enable_peer_access(ranks: &[Rank], can: &[Vec<bool>]) -> Result<()> {
    for r in ranks {
        for s in ranks.iter().filter(|s| s.index != r.index) {
            if !can[r.index][s.index] {
                bail!(
                    "GPU {} ({}, {}) cannot read GPU {}'s memory ({}, {}): cuDeviceCanAccessPeer says no, \
                     and the one-shot and two-shot kernels read every peer's buffers directly; \
                     run NCCL alone with --impls nccl,nccl-inplace",
                    r.index,
                    r.gpu.name,
                    r.gpu.pci_bus_id,
                    s.index,
                    s.gpu.name,
                    s.gpu.pci_bus_id
                );
            }
            r.ctx.bind_to_thread()?;
            // SAFETY: both contexts are live primary contexts; access is
            // from the current context (r's) to s's.
            let enabled = unsafe { sys::cuCtxEnablePeerAccess(s.ctx.cu_ctx(), 0) };
            if enabled != sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
                enabled.result().with_context(|| {
                    format!("enabling GPU {}'s access to GPU {}", r.index, s.index)
                })?;
            }
        }
    }
    Ok(())
}

/// The least free memory over the ranks' GPUs, bytes.
pub fn least_free(ranks: &[Rank]) -> Result<u64> {
    let mut least = u64::MAX;
    for r in ranks {
        r.ctx.bind_to_thread()?;
        least = least.min(r.ctx.mem_get_info()?.0 as u64);
    }
    Ok(least)
}

/// Waits for every rank's stream.
pub fn synchronize(ranks: &[Rank]) -> Result<(), cudarc::driver::DriverError> {
    ranks.iter().try_for_each(|r| r.stream.synchronize())
}
