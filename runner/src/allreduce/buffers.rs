//! Every rank's input and output buffer, the inputs drawn on the host
//! piece by piece through one page-locked staging buffer (no copy of a
//! whole 4 GiB input is ever kept), the outputs poisoned with NaN before a
//! checked run, and the check that copies each output back piece by piece
//! against the float64 reference (`allreduce::check` in the core).
//!
//! Buffers are plain `cuMemAlloc` allocations, not cudarc's stream-ordered
//! pool: peer access enabled between contexts covers `cuMemAlloc` memory,
//! not a memory pool's, and NCCL reads peers' buffers directly within one
//! process.

use super::ranks::Rank;
use anyhow::Result;
use cuda_measured_core::allreduce::{check::Tally, inputs};
use cudarc::driver::{CudaContext, DriverError, PinnedHostSlice, result, sys};
use std::sync::Arc;

/// One device allocation, freed on drop.
pub struct DeviceBuffer {
    ptr: sys::CUdeviceptr,
    ctx: Arc<CudaContext>,
}

impl DeviceBuffer {
    /// `bytes` bytes (at least 4, so that an address exists) on `ctx`'s GPU.
    pub fn new(ctx: &Arc<CudaContext>, bytes: u64) -> Result<Self, DriverError> {
        ctx.bind_to_thread()?;
        // SAFETY: a plain allocation in the current context; written
        // before any kernel reads it (inputs) or poisoned (outputs).
        let ptr = unsafe { result::malloc_sync(bytes.max(4) as usize) }?;
        Ok(DeviceBuffer {
            ptr,
            ctx: ctx.clone(),
        })
    }

    /// The device address.
    pub fn ptr(&self) -> sys::CUdeviceptr {
        self.ptr
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemAlloc in this context; the sweep
        // synchronises every stream before a size's buffers are dropped.
        let freed = self
            .ctx
            .bind_to_thread()
            .and_then(|()| unsafe { result::free_sync(self.ptr) });
        self.ctx.record_err(freed);
    }
}

/// Floats per piece staged through page-locked memory (32 MiB).
const PIECE_FLOATS: usize = 8 << 20;

/// Page-locked host memory for inputs going up and outputs coming back,
/// portable so that every rank's GPU copies from it by DMA.
pub struct Staging {
    host: PinnedHostSlice<f32>,
}

impl Staging {
    /// Allocates the staging buffer in `ctx`.
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, DriverError> {
        // SAFETY: every float is written before it is read (filled by the
        // generator, or by a copy back from the GPU).
        let host = unsafe {
            ctx.alloc_pinned_with_flags::<f32>(PIECE_FLOATS, sys::CU_MEMHOSTALLOC_PORTABLE)
        }?;
        Ok(Staging { host })
    }
}

/// Every rank's input and output of one message size.
pub struct Buffers {
    /// Elements per rank.
    pub n: u64,
    /// Rank r's input.
    pub inputs: Vec<DeviceBuffer>,
    /// Rank r's output.
    pub outputs: Vec<DeviceBuffer>,
}

impl Buffers {
    /// Allocates `n` floats of input and of output on every rank.
    pub fn new(ranks: &[Rank], n: u64) -> Result<Self, DriverError> {
        let alloc = |r: &Rank| DeviceBuffer::new(&r.ctx, 4 * n);
        Ok(Buffers {
            n,
            inputs: ranks.iter().map(alloc).collect::<Result<_, _>>()?,
            outputs: ranks.iter().map(alloc).collect::<Result<_, _>>()?,
        })
    }

    /// Bytes per buffer.
    pub fn bytes(&self) -> usize {
        4 * self.n as usize
    }

    /// Draws every rank's input (seeds[r]) and copies it up; returns when
    /// the inputs are on the GPUs.
    pub fn fill_inputs(&self, ranks: &[Rank], seeds: &[u64], staging: &mut Staging) -> Result<()> {
        for (rank, input) in ranks.iter().zip(&self.inputs) {
            for (first, len) in pieces(self.n) {
                let host = &mut staging.host.as_mut_slice()?[..len];
                in_parallel(host, |offset, part| {
                    inputs::fill(seeds[rank.index], first + offset as u64, part)
                });
                rank.ctx.bind_to_thread()?;
                // SAFETY: the destination range lies inside the input; the
                // host piece is page-locked and not touched again until the
                // stream has been synchronised below.
                unsafe {
                    result::memcpy_htod_async(input.ptr + 4 * first, host, rank.stream.cu_stream())
                }?;
                rank.stream.synchronize()?;
            }
        }
        Ok(())
    }

