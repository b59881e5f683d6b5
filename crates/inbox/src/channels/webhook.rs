//! `--notify-to webhook=URL`: a signed POST of a CloudEvents 1.0 event in
//! structured mode (https://github.com/cloudevents/spec/blob/v1.0.2/cloudevents/spec.md,
//! and its JSON format and HTTP binding: `Content-Type:
//! application/cloudevents+json`, the attributes at the top level, the
//! payload in `data`). Its `data` is a CDEvent (https://cdevents.dev, the
//! approval events of spec 0.6.0-draft: schemas/approvalcreated.json and
//! approvalclosed.json in github.com/cdevents/spec):
//! `dev.cdevents.approval.created.0.1.0` for a new question (its
//! `approvalDetailsUrl` is the one-question link) and
//! `dev.cdevents.approval.closed.0.1.0` when it ends. `customData` carries
//! the inbox's own view: the question id, its prompt document, the link.
//!
//! Signed: `X-Ask-User-Timestamp: UNIX_SECONDS` and
//! `X-Ask-User-Signature: sha256=HEX`, the hex HMAC-SHA256 of
//! `TIMESTAMP + "." + BODY` keyed by `ASK_USER_WEBHOOK_SECRET` (or a
//! private file named by `ASK_USER_WEBHOOK_SECRET_FILE`). A receiver
//! recomputes it, compares in constant time, and refuses a timestamp more
//! than a few minutes old (a replay). The event `id` is the same on every
//! retry of one event, so that a receiver can drop duplicates.

use std::time::{SystemTime, UNIX_EPOCH};

use http::Method;
use serde_json::{Value, json};

use super::http::{Target, send};
use super::{Closed, Context, DeliveryError, Env, Notice, Question, secret, secure_target};

pub const SECRET_VAR: &str = "ASK_USER_WEBHOOK_SECRET";
/// Shortest key taken: HMAC keys below 128 bits are guessable offline.
const MIN_SECRET_BYTES: usize = 16;
pub const CREATED: &str = "dev.cdevents.approval.created.0.1.0";
pub const CLOSED: &str = "dev.cdevents.approval.closed.0.1.0";
/// The CDEvents spec whose approval events these are.
pub const CDEVENTS_VERSION: &str = "0.6.0-draft";
pub const SIGNATURE_HEADER: &str = "x-ask-user-signature";
pub const TIMESTAMP_HEADER: &str = "x-ask-user-timestamp";

#[derive(Debug)]
pub struct Webhook {
    target: Target,
    key: ring::hmac::Key,
}

impl Webhook {
    /// `https://…` (`http://` on this machine only), keyed by the secret.
    pub fn parse(url: &str, env: Env<'_>) -> Result<Webhook, String> {
        let target = secure_target(url, "the webhook URL")?;
        let secret = secret(env, SECRET_VAR)?.ok_or_else(|| {
            format!("a webhook is signed: set {SECRET_VAR} (or {SECRET_VAR}_FILE) to a random key of {MIN_SECRET_BYTES} bytes or more")
        })?;
        if secret.len() < MIN_SECRET_BYTES {
            return Err(format!(
                "{SECRET_VAR} is shorter than {MIN_SECRET_BYTES} bytes; use a random key (e.g. `openssl rand -hex 32`)"
            ));
        }
        Ok(Webhook {
            target,
            key: ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret.as_bytes()),
        })
    }

    pub async fn deliver(&self, notice: &Notice, context: &Context) -> Result<(), DeliveryError> {
        let event = event(notice, &context.source);
        let body = serde_json::to_vec(&event)
            .map_err(|e| DeliveryError::Permanent(format!("the event cannot be written ({e})")))?;
        let timestamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
            .to_string();
        let headers = [
            ("content-type", "application/cloudevents+json".to_string()),
            (TIMESTAMP_HEADER, timestamp.clone()),
            (SIGNATURE_HEADER, signature(&self.key, &timestamp, &body)),
        ];
        send(&self.target, Method::POST, &headers, body, context.timeout).await?;
        Ok(())
    }
}

/// `sha256=HEX` of `timestamp.body`.
pub fn signature(key: &ring::hmac::Key, timestamp: &str, body: &[u8]) -> String {
    let mut context = ring::hmac::Context::with_key(key);
    context.update(timestamp.as_bytes());
    context.update(b".");
    context.update(body);
    let tag = context.sign();
    let hex: String = tag.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256={hex}")
}

