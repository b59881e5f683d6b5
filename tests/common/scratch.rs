//! A scratch HOME and a project folder for a real host (Claude Code, Codex,
//! Amp): what tests/hosts.rs and tests/mcp_http.rs run them in.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A scratch HOME and a project folder (a git repository, as Claude Code
/// expects), with room beside them for the host's log and an inbox's state.
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("home")).unwrap();
        std::fs::create_dir(dir.path().join("project")).unwrap();
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path().join("project"))
            .status();
        assert!(git.is_ok_and(|s| s.success()), "git init");
        Scratch { dir }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    /// `name` beside the home and the project: a host's log, a state folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `command` run to its end in the project with this HOME and no stdin:
    /// (exit code, stdout + stderr).
    pub fn run(&self, command: &mut Command) -> (i32, String) {
        let output = command
            .env("HOME", self.home())
            .current_dir(self.project())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (output.status.code().unwrap_or(-1), text)
    }
}
