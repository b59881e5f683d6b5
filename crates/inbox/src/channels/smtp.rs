//! A minimal SMTP submission client (RFC 5321) for `--notify-to email=`:
//! EHLO, STARTTLS when the server offers it (RFC 3207, over the rustls the
//! inbox already has), AUTH PLAIN (RFC 4616) over TLS only, one MAIL FROM,
//! one RCPT TO, DATA with dot-stuffing, QUIT. Why not lettre: it would
//! bring its own MIME, address and encoding crates for what is here about
//! 250 lines over tokio and tokio-rustls, which the binary already carries
//! (see docs/inbox-channels.md for the measured size cost).
//!
//! A reply of 4yz is transient (tried again), 5yz permanent.

use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use super::DeliveryError;

/// Longest reply line read (RFC 5321 allows 512; some servers say more).
const MAX_LINE: usize = 4096;
/// Most lines in one multi-line reply.
const MAX_LINES: usize = 100;

/// One message to send.
pub struct Envelope<'a> {
    pub host: &'a str,
    pub port: u16,
    /// Plain SMTP (no STARTTLS offered) is allowed: the server is on this machine.
    pub plain_ok: bool,
    pub credentials: Option<(&'a str, &'a str)>,
    pub from: &'a str,
    pub to: &'a str,
    /// The message, CRLF line ends, not yet dot-stuffed.
    pub message: &'a str,
}

/// Sends `envelope` within `timeout`.
pub async fn send(envelope: &Envelope<'_>, timeout: Duration) -> Result<(), DeliveryError> {
    tokio::time::timeout(timeout, conversation(envelope))
        .await
        .unwrap_or_else(|_| {
            Err(DeliveryError::Transient(format!(
                "the SMTP server did not finish within {} s",
                timeout.as_secs_f64()
            )))
        })
}

async fn conversation(envelope: &Envelope<'_>) -> Result<(), DeliveryError> {
    let host = envelope.host.trim_start_matches('[').trim_end_matches(']');
    let stream = TcpStream::connect((host, envelope.port))
        .await
        .map_err(|e| DeliveryError::Transient(format!("cannot connect ({e})")))?;
    let helo = match stream.local_addr() {
        Ok(std::net::SocketAddr::V4(addr)) => format!("[{}]", addr.ip()),
        Ok(std::net::SocketAddr::V6(addr)) => format!("[IPv6:{}]", addr.ip()),
        Err(_) => "[127.0.0.1]".to_string(),
    };
    let mut plain = Session::new(stream);
    plain.expect(&[220], "greeting").await?;
    let extensions = plain.ehlo(&helo).await?;
    if offers(&extensions, "STARTTLS") {
        plain.command("STARTTLS", &[220]).await?;
        let stream = plain.into_inner();
        let connector = ask_user_server::tls::connector().map_err(DeliveryError::Permanent)?;
        let name =
            ask_user_server::tls::server_name(envelope.host).map_err(DeliveryError::Permanent)?;
        let tls = connector
            .connect(name, stream)
            .await
            .map_err(|e| DeliveryError::Transient(format!("STARTTLS handshake failed ({e})")))?;
        let mut secure = Session::new(tls);
        secure.ehlo(&helo).await?;
        return secure.submit(envelope, true).await;
    }
    if !envelope.plain_ok {
        return Err(DeliveryError::Permanent(format!(
            "{} offers no STARTTLS; plain SMTP is used only with a server on this machine",
            envelope.host
        )));
    }
    plain.submit(envelope, false).await
}

fn offers(extensions: &[String], name: &str) -> bool {
    extensions.iter().any(|line| {
        line.split_whitespace()
            .next()
            .is_some_and(|word| word.eq_ignore_ascii_case(name))
    })
}

