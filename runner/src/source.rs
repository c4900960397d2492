//! Kernel source text: the declaration header, local `#include` expansion
//! (with `#line` markers so NVRTC errors name the author's file and line),
//! and anchors that choose which part a page shows.

use std::path::{Path, PathBuf};

/// The opening of an example header comment.
pub const HEADER_OPEN: &str = "/*+++";
/// The closing of an example header comment.
pub const HEADER_CLOSE: &str = "+++*/";

/// A declaration header found in a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The TOML between the markers.
    pub toml: String,
    /// 1-based line of the opening marker within the source.
    pub line: usize,
}

/// Why a source could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// An opening marker without its closing marker.
    #[error(
        "line {line}: the example header opened with `/*+++` is never closed: end it with a line `+++*/`"
    )]
    UnclosedHeader {
        /// 1-based line of the opening marker.
        line: usize,
    },
    /// A local include that cannot be read.
    #[error(
        "{file}:{line}: cannot read `#include \"{target}\"` ({reason}); paths are relative to the including file or to kernels/"
    )]
    Include {
        /// File holding the include.
        file: String,
        /// 1-based line.
        line: usize,
        /// The path as written.
        target: String,
        /// The I/O error.
        reason: String,
    },
    /// An include cycle.
    #[error(
        "{file}:{line}: `#include \"{target}\"` includes itself (directly or through other files)"
    )]
    IncludeCycle {
        /// File holding the include.
        file: String,
        /// 1-based line.
        line: usize,
        /// The path as written.
        target: String,
    },
    /// An anchor that the file does not define.
    #[error(
        "anchor `{anchor}` is not in {file}: mark the part to show with `// ANCHOR: {anchor}` and `// ANCHOR_END: {anchor}`"
    )]
    MissingAnchor {
        /// The file.
        file: String,
        /// The anchor asked for.
        anchor: String,
    },
}

/// Finds the header comment, if any.
pub fn find_header(source: &str) -> Result<Option<Header>, SourceError> {
    let mut lines = source.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        if line.trim_start().starts_with(HEADER_OPEN) {
            let mut toml = String::new();
            for (_, inner) in lines.by_ref() {
                if inner.trim_start().starts_with(HEADER_CLOSE) {
                    return Ok(Some(Header { toml, line: i + 1 }));
                }
                toml.push_str(inner);
                toml.push('\n');
            }
            return Err(SourceError::UnclosedHeader { line: i + 1 });
        }
    }
    Ok(None)
}

/// The code a page shows: without the header, without anchor marker lines,
/// restricted to `anchor` when given, with surrounding blank lines trimmed.
pub fn display_code(source: &str, anchor: Option<&str>, file: &str) -> Result<String, SourceError> {
    let mut out = Vec::new();
    let mut in_header = false;
    let mut inside = anchor.is_none();
    let mut found = anchor.is_none();
    for line in source.lines() {
        let t = line.trim_start();
        if in_header {
            in_header = !t.starts_with(HEADER_CLOSE);
            continue;
        }
        if t.starts_with(HEADER_OPEN) {
            in_header = true;
            continue;
        }
        if let Some(name) = anchor_marker(t, "ANCHOR:") {
            if Some(name) == anchor {
                inside = true;
                found = true;
            }
            continue;
        }
        if let Some(name) = anchor_marker(t, "ANCHOR_END:") {
            if Some(name) == anchor {
                inside = false;
            }
            continue;
        }
        if inside {
            out.push(line);
        }
    }
    if !found {
        return Err(SourceError::MissingAnchor {
            file: file.to_string(),
            anchor: anchor.unwrap_or_default().to_string(),
        });
    }
    let text = out.join("\n");
    Ok(dedent(text.trim_matches('\n')))
}

fn anchor_marker<'a>(trimmed: &'a str, tag: &str) -> Option<&'a str> {
    let rest = trimmed.strip_prefix("//")?.trim_start();
    rest.strip_prefix(tag).map(str::trim)
}

