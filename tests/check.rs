//! `ask_user check` through the binary: a tree of valid and invalid files in
//! nested folders, unreadable entries and non-JSON files, in all three formats.

// Unix only: the tree holds a dangling symlink and a file an ordinary user cannot read (setpriv): Unix; under wine these tests run from Linux (.ci/cross).
#![cfg(unix)]

use std::fs;
use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

mod common;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn ask_user(dir: &Path) -> Command {
    let mut command = Command::new(common::bin());
    command
        .current_dir(dir)
        .env_remove("TOOLBOX_ACTION")
        // A FIFO opened by mistake would block: fail instead of hanging.
        .timeout(Duration::from_secs(30));
    command
}

fn printed(args: &[&str], input: &str) -> String {
    let output = Command::new(common::bin())
        .args(args)
        .env_remove("TOOLBOX_ACTION")
        .write_stdin(input)
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap()
}

/// tree/
///   a-valid.json          toolbox input
///   big.json              over 256 KiB             INPUT_TOO_LARGE
///   dangling.json         symlink to nothing        READ_ERROR
///   dir.json/c.json       a folder named *.json is searched
///   fifo.json             a FIFO: reported, never opened  READ_ERROR
///   notes.txt             not *.json: skipped
///   .git/config.json      hidden: skipped
///   sub/b-invalid.json    one option               INVALID_OPTIONS
///   sub/prompt.json       a prompt document
///   sub/deep/answer.json  an answer document
///   sub/deep/error.json   an error document
///   sub/deep/not-json.json                          INVALID_JSON
fn make_tree(base: &Path) {
    let tree = base.join("tree");
    for dir in ["sub/deep", "dir.json", ".git"] {
        fs::create_dir_all(tree.join(dir)).unwrap();
    }
    let valid_input = r#"{"question":"Which database?","options":["PostgreSQL","SQLite"]}"#;
    fs::write(tree.join("a-valid.json"), valid_input).unwrap();
    fs::write(tree.join("big.json"), " ".repeat(300_000)).unwrap();
    std::os::unix::fs::symlink("missing-target.json", tree.join("dangling.json")).unwrap();
    fs::write(
        tree.join("dir.json/c.json"),
        r#"{"prompt":"Name?","type":"text"}"#,
    )
    .unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(tree.join("fifo.json"))
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo");
    fs::write(tree.join("notes.txt"), "not json").unwrap();
    fs::write(tree.join(".git/config.json"), "not json").unwrap();
    fs::write(
        tree.join("sub/b-invalid.json"),
        r#"{"question":"Pick","options":["only one"]}"#,
    )
    .unwrap();
    fs::write(
        tree.join("sub/prompt.json"),
        printed(&["prompt"], valid_input),
    )
    .unwrap();
    fs::write(
        tree.join("sub/deep/answer.json"),
        r#"{"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,"timedOut":false,"answers":[{"questionId":"q1","values":["PostgreSQL"],"optionIds":["1"]}],"answeredBy":{"kind":"person","name":"ada","channel":"cli"}}"#,
    )
    .unwrap();
    let error = printed(&["prompt"], "[]");
    assert!(error.contains(r#""status":"error""#));
    fs::write(tree.join("sub/deep/error.json"), error).unwrap();
    fs::write(tree.join("sub/deep/not-json.json"), "{\"question\": oops}").unwrap();
}

const TEXT_REPORT: &str = "\
tree/big.json: INPUT_TOO_LARGE: the input is larger than 262144 bytes; send a shorter question
tree/dangling.json: READ_ERROR: cannot read tree/dangling.json: it does not exist; pass a readable JSON file or - for stdin
tree/fifo.json: READ_ERROR: cannot read tree/fifo.json: it is not a regular file (a FIFO, socket or device); check regular files only
tree/sub/b-invalid.json: INVALID_OPTIONS: options must have at least 2 items (at options)
tree/sub/deep/not-json.json: INVALID_JSON: the input is not valid JSON; send one JSON object (expected value at line 1 column 14)
";

#[test]
fn text_format_lists_each_invalid_file_and_a_summary_on_stderr() {
    let base = tempfile::tempdir().unwrap();
    make_tree(base.path());
    ask_user(base.path())
        .args(["check", "tree"])
        .assert()
        .code(1)
        .stdout(TEXT_REPORT)
        .stderr("ask_user check: 10 files checked, 5 valid, 5 invalid\n");
    // --quiet: the same failures, no summary.
    ask_user(base.path())
        .args(["check", "--quiet", "tree"])
        .assert()
        .code(1)
        .stdout(TEXT_REPORT)
        .stderr("");
}

#[test]
fn json_format_lists_every_file_with_its_status() {
    let base = tempfile::tempdir().unwrap();
    make_tree(base.path());
    let output = ask_user(base.path())
        .args(["check", "--format", "json", "tree"])
        .assert()
        .code(1)
        .stderr("")
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(output).unwrap();
    assert!(
        text.ends_with('\n') && text.matches('\n').count() == 1,
        "{text}"
    );
    assert!(text.starts_with(
        r#"{"tool":"ask_user","version":1,"status":"ok","valid":false,"counts":{"files":10,"valid":5,"invalid":5,"missing":0},"files":["#
    ));
    let report: Value = serde_json::from_str(&text).unwrap();
    let files: Vec<(String, String, Value, Value)> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["status"].as_str().unwrap().to_string(),
                f["kind"].clone(),
                f["error"]["code"].clone(),
            )
        })
        .collect();
    let expected = [
        ("tree/a-valid.json", "valid", "input", Value::Null),
        ("tree/big.json", "invalid", "", "INPUT_TOO_LARGE".into()),
        ("tree/dangling.json", "invalid", "", "READ_ERROR".into()),
        ("tree/dir.json/c.json", "valid", "input", Value::Null),
        ("tree/fifo.json", "invalid", "", "READ_ERROR".into()),
        (
            "tree/sub/b-invalid.json",
            "invalid",
            "input",
            "INVALID_OPTIONS".into(),
        ),
        ("tree/sub/deep/answer.json", "valid", "answer", Value::Null),
        ("tree/sub/deep/error.json", "valid", "error", Value::Null),
        (
            "tree/sub/deep/not-json.json",
            "invalid",
            "",
            "INVALID_JSON".into(),
        ),
        ("tree/sub/prompt.json", "valid", "prompt", Value::Null),
    ];
    let expected: Vec<(String, String, Value, Value)> = expected
        .into_iter()
        .map(|(path, status, kind, code)| {
            let kind = if kind.is_empty() {
                Value::Null
            } else {
                kind.into()
            };
            (path.to_string(), status.to_string(), kind, code)
        })
        .collect();
    assert_eq!(files, expected);
    // The error carries the same fields as an error document.
    let invalid_options = &report["files"][5]["error"];
    assert_eq!(
        invalid_options,
        &serde_json::json!({"code":"INVALID_OPTIONS","message":"options must have at least 2 items","path":"options"})
    );
    assert_eq!(
        report["files"][8]["error"]["parseError"],
        "expected value at line 1 column 14"
    );

    // --quiet lists only the failures; the counts stay whole.
    let output = ask_user(base.path())
        .args(["check", "--format=json", "-q", "tree"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let report: Value = serde_json::from_slice(&output).unwrap();
    assert_eq!(report["counts"]["files"], 10);
    let statuses: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["invalid"; 5]);
}

