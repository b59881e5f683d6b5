//! `ask_user inbox` (issue 12) through real processes: the inbox, askers
//! (`ask --ui inbox|auto`, execute with `ASK_USER_UI`, `mcp --fallback inbox`
//! through the Python SDK), the CLI verbs from other processes, `kill -9` and
//! restarts, hostile local clients, and headless Chromium for the page
//! (tests/web/drive.mjs). Every process gets a state folder of its own
//! (`ASK_USER_STATE_DIR`) and a free port, and runs without a terminal.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::bin;
use common::browser::Browser;
use common::clients::{chromium, mcp_python, prometheus_python, tests_dir};
use common::inbox::{
    Asker, Inbox, assert_error, command, run, run_with_input, run_with_input_within, signal, state,
    until,
};
use common::page::{connect, read_response, same_origin_request};
#[cfg(unix)]
use common::process::refusing_port;
use common::process::{ChildGuard, JsonClient, json_client};
#[cfg(target_os = "linux")]
use common::process::{cpu_ticks, memory_kib};

const DATABASE: &str = r#"{"question":"Which database?","options":["PostgreSQL","SQLite"]}"#;
const EXTRAS: &str =
    r#"{"question":"Which extras?","options":["Redis","Kafka","NATS"],"multi_select":true}"#;
const NAME: &str = r#"{"questions":[{"question":"Name the service"}]}"#;

/// The document of question `id` answered with `answers` by `by`
/// (`answeredBy`).
fn answered_on(id: &str, answers: Value, by: Value) -> Value {
    json!({"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,
           "timedOut":false,"inboxId":id,"answers":answers,"answeredBy":by})
}

fn unanswered(id: &str, cancelled: bool, reason: Option<&str>) -> Value {
    let mut document = json!({"tool":"ask_user","version":1,"status":"ok","answered":false,
        "cancelled":cancelled,"timedOut":!cancelled,"inboxId":id,"answers":[]});
    if let Some(reason) = reason {
        // After cancelled, before inboxId: the documented key order.
        document = json!({"tool":"ask_user","version":1,"status":"ok","answered":false,
            "cancelled":cancelled,"timedOut":!cancelled,"reason":reason,"inboxId":id,"answers":[]});
    }
    document
}

fn database_answer(id: &str, option: usize) -> Value {
    database_answer_on(id, option, "cli")
}

/// [`database_answer`], given on `channel` by the inbox's own token.
fn database_answer_on(id: &str, option: usize, channel: &str) -> Value {
    let label = ["PostgreSQL", "SQLite"][option - 1];
    answered_on(
        id,
        json!([{"questionId":"q1","values":[label],"optionIds":[option.to_string()]}]),
        common::answered_by(channel),
    )
}

// ---- The CLI verbs and the askers ----

fn inbox_answer_and_inbox_cancel_from_another_process_give_0_and_130() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let first = Asker::ask(dir.path(), DATABASE, &[]);
    let second = Asker::ask(dir.path(), DATABASE, &[]);
    let listed = inbox.list();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["inboxId"], first.id.as_str(), "oldest first");
    assert!(listed[0]["source"]["cwd"].as_str().is_some());
    assert_eq!(listed[0]["source"]["pid"], first.child.id());
    // Nothing names the asker: the name is its parent's, this test's own
    // process (read from /proc on Linux).
    if cfg!(target_os = "linux") {
        let own = std::fs::read_to_string("/proc/self/comm").unwrap();
        assert_eq!(listed[0]["source"]["name"], own.trim());
    }
    assert!(listed[0]["askedAt"].as_str().unwrap().ends_with('Z'));
    assert!(
        listed[0].get("expiresAt").is_none(),
        "no timeout, no expiry"
    );
    assert_eq!(
        listed[0]["document"]["prompt"]["question"], "Which database?",
        "the prompt document"
    );

    // The answer and a note beside it (`--note` after the `--reply` it goes with).
    let (code, stdout) = run(
        dir.path(),
        &[
            "inbox",
            "answer",
            &first.id,
            "--reply",
            "2",
            "--note",
            "-- keep SQLite for tests",
        ],
    );
    assert_eq!(code, 0);
    let mut expected = database_answer(&first.id, 2);
    expected["answers"][0]["note"] = json!("-- keep SQLite for tests");
    assert_eq!(serde_json::from_str::<Value>(&stdout).unwrap(), expected);
    let first_id = first.id.clone();
    assert_eq!(first.finish(), (0, expected));

    let (code, stdout) = run(dir.path(), &["inbox", "cancel", &second.id]);
    assert_eq!(code, 0);
    let cancelled = unanswered(&second.id, true, None);
    assert_eq!(serde_json::from_str::<Value>(&stdout).unwrap(), cancelled);
    let second_id = second.id.clone();
    assert_eq!(second.finish(), (130, cancelled));

    // Closed questions: ALREADY_ANSWERED, saying how they closed.
    assert_error(
        run(dir.path(), &["inbox", "answer", &first_id, "--reply", "1"]),
        "ALREADY_ANSWERED",
        "answered from a terminal",
    );
    assert_error(
        run(dir.path(), &["inbox", "cancel", &second_id]),
        "ALREADY_ANSWERED",
        "cancelled from a terminal",
    );
    assert!(inbox.list().is_empty());
    inbox.stop();
}

/// ASK_USER_STATE_DIR names the state folder; without it the folder is
/// `$XDG_STATE_HOME/ask_user`, else `~/.local/state/ask_user` (an empty
/// variable is unset), and with neither the error says what to set: read
/// from NO_INBOX's message.
fn the_state_folder_defaults_to_xdg_state_home_then_home() {
    let base = state();
    let list = |vars: &[(&str, &std::path::Path)]| {
        let mut command = command(base.path(), &["inbox", "list"]);
        command
            .env_remove("ASK_USER_STATE_DIR")
            .env_remove("XDG_STATE_HOME")
            .env_remove("HOME");
        for (name, value) in vars {
            command.env(name, value);
        }
        let out = command.stdin(Stdio::null()).output().unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap(),
        )
    };
    let home = base.path().join("home");
    let xdg = base.path().join("xdg");
    let missing = |file: std::path::PathBuf| {
        format!("no inbox is running ({} does not exist)", file.display())
    };
    assert_error(
        list(&[("HOME", &home)]),
        "NO_INBOX",
        &missing(home.join(".local/state/ask_user/inbox.json")),
    );
    assert_error(
        list(&[("HOME", &home), ("XDG_STATE_HOME", &xdg)]),
        "NO_INBOX",
        &missing(xdg.join("ask_user/inbox.json")),
    );
    assert_error(
        list(&[
            ("HOME", &home),
            ("XDG_STATE_HOME", std::path::Path::new("")),
        ]),
        "NO_INBOX",
        &missing(home.join(".local/state/ask_user/inbox.json")),
    );
    assert_error(
        list(&[]),
        "NO_INBOX",
        "no inbox is running: no state folder is known (set ASK_USER_STATE_DIR or HOME)",
    );
    // ASK_USER_STATE_DIR comes first; an empty one is unset.
    let named = base.path().join("named");
    assert_error(
        list(&[("HOME", &home), ("ASK_USER_STATE_DIR", &named)]),
        "NO_INBOX",
        &missing(named.join("inbox.json")),
    );
    assert_error(
        list(&[
            ("HOME", &home),
            ("ASK_USER_STATE_DIR", std::path::Path::new("")),
        ]),
        "NO_INBOX",
        &missing(home.join(".local/state/ask_user/inbox.json")),
    );
}

fn every_error_of_the_verbs_has_its_code_message_and_exit_code() {
    let dir = state();
    // No inbox at all.
    for args in [
        &["inbox", "list"][..],
        &["inbox", "answer", "7hq2k9mc", "--reply", "1"],
        &["inbox", "cancel", "7hq2k9mc"],
    ] {
        assert_error(run(dir.path(), args), "NO_INBOX", "ask_user inbox");
    }
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    // An id the inbox never gave, and one that cannot be an id.
    for id in ["7hq2k9mc", "../../api/ask", "NOT-AN-ID"] {
        assert_error(
            run(dir.path(), &["inbox", "answer", id, "--reply", "1"]),
            "UNKNOWN_QUESTION",
            "ask_user inbox list",
        );
        assert_error(
            run(dir.path(), &["inbox", "cancel", id]),
            "UNKNOWN_QUESTION",
            "has no question",
        );
    }
    // A token the inbox does not know: TOKEN_REFUSED (not NO_INBOX: the
    // inbox is there), exit 1, for every verb and for an asker.
    for args in [
        &["inbox", "list"][..],
        &["inbox", "answer", &asker.id, "--reply", "1"],
        &["inbox", "cancel", &asker.id],
        &["ask", "--ui", "inbox", "--timeout", "30"],
    ] {
        let out = command(dir.path(), args)
            .env("ASK_USER_INBOX", format!("http://{}", inbox.host()))
            .env("ASK_USER_TOKEN", "0123456789abcdef0123456789abcdef")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write as _;
                // Only `ask` reads its stdin: the other verbs may exit
                // before the write, which then meets a closed pipe.
                let _ = child.stdin.take().unwrap().write_all(DATABASE.as_bytes());
                child.wait_with_output()
            })
            .unwrap();
        assert_error(
            (
                out.status.code().unwrap(),
                String::from_utf8(out.stdout).unwrap(),
            ),
            "TOKEN_REFUSED",
            "the inbox refused this ask_user's token (401 Unauthorized",
        );
    }
    // A reply that answers nothing: INVALID_REPLY, and the question stays open.
    assert_error(
        run(dir.path(), &["inbox", "answer", &asker.id, "--reply", "7"]),
        "INVALID_REPLY",
        "Reply with the option number (1-2)",
    );
    assert_error(
        run(
            dir.path(),
            &["inbox", "answer", &asker.id, "--reply", "1", "--reply", "2"],
        ),
        "INVALID_REPLY",
        "1 question needs a reply",
    );
    let long = "n".repeat(1001);
    assert_error(
        run(
            dir.path(),
            &[
                "inbox", "answer", &asker.id, "--reply", "1", "--note", &long,
            ],
        ),
        "INVALID_REPLY",
        "the note on the question is 1001 characters; a note is at most 1000",
    );
    assert_eq!(inbox.ids(), std::slice::from_ref(&asker.id));
    // Usage errors: exit 2, nothing on stdout.
    for args in [
        &["inbox", "answer", "7hq2k9mc"][..],
        &["inbox", "cancel"],
        &["inbox", "list", "--port", "1"],
        &["inbox", "--port", "nope"],
        &[
            "inbox", "answer", "7hq2k9mc", "--note", "early", "--reply", "1",
        ],
        &[
            "inbox", "answer", "7hq2k9mc", "--reply", "1", "--note", "a", "--note", "b",
        ],
    ] {
        let (code, stdout) = run(dir.path(), args);
        assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}");
    }
    // A reply that looks like a flag is still a reply.
    let (code, stdout) = run(dir.path(), &["inbox", "answer", &asker.id, "--reply", "-1"]);
    assert_eq!(code, 1);
    assert!(stdout.contains("INVALID_REPLY"), "{stdout}");
    assert_eq!(run(dir.path(), &["inbox", "cancel", &asker.id]).0, 0);
    assert_eq!(asker.finish().0, 130);
    inbox.stop();
}

