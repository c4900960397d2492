//! Why a `{{#profile}}` cannot be read or has no figure, each worded as
//! the build log says it.

use crate::stored::StoredError;
use cuda_measured_core::dims::Dims;

/// Why `{{#profile}}`'s METRIC is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// Neither a short name nor a full Nsight Compute metric name.
    #[error("{}", super::not_a_metric(word))]
    NotAMetric {
        /// The word written.
        word: String,
    },
}

/// Why a stored profile gives no figure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    /// The example is not the book's, is broken or does not declare the
    /// size (the reason of [`crate::names`]).
    #[error("{0}")]
    Example(crate::names::LookupError),
    /// No profile could be read.
    #[error("no profile of `{id}` was collected ({reason})")]
    NotCollected {
        /// The example.
        id: String,
        /// Why the file could not be read.
        reason: StoredError,
    },
    /// The file holds another example's profile, or another GPU's.
    #[error("{file} holds a profile of `{example}` on {gpu}, not of `{id}` on {target}")]
    Other {
        /// The file as messages show it.
        file: String,
        /// The example it holds.
        example: String,
        /// The GPU it was profiled on.
        gpu: String,
        /// The example asked for.
        id: String,
        /// The book's target GPU.
        target: &'static str,
    },
    /// It was profiled for earlier code.
    #[error(
        "{file} was profiled for an earlier version of `{id}`; profile it again on a GPU machine"
    )]
    Earlier {
        /// The file as messages show it.
        file: String,
        /// The example.
        id: String,
    },
    /// It was profiled at another size.
    #[error("`{id}` was profiled at {}, not {size}", profiled.words())]
    Size {
        /// The example.
        id: String,
        /// The size profiled.
        profiled: Dims,
        /// The size asked for.
        size: Dims,
    },
    /// Nsight Compute did not collect the metric.
    #[error("{file} has no `{metric}`: Nsight Compute did not collect it")]
    NoMetric {
        /// The file as messages show it.
        file: String,
        /// The metric asked for.
        metric: String,
    },
    /// The profile was collected without the warp stall reasons.
    #[error(
        "{file} holds no warp stall reasons: profile `{id}` again with `cuda-runner profile --stalls` (bench/gpu-session.sh does for a {{{{#profile ID stalls SIZE}}}})"
    )]
    NoStalls {
        /// The file as messages show it.
        file: String,
        /// The example.
        id: String,
    },
}
