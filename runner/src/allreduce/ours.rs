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
}

impl Shot {
    /// The book's kernel files, built into the runner.
    pub(super) fn source(self) -> (&'static str, &'static str) {
        match self {
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

    fn kernels(self) -> &'static [&'static str] {
        match self {
            Shot::One => &["allreduce_one_shot"],
            Shot::Two => &["allreduce_reduce_scatter", "allreduce_all_gather"],
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
}

impl Ours {
    /// Compiles the kernels once per architecture among the ranks and
    /// loads them on every rank.
    pub fn new(ranks: &[Rank], shot: Shot) -> Result<Self> {
        let (file, source) = shot.source();
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
        Ok(Ours {
            shot,
            kernels,
            barrier,
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
        self.barrier(ranks)?;
        match self.shot {
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
        }
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
