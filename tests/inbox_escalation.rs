//! `ask_user inbox --policy FILE` (issue #40) through real processes: the
//! file read at start and again when it changes, notifications routed by a
//! question's `to` to the people's contacts, and the escalation ladder at
//! seconds scale in real time, on SQLite and on a real PostgreSQL with two
//! replicas. Each contact is a webhook receiver on 127.0.0.1 that records
//! the CloudEvents it gets (their format is tests/inbox_channels.rs's).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::mpsc::Receiver as Lines;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use common::inbox::{Asker, Inbox, assert_error, command, run, state, until};

const SECRET: &str = "a-webhook-secret-of-32-characters";
const SOON: Duration = Duration::from_secs(10);

common::harness::main!(
    a_bad_policy_at_start_is_refused_with_its_code_line_and_column,
    an_edited_policy_is_read_again_and_a_bad_edit_is_said_once_and_kept,
    a_question_to_a_person_or_a_group_reaches_only_their_contacts,
    a_ladder_fires_each_step_once_at_its_time_and_the_card_and_history_show_it,
    an_answer_before_a_step_means_the_step_never_fires,
    two_postgres_replicas_fire_each_step_exactly_once,
    two_postgres_replicas_announce_each_question_and_its_end_once,
    the_page_shows_a_step_on_its_card_when_it_fires_and_in_history,
);

// ---- A webhook receiver ----

/// An HTTP/1.1 server on 127.0.0.1 that records each request's JSON body.
struct Hook {
    port: u16,
    events: Arc<Mutex<Vec<Value>>>,
}

impl Hook {
    fn start() -> Hook {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let events = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&events);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let recorded = Arc::clone(&recorded);
                std::thread::spawn(move || receive(stream, &recorded));
            }
        });
        Hook { port, events }
    }

    fn spec(&self) -> String {
        format!("webhook=http://127.0.0.1:{}/hook", self.port)
    }

    fn events(&self) -> Vec<Value> {
        self.events.lock().unwrap().clone()
    }

    /// The `(type, id)` of each event so far, `type` shortened to
    /// created/closed.
    fn seen(&self) -> Vec<(String, String)> {
        self.events()
            .iter()
            .map(|event| (kind(event), event["id"].as_str().unwrap().to_string()))
            .collect()
    }

    /// The `(type, question)` of each event so far, sorted.
    fn seen_by_question(&self) -> Vec<(String, String)> {
        let mut seen: Vec<(String, String)> = self
            .events()
            .iter()
            .map(|event| {
                let question = event["data"]["customData"]["inboxId"].as_str().unwrap();
                (kind(event), question.to_string())
            })
            .collect();
        seen.sort();
        seen
    }

    fn wait_for(&self, n: usize, what: &str) -> Vec<Value> {
        until(SOON, what, || self.events.lock().unwrap().len() >= n);
        self.events()
    }
}

/// An event's `type`, shortened to created/closed.
fn kind(event: &Value) -> String {
    let kind = event["type"].as_str().unwrap();
    if kind.contains(".created.") {
        "created"
    } else {
        "closed"
    }
    .to_string()
}

fn receive(stream: TcpStream, recorded: &Mutex<Vec<Value>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0;
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    recorded
        .lock()
        .unwrap()
        .push(serde_json::from_slice(&body).unwrap());
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok"
    );
}

// ---- Helpers ----

/// The inbox's stderr from here on, line by line.
fn stderr_lines(inbox: &Inbox) -> Lines<String> {
    let pipe = common::process::clone_stderr(inbox.stderr.get_ref());
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { return };
            if send.send(line).is_err() {
                return;
            }
        }
    });
    receive
}

/// The two lines an inbox with a policy says after its address (already
/// read into its reader's buffer: [`stderr_lines`] would not see them).
fn startup_lines(inbox: &mut Inbox) -> Vec<String> {
    (0..2)
        .map(|_| {
            let mut line = String::new();
            inbox.stderr.read_line(&mut line).unwrap();
            line.trim_end().to_string()
        })
        .collect()
}

