//! Finds every preprocessing directive in a kernel source that could make
//! NVRTC open a file, before anything is read or compiled.
//!
//! A line-by-line look for `#include "..."` misses what the preprocessor
//! still obeys: `# include`, `#/**/include`, `%:include`, a directive split
//! by a backslash-newline (`#inc\` + newline + `lude`), a `#` after a block
//! comment that spans lines, `#include_next`, `#include MACRO`, and a lone
//! carriage return, which NVRTC counts as a line end. This scanner lexes the
//! source as the preprocessor does (line splices, comments, string,
//! character and raw string literals, numbers with digit separators) and
//! reports each include-like directive: the plain forms come back as
//! [`Found`], every other form is [`Refused`] with the line and the fix.
//!
//! Some lexing rules depend on the C++ standard an example picks with
//! `compile = ["-std=..."]` (raw strings since C++11, digit separators since
//! C++14, trigraphs before C++17) or on the compiler (NVRTC keeps
//! backslash-newline splices inside raw strings, the standard reverts them).
//! Trigraphs are refused outright; the source is scanned under each of the
//! other rule sets, a refusal under any of them refuses it, and all of them
//! must agree on the plain includes.

use std::borrow::Cow;

/// A plain include-like construct, written so that every rule set reads it
/// the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// `#include "target"` on one physical line (0-based `line`) of its own.
    Quoted {
        /// 0-based physical line.
        line: usize,
        /// The path as written between the quotes.
        target: String,
    },
    /// `#include <target>` on one physical line of its own.
    Angle {
        /// 0-based physical line.
        line: usize,
        /// The name as written between the brackets.
        target: String,
    },
    /// `__has_include(<target>)` (or `__has_include_next`).
    HasInclude {
        /// 0-based physical line.
        line: usize,
        /// The name as written between the brackets.
        target: String,
    },
}

impl Found {
    /// The 0-based physical line.
    pub fn line(&self) -> usize {
        match self {
            Found::Quoted { line, .. }
            | Found::Angle { line, .. }
            | Found::HasInclude { line, .. } => *line,
        }
    }
}

/// A construct the book does not accept, with the reason and the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// 0-based physical line.
    pub line: usize,
    /// That line as written, trimmed (shortened when long).
    pub written: String,
    /// What is wrong and how to fix it; follows the written line in a
    /// message.
    pub why: String,
}

/// The fix for an include the scanner refuses.
pub const INCLUDE_FIX: &str =
    "write the include on one line as `#include \"file\"` naming a file under kernels/";

/// `text` with every line end a `\n`: NVRTC also ends a line at a lone
/// `\r`, which `str::lines` would keep inside a line.
pub fn normalize_newlines(text: &str) -> Cow<'_, str> {
    if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// Scans `text` (with `\n` line ends, see [`normalize_newlines`]); line
/// numbers are indices into `text.lines()`. `included` asks for a file that
/// is spliced into another: it must not end inside a block comment or raw
/// string literal, or with a backslash, which would swallow the lines after
/// its `#include`.
pub fn scan(text: &str, included: bool) -> Result<Vec<Found>, Refused> {
    let lines = LineIndex::new(text);
    prechecks(text, &lines, included)?;
    let mut results = Vec::new();
    let mut refusals = Vec::new();
    for rules in RULE_SETS {
        let mut lexer = Lexer::new(text.as_bytes(), rules, &lines);
        match lexer.run() {
            Ok(()) if included && !lexer.ends_clean => refusals.push(lines.refused(
                lines.count().saturating_sub(1),
                "ends inside a block comment or a raw string literal: close it, or the lines after the `#include` of this file are swallowed".into(),
            )),
            Ok(()) => results.push(lexer.found),
            Err(refused) => refusals.push(refused),
        }
    }
    if let Some(refused) = refusals.into_iter().min_by_key(|r| r.line) {
        return Err(refused);
    }
    let first = results.swap_remove(0);
    for other in &results {
        if let Some(line) = first_difference(&first, other) {
            return Err(lines.refused(
                line,
                "reads differently under different C++ standards (a raw string literal or a digit separator `'` nearby decides what is code); simplify the lines around it".into(),
            ));
        }
    }
    Ok(first)
}

