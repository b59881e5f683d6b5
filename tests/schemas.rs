//! The published schemas (schemas/*.json) against an independent validator:
//! Python's `jsonschema` (pinned in tests/schema/requirements.txt, installed by
//! .ci/setup-check.sh) runs tests/schema/validate.py over
//! - every tool input we keep (tests/check/inputs, and fixtures/*.input.json
//!   that the binary accepts) and every fixture's expected document;
//! - every document the binary prints for them, and error documents for every
//!   code the prompt face can reach;
//! - answer documents (from `ask_user answer` when the binary has that face,
//!   and from the library's answer builder);
//! - the broken documents in tests/check/broken/<schema>/, each of which must be
//!   rejected (at least five per schema), and which `check` must reject too.
//!
//! Without jsonschema that test counts as ignored (tests/common/harness.rs),
//! and fails under CI.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ask_user::answer::{AnswerDocument, Unanswered, resolve_replies};
use ask_user::model::Kind;
use common::bin;
use common::clients::jsonschema_python;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn run(args: &[&str], stdin: &[u8], envs: &[(&str, &str)]) -> Output {
    use std::io::Write;
    let mut command = Command::new(bin());
    command
        .args(args)
        .env_remove("TOOLBOX_ACTION")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in envs {
        command.env(key, value);
    }
    let mut child = common::process::ChildGuard::spawn(&mut command).expect("run ask_user");
    let mut input = child.stdin.take().unwrap();
    // The binary may stop reading early (a too-large input): a broken pipe is fine.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().unwrap()
}

fn json_files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    files.sort();
    files
}

/// Whether a JSON document on stdout is an error document.
fn is_error_document(bytes: &[u8]) -> bool {
    let value: serde_json::Value = serde_json::from_slice(bytes).expect("stdout is JSON");
    value["status"] == "error"
}

struct Manifest {
    dir: tempfile::TempDir,
    lines: Vec<String>,
    count: usize,
}

impl Manifest {
    fn new() -> Self {
        Manifest {
            dir: tempfile::tempdir().unwrap(),
            lines: Vec::new(),
            count: 0,
        }
    }

    fn file(&mut self, schema: &str, expect: &str, path: &Path) {
        self.lines
            .push(format!("{schema}\t{expect}\t{}", path.display()));
    }

    /// Keeps a produced document (in the folder that `check` reads later).
    fn produced(&mut self, schema: &str, bytes: &[u8]) {
        self.count += 1;
        let path = self
            .dir
            .path()
            .join(format!("{:03}-{schema}.json", self.count));
        fs::write(&path, bytes).unwrap();
        self.file(schema, "valid", &path);
    }

    fn printed(&mut self, output: &Output) {
        let schema = if is_error_document(&output.stdout) {
            "error"
        } else {
            "prompt"
        };
        self.produced(schema, &output.stdout);
    }
}

/// Reply sets that answer every question of `bytes`, for answer documents.
fn reply_sets(bytes: &[u8]) -> Vec<Vec<String>> {
    let Ok(prompt) = ask_user::input::parse(bytes) else {
        return Vec::new();
    };
    let first = prompt
        .questions
        .iter()
        .map(|q| match q.kind {
            Kind::SingleSelect => "1".to_string(),
            Kind::MultiSelect => "1, 2".to_string(),
            Kind::Text => "Ada Lovelace".to_string(),
            Kind::Confirm => "no".to_string(),
        })
        .collect();
    let second = prompt
        .questions
        .iter()
        .map(|q| {
            if !q.required {
                String::new()
            } else if q.kind.is_select() && q.allow_other {
                "something else entirely".to_string()
            } else if q.kind.is_select() {
                // By label where the label is no number (a number names an option by position).
                let label = &q.options[q.options.len() - 1].label;
                if label.parse::<f64>().is_ok() {
                    q.options.len().to_string()
                } else {
                    label.clone()
                }
            } else {
                "yes".to_string()
            }
        })
        .collect();
    vec![first, second]
}

