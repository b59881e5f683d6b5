//! `ask_user ask --ui web` through the real binary: the HTTP-level guards
//! (raw requests over TCP), every way the page ends (answer, cancel, timeout,
//! SIGINT, SIGTERM; the port is closed after each), and a real headless
//! Chromium driven by tests/web/drive.mjs (playwright-core, axe-core).

mod common;

use std::io::{BufRead, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::bin;
use common::browser::Browser;
use common::clients::chromium;
use common::page::{Page, connect, raw_request, read_response};
use common::process::{exit_within, output_with_stdin, port_is_closed};

/// A form with every kind; also what the README screenshots show.
const EVERY_KIND: &str = include_str!("web/every-kind.json");

const ONE_SELECT: &str = r#"{"question":"Deploy where?",
 "options":[{"label":"Staging","recommended":true},{"label":"Production"}]}"#;

fn answer_ids(document: &Value) -> Vec<Value> {
    document["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["optionIds"].clone())
        .collect()
}

fn every_request_needs_the_token_the_host_and_for_posts_the_origin() {
    let page = Page::start(EVERY_KIND, &[]);
    let host = page.host();
    let bearer = format!("Bearer {}", page.token);
    let origin = format!("http://{host}");
    let with_token = format!("/?token={}", page.token);

    // The page itself, with its policy.
    let ok = page.send("GET", &with_token, &[("Host", &host)], b"");
    assert_eq!(ok.status, 200);
    let csp = ok.header("Content-Security-Policy").unwrap();
    for part in [
        "default-src 'none'",
        "frame-ancestors 'none'",
        "script-src 'nonce-",
        "style-src 'nonce-",
    ] {
        assert!(csp.contains(part), "{csp}");
    }
    let nonce = csp
        .split("'nonce-")
        .nth(1)
        .unwrap()
        .split('\'')
        .next()
        .unwrap();
    assert!(ok.body.contains(&format!("<script nonce=\"{nonce}\">")));
    assert!(!ok.body.contains("__NONCE__"));
    assert_eq!(ok.header("Cache-Control"), Some("no-store"));
    assert_eq!(ok.header("X-Frame-Options"), Some("DENY"));
    let again = page.send("GET", &with_token, &[("Host", &host)], b"");
    assert_ne!(
        again.header("Content-Security-Policy"),
        Some(csp),
        "a fresh nonce"
    );

    // No token, a wrong token: 401.
    assert_eq!(page.send("GET", "/", &[("Host", &host)], b"").status, 401);
    let wrong = format!("/?token={}", "0".repeat(32));
    assert_eq!(
        page.send("GET", &wrong, &[("Host", &host)], b"").status,
        401
    );
    let no_token = page.send("GET", "/form", &[("Host", &host)], b"");
    assert_eq!(no_token.status, 401);
    assert_eq!(no_token.header("Cache-Control"), Some("no-store"));

    // DNS rebinding: the right token under a foreign or missing Host.
    for bad_host in [
        format!("evil.example:{}", page.port),
        format!("127.0.0.1:{}", page.port.wrapping_add(1)),
        "127.0.0.1".to_string(),
    ] {
        let r = page.send("GET", &with_token, &[("Host", &bad_host)], b"");
        assert_eq!(r.status, 403, "{bad_host}");
    }
    assert_eq!(page.send("GET", &with_token, &[], b"").status, 403);
    let localhost = format!("localhost:{}", page.port);
    assert_eq!(
        page.send("GET", &with_token, &[("Host", &localhost)], b"")
            .status,
        200
    );

    // The questions, as JSON, with the time left.
    let form = page.request("GET", "/form", "");
    assert_eq!(form.status, 200);
    assert_eq!(form.header("Content-Type"), Some("application/json"));
    let form: Value = serde_json::from_str(&form.body).unwrap();
    assert_eq!(form["title"], "Set up the service");
    assert_eq!(form["questions"].as_array().unwrap().len(), 4);
    let left = form["remainingMs"].as_u64().unwrap();
    assert!(left > 200_000 && left <= 300_000, "{left}");

    // POSTs: a cross-origin or missing Origin, a non-JSON type, a body over 64 KiB.
    let answer =
        r#"{"answers":[{"optionIds":["1"]},{"other":"NATS"},{"text":"Ada"},{"confirm":false}]}"#;
    let post = |headers: &[(&str, &str)], body: &[u8]| page.send("POST", "/answer", headers, body);
    let base = [
        ("Host", host.as_str()),
        ("Authorization", bearer.as_str()),
        ("Content-Type", "application/json"),
    ];
    let cross = post(
        &[&base[..], &[("Origin", "http://evil.example")]].concat(),
        answer.as_bytes(),
    );
    assert_eq!(cross.status, 403);
    let rebound = format!("http://localhost:{}", page.port);
    assert_eq!(
        post(
            &[&base[..], &[("Origin", rebound.as_str())]].concat(),
            answer.as_bytes()
        )
        .status,
        403,
        "the Origin must match the Host the page was loaded from"
    );
    assert_eq!(post(&base, answer.as_bytes()).status, 403, "no Origin");
    let text_plain = [
        ("Host", host.as_str()),
        ("Authorization", bearer.as_str()),
        ("Origin", origin.as_str()),
        ("Content-Type", "text/plain"),
    ];
    assert_eq!(post(&text_plain, answer.as_bytes()).status, 415);
    let big = format!(r#"{{"answers":[{{"text":"{}"}}]}}"#, "x".repeat(65 * 1024));
    let too_large = page.request("POST", "/answer", &big);
    assert_eq!(too_large.status, 413);

    // Malformed, then not an answer: 400, then 422 with INVALID_REPLY beside the question.
    assert_eq!(page.request("POST", "/answer", "{not json").status, 400);
    let invalid = page.request(
        "POST",
        "/answer",
        r#"{"answers":[{"optionIds":["9"]},{"other":"NATS"},{"text":"Ada"},{"confirm":false}]}"#,
    );
    assert_eq!(invalid.status, 422);
    let error: Value = serde_json::from_str(&invalid.body).unwrap();
    assert_eq!(error["error"]["code"], "INVALID_REPLY");
    assert_eq!(error["error"]["path"], "questions[0]");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Reply with the option number (1-2)")
    );
    assert_eq!(page.request("GET", "/nowhere", "").status, 404);
    assert_eq!(page.request("GET", "/answer", "").status, 405);

    // Two valid answers at once: the first wins, the other gets 409.
    let request = raw_request(
        "POST",
        "/answer",
        &[
            ("Host", &host),
            ("Authorization", &bearer),
            ("Origin", &origin),
            ("Content-Type", "application/json"),
        ],
        answer.as_bytes(),
    );
    let mut first = connect(page.port);
    let mut second = connect(page.port);
    first.write_all(&request).unwrap();
    second.write_all(&request).unwrap();
    let mut statuses = [
        read_response(&mut first).status,
        read_response(&mut second).status,
    ];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 409]);

    let (code, document) = page.finish();
    assert_eq!(code, 0);
    assert_eq!(
        document,
        json!({"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,
               "timedOut":false,"answers":[
                 {"questionId":"q1","values":["SQLite"],"optionIds":["1"]},
                 {"questionId":"q2","values":["NATS"],"optionIds":[],"customText":"NATS"},
                 {"questionId":"q3","values":["Ada"]},
                 {"questionId":"q4","values":["no"]}],
               "answeredBy":common::answered_by("page")})
    );
}

