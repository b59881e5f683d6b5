// The body of tests/setup.rs, which includes it on Unix only.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use common::bin;

/// The binary as setup writes it: absolute and canonical.
fn binary() -> String {
    fs::canonicalize(bin())
        .unwrap()
        .to_str()
        .unwrap()
        .to_string()
}

/// A temporary home with its own config and Codex folders.
struct Home {
    dir: tempfile::TempDir,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    /// stdout's JSON lines.
    fn lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line:?}")))
            .collect()
    }

    fn line(&self) -> Value {
        let lines = self.lines();
        assert_eq!(lines.len(), 1, "one line: {:?}", self.stdout);
        lines.into_iter().next().unwrap()
    }
}

impl Home {
    fn new() -> Self {
        Home {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn xdg(&self) -> PathBuf {
        self.root().join("xdg")
    }

    fn codex_home(&self) -> PathBuf {
        self.root().join("codex-home")
    }

    /// `ask_user setup ARGS` in this home; every test's run starts here,
    /// so that none misses the environment below.
    fn std_command(&self, args: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new(bin());
        command
            .arg("setup")
            .args(args)
            .env("HOME", self.root())
            .env("XDG_CONFIG_HOME", self.xdg())
            .env("CODEX_HOME", self.codex_home())
            // setup refuses a binary in the temporary folder: a checkout
            // under /tmp must not look like one.
            .env("TMPDIR", self.root().join("tmp"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("GEMINI_CLI_HOME")
            .env_remove("TOOLBOX_ACTION");
        command
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::from_std(self.std_command(args));
        command.write_stdin("");
        command
    }

    fn run(&self, args: &[&str]) -> Run {
        let out = self.command(args).output().unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        }
    }

    /// The file each host reads under this home.
    fn path(&self, host: &Host) -> PathBuf {
        match host.name {
            "claude-code" => self.root().join(".claude.json"),
            "claude-desktop" => self.xdg().join("Claude/claude_desktop_config.json"),
            "codex" => self.codex_home().join("config.toml"),
            "gemini" => self.root().join(".gemini/settings.json"),
            "antigravity" => self.root().join(".gemini/antigravity/mcp_config.json"),
            "cursor" => self.root().join(".cursor/mcp.json"),
            "vscode" => self.xdg().join("Code/User/mcp.json"),
            "amp" => self.xdg().join("amp/settings.json"),
            other => panic!("no host {other}"),
        }
    }

    fn write(&self, host: &Host, text: &str) -> PathBuf {
        let path = self.path(host);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }
}

/// One host as the issue describes it.
struct Host {
    name: &'static str,
    /// Where the servers are: a JSON key, or Codex's TOML table.
    container: &'static str,
    toml: bool,
    stdio_type: bool,
    args: &'static [&'static str],
}

const NO_FORMS: &[&str] = &["mcp", "--fallback", "auto", "--open", "--wait", "45"];
/// Claude Desktop declares forms but never shows them (issue 38).
const FORMS_NEVER_SHOWN: &[&str] = &[
    "mcp",
    "--no-elicitation",
    "--fallback",
    "auto",
    "--open",
    "--wait",
    "45",
];

const HOSTS: [Host; 8] = [
    Host {
        name: "claude-code",
        container: "mcpServers",
        toml: false,
        stdio_type: true,
        args: &["mcp"],
    },
    Host {
        name: "claude-desktop",
        container: "mcpServers",
        toml: false,
        stdio_type: false,
        args: FORMS_NEVER_SHOWN,
    },
    Host {
        name: "codex",
        container: "mcp_servers",
        toml: true,
        stdio_type: false,
        args: &["mcp", "--timeout", "300"],
    },
    Host {
        name: "gemini",
        container: "mcpServers",
        toml: false,
        stdio_type: false,
        args: &["mcp", "--tool-name", "ask_person"],
    },
    Host {
        name: "antigravity",
        container: "mcpServers",
        toml: false,
        stdio_type: false,
        args: &["mcp"],
    },
    Host {
        name: "cursor",
        container: "mcpServers",
        toml: false,
        stdio_type: false,
        args: &["mcp"],
    },
    Host {
        name: "vscode",
        container: "servers",
        toml: false,
        stdio_type: true,
        args: &["mcp"],
    },
    Host {
        name: "amp",
        container: "amp.mcpServers",
        toml: false,
        stdio_type: false,
        args: NO_FORMS,
    },
];

/// A file that already holds another server, comments and another key.
fn existing(host: &Host) -> String {
    if host.toml {
        "# my codex config\nmodel = \"o3\" # keep me\n\n[mcp_servers.other]\n# the other server\ncommand = \"other-server\"\nargs = [\"--flag\"]\n".to_string()
    } else {
        format!(
            "// my settings\n{{\n  \"theme\": \"dark\", /* keep me */\n  \"{}\": {{\n    // the other server\n    \"other\": {{ \"command\": \"other-server\", \"args\": [\"--flag\"] }}\n  }}\n}}\n",
            host.container
        )
    }
}

/// A file that does not parse, and where (line, column) it breaks.
fn malformed(host: &Host) -> (String, &'static str) {
    if host.toml {
        (
            "model = \"o3\"\n[mcp_servers.other]\ncommand = = \"x\"\n".into(),
            "line 3, column 11",
        )
    } else {
        (
            format!(
                "{{\n  \"{}\": {{\n    \"other\": {{ \"command\" \"x\" }}\n  }}\n}}\n",
                host.container
            ),
            "line 3, column 26",
        )
    }
}

/// The entry as the host reads it: (type, command, args, tool_timeout_sec),
/// and the names of every server in the file.
struct Entry {
    kind: Option<String>,
    command: String,
    args: Vec<String>,
    tool_timeout_sec: Option<i64>,
}

fn servers(host: &Host, text: &str) -> (Vec<String>, Option<Entry>) {
    if host.toml {
        let document: toml_edit::DocumentMut = text.parse().unwrap();
        let Some(servers) = document.get("mcp_servers").and_then(|s| s.as_table_like()) else {
            return (Vec::new(), None);
        };
        let names = servers.iter().map(|(name, _)| name.to_string()).collect();
        let entry = servers.get("ask_user").map(|entry| Entry {
            kind: None,
            command: entry["command"].as_str().unwrap().to_string(),
            args: entry["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_string())
                .collect(),
            tool_timeout_sec: entry.get("tool_timeout_sec").and_then(|t| t.as_integer()),
        });
        (names, entry)
    } else {
        use jsonc_parser::ast::{Object, Value as Ast};
        let parsed =
            jsonc_parser::parse_to_ast(text, &Default::default(), &Default::default()).unwrap();
        let Some(Ast::Object(root)) = parsed.value else {
            panic!("not an object: {text}")
        };
        let Some(servers) = root.get_object(host.container) else {
            return (Vec::new(), None);
        };
        let names = servers
            .properties
            .iter()
            .map(|p| p.name.as_str().to_string())
            .collect();
        let text_of =
            |object: &Object, key: &str| object.get_string(key).map(|s| s.value.to_string());
        let entry = servers.get_object("ask_user").map(|entry| Entry {
            kind: text_of(entry, "type"),
            command: text_of(entry, "command").unwrap(),
            args: entry
                .get_array("args")
                .unwrap()
                .elements
                .iter()
                .map(|a| a.as_string_lit().unwrap().value.to_string())
                .collect(),
            tool_timeout_sec: None,
        });
        (names, entry)
    }
}

/// The entry is what the issue asks of this host.
fn assert_entry(host: &Host, text: &str) {
    let (_, entry) = servers(host, text);
    let entry = entry.unwrap_or_else(|| panic!("{}: no ask_user in {text}", host.name));
    assert_eq!(entry.command, binary(), "{}", host.name);
    assert_eq!(entry.args, host.args, "{}", host.name);
    assert_eq!(
        entry.kind.as_deref(),
        host.stdio_type.then_some("stdio"),
        "{}",
        host.name
    );
    if host.toml {
        assert_eq!(entry.tool_timeout_sec, Some(1860));
    }
}

/// Every line of `before` is still in `after`, in order (a line may have
/// gained a trailing comma).
fn assert_kept(before: &str, after: &str) {
    let mut rest = after;
    for line in before.lines() {
        let at = rest
            .find(line)
            .unwrap_or_else(|| panic!("{line:?} lost or moved in:\n{after}"));
        rest = &rest[at + line.len()..];
    }
}

fn list_line(home: &Home, host: &Host) -> Value {
    let run = home.run(&["--list", host.name]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.line()
}

fn assert_listed(line: &Value, home: &Home, host: &Host, exists: bool, configured: bool) {
    assert_eq!(line["host"], host.name);
    assert_eq!(line["path"], home.path(host).to_str().unwrap());
    assert_eq!(line["exists"], exists, "{line}");
    assert_eq!(line["configured"], configured, "{line}");
    if configured {
        assert_eq!(line["command"], binary().as_str());
        assert_eq!(line["args"], serde_json::json!(host.args));
    } else {
        assert!(
            line.get("command").is_none() && line.get("args").is_none(),
            "{line}"
        );
    }
}

fn every_host_is_created_from_nothing() {
    for host in &HOSTS {
        let home = Home::new();
        assert_listed(&list_line(&home, host), &home, host, false, false);
        let run = home.run(&[host.name]);
        assert_eq!(run.code, 0, "{}: {}", host.name, run.stderr);
        let path = home.path(host);
        let text = fs::read_to_string(&path).unwrap();
        assert_entry(host, &text);
        assert!(text.ends_with('\n'), "{text:?}");
        assert_eq!(
            run.line(),
            serde_json::json!({"host": host.name, "path": path.to_str().unwrap(), "action": "added", "configured": true})
        );
        assert!(
            run.stderr.contains(&format!(
                "✓ {}: added ask_user to {}",
                host.name,
                path.display()
            )),
            "{}",
            run.stderr
        );
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert!(
            !file_with_suffix(&path, ".ask_user.bak").exists(),
            "no backup of nothing"
        );
        assert_listed(&list_line(&home, host), &home, host, true, true);
    }
}

fn file_with_suffix(path: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", path.display()))
}

fn every_host_merges_keeps_a_backup_is_idempotent_and_removes_only_its_entry() {
    for host in &HOSTS {
        let home = Home::new();
        let original = existing(host);
        let path = home.write(host, &original);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        assert_listed(&list_line(&home, host), &home, host, true, false);

        let run = home.run(&[host.name]);
        assert_eq!(run.code, 0, "{}: {}", host.name, run.stderr);
        let merged = fs::read_to_string(&path).unwrap();
        assert_entry(host, &merged);
        assert_kept(&original, &merged);
        let (names, _) = servers(host, &merged);
        assert_eq!(names, ["other", "ask_user"], "{}", host.name);
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o640
        );
        let backup = file_with_suffix(&path, ".ask_user.bak");
        assert_eq!(
            fs::read_to_string(&backup).unwrap(),
            original,
            "{}",
            host.name
        );
        assert_eq!(run.line()["backup"], backup.to_str().unwrap());
        assert_listed(&list_line(&home, host), &home, host, true, true);

        // Again: not one byte changes, and it says so.
        let again = home.run(&[host.name]);
        assert_eq!(again.code, 0);
        assert_eq!(fs::read(&path).unwrap(), merged.as_bytes(), "{}", host.name);
        assert_eq!(again.line()["action"], "unchanged");
        assert!(again.line().get("backup").is_none());
        assert!(again.stderr.contains("already set up"), "{}", again.stderr);

        let removed = home.run(&["--remove", host.name]);
        assert_eq!(removed.code, 0, "{}", removed.stderr);
        assert_eq!(removed.line()["action"], "removed");
        assert_eq!(removed.line()["configured"], false);
        assert!(
            removed.stderr.contains("removed ask_user from"),
            "{}",
            removed.stderr
        );
        let after = fs::read_to_string(&path).unwrap();
        assert_eq!(
            after, original,
            "{}: removing gives back the file",
            host.name
        );
        let (names, entry) = servers(host, &after);
        assert_eq!(names, ["other"]);
        assert!(entry.is_none());
        // The backup still holds the file as it was before the first change.
        assert_eq!(fs::read_to_string(&backup).unwrap(), original);
        assert_listed(&list_line(&home, host), &home, host, true, false);

        let nothing = home.run(&["--remove", host.name]);
        assert_eq!(nothing.code, 0);
        assert_eq!(nothing.line()["action"], "unchanged");
        assert!(
            nothing.stderr.contains("ask_user was not in"),
            "{}",
            nothing.stderr
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), original);
    }
}

/// A file without any servers, as the host or a person writes it: the
/// entry goes in with its servers object (or table), and `--remove` gives
/// back the file byte for byte, the servers object with the entry.
fn every_host_removes_back_to_a_file_without_servers_byte_for_byte() {
    for host in &HOSTS {
        let home = Home::new();
        let original = if host.toml {
            "# mine\nmodel = \"o3\"\n[tui]\nnotifications = true\n"
        } else {
            "{\n  // mine\n  \"theme\": \"dark\",\n  \"nested\": {\n    \"list\": [1, 2]\n  }\n}\n"
        };
        let path = home.write(host, original);
        let run = home.run(&[host.name]);
        assert_eq!(run.code, 0, "{}: {}", host.name, run.stderr);
        let (names, _) = servers(host, &fs::read_to_string(&path).unwrap());
        assert_eq!(names, ["ask_user"], "{}", host.name);
        let removed = home.run(&["--remove", host.name]);
        assert_eq!(removed.code, 0, "{}: {}", host.name, removed.stderr);
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            original,
            "{}: removing gives back the file",
            host.name
        );
    }
}

fn an_outdated_entry_is_updated_in_place_keeping_its_other_keys() {
    let home = Home::new();
    let host = &HOSTS[5]; // cursor
    let path = home.write(
        host,
        "{\"mcpServers\": {\"ask_user\": {\"command\": \"/old/ask_user\", \"args\": [\"mcp\"], \"env\": {\"A\": \"1\"}}}}\n",
    );
    let run = home.run(&["cursor"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.line()["action"], "updated");
    assert!(run.stderr.contains("updated ask_user in"), "{}", run.stderr);
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        format!(
            "{{\"mcpServers\": {{\"ask_user\": {{\"command\": \"{}\", \"args\": [\"mcp\"], \"env\": {{\"A\": \"1\"}}}}}}}}\n",
            binary()
        )
    );
}

/// An entry the host's own CLI wrote (`claude mcp add --scope user`: args
/// over several lines, an empty env) that already runs this binary is set
/// up: not one byte changes.
fn an_entry_the_host_wrote_in_its_own_layout_is_already_set_up() {
    let home = Home::new();
    let text = format!(
        "{{\n  \"userID\": \"x\",\n  \"mcpServers\": {{\n    \"ask_user\": {{\n      \"type\": \"stdio\",\n      \"command\": \"{}\",\n      \"args\": [\n        \"mcp\"\n      ],\n      \"env\": {{}}\n    }}\n  }}\n}}",
        binary()
    );
    let path = home.write(&HOSTS[0], &text);
    let run = home.run(&["claude-code"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.line()["action"], "unchanged");
    assert_eq!(fs::read_to_string(&path).unwrap(), text);
    assert!(!file_with_suffix(&path, ".ask_user.bak").exists());
}

fn dry_run_prints_a_diff_per_file_and_writes_nothing() {
    for host in &HOSTS {
        let home = Home::new();
        // From nothing: no file, and no folder either.
        let run = home.run(&["--dry-run", host.name]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let path = home.path(host);
        assert!(!path.exists(), "{}", host.name);
        if path.parent() != Some(home.root()) {
            assert!(
                !path.parent().unwrap().exists(),
                "{}: no folder made",
                host.name
            );
        }
        assert!(
            run.stdout.starts_with(&format!(
                "--- /dev/null\n+++ {}\n@@ -0,0 +1,",
                path.display()
            )),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains(&binary()), "{}", run.stdout);
        assert!(
            run.stderr.contains("would write ask_user into"),
            "{}",
            run.stderr
        );

        let original = existing(host);
        home.write(host, &original);
        let run = home.run(&["--dry-run", host.name]);
        assert_eq!(run.code, 0);
        assert_eq!(fs::read_to_string(&path).unwrap(), original);
        assert!(!file_with_suffix(&path, ".ask_user.bak").exists());
        assert!(
            run.stdout
                .starts_with(&format!("--- {0}\n+++ {0}\n@@ ", path.display())),
            "{}",
            run.stdout
        );
        assert!(
            run.stdout
                .lines()
                .any(|l| l.starts_with('+') && l.contains("ask_user")),
            "{}",
            run.stdout
        );
        // The other server may gain a comma, never go.
        let count = |sign: char| {
            run.stdout
                .lines()
                .filter(|l| l.starts_with(sign) && l.contains("other-server"))
                .count()
        };
        assert_eq!(count('-'), count('+'), "{}", run.stdout);

        // Set up, a dry run shows nothing to do; --remove shows the removal.
        assert_eq!(home.run(&[host.name]).code, 0);
        let set = fs::read(&path).unwrap();
        let run = home.run(&["--dry-run", host.name]);
        assert_eq!((run.code, run.stdout.as_str()), (0, ""));
        assert!(run.stderr.contains("already set up"), "{}", run.stderr);
        let run = home.run(&["--dry-run", "--remove", host.name]);
        assert!(
            run.stdout
                .lines()
                .any(|l| l.starts_with('-') && l.contains(&binary())),
            "{}",
            run.stdout
        );
        assert!(
            run.stderr.contains("would remove ask_user from"),
            "{}",
            run.stderr
        );
        assert_eq!(fs::read(&path).unwrap(), set);
    }
}

fn a_malformed_file_is_left_untouched_with_its_line_and_column() {
    for host in &HOSTS {
        let home = Home::new();
        let (text, position) = malformed(host);
        let path = home.write(host, &text);
        for args in [&[host.name][..], &["--remove", host.name]] {
            let run = home.run(args);
            assert_eq!(run.code, 1, "{}: {}", host.name, run.stderr);
            let document = run.line();
            assert_eq!(document["status"], "error");
            assert_eq!(document["error"]["code"], "CONFIG_ERROR", "{document}");
            assert_eq!(document["error"]["path"], path.to_str().unwrap());
            let message = document["error"]["message"].as_str().unwrap();
            assert!(
                message.starts_with(&format!(
                    "{} does not parse at {position}: ",
                    path.display()
                )),
                "{}: {message}",
                host.name
            );
            assert!(
                message.ends_with("fix the file, then run setup again (it was left as it was)")
            );
            assert!(document["error"]["parseError"].is_string());
            assert!(
                run.stderr.contains(&format!("✗ {}: {message}", host.name)),
                "{}",
                run.stderr
            );
        }
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        assert!(!file_with_suffix(&path, ".ask_user.bak").exists());
        // --dry-run: stdout stays a patch, the error goes to stderr.
        let run = home.run(&["--dry-run", host.name]);
        assert_eq!((run.code, run.stdout.as_str()), (1, ""));
        assert!(run.stderr.contains(position), "{}", run.stderr);
        // --list reports it in the host's line, and exit 1.
        let run = home.run(&["--list", host.name]);
        assert_eq!(run.code, 1);
        let line = run.line();
        assert_eq!(
            (line["exists"].clone(), line["configured"].clone()),
            (Value::Bool(true), Value::Bool(false))
        );
        assert_eq!(line["error"]["code"], "CONFIG_ERROR");
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
    }
}

fn a_value_of_the_wrong_kind_is_a_config_error_at_its_place() {
    let home = Home::new();
    let path = home.write(&HOSTS[3], "{\n  \"mcpServers\": [\"ask_user\"]\n}\n");
    let run = home.run(&["gemini"]);
    assert_eq!(run.code, 1);
    let message = run.line()["error"]["message"].as_str().unwrap().to_string();
    assert_eq!(
        message,
        format!(
            "{} does not parse at line 2, column 17: \"mcpServers\" must be an object ({{…}}); fix the file, then run setup again (it was left as it was)",
            path.display()
        )
    );
    let codex = home.write(&HOSTS[2], "[mcp_servers]\nask_user = \"on\"\n");
    let run = home.run(&["codex"]);
    assert_eq!(run.code, 1);
    let document = run.line();
    assert_eq!(document["error"]["code"], "CONFIG_ERROR");
    assert!(
        document["error"]["message"]
            .as_str()
            .unwrap()
            .contains("line 2, column 12: \"ask_user\" must be a table"),
        "{document}"
    );
    assert_eq!(
        fs::read_to_string(codex).unwrap(),
        "[mcp_servers]\nask_user = \"on\"\n"
    );
}

fn a_file_that_is_not_utf8_is_a_config_error() {
    let home = Home::new();
    let path = home.path(&HOSTS[5]);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, b"{\n  \"a\": \"\xff\"\n}\n").unwrap();
    let run = home.run(&["cursor"]);
    assert_eq!(run.code, 1);
    let document = run.line();
    assert_eq!(document["error"]["code"], "CONFIG_ERROR");
    assert!(
        document["error"]["message"]
            .as_str()
            .unwrap()
            .contains("does not parse at line 2, column 9: the file is not UTF-8 text"),
        "{document}"
    );
}

fn a_byte_order_mark_stays_and_is_no_error() {
    let home = Home::new();
    // VS Code's own layout: its empty servers object, which stays.
    let text = "\u{feff}{\n  \"servers\": {},\n  \"inputs\": []\n}\n";
    let path = home.write(&HOSTS[6], text);
    let run = home.run(&["vscode"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let written = fs::read_to_string(&path).unwrap();
    assert!(
        written.starts_with("\u{feff}{\n  \"servers\": {"),
        "{written:?}"
    );
    assert_entry(&HOSTS[6], written.trim_start_matches('\u{feff}'));
    assert_eq!(list_line(&home, &HOSTS[6])["configured"], true);
    assert_eq!(home.run(&["--remove", "vscode"]).code, 0);
    assert_eq!(fs::read_to_string(&path).unwrap(), text);
}

fn a_folder_in_place_of_the_file_is_a_read_error() {
    let home = Home::new();
    let path = home.path(&HOSTS[5]);
    fs::create_dir_all(&path).unwrap();
    let run = home.run(&["cursor"]);
    assert_eq!(run.code, 1);
    let document = run.line();
    assert_eq!(document["error"]["code"], "READ_ERROR");
    assert_eq!(document["error"]["path"], path.to_str().unwrap());
    assert_eq!(
        document["error"]["message"],
        format!(
            "cannot read {}: it is a directory; make it a readable file, or move it away",
            path.display()
        )
    );
}

fn an_unwritable_file_fails_and_the_other_hosts_go_on() {
    let home = Home::new();
    let cursor = home.write(&HOSTS[5], "{}\n");
    fs::set_permissions(&cursor, fs::Permissions::from_mode(0o444)).unwrap();
    // XDG_CONFIG_HOME is a file: VS Code's folder cannot be made.
    fs::write(home.xdg(), "").unwrap();
    let run = home.run(&["cursor", "vscode", "codex"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines = run.lines();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert_eq!(lines[0]["error"]["code"], "WRITE_ERROR");
    assert_eq!(lines[0]["error"]["path"], cursor.to_str().unwrap());
    assert_eq!(
        lines[0]["error"]["message"],
        format!(
            "cannot write {}: it is read-only; make it writable (chmod u+w) or add the entry by hand",
            cursor.display()
        )
    );
    assert_eq!(lines[1]["error"]["code"], "WRITE_ERROR");
    let vscode = home.path(&HOSTS[6]);
    assert_eq!(
        lines[1]["error"]["message"],
        format!(
            "cannot write {}: its folder {} cannot be created (a part of its path is a file, not a folder)",
            vscode.display(),
            vscode.parent().unwrap().display()
        )
    );
    assert_eq!(lines[2]["host"], "codex");
    assert_eq!(lines[2]["action"], "added");
    assert_entry(
        &HOSTS[2],
        &fs::read_to_string(home.path(&HOSTS[2])).unwrap(),
    );
    assert_eq!(fs::read_to_string(&cursor).unwrap(), "{}\n");
    assert!(
        run.stderr.contains("✗ cursor: cannot write"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("✗ vscode: cannot write"),
        "{}",
        run.stderr
    );
}

/// A folder the user may not write to (root passes every permission check,
/// so the run switches to nobody, as root does in CI).
fn a_folder_without_permission_is_a_write_error() {
    use std::os::unix::process::CommandExt;
    // SAFETY: geteuid has no preconditions.
    let root = (unsafe { libc::geteuid() } == 0).then_some(());
    common::harness::require(root, "root (the test runs setup as nobody)");
    let home = Home {
        dir: tempfile::tempdir_in(common::temp_others_may_enter()).unwrap(),
    };
    fs::set_permissions(home.root(), fs::Permissions::from_mode(0o755)).unwrap();
    let (_folder, binary) = binary_nobody_can_run();
    let mut command = std::process::Command::new(&binary);
    command
        .args(["setup", "cursor"])
        .env("HOME", home.root())
        // Setup refuses a binary in the temporary folder, where the copy is.
        .env("TMPDIR", home.root().join("tmp"))
        .current_dir("/");
    // SAFETY: setgid/setuid are async-signal-safe; 65534 is nobody.
    unsafe {
        command.pre_exec(|| {
            if libc::setgid(65534) != 0 || libc::setuid(65534) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = match command.output() {
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            let reason = format!(
                "a temporary folder that nobody (uid 65534) can run a copy of the binary from \
                 ({}: {e}; set TMPDIR to a folder others may enter)",
                binary.display()
            );
            return common::harness::require(None, &reason);
        }
        out => out.unwrap(),
    };
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let document: Value = serde_json::from_slice(&out.stdout).unwrap();
    let path = home.path(&HOSTS[5]);
    assert_eq!(document["error"]["code"], "WRITE_ERROR");
    assert_eq!(
        document["error"]["message"],
        format!(
            "cannot write {}: its folder {} cannot be created (permission was denied)",
            path.display(),
            path.parent().unwrap().display()
        )
    );
    assert!(!path.parent().unwrap().exists());
}

/// The binary in a fresh folder (mode 755) of a temporary folder everyone
/// may enter, for a run as nobody: the build's own path may pass through a home
/// that nobody cannot enter (a checkout in root's home, mode 700). A hard link where it
/// can be; else a copy by `cp`, so that no descriptor of this process is
/// open for writing on it when another test forks (the copy would then be
/// "busy", ETXTBSY).
fn binary_nobody_can_run() -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir_in(common::temp_others_may_enter()).unwrap();
    fs::set_permissions(folder.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let binary = folder.path().join("ask_user");
    if fs::hard_link(bin(), &binary).is_err() {
        let copied = std::process::Command::new("cp")
            .arg(bin())
            .arg(&binary)
            .status()
            .unwrap();
        assert!(copied.success(), "cp {} {}", bin(), binary.display());
        fs::set_permissions(&binary, fs::Permissions::from_mode(0o755)).unwrap();
    }
    (folder, binary)
}

fn a_binary_whose_path_is_not_utf8_is_a_write_error() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let home = Home::new();
    // A hard link (beside the build, on its file system): a copy could be
    // "busy" when a test elsewhere forks while it is open for writing.
    let scratch = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let folder = scratch.path().join(OsStr::from_bytes(b"bin-\xff"));
    fs::create_dir_all(&folder).unwrap();
    let copy = folder.join("ask_user");
    fs::hard_link(bin(), &copy).unwrap();
    let out = std::process::Command::new(&copy)
        .args(["setup", "cursor"])
        .env("HOME", home.root())
        .env("TMPDIR", home.root().join("tmp"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let document: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(document["error"]["code"], "WRITE_ERROR");
    assert!(
        document["error"]["message"].as_str().unwrap().ends_with(
            "is not UTF-8, so a config file cannot hold it; move ask_user to a UTF-8 path"
        ),
        "{document}"
    );
    assert!(!home.path(&HOSTS[5]).exists());
}

fn a_symlinked_file_stays_a_link() {
    let home = Home::new();
    let real = home.root().join("dotfiles/claude.json");
    fs::create_dir_all(real.parent().unwrap()).unwrap();
    fs::write(&real, "{\"userID\": \"x\"}\n").unwrap();
    let link = home.path(&HOSTS[0]);
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let run = home.run(&["claude-code"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_entry(&HOSTS[0], &fs::read_to_string(&real).unwrap());
}

fn the_variables_each_host_honours_move_its_file() {
    let home = Home::new();
    let claude = home.root().join("claude-config");
    let gemini = home.root().join("gemini-home");
    let run = home
        .command(&["claude-code", "gemini"])
        .env("CLAUDE_CONFIG_DIR", &claude)
        .env("GEMINI_CLI_HOME", &gemini)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    assert_entry(
        &HOSTS[0],
        &fs::read_to_string(claude.join(".claude.json")).unwrap(),
    );
    assert_entry(
        &HOSTS[3],
        &fs::read_to_string(gemini.join(".gemini/settings.json")).unwrap(),
    );
    assert!(!home.root().join(".claude.json").exists());
}

fn amp_keeps_to_settings_jsonc_when_that_is_the_file_there() {
    let home = Home::new();
    let folder = home.xdg().join("amp");
    fs::create_dir_all(&folder).unwrap();
    let jsonc = folder.join("settings.jsonc");
    fs::write(
        &jsonc,
        "{\n  // mine\n  \"amp.notifications.enabled\": false\n}\n",
    )
    .unwrap();
    let run = home.run(&["amp"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.line()["path"], jsonc.to_str().unwrap());
    assert!(!folder.join("settings.json").exists());
    let text = fs::read_to_string(&jsonc).unwrap();
    assert!(text.contains("// mine"), "{text}");
    assert_entry(&HOSTS[7], &text);
    assert_eq!(list_line(&home, &HOSTS[7])["path"], jsonc.to_str().unwrap());
}

fn several_hosts_give_one_line_each_in_order_and_a_repeat_counts_once() {
    let home = Home::new();
    let run = home.run(&["vscode", "codex", "vscode"]);
    assert_eq!(run.code, 0);
    let hosts: Vec<_> = run.lines().iter().map(|l| l["host"].clone()).collect();
    assert_eq!(hosts, ["vscode", "codex"]);
    let run = home.run(&["--list"]);
    let lines = run.lines();
    let names: Vec<_> = lines
        .iter()
        .map(|l| l["host"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        HOSTS.map(|h| h.name.to_string()),
        "--list alone lists every host"
    );
    let configured: Vec<_> = lines
        .iter()
        .filter(|l| l["configured"] == true)
        .map(|l| l["host"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(configured, ["codex", "vscode"]);
}

/// `--list` states per host the road its entry takes, the wait written
/// (the one in `args`), the host's limit and what backs the claim.
fn list_states_each_hosts_road_wait_and_whether_it_was_run() {
    let home = Home::new();
    let run = home.run(&["--list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for (line, host) in run.lines().iter().zip(HOSTS.iter()) {
        assert_eq!(line["host"], host.name);
        assert_eq!(line["transport"], "stdio", "{line}");
        let (road, wait) = match host.name {
            _ if host.args == NO_FORMS || host.args == FORMS_NEVER_SHOWN => {
                ("page or inbox", serde_json::json!(45))
            }
            "gemini" => ("prompt", Value::Null),
            "antigravity" => ("form or prompt", Value::Null),
            _ => ("form", Value::Null),
        };
        assert_eq!((&line["road"], &line["waitSeconds"]), (&road.into(), &wait), "{line}");
        assert!(line["hostLimit"].as_str().is_some_and(|s| !s.is_empty()), "{line}");
        let checked = line["checked"].as_str().unwrap();
        assert!(
            checked.starts_with("not run: ") || checked.chars().any(|c| c.is_ascii_digit()),
            "a version or `not run`: {line}"
        );
    }
    let desktop = list_line(&home, &HOSTS[1]);
    assert!(desktop["hostLimit"].as_str().unwrap().contains("anthropics/claude-code#63379"));
    assert!(desktop["checked"].as_str().unwrap().starts_with("not run: "));
    let claude = list_line(&home, &HOSTS[0]);
    assert!(claude["checked"].as_str().unwrap().contains("2.1.330"));
    let codex = list_line(&home, &HOSTS[2]);
    assert!(codex["checked"].as_str().unwrap().contains("0.169.0"));
}

fn usage_errors_exit_2_with_nothing_on_stdout() {
    let home = Home::new();
    let run = home.run(&["vim"]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert!(run.stderr.contains("invalid value 'vim'"), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "claude-code, claude-desktop, codex, gemini, antigravity, cursor, vscode, amp"
        ),
        "{}",
        run.stderr
    );
    for args in [&["--list", "--dry-run"][..], &["--list", "--remove"]] {
        let run = home.run(args);
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{args:?}");
        assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
    }
    assert_eq!(
        fs::read_dir(home.root()).unwrap().count(),
        0,
        "nothing written"
    );
}

/// Without HOME there is no home to set up (no guess from the user database).
fn no_home_folder_is_a_usage_error() {
    for home in [None, Some("")] {
        let mut command = std::process::Command::new(bin());
        command.args(["setup", "cursor"]).env_remove("HOME");
        if let Some(home) = home {
            command.env("HOME", home);
        }
        let out = command.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty());
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "ask_user setup: HOME is not set: set it to your home folder\n"
        );
    }
    let out = std::process::Command::new(bin())
        .args(["setup", "--list"])
        .env_remove("HOME")
        .output()
        .unwrap();
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(2), true));
}

fn no_host_without_a_terminal_is_a_usage_error() {
    use std::os::unix::process::CommandExt;
    let home = Home::new();
    let mut command = home.std_command(&[]);
    // SAFETY: setsid is async-signal-safe; the child has no terminal.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = command.output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "ask_user setup: name the hosts to set up (no terminal to choose on): ask_user setup HOST...\n  hosts: claude-code, claude-desktop, codex, gemini, antigravity, cursor, vscode, amp\n"
    );
}

common::harness::main!(
    every_host_is_created_from_nothing,
    every_host_merges_keeps_a_backup_is_idempotent_and_removes_only_its_entry,
    every_host_removes_back_to_a_file_without_servers_byte_for_byte,
    an_outdated_entry_is_updated_in_place_keeping_its_other_keys,
    an_entry_the_host_wrote_in_its_own_layout_is_already_set_up,
    dry_run_prints_a_diff_per_file_and_writes_nothing,
    a_malformed_file_is_left_untouched_with_its_line_and_column,
    a_value_of_the_wrong_kind_is_a_config_error_at_its_place,
    a_file_that_is_not_utf8_is_a_config_error,
    a_byte_order_mark_stays_and_is_no_error,
    a_folder_in_place_of_the_file_is_a_read_error,
    an_unwritable_file_fails_and_the_other_hosts_go_on,
    a_folder_without_permission_is_a_write_error,
    a_binary_whose_path_is_not_utf8_is_a_write_error,
    a_symlinked_file_stays_a_link,
    the_variables_each_host_honours_move_its_file,
    amp_keeps_to_settings_jsonc_when_that_is_the_file_there,
    several_hosts_give_one_line_each_in_order_and_a_repeat_counts_once,
    list_states_each_hosts_road_wait_and_whether_it_was_run,
    usage_errors_exit_2_with_nothing_on_stdout,
    no_home_folder_is_a_usage_error,
    no_host_without_a_terminal_is_a_usage_error,
);
