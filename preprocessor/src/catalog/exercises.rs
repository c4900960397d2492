//! The exercise stages of a book. Each `{{#exercise TRACK/STAGE}}` found
//! outside code is loaded (`cuda_measured_core::exercise`), and the
//! kernels its stage names (starter, solution, pitfall kernels) become
//! catalog entries at the directive's place, so that they are compiled,
//! measured, listed by `mdbook-cuda status` and profiled like any example.
//! A kernel a gate compares with (another stage's solution) that no page
//! shows is registered last, so that it is measured too.

use super::{Catalog, ChapterText};
use crate::config::Settings;
use crate::directive_syntax::occurrences;
use crate::scan::{ChapterScan, RunBlock, RunSpec};
use cuda_measured_core::example::Origin;
use cuda_measured_core::exercise::{self, Baseline, GateKind, KernelRef, Stage, StageError};
use cuda_measured_core::store::Store;
use std::ops::Range;

/// One `{{#exercise}}` of the book.
#[derive(Debug, Clone)]
pub struct ExerciseSlot {
    /// Index of its chapter.
    pub chapter: usize,
    /// Bytes of the directive in its chapter.
    pub range: Range<usize>,
    /// The stage and the entries of its kernels, or why it cannot be read
    /// (with file, line and fix).
    pub stage: Result<StageKernels, super::ResolveError>,
}

/// A loaded stage and where its kernels are in the catalog.
#[derive(Debug, Clone)]
pub struct StageKernels {
    /// The stage.
    pub stage: Stage,
    /// The starter's entry.
    pub starter: usize,
    /// The solution's entry.
    pub solution: usize,
    /// Each pitfall's kernel entry, when it names one.
    pub pitfalls: Vec<Option<usize>>,
}

impl Catalog {
    /// The stage whose directive starts at byte `start` of chapter `chapter`.
    pub fn exercise_at(&self, chapter: usize, start: usize) -> Option<&ExerciseSlot> {
        self.exercises
            .iter()
            .find(|slot| slot.chapter == chapter && slot.range.start == start)
    }
}

/// Loads the stages `chapter` shows and adds their kernels to `catalog`.
pub fn register(
    catalog: &mut Catalog,
    settings: &Settings,
    store: &Store,
    chapter_index: usize,
    chapter: &ChapterText,
    scan: &ChapterScan,
) {
    // `{{#exercise TRACK/STAGE}}`, as `crate::directives` reads it.
    for found in occurrences(&chapter.content, scan) {
        let ("exercise", [name]) = (found.name, found.args.as_slice()) else {
            continue;
        };
        let slot = catalog.exercises.len();
        let stage = exercise::load(&settings.root, &settings.kernels, name).map_err(|e| match e {
            StageError::NotFound(message) => super::ResolveError::NoStage {
                place: chapter.place_at(settings, found.range.start),
                message,
            },
            at @ StageError::At { .. } => super::ResolveError::Stage(at),
        });
        let stage = stage.and_then(|mut stage| {
            let mut add = |kernel: &KernelRef| {
                let block = RunBlock {
                    range: found.range.clone(),
                    fence_line: found.line,
                    body: String::new(),
                    body_line: found.line,
                    spec: Ok(RunSpec::File {
                        path: kernel.path.clone(),
                        anchor: None,
                        id: None,
                    }),
                    continuation: String::new(),
                };
                let place = Origin {
                    file: stage.file.clone(),
                    line: kernel.line,
                };
                let resolved = super::resolve_file(settings, store, &kernel.path, &place);
                catalog.push(chapter_index, block, place, resolved, Some(slot))
            };
            let starter = add(&stage.starter);
            let solution = add(&stage.solution);
            let pitfalls = stage
                .pitfalls
                .iter()
                .map(|p| p.kernel.as_ref().map(&mut add))
                .collect();
            // A size of several dimensions (`"4096x4096"`) reads against
            // the starter's problem; one of a problem outside the registry
            // (`elementwise`, declared in the header) has one dimension.
            let dims = catalog.entries[starter]
                .resolved
                .as_ref()
                .ok()
                .and_then(|r| cuda_measured_core::problem::lookup(&r.example.declaration.problem))
                .map(|p| p.dims());
            if let Some(dims) = dims {
                stage.resolve_size(dims).map_err(|e| {
                    super::ResolveError::Stage(StageError::At {
                        file: stage.file.clone(),
                        line: stage.size_line,
                        message: format!(
                            "the stage's size does not fit its starter's problem: {e}"
                        ),
                    })
                })?;
            }
            Ok(StageKernels {
                stage,
                starter,
                solution,
                pitfalls,
            })
        });
        catalog.exercises.push(ExerciseSlot {
            chapter: chapter_index,
            range: found.range.clone(),
            stage,
        });
    }
}

/// Adds the solutions that gates compare with and that no entry lists
/// yet, at the place of the gate's `over`.
pub fn register_baselines(catalog: &mut Catalog, settings: &Settings, store: &Store) {
    let mut wanted = Vec::new();
    for (slot, exercise) in catalog.exercises.iter().enumerate() {
        let Ok(kernels) = &exercise.stage else {
            continue;
        };
        for gate in &kernels.stage.gates {
            let over = match &gate.kind {
                GateKind::Speedup { over, .. } | GateKind::ProfileRatio { over, .. } => over,
                _ => continue,
            };
            if let Baseline::Stage { solution, .. } = over {
                let place = Origin {
                    file: kernels.stage.file.clone(),
                    line: solution.line,
                };
                wanted.push((
                    slot,
                    exercise.chapter,
                    exercise.range.clone(),
                    solution.clone(),
                    place,
                ));
            }
        }
    }
    for (slot, chapter, range, solution, place) in wanted {
        if catalog
            .entries
            .iter()
            .any(|e| e.shown_id() == solution.id())
        {
            continue;
        }
        let block = RunBlock {
            range,
            fence_line: place.line,
            body: String::new(),
            body_line: place.line,
            spec: Ok(RunSpec::File {
                path: solution.path.clone(),
                anchor: None,
                id: None,
            }),
            continuation: String::new(),
        };
        let resolved = super::resolve_file(settings, store, &solution.path, &place);
        catalog.push(chapter, block, place, resolved, Some(slot));
    }
}

#[cfg(test)]
mod tests;
