//! The book's own all-reduce kernels (kernels/allreduce/one_shot.cu and
//! two_shot.cu), compiled by NVRTC for each rank's GPU and launched on
//! every rank's stream. Each call is bracketed by barriers across the
//! ranks' streams (every stream waits on an event every other rank
//! recorded): on entry, so that no rank reads a peer's input before the
//! peer's earlier work wrote it; on exit, so that no peer overwrites a
//! buffer a rank still reads; and, in the two-shot, between the
//! reduce-scatter and the all-gather. A real all-reduce call needs all of
//! them, so they are part of what is timed. With one rank the waits have
//! no peer to wait on and the same code runs.
//!
//! The probe `one-shot-flags` (bench/tuning/allreduce/flags/, read from
//! disk at run time) has no host barriers: its ranks meet inside the
//! kernel through flags in each rank's memory, one epoch per call.

use super::buffers::Buffers;
use super::ranks::Rank;
use anyhow::{Context, Result};
use cuda_measured_core::allreduce::{MAX_RANKS, chunks};
use cudarc::driver::{
    CudaEvent, CudaFunction, CudaModule, DeviceRepr, DriverError, LaunchConfig, PushKernelArg,
};
use std::collections::HashMap;
use std::sync::Arc;

/// Which of our all-reduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shot {
    /// Every rank reads every input and sums the whole message.
    One,
    /// Reduce-scatter, then all-gather.
    Two,
    /// Every rank reads every input; the ranks meet in the kernel.
    OneFlags,
}

/// The probe's kernel file, relative to the book's root.
pub const FLAGS_FILE: &str = "bench/tuning/allreduce/flags/one_shot_flags.cu";
/// Blocks whose flags the probe's arrays hold (its MAX_BLOCKS).
const FLAG_BLOCKS: u32 = 1024;
/// Flags per rank: two meetings, FLAG_BLOCKS blocks, MAX_RANKS ranks.
const FLAGS_PER_RANK: usize = 2 * FLAG_BLOCKS as usize * MAX_RANKS;
/// Blocks per SM of the probe: few enough that every block of every rank
/// is resident at once (a block waits for its twins on the other ranks).
const FLAG_BLOCKS_PER_SM: u32 = 2;

impl Shot {
    /// The book's kernel files, built into the runner.
    pub(super) fn source(self) -> (&'static str, &'static str) {
        match self {
            Shot::OneFlags => panic!("the probe is read from {FLAGS_FILE} at run time"),
            Shot::One => (
                "kernels/allreduce/one_shot.cu",
                include_str!("../../../kernels/allreduce/one_shot.cu"),
            ),
            Shot::Two => (
                "kernels/allreduce/two_shot.cu",
                include_str!("../../../kernels/allreduce/two_shot.cu"),
            ),
        }
    }

    /// The file and its text: built in, or for the probe read from the
    /// book's root (the working directory).
    fn text(self) -> Result<(String, String)> {
        match self {
            Shot::OneFlags => {
                let text = std::fs::read_to_string(FLAGS_FILE).with_context(|| {
                    format!("reading {FLAGS_FILE}: run `cuda-runner allreduce --impls one-shot-flags --out FILE` in the book's root")
                })?;
                Ok((FLAGS_FILE.to_string(), text))
            }
            _ => {
                let (file, text) = self.source();
                Ok((file.to_string(), text.to_string()))
            }
        }
    }

    fn kernels(self) -> &'static [&'static str] {
        match self {
            Shot::One => &["allreduce_one_shot"],
            Shot::Two => &["allreduce_reduce_scatter", "allreduce_all_gather"],
            Shot::OneFlags => &["allreduce_one_shot_flags"],
        }
    }
}

/// `Peers` of one_shot.cu: every rank's input.
#[repr(C)]
#[derive(Clone, Copy)]
struct InputTable {
    inputs: [u64; MAX_RANKS],
}

// SAFETY: plain pointers laid out as the kernel's by-value struct.
unsafe impl DeviceRepr for InputTable {}

/// `Peers` of two_shot.cu: every rank's input, then every rank's output.
#[repr(C)]
#[derive(Clone, Copy)]
struct InputOutputTable {
    inputs: [u64; MAX_RANKS],
    outputs: [u64; MAX_RANKS],
}

