//! The inbox as an app on the hardened server ([`ask_user_server`]): the page,
//! its event stream and actions, the askers' ask / wait / leave, and the CLI
//! verbs' list / reply / cancel. Every request here has passed the server's
//! checks: Host, token (a bearer, or the `token` query but on `/mcp`), and
//! for every POST a JSON body and an `Origin` that is the inbox's own, with
//! a bearer too: the CLI verbs and askers send the inbox's Origin
//! ([`super::client`]). `/mcp` alone takes POSTs without an Origin.
//!
//! | route | who | does |
//! |---|---|---|
//! | `GET /` | page | the page (token in the query) |
//! | `GET /api/events` | page | server-sent events: `snapshot`, `asked`, `closed`, `presence` |
//! | `GET /api/questions` | `inbox list` | the pending questions, oldest first |
//! | `GET /api/history?limit=N` | page, `inbox history` | the decided questions, newest first |
//! | `GET /api/me` | page | `{"name"?, "groups"}`: a person token's name and groups (the inbox's own token: no name; askers: 403) |
//! | `POST /api/ask` | askers | a new question → `{"inboxId"}`; 503 `NO_INBOX` (with `Retry-After`) while the replica stops, 503 `STORE_ERROR` while the store does not answer, 507 `STORE_ERROR` while it refuses writes (a full disk) |
//! | `GET /api/questions/ID/wait` | askers | server-sent events: heartbeats, then the outcome document; the stream ends without one when the replica stops (and a new wait gets 503 `NO_INBOX`) |
//! | `POST /api/questions/ID/answer` | page | the page's answer |
//! | `POST /api/questions/ID/decline` | page | Decline |
//! | `POST /api/questions/ID/dismiss` | page | Dismiss (a question whose asker is gone) |
//! | `POST /api/questions/ID/reply` | `inbox answer` | `{"replies":[…],"notes":[…]}` (notes optional) |
//! | `POST /api/questions/ID/cancel` | `inbox cancel` | cancel |
//! | `POST /api/questions/ID/leave` | askers | `{"reason":"timeout"\|"cancelled"\|"away"\|"pending"}` |
//! | `GET /api/away` | page | the away state (a person token: theirs in the store; the inbox's own: `away.json` in the state folder): `{"away": bool, "since"?: ms}` |
//! | `POST /api/away` | page | `{"away": bool}` sets it; the state as written |
//! | `GET /metrics` | Prometheus | the counts, in its text format ([`super::metrics`]) |
//! | `GET /healthz` | load balancers | 200 `{"status":"ok"}` while the process serves; no token |
//! | `GET /readyz` | load balancers | 200 `{"status":"ready",…}`, or 503 while the store is unreachable (`unready`) or the replica stops (`draining`); no token |
//! | `GET /l/CAP`, `POST /l/CAP`, `POST /l/CAP/choose/OPTION/SIG` | a notification's link | one question, by the capability in the path, without the token ([`super::link_routes`]) |
//! | `POST /mcp` | MCP clients | MCP over Streamable HTTP (an [`McpEndpoint`] the binary plugs in); GET and DELETE: 405; the token as a bearer only (`?token=`: 400) |
//!
//! `/mcp` alone takes POSTs without an `Origin` (MCP clients are not
//! browsers); one that is sent must still be the inbox's own. Every other
//! POST without one is 403, whatever token it carries (docs/inbox-api.md, "The
//! HTTP routes").

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use bytes::Bytes;
use http::Method;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tokio::sync::{broadcast, mpsc};

use super::hub::{Action, AskRequest, Change, Hub, Leaving, Wait, Waiter};
use super::pair::{Claim, PairRequest, Pairing};
use super::phone;
use super::statuses;
use super::store::Face;
use ask_user_core::error::{AskError, Detail};
use ask_user_core::submission::Submission;
use ask_user_server::guard::Holder;
use ask_user_server::{App, Origins, Reply, Request, response};

/// The page, with the shared form widgets (ask_user_server::form) in place.
static PAGE: LazyLock<String> = LazyLock::new(|| {
    include_str!("page.html")
        .replace("/*__FORM_CSS__*/", ask_user_server::form::CSS)
        .replace("/*__FORM_JS__*/", ask_user_server::form::JS)
});
const NONCE_SLOT: &str = "__NONCE__";
/// An asker's question: a whole tool input (256 KiB) and its envelope.
const MAX_ASK_BYTES: usize = 512 * 1024;
/// How often a wait stream says it is alive: askers take a silence three
/// times as long for a dead connection, and a closed one is noticed when
/// the next heartbeat cannot be written.
const ASKER_HEARTBEAT: Duration = Duration::from_secs(5);
/// The same for the page's stream (browsers reconnect on their own).
const PAGE_HEARTBEAT: Duration = Duration::from_secs(15);
/// Events a slow stream may fall behind before it is closed (and, for the
/// page, reopened by the browser with a fresh snapshot).
const STREAM_BUFFER: usize = 64;

