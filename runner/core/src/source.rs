//! Kernel source text: the declaration header, local `#include` expansion
//! (with `#line` markers so NVRTC errors name the author's file and line),
//! and anchors that choose which part a page shows.
//!
//! Includes are confined to the book's `kernels/` folder: a quoted include
//! must resolve (symlinks followed) to a file inside it, an angle include
//! may only name a header built into NVRTC (a relative name without `..`),
//! and every other include-like directive is refused; see
//! [`crate::include_scan`]. Nothing outside `kernels/` is ever read, so it
//! cannot reach a compile log, a stored record or a page.

use crate::include_scan::{self, Found};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// The opening of an example header comment.
pub const HEADER_OPEN: &str = "/*+++";
/// The closing of an example header comment.
pub const HEADER_CLOSE: &str = "+++*/";

/// A declaration header found in a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The TOML between the markers; its first line is the line after
    /// the opening marker's, so TOML line `k` is source line `line + k`.
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
    /// An include that names something outside the book's kernels folder
    /// (an absolute path, a `..` escape, a symlink leading out, or an angle
    /// include that is not a built-in header name).
    #[error(
        "{file}:{line}: `{written}` is outside the book's kernels/ folder; includes may only name files under kernels/ (relative to the including file or to kernels/) and headers built into NVRTC (`#include <name>`)"
    )]
    IncludeOutside {
        /// File holding the include.
        file: String,
        /// 1-based line.
        line: usize,
        /// The include, e.g. `#include "/etc/passwd"`.
        written: String,
    },
    /// An include-like directive in a form the book does not accept
    /// (computed, split across lines, `#include_next`, a digraph, ...).
    #[error("{file}:{line}: `{written}` {why}")]
    IncludeForm {
        /// File holding the directive.
        file: String,
        /// 1-based line.
        line: usize,
        /// The line as written.
        written: String,
        /// What is wrong and how to fix it.
        why: String,
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

impl SourceError {
    /// The file and line an include error points at (the include's own
    /// line, in whichever file holds it).
    pub fn place(&self) -> Option<(&str, usize)> {
        match self {
            SourceError::Include { file, line, .. }
            | SourceError::IncludeOutside { file, line, .. }
            | SourceError::IncludeForm { file, line, .. }
            | SourceError::IncludeCycle { file, line, .. } => Some((file, *line)),
            _ => None,
        }
    }
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
    let lines: Vec<&str> = source.lines().collect();
    let shown = shown_lines(source, anchor, file)?;
    let text = shown
        .shown
        .iter()
        .map(|&i| lines[i])
        .collect::<Vec<_>>()
        .join("\n");
    Ok(dedent(text.trim_matches('\n')))
}

/// Which lines of a source a page shows ([`display_code`] joins, trims and
/// dedents them), and which lines it hides: 0-based indices into
/// `source.lines()`, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShownLines {
    /// The lines shown (before blank lines around them are trimmed).
    pub shown: Vec<usize>,
    /// The header's lines, its `/*+++` and `+++*/` included.
    pub header: Vec<usize>,
    /// The anchor marker lines (`// ANCHOR: x`, `// ANCHOR_END: x`).
    pub markers: Vec<usize>,
}

/// The lines of `source` a page shows for `anchor` (the whole file without
/// its header and marker lines when `None`); an anchor the file does not
/// have is an error naming `file`.
pub fn shown_lines(
    source: &str,
    anchor: Option<&str>,
    file: &str,
) -> Result<ShownLines, SourceError> {
    let mut out = ShownLines::default();
    let mut in_header = false;
    let mut inside = anchor.is_none();
    let mut found = anchor.is_none();
    for (i, line) in source.lines().enumerate() {
        let t = line.trim_start();
        if in_header {
            in_header = !t.starts_with(HEADER_CLOSE);
            out.header.push(i);
            continue;
        }
        if t.starts_with(HEADER_OPEN) {
            in_header = true;
            out.header.push(i);
            continue;
        }
        if let Some(name) = anchor_marker(t, "ANCHOR:") {
            if Some(name) == anchor {
                inside = true;
                found = true;
            }
            out.markers.push(i);
            continue;
        }
        if let Some(name) = anchor_marker(t, "ANCHOR_END:") {
            if Some(name) == anchor {
                inside = false;
            }
            out.markers.push(i);
            continue;
        }
        if inside {
            out.shown.push(i);
        }
    }
    if !found {
        return Err(SourceError::MissingAnchor {
            file: file.to_string(),
            anchor: anchor.unwrap_or_default().to_string(),
        });
    }
    Ok(out)
}

