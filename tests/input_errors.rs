//! Every rule of DESIGN §2 that rejects input, through the binary: exact code,
//! path, message and exit code.

mod common;
use common::*;

fn opts(n: usize) -> String {
    let items: Vec<String> = (1..=n).map(|i| format!("\"opt {i}\"")).collect();
    format!("[{}]", items.join(","))
}

// --- INPUT_TOO_LARGE / INVALID_JSON / INVALID_INPUT -------------------------

#[test]
fn input_over_256_kib_is_too_large() {
    let base = r#"{"question":"q","options":["a","b"]}"#;
    let input = format!("{base}{}", " ".repeat(262_145 - base.len()));
    assert_eq!(input.len(), 262_145);
    let run = execute(input.as_bytes());
    assert_error(&run, "INPUT_TOO_LARGE", None, "larger than 262144 bytes");
    // The same through a file.
    let file = std::env::temp_dir().join(format!("ask_user_big_{}.json", std::process::id()));
    std::fs::write(&file, &input).unwrap();
    let run = run_with(&["prompt", file.to_str().unwrap()], &[], b"");
    std::fs::remove_file(&file).unwrap();
    assert_error(&run, "INPUT_TOO_LARGE", None, "larger than 262144 bytes");
}

#[test]
fn endless_input_is_cut_off_at_the_limit() {
    let input = vec![b'['; 5_000_000];
    assert_error(&execute(&input), "INPUT_TOO_LARGE", None, "262144");
}

#[test]
fn empty_and_blank_input_is_invalid_json() {
    for input in ["", "   \n\t ", "\u{feff}"] {
        let doc = assert_error(&execute(input.as_bytes()), "INVALID_JSON", None, "empty");
        assert_eq!(doc["error"]["parseError"], "empty input");
    }
}

#[test]
fn malformed_json_keeps_the_parser_message() {
    let doc = err(
        "{\"question\": \"q\",",
        "INVALID_JSON",
        None,
        "not valid JSON",
    );
    assert!(
        doc["error"]["parseError"]
            .as_str()
            .unwrap()
            .contains("line 1")
    );
    let doc = err(
        "{\"question\":\"q\",\"options\":[\"a\",\"b\"]} trailing",
        "INVALID_JSON",
        None,
        "not valid JSON",
    );
    assert!(
        doc["error"]["parseError"]
            .as_str()
            .unwrap()
            .contains("trailing characters")
    );
}

#[test]
fn invalid_utf8_is_invalid_json() {
    let mut input = b"{\"question\":\"".to_vec();
    input.extend_from_slice(&[0xff, 0xfe]);
    input.extend_from_slice(b"\",\"options\":[\"a\",\"b\"]}");
    let doc = assert_error(&execute(&input), "INVALID_JSON", None, "not valid JSON");
    assert!(
        doc["error"]["parseError"]
            .as_str()
            .unwrap()
            .contains("unicode")
    );
}

#[test]
fn deep_nesting_is_a_clean_error() {
    let input = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let doc = err(&input, "INVALID_JSON", None, "not valid JSON");
    assert!(
        doc["error"]["parseError"]
            .as_str()
            .unwrap()
            .contains("recursion limit")
    );
}

