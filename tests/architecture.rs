//! ARCHITECTURE.md stays true: the crates and folders it names exist, those
//! that exist are named, and the import circles it lists are exactly those
//! `scripts/import-circles` finds.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap()
}

/// Every `code span` of the page.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The tracked files of the checkout (paths with `/`).
fn tracked_files() -> Vec<String> {
    let output = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output()
        .expect("git runs (the test reads the checkout's tracked files)");
    assert!(output.status.success(), "git ls-files failed");
    String::from_utf8(output.stdout)
        .unwrap()
        .split('\0')
        .filter(|f| !f.is_empty())
        .map(str::to_string)
        .collect()
}

/// A span that reads as a path of the repository: no spaces, no HTTP path,
/// and a folder (`…/`) or a file of a kind the page names.
fn is_path(span: &str) -> bool {
    !span.is_empty()
        && !span.starts_with('/')
        && !span.contains([' ', '*', '$', '=', '\'', ':'])
        && (span.contains('/')
            || [".rs", ".md", ".toml", ".html"]
                .iter()
                .any(|ext| span.ends_with(ext)))
}

#[test]
fn every_path_it_names_exists() {
    let text = architecture();
    let files = tracked_files();
    let top: BTreeSet<&str> = files.iter().map(|f| f.split('/').next().unwrap()).collect();
    let mut missing = Vec::new();
    for span in code_spans(&text).into_iter().filter(|s| is_path(s)) {
        let trimmed = span.trim_end_matches('/');
        let first = trimmed.split('/').next().unwrap();
        let found = if top.contains(first) {
            // From the root: a file, or a folder holding tracked files.
            files
                .iter()
                .any(|f| f == trimmed || f.starts_with(&format!("{trimmed}/")))
        } else {
            // Relative to the folder the sentence is about: somewhere below src/ or crates/.
            files.iter().any(|f| {
                (f.starts_with("src/") || f.starts_with("crates/"))
                    && (f.ends_with(&format!("/{trimmed}")) || f.contains(&format!("/{trimmed}/")))
            })
        };
        if !found {
            missing.push(span);
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}

#[test]
fn every_crate_and_top_level_folder_is_named() {
    let text = architecture();
    let spans: BTreeSet<&str> = code_spans(&text).into_iter().collect();
    let files = tracked_files();
    let mut folders = BTreeSet::new();
    for file in &files {
        let parts: Vec<&str> = file.split('/').collect();
        if parts.len() > 1 {
            folders.insert(format!("{}/", parts[0]));
        }
        if parts.len() > 2 && parts[0] == "crates" {
            folders.insert(format!("crates/{}/", parts[1]));
        }
        // The binary's top-level modules: src/NAME.rs and src/NAME/.
        if parts.len() == 2 && parts[0] == "src" && parts[1].ends_with(".rs") {
            folders.insert(format!("src/{}", parts[1]));
        }
        if parts.len() > 2 && parts[0] == "src" {
            folders.insert(format!("src/{}/", parts[1]));
        }
    }
    let unnamed: Vec<&String> = folders
        .iter()
        .filter(|f| !spans.contains(f.as_str()))
        .collect();
    assert!(
        unnamed.is_empty(),
        "ARCHITECTURE.md does not name these (give each a line in the code map): {unnamed:?}"
    );
    // Every crate is a workspace member, and every member a crate named here.
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    for folder in folders.iter().filter(|f| f.starts_with("crates/")) {
        let member = folder.trim_end_matches('/');
        if member == "crates" {
            continue;
        }
        assert!(
            manifest.contains(&format!("\"{member}\"")),
            "{member} is not a workspace member in Cargo.toml"
        );
    }
}

#[test]
fn it_is_short_enough_to_read() {
    let lines = architecture().lines().count();
    assert!(
        lines <= 400,
        "ARCHITECTURE.md has {lines} lines; keep it to 400"
    );
}

/// "where: a, b, c" for each circle, from the script's report or the page's list.
fn circles_found() -> BTreeSet<String> {
    let mut command = Command::new("python3");
    command
        .arg(root().join("scripts/import-circles"))
        .arg("--quiet");
    command.arg(root().join("src"));
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .collect();
    crates.sort();
    command.args(&crates);
    let output = command
        .output()
        .expect("python3 runs scripts/import-circles");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "scripts/import-circles failed: {stderr}"
    );
    let mut found = BTreeSet::new();
    for line in stdout.lines() {
        let Some((folder, rest)) = line.split_once(": a circle among the modules of ") else {
            continue;
        };
        // The package the folder is the source of: src/ is the binary's.
        let folder = Path::new(folder);
        let package = match folder.parent().filter(|p| p != &root()) {
            Some(dir) => format!("ask_user_{}", dir.file_name().unwrap().to_string_lossy()),
            None => "ask_user".to_string(),
        };
        let place = rest.split(':').next().unwrap();
        let tied = rest
            .split("modules tied: ")
            .nth(1)
            .and_then(|t| t.strip_suffix(')'))
            .unwrap_or_else(|| panic!("unexpected report line: {line}"));
        found.insert(format!("{package} {place}: {tied}"));
    }
    found
}

#[test]
fn the_known_circles_are_exactly_those_listed() {
    let text = architecture();
    let list = text
        .split("<!-- circles: begin -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- circles: end -->").next())
        .expect("ARCHITECTURE.md has the circles list between its markers");
    let listed: BTreeSet<String> = list
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .map(str::to_string)
        .collect();
    let found = circles_found();
    let new: Vec<&String> = found.difference(&listed).collect();
    let gone: Vec<&String> = listed.difference(&found).collect();
    assert!(
        new.is_empty(),
        "new import circles (scripts/import-circles names the files; break them with a trait or a channel): {new:?}"
    );
    assert!(
        gone.is_empty(),
        "these circles are gone: take them off ARCHITECTURE.md's list: {gone:?}"
    );
}

