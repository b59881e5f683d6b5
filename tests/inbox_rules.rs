//! Standing answers (issue #40): `ask_user inbox rule add|list|remove`, a
//! person's away switch (`inbox away`, the page's `/api/away` under a
//! person token), and what a rule never answers. A real inbox on SQLite,
//! then two replicas on a real PostgreSQL (tests/common/postgres.rs).

mod common;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::harness;
use common::inbox::{Asker, Inbox, command, run, state, until};
use common::page::same_origin_request;
use common::postgres;

common::harness::main!(
    a_rule_answers_what_it_matches_and_history_names_it,
    a_rule_never_answers_a_human_question_a_quorum_or_what_it_does_not_match,
    a_while_away_rule_follows_its_owners_switch_in_the_store_and_the_page,
    an_expired_rule_or_one_whose_reply_does_not_fit_leaves_the_question_to_a_person,
    a_removed_rule_answers_nothing_more_at_once,
    rule_and_away_commands_refuse_bad_input_with_a_usage_error,
    a_store_that_cannot_be_opened_is_a_store_error_for_rule_and_away,
    a_rule_in_a_team_store_answers_on_every_replica_until_removed,
);

const DEPLOY: &str = r#"{"question":"Deploy to staging now?","kind":"confirm"}"#;

/// `ask_user inbox rule add ARGS…` in `dir`: the rule as printed.
fn add_rule(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["inbox", "rule", "add"];
    all.extend_from_slice(args);
    let (code, out) = run(dir, &all);
    assert_eq!(code, 0, "{out}");
    serde_json::from_str(&out).unwrap()
}

/// `ask_user inbox rule list` in `dir`, as JSON values.
fn rules(dir: &Path, extra: &[&str]) -> Vec<Value> {
    let mut all = vec!["inbox", "rule", "list"];
    all.extend_from_slice(extra);
    let (code, out) = run(dir, &all);
    assert_eq!(code, 0, "{out}");
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// An asker of `input` through the inbox of `dir`, from `folder` as host `source`.
fn ask_from(dir: &Path, input: &str, source: &str, folder: &Path) -> Asker {
    let mut asking = command(dir, &["ask", "--ui", "inbox", "-"]);
    asking.env("ASK_USER_SOURCE", source).current_dir(folder);
    Asker::spawn(asking, input)
}

/// `inbox history`'s entry for `id`.
fn history_of(dir: &Path, id: &str) -> Option<Value> {
    let (code, out) = run(dir, &["inbox", "history"]);
    assert_eq!(code, 0, "{out}");
    out.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|entry| entry["inboxId"] == id)
}

/// Whether `asker` is still waiting after a moment (no rule answered it);
/// then answered from the command line, so that nothing is left waiting.
fn waits_for_a_person(dir: &Path, mut asker: Asker) -> bool {
    std::thread::sleep(Duration::from_millis(300));
    let waiting = asker.is_running();
    if waiting {
        let (code, out) = run(dir, &["inbox", "cancel", &asker.id]);
        assert_eq!(code, 0, "{out}");
        let (code, _) = asker.finish();
        assert_eq!(code, 130);
    }
    waiting
}

fn by_rule(id: &str) -> Value {
    json!({"kind": "rule", "name": id, "channel": "inbox"})
}

