//! Replies without a terminal: `ask --reply` and `answer`, through the real
//! binary. Every reply form of the parser (DESIGN §7) and every INVALID_REPLY
//! case, each checked through both commands.

mod common;

use assert_cmd::Command;
use serde_json::{Value, json};

use common::bin;

const SINGLE: &str = r#"{"question":"Which database?","options":["PostgreSQL","SQLite","Redis"]}"#;
const SINGLE_OTHER: &str =
    r#"{"question":"Which database?","options":["PostgreSQL","SQLite"],"allow_other":true}"#;
const MULTI: &str =
    r#"{"question":"Features?","multi_select":true,"options":["Auth","Cache","Search"]}"#;
const CONFIRM: &str = r#"{"prompt":"Proceed?","type":"confirm"}"#;
const TEXT: &str = r#"{"questions":[{"question":"Name?","type":"text"}]}"#;
const OPTIONAL: &str = r#"{"questions":[
    {"question":"Pick","options":["a","b"],"required":false},
    {"question":"Notes?","type":"text","required":false},
    {"question":"More?","type":"multi-select","options":["x","y"],"required":false}]}"#;
const THREE: &str = r#"{"questions":[
    {"question":"Which database?","options":["PostgreSQL","SQLite"]},
    {"question":"Proceed?","type":"confirm"},
    {"question":"Name?","type":"text"}]}"#;

/// Runs `ask --reply …` and `answer --reply …` on `input`; both must agree.
fn both(input: &str, replies: &[&str]) -> (i32, Value) {
    let mut results = Vec::new();
    for command in ["ask", "answer"] {
        let mut args = vec![command.to_string()];
        for reply in replies {
            args.push("--reply".into());
            args.push((*reply).into());
        }
        let output = Command::new(bin())
            .args(&args)
            .write_stdin(input)
            .timeout(std::time::Duration::from_secs(10))
            .output()
            .unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(
            stdout.ends_with('\n') && stdout.matches('\n').count() == 1,
            "{stdout:?}"
        );
        let document: Value = serde_json::from_str(&stdout).unwrap();
        results.push((output.status.code().unwrap(), document));
    }
    assert_eq!(results[0], results[1], "ask --reply and answer disagree");
    results.pop().unwrap()
}

fn answers(input: &str, replies: &[&str]) -> Value {
    let (code, document) = both(input, replies);
    assert_eq!(code, 0, "{document}");
    assert_eq!(document["status"], "ok");
    assert_eq!(document["answered"], true);
    assert_eq!(document["cancelled"], false);
    assert_eq!(document["timedOut"], false);
    document["answers"].clone()
}

fn invalid(input: &str, replies: &[&str]) -> Value {
    let (code, document) = both(input, replies);
    assert_eq!(code, 1, "{document}");
    assert_eq!(document["status"], "error");
    assert_eq!(document["error"]["code"], "INVALID_REPLY", "{document}");
    document["error"].clone()
}

#[test]
fn single_select_takes_numbers_in_every_form() {
    for reply in ["2", "#2", "2.", "2)", "  2  "] {
        assert_eq!(
            answers(SINGLE, &[reply]),
            json!([{"questionId":"q1","values":["SQLite"],"optionIds":["2"]}]),
            "{reply:?}"
        );
    }
}

#[test]
fn single_select_takes_a_label_exactly_then_ignoring_case() {
    for reply in ["Redis", "redis", "REDIS"] {
        assert_eq!(
            answers(SINGLE, &[reply]),
            json!([{"questionId":"q1","values":["Redis"],"optionIds":["3"]}])
        );
    }
}

#[test]
fn other_text_is_free_text_when_allowed() {
    assert_eq!(
        answers(SINGLE_OTHER, &["use DuckDB"]),
        json!([{"questionId":"q1","values":["use DuckDB"],"optionIds":[],"customText":"use DuckDB"}])
    );
    // A number still names an option.
    assert_eq!(
        answers(SINGLE_OTHER, &["1"])[0]["values"],
        json!(["PostgreSQL"])
    );
}

