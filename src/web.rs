//! The web face (`ask --ui web`): one self-contained page, served on the
//! hardened server ([`ask_user_server`]: 127.0.0.1 only, behind a random token)
//! until the person answers, cancels, the time runs out or the process is
//! interrupted.
//!
//! The page is static HTML/CSS/JS (`web/page.html`); it fetches the questions
//! as JSON and inserts every piece of user text with `textContent`. Answers
//! come back as structured choices and are validated here ([`submission`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use http::Method;
use serde::Serialize;
use tokio::sync::watch;

use crate::answer::{AnswerDocument, Unanswered};
use crate::error::{AskError, Detail};
use crate::model::Prompt;

use crate::prompt::PromptItem;
use ask_user_server::{App, BindError, Limits, Reply, Request, Server, response};

use crate::submission::{self, Submission};

/// The answer page, with the shared form widgets in place.
static PAGE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    include_str!("web/page.html")
        .replace("/*__FORM_CSS__*/", ask_user_server::form::CSS)
        .replace("/*__FORM_JS__*/", ask_user_server::form::JS)
});
/// Stands for the per-response CSP nonce in [`PAGE`].
const NONCE_SLOT: &str = "__NONCE__";
/// How often the wait looks at the interrupt flag.
const POLL: Duration = Duration::from_millis(100);
/// After the outcome, requests already on their way are answered (409) for
/// this long before the port closes, so a second submission learns it lost.
const LINGER: Duration = Duration::from_millis(100);

pub struct WebOptions {
    /// Port on 127.0.0.1; `None` or `Some(0)` picks a free one.
    pub port: Option<u16>,
    /// Open the page with the system's opener (xdg-open, open), if there is one.
    pub open_browser: bool,
    /// The time limit, already resolved against the prompt's own `timeout`
    /// (see `tty::form_timeout`); `None` waits forever.
    pub timeout: Option<Duration>,
    /// When set (by a signal handler), the form ends cancelled.
    pub interrupt: Option<Arc<AtomicBool>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Answered,
    Cancelled,
    /// The person declined on a page that offers it ([`WebSession::with_decline`]).
    Declined,
    TimedOut,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebOutcome {
    pub ending: Ending,
    pub document: AnswerDocument,
}

impl WebOutcome {
    fn unanswered(ending: Ending) -> Self {
        let how = match ending {
            Ending::TimedOut => Unanswered::TimedOut,
            Ending::Declined => Unanswered::Declined,
            _ => Unanswered::Cancelled,
        };
        WebOutcome {
            ending,
            document: AnswerDocument::unanswered(how),
        }
    }
}

/// Asks on the page: prints its URL to stderr, opens it if asked, and waits
/// on a small runtime of its own.
pub fn ask_on_web(prompt: &Prompt, options: WebOptions) -> Result<WebOutcome, AskError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| web_error(format!("the answer page cannot start ({e})")))?;
    let session = WebSession::start(prompt, &options)?;
    let url = session.url();
    eprintln!("ask_user: answer in your browser: {url}");
    if options.open_browser {
        ask_user_platform::paths::open_in_browser(&url);
    }
    runtime.block_on(session.run())
}

/// A bound answer page. The port is closed when [`WebSession::run`] returns
/// or its future is dropped.
pub struct WebSession {
    server: Server,
    page: Arc<AnswerPage>,
    interrupt: Option<Arc<AtomicBool>>,
}

impl WebSession {
    /// Binds 127.0.0.1 and makes the token; nothing is served until [`run`](Self::run).
    pub fn start(prompt: &Prompt, options: &WebOptions) -> Result<Self, AskError> {
        let port = options.port.unwrap_or(0);
        let server = Server::bind(port, Limits::default()).map_err(|e| match e {
            BindError::Listen(e) => web_error(format!(
                "the answer page cannot listen on 127.0.0.1:{port} ({e}); pass another --port or leave it out"
            )),
            BindError::Random(e) => web_error(format!(
                "the system random source failed ({e}); no token could be made"
            )),
        })?;
        let (outcome, _) = watch::channel(None);
        let page = AnswerPage {
            prompt: prompt.clone(),
            view: prompt
                .questions
                .iter()
                .map(|q| PromptItem::new(q, true))
                .collect(),
            deadline: options.timeout.map(|t| Instant::now() + t),
            decline: false,
            outcome,
        };
        Ok(WebSession {
            server,
            page: Arc::new(page),
            interrupt: options.interrupt.clone(),
        })
    }

