//! The OS sandbox of the children a Run service starts for a reader's
//! code (compile children, measuring workers, Nsight Compute): a child
//! command becomes one run of bubblewrap (`bwrap`, Debian's `bubblewrap`)
//! with no network, a root built read-only from the system's folders and
//! the few paths the child needs, a private /tmp, an unprivileged uid in a
//! user namespace of its own, a pid namespace of its own (every process
//! of it dies with it), death with its parent, only the GPU's device
//! nodes, a cleared environment and resource limits ([`Limits`], set by
//! `prlimit` inside the sandbox). README, "Run service: sandbox", says
//! why bubblewrap and what a hostile kernel can and cannot do.
//!
//! The Run service takes [`Sandbox::launcher`]: the core's launcher
//! (`cuda_measured_core::launcher`) with bubblewrap's command prefix, the
//! children's environment and the host user their files are given to,
//! one per [`Policy`] (compile children, GPU children). [`Sandbox::wrap`]
//! takes one command as the caller built it (program, arguments,
//! environment settings, working folder) and returns the command to
//! spawn; standard streams and `pre_exec` hooks (such as
//! `lifetime::die_with_this_process`) are set on the returned command.

mod env;
mod limits;
mod mounts;

pub use limits::Limits;
pub use mounts::gpu_devices;

use cuda_measured_core::launcher::Launcher as CoreLauncher;
use std::ffi::{OsStr, OsString};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

/// The uid and gid a sandboxed child runs as (`nobody` on Debian), in
/// its namespace and, when the service runs as root, on the host too.
pub const SANDBOX_UID: u32 = 65534;

/// What one child may see and use.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Its resource limits.
    pub limits: Limits,
    /// Whether it gets the GPU (the `/dev/nvidia*` nodes and `/sys`).
    pub gpu: bool,
    /// Paths it may read (files or folders: a request's job folder, the
    /// book's `kernels/`), at the same paths inside. A service running as
    /// root gives its own files to the sandbox's user first
    /// ([`Sandbox::share`]).
    pub readable: Vec<PathBuf>,
    /// Paths it may write (an output folder), at the same paths inside
    /// (given to the sandbox's user the same way).
    pub writable: Vec<PathBuf>,
}

impl Policy {
    /// A compile child: no GPU, [`Limits::compile`].
    pub fn compile() -> Self {
        Policy {
            limits: Limits::compile(),
            gpu: false,
            readable: Vec::new(),
            writable: Vec::new(),
        }
    }

    /// A GPU child: the GPU's nodes, [`Limits::gpu`].
    pub fn gpu() -> Self {
        Policy {
            limits: Limits::gpu(),
            gpu: true,
            readable: Vec::new(),
            writable: Vec::new(),
        }
    }

    /// This policy with `path` readable too.
    pub fn readable(mut self, path: impl Into<PathBuf>) -> Self {
        self.readable.push(path.into());
        self
    }

    /// This policy with `path` writable too.
    pub fn writable(mut self, path: impl Into<PathBuf>) -> Self {
        self.writable.push(path.into());
        self
    }
}

/// How children are started: sandboxed by bubblewrap, or as they are
/// (`--sandbox none`, asked for explicitly).
#[derive(Debug, Clone)]
pub enum Sandbox {
    /// Each child in a bubblewrap sandbox.
    Bwrap(Bwrap),
    /// Each child as it is: the service's user, file system and network.
    None,
}

/// How a child ended, seen through the sandbox: bubblewrap exits with its
/// child's exit code, or 128 + the signal that killed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this code.
    Code(i32),
    /// A signal killed it (SIGXCPU 24 at the CPU limit, SIGXFSZ 25 at the
    /// file-size limit, SIGKILL 9, SIGSEGV 11, ...).
    Signal(i32),
}

impl Sandbox {
    /// The command that runs `inner` under `policy`: `inner` itself for
    /// [`Sandbox::None`].
    pub fn wrap(&self, inner: Command, policy: &Policy) -> Command {
        match self {
            Sandbox::Bwrap(bwrap) => bwrap.wrap(&inner, policy),
            Sandbox::None => inner,
        }
    }

    /// How a child started by [`Sandbox::wrap`] ended.
    pub fn ended(&self, status: ExitStatus) -> Ended {
        match (status.code(), status.signal(), self) {
            (Some(code), _, Sandbox::Bwrap(_)) if code > 128 && code < 128 + 65 => {
                Ended::Signal(code - 128)
            }
            (Some(code), _, _) => Ended::Code(code),
            (None, Some(signal), _) => Ended::Signal(signal),
            (None, None, _) => Ended::Code(-1),
        }
    }