fn first_difference(a: &[Found], b: &[Found]) -> Option<usize> {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return Some(x.line().min(y.line()));
        }
    }
    match a.len().cmp(&b.len()) {
        std::cmp::Ordering::Less => Some(b[a.len()].line()),
        std::cmp::Ordering::Greater => Some(a[b.len()].line()),
        std::cmp::Ordering::Equal => None,
    }
}

/// Refusals that do not depend on the lexing rules.
fn prechecks(text: &str, lines: &LineIndex<'_>, included: bool) -> Result<(), Refused> {
    let b = text.as_bytes();
    if let Some(at) = b.iter().position(|&c| c == b'\r') {
        return Err(lines.refused(
            lines.line_of(at),
            "contains a carriage return, which NVRTC reads as a line end; save the file with \\n line ends".into(),
        ));
    }
    for (at, pair) in b.windows(3).enumerate() {
        if pair[0] == b'?'
            && pair[1] == b'?'
            && let Some(meaning) = trigraph(pair[2])
        {
            return Err(lines.refused(
                lines.line_of(at),
                format!(
                    "contains the trigraph `??{}`, which C++14 and older read as `{meaning}`; write `{meaning}` itself",
                    pair[2] as char
                ),
            ));
        }
    }
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_end_matches(is_hspace_char);
        if trimmed.len() < line.len() && trimmed.ends_with('\\') {
            return Err(lines.refused(
                i,
                "ends with a backslash followed by spaces, which some preprocessors join with the next line; remove the spaces or the backslash".into(),
            ));
        }
    }
    if included && text.lines().last().is_some_and(|l| l.ends_with('\\')) {
        return Err(lines.refused(
            lines.count().saturating_sub(1),
            "ends with a backslash, which joins the line after the `#include` of this file to it; remove the backslash".into(),
        ));
    }
    Ok(())
}

fn trigraph(c: u8) -> Option<char> {
    Some(match c {
        b'=' => '#',
        b'/' => '\\',
        b'\'' => '^',
        b'(' => '[',
        b')' => ']',
        b'!' => '|',
        b'<' => '{',
        b'>' => '}',
        b'-' => '~',
        _ => return None,
    })
}

/// How raw string literals are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Raw {
    /// No raw strings (C++03): `R"x(` is a name and a string.
    Off,
    /// Raw strings whose backslash-newlines are spliced (NVRTC).
    Spliced,
    /// Raw strings whose backslash-newlines are kept (the standard).
    Kept,
}

#[derive(Debug, Clone, Copy)]
struct Rules {
    raw: Raw,
    digit_separators: bool,
}

const RULE_SETS: [Rules; 5] = [
    Rules {
        raw: Raw::Off,
        digit_separators: false,
    },
    Rules {
        raw: Raw::Spliced,
        digit_separators: false,
    },
    Rules {
        raw: Raw::Kept,
        digit_separators: false,
    },
    Rules {
        raw: Raw::Spliced,
        digit_separators: true,
    },
    Rules {
        raw: Raw::Kept,
        digit_separators: true,
    },
];

/// Directive names that never open a file.
const HARMLESS_DIRECTIVES: &[&str] = &[
    "define", "undef", "if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif",
    "line", "error", "warning", "pragma", "ident", "sccs", "assert", "unassert",
];

/// Directive names that include a file in some preprocessor.
const INCLUDE_DIRECTIVES: &[&str] = &["include", "include_next", "import", "embed"];

const RAW_PREFIXES: &[&str] = &["R", "LR", "uR", "UR", "u8R"];

const BOM: &[u8] = b"\xEF\xBB\xBF";

fn is_hspace(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | 0x0b | 0x0c)
}

