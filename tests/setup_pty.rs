//! `ask_user setup` without a HOST, on a real pseudo-terminal (rexpect): the
//! hosts found on the machine (a config folder, or a program on PATH) come
//! pre-selected in ask_user's own multi-select; what the person leaves
//! selected is set up; Esc changes nothing.

// Unix only: a pseudo-terminal through rexpect, Unix only.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use rexpect::session::PtySession;

mod common;
use common::bin;

const ESC: &str = "\x1b";

struct Picker {
    session: PtySession,
    home: tempfile::TempDir,
    screen: String,
}

/// `ask_user setup [args]` in a pty, in a home where Codex has its folder
/// and a `gemini` program is on PATH (nothing else is installed).
fn start(args: &str) -> Picker {
    start_in(tempfile::tempdir().unwrap(), args)
}

fn start_in(home: tempfile::TempDir, args: &str) -> Picker {
    std::fs::create_dir_all(home.path().join(".codex")).unwrap();
    let programs = home.path().join("bin");
    std::fs::create_dir_all(&programs).unwrap();
    let gemini = programs.join("gemini");
    std::fs::write(&gemini, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&gemini, std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = format!(
        r#"stty cols 120 rows 30
PATH="$1" HOME="$2" XDG_CONFIG_HOME="$2/xdg" CODEX_HOME= TMPDIR="$2/tmp" NO_COLOR=1 "$3" setup {args} > "$2/out"
echo "rc=$?;""#
    );
    let mut command = Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(script)
        .arg("sh")
        .arg(&programs)
        .arg(home.path())
        .arg(bin());
    let session = rexpect::session::spawn_command(command, Some(10_000)).expect("a pty");
    Picker {
        session,
        home,
        screen: String::new(),
    }
}

impl Picker {
    fn expect(&mut self, needle: &str) {
        match self.session.exp_string(needle) {
            Ok(before) => {
                self.screen.push_str(&before);
                self.screen.push_str(needle);
            }
            Err(e) => panic!("{needle:?} never appeared ({e}); screen: {:?}", self.screen),
        }
    }

    fn keys(&mut self, keys: &str) {
        self.session.send(keys).unwrap();
        self.session.flush().unwrap();
    }

    /// The exit code, once the shell reports it.
    fn finish(&mut self) -> i32 {
        let (before, matched) = self
            .session
            .exp_regex(r"rc=\d+;")
            .unwrap_or_else(|e| panic!("no exit ({e}); screen: {:?}", self.screen));
        self.screen.push_str(&before);
        self.session.exp_eof().unwrap();
        matched[3..matched.len() - 1].parse().unwrap()
    }

    fn path(&self, relative: &str) -> std::path::PathBuf {
        self.home.path().join(relative)
    }

    fn out(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.path("out"))
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

/// What the pty showed, as text: rexpect hands back each byte as a char;
/// escape sequences (colour, cursor moves) are dropped.
fn plain(screen: &str) -> String {
    let bytes: Vec<u8> = screen.chars().map(|c| c as u32 as u8).collect();
    let text = String::from_utf8_lossy(&bytes);
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.next_if_eq(&'[').is_some() {
                while chars.next().is_some_and(|c| !c.is_ascii_alphabetic()) {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `host`'s row, as last drawn, is checked (◉) or not (◯).
fn checked(screen: &str, host: &str) -> bool {
    let screen = plain(screen);
    let at = screen
        .rfind(&format!(". {host}\r\n"))
        .unwrap_or_else(|| panic!("{host} not on screen: {screen}"));
    let row = &screen[screen[..at].rfind('\n').map_or(0, |n| n + 1)..at];
    match (row.contains('◉'), row.contains('◯')) {
        (true, false) => true,
        (false, true) => false,
        _ => panic!("no mark in {row:?}"),
    }
}

#[test]
fn detected_hosts_are_preselected_and_the_choice_is_set_up() {
    let mut picker = start("");
    picker.expect("Which hosts should ask_user connect to?");
    picker.expect("Enter confirm");
    let screen = picker.screen.clone();
    for host in [
        "claude-code",
        "claude-desktop",
        "antigravity",
        "cursor",
        "vscode",
        "amp",
    ] {
        assert!(
            !checked(&screen, host),
            "{host} is not installed: {screen:?}"
        );
    }
    assert!(checked(&screen, "codex"), "{screen:?}");
    assert!(checked(&screen, "gemini"), "{screen:?}");
    assert!(plain(&screen).contains(&format!(
        "Cursor · {}",
        picker.path(".cursor/mcp.json").display()
    )));
    // Digits toggle: gemini (4) off, cursor (6) on.
    picker.keys("4");
    picker.keys("6");
    picker.keys("\r");
    assert_eq!(picker.finish(), 0, "{:?}", picker.screen);
    let hosts: Vec<_> = picker
        .out()
        .iter()
        .map(|line| line["host"].clone())
        .collect();
    assert_eq!(hosts, ["codex", "cursor"]);
    assert!(picker.path(".codex/config.toml").is_file());
    assert!(picker.path(".cursor/mcp.json").is_file());
    assert!(!picker.path(".gemini").exists());
    assert!(
        plain(&picker.screen).contains("✓ codex: added ask_user to"),
        "{:?}",
        picker.screen
    );
}

/// A note belongs to an answer for a model, not to a choice of hosts: the
/// picker's keys do not offer Ctrl-N, and Ctrl-N opens no note line (were
/// one open, the x would go into it and Enter would only close it).
#[test]
fn the_picker_neither_offers_nor_takes_a_note() {
    let mut picker = start("");
    picker.expect("Which hosts should ask_user connect to?");
    picker.expect("Esc cancel");
    let keys = plain(&picker.screen);
    assert!(!keys.contains("Ctrl-N"), "{keys}");
    assert!(!keys.contains("note"), "{keys}");
    picker.keys("\x0e");
    picker.keys("x");
    picker.keys("\r");
    assert_eq!(picker.finish(), 0, "{:?}", picker.screen);
    let screen = plain(&picker.screen);
    assert!(!screen.contains("Note"), "{screen}");
    let hosts: Vec<_> = picker.out().iter().map(|l| l["host"].clone()).collect();
    assert_eq!(hosts, ["codex", "gemini"]);
}

#[test]
fn escape_changes_nothing_and_exits_130() {
    let mut picker = start("");
    picker.expect("Which hosts should ask_user connect to?");
    picker.expect("Enter confirm");
    picker.keys(ESC);
    assert_eq!(picker.finish(), 130);
    assert!(plain(&picker.screen).contains("ask_user setup: cancelled; nothing was changed"));
    assert_eq!(std::fs::read_to_string(picker.path("out")).unwrap(), "");
    assert!(!Path::new(&picker.path(".codex/config.toml")).exists());
}

#[test]
fn remove_preselects_the_configured_hosts() {
    let home = tempfile::tempdir().unwrap();
    let setup = Command::new(bin())
        .args(["setup", "amp"])
        .env("HOME", home.path())
        .env("TMPDIR", home.path().join("tmp"))
        .env("XDG_CONFIG_HOME", home.path().join("xdg"))
        .output()
        .unwrap();
    assert_eq!(setup.status.code(), Some(0));
    let mut picker = start_in(home, "--remove");
    picker.expect("Remove ask_user from which hosts?");
    picker.expect("Enter confirm");
    assert!(checked(&picker.screen, "amp"), "{:?}", picker.screen);
    // Found on the machine, but without ask_user: not pre-selected.
    assert!(!checked(&picker.screen, "codex"), "{:?}", picker.screen);
    picker.keys("\r");
    assert_eq!(picker.finish(), 0, "{:?}", picker.screen);
    let out = picker.out();
    assert_eq!(
        (out.len(), out[0]["host"].clone(), out[0]["action"].clone()),
        (1, "amp".into(), "removed".into())
    );
}

/// `setup --hooks` without a HOST offers only the hosts whose hooks setup
/// writes (Claude Code, Codex, Gemini CLI), the installed ones pre-selected;
/// each chosen host gets its entry and its hooks.
#[test]
fn with_hooks_the_picker_offers_the_hosts_with_hooks_only() {
    let mut picker = start("--hooks");
    picker.expect("with the hooks that answer their own questions while you are away?");
    picker.expect("Enter confirm");
    let screen = plain(&picker.screen);
    for host in ["claude-desktop", "antigravity", "cursor", "vscode", "amp"] {
        assert!(
            !screen.contains(&format!(". {host}\r\n")),
            "{host}: {screen}"
        );
    }
    assert!(!checked(&picker.screen, "claude-code"), "{screen}");
    assert!(checked(&picker.screen, "codex"), "{screen}");
    assert!(checked(&picker.screen, "gemini"), "{screen}");
    // The first row is claude-code: its digit is 1.
    picker.keys("1");
    picker.keys("\r");
    assert_eq!(picker.finish(), 0, "{:?}", picker.screen);
    let out: Vec<_> = picker
        .out()
        .iter()
        .map(|line| {
            (
                line["host"].as_str().unwrap().to_string(),
                line["hooks"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(
        out,
        [
            ("claude-code".to_string(), false),
            ("claude-code".to_string(), true),
            ("codex".to_string(), true),
            ("gemini".to_string(), true)
        ]
    );
    let settings = std::fs::read_to_string(picker.path(".claude/settings.json")).unwrap();
    assert!(
        settings.contains("hook claude-code --timeout 1800"),
        "{settings}"
    );
    let gemini = std::fs::read_to_string(picker.path(".gemini/settings.json")).unwrap();
    assert!(gemini.contains("\"BeforeTool\""), "{gemini}");
    let codex = std::fs::read_to_string(picker.path(".codex/config.toml")).unwrap();
    assert!(codex.contains("[[hooks.PreToolUse]]"), "{codex}");
}
