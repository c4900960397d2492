//! `{{#sass}}` and `{{#sass_count}}`: what the compiler made of a kernel,
//! read from the listing `scripts/sass` stores in `results/sass/<id>.json`
//! (no GPU involved), with the instructions compiled from an anchor's
//! lines singled out and counted by `cuda_measured_core::sass_counts`.
//!
//! A listing is current while its key is the example's key and it records
//! each instruction's file (so that lines of an included `.cuh` are never
//! counted as the anchor's). A missing or
//! stale one is a problem for strict builds and waits, in an author's
//! build, for `scripts/sass`; an id, kernel or anchor the book does not
//! have is a mistake in the directive, reported at its line with the word
//! meant.

use super::{Kind, StoredFile};
use crate::figures;
use crate::results::Results;
use crate::shown::Shown;
use crate::stored::{StoredError, StoredReports};
use cuda_measured_core::sass::{self, Kernel, Listing};
use cuda_measured_core::sass_counts::{self, Counts, LineRanges, Reading, Region};
use cuda_measured_core::suggest;

mod args;
mod render;
pub use args::{ArgsError, SassCount, SassTarget, parse, parse_count};
pub use render::{html, markdown};

/// How to make a SASS listing again.
pub const RELIST: &str = "run scripts/sass (no GPU needed) and commit results/sass/";

/// The SASS listing of example `id`, or why there is none.
pub fn read(stored: &StoredReports, id: &str) -> Result<Listing, StoredError> {
    stored.load(&sass::relative_path(id), "not measured", RELIST)
}

/// The file a `{{#sass}}` or `{{#sass_count}}` reads, for the status
/// page: made when and by which disassembler.
pub fn stored_file(id: &str, stored: &StoredReports) -> StoredFile {
    StoredFile {
        kind: Kind::Sass,
        rel: sass::relative_path(id),
        made: read(stored, id).ok().map(|l| (l.made_at, l.tool)),
    }
}

/// One kernel's listing as a `{{#sass}}` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct SassView {
    /// The example id.
    pub id: String,
    /// The listing's file as messages show it (`results/sass/r/k.json`).
    pub file: String,
    /// How the listing was made: `sm_90, NVRTC 13.0, nvdisasm 13.5.37,
    /// 2026-12-01`.
    pub made: String,
    /// The example's own file (`kernels/r/k.cu`), whose lines the anchor
    /// and the line column are of.
    pub source_file: String,
    /// The kernel shown.
    pub kernel: Kernel,
    /// The anchor asked for and the source lines it spans.
    pub region: Option<(String, LineRanges)>,
    /// Why the listing no longer describes the code, or `None` when current.
    pub stale: Option<String>,
}

impl SassView {
    /// The kernel's instructions with their marks and counts.
    pub fn reading(&self) -> Reading<'_> {
        sass_counts::read(
            &self.kernel,
            self.region.as_ref().map(|(_, ranges)| Region {
                file: &self.source_file,
                ranges,
            }),
        )
    }

    /// The summary after "What the compiler made: `kernel` — ": registers,
    /// stack, shared memory and instructions.
    pub fn resources(&self) -> String {
        let k = &self.kernel;
        let counts = self.reading().kernel;
        let mut parts = vec![plural(k.registers as usize, "register")];
        parts.push(if k.stack == 0 && k.local == 0 {
            "no stack (nothing spilled)".to_string()
        } else {
            format!("{} B of stack (spills and local arrays)", k.stack)
        });
        if k.local > 0 {
            parts.push(format!("{} B of local memory", k.local));
        }
        parts.push(if k.shared == 0 {
            "no static shared memory".to_string()
        } else {
            format!("{} B of static shared memory", k.shared)
        });
        parts.push(format!(
            "{} ({} predicated)",
            plural(counts.instructions, "instruction"),
            counts.predicated
        ));
        parts.join(", ")
    }

    /// The count line under the summary: of the region when an anchor is
    /// given, else of the whole kernel.
    pub fn count_line(&self) -> String {
        let reading = self.reading();
        match (&self.region, reading.region) {
            (Some((anchor, ranges)), Some(c)) => format!(
                "Highlighted, the {} compiled from {} (anchor `{anchor}`): {}.",
                plural(c.instructions, "instruction"),
                lines_text(ranges),
                breakdown(&c)
            ),
            _ => format!(
                "{}: {}.",
                plural(reading.kernel.instructions, "instruction"),
                breakdown(&reading.kernel)
            ),
        }
    }

    /// The notes under the listing: where it comes from, what was left
    /// out, and what the shared-memory figure counts.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = vec![format!(
            "SASS of `{}` from {} ({}).",
            self.kernel.name, self.made, self.file
        )];
        let padding = self.reading().padding;
        if padding > 0 {
            notes.push(format!(
                "Not shown: the {} of padding that end every kernel (a branch to itself, then NOPs to an alignment), never executed.",
                plural(padding, "instruction")
            ));
        }
        if self.kernel.shared > 0 {
            notes.push("Static shared memory as `cuobjdump -res-usage` reports it: on sm_90 it includes the 1 KiB the system reserves in each block that uses shared memory; dynamic shared memory (`extern __shared__`) is set at launch and is not in it.".to_string());
        }
        notes
    }
}

