//! npm (issue 21): `ask-user` and its platform package, installed from the two
//! tarballs of scripts/dist into a temporary prefix with no registry, run as
//! `ask_user`, `ask-user` and through `npx`. The launcher
//! (packaging/npm/ask-user/bin/ask_user.js) is held to the native binary it
//! runs: the same bytes on every fixture, the same exit codes, signals passed
//! on with no child left behind, a terminal that stays a terminal, and the MCP
//! server driven by the official TypeScript SDK. Node here is 20, which has no
//! `process.execve`: these tests drive the launcher's child-process path; one
//! test runs it under the Node 22 of tests/hosts, where Node becomes the binary.

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::clients::{mcp_typescript_sdk, node22_path, require, runs};
use crate::common::dist::dist;
use crate::common::process::{ChildGuard, exit_within, without_tty};
use crate::common::pty;

/// This machine's npm platform, as Node names it (process.platform-arch).
fn npm_platform(target: &str) -> &'static str {
    match target {
        "x86_64-unknown-linux-gnu" | "x86_64-unknown-linux-musl" => "linux-x64",
        "aarch64-unknown-linux-gnu" | "aarch64-unknown-linux-musl" => "linux-arm64",
        other => panic!("no npm platform package for {other} in these tests"),
    }
}

/// The two npm tarballs: the platform package, then `ask-user`.
fn tarballs() -> (PathBuf, PathBuf) {
    let dist = dist();
    let npm = dist.out.join("npm");
    let platform = npm_platform(&dist.target);
    (
        npm.join(format!("ask-user-{platform}-{}.tgz", dist.version)),
        npm.join(format!("ask-user-{}.tgz", dist.version)),
    )
}

/// `program` (npm or npx) with a scratch cache and user config, and a
/// registry that refuses every connection: nothing here may need one.
fn npm_tool(program: &str, scratch: &Path) -> Command {
    let mut command = Command::new(program);
    command
        .env("npm_config_cache", scratch.join("cache"))
        .env("npm_config_userconfig", scratch.join("npmrc"))
        .env("npm_config_registry", "http://127.0.0.1:9/")
        .env("npm_config_update_notifier", "false")
        .env_remove("NODE_OPTIONS")
        .stdin(Stdio::null());
    command
}

/// Runs `npm install -g --offline` of `tarballs` into `prefix`; its stdout.
fn npm_install(scratch: &Path, prefix: &Path, tarballs: &[&Path]) -> String {
    let output = npm_tool("npm", scratch)
        .args(["install", "-g", "--offline", "--no-audit", "--no-fund"])
        .args(["--registry", "http://127.0.0.1:9/", "--prefix"])
        .arg(prefix)
        .args(tarballs)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "npm install -g {tarballs:?}: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Both packages installed once per test process.
struct Installed {
    /// npm's cache and user config.
    scratch: PathBuf,
    /// The `--prefix` of the global install.
    prefix: PathBuf,
    /// What `npm install` printed.
    report: String,
}

impl Installed {
    /// The `ask_user` command npm linked: the launcher.
    fn launcher(&self) -> PathBuf {
        self.prefix.join("bin/ask_user")
    }

    /// The native binary in the platform package, which the launcher runs.
    fn native(&self) -> PathBuf {
        self.prefix
            .join("lib/node_modules/@ask-user")
            .join(npm_platform(&dist().target))
            .join("bin/ask_user")
    }
}

fn installed() -> &'static Installed {
    static INSTALLED: OnceLock<Installed> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let (platform, main) = tarballs();
        // A folder per test process (two may run at once), the ones of
        // processes that have ended removed.
        let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        for entry in std::fs::read_dir(&tmp).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix("dist-npm-")
                && !Path::new("/proc").join(pid).exists()
            {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        let base = tmp.join(format!("dist-npm-{}", std::process::id()));
        let (scratch, prefix) = (base.join("scratch"), base.join("prefix"));
        std::fs::create_dir_all(&scratch).unwrap();
        let report = npm_install(&scratch, &prefix, &[&platform, &main]);
        Installed {
            scratch,
            prefix,
            report,
        }
    })
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A question file for `ask FILE`, in a folder that lives as long as it.
fn question_file(json: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("question.json");
    std::fs::write(&file, json).unwrap();
    (dir, file)
}