    pub fn port(&self) -> u16 {
        self.server.port()
    }

    /// Offers Decline beside Submit and Cancel (`POST /decline`): for a page
    /// an MCP client sent the person to (URL-mode elicitation), where
    /// declining is an answer of its own.
    pub fn with_decline(mut self) -> Self {
        if let Some(page) = Arc::get_mut(&mut self.page) {
            page.decline = true;
        }
        self
    }

    /// The page's address, token included.
    pub fn url(&self) -> String {
        format!(
            "http://127.0.0.1:{}/?token={}",
            self.server.port(),
            self.server.token()
        )
    }

    /// Serves until the outcome and [`LINGER`] after it, then closes the port.
    pub async fn run(self) -> Result<WebOutcome, AskError> {
        let WebSession {
            server,
            page,
            interrupt,
        } = self;
        let decided = {
            let page = Arc::clone(&page);
            async move {
                let outcome = page.wait(interrupt).await;
                // Requests already on their way learn that the form is closed.
                tokio::time::sleep(LINGER).await;
                outcome
            }
        };
        server
            .serve_until(page, decided)
            .await
            .map_err(|e| web_error(format!("the answer page failed ({e})")))
    }
}

/// The one-question page as an app on the server.
struct AnswerPage {
    prompt: Prompt,
    view: Vec<PromptItem>,
    deadline: Option<Instant>,
    /// Whether the page offers Decline (see [`WebSession::with_decline`]).
    decline: bool,
    /// The first outcome wins; it is set once and never replaced.
    outcome: watch::Sender<Option<WebOutcome>>,
}

impl App for AnswerPage {
    async fn respond(&self, request: Request) -> Reply {
        let route = (request.method().clone(), request.path());
        match route {
            (Method::GET, "/") => match response::nonce() {
                Ok(nonce) => Reply::page(PAGE.replace(NONCE_SLOT, &nonce), &nonce),
                Err(_) => Reply::text(500, "no randomness"),
            },
            // The token is single-use: once the form has ended it shows the
            // question no more (nor takes anything, see `post`).
            (Method::GET, "/form") => self
                .closed()
                .unwrap_or_else(|| Reply::json(200, &self.form_view())),
            (Method::POST, "/answer") => self.post(request, Post::Answer).await,
            (Method::POST, "/cancel") => self.post(request, Post::Cancel).await,
            (Method::POST, "/decline") if self.decline => self.post(request, Post::Decline).await,
            (_, "/" | "/form" | "/answer" | "/cancel") => Reply::text(405, "method not allowed"),
            (_, "/decline") if self.decline => Reply::text(405, "method not allowed"),
            _ => Reply::text(404, "not found"),
        }
    }
}