/// The path the inbox serves MCP on.
pub const MCP_PATH: &str = "/mcp";

/// The largest request body on `/mcp`: a whole tool input (256 KiB, the
/// input limit, checked again by the tool) in its JSON-RPC envelope.
pub const MCP_MAX_BODY_BYTES: usize = 512 * 1024;

/// What answers `/mcp`: the binary's MCP face, which sits above the inbox
/// (it asks through the inbox like every asker), so the inbox only routes
/// to it. The server has proven the request (Host, token, Origin, a whole
/// body within [`MCP_MAX_BODY_BYTES`]) before it gets here.
pub trait McpEndpoint: Send + Sync + 'static {
    fn respond(&self, request: Request) -> Pin<Box<dyn Future<Output = Reply> + Send + '_>>;
}

/// Makes the `/mcp` endpoint of an inbox that answers to these sites (its
/// Host and Origin checks).
pub type McpMaker = fn(&[ask_user_server::Site]) -> Box<dyn McpEndpoint>;

pub struct Inbox {
    hub: Arc<Hub>,
    /// `/mcp` (404 without it).
    mcp: Option<Box<dyn McpEndpoint>>,
    /// The away file the hooks read ([`crate::away`]), for `/api/away`
    /// (422 without it).
    away_file: Option<PathBuf>,
    /// `/api/pair` and its claim (404 without it).
    pairing: Option<Arc<Pairing>>,
}

impl Inbox {
    pub fn new(hub: Arc<Hub>) -> Inbox {
        Inbox {
            hub,
            mcp: None,
            away_file: None,
            pairing: None,
        }
    }

    /// Serves the away switch on `/api/away`, kept in `file` (`away.json`
    /// in the inbox's state folder: the file `ask_user away` and the hooks
    /// on this machine use).
    pub fn with_away_file(mut self, file: PathBuf) -> Inbox {
        self.away_file = Some(file);
        self
    }

    /// Pairs phones ([`super::pair`]).
    pub fn with_pairing(mut self, pairing: Pairing) -> Inbox {
        self.pairing = Some(Arc::new(pairing));
        self
    }

    /// Serves MCP on `/mcp` too.
    pub fn with_mcp(mut self, mcp: Box<dyn McpEndpoint>) -> Inbox {
        self.mcp = Some(mcp);
        self
    }
}

impl App for Inbox {
    async fn respond(&self, request: Request) -> Reply {
        let method = request.method().clone();
        let path = request.path().to_string();
        // One-question links: the capability in the path is the key; a
        // request without a token is never taken for the owner's.
        if super::link_routes::is_link_path(&path) {
            return super::link_routes::respond(&self.hub, request).await;
        }
        // Only /healthz and /readyz are reached without a token (the server's
        // `tokenless`); they say nothing about any question.
        let holder = request.holder().cloned().unwrap_or(Holder::Owner);
        if let Some(refusal) = forbidden(&holder, &path) {
            return self.error_reply(&refusal);
        }
        match (method, path.as_str()) {
            (Method::GET, "/") => page(),
            (Method::GET, "/api/events") => self.page_events(),
            (Method::GET, "/api/questions") => self.list(),
            (Method::GET, "/api/history") => self.history(request.query("limit")).await,
            (Method::GET, "/api/me") => Reply::json(200, &self.hub.me(&holder)),
            (Method::POST, "/api/ask") => match request.body().await {
                Ok(body) => match self.parse::<AskRequest>(&body) {
                    Ok(ask) => {
                        let hub = Arc::clone(&self.hub);
                        let asker = asker_name(&holder).map(str::to_string);
                        let asked = off_thread(move || hub.ask_as(&ask, asker.as_deref())).await;
                        self.asked_reply(asked)
                    }
                    Err(reply) => *reply,
                },
                Err(reply) => reply,
            },
            (Method::GET, "/api/away") => self.away(&holder, None).await,
            (Method::POST, "/api/away") => match request.body().await {
                Ok(body) => match self.parse::<SetAway>(&body) {
                    Ok(SetAway { away }) => self.away(&holder, Some(away)).await,
                    Err(reply) => *reply,
                },
                Err(reply) => reply,
            },
            // The phone (crates/inbox/src/phone.rs): pairing and the installable shell.
            (Method::POST, phone::BEGIN | phone::CLAIM) => match request.body().await {
                Ok(body) => self.pair(&path, &body).await,
                Err(reply) => reply,
            },
            (Method::GET, path) if phone::is_static(path) => phone::serve(path, &PAGE, NONCE_SLOT),
            (Method::GET, "/metrics") => {
                // Counting the replicas reads the store.
                let hub = Arc::clone(&self.hub);
                match off_thread(move || Ok(hub.render_metrics())).await {
                    Ok(text) => Reply::prometheus(text),
                    Err(err) => self.error_reply(&err),
                }
            }
            (Method::GET, "/healthz") => Reply::json(
                200,
                &Health {
                    status: "ok",
                    store: None,
                },
            ),
            (Method::GET, "/readyz") => {
                let store = Some(self.hub.store_kind());
                let (code, status) = if self.hub.is_draining() {
                    (503, "draining")
                } else if self.hub.store_reachable() {
                    (200, "ready")
                } else {
                    (503, "unready")
                };
                Reply::json(code, &Health { status, store })
            }
            (_, MCP_PATH) => match &self.mcp {
                Some(mcp) => mcp.respond(request).await,
                None => Reply::text(404, "not found"),
            },
            (method, path) => match question_route(path) {
                Some((id, verb)) => self.question(method, id, verb, request, &holder).await,
                None if phone::is_phone_route(path) => Reply::text(405, "method not allowed"),
                None if matches!(
                    path,
                    "/" | "/api/events"
                        | "/api/questions"
                        | "/api/history"
                        | "/api/me"
                        | "/api/ask"
                        | "/api/away"
                        | "/metrics"
                        | "/healthz"
                        | "/readyz"
                ) =>
                {
                    Reply::text(405, "method not allowed")
                }
                None => Reply::text(404, "not found"),
            },
        }
    }

