//! Break attempts against the Run service's sandbox (runner/src/sandbox):
//! each runs a hostile child inside bubblewrap under the policy the
//! service uses and checks that it is stopped; where the attempt is safe
//! to make on the host, the same child is first run without the sandbox
//! to show that it does succeed there (so the test can fail). Skipped,
//! with the reason printed, only where bubblewrap is not installed;
//! scripts/test installs it and makes a skip a failure.

mod sandbox_support;

use cuda_runner::sandbox::{Ended, Policy, SANDBOX_UID, Sandbox};
use sandbox_support::{Outcome, python, repo, run, sandbox, sh};
use std::io::ErrorKind;
use std::net::TcpListener;
use std::time::{Duration, Instant};

/// `Some(launcher)`, or return from the test (skipped, reason printed).
macro_rules! sandbox_or_skip {
    () => {
        match sandbox() {
            Some(launcher) => launcher,
            None => return,
        }
    };
}

fn exited_ok(outcome: &Outcome) -> bool {
    outcome.ended == Some(Ended::Code(0))
}

// A child cannot open a TCP connection to a listener on the host's
// 127.0.0.1: the sandbox has a network namespace of its own (only a
// loopback that is down). Unsandboxed, the same child connects.
#[test]
fn no_tcp_connection_to_the_host() {
    let launcher = sandbox_or_skip!();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let program = format!(
        "import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n    print('connected')\nexcept OSError as e:\n    print('refused', e)"
    );
    let control = python(&Sandbox::None, &Policy::compile(), &program);
    assert!(control.stdout.starts_with("connected"), "{control:?}");
    listener.accept().expect("the unsandboxed child connected");
    let inside = python(&launcher, &Policy::compile(), &program);
    assert!(inside.stdout.starts_with("refused"), "{inside:?}");
    match listener.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the listener saw a connection from the sandbox: {other:?}"),
    }
}

// A child cannot write to / (the root is read-only), nor into the
// repository, nor into the folder of the executable it runs (bound
// read-only), nor the executable itself; nothing it tried appears on the
// host. Unsandboxed, the same script writes (in a scratch folder).
#[test]
fn cannot_write_to_the_root_or_the_repository() {
    let launcher = sandbox_or_skip!();
    let repo = repo();
    let exe = std::path::PathBuf::from(env!("CARGO_BIN_EXE_cuda-runner"));
    let probe = format!("sandbox-probe-{}", std::process::id());
    let script = |dirs: &[&std::path::Path]| {
        let mut s = String::new();
        for dir in dirs {
            s.push_str(&format!(
                "if echo x > '{}/{probe}' 2>/dev/null; then echo wrote; else echo refused; fi\n",
                dir.display()
            ));
        }
        s.push_str(&format!(
            "if echo x >> '{}' 2>/dev/null; then echo wrote; else echo refused; fi\n",
            exe.display()
        ));
        s
    };
    let scratch = tempfile::tempdir().unwrap();
    let control = sh(
        &Sandbox::None,
        &Policy::compile(),
        &script(&[scratch.path()]),
    );
    assert!(control.stdout.starts_with("wrote"), "{control:?}");
    let dirs = [
        std::path::Path::new("/"),
        std::path::Path::new("/usr"),
        repo.as_path(),
        exe.parent().unwrap(),
    ];
    // The sandbox the service gives a compile child: its executable bound.
    let policy = Policy::compile().readable(&exe);
    let inside = sh(&launcher, &policy, &script(&dirs));
    let lines: Vec<&str> = inside.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{inside:?}");
    // A folder under /tmp (a clone there, as a CI checkout may be) lies in
    // the child's private tmpfs, where bubblewrap made the mount points of
    // what it binds: a write there may succeed inside but reaches nothing
    // on the host (checked below). Everything else is refused outright.
    for (i, dir) in dirs.iter().enumerate() {
        if !dir.starts_with("/tmp") || *dir == std::path::Path::new("/") {
            assert_eq!(lines[i], "refused", "{}: {inside:?}", dir.display());
        }
    }
    assert_eq!(lines[4], "refused", "the executable: {inside:?}");
    for dir in dirs {
        assert!(!dir.join(&probe).exists(), "{} written", dir.display());
    }
}

