//! The README's pictures, as a reader sees them (issue 41): the terminal
//! recording (docs/terminal.svg, rendered by svg-term-cli from
//! docs/terminal.cast, both made by scripts/screenshots) ends on the answer
//! document and holds it, on screen in a real browser, not only somewhere
//! in the file; and no picture names the folder of the machine that made
//! it (scripts/screenshots works in /tmp/demo/project).
//!
//! Chromium and playwright-core come from tests/web (.ci/setup-web.sh).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use common::clients::{chromium, tests_dir};

fn docs(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs")
        .join(name)
}

/// The lines of the answer document the recording prints at its end (`jq -c
/// .answers[]`), as the cast has them.
fn answer_lines() -> Vec<String> {
    let cast = std::fs::read_to_string(docs("terminal.cast")).unwrap();
    let mut printed = String::new();
    for line in cast.lines().skip(1) {
        let event: Value = serde_json::from_str(line).unwrap();
        if event[1] == "o" {
            printed.push_str(event[2].as_str().unwrap());
        }
    }
    printed
        .split("\r\n")
        .filter(|line| line.starts_with(r#"{"questionId""#))
        .map(str::to_string)
        .collect()
}

fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The last frame a viewer sees, 1 ms and 4 s before the loop restarts, is
/// the same one, and shows every line of the answer document, each drawn
/// inside the terminal's screen, then the prompt back. (svg-term-cli puts a
/// cast's last event at the very end of its loop, where it is shown for no
/// time: the frame seen last was the `jq` command with nothing under it.)
fn the_recording_ends_on_the_answer_and_holds_it() {
    let chromium = chromium(&["playwright-core"]);
    let answers = answer_lines();
    assert_eq!(answers.len(), 4, "one line per question: {answers:?}");
    let out = Command::new("node")
        .arg("svg-frame.mjs")
        .current_dir(tests_dir("web"))
        .env("CHROMIUM", &chromium)
        .env(
            "SCENARIO",
            json!({"svg": docs("terminal.svg"), "before": [1, 4000]}).to_string(),
        )
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(stdout.trim()).unwrap();
    let last = &report["1"];
    let held = &report["4000"];
    assert!(last.get("error").is_none(), "{report:#}");
    assert_eq!(
        last["frame"], held["frame"],
        "the last frame is held 4 s: {report:#}"
    );
    for snapshot in [last, held] {
        let lines = snapshot["lines"].as_array().unwrap();
        let shown: Vec<String> = lines
            .iter()
            .filter(|line| line["visible"] == true)
            .map(|line| words(line["text"].as_str().unwrap()))
            .collect();
        for answer in &answers {
            assert!(
                shown.contains(&words(answer)),
                "{answer} is not on screen: {shown:#?}"
            );
        }
        assert_eq!(shown.last().map(String::as_str), Some("$"), "{shown:#?}");
        assert!(
            shown
                .iter()
                .any(|line| line == "$ jq -c .answers[] answer.json"),
            "{shown:#?}"
        );
    }
}

/// The text pictures name no folder of the machine that made them (the
/// PNGs are checked by the scripts that take them: the inbox's askers must
/// all be in /tmp/demo/project).
fn no_picture_names_the_makers_folder() {
    for name in ["terminal.cast", "terminal.svg"] {
        let text = std::fs::read_to_string(docs(name)).unwrap();
        for folder in ["/work/", "/home/", "/root", "/tmp/tmp.", "/Users/"] {
            assert!(!text.contains(folder), "{name} names {folder}");
        }
    }
}

common::harness::main!(
    the_recording_ends_on_the_answer_and_holds_it,
    no_picture_names_the_makers_folder,
);
