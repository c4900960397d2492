//! The all-reduce directives' arguments: `{{#allreduce GPUS}}` (the whole
//! report of a run over GPUS GPUs) and `{{#allreduce_figure GPUS IMPL
//! FIELD SIZE}}` (one figure of it in prose).

use super::{Directive, usage};
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

    fn parse(word: &str) -> Option<Self> {
        Some(match word {
            "time" => AllreduceField::Time,
            "algbw" => AllreduceField::Algbw,
            "busbw" => AllreduceField::Busbw,
            _ => return None,
        })
    }
}

/// `{{#allreduce GPUS}}`.
pub fn report(args: &[&str]) -> Result<Directive, String> {
    match args {
        [gpus] => Ok(Directive::Allreduce {
            gpus: gpus_of(gpus)?,
        }),
        _ => Err(usage(
            "allreduce GPUS",
            "the all-reduce report of a run over GPUS GPUs, read from results/allreduce/<model>-<GPUS>gpu.json, e.g. {{#allreduce 2}}",
        )),
    }
}

/// `{{#allreduce_figure GPUS IMPL FIELD SIZE}}`.
pub fn figure(args: &[&str]) -> Result<Directive, String> {
    let [gpus, implementation, field, size] = args else {
        return Err(usage(
            "allreduce_figure GPUS IMPL FIELD SIZE",
            "IMPL is nccl, nccl-inplace, one-shot or two-shot, FIELD time, algbw or busbw, SIZE the message in bytes, e.g. {{#allreduce_figure 2 one-shot busbw 256KiB}}",
        ));
    };
    let names = Implementation::ALL.map(Implementation::name);
    if !names.contains(implementation) {
        return Err(message(
            &format!("`{implementation}` is not an all-reduce of the runner"),
            implementation,
            names,
            &format!("use {}", names.join(", ")),
        ));
    }
    let field = AllreduceField::parse(field).ok_or_else(|| {
        message(
            &format!("`{field}` is not an all-reduce figure"),
            field,
            AllreduceField::WORDS,
            &format!("use {}", AllreduceField::NAMES),
        )
    })?;
    let bytes = sizes::parse_bytes(size).map_err(|_| {
        format!("`{size}` is not a message size: write bytes as 1000, 64KiB, 256MiB or 2^20")
    })?;
    Ok(Directive::AllreduceFigure {
        gpus: gpus_of(gpus)?,
        implementation: implementation.to_string(),
        field,
        bytes,
    })
}

/// A GPU count: a whole number, 1 or more.
fn gpus_of(word: &str) -> Result<usize, String> {
    match word.parse::<usize>() {
        Ok(k) if k >= 1 => Ok(k),
        _ => Err(format!(
            "`{word}` is not a number of GPUs: write 1, 2, 4 or 8, the GPUs of the run (`cuda-runner allreduce --gpus K`)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The forms parse to the report and the figure they name.
    #[test]
    fn well_formed() {
        assert_eq!(report(&["2"]), Ok(Directive::Allreduce { gpus: 2 }));
        assert_eq!(
            figure(&["2", "one-shot", "busbw", "256KiB"]),
            Ok(Directive::AllreduceFigure {
                gpus: 2,
                implementation: "one-shot".into(),
                field: AllreduceField::Busbw,
                bytes: 256 << 10,
            })
        );
        assert_eq!(
            figure(&["8", "nccl", "time", "2^20"]).map(|d| match d {
                Directive::AllreduceFigure { bytes, .. } => bytes,
                _ => 0,
            }),
            Ok(1 << 20)
        );
    }

    // Mistakes say what was meant or what to write.
    #[test]
    fn mistakes_name_the_fix() {
        let cases = [
            (report(&[]), "write `{{#allreduce GPUS}}`"),
            (report(&["2", "4"]), "write `{{#allreduce GPUS}}`"),
            (report(&["0"]), "`0` is not a number of GPUs"),
            (report(&["two"]), "`two` is not a number of GPUs"),
            (
                figure(&["2", "one-shot", "busbw"]),
                "write `{{#allreduce_figure GPUS IMPL FIELD SIZE}}`",
            ),
            (
                figure(&["2", "one_shot", "busbw", "1KiB"]),
                "`one_shot` is not an all-reduce of the runner; did you mean `one-shot`?",
            ),
            (
                figure(&["2", "ring", "busbw", "1KiB"]),
                "`ring` is not an all-reduce of the runner: use nccl, nccl-inplace, one-shot, two-shot",
            ),
            (
                figure(&["2", "nccl", "busbws", "1KiB"]),
                "`busbws` is not an all-reduce figure; did you mean `busbw`?",
            ),
            (
                figure(&["2", "nccl", "time", "1KB"]),
                "`1KB` is not a message size",
            ),
        ];
        for (got, want) in cases {
            let err = got.unwrap_err();
            assert!(err.contains(want), "{err}");
        }
    }
}
