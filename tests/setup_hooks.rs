//! `ask_user setup HOST --hooks` through the binary, in a temporary HOME:
//! Claude Code's hooks merged into a settings.json as a person keeps it
//! (comments, permissions, env, other hooks on the same events and under the
//! same matcher), a second run byte-identical, `--remove --hooks` taking only
//! ours out, `--dry-run` printing the diff and writing nothing, a malformed
//! file left untouched; Gemini CLI's hook beside its server entry in one
//! JSONC file; `--hooks` for a host without a hook road a usage error. Then
//! the real Claude Code 2.1.330 runs the hook that setup wrote (ignored
//! without it, failing under CI).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use common::bin;
use common::clients::{claude_code, offline, tests_dir};
use common::process::output_with_stdin;

/// The hook command setup writes for this binary (absolute and canonical).
fn hook_command(host: &str) -> String {
    let binary = fs::canonicalize(bin()).unwrap();
    format!("{} hook {host} --timeout 1800", binary.to_str().unwrap())
}

/// A temporary home.
struct Home {
    dir: tempfile::TempDir,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line:?}")))
            .collect()
    }
}

impl Home {
    fn new() -> Self {
        let home = Home {
            dir: tempfile::tempdir().unwrap(),
        };
        fs::create_dir_all(home.root().join("project")).unwrap();
        home
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn settings(&self) -> PathBuf {
        self.root().join(".claude/settings.json")
    }

    fn gemini(&self) -> PathBuf {
        self.root().join(".gemini/settings.json")
    }

    fn write(&self, path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn env(&self, command: &mut Command) {
        command
            .env("HOME", self.root())
            .env("XDG_CONFIG_HOME", self.root().join("xdg"))
            .env("CODEX_HOME", self.root().join("codex-home"))
            // setup refuses a binary in the temporary folder: a checkout
            // under /tmp must not look like one.
            .env("TMPDIR", self.root().join("tmp"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("GEMINI_CLI_HOME")
            .env_remove("TOOLBOX_ACTION");
    }

    fn run(&self, args: &[&str]) -> Run {
        let mut command = Command::new(bin());
        command.arg("setup").args(args).stdin(Stdio::null());
        self.env(&mut command);
        let out = command.output().unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        }
    }
}

/// Claude Code's settings as a person keeps them.
const SETTINGS: &str = r#"{
  // my settings
  "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Read(./.env)"]},
  "env": {"DISABLE_TELEMETRY": "1"},
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/check-bash", "timeout": 5}]},
      {"matcher": "AskUserQuestion", "hooks": [{"type": "command", "command": "notify-send 'Claude asks'"}]}
    ],
    /* tell me when it stops */
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
  }
}
"#;

