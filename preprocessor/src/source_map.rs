//! Where each byte of a chapter, as mdBook hands it over, was written.
//!
//! mdBook's `links` preprocessor runs before this one (`after = ["links"]`
//! in book.toml) and replaces `{{#include}}`, `{{#rustdoc_include}}`,
//! `{{#playground}}`, `{{#title}}` and escaped links with what they stand
//! for, so once an include has brought in more lines than its own, a line
//! of the text handed over is no longer the chapter file's line.
//! [`SourceMap::new`] reads the chapter file and expands its links again
//! the way mdBook 0.5 does, noting where every piece of the result came
//! from: a line of the chapter itself, or a line of an included file and
//! the chapter line of the include that brought it in. When the result is
//! byte for byte the text mdBook handed over, every place is exact. When it
//! is not (another preprocessor changed the text first, or a link form this
//! module does not know), a line diff of the file against the text maps
//! each unchanged line to its own line and each changed one to the chapter
//! line it took the place of.
//!
//! Searching the chapter file for the directive a message is about would be
//! simpler, but it cannot tell two copies of the same directive apart, nor
//! name the included file a directive came from; the expansion here is
//! checked against mdBook's own output, so it is never silently wrong.

use regex::Regex;
use std::ops::Range;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

/// How deep mdBook follows includes inside included files.
const MAX_DEPTH: usize = 10;

/// Where a byte of the text was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The included file it came from (its path, `..` resolved), or `None`
    /// for the chapter file's own text.
    pub file: Option<PathBuf>,
    /// Its 1-based line in that file.
    pub line: usize,
    /// For text from an included file: the chapter line of the include
    /// that brought it in (the outermost one, when includes nest).
    pub included_at: Option<usize>,
}

/// The source of a piece: file 0 is the chapter, file `i` is
/// `files[i - 1]`; `line` is the line of the piece's first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Origin {
    file: usize,
    line: usize,
    via: Option<usize>,
}

/// From byte `at` on (up to the next piece), text from `origin`, its lines
/// consecutive lines of that file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    at: usize,
    origin: Origin,
}

/// Where each byte of a chapter's text was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceMap {
    pieces: Vec<Piece>,
    files: Vec<PathBuf>,
    lines: Vec<usize>,
    /// Whether the pieces come from expanding the file again (not from the
    /// line diff).
    exact: bool,
}

impl SourceMap {
    /// The map of a chapter's text as written in its file.
    pub fn identity(text: &str) -> SourceMap {
        SourceMap {
            pieces: vec![Piece {
                at: 0,
                origin: Origin {
                    file: 0,
                    line: 1,
                    via: None,
                },
            }],
            files: Vec::new(),
            lines: newlines(text),
            exact: true,
        }
    }

    /// The map of `expanded`, the text mdBook made of the chapter file
    /// holding `raw`, whose includes are relative to `chapter_dir`.
    pub fn new(raw: &str, expanded: &str, chapter_dir: &Path) -> SourceMap {
        let (again, map) = SourceMap::expand(raw, chapter_dir);
        if again == expanded {
            return map;
        }
        let raw = raw.strip_prefix('\u{feff}').unwrap_or(raw);
        SourceMap {
            pieces: diffed(raw, expanded),
            files: Vec::new(),
            lines: newlines(expanded),
            exact: false,
        }
    }

    /// The text mdBook 0.5 makes of `raw`, the text of a chapter file
    /// whose includes are relative to `chapter_dir`, and its map: what the
    /// `check` and `status` subcommands read, as a build would.
    pub fn expand(raw: &str, chapter_dir: &Path) -> (String, SourceMap) {
        let raw = raw.strip_prefix('\u{feff}').unwrap_or(raw);
        let mut files = Vec::new();
        let again = replace_all(&Traced::whole(raw), chapter_dir, 0, &mut files);
        let mut map = SourceMap::identity(&again.text);
        if !again.pieces.is_empty() {
            map.pieces = again.pieces;
        }
        map.files = files;
        (again.text, map)
    }

    /// Where byte `offset` of the text was written.
    pub fn place(&self, offset: usize) -> Place {
        let index = self.pieces.partition_point(|p| p.at <= offset);
        let piece = self.pieces[index.saturating_sub(1)];
        let below = |at: usize| self.lines.partition_point(|&nl| nl < at);
        let line = piece.origin.line + below(offset) - below(piece.at);
        Place {
            file: (piece.origin.file > 0).then(|| self.files[piece.origin.file - 1].clone()),
            line,
            included_at: piece.origin.via,
        }
    }

    /// Where line `line` (1-based) of the text was written.
    pub fn place_of_line(&self, line: usize) -> Place {
        let start = match line {
            0 | 1 => 0,
            n => self.lines.get(n - 2).map_or(usize::MAX, |nl| nl + 1),
        };
        self.place(start)
    }
}

fn newlines(text: &str) -> Vec<usize> {
    text.match_indices('\n').map(|(i, _)| i).collect()
}

/// Text with the origin of each of its pieces.
#[derive(Debug, Default)]
struct Traced {
    text: String,
    pieces: Vec<Piece>,
}