    /// Queues NaN (all bits set) over every rank's output, so that an
    /// element no rank wrote fails the check.
    pub fn poison_outputs(&self, ranks: &[Rank]) -> Result<(), DriverError> {
        for (rank, output) in ranks.iter().zip(&self.outputs) {
            rank.ctx.bind_to_thread()?;
            // SAFETY: the range is the whole output.
            unsafe {
                result::memset_d8_async(output.ptr, 0xff, self.bytes(), rank.stream.cu_stream())
            }?;
        }
        Ok(())
    }

    /// Queues a copy of every rank's input into its output (where an
    /// in-place all-reduce starts).
    pub fn copy_inputs_to_outputs(&self, ranks: &[Rank]) -> Result<(), DriverError> {
        for ((rank, input), output) in ranks.iter().zip(&self.inputs).zip(&self.outputs) {
            rank.ctx.bind_to_thread()?;
            // SAFETY: both ranges are whole buffers of the same size.
            unsafe {
                result::memcpy_dtod_async(
                    output.ptr,
                    input.ptr,
                    self.bytes(),
                    rank.stream.cu_stream(),
                )
            }?;
        }
        Ok(())
    }

    /// Copies every rank's output back and checks it against the float64
    /// sum of the inputs seeded `seeds`. The caller has synchronised the
    /// ranks after the all-reduce.
    pub fn check_outputs(
        &self,
        ranks: &[Rank],
        seeds: &[u64],
        tol: f64,
        staging: &mut Staging,
    ) -> Result<Tally> {
        let mut tally = Tally::default();
        for (rank, output) in ranks.iter().zip(&self.outputs) {
            for (first, len) in pieces(self.n) {
                let host = &mut staging.host.as_mut_slice()?[..len];
                rank.ctx.bind_to_thread()?;
                // SAFETY: the source range lies inside the output; the host
                // piece is read only after the synchronisation.
                unsafe {
                    result::memcpy_dtoh_async(host, output.ptr + 4 * first, rank.stream.cu_stream())
                }?;
                rank.stream.synchronize()?;
                let parts = std::sync::Mutex::new(Tally::default());
                in_parallel(host, |offset, part| {
                    let t = Tally::of_piece(rank.index, first + offset as u64, part, seeds, tol);
                    let mut all = parts.lock().unwrap_or_else(|p| p.into_inner());
                    *all = std::mem::take(&mut *all).merge(t);
                });
                tally = tally.merge(parts.into_inner().unwrap_or_else(|p| p.into_inner()));
            }
        }
        Ok(tally)
    }
}

/// `(first element, length)` of each piece of an `n`-element buffer.
fn pieces(n: u64) -> impl Iterator<Item = (u64, usize)> {
    (0..n)
        .step_by(PIECE_FLOATS)
        .map(move |first| (first, (n - first).min(PIECE_FLOATS as u64) as usize))
}

/// Runs `work(offset, part)` over parts of `data` on up to 16 threads.
fn in_parallel<F>(data: &mut [f32], work: F)
where
    F: Fn(usize, &mut [f32]) + Sync,
{
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get().min(16));
    let per = data.len().div_ceil(threads).max(1 << 16);
    std::thread::scope(|scope| {
        for (i, part) in data.chunks_mut(per).enumerate() {
            let work = &work;
            scope.spawn(move || work(i * per, part));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    // The pieces cover the buffer once, in order, none longer than the staging buffer.
    #[test]
    fn pieces_cover_the_buffer_once() {
        for n in [0, 1, PIECE_FLOATS as u64, 2 * PIECE_FLOATS as u64 + 5] {
            let mut next = 0;
            for (first, len) in pieces(n) {
                assert_eq!(first, next);
                assert!(len > 0 && len <= PIECE_FLOATS);
                next = first + len as u64;
            }
            assert_eq!(next, n);
        }
    }

    // Drawing in parallel gives the values drawn one by one, at every offset.
    #[test]
    fn parallel_fill_matches_the_generator() {
        let seed = inputs::rank_seed(9, 1);
        let mut data = vec![0.0f32; (1 << 18) + 7];
        in_parallel(&mut data, |offset, part| {
            inputs::fill(seed, 100 + offset as u64, part)
        });
        for (i, x) in data.iter().enumerate() {
            assert_eq!(*x, inputs::value(seed, 100 + i as u64), "{i}");
        }
    }
}
