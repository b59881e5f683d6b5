//! One-question links (issue #39): `/l/CAPABILITY` opens exactly one
//! question, without the token, on real inbox processes. The capability is
//! made here with the inbox's own key, read from its store (SQLite in the
//! state folder; PostgreSQL for two replicas), as `Hub::link_for` makes it.
//! Every attack on a capability is tried: another question's id, an
//! expiry past, a replayed answer, a changed byte, a truncated or garbage
//! capability, a closed question's link, a tampered choice, and guessing.

mod common;

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use ask_user::inbox::links::{self, LinkKey};
use ask_user::inbox::store::{self, Location};
use common::browser::browser_at;
use common::clients::chromium;
use common::harness;
use common::inbox::{Asker, Inbox, command, state};
use common::page::Response;
use common::postgres;

const DATABASE: &str = r#"{"question":"Which database?","options":["PostgreSQL","SQLite"]}"#;
const TWO: &str = r#"{"questions":[{"question":"Which database?","options":["PostgreSQL","SQLite"]},{"question":"Which port?","options":["5432","5433"]}]}"#;
const NOT_MADE: &str = "this link is not one the inbox made (or it was changed)";

common::harness::main!(
    an_answer_through_a_link_reaches_the_asker_once_and_history_says_link,
    another_questions_id_a_changed_byte_or_garbage_opens_nothing,
    an_expired_link_is_refused_with_a_page_that_says_so,
    a_cancelled_questions_link_gets_a_page_that_says_it_is_closed,
    the_choose_route_answers_with_a_signed_option_and_refuses_a_tampered_one,
    a_device_token_with_the_link_names_the_device_in_history,
    guesses_are_limited_and_the_token_holder_still_gets_through,
    a_link_issued_by_one_replica_is_honoured_by_the_other,
    a_link_is_answered_in_a_real_browser,
    a_link_opened_on_a_paired_phone_names_the_device,
    a_link_still_needs_the_inbox_host_and_a_posts_origin_and_json,
    a_link_votes_with_a_paired_device_and_refuses_without_one,
);

fn now() -> u64 {
    u64::try_from(store::now_ms()).unwrap()
}

/// The inbox's link key, from its store.
fn key_of(location: &Location) -> LinkKey {
    let mut store = store::open(location).unwrap();
    LinkKey::from_bytes(&store.link_key().unwrap())
}

fn sqlite_key(dir: &Path) -> LinkKey {
    key_of(&Location::Sqlite(dir.join("inbox.sqlite3")))
}

/// A request without the token, as a phone's browser sends it: GETs with
/// the Host; POSTs with the page's Origin and JSON too.
fn tokenless(inbox: &Inbox, method: &str, path: &str, body: &str) -> Response {
    let host = inbox.host();
    let origin = format!("http://{host}");
    let mut headers = vec![("Host", host.as_str())];
    if method == "POST" {
        headers.push(("Origin", origin.as_str()));
        headers.push(("Content-Type", "application/json"));
    }
    inbox.send(method, path, &headers, body.as_bytes())
}