impl Traced {
    /// A chapter's whole text, from its first line.
    fn whole(text: &str) -> Traced {
        let mut traced = Traced::default();
        traced.push(
            text,
            Origin {
                file: 0,
                line: 1,
                via: None,
            },
        );
        traced
    }

    /// The origin of byte `offset`.
    fn origin_at(&self, offset: usize) -> Origin {
        let index = self.pieces.partition_point(|p| p.at <= offset);
        let piece = self.pieces[index.saturating_sub(1)];
        let skipped = self.text[piece.at..offset].matches('\n').count();
        Origin {
            line: piece.origin.line + skipped,
            ..piece.origin
        }
    }

    /// Appends `text`, written at `origin`.
    fn push(&mut self, text: &str, origin: Origin) {
        if !text.is_empty() {
            self.pieces.push(Piece {
                at: self.text.len(),
                origin,
            });
            self.text.push_str(text);
        }
    }

    /// Appends bytes `range` of `from`, with their origins.
    fn push_from(&mut self, from: &Traced, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        let base = self.text.len();
        self.pieces.push(Piece {
            at: base,
            origin: from.origin_at(range.start),
        });
        let inner = from
            .pieces
            .iter()
            .filter(|p| p.at > range.start && p.at < range.end);
        for piece in inner {
            self.pieces.push(Piece {
                at: base + piece.at - range.start,
                ..*piece
            });
        }
        self.text.push_str(&from.text[range]);
    }

    /// Appends all of `other`.
    fn append(&mut self, other: Traced) {
        let base = self.text.len();
        self.pieces.extend(other.pieces.into_iter().map(|p| Piece {
            at: base + p.at,
            ..p
        }));
        self.text.push_str(&other.text);
    }
}

/// mdBook's pattern of a link (`links.rs`): an escaped one, or a name and
/// its arguments.
static LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\\\{\{\#.*\}\}|\{\{\s*\#([a-zA-Z0-9_]+)\s+([^}]+)\}\}")
        .expect("link pattern compiles")
});
static ANCHOR_START: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"ANCHOR:\s*([\w_-]+)").expect("anchor pattern compiles"));
static ANCHOR_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"ANCHOR_END:\s*([\w_-]+)").expect("anchor pattern compiles"));

/// Which lines of a file an include takes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Take {
    /// Lines `start..end` (0-based, `end` excluded; none: to the end).
    Lines(usize, Option<usize>),
    /// The lines between `ANCHOR: name` and `ANCHOR_END: name`.
    Anchor(String),
}

/// A link mdBook replaces.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Link<'a> {
    Escaped,
    Include(&'a str, Take),
    RustdocInclude(&'a str, Take),
    Playground(&'a str, Vec<&'a str>),
    Title,
}

fn link_of<'h>(caps: &regex::Captures<'h>) -> Option<Link<'h>> {
    let (Some(kind), Some(rest)) = (caps.get(1), caps.get(2)) else {
        return caps[0].starts_with('\\').then_some(Link::Escaped);
    };
    if kind.as_str() == "title" {
        return Some(Link::Title);
    }
    let mut words = rest.as_str().split_whitespace();
    let file = words.next()?;
    let (path, lines) = file
        .split_once(':')
        .map_or((file, None), |(p, l)| (p, Some(l)));
    Some(match kind.as_str() {
        "include" => Link::Include(path, take_of(lines)),
        "rustdoc_include" => Link::RustdocInclude(path, take_of(lines)),
        "playground" | "playpen" => Link::Playground(file, words.collect()),
        _ => return None,
    })
}

/// mdBook's `parse_range_or_anchor`.
fn take_of(spec: Option<&str>) -> Take {
    let mut parts = spec.unwrap_or("").splitn(3, ':');
    let first = parts.next();
    let start = match first.map(|s| (s, s.parse::<usize>())) {
        Some((_, Ok(n))) => Some(n.saturating_sub(1)),
        Some(("", _)) | None => None,
        Some((anchor, Err(_))) => return Take::Anchor(anchor.to_string()),
    };
    let end = parts.next().map(str::parse::<usize>);
    match (start, end) {
        (Some(s), Some(Ok(e))) => Take::Lines(s, Some(e)),
        (Some(s), Some(Err(_))) => Take::Lines(s, None),
        (Some(s), None) => Take::Lines(s, Some(s + 1)),
        (None, Some(Ok(e))) => Take::Lines(0, Some(e)),
        (None, _) => Take::Lines(0, None),
    }
}

