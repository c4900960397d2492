//! `mdbook-cuda`: the mdBook preprocessor of *CUDA, Measured*.
//!
//! Data enters as mdBook's book JSON, `{{#include}}`s expanded
//! ([`source_map`] says where each byte of a chapter was written); [`scan`]
//! finds ```` ```cuda run ```` blocks and [`directives`] the
//! `{{#measured}}`-style directives;
//! [`catalog`] resolves every example across the book with the runner
//! library; [`compile_step`] has the runner compile them with NVRTC
//! ([`compile_run`]), cached ([`compile_cache`]), and holds each to its
//! declaration (`cuda_measured_core::compile_judge`); [`measure`] settles each [`outcome`]
//! from the results store and, where the [`config`] mode allows, a GPU;
//! [`stored`] is the folder of reports left next to the records, and each
//! kind of stored artifact is one module of [`artifacts`] that reads its
//! directive's arguments and its file, judges the file against the book
//! and renders it (SASS listings, profiles, compute-sanitizer reports,
//! host programs, peers comparisons, the repeatability report and the
//! all-reduce reports), returning its view or a [`shown`] figure or
//! reason; [`directive_syntax`] finds the `{{#...}}` of a chapter;
//! [`values`] evaluates directives against the book's [`results`],
//! dispatching to the artifact kinds, and renders what they evaluate to
//! ([`status_page`] the rows of `{{#status}}`); [`evidence`] holds the
//! state of every stored file those directives read, for `{{#status}}`,
//! and [`evidence_judge`] judges it by evaluating them; [`chapter_links`]
//! links the status page to the chapters;
//! [`page`] replaces a chapter's directives with their values;
//! [`render`] writes the examples' panels and holds the parts every
//! renderer shares (tables, charts, markup);
//! [`splice`] puts them in place of the original bytes; [`report`] lists
//! problems and fails strict builds. [`book_pass`] ties these together.
//!
//! The modules form layers, imports pointing down only (checked by
//! `scripts/modgraph.py`, which lists each layer's modules): base (leaf
//! helpers, [`config`], [`stored`]) < book ([`scan`], [`catalog`],
//! [`names`], [`directive_syntax`]) < settle ([`compile_step`],
//! [`measure`], [`results`]) < [`render`] < [`artifacts`] (no kind
//! importing another) < [`directives`] < pages ([`values`],
//! [`status_page`], [`evidence`], [`page`], exercises) < pass
//! ([`book_pass`], [`cmd`]).
//!
//! A staged exercise's `{{#exercise}}` has its kernels registered by
//! [`catalog::exercises`], its gates judged by [`exercise_gates`] and its stage laid
//! out by [`exercise_page`].

pub mod artifacts;
pub mod book_files;
pub mod book_pass;
pub mod catalog;
pub mod chapter_links;
pub mod cmd;
pub mod compile_cache;
pub mod compile_run;
pub mod compile_step;
pub mod config;
pub mod directive_syntax;
pub mod directives;
pub mod evidence;
pub mod evidence_judge;
pub mod example_ref;
pub mod exercise_gates;
pub mod exercise_page;
pub mod fence_info;
pub mod figures;
pub mod markup;
pub mod maths_guard;
pub mod measure;
pub mod names;
pub mod outcome;
pub mod page;
pub mod powers;
pub mod render;
pub mod report;
pub mod results;
pub mod scan;
pub mod shard;
pub mod shown;
pub mod source_map;
pub mod splice;
pub mod status_page;
pub mod stored;
pub mod typed_figures;
pub mod unlinked;
pub mod values;

#[cfg(test)]
mod test_support;
