//! Asking through the inbox: hand the question over, then hold a wait
//! connection until its outcome arrives. If the inbox goes away (stopped,
//! killed, restarting), reconnect with capped exponential backoff, finding
//! the inbox afresh each time, and never give up before the asker's own
//! timeout: the question is in the inbox's store and waits there. A replica
//! that stops (SIGTERM) ends its waits and refuses new asks and waits with
//! 503 `NO_INBOX` ([`super::hub::STOPPING`]); both count as the inbox gone
//! away (the client reads any 502, 503 or 504 so, a proxy's too), and each
//! reconnection tries the next address of `ASK_USER_INBOX` first.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;
use serde_json::value::RawValue;
use tokio::time::Instant;

use super::client::{Client, Failure};
use super::hub::{Asked, Leaving};
use super::metrics::AskingFace;
use super::state::{Endpoint, Lookup};
use super::store::{Millis, Source, now_ms};
use ask_user_core::answer::{AnswerDocument, Unanswered};
use ask_user_core::error::{AskError, Detail};
use ask_user_core::input::Object;

/// The first pause before reconnecting; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(2);
/// A wait stream that sends nothing (not even a heartbeat) this long is dead.
pub const SILENCE: Duration = Duration::from_secs(15);
/// How often a signal flag is looked at.
const FLAG_POLL: Duration = Duration::from_millis(50);

/// What to wait for.
pub enum Target {
    /// A new question: the decoded tool input.
    Ask(Object),
    /// A question asked before (`{"resume": id}`).
    Resume(String),
}

pub struct AskerOptions {
    pub lookup: Lookup,
    pub source: Source,
    /// The asker's own time limit (`None`: it waits as long as it takes).
    pub timeout: Option<Duration>,
    /// The face it asks through (the inbox counts questions by it).
    pub face: AskingFace,
}

/// The body of an ask, as [`super::hub::AskRequest`] reads it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AskBody<'a> {
    key: &'a str,
    input: &'a RawValue,
    source: &'a Source,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<Millis>,
    face: &'static str,
}

#[derive(Serialize)]
struct LeaveBody {
    reason: &'static str,
}

