//! Other processes: whether one is alive (a stale `inbox.json` names a
//! process that has ended) and the name of this one's parent (which program
//! asked, when nothing says).

pub use imp::*;

#[cfg(unix)]
mod imp {
    use std::io;

    /// Whether process `pid` exists (it may belong to another user).
    pub fn is_alive(pid: u32) -> bool {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        if pid <= 0 {
            return false;
        }
        // SAFETY: signal 0 only checks that the process exists.
        if unsafe { libc::kill(pid, 0) } == 0 {
            return true;
        }
        io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }

    /// The parent process's name, from `/proc` (Linux; `None` elsewhere).
    pub fn parent_name() -> Option<String> {
        // SAFETY: getppid has no preconditions.
        let parent = unsafe { libc::getppid() };
        let name = std::fs::read_to_string(format!("/proc/{parent}/comm")).ok()?;
        Some(name.trim().to_string()).filter(|n| !n.is_empty())
    }
}

#[cfg(windows)]
mod imp {
    use windows_sys::Win32::Foundation::{
        CloseHandle, ERROR_ACCESS_DENIED, GetLastError, HANDLE, INVALID_HANDLE_VALUE, STILL_ACTIVE,
    };
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, PROCESSENTRY32W, Process32FirstW, Process32NextW,
        TH32CS_SNAPPROCESS,
    };
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };

    /// A handle closed when dropped.
    struct Owned(HANDLE);

    impl Drop for Owned {
        fn drop(&mut self) {
            // SAFETY: the handle was opened by this module and is closed once.
            unsafe { CloseHandle(self.0) };
        }
    }

    /// Whether process `pid` exists: it can be opened (or exists but is
    /// another user's: access denied, as Unix's EPERM) and has no exit code
    /// yet. A process that ended with code 259 (`STILL_ACTIVE`) looks alive:
    /// Windows cannot tell them apart through this call.
    pub fn is_alive(pid: u32) -> bool {
        // 0 is the System Idle Process, never an inbox.
        if pid == 0 {
            return false;
        }
        // SAFETY: plain call; the handle, if any, is owned below.
        let handle = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
        if handle.is_null() {
            // SAFETY: reads this thread's last error.
            return unsafe { GetLastError() } == ERROR_ACCESS_DENIED;
        }
        let handle = Owned(handle);
        let mut code = 0u32;
        // SAFETY: a live process handle and a valid out pointer.
        let known = unsafe { GetExitCodeProcess(handle.0, &mut code) } != 0;
        known && code == STILL_ACTIVE as u32
    }

    /// The parent process's program name without `.exe` (`claude`,
    /// `Code`), from a Toolhelp snapshot of the processes: this process's
    /// entry names the parent's id, whose entry names its program. The id is
    /// the parent's at this process's start; should the parent have ended
    /// and its id been reused, the name is the newcomer's (it only labels a
    /// question).
    pub fn parent_name() -> Option<String> {
        let processes = snapshot()?;
        let me = std::process::id();
        let parent = processes.iter().find(|p| p.th32ProcessID == me)?;
        name_of(&processes, parent.th32ParentProcessID)
    }

    /// The program name of process `pid` in `processes`, without `.exe`.
    pub(super) fn name_of(processes: &[PROCESSENTRY32W], pid: u32) -> Option<String> {
        let entry = processes
            .iter()
            .find(|p| p.th32ProcessID == pid && pid != 0)?;
        let length = entry
            .szExeFile
            .iter()
            .position(|&c| c == 0)
            .unwrap_or(entry.szExeFile.len());
        let name = String::from_utf16_lossy(&entry.szExeFile[..length]);
        let name = match name.len().checked_sub(4) {
            Some(stem)
                if name.is_char_boundary(stem) && name[stem..].eq_ignore_ascii_case(".exe") =>
            {
                &name[..stem]
            }
            _ => &name[..],
        };
        Some(name.trim().to_string()).filter(|n| !n.is_empty())
    }

    /// Every process's entry, or `None` when the snapshot fails.
    pub(super) fn snapshot() -> Option<Vec<PROCESSENTRY32W>> {
        // SAFETY: plain call; the handle is owned below.
        let handle = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) };
        if handle == INVALID_HANDLE_VALUE || handle.is_null() {
            return None;
        }
        let handle = Owned(handle);
        let mut entries = Vec::new();
        let mut entry = PROCESSENTRY32W {
            dwSize: u32::try_from(std::mem::size_of::<PROCESSENTRY32W>()).ok()?,
            ..PROCESSENTRY32W::default()
        };
        // SAFETY: a snapshot handle and an entry whose dwSize is set.
        let mut more = unsafe { Process32FirstW(handle.0, &mut entry) } != 0;
        while more {
            entries.push(entry);
            // SAFETY: as above.
            more = unsafe { Process32NextW(handle.0, &mut entry) } != 0;
        }
        Some(entries)
    }
}

/// The id of a process that has started and ended (for the tests of what
/// reads liveness).
#[cfg(any(test, feature = "test-support"))]
pub fn ended_process() -> u32 {
    #[cfg(unix)]
    let mut child = std::process::Command::new("true").spawn().unwrap();
    #[cfg(windows)]
    let mut child = std::process::Command::new("cmd")
        .args(["/C", "exit"])
        .spawn()
        .unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_an_ended_one_is_not() {
        assert!(is_alive(std::process::id()));
        assert!(!is_alive(0));
        assert!(!is_alive(u32::MAX));
        assert!(!is_alive(ended_process()));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_parent_has_a_name() {
        let name = parent_name().expect("the test runner's parent has a name");
        assert!(!name.is_empty());
    }

    /// The parent of a test under wine is a Linux process, outside the
    /// snapshot: this process's own entry is looked up instead.
    #[cfg(windows)]
    #[test]
    fn a_process_name_comes_without_exe() {
        let processes = imp::snapshot().expect("a snapshot of the processes");
        let name = imp::name_of(&processes, std::process::id()).expect("this process's name");
        assert!(name.starts_with("ask_user"), "{name}");
        assert!(!name.to_ascii_lowercase().ends_with(".exe"), "{name}");
        assert_eq!(imp::name_of(&processes, 0), None);
    }
}