/// The name of an anchor marker line (`// ANCHOR: fold` with `tag`
/// `ANCHOR:`), given the line without its leading spaces.
pub fn anchor_marker<'a>(trimmed: &'a str, tag: &str) -> Option<&'a str> {
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
/// fallback search directory, and the only folder includes may read from:
/// every include in a file is checked before any of them is read.
pub fn expand(
    text: &str,
    display_name: &str,
    first_line: usize,
    dir: &Path,
    kernels_root: &Path,
) -> Result<String, SourceError> {
    if !marker_safe(display_name) {
        return Err(SourceError::IncludeForm {
            file: display_name.escape_debug().to_string(),
            line: first_line,
            written: display_name.escape_debug().to_string(),
            why: UNSAFE_NAME.to_string(),
        });
    }
    let roots = Roots {
        given: kernels_root,
        canonical: kernels_root.canonicalize().ok(),
    };
    let mut stack = Vec::new();
    let mut out = String::new();
    expand_into(
        &mut out,
        text,
        display_name,
        first_line,
        dir,
        &roots,
        &mut stack,
    )?;
    Ok(out)
}

/// The kernels folder as given and with symlinks resolved (`None` when it
/// does not exist: then no include can resolve inside it).
struct Roots<'a> {
    given: &'a Path,
    canonical: Option<PathBuf>,
}

fn expand_into(
    out: &mut String,
    text: &str,
    display_name: &str,
    first_line: usize,
    dir: &Path,
    roots: &Roots<'_>,
    stack: &mut Vec<PathBuf>,
) -> Result<(), SourceError> {
    let text = include_scan::normalize_newlines(text);
    let found =
        include_scan::scan(&text, !stack.is_empty()).map_err(|r| SourceError::IncludeForm {
            file: display_name.to_string(),
            line: first_line + r.line,
            written: r.written,
            why: r.why,
        })?;
    // Every include of this file is confined before any is read.
    let mut quoted: HashMap<usize, (&str, PathBuf)> = HashMap::new();
    for item in &found {
        let line = first_line + item.line();
        let outside = |written: String| SourceError::IncludeOutside {
            file: display_name.to_string(),
            line,
            written,
        };
        match item {
            Found::Angle { target, .. } if !builtin_header_name(target) => {
                return Err(outside(format!("#include <{target}>")));
            }
            Found::HasInclude { target, .. } if !builtin_header_name(target) => {
                return Err(outside(format!("__has_include(<{target}>)")));
            }
            Found::Angle { .. } | Found::HasInclude { .. } => {}
            Found::Quoted {
                line: index,
                target,
            } => match resolve(target, dir, roots) {
                Resolved::Inside(path) => {
                    quoted.insert(*index, (target.as_str(), path));
                }
                Resolved::Outside => return Err(outside(format!("#include \"{target}\""))),
                Resolved::Missing => {
                    return Err(SourceError::Include {
                        file: display_name.to_string(),
                        line,
                        target: target.to_string(),
                        reason: "no such file".into(),
                    });
                }
            },
        }
    }
    out.push_str(&format!("#line {first_line} \"{display_name}\"\n"));
    for (i, line) in text.lines().enumerate() {
        let Some((target, path)) = quoted.get(&i) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let line_no = first_line + i;
        if stack.contains(path) {
            return Err(SourceError::IncludeCycle {
                file: display_name.to_string(),
                line: line_no,
                target: target.to_string(),
            });
        }
        let inner = std::fs::read_to_string(path).map_err(|e| SourceError::Include {
            file: display_name.to_string(),
            line: line_no,
            target: target.to_string(),
            reason: e.to_string(),
        })?;
        let inner_name = relative_name(path, roots);
        if !marker_safe(&inner_name) {
            return Err(SourceError::IncludeForm {
                file: display_name.to_string(),
                line: line_no,
                written: format!("#include \"{target}\""),
                why: format!("leads to `{}`: {UNSAFE_NAME}", inner_name.escape_debug()),
            });
        }
        stack.push(path.clone());
        let inner_dir = path.parent().unwrap_or(dir).to_path_buf();
        expand_into(out, &inner, &inner_name, 1, &inner_dir, roots, stack)?;
        stack.pop();
        out.push_str(&format!("#line {} \"{display_name}\"\n", line_no + 1));
    }
    Ok(())
}

