//! `ask_user away on|off|status` and `ask_user hook claude-code` (issue 38)
//! as plain CLI runs: the away document and its errors; the hook's bad
//! inputs (one line on stderr, exit 1: Claude Code's non-blocking error),
//! stepping aside at the keyboard or without an inbox, and asking in a real
//! inbox while away (answered, timed out) for `AskUserQuestion` and for an
//! `Elicitation` form. Claude Code itself runs these hooks in tests/hosts.rs.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use common::inbox::{Asker, Inbox, assert_error, command, run, signal, state};
use common::process::ChildGuard;

/// `ask_user ARGS` with `input` on stdin in state folder `dir`: (code, stdout, stderr).
fn run_fed(dir: &Path, args: &[&str], input: &[u8]) -> (i32, String, String) {
    run_command(command(dir, args), input)
}

fn run_command(mut command: Command, input: &[u8]) -> (i32, String, String) {
    use std::io::Write;
    let mut child = ChildGuard::spawn(
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .unwrap();
    let _ = child.stdin.take().unwrap().write_all(input);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn hook(dir: &Path, event: &Value) -> (i32, String, String) {
    run_fed(dir, &["hook", "claude-code"], event.to_string().as_bytes())
}

fn questions() -> Value {
    json!({"questions": [{"question": "Which database?", "header": "Database",
        "multiSelect": false, "options": [
            {"label": "SQLite", "description": "one file"},
            {"label": "Postgres", "description": "a server"}]}]})
}

fn ask_event(input: Value) -> Value {
    json!({"session_id": "s1", "cwd": "/tmp/project", "hook_event_name": "PreToolUse",
           "tool_name": "AskUserQuestion", "tool_input": input, "tool_use_id": "toolu_1"})
}

fn form_event() -> Value {
    json!({"session_id": "s1", "cwd": "/tmp/project", "hook_event_name": "Elicitation",
           "mcp_server_name": "other", "mode": "form", "message": "Pick a database",
           "requested_schema": {"type": "object", "properties": {
               "db": {"type": "string", "title": "Database", "oneOf": [
                   {"const": "sqlite", "title": "SQLite"}, {"const": "pg", "title": "Postgres"}]}},
               "required": ["db"]}})
}

fn document(stdout: &str) -> Value {
    assert_eq!(stdout.matches('\n').count(), 1, "{stdout:?}");
    serde_json::from_str(stdout).unwrap()
}

// ---- ask_user away ----

fn away_on_off_and_status_print_the_state_document() {
    let dir = state();
    let (code, out) = run(dir.path(), &["away", "status"]);
    assert_eq!(code, 0);
    assert_eq!(
        document(&out),
        json!({"tool": "ask_user", "version": 1, "status": "ok", "away": false})
    );
    let (code, out) = run(dir.path(), &["away", "on"]);
    assert_eq!(code, 0);
    let on = document(&out);
    assert_eq!(on["away"], true);
    assert!(on["since"].as_u64().unwrap() > 1_700_000_000_000, "{on}");
    let keys: Vec<&String> = on.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["tool", "version", "status", "away", "since"]);
    assert_eq!(document(&run(dir.path(), &["away", "status"]).1), on);
    let (code, out) = run(dir.path(), &["away", "off"]);
    assert_eq!(code, 0);
    assert_eq!(document(&out)["away"], false);
    let file = std::fs::read_to_string(dir.path().join("away.json")).unwrap();
    assert!(file.starts_with("{\"away\":false,\"since\":"), "{file}");
}

fn away_without_a_state_folder_is_config_error() {
    let dir = state();
    let mut away = command(dir.path(), &["away", "on"]);
    away.env_remove("ASK_USER_STATE_DIR")
        .env_remove("XDG_STATE_HOME")
        .env_remove("HOME");
    let out = away.stdin(Stdio::null()).output().unwrap();
    let result = (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    );
    assert_error(
        result,
        "CONFIG_ERROR",
        "no state folder is known for the away state: set ASK_USER_STATE_DIR",
    );
}

fn away_status_of_a_malformed_file_is_config_error_naming_it() {
    let dir = state();
    std::fs::write(dir.path().join("away.json"), "yes please").unwrap();
    let result = run(dir.path(), &["away", "status"]);
    assert_error(result, "CONFIG_ERROR", "away.json is not an away state");
    let (_, out) = run(dir.path(), &["away", "status"]);
    assert!(out.contains("run `ask_user away on` or `ask_user away off`"));
}

fn away_on_where_the_folder_cannot_be_made_is_write_error() {
    let dir = state();
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, "").unwrap();
    let result = run(&blocker.join("state"), &["away", "on"]);
    assert_error(result, "WRITE_ERROR", "cannot use");
}

