//! `cuda-runner serve --sandbox`: without bubblewrap the service refuses
//! to start unless `--sandbox none` is given, and says so; with it,
//! `/health` names the sandbox and the instance. Needs NVRTC on the
//! loader path (the service checks for it first), as scripts/test puts it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `cuda-runner serve --compile-only` on the repository's book with
/// `extra` flags, bubblewrap hidden when `hide_bwrap` (an empty PATH and
/// no CUDA_MEASURED_BWRAP).
fn serve(extra: &[&str], hide_bwrap: bool) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cuda-runner"));
    command
        .arg("serve")
        .arg("--book")
        .arg(repo())
        .args(["--compile-only", "--listen", "127.0.0.1:0"])
        .args(extra)
        .stdin(Stdio::null());
    if hide_bwrap {
        command
            .env("PATH", "/nonexistent")
            .env_remove("CUDA_MEASURED_BWRAP");
    }
    command
}

// Without bubblewrap and without `--sandbox none`, the service does not
// start, and its message names bubblewrap and the way out.
#[test]
fn without_bubblewrap_the_service_refuses_to_start() {
    let output = serve(&[], true).output().unwrap();
    assert!(!output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bubblewrap"), "{stderr}");
    assert!(stderr.contains("--sandbox none"), "{stderr}");
    assert!(stderr.contains("refusing to start"), "{stderr}");
}

// With `--sandbox none` given, it starts without bubblewrap, warns, and
// /health says `"sandbox":"none"` with the instance's name.
#[test]
fn sandbox_none_starts_unsandboxed_and_says_so() {
    let mut child = serve(&["--sandbox", "none", "--instance-name", "solo"], true)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let body = reply.split("\r\n\r\n").nth(1).unwrap_or_default();
    let health: serde_json::Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {reply}"));
    assert_eq!(health["sandbox"], "none", "{reply}");
    assert_eq!(health["instance"], "solo", "{reply}");
    assert!(stderr.contains("unsandboxed"), "{stderr}");
}