/// Why a file name cannot be compiled.
const UNSAFE_NAME: &str = "a file name with a quote, a backslash or a control character cannot be named in the `#line` markers that point compiler messages at the author's lines (a newline there would start a new source line); rename the file";

/// Whether `name` can stand between the quotes of a `#line` marker
/// without ending it or starting a new line.
fn marker_safe(name: &str) -> bool {
    !name
        .chars()
        .any(|c| c == '"' || c == '\\' || c.is_control())
}

/// Where a quoted include leads.
enum Resolved {
    /// A file inside the kernels folder, symlinks resolved.
    Inside(PathBuf),
    /// Only somewhere outside it.
    Outside,
    /// Nowhere: no such file (inside the folder, were it there).
    Missing,
}

/// Resolves `#include "target"` against the including file's `dir`, then
/// the kernels folder. Only a candidate whose real path (symlinks and `..`
/// resolved) lies inside the kernels folder counts; nothing is read.
fn resolve(target: &str, dir: &Path, roots: &Roots<'_>) -> Resolved {
    if target.is_empty() {
        return Resolved::Missing;
    }
    let Some(root) = &roots.canonical else {
        return Resolved::Outside;
    };
    if target.starts_with('/') || target.contains('\\') || Path::new(target).is_absolute() {
        return Resolved::Outside;
    }
    let bases = [
        dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf()),
        root.clone(),
    ];
    let mut exists_outside = false;
    let mut could_be_inside = false;
    for base in bases {
        let candidate = base.join(target);
        match candidate.canonicalize() {
            Ok(real) if real.starts_with(root) && real.is_file() => return Resolved::Inside(real),
            Ok(real) if real.starts_with(root) => could_be_inside = true,
            Ok(_) => exists_outside = true,
            Err(_) => could_be_inside |= lexically_normal(&candidate).starts_with(root),
        }
    }
    if exists_outside || !could_be_inside {
        Resolved::Outside
    } else {
        Resolved::Missing
    }
}

/// `path` with `.` and `..` components resolved without the filesystem.
fn lexically_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether an angle include may name `target`: NVRTC searches no folder
/// for `<...>`, so only a relative name without `..` (a header built into
/// NVRTC) is accepted; anything else could name a file anywhere.
fn builtin_header_name(target: &str) -> bool {
    !target.is_empty()
        && !target.starts_with('/')
        && !target.contains('\\')
        && !Path::new(target).is_absolute()
        && target.split('/').all(|part| part != "..")
}