/// The lines of `text` an include keeps, each with its 0-based index;
/// with `hide_others` (rustdoc_include) the others too, behind `# `.
fn taken(text: &str, take: &Take, hide_others: bool) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let hidden = |line: &str| format!("# {line}");
    match take {
        Take::Lines(start, end) => {
            let inside = |i: usize| i >= *start && end.is_none_or(|e| i < e);
            for (i, line) in text.lines().enumerate() {
                if inside(i) {
                    out.push((i, line.to_string()));
                } else if hide_others {
                    out.push((i, hidden(line)));
                }
            }
        }
        Take::Anchor(anchor) => {
            let named = |re: &Regex, line: &str| re.captures(line).map(|c| c[1] == **anchor);
            let mut inside = false;
            for (i, line) in text.lines().enumerate() {
                if inside {
                    match named(&ANCHOR_END, line) {
                        Some(true) if !hide_others => break,
                        Some(true) => inside = false,
                        Some(false) => {}
                        None if !ANCHOR_START.is_match(line) => out.push((i, line.to_string())),
                        None => {}
                    }
                } else if named(&ANCHOR_START, line) == Some(true) {
                    inside = true;
                } else if hide_others && !ANCHOR_START.is_match(line) && !ANCHOR_END.is_match(line)
                {
                    out.push((i, hidden(line)));
                }
            }
        }
    }
    out
}

/// What a link stands for, traced; `None` when mdBook would keep the link
/// as written (its file cannot be read).
fn render(
    link: &Link<'_>,
    text: &str,
    at: Origin,
    base: &Path,
    files: &mut Vec<PathBuf>,
) -> Option<(Traced, Option<PathBuf>)> {
    let mut out = Traced::default();
    let (path, take, hide) = match link {
        Link::Escaped => {
            out.push(&text[1..], at);
            return Some((out, None));
        }
        Link::Title => return Some((out, None)),
        Link::Include(path, take) => (*path, Some(take), false),
        Link::RustdocInclude(path, take) => (*path, Some(take), true),
        Link::Playground(path, _) => (*path, None, false),
    };
    let target = normalised(&base.join(path));
    let contents = std::fs::read_to_string(&target).ok()?;
    files.push(target.clone());
    let via = at.via.or((at.file == 0).then_some(at.line));
    let from = |line: usize| Origin {
        file: files.len(),
        line,
        via,
    };
    match (link, take) {
        (Link::Playground(_, attrs), _) => {
            let kind = if attrs.is_empty() { "rust" } else { "rust," };
            out.push(&format!("```{kind}{}\n", attrs.join(",")), at);
            out.push(&contents, from(1));
            if !contents.ends_with('\n') {
                out.push("\n", from(1 + contents.matches('\n').count()));
            }
            out.push("```\n", at);
        }
        (_, Some(take)) => {
            for (n, (index, line)) in taken(&contents, take, hide).into_iter().enumerate() {
                if n > 0 {
                    out.text.push('\n');
                }
                out.push(&line, from(index + 1));
            }
        }
        (_, None) => {}
    }
    let dir = target.parent().map(Path::to_path_buf);
    Some((out, dir))
}

/// mdBook's `replace_all`: `text` with its links replaced, recursively.
fn replace_all(text: &Traced, base: &Path, depth: usize, files: &mut Vec<PathBuf>) -> Traced {
    let mut out = Traced::default();
    let mut done = 0;
    for caps in LINK.captures_iter(&text.text) {
        let Some(link) = link_of(&caps) else {
            continue;
        };
        let whole = caps.get(0).expect("group 0 always matches");
        let at = text.origin_at(whole.start());
        let Some((content, dir)) = render(&link, whole.as_str(), at, base, files) else {
            continue;
        };
        out.push_from(text, done..whole.start());
        done = whole.end();
        match dir {
            // mdBook drops what lies deeper than its limit.
            _ if depth >= MAX_DEPTH => {}
            Some(dir) => out.append(replace_all(&content, &dir, depth + 1, files)),
            None => out.append(content),
        }
    }
    out.push_from(text, done..text.text.len());
    out
}

/// `path` with `.` and `..` resolved without asking the file system.
fn normalised(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Pieces that map each line `expanded` shares with `raw` to its line in
/// `raw`, and each other line to the line of `raw` it took the place of.
fn diffed(raw: &str, expanded: &str) -> Vec<Piece> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(newlines(expanded).into_iter().map(|nl| nl + 1))
        .collect();
    let at = |line: usize| starts.get(line).copied().unwrap_or(expanded.len());
    let chapter = |line: usize| Origin {
        file: 0,
        line,
        via: None,
    };
    let mut pieces = Vec::new();
    let diff = similar::TextDiff::from_lines(raw, expanded);
    for op in diff.ops() {
        match *op {
            similar::DiffOp::Equal {
                old_index,
                new_index,
                ..
            } => pieces.push(Piece {
                at: at(new_index),
                origin: chapter(old_index + 1),
            }),
            // New lines stand for the line they replace, or for the one
            // before them when they replace none.
            similar::DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => pieces.extend((new_index..new_index + new_len).map(|line| Piece {
                at: at(line),
                origin: chapter(old_index.max(1)),
            })),
            similar::DiffOp::Replace {
                old_index,
                new_index,
                new_len,
                ..
            } => pieces.extend((new_index..new_index + new_len).map(|line| Piece {
                at: at(line),
                origin: chapter(old_index + 1),
            })),
            similar::DiffOp::Delete { .. } => {}
        }
    }
    pieces.dedup_by_key(|p| p.at);
    if pieces.first().is_none_or(|p| p.at > 0) {
        pieces.insert(
            0,
            Piece {
                at: 0,
                origin: chapter(1),
            },
        );
    }
    pieces
}

#[cfg(test)]
mod tests;
