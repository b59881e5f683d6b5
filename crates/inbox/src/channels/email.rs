//! `--notify-to email=smtp://HOST[:PORT]/?to=ADDRESS[&from=ADDRESS]`: a
//! plain-text message (RFC 5322, MIME 1.0, UTF-8) with the question, its
//! options numbered, and the one-question link, sent through [`super::smtp`]:
//! STARTTLS whenever the server offers it (its certificate checked against
//! the system's roots, or `SSL_CERT_FILE`), plain SMTP only to a server on
//! this machine. `ASK_USER_SMTP_USER` and `ASK_USER_SMTP_PASSWORD` (or
//! their `_FILE` forms), when set, log in with AUTH PLAIN, over TLS only.
//! PORT defaults to 25; `from` defaults to `to`.

use super::http::split_authority;
use super::smtp::{self, Envelope, base64};
use super::{Context, DeliveryError, Env, Notice, Question, plain_text, secret};

#[derive(Debug)]
pub struct Email {
    host: String,
    port: u16,
    loopback: bool,
    to: String,
    from: String,
    credentials: Option<(String, String)>,
}

impl Email {
    pub fn parse(url: &str, env: Env<'_>) -> Result<Email, String> {
        let rest = url
            .strip_prefix("smtp://")
            .ok_or_else(|| format!("{url:?} is not an smtp:// URL"))?;
        let (authority, query) = match rest.split_once('?') {
            Some((authority, query)) => (authority.trim_end_matches('/'), query),
            None => (rest.trim_end_matches('/'), ""),
        };
        if authority.contains('/') {
            return Err(format!("{url:?}: an smtp:// URL has no path"));
        }
        let (host, port) = split_authority(authority).map_err(|why| format!("{url:?}: {why}"))?;
        let (mut to, mut from) = (None, None);
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value =
                percent_decode(value).ok_or_else(|| format!("{url:?}: {key} is not valid"))?;
            match key {
                "to" => to = Some(address(&value)?),
                "from" => from = Some(address(&value)?),
                other => return Err(format!("{url:?}: unknown parameter {other:?} (to, from)")),
            }
        }
        let to = to.ok_or_else(|| format!("{url:?} names no recipient (?to=ADDRESS)"))?;
        let user = secret(env, "ASK_USER_SMTP_USER")?;
        let password = secret(env, "ASK_USER_SMTP_PASSWORD")?;
        let credentials = match (user, password) {
            (Some(user), Some(password)) => Some((user, password)),
            (None, None) => None,
            _ => {
                return Err(
                    "set both ASK_USER_SMTP_USER and ASK_USER_SMTP_PASSWORD, or neither".into(),
                );
            }
        };
        let loopback = super::http::Target {
            tls: false,
            host: host.clone(),
            port: 0,
            path: String::new(),
        }
        .is_loopback();
        Ok(Email {
            host,
            port: port.unwrap_or(25),
            loopback,
            from: from.unwrap_or_else(|| to.clone()),
            to,
            credentials,
        })
    }

    pub async fn deliver(&self, notice: &Notice, context: &Context) -> Result<(), DeliveryError> {
        let Notice::Asked(question) = notice else {
            return Ok(());
        };
        let message = message(question, &self.from, &self.to, crate::store::now_ms());
        let envelope = Envelope {
            host: &self.host,
            port: self.port,
            plain_ok: self.loopback,
            credentials: self
                .credentials
                .as_ref()
                .map(|(user, password)| (user.as_str(), password.as_str())),
            from: &self.from,
            to: &self.to,
            message: &message,
        };
        smtp::send(&envelope, context.timeout).await
    }
}

/// An address as SMTP and a header take it: `local@domain`, nothing that
/// could end a line or a field.
fn address(text: &str) -> Result<String, String> {
    let valid = text.len() <= 254
        && text.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty() && !domain.is_empty() && !domain.contains('@')
        })
        && text.chars().all(|c| {
            c.is_ascii_graphic()
                && !matches!(
                    c,
                    '<' | '>' | '(' | ')' | ',' | ';' | ':' | '"' | '\\' | '[' | ']'
                )
        });
    if valid {
        Ok(text.to_string())
    } else {
        Err(format!("{text:?} is not an email address"))
    }
}

