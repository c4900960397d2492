//! How a front end starts its `cuda-runner` children: directly, or behind
//! a command prefix (a sandbox such as `bwrap ... --`). Every child of the
//! Run service (compile workers, warm measuring workers, GPU probes,
//! Nsight Compute) is made by [`Launcher::command`], so a sandbox wraps
//! them all by setting [`Launcher::prefix`] in one place; the environment
//! and arguments set on the returned [`Command`] reach the child through
//! the prefix (bubblewrap and nsjail pass both on). A sandbox also names
//! the whole environment children start from ([`Launcher::env`]), and
//! where the files a child reads or writes are made, and for whom
//! ([`Launcher::temp_file`]): a sandboxed child sees neither the host's
//! /tmp nor, under a root service, files only root may open.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The one way children are started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Launcher {
    /// Program and arguments put before every child's own command line
    /// (`["bwrap", "--ro-bind", "/", "/", ..., "--"]`); empty: the child
    /// is started directly.
    pub prefix: Vec<OsString>,
    /// The environment every child starts from, when set (a sandbox's:
    /// the service's own variables, a secret among them, never reach a
    /// child); the caller's settings on the command are added to it.
    /// `None`: children inherit the service's environment.
    pub env: Option<Vec<(OsString, OsString)>>,
    /// The folder [`Launcher::temp_file`] makes files in (one the sandbox
    /// binds); `None`: the system's temporary folder.
    pub scratch: Option<PathBuf>,
    /// The host uid children run as when it is not the service's own (a
    /// root service's sandbox runs as nobody): files made for children
    /// are given to it.
    pub owner: Option<u32>,
}

impl Launcher {
    /// A launcher that starts children directly.
    pub fn direct() -> Launcher {
        Launcher::default()
    }

    /// A launcher that starts every child behind `prefix`.
    pub fn with_prefix(prefix: Vec<OsString>) -> Launcher {
        Launcher {
            prefix,
            ..Launcher::default()
        }
    }

    /// The command that runs `program` (then the arguments the caller
    /// adds), behind the prefix when there is one, from [`Launcher::env`]
    /// when it is set.
    pub fn command(&self, program: &Path) -> Command {
        let mut command = match self.prefix.split_first() {
            None => Command::new(program),
            Some((first, rest)) => {
                let mut command = Command::new(first);
                command.args(rest).arg(program);
                command
            }
        };
        if let Some(env) = &self.env {
            command.env_clear().envs(env.iter().map(|(k, v)| (k, v)));
        }
        command
    }

    /// A new empty file for a child to read or write (a job, a result),
    /// named `prefix...suffix`, in [`Launcher::scratch`] and given to
    /// [`Launcher::owner`] when they are set; removed when dropped.
    pub fn temp_file(
        &self,
        prefix: &str,
        suffix: &str,
    ) -> std::io::Result<tempfile::NamedTempFile> {
        let mut builder = tempfile::Builder::new();
        builder.prefix(prefix).suffix(suffix);
        let file = match &self.scratch {
            Some(dir) => builder.tempfile_in(dir)?,
            None => builder.tempfile()?,
        };
        if let Some(uid) = self.owner {
            std::os::unix::fs::chown(file.path(), Some(uid), Some(uid))?;
        }
        Ok(file)
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

    // With an environment set, a child sees that environment and the
    // caller's own settings, nothing inherited.
    #[test]
    fn a_set_environment_replaces_the_inherited_one() {
        let launcher = Launcher {
            env: Some(vec![("KEPT".into(), "1".into())]),
            ..Launcher::direct()
        };
        let mut command = launcher.command(Path::new("/usr/bin/env"));
        command.env("OWN", "2");
        let out = command.output().unwrap();
        let mut lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(String::from)
            .collect();
        lines.sort();
        assert_eq!(lines, ["KEPT=1", "OWN=2"]);
    }

    // Files for children are made in the scratch folder when one is set.
    #[test]
    fn temp_files_are_made_in_the_scratch_folder() {
        let dir = tempfile::tempdir().unwrap();
        let launcher = Launcher {
            scratch: Some(dir.path().to_path_buf()),
            ..Launcher::direct()
        };
        let file = launcher.temp_file("job-", ".json").unwrap();
        assert_eq!(file.path().parent().unwrap(), dir.path());
        let name = file
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            name.starts_with("job-") && name.ends_with(".json"),
            "{name}"
        );
    }
}