fn askers_without_an_inbox_say_no_inbox_or_fall_back() {
    let dir = state();
    let asked = |ui: &str, env: &[(&str, &str)]| {
        let mut command = command(dir.path(), &["ask", "--ui", ui, "-"]);
        command.envs(env.iter().copied());
        run_with_input(&mut command, DATABASE.as_bytes())
    };
    assert_error(asked("inbox", &[]), "NO_INBOX", "does not exist");
    // auto: no inbox and no terminal.
    assert_error(asked("auto", &[]), "NO_TTY", "no inbox is running");
    // execute with ASK_USER_UI=inbox: NO_INBOX; an unknown value: UNKNOWN_ACTION.
    let execute = |ui: &str| {
        let mut command = command(dir.path(), &[]);
        command
            .env("TOOLBOX_ACTION", "execute")
            .env("ASK_USER_UI", ui);
        run_with_input(&mut command, DATABASE.as_bytes())
    };
    assert_error(
        execute("inbox"),
        "NO_INBOX",
        "start one with `ask_user inbox`",
    );
    assert_error(execute("page"), "UNKNOWN_ACTION", "ASK_USER_UI must be");
    // ASK_USER_INBOX that is no address, or without a token.
    assert_error(
        asked("inbox", &[("ASK_USER_INBOX", "localhost")]),
        "NO_INBOX",
        "ASK_USER_INBOX must be an http://HOST:PORT or https://HOST[:PORT] address",
    );
    assert_error(
        asked("inbox", &[("ASK_USER_INBOX", "http://127.0.0.1:9")]),
        "NO_INBOX",
        "set ASK_USER_TOKEN",
    );
    // A resume needs the inbox.
    let mut resume = command(dir.path(), &["ask", "--ui", "web", "-"]);
    assert_error(
        run_with_input(&mut resume, br#"{"resume":"7hq2k9mc"}"#),
        "INVALID_INPUT",
        "resume is answered by the inbox",
    );
}

fn ask_auto_and_execute_with_ask_user_ui_go_to_the_running_inbox() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let auto = Asker::spawn(command(dir.path(), &["ask", "--ui", "auto", "-"]), DATABASE);
    let mut execute = command(dir.path(), &[]);
    execute
        .env("TOOLBOX_ACTION", "execute")
        .env("ASK_USER_UI", "auto")
        .env("ASK_USER_SOURCE", "my-agent");
    let execute = Asker::spawn(execute, DATABASE);
    let listed = inbox.list();
    assert_eq!(listed[1]["source"]["name"], "my-agent");
    assert_eq!(
        run(
            dir.path(),
            &["inbox", "answer", &auto.id, "--reply", "SQLite"]
        )
        .0,
        0
    );
    assert_eq!(
        run(
            dir.path(),
            &["inbox", "answer", &execute.id, "--reply", "1"]
        )
        .0,
        0
    );
    let auto_id = auto.id.clone();
    assert_eq!(auto.finish(), (0, database_answer(&auto_id, 2)));
    let execute_id = execute.id.clone();
    assert_eq!(execute.finish(), (0, database_answer(&execute_id, 1)));
    // {"resume": id} waits on a question asked before: here, its outcome at once.
    let mut resume = command(dir.path(), &["ask", "--ui", "inbox", "-"]);
    let input = format!(r#"{{"resume":"{auto_id}"}}"#);
    let (code, stdout) = run_with_input(&mut resume, input.as_bytes());
    assert_eq!(code, 0);
    assert_eq!(
        serde_json::from_str::<Value>(&stdout).unwrap(),
        database_answer(&auto_id, 2)
    );
    inbox.stop();
}

fn the_askers_own_timeout_signals_and_kill_leave_its_question_as_collect_later_says() {
    let dir = state();
    let inbox = Inbox::start_with(dir.path(), &["--port", "0", "--asker-grace", "1"]);
    // Its own timeout: 124 with the inboxId and the resume hint; the
    // question stays open, marked "asker gone".
    let started = Instant::now();
    let timed = Asker::ask(dir.path(), DATABASE, &["--timeout", "1"]);
    let id = timed.id.clone();
    let (code, document) = timed.finish();
    assert_eq!(code, 124);
    let hint = assert_kept(&document, &unanswered(&id, false, None), "24 h");
    assert!(hint.contains(&format!(r#"{{"resume": "{id}"}}"#)), "{hint}");
    assert!(started.elapsed() >= Duration::from_secs(1));
    let listed = inbox.list();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["askerGone"]["reason"], "timeout");
    assert_eq!(run(dir.path(), &["inbox", "cancel", &id]).0, 0);
    // SIGINT: a person cancelling: cancelled (130) in the asker and in the inbox.
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    signal(asker.child.id(), "INT");
    let id = asker.id.clone();
    assert_eq!(asker.finish(), (130, unanswered(&id, true, None)));
    assert!(inbox.list().is_empty());
    // SIGTERM and SIGHUP: a host ending the call; 130, and the question is kept.
    for name in ["TERM", "HUP"] {
        let asker = Asker::ask(dir.path(), DATABASE, &[]);
        signal(asker.child.id(), name);
        let id = asker.id.clone();
        let (code, document) = asker.finish();
        assert_eq!(code, 130, "{name}");
        assert_kept(&document, &unanswered(&id, true, None), "24 h");
        let listed = inbox.list();
        assert_eq!(listed.len(), 1, "{name}");
        assert_eq!(listed[0]["askerGone"]["reason"], "away", "{name}");
        assert_eq!(run(dir.path(), &["inbox", "cancel", &id]).0, 0);
    }
    // kill -9: nobody says goodbye; after the grace time it is marked, not withdrawn.
    let mut killed = Asker::ask(dir.path(), DATABASE, &[]);
    let id = killed.id.clone();
    assert_eq!(inbox.ids(), std::slice::from_ref(&id));
    killed.child.kill().unwrap();
    killed.child.wait().unwrap();
    until(Duration::from_secs(20), "the asker gone mark", || {
        inbox.list()[0].get("askerGone").is_some()
    });
    assert_eq!(inbox.list()[0]["askerGone"]["reason"], "disconnected");
    assert_eq!(inbox.ids(), std::slice::from_ref(&id));
    inbox.stop();
}

/// Asserts `document` is `expected` plus a one-sentence `hint` saying how
/// long the question is kept; returns the hint.
fn assert_kept(document: &Value, expected: &Value, kept: &str) -> String {
    let mut without = document.clone();
    let hint = without
        .as_object_mut()
        .unwrap()
        .remove("hint")
        .unwrap_or_else(|| panic!("no hint in {document}"));
    assert_eq!(&without, expected);
    // Key order: the hint comes after inboxId, before answers.
    let keys: Vec<&String> = document.as_object().unwrap().keys().collect();
    let at = |key: &str| keys.iter().position(|k| *k == key).unwrap();
    assert!(
        at("inboxId") + 1 == at("hint") && at("hint") + 1 == at("answers"),
        "{keys:?}"
    );
    let hint = hint.as_str().unwrap().to_string();
    assert!(
        hint.contains(&format!("for {kept}")) || kept.is_empty(),
        "{hint}"
    );
    assert!(hint.contains(r#"{"resume": ""#), "{hint}");
    assert!(
        hint.ends_with('.') && !hint.trim_end_matches('.').contains(". "),
        "one sentence: {hint}"
    );
    hint
}

fn two_answers_at_once_the_first_wins() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    for round in 0..3 {
        let asker = Asker::ask(dir.path(), DATABASE, &[]);
        let answers: Vec<ChildGuard> = ["1", "2"]
            .iter()
            .map(|reply| {
                ChildGuard::spawn(
                    command(
                        dir.path(),
                        &["inbox", "answer", &asker.id, "--reply", reply],
                    )
                    .stdout(Stdio::piped()),
                )
                .unwrap()
            })
            .collect();
        let outputs: Vec<(i32, Value)> = answers
            .into_iter()
            .map(|child| {
                let out = child.wait_with_output().unwrap();
                (
                    out.status.code().unwrap(),
                    serde_json::from_slice(&out.stdout).unwrap(),
                )
            })
            .collect();
        let winners: Vec<&Value> = outputs
            .iter()
            .filter(|(code, _)| *code == 0)
            .map(|(_, document)| document)
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {outputs:?}");
        let loser = outputs.iter().find(|(code, _)| *code == 1).unwrap();
        assert_eq!(loser.1["error"]["code"], "ALREADY_ANSWERED");
        let winner = winners[0].clone();
        assert_eq!(asker.finish(), (0, winner));
    }
    // The page and a terminal at once: one 200, one 409.
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let path = format!("/api/questions/{}/answer", asker.id);
    let page = std::thread::scope(|scope| {
        let page =
            scope.spawn(|| inbox.request("POST", &path, r#"{"answers":[{"optionIds":["1"]}]}"#));
        let cli = run(dir.path(), &["inbox", "answer", &asker.id, "--reply", "2"]);
        (page.join().unwrap(), cli)
    });
    let (page, (cli_code, _)) = page;
    assert!(
        (page.status == 200 && cli_code == 1) || (page.status == 409 && cli_code == 0),
        "{} {cli_code}",
        page.status
    );
    let expected = if page.status == 200 {
        database_answer_on(&asker.id, 1, "page")
    } else {
        database_answer(&asker.id, 2)
    };
    assert_eq!(asker.finish(), (0, expected));
    inbox.stop();
}

// ---- Restarts, stale files, ports ----

fn kill_9_with_three_pending_then_a_restart_loses_none() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let port = inbox.port.to_string();
    let askers: Vec<Asker> = (0..3)
        .map(|_| Asker::ask(dir.path(), DATABASE, &["--timeout", "120"]))
        .collect();
    let ids: Vec<String> = askers.iter().map(|a| a.id.clone()).collect();
    assert_eq!(inbox.ids(), ids);
    inbox.kill9();
    // The askers wait on (they neither give up nor spin; see the test below).
    let mut askers = askers;
    for asker in &mut askers {
        assert!(asker.is_running());
    }
    // inbox.json is stale now: its process has ended.
    assert_error(
        run(dir.path(), &["inbox", "list"]),
        "NO_INBOX",
        "which has ended",
    );
    let inbox = Inbox::start_with(dir.path(), &["--port", &port]);
    assert_eq!(inbox.ids(), ids, "every pending question, in order");
    for (n, id) in ids.iter().enumerate() {
        let reply = ["1", "2", "1"][n];
        assert_eq!(
            run(dir.path(), &["inbox", "answer", id, "--reply", reply]).0,
            0
        );
    }
    for (n, asker) in askers.into_iter().enumerate() {
        let id = asker.id.clone();
        assert_eq!(asker.finish(), (0, database_answer(&id, [1, 2, 1][n])));
    }
    inbox.stop();
}

#[cfg(target_os = "linux")]
fn askers_waiting_on_a_stopped_inbox_neither_spin_nor_give_up() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let port = inbox.port.to_string();
    let waiting = Asker::ask(dir.path(), DATABASE, &[]);
    // Before the asker starts, so its whole timeout lies after this instant.
    let started = Instant::now();
    let timed = Asker::ask(dir.path(), DATABASE, &["--timeout", "3"]);
    inbox.stop();
    // Stopped: pending questions stay in the store, and the askers wait on.
    let before = cpu_ticks(waiting.child.id());
    std::thread::sleep(Duration::from_secs(2));
    let spent = cpu_ticks(waiting.child.id()) - before;
    assert!(spent < 30, "the asker spent {spent} ticks in 2 s waiting");
    // The timed one gives up on its own time, not before: 124, with its
    // inboxId and the resume hint (the inbox keeps it once it is back).
    let timed_id = timed.id.clone();
    let (code, document) = timed.finish();
    assert_eq!(code, 124);
    assert_kept(&document, &unanswered(&timed_id, false, None), "");
    assert!(started.elapsed() >= Duration::from_secs(3));
    let inbox = Inbox::start_with(dir.path(), &["--port", &port]);
    assert!(inbox.ids().contains(&waiting.id));
    assert_eq!(
        run(
            dir.path(),
            &["inbox", "answer", &waiting.id, "--reply", "2"]
        )
        .0,
        0
    );
    let id = waiting.id.clone();
    assert_eq!(waiting.finish(), (0, database_answer(&id, 2)));
    inbox.stop();
}

// Unix only: a port held by a bound socket (libc) and the state file's mode.
#[cfg(unix)]
fn a_stale_inbox_json_is_no_inbox_and_a_new_inbox_replaces_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = state();
    let file = dir.path().join("inbox.json");
    let mut ended = Command::new("true").spawn().unwrap();
    let dead = ended.id();
    ended.wait().unwrap();
    let (_refusing, closed_port) = refusing_port();
    let stale = |pid: u32| {
        std::fs::write(
            &file,
            format!(
                r#"{{"url":"http://127.0.0.1:{closed_port}","token":"{}","pid":{pid}}}"#,
                "ab".repeat(16)
            ),
        )
        .unwrap();
    };
    stale(dead);
    let mut asking = command(dir.path(), &["ask", "--ui", "inbox", "-"]);
    assert_error(
        run_with_input(&mut asking, DATABASE.as_bytes()),
        "NO_INBOX",
        &format!("names process {dead}, which has ended"),
    );
    // A live process (this one) but nothing on the port: stale too.
    stale(std::process::id());
    assert_error(
        run(dir.path(), &["inbox", "list"]),
        "NO_INBOX",
        &format!("nothing answers at http://127.0.0.1:{closed_port}"),
    );
    // A new inbox takes the folder over and rewrites the file (0600).
    let inbox = Inbox::start(dir.path());
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        written,
        json!({"url": format!("http://127.0.0.1:{}", inbox.port), "token": inbox.token,
               "pid": inbox.child.id()})
    );
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&dir.path().join("inbox.sqlite3")), 0o600);
    assert!(inbox.list().is_empty());
    inbox.stop();
}

