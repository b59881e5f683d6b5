//! Asking a person on the face the caller chose (`ask --ui`, and
//! `ASK_USER_UI` for the toolbox's execute): the terminal (full screen or
//! plain lines), the answer page, the inbox, or auto (the inbox when one
//! runs, else the terminal).

use ask_user_platform::signals::interrupt_on_signals;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::answer::AnswerDocument;
use crate::error::{AskError, Detail};
use crate::inbox::asker::{self, AskerOptions, Target};
use crate::inbox::hub::Leaving;
use crate::inbox::metrics::AskingFace;
use crate::inbox::state::Lookup;
use crate::input::Request;
use crate::tty::{LineChannel, Terminal, ask_plain, form_timeout};
use crate::web::{WebOptions, ask_on_web};
use ask_user_platform::signals::{self, Stop};

/// Where a person is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Ui {
    /// The terminal (/dev/tty), full screen.
    Tty,
    /// The terminal as plain lines (screen readers, dumb terminals, pipes).
    Plain,
    /// A page of its own on 127.0.0.1 (`ask --ui web`).
    Web,
    /// The running inbox (`ask_user inbox`); NO_INBOX when none runs.
    Inbox,
    /// The inbox when one runs, else the terminal, else NO_TTY.
    Auto,
}

pub struct AskOptions {
    pub ui: Ui,
    /// `--port` of the answer page.
    pub port: Option<u16>,
    /// `--open` the answer page.
    pub open: bool,
    /// `--timeout`: overrides the input's; zero waits forever.
    pub timeout: Option<Duration>,
    /// Whether the input comes on stdin (then `plain` cannot read the
    /// person's replies there).
    pub input_from_stdin: bool,
    /// Who asks: `ask` or the toolbox's execute (the inbox counts by it).
    pub face: AskingFace,
    /// `--bell`: ring the terminal (and a desktop notification) when the
    /// question is shown there.
    pub bell: bool,
}

/// Asks on the chosen face and returns the answer document. The input is
/// read (by `read`) only once the face is there: without a terminal, `--ui
/// tty` says NO_TTY before stdin is touched.
pub fn ask(
    options: &AskOptions,
    read: impl FnOnce() -> Result<Vec<u8>, AskError>,
) -> Result<AnswerDocument, AskError> {
    let read_request = || read().and_then(|bytes| crate::input::parse_request(&bytes));
    match options.ui {
        Ui::Tty => {
            let terminal = Terminal::open()?;
            ask_on_tty(terminal, read_request()?, options)
        }
        // Without a terminal, stdin and stderr when stdin is free (a pipe pair).
        Ui::Plain => {
            let mut channel = LineChannel::open(options.input_from_stdin)?;
            let prompt = needs_no_inbox(read_request()?)?;
            if options.bell {
                channel.ring()?;
            }
            let timeout = form_timeout(options.timeout, &prompt);
            ask_plain(channel, &prompt, timeout)
        }
        Ui::Web => {
            let prompt = needs_no_inbox(read_request()?)?;
            let web = WebOptions {
                port: options.port,
                open_browser: options.open,
                timeout: form_timeout(options.timeout, &prompt),
                interrupt: Some(interrupt_on_signals(crate::exit::CANCELLED)),
            };
            ask_on_web(&prompt, web).map(|outcome| outcome.document)
        }
        Ui::Inbox => ask_in_inbox(Lookup::from_env(), read_request()?, options),
        Ui::Auto => {
            let lookup = Lookup::from_env();
            if lookup.discover().is_ok() {
                return ask_in_inbox(lookup, read_request()?, options);
            }
            let terminal = Terminal::open().map_err(|_| {
                AskError::NoTty(Detail::new(
                    "no inbox is running and there is no terminal to ask on; start `ask_user inbox`, or run ask_user in a terminal",
                ))
            })?;
            ask_on_tty(terminal, read_request()?, options)
        }
    }
}

fn ask_on_tty(
    mut terminal: Terminal,
    request: Request,
    options: &AskOptions,
) -> Result<AnswerDocument, AskError> {
    let prompt = needs_no_inbox(request)?;
    if options.bell {
        terminal.ring(&prompt)?;
    }
    let timeout = form_timeout(options.timeout, &prompt);
    crate::tty::ask(terminal, &prompt, timeout)
}

/// A resume is answered by the inbox alone (only it keeps questions).
fn needs_no_inbox(request: Request) -> Result<crate::model::Prompt, AskError> {
    match request {
        Request::Ask { prompt, .. } => Ok(prompt),
        Request::Resume(_) => Err(AskError::InvalidInput(Detail::at(
            "resume is answered by the inbox, which keeps the questions: ask with --ui inbox or --ui auto (ASK_USER_UI=inbox for execute)",
            "resume",
        ))),
    }
}

fn ask_in_inbox(
    lookup: Lookup,
    request: Request,
    options: &AskOptions,
) -> Result<AnswerDocument, AskError> {
    let (target, timeout) = match request {
        Request::Ask { prompt, input } => {
            (Target::Ask(input), form_timeout(options.timeout, &prompt))
        }
        Request::Resume(id) => (
            Target::Resume(id),
            options.timeout.filter(|limit| !limit.is_zero()),
        ),
    };
    let interrupt = interrupt_on_signals(crate::exit::CANCELLED);
    let away = Arc::new(AtomicBool::new(false));
    for stop in [Stop::Terminate, Stop::HangUp] {
        signals::set_flag_on(stop, &away);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| AskError::InternalError(Detail::new(format!("no async runtime ({e})"))))?;
    let asked = asker::ask(
        target,
        AskerOptions {
            lookup,
            source: asker::local_source(None),
            timeout,
            face: options.face,
        },
        async move {
            asker::flag_set(interrupt).await;
            // SIGTERM or SIGHUP (Windows: Ctrl-Break, the console closing): a
            // host ending the call (its tool timeout), not a person
            // cancelling; the inbox keeps the question.
            if away.load(Ordering::SeqCst) {
                Leaving::Away
            } else {
                Leaving::Cancelled
            }
        },
        |id, endpoint| {
            eprintln!(
                "ask_user: asked in the inbox ({}/), question {id}; waiting for the answer",
                endpoint.base
            );
        },
    );
    runtime.block_on(asked)
}
