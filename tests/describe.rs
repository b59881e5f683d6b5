//! Tool descriptions (DESIGN §6) through the binary.

mod common;
use common::*;
use serde_json::{Value, json};

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

fn check_input_schema(schema: &Value) {
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["question", "options"]));
    assert_eq!(
        keys(&schema["properties"]),
        [
            "question",
            "context",
            "options",
            "multi_select",
            "allow_other"
        ]
    );
    assert_eq!(schema["properties"]["multi_select"]["type"], "boolean");
    assert_eq!(schema["properties"]["allow_other"]["type"], "boolean");
    assert_eq!(schema["properties"]["options"]["minItems"], 2);
    assert_eq!(schema["properties"]["options"]["maxItems"], 20);
}

#[test]
fn toolbox_describe_prints_the_amp_json_form_on_one_line() {
    let run = run_with(&[], &[("TOOLBOX_ACTION", "describe")], b"");
    assert_eq!(run.code, 0);
    let doc = run.doc();
    assert_eq!(keys(&doc), ["name", "description", "inputSchema"]);
    assert_eq!(doc["name"], "ask_user");
    let description = doc["description"].as_str().unwrap();
    for phrase in ["few", "recommended", "rendered_markdown", "end your turn"] {
        assert!(description.contains(phrase), "description lacks {phrase:?}");
    }
    check_input_schema(&doc["inputSchema"]);
    assert_eq!(run.stderr, "");
}

#[test]
fn describe_subcommand_matches_toolbox_describe() {
    let toolbox = run_with(&[], &[("TOOLBOX_ACTION", "describe")], b"");
    assert_eq!(run_with(&["describe"], &[], b"").stdout, toolbox.stdout);
    assert_eq!(
        run_with(&["describe", "--format", "amp"], &[], b"").stdout,
        toolbox.stdout
    );
}

#[test]
fn describe_reads_no_stdin() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    // stdin is a pipe that is never written to nor closed: reading it would hang.
    let mut child = common::process::ChildGuard::spawn(
        Command::new(bin())
            .env("TOOLBOX_ACTION", "describe")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped()),
    )
    .unwrap();
    let _stdin = child.stdin.take();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "describe waited for stdin"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn describe_formats_for_other_hosts() {
    let claude = run_with(&["describe", "--format", "claude"], &[], b"").doc();
    assert_eq!(keys(&claude), ["name", "description", "input_schema"]);
    check_input_schema(&claude["input_schema"]);

    let openai = run_with(&["describe", "--format", "openai"], &[], b"").doc();
    assert_eq!(keys(&openai), ["type", "function"]);
    assert_eq!(openai["type"], "function");
    assert_eq!(
        keys(&openai["function"]),
        ["name", "description", "parameters"]
    );
    check_input_schema(&openai["function"]["parameters"]);

    let mcp = run_with(&["describe", "--format", "mcp"], &[], b"").doc();
    assert_eq!(mcp["name"], "ask_user");
    // The MCP tool also takes {"resume": inboxId} (collect later, docs/collect-later.md), so
    // neither question nor options is required there on its own.
    let mut input = mcp["inputSchema"].clone();
    assert_eq!(input.as_object_mut().unwrap().remove("required"), None);
    let resume = input["properties"]
        .as_object_mut()
        .unwrap()
        .remove("resume");
    assert_eq!(resume.unwrap()["type"], "string");
    input["required"] = json!(["question", "options"]);
    check_input_schema(&input);
    assert_eq!(mcp["outputSchema"]["type"], "object");
    // The answer document, or (fallback prompt) the prompt document to relay.
    let output = &mcp["outputSchema"]["anyOf"];
    assert_eq!(output[0]["properties"]["timedOut"]["type"], "boolean");
    assert_eq!(
        output[1]["properties"]["rendered_markdown"]["type"],
        "string"
    );
    assert_eq!(mcp["annotations"]["readOnlyHint"], true);
    assert_eq!(mcp["annotations"]["destructiveHint"], false);
    assert_eq!(mcp["annotations"]["openWorldHint"], false);
    assert!(
        mcp["description"]
            .as_str()
            .unwrap()
            .contains("wait for their answer")
    );
}

/// The name sits where each format puts it; nothing else changes.
#[test]
fn describe_tool_name_renames_the_tool_in_every_format() {
    let name_of = |format: &str, doc: &Value| match format {
        "openai" => doc["function"]["name"].clone(),
        _ => doc["name"].clone(),
    };
    for format in ["amp", "claude", "mcp", "openai"] {
        let plain = run_with(&["describe", "--format", format], &[], b"");
        let renamed = run_with(
            &["describe", "--format", format, "--tool-name", "ask_person"],
            &[],
            b"",
        );
        assert_eq!(renamed.code, 0, "{format}: {}", renamed.stderr);
        let (plain, renamed) = (plain.doc(), renamed.doc());
        assert_eq!(name_of(format, &plain), "ask_user", "{format}");
        assert_eq!(name_of(format, &renamed), "ask_person", "{format}");
        let mut back = renamed.clone();
        match format {
            "openai" => back["function"]["name"] = json!("ask_user"),
            _ => back["name"] = json!("ask_user"),
        }
        assert_eq!(back, plain, "{format}: only the name differs");
    }
}

#[test]
fn a_bad_tool_name_is_a_usage_error() {
    let long = "a".repeat(129);
    for (format, name, says) in [
        ("mcp", "", "1 to 128 characters"),
        ("mcp", "ask user", "1 to 128 characters"),
        ("amp", "ask/user", "1 to 128 characters"),
        ("mcp", long.as_str(), "1 to 128 characters"),
        ("claude", "ask.user", "1 to 64 characters"),
        ("openai", &"a".repeat(65), "1 to 64 characters"),
    ] {
        let run = run_with(
            &["describe", "--format", format, "--tool-name", name],
            &[],
            b"",
        );
        assert_eq!(run.code, 2, "{format} {name:?}");
        assert_eq!(run.stdout, "");
        assert!(run.stderr.contains(says), "{}", run.stderr);
    }
    let run = run_with(&["mcp", "--tool-name", "ask user"], &[], b"");
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("1 to 128 characters"), "{}", run.stderr);
    // A name the API rules allow is accepted at their limit.
    let run = run_with(
        &[
            "describe",
            "--format",
            "openai",
            "--tool-name",
            &"a".repeat(64),
        ],
        &[],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}
