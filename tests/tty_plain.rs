//! Plain mode (`ask --ui plain`, `ASK_USER_UI=plain`, `TERM=dumb`) in a real
//! pseudo-terminal: each question printed once as lines, a typed line read
//! by the reply rules of `answer`, and not one escape byte written, on any
//! path. Then without a terminal, on a plain pipe pair (stdin and stderr).

// Unix only: most tests run on a pseudo-terminal through rexpect, Unix only.
#![cfg(unix)]

mod common;

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use common::bin;
use common::pty::{Ask, Finished, Run, reporting_shell, run_dir, spawn};

const DATABASE: &str = r#"{"question":"Which database?","options":[
  {"label":"PostgreSQL","description":"relational, mature","recommended":true},
  {"label":"SQLite","description":"embedded, single file"},
  {"label":"Redis"}]}"#;

/// What plain mode prints for DATABASE, exactly (docs/terminal.md, "Screen readers").
const DATABASE_HEARD: &str = "Which database?
1. PostgreSQL (recommended)
   relational, mature
2. SQLite
   embedded, single file
3. Redis
Type a number from 1 to 3 or an option's name, then press Enter. Enter alone chooses PostgreSQL. A line /note TEXT adds a note to the answer.
Answer: ";

fn plain(input: &str) -> Run {
    Ask::new(input).args(&["--ui", "plain"]).start()
}

/// The pty's text with the terminal's CR LF as LF.
fn heard(done: &Finished) -> String {
    done.screen_text().replace("\r\n", "\n")
}

fn assert_no_escape_byte(done: &Finished) {
    assert!(
        !done.screen.contains(&0x1b) && !done.screen_text().contains('\u{9b}'),
        "an escape byte reached the terminal: {:?}",
        done.screen_text()
    );
    done.assert_settings_restored();
}

#[test]
fn plain_mode_prints_the_question_once_and_takes_a_number() {
    let mut run = plain(DATABASE);
    run.expect("Answer: ").keys("2\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    assert_eq!(
        done.answers()[0],
        serde_json::json!({"questionId":"q1","values":["SQLite"],"optionIds":["2"]})
    );
    let text = heard(&done);
    assert!(
        text.starts_with(&format!("{DATABASE_HEARD}2\n")),
        "{text:?}"
    );
    assert_eq!(
        text.matches("Which database?").count(),
        2,
        "asked once, then summarized: {text:?}"
    );
    assert!(text.contains("✓ Which database?: SQLite"), "{text:?}");
    assert_no_escape_byte(&done);
}

