//! The inbox (DESIGN §10): one place for every question from every asker on
//! the machine, answered in one page or from another terminal, kept in a
//! SQLite store so that a restart loses nothing.
//!
//! - [`store`]: the SQLite file, the only code that writes it;
//! - [`state`]: the state folder, `inbox.json`, the token, discovery;
//! - [`hub`]: the pending questions, their waiters, and how each one ends;
//! - [`client`] and [`asker`]: the other side, for askers and the CLI verbs.

pub mod asker;
pub mod away;
pub mod channels;
pub mod client;
pub mod contact;
pub mod hub;
pub mod link_routes;
pub mod links;
pub mod listen;
pub mod metrics;
pub mod notify;
pub mod pair;
pub mod phone;
pub mod policy;
pub mod routes;
pub mod state;
pub mod statuses;
pub mod store;
pub mod tokens;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::value::RawValue;

use ask_user_core::answer::AnswerDocument;
use ask_user_core::error::{AskError, Detail};
use ask_user_server::{BindError, Limits, Server};
use client::Client;
use hub::Hub;
use state::{InboxFile, Lookup, StateDir};
use store::Location;

/// The inbox's port when `--port` is not given: fixed, so that the page can
/// be bookmarked ("ASKUS" on a phone keypad).
pub const DEFAULT_PORT: u16 = 27587;

/// How often questions whose askers went away are looked for.
const SWEEP_EVERY: Duration = Duration::from_secs(1);
/// How often the named tokens and the rules kept in the store are read again (PostgreSQL
/// replicas also hear of each change at once).
const TOKENS_EVERY: Duration = Duration::from_secs(5);
/// After a stop signal, how long a replica on PostgreSQL keeps serving
/// (everything but asks and waits) for the requests under way and the
/// askers on their way to another replica (a lone SQLite inbox has no other
/// to send them to: it stops once its waits are closed), ...
const DRAIN_LINGER: Duration = Duration::from_secs(1);
/// ... and the most the drain takes: then it stops, whatever is left.
const DRAIN_LIMIT: Duration = Duration::from_secs(5);
/// How often a drain looks whether a wait is still open.
const DRAIN_POLL: Duration = Duration::from_millis(20);

pub struct ServeOptions {
    /// Where it listens (`--port`, `--listen`) and how it is reached (TLS,
    /// `--public-url`).
    pub exposure: listen::Exposure,
    pub open_browser: bool,
    /// Replace the stored token with a new one.
    pub new_token: bool,
    /// How long a question may be without its asker before it is marked "asker gone".
    pub asker_grace: Duration,
    /// How long a question is kept after its asker gave up (`--retention`),
    /// and an outcome can be resumed.
    pub retention: Duration,
    /// `--notify`: a command run for each new question.
    pub notify: Option<notify::Notify>,
    /// `--notify-to`: channels told of each new question (and some of each close).
    pub channels: Vec<channels::Channel>,
    /// Each `--notify-to` delivery attempt's time limit (`--notify-timeout`).
    pub notify_timeout: Duration,
    /// `--store` / `ASK_USER_STORE`: where questions are kept (`None`: the
    /// state folder's `inbox.sqlite3`).
    pub store: Option<Location>,
    /// `--store-connections`: the pool's size for PostgreSQL ([`store::pool`]).
    pub store_connections: usize,
    /// `--tokens`: named person and asker tokens ([`tokens`]).
    pub tokens: Option<std::path::PathBuf>,
    /// `--policy`: people's contacts and the escalation ladder ([`policy`]),
    /// read again when the file changes.
    pub policy: Option<std::path::PathBuf>,
    /// What answers `/mcp` (the binary's MCP face); `None`: 404 there.
    pub mcp: Option<routes::McpMaker>,
}

/// Removes every `what` from `notices`; whether there was one.
fn take(notices: &mut Vec<String>, what: &str) -> bool {
    let before = notices.len();
    notices.retain(|notice| notice != what);
    notices.len() != before
}

/// STORE_ERROR for a store that cannot be opened (not there, refused, its
/// certificate not trusted, a newer schema).
fn cannot_open(location: &Location, err: &store::Error) -> AskError {
    AskError::store_error(Detail::new(format!(
        "the inbox cannot open its store {} ({err})",
        location.describe()
    )))
}