fn percent_decode(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut input = text.bytes();
    while let Some(byte) = input.next() {
        match byte {
            b'%' => {
                let hex = [input.next()?, input.next()?];
                let hex = std::str::from_utf8(&hex).ok()?;
                bytes.push(u8::from_str_radix(hex, 16).ok()?);
            }
            b'+' => bytes.push(b' '),
            byte => bytes.push(byte),
        }
    }
    String::from_utf8(bytes).ok()
}

/// The whole message, CRLF line ends. The body is 7-bit text when it can
/// be (ASCII, short lines), else base64 UTF-8.
pub fn message(question: &Question, from: &str, to: &str, now_ms: i64) -> String {
    let body = plain_text(question).replace("\r\n", "\n");
    let subject = format!("Question: {}", question.headline());
    let mut head = vec![
        format!("From: ask_user <{from}>"),
        format!("To: <{to}>"),
        format!("Subject: {}", encode_header(&subject)),
        format!("Date: {}", rfc5322_date(now_ms)),
        format!(
            "Message-ID: <{}.{now_ms}@ask-user.invalid>",
            question.inbox_id
        ),
        "MIME-Version: 1.0".to_string(),
        "Content-Type: text/plain; charset=utf-8".to_string(),
        "Auto-Submitted: auto-generated".to_string(),
    ];
    let seven_bit = body.is_ascii() && body.lines().all(|line| line.len() <= 900);
    let body = if seven_bit {
        head.push("Content-Transfer-Encoding: 7bit".to_string());
        body.replace('\n', "\r\n")
    } else {
        head.push("Content-Transfer-Encoding: base64".to_string());
        let encoded = base64(body.as_bytes());
        let lines: Vec<&str> = encoded
            .as_bytes()
            .chunks(76)
            .map(|chunk| std::str::from_utf8(chunk).unwrap_or_default())
            .collect();
        lines.join("\r\n") + "\r\n"
    };
    format!("{}\r\n\r\n{body}", head.join("\r\n"))
}

/// A header value: as it is when ASCII without controls, else an RFC 2047
/// encoded word (base64 UTF-8).
fn encode_header(text: &str) -> String {
    if text.chars().all(|c| c.is_ascii() && !c.is_ascii_control()) {
        text.to_string()
    } else {
        format!("=?utf-8?B?{}?=", base64(text.as_bytes()))
    }
}