/// The CloudEvent for `notice`.
pub fn event(notice: &Notice, source: &str) -> Value {
    match notice {
        Notice::Asked(question) => created(question, source),
        Notice::Closed(closed) => closed_event(closed, source),
    }
}

fn envelope(id: String, kind: &str, source: &str, subject: &str, time: &str, data: Value) -> Value {
    json!({
        "specversion": "1.0",
        "id": id,
        "source": source,
        "type": kind,
        "subject": subject,
        "time": time,
        "datacontenttype": "application/json",
        "data": data,
    })
}

fn created(question: &Question, source: &str) -> Value {
    // An escalation step's notice is an event of its own (a receiver drops
    // events it has seen by id).
    let id = match question.escalation {
        Some(_) => question.notice_key(),
        None => format!("{}-created", question.inbox_id),
    };
    let details = question.link.clone().unwrap_or_else(|| source.to_string());
    let requestor = format!(
        "urn:ask-user:asker:{}",
        urn_part(question.asker.as_deref().unwrap_or("unknown"))
    );
    let document: Value = serde_json::from_str(&question.document)
        .unwrap_or(Value::String(question.document.clone()));
    let mut data = json!({
        "context": {
            "specversion": CDEVENTS_VERSION,
            "id": id,
            "source": source,
            "type": CREATED,
            "timestamp": question.asked_at,
        },
        "subject": {
            "id": question.inbox_id,
            "source": source,
            "content": {
                "approvalDetailsUrl": details,
                "resourceTargetUrl": source,
                "requestor": requestor,
            },
        },
        "customData": {
            "inboxId": question.inbox_id,
            "title": question.headline(),
            "link": question.link,
            "asker": question.asker,
            "question": document,
        },
        "customDataContentType": "application/json",
    });
    if let Some(escalation) = &question.escalation {
        data["customData"]["escalation"] = json!({
            "step": escalation.step,
            "notify": escalation.notify,
        });
    }
    envelope(
        id,
        CREATED,
        source,
        &question.inbox_id,
        &question.asked_at,
        data,
    )
}

/// CDEvents' terminal `status` for an outcome: an answer is "approved" (a
/// decision was recorded: its content is in the inbox's history, not here),
/// a decline "rejected", a cancel or dismiss "cancelled", a timeout or a
/// lost asker "expired".
pub fn status(outcome: &str) -> &'static str {
    match outcome {
        "answered" => "approved",
        "declined" => "rejected",
        "timed_out" | "asker_gone" => "expired",
        _ => "cancelled",
    }
}

fn closed_event(closed: &Closed, source: &str) -> Value {
    let id = format!("{}-closed", closed.inbox_id);
    let data = json!({
        "context": {
            "specversion": CDEVENTS_VERSION,
            "id": id,
            "source": source,
            "type": CLOSED,
            "timestamp": closed.at,
        },
        "subject": {
            "id": closed.inbox_id,
            "source": source,
            "content": {
                "approvalDetailsUrl": source,
                "resourceTargetUrl": source,
                "responder": format!("urn:ask-user:face:{}", closed.face),
                "decision": closed.outcome,
                "status": status(closed.outcome),
            },
        },
        "customData": {
            "inboxId": closed.inbox_id,
            "outcome": closed.outcome,
            "face": closed.face,
        },
        "customDataContentType": "application/json",
    });
    envelope(id, CLOSED, source, &closed.inbox_id, &closed.at, data)
}

/// Text safe in a URN's last part (RFC 8141): unreserved characters kept,
/// the rest percent-encoded.
fn urn_part(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key of exactly 16 bytes is enough; one byte fewer is refused.
    #[test]
    fn the_secret_needs_16_bytes_or_more() {
        for (secret, ok) in [("k".repeat(15), false), ("k".repeat(16), true)] {
            let env = move |name: &str| (name == SECRET_VAR).then(|| secret.clone());
            let parsed = Webhook::parse("https://hooks.example/x", &env);
            assert_eq!(parsed.is_ok(), ok);
        }
    }

    /// Each way a question closes has its CDEvents status.
    #[test]
    fn each_outcome_has_its_status() {
        for (outcome, status_of) in [
            ("answered", "approved"),
            ("declined", "rejected"),
            ("timed_out", "expired"),
            ("asker_gone", "expired"),
            ("cancelled", "cancelled"),
            ("dismissed", "cancelled"),
        ] {
            assert_eq!(status(outcome), status_of, "{outcome}");
        }
    }
}