const DATABASE: &str = r#"{"question":"Which database?","options":[
  {"label":"PostgreSQL","description":"relational, mature","recommended":true},
  {"label":"SQLite","description":"embedded, single file"},
  {"label":"Redis"}]}"#;

pub fn npm_installs_both_tarballs_offline_and_runs_as_ask_user_and_through_npx() {
    let installed = installed();
    assert!(
        installed.report.contains("added 2 packages"),
        "{}",
        installed.report
    );
    let want = format!("ask_user {}\n", dist().version);
    for name in ["ask_user", "ask-user"] {
        let output = Command::new(installed.prefix.join("bin").join(name))
            .arg("--version")
            .output()
            .unwrap();
        assert!(output.status.success(), "{name}: {}", text(&output.stderr));
        assert_eq!(text(&output.stdout), want, "{name} --version");
    }
    // npx finds the package in the global prefix: no registry (it would be
    // refused), run from an empty folder.
    let empty = tempfile::tempdir().unwrap();
    for name in ["ask-user", "ask_user"] {
        let output = npm_tool("npx", &installed.scratch)
            .env("npm_config_prefix", &installed.prefix)
            .args([name, "--version"])
            .current_dir(empty.path())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "npx {name} --version: {}",
            text(&output.stderr)
        );
        assert_eq!(text(&output.stdout), want, "npx {name} --version");
    }
    // The platform package carries the release binary itself.
    let release = std::fs::read(dist().clone.join("dist/ask_user")).unwrap();
    assert!(
        std::fs::read(installed.native()).unwrap() == release,
        "{} is the release binary",
        installed.native().display()
    );
}

/// `package/package.json` of an npm tarball.
fn manifest(tarball: &Path) -> Value {
    let output = Command::new("tar")
        .arg("-xzOf")
        .arg(tarball)
        .arg("package/package.json")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", tarball.display());
    serde_json::from_slice(&output.stdout).unwrap()
}

fn listing(tarball: &Path) -> String {
    let output = Command::new("tar")
        .arg("-tvzf")
        .arg(tarball)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", tarball.display());
    text(&output.stdout)
}

pub fn npm_packages_pin_one_version_and_have_no_install_script() {
    let dist = dist();
    let version = &dist.version;
    let platform = npm_platform(&dist.target);
    let (platform_tgz, main_tgz) = tarballs();
    let main = manifest(&main_tgz);
    assert_eq!(main["name"], "ask-user");
    assert_eq!(main["version"], json!(version));
    assert_eq!(main["mcpName"], "io.github.ask-user/ask_user");
    assert_eq!(
        main["bin"],
        json!({"ask_user": "bin/ask_user.js", "ask-user": "bin/ask_user.js"})
    );
    assert_eq!(main["engines"]["node"], ">=18");
    assert!(main.get("scripts").is_none(), "no install script: {main}");
    let mut pins: Vec<(&String, &Value)> = main["optionalDependencies"]
        .as_object()
        .unwrap()
        .iter()
        .collect();
    pins.sort_by_key(|(name, _)| name.as_str());
    let names: Vec<&str> = pins.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "@ask-user/darwin-arm64",
            "@ask-user/darwin-x64",
            "@ask-user/linux-arm64",
            "@ask-user/linux-x64",
            "@ask-user/win32-x64"
        ]
    );
    for (name, pinned) in pins {
        assert_eq!(pinned, &json!(version), "{name} is pinned exactly");
    }
    let readme = Command::new("tar")
        .arg("-xzOf")
        .arg(&main_tgz)
        .arg("package/README.md")
        .output()
        .unwrap();
    assert!(
        text(&readme.stdout)
            .lines()
            .any(|l| l == "mcp-name: io.github.ask-user/ask_user"),
        "the README proves the MCP name"
    );
    let files = listing(&main_tgz);
    assert!(
        files
            .lines()
            .any(|l| l.starts_with("-rwxr-xr-x") && l.ends_with(" package/bin/ask_user.js")),
        "{files}"
    );

    let package = manifest(&platform_tgz);
    assert_eq!(package["name"], json!(format!("@ask-user/{platform}")));
    assert_eq!(package["version"], json!(version));
    let (os, cpu) = platform.split_once('-').unwrap();
    assert_eq!(package["os"], json!([os]));
    assert_eq!(package["cpu"], json!([cpu]));
    // The static Linux binary serves glibc and musl: no libc restriction.
    assert!(package.get("libc").is_none(), "{package}");
    assert_eq!(package["files"], json!(["bin"]));
    assert_eq!(package["preferUnplugged"], true);
    assert!(package.get("scripts").is_none(), "{package}");
    let files = listing(&platform_tgz);
    assert!(
        files
            .lines()
            .any(|l| l.starts_with("-rwxr-xr-x") && l.ends_with(" package/bin/ask_user")),
        "{files}"
    );
    assert!(files.contains(" package/LICENSE"), "{files}");
}