#[test]
fn multi_select_takes_numbers_separated_every_way() {
    for reply in ["1,3", "1 3", "1 and 3", "#1, #3", "3,1", "1;3", "1 & 3"] {
        assert_eq!(
            answers(MULTI, &[reply]),
            json!([{"questionId":"q1","values":["Auth","Search"],"optionIds":["1","3"]}]),
            "{reply:?}"
        );
    }
}

#[test]
fn multi_select_takes_labels() {
    assert_eq!(answers(MULTI, &["cache"])[0]["optionIds"], json!(["2"]));
    assert_eq!(
        answers(MULTI, &["Auth, search"])[0]["optionIds"],
        json!(["1", "3"])
    );
}

#[test]
fn confirm_takes_yes_no_in_every_spelling() {
    for (reply, value) in [
        ("yes", "yes"),
        ("y", "yes"),
        ("true", "yes"),
        ("YES", "yes"),
        ("no", "no"),
        ("n", "no"),
        ("false", "no"),
        ("No", "no"),
    ] {
        assert_eq!(
            answers(CONFIRM, &[reply]),
            json!([{"questionId":"q1","values":[value]}]),
            "{reply:?}"
        );
    }
}

#[test]
fn text_takes_free_text_trimmed() {
    assert_eq!(
        answers(TEXT, &["  my app 2  "]),
        json!([{"questionId":"q1","values":["my app 2"]}])
    );
}

#[test]
fn an_empty_reply_skips_questions_that_are_not_required() {
    assert_eq!(
        answers(OPTIONAL, &["", "  ", ""]),
        json!([
            {"questionId":"q1","values":[],"optionIds":[]},
            {"questionId":"q2","values":[]},
            {"questionId":"q3","values":[],"optionIds":[]}])
    );
}

#[test]
fn several_questions_take_one_reply_each_in_order() {
    assert_eq!(
        answers(THREE, &["sqlite", "y", "demo"]),
        json!([
            {"questionId":"q1","values":["SQLite"],"optionIds":["2"]},
            {"questionId":"q2","values":["yes"]},
            {"questionId":"q3","values":["demo"]}])
    );
}

#[test]
fn out_of_range_numbers_are_invalid() {
    for reply in ["0", "4", "#9", "99999999999999999999999"] {
        let error = invalid(SINGLE, &[reply]);
        assert_eq!(error["path"], "questions[0]");
        assert_eq!(
            error["message"],
            "the reply does not answer the question (\"Which database?\"); ask again: Reply with the option number (1-3).",
            "{reply:?}"
        );
    }
    let error = invalid(MULTI, &["1,4"]);
    assert!(
        error["message"].as_str().unwrap().ends_with(
            "ask again: Reply with one or more option numbers (1-3), separated by commas."
        )
    );
}

#[test]
fn a_number_that_names_no_position_is_read_as_a_label() {
    const PORTS: &str = r#"{"question":"Port?","options":["8080","42","3000"],"allow_other":true}"#;
    // In range: a position, as the instructions say.
    assert_eq!(answers(PORTS, &["2"])[0]["values"], json!(["42"]));
    // Out of range: the label it spells.
    assert_eq!(
        answers(PORTS, &["8080"]),
        json!([{"questionId":"q1","values":["8080"],"optionIds":["1"]}])
    );
    const MULTI_PORTS: &str = r#"{"question":"Ports?","multi_select":true,"options":["8080","42","3000"],"allow_other":true}"#;
    assert_eq!(
        answers(MULTI_PORTS, &["8080, 3000"])[0]["optionIds"],
        json!(["1", "3"])
    );
    assert_eq!(
        answers(MULTI_PORTS, &["1, 3"])[0]["optionIds"],
        json!(["1", "3"])
    );
    // A number that is neither a position nor a label is asked again, never taken as Other.
    for (input, reply) in [(PORTS, "7"), (MULTI_PORTS, "1, 7")] {
        let error = invalid(input, &[reply]);
        assert_eq!(error["path"], "questions[0]", "{reply:?}");
    }
}

#[test]
fn an_unknown_label_is_invalid_without_other() {
    let error = invalid(SINGLE, &["MySQL"]);
    assert_eq!(error["path"], "questions[0]");
    let error = invalid(MULTI, &["Auth, Billing"]);
    assert_eq!(error["path"], "questions[0]");
}