fn away_status_of_an_unreadable_file_is_read_error() {
    let dir = state();
    // A folder where the file should be: reading it fails.
    std::fs::create_dir(dir.path().join("away.json")).unwrap();
    let result = run(dir.path(), &["away", "status"]);
    assert_error(result, "READ_ERROR", "away.json");
}

fn away_with_an_unknown_state_is_a_usage_error() {
    let dir = state();
    let out = command(dir.path(), &["away", "maybe"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("invalid value 'maybe'"), "{stderr}");
}

// ---- ask_user hook claude-code: bad input ----

/// Exit 1 (Claude Code goes on with its own UI), nothing on stdout, one line on stderr.
fn assert_unfit((code, stdout, stderr): (i32, String, String), message: &str) {
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stdout, "");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("ask_user hook: "), "{stderr}");
    assert!(stderr.contains(message), "{stderr:?} lacks {message:?}");
}

fn hook_bad_inputs_are_one_line_on_stderr_and_exit_1() {
    let dir = state();
    let fed = |input: &[u8]| run_fed(dir.path(), &["hook", "claude-code"], input);
    assert_unfit(fed(b""), "the hook's input is empty");
    assert_unfit(fed(b"{not json"), "the hook's input is not JSON");
    assert_unfit(
        fed(b"[1, 2]"),
        "must be a JSON object (the host's event), not an array",
    );
    let mut bash = ask_event(questions());
    bash["tool_name"] = json!("Bash");
    assert_unfit(
        hook(dir.path(), &bash),
        "the tool \"Bash\" is not one ask_user answers",
    );
    let stop = json!({"hook_event_name": "Stop", "session_id": "s1"});
    assert_unfit(
        hook(dir.path(), &stop),
        "Claude Code's \"Stop\" event is not one ask_user answers",
    );
    let mut none = questions();
    none["questions"][0]["options"] = json!([]);
    assert_unfit(
        hook(dir.path(), &ask_event(none)),
        "INVALID_OPTIONS: options must have at least 2 items (at questions[0].options)",
    );
    let mut nested = form_event();
    nested["requested_schema"]["properties"] = json!({"where": {"type": "object"}});
    assert_unfit(
        hook(dir.path(), &nested),
        "the form's field \"where\" is not one ask_user can ask",
    );
}

fn hook_input_over_the_size_limit_is_one_line_and_exit_1() {
    let dir = state();
    let huge = vec![b' '; 262_145];
    assert_unfit(
        run_fed(dir.path(), &["hook", "claude-code"], &huge),
        "the input is larger than 262144 bytes",
    );
}

fn an_inbox_that_refuses_the_ask_is_one_line_and_exit_1() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    run(dir.path(), &["away", "on"]);
    let mut hook = command(dir.path(), &["hook", "claude-code"]);
    hook.env("ASK_USER_INBOX", format!("http://{}", inbox.host()))
        .env("ASK_USER_TOKEN", "0123456789abcdef0123456789abcdef");
    let ran = run_command(hook, ask_event(questions()).to_string().as_bytes());
    assert_unfit(
        ran,
        "the inbox could not ask the question: TOKEN_REFUSED: the inbox refused this ask_user's token (401 Unauthorized",
    );
    assert_eq!(inbox.list(), Vec::<Value>::new());
}

fn hook_with_a_negative_timeout_is_a_usage_error() {
    let dir = state();
    let (code, stdout, stderr) = run_fed(
        dir.path(),
        &["hook", "claude-code", "--timeout", "-1"],
        ask_event(questions()).to_string().as_bytes(),
    );
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(stderr.contains("out of range"), "{stderr}");
}

// ---- stepping aside ----

fn at_the_keyboard_the_hook_steps_aside_silently() {
    let dir = state();
    assert_eq!(
        hook(dir.path(), &ask_event(questions())),
        (0, String::new(), String::new())
    );
    run(dir.path(), &["away", "off"]);
    assert_eq!(
        hook(dir.path(), &form_event()),
        (0, String::new(), String::new())
    );
}

fn away_without_an_inbox_the_hook_steps_aside_with_one_line() {
    let dir = state();
    run(dir.path(), &["away", "on"]);
    let (code, stdout, stderr) = hook(dir.path(), &ask_event(questions()));
    assert_eq!((code, stdout.as_str()), (0, ""));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("ask_user hook: away, but no inbox is running, so the host asks itself"),
        "{stderr}"
    );
}

fn a_malformed_away_file_steps_aside_with_one_line() {
    let dir = state();
    std::fs::write(dir.path().join("away.json"), "{").unwrap();
    let (code, stdout, stderr) = hook(dir.path(), &ask_event(questions()));
    assert_eq!((code, stdout.as_str()), (0, ""));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("the away state cannot be read"), "{stderr}");
}

// ---- away, with an inbox ----

/// The hook started on `event`, once its question is in the inbox.
fn hook_asking(dir: &Path, event: &Value, args: &[&str]) -> Asker {
    let mut command = command(dir, &["hook", "claude-code"]);
    command.args(args);
    Asker::spawn(command, &event.to_string())
}

