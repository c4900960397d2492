//! What a directive shows when it is not a view of a stored artifact: a
//! figure with its tooltip, or why there is none (not measured, or a
//! mistake in the directive). The views of stored artifacts
//! (the kinds of [`crate::artifacts`]:
//! SASS, profiles, sanitizer, host, peers, repeatability, all-reduce) return it where they show no view, and
//! [`crate::values`] turns it into the matching `Value`.

/// A figure, or why a directive shows none.
#[derive(Debug, Clone, PartialEq)]
pub enum Shown {
    /// A figure as text, with a tooltip saying where it comes from.
    Figure {
        /// `251.2 µs`.
        text: String,
        /// `r/tree at N = 2^28 on NVIDIA H200`.
        title: String,
    },
    /// Data that is not (currently) measured.
    Unmeasured(String),
    /// A directive that names what the book does not have (a kernel, an
    /// anchor), with the fix: an error at the directive's line.
    Mistake(String),
}
