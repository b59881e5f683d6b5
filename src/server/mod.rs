//! The one HTTP server every page of the binary runs on (the answer page now,
//! the inbox next): HTTP/1.1 by hyper on the tokio runtime, bound to
//! 127.0.0.1 only, behind a 128-bit token.
//!
//! An [`App`] supplies the routes; the server supplies the guarantees, for
//! every app alike, against any local process that connects without the token:
//! - the request head must be complete within [`Limits::header_time`] and
//!   [`Limits::max_header_bytes`] (16 KiB), or the connection closes (431 for
//!   a head too large); the same time limit applies to an idle connection
//!   between requests;
//! - a request that does not prove the token (its Host and token, see
//!   [`guard`]) is refused from its head alone and the connection closes: its
//!   body is never waited for, whatever it declares;
//! - a declared body over [`Limits::max_body_bytes`] is refused (413) before
//!   anything is read or allocated for it; an app reads a body only within
//!   that size and [`Limits::body_time`];
//! - requests without the token are limited to [`Limits::tokenless_per_window`]
//!   per [`Limits::rate_window`] (then 429); requests with it are never
//!   counted and never limited;
//! - at most [`Limits::max_connections`] connections are open; at the cap a
//!   new one evicts the oldest connection that has not yet proven the token,
//!   and connections that have proven it are never evicted;
//! - an error from `accept` (no file descriptors left: EMFILE) evicts the
//!   oldest unproven connection and pauses accepting briefly, never spins.
//!
//! Responses carry the protective headers of [`response`]. Serving stops when
//! the future given to [`Server::serve_until`] completes: the listener and
//! every connection are closed before it returns (or when it is dropped).

pub mod guard;
pub mod request;
pub mod response;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{Ipv4Addr, TcpListener as StdListener};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body::Body as _;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinSet;

use guard::{Guard, Rejection, TokenlessLimit};
pub use request::Request;
pub use response::{Body, Reply};

/// The server's limits. [`Limits::default`] is what the binary ships; tests
/// may lower them to reach a limit quickly.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest request head (request line and headers); more gets 431.
    pub max_header_bytes: usize,
    /// Time to send a whole request head, from the connection's start or the
    /// end of the previous response; then the connection closes.
    pub header_time: Duration,
    /// Largest request body; a larger declared or sent one gets 413.
    pub max_body_bytes: usize,
    /// Time to send a whole request body once the app reads it; then 408.
    pub body_time: Duration,
    /// Connections open at once.
    pub max_connections: usize,
    /// Requests without the token allowed in any [`Limits::rate_window`]; more get 429.
    pub tokenless_per_window: usize,
    pub rate_window: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_header_bytes: 16 * 1024,
            header_time: Duration::from_secs(10),
            max_body_bytes: 64 * 1024,
            body_time: Duration::from_secs(10),
            max_connections: 512,
            tokenless_per_window: 100,
            rate_window: Duration::from_secs(60),
        }
    }
}

/// hyper's smallest read buffer; a smaller header limit cannot be enforced.
const MIN_HEADER_BYTES: usize = 8192;
/// The first pause after a failed `accept`; it doubles up to [`MAX_ACCEPT_PAUSE`].
const FIRST_ACCEPT_PAUSE: Duration = Duration::from_millis(10);
const MAX_ACCEPT_PAUSE: Duration = Duration::from_millis(500);

/// What a page serves: its routes. Every request it sees has passed the
/// server's checks (Host, token, and for POSTs Origin and JSON).
pub trait App: Send + Sync + 'static {
    fn respond(&self, request: Request) -> impl Future<Output = Reply> + Send;
}

/// A bound, not yet serving, server.
pub struct Server {
    listener: StdListener,
    port: u16,
    guard: Guard,
    limits: Limits,
}