fn away_the_ask_tool_is_answered_in_the_inbox() {
    let dir = state();
    let _inbox = Inbox::start(dir.path());
    run(dir.path(), &["away", "on"]);
    let asker = hook_asking(dir.path(), &ask_event(questions()), &[]);
    let (_, listed) = run(dir.path(), &["inbox", "list"]);
    let listed = document(&listed);
    assert_eq!(listed["inboxId"], asker.id.as_str());
    assert_eq!(listed["source"]["name"], "Claude Code (hook)", "{listed}");
    assert_eq!(listed["source"]["cwd"], "/tmp/project", "{listed}");
    assert_eq!(
        listed["document"]["prompt"]["question"], "Which database?",
        "{listed}"
    );
    let (code, _) = run(dir.path(), &["inbox", "answer", &asker.id, "--reply", "2"]);
    assert_eq!(code, 0);
    let (code, output) = asker.finish();
    assert_eq!(code, 0);
    let mut updated = questions();
    updated["answers"] = json!({"Which database?": "Postgres"});
    assert_eq!(
        output,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
               "permissionDecision": "allow", "updatedInput": updated}})
    );
}

fn away_a_question_nobody_answers_gives_the_no_answer_form() {
    let dir = state();
    let _inbox = Inbox::start(dir.path());
    run(dir.path(), &["away", "on"]);
    let asker = hook_asking(dir.path(), &ask_event(questions()), &["--timeout", "1"]);
    let (code, output) = asker.finish();
    assert_eq!(code, 0);
    let mut updated = questions();
    updated["answers"] = json!({});
    assert_eq!(output["hookSpecificOutput"]["permissionDecision"], "allow");
    assert_eq!(output["hookSpecificOutput"]["updatedInput"], updated);
}

fn a_hook_the_host_ends_gives_no_answer_and_the_inbox_keeps_the_question() {
    let dir = state();
    let inbox = Inbox::start(dir.path());
    run(dir.path(), &["away", "on"]);
    let asker = hook_asking(dir.path(), &ask_event(questions()), &[]);
    // A host ending its hook at the hook's own timeout: SIGTERM.
    signal(asker.child.id(), "TERM");
    let id = asker.id.clone();
    let (code, output) = asker.finish();
    assert_eq!(code, 0);
    assert_eq!(
        output["hookSpecificOutput"]["updatedInput"]["answers"],
        json!({})
    );
    let listed = inbox.list();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["inboxId"], id.as_str());
    assert_eq!(listed[0]["askerGone"]["reason"], "away", "{listed:?}");
}

fn away_a_form_is_answered_in_the_inbox_and_a_cancel_is_cancel() {
    let dir = state();
    let _inbox = Inbox::start(dir.path());
    run(dir.path(), &["away", "on"]);
    let asker = hook_asking(dir.path(), &form_event(), &[]);
    let (code, _) = run(
        dir.path(),
        &["inbox", "answer", &asker.id, "--reply", "Postgres"],
    );
    assert_eq!(code, 0);
    assert_eq!(
        asker.finish(),
        (
            0,
            json!({"hookSpecificOutput": {"hookEventName": "Elicitation",
                   "action": "accept", "content": {"db": "pg"}}})
        )
    );
    let asker = hook_asking(dir.path(), &form_event(), &[]);
    let (code, _) = run(dir.path(), &["inbox", "cancel", &asker.id]);
    assert_eq!(code, 0);
    assert_eq!(
        asker.finish(),
        (
            0,
            json!({"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "cancel"}})
        )
    );
}

common::harness::main!(
    away_on_off_and_status_print_the_state_document,
    away_without_a_state_folder_is_config_error,
    away_status_of_a_malformed_file_is_config_error_naming_it,
    away_on_where_the_folder_cannot_be_made_is_write_error,
    away_status_of_an_unreadable_file_is_read_error,
    away_with_an_unknown_state_is_a_usage_error,
    hook_bad_inputs_are_one_line_on_stderr_and_exit_1,
    hook_input_over_the_size_limit_is_one_line_and_exit_1,
    an_inbox_that_refuses_the_ask_is_one_line_and_exit_1,
    hook_with_a_negative_timeout_is_a_usage_error,
    at_the_keyboard_the_hook_steps_aside_silently,
    away_without_an_inbox_the_hook_steps_aside_with_one_line,
    a_malformed_away_file_steps_aside_with_one_line,
    away_the_ask_tool_is_answered_in_the_inbox,
    away_a_question_nobody_answers_gives_the_no_answer_form,
    away_a_form_is_answered_in_the_inbox_and_a_cancel_is_cancel,
    a_hook_the_host_ends_gives_no_answer_and_the_inbox_keeps_the_question,
);
