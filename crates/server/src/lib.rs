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
//! - when `accept` fails for want of file descriptors (EMFILE, ENFILE), the
//!   server says so on stderr (at most once a minute), pauses, then evicts the
//!   oldest unproven connection; when every connection has proven the token,
//!   a spare descriptor lets the waiting connections in one request at a
//!   time. Any failing `accept` pauses (doubling), so it never spins.
//! - a connection ends with a lingering close (`linger.rs`: at most 1 s and
//!   64 KiB), so that a refusal sent before the request was read reaches the
//!   client on Windows too.
//!
//! Every POST must carry the server's own `Origin` and a JSON body; clients
//! that are not browsers (an asker holding the token) send that Origin too.
//! A route may take POSTs without an Origin ([`App::origins`]: the inbox's
//! `/mcp`, for MCP clients); one that is sent must still be ours.
//!
//! No server publishes metadata: `/.well-known/…` is 404 for everyone (after
//! the Host check and the tokenless count), so that no MCP client finds
//! OAuth metadata and starts OAuth instead of sending its bearer token.
//!
//! Responses carry the protective headers of [`response`]. Serving stops when
//! the future given to [`Server::serve_until`] completes: the listener and
//! every connection are closed before it returns (or when it is dropped).

pub mod blocking;
pub mod form;
pub mod guard;
mod linger;
pub mod request;
pub mod response;
pub mod tls;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::Future;
use std::io::Write as _;
use std::net::{Ipv4Addr, SocketAddr, TcpListener as StdListener};
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
pub use guard::{Origins, Site};
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
/// Running out of descriptors is said on stderr at most this often.
const EXHAUSTION_REPORT_EVERY: Duration = Duration::from_secs(60);

/// What a page serves: its routes. Every request it sees has passed the
/// server's checks (Host, token, and for POSTs Origin and JSON).
pub trait App: Send + Sync + 'static {
    fn respond(&self, request: Request) -> impl Future<Output = Reply> + Send;

    /// The largest body this route takes, when it is not
    /// [`Limits::max_body_bytes`] (the inbox takes whole tool inputs).
    fn max_body_bytes(&self, _method: &http::Method, _path: &str) -> Option<usize> {
        None
    }

    /// Whether this route's POSTs must carry our `Origin`
    /// ([`Origins::Required`], every route unless the app says otherwise).
    fn origins(&self, _path: &str) -> Origins {
        Origins::Required
    }
    /// Whether this GET route is served without the token (the inbox's
    /// `/healthz` and `/readyz`, for load balancers and orchestrators; the
    /// phone's shell, crates/inbox/src/phone.rs). It still needs our Host, counts
    /// toward the tokenless limit, and never makes its connection a proven
    /// one.
    fn tokenless(&self, _path: &str) -> bool {
        false
    }

    /// Whether this route is reached by a capability in its path instead of
    /// the token (the inbox's one-question links, `/l/…`): any method, our
    /// Host, and for POSTs the Origin rule of [`App::origins`] and JSON.
    /// Such requests count toward the tokenless limit, as token guesses do
    /// (the app checks the capability), and never prove their connection.
    fn capability(&self, _path: &str) -> bool {
        false
    }

    /// Whether this POST route is served without the token (the inbox's
    /// pairing claim, whose code is its proof). The same as
    /// [`App::tokenless`], and it still needs the page's own Origin and JSON.
    fn tokenless_post(&self, _path: &str) -> bool {
        false
    }
}

/// A bound, not yet serving, server.
pub struct Server {
    listener: StdListener,
    address: SocketAddr,
    guard: Guard,
    limits: Limits,
    tls: Option<tokio_rustls::TlsAcceptor>,
}

impl Server {
    /// Binds 127.0.0.1:`port` (0: a free port) and makes the token; nothing
    /// is served until [`serve_until`](Self::serve_until).
    pub fn bind(port: u16, limits: Limits) -> Result<Server, BindError> {
        Server::bind_to(SocketAddr::from((Ipv4Addr::LOCALHOST, port)), limits)
    }

