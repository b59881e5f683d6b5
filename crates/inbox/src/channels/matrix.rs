//! `--notify-to matrix=https://HOMESERVER/ROOM_ID`: each new question is a
//! message in a Matrix room, posted by a bot whose access token is
//! `ASK_USER_MATRIX_TOKEN` (or a private file named by
//! `ASK_USER_MATRIX_TOKEN_FILE`; never the command line). The person answers
//! by replying in the message's thread (or with a plain reply to it) with an
//! option's number or label, parsed exactly as `answer --reply` parses a
//! reply (DESIGN §7); or by the one-question link in the message.
//!
//! Two halves, on the Matrix client-server API (v3) over the channels' HTTP
//! client ([`super::http`]):
//! - [`deliver`], called by the delivery loop of [`super`] with its retries:
//!   `PUT /rooms/{room}/send/m.room.message/{txnId}` for a new question, and
//!   a short note in its thread when it closes elsewhere. The transaction id
//!   is derived from the question, so a retry whose first response was lost
//!   does not post twice (the homeserver keeps one event per transaction id).
//! - [`listen`], for the inbox's lifetime: `/sync` long-polling, filtered to
//!   the room's messages, from the `next_batch` it keeps (what was in the
//!   room before the inbox started is skipped). A reply in a question's
//!   thread answers it through the hub ([`Hub::decide_as`], face `matrix`,
//!   the sender's Matrix id as the name in history); a reply that does not
//!   answer gets a short "Not understood" reply that repeats what to reply,
//!   and nothing is stored.
//!
//! Trust model: the room is the access list. Every member of the room but
//! the bot may answer (the homeserver only accepts messages from joined
//! members); the bot's own messages are never read as replies. So the room
//! must be private (invite-only) and hold only people who may answer.
//! Encrypted rooms are not supported: the bot posts in the clear and cannot
//! read an encrypted reply (it is ignored).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::Method;
use serde::Deserialize;
use serde_json::{Value, json};

use super::http::{Target, send_up_to};
use super::{Closed, DeliveryError, Env, Notice, Question};
use crate::hub::votes::VoteRecorded;
use crate::hub::{Action, Hub};
use crate::store::Face;

/// The variable that holds the bot's access token.
pub const TOKEN_VARIABLE: &str = "ASK_USER_MATRIX_TOKEN";
/// Each request's time limit (but /sync, which waits [`SYNC_WAIT`] more).
const ATTEMPT: Duration = Duration::from_secs(10);
/// How long the homeserver may hold a /sync open.
const SYNC_WAIT: Duration = Duration::from_secs(30);
/// The first wait after a failed /sync; it doubles up to [`LAST_RETRY`].
const FIRST_RETRY: Duration = Duration::from_millis(500);
const LAST_RETRY: Duration = Duration::from_secs(60);
/// Questions remembered (event id ↔ inbox id); the oldest are forgotten first
/// (their threads are then found again from the event itself).
const REMEMBERED: usize = 4096;
/// The key in each of the bot's messages that names its question: a reply to
/// a message the inbox no longer remembers (after a restart) finds its
/// question by reading the message back.
const ID_KEY: &str = "org.ask_user.inbox_id";
/// The same message's number of questions (one reply line per question).
const COUNT_KEY: &str = "org.ask_user.questions";
/// How many messages one /sync may carry, and the most bytes it is read to:
/// Matrix events are at most 64 KiB each (the spec's size limit), so 20 of
/// them always fit in 2 MiB, and a reply is never cut into JSON that does not
/// parse (which would make the same /sync fail for ever). More messages than
/// that within one long-poll are skipped (the timeline is "limited").
const SYNC_EVENTS: u64 = 20;
const MAX_SYNC_BYTES: usize = 2 * 1024 * 1024;
/// The most bytes read of any other reply.
const MAX_REPLY_BYTES: usize = 64 * 1024;
/// Longest reply read, in characters (a person's reply, not a document).
const MAX_REPLY_CHARS: usize = 4000;