impl AnswerPage {
    fn form_view(&self) -> FormView<'_> {
        FormView {
            title: self.prompt.title.as_deref(),
            context: self.prompt.context.as_deref(),
            remaining_ms: self.deadline.map(|d| {
                let left = d.saturating_duration_since(Instant::now()).as_millis();
                u64::try_from(left).unwrap_or(u64::MAX)
            }),
            questions: &self.view,
            decline: self.decline,
        }
    }

    /// Reads a POST's body (within the server's limits), then decides: the
    /// first valid answer (or the cancel) ends the form; later ones get 409.
    async fn post(&self, request: Request, what: Post) -> Reply {
        let body = match request.body().await {
            Ok(body) => body,
            Err(refusal) => return refusal,
        };
        if let Some(closed) = self.closed() {
            return closed;
        }
        let outcome = match what {
            Post::Cancel => WebOutcome::unanswered(Ending::Cancelled),
            Post::Decline => WebOutcome::unanswered(Ending::Declined),
            Post::Answer => {
                let submission: Submission = match serde_json::from_slice(&body) {
                    Ok(submission) => submission,
                    Err(e) => {
                        return Reply::text(
                            400,
                            &format!("the answer is not in the page's format ({e})"),
                        );
                    }
                };
                match submission::resolve(&self.prompt, submission) {
                    Ok(document) => WebOutcome {
                        ending: Ending::Answered,
                        document: document.answered_by_person(
                            ask_user_platform::user::name(),
                            crate::answer::Channel::Page,
                        ),
                    },
                    Err(err) => return Reply::json(422, &err.document()),
                }
            }
        };
        let ending = outcome.ending;
        if self.finish(outcome) {
            Reply::json(
                200,
                &Closed {
                    closed: ending_name(ending),
                },
            )
        } else {
            self.closed().unwrap_or_else(|| Reply::text(409, "closed"))
        }
    }

    /// The 409 for a form that has ended.
    fn closed(&self) -> Option<Reply> {
        let ending = self.outcome.borrow().as_ref().map(|o| o.ending)?;
        Some(Reply::json(
            409,
            &Closed {
                closed: ending_name(ending),
            },
        ))
    }

    /// Sets the outcome unless one is set already; whether this one won.
    fn finish(&self, outcome: WebOutcome) -> bool {
        let mut outcome = Some(outcome);
        self.outcome.send_if_modified(|slot| {
            if slot.is_none() {
                *slot = outcome.take();
                true
            } else {
                false
            }
        })
    }

    /// Waits for the outcome: a POST, the deadline or the interrupt, whichever
    /// comes first.
    async fn wait(&self, interrupt: Option<Arc<AtomicBool>>) -> WebOutcome {
        let mut decided = self.outcome.subscribe();
        let ending = tokio::select! {
            _ = decided.wait_for(Option::is_some) => None,
            () = expiry(self.deadline) => Some(Ending::TimedOut),
            () = interrupted(interrupt) => Some(Ending::Cancelled),
        };
        if let Some(ending) = ending {
            self.finish(WebOutcome::unanswered(ending));
        }
        let outcome = self.outcome.borrow().clone();
        outcome.unwrap_or_else(|| WebOutcome::unanswered(Ending::Cancelled))
    }
}

/// Completes at `deadline`; never without one.
async fn expiry(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline.into()).await,
        None => std::future::pending().await,
    }
}

/// Completes once `flag` is set; never without one.
async fn interrupted(flag: Option<Arc<AtomicBool>>) {
    let Some(flag) = flag else {
        return std::future::pending().await;
    };
    while !flag.load(Ordering::SeqCst) {
        tokio::time::sleep(POLL).await;
    }
}

#[derive(Clone, Copy)]
enum Post {
    Answer,
    Cancel,
    Decline,
}

/// What `GET /form` returns: the questions as the prompt document shows them.
#[derive(Serialize)]
struct FormView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<&'a str>,
    /// Milliseconds left, when there is a timeout.
    #[serde(rename = "remainingMs", skip_serializing_if = "Option::is_none")]
    remaining_ms: Option<u64>,
    questions: &'a [PromptItem],
    /// Whether the page shows Decline (absent: it does not).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    decline: bool,
}

#[derive(Serialize)]
struct Closed {
    closed: &'static str,
}

fn ending_name(ending: Ending) -> &'static str {
    match ending {
        Ending::Answered => "answered",
        Ending::Cancelled => "cancelled",
        Ending::Declined => "declined",
        Ending::TimedOut => "timed out",
    }
}

