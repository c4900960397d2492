//! A runnable example, resolved from an inline block or a file under
//! `kernels/`: its id, where the author wrote it, the source NVRTC compiles,
//! the code a page shows, and its declaration.

use crate::compile_options::BASE_OPTIONS;
use crate::declaration::Declaration;
use crate::header_lines::{HeaderField, header_field_line};
use crate::source::{self, SourceError};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Where an example was written, for error messages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// Path relative to the book root (`kernels/reductions/stride.cu`,
    /// `src/reductions.md`).
    pub file: String,
    /// 1-based line of the example's start in that file.
    pub line: usize,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A fully resolved example.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Example {
    /// Unique id in the book; also its file name in the store.
    pub id: String,
    /// Where it was written.
    pub origin: Origin,
    /// The source NVRTC compiles: includes expanded, `#line` markers in.
    pub source: String,
    /// The code a page shows.
    pub display: String,
    /// The parsed header.
    pub declaration: Declaration,
}

/// Why an example could not be resolved; always names a file and line.
#[derive(Debug, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct ExampleError {
    /// Where.
    pub origin: Origin,
    /// What and how to fix it.
    pub message: String,
}

impl Example {
    /// `file:line` of `field` in the `index`-th `[[launch]]` table of the
    /// example's header (the table's own line when the field is not
    /// written, for a default such as `shared`).
    pub fn header_place(&self, index: usize, field: &str) -> String {
        self.header_place_of(HeaderField::Launch(index, field))
    }

    /// `file:line` of `field` in the example's header: the line where it
    /// is written, else the line of its table, else the header's first
    /// line.
    pub fn header_place_of(&self, field: HeaderField<'_>) -> String {
        let line = header_field_line(&self.source, field);
        format!(
            "{}:{}",
            self.origin.file,
            self.origin.line + line.unwrap_or(0)
        )
    }

    /// The NVRTC options it is compiled with, without the architecture:
    /// [`BASE_OPTIONS`], its declaration's `compile` list and, for one
    /// value of a sweep ([`Example::variants`]), `-DNAME=VALUE`.
    pub fn compile_options(&self) -> Vec<String> {
        BASE_OPTIONS
            .iter()
            .map(|s| s.to_string())
            .chain(self.declaration.compile.iter().cloned())
            .chain(self.declaration.chosen().map(|v| v.define()))
            .collect()
    }

    /// What is compiled and run, in order: the example itself when it
    /// sweeps nothing, else one example per value of its `[sweep]` (each
    /// compiled with `-DNAME=VALUE` and planned with NAME = VALUE), with
    /// the value.
    pub fn variants(&self) -> Vec<(Option<crate::sweep::SweepValue>, Example)> {
        self.declaration
            .sweep_values()
            .into_iter()
            .map(|value| {
                let example = match &value {
                    Some(v) => Example {
                        declaration: self.declaration.at_value(v),
                        ..self.clone()
                    },
                    None => self.clone(),
                };
                (value, example)
            })
            .collect()
    }

    /// Resolves an example kept in a file under `kernels/`.
    /// `rel_path` is relative to the kernels folder; `id` defaults to the
    /// path without its extension.
    pub fn from_file(
        book_root: &Path,
        kernels_dir: &Path,
        rel_path: &str,
        anchor: Option<&str>,
        id: Option<&str>,
    ) -> Result<Self, ExampleError> {
        let path = kernels_dir.join(rel_path);
        let shown_path = display_path(book_root, &path);
        let fail = |line: usize, message: String| ExampleError {
            origin: Origin {
                file: shown_path.clone(),
                line,
            },
            message,
        };
        let text = std::fs::read_to_string(&path).map_err(|e| {
            fail(
                1,
                format!(
                    "cannot read the kernel file ({e}); `file=` is relative to the kernels folder"
                ),
            )
        })?;
        Example::from_text(book_root, kernels_dir, rel_path, &text, anchor, id)
    }

