//! Property tests of the input path: arbitrary bytes, mutated fixtures and
//! random dialect-shaped JSON never panic, never hang, and always give exactly
//! one JSON document with status ok (exit 0) or error (exit 1).
//!
//! In-process cases run through `execute_line`, the function the binary's
//! execute face prints; a smaller share runs through the binary itself.
//! More cases: `PROPTEST_CASES=500000 cargo test --release --test fuzz_input`.
//! Coverage-guided: `cargo fuzz run -s none execute` (see CONTRIBUTING.md).

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{Map, Value};

mod common;

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn fixtures() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".input.json"))
        .collect();
    files.sort();
    files.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// A hang guard, not a speed target: speed is measured by bench/, in
/// medians against a baseline, never by a timed test.
const HANG: Duration = Duration::from_secs(10);

/// The contract every input must meet.
fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let start = Instant::now();
    let (line, code) = ask_user::execute_line(bytes);
    prop_assert!(start.elapsed() < HANG, "took {:?}", start.elapsed());
    prop_assert!(!line.contains('\n'), "document spans lines: {line}");
    let doc: Value = serde_json::from_str(&line)
        .map_err(|e| TestCaseError::fail(format!("not JSON ({e}): {line}")))?;
    prop_assert_eq!(&doc["tool"], "ask_user");
    match (doc["status"].as_str(), code) {
        (Some("ok"), 0) => {
            // A success is stable: printing it again gives the same bytes.
            prop_assert_eq!(ask_user::execute_line(bytes).0, line.clone());
        }
        (Some("error"), 1) => {
            let code = doc["error"]["code"].as_str().unwrap_or_default();
            prop_assert!(
                ask_user::error::AskError::CODES.contains(&code),
                "unknown code {code}"
            );
            prop_assert_ne!(code, "INTERNAL_ERROR");
            prop_assert!(
                !doc["error"]["message"]
                    .as_str()
                    .unwrap_or_default()
                    .is_empty()
            );
        }
        other => prop_assert!(false, "status/exit mismatch {other:?}: {line}"),
    }
    Ok(())
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let tokens = prop::sample::select(vec![
        &b"\""[..],
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b":",
        b"null",
        b"true",
        b"0",
        b"-1e999",
        b"\\u0000",
        b"\\ud800",
        b"\"options\":",
        b"\"questions\":[",
        b"\"type\":\"multi-select\"",
        b"\xef\xbb\xbf",
        b"\xff",
        b"\x1b]0;x\x07",
        b"(Recommended)",
        b"\"default\":",
    ]);
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Flip(p, b)),
        (
            any::<usize>(),
            prop_oneof![
                tokens.prop_map(<[u8]>::to_vec),
                prop::collection::vec(any::<u8>(), 1..8)
            ]
        )
            .prop_map(|(p, t)| Mutation::Insert(p, t)),
        (any::<usize>(), 1usize..16).prop_map(|(p, n)| Mutation::Delete(p, n)),
        (any::<usize>(), 1usize..64).prop_map(|(p, n)| Mutation::Duplicate(p, n)),
    ]
}

fn apply(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let len = bytes.len().max(1);
        match m {
            Mutation::Flip(p, b) if !bytes.is_empty() => bytes[p % len] = *b,
            Mutation::Insert(p, t) => {
                let at = p % (bytes.len() + 1);
                bytes.splice(at..at, t.iter().copied());
            }
            Mutation::Delete(p, n) if !bytes.is_empty() => {
                let at = p % len;
                let end = (at + n).min(bytes.len());
                bytes.drain(at..end);
            }
            Mutation::Duplicate(p, n) if !bytes.is_empty() => {
                let at = p % len;
                let end = (at + n).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(end..end, copy);
            }
            _ => {}
        }
    }
    bytes
}

const KEYS: &[&str] = &[
    "question",
    "prompt",
    "questions",
    "options",
    "context",
    "title",
    "timeout",
    "type",
    "kind",
    "id",
    "header",
    "label",
    "title",
    "name",
    "value",
    "text",
    "description",
    "desc",
    "detail",
    "hint",
    "recommended",
    "multiSelect",
    "multi_select",
    "multiple",
    "allow_other",
    "allowOther",
    "custom",
    "required",
    "default",
    "placeholder",
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (0u64..2_000_000).prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        prop::sample::select(vec![
            "text",
            "select",
            "choice",
            "multi-select",
            "confirm",
            "yesno",
            "yes",
            "no",
            "1",
            "2",
            "",
            " ",
            "a",
            "A",
            "(Recommended)",
            "[\"a\",\"b\"]",
            "[",
            "#2",
            "\u{1b}[2J",
            "é",
        ])
        .prop_map(|s| Value::String(s.to_string())),
        "\\PC{0,12}".prop_map(Value::String),
    ]
}

