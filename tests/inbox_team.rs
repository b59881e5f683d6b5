//! Addressing (issue #40): token groups, a question's `to` in the list,
//! `/api/me`, and what an asker token can learn (nothing: no names, no
//! groups, no other askers' questions). SQLite here; tests/team_inbox.rs has
//! groups across PostgreSQL replicas.

mod common;

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};

use common::browser::browser_at;
use common::clients::chromium;
use common::inbox::{Asker, Inbox, command, state, until};
use common::page::{Response, same_origin_request};

/// `ask_user inbox token add ARGS…` in `dir`: the token made.
fn add(dir: &std::path::Path, args: &[&str]) -> String {
    let mut all = vec!["inbox", "token", "add"];
    all.extend_from_slice(args);
    let out = command(dir, &all).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let added: Value = serde_json::from_slice(&out.stdout).unwrap();
    added["token"].as_str().unwrap().to_string()
}

/// Between polls with a token not yet taken: a refused request counts
/// toward the tokenless limit (100 a minute, then 429 for the page's
/// manifest too).
fn slowly() {
    std::thread::sleep(Duration::from_millis(250));
}

fn call(inbox: &Inbox, token: &str, method: &str, path: &str, body: &str) -> Response {
    same_origin_request(inbox.port, token, method, path, body)
}

fn ask_body(key: &str, to: &str) -> String {
    json!({"key": key, "input": {"question": "Deploy?", "options": ["yes", "no"], "to": to}})
        .to_string()
}

/// The shape of a JSON body: its keys, recursively, values dropped.
fn shape(body: &str) -> Value {
    fn of(value: &Value) -> Value {
        match value {
            Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), of(v))).collect(),
            _ => Value::Null,
        }
    }
    of(&serde_json::from_str(body).unwrap())
}

fn an_asker_token_learns_no_names_groups_or_other_questions() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let ada = add(
        dir.path(),
        &["person", "Ada", "--group", "ops", "--group", "db"],
    );
    let ci = add(dir.path(), &["asker", "ci"]);
    let other = add(dir.path(), &["asker", "other"]);
    // Within the inbox's 5 s re-read of the tokens.
    until(Duration::from_secs(8), "the tokens are taken", || {
        slowly();
        call(&inbox, &ada, "GET", "/api/me", "").status == 200
            && call(&inbox, &ci, "GET", "/api/questions", "").status == 403
            && call(&inbox, &other, "GET", "/api/questions", "").status == 403
    });
    // Another asker's question, addressed to a group.
    let theirs = call(
        &inbox,
        &other,
        "POST",
        "/api/ask",
        &ask_body("theirs", "ops"),
    );
    assert_eq!(theirs.status, 201, "{}", theirs.body);
    // A known and an unknown `to` are taken alike: status and body shape.
    let known = call(&inbox, &ci, "POST", "/api/ask", &ask_body("k", "ops"));
    let unknown = call(
        &inbox,
        &ci,
        "POST",
        "/api/ask",
        &ask_body("u", "nobody-here"),
    );
    let person = call(&inbox, &ci, "POST", "/api/ask", &ask_body("p", "Ada"));
    assert_eq!(
        (known.status, unknown.status, person.status),
        (201, 201, 201)
    );
    assert_eq!(shape(&known.body), shape(&unknown.body));
    assert_eq!(shape(&known.body), shape(&person.body));
    assert_eq!(shape(&known.body), json!({"inboxId": null}));
    // Every route an asker token reaches, but asking, waiting and leaving
    // its own: 403, and the refusal names no person, group or question.
    let their_id = serde_json::from_str::<Value>(&theirs.body).unwrap()["inboxId"]
        .as_str()
        .unwrap()
        .to_string();
    let routes = [
        ("GET", "/api/questions".to_string()),
        ("GET", "/api/history".to_string()),
        ("GET", "/api/me".to_string()),
        ("GET", "/api/events".to_string()),
        ("GET", "/metrics".to_string()),
        ("GET", "/api/away".to_string()),
        ("POST", format!("/api/questions/{their_id}/answer")),
        ("POST", format!("/api/questions/{their_id}/cancel")),
    ];
    for (method, path) in &routes {
        let got = call(&inbox, &ci, method, path, "{}");
        assert_eq!(got.status, 403, "{method} {path}: {}", got.body);
        for secret in ["Ada", "ops", "db", "Deploy", their_id.as_str()] {
            assert!(
                !got.body.contains(secret),
                "{method} {path} shows {secret}: {}",
                got.body
            );
        }
    }
    // Waiting for another asker's question is answered as for one that
    // does not exist (its existence is not told either).
    let wait = |id: &str| call(&inbox, &ci, "GET", &format!("/api/questions/{id}/wait"), "");
    let theirs = wait(&their_id);
    let none = wait("2345abcd");
    assert_eq!((theirs.status, none.status), (404, 404), "{}", theirs.body);
    assert_eq!(theirs.body.replace(&their_id, "2345abcd"), none.body);
    // The person's page knows who it is and sees `to` on each question.
    let me = call(&inbox, &ada, "GET", "/api/me", "");
    assert_eq!(
        serde_json::from_str::<Value>(&me.body).unwrap(),
        json!({"name": "Ada", "groups": ["db", "ops"]})
    );
    let own = call(&inbox, &inbox.token, "GET", "/api/me", "");
    assert_eq!(
        serde_json::from_str::<Value>(&own.body).unwrap(),
        json!({"groups": []})
    );
    let listed = call(&inbox, &ada, "GET", "/api/questions", "");
    assert_eq!(listed.status, 200, "{}", listed.body);
    let tos: Vec<Value> = listed
        .body
        .lines()
        .flat_map(|line| match serde_json::from_str::<Value>(line).unwrap() {
            Value::Array(items) => items,
            one => vec![one],
        })
        .map(|question| question["to"].clone())
        .collect();
    assert_eq!(
        tos,
        [
            json!("ops"),
            json!("ops"),
            json!("nobody-here"),
            json!("Ada")
        ]
    );
    inbox.stop();
}

