//! The guard every child process of the tests lives in
//! (`common::process::ChildGuard`): however its test ends (the end, an early
//! return, a panic), the guard kills the child and reaps it; on Unix it
//! kills the process group the child leads, so that what the child started
//! ends too; on Linux a child also ends with the thread that started it.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::bin;
use common::process::ChildGuard;

/// `ask_user mcp` waiting on an open stdin: a child that never ends by itself.
fn waiting_server() -> Command {
    let mut command = Command::new(bin());
    command
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

/// Reads `pipe` to its end on a thread: true when the end (every writer
/// gone) comes within `limit`.
fn ends_within(mut pipe: impl Read + Send + 'static, limit: Duration) -> bool {
    let (done, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut rest = Vec::new();
        let _ = pipe.read_to_end(&mut rest);
        let _ = done.send(());
    });
    ended.recv_timeout(limit).is_ok()
}

#[test]
fn a_dropped_guard_ends_its_child() {
    let mut child = ChildGuard::spawn(&mut waiting_server()).unwrap();
    let stdout = child.stdout.take().unwrap();
    // Kept open here, so that only a kill ends the server.
    let stdin = child.stdin.take().unwrap();
    assert!(child.try_wait().unwrap().is_none());
    drop(child);
    assert!(
        ends_within(stdout, Duration::from_secs(10)),
        "the child still holds its stdout after the drop"
    );
    drop(stdin);
}

#[test]
fn a_guard_with_output_waits_for_the_end() {
    let mut command = Command::new(bin());
    command.arg("--version").stdout(Stdio::piped());
    let output = ChildGuard::spawn(&mut command)
        .unwrap()
        .wait_with_output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("ask_user {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// Whether process `pid` runs: it exists and is not a zombie.
#[cfg(target_os = "linux")]
fn running(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat.rsplit_once(')').unwrap().1.split_whitespace().next();
    state != Some("Z")
}

/// Polls until process `pid` no longer runs; false after 10 s.
#[cfg(target_os = "linux")]
fn ends(pid: u32) -> bool {
    let started = std::time::Instant::now();
    while running(pid) {
        if started.elapsed() > Duration::from_secs(10) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// A shell that starts `sleep 300` in the background, prints its pid, and
/// then waits for it (`then` "wait") or exits (`then` "exit").
#[cfg(target_os = "linux")]
fn shell_with_a_grandchild(then: &str) -> Command {
    let mut command = Command::new("sh");
    command
        .args(["-c", &format!("sleep 300 & echo $!; {then}")])
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    command
}

/// The first line of `child`'s stdout, as a pid.
#[cfg(target_os = "linux")]
fn pid_line(child: &mut ChildGuard) -> u32 {
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    line.trim().parse().unwrap_or_else(|_| panic!("{line:?}"))
}

/// `sleep 300`: a child that never ends by itself.
#[cfg(target_os = "linux")]
fn sleeper() -> Command {
    let mut command = Command::new("sleep");
    command.arg("300").stdin(Stdio::null());
    command
}

/// Starts a child, then ends the way `how` says: a panic or an early
/// return; the child's pid either way.
#[cfg(target_os = "linux")]
fn start_and_leave(how: &str) -> Result<(), u32> {
    let child = ChildGuard::spawn(&mut sleeper()).unwrap();
    let pid = child.id();
    if how == "panic" {
        std::panic::panic_any(pid);
    }
    // An early return, as `?` makes one.
    Err(pid)?;
    drop(child);
    Ok(())
}

#[cfg(target_os = "linux")]
#[test]
fn a_panic_or_an_early_return_ends_the_child() {
    let Err(payload) = std::panic::catch_unwind(|| start_and_leave("panic")) else {
        panic!("no panic");
    };
    let pid = *payload.downcast::<u32>().unwrap();
    assert!(ends(pid), "process {pid} outlived the panic");

    let pid = start_and_leave("return").unwrap_err();
    assert!(ends(pid), "process {pid} outlived the return");
}

#[cfg(target_os = "linux")]
#[test]
fn what_the_child_started_ends_with_it() {
    let mut shell = ChildGuard::spawn(&mut shell_with_a_grandchild("wait")).unwrap();
    // The child leads a group of its own, which the grandchild is in.
    let pid = libc::pid_t::try_from(shell.id()).unwrap();
    // SAFETY: getpgid on a child of this process.
    assert_eq!(unsafe { libc::getpgid(pid) }, pid);
    let grandchild = pid_line(&mut shell);
    assert!(running(grandchild));
    drop(shell);
    assert!(
        ends(grandchild),
        "the grandchild {grandchild} outlived the guard"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_child_without_a_terminal_keeps_its_session_and_ends_whole() {
    let mut command = shell_with_a_grandchild("wait");
    common::process::without_tty(&mut command);
    let mut shell = ChildGuard::spawn(&mut command).unwrap();
    let pid = libc::pid_t::try_from(shell.id()).unwrap();
    // SAFETY: getsid on a child of this process.
    assert_eq!(unsafe { libc::getsid(pid) }, pid, "a session of its own");
    let grandchild = pid_line(&mut shell);
    drop(shell);
    assert!(
        ends(grandchild),
        "the grandchild {grandchild} outlived the guard"
    );
}

/// Once the test has waited for the child, its id (and its group's) may be
/// another process's: the guard kills no group then.
#[cfg(target_os = "linux")]
#[test]
fn a_group_whose_leader_was_waited_for_is_left_alone() {
    let mut shell = ChildGuard::spawn(&mut shell_with_a_grandchild("exit")).unwrap();
    let grandchild = pid_line(&mut shell);
    assert!(shell.wait().unwrap().success());
    drop(shell);
    std::thread::sleep(Duration::from_millis(200));
    let survived = running(grandchild);
    // SAFETY: SIGKILL to the sleep this test started.
    unsafe { libc::kill(libc::pid_t::try_from(grandchild).unwrap(), libc::SIGKILL) };
    assert!(
        survived,
        "the guard killed a group after its leader was reaped"
    );
}

/// A test process killed outright runs no drop: its children (in groups of
/// their own, so no Ctrl-C from the terminal reaches them) end with the
/// thread that started them.
#[cfg(target_os = "linux")]
#[test]
fn a_child_ends_with_the_thread_that_started_it() {
    let pid = std::thread::spawn(|| {
        let child = ChildGuard::spawn(&mut sleeper()).unwrap();
        let pid = child.id();
        // No drop, as when the process is killed.
        std::mem::forget(child);
        pid
    })
    .join()
    .unwrap();
    let ended = ends(pid);
    let pid = libc::pid_t::try_from(pid).unwrap();
    // SAFETY: ends (when it still runs) and reaps the child this test
    // started and forgot.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, std::ptr::null_mut(), 0);
    }
    assert!(ended, "process {pid} outlived the thread that started it");
}
