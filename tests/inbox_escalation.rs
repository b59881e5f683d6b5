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
            .map(|event| {
                let kind = event["type"].as_str().unwrap();
                let kind = if kind.contains(".created.") {
                    "created"
                } else {
                    "closed"
                };
                (kind.to_string(), event["id"].as_str().unwrap().to_string())
            })
            .collect()
    }

    fn wait_for(&self, n: usize, what: &str) -> Vec<Value> {
        until(SOON, what, || self.events.lock().unwrap().len() >= n);
        self.events()
    }
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

/// A person token kept in `dir`'s store, in `groups`.
fn person(dir: &Path, name: &str, groups: &[&str]) {
    let mut args = vec!["inbox", "token", "add", "person", name];
    for group in groups {
        args.extend(["--group", group]);
    }
    let (code, out) = run(dir, &args);
    assert_eq!(code, 0, "{out}");
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
    let policy = dir.path().join("policy.toml");
    let shown = policy.display().to_string();
    write_policy(&policy, "[[escalate]]\nafter = \"1h\"\nnotify = \"ops\"\n");
    let mut inbox = inbox_with_policy(dir.path(), &policy, &[]);
    assert_eq!(
        startup_lines(&mut inbox)[1],
        format!("ask_user inbox: policy {shown} (0 people, 1 escalation step)")
    );
    let lines = stderr_lines(&inbox);
    write_policy(
        &policy,
        "[[escalate]]\nafter = \"1h\"\nnotify = \"ops\"\n\n[[escalate]]\nafter = \"2h\"\nnotify = \"ada\"\n",
    );
    said(
        &lines,
        &format!("ask_user inbox: policy {shown} reloaded (0 people, 2 escalation steps)"),
    );
    write_policy(
        &policy,
        "[[escalate]]\nafter = \"1h\"\nnotify = \"ops\"\n\n[[escalate]]\nafter = \"30m\"\nnotify = \"ada\"\n",
    );
    let (line, _) = said(&lines, "the last good policy stays in force");
    assert_eq!(
        line,
        format!(
            "ask_user inbox: policy {shown}: line 6, column 9: escalate[2].after must be later than the step before it; the last good policy stays in force"
        )
    );
    // Said once, however long it stays bad.
    let after = said_within(&lines, Duration::from_millis(2500));
    assert!(
        !after.iter().any(|line| line.contains("policy")),
        "{after:?}"
    );
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
