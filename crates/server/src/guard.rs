//! The checks a request passes before any app sees it (DESIGN §9, §10, seed
//! 002): the Host (against DNS rebinding), the token, the rate limit for
//! requests that lack either, and for POSTs a same-origin Origin and a JSON
//! body. Everything here reads the request head only, never the body.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use http::{HeaderMap, Method, request::Parts};

/// Bytes of OS randomness in the token (128 bits).
const TOKEN_BYTES: usize = 16;

/// Why a request is turned away, and with which status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    TooManyRequests,
    WrongHost,
    BadToken,
    WrongOrigin,
    NotJson,
    TooLarge,
    BodyTooSlow,
    BodyUnreadable,
    /// `/.well-known/…`: no server here publishes metadata (no OAuth: a
    /// client that found some would start an OAuth flow instead of sending
    /// its bearer token).
    NoMetadata,
    /// A `token` in the URL where the route takes a bearer only (`/mcp`):
    /// URLs end up in logs, proxies' and shells' histories.
    TokenInUrl,
}

impl Rejection {
    pub fn status(self) -> u16 {
        match self {
            Rejection::TooManyRequests => 429,
            Rejection::WrongHost | Rejection::WrongOrigin => 403,
            Rejection::BadToken => 401,
            Rejection::NotJson => 415,
            Rejection::TooLarge => 413,
            Rejection::BodyTooSlow => 408,
            Rejection::BodyUnreadable | Rejection::TokenInUrl => 400,
            Rejection::NoMetadata => 404,
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Rejection::TooManyRequests => "too many requests without the token; wait a minute",
            Rejection::WrongHost => {
                "this page answers only to its own address (127.0.0.1 or localhost on its own port, or the address it listens on)"
            }
            Rejection::BadToken => {
                "the token is missing or wrong; open the URL ask_user printed, or send the token as Authorization: Bearer"
            }
            Rejection::WrongOrigin => "answers are accepted only from the page itself",
            Rejection::NotJson => "answers must be sent as application/json",
            Rejection::TooLarge => {
                "the request body is too large (64 KiB at most; 512 KiB for a question sent to the inbox)"
            }
            Rejection::BodyTooSlow => "the request body did not arrive in time",
            Rejection::BodyUnreadable => "the request body could not be read",
            Rejection::NoMetadata => {
                "not found: this server publishes no metadata (no OAuth; send the inbox token as a bearer)"
            }
            Rejection::TokenInUrl => {
                "/mcp takes the token as Authorization: Bearer only, never in the URL (URLs end up in logs); drop ?token= from the URL"
            }
        }
    }
}

/// Whom a request's token stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    /// The server's own token: the person at this machine, who may do
    /// everything the routes offer.
    Owner,
    /// A named person's token (`inbox --tokens`).
    Person(String),
    /// A named asker's token (`inbox --tokens`).
    Asker(String),
}

/// One address the server answers to: the `Host` a request names it by,
/// and the `Origin` its pages post from there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// `HOST:PORT`, or `HOST` alone for a public URL on its scheme's
    /// default port; compared without regard to case.
    pub authority: String,
    /// `SCHEME://AUTHORITY`, as browsers send it.
    pub origin: String,
}

impl Site {
    pub fn new(scheme: &str, authority: &str) -> Site {
        Site {
            authority: authority.to_ascii_lowercase(),
            origin: format!("{scheme}://{}", authority.to_ascii_lowercase()),
        }
    }

    /// `127.0.0.1:PORT` and `localhost:PORT` over `scheme`: the sites of a
    /// server on loopback. A name other than `localhost` is never ours: a
    /// page elsewhere could make a browser send it (DNS rebinding). An IP
    /// address written out cannot be rebound, so a listener's own address
    /// ([`Site::new`]) is safe too.
    pub fn loopback(scheme: &str, port: u16) -> Vec<Site> {
        vec![
            Site::new(scheme, &format!("127.0.0.1:{port}")),
            Site::new(scheme, &format!("localhost:{port}")),
        ]
    }
}

/// The server's identity checks: the sites it answers to (for Host and
/// Origin) and its tokens (its own, and the named ones of
/// [`Guard::with_holders`]).
pub struct Guard {
    sites: Vec<Site>,
    token: String,
    holders: Vec<(String, Holder)>,
    digests: Option<Digests>,
}

