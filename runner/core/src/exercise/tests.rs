use super::*;

/// A kernels folder with a reduction track: stage1 and stage2 files and
/// their kernels, plus `files` (path under `kernels/exercise/reduction/`,
/// contents).
fn track(stage2: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("kernels/exercise/reduction");
    std::fs::create_dir_all(&folder).unwrap();
    for kernel in ["s1_start.cu", "s1_done.cu", "s2_done.cu", "s2_oops.cu"] {
        std::fs::write(folder.join(kernel), "// kernel\n").unwrap();
    }
    std::fs::write(folder.join("stage1.toml"), STAGE1).unwrap();
    std::fs::write(folder.join("stage2.toml"), stage2).unwrap();
    dir
}

const STAGE1: &str = r#"title = "One"
size = "2^22"
starter = "s1_start.cu"
solution = "s1_done.cu"
goal = "Make it right."
lesson = "Races."
"#;

const STAGE2: &str = r#"title = "Stage 2: fewer atomics"
size = "2^22"
starter = "s1_done.cu"
solution = "s2_done.cu"
goal = """
Fold first.
Then add.
"""
learn = ["folding", "guarding"]
lesson = "Atomics queue."
hints = ["Use shared memory."]

[[pitfall]]
title = "Early return"
text = "Threads that leave skip the store."
kernel = "s2_oops.cu"

[[count]]
what = "`atomicAdd` calls"
starter = "threads"
solution = "blocks"

[[gate]]
kind = "profile"
metric = "sm"
min = 50

[[gate]]
kind = "speedup"
over = "stage1"
min = 10

[[gate]]
kind = "profile_ratio"
metric = "instructions"
over = "starter"
max = 0.8

[[gate]]
kind = "time"
max = 20

[[gate]]
kind = "pct_ceiling"
min = 25.5

[[gate]]
kind = "peer"
peer = "cub"
"#;

fn load_stage2(text: &str) -> Result<Stage, StageError> {
    let dir = track(text);
    load(dir.path(), &dir.path().join("kernels"), "reduction/stage2")
}

/// The message of a stage that does not load.
fn error_of(text: &str) -> String {
    load_stage2(text).unwrap_err().to_string()
}

// A complete stage reads into kernels relative to the kernels folder, text
// with the line it starts on, and gates with correctness first.
#[test]
fn a_complete_stage_reads() {
    let stage = load_stage2(STAGE2).unwrap();
    assert_eq!(stage.file, "kernels/exercise/reduction/stage2.toml");
    assert_eq!(stage.size, crate::dims::Dims::n(1 << 22));
    assert_eq!(stage.starter.path, "exercise/reduction/s1_done.cu");
    assert_eq!(stage.starter.line, 3);
    assert_eq!(stage.solution.id(), "exercise/reduction/s2_done");
    assert_eq!(stage.goal.text, "Fold first.\nThen add.");
    assert_eq!(
        stage.goal.line, 6,
        "the text starts after the opening quotes"
    );
    assert_eq!(stage.lesson.line, 10);
    assert_eq!(stage.learn.len(), 2);
    assert_eq!(
        stage.pitfalls[0].kernel.as_ref().unwrap().path,
        "exercise/reduction/s2_oops.cu"
    );
    assert_eq!(stage.counts[0].starter, PerLaunch::Threads);
    assert_eq!(stage.counts[0].solution.of(16384, 256), 16384);
    let kinds: Vec<&GateKind> = stage.gates.iter().map(|g| &g.kind).collect();
    assert_eq!(kinds[0], &GateKind::Correct);
    assert_eq!(
        kinds[1],
        &GateKind::Profile {
            metric: "sm".into(),
            min: Some(50.0),
            max: None
        }
    );
    assert_eq!(
        kinds[2],
        &GateKind::Speedup {
            over: Baseline::Stage {
                name: "reduction/stage1".into(),
                solution: KernelRef {
                    path: "exercise/reduction/s1_done.cu".into(),
                    line: 30
                }
            },
            min: 10.0
        }
    );
    assert!(matches!(
        kinds[3],
        GateKind::ProfileRatio {
            over: Baseline::Starter,
            max: Some(0.8),
            ..
        }
    ));
    assert_eq!(kinds[4], &GateKind::Time { max_us: 20.0 });
    assert_eq!(kinds[5], &GateKind::PctCeiling { min: 25.5 });
    assert_eq!(
        kinds[6],
        &GateKind::Peer {
            peer: "cub".into(),
            max: 1.0
        }
    );
    assert_eq!(stage.gates[1].line, 24);
}