fn web_error(message: String) -> AskError {
    AskError::WebError(Detail::new(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_question() -> Prompt {
        crate::input::parse(br#"{"question":"Go?","options":["yes","no"]}"#).unwrap()
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn a_session_can_be_awaited_from_the_mcp_server() {
        // rmcp's handlers are Send futures; the MCP face awaits the page in one.
        fn send<T: Send>(_: &T) {}
        let options = WebOptions {
            port: None,
            open_browser: false,
            timeout: None,
            interrupt: None,
        };
        let session = WebSession::start(&one_question(), &options).unwrap();
        send(&session.run());
    }

    #[test]
    fn the_port_closes_when_run_returns() {
        let flag = Arc::new(AtomicBool::new(true));
        let options = WebOptions {
            port: None,
            open_browser: false,
            timeout: None,
            interrupt: Some(Arc::clone(&flag)),
        };
        let session = WebSession::start(&one_question(), &options).unwrap();
        let port = session.port();
        assert!(
            session
                .url()
                .starts_with(&format!("http://127.0.0.1:{port}/?token="))
        );
        let outcome = runtime().block_on(session.run()).unwrap();
        assert_eq!(outcome.ending, Ending::Cancelled);
        assert!(outcome.document.cancelled);
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
    }

    #[test]
    fn dropping_the_session_closes_the_port() {
        let options = WebOptions {
            port: None,
            open_browser: false,
            timeout: None,
            interrupt: None,
        };
        let session = WebSession::start(&one_question(), &options).unwrap();
        let port = session.port();
        let runtime = runtime();
        runtime.block_on(async {
            let run = session.run();
            // Serving, then given up on (as when an MCP call is cancelled).
            let gave_up = tokio::time::timeout(Duration::from_millis(50), run).await;
            assert!(gave_up.is_err());
        });
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
    }

    #[test]
    fn the_given_time_limit_ends_the_form() {
        let mut prompt = one_question();
        prompt.timeout_ms = Some(600_000);
        let options = WebOptions {
            port: None,
            open_browser: false,
            timeout: Some(Duration::from_millis(50)),
            interrupt: None,
        };
        let session = WebSession::start(&prompt, &options).unwrap();
        let outcome = runtime().block_on(session.run()).unwrap();
        assert_eq!(outcome.ending, Ending::TimedOut);
        assert!(outcome.document.timed_out && !outcome.document.answered);
    }

    #[test]
    fn the_first_outcome_wins() {
        let options = WebOptions {
            port: None,
            open_browser: false,
            timeout: None,
            interrupt: None,
        };
        let session = WebSession::start(&one_question(), &options).unwrap();
        let page = &session.page;
        assert!(page.closed().is_none());
        assert!(page.finish(WebOutcome::unanswered(Ending::Cancelled)));
        assert!(!page.finish(WebOutcome::unanswered(Ending::TimedOut)));
        assert_eq!(page.closed().map(|r| r.status()), Some(409));
        let outcome = runtime().block_on(page.wait(None));
        assert_eq!(outcome.ending, Ending::Cancelled);
    }

    #[test]
    fn decline_is_offered_only_when_asked_for_and_ends_the_form_declined() {
        let options = WebOptions {
            port: None,
            open_browser: false,
            timeout: None,
            interrupt: None,
        };
        let plain = WebSession::start(&one_question(), &options).unwrap();
        let view = serde_json::to_value(plain.page.form_view()).unwrap();
        assert!(view.get("decline").is_none(), "{view}");
        let session = WebSession::start(&one_question(), &options)
            .unwrap()
            .with_decline();
        let view = serde_json::to_value(session.page.form_view()).unwrap();
        assert_eq!(view["decline"], true);
        let page = &session.page;
        assert!(page.finish(WebOutcome::unanswered(Ending::Declined)));
        let closed = page.closed().unwrap();
        assert_eq!(closed.status(), 409);
        let outcome = runtime().block_on(page.wait(None));
        assert_eq!(outcome.ending, Ending::Declined);
        assert_eq!(outcome.document.reason.as_deref(), Some("declined"));
        assert!(outcome.document.cancelled && !outcome.document.answered);
    }

    #[test]
    fn the_page_has_nonce_slots_and_no_inline_handlers() {
        assert_eq!(PAGE.matches(NONCE_SLOT).count(), 2);
        assert!(!PAGE.contains("innerHTML") && !PAGE.contains("outerHTML"));
        assert!(!PAGE.contains(" onclick=") && !PAGE.contains(" style=\""));
    }
}
