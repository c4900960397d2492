//! The subcommands of `cuda-runner`, one file each: an `Args` struct for
//! clap where the subcommand takes arguments, and an `execute` function.
//! [`resolve`] holds what several of them share: the examples named on the
//! command line, their sizes and the results files they write.

pub mod allreduce;
pub mod check;
pub mod compile;
pub mod compile_workers;
pub mod device;
pub mod launch_once;
pub mod measure;
pub mod new;
pub mod peers;
pub mod plan;
pub mod profile;
pub mod repeatability;
pub mod resolve;
pub mod run;
pub mod sanitize;
pub mod sass;
pub mod worker;