fn schemas_accept_every_produced_document_and_reject_broken_ones() {
    let python = jsonschema_python();
    let root = Path::new(ROOT);
    let mut manifest = Manifest::new();

    // Inputs we keep, and the lead's fixtures when they are there.
    let mut inputs = json_files(&root.join("tests/check/inputs"), ".json");
    inputs.extend(json_files(&root.join("fixtures"), ".input.json"));
    assert!(inputs.len() >= 5, "too few inputs: {inputs:?}");
    for input in &inputs {
        let output = run(&["prompt", &input.to_string_lossy()], b"", &[]);
        manifest.printed(&output);
        if output.status.success() {
            manifest.file("input", "valid", input);
        }
        let bytes = fs::read(input).unwrap();
        for (set, replies) in reply_sets(&bytes).into_iter().enumerate() {
            // The second set gives a note with every reply.
            let notes: Vec<Option<String>> = replies
                .iter()
                .enumerate()
                .map(|(i, _)| (set == 1).then(|| format!("a note on question {}", i + 1)))
                .collect();
            let mut args = vec!["answer".to_string()];
            for (reply, note) in replies.iter().zip(&notes) {
                args.extend(["--reply".to_string(), reply.clone()]);
                if let Some(note) = note {
                    args.extend(["--note".to_string(), note.clone()]);
                }
            }
            args.push(input.to_string_lossy().into_owned());
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let output = run(&args, b"", &[]);
            // The replies fit, so `answer` prints what the library builds.
            let prompt = ask_user::input::parse(&bytes).unwrap();
            let document = resolve_replies(&prompt, &replies, &notes)
                .expect("replies fit")
                .answered_by_person(
                    ask_user_platform::user::name(),
                    ask_user::answer::Channel::Cli,
                );
            let line = ask_user::document_line(&document);
            assert_eq!(output.status.code(), Some(0), "{args:?}");
            assert_eq!(String::from_utf8_lossy(&output.stdout), format!("{line}\n"));
            manifest.produced("answer", &output.stdout);
        }
    }
    for expected in json_files(&root.join("fixtures"), ".expected.json") {
        let schema = if is_error_document(&fs::read(&expected).unwrap()) {
            "error"
        } else {
            "prompt"
        };
        manifest.file(schema, "valid", &expected);
    }
    for how in [
        Unanswered::Cancelled,
        Unanswered::Declined,
        Unanswered::TimedOut,
    ] {
        let document = AnswerDocument::unanswered(how);
        manifest.produced("answer", ask_user::document_line(&document).as_bytes());
        // A question asked through the inbox carries its id.
        let document = document.with_inbox_id("7hq2k9mc");
        manifest.produced("answer", ask_user::document_line(&document).as_bytes());
    }
    // `mcp --wait`: pending, with the inbox's id or a kept page's 32-hex-digit one.
    for id in ["7hq2k9mc", "0123456789abcdef0123456789abcdef"] {
        let document =
            AnswerDocument::pending(id, format!("call again with {{\"resume\": \"{id}\"}}"));
        manifest.produced("answer", ask_user::document_line(&document).as_bytes());
    }

    // Error documents: every broken input, and the codes only other paths reach.
    for broken in json_files(&root.join("tests/check/broken/input"), ".json") {
        let output = run(&["prompt", &broken.to_string_lossy()], b"", &[]);
        assert_eq!(output.status.code(), Some(1), "{}", broken.display());
        manifest.printed(&output);
    }
    let too_large = vec![b' '; 300_000];
    for output in [
        run(&["prompt"], b"{not json", &[]),
        run(&["prompt"], b"", &[]),
        run(&["prompt"], &too_large, &[]),
        run(&["prompt", "/nonexistent/input.json"], b"", &[]),
        run(&[], b"", &[("TOOLBOX_ACTION", "explode")]),
        run(&["prompt"], b"{}", &[("ASK_USER_DEBUG_PANIC", "1")]),
        run(
            &["prompt"],
            br#"{"question":"q","options":"[oops"}"#,
            &[("TOOLBOX_ACTION", "execute")],
        ),
    ] {
        assert_eq!(output.status.code(), Some(1));
        manifest.printed(&output);
    }

    // Broken documents: each schema rejects at least five.
    for schema in ["input", "prompt", "answer", "error"] {
        let broken = json_files(&root.join("tests/check/broken").join(schema), ".json");
        assert!(
            broken.len() >= 5,
            "{schema}: only {} broken documents",
            broken.len()
        );
        for path in broken {
            manifest.file(schema, "invalid", &path);
        }
    }

    let manifest_path = manifest.dir.path().join("manifest.tsv");
    fs::write(&manifest_path, manifest.lines.join("\n")).unwrap();
    let output = Command::new(&python)
        .arg(root.join("tests/schema/validate.py"))
        .arg(root.join("schemas"))
        .arg(&manifest_path)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the schemas disagree with the binary:\n{report}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!("{report}");

    // The binary's own checker accepts everything it printed, too.
    let produced = manifest.dir.path().to_string_lossy().into_owned();
    fs::remove_file(&manifest_path).unwrap();
    let output = run(&["check", "--quiet", &produced], b"", &[]);
    assert!(
        output.status.success(),
        "check rejects documents the binary printed:\n{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

fn schema_face_prints_each_schema_on_one_line() {
    for name in ["input", "prompt", "answer", "error"] {
        let output = run(&["schema", name], b"", &[]);
        assert_eq!(output.status.code(), Some(0), "{name}");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.ends_with('\n') && text.matches('\n').count() == 1);
        let printed: serde_json::Value = serde_json::from_str(&text).unwrap();
        let kept: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(format!("{ROOT}/schemas/{name}.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(printed, kept, "{name}");
        assert_eq!(
            printed["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
    }
    let output = run(&["schema", "toolbox"], b"", &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("invalid value 'toolbox'"));
    let output = run(&["schema"], b"", &[]);
    assert_eq!(output.status.code(), Some(2));
}

fn the_answer_schema_stays_an_mcp_output_schema() {
    let output = run(&["describe", "--format", "mcp"], b"", &[]);
    let tool: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let kept: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(format!("{ROOT}/schemas/answer.json")).unwrap())
            .unwrap();
    // An MCP outputSchema is an object schema: the answer document, or the
    // prompt document that `--fallback prompt` returns for the model to relay.
    assert_eq!(tool["outputSchema"]["type"], "object");
    assert_eq!(tool["outputSchema"]["anyOf"][0], kept);
    assert_eq!(kept["type"], "object");
}

common::harness::main!(
    schemas_accept_every_produced_document_and_reject_broken_ones,
    schema_face_prints_each_schema_on_one_line,
    the_answer_schema_stays_an_mcp_output_schema,
);
