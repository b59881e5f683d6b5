//! The ask_user contract: a question in any dialect an agent writes, in; one
//! strict JSON document, out.
//!
//! Data flows one way: bytes → [`input`] (the dialects, tolerant) →
//! [`model`] (the normalized [`model::Prompt`]) → documents: the prompt
//! document ([`prompt`]), the answer document ([`answer`]) and the error
//! document ([`error`]), each in its documented key order. [`describe`] and
//! [`schema`] say what a tool takes and gives; [`markdown`] and [`sanitize`]
//! make text from the input safe to show (as markdown, on a terminal).
//!
//! This crate does no I/O of its own beyond reading what a caller passes in:
//! no terminal, no network, no files, no threads. The `ask_user` binary is
//! its faces (terminal, pages, MCP, the inbox, hooks, setup).
//!
//! # Examples
//!
//! A question in the toolbox dialect becomes the prompt document a host shows:
//!
//! ```
//! let input = br#"{"question": "Which database?", "options": ["PostgreSQL", "SQLite"]}"#;
//! let document = ask_user_core::execute(input).unwrap();
//! let line = ask_user_core::document_line(&document);
//! assert!(line.starts_with(r#"{"tool":"ask_user","version":1,"status":"ok","prompt":{"question":"Which database?""#));
//! assert!(line.contains(r#""answer_format":{"type":"integer","min":1,"max":2}"#));
//! ```
//!
//! A reply, parsed as `ask_user answer --reply` parses it, becomes the answer
//! document:
//!
//! ```
//! use ask_user_core::answer::resolve_replies;
//!
//! let prompt = ask_user_core::input::parse(br#"{"question": "Which?", "options": ["a", "b"]}"#).unwrap();
//! let document = resolve_replies(&prompt, &["2".to_string()], &[]).unwrap();
//! assert_eq!(
//!     ask_user_core::document_line(&document),
//!     r#"{"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,"timedOut":false,"answers":[{"questionId":"q1","values":["b"],"optionIds":["2"]}]}"#
//! );
//! ```
//!
//! Bad input is a coded error whose document says what to change:
//!
//! ```
//! let err = ask_user_core::execute(br#"{"question": "Which?", "options": ["only one"]}"#).unwrap_err();
//! assert_eq!(err.code(), "INVALID_OPTIONS");
//! assert_eq!(
//!     ask_user_core::document_line(&err.document()),
//!     r#"{"tool":"ask_user","version":1,"status":"error","error":{"code":"INVALID_OPTIONS","message":"options must have at least 2 items","path":"options"}}"#
//! );
//! ```

pub mod answer;
pub mod describe;
pub mod error;
pub mod input;
pub mod markdown;
pub mod model;
pub mod prompt;
pub mod sanitize;
pub mod schema;
pub mod submission;
pub mod text;

use serde::Serialize;

use crate::error::{AskError, Detail};
use crate::prompt::PromptDocument;

/// Exit codes (DESIGN §5): what every face of the binary ends with.
pub mod exit {
    pub const OK: i32 = 0;
    pub const ERROR: i32 = 1;
    pub const USAGE: i32 = 2;
    pub const TIMED_OUT: i32 = 124;
    pub const CANCELLED: i32 = 130;
}

/// The `tool` of every document.
pub const TOOL_NAME: &str = "ask_user";
/// The `version` of every document.
pub const DOC_VERSION: u32 = 1;

/// The toolbox `execute` face and `prompt`: tool input bytes → prompt document.
pub fn execute(bytes: &[u8]) -> Result<PromptDocument, AskError> {
    input::parse(bytes).map(|prompt| PromptDocument::new(&prompt))
}

/// One document as one line of JSON (no newline). A document that cannot be
/// written becomes an INTERNAL_ERROR document: the caller always has a line.
pub fn document_line<T: Serialize>(document: &T) -> String {
    match serde_json::to_string(document) {
        Ok(line) => line,
        Err(e) => serde_json::to_string(
            &AskError::InternalError(Detail::new(format!("a document could not be written: {e}")))
                .document(),
        )
        .unwrap_or_default(),
    }
}
