//! Registering a stage's kernels.
