//! `{{#profile ID METRIC SIZE}}`: one Nsight Compute counter of an
//! example's kernels in prose, read from the profile a GPU session stores
//! in `results/profile/<gpu>/<id>/<n>.json` (`bench/gpu-session.sh OUTDIR
//! profile`) for the book's target GPU. Exercise gates read the same
//! counters ([`values`]).
//!
//! A profile is current while its key is the example's key and it is of
//! the example, GPU and size asked for; one not collected yet, or of
//! earlier code, waits, in an author's build, for the GPU machine.

use super::{Kind, StoredFile};
use crate::figures;
use crate::results::Results;
use crate::shown::Shown;
use crate::stored::{REMEASURE, StoredError, StoredReports};
use cuda_measured_core::dims::Dims;
use cuda_measured_core::profile::{self, Metric, Profile};
use cuda_measured_core::suggest::message;

mod error;
mod stalls;
pub use error::{ArgsError, ProfileError};

/// `{{#profile}}`'s METRIC: a short name (`dram`) as its full Nsight
/// Compute name, or a full name as written.
pub fn parse_metric(word: &str) -> Result<String, ArgsError> {
    if word == profile::STALLS {
        return Ok(word.to_string());
    }
    profile::metric_named(word).ok_or_else(|| ArgsError::NotAMetric {
        word: word.to_string(),
    })
}

/// How to write `{{#profile}}`, for a directive misused.
pub fn usage() -> String {
    crate::directive_syntax::usage(
        "profile ID METRIC SIZE",
        "METRIC is dram, sm, memory, occupancy, instructions, bank_conflicts, registers, time, ld_sectors, st_sectors, ld_sectors_per_request, st_sectors_per_request, stalls (the leading warp stall reasons), stall_<reason>, issue_interval or a full Nsight Compute metric name, e.g. {{#profile reductions/stride dram 2^28}}",
    )
}

/// The short names of the metrics, for messages.
fn metric_names() -> Vec<&'static str> {
    profile::METRICS
        .iter()
        .map(|(short, _)| *short)
        .chain([profile::STALLS, "issue_interval"])
        .collect()
}

/// `` `dramm` is not a profiler metric; did you mean `dram`? ``.
fn not_a_metric(word: &str) -> String {
    let names = metric_names();
    message(
        &format!("`{word}` is not a profiler metric"),
        word,
        names.iter().copied(),
        &format!(
            "use {} or a full Nsight Compute metric name",
            names.join(", ")
        ),
    )
}

/// The file of the profile of `id` at `n` on the book's target GPU, under
/// the store.
pub fn relative_path(id: &str, n: Dims) -> String {
    profile::relative_path(id, n, cuda_measured_core::limits::KnownGpu::target().name)
}

/// The Nsight Compute profile of example `id` at size `n` on the book's
/// target GPU, or why there is none.
pub fn read(stored: &StoredReports, id: &str, n: Dims) -> Result<Profile, StoredError> {
    stored.load(&relative_path(id, n), "not measured", REMEASURE)
}

