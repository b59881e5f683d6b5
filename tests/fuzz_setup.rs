//! `ask_user setup HOST` and `setup --remove HOST` through the binary on
//! arbitrary host files (issue 26): exit 1 with a CONFIG_ERROR that names a
//! line and column, the file byte for byte as it was and no backup; or exit
//! 0 with a file that parses, its mode kept, a backup of the old bytes when
//! it changed, and a second run that changes nothing.
//!
//! The merge's finer properties (every foreign key kept with its value, the
//! entry read back, --remove undoing it) run in process on many more inputs:
//! src/setup/json/fuzz.rs and src/setup/toml/fuzz.rs. Here: a few dozen
//! cases in `cargo test`; `PROPTEST_CASES` (at most 2,000) in bench/fuzz.sh.

// Unix only: Unix file modes, and the Unix config folders under HOME.
#![cfg(unix)]

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::Value;

/// One host: its name, its file under the home, and its format.
struct Host {
    name: &'static str,
    file: &'static str,
    toml: bool,
}

const HOSTS: [Host; 4] = [
    Host {
        name: "claude-code",
        file: ".claude.json",
        toml: false,
    },
    Host {
        name: "vscode",
        file: "xdg/Code/User/mcp.json",
        toml: false,
    },
    Host {
        name: "amp",
        file: "xdg/amp/settings.json",
        toml: false,
    },
    Host {
        name: "codex",
        file: "codex-home/config.toml",
        toml: true,
    },
];

/// Files as people keep them, to be changed a little.
const JSON_SEEDS: [&str; 5] = [
    "",
    "{}\n",
    "// my settings\n{\n  \"theme\": \"dark\", /* keep */\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"},\n  },\n}\n",
    "{\"servers\": {\"ask_user\": {\"type\": \"stdio\", \"command\": \"/old\", \"env\": {\"A\": \"1\"}}}}",
    "\u{feff}{\r\n\t\"amp.mcpServers\": {\r\n\t\t\"ask_user\": {\"command\": \"npx\", \"args\": [\"-y\"]}\r\n\t}\r\n}",
];
const TOML_SEEDS: [&str; 5] = [
    "",
    "model = \"o3\" # fast\n",
    "# codex\n[mcp_servers.other]\ncommand = \"x\"\n\n[mcp_servers.ask_user]\ncommand = \"/old\"\nenv = { A = \"1\" }\n",
    "mcp_servers = { other = { command = \"x\" } }\n[profiles.a]\nmodel = 'o4'\n",
    "mcp_servers.ask_user.command = \"/old\"\r\n[tui]\r\nnotifications = true\r\n",
];
const TOKENS: [&str; 24] = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "=",
    "\"",
    "'",
    "#",
    "//",
    "/*",
    "\n",
    " ",
    "\u{feff}",
    "\u{0}",
    "\"mcpServers\"",
    "\"ask_user\"",
    "mcp_servers",
    "ask_user",
    "[mcp_servers]",
    "1",
    "null",
    "\u{e9}",
];

#[derive(Debug, Clone)]
enum Edit {
    Put(usize, u8),
    Insert(usize, &'static str),
    Delete(usize, usize),
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for edit in edits {
        let len = bytes.len().max(1);
        match edit {
            Edit::Put(at, byte) if !bytes.is_empty() => bytes[at % len] = *byte,
            Edit::Insert(at, token) => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, token.bytes());
            }
            Edit::Delete(at, n) if !bytes.is_empty() => {
                let at = at % len;
                bytes.drain(at..(at + n).min(bytes.len()));
            }
            _ => {}
        }
    }
    bytes
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Edit::Put(at, byte)),
        (any::<usize>(), prop::sample::select(TOKENS.to_vec()))
            .prop_map(|(at, token)| Edit::Insert(at, token)),
        (any::<usize>(), 1usize..8).prop_map(|(at, n)| Edit::Delete(at, n)),
    ]
}

/// A host, and a file for it: a seed with a few edits (or none), token
/// soup, or any bytes.
fn case() -> impl Strategy<Value = (usize, Vec<u8>, bool)> {
    let seed = (
        any::<prop::sample::Index>(),
        prop::collection::vec(edit(), 0..4),
    );
    let file = prop_oneof![
        4 => seed.prop_map(|(index, edits)| (Some(index), edits, Vec::new())),
        1 => prop::collection::vec(prop::sample::select(TOKENS.to_vec()), 0..16)
            .prop_map(|tokens| (None, Vec::new(), tokens.concat().into_bytes())),
        1 => prop::collection::vec(any::<u8>(), 0..64).prop_map(|bytes| (None, Vec::new(), bytes)),
    ];
    (0..HOSTS.len(), file, any::<bool>()).prop_map(|(host, (seed, edits, bytes), remove)| {
        let bytes = match seed {
            Some(index) => {
                let seeds = if HOSTS[host].toml {
                    TOML_SEEDS
                } else {
                    JSON_SEEDS
                };
                apply(seeds[index.index(seeds.len())].as_bytes().to_vec(), &edits)
            }
            None => bytes,
        };
        (host, bytes, remove)
    })
}

