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

/// The folder every picture is made in (scripts/pictures/demo.sh).
const DEMO: &str = "/tmp/demo/project";

/// The keyword of the page text tests/web/picture.mjs keeps in each PNG.
const PAGE_TEXT: &str = "ask_user page text";

/// The page text a PNG picture carries (an uncompressed iTXt chunk under
/// [`PAGE_TEXT`]: the page's DOM text read just before the screenshot).
fn page_text(png: &[u8]) -> Option<String> {
    let mut at = 8;
    while at + 12 <= png.len() {
        let length = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let kind = &png[at + 4..at + 8];
        let data = png.get(at + 8..at + 8 + length)?;
        if kind == b"iTXt" {
            // keyword NUL, compressed, method, language NUL, translated keyword NUL, text
            let mut fields = data.splitn(2, |b| *b == 0);
            let keyword = fields.next()?;
            let rest = fields.next()?;
            if keyword == PAGE_TEXT.as_bytes() && rest.first() == Some(&0) {
                let mut after = rest.get(2..)?.splitn(3, |b| *b == 0);
                let text = after.nth(2)?;
                return String::from_utf8(text.to_vec()).ok();
            }
        }
        at += 12 + length;
    }
    None
}

/// Every absolute path in `text` that is neither the demo folder nor under
/// it: a `/` that starts a word (after a space, a quote, `=`, a bracket),
/// followed by a name, up to the next space or quote. A URL's path (after
/// `host:port` or `://`) and a closing tag (`</text>`) start no word.
fn paths_outside_the_demo(text: &str) -> Vec<String> {
    let starts = |c: char| !(c.is_alphanumeric() || "/._-~:<".contains(c));
    let ends = |c: char| c.is_whitespace() || "\"'<>()[]{},;`".contains(c);
    let mut found = Vec::new();
    let mut previous = ' ';
    for (at, c) in text.char_indices() {
        let before = previous;
        previous = c;
        if c != '/' || !starts(before) {
            continue;
        }
        let path = &text[at..];
        let path = &path[..path.find(ends).unwrap_or(path.len())];
        let path = path.trim_end_matches(['.', ':', '!', '?']);
        let named = path[1..].starts_with(|c: char| c.is_alphanumeric() || "._-~".contains(c));
        let in_demo = path == DEMO || path.starts_with(&format!("{DEMO}/"));
        if named && !in_demo {
            found.push(path.to_string());
        }
    }
    found
}

/// What the cast prints (its "o" events) and its title: the header's
/// `env` (the recording shell's own path) is never shown.
fn printed(cast: &str) -> String {
    let mut lines = cast.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let mut printed = header["title"].as_str().unwrap_or_default().to_string();
    printed.push('\n');
    for line in lines {
        let event: Value = serde_json::from_str(line).unwrap();
        if event[1] == "o" {
            printed.push_str(event[2].as_str().unwrap());
        }
    }
    printed
}

/// The scan finds a folder of a development machine wherever the page or
/// the recording shows one, and passes the demo folder and the page's URLs.
fn the_path_scan_finds_a_machine_s_folder_and_passes_the_demo_s() {
    let shown = "phone-64a285527\n/work/wt-k\npid 9835\ncwd=/home/ada/src/app, \
        '/root/.config' (/Users/ada) at /tmp/tmp.x1/state: /tmp/demo/projects \
        $ ask_user ask /tmp/demo/project/service.json > /tmp/demo/project/answer.json. \
        http://127.0.0.1:8080/app https://inbox.example.test/pair#9f y/n Space/1-3 </text> 1/2";
    assert_eq!(
        paths_outside_the_demo(shown),
        [
            "/work/wt-k",
            "/home/ada/src/app",
            "/root/.config",
            "/Users/ada",
            "/tmp/tmp.x1/state",
            "/tmp/demo/projects"
        ]
    );
}

/// No picture's text holds a path outside the demo folder, nor names the
/// folders of the machine that made it: the recording (what the cast
/// prints, and the SVG) and each PNG's page, whose DOM text taken before
/// the screenshot the PNG carries (tests/web/picture.mjs; a PNG without it
/// fails, so a picture made some other way cannot pass unread).
fn no_picture_text_holds_a_path_outside_the_demo_folder() {
    let mut texts = vec![
        (
            "terminal.cast".to_string(),
            printed(&std::fs::read_to_string(docs("terminal.cast")).unwrap()),
        ),
        (
            "terminal.svg".to_string(),
            std::fs::read_to_string(docs("terminal.svg")).unwrap(),
        ),
    ];
    let mut pngs: Vec<String> = std::fs::read_dir(docs(""))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".png"))
        .collect();
    pngs.sort();
    assert!(pngs.len() >= 5, "{pngs:?}");
    for name in pngs {
        let text = page_text(&std::fs::read(docs(&name)).unwrap()).unwrap_or_else(|| {
            panic!("docs/{name} carries no page text: make it with scripts/screenshots")
        });
        assert!(text.lines().count() > 10, "docs/{name}: {text}");
        texts.push((name, text));
    }
    let home = std::env::var("HOME").unwrap_or_default();
    let repository = env!("CARGO_MANIFEST_DIR");
    let temporary = std::env::temp_dir();
    let machine = [
        "/work/",
        "/home/",
        "/root",
        "/tmp/tmp.",
        "/Users/",
        home.as_str(),
        repository,
        temporary.to_str().unwrap_or("/tmp"),
    ];
    for (name, text) in &texts {
        let outside = paths_outside_the_demo(text);
        assert!(
            outside.is_empty(),
            "docs/{name} shows paths outside {DEMO}: {outside:?}"
        );
        for folder in machine.iter().filter(|folder| folder.len() > 1) {
            let shown = text.replace(DEMO, "");
            assert!(!shown.contains(folder), "docs/{name} names {folder}");
        }
    }
}

common::harness::main!(
    the_recording_ends_on_the_answer_and_holds_it,
    the_path_scan_finds_a_machine_s_folder_and_passes_the_demo_s,
    no_picture_text_holds_a_path_outside_the_demo_folder,
);