fn a_taken_port_and_a_second_inbox_are_web_errors() {
    let dir = state();
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    assert_error(
        run(dir.path(), &["inbox", "--port", &port]),
        "WEB_ERROR",
        &format!("cannot listen on 127.0.0.1:{port}"),
    );
    assert!(!dir.path().join("inbox.json").exists());
    let inbox = Inbox::start(dir.path());
    assert_error(
        run(dir.path(), &["inbox", "--port", "0"]),
        "WEB_ERROR",
        &format!("another inbox already serves {}", dir.path().display()),
    );
    // The first one is untouched.
    assert!(inbox.list().is_empty());
    inbox.stop();
}

fn the_token_survives_a_restart_and_new_token_rotates_it() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let token = inbox.token.clone();
    inbox.stop();
    let inbox = Inbox::start(dir.path());
    assert_eq!(inbox.token, token);
    inbox.stop();
    let inbox = Inbox::start_with(dir.path(), &["--port", "0", "--new-token"]);
    assert_ne!(inbox.token, token);
    // The old token is refused now.
    let host = inbox.host();
    let old = format!("Bearer {token}");
    assert_eq!(
        inbox
            .send(
                "GET",
                "/api/questions",
                &[("Host", &host), ("Authorization", &old)],
                b""
            )
            .status,
        401
    );
    inbox.stop();
}

// ---- Security on the hardened server ----

fn nothing_without_the_token_reads_or_answers_a_question() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let host = inbox.host();
    let origin = format!("http://{host}");
    let answer_path = format!("/api/questions/{}/answer", asker.id);
    let wait_path = format!("/api/questions/{}/wait", asker.id);
    for (method, path) in [
        ("GET", "/"),
        ("GET", "/api/events"),
        ("GET", "/api/questions"),
        ("GET", "/api/me"),
        ("GET", wait_path.as_str()),
        ("GET", "/metrics"),
        ("GET", "/metrics?token=0123456789abcdef0123456789abcdef"),
        ("POST", "/api/ask"),
        ("POST", answer_path.as_str()),
    ] {
        let refused = inbox.send(
            method,
            path,
            &[
                ("Host", &host),
                ("Origin", &origin),
                ("Content-Type", "application/json"),
            ],
            br#"{"answers":[{"optionIds":["1"]}]}"#,
        );
        assert_eq!(refused.status, 401, "{method} {path}");
        assert!(!refused.body.contains("Which database"), "{path}");
    }
    // The right token under a foreign Host (DNS rebinding), and a cross-site POST.
    let bearer = format!("Bearer {}", inbox.token);
    let evil = format!("evil.example:{}", inbox.port);
    assert_eq!(
        inbox
            .send(
                "GET",
                "/api/questions",
                &[("Host", &evil), ("Authorization", &bearer)],
                b""
            )
            .status,
        403
    );
    let cross = inbox.send(
        "POST",
        &answer_path,
        &[
            ("Host", &host),
            ("Authorization", &bearer),
            ("Origin", "http://evil.example"),
            ("Content-Type", "application/json"),
        ],
        br#"{"answers":[{"optionIds":["1"]}]}"#,
    );
    assert_eq!(cross.status, 403);
    // With the token: the page, with its nonce policy, and the list.
    let page = inbox.send(
        "GET",
        &format!("/?token={}", inbox.token),
        &[("Host", &host)],
        b"",
    );
    assert_eq!(page.status, 200);
    let csp = page.header("Content-Security-Policy").unwrap();
    assert!(csp.contains("script-src 'nonce-") && csp.contains("default-src 'none'"));
    assert_eq!(page.header("Cache-Control"), Some("no-store"));
    assert!(!page.body.contains("__NONCE__") && !page.body.contains("/*__FORM_"));
    let listed = inbox.request("GET", "/api/questions", "");
    assert_eq!(listed.status, 200);
    assert!(listed.body.contains(&asker.id));
    // Still pending: nothing above answered it.
    assert_eq!(inbox.ids(), std::slice::from_ref(&asker.id));
    assert_eq!(run(dir.path(), &["inbox", "cancel", &asker.id]).0, 0);
    assert_eq!(asker.finish().0, 130);
    inbox.stop();
}

/// The person's answer through the page's own route, then the asker's exact document.
fn person_answers(inbox: &Inbox, asker: Asker) {
    let path = format!("/api/questions/{}/answer", asker.id);
    let started = Instant::now();
    let done = inbox.request("POST", &path, r#"{"answers":[{"optionIds":["2"]}]}"#);
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(started.elapsed() < Duration::from_secs(5));
    let id = asker.id.clone();
    assert_eq!(asker.finish(), (0, database_answer_on(&id, 2, "page")));
}

/// Opens a connection and sends `bytes`, then holds it (until dropped).
fn hold(inbox: &Inbox, bytes: &[u8]) -> TcpStream {
    common::page::hold(inbox.port, bytes)
}

fn head(inbox: &Inbox, request_line: &str, headers: &[String]) -> String {
    common::page::head(&inbox.host(), request_line, headers)
}

/// Issue 11's case 1 and 2 on the inbox: stalled bodies on refused requests
/// (a POST over the limit and within it, an ask over its own limit, a GET),
/// each holding its connection, hold up nothing.
fn stalled_bodies_on_refused_requests_hold_up_nothing() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let mut held = Vec::new();
    let reply_path = format!("POST /api/questions/{}/reply HTTP/1.1", asker.id);
    for (line, length, status) in [
        (reply_path.as_str(), 100_000, 413),
        (reply_path.as_str(), 60_000, 401),
        ("POST /api/ask HTTP/1.1", 600_000, 413),
        ("GET / HTTP/1.1", 5_000, 401),
    ] {
        let headers = [
            format!("Origin: http://{}", inbox.host()),
            "Content-Type: application/json".into(),
            format!("Content-Length: {length}"),
        ];
        let mut stalled = hold(
            &inbox,
            format!("{}{{\"replies\":", head(&inbox, line, &headers)).as_bytes(),
        );
        assert_eq!(
            read_response(&mut stalled).status,
            status,
            "{line} {length}"
        );
        held.push(stalled);
    }
    person_answers(&inbox, asker);
    // A new asker gets through too, with every stalled connection still open.
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    person_answers(&inbox, asker);
    drop(held);
    inbox.stop();
}