    fn max_body_bytes(&self, method: &Method, path: &str) -> Option<usize> {
        match path {
            "/api/ask" if method == Method::POST => Some(MAX_ASK_BYTES),
            MCP_PATH if method == Method::POST => Some(MCP_MAX_BODY_BYTES),
            _ => None,
        }
    }

    fn tokenless(&self, path: &str) -> bool {
        matches!(path, "/healthz" | "/readyz") || phone::is_static(path)
    }

    fn tokenless_post(&self, path: &str) -> bool {
        path == phone::CLAIM
    }

    fn capability(&self, path: &str) -> bool {
        super::link_routes::is_link_path(path)
    }

    fn origins(&self, path: &str) -> Origins {
        // An ntfy action button posts from ntfy's app or server: no Origin.
        let button = super::link_routes::is_link_path(path) && path.contains("/choose/");
        if button || (path == MCP_PATH && self.mcp.is_some()) {
            Origins::WhenPresent
        } else {
            Origins::Required
        }
    }
}

/// `/healthz` and `/readyz`: whether the process serves, and whether its
/// store can be reached. Neither says anything about the questions. Whether
/// the store is reachable is what the store's last contact found (for
/// PostgreSQL, the listening connection), never a call made for the probe:
/// a tokenless probe must not wait on the database.
#[derive(serde::Serialize)]
struct Health {
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    store: Option<&'static str>,
}

/// The name of an asker token's holder (its questions are its own).
fn asker_name(holder: &Holder) -> Option<&str> {
    match holder {
        Holder::Asker(name) => Some(name),
        _ => None,
    }
}

/// Why `holder` may not use `path`, if it may not (FORBIDDEN, 403). The
/// inbox's own token may do everything. A person may do everything but
/// ask (the page, its stream, list, answer, decline, dismiss, cancel,
/// history, metrics). An asker may only ask, and wait for or leave its own
/// questions (the hub checks whose they are). `/mcp` asks with the inbox's
/// own rights, so it takes the inbox's own token only.
fn forbidden(holder: &Holder, path: &str) -> Option<AskError> {
    let asking = path == "/api/ask" || matches!(question_route(path), Some((_, "wait" | "leave")));
    let probe = matches!(path, "/healthz" | "/readyz");
    let message = match holder {
        Holder::Owner => return None,
        // Only the inbox's own token makes pairing codes (a device token
        // must not mint more of itself).
        Holder::Person(name) | Holder::Asker(name) if path == phone::BEGIN => format!(
            "{name:?} holds a named token; only the inbox's own token pairs a phone (ask_user inbox pair, on the inbox's machine)"
        ),
        Holder::Person(_) if probe || !(asking || path == MCP_PATH) => return None,
        Holder::Asker(_) if probe || asking => return None,
        Holder::Person(name) => format!(
            "{name:?} holds a person's token: it lists, answers, declines, dismisses, cancels and reads history, and does not ask; an agent asks with an asker token (or the inbox's own for /mcp)"
        ),
        Holder::Asker(name) => format!(
            "{name:?} holds an asker's token: it asks, and waits for, resumes or leaves its own questions, nothing else"
        ),
    };
    Some(AskError::Forbidden(Detail::new(message)))
}

/// The verbs a question takes by POST.
const POSTED: [&str; 6] = ["answer", "decline", "dismiss", "reply", "cancel", "leave"];

/// `/api/questions/ID/VERB` → (ID, VERB).
fn question_route(path: &str) -> Option<(&str, &str)> {
    let rest = path.strip_prefix("/api/questions/")?;
    let (id, verb) = rest.split_once('/')?;
    (!id.is_empty() && !verb.contains('/')).then_some((id, verb))
}

