//! Finds the runnable examples of a chapter, and the code spans where
//! directives must not be expanded, from pulldown-cmark's byte offsets. The
//! chapter text itself is never re-rendered: callers replace the byte ranges
//! found here and keep every other byte as written.

use crate::fence_info::{self, RunAttrs};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use std::ops::Range;

/// Why a `cuda run` block's header cannot be read, with the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// Its info string cannot be read.
    #[error(transparent)]
    Info(#[from] fence_info::InfoError),
    /// It names a file and also holds code.
    #[error(
        "this block has file={0} and also code: a file example takes its code from the file, so leave the block empty (or drop file= to write the kernel here)"
    )]
    FileAndCode(String),
    /// It names no file and holds no code.
    #[error(
        "this `cuda run` block is empty: write the kernel in it (with id=NAME) or point at a kernel file with file=PATH"
    )]
    Empty,
    /// It gives an anchor but no file.
    #[error(
        "anchor= chooses part of a kernel file and needs file=PATH; an inline example shows its whole block"
    )]
    AnchorWithoutFile,
    /// It is inline but has no id.
    #[error("an inline example needs an id to store its results under: write ```cuda run id=NAME")]
    NoId,
}

/// What a runnable block asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunSpec {
    /// Kernel written in the block.
    Inline {
        /// The example's id (required for inline examples).
        id: String,
    },
    /// Kernel kept in a file under the kernels folder; the block is empty.
    File {
        /// Path relative to the kernels folder.
        path: String,
        /// Part of the file to show.
        anchor: Option<String>,
        /// Id, when not the path without its extension.
        id: Option<String>,
    },
}

/// A ```` ```cuda run ```` block found in a chapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunBlock {
    /// Bytes of the whole block, opening fence to closing fence.
    pub range: Range<usize>,
    /// 1-based line of the opening fence.
    pub fence_line: usize,
    /// The code between the fences, container indentation removed.
    pub body: String,
    /// 1-based line of the first body line.
    pub body_line: usize,
    /// What the header asks for, or why it cannot be read (with the fix).
    pub spec: Result<RunSpec, SpecError>,
    /// Prefix for every line after the first of a replacement, so that it
    /// stays inside the list item or block quote the block sits in.
    pub continuation: String,
}

/// The parts of a chapter the preprocessor cares about.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChapterScan {
    /// Runnable blocks, in order.
    pub blocks: Vec<RunBlock>,
    /// Byte ranges of all code blocks and inline code spans.
    pub code: Vec<Range<usize>>,
}

impl ChapterScan {
    /// Whether `offset` lies inside code, where directives are literal text.
    pub fn in_code(&self, offset: usize) -> bool {
        self.code.iter().any(|r| r.contains(&offset))
    }
}

/// The markdown options mdBook itself parses chapters with, so that this
/// scan sees the same blocks the renderer will.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_DEFINITION_LIST
        | Options::ENABLE_GFM
}

/// Scans a chapter.
pub fn scan(content: &str) -> ChapterScan {
    let lines = LineIndex::new(content);
    let mut out = ChapterScan::default();
    let mut open: Option<(Range<usize>, String, String)> = None;
    for (event, range) in Parser::new_ext(content, options()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                out.code.push(range.clone());
                if let CodeBlockKind::Fenced(info) = kind {
                    open = Some((range, info.to_string(), String::new()));
                }
            }
            Event::Text(text) => {
                if let Some((_, _, body)) = open.as_mut() {
                    body.push_str(&text);
                }
            }
            Event::Code(_) => out.code.push(range),
            Event::End(TagEnd::CodeBlock) => {
                if let Some((range, info, body)) = open.take()
                    && let Some(block) = runnable(content, &lines, range, &info, body)
                {
                    out.blocks.push(block);
                }
            }
            _ => {}
        }
    }
    out
}

fn runnable(
    content: &str,
    lines: &LineIndex,
    range: Range<usize>,
    info: &str,
    body: String,
) -> Option<RunBlock> {
    let spec = match fence_info::parse(info) {
        Ok(None) => return None,
        Ok(Some(attrs)) => spec_of(attrs, &body),
        Err(e) => Err(SpecError::from(e)),
    };
    let fence_line = lines.line_of(range.start);
    Some(RunBlock {
        continuation: continuation_prefix(content, range.start),
        range,
        fence_line,
        body,
        body_line: fence_line + 1,
        spec,
    })
}

/// Decides between an inline and a file example.
fn spec_of(attrs: RunAttrs, body: &str) -> Result<RunSpec, SpecError> {
    let empty = body.trim().is_empty();
    match (attrs.file, empty) {
        (Some(path), true) => Ok(RunSpec::File {
            path,
            anchor: attrs.anchor,
            id: attrs.id,
        }),
        (Some(path), false) => Err(SpecError::FileAndCode(path)),
        (None, true) => Err(SpecError::Empty),
        (None, false) if attrs.anchor.is_some() => Err(SpecError::AnchorWithoutFile),
        (None, false) => match attrs.id {
            Some(id) => Ok(RunSpec::Inline { id }),
            None => Err(SpecError::NoId),
        },
    }
}

/// The container prefix of the line holding `start`, with list markers
/// turned into spaces: what later lines of a replacement start with.
pub fn continuation_prefix(content: &str, start: usize) -> String {
    let line_start = content[..start].rfind('\n').map_or(0, |i| i + 1);
    content[line_start..start]
        .chars()
        .map(|c| {
            if c == '>' || c.is_whitespace() {
                c
            } else {
                ' '
            }
        })
        .collect()
}

