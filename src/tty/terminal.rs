//! The controlling terminal: opened from `/dev/tty` (so stdin can carry the
//! JSON and stdout the answer), held in raw mode for the whole form, read one
//! key at a time with a deadline, and restored on every way out.
//!
//! Raw mode turns Ctrl-C into a key (0x03, ISIG off) that [`keys::decode`]
//! returns as `Key::CtrlC`, so it is handled like Esc instead of killing the
//! process with the cursor hidden. `poll()` with the time left
//! gives timeouts in one thread; raw mode must be held across the poll,
//! because in canonical mode the tty is not readable before Enter.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use console::Key;

use super::keys::{self, Decoded};
use super::render::text_width;
use crate::error::{AskError, Detail};

const SHOW_CURSOR: &str = "\x1b[?25h";
const HIDE_CURSOR: &str = "\x1b[?25l";

/// What the terminal gave back while waiting for a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Key(Key),
    TimedOut,
    /// The window changed size (SIGWINCH): draw the frame again to fit.
    Resized,
    /// The flag given to [`Terminal::stop_when`] was set: the caller gave up.
    Stopped,
}

/// How often the wait looks at a stop flag.
const STOP_POLL: Duration = Duration::from_millis(100);
/// How long the rest of a cut escape sequence or UTF-8 character is waited
/// for (a lone Esc is a key once this has passed).
const SEQUENCE_WAIT: Duration = Duration::from_millis(25);

/// What the terminal's settings are while we hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// As we found them.
    Untouched,
    /// Raw mode and a hidden cursor (the full UI).
    Raw,
    /// Canonical mode with echo and signals (plain mode), no escape sequence ever written.
    Lines,
}

/// The open controlling terminal. After [`Terminal::enter_raw`], dropping it
/// restores the saved settings and shows the cursor.
pub struct Terminal {
    tty: File,
    saved: libc::termios,
    mode: Mode,
    /// Bytes read but not yet decoded into keys (a paste arrives at once).
    pending: Vec<u8>,
    /// The display width of each line of the frame on screen, which the
    /// next frame replaces.
    drawn: Vec<usize>,
    /// Set by another thread to end the wait (an MCP client cancelled the call).
    stop: Option<Arc<AtomicBool>>,
}

/// The terminal settings to restore from a panic or a signal handler, which
/// cannot reach the `Terminal` value.
static SAVED: OnceLock<(RawFd, libc::termios)> = OnceLock::new();
static RAW: AtomicBool = AtomicBool::new(false);
/// Set by SIGWINCH, which also interrupts the `poll` that waits for a key.
static RESIZED: AtomicBool = AtomicBool::new(false);