fn page() -> Reply {
    match response::nonce() {
        // The same page as the phone's /app: its manifest and icon load from here.
        Ok(nonce) => Reply::app_page(PAGE.replace(NONCE_SLOT, &nonce), &nonce),
        Err(_) => Reply::text(500, "no randomness"),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Replies {
    replies: Vec<String>,
    #[serde(default)]
    notes: Vec<Option<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Leave {
    reason: Leaving,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Nothing {}

/// `POST /api/away`'s body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetAway {
    away: bool,
}

impl Inbox {
    /// `/api/away`: the away state, set first when `set` says so. The
    /// inbox's own token and person tokens may use it (an asker's may not:
    /// [`forbidden`]). On one machine (SQLite) it is that machine's state
    /// (`away.json`, which the hooks read): person tokens there are the
    /// owner's other devices, such as a paired phone. On a team inbox
    /// (PostgreSQL) a person token's is that person's own switch in the
    /// store (their `--while-away` rules follow it, on every replica); the
    /// inbox's own token has none there, so the route says so instead of
    /// setting a state no hook reads.
    async fn away(&self, holder: &Holder, set: Option<bool>) -> Reply {
        if let Holder::Person(name) = holder
            && self.hub.store_kind() == "postgres"
        {
            let (hub, name) = (Arc::clone(&self.hub), name.clone());
            let state = off_thread(move || match set {
                Some(away) => hub.set_person_away(&name, away),
                None => hub.person_away(&name),
            })
            .await;
            return match state {
                Ok(since) => Reply::json(
                    200,
                    &crate::away::Away {
                        away: since.is_some(),
                        since: since.and_then(|since| u64::try_from(since).ok()),
                    },
                ),
                Err(err) => self.error_reply(&err),
            };
        }
        let file = match &self.away_file {
            Some(file) if self.hub.store_kind() == "sqlite" => file,
            _ => {
                return self.error_reply(&AskError::WebError(Detail::new(
                    "this inbox keeps no away state for its own token: on a team inbox each person sets their own switch with their token; set the hooks' state with `ask_user away on|off` on the machine where the hooks run",
                )));
            }
        };
        let done = match set {
            Some(away) => {
                let now = u64::try_from(crate::store::now_ms()).unwrap_or(0);
                crate::away::write_file(file, away, now)
            }
            None => crate::away::read_file(file),
        };
        match done {
            Ok(state) => Reply::json(200, &state),
            Err(err) => {
                let detail = Detail::at(err.to_string(), file.display().to_string());
                self.error_reply(&match set {
                    Some(_) => AskError::WriteError(detail),
                    None => AskError::ReadError(detail),
                })
            }
        }
    }

    /// `POST /api/pair` (make a code) and `POST /api/pair/claim` (a phone
    /// exchanges it for its token).
    /// Both read and write the store, off the server's thread: a claim
    /// needs no token, and must not hold other requests while the store is
    /// slow.
    async fn pair(&self, path: &str, body: &[u8]) -> Reply {
        let Some(pairing) = self.pairing.clone() else {
            return Reply::text(404, "not found");
        };
        let hub = Arc::clone(&self.hub);
        if path == phone::BEGIN {
            return match self.parse::<PairRequest>(body) {
                Ok(request) => match off_thread(move || pairing.begin(&hub, &request)).await {
                    Ok(code) => Reply::json(201, &code),
                    Err(err) => self.error_reply(&err),
                },
                Err(reply) => *reply,
            };
        }
        match self.parse::<Claim>(body) {
            Ok(claim) => match off_thread(move || pairing.claim(&hub, &claim.code)).await {
                Ok(outcome) => phone::claimed(outcome),
                Err(err) => self.error_reply(&err),
            },
            Err(reply) => *reply,
        }
    }

    fn list(&self) -> Reply {
        let listed = self.hub.list();
        let items: Vec<&RawValue> = listed
            .iter()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        Reply::json(200, &items)
    }

    async fn history(&self, limit: Option<&str>) -> Reply {
        let limit = match limit.map(str::parse::<usize>) {
            None => None,
            Some(Ok(limit)) => Some(limit),
            Some(Err(_)) => {
                return self.error_reply(&AskError::InvalidField(Detail::at(
                    "limit must be a whole number of entries (0 or more)",
                    "limit",
                )));
            }
        };
        let hub = Arc::clone(&self.hub);
        match off_thread(move || hub.history(limit)).await {
            Ok(lines) => {
                let items: Vec<&RawValue> = lines
                    .iter()
                    .filter_map(|line| serde_json::from_str(line).ok())
                    .collect();
                Reply::json(200, &items)
            }
            Err(err) => self.error_reply(&err),
        }
    }

    /// What a POST to `path` gets once its `body` is read (within the
    /// server's limits): the routes' parsing and handling, without the
    /// network, for the property tests (tests/fuzz_inbox.rs).
    #[doc(hidden)]
    pub fn post(&self, path: &str, body: &[u8]) -> Reply {
        self.post_as(path, body, &Holder::Owner)
    }

    /// [`Inbox::post`] for the holder of a request's token.
    fn post_as(&self, path: &str, body: &[u8], holder: &Holder) -> Reply {
        if path == "/api/ask" {
            return match self.parse::<AskRequest>(body) {
                Ok(ask) => self.asked_reply(self.hub.ask_as(&ask, asker_name(holder))),
                Err(reply) => *reply,
            };
        }
        match question_route(path) {
            Some((id, verb)) => match self.posted_step(verb, body) {
                Ok(step) => {
                    let done = step.run(&self.hub, id, holder);
                    self.posted_reply(done)
                }
                Err(reply) => *reply,
            },
            None => Reply::text(404, "not found"),
        }
    }

    fn asked_reply(&self, asked: Result<super::hub::Asked, AskError>) -> Reply {
        match asked {
            Ok(asked) => Reply::json(201, &asked),
            Err(err) => self.error_reply(&err),
        }
    }

    async fn question(
        &self,
        method: Method,
        id: &str,
        verb: &str,
        request: Request,
        holder: &Holder,
    ) -> Reply {
        if method == Method::GET && verb == "wait" {
            let hub = Arc::clone(&self.hub);
            let (id, asker) = (id.to_string(), asker_name(holder).map(str::to_string));
            return match off_thread(move || hub.wait_as(&id, asker.as_deref())).await {
                Ok(Wait::Done(document)) => {
                    let (send, receive) = mpsc::channel(1);
                    let _ = send.try_send(event(None, &document));
                    Reply::events(receive)
                }
                Ok(Wait::Pending(waiter)) => asker_stream(waiter),
                Err(err) => self.error_reply(&err),
            };
        }
        if method != Method::POST {
            return if verb == "wait" || POSTED.contains(&verb) {
                Reply::text(405, "method not allowed")
            } else {
                Reply::text(404, "not found")
            };
        }
        // An unknown verb is refused before its body is read.
        if !POSTED.contains(&verb) {
            return Reply::text(404, "not found");
        }
        let body = match request.body().await {
            Ok(body) => body,
            Err(reply) => return reply,
        };
        match self.posted_step(verb, &body) {
            Ok(step) => {
                // The store's round trips run off the server's one thread,
                // so that other requests (and the pool's other connections)
                // go on meanwhile.
                let hub = Arc::clone(&self.hub);
                let (id, holder) = (id.to_string(), holder.clone());
                let done = off_thread(move || step.run(&hub, &id, &holder)).await;
                self.posted_reply(done)
            }
            Err(reply) => *reply,
        }
    }

    /// A POST to `/api/questions/ID/VERB` (one of [`POSTED`]) with its body.
    fn posted_step(&self, verb: &str, body: &[u8]) -> Result<Step, Box<Reply>> {
        let decide = |action: Action, face: Face| Step::Decide(action, face);
        match verb {
            "answer" => self
                .parse::<Submission>(body)
                .map(|submission| decide(Action::Submit(submission), Face::Page)),
            "decline" => self
                .parse::<Nothing>(body)
                .map(|Nothing {}| decide(Action::Decline, Face::Page)),
            "dismiss" => self
                .parse::<Nothing>(body)
                .map(|Nothing {}| decide(Action::Dismiss, Face::Page)),
            "reply" => self
                .parse::<Replies>(body)
                .map(|Replies { replies, notes }| {
                    decide(Action::Replies(replies, notes), Face::Cli)
                }),
            "cancel" => self
                .parse::<Nothing>(body)
                .map(|Nothing {}| decide(Action::Cancel, Face::Cli)),
            "leave" => self
                .parse::<Leave>(body)
                .map(|Leave { reason }| Step::Leave(reason)),
            _ => Err(Box::new(Reply::text(404, "not found"))),
        }
    }

    /// What a POST to a question got, as its reply.
    fn posted_reply(&self, done: Result<Arc<str>, AskError>) -> Reply {
        match done {
            Ok(document) => match serde_json::from_str::<&RawValue>(&document) {
                Ok(raw) => Reply::json(200, &raw),
                Err(e) => self.error_reply(&AskError::InternalError(Detail::new(e.to_string()))),
            },
            Err(err) => self.error_reply(&err),
        }
    }
}

/// A POST to `/api/questions/ID/VERB`, parsed: what the hub is to do.
enum Step {
    Decide(Action, Face),
    Leave(Leaving),
}

impl Step {
    fn run(self, hub: &Hub, id: &str, holder: &Holder) -> Result<Arc<str>, AskError> {
        match self {
            Step::Decide(action, face) => {
                let person = match holder {
                    Holder::Person(name) => Some(name.as_str()),
                    _ => None,
                };
                hub.decide_as(id, action, face, person)
            }
            Step::Leave(reason) => hub.leave_as(id, reason, asker_name(holder)),
        }
    }
}

/// Runs `work` (hub calls that wait on the store: ask, answer, leave, wait,
/// history, metrics, the away switch of a person, pairing) on tokio's
/// blocking threads: the inbox serves on one thread, and
/// a store round trip there would hold every other request, whatever the
/// pool's size.
async fn off_thread<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, AskError> + Send + 'static,
) -> Result<T, AskError> {
    ask_user_server::blocking::blocking(work)
        .await
        .unwrap_or_else(|| {
            Err(AskError::InternalError(Detail::new(
                "an inbox call failed (it panicked)",
            )))
        })
}

impl Inbox {
    /// The page's stream: the pending questions, then every change.
    fn page_events(&self) -> Reply {
        let (snapshot, changes) = self.hub.subscribe();
        let (send, receive) = mpsc::channel(STREAM_BUFFER);
        let items: Vec<&RawValue> = snapshot
            .iter()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        let first = event(Some("snapshot"), &ask_user_core::document_line(&items));
        tokio::spawn(async move {
            if send.send(first).await.is_ok() {
                forward_changes(changes, send).await;
            }
        });
        Reply::events(receive)
    }
}

/// Sends each change to a page until it goes away or falls too far behind
/// (the stream then ends; the browser reconnects and gets a fresh snapshot).
async fn forward_changes(mut changes: broadcast::Receiver<Change>, send: mpsc::Sender<Bytes>) {
    let mut heartbeat = tokio::time::interval(PAGE_HEARTBEAT);
    heartbeat.tick().await;
    loop {
        let bytes = tokio::select! {
            change = changes.recv() => match change {
                Ok(change) => change_event(&change),
                Err(_) => return,
            },
            _ = heartbeat.tick() => Bytes::from_static(b": alive\n\n"),
            () = send.closed() => return,
        };
        if send.try_send(bytes).is_err() {
            return;
        }
    }
}

fn change_event(change: &Change) -> Bytes {
    #[derive(serde::Serialize)]
    struct Closed<'a> {
        #[serde(rename = "inboxId")]
        inbox_id: &'a str,
        outcome: &'static str,
        face: &'static str,
    }
    #[derive(serde::Serialize)]
    struct Presence<'a> {
        #[serde(rename = "inboxId")]
        inbox_id: &'a str,
        present: bool,
    }
    match change {
        // The page puts a card in place by its id: a new one, or an update.
        Change::Asked(listed) | Change::Heard(listed) | Change::Updated(listed) => {
            event(Some("asked"), listed)
        }
        Change::Closed {
            id, outcome, face, ..
        } => event(
            Some("closed"),
            &ask_user_core::document_line(&Closed {
                inbox_id: id,
                outcome: outcome.as_str(),
                face: face.as_str(),
            }),
        ),
        Change::Presence { id, present } => event(
            Some("presence"),
            &ask_user_core::document_line(&Presence {
                inbox_id: id,
                present: *present,
            }),
        ),
    }
}