#[test]
fn anything_but_an_object_is_invalid_input() {
    for (input, found) in [
        ("[1,2]", "an array"),
        ("42", "a number"),
        ("true", "a boolean"),
        ("null", "null"),
        ("\"hello\"", "a string"),
        ("\"[1,2]\"", "a string"),
        // Only one level of double encoding is unwrapped.
        (r#""\"{\\\"question\\\":\\\"q\\\"}\"""#, "a string"),
    ] {
        err(input, "INVALID_INPUT", None, &format!("not {found}"));
    }
}

#[test]
fn questions_with_a_top_level_question_is_invalid_input() {
    err(
        r#"{"question":"q","questions":[{"question":"a"}]}"#,
        "INVALID_INPUT",
        Some("question"),
        "either a questions array or a top-level question",
    );
    err(
        r#"{"prompt":"q","type":"text","questions":[{"question":"a"}]}"#,
        "INVALID_INPUT",
        Some("prompt"),
        "not both",
    );
}

// --- MISSING_QUESTION --------------------------------------------------------

#[test]
fn a_missing_or_empty_question_is_missing_question() {
    err(
        "{}",
        "MISSING_QUESTION",
        Some("question"),
        "has no question",
    );
    err(
        r#"{"options":["a","b"]}"#,
        "MISSING_QUESTION",
        Some("question"),
        "has no question",
    );
    err(
        r#"{"question":"","options":["a","b"]}"#,
        "MISSING_QUESTION",
        Some("question"),
        "non-empty string",
    );
    err(
        r#"{"question":"  \n ","options":["a","b"]}"#,
        "MISSING_QUESTION",
        Some("question"),
        "non-empty string",
    );
    err(
        r#"{"question":7,"options":["a","b"]}"#,
        "MISSING_QUESTION",
        Some("question"),
        "question must be a non-empty string",
    );
    err(
        r#"{"prompt":"","type":"text"}"#,
        "MISSING_QUESTION",
        Some("prompt"),
        "prompt must be a non-empty string",
    );
    err(
        r#"{"questions":[{"question":"ok"},{"type":"text"}]}"#,
        "MISSING_QUESTION",
        Some("questions[1].question"),
        "non-empty string",
    );
}

// --- MISSING_OPTIONS ---------------------------------------------------------

#[test]
fn a_select_without_options_is_missing_options() {
    err(
        r#"{"question":"q"}"#,
        "MISSING_OPTIONS",
        Some("options"),
        "options is required",
    );
    err(
        r#"{"question":"q","options":null}"#,
        "MISSING_OPTIONS",
        Some("options"),
        "options is required",
    );
    err(
        r#"{"prompt":"q","type":"choice"}"#,
        "MISSING_OPTIONS",
        Some("options"),
        "2 to 20 choices",
    );
    err(
        r#"{"questions":[{"question":"q","type":"multi-select"}]}"#,
        "MISSING_OPTIONS",
        Some("questions[0].options"),
        "options is required",
    );
    err(
        r#"{"questions":[{"question":"q","multiSelect":true,"header":"H"}]}"#,
        "MISSING_OPTIONS",
        Some("questions[0].options"),
        "options is required",
    );
}

// --- INVALID_OPTIONS_JSON ----------------------------------------------------

#[test]
fn an_options_string_that_is_not_json_is_invalid_options_json() {
    let doc = err(
        r#"{"question":"q","options":"A, B"}"#,
        "INVALID_OPTIONS_JSON",
        Some("options"),
        "not a JSON array",
    );
    assert!(
        doc["error"]["parseError"]
            .as_str()
            .unwrap()
            .contains("line 1")
    );
    err(
        r#"{"questions":[{"question":"q"},{"question":"r","options":"[\"a\","}]}"#,
        "INVALID_OPTIONS_JSON",
        Some("questions[1].options"),
        "not a JSON array",
    );
}

// --- INVALID_OPTIONS ---------------------------------------------------------

#[test]
fn option_counts_are_limited_to_2_through_20() {
    err(
        &format!(r#"{{"question":"q","options":{}}}"#, opts(1)),
        "INVALID_OPTIONS",
        Some("options"),
        "at least 2 items",
    );
    err(
        r#"{"question":"q","options":[]}"#,
        "INVALID_OPTIONS",
        Some("options"),
        "at least 2 items",
    );
    err(
        r#"{"question":"q","options":"[]"}"#,
        "INVALID_OPTIONS",
        Some("options"),
        "at least 2 items",
    );
    err(
        &format!(r#"{{"question":"q","options":{}}}"#, opts(21)),
        "INVALID_OPTIONS",
        Some("options"),
        "at most 20 items (it has 21)",
    );
    ok(&format!(r#"{{"question":"q","options":{}}}"#, opts(2)));
    ok(&format!(r#"{{"question":"q","options":{}}}"#, opts(20)));
}

#[test]
fn options_must_be_an_array() {
    err(
        r#"{"question":"q","options":5}"#,
        "INVALID_OPTIONS",
        Some("options"),
        "not a number",
    );
    err(
        r#"{"question":"q","options":{"a":1}}"#,
        "INVALID_OPTIONS",
        Some("options"),
        "not an object",
    );
    err(
        r#"{"question":"q","options":"{\"a\":1}"}"#,
        "INVALID_OPTIONS",
        Some("options"),
        "not an object",
    );
}

#[test]
fn booleans_nulls_arrays_and_labelless_objects_are_not_options() {
    for (option, found) in [
        ("true", "a boolean"),
        ("null", "null"),
        ("[\"x\"]", "an array"),
        ("{\"description\":\"d\"}", "without a label"),
    ] {
        err(
            &format!(r#"{{"question":"q","options":["a",{option}]}}"#),
            "INVALID_OPTIONS",
            Some("options[1]"),
            found,
        );
    }
    err(
        r#"{"question":"q","options":["a",{"label":false}]}"#,
        "INVALID_OPTIONS",
        Some("options[1].label"),
        "label must be a string",
    );
    err(
        r#"{"question":"q","options":["a",{"label":"b","description":[1]}]}"#,
        "INVALID_OPTIONS",
        Some("options[1].description"),
        "description must be a string",
    );
    err(
        r#"{"question":"q","options":["a",{"label":"b","recommended":"yes"}]}"#,
        "INVALID_OPTIONS",
        Some("options[1].recommended"),
        "true or false",
    );
}

#[test]
fn labels_must_be_present_short_and_unique() {
    err(
        r#"{"question":"q","options":["a","  "]}"#,
        "INVALID_OPTIONS",
        Some("options[1]"),
        "must not be empty",
    );
    err(
        r#"{"question":"q","options":[{"label":""},"b"]}"#,
        "INVALID_OPTIONS",
        Some("options[0].label"),
        "must not be empty",
    );
    let long = "x".repeat(201);
    err(
        &format!(r#"{{"question":"q","options":["a","{long}"]}}"#),
        "INVALID_OPTIONS",
        Some("options[1]"),
        "at most 200 characters (it has 201)",
    );
    ok(&format!(
        r#"{{"question":"q","options":["a","{}"]}}"#,
        "é".repeat(200)
    ));
    // Repeated labels are reported at the later, repeating option, ignoring case.
    err(
        r#"{"question":"q","options":["Yes","No","yes"]}"#,
        "INVALID_OPTIONS",
        Some("options[2]"),
        "repeats option 1",
    );
    err(
        r#"{"question":"q","options":["a",{"title":"A"}]}"#,
        "INVALID_OPTIONS",
        Some("options[1].title"),
        "repeats option 1",
    );
    err(
        r#"{"questions":[{"question":"q","options":["x","y","Z","z"]}]}"#,
        "INVALID_OPTIONS",
        Some("questions[0].options[3]"),
        "repeats option 3",
    );
}

#[test]
fn descriptions_are_limited_to_1000_characters() {
    let long = "d".repeat(1001);
    err(
        &format!(r#"{{"question":"q","options":[{{"label":"a","description":"{long}"}},"b"]}}"#),
        "INVALID_OPTIONS",
        Some("options[0].description"),
        "at most 1000 characters",
    );
    err(
        &format!(r#"{{"question":"q","options":[{{"label":"a","hint":"{long}"}},"b"]}}"#),
        "INVALID_OPTIONS",
        Some("options[0].hint"),
        "at most 1000 characters",
    );
}

#[test]
fn options_given_to_text_or_confirm_are_invalid() {
    err(
        r#"{"prompt":"q","type":"text","options":["a","b"]}"#,
        "INVALID_OPTIONS",
        Some("options"),
        "only for select questions",
    );
    err(
        r#"{"questions":[{"question":"q","type":"confirm","options":["a","b"]}]}"#,
        "INVALID_OPTIONS",
        Some("questions[0].options"),
        "it is confirm",
    );
}

// --- INVALID_QUESTIONS -------------------------------------------------------

#[test]
fn questions_must_be_an_array_of_1_to_10_objects() {
    err(
        r#"{"questions":"q"}"#,
        "INVALID_QUESTIONS",
        Some("questions"),
        "not a string",
    );
    err(
        r#"{"questions":{"question":"q"}}"#,
        "INVALID_QUESTIONS",
        Some("questions"),
        "not an object",
    );
    err(
        r#"{"questions":[]}"#,
        "INVALID_QUESTIONS",
        Some("questions"),
        "1 to 10 items (it has 0)",
    );
    let eleven: Vec<String> = (0..11)
        .map(|i| format!(r#"{{"question":"q{i}"}}"#))
        .collect();
    err(
        &format!(r#"{{"questions":[{}]}}"#, eleven.join(",")),
        "INVALID_QUESTIONS",
        Some("questions"),
        "(it has 11)",
    );
    let ten: Vec<String> = (0..10)
        .map(|i| format!(r#"{{"question":"q{i}"}}"#))
        .collect();
    ok(&format!(r#"{{"questions":[{}]}}"#, ten.join(",")));
    err(
        r#"{"questions":[{"question":"a"},{"question":"b"},{"question":"c"},"d"]}"#,
        "INVALID_QUESTIONS",
        Some("questions[3]"),
        "must be an object",
    );
}

#[test]
fn two_questions_with_one_id_are_invalid_questions() {
    err(
        r#"{"questions":[{"id":"a","question":"x"},{"id":"a","question":"y"}]}"#,
        "INVALID_QUESTIONS",
        Some("questions[1].id"),
        "\"a\" is used by questions[0] too",
    );
    // A given id may not take a generated one either.
    err(
        r#"{"questions":[{"question":"x"},{"id":"q1","question":"y"}]}"#,
        "INVALID_QUESTIONS",
        Some("questions[1].id"),
        "\"q1\"",
    );
}

// --- INVALID_FIELD -----------------------------------------------------------

#[test]
fn text_limits_are_invalid_field() {
    let q = "q".repeat(1001);
    err(
        &format!(r#"{{"question":"{q}","options":["a","b"]}}"#),
        "INVALID_FIELD",
        Some("question"),
        "at most 1000 characters (it has 1001)",
    );
    ok(&format!(
        r#"{{"question":"{}","options":["a","b"]}}"#,
        "q".repeat(1000)
    ));
    let t = "t".repeat(101);
    err(
        &format!(r#"{{"title":"{t}","question":"q","options":["a","b"]}}"#),
        "INVALID_FIELD",
        Some("title"),
        "at most 100",
    );
    ok(&format!(
        r#"{{"title":"{}","question":"q","options":["a","b"]}}"#,
        "t".repeat(100)
    ));
    err(
        r#"{"questions":[{"question":"q"},{"question":"r","header":"Thirteen char"}]}"#,
        "INVALID_FIELD",
        Some("questions[1].header"),
        "at most 12",
    );
    ok(r#"{"questions":[{"question":"r","header":"Twelve chars"}]}"#);
    let c = "c".repeat(4001);
    err(
        &format!(r#"{{"question":"q","context":"{c}","options":["a","b"]}}"#),
        "INVALID_FIELD",
        Some("context"),
        "at most 4000",
    );
    err(
        &format!(r#"{{"context":"{c}","questions":[{{"question":"q"}}]}}"#),
        "INVALID_FIELD",
        Some("context"),
        "at most 4000",
    );
    err(
        &format!(r#"{{"questions":[{{"question":"q","context":"{c}"}}]}}"#),
        "INVALID_FIELD",
        Some("questions[0].context"),
        "at most 4000",
    );
}

#[test]
fn wrongly_typed_fields_are_invalid_field() {
    err(
        r#"{"title":5,"question":"q","options":["a","b"]}"#,
        "INVALID_FIELD",
        Some("title"),
        "title must be a string, not a number",
    );
    err(
        r#"{"question":"q","context":["x"],"options":["a","b"]}"#,
        "INVALID_FIELD",
        Some("context"),
        "not an array",
    );
    err(
        r#"{"questions":[{"question":"q","header":true}]}"#,
        "INVALID_FIELD",
        Some("questions[0].header"),
        "must be a string",
    );
    for id in ["[1]", r#""""#, r#""  ""#] {
        err(
            &format!(r#"{{"questions":[{{"question":"q","id":{id}}}]}}"#),
            "INVALID_FIELD",
            Some("questions[0].id"),
            "id must be a non-empty string",
        );
    }
    err(
        r#"{"questions":[{"question":"q","required":"no"}]}"#,
        "INVALID_FIELD",
        Some("questions[0].required"),
        "true or false",
    );
    err(
        r#"{"question":"q","options":["a","b"],"multi_select":"yes"}"#,
        "INVALID_FIELD",
        Some("multi_select"),
        "true or false",
    );
    err(
        r#"{"question":"q","options":["a","b"],"allowOther":1}"#,
        "INVALID_FIELD",
        Some("allowOther"),
        "true or false",
    );
    err(
        r#"{"questions":[{"question":"q","placeholder":{}}]}"#,
        "INVALID_FIELD",
        Some("questions[0].placeholder"),
        "must be a string",
    );
}

#[test]
fn an_unknown_type_or_kind_is_invalid_field() {
    err(
        r#"{"question":"q","type":"slider","options":["a","b"]}"#,
        "INVALID_FIELD",
        Some("type"),
        "type must be one of text, select",
    );
    err(
        r#"{"questions":[{"question":"q","kind":"radio"}]}"#,
        "INVALID_FIELD",
        Some("questions[0].kind"),
        "kind must be one of",
    );
    err(
        r#"{"questions":[{"question":"q","type":3}]}"#,
        "INVALID_FIELD",
        Some("questions[0].type"),
        "type must be one of",
    );
}

#[test]
fn timeout_must_be_an_integer_from_10000_to_1800000() {
    for bad in [
        "9999",
        "1800001",
        "-1",
        "60000.0",
        "\"60000\"",
        "1e5",
        "true",
    ] {
        err(
            &format!(r#"{{"timeout":{bad},"question":"q","options":["a","b"]}}"#),
            "INVALID_FIELD",
            Some("timeout"),
            "whole number of milliseconds from 10000 to 1800000",
        );
    }
    for good in ["10000", "1800000", "null"] {
        let doc = ok(&format!(
            r#"{{"timeout":{good},"question":"q","options":["a","b"]}}"#
        ));
        assert!(
            !doc.to_string().contains("timeout"),
            "timeout is not echoed"
        );
    }
}

#[test]
fn a_default_that_is_no_option_is_invalid_field() {
    err(
        r#"{"question":"q","options":["a","b"],"default":"c"}"#,
        "INVALID_FIELD",
        Some("default"),
        "label or its number (1-2)",
    );
    err(
        r#"{"question":"q","options":["a","b"],"default":3}"#,
        "INVALID_FIELD",
        Some("default"),
        "(1-2)",
    );
    err(
        r#"{"question":"q","options":["a","b"],"default":0}"#,
        "INVALID_FIELD",
        Some("default"),
        "(1-2)",
    );
    err(
        r#"{"question":"q","options":["a","b"],"default":["a","b"]}"#,
        "INVALID_FIELD",
        Some("default"),
        "single select",
    );
    err(
        r#"{"questions":[{"question":"q","type":"multi_select","options":["a","b"],"default":["a","x"]}]}"#,
        "INVALID_FIELD",
        Some("questions[0].default"),
        "label or its number",
    );
    err(
        r#"{"prompt":"q","type":"confirm","default":"maybe"}"#,
        "INVALID_FIELD",
        Some("default"),
        "yes or no",
    );
    err(
        r#"{"prompt":"q","type":"confirm","default":1}"#,
        "INVALID_FIELD",
        Some("default"),
        "yes or no",
    );
    err(
        r#"{"prompt":"q","type":"text","default":{"a":1}}"#,
        "INVALID_FIELD",
        Some("default"),
        "must be a string",
    );
}

// --- UNKNOWN_ACTION, READ_ERROR, INTERNAL_ERROR, usage -----------------------

#[test]
fn an_unknown_toolbox_action_is_unknown_action() {
    for action in ["Describe", "run", "execute "] {
        let run = run_with(&[], &[("TOOLBOX_ACTION", action)], b"");
        assert_error(
            &run,
            "UNKNOWN_ACTION",
            None,
            "TOOLBOX_ACTION must be describe or execute",
        );
    }
    // TOOLBOX_ACTION wins over argv.
    let run = run_with(&["describe"], &[("TOOLBOX_ACTION", "bogus")], b"");
    assert_error(&run, "UNKNOWN_ACTION", None, "\"bogus\"");
}

#[test]
fn an_empty_toolbox_action_counts_as_unset() {
    let run = run_with(&["describe"], &[("TOOLBOX_ACTION", "")], b"");
    assert_eq!(run.code, 0);
    assert_eq!(run.doc()["name"], "ask_user");
}

#[test]
fn execute_reads_a_blank_ask_user_ui_as_unset_and_refuses_an_unknown_one() {
    let question = br#"{"prompt":"Go?","type":"confirm"}"#;
    let unset = run_with(&[], &[("TOOLBOX_ACTION", "execute")], question);
    assert_eq!(unset.code, 0);
    assert_eq!(unset.doc()["prompt"]["kind"], "confirm");
    // Blank: the prompt document still, not an asker (which finds no terminal here).
    let blank = run_with(
        &[],
        &[("TOOLBOX_ACTION", "execute"), ("ASK_USER_UI", " \t")],
        question,
    );
    assert_eq!((blank.code, &blank.stdout), (0, &unset.stdout));
    let unknown = run_with(
        &[],
        &[("TOOLBOX_ACTION", "execute"), ("ASK_USER_UI", "fancy")],
        question,
    );
    assert_error(
        &unknown,
        "UNKNOWN_ACTION",
        None,
        "ASK_USER_UI must be tty, plain, web, inbox or auto, not \"fancy\" (or unset, for the prompt document)",
    );
}

#[test]
fn an_unreadable_file_is_read_error() {
    let run = run_with(&["prompt", "/nonexistent/q.json"], &[], b"");
    assert_error(
        &run,
        "READ_ERROR",
        Some("/nonexistent/q.json"),
        "it does not exist",
    );
    let dir = env!("CARGO_MANIFEST_DIR");
    let run = run_with(&["prompt", dir], &[], b"");
    assert_error(&run, "READ_ERROR", Some(dir), "is a directory");
}

#[test]
fn a_panic_becomes_internal_error() {
    let run = run_with(&["describe"], &[("ASK_USER_DEBUG_PANIC", "1")], b"");
    assert_error(&run, "INTERNAL_ERROR", None, "failed unexpectedly");
    assert!(run.stderr.contains("internal error"));
    assert!(
        !run.stderr.contains("RUST_BACKTRACE"),
        "no raw panic text: {}",
        run.stderr
    );
}

#[test]
fn usage_errors_exit_2_with_nothing_on_stdout() {
    for args in [
        &["frobnicate"][..],
        &["describe", "--format", "xml"],
        &["prompt", "a", "b"],
        &[],
    ] {
        let run = run_with(args, &[], b"");
        assert_eq!(run.code, 2, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(!run.stderr.is_empty());
    }
}

#[test]
fn help_and_version_go_to_stdout_with_exit_0() {
    let run = run_with(&["--help"], &[], b"");
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("Usage: ask_user"));
    let run = run_with(&["--version"], &[], b"");
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        format!("ask_user {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_closed_stdout_ends_the_run_quietly() {
    use std::process::{Command, Stdio};
    let mut child = common::process::ChildGuard::spawn(
        Command::new(bin())
            .arg("describe")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .unwrap();
    drop(child.stdout.take()); // the reader goes away before the write
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "no panic text on a closed pipe"
    );
    assert!(out.status.code().is_some(), "not killed by a signal");
}

// --- READ_ERROR: the file a command is given --------------------------------

/// `prompt FILE` with FILE unreadable: READ_ERROR, exit 1, and the reason
/// (an_unreadable_file_is_read_error above has a folder and a missing file).
#[cfg(unix)]
fn read_error_reason(path: &std::path::Path) -> String {
    let path_text = path.to_str().unwrap();
    let run = run_with(&["prompt", path_text], &[], b"");
    // The error's path is the file's, as given.
    let doc = assert_error(&run, "READ_ERROR", Some(path_text), "cannot read");
    let message = doc["error"]["message"].as_str().unwrap().to_string();
    let prefix = format!("cannot read {}: ", path.display());
    let reason = message
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix("; pass a readable JSON file or - for stdin"))
        .unwrap_or_else(|| panic!("{message:?}"));
    reason.to_string()
}

/// Any other reason is the system's own words: a path through a file is
/// "not a directory" (ENOTDIR), which is not "it is a directory".
#[cfg(unix)]
#[test]
fn other_read_errors_keep_the_systems_message() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("q.json");
    std::fs::write(&file, r#"{"question":"q","options":["a","b"]}"#).unwrap();
    let expected = std::io::Error::from_raw_os_error(libc::ENOTDIR).to_string();
    assert_eq!(read_error_reason(&file.join("x.json")), expected);
}

#[test]
fn a_dash_is_standard_input() {
    let input = br#"{"question":"Which?","options":["a","b"]}"#;
    let from_dash = run_with(&["prompt", "-"], &[], input);
    assert_eq!(from_dash.code, 0, "{}", from_dash.stderr);
    assert_eq!(from_dash.stdout, run_with(&["prompt"], &[], input).stdout);
    assert_eq!(from_dash.doc()["status"], "ok");
}