    /// [`Example::from_file`] with `text` standing for the file's content
    /// (the Run service's reader's code spliced into the book's file):
    /// includes resolve from the file's own folder, messages name it.
    pub fn from_text(
        book_root: &Path,
        kernels_dir: &Path,
        rel_path: &str,
        text: &str,
        anchor: Option<&str>,
        id: Option<&str>,
    ) -> Result<Self, ExampleError> {
        let path = kernels_dir.join(rel_path);
        let shown_path = display_path(book_root, &path);
        let fail = |line: usize, message: String| ExampleError {
            origin: Origin {
                file: shown_path.clone(),
                line,
            },
            message,
        };
        let text = text.replace("\r\n", "\n");
        let declaration = parse_declaration(&text, &shown_path, 1)?;
        let display =
            source::display_code(&text, anchor, &shown_path).map_err(|e| fail(1, e.to_string()))?;
        let dir = path.parent().unwrap_or(kernels_dir);
        let compiled = source::expand(&text, &shown_path, 1, dir, kernels_dir)
            .map_err(|e| at_source_error(e, &shown_path, 1))?;
        let default_id = default_id(rel_path);
        Ok(Example {
            id: id.unwrap_or(default_id).to_string(),
            origin: Origin {
                file: shown_path,
                line: 1,
            },
            source: compiled,
            display,
            declaration,
        })
    }

    /// Resolves an example written inline in a chapter. `body_line` is the
    /// 1-based line of the block's first content line in `chapter_file`.
    pub fn from_inline(
        kernels_dir: &Path,
        chapter_file: &str,
        chapter_dir: &Path,
        body: &str,
        body_line: usize,
        id: &str,
    ) -> Result<Self, ExampleError> {
        let body = body.replace("\r\n", "\n");
        let declaration = parse_declaration(&body, chapter_file, body_line)?;
        let fail = |message: String| ExampleError {
            origin: Origin {
                file: chapter_file.to_string(),
                line: body_line,
            },
            message,
        };
        let display =
            source::display_code(&body, None, chapter_file).map_err(|e| fail(e.to_string()))?;
        let compiled = source::expand(&body, chapter_file, body_line, chapter_dir, kernels_dir)
            .map_err(|e| at_source_error(e, chapter_file, body_line))?;
        Ok(Example {
            id: id.to_string(),
            origin: Origin {
                file: chapter_file.to_string(),
                line: body_line,
            },
            source: compiled,
            display,
            declaration,
        })
    }
}

/// The id of an example kept in `rel_path` (relative to the kernels
/// folder) when its block names none: the path without its extension
/// (`reductions/tree.cu` → `reductions/tree`).
pub fn default_id(rel_path: &str) -> &str {
    rel_path
        .rsplit_once('.')
        .map(|(stem, _)| stem)
        .unwrap_or(rel_path)
}

fn parse_declaration(
    text: &str,
    file: &str,
    first_line: usize,
) -> Result<Declaration, ExampleError> {
    let at = |line: usize, message: String| ExampleError {
        origin: Origin {
            file: file.to_string(),
            line: first_line + line - 1,
        },
        message,
    };
    let header = source::find_header(text)
        .map_err(|e: SourceError| match e {
            SourceError::UnclosedHeader { line } => at(line, e.to_string()),
            other => at(1, other.to_string()),
        })?
        .ok_or_else(|| {
            at(
                1,
                "no example header: start the kernel with a `/*+++ ... +++*/` comment holding problem, sizes and [[launch]] (see AUTHORING.md)".into(),
            )
        })?;
    // The TOML starts on the line after `/*+++`; an error at a line of it
    // is reported at that line of the file, others at the opening line.
    Declaration::parse(&header.toml).map_err(|e| {
        let line = e.line().map_or(header.line, |l| header.line + l);
        at(line, e.to_string())
    })
}

/// An include error at the include's own file and line; any other source
/// error at `file:line`.
fn at_source_error(e: SourceError, file: &str, line: usize) -> ExampleError {
    let text = e.to_string();
    let (file, line) = e.place().unwrap_or((file, line));
    let prefix = format!("{file}:{line}: ");
    ExampleError {
        origin: Origin {
            file: file.to_string(),
            line,
        },
        message: text.strip_prefix(&prefix).unwrap_or(&text).to_string(),
    }
}

