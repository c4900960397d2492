//! Why a directive cannot be read: a size or word that is not one of its
//! arguments, a wrong number of arguments, an artifact's arguments, or a
//! name that is no directive of this book. The caller adds the place.

use crate::artifacts::{allreduce, peers, profile, sanitizer, sass};
use cuda_measured_core::dims::SyntaxError;

/// Why a directive cannot be read, with the fix. Its text is the one the
/// page and the strict build show after the directive's place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DirectiveError {
    /// SIZE is not a size.
    #[error(
        "`{text}` is not a size: {error}; write one of the example's sizes without spaces, e.g. \"2^20\", \"8192x4096\" or \"M=N=K=4096\""
    )]
    Size {
        /// The size as written.
        text: String,
        /// What is wrong with it.
        error: SyntaxError,
    },
    /// A word is not one of those the directive takes (with the one
    /// meant, and the list).
    #[error("{0}")]
    Word(String),
    /// The directive has the wrong arguments: how to write it.
    #[error("{0}")]
    Usage(String),
    /// `{{#profile}}`'s METRIC.
    #[error(transparent)]
    Profile(#[from] profile::ArgsError),
    /// `{{#peers}}`'s arguments.
    #[error(transparent)]
    Peers(#[from] peers::ArgsError),
    /// `{{#sass}}`'s or `{{#sass_count}}`'s arguments.
    #[error(transparent)]
    Sass(#[from] sass::ArgsError),
    /// `{{#sanitizer}}`'s CHECK.
    #[error(transparent)]
    Sanitizer(#[from] sanitizer::ArgsError),
    /// `{{#allreduce}}`'s or `{{#allreduce_figure}}`'s arguments.
    #[error(transparent)]
    Allreduce(#[from] allreduce::ArgsError),
    /// No directive of this book has the name (with the one meant, or
    /// every directive).
    #[error("{}", super::unknown_directive(.name))]
    Unknown {
        /// The name written.
        name: String,
    },
}
