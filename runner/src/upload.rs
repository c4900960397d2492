//! Inputs copied to the GPU through page-locked staging buffers.
//!
//! A copy from pageable memory (a `Vec`, or the mapped data file every
//! measuring process reads its inputs from) goes through the driver's own
//! small staging buffer, and on the H200 machine it ran at about 1.4 GB/s:
//! the 8 processes of an example at 2^30 floats spent about 30 s uploading
//! (bench/tuning/session-2026-12-01b/book-run1.log, "inputs"). Here the
//! bytes are copied by several threads into one of two page-locked chunks
//! while the GPU takes the other by DMA.

use cudarc::driver::{
    CudaContext, CudaEvent, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DriverError,
    PinnedHostSlice, result,
};
use std::sync::Arc;

/// Bytes per staging chunk.
const CHUNK: usize = 32 << 20;
/// Threads that copy each chunk into page-locked memory.
const COPY_THREADS: usize = 4;

/// Two page-locked chunks, each with the event of the last copy out of it.
pub struct Staging {
    slots: Vec<(PinnedHostSlice<u8>, CudaEvent)>,
}

impl Staging {
    /// Allocates the chunks (64 MiB of page-locked memory in all).
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, DriverError> {
        let slot = || -> Result<_, DriverError> {
            // SAFETY: the memory is written before any copy reads it.
            let chunk = unsafe { ctx.alloc_pinned::<u8>(CHUNK) }?;
            Ok((chunk, ctx.new_event(None)?))
        };
        Ok(Staging {
            slots: vec![slot()?, slot()?],
        })
    }

    /// A new device buffer holding `src` (one byte when `src` is empty, as
    /// every buffer of a launch must have an address). Returns once the
    /// copies are queued on `stream`, which must be synchronised before
    /// `src` may change (it never does: inputs are read-only).
    pub fn upload(
        &mut self,
        stream: &Arc<CudaStream>,
        src: &[u8],
    ) -> Result<CudaSlice<u8>, DriverError> {
        // SAFETY: every byte of `src` is copied in below; an empty input's
        // single byte is never read by a correct kernel, and a kernel that
        // reads it is judged on its answer like any other.
        let mut dst = unsafe { stream.alloc::<u8>(src.len().max(1)) }?;
        let (base, record) = dst.device_ptr_mut(stream);
        for (i, part) in src.chunks(CHUNK).enumerate() {
            let (chunk, copied_out) = &mut self.slots[i % 2];
            // Wait until the GPU has taken this chunk's previous bytes.
            copied_out.synchronize()?;
            let host = &mut chunk.as_mut_slice()?[..part.len()];
            parallel_copy(host, part);
            let at = base + (i * CHUNK) as u64;
            // SAFETY: `at` addresses part.len() bytes inside `dst`, and
            // `host` is page-locked memory that is not written again
            // before `copied_out` says the copy has finished.
            unsafe { result::memcpy_htod_async(at, host, stream.cu_stream()) }?;
            copied_out.record(stream)?;
        }
        drop(record);
        Ok(dst)
    }

    /// Copies all of `src` into `dst` (of the same length) through the
    /// chunks: the GPU copies one chunk while this thread's helpers copy the
    /// one before out of page-locked memory. A copy straight into pageable
    /// memory (a check's host copy of an answer) runs at the driver's
    /// staging speed instead, about a gigabyte a second. Returns once every
    /// byte is in `dst`.
    pub fn download(
        &mut self,
        stream: &Arc<CudaStream>,
        src: &CudaSlice<u8>,
        dst: &mut [u8],
    ) -> Result<(), DriverError> {
        assert_eq!(
            src.len(),
            dst.len(),
            "a download fills its whole destination"
        );
        let (base, record) = src.device_ptr(stream);
        let total = dst.len();
        let chunks = total.div_ceil(CHUNK);
        // Queues chunk `i`'s copy into its slot and marks its end.
        let queue = |slots: &mut Vec<(PinnedHostSlice<u8>, CudaEvent)>, i: usize| {
            let len = CHUNK.min(total - i * CHUNK);
            let (chunk, copied_in) = &mut slots[i % 2];
            // Waits for any earlier use of the slot's memory by the GPU.
            copied_in.synchronize()?;
            let host = &mut chunk.as_mut_slice()?[..len];
            let at = base + (i * CHUNK) as u64;
            // SAFETY: `at` addresses `len` bytes inside `src`, and `host`
            // is page-locked memory read only after `copied_in` says the
            // copy has finished.
            unsafe { result::memcpy_dtoh_async(host, at, stream.cu_stream()) }?;
            copied_in.record(stream)
        };
        if chunks > 0 {
            queue(&mut self.slots, 0)?;
        }
        for i in 0..chunks {
            // The next chunk goes into the other slot, whose bytes were
            // copied out in the previous round.
            if i + 1 < chunks {
                queue(&mut self.slots, i + 1)?;
            }
            let len = CHUNK.min(total - i * CHUNK);
            let (chunk, copied_in) = &mut self.slots[i % 2];
            copied_in.synchronize()?;
            parallel_copy(
                &mut dst[i * CHUNK..i * CHUNK + len],
                &chunk.as_slice()?[..len],
            );
        }
        drop(record);
        Ok(())
    }
}

impl Drop for Staging {
    // The chunks are freed only once the GPU has taken their last bytes:
    // an upload cut short by an error (no memory for the next input) may
    // leave copies queued, and freeing page-locked memory under a running
    // DMA is not promised to wait for it.
    fn drop(&mut self) {
        for (_, copied_out) in &self.slots {
            let _ = copied_out.synchronize();
        }
    }
}

/// `dst.copy_from_slice(src)` split over a few threads: one thread copying
/// into page-locked memory runs well below what the DMA takes.
fn parallel_copy(dst: &mut [u8], src: &[u8]) {
    let per_thread = dst.len().div_ceil(COPY_THREADS).max(1 << 20);
    std::thread::scope(|scope| {
        for (d, s) in dst.chunks_mut(per_thread).zip(src.chunks(per_thread)) {
            scope.spawn(move || d.copy_from_slice(s));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_copy_copies_every_byte_whatever_the_length() {
        for len in [0, 1, (1 << 20) - 1, 1 << 20, 5 * (1 << 20) + 3] {
            let src: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
            let mut dst = vec![0u8; len];
            parallel_copy(&mut dst, &src);
            assert!(dst == src, "length {len}");
        }
    }
}