fn display_path(book_root: &Path, path: &Path) -> String {
    path.strip_prefix(book_root)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = "/*+++\nproblem = \"sum_f32\"\nsizes = [\"2^20\"]\n[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 32\nargs = [\"input\", \"out\", \"n\"]\n+++*/\nextern \"C\" __global__ void k(const float* x, float* out, unsigned n) {}\n";

    // An inline block's compile errors will point at the chapter's lines.
    #[test]
    fn inline_example_keeps_chapter_lines() {
        let dir = tempfile::tempdir().unwrap();
        let ex =
            Example::from_inline(dir.path(), "src/ch.md", dir.path(), BODY, 42, "demo").unwrap();
        assert!(ex.source.starts_with("#line 42 \"src/ch.md\"\n"));
        assert!(ex.display.starts_with("extern \"C\""));
        assert_eq!(ex.id, "demo");
    }

    // A header error names the chapter line of the key at fault, and the
    // key most likely meant; an error about the header as a whole names
    // the line where it starts.
    #[test]
    fn header_errors_name_the_chapter_line() {
        let dir = tempfile::tempdir().unwrap();
        let inline = |body: &str| {
            Example::from_inline(dir.path(), "src/ch.md", dir.path(), body, 42, "demo")
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            inline(&BODY.replace("sizes", "sises")),
            "src/ch.md:44: unknown key `sises`; did you mean `sizes`?"
        );
        assert_eq!(
            inline(&BODY.replace("problem = \"sum_f32\"\n", "")),
            "src/ch.md:42: the example header is not valid: missing field `problem`"
        );
        assert_eq!(
            inline(&BODY.replace("sum_f32", "sum_f23")),
            "src/ch.md:43: unknown problem `sum_f23`; did you mean `sum_f32`?"
        );
    }

    // In a kernel file, a TOML error is at the file's line, below a header
    // that does not open on line 1; the message is the parser's first line.
    #[test]
    fn toml_errors_name_the_file_line() {
        let dir = tempfile::tempdir().unwrap();
        let kernels = dir.path().join("kernels");
        std::fs::create_dir_all(&kernels).unwrap();
        let text = format!(
            "// a sum\n\n{}",
            BODY.replace("block = 32", "block = 32 32")
        );
        std::fs::write(kernels.join("k.cu"), text).unwrap();
        let err = Example::from_file(dir.path(), &kernels, "k.cu", None, None).unwrap_err();
        assert_eq!(err.origin.line, 9);
        assert_eq!(
            err.to_string(),
            "kernels/k.cu:9: the example header is not valid: string values must be quoted, expected literal string"
        );
    }

    // An include from outside kernels/ is named once, at its own line.
    #[test]
    fn include_errors_name_the_include_line_once() {
        let dir = tempfile::tempdir().unwrap();
        let body = BODY.replace("+++*/\n", "+++*/\n#include \"/etc/passwd\"\n");
        let err = Example::from_inline(dir.path(), "src/ch.md", dir.path(), &body, 42, "demo")
            .unwrap_err();
        assert_eq!(err.origin.line, 51);
        assert!(
            err.to_string().starts_with(
                "src/ch.md:51: `#include \"/etc/passwd\"` is outside the book's kernels/ folder"
            ),
            "{err}"
        );
    }

    // A file example gets its id from its path; CRLF files are read alike.
    #[test]
    fn file_example_id_from_path_and_crlf() {
        let dir = tempfile::tempdir().unwrap();
        let kernels = dir.path().join("kernels");
        std::fs::create_dir_all(kernels.join("reductions")).unwrap();
        std::fs::write(
            kernels.join("reductions/tree.cu"),
            BODY.replace('\n', "\r\n"),
        )
        .unwrap();
        let ex =
            Example::from_file(dir.path(), &kernels, "reductions/tree.cu", None, None).unwrap();
        assert_eq!(ex.id, "reductions/tree");
        assert_eq!(ex.origin.file, "kernels/reductions/tree.cu");
        assert!(!ex.source.contains('\r'));
    }
}