/// Asks through the inbox and waits for the outcome, the timeout, or
/// `cancelled` (a signal, an MCP cancel), whichever comes first. What
/// `cancelled` resolves to says how the question is left: `Cancelled` (a
/// person's Ctrl-C ends it) or `Away` (SIGTERM or SIGHUP, an MCP client's
/// cancel: often a host's own tool timeout; the inbox keeps the question) or
/// `Pending` (an `mcp --wait` ran out; kept, and the document is pending). NO_INBOX
/// when no inbox runs at the start; after that, outages are waited out (said
/// on stderr), while a store that refuses writes (a full disk) is
/// STORE_ERROR at once.
/// `on_asked` hears the question's id and the inbox's address once it is
/// in the inbox.
pub async fn ask(
    target: Target,
    options: AskerOptions,
    cancelled: impl Future<Output = Leaving>,
    on_asked: impl FnOnce(&str, &Endpoint),
) -> Result<AnswerDocument, AskError> {
    let deadline = options.timeout.map(|t| Instant::now() + t);
    let expires_at = options
        .timeout
        .and_then(|t| Millis::try_from(t.as_millis()).ok())
        .map(|t| now_ms().saturating_add(t));
    let endpoint = options
        .lookup
        .discover()
        .map_err(|missing| AskError::NoInbox(Detail::new(missing.message())))?;
    let mut asker = Asker {
        lookup: options.lookup,
        client: Client::new(endpoint),
        backoff: FIRST_BACKOFF,
    };
    let until_deadline = async {
        match deadline {
            Some(deadline) => tokio::time::sleep_until(deadline).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(until_deadline, cancelled);
    let id = match target {
        Target::Resume(id) => id,
        Target::Ask(input) => {
            let key = super::state::random_hex(16)
                .map_err(|e| AskError::InternalError(Detail::new(e.to_string())))?;
            let input = RawValue::from_string(ask_user_core::document_line(&input))
                .map_err(|e| AskError::InternalError(Detail::new(e.to_string())))?;
            let body = AskBody {
                key: &key,
                input: &input,
                source: &options.source,
                expires_at,
                face: options.face.as_str(),
            };
            tokio::select! {
                asked = asker.ask(&body, options.timeout) => asked?,
                () = &mut until_deadline => return Ok(AnswerDocument::unanswered(Unanswered::TimedOut)),
                // The wait ended before the inbox took the question: there is
                // nothing to resume, so it is no pending; say the time ran out.
                why = &mut cancelled => return Ok(AnswerDocument::unanswered(match why {
                    Leaving::Pending => Unanswered::TimedOut,
                    _ => Unanswered::Cancelled,
                })),
            }
        }
    };
    on_asked(&id, asker.client.endpoint());
    tokio::select! {
        outcome = asker.wait(&id) => outcome,
        () = &mut until_deadline => Ok(asker.leave(&id, Leaving::Timeout).await),
        why = &mut cancelled => Ok(asker.leave(&id, why).await),
    }
}

/// Resolves once `flag` is set (by a signal handler).
pub async fn flag_set(flag: Arc<AtomicBool>) {
    while !flag.load(Ordering::SeqCst) {
        tokio::time::sleep(FLAG_POLL).await;
    }
}

struct Asker {
    lookup: Lookup,
    client: Client,
    backoff: Duration,
}

impl Asker {
    /// Hands the question over, retrying the same key (so never twice).
    /// An inbox that cannot take it yet (its store does not answer, it is
    /// restarting) is retried within the timeout, and said on stderr at the
    /// first failure: an asker never waits in silence. A store that refuses
    /// writes for good (a full disk) comes back final, not retried.
    async fn ask(
        &mut self,
        body: &AskBody<'_>,
        timeout: Option<Duration>,
    ) -> Result<String, AskError> {
        let mut said = false;
        loop {
            match self.client.post::<_, Asked>("/api/ask", body).await {
                Ok(asked) => return Ok(asked.inbox_id),
                Err(Failure::Refused(err)) => return Err(err),
                Err(Failure::Unreachable(why)) => {
                    if !said {
                        eprintln!("{}", retrying(&self.client.endpoint().base, &why, timeout));
                        said = true;
                    }
                    self.pause(&why).await;
                }
            }
        }
    }

    /// Holds a wait connection until the outcome arrives.
    async fn wait(&mut self, id: &str) -> Result<AnswerDocument, AskError> {
        let path = format!("/api/questions/{id}/wait");
        loop {
            let why = match self.client.events(&path).await {
                Ok(mut events) => {
                    self.backoff = FIRST_BACKOFF;
                    if let Some(data) = events.next(SILENCE).await {
                        return read_document(&data);
                    }
                    String::from("its stream ended")
                }
                Err(Failure::Refused(err)) => return Err(err),
                Err(Failure::Unreachable(why)) => why,
            };
            self.pause(&why).await;
        }
    }

    /// Tells the inbox the asker leaves; its answer is the final document
    /// (an outcome that came first wins). Without an inbox, the local one.
    async fn leave(&mut self, id: &str, why: Leaving) -> AnswerDocument {
        let path = format!("/api/questions/{id}/leave");
        let reason = why.as_str();
        match self.client.post(&path, &LeaveBody { reason }).await {
            Ok(document) => document,
            Err(_) => {
                let how = match why {
                    Leaving::Timeout => Unanswered::TimedOut,
                    Leaving::Cancelled | Leaving::Away => Unanswered::Cancelled,
                    Leaving::Pending => {
                        return AnswerDocument::pending(id, super::hub::resume_hint(id, None));
                    }
                };
                let mut document = AnswerDocument::unanswered(how).with_inbox_id(id);
                // The question is in the inbox's store: it is kept when the inbox is back.
                if why != Leaving::Cancelled {
                    document.hint = Some(super::hub::resume_hint(id, None));
                }
                document
            }
        }
    }

    /// Waits before the next try, then looks for the inbox again (it may
    /// come back on another port), the replicas after this one first. A
    /// move to another replica is said on stderr (`why` this one failed),
    /// so that whoever runs the asker sees a replica or its store is away.
    async fn pause(&mut self, why: &str) {
        tokio::time::sleep(self.backoff).await;
        self.backoff = next_backoff(self.backoff);
        if let Ok(endpoint) = self.lookup.discover_after(&self.client.endpoint().base) {
            if let Some(line) = moved(&self.client.endpoint().base, &endpoint.base, why) {
                eprintln!("{line}");
            }
            self.client = Client::new(endpoint);
        }
    }
}

/// The stderr line of an asker moving from replica `from` to `to`; none
/// when it stays (one replica, or the lookup found the same one).
fn moved(from: &str, to: &str, why: &str) -> Option<String> {
    (from != to).then(|| {
        format!(
            "ask_user: the inbox replica at {from} did not answer ({}); asking {to}",
            ask_user_core::text::fold_line(why)
        )
    })
}

/// The stderr line of an asker whose question the inbox at `base` could
/// not take yet (`why`), said once, when it starts to retry.
fn retrying(base: &str, why: &str, timeout: Option<Duration>) -> String {
    let until = match timeout {
        Some(timeout) => format!(
            "until it can, for up to {} (the asker's timeout)",
            super::hub::human(timeout)
        ),
        None => String::from("until it can (no timeout)"),
    };
    format!(
        "ask_user: the inbox at {base} cannot store the question yet ({}); retrying {until}",
        ask_user_core::text::fold_line(why)
    )
}

/// The pause after `backoff`: twice as long, at most [`MAX_BACKOFF`].
fn next_backoff(backoff: Duration) -> Duration {
    (backoff * 2).min(MAX_BACKOFF)
}

fn read_document(data: &str) -> Result<AnswerDocument, AskError> {
    serde_json::from_str(data).map_err(|e| {
        AskError::InternalError(Detail::new(format!(
            "the inbox sent an outcome this ask_user cannot read ({e}); run the same version as the inbox"
        )))
    })
}

/// Where this asker runs: `name` (an MCP client's own), else
/// `ASK_USER_SOURCE`, else the parent process's name (Linux, Windows); the working
/// directory; the process id.
pub fn local_source(name: Option<String>) -> Source {
    let name = name
        .or_else(|| std::env::var("ASK_USER_SOURCE").ok())
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .or_else(ask_user_platform::process::parent_name);
    Source {
        name,
        cwd: std::env::current_dir()
            .ok()
            .map(|dir| dir.to_string_lossy().into_owned()),
        pid: Some(std::process::id()),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::hub::{Action, Hub};
    use crate::routes::Inbox;
    use crate::store::{Face, SqliteStore};
    use ask_user_server::{Limits, Server};

    const TOKEN: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn a_move_to_another_replica_is_one_line_and_staying_is_none() {
        assert_eq!(
            moved(
                "http://a:7",
                "http://b:7",
                "503 Service Unavailable: the inbox's store failed\n(refused)"
            )
            .as_deref(),
            Some(
                "ask_user: the inbox replica at http://a:7 did not answer (503 Service Unavailable: the inbox's store failed (refused)); asking http://b:7"
            )
        );
        assert_eq!(moved("http://a:7", "http://a:7", "gone"), None);
    }

    #[test]
    fn an_ask_that_waits_says_why_and_for_how_long() {
        assert_eq!(
            retrying(
                "http://a:7",
                "503 Service Unavailable: the inbox's store failed\n(refused)",
                Some(Duration::from_secs(90))
            ),
            "ask_user: the inbox at http://a:7 cannot store the question yet (503 Service Unavailable: the inbox's store failed (refused)); retrying until it can, for up to 90 s (the asker's timeout)"
        );
        assert_eq!(
            retrying("http://a:7", "connection refused", None),
            "ask_user: the inbox at http://a:7 cannot store the question yet (connection refused); retrying until it can (no timeout)"
        );
    }

    #[test]
    fn the_pause_before_a_reconnect_doubles_up_to_its_cap() {
        let pauses: Vec<Duration> =
            std::iter::successors(Some(FIRST_BACKOFF), |b| Some(next_backoff(*b)))
                .take(7)
                .collect();
        let millis: Vec<u128> = pauses.iter().map(Duration::as_millis).collect();
        assert_eq!(millis, [100, 200, 400, 800, 1600, 2000, 2000]);
    }

    /// A replica on `store` (several may share one SQLite file: one inbox).
    fn replica(store: &Path) -> (Arc<Hub>, Server) {
        let store = Box::new(SqliteStore::open(store).unwrap());
        let hub = Hub::new(store, Duration::from_secs(60), Duration::from_secs(3600));
        let server = Server::bind(0, Limits::default()).unwrap();
        (Arc::new(hub.unwrap()), server.with_token(TOKEN.into()))
    }

    fn options(a: &Server, b: &Server) -> AskerOptions {
        AskerOptions {
            lookup: Lookup {
                folder: None,
                address: Some(format!(
                    "http://127.0.0.1:{},http://127.0.0.1:{}",
                    a.port(),
                    b.port()
                )),
                token: Some(TOKEN.into()),
            },
            source: Source::default(),
            timeout: Some(Duration::from_secs(30)),
            face: AskingFace::Ask,
        }
    }

    fn question() -> Target {
        let input = ask_user_core::input::decode(br#"{"question":"Go?","options":["yes","no"]}"#);
        Target::Ask(input.unwrap())
    }

    /// Serves A and B while `asking` runs; its result.
    fn with_replicas<T>(
        (a, server_a): (&Arc<Hub>, Server),
        (b, server_b): (&Arc<Hub>, Server),
        asking: impl Future<Output = T>,
    ) -> T {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (app_a, app_b) = (Inbox::new(Arc::clone(a)), Inbox::new(Arc::clone(b)));
        runtime.block_on(async {
            let serving = async {
                let never = std::future::pending::<()>;
                let _ = tokio::join!(
                    server_a.serve_until(Arc::new(app_a), never()),
                    server_b.serve_until(Arc::new(app_b), never()),
                );
            };
            tokio::select! {
                () = serving => unreachable!("they serve until dropped"),
                done = asking => done,
            }
        })
    }

    #[test]
    fn an_ask_refused_by_a_stopping_replica_goes_to_the_next_one() {
        let dir = tempfile::tempdir().unwrap();
        let (a, server_a) = replica(&dir.path().join("a.sqlite3"));
        let (b, server_b) = replica(&dir.path().join("b.sqlite3"));
        let (b_base, options) = (
            format!("http://127.0.0.1:{}", server_b.port()),
            options(&server_a, &server_b),
        );
        a.drain();
        let answerer = Arc::clone(&b);
        let mut asked_at = None;
        let document = with_replicas((&a, server_a), (&b, server_b), async {
            ask(
                question(),
                options,
                std::future::pending(),
                |id, endpoint| {
                    asked_at = Some(endpoint.base.clone());
                    // Answered on B at once: the wait that follows finds it there.
                    let reply = Action::Replies(vec!["2".into()], Vec::new());
                    answerer.decide(id, reply, Face::Cli).unwrap();
                },
            )
            .await
        })
        .unwrap();
        assert_eq!(asked_at, Some(b_base), "asked on B");
        assert!(document.answered, "{document:?}");
        // A refused it (503 NO_INBOX, counted) and holds nothing.
        assert!(a.list().is_empty());
        let metrics = a.render_metrics();
        assert!(
            metrics.contains("mcp_errors_total{code=\"NO_INBOX\"} 1"),
            "{metrics}"
        );
    }

    #[test]
    fn an_asker_whose_replica_drains_waits_on_the_next_and_gets_the_answer_there() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("inbox.sqlite3");
        let (a, server_a) = replica(&store);
        let (b, server_b) = replica(&store);
        let options = options(&server_a, &server_b);
        let asked = std::cell::RefCell::new(None);
        let (drained, answerer) = (Arc::clone(&a), Arc::clone(&b));
        let document = with_replicas((&a, server_a), (&b, server_b), async {
            let asking = ask(question(), options, std::future::pending(), |id, _| {
                *asked.borrow_mut() = Some(id.to_string());
            });
            let stopping = async {
                // The asker waits on A; A drains; it waits on B; B answers.
                let id = loop {
                    let id = asked.borrow().clone();
                    if let Some(id) = id.filter(|id| drained.is_present(id) == Some(true)) {
                        break id;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                };
                drained.drain();
                while answerer.is_present(&id) != Some(true) {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                assert_eq!(drained.waiting(), 0, "gone from A");
                let reply = Action::Replies(vec!["1".into()], Vec::new());
                answerer.decide(&id, reply, Face::Cli).unwrap();
                std::future::pending::<()>().await;
            };
            tokio::select! {
                document = asking => document,
                () = stopping => unreachable!(),
            }
        })
        .unwrap();
        assert!(document.answered, "{document:?}");
        assert_eq!(document.inbox_id.as_deref(), asked.borrow().as_deref());
    }
}
