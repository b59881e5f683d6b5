//! The inbox (DESIGN §10): one place for every question from every asker on
//! the machine, answered in one page or from another terminal, kept in a
//! SQLite store so that a restart loses nothing.
//!
//! - [`store`]: the SQLite file, the only code that writes it;
//! - [`state`]: the state folder, `inbox.json`, the token, discovery;
//! - [`hub`]: the pending questions, their waiters, and how each one ends;
//! - [`client`] and [`asker`]: the other side, for askers and the CLI verbs.

pub mod asker;
pub mod client;
pub mod hub;
pub mod state;
pub mod store;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::answer::AnswerDocument;
use crate::error::{AskError, Detail};
use client::Client;
use state::Lookup;

/// The inbox's port when `--port` is not given: fixed, so that the page can
/// be bookmarked ("ASKUS" on a phone keypad).
pub const DEFAULT_PORT: u16 = 27587;

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

#[derive(Serialize)]
struct Replies<'a> {
    replies: &'a [String],
}

#[derive(Serialize)]
struct Empty {}

/// `ask_user inbox answer ID --reply …`: the answer document its asker gets.
pub fn answer(id: &str, replies: &[String]) -> Result<AnswerDocument, AskError> {
    let path = question_path(id, "reply")?;
    run(|client| async move { client.post(&path, &Replies { replies }).await })
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