#[test]
fn github_format_prints_escaped_annotations() {
    let base = tempfile::tempdir().unwrap();
    make_tree(base.path());
    ask_user(base.path())
        .args(["check", "--format", "github", "tree"])
        .assert()
        .code(1)
        .stdout(
            "\
::error file=tree/big.json,title=ask_user INPUT_TOO_LARGE::the input is larger than 262144 bytes; send a shorter question
::error file=tree/dangling.json,title=ask_user READ_ERROR::cannot read tree/dangling.json: it does not exist; pass a readable JSON file or - for stdin
::error file=tree/fifo.json,title=ask_user READ_ERROR::cannot read tree/fifo.json: it is not a regular file (a FIFO, socket or device); check regular files only
::error file=tree/sub/b-invalid.json,title=ask_user INVALID_OPTIONS::options must have at least 2 items (at options)
::error file=tree/sub/deep/not-json.json,title=ask_user INVALID_JSON::the input is not valid JSON; send one JSON object (expected value at line 1 column 14)
",
        )
        .stderr("ask_user check: 10 files checked, 5 valid, 5 invalid\n");

    // Properties escape % CR LF : and ,; the message escapes % CR LF.
    let odd = base.path().join("odd");
    fs::create_dir(&odd).unwrap();
    fs::write(odd.join("a,b:c%\nd.json"), r#"{"question":"100%?"}"#).unwrap();
    ask_user(base.path())
        .args(["check", "--format", "github", "odd"])
        .assert()
        .code(1)
        .stdout(
            "::error file=odd/a%2Cb%3Ac%25%0Ad.json,title=ask_user MISSING_OPTIONS::\
             options is required for a select question: give 2 to 20 choices (at options)\n",
        );
    // The text format keeps one line per file whatever the name holds.
    ask_user(base.path())
        .args(["check", "odd"])
        .assert()
        .code(1)
        .stdout(
            "odd/a,b:c%\\u{a}d.json: MISSING_OPTIONS: options is required for a select question: \
             give 2 to 20 choices (at options)\n",
        );
}

/// Many files are checked on several threads; the report keeps walking order.
#[test]
fn many_files_keep_their_order() {
    let base = tempfile::tempdir().unwrap();
    let many = base.path().join("many");
    fs::create_dir(&many).unwrap();
    let mut expected = String::new();
    for i in 0..1200 {
        let name = format!("{i:04}.json");
        if i % 97 == 0 {
            fs::write(
                many.join(&name),
                format!(r#"{{"question":"Q{i}?","options":["x"]}}"#),
            )
            .unwrap();
            expected.push_str(&format!(
                "many/{name}: INVALID_OPTIONS: options must have at least 2 items (at options)\n"
            ));
        } else {
            fs::write(
                many.join(&name),
                format!(r#"{{"question":"Q{i}?","options":["x","y"]}}"#),
            )
            .unwrap();
        }
    }
    ask_user(base.path())
        .args(["check", "many"])
        .assert()
        .code(1)
        .stdout(expected)
        .stderr("ask_user check: 1200 files checked, 1187 valid, 13 invalid\n");
}

#[test]
fn all_valid_exits_zero() {
    let inputs = Path::new(ROOT).join("tests/check/inputs");
    let count = fs::read_dir(&inputs).unwrap().count();
    ask_user(Path::new(ROOT))
        .args(["check", "tests/check/inputs"])
        .assert()
        .code(0)
        .stdout("")
        .stderr(format!("ask_user check: {count} files valid\n"));
    ask_user(Path::new(ROOT))
        .args(["check", "-q", "tests/check/inputs"])
        .assert()
        .code(0)
        .stdout("")
        .stderr("");
    ask_user(Path::new(ROOT))
        .args(["check", "--format", "github", "tests/check/inputs"])
        .assert()
        .code(0)
        .stdout("");
}

/// Each file in tests/check/broken, with the code and field path it must be
/// refused with: being refused for another reason is a failure.
#[rustfmt::skip]
const BROKEN: &[(&str, &str, Option<&str>)] = &[
    ("answer/answered-and-cancelled.json", "INVALID_FIELD", Some("answered")),
    ("answer/answered-by-blank-name.json", "INVALID_FIELD", Some("answeredBy.name")),
    ("answer/answered-by-no-votes.json", "INVALID_FIELD", Some("answeredBy")),
    ("answer/answered-by-on-a-timeout.json", "INVALID_FIELD", Some("answeredBy")),
    ("answer/answered-by-unknown-kind.json", "INVALID_FIELD", Some("answeredBy.kind")),
    ("answer/answered-without-answered-by.json", "INVALID_FIELD", Some("answeredBy")),
    ("answer/answered-without-answers.json", "INVALID_FIELD", Some("answers")),
    ("answer/blank-hint.json", "INVALID_FIELD", Some("hint")),
    ("answer/blank-note.json", "INVALID_FIELD", Some("answers[0].note")),
    ("answer/cancelled-with-answers.json", "INVALID_FIELD", Some("answers")),
    ("answer/custom-text-without-option-ids.json", "INVALID_FIELD", Some("answers[0].customText")),
    ("answer/empty-custom-text.json", "INVALID_FIELD", Some("answers[0].customText")),
    ("answer/empty-note.json", "INVALID_FIELD", Some("answers[0].note")),
    ("answer/inbox-id-malformed.json", "INVALID_FIELD", Some("inboxId")),
    ("answer/kept-id-31-digits.json", "INVALID_FIELD", Some("inboxId")),
    ("answer/kept-id-not-hex.json", "INVALID_FIELD", Some("inboxId")),
    ("answer/kept-id-when-not-pending.json", "INVALID_FIELD", Some("inboxId")),
    ("answer/missing-timed-out.json", "INVALID_FIELD", Some("timedOut")),
    ("answer/note-too-long.json", "INVALID_FIELD", Some("answers[0].note")),
    ("answer/option-id-zero.json", "INVALID_FIELD", Some("answers[0].optionIds[0]")),
    ("answer/option-ids-repeated.json", "INVALID_FIELD", Some("answers[0].optionIds")),
    ("answer/pending-and-timed-out.json", "INVALID_FIELD", Some("pending")),
    ("answer/pending-without-hint.json", "INVALID_FIELD", Some("pending")),
    ("answer/reason-when-answered.json", "INVALID_FIELD", Some("reason")),
    ("answer/text-two-values.json", "INVALID_FIELD", Some("answers[0].values")),
    ("answer/unknown-key.json", "INVALID_FIELD", Some("answers[0].confidence")),
    ("answer/version-2.json", "INVALID_FIELD", Some("version")),
    ("error/blank-message.json", "INVALID_FIELD", Some("error.message")),
    ("error/empty-message.json", "INVALID_FIELD", Some("error.message")),
    ("error/empty-path.json", "INVALID_FIELD", Some("error.path")),
    ("error/missing-message.json", "INVALID_FIELD", Some("error.message")),
    ("error/numeric-parse-error.json", "INVALID_FIELD", Some("error.parseError")),
    // Another tool's document is read as a tool input, which has no question.
    ("error/other-tool.json", "MISSING_QUESTION", Some("question")),
    // status "ok" makes it a prompt document, which has no `error` key.
    ("error/status-ok.json", "INVALID_FIELD", Some("error")),
    ("error/unknown-code.json", "INVALID_FIELD", Some("error.code")),
    ("error/unknown-key.json", "INVALID_FIELD", Some("error.line")),
    // A top-level array has no field to point at.
    ("input/array.json", "INVALID_INPUT", None),
    ("input/boolean-options.json", "INVALID_OPTIONS", Some("options[0]")),
    ("input/empty-question.json", "MISSING_QUESTION", Some("question")),
    ("input/empty-questions.json", "INVALID_QUESTIONS", Some("questions")),
    ("input/long-header.json", "INVALID_FIELD", Some("questions[0].header")),
    ("input/no-question.json", "MISSING_QUESTION", Some("question")),
    ("input/question-and-questions.json", "INVALID_INPUT", Some("question")),
    ("input/select-without-options.json", "MISSING_OPTIONS", Some("options")),
    ("input/single-without-options.json", "MISSING_OPTIONS", Some("options")),
    ("input/timeout-too-short.json", "INVALID_FIELD", Some("timeout")),
    ("input/unknown-kind.json", "INVALID_FIELD", Some("type")),
    ("prompt/blank-option-label.json", "INVALID_FIELD", Some("prompt.options[0].label")),
    ("prompt/boolean-format-for-select.json", "INVALID_FIELD", Some("prompt.answer_format")),
    ("prompt/confirm-default-maybe.json", "INVALID_FIELD", Some("prompt.default")),
    ("prompt/missing-answer-format.json", "INVALID_FIELD", Some("prompt.answer_format")),
    ("prompt/multi-default-repeated.json", "INVALID_FIELD", Some("prompt.default")),
    ("prompt/null-context.json", "INVALID_FIELD", Some("prompt.context")),
    ("prompt/one-item-prompts.json", "INVALID_FIELD", Some("prompts")),
    ("prompt/prompt-and-prompts.json", "INVALID_FIELD", Some("prompts")),
    ("prompt/required-true.json", "INVALID_FIELD", Some("prompt.required")),
    ("prompt/single-context-outside.json", "INVALID_FIELD", Some("context")),
    ("prompt/status-done.json", "INVALID_FIELD", Some("status")),
    ("prompt/text-default-blank.json", "INVALID_FIELD", Some("prompt.default")),
    ("prompt/text-with-options.json", "INVALID_FIELD", Some("prompt.options")),
    ("prompt/unknown-key.json", "INVALID_FIELD", Some("prompt.colour")),
];

#[test]
fn every_broken_document_is_rejected_with_its_code_and_path() {
    let output = ask_user(Path::new(ROOT).join("tests/check/broken").as_path())
        .args(["check", "--format", "json", "."])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let report: Value = serde_json::from_slice(&output).unwrap();
    assert_eq!(report["counts"]["valid"], 0, "{report}");
    let found: Vec<(String, String, Option<String>)> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| {
            let error = &file["error"];
            assert!(
                error["message"].as_str().is_some_and(|m| !m.is_empty()),
                "{file}"
            );
            (
                file["path"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("./")
                    .to_string(),
                error["code"].as_str().unwrap_or_default().to_string(),
                error["path"].as_str().map(str::to_string),
            )
        })
        .collect();
    let expected: Vec<(String, String, Option<String>)> = BROKEN
        .iter()
        .map(|(file, code, path)| (file.to_string(), code.to_string(), path.map(str::to_string)))
        .collect();
    assert_eq!(
        found, expected,
        "a broken file is refused for another reason, or the table misses one"
    );
}

/// Rules that only the checker can see (a schema cannot count options).
#[test]
fn documents_that_the_binary_would_not_print_are_rejected() {
    let single = printed(
        &["prompt"],
        r#"{"question":"Pick","options":["a","b","c"],"default":"b"}"#,
    );
    let multi = printed(
        &["prompt"],
        r#"{"question":"Pick","options":["a","b","c"],"multi_select":true,"default":["a","c"]}"#,
    );
    let cases = [
        (
            single.replacen(r#""id":"2""#, r#""id":"3""#, 1),
            "prompt.options[1].id",
            "option ids are 1, 2, … by position; this one must be \"2\", not \"3\"",
        ),
        (
            single.replace(r#""max":3"#, r#""max":2"#),
            "prompt.answer_format",
            r#"answer_format does not match a single_select question with 3 options; it must be {"type":"integer","min":1,"max":3}"#,
        ),
        (
            single.replace("(1-3).", "(1-9)."),
            "prompt.answer_instructions",
            "answer_instructions must be \"Reply with the option number (1-3).\" for this question",
        ),
        (
            single.replace(r#""label":"c""#, r#""label":"A""#),
            "prompt.options[2].label",
            "option label \"A\" repeats an earlier one (ignoring case); make each label unique",
        ),
        (
            single.replace(r#""default":"2""#, r#""default":"7""#),
            "prompt.default",
            "default must be an option id from 1 to 3, not \"7\"",
        ),
        (
            multi.replace(r#"["1","3"]"#, r#"["3","1"]"#),
            "prompt.default",
            "default must list distinct option ids in option order",
        ),
        (
            r#"{"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,"timedOut":false,"answers":[{"questionId":"q1","values":["a"],"optionIds":["1","2"]}],"answeredBy":{"kind":"person","name":"ada","channel":"cli"}}"#.to_string(),
            "answers[0].values",
            "values must hold one label per option id, then the customText if any (2 values, not 1)",
        ),
        (
            r#"{"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,"timedOut":false,"answers":[{"questionId":"q1","values":["a"]},{"questionId":"q1","values":["b"]}],"answeredBy":{"kind":"person","name":"ada","channel":"cli"}}"#.to_string(),
            "answers[1].questionId",
            "question id \"q1\" is answered twice; one answer per question",
        ),
        (
            r#"{"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,"timedOut":false,"answers":[{"questionId":"q1","values":["a"],"note":" "}],"answeredBy":{"kind":"person","name":"ada","channel":"cli"}}"#.to_string(),
            "answers[0].note",
            "answers[0].note must not be empty",
        ),
        // A null inside an array is found too, with its index.
        (
            r#"{"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,"timedOut":false,"answers":[{"questionId":"q1","values":["a",null]}],"answeredBy":{"kind":"person","name":"ada","channel":"cli"}}"#.to_string(),
            "answers[0].values[1]",
            "answers[0].values[1] is null; ask_user omits an absent value, so remove the key",
        ),
        // The message names the kind of document the object was read as.
        (
            r#"{"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,"timedOut":false,"answers":[],"extra":1}"#.to_string(),
            "extra",
            "not a valid answer document: unknown field `extra`, expected one of `tool`, `version`, `status`, `answered`, `cancelled`, `timedOut`, `pending`, `reason`, `inboxId`, `hint`, `answers`, `answeredBy`; remove it",
        ),
        (
            format!(
                r#"{{"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,"timedOut":false,"answers":[{{"questionId":"q1","values":["a"],"note":"{}"}}],"answeredBy":{{"kind":"person","name":"ada","channel":"cli"}}}}"#,
                "n".repeat(1001)
            ),
            "answers[0].note",
            "answers[0].note must be at most 1000 characters (it has 1001)",
        ),
    ];
    for (document, path, message) in cases {
        ask_user(Path::new(ROOT))
            .args(["check", "--format", "json", "-"])
            .write_stdin(document.clone())
            .assert()
            .append_context("document", document)
            .code(1)
            .stdout(predicate::function(|out: &[u8]| {
                let report: Value = serde_json::from_slice(out).unwrap();
                let error = &report["files"][0]["error"];
                error["code"] == "INVALID_FIELD"
                    && error["path"] == path
                    && error["message"] == message
            }));
    }
}

/// Documents the binary prints are valid as printed: a confirm prompt with
/// its default, a pending document whose id is an MCP server's own (32 hex
/// digits, docs/mcp.md), and an answer with Other's text.
#[test]
fn a_confirm_default_a_kept_pending_id_and_other_text_are_valid() {
    let confirm = ask_user(Path::new(ROOT))
        .args(["prompt"])
        .write_stdin(r#"{"question":"Go?","type":"confirm","default":"yes"}"#)
        .output()
        .unwrap();
    assert_eq!(confirm.status.code(), Some(0));
    let pending = r#"{"tool":"ask_user","version":1,"status":"ok","answered":false,"cancelled":false,"timedOut":false,"pending":true,"inboxId":"9c1f27d04b8e4a6f8f3c2b1a0e9d8c7b","hint":"Nobody answered yet.","answers":[]}"#;
    // Other's text is the last of the values, and customText.
    let other = r#"{"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,"timedOut":false,"answers":[{"questionId":"q1","values":["a","my own"],"optionIds":["1"],"customText":"my own"}],"answeredBy":{"kind":"person","name":"ada","channel":"cli"}}"#;
    for document in [
        confirm.stdout,
        pending.as_bytes().to_vec(),
        other.as_bytes().to_vec(),
    ] {
        ask_user(Path::new(ROOT))
            .args(["check", "-"])
            .write_stdin(document)
            .assert()
            .code(0)
            .stderr("ask_user check: 1 file valid\n");
    }
}

/// A text at its limit is valid; one character more is not (above).
#[test]
fn a_note_of_exactly_1000_characters_is_valid() {
    let document = format!(
        r#"{{"tool":"ask_user","version":1,"status":"ok","answered":true,"cancelled":false,"timedOut":false,"answers":[{{"questionId":"q1","values":["a"],"note":"{}"}}],"answeredBy":{{"kind":"person","name":"ada","channel":"cli"}}}}"#,
        "n".repeat(1000)
    );
    ask_user(Path::new(ROOT))
        .args(["check", "-"])
        .write_stdin(document)
        .assert()
        .code(0)
        .stdout("")
        .stderr("ask_user check: 1 file valid\n");
}

#[test]
fn stdin_and_named_files_are_checked_whatever_their_name() {
    let base = tempfile::tempdir().unwrap();
    fs::write(base.path().join("notes.txt"), "plain text").unwrap();
    ask_user(base.path())
        .args(["check", "-"])
        .write_stdin(r#"{"question":"Ok?","type":"confirm"}"#)
        .assert()
        .code(0)
        .stdout("")
        .stderr("ask_user check: 1 file valid\n");
    ask_user(base.path())
        .args(["check", "notes.txt", "-", "missing.json"])
        .write_stdin("{}")
        .assert()
        .code(1)
        .stdout(
            "notes.txt: INVALID_JSON: the input is not valid JSON; send one JSON object (expected value at line 1 column 1)\n\
             -: MISSING_QUESTION: the input has no question; add a \"question\" string (or a \"questions\" array) (at question)\n\
             missing.json: READ_ERROR: missing.json does not exist; name a file or folder that exists, or - for stdin\n",
        )
        .stderr("ask_user check: 2 files checked, 0 valid, 2 invalid; 1 path does not exist\n");
}

/// A path named on the command line that does not exist (`nonexist/`, a
/// file named as a folder) is an error naming it in every format, and is
/// not counted as a file checked; exit 1, as for an unreadable file.
#[test]
fn a_path_that_does_not_exist_is_an_error_not_a_file_checked() {
    let base = tempfile::tempdir().unwrap();
    fs::write(
        base.path().join("ok.json"),
        r#"{"question":"Ok?","type":"confirm"}"#,
    )
    .unwrap();
    let line = |path: &str| {
        format!(
            "{path}: READ_ERROR: {path} does not exist; name a file or folder that exists, or - for stdin\n"
        )
    };
    ask_user(base.path())
        .args(["check", "nonexist/"])
        .assert()
        .code(1)
        .stdout(line("nonexist/"))
        .stderr("ask_user check: no files checked; 1 path does not exist\n");
    ask_user(base.path())
        .args(["check", "ok.json", "nonexist/", "ok.json/x.json"])
        .assert()
        .code(1)
        .stdout(line("nonexist/") + &line("ok.json/x.json"))
        .stderr("ask_user check: 1 file valid; 2 paths do not exist\n");
    ask_user(base.path())
        .args(["check", "--format", "github", "nonexist/"])
        .assert()
        .code(1)
        .stdout(
            "::error file=nonexist/,title=ask_user READ_ERROR::nonexist/ does not exist; name a file or folder that exists, or - for stdin\n",
        )
        .stderr("ask_user check: no files checked; 1 path does not exist\n");
    ask_user(base.path())
        .args(["check", "--format", "json", "ok.json", "nonexist/"])
        .assert()
        .code(1)
        .stderr("")
        .stdout(
            r#"{"tool":"ask_user","version":1,"status":"ok","valid":false,"counts":{"files":1,"valid":1,"invalid":0,"missing":1},"files":[{"path":"ok.json","status":"valid","kind":"input"},{"path":"nonexist/","status":"missing","error":{"code":"READ_ERROR","message":"nonexist/ does not exist; name a file or folder that exists, or - for stdin","path":"nonexist/"}}]}
"#,
        );
    // --quiet: no summary, and only the failures, the missing path among them.
    ask_user(base.path())
        .args(["check", "--quiet", "ok.json", "nonexist/"])
        .assert()
        .code(1)
        .stdout(line("nonexist/"))
        .stderr("");
}

/// What a run as an ordinary user needs: `command` run as `nobody` (uid and
/// gid 65534, no groups) through util-linux's setpriv, when this process is
/// root; as it is otherwise.
fn as_ordinary_user(program: &str) -> std::process::Command {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return std::process::Command::new(program);
    }
    let mut command = std::process::Command::new("setpriv");
    command.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]);
    command.arg(program);
    command
}

/// Whether the condition this test needs holds: the ordinary user runs the
/// binary but cannot read `locked`.
fn unreadable_to_an_ordinary_user(dir: &Path, locked: &Path) -> Result<(), String> {
    let runs = as_ordinary_user(common::bin())
        .arg("--version")
        .current_dir(dir)
        .output()
        .map_err(|e| format!("setpriv or the binary does not run: {e}"))?;
    if !runs.status.success() {
        return Err(format!(
            "the binary does not run as an ordinary user: {}",
            String::from_utf8_lossy(&runs.stderr)
        ));
    }
    let reads = as_ordinary_user("cat")
        .arg(locked)
        .output()
        .map_err(|e| format!("cat does not run: {e}"))?;
    if reads.status.success() {
        return Err("an ordinary user still reads a file of mode 000".into());
    }
    Ok(())
}

/// READ_ERROR "permission was denied". Run as root (as CI is), the check
/// runs as nobody, since root reads a file of mode 000; a machine where that
/// cannot be arranged fails the test under CI and skips it elsewhere.
#[test]
fn a_file_without_read_permission_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().unwrap();
    // The folder is listed by whoever runs the check; the file is read by nobody.
    fs::set_permissions(base.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let locked = base.path().join("locked.json");
    fs::write(&locked, "{}").unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    if let Err(why) = unreadable_to_an_ordinary_user(base.path(), &locked) {
        assert!(
            !common::harness::under_ci(),
            "cannot test READ_ERROR for permission denied: {why}"
        );
        eprintln!("skipped: {why}");
        return;
    }
    let output = as_ordinary_user(common::bin())
        .args(["check", "."])
        .current_dir(base.path())
        .env_remove("TOOLBOX_ACTION")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "locked.json: READ_ERROR: cannot read locked.json: permission was denied; pass a readable JSON file or - for stdin\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "ask_user check: 1 file checked, 0 valid, 1 invalid\n"
    );
}

#[test]
fn an_empty_folder_passes_with_a_notice() {
    let base = tempfile::tempdir().unwrap();
    ask_user(base.path())
        .args(["check", "."])
        .assert()
        .code(0)
        .stdout("")
        .stderr("ask_user check: no JSON files found\n");
    ask_user(base.path())
        .args(["check", "--format", "json", "."])
        .assert()
        .code(0)
        .stdout(
            r#"{"tool":"ask_user","version":1,"status":"ok","valid":true,"counts":{"files":0,"valid":0,"invalid":0,"missing":0},"files":[]}
"#,
        );
}

#[test]
fn usage_errors_exit_two_with_nothing_on_stdout() {
    let here = Path::new(ROOT);
    ask_user(here)
        .arg("check")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "the following required arguments were not provided",
        ));
    ask_user(here)
        .args(["check", "--format", "xml", "."])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "invalid value 'xml' for '--format",
        ));
    ask_user(here)
        .args(["check", "--colour", "."])
        .assert()
        .code(2)
        .stdout("");
    ask_user(here)
        .args(["check", "--help"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("--format <FORMAT>"));
}

/// A label that carries terminal escapes reaches the report only as visible text.
#[test]
fn text_report_shows_control_characters_escaped() {
    ask_user(Path::new(ROOT))
        .args(["check", "-"])
        .write_stdin(r#"{"question":"Pick","options":["\u001b[2Jred","\u001b[2JRED"]}"#)
        .assert()
        .code(1)
        .stdout(
            "-: INVALID_OPTIONS: option label \"\\u{1b}[2JRED\" repeats option 1 (labels are compared ignoring case); \
             make each label unique (at options[1])\n",
        );
}

/// A symbolic link named `*.json` to a file is checked as that file; one to
/// a folder is not followed (the folder is walked where it is, if at all).
#[cfg(unix)]
#[test]
fn a_linked_file_is_checked_and_a_linked_folder_is_not_followed() {
    use std::os::unix::fs::symlink;
    let base = tempfile::tempdir().unwrap();
    let tree = base.path().join("tree");
    fs::create_dir_all(tree.join("sub")).unwrap();
    fs::write(
        tree.join("real.json"),
        r#"{"question":"Ok?","type":"confirm"}"#,
    )
    .unwrap();
    fs::write(tree.join("sub/inner.json"), "{}").unwrap();
    symlink("real.json", tree.join("alias.json")).unwrap();
    symlink("sub", tree.join("linked.json")).unwrap();
    let output = ask_user(base.path())
        .args(["check", "--format", "json", "tree"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let files: Vec<(&str, &str)> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        files,
        [
            ("tree/alias.json", "valid"),
            ("tree/real.json", "valid"),
            ("tree/sub/inner.json", "invalid"),
        ]
    );
}

/// A `.toml` file named on the command line is an inbox policy file
/// (`ask_user inbox --policy FILE`, issue #40): valid → kind "policy", exit 0;
/// an error says its line and column, INVALID_FIELD, exit 1.
#[test]
fn a_toml_file_is_checked_as_an_inbox_policy() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("good.toml"),
        "[people.ada]\nnotify = [\"email=ada@example.com\"]\n\n[[escalate]]\nafter = \"2s\"\nnotify = \"ada\"\nvia = \"email\"\n",
    )
    .unwrap();
    fs::write(
        dir.path().join("bad.toml"),
        "[[escalate]]\nafter = \"2s\"\nnotify = \"ada\"\n[[escalate]]\nafter = \"1s\"\nnotify = \"oncall\"\n",
    )
    .unwrap();
    fs::write(dir.path().join("binary.toml"), b"\xff\xfe").unwrap();
    ask_user(dir.path())
        .args(["check", "good.toml"])
        .assert()
        .code(0)
        .stdout("")
        .stderr("ask_user check: 1 file valid\n");
    let output = ask_user(dir.path())
        .args([
            "check",
            "--format",
            "json",
            "good.toml",
            "bad.toml",
            "binary.toml",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let files = report["files"].as_array().expect("files");
    assert_eq!(files[0]["kind"], "policy");
    assert_eq!(files[0]["status"], "valid");
    assert_eq!(files[1]["kind"], "policy");
    assert_eq!(files[1]["error"]["code"], "INVALID_FIELD");
    assert_eq!(
        files[1]["error"]["message"],
        "policy: line 5, column 9: escalate[2].after must be later than the step before it"
    );
    assert_eq!(files[2]["error"]["code"], "INVALID_FIELD");
    assert_eq!(
        files[2]["error"]["message"],
        "the policy file is not UTF-8 (byte 0)"
    );
}
