//! `ask_user hook HOST` (DESIGN §16): a host's own ask tool, answered
//! through ask_user while the person is away.
//!
//! The host runs this command as a hook with its event on stdin. While the
//! person is away (`ask_user away on`) and an inbox runs, the question is
//! asked in the inbox and the person's answer goes back in the host's own
//! shape; a timeout or cancel goes back as the host's "no answer" form, never
//! as an option. At the keyboard the hook steps aside: nothing on stdout,
//! exit 0, and the host's own UI asks.
//!
//! A host is one [`Host`] arm and one [`Mapper`]: two functions without I/O,
//! from the host's event to ask_user's tool input, and from the outcome to
//! the host's hook output.

pub mod claude;
pub mod codex;
pub mod gemini;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;

use crate::answer::AnswerDocument;
use crate::error::AskError;
use crate::inbox::asker::{self, AskerOptions, Target};
use crate::inbox::hub::Leaving;
use crate::inbox::metrics::AskingFace;
use crate::inbox::state::Lookup;
use crate::input::Object;
use crate::model::Prompt;
use ask_user_platform::signals::{self, Stop};

/// The hosts whose hooks this command answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Host {
    /// Claude Code: `PreToolUse` on `AskUserQuestion`, and `Elicitation`.
    ClaudeCode,
    /// Gemini CLI: `BeforeTool` on its `ask_user`.
    Gemini,
    /// Codex: `PreToolUse` on its `request_user_input`.
    Codex,
}

impl Host {
    /// The host's name as the inbox shows it (the question's source).
    pub fn source_name(self) -> &'static str {
        match self {
            Host::ClaudeCode => "Claude Code (hook)",
            Host::Gemini => "Gemini CLI (hook)",
            Host::Codex => "Codex (hook)",
        }
    }

    /// The functions that read this host's events and write its outputs.
    pub fn mapper(self) -> &'static Mapper {
        match self {
            Host::ClaudeCode => &claude::MAPPER,
            Host::Gemini => &gemini::MAPPER,
            Host::Codex => &codex::MAPPER,
        }
    }

    /// The exit code the host reads as an error that does not block: it
    /// shows the line on stderr and goes on with its own UI. Claude Code
    /// 2.1.330, measured: 1 (2 would block the tool and hand stderr to the
    /// model). Codex 0.169.0, measured: 1 too ("PreToolUse Failed", its own
    /// UI asks). Gemini CLI 0.61.0 reads any code but 0 and 2 as a warning
    /// and goes on (its hook runner's code); 2 would block there too.
    pub fn unfit_exit_code(self) -> i32 {
        match self {
            Host::ClaudeCode | Host::Gemini | Host::Codex => 1,
        }
    }
}

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

impl NoAnswer {
    fn of(document: &AnswerDocument) -> NoAnswer {
        if document.reason.as_deref() == Some("declined") {
            NoAnswer::Declined
        } else if document.timed_out {
            NoAnswer::TimedOut
        } else {
            NoAnswer::Cancelled
        }
    }
}

/// Why the hook does not ask: one line for stderr; the host's own UI goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfit(pub String);

impl Unfit {
    fn input(err: &AskError) -> Unfit {
        let detail = err.detail();
        let at = detail
            .path
            .as_deref()
            .map(|path| format!(" (at {path})"))
            .unwrap_or_default();
        Unfit(format!(
            "the host's question is not one ask_user can ask: {}: {}{at}",
            err.code(),
            detail.message
        ))
    }
}

/// What a run of the hook ends in.
#[derive(Debug, Clone, PartialEq)]
pub enum Ran {
    /// The host's hook output, one JSON line for stdout.
    Replied(Value),
    /// Stepped aside (nothing on stdout, exit 0), with a line for stderr
    /// when there is something to say.
    SteppedAside(Option<String>),
    /// The input is not one the hook can answer: a line for stderr, and the
    /// host's non-blocking error code.
    Unfit(Unfit),
}

pub struct Options {
    pub host: Host,
    /// `--timeout`: how long the person has before the "no answer" form
    /// (`None`: the question's own timeout, else as long as the host waits).
    pub timeout: Option<Duration>,
}