    /// Makes `path` (a file, or a folder and everything in it) the
    /// sandbox's to read and write where the sandbox runs as another host
    /// user (the service is root: [`Bwrap::find`]): its owner becomes
    /// [`SANDBOX_UID`]. Elsewhere the sandbox's user is the service's own
    /// and nothing changes. For the service's own temporary files (a
    /// request's job folder), never the book's.
    pub fn share(&self, path: &Path) -> std::io::Result<()> {
        match self {
            Sandbox::Bwrap(Bwrap {
                host_user: Some(uid),
                ..
            }) => give(path, *uid),
            _ => Ok(()),
        }
    }

    /// The service's launcher for children under `policy`
    /// ([`Bwrap::launcher`]); one that starts them directly for
    /// [`Sandbox::None`].
    pub fn launcher(&self, policy: &Policy) -> CoreLauncher {
        match self {
            Sandbox::Bwrap(bwrap) => bwrap.launcher(policy),
            Sandbox::None => CoreLauncher::direct(),
        }
    }

    /// `"bwrap"` or `"none"`.
    pub fn name(&self) -> &'static str {
        match self {
            Sandbox::Bwrap(_) => "bwrap",
            Sandbox::None => "none",
        }
    }
}

/// Why bubblewrap cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// No `bwrap` on PATH (nor at `CUDA_MEASURED_BWRAP`).
    #[error(
        "bubblewrap (`bwrap`) was not found on PATH: install it (`apt-get install bubblewrap`, or unpack its .deb with `dpkg -x` and set CUDA_MEASURED_BWRAP to its usr/bin/bwrap), or start the service with `--sandbox none` to run readers' code unsandboxed"
    )]
    Missing,
    /// bwrap is there but cannot make a sandbox here (no user namespaces,
    /// a seccomp profile forbidding them, ...).
    #[error(
        "bubblewrap ({program}) cannot make a sandbox on this machine: {reason}. Check with `{program} --unshare-user --unshare-net --ro-bind / / true`; a container may need `--security-opt seccomp=unconfined` or user namespaces enabled (sysctl user.max_user_namespaces > 0); or start the service with `--sandbox none`"
    )]
    Unusable {
        /// The bwrap that was tried.
        program: String,
        /// What it said.
        reason: String,
    },
    /// No `prlimit` or `setpriv` (util-linux) in /usr/bin or /bin.
    #[error(
        "`{0}` (util-linux) was not found in /usr/bin or /bin: install util-linux; the sandbox sets its limits (prlimit) and, under root, its host user (setpriv) with it"
    )]
    NoUtilLinux(&'static str),
}

/// The bubblewrap program, the `prlimit` the sandbox runs first and,
/// for a service running as root, the `setpriv` that starts bubblewrap
/// as [`SANDBOX_UID`] on the host.
#[derive(Debug, Clone)]
pub struct Bwrap {
    program: PathBuf,
    prlimit: PathBuf,
    setpriv: PathBuf,
    /// The host uid bubblewrap is started as, when the service is root.
    /// A user namespace maps the sandbox's uid to the uid of whoever
    /// starts bubblewrap, and the kernel exempts host root from
    /// `RLIMIT_NPROC` (tried: 256 forks and no refusal); started as
    /// `nobody`, the sandbox's processes are counted, and even a process
    /// that left its namespaces would be nobody on the host.
    host_user: Option<u32>,
}