/// A `matrix=` target: the homeserver, the room, the bot's token, and what
/// the bot posted.
pub struct MatrixTarget {
    /// The homeserver (its path is replaced per request).
    homeserver: Target,
    /// The room's id (`!…`), decoded.
    room: String,
    token: String,
    posted: Mutex<Posted>,
}

impl std::fmt::Debug for MatrixTarget {
    // Never the token.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MatrixTarget")
            .field("homeserver", &self.homeserver.origin())
            .field("room", &self.room)
            .finish_non_exhaustive()
    }
}

/// A question the bot posted.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Thread {
    inbox_id: String,
    /// How many questions it asks (how many reply lines it needs).
    questions: usize,
}

/// What the bot posted, both ways, bounded.
#[derive(Debug, Default)]
struct Posted {
    /// The question's event id → its question.
    by_event: HashMap<String, Thread>,
    /// The inbox id → the question's event id.
    by_id: HashMap<String, String>,
    /// Questions answered through Matrix (their thread has its note already).
    answered_here: HashMap<String, ()>,
    /// Inbox ids, oldest first.
    order: VecDeque<String>,
}

impl Posted {
    fn remember(&mut self, event: &str, thread: Thread) {
        if self.by_id.contains_key(&thread.inbox_id) {
            return;
        }
        while self.order.len() >= REMEMBERED {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(event) = self.by_id.remove(&old) {
                self.by_event.remove(&event);
            }
            self.answered_here.remove(&old);
        }
        self.order.push_back(thread.inbox_id.clone());
        self.by_id
            .insert(thread.inbox_id.clone(), event.to_string());
        self.by_event.insert(event.to_string(), thread);
    }
}

impl MatrixTarget {
    /// The part after `matrix=`: `https://homeserver[:port]/ROOM_ID` (the
    /// room id `!…`, as is or percent-encoded); plain `http://` only to this
    /// machine. The token from `ASK_USER_MATRIX_TOKEN` (or `…_FILE`).
    pub fn parse(spec: &str, env: Env<'_>) -> Result<MatrixTarget, String> {
        let mut homeserver = super::secure_target(spec, "the homeserver")?;
        let room = decode(homeserver.path.trim_start_matches('/'))
            .ok_or_else(|| format!("{spec:?}: the room id is not valid percent-encoded UTF-8"))?;
        if !room.starts_with('!') || room.len() < 2 || room.contains(['/', '?', '#']) {
            return Err(format!(
                "{spec:?} names no room id: expected https://HOMESERVER/!ROOM_ID (the room's id, which starts with !, not an alias)"
            ));
        }
        homeserver.path = "/".into();
        let token = super::secret(env, TOKEN_VARIABLE)?.ok_or_else(|| {
            format!(
                "the bot's access token is missing: set {TOKEN_VARIABLE} (or {TOKEN_VARIABLE}_FILE, a private file that holds it)"
            )
        })?;
        if !token.chars().all(|c| c.is_ascii_graphic()) {
            return Err(format!(
                "{TOKEN_VARIABLE} is not an access token (printable ASCII without spaces)"
            ));
        }
        Ok(MatrixTarget {
            homeserver,
            room,
            token,
            posted: Mutex::new(Posted::default()),
        })
    }

    fn posted(&self) -> std::sync::MutexGuard<'_, Posted> {
        self.posted.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One client-server API call: `method` on `path` (from `/_matrix/…`),
    /// with the bot's token; the reply's JSON.
    async fn call(
        &self,
        method: Method,
        path: String,
        body: Option<&Value>,
        timeout: Duration,
    ) -> Result<Value, DeliveryError> {
        let mut target = self.homeserver.clone();
        target.path = path;
        let mut headers = vec![("authorization", format!("Bearer {}", self.token))];
        let body = match body {
            Some(body) => {
                headers.push(("content-type", "application/json".to_string()));
                serde_json::to_vec(body).unwrap_or_default()
            }
            None => Vec::new(),
        };
        // Only a /sync reply may be long.
        let max = if target.path.starts_with("/_matrix/client/v3/sync") {
            MAX_SYNC_BYTES
        } else {
            MAX_REPLY_BYTES
        };
        let reply = send_up_to(&target, method, &headers, body, timeout, max).await?;
        serde_json::from_slice(&reply.body).map_err(|e| {
            DeliveryError::Transient(format!("the homeserver's reply is not JSON ({e})"))
        })
    }