#[test]
fn bell_in_plain_mode_is_one_bel_byte_and_no_escape() {
    let mut run = Ask::new(DATABASE)
        .args(&["--ui", "plain", "--bell"])
        .start();
    run.expect("Answer: ").keys("1\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    let text = heard(&done);
    assert!(
        text.starts_with(&format!("\x07{DATABASE_HEARD}1\n")),
        "{text:?}"
    );
    assert_eq!(done.screen.iter().filter(|&&b| b == 0x07).count(), 1);
    assert_no_escape_byte(&done);
}

#[test]
fn plain_mode_takes_a_label_in_any_case_and_enter_alone_as_said() {
    // Within a time limit, an answer in time is an answer.
    let mut run = Ask::new(DATABASE)
        .args(&["--ui", "plain", "--timeout", "60"])
        .start();
    run.expect("Answer: ").keys("redis\r");
    let done = run.finish();
    assert_eq!(done.answers()[0]["values"][0], "Redis");
    assert_no_escape_byte(&done);

    let mut run = plain(DATABASE);
    run.expect("Answer: ").keys("\r");
    let done = run.finish();
    assert_eq!(done.answers()[0]["values"][0], "PostgreSQL");
    assert_no_escape_byte(&done);
}

#[test]
fn an_invalid_reply_is_asked_again() {
    let mut run = plain(DATABASE);
    run.expect("Answer: ")
        .keys("7\r")
        .expect("\"7\" does not answer this question. Type a number from 1 to 3")
        .expect("Answer: ")
        .keys("#3\r");
    let done = run.finish();
    assert_eq!(done.code, 0);
    assert_eq!(done.answers()[0]["optionIds"][0], "3");
    let text = heard(&done);
    assert!(
        text.contains(
            "Answer: 7\n\"7\" does not answer this question. Type a number from 1 to 3 or an option's name, \
             then press Enter. Enter alone chooses PostgreSQL.\nAnswer: #3\n"
        ),
        "{text:?}"
    );
    assert_no_escape_byte(&done);
}

#[test]
fn ctrl_c_and_ctrl_d_cancel() {
    for key in ["\x03", "\x04"] {
        let mut run = plain(DATABASE);
        // Half a line typed: it must not reach the shell afterwards.
        run.expect("Answer: ").keys("Post").expect("Post").keys(key);
        let done = run.finish();
        assert_unanswered_plain(&done, 130, "cancelled");
        // The note starts on a line of its own.
        assert!(heard(&done).contains("\n✗ Cancelled"), "{:?}", heard(&done));
    }
}

#[test]
fn ctrl_d_on_an_empty_line_cancels() {
    let mut run = plain(DATABASE);
    run.expect("Answer: ").keys("\x04");
    assert_unanswered_plain(&run.finish(), 130, "cancelled");
}

#[test]
fn plain_mode_times_out_without_picking_the_default() {
    let mut run = Ask::new(DATABASE)
        .args(&["--ui", "plain", "--timeout", "0.5"])
        .start();
    run.expect("Answer: ");
    let done = run.finish();
    assert_unanswered_plain(&done, 124, "timedOut");
    assert!(
        heard(&done).contains("Answer: \n✗ Timed out"),
        "{:?}",
        heard(&done)
    );
}

/// A half-typed line is dropped when the form times out: it never reaches
/// what reads the terminal next (here the shell's `read`, standing in for
/// the shell the person typed into).
#[test]
fn a_half_typed_line_is_dropped_at_the_timeout() {
    let dir = common::pty::run_dir();
    let input = dir.join("input.json");
    std::fs::write(&input, DATABASE).unwrap();
    let out = dir.join("out.json");
    let mut cmd = common::pty::reporting_shell(
        r#"input=$1 bin=$2 out=$3
"$bin" ask "$input" --ui plain --timeout 1 > "$out"
rc=$?
IFS= read -r line
echo "next read: [$line]"
(exit $rc)"#,
    );
    cmd.arg(&input).arg(bin()).arg(&out);
    let mut run = common::pty::spawn(cmd, out);
    run.expect("Answer: ").keys("half");
    // Said after the line was dropped; the shell reads once ask_user exits.
    run.expect("Timed out").keys("end\r");
    run.expect("next read: [end]");
    let done = run.finish();
    assert_unanswered_plain(&done, 124, "timedOut");
}

fn assert_unanswered_plain(done: &Finished, code: i32, flag: &str) {
    assert_eq!(done.code, code, "{}", done.document);
    assert_eq!(done.document["answered"], false);
    assert_eq!(done.document[flag], true);
    assert_eq!(done.answers().len(), 0);
    assert_no_escape_byte(done);
}

#[test]
fn several_questions_in_turn() {
    let input = r#"{"title":"Project setup","context":"for the new service","questions":[
        {"question":"Which database?","header":"Database","options":["PostgreSQL","SQLite"]},
        {"question":"Features?","multiSelect":true,"options":["Auth","Cache","Search"]},
        {"question":"Proceed?","type":"confirm","default":"yes"},
        {"id":"name","question":"Name?","type":"text","placeholder":"my-app"}]}"#;
    let mut run = plain(input);
    run.expect("Question 1 of 4: Database")
        .expect("Answer: ")
        .keys("sqlite\r")
        .expect("Question 2 of 4")
        .expect("Answer: ")
        .keys("1 and 3\r")
        .expect("Enter alone answers yes.")
        .expect("Answer: ")
        .keys("\r")
        .expect("Question 4 of 4")
        .expect("Answer: ")
        .keys("\r")
        .expect("An answer is needed.")
        .expect("Answer: ")
        .keys("demo app\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    assert_eq!(
        done.document["answers"],
        serde_json::json!([
            {"questionId":"q1","values":["SQLite"],"optionIds":["2"]},
            {"questionId":"q2","values":["Auth","Search"],"optionIds":["1","3"]},
            {"questionId":"q3","values":["yes"]},
            {"questionId":"name","values":["demo app"]}])
    );
    let text = heard(&done);
    assert!(
        text.starts_with(
            "Project setup\nfor the new service\n\nQuestion 1 of 4: Database\nWhich database?\n"
        ),
        "{text:?}"
    );
    // A blank line between questions, none before the first.
    assert!(
        text.contains("Answer: sqlite\n\nQuestion 2 of 4\n"),
        "{text:?}"
    );
    assert_no_escape_byte(&done);
}

