//! The digest of an answer, taken on the GPU (`cm_digest`), so that an
//! answer identical to one already judged correct is known without copying
//! hundreds of MiB back to the host. See `problem::cache` for how verdicts
//! are kept under it.

use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use std::sync::Arc;

/// Launches `cm_digest` over device buffers.
#[derive(Debug, Clone)]
pub struct AnswerDigest {
    function: CudaFunction,
    blocks: u32,
}

impl AnswerDigest {
    /// `function` is the support module's `cm_digest`; a few blocks per SM.
    pub fn new(function: CudaFunction, sm_count: u32) -> Self {
        AnswerDigest {
            function,
            blocks: sm_count * 8,
        }
    }

    /// The two position-keyed sums of `buf`'s bytes.
    pub fn of(
        &self,
        buf: &CudaSlice<u8>,
        stream: &Arc<CudaStream>,
    ) -> Result<[u64; 2], DriverError> {
        let bytes = buf.len() as u64;
        let mut out = stream.alloc_zeros::<u64>(2)?;
        let cfg = LaunchConfig {
            grid_dim: (self.blocks, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = stream.launch_builder(&self.function);
        b.arg(buf).arg(&bytes).arg(&mut out);
        // SAFETY: cm_digest reads exactly `bytes` bytes of `buf` (whole
        // 32-bit words, the last partial one byte by byte; allocations are
        // 256-byte aligned) and adds into the two u64 of `out`.
        unsafe { b.launch(cfg) }?;
        let host = stream.clone_dtoh(&out)?;
        Ok([host[0], host[1]])
    }
}