impl Bwrap {
    /// bubblewrap at `CUDA_MEASURED_BWRAP`, else `bwrap` on PATH, checked
    /// by making one sandbox ([`Bwrap::probe`]).
    pub fn find() -> Result<Self, SandboxError> {
        let program = std::env::var_os("CUDA_MEASURED_BWRAP")
            .map(PathBuf::from)
            .or_else(|| on_path("bwrap"))
            .filter(|p| p.is_file())
            .ok_or(SandboxError::Missing)?;
        let util = |name: &'static str| {
            ["/usr/bin", "/bin"]
                .into_iter()
                .map(|dir| Path::new(dir).join(name))
                .find(|p| p.is_file())
                .ok_or(SandboxError::NoUtilLinux(name))
        };
        // SAFETY: geteuid has no preconditions and cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        let bwrap = Bwrap {
            program,
            prlimit: util("prlimit")?,
            setpriv: util("setpriv")?,
            host_user: root.then_some(SANDBOX_UID),
        };
        bwrap.probe()?;
        Ok(bwrap)
    }

    /// Makes one sandbox of the compile policy that runs `true`: fails with
    /// what bubblewrap said when it cannot.
    pub fn probe(&self) -> Result<(), SandboxError> {
        let unusable = |reason: String| SandboxError::Unusable {
            program: self.program.display().to_string(),
            reason,
        };
        let output = self
            .wrap(&Command::new("true"), &Policy::compile())
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| unusable(e.to_string()))?;
        if output.status.success() {
            Ok(())
        } else {
            Err(unusable(format!(
                "it ended with {} saying {:?}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            )))
        }
    }

    /// The bwrap program.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The program that starts bubblewrap and its first arguments:
    /// `setpriv` to the unprivileged host user when the service is root,
    /// else bubblewrap itself.
    fn starter(&self) -> Vec<String> {
        match self.host_user {
            Some(uid) => vec![
                self.setpriv.display().to_string(),
                format!("--reuid={uid}"),
                format!("--regid={uid}"),
                "--clear-groups".into(),
                "--".into(),
                self.program.display().to_string(),
            ],
            None => vec![self.program.display().to_string()],
        }
    }

    /// The bubblewrap command that runs `inner` under `policy`.
    pub fn wrap(&self, inner: &Command, policy: &Policy) -> Command {
        let mut starter = self.starter();
        let mut command = Command::new(starter.remove(0));
        command.args(starter).args(self.args(inner, policy));
        command
    }

    /// The namespaces and the file system of `policy` (with `program`
    /// bound too): bubblewrap's options before the environment, and the
    /// loader folders the child's `LD_LIBRARY_PATH` names.
    fn setup(&self, policy: &Policy, program: Option<&Path>) -> (Vec<String>, Vec<String>) {
        let uid = SANDBOX_UID.to_string();
        let mut args: Vec<String> = [
            "--unshare-user",
            "--uid",
            &uid,
            "--gid",
            &uid,
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--hostname",
            "sandbox",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
        ]
        .map(String::from)
        .to_vec();
        args.extend(mounts::system(policy.limits.tmp_bytes, policy.gpu));
        let ld_path = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
        let (libraries, ld_dirs) = mounts::libraries(&ld_path);
        for library in &libraries {
            args.extend(mounts::bind(library, false));
        }
        if let Some(program) = program.filter(|p| p.is_absolute()) {
            args.extend(mounts::bind(program, false));
        }
        for path in &policy.readable {
            args.extend(mounts::bind(path, false));
        }
        for path in &policy.writable {
            args.extend(mounts::bind(path, true));
        }
        args.extend(["--remount-ro", "/"].map(String::from));
        let ld_dirs = ld_dirs.iter().map(|d| d.display().to_string()).collect();
        (args, ld_dirs)
    }

    /// `--`, then `prlimit` with the policy's limits, then `--`: what
    /// goes between bubblewrap's options and the child's command line.
    fn limited(&self, policy: &Policy) -> Vec<String> {
        let mut args = vec!["--".to_string(), self.prlimit.display().to_string()];
        args.extend(policy.limits.prlimit_args());
        args.push("--".into());
        args
    }

    /// bubblewrap's arguments for `inner` under `policy` (the environment
    /// cleared, then set by `--setenv`), the command after `--`.
    pub fn args(&self, inner: &Command, policy: &Policy) -> Vec<String> {
        let (mut args, ld_dirs) = self.setup(policy, Some(Path::new(inner.get_program())));
        let own: Vec<(String, Option<String>)> = inner
            .get_envs()
            .map(|(name, value)| (lossy(name), value.map(lossy)))
            .collect();
        args.push("--clearenv".into());
        args.extend(env::setenv_args(env::child_env(
            std::env::vars(),
            &ld_dirs,
            &own,
        )));
        let dir = inner
            .get_current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|| "/tmp".into());
        args.extend(["--chdir".to_string(), dir]);
        args.extend(self.limited(policy));
        args.push(lossy(inner.get_program()));
        args.extend(inner.get_args().map(lossy));
        args
    }

    /// The service's launcher for children under `policy`: the command
    /// prefix (the starter, bubblewrap's options, `prlimit`), the
    /// environment children start from (the caller's settings are added
    /// to it, bubblewrap passes it on), and the host user files made for
    /// children are given to. The executable each child runs must be
    /// among the policy's readable paths (or under /usr).
    pub fn launcher(&self, policy: &Policy) -> CoreLauncher {
        let (setup, ld_dirs) = self.setup(policy, None);
        let mut prefix = self.starter();
        prefix.extend(setup);
        prefix.extend(["--chdir".to_string(), "/tmp".to_string()]);
        prefix.extend(self.limited(policy));
        let env = env::child_env(std::env::vars(), &ld_dirs, &[]);
        CoreLauncher {
            prefix: prefix.into_iter().map(OsString::from).collect(),
            env: Some(
                env.into_iter()
                    .map(|(k, v)| (OsString::from(k), OsString::from(v)))
                    .collect(),
            ),
            scratch: None,
            owner: self.host_user,
        }
    }
}