// Each mistake in a stage file is reported at its line, with the fix or
// the word most likely meant.
#[test]
fn mistakes_name_line_and_fix() {
    let file = "kernels/exercise/reduction/stage2.toml";
    let cases = [
        (
            STAGE2.replace("hints = [", "hint = ["),
            format!("{file}:11: unknown key `hint`; did you mean `hints`?"),
        ),
        (
            STAGE2.replace("solution = \"s2_done.cu\"", "solution = \"s2_dne.cu\""),
            format!(
                "{file}:4: no kernel file `s2_dne.cu` in kernels/exercise/reduction/; did you mean `s2_done.cu`?"
            ),
        ),
        (
            STAGE2.replace("solution = \"s2_done.cu\"", "solution = \"../s2_done.cu\""),
            format!(
                "{file}:4: `../s2_done.cu` is not a kernel file of this stage: name a .cu file in kernels/exercise/reduction/, relative to it"
            ),
        ),
        (
            STAGE2.replace("kind = \"speedup\"", "kind = \"speedp\""),
            format!("{file}:29: unknown gate kind `speedp`; did you mean `speedup`?"),
        ),
        (
            STAGE2.replace("metric = \"sm\"", "metric = \"sms\""),
            format!("{file}:25: `sms` is not a counter the profiles hold; did you mean `sm`?"),
        ),
        (
            STAGE2.replace("metric = \"sm\"", "metric = \"l2_hits\""),
            format!(
                "{file}:25: `l2_hits` is not a counter the profiles hold: use time, sm, dram, memory, occupancy, instructions, bank_conflicts, dram_read, dram_write, registers, ld_sectors_per_request, st_sectors_per_request, ld_sectors, st_sectors"
            ),
        ),
        (
            STAGE2.replace("over = \"stage1\"", "over = \"stage0\""),
            format!("{file}:30: `over = \"stage0\"` names no stage; did you mean `stage1`?"),
        ),
        (
            STAGE2.replace("over = \"stage1\"", "over = \"stage2\""),
            format!(
                "{file}:30: a stage is not compared with itself: name the starter or an earlier stage"
            ),
        ),
        (
            STAGE2.replace("kind = \"time\"\nmax = 20", "kind = \"time\"\nmin = 20"),
            format!("{file}:41: a `time` gate has no `min`: remove it (time takes max, in µs)"),
        ),
        (
            STAGE2.replace("kind = \"time\"\nmax = 20", "kind = \"time\""),
            format!("{file}:40: a `time` gate needs max, in µs (time takes max, in µs)"),
        ),
        (
            STAGE2.replace("metric = \"sm\"\nmin = 50", "metric = \"sm\""),
            format!(
                "{file}:24: a `profile` gate needs a bound, min or max (profile takes metric, and min or max)"
            ),
        ),
        (
            STAGE2.replace("solution = \"blocks\"", "solution = \"blocs\""),
            format!("{file}:21: `blocs` is not something a launch has; did you mean `blocks`?"),
        ),
        (
            STAGE2.replace("size = \"2^22\"", "size = \"2^x\""),
            format!(
                "{file}:2: the stage file is not valid: `2^x` is not a size: write a whole number such as 1000003 or a power of two such as \"2^20\""
            ),
        ),
        (
            STAGE2.replace("queue.\"", "queue."),
            format!("{file}:10: the stage file is not valid: "),
        ),
        (
            STAGE2.replace(
                "kind = \"time\"\nmax = 20",
                "kind = \"sass\"\ncount = \"shfl\"\nmin = 5",
            ),
            format!(
                "{file}:41: `count = \"shfl\"` is not something a SASS gate counts: write `instructions`, `division`, `shared` (static shared memory bytes) or an opcode in capitals (`SHFL`, `LDG.E.128`)"
            ),
        ),
        (
            STAGE2.replace("kind = \"time\"\nmax = 20", "kind = \"sass\"\nmin = 5"),
            format!(
                "{file}:40: a `sass` gate needs `count` (sass takes count (`instructions`, `division` or an opcode such as `SHFL`), and min or max)"
            ),
        ),
        (
            STAGE2.replace(
                "kind = \"time\"\nmax = 20",
                "kind = \"sass\"\ncount = \"SHFL\"",
            ),
            format!("{file}:40: a `sass` gate needs a bound, min or max"),
        ),
        (
            STAGE2.replace(
                "kind = \"time\"\nmax = 20",
                "kind = \"sass\"\ncount = \"SHFL\"\nmetric = \"sm\"\nmin = 1",
            ),
            format!("{file}:42: a `sass` gate has no `metric`: remove it"),
        ),
        (
            STAGE2.replace("starter = \"s1_done.cu\"", "starter = \"s2_done.cu\""),
            format!(
                "{file}:4: the solution is the starter itself: name the kernel that solves the stage"
            ),
        ),
    ];
    for (text, want) in cases {
        let got = error_of(&text);
        assert!(got.starts_with(&want), "want {want}\n got {got}");
    }
}