fn error(response: &Response) -> (u16, String, String) {
    let doc: Value = serde_json::from_str(&response.body)
        .unwrap_or_else(|_| panic!("not JSON: {} {}", response.status, response.body));
    (
        response.status,
        doc["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        doc["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

fn first_option() -> &'static str {
    r#"{"answers":[{"optionIds":["1"]}]}"#
}

fn history(inbox: &Inbox) -> Vec<Value> {
    let response = inbox.request("GET", "/api/history", "");
    assert_eq!(response.status, 200, "{}", response.body);
    serde_json::from_str(&response.body).unwrap()
}

fn an_answer_through_a_link_reaches_the_asker_once_and_history_says_link() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &["--timeout", "600"]);
    let capability = sqlite_key(dir.path()).issue(&asker.id, now() + 600_000);
    let path = format!("/l/{capability}");

    // The page: the hardened headers, a nonce'd script, and no token.
    let page = tokenless(&inbox, "GET", &path, "");
    assert_eq!(page.status, 200, "{}", page.body);
    let csp = page.header("content-security-policy").unwrap();
    assert!(
        csp.contains("script-src 'nonce-") && csp.contains("default-src 'none'"),
        "{csp}"
    );
    assert_eq!(page.header("cache-control"), Some("no-store"));
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    assert!(!page.body.contains(&inbox.token));
    assert!(page.body.contains("AskForm"), "the shared form widgets");

    // Its form: that one question and nothing else.
    let form = tokenless(&inbox, "GET", &format!("{path}/form"), "");
    assert_eq!(form.status, 200, "{}", form.body);
    let view: Value = serde_json::from_str(&form.body).unwrap();
    assert_eq!(view["questions"].as_array().unwrap().len(), 1, "{view}");
    assert_eq!(view["questions"][0]["question"], "Which database?");
    // The asker's deadline, 600 s away.
    let left = view["remainingMs"].as_u64().unwrap();
    assert!(left > 590_000 && left <= 600_000, "{view}");

    // A link opens no other route: the list and history still want the token.
    for other in ["/api/questions", "/api/history", "/"] {
        assert_eq!(tokenless(&inbox, "GET", other, "").status, 401, "{other}");
    }

    let answered = tokenless(&inbox, "POST", &path, first_option());
    assert_eq!(answered.status, 200, "{}", answered.body);
    let (code, out) = asker.finish();
    assert_eq!(code, 0);
    assert_eq!(out["answered"], true, "{out}");
    assert_eq!(out["answers"][0]["values"], json!(["PostgreSQL"]), "{out}");

    // A replay: ALREADY_ANSWERED, and nothing changed.
    let replay = tokenless(
        &inbox,
        "POST",
        &path,
        r#"{"answers":[{"optionIds":["2"]}]}"#,
    );
    let (status, code, message) = error(&replay);
    assert_eq!(
        (status, code.as_str()),
        (409, "ALREADY_ANSWERED"),
        "{message}"
    );
    assert!(
        message.contains("answered through its one-question link"),
        "{message}"
    );
    let entries = history(&inbox);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["face"], "link");
    assert!(entries[0].get("decidedBy").is_none(), "{}", entries[0]);
    // Whoever held the link answered: no person is named.
    assert_eq!(
        entries[0]["answer"]["answeredBy"],
        json!({"kind": "link", "name": "link", "channel": "link"})
    );
    assert_eq!(
        entries[0]["answer"]["answers"][0]["values"],
        json!(["PostgreSQL"])
    );

    // The closed question's link: a page that says so.
    let closed = tokenless(&inbox, "GET", &path, "");
    assert_eq!(closed.status, 410, "{}", closed.body);
    assert!(
        closed.body.contains("This question is closed"),
        "{}",
        closed.body
    );
    assert!(closed.body.contains("answered already"), "{}", closed.body);
    assert!(
        closed
            .header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    let form = tokenless(&inbox, "GET", &format!("{path}/form"), "");
    let (status, code, _) = error(&form);
    assert_eq!((status, code.as_str()), (410, "ALREADY_ANSWERED"));
    inbox.stop();
}

