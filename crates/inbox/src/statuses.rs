//! The HTTP status of each error document, the same on every route of the
//! inbox: its API, its page, the links' pages.

use ask_user_core::error::AskError;
use ask_user_server::Reply;

/// How long a client refused by a stopping replica waits before it tries
/// that address again (behind a load balancer, another replica answers).
const RETRY_AFTER_SECS: &str = "1";

/// An error document with the status that fits its code. `NO_INBOX` is a
/// replica that stops (the drain), `STORE_ERROR` a store that does not
/// answer (an outage): 503, and when to try again; askers retry within
/// their own timeout, on the next replica first. `STORE_ERROR` for a store
/// that refuses writes until somebody acts (a full disk, a read-only
/// store) is 507 with no retry: askers exit with it at once, since waiting
/// would not heal it.
pub fn error_reply(err: &AskError) -> Reply {
    let status = match err {
        AskError::UnknownQuestion(_) => 404,
        AskError::AlreadyAnswered(_) => 409,
        AskError::Forbidden(_) => 403,
        AskError::InvalidJson(_) => 400,
        AskError::InternalError(_) => 500,
        AskError::StoreError { lasting: true, .. } => 507,
        AskError::NoInbox(_) | AskError::StoreError { .. } => 503,
        AskError::TokenRefused(_) => 401,
        _ => 422,
    };
    let reply = Reply::json(status, &err.document());
    if status == 503 {
        reply.with_header(
            http::header::RETRY_AFTER,
            http::HeaderValue::from_static(RETRY_AFTER_SECS),
        )
    } else {
        reply
    }
}