impl Server {
    /// Binds 127.0.0.1:`port` (0: a free port) and makes the token; nothing
    /// is served until [`serve_until`](Self::serve_until).
    pub fn bind(port: u16, limits: Limits) -> Result<Server, BindError> {
        let listener = StdListener::bind((Ipv4Addr::LOCALHOST, port)).map_err(BindError::Listen)?;
        listener.set_nonblocking(true).map_err(BindError::Listen)?;
        let port = listener.local_addr().map_err(BindError::Listen)?.port();
        let guard = Guard::new(port).map_err(BindError::Random)?;
        Ok(Server {
            listener,
            port,
            guard,
            limits: Limits {
                max_header_bytes: limits.max_header_bytes.max(MIN_HEADER_BYTES),
                ..limits
            },
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn token(&self) -> &str {
        self.guard.token()
    }

    /// Serves `app` until `until` completes, then closes the listener and
    /// every connection, and returns what `until` gave. Must run inside a
    /// tokio runtime with IO and time enabled.
    pub async fn serve_until<A: App, T>(
        self,
        app: Arc<A>,
        until: impl Future<Output = T>,
    ) -> std::io::Result<T> {
        let listener = TcpListener::from_std(self.listener)?;
        let shared = Arc::new(Shared {
            tokenless: TokenlessLimit::new(
                self.limits.tokenless_per_window,
                self.limits.rate_window,
            ),
            guard: self.guard,
            limits: Arc::new(self.limits),
            connections: Mutex::new(Connections::default()),
            app,
        });
        let mut tasks = JoinSet::new();
        let outcome = {
            let accepting = accept_loop(&listener, &shared, &mut tasks);
            tokio::select! {
                outcome = until => outcome,
                never = accepting => match never {},
            }
        };
        drop(listener);
        tasks.shutdown().await;
        Ok(outcome)
    }
}

/// Why a server could not start.
#[derive(Debug)]
pub enum BindError {
    Listen(std::io::Error),
    Random(getrandom::Error),
}

/// What every connection shares.
struct Shared<A> {
    guard: Guard,
    limits: Arc<Limits>,
    tokenless: TokenlessLimit,
    connections: Mutex<Connections>,
    app: Arc<A>,
}

impl<A> Shared<A> {
    fn connections(&self) -> std::sync::MutexGuard<'_, Connections> {
        self.connections.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One open connection, as the eviction rule sees it.
#[derive(Default)]
struct Connection {
    /// Set once a request on it carried the token: never evicted then.
    proven: AtomicBool,
    evicted: Notify,
}

/// The open connections, oldest first (ids grow).
#[derive(Default)]
struct Connections {
    next_id: u64,
    open: BTreeMap<u64, Arc<Connection>>,
}

impl Connections {
    /// Registers a new connection, evicting the oldest unproven one at the
    /// cap; `None` when the cap is reached by proven connections alone.
    fn admit(&mut self, cap: usize) -> Option<(u64, Arc<Connection>)> {
        if self.open.len() >= cap && !self.evict_oldest_unproven() {
            return None;
        }
        let id = self.next_id;
        self.next_id += 1;
        let connection = Arc::new(Connection::default());
        self.open.insert(id, Arc::clone(&connection));
        Some((id, connection))
    }

    /// Closes the oldest connection that has not proven the token; false when
    /// there is none.
    fn evict_oldest_unproven(&mut self) -> bool {
        let oldest = self
            .open
            .iter()
            .find(|(_, c)| !c.proven.load(Ordering::SeqCst))
            .map(|(&id, _)| id);
        match oldest.and_then(|id| self.open.remove(&id)) {
            Some(connection) => {
                connection.evicted.notify_one();
                true
            }
            None => false,
        }
    }
}

/// Accepts until dropped.
///
/// When the process runs out of file descriptors, accept fails (EMFILE) even
/// with nobody waiting, so the loop keeps one spare descriptor: it closes the
/// spare to accept the newcomer on its descriptor, and evicts the oldest
/// unproven connection to free another. Without a spare (none could be
/// reopened yet) it pauses, as after any other error, so a lasting error
/// cannot spin.
async fn accept_loop<A: App>(
    listener: &TcpListener,
    shared: &Arc<Shared<A>>,
    tasks: &mut JoinSet<()>,
) -> Infallible {
    let mut pause = FIRST_ACCEPT_PAUSE;
    let mut spare = spare_descriptor();
    loop {
        // Finished connections leave the set here, so it stays small.
        while tasks.try_join_next().is_some() {}
        if spare.is_none() {
            spare = spare_descriptor();
        }
        let accepted = match listener.accept().await {
            Ok((stream, _)) => Some(stream),
            Err(_) if spare.is_some() => {
                // Is anyone waiting? The spare's descriptor lets us look.
                drop(spare.take());
                let newcomer =
                    std::future::poll_fn(|cx| std::task::Poll::Ready(listener.poll_accept(cx)))
                        .await;
                match newcomer {
                    std::task::Poll::Ready(Ok((stream, _))) => {
                        shared.connections().evict_oldest_unproven();
                        Some(stream)
                    }
                    _ => None,
                }
            }
            Err(_) => None,
        };
        match accepted {
            Some(stream) => {
                pause = FIRST_ACCEPT_PAUSE;
                let admitted = shared.connections().admit(shared.limits.max_connections);
                // Without room the stream is dropped: the connection closes at once.
                if let Some((id, connection)) = admitted {
                    tasks.spawn(serve_connection(stream, Arc::clone(shared), id, connection));
                }
            }
            None => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(MAX_ACCEPT_PAUSE);
            }
        }
    }
}

/// A descriptor held in reserve for [`accept_loop`] (`None` when none is left).
fn spare_descriptor() -> Option<std::fs::File> {
    std::fs::File::open("/dev/null").ok()
}

/// Removes a connection from the registry however its task ends.
struct Registered<A> {
    shared: Arc<Shared<A>>,
    id: u64,
}

impl<A> Drop for Registered<A> {
    fn drop(&mut self) {
        self.shared.connections().open.remove(&self.id);
    }
}

async fn serve_connection<A: App>(
    stream: TcpStream,
    shared: Arc<Shared<A>>,
    id: u64,
    connection: Arc<Connection>,
) {
    let registered = Registered {
        shared: Arc::clone(&shared),
        id,
    };
    let _ = stream.set_nodelay(true);
    let limits = Arc::clone(&shared.limits);
    let proven = Arc::clone(&connection);
    let service = service_fn(move |request| {
        let shared = Arc::clone(&shared);
        let connection = Arc::clone(&proven);
        async move { Ok::<_, Infallible>(handle(&shared, &connection, request).await) }
    });
    let serving = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_time)
        .max_buf_size(limits.max_header_bytes)
        .serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        _ = serving => {}
        () = connection.evicted.notified() => {}
    }
    drop(registered);
}

/// The checks, in order, then the app.
async fn handle<A: App>(
    shared: &Shared<A>,
    connection: &Connection,
    request: http::Request<Incoming>,
) -> http::Response<Body> {
    let (parts, body) = request.into_parts();
    match admit(shared, &parts, &body, Instant::now()) {
        Err(rejection) => Reply::refusal(rejection).into_response(),
        Ok(()) => {
            connection.proven.store(true, Ordering::SeqCst);
            let request = Request::new(parts, body, Arc::clone(&shared.limits));
            shared.app.respond(request).await.into_response()
        }
    }
}

/// 1. A request that does not prove the token counts toward the tokenless
///    limit (429 over it); one that does is never counted.
/// 2. A declared body over the limit: 413, whoever sends it.
/// 3. Wrong Host: 403; no or a wrong token: 401.
/// 4. POSTs: the page's own Origin (403) and JSON (415).
fn admit<A>(
    shared: &Shared<A>,
    parts: &http::request::Parts,
    body: &Incoming,
    now: Instant,
) -> Result<(), Rejection> {
    let proof = shared.guard.prove(parts);
    if proof.is_err() && !shared.tokenless.allow(now) {
        return Err(Rejection::TooManyRequests);
    }
    if body.size_hint().lower() > shared.limits.max_body_bytes as u64 {
        return Err(Rejection::TooLarge);
    }
    proof?;
    shared.guard.check_post(parts)
}

impl std::fmt::Display for BindError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BindError::Listen(e) => write!(f, "{e}"),
            BindError::Random(e) => write!(f, "the system random source failed ({e})"),
        }
    }
}