fn is_hspace_char(c: char) -> bool {
    c.is_ascii() && is_hspace(c as u8)
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Byte offsets of line starts, for line numbers and quoting lines.
struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, c)| c == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { text, starts }
    }

    /// The 0-based line holding byte `at`.
    fn line_of(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at) - 1
    }

    /// Lines as `str::lines` counts them.
    fn count(&self) -> usize {
        self.text.lines().count()
    }

    fn start(&self, line: usize) -> usize {
        self.starts[line]
    }

    fn text_of(&self, line: usize) -> &'a str {
        self.text.lines().nth(line).unwrap_or_default()
    }

    fn refused(&self, line: usize, why: String) -> Refused {
        let text = self
            .text_of(line)
            .trim_start_matches('\u{feff}')
            .trim_matches(is_hspace_char);
        let written = if text.chars().count() > 80 {
            format!("{}...", text.chars().take(77).collect::<String>())
        } else {
            text.to_string()
        };
        Refused { line, written, why }
    }
}

/// What the token just before the current position was, when nothing
/// (no space, no comment) separates them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Glue {
    None,
    Token,
    /// A string or character literal: a name right after it is its suffix.
    Literal,
    /// `$`, `\` or a non-ASCII byte: whether a name glued to it starts a
    /// raw string depends on the compiler.
    Odd,
}

struct Lexer<'a> {
    b: &'a [u8],
    rules: Rules,
    lines: &'a LineIndex<'a>,
    found: Vec<Found>,
    glue: Glue,
    ends_clean: bool,
}

impl<'a> Lexer<'a> {
    fn new(b: &'a [u8], rules: Rules, lines: &'a LineIndex<'a>) -> Self {
        Lexer {
            b,
            rules,
            lines,
            found: Vec::new(),
            glue: Glue::None,
            ends_clean: true,
        }
    }

    /// `p` moved past any backslash-newline splices.
    fn at(&self, mut p: usize) -> usize {
        while self.b.get(p) == Some(&b'\\') && self.b.get(p + 1) == Some(&b'\n') {
            p += 2;
        }
        p
    }

    /// The character at `p` after splices, its position, and the position
    /// after it.
    fn ch(&self, p: usize) -> Option<(u8, usize, usize)> {
        let q = self.at(p);
        self.b.get(q).map(|&c| (c, q, q + 1))
    }

    fn refuse<T>(&self, at: usize, why: impl Into<String>) -> Result<T, Refused> {
        Err(self.lines.refused(self.lines.line_of(at), why.into()))
    }

    fn run(&mut self) -> Result<(), Refused> {
        let mut p = if self.b.starts_with(BOM) {
            BOM.len()
        } else {
            0
        };
        let mut line_start = true;
        while let Some((c, q, next)) = self.ch(p) {
            match c {
                b'\n' => {
                    line_start = true;
                    self.glue = Glue::None;
                    p = next;
                }
                c if is_hspace(c) => {
                    self.glue = Glue::None;
                    p = next;
                }
                b'/' if self.comment_starts(next) => {
                    let (end, spans_lines) = self.comment(next);
                    // NVRTC starts a directive at a `#` that follows a
                    // block comment spanning lines, even after other tokens.
                    line_start |= spans_lines;
                    self.glue = Glue::None;
                    p = end;
                }
                b'#' if line_start => {
                    p = self.directive(q, next, false)?;
                    line_start = false;
                }
                b'%' if line_start && self.ch(next).is_some_and(|(c, _, _)| c == b':') => {
                    let (_, _, after) = self.ch(next).expect("checked");
                    p = self.directive(q, after, true)?;
                    line_start = false;
                }
                _ => {
                    line_start = false;
                    p = self.token(q)?;
                }
            }
        }
        Ok(())
    }

    /// Whether the `/` before `p` starts a comment.
    fn comment_starts(&self, p: usize) -> bool {
        matches!(self.ch(p), Some((b'/' | b'*', _, _)))
    }