/// Random JSON whose keys come from the dialects, so validation is exercised deeply.
fn dialect_json() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(5, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS.to_vec()), inner), 0..8).prop_map(
                |pairs| {
                    Value::Object(
                        pairs
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), v))
                            .collect::<Map<_, _>>(),
                    )
                }
            ),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(40_000), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check(&bytes)?;
    }

    #[test]
    fn mutated_fixtures(index in any::<prop::sample::Index>(), mutations in prop::collection::vec(mutation(), 1..6)) {
        let fixtures = fixtures();
        let base = fixtures[index.index(fixtures.len())].clone();
        check(&apply(base, &mutations))?;
    }

    #[test]
    fn dialect_shaped_json(value in dialect_json(), encode_twice in prop::bool::weighted(0.05)) {
        let mut text = value.to_string();
        if encode_twice {
            text = Value::String(text).to_string();
        }
        check(text.as_bytes())?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(300).min(2_000), failure_persistence: None, ..ProptestConfig::default() })]

    /// The same contract through the real binary: exit code, one line on stdout.
    #[test]
    fn through_the_binary(index in any::<prop::sample::Index>(), mutations in prop::collection::vec(mutation(), 0..4)) {
        let fixtures = fixtures();
        let bytes = apply(fixtures[index.index(fixtures.len())].clone(), &mutations);
        let run = common::execute(&bytes);
        let (line, code) = ask_user::execute_line(&bytes);
        prop_assert_eq!(run.code, code);
        prop_assert_eq!(run.stdout, format!("{line}\n"));
    }
}

/// Reply-shaped text: numbers in every form, the question's own labels, separators and noise.
fn reply_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        (0u32..12).prop_map(|n| n.to_string()),
        (0u32..12).prop_map(|n| format!("#{n}")),
        (0u32..12).prop_map(|n| format!("{n}.")),
        Just("yes".to_string()),
        Just("N".to_string()),
        Just("and".to_string()),
        Just(",".to_string()),
        Just(" ".to_string()),
        Just(String::new()),
        "[a-zA-Z ]{0,12}",
        any::<String>(),
    ];
    prop::collection::vec(token, 0..5).prop_map(|tokens| tokens.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(10_000), failure_persistence: None, ..ProptestConfig::default() })]

    /// Any replies to any fixture's questions: an answered document whose
    /// option ids and values come from the question, or INVALID_REPLY. Never
    /// a panic, never an answer the question cannot have.
    #[test]
    fn replies_answer_or_are_refused(index in any::<prop::sample::Index>(),
                                     replies in prop::collection::vec(reply_text(), 1..4),
                                     use_labels in any::<bool>()) {
        let fixtures = fixtures();
        let Ok(prompt) = ask_user::input::parse(&fixtures[index.index(fixtures.len())]) else {
            return Ok(());
        };
        let mut replies = replies;
        replies.resize(prompt.questions.len(), String::new());
        if use_labels {
            // Labels, as a person might type them back.
            for (reply, question) in replies.iter_mut().zip(&prompt.questions) {
                if let Some(choice) = question.options.last() {
                    *reply = choice.label.to_lowercase();
                }
            }
        }
        // The replies' texts, in reverse, as notes: a note never changes the answer.
        let notes: Vec<Option<String>> = replies.iter().rev().cloned().map(Some).collect();
        let plain = ask_user::answer::resolve_replies(&prompt, &replies, &[]);
        match ask_user::answer::resolve_replies(&prompt, &replies, &notes) {
            Ok(document) => {
                prop_assert!(document.answered && !document.cancelled && !document.timed_out);
                prop_assert_eq!(document.answers.len(), prompt.questions.len());
                let plain = plain.expect("a note never refuses a reply");
                for (i, (answer, question)) in document.answers.iter().zip(&prompt.questions).enumerate() {
                    let given = notes[i].as_deref().unwrap_or_default().trim();
                    prop_assert_eq!(answer.note.as_deref(), (!given.is_empty()).then_some(given));
                    let mut without = answer.clone();
                    without.note = None;
                    prop_assert_eq!(&without, &plain.answers[i]);
                    prop_assert_eq!(&answer.question_id, &question.id);
                    let ids = answer.option_ids.clone().unwrap_or_default();
                    prop_assert_eq!(answer.option_ids.is_some(), question.kind.is_select());
                    for id in &ids {
                        prop_assert!(question.option(id).is_some(), "unknown option id {id}");
                    }
                    if answer.custom_text.is_some() {
                        prop_assert!(question.allow_other);
                    }
                    if question.kind == ask_user::model::Kind::SingleSelect {
                        prop_assert!(ids.len() <= 1);
                    }
                    if answer.values.is_empty() {
                        prop_assert!(!question.required, "a required question was skipped");
                    }
                }
            }
            Err(error) => {
                prop_assert_eq!(error.code(), "INVALID_REPLY");
                prop_assert!(plain.is_err(), "a note refused a reply");
            }
        }
    }
}
