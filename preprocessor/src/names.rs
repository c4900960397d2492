//! Whether the examples and sizes a directive names are the book's: an id
//! no example has (with the id meant), an example that is broken (with
//! the error of its header or block), a size the example does not declare
//! (with the size meant). Evaluating a directive ([`crate::values`]) and
//! the `check` commands ([`crate::directives::check`]) ask the same
//! questions; none needs a GPU or the
//! results store, so an example that is not measured yet is no problem
//! here.

use crate::catalog::{Catalog, Entry};
use crate::scan::RunSpec;
use cuda_measured_core::dims::{Dims, Written};
use cuda_measured_core::example::Example;
use cuda_measured_core::suggest;

/// Why a directive's example, size or figures cannot be had: the id is
/// not the book's, the example does not declare the size, or it has no
/// current figures there. Its text is the one the page shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// The id is written in the book but its example is broken (the
    /// first line of its error).
    #[error("`{id}` is broken: {first}")]
    BrokenId {
        /// The id.
        id: String,
        /// The first line of the example's error.
        first: String,
    },
    /// No example has the id (with the id meant, when one is close).
    #[error("no example with id `{id}` in this book{}", meant.as_ref().map(|m| format!("; did you mean `{m}`?")).unwrap_or_default())]
    NoSuchId {
        /// The id.
        id: String,
        /// The book's id it is a typo of.
        meant: Option<String>,
    },
    /// The example does not declare the size ([`undeclared_size`]).
    #[error("{0}")]
    Undeclared(String),
    /// The size is not one of the example's dimensions.
    #[error("`{id}`: {error}")]
    Size {
        /// The example's id.
        id: String,
        /// Why the written size is not one of its dimensions.
        error: cuda_measured_core::dims::DimsError,
    },
    /// The directive's value of a sweep is wrong
    /// ([`crate::example_ref::value_of`]).
    #[error(transparent)]
    Value(#[from] crate::example_ref::ValueError),
    /// The stored record is of an earlier version of the example's code.
    #[error("`{0}` was measured for an earlier version of its code")]
    Stale(String),
    /// The example has no stored record.
    #[error("`{0}` is not measured yet")]
    Missing(String),
    /// The example is broken.
    #[error("`{0}` is broken, see its panel")]
    Broken(String),
    /// The record has no timed result at the size.
    #[error("`{id}` has no timed result at {size}")]
    NoTimedResult {
        /// The example's id, as the directive writes it.
        id: String,
        /// The size, in words.
        size: String,
    },
    /// The record at the size lacks a figure a directive asks for.
    #[error("`{id}` has no {what} at {size}")]
    Lacks {
        /// The example's id, as the directive writes it.
        id: String,
        /// The figure, in words.
        what: String,
        /// The size, in words.
        size: String,
    },
    /// The record at the size has no figure of that name (with those it
    /// has).
    #[error("`{id}` has no figure `{name}` at {size}; it has {has}")]
    LacksNamed {
        /// The example's id, as the directive writes it.
        id: String,
        /// The figure's name.
        name: String,
        /// The size, in words.
        size: String,
        /// The names of the figures it has, joined.
        has: String,
    },
    /// A ladder's rung reports another primary figure than its first.
    #[error("`{id}` reports {reports}, not {figure} as the ladder's first example does")]
    OtherFigure {
        /// The rung's id.
        id: String,
        /// The figure it reports.
        reports: String,
        /// The ladder's figure.
        figure: String,
    },
    /// A ladder's rung has no value of the ladder's figure.
    #[error("`{id}` has no {figure} at N = {n}")]
    NoFigure {
        /// The rung's id.
        id: String,
        /// The ladder's figure.
        figure: String,
        /// The size's N.
        n: String,
    },
    /// No current record names a GPU.
    #[error("no example of this book has a current result measured on a GPU")]
    NoGpu,
}

/// The example `id` names, or why there is none: no example has the id
/// (with the id meant, when one is close), or the example is broken
/// (with its error).
pub fn example<'a>(catalog: &'a Catalog, id: &str) -> Result<&'a Example, LookupError> {
    catalog
        .by_id(id)
        .and_then(|index| catalog.entries[index].example())
        .ok_or_else(|| unknown_id(catalog, id))
}

