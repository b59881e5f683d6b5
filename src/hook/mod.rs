//! `ask_user hook HOST` (DESIGN §16). In branch wt-i this file holds only
//! the mapper types of the shared contract (/work/notes/hook-contract.md,
//! wt-g's design), so that the Gemini CLI and Codex mappers build and test
//! here; wt-g's src/hook/mod.rs (the road: away, inbox, ask, print) replaces
//! it at the merge, keeping the `mod` lines below.

pub mod codex;
pub mod gemini;

use serde_json::Value;

use crate::answer::AnswerDocument;
use crate::input::Object;
use crate::model::Prompt;

/// A host's two mapping functions (no I/O: unit-testable).
pub struct Mapper {
    /// The hook's stdin (parsed JSON) → what to ask, or why the hook does not.
    pub read: fn(&Value) -> Result<HookQuestion, Unfit>,
    /// The outcome → the host's hook output (`None`: print nothing).
    pub reply: fn(&HookQuestion, &Outcome) -> Option<Value>,
}

/// A host's question, as ask_user asks it.
#[derive(Debug, Clone, PartialEq)]
pub struct HookQuestion {
    /// ask_user's own tool input (DESIGN §2): what the inbox is given.
    pub input: Object,
    /// The hook's stdin as the host sent it (to echo what it needs back).
    pub event: Value,
}

/// How the person's side ended.
#[derive(Debug, Clone, Copy)]
pub enum Outcome<'a> {
    /// The person answered: the document and the prompt it answers.
    Answered(&'a AnswerDocument, &'a Prompt),
    /// Nobody answered; never an option.
    NoAnswer(NoAnswer),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoAnswer {
    TimedOut,
    Cancelled,
    /// The person declined the form.
    Declined,
}

/// Why the hook does not ask: one line for stderr; the host's own UI goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfit(pub String);