    /// Posts `content` to the room as transaction `txn` (the same `txn`
    /// posts once); the new event's id.
    async fn post(&self, txn: &str, content: &Value) -> Result<String, DeliveryError> {
        let path = format!(
            "/_matrix/client/v3/rooms/{}/send/m.room.message/{}",
            encode(&self.room),
            encode(txn)
        );
        let reply = self.call(Method::PUT, path, Some(content), ATTEMPT).await?;
        reply["event_id"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| DeliveryError::Transient("the homeserver sent no event_id".into()))
    }

    /// The question of thread `root`: remembered, else read back from the
    /// bot's own event (a restarted inbox). `None` for a thread that is
    /// not one of the bot's questions.
    async fn thread(&self, root: &str, bot: &str) -> Option<Thread> {
        if let Some(thread) = self.posted().by_event.get(root) {
            return Some(thread.clone());
        }
        let path = format!(
            "/_matrix/client/v3/rooms/{}/event/{}",
            encode(&self.room),
            encode(root)
        );
        let event = self.call(Method::GET, path, None, ATTEMPT).await.ok()?;
        if event["sender"] != bot {
            return None;
        }
        let content = &event["content"];
        let thread = Thread {
            inbox_id: content[ID_KEY].as_str()?.to_string(),
            questions: content[COUNT_KEY].as_u64().unwrap_or(1).max(1) as usize,
        };
        // Only a question's own message is a thread root worth remembering.
        if content["m.relates_to"].is_null() {
            self.posted().remember(root, thread.clone());
        }
        Some(thread)
    }
}

/// One delivery attempt: a new question's message, or a closed question's
/// note in its thread.
pub async fn deliver(target: &MatrixTarget, notice: &Notice) -> Result<(), DeliveryError> {
    match notice {
        Notice::Asked(question) => {
            let content = question_content(question);
            let event = target
                .post(&format!("ask_user-{}", question.notice_key()), &content)
                .await?;
            let thread = Thread {
                inbox_id: question.inbox_id.clone(),
                questions: question.items.len().max(1),
            };
            target.posted().remember(&event, thread);
            Ok(())
        }
        Notice::Closed(closed) => {
            let root = {
                let posted = target.posted();
                if posted.answered_here.contains_key(&closed.inbox_id) {
                    return Ok(());
                }
                match posted.by_id.get(&closed.inbox_id) {
                    Some(root) => root.clone(),
                    None => return Ok(()),
                }
            };
            let content = in_thread(&root, &closed.inbox_id, &closed_note(closed));
            target
                .post(&format!("ask_user-{}-closed", closed.inbox_id), &content)
                .await
                .map(drop)
        }
    }
}

/// A new question's message: the question as plain text (its options
/// numbered, the link), and how to answer in the thread.
fn question_content(question: &Question) -> Value {
    let mut body = super::plain_text(question);
    let how = match question.items.as_slice() {
        [item] => format!(
            "Reply in this message's thread: {}",
            item.answer_instructions
        ),
        items => format!(
            "Reply in this message's thread with one line per question ({}), in order.",
            items.len()
        ),
    };
    body.push_str(&how);
    json!({
        "msgtype": "m.text",
        "body": body,
        ID_KEY: question.inbox_id,
        COUNT_KEY: question.items.len().max(1),
    })
}

/// `text` as a message in `root`'s thread (with the reply fallback for
/// clients without threads), naming its question.
fn in_thread(root: &str, inbox_id: &str, text: &str) -> Value {
    json!({
        "msgtype": "m.notice",
        "body": text,
        ID_KEY: inbox_id,
        "m.relates_to": {
            "rel_type": "m.thread",
            "event_id": root,
            "is_falling_back": true,
            "m.in_reply_to": {"event_id": root},
        },
    })
}