/// The state folder, made (0700) if need be.
fn state_folder() -> Result<StateDir, AskError> {
    let web_error = |message: String| AskError::WebError(Detail::new(message));
    let path = StateDir::locate().ok_or_else(|| {
        web_error(format!(
            "the inbox has no state folder: set ASK_USER_STATE_DIR (or {})",
            ask_user_platform::paths::STATE_VAR
        ))
    })?;
    StateDir::create(path.clone()).map_err(|e| {
        web_error(format!(
            "the inbox cannot create its state folder {} ({e}); set ASK_USER_STATE_DIR to a writable folder",
            path.display()
        ))
    })
}

/// `ask_user inbox`: serves the inbox until SIGINT, SIGTERM or SIGHUP.
/// Nothing is printed on stdout unless it cannot start (an error document).
pub fn serve(options: ServeOptions) -> Result<(), AskError> {
    let web_error = |message: String| AskError::WebError(Detail::new(message));
    // First: a bad policy stops the start before anything is bound or locked.
    let policy_file = match &options.policy {
        Some(path) => Some(channels::policy_file::PolicyFile::open(
            path,
            &|name: &str| std::env::var(name).ok(),
        )?),
        None => None,
    };
    let folder = state_folder()?;
    let in_folder = |what: &str, e: std::io::Error| {
        web_error(format!(
            "the inbox cannot {what} in {} ({e}); set ASK_USER_STATE_DIR to a writable folder",
            folder.path().display()
        ))
    };
    let _lock = match folder.lock().map_err(|e| in_folder("lock its state", e))? {
        Ok(lock) => lock,
        Err(holder) => {
            let at = holder
                .map(|file| format!(" at {} (pid {})", file.url, file.pid))
                .unwrap_or_default();
            return Err(web_error(format!(
                "another inbox already serves {}{at}; use that one, or set ASK_USER_STATE_DIR for a second inbox",
                folder.path().display()
            )));
        }
    };
    let token = folder
        .token(options.new_token)
        .map_err(|e| in_folder("keep its token", e))?;
    let holders = match &options.tokens {
        Some(path) => tokens::read(path, &token).map_err(web_error)?,
        None => Vec::new(),
    };
    let location = options
        .store
        .clone()
        .unwrap_or_else(|| Location::Sqlite(folder.store_path()));
    let stores = store::open_pool(&location, options.store_connections)
        .map_err(|e| cannot_open(&location, &e))?;
    let hub = Arc::new(Hub::pooled(stores, options.asker_grace, options.retention)?);
    let digests = ask_user_server::guard::Digests::default();
    hub.reload_tokens(&digests).map_err(|e| {
        AskError::store_error(Detail::new(format!(
            "the inbox cannot read the tokens kept in its store ({})",
            e.detail().message
        )))
    })?;
    hub.reload_rules().map_err(|e| {
        AskError::store_error(Detail::new(format!(
            "the inbox cannot read the rules kept in its store ({})",
            e.detail().message
        )))
    })?;
    hub.set_away_file(folder.path().join(crate::away::AWAY_FILE));
    if let Location::Postgres(url) = &location {
        // Replicas on one database are one inbox: each hears the others' changes.
        let listener = Arc::clone(&hub);
        let digests = digests.clone();
        store::postgres::listen(url, move |notice| {
            let done = match notice {
                store::postgres::Notice::Changed(mut ids) => {
                    // Each read once, however many of its notices came together.
                    let tokens_changed = take(&mut ids, store::TOKENS_CHANGED);
                    let rules_changed = take(&mut ids, store::RULES_CHANGED);
                    let tokens = if tokens_changed {
                        listener.reload_tokens(&digests)
                    } else {
                        Ok(())
                    };
                    let rules = if rules_changed {
                        listener.reload_rules()
                    } else {
                        Ok(())
                    };
                    let questions = listener.refresh_all(&ids);
                    tokens.and(rules).and(questions)
                }
                store::postgres::Notice::CatchUp => {
                    listener.set_store_reachable(true);
                    listener
                        .reload_tokens(&digests)
                        .and_then(|()| listener.reload_rules())
                        .and_then(|()| listener.resync())
                }
                store::postgres::Notice::Lost => {
                    listener.set_store_reachable(false);
                    Ok(())
                }
            };
            if let Err(e) = done {
                eprintln!("ask_user inbox: {}", e.detail().message);
            }
        })
        .map_err(|e| {
            AskError::store_error(Detail::new(format!(
                "the inbox cannot listen to its store ({e})"
            )))
        })?;
    }
    let exposure = &options.exposure;
    let address = exposure.address;
    let tls = match &exposure.tls {
        Some((cert, key)) => Some(ask_user_server::tls::acceptor(cert, key).map_err(web_error)?),
        None => None,
    };
    let server = Server::bind_to(address, Limits::default())
        .map_err(|e| match e {
            BindError::Listen(e) => web_error(format!(
                "the inbox cannot listen on {address} ({e}); is another inbox or program on it? Pass another --port (or --listen)"
            )),
            BindError::Random(e) => web_error(format!("the system random source failed ({e})")),
        })?
        .with_token(token.clone())
        .with_holders(holders)
        .with_digests(digests.clone());
    let port = server.port();
    let sites = exposure.sites(port);
    let server = server.with_sites(sites.clone());
    let server = match tls {
        Some(acceptor) => server.with_tls(acceptor),
        None => server,
    };
    // One-question links name the address people reach.
    hub.set_link_base(exposure.page_base(port));
    let base = exposure.local_base(port);
    let pid = std::process::id();
    folder
        .write_inbox_file(&InboxFile {
            url: base.clone(),
            token: token.clone(),
            pid,
        })
        .map_err(|e| in_folder("write inbox.json", e))?;
    // Before the address is out: a stop signal from then on is a clean stop.
    let stop = ask_user_platform::signals::interrupt_on_signals(ask_user_core::exit::CANCELLED);
    let url = format!("{}/?token={token}", exposure.page_base(port));
    eprintln!(
        "ask_user inbox: serving {url}\nask_user inbox: {} pending; store {}; state in {}; Ctrl-C stops it",
        hub.list().len(),
        location.describe(),
        folder.path().display()
    );
    if let Some((file, loaded)) = &policy_file {
        eprintln!(
            "ask_user inbox: policy {} ({})",
            file.path().display(),
            loaded.summary()
        );
    }
    if options.open_browser {
        ask_user_platform::paths::open_in_browser(&url);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        // Asks and answers wait for the store on blocking threads (the
        // routes' `off_thread`); more of them than the pool has connections
        // only queue, so a burst of calls is held to 64 threads, not the
        // 512 that tokio (and the server's connection cap) would allow.
        .max_blocking_threads(64)
        .build()
        .map_err(|e| web_error(format!("the inbox cannot start ({e})")))?;
    let pairing = pair::Pairing {
        base: pair::reachable_base(exposure, port),
        digests: digests.clone(),
    };
    let until_stopped = {
        let hub = Arc::clone(&hub);
        let announce = options
            .notify
            .map(|command| notify::announce(command, hub.changes()));
        let channels = options.channels;
        let source = exposure.page_base(port);
        let notify_timeout = options.notify_timeout;
        let routing = (!channels.is_empty() || policy_file.is_some()).then(|| {
            let hub = Arc::clone(&hub);
            move || {
                let router = channels::route::Router::new(
                    channels,
                    Arc::clone(&hub),
                    Arc::new(channels::HubLinks(Arc::clone(&hub))),
                    channels::Context {
                        timeout: notify_timeout,
                        source,
                    },
                );
                let watching = policy_file.map(|(file, loaded)| {
                    router.set_policy(loaded);
                    let router = Arc::clone(&router);
                    channels::policy_file::watch(file, move |loaded| router.set_policy(loaded))
                });
                (router, watching)
            }
        });
        async move {
            // Inside the runtime: the channels' workers start here.
            let (router, watching) = match routing.map(|start| start()) {
                Some((router, watching)) => (Some(router), watching),
                None => (None, None),
            };
            let deliveries = router.clone().map(|router| router.run());
            let escalating = router.map(|router| router.escalate());
            let mut sweep = tokio::time::interval(SWEEP_EVERY);
            let mut reread = tokio::time::interval(TOKENS_EVERY);
            sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            reread.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // Both call the store: on the blocking threads, never on the
            // server's one thread (a slow or locked store would hold every
            // request meanwhile), and one at a time each.
            tokio::select! {
                () = asker::flag_set(stop) => {}
                _ = async {
                    loop {
                        sweep.tick().await;
                        let hub = Arc::clone(&hub);
                        let _ = ask_user_server::blocking::blocking(move || {
                            hub.sweep(Instant::now(), store::now_ms())
                        })
                        .await;
                    }
                } => {}
                // `inbox token` and `inbox rule` from another process (SQLite;
                // PostgreSQL replicas also hear of them at once).
                _ = async {
                    loop {
                        reread.tick().await;
                        let (hub, digests) = (Arc::clone(&hub), digests.clone());
                        let reread = ask_user_server::blocking::blocking(move || {
                            hub.reload_tokens(&digests).and_then(|()| hub.reload_rules())
                        })
                        .await;
                        if let Some(Err(e)) = reread {
                            eprintln!("ask_user inbox: {}", e.detail().message);
                        }
                    }
                } => {}
                // Never ends the inbox, even if the announcing stops.
                () = async {
                    if let Some(run) = announce {
                        run.await;
                    }
                    std::future::pending::<()>().await
                } => {}
                // Nor the deliveries.
                () = async {
                    if let Some(run) = deliveries {
                        run.await;
                    }
                    std::future::pending::<()>().await
                } => {}
                // The escalation ladder (never ends).
                () = async {
                    if let Some(run) = escalating {
                        run.await;
                    }
                    std::future::pending::<()>().await
                } => {}
                // `--policy`, read again when it changes (never ends).
                () = async {
                    if let Some(watch) = watching {
                        watch.await;
                    }
                    std::future::pending::<()>().await
                } => {}
            }
            // No more sweeps: an asker that moves to another replica now
            // must not be marked gone by this one.
            eprintln!(
                "ask_user inbox: stopping: no new question or wait is taken; {} waiting asker(s) told to reconnect",
                hub.waiting()
            );
            let linger = match hub.store_kind() {
                "postgres" => DRAIN_LINGER,
                _ => Duration::ZERO,
            };
            drain(&hub, linger, DRAIN_LIMIT).await;
        }
    };
    let app = routes::Inbox::new(hub)
        .with_away_file(folder.path().join(crate::away::AWAY_FILE))
        .with_pairing(pairing);
    let app = match options.mcp {
        Some(make) => app.with_mcp(make(&sites)),
        None => app,
    };
    let served = runtime.block_on(server.serve_until(Arc::new(app), until_stopped));
    folder.remove_inbox_file(pid);
    served.map_err(|e| web_error(format!("the inbox failed ({e})")))?;
    eprintln!("ask_user inbox: stopped; pending questions wait in the store for the next start");
    Ok(())
}

/// The drain after a stop signal (SIGTERM, SIGINT, SIGHUP): the replica
/// takes no new ask or wait (503 `NO_INBOX`, and `/readyz` says
/// `draining`), ends every open wait so that its asker reconnects (to the
/// next replica in its list), and serves everything else for `linger` and
/// until no wait is open; `limit` bounds it all.
async fn drain(hub: &Hub, linger: Duration, limit: Duration) {
    hub.drain();
    let settled = async {
        tokio::time::sleep(linger).await;
        while hub.waiting() > 0 {
            tokio::time::sleep(DRAIN_POLL).await;
        }
    };
    let _ = tokio::time::timeout(limit, settled).await;
}

/// The store `location` names, or the state folder's SQLite file (the
/// folder made if need be), opened and migrated: for `inbox token`.
pub fn open_store(
    location: Option<Location>,
) -> Result<(Box<dyn store::Store>, Location), AskError> {
    let location = match location {
        Some(location) => location,
        None => Location::Sqlite(state_folder()?.store_path()),
    };
    let store = store::open(&location).map_err(|e| cannot_open(&location, &e))?;
    Ok((store, location))
}

/// `ask_user inbox list`: one JSON line per pending question, oldest first.
pub fn list() -> Result<Vec<String>, AskError> {
    run(|client| async move {
        let listed: Vec<Box<RawValue>> = client.get("/api/questions").await?;
        Ok(listed
            .into_iter()
            .map(|item| item.get().to_string())
            .collect())
    })
}

/// `ask_user inbox history [--limit N]`: one JSON line per decided
/// question, the most recently decided first.
pub fn history(limit: Option<usize>) -> Result<Vec<String>, AskError> {
    let path = match limit {
        Some(limit) => format!("/api/history?limit={limit}"),
        None => "/api/history".to_string(),
    };
    run(|client| async move {
        let entries: Vec<Box<RawValue>> = client.get(&path).await?;
        Ok(entries
            .into_iter()
            .map(|entry| entry.get().to_string())
            .collect())
    })
}

#[derive(Serialize)]
struct Replies<'a> {
    replies: &'a [String],
    /// The note on each reply, when there is one (none: no key, as before notes).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    notes: &'a [Option<String>],
}