/// Issue 11's case 3: huge and absurd declared lengths, with and without
/// the token, are refused from the head; the inbox lives on.
fn huge_and_absurd_declared_lengths_are_refused_and_the_inbox_lives() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let bearer = format!("Authorization: Bearer {}", inbox.token);
    for (length, status) in [
        ("18446744073709551615", 431),
        ("100000000000000", 413),
        ("65537", 413),
    ] {
        for token in [None, Some(bearer.clone())] {
            let mut headers = vec![format!("Content-Length: {length}")];
            headers.extend(token.clone());
            let mut stream = hold(&inbox, head(&inbox, "GET / HTTP/1.1", &headers).as_bytes());
            assert_eq!(
                read_response(&mut stream).status,
                status,
                "{length} {token:?}"
            );
        }
    }
    person_answers(&inbox, asker);
    inbox.stop();
}

/// Issue 11's case 4: 120 requests without the token; the last 20 get 429,
/// and the person, the CLI verbs and the askers, who hold it, are never limited.
fn tokenless_requests_never_lock_out_the_person_or_the_askers() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let host = inbox.host();
    let statuses: Vec<u16> = (0..120)
        .map(|_| {
            inbox
                .send("GET", "/api/questions", &[("Host", &host)], b"")
                .status
        })
        .collect();
    assert_eq!(statuses[..100], [401; 100]);
    assert_eq!(statuses[100..], [429; 20]);
    assert_eq!(inbox.list().len(), 1, "inbox list holds the token");
    let second = Asker::ask(dir.path(), DATABASE, &[]);
    assert_eq!(
        run(dir.path(), &["inbox", "answer", &second.id, "--reply", "1"]).0,
        0
    );
    let second_id = second.id.clone();
    assert_eq!(second.finish(), (0, database_answer(&second_id, 1)));
    person_answers(&inbox, asker);
    inbox.stop();
}

/// Issue 11's case 5: one unfinished 64 MiB header line is cut at 16 KiB,
/// and the inbox's memory does not grow with it.
#[cfg(target_os = "linux")]
fn an_endless_header_line_is_cut_and_memory_stays_bounded() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let pid = inbox.child.id();
    let before = memory_kib(pid, "VmRSS:");
    let mut stream = connect(inbox.port);
    stream
        .set_write_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(format!("GET / HTTP/1.1\r\nHost: {}\r\nX-Long: ", inbox.host()).as_bytes())
        .unwrap();
    let chunk = vec![b'a'; 64 * 1024];
    let mut sent = 0usize;
    while sent < 64 * 1024 * 1024 && stream.write_all(&chunk).is_ok() {
        sent += chunk.len();
    }
    assert!(sent < 64 * 1024 * 1024, "the inbox read a 64 MiB header");
    assert_eq!(read_response(&mut stream).status, 431);
    let peak = memory_kib(pid, "VmHWM:");
    assert!(
        peak < before + 8 * 1024,
        "memory grew from {before} KiB to a peak of {peak} KiB"
    );
    person_answers(&inbox, asker);
    inbox.stop();
}

fn a_whole_tool_input_fits_an_ask_and_more_is_refused() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    // Near the 256 KiB input limit: ten questions of twenty described options.
    let description = "x".repeat(1_000);
    let questions: Vec<Value> = (0..10)
        .map(|i| {
            let options: Vec<Value> = (0..20)
                .map(|o| json!({"label": format!("option {o}"), "description": description}))
                .collect();
            json!({"question": format!("Q{i}?"), "options": options})
        })
        .collect();
    let big = json!({"questions": questions}).to_string();
    assert!(big.len() > 200_000 && big.len() < 262_144, "{}", big.len());
    let asker = Asker::ask(dir.path(), &big, &[]);
    assert_eq!(
        inbox.list()[0]["document"]["prompts"]
            .as_array()
            .unwrap()
            .len(),
        10
    );
    assert_eq!(run(dir.path(), &["inbox", "cancel", &asker.id]).0, 0);
    assert_eq!(asker.finish().0, 130);
    // A body over the ask route's 512 KiB: refused from its head.
    let huge = format!(r#"{{"key":"k","input":"{}"}}"#, "y".repeat(600 * 1024));
    assert_eq!(inbox.request("POST", "/api/ask", &huge).status, 413);
    // A bad question: the parser's own error document, 422.
    let bad = inbox.request(
        "POST",
        "/api/ask",
        r#"{"key":"k2","input":{"question":"no options"}}"#,
    );
    assert_eq!(bad.status, 422);
    let error: Value = serde_json::from_str(&bad.body).unwrap();
    assert_eq!(error["error"]["code"], "MISSING_OPTIONS");
    inbox.stop();
}

// ---- MCP and the page, in a real browser ----

/// Runs tests/mcp/py_client.py against `mcp --fallback inbox --no-elicitation`
/// with `arguments`, in the state folder `dir`; its JSON output.
fn mcp_call(python: &Path, dir: &Path, arguments: &Value) -> JsonClient {
    mcp_calls(python, dir, &[], std::slice::from_ref(arguments))
}

/// The same with `extra` server arguments and one call per item of `calls`,
/// in one session.
fn mcp_calls(python: &Path, dir: &Path, extra: &[&str], calls: &[Value]) -> JsonClient {
    let mut server_args = vec![
        // `env` carries the state folder: the SDK passes the server a short,
        // fixed environment of its own.
        format!("ASK_USER_STATE_DIR={}", dir.display()),
        bin().to_string(),
        "mcp".into(),
        "--fallback".into(),
        "inbox".into(),
        "--no-elicitation".into(),
    ];
    server_args.extend(extra.iter().map(|arg| arg.to_string()));
    let calls: Vec<Value> = calls
        .iter()
        .map(|arguments| json!({"arguments": arguments}))
        .collect();
    let scenario = json!({
        "binary": "/usr/bin/env",
        "server_args": server_args,
        "mode": "legacy",
        "elicit": false,
        "calls": calls,
    });
    json_client(
        Command::new(python).arg(tests_dir("mcp").join("py_client.py")),
        &scenario,
    )
}

fn mcp_without_an_inbox_is_a_no_inbox_error_result() {
    let python = mcp_python();
    let dir = state();
    let arguments: Value = serde_json::from_str(DATABASE).unwrap();
    let out = mcp_call(&python, dir.path(), &arguments).join().unwrap();
    let result = &out["results"][0];
    assert_eq!(result["is_error"], true, "{out}");
    // An error result carries its error document in the text block only.
    assert_eq!(result["structured"], Value::Null, "{out}");
    let document: Value = serde_json::from_str(result["texts"][0].as_str().unwrap()).unwrap();
    assert_eq!(document["status"], "error");
    assert_eq!(document["error"]["code"], "NO_INBOX");
    let message = document["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("start one with `ask_user inbox`"),
        "{message}"
    );
}

/// Where the browser playing `scenario` finds the inbox's URL.
fn url_file(scenario: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "ask-user-inbox-{}-{scenario}.url",
        std::process::id()
    ))
}

/// Writes `path` whole (a rename), so the driver never reads half of it.
fn write_whole(path: &Path, text: &str) {
    let partial = path.with_extension("part");
    std::fs::write(&partial, text).unwrap();
    std::fs::rename(&partial, path).unwrap();
}

/// Starts the browser on `scenario`, then hands it the inbox's URL.
fn browser_on(chromium: &Path, scenario: &str, inbox: &Inbox) -> Browser {
    let url_file = url_file(scenario);
    let browser = Browser::start(chromium, scenario, &url_file);
    write_whole(&url_file, &inbox.url);
    browser
}

/// Answers the scenario's `handshake` in tests/web/drive.mjs: it goes on.
fn go_on(scenario: &str) {
    let mut go = url_file(scenario).into_os_string();
    go.push(".go");
    write_whole(Path::new(&go), "");
}

fn three_askers_at_once_are_answered_in_the_page_in_reverse_order() {
    let chromium = chromium(&["playwright-core"]);
    let python = mcp_python();
    let dir = state();
    let inbox = Inbox::start(dir.path());
    // The page is open before any question: they arrive without a reload.
    let browser = browser_on(&chromium, "inbox-three", &inbox);

    let ask = Asker::ask(dir.path(), DATABASE, &[]);
    let arguments: Value = serde_json::from_str(EXTRAS).unwrap();
    let mcp = mcp_call(&python, dir.path(), &arguments);
    until(Duration::from_secs(30), "the MCP question", || {
        inbox.list().len() == 2
    });
    let mcp_id = inbox.ids()[1].clone();
    let mut execute = command(dir.path(), &[]);
    execute
        .env("TOOLBOX_ACTION", "execute")
        .env("ASK_USER_UI", "inbox");
    let execute = Asker::spawn(execute, NAME);
    assert_eq!(
        inbox.ids(),
        [ask.id.clone(), mcp_id.clone(), execute.id.clone()]
    );

    let said = browser.wait().assert_passed("inbox-three");
    eprint!("{said}");

    let execute_id = execute.id.clone();
    assert_eq!(
        execute.finish(),
        (
            0,
            answered_on(
                &execute_id,
                json!([{"questionId":"q1","values":["billing"]}]),
                common::answered_by("page")
            )
        )
    );
    let mcp = mcp.join().unwrap();
    let result = &mcp["results"][0];
    assert_eq!(result["is_error"], false, "{mcp}");
    assert_eq!(
        result["structured"],
        answered_on(
            &mcp_id,
            json!([{"questionId":"q1","values":["Redis","NATS"],"optionIds":["1","3"],
                    "note":"search can wait"}]),
            common::answered_by("page")
        )
    );
    let ask_id = ask.id.clone();
    assert_eq!(ask.finish(), (0, database_answer_on(&ask_id, 2, "page")));
    assert!(inbox.list().is_empty());
    inbox.stop();
}

