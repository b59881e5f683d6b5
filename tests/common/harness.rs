//! The test harness of the test files that drive outside clients (SDKs,
//! browsers, agent hosts): libtest-mimic, so that a test whose client is
//! missing counts as *ignored* in libtest's own closing line
//! ("3 passed; 0 failed; 5 ignored"), with the reason once per binary on
//! stderr, instead of passing while doing nothing. Under CI a missing client
//! fails the test instead.
//!
//! Such a file is declared `harness = false` in Cargo.toml, writes its tests
//! as plain `fn name()` (no `#[test]`) and ends with
//! `common::harness::main!(first_test, second_test, …);`. Inside a test,
//! `require(found, "what is missing and how to install it")` (or one of the
//! finders in `clients`) returns the client or ends the test as ignored.
//!
//! A file whose tests are slow (a release build, minutes) ends with
//! `common::harness::main!(slow: first_test, …)`: its tests run only when
//! `ASK_USER_SLOW` asks for them ([`slow_tests_run`]), and are otherwise
//! counted as ignored, with the variable named as the reason.
//!
//! Under `cargo test`, each binary leaves what it skipped (missing clients,
//! slow tests) in a record under the target folder, one folder per cargo
//! process; the run's last binary (tests/zz_closing.rs, last because cargo
//! runs test binaries in the order of their names) sums them into one
//! closing line, removes them, and checks that no `ask_user` process the
//! run started is still alive ([`leftovers`]).

use std::any::Any;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use libtest_mimic::{Arguments, Completion, Failed, Trial};

