//! The outside test clients (the MCP SDKs, Chromium with node and the npm
//! packages of tests/web, Python's jsonschema). Each finder returns the client
//! or, when it is missing, ends the test as ignored (a failure under CI):
//! see `harness::require`, which new clients use the same way.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub use super::harness::require;

/// tests/`face`: a client's scripts and installs (tests/web, tests/mcp).
pub fn tests_dir(face: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(face)
}

/// Whether `program args` runs and exits 0 (its output dropped).
pub fn runs(program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The interpreter that has the pinned `mcp` package: ASK_USER_MCP_PYTHON,
/// else the venv of .ci/setup-mcp.sh, else python3 if it has it.
pub fn mcp_python() -> PathBuf {
    let candidates = [
        std::env::var_os("ASK_USER_MCP_PYTHON").map(PathBuf::from),
        Some(tests_dir("mcp").join(".venv/bin/python")),
        Some(PathBuf::from("python3")),
    ];
    let found = candidates
        .into_iter()
        .flatten()
        .find(|python| runs(python, &["-c", "import mcp, mcp_types"]));
    require(found, "the MCP Python SDK (run .ci/setup-mcp.sh)")
}

/// A Python with Prometheus's own client (its text format parser), from
/// tests/mcp/requirements.txt: the venv of .ci/setup-mcp.sh, else python3.
pub fn prometheus_python() -> PathBuf {
    let found = [tests_dir("mcp").join(".venv/bin/python"), "python3".into()]
        .into_iter()
        .find(|python| runs(python, &["-c", "import prometheus_client.parser"]));
    require(found, "Python's prometheus_client (run .ci/setup-mcp.sh)")
}

/// tests/mcp with node and the official MCP TypeScript SDK installed; node
/// runs its scripts from there.
pub fn mcp_typescript_sdk() -> PathBuf {
    let dir = tests_dir("mcp");
    let installed = dir.join("node_modules/@modelcontextprotocol/sdk").is_dir();
    require(
        (installed && runs("node", &["--version"])).then_some(dir),
        "node and the MCP TypeScript SDK (run .ci/setup-mcp.sh)",
    )
}

/// Chromium (CHROMIUM, else /usr/bin/chromium), when node runs and these
/// npm `packages` are installed in tests/web.
pub fn chromium(packages: &[&str]) -> PathBuf {
    let chromium = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    let node_modules = tests_dir("web").join("node_modules");
    let packages = packages
        .iter()
        .all(|package| node_modules.join(package).is_dir());
    let found = chromium.is_file() && packages && runs("node", &["--version"]);
    require(
        found.then_some(chromium),
        "chromium, node and the npm packages of tests/web (run .ci/setup-web.sh)",
    )
}

/// A Python interpreter with `jsonschema` (pinned in tests/schema/requirements.txt).
pub fn jsonschema_python() -> PathBuf {
    let found = ["python3", "python"]
        .into_iter()
        .map(PathBuf::from)
        .find(|python| runs(python, &["-c", "import jsonschema"]));
    require(found, "Python's jsonschema (run .ci/setup-check.sh)")
}

/// tests/hosts/node_modules, where .ci/setup-hosts.sh installs Node 22 and
/// the hosts (pinned in tests/hosts/package-lock.json).
fn hosts_modules() -> PathBuf {
    tests_dir("hosts").join("node_modules")
}

/// PATH with the Node 22 of tests/hosts first, for the npm programs there.
pub fn node22_path() -> std::ffi::OsString {
    let mut paths = vec![hosts_modules().join(".bin")];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).expect("PATH joins")
}

/// The program at `relative` in tests/hosts/node_modules; with `node22`,
/// only when that Node 22 runs too.
fn host_program(relative: &str, node22: bool, what: &str) -> PathBuf {
    let program = hosts_modules().join(relative);
    let node_ok = || {
        Command::new(hosts_modules().join(".bin/node"))
            .arg("--version")
            .output()
            .is_ok_and(|out| out.stdout.starts_with(b"v22."))
    };
    let found = program.is_file() && (!node22 || node_ok());
    require(
        found.then_some(program),
        &format!("{what} (run .ci/setup-hosts.sh)"),
    )
}

/// The MCP Inspector CLI (`mcp-inspector --cli`), run under Node 22.
pub fn mcp_inspector() -> PathBuf {
    host_program(
        ".bin/mcp-inspector",
        true,
        "Node 22 and the MCP Inspector CLI",
    )
}

/// mcpdo, the Inspector's connection CLI, run under Node 22.
pub fn mcpdo() -> PathBuf {
    host_program(".bin/mcpdo", true, "Node 22 and mcpdo (MCP Inspector)")
}

/// `program` (the Inspector CLI or mcpdo) with a scratch HOME (both keep a
/// catalog and secrets under it, mcpdo its daemon too, none of the
/// person's), Node 22 first on PATH, secrets in a file, no stdin.
pub fn inspector_command(program: &Path, home: &Path) -> Command {
    let mut command = Command::new(program);
    command
        .env("HOME", home)
        .env("PATH", node22_path())
        .env("MCP_INSPECTOR_SECRET_STORE", "file")
        .env_remove("MCP_INSPECTOR_DAEMON_DIR")
        .env_remove("MCP_INSPECTOR_DAEMON_TOKEN")
        .stdin(Stdio::null());
    command
}

/// Claude Code's native Linux x86_64 build.
pub fn claude_code() -> PathBuf {
    host_program(
        "@anthropic-ai/claude-code-linux-x64/claude",
        false,
        "Claude Code",
    )
}

/// The Amp CLI's native Linux x86_64 build.
pub fn amp() -> PathBuf {
    host_program("@ampcode/cli-linux-x64/amp", false, "the Amp CLI")
}

/// Codex's npm launcher (it runs the native build npm put beside it), under Node 22.
pub fn codex() -> PathBuf {
    host_program(".bin/codex", true, "Node 22 and Codex 0.169.0")
}

/// Gemini CLI, run under Node 22.
pub fn gemini() -> PathBuf {
    host_program(".bin/gemini", true, "Node 22 and Gemini CLI 0.61.0")
}

/// `program` in a network namespace of its own with only loopback up, when
/// `unshare` allows it (as root), so that a host's calls home fail at once
/// and never leave the machine; otherwise `program` as it is.
pub fn offline(program: impl AsRef<std::ffi::OsStr>) -> Command {
    static UNSHARE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let unshare =
        *UNSHARE.get_or_init(|| runs("unshare", &["-n", "ip", "link", "set", "lo", "up"]));
    if !unshare {
        return Command::new(program);
    }
    let mut command = Command::new("unshare");
    command
        .args(["-n", "sh", "-c", r#"ip link set lo up && exec "$@""#, "sh"])
        .arg(program);
    command
}

/// A Python interpreter with pyte, the terminal emulator of the screen tests
/// (pinned in tests/tty/requirements.txt).
pub fn pyte_python() -> PathBuf {
    let found = ["python3", "python"]
        .into_iter()
        .map(PathBuf::from)
        .find(|python| runs(python, &["-c", "import pyte"]));
    require(found, "Python's pyte (run .ci/setup-tty.sh)")
}

/// tmux, a terminal that reflows its lines on a resize.
pub fn tmux() -> PathBuf {
    let found = runs("tmux", &["-V"]).then(|| PathBuf::from("tmux"));
    require(found, "tmux (run .ci/setup-tty.sh)")
}
