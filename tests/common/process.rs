//! Child processes and ports: the guard every child a test starts lives in
//! ([`ChildGuard`]), input on stdin, a client script's JSON on a thread, an
//! exit with a hang guard, a closed port, a child without a terminal, and
//! what a process uses (memory, CPU, open files) as /proc says.

use std::io::Write;
use std::net::TcpStream;
use std::ops::{Deref, DerefMut};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

/// A child process that ends with its guard: dropped (the test returned
/// early, failed, panicked or finished), the guard kills the child and
/// reaps it. On Unix the child leads a process group of its own (or the
/// session [`without_tty`] gives it), and the drop kills that whole group
/// first, so that what the child started (a host's `ask_user mcp`, a
/// driver's browser) ends too. On Linux the child also gets SIGKILL when
/// the thread that started it ends (`PR_SET_PDEATHSIG`): a test process
/// killed outright (Ctrl-C, SIGKILL) runs no drop, and its children, in
/// groups of their own, get no Ctrl-C from the terminal either.
///
/// A group is killed only while its leader is not yet reaped: once a test
/// has waited for the child, its process id, and so the group's, may be
/// another process's. A grandchild that outlives a child the test already
/// waited for is the child's to end (a host closes its servers' stdin).
///
/// Deref gives the [`Child`] (`id`, `stdin`, `wait`, `try_wait`, `kill`).
pub struct ChildGuard(Option<Child>);