// SAFETY: plain pointers laid out as the kernel's by-value struct.
unsafe impl DeviceRepr for InputOutputTable {}

/// `PeersAndFlags` of the probe: every rank's input, then every rank's
/// flag array.
#[repr(C)]
#[derive(Clone, Copy)]
struct InputFlagTable {
    inputs: [u64; MAX_RANKS],
    flags: [u64; MAX_RANKS],
}

// SAFETY: plain pointers laid out as the kernel's by-value struct.
unsafe impl DeviceRepr for InputFlagTable {}

/// One rank's loaded kernels.
struct RankKernels {
    _module: Arc<CudaModule>,
    functions: Vec<CudaFunction>,
    sm_count: u32,
}

/// Our all-reduce on every rank.
pub struct Ours {
    shot: Shot,
    kernels: Vec<RankKernels>,
    barrier: Vec<CudaEvent>,
    /// The probe's flag array on every rank (zeroed; empty for the others).
    flags: Vec<super::buffers::DeviceBuffer>,
    /// The probe's last call's epoch, the same on every rank.
    epoch: std::cell::Cell<u32>,
}

impl Ours {
    /// Compiles the kernels once per architecture among the ranks and
    /// loads them on every rank.
    pub fn new(ranks: &[Rank], shot: Shot) -> Result<Self> {
        let (file, source) = shot.text()?;
        let (file, source) = (file.as_str(), source.as_str());
        let mut cubins: HashMap<&str, Vec<u8>> = HashMap::new();
        let mut kernels = Vec::new();
        for rank in ranks {
            if !cubins.contains_key(rank.arch.as_str()) {
                let options = crate::compile::BASE_OPTIONS
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                let compiled = crate::compile::compile_source(source, file, options, &rank.arch)
                    .with_context(|| format!("compiling {file} for {}", rank.arch))?;
                cubins.insert(&rank.arch, compiled.cubin);
            }
            let cubin = cubins[rank.arch.as_str()].clone();
            let module = rank
                .ctx
                .load_module(cudarc::nvrtc::Ptx::from_binary(cubin))?;
            let functions = shot
                .kernels()
                .iter()
                .map(|k| module.load_function(k))
                .collect::<Result<_, _>>()?;
            kernels.push(RankKernels {
                _module: module,
                functions,
                sm_count: rank.gpu.sm_count,
            });
        }
        let barrier = ranks
            .iter()
            .map(|r| r.ctx.new_event(None))
            .collect::<Result<_, _>>()?;
        let mut flags = Vec::new();
        if shot == Shot::OneFlags {
            for rank in ranks {
                let bytes = 4 * FLAGS_PER_RANK as u64;
                let buffer = super::buffers::DeviceBuffer::new(&rank.ctx, bytes)?;
                // SAFETY: the allocation above is `bytes` long, in the
                // current context; no kernel runs on it yet.
                unsafe { cudarc::driver::result::memset_d8_sync(buffer.ptr(), 0, bytes as usize) }?;
                // Zeroed before any rank's first call can write a flag
                // here: the memset runs on the legacy stream, which the
                // ranks' streams do not wait for.
                rank.ctx.synchronize()?;
                flags.push(buffer);
            }
        }
        Ok(Ours {
            shot,
            kernels,
            barrier,
            flags,
            epoch: std::cell::Cell::new(0),
        })
    }