/// What the marks of a listing mean, for its legend.
pub const LEGEND: [(&str, &str); 3] = [
    (
        "pred",
        "runs under a predicate (@P0, @!P1) instead of being branched around",
    ),
    ("branch", "a branch (BRA), taken or conditional"),
    (
        "div",
        "part of an integer division or modulo by a value the compiler cannot see: the divisor converted to float (I2F.U32.RP), its reciprocal (MUFU.RCP), the quotient estimate (F2I, IMAD.HI.U32) and two corrections",
    ),
];

/// `9 predicated, 2 branches, 17 in an integer division or modulo sequence`.
fn breakdown(c: &Counts) -> String {
    format!(
        "{} predicated, {}, {} in an integer division or modulo sequence",
        c.predicated,
        plural(c.branches, "branch"),
        c.division
    )
}

/// `1 register`, `10 registers`, `2 branches`.
fn plural(n: usize, word: &str) -> String {
    match (n, word.ends_with("ch")) {
        (1, _) => format!("1 {word}"),
        (_, true) => format!("{n} {word}es"),
        _ => format!("{n} {word}s"),
    }
}

/// `line 30`, `lines 30–35`, `lines 30–35 and 40–41`.
pub fn lines_text(ranges: &[(u32, u32)]) -> String {
    let parts: Vec<String> = ranges
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    let single = matches!(ranges, [(a, b)] if a == b);
    format!(
        "{} {}",
        if single { "line" } else { "lines" },
        parts.join(" and ")
    )
}

/// Evaluates `{{#sass}}`.
pub fn evaluate(target: &SassTarget, results: &Results<'_>) -> Result<SassView, Shown> {
    view(target, results)
}

/// Evaluates `{{#sass_count}}`: a current listing's count, else why not.
pub fn count(target: &SassTarget, what: SassCount, results: &Results<'_>) -> Shown {
    let view = match view(target, results) {
        Ok(view) => view,
        Err(value) => return value,
    };
    if let Some(stale) = view.stale {
        return Shown::Unmeasured(stale);
    }
    let reading = view.reading();
    let c = reading.region.unwrap_or(reading.kernel);
    let (n, what_text) = match what {
        SassCount::Instructions => (c.instructions, "instructions"),
        SassCount::Predicated => (c.predicated, "predicated instructions (branches apart)"),
        SassCount::Branches => (c.branches, "branches"),
        SassCount::Division => (
            c.division,
            "instructions of integer division or modulo sequences",
        ),
        SassCount::Registers => (view.kernel.registers as usize, "registers per thread"),
        SassCount::Stack => (
            view.kernel.stack as usize,
            "bytes of stack frame (local memory) per thread",
        ),
    };
    let of = match &view.region {
        Some((anchor, ranges)) => format!(
            "compiled from {} (anchor {anchor}) of {}",
            lines_text(ranges),
            view.kernel.name
        ),
        None => format!("of {}", view.kernel.name),
    };
    Shown::Figure {
        text: n.to_string(),
        title: format!("{what_text} {of}, {} ({})", view.made, view.file),
    }
}

/// Whether a `{{#sass}}` or `{{#sass_count}}` waits only for `scripts/sass`:
/// its example is one of the book's and the listing is missing, unreadable
/// or made for earlier code.
pub fn awaits_listing(target: &SassTarget, results: &Results<'_>) -> bool {
    let Some((_, key)) = results.example(&target.id) else {
        return false;
    };
    match read(results.stored(), &target.id) {
        Ok(listing) => listing.key != key || !listing.has_files(),
        Err(_) => true,
    }
}

