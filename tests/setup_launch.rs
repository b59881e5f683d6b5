//! `setup` run from the system's temporary folder refuses to write an entry
//! a reboot would break, and says what to do; nothing is written. (The npx
//! and global-install cases run through the real npm packages:
//! tests/dist/setup.rs.)

mod common;

use std::process::Command;

#[test]
fn a_binary_in_the_temporary_folder_is_refused_and_nothing_is_written() {
    let folder = tempfile::tempdir().unwrap(); // in std::env::temp_dir()
    let copy = folder.path().join("ask_user");
    std::fs::copy(common::bin(), &copy).unwrap();
    let home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    for args in [
        &["setup", "claude-code"][..],
        &["setup", "--dry-run", "codex"],
    ] {
        let out = Command::new(&copy)
            .args(args)
            .env("HOME", home.path())
            .env("CODEX_HOME", home.path().join("codex"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("TOOLBOX_ACTION")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["error"]["code"], "WRITE_ERROR");
        let message = doc["error"]["message"].as_str().unwrap();
        let shown = folder.path().canonicalize().unwrap();
        assert!(
            message.starts_with(&format!(
                "this ask_user runs from the temporary folder {}, which the system may empty",
                shown.display()
            )),
            "{message}"
        );
        assert!(message.ends_with("and run setup from there"), "{message}");
    }
    assert_eq!(
        std::fs::read_dir(home.path()).unwrap().count(),
        0,
        "nothing written"
    );
}
