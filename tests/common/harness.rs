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

use std::any::Any;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;

use libtest_mimic::{Arguments, Completion, Failed, Trial};

/// Defines the test binary's `main`: runs each listed `fn()` as a test.
/// A test not listed is dead code (a compile warning, an error under
/// clippy's `-D warnings`); a `#[test]` attribute in the file fails the run,
/// since without the standard harness it would be silently dropped.
/// An entry may carry `#[cfg(…)]` like the function it names.
#[allow(unused_macros)] // used by the harness = false files only
macro_rules! main {
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
    std::env::var("CI").is_ok_and(|value| {
        let value = value.trim().to_ascii_lowercase();
        !(value.is_empty() || value == "0" || value == "false")
    })
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
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = tests
        .into_iter()
        .map(|(name, test)| Trial::ignorable_test(name, move || run_one(test)))
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