/// The note for a question that closed elsewhere.
fn closed_note(closed: &Closed) -> String {
    let whom = match closed.face {
        "page" => " on the inbox page",
        "cli" => " with `ask_user inbox answer`",
        "link" => " by its link",
        "ntfy" => " from an ntfy notification",
        "asker" => " by its asker",
        _ => "",
    };
    match closed.outcome {
        "answered" => format!("Answered{whom}."),
        "declined" => format!("Declined{whom}."),
        "cancelled" => "Cancelled: no answer is needed.".into(),
        "dismissed" => "Dismissed: no answer is needed.".into(),
        "timed_out" | "asker_gone" => "Closed: its asker is gone, no answer is needed.".into(),
        other => format!("Closed ({other})."),
    }
}

/// A message in the room, as /sync gives it.
#[derive(Debug, Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    sender: String,
    event_id: String,
    #[serde(default)]
    content: Value,
}

/// A reply to one of the bot's messages: its thread root (or the message
/// it replies to) and its text, the quoted fallback removed.
#[derive(Debug, PartialEq, Eq)]
struct Reply {
    to: String,
    text: String,
}

/// `event` as a reply to a message, when it is a person's text reply in a
/// thread or to a message; `None` for the bot's own messages, other kinds,
/// and messages related to nothing.
fn as_reply(event: &Event, bot: &str) -> Option<Reply> {
    if event.kind != "m.room.message" || event.sender == bot {
        return None;
    }
    let content = &event.content;
    if content["msgtype"] != "m.text" {
        return None;
    }
    let relation = &content["m.relates_to"];
    let to = if relation["rel_type"] == "m.thread" {
        relation["event_id"].as_str()?
    } else {
        relation["m.in_reply_to"]["event_id"].as_str()?
    };
    let body = content["body"].as_str()?;
    if body.chars().count() > MAX_REPLY_CHARS {
        return None;
    }
    Some(Reply {
        to: to.to_string(),
        text: without_fallback(body).to_string(),
    })
}

/// A reply's body without the quote a client puts before it (the lines
/// that start with `> `, then one empty line: the spec's reply fallback).
fn without_fallback(body: &str) -> &str {
    if !body.starts_with("> ") {
        return body.trim();
    }
    let mut rest = body;
    while rest.starts_with('>') {
        rest = match rest.split_once('\n') {
            Some((_, after)) => after,
            None => "",
        };
    }
    rest.trim()
}

/// One reply per question: the whole text for one question, one line each
/// for several.
fn replies(text: &str, questions: usize) -> Vec<String> {
    if questions <= 1 {
        vec![text.to_string()]
    } else {
        text.lines().map(|line| line.trim().to_string()).collect()
    }
}

