//! The Unix terminal: `/dev/tty` (so stdin can carry the JSON and stdout the
//! answer), termios raw and canonical modes, `poll()` with the time left,
//! SIGWINCH for resizes, and restorers for a panic or a fatal signal.
//!
//! Raw mode turns Ctrl-C into a key (0x03, ISIG off) that [`keys::decode`]
//! returns as `Key::CtrlC`, so it is handled like Esc instead of killing the
//! process with the cursor hidden. `poll()` with the time left gives
//! timeouts in one thread; raw mode must be held across the poll, because in
//! canonical mode the tty is not readable before Enter.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::UnixStream;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use console::Key;

use super::{Chunk, SHOW_CURSOR};
use crate::error::{AskError, Detail};
use crate::tty::keys::{self, Decoded};

/// How long the rest of a cut escape sequence or UTF-8 character is waited
/// for (a lone Esc is a key once this has passed).
const SEQUENCE_WAIT: Duration = Duration::from_millis(25);

/// Line mode sets these local flags (the terminal's own line editing, echo
/// and signal keys) and output flags (so "\n" starts a new line), each on
/// its own: joined with `|`, distinct bits breed mutants no test can tell
/// apart (`a ^ b` is `a | b` for them).
const LINE_LOCAL_FLAGS: [libc::tcflag_t; 4] = [libc::ICANON, libc::ECHO, libc::ISIG, libc::IEXTEN];
const LINE_OUTPUT_FLAGS: [libc::tcflag_t; 2] = [libc::OPOST, libc::ONLCR];

/// The terminal settings to restore from a panic or a signal handler, which
/// cannot reach the `Console` value.
static SAVED: OnceLock<(RawFd, libc::termios)> = OnceLock::new();
static RAW: AtomicBool = AtomicBool::new(false);
/// Set by SIGWINCH, which also interrupts the `poll` that waits for a key.
static RESIZED: AtomicBool = AtomicBool::new(false);

/// The controlling terminal and the settings it had when opened.
pub struct Console {
    tty: File,
    saved: libc::termios,
    /// Bytes read but not yet decoded into keys (a paste arrives at once).
    pending: Vec<u8>,
}