/// Runs `program` with `env`, `args` and `stdin`; its output.
fn run(program: &Path, args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
    let mut command = Command::new(program);
    command
        .args(args)
        .env_remove("TOOLBOX_ACTION")
        .env_remove("ASK_USER_UI");
    for (name, value) in env {
        command.env(name, value);
    }
    crate::common::process::output_with_stdin(command.stderr(Stdio::piped()), stdin).unwrap()
}

fn assert_same(native: &Output, launched: &Output, what: &str) {
    assert_eq!(
        launched.status.code(),
        native.status.code(),
        "{what}: exit code"
    );
    assert!(
        launched.stdout == native.stdout,
        "{what}: stdout\nlauncher: {}\nnative:   {}",
        text(&launched.stdout),
        text(&native.stdout)
    );
    assert!(
        launched.stderr == native.stderr,
        "{what}: stderr\nlauncher: {}\nnative:   {}",
        text(&launched.stderr),
        text(&native.stderr)
    );
}

pub fn npm_launcher_execute_is_byte_identical_to_the_native_binary() {
    let installed = installed();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(".input.json"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 10, "{inputs:?}");
    let (mut ok, mut errors) = (0, 0);
    for input in &inputs {
        let bytes = std::fs::read(input).unwrap();
        let env = [("TOOLBOX_ACTION", "execute")];
        let native = run(&installed.native(), &[], &env, &bytes);
        let launched = run(&installed.launcher(), &[], &env, &bytes);
        assert_same(&native, &launched, &input.display().to_string());
        match native.status.code() {
            Some(0) => ok += 1,
            _ => errors += 1,
        }
    }
    // Both kinds of document went through.
    assert!(ok > 0 && errors > 0, "{ok} ok, {errors} errors");
}

/// Starts `program ask --ui plain FILE` in a new session (no terminal): it
/// asks on stderr and reads the reply from stdin, which stays open. Returns
/// once it has asked ("Answer: " on stderr).
fn start_asking(
    program: &Path,
    file: &Path,
    extra: &[&str],
    path: Option<&std::ffi::OsStr>,
) -> ChildGuard {
    let mut command = Command::new(program);
    command
        .args(["ask", "--ui", "plain"])
        .args(extra)
        .arg(file)
        .env_remove("ASK_USER_UI")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let mut child = ChildGuard::spawn(without_tty(&mut command)).unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let mut heard = Vec::new();
    let mut chunk = [0u8; 4096];
    while !heard.ends_with(b"Answer: ") {
        let n = stderr.read(&mut chunk).unwrap();
        assert!(n > 0, "no question asked: {}", text(&heard));
        heard.extend_from_slice(&chunk[..n]);
    }
    // The rest of stderr is drained so that the child never blocks on it.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    child
}

/// Waits up to 10 s for `child` (its guard kills it, and the binary a
/// launcher started, if it does not exit); its status and stdout.
fn finish(mut child: ChildGuard) -> (ExitStatus, String) {
    let status = exit_within(
        &mut child,
        Duration::from_secs(10),
        Duration::from_millis(10),
    );
    let Some(status) = status else {
        panic!("did not exit within 10 s");
    };
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    (status, stdout)
}

