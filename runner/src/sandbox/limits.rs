//! The resource limits of a sandboxed child, applied inside the sandbox
//! by util-linux's `prlimit` (which sets its own limits, then executes the
//! child), not by `setrlimit` in the parent before bubblewrap starts.
//!
//! Why inside: `RLIMIT_NPROC` counts the processes of a user in every
//! user namespace above the caller's. Set in the parent, before bubblewrap
//! makes the sandbox's namespace, it would count every process the
//! service's host user already runs, and bubblewrap's own fork fails once
//! the host user runs more processes than the limit (tried: eight
//! `sleep`s of one user, then `prlimit --nproc=5 bwrap ...` fails with
//! "Creating new namespace failed: Resource temporarily unavailable").
//! Set inside, it counts the processes of the sandbox's uid in the
//! sandbox's own namespace: each sandbox gets the whole budget, and no
//! more. The limits also then bind the child only (not bubblewrap's
//! set-up), show in the command line (`ps`) and need no `pre_exec` hook
//! (unsafe, and lost when a command is wrapped).
//!
//! What is not limited here: the GPU's own memory (no rlimit reaches it;
//! see the README's threat model), the resident memory of a process (only
//! cgroups can bound it, and this container has none delegated; the
//! address space or the data segment is bounded instead) and the sum over
//! a sandbox's processes (each process has its own limits; the process
//! limit bounds how many there are).

/// One mebibyte.
const MIB: u64 = 1 << 20;
/// One gibibyte.
const GIB: u64 = 1 << 30;

/// The limits of one sandboxed child (each process of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// `RLIMIT_AS`, bytes of virtual address space, or `None` for none:
    /// the CUDA driver reserves address space in the size of the GPU's
    /// memory and more, so a GPU child cannot have one.
    pub address_space: Option<u64>,
    /// `RLIMIT_DATA`, bytes of private writable memory (heap and private
    /// anonymous maps; since Linux 4.7 it counts `mmap` too, and the
    /// driver's reservations, mapped without access, do not count).
    pub data: Option<u64>,
    /// `RLIMIT_NPROC`: processes and threads of the sandbox's uid in its
    /// namespace.
    pub processes: u64,
    /// `RLIMIT_FSIZE`, bytes: the largest file a process may write.
    pub file_size: u64,
    /// `RLIMIT_CPU`, seconds of CPU time per process: SIGXCPU at this
    /// many, SIGKILL one second later.
    pub cpu_s: u64,
    /// `RLIMIT_NOFILE`: open file descriptors.
    pub open_files: u64,
    /// Bytes of the private /tmp (and /dev/shm), a tmpfs held in memory.
    pub tmp_bytes: u64,
}

impl Limits {
    /// A compile child (NVRTC, no GPU): NVRTC compiles a book kernel in
    /// well under 1 GiB of address space; threads are few; its output is
    /// one JSON line.
    pub fn compile() -> Self {
        Limits {
            address_space: Some(4 * GIB),
            data: Some(4 * GIB),
            processes: 64,
            file_size: 64 * MIB,
            cpu_s: 60,
            open_files: 256,
            tmp_bytes: 256 * MIB,
        }
    }

    /// A GPU child (a measuring worker or Nsight Compute with its target):
    /// no address-space limit (the driver's reservations), the data
    /// segment bounded instead; the driver's threads and Nsight Compute's
    /// processes need more of everything than a compile. A warm worker
    /// lives across requests and CPU time adds up over its life, so its
    /// CPU limit is only a backstop (a day); each request is bounded by
    /// the service's run limit (wall clock), at which the worker is killed.
    pub fn gpu() -> Self {
        Limits {
            address_space: None,
            data: Some(16 * GIB),
            processes: 256,
            file_size: GIB,
            cpu_s: 24 * 3600,
            open_files: 4096,
            tmp_bytes: 2 * GIB,
        }
    }

    /// The `prlimit` options that set these limits (soft and hard limits
    /// equal, except CPU time: SIGXCPU at the soft limit names the cause,
    /// SIGKILL at the hard limit one second later makes sure). Core dumps
    /// are off: a crashing child writes nothing.
    pub fn prlimit_args(&self) -> Vec<String> {
        let both = |name: &str, value: u64| format!("--{name}={value}:{value}");
        let mut args = Vec::new();
        if let Some(bytes) = self.address_space {
            args.push(both("as", bytes));
        }
        if let Some(bytes) = self.data {
            args.push(both("data", bytes));
        }
        args.push(both("nproc", self.processes));
        args.push(both("fsize", self.file_size));
        args.push(format!("--cpu={}:{}", self.cpu_s, self.cpu_s + 1));
        args.push(both("nofile", self.open_files));
        args.push(both("core", 0));
        args
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every limit the README promises is in the options, soft equal to
    // hard (so the child cannot raise it), CPU time with a one-second
    // grace for SIGKILL after SIGXCPU, core dumps off.
    #[test]
    fn every_limit_is_set_soft_and_hard() {
        let args = Limits::compile().prlimit_args();
        assert_eq!(
            args,
            [
                "--as=4294967296:4294967296",
                "--data=4294967296:4294967296",
                "--nproc=64:64",
                "--fsize=67108864:67108864",
                "--cpu=60:61",
                "--nofile=256:256",
                "--core=0:0",
            ]
        );
    }

    // A GPU child has no address-space limit (the CUDA driver reserves
    // more than the GPU's memory in address space) but a data limit.
    #[test]
    fn a_gpu_child_has_no_address_space_limit() {
        let args = Limits::gpu().prlimit_args();
        assert!(!args.iter().any(|a| a.starts_with("--as=")), "{args:?}");
        assert!(args.iter().any(|a| a.starts_with("--data=")), "{args:?}");
    }
}