#[derive(Serialize)]
struct Empty {}

/// `ask_user inbox answer ID --reply …`: the answer document its asker gets.
/// For a question that needs approvals, this is a vote: while it stays
/// open, the vote's receipt comes back instead of an answer document.
pub fn answer(
    id: &str,
    replies: &[String],
    notes: &[Option<String>],
) -> Result<hub::votes::Replied, AskError> {
    let path = question_path(id, "reply")?;
    let notes = if notes.iter().all(Option::is_none) {
        &[]
    } else {
        notes
    };
    run(|client| async move { client.post(&path, &Replies { replies, notes }).await })
}

/// `ask_user inbox cancel ID`: the cancelled document its asker gets.
pub fn cancel(id: &str) -> Result<AnswerDocument, AskError> {
    let path = question_path(id, "cancel")?;
    run(|client| async move { client.post(&path, &Empty {}).await })
}

/// `/api/questions/ID/VERB`, for an id that can be one (anything else
/// names no question, and must not reach the URL).
fn question_path(id: &str, verb: &str) -> Result<String, AskError> {
    if store::is_id(id) {
        Ok(format!("/api/questions/{id}/{verb}"))
    } else {
        Err(hub::unknown_question(id))
    }
}

/// Runs one request of a CLI verb against the running inbox.
fn run<T, F, Fut>(call: F) -> Result<T, AskError>
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = Result<T, client::Failure>>,
{
    let endpoint = Lookup::from_env()
        .discover()
        .map_err(|missing| AskError::NoInbox(Detail::new(missing.message())))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| AskError::InternalError(Detail::new(format!("no async runtime ({e})"))))?;
    let client = Client::new(endpoint.clone());
    runtime
        .block_on(call(client))
        .map_err(|failure| failure.into_error(&endpoint))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A day, as `--retention` is when not given.
    const RETENTION: Duration = Duration::from_secs(24 * 3600);

    fn hub_with_a_waiter() -> (tempfile::TempDir, Arc<Hub>, hub::Waiter) {
        let dir = tempfile::tempdir().unwrap();
        let store = store::SqliteStore::open(&dir.path().join("inbox.sqlite3")).unwrap();
        let hub = Arc::new(Hub::new(Box::new(store), Duration::from_secs(60), RETENTION).unwrap());
        let request: hub::AskRequest = serde_json::from_str(
            r#"{"key":"k1","input":{"question":"Go?","options":["yes","no"]}}"#,
        )
        .unwrap();
        let id = hub.ask(&request).unwrap().inbox_id;
        let Ok(hub::Wait::Pending(waiter)) = hub.wait(&id) else {
            panic!("pending");
        };
        (dir, hub, waiter)
    }

    /// How long `drain(hub, linger, limit)` takes, after `during` ran beside it.
    fn drain_time(
        hub: &Hub,
        linger: Duration,
        limit: Duration,
        during: impl std::future::Future<Output = ()>,
    ) -> Duration {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let started = Instant::now();
        runtime.block_on(async {
            tokio::join!(drain(hub, linger, limit), during);
        });
        started.elapsed()
    }

    #[test]
    fn a_drain_lingers_then_ends_once_no_wait_is_open_and_at_its_limit_at_the_latest() {
        let ms = Duration::from_millis;
        // A wait that stays open (an asker that never lets go): the limit.
        let (_dir, hub, waiter) = hub_with_a_waiter();
        let took = drain_time(&hub, ms(50), ms(400), async {});
        assert!(hub.is_draining());
        assert!(took >= ms(400) && took < ms(2000), "{took:?}");
        drop(waiter);
        // Nothing waits: the linger.
        let took = drain_time(&hub, ms(100), ms(5000), async {});
        assert!(took >= ms(100) && took < ms(1000), "{took:?}");
        // A wait that closes after the linger: then.
        let (_dir, hub, waiter) = hub_with_a_waiter();
        let took = drain_time(&hub, ms(50), ms(5000), async move {
            tokio::time::sleep(ms(300)).await;
            drop(waiter);
        });
        assert!(took >= ms(300) && took < ms(1500), "{took:?}");
    }
}
