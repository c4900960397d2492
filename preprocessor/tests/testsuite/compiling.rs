//! Every build compiles the book's examples with NVRTC through the real
//! `cuda-runner` (built next to `mdbook-cuda` by `cargo test --workspace`)
//! and shows a compile error, or a declaration that does not match its
//! kernels, as a broken example at its place; verdicts are cached in
//! `.cuda-measured/compile/`, so that a build with nothing changed starts
//! no runner, and an edit recompiles only the example edited. A kernel
//! that takes NVRTC minutes ends as a compile time-out within its limit.
//! Without a runner or without NVRTC the build goes on, saying that its
//! kernels were not compiled here.

use crate::book_test::{BookTest, Run};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The workspace's `cuda-runner`, next to the `mdbook-cuda` under test.
fn real_runner() -> PathBuf {
    let runner = Path::new(env!("CARGO_BIN_EXE_mdbook-cuda"))
        .parent()
        .expect("binary folder")
        .join("cuda-runner");
    assert!(
        runner.is_file(),
        "{} is not built: these tests compile with the real runner; run `cargo test --workspace` (or `cargo build -p cuda-runner` first)",
        runner.display()
    );
    runner
}

/// A runner that notes each call's arguments in `calls` in the book, then
/// is the real runner.
fn recording_runner(test: &BookTest) -> PathBuf {
    let path = test.root().join("recording-runner");
    let calls = test.root().join("calls");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            calls.display(),
            real_runner().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The fixture book, built with [`recording_runner`].
fn recorded_book() -> BookTest {
    let test = BookTest::from_fixture("compiling");
    let runner = recording_runner(&test);
    test.env("CUDA_MEASURED_RUNNER", &runner.to_string_lossy())
}

/// The runner calls noted so far.
fn calls(test: &BookTest) -> Vec<String> {
    std::fs::read_to_string(test.root().join("calls"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The compile cache's verdict files.
fn cache_files(test: &BookTest) -> Vec<PathBuf> {
    let dir = test.root().join(".cuda-measured/compile");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Builds, and stops the test with a clear message when the runner found
/// no NVRTC.
fn build_compiling(test: &BookTest) -> Run {
    let run = test.build();
    run.assert_success();
    assert!(
        !run.stderr.contains("not compiled here") && !run.stderr.contains("compiling failed"),
        "the runner compiled nothing; is NVRTC on the loader path? Run scripts/test, or add nvidia/cu13/lib of `pip install nvidia-cuda-nvrtc==13.0.88` to LD_LIBRARY_PATH:\n{}",
        run.stderr
    );
    run
}

const COMPILE_ERROR: &str = "src/compiling.md:15: does not compile: kernels/compiling/syntax_error.cu(12): error: identifier \"m\" is undefined";
const KERNEL_TYPO: &str = "src/compiling.md:20: launch 0: kernel `sum_typo` is not in the compiled code; it defines: sum_k: fix `kernel` at kernels/compiling/kernel_typo.cu:5";

/// Whether `stderr` says the runner compiled `misses` examples and took
/// `hits` from the cache (with whichever NVRTC it found).
fn said_compiled(stderr: &str, misses: usize, hits: usize) -> bool {
    stderr.lines().any(|line| {
        line.starts_with(&format!(
            "[cuda] compiled {misses} example(s) for sm_90 with NVRTC "
        )) && line.ends_with(&format!(
            "; {hits} from the cache in .cuda-measured/compile"
        ))
    })
}

/// The messages of the page's broken panels.
fn broken_panels(test: &BookTest) -> Vec<String> {
    broken_panels_of(test, "compiling.html")
}

/// The messages of the broken panels of the built page `page`.
fn broken_panels_of(test: &BookTest, page: &str) -> Vec<String> {
    let html = test.read(&format!("book/{page}"));
    html.split("<p class=\"cm-message\">")
        .skip(1)
        .map(|rest| rest[..rest.find("</p>").unwrap()].replace("&#10;", "\n"))
        .map(|m| {
            m.replace("&quot;", "\"")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
        })
        .collect()
}

// A compile error and a kernel the source does not define are broken
// examples at their places, on the page and on stderr; an example that
// declares its compile error is not. An author's strict build fails on
// both (and accepts the two that only wait to be measured).
#[test]
fn every_build_compiles_and_shows_what_does_not_compile_as_broken() {
    let test = recorded_book();
    let run = build_compiling(&test);
    assert!(said_compiled(&run.stderr, 4, 0), "{}", run.stderr);
    assert!(
        run.stderr.contains("2 not measured, 2 broken"),
        "{}",
        run.stderr
    );
    for line in [COMPILE_ERROR, KERNEL_TYPO] {
        assert!(
            run.stderr.contains(&format!("[cuda] {line}")),
            "stderr lacks {line:?}:\n{}",
            run.stderr
        );
    }
    let panels = broken_panels(&test);
    assert_eq!(panels.len(), 2, "{panels:#?}");
    assert!(panels[0].starts_with(COMPILE_ERROR), "{}", panels[0]);
    assert!(
        panels[0].contains("      if (i < m) atomicAdd(out, x[i]);\n"),
        "the panel shows NVRTC's log: {}",
        panels[0]
    );
    assert_eq!(panels[1], KERNEL_TYPO);
    let html = test.read("book/compiling.html");
    assert_eq!(html.matches("<div class=\"cm-panel cm-error\"").count(), 2);
    // One run asked which NVRTC the runner has, one compiled all four.
    assert_eq!(calls(&test).len(), 2, "{:?}", calls(&test));
    assert_eq!(cache_files(&test).len(), 4);

    let strict = test.env("CUDA_MEASURED_STRICT", "author").build();
    strict.assert_failure();
    assert!(
        strict
            .stderr
            .contains("author build: 2 problem(s), listed above (2 malformed)"),
        "{}",
        strict.stderr
    );
}

// A build with nothing changed starts no runner and shows the same broken
// examples from the cache; an edit to one kernel compiles that one only.
#[test]
fn verdicts_are_cached_and_an_edit_recompiles_only_what_changed() {
    let test = recorded_book();
    build_compiling(&test);
    let first_calls = calls(&test);
    let first_files = cache_files(&test);
    let first_panels = broken_panels(&test);

    let again = build_compiling(&test);
    assert_eq!(calls(&test), first_calls, "no runner was started");
    assert!(
        !again.stderr.contains("[cuda] compiled"),
        "{}",
        again.stderr
    );
    assert_eq!(broken_panels(&test), first_panels);
    assert_eq!(cache_files(&test), first_files);

    let kernel = test.root().join("kernels/compiling/syntax_error.cu");
    let text = std::fs::read_to_string(&kernel).unwrap();
    std::fs::write(&kernel, text.replace("i < m", "i < n")).unwrap();
    let edited = build_compiling(&test);
    let now = calls(&test);
    assert_eq!(now.len(), first_calls.len() + 1, "{now:?}");
    assert!(
        now.last()
            .unwrap()
            .starts_with("compile --arch sm_90 --job "),
        "{now:?}"
    );
    assert!(said_compiled(&edited.stderr, 1, 3), "{}", edited.stderr);
    assert_eq!(broken_panels(&test), [KERNEL_TYPO]);
    assert_eq!(cache_files(&test).len(), first_files.len() + 1);

    // compile = false (here from the environment) starts no runner either.
    let off = test.env("CUDA_MEASURED_COMPILE", "0");
    std::fs::write(&kernel, text.replace("i < m", "i < 2 * n")).unwrap();
    let run = off.build();
    run.assert_success();
    assert_eq!(calls(&off).len(), now.len());
    assert!(!run.stderr.contains("compil"), "{}", run.stderr);
    assert_eq!(broken_panels(&off), Vec::<String>::new());
}

/// What a build without a runner or NVRTC says, before the reason.
const NOT_HERE: &str = "[cuda] kernels not compiled here: fine for a build from the committed results (scripts/test compiles every kernel); to compile them in every build: ";

// Without a runner the build succeeds as before, with one line saying that
// its kernels were not compiled here, that this is fine, and why.
#[test]
fn without_a_runner_compiling_is_skipped_and_said_once() {
    let test = BookTest::from_fixture("compiling");
    let run = test.build();
    run.assert_success();
    let skipped: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("not compiled here"))
        .collect();
    assert_eq!(
        skipped,
        [format!(
            "{NOT_HERE}no runner `/nonexistent/cuda-runner` (build it with `cargo build -p cuda-runner`, or set `runner` in [preprocessor.cuda])"
        )],
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("4 not measured, 0 broken"),
        "{}",
        run.stderr
    );
    assert!(!test.root().join(".cuda-measured").exists());
}

// A runner without NVRTC: the build succeeds, saying so in one line, and
// asks again next time (nothing is remembered of a runner without NVRTC).
#[test]
fn without_nvrtc_compiling_is_skipped_and_said_once() {
    let test = BookTest::from_fixture("compiling");
    let runner = test.root().join("no-nvrtc-runner");
    let calls = test.root().join("calls");
    std::fs::write(
        &runner,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\necho '{{\"runner\":\"0.1.0\",\"nvrtc\":null,\"nvrtc_missing\":\"NVRTC (libnvrtc.so) was not found: install it\",\"verdicts\":[]}}'\n",
            calls.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&runner, std::fs::Permissions::from_mode(0o755)).unwrap();
    let test = test.env("CUDA_MEASURED_RUNNER", &runner.to_string_lossy());
    for build in 1..=2 {
        let run = test.build();
        run.assert_success();
        let skipped: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.contains("not compiled here"))
            .collect();
        assert_eq!(
            skipped,
            [format!(
                "{NOT_HERE}NVRTC (libnvrtc.so) was not found: install it"
            )],
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("0 broken"), "{}", run.stderr);
        let asked = std::fs::read_to_string(&calls).unwrap();
        assert_eq!(asked.lines().count(), build, "{asked}");
    }
}

const BOMB_TIMED_OUT: &str = "src/bomb.md:9: compile time-out: NVRTC did not finish within 3 s and was stopped; a kernel that needs longer sets `compile_timeout_s` in its header (the default is 30 s)";

/// The compile cache's file for example `id`, read.
fn cached_verdict(test: &BookTest, id: &str) -> String {
    cache_files(test)
        .iter()
        .map(|path| std::fs::read_to_string(path).unwrap())
        .find(|text| text.contains(&format!("\"example\": \"{id}\"")))
        .unwrap_or_else(|| panic!("no cached verdict on {id}"))
}

// A runner that fails is a failure, said as one (not as a build that
// needs no compiling), and the build goes on without compiling.
#[test]
fn a_failing_runner_is_said_as_a_failure() {
    let test = BookTest::from_fixture("compiling");
    let runner = test.root().join("crashing-runner");
    std::fs::write(&runner, "#!/bin/sh\necho 'it broke' >&2\nexit 3\n").unwrap();
    std::fs::set_permissions(&runner, std::fs::Permissions::from_mode(0o755)).unwrap();
    let test = test.env("CUDA_MEASURED_RUNNER", &runner.to_string_lossy());
    let run = test.build();
    run.assert_success();
    let failed: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("[cuda] compiling failed: "))
        .collect();
    assert_eq!(failed.len(), 1, "{}", run.stderr);
    assert!(
        failed[0].contains("failed (exit status: 3): it broke"),
        "{}",
        failed[0]
    );
    assert!(!run.stderr.contains("not compiled here"), "{}", run.stderr);
}

// A kernel that takes NVRTC minutes (the compile_bomb fixture's, with
// `compile_timeout_s = 3`) ends as a compile time-out naming its limit and
// the key that raises it, on its panel and on stderr, and the build takes
// about that limit, not minutes; the other example is compiled and held to
// its declaration as usual. The time-out is cached like a compile error:
// the next build starts no runner and waits for nothing.
#[test]
fn a_compile_bomb_times_out_within_its_limit_and_the_rest_compiles() {
    let test = BookTest::from_fixture("compile_bomb");
    let runner = recording_runner(&test);
    let test = test.env("CUDA_MEASURED_RUNNER", &runner.to_string_lossy());
    let start = Instant::now();
    let run = build_compiling(&test);
    let took = start.elapsed();
    // NVRTC alone takes over 120 s over this kernel on two busy cores.
    assert!(took < Duration::from_secs(40), "the build took {took:?}");
    assert!(said_compiled(&run.stderr, 2, 0), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("[cuda] {BOMB_TIMED_OUT}")),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("1 not measured, 1 broken"),
        "{}",
        run.stderr
    );
    assert_eq!(broken_panels_of(&test, "bomb.html"), [BOMB_TIMED_OUT]);
    let good = cached_verdict(&test, "bomb/good");
    assert!(good.contains("\"outcome\": \"compiled\""), "{good}");
    assert!(good.contains("\"name\": \"sum_k\""), "{good}");
    let bomb = cached_verdict(&test, "bomb/compile_bomb");
    assert!(bomb.contains("\"outcome\": \"timed-out\""), "{bomb}");
    let first_calls = calls(&test);

    let start = Instant::now();
    let again = build_compiling(&test);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(calls(&test), first_calls, "no runner was started");
    assert!(again.stderr.contains(&format!("[cuda] {BOMB_TIMED_OUT}")));
    assert_eq!(broken_panels_of(&test, "bomb.html"), [BOMB_TIMED_OUT]);
}
