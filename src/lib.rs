//! ask_user: lets an AI agent ask a person a structured question and get
//! strict JSON back. Data flows one way: bytes → [`input`] → [`model`] →
//! documents ([`prompt`], [`answer`], [`error`]).
//!
//! The contract (those modules, with [`describe`], [`schema`], [`markdown`],
//! [`sanitize`] and [`text`]) is the `ask_user_core` crate (crates/core),
//! re-exported here under the same names; this crate is the faces built on
//! it (ARCHITECTURE.md).

pub use ask_user_core::{
    DOC_VERSION, TOOL_NAME, answer, describe, document_line, error, execute, exit, input, markdown,
    model, prompt, sanitize, schema, submission, text,
};

/// The inbox (crates/inbox), under the name the faces use.
pub use ask_user_inbox as inbox;

pub mod ask;
pub mod check;
pub mod hook;
pub mod mcp;
pub mod setup;
pub mod tty;
pub mod web;

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use crate::error::{AskError, Detail};

/// What `execute` prints for these bytes (one JSON line, no newline) and its exit code.
pub fn execute_line(bytes: &[u8]) -> (String, i32) {
    match execute(bytes) {
        Ok(document) => (document_line(&document), exit::OK),
        Err(err) => (document_line(&err.document()), exit::ERROR),
    }
}

/// Reads a tool input from a file, or from stdin for `None` and `-`.
pub fn read_source(file: Option<&Path>) -> Result<Vec<u8>, AskError> {
    match file {
        None => read_stdin(),
        Some(path) if path.as_os_str() == "-" => read_stdin(),
        Some(path) => {
            let file = std::fs::File::open(path).map_err(|e| read_error(path, &e))?;
            input::read_limited(file).map_err(|err| match err {
                AskError::ReadError(_) => read_error(path, &io::Error::other("read failed")),
                other => other,
            })
        }
    }
}

fn read_stdin() -> Result<Vec<u8>, AskError> {
    input::read_limited(io::stdin().lock())
}

fn read_error(path: &Path, err: &io::Error) -> AskError {
    let reason = match err.kind() {
        io::ErrorKind::NotFound => "it does not exist".to_string(),
        // Windows: opening a folder as a file is "access denied".
        _ if ask_user_platform::files::is_a_directory(err, path) => "it is a directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission was denied".to_string(),
        _ if path.is_dir() => "it is a directory".to_string(),
        _ => err.to_string(),
    };
    AskError::ReadError(Detail::at(
        format!(
            "cannot read {}: {reason}; pass a readable JSON file or - for stdin",
            path.display()
        ),
        path.display().to_string(),
    ))
}

/// Writes one document and a newline to stdout in one write. A closed stdout
/// (`| head`) is not an error worth reporting: the reader has gone.
pub fn print_document<T: Serialize>(document: &T) {
    print_line(&document_line(document));
}

/// Writes one line to stdout in one write; a closed stdout is ignored.
pub fn print_line(line: &str) {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    let mut out = io::stdout().lock();
    let _ = out.write_all(&bytes).and_then(|()| out.flush());
}

/// Set while stdout carries a protocol (MCP): a stray document there would
/// corrupt the stream, so the panic hook then writes to stderr only.
static STDOUT_IS_PROTOCOL: AtomicBool = AtomicBool::new(false);

/// Marks stdout as a protocol stream for the rest of the run.
pub fn set_stdout_is_protocol() {
    STDOUT_IS_PROTOCOL.store(true, Ordering::SeqCst);
}

/// Makes any panic print INTERNAL_ERROR on stdout and exit 1 (DESIGN §5);
/// in protocol mode the document goes to stderr instead.
pub fn install_panic_handler() {
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".into());
        let err = AskError::InternalError(Detail::new(format!(
            "ask_user failed unexpectedly ({what}); this is a bug, please report it with the input"
        )));
        if STDOUT_IS_PROTOCOL.load(Ordering::SeqCst) {
            let _ = writeln!(io::stderr(), "{}", document_line(&err.document()));
        } else {
            print_document(&err.document());
        }
        let _ = writeln!(io::stderr(), "ask_user: internal error: {what}");
        std::process::exit(exit::ERROR);
    }));
}
