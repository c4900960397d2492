//! Judging a stage's gates.
