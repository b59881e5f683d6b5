//! What the person sees, checked on a screen: the full UI run in a real
//! pseudo-terminal, its raw bytes replayed into a terminal emulator (pyte,
//! tests/tty/screen.py). Multi-line text and Other, the trail of answered
//! questions in a short window, and a window narrowed from 80 to 40 columns
//! on terminals that reflow their lines and on ones that cut them.
//!
//! Without pyte or tmux a test counts as ignored (tests/common/harness.rs),
//! and fails under CI.

// Unix only: a pseudo-terminal through rexpect (a Unix-only dev-dependency), read as a
// screen; Windows' console is driven by tests/cross/tty_wine.py. A harness = false file
// cannot be emptied by a crate-level #![cfg(unix)] (it would have no main), so the tests
// live in tests/unix/tty_screen.rs and elsewhere this binary runs none.
#[cfg(unix)]
mod common;
#[cfg(unix)]
include!("unix/tty_screen.rs");
#[cfg(not(unix))]
fn main() {}