/// The next line that contains `needle` (the lines before it are returned too).
fn said(lines: &Lines<String>, needle: &str) -> (String, Vec<String>) {
    let mut before = Vec::new();
    loop {
        let line = lines
            .recv_timeout(SOON)
            .unwrap_or_else(|_| panic!("the inbox never said {needle:?}; it said {before:?}"));
        if line.contains(needle) {
            return (line, before);
        }
        before.push(line);
    }
}

/// Every line said within `time`.
fn said_within(lines: &Lines<String>, time: Duration) -> Vec<String> {
    let end = std::time::Instant::now() + time;
    let mut all = Vec::new();
    while let Some(left) = end.checked_duration_since(std::time::Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) => all.push(line),
            Err(_) => break,
        }
    }
    all
}

fn write_policy(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

/// `ask_user inbox` on `dir` with `--policy policy` and `extra`, its
/// webhooks keyed.
fn inbox_with_policy(dir: &Path, policy: &Path, extra: &[&str]) -> Inbox {
    let mut start = command(
        dir,
        &["inbox", "--port", "0", "--policy", policy.to_str().unwrap()],
    );
    start.args(extra).env("ASK_USER_WEBHOOK_SECRET", SECRET);
    Inbox::spawn(dir, start)
}

/// A person token kept in `dir`'s store (or `store`), in `groups`: the token.
fn person_in(dir: &Path, store: Option<&str>, name: &str, groups: &[&str]) -> String {
    let mut args = vec!["inbox", "token", "add", "person", name];
    for group in groups {
        args.extend(["--group", group]);
    }
    if let Some(store) = store {
        args.extend(["--store", store]);
    }
    let (code, out) = run(dir, &args);
    assert_eq!(code, 0, "{out}");
    serde_json::from_str::<Value>(&out).unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string()
}

fn person(dir: &Path, name: &str, groups: &[&str]) -> String {
    person_in(dir, None, name, groups)
}

/// `POST /api/questions/ID/reply` with `token` (a person's), as the page sends it.
fn reply_as(inbox: &Inbox, token: &str, id: &str, reply: &str) -> common::page::Response {
    let host = inbox.host();
    let origin = format!("http://{host}");
    let bearer = format!("Bearer {token}");
    let headers = [
        ("Host", host.as_str()),
        ("Authorization", bearer.as_str()),
        ("Origin", origin.as_str()),
        ("Content-Type", "application/json"),
    ];
    let body = serde_json::json!({ "replies": [reply] }).to_string();
    common::page::send(
        inbox.port,
        "POST",
        &format!("/api/questions/{id}/reply"),
        &headers,
        body.as_bytes(),
    )
}

/// The value of `/metrics`' sample `name` (no labels).
fn sample(inbox: &Inbox, name: &str) -> u64 {
    let response = inbox.request("GET", "/metrics", "");
    assert_eq!(response.status, 200);
    response
        .body
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .map_or(0, |n| n.parse().unwrap())
}

/// `(step, after, notify)` of each step a listing or history entry shows,
/// and that each `at` is a time.
fn steps(item: &Value) -> Vec<(u64, String, String)> {
    item["escalations"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|step| {
                    assert!(step["at"].as_str().unwrap().ends_with('Z'), "{step}");
                    (
                        step["step"].as_u64().unwrap(),
                        step["after"].as_str().unwrap().to_string(),
                        step["notify"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn step(n: u64, after: &str, notify: &str) -> (u64, String, String) {
    (n, after.to_string(), notify.to_string())
}

/// The milliseconds from the ask (`askedAt`) to a step's `at`.
fn fired_after(item: &Value, step: usize) -> i64 {
    let ms = |text: &str| -> i64 {
        // 2026-11-28T10:42:00.123Z: seconds of the day are enough here.
        let time = &text[11..23];
        let (h, rest) = time.split_once(':').unwrap();
        let (m, s) = rest.split_once(':').unwrap();
        let s: f64 = s.parse().unwrap();
        (h.parse::<i64>().unwrap() * 3600 + m.parse::<i64>().unwrap() * 60) * 1000
            + (s * 1000.0).round() as i64
    };
    ms(item["escalations"][step]["at"].as_str().unwrap()) - ms(item["askedAt"].as_str().unwrap())
}

fn question(text: &str, to: Option<&str>) -> String {
    let mut input = serde_json::json!({"question": text, "options": ["yes", "no"]});
    if let Some(to) = to {
        input["to"] = to.into();
    }
    input.to_string()
}

// ---- The file ----

fn a_bad_policy_at_start_is_refused_with_its_code_line_and_column() {
    let dir = state();
    let policy = dir.path().join("policy.toml");
    let shown = policy.display().to_string();
    let start = |extra: &[(&str, &str)]| {
        let mut inbox = command(dir.path(), &["inbox", "--port", "0", "--policy", &shown]);
        inbox
            .envs(extra.iter().copied())
            .stdin(std::process::Stdio::null());
        let out = inbox.output().unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap(),
        )
    };
    assert_error(
        start(&[]),
        "READ_ERROR",
        &format!("cannot read the policy file {shown} (No such file or directory"),
    );
    write_policy(
        &policy,
        "[people.ada]\nnotify = [\"webhook=http://127.0.0.1:9/h\"]\n\n[[escalate]]\nafter = \"soon\"\nnotify = \"ada\"\n",
    );
    assert_error(
        start(&[("ASK_USER_WEBHOOK_SECRET", SECRET)]),
        "INVALID_FIELD",
        &format!(
            "the policy file {shown}: line 5, column 9: escalate[1].after: expected a number and s, m or h"
        ),
    );
    // A contact's secret is read at start, as --notify-to's is.
    write_policy(
        &policy,
        "[people.ada]\nnotify = [\"webhook=http://127.0.0.1:9/h\"]\n",
    );
    assert_error(
        start(&[]),
        "INVALID_FIELD",
        &format!(
            "the policy file {shown}: people.ada.notify[1] (webhook=…): a webhook is signed: set ASK_USER_WEBHOOK_SECRET"
        ),
    );
    // Nothing was left serving.
    assert!(!dir.path().join("inbox.json").exists());
}

fn an_edited_policy_is_read_again_and_a_bad_edit_is_said_once_and_kept() {
    let dir = state();
    person(dir.path(), "ada", &["ops"]);
    person(dir.path(), "grace", &[]);
    let (ada, grace) = (Hook::start(), Hook::start());
    let policy = dir.path().join("policy.toml");
    let shown = policy.display().to_string();
    write_policy(
        &policy,
        &people_and(
            &ada,
            &grace,
            "[[escalate]]\nafter = \"1h\"\nnotify = \"ops\"\n",
        ),
    );
    let mut inbox = inbox_with_policy(dir.path(), &policy, &[]);
    assert_eq!(
        startup_lines(&mut inbox)[1],
        format!("ask_user inbox: policy {shown} (2 people, 1 escalation step)")
    );
    let lines = stderr_lines(&inbox);
    // The new ladder: grace after 1 s.
    write_policy(
        &policy,
        &people_and(
            &ada,
            &grace,
            "[[escalate]]\nafter = \"1s\"\nnotify = \"grace\"\n\n[[escalate]]\nafter = \"2h\"\nnotify = \"ops\"\n",
        ),
    );
    said(
        &lines,
        &format!("ask_user inbox: policy {shown} reloaded (2 people, 2 escalation steps)"),
    );
    // A bad edit (its line 12: "0h"): said once, the ladder kept.
    write_policy(
        &policy,
        &people_and(
            &ada,
            &grace,
            "[[escalate]]\nafter = \"1s\"\nnotify = \"ops\"\n\n[[escalate]]\nafter = \"0h\"\nnotify = \"ada\"\n",
        ),
    );
    let (line, _) = said(&lines, "the last good policy stays in force");
    assert_eq!(
        line,
        format!(
            "ask_user inbox: policy {shown}: line 12, column 9: escalate[2].after: must be at least 1s; the last good policy stays in force"
        )
    );
    // Asked now: the reloaded ladder (grace at 1 s), not the first (1 h)
    // nor the bad edit's (ops at 1 s).
    let asker = Asker::ask(dir.path(), &question("After the edit?", None), &[]);
    let got = grace.wait_for(1, "the reloaded ladder's step");
    assert_eq!(got[0]["id"], format!("{}-escalated-1", asker.id));
    // Said once, however long it stays bad; ada (ops) hears nothing.
    let after = said_within(&lines, Duration::from_millis(2500));
    assert!(
        !after.iter().any(|line| line.contains("policy")),
        "{after:?}"
    );
    assert!(ada.events().is_empty(), "{:?}", ada.events());
    drop(asker);
    inbox.stop();
}

// ---- Routing by `to` ----

fn a_question_to_a_person_or_a_group_reaches_only_their_contacts() {
    let dir = state();
    person(dir.path(), "ada", &["ops"]);
    person(dir.path(), "grace", &[]);
    let (ada, grace, everyone) = (Hook::start(), Hook::start(), Hook::start());
    let policy = dir.path().join("policy.toml");
    write_policy(
        &policy,
        &format!(
            "[people.ada]\nnotify = [{:?}]\n\n[people.grace]\nnotify = [{:?}]\n",
            ada.spec(),
            grace.spec()
        ),
    );
    let inbox = inbox_with_policy(dir.path(), &policy, &["--notify-to", &everyone.spec()]);
    let lines = stderr_lines(&inbox);

    // To one person: their contact only.
    let to_grace = Asker::ask(dir.path(), &question("For Grace?", Some("grace")), &[]);
    let got = grace.wait_for(1, "grace's webhook");
    assert_eq!(
        got[0]["data"]["customData"]["inboxId"],
        to_grace.id.as_str()
    );
    assert_eq!(got[0]["data"]["customData"]["title"], "For Grace?");
    // To a group: its members' contacts.
    let to_ops = Asker::ask(dir.path(), &question("For ops?", Some("ops")), &[]);
    let got = ada.wait_for(1, "ada's webhook (ops)");
    assert_eq!(got[0]["data"]["customData"]["inboxId"], to_ops.id.as_str());
    // To nobody known: nobody, and nothing said about it.
    let lost = Asker::ask(dir.path(), &question("For whom?", Some("nobody")), &[]);
    // Without `to`: --notify-to, as without a policy.
    let anyone = Asker::ask(dir.path(), &question("For anyone?", None), &[]);
    let got = everyone.wait_for(1, "--notify-to's webhook");
    assert_eq!(got[0]["data"]["customData"]["inboxId"], anyone.id.as_str());
    std::thread::sleep(Duration::from_millis(1500));
    let created = |id: &str| ("created".to_string(), format!("{id}-created"));
    assert_eq!(grace.seen(), [created(&to_grace.id)]);
    assert_eq!(ada.seen(), [created(&to_ops.id)]);
    assert_eq!(everyone.seen(), [created(&anyone.id)]);

    // A close goes where the question went.
    for asker in [&to_grace, &lost, &anyone] {
        let (code, out) = run(dir.path(), &["inbox", "answer", &asker.id, "--reply", "1"]);
        assert_eq!(code, 0, "{out}");
    }
    grace.wait_for(2, "grace's close");
    everyone.wait_for(2, "--notify-to's close");
    std::thread::sleep(Duration::from_millis(1000));
    let closed = |id: &str| ("closed".to_string(), format!("{id}-closed"));
    assert_eq!(grace.seen(), [created(&to_grace.id), closed(&to_grace.id)]);
    assert_eq!(everyone.seen(), [created(&anyone.id), closed(&anyone.id)]);
    assert_eq!(ada.seen(), [created(&to_ops.id)]);
    let log = said_within(&lines, Duration::from_millis(200));
    assert!(
        !log.iter()
            .any(|line| line.contains("nobody") || line.contains(&lost.id)),
        "{log:?}"
    );
    drop((to_grace, to_ops, lost, anyone));
    inbox.stop();
}

// ---- The ladder ----

const LADDER: &str = "[[escalate]]\nafter = \"1s\"\nnotify = \"oncall\"\n\n[[escalate]]\nafter = \"3s\"\nnotify = \"grace\"\nvia = \"webhook\"\n";

/// A policy: ada and grace reached by their own webhooks, then `ladder`.
fn people_and(ada: &Hook, grace: &Hook, ladder: &str) -> String {
    format!(
        "[people.ada]\nnotify = [{:?}]\n\n[people.grace]\nnotify = [{:?}, \"ntfy=http://127.0.0.1:9/never\"]\n\n{ladder}",
        ada.spec(),
        grace.spec()
    )
}

fn a_ladder_fires_each_step_once_at_its_time_and_the_card_and_history_show_it() {
    let dir = state();
    person(dir.path(), "ada", &["oncall"]);
    let grace_token = person(dir.path(), "grace", &[]);
    let (ada, grace) = (Hook::start(), Hook::start());
    let policy = dir.path().join("policy.toml");
    write_policy(&policy, &people_and(&ada, &grace, LADDER));
    let inbox = inbox_with_policy(dir.path(), &policy, &[]);
    let asker = Asker::ask(dir.path(), &question("Roll back?", None), &[]);
    let id = asker.id.clone();

    // Step 1 (1 s): oncall, that is ada's contact.
    let got = ada.wait_for(1, "step 1 at ada's webhook");
    assert_eq!(got[0]["id"], format!("{id}-escalated-1"));
    let data = &got[0]["data"]["customData"];
    assert_eq!(data["inboxId"], id.as_str());
    assert_eq!(data["title"], "Still unanswered: Roll back?");
    assert_eq!(
        data["escalation"],
        serde_json::json!({"step": 1, "notify": "oncall"})
    );
    assert!(data["link"].as_str().unwrap().contains("/l/"), "{data}");
    let listed = &inbox.list()[0];
    assert_eq!(steps(listed), [step(1, "1s", "oncall")]);
    let waited = fired_after(listed, 0);
    assert!(
        (1000..2500).contains(&waited),
        "step 1 fired {waited} ms after the ask"
    );
    assert!(grace.events().is_empty(), "step 2 is not due yet");

    // Step 2 (3 s): grace, by webhook only (her ntfy contact is not used).
    let got = grace.wait_for(1, "step 2 at grace's webhook");
    assert_eq!(got[0]["id"], format!("{id}-escalated-2"));
    let listed = &inbox.list()[0];
    assert_eq!(
        steps(listed),
        [step(1, "1s", "oncall"), step(2, "3s", "grace")]
    );
    let waited = fired_after(listed, 1);
    assert!(
        (3000..4500).contains(&waited),
        "step 2 fired {waited} ms after the ask"
    );
    assert_eq!(sample(&inbox, "mcp_escalations_total"), 2);
    // Once each: nothing more while it stays pending.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        ada.seen(),
        [("created".into(), format!("{id}-escalated-1"))]
    );
    assert_eq!(
        grace.seen(),
        [("created".into(), format!("{id}-escalated-2"))]
    );
    assert_eq!(inbox.list()[0]["inboxId"], id.as_str(), "still pending");

    // Answered after escalating: as any answer, by the person who gave it.
    let answered = reply_as(&inbox, &grace_token, &id, "1");
    assert_eq!(answered.status, 200, "{}", answered.body);
    let (code, document) = asker.finish();
    assert_eq!(code, 0, "{document}");
    assert_eq!(document["answers"][0]["values"], serde_json::json!(["yes"]));
    assert_eq!(document["answeredBy"]["kind"], "person");
    assert_eq!(document["answeredBy"]["name"], "grace");
    assert!(
        document.get("escalations").is_none(),
        "the asker learns no names"
    );
    // The escalated people's webhooks hear that it ended.
    ada.wait_for(2, "the close at ada's webhook");
    grace.wait_for(2, "the close at grace's webhook");
    assert_eq!(ada.seen()[1], ("closed".into(), format!("{id}-closed")));
    // History keeps the steps.
    let (code, out) = run(dir.path(), &["inbox", "history"]);
    assert_eq!(code, 0, "{out}");
    let entry: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(entry["inboxId"], id.as_str());
    assert_eq!(
        steps(&entry),
        [step(1, "1s", "oncall"), step(2, "3s", "grace")]
    );
    assert_eq!(steps(&entry), steps(listed));
    inbox.stop();
}

/// An inbox on `dir` whose ladder has one step, 2 s after the ask, to
/// group oncall (ada is in it), and the two contacts' receivers.
fn one_step_to_oncall(dir: &Path) -> (Hook, Hook, Inbox) {
    person(dir, "ada", &["oncall"]);
    let (ada, grace) = (Hook::start(), Hook::start());
    let policy = dir.join("policy.toml");
    write_policy(
        &policy,
        &people_and(
            &ada,
            &grace,
            "[[escalate]]\nafter = \"2s\"\nnotify = \"oncall\"\n",
        ),
    );
    let inbox = inbox_with_policy(dir, &policy, &[]);
    (ada, grace, inbox)
}

fn an_answer_before_a_step_means_the_step_never_fires() {
    let dir = state();
    let (ada, _grace, inbox) = one_step_to_oncall(dir.path());
    let asker = Asker::ask(dir.path(), &question("Quick one?", None), &[]);
    let (code, out) = run(dir.path(), &["inbox", "answer", &asker.id, "--reply", "2"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(asker.finish().0, 0);
    std::thread::sleep(Duration::from_millis(3000));
    assert!(ada.events().is_empty(), "{:?}", ada.events());
    assert_eq!(sample(&inbox, "mcp_escalations_total"), 0);
    let (_, out) = run(dir.path(), &["inbox", "history"]);
    let entry: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert!(entry.get("escalations").is_none(), "{entry}");
    inbox.stop();
}

/// With `--notify-to` on both replicas (as a team runs them, one command
/// line for all), each new question reaches the channel once, from the
/// replica that stored it, and so does its end, wherever it was answered.
/// Before, a replica that heard of another's question announced it too.
fn two_postgres_replicas_announce_each_question_and_its_end_once() {
    let server = common::harness::require(common::postgres::shared(), common::postgres::MISSING);
    let url = server.new_database();
    let (dir_a, dir_b, admin) = (state(), state(), state());
    let grace = person_in(admin.path(), Some(&url), "grace", &[]);
    let hook = Hook::start();
    let spec = hook.spec();
    let replica = |dir: &Path| {
        let mut start = command(
            dir,
            &[
                "inbox",
                "--port",
                "0",
                "--store",
                &url,
                "--notify-to",
                &spec,
            ],
        );
        start.env("ASK_USER_WEBHOOK_SECRET", SECRET);
        Inbox::spawn(dir, start)
    };
    let (a, b) = (replica(dir_a.path()), replica(dir_b.path()));
    let on_a = Asker::ask(dir_a.path(), &question("Asked on A?", None), &[]);
    let on_b = Asker::ask(dir_b.path(), &question("Asked on B?", None), &[]);
    hook.wait_for(2, "both questions announced");
    // Time for a second announcement, had a replica repeated the other's.
    std::thread::sleep(Duration::from_millis(1500));
    let mut want = vec![
        ("created".to_string(), on_a.id.clone()),
        ("created".to_string(), on_b.id.clone()),
    ];
    want.sort();
    assert_eq!(hook.seen_by_question(), want);
    // A's question answered through B: one "closed", from A.
    let a_id = on_a.id.clone();
    let answered = reply_as(&b, &grace, &on_a.id, "1");
    assert_eq!(answered.status, 200, "{}", answered.body);
    let (code, document) = on_a.finish();
    assert_eq!(code, 0, "{document}");
    hook.wait_for(3, "the answered question's end");
    std::thread::sleep(Duration::from_millis(1500));
    want.push(("closed".to_string(), a_id));
    want.sort();
    assert_eq!(hook.seen_by_question(), want);
    drop(on_b);
    a.stop();
    b.stop();
}

fn two_postgres_replicas_fire_each_step_exactly_once() {
    let server = common::harness::require(common::postgres::shared(), common::postgres::MISSING);
    let url = server.new_database();
    let (dir_a, dir_b, admin) = (state(), state(), state());
    person_in(admin.path(), Some(&url), "ada", &["oncall"]);
    let grace_token = person_in(admin.path(), Some(&url), "grace", &[]);
    let (ada, grace) = (Hook::start(), Hook::start());
    let policy = admin.path().join("policy.toml");
    write_policy(&policy, &people_and(&ada, &grace, LADDER));
    let store = ["--store", url.as_str()];
    let a = inbox_with_policy(dir_a.path(), &policy, &store);
    let b = inbox_with_policy(dir_b.path(), &policy, &store);
    let mut askers = Vec::new();
    for (n, dir) in [dir_a.path(), dir_b.path(), dir_a.path()]
        .into_iter()
        .enumerate()
    {
        askers.push(Asker::ask(
            dir,
            &question(&format!("Question {n}?"), None),
            &[],
        ));
    }
    let ids: Vec<String> = askers.iter().map(|asker| asker.id.clone()).collect();
    ada.wait_for(3, "step 1 of each question");
    grace.wait_for(3, "step 2 of each question");
    // Time for a second firing, had the replicas not agreed.
    std::thread::sleep(Duration::from_millis(1500));
    let mut want_ada: Vec<(String, String)> = ids
        .iter()
        .map(|id| ("created".into(), format!("{id}-escalated-1")))
        .collect();
    let mut want_grace: Vec<(String, String)> = ids
        .iter()
        .map(|id| ("created".into(), format!("{id}-escalated-2")))
        .collect();
    let sorted = |mut seen: Vec<(String, String)>| {
        seen.sort();
        seen
    };
    want_ada.sort();
    want_grace.sort();
    assert_eq!(sorted(ada.seen()), want_ada);
    assert_eq!(sorted(grace.seen()), want_grace);
    // Split between the replicas as they won the rows, 3 each in all.
    assert_eq!(
        sample(&a, "mcp_escalations_total") + sample(&b, "mcp_escalations_total"),
        6
    );
    // Both replicas' cards show both steps, at the same times.
    for inbox in [&a, &b] {
        let listed = inbox.list();
        assert_eq!(listed.len(), 3);
        for item in &listed {
            assert_eq!(
                steps(item),
                [step(1, "1s", "oncall"), step(2, "3s", "grace")],
                "{item}"
            );
        }
    }
    let (on_a, on_b) = (a.list(), b.list());
    for (x, y) in on_a.iter().zip(&on_b) {
        assert_eq!(x["escalations"], y["escalations"]);
    }
    // Answered through B by grace: the asker on A gets it; history on A shows both steps.
    let answered = reply_as(&b, &grace_token, &ids[0], "1");
    assert_eq!(answered.status, 200, "{}", answered.body);
    let (code, document) = askers.remove(0).finish();
    assert_eq!(code, 0, "{document}");
    assert_eq!(document["answeredBy"]["name"], "grace");
    let (code, out) = run(dir_a.path(), &["inbox", "history"]);
    assert_eq!(code, 0, "{out}");
    let entry: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(entry["inboxId"], ids[0].as_str());
    assert_eq!(
        steps(&entry),
        [step(1, "1s", "oncall"), step(2, "3s", "grace")]
    );
    drop(askers);
    a.stop();
    b.stop();
}

fn the_page_shows_a_step_on_its_card_when_it_fires_and_in_history() {
    const SCENARIO: &str = "inbox-escalation";
    let chromium = common::clients::chromium(&["playwright-core"]);
    let dir = state();
    let (ada, _grace, inbox) = one_step_to_oncall(dir.path());
    let mut browser = common::browser::browser_at(&chromium, SCENARIO, &inbox.url);
    assert_eq!(browser.said_line(), "empty");
    let asker = Asker::ask(dir.path(), &question("Roll back?", None), &[]);
    common::browser::go_on(SCENARIO);
    browser.wait().assert_passed(SCENARIO);
    let (code, document) = asker.finish();
    assert_eq!(code, 0, "{document}");
    ada.wait_for(1, "the step at ada's webhook");
    inbox.stop();
}