#[test]
fn ask_user_ui_and_a_dumb_terminal_choose_plain_mode() {
    for (name, value) in [("ASK_USER_UI", "plain"), ("TERM", "dumb")] {
        let mut run = Ask::new(DATABASE).env(name, value).start();
        run.expect("Answer: ").keys("1\r");
        let done = run.finish();
        assert_eq!(done.code, 0, "{name}={value}: {}", done.document);
        assert!(heard(&done).starts_with(DATABASE_HEARD), "{name}={value}");
        assert_no_escape_byte(&done);
    }
    // --ui wins over the environment.
    let mut run = Ask::new(DATABASE)
        .env("ASK_USER_UI", "plain")
        .args(&["--ui", "tty"])
        .start();
    run.expect("Redis").keys("\r");
    let done = run.finish();
    assert!(
        done.screen.contains(&0x1b),
        "the full UI draws with escapes"
    );
    done.assert_terminal_restored();
}

#[test]
fn an_unknown_ask_user_ui_is_a_usage_error() {
    let out = Command::new(bin())
        .args(["ask", "--reply", "1"])
        .env("ASK_USER_UI", "fancy")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: ASK_USER_UI must be tty, plain, web, inbox or auto, not \"fancy\"\n"
    );
}

/// `ask --ui plain` in a new session: no controlling terminal at all.
fn without_tty(args: &[&str]) -> Command {
    let mut command = Command::new(bin());
    common::process::without_tty(&mut command)
        .args(args)
        .env_remove("ASK_USER_UI")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

fn run_without_tty(args: &[&str], stdin: &[u8]) -> (i32, serde_json::Value, Vec<u8>) {
    let mut child = common::process::ChildGuard::spawn(&mut without_tty(args)).unwrap();
    // Without a terminal and with the input on stdin, ask exits before
    // reading it: a broken pipe here is part of what is tested.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let mut stderr = Vec::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let document = serde_json::from_slice(&out.stdout).unwrap();
    (out.status.code().unwrap(), document, stderr)
}

#[test]
fn on_a_pipe_pair_plain_mode_reads_stdin_and_writes_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("q.json");
    std::fs::write(&file, DATABASE).unwrap();
    let file = file.to_str().unwrap();

    let (code, document, stderr) =
        run_without_tty(&["ask", "--ui", "plain", file], b"nope\nsqlite\n");
    assert_eq!(code, 0, "{document}");
    assert_eq!(document["answers"][0]["values"][0], "SQLite");
    let text = String::from_utf8_lossy(&stderr);
    assert!(text.starts_with(DATABASE_HEARD), "{text:?}");
    assert!(
        text.contains("\"nope\" does not answer this question."),
        "{text:?}"
    );
    assert!(!stderr.contains(&0x1b), "{text:?}");

    // The end of the input cancels; a last line without a newline still counts.
    let (code, document, _) = run_without_tty(&["ask", "--ui", "plain", file], b"");
    assert_eq!(code, 130, "{document}");
    assert_eq!(document["cancelled"], true);
    let (code, document, _) = run_without_tty(&["ask", "--ui", "plain", file], b"3");
    assert_eq!(code, 0, "{document}");
    assert_eq!(document["answers"][0]["values"][0], "Redis");
}

#[test]
fn without_a_terminal_plain_mode_needs_stdin_free_for_the_replies() {
    let (code, document, stderr) = run_without_tty(&["ask", "--ui", "plain"], DATABASE.as_bytes());
    assert_eq!(code, 1, "{document}");
    assert_eq!(document["status"], "error");
    assert_eq!(document["error"]["code"], "NO_TTY");
    let message = document["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("ask needs a terminal to ask on, and there is none"),
        "{message}"
    );
    assert!(
        stderr.is_empty(),
        "nothing asked: {:?}",
        String::from_utf8_lossy(&stderr)
    );
}

#[test]
fn the_terminal_is_left_as_found_after_every_plain_exit() {
    // A hostile label cannot smuggle an escape in either.
    let input = serde_json::json!({
        "question": "Pick \u{1b}[2J one",
        "options": [{"label": "safe\u{1b}]0;pwned\u{7}", "description": "d\u{9b}2J"}, "b"]
    })
    .to_string();
    let mut run = plain(&input);
    run.expect("Answer: ").keys("1\r");
    let done = run.finish();
    assert_eq!(done.code, 0);
    assert!(
        heard(&done).starts_with("Pick  one\n1. safe\n   d\n2. b\n"),
        "{:?}",
        heard(&done)
    );
    assert_no_escape_byte(&done);
}