/// An asker's wait: heartbeats until the outcome, then the outcome's
/// document as the one data event. The waiter lives as long as the stream:
/// when the asker goes away, the stream's receiver is dropped, the task
/// ends, and the question starts its grace time. When the replica drains,
/// the stream ends without an outcome: the asker reconnects, as after any
/// lost connection, to the next replica in its list.
fn asker_stream(mut waiter: Waiter) -> Reply {
    let (send, receive) = mpsc::channel(4);
    tokio::spawn(async move {
        let mut heartbeat = tokio::time::interval(ASKER_HEARTBEAT);
        let stopping = waiter.stopping();
        tokio::pin!(stopping);
        loop {
            tokio::select! {
                // An outcome that is there wins over the drain.
                biased;
                outcome = waiter.outcome() => {
                    if let Some(document) = outcome {
                        let _ = send.send(event(None, &document)).await;
                    }
                    return;
                }
                _ = heartbeat.tick() => {
                    if send.try_send(Bytes::from_static(b": waiting\n\n")).is_err() {
                        return;
                    }
                }
                () = send.closed() => return,
                () = &mut stopping => return,
            }
        }
    });
    Reply::events(receive)
}

/// One server-sent event; `data` is one line of JSON.
fn event(name: Option<&str>, data: &str) -> Bytes {
    let mut text = String::with_capacity(data.len() + 32);
    if let Some(name) = name {
        text.push_str("event: ");
        text.push_str(name);
        text.push('\n');
    }
    text.push_str("data: ");
    text.push_str(data);
    text.push_str("\n\n");
    Bytes::from(text)
}