/// Named tokens known by their SHA-256 only (the inbox's store keeps no
/// token): shared with the server's owner, which replaces them while it
/// serves.
#[derive(Clone, Default)]
pub struct Digests(Arc<RwLock<Vec<DigestEntry>>>);

/// A token's SHA-256 and whom it stands for.
pub type DigestEntry = ([u8; 32], Holder);

impl Digests {
    pub fn replace(&self, entries: Vec<DigestEntry>) {
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = entries;
    }

    pub fn len(&self) -> usize {
        self.0.read().unwrap_or_else(PoisonError::into_inner).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The SHA-256 of a token, as the store keeps it.
pub fn digest(token: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(ring::digest::digest(&ring::digest::SHA256, token.as_bytes()).as_ref());
    out
}

impl Guard {
    /// A guard for 127.0.0.1:`port` with a fresh token from the OS random source.
    pub fn new(port: u16) -> Result<Self, getrandom::Error> {
        Ok(Guard {
            sites: Site::loopback("http", port),
            token: random_hex(TOKEN_BYTES)?,
            holders: Vec::new(),
            digests: None,
        })
    }

    /// A guard for 127.0.0.1:`port` with a token kept from before (the
    /// inbox's, which survives restarts so that bookmarks and waiting askers
    /// keep working).
    pub fn with_token(port: u16, token: String) -> Self {
        Guard {
            sites: Site::loopback("http", port),
            token,
            holders: Vec::new(),
            digests: None,
        }
    }

    /// Serves with `token` as its own, keeping everything else.
    pub fn with_own_token(mut self, token: String) -> Self {
        self.token = token;
        self
    }

    /// Takes the tokens whose digests `digests` holds too, as they are when
    /// each request comes.
    pub fn with_digests(mut self, digests: Digests) -> Self {
        self.digests = Some(digests);
        self
    }

    /// Answers to these sites instead (`inbox --listen`, `--public-url`).
    pub fn with_sites(mut self, sites: Vec<Site>) -> Self {
        self.sites = sites;
        self
    }

    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    /// Takes these named tokens too.
    pub fn with_holders(mut self, holders: Vec<(String, Holder)>) -> Self {
        self.holders = holders;
        self
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// Whether the request proves it is for us and from someone holding the
    /// token: its Host is our own authority (against DNS rebinding) and it
    /// carries the token, as `Authorization: Bearer` or the `token` query
    /// (a route may refuse the query: `/mcp` does, [`Rejection::TokenInUrl`]).
    ///
    /// Every token is compared, each in constant time, whichever matches:
    /// the time taken says nothing about which one (or how much of one) the
    /// request got right.
    pub fn prove(&self, parts: &Parts) -> Result<Holder, Rejection> {
        let host = header(&parts.headers, "host").ok_or(Rejection::WrongHost)?;
        if !self.is_own_authority(host) {
            return Err(Rejection::WrongHost);
        }
        let given = bearer(&parts.headers)
            .or_else(|| query_param(parts.uri.query().unwrap_or_default(), "token"))
            .ok_or(Rejection::BadToken)?;
        let mut found =
            constant_time_eq(given.as_bytes(), self.token.as_bytes()).then_some(Holder::Owner);
        for (token, holder) in &self.holders {
            if constant_time_eq(given.as_bytes(), token.as_bytes()) && found.is_none() {
                found = Some(holder.clone());
            }
        }
        if let Some(digests) = &self.digests {
            let given = digest(given);
            let digests = digests.0.read().unwrap_or_else(PoisonError::into_inner);
            for (stored, holder) in digests.iter() {
                if constant_time_eq(&given, stored) && found.is_none() {
                    found = Some(holder.clone());
                }
            }
        }
        found.ok_or(Rejection::BadToken)
    }

    /// A POST must come from the page itself (an Origin equal to the Host it
    /// was sent to) and carry JSON. Other methods pass.
    pub fn check_post(&self, parts: &Parts) -> Result<(), Rejection> {
        self.check_post_with(parts, Origins::Required)
    }

    /// [`Guard::check_post`], for a route that may also take clients
    /// without an Origin ([`Origins::WhenPresent`]).
    pub fn check_post_with(&self, parts: &Parts, origins: Origins) -> Result<(), Rejection> {
        if parts.method != Method::POST {
            return Ok(());
        }
        if origins == Origins::WhenPresent && !parts.headers.contains_key("origin") {
            return json_only(parts);
        }
        let origin = header(&parts.headers, "origin").ok_or(Rejection::WrongOrigin)?;
        let host = header(&parts.headers, "host").unwrap_or_default();
        let ours = self
            .site(host)
            .is_some_and(|site| site.origin.eq_ignore_ascii_case(origin));
        if !ours {
            return Err(Rejection::WrongOrigin);
        }
        json_only(parts)
    }

    /// The site `authority` names: one of [`Guard::sites`], nothing else.
    fn site(&self, authority: &str) -> Option<&Site> {
        self.sites
            .iter()
            .find(|site| site.authority.eq_ignore_ascii_case(authority))
    }

    fn is_own_authority(&self, authority: &str) -> bool {
        self.site(authority).is_some()
    }
}

/// Whether a route's POSTs must carry an `Origin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origins {
    /// Every POST: the pages, and askers (which send the page's Origin too).
    Required,
    /// When one is sent it must be ours; clients that are not browsers (MCP
    /// clients on `/mcp`) send none. Browsers always send one with a POST,
    /// so a page elsewhere still cannot post here.
    WhenPresent,
}

/// A POST's body must be JSON.
fn json_only(parts: &Parts) -> Result<(), Rejection> {
    let content_type = header(&parts.headers, "content-type").unwrap_or_default();
    let media_type = content_type.split(';').next().unwrap_or_default().trim();
    if !media_type.eq_ignore_ascii_case("application/json") {
        return Err(Rejection::NotJson);
    }
    Ok(())
}

/// A sliding-window limit on requests that do not prove the token. Requests
/// that do are never counted and never limited: the limit only caps noise, so
/// that no client without the token can lock the person out.
pub struct TokenlessLimit {
    allowed: usize,
    window: Duration,
    recent: Mutex<VecDeque<Instant>>,
}

impl TokenlessLimit {
    pub fn new(allowed: usize, window: Duration) -> Self {
        TokenlessLimit {
            allowed,
            window,
            recent: Mutex::new(VecDeque::with_capacity(allowed)),
        }
    }

    /// Counts one tokenless request at `now`; false when the window is full.
    pub fn allow(&self, now: Instant) -> bool {
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        while recent
            .front()
            .is_some_and(|&t| now.duration_since(t) >= self.window)
        {
            recent.pop_front();
        }
        if recent.len() >= self.allowed {
            return false;
        }
        recent.push_back(now);
        true
    }
}

/// The value of the one header named `name`; a repeated header counts as
/// absent (which copy would be the real one?), and so does one that is not
/// visible ASCII.
pub fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?;
    if values.next().is_some() {
        return None;
    }
    first.to_str().ok().map(str::trim)
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = header(headers, "authorization")?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The value of `name` in a query string (`a=1&token=…`).
pub fn query_param<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// Compares in time that depends only on the lengths (which are not secret).
fn constant_time_eq(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    let diff = given
        .iter()
        .zip(expected)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b));
    std::hint::black_box(diff) == 0
}