/// Reads the room for the inbox's lifetime and answers through `hub`.
pub async fn listen(target: Arc<MatrixTarget>, hub: Arc<Hub>) {
    let mut wait = FIRST_RETRY;
    let bot = loop {
        match whoami(&target).await {
            Ok(bot) => break bot,
            Err(failure) => {
                retry_later(&hub, "who the bot is", &failure, &mut wait).await;
            }
        }
    };
    let filter = sync_filter(&target.room);
    let mut since: Option<String> = None;
    wait = FIRST_RETRY;
    loop {
        let (path, limit) = match &since {
            // The first /sync finds where the room is now (and its latest messages).
            None => (
                format!(
                    "/_matrix/client/v3/sync?timeout=0&filter={}",
                    encode(&filter)
                ),
                ATTEMPT,
            ),
            Some(since) => (
                format!(
                    "/_matrix/client/v3/sync?timeout={}&since={}&filter={}",
                    SYNC_WAIT.as_millis(),
                    encode(since),
                    encode(&filter)
                ),
                SYNC_WAIT + ATTEMPT,
            ),
        };
        let synced = match target.call(Method::GET, path, None, limit).await {
            Ok(synced) => synced,
            Err(failure) => {
                retry_later(&hub, "reading the room (/sync)", &failure, &mut wait).await;
                continue;
            }
        };
        wait = FIRST_RETRY;
        let Some(next) = synced["next_batch"].as_str() else {
            let failure = DeliveryError::Transient("a /sync reply without next_batch".into());
            retry_later(&hub, "reading the room (/sync)", &failure, &mut wait).await;
            continue;
        };
        // The first /sync gives the room's latest messages: of those, only
        // replies to questions still pending here are read. The listener may
        // start late (the homeserver was down while the question was
        // delivered by the channel's worker), and a reply sent before it
        // listened must still answer; anything older is history. A reply
        // read twice (after a restart) changes nothing: its question is
        // closed by then, or its vote is the same, and the thread's note
        // keeps its transaction id.
        let first = since.is_none();
        let events = &synced["rooms"]["join"][&target.room]["timeline"]["events"];
        for event in events.as_array().into_iter().flatten() {
            let Ok(event) = Event::deserialize(event) else {
                continue;
            };
            if let Some(reply) = as_reply(&event, &bot) {
                answer(&target, &hub, &bot, &event, reply, first).await;
            }
        }
        since = Some(next.to_string());
    }
}

/// The bot's own user id (its messages are never replies).
async fn whoami(target: &MatrixTarget) -> Result<String, DeliveryError> {
    let reply = target
        .call(
            Method::GET,
            "/_matrix/client/v3/account/whoami".into(),
            None,
            ATTEMPT,
        )
        .await?;
    reply["user_id"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| DeliveryError::Permanent("whoami gave no user_id".into()))
}

/// Only the room's messages: no presence, account data, receipts or state.
fn sync_filter(room: &str) -> String {
    json!({
        "presence": {"types": []},
        "account_data": {"types": []},
        "room": {
            "rooms": [room],
            "state": {"types": []},
            "ephemeral": {"types": []},
            "account_data": {"types": []},
            "timeline": {"types": ["m.room.message"], "limit": SYNC_EVENTS},
        },
    })
    .to_string()
}

/// Logs `failure` while `doing`, counts it, and waits before the next try.
async fn retry_later(hub: &Hub, doing: &str, failure: &DeliveryError, wait: &mut Duration) {
    let (reason, why) = match failure {
        DeliveryError::Transient(why) => ("transient", why),
        DeliveryError::Permanent(why) => ("permanent", why),
    };
    hub.metrics().notify_failed("matrix", reason);
    eprintln!(
        "ask_user inbox: --notify-to matrix failed {doing} ({}); retrying in {} s",
        ask_user_core::sanitize::one_line(why, 300),
        wait.as_secs_f64()
    );
    tokio::time::sleep(*wait).await;
    *wait = (*wait * 2).min(LAST_RETRY);
}

