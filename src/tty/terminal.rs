//! The controlling terminal, as the form uses it: opened apart from stdin
//! and stdout (so stdin can carry the JSON and stdout the answer), held in
//! raw mode for the whole form, read one key at a time with a deadline, and
//! restored on every way out. The system's side of each of these is in
//! [`super::sys`] (termios and `poll` on Unix, the console on Windows); the
//! deadline, the stop flag and the drawing are here, the same for both.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use console::Key;

use super::render::text_width;
use super::sys::{self, Console, HIDE_CURSOR, SHOW_CURSOR, lost};
use crate::error::{AskError, Detail};

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
    console: Console,
    mode: Mode,
    /// The display width of each line of the frame on screen, which the
    /// next frame replaces.
    drawn: Vec<usize>,
    /// Set by another thread to end the wait (an MCP client cancelled the call).
    stop: Option<Arc<AtomicBool>>,
}

impl Terminal {
    /// Opens the terminal (`/dev/tty`; on Windows the console, `CONIN$` and
    /// `CONOUT$`). Fails at once, before anything is drawn, when the process
    /// has none.
    pub fn open() -> Result<Self, AskError> {
        let console = Console::open().map_err(|why| no_tty(&why))?;
        Ok(Terminal {
            console,
            mode: Mode::Untouched,
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
        self.mode = Mode::Raw;
        self.console.enter_raw().map_err(|why| no_tty(&why))?;
        self.write(HIDE_CURSOR)
    }

    /// Canonical mode, echo and signals (the terminal's own line editing,
    /// which screen readers follow), until this value is dropped. Usually
    /// the terminal is like that already and nothing changes. Nothing is
    /// written: plain mode never sends an escape sequence.
    pub fn enter_lines(&mut self) -> Result<(), AskError> {
        self.mode = Mode::Lines;
        self.console.enter_lines().map_err(|why| no_tty(&why))
    }

    /// Where plain mode reads lines from this terminal (in line mode).
    pub fn line_input(&self) -> Result<sys::LineInput, AskError> {
        sys::LineInput::terminal(&self.console)
    }

    /// `ask --bell`: the alert for `prompt` ([`super::bell`]).
    pub fn ring(&mut self, prompt: &crate::model::Prompt) -> Result<(), AskError> {
        self.write(&super::bell::alert(prompt))
    }

    /// A second handle for writing plain text.
    pub fn writer(&self) -> Result<Box<dyn io::Write>, AskError> {
        self.console.writer().map_err(|e| lost(&e))
    }

    /// Drops what was typed and not read yet, so a half-typed line does not
    /// reach the shell after a cancel or a timeout.
    pub fn discard_input(&mut self) {
        self.console.discard_input();
    }

    /// Columns and rows, with a sane fallback when the size is unknown.
    pub fn size(&self) -> (usize, usize) {
        self.console.size().unwrap_or((80, 24))
    }

    /// Waits for one key until `deadline` (forever without one).
    pub fn next_event(&mut self, deadline: Option<Instant>) -> Result<Event, AskError> {
        if let Some(key) = self.console.pending_key().map_err(|e| lost(&e))? {
            return Ok(Event::Key(key));
        }
        loop {
            if self.console.take_resized() {
                return Ok(Event::Resized);
            }
            // A console control event (Windows: Ctrl-Break, the console
            // closing) ends the form as the stop flag does.
            if self.console.interrupted()
                || self
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
            if let Some(key) = self.console.wait_key(left).map_err(|e| lost(&e))? {
                return Ok(Event::Key(key));
            }
        }
    }

    /// Whether keys already read wait to be handled (a paste): the frame
    /// is drawn once they are, not after each.
    pub fn has_pending_keys(&self) -> bool {
        self.console.has_pending_keys()
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
        self.console.write(text).map_err(|e| lost(&e))
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
            }
            Mode::Lines => {}
        }
        self.console.restore();
    }
}

fn no_tty(why: &str) -> AskError {
    AskError::NoTty(Detail::new(format!(
        "ask needs a terminal to ask on, and there is none: {why}; run it in a terminal, or pass one --reply per question"
    )))
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