#[test]
fn a_note_line_goes_beside_the_answer() {
    let mut run = plain(DATABASE);
    run.expect("Answer: ")
        .keys("/note keep SQLite for tests\r")
        .expect("Note kept: keep SQLite for tests. Now type your answer.")
        .expect("Answer: ")
        .keys("2\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    assert_eq!(
        done.answers()[0],
        serde_json::json!({"questionId":"q1","values":["SQLite"],"optionIds":["2"],
                           "note":"keep SQLite for tests"})
    );
    let text = heard(&done);
    assert!(
        text.contains("✓ Which database?: SQLite · note: keep SQLite for tests"),
        "{text:?}"
    );
    assert_no_escape_byte(&done);
}

#[test]
fn a_note_too_long_is_refused_and_an_empty_one_takes_it_back() {
    let mut run = plain(DATABASE);
    let long = "n".repeat(1001);
    run.expect("Answer: ")
        .keys(&format!("/NOTE {long}\r"))
        .expect(
            "That note has 1001 characters; a note is at most 1000. Type /note and a shorter one.",
        )
        .expect("Answer: ")
        .keys("/note first\r")
        .expect("Note kept: first.")
        .keys("/note\r")
        .expect("No note. Now type your answer.")
        .keys("/notes are not notes\r")
        .expect("does not answer this question")
        .keys("3\r");
    let done = run.finish();
    assert_eq!(
        done.answers()[0],
        serde_json::json!({"questionId":"q1","values":["Redis"],"optionIds":["3"]})
    );
    assert_no_escape_byte(&done);
}

#[test]
fn ask_help_lists_plain_mode_and_the_new_keys() {
    let out = Command::new(bin())
        .args(["ask", "--help"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "--ui <UI>",
        "plain (the terminal as plain lines",
        "ASK_USER_UI, else plain when TERM=dumb",
        "Ctrl-J (or Alt-Enter) starts a new line",
        "--ui plain: each question printed once",
        "Ctrl-N opens a note",
        "/note TEXT",
    ] {
        assert!(help.contains(needle), "{needle:?} missing: {help}");
    }
}

#[test]
fn the_guide_shows_the_text_these_tests_assert() {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/terminal.md")).unwrap();
    let section = &page[page
        .find("## Screen readers")
        .expect("a Screen readers section")..];
    assert!(
        section.contains(&format!("```\n{DATABASE_HEARD}\n```")),
        "docs/terminal.md's Screen readers example differs from DATABASE_HEARD"
    );
}

/// Plain mode on a terminal a program left raw: for the question it turns
/// the terminal's own line editing on (echo, erase, Enter's CR read as the
/// end of the line, CR LF written for a new line, Ctrl-C as a signal), and
/// puts the raw settings back when it ends, answered or cancelled.
#[test]
fn plain_mode_on_a_raw_terminal_edits_lines_and_leaves_it_raw() {
    let on_raw = |keys: &str| -> Finished {
        let dir = run_dir();
        let input = dir.join("input.json");
        std::fs::write(&input, r#"{"question":"Name?","type":"text"}"#).unwrap();
        let out = dir.join("out.json");
        let mut command = reporting_shell(
            r#"input=$1 bin=$2 out=$3
cooked=$(stty -g)
stty raw -echo -iexten
raw=$(stty -g)
cat "$input" | "$bin" ask --ui plain > "$out"
rc=$?
now=$(stty -g)
stty "$cooked"
if [ "$now" = "$raw" ]; then echo "raw=kept;"; else echo "raw=lost;"; fi
(exit $rc)"#,
        );
        command.arg(&input).arg(bin()).arg(&out);
        let mut run = spawn(command, out);
        run.expect("Answer: ").keys(keys);
        run.finish()
    };

    let done = on_raw("ab\x7fc\r");
    assert_eq!(done.code, 0, "{}", done.document);
    assert_eq!(done.answers()[0]["values"], serde_json::json!(["ac"]));
    let screen = done.screen_text();
    assert!(screen.contains("Name?\r\n"), "no CR LF: {screen:?}");
    assert!(screen.contains("Answer: ab"), "no echo: {screen:?}");
    assert!(screen.contains("raw=kept;"), "{screen:?}");

    let done = on_raw("\x03");
    assert_eq!(done.code, 130, "{}", done.document);
    assert_eq!(done.document["cancelled"], true);
    assert!(
        done.screen_text().contains("raw=kept;"),
        "{:?}",
        done.screen_text()
    );
}
