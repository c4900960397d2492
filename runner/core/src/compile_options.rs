//! The NVRTC options of an example: part of its key and of its record,
//! so they live beside them, without NVRTC itself (the runner compiles).

use crate::example::Example;

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

/// The options of an example, without the architecture.
pub fn options_for(example: &Example) -> Vec<String> {
    BASE_OPTIONS
        .iter()
        .map(|s| s.to_string())
        .chain(example.declaration.compile.iter().cloned())
        .collect()
}
