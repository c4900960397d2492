//! NCCL's all-reduce through cudarc's `nccl` feature: one process drives
//! all k ranks (`ncclCommInitAll`), each all-reduce a group call
//! (`ncclGroupStart`, one `ncclAllReduce` per rank on its stream,
//! `ncclGroupEnd`), as nccl-tests does with `-g k`. cudarc's `result`
//! layer is used rather than its `Comm`, whose calls take cudarc's device
//! slices (stream-ordered pool memory, see `buffers`) and whose handle is
//! private.

use super::buffers::Buffers;
use super::ranks::Rank;
use anyhow::{Result, anyhow};
use cuda_measured_core::allreduce::nccl_library::version_string;
use cudarc::nccl::{result, sys};
use std::ffi::CStr;

/// One communicator per rank, destroyed on drop.
pub struct Nccl {
    comms: Vec<sys::ncclComm_t>,
    streams: Vec<sys::cudaStream_t>,
    /// `2.27.3`.
    pub version: String,
}

impl Nccl {
    /// Creates the communicators of `ranks`. NCCL reads its environment
    /// here: the runner has set `NCCL_NVLS_ENABLE=0` before.
    pub fn init(ranks: &[Rank]) -> Result<Self> {
        let version = result::get_nccl_version().map_err(|e| failure(e, "ncclGetVersion"))?;
        let ordinals: Vec<i32> = ranks.iter().map(|r| r.ctx.ordinal() as i32).collect();
        let mut comms = vec![std::ptr::null_mut(); ranks.len()];
        // SAFETY: `comms` has room for one communicator per ordinal.
        unsafe { result::comm_init_all(comms.as_mut_ptr(), comms.len() as i32, ordinals.as_ptr()) }
            .map_err(|e| failure(e, "ncclCommInitAll"))?;
        Ok(Nccl {
            comms,
            streams: ranks.iter().map(|r| r.stream.cu_stream() as _).collect(),
            version: version_string(version),
        })
    }

    /// Queues one f32-sum all-reduce of `bufs` on every rank's stream:
    /// input to output, or in place in the output.
    pub fn all_reduce(&self, bufs: &Buffers, in_place: bool) -> Result<()> {
        result::group_start().map_err(|e| failure(e, "ncclGroupStart"))?;
        let mut queued = Ok(());
        for (r, (&comm, &stream)) in self.comms.iter().zip(&self.streams).enumerate() {
            let out = bufs.outputs[r].ptr();
            let src = if in_place { out } else { bufs.inputs[r].ptr() };
            // SAFETY: both buffers hold `n` floats on rank r's GPU and
            // live until the streams are synchronised.
            let call = unsafe {
                result::all_reduce(
                    src as *const _,
                    out as *mut _,
                    bufs.n as usize,
                    sys::ncclDataType_t::ncclFloat32,
                    sys::ncclRedOp_t::ncclSum,
                    comm,
                    stream,
                )
            };
            if let Err(e) = call {
                queued = Err(failure(e, "ncclAllReduce"));
                break;
            }
        }
        // The group is closed whatever happened inside it.
        let ended = result::group_end()
            .map(|_| ())
            .map_err(|e| failure(e, "ncclGroupEnd"));
        queued.and(ended)
    }
}

impl Drop for Nccl {
    fn drop(&mut self) {
        for &comm in &self.comms {
            // SAFETY: each communicator was created by ncclCommInitAll and
            // is destroyed once, after the sweep synchronised every stream.
            let _ = unsafe { result::comm_destroy(comm) };
        }
    }
}

/// An NCCL error with NCCL's own words for it.
fn failure(e: result::NcclError, call: &str) -> anyhow::Error {
    // SAFETY: both return static or library-owned NUL-terminated strings
    // (or null); the communicator argument is unused by NCCL.
    let (what, last) = unsafe {
        let what = sys::ncclGetErrorString(e.0);
        let last = sys::ncclGetLastError(std::ptr::null_mut());
        (text(what), text(last))
    };
    anyhow!(
        "{call} failed: {:?} ({}){}",
        e.0,
        what.unwrap_or_default(),
        last.map_or(String::new(), |l| format!(": {l}"))
    )
}

fn text(p: *const std::ffi::c_char) -> Option<String> {
    // SAFETY: p is null or a NUL-terminated string (caller's contract).
    (!p.is_null())
        .then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
}