/// Defines the test binary's `main`: runs each listed `fn()` as a test.
/// A test not listed is dead code (a compile warning, an error under
/// clippy's `-D warnings`); a `#[test]` attribute in the file fails the run,
/// since without the standard harness it would be silently dropped.
/// An entry may carry `#[cfg(…)]` like the function it names.
/// `main!(slow: …)`: every test of the file is slow ([`slow_tests_run`]).
#[allow(unused_macros)] // used by the harness = false files only
macro_rules! main {
    (slow: $($(#[$attr:meta])* $test:ident),+ $(,)?) => {
        #[allow(clippy::vec_init_then_push)] // pushes, so that an entry can carry #[cfg]
        fn main() -> std::process::ExitCode {
            let mut tests: Vec<(&'static str, fn())> = Vec::new();
            $($(#[$attr])* tests.push((stringify!($test), $test));)+
            $crate::common::harness::run_gated(file!(), tests, $crate::common::harness::Gate::Slow)
        }
    };
    ($($(#[$attr:meta])* $test:ident),+ $(,)?) => {
        #[allow(clippy::vec_init_then_push)] // pushes, so that an entry can carry #[cfg]
        fn main() -> std::process::ExitCode {
            let mut tests: Vec<(&'static str, fn())> = Vec::new();
            $($(#[$attr])* tests.push((stringify!($test), $test));)+
            $crate::common::harness::run(file!(), tests)
        }
    };
}
#[allow(unused_imports)] // used by the harness = false files only
pub(crate) use main;

/// True when `CI` is set to anything but "", "0" or "false" (any case):
/// GitHub's and most CI systems' `CI=true`, not a local `CI=false`.
pub fn under_ci() -> bool {
    std::env::var_os("CI").is_some_and(|value| yes(&value.to_string_lossy()))
}

/// A variable's value read as a switch: anything but "", "0" or "false"
/// (any case, spaces around ignored) is on.
fn yes(value: &str) -> bool {
    let value = value.trim().to_ascii_lowercase();
    !(value.is_empty() || value == "0" || value == "false")
}

/// The variable that asks for the slow tests (release builds, packaging,
/// a fresh clone's build): `ASK_USER_SLOW=1 cargo test`.
pub const SLOW: &str = "ASK_USER_SLOW";

/// The reason a slow test gives when it is not run.
pub const SLOW_REASON: &str = "slow: runs with ASK_USER_SLOW=1";

/// True when the slow tests run: `ASK_USER_SLOW` set to anything but "",
/// "0" or "false"; unset, under CI only ([`under_ci`]), so that a CI job
/// that forgets the variable still runs everything. `ASK_USER_SLOW=0`
/// skips them even under CI (where .ci/run then fails on the skipped tests).
pub fn slow_tests_run() -> bool {
    match std::env::var_os(SLOW) {
        Some(value) => yes(&value.to_string_lossy()),
        None => under_ci(),
    }
}

/// Which tests of a file run: all of them, or only when the slow tests do.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    Always,
    Slow,
}

/// `found`, or the end of the running test when it is `None`: ignored, with
/// `missing` ("the MCP Python SDK (run .ci/setup-mcp.sh)") as the reason;
/// under CI a failure instead.
pub fn require<T>(found: Option<T>, missing: &str) -> T {
    if let Some(found) = found {
        return found;
    }
    if under_ci() {
        panic!("{missing} is missing: under CI a missing outside client fails the test");
    }
    if !IN_HARNESS.with(Cell::get) {
        panic!(
            "{missing} is missing, and this test cannot be counted as ignored: \
             its file must use tests/common/harness.rs (harness = false in Cargo.toml)"
        );
    }
    *MISSING
        .lock()
        .unwrap()
        .entry(missing.to_string())
        .or_default() += 1;
    // Not `panic!`: no panic message, and the harness turns it into "ignored".
    resume_unwind(Box::new(Skipped(missing.to_string())))
}

/// Runs `tests` (named) with libtest's command line and output; the
/// `source` file is checked for `#[test]` attributes the harness would miss.
pub fn run(source: &str, tests: Vec<(&'static str, fn())>) -> ExitCode {
    run_gated(source, tests, Gate::Always)
}

/// [`run`], with the file's tests behind `gate`.
pub fn run_gated(source: &str, tests: Vec<(&'static str, fn())>, gate: Gate) -> ExitCode {
    let args = Arguments::from_args();
    let skip_slow = gate == Gate::Slow && !slow_tests_run();
    let mut trials: Vec<Trial> = tests
        .into_iter()
        .map(|(name, test)| {
            Trial::ignorable_test(name, move || {
                if skip_slow {
                    SLOW_SKIPPED.fetch_add(1, Ordering::Relaxed);
                    return Ok(Completion::ignored_with(SLOW_REASON));
                }
                run_one(test)
            })
        })
        .collect();
    let source = source.to_string();
    trials.push(Trial::test(
        "harness_runs_every_test_in_this_file",
        move || no_standard_tests(&source),
    ));
    let conclusion = libtest_mimic::run(&args, trials);
    let missing = MISSING.lock().unwrap();
    if !missing.is_empty() {
        eprintln!("\nignored because an outside client is missing (a failure under CI):");
        for (what, tests) in missing.iter() {
            eprintln!("  {tests} test(s): {what}");
        }
    }
    let slow = SLOW_SKIPPED.load(Ordering::Relaxed);
    if slow > 0 {
        eprintln!("\nignored as slow: {slow} test(s) ({SLOW}=1 runs them)");
    }
    let skips = Skips {
        missing: missing.values().sum(),
        slow,
    };
    if skips.total() > 0
        && let Err(error) = record_skips(&skips)
    {
        eprintln!("cannot record the skipped tests for the closing line: {error}");
    }
    conclusion.exit_code()
}

/// The payload of the unwind that ends a test whose client is missing.
struct Skipped(String);

thread_local! {
    /// Set on the threads that run a test under this harness.
    static IN_HARNESS: Cell<bool> = const { Cell::new(false) };
}

/// How many tests each missing client ended, for the closing note.
static MISSING: Mutex<BTreeMap<String, usize>> = Mutex::new(BTreeMap::new());

/// How many slow tests were not run.
static SLOW_SKIPPED: AtomicUsize = AtomicUsize::new(0);

fn run_one(test: fn()) -> Result<Completion, Failed> {
    IN_HARNESS.with(|flag| flag.set(true));
    let outcome = catch_unwind(AssertUnwindSafe(test));
    IN_HARNESS.with(|flag| flag.set(false));
    match outcome {
        Ok(()) => Ok(Completion::Completed),
        Err(payload) => match payload.downcast::<Skipped>() {
            Ok(skipped) => Ok(Completion::ignored_with(format!("missing {}", skipped.0))),
            Err(payload) => Err(panic_message(&*payload).into()),
        },
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied());
    match text {
        Some(text) => format!("test panicked: {text}"),
        None => "test panicked".to_string(),
    }
}

fn no_standard_tests(source: &str) -> Result<(), Failed> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(source);
    let text = std::fs::read_to_string(&path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let lines = standard_test_lines(&text);
    if lines.is_empty() {
        return Ok(());
    }
    let at: Vec<String> = lines
        .iter()
        .map(|line| format!("{source}:{line}"))
        .collect();
    Err(format!(
        "{source} runs under tests/common/harness.rs, which never sees #[test] functions \
         ({}): make each a plain fn and list it in common::harness::main!",
        at.join(", ")
    )
    .into())
}

/// The 1-based numbers of the lines of `source` that hold a `#[test]` attribute.
pub fn standard_test_lines(source: &str) -> Vec<usize> {
    source
        .lines()
        .enumerate()
        .filter(|(_, line)| line.trim_start().starts_with("#[test]"))
        .map(|(index, _)| index + 1)
        .collect()
}

// ---- The run's closing line: what each binary skipped ---------------------

/// What one test binary (or a whole run) skipped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skips {
    /// Ignored because an outside client is missing.
    pub missing: usize,
    /// Ignored because slow tests were not asked for.
    pub slow: usize,
}

impl Skips {
    pub fn total(&self) -> usize {
        self.missing + self.slow
    }

    /// The record's text: `missing N` and `slow N`, a line each.
    pub fn to_record(self) -> String {
        format!("missing {}\nslow {}\n", self.missing, self.slow)
    }

    /// A record's text read back; `None` when it is not one.
    pub fn from_record(text: &str) -> Option<Skips> {
        let mut skips = Skips::default();
        let mut seen = (false, false);
        for line in text.lines() {
            let (what, count) = line.split_once(' ')?;
            let count: usize = count.parse().ok()?;
            match what {
                "missing" if !seen.0 => (skips.missing, seen.0) = (count, true),
                "slow" if !seen.1 => (skips.slow, seen.1) = (count, true),
                _ => return None,
            }
        }
        (seen.0 && seen.1).then_some(skips)
    }

    /// The run's closing line; `None` when nothing was skipped.
    pub fn closing_line(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.missing > 0 {
            parts.push(format!(
                "{} because an outside client is missing (as root, scripts/test-clients installs every client)",
                self.missing
            ));
        }
        if self.slow > 0 {
            parts.push(format!(
                "{} slow (release builds; ASK_USER_SLOW=1 cargo test runs them)",
                self.slow
            ));
        }
        if parts.is_empty() {
            return None;
        }
        let total = self.total();
        let tests = if total == 1 { "test" } else { "tests" };
        Some(format!(
            "skipped {total} {tests} in this run: {}",
            parts.join("; ")
        ))
    }
}

/// Set to a folder, the records go there instead of the cargo run's folder
/// (the harness's own tests).
pub const RECORDS_VAR: &str = "ASK_USER_TEST_RECORDS";

/// The folder that holds the records of every cargo run: `test-runs` in the
/// profile folder (target/debug), beside the `deps` folder of this binary.
pub fn records_root() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.join("test-runs"))
}

/// This run's records: [`RECORDS_VAR`], else the folder of the cargo
/// process this binary runs under; `None` outside `cargo test`.
pub fn records_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(RECORDS_VAR).filter(|dir| !dir.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    Some(records_root()?.join(CargoRun::parent()?.key()))
}

fn record_skips(skips: &Skips) -> std::io::Result<()> {
    let Some(dir) = records_dir() else {
        return Ok(());
    };
    std::fs::create_dir_all(&dir)?;
    let exe = std::env::current_exe()?;
    let name = exe.file_name().unwrap_or_default().to_string_lossy();
    let name = format!("{name}.{}", std::process::id());
    // Written beside, then renamed: the closing binary never reads half a record.
    let partial = dir.join(format!(".{name}"));
    std::fs::write(&partial, skips.to_record())?;
    std::fs::rename(partial, dir.join(name))
}

/// The sum of the records in `dir` (none: zero), and the files that were
/// not records.
pub fn sum_records(dir: &Path) -> (Skips, Vec<PathBuf>) {
    let mut sum = Skips::default();
    let mut strays = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (sum, strays);
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    paths.sort();
    for path in paths {
        let hidden = path
            .file_name()
            .is_some_and(|name| name.to_string_lossy().starts_with('.'));
        match std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| Skips::from_record(&text))
        {
            Some(skips) if !hidden => {
                sum.missing += skips.missing;
                sum.slow += skips.slow;
            }
            _ => strays.push(path),
        }
    }
    (sum, strays)
}

/// Removes the record folders of cargo runs that have ended (a run that
/// stopped before its last binary, or ran only some binaries), but for `keep`.
pub fn remove_ended_runs(root: &Path, keep: Option<&str>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if Some(name.as_str()) == keep {
            continue;
        }
        let alive = CargoRun::from_key(&name).is_some_and(|run| run.alive());
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

// ---- The cargo run and its processes, from /proc (Linux) -----------------

/// What /proc/PID/stat says of a process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stat {
    /// The executable's name, at most 15 bytes (the kernel's `comm`).
    pub comm: String,
    /// One letter: R, S, D, Z (a zombie: ended, not yet reaped), …
    pub state: char,
    pub ppid: u32,
    /// When it started, in clock ticks since boot.
    pub start: u64,
}

/// /proc/PID/stat of `pid` (`None`: gone, or no /proc).
pub fn stat(pid: u32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The fields of a /proc/PID/stat line this harness reads: the name sits
/// between the first "(" and the last ")" (it may hold both), and the
/// start time is the 22nd field.
pub fn parse_stat(line: &str) -> Option<Stat> {
    let open = line.find('(')?;
    let close = line.rfind(')')?;
    let comm = line.get(open + 1..close)?.to_string();
    let fields: Vec<&str> = line.get(close + 1..)?.split_whitespace().collect();
    Some(Stat {
        comm,
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

/// The cargo process a test binary runs under: its pid and start time,
/// which together name one run (a pid alone is reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CargoRun {
    pub pid: u32,
    pub start: u64,
}

impl CargoRun {
    /// The parent of this process, when it is cargo.
    pub fn parent() -> Option<CargoRun> {
        let me = stat(std::process::id())?;
        let parent = stat(me.ppid)?;
        (parent.comm == "cargo").then_some(CargoRun {
            pid: me.ppid,
            start: parent.start,
        })
    }

    /// The run's record folder name: `PID-START`.
    pub fn key(&self) -> String {
        format!("{}-{}", self.pid, self.start)
    }

    pub fn from_key(key: &str) -> Option<CargoRun> {
        let (pid, start) = key.split_once('-')?;
        Some(CargoRun {
            pid: pid.parse().ok()?,
            start: start.parse().ok()?,
        })
    }

    /// True while the process that started the run still runs.
    pub fn alive(&self) -> bool {
        stat(self.pid).is_some_and(|stat| stat.start == self.start && stat.state != 'Z')
    }
}

/// An `ask_user` process found alive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leftover {
    pub pid: u32,
    /// Its command line, arguments joined by spaces.
    pub command: String,
}

/// The live `ask_user` processes (not zombies) started at or after `since`
/// (clock ticks since boot) that belong to this checkout: they inherited
/// cargo's `CARGO_MANIFEST_DIR` for it, run a binary from inside it or from
/// its target folder, or descend from `run`'s cargo process. A process under another cargo
/// process (another run, in this checkout or another) is not counted; an
/// orphan (its test gone) is, by its start time and one of the ties above.
pub fn leftovers(since: u64, run: Option<u32>) -> Vec<Leftover> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    // target/debug/deps/THIS: the target folder, wherever CARGO_TARGET_DIR put it.
    let target = records_root().and_then(|root| Some(root.parent()?.parent()?.to_path_buf()));
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse().ok())
        else {
            continue;
        };
        let Some(stat) = stat(pid) else { continue };
        if stat.state == 'Z' || stat.start < since {
            continue;
        }
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
        // A deleted binary (rebuilt since) reads "PATH (deleted)".
        let exe = exe.map(|exe| {
            let text = exe.to_string_lossy();
            PathBuf::from(text.strip_suffix(" (deleted)").unwrap_or(&text))
        });
        let named = stat.comm == "ask_user"
            || exe
                .as_ref()
                .and_then(|exe| exe.file_name())
                .is_some_and(|name| name == "ask_user");
        if !named || pid == std::process::id() {
            continue;
        }
        let (under_run, under_other_cargo) = cargo_ancestry(stat.ppid, run);
        if under_other_cargo {
            continue;
        }
        let tied = under_run
            || exe.as_ref().is_some_and(|exe| {
                exe.starts_with(manifest) || target.as_ref().is_some_and(|dir| exe.starts_with(dir))
            })
            || environ_has(pid, "CARGO_MANIFEST_DIR", manifest);
        if tied {
            found.push(Leftover {
                pid,
                command: command_line(pid),
            });
        }
    }
    found.sort_by_key(|leftover| leftover.pid);
    found
}

/// Walking up from `pid`: (met `run`'s cargo, met another cargo process first).
fn cargo_ancestry(mut pid: u32, run: Option<u32>) -> (bool, bool) {
    for _ in 0..64 {
        if pid <= 1 {
            break;
        }
        if Some(pid) == run {
            return (true, false);
        }
        let Some(stat) = stat(pid) else { break };
        if stat.comm == "cargo" {
            return (false, true);
        }
        pid = stat.ppid;
    }
    (false, false)
}

fn environ_has(pid: u32, name: &str, value: &Path) -> bool {
    let Ok(bytes) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let wanted = format!("{name}={}", value.display());
    bytes
        .split(|byte| *byte == 0)
        .any(|entry| entry == wanted.as_bytes())
}

/// /proc/PID/cmdline, its arguments joined by spaces ("?" when unreadable).
pub fn command_line(pid: u32) -> String {
    match std::fs::read(format!("/proc/{pid}/cmdline")) {
        Ok(bytes) if !bytes.is_empty() => bytes
            .split(|byte| *byte == 0)
            .filter(|part| !part.is_empty())
            .map(|part| String::from_utf8_lossy(part).into_owned())
            .collect::<Vec<_>>()
            .join(" "),
        _ => "?".to_string(),
    }
}
