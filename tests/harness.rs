//! tests/common/harness.rs on itself: this binary runs again as a child with
//! ASK_USER_HARNESS_DEMO set, where one test finds its client and one misses
//! it, and the child's totals and exit code are checked with `CI` set and
//! unset; with ASK_USER_HARNESS_DEMO=slow, its two tests are slow ones
//! (`main!(slow: …)`), checked with `ASK_USER_SLOW` and `CI` set and unset.
//! Each child leaves its record of what it skipped in a folder of the test
//! (ASK_USER_TEST_RECORDS), which the test reads back.

mod common;

use std::process::Command;

use common::harness::{RECORDS_VAR, SLOW, Skips, require, standard_test_lines, sum_records};

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
    demo_with("1", &[("CI", ci), (SLOW, None)], None)
}

/// The demo `which` ("1", or "slow") with each variable of `env` set to its
/// value (`None`: unset), and its records in `records` when given.
fn demo_with(
    which: &str,
    env: &[(&str, Option<&str>)],
    records: Option<&std::path::Path>,
) -> (i32, String, String) {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.env(DEMO, which).env_remove(RECORDS_VAR);
    for (name, value) in env {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    if let Some(records) = records {
        command.env(RECORDS_VAR, records);
    }
    let output = command.output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn demo_slow_one() {}

fn demo_slow_two() {}

/// `main!(slow: …)`: ignored, with ASK_USER_SLOW named, unless the variable
/// is on, or unset under CI; the record says how many were slow.
fn slow_tests_run_only_when_asked() {
    let ignored = "test result: ok. 1 passed; 0 failed; 2 ignored;";
    let ran = "test result: ok. 3 passed; 0 failed; 0 ignored;";
    for (slow, ci, expected) in [
        (None, None, ignored),
        (Some(""), None, ignored),
        (Some("0"), None, ignored),
        (Some("false"), None, ignored),
        (None, Some("false"), ignored),
        (Some("0"), Some("true"), ignored),
        (Some("1"), None, ran),
        (Some("yes"), Some("0"), ran),
        (None, Some("true"), ran),
    ] {
        let records = tempfile::tempdir().unwrap();
        let (code, stdout, stderr) =
            demo_with("slow", &[(SLOW, slow), ("CI", ci)], Some(records.path()));
        let case = format!("ASK_USER_SLOW={slow:?} CI={ci:?}");
        assert_eq!(code, 0, "{case}: {stdout}{stderr}");
        assert!(stdout.contains(expected), "{case}: {stdout}");
        let (sum, strays) = sum_records(records.path());
        assert!(strays.is_empty(), "{strays:?}");
        if expected == ignored {
            let reasons = stdout
                .lines()
                .filter(|line| line.starts_with("test demo_slow_"))
                .filter(|line| line.ends_with(" ... ignored (slow: runs with ASK_USER_SLOW=1)"))
                .count();
            assert_eq!(reasons, 2, "{case}: {stdout}");
            assert_eq!(
                stderr
                    .matches("ignored as slow: 2 test(s) (ASK_USER_SLOW=1 runs them)")
                    .count(),
                1,
                "{case}: {stderr}"
            );
            assert_eq!(
                sum,
                Skips {
                    missing: 0,
                    slow: 2
                },
                "{case}"
            );
        } else {
            assert!(!stderr.contains("ignored as slow"), "{case}: {stderr}");
            assert_eq!(sum, Skips::default(), "{case}");
            assert_eq!(std::fs::read_dir(records.path()).unwrap().count(), 0);
        }
    }
}

/// A binary that skipped a test leaves one record in the run's folder; a
/// binary run outside `cargo test` (its parent is this test) leaves none.
fn a_skipped_test_is_recorded_for_the_closing_line() {
    let records = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = demo_with("1", &[("CI", None)], Some(records.path()));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let files: Vec<_> = std::fs::read_dir(records.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].starts_with("harness-"), "{files:?}");
    assert_eq!(
        std::fs::read_to_string(records.path().join(&files[0])).unwrap(),
        "missing 1\nslow 0\n"
    );
    assert_eq!(
        sum_records(records.path()).0,
        Skips {
            missing: 1,
            slow: 0
        }
    );
    // Under CI the missing client fails instead: nothing skipped, no record.
    let records = tempfile::tempdir().unwrap();
    let (code, _, _) = demo_with("1", &[("CI", Some("true"))], Some(records.path()));
    assert_eq!(code, 101);
    assert_eq!(std::fs::read_dir(records.path()).unwrap().count(), 0);
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

/// A test file that builds from a fresh clone (tests/common/clone.rs,
/// tests/common/dist.rs: a release build, minutes), itself or through the
/// files it includes with `#[path]`, is slow as a whole: `main!(slow: …)`.
fn files_that_build_a_release_are_slow() {
    // Spelled in pieces: this file is not a builder.
    const DIST: &str = concat!("common::", "dist::");
    const CLONE: &str = concat!("common::", "clone::");
    const MAIN: &str = concat!("common::harness::", "main!(");
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut builders = Vec::new();
    for entry in std::fs::read_dir(&tests).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut texts = vec![text.clone()];
        for line in text.lines() {
            if let Some(included) = line
                .trim()
                .strip_prefix("#[path = \"")
                .and_then(|rest| rest.strip_suffix("\"]"))
            {
                texts.push(std::fs::read_to_string(tests.join(included)).unwrap());
            }
        }
        let builds = texts.iter().any(|text| {
            text.lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .any(|line| line.contains(DIST) || line.contains(CLONE))
        });
        if builds {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let slow = text.contains(&format!("{MAIN}\n    slow:"))
                || text.contains(&format!("{MAIN}slow:"));
            builders.push((name, slow));
        }
    }
    builders.sort();
    assert_eq!(
        builders,
        vec![
            ("dist.rs".to_string(), true),
            ("fresh_clone.rs".to_string(), true)
        ]
    );
}

/// scripts/test-clients, which the closing line names: `--list`, its usage
/// error and its refusal without root (as `nobody` through setpriv when
/// this test runs as root). Installing is .ci/run's part.
#[cfg(unix)]
fn test_clients() -> Command {
    Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/test-clients"))
}

#[cfg(unix)]
fn test_clients_lists_every_setup_script() {
    let output = test_clients().arg("--list").output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let mut expected: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("setup-") && name.ends_with(".sh"))
        .map(|name| format!(".ci/{name}"))
        .collect();
    expected.sort();
    assert!(expected.len() >= 10, "{expected:?}");
    let listed: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(listed, expected);
}