/// A person's reply in a question's thread: answers it, or says why not.
/// `pending_only`: only when its question is pending here (the first
/// /sync's messages, read before the listener started).
async fn answer(
    target: &MatrixTarget,
    hub: &Arc<Hub>,
    bot: &str,
    event: &Event,
    reply: Reply,
    pending_only: bool,
) {
    let Some(thread) = target.thread(&reply.to, bot).await else {
        return; // a thread that is not one of the bot's questions
    };
    if pending_only && hub.is_present(&thread.inbox_id).is_none() {
        return;
    }
    let replies = replies(&reply.text, thread.questions);
    let notes = vec![None; replies.len()];
    // The decision writes to the store: off the inbox's one thread.
    let (deciding, id, sender) = (
        Arc::clone(hub),
        thread.inbox_id.clone(),
        event.sender.clone(),
    );
    let decided = ask_user_server::blocking::blocking(move || {
        deciding.decide_as(
            &id,
            Action::Replies(replies, notes),
            Face::Matrix,
            Some(&sender),
        )
    })
    .await
    .unwrap_or_else(|| {
        Err(ask_user_core::error::AskError::InternalError(
            ask_user_core::error::Detail::new("the reply could not be stored (it panicked)"),
        ))
    });
    let note = match decided {
        // A question that needs approvals and is still open: a vote.
        Ok(line) if let Ok(vote) = serde_json::from_str::<VoteRecorded>(&line) => format!(
            "Vote recorded for {}: {} of {} approvals. The question stays open until enough agree.",
            event.sender, vote.approvals, vote.needed
        ),
        Ok(_) => {
            target
                .posted()
                .answered_here
                .insert(thread.inbox_id.clone(), ());
            format!("Answered by {}. Thank you.", event.sender)
        }
        Err(error) if error.code() == "INVALID_REPLY" => {
            format!("Not understood, nothing was stored: {}", error.message())
        }
        Err(error) if error.code() == "ALREADY_ANSWERED" => {
            "This question is closed already; nothing was stored.".to_string()
        }
        Err(error) if error.code() == "UNKNOWN_QUESTION" => {
            "This question is no longer in the inbox; nothing was stored.".to_string()
        }
        Err(error) => {
            eprintln!(
                "ask_user inbox: --notify-to matrix: the reply of {} to question {} was not stored ({})",
                ask_user_core::sanitize::one_line(&event.sender, 200),
                thread.inbox_id,
                error.message()
            );
            "The inbox could not store this reply; try again, or answer by the link.".to_string()
        }
    };
    let root = target
        .posted()
        .by_id
        .get(&thread.inbox_id)
        .cloned()
        .unwrap_or_else(|| reply.to.clone());
    let content = in_thread(&root, &thread.inbox_id, &note);
    // The transaction is the reply's: a retry posts once.
    let txn = format!("ask_user-re-{}", digest(&event.event_id));
    let mut wait = FIRST_RETRY;
    for _ in 0..4 {
        match target.post(&txn, &content).await {
            Ok(_) => return,
            Err(failure) => retry_later(hub, "replying in a thread", &failure, &mut wait).await,
        }
    }
}

