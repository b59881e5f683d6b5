//! One byte-exact test per document kind: prompt, answer, error and the check
//! report in `--format json`. The expected bytes are written out here, not
//! read from files a tool could regenerate, so key order, omitted keys and
//! the closing newline are all part of what is checked.

mod common;

use std::fs;

use ask_user::answer::{AnswerDocument, Unanswered};
use common::run_with;

/// stdout of the binary, asserting its exit code.
fn stdout(args: &[&str], stdin: &str, code: i32) -> String {
    let run = run_with(args, &[], stdin.as_bytes());
    assert_eq!(run.code, code, "{args:?}: {}{}", run.stdout, run.stderr);
    run.stdout
}

const FORM: &str = r#"{"questions":[
  {"question":"Which database?","header":"Database","options":["PostgreSQL","SQLite"]},
  {"id":"extras","question":"Extras?","options":["Redis","Kafka"],"multi_select":true,"allow_other":true},
  {"question":"Ship now?","type":"confirm"},
  {"question":"Notes?","required":false}]}"#;

#[test]
fn prompt_document_bytes() {
    let input = r#"{"title":"Setup","context":"For the new service.","questions":[
      {"id":"db","question":"Which database?","header":"Database","context":"Pick one.",
       "options":[{"label":"PostgreSQL","description":"relational","recommended":true},"SQLite"],
       "default":"SQLite","allow_other":true},
      {"question":"Name?","type":"text","placeholder":"e.g. api","required":false}]}"#;
    assert_eq!(
        stdout(&["prompt"], input, 0),
        concat!(
            r#"{"tool":"ask_user","version":1,"status":"ok","title":"Setup","context":"For the new service.","prompts":["#,
            r#"{"id":"db","header":"Database","question":"Which database?","context":"Pick one.","kind":"single_select","#,
            r#""options":[{"id":"1","label":"PostgreSQL","description":"relational","recommended":true},{"id":"2","label":"SQLite"}],"#,
            r#""default":"2","answer_instructions":"Reply with the option number (1-2), or answer in your own words.","#,
            r#""answer_format":{"type":"integer","min":1,"max":2,"allow_other":true}},"#,
            r#"{"id":"q2","question":"Name?","kind":"text","placeholder":"e.g. api","required":false,"#,
            r#""answer_instructions":"Reply with your answer as text, or reply with nothing to skip this question.","#,
            r#""answer_format":{"type":"string","min_length":0}}],"#,
            r###""rendered_markdown":"## Setup\n\nFor the new service.\n\n### Question 1 of 2: Database\n\n**Which database?**\n\nPick one.\n\n"###,
            r#"1. **PostgreSQL** — relational _(recommended)_\n2. **SQLite** _(default)_\n- _Other: answer in your own words_\n\n"#,
            r###"_Reply with the option number (1-2), or answer in your own words._\n\n### Question 2 of 2\n\n**Name?**\n\nHint: _e.g. api_\n\n"###,
            r###"_Reply with your answer as text, or reply with nothing to skip this question._"}"###,
            "\n"
        )
    );
}

#[test]
fn answer_document_bytes() {
    let args = [
        "answer", "--reply", "2", "--reply", "use NATS", "--reply", "n", "--reply", "",
    ];
    // The person is the operating system's user: USER first.
    let run = run_with(&args, &[("USER", "ada")], FORM.as_bytes());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        concat!(
            r#"{"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,"timedOut":false,"answers":["#,
            r#"{"questionId":"q1","values":["SQLite"],"optionIds":["2"]},"#,
            r#"{"questionId":"extras","values":["use NATS"],"optionIds":[],"customText":"use NATS"},"#,
            r#"{"questionId":"q3","values":["no"]},"#,
            r#"{"questionId":"q4","values":[]}],"#,
            r#""answeredBy":{"kind":"person","name":"ada","channel":"cli"}}"#,
            "\n"
        )
    );
    // Without USER: LOGNAME, and with neither on Unix the user's id.
    let run = run_with(
        &args,
        &[("USER", ""), ("LOGNAME", "grace")],
        FORM.as_bytes(),
    );
    assert!(
        run.stdout.ends_with(
            r#""answeredBy":{"kind":"person","name":"grace","channel":"cli"}}
"#
        ),
        "{}",
        run.stdout
    );
}