// A child cannot read the home folder (a file planted there for the
// test) nor the repository's results store: neither is in its file
// system. Unsandboxed, the same script reads both.
#[test]
fn cannot_read_home_or_the_results_store() {
    let launcher = sandbox_or_skip!();
    let home = std::path::PathBuf::from(std::env::var_os("HOME").expect("HOME is set"));
    let planted = tempfile::Builder::new()
        .prefix(".cuda-measured-sandbox-probe-")
        .tempfile_in(&home)
        .expect("a file in HOME");
    std::fs::write(planted.path(), "secret-in-home\n").unwrap();
    let results = repo().join("results/README.md");
    assert!(results.is_file(), "{} is missing", results.display());
    let script = format!(
        "cat '{}' 2>/dev/null || echo no-home\nhead -c 1 '{}' >/dev/null 2>&1 && echo read-results || echo no-results\nls '{}' >/dev/null 2>&1 && echo listed-home || echo no-listing",
        planted.path().display(),
        results.display(),
        home.display()
    );
    let control = sh(&Sandbox::None, &Policy::compile(), &script);
    assert_eq!(
        control.stdout.lines().collect::<Vec<_>>(),
        ["secret-in-home", "read-results", "listed-home"],
        "{control:?}"
    );
    let inside = sh(&launcher, &Policy::compile(), &script);
    assert_eq!(
        inside.stdout.lines().collect::<Vec<_>>(),
        ["no-home", "no-results", "no-listing"],
        "{inside:?}"
    );
}

// The child's /tmp is a private tmpfs: a file planted in the
// host's /tmp is not there, and what the child writes there does not
// reach the host's.
#[test]
fn tmp_is_private_and_empty() {
    let launcher = sandbox_or_skip!();
    let planted = tempfile::Builder::new()
        .prefix("cuda-measured-host-")
        .tempfile_in("/tmp")
        .unwrap();
    let written = format!("/tmp/cuda-measured-from-sandbox-{}", std::process::id());
    // Only what the child binds (the repository's folders, when the
    // checkout itself is under /tmp) may show there: never the host's files.
    let name = planted
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let script = format!(
        "ls -A /tmp | grep -c '^cuda-measured-host-' ; test -e /tmp/{name} && echo seen || echo unseen; echo x > {written} && echo wrote"
    );
    let inside = sh(&launcher, &Policy::compile(), &script);
    assert_eq!(
        inside.stdout.lines().collect::<Vec<_>>(),
        ["0", "unseen", "wrote"],
        "{inside:?}"
    );
    assert!(planted.path().exists());
    assert!(
        !std::path::Path::new(&written).exists(),
        "{written} reached the host"
    );
}

// The child runs as uid and gid 65534 with no capabilities, whatever
// user the service runs as (root here, in CI a plain user).
#[test]
fn runs_as_an_unprivileged_uid() {
    let launcher = sandbox_or_skip!();
    let inside = sh(
        &launcher,
        &Policy::compile(),
        "id -u; id -g; grep CapEff /proc/self/status",
    );
    let uid = SANDBOX_UID.to_string();
    assert_eq!(
        inside.stdout.lines().collect::<Vec<_>>(),
        [uid.as_str(), uid.as_str(), "CapEff:\t0000000000000000"],
        "{inside:?}"
    );
}

// The child cannot see or signal the host's processes (its own pid
// namespace): killing this test process by its host pid fails.
#[test]
fn cannot_signal_host_processes() {
    let launcher = sandbox_or_skip!();
    let me = std::process::id();
    let inside = sh(
        &launcher,
        &Policy::compile(),
        &format!(
            "kill -0 {me} 2>/dev/null && echo visible || echo invisible; ls /proc | grep -c '^[0-9]'"
        ),
    );
    let lines: Vec<&str> = inside.stdout.lines().collect();
    assert_eq!(lines[0], "invisible", "{inside:?}");
    // bwrap's init, the shell and its children: a handful, not the host's.
    let processes: usize = lines[1].parse().unwrap();
    assert!(processes < 10, "{processes} processes visible: {inside:?}");
}

// The child's environment holds only the passed-through variables:
// nothing of the test's (cargo's CARGO_* variables, the host's HOME).
#[test]
fn environment_is_cleared() {
    let launcher = sandbox_or_skip!();
    // cargo runs tests with CARGO_MANIFEST_DIR and others set.
    assert!(std::env::vars().any(|(name, _)| name.starts_with("CARGO")));
    let inside = sh(&launcher, &Policy::compile(), "env");
    assert!(!inside.stdout.contains("CARGO"), "{inside:?}");
    assert!(
        inside.stdout.lines().any(|l| l == "HOME=/tmp"),
        "{inside:?}"
    );
}

// A fork bomb stops at the process limit: forking children that sleep,
// the child gets fewer than the limit before fork fails with EAGAIN, and
// the host can still start processes meanwhile.
#[test]
fn fork_bomb_stops_at_the_process_limit() {
    let launcher = sandbox_or_skip!();
    let policy = Policy::compile();
    let limit = policy.limits.processes;
    let program = format!(
        "import os, errno, time\nn = 0\nwhile n < {}:\n    try:\n        pid = os.fork()\n    except OSError as e:\n        print(n, errno.errorcode[e.errno]); break\n    if pid == 0:\n        time.sleep(20); os._exit(0)\n    n += 1\nelse:\n    print(n, 'unbounded')\n",
        limit * 4
    );
    let inside = python(&launcher, &policy, &program);
    let line = inside.stdout.lines().next().unwrap_or_default().to_string();
    let mut words = line.split_whitespace();
    let forked: u64 = words.next().unwrap_or("0").parse().unwrap_or(0);
    assert_eq!(words.next(), Some("EAGAIN"), "{inside:?}");
    assert!(forked > 0 && forked < limit, "{forked} forks: {inside:?}");
    assert!(
        std::process::Command::new("true")
            .status()
            .unwrap()
            .success()
    );
}