#[test]
fn the_contract_crate_has_no_circle() {
    assert!(
        circles_found()
            .iter()
            .all(|c| !c.starts_with("ask_user_core ")),
        "ask_user_core must have no import circle"
    );
    let output = Command::new("python3")
        .arg(root().join("scripts/import-circles"))
        .arg(root().join("crates/core/src"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

/// The checker itself: a circle made on purpose is found and named by file
/// and line; the same tree without it has none.
#[test]
fn the_circle_checker_finds_a_circle_and_names_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(
        src.join("lib.rs"),
        "pub mod a;\npub mod b;\n// crate::b in a comment\n",
    )
    .unwrap();
    std::fs::write(
        src.join("a/mod.rs"),
        "mod inner;\npub use inner::Thing;\nconst S: &str = \"crate::b::g\";\n#[cfg(test)]\nmod tests { use crate::b::g; }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("a/inner.rs"),
        "pub struct Thing;\nuse super::super::b::{self as bee, g};\n",
    )
    .unwrap();
    std::fs::write(src.join("b.rs"), "pub fn g() {}\n").unwrap();
    let run = || {
        Command::new("python3")
            .arg(root().join("scripts/import-circles"))
            .arg(&src)
            .output()
            .unwrap()
    };
    let clean = run();
    assert!(clean.status.success(), "{clean:?}");

    std::fs::write(src.join("b.rs"), "use crate::a::Thing;\npub fn g() {}\n").unwrap();
    let circle = run();
    assert_eq!(circle.status.code(), Some(1));
    let report = String::from_utf8(circle.stdout).unwrap();
    assert!(report.contains("a → b → a"), "{report}");
    assert!(report.contains("a → b  (src/a/inner.rs:2)"), "{report}");
    // The re-export `pub use inner::Thing` counts as a/inner.rs's.
    assert!(report.contains("b → a  (src/b.rs:1)"), "{report}");
}

/// Where `text` names an issue of the tracker ("issue #40", "(issue 39)",
/// "issue #40's", "issues 38", and the same broken over a comment's line):
/// the 1-based line of each. A number means nothing to a reader outside the
/// tracker; a comment says what a thing is and why. A line that links an
/// upstream project (`github.com/…`) may name that project's issue.
fn issue_numbers(text: &str) -> Vec<usize> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut lines = Vec::new();
    let mut from = 0;
    while let Some(at) = lower[from..].find("issue") {
        let start = from + at;
        from = start + "issue".len();
        let word_start =
            start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        let mut i = from;
        if bytes.get(i) == Some(&b's') {
            i += 1;
        }
        // Spaces, and a comment's leaders when the number is on the next line.
        while i < bytes.len()
            && matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r' | b'/' | b'!' | b'*')
        {
            i += 1;
        }
        if bytes.get(i) == Some(&b'#') {
            i += 1;
        }
        if !word_start || !bytes.get(i).is_some_and(u8::is_ascii_digit) {
            continue;
        }
        let line_start = lower[..start].rfind('\n').map_or(0, |n| n + 1);
        let line_end = lower[start..].find('\n').map_or(lower.len(), |n| start + n);
        if lower[line_start..line_end].contains("github.com/") {
            continue;
        }
        lines.push(lower[..start].matches('\n').count() + 1);
    }
    lines
}

#[test]
fn the_issue_finder_finds_issue_numbers_and_nothing_else() {
    assert_eq!(issue_numbers("//! Addressing (issue #40): who"), [1]);
    assert_eq!(issue_numbers("a\n// the pool (issue 24)"), [2]);
    assert_eq!(issue_numbers("/// Issue #40's throughput"), [1]);
    assert_eq!(
        issue_numbers("//! host config files (issue\n//! 26): whatever"),
        [1]
    );
    assert_eq!(issue_numbers("  // (issues 38 and 39)"), [1]);
    assert!(issue_numbers("let c = key.issue(id, 5);\nkey.issue(\"ab\", 1)").is_empty());
    assert!(issue_numbers("tissue 3; an issue of the store; issue_links(2)").is_empty());
    assert!(issue_numbers("// hyper's https://github.com/hyperium/hyper issue #2312").is_empty());
}

/// Comments say what a module or an item is, not which issue of the tracker
/// made it: no file under src/ or crates/ names an issue number.
#[test]
fn no_comment_names_an_issue_number() {
    let mut found = Vec::new();
    for file in tracked_files() {
        if !(file.starts_with("src/") || file.starts_with("crates/")) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(root().join(&file)) else {
            continue; // not text: an icon, a picture
        };
        for line in issue_numbers(&text) {
            found.push(format!("{file}:{line}"));
        }
    }
    assert!(
        found.is_empty(),
        "say what the module or item is, not which issue made it: {found:?}"
    );
}

/// The inbox's layers as ARCHITECTURE.md lists them: each top-level module
/// and its layer's number.
fn inbox_layers() -> std::collections::BTreeMap<String, usize> {
    let text = architecture();
    let list = text
        .split("<!-- inbox layers: begin -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- inbox layers: end -->").next())
        .expect("ARCHITECTURE.md lists the inbox's layers between their markers");
    let mut layers = std::collections::BTreeMap::new();
    for line in list.lines().filter(|l| !l.trim().is_empty()) {
        let (number, rest) = line.split_once(". ").expect(line);
        let number: usize = number.parse().expect(line);
        let (_, modules) = rest.split_once(": ").expect(line);
        for module in modules.split(", ") {
            assert!(
                layers.insert(module.to_string(), number).is_none(),
                "{module} is in two layers"
            );
        }
    }
    layers
}