impl Inbox {
    /// The body as the route's type. Every route takes a JSON object: serde
    /// would also take a struct from an array of its fields (`[]` for `{}`,
    /// `["cancelled"]` for a leave), which no client sends on purpose.
    /// The refusal is boxed: a [`Reply`] carries a header map and is large.
    fn parse<T: DeserializeOwned>(&self, body: &[u8]) -> Result<T, Box<Reply>> {
        let first = body
            .iter()
            .find(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r'));
        let parsed = serde_json::from_slice(body).and_then(|value| match first {
            Some(b'{') => Ok(value),
            _ => Err(serde::de::Error::custom(
                "the body must be a JSON object ({…})",
            )),
        });
        parsed.map_err(|e| {
            Box::new(
                self.error_reply(&AskError::InvalidJson(
                    Detail::new(concat!(
                        "this inbox, ask_user ",
                        env!("CARGO_PKG_VERSION"),
                        ", does not take that request"
                    ))
                    .with_parse_error(e.to_string()),
                )),
            )
        })
    }

    /// An error document with the status that fits its code (counted).
    fn error_reply(&self, err: &AskError) -> Reply {
        self.hub.metrics().error(err.code());
        statuses::error_reply(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body::Body as _;

    #[test]
    fn question_routes() {
        assert_eq!(
            question_route("/api/questions/7hq2k9mc/wait"),
            Some(("7hq2k9mc", "wait"))
        );
        assert_eq!(question_route("/api/questions//wait"), None);
        assert_eq!(question_route("/api/questions/x/y/z"), None);
        assert_eq!(question_route("/api/questions/x"), None);
        assert_eq!(question_route("/api/ask"), None);
    }

    #[test]
    fn the_page_has_the_shared_widgets_and_no_inline_handlers() {
        assert!(PAGE.contains("var AskForm") && PAGE.contains("fieldset.question"));
        assert!(!PAGE.contains("/*__FORM_"));
        assert_eq!(PAGE.matches("<script").count(), 1);
        assert!(!PAGE.contains("innerHTML") && !PAGE.contains("outerHTML"));
        assert!(!PAGE.contains(" onclick=") && !PAGE.contains(" style=\""));
    }

    const ASK: &str =
        r#"{"key":"k1","input":{"question":"Deploy where?","options":["Staging","Production"]}}"#;

    fn inbox() -> (tempfile::TempDir, Arc<Hub>, Inbox) {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::SqliteStore::open(&dir.path().join("inbox.sqlite3"));
        let hub = Arc::new(
            Hub::new(
                Box::new(store.unwrap()),
                Duration::from_secs(60),
                Duration::from_secs(3600),
            )
            .unwrap(),
        );
        (dir, Arc::clone(&hub), Inbox::new(hub))
    }

    fn body_of(reply: Reply) -> (u16, Option<String>, serde_json::Value) {
        let response = reply.into_response();
        let retry = response
            .headers()
            .get(http::header::RETRY_AFTER)
            .map(|v| v.to_str().unwrap().to_string());
        let status = response.status().as_u16();
        let ask_user_server::Body::Whole(Some(bytes)) = response.into_body() else {
            panic!("a whole body");
        };
        (status, retry, serde_json::from_slice(&bytes).unwrap())
    }

    /// The away switch's route: without an away file (a team inbox keeps
    /// none per person yet) it says so; with one it reads and sets it.
    #[test]
    fn the_away_route_needs_the_inboxs_away_file() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let (dir, hub, inbox) = inbox();
        let (status, _, refused) =
            body_of(runtime.block_on(inbox.away(&Holder::Owner, Some(true))));
        assert_eq!(status, 422);
        assert_eq!(refused["error"]["code"], "WEB_ERROR");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("each person sets their own switch with their token")
        );
        let file = dir.path().join("away.json");
        let inbox = Inbox::new(hub).with_away_file(file.clone());
        let (status, _, state) = body_of(runtime.block_on(inbox.away(&Holder::Owner, None)));
        assert_eq!((status, state), (200, serde_json::json!({"away": false})));
        let (status, _, state) = body_of(runtime.block_on(inbox.away(&Holder::Owner, Some(true))));
        assert_eq!((status, &state["away"]), (200, &serde_json::json!(true)));
        assert!(crate::away::read_file(&file).unwrap().away);
        // Who may: the owner and a person; an asker may not.
        assert!(forbidden(&Holder::Person("Ada".into()), "/api/away").is_none());
        assert!(forbidden(&Holder::Owner, "/api/away").is_none());
        assert!(forbidden(&Holder::Asker("ci".into()), "/api/away").is_some());
    }

    /// Each error code gets the status that fits it; only 503 says when to
    /// try again.
    #[test]
    fn error_documents_have_the_status_of_their_code() {
        use ask_user_core::error::Detail;
        let detail = || Detail::new("why");
        for (err, status) in [
            (AskError::UnknownQuestion(detail()), 404),
            (AskError::AlreadyAnswered(detail()), 409),
            (AskError::Forbidden(detail()), 403),
            (AskError::InvalidJson(detail()), 400),
            (AskError::InternalError(detail()), 500),
            (AskError::NoInbox(detail()), 503),
            (AskError::store_error(detail()), 503),
            (AskError::store_refusing(detail()), 507),
            (AskError::MissingOptions(detail()), 422),
        ] {
            let code = err.code();
            let (got, retry, document) = body_of(statuses::error_reply(&err));
            assert_eq!(got, status, "{code}");
            assert_eq!(retry.is_some(), status == 503, "{code}");
            assert_eq!(document["error"]["code"], code);
        }
    }

    #[test]
    fn a_stopping_replica_refuses_asks_and_waits_with_503_and_retry_after() {
        let (_dir, hub, inbox) = inbox();
        let (status, retry, asked) = body_of(inbox.post("/api/ask", ASK.as_bytes()));
        assert_eq!((status, retry), (201, None), "{asked}");
        let id = asked["inboxId"].as_str().unwrap().to_string();
        hub.drain();
        let (status, retry, refused) =
            body_of(inbox.post("/api/ask", ASK.replace("k1", "k2").as_bytes()));
        assert_eq!((status, retry.as_deref()), (503, Some("1")), "{refused}");
        assert_eq!(refused["status"], "error");
        assert_eq!(refused["error"]["code"], "NO_INBOX");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(crate::hub::STOPPING), "{message}");
        assert!(message.contains("another replica"), "{message}");
        // A wait (a resume) too; everything else is still served.
        assert_eq!(hub.wait(&id).err().unwrap().code(), "NO_INBOX");
        assert_eq!(hub.list().len(), 1);
        let (status, _, answered) = body_of(inbox.post(
            &format!("/api/questions/{id}/reply"),
            br#"{"replies":["1"]}"#,
        ));
        assert_eq!((status, &answered["answered"]), (200, &true.into()));
        assert!(
            hub.render_metrics()
                .contains("mcp_errors_total{code=\"NO_INBOX\"} 1"),
            "counted"
        );
    }

