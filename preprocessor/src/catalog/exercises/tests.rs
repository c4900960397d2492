use super::*;
use crate::test_support::{KERNEL, chapter, settings_in};

const STAGE1: &str = "title = \"One\"\nsize = \"2^28\"\nstarter = \"a.cu\"\nsolution = \"b.cu\"\ngoal = \"g\"\nlesson = \"l\"\n";

const STAGE2: &str = "title = \"Two\"\nsize = \"2^28\"\nstarter = \"b.cu\"\nsolution = \"c.cu\"\ngoal = \"g\"\nlesson = \"l\"\n\n[[pitfall]]\ntitle = \"p\"\ntext = \"t\"\nkernel = \"d.cu\"\n\n[[gate]]\nkind = \"speedup\"\nover = \"stage1\"\nmin = 2\n";

/// A book with a track `t` of two stages and their four kernels.
fn book() -> (tempfile::TempDir, Settings) {
    settings_in(&[
        ("kernels/exercise/t/a.cu", KERNEL),
        ("kernels/exercise/t/b.cu", KERNEL),
        ("kernels/exercise/t/c.cu", KERNEL),
        ("kernels/exercise/t/d.cu", KERNEL),
        ("kernels/exercise/t/stage1.toml", STAGE1),
        ("kernels/exercise/t/stage2.toml", STAGE2),
    ])
}

fn places(catalog: &Catalog) -> Vec<String> {
    catalog
        .entries
        .iter()
        .map(|e| e.place.to_string())
        .collect()
}

// A stage's kernels become entries of the directive's chapter, placed at
// the stage file's lines that name them, and belong to the stage.
#[test]
fn a_stage_registers_its_kernels_at_the_lines_naming_them() {
    let (_dir, settings) = book();
    let text = "# T\n\n{{#exercise t/stage1}}\n\nText.\n\n{{#exercise t/stage2}}\n";
    let catalog = Catalog::build(&settings, &[chapter("ch.md", text)]);
    assert_eq!(
        places(&catalog),
        [
            "kernels/exercise/t/stage1.toml:3",
            "kernels/exercise/t/stage1.toml:4",
            "kernels/exercise/t/stage2.toml:3",
            "kernels/exercise/t/stage2.toml:4",
            "kernels/exercise/t/stage2.toml:11",
        ]
    );
    let ids: Vec<String> = catalog.entries.iter().map(|e| e.shown_id()).collect();
    assert_eq!(ids[2], "exercise/t/b");
    let repeats: Vec<Option<usize>> = catalog.entries.iter().map(|e| e.repeat_of).collect();
    assert_eq!(
        repeats,
        [None, None, Some(1), None, None],
        "stage 2's starter is stage 1's solution, listed once"
    );
    let owners: Vec<Option<usize>> = catalog.entries.iter().map(|e| e.exercise).collect();
    assert_eq!(owners, [Some(0), Some(0), Some(1), Some(1), Some(1)]);
    let second = text.rfind("{{#exercise").unwrap();
    let slot = catalog.exercise_at(0, second).unwrap();
    let kernels = slot.stage.as_ref().unwrap();
    assert_eq!((kernels.starter, kernels.solution), (2, 3));
    assert_eq!(kernels.pitfalls, [Some(4)]);
}

// The solution a gate compares with is registered, once and last, when no
// page shows its stage.
#[test]
fn a_compared_solution_is_registered_when_no_page_shows_it() {
    let (_dir, settings) = book();
    let catalog = Catalog::build(&settings, &[chapter("ch.md", "{{#exercise t/stage2}}\n")]);
    let ids: Vec<String> = catalog.entries.iter().map(|e| e.shown_id()).collect();
    assert_eq!(
        ids,
        ["exercise/t/b", "exercise/t/c", "exercise/t/d"],
        "stage 1's solution is stage 2's starter, already listed"
    );
    let (_dir, settings) = settings_in(&[
        ("kernels/exercise/t/a.cu", KERNEL),
        ("kernels/exercise/t/b.cu", KERNEL),
        ("kernels/exercise/t/c.cu", KERNEL),
        ("kernels/exercise/t/d.cu", KERNEL),
        ("kernels/exercise/t/stage1.toml", STAGE1),
        (
            "kernels/exercise/t/stage2.toml",
            &STAGE2.replace("starter = \"b.cu\"", "starter = \"a.cu\""),
        ),
    ]);
    let catalog = Catalog::build(&settings, &[chapter("ch.md", "{{#exercise t/stage2}}\n")]);
    let last = catalog.entries.last().unwrap();
    assert_eq!(last.shown_id(), "exercise/t/b");
    assert_eq!(last.place.to_string(), "kernels/exercise/t/stage2.toml:15");
}

// A stage that does not load is an error at the directive (an unknown
// stage) or at the stage file's line (a mistake in it), and registers
// nothing; a broken kernel is a broken entry at the line naming it.
#[test]
fn stages_that_do_not_load_say_where() {
    let (_dir, settings) = settings_in(&[
        ("kernels/exercise/t/a.cu", KERNEL),
        ("kernels/exercise/t/b.cu", "not a kernel\n"),
        ("kernels/exercise/t/stage1.toml", STAGE1),
        (
            "kernels/exercise/t/stage2.toml",
            &STAGE1.replace("goal", "gaol"),
        ),
    ]);
    let text = "{{#exercise t/stge1}}\n\n{{#exercise t/stage2}}\n\n{{#exercise t/stage1}}\n";
    let catalog = Catalog::build(&settings, &[chapter("ch.md", text)]);
    let errors: Vec<String> = catalog
        .exercises
        .iter()
        .filter_map(|s| s.stage.as_ref().err().map(ToString::to_string))
        .collect();
    assert_eq!(
        errors,
        [
            "src/ch.md:1: no exercise stage `t/stge1`: stages are files kernels/exercise/TRACK/STAGE.toml, named TRACK/STAGE; did you mean `t/stage1`?",
            "kernels/exercise/t/stage2.toml:5: unknown key `gaol`; did you mean `goal`?",
        ]
    );
    assert_eq!(catalog.entries.len(), 2);
    let broken = catalog.entries[1]
        .resolved
        .as_ref()
        .unwrap_err()
        .to_string();
    assert!(
        broken.starts_with("kernels/exercise/t/stage1.toml:4: kernels/exercise/t/b.cu:1:"),
        "{broken}"
    );
}