/// The imports that go up: `A -> B (file:line)` lines whose B stands in a
/// higher layer than A, and the modules the layers do not list.
fn upward(
    layers: &std::collections::BTreeMap<String, usize>,
    edges: &str,
) -> (Vec<String>, BTreeSet<String>) {
    let mut up = Vec::new();
    let mut unlisted = BTreeSet::new();
    for line in edges.lines() {
        let (from, rest) = line.split_once(" -> ").expect(line);
        let to = rest.split(' ').next().unwrap();
        match (layers.get(from), layers.get(to)) {
            (Some(a), Some(b)) if b > a => up.push(line.to_string()),
            (Some(_), Some(_)) => {}
            (a, b) => {
                for (name, layer) in [(from, a), (to, b)] {
                    if layer.is_none() {
                        unlisted.insert(name.to_string());
                    }
                }
            }
        }
    }
    (up, unlisted)
}

#[test]
fn the_inbox_s_modules_use_only_their_layer_and_those_below() {
    let layers = inbox_layers();
    let src = root().join("crates/inbox/src");
    let output = Command::new("python3")
        .arg(root().join("scripts/import-circles"))
        .arg("--edges")
        .arg(&src)
        .output()
        .expect("python3 runs scripts/import-circles");
    assert!(output.status.success(), "{output:?}");
    let edges = String::from_utf8(output.stdout).unwrap();
    assert!(edges.contains("hub -> store"), "{edges}");
    let (up, mut unlisted) = upward(&layers, &edges);
    assert!(
        up.is_empty(),
        "imports from a lower layer of the inbox to a higher one (take a trait or a channel, or move the item down): {up:#?}"
    );
    // Every top-level module, used or not, has its layer.
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let module = path.is_dir() || path.extension().is_some_and(|e| e == "rs");
        if module && name != "lib" && !layers.contains_key(&name) {
            unlisted.insert(name);
        }
    }
    assert!(
        unlisted.is_empty(),
        "modules of the inbox that ARCHITECTURE.md's layers do not list: {unlisted:?}"
    );
    let listed: BTreeSet<&String> = layers.keys().collect();
    for module in listed {
        assert!(
            src.join(format!("{module}.rs")).is_file() || src.join(module).is_dir(),
            "ARCHITECTURE.md lists an inbox module that does not exist: {module}"
        );
    }
}

#[test]
fn the_layer_check_finds_an_import_that_goes_up_and_a_module_not_listed() {
    let layers = std::collections::BTreeMap::from([
        ("store".to_string(), 1),
        ("hub".to_string(), 2),
        ("routes".to_string(), 4),
    ]);
    let edges = "hub -> store (src/hub.rs:3)\nroutes -> hub (src/routes.rs:9)\nstore -> hub (src/store/mod.rs:7)\nhub -> extra (src/hub.rs:5)\n";
    let (up, unlisted) = upward(&layers, edges);
    assert_eq!(up, ["store -> hub (src/store/mod.rs:7)"]);
    assert_eq!(unlisted, BTreeSet::from(["extra".to_string()]));
}
