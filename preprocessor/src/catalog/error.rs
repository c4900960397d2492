//! Why a runnable block or an `{{#exercise}}` stage does not resolve to
//! an example: its fence, its example's header or file, its plan, its
//! store path, an id another example took, or its stage file. Every text
//! names the place (file and line) and the fix.

use cuda_measured_core::example::Origin;
use cuda_measured_core::exercise::StageError;
use cuda_measured_core::header_lines::HeaderError;

/// Why a block or stage does not resolve, with its place and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// The block's fence cannot be read.
    #[error("{place}: {error}")]
    Block {
        /// The block.
        place: Origin,
        /// Why its fence cannot be read.
        error: crate::scan::SpecError,
    },
    /// The example cannot be read (its header, body or file); the block's
    /// place comes first unless the message names it already (an inline
    /// example reports its chapter's lines itself).
    #[error("{}", with_place(place, message))]
    Example {
        /// The block.
        place: Origin,
        /// Why the example cannot be read.
        message: String,
    },
    /// The example's plan fails a check that needs no GPU.
    #[error("{}", with_place(place, &error.to_string()))]
    Plan {
        /// The block.
        place: Origin,
        /// What the plan gets wrong.
        error: HeaderError,
    },
    /// The example's id cannot name a file of the results store.
    #[error("{place}: {message}")]
    Store {
        /// The block.
        place: Origin,
        /// The store's reason.
        message: String,
    },
    /// Another example already took the id.
    #[error(
        "{place}: duplicate example id `{id}`, also used at {earlier}: give one of them another id=NAME"
    )]
    Duplicate {
        /// This block.
        place: Origin,
        /// The id.
        id: String,
        /// The other example's block.
        earlier: Origin,
    },
    /// No stage file has the name `{{#exercise}}` gives.
    #[error("{place}: {message}")]
    NoStage {
        /// The directive's place.
        place: String,
        /// The stages there are, with the one meant.
        message: String,
    },
    /// The stage file is wrong (it names its own file and line).
    #[error(transparent)]
    Stage(StageError),
}

/// `message` after `place`, unless it starts with the place's file.
fn with_place(place: &Origin, message: &str) -> String {
    if message.starts_with(&place.file) {
        message.to_string()
    } else {
        format!("{place}: {message}")
    }
}