fn another_questions_id_a_changed_byte_or_garbage_opens_nothing() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let a = Asker::ask(dir.path(), DATABASE, &[]);
    let b = Asker::ask(dir.path(), DATABASE, &[]);
    let key = sqlite_key(dir.path());
    let expiry = now() + 600_000;
    let capability = key.issue(&a.id, expiry);
    let bytes = links::decode(&capability).unwrap();

    let mut attempts: Vec<(String, &str)> = Vec::new();
    // A's capability with B's id written in.
    let mut swapped = bytes.clone();
    swapped[..8].copy_from_slice(b.id.as_bytes());
    attempts.push((links::encode(&swapped), "B's id in A's capability"));
    // One byte changed: in the id, the expiry, the tag's start and end.
    for index in [0, 7, 8, 15, 16, 47] {
        let mut changed = bytes.clone();
        changed[index] ^= 0x01;
        attempts.push((links::encode(&changed), "one byte changed"));
    }
    // Another inbox's key.
    let other = LinkKey::from_bytes(&[9; 32]).issue(&a.id, expiry);
    attempts.push((other, "another key"));
    // Truncated, extended, garbage.
    attempts.push((capability[..63].to_string(), "truncated"));
    attempts.push((capability[..40].to_string(), "truncated"));
    attempts.push((format!("{capability}AAAA"), "extended"));
    attempts.push(("not-a-capability".into(), "garbage"));
    attempts.push(("%2e%2e".into(), "escapes"));
    attempts.push((a.id.clone(), "the bare id"));

    for (attempt, what) in &attempts {
        let page = tokenless(&inbox, "GET", &format!("/l/{attempt}"), "");
        assert_eq!(page.status, 404, "{what}: {}", page.body);
        assert!(page.body.contains("This link is not valid"), "{what}");
        let post = tokenless(&inbox, "POST", &format!("/l/{attempt}"), first_option());
        let (status, code, message) = error(&post);
        assert_eq!((status, code.as_str()), (404, "UNKNOWN_QUESTION"), "{what}");
        assert!(message.starts_with(NOT_MADE), "{what}: {message}");
    }
    // A link's question cannot be answered by path tricks either.
    for path in [
        format!("/l/{capability}/../../api/questions/{}/answer", b.id),
        format!("/l/{capability}/form/x"),
    ] {
        let response = tokenless(&inbox, "POST", &path, first_option());
        assert!(
            matches!(response.status, 404 | 405),
            "{path}: {}",
            response.status
        );
    }
    // Nothing was answered: both still wait.
    let mut ids = inbox.ids();
    ids.sort();
    let mut both = vec![a.id.clone(), b.id.clone()];
    both.sort();
    assert_eq!(ids, both);
    // The real capability still works for A, and only A.
    let answered = tokenless(&inbox, "POST", &format!("/l/{capability}"), first_option());
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(inbox.ids(), vec![b.id.clone()]);
    assert_eq!(a.finish().1["answered"], true);
    drop(b);
    inbox.stop();
}

fn an_expired_link_is_refused_with_a_page_that_says_so() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let capability = sqlite_key(dir.path()).issue(&asker.id, now() - 1);
    let page = tokenless(&inbox, "GET", &format!("/l/{capability}"), "");
    assert_eq!(page.status, 410, "{}", page.body);
    assert!(page.body.contains("This link has expired"), "{}", page.body);
    let post = tokenless(&inbox, "POST", &format!("/l/{capability}"), first_option());
    let (status, code, message) = error(&post);
    assert_eq!((status, code.as_str()), (410, "UNKNOWN_QUESTION"));
    assert!(message.starts_with("this link has expired"), "{message}");
    assert_eq!(inbox.ids(), vec![asker.id.clone()], "still pending");
    drop(asker);
    inbox.stop();
}

fn a_cancelled_questions_link_gets_a_page_that_says_it_is_closed() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let capability = sqlite_key(dir.path()).issue(&asker.id, now() + 600_000);
    let cancel = inbox.request("POST", &format!("/api/questions/{}/cancel", asker.id), "{}");
    assert_eq!(cancel.status, 200, "{}", cancel.body);
    let page = tokenless(&inbox, "GET", &format!("/l/{capability}"), "");
    assert_eq!(page.status, 410, "{}", page.body);
    assert!(page.body.contains("It was cancelled."), "{}", page.body);
    assert!(!page.body.contains("Which database"), "shows nothing of it");
    let post = tokenless(&inbox, "POST", &format!("/l/{capability}"), first_option());
    let (status, code, _) = error(&post);
    assert_eq!((status, code.as_str()), (409, "ALREADY_ANSWERED"));
    assert_eq!(asker.finish().1["cancelled"], true);
    inbox.stop();
}

/// An ntfy action button: no Origin (ntfy's app or server posts it), JSON.
fn button(inbox: &Inbox, path: &str, body: &str) -> Response {
    let host = inbox.host();
    inbox.send(
        "POST",
        path,
        &[
            ("Host", host.as_str()),
            ("Content-Type", "application/json"),
        ],
        body.as_bytes(),
    )
}

