//! Coverage-guided fuzzing of the execute face on stable Rust:
//! `cargo fuzz run -s none execute -- -runs=200000`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let (line, code) = ask_user::execute_line(bytes);
    assert!(!line.contains('\n'));
    let doc: serde_json::Value = serde_json::from_str(&line).expect("one JSON document");
    match (doc["status"].as_str(), code) {
        (Some("ok"), 0) => {}
        (Some("error"), 1) => assert_ne!(doc["error"]["code"], "INTERNAL_ERROR"),
        other => panic!("status/exit mismatch {other:?}: {line}"),
    }
});