struct Run {
    code: i32,
    stdout: String,
}

fn setup(home: &Path, host: &Host, remove: bool) -> Run {
    let mut command = assert_cmd::Command::new(common::bin());
    command.arg("setup");
    if remove {
        command.arg("--remove");
    }
    let out = command
        .arg(host.name)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("xdg"))
        .env("CODEX_HOME", home.join("codex-home"))
        // setup refuses a binary in the temporary folder: a checkout under
        // /tmp must not look like one.
        .env("TMPDIR", home.join("tmp"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("GEMINI_CLI_HOME")
        .env_remove("TOOLBOX_ACTION")
        .write_stdin("")
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
    }
}

/// The names in the file's folder, but the file's own.
fn beside(path: &Path) -> Vec<PathBuf> {
    let mut names: Vec<PathBuf> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|other| other != path)
        .collect();
    names.sort();
    names
}

/// Whether the host's parser reads `text` (JSONC for every host but Codex).
fn parses(host: &Host, text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if host.toml {
        return text.parse::<toml_edit::DocumentMut>().is_ok();
    }
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    jsonc_parser::parse_to_value(text, &options).is_ok()
}

/// Whether setup wrote (or kept) the file, after checking either outcome.
fn check(host: &Host, bytes: &[u8], remove: bool) -> Result<bool, TestCaseError> {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(host.file);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, bytes).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    let others = beside(&path);
    let run = setup(home.path(), host, remove);
    let lines: Vec<&str> = run.stdout.lines().collect();
    prop_assert_eq!(lines.len(), 1, "one line on stdout: {:?}", run.stdout);
    let line: Value = serde_json::from_str(lines[0])
        .map_err(|e| TestCaseError::fail(format!("not JSON ({e}): {}", lines[0])))?;
    let after = fs::read(&path).unwrap();
    match run.code {
        1 => {
            prop_assert_eq!(&line["status"], "error", "{}", line);
            prop_assert_eq!(&line["error"]["code"], "CONFIG_ERROR", "{}", line);
            let message = line["error"]["message"].as_str().unwrap_or_default();
            let start = format!("{} does not parse at line ", path.display());
            prop_assert!(message.starts_with(&start), "{}", message);
            prop_assert!(message.ends_with("(it was left as it was)"), "{}", message);
            prop_assert_eq!(&after[..], bytes, "a refused file changed");
            prop_assert_eq!(beside(&path), others, "a refusal left a file beside");
            Ok(false)
        }
        0 => {
            prop_assert_eq!(&line["host"], host.name);
            prop_assert_eq!(&line["configured"], !remove);
            let action = line["action"].as_str().unwrap_or_default();
            let text = String::from_utf8(after.clone())
                .map_err(|_| TestCaseError::fail("setup wrote a file that is not UTF-8"))?;
            prop_assert!(
                parses(host, &text),
                "setup wrote a file its host cannot read: {:?}",
                text
            );
            let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            prop_assert_eq!(mode, 0o640, "the file's mode changed");
            let backup = path.with_file_name(format!(
                "{}.ask_user.bak",
                path.file_name().unwrap().to_str().unwrap()
            ));
            if action == "unchanged" {
                prop_assert_eq!(&after[..], bytes);
                prop_assert!(!backup.exists(), "a backup of an unchanged file");
            } else {
                let expected: &[&str] = if remove {
                    &["removed"]
                } else {
                    &["added", "updated"]
                };
                prop_assert!(expected.contains(&action), "{}", line);
                prop_assert_ne!(&after[..], bytes, "{} but the file is the same", action);
                let kept = fs::read(&backup).ok();
                prop_assert_eq!(kept.as_deref(), Some(bytes), "no backup of the old file");
            }
            let again = setup(home.path(), host, remove);
            prop_assert_eq!(again.code, 0, "{}", again.stdout);
            prop_assert!(
                again.stdout.contains("\"action\":\"unchanged\""),
                "{}",
                again.stdout
            );
            prop_assert_eq!(
                fs::read(&path).unwrap(),
                after,
                "a second run changed the file"
            );
            Ok(true)
        }
        code => Err(TestCaseError::fail(format!("exit {code}: {}", run.stdout))),
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(40u32)
        .min(2_000)
}

#[test]
fn setup_refuses_untouched_or_writes_a_file_its_host_reads() {
    let cases = cases();
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let tally = std::cell::Cell::new([0u32; 2]);
    let started = std::time::Instant::now();
    let outcome =
        proptest::test_runner::TestRunner::new(config).run(&case(), |(host, bytes, remove)| {
            let written = check(&HOSTS[host], &bytes, remove)?;
            let mut counts = tally.get();
            counts[usize::from(written)] += 1;
            tally.set(counts);
            Ok(())
        });
    let [refused, written] = tally.get();
    eprintln!(
        "fuzz setup_binary: {cases} inputs, {written} written or unchanged, {refused} refused, {:.1} s",
        started.elapsed().as_secs_f64()
    );
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}
