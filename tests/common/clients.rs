//! The outside test clients (the MCP Python SDK; Chromium, node and the npm
//! packages of tests/web) and the rule when one is missing: a failure under
//! CI, otherwise "skipped" on stderr and the test returns.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// tests/`face`: a client's scripts and installs (tests/web, tests/mcp).
pub fn tests_dir(face: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(face)
}

/// `found`, or `None` after the missing-client rule: under CI a panic
/// ("`tests` need `missing`"), otherwise "skipped: install `missing`".
pub fn or_skip<T>(found: Option<T>, tests: &str, missing: &str) -> Option<T> {
    if found.is_none() {
        if std::env::var_os("CI").is_some() {
            panic!("{tests} need {missing}");
        }
        eprintln!("skipped: install {missing}");
    }
    found
}

/// The interpreter that has the pinned `mcp` package: ASK_USER_MCP_PYTHON,
/// else the venv of .ci/setup-mcp.sh, else python3 if it has it.
pub fn mcp_python() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("ASK_USER_MCP_PYTHON").map(PathBuf::from),
        Some(tests_dir("mcp").join(".venv/bin/python")),
        Some(PathBuf::from("python3")),
    ];
    candidates.into_iter().flatten().find(|python| {
        Command::new(python)
            .args(["-c", "import mcp, mcp_types"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// Chromium (CHROMIUM, else /usr/bin/chromium), when node runs and these
/// npm `packages` are installed in tests/web.
pub fn chromium(packages: &[&str]) -> Option<PathBuf> {
    let chromium = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    let node_ok = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let node_modules = tests_dir("web").join("node_modules");
    let packages = packages
        .iter()
        .all(|package| node_modules.join(package).is_dir());
    (chromium.is_file() && node_ok && packages).then_some(chromium)
}
