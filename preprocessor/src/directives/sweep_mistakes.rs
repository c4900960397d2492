//! The values of swept examples a directive names (`ID@STRIDE=4`,
//! [`crate::example_ref`]), checked against each example's `[sweep]`
//! table: a value missing where one is needed, undeclared, or given to an
//! example that sweeps nothing, or a swept example given to a tool that
//! runs one compilation.

use super::Directive;
use crate::catalog::Catalog;
use crate::example_ref::{example, value_of};
use cuda_measured_core::sweep::not_taken_yet;

/// What is wrong with the values `directive` names of the examples it
/// reads: a value missing, undeclared or of an example that sweeps
/// nothing, or a swept example given to a tool that runs one compilation.
/// Examples the book does not have are `crate::names::mistakes`'.
pub fn mistakes(directive: &Directive, catalog: &Catalog) -> Vec<String> {
    let (written, required, tool): (Vec<&str>, bool, Option<&str>) = match directive {
        Directive::Measured { id, .. } => (vec![id], true, None),
        Directive::Ratio { a, b, .. } => (vec![a, b], true, None),
        Directive::Ladder { ids, .. } => (ids.iter().map(String::as_str).collect(), false, None),
        Directive::Ceiling { id, .. } => (vec![id], false, None),
        Directive::Profile { id, .. } => (vec![id], false, Some("{{#profile}}")),
        Directive::Sanitizer { id, .. } => (vec![id], false, Some("{{#sanitizer}}")),
        Directive::Host { id, .. } => (vec![id], false, Some("{{#host}}")),
        Directive::Sass(target) => (vec![&target.id], false, Some("{{#sass}}")),
        Directive::SassCount { target, .. } => (vec![&target.id], false, Some("{{#sass_count}}")),
        _ => (Vec::new(), false, None),
    };
    let mut out = Vec::new();
    for w in written {
        let Some(example) = example(catalog, w) else {
            continue;
        };
        match (tool, &example.declaration.sweep) {
            (Some(tool), Some(sweep)) => out.push(not_taken_yet(&example.id, sweep, tool)),
            _ => out.extend(value_of(example, w, required).err().map(|e| e.to_string())),
        }
    }
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::swept_catalog as catalog;

    fn parse(text: &str) -> Directive {
        let words: Vec<&str> = text.split_whitespace().collect();
        crate::directives::parse(words[0], &words[1..]).unwrap()
    }

    // `ID@NAME=VALUE` names a declared value; each way of naming one
    // wrong, or none where one is needed, is a mistake that says what
    // to write.
    #[test]
    fn values_are_named_or_the_mistake_says_how() {
        let (_dir, catalog) = catalog();
        let s = example(&catalog, "s").unwrap();
        let four = value_of(s, "s@STRIDE=4", true).unwrap().unwrap();
        assert_eq!((four.name.as_str(), four.value), ("STRIDE", 4));
        let cases = [
            (
                "measured s time 2^20",
                "`s` sweeps STRIDE over 1, 2, 4: name one value, e.g. `s@STRIDE=1`",
            ),
            (
                "measured s@STRIDE=3 time 2^20",
                "`s` does not sweep STRIDE = 3: its values are 1, 2, 4",
            ),
            (
                "measured s@STRIDEE=4 time 2^20",
                "`s` sweeps STRIDE, not `STRIDEE`; did you mean `STRIDE`?",
            ),
            (
                "measured s@STRIDE time 2^20",
                "`@STRIDE` names no value: write `s@STRIDE=VALUE`, e.g. `s@STRIDE=1`",
            ),
            (
                "ratio s@STRIDE=1 s 2^20",
                "`s` sweeps STRIDE over 1, 2, 4: name one value, e.g. `s@STRIDE=1`",
            ),
            (
                "measured p@STRIDE=1 time 2^20",
                "`p` sweeps no parameter: drop `@STRIDE=1` (a value is named only for an example whose header has a [sweep] table)",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(mistakes(&parse(text), &catalog), [want], "{text}");
        }
        for fine in [
            "measured s@STRIDE=2 time 2^20",
            "ratio s@STRIDE=1 s@STRIDE=4 2^20",
            "ladder 2^20 s p",
            "measured p time 2^20",
        ] {
            assert!(mistakes(&parse(fine), &catalog).is_empty(), "{fine}");
        }
    }

    // The tools that run one compilation refuse a swept example at the
    // directive, saying so; a plain example is theirs as before.
    #[test]
    fn single_run_tools_refuse_swept_examples() {
        let (_dir, catalog) = catalog();
        for text in [
            "profile s dram 2^20",
            "sass s",
            "host s 2^20",
            "sanitizer s memcheck 2^20",
        ] {
            let found = mistakes(&parse(text), &catalog);
            assert_eq!(found.len(), 1, "{text}");
            assert!(
                found[0].contains("does not take swept examples yet"),
                "{text}: {found:?}"
            );
        }
        assert!(mistakes(&parse("profile p dram 2^20"), &catalog).is_empty());
    }
}