/// Reads the host's event from `stdin` and answers it.
pub fn run(options: &Options, stdin: &[u8]) -> Ran {
    let mapper = options.host.mapper();
    let question = match read_event(stdin).and_then(|event| (mapper.read)(&event)) {
        Ok(question) => question,
        Err(unfit) => return Ran::Unfit(unfit),
    };
    let prompt = match crate::input::parse_object(&question.input) {
        Ok(prompt) => prompt,
        Err(err) => return Ran::Unfit(Unfit::input(&err)),
    };
    match crate::inbox::away::read() {
        Ok(state) if state.away => {}
        Ok(_) => return Ran::SteppedAside(None),
        Err(err) => {
            return Ran::SteppedAside(Some(format!(
                "the host asks itself: the away state cannot be read ({err})"
            )));
        }
    }
    let lookup = Lookup::from_env();
    if let Err(missing) = lookup.discover() {
        return Ran::SteppedAside(Some(format!(
            "away, but no inbox is running, so the host asks itself ({})",
            missing.message()
        )));
    }
    let document = match ask(options, lookup, &question, &prompt) {
        Ok(document) => document,
        Err(err) => {
            return Ran::Unfit(Unfit(format!(
                "the inbox could not ask the question: {}: {}",
                err.code(),
                err.detail().message
            )));
        }
    };
    let outcome = if document.answered {
        Outcome::Answered(&document, &prompt)
    } else {
        Outcome::NoAnswer(NoAnswer::of(&document))
    };
    match (mapper.reply)(&question, &outcome) {
        Some(output) => Ran::Replied(output),
        None => Ran::SteppedAside(None),
    }
}

/// The hook's stdin: one JSON object.
fn read_event(stdin: &[u8]) -> Result<Value, Unfit> {
    let text = stdin.trim_ascii();
    if text.is_empty() {
        return Err(Unfit(
            "the hook's input is empty: the host sends its event as one JSON object on stdin"
                .into(),
        ));
    }
    match serde_json::from_slice::<Value>(text) {
        Ok(event @ Value::Object(_)) => Ok(event),
        Ok(other) => Err(Unfit(format!(
            "the hook's input must be a JSON object (the host's event), not {}",
            crate::input::json_type(&other)
        ))),
        Err(err) => Err(Unfit(format!(
            "the hook's input is not JSON ({err}): the host sends its event as one JSON object on stdin"
        ))),
    }
}

/// Asks in the inbox as `ask --ui inbox` does, and waits for the outcome.
fn ask(
    options: &Options,
    lookup: Lookup,
    question: &HookQuestion,
    prompt: &Prompt,
) -> Result<AnswerDocument, AskError> {
    let mut source = asker::local_source(Some(options.host.source_name().into()));
    if let Some(cwd) = question.event.get("cwd").and_then(Value::as_str) {
        source.cwd = Some(cwd.to_string());
    }
    let timeout = crate::tty::form_timeout(options.timeout, prompt);
    // The host ending the hook (its own hook timeout) sends SIGTERM: the
    // inbox keeps the question, as for any asker that goes away.
    let interrupt = ask_user_platform::signals::interrupt_on_signals(crate::exit::CANCELLED);
    let away = Arc::new(AtomicBool::new(false));
    for stop in [Stop::Terminate, Stop::HangUp] {
        signals::set_flag_on(stop, &away);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            AskError::InternalError(crate::error::Detail::new(format!("no async runtime ({e})")))
        })?;
    let asked = asker::ask(
        Target::Ask(question.input.clone()),
        AskerOptions {
            lookup,
            source,
            timeout,
            face: AskingFace::Ask,
        },
        async move {
            asker::flag_set(interrupt).await;
            if away.load(Ordering::SeqCst) {
                Leaving::Away
            } else {
                Leaving::Cancelled
            }
        },
        |id, endpoint| {
            eprintln!(
                "ask_user hook: asked in the inbox ({}/), question {id}; waiting for the answer",
                endpoint.base
            );
        },
    );
    runtime.block_on(asked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_non_json_and_non_object_stdin_are_unfit_with_a_reason() {
        let Err(Unfit(empty)) = read_event(b"  \n") else {
            panic!()
        };
        assert!(empty.contains("input is empty"), "{empty}");
        let Err(Unfit(broken)) = read_event(b"{nope") else {
            panic!()
        };
        assert!(broken.contains("not JSON"), "{broken}");
        let Err(Unfit(list)) = read_event(b"[1]") else {
            panic!()
        };
        assert!(list.contains("not an array"), "{list}");
    }

    #[test]
    fn a_declined_document_is_declined_and_a_timeout_timed_out() {
        use crate::answer::Unanswered;
        let of = |how| NoAnswer::of(&AnswerDocument::unanswered(how));
        assert_eq!(of(Unanswered::Declined), NoAnswer::Declined);
        assert_eq!(of(Unanswered::TimedOut), NoAnswer::TimedOut);
        assert_eq!(of(Unanswered::Cancelled), NoAnswer::Cancelled);
    }
}
