//! `ask_user inbox pair` and the phone's routes (issue 39): a pairing code
//! made by the CLI, claimed once by the pairing page's request for a person
//! token, refused when used or expired, revoked by `inbox token remove`; a
//! loopback-only inbox refused with NOT_REACHABLE; the installable shell
//! served without a token and with the protective headers. Most drive the
//! inbox over HTTP as the pairing page and the phone's page do; the inbox
//! sits behind a (pretend) reverse proxy, `--behind-proxy --public-url`.
//! The last one is headless Chromium in mobile emulation (tests/web/phone.mjs):
//! it opens the link on the listener's loopback address (a secure context
//! for the service worker) in place of the public URL, which nothing here
//! serves.

mod common;
#[path = "common/netns.rs"]
mod netns;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

use common::inbox::{Inbox, command, state, until};
use common::page::{claim, same_origin_request, send};

const PUBLIC: &str = "https://inbox.example.test";

common::harness::main!(
    a_phone_pairs_once_answers_as_its_name_and_is_unpaired_by_token_remove,
    a_used_code_and_an_expired_code_are_refused_with_their_reason,
    a_loopback_only_inbox_is_not_reachable_from_a_phone,
    the_phone_s_shell_needs_no_token_and_keeps_the_protective_headers,
    an_emulated_phone_pairs_answers_a_form_and_is_told_when_unpaired,
    an_emulated_phone_in_another_namespace_pairs_over_tls,
);

/// An inbox a phone could reach: loopback behind a proxy with a public URL.
fn reachable(dir: &Path) -> (Inbox, u16) {
    let mut inbox = command(dir, &["inbox"]);
    inbox.args([
        "--listen",
        "127.0.0.1:0",
        "--behind-proxy",
        "--public-url",
        PUBLIC,
    ]);
    spawn(dir, inbox)
}

