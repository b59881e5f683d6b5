//! Help text through the binary: `help [COMMAND]` prints what `--help` prints,
//! and each command's help tells what it reads and its exit codes.

mod common;
use common::*;

#[test]
fn help_prints_what_dash_dash_help_prints() {
    for (help, dash) in [
        (&["help"][..], &["--help"][..]),
        (&["help", "ask"], &["ask", "--help"]),
        (&["help", "mcp"], &["mcp", "--help"]),
    ] {
        let (help, dash) = (run_with(help, &[], b""), run_with(dash, &[], b""));
        assert_eq!((help.code, dash.code), (0, 0));
        assert_eq!(help.stdout, dash.stdout);
        assert_eq!(help.stderr, "");
    }
    let run = run_with(&["help", "--help"], &[], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("Usage: ask_user help [COMMAND]"),
        "{}",
        run.stdout
    );
    let run = run_with(&["help", "nope"], &[], b"");
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("unrecognized subcommand 'nope'"),
        "{}",
        run.stderr
    );
}

#[test]
fn each_help_names_its_exit_codes() {
    let top = run_with(&["--help"], &[], b"").stdout;
    // check's text report is not one JSON line, and the help says so.
    assert!(
        top.contains("check's text and github reports are lines of"),
        "{top}"
    );
    let ask = run_with(&["ask", "--help"], &[], b"").stdout;
    assert!(
        ask.contains("Exit codes: 0 answered, 1 error (NO_TTY without a terminal), 2 usage error,"),
        "{ask}"
    );
    let answer = run_with(&["answer", "--help"], &[], b"").stdout;
    for said in [
        "Replies: an option number",
        "skips a question that is not required",
        "Exit codes: 0 answered, 1 error (INVALID_REPLY",
        "2 usage error",
    ] {
        assert!(answer.contains(said), "{said}: {answer}");
    }
    let schema = run_with(&["schema", "--help"], &[], b"").stdout;
    assert!(
        !schema.contains("DESIGN") && !schema.contains('§'),
        "{schema}"
    );
}

#[test]
fn commands_are_listed_in_the_order_people_meet_them() {
    let top = run_with(&["--help"], &[], b"").stdout;
    let listed: Vec<&str> = top
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section")
        .lines()
        .take_while(|line| !line.is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert_eq!(
        listed,
        [
            "setup",
            "ask",
            "mcp",
            "inbox",
            "away",
            "hook",
            "prompt",
            "answer",
            "check",
            "schema",
            "describe",
            "completions",
            "help"
        ],
        "{top}"
    );
}

#[test]
fn inbox_retention_help_names_every_unit_it_takes() {
    let inbox = run_with(&["inbox", "--help"], &[], b"").stdout;
    assert!(
        inbox.contains("Seconds, or with a unit: 90s, 30m, 24h, 7d"),
        "{inbox}"
    );
}

/// A negative or malformed number given to a numeric flag is a usage error
/// (exit 2, nothing on stdout) that says what the flag takes, never clap's
/// tip "to pass '-5' as a value, use '-- -5'".
#[test]
fn numeric_flags_say_their_range_for_negative_numbers() {
    let seconds =
        "is negative: give a number of seconds, 0 or more (like 30 or 0.5; 0 waits forever)";
    let port = "is not a port: give a number from 0 to 65535 (0: a free one)";
    for (args, flag, says) in [
        (
            &["ask", "--timeout", "-5"][..],
            "--timeout <SECONDS>",
            seconds,
        ),
        (
            &["ask", "--timeout", "-0.5"],
            "--timeout <SECONDS>",
            seconds,
        ),
        (&["ask", "--port", "-1"], "--port <N>", port),
        (&["ask", "--port", "70000"], "--port <N>", port),
        (
            &["mcp", "--timeout", "-5"],
            "--timeout <SECONDS>",
            "is out of range: give 0 to 86400 seconds (0: no limit)",
        ),
        (
            &["mcp", "--wait", "-1"],
            "--wait <SECONDS>",
            "is out of range: give more than 0 and at most 86400 seconds",
        ),
        (&["mcp", "--port", "-1"], "--port <N>", port),
        (&["inbox", "--port", "-1"], "--port <N>", port),
        (
            &["inbox", "--notify-timeout", "-2"],
            "--notify-timeout <SECONDS>",
            "is out of range: give more than 0 and at most 3600 seconds",
        ),
        (
            &["inbox", "--retention", "-1h"],
            "--retention <TIME>",
            "is out of range: keep questions from 1 second to 365 days",
        ),
        (
            &["inbox", "history", "--limit", "-1"],
            "--limit <N>",
            "is not a count: give a whole number, 0 or more",
        ),
    ] {
        let run = run_with(args, &[], b"");
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
        let value = args.last().unwrap();
        let want = format!("error: invalid value '{value}' for '{flag}': \"{value}\" {says}");
        assert!(run.stderr.starts_with(&want), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("use '--"), "{args:?}: {}", run.stderr);
    }
}

/// `--help` opens with what the tool is and its faces, and makes no claim
/// about Amp toolboxes, which today's Amp does not have (docs/hosts.md#amp).
#[test]
fn help_opens_with_what_the_tool_is_and_its_faces() {
    let help = run_with(&["--help"], &[], b"").stdout;
    let lines: Vec<&str> = help.lines().collect();
    assert_eq!(
        lines[0],
        "Ask a person a structured question; get strict JSON back."
    );
    let faces = lines[2..7].join(" ");
    for face in [
        "an MCP server for agent hosts (mcp;",
        "setup writes it",
        "the terminal (ask)",
        "(ask --ui web, inbox)",
        "TOOLBOX_ACTION",
        "describe prints the tool description",
        "execute reads the tool input on stdin",
    ] {
        assert!(faces.contains(face), "{face}: {faces}");
    }
    assert!(!help.contains("Amp"), "{help}");
    assert!(!help.to_lowercase().contains("toolbox tool"), "{help}");
}
