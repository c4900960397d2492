//! Killing a measuring build leaves nothing running and loses nothing
//! stored. A stand-in runner (a Python script named by
//! CUDA_MEASURED_RUNNER) answers the GPU probe, measures the first example
//! at once and hangs on the second, as a kernel on a GPU would; the test
//! kills `mdbook` with SIGKILL while the second is being measured.

use crate::book_test::{BookTest, mdbook_binary};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// The stand-in `cuda-runner` ([`crate::fake_runner`]): it hangs on the
/// example `lifetime/hang` and measures any other at once.
fn fake_runner() -> String {
    crate::fake_runner::script(
        r#"    if job["example"]["id"] == "lifetime/hang":
        with open(os.environ["CM_TEST_PIDS"], "w") as f:
            f.write(f"{os.getpid()} {os.getppid()}\n")
        os.execvp("sleep", ["sleep", "300"])
    with open(out, "w") as f:
        json.dump({"record": passing(job), "samples_us": []}, f)"#,
    )
}

fn alive(pid: u32) -> bool {
    // A killed process that nobody reaps stays as a zombie: dead all the same.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

// `kill -9` of a measuring `mdbook build` ends the preprocessor and the
// measuring child with it, and the record stored before survives whole.
#[test]
fn killing_the_build_ends_its_measuring_processes_and_keeps_the_store() {
    let test = BookTest::from_fixture("lifetime");
    let runner = test.root().join("fake-runner");
    std::fs::write(&runner, fake_runner()).unwrap();
    std::fs::set_permissions(&runner, std::fs::Permissions::from_mode(0o755)).unwrap();
    let pids = test.root().join("pids");
    let mut build = test
        .command(&mdbook_binary())
        .arg("build")
        .env("CUDA_MEASURED_MODE", "force")
        .env("CUDA_MEASURED_RUNNER", &runner)
        .env("CUDA_MEASURED_PROCESSES", "1")
        .env("CM_TEST_PIDS", &pids)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("mdbook starts");
    wait_for("the hanging child", Duration::from_secs(60), || {
        std::fs::read_to_string(&pids).is_ok_and(|t| t.ends_with('\n'))
    });
    let text = std::fs::read_to_string(&pids).unwrap();
    let (child, preprocessor) = text.trim().split_once(' ').unwrap();
    let child: u32 = child.parse().unwrap();
    let preprocessor: u32 = preprocessor.parse().unwrap();
    assert!(alive(child) && alive(preprocessor));

    build.kill().unwrap(); // SIGKILL: no clean-up code runs in mdbook
    build.wait().unwrap();
    wait_for(
        "the preprocessor and the child to die",
        Duration::from_secs(10),
        || !alive(preprocessor) && !alive(child),
    );

    let stored = test.root().join("results/lifetime/first.json");
    let record: cuda_measured_core::record::Record =
        serde_json::from_str(&std::fs::read_to_string(&stored).unwrap()).unwrap();
    assert_eq!(record.example, "lifetime/first");
    assert!(!Path::new(&test.root().join("results/lifetime/hang.json")).exists());
}