fn the_choose_route_answers_with_a_signed_option_and_refuses_a_tampered_one() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let two = Asker::ask(dir.path(), TWO, &[]);
    let key = sqlite_key(dir.path());
    let expiry = now() + 600_000;
    let capability = key.issue(&asker.id, expiry);
    let signature = key.sign_choice(&asker.id, "2", expiry);

    // Tampered: another option with option 2's signature; option 2 with a
    // changed signature; another question's capability with this signature.
    let mut flipped = links::decode(&signature).unwrap();
    flipped[5] ^= 0x80;
    let other = key.issue(&two.id, expiry);
    for path in [
        links::choice_url("", &capability, "1", &signature),
        links::choice_url("", &capability, "2", &links::encode(&flipped)),
        links::choice_url("", &capability, "2", &signature[..42]),
        links::choice_url("", &other, "2", &signature),
    ] {
        let (status, code, message) = error(&button(&inbox, &path, ""));
        assert_eq!((status, code.as_str()), (404, "UNKNOWN_QUESTION"), "{path}");
        assert!(message.starts_with(NOT_MADE), "{message}");
    }
    assert_eq!(inbox.ids().len(), 2, "nothing answered");

    // A button for a question that is not one single choice: refused.
    let sig_two = key.sign_choice(&two.id, "1", expiry);
    let (status, code, _) = error(&button(
        &inbox,
        &links::choice_url("", &other, "1", &sig_two),
        "",
    ));
    assert_eq!((status, code.as_str()), (422, "INVALID_REPLY"));

    // A body that is not empty or {}: refused.
    let path = links::choice_url("", &capability, "2", &signature);
    let (status, code, _) = error(&button(&inbox, &path, r#"{"option":"1"}"#));
    assert_eq!((status, code.as_str()), (400, "INVALID_JSON"));

    // The real one answers, once.
    let chosen = button(&inbox, &path, "");
    assert_eq!(chosen.status, 200, "{}", chosen.body);
    let (code, out) = asker.finish();
    assert_eq!(code, 0);
    assert_eq!(out["answers"][0]["values"], json!(["SQLite"]), "{out}");
    let replay = button(&inbox, &path, "{}");
    let (status, code, _) = error(&replay);
    assert_eq!((status, code.as_str()), (409, "ALREADY_ANSWERED"));
    assert_eq!(history(&inbox)[0]["face"], "ntfy");
    assert_eq!(
        out["answeredBy"],
        json!({"kind": "link", "name": "ntfy", "channel": "ntfy"})
    );
    drop(two);
    inbox.stop();
}

fn a_device_token_with_the_link_names_the_device_in_history() {
    let dir = state();
    let out = command(
        dir.path(),
        &["inbox", "token", "add", "person", "ada-phone"],
    )
    .stdin(std::process::Stdio::null())
    .output()
    .unwrap();
    assert!(out.status.success(), "{out:?}");
    let added: Value = serde_json::from_slice(&out.stdout).unwrap();
    let device = added["token"].as_str().unwrap().to_string();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let capability = sqlite_key(dir.path()).issue(&asker.id, now() + 600_000);
    let host = inbox.host();
    let origin = format!("http://{host}");
    let bearer = format!("Bearer {device}");
    let answered = inbox.send(
        "POST",
        &format!("/l/{capability}"),
        &[
            ("Host", host.as_str()),
            ("Origin", origin.as_str()),
            ("Content-Type", "application/json"),
            ("Authorization", bearer.as_str()),
        ],
        first_option().as_bytes(),
    );
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(asker.finish().1["answered"], true);
    let entry = &history(&inbox)[0];
    assert_eq!(
        (&entry["face"], &entry["decidedBy"]),
        (&json!("link"), &json!("ada-phone")),
        "{entry}"
    );
    assert_eq!(
        entry["answer"]["answeredBy"],
        json!({"kind": "person", "name": "ada-phone", "channel": "link"})
    );
    inbox.stop();
}

fn guesses_are_limited_and_the_token_holder_still_gets_through() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let capability = sqlite_key(dir.path()).issue(&asker.id, now() + 600_000);
    // The tokenless limit: 100 a minute (Limits::default). Guesses count.
    let mut statuses = Vec::new();
    for n in 0..101 {
        let guess = links::encode(&[n as u8; 48]);
        statuses.push(tokenless(&inbox, "GET", &format!("/l/{guess}/form"), "").status);
    }
    assert!(statuses[..100].iter().all(|s| *s == 404), "{statuses:?}");
    assert_eq!(statuses[100], 429);
    let limited = tokenless(&inbox, "GET", &format!("/l/{capability}"), "");
    assert_eq!(
        limited.status, 429,
        "the limit holds for every tokenless request"
    );
    // The token holder is never counted, never limited.
    let listed = inbox.request("GET", "/api/questions", "");
    assert_eq!(listed.status, 200, "{}", listed.body);
    let answer = inbox.request(
        "POST",
        &format!("/api/questions/{}/answer", asker.id),
        first_option(),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(asker.finish().1["answered"], true);
    inbox.stop();
}

fn a_link_issued_by_one_replica_is_honoured_by_the_other() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let (dir_a, dir_b) = (state(), state());
    let a = Inbox::start_with(dir_a.path(), &["--port", "0", "--store", &url]);
    let b = Inbox::start_with(dir_b.path(), &["--port", "0", "--store", &url]);
    let asker = Asker::ask(dir_a.path(), DATABASE, &[]);
    // One key in the store, made by whichever replica came first.
    let capability = key_of(&Location::Postgres(url.clone())).issue(&asker.id, now() + 600_000);
    let form = tokenless(&b, "GET", &format!("/l/{capability}/form"), "");
    assert_eq!(form.status, 200, "{}", form.body);
    let answered = tokenless(&b, "POST", &format!("/l/{capability}"), first_option());
    assert_eq!(answered.status, 200, "{}", answered.body);
    let (code, out) = asker.finish();
    assert_eq!((code, &out["answered"]), (0, &json!(true)), "{out}");
    // And A, which served the asker, refuses the replay.
    let replay = tokenless(&a, "POST", &format!("/l/{capability}"), first_option());
    assert_eq!(error(&replay).0, 409);
    assert_eq!(history(&a)[0]["face"], "link");
    std::thread::sleep(Duration::from_millis(10));
    a.stop();
    b.stop();
}