pub fn npm_launcher_passes_exit_codes_0_1_2_124_and_130_through() {
    let installed = installed();
    let (launcher, native) = (installed.launcher(), installed.native());
    // 0 and 1: toolbox execute; 2: a usage error.
    for (args, env, stdin, code) in [
        (vec!["--version"], vec![], "", 0),
        (vec![], vec![("TOOLBOX_ACTION", "execute")], "{}", 1),
        (vec!["--no-such-flag"], vec![], "", 2),
        (vec!["ask", "--ui", "fancy"], vec![], "", 2),
    ] {
        let native_run = run(&native, &args, &env, stdin.as_bytes());
        let launched = run(&launcher, &args, &env, stdin.as_bytes());
        assert_eq!(native_run.status.code(), Some(code), "{args:?}");
        assert_same(&native_run, &launched, &format!("{args:?}"));
    }
    let (_dir, file) = question_file(DATABASE);
    // 124: the time limit passes with nobody answering.
    let outcomes: Vec<(Option<i32>, String)> = [&native, &launcher]
        .into_iter()
        .map(|program| {
            let (status, stdout) =
                finish(start_asking(program, &file, &["--timeout", "0.2"], None));
            (status.code(), stdout)
        })
        .collect();
    assert_eq!(outcomes[0].0, Some(124), "{}", outcomes[0].1);
    assert_eq!(outcomes[1], outcomes[0], "--timeout through the launcher");
    // 130: the input ends, which cancels.
    let outcomes: Vec<(Option<i32>, String)> = [&native, &launcher]
        .into_iter()
        .map(|program| {
            let mut child = start_asking(program, &file, &[], None);
            drop(child.stdin.take());
            let (status, stdout) = finish(child);
            (status.code(), stdout)
        })
        .collect();
    assert_eq!(outcomes[0].0, Some(130), "{}", outcomes[0].1);
    assert_eq!(outcomes[1], outcomes[0], "a cancel through the launcher");
    let document: Value = serde_json::from_str(&outcomes[1].1).unwrap();
    assert_eq!(document["cancelled"], true);
}

/// The processes `pid` started (from every thread), as /proc lists them.
fn children(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return found;
    };
    for task in tasks.flatten() {
        if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
            found.extend(list.split_whitespace().map(|p| p.parse::<u32>().unwrap()));
        }
    }
    found
}

/// The process that runs the native binary for the launcher `pid`: `pid`
/// itself when Node replaced itself with it (execve), else its one child.
fn binary_process(pid: u32, native: &Path) -> u32 {
    let native = native.canonicalize().unwrap();
    let exe = |pid: u32| std::fs::read_link(format!("/proc/{pid}/exe")).ok();
    if exe(pid).as_deref() == Some(native.as_path()) {
        return pid;
    }
    let kids = children(pid);
    assert_eq!(kids.len(), 1, "one child of the launcher: {kids:?}");
    assert_eq!(
        exe(kids[0]).as_deref(),
        Some(native.as_path()),
        "the child is the native binary"
    );
    kids[0]
}