impl Terminal {
    /// Opens `/dev/tty`. Fails at once, before anything is drawn, when the
    /// process has no controlling terminal.
    pub fn open() -> Result<Self, AskError> {
        let tty = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_CLOEXEC | libc::O_NOCTTY)
            .open("/dev/tty")
            .map_err(|e| no_tty(&format!("/dev/tty cannot be opened ({e})")))?;
        let fd = tty.as_raw_fd();
        let mut saved = unsafe { std::mem::zeroed::<libc::termios>() };
        // SAFETY: fd is open for the life of `tty`; `saved` is a valid termios.
        if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
            return Err(no_tty("/dev/tty is not a terminal"));
        }
        Ok(Terminal {
            tty,
            saved,
            mode: Mode::Untouched,
            pending: Vec::new(),
            drawn: Vec::new(),
            stop: None,
        })
    }

    /// Makes [`next_event`](Self::next_event) return [`Event::Stopped`]
    /// within [`STOP_POLL`] of `flag` being set.
    pub fn stop_when(&mut self, flag: Arc<AtomicBool>) {
        self.stop = Some(flag);
    }

    /// Raw mode and a hidden cursor, until this value is dropped.
    pub fn enter_raw(&mut self) -> Result<(), AskError> {
        let fd = self.tty.as_raw_fd();
        let mut raw = self.saved;
        // SAFETY: `raw` is a valid termios.
        unsafe { libc::cfmakeraw(&mut raw) };
        // Keep output processing, so "\n" still starts a new line.
        raw.c_oflag = self.saved.c_oflag;
        let _ = SAVED.set((fd, self.saved));
        install_restorers();
        RAW.store(true, Ordering::SeqCst);
        self.mode = Mode::Raw;
        // SAFETY: fd is open for the life of `tty`.
        if unsafe { libc::tcsetattr(fd, libc::TCSADRAIN, &raw) } != 0 {
            return Err(no_tty("the terminal cannot be put in raw mode"));
        }
        self.write(HIDE_CURSOR)
    }

    /// Canonical mode, echo and signals (the terminal's own line editing,
    /// which screen readers follow), until this value is dropped. Usually
    /// the terminal is like that already and nothing changes. Nothing is
    /// written: plain mode never sends an escape sequence.
    pub fn enter_lines(&mut self) -> Result<(), AskError> {
        let mut lines = self.saved;
        lines.c_lflag |= libc::ICANON | libc::ECHO | libc::ISIG | libc::IEXTEN;
        lines.c_iflag |= libc::ICRNL;
        lines.c_oflag |= libc::OPOST | libc::ONLCR;
        self.mode = Mode::Lines;
        // SAFETY: fd is open for the life of `tty`; `lines` is a valid termios.
        if unsafe { libc::tcsetattr(self.tty.as_raw_fd(), libc::TCSADRAIN, &lines) } != 0 {
            return Err(no_tty("the terminal cannot be put in line mode"));
        }
        Ok(())
    }

    /// The descriptor lines are read from in plain mode.
    pub fn input_fd(&self) -> RawFd {
        self.tty.as_raw_fd()
    }

    /// `ask --bell`: the alert for `prompt` ([`super::bell`]).
    pub fn ring(&mut self, prompt: &crate::model::Prompt) -> Result<(), AskError> {
        self.write(&super::bell::alert(prompt))
    }

    /// A second handle for writing plain text.
    pub fn writer(&self) -> Result<File, AskError> {
        self.tty.try_clone().map_err(|e| lost(&e))
    }

    /// Drops what was typed and not read yet, so a half-typed line does not
    /// reach the shell after a cancel or a timeout.
    pub fn discard_input(&mut self) {
        self.pending.clear();
        // SAFETY: fd is open for the life of `tty`.
        unsafe { libc::tcflush(self.tty.as_raw_fd(), libc::TCIFLUSH) };
    }

    /// Columns and rows, with a sane fallback when the size is unknown.
    pub fn size(&self) -> (usize, usize) {
        let mut size = unsafe { std::mem::zeroed::<libc::winsize>() };
        // SAFETY: TIOCGWINSZ fills a winsize.
        let ok = unsafe { libc::ioctl(self.tty.as_raw_fd(), libc::TIOCGWINSZ, &mut size) } == 0;
        if ok && size.ws_col > 0 && size.ws_row > 0 {
            (usize::from(size.ws_col), usize::from(size.ws_row))
        } else {
            (80, 24)
        }
    }

    /// Waits for one key until `deadline` (forever without one).
    pub fn next_event(&mut self, deadline: Option<Instant>) -> Result<Event, AskError> {
        if let Some(key) = self.decode_pending()? {
            return Ok(Event::Key(key));
        }
        loop {
            if RESIZED.swap(false, Ordering::SeqCst) {
                return Ok(Event::Resized);
            }
            if self
                .stop
                .as_ref()
                .is_some_and(|flag| flag.load(Ordering::SeqCst))
            {
                return Ok(Event::Stopped);
            }
            let left = match deadline {
                None => None,
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(Event::TimedOut);
                    }
                    Some(left)
                }
            };
            let left = match (left, &self.stop) {
                (left, None) => left,
                (None, Some(_)) => Some(STOP_POLL),
                (Some(left), Some(_)) => Some(left.min(STOP_POLL)),
            };
            // Round up, so a wake-up never comes just before the deadline.
            let wait_ms = left.map_or(-1, |left| {
                i32::try_from(left.as_micros().div_ceil(1000)).unwrap_or(i32::MAX)
            });
            let mut pollfd = libc::pollfd {
                fd: self.tty.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let ready = unsafe { libc::poll(&mut pollfd, 1, wait_ms) };
            if ready < 0 {
                let err = io::Error::last_os_error();
                if err.kind() == io::ErrorKind::Interrupted {
                    continue; // a resize is reported at the top of the loop
                }
                return Err(lost(&err));
            }
            if ready == 0 {
                continue;
            }
            if pollfd.revents & libc::POLLIN == 0 {
                return Err(lost(&io::Error::other("the terminal hung up")));
            }
            self.read_available()?;
            if let Some(key) = self.decode_pending()? {
                return Ok(Event::Key(key));
            }
        }
    }

    /// Whether keys already read wait to be handled (a paste): the frame
    /// is drawn once they are, not after each.
    pub fn has_pending_keys(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Reads what the terminal has (at least one byte, as poll said).
    fn read_available(&mut self) -> Result<usize, AskError> {
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
            if n > 0 {
                let n = n.unsigned_abs();
                self.pending.extend_from_slice(&buffer[..n]);
                return Ok(n);
            }
            let err = io::Error::last_os_error();
            if n < 0 && err.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(lost(&if n == 0 {
                io::Error::other("the terminal hung up")
            } else {
                err
            }));
        }
    }

    /// The first key in `pending`, waiting briefly for the rest of a cut
    /// sequence; `None` when nothing is pending.
    fn decode_pending(&mut self) -> Result<Option<Key>, AskError> {
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

    fn wait_readable(&self, wait: Duration) -> bool {
        let mut pollfd = libc::pollfd {
            fd: self.tty.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = i32::try_from(wait.as_millis()).unwrap_or(i32::MAX);
        // SAFETY: one valid pollfd.
        unsafe { libc::poll(&mut pollfd, 1, ms) > 0 && pollfd.revents & libc::POLLIN != 0 }
    }

    /// Replaces the frame on screen with `lines` (each narrower than the
    /// terminal). The cursor is left at the start of the last row, so that a
    /// terminal that reflows on a resize keeps it on that line's first row.
    pub fn draw(&mut self, lines: &[String]) -> Result<(), AskError> {
        let mut out = self.erase_sequence();
        out.push_str(&lines.join("\n"));
        out.push('\r');
        self.drawn = lines.iter().map(|line| visible_width(line)).collect();
        self.write(&out)
    }

    /// Removes the frame, leaving the cursor where it began.
    pub fn clear(&mut self) -> Result<(), AskError> {
        let out = self.erase_sequence();
        self.drawn.clear();
        self.write(&out)
    }

    /// Writes lines above the frame area that stay on screen (the title).
    pub fn print_static(&mut self, lines: &[String]) -> Result<(), AskError> {
        let mut out = self.erase_sequence();
        self.drawn.clear();
        for line in lines {
            out.push_str(line);
            out.push('\n');
        }
        self.write(&out)
    }

    /// Back to the frame's first row, then clear to the end of the screen.
    fn erase_sequence(&self) -> String {
        let (columns, _) = self.size();
        match rows_above_cursor(&self.drawn, columns) {
            0 => "\r\x1b[J".to_string(),
            up => format!("\x1b[{up}A\r\x1b[J"),
        }
    }

    fn write(&mut self, text: &str) -> Result<(), AskError> {
        self.tty
            .write_all(text.as_bytes())
            .and_then(|()| self.tty.flush())
            .map_err(|e| lost(&e))
    }
}

/// How many rows above the cursor (parked at the start of the last line)
/// the frame's first row is, now that the window is `columns` wide. Each
/// line was drawn narrower than the window it was drawn in; a terminal that
/// reflows on a resize wraps a line now wider than the window onto
/// `ceil(width / columns)` rows, so the count follows the old widths rather
/// than the number of lines. (A terminal that does not reflow cuts those
/// lines instead, and then this clears a few rows above the frame too: a
/// clean screen either way, never a leftover copy of the frame.)
pub fn rows_above_cursor(widths: &[usize], columns: usize) -> usize {
    let columns = columns.max(1);
    let Some((_, above)) = widths.split_last() else {
        return 0;
    };
    above.iter().map(|&w| w.div_ceil(columns).max(1)).sum()
}

/// The columns a frame line takes, without its SGR sequences.
fn visible_width(line: &str) -> usize {
    let mut plain = String::with_capacity(line.len());
    let mut in_sgr = false;
    for c in line.chars() {
        match (in_sgr, c) {
            (false, '\x1b') => in_sgr = true,
            (true, 'm') => in_sgr = false,
            (true, _) => {}
            (false, c) => plain.push(c),
        }
    }
    text_width(&plain)
}

impl Drop for Terminal {
    fn drop(&mut self) {
        match self.mode {
            Mode::Untouched => return,
            Mode::Raw => {
                let _ = self.write(SHOW_CURSOR);
                RAW.store(false, Ordering::SeqCst);
            }
            Mode::Lines => {}
        }
        // SAFETY: fd still open; `saved` came from tcgetattr.
        unsafe { libc::tcsetattr(self.tty.as_raw_fd(), libc::TCSADRAIN, &self.saved) };
    }
}

fn no_tty(why: &str) -> AskError {
    AskError::NoTty(Detail::new(format!(
        "ask needs a terminal to ask on, and there is none: {why}; run it in a terminal, or pass one --reply per question"
    )))
}

fn lost(err: &io::Error) -> AskError {
    AskError::NoTty(Detail::new(format!(
        "the terminal went away while asking ({err}); run ask again in a terminal, or pass one --reply per question"
    )))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_above_count_each_old_row_as_it_wraps_at_the_new_width() {
        assert_eq!(rows_above_cursor(&[], 80), 0);
        assert_eq!(rows_above_cursor(&[70], 40), 0, "the cursor's own row");
        assert_eq!(rows_above_cursor(&[10, 0, 79, 5], 80), 3);
        // 79 → 2 rows, 40 → 1, 41 → 2, 0 → 1 at 40 columns.
        assert_eq!(rows_above_cursor(&[79, 40, 41, 0, 99], 40), 6);
        assert_eq!(
            rows_above_cursor(&[5, 5], 0),
            5,
            "a zero width counts as one"
        );
    }

    #[test]
    fn visible_width_skips_styles() {
        assert_eq!(visible_width("\x1b[1;36m❯ \x1b[0mab文"), 6);
        assert_eq!(visible_width("plain"), 5);
    }
}