impl ChildGuard {
    /// Starts `command` in a group of its own (Unix), to be killed with it.
    pub fn spawn(command: &mut Command) -> std::io::Result<ChildGuard> {
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // SAFETY: getpid, getpgrp, setpgid and prctl are async-signal-safe.
            unsafe {
                command.pre_exec(|| {
                    // A child already leading its own session or group
                    // (`without_tty` ran setsid before this) stays where it is.
                    if libc::getpgrp() != libc::getpid() && libc::setpgid(0, 0) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    #[cfg(target_os = "linux")]
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        command.spawn().map(|child| ChildGuard(Some(child)))
    }

    /// Waits for the exit, collecting stdout and stderr (as
    /// [`Child::wait_with_output`]); the guard is done with the child.
    pub fn wait_with_output(mut self) -> std::io::Result<Output> {
        self.0.take().expect("a child").wait_with_output()
    }
}

impl Deref for ChildGuard {
    type Target = Child;
    fn deref(&self) -> &Child {
        self.0.as_ref().expect("a child")
    }
}

impl DerefMut for ChildGuard {
    fn deref_mut(&mut self) -> &mut Child {
        self.0.as_mut().expect("a child")
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let Some(child) = self.0.as_mut() else {
            return;
        };
        #[cfg(unix)]
        kill_group(child.id());
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// SIGKILL to the process group that `pid`, a child of this process, leads,
/// while that child is not yet reaped (alive, or a zombie no one waited
/// for): its id is then still its own, and so is the group's. Nothing when
/// it was reaped or leads no group.
#[cfg(unix)]
pub fn kill_group(pid: u32) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: waitid with WNOWAIT only looks (it reaps nothing) into a
    // zeroed siginfo_t of ours; getpgid and killpg take plain numbers.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        let Ok(id) = libc::id_t::try_from(pid) else {
            return;
        };
        if libc::waitid(libc::P_PID, id, &raw mut info, flags) != 0 {
            return; // reaped already (ECHILD), or not this process's child
        }
        if libc::getpgid(pid) == pid {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
}

/// Runs `command` with `input` on its stdin and its stdout piped (stderr as
/// the caller set it); its output.
pub fn output_with_stdin(command: &mut Command, input: &[u8]) -> std::io::Result<Output> {
    let mut child = ChildGuard::spawn(command.stdin(Stdio::piped()).stdout(Stdio::piped()))?;
    child.stdin.take().unwrap().write_all(input)?;
    child.wait_with_output()
}

/// Runs a client script, `command` with `scenario` on its stdin, in the
/// background: [`JsonClient::join`] gives the JSON document it prints. A
/// client the test never joins ends with the test (its guard).
pub fn json_client(command: &mut Command, scenario: &Value) -> JsonClient {
    let mut child = ChildGuard::spawn(
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(scenario.to_string().as_bytes())
        .unwrap();
    let read = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    JsonClient {
        child,
        stdout,
        stderr,
    }
}

/// A client script started by [`json_client`]: its stdout and stderr are
/// read on threads while it runs.
pub struct JsonClient {
    child: ChildGuard,
    stdout: JoinHandle<Vec<u8>>,
    stderr: JoinHandle<Vec<u8>>,
}

impl JsonClient {
    /// Waits for the client's end: the JSON document it printed. A failed
    /// exit, or output that is not JSON, fails the test with what the
    /// script printed. (`Result` as a thread's join has it.)
    pub fn join(mut self) -> std::thread::Result<Value> {
        let stdout = self.stdout.join()?;
        let stderr = self.stderr.join()?;
        let status = self.child.wait().unwrap();
        assert!(
            status.success(),
            "the client failed: {}",
            String::from_utf8_lossy(&stderr)
        );
        Ok(serde_json::from_slice(&stdout).unwrap_or_else(|e| {
            panic!(
                "{e}: {}{}",
                String::from_utf8_lossy(&stdout),
                String::from_utf8_lossy(&stderr)
            )
        }))
    }
}

/// Starts `command` as `ask_user inbox --port 0` on the state folder
/// `state` (no inherited ASK_USER_INBOX/TOKEN) and returns it with the first
/// line of its stderr, the one that says where it serves. The rest of stderr
/// is read on a thread, so the inbox never blocks on it, and handed to `rest`
/// when the inbox closes it.
pub fn spawn_inbox(
    command: &mut Command,
    state: &std::path::Path,
    rest: impl FnOnce(String) + Send + 'static,
) -> (ChildGuard, String) {
    use std::io::{BufRead, BufReader, Read};
    let mut child = ChildGuard::spawn(
        command
            .args(["inbox", "--port", "0"])
            .env("ASK_USER_STATE_DIR", state)
            .env_remove("ASK_USER_INBOX")
            .env_remove("ASK_USER_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped()),
    )
    .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        rest(text);
    });
    (child, line)
}

/// Starts `command` with its stdin and stdout piped and its stderr as given.
pub fn spawn_piped(command: &mut Command, stderr: Stdio) -> ChildGuard {
    ChildGuard::spawn(
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr),
    )
    .unwrap()
}

/// Starts `command` with stdin, stdout and stderr piped, writes `input` to
/// its stdin and closes it.
pub fn spawn_with_input(command: &mut Command, input: &[u8]) -> ChildGuard {
    let mut child = spawn_piped(command, Stdio::piped());
    child.stdin.take().unwrap().write_all(input).unwrap();
    child
}

/// Starts `command` (an asker that reads its question from stdin and then
/// says on stderr where it asked) with `input` on stdin, and reads that first
/// stderr line. The rest of stderr is the caller's to read or drain.
pub fn spawn_asking(
    command: &mut Command,
    input: &str,
) -> (
    ChildGuard,
    std::io::BufReader<std::process::ChildStderr>,
    String,
) {
    use std::io::BufRead;
    let mut child = spawn_with_input(command, input.as_bytes());
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    (child, stderr, line)
}

/// `command` run in a new session (setsid): no controlling terminal, even
/// when `cargo test` has one.
#[cfg(unix)]
pub fn without_tty(command: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid is async-signal-safe; it detaches the child from any terminal.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
}

/// `command` detached from any console (DETACHED_PROCESS): Windows' form of
/// a child without a terminal.
#[cfg(windows)]
pub fn without_tty(command: &mut Command) -> &mut Command {
    use std::os::windows::process::CommandExt;
    const DETACHED_PROCESS: u32 = 0x0000_0008;
    command.creation_flags(DETACHED_PROCESS)
}

/// A second handle on a child's stderr pipe, as a file: a thread can read it
/// while the original stays where it is.
pub fn clone_stderr(stderr: &std::process::ChildStderr) -> std::fs::File {
    #[cfg(unix)]
    let pipe = std::os::fd::AsFd::as_fd(stderr).try_clone_to_owned();
    #[cfg(windows)]
    let pipe = std::os::windows::io::AsHandle::as_handle(stderr).try_clone_to_owned();
    std::fs::File::from(pipe.unwrap())
}

/// Polls `child` every `poll` until it exits; `None` once `limit` has passed.
pub fn exit_within(child: &mut Child, limit: Duration, poll: Duration) -> Option<ExitStatus> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if started.elapsed() >= limit {
            return None;
        }
        std::thread::sleep(poll);
    }
}

/// Waits (up to `limit`) for `child` to exit, then reads all of its stdout
/// and checks that it is one line: (exit code, that line with its newline).
pub fn exit_with_one_line(child: &mut Child, limit: Duration) -> (i32, String) {
    use std::io::Read;
    let status =
        exit_within(child, limit, Duration::from_millis(20)).expect("the binary did not exit");
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .expect("stdout is piped")
        .read_to_string(&mut stdout)
        .unwrap();
    assert!(
        stdout.ends_with('\n') && stdout.matches('\n').count() == 1,
        "stdout must be one line: {stdout:?}"
    );
    (status.code().expect("an exit code"), stdout)
}

/// A port on 127.0.0.1 that refuses connections for as long as the
/// returned socket lives, and that no other socket can take meanwhile: the
/// socket is bound to it without SO_REUSEADDR and never listens. (A dropped
/// listener's port is free for any process to listen on, and in a loaded
/// run one does.) Unix only (libc sockets).
#[cfg(unix)]
pub fn refusing_port() -> (std::os::fd::OwnedFd, u16) {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    let size = std::mem::size_of::<libc::sockaddr_in>();
    let mut length = libc::socklen_t::try_from(size).unwrap();
    // SAFETY: a new socket, owned at once; the address is a zeroed
    // sockaddr_in of the length given.
    unsafe {
        let raw = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        assert!(raw >= 0, "socket: {}", std::io::Error::last_os_error());
        let socket = OwnedFd::from_raw_fd(raw);
        assert_eq!(libc::fcntl(raw, libc::F_SETFD, libc::FD_CLOEXEC), 0);
        let mut address: libc::sockaddr_in = std::mem::zeroed();
        address.sin_family = libc::AF_INET as libc::sa_family_t;
        address.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
        let pointer = (&raw mut address).cast::<libc::sockaddr>();
        let bound = libc::bind(socket.as_raw_fd(), pointer, length);
        assert_eq!(bound, 0, "bind: {}", std::io::Error::last_os_error());
        assert_eq!(libc::getsockname(raw, pointer, &mut length), 0);
        (socket, u16::from_be(address.sin_port))
    }
}

/// The port of [`refusing_port`] taking connections from now on: the same
/// socket starts to listen, so that no other socket can take the port
/// between the refusing and the listening (as one could between dropping
/// the socket and binding a new listener).
#[cfg(unix)]
pub fn start_listening(socket: std::os::fd::OwnedFd) -> std::net::TcpListener {
    use std::os::fd::AsRawFd;
    // SAFETY: a bound stream socket this function owns.
    let listening = unsafe { libc::listen(socket.as_raw_fd(), 128) };
    assert_eq!(listening, 0, "listen: {}", std::io::Error::last_os_error());
    std::net::TcpListener::from(socket)
}

/// Whether nothing listens on 127.0.0.1:`port`.
pub fn port_is_closed(port: u16) -> bool {
    TcpStream::connect(("127.0.0.1", port)).is_err()
}

/// Process `pid`'s memory in KiB: `field` is `"VmRSS:"`, or `"VmHWM:"` for the peak.
#[cfg(target_os = "linux")]
pub fn memory_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.trim().strip_suffix("kB"))
        .map(|kib| kib.trim().parse().unwrap())
        .unwrap_or_else(|| panic!("no {field} in /proc status"))
}

/// The CPU time process `pid` has used, in clock ticks (utime + stime).
#[cfg(target_os = "linux")]
pub fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Process `pid`'s open files: each descriptor's number and what it links to
/// (`socket:[…]`, `pipe:[…]`, a path), as /proc says.
#[cfg(target_os = "linux")]
pub fn open_files(pid: u32) -> Vec<(usize, String)> {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|entry| {
            // A descriptor may close between the listing and the reading.
            let entry = entry.ok()?;
            let number = entry.file_name().to_str()?.parse().ok()?;
            let target = std::fs::read_link(entry.path()).ok()?;
            Some((number, target.to_string_lossy().into_owned()))
        })
        .collect()
}