fn the_page_works_with_the_keyboard_and_passes_axe_in_light_and_dark() {
    let chromium = chromium(&["playwright-core", "axe-core"]);
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let every_kind = std::fs::read_to_string(tests_dir("web").join("every-kind.json")).unwrap();
    let declined = Asker::ask(dir.path(), &every_kind, &["--timeout", "600"]);
    let keyboard = Asker::ask(
        dir.path(),
        r#"{"question":"Deploy where?","options":[{"label":"Staging","recommended":true},{"label":"Production"}]}"#,
        &[],
    );
    let browser = browser_on(&chromium, "inbox-keyboard-axe", &inbox);
    let said = browser.wait().assert_passed("inbox-keyboard-axe");
    eprint!("{said}");
    let id = keyboard.id.clone();
    assert_eq!(
        keyboard.finish(),
        (
            0,
            answered_on(
                &id,
                json!([{"questionId":"q1","values":["Production"],"optionIds":["2"]}]),
                common::answered_by("page")
            )
        )
    );
    let id = declined.id.clone();
    assert_eq!(
        declined.finish(),
        (130, unanswered(&id, true, Some("declined")))
    );
    inbox.stop();
}

// ---- Collect later and history (issue 13) ----

/// `{"resume": id}` through `ask --ui inbox` (plus `args`): (code, stdout).
fn resume(dir: &Path, id: &str, args: &[&str]) -> (i32, String) {
    let mut command = command(dir, &["ask", "--ui", "inbox", "-"]);
    command.args(args);
    run_with_input(&mut command, format!(r#"{{"resume":"{id}"}}"#).as_bytes())
}

/// A resume keeps `--timeout`: a limit ends it (the question kept), and 0
/// waits for as long as the person takes.
fn a_resume_keeps_its_own_timeout_and_zero_waits_for_the_answer() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &["--timeout", "1"]);
    let id = asker.id.clone();
    assert_eq!(asker.finish().0, 124);

    // Bounded: a resume that lost its limit would wait for ever.
    let mut limited = command(dir.path(), &["ask", "--ui", "inbox", "-", "--timeout", "1"]);
    let input = format!(r#"{{"resume":"{id}"}}"#);
    let (code, stdout) =
        run_with_input_within(&mut limited, input.as_bytes(), Duration::from_secs(20));
    assert_eq!(code, 124, "{stdout}");
    assert_kept(&document(&stdout), &unanswered(&id, false, None), "24 h");

    let folder = dir.path().to_path_buf();
    let waiting_id = id.clone();
    let waiting = std::thread::spawn(move || resume(&folder, &waiting_id, &["--timeout", "0"]));
    // Still waiting after longer than any limit it could have taken from 0.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        !waiting.is_finished(),
        "a resume with --timeout 0 ended on its own"
    );
    assert_eq!(
        run(dir.path(), &["inbox", "answer", &id, "--reply", "2"]).0,
        0
    );
    let (code, stdout) = waiting.join().unwrap();
    assert_eq!((code, document(&stdout)), (0, database_answer(&id, 2)));
    inbox.stop();
}

fn document(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout:?}"))
}

/// `inbox history` (plus `args`), one JSON value per line.
fn history(dir: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["inbox", "history"];
    all.extend_from_slice(args);
    let (code, stdout) = run(dir, &all);
    assert_eq!(code, 0, "{stdout}");
    stdout.lines().map(document).collect()
}

fn a_timed_out_question_is_answered_in_the_page_then_resumed_and_a_dismissed_one_resumes_cancelled()
{
    let chromium = chromium(&["playwright-core"]);
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let mut ids = Vec::new();
    for input in [DATABASE, EXTRAS] {
        let asker = Asker::ask(dir.path(), input, &["--timeout", "1"]);
        let id = asker.id.clone();
        let (code, document) = asker.finish();
        assert_eq!(code, 124);
        assert_kept(&document, &unanswered(&id, false, None), "24 h");
        ids.push(id);
    }
    // The page answers the first and dismisses the second, then searches History.
    let browser = browser_on(&chromium, "inbox-collect", &inbox);
    let said = browser.wait().assert_passed("inbox-collect");
    eprint!("{said}");
    // The answer, at once: nobody needs to be there any more.
    let (code, stdout) = resume(dir.path(), &ids[0], &[]);
    assert_eq!(
        (code, document(&stdout)),
        (0, database_answer_on(&ids[0], 2, "page"))
    );
    // Dismissed: cancelled, never an answer (resumed by execute this time).
    let mut execute = command(dir.path(), &[]);
    execute
        .env("TOOLBOX_ACTION", "execute")
        .env("ASK_USER_UI", "inbox");
    let input = format!(r#"{{"resume":"{}"}}"#, ids[1]);
    let (code, stdout) = run_with_input(&mut execute, input.as_bytes());
    assert_eq!(
        (code, document(&stdout)),
        (130, unanswered(&ids[1], true, Some("dismissed")))
    );
    let entries = history(dir.path(), &[]);
    let outcomes: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|e| {
            (
                e["inboxId"].as_str().unwrap(),
                e["outcome"].as_str().unwrap(),
                e["face"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            (ids[1].as_str(), "dismissed", "page"),
            (ids[0].as_str(), "answered", "page")
        ]
    );
    inbox.stop();
}

fn history_lists_every_outcome_exactly_and_expired_ids_are_unknown() {
    let dir = state();
    assert_error(
        run(dir.path(), &["inbox", "history"]),
        "NO_INBOX",
        "ask_user inbox",
    );
    let inbox = Inbox::start_with(
        dir.path(),
        &["--port", "0", "--asker-grace", "1", "--retention", "5s"],
    );
    assert!(history(dir.path(), &[]).is_empty());
    // (id, outcome, face, the document its asker got or gets on resume)
    let mut expected: Vec<(String, &str, &str, Value)> = Vec::new();

    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let id = asker.id.clone();
    assert_eq!(
        run(dir.path(), &["inbox", "answer", &id, "--reply", "1"]).0,
        0
    );
    let (code, got) = asker.finish();
    assert_eq!(code, 0);
    expected.push((id, "answered", "cli", got));

    // Declined, as the page sends it.
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let id = asker.id.clone();
    let declined = inbox.request("POST", &format!("/api/questions/{id}/decline"), "{}");
    assert_eq!(declined.status, 200, "{}", declined.body);
    let (code, got) = asker.finish();
    assert_eq!(code, 130);
    expected.push((id, "declined", "page", got));

    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let id = asker.id.clone();
    assert_eq!(run(dir.path(), &["inbox", "cancel", &id]).0, 0);
    let (code, got) = asker.finish();
    assert_eq!(code, 130);
    expected.push((id, "cancelled", "cli", got));

    // A killed asker's question: marked gone, answered, then resumed.
    let mut killed = Asker::ask(dir.path(), EXTRAS, &[]);
    let id = killed.id.clone();
    killed.child.kill().unwrap();
    killed.child.wait().unwrap();
    until(Duration::from_secs(20), "the asker gone mark", || {
        inbox
            .list()
            .iter()
            .any(|q| q["inboxId"] == id.as_str() && q.get("askerGone").is_some())
    });
    let (code, stdout) = run(dir.path(), &["inbox", "answer", &id, "--reply", "1,3"]);
    assert_eq!(code, 0);
    let answer = document(&stdout);
    let (code, stdout) = resume(dir.path(), &id, &[]);
    assert_eq!((code, document(&stdout)), (0, answer.clone()));
    assert_eq!(answer["answers"][0]["values"], json!(["Redis", "NATS"]));
    expected.push((id, "answered", "cli", answer));

    // Timed out, then dismissed in the page: a resume is cancelled.
    let asker = Asker::ask(dir.path(), DATABASE, &["--timeout", "1"]);
    let id = asker.id.clone();
    assert_eq!(asker.finish().0, 124);
    let dismissed = inbox.request("POST", &format!("/api/questions/{id}/dismiss"), "{}");
    assert_eq!(dismissed.status, 200, "{}", dismissed.body);
    let (code, stdout) = resume(dir.path(), &id, &[]);
    let got = document(&stdout);
    assert_eq!(
        (code, &got),
        (130, &unanswered(&id, true, Some("dismissed")))
    );
    expected.push((id.clone(), "dismissed", "page", got));
    let dismissed_id = id;

    // Nobody answers: a timed-out asker's question ends timed_out, a killed
    // one's asker_gone, once the retention time is over.
    let asker = Asker::ask(dir.path(), DATABASE, &["--timeout", "1"]);
    let timed_out = asker.id.clone();
    assert_eq!(asker.finish().0, 124);
    let mut killed = Asker::ask(dir.path(), DATABASE, &[]);
    let gone = killed.id.clone();
    killed.child.kill().unwrap();
    killed.child.wait().unwrap();
    until(Duration::from_secs(30), "the retention's end", || {
        history(dir.path(), &[]).len() == 7
    });
    expected.push((
        timed_out.clone(),
        "timed_out",
        "inbox",
        unanswered(&timed_out, false, None),
    ));
    expected.push((
        gone.clone(),
        "asker_gone",
        "inbox",
        unanswered(&gone, true, Some("asker gone")),
    ));
    assert!(inbox.list().is_empty());

    // Expired and unknown ids: UNKNOWN_QUESTION, exit 1.
    for id in [&timed_out, &gone, &expected[0].0] {
        assert_error(
            resume(dir.path(), id, &[]),
            "UNKNOWN_QUESTION",
            "has expired: the inbox keeps a question 5 s",
        );
    }
    assert_error(
        resume(dir.path(), "7hq2k9mc", &[]),
        "UNKNOWN_QUESTION",
        "has no question \"7hq2k9mc\"",
    );

    // History: every outcome, exactly, the most recently closed first.
    let entries = history(dir.path(), &[]);
    assert_eq!(entries.len(), expected.len());
    let mut decided_before = None;
    for entry in &entries {
        let keys: Vec<&str> = entry
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "inboxId",
                "source",
                "askedAt",
                "outcome",
                "face",
                "decidedAt",
                "question",
                "answer"
            ]
        );
        let id = entry["inboxId"].as_str().unwrap();
        let (_, outcome, face, answer) = expected.iter().find(|(e, ..)| e == id).unwrap();
        assert_eq!(
            (entry["outcome"].as_str(), entry["face"].as_str()),
            (Some(*outcome), Some(*face)),
            "{id}"
        );
        assert_eq!(&entry["answer"], answer, "{id}");
        assert!(entry["source"]["pid"].as_u64().is_some(), "{entry}");
        let question = entry["question"]["prompt"]["question"].as_str().unwrap();
        assert!(
            ["Which database?", "Which extras?"].contains(&question),
            "{entry}"
        );
        let (asked, decided) = (
            entry["askedAt"].as_str().unwrap(),
            entry["decidedAt"].as_str().unwrap(),
        );
        assert!(asked.ends_with('Z') && asked <= decided, "{entry}");
        if let Some(before) = decided_before {
            assert!(decided <= before, "newest first: {entries:?}");
        }
        decided_before = Some(decided);
    }
    let mut outcomes: Vec<&str> = entries
        .iter()
        .map(|e| e["outcome"].as_str().unwrap())
        .collect();
    outcomes.sort_unstable();
    assert_eq!(
        outcomes,
        [
            "answered",
            "answered",
            "asker_gone",
            "cancelled",
            "declined",
            "dismissed",
            "timed_out"
        ]
    );
    assert_eq!(history(dir.path(), &["--limit", "2"]), entries[..2]);
    assert!(history(dir.path(), &["--limit", "0"]).is_empty());
    // Never rewritten: later answers are refused and change nothing.
    assert_error(
        run(
            dir.path(),
            &["inbox", "answer", &dismissed_id, "--reply", "1"],
        ),
        "ALREADY_ANSWERED",
        "dismissed in the page",
    );
    assert_error(
        run(dir.path(), &["inbox", "cancel", &timed_out]),
        "ALREADY_ANSWERED",
        "timed out",
    );
    let refused = inbox.request("POST", &format!("/api/questions/{gone}/dismiss"), "{}");
    assert_eq!(refused.status, 409);
    assert_eq!(history(dir.path(), &[]), entries);
    // The route's own check of a limit the CLI would refuse.
    let bad = inbox.request("GET", "/api/history?limit=many", "");
    assert_eq!(bad.status, 422);
    let error = document(&bad.body);
    assert_eq!(
        (
            error["error"]["code"].as_str(),
            error["error"]["path"].as_str()
        ),
        (Some("INVALID_FIELD"), Some("limit"))
    );
    // Usage errors: exit 2, nothing on stdout.
    for args in [
        &["inbox", "history", "--limit", "many"][..],
        &["inbox", "history", "--limit", "-1"],
        &["inbox", "--retention", "0"],
        &["inbox", "--retention", "soon"],
        &["inbox", "--retention", "400d"],
    ] {
        let out = command(dir.path(), args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(
            (out.status.code(), out.stdout.as_slice()),
            (Some(2), &b""[..]),
            "{args:?}"
        );
        let said = String::from_utf8_lossy(&out.stderr);
        if args[1] == "--retention" {
            assert!(
                said.contains("like 90, 90s, 30m, 24h")
                    || said.contains("from 1 second to 365 days"),
                "{said}"
            );
        }
    }
    inbox.stop();
}

fn an_mcp_call_times_out_and_resumes_through_the_python_sdk() {
    let python = mcp_python();
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let arguments: Value = serde_json::from_str(DATABASE).unwrap();
    let out = mcp_calls(&python, dir.path(), &["--timeout", "1"], &[arguments])
        .join()
        .unwrap();
    // The tool advertises resume, and requires neither field on its own.
    let schema = &out["tools"][0]["inputSchema"];
    assert_eq!(schema["properties"]["resume"]["type"], "string", "{schema}");
    assert!(schema.get("required").is_none(), "{schema}");
    let result = &out["results"][0];
    assert_eq!(result["is_error"], false, "{out}");
    let structured = &result["structured"];
    let id = structured["inboxId"].as_str().unwrap().to_string();
    let hint = assert_kept(structured, &unanswered(&id, false, None), "24 h");
    // The model reads the hint as text of its own, beside the document.
    assert_eq!(result["texts"].as_array().unwrap().len(), 2, "{result}");
    assert_eq!(document(result["texts"][0].as_str().unwrap()), *structured);
    assert_eq!(result["texts"][1], hint.as_str());
    assert_eq!(inbox.list()[0]["askerGone"]["reason"], "timeout");
    assert_eq!(
        run(dir.path(), &["inbox", "answer", &id, "--reply", "2"]).0,
        0
    );
    // A new session, as a model's next turn would be: resume, and an unknown id.
    let out = mcp_calls(
        &python,
        dir.path(),
        &[],
        &[json!({"resume": id}), json!({"resume": "7hq2k9mc"})],
    )
    .join()
    .unwrap();
    let resumed = &out["results"][0];
    assert_eq!(resumed["is_error"], false, "{out}");
    assert_eq!(resumed["structured"], database_answer(&id, 2));
    assert_eq!(resumed["texts"].as_array().unwrap().len(), 1, "{resumed}");
    let unknown = &out["results"][1];
    assert_eq!(unknown["is_error"], true, "{out}");
    let error = document(unknown["texts"][0].as_str().unwrap());
    assert_eq!(error["error"]["code"], "UNKNOWN_QUESTION");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("has no question"),
        "{error}"
    );
    inbox.stop();
}