fn the_page_lists_questions_for_the_person_first_with_a_filter() {
    const SCENARIO: &str = "inbox-for-you";
    let chromium = chromium(&["playwright-core"]);
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let ada = add(dir.path(), &["person", "Ada", "--group", "ops"]);
    until(Duration::from_secs(8), "Ada's token is taken", || {
        slowly();
        call(&inbox, &ada, "GET", "/api/me", "").status == 200
    });
    for (key, to) in [("a", "db"), ("b", "ops"), ("c", "Ada"), ("d", "")] {
        let body = if to.is_empty() {
            json!({"key": key, "input": {"question": "Deploy?", "options": ["yes", "no"]}})
                .to_string()
        } else {
            ask_body(key, to)
        };
        let asked = call(&inbox, &inbox.token, "POST", "/api/ask", &body);
        assert_eq!(asked.status, 201, "{}", asked.body);
    }
    let url = format!("http://{}/?token={ada}", inbox.host());
    browser_at(&chromium, SCENARIO, &url)
        .wait()
        .assert_passed(SCENARIO);
    inbox.stop();
}

common::harness::main!(
    an_asker_token_learns_no_names_groups_or_other_questions,
    the_page_lists_questions_for_the_person_first_with_a_filter,
    a_quorum_from_a_group_counts_its_members_votes_only,
);

/// `approvals.from` naming a group: only its members vote, and two of them
/// decide; the answer lists both votes.
fn a_quorum_from_a_group_counts_its_members_votes_only() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let ada = add(dir.path(), &["person", "ada", "--group", "reviewers"]);
    let bob = add(
        dir.path(),
        &["person", "bob", "--group", "reviewers", "--group", "ops"],
    );
    let eve = add(dir.path(), &["person", "eve", "--group", "ops"]);
    until(Duration::from_secs(8), "the tokens are taken", || {
        slowly();
        [&ada, &bob, &eve]
            .iter()
            .all(|token| call(&inbox, token, "GET", "/api/me", "").status == 200)
    });
    let asker = Asker::ask(
        dir.path(),
        r#"{"question":"Merge it?","options":["yes","no"],"approvals":{"count":2,"from":"reviewers"}}"#,
        &[],
    );
    let path = format!("/api/questions/{}/reply", asker.id);
    let vote = r#"{"replies":["1"]}"#;
    // Eve is not a reviewer: her vote is refused and counts for nothing.
    let refused = call(&inbox, &eve, "POST", &path, vote);
    assert_eq!(refused.status, 403, "{}", refused.body);
    let refused: Value = serde_json::from_str(&refused.body).unwrap();
    assert_eq!(refused["error"]["code"], "FORBIDDEN", "{refused}");
    let first = call(&inbox, &ada, "POST", &path, vote);
    assert_eq!(first.status, 200, "{}", first.body);
    let first: Value = serde_json::from_str(&first.body).unwrap();
    assert_eq!(
        (
            &first["vote"],
            &first["approvals"],
            &first["needed"],
            &first["voters"]
        ),
        (&json!("recorded"), &json!(1), &json!(2), &json!(["ada"]))
    );
    let second = call(&inbox, &bob, "POST", &path, vote);
    assert_eq!(second.status, 200, "{}", second.body);
    let (code, answer) = asker.finish();
    assert_eq!(code, 0, "{answer}");
    assert_eq!(answer["answers"][0]["values"], json!(["yes"]), "{answer}");
    let voters: Vec<&str> = answer["answeredBy"]
        .as_array()
        .unwrap_or_else(|| panic!("a list of votes: {answer}"))
        .iter()
        .map(|vote| vote["name"].as_str().unwrap())
        .collect();
    assert_eq!(voters, ["ada", "bob"]);
}
