//! `{{#profile ID stalls SIZE}}`: what a kernel's warps wait on, from the
//! warp stall reasons Nsight Compute's WarpStateStats counters give
//! (collected by `cuda-runner profile --stalls`): the leading reasons with
//! the cycles a warp spends stalled on each per issued instruction, out of
//! the cycles between two of its issued instructions.

use super::{ProfileError, current, relative_path, short_kernel, title};
use crate::results::Results;
use crate::shown::Shown;
use cuda_measured_core::dims::Dims;
use cuda_measured_core::profile::Stalls;

/// How many reasons a kernel's figure names.
const SHOWN: usize = 4;

/// Evaluates `{{#profile ID stalls SIZE}}`: for each kernel of the current
/// profile, its leading stall reasons.
pub fn figure(id: &str, size: Dims, results: &Results<'_>) -> Shown {
    let profile = match current(id, size, results) {
        Ok(p) => p,
        Err(reason) => return Shown::Unmeasured(reason.to_string()),
    };
    let kernels: Vec<(&str, Stalls)> = profile
        .kernels
        .iter()
        .filter_map(|k| k.stalls().map(|s| (k.name.as_str(), s)))
        .collect();
    if kernels.is_empty() {
        let file = results.stored().shown(&relative_path(id, size));
        return Shown::Unmeasured(
            ProfileError::NoStalls {
                file,
                id: id.to_string(),
            }
            .to_string(),
        );
    }
    let text = match kernels.as_slice() {
        [(_, stalls)] => shown(stalls),
        many => many
            .iter()
            .map(|(kernel, stalls)| format!("{}: {}", short_kernel(kernel), shown(stalls)))
            .collect::<Vec<_>>()
            .join("; "),
    };
    Shown::Figure {
        text,
        title: title(
            &profile,
            "warp stall reasons (average cycles a warp is stalled for each, per issued instruction)",
        ),
    }
}

/// `long scoreboard 12.4, barrier 3.1, wait 1.2, short scoreboard 0.8 of
/// 19.6 cycles between issues`.
pub fn shown(stalls: &Stalls) -> String {
    let reasons = stalls
        .reasons
        .iter()
        .take(SHOWN)
        .map(|s| format!("{} {:.1}", s.reason.replace('_', " "), s.cycles))
        .collect::<Vec<_>>()
        .join(", ");
    let reasons = if reasons.is_empty() {
        "no stall".to_string()
    } else {
        reasons
    };
    match stalls.interval {
        Some(cycles) => format!("{reasons} of {cycles:.1} cycles between issues"),
        None => format!("{reasons} cycles per issue"),
    }
}