fn signal(pid: u32, signal: i32) {
    // SAFETY: kill has no memory effects; pid is a child of this test.
    assert_eq!(unsafe { libc::kill(pid as i32, signal) }, 0, "kill {pid}");
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

pub fn npm_launcher_passes_sigterm_sigint_and_sighup_on_and_leaves_no_child() {
    let installed = installed();
    let (launcher, native) = (installed.launcher(), installed.native());
    let (_dir, file) = question_file(DATABASE);
    for (name, number) in [
        ("SIGTERM", libc::SIGTERM),
        ("SIGINT", libc::SIGINT),
        ("SIGHUP", libc::SIGHUP),
    ] {
        // The binary alone: it cancels and says so.
        let child = start_asking(&native, &file, &[], None);
        signal(child.id(), number);
        let (native_status, native_stdout) = finish(child);
        assert_eq!(native_status.code(), Some(130), "{name}: {native_stdout}");

        let child = start_asking(&launcher, &file, &[], None);
        let binary = binary_process(child.id(), &native);
        assert_ne!(binary, child.id(), "Node 20 runs the binary as a child");
        signal(child.id(), number);
        let (status, stdout) = finish(child);
        assert!(
            !alive(binary),
            "{name}: the binary {binary} outlived the launcher"
        );
        assert_eq!(status.code(), native_status.code(), "{name}: {stdout}");
        assert_eq!(stdout, native_stdout, "{name}");
    }
}

pub fn npm_launcher_dies_of_the_signal_that_killed_the_binary() {
    let installed = installed();
    let (_dir, file) = question_file(DATABASE);
    let child = start_asking(&installed.launcher(), &file, &[], None);
    let binary = binary_process(child.id(), &installed.native());
    signal(binary, libc::SIGKILL);
    let (status, stdout) = finish(child);
    // Dead of the same signal, as the shell would see the binary itself.
    assert_eq!(status.signal(), Some(libc::SIGKILL), "{status:?} {stdout}");
    assert_eq!(stdout, "");
}

/// `ask` through the launcher in a pty, under the reporting shell of
/// tests/common/pty.rs: the input on a pipe, the answer into a file.
fn ask_in_pty(input: &str, args: &[&str]) -> pty::Run {
    let dir = pty::run_dir();
    let input_path = dir.join("input.json");
    std::fs::write(&input_path, input).unwrap();
    let out = dir.join("out.json");
    let mut command = pty::reporting_shell(
        r#"input=$1 bin=$2 out=$3
shift 3
cat "$input" | "$bin" ask "$@" > "$out""#,
    );
    command
        .arg(&input_path)
        .arg(installed().launcher())
        .arg(&out)
        .args(args);
    pty::spawn(command, out)
}

const DOWN: &str = "\x1b[B";
const CTRL_C: &str = "\x03";

pub fn npm_launcher_in_a_terminal_asks_and_is_answered_by_keys() {
    installed();
    // The full face: raw mode on the launcher's terminal, arrows and Enter.
    let mut run = ask_in_pty(DATABASE, &[]);
    run.expect("Redis").keys(DOWN).expect("SQLite").keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    assert_eq!(
        done.document["answers"][0],
        json!({"questionId":"q1","values":["SQLite"],"optionIds":["2"]})
    );
    done.assert_terminal_restored();

    // Plain mode: a typed line.
    let mut run = ask_in_pty(DATABASE, &["--ui", "plain"]);
    run.expect("Answer: ").keys("3\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    assert_eq!(done.document["answers"][0]["values"], json!(["Redis"]));
    done.assert_settings_restored();
}

/// Ctrl-C in a terminal reaches the launcher and the binary both (one
/// foreground group): the launcher must not pass on a second copy. ask's web
/// face takes a second signal as "end now" and skips its answer document, so
/// a copy would show as a missing document here (in most runs: it is a race).
pub fn npm_launcher_lets_ctrl_c_in_a_terminal_reach_the_binary_once() {
    installed();
    for round in 0..5 {
        let mut run = ask_in_pty(DATABASE, &["--ui", "web"]);
        run.expect("answer in your browser").keys(CTRL_C);
        let done = run.finish();
        assert_eq!(done.code, 130, "round {round}: {}", done.document);
        assert_eq!(done.document["cancelled"], true, "round {round}");
        done.assert_settings_restored();
    }
    // Plain mode reads Ctrl-C as the terminal's SIGINT too.
    let mut run = ask_in_pty(DATABASE, &["--ui", "plain"]);
    run.expect("Answer: ").keys(CTRL_C);
    let done = run.finish();
    assert_eq!(done.code, 130, "{}", done.document);
    assert_eq!(done.document["cancelled"], true);
    done.assert_settings_restored();
}

pub fn npm_launcher_serves_mcp_to_the_typescript_sdk() {
    let installed = installed();
    let sdk = mcp_typescript_sdk();
    let scenario = json!({
        "binary": installed.launcher(),
        "server_args": ["mcp"],
        "calls": [{
            "arguments": {"question": "Which database?", "options": ["PostgreSQL", "SQLite"]},
            "reply": {"action": "accept", "content": {"q1": "2"}}
        }]
    });
    let output = crate::common::process::output_with_stdin(
        Command::new("node")
            .arg(sdk.join("ts_client.mjs"))
            .current_dir(&sdk)
            .stderr(Stdio::piped()),
        scenario.to_string().as_bytes(),
    )
    .unwrap();
    assert!(
        output.status.success(),
        "ts_client: {}",
        text(&output.stderr)
    );
    let out: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(out["server"]["name"], "ask_user");
    assert_eq!(out["server"]["version"], json!(dist().version));
    assert_eq!(out["tools"][0]["name"], "ask_user", "{out}");
    let result = &out["results"][0];
    assert_eq!(
        result["forms"][0]["requestedSchema"]["properties"]["q1"]["oneOf"][1],
        json!({"const": "2", "title": "SQLite"}),
        "{result}"
    );
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        result["structured"],
        json!({"tool": "ask_user", "version": 1, "status": "ok",
            "answered": true, "cancelled": false, "timedOut": false,
            "answers": [{"questionId": "q1", "values": ["SQLite"], "optionIds": ["2"]}],
            "answeredBy": crate::common::answered_by("form")})
    );
}

/// Runs the installed `prefix/bin/ask_user --version` with `env`; exit code,
/// stdout and stderr.
fn version_with(prefix: &Path, env: &[(&str, &std::ffi::OsStr)]) -> (Option<i32>, String, String) {
    let mut command = Command::new(prefix.join("bin/ask_user"));
    command.arg("--version").env_remove("ASK_USER_BINARY");
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    (
        output.status.code(),
        text(&output.stdout),
        text(&output.stderr),
    )
}

/// The launcher's line when the platform package is not beside it: what is
/// missing and how to get it, `--omit=optional` only as one cause.
fn missing_platform_package(platform: &str, version: &str) -> String {
    format!(
        "ask_user: the binary for {platform} is missing: it comes in the npm package \
         @ask-user/{platform}@{version}, which is not installed beside ask-user@{version}; \
         install the two together (`npm install ask-user@{version} @ask-user/{platform}@{version}`, \
         with -g for a global install, or \
         `npx -p ask-user@{version} -p @ask-user/{platform}@{version} ask_user`), or set \
         ASK_USER_BINARY to an ask_user binary (npm leaves it out under --omit=optional, or \
         when it cannot fetch it)\n"
    )
}

pub fn npm_main_package_alone_says_its_platform_package_is_missing() {
    let dist = dist();
    let (platform_tarball, main) = tarballs();
    let base = tempfile::tempdir().unwrap();
    let prefix = base.path().join("prefix");
    // npm installs it (the optional dependency is skipped, offline): the
    // launcher is what has to say what is wrong.
    let report = npm_install(base.path(), &prefix, &[&main]);
    assert!(report.contains("added 1 package"), "{report}");
    let platform = npm_platform(&dist.target);
    let (code, stdout, stderr) = version_with(&prefix, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(stdout, "");
    assert_eq!(stderr, missing_platform_package(platform, &dist.version));
    // What it says works: the platform package installed beside it (here
    // from its tarball, as there is no registry) and the launcher runs.
    let report = npm_install(base.path(), &prefix, &[&platform_tarball]);
    assert!(report.contains("added 1 package"), "{report}");
    let (code, stdout, stderr) = version_with(&prefix, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, format!("ask_user {}\n", dist.version));
}

/// The launcher straight from the source tree has no platform package
/// beside it either: the same line, with no release build needed.
pub fn npm_launcher_from_the_source_tree_says_its_platform_package_is_missing() {
    let node = require(
        runs("node", &["--version"]).then_some("node"),
        "node (the npm launcher runs on it)",
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("packaging/npm/ask-user/package.json")).unwrap(),
    )
    .unwrap();
    let version = manifest["version"].as_str().unwrap();
    let platform = match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "linux-x64",
        ("linux", "aarch64") => "linux-arm64",
        other => panic!("no npm platform package for {other:?} in these tests"),
    };
    let empty = tempfile::tempdir().unwrap();
    let output = Command::new(node)
        .arg(root.join("packaging/npm/ask-user/bin/ask_user.js"))
        .arg("--version")
        .env_remove("ASK_USER_BINARY")
        .env_remove("NODE_PATH")
        .env_remove("NODE_OPTIONS")
        .current_dir(empty.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "");
    assert_eq!(
        text(&output.stderr),
        missing_platform_package(platform, version)
    );
}