/// A short hex digest of `text` (a transaction id from an event id).
fn digest(text: &str) -> String {
    let hash = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
    hash.as_ref()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `text` percent-encoded for a URL path segment or query value (all but
/// RFC 3986's unreserved characters).
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `text` percent-decoded; `None` for a broken escape or bytes that are not UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(token: Option<&'static str>) -> impl Fn(&str) -> Option<String> {
        move |name: &str| {
            (name == TOKEN_VARIABLE)
                .then(|| token.map(str::to_string))
                .flatten()
        }
    }

    #[test]
    fn a_target_is_a_homeserver_and_a_room_id_with_the_token_from_the_environment() {
        let t = MatrixTarget::parse(
            "https://matrix.example.org/!abc:example.org",
            &env(Some("syt_x")),
        )
        .unwrap();
        assert_eq!(t.room, "!abc:example.org");
        assert_eq!(t.homeserver.origin(), "https://matrix.example.org");
        assert_eq!(t.token, "syt_x");
        let t = MatrixTarget::parse(
            "http://127.0.0.1:8008/%21abc%3Aexample.org",
            &env(Some("t")),
        )
        .unwrap();
        assert_eq!(t.room, "!abc:example.org");
        // Debug never shows the token.
        let shown = format!("{t:?}");
        assert!(
            shown.contains("!abc:example.org") && !shown.contains("\"t\""),
            "{shown}"
        );
    }

    #[test]
    fn bad_targets_are_refused_with_why() {
        for (spec, token, why) in [
            ("https://m.example.org/!a:b", None, "ASK_USER_MATRIX_TOKEN"),
            (
                "https://m.example.org/!a:b",
                Some("has space"),
                "not an access token",
            ),
            ("https://m.example.org/%23alias:b", Some("t"), "room id"),
            ("https://m.example.org/#alias:b", Some("t"), "fragment"),
            ("https://m.example.org/", Some("t"), "room id"),
            ("https://m.example.org/!a/b", Some("t"), "room id"),
            ("https://m.example.org/%ZZ", Some("t"), "percent-encoded"),
            ("http://m.example.org/!a:b", Some("t"), "plain http://"),
            ("matrix.example.org/!a:b", Some("t"), "not an http"),
        ] {
            let err = MatrixTarget::parse(spec, &env(token)).unwrap_err();
            assert!(err.contains(why), "{spec}: {err}");
        }
    }

    #[test]
    fn ids_are_percent_encoded_both_ways() {
        assert_eq!(encode("!a:b.c"), "%21a%3Ab.c");
        assert_eq!(encode("$ev/+x"), "%24ev%2F%2Bx");
        assert_eq!(decode("%21a%3Ab").as_deref(), Some("!a:b"));
        assert_eq!(decode("%2"), None);
        assert_eq!(decode("%FF"), None);
    }

    fn event(sender: &str, content: Value) -> Event {
        Event {
            kind: "m.room.message".into(),
            sender: sender.into(),
            event_id: "$e".into(),
            content,
        }
    }

    #[test]
    fn a_reply_is_a_persons_text_in_a_thread_or_to_a_message() {
        let threaded = event(
            "@p:x",
            json!({"msgtype": "m.text", "body": " 2 ", "m.relates_to": {"rel_type": "m.thread", "event_id": "$root"}}),
        );
        assert_eq!(
            as_reply(&threaded, "@bot:x"),
            Some(Reply {
                to: "$root".into(),
                text: "2".into()
            })
        );
        let plain = event(
            "@p:x",
            json!({"msgtype": "m.text", "body": "> <@bot:x> Which?\n> 1) a\n\nBlue",
                   "m.relates_to": {"m.in_reply_to": {"event_id": "$q"}}}),
        );
        assert_eq!(
            as_reply(&plain, "@bot:x"),
            Some(Reply {
                to: "$q".into(),
                text: "Blue".into()
            })
        );
        // The bot's own message, a message related to nothing, a notice, an
        // over-long body: none is a reply.
        assert_eq!(
            as_reply(&event("@bot:x", threaded.content.clone()), "@bot:x"),
            None
        );
        assert_eq!(
            as_reply(
                &event("@p:x", json!({"msgtype": "m.text", "body": "2"})),
                "@bot:x"
            ),
            None
        );
        let mut notice = threaded.content.clone();
        notice["msgtype"] = "m.notice".into();
        assert_eq!(as_reply(&event("@p:x", notice), "@bot:x"), None);
        let mut long = threaded.content.clone();
        long["body"] = "x".repeat(MAX_REPLY_CHARS + 1).into();
        assert_eq!(as_reply(&event("@p:x", long), "@bot:x"), None);
    }

    #[test]
    fn one_reply_per_question() {
        assert_eq!(replies("a\nb", 1), vec!["a\nb"]);
        assert_eq!(replies("2\n yes ", 2), vec!["2", "yes"]);
    }

    #[test]
    fn closed_notes_say_how_it_closed() {
        let closed = |outcome, face| Closed {
            inbox_id: "q".into(),
            outcome,
            face,
            at: String::new(),
        };
        assert_eq!(
            closed_note(&closed("answered", "page")),
            "Answered on the inbox page."
        );
        assert_eq!(
            closed_note(&closed("cancelled", "asker")),
            "Cancelled: no answer is needed."
        );
        assert!(closed_note(&closed("timed_out", "inbox")).contains("asker is gone"));
    }

    #[test]
    fn the_posted_questions_are_bounded() {
        let mut posted = Posted::default();
        for n in 0..REMEMBERED + 10 {
            let thread = Thread {
                inbox_id: format!("q{n}"),
                questions: 1,
            };
            posted.remember(&format!("$e{n}"), thread);
        }
        assert_eq!(posted.by_id.len(), REMEMBERED);
        assert_eq!(posted.by_event.len(), REMEMBERED);
        assert!(!posted.by_event.contains_key("$e0"));
        assert!(
            posted
                .by_event
                .contains_key(&format!("$e{}", REMEMBERED + 9))
        );
    }
}