/// Gives `path` and everything under it to `uid` (owner and group).
fn give(path: &Path, uid: u32) -> std::io::Result<()> {
    std::os::unix::fs::lchown(path, Some(uid), Some(uid))?;
    if path.is_dir() && !path.is_symlink() {
        for entry in std::fs::read_dir(path)? {
            give(&entry?.path(), uid)?;
        }
    }
    Ok(())
}

/// `name`'s path on PATH, if it is there.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

fn lossy(s: &OsStr) -> String {
    s.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bwrap() -> Bwrap {
        Bwrap {
            program: "/usr/bin/bwrap".into(),
            prlimit: "/usr/bin/prlimit".into(),
            setpriv: "/usr/bin/setpriv".into(),
            host_user: None,
        }
    }

    // The namespaces and protections the README promises are all asked
    // for, and the command runs under prlimit with the policy's limits,
    // after everything bubblewrap sets up.
    #[test]
    fn every_protection_is_asked_for() {
        let mut inner = Command::new("/usr/bin/true");
        inner.arg("--flag").current_dir("/usr");
        let args = bwrap().args(&inner, &Policy::compile());
        for flag in [
            "--unshare-user",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--die-with-parent",
            "--new-session",
            "--clearenv",
            "--remount-ro",
            "--cap-drop",
        ] {
            assert!(args.iter().any(|a| a == flag), "{flag} missing: {args:?}");
        }
        let uid = args.iter().position(|a| a == "--uid").unwrap();
        assert_eq!(args[uid + 1], "65534");
        let dashes: Vec<usize> = (0..args.len()).filter(|&i| args[i] == "--").collect();
        assert_eq!(args[dashes[0] + 1], "/usr/bin/prlimit");
        assert_eq!(
            args[dashes[1]..],
            ["--", "/usr/bin/true", "--flag"].map(String::from)
        );
        let chdir = args.iter().position(|a| a == "--chdir").unwrap();
        assert_eq!(args[chdir + 1], "/usr");
    }

    // A service running as root starts bubblewrap through setpriv as the
    // unprivileged host user (root's processes escape RLIMIT_NPROC);
    // another user starts it directly.
    #[test]
    fn root_starts_bubblewrap_as_nobody() {
        let root = Bwrap {
            host_user: Some(SANDBOX_UID),
            ..bwrap()
        };
        let command = root.wrap(&Command::new("true"), &Policy::compile());
        assert_eq!(command.get_program(), "/usr/bin/setpriv");
        let args: Vec<String> = command.get_args().map(lossy).collect();
        assert_eq!(
            args[..5],
            [
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "--",
                "/usr/bin/bwrap"
            ]
        );
        let user = bwrap().wrap(&Command::new("true"), &Policy::compile());
        assert_eq!(user.get_program(), "/usr/bin/bwrap");
    }

    // Through bubblewrap, exit code 128 + n is signal n (bubblewrap's own
    // convention); without a sandbox an exit code is an exit code.
    #[test]
    fn bwrap_exit_codes_above_128_are_signals() {
        let status = |code: i32| ExitStatus::from_raw(code << 8);
        let sandboxed = Sandbox::Bwrap(bwrap());
        assert_eq!(sandboxed.ended(status(152)), Ended::Signal(24));
        assert_eq!(sandboxed.ended(status(3)), Ended::Code(3));
        assert_eq!(Sandbox::None.ended(status(152)), Ended::Code(152));
        assert_eq!(
            Sandbox::None.ended(ExitStatus::from_raw(9)),
            Ended::Signal(9)
        );
    }
}
