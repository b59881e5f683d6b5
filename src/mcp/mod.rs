//! The MCP face (`ask_user mcp`): an MCP server over stdio with one tool,
//! `ask_user`, that asks the person through the client's own form
//! (elicitation) and falls back honestly when the client has none.
//!
//! Built on the official Rust SDK, rmcp, which speaks both protocol eras:
//! the `initialize` era (the server sends `elicitation/create` and waits) and
//! 2026-07-28 (the server returns an `InputRequiredResult` and the client
//! retries the call with the person's reply). [`wire`] sits between stdin and
//! rmcp so that malformed traffic always gets a JSON-RPC error.

mod app;
mod fallback;
mod form;
mod handover;
pub mod http;
mod inbox;
pub mod kept;
mod page;
mod progress;
mod result;
mod server;
mod url;
mod wire;

use std::time::Duration;

pub use fallback::ask_on_tty;

/// What `tools/call` does when the client cannot show a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Fallback {
    /// Return the prompt document: the model relays the question and ends its turn.
    Prompt,
    /// Ask on the terminal (/dev/tty) of the machine the server runs on.
    Tty,
    /// Ask on the local answer page (`ask --ui web`); its address goes to
    /// stderr, to the client as a log notice and in progress messages.
    Web,
    /// Return an error result (NO_ELICITATION) telling the model to ask in the chat.
    Error,
    /// Ask in the running inbox (`ask_user inbox`); NO_INBOX when none runs.
    Inbox,
    /// The inbox when one runs (found through inbox.json or ASK_USER_INBOX, as askers find it), else the
    /// answer page: what `setup` writes for hosts without forms.
    Auto,
}

#[derive(Debug, Clone)]
pub struct Options {
    /// The tool's name in `tools/list` and `tools/call` (`--tool-name`).
    pub tool_name: String,
    pub fallback: Fallback,
    /// Whether to ask through the client's forms at all. Some clients
    /// declare elicitation but never show the form (or decline it at once).
    pub elicitation: bool,
    /// How long to wait for the person when the input gives no `timeout`;
    /// `None` (`--timeout 0`): as long as the client keeps the call.
    pub default_timeout: Option<Duration>,
    /// `--wait`: how long one call waits for the person on the client's
    /// form, the page or in the inbox before it returns a pending document,
    /// the question staying answerable (`{"resume": id}`; a form goes on in
    /// the inbox or on the page: src/mcp/handover.rs); below the host's own
    /// tool-call timer. `None`: the call waits until the question's outcome.
    pub wait: Option<Duration>,
    /// `--fallback web`: the page's port (`None`: a free one).
    pub port: Option<u16>,
    /// `--fallback web`: open the page with the system's browser opener.
    pub open_browser: bool,
}

/// The wait when neither the input nor `--timeout` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

impl Default for Options {
    fn default() -> Self {
        Options {
            tool_name: crate::TOOL_NAME.to_string(),
            fallback: Fallback::Prompt,
            elicitation: true,
            default_timeout: Some(DEFAULT_TIMEOUT),
            wait: None,
            port: None,
            open_browser: false,
        }
    }
}

/// Serves MCP on stdin/stdout until stdin closes. stdout carries protocol
/// only: from here on a panic reports on stderr.
pub fn serve(options: Options) -> std::io::Result<()> {
    crate::set_stdout_is_protocol();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(wire::serve_stdio(server::AskUserServer::new(options)))
}

/// Diagnostics for people: stderr only, one line each.
fn log(message: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "ask_user mcp: {message}");
}