// ---- Attention and metrics (issue 13) ----

/// The inbox's stderr lines from now on, on a channel (read by a thread of
/// its own, so that waiting for a line can time out).
fn stderr_lines(inbox: &Inbox) -> std::sync::mpsc::Receiver<String> {
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

/// The next line that contains `needle` (the ones before it are skipped).
fn said(lines: &std::sync::mpsc::Receiver<String>, needle: &str) -> String {
    said_within(lines, needle, Duration::from_secs(60))
}

/// As [`said`], with no more than `limit` between two lines.
fn said_within(lines: &std::sync::mpsc::Receiver<String>, needle: &str, limit: Duration) -> String {
    loop {
        let line = lines
            .recv_timeout(limit)
            .unwrap_or_else(|_| panic!("the inbox never said {needle:?}"));
        if line.contains(needle) {
            return line;
        }
    }
}

/// As [`said`], and no line on the way contains `unwanted`.
fn said_without(lines: &std::sync::mpsc::Receiver<String>, needle: &str, unwanted: &str) -> String {
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the inbox never said {needle:?}"));
        assert!(!line.contains(unwanted), "before {needle:?}: {line}");
        if line.contains(needle) {
            return line;
        }
    }
}

/// Whether process `pid` exists and is not a zombie.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

fn the_notify_command_gets_each_new_questions_prompt_document() {
    let dir = state();
    let out = tempfile::tempdir().unwrap();
    // Written whole (mv), so a file that exists is complete.
    let notify = format!(
        r#"cd '{}' && cat > "$ASK_USER_INBOX_ID.part" && printf '%s|%s' "$ASK_USER_QUESTION" "$ASK_USER_ASKER" > "$ASK_USER_INBOX_ID.env" && mv "$ASK_USER_INBOX_ID.part" "$ASK_USER_INBOX_ID.json""#,
        out.path().display()
    );
    let inbox = Inbox::start_with(dir.path(), &["--port", "0", "--notify", &notify]);
    let mut ask = command(dir.path(), &["ask", "--ui", "inbox", "-"]);
    ask.env("ASK_USER_SOURCE", "notify-test");
    let asker = Asker::spawn(ask, DATABASE);
    let got = out.path().join(format!("{}.json", asker.id));
    until(Duration::from_secs(30), "the notify command", || {
        got.exists()
    });
    // Byte for byte what `ask_user prompt` prints for the same input.
    let (code, prompt) = run_with_input(&mut command(dir.path(), &["prompt"]), DATABASE.as_bytes());
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&got).unwrap(), prompt);
    let env = std::fs::read_to_string(out.path().join(format!("{}.env", asker.id))).unwrap();
    assert_eq!(env, "Which database?|notify-test");
    let id = asker.id.clone();
    assert_eq!(
        run(dir.path(), &["inbox", "answer", &id, "--reply", "2"]).0,
        0
    );
    assert_eq!(asker.finish(), (0, database_answer(&id, 2)));
    // One run for one question.
    let files = std::fs::read_dir(out.path()).unwrap().count();
    assert_eq!(files, 2);
    inbox.stop();
}

fn a_failing_or_slow_notify_command_changes_nothing_and_is_logged() {
    let dir = state();
    let out = tempfile::tempdir().unwrap();
    let pid_file = out.path().join("slow.pid");
    let script = format!(
        r#"case "$ASK_USER_QUESTION" in
  Fail*) echo "the bridge says no" >&2; exit 3 ;;
  Slow*) sleep 600 & echo $! > '{0}.part' && mv '{0}.part' '{0}'; wait ;;