/// `text` without `//` and `/* */` comments (none inside strings here).
fn parse_jsonc(text: &str) -> Value {
    let mut plain = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |at| &after[at..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |at| &after[at + 2..]);
        } else {
            let c = rest.chars().next().unwrap();
            plain.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    serde_json::from_str(&plain).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn ours(host: &str, timeout: u64) -> Value {
    let mut hook = json!({"type": "command", "command": hook_command(host), "timeout": timeout});
    if host == "gemini" {
        hook["name"] = json!("ask_user");
    }
    hook
}

fn claude_code_hooks_merge_beside_every_other_key_and_a_second_run_changes_nothing() {
    let home = Home::new();
    home.write(&home.settings(), SETTINGS);
    let run = home.run(&["claude-code", "--hooks"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.lines();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    // The MCP entry in ~/.claude.json, the hooks in ~/.claude/settings.json.
    assert_eq!(
        lines[0]["path"],
        home.root().join(".claude.json").to_str().unwrap()
    );
    assert_eq!(lines[0]["action"], "added");
    assert_eq!(lines[0].get("hooks"), None);
    assert_eq!(
        lines[1],
        json!({"host": "claude-code", "path": home.settings(), "action": "added",
            "configured": true, "hooks": true,
            "backup": format!("{}.ask_user.bak", home.settings().display())})
    );
    assert!(
        run.stderr.contains(&format!(
            "✓ claude-code: added ask_user's hooks to {}",
            home.settings().display()
        )),
        "{}",
        run.stderr
    );
    let written = fs::read_to_string(home.settings()).unwrap();
    assert_eq!(
        fs::read_to_string(format!("{}.ask_user.bak", home.settings().display())).unwrap(),
        SETTINGS
    );
    for kept in [
        "// my settings",
        "/* tell me when it stops */",
        "\"model\": \"opus\"",
    ] {
        assert!(written.contains(kept), "{kept} lost: {written}");
    }
    let settings = parse_jsonc(&written);
    let before = parse_jsonc(SETTINGS);
    for key in ["permissions", "env", "model"] {
        assert_eq!(settings[key], before[key], "{key}");
    }
    assert_eq!(settings["hooks"]["Stop"], before["hooks"]["Stop"]);
    let pre = settings["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(
        pre[..2],
        before["hooks"]["PreToolUse"].as_array().unwrap()[..]
    );
    assert_eq!(
        pre[2],
        json!({"matcher": "AskUserQuestion", "hooks": [ours("claude-code", 1830)]})
    );
    assert_eq!(
        settings["hooks"]["Elicitation"],
        json!([{"hooks": [ours("claude-code", 1830)]}])
    );

    // Idempotent: both files byte for byte, no duplicate, no second backup.
    let claude_json = fs::read_to_string(home.root().join(".claude.json")).unwrap();
    let again = home.run(&["claude-code", "--hooks"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let actions: Vec<_> = again.lines().iter().map(|l| l["action"].clone()).collect();
    assert_eq!(actions, ["unchanged", "unchanged"]);
    assert!(
        again
            .lines()
            .iter()
            .all(|line| line.get("backup").is_none())
    );
    assert_eq!(fs::read_to_string(home.settings()).unwrap(), written);
    assert_eq!(
        fs::read_to_string(home.root().join(".claude.json")).unwrap(),
        claude_json
    );
    // --list says so, for the hosts with hooks only.
    let listed = home.run(&["--list", "claude-code", "cursor"]).lines();
    assert_eq!(listed[0]["hooks"], true);
    assert_eq!(listed[1].get("hooks"), None);
    // Without --hooks, setup leaves settings.json alone.
    let plain = home.run(&["claude-code"]);
    assert_eq!(plain.lines().len(), 1);
}

fn remove_takes_only_our_hooks_out() {
    let home = Home::new();
    home.write(&home.settings(), SETTINGS);
    assert_eq!(home.run(&["claude-code", "--hooks"]).code, 0);
    // The person adds a command of theirs under our group: it stays.
    let written = fs::read_to_string(home.settings()).unwrap();
    let theirs = written.replacen(
        "\"timeout\": 1830\n          }\n        ]",
        "\"timeout\": 1830\n          },\n          {\"type\": \"command\", \"command\": \"mine\"}\n        ]",
        1,
    );
    assert_ne!(theirs, written, "{written}");
    fs::write(home.settings(), &theirs).unwrap();
    let run = home.run(&["claude-code", "--remove", "--hooks"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.lines();
    assert_eq!(lines[1]["action"], "removed");
    assert_eq!(lines[1]["configured"], false);
    let after = parse_jsonc(&fs::read_to_string(home.settings()).unwrap());
    let pre = after["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 3);
    assert_eq!(
        pre[2],
        json!({"matcher": "AskUserQuestion", "hooks": [{"type": "command", "command": "mine"}]})
    );
    // Elicitation held only ours: the event goes.
    assert_eq!(after["hooks"].get("Elicitation"), None);

    // Without a hook of the person's among ours: byte for byte as before.
    let home = Home::new();
    home.write(&home.settings(), SETTINGS);
    assert_eq!(home.run(&["claude-code", "--hooks"]).code, 0);
    assert_eq!(home.run(&["claude-code", "--remove", "--hooks"]).code, 0);
    assert_eq!(fs::read_to_string(home.settings()).unwrap(), SETTINGS);
    // A file that held only ours: `hooks` goes with them.
    let home = Home::new();
    assert_eq!(home.run(&["claude-code", "--hooks"]).code, 0);
    let run = home.run(&["claude-code", "--remove", "--hooks"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(fs::read_to_string(home.settings()).unwrap(), "{}\n");
    assert_eq!(
        home.run(&["--list", "claude-code"]).lines()[0]["hooks"],
        false
    );
    // Nothing of ours: unchanged, no backup.
    let home = Home::new();
    home.write(&home.settings(), SETTINGS);
    let run = home.run(&["claude-code", "--remove", "--hooks"]);
    assert_eq!(run.lines()[1]["action"], "unchanged");
    assert!(
        run.stderr
            .contains("✓ claude-code: ask_user's hooks were not in"),
        "{}",
        run.stderr
    );
    assert!(
        !home
            .root()
            .join(".claude/settings.json.ask_user.bak")
            .exists()
    );
}

fn dry_run_prints_the_diff_and_writes_nothing() {
    let home = Home::new();
    home.write(&home.settings(), SETTINGS);
    let run = home.run(&["claude-code", "--hooks", "--dry-run"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let settings = home.settings().display().to_string();
    assert!(
        run.stdout
            .contains(&format!("--- {settings}\n+++ {settings}\n")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("+    \"Elicitation\": ["),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&format!(
            "+            \"command\": \"{}\",",
            hook_command("claude-code")
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(&format!(
            "• claude-code: would write ask_user's hooks into {settings} (dry run)"
        )),
        "{}",
        run.stderr
    );
    assert_eq!(fs::read_to_string(home.settings()).unwrap(), SETTINGS);
    assert!(!home.root().join(".claude.json").exists());
    assert!(!Path::new(&format!("{settings}.ask_user.bak")).exists());
    // Once written, the dry run of --remove shows them going.
    assert_eq!(home.run(&["claude-code", "--hooks"]).code, 0);
    let run = home.run(&["claude-code", "--hooks", "--remove", "--dry-run"]);
    assert!(
        run.stdout.contains("-    \"Elicitation\": ["),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("would remove ask_user's hooks from"));
}

fn a_malformed_settings_file_is_left_untouched_with_its_line_and_column() {
    let home = Home::new();
    let broken = "{\n  \"hooks\": {\n    \"PreToolUse\": [}\n}\n";
    home.write(&home.settings(), broken);
    for args in [
        &["claude-code", "--hooks"][..],
        &["claude-code", "--hooks", "--remove"],
    ] {
        let run = home.run(args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        let lines = run.lines();
        assert_eq!(lines.len(), 1, "{}", run.stdout);
        assert_eq!(lines[0]["error"]["code"], "CONFIG_ERROR");
        assert_eq!(lines[0]["error"]["path"], home.settings().to_str().unwrap());
        let message = lines[0]["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!(
                "{} does not parse at line 3, column 20: ",
                home.settings().display()
            )),
            "{message}"
        );
        assert!(run.stderr.contains(&format!("✗ claude-code: {message}")));
    }
    assert_eq!(fs::read_to_string(home.settings()).unwrap(), broken);
    // The host's other file is not written either: a host is done whole or not at all.
    assert!(!home.root().join(".claude.json").exists());
    // A `hooks` of the wrong kind is refused where it stands.
    home.write(&home.settings(), "{\"hooks\": [1]}");
    let run = home.run(&["claude-code", "--hooks"]);
    assert_eq!(run.code, 1);
    let message = run.lines()[0]["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("line 1, column 11: \"hooks\" must be an object"),
        "{message}"
    );
}

fn gemini_hooks_go_beside_its_server_entry_in_one_file_with_comments() {
    let home = Home::new();
    let text = "// Gemini CLI settings\n{\n  \"ui\": {\"theme\": \"GitHub\"}, // mine\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n";
    home.write(&home.gemini(), text);
    let run = home.run(&["gemini", "--hooks"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.lines();
    assert_eq!(lines.len(), 1, "one file, one line: {}", run.stdout);
    assert_eq!(lines[0]["hooks"], true);
    assert!(
        run.stderr
            .contains("✓ gemini: added ask_user and its hooks to"),
        "{}",
        run.stderr
    );
    let written = fs::read_to_string(home.gemini()).unwrap();
    assert!(written.starts_with("// Gemini CLI settings\n") && written.contains("// mine"));
    let settings = parse_jsonc(&written);
    assert_eq!(settings["mcpServers"]["other"], json!({"command": "x"}));
    assert!(settings["mcpServers"]["ask_user"].is_object());
    assert_eq!(
        settings["hooks"],
        json!({"BeforeTool": [{"matcher": "^ask_user$", "hooks": [ours("gemini", 1_830_000)]}]})
    );
    assert_eq!(
        home.run(&["gemini", "--hooks"]).lines()[0]["action"],
        "unchanged"
    );
    assert_eq!(fs::read_to_string(home.gemini()).unwrap(), written);
    let run = home.run(&["gemini", "--hooks", "--remove"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(fs::read_to_string(home.gemini()).unwrap(), text);
}

fn hooks_for_a_host_without_a_hook_road_is_a_usage_error() {
    let home = Home::new();
    for args in [
        &["vscode", "--hooks"][..],
        &["claude-code", "cursor", "--hooks"],
        &["amp", "--hooks", "--remove"],
    ] {
        let run = home.run(args);
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{args:?}");
        let host = args
            .iter()
            .find(|a| ["vscode", "cursor", "amp"].contains(a))
            .unwrap();
        assert_eq!(
            run.stderr,
            format!(
                "ask_user setup: --hooks: {host} has no hook that setup writes; hosts with one: claude-code, codex, gemini\n"
            )
        );
    }
    let run = home.run(&["--list", "--hooks"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
    assert_eq!(
        fs::read_dir(home.root()).unwrap().count(),
        1,
        "only project/"
    );
}

/// Claude Code 2.1.330 loads the hooks setup wrote from
/// ~/.claude/settings.json and runs their command for an MCP server's form
/// (`Elicitation`), not for another tool (the `PreToolUse` matcher is
/// `AskUserQuestion`). The binary in the written command is swapped for a
/// script named ask_user that records how it was run and steps aside (exit
/// 0, no output), so the test does not depend on `ask_user hook`.
fn claude_code_runs_the_hook_setup_wrote() {
    let claude = claude_code();
    let home = Home::new();
    assert_eq!(home.run(&["claude-code", "--hooks"]).code, 0);
    let stand_in = home.root().join("bin/ask_user");
    let record = home.root().join("hook-runs.jsonl");
    home.write(
        &stand_in,
        &format!(
            "#!/bin/sh\nprintf '{{\"args\": \"%s\", \"input\": %s}}\\n' \"$*\" \"$(cat)\" >> '{}'\n",
            record.display()
        ),
    );
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&stand_in, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let binary = fs::canonicalize(bin()).unwrap();
    let written = fs::read_to_string(home.settings()).unwrap();
    let swapped = written.replace(binary.to_str().unwrap(), stand_in.to_str().unwrap());
    assert_eq!(swapped.matches(stand_in.to_str().unwrap()).count(), 2);
    fs::write(home.settings(), swapped).unwrap();

    let scenario = json!({
        "claude": claude, "server": [bin(), "mcp"],
        "home": home.root(), "project": home.root().join("project"),
        "tool_input": {"question": "Which database should we use?", "options": ["SQLite", "Postgres"]},
        "hook": null,
    });
    let mut command = offline("python3");
    command
        .arg(tests_dir("hosts").join("claude_print.py"))
        .stderr(Stdio::piped());
    let output = output_with_stdin(&mut command, scenario.to_string().as_bytes()).unwrap();
    assert!(
        output.status.success(),
        "claude_print.py: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["exit"], 0, "{report}");
    let runs: Vec<Value> = fs::read_to_string(&record)
        .unwrap_or_else(|_| panic!("the hook never ran: {report}"))
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["args"], "hook claude-code --timeout 1800");
    assert_eq!(runs[0]["input"]["hook_event_name"], "Elicitation");
    assert_eq!(runs[0]["input"]["mcp_server_name"], "ask_user");
    // Stepped aside: Claude Code went on with the form as without the hook
    // (print mode has no one to show it to, so the form ends cancelled).
    assert_eq!(
        report["tool_results"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
}

/// Codex's config.toml as a person keeps it: comments, a server, a hook of
/// their own on the same event.
const CODEX_CONFIG: &str = r#"# my Codex settings
model = "o3" # the default

[mcp_servers.other]
command = "x"

[[hooks.PreToolUse]]
matcher = "shell"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "~/bin/check-shell"
"#;

fn codex_hooks_go_into_config_toml_beside_the_entry_keeping_comments() {
    let home = Home::new();
    let path = home.root().join("codex-home/config.toml");
    home.write(&path, CODEX_CONFIG);
    let run = home.run(&["codex", "--hooks"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines = run.lines();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    assert_eq!(
        (&lines[0]["action"], &lines[0]["hooks"]),
        (&json!("added"), &json!(true))
    );
    assert!(
        run.stderr.contains(
            "  codex: Codex runs a new or changed hook only once you trust it: start codex and trust it with /hooks\n"
        ),
        "{}",
        run.stderr
    );
    let written = fs::read_to_string(&path).unwrap();
    // The entry goes after the other server, the hook group after the
    // person's own.
    let entry = format!(
        "[mcp_servers.ask_user]\ncommand = \"{}\"\nargs = [\"mcp\", \"--timeout\", \"300\"]\ntool_timeout_sec = 1860\n\n",
        fs::canonicalize(bin()).unwrap().display()
    );
    let expected = CODEX_CONFIG.replace(
        "[[hooks.PreToolUse]]",
        &format!("{entry}[[hooks.PreToolUse]]"),
    ) + &format!(
        "\n[[hooks.PreToolUse]]\nmatcher = \"request_user_input\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"{}\"\ntimeout = 1830\n",
        hook_command("codex")
    );
    assert_eq!(written, expected);
    assert!(written.contains("[mcp_servers.ask_user]"));
    assert_eq!(
        home.run(&["codex", "--hooks"]).lines()[0]["action"],
        "unchanged"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), written);
    assert_eq!(home.run(&["codex", "--hooks", "--remove"]).code, 0);
    assert_eq!(fs::read_to_string(&path).unwrap(), CODEX_CONFIG);
}

/// The layout docs/hosts.md shows, a hook of the person's without a blank
/// line anywhere: setup writes its own tables after it and changes none of
/// its bytes; `--remove --hooks` gives back the file byte for byte.
fn codex_hooks_keep_a_config_without_blank_lines_byte_for_byte() {
    let home = Home::new();
    let path = home.root().join("codex-home/config.toml");
    let config = "# check the shell\n[[hooks.PreToolUse]]\nmatcher = \"shell\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"x\"\n";
    home.write(&path, config);
    let run = home.run(&["codex", "--hooks"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let written = fs::read_to_string(&path).unwrap();
    let ours = format!(
        "\n[[hooks.PreToolUse]]\nmatcher = \"request_user_input\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"{}\"\ntimeout = 1830\n\n[mcp_servers.ask_user]\n",
        hook_command("codex")
    );
    assert!(written.starts_with(&format!("{config}{ours}")), "{written}");
    let run = home.run(&["codex", "--hooks", "--remove"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(fs::read_to_string(&path).unwrap(), config);
}

/// Files with neither servers nor hooks, as the hosts write them: `--hooks`
/// adds both, `--hooks --remove` gives back every file byte for byte
/// (Gemini CLI's settings without an empty `"mcpServers": {}` left behind).
fn hooks_remove_gives_back_files_that_had_neither_servers_nor_hooks() {
    let json = "{\n  \"theme\": \"dark\",\n  \"general\": {\n    \"vimMode\": true\n  }\n}\n";
    let toml = "model = \"o3\"\n[tui]\nnotifications = true\n";
    for (host, files) in [
        (
            "claude-code",
            vec![(".claude/settings.json", json), (".claude.json", json)],
        ),
        ("gemini", vec![(".gemini/settings.json", json)]),
        ("codex", vec![("codex-home/config.toml", toml)]),
    ] {
        let home = Home::new();
        for (file, text) in &files {
            home.write(&home.root().join(file), text);
        }
        let run = home.run(&[host, "--hooks"]);
        assert_eq!(run.code, 0, "{host}: {}", run.stderr);
        for (file, text) in &files {
            assert_ne!(&fs::read_to_string(home.root().join(file)).unwrap(), text);
        }
        let run = home.run(&[host, "--hooks", "--remove"]);
        assert_eq!(run.code, 0, "{host}: {}", run.stderr);
        for (file, text) in &files {
            assert_eq!(
                &fs::read_to_string(home.root().join(file)).unwrap(),
                text,
                "{host}: {file}"
            );
        }
    }
}

/// Codex 0.169.0 loads the config.toml that `setup codex --hooks` wrote
/// (`codex mcp list` reads the whole file, hooks included), and refuses it
/// once our hook group is broken: so it reads the `[[hooks.PreToolUse]]`
/// tables setup writes. (That such a hook then runs for
/// `request_user_input` was measured with this shape on Codex 0.169.0 by
/// the hook's own tests, not here.)
fn codex_loads_the_hooks_setup_wrote() {
    let program = common::clients::codex();
    let home = Home::new();
    assert_eq!(home.run(&["codex", "--hooks"]).code, 0);
    let path = home.root().join("codex-home/config.toml");
    let list = || {
        let mut command = offline(&program);
        command.args(["mcp", "list"]).stdin(Stdio::null());
        home.env(&mut command);
        command
            .env("PATH", common::clients::node22_path())
            .current_dir(home.root().join("project"));
        let out = command.output().unwrap();
        (
            out.status.code(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        )
    };
    let (code, out) = list();
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("ask_user"), "{out}");
    let written = fs::read_to_string(&path).unwrap();
    let broken = written.replace("matcher = \"request_user_input\"", "matcher = 3");
    assert_ne!(broken, written);
    fs::write(&path, broken).unwrap();
    let (code, out) = list();
    assert_ne!(code, Some(0), "{out}");
    assert!(
        out.contains("invalid type: integer `3`, expected a string"),
        "{out}"
    );
}

/// One `claude -p` turn (tests/hosts/claude_hook.py) in `home` whose
/// stand-in model calls AskUserQuestion, with the hooks setup wrote in
/// `~/.claude/settings.json` and tests/hosts/host_prompt_server.py as the
/// host's own UI; started, not waited for.
fn ask_tool_turn(home: &Home, state: &Path) -> common::process::ChildGuard {
    let input = json!({"questions": [{"question": "Which database?", "header": "Database",
        "multiSelect": false, "options": [
            {"label": "SQLite", "description": "one file"},
            {"label": "Postgres", "description": "a server"}]}]});
    let prompt_server = tests_dir("hosts").join("host_prompt_server.py");
    let scenario = json!({
        "claude": claude_code(), "home": home.root(), "project": home.root().join("project"),
        "tool": "AskUserQuestion", "tool_input": input,
        "mcp": {"mcpServers": {"host": {"command": common::clients::mcp_python(),
                                        "args": [prompt_server]}}},
        "args": ["--permission-prompt-tool", "mcp__host__prompt"],
        "env": {"ASK_USER_STATE_DIR": state,
                "HOST_PROMPT_SEEN": home.root().join("host-ui.jsonl")},
        "timeout": 120,
    });
    // On the machine's own loopback (not a namespace of its own): the hook
    // reaches the inbox there.
    let mut command = Command::new("python3");
    command
        .arg(tests_dir("hosts").join("claude_hook.py"))
        .env_remove("ASK_USER_INBOX")
        .env_remove("ASK_USER_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = common::process::ChildGuard::spawn(&mut command).unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(scenario.to_string().as_bytes())
        .unwrap();
    child
}

/// The one tool result the stand-in model saw: (is_error, text).
fn ask_tool_result(turn: common::process::ChildGuard) -> (bool, String) {
    let output = turn.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "claude_hook.py: {stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["exit"], 0, "{report}");
    let results = report["tool_results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{report}");
    let content = &results[0]["content"];
    let text = match content {
        Value::String(text) => text.clone(),
        blocks => blocks[0]["text"].as_str().unwrap().to_string(),
    };
    (results[0]["is_error"].as_bool().unwrap(), text)
}

/// The hooks exactly as `setup claude-code --hooks` writes them, run by the
/// real Claude Code 2.1.330 with the real `ask_user hook claude-code`: at
/// the keyboard the hook steps aside and the host's own UI is asked; away,
/// the question is answered with `ask_user inbox answer` and the model gets
/// the person's answer as the tool's result.
fn claude_code_asks_through_the_hooks_setup_wrote() {
    claude_code();
    let home = Home::new();
    let run = home.run(&["claude-code", "--hooks"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let state = home.root().join("state");
    fs::create_dir_all(&state).unwrap();

    let at_the_keyboard = ask_tool_result(ask_tool_turn(&home, &state));
    assert_eq!(at_the_keyboard, (true, "THE HOST'S OWN UI".to_string()));
    let asked = fs::read_to_string(home.root().join("host-ui.jsonl")).unwrap();
    assert_eq!(asked.lines().count(), 1, "{asked}");

    let away = common::inbox::command(&state, &["away", "on"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(away.success());
    let inbox = common::inbox::Inbox::start(&state);
    let turn = ask_tool_turn(&home, &state);
    common::inbox::until(std::time::Duration::from_secs(60), "the question", || {
        inbox.list().len() == 1
    });
    let id = inbox.ids().remove(0);
    let (code, answered) = common::inbox::run(&state, &["inbox", "answer", &id, "--reply", "2"]);
    assert_eq!(code, 0, "{answered}");
    assert_eq!(
        ask_tool_result(turn),
        (
            false,
            "Your questions have been answered: \"Which database?\"=\"Postgres\". \
             You can now continue with these answers in mind."
                .to_string()
        )
    );
    // The host's own UI was not asked again.
    let asked = fs::read_to_string(home.root().join("host-ui.jsonl")).unwrap();
    assert_eq!(asked.lines().count(), 1, "{asked}");
    inbox.stop();
}

common::harness::main!(
    claude_code_hooks_merge_beside_every_other_key_and_a_second_run_changes_nothing,
    remove_takes_only_our_hooks_out,
    dry_run_prints_the_diff_and_writes_nothing,
    a_malformed_settings_file_is_left_untouched_with_its_line_and_column,
    gemini_hooks_go_beside_its_server_entry_in_one_file_with_comments,
    hooks_for_a_host_without_a_hook_road_is_a_usage_error,
    claude_code_runs_the_hook_setup_wrote,
    codex_hooks_go_into_config_toml_beside_the_entry_keeping_comments,
    codex_hooks_keep_a_config_without_blank_lines_byte_for_byte,
    hooks_remove_gives_back_files_that_had_neither_servers_nor_hooks,
    codex_loads_the_hooks_setup_wrote,
    claude_code_asks_through_the_hooks_setup_wrote,
);