/// The documents without answers: the flags in their documented order and
/// place, `reason` only for a declined form.
#[test]
fn unanswered_answer_document_bytes() {
    for (how, expected) in [
        (
            Unanswered::Cancelled,
            r#"{"tool":"ask_user","version":1,"status":"ok","answered":false,"cancelled":true,"timedOut":false,"answers":[]}"#,
        ),
        (
            Unanswered::TimedOut,
            r#"{"tool":"ask_user","version":1,"status":"ok","answered":false,"cancelled":false,"timedOut":true,"answers":[]}"#,
        ),
        (
            Unanswered::Declined,
            r#"{"tool":"ask_user","version":1,"status":"ok","answered":false,"cancelled":true,"timedOut":false,"reason":"declined","answers":[]}"#,
        ),
    ] {
        let document = AnswerDocument::unanswered(how);
        assert_eq!(ask_user::document_line(&document), expected, "{how:?}");
    }
}

#[test]
fn error_document_bytes() {
    // Every key an error can carry: code, message, path, parseError.
    assert_eq!(
        stdout(&["prompt"], r#"{"question":"Pick","options":"[1, 2"}"#, 1),
        concat!(
            r#"{"tool":"ask_user","version":1,"status":"error","error":{"code":"INVALID_OPTIONS_JSON","#,
            r#""message":"options is a string but not a JSON array; send options as an array of strings or {label, description} objects","#,
            r#""path":"options","parseError":"EOF while parsing a list at line 1 column 5"}}"#,
            "\n"
        )
    );
    // And the reply error, whose message repeats how to answer.
    assert_eq!(
        stdout(
            &["answer", "--reply", "3"],
            r#"{"question":"Pick","options":["a","b"]}"#,
            1
        ),
        concat!(
            r#"{"tool":"ask_user","version":1,"status":"error","error":{"code":"INVALID_REPLY","#,
            r#""message":"the reply does not answer the question (\"Pick\"); ask again: Reply with the option number (1-2).","#,
            r#""path":"questions[0]"}}"#,
            "\n"
        )
    );
}

#[test]
fn check_report_json_bytes() {
    let base = tempfile::tempdir().unwrap();
    fs::write(
        base.path().join("a.json"),
        r#"{"question":"Which database?","options":["PostgreSQL","SQLite"]}"#,
    )
    .unwrap();
    fs::write(
        base.path().join("b.json"),
        r#"{"question":"Pick","options":"[1, 2"}"#,
    )
    .unwrap();
    let answer = stdout(&["answer", "--reply", "1"], FORM_ONE, 0);
    fs::write(base.path().join("c.json"), answer).unwrap();
    let dir = base.path().to_str().unwrap();
    let report = stdout(&["check", "--format", "json", dir], "", 1);
    assert_eq!(
        report.replace(dir, "DIR"),
        concat!(
            r#"{"tool":"ask_user","version":1,"status":"ok","valid":false,"counts":{"files":3,"valid":2,"invalid":1,"missing":0},"files":["#,
            r#"{"path":"DIR/a.json","status":"valid","kind":"input"},"#,
            r#"{"path":"DIR/b.json","status":"invalid","kind":"input","error":{"code":"INVALID_OPTIONS_JSON","#,
            r#""message":"options is a string but not a JSON array; send options as an array of strings or {label, description} objects","#,
            r#""path":"options","parseError":"EOF while parsing a list at line 1 column 5"}},"#,
            r#"{"path":"DIR/c.json","status":"valid","kind":"answer"}]}"#,
            "\n"
        )
    );
}

const FORM_ONE: &str = r#"{"question":"Which database?","options":["PostgreSQL","SQLite"]}"#;