fn a_link_is_answered_in_a_real_browser() {
    const SCENARIO: &str = "link-answer";
    let chromium = chromium(&["playwright-core"]);
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let capability = sqlite_key(dir.path()).issue(&asker.id, now() + 600_000);
    let url = format!("http://{}/l/{capability}", inbox.host());
    let browser = browser_at(&chromium, SCENARIO, &url);
    browser.wait().assert_passed(SCENARIO);
    let (code, out) = asker.finish();
    assert_eq!(code, 0);
    assert_eq!(out["answers"][0]["values"], json!(["SQLite"]), "{out}");
    assert_eq!(history(&inbox)[0]["face"], "link");
    inbox.stop();
}

/// A paired phone opening a link: the page sends the device token the
/// pairing page kept, and history names the device.
fn a_link_opened_on_a_paired_phone_names_the_device() {
    const SCENARIO: &str = "link-answer-paired";
    let chromium = chromium(&["playwright-core"]);
    let dir = state();
    let out = command(
        dir.path(),
        &["inbox", "token", "add", "person", "ada-phone"],
    )
    .stdin(std::process::Stdio::null())
    .output()
    .unwrap();
    assert!(out.status.success(), "{out:?}");
    let added: Value = serde_json::from_slice(&out.stdout).unwrap();
    let device = json!({"name": "ada-phone", "token": added["token"]}).to_string();
    let mut kept = common::browser::url_file(SCENARIO).into_os_string();
    kept.push(".device");
    std::fs::write(&kept, device).unwrap();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let capability = sqlite_key(dir.path()).issue(&asker.id, now() + 600_000);
    let url = format!("http://{}/l/{capability}", inbox.host());
    let browser = browser_at(&chromium, SCENARIO, &url);
    browser.wait().assert_passed(SCENARIO);
    let _ = std::fs::remove_file(&kept);
    assert_eq!(asker.finish().0, 0);
    let entry = &history(&inbox)[0];
    assert_eq!(
        (&entry["face"], &entry["decidedBy"]),
        (&json!("link"), &json!("ada-phone")),
        "{entry}"
    );
    inbox.stop();
}