fn more_than_100_tokenless_requests_a_minute_get_429_and_sigterm_cancels() {
    let page = Page::start(ONE_SELECT, &[]);
    let host = page.host();
    for _ in 0..100 {
        assert_eq!(page.send("GET", "/", &[("Host", &host)], b"").status, 401);
    }
    let limited = page.send("GET", "/form", &[("Host", &host)], b"");
    assert_eq!(limited.status, 429);
    assert!(
        limited.body.contains("without the token"),
        "{}",
        limited.body
    );
    // The token holder is never limited.
    assert_eq!(page.request("GET", "/form", "").status, 200);
    page.signal("TERM");
    let (code, document) = page.finish();
    assert_eq!(code, 130);
    assert_eq!(document["cancelled"], true);
    assert_eq!(document["answers"], json!([]));
}

/// Sends a POST's head, waits for the server to start reading its body (its
/// `100 Continue`), sends part of the body, then holds the connection open.
fn stalled_post(page: &Page, path: &str) -> TcpStream {
    let host = page.host();
    let mut stream = connect(page.port);
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {}\r\n\
         Origin: http://{host}\r\nContent-Type: application/json\r\n\
         Expect: 100-continue\r\nContent-Length: 60000\r\n\r\n",
        page.token
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut interim = Vec::new();
    let mut byte = [0u8; 1];
    while !interim.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).expect("a 100 Continue");
        interim.push(byte[0]);
    }
    assert!(
        interim.starts_with(b"HTTP/1.1 100"),
        "{}",
        String::from_utf8_lossy(&interim)
    );
    stream.write_all(b"{\"answers\":").unwrap();
    stream
}