#[test]
fn confirm_needs_yes_or_no() {
    let error = invalid(CONFIRM, &["maybe"]);
    assert_eq!(
        error["message"],
        "the reply does not answer the question (\"Proceed?\"); ask again: Reply yes or no."
    );
}

#[test]
fn an_empty_reply_to_a_required_question_is_invalid() {
    for input in [SINGLE, MULTI, CONFIRM, TEXT] {
        let error = invalid(input, &[""]);
        assert_eq!(error["path"], "questions[0]", "{input}");
    }
}

#[test]
fn the_wrong_number_of_replies_is_invalid() {
    let error = invalid(THREE, &["1", "y"]);
    assert_eq!(
        error["message"],
        "3 questions need replies, one per question in order, but 2 were given; pass one --reply for each question"
    );
    assert!(error.get("path").is_none());
    let error = invalid(SINGLE, &["1", "2"]);
    assert_eq!(
        error["message"],
        "1 question needs a reply, one per question in order, but 2 were given; pass one --reply for each question"
    );
    // `answer` without any reply.
    let output = Command::new(bin())
        .arg("answer")
        .write_stdin(SINGLE)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["error"]["code"], "INVALID_REPLY");
}

#[test]
fn an_invalid_reply_names_its_question_among_several() {
    let error = invalid(THREE, &["1", "perhaps", "x"]);
    assert_eq!(error["path"], "questions[1]");
    assert_eq!(
        error["message"],
        "the reply does not answer question 2 of 3 (\"Proceed?\"); ask again: Reply yes or no."
    );
}

fn prompt_document(input: &str) -> String {
    let output = Command::new(bin())
        .arg("prompt")
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

fn answer(stdin: &str, replies: &[&str]) -> (i32, Value) {
    let mut command = Command::new(bin());
    command.arg("answer");
    for reply in replies {
        command.arg("--reply").arg(reply);
    }
    let output = command.write_stdin(stdin).output().unwrap();
    (
        output.status.code().unwrap(),
        serde_json::from_slice(&output.stdout).unwrap(),
    )
}

#[test]
fn answer_reads_a_prompt_document_as_execute_prints_it() {
    for (input, replies) in [
        (SINGLE, vec!["2"]),
        (SINGLE_OTHER, vec!["use DuckDB"]),
        (MULTI, vec!["1 and 3"]),
        (CONFIRM, vec!["y"]),
        (OPTIONAL, vec!["", "", "2"]),
        (THREE, vec!["sqlite", "n", "demo"]),
    ] {
        let from_input = answer(input, &replies);
        let from_document = answer(&prompt_document(input), &replies);
        assert_eq!(from_input.0, 0, "{}", from_input.1);
        assert_eq!(from_input, from_document, "{input}");
    }
}

#[test]
fn answer_keeps_given_ids_and_rejects_what_the_document_rejects() {
    let input = r#"{"questions":[{"id":"db","question":"Which?","options":["a","b"]}]}"#;
    let (code, document) = answer(&prompt_document(input), &["b"]);
    assert_eq!(code, 0);
    assert_eq!(document["answers"][0]["questionId"], "db");
    // Without allow_other in the document, free text is no answer.
    let (code, document) = answer(&prompt_document(SINGLE), &["something else"]);
    assert_eq!(code, 1);
    assert_eq!(document["error"]["code"], "INVALID_REPLY");
    assert_eq!(document["error"]["path"], "questions[0]");
}

#[test]
fn a_user_ask_input_with_a_string_prompt_is_not_a_prompt_document() {
    let input = r#"{"tool":"ask_user","prompt":"Proceed?","type":"confirm"}"#;
    let (code, document) = answer(input, &["yes"]);
    assert_eq!(code, 0, "{document}");
    assert_eq!(document["answers"][0]["values"], json!(["yes"]));
}

#[test]
fn a_broken_prompt_document_is_an_input_error() {
    let (code, document) = answer(r#"{"tool":"ask_user","prompt":{"question":"x"}}"#, &["1"]);
    assert_eq!(code, 1);
    assert_eq!(document["error"]["code"], "INVALID_INPUT");
    assert!(document["error"]["parseError"].is_string());

    let select_without_options = r#"{"tool":"ask_user","prompt":{"question":"x","kind":"single_select",
        "answer_instructions":"Reply.","answer_format":{"type":"integer","min":1,"max":2}}}"#;
    let (code, document) = answer(select_without_options, &["1"]);
    assert_eq!(code, 1);
    assert_eq!(document["error"]["code"], "MISSING_OPTIONS");
    assert_eq!(document["error"]["path"], "prompt.options");
}

