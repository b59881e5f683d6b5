//! Golden test: every `fixtures/*.input.json` gives exactly its
//! `fixtures/*.expected.json` (bytes, so key order is checked too), through
//! both the `prompt` subcommand and `TOOLBOX_ACTION=execute`.
//! Regenerate with `UPDATE_FIXTURES=1 cargo test --test fixtures`, then
//! review the diff by hand: the files are rewritten from the binary, so a
//! rewrite proves nothing. Under CI it is refused.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

mod common;

use common::bin;

fn inputs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".input.json"))
        .collect();
    files.sort();
    assert!(files.len() >= 15, "fixtures/ lost its inputs");
    files
}

fn expected_path(input: &Path) -> PathBuf {
    PathBuf::from(
        input
            .to_string_lossy()
            .replace(".input.json", ".expected.json"),
    )
}

fn expected_exit(input: &Path) -> i32 {
    let name = input.file_name().unwrap().to_string_lossy();
    if name.starts_with("error-") { 1 } else { 0 }
}

/// Whether UPDATE_FIXTURES asks for the expected files to be rewritten;
/// refused under CI, where a rewrite would pass whatever the binary prints.
fn updating() -> bool {
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    assert!(
        !(update && common::harness::under_ci()),
        "UPDATE_FIXTURES is refused under CI: rewriting the expected files from the binary \
         would pass any output. Regenerate them locally and review the diff by hand."
    );
    update
}

#[test]
fn every_fixture_gives_its_expected_document() {
    let update = updating();
    let mut failures = Vec::new();
    for input in inputs() {
        let out = Command::new(bin())
            .arg("prompt")
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(expected_exit(&input)),
            "{}",
            input.display()
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        let expected_file = expected_path(&input);
        if update {
            std::fs::write(&expected_file, &stdout).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_file)
            .unwrap_or_else(|_| panic!("missing {}", expected_file.display()));
        if stdout != expected {
            failures.push(format!(
                "{}\n  got:      {stdout}  expected: {expected}",
                input.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "fixtures differ:\n{}",
        failures.join("\n")
    );
}

#[test]
fn toolbox_execute_prints_the_same_documents() {
    if updating() {
        return; // the other test is rewriting the expected files
    }
    for input in inputs() {
        let out = Command::new(bin())
            .env("TOOLBOX_ACTION", "execute")
            .pipe_stdin(&input)
            .unwrap()
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(expected_exit(&input)));
        let expected = std::fs::read(expected_path(&input)).unwrap();
        assert_eq!(out.stdout, expected, "{}", input.display());
    }
}

#[test]
fn documents_are_one_line_and_valid_json() {
    for input in inputs() {
        let text = std::fs::read_to_string(expected_path(&input)).unwrap();
        assert!(
            text.ends_with('\n') && text.matches('\n').count() == 1,
            "{}",
            input.display()
        );
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["tool"], "ask_user");
        assert_eq!(doc["version"], 1);
    }
}