pub fn npm_launcher_on_an_unsupported_platform_names_it_and_the_other_ways() {
    let installed = installed();
    let scratch = tempfile::tempdir().unwrap();
    // Node's own platform and arch, changed before the launcher reads them.
    for (platform, arch) in [("freebsd", "x64"), ("linux", "ia32"), ("openbsd", "arm64")] {
        let preload = scratch.path().join(format!("{platform}-{arch}.js"));
        std::fs::write(
            &preload,
            format!(
                "Object.defineProperty(process, 'platform', {{ value: '{platform}' }});\n\
                 Object.defineProperty(process, 'arch', {{ value: '{arch}' }});\n"
            ),
        )
        .unwrap();
        let options = format!("--require={}", preload.display());
        let (code, stdout, stderr) =
            version_with(&installed.prefix, &[("NODE_OPTIONS", options.as_ref())]);
        assert_eq!(code, Some(1), "{platform}-{arch}: {stderr}");
        assert_eq!(stdout, "");
        assert_eq!(
            stderr,
            format!(
                "ask_user: no prebuilt binary for {platform}-{arch} in npm package \
                 @ask-user/{platform}-{arch}; install from \
                 https://github.com/ask-user/ask_user/releases, with `cargo install ask_user`, \
                 or `pipx install ask-user`\n"
            )
        );
    }
}