/// The listing's kernel and region asked for, or the value to show
/// instead: a mistake (unknown id, anchor or kernel) or why the listing
/// cannot be shown.
fn view(target: &SassTarget, results: &Results<'_>) -> Result<SassView, Shown> {
    let id = &target.id;
    let Some((example, key)) = results.example(id) else {
        return Err(Shown::Mistake(results.unknown_id(id).to_string()));
    };
    let region = match &target.anchor {
        None => None,
        Some(anchor) => {
            let file = &example.origin.file;
            let ranges = sass_counts::anchor_ranges(&example.source, file, anchor);
            if ranges.is_empty() {
                let names = sass_counts::anchor_names(&example.source, file);
                let known = if names.is_empty() {
                    format!(
                        "{file} marks none: add `// ANCHOR: {anchor}` and `// ANCHOR_END: {anchor}` around the lines"
                    )
                } else {
                    format!("its anchors are {}", names.join(", "))
                };
                return Err(Shown::Mistake(suggest::message(
                    &format!("`{id}` has no anchor `{anchor}` in {file}"),
                    anchor,
                    names.iter().copied(),
                    &known,
                )));
            }
            Some((anchor.clone(), ranges))
        }
    };
    let file = results.stored().shown(&sass::relative_path(id));
    let listing = read(results.stored(), id).map_err(|reason| {
        let inline = !example.origin.file.ends_with(".cu");
        Shown::Unmeasured(if inline {
            format!("{reason} (scripts/sass lists the examples of kernel files only: move `{id}` into a file under kernels/)")
        } else {
            reason.to_string()
        })
    })?;
    if listing.example != *id {
        return Err(Shown::Unmeasured(format!(
            "{file} holds the listing of `{}`, not of `{id}`; {RELIST}",
            listing.example
        )));
    }
    let stale = if listing.key != key {
        Some(format!(
            "{file} was made for an earlier version of `{id}`; {RELIST}"
        ))
    } else if !listing.has_files() {
        Some(format!(
            "{file} was made by an earlier scripts/sass, which did not record each instruction's file, so lines of an included file cannot be told from the example's own; {RELIST}"
        ))
    } else {
        None
    };
    let kernel = pick_kernel(&listing, target, &file, stale.is_some())?;
    Ok(SassView {
        id: id.clone(),
        file,
        made: made_text(&listing),
        source_file: example.origin.file.clone(),
        kernel,
        region,
        stale,
    })
}

/// The kernel asked for, or the example's only kernel.
fn pick_kernel(
    listing: &Listing,
    target: &SassTarget,
    file: &str,
    stale: bool,
) -> Result<Kernel, Shown> {
    let id = &target.id;
    let names: Vec<&str> = listing.kernels.iter().map(|k| k.name.as_str()).collect();
    match &target.kernel {
        Some(name) => match listing.kernels.iter().find(|k| k.name == *name) {
            Some(k) => Ok(k.clone()),
            // A kernel added since the listing was made waits for scripts/sass.
            None if stale => Err(Shown::Unmeasured(format!(
                "{file} was made for an earlier version of `{id}` and has no kernel `{name}`; {RELIST}"
            ))),
            None => Err(Shown::Mistake(suggest::message(
                &format!("`{id}` has no kernel `{name}`"),
                name,
                names.iter().copied(),
                &format!("its kernels are {}", names.join(", ")),
            ))),
        },
        None => match listing.kernels.as_slice() {
            [only] => Ok(only.clone()),
            _ => Err(Shown::Mistake(format!(
                "`{id}` has {} kernels ({}): name one, as in {{{{#sass {id} {}}}}}",
                names.len(),
                names.join(", "),
                names.first().copied().unwrap_or("KERNEL")
            ))),
        },
    }
}

/// `sm_90, NVRTC 13.0, nvdisasm 13.5.37, 2026-12-01`.
fn made_text(listing: &Listing) -> String {
    format!(
        "{}, NVRTC {}, {}, {}",
        listing.arch,
        listing.nvrtc,
        listing.tool,
        figures::date(&listing.made_at)
    )
}

#[cfg(test)]
mod tests;