    /// Binds `address` (port 0: a free port). The server still answers only
    /// to 127.0.0.1 and localhost on its port until
    /// [`with_sites`](Self::with_sites) says otherwise.
    pub fn bind_to(address: SocketAddr, limits: Limits) -> Result<Server, BindError> {
        let listener = StdListener::bind(address).map_err(BindError::Listen)?;
        listener.set_nonblocking(true).map_err(BindError::Listen)?;
        let address = listener.local_addr().map_err(BindError::Listen)?;
        let guard = Guard::new(address.port()).map_err(BindError::Random)?;
        Ok(Server {
            listener,
            address,
            tls: None,
            guard,
            limits: Limits {
                max_header_bytes: limits.max_header_bytes.max(MIN_HEADER_BYTES),
                ..limits
            },
        })
    }

    pub fn port(&self) -> u16 {
        self.address.port()
    }

    /// The address bound (with the port chosen for port 0).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Takes the named tokens `digests` holds too (the inbox's store's),
    /// as they are when each request comes.
    pub fn with_digests(mut self, digests: guard::Digests) -> Server {
        self.guard = self.guard.with_digests(digests);
        self
    }

    /// Answers to these sites (Host and Origin) instead of loopback's.
    pub fn with_sites(mut self, sites: Vec<Site>) -> Server {
        self.guard = self.guard.with_sites(sites);
        self
    }

    /// Speaks TLS on every connection: a handshake that is not done within
    /// [`Limits::header_time`] closes the connection.
    pub fn with_tls(mut self, acceptor: tokio_rustls::TlsAcceptor) -> Server {
        self.tls = Some(acceptor);
        self
    }

    pub fn token(&self) -> &str {
        self.guard.token()
    }

    /// Serves with `token` instead of a fresh one (the inbox keeps its token
    /// across restarts).
    pub fn with_token(mut self, token: String) -> Server {
        self.guard = self.guard.with_own_token(token);
        self
    }

