//! The web face (`ask --ui web`): one self-contained page, served by this
//! process on 127.0.0.1 only, behind a random token, until the person answers,
//! cancels, the time runs out or the process is interrupted.
//!
//! The page is static HTML/CSS/JS (`web/page.html`); it fetches the questions
//! as JSON and inserts every piece of user text with `textContent`. Answers
//! come back as structured choices and are validated here ([`submission`]).

mod guard;
mod submission;

use std::io::Read;
use std::net::{Ipv4Addr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use serde::Serialize;
use tiny_http::{Header, Method, Request, Response, Server};

use crate::answer::{AnswerDocument, Unanswered};
use crate::error::{AskError, Detail};
use crate::model::Prompt;
use crate::prompt::PromptItem;

use guard::{Guard, MAX_BODY_BYTES, Rejection};
use submission::Submission;

const PAGE: &str = include_str!("web/page.html");
/// Stands for the per-response CSP nonce in [`PAGE`].
const NONCE_SLOT: &str = "__NONCE__";
/// How often the wait looks at the interrupt flag.
const POLL: Duration = Duration::from_millis(100);
/// After the outcome, requests already on their way are answered (409) for
/// this long before the port closes, so a second submission learns it lost.
const LINGER: Duration = Duration::from_millis(100);
/// How often the wait looks for request bodies read on their own threads.
const BODY_POLL: Duration = Duration::from_millis(5);

pub struct WebOptions {
    /// Port on 127.0.0.1; `None` or `Some(0)` picks a free one.
    pub port: Option<u16>,
    /// Open the page with the system's opener (xdg-open, open), if there is one.
    pub open_browser: bool,
    /// The time limit, already resolved against the prompt's own `timeout`
    /// (see `tty::form_timeout`); `None` waits forever.
    pub timeout: Option<Duration>,
    /// When set (by a signal handler, or a caller giving up), the form ends cancelled.
    pub interrupt: Option<Arc<AtomicBool>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Answered,
    Cancelled,
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
            _ => Unanswered::Cancelled,
        };
        WebOutcome {
            ending,
            document: AnswerDocument::unanswered(how),
        }
    }
}

/// Asks on the page: prints its URL to stderr, opens it if asked, and waits.
pub fn ask_on_web(prompt: &Prompt, options: WebOptions) -> Result<WebOutcome, AskError> {
    let session = WebSession::start(prompt, &options)?;
    let url = session.url();
    eprintln!("ask_user: answer in your browser: {url}");
    if options.open_browser {
        open_in_browser(&url);
    }
    session.run()
}

/// A running answer page. The port is closed when it is dropped, which
/// [`WebSession::run`] does on every way out.
pub struct WebSession {
    server: Server,
    port: u16,
    guard: Guard,
    prompt: Prompt,
    view: Vec<PromptItem>,
    deadline: Option<Instant>,
    interrupt: Option<Arc<AtomicBool>>,
    finished: Option<WebOutcome>,
    /// POST bodies are read on their own threads, so a sender that stalls
    /// holds up neither other requests nor the timeout; they come back here.
    bodies: (Sender<ReadBody>, Receiver<ReadBody>),
    /// Bodies still being read.
    reading: usize,
}

/// A POST whose body has been read (`None`: it could not be).
struct ReadBody {
    request: Request,
    what: Post,
    body: Option<Vec<u8>>,
}

