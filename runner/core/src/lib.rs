//! `cuda-measured-core`: everything about a runnable CUDA example that needs
//! no GPU and no CUDA library, shared by the book's plugin (`mdbook-cuda`)
//! and the runner (`cuda-runner`).
//!
//! An example ([`example`]) is a kernel source ([`source`], with includes
//! confined to the book's kernels folder by [`include_scan`]) and its
//! declaration ([`declaration`]), resolved into launches per size
//! ([`launch_plan`], checked against device [`limits`], arguments bound by
//! [`binding`]); a [`problem`] owns its inputs, float64 reference and check.
//! Without a GPU, [`plan_check`] holds every plan to a known GPU's limits,
//! and [`signature`] holds the declaration to the kernels NVRTC compiled
//! (their entry points read from the PTX by [`ptx`]). The measuring method's
//! statistics ([`method`]) decide when sampling stops; [`pool`] and
//! [`figures`] turn samples into a [`record`], keyed by [`key`] and kept in
//! the [`store`]. [`session`] is the one measuring loop every front end
//! drives; [`isolate`] runs the runner's `measure` in child processes
//! (which die with their parent, [`lifetime`]); [`peers`] and
//! [`repeatability`] are the stored reports; an [`exercise`] stage declares
//! its kernels, text and gates as data. Around the author: messages
//! name the header line ([`header_lines`]) and suggest the likely word
//! ([`suggest`]); a compile job ([`compile_job`]) is judged against the
//! declaration ([`compile_judge`], with [`compile_hint`] for NVRTC's
//! missing host headers); [`template`] writes a new example. What the
//! compiler made of an example is a stored [`sass`] listing, which
//! [`sass_counts`] reads for a page (regions, predicates, branches,
//! integer division). What compute-sanitizer found in a run is a stored
//! [`sanitizer`] report, and what the host programs of `bench/host`
//! printed a stored [`host`] record. An [`allreduce`] across GPUs has its
//! sizes, inputs, tolerance, bandwidths and report here. This crate never links CUDA: the runner does the
//! compiling and the timing.
//!
//! # Layers
//!
//! The modules form layers, bottom first, and a module imports only from
//! its own layer or those below it, with no cycle among modules
//! (`scripts/modgraph.py` checks both; the list there is the one to
//! change when a module is added):
//!
//! | layer | modules |
//! |---|---|
//! | base | [`atomic_file`], [`nonfinite`], [`suggest`] |
//! | model | [`size`], [`dims`], [`call_syntax`], [`include_scan`], [`source`], [`problem`], [`declaration`], [`header_lines`], [`example`], [`compile_options`] |
//! | plan | [`plan_expr`], [`launch_plan`], [`binding`], [`limits`], [`plan_check`], [`ptx`], [`ptx_calls`], [`fault_cause`], [`signature`] |
//! | method | [`method`] |
//! | store | [`record`], [`key`], [`store`] |
//! | figures | [`figures`], [`pool`] |
//! | engine | [`session`], [`isolate`], [`child`], [`lifetime`], [`diagnostics`] |
//! | reports | [`peers`], [`repeatability`], [`profile`], [`sanitizer`], [`sass`], [`sass_counts`], [`host`], [`exercise`], [`allreduce`], [`report`], [`template`], [`compile_job`], [`compile_judge`], [`compile_hint`] |
//!
//! So a declaration resolves its own problem
//! ([`declaration::Declaration::resolve_problem`]) and an example names its
//! header lines and compile options
//! ([`example::Example::header_place`], [`example::Example::compile_options`]);
//! the store is told which GPU's records are the examples' own
//! ([`store::Store::new`]) rather than reading the book's target from
//! [`limits`].

pub mod allreduce;
pub mod atomic_file;
pub mod binding;
pub mod call_syntax;
pub mod child;
pub mod compile_hint;
pub mod compile_job;
pub mod compile_judge;
pub mod compile_options;
pub mod declaration;
pub mod diagnostics;
pub mod dims;
pub mod example;
pub mod exercise;
pub mod fault_cause;
pub mod figures;
pub mod header_lines;
pub mod host;
pub mod include_scan;
pub mod isolate;
pub mod key;
pub mod launch_plan;
pub mod launcher;
pub mod lifetime;
pub mod limits;
pub mod method;
pub mod nonfinite;
pub mod peers;
pub mod plan_check;
pub mod plan_expr;
pub mod pool;
pub mod problem;
pub mod profile;
pub mod ptx;
pub mod ptx_calls;
pub mod record;
pub mod repeatability;
pub mod report;
pub mod sanitizer;
pub mod sass;
pub mod sass_counts;
pub mod session;
pub mod signature;
pub mod size;
pub mod source;
pub mod store;
pub mod suggest;
pub mod sweep;
pub mod template;
pub mod workers;

/// Version of the measuring method. Bump it whenever the way a figure is
/// produced changes: every stored result then becomes stale.
/// v1: first method. v2: both stopping rules wait for 0.1 s of GPU time
/// (v1 let a settled noise estimate stop after 40 samples, which left
/// noisy medians unstable between runs), and the ceilings read 4 GiB.
/// v3: every example is measured by 8 processes with an eighth of the
/// sampling budget each and their samples pooled (some kernels' times
/// depend on per-process state by a few percent; see [`pool`]).
/// v4: the `noisy` label says how sampling ended (v3 kept a label set
/// when a slow kernel passed its share of the time-out before its tenth
/// sample, even when the tenth then met the noise target), and the hard
/// wall-time cap (12 s) is not split between processes.
/// v5: correctness runs fill every SM's shared memory with NaN before each
/// launch (the runner's `SharedPoison`), launches are checked against the
/// device's limits before they are made, and a kernel's device printf
/// output is kept in the log (the result travels in a file).
/// v6: the copy ceiling's kernel moves one float4 per thread over as many
/// blocks as that takes (the v5 grid-stride copy read 7-8% low on the
/// H200, so kernels that read once and wrote once passed 100% of it); the
/// ceilings are measured once per session and shared by its processes; an
/// answer identical (by a digest taken on the GPU) to one already judged
/// on the same inputs takes that verdict instead of being copied back and
/// judged again (passing verdicts only until 2026-12-01; since then
/// failing ones too, which changes no timing and no verdict).
pub const METHOD_VERSION: u32 = 6;
