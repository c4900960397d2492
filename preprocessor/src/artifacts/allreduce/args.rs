//! The all-reduce directives' arguments: `{{#allreduce GPUS}}` (the whole
//! report of a run over GPUS GPUs) and `{{#allreduce_figure GPUS IMPL
//! FIELD SIZE}}` (one figure of it in prose).

use crate::directive_syntax::usage;
use cuda_measured_core::allreduce::implementations::Implementation;
use cuda_measured_core::allreduce::sizes;
use cuda_measured_core::suggest::message;

/// Which figure `{{#allreduce_figure}}` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllreduceField {
    /// Median time per all-reduce (hot, the slowest rank).
    Time,
    /// Algorithm bandwidth: bytes over the time.
    Algbw,
    /// Bus bandwidth: algbw × 2(k − 1)/k.
    Busbw,
}

impl AllreduceField {
    const NAMES: &'static str = "time, algbw or busbw";
    const WORDS: [&'static str; 3] = ["time", "algbw", "busbw"];

    fn from_word(word: &str) -> Option<Self> {
        Some(match word {
            "time" => AllreduceField::Time,
            "algbw" => AllreduceField::Algbw,
            "busbw" => AllreduceField::Busbw,
            _ => return None,
        })
    }
}

/// `{{#allreduce_figure}}`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figure {
    /// GPUs of the run.
    pub gpus: usize,
    /// `nccl`, `nccl-inplace`, `one-shot` or `two-shot`.
    pub implementation: String,
    /// Which figure.
    pub field: AllreduceField,
    /// The message, bytes.
    pub bytes: u64,
}

/// `{{#allreduce}}`'s form and what to say of it when misused.
const REPORT_FORM: (&str, &str) = (
    "allreduce GPUS",
    "the all-reduce report of a run over GPUS GPUs, read from results/allreduce/<model>-<GPUS>gpu.json, e.g. {{#allreduce 2}}",
);

/// `{{#allreduce_figure}}`'s form and what to say of it when misused.
const FIGURE_FORM: (&str, &str) = (
    "allreduce_figure GPUS IMPL FIELD SIZE",
    "IMPL is nccl, nccl-inplace, one-shot or two-shot, FIELD time, algbw or busbw, SIZE the message in bytes, e.g. {{#allreduce_figure 2 one-shot busbw 256KiB}}",
);

/// Why an `{{#allreduce}}` or `{{#allreduce_figure}}` cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// Not the form (`form`, `hint`).
    #[error("{}", usage(.0.0, .0.1))]
    Usage((&'static str, &'static str)),
    /// Not a whole number of GPUs, 1 or more.
    #[error(
        "`{0}` is not a number of GPUs: write 1, 2, 4 or 8, the GPUs of the run (`cuda-runner allreduce --gpus K`)"
    )]
    Gpus(String),
    /// Not an implementation of the runner.
    #[error("{}", message(
        &format!("`{}` is not an all-reduce of the runner", .0),
        .0,
        Implementation::ALL.map(Implementation::name),
        &format!("use {}", Implementation::ALL.map(Implementation::name).join(", ")),
    ))]
    Implementation(String),
    /// Not a figure of the report.
    #[error("{}", message(
        &format!("`{}` is not an all-reduce figure", .0),
        .0,
        AllreduceField::WORDS,
        &format!("use {}", AllreduceField::NAMES),
    ))]
    Field(String),
    /// Not a message size.
    #[error("`{0}` is not a message size: write bytes as 1000, 64KiB, 256MiB or 2^20")]
    Bytes(String),
}

/// `{{#allreduce GPUS}}`: the GPUs of the run.
pub fn parse_report(args: &[&str]) -> Result<usize, ArgsError> {
    match args {
        [gpus] => gpus_of(gpus),
        _ => Err(ArgsError::Usage(REPORT_FORM)),
    }
}

/// `{{#allreduce_figure GPUS IMPL FIELD SIZE}}`.
pub fn parse_figure(args: &[&str]) -> Result<Figure, ArgsError> {
    let [gpus, implementation, field, size] = args else {
        return Err(ArgsError::Usage(FIGURE_FORM));
    };
    let names = Implementation::ALL.map(Implementation::name);
    if !names.contains(implementation) {
        return Err(ArgsError::Implementation(implementation.to_string()));
    }
    let field =
        AllreduceField::from_word(field).ok_or_else(|| ArgsError::Field(field.to_string()))?;
    let bytes = sizes::parse_bytes(size).map_err(|_| ArgsError::Bytes(size.to_string()))?;
    Ok(Figure {
        gpus: gpus_of(gpus)?,
        implementation: implementation.to_string(),
        field,
        bytes,
    })
}

/// A GPU count: a whole number, 1 or more.
fn gpus_of(word: &str) -> Result<usize, ArgsError> {
    match word.parse::<usize>() {
        Ok(k) if k >= 1 => Ok(k),
        _ => Err(ArgsError::Gpus(word.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The forms parse to the report and the figure they name.
    #[test]
    fn well_formed() {
        assert_eq!(parse_report(&["2"]), Ok(2));
        assert_eq!(
            parse_figure(&["2", "one-shot", "busbw", "256KiB"]),
            Ok(Figure {
                gpus: 2,
                implementation: "one-shot".into(),
                field: AllreduceField::Busbw,
                bytes: 256 << 10,
            })
        );
        assert_eq!(
            parse_figure(&["8", "nccl", "time", "2^20"]).map(|f| f.bytes),
            Ok(1 << 20)
        );
    }

    // Mistakes say what was meant or what to write.
    #[test]
    fn mistakes_name_the_fix() {
        let cases = [
            (
                parse_report(&[]).unwrap_err(),
                "write `{{#allreduce GPUS}}`",
            ),
            (
                parse_report(&["2", "4"]).unwrap_err(),
                "write `{{#allreduce GPUS}}`",
            ),
            (
                parse_report(&["0"]).unwrap_err(),
                "`0` is not a number of GPUs",
            ),
            (
                parse_report(&["two"]).unwrap_err(),
                "`two` is not a number of GPUs",
            ),
            (
                parse_figure(&["2", "one-shot", "busbw"]).unwrap_err(),
                "write `{{#allreduce_figure GPUS IMPL FIELD SIZE}}`",
            ),
            (
                parse_figure(&["2", "one_shot", "busbw", "1KiB"]).unwrap_err(),
                "`one_shot` is not an all-reduce of the runner; did you mean `one-shot`?",
            ),
            (
                parse_figure(&["2", "ring", "busbw", "1KiB"]).unwrap_err(),
                "`ring` is not an all-reduce of the runner: use nccl, nccl-inplace, one-shot, two-shot",
            ),
            (
                parse_figure(&["2", "nccl", "busbws", "1KiB"]).unwrap_err(),
                "`busbws` is not an all-reduce figure; did you mean `busbw`?",
            ),
            (
                parse_figure(&["2", "nccl", "time", "1KB"]).unwrap_err(),
                "`1KB` is not a message size",
            ),
        ];
        for (got, want) in cases {
            let err = got.to_string();
            assert!(err.contains(want), "{err}");
        }
    }
}