fn a_link_still_needs_the_inbox_host_and_a_posts_origin_and_json() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let capability = sqlite_key(dir.path()).issue(&asker.id, now() + 600_000);
    let path = format!("/l/{capability}");
    let host = inbox.host();
    let origin = format!("http://{host}");
    // DNS rebinding: another Host, 403 before the capability is looked at.
    let rebound = inbox.send("GET", &path, &[("Host", "evil.example")], b"");
    assert_eq!(rebound.status, 403, "{}", rebound.body);
    // A POST from another origin, or none (but on a button's route): 403.
    for origin in [None, Some("http://evil.example")] {
        let mut headers = vec![
            ("Host", host.as_str()),
            ("Content-Type", "application/json"),
        ];
        if let Some(origin) = origin {
            headers.push(("Origin", origin));
        }
        let refused = inbox.send("POST", &path, &headers, first_option().as_bytes());
        assert_eq!(refused.status, 403, "{origin:?}: {}", refused.body);
        assert!(
            refused
                .body
                .contains("answers are accepted only from the page itself")
        );
    }
    // Not JSON: 415 (a form post from another site cannot be made to look like one).
    let form = inbox.send(
        "POST",
        &path,
        &[
            ("Host", host.as_str()),
            ("Origin", origin.as_str()),
            ("Content-Type", "text/plain"),
        ],
        first_option().as_bytes(),
    );
    assert_eq!(form.status, 415, "{}", form.body);
    // A button from another origin: 403 too (it may omit the Origin, not fake one).
    let key = sqlite_key(dir.path());
    let signature = key.sign_choice(&asker.id, "1", key.open(&capability, now()).unwrap().1);
    let button = inbox.send(
        "POST",
        &links::choice_url("", &capability, "1", &signature),
        &[
            ("Host", host.as_str()),
            ("Origin", "http://evil.example"),
            ("Content-Type", "application/json"),
        ],
        b"",
    );
    assert_eq!(button.status, 403, "{}", button.body);
    // A method the routes do not take.
    let put = inbox.send("PUT", &path, &[("Host", host.as_str())], b"");
    assert_eq!(put.status, 405, "{}", put.body);
    assert_eq!(inbox.ids(), vec![asker.id.clone()], "nothing answered");
    drop(asker);
    inbox.stop();
}

/// A question that needs approvals (issue #40): a link alone (no device
/// token) cannot vote (403 FORBIDDEN); with a paired device's token it is
/// that device's vote ("voted", the question stays open), and a person's
/// vote through the CLI route then decides it, listing both.
fn a_link_votes_with_a_paired_device_and_refuses_without_one() {
    let dir = state();
    let mut tokens = Vec::new();
    for name in ["ada-phone", "bob"] {
        let out = command(dir.path(), &["inbox", "token", "add", "person", name])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let added: Value = serde_json::from_slice(&out.stdout).unwrap();
        tokens.push(added["token"].as_str().unwrap().to_string());
    }
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(
        dir.path(),
        r#"{"question":"Which database?","options":["PostgreSQL","SQLite"],"approvals":{"count":2}}"#,
        &[],
    );
    let capability = sqlite_key(dir.path()).issue(&asker.id, now() + 600_000);
    let path = format!("/l/{capability}");
    let refused = tokenless(&inbox, "POST", &path, first_option());
    let (status, code, message) = error(&refused);
    assert_eq!((status, code.as_str()), (403, "FORBIDDEN"), "{message}");
    assert!(
        message.contains("a link without a paired device cannot vote"),
        "{message}"
    );
    let host = inbox.host();
    let origin = format!("http://{host}");
    let send = |token: &str, path: &str, body: &str| {
        let bearer = format!("Bearer {token}");
        inbox.send(
            "POST",
            path,
            &[
                ("Host", host.as_str()),
                ("Origin", origin.as_str()),
                ("Content-Type", "application/json"),
                ("Authorization", bearer.as_str()),
            ],
            body.as_bytes(),
        )
    };
    let voted = send(&tokens[0], &path, first_option());
    assert_eq!(
        (voted.status, voted.body.as_str()),
        (200, r#"{"status":"voted"}"#)
    );
    let decided = send(
        &tokens[1],
        &format!("/api/questions/{}/reply", asker.id),
        r#"{"replies":["1"]}"#,
    );
    assert_eq!(decided.status, 200, "{}", decided.body);
    let (code, document) = asker.finish();
    assert_eq!(code, 0);
    let voters: Vec<(&Value, &Value)> = document["answeredBy"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (&v["name"], &v["channel"]))
        .collect();
    assert_eq!(
        voters,
        [
            (&json!("ada-phone"), &json!("link")),
            (&json!("bob"), &json!("cli"))
        ],
        "{document}"
    );
    inbox.stop();
}
