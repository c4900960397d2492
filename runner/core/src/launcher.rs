//! How a front end starts its `cuda-runner` children: directly, or behind
//! a command prefix (a sandbox such as `bwrap ... --`). Every child of the
//! Run service (compile workers, warm measuring workers, GPU probes,
//! Nsight Compute) is made by [`Launcher::command`], so a sandbox wraps
//! them all by setting [`Launcher::prefix`] in one place; the environment
//! and arguments set on the returned [`Command`] reach the child through
//! the prefix (bubblewrap and nsjail pass both on).

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

/// The one way children are started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Launcher {
    /// Program and arguments put before every child's own command line
    /// (`["bwrap", "--ro-bind", "/", "/", ..., "--"]`); empty: the child
    /// is started directly.
    pub prefix: Vec<OsString>,
}

impl Launcher {
    /// A launcher that starts children directly.
    pub fn direct() -> Launcher {
        Launcher::default()
    }

    /// A launcher that starts every child behind `prefix`.
    pub fn with_prefix(prefix: Vec<OsString>) -> Launcher {
        Launcher { prefix }
    }

    /// The command that runs `program` (then the arguments the caller
    /// adds), behind the prefix when there is one.
    pub fn command(&self, program: &Path) -> Command {
        match self.prefix.split_first() {
            None => Command::new(program),
            Some((first, rest)) => {
                let mut command = Command::new(first);
                command.args(rest).arg(program);
                command
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Without a prefix the child is the program itself; with one, the
    // prefix's program runs, its arguments then the program then the
    // caller's arguments following.
    #[test]
    fn the_prefix_comes_first() {
        let direct = Launcher::direct().command(Path::new("/bin/echo"));
        assert_eq!(direct.get_program(), "/bin/echo");
        assert_eq!(direct.get_args().count(), 0);
        let mut wrapped =
            Launcher::with_prefix(vec!["env".into(), "-i".into()]).command(Path::new("/bin/echo"));
        wrapped.arg("hi");
        assert_eq!(wrapped.get_program(), "env");
        let args: Vec<_> = wrapped.get_args().collect();
        assert_eq!(args, ["-i", "/bin/echo", "hi"]);
        let out = wrapped.output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "hi");
    }
}
