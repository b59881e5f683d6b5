//! `setup` knows how it was installed (issue 21): run through the real npm
//! packages, from npx's cache it writes the pinned `npx -y ask-user@VERSION`
//! form, and from a global install the native binary's stable path.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::dist::dist;

/// The two npm tarballs: the platform package first, then `ask-user`.
fn tarballs() -> [PathBuf; 2] {
    let dist = dist();
    let npm = dist.out.join("npm");
    let main = npm.join(format!("ask-user-{}.tgz", dist.version));
    let platform = std::fs::read_dir(&npm)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p != &main && p.extension().is_some_and(|e| e == "tgz"))
        .expect("a platform package beside ask-user's");
    [platform, main]
}

/// `npm` with a scratch cache and no registry it could reach.
fn npm(cache: &Path) -> Command {
    let mut command = Command::new("npm");
    command
        .env("npm_config_cache", cache)
        .env("npm_config_registry", "http://127.0.0.1:9/")
        .env("npm_config_audit", "false")
        .env("npm_config_fund", "false")
        .env("npm_config_update_notifier", "false")
        .stdin(std::process::Stdio::null());
    command
}

fn ok(output: Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{what}: {}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

const HOSTS: [&str; 3] = ["claude-code", "codex", "vscode"];

/// Points `command` at a scratch home, and asks for setup, then --list.
fn in_home(command: &mut Command, home: &Path) {
    command
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("xdg"))
        .env("CODEX_HOME", home.join("codex"))
        .env("TMPDIR", home.join("tmp"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("TOOLBOX_ACTION");
}

/// `setup --list`'s line per host, by host.
fn listed(stdout: &str) -> Vec<(String, Value)> {
    stdout
        .lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).unwrap();
            (value["host"].as_str().unwrap().to_string(), value)
        })
        .collect()
}

/// The words after the launch: `mcp` and each host's own arguments.
fn host_args(host: &str) -> Vec<&'static str> {
    match host {
        "codex" => vec!["mcp", "--timeout", "300"],
        _ => vec!["mcp"],
    }
}

pub fn setup_from_npxs_cache_writes_the_pinned_npx_form() {
    let dist = dist();
    let scratch = tempfile::tempdir().unwrap();
    let (cache, home) = (scratch.path().join("cache"), scratch.path().join("home"));
    let [platform, main] = tarballs();
    let exec = |args: &[&str]| {
        let mut command = npm(&cache);
        command
            .args(["exec", "--offline", "--yes"])
            .arg(format!("--package={}", platform.display()))
            .arg(format!("--package={}", main.display()))
            .args(["--", "ask_user"])
            .args(args)
            .current_dir(scratch.path());
        in_home(&mut command, &home);
        command.output().unwrap()
    };
    let mut set = vec!["setup"];
    set.extend(HOSTS);
    let stderr = String::from_utf8(exec(&set).stderr).unwrap();
    // The binary npx ran sits in npx's cache: that is what setup saw.
    assert!(
        walk_has(&cache.join("_npx"), "ask_user"),
        "npx installed into its cache"
    );
    let mut list = vec!["setup", "--list"];
    list.extend(HOSTS);
    let stdout = ok(exec(&list), "setup --list through npx");
    let pinned = format!("ask-user@{}", dist.version);
    for (host, line) in listed(&stdout) {
        assert_eq!(line["configured"], true, "{host}: {line}\n{stderr}");
        assert_eq!(line["command"], "npx", "{host}: {line}");
        let mut want = vec!["-y", pinned.as_str()];
        want.extend(host_args(&host));
        assert_eq!(line["args"], serde_json::json!(want), "{host}: {line}");
    }
    // Codex's TOML holds the same command, with its tool timeout.
    let toml = std::fs::read_to_string(home.join("codex/config.toml")).unwrap();
    assert!(toml.contains("command = \"npx\""), "{toml}");
    assert!(
        toml.contains(&format!("\"-y\", \"{pinned}\", \"mcp\"")),
        "{toml}"
    );
}

fn walk_has(dir: &Path, name: &str) -> bool {
    crate::common::dist::walk(dir)
        .iter()
        .any(|p| p.file_name().is_some_and(|n| n == name))
}

pub fn setup_from_a_global_install_writes_the_native_binarys_path() {
    // Not under the temporary folder: setup refuses a binary there.
    let scratch = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let (cache, prefix, home) = (
        scratch.path().join("cache"),
        scratch.path().join("prefix"),
        scratch.path().join("home"),
    );
    let [platform, main] = tarballs();
    ok(
        npm(&cache)
            .args(["install", "-g", "--offline", "--prefix"])
            .arg(&prefix)
            .arg(&platform)
            .arg(&main)
            .output()
            .unwrap(),
        "npm install -g",
    );
    let run = |args: &[&str]| {
        let mut command = Command::new(prefix.join("bin/ask_user"));
        command.args(args);
        in_home(&mut command, &home);
        command.output().unwrap()
    };
    let mut set = vec!["setup"];
    set.extend(HOSTS);
    ok(run(&set), "setup from the global prefix");
    let mut list = vec!["setup", "--list"];
    list.extend(HOSTS);
    let stdout = ok(run(&list), "setup --list");
    for (host, line) in listed(&stdout) {
        let command = PathBuf::from(line["command"].as_str().unwrap());
        // The platform package's native binary, not the Node launcher.
        assert!(
            command.is_absolute() && command.starts_with(prefix.canonicalize().unwrap()),
            "{host}: {line}"
        );
        assert!(command.ends_with("bin/ask_user"), "{host}: {line}");
        assert!(
            command
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with("linux-")),
            "inside @ask-user/<platform>: {line}"
        );
        let head = std::fs::read(&command).unwrap();
        assert_eq!(&head[..4], b"\x7fELF", "{host}: a native binary: {line}");
        assert_eq!(
            line["args"],
            serde_json::json!(host_args(&host)),
            "{host}: {line}"
        );
    }
}
