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

/// The attributes a runnable block takes (each as `name=value`).
const ATTRIBUTES: [&str; 3] = ["file", "anchor", "id"];

/// Why an info string of a `cuda run` block cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InfoError {
    /// An attribute or flag this preprocessor does not know.
    #[error("{}", unknown_message(.0))]
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
    /// A word one typo away from `run` (or the language one away from
    /// `cuda`) in a block that would otherwise show as plain code.
    #[error(
        "unknown word `{word}` in the block's first line; did you mean `{meant}`? Write ```{fixed} for a runnable example, or ```cuda alone for plain code"
    )]
    NearMiss {
        /// The word as written (`rn`).
        word: String,
        /// The word meant (`run`).
        meant: String,
        /// The info string with the word corrected.
        fixed: String,
    },
    /// An attribute of runnable blocks in a `cuda` block without `run`.
    #[error(
        "`{attribute}` is an attribute of runnable examples, but this block has no `run`: write ```{fixed} for a runnable example, or ```cuda alone for plain code"
    )]
    MissingRun {
        /// The attribute as written (`file=r/tree.cu`).
        attribute: String,
        /// The info string with `run` added.
        fixed: String,
    },
}

/// An unknown attribute, with the attribute most likely meant.
fn unknown_message(token: &str) -> String {
    let what = format!("unknown attribute `{token}` in a `cuda run` block");
    let (name, value) = match token.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (token, None),
    };
    let meant = cuda_measured_core::suggest::closest(name, ATTRIBUTES).map(|a| match value {
        Some(v) => format!("{a}={v}"),
        None => format!("{a}={}", placeholder(a)),
    });
    match meant {
        Some(m) => format!("{what}; did you mean `{m}`?"),
        None => format!("{what}: use file=PATH, anchor=NAME and id=ID only"),
    }
}

fn placeholder(attribute: &str) -> &'static str {
    match attribute {
        "file" => "PATH",
        "anchor" => "NAME",
        _ => "ID",
    }
}

/// One token of an info string: a flag (`run`) or `name=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    name: String,
    value: Option<String>,
}

impl Token {
    fn is_flag(&self, name: &str) -> bool {
        self.name == name && self.value.is_none()
    }

    /// The token as it could be written back: a value with spaces or
    /// commas (or none at all) in quotes.
    fn written(&self) -> String {
        match &self.value {
            Some(v) if v.is_empty() || v.contains(|c: char| c.is_whitespace() || c == ',') => {
                format!("{}=\"{v}\"", self.name)
            }
            Some(v) => format!("{}={v}", self.name),
            None => self.name.clone(),
        }
    }
}