fn a_stalled_request_body_holds_up_neither_answers_nor_the_timeout() {
    // An answer gets through while another POST's body never arrives.
    let page = Page::start(ONE_SELECT, &[]);
    let _stalled = stalled_post(&page, "/answer");
    let started = Instant::now();
    let answered = page.request("POST", "/answer", r#"{"answers":[{"optionIds":["2"]}]}"#);
    assert_eq!(answered.status, 200, "{}", answered.body);
    // Not held up by the stalled body's 10 s limit (a loaded machine may be slow).
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    let (code, document) = page.finish();
    assert_eq!(code, 0);
    assert_eq!(answer_ids(&document), [json!(["2"])]);

    // And the timeout still ends the form on time.
    let started = Instant::now();
    let page = Page::start(ONE_SELECT, &["--timeout", "1"]);
    let _stalled = stalled_post(&page, "/answer");
    let (code, document) = page.finish();
    assert_eq!(code, 124);
    assert_eq!(document["timedOut"], true);
    // Well before the stalled body's own 10 s limit.
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
}

fn cancel_by_post_exits_130() {
    let page = Page::start(ONE_SELECT, &[]);
    let cancelled = page.request("POST", "/cancel", "{}");
    assert_eq!(cancelled.status, 200);
    let (code, document) = page.finish();
    assert_eq!(code, 130);
    assert_eq!(
        document,
        json!({"tool":"ask_user","version":1,"status":"ok","answered":false,"cancelled":true,
               "timedOut":false,"answers":[]})
    );
}

/// `/decline` is the MCP URL page's alone (tests/mcp_url.rs): on a page
/// `ask --ui web` serves it is not found, by POST or GET, and ends nothing.
fn the_plain_page_has_no_decline() {
    let page = Page::start(ONE_SELECT, &[]);
    assert_eq!(page.request("POST", "/decline", "{}").status, 404);
    assert_eq!(page.request("GET", "/decline", "").status, 404);
    assert_eq!(page.request("GET", "/form", "").status, 200, "still open");
    page.signal("INT");
    let (code, document) = page.finish();
    assert_eq!(code, 130);
    assert_eq!(document["cancelled"], true);
    assert!(document.get("reason").is_none(), "{document}");
}

/// A client that resets its connection in the middle of a request head
/// (SO_LINGER 0, then close): the server sees the reset as an error and
/// drops the connection; it neither spins on it nor stops answering.
#[cfg(target_os = "linux")]
fn a_reset_connection_is_dropped_without_spinning() {
    use std::os::fd::AsRawFd;
    let page = Page::start(ONE_SELECT, &[]);
    let mut stream = connect(page.port);
    let head = format!("GET /form HTTP/1.1\r\nHost: {}\r\nX-Half: ", page.host());
    stream.write_all(head.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: a valid socket and a linger struct of the size given.
    let set = unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&raw const linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    };
    assert_eq!(set, 0);
    drop(stream); // a reset, not a close
    let before = common::process::cpu_ticks(page.child.id());
    std::thread::sleep(Duration::from_secs(1));
    let spent = common::process::cpu_ticks(page.child.id()) - before;
    assert!(
        spent < 30,
        "{spent} ticks of CPU in the second after a reset"
    );
    assert_eq!(page.request("GET", "/form", "").status, 200);
    page.signal("INT");
    assert_eq!(page.finish().0, 130);
}

fn ctrl_c_cancels_and_closes_the_port() {
    let page = Page::start(ONE_SELECT, &[]);
    assert_eq!(page.request("GET", "/form", "").status, 200);
    page.signal("INT");
    let (code, document) = page.finish();
    assert_eq!(code, 130);
    assert_eq!(document["cancelled"], true);
}

/// A second signal ends the process at once, should the clean stop hang: the
/// page is stopped (SIGSTOP) while SIGINT and SIGTERM arrive, so that both
/// are pending when it goes on. The first sets the stop flag, the second
/// finds it set and exits 130 then and there: no document (the clean stop,
/// which prints the cancelled one, never ran), and the kernel closes the port.
fn a_second_signal_ends_the_page_at_once() {
    let mut page = Page::start(ONE_SELECT, &[]);
    assert_eq!(page.request("GET", "/form", "").status, 200);
    for name in ["STOP", "INT", "TERM", "CONT"] {
        page.signal(name);
    }
    let status = exit_within(
        &mut page.child,
        Duration::from_secs(20),
        Duration::from_millis(20),
    )
    .expect("the page did not exit");
    assert_eq!(status.code(), Some(130));
    let mut stdout = String::new();
    page.child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    assert_eq!(stdout, "", "the second signal came before any document");
    assert!(port_is_closed(page.port));
}

fn timeout_exits_124_without_inventing_an_answer() {
    let started = Instant::now();
    let page = Page::start(ONE_SELECT, &["--timeout", "1"]);
    let form: Value = serde_json::from_str(&page.request("GET", "/form", "").body).unwrap();
    assert!(form["remainingMs"].as_u64().unwrap() <= 1000);
    let (code, document) = page.finish();
    assert_eq!(code, 124);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        document,
        json!({"tool":"ask_user","version":1,"status":"ok","answered":false,"cancelled":false,
               "timedOut":true,"answers":[]})
    );
}