/// Why no example has id `id`: it is written but broken (its error, which
/// names the place of its header's or block's mistake), or it is a typo of
/// an id of the book, broken ones included (one or two letters off, or
/// another folder: `stride` for `reductions/stride`).
pub fn unknown_id(catalog: &Catalog, id: &str) -> LookupError {
    let entries = &catalog.entries;
    let broken = entries
        .iter()
        .find(|e| e.example().is_none() && written_id(e) == Some(id));
    if let Some(Err(error)) = broken.map(|e| &e.resolved) {
        let error = error.to_string();
        let first = error.lines().next().unwrap_or_default();
        return LookupError::BrokenId {
            id: id.to_string(),
            first: first.to_string(),
        };
    }
    let ids: Vec<&str> = entries.iter().filter_map(written_id).collect();
    fn last(id: &str) -> &str {
        id.rsplit('/').next().unwrap_or(id)
    }
    let meant = suggest::closest(id, ids.iter().copied())
        .or_else(|| ids.iter().copied().find(|other| last(other) == last(id)));
    LookupError::NoSuchId {
        id: id.to_string(),
        meant: meant.map(str::to_string),
    }
}

/// Why `size` cannot be asked of `example`: it is not one of its declared
/// sizes (named, with the one meant when one is a typo away).
pub fn undeclared_size(example: &Example, size: Dims) -> Option<String> {
    let sizes = &example.declaration.sizes;
    (!sizes.contains(&size)).then(|| {
        let list: Vec<String> = sizes.iter().map(Dims::to_string).collect();
        // Of one size, the list says it already; when several are a typo
        // away (`2^24` from `2^20` and `2^28`), none is more likely meant.
        let written = size.to_string();
        let candidates = || list.iter().map(String::as_str);
        let meant = match suggest::closest(&written, candidates()) {
            Some(one)
                if list.len() > 1
                    && suggest::closest(&written, candidates().filter(|c| *c != one)).is_none() =>
            {
                format!("; did you mean `{one}`?")
            }
            _ => String::new(),
        };
        let sep = if sizes.iter().all(Dims::is_flat) {
            ", "
        } else {
            "; "
        };
        format!(
            "`{}` does not declare {}: its declared sizes are {}{meant}",
            example.id,
            size.words(),
            list.join(sep),
        )
    })
}

/// Why `size`, as a directive writes it, is not a declared size of
/// `example`: it is not a size of the example's dimensions at all, or not
/// one it declares.
pub fn undeclared_written(example: &Example, size: &Written) -> Option<String> {
    match size.resolve(example.declaration.dims()) {
        Err(e) => Some(format!("`{}`: {e}", example.id)),
        Ok(dims) => undeclared_size(example, dims),
    }
}

/// The id an entry has or would have: its example's, else the one its
/// block writes, else its file's path without the extension.
pub fn written_id(entry: &Entry) -> Option<&str> {
    if let Some(example) = entry.example() {
        return Some(&example.id);
    }
    match entry.block.spec.as_ref().ok()? {
        RunSpec::Inline { id } | RunSpec::File { id: Some(id), .. } => Some(id),
        RunSpec::File { path, .. } => Some(cuda_measured_core::example::default_id(path)),
    }
}

/// Why the GPU session cannot run `example` for `directive`: it runs
/// `kernels/ID.cu`, so the example must be a kernel file under its default
/// id (the path without `.cu`), not an inline one or one renamed by `id=`.
pub fn not_a_kernel_file(example: &Example, directive: &str) -> Option<String> {
    let file = &example.origin.file;
    let own = format!("{}.cu", example.id);
    let runnable = file == &own || file.ends_with(&format!("/{own}"));
    (!runnable).then(|| {
        format!(
            "`{}` is written in {file}, not in kernels/{own}: bench/gpu-session.sh runs {directive} for kernel files under their default id (the path without .cu); move the example into kernels/{own}, or drop its id=",
            example.id
        )
    })
}

#[cfg(test)]
mod tests {
    use super::LookupError;

    // The typed lookups say what the page said when they were strings:
    // the figures a directive asks of a record are named with the id as
    // written and the size in words.
    #[test]
    fn lookup_errors_keep_their_text() {
        let cases = [
            (
                LookupError::NoSuchId {
                    id: "a".into(),
                    meant: Some("b".into()),
                },
                "no example with id `a` in this book; did you mean `b`?",
            ),
            (
                LookupError::NoTimedResult {
                    id: "s@STRIDE=4".into(),
                    size: "N = 2^20".into(),
                },
                "`s@STRIDE=4` has no timed result at N = 2^20",
            ),
            (
                LookupError::LacksNamed {
                    id: "a".into(),
                    name: "tflops".into(),
                    size: "N = 2^20".into(),
                    has: "gbs, ns_per_access".into(),
                },
                "`a` has no figure `tflops` at N = 2^20; it has gbs, ns_per_access",
            ),
            (
                LookupError::NoFigure {
                    id: "a".into(),
                    figure: "gbs".into(),
                    n: "1024".into(),
                },
                "`a` has no gbs at N = 1024",
            ),
            (
                LookupError::NoGpu,
                "no example of this book has a current result measured on a GPU",
            ),
        ];
        for (error, want) in cases {
            assert_eq!(error.to_string(), want);
        }
    }
}
