//! A child process run to its end or to a time limit, both of its output
//! streams read while it runs (so a chatty child never blocks on a full
//! pipe) and kept up to a cap (so it never grows the parent without bound).
//! The measuring children, the GPU probe and the plugin's compile runs all
//! go through [`run_limited`].

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// How a child ended, and what it wrote.
#[derive(Debug)]
pub struct Finished {
    /// Its exit status; `None` when it was stopped at the time limit.
    pub status: Option<ExitStatus>,
    /// Its standard output.
    pub stdout: Captured,
    /// Its standard error.
    pub stderr: Captured,
}

/// Runs `command` (stdin closed, both outputs piped) for at most `limit`,
/// killing it then, and keeps the first `stdout_cap` and `stderr_cap`
/// bytes of its outputs. Fails only when it cannot be started.
pub fn run_limited(
    command: &mut Command,
    limit: Duration,
    stdout_cap: usize,
    stderr_cap: usize,
) -> std::io::Result<Finished> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || Captured::drain(stdout, stdout_cap));
    let err = std::thread::spawn(move || Captured::drain(stderr, stderr_cap));
    let status = match child.wait_timeout(limit) {
        Ok(Some(status)) => Some(status),
        Ok(None) | Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            None
        }
    };
    Ok(Finished {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

/// The start of a stream, at most `cap` bytes, and how long it was.
#[derive(Debug, Default)]
pub struct Captured {
    kept: Vec<u8>,
    total: u64,
    cap: usize,
}

impl Captured {
    /// Nothing yet, keeping the first `cap` bytes of what is pushed.
    pub fn with_cap(cap: usize) -> Self {
        Captured {
            kept: Vec::new(),
            total: 0,
            cap,
        }
    }

    /// Counts `chunk`, keeping what fits under the cap.
    pub fn push(&mut self, chunk: &[u8]) {
        let room = self.cap.saturating_sub(self.kept.len()).min(chunk.len());
        self.kept.extend_from_slice(&chunk[..room]);
        self.total += chunk.len() as u64;
    }

    /// Reads `stream` to its end, keeping the first `cap` bytes.
    pub fn drain(mut stream: impl Read, cap: usize) -> Self {
        let mut captured = Captured::with_cap(cap);
        let mut buf = [0u8; 64 * 1024];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => captured.push(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        captured
    }

    /// The bytes kept.
    pub fn bytes(&self) -> &[u8] {
        &self.kept
    }

    /// Bytes the stream held in all, kept or not.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The kept text, headed by what it is when it was cut; empty when the
    /// stream was.
    pub fn text(&self, what: &str) -> String {
        if self.total == 0 {
            return String::new();
        }
        let kept = String::from_utf8_lossy(&self.kept);
        if self.total as usize <= self.kept.len() {
            return format!("{what}:\n{kept}");
        }
        format!(
            "{what} (first {} KiB of {} bytes shown):\n{kept}\n[... {} more bytes not kept]",
            self.cap / 1024,
            self.total,
            self.total - self.kept.len() as u64
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Short output is kept whole, headed by what it is.
    #[test]
    fn short_output_is_kept_whole() {
        let c = Captured::drain(&b"thread 0: 1.5\n"[..], 16 * 1024);
        assert_eq!(
            c.text("device printf output"),
            "device printf output:\nthread 0: 1.5\n"
        );
        assert_eq!(Captured::drain(&b""[..], 4).text("x"), "");
    }

    // A child past its limit is stopped and said so; what it printed first
    // is kept.
    #[test]
    fn a_child_past_its_limit_is_stopped() {
        let mut command = Command::new("sh");
        command.args(["-c", "echo started; exec sleep 30"]);
        let f = run_limited(&mut command, Duration::from_millis(500), 64, 64).unwrap();
        assert!(f.status.is_none());
        assert_eq!(f.stdout.bytes(), b"started\n");
    }
}