/// Maps byte offsets to 1-based line numbers.
#[derive(Debug, Clone)]
pub struct LineIndex {
    newlines: Vec<usize>,
}

impl LineIndex {
    /// Indexes `content`.
    pub fn new(content: &str) -> Self {
        LineIndex {
            newlines: content.match_indices('\n').map(|(i, _)| i).collect(),
        }
    }

    /// The 1-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.newlines.partition_point(|&nl| nl < offset) + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inline(id: &str) -> Result<RunSpec, SpecError> {
        Ok(RunSpec::Inline { id: id.into() })
    }

    fn file(path: &str) -> Result<RunSpec, SpecError> {
        Ok(RunSpec::File {
            path: path.into(),
            anchor: None,
            id: None,
        })
    }

    // Runnable blocks are found wherever markdown allows a fence, with the
    // lines an author sees in the editor.
    #[test]
    fn blocks_in_every_container() {
        struct Case {
            name: &'static str,
            text: &'static str,
            raw: &'static str,
            fence_line: usize,
            body: &'static str,
            spec: Result<RunSpec, SpecError>,
            continuation: &'static str,
        }
        let cases = [
            Case {
                name: "top level",
                text: "# T\n\n```cuda run id=a\nk();\n```\n",
                raw: "```cuda run id=a\nk();\n```",
                fence_line: 3,
                body: "k();\n",
                spec: inline("a"),
                continuation: "",
            },
            Case {
                name: "tilde fence",
                text: "~~~cuda run id=a\nk();\n~~~\n",
                raw: "~~~cuda run id=a\nk();\n~~~",
                fence_line: 1,
                body: "k();\n",
                spec: inline("a"),
                continuation: "",
            },
            Case {
                name: "indented in an ordered list",
                text: "1. step\n\n   ```cuda run file=r/t.cu\n   ```\n\n   more\n",
                raw: "```cuda run file=r/t.cu\n   ```",
                fence_line: 3,
                body: "",
                spec: file("r/t.cu"),
                continuation: "   ",
            },
            Case {
                name: "on the bullet line",
                text: "- ```cuda run id=b\n  x\n  ```\n",
                raw: "```cuda run id=b\n  x\n  ```",
                fence_line: 1,
                body: "x\n",
                spec: inline("b"),
                continuation: "  ",
            },
            Case {
                name: "block quote with CRLF",
                text: "intro\r\n\r\n> ```cuda run id=q\r\n> y\r\n> ```\r\n",
                raw: "```cuda run id=q\r\n> y\r\n> ```",
                fence_line: 3,
                body: "y\n",
                spec: inline("q"),
                continuation: "> ",
            },
            Case {
                name: "after non-ASCII text",
                text: "Größe — ≈ 2× schneller\n\n```cuda run id=ü\n// µs\n```\n",
                raw: "```cuda run id=ü\n// µs\n```",
                fence_line: 3,
                body: "// µs\n",
                spec: inline("ü"),
                continuation: "",
            },
        ];
        for case in cases {
            let scan = scan(case.text);
            assert_eq!(scan.blocks.len(), 1, "{}", case.name);
            let b = &scan.blocks[0];
            assert_eq!(&case.text[b.range.clone()], case.raw, "{}", case.name);
            assert_eq!(b.fence_line, case.fence_line, "{}", case.name);
            assert_eq!(b.body_line, case.fence_line + 1, "{}", case.name);
            assert_eq!(b.body, case.body, "{}", case.name);
            assert_eq!(b.spec, case.spec, "{}", case.name);
            assert_eq!(b.continuation, case.continuation, "{}", case.name);
        }
    }

    // Plain cuda blocks and other languages are not examples.
    #[test]
    fn plain_blocks_are_not_examples() {
        let text = "```cuda\nk();\n```\n\n```cpp run\nx\n```\n\n    cuda run\n\n```\nplain\n```\n";
        let scan = scan(text);
        assert!(scan.blocks.is_empty());
        assert_eq!(scan.code.len(), 4);
    }

    // Each way a runnable block can be wrong says how to fix it.
    #[test]
    fn malformed_blocks_explain_the_fix() {
        let cases = [
            ("```cuda run\nk();\n```\n", "needs an id"),
            ("```cuda run id=x\n```\n", "is empty"),
            (
                "```cuda run file=a.cu\nk();\n```\n",
                "leave the block empty",
            ),
            ("```cuda run id=x anchor=f\nk();\n```\n", "needs file=PATH"),
            (
                "```cuda run file=a.cu bogus\n```\n",
                "unknown attribute `bogus`",
            ),
        ];
        for (text, want) in cases {
            let scan = scan(text);
            let err = scan.blocks[0].spec.clone().unwrap_err().to_string();
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }

    // Inline code and code blocks are where directives stay literal.
    #[test]
    fn code_spans_are_recorded() {
        let text = "a `{{#gpu}}` b {{#gpu}}\n\n```\n{{#gpu}}\n```\n";
        let scan = scan(text);
        let first = text.find("{{#gpu}}").unwrap();
        let second = text[first + 1..].find("{{#gpu}}").unwrap() + first + 1;
        let third = text.rfind("{{#gpu}}").unwrap();
        assert!(scan.in_code(first));
        assert!(!scan.in_code(second));
        assert!(scan.in_code(third));
    }

    // Line numbers count from 1 and a line's newline belongs to it.
    #[test]
    fn line_index_counts_from_one() {
        let idx = LineIndex::new("a\nb\r\nc");
        assert_eq!(idx.line_of(0), 1);
        assert_eq!(idx.line_of(1), 1);
        assert_eq!(idx.line_of(2), 2);
        assert_eq!(idx.line_of(5), 3);
    }
}