    /// Skips the comment whose second character is at `p` (after its `/`);
    /// returns where it ends (a line comment: at its newline) and whether a
    /// block comment spans lines.
    fn comment(&mut self, p: usize) -> (usize, bool) {
        let (kind, _, mut p) = self.ch(p).expect("comment_starts checked");
        let start = p;
        if kind == b'/' {
            while let Some((c, q, next)) = self.ch(p) {
                if c == b'\n' {
                    return (q, false);
                }
                p = next;
            }
            return (self.b.len(), false);
        }
        while let Some((c, _, next)) = self.ch(p) {
            if c == b'*' && matches!(self.ch(next), Some((b'/', _, _))) {
                let (_, _, end) = self.ch(next).expect("checked");
                return (end, self.b[start..end].contains(&b'\n'));
            }
            p = next;
        }
        self.ends_clean = false;
        (self.b.len(), true)
    }

    /// Skips spaces and comments up to the end of the logical line (block
    /// comments may span lines); returns the position of what follows.
    fn skip_spaces(&mut self, mut p: usize) -> usize {
        loop {
            match self.ch(p) {
                Some((c, _, next)) if is_hspace(c) => p = next,
                Some((b'/', _, next)) if self.comment_starts(next) => p = self.comment(next).0,
                _ => return self.at(p),
            }
            self.glue = Glue::None;
        }
    }

    /// Lexes to the end of the logical line; returns the position of its
    /// newline (or the end of the text).
    fn rest_of_line(&mut self, mut p: usize) -> Result<usize, Refused> {
        loop {
            p = self.skip_spaces(p);
            match self.ch(p) {
                None => return Ok(self.b.len()),
                Some((b'\n', q, _)) => return Ok(q),
                Some((_, q, _)) => p = self.token(q)?,
            }
        }
    }

    /// Lexes the token at `q`; returns the position after it.
    fn token(&mut self, q: usize) -> Result<usize, Refused> {
        let c = self.b[q];
        let glued_to = self.glue;
        self.glue = Glue::Token;
        if is_ident_start(c) {
            let (name, end) = self.name(q, is_ident);
            if glued_to == Glue::Literal {
                // A literal's suffix (`"abc"R` is one token).
                return Ok(end);
            }
            if self.rules.raw != Raw::Off
                && RAW_PREFIXES.contains(&name.as_str())
                && matches!(self.ch(end), Some((b'"', _, _)))
            {
                if glued_to == Glue::Odd {
                    return self.refuse(
                        q,
                        "puts a raw string literal right after `$`, `\\` or a non-ASCII character, which compilers split differently; put a space before it",
                    );
                }
                let (_, quote, _) = self.ch(end).expect("checked");
                let end = self.raw_string(quote)?;
                self.glue = Glue::Literal;
                return Ok(end);
            }
            if name == "__has_include" || name == "__has_include_next" {
                return self.has_include(q, end);
            }
            return Ok(end);
        }
        let next = q + 1;
        if c.is_ascii_digit()
            || (c == b'.' && self.ch(next).is_some_and(|(d, _, _)| d.is_ascii_digit()))
        {
            return Ok(self.number(next));
        }
        if c == b'"' || c == b'\'' {
            let end = self.literal(next, c);
            self.glue = Glue::Literal;
            return Ok(end);
        }
        if c == b'$' || c == b'\\' || c >= 0x80 {
            self.glue = Glue::Odd;
        }
        Ok(next)
    }

    /// Reads a name of `is_part` bytes from `q` (splices skipped), as text
    /// (a non-ASCII letter is several bytes of UTF-8).
    fn name(&self, q: usize, is_part: fn(u8) -> bool) -> (String, usize) {
        let mut name = Vec::new();
        let mut p = q;
        while let Some((c, _, next)) = self.ch(p) {
            if !is_part(c) {
                break;
            }
            name.push(c);
            p = next;
        }
        (String::from_utf8_lossy(&name).into_owned(), p)
    }

