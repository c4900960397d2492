//! Checks done on the GPU ([`DeviceCheck`]): a problem whose host check
//! would copy a large answer back and walk its input again (a scan of 2^30
//! floats: 4 GiB each way, seconds a check, in every process) is judged by
//! support kernels where its buffers already are, with the host check's
//! tolerance and wording ([`problem::scan_f32::outcome`]). The answer's
//! verdict is the same one: only the order of the float64 additions of the
//! reference differs (a tree on the GPU, a chain on the host), far inside
//! any float32 tolerance, and exact on the whole-number inputs of the edge
//! sizes, whose float64 sums are exact in any order.
//!
//! Used only when the inputs the check reads still have the bytes they were
//! uploaded with (their GPU digests compared), so that a kernel that wrote
//! its input is judged on the host against the drawn data, and never for
//! the Run service's jobs, whose every answer is judged on the host.

use crate::problem::{CheckOutcome, Data, DeviceCheck, scan_f32};
use cudarc::driver::{
    CudaFunction, CudaModule, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use std::sync::Arc;

/// Threads per block of the check kernels.
const THREADS: u32 = 256;

/// The support kernels of the checks done on the GPU.
#[derive(Debug, Clone)]
pub struct DeviceJudge {
    scan_totals: CudaFunction,
    scan_worst: CudaFunction,
}

impl DeviceJudge {
    /// Loads the check kernels of the support module.
    pub fn new(module: &Arc<CudaModule>) -> Result<Self, DriverError> {
        Ok(DeviceJudge {
            scan_totals: module.load_function("cm_scan_totals")?,
            scan_worst: module.load_function("cm_scan_worst")?,
        })
    }

    /// Judges `check` on the device buffers it names, found in `buffers`
    /// by name; `None` when one is missing.
    pub fn judge(
        &self,
        check: DeviceCheck,
        data: Data,
        buffers: &[(&str, &CudaSlice<u8>)],
        stream: &Arc<CudaStream>,
    ) -> Result<Option<CheckOutcome>, DriverError> {
        let buffer = |name: &str| buffers.iter().find(|(n, _)| *n == name).map(|(_, d)| *d);
        match check {
            DeviceCheck::PrefixSumF32 { input, output } => {
                let (Some(x), Some(y)) = (buffer(input), buffer(output)) else {
                    return Ok(None);
                };
                self.prefix_sum(x, y, data, stream).map(Some)
            }
        }
    }

    /// [`DeviceCheck::PrefixSumF32`]: each chunk's totals on the GPU, the
    /// chunks' starting sums on the host (a few thousand float64 pairs, in
    /// the host check's order), each chunk's worst element on the GPU, the
    /// worst of all and its answer's value read back.
    fn prefix_sum(
        &self,
        x: &CudaSlice<u8>,
        y: &CudaSlice<u8>,
        data: Data,
        stream: &Arc<CudaStream>,
    ) -> Result<CheckOutcome, DriverError> {
        let n = (x.len() / 4).min(y.len() / 4);
        let chunk = scan_f32::CHECK_CHUNK;
        let chunks = n.div_ceil(chunk);
        if chunks == 0 {
            return Ok(scan_f32::outcome(n, data, scan_f32::Worst::NONE, None));
        }
        let cfg = LaunchConfig {
            grid_dim: (chunks as u32, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let (n64, chunk32) = (n as u64, chunk as u32);
        let mut totals = stream.alloc_zeros::<f64>(2 * chunks)?;
        let mut b = stream.launch_builder(&self.scan_totals);
        b.arg(x).arg(&n64).arg(&chunk32).arg(&mut totals);
        // SAFETY: cm_scan_totals reads x[0..n) as floats (x holds at least
        // 4n bytes) and writes totals[0..2 * chunks), one pair per block.
        unsafe { b.launch(cfg) }?;
        let totals = stream.clone_dtoh(&totals)?;
        stream.synchronize()?;
        let mut starts = Vec::with_capacity(2 * chunks);
        let mut at = (0.0f64, 0.0f64);
        for pair in totals.chunks_exact(2) {
            starts.extend([at.0, at.1]);
            at = (at.0 + pair[0], at.1 + pair[1]);
        }
        let starts = stream.clone_htod(&starts)?;
        let mut errors = stream.alloc_zeros::<f64>(chunks)?;
        let mut indices = stream.alloc_zeros::<u64>(chunks)?;
        let mut references = stream.alloc_zeros::<f64>(chunks)?;
        let exact = i32::from(data == Data::Exact);
        let mut b = stream.launch_builder(&self.scan_worst);
        b.arg(x)
            .arg(y)
            .arg(&n64)
            .arg(&chunk32)
            .arg(&starts)
            .arg(&exact)
            .arg(&mut errors)
            .arg(&mut indices)
            .arg(&mut references);
        // SAFETY: cm_scan_worst reads x[0..n) and y[0..n) as floats and
        // starts[0..2 * chunks), and writes element c of each output array
        // from block c; blockDim (256) is at most the 1024 its shared
        // arrays hold.
        unsafe { b.launch(cfg) }?;
        let (errors, indices, references) = (
            stream.clone_dtoh(&errors)?,
            stream.clone_dtoh(&indices)?,
            stream.clone_dtoh(&references)?,
        );
        stream.synchronize()?;
        let worst = errors
            .iter()
            .zip(&indices)
            .zip(&references)
            .map(|((&error, &index), &reference)| scan_f32::Worst {
                error,
                index: if index == u64::MAX {
                    usize::MAX
                } else {
                    index as usize
                },
                reference,
            })
            .fold(scan_f32::Worst::NONE, scan_f32::Worst::worse);
        let got = if worst.index < n {
            let mut one = [0u8; 4];
            let at = y.slice(4 * worst.index..4 * worst.index + 4);
            stream.memcpy_dtoh(&at, &mut one)?;
            stream.synchronize()?;
            Some(f32::from_le_bytes(one))
        } else {
            None
        };
        Ok(scan_f32::outcome(n, data, worst, got))
    }
}