impl Console {
    /// Opens `/dev/tty`; the reason when the process has no controlling
    /// terminal.
    pub fn open() -> Result<Self, String> {
        let tty = OpenOptions::new()
            .read(true)
            .write(true)
            // std opens every file with O_CLOEXEC already.
            .custom_flags(libc::O_NOCTTY)
            .open("/dev/tty")
            .map_err(|e| format!("/dev/tty cannot be opened ({e})"))?;
        let fd = tty.as_raw_fd();
        let mut saved = unsafe { std::mem::zeroed::<libc::termios>() };
        // SAFETY: fd is open for the life of `tty`; `saved` is a valid termios.
        if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
            return Err("/dev/tty is not a terminal".to_string());
        }
        Ok(Console {
            tty,
            saved,
            pending: Vec::new(),
        })
    }

    /// Raw mode (output processing kept, so "\n" still starts a new line),
    /// with the restorers installed first.
    pub fn enter_raw(&mut self) -> Result<(), String> {
        let fd = self.tty.as_raw_fd();
        let mut raw = self.saved;
        // SAFETY: `raw` is a valid termios.
        unsafe { libc::cfmakeraw(&mut raw) };
        raw.c_oflag = self.saved.c_oflag;
        let _ = SAVED.set((fd, self.saved));
        install_restorers();
        RAW.store(true, Ordering::SeqCst);
        // SAFETY: fd is open for the life of `tty`.
        if unsafe { libc::tcsetattr(fd, libc::TCSADRAIN, &raw) } != 0 {
            return Err("the terminal cannot be put in raw mode".to_string());
        }
        Ok(())
    }

    /// Canonical mode, echo and signals (the terminal's own line editing).
    pub fn enter_lines(&mut self) -> Result<(), String> {
        let mut lines = self.saved;
        for flag in LINE_LOCAL_FLAGS {
            lines.c_lflag |= flag;
        }
        lines.c_iflag |= libc::ICRNL;
        for flag in LINE_OUTPUT_FLAGS {
            lines.c_oflag |= flag;
        }
        // SAFETY: fd is open for the life of `tty`; `lines` is a valid termios.
        if unsafe { libc::tcsetattr(self.tty.as_raw_fd(), libc::TCSADRAIN, &lines) } != 0 {
            return Err("the terminal cannot be put in line mode".to_string());
        }
        Ok(())
    }

    /// Back to the settings found at `open`.
    pub fn restore(&mut self) {
        RAW.store(false, Ordering::SeqCst);
        // SAFETY: fd still open; `saved` came from tcgetattr.
        unsafe { libc::tcsetattr(self.tty.as_raw_fd(), libc::TCSADRAIN, &self.saved) };
    }

    /// Columns and rows, when the terminal knows them.
    pub fn size(&self) -> Option<(usize, usize)> {
        let mut size = unsafe { std::mem::zeroed::<libc::winsize>() };
        // SAFETY: TIOCGWINSZ fills a winsize.
        let ok = unsafe { libc::ioctl(self.tty.as_raw_fd(), libc::TIOCGWINSZ, &mut size) } == 0;
        (ok && size.ws_col > 0 && size.ws_row > 0)
            .then(|| (usize::from(size.ws_col), usize::from(size.ws_row)))
    }

    pub fn write(&mut self, text: &str) -> io::Result<()> {
        self.tty.write_all(text.as_bytes())?;
        self.tty.flush()
    }

    /// A second handle for writing plain text.
    pub fn writer(&self) -> io::Result<Box<dyn Write>> {
        Ok(Box::new(self.tty.try_clone()?))
    }

    /// Drops what was typed and not read yet.
    pub fn discard_input(&mut self) {
        self.pending.clear();
        // SAFETY: fd is open for the life of `tty`.
        unsafe { libc::tcflush(self.tty.as_raw_fd(), libc::TCIFLUSH) };
    }

    /// Whether the window changed size (SIGWINCH) since this was last asked.
    pub fn take_resized(&mut self) -> bool {
        RESIZED.swap(false, Ordering::SeqCst)
    }

    /// Always false here: in raw mode the keyboard's Ctrl-C is a key, and a
    /// signal from another process restores the terminal and ends the
    /// process ([`install_restorers`]).
    pub fn interrupted(&self) -> bool {
        false
    }

    /// Whether bytes already read wait to be decoded (a paste).
    pub fn has_pending_keys(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The first key among the bytes already read, waiting briefly for the
    /// rest of a cut sequence; `None` when nothing is pending.
    pub fn pending_key(&mut self) -> io::Result<Option<Key>> {
        if self.pending.is_empty() {
            return Ok(None);
        }
        let decoded = match keys::decode(&self.pending, true) {
            Decoded::Incomplete if self.wait_readable(SEQUENCE_WAIT) => {
                self.read_available()?;
                keys::decode(&self.pending, true)
            }
            decoded => decoded,
        };
        let (key, used) = match decoded {
            Decoded::Key(key, used) => (key, used),
            // The rest never came: take the bytes as they stand.
            Decoded::Incomplete => match keys::decode(&self.pending, false) {
                Decoded::Key(key, used) => (key, used),
                Decoded::Incomplete => (Key::Unknown, self.pending.len()),
            },
        };
        self.pending.drain(..used);
        Ok(Some(key))
    }

    /// Waits up to `wait` (forever with `None`) for the terminal to have
    /// bytes, then reads them and decodes one key. `None` when the wait ran
    /// out or a signal (SIGWINCH) interrupted it.
    pub fn wait_key(&mut self, wait: Option<Duration>) -> io::Result<Option<Key>> {
        let mut pollfd = libc::pollfd {
            fd: self.tty.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut pollfd, 1, poll_ms(wait)) };
        if ready < 0 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                return Ok(None); // a resize is reported by the caller
            }
            return Err(err);
        }
        if ready == 0 {
            return Ok(None);
        }
        // Readable, or hung up: the read tells which (a hung-up terminal
        // reads as end of file or EIO).
        self.read_available()?;
        self.pending_key()
    }

    /// Reads what the terminal has (at least one byte, as poll said).
    fn read_available(&mut self) -> io::Result<usize> {
        let mut buffer = [0u8; 1024];
        loop {
            // SAFETY: `buffer` is valid for its length.
            let n = unsafe {
                libc::read(
                    self.tty.as_raw_fd(),
                    buffer.as_mut_ptr().cast(),
                    buffer.len(),
                )
            };
            let Ok(n) = usize::try_from(n) else {
                let err = io::Error::last_os_error();
                if err.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(err);
            };
            if n == 0 {
                return Err(io::Error::other("the terminal hung up"));
            }
            self.pending.extend_from_slice(&buffer[..n]);
            return Ok(n);
        }
    }

    fn wait_readable(&self, wait: Duration) -> bool {
        let mut pollfd = libc::pollfd {
            fd: self.tty.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = i32::try_from(wait.as_millis()).unwrap_or(i32::MAX);
        // Readable or hung up (the read that follows tells which).
        // SAFETY: one valid pollfd.
        unsafe { libc::poll(&mut pollfd, 1, ms) > 0 }
    }
}

/// `poll()`'s timeout for `wait`: -1 for none, else milliseconds rounded
/// up, so a wake-up never comes just before a deadline.
fn poll_ms(wait: Option<Duration>) -> i32 {
    wait.map_or(-1, |left| {
        i32::try_from(left.as_micros().div_ceil(1000)).unwrap_or(i32::MAX)
    })
}

/// Restores the terminal from code paths that skip `Drop`: a panic (the
/// panic hook exits the process) and a fatal signal sent by another process
/// (raw mode turns the keyboard's Ctrl-C and Ctrl-\ into keys).
fn install_restorers() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore_now();
            previous(info);
        }));
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
            // SAFETY: the handler only calls async-signal-safe functions.
            unsafe {
                libc::signal(
                    signal,
                    on_fatal_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
                )
            };
        }
        // SAFETY: the action only stores to an atomic, which is
        // async-signal-safe; the frame is redrawn by the form loop.
        let _ = unsafe {
            signal_hook::low_level::register(libc::SIGWINCH, || {
                RESIZED.store(true, Ordering::SeqCst);
            })
        };
    });
}