#[cfg(unix)]
fn test_clients_refuses_an_unknown_argument_with_its_usage() {
    let output = test_clients().arg("--bogus").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "scripts/test-clients: unknown argument: --bogus\nusage: scripts/test-clients [--list]\n"
    );
}

#[cfg(unix)]
fn test_clients_needs_root() {
    let id = Command::new("id").arg("-u").output().unwrap();
    let root = String::from_utf8_lossy(&id.stdout).trim() == "0";
    let output = if root {
        // A copy where nobody may go: the checkout may be in a home of
        // mode 700. It runs from a scripts/ folder, as it cds to its parent.
        use std::os::unix::fs::PermissionsExt;
        let folder = tempfile::tempdir_in(common::temp_others_may_enter()).unwrap();
        let scripts = folder.path().join("scripts");
        std::fs::create_dir(&scripts).unwrap();
        let script = scripts.join("test-clients");
        std::fs::copy(test_clients().get_program(), &script).unwrap();
        for path in [folder.path(), &scripts, &script] {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(script)
            .output()
            .unwrap()
    } else {
        test_clients().output().unwrap()
    };
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "scripts/test-clients: needs root (the .ci/setup-*.sh scripts install with apt-get \
         and into system folders): run it as root, e.g. sudo scripts/test-clients\n"
    );
}

fn main() -> std::process::ExitCode {
    if std::env::var_os(DEMO).is_some_and(|demo| demo == "slow") {
        return common::harness::run_gated(
            file!(),
            vec![
                ("demo_slow_one", demo_slow_one),
                ("demo_slow_two", demo_slow_two),
            ],
            common::harness::Gate::Slow,
        );
    }
    if std::env::var_os(DEMO).is_some() {
        return common::harness::run(
            file!(),
            vec![
                ("demo_finds_its_client", demo_finds_its_client),
                ("demo_misses_its_client", demo_misses_its_client),
            ],
        );
    }
    #[allow(unused_mut)] // extended on Unix only
    let mut tests: Vec<(&'static str, fn())> = vec![
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
        (
            "slow_tests_run_only_when_asked",
            slow_tests_run_only_when_asked,
        ),
        (
            "a_skipped_test_is_recorded_for_the_closing_line",
            a_skipped_test_is_recorded_for_the_closing_line,
        ),
        (
            "files_that_build_a_release_are_slow",
            files_that_build_a_release_are_slow,
        ),
    ];
    // A bash script: run where bash runs it (not on the Windows runners).
    #[cfg(unix)]
    tests.extend([
        (
            "test_clients_lists_every_setup_script",
            test_clients_lists_every_setup_script as fn(),
        ),
        (
            "test_clients_refuses_an_unknown_argument_with_its_usage",
            test_clients_refuses_an_unknown_argument_with_its_usage,
        ),
        ("test_clients_needs_root", test_clients_needs_root),
    ]);
    common::harness::run(file!(), tests)
}
