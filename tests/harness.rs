//! tests/common/harness.rs on itself: this binary runs again as a child with
//! ASK_USER_HARNESS_DEMO set, where one test finds its client and one misses
//! it, and the child's totals and exit code are checked with `CI` set and
//! unset.

mod common;

use std::process::Command;

use common::harness::{require, standard_test_lines};

const DEMO: &str = "ASK_USER_HARNESS_DEMO";

fn demo_finds_its_client() {
    let client = require(Some("client"), "a client every machine has");
    assert_eq!(client, "client");
}

fn demo_misses_its_client() {
    require(None::<()>, "a client no machine has (install it)");
    unreachable!("require returns only what it found");
}

/// The demo run with `CI` set to `ci` (`None`: unset): exit code, stdout, stderr.
fn demo(ci: Option<&str>) -> (i32, String, String) {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.env(DEMO, "1").env_remove("CI");
    if let Some(ci) = ci {
        command.env("CI", ci);
    }
    let output = command.output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn a_missing_client_is_counted_as_ignored_with_its_reason() {
    for ci in [None, Some(""), Some("0"), Some("false"), Some("FALSE")] {
        let (code, stdout, stderr) = demo(ci);
        assert_eq!(code, 0, "CI={ci:?}: {stdout}{stderr}");
        assert!(
            stdout.contains("test result: ok. 2 passed; 0 failed; 1 ignored;"),
            "CI={ci:?}: {stdout}"
        );
        assert!(
            stdout.contains("... ignored (missing a client no machine has (install it))"),
            "{stdout}"
        );
        // The reason once, at the end, on stderr.
        assert_eq!(
            stderr
                .matches("1 test(s): a client no machine has (install it)")
                .count(),
            1,
            "{stderr}"
        );
    }
}

fn a_missing_client_fails_under_ci() {
    for ci in ["true", "1", "yes"] {
        let (code, stdout, stderr) = demo(Some(ci));
        assert_eq!(code, 101, "CI={ci}: {stdout}{stderr}");
        assert!(
            stdout.contains("test result: FAILED. 2 passed; 1 failed; 0 ignored;"),
            "CI={ci}: {stdout}"
        );
        assert!(
            stdout.contains(
                "a client no machine has (install it) is missing: \
                 under CI a missing outside client fails the test"
            ),
            "{stdout}"
        );
    }
}

fn test_attributes_are_found_wherever_they_are_indented() {
    let attribute = concat!("#[", "test]");
    let source =
        format!("mod common;\n{attribute}\nfn a() {{}}\n    {attribute}\n// {attribute}\n");
    assert_eq!(standard_test_lines(&source), vec![2, 4]);
    assert!(standard_test_lines("fn a() {}\n").is_empty());
}

fn main() -> std::process::ExitCode {
    if std::env::var_os(DEMO).is_some() {
        return common::harness::run(
            file!(),
            vec![
                ("demo_finds_its_client", demo_finds_its_client),
                ("demo_misses_its_client", demo_misses_its_client),
            ],
        );
    }
    common::harness::run(
        file!(),
        vec![
            (
                "a_missing_client_is_counted_as_ignored_with_its_reason",
                a_missing_client_is_counted_as_ignored_with_its_reason,
            ),
            (
                "a_missing_client_fails_under_ci",
                a_missing_client_fails_under_ci,
            ),
            (
                "test_attributes_are_found_wherever_they_are_indented",
                test_attributes_are_found_wherever_they_are_indented,
            ),
        ],
    )
}
