//! `--notify-to slack=env`: a Block Kit message posted to a Slack incoming
//! webhook (https://api.slack.com/messaging/webhooks). An incoming
//! webhook's URL is itself the secret that lets anyone post to the channel,
//! so it is never taken from the command line: it comes from
//! `ASK_USER_SLACK_WEBHOOK` (or a private file named by
//! `ASK_USER_SLACK_WEBHOOK_FILE`), and `slack=` takes only `env`.
//!
//! The message (Block Kit reference: https://api.slack.com/reference/block-kit/blocks):
//! a `header` block (plain text, at most 150 characters) with the title or
//! the question; per question a `section` block in mrkdwn with the
//! question and its options as a numbered list; a `context` block naming
//! the asker; an `actions` block with one link `button` that opens the
//! one-question link. `text` is the fallback for notifications.

use http::Method;
use serde_json::{Value, json};

use super::http::{Target, send};
use super::{Context, DeliveryError, Env, Notice, Question, secret, secure_target};

/// Block Kit: a header's text is at most 150 characters, ...
const MAX_HEADER_CHARS: usize = 150;
/// ... a section's 3000, ...
const MAX_SECTION_CHARS: usize = 3000;
/// ... and a message has at most 50 blocks.
const MAX_BLOCKS: usize = 50;
/// The variable holding the webhook URL.
pub const WEBHOOK_VAR: &str = "ASK_USER_SLACK_WEBHOOK";

#[derive(Debug)]
pub struct Slack {
    webhook: Target,
}

impl Slack {
    /// `env`: the URL is `ASK_USER_SLACK_WEBHOOK`'s.
    pub fn parse(spec: &str, env: Env<'_>) -> Result<Slack, String> {
        if spec != "env" {
            return Err(format!(
                "an incoming webhook's URL is a secret and is not taken from the command line: put it in {WEBHOOK_VAR} and pass slack=env"
            ));
        }
        let url = secret(env, WEBHOOK_VAR)?.ok_or_else(|| {
            format!(
                "slack=env needs {WEBHOOK_VAR} (or {WEBHOOK_VAR}_FILE): the incoming webhook's URL"
            )
        })?;
        Ok(Slack {
            webhook: secure_target(&url, WEBHOOK_VAR)
                .map_err(|why| why.replace(&url, "(its URL)"))?,
        })
    }

    pub async fn deliver(&self, notice: &Notice, context: &Context) -> Result<(), DeliveryError> {
        let Notice::Asked(question) = notice else {
            return Ok(());
        };
        let body = serde_json::to_vec(&message(question)).map_err(|e| {
            DeliveryError::Permanent(format!("the message cannot be written ({e})"))
        })?;
        let headers = [("content-type", "application/json".to_string())];
        send(&self.webhook, Method::POST, &headers, body, context.timeout).await?;
        Ok(())
    }
}

/// The Block Kit message.
pub fn message(question: &Question) -> Value {
    let mut blocks = vec![json!({
        "type": "header",
        "text": {"type": "plain_text", "text": cut(&question.headline(), MAX_HEADER_CHARS)},
    })];
    for item in &question.items {
        let mut text = format!("*{}*", escape(&item.question));
        if let Some(context) = &item.context {
            text.push('\n');
            text.push_str(&escape(context));
        }
        for (i, option) in item.options.iter().flatten().enumerate() {
            text.push_str(&format!("\n{}. {}", i + 1, escape(&option.label)));
        }
        blocks.push(json!({
            "type": "section",
            "text": {"type": "mrkdwn", "text": cut(&text, MAX_SECTION_CHARS)},
        }));
    }
    blocks.truncate(MAX_BLOCKS - 2);
    if let Some(asker) = &question.asker {
        blocks.push(json!({
            "type": "context",
            "elements": [{"type": "plain_text", "text": cut(&format!("Asked by {asker}"), MAX_HEADER_CHARS)}],
        }));
    }
    if let Some(link) = &question.link {
        blocks.push(json!({
            "type": "actions",
            "elements": [{
                "type": "button",
                "text": {"type": "plain_text", "text": "Answer"},
                "url": link,
                "action_id": "answer",
                "style": "primary",
            }],
        }));
    }
    let mut fallback = question.headline();
    if let Some(link) = &question.link {
        fallback.push_str(&format!(" — answer: {link}"));
    }
    json!({"text": fallback, "blocks": blocks})
}

/// Slack's mrkdwn escapes: `&`, `<` and `>` (so that text cannot make a
/// link or a mention).
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// At most `max` characters, with an ellipsis when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::super::tests::question;
    use super::*;

    /// Slack refuses a header over 150 characters: a longer headline is cut
    /// to exactly 150 with its ellipsis, and one of 150 is kept whole.
    #[test]
    fn a_long_headline_is_cut_to_exactly_the_header_limit() {
        for (length, cut) in [
            (MAX_HEADER_CHARS, false),
            (MAX_HEADER_CHARS + 1, true),
            (200, true),
        ] {
            let text = "é".repeat(length);
            let q = question(&format!(r#"{{"question":"{text}","options":["a","b"]}}"#));
            let json = message(&q);
            let header = json["blocks"][0]["text"]["text"].as_str().unwrap();
            assert_eq!(header.chars().count(), MAX_HEADER_CHARS, "{length}");
            assert_eq!(header.ends_with('…'), cut, "{length}");
        }
    }
}