/// Starts `command` and reads the port and token from inbox.json (the
/// line it prints names the public URL).
fn spawn(dir: &Path, mut command: std::process::Command) -> (Inbox, u16) {
    let child = common::process::ChildGuard::spawn(
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .unwrap();
    let file = dir.join("inbox.json");
    until(Duration::from_secs(10), "inbox.json", || file.exists());
    let found: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let url = found["url"].as_str().unwrap().to_string();
    let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();
    let mut child = child;
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let inbox = Inbox {
        child,
        dir: dir.to_path_buf(),
        port,
        token: found["token"].as_str().unwrap().to_string(),
        url,
        stderr,
    };
    (inbox, port)
}

/// `ask_user inbox pair ARGS`: (exit code, stdout, stderr).
fn pair(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["inbox", "pair"];
    all.extend_from_slice(args);
    let out = command(dir, &all).stdin(Stdio::null()).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn code_of(url: &str) -> String {
    url.split_once("/pair#").unwrap().1.to_string()
}

fn pair_ok(dir: &Path, args: &[&str]) -> Value {
    let (code, stdout, stderr) = pair(dir, args);
    assert_eq!(code, 0, "{stdout} {stderr}");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    serde_json::from_str(&stdout).unwrap()
}

fn a_phone_pairs_once_answers_as_its_name_and_is_unpaired_by_token_remove() {
    let dir = state();
    let (inbox, port) = reachable(dir.path());
    let paired = pair_ok(dir.path(), &["ada-phone"]);
    assert_eq!(paired["tool"], "ask_user");
    assert_eq!(paired["version"], 1);
    assert_eq!(paired["status"], "ok");
    assert_eq!(paired["name"], "ada-phone");
    let url = paired["url"].as_str().unwrap();
    assert!(url.starts_with(&format!("{PUBLIC}/pair#")), "{url}");
    assert!(paired["expiresAt"].as_str().unwrap().ends_with('Z'));
    // Before the claim, the code is no token.
    let code = code_of(url);
    assert_eq!(
        same_origin_request(port, &code, "GET", "/api/questions", "").status,
        401
    );
    let (_, _, stderr) = pair(dir.path(), &["bob-phone"]);
    assert!(
        stderr.contains('█') && stderr.contains("/pair#"),
        "{stderr}"
    );
    assert!(stderr.contains("within 10 minutes"), "{stderr}");

    let got = claim(port, &code);
    assert_eq!(got.status, 201, "{}", got.body);
    let device: Value = serde_json::from_str(&got.body).unwrap();
    assert_eq!(device["name"], "ada-phone");
    let token = device["token"].as_str().unwrap().to_string();
    // The guard takes it at once, as a person's token.
    assert_eq!(
        same_origin_request(port, &token, "GET", "/api/questions", "").status,
        200
    );
    // A person's token does not pair more phones.
    let more = same_origin_request(port, &token, "POST", "/api/pair", "{}");
    assert_eq!(more.status, 403, "{}", more.body);
    assert!(
        more.body
            .contains("only the inbox's own token pairs a phone"),
        "{}",
        more.body
    );
    // Listed by name, never with its token.
    let out = command(dir.path(), &["inbox", "token", "list"])
        .output()
        .unwrap();
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(
        listed.contains(r#""name":"ada-phone","role":"person""#),
        "{listed}"
    );
    assert!(
        !listed.contains("bob-phone"),
        "a pending code is not listed: {listed}"
    );
    assert!(!listed.contains(&token));

    // The answer is the phone's: history names it.
    let asker = common::inbox::Asker::ask(
        dir.path(),
        r#"{"question":"Ship it?","options":["yes","no"]}"#,
        &[],
    );
    until(Duration::from_secs(10), "the question", || {
        !inbox.ids().is_empty()
    });
    let id = inbox.ids()[0].clone();
    let answered = same_origin_request(
        port,
        &token,
        "POST",
        &format!("/api/questions/{id}/answer"),
        r#"{"answers":[{"optionIds":["1"]}]}"#,
    );
    assert_eq!(answered.status, 200, "{}", answered.body);
    let (exit, document) = asker.finish();
    assert_eq!(exit, 0, "{document}");
    assert_eq!(document["answers"][0]["values"][0], "yes");
    let history = same_origin_request(port, &inbox.token, "GET", "/api/history", "");
    assert!(
        history.body.contains(r#""decidedBy":"ada-phone""#),
        "{}",
        history.body
    );

    // Revoked: the phone's next request gets 401 (SQLite: within the 5 s re-read).
    let out = command(dir.path(), &["inbox", "token", "remove", "ada-phone"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    until(Duration::from_secs(8), "the revoked token's 401", || {
        same_origin_request(port, &token, "GET", "/api/questions", "").status == 401
    });
    drop(inbox);
}

fn a_used_code_and_an_expired_code_are_refused_with_their_reason() {
    let dir = state();
    let (inbox, port) = reachable(dir.path());
    let first = pair_ok(dir.path(), &[]);
    assert_eq!(first["name"], "phone-1");
    let code = code_of(first["url"].as_str().unwrap());
    assert_eq!(claim(port, &code).status, 201);
    let again = claim(port, &code);
    assert_eq!(again.status, 410, "{}", again.body);
    let said: Value = serde_json::from_str(&again.body).unwrap();
    assert_eq!(said["reason"], "used");
    // A guess looks the same as a used code.
    let guess = claim(port, &"ab".repeat(32));
    assert_eq!(
        serde_json::from_str::<Value>(&guess.body).unwrap()["reason"],
        "used"
    );

    // Expired: the pending row made eleven minutes older in the store.
    let second = pair_ok(dir.path(), &[]);
    assert_eq!(second["name"], "phone-2");
    let store = rusqlite::Connection::open(dir.path().join("inbox.sqlite3")).unwrap();
    let aged = store
        .execute(
            "UPDATE tokens SET added_at = added_at - 660000 WHERE name = 'phone-2 pairing'",
            [],
        )
        .unwrap();
    assert_eq!(aged, 1);
    let late = claim(port, &code_of(second["url"].as_str().unwrap()));
    assert_eq!(late.status, 410, "{}", late.body);
    let said: Value = serde_json::from_str(&late.body).unwrap();
    assert_eq!(
        (said["reason"].as_str(), said["minutes"].as_u64()),
        (Some("expired"), Some(10))
    );
    // A name kept already is refused by `pair` (INVALID_FIELD, exit 1).
    let (exit, stdout, _) = pair(dir.path(), &["phone-1"]);
    assert_eq!(exit, 1, "{stdout}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["error"]["code"], "INVALID_FIELD");
    // A bad name never reaches the inbox (exit 1, INVALID_FIELD).
    let (exit, stdout, _) = pair(dir.path(), &["a\tb"]);
    assert_eq!(exit, 1, "{stdout}");
    // Guessing codes is slowed like guessing tokens: the tokenless limit
    // (100 a minute) answers 429 past it.
    let limited = (0..120).position(|_| claim(port, &"cd".repeat(32)).status == 429);
    assert!(limited.is_some_and(|n| n <= 100), "{limited:?}");
    drop(inbox);
}

fn a_loopback_only_inbox_is_not_reachable_from_a_phone() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let (exit, stdout, stderr) = pair(dir.path(), &[]);
    assert_eq!(exit, 1, "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["status"], "error");
    assert_eq!(doc["error"]["code"], "NOT_REACHABLE");
    let message = doc["error"]["message"].as_str().unwrap();
    for named in [
        "loopback only",
        "--listen",
        "--tls-cert",
        "--public-url",
        "docs/inbox-phone.md, \"Reach the inbox from a phone\"",
    ] {
        assert!(message.contains(named), "{message}");
    }
    // And nothing was kept for it.
    let out = command(dir.path(), &["inbox", "token", "list"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "");
    drop(inbox);
}

fn the_phone_s_shell_needs_no_token_and_keeps_the_protective_headers() {
    let dir = state();
    let (inbox, port) = reachable(dir.path());
    let host = format!("127.0.0.1:{port}");
    let get = |path: &str| send(port, "GET", path, &[("Host", host.as_str())], b"");
    for (path, kind) in [
        ("/pair", "text/html"),
        ("/app", "text/html"),
        ("/manifest.webmanifest", "application/manifest+json"),
        ("/sw.js", "text/javascript"),
        ("/icon-192.png", "image/png"),
        ("/icon-512.png", "image/png"),
    ] {
        let got = get(path);
        assert_eq!(got.status, 200, "{path}");
        assert!(
            got.header("content-type").unwrap().starts_with(kind),
            "{path}"
        );
        assert_eq!(
            got.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(got.header("cache-control"), Some("no-store"), "{path}");
        let csp = got.header("content-security-policy").unwrap();
        assert!(csp.starts_with("default-src 'none'"), "{path}: {csp}");
        if kind == "text/html" {
            assert!(
                csp.contains("worker-src 'self'") && csp.contains("script-src 'nonce-"),
                "{csp}"
            );
            assert!(!got.body.contains(&inbox.token), "{path} carries no token");
        }
    }
    assert!(
        get("/sw.js")
            .header("content-security-policy")
            .unwrap()
            .contains("connect-src 'self'")
    );
    let manifest: Value = serde_json::from_str(&get("/manifest.webmanifest").body).unwrap();
    assert_eq!(manifest["start_url"], "/app");
    // The shell never caches the API, a question or a token.
    let worker = get("/sw.js").body;
    assert!(worker.contains(
        r#"var SHELL = ["/app", "/manifest.webmanifest", "/icon-192.png", "/icon-512.png"];"#
    ));
    // The API still needs a token, the claim another Host is refused, and
    // making a code needs the inbox's own token.
    assert_eq!(get("/api/questions").status, 401);
    let anonymous = send(
        port,
        "POST",
        "/api/pair",
        &[
            ("Host", host.as_str()),
            ("Origin", &format!("http://{host}")),
            ("Content-Type", "application/json"),
        ],
        b"{}",
    );
    assert_eq!(anonymous.status, 401);
    let foreign = send(
        port,
        "POST",
        "/api/pair/claim",
        &[
            ("Host", host.as_str()),
            ("Origin", "https://evil.example"),
            ("Content-Type", "application/json"),
        ],
        br#"{"code":"00"}"#,
    );
    assert_eq!(foreign.status, 403);
    // Another method than GET needs the token there (and then gets 405).
    assert_eq!(
        send(port, "DELETE", "/app", &[("Host", host.as_str())], b"").status,
        401
    );
    assert_eq!(
        same_origin_request(port, &inbox.token, "DELETE", "/app", "").status,
        405
    );
    drop(inbox);
}

/// tests/web/phone.mjs: the phone pairs, is measured and checked with axe,
/// answers a two-question form (a multi-select with Other and a note), reads
/// its service worker's cache; the asker prints that answer; `token remove`
/// then makes the page say it must be paired again. (docs/phone.png is
/// made by the same script in the demo folder: tests/web/phone-screenshot.sh.)
fn an_emulated_phone_pairs_answers_a_form_and_is_told_when_unpaired() {
    let chromium = common::clients::chromium(&["playwright-core", "axe-core"]);
    let dir = state();
    let (inbox, port) = reachable(dir.path());
    let phone = |link: &str, revoked: &Path| {
        let mut node = std::process::Command::new("node");
        node.arg("phone.mjs")
            .arg(link.replace(PUBLIC, &format!("http://127.0.0.1:{port}")))
            .arg(revoked);
        node
    };
    phone_round(dir.path(), &chromium, &[], phone);
    drop(inbox);
}

/// The pairing end to end over TLS, the phone in another network namespace
/// (as another machine on the LAN): the inbox listens on the namespace
/// link's address with a certificate from a test CA (openssl), and the
/// emulated phone opens the very link `inbox pair` printed. Chromium takes
/// the test CA's certificate through `--ignore-certificate-errors` (no NSS
/// tools here to trust the CA itself).
fn an_emulated_phone_in_another_namespace_pairs_over_tls() {
    let chromium = common::clients::chromium(&["playwright-core", "axe-core"]);
    let namespace = common::harness::require(netns::Namespace::make(), netns::NO_NAMESPACE);
    let files = tempfile::tempdir().unwrap();
    let ca = common::harness::require(
        netns::TestCa::make(files.path(), &namespace.host_ip),
        "openssl (run .ci/setup-deploy.sh)",
    );
    let dir = state();
    let listen = format!("{}:{}", namespace.host_ip, namespace.free_port());
    let mut inbox = command(dir.path(), &["inbox"]);
    inbox.args([
        "--listen",
        &listen,
        "--tls-cert",
        ca.cert.to_str().unwrap(),
        "--tls-key",
        ca.key.to_str().unwrap(),
    ]);
    let child = common::process::ChildGuard::spawn(
        inbox
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    )
    .unwrap();
    let file = dir.path().join("inbox.json");
    until(Duration::from_secs(10), "inbox.json", || file.exists());
    let ca_file = ca.ca.to_str().unwrap().to_string();
    let name = namespace.name.clone();
    let phone = |link: &str, revoked: &Path| {
        assert!(
            link.starts_with(&format!("https://{listen}/pair#")),
            "{link}"
        );
        let mut node = std::process::Command::new("ip");
        node.args(["netns", "exec", &name, "node", "phone.mjs", link])
            .arg(revoked)
            .env("PHONE_IGNORE_CERTIFICATE_ERRORS", "1");
        node
    };
    phone_round(dir.path(), &chromium, &[("SSL_CERT_FILE", &ca_file)], phone);
    drop(child);
}

/// One phone round: an asker asks a two-question form, `inbox pair pixel`
/// makes the link, `phone(link, revoked)` (tests/web/phone.mjs) pairs,
/// answers and reads its cache; the asker prints that answer; `token
/// remove` then makes the page say it must be paired again.
fn phone_round(
    dir: &Path,
    chromium: &Path,
    env: &[(&str, &str)],
    phone: impl Fn(&str, &Path) -> std::process::Command,
) {
    let mut ask = command(dir, &["ask", "--ui", "inbox", "-"]);
    for (key, value) in env {
        ask.env(key, value);
    }
    let asker = common::inbox::Asker::spawn(
        ask,
        r#"{"title":"Before the release","questions":[
            {"question":"Which transports?","type":"multi-select","options":["HTTP","gRPC","WebSocket"],"allow_other":true},
            {"question":"Ship it today?","options":["yes","no"]}]}"#,
    );
    let mut pairing = command(dir, &["inbox", "pair", "pixel"]);
    for (key, value) in env {
        pairing.env(key, value);
    }
    let out = pairing.stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let paired: Value = serde_json::from_slice(&out.stdout).unwrap();
    let link = paired["url"].as_str().unwrap();
    let revoked = dir.join("revoked");
    let mut node = phone(link, &revoked);
    let mut phone = common::process::ChildGuard::spawn(
        node.current_dir(common::clients::tests_dir("web"))
            .env("CHROMIUM", chromium)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .unwrap();
    let mut said = std::io::BufReader::new(phone.stdout.take().unwrap());
    let mut lines = Vec::new();
    let mut line = String::new();
    use std::io::{BufRead, Read};
    while said.read_line(&mut line).unwrap() > 0 {
        lines.push(line.trim().to_string());
        if line.trim() == "answered" {
            break;
        }
        line.clear();
    }
    if lines.last().map(String::as_str) != Some("answered") {
        let mut errors = String::new();
        phone
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut errors)
            .unwrap();
        panic!("the phone did not answer: {lines:?} {errors}");
    }
    let (exit, document) = asker.finish();
    assert_eq!(exit, 0, "{document}");
    let answers = &document["answers"];
    let first: Vec<&str> = answers[0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(first, ["HTTP", "gRPC", "NATS"], "{document}");
    assert_eq!(answers[0]["note"], "from the phone", "{document}");
    assert_eq!(answers[1]["values"][0], "no", "{document}");
    let out = command(dir, &["inbox", "token", "remove", "pixel"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // A running SQLite inbox reads the tokens again within 5 s: then the
    // phone's next request is refused.
    std::thread::sleep(Duration::from_secs(6));
    std::fs::write(&revoked, "").unwrap();
    let mut rest = String::new();
    said.read_to_string(&mut rest).unwrap();
    let status = common::process::exit_within(
        &mut phone,
        Duration::from_secs(30),
        Duration::from_millis(50),
    )
    .expect("phone.mjs ends");
    let mut errors = String::new();
    phone
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut errors)
        .unwrap();
    assert!(status.success(), "{lines:?} {rest} {errors}");
    assert!(
        rest.contains("cached: ") && rest.ends_with("unpaired\n"),
        "{rest}"
    );
    for measured in [
        "all at least 44 px",
        "1 question on screen",
        "question first: ",
    ] {
        assert!(lines.iter().any(|l| l.contains(measured)), "{lines:?}");
    }
    assert!(
        lines.iter().any(|l| l.starts_with("axe: no serious")),
        "{lines:?}"
    );
}
