//! The deployment files of `deploy/`, checked with the tools that read them:
//! the systemd unit with `systemd-analyze verify`, which must exit 0 and say
//! nothing (it prints a warning, and still exits 0, for an unknown key or a
//! value it cannot parse). Its ExecStart is pointed at the binary under test,
//! since verify checks that the program exists; nothing else is changed.
//! Without systemd-analyze (macOS, Windows) the tests are ignored.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::harness;

common::harness::main!(
    the_systemd_unit_verifies_clean,
    a_broken_unit_is_caught_by_the_same_check
);

const UNIT: &str = include_str!("../deploy/ask_user-inbox.service");

fn systemd_analyze() -> PathBuf {
    let found = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"]
        .into_iter()
        .map(PathBuf::from)
        .find(|path| path.is_file());
    harness::require(found, "systemd-analyze (Debian's systemd package)")
}

/// `systemd-analyze verify` on `unit` (with ExecStart on the test binary):
/// its exit code and everything it said.
fn verify(unit: &str) -> (Option<i32>, String) {
    let tool = systemd_analyze();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ask_user-inbox.service");
    std::fs::write(&path, unit.replace("/usr/local/bin/ask_user", common::BIN)).unwrap();
    let out = Command::new(tool)
        .arg("verify")
        .arg(&path)
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), said)
}

fn the_systemd_unit_verifies_clean() {
    assert!(UNIT.contains("ExecStart=/usr/local/bin/ask_user inbox "));
    let (code, said) = verify(UNIT);
    assert_eq!((code, said.as_str()), (Some(0), ""));
}

fn a_broken_unit_is_caught_by_the_same_check() {
    // A misspelt key and a bad value: exit 0, but not silent.
    let (code, said) = verify(&UNIT.replace("NoNewPrivileges=", "NoNewPrivilegez="));
    assert_eq!(code, Some(0));
    assert!(said.contains("Unknown key 'NoNewPrivilegez'"), "{said}");
    let (_, said) = verify(&UNIT.replace("Restart=on-failure", "Restart=sometimes"));
    assert!(said.contains("restart specifier"), "{said}");
}
