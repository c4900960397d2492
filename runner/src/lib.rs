//! `cuda-runner`: compiles, runs and times CUDA examples on the GPU. The
//! CUDA-free part of the engine (examples, declarations, problems, records,
//! the store, the method's statistics, pooling, child processes and the
//! reports) is the crate `cuda-measured-core`, re-exported here under its
//! own module names; this crate adds what needs CUDA: NVRTC ([`compile`]),
//! the device's facts ([`device`]) and clocks ([`clocks`]), the timer of
//! the method ([`measure`]), answer digests on the GPU ([`digest`]), the child process's run of one example
//! ([`execute`]), the all-reduce across GPUs ([`allreduce`]), and the OS
//! sandbox of the children a Run service starts ([`sandbox`]).

pub mod allreduce;
pub mod clocks;
pub mod compile;
pub mod device;
pub mod device_check;
pub mod digest;
pub mod execute;
pub mod fault_cause;
pub mod listing;
pub mod measure;
pub mod resident;
pub mod sandbox;
pub mod sanitize;
pub mod transfer;
pub mod upload;

pub use cuda_measured_core::{
    METHOD_VERSION, atomic_file, binding, child, compile_job, compile_judge, declaration,
    diagnostics, dims, example, figures, header_lines, include_scan, isolate, key, launch_plan,
    lifetime, limits, method, nonfinite, peers, plan_check, pool, problem, profile, ptx, record,
    repeatability, report, sanitizer, sass, sass_counts, session, signature, size, source, store,
    template,
};
