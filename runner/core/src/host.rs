//! What the book's host programs printed: the CUDA C++, Python (CuPy) and
//! Rust (cudarc) programs of `bench/host/` each fill N floats, launch an
//! example's kernel once with its launch at N and check the float sum
//! against a double sum. `bench/host/run_hosts.py` runs the three on a GPU
//! machine for every `{{#host ID SIZE}}` and stores one [`Record`] per
//! language as `results/host/<example id>/<language>.json`.
//!
//! A record is current while its `key` equals the example's key and its
//! `program_sha256` the SHA-256 of the program file as it is now.

use crate::size::Size;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Version of the record format.
pub const SCHEMA_VERSION: u32 = 1;

/// One host program language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Language {
    /// Its key, the record's file name (`cuda`).
    pub key: &'static str,
    /// Its name on a page (`CUDA C++`).
    pub label: &'static str,
    /// The program, relative to the book's root.
    pub program: &'static str,
    /// The code fence's language (`cpp`).
    pub fence: &'static str,
}

/// The three host programs, in the order a page shows them (and
/// `run_hosts.py` runs them).
pub const LANGUAGES: [Language; 3] = [
    Language {
        key: "cuda",
        label: "CUDA C++",
        program: "bench/host/host_sum.cu",
        fence: "cpp",
    },
    Language {
        key: "python",
        label: "Python (CuPy)",
        program: "bench/host/host_sum.py",
        fence: "python",
    },
    Language {
        key: "rust",
        label: "Rust (cudarc)",
        program: "bench/host/rust/src/main.rs",
        fence: "rust",
    },
];

/// The arguments every host program passes to the kernel: a host run is
/// possible only for an example with one launch of these.
pub const KERNEL_ARGS: [&str; 3] = ["input", "out", "n"];

/// One run of one host program for one example at one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Format version ([`SCHEMA_VERSION`]).
    pub schema: u32,
    /// The example's id.
    pub example: String,
    /// The example's key when it ran (from `cuda-runner plan`).
    pub key: String,
    /// The language's key ([`Language::key`]).
    pub language: String,
    /// The program, relative to the book's root.
    pub program: String,
    /// SHA-256 (hex) of the program file it ran.
    pub program_sha256: String,
    /// The size.
    pub n: Size,
    /// The command as a reader would type it in the book's root.
    pub command: String,
    /// The program's exit status (a build failure's, for C++).
    pub exit_code: i64,
    /// Whether it exited 0 and said its sum was right.
    pub pass: bool,
    /// What it printed (stdout, then stderr; the last 4000 characters).
    pub output: String,
    /// The toolchain (`nvcc 13.0.88`, `python 3.12.3, cupy 13.6.0`).
    pub tool: String,
    /// The GPU it ran on.
    pub gpu: String,
    /// When (RFC 3339).
    pub made_at: String,
}

/// The file of the record of `id` in `language`, relative to the results
/// folder.
pub fn relative_path(id: &str, language: &str) -> String {
    format!("host/{id}/{language}.json")
}

/// SHA-256 of a program's bytes, in hex, as `run_hosts.py` writes it.
pub fn program_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // A record as bench/host/run_hosts.py writes it reads as a Record.
    #[test]
    fn a_record_from_run_hosts_reads() {
        let json = r#"{
  "schema": 1,
  "example": "exercise/reduction/stage3_solution",
  "key": "abc",
  "language": "python",
  "program": "bench/host/host_sum.py",
  "program_sha256": "00ff",
  "n": 4194304,
  "command": "python3 bench/host/host_sum.py kernels/exercise/reduction/stage3_solution.cu sum_block_fold 4194304 16384 256 1024",
  "exit_code": 0,
  "pass": true,
  "output": "sum 2097152.5, double sum on the CPU 2097152.4: right",
  "tool": "python 3.12.3, cupy 13.6.0",
  "gpu": "NVIDIA H200",
  "made_at": "2026-12-01T12:00:00Z"
}"#;
        let r: Record = serde_json::from_str(json).unwrap();
        assert_eq!((r.n, r.exit_code, r.pass), (Size(1 << 22), 0, true));
        assert_eq!(
            relative_path(&r.example, &r.language),
            "host/exercise/reduction/stage3_solution/python.json"
        );
    }

    // The digest is the SHA-256 of the bytes in lower-case hex, as
    // hashlib.sha256(...).hexdigest() gives it.
    #[test]
    fn the_program_digest_is_hashlibs() {
        assert_eq!(
            program_sha256(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
