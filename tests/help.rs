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

/// The environment variables a help may name: everything else in capitals
/// with an underscore is an error code.
const ENVIRONMENT: [&str; 3] = ["ASK_USER_", "XDG_", "TOOLBOX_ACTION"];

/// Every command's path, walked through each help's "Commands:" list.
fn command_paths(path: Vec<String>, into: &mut Vec<Vec<String>>) {
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("--help");
    let help = run_with(&args, &[], b"");
    assert_eq!(help.code, 0, "{args:?}: {}", help.stderr);
    let subcommands: Vec<String> = help
        .stdout
        .split("Commands:\n")
        .nth(1)
        .map(|list| {
            list.lines()
                .take_while(|line| !line.is_empty())
                .filter_map(|line| line.split_whitespace().next())
                .filter(|name| *name != "help")
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    into.push(path.clone());
    for name in subcommands {
        let mut deeper = path.clone();
        deeper.push(name);
        command_paths(deeper, into);
    }
}

/// The words in capitals with an underscore (`NO_INBOX`, `ASK_USER_UI`).
fn capital_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
        .filter(|word| {
            word.contains('_')
                && word.starts_with(|c: char| c.is_ascii_uppercase())
                && !word.ends_with('_')
        })
        .map(String::from)
        .collect()
}

/// What the help lists for exit code 1: the text of each `error (…)`.
fn exit_one_lists(help: &str) -> Vec<String> {
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    flat.match_indices("error (")
        .map(|(at, opening)| {
            let rest = &flat[at + opening.len()..];
            rest[..rest.find(')').unwrap_or(rest.len())].to_string()
        })
        .collect()
}

/// The table of error codes in docs/documents.md: each code and its row.
fn documented_codes() -> Vec<(String, String)> {
    let documents = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/documents.md"),
    )
    .unwrap();
    documents
        .lines()
        .filter_map(|line| {
            let code = line.strip_prefix("| `")?.split('`').next()?;
            let known = !code.is_empty()
                && code
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            known.then(|| (code.to_string(), line.to_string()))
        })
        .collect()
}

/// Every error code a `--help` names (walked through every subcommand) is
/// one docs/documents.md lists; and a code a command names for its exit 1
/// is one whose row there names that command (or the command it belongs
/// to), so a help cannot promise one code while the command returns another.
#[test]
fn every_error_code_a_help_names_is_documented_for_its_command() {
    let documented = documented_codes();
    assert!(documented.len() >= 20, "{documented:?}");
    let row = |code: &str| {
        documented
            .iter()
            .find(|(known, _)| known == code)
            .map(|(_, row)| row.as_str())
    };
    let mut paths = Vec::new();
    command_paths(Vec::new(), &mut paths);
    assert!(
        paths.iter().any(|path| path == &["inbox", "token", "add"]),
        "{paths:?}"
    );
    let mut named = 0;
    for path in &paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let help = run_with(&args, &[], b"").stdout;
        let shown = if path.is_empty() {
            "ask_user".to_string()
        } else {
            path.join(" ")
        };
        for word in capital_words(&help) {
            if ENVIRONMENT.iter().any(|env| word.starts_with(env)) {
                continue;
            }
            named += 1;
            assert!(
                row(&word).is_some(),
                "{shown} --help names {word}, which docs/documents.md does not list"
            );
        }
        for list in exit_one_lists(&help) {
            for code in capital_words(&list) {
                let row = row(&code).unwrap_or_default();
                let names_it = (1..=path.len()).rev().any(|words| {
                    let command = path[..words].join(" ");
                    ["`", " ", "/"]
                        .iter()
                        .any(|after| row.contains(&format!("`{command}{after}")))
                });
                assert!(
                    names_it,
                    "{shown} --help says it exits 1 with {code}, but the row of {code} in \
                     docs/documents.md names no `{shown}`: {row}"
                );
            }
        }
    }
    assert!(named >= 10, "{named} codes named in all");
}

/// `setup --help` says where `--hooks` writes for every host that has
/// hooks (the hosts the usage error lists).
#[test]
fn setup_help_names_the_hooks_file_of_every_host_with_hooks() {
    let refused = run_with(&["setup", "cursor", "--hooks"], &[], b"");
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    let hosts: Vec<&str> = refused
        .stderr
        .trim_end()
        .rsplit_once("hosts with one: ")
        .expect("the hosts with hooks")
        .1
        .split(", ")
        .collect();
    assert_eq!(hosts, ["claude-code", "codex", "gemini"]);
    let help = run_with(&["setup", "--help"], &[], b"").stdout;
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let hooks = flat
        .split("--hooks ")
        .nth(1)
        .and_then(|rest| rest.split(" --list").next())
        .unwrap_or_default();
    for (host, file) in hosts.iter().zip([
        "~/.claude/settings.json",
        "~/.codex/config.toml",
        "~/.gemini/settings.json",
    ]) {
        assert!(
            hooks.contains(&format!("{host}: {file}")),
            "{host}: {hooks}"
        );
    }
}