    /// A preprocessing number from `p` (its first character already read).
    fn number(&self, mut p: usize) -> usize {
        while let Some((c, _, next)) = self.ch(p) {
            let follower = self.ch(next).map(|(d, _, after)| (d, after));
            match (c, follower) {
                (b'e' | b'E' | b'p' | b'P', Some((b'+' | b'-', after))) => p = after,
                (b'\'', Some((d, after))) if self.rules.digit_separators && is_ident(d) => {
                    p = after
                }
                (c, _) if is_ident(c) || c == b'.' => p = next,
                _ => break,
            }
        }
        p
    }

    /// A string or character literal after its opening `quote`: ends after
    /// the closing quote or at the end of the line.
    fn literal(&self, mut p: usize, quote: u8) -> usize {
        while let Some((c, q, next)) = self.ch(p) {
            match c {
                b'\n' => return q,
                c if c == quote => return next,
                b'\\' => match self.ch(next) {
                    Some((b'\n', q, _)) => return q,
                    Some((_, _, after)) => p = after,
                    None => return self.b.len(),
                },
                _ => p = next,
            }
        }
        self.b.len()
    }

    /// A raw string literal whose opening quote is at `quote`.
    fn raw_string(&mut self, quote: usize) -> Result<usize, Refused> {
        let kept = self.rules.raw == Raw::Kept;
        let step = |p: usize| -> Option<(u8, usize)> {
            if kept {
                self.b.get(p).map(|&c| (c, p + 1))
            } else {
                self.ch(p).map(|(c, _, next)| (c, next))
            }
        };
        let mut delimiter = Vec::new();
        let mut p = quote + 1;
        loop {
            match step(p) {
                Some((b'(', next)) => {
                    p = next;
                    break;
                }
                Some((c, next))
                    if delimiter.len() < 16
                        && c.is_ascii_graphic()
                        && !matches!(c, b')' | b'\\') =>
                {
                    delimiter.push(c);
                    p = next;
                }
                _ => {
                    return self.refuse(
                        quote,
                        "opens a raw string literal whose delimiter is not 0 to 16 plain characters before `(`; use a short one such as `R\"x(...)x\"`",
                    );
                }
            }
        }
        let mut closing = vec![b')'];
        closing.extend_from_slice(&delimiter);
        closing.push(b'"');
        let mut start = p;
        while start < self.b.len() {
            let mut m = start;
            let matched = closing.iter().all(|&want| match step(m) {
                Some((c, next)) if c == want => {
                    m = next;
                    true
                }
                _ => false,
            });
            if matched {
                return Ok(m);
            }
            start += 1;
        }
        self.ends_clean = false;
        Ok(self.b.len())
    }

    /// `__has_include` at `q`, its name ending at `end`: only
    /// `__has_include(<name>)` is accepted.
    fn has_include(&mut self, q: usize, end: usize) -> Result<usize, Refused> {
        let refuse = "uses `__has_include` other than as `__has_include(<header>)` for a header built into NVRTC; it would look for files outside kernels/";
        let p = self.skip_spaces(end);
        let Some((b'(', _, p)) = self.ch(p) else {
            return self.refuse(q, refuse);
        };
        let p = self.skip_spaces(p);
        let Some((b'<', _, p)) = self.ch(p) else {
            return self.refuse(q, refuse);
        };
        let Some((target, p)) = self.header_name(p, b'>') else {
            return self.refuse(q, refuse);
        };
        let p = self.skip_spaces(p);
        let Some((b')', _, p)) = self.ch(p) else {
            return self.refuse(q, refuse);
        };
        self.found.push(Found::HasInclude {
            line: self.lines.line_of(q),
            target,
        });
        self.glue = Glue::Token;
        Ok(p)
    }

    /// A header name from `p` (after its opening character) to `close` on
    /// the same logical line; returns it and the position after `close`.
    fn header_name(&self, mut p: usize, close: u8) -> Option<(String, usize)> {
        let mut name = Vec::new();
        loop {
            let (c, _, next) = self.ch(p)?;
            if c == b'\n' {
                return None;
            }
            if c == close {
                return Some((String::from_utf8_lossy(&name).into_owned(), next));
            }
            name.push(c);
            p = next;
        }
    }

