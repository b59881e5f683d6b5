//! `ask_user completions SHELL` loads in the real shells and completes
//! commands; the hidden `ask_user man DIR` writes one page per command that
//! renders without a warning. Both come from the clap definitions, so they
//! follow --help. (The release archive carries these same files:
//! tests/dist/archive.rs.) zsh and fish come from .ci/setup-release.sh.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::bin;
use common::clients::{require, runs};

fn run(program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .env("HOME", std::env::temp_dir())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn shell(name: &str) -> &str {
    require(
        runs(name, &["-c", "exit 0"]).then_some(name),
        &format!("{name} (run .ci/setup-release.sh)"),
    )
}

/// What bash prints running `body` after sourcing `ask_user completions
/// bash` (asserting it succeeded).
fn bash_after_sourcing(body: &str) -> String {
    let script = format!(
        "source <(\"{bin}\" completions bash) || exit 9\n{body}",
        bin = bin()
    );
    let out = run(shell("bash"), &["-c", &script]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    stdout
}

fn bash_completes_commands_after_sourcing() {
    let stdout = bash_after_sourcing(
        r#"complete -p ask_user || exit 8
COMP_WORDS=(ask_user se); COMP_CWORD=1; COMP_LINE="ask_user se"; COMP_POINT=11
_ask_user ask_user se ask_user
printf 'offer:%s\n' "${COMPREPLY[@]}"
COMP_WORDS=(ask_user setup cl); COMP_CWORD=2; COMP_LINE="ask_user setup cl"; COMP_POINT=17
_ask_user ask_user cl setup
printf 'host:%s\n' "${COMPREPLY[@]}""#,
    );
    assert!(
        stdout
            .lines()
            .next()
            .is_some_and(|l| l.starts_with("complete ") && l.ends_with(" -F _ask_user ask_user")),
        "{stdout}"
    );
    let offers: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("offer:"))
        .collect();
    assert_eq!(offers, ["setup"], "{stdout}");
    let hosts: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("host:"))
        .collect();
    assert_eq!(hosts, ["claude-code", "claude-desktop"], "{stdout}");
}

fn zsh_loads_the_completion_function() {
    let zsh = shell("zsh");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("_ask_user");
    std::fs::write(&file, run(bin(), &["completions", "zsh"]).stdout).unwrap();
    let syntax = run(zsh, &["-n", file.to_str().unwrap()]);
    assert!(syntax.status.success(), "{}", text(&syntax.stderr));
    let script = format!(
        "fpath=({} $fpath); autoload -Uz compinit; compinit -u -d {}/zcompdump; print -r -- \"comp:$_comps[ask_user]\"",
        dir.path().display(),
        dir.path().display()
    );
    let out = run(zsh, &["-f", "-c", &script]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "comp:_ask_user\n",
        "{}",
        text(&out.stderr)
    );
    assert_eq!(text(&out.stderr), "");
}