// The classic shell fork bomb, stopped at the wall-clock limit, leaves
// no process behind on the host: killing bubblewrap ends its pid
// namespace and every process in it.
#[test]
fn fork_bomb_leaves_nothing_behind() {
    let launcher = sandbox_or_skip!();
    let marker = format!("bomb-{}", std::process::id());
    let started = Instant::now();
    let outcome = run(
        &launcher,
        &Policy::compile(),
        "/bin/sh",
        &["-c", "b() { b | b & }; b; sleep 30", &marker],
        Duration::from_secs(4),
    );
    assert!(started.elapsed() < Duration::from_secs(15), "{outcome:?}");
    // The kernel reaps the namespace's processes asynchronously.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = processes_naming(&marker);
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "left on the host: {left:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        std::process::Command::new("true")
            .status()
            .unwrap()
            .success()
    );
}

/// Host processes whose command line names `needle`.
fn processes_naming(needle: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let cmdline = std::fs::read(e.ok()?.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            cmdline.contains(needle).then_some(cmdline)
        })
        .collect()
}

// Writing a file past the size limit kills the writer with SIGXFSZ and
// leaves the file at the limit; unsandboxed, the same write completes.
#[test]
fn a_file_past_the_size_limit_fails() {
    let launcher = sandbox_or_skip!();
    let policy = Policy::compile();
    let limit = policy.limits.file_size;
    let script = |dir: &str| {
        format!(
            "head -c {} /dev/zero > {dir}/big; echo $?; wc -c < {dir}/big",
            limit + (1 << 20)
        )
    };
    let scratch = tempfile::tempdir().unwrap();
    let control = sh(
        &Sandbox::None,
        &policy,
        &script(&scratch.path().display().to_string()),
    );
    assert_eq!(
        control.stdout.lines().collect::<Vec<_>>(),
        ["0".to_string(), (limit + (1 << 20)).to_string()],
        "{control:?}"
    );
    let inside = sh(&launcher, &policy, &script("/tmp"));
    // The shell reports its child killed by signal 25 as status 153.
    assert_eq!(
        inside.stdout.lines().collect::<Vec<_>>(),
        ["153".to_string(), limit.to_string()],
        "{inside:?}"
    );
}

// A CPU loop is killed at the CPU-time limit (SIGXCPU), well before the
// wall-clock limit of the test; the service's own policies have a CPU
// limit (the limits' unit tests check its value).
#[test]
fn a_cpu_loop_is_killed_at_the_cpu_limit() {
    let launcher = sandbox_or_skip!();
    let mut policy = Policy::compile();
    policy.limits.cpu_s = 1;
    let started = Instant::now();
    let inside = run(
        &launcher,
        &policy,
        "/bin/sh",
        &["-c", "while :; do :; done"],
        Duration::from_secs(30),
    );
    assert_eq!(inside.ended, Some(Ended::Signal(24)), "{inside:?}");
    assert!(started.elapsed() < Duration::from_secs(15), "{inside:?}");
}

// Memory past the limit fails: a compile child asking for more address
// space than its limit gets MemoryError; unsandboxed, the same request
// (never touched, so it costs no memory) succeeds. A GPU child, which
// has no address-space limit, is held by its data limit instead.
#[test]
fn memory_past_the_limit_fails() {
    let launcher = sandbox_or_skip!();
    let policy = Policy::compile();
    let limit = policy.limits.address_space.unwrap();
    let program = format!(
        "try:\n    b = bytearray({})\n    print('allocated')\nexcept MemoryError:\n    print('refused')",
        limit + (1 << 30)
    );
    let control = python(&Sandbox::None, &policy, &program);
    assert_eq!(control.stdout.trim(), "allocated", "{control:?}");
    let inside = python(&launcher, &policy, &program);
    assert_eq!(inside.stdout.trim(), "refused", "{inside:?}");
    assert!(exited_ok(&inside), "{inside:?}");

    let mut gpu = Policy::gpu();
    gpu.limits.data = Some(1 << 30);
    let program = "try:\n    b = bytearray(2 << 30)\n    print('allocated')\nexcept MemoryError:\n    print('refused')";
    let inside = python(&launcher, &gpu, program);
    assert_eq!(inside.stdout.trim(), "refused", "{inside:?}");
}
