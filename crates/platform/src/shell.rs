//! The `--notify` command (crates/inbox/src/notify.rs): the shell that runs it as
//! typed, the group that holds everything it starts, and the handle on the
//! inbox's stderr that its output goes to.
//!
//! - Unix: `/bin/sh -c CMD`, in a process group of its own; the time limit
//!   kills the group (SIGKILL to `-pgid`).
//! - Windows: `%ComSpec% /d /s /c "CMD"` (`cmd.exe` when ComSpec is unset),
//!   Node's `shell: true` form: `/d` skips the AutoRun commands, `/s` takes
//!   the text between the outer quotes as typed, so `%VARIABLES%`, pipes and
//!   inner quotes work as at a prompt. The command runs in a job object: the
//!   time limit terminates the job (every process in it); so does the
//!   inbox going away mid-run (the job kills its processes when its last
//!   handle closes). A command that ends in time leaves its background
//!   processes running, as on Unix: the job lets them go first. The shell
//!   joins the job just after it starts, before it has parsed its command
//!   line; a process it started in that instant would not be in the job.

use std::io;
use std::process::Stdio;

use tokio::process::{Child, Command};

pub use imp::*;

#[cfg(unix)]
mod imp {
    use super::*;
    use std::os::fd::AsFd;

    /// What the messages call the shell.
    pub const SHELL: &str = "/bin/sh";

    /// `/bin/sh -c command`, to be started in a group of its own.
    pub fn shell_command(command: &str) -> Command {
        let mut shell = Command::new(SHELL);
        shell.arg("-c").arg(command).process_group(0);
        shell
    }

    /// The process group a started command leads.
    pub struct Group(Option<i32>);

    impl Group {
        /// The group of `child`, started by [`shell_command`].
        pub fn of(child: &Child) -> io::Result<Group> {
            Ok(Group(child.id().and_then(|pid| i32::try_from(pid).ok())))
        }

        /// Kills every process in the group.
        pub fn kill(&self) {
            if let Some(group) = self.0 {
                // SAFETY: kill has no memory preconditions; a negative pid
                // names the process group the command leads.
                unsafe { libc::kill(-group, libc::SIGKILL) };
            }
        }

        /// The command ended in time: what it left in the background runs on.
        pub fn release(self) {}
    }

    /// A handle on the inbox's stderr, for a command's stdout or stderr.
    pub fn stderr_for_child() -> io::Result<Stdio> {
        io::stderr().as_fd().try_clone_to_owned().map(Stdio::from)
    }
}

#[cfg(windows)]
mod imp {
    use super::*;
    use std::os::windows::io::AsHandle;
    use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
        SetInformationJobObject, TerminateJobObject,
    };

    /// What the messages call the shell.
    pub const SHELL: &str = "cmd.exe";

    /// `%ComSpec% /d /s /c "command"` (see the module's doc).
    pub fn shell_command(command: &str) -> Command {
        let program = std::env::var_os("ComSpec")
            .filter(|value| !value.is_empty())
            .unwrap_or_else(|| SHELL.into());
        let mut shell = Command::new(program);
        // raw_arg: cmd does not parse its command line by the C runtime's
        // quoting rules that `arg` would apply.
        shell.raw_arg(format!("/d /s /c \"{command}\""));
        shell
    }

    /// The job object that holds a started command and what it starts.
    pub struct Group(HANDLE);

    // SAFETY: a job handle may be used and closed from any thread.
    unsafe impl Send for Group {}
    unsafe impl Sync for Group {}

    impl Group {
        /// A new job, which kills its processes when its last handle closes,
        /// holding `child`.
        pub fn of(child: &Child) -> io::Result<Group> {
            // SAFETY: no name, default security; the handle is owned at once.
            let job = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
            if job.is_null() {
                return Err(io::Error::last_os_error());
            }
            let group = Group(job);
            group.set_limits(JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE)?;
            let process = child
                .raw_handle()
                .ok_or_else(|| io::Error::other("the command has already ended"))?;
            // SAFETY: a job handle and the child's live process handle.
            if unsafe { AssignProcessToJobObject(group.0, process) } == 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(group)
        }

        fn set_limits(&self, flags: u32) -> io::Result<()> {
            let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
            limits.BasicLimitInformation.LimitFlags = flags;
            let size = u32::try_from(std::mem::size_of_val(&limits)).map_err(io::Error::other)?;
            // SAFETY: the structure this information class reads, and its size.
            let set = unsafe {
                SetInformationJobObject(
                    self.0,
                    JobObjectExtendedLimitInformation,
                    (&raw const limits).cast(),
                    size,
                )
            };
            if set == 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(())
            }
        }

        /// Kills every process in the job.
        pub fn kill(&self) {
            // SAFETY: a job handle this value owns.
            unsafe { TerminateJobObject(self.0, 1) };
        }

        /// The command ended in time: what it left in the background runs on
        /// (the kill-on-close limit is lifted before the handle closes).
        pub fn release(self) {
            let _ = self.set_limits(0);
        }
    }

    impl Drop for Group {
        fn drop(&mut self) {
            // SAFETY: the job handle, closed once.
            unsafe { CloseHandle(self.0) };
        }
    }

    /// A handle on the inbox's stderr, for a command's stdout or stderr. A
    /// process started without one (a GUI host's child has no console)
    /// gives the command none either.
    pub fn stderr_for_child() -> io::Result<Stdio> {
        Ok(io::stderr()
            .as_handle()
            .try_clone_to_owned()
            .map_or_else(|_| Stdio::null(), Stdio::from))
    }
}
