//! The compiler's messages as a reader gets them: NVRTC's log read into
//! one diagnostic per message (`FILE(LINE): SEVERITY: TEXT`, then the
//! source line and a caret under the column), lines put back into the
//! reader's text ([`super::splice::Spliced::reader_line`]); every text the
//! service answers with scrubbed of server paths ([`Scrub`]) and cut to
//! [`LOG_CAP`].

use super::api::Diagnostic;
use super::splice::Spliced;
use std::path::{Path, PathBuf};

/// Bytes of any log an answer holds (the GPU kernel sites' cap); the rest
/// is cut, and the cut said.
pub const LOG_CAP: usize = 16 * 1024;

/// One message of NVRTC's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The file it names (`kernels/r/tree.cu`, `src/ch.md`).
    pub file: String,
    /// Its 1-based line there.
    pub line: usize,
    /// 1-based column, from the caret, when the log has one.
    pub column: Option<usize>,
    /// `error`, `warning`, `catastrophic error`, `remark`.
    pub severity: String,
    /// The message.
    pub text: String,
}

/// The messages of an NVRTC log, in order.
pub fn messages(log: &str) -> Vec<Message> {
    let lines: Vec<&str> = log.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some((file, line_no, rest)) = located(line) else {
            continue;
        };
        let Some((severity, text)) = rest.split_once(": ") else {
            continue;
        };
        // The echoed source line, then the caret line, each indented by two.
        let column = lines.get(i + 2).and_then(|caret| {
            let trimmed = caret.trim_end();
            (trimmed.ends_with('^') && trimmed.trim_start() == "^")
                .then(|| trimmed.chars().count().saturating_sub(2))
                .filter(|&c| c >= 1)
        });
        out.push(Message {
            file: file.to_string(),
            line: line_no,
            column,
            severity: severity.trim().to_string(),
            text: text.trim().to_string(),
        });
    }
    out
}

/// `FILE(LINE): REST` split, when `line` has that form.
fn located(line: &str) -> Option<(&str, usize, &str)> {
    let (head, rest) = line.split_once("): ")?;
    let (file, number) = head.rsplit_once('(')?;
    let number: usize = number.parse().ok()?;
    (!file.is_empty()).then_some((file, number, rest))
}

/// The diagnostics of `log` for a reader whose text is `spliced` into the
/// example named `file` (its first line being line `first_line` there):
/// lines in the reader's text; a message about the book's own lines (its
/// header, an included file) keeps no line and says where it is.
pub fn diagnostics(log: &str, file: &str, first_line: usize, spliced: &Spliced) -> Vec<Diagnostic> {
    messages(log)
        .into_iter()
        .map(|m| {
            let line = (m.file == file && m.line >= first_line)
                .then(|| spliced.reader_line(m.line - first_line + 1))
                .flatten();
            let message = match line {
                Some(_) => m.text,
                None => format!("{} (in the book's code, {}:{})", m.text, m.file, m.line),
            };
            Diagnostic {
                line,
                column: line.and(m.column),
                severity: m.severity,
                message,
            }
        })
        .collect()
}

