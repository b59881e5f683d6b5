//! The checks a request passes before the answer page serves it (DESIGN §9,
//! seed 002): a rate limit, the Host (against DNS rebinding), the token, and
//! for POSTs a same-origin Origin, a JSON body and a size limit.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use tiny_http::Request;

/// Largest request body read, in bytes; a larger one gets 413.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Requests allowed in any [`RATE_WINDOW`]; more get 429.
pub const MAX_REQUESTS_PER_WINDOW: usize = 100;
pub const RATE_WINDOW: Duration = Duration::from_secs(60);
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
}

impl Rejection {
    pub fn status(self) -> u16 {
        match self {
            Rejection::TooManyRequests => 429,
            Rejection::WrongHost | Rejection::WrongOrigin => 403,
            Rejection::BadToken => 401,
            Rejection::NotJson => 415,
            Rejection::TooLarge => 413,
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Rejection::TooManyRequests => "too many requests; wait a minute",
            Rejection::WrongHost => {
                "this page answers only to 127.0.0.1 or localhost on its own port"
            }
            Rejection::BadToken => "the token is missing or wrong; open the URL ask_user printed",
            Rejection::WrongOrigin => "answers are accepted only from the page itself",
            Rejection::NotJson => "answers must be sent as application/json",
            Rejection::TooLarge => "the request body is larger than 64 KiB",
        }
    }
}

pub struct Guard {
    port: u16,
    token: String,
    recent: VecDeque<Instant>,
}

impl Guard {
    pub fn new(port: u16) -> Result<Self, getrandom::Error> {
        Ok(Guard {
            port,
            token: random_hex(TOKEN_BYTES)?,
            recent: VecDeque::new(),
        })
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// Every request: rate limit, then Host, then token.
    pub fn admit(&mut self, request: &Request, now: Instant) -> Result<(), Rejection> {
        while self
            .recent
            .front()
            .is_some_and(|&t| now.duration_since(t) >= RATE_WINDOW)
        {
            self.recent.pop_front();
        }
        if self.recent.len() >= MAX_REQUESTS_PER_WINDOW {
            return Err(Rejection::TooManyRequests);
        }
        self.recent.push_back(now);

        let host = header(request, "Host").ok_or(Rejection::WrongHost)?;
        if !self.is_own_authority(host) {
            return Err(Rejection::WrongHost);
        }
        let given = bearer(request)
            .or_else(|| query_param(request.url(), "token"))
            .ok_or(Rejection::BadToken)?;
        if !constant_time_eq(given.as_bytes(), self.token.as_bytes()) {
            return Err(Rejection::BadToken);
        }
        Ok(())
    }

    /// POSTs also need the page's own Origin, a JSON body and a declared size
    /// within the limit (a body without Content-Length is cut at the limit when read).
    pub fn admit_post(&self, request: &Request) -> Result<(), Rejection> {
        let origin = header(request, "Origin").ok_or(Rejection::WrongOrigin)?;
        let authority = origin
            .strip_prefix("http://")
            .ok_or(Rejection::WrongOrigin)?;
        let host = header(request, "Host").unwrap_or_default();
        if !self.is_own_authority(authority) || !authority.eq_ignore_ascii_case(host) {
            return Err(Rejection::WrongOrigin);
        }
        let content_type = header(request, "Content-Type").unwrap_or_default();
        let media_type = content_type.split(';').next().unwrap_or_default().trim();
        if !media_type.eq_ignore_ascii_case("application/json") {
            return Err(Rejection::NotJson);
        }
        if request.body_length().is_some_and(|n| n > MAX_BODY_BYTES) {
            return Err(Rejection::TooLarge);
        }
        Ok(())
    }

    /// `127.0.0.1:PORT` or `localhost:PORT`, nothing else.
    fn is_own_authority(&self, authority: &str) -> bool {
        let Some((name, port)) = authority.rsplit_once(':') else {
            return false;
        };
        port.parse::<u16>().is_ok_and(|p| p == self.port)
            && !port.starts_with('0')
            && (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost"))
    }
}

/// The value of the one header named `name`; a repeated header counts as absent.
pub fn header<'r>(request: &'r Request, name: &'static str) -> Option<&'r str> {
    let mut values = request.headers().iter().filter(|h| h.field.equiv(name));
    let first = values.next()?;
    values.next().is_none().then(|| first.value.as_str().trim())
}

fn bearer(request: &Request) -> Option<&str> {
    let value = header(request, "Authorization")?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The path of a request target, without its query.
pub fn path(url: &str) -> &str {
    url.split_once('?').map_or(url, |(path, _)| path)
}

fn query_param<'u>(url: &'u str, name: &str) -> Option<&'u str> {
    let (_, query) = url.split_once('?')?;
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
        assert!(!constant_time_eq(b"abc", b"abcd"));
        assert!(!constant_time_eq(b"", b"abcd"));
    }

    #[test]
    fn query_params_and_paths() {
        assert_eq!(query_param("/?token=ab&x=1", "token"), Some("ab"));
        assert_eq!(query_param("/?x=1&token=cd", "token"), Some("cd"));
        assert_eq!(query_param("/?tokens=ab", "token"), None);
        assert_eq!(query_param("/form", "token"), None);
        assert_eq!(path("/form?token=ab"), "/form");
        assert_eq!(path("/"), "/");
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
}