    /// The directive whose `#` (or `%:`) is at `intro`, its name starting
    /// after `p`; returns the position of the newline that ends it.
    fn directive(&mut self, intro: usize, p: usize, digraph: bool) -> Result<usize, Refused> {
        self.glue = Glue::None;
        let line = self.lines.line_of(intro);
        let p = self.skip_spaces(p);
        let (name, after_name) =
            self.name(p, |c| is_ident(c) || c == b'$' || c == b'\\' || c >= 0x80);
        if name.is_empty()
            || name.as_bytes()[0].is_ascii_digit()
            || HARMLESS_DIRECTIVES.contains(&name.as_str())
        {
            self.glue = Glue::None;
            return self.rest_of_line(after_name);
        }
        if !INCLUDE_DIRECTIVES.contains(&name.as_str()) {
            return self.refuse(
                intro,
                format!(
                    "is not a preprocessing directive the book accepts (`#{name}`); if it is meant as an include, {INCLUDE_FIX}"
                ),
            );
        }
        let p = self.skip_spaces(after_name);
        let header = match self.ch(p) {
            Some((b'"', _, next)) => self.header_name(next, b'"').map(|(t, end)| (t, end, false)),
            Some((b'<', _, next)) => self.header_name(next, b'>').map(|(t, end)| (t, end, true)),
            _ => None,
        };
        let Some((target, after_header, angle)) = header else {
            return self.refuse(
                intro,
                format!(
                    "is a computed include (a macro, not a file name in quotes); {INCLUDE_FIX}"
                ),
            );
        };
        self.glue = Glue::Token;
        let end = self.rest_of_line(after_header)?;
        let end_line = self.lines.line_of(end.min(self.b.len().saturating_sub(1)));
        let continues_a_line = line > 0 && self.b[..self.lines.start(line)].ends_with(b"\\\n");
        if name != "include" {
            return self.refuse(intro, format!("uses `#{name}`; {INCLUDE_FIX}"));
        }
        if digraph {
            return self.refuse(
                intro,
                format!("is spelled with the `%:` digraph; {INCLUDE_FIX}"),
            );
        }
        if end_line != line || continues_a_line {
            return self.refuse(
                intro,
                format!(
                    "is split across lines (a backslash at a line end, or a comment spanning lines); {INCLUDE_FIX}"
                ),
            );
        }
        if !self.plain(line, intro, &target, angle) {
            return self.refuse(
                intro,
                format!(
                    "has comments or other text around `include` or the file name; {INCLUDE_FIX}"
                ),
            );
        }
        self.found.push(if angle {
            Found::Angle { line, target }
        } else {
            Found::Quoted { line, target }
        });
        Ok(end)
    }

