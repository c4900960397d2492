//! The info string of a fenced code block: which blocks are runnable
//! examples (first word `cuda`, flag `run`) and the attributes they carry.
//!
//! Tokens are separated by spaces or commas; values may be double-quoted:
//! `cuda run file="reductions/stride tree.cu", anchor=fold id=stride`.

/// Attributes of a runnable block, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunAttrs {
    /// `file=PATH`, relative to the kernels folder.
    pub file: Option<String>,
    /// `anchor=NAME`, the part of the file to show.
    pub anchor: Option<String>,
    /// `id=ID`, the example's id in the book and the results store.
    pub id: Option<String>,
}

/// Why an info string of a `cuda run` block cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InfoError {
    /// An attribute or flag this preprocessor does not know.
    #[error(
        "unknown attribute `{0}` in a `cuda run` block: use file=PATH, anchor=NAME and id=ID only"
    )]
    Unknown(String),
    /// The same attribute twice.
    #[error("attribute `{0}` is given twice: keep one")]
    Repeated(String),
    /// `name=` with nothing after it.
    #[error("attribute `{0}` has an empty value: write {0}=VALUE")]
    EmptyValue(String),
    /// A quoted value without its closing quote.
    #[error("a quoted value is not closed: end it with `\"`")]
    OpenQuote,
}

/// One token of an info string: a flag (`run`) or `name=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    name: String,
    value: Option<String>,
}

/// Reads an info string. `Ok(None)` means the block is not a runnable
/// example (not `cuda`, or `cuda` without `run`) and must be left as written.
pub fn parse(info: &str) -> Result<Option<RunAttrs>, InfoError> {
    let tokens = tokenize(info);
    let first_is_cuda =
        matches!(tokens.first(), Some(Ok(t)) if t.name == "cuda" && t.value.is_none());
    if !first_is_cuda {
        return Ok(None);
    }
    let is_run = tokens
        .iter()
        .any(|t| matches!(t, Ok(t) if t.name == "run" && t.value.is_none()));
    if !is_run {
        return Ok(None);
    }
    let mut attrs = RunAttrs::default();
    let mut seen_run = false;
    for token in tokens.into_iter().skip(1) {
        let Token { name, value } = token?;
        let slot = match (name.as_str(), &value) {
            ("run", None) if !seen_run => {
                seen_run = true;
                continue;
            }
            ("run", None) => return Err(InfoError::Repeated(name)),
            ("file", Some(_)) => &mut attrs.file,
            ("anchor", Some(_)) => &mut attrs.anchor,
            ("id", Some(_)) => &mut attrs.id,
            _ => return Err(InfoError::Unknown(render_token(&name, value.as_deref()))),
        };
        let value = value.unwrap_or_default();
        if value.is_empty() {
            return Err(InfoError::EmptyValue(name));
        }
        if slot.is_some() {
            return Err(InfoError::Repeated(name));
        }
        *slot = Some(value);
    }
    Ok(Some(attrs))
}

fn render_token(name: &str, value: Option<&str>) -> String {
    match value {
        Some(v) => format!("{name}={v}"),
        None => name.to_string(),
    }
}

/// Splits an info string into tokens; a quote error is kept in place so that
/// blocks that are not runnable never fail on it.
fn tokenize(info: &str) -> Vec<Result<Token, InfoError>> {
    let mut tokens = Vec::new();
    let mut chars = info.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace() || *c == ',').is_some() {}
        if chars.peek().is_none() {
            return tokens;
        }
        let mut name = String::new();
        while let Some(c) = chars.next_if(|c| !c.is_whitespace() && *c != ',' && *c != '=') {
            name.push(c);
        }
        if chars.next_if_eq(&'=').is_none() {
            tokens.push(Ok(Token { name, value: None }));
            continue;
        }
        let mut value = String::new();
        if chars.next_if_eq(&'"').is_some() {
            let mut closed = false;
            for c in chars.by_ref() {
                if c == '"' {
                    closed = true;
                    break;
                }
                value.push(c);
            }
            if !closed {
                tokens.push(Err(InfoError::OpenQuote));
                return tokens;
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace() && *c != ',') {
                value.push(c);
            }
        }
        tokens.push(Ok(Token {
            name,
            value: Some(value),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(file: Option<&str>, anchor: Option<&str>, id: Option<&str>) -> RunAttrs {
        RunAttrs {
            file: file.map(str::to_string),
            anchor: anchor.map(str::to_string),
            id: id.map(str::to_string),
        }
    }

    // Every accepted spelling of a header reads to the same attributes.
    #[test]
    fn accepted_info_strings() {
        let cases: &[(&str, RunAttrs)] = &[
            ("cuda run", attrs(None, None, None)),
            ("cuda run id=sum", attrs(None, None, Some("sum"))),
            ("cuda,run,id=sum", attrs(None, None, Some("sum"))),
            ("cuda run, id=sum", attrs(None, None, Some("sum"))),
            (
                "  cuda   run   file=a/b.cu ",
                attrs(Some("a/b.cu"), None, None),
            ),
            (
                "cuda run file=\"a b/c.cu\" anchor=\"fold\" id=x",
                attrs(Some("a b/c.cu"), Some("fold"), Some("x")),
            ),
            ("cuda id=x run", attrs(None, None, Some("x"))),
            ("cuda run id=größe", attrs(None, None, Some("größe"))),
        ];
        for (info, want) in cases {
            assert_eq!(parse(info).unwrap().as_ref(), Some(want), "{info}");
        }
    }

    // Blocks that are not `cuda ... run` are not examples, whatever else they hold.
    #[test]
    fn blocks_that_are_not_examples() {
        for info in [
            "",
            "cuda",
            "cuda file=x.cu",
            "cpp run",
            "cudax run",
            "rust,ignore",
            "cuda running",
            "cuda \"open",
            "run cuda",
        ] {
            assert_eq!(parse(info), Ok(None), "{info}");
        }
    }

    // Mistakes in a runnable header are errors that say what to write.
    #[test]
    fn malformed_headers() {
        let cases: &[(&str, InfoError)] = &[
            ("cuda run ignore", InfoError::Unknown("ignore".into())),
            ("cuda run path=x.cu", InfoError::Unknown("path=x.cu".into())),
            ("cuda run id=a id=b", InfoError::Repeated("id".into())),
            ("cuda run run", InfoError::Repeated("run".into())),
            ("cuda run id=", InfoError::EmptyValue("id".into())),
            ("cuda run file=\"a.cu", InfoError::OpenQuote),
            ("cuda run=1 run", InfoError::Unknown("run=1".into())),
        ];
        for (info, want) in cases {
            assert_eq!(parse(info).as_ref(), Err(want), "{info}");
        }
        assert!(
            InfoError::Unknown("x".into())
                .to_string()
                .contains("file=PATH")
        );
    }
}