struct Session<S> {
    io: BufReader<S>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Session<S> {
    fn new(stream: S) -> Self {
        Session {
            io: BufReader::new(stream),
        }
    }

    fn into_inner(self) -> S {
        self.io.into_inner()
    }

    /// A reply: its code and its lines' text.
    async fn reply(&mut self) -> Result<(u16, Vec<String>), DeliveryError> {
        let mut lines = Vec::new();
        loop {
            let mut line = Vec::new();
            let read = (&mut self.io)
                .take(MAX_LINE as u64)
                .read_until(b'\n', &mut line)
                .await
                .map_err(|e| {
                    DeliveryError::Transient(format!("the SMTP connection broke ({e})"))
                })?;
            if read == 0 {
                return Err(DeliveryError::Transient(
                    "the SMTP server closed the connection".into(),
                ));
            }
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\r', '\n']);
            let code = line
                .get(..3)
                .and_then(|code| code.parse::<u16>().ok())
                .ok_or_else(|| {
                    DeliveryError::Transient(format!(
                        "not an SMTP reply: {}",
                        ask_user_core::sanitize::one_line(line, 100)
                    ))
                })?;
            let more = line.as_bytes().get(3) == Some(&b'-');
            lines.push(line.get(4..).unwrap_or("").to_string());
            if !more {
                return Ok((code, lines));
            }
            if lines.len() > MAX_LINES {
                return Err(DeliveryError::Transient("an SMTP reply too long".into()));
            }
        }
    }

    async fn expect(&mut self, codes: &[u16], what: &str) -> Result<Vec<String>, DeliveryError> {
        let (code, lines) = self.reply().await?;
        if codes.contains(&code) {
            return Ok(lines);
        }
        let why = format!(
            "the SMTP server answered {what} with {code} {}",
            ask_user_core::sanitize::one_line(&lines.join(" "), 200)
        );
        Err(if (400..500).contains(&code) {
            DeliveryError::Transient(why)
        } else {
            DeliveryError::Permanent(why)
        })
    }

    async fn write(&mut self, bytes: &[u8]) -> Result<(), DeliveryError> {
        let io = self.io.get_mut();
        io.write_all(bytes)
            .await
            .map_err(|e| DeliveryError::Transient(format!("the SMTP connection broke ({e})")))?;
        io.flush()
            .await
            .map_err(|e| DeliveryError::Transient(format!("the SMTP connection broke ({e})")))
    }

    async fn command(&mut self, line: &str, codes: &[u16]) -> Result<Vec<String>, DeliveryError> {
        self.write(format!("{line}\r\n").as_bytes()).await?;
        // The verb names the step in errors, never its argument (AUTH's).
        let verb = line.split_whitespace().next().unwrap_or(line);
        self.expect(codes, verb).await
    }

    async fn ehlo(&mut self, helo: &str) -> Result<Vec<String>, DeliveryError> {
        self.command(&format!("EHLO {helo}"), &[250]).await
    }

    async fn submit(&mut self, envelope: &Envelope<'_>, tls: bool) -> Result<(), DeliveryError> {
        if let Some((user, password)) = envelope.credentials {
            if !tls {
                return Err(DeliveryError::Permanent(
                    "SMTP credentials are sent only over TLS, and this server offers no STARTTLS"
                        .into(),
                ));
            }
            let token = base64(format!("\0{user}\0{password}").as_bytes());
            self.write(format!("AUTH PLAIN {token}\r\n").as_bytes())
                .await?;
            self.expect(&[235], "AUTH").await?;
        }
        self.command(&format!("MAIL FROM:<{}>", envelope.from), &[250])
            .await?;
        self.command(&format!("RCPT TO:<{}>", envelope.to), &[250, 251])
            .await?;
        self.command("DATA", &[354]).await?;
        let mut data = dot_stuff(envelope.message);
        if !data.ends_with("\r\n") {
            data.push_str("\r\n");
        }
        data.push_str(".\r\n");
        self.write(data.as_bytes()).await?;
        self.expect(&[250], "the message").await?;
        // The message is accepted: a failing QUIT changes nothing.
        let _ = self.command("QUIT", &[221]).await;
        Ok(())
    }
}

/// A `.` at a line's start doubled (RFC 5321 §4.5.2).
fn dot_stuff(message: &str) -> String {
    let mut out = String::with_capacity(message.len() + 16);
    for line in message.split_inclusive("\r\n") {
        if line.starts_with('.') {
            out.push('.');
        }
        out.push_str(line);
    }
    out
}

/// Standard base64 with padding (RFC 4648 §4).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_as_rfc_4648_says() {
        // RFC 4648 §10's test vectors.
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
        assert_eq!(base64(b"\0user\0pw"), "AHVzZXIAcHc=");
    }

    #[test]
    fn lines_starting_with_a_dot_are_stuffed() {
        assert_eq!(
            dot_stuff("a\r\n.b\r\n..\r\nc.\r\n"),
            "a\r\n..b\r\n...\r\nc.\r\n"
        );
        assert_eq!(dot_stuff(".\r\n"), "..\r\n");
    }

    /// A scripted server: the client's lines are checked, the replies sent.
    async fn scripted(
        script: &'static [(&'static str, &'static str)],
        envelope: Envelope<'_>,
    ) -> Result<(), DeliveryError> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let mut io = BufReader::new(stream);
            for (expect, reply) in script {
                if !expect.is_empty() {
                    let mut line = String::new();
                    io.read_line(&mut line).await.unwrap();
                    assert!(line.starts_with(expect), "{line:?} vs {expect:?}");
                    if *expect == "DATA" {
                        io.write_all(b"354 go\r\n").await.unwrap();
                        let mut body = String::new();
                        loop {
                            let mut line = String::new();
                            io.read_line(&mut line).await.unwrap();
                            if line == ".\r\n" {
                                break;
                            }
                            body.push_str(&line);
                        }
                        assert!(body.contains("..dot"), "{body:?}");
                        continue;
                    }
                }
                io.write_all(reply.as_bytes()).await.unwrap();
            }
        });
        let envelope = Envelope { port, ..envelope };
        let sent = send(&envelope, Duration::from_secs(10)).await;
        if sent.is_ok() {
            server.await.unwrap();
        }
        sent
    }

    fn envelope() -> Envelope<'static> {
        Envelope {
            host: "127.0.0.1",
            port: 0,
            plain_ok: true,
            credentials: None,
            from: "a@example.com",
            to: "b@example.com",
            message: "Subject: x\r\n\r\n.dot\r\n",
        }
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn a_plain_conversation_to_loopback() {
        const SCRIPT: &[(&str, &str)] = &[
            ("", "220 hi\r\n"),
            ("EHLO [127.0.0.1]", "250-hello\r\n250 8BITMIME\r\n"),
            ("MAIL FROM:<a@example.com>", "250 ok\r\n"),
            ("RCPT TO:<b@example.com>", "250 ok\r\n"),
            ("DATA", ""),
            ("", "250 queued\r\n"),
            ("QUIT", "221 bye\r\n"),
        ];
        runtime().block_on(scripted(SCRIPT, envelope())).unwrap();
    }

    #[test]
    fn four_hundreds_are_transient_five_hundreds_permanent_and_plain_credentials_refused() {
        const BUSY: &[(&str, &str)] = &[("", "421 busy\r\n")];
        assert!(matches!(
            runtime().block_on(scripted(BUSY, envelope())),
            Err(DeliveryError::Transient(why)) if why.contains("421 busy")
        ));
        const NO_SUCH_USER: &[(&str, &str)] = &[
            ("", "220 hi\r\n"),
            ("EHLO", "250 hello\r\n"),
            ("MAIL FROM", "250 ok\r\n"),
            ("RCPT TO", "550 no such user\r\n"),
        ];
        assert!(matches!(
            runtime().block_on(scripted(NO_SUCH_USER, envelope())),
            Err(DeliveryError::Permanent(why)) if why.contains("RCPT") && why.contains("550")
        ));
        const NO_TLS: &[(&str, &str)] = &[("", "220 hi\r\n"), ("EHLO", "250 hello\r\n")];
        let with_password = Envelope {
            credentials: Some(("me", "secret")),
            ..envelope()
        };
        let refused = runtime().block_on(scripted(NO_TLS, with_password));
        assert!(
            matches!(&refused, Err(DeliveryError::Permanent(why)) if why.contains("only over TLS") && !why.contains("secret")),
            "{refused:?}"
        );
        let remote = Envelope {
            plain_ok: false,
            ..envelope()
        };
        assert!(matches!(
            runtime().block_on(scripted(NO_TLS, remote)),
            Err(DeliveryError::Permanent(why)) if why.contains("offers no STARTTLS")
        ));
    }

    /// An extension is offered when it is the first word of one of EHLO's
    /// lines, in any case: STARTTLS is then used (over TLS only, the login).
    #[test]
    fn an_extension_is_the_first_word_of_an_ehlo_line() {
        let lines = |text: &[&str]| text.iter().map(|line| line.to_string()).collect::<Vec<_>>();
        let ehlo = lines(&["mail.example.com greets you", "SIZE 1000", "starttls"]);
        assert!(offers(&ehlo, "STARTTLS"));
        assert!(offers(&ehlo, "SIZE"));
        assert!(!offers(
            &lines(&["mail.example.com", "8BITMIME", "X-STARTTLS"]),
            "STARTTLS"
        ));
    }

    /// The message's data ends with exactly one line end before the lone
    /// dot, whether or not the message ended with one: no blank line added,
    /// and no dot left on the last line (which would not end the data).
    #[test]
    fn the_data_ends_with_one_line_end_and_the_dot() {
        async fn sent(message: &'static str) -> String {
            let (client, mut server) = tokio::io::duplex(64 * 1024);
            let replies = "250 ok\r\n250 ok\r\n354 go\r\n250 queued\r\n221 bye\r\n";
            server.write_all(replies.as_bytes()).await.unwrap();
            let mut session = Session::new(client);
            let envelope = Envelope {
                message,
                ..envelope()
            };
            session.submit(&envelope, false).await.unwrap();
            drop(session);
            let mut written = String::new();
            server.read_to_string(&mut written).await.unwrap();
            written
        }
        let commands = "MAIL FROM:<a@example.com>\r\nRCPT TO:<b@example.com>\r\nDATA\r\n";
        for message in ["Subject: x\r\n\r\nlast\r\n", "Subject: x\r\n\r\nlast"] {
            assert_eq!(
                runtime().block_on(sent(message)),
                format!("{commands}Subject: x\r\n\r\nlast\r\n.\r\nQUIT\r\n"),
                "{message:?}"
            );
        }
    }

    /// A server replying without end must not hold the client: a reply of
    /// up to 101 lines is read, one of more is refused as transient.
    #[test]
    fn a_reply_of_101_lines_is_read_and_a_longer_one_refused() {
        async fn ehlo_reply(lines: usize) -> Result<Vec<String>, DeliveryError> {
            let (client, mut server) = tokio::io::duplex(64 * 1024);
            let mut reply = "250-x\r\n".repeat(lines - 1);
            reply.push_str("250 last\r\n");
            server.write_all(reply.as_bytes()).await.unwrap();
            Session::new(client).expect(&[250], "EHLO").await
        }
        let read = runtime().block_on(ehlo_reply(MAX_LINES + 1)).unwrap();
        assert_eq!(read.len(), MAX_LINES + 1);
        assert_eq!(read.last().map(String::as_str), Some("last"));
        assert!(matches!(
            runtime().block_on(ehlo_reply(MAX_LINES + 2)),
            Err(DeliveryError::Transient(why)) if why.contains("too long")
        ));
    }
}