esac"#,
        pid_file.display()
    );
    // ASK_USER_NOTIFY_CMD stands for --notify.
    let mut start = command(
        dir.path(),
        &["inbox", "--port", "0", "--notify-timeout", "8"],
    );
    start.env("ASK_USER_NOTIFY_CMD", &script);
    let inbox = Inbox::spawn(dir.path(), start);
    let lines = stderr_lines(&inbox);

    // A command that succeeds is not logged (checked below: every --notify line
    // is one of the two expected, and none is left after the inbox stops).
    let quiet = Asker::ask(
        dir.path(),
        r#"{"question":"Quiet bridge?","options":["PostgreSQL","SQLite"]}"#,
        &[],
    );
    let id = quiet.id.clone();
    assert_eq!(
        run(dir.path(), &["inbox", "answer", &id, "--reply", "1"]).0,
        0
    );
    assert_eq!(quiet.finish(), (0, database_answer(&id, 1)));

    let failing = Asker::ask(
        dir.path(),
        r#"{"question":"Fail the bridge?","options":["PostgreSQL","SQLite"]}"#,
        &[],
    );
    // Its own stderr reaches the inbox's, then the inbox says it failed; the
    // quiet command said nothing on the way.
    said_without(&lines, "the bridge says no", "--notify");
    assert_eq!(
        said(&lines, "--notify"),
        format!(
            "ask_user inbox: --notify command failed for question {} (exit status: 3)",
            failing.id
        )
    );
    assert_eq!(inbox.ids(), std::slice::from_ref(&failing.id));
    let id = failing.id.clone();
    assert_eq!(
        run(dir.path(), &["inbox", "answer", &id, "--reply", "1"]).0,
        0
    );
    assert_eq!(failing.finish(), (0, database_answer(&id, 1)));

    let slow = Asker::ask(
        dir.path(),
        r#"{"question":"Slow bridge?","options":["PostgreSQL","SQLite"]}"#,
        &[],
    );
    until(Duration::from_secs(30), "the slow command", || {
        pid_file.exists()
    });
    let sleeper: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Answered while the command runs: the answer does not wait for it.
    let id = slow.id.clone();
    assert_eq!(
        run(dir.path(), &["inbox", "answer", &id, "--reply", "2"]).0,
        0
    );
    assert_eq!(slow.finish(), (0, database_answer(&id, 2)));
    assert!(alive(sleeper), "the slow command ended before the answer");
    // Within the 8 s limit and a margin: a command not killed must fail
    // this test well inside a mutants run's time limit.
    assert_eq!(
        said_within(&lines, "--notify", Duration::from_secs(20)),
        format!(
            "ask_user inbox: --notify command for question {id} ran longer than 8 s and was killed"
        )
    );
    // Killed with its process group: the shell's own child too.
    until(
        Duration::from_secs(10),
        "the slow command's child to end",
        || !alive(sleeper),
    );
    inbox.stop();
    // Read to the end of the inbox's stderr (or 10 s of silence).
    let mut rest = Vec::new();
    while let Ok(line) = lines.recv_timeout(Duration::from_secs(10)) {
        if line.contains("--notify") {
            rest.push(line);
        }
    }
    assert!(rest.is_empty(), "{rest:?}");
}

fn notify_timeout_out_of_range_is_a_usage_error() {
    let dir = state();
    for limit in ["0", "3601", "soon"] {
        let out = command(dir.path(), &["inbox", "--notify-timeout", limit])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{limit}");
        assert_eq!(out.stdout, b"");
        let stderr = String::from_utf8(out.stderr).unwrap();
        let want = if limit == "soon" {
            "is not a number of seconds"
        } else {
            "is out of range: give more than 0 and at most 3600 seconds"
        };
        assert!(stderr.contains(want), "{stderr}");
    }
}

/// `/metrics` read by Prometheus's own Python parser: every sample as
/// (name, labels, value).
fn parse_metrics(python: &Path, text: &str) -> Vec<(String, Value, f64)> {
    let script = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
print(json.dumps([[s.name, s.labels, s.value, f.type]
                  for f in text_string_to_metric_families(sys.stdin.read()) for s in f.samples]))
"#;
    let (code, out) = run_with_input(Command::new(python).args(["-c", script]), text.as_bytes());
    assert_eq!(
        code, 0,
        "the parser refused:
{text}"
    );
    let samples: Vec<(String, Value, f64, String)> = serde_json::from_str(&out).unwrap();
    let types: Vec<(&str, &str)> = samples
        .iter()
        .map(|(name, _, _, kind)| (name.as_str(), kind.as_str()))
        .collect();
    for (name, kind) in types {
        let want = if name.starts_with("mcp_question_latency_ms")
            || name.starts_with("mcp_store_latency_ms")
        {
            "histogram"
        } else if matches!(name, "mcp_inbox_replicas" | "mcp_store_reachable") {
            "gauge"
        } else {
            "counter"
        };
        assert_eq!(kind, want, "{name}");
    }
    samples
        .into_iter()
        .map(|(name, labels, value, _)| (name, labels, value))
        .collect()
}

