//! `ask_user setup` through the binary, for every host, with HOME,
//! XDG_CONFIG_HOME and CODEX_HOME in a temporary folder: created from
//! nothing; merged into a file that holds another server and comments (both
//! kept); a second run byte-identical; the backup; --dry-run writes nothing;
//! a malformed file left untouched; --remove keeps the other server; --list
//! tells the truth before and after. Then every error path, with its code,
//! message and exit code. The hosts' own CLIs read the files in
//! tests/setup_hosts.rs; the terminal picker runs in tests/setup_pty.rs.

// Unix only: the Unix config folders (HOME, XDG_CONFIG_HOME, CODEX_HOME), file modes,
// setuid/setsid; on Windows setup writes under %APPDATA% and %USERPROFILE%
// (tests/cross/setup-windows.sh drives that under wine). A harness = false file cannot be
// emptied by a crate-level #![cfg(unix)] (it would have no main), so the tests live in
// tests/unix/setup.rs and elsewhere this binary runs none.
#[cfg(unix)]
mod common;
#[cfg(unix)]
include!("unix/setup.rs");
#[cfg(not(unix))]
fn main() {}
