//! The Python library `import ask_user` (packaging/pypi/ask_user, issue #49)
//! against this build's binary: its pytest suite (tests/python, every
//! outcome, every error class, cancellation that leaves no process, and the
//! examples of docs/python.md), and `mypy --strict` and pyright's strict mode
//! over the package and its examples (packaging/pypi/examples).
//!
//! pytest, mypy and pyright are pinned by .ci/setup-python-lib.sh (into
//! tests/python/.venv and tests/python/node_modules). Without them these
//! tests count as ignored (tests/common/harness.rs), and fail under CI.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::bin;
use common::clients::{require, runs, tests_dir};
use common::process::without_tty;

const SETUP: &str = "run .ci/setup-python-lib.sh";

fn here() -> PathBuf {
    tests_dir("python")
}

fn package_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/pypi")
}

/// The venv's python, when it has pytest and mypy.
fn python() -> PathBuf {
    let python = here().join(".venv/bin/python");
    let found = runs(&python, &["-c", "import pytest, mypy"]).then_some(python);
    require(
        found,
        &format!("pytest and mypy in tests/python/.venv ({SETUP})"),
    )
}

fn pyright() -> PathBuf {
    let pyright = here().join("node_modules/.bin/pyright");
    let found = (pyright.is_file() && runs("node", &["--version"])).then_some(pyright);
    require(
        found,
        &format!("node and pyright in tests/python/node_modules ({SETUP})"),
    )
}

fn text(output: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn python_lib_pytest_passes_against_this_build() {
    let python = python();
    let mut command = Command::new(python);
    command
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs"])
        .current_dir(here())
        .env("ASK_USER_BIN", bin())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("ASK_USER_UI")
        .env_remove("ASK_USER_INBOX")
        .env_remove("ASK_USER_TOKEN")
        .env_remove("TOOLBOX_ACTION")
        .stdin(Stdio::null());
    // A session of its own: no terminal, even when cargo test has one (so
    // `ask --ui tty` meets none, as under CI).
    let output = without_tty(&mut command).output().unwrap();
    let out = text(&output);
    assert!(output.status.success(), "pytest failed:\n{out}");
    // Every test ran: none skipped, none deselected, and not a handful.
    let summary = out
        .lines()
        .rev()
        .find(|line| line.contains(" passed"))
        .unwrap_or_else(|| panic!("no pytest summary:\n{out}"));
    assert!(
        !summary.contains("skipped") && !summary.contains("deselected"),
        "{summary}\n{out}"
    );
    let passed: usize = summary
        .trim_matches('=')
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(passed >= 35, "only {passed} tests ran: {summary}");
}

fn python_lib_mypy_strict_passes_on_the_package_and_examples() {
    let python = python();
    let cache = tempfile::tempdir().unwrap();
    let output = Command::new(python)
        .args([
            "-m",
            "mypy",
            "--strict",
            "--no-error-summary",
            "--cache-dir",
        ])
        .arg(cache.path())
        .args(["ask_user", "examples"])
        .current_dir(package_root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "mypy --strict:\n{}", text(&output));
}

fn python_lib_pyright_strict_passes_on_the_package_and_examples() {
    let pyright = pyright();
    let python = python();
    // tests/python/pyrightconfig.json: strict mode, Python 3.8 (the wheel's
    // floor), the package and packaging/pypi/examples.
    let output = Command::new(pyright)
        .args(["-p", "pyrightconfig.json", "--pythonpath"])
        .arg(python)
        .current_dir(here())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let out = text(&output);
    assert!(output.status.success(), "pyright:\n{out}");
    assert!(
        out.contains("0 errors, 0 warnings"),
        "pyright found something:\n{out}"
    );
}

common::harness::main!(
    python_lib_pytest_passes_against_this_build,
    python_lib_mypy_strict_passes_on_the_package_and_examples,
    python_lib_pyright_strict_passes_on_the_package_and_examples,
);