fn metrics_count_the_tests_asks_by_face_for_the_token_holder() {
    let python = prometheus_python();
    let dir = state();
    let started = Instant::now();
    let inbox = Inbox::start(dir.path());
    // ask, answered from a terminal (inbox answer).
    let answered = Asker::ask(dir.path(), DATABASE, &[]);
    let answered_id = answered.id.clone();
    assert_eq!(
        run(
            dir.path(),
            &["inbox", "answer", &answered_id, "--reply", "2"]
        )
        .0,
        0
    );
    assert_eq!(answered.finish().0, 0);
    // execute with ASK_USER_UI=inbox, cancelled from a terminal.
    let mut execute = command(dir.path(), &[]);
    execute
        .env("TOOLBOX_ACTION", "execute")
        .env("ASK_USER_UI", "inbox");
    let cancelled = Asker::spawn(execute, NAME);
    assert_eq!(run(dir.path(), &["inbox", "cancel", &cancelled.id]).0, 0);
    assert_eq!(cancelled.finish().0, 130);
    // ask, timed out by its own --timeout.
    let timed_out = Asker::ask(dir.path(), EXTRAS, &["--timeout", "1"]);
    assert_eq!(timed_out.finish().0, 124);
    // ask, refused a bad reply, then declined in the page.
    let declined = Asker::ask(dir.path(), DATABASE, &[]);
    let refused = inbox.request(
        "POST",
        &format!("/api/questions/{}/reply", declined.id),
        r#"{"replies":["9"]}"#,
    );
    assert_eq!(refused.status, 422, "{}", refused.body);
    let decline = format!("/api/questions/{}/decline", declined.id);
    assert_eq!(inbox.request("POST", &decline, "{}").status, 200);
    assert_eq!(declined.finish().0, 130);
    // Errors: an unknown question, a second answer.
    assert_error(
        run(dir.path(), &["inbox", "answer", "zzzzzzzz", "--reply", "1"]),
        "UNKNOWN_QUESTION",
        "the inbox has no question",
    );
    assert_error(
        run(
            dir.path(),
            &["inbox", "answer", &answered_id, "--reply", "1"],
        ),
        "ALREADY_ANSWERED",
        "answered from a terminal",
    );

    let scraped = inbox.send(
        "GET",
        "/metrics",
        &[
            ("Host", &inbox.host()),
            ("Authorization", &format!("Bearer {}", inbox.token)),
        ],
        b"",
    );
    assert_eq!(scraped.status, 200, "{}", scraped.body);
    assert_eq!(
        scraped.header("Content-Type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    assert_eq!(scraped.header("Cache-Control"), Some("no-store"));
    assert_eq!(inbox.request("POST", "/metrics", "{}").status, 405);
    let samples = parse_metrics(&python, &scraped.body);
    let series = |prefix: &str| -> Vec<(Value, f64)> {
        samples
            .iter()
            .filter(|(name, _, _)| name == prefix)
            .map(|(_, labels, value)| (labels.clone(), *value))
            .collect()
    };
    assert_eq!(
        series("mcp_tool_calls_total"),
        [
            (json!({"face":"ask"}), 3.0),
            (json!({"face":"execute"}), 1.0),
            (json!({"face":"mcp"}), 0.0),
        ]
    );
    let mut closed = series("mcp_questions_closed_total");
    closed.sort_by_key(|(labels, _)| labels.to_string());
    assert_eq!(
        closed,
        [
            (json!({"face":"ask","outcome":"answered","by":"cli"}), 1.0),
            (json!({"face":"ask","outcome":"declined","by":"page"}), 1.0),
            (
                json!({"face":"execute","outcome":"cancelled","by":"cli"}),
                1.0
            ),
        ]
    );
    // The timed-out asker gave up; its question stays open (collect later).
    assert_eq!(
        series("mcp_askers_gone_total"),
        [(json!({"face":"ask","reason":"timeout"}), 1.0)]
    );
    let mut errors = series("mcp_errors_total");
    errors.sort_by_key(|(labels, _)| labels.to_string());
    assert_eq!(
        errors,
        [
            (json!({"code":"ALREADY_ANSWERED"}), 1.0),
            (json!({"code":"INVALID_REPLY"}), 1.0),
            (json!({"code":"UNKNOWN_QUESTION"}), 1.0),
        ]
    );
    // One answer: in the histogram, within the test's own time.
    assert_eq!(series("mcp_question_latency_ms_count"), [(json!({}), 1.0)]);
    let sum = series("mcp_question_latency_ms_sum")[0].1;
    assert!(
        sum >= 0.0 && sum <= started.elapsed().as_millis() as f64,
        "{sum}"
    );
    let buckets = series("mcp_question_latency_ms_bucket");
    assert_eq!(buckets.last().unwrap(), &(json!({"le":"+Inf"}), 1.0));
    assert!(
        buckets.windows(2).all(|w| w[0].1 <= w[1].1),
        "cumulative: {buckets:?}"
    );
    let placed = buckets
        .iter()
        .find(|(_, n)| *n == 1.0)
        .map(|(labels, _)| {
            labels["le"]
                .as_str()
                .unwrap()
                .parse::<f64>()
                .unwrap_or(f64::INFINITY)
        })
        .unwrap();
    assert!(sum <= placed, "{sum} ms is not in the bucket le={placed}");
    // The store: one replica (SQLite), reachable; its calls timed by
    // operation: four asks, three outcomes written, one asker gone.
    assert_eq!(
        series("mcp_inbox_replicas"),
        [(json!({"store":"sqlite"}), 1.0)]
    );
    assert_eq!(
        series("mcp_store_reachable"),
        [(json!({"store":"sqlite"}), 1.0)]
    );
    let store_calls = series("mcp_store_latency_ms_count");
    for (op, n) in [("ask", 4.0), ("decide", 3.0), ("mark_gone", 1.0)] {
        assert!(
            store_calls.contains(&(json!({ "op": op }), n)),
            "{op}: {store_calls:?}"
        );
    }
    let inf = series("mcp_store_latency_ms_bucket")
        .into_iter()
        .filter(|(labels, _)| labels["le"] == "+Inf")
        .count();
    assert_eq!(inf, store_calls.len(), "one +Inf bucket per operation");
    inbox.stop();
}

fn the_page_notifies_after_permission_with_a_tone_and_the_count_in_its_title() {
    let chromium = chromium(&["playwright-core"]);
    let dir = state();
    let inbox = Inbox::start(dir.path());
    // Waiting before the page opens: counted in the title, never announced.
    let waiting = Asker::ask(dir.path(), DATABASE, &[]);
    let mut browser = browser_on(&chromium, "inbox-attention", &inbox);
    assert_eq!(browser.said_line(), "alerts on");
    let mut ask = command(dir.path(), &["ask", "--ui", "inbox", "-"]);
    ask.env("ASK_USER_SOURCE", "attention-test");
    let new = Asker::spawn(ask, NAME);
    let said = browser.wait().assert_passed("inbox-attention");
    eprint!("{said}");
    for asker in [waiting, new] {
        let id = asker.id.clone();
        assert_eq!(
            asker.finish(),
            (130, unanswered(&id, true, Some("declined")))
        );
    }
    inbox.stop();
}

/// An asker leaves (SIGTERM: a host ending the call) while the page shows
/// its card: the card then says until when the question is kept, not only
/// that the asker is away (tests/web/drive.mjs "inbox-away").
fn a_card_whose_asker_leaves_says_how_long_it_is_kept() {
    const SCENARIO: &str = "inbox-away";
    let chromium = chromium(&["playwright-core"]);
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let asker = Asker::ask(dir.path(), DATABASE, &[]);
    let mut browser = browser_on(&chromium, SCENARIO, &inbox);
    assert_eq!(browser.said_line(), "shown");
    signal(asker.child.id(), "TERM");
    let id = asker.id.clone();
    let (code, document) = asker.finish();
    assert_eq!(code, 130);
    assert_kept(&document, &unanswered(&id, true, None), "24 h");
    go_on(SCENARIO);
    let said = browser.wait().assert_passed(SCENARIO);
    eprint!("{said}");
    inbox.stop();
}

/// The page's event stream drops twice: the inbox restarts on its port and
/// state folder, while the browser is held offline so that the page cannot
/// reconnect before the test lets it. Two questions are asked during the
/// first drop, none during the second. The page announces the two once
/// each when it is back, and never the question it showed before
/// (tests/web/drive.mjs "inbox-reconnect" checks what it heard).
fn questions_asked_while_the_page_reconnects_are_announced_once_each() {
    const SCENARIO: &str = "inbox-reconnect";
    let chromium = chromium(&["playwright-core"]);
    let dir = state();
    let mut inbox = Inbox::start(dir.path());
    let port = inbox.port.to_string();
    let shown = Asker::ask(dir.path(), DATABASE, &[]);
    let mut browser = browser_on(&chromium, SCENARIO, &inbox);
    let mut askers = vec![shown];
    for (round, asked) in [("two asked", vec![NAME, EXTRAS]), ("nothing new", vec![])] {
        assert_eq!(browser.said_line(), format!("offline: {round}"));
        inbox.stop();
        inbox = Inbox::start_with(dir.path(), &["--port", &port]);
        for input in asked {
            askers.push(Asker::ask(dir.path(), input, &[]));
        }
        let ids: Vec<String> = askers.iter().map(|asker| asker.id.clone()).collect();
        until(Duration::from_secs(30), "the three questions", || {
            inbox.ids() == ids
        });
        go_on(SCENARIO);
    }
    let said = browser.wait().assert_passed(SCENARIO);
    eprint!("{said}");
    for asker in askers {
        let id = asker.id.clone();
        assert_eq!(
            asker.finish(),
            (130, unanswered(&id, true, Some("declined")))
        );
    }
    inbox.stop();
}

/// `ask_user inbox token add ROLE NAME` in `dir`: the new token.
fn add_token(dir: &Path, role: &str, name: &str) -> String {
    let out = command(dir, &["inbox", "token", "add", role, name])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let added: Value = serde_json::from_slice(&out.stdout).unwrap();
    added["token"].as_str().unwrap().to_string()
}

/// `GET`/`POST /api/away` (the page's away switch) read and write away.json
/// in the state folder, for the inbox's own token and a person's; an asker's
/// token may neither read nor set it; a bad body is refused and changes nothing.
fn the_away_route_keeps_away_json_for_the_owner_and_a_person_not_an_asker() {
    let dir = state();
    let person = add_token(dir.path(), "person", "Ada");
    let asker = add_token(dir.path(), "asker", "ci");
    let inbox = Inbox::start(dir.path());
    let file = dir.path().join("away.json");
    let as_holder = |token: &str, method: &str, body: &str| {
        let response = same_origin_request(inbox.port, token, method, "/api/away", body);
        let value: Value = serde_json::from_str(&response.body)
            .unwrap_or_else(|e| panic!("{e}: {}", response.body));
        (response.status, value)
    };
    // No file: at the keyboard, never set; nothing is written by reading.
    assert_eq!(
        as_holder(&inbox.token, "GET", ""),
        (200, json!({"away": false}))
    );
    assert!(!file.exists());
    let (status, set) = as_holder(&inbox.token, "POST", r#"{"away": true}"#);
    assert_eq!((status, &set["away"]), (200, &json!(true)), "{set}");
    assert!(set["since"].as_u64().unwrap() > 1_700_000_000_000);
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(kept, set);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // A person (a paired phone) reads and sets the same state.
    assert_eq!(as_holder(&person, "GET", ""), (200, set.clone()));
    let (status, off) = as_holder(&person, "POST", r#"{"away": false}"#);
    assert_eq!((status, &off["away"]), (200, &json!(false)));
    // An asker may not: 403 FORBIDDEN, and the state stays.
    for (method, body) in [("GET", ""), ("POST", r#"{"away": true}"#)] {
        let (status, refused) = as_holder(&asker, method, body);
        assert_eq!(status, 403, "{method}: {refused}");
        assert_eq!(refused["error"]["code"], "FORBIDDEN");
        assert_eq!(
            refused["error"]["message"],
            "\"ci\" holds an asker's token: it asks, and waits for, resumes or leaves its own questions, nothing else"
        );
    }
    for body in [
        r#"{"away": "yes"}"#,
        r#"{"away": true, "x": 1}"#,
        "[true]",
        "{}",
    ] {
        let (status, refused) = as_holder(&inbox.token, "POST", body);
        assert_eq!(status, 400, "{body}: {refused}");
        assert_eq!(refused["error"]["code"], "INVALID_JSON");
    }
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(now, off);
    // Another method: 405.
    let response = same_origin_request(inbox.port, &inbox.token, "PUT", "/api/away", "{}");
    assert_eq!(response.status, 405);
    // A file that is not an away state: a READ_ERROR naming it; POST writes it anew.
    std::fs::write(&file, "not json").unwrap();
    let (status, error) = as_holder(&inbox.token, "GET", "");
    assert_eq!(status, 422, "{error}");
    assert_eq!(error["error"]["code"], "READ_ERROR");
    assert_eq!(error["error"]["path"], file.to_str().unwrap());
    assert_eq!(as_holder(&inbox.token, "POST", r#"{"away": true}"#).0, 200);
    inbox.stop();
}

/// The switch on the page shows and sets the away state
/// (tests/web/drive.mjs "inbox-away-switch"): by a click, and after a
/// reload that shows what the file says, by the keyboard.
fn the_page_switch_shows_and_sets_away() {
    const SCENARIO: &str = "inbox-away-switch";
    let chromium = chromium(&["playwright-core", "axe-core"]);
    let dir = state();
    let inbox = Inbox::start(dir.path());
    let file = dir.path().join("away.json");
    let away =
        || -> Value { serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap() };
    let mut browser = browser_on(&chromium, SCENARIO, &inbox);
    let axe = browser.said_line();
    assert!(
        axe.starts_with("axe: no serious or critical violations"),
        "{axe}"
    );
    assert_eq!(browser.said_line(), "away on");
    assert_eq!(away()["away"], true);
    std::fs::write(&file, "{\"away\":false,\"since\":1}\n").unwrap();
    go_on(SCENARIO);
    assert_eq!(browser.said_line(), "away on again");
    assert_eq!(away()["away"], true);
    go_on(SCENARIO);
    let said = browser.wait().assert_passed(SCENARIO);
    eprint!("{said}");
    inbox.stop();
}

common::harness::main!(
    a_card_whose_asker_leaves_says_how_long_it_is_kept,
    inbox_answer_and_inbox_cancel_from_another_process_give_0_and_130,
    every_error_of_the_verbs_has_its_code_message_and_exit_code,
    the_state_folder_defaults_to_xdg_state_home_then_home,
    askers_without_an_inbox_say_no_inbox_or_fall_back,
    ask_auto_and_execute_with_ask_user_ui_go_to_the_running_inbox,
    the_askers_own_timeout_signals_and_kill_leave_its_question_as_collect_later_says,
    two_answers_at_once_the_first_wins,
    kill_9_with_three_pending_then_a_restart_loses_none,
    #[cfg(target_os = "linux")]
    askers_waiting_on_a_stopped_inbox_neither_spin_nor_give_up,
    #[cfg(unix)]
    a_stale_inbox_json_is_no_inbox_and_a_new_inbox_replaces_it,
    a_taken_port_and_a_second_inbox_are_web_errors,
    the_token_survives_a_restart_and_new_token_rotates_it,
    nothing_without_the_token_reads_or_answers_a_question,
    stalled_bodies_on_refused_requests_hold_up_nothing,
    huge_and_absurd_declared_lengths_are_refused_and_the_inbox_lives,
    tokenless_requests_never_lock_out_the_person_or_the_askers,
    #[cfg(target_os = "linux")]
    an_endless_header_line_is_cut_and_memory_stays_bounded,
    a_whole_tool_input_fits_an_ask_and_more_is_refused,
    mcp_without_an_inbox_is_a_no_inbox_error_result,
    three_askers_at_once_are_answered_in_the_page_in_reverse_order,
    the_page_works_with_the_keyboard_and_passes_axe_in_light_and_dark,
    a_timed_out_question_is_answered_in_the_page_then_resumed_and_a_dismissed_one_resumes_cancelled,
    history_lists_every_outcome_exactly_and_expired_ids_are_unknown,
    a_resume_keeps_its_own_timeout_and_zero_waits_for_the_answer,
    an_mcp_call_times_out_and_resumes_through_the_python_sdk,
    the_notify_command_gets_each_new_questions_prompt_document,
    a_failing_or_slow_notify_command_changes_nothing_and_is_logged,
    notify_timeout_out_of_range_is_a_usage_error,
    metrics_count_the_tests_asks_by_face_for_the_token_holder,
    the_page_notifies_after_permission_with_a_tone_and_the_count_in_its_title,
    questions_asked_while_the_page_reconnects_are_announced_once_each,
    the_away_route_keeps_away_json_for_the_owner_and_a_person_not_an_asker,
    the_page_switch_shows_and_sets_away,
);