#[test]
fn input_errors_come_before_replies() {
    let (code, document) = both(r#"{"question":"x"}"#, &["1"]);
    assert_eq!(code, 1);
    assert_eq!(document["error"]["code"], "MISSING_OPTIONS");
    let (code, document) = both("not json", &["1"]);
    assert_eq!(code, 1);
    assert_eq!(document["error"]["code"], "INVALID_JSON");
}

#[test]
fn a_bad_timeout_is_a_usage_error() {
    for value in ["abc", "-1", "NaN"] {
        Command::new(bin())
            .args(["ask", "--timeout", value, "--reply", "1"])
            .write_stdin(SINGLE)
            .assert()
            .code(2)
            .stdout("");
    }
}

/// `--reply VALUE` takes VALUE as it is, even when it starts with "-": a
/// reply is data, never a flag (and `--reply=VALUE` says the same).
#[test]
fn replies_that_start_with_a_dash_are_replies() {
    assert_eq!(
        answers(SINGLE_OTHER, &["- use Redis"]),
        json!([{"questionId":"q1","values":["- use Redis"],"optionIds":[],"customText":"- use Redis"}])
    );
    assert_eq!(
        answers(TEXT, &["-v --verbose"]),
        json!([{"questionId":"q1","values":["-v --verbose"]}])
    );
    const OFFSETS: &str = r#"{"question":"Offset?","options":["-1","0","+1"]}"#;
    assert_eq!(
        answers(OFFSETS, &["-1"]),
        json!([{"questionId":"q1","values":["-1"],"optionIds":["1"]}])
    );
    assert_eq!(answers(OFFSETS, &["+1"])[0]["optionIds"], json!(["3"]));
    // "-1" names no option of SINGLE: asked again (exit 1), not a usage error (exit 2).
    let error = invalid(SINGLE, &["-1"]);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("Reply with the option number (1-3)"),
        "{error}"
    );
    for command in ["ask", "answer"] {
        let output = Command::new(bin())
            .args([command, "--reply=-5", "--reply", "-2"])
            .write_stdin(THREE)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{command}");
        let document: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(document["error"]["code"], "INVALID_REPLY");
        assert!(output.stderr.is_empty(), "{command}");
    }
}

/// A number is an option's position, else a label; one that is neither
/// ("9", "-1", "-5", "1.5", "+2", ".5") is asked again, even where Other
/// text is allowed. Text with a number in it is Other text.
#[test]
fn numbers_that_name_no_option_are_never_other_text() {
    const MULTI_OTHER: &str = r#"{"question":"Features?","multi_select":true,
        "options":["Auth","Cache","Search"],"allow_other":true}"#;
    for reply in ["9", "-1", "-5", "1.5", "+2", ".5", "#-1", "2.5."] {
        let error = invalid(SINGLE_OTHER, &[reply]);
        assert_eq!(error["path"], "questions[0]", "{reply}");
        invalid(MULTI_OTHER, &[reply]);
    }
    invalid(MULTI_OTHER, &["1, -2"]);
    invalid(MULTI_OTHER, &["1.5 and 2"]);
    for reply in ["-", "version 1.5", "- 1", "1.2.3"] {
        assert_eq!(
            answers(SINGLE_OTHER, &[reply])[0]["customText"],
            reply,
            "{reply}"
        );
    }
    assert_eq!(
        answers(MULTI_OTHER, &["2 servers"])[0]["customText"],
        "2 servers"
    );
}

/// Runs `ask ARGS` and `answer ARGS` on `input` (stdin); both must agree.
/// Returns the exit code, stdout and stderr.
fn both_with(input: &str, args: &[&str]) -> (i32, String, String) {
    let mut results = Vec::new();
    for command in ["ask", "answer"] {
        let output = Command::new(bin())
            .arg(command)
            .args(args)
            .write_stdin(input)
            .timeout(std::time::Duration::from_secs(10))
            .output()
            .unwrap();
        results.push((
            output.status.code().unwrap(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr)
                .unwrap()
                .replace(&format!("ask_user {command}"), "ask_user COMMAND"),
        ));
    }
    assert_eq!(results[0], results[1], "ask --reply and answer disagree");
    results.pop().unwrap()
}