fn fish_completes_commands_after_sourcing() {
    let fish = shell("fish");
    let script = format!(
        "\"{bin}\" completions fish | source; complete -C 'ask_user se'; complete -C 'ask_user describe --format '",
        bin = bin()
    );
    let out = run(fish, &["--no-config", "-c", &script]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let words: Vec<&str> = stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert!(words.contains(&"setup"), "{stdout}");
    assert!(
        !words.contains(&"ask"),
        "only what starts with se: {stdout}"
    );
    for format in ["amp", "claude", "mcp", "openai"] {
        assert!(words.contains(&format), "{format}: {stdout}");
    }
}

fn elvish_and_powershell_scripts_name_every_command() {
    for shell in ["elvish", "powershell"] {
        let out = run(bin(), &["completions", shell]);
        assert_eq!(out.status.code(), Some(0));
        let script = text(&out.stdout);
        for command in ["setup", "inbox", "completions", "mcp"] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
    }
}

/// The hidden `man` (for packagers, not in --help) is in no shell's
/// completions: bash and fish, asked to complete `ask_user m`, offer `mcp`
/// alone, and no script names the command or its help line.
fn completions_leave_out_the_hidden_man_command() {
    let stdout = bash_after_sourcing(
        r#"COMP_WORDS=(ask_user m); COMP_CWORD=1; COMP_LINE="ask_user m"; COMP_POINT=10
_ask_user ask_user m ask_user
printf 'offer:%s\n' "${COMPREPLY[@]}""#,
    );
    let offers: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("offer:"))
        .collect();
    assert_eq!(offers, ["mcp"], "{stdout}");

    let script = format!(
        "\"{bin}\" completions fish | source; complete -C 'ask_user m'",
        bin = bin()
    );
    let out = run(shell("fish"), &["--no-config", "-c", &script]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let words: Vec<&str> = stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(words, ["mcp"], "{stdout}");

    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(bin(), &["completions", shell]);
        assert_eq!(out.status.code(), Some(0));
        let script = text(&out.stdout);
        assert!(
            !script.contains("Write the man pages"),
            "{shell} offers man"
        );
        assert!(
            !script.contains("ask_user__subcmd__man") && !script.contains("ask_user;man"),
            "{shell} completes man's arguments"
        );
        // The visible commands are all still there.
        for command in ["prompt", "ask", "setup", "inbox", "completions", "mcp"] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
    }
    // And `man` still runs: hidden is not gone.
    let dir = tempfile::tempdir().unwrap();
    let out = run(bin(), &["man", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

fn an_unknown_shell_is_a_usage_error() {
    let out = run(bin(), &["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("invalid value 'tcsh'"), "{stderr}");
    assert!(
        stderr.contains("[possible values: bash, elvish, fish, powershell, zsh]"),
        "{stderr}"
    );
    let out = run(bin(), &["completions"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("<SHELL>"));
}

fn pages_in(dir: &Path) -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    pages.sort();
    pages
}

fn man_writes_a_page_per_command_that_groff_renders_without_warning() {
    let groff = require(
        runs("groff", &["--version"]).then_some("groff"),
        "groff (apt groff-base)",
    );
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("man");
    let out = run(bin(), &["man", pages.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(pages_in(&pages), common::man_pages());
    for page in common::man_pages() {
        let path = pages.join(&page);
        let roff = std::fs::read_to_string(&path).unwrap();
        assert!(
            roff.is_ascii(),
            "{page}: groff reads Latin-1; non-ASCII must be escaped"
        );
        let lint = run(groff, &["-man", "-ww", "-z", path.to_str().unwrap()]);
        assert!(
            lint.status.success() && lint.stderr.is_empty(),
            "{page}: {}",
            text(&lint.stderr)
        );
        assert!(
            roff.contains(".TH ") && roff.contains("\"ask_user "),
            "{page}: title and source"
        );
    }
    // The pages follow --help: a flag of `ask` and its exit codes.
    let ask = std::fs::read_to_string(pages.join("ask_user-ask.1")).unwrap();
    for words in ["\\-\\-timeout", "\\-\\-reply", "124 timed out"] {
        assert!(ask.contains(words), "ask_user-ask.1 lacks {words}");
    }
    let list = std::fs::read_to_string(pages.join("ask_user-inbox-list.1")).unwrap();
    assert!(
        list.contains("\\fBask_user inbox list\\fR"),
        "synopsis names the words one types"
    );
    // Rendered, ↑/↓ come back as the characters.
    let rendered = run(
        groff,
        &[
            "-man",
            "-Tutf8",
            pages.join("ask_user-ask.1").to_str().unwrap(),
        ],
    );
    assert!(text(&rendered.stdout).contains('↑'));
}

fn man_into_a_folder_it_cannot_write_is_a_write_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let out = run(bin(), &["man", file.join("man").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["code"], "WRITE_ERROR");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("cannot write the man page "),
        "{message}"
    );
    assert!(
        message.ends_with("give a folder you can write to"),
        "{message}"
    );
}

common::harness::main!(
    bash_completes_commands_after_sourcing,
    zsh_loads_the_completion_function,
    fish_completes_commands_after_sourcing,
    elvish_and_powershell_scripts_name_every_command,
    completions_leave_out_the_hidden_man_command,
    an_unknown_shell_is_a_usage_error,
    man_writes_a_page_per_command_that_groff_renders_without_warning,
    man_into_a_folder_it_cannot_write_is_a_write_error,
);
