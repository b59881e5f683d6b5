//! The terminal as the operating system gives it, behind one API with a
//! Unix half ([`unix`]: `/dev/tty`, termios, `poll`, signals) and a Windows
//! half (`windows`: the console through crossterm and the console API).
//! Everything above this module (the form loop, drawing, plain mode's line
//! rules) is the same on both.
//!
//! Each half gives:
//! - [`Console`]: the open terminal. `open` (an error text when there is
//!   none), `enter_raw` / `enter_lines` / `restore`, `size`, `write`,
//!   `writer`, `discard_input`, and the key reading: `pending_key` (a key
//!   already read, as from a paste), `has_pending_keys`, `wait_key` (waits
//!   up to a time for one key), `take_resized` and `interrupted`;
//! - [`LineInput`]: what plain mode reads lines from (the terminal in line
//!   mode, or stdin), with `wait`, which also reports the ways a person or
//!   another program ends the run (Ctrl-C, end of input).
//!
//! [`lost`] is the one error for a terminal that fails mid-question: it is
//! here, below the form and plain mode that say it too, because the Windows
//! half says it as well.

use crate::error::{AskError, Detail};

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{Console, LineInput};

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{Console, LineInput};

/// What waiting for more plain-mode input gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunk {
    /// Bytes were added to the caller's buffer.
    Data,
    /// End of input (Ctrl-D on Unix, Ctrl-Z on Windows, or the pipe closed).
    Ended,
    /// Ctrl-C, or a signal or console event that ends the run.
    Interrupted,
    /// Nothing yet: the wait ran out or was interrupted harmlessly.
    Nothing,
}

/// The cursor's visibility, written around raw mode on both systems (a
/// Windows 10+ console interprets these once VT processing is on).
pub const SHOW_CURSOR: &str = "\x1b[?25h";
pub const HIDE_CURSOR: &str = "\x1b[?25l";

/// The error when the terminal fails in the middle of a form or a plain-mode
/// question.
pub fn lost(err: &std::io::Error) -> AskError {
    AskError::NoTty(Detail::new(format!(
        "the terminal went away while asking ({err}); run ask again in a terminal, or pass one --reply per question"
    )))
}