// A SASS gate reads its count word: the three counts by name, an opcode in
// capitals with its modifiers, matched on whole modifiers.
#[test]
fn sass_counts_read_and_match_opcodes() {
    assert_eq!(SassWhat::parse("division"), Some(SassWhat::Division));
    assert_eq!(SassWhat::parse("shared"), Some(SassWhat::SharedBytes));
    assert_eq!(
        SassWhat::parse("SHARED"),
        Some(SassWhat::Opcode("SHARED".into()))
    );
    assert_eq!(
        SassWhat::parse("LDG.E.128"),
        Some(SassWhat::Opcode("LDG.E.128".into()))
    );
    assert_eq!(SassWhat::parse("shfl"), None);
    assert_eq!(SassWhat::parse("LDG..E"), None);
    assert!(SassWhat::matches_opcode("SHFL", "SHFL.DOWN"));
    assert!(SassWhat::matches_opcode("LDG.E.128", "LDG.E.128.CONSTANT"));
    assert!(!SassWhat::matches_opcode("LDG.E.128", "LDG.E.CONSTANT"));
    assert!(!SassWhat::matches_opcode("LD", "LDG.E"));
}

// A directive naming no stage says which stage was meant, or lists them.
#[test]
fn unknown_stages_name_the_one_meant() {
    let dir = track(STAGE2);
    let kernels = dir.path().join("kernels");
    let err = load(dir.path(), &kernels, "reduction/stge2").unwrap_err();
    assert_eq!(
        err.to_string(),
        "no exercise stage `reduction/stge2`: stages are files kernels/exercise/TRACK/STAGE.toml, named TRACK/STAGE; did you mean `reduction/stage2`?"
    );
    let err = load(dir.path(), &kernels, "../x").unwrap_err().to_string();
    assert!(
        err.ends_with("this book has reduction/stage1, reduction/stage2"),
        "{err}"
    );
    assert_eq!(
        stage_names(&kernels),
        ["reduction/stage1", "reduction/stage2"]
    );
}

// Counts multiply out the launch they are read off.
#[test]
fn counts_per_launch() {
    assert_eq!(PerLaunch::Threads.of(16384, 256), 4_194_304);
    assert_eq!(PerLaunch::Warps.of(2, 48), 4);
    assert_eq!(PerLaunch::Blocks.of(16384, 256), 16384);
    assert_eq!(metric_label("sm"), ("SM throughput", "%"));
}

// A stage of a problem of several dimensions writes its size as a header
// does ("4096x4096"); it reads against the starter's problem, and a size
// of the wrong number of values is refused with the dimensions meant. A
// plain number keeps its one dimension.
#[test]
fn a_size_of_several_dimensions_reads_against_the_problem() {
    let transpose = crate::problem::lookup("transpose").unwrap().dims();
    let mut stage =
        load_stage2(&STAGE2.replace("size = \"2^22\"", "size = \"4096x2048\"")).unwrap();
    assert_eq!(stage.size_line, 2);
    stage.resolve_size(transpose).unwrap();
    assert_eq!(
        stage.size,
        crate::dims::Dims::new(transpose, &[4096, 2048]).unwrap()
    );
    assert_eq!(stage.size.words(), "rows x cols 4096x2048");
    let mut flat = load_stage2(STAGE2).unwrap();
    let wrong = flat.resolve_size(transpose).unwrap_err().to_string();
    assert!(wrong.contains("rows x cols"), "{wrong}");
    let mut named = load_stage2(&STAGE2.replace("size = \"2^22\"", "size = 1024")).unwrap();
    named.resolve_size(crate::dims::N).unwrap();
    assert_eq!(named.size, crate::dims::Dims::n(1024));
}