/// `kernels/<path>` for files under the kernels folder, else the path.
fn relative_name(path: &Path, roots: &Roots<'_>) -> String {
    let rel = roots
        .canonical
        .as_deref()
        .and_then(|root| path.strip_prefix(root).ok())
        .or_else(|| path.strip_prefix(roots.given).ok());
    match rel {
        Some(rel) => format!("kernels/{}", rel.display()),
        None => path.display().to_string(),
    }
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

    /// A book folder: `kernels/` (with `common.cuh` and `sub/`), `src/`,
    /// and `secret.txt` beside them, outside `kernels/`.
    fn book() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let kernels = dir.path().join("kernels");
        std::fs::create_dir_all(kernels.join("sub")).unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(kernels.join("common.cuh"), "#define ONE 1\n").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "SECRET\n").unwrap();
        (dir, kernels)
    }

    /// Expands `text` as the file `kernels/sub/k.cu`.
    fn expand_in_sub(kernels: &Path, text: &str) -> Result<String, SourceError> {
        expand(text, "kernels/sub/k.cu", 1, &kernels.join("sub"), kernels)
    }

    fn assert_outside(result: Result<String, SourceError>, written: &str) {
        match result {
            Err(SourceError::IncludeOutside { written: w, .. }) => assert_eq!(w, written),
            other => panic!("expected `{written}` to be refused as outside, got {other:?}"),
        }
    }

    // An absolute path is refused, naming the file, the line, the include
    // as written and where includes may point.
    #[test]
    fn absolute_include_is_refused_with_file_line_and_fix() {
        let (dir, kernels) = book();
        let text = "int a;\n#include \"/etc/passwd\"\nint b;\n";
        let err = expand(text, "src/ch.md", 10, &dir.path().join("src"), &kernels).unwrap_err();
        assert_eq!(
            err.to_string(),
            "src/ch.md:11: `#include \"/etc/passwd\"` is outside the book's kernels/ folder; includes may only name files under kernels/ (relative to the including file or to kernels/) and headers built into NVRTC (`#include <name>`)"
        );
        let secret = dir.path().join("secret.txt");
        let text = format!("#include \"{}\"\n", secret.display());
        assert!(matches!(
            expand_in_sub(&kernels, &text),
            Err(SourceError::IncludeOutside { line: 1, .. })
        ));
    }

    // `..` may move around inside kernels/ but not out of it.
    #[test]
    fn dotdot_escape_from_kernels_is_refused() {
        let (_dir, kernels) = book();
        assert_outside(
            expand_in_sub(&kernels, "#include \"../../secret.txt\"\n"),
            "#include \"../../secret.txt\"",
        );
        assert_outside(
            expand_in_sub(&kernels, "#include \"sub/../../secret.txt\"\n"),
            "#include \"sub/../../secret.txt\"",
        );
        let out = expand_in_sub(&kernels, "#include \"../common.cuh\"\n").unwrap();
        assert!(out.contains("#define ONE 1"), "{out}");
    }

    // A missing file inside kernels/ is missing; a missing file whose path
    // leaves kernels/ is refused as outside.
    #[test]
    fn a_missing_file_is_missing_unless_its_path_leaves_kernels() {
        let (_dir, kernels) = book();
        let err = expand_in_sub(&kernels, "#include \"../nope.cuh\"\n").unwrap_err();
        assert!(matches!(err, SourceError::Include { .. }), "{err}");
        assert_outside(
            expand_in_sub(&kernels, "#include \"../../nope.cuh\"\n"),
            "#include \"../../nope.cuh\"",
        );
    }

    // A symlink inside kernels/ that leads out of it (to a file or through
    // a folder) is refused.
    #[cfg(unix)]
    #[test]
    fn symlink_leading_out_of_kernels_is_refused() {
        let (dir, kernels) = book();
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), kernels.join("evil.cuh"))
            .unwrap();
        std::os::unix::fs::symlink(dir.path(), kernels.join("up")).unwrap();
        assert_outside(
            expand_in_sub(&kernels, "#include \"../evil.cuh\"\n"),
            "#include \"../evil.cuh\"",
        );
        assert_outside(
            expand_in_sub(&kernels, "#include \"up/secret.txt\"\n"),
            "#include \"up/secret.txt\"",
        );
    }

    // A symlink that stays inside kernels/ is followed, and markers name
    // the real file (the one an author edits).
    #[cfg(unix)]
    #[test]
    fn symlink_within_kernels_is_followed_and_named_by_its_target() {
        let (_dir, kernels) = book();
        std::os::unix::fs::symlink(kernels.join("common.cuh"), kernels.join("sub/link.cuh"))
            .unwrap();
        let out = expand_in_sub(&kernels, "#include \"link.cuh\"\n").unwrap();
        assert!(
            out.contains("#line 1 \"kernels/common.cuh\"\n#define ONE 1\n"),
            "{out}"
        );
    }

    // An inline example's chapter folder is not a place to include from:
    // the file under kernels/ is taken even when src/ has one of the name.
    #[test]
    fn inline_examples_include_from_kernels_not_the_chapter_folder() {
        let (dir, kernels) = book();
        let src = dir.path().join("src");
        std::fs::write(src.join("common.cuh"), "#define FROM_SRC 1\n").unwrap();
        let out = expand("#include \"common.cuh\"\n", "src/ch.md", 5, &src, &kernels).unwrap();
        assert!(
            out.contains("#define ONE 1") && !out.contains("FROM_SRC"),
            "{out}"
        );
        std::fs::write(src.join("only_src.cuh"), "#define FROM_SRC 1\n").unwrap();
        let err = expand(
            "#include \"only_src.cuh\"\n",
            "src/ch.md",
            5,
            &src,
            &kernels,
        );
        assert_outside(err, "#include \"only_src.cuh\"");
    }

    // Each way of hiding an include from a line-by-line look is either
    // refused at its line or, when it is plain enough, confined like any
    // other include.
    #[test]
    fn obfuscated_includes_are_refused_or_confined() {
        let (_dir, kernels) = book();
        let cases = [
            ("# include \"/etc/passwd\"\n", 1),
            ("  #\tinclude\"/etc/passwd\"\n", 1),
            ("int a;\n#/*c*/include \"/etc/passwd\"\n", 2),
            ("%:include \"/etc/passwd\"\n", 1),
            ("int a;\n#inc\\\nlude \"/etc/passwd\"\n", 2),
            ("#include \"/etc/pa\\\nsswd\"\n", 1),
            ("#include_next \"/etc/passwd\"\n", 1),
            ("#import \"/etc/passwd\"\n", 1),
            ("#define P \"/etc/passwd\"\n#include P\n", 2),
            ("int a;\r#include \"/etc/passwd\"\n", 2),
            ("int a; /* x\n */ #include \"/etc/passwd\"\n", 2),
            ("??=include \"/etc/passwd\"\n", 1),
            (
                "const char* s = \"/*\";\n#include \"/etc/passwd\"\n// */\n",
                2,
            ),
            (
                "const char* s = R\"x( \" /* )x\";\n#include \"/etc/passwd\"\n// */\n",
                2,
            ),
            ("int c = 1'a/*';\n#include \"common.cuh\"\n// */\n", 2),
            ("#if __has_include(\"/etc/passwd\")\n#endif\n", 1),
        ];
        for (text, line) in cases {
            let err = expand_in_sub(&kernels, text).expect_err(text);
            assert!(
                matches!(
                    err,
                    SourceError::IncludeOutside { .. } | SourceError::IncludeForm { .. }
                ),
                "{text:?}: {err}"
            );
            let at = format!("kernels/sub/k.cu:{line}: ");
            assert!(err.to_string().starts_with(&at), "{text:?}: {err}");
        }
        let spaced = expand_in_sub(&kernels, "  #  include \"../common.cuh\" // ok\n").unwrap();
        assert!(spaced.contains("#define ONE 1"), "{spaced}");
    }

    // An include inside a comment is not a directive: it is kept as text,
    // not looked for.
    #[test]
    fn includes_in_comments_are_left_alone() {
        let (_dir, kernels) = book();
        let text = "/*\n#include \"missing.cuh\"\n*/\n";
        let out = expand_in_sub(&kernels, text).unwrap();
        assert_eq!(out, format!("#line 1 \"kernels/sub/k.cu\"\n{text}"));
    }

    // `<...>` is left to NVRTC's built-in headers; a name that could reach
    // a file (absolute, with `..`) is refused.
    #[test]
    fn angle_includes_may_name_only_builtin_headers() {
        let (_dir, kernels) = book();
        let text = "#include <cuda_fp16.h>\n#include <cuda/std/cstdint>\n#include <cooperative_groups.h>\n";
        let out = expand_in_sub(&kernels, text).unwrap();
        assert_eq!(out, format!("#line 1 \"kernels/sub/k.cu\"\n{text}"));
        for bad in [
            "/etc/passwd",
            "../../secret.txt",
            "cuda/../../x.h",
            "a\\b.h",
        ] {
            assert_outside(
                expand_in_sub(&kernels, &format!("#include <{bad}>\n")),
                &format!("#include <{bad}>"),
            );
        }
    }

    // Files that are included are held to the same rule, and errors name
    // them.
    #[test]
    fn included_files_are_confined_too() {
        let (_dir, kernels) = book();
        std::fs::write(
            kernels.join("inner.cuh"),
            "int x;\n#include \"/etc/passwd\"\n",
        )
        .unwrap();
        let err = expand_in_sub(&kernels, "#include \"../inner.cuh\"\n").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("kernels/inner.cuh:2: `#include \"/etc/passwd\"`"),
            "{err}"
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

    // A file name holding a newline and a quote would inject source lines
    // through the `#line` marker (here: an include of /etc/passwd); such a
    // name is refused, whether it is the example's own or an include's
    // target reached through a symlink.
    #[test]
    fn names_that_would_break_a_line_marker_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let kernels = dir.path().join("kernels");
        let evil = kernels.join("x\n#include \"/etc");
        std::fs::create_dir_all(&evil).unwrap();
        std::fs::write(evil.join("passwd\"\n.cuh"), "int y;\n").unwrap();
        std::os::unix::fs::symlink(evil.join("passwd\"\n.cuh"), kernels.join("link.cuh")).unwrap();
        let err = expand(
            "#include \"link.cuh\"\n",
            "kernels/a.cu",
            1,
            &kernels,
            &kernels,
        )
        .unwrap_err();
        assert!(
            matches!(err, SourceError::IncludeForm { line: 1, .. }),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("cannot be named in the `#line` markers"),
            "{err}"
        );
        let err = expand(
            "int x;\n",
            "kernels/x\n#include \"/etc/passwd\"\n.cu",
            1,
            &kernels,
            &kernels,
        )
        .unwrap_err();
        assert!(!err.to_string().contains('\n'), "{err}");
    }
}
