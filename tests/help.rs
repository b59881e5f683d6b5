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