    /// Queues one all-reduce of `bufs`' inputs into their outputs.
    pub fn all_reduce(&self, ranks: &[Rank], bufs: &Buffers) -> Result<(), DriverError> {
        let count = ranks.len() as u32;
        let n = bufs.n;
        let mut inputs = [0u64; MAX_RANKS];
        let mut outputs = [0u64; MAX_RANKS];
        for r in 0..ranks.len() {
            inputs[r] = bufs.inputs[r].ptr();
            outputs[r] = bufs.outputs[r].ptr();
        }
        if self.shot == Shot::OneFlags {
            return self.all_reduce_meeting_in_kernel(ranks, inputs, &outputs, n);
        }
        self.barrier(ranks)?;
        match self.shot {
            Shot::OneFlags => unreachable!("handled above"),
            Shot::One => {
                let table = InputTable { inputs };
                for (r, rank) in ranks.iter().enumerate() {
                    let k = &self.kernels[r];
                    let mut b = rank.stream.launch_builder(&k.functions[0]);
                    b.arg(&table).arg(&count).arg(&outputs[r]).arg(&n);
                    // SAFETY: the table holds every rank's input of n floats,
                    // readable from rank r (peer access); out is rank r's
                    // output of n floats.
                    unsafe { b.launch(config(chunks::grid(n, k.sm_count))) }?;
                }
            }
            Shot::Two => {
                let table = InputOutputTable { inputs, outputs };
                let chunk = chunks::chunk_floats(n, ranks.len());
                for step in 0..2 {
                    if step == 1 {
                        self.barrier(ranks)?;
                    }
                    for (r, rank) in ranks.iter().enumerate() {
                        let k = &self.kernels[r];
                        let rank_index = r as u32;
                        let mut b = rank.stream.launch_builder(&k.functions[step]);
                        b.arg(&table)
                            .arg(&count)
                            .arg(&rank_index)
                            .arg(&n)
                            .arg(&chunk);
                        // SAFETY: the table holds every rank's input and
                        // output of n floats, readable from rank r; rank r
                        // writes only its own output.
                        unsafe { b.launch(config(chunks::grid(chunk, k.sm_count))) }?;
                    }
                }
            }
        }
        self.barrier(ranks)
    }

    /// The probe: one launch per rank, the same epoch on every rank, no
    /// host barrier (the kernel's ranks meet through their flags).
    fn all_reduce_meeting_in_kernel(
        &self,
        ranks: &[Rank],
        inputs: [u64; MAX_RANKS],
        outputs: &[u64; MAX_RANKS],
        n: u64,
    ) -> Result<(), DriverError> {
        let epoch = self.epoch.get() + 1;
        self.epoch.set(epoch);
        let mut flags = [0u64; MAX_RANKS];
        for (slot, buffer) in flags.iter_mut().zip(&self.flags) {
            *slot = buffer.ptr();
        }
        let table = InputFlagTable { inputs, flags };
        let count = ranks.len() as u32;
        // The same grid on every rank (block b meets block b), every block
        // resident: at most FLAG_BLOCKS_PER_SM per SM of the smallest GPU.
        let least_sms = self.kernels.iter().map(|k| k.sm_count).min().unwrap_or(1);
        let grid = chunks::grid(n, least_sms)
            .min(least_sms * FLAG_BLOCKS_PER_SM)
            .min(FLAG_BLOCKS);
        for (r, rank) in ranks.iter().enumerate() {
            let k = &self.kernels[r];
            let rank_index = r as u32;
            let mut b = rank.stream.launch_builder(&k.functions[0]);
            b.arg(&table)
                .arg(&count)
                .arg(&rank_index)
                .arg(&outputs[r])
                .arg(&n)
                .arg(&epoch);
            // SAFETY: the table holds every rank's input of n floats and
            // flag array of FLAGS_PER_RANK words, readable and writable from
            // rank r (peer access); out is rank r's output of n floats; the
            // grid is at most FLAG_BLOCKS blocks.
            unsafe { b.launch(config(grid)) }?;
        }
        Ok(())
    }

    /// Every rank's stream waits for what every other rank has queued so
    /// far. A wait takes the event's record at the time of the call, so
    /// one event per rank serves every barrier.
    fn barrier(&self, ranks: &[Rank]) -> Result<(), DriverError> {
        for (event, rank) in self.barrier.iter().zip(ranks) {
            event.record(&rank.stream)?;
        }
        for (r, rank) in ranks.iter().enumerate() {
            for (s, event) in self.barrier.iter().enumerate() {
                if s != r {
                    rank.stream.wait(event)?;
                }
            }
        }
        Ok(())
    }
}

