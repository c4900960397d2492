//! An example as a directive names it: its id and, for an example that
//! sweeps a parameter (its header's `[sweep]` table), one value of it:
//! `ID@STRIDE=4`. `{{#measured}}` and `{{#ratio}}` must name a value of a
//! swept example; `{{#ladder SIZE ID}}` of a swept example without one
//! charts every value; the tools that run one compilation
//! (`{{#profile}}`, `{{#sass}}`, `{{#sanitizer}}`, `{{#host}}`) do not
//! take swept examples yet.

use crate::catalog::Catalog;
use cuda_measured_core::example::Example;
use cuda_measured_core::suggest;
use cuda_measured_core::sweep::SweepValue;

/// The example id of an example as a directive writes it: the id itself
/// (`reductions/tree`), or the id before the value of a sweep it names
/// (`strided_copy` of `strided_copy@STRIDE=4`).
pub fn id_of(written: &str) -> &str {
    written.split_once('@').map_or(written, |(id, _)| id)
}

/// Why a directive's `ID@NAME=VALUE` names no value of the example's
/// sweep, with what to write.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// A value is named of an example that sweeps nothing.
    #[error(
        "`{id}` sweeps no parameter: drop `@{text}` (a value is named only for an example whose header has a [sweep] table)"
    )]
    NoSweep {
        /// The example's id.
        id: String,
        /// The text after `@`.
        text: String,
    },
    /// A swept example is named without a value where one is needed.
    #[error("`{id}` sweeps {name} over {listed}: name one value, e.g. `{id}@{name}={first}`")]
    Required {
        /// The example's id.
        id: String,
        /// The swept parameter.
        name: String,
        /// Its values, listed.
        listed: String,
        /// Its first value.
        first: u64,
    },
    /// The text after `@` is not `NAME=VALUE`.
    #[error("`@{text}` names no value: write `{id}@{name}=VALUE`, e.g. `{id}@{name}={first}`")]
    NoValue {
        /// The text after `@`.
        text: String,
        /// The example's id.
        id: String,
        /// The swept parameter.
        name: String,
        /// Its first value.
        first: u64,
    },
    /// The name is not the swept parameter's (with the one meant).
    #[error("{0}")]
    OtherName(String),
    /// The value is not one the example sweeps.
    #[error("`{id}` does not sweep {name} = {value}: its values are {listed}")]
    NotSwept {
        /// The example's id.
        id: String,
        /// The swept parameter.
        name: String,
        /// The value as written.
        value: String,
        /// Its values, listed.
        listed: String,
    },
}

/// The `NAME=VALUE` after `@`, when written.
fn value_text(written: &str) -> Option<&str> {
    written.split_once('@').map(|(_, v)| v)
}

/// The value of `example`'s sweep that `written` (the directive's word
/// for it) names: `None` for an example that sweeps nothing, or one that
/// sweeps and is named without a value where `required` is false (a
/// ladder charts every value). The error says what to write.
pub fn value_of(
    example: &Example,
    written: &str,
    required: bool,
) -> Result<Option<SweepValue>, ValueError> {
    let id = id_of(written);
    let sweep = example.declaration.sweep.as_ref();
    let text = value_text(written);
    let (Some(sweep), Some(text)) = (sweep, text) else {
        return match (sweep, text) {
            (None, Some(text)) => Err(ValueError::NoSweep {
                id: id.to_string(),
                text: text.to_string(),
            }),
            (Some(sweep), None) if required => Err(ValueError::Required {
                id: id.to_string(),
                name: sweep.name().to_string(),
                listed: sweep.listed(),
                first: sweep.values()[0].value,
            }),
            _ => Ok(None),
        };
    };
    let name = sweep.name();
    let Some((written_name, written_value)) = text.split_once('=') else {
        return Err(ValueError::NoValue {
            text: text.to_string(),
            id: id.to_string(),
            name: name.to_string(),
            first: sweep.values()[0].value,
        });
    };
    if written_name != name {
        return Err(ValueError::OtherName(suggest::message(
            &format!("`{id}` sweeps {name}, not `{written_name}`"),
            written_name,
            [name],
            &format!("write `{id}@{name}={written_value}`"),
        )));
    }
    let values = sweep.values();
    written_value
        .parse::<u64>()
        .ok()
        .and_then(|v| values.iter().find(|s| s.value == v).cloned())
        .map(Some)
        .ok_or_else(|| ValueError::NotSwept {
            id: id.to_string(),
            name: name.to_string(),
            value: written_value.to_string(),
            listed: sweep.listed(),
        })
}

/// The example `written` names, when the book has it and it resolved
/// (why it does not is said where ids are looked up: `crate::names`).
pub(crate) fn example<'a>(catalog: &'a Catalog, written: &str) -> Option<&'a Example> {
    catalog
        .by_id(id_of(written))
        .and_then(|i| catalog.entries[i].example())
}

/// The examples of a ladder, one bar each: as written, except that a
/// swept example named without a value is one bar per value, in declared
/// order (`ID@STRIDE=1`, `ID@STRIDE=2`, ...).
pub fn ladder_bars(ids: &[String], catalog: &Catalog) -> Vec<String> {
    ids.iter()
        .flat_map(|written| {
            let sweep = example(catalog, written)
                .and_then(|e| e.declaration.sweep.as_ref())
                .filter(|_| value_text(written).is_none());
            match sweep {
                Some(sweep) => sweep
                    .values()
                    .iter()
                    .map(|v| format!("{written}{}", v.suffix()))
                    .collect(),
                None => vec![written.clone()],
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::swept_catalog as catalog;

    // A ladder of a swept example without a value is one bar per value in
    // declared order; a named value, or a plain example, is one bar.
    #[test]
    fn a_ladder_of_a_swept_example_has_a_bar_per_value() {
        let (_dir, catalog) = catalog();
        let ids: Vec<String> = ["s", "p", "s@STRIDE=2"].map(String::from).to_vec();
        assert_eq!(
            ladder_bars(&ids, &catalog),
            ["s@STRIDE=1", "s@STRIDE=2", "s@STRIDE=4", "p", "s@STRIDE=2"]
        );
    }
}