#[cfg(target_os = "linux")]
fn listens_on_127_0_0_1_only() {
    let page = Page::start(ONE_SELECT, &[]);
    let port = format!("{:04X}", page.port);
    let listening: Vec<String> = ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .flat_map(|table| {
            table
                .lines()
                .skip(1)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (address, local_port) = fields.get(1)?.split_once(':')?;
            (local_port == port && fields.get(3) == Some(&"0A")).then(|| address.to_string())
        })
        .collect();
    assert_eq!(
        listening,
        vec!["0100007F".to_string()],
        "LISTEN sockets on the port"
    );
    page.signal("INT");
    assert_eq!(page.finish().0, 130);
}

fn open_without_an_opener_is_not_an_error() {
    let mut page = Page::start_with(ONE_SELECT, &["--open"], &[("PATH", "/nonexistent")]);
    let mut said = String::new();
    page.stderr.read_line(&mut said).unwrap();
    assert!(said.contains("open the URL yourself"), "{said}");
    assert_eq!(page.request("POST", "/cancel", "{}").status, 200);
    assert_eq!(page.finish().0, 130);
}

fn port_in_use_is_web_error() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let output = output_with_stdin(
        Command::new(bin())
            .args(["ask", "--ui", "web", "--port", &port, "-"])
            .stderr(Stdio::piped()),
        ONE_SELECT.as_bytes(),
    )
    .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["error"]["code"], "WEB_ERROR");
    let message = document["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("127.0.0.1:{port}")) && message.contains("--port"),
        "{message}"
    );
}

fn bad_input_is_reported_before_any_page_is_served() {
    let output = assert_cmd::Command::new(bin())
        .args(["ask", "--ui", "web"])
        .write_stdin("{\"question\":\"no options\"}")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["error"]["code"], "MISSING_OPTIONS");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("http://"));
}

fn timeout_must_be_a_non_negative_number_of_seconds() {
    for bad in ["-1", "soon", "NaN", ""] {
        assert_cmd::Command::new(bin())
            .args(["ask", "--ui", "web", "--timeout", bad])
            .write_stdin(ONE_SELECT)
            .assert()
            .code(2)
            .stdout("");
    }
}

// ---- A real browser ----