fn config(grid: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (grid, 1, 1),
        block_dim: (chunks::BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{self, CompileError};
    use crate::ptx::ParamKind;

    /// What `Ours::all_reduce` passes to each kernel, in order.
    fn passed(shot: Shot) -> Vec<ParamKind> {
        match shot {
            Shot::One => vec![
                ParamKind::Bytes(size_of::<InputTable>() as u32),
                ParamKind::U32,
                ParamKind::U64,
                ParamKind::U64,
            ],
            Shot::Two => vec![
                ParamKind::Bytes(size_of::<InputOutputTable>() as u32),
                ParamKind::U32,
                ParamKind::U32,
                ParamKind::U64,
                ParamKind::U64,
            ],
            Shot::OneFlags => vec![
                ParamKind::Bytes(size_of::<InputFlagTable>() as u32),
                ParamKind::U32,
                ParamKind::U32,
                ParamKind::U64,
                ParamKind::U64,
                ParamKind::U32,
            ],
        }
    }

    // The probe compiles for the H200, takes the arguments the host passes
    // (the pointer-and-flag table by value, then the scalars), and its flag
    // arrays are the size the host allocates.
    #[test]
    fn the_flags_probe_takes_what_the_host_passes() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../");
        let source = std::fs::read_to_string(format!("{path}{FLAGS_FILE}")).unwrap();
        let options = compile::BASE_OPTIONS
            .iter()
            .map(|s| s.to_string())
            .collect();
        let compiled = compile::compile_source(&source, FLAGS_FILE, options, "sm_90")
            .unwrap_or_else(|e| {
                panic!("{FLAGS_FILE}: {e} (NVRTC on LD_LIBRARY_PATH? run scripts/test)")
            });
        let entry = compiled
            .entries
            .iter()
            .find(|e| e.name == "allreduce_one_shot_flags")
            .expect("the probe's kernel");
        assert_eq!(entry.params, passed(Shot::OneFlags));
        assert!(source.contains(&format!("#define MAX_BLOCKS {FLAG_BLOCKS}")));
        assert!(source.contains(&format!("#define MAX_RANKS {MAX_RANKS}")));
    }

    // Every kernel compiles for the H200 and takes exactly the arguments
    // the host passes: the pointer table by value (MAX_RANKS pointers per
    // table), then the scalars in order. A mismatch would launch with a
    // garbled table, which no GPU-less check would otherwise see.
    #[test]
    fn kernels_take_the_arguments_the_host_passes() {
        for shot in [Shot::One, Shot::Two] {
            let (file, source) = shot.source();
            let options = compile::BASE_OPTIONS
                .iter()
                .map(|s| s.to_string())
                .collect();
            let compiled = match compile::compile_source(source, file, options, "sm_90") {
                Err(CompileError::NoNvrtc) => panic!(
                    "NVRTC is not on the loader path: run scripts/test, or add nvidia/cu13/lib of `pip install nvidia-cuda-nvrtc==13.0.88` to LD_LIBRARY_PATH"
                ),
                other => other.unwrap_or_else(|e| panic!("{file}: {e}")),
            };
            for kernel in shot.kernels() {
                let entry = compiled
                    .entries
                    .iter()
                    .find(|e| e.name == *kernel)
                    .unwrap_or_else(|| panic!("{file} defines no {kernel}"));
                assert_eq!(entry.params, passed(shot), "{kernel}");
            }
        }
    }
}

#[cfg(test)]
mod key_tests {
    use super::Shot;

    // The key the runner writes into its reports is the one a page
    // computes from kernels/allreduce/ as they are now, so a report of
    // these very kernels is current and an edited kernel makes it stale.
    #[test]
    fn the_reports_kernels_key_is_the_pages() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        let on_disk: Vec<(String, String)> = cuda_measured_core::allreduce::kernels::KERNEL_FILES
            .iter()
            .map(|f| {
                let text = std::fs::read_to_string(format!("{root}/{f}")).unwrap();
                (f.to_string(), text)
            })
            .collect();
        let on_disk: Vec<(&str, &str)> = on_disk
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        assert_eq!(
            cuda_measured_core::allreduce::kernels::kernels_key(&[
                Shot::One.source(),
                Shot::Two.source()
            ]),
            cuda_measured_core::allreduce::kernels::kernels_key(&on_disk)
        );
    }
}