/// Async-signal-safe: tcsetattr and write only.
fn restore_now() {
    if RAW.swap(false, Ordering::SeqCst)
        && let Some((fd, saved)) = SAVED.get()
    {
        // SAFETY: plain syscalls on a descriptor this process opened.
        unsafe {
            libc::write(*fd, SHOW_CURSOR.as_ptr().cast(), SHOW_CURSOR.len());
            libc::tcsetattr(*fd, libc::TCSADRAIN, saved);
        }
    }
}

extern "C" fn on_fatal_signal(signal: libc::c_int) {
    restore_now();
    // SAFETY: back to the default action, then die of the same signal.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Where plain mode reads lines: the terminal in canonical mode, or stdin.
/// SIGINT (the terminal's Ctrl-C, from ISIG), SIGTERM, SIGHUP and SIGQUIT
/// wake the wait through a self-pipe.
pub struct LineInput {
    fd: RawFd,
    /// Reading the terminal (not a pipe): a read without a newline is
    /// Ctrl-D on a half-typed line.
    terminal: bool,
    signals: SignalPipe,
}

impl LineInput {
    /// The terminal `console` (already in line mode).
    pub fn terminal(console: &Console) -> Result<Self, AskError> {
        Ok(LineInput {
            fd: console.tty.as_raw_fd(),
            terminal: true,
            signals: SignalPipe::new()?,
        })
    }

    /// Standard input (a pipe, when there is no terminal).
    pub fn stdin() -> Result<Self, AskError> {
        Ok(LineInput {
            fd: 0,
            terminal: false,
            signals: SignalPipe::new()?,
        })
    }

    /// Waits up to `wait` (forever with `None`) for input and appends what
    /// came to `pending`.
    pub fn wait(&mut self, wait: Option<Duration>, pending: &mut Vec<u8>) -> io::Result<Chunk> {
        let mut fds = [
            libc::pollfd {
                fd: self.fd,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: self.signals.fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: two valid pollfds.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, poll_ms(wait)) };
        if ready < 0 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                return Ok(Chunk::Nothing);
            }
            return Err(err);
        }
        if fds[1].revents != 0 {
            return Ok(Chunk::Interrupted);
        }
        if fds[0].revents == 0 {
            return Ok(Chunk::Nothing);
        }
        let mut buffer = [0u8; 4096];
        // SAFETY: `buffer` is valid for its length.
        let n = unsafe { libc::read(self.fd, buffer.as_mut_ptr().cast(), buffer.len()) };
        let Ok(n) = usize::try_from(n) else {
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
            return Ok(Chunk::Nothing);
        };
        let Some(&last) = buffer[..n].last() else {
            return Ok(Chunk::Ended);
        };
        // In canonical mode a read ends with a newline unless Ctrl-D sent a
        // half line: that, too, ends the input (and drops it).
        if self.terminal && last != b'\n' {
            pending.clear();
            return Ok(Chunk::Ended);
        }
        pending.extend_from_slice(&buffer[..n]);
        Ok(Chunk::Data)
    }
}

/// SIGINT, SIGTERM, SIGHUP and SIGQUIT, turned into a readable byte so the
/// line wait sees them without a race (signal-hook's self-pipe). The
/// previous handlers are back once this is dropped.
struct SignalPipe {
    read: UnixStream,
    ids: Vec<signal_hook::SigId>,
}

impl SignalPipe {
    fn new() -> Result<Self, AskError> {
        let internal = |e: io::Error| {
            AskError::InternalError(Detail::new(format!(
                "the signal handlers for plain mode cannot be set up ({e})"
            )))
        };
        let (read, write) = UnixStream::pair().map_err(internal)?;
        read.set_nonblocking(true).map_err(internal)?;
        write.set_nonblocking(true).map_err(internal)?;
        let mut ids = Vec::new();
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
            let write = write.try_clone().map_err(internal)?;
            ids.push(signal_hook::low_level::pipe::register(signal, write).map_err(internal)?);
        }
        Ok(SignalPipe { read, ids })
    }

    fn fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }
}

impl Drop for SignalPipe {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
        let mut sink = [0u8; 16];
        while matches!((&self.read).read(&mut sink), Ok(n) if n > 0) {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_signal_pipe_gives_the_signals_back() {
        let pipe = SignalPipe::new().expect("the signal pipe");
        let ids = pipe.ids.clone();
        assert_eq!(ids.len(), 4, "SIGINT, SIGTERM, SIGHUP and SIGQUIT");
        drop(pipe);
        for id in ids {
            // `unregister` is true only for a handler still registered.
            assert!(
                !signal_hook::low_level::unregister(id),
                "a handler outlived its pipe"
            );
        }
    }
}
