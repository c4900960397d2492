//! Inputs kept on the GPU between the examples a measuring process runs.
//!
//! A warm worker measures one example after another, and neighbouring
//! examples of a chapter are mostly of one problem at the same sizes (the
//! reductions all sum the same 2^28 floats). Copying those inputs to the
//! GPU again for every example was a quarter of the book's measuring time
//! (39 of 213 s on the H200, 2026-12-02, bench/measuring-speed). Here the
//! uploaded buffers stay on the device, under the name of the data they
//! hold ([`cuda_measured_core::problem::cache::data_key`]), and the next
//! example of the same data is given them instead of a fresh copy.
//!
//! Inputs are read-only, but a wrong kernel may write to one anyway. So
//! every buffer carries the digest its bytes had when uploaded, taken on the
//! GPU ([`AnswerDigest`]), and is digested again before it is handed out: a
//! buffer whose bytes changed is dropped and uploaded afresh, so no example
//! ever sees another example's writes.
//!
//! Kept buffers are bounded ([`ResidentInputs::new`]'s `cap` bytes, least
//! recently used first out), and they die with the process and its context.

use crate::digest::AnswerDigest;
use cudarc::driver::{CudaSlice, CudaStream, DriverError};
use std::sync::Arc;

/// Bytes of inputs one measuring process keeps on the GPU: 4 GiB, so that
/// the eight processes of a session hold at most 32 GiB of the H200's 141,
/// beside each example's own buffers.
pub const DEFAULT_CAP: u64 = 4 << 30;

struct Entry {
    key: String,
    buffer: Arc<CudaSlice<u8>>,
    digest: [u64; 2],
    used: u64,
}

/// A kept buffer and the digest its bytes were verified to have.
pub type Kept = (Arc<CudaSlice<u8>>, [u64; 2]);

/// The inputs one process keeps on its GPU, by the name of their data.
pub struct ResidentInputs {
    entries: Vec<Entry>,
    cap: u64,
    clock: u64,
}

impl ResidentInputs {
    /// Keeps at most `cap` bytes (0 keeps nothing).
    pub fn new(cap: u64) -> Self {
        ResidentInputs {
            entries: Vec::new(),
            cap,
            clock: 0,
        }
    }

    fn bytes(&self) -> u64 {
        self.entries.iter().map(|e| e.buffer.len() as u64).sum()
    }

    /// The buffer kept under `key`, with its digest, if its bytes are still
    /// those uploaded; a buffer whose bytes changed is dropped (the caller
    /// uploads again).
    pub fn get(
        &mut self,
        key: &str,
        digest: &AnswerDigest,
        stream: &Arc<CudaStream>,
    ) -> Result<Option<Kept>, DriverError> {
        let Some(at) = self.entries.iter().position(|e| e.key == key) else {
            return Ok(None);
        };
        if digest.of(&self.entries[at].buffer, stream)? != self.entries[at].digest {
            self.entries.swap_remove(at);
            return Ok(None);
        }
        self.clock += 1;
        self.entries[at].used = self.clock;
        Ok(Some((
            Arc::clone(&self.entries[at].buffer),
            self.entries[at].digest,
        )))
    }

    /// Keeps `buffer` (just uploaded, its copy queued on `stream`) under
    /// `key`, dropping the least recently used buffers past the cap; a
    /// buffer larger than the cap is not kept. Returns the digest taken of
    /// a kept buffer.
    pub fn put(
        &mut self,
        key: &str,
        buffer: &Arc<CudaSlice<u8>>,
        digest: &AnswerDigest,
        stream: &Arc<CudaStream>,
    ) -> Result<Option<[u64; 2]>, DriverError> {
        let len = buffer.len() as u64;
        if len > self.cap {
            return Ok(None);
        }
        // Taken on the same stream, so after the upload's copies.
        let sums = digest.of(buffer, stream)?;
        self.entries.retain(|e| e.key != key);
        while self.bytes() + len > self.cap {
            let Some(oldest) = (0..self.entries.len()).min_by_key(|&i| self.entries[i].used) else {
                break;
            };
            self.entries.swap_remove(oldest);
        }
        self.clock += 1;
        self.entries.push(Entry {
            key: key.to_string(),
            buffer: Arc::clone(buffer),
            digest: sums,
            used: self.clock,
        });
        Ok(Some(sums))
    }
}