/// `bytes` bytes from the OS random source, as lowercase hex.
pub fn random_hex(bytes: usize) -> Result<String, getrandom::Error> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(method: &str, uri: &str, headers: &[(&str, &str)]) -> Parts {
        let mut request = http::Request::builder().method(method).uri(uri);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.body(()).unwrap().into_parts().0
    }

    #[test]
    fn tokens_are_128_bit_hex_and_differ() {
        let a = random_hex(TOKEN_BYTES).unwrap();
        let b = random_hex(TOKEN_BYTES).unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn constant_time_eq_compares_whole_values() {
        assert!(constant_time_eq(b"abcd", b"abcd"));
        assert!(!constant_time_eq(b"abcd", b"abce"));
        assert!(!constant_time_eq(b"abcd", b"xbcd"));
        // Differences that would cancel out under XOR still count.
        assert!(!constant_time_eq(b"ab", b"ba"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
        assert!(!constant_time_eq(b"", b"abcd"));
    }

    #[test]
    fn query_params() {
        assert_eq!(query_param("token=ab&x=1", "token"), Some("ab"));
        assert_eq!(query_param("x=1&token=cd", "token"), Some("cd"));
        assert_eq!(query_param("tokens=ab", "token"), None);
        assert_eq!(query_param("token", "token"), None);
        assert_eq!(query_param("", "token"), None);
    }

    #[test]
    fn only_own_authorities() {
        let guard = Guard::new(8123).unwrap();
        for ok in ["127.0.0.1:8123", "localhost:8123", "LOCALHOST:8123"] {
            assert!(guard.is_own_authority(ok), "{ok}");
        }
        for bad in [
            "127.0.0.1",
            "127.0.0.1:8124",
            "127.0.0.1:08123",
            "evil.example:8123",
            "localhost.evil.example:8123",
            "[::1]:8123",
            "0.0.0.0:8123",
        ] {
            assert!(!guard.is_own_authority(bad), "{bad}");
        }
    }

    #[test]
    fn tokens_known_by_their_digest_are_taken_until_replaced() {
        let digests = Digests::default();
        let guard = Guard::new(8123).unwrap().with_digests(digests.clone());
        let host = ("Host", "127.0.0.1:8123");
        let eve = "e".repeat(64);
        let bearer = format!("Bearer {eve}");
        let request = parts("GET", "/", &[host, ("Authorization", &bearer)]);
        assert_eq!(guard.prove(&request), Err(Rejection::BadToken));
        digests.replace(vec![
            (digest(&"a".repeat(64)), Holder::Asker("ci".into())),
            (digest(&eve), Holder::Person("Eve".into())),
        ]);
        assert_eq!(digests.len(), 2);
        assert_eq!(guard.prove(&request), Ok(Holder::Person("Eve".into())));
        // Its own token still comes first.
        let own = format!("Bearer {}", guard.token());
        assert_eq!(
            guard.prove(&parts("GET", "/", &[host, ("Authorization", &own)])),
            Ok(Holder::Owner)
        );
        digests.replace(Vec::new());
        assert!(digests.is_empty());
        assert_eq!(guard.prove(&request), Err(Rejection::BadToken));
        // SHA-256, as the store keeps it.
        assert_eq!(
            digest("abc")[..4],
            [0xba, 0x78, 0x16, 0xbf],
            "the FIPS 180-2 example"
        );
    }

    #[test]
    fn a_token_that_matches_no_digest_is_refused_and_each_digest_names_its_holder() {
        let digests = Digests::default();
        let guard = Guard::new(8123).unwrap().with_digests(digests.clone());
        digests.replace(vec![
            (digest(&"a".repeat(64)), Holder::Asker("ci".into())),
            (digest(&"e".repeat(64)), Holder::Person("Eve".into())),
        ]);
        assert!(!digests.is_empty());
        let prove = |token: String| {
            let bearer = format!("Bearer {token}");
            let host = ("Host", "127.0.0.1:8123");
            guard.prove(&parts(
                "GET",
                "/",
                &[host, ("Authorization", bearer.as_str())],
            ))
        };
        assert_eq!(prove("a".repeat(64)), Ok(Holder::Asker("ci".into())));
        assert_eq!(prove("e".repeat(64)), Ok(Holder::Person("Eve".into())));
        // Kept tokens exist, but none is this one.
        assert_eq!(prove("x".repeat(64)), Err(Rejection::BadToken));
    }

    #[test]
    fn a_listener_past_loopback_answers_to_its_sites_and_their_origins_only() {
        let mut sites = Site::loopback("https", 8443);
        sites.push(Site::new("https", "10.0.0.5:8443"));
        sites.push(Site::new("https", "Inbox.Example.com"));
        let guard = Guard::new(8443).unwrap().with_sites(sites);
        for ok in [
            "127.0.0.1:8443",
            "10.0.0.5:8443",
            "inbox.example.com",
            "INBOX.example.com",
        ] {
            assert!(guard.is_own_authority(ok), "{ok}");
        }
        for bad in [
            "10.0.0.5",
            "10.0.0.6:8443",
            "inbox.example.com:8443",
            "evil.example",
        ] {
            assert!(!guard.is_own_authority(bad), "{bad}");
        }
        let json = ("Content-Type", "application/json");
        let post = |host: &str, origin: &str| {
            guard.check_post(&parts(
                "POST",
                "/",
                &[("Host", host), ("Origin", origin), json],
            ))
        };
        assert_eq!(
            post("inbox.example.com", "https://inbox.example.com"),
            Ok(())
        );
        assert_eq!(post("10.0.0.5:8443", "https://10.0.0.5:8443"), Ok(()));
        assert_eq!(post("127.0.0.1:8443", "https://127.0.0.1:8443"), Ok(()));
        for (host, origin) in [
            ("inbox.example.com", "http://inbox.example.com"),
            ("10.0.0.5:8443", "http://10.0.0.5:8443"),
            ("10.0.0.5:8443", "https://inbox.example.com"),
            ("evil.example", "https://evil.example"),
        ] {
            assert_eq!(
                post(host, origin),
                Err(Rejection::WrongOrigin),
                "{host} {origin}"
            );
        }
        // A new token keeps the sites.
        assert!(
            Guard::with_token(8443, "ab".repeat(16))
                .with_sites(guard.sites().to_vec())
                .is_own_authority("inbox.example.com")
        );
    }

    #[test]
    fn the_token_is_proven_by_bearer_or_query_under_our_own_host() {
        let guard = Guard::new(8123).unwrap();
        let token = guard.token().to_string();
        let bearer = format!("Bearer {token}");
        let host = ("Host", "127.0.0.1:8123");
        assert_eq!(
            guard.prove(&parts("GET", "/", &[host, ("Authorization", &bearer)])),
            Ok(Holder::Owner)
        );
        let lower = format!("bearer  {token} ");
        assert_eq!(
            guard.prove(&parts("GET", "/", &[host, ("Authorization", &lower)])),
            Ok(Holder::Owner)
        );
        let query = format!("/?token={token}");
        assert_eq!(
            guard.prove(&parts("GET", &query, &[host])),
            Ok(Holder::Owner)
        );
        assert_eq!(
            guard.prove(&parts("GET", "/", &[host])),
            Err(Rejection::BadToken)
        );
        let basic = format!("Basic {token}");
        assert_eq!(
            guard.prove(&parts("GET", "/", &[host, ("Authorization", &basic)])),
            Err(Rejection::BadToken)
        );
        assert_eq!(
            guard.prove(&parts("GET", "/", &[host, ("Authorization", &token)])),
            Err(Rejection::BadToken)
        );
        assert_eq!(
            guard.prove(&parts("GET", &query, &[("Host", "evil.example:8123")])),
            Err(Rejection::WrongHost)
        );
        assert_eq!(
            guard.prove(&parts("GET", &query, &[])),
            Err(Rejection::WrongHost)
        );
    }

    #[test]
    fn named_tokens_prove_their_holder_and_the_own_token_stays_the_owner() {
        let named = "n".repeat(32);
        let asker = "a".repeat(32);
        let guard = Guard::with_token(8123, "o".repeat(32)).with_holders(vec![
            (named.clone(), Holder::Person("Ada".into())),
            (asker.clone(), Holder::Asker("ci".into())),
        ]);
        let host = ("Host", "127.0.0.1:8123");
        let prove = |token: &str| {
            let bearer = format!("Bearer {token}");
            guard.prove(&parts("GET", "/", &[host, ("Authorization", &bearer)]))
        };
        assert_eq!(prove(&"o".repeat(32)), Ok(Holder::Owner));
        assert_eq!(prove(&named), Ok(Holder::Person("Ada".into())));
        assert_eq!(prove(&asker), Ok(Holder::Asker("ci".into())));
        assert_eq!(prove(&"n".repeat(31)), Err(Rejection::BadToken));
        assert_eq!(prove(&format!("{named}n")), Err(Rejection::BadToken));
        // The first holder of a token wins (the file refuses duplicates).
        let twice = Guard::with_token(8123, "o".repeat(32)).with_holders(vec![
            (named.clone(), Holder::Person("first".into())),
            (named.clone(), Holder::Asker("second".into())),
        ]);
        let bearer = format!("Bearer {named}");
        assert_eq!(
            twice.prove(&parts("GET", "/", &[host, ("Authorization", &bearer)])),
            Ok(Holder::Person("first".into()))
        );
    }

    #[test]
    fn a_repeated_header_counts_as_absent() {
        let guard = Guard::new(8123).unwrap();
        let token = guard.token().to_string();
        let bearer = format!("Bearer {token}");
        let host = ("Host", "127.0.0.1:8123");
        let query = format!("/?token={token}");
        assert_eq!(
            guard.prove(&parts("GET", &query, &[host, host])),
            Err(Rejection::WrongHost)
        );
        let auth = ("Authorization", bearer.as_str());
        assert_eq!(
            guard.prove(&parts("GET", "/", &[host, auth, auth])),
            Err(Rejection::BadToken)
        );
        let origin = ("Origin", "http://127.0.0.1:8123");
        let json = ("Content-Type", "application/json");
        assert_eq!(
            guard.check_post(&parts("POST", "/", &[host, origin, json])),
            Ok(())
        );
        assert_eq!(
            guard.check_post(&parts("POST", "/", &[host, origin, origin, json])),
            Err(Rejection::WrongOrigin)
        );
        assert_eq!(
            guard.check_post(&parts("POST", "/", &[host, origin, json, json])),
            Err(Rejection::NotJson)
        );
    }

    #[test]
    fn a_route_without_origins_still_refuses_a_foreign_or_repeated_one() {
        let guard = Guard::new(8123).unwrap();
        let host = ("Host", "127.0.0.1:8123");
        let json = ("Content-Type", "application/json");
        let post = |headers: &[(&str, &str)]| {
            guard.check_post_with(&parts("POST", "/mcp", headers), Origins::WhenPresent)
        };
        assert_eq!(post(&[host, json]), Ok(()));
        assert_eq!(post(&[host]), Err(Rejection::NotJson));
        assert_eq!(
            post(&[host, ("Origin", "http://127.0.0.1:8123"), json]),
            Ok(())
        );
        for origin in ["http://evil.example", "null", "http://localhost:8123", ""] {
            assert_eq!(
                post(&[host, ("Origin", origin), json]),
                Err(Rejection::WrongOrigin),
                "{origin}"
            );
        }
        let origin = ("Origin", "http://127.0.0.1:8123");
        assert_eq!(
            post(&[host, origin, origin, json]),
            Err(Rejection::WrongOrigin)
        );
        // The pages' rule is unchanged: no Origin, no POST.
        assert_eq!(
            guard.check_post(&parts("POST", "/mcp", &[host, json])),
            Err(Rejection::WrongOrigin)
        );
    }

    #[test]
    fn posts_need_our_origin_and_json() {
        let guard = Guard::new(8123).unwrap();
        let host = ("Host", "127.0.0.1:8123");
        let json = ("Content-Type", "application/json; charset=utf-8");
        for (origin, expected) in [
            ("http://127.0.0.1:8123", Ok(())),
            ("http://localhost:8123", Err(Rejection::WrongOrigin)),
            ("https://127.0.0.1:8123", Err(Rejection::WrongOrigin)),
            ("http://evil.example", Err(Rejection::WrongOrigin)),
            ("null", Err(Rejection::WrongOrigin)),
        ] {
            assert_eq!(
                guard.check_post(&parts("POST", "/", &[host, ("Origin", origin), json])),
                expected,
                "{origin}"
            );
        }
        let origin = ("Origin", "http://127.0.0.1:8123");
        assert_eq!(
            guard.check_post(&parts("POST", "/", &[host, json])),
            Err(Rejection::WrongOrigin)
        );
        assert_eq!(
            guard.check_post(&parts("POST", "/", &[host, origin])),
            Err(Rejection::NotJson)
        );
        assert_eq!(
            guard.check_post(&parts(
                "POST",
                "/",
                &[host, origin, ("Content-Type", "text/plain")]
            )),
            Err(Rejection::NotJson)
        );
        assert_eq!(guard.check_post(&parts("GET", "/", &[host])), Ok(()));
    }

    #[test]
    fn the_tokenless_limit_slides() {
        let limit = TokenlessLimit::new(3, Duration::from_secs(60));
        let start = Instant::now();
        assert!(limit.allow(start));
        assert!(limit.allow(start + Duration::from_secs(1)));
        assert!(limit.allow(start + Duration::from_secs(2)));
        assert!(!limit.allow(start + Duration::from_secs(3)));
        assert!(!limit.allow(start + Duration::from_secs(59)));
        // The first one has left the window: one more.
        assert!(limit.allow(start + Duration::from_secs(60)));
        assert!(!limit.allow(start + Duration::from_secs(60)));
        assert!(limit.allow(start + Duration::from_secs(62)));
    }

    #[test]
    fn rejections_have_their_statuses() {
        for (rejection, status) in [
            (Rejection::TooManyRequests, 429),
            (Rejection::WrongHost, 403),
            (Rejection::WrongOrigin, 403),
            (Rejection::BadToken, 401),
            (Rejection::NotJson, 415),
            (Rejection::TooLarge, 413),
            (Rejection::BodyTooSlow, 408),
            (Rejection::BodyUnreadable, 400),
        ] {
            assert_eq!(rejection.status(), status, "{rejection:?}");
            assert!(!rejection.message().is_empty());
        }
    }
}