/// Evaluates `{{#profile}}`: `metric` of the example's kernels in its
/// stored profile, when the profile is current and of `size`.
pub fn figure(id: &str, metric: &str, size: Dims, results: &Results<'_>) -> Shown {
    if metric == profile::STALLS {
        return stalls::figure(id, size, results);
    }
    let (profile, values) = match values(id, metric, size, results) {
        Ok(found) => found,
        Err(reason) => return Shown::Unmeasured(reason.to_string()),
    };
    let shown = |m: &Metric| profile::shown(&unit_for_pages(metric, m));
    let text = if let [(_, m)] = values.as_slice() {
        shown(m)
    } else {
        values
            .iter()
            .map(|(kernel, m)| format!("{} {}", short_kernel(kernel), shown(m)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Shown::Figure {
        text,
        title: title(&profile, metric),
    }
}

/// `m` with the unit a page shows: a warp stall reason's counter is
/// cycles stalled per issued instruction, whose unit Nsight Compute gives
/// as `inst`, and is shown as a bare number for the sentence to name
/// (`4.98 inst` would read as a count of instructions).
fn unit_for_pages(metric: &str, m: &Metric) -> Metric {
    if profile::STALL_REASONS
        .iter()
        .any(|r| profile::stall_metric(r) == metric)
    {
        Metric {
            unit: String::new(),
            value: m.value,
        }
    } else {
        m.clone()
    }
}

/// `metric` of every kernel of the current stored profile of `id` at
/// `size`, with the profile, or why there is none (not collected, of
/// earlier code, of another example, GPU or size, or without the counter).
pub fn values(
    id: &str,
    metric: &str,
    size: Dims,
    results: &Results<'_>,
) -> Result<(Profile, Vec<(String, Metric)>), ProfileError> {
    let profile = current(id, size, results)?;
    let file = results.stored().shown(&relative_path(id, size));
    let values: Vec<(String, Metric)> = profile
        .values(metric)
        .into_iter()
        .map(|(kernel, m)| (kernel.to_string(), m.clone()))
        .collect();
    if values.is_empty() {
        return Err(ProfileError::NoMetric {
            file,
            metric: metric.to_string(),
        });
    }
    Ok((profile, values))
}

/// The current stored profile of `id` at `size`, or why there is none
/// (not collected, of earlier code, of another example, GPU or size).
pub fn current(id: &str, size: Dims, results: &Results<'_>) -> Result<Profile, ProfileError> {
    let example = crate::names::example(results.catalog(), id).map_err(ProfileError::Example)?;
    if let Some(undeclared) = crate::names::undeclared_size(example, size) {
        return Err(ProfileError::Example(
            crate::names::LookupError::Undeclared(undeclared),
        ));
    }
    let Some((key, _)) = results.current(id) else {
        return Err(ProfileError::Example(results.unknown_id(id)));
    };
    let target = cuda_measured_core::limits::KnownGpu::target().name;
    let file = results.stored().shown(&relative_path(id, size));
    let profile =
        read(results.stored(), id, size).map_err(|reason| ProfileError::NotCollected {
            id: id.to_string(),
            reason,
        })?;
    if profile.example != id || profile.gpu != target {
        return Err(ProfileError::Other {
            file,
            example: profile.example,
            gpu: profile.gpu,
            id: id.to_string(),
            target,
        });
    }
    if profile.key != key {
        return Err(ProfileError::Earlier {
            file,
            id: id.to_string(),
        });
    }
    if profile.size() != size {
        return Err(ProfileError::Size {
            id: id.to_string(),
            profiled: profile.size(),
            size,
        });
    }
    Ok(profile)
}

/// Whether the profile of `id` at `size` waits only for the GPU machine's
/// profiling run: none collected yet, or one of earlier code, for an
/// example of this book at a size it declares; or, for `metric` a warp
/// stall counter (or `stalls`), a current profile collected without
/// `--stalls`.
pub fn awaits(id: &str, metric: &str, size: Dims, results: &Results<'_>) -> bool {
    let wants_stalls =
        metric == profile::STALLS || profile::stall_metrics().iter().any(|m| m == metric);
    if wants_stalls
        && current(id, size, results).is_ok_and(|p| p.kernels.iter().all(|k| k.stalls().is_none()))
    {
        return true;
    }
    awaits_collection(id, size, results)
}

/// Whether the profile of `id` at `size` waits for the GPU machine's
/// profiling run: none collected yet, or one of earlier code.
fn awaits_collection(id: &str, size: Dims, results: &Results<'_>) -> bool {
    let declared = crate::names::example(results.catalog(), id)
        .is_ok_and(|e| crate::names::undeclared_size(e, size).is_none());
    if !declared {
        return false;
    }
    match read(results.stored(), id, size) {
        Ok(p) => results.current(id).is_some_and(|(key, _)| key != p.key),
        Err(_) => results.current(id).is_some(),
    }
}

/// Where a profile figure comes from, for its tooltip.
pub fn title(profile: &Profile, metric: &str) -> String {
    format!(
        "{metric} of {} at {}, Nsight Compute ({}, clocks not locked) on {}, {}",
        profile.example,
        profile.size().words(),
        profile.tool,
        profile.gpu,
        figures::date(&profile.measured_at)
    )
}

/// The file `{{#profile}}` reads, for the status page: made when and by
/// which Nsight Compute.
pub fn stored_file(id: &str, size: Dims, stored: &StoredReports) -> StoredFile {
    StoredFile {
        kind: Kind::Profile,
        rel: relative_path(id, size),
        made: read(stored, id, size).ok().map(|p| (p.measured_at, p.tool)),
    }
}

/// A kernel's name without its parameter list: `reduce_fast` for
/// `reduce_fast(const float *, float *, unsigned int)`.
pub(crate) fn short_kernel(name: &str) -> &str {
    name.split('(').next().unwrap_or(name).trim()
}

#[cfg(test)]
mod tests;
