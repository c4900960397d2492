//! The NVRTC options of an example: part of its key and of its record,
//! so they live beside them, without NVRTC itself (the runner compiles).
//! An example's own list is [`crate::example::Example::compile_options`].

/// Options every example is compiled with (the architecture is added per
/// device). Part of the key: changing them re-measures the book.
/// `--no-source-include` stops NVRTC from looking for a quoted include in
/// the directory of the source's name (the working directory for a bare
/// name): includes are expanded, and confined to `kernels/`, before NVRTC
/// sees the source ([`crate::source::expand`]), so none may reach the disk
/// here. Angle includes search no directory in any case.
pub const BASE_OPTIONS: &[&str] = &[
    "-std=c++17",
    "-lineinfo",
    "-default-device",
    "--no-source-include",
];