/// Reads an info string. `Ok(None)` means the block is not a runnable
/// example (not `cuda`, or `cuda` without `run`) and must be left as written.
/// A block one typo away from a runnable one (`cuda rn file=...`, `cuda
/// file=...` without `run`, `cdua run file=...`) is an error, not plain code.
pub fn parse(info: &str) -> Result<Option<RunAttrs>, InfoError> {
    let tokens = tokenize(info);
    let first_is_cuda = matches!(tokens.first(), Some(Ok(t)) if t.is_flag("cuda"));
    let is_run = tokens
        .iter()
        .any(|t| matches!(t, Ok(t) if t.is_flag("run")));
    if !first_is_cuda || !is_run {
        return near_miss(&tokens).map_or(Ok(None), Err);
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

/// Why a block that is not a runnable example looks like a typo of one:
/// after `cuda`, a word one edit from `run` (`rn`, `rum`, `Run`), or
/// without `run` an attribute only runnable blocks take (`file=`,
/// `anchor=`, `id=`); or a first word one edit from `cuda` followed by
/// `run` and such an attribute. `cuda` alone, or with other words, stays
/// plain code.
fn near_miss(tokens: &[Result<Token, InfoError>]) -> Option<InfoError> {
    let words: Vec<&Token> = tokens.iter().filter_map(|t| t.as_ref().ok()).collect();
    let (first, rest) = words.split_first()?;
    let has_attribute = || {
        rest.iter()
            .find(|t| t.value.is_some() && ATTRIBUTES.contains(&t.name.as_str()))
    };
    let fixed = |replace: Option<usize>, with: &str, insert_run: bool| {
        let mut out = vec![if replace == Some(0) {
            with.to_string()
        } else {
            first.written()
        }];
        if insert_run {
            out.push("run".into());
        }
        for (i, t) in rest.iter().enumerate() {
            out.push(if replace == Some(i + 1) {
                with.to_string()
            } else {
                t.written()
            });
        }
        out.join(" ")
    };
    let closest = cuda_measured_core::suggest::closest;
    if first.is_flag("cuda") {
        for (i, t) in rest.iter().enumerate() {
            if t.value.is_none() && closest(&t.name, ["run"]).is_some() {
                return Some(InfoError::NearMiss {
                    word: t.name.clone(),
                    meant: "run".into(),
                    fixed: fixed(Some(i + 1), "run", false),
                });
            }
        }
        return has_attribute().map(|t| InfoError::MissingRun {
            attribute: t.written(),
            fixed: fixed(None, "", true),
        });
    }
    let looks_runnable = rest.iter().any(|t| t.is_flag("run")) && has_attribute().is_some();
    (first.value.is_none() && looks_runnable && closest(&first.name, ["cuda"]).is_some()).then(
        || InfoError::NearMiss {
            word: first.name.clone(),
            meant: "cuda".into(),
            fixed: fixed(Some(0), "cuda", false),
        },
    )
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
            "cuda ignore",
            "cuda editable",
            "cuda rust",
            "cpp run",
            "cpp run file=x.cu",
            "cudaa",
            "cuda-run",
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

    // A block one typo away from a runnable example is an error naming the
    // word and the fix, not an empty listing of plain code.
    #[test]
    fn near_misses_of_runnable_blocks() {
        let cases = [
            (
                "cuda rn file=r/tree.cu",
                "unknown word `rn` in the block's first line; did you mean `run`? Write ```cuda run file=r/tree.cu for a runnable example, or ```cuda alone for plain code",
            ),
            (
                "cuda,Run,id=x",
                "unknown word `Run` in the block's first line; did you mean `run`? Write ```cuda run id=x for a runnable example, or ```cuda alone for plain code",
            ),
            (
                "cuda file=\"a b.cu\" urn",
                "unknown word `urn` in the block's first line; did you mean `run`? Write ```cuda file=\"a b.cu\" run for a runnable example, or ```cuda alone for plain code",
            ),
            (
                "cuda file=r/tree.cu anchor=fold",
                "`file=r/tree.cu` is an attribute of runnable examples, but this block has no `run`: write ```cuda run file=r/tree.cu anchor=fold for a runnable example, or ```cuda alone for plain code",
            ),
            (
                "cuda id=x",
                "`id=x` is an attribute of runnable examples, but this block has no `run`: write ```cuda run id=x for a runnable example, or ```cuda alone for plain code",
            ),
            (
                "CUDA run file=r/tree.cu",
                "unknown word `CUDA` in the block's first line; did you mean `cuda`? Write ```cuda run file=r/tree.cu for a runnable example, or ```cuda alone for plain code",
            ),
            (
                "cdua run id=x",
                "unknown word `cdua` in the block's first line; did you mean `cuda`? Write ```cuda run id=x for a runnable example, or ```cuda alone for plain code",
            ),
        ];
        for (info, want) in cases {
            assert_eq!(parse(info).unwrap_err().to_string(), want, "{info}");
        }
    }

    // An unknown attribute names the attribute most likely meant.
    #[test]
    fn unknown_attributes_name_the_one_meant() {
        let cases = [
            (
                "cuda run fle=r/tree.cu",
                "unknown attribute `fle=r/tree.cu` in a `cuda run` block; did you mean `file=r/tree.cu`?",
            ),
            (
                "cuda run file=r/tree.cu anchr=fold",
                "unknown attribute `anchr=fold` in a `cuda run` block; did you mean `anchor=fold`?",
            ),
            (
                "cuda run id",
                "unknown attribute `id` in a `cuda run` block; did you mean `id=ID`?",
            ),
            (
                "cuda run path=x.cu",
                "unknown attribute `path=x.cu` in a `cuda run` block: use file=PATH, anchor=NAME and id=ID only",
            ),
        ];
        for (info, want) in cases {
            assert_eq!(parse(info).unwrap_err().to_string(), want, "{info}");
        }
    }
}