pub fn npm_launcher_runs_the_binary_ask_user_binary_names() {
    let installed = installed();
    // Any executable: its own output proves it ran, with the arguments.
    let output = run(
        &installed.launcher(),
        &["from", "the launcher"],
        &[("ASK_USER_BINARY", "/bin/echo")],
        b"",
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "from the launcher\n");
    let missing = "/nonexistent/ask_user";
    let output = run(
        &installed.launcher(),
        &["--version"],
        &[("ASK_USER_BINARY", missing)],
        b"",
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(text(&output.stdout), "");
    assert_eq!(
        text(&output.stderr),
        format!(
            "ask_user: ASK_USER_BINARY is {missing}, which is not an executable file; \
             point it at an ask_user binary, or unset it\n"
        )
    );
}

/// Node 22 (tests/hosts), which has process.execve: the launcher replaces
/// itself with the binary, so the process signalled is the binary.
pub fn npm_launcher_on_node_22_becomes_the_binary() {
    let path = node22_path();
    let node22 = Command::new("node")
        .env("PATH", &path)
        .args(["-p", "process.version + ' ' + typeof process.execve"])
        .output()
        .ok()
        .filter(|out| {
            text(&out.stdout).starts_with("v22.") && text(&out.stdout).contains("function")
        });
    require(
        node22,
        "Node 22 with process.execve (run .ci/setup-hosts.sh)",
    );
    let installed = installed();
    let (launcher, native) = (installed.launcher(), installed.native());
    let (_dir, file) = question_file(DATABASE);
    let child = start_asking(&launcher, &file, &[], Some(&path));
    assert_eq!(
        binary_process(child.id(), &native),
        child.id(),
        "the launcher's process is the binary now"
    );
    signal(child.id(), libc::SIGTERM);
    let (status, stdout) = finish(child);
    assert_eq!(status.code(), Some(130), "{stdout}");
    // Bytes and exit codes, as the binary's.
    let input = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/claude-ask-user-question.input.json"),
    )
    .unwrap();
    for (args, env, stdin) in [
        (
            vec![],
            vec![("TOOLBOX_ACTION", "execute")],
            input.as_slice(),
        ),
        (vec!["--no-such-flag"], vec![], b"".as_slice()),
    ] {
        let native_run = run(&native, &args, &env, stdin);
        let mut env22: Vec<(&str, &str)> = env.clone();
        let path = path.to_str().unwrap();
        env22.push(("PATH", path));
        let launched = run(&launcher, &args, &env22, stdin);
        assert_same(&native_run, &launched, &format!("Node 22: {args:?}"));
    }
}

/// packaging/npm/build refuses what it cannot build, with one line, and
/// writes no tarball.
pub fn npm_build_refuses_another_version_an_unknown_target_and_no_binary() {
    require(
        (runs("npm", &["--version"]) && runs("node", &["--version"])).then_some(()),
        "node and npm",
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let build = root.join("packaging/npm/build");
    let binary = crate::common::BIN;
    let cases = [
        (
            vec![binary, "9.9.9", "x86_64-unknown-linux-gnu"],
            format!(
                "npm build: {}/packaging/npm/platform/package.json has version {}, not 9.9.9 \
                 (Cargo.toml): make them equal\n",
                root.display(),
                crate::common::dist::cargo_version()
            ),
        ),
        (
            vec![binary, "0.1.0", "riscv64gc-unknown-linux-gnu"],
            "npm build: no npm platform package for the target riscv64gc-unknown-linux-gnu \
             (known: x86_64/aarch64 Linux and macOS, x86_64 Windows)\n"
                .to_string(),
        ),
        (
            vec!["/nonexistent/ask_user", "0.1.0", "x86_64-unknown-linux-gnu"],
            "npm build: /nonexistent/ask_user is not an executable file\n".to_string(),
        ),
    ];
    for (args, message) in cases {
        let out = tempfile::tempdir().unwrap();
        let output = Command::new(&build)
            .arg(out.path())
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(text(&output.stdout), "", "{args:?}: nothing on stdout");
        assert_eq!(text(&output.stderr), message, "{args:?}");
        let written = crate::common::dist::walk(out.path());
        assert!(written.is_empty(), "{args:?} wrote {written:?}");
    }
}
