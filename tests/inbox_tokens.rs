//! `ask_user inbox token add|list|remove` (issue 24): named tokens kept in
//! the store (their SHA-256 only), on the state folder's SQLite file here;
//! tests/team_inbox.rs has them on PostgreSQL, across replicas. A running
//! SQLite inbox reads them again every 5 s.

mod common;

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};

use common::inbox::{Inbox, assert_error, command, run, state};
use common::page::Response;

/// `ask_user inbox token ARGS` with `dir` as the state folder: (code,
/// stdout, stderr).
fn token(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["inbox", "token"];
    all.extend_from_slice(args);
    let out = command(dir, &all).stdin(Stdio::null()).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn list(inbox: &Inbox, token: &str) -> Response {
    let host = inbox.host();
    let bearer = format!("Bearer {token}");
    inbox.send(
        "GET",
        "/api/questions",
        &[("Host", host.as_str()), ("Authorization", bearer.as_str())],
        b"",
    )
}

/// Polls `GET /api/questions` with `token` until it gets `status`, within
/// the inbox's 5 s re-read and some. Slowly: a refused request counts toward
/// the tokenless limit (100 a minute, then 429 for everyone without a token).
fn wait_for_status(inbox: &Inbox, token: &str, status: u16) {
    let started = std::time::Instant::now();
    loop {
        let got = list(inbox, token).status;
        if got == status {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(8),
            "still {got}, not {status}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
fn a_token_added_is_taken_by_the_running_inbox_and_refused_once_removed() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let (code, added, said) = token(dir.path(), &["add", "asker", "ci-runner"]);
    assert_eq!((code, said.as_str()), (0, ""), "{added}");
    let added: Value = serde_json::from_str(&added).unwrap();
    assert_eq!(
        (&added["name"], &added["role"]),
        (&json!("ci-runner"), &json!("asker"))
    );
    let secret = added["token"].as_str().unwrap().to_string();
    assert!(secret.len() == 64 && secret.bytes().all(|b| b.is_ascii_hexdigit()));
    // Within the inbox's 5 s re-read: an asker's token is forbidden to list.
    wait_for_status(&inbox, &secret, 403);
    let (code, listed, _) = token(dir.path(), &["list"]);
    assert_eq!(code, 0);
    let listed: Value = serde_json::from_str(listed.trim()).unwrap();
    assert_eq!(listed["name"], "ci-runner");
    assert_eq!(listed["role"], "asker");
    assert!(listed["addedAt"].as_str().unwrap().ends_with('Z'));
    assert!(
        !listed.to_string().contains(&secret),
        "the list shows no token"
    );
    let (code, said, _) = token(dir.path(), &["remove", "ci-runner"]);
    assert_eq!((code, said.as_str()), (0, ""));
    wait_for_status(&inbox, &secret, 401);
    let (code, listed, _) = token(dir.path(), &["list"]);
    assert_eq!((code, listed.as_str()), (0, ""));
    inbox.stop();
}

#[test]
fn every_error_of_token_has_its_message_and_exit_code() {
    let dir = state();
    assert_eq!(token(dir.path(), &["add", "person", "Ada"]).0, 0);
    let usage = |args: &[&str], says: &str| {
        let (code, stdout, stderr) = token(dir.path(), args);
        assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    };
    usage(
        &["add", "person", "Ada"],
        "a token named \"Ada\" is kept already; remove it first (ask_user inbox token remove Ada)",
    );
    usage(
        &["add", "asker", "Ada"],
        "a token named \"Ada\" is kept already",
    );
    usage(
        &["remove", "Bob"],
        "no token named \"Bob\" is kept (ask_user inbox token list shows them)",
    );
    usage(
        &["add", "person", "Ada Lovelace"],
        "\"Ada Lovelace\" is not a token name: 1 to 64 visible characters, no spaces",
    );
    usage(&["add", "person", &"a".repeat(65)], "is not a token name");
    usage(&["add", "person", ""], "is not a token name");
    usage(&["remove", "a\tb"], "is not a token name");
    usage(&["add", "admin", "Ada"], "invalid value 'admin'");
    usage(&["add", "person"], "required");
    // The store cannot be reached: STORE_ERROR, exit 1, nothing kept.
    let unreachable = "postgres://ask_user@127.0.0.1:1/inbox?connect_timeout=2";
    let (code, stdout, _) = token(
        dir.path(),
        &["add", "person", "Eve", "--store", unreachable],
    );
    assert_error(
        (code, stdout),
        "STORE_ERROR",
        "the inbox cannot open its store",
    );
    let (code, stdout, _) = token(dir.path(), &["list", "--store", unreachable]);
    assert_error(
        (code, stdout),
        "STORE_ERROR",
        "store postgres://127.0.0.1:1/inbox (",
    );
    // A SQLite file elsewhere, by --store or ASK_USER_STORE.
    let other = state();
    let file = other.path().join("team.sqlite3");
    let file = file.to_str().unwrap();
    assert_eq!(
        token(dir.path(), &["add", "person", "Eve", "--store", file]).0,
        0
    );
    let mut listing = command(dir.path(), &["inbox", "token", "list"]);
    listing.env("ASK_USER_STORE", file);
    let out = listing.output().unwrap();
    let names: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["name"].clone())
        .collect();
    assert_eq!(names, [json!("Eve")]);
    let (code, listed) = run(dir.path(), &["inbox", "token", "list"]);
    assert_eq!(code, 0);
    assert!(
        listed.contains("\"Ada\"") && !listed.contains("\"Eve\""),
        "{listed}"
    );
}

#[test]
fn a_person_token_has_groups_listed_and_an_asker_none() {
    let dir = state();
    let (code, stdout, stderr) = token(
        dir.path(),
        &["add", "person", "Ada", "--group", "ops", "--group", "db"],
    );
    assert_eq!(code, 0, "{stderr}");
    let added: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(added["name"], "Ada");
    assert_eq!(token(dir.path(), &["add", "person", "Bob"]).0, 0);
    assert_eq!(token(dir.path(), &["add", "asker", "ci"]).0, 0);
    let usage = |args: &[&str], says: &str| {
        let (code, stdout, stderr) = token(dir.path(), args);
        assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    };
    usage(
        &["add", "asker", "ci2", "--group", "ops"],
        "--group is for person tokens only (an asker is never addressed)",
    );
    usage(
        &["add", "person", "Eve", "--group", "on call"],
        "\"on call\" is not a group name: 1 to 64 visible characters, no spaces",
    );
    usage(
        &["add", "person", "Eve", "--group", ""],
        "\"\" is not a group name",
    );
    usage(
        &["add", "person", "Eve", "--group", &"g".repeat(65)],
        "is not a group name",
    );
    usage(&["add", "person", "Eve", "--group"], "a value is required");
    // Nothing refused was kept; groups are listed sorted, never a token.
    let (code, listed) = run(dir.path(), &["inbox", "token", "list"]);
    assert_eq!(code, 0);
    let rows: Vec<Value> = listed
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let shown: Vec<(Value, Value, Value)> = rows
        .iter()
        .map(|row| {
            (
                row["name"].clone(),
                row["role"].clone(),
                row["groups"].clone(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            (json!("Ada"), json!("person"), json!(["db", "ops"])),
            (json!("Bob"), json!("person"), json!([])),
            (json!("ci"), json!("asker"), json!([])),
        ]
    );
    assert!(!listed.contains(added["token"].as_str().unwrap()));
}