    #[test]
    fn a_drain_ends_the_open_wait_streams_without_an_outcome() {
        let (_dir, hub, inbox) = inbox();
        let (_, _, asked) = body_of(inbox.post("/api/ask", ASK.as_bytes()));
        let id = asked["inboxId"].as_str().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let Ok(Wait::Pending(waiter)) = hub.wait(id) else {
                panic!("pending");
            };
            let mut body = asker_stream(waiter).into_response().into_body();
            let first = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx));
            let first = first.await.unwrap().unwrap().into_data().unwrap();
            assert_eq!(first, Bytes::from_static(b": waiting\n\n"));
            assert_eq!(hub.waiting(), 1);
            hub.drain();
            let next = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx));
            let end = tokio::time::timeout(Duration::from_secs(2), next).await;
            assert!(matches!(end, Ok(None)), "the stream ends, no outcome");
        });
        assert_eq!(hub.waiting(), 0, "its waiter is gone");
        assert_eq!(hub.list().len(), 1, "the question still waits in the store");
    }

    /// Every POST route but `/mcp` needs the inbox's own Origin, a bearer
    /// or not (what the module's table says); `/mcp` takes one without.
    #[test]
    fn every_post_but_mcp_needs_the_inboxs_origin_even_with_a_bearer() {
        use ask_user_server::App as _;
        use ask_user_server::guard::{Guard, Rejection};
        let guard = Guard::with_token(4000, "t0k".into());
        let parts = |path: &str, origin: Option<&str>| {
            let mut request = http::Request::builder()
                .method("POST")
                .uri(path)
                .header("host", "127.0.0.1:4000")
                .header("authorization", "Bearer t0k")
                .header("content-type", "application/json");
            if let Some(origin) = origin {
                request = request.header("origin", origin);
            }
            request.body(()).unwrap().into_parts().0
        };
        let (_dir, _hub, inbox) = inbox();
        struct Answering;
        impl McpEndpoint for Answering {
            fn respond(&self, _: Request) -> Pin<Box<dyn Future<Output = Reply> + Send + '_>> {
                Box::pin(async { Reply::text(200, "mcp") })
            }
        }
        let with_mcp = Inbox::new(Arc::clone(&inbox.hub)).with_mcp(Box::new(Answering));
        let mut paths = vec!["/api/ask".to_string(), "/mcp".to_string()];
        paths.extend(
            POSTED
                .iter()
                .map(|verb| format!("/api/questions/q1/{verb}")),
        );
        for path in &paths {
            for app in [&inbox, &with_mcp] {
                let own = guard.check_post_with(
                    &parts(path, Some("http://127.0.0.1:4000")),
                    app.origins(path),
                );
                assert_eq!(own, Ok(()), "{path}");
                let bare = guard.check_post_with(&parts(path, None), app.origins(path));
                let served_bare = path == "/mcp" && app.mcp.is_some();
                let want = if served_bare {
                    Ok(())
                } else {
                    Err(Rejection::WrongOrigin)
                };
                assert_eq!(bare, want, "{path}");
                let foreign = guard
                    .check_post_with(&parts(path, Some("http://evil.example")), app.origins(path));
                assert_eq!(foreign, Err(Rejection::WrongOrigin), "{path}");
            }
        }
    }

    #[test]
    fn events_are_framed() {
        assert_eq!(event(None, "{}"), Bytes::from_static(b"data: {}\n\n"));
        assert_eq!(
            event(Some("asked"), "{}"),
            Bytes::from_static(b"event: asked\ndata: {}\n\n")
        );
    }
}