#[test]
fn a_note_after_a_reply_goes_beside_its_answer() {
    let (code, stdout, stderr) = both_with(
        THREE,
        &[
            "--reply",
            "1",
            "--note",
            "but keep SQLite for tests",
            "--reply",
            "y",
            "--reply=Ada",
            "--note=-- not the final name",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(
        stdout,
        format!(
            "{{\"tool\":\"ask_user\",\"version\":1,\"status\":\"ok\",\"answered\":true,\"cancelled\":false,\"timedOut\":false,\"answers\":[\
         {{\"questionId\":\"q1\",\"values\":[\"PostgreSQL\"],\"optionIds\":[\"1\"],\"note\":\"but keep SQLite for tests\"}},\
         {{\"questionId\":\"q2\",\"values\":[\"yes\"]}},\
         {{\"questionId\":\"q3\",\"values\":[\"Ada\"],\"note\":\"-- not the final name\"}}]{}}}\n",
            common::answered_by_json("cli")
        )
    );
    assert_eq!(stderr, "");
    // A skipped question keeps its note; an empty note is none.
    let (code, stdout, _) = both_with(
        OPTIONAL,
        &[
            "--reply",
            "",
            "--note",
            "ask me later",
            "--reply",
            "x",
            "--note",
            " ",
            "--reply",
            "",
        ],
    );
    assert_eq!(code, 0);
    let document: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        document["answers"],
        json!([{"questionId":"q1","values":[],"optionIds":[],"note":"ask me later"},
               {"questionId":"q2","values":["x"]},
               {"questionId":"q3","values":[],"optionIds":[]}])
    );
}

#[test]
fn a_reply_or_a_note_that_looks_like_a_flag_is_data() {
    let (code, stdout, _) = both_with(
        r#"{"questions":[{"question":"Name?","type":"text"},{"question":"Other?","type":"text"}]}"#,
        &[
            "--reply",
            "--note",
            "--note",
            "--reply",
            "--reply",
            "x --note y",
        ],
    );
    assert_eq!(code, 0, "{stdout}");
    let document: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        document["answers"],
        json!([{"questionId":"q1","values":["--note"],"note":"--reply"},
               {"questionId":"q2","values":["x --note y"]}])
    );
}

#[test]
fn a_note_with_no_reply_before_it_or_a_second_note_is_a_usage_error() {
    for (args, message) in [
        (
            &["--note", "early", "--reply", "1"][..],
            "error: --note \"early\" comes before any --reply; give it after the reply it goes with\n",
        ),
        (
            &["--reply", "1", "--note", "a", "--note", "b"][..],
            "error: reply 1 has two notes; give at most one --note after each --reply\n",
        ),
        (
            &["--note", "alone"][..],
            "error: --note \"alone\" comes before any --reply; give it after the reply it goes with\n",
        ),
    ] {
        let (code, stdout, stderr) = both_with(SINGLE, args);
        assert_eq!(code, 2, "{args:?}");
        assert_eq!(stdout, "", "{args:?}");
        assert!(stderr.starts_with(message), "{args:?}: {stderr}");
        assert!(stderr.contains("Usage: ask_user COMMAND"), "{stderr}");
    }
}

#[test]
fn a_note_longer_than_1000_characters_is_invalid_reply() {
    let long = "n".repeat(1001);
    let (code, stdout, _) = both_with(
        THREE,
        &[
            "--reply", "1", "--reply", "y", "--note", &long, "--reply", "a",
        ],
    );
    assert_eq!(code, 1);
    let document: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        document["error"],
        json!({"code":"INVALID_REPLY",
               "message":"the note on question 2 of 3 is 1001 characters; a note is at most 1000",
               "path":"questions[1]"})
    );
    let fits = "n".repeat(1000);
    let (code, _, _) = both_with(
        THREE,
        &[
            "--reply", "1", "--reply", "y", "--note", &fits, "--reply", "a",
        ],
    );
    assert_eq!(code, 0);
}