    /// Takes these named tokens too ([`guard::Holder`]); the app sees who
    /// holds a request's token ([`Request::holder`]).
    pub fn with_holders(mut self, holders: Vec<(String, guard::Holder)>) -> Server {
        self.guard = self.guard.with_holders(holders);
        self
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
            tls: self.tls,
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
    tls: Option<tokio_rustls::TlsAcceptor>,
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
/// When the process runs out of file descriptors, `accept` fails (EMFILE)
/// even with nobody waiting, and keeps failing until a descriptor is freed.
/// The loop then pauses first (so it cannot spin, and so the connections it
/// has just accepted read their requests: one carrying the token is proven
/// before anything is evicted), then frees a descriptor by evicting the
/// oldest unproven connection. When every connection has proven the token,
/// it keeps one spare descriptor instead: it closes the spare to accept one
/// waiting connection, which is served one request and closed, so that the
/// spare comes back for the next (the person's answer among them). Without
/// a spare (that connection still holds it) the pause doubles up to
/// [`MAX_ACCEPT_PAUSE`], as after any other error.
async fn accept_loop<A: App>(
    listener: &TcpListener,
    shared: &Arc<Shared<A>>,
    tasks: &mut JoinSet<()>,
) -> Infallible {
    let mut pause = FIRST_ACCEPT_PAUSE;
    let mut spare = spare_descriptor();
    let mut report = ExhaustionReport::default();
    loop {
        // Finished connections leave the set here, so it stays small.
        while tasks.try_join_next().is_some() {}
        if spare.is_none() {
            spare = spare_descriptor();
        }
        let error = match listener.accept().await {
            Ok((stream, _)) => {
                pause = FIRST_ACCEPT_PAUSE;
                spawn_connection(stream, shared, tasks, KeepAlive::Yes);
                continue;
            }
            Err(error) => error,
        };
        let exhausted = out_of_descriptors(&error);
        if exhausted && let Some(line) = report.failed(&error, Instant::now()) {
            // A closed stderr must not stop the server.
            let _ = writeln!(std::io::stderr(), "{line}");
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(MAX_ACCEPT_PAUSE);
        if !exhausted {
            continue;
        }
        if shared.connections().evict_oldest_unproven() {
            // Its descriptor is free once its task has run.
            tokio::task::yield_now().await;
        } else if let Some(spare) = spare.take() {
            drop(spare);
            let waiting =
                std::future::poll_fn(|cx| std::task::Poll::Ready(listener.poll_accept(cx))).await;
            if let std::task::Poll::Ready(Ok((stream, _))) = waiting {
                pause = FIRST_ACCEPT_PAUSE;
                spawn_connection(stream, shared, tasks, KeepAlive::No);
            }
        }
    }
}

/// Whether a connection may carry more than one request.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum KeepAlive {
    Yes,
    /// One request, then the connection closes (its descriptor is the spare's).
    No,
}

/// Registers `stream` and serves it on a task of its own; without room (the
/// cap is reached by proven connections alone) it is dropped: the
/// connection closes at once.
fn spawn_connection<A: App>(
    stream: TcpStream,
    shared: &Arc<Shared<A>>,
    tasks: &mut JoinSet<()>,
    keep_alive: KeepAlive,
) {
    let admitted = shared.connections().admit(shared.limits.max_connections);
    if let Some((id, connection)) = admitted {
        let serving = serve_connection(stream, Arc::clone(shared), id, connection, keep_alive);
        tasks.spawn(serving);
    }
}

/// Whether `accept` failed for want of file descriptors (the process's or
/// the system's).
fn out_of_descriptors(error: &std::io::Error) -> bool {
    ask_user_platform::net::out_of_descriptors(error)
}

/// Says on stderr that `accept` fails for want of descriptors: the first
/// time at once, then at most once every [`EXHAUSTION_REPORT_EVERY`], with
/// how many accepts have failed so far.
#[derive(Default)]
struct ExhaustionReport {
    failed: u64,
    said_at: Option<Instant>,
}

impl ExhaustionReport {
    /// Counts one failed `accept`; the line to print, when one is due.
    fn failed(&mut self, error: &std::io::Error, now: Instant) -> Option<String> {
        self.failed += 1;
        if self
            .said_at
            .is_some_and(|said| now.duration_since(said) < EXHAUSTION_REPORT_EVERY)
        {
            return None;
        }
        self.said_at = Some(now);
        let times = if self.failed == 1 { "time" } else { "times" };
        Some(format!(
            "ask_user: out of file descriptors: accept failed ({error}), {} {times} so far; \
             connections without the token are closed to make room, the others are served \
             one request at a time; raise the limit (ulimit -n) if this lasts",
            self.failed
        ))
    }
}

/// A descriptor held in reserve for [`accept_loop`] (`None` when none is left).
fn spare_descriptor() -> Option<std::fs::File> {
    ask_user_platform::net::spare_descriptor()
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
    keep_alive: KeepAlive,
) {
    let registered = Registered {
        shared: Arc::clone(&shared),
        id,
    };
    let _ = stream.set_nodelay(true);
    let stream = Arc::new(stream);
    let limits = Arc::clone(&shared.limits);
    let proven = Arc::clone(&connection);
    let tls = shared.tls.clone();
    let service = service_fn(move |request| {
        let shared = Arc::clone(&shared);
        let connection = Arc::clone(&proven);
        async move { Ok::<_, Infallible>(handle(&shared, &connection, request).await) }
    });
    let http = {
        let mut http = http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(limits.header_time)
            .max_buf_size(limits.max_header_bytes)
            .keep_alive(keep_alive == KeepAlive::Yes);
        http
    };
    let io = linger::SharedStream(Arc::clone(&stream));
    let serving = async {
        match tls {
            None => {
                let _ = http.serve_connection(TokioIo::new(io), service).await;
            }
            Some(acceptor) => {
                // The handshake counts against the head's time: a client
                // that never finishes it holds nothing for long.
                let handshake = tokio::time::timeout(limits.header_time, acceptor.accept(io));
                if let Ok(Ok(tls)) = handshake.await {
                    let _ = http.serve_connection(TokioIo::new(tls), service).await;
                }
            }
        }
    };
    let evicted = tokio::select! {
        _ = serving => false,
        () = connection.evicted.notified() => true,
    };
    // A refusal sent before the request was read (431, 413) must reach the
    // client before the socket closes (linger.rs); eviction ends it at once.
    if !evicted {
        tokio::select! {
            () = linger::linger(&stream) => {}
            () = connection.evicted.notified() => {}
        }
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
    let max_body = shared
        .app
        .max_body_bytes(&parts.method, parts.uri.path())
        .unwrap_or(shared.limits.max_body_bytes);
    match admit(shared, &parts, &body, max_body, Instant::now()) {
        Err(rejection) => Reply::refusal(rejection).into_response(),
        Ok(holder) => {
            if holder.is_some() {
                connection.proven.store(true, Ordering::SeqCst);
            }
            let request = Request::new(parts, body, max_body, Arc::clone(&shared.limits), holder);
            shared.app.respond(request).await.into_response()
        }
    }
}

/// 1. A request that does not prove the token counts toward the tokenless
///    limit (429 over it); one that does is never counted.
/// 2. A declared body over the limit: 413, whoever sends it.
/// 3. Wrong Host: 403; no or a wrong token: 401.
/// 4. `/.well-known/…`: 404, with or without the token.
/// 5. A GET of one of the app's tokenless routes, or a POST to one of its
///    tokenless POST routes, passes without the token (`Ok(None)`: nobody
///    proven); the POST still needs 7.
/// 6. A request to one of the app's capability routes passes without the
///    token, a POST after the Origin and JSON checks (`Ok(None)`).
/// 7. POSTs: the page's own Origin (403; for some routes only when one is
///    sent) and JSON (415).
fn admit<A: App>(
    shared: &Shared<A>,
    parts: &http::request::Parts,
    body: &Incoming,
    max_body: usize,
    now: Instant,
) -> Result<Option<guard::Holder>, Rejection> {
    let proof = shared.guard.prove(parts);
    if proof.is_err() && !shared.tokenless.allow(now) {
        return Err(Rejection::TooManyRequests);
    }
    if body.size_hint().lower() > max_body as u64 {
        return Err(Rejection::TooLarge);
    }
    if parts.uri.path().starts_with("/.well-known/") && proof != Err(Rejection::WrongHost) {
        return Err(Rejection::NoMetadata);
    }
    if proof == Err(Rejection::BadToken) {
        let path = parts.uri.path();
        if parts.method == http::Method::GET && shared.app.tokenless(path) {
            return Ok(None);
        }
        if parts.method == http::Method::POST && shared.app.tokenless_post(path) {
            shared
                .guard
                .check_post_with(parts, shared.app.origins(path))?;
            return Ok(None);
        }
    }
    if proof == Err(Rejection::BadToken) && shared.app.capability(parts.uri.path()) {
        shared
            .guard
            .check_post_with(parts, shared.app.origins(parts.uri.path()))?;
        return Ok(None);
    }
    let holder = proof?;
    let origins = shared.app.origins(parts.uri.path());
    shared.guard.check_post_with(parts, origins)?;
    Ok(Some(holder))
}

impl std::fmt::Display for BindError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BindError::Listen(e) => write!(f, "{e}"),
            BindError::Random(e) => write!(f, "the system random source failed ({e})"),
        }
    }
}

#[cfg(test)]
mod tests;