    /// Whether physical `line`, whose directive starts at `intro`, reads
    /// `#include "target"` (or `<target>`) followed only by spaces and
    /// comments that end on the line.
    fn plain(&self, line: usize, intro: usize, target: &str, angle: bool) -> bool {
        let start = self.lines.start(line);
        let text = self.lines.text_of(line);
        let bytes = text.as_bytes();
        let mut i = if line == 0 && bytes.starts_with(BOM) {
            BOM.len()
        } else {
            0
        };
        while i < bytes.len() && is_hspace(bytes[i]) {
            i += 1;
        }
        if start + i != intro {
            return false;
        }
        let (open, close) = if angle { ("<", ">") } else { ("\"", "\"") };
        let Some(rest) = text[i..].strip_prefix('#') else {
            return false;
        };
        let Some(rest) = rest
            .trim_start_matches(is_hspace_char)
            .strip_prefix("include")
        else {
            return false;
        };
        let header = format!("{open}{target}{close}");
        let Some(mut rest) = rest
            .trim_start_matches(is_hspace_char)
            .strip_prefix(header.as_str())
        else {
            return false;
        };
        loop {
            rest = rest.trim_start_matches(is_hspace_char);
            if rest.is_empty() || rest.starts_with("//") {
                return true;
            }
            let Some(comment) = rest.strip_prefix("/*") else {
                return false;
            };
            let Some((_, after)) = comment.split_once("*/") else {
                return false;
            };
            rest = after;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(line: usize, target: &str) -> Found {
        Found::Quoted {
            line,
            target: target.into(),
        }
    }

    fn refused_line(text: &str) -> usize {
        scan(text, false).unwrap_err().line
    }

    // The plain forms are found on their own lines, with their targets.
    #[test]
    fn plain_includes_are_found() {
        let text = "int a;\n#include \"a.cuh\" // helpers\n  #  include <cuda_fp16.h>\n#include\"b.cuh\"\n";
        assert_eq!(
            scan(text, false).unwrap(),
            vec![
                quoted(1, "a.cuh"),
                Found::Angle {
                    line: 2,
                    target: "cuda_fp16.h".into()
                },
                quoted(3, "b.cuh"),
            ]
        );
    }

    // Includes inside comments, strings and raw strings are not directives.
    #[test]
    fn hidden_includes_are_not_directives() {
        let text = "/*\n#include \"a.cuh\"\n*/\nconst char* s = \"#include \\\"b\\\"\";\n// #include \"c.cuh\"\nconst char* r = R\"x(\n#include \"d.cuh\"\n)x\";\n";
        // C++03 reads the raw string as code: the rule sets disagree.
        assert_eq!(scan(text, false).unwrap_err().line, 6);
        let without_raw =
            "/*\n#include \"a.cuh\"\n*/\nconst char* s = \"/* #include\";\n#include \"b.cuh\"\n";
        assert_eq!(scan(without_raw, false).unwrap(), vec![quoted(4, "b.cuh")]);
    }

    // A `/*` inside a string, character or raw string starts no comment,
    // so it cannot hide the include that follows.
    #[test]
    fn comment_openers_in_literals_hide_nothing() {
        for prefix in [
            "const char* s = \"/*\";",
            "char c = '\"'; const char* s = \"/*\";",
            "const char* s = \"abc\" \"\\\" /*\";",
            "int big = 1'000'000; const char* s = \"/*\";",
        ] {
            let text = format!("{prefix}\n#include \"/etc/passwd\"\n");
            assert_eq!(
                scan(&text, false),
                Ok(vec![quoted(1, "/etc/passwd")]),
                "{prefix}"
            );
        }
        // Before C++11 this raw string is a name and a string, and its `/*`
        // opens a comment: refused, as the standards disagree.
        let raw = "const char* s = u8R\"x( \" /* )x\";\n#include \"/etc/passwd\"\n";
        assert_eq!(refused_line(raw), 1);
    }

    // Every obfuscated spelling is refused at the line of its `#`.
    #[test]
    fn obfuscated_includes_are_refused() {
        assert_eq!(refused_line("int a;\n#/*c*/include \"x\"\n"), 1);
        assert_eq!(refused_line("%:include \"x\"\n"), 0);
        assert_eq!(refused_line("#inc\\\nlude \"x\"\n"), 0);
        assert_eq!(refused_line("#include \"x\\\n\"\n"), 0);
        assert_eq!(refused_line("\\\n#include \"x\"\n"), 1);
        assert_eq!(refused_line("#include_next \"x\"\n"), 0);
        assert_eq!(refused_line("#import \"x\"\n"), 0);
        assert_eq!(refused_line("#define P \"x\"\n#include P\n"), 1);
        assert_eq!(refused_line("#include \"x\" /* a\n */\n"), 0);
        assert_eq!(refused_line("#/*\n*/include \"x\"\n"), 0);
        assert_eq!(refused_line("#incl\\u0075de \"x\"\n"), 0);
        assert_eq!(refused_line("int a; /* a\n */ #include \"x\"\n"), 1);
        assert_eq!(refused_line("??=include \"x\"\n"), 0);
        assert_eq!(refused_line("#inc\\ \nlude \"x\"\n"), 0);
        assert_eq!(refused_line("#include \"x\" junk\n"), 0);
    }

    // `#import` (GCC, Objective-C) and `#embed` (C23, C++26) open files in
    // the preprocessors that know them: each is refused as an include-like
    // directive, written plainly or with a macro, and the message names it.
    #[test]
    fn import_and_embed_are_refused_as_includes() {
        for name in ["import", "embed", "include_next"] {
            for target in ["\"x\"", "<x>"] {
                let text = format!("int a;\n#{name} {target}\n");
                let refused = scan(&text, false).unwrap_err();
                assert_eq!(refused.line, 1, "{text}");
                assert!(
                    refused.why.contains(&format!("uses `#{name}`")),
                    "{text}: {}",
                    refused.why
                );
            }
            let computed = format!("#define F \"x\"\n#{name} F\n");
            let refused = scan(&computed, false).unwrap_err();
            assert!(
                refused.why.contains("computed include"),
                "{computed}: {}",
                refused.why
            );
        }
    }

    // An include on the first line is found, after a byte-order mark too
    // (which editors write and the preprocessor skips).
    #[test]
    fn an_include_on_the_first_line_is_found() {
        for text in ["#include \"a.cuh\"\n", "\u{feff}#include \"a.cuh\"\n"] {
            assert_eq!(scan(text, false), Ok(vec![quoted(0, "a.cuh")]), "{text:?}");
        }
    }

    // A null directive (`#` alone) and a line marker (`# 1 "file"`) open
    // no file: they are accepted.
    #[test]
    fn null_directives_and_line_markers_are_harmless() {
        assert_eq!(scan("#\n# 1 \"a.cu\"\nint a;\n", false), Ok(vec![]));
    }

    // A directive's name is read as the preprocessor reads an identifier,
    // `$`, universal character names and non-ASCII letters included, so the
    // refusal names the whole directive.
    #[test]
    fn a_refused_directive_is_named_whole() {
        for name in ["incl\\u0075de", "inc$lude", "incl\u{fc}de"] {
            let text = format!("#{name} \"x\"\n");
            let refused = scan(&text, false).unwrap_err();
            assert!(
                refused.why.contains(&format!("(`#{name}`)")),
                "{text}: {}",
                refused.why
            );
        }
    }

    // A raw string or digit separator that only some standards read hides
    // an include from the others: the disagreement is refused.
    #[test]
    fn standard_dependent_readings_are_refused() {
        let raw = "const char* s = R\"x( \" /* )x\";\n#include \"a.cuh\"\n// */\n";
        assert!(scan(raw, false).is_err());
        let separator = "int c = 1'a/*';\n#include \"a.cuh\"\n// */\n";
        assert!(scan(separator, false).is_err());
        let spliced_raw = "const char* s = R\"x( )x\\\n\" /* )x\";\n#include \"a.cuh\"\n// */\n";
        assert!(scan(spliced_raw, false).is_err());
    }

    // A file spliced into another must not leave a comment open.
    #[test]
    fn included_files_must_end_clean() {
        assert!(scan("int a; /* open\n", true).is_err());
        assert!(scan("int a; /* open\n", false).is_ok());
        assert!(scan("#define A 1 \\\n", true).is_err());
    }

    // `__has_include` may only ask about built-in headers, written out.
    #[test]
    fn has_include_is_checked() {
        assert_eq!(
            scan("#if __has_include(<cuda_fp16.h>)\n#endif\n", false).unwrap(),
            vec![Found::HasInclude {
                line: 0,
                target: "cuda_fp16.h".into()
            }]
        );
        assert!(scan("#if __has_include(\"/etc/passwd\")\n#endif\n", false).is_err());
        assert!(scan("#define H __has_include\n", false).is_err());
    }

    // Lone carriage returns are line ends to NVRTC, so they are to us.
    #[test]
    fn lone_carriage_returns_are_line_ends() {
        let text = normalize_newlines("int a;\r#include \"x\"\r\n");
        assert_eq!(scan(&text, false).unwrap(), vec![quoted(1, "x")]);
        assert!(scan("int a;\r#include \"x\"\n", false).is_err());
    }
}