/// Replaces the server's own paths in text an answer holds.
#[derive(Debug, Clone)]
pub struct Scrub {
    /// Path prefix and what stands for it, longest first.
    pairs: Vec<(String, &'static str)>,
}

impl Scrub {
    /// Scrubs the book root, the temporary folder, the home folder and the
    /// runner's own folder.
    pub fn new(book_root: &Path) -> Scrub {
        let mut pairs: Vec<(PathBuf, &'static str)> = vec![(book_root.to_path_buf(), "<book>")];
        if let Ok(canonical) = book_root.canonicalize() {
            pairs.push((canonical, "<book>"));
        }
        let temp = std::env::temp_dir();
        if let Ok(canonical) = temp.canonicalize() {
            pairs.push((canonical, "<tmp>"));
        }
        pairs.push((temp, "<tmp>"));
        if let Some(home) = std::env::var_os("HOME") {
            pairs.push((PathBuf::from(home), "<home>"));
        }
        if let Some(dir) = std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(Path::to_path_buf))
        {
            pairs.push((dir, "<runner>"));
        }
        let mut pairs: Vec<(String, &'static str)> = pairs
            .into_iter()
            .map(|(p, name)| (p.to_string_lossy().trim_end_matches('/').to_string(), name))
            // "/" or "" would replace every slash.
            .filter(|(p, _)| p.len() > 1)
            .collect();
        pairs.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        pairs.dedup();
        Scrub { pairs }
    }

    /// `text` without the server's paths.
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (path, name) in &self.pairs {
            if out.contains(path.as_str()) {
                out = out.replace(path.as_str(), name);
            }
        }
        out
    }
}

/// `log` cut to [`LOG_CAP`] bytes (at a character boundary), the cut said.
pub fn capped(log: &str) -> String {
    if log.len() <= LOG_CAP {
        return log.to_string();
    }
    let mut end = LOG_CAP;
    while !log.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n[log cut at {} KiB: {} more bytes not shown]",
        &log[..end],
        LOG_CAP / 1024,
        log.len() - end
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NVRTC 13.0's log for two errors, the first in a line with a tab.
    const LOG: &str = "kernels/t/a.cu(11): error: identifier \"y\" is undefined\n  \tout[0] = y + 1;\n  \t         ^\n\nkernels/t/a.cu(12): error: a value of type \"const char *\" cannot be used to initialize an entity of type \"int\"\n      int q = \"s\";\n              ^\n\n2 errors detected in the compilation of \"kernels/t/a.cu\".";

    // Each message has its file, line, column (the caret's, tabs counting
    // one), severity and text; the summary line is none.
    #[test]
    fn nvrtc_messages_are_read() {
        let m = messages(LOG);
        assert_eq!(m.len(), 2);
        assert_eq!(
            (m[0].file.as_str(), m[0].line, m[0].column),
            ("kernels/t/a.cu", 11, Some(11))
        );
        assert_eq!(m[0].severity, "error");
        assert_eq!(m[0].text, "identifier \"y\" is undefined");
        assert_eq!((m[1].line, m[1].column), (12, Some(13)));
    }

    // Lines move into the reader's text; one in the book's part keeps no
    // line and names where it is.
    #[test]
    fn lines_are_the_readers() {
        let spliced = Spliced {
            text: String::new(),
            offset: 9,
            lines: 4,
            reader: String::new(),
        };
        let d = diagnostics(LOG, "kernels/t/a.cu", 1, &spliced);
        assert_eq!(d[0].line, Some(2));
        assert_eq!(d[1].line, Some(3));
        let header = Spliced {
            offset: 12,
            ..spliced
        };
        let d = diagnostics(LOG, "kernels/t/a.cu", 1, &header);
        assert_eq!(d[0].line, None);
        assert!(
            d[0].message
                .ends_with("(in the book's code, kernels/t/a.cu:11)"),
            "{}",
            d[0].message
        );
    }

    // The book root and the temporary folder never reach an answer.
    #[test]
    fn server_paths_are_scrubbed() {
        let scrub = Scrub::new(Path::new("/srv/book"));
        let tmp = std::env::temp_dir().join("x.cu");
        let text = format!("/srv/book/kernels/a.cu(3): error; {}", tmp.display());
        assert_eq!(
            scrub.text(&text),
            "<book>/kernels/a.cu(3): error; <tmp>/x.cu"
        );
    }

    // A long log is cut at the cap and says how much is missing.
    #[test]
    fn long_logs_are_cut() {
        let long = "é".repeat(LOG_CAP);
        let cut = capped(&long);
        assert!(cut.len() < LOG_CAP + 100);
        assert!(
            cut.ends_with(&format!("{} more bytes not shown]", long.len() - LOG_CAP)),
            "{}",
            &cut[cut.len() - 60..]
        );
        assert_eq!(capped("short"), "short");
    }
}