fn a_rule_answers_what_it_matches_and_history_names_it() {
    let dir = state();
    let project = tempfile::tempdir().unwrap();
    let sub = project.path().join("src");
    std::fs::create_dir(&sub).unwrap();
    let folder = project.path().to_str().unwrap();
    let rule = add_rule(
        dir.path(),
        &[
            "--source",
            "claude-code",
            "--folder",
            folder,
            "--text",
            "DEPLOY to staging",
            "--reply",
            "yes",
            "--owner",
            "Ada",
        ],
    );
    let id = rule["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("rule-") && id.len() == 13, "{rule}");
    // What `rule add` prints is what `rule list` shows, keys in order.
    let listed = rules(dir.path(), &[]);
    assert_eq!(listed, vec![rule.clone()]);
    let keys: Vec<&str> = rule
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "owner",
            "source",
            "folder",
            "text",
            "replies",
            "whileAway",
            "addedAt",
            "expiresAt"
        ]
    );
    assert_eq!(
        (&rule["owner"], &rule["replies"], &rule["whileAway"]),
        (&json!("Ada"), &json!(["yes"]), &json!(false))
    );
    let _inbox = Inbox::start(dir.path());
    // Asked from a folder under the rule's, by its host: answered at once.
    let asked = Instant::now();
    let asker = ask_from(dir.path(), DEPLOY, "claude-code", &sub);
    let question = asker.id.clone();
    let (code, answer) = asker.finish();
    assert_eq!(code, 0, "{answer}");
    assert!(asked.elapsed() < Duration::from_secs(5));
    assert_eq!(
        answer,
        json!({"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,
               "timedOut":false,"inboxId":question,
               "answers":[{"questionId":"q1","values":["yes"]}],
               "answeredBy":by_rule(&id)})
    );
    let entry = history_of(dir.path(), &question).expect("in history");
    assert_eq!(
        (&entry["outcome"], &entry["face"], &entry["decidedBy"]),
        (&json!("answered"), &json!("rule"), &json!(id))
    );
    // It was never listed: nobody was asked.
    let (code, out) = run(dir.path(), &["inbox", "list"]);
    assert_eq!((code, out.as_str()), (0, ""));
    // A second answer finds it closed by the rule.
    let (code, out) = run(dir.path(), &["inbox", "answer", &question, "--reply", "no"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("ALREADY_ANSWERED") && out.contains("standing rule"),
        "{out}"
    );
}

fn a_rule_never_answers_a_human_question_a_quorum_or_what_it_does_not_match() {
    let dir = state();
    let project = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let folder = project.path().to_str().unwrap();
    add_rule(
        dir.path(),
        &[
            "--source",
            "claude-code",
            "--folder",
            folder,
            "--regex",
            r"(?i)deploy to (staging|dev)\b",
            "--reply",
            "yes",
        ],
    );
    let _inbox = Inbox::start(dir.path());
    let matched = ask_from(dir.path(), DEPLOY, "claude-code", project.path());
    assert_eq!(matched.finish().0, 0);
    let human = r#"{"question":"Deploy to staging now?","kind":"confirm","human":true}"#;
    let quorum =
        r#"{"question":"Deploy to staging now?","kind":"confirm","approvals":{"count":2}}"#;
    let production = r#"{"question":"Deploy to production now?","kind":"confirm"}"#;
    for (why, input, source, at) in [
        ("human", human, "claude-code", project.path()),
        ("approvals", quorum, "claude-code", project.path()),
        ("the regex", production, "claude-code", project.path()),
        ("the source", DEPLOY, "amp", project.path()),
        ("the folder", DEPLOY, "claude-code", elsewhere.path()),
    ] {
        let asker = ask_from(dir.path(), input, source, at);
        assert!(
            waits_for_a_person(dir.path(), asker),
            "answered despite {why}"
        );
    }
}

