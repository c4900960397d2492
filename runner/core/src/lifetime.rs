//! Measuring processes never outlive whoever started them. A build killed
//! with `kill -9` (or a `cuda-runner run` stopped the same way) cannot run
//! any clean-up, so the kernel asks for it instead: on Linux every child
//! `cuda-runner measure` is started with a parent-death signal (SIGKILL
//! when its parent dies), and the preprocessor asks the same for itself
//! while it measures, so that killing `mdbook` ends the preprocessor and,
//! through it, the child holding the GPU. Ctrl-C needs nothing extra: the
//! terminal sends SIGINT to the whole foreground process group, children
//! included.
//!
//! Linux sends the signal when the *thread* that spawned the child exits,
//! not the process: a child must be spawned by a thread that then waits for
//! it (as `isolate` does), never by a short-lived helper thread.

use std::process::Command;

/// Makes `command`'s process receive SIGKILL when this process dies.
pub fn die_with_this_process(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id();
        // SAFETY: the closure runs between fork and exec and calls only
        // async-signal-safe functions (prctl, getppid, _exit).
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have died before the signal was armed.
                if libc::getppid() as u32 != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Makes this process receive SIGKILL when its parent dies (Linux); for a
/// process that starts GPU work on behalf of a parent that may be killed.
/// Returns false when the parent is already gone, so the caller can stop.
pub fn die_with_parent() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: plain system calls without pointers.
        unsafe {
            let parent = libc::getppid();
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return true;
            }
            libc::getppid() == parent
        }
    }
    #[cfg(not(target_os = "linux"))]
    true
}