impl WebSession {
    /// Binds 127.0.0.1 and makes the token; nothing is served until [`run`](Self::run).
    pub fn start(prompt: &Prompt, options: &WebOptions) -> Result<Self, AskError> {
        let port = options.port.unwrap_or(0);
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).map_err(|e| {
            web_error(format!(
                "the answer page cannot listen on 127.0.0.1:{port} ({e}); pass another --port or leave it out"
            ))
        })?;
        let port = listener
            .local_addr()
            .map_err(|e| web_error(format!("the answer page has no address ({e})")))?
            .port();
        let server = Server::from_listener(listener, None)
            .map_err(|e| web_error(format!("the answer page cannot start ({e})")))?;
        let guard = Guard::new(port).map_err(|e| {
            web_error(format!(
                "the system random source failed ({e}); no token could be made"
            ))
        })?;
        let timeout = options.timeout;
        Ok(WebSession {
            server,
            port,
            guard,
            prompt: prompt.clone(),
            view: prompt
                .questions
                .iter()
                .map(|q| PromptItem::new(q, true))
                .collect(),
            deadline: timeout.map(|t| Instant::now() + t),
            interrupt: options.interrupt.clone(),
            finished: None,
            bodies: mpsc::channel(),
            reading: 0,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The page's address, token included.
    pub fn url(&self) -> String {
        format!(
            "http://127.0.0.1:{}/?token={}",
            self.port,
            self.guard.token()
        )
    }

    /// Serves until the outcome, then closes the port.
    pub fn run(mut self) -> Result<WebOutcome, AskError> {
        let outcome = loop {
            if self
                .interrupt
                .as_ref()
                .is_some_and(|flag| flag.load(Ordering::SeqCst))
            {
                break WebOutcome::unanswered(Ending::Cancelled);
            }
            let now = Instant::now();
            let wait = match self.deadline {
                Some(deadline) if deadline <= now => {
                    break WebOutcome::unanswered(Ending::TimedOut);
                }
                Some(deadline) => (deadline - now).min(POLL),
                None => POLL,
            };
            if let Err(e) = self.serve_once(wait) {
                return Err(web_error(format!("the answer page failed ({e})")));
            }
            if let Some(outcome) = self.finished.clone() {
                break outcome;
            }
        };
        self.finished = Some(outcome.clone());
        // Requests already on their way learn that the form is closed.
        let close_at = Instant::now() + LINGER;
        while let Some(left) = close_at.checked_duration_since(Instant::now()) {
            if self.serve_once(left).is_err() {
                break;
            }
        }
        Ok(outcome)
    }

    /// Waits up to `wait` for one request and handles it, then decides every
    /// POST whose body has arrived meanwhile.
    fn serve_once(&mut self, wait: Duration) -> std::io::Result<()> {
        let wait = if self.reading > 0 {
            wait.min(BODY_POLL)
        } else {
            wait
        };
        if let Some(request) = self.server.recv_timeout(wait)? {
            self.handle(request);
        }
        while let Ok(read) = self.bodies.1.try_recv() {
            self.reading -= 1;
            self.decide(read);
        }
        Ok(())
    }

    fn handle(&mut self, request: Request) {
        if let Err(rejection) = self.guard.admit(&request, Instant::now()) {
            return reject(request, rejection);
        }
        let route = guard::path(request.url()).to_string();
        match (request.method(), route.as_str()) {
            (Method::Get, "/") => {
                let nonce = match guard::random_hex(16) {
                    Ok(nonce) => nonce,
                    Err(_) => return respond(request, 500, Body::text("no randomness")),
                };
                let page = PAGE.replace(NONCE_SLOT, &nonce);
                respond(request, 200, Body::page(page, &nonce));
            }
            (Method::Get, "/form") => {
                let view = FormView {
                    title: self.prompt.title.as_deref(),
                    context: self.prompt.context.as_deref(),
                    remaining_ms: self.deadline.map(|d| {
                        let left = d.saturating_duration_since(Instant::now()).as_millis();
                        u64::try_from(left).unwrap_or(u64::MAX)
                    }),
                    questions: &self.view,
                };
                respond(request, 200, Body::json(&view));
            }
            (Method::Post, "/answer") => self.post(request, Post::Answer),
            (Method::Post, "/cancel") => self.post(request, Post::Cancel),
            (_, "/" | "/form" | "/answer" | "/cancel") => {
                respond(request, 405, Body::text("method not allowed"))
            }
            _ => respond(request, 404, Body::text("not found")),
        }
    }

    /// Admits a POST and reads its body on a thread of its own.
    fn post(&mut self, request: Request, what: Post) {
        if let Err(rejection) = self.guard.admit_post(&request) {
            return reject(request, rejection);
        }
        let done = self.bodies.0.clone();
        let reader = std::thread::Builder::new()
            .name("ask_user-body".into())
            .spawn(move || {
                let mut request = request;
                let mut body = Vec::new();
                let read = request
                    .as_reader()
                    .take(MAX_BODY_BYTES as u64 + 1)
                    .read_to_end(&mut body);
                // The session may be over; then the request is dropped unanswered.
                let _ = done.send(ReadBody {
                    request,
                    what,
                    body: read.ok().map(|_| body),
                });
            });
        // Without a thread the request is dropped, and the client sees the
        // connection close; the form goes on.
        if reader.is_ok() {
            self.reading += 1;
        }
    }

    /// Decides a POST whose body was read: the first valid answer (or the
    /// cancel) ends the form; later ones get 409.
    fn decide(&mut self, read: ReadBody) {
        let ReadBody {
            request,
            what,
            body,
        } = read;
        let Some(body) = body else {
            return respond(
                request,
                400,
                Body::text("the request body could not be read"),
            );
        };
        if body.len() > MAX_BODY_BYTES {
            return reject(request, Rejection::TooLarge);
        }
        if let Some(done) = &self.finished {
            let status = Body::json(&Closed {
                closed: ending_name(done.ending),
            });
            return respond(request, 409, status);
        }
        match what {
            Post::Cancel => {
                self.finished = Some(WebOutcome::unanswered(Ending::Cancelled));
                respond(
                    request,
                    200,
                    Body::json(&Closed {
                        closed: "cancelled",
                    }),
                );
            }
            Post::Answer => {
                let submission: Submission = match serde_json::from_slice(&body) {
                    Ok(submission) => submission,
                    Err(e) => {
                        return respond(
                            request,
                            400,
                            Body::text(&format!("the answer is not in the page's format ({e})")),
                        );
                    }
                };
                match submission::resolve(&self.prompt, submission) {
                    Ok(document) => {
                        self.finished = Some(WebOutcome {
                            ending: Ending::Answered,
                            document,
                        });
                        respond(request, 200, Body::json(&Closed { closed: "answered" }));
                    }
                    Err(err) => respond(request, 422, Body::json(&err.document())),
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Post {
    Answer,
    Cancel,
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
}

#[derive(Serialize)]
struct Closed {
    closed: &'static str,
}

fn ending_name(ending: Ending) -> &'static str {
    match ending {
        Ending::Answered => "answered",
        Ending::Cancelled => "cancelled",
        Ending::TimedOut => "timed out",
    }
}

struct Body {
    content_type: &'static str,
    bytes: Vec<u8>,
    /// The page's own policy; every other response gets [`LOCKED_CSP`].
    csp: Option<String>,
}

/// For everything that is not the page: nothing may load, nothing may frame it.
const LOCKED_CSP: &str =
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

impl Body {
    fn page(html: String, nonce: &str) -> Self {
        Body {
            content_type: "text/html; charset=utf-8",
            bytes: html.into_bytes(),
            csp: Some(format!(
                "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; \
                 connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
            )),
        }
    }

    fn json<T: Serialize>(value: &T) -> Self {
        Body {
            content_type: "application/json",
            bytes: crate::document_line(value).into_bytes(),
            csp: None,
        }
    }

    fn text(message: &str) -> Self {
        Body {
            content_type: "text/plain; charset=utf-8",
            bytes: format!("{message}\n").into_bytes(),
            csp: None,
        }
    }
}

fn reject(request: Request, rejection: Rejection) {
    respond(request, rejection.status(), Body::text(rejection.message()));
}

fn respond(request: Request, status: u16, body: Body) {
    let csp = body.csp.as_deref().unwrap_or(LOCKED_CSP);
    let headers = [
        ("Content-Type", body.content_type),
        ("Content-Security-Policy", csp),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ];
    let mut response = Response::from_data(body.bytes).with_status_code(status);
    for (name, value) in headers {
        if let Ok(header) = Header::from_bytes(name, value) {
            response.add_header(header);
        }
    }
    // The browser may have gone; nothing to do about a failed write.
    let _ = request.respond(response);
}

fn web_error(message: String) -> AskError {
    AskError::WebError(Detail::new(message))
}

/// Starts the system's opener on `url`; having none is not an error.
pub fn open_in_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let child = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        // stdout carries the answer document: the opener must not write there.
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match child {
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(_) => eprintln!("ask_user: no browser opener ({opener}) found; open the URL yourself"),
    }
}

/// A flag set by SIGINT, SIGTERM and SIGHUP, for [`WebOptions::interrupt`]:
/// the form then ends cancelled and the port closes before the process exits.
/// A second signal ends the process at once (exit 130), should anything hang.
pub fn interrupt_on_signals() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        // The shutdown must be registered first: it is armed by the flag the
        // first signal sets. If registering fails, the signal keeps its default
        // (the process ends and the kernel closes the port): no port left open.
        let _ = signal_hook::flag::register_conditional_shutdown(
            signal,
            crate::exit::CANCELLED,
            Arc::clone(&flag),
        );
        let _ = signal_hook::flag::register(signal, Arc::clone(&flag));
    }
    flag
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_question() -> Prompt {
        crate::input::parse(br#"{"question":"Go?","options":["yes","no"]}"#).unwrap()
    }

    #[test]
    fn a_session_can_run_on_another_thread() {
        // The MCP face runs the page from a blocking task.
        fn send<T: Send>() {}
        send::<WebSession>();
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
        let outcome = session.run().unwrap();
        assert_eq!(outcome.ending, Ending::Cancelled);
        assert!(outcome.document.cancelled);
        // The accept thread lets go of the listener just after the drop.
        let closed = (0..100).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err()
        });
        assert!(closed, "port {port} still open");
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
        let outcome = WebSession::start(&prompt, &options).unwrap().run().unwrap();
        assert_eq!(outcome.ending, Ending::TimedOut);
        assert!(outcome.document.timed_out && !outcome.document.answered);
    }

    #[test]
    fn the_page_has_nonce_slots_and_no_inline_handlers() {
        assert_eq!(PAGE.matches(NONCE_SLOT).count(), 2);
        assert!(!PAGE.contains("innerHTML") && !PAGE.contains("outerHTML"));
        assert!(!PAGE.contains(" onclick=") && !PAGE.contains(" style=\""));
    }
}
