//! `{{#sass ID [KERNEL] [anchor=NAME]}}` and `{{#sass_count ID [KERNEL]
//! [anchor=NAME] WHAT}}`: the arguments, read into the listing and region
//! asked for and the count, or the mistake with the form to write.

use crate::directive_syntax::{form_name, usage};
use cuda_measured_core::suggest::message;

/// Which kernel of which example a `{{#sass}}` or `{{#sass_count}}`
/// reads, and which part of its source it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SassTarget {
    /// Example id.
    pub id: String,
    /// The kernel, when the example has several.
    pub kernel: Option<String>,
    /// The anchor whose lines are highlighted and counted.
    pub anchor: Option<String>,
}

/// Which count `{{#sass_count}}` gives (the rules in
/// `cuda_measured_core::sass_counts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SassCount {
    /// Instructions (padding left out).
    Instructions,
    /// Instructions under a predicate, branches not included.
    Predicated,
    /// Branches.
    Branches,
    /// Instructions of integer division or modulo sequences.
    Division,
    /// Registers per thread of the kernel.
    Registers,
    /// Bytes of the kernel's stack frame per thread: local memory the
    /// compiler spills registers to (or keeps arrays in).
    Stack,
}

impl SassCount {
    const NAMES: &'static str = "instructions, predicated, branches, division, registers or stack";
    const WORDS: [&'static str; 6] = [
        "instructions",
        "predicated",
        "branches",
        "division",
        "registers",
        "stack",
    ];

    fn from_word(word: &str) -> Option<Self> {
        Some(match word {
            "instructions" => SassCount::Instructions,
            "predicated" => SassCount::Predicated,
            "branches" => SassCount::Branches,
            "division" => SassCount::Division,
            "registers" => SassCount::Registers,
            "stack" => SassCount::Stack,
            _ => return None,
        })
    }
}

/// `{{#sass}}`'s form and what to say of it when misused.
pub const SASS_FORM: (&str, &str) = (
    "sass ID [KERNEL] [anchor=NAME]",
    "alone on its line; KERNEL when the example has several, NAME an anchor of its source, e.g. {{#sass reductions/stride_tree anchor=fold}}",
);

/// `{{#sass_count}}`'s form and what to say of it when misused.
pub const SASS_COUNT_FORM: (&str, &str) = (
    "sass_count ID [KERNEL] [anchor=NAME] WHAT",
    "WHAT is instructions, predicated, branches, division or registers, e.g. {{#sass_count reductions/interleaved_tree anchor=fold division}}",
);

/// Why a `{{#sass}}` or `{{#sass_count}}` cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// Not the form (`form`, `hint`): no id, two kernels, two anchors.
    #[error("{}", usage(.0.0, .0.1))]
    Usage((&'static str, &'static str)),
    /// `key=` is no attribute of the directive of `form`.
    #[error("{}", message(
        &format!("`{key}=` is not an attribute of {{{{#{}}}}}", form_name(form)),
        key,
        ["anchor"],
        &format!("write `{{{{#{form}}}}}`"),
    ))]
    Attribute {
        /// The key written.
        key: String,
        /// The directive's form.
        form: &'static str,
    },
    /// `{{#sass_count}}` ends with no count.
    #[error("{}", message(
        &format!("`{word}` is not a count"),
        word,
        SassCount::WORDS,
        &format!("end {{{{#sass_count}}}} with {}", SassCount::NAMES),
    ))]
    NotACount {
        /// The last word written.
        word: String,
    },
    /// Registers and the stack frame are a kernel's, not an anchor's.
    #[error(
        "registers and stack are counted for the whole kernel: drop `anchor=` from {{{{#sass_count ... registers}}}} or {{{{#sass_count ... stack}}}}"
    )]
    RegistersOfAnchor,
}

/// `{{#sass}}`'s arguments.
pub fn parse(args: &[&str]) -> Result<SassTarget, ArgsError> {
    match args {
        [id, rest @ ..] => target(id, rest, SASS_FORM),
        [] => Err(ArgsError::Usage(SASS_FORM)),
    }
}

/// `{{#sass_count}}`'s arguments: the listing and region, and the count.
pub fn parse_count(args: &[&str]) -> Result<(SassTarget, SassCount), ArgsError> {
    let [id, rest @ .., what] = args else {
        return Err(ArgsError::Usage(SASS_COUNT_FORM));
    };
    let count = SassCount::from_word(what).ok_or_else(|| ArgsError::NotACount {
        word: what.to_string(),
    })?;
    let target = target(id, rest, SASS_COUNT_FORM)?;
    if matches!(count, SassCount::Registers | SassCount::Stack) && target.anchor.is_some() {
        return Err(ArgsError::RegistersOfAnchor);
    }
    Ok((target, count))
}

/// The example, kernel and anchor of a `{{#sass}}` or `{{#sass_count}}`:
/// after the id, at most one kernel name and at most one `anchor=NAME`,
/// in either order.
fn target(
    id: &str,
    rest: &[&str],
    form: (&'static str, &'static str),
) -> Result<SassTarget, ArgsError> {
    let mut target = SassTarget {
        id: id.to_string(),
        kernel: None,
        anchor: None,
    };
    if id.contains('=') {
        return Err(ArgsError::Usage(form));
    }
    for word in rest {
        match word.split_once('=') {
            Some(("anchor", name)) if !name.is_empty() && target.anchor.is_none() => {
                target.anchor = Some(name.to_string());
            }
            Some(("anchor", _)) => return Err(ArgsError::Usage(form)),
            Some((key, _)) => {
                return Err(ArgsError::Attribute {
                    key: key.to_string(),
                    form: form.0,
                });
            }
            None if target.kernel.is_none() => target.kernel = Some(word.to_string()),
            None => return Err(ArgsError::Usage(form)),
        }
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The kind's arguments read on their own: a listing, kernel and anchor
    // in either order, a count, and each mistake with its typed reason.
    #[test]
    fn arguments_and_their_mistakes() {
        assert_eq!(
            parse(&["r/two", "anchor=fold", "final_sum"]),
            Ok(SassTarget {
                id: "r/two".into(),
                kernel: Some("final_sum".into()),
                anchor: Some("fold".into()),
            })
        );
        assert_eq!(
            parse_count(&["r/tree", "division"]).map(|(_, c)| c),
            Ok(SassCount::Division)
        );
        assert_eq!(parse(&[]), Err(ArgsError::Usage(SASS_FORM)));
        assert_eq!(parse(&["a", "k1", "k2"]), Err(ArgsError::Usage(SASS_FORM)));
        assert_eq!(
            parse_count(&["a", "anchor=f", "registers"]),
            Err(ArgsError::RegistersOfAnchor)
        );
        assert_eq!(
            parse_count(&["a", "divsion"]).unwrap_err().to_string(),
            "`divsion` is not a count; did you mean `division`?"
        );
        assert_eq!(
            parse(&["a", "ancor=fold"]).unwrap_err().to_string(),
            "`ancor=` is not an attribute of {{#sass}}; did you mean `anchor`?"
        );
    }
}