/// RFC 5322 §3.3: `Sat, 28 Nov 2026 04:43:25 +0000`.
fn rfc5322_date(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    // 1970-01-01 was a Thursday.
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][days.rem_euclid(7) as usize];
    let iso = crate::store::rfc3339(ms); // 2026-11-28T04:43:25.123Z
    let (year, month, day) = (&iso[0..4], &iso[5..7], &iso[8..10]);
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ][month.parse::<usize>().unwrap_or(1).clamp(1, 12) - 1];
    format!("{weekday}, {day} {month} {year} {} +0000", &iso[11..19])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn the_url_names_the_server_and_the_addresses() {
        let email = Email::parse("smtp://127.0.0.1:2525/?to=me%40example.com", &no_env).unwrap();
        assert_eq!(
            (email.host.as_str(), email.port, email.loopback),
            ("127.0.0.1", 2525, true)
        );
        assert_eq!(
            (email.to.as_str(), email.from.as_str()),
            ("me@example.com", "me@example.com")
        );
        let email = Email::parse(
            "smtp://mail.example.com?to=a@example.com&from=b@example.com",
            &no_env,
        )
        .unwrap();
        assert_eq!(
            (email.port, email.loopback, email.from.as_str()),
            (25, false, "b@example.com")
        );
        for (bad, why) in [
            ("smtps://h/?to=a@b", "not an smtp://"),
            ("smtp://h/", "no recipient"),
            ("smtp://h/?to=a@b&cc=c@d", "unknown parameter"),
            ("smtp://h/?to=a%0D%0ARCPT@b", "not an email address"),
            ("smtp://h/?to=nobody", "not an email address"),
            ("smtp://u:p@h/?to=a@b", "credentials"),
            ("smtp://h/x?to=a@b", "no path"),
        ] {
            let err = Email::parse(bad, &no_env).unwrap_err();
            assert!(err.contains(why), "{bad}: {err}");
        }
        let half = |name: &str| (name == "ASK_USER_SMTP_USER").then(|| "me".to_string());
        assert!(
            Email::parse("smtp://h/?to=a@b", &half)
                .unwrap_err()
                .contains("both")
        );
    }

    /// An address is one `@` between a local part and a domain, both
    /// present: anything else would be a second recipient or none.
    #[test]
    fn an_address_needs_a_local_part_and_a_domain_with_one_at() {
        assert_eq!(address("me@example.com").unwrap(), "me@example.com");
        for bad in ["@example.com", "me@", "@", "me@example.com@evil.example"] {
            let err = address(bad).unwrap_err();
            assert!(err.contains("not an email address"), "{bad}: {err}");
        }
    }

    /// A user and a password given both are the login.
    #[test]
    fn a_user_and_a_password_are_the_login() {
        let both = |name: &str| match name {
            "ASK_USER_SMTP_USER" => Some("me".to_string()),
            "ASK_USER_SMTP_PASSWORD" => Some("pw".to_string()),
            _ => None,
        };
        let email = Email::parse("smtp://mail.example.com/?to=a@example.com", &both).unwrap();
        assert_eq!(
            email.credentials,
            Some(("me".to_string(), "pw".to_string()))
        );
    }

    #[test]
    fn dates_as_rfc_5322_writes_them() {
        // Checked against Python's email.utils.formatdate.
        assert_eq!(rfc5322_date(0), "Thu, 01 Jan 1970 00:00:00 +0000");
        assert_eq!(
            rfc5322_date(1_795_840_000_000),
            "Sat, 28 Nov 2026 04:26:40 +0000"
        );
    }

    #[test]
    fn a_hostile_question_adds_no_header_and_non_ascii_goes_base64() {
        let question = Question {
            inbox_id: "ab12cd34".into(),
            title: Some("Ship?\r\nBcc: evil@example.com".into()),
            items: Vec::new(),
            asker: None,
            link: Some("https://inbox.example/l/cap".into()),
            choices: Vec::new(),
            document: "{}".into(),
            asked_at: "2026-11-28T04:00:00.000Z".into(),
            to: None,
            escalation: None,
        };
        let message = message(&question, "a@example.com", "b@example.com", 0);
        let (head, body) = message.split_once("\r\n\r\n").unwrap();
        assert!(!head.lines().any(|l| l.starts_with("Bcc")), "{head}");
        assert!(
            head.lines()
                .any(|l| l == "Subject: Question: Ship? Bcc: evil@example.com"),
            "{head}"
        );
        assert!(head.contains("Content-Transfer-Encoding: 7bit"));
        assert!(
            body.ends_with("Answer: https://inbox.example/l/cap\r\n"),
            "{body:?}"
        );
        let french = Question {
            title: Some("Déployer ?".into()),
            ..question
        };
        let message = super::message(&french, "a@example.com", "b@example.com", 0);
        assert!(message.contains("Subject: =?utf-8?B?"), "{message}");
        assert!(
            message.contains("Content-Transfer-Encoding: base64"),
            "{message}"
        );
    }

    #[test]
    fn headers_are_encoded_words_when_not_ascii() {
        assert_eq!(encode_header("Question: Ship?"), "Question: Ship?");
        assert_eq!(encode_header("Déployer"), "=?utf-8?B?RMOpcGxveWVy?=");
        assert!(encode_header("a\r\nBcc: x").starts_with("=?utf-8?B?"));
    }
}
