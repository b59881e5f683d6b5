//! `--notify-to ntfy=https://HOST/TOPIC`: a message published as ntfy's
//! "Publish as JSON" documents it (https://docs.ntfy.sh/publish/#publish-as-json):
//! a POST of `{"topic", "title", "message", "click", "actions"}` to the
//! server's root. A click opens the one-question link. A lone single-select
//! question of at most three options (ntfy shows at most three action
//! buttons) gets one `http` action per option: a POST to that option's
//! signed choose URL (https://docs.ntfy.sh/publish/#send-http-request;
//! with `Content-Type: application/json` and `{}` as its body, as the
//! inbox takes POSTs),
//! which answers the question from the notification. Otherwise one `view`
//! action opens the link.
//!
//! `ASK_USER_NTFY_TOKEN` (or `ASK_USER_NTFY_TOKEN_FILE`), when set, is sent
//! as `Authorization: Bearer` (ntfy's access tokens).

use http::Method;
use serde::Serialize;

use super::http::{Target, send};
use super::{Context, DeliveryError, Env, Notice, Question, secret, secure_target};

/// ntfy shows at most three action buttons.
pub const MAX_BUTTONS: usize = 3;
/// ntfy's message limit is 4096 bytes; longer ones become attachments.
const MAX_MESSAGE_BYTES: usize = 4000;

#[derive(Debug)]
pub struct Ntfy {
    /// The server's root (where JSON is published).
    root: Target,
    topic: String,
    token: Option<String>,
}

impl Ntfy {
    /// `https://HOST[/PREFIX]/TOPIC` (`http://` on this machine only).
    pub fn parse(url: &str, env: Env<'_>) -> Result<Ntfy, String> {
        let mut root = secure_target(url, "the ntfy URL")?;
        let path = root.path.clone();
        if path.contains('?') {
            return Err(format!("{url:?}: an ntfy URL has no query"));
        }
        let (prefix, topic) = path
            .trim_end_matches('/')
            .rsplit_once('/')
            .unwrap_or(("", ""));
        let valid = (1..=64).contains(&topic.len())
            && topic
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid {
            return Err(format!(
                "{url:?} names no topic (https://HOST/TOPIC; a topic is 1 to 64 of A-Z a-z 0-9 _ -)"
            ));
        }
        root.path = format!("{prefix}/");
        Ok(Ntfy {
            root,
            topic: topic.to_string(),
            token: secret(env, "ASK_USER_NTFY_TOKEN")?,
        })
    }

    pub async fn deliver(&self, notice: &Notice, context: &Context) -> Result<(), DeliveryError> {
        let Notice::Asked(question) = notice else {
            return Ok(());
        };
        let body = serde_json::to_vec(&self.message(question)).map_err(|e| {
            DeliveryError::Permanent(format!("the message cannot be written ({e})"))
        })?;
        let mut headers = vec![("content-type", "application/json".to_string())];
        if let Some(token) = &self.token {
            headers.push(("authorization", format!("Bearer {token}")));
        }
        send(&self.root, Method::POST, &headers, body, context.timeout).await?;
        Ok(())
    }

    /// The JSON published.
    pub fn message<'a>(&'a self, question: &'a Question) -> Message<'a> {
        let mut actions: Vec<Action<'a>> = question
            .choices
            .iter()
            .take(MAX_BUTTONS)
            .map(|choice| Action {
                action: "http",
                label: &choice.label,
                url: &choice.url,
                method: Some("POST"),
                // The inbox takes JSON POSTs only; the choose route reads
                // an empty object.
                headers: Some(JsonHeaders {
                    content_type: "application/json",
                }),
                body: Some("{}"),
                clear: true,
            })
            .collect();
        if actions.is_empty()
            && let Some(link) = &question.link
        {
            actions.push(Action {
                action: "view",
                label: "Answer",
                url: link,
                method: None,
                headers: None,
                body: None,
                clear: false,
            });
        }
        Message {
            topic: &self.topic,
            title: question.headline(),
            message: truncate(&body_text(question), MAX_MESSAGE_BYTES),
            click: question.link.as_deref(),
            actions,
        }
    }
}

/// ntfy's JSON publish body.
#[derive(Debug, Serialize)]
pub struct Message<'a> {
    pub topic: &'a str,
    pub title: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<Action<'a>>,
}

/// One action button, in ntfy's JSON form.
#[derive(Debug, Serialize)]
pub struct Action<'a> {
    pub action: &'static str,
    pub label: &'a str,
    pub url: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headers: Option<JsonHeaders>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<&'static str>,
    /// Dismiss the notification once pressed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub clear: bool,
}

/// An `http` action's headers.
#[derive(Debug, Serialize)]
pub struct JsonHeaders {
    #[serde(rename = "Content-Type")]
    pub content_type: &'static str,
}

/// The questions and their options (the title carries the headline; the
/// link is the click).
fn body_text(question: &Question) -> String {
    let mut text = String::new();
    for item in &question.items {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&item.question);
        text.push('\n');
        for (i, option) in item.options.iter().flatten().enumerate() {
            text.push_str(&format!("{}) {}\n", i + 1, option.label));
        }
    }
    if let Some(asker) = &question.asker {
        text.push_str(&format!("(asked by {asker})"));
    }
    text.trim_end().to_string()
}

/// At most `max` bytes, cut at a character boundary, with an ellipsis.
fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::super::tests::question;
    use super::*;

    /// A topic is 1 to 64 of A-Z a-z 0-9 `_` `-`, nothing else.
    #[test]
    fn a_topic_is_1_to_64_letters_digits_dashes_and_underscores() {
        let none = |_: &str| None;
        let long = "x".repeat(64);
        for topic in ["a", "A-b_9", long.as_str()] {
            let url = format!("https://ntfy.example/{topic}");
            assert_eq!(Ntfy::parse(&url, &none).unwrap().topic, topic);
        }
        let longer = "x".repeat(65);
        for topic in ["", "a.b", "a+b", "é", longer.as_str()] {
            let url = format!("https://ntfy.example/{topic}");
            let err = Ntfy::parse(&url, &none).unwrap_err();
            assert!(err.contains("names no topic"), "{topic}: {err}");
        }
    }

    /// Over ntfy's 4000 bytes the body is cut at a character boundary, with
    /// an ellipsis, to as much as fits; 4000 bytes are kept whole.
    #[test]
    fn a_long_body_is_cut_to_4000_bytes_at_a_character() {
        let whole = "x".repeat(MAX_MESSAGE_BYTES);
        assert_eq!(truncate(&whole, MAX_MESSAGE_BYTES), whole);
        // 2-byte characters: 3997 bytes (4000 less the ellipsis) ends inside one.
        let text = "é".repeat(MAX_MESSAGE_BYTES);
        let cut = truncate(&text, MAX_MESSAGE_BYTES);
        assert_eq!(cut.len(), 3996 + '…'.len_utf8());
        assert!(cut.ends_with("é…"));
    }

    /// Several questions: each with its options, a blank line between them.
    #[test]
    fn the_body_lists_each_question_and_its_options() {
        let q = question(
            r#"{"questions":[{"question":"Deploy?","options":["a","b"]},{"question":"Why?"}]}"#,
        );
        assert_eq!(
            body_text(&q),
            "Deploy?\n1) a\n2) b\n\nWhy?\n(asked by claude)"
        );
    }
}
