//! The phone's routes: the pairing page and its claim, and the installable
//! shell (the page at `/app`, its web app manifest, icons and service
//! worker). None of these needs a token: they carry nothing private (the
//! questions come from `/api/*`, which does), and the claim's code is its
//! own proof. Every reply keeps the server's protective headers.
//!
//! | route | does |
//! |---|---|
//! | `GET /pair` | the pairing page: posts the code from its fragment |
//! | `POST /api/pair/claim` | `{"code"}` → 201 `{"name","token"}`; 410 `{"reason":"used"\|"expired"\|"taken",…}` |
//! | `GET /app` | the inbox page, its token from the browser's localStorage |
//! | `GET /manifest.webmanifest`, `/sw.js`, `/icon-192.png`, `/icon-512.png` | the installable shell |
//!
//! `POST /api/pair` (the inbox's own token only) makes a code
//! ([`super::pair`]).

use std::sync::LazyLock;

use serde::Serialize;

use super::pair::{self, Refused};
use ask_user_server::{Reply, response};

/// The pairing page, with the shared colours in place.
static PAIR_PAGE: LazyLock<String> = LazyLock::new(|| {
    include_str!("phone/pair.html").replace("/*__FORM_CSS__*/", ask_user_server::form::CSS)
});
const MANIFEST: &[u8] = include_bytes!("phone/manifest.webmanifest");
const WORKER: &[u8] = include_bytes!("phone/sw.js");
const ICON_192: &[u8] = include_bytes!("phone/icon-192.png");
const ICON_512: &[u8] = include_bytes!("phone/icon-512.png");
/// The worker's own policy: it fetches the shell from its origin, nothing else.
const WORKER_CSP: &str = "default-src 'none'; connect-src 'self'";

/// `POST /api/pair/claim`: the one phone route that takes a body.
pub const CLAIM: &str = "/api/pair/claim";
/// `POST /api/pair`: the CLI's, with the inbox's own token.
pub const BEGIN: &str = "/api/pair";

/// The phone's GET routes, served without a token (the claim is its one
/// tokenless POST).
pub fn is_static(path: &str) -> bool {
    matches!(
        path,
        "/pair" | "/app" | "/manifest.webmanifest" | "/sw.js" | "/icon-192.png" | "/icon-512.png"
    )
}

/// Every phone route (for 405 on another method).
pub fn is_phone_route(path: &str) -> bool {
    path == BEGIN || path == CLAIM || is_static(path)
}

/// A phone GET route's reply; `app` is the inbox page's HTML with its nonce
/// slot (the same page as `/`).
pub fn serve(path: &str, app: &str, nonce_slot: &str) -> Reply {
    match path {
        "/pair" | "/app" => match response::nonce() {
            Ok(nonce) => {
                let html = if path == "/pair" {
                    PAIR_PAGE.as_str()
                } else {
                    app
                };
                Reply::app_page(html.replace(nonce_slot, &nonce), &nonce)
            }
            Err(_) => Reply::text(500, "no randomness"),
        },
        "/manifest.webmanifest" => Reply::asset("application/manifest+json", MANIFEST, None),
        "/sw.js" => Reply::asset("text/javascript; charset=utf-8", WORKER, Some(WORKER_CSP)),
        "/icon-192.png" => Reply::asset("image/png", ICON_192, None),
        "/icon-512.png" => Reply::asset("image/png", ICON_512, None),
        _ => Reply::text(404, "not found"),
    }
}

/// A refused claim, as the pairing page reads it.
#[derive(Serialize)]
struct Gone<'a> {
    reason: &'static str,
    minutes: u64,
    message: &'a str,
}

/// The reply to a claim's outcome.
pub fn claimed(outcome: Result<pair::Device, Refused>) -> Reply {
    match outcome {
        Ok(device) => Reply::json(201, &device),
        Err(refused) => {
            let message = match &refused {
                Refused::Used => {
                    "this pairing code was used already, or this inbox did not make it".to_string()
                }
                Refused::Expired => format!(
                    "this pairing code is older than {} minutes",
                    pair::CODE_MINUTES
                ),
                Refused::Taken(name) => format!(
                    "a token named {name:?} was added meanwhile; run `ask_user inbox pair` with another name"
                ),
            };
            Reply::json(
                410,
                &Gone {
                    reason: refused.reason(),
                    minutes: pair::CODE_MINUTES,
                    message: &message,
                },
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Another method on a phone route is 405; on any other path it is
    /// the 404 of a route that does not exist.
    #[test]
    fn the_phone_routes_are_the_pairing_calls_and_the_shell_only() {
        for path in [BEGIN, CLAIM, "/pair", "/app", "/sw.js", "/icon-512.png"] {
            assert!(is_phone_route(path), "{path}");
        }
        for path in ["/nowhere", "/api/pair/other", "/app/", "/icon.png", ""] {
            assert!(!is_phone_route(path), "{path}");
        }
        assert!(!is_static(BEGIN) && !is_static(CLAIM));
    }
}