/// Removes the indentation common to all non-blank lines (anchored parts
/// often sit inside a function).
fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines()
        .map(|l| {
            if l.len() >= indent {
                &l[indent..]
            } else {
                l.trim_start()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Expands local `#include "..."` lines recursively. The result starts with
/// a `#line` marker naming `display_name` at `first_line`, so that compiler
/// messages point into the author's file (a chapter for inline examples).
/// `dir` is the directory of the including file; `kernels_root` is the
/// fallback search directory.
pub fn expand(
    text: &str,
    display_name: &str,
    first_line: usize,
    dir: &Path,
    kernels_root: &Path,
) -> Result<String, SourceError> {
    let mut stack = Vec::new();
    let mut out = String::new();
    expand_into(
        &mut out,
        text,
        display_name,
        first_line,
        dir,
        kernels_root,
        &mut stack,
    )?;
    Ok(out)
}

fn expand_into(
    out: &mut String,
    text: &str,
    display_name: &str,
    first_line: usize,
    dir: &Path,
    kernels_root: &Path,
    stack: &mut Vec<PathBuf>,
) -> Result<(), SourceError> {
    out.push_str(&format!("#line {first_line} \"{display_name}\"\n"));
    for (i, line) in text.lines().enumerate() {
        let Some(target) = local_include(line) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let line_no = first_line + i;
        let candidates = [dir.join(target), kernels_root.join(target)];
        let path = candidates.iter().find(|p| p.is_file()).cloned();
        let Some(path) = path else {
            return Err(SourceError::Include {
                file: display_name.to_string(),
                line: line_no,
                target: target.to_string(),
                reason: "no such file".into(),
            });
        };
        let canonical = path.canonicalize().unwrap_or(path.clone());
        if stack.contains(&canonical) {
            return Err(SourceError::IncludeCycle {
                file: display_name.to_string(),
                line: line_no,
                target: target.to_string(),
            });
        }
        let inner = std::fs::read_to_string(&path).map_err(|e| SourceError::Include {
            file: display_name.to_string(),
            line: line_no,
            target: target.to_string(),
            reason: e.to_string(),
        })?;
        let inner_name = relative_name(&path, kernels_root);
        stack.push(canonical);
        let inner_dir = path.parent().unwrap_or(dir).to_path_buf();
        expand_into(out, &inner, &inner_name, 1, &inner_dir, kernels_root, stack)?;
        stack.pop();
        out.push_str(&format!("#line {} \"{display_name}\"\n", line_no + 1));
    }
    Ok(())
}

/// `kernels/<path>` for files under the kernels folder, else the path.
fn relative_name(path: &Path, kernels_root: &Path) -> String {
    match path.strip_prefix(kernels_root) {
        Ok(rel) => format!("kernels/{}", rel.display()),
        Err(_) => path.display().to_string(),
    }
}

fn local_include(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("include")?.trim();
    let rest = rest.strip_prefix('"')?;
    rest.split_once('"').map(|(target, _)| target)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = "/*+++\nproblem = \"sum_f32\"\n+++*/\n\n// ANCHOR: fold\n    if (t < s) a[t] += a[t + s];\n// ANCHOR_END: fold\nextern \"C\" __global__ void k() {}\n";

    // The header is found with the line it starts on.
    #[test]
    fn header_is_found_with_its_line() {
        let h = find_header(KERNEL).unwrap().unwrap();
        assert_eq!(h.line, 1);
        assert_eq!(h.toml.trim(), "problem = \"sum_f32\"");
    }

    // An unclosed header names its line instead of swallowing the kernel.
    #[test]
    fn unclosed_header_is_an_error() {
        let err = find_header("int x;\n/*+++\nproblem = 1\n").unwrap_err();
        assert!(err.to_string().starts_with("line 2:"), "{err}");
    }

    // Pages show the anchored part, dedented, without marker lines.
    #[test]
    fn anchor_selects_and_dedents() {
        let shown = display_code(KERNEL, Some("fold"), "k.cu").unwrap();
        assert_eq!(shown, "if (t < s) a[t] += a[t + s];");
        let whole = display_code(KERNEL, None, "k.cu").unwrap();
        assert!(!whole.contains("+++") && !whole.contains("ANCHOR"));
        assert!(whole.starts_with("if (t < s)") || whole.contains("extern"));
    }

    // Asking for an anchor the file lacks tells the author how to add it.
    #[test]
    fn missing_anchor_says_how_to_mark_it() {
        let err = display_code(KERNEL, Some("nope"), "k.cu").unwrap_err();
        assert!(err.to_string().contains("// ANCHOR: nope"));
    }

    // Includes are spliced in with #line markers back to the author's lines.
    #[test]
    fn includes_expand_with_line_markers() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("common.cuh"), "#define ONE 1\n").unwrap();
        let text = "int a;\n#include \"common.cuh\"\nint b;\n";
        let out = expand(text, "src/ch.md", 10, dir.path(), dir.path()).unwrap();
        assert_eq!(
            out,
            "#line 10 \"src/ch.md\"\nint a;\n#line 1 \"kernels/common.cuh\"\n#define ONE 1\n#line 12 \"src/ch.md\"\nint b;\n"
        );
    }

    // A file that includes itself is reported, not expanded forever.
    #[test]
    fn include_cycles_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("loop.cuh"), "#include \"loop.cuh\"\n").unwrap();
        let err = expand("#include \"loop.cuh\"\n", "a.cu", 1, dir.path(), dir.path()).unwrap_err();
        assert!(matches!(err, SourceError::IncludeCycle { .. }), "{err}");
    }
}
