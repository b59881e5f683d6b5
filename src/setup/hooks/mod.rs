//! `setup HOST --hooks`: the hooks that make a host's own ask tool ask
//! through ask_user while the person is away (DESIGN §16). Each hook runs
//! `ask_user hook HOST --timeout T_ASK` with the host's own limit set to
//! T_HOOK. They are merged into the host's settings file (JSON with
//! comments; Codex's is TOML), in the host's shape:
//!
//! ```json
//! {"hooks": {"PreToolUse": [{"matcher": "AskUserQuestion",
//!   "hooks": [{"type": "command", "command": "… hook claude-code --timeout 1800", "timeout": 1830}]}]}}
//! ```
//!
//! A hook is ours when its command runs an ask_user binary with `hook HOST`;
//! everything else (other events, other matchers, other commands under the
//! same matcher, comments) stays as it was.
//!
//! Here is the table of the hosts' hooks ([`Road`]) and what every format
//! shares (the command, its timeout, which hooks are ours); [`json`] edits
//! the JSON hosts' settings, [`toml`] Codex's `config.toml`. Each editor is
//! given the road: neither knows the other.

mod json;
mod toml;

use std::path::PathBuf;

use super::launch::Launch;
use super::{Env, Host, Malformed};

/// How long the hook asks: ask_user's own longest timeout (30 min), so that
/// `--timeout` never asks for more than an input may.
pub const T_ASK_SECONDS: u64 = crate::input::MAX_TIMEOUT_MS / 1000;

/// The limit written into the host's settings: T_ASK and 30 s more, so that
/// the hook prints the host's "no answer" before the host kills it. Claude
/// Code 2.1.330 kills a command hook at `timeout` seconds, 600 when unset,
/// and takes any positive number up to 2^31-1 ms (docs/setup.md).
pub const T_HOOK_SECONDS: u64 = T_ASK_SECONDS + 30;

/// The unit of a host's hook `timeout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Seconds,
    Milliseconds,
}

/// One hook setup writes: the event, and the matcher of its group (`None`:
/// the group has no matcher, every source matches).
pub(super) struct Event {
    pub(super) name: &'static str,
    pub(super) matcher: Option<&'static str>,
}

/// The settings file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// JSON with comments (Claude Code, Gemini CLI).
    Json,
    /// Codex's `config.toml`.
    Toml,
}

/// How a host runs hooks, as far as setup writes them.
pub(super) struct Road {
    /// The `HOST` of `ask_user hook HOST`.
    hook_host: &'static str,
    events: &'static [Event],
    unit: Unit,
    /// Gemini CLI names each hook (`"name"`); Claude Code has no such key.
    named: bool,
    format: Format,
}

impl Road {
    pub(super) fn events(&self) -> &'static [Event] {
        self.events
    }

    /// What the person still has to do once the hooks are written.
    pub(super) fn after_writing(&self) -> Option<&'static str> {
        (self.hook_host == "codex").then_some(
            "Codex runs a new or changed hook only once you trust it: start codex and trust it with /hooks",
        )
    }
}

const CLAUDE_CODE: Road = Road {
    hook_host: "claude-code",
    events: &[
        Event {
            name: "PreToolUse",
            matcher: Some("AskUserQuestion"),
        },
        // Every MCP server's form: the matcher is the server's name.
        Event {
            name: "Elicitation",
            matcher: None,
        },
    ],
    unit: Unit::Seconds,
    named: false,
    format: Format::Json,
};

/// Gemini CLI 0.61.0: `BeforeTool` on its own `ask_user` tool; its matcher
/// is an unanchored regular expression, which would also match an MCP tool
/// named `mcp_ask_user_ask_user`, hence the anchors. Its timeout is in ms.
const GEMINI: Road = Road {
    hook_host: "gemini",
    events: &[Event {
        name: "BeforeTool",
        matcher: Some("^ask_user$"),
    }],
    unit: Unit::Milliseconds,
    named: true,
    format: Format::Json,
};

/// Codex 0.169.0: `PreToolUse` on its own `request_user_input` (an exact
/// match), in `config.toml`. A hook runs only once the person has trusted
/// it (`/hooks` in Codex's terminal UI).
const CODEX: Road = Road {
    hook_host: "codex",
    events: &[Event {
        name: "PreToolUse",
        matcher: Some("request_user_input"),
    }],
    unit: Unit::Seconds,
    named: false,
    format: Format::Toml,
};

/// The hook road of `host`, when setup writes one.
pub(super) fn road(host: Host) -> Option<&'static Road> {
    match host {
        Host::ClaudeCode => Some(&CLAUDE_CODE),
        Host::Gemini => Some(&GEMINI),
        Host::Codex => Some(&CODEX),
        _ => None,
    }
}

/// The hosts whose hooks setup writes, for the usage error.
pub(super) fn hosts_with_hooks() -> Vec<&'static str> {
    Host::ALL
        .into_iter()
        .filter(|&host| road(host).is_some())
        .map(Host::name)
        .collect()
}