fn a_while_away_rule_follows_its_owners_switch_in_the_store_and_the_page() {
    let dir = state();
    let here = tempfile::tempdir().unwrap();
    let ada = {
        let (code, out) = run(dir.path(), &["inbox", "token", "add", "person", "Ada"]);
        assert_eq!(code, 0, "{out}");
        serde_json::from_str::<Value>(&out).unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let rule = add_rule(
        dir.path(),
        &[
            "--text",
            "deploy",
            "--reply",
            "no",
            "--while-away",
            "--owner",
            "Ada",
        ],
    );
    let id = rule["id"].as_str().unwrap().to_string();
    assert_eq!(rule["whileAway"], true);
    let inbox = Inbox::start(dir.path());
    // Ada is here: the question waits for a person.
    let asker = ask_from(dir.path(), DEPLOY, "claude-code", here.path());
    assert!(waits_for_a_person(dir.path(), asker));
    // `inbox away on --person Ada` writes the store; the inbox reads it
    // again within 5 s.
    let (code, out) = run(dir.path(), &["inbox", "away", "on", "--person", "Ada"]);
    assert_eq!(code, 0, "{out}");
    let state: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&state["person"], &state["away"]),
        (&json!("Ada"), &json!(true))
    );
    assert!(state["since"].as_str().unwrap().ends_with('Z'), "{state}");
    until(
        Duration::from_secs(8),
        "the rule answers while Ada is away",
        || {
            let asker = ask_from(dir.path(), DEPLOY, "claude-code", here.path());
            std::thread::sleep(Duration::from_millis(200));
            if waits_for_a_person(dir.path(), asker) {
                return false;
            }
            true
        },
    );
    let asker = ask_from(dir.path(), DEPLOY, "claude-code", here.path());
    let (code, answer) = asker.finish();
    assert_eq!(code, 0, "{answer}");
    assert_eq!(
        (&answer["answers"][0]["values"], &answer["answeredBy"]),
        (&json!(["no"]), &by_rule(&id))
    );
    // Back: the inbox reads the switch again within 5 s.
    let (code, out) = run(dir.path(), &["inbox", "away", "off", "--person", "Ada"]);
    assert_eq!((code, out.trim()), (0, r#"{"person":"Ada","away":false}"#));
    until(
        Duration::from_secs(8),
        "the rule stops while Ada is back",
        || {
            let asker = ask_from(dir.path(), DEPLOY, "claude-code", here.path());
            waits_for_a_person(dir.path(), asker)
        },
    );
    let (code, out) = run(dir.path(), &["inbox", "away", "status", "--person", "Ada"]);
    assert_eq!((code, out.trim()), (0, r#"{"person":"Ada","away":false}"#));
    // On one machine a person token's page switch is the machine's
    // `away.json` (person tokens there are the owner's devices), and a
    // rule owned by the user running the inbox follows that file.
    let mine = add_rule(
        dir.path(),
        &["--text", "region", "--reply", "eu", "--while-away"],
    );
    assert_eq!(mine["owner"], ask_user_platform::user::name());
    let region = r#"{"question":"Which region?","kind":"single_select","options":["eu","us"]}"#;
    // Past the inbox's next read of the rules (every 5 s), so that the
    // question below meets the rule, and waits only because nobody is away.
    std::thread::sleep(Duration::from_secs(6));
    let asker = ask_from(dir.path(), region, "claude-code", here.path());
    assert!(waits_for_a_person(dir.path(), asker), "answered while here");
    let set = same_origin_request(inbox.port, &ada, "POST", "/api/away", r#"{"away":true}"#);
    assert_eq!(set.status, 200, "{}", set.body);
    assert!(dir.path().join("away.json").exists());
    let asker = ask_from(dir.path(), region, "claude-code", here.path());
    let (code, answer) = asker.finish();
    assert_eq!(code, 0, "{answer}");
    assert_eq!(answer["answeredBy"], by_rule(mine["id"].as_str().unwrap()));
}

fn an_expired_rule_or_one_whose_reply_does_not_fit_leaves_the_question_to_a_person() {
    let dir = state();
    let here = tempfile::tempdir().unwrap();
    let brief = add_rule(
        dir.path(),
        &["--text", "deploy", "--reply", "yes", "--for", "1s"],
    );
    let added = brief["addedAt"].as_str().unwrap().to_string();
    let expires = brief["expiresAt"].as_str().unwrap().to_string();
    assert!(expires > added, "{brief}");
    let region = r#"{"question":"Which region?","kind":"single_select","options":["eu","us"]}"#;
    add_rule(dir.path(), &["--text", "region", "--reply", "mars"]);
    let inbox = Inbox::start(dir.path());
    std::thread::sleep(Duration::from_millis(1100));
    let asker = ask_from(dir.path(), DEPLOY, "claude-code", here.path());
    assert!(
        waits_for_a_person(dir.path(), asker),
        "an expired rule answered"
    );
    let asker = ask_from(dir.path(), region, "claude-code", here.path());
    let id = asker.id.clone();
    assert!(
        waits_for_a_person(dir.path(), asker),
        "a reply that does not fit answered"
    );
    // The inbox says why on its stderr, naming the rule and the question.
    let said = inbox.stop();
    assert!(
        said.contains("matches question") && said.contains(&id) && said.contains("do not fit"),
        "{said}"
    );
}

fn a_removed_rule_answers_nothing_more_at_once() {
    let dir = state();
    let here = tempfile::tempdir().unwrap();
    let rule = add_rule(dir.path(), &["--text", "deploy", "--reply", "yes"]);
    let id = rule["id"].as_str().unwrap();
    let _inbox = Inbox::start(dir.path());
    let asker = ask_from(dir.path(), DEPLOY, "claude-code", here.path());
    assert_eq!(asker.finish().0, 0);
    let (code, out) = run(dir.path(), &["inbox", "rule", "remove", id]);
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(rules(dir.path(), &[]).is_empty());
    // At once, before the inbox's next read of the rules: a matching rule
    // is read from the store again before it answers.
    let asker = ask_from(dir.path(), DEPLOY, "claude-code", here.path());
    assert!(
        waits_for_a_person(dir.path(), asker),
        "a removed rule answered"
    );
    let (code, out) = run(dir.path(), &["inbox", "rule", "remove", id]);
    assert_eq!(code, 2, "{out}");
}

/// `ask_user ARGS…` in `dir`: (exit code, stderr).
fn refused(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = command(dir, args).stdin(Stdio::null()).output().unwrap();
    assert!(out.stdout.is_empty(), "{out:?}");
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn rule_and_away_commands_refuse_bad_input_with_a_usage_error() {
    let dir = state();
    for (args, says) in [
        (
            &["inbox", "rule", "add", "--reply", "yes"][..],
            "a rule needs at least one of --source, --folder, --text or --regex",
        ),
        (
            &[
                "inbox", "rule", "add", "--text", "x", "--reply", "yes", "--regex", "(",
            ][..],
            "--regex \"(\" is not a regular expression",
        ),
        (
            &["inbox", "rule", "add", "--text", " ", "--reply", "yes"][..],
            "--text cannot be empty",
        ),
        (
            &[
                "inbox", "rule", "add", "--text", "x", "--reply", "yes", "--for", "0",
            ][..],
            "a rule stands from 1 second to 365 days",
        ),
        (
            &[
                "inbox", "rule", "add", "--text", "x", "--reply", "y", "--owner", "A B",
            ][..],
            "--owner: \"A B\" is not a token name",
        ),
        (
            &["inbox", "rule", "add", "--text", "x"][..],
            "--reply <TEXT>",
        ),
        (
            &["inbox", "rule", "remove", "abc"][..],
            "\"abc\" is not a rule id",
        ),
        (
            &["inbox", "rule", "remove", "rule-abcd2345"][..],
            "no rule \"rule-abcd2345\" is kept",
        ),
        (
            &["inbox", "away", "on", "--person", "A B"][..],
            "--person: \"A B\" is not a token name",
        ),
        (&["inbox", "away", "maybe"][..], "invalid value 'maybe'"),
    ] {
        let (code, stderr) = refused(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    // Nothing was kept.
    assert!(rules(dir.path(), &[]).is_empty());
}

fn a_store_that_cannot_be_opened_is_a_store_error_for_rule_and_away() {
    let dir = state();
    // Nothing listens on port 1.
    let url = "postgres://nobody@127.0.0.1:1/none?connect_timeout=2";
    for args in [
        &["inbox", "rule", "list", "--store", url][..],
        &[
            "inbox", "rule", "add", "--text", "x", "--reply", "y", "--store", url,
        ][..],
        &["inbox", "away", "on", "--store", url][..],
    ] {
        let (code, out) = run(dir.path(), args);
        assert_eq!(code, 1, "{args:?}: {out}");
        let document: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(document["error"]["code"], "STORE_ERROR", "{document}");
        assert!(
            document["error"]["message"]
                .as_str()
                .unwrap()
                .contains("127.0.0.1:1"),
            "{document}"
        );
    }
}

fn a_rule_in_a_team_store_answers_on_every_replica_until_removed() {
    let server = harness::require(postgres::shared(), postgres::MISSING);
    let url = server.new_database();
    let (dir_a, dir_b) = (state(), state());
    let here = tempfile::tempdir().unwrap();
    let a = Inbox::start_with(dir_a.path(), &["--port", "0", "--store", &url]);
    let _b = Inbox::start_with(dir_b.path(), &["--port", "0", "--store", &url]);
    let (code, out) = run(
        dir_a.path(),
        &["inbox", "token", "add", "person", "Grace", "--store", &url],
    );
    assert_eq!(code, 0, "{out}");
    let grace: Value = serde_json::from_str(&out).unwrap();
    let grace = grace["token"].as_str().unwrap().to_string();
    // Added while both run: each replica hears of it at once (NOTIFY).
    let rule = add_rule(
        dir_a.path(),
        &["--text", "deploy", "--reply", "yes", "--store", &url],
    );
    let id = rule["id"].as_str().unwrap().to_string();
    let away = add_rule(
        dir_a.path(),
        &[
            "--text",
            "region",
            "--reply",
            "eu",
            "--while-away",
            "--owner",
            "Grace",
            "--store",
            &url,
        ],
    );
    let away_id = away["id"].as_str().unwrap().to_string();
    for dir in [dir_a.path(), dir_b.path()] {
        assert_eq!(rules(dir, &["--store", &url]).len(), 2);
        let heard = Instant::now();
        until(Duration::from_secs(3), "the replica takes the rule", || {
            let asker = ask_from(dir, DEPLOY, "claude-code", here.path());
            !waits_for_a_person(dir, asker)
        });
        assert!(heard.elapsed() < Duration::from_secs(3));
        let asker = ask_from(dir, DEPLOY, "claude-code", here.path());
        let question = asker.id.clone();
        let (code, answer) = asker.finish();
        assert_eq!(
            (code, &answer["answeredBy"]),
            (0, &by_rule(&id)),
            "{answer}"
        );
        // Every replica's history has it, with the rule's id.
        for other in [dir_a.path(), dir_b.path()] {
            until(Duration::from_secs(3), "history on every replica", || {
                history_of(other, &question)
                    .is_some_and(|entry| entry["face"] == "rule" && entry["decidedBy"] == id)
            });
        }
    }
    // Grace sets herself away on replica A's page: her rule answers on B.
    let before = same_origin_request(a.port, &grace, "GET", "/api/away", "");
    assert_eq!(
        (before.status, before.body.trim()),
        (200, r#"{"away":false}"#)
    );
    let set = same_origin_request(a.port, &grace, "POST", "/api/away", r#"{"away":true}"#);
    assert_eq!(set.status, 200, "{}", set.body);
    let set: Value = serde_json::from_str(&set.body).unwrap();
    assert!(
        set["away"] == true && set["since"].as_u64().is_some(),
        "{set}"
    );
    // The inbox's own token has no switch on a team inbox.
    let own = a.request("GET", "/api/away", "");
    assert_eq!(own.status, 422, "{}", own.body);
    assert!(
        own.body.contains("WEB_ERROR")
            && own
                .body
                .contains("each person sets their own switch with their token"),
        "{}",
        own.body
    );
    let region = r#"{"question":"Which region?","kind":"single_select","options":["eu","us"]}"#;
    until(Duration::from_secs(3), "B follows Grace's switch", || {
        let asker = ask_from(dir_b.path(), region, "claude-code", here.path());
        !waits_for_a_person(dir_b.path(), asker)
    });
    // Removed through the store: neither replica answers by it any more.
    let (code, out) = run(
        dir_a.path(),
        &["inbox", "rule", "remove", &id, "--store", &url],
    );
    assert_eq!((code, out.as_str()), (0, ""));
    for dir in [dir_a.path(), dir_b.path()] {
        let asker = ask_from(dir, DEPLOY, "claude-code", here.path());
        assert!(waits_for_a_person(dir, asker), "a removed rule answered");
    }
    let (code, out) = run(
        dir_a.path(),
        &["inbox", "rule", "remove", &away_id, "--store", &url],
    );
    assert_eq!(code, 0, "{out}");
}