/// Starts the browser, then the page; the browser plays `scenario`. The test
/// is ignored without the browser and the npm packages (a failure under CI).
fn in_browser(scenario: &str, input: &str, args: &[&str]) -> (i32, Value) {
    let chromium = chromium(&["playwright-core", "axe-core"]);
    let url_file = std::env::temp_dir().join(format!(
        "ask-user-web-{}-{scenario}.url",
        std::process::id()
    ));
    let driver = Browser::start(&chromium, scenario, &url_file);
    let page = Page::start(input, args);
    let partial = url_file.with_extension("part");
    std::fs::write(&partial, &page.url).unwrap();
    std::fs::rename(&partial, &url_file).unwrap();
    let played = driver.wait();
    let _ = std::fs::remove_file(&url_file);
    let said = played.assert_passed(scenario);
    eprint!("{said}");
    page.finish()
}

fn browser_answers_every_kind_in_one_form() {
    let (code, document) = in_browser("every-kind", EVERY_KIND, &[]);
    assert_eq!(code, 0);
    assert_eq!(
        document,
        json!({"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,
               "timedOut":false,"answers":[
                 {"questionId":"q1","values":["PostgreSQL"],"optionIds":["2"],
                  "note":"but keep SQLite for tests"},
                 {"questionId":"q2","values":["Redis","NATS"],"optionIds":["1"],"customText":"NATS"},
                 {"questionId":"q3","values":["Ada Lovelace"],"note":"my note is no name"},
                 {"questionId":"q4","values":["yes"]}],
               "answeredBy":common::answered_by("page")})
    );
}

fn browser_answers_with_the_keyboard_only() {
    let (code, document) = in_browser("keyboard", ONE_SELECT, &[]);
    assert_eq!(code, 0);
    assert_eq!(answer_ids(&document), vec![json!(["2"])]);
    assert_eq!(document["answers"][0]["values"], json!(["Production"]));
    assert_eq!(document["answers"][0]["note"], "staging first");
}

fn browser_cancels() {
    let (code, document) = in_browser("cancel", EVERY_KIND, &[]);
    assert_eq!(code, 130);
    assert_eq!(document["cancelled"], true);
    assert_eq!(document["answers"], json!([]));
}

fn browser_lets_a_short_timeout_expire() {
    let (code, document) = in_browser("expire", ONE_SELECT, &["--timeout", "2"]);
    assert_eq!(code, 124);
    assert_eq!(document["timedOut"], true);
    assert_eq!(document["answered"], false);
    assert_eq!(document["answers"], json!([]));
}

fn browser_axe_finds_no_serious_violation_on_every_kind() {
    let (code, _) = in_browser("axe", EVERY_KIND, &[]);
    assert_eq!(code, 130);
}

fn browser_shows_hostile_labels_as_text() {
    let hostile = json!({
        "title": "<script>window.pwned=1</script>",
        "questions": [{
            "question": "\"><img src=x onerror=window.pwned=1>",
            "options": [
                {"label": "<script>window.pwned=1</script>"},
                {"label": "\"><img src=x onerror=window.pwned=1>",
                 "description": "<script>window.pwned=1</script>"}
            ]
        }]
    })
    .to_string();
    let (code, _) = in_browser("hostile", &hostile, &[]);
    assert_eq!(code, 130);
}

common::harness::main!(
    every_request_needs_the_token_the_host_and_for_posts_the_origin,
    more_than_100_tokenless_requests_a_minute_get_429_and_sigterm_cancels,
    a_stalled_request_body_holds_up_neither_answers_nor_the_timeout,
    cancel_by_post_exits_130,
    ctrl_c_cancels_and_closes_the_port,
    #[cfg(target_os = "linux")]
    a_reset_connection_is_dropped_without_spinning,
    the_plain_page_has_no_decline,
    a_second_signal_ends_the_page_at_once,
    timeout_exits_124_without_inventing_an_answer,
    #[cfg(target_os = "linux")]
    listens_on_127_0_0_1_only,
    open_without_an_opener_is_not_an_error,
    port_in_use_is_web_error,
    bad_input_is_reported_before_any_page_is_served,
    timeout_must_be_a_non_negative_number_of_seconds,
    browser_answers_every_kind_in_one_form,
    browser_answers_with_the_keyboard_only,
    browser_cancels,
    browser_lets_a_short_timeout_expire,
    browser_axe_finds_no_serious_violation_on_every_kind,
    browser_shows_hostile_labels_as_text,
);