/// The settings file that holds `host`'s hooks: Claude Code's
/// `~/.claude/settings.json` (not `~/.claude.json`, where its MCP servers
/// are), Gemini CLI's `~/.gemini/settings.json` and Codex's `config.toml`
/// (the same files as their MCP servers).
pub(super) fn settings_path(host: Host, env: &Env) -> PathBuf {
    match host {
        Host::ClaudeCode => env
            .claude_config_dir
            .clone()
            .unwrap_or_else(|| env.home.join(".claude"))
            .join("settings.json"),
        _ => super::config_path(host, env),
    }
}

/// The hook command: the launch (quoted for a POSIX shell, which both hosts
/// run hooks with), then `hook HOST --timeout T_ASK`.
pub(super) fn hook_command(road: &Road, launch: &Launch) -> String {
    let mut words = vec![launch.command.clone()];
    words.extend(launch.args.iter().cloned());
    words.extend([
        "hook".to_string(),
        road.hook_host.to_string(),
        "--timeout".to_string(),
        T_ASK_SECONDS.to_string(),
    ]);
    words
        .iter()
        .map(|word| quote(word))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `word` as one word for a POSIX shell.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

pub(super) fn hook_timeout(road: &Road) -> u64 {
    match road.unit {
        Unit::Seconds => T_HOOK_SECONDS,
        Unit::Milliseconds => T_HOOK_SECONDS * 1000,
    }
}

/// Whether `command` is one of ours: an ask_user binary (or its npx/uvx
/// form) run with `hook HOST`.
pub(super) fn ours(road: &Road, command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    words.windows(2).enumerate().any(|(at, pair)| {
        pair[0] == "hook"
            && pair[1].trim_matches('\'') == road.hook_host
            && words[..at]
                .iter()
                .any(|word| word.contains("ask_user") || word.contains("ask-user"))
    })
}

/// `text` with `road`'s hooks, each running `launch`: a hook of ours already
/// right is left as written (a second run changes nothing), a wrong one is
/// corrected in place, a duplicate or one under another matcher goes.
pub(super) fn set(text: &str, road: &Road, launch: &Launch) -> Result<String, Malformed> {
    match road.format {
        Format::Json => json::set(text, road, launch),
        Format::Toml => toml::set(text, road, launch),
    }
}

/// `text` without `road`'s hooks; the same text when none is there. An
/// event's list, and `hooks` itself, go only when taking ours out emptied
/// them.
pub(super) fn remove(text: &str, road: &Road) -> Result<String, Malformed> {
    match road.format {
        Format::Json => json::remove(text, road),
        Format::Toml => toml::remove(text, road),
    }
}

/// Whether `text` holds every hook of `road` (for `setup --list`).
pub(super) fn configured(text: &str, road: &Road) -> Result<bool, Malformed> {
    match road.format {
        Format::Json => json::configured(text, road),
        Format::Toml => toml::configured(text, road),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn native() -> Launch {
        Launch {
            command: "/opt/ask user/ask_user".into(),
            args: vec![],
        }
    }

    fn claude() -> &'static Road {
        road(Host::ClaudeCode).unwrap()
    }

    #[test]
    fn the_command_quotes_the_path_and_asks_for_t_ask() {
        assert_eq!(
            hook_command(claude(), &native()),
            "'/opt/ask user/ask_user' hook claude-code --timeout 1800"
        );
        let npx = Launch {
            command: "npx".into(),
            args: vec!["-y".into(), "ask-user@1.2.3".into()],
        };
        assert_eq!(
            hook_command(claude(), &npx),
            "npx -y ask-user@1.2.3 hook claude-code --timeout 1800"
        );
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!((T_ASK_SECONDS, T_HOOK_SECONDS), (1800, 1830));
    }

    #[test]
    fn claude_codes_hooks_go_in_its_settings_not_beside_its_servers() {
        let mut env = Env {
            platform: crate::setup::Platform::Linux,
            home: PathBuf::from("/h"),
            appdata: None,
            xdg_config_home: None,
            codex_home: Some("/c".into()),
            claude_config_dir: None,
            gemini_cli_home: None,
            path: None,
        };
        let paths = |env: &Env| {
            [Host::ClaudeCode, Host::Codex, Host::Gemini].map(|host| settings_path(host, env))
        };
        assert_eq!(
            paths(&env),
            [
                "/h/.claude/settings.json",
                "/c/config.toml",
                "/h/.gemini/settings.json"
            ]
            .map(PathBuf::from)
        );
        env.claude_config_dir = Some("/cc".into());
        assert_eq!(paths(&env)[0], PathBuf::from("/cc/settings.json"));
    }

    #[test]
    fn ours_is_an_ask_user_binary_run_with_hook_host() {
        let road = claude();
        assert!(ours(road, "/usr/bin/ask_user hook claude-code --timeout 5"));
        assert!(ours(road, "'/a b/ask_user' hook 'claude-code'"));
        assert!(ours(road, "npx -y ask-user@1 hook claude-code"));
        assert!(!ours(road, "/usr/bin/ask_user hook gemini"));
        assert!(!ours(road, "my-hook hook claude-code"));
        assert!(!ours(road, "notify-send asked"));
    }

    #[test]
    fn claude_code_codex_and_gemini_have_hooks() {
        assert_eq!(road(Host::Cursor).map(|_| ()), None);
        assert_eq!(hosts_with_hooks(), ["claude-code", "codex", "gemini"]);
    }
}
