//! The last test binary of a `cargo test` run: cargo runs integration test
//! binaries in the order of their names (it sorts its units by target kind,
//! then name: cargo's `compile_tests`, checked by experiment with cargo
//! 1.95), so `zz_closing` comes after every other file in tests/.
//!
//! It checks that no `ask_user` process this run started is still alive,
//! then sums what the other harness binaries skipped (their records,
//! tests/common/harness.rs) into one closing line on stderr and removes the
//! records. Its first tests check the check: the process scan against an
//! `ask_user` left running on purpose, and the closing line against records
//! it writes itself. Linux only (/proc); elsewhere it says so.

#![cfg_attr(not(target_os = "linux"), allow(dead_code, unused_imports))]

mod common;

use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use common::harness::{
    CargoRun, Leftover, RECORDS_VAR, Skips, leftovers, parse_stat, records_dir, records_root,
    remove_ended_runs, stat, sum_records,
};
use libtest_mimic::{Arguments, Completion, Failed, Trial};

/// Set in the child run of `the_closing_line_ends_the_run_and_the_records_go`.
const CHILD: &str = "ASK_USER_CLOSING_CHILD";

/// How long a process the run left may take to end before it counts.
const GRACE: Duration = Duration::from_secs(5);

/// `pid` killed (SIGKILL) when dropped: a process a test leaves on purpose.
struct KillOnDrop(u32);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: kill(2) on a pid this test started; a gone pid gives ESRCH.
        unsafe {
            libc::kill(self.0 as libc::pid_t, libc::SIGKILL);
        }
    }
}

/// `probe` until it gives `Some`, for at most `limit`.
fn wait_for<T>(limit: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(found) = probe() {
            return Some(found);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The scan is no formality: an `ask_user inbox` started through `sh`, which
/// exits at once (so the inbox is an orphan, as a leaked test child is once
/// its test binary has ended), is found with its pid and command line; once
/// killed, it is not.
fn the_scan_finds_an_ask_user_process_left_running_on_purpose() -> Result<(), Failed> {
    let me = stat(std::process::id()).ok_or("no /proc/self/stat")?;
    let run = CargoRun::parent().map(|run| run.pid);
    let state = tempfile::tempdir().map_err(|e| e.to_string())?;
    let output = Command::new("sh")
        .arg("-c")
        .arg(r#"ASK_USER_STATE_DIR="$1" "$0" inbox --port 0 </dev/null >/dev/null 2>&1 & echo $!"#)
        .arg(common::BIN)
        .arg(state.path())
        .output()
        .map_err(|e| format!("cannot run sh: {e}"))?;
    let pid: u32 = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .map_err(|e| format!("sh printed no pid ({e}): {output:?}"))?;
    let left = KillOnDrop(pid);
    let found = wait_for(GRACE, || {
        leftovers(me.start, run)
            .into_iter()
            .find(|leftover| leftover.pid == pid)
    })
    .ok_or_else(|| format!("the scan did not find the ask_user inbox left running (pid {pid})"))?;
    let expected = format!("{} inbox --port 0", common::BIN);
    if found.command != expected {
        return Err(format!("command line {:?}, not {expected:?}", found.command).into());
    }
    let parent = stat(pid).map(|stat| stat.ppid);
    if parent == Some(std::process::id()) {
        return Err("the inbox is this test's child, not an orphan".into());
    }
    // The check the last test makes fails on it, naming it.
    let report = no_process_left(me.start, run, Duration::ZERO)
        .expect_err("the check passed with an ask_user left running");
    let line = format!("  pid {pid}: {expected}");
    if !report.lines().any(|listed| listed == line) {
        return Err(format!("{line:?} not in the report:\n{report}").into());
    }
    drop(left);
    wait_for(GRACE, || {
        (!leftovers(me.start, run)
            .iter()
            .any(|leftover| leftover.pid == pid))
        .then_some(())
    })
    .ok_or_else(|| format!("pid {pid} still listed after SIGKILL"))?;
    Ok(())
}

fn proc_stat_lines_are_read_with_spaces_and_parentheses_in_the_name() -> Result<(), Failed> {
    // The 52 fields of a real line; the name holds ") (" and a space.
    let line = "4242 (a) (b c) S 17 4242 4242 0 -1 4194560 120 0 0 0 1 2 0 0 20 0 1 0 \
                987654 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 \
                0 0 0 0 0 0 0 0";
    let stat = parse_stat(line).ok_or("not parsed")?;
    assert_eq!(stat.comm, "a) (b c");
    assert_eq!(stat.state, 'S');
    assert_eq!(stat.ppid, 17);
    assert_eq!(stat.start, 987654);
    assert_eq!(parse_stat("4242 (a) S 17"), None);
    assert_eq!(parse_stat(""), None);
    // This process: its parent and a start time no earlier than the parent's.
    let me = common::harness::stat(std::process::id()).ok_or("no /proc/self/stat")?;
    let parent = common::harness::stat(me.ppid).ok_or("no parent stat")?;
    assert!(me.start >= parent.start, "{me:?} {parent:?}");
    assert_eq!(
        CargoRun::from_key(&CargoRun { pid: 12, start: 34 }.key()),
        Some(CargoRun { pid: 12, start: 34 })
    );
    assert_eq!(CargoRun::from_key("12"), None);
    Ok(())
}

fn records_sum_into_one_closing_line() -> Result<(), Failed> {
    let none = Skips::default();
    assert_eq!(none.closing_line(), None);
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "mcp-1.10",
        &Skips {
            missing: 7,
            slow: 0,
        }
        .to_record(),
    );
    write(
        "dist-2.11",
        &Skips {
            missing: 0,
            slow: 54,
        }
        .to_record(),
    );
    write(
        "web-3.12",
        &Skips {
            missing: 3,
            slow: 0,
        }
        .to_record(),
    );
    write("garbage", "missing seven\n");
    write(
        ".web-4.13",
        &Skips {
            missing: 100,
            slow: 0,
        }
        .to_record(),
    );
    let (sum, strays) = sum_records(dir.path());
    assert_eq!(
        sum,
        Skips {
            missing: 10,
            slow: 54
        }
    );
    assert_eq!(strays.len(), 2, "{strays:?}");
    assert_eq!(
        sum.closing_line().unwrap(),
        "skipped 64 tests in this run: 10 because an outside client is missing \
         (as root, scripts/test-clients installs every client); \
         54 slow (release builds; ASK_USER_SLOW=1 cargo test runs them)"
    );
    assert_eq!(
        Skips {
            missing: 0,
            slow: 1
        }
        .closing_line()
        .unwrap(),
        "skipped 1 test in this run: 1 slow (release builds; ASK_USER_SLOW=1 cargo test runs them)"
    );
    assert_eq!(
        Skips {
            missing: 2,
            slow: 0
        }
        .closing_line()
        .unwrap(),
        "skipped 2 tests in this run: 2 because an outside client is missing \
         (as root, scripts/test-clients installs every client)"
    );
    for bad in [
        "",
        "missing 1\n",
        "missing 1\nslow 2\nslow 3\n",
        "slow x\nmissing 1\n",
    ] {
        assert_eq!(Skips::from_record(bad), None, "{bad:?}");
    }
    assert_eq!(
        sum_records(&dir.path().join("absent")),
        (Skips::default(), Vec::new())
    );
    Ok(())
}

/// The folders of runs whose cargo process has ended (or was another
/// process with its pid) go; a live run's and the one to keep stay.
fn records_of_ended_runs_go() -> Result<(), Failed> {
    let root = tempfile::tempdir().map_err(|e| e.to_string())?;
    let me = stat(std::process::id()).ok_or("no /proc/self/stat")?;
    let alive = CargoRun {
        pid: std::process::id(),
        start: me.start,
    }
    .key();
    // Beyond the kernel's largest pid (2^22): never alive.
    let ended = CargoRun {
        pid: 4_194_305,
        start: 1,
    }
    .key();
    // This process's pid with another start time: the pid was reused.
    let reused = CargoRun {
        pid: std::process::id(),
        start: me.start + 1,
    }
    .key();
    let keep = "4194306-1";
    for name in [
        alive.as_str(),
        ended.as_str(),
        reused.as_str(),
        keep,
        "junk",
    ] {
        std::fs::create_dir(root.path().join(name)).map_err(|e| e.to_string())?;
    }
    remove_ended_runs(root.path(), Some(keep));
    let mut left: Vec<String> = std::fs::read_dir(root.path())
        .map_err(|e| e.to_string())?
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let mut expected = vec![alive, keep.to_string()];
    expected.sort();
    assert_eq!(left, expected);
    Ok(())
}

/// This binary run again with its records in a folder of this test: the
/// closing line is the last line on stderr, the folder is gone after; with
/// nothing recorded there is no line; `--list` leaves the records alone.
fn the_closing_line_ends_the_run_and_the_records_go() -> Result<(), Failed> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let records = dir.path().join("run");
    let child = |args: &[&str]| {
        let output = Command::new(std::env::current_exe().unwrap())
            .args(args)
            .env(CHILD, "1")
            .env(RECORDS_VAR, &records)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let fill = || {
        std::fs::create_dir_all(&records).unwrap();
        let record = Skips {
            missing: 2,
            slow: 3,
        }
        .to_record();
        std::fs::write(records.join("a-1.2"), &record).unwrap();
        std::fs::write(records.join("b-1.3"), &record).unwrap();
    };

    fill();
    let (code, stdout, stderr) = child(&["--list"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        records.join("a-1.2").is_file(),
        "--list removed the records"
    );
    assert!(!stderr.contains("skipped"), "{stderr}");

    let (code, stdout, stderr) = child(&["--exact", "no_test_has_this_name"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("test result: ok. 0 passed"), "{stdout}");
    assert_eq!(
        stderr.lines().last(),
        Some(
            "skipped 10 tests in this run: 4 because an outside client is missing \
             (as root, scripts/test-clients installs every client); \
             6 slow (release builds; ASK_USER_SLOW=1 cargo test runs them)"
        ),
        "{stderr}"
    );
    assert!(!records.exists(), "the records are still there");

    let (code, stdout, stderr) = child(&["--exact", "no_test_has_this_name"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(!stderr.contains("skipped"), "{stderr}");
    Ok(())
}

/// The check itself: every `ask_user` process started since this cargo
/// run began, from this checkout, that is still alive (after a grace of a
/// few seconds for one that is ending) fails the run, each listed with its
/// pid and command line.
fn no_ask_user_process_started_by_this_run_is_left() -> Result<Completion, Failed> {
    let Some(run) = CargoRun::parent() else {
        return Ok(Completion::ignored_with(
            "runs under cargo test only (it checks the cargo run's processes)",
        ));
    };
    no_process_left(run.start, Some(run.pid), GRACE)?;
    Ok(Completion::Completed)
}

/// Fails, listing each pid and command line, when [`leftovers`] still finds
/// a process after `grace`.
fn no_process_left(since: u64, run: Option<u32>, grace: Duration) -> Result<(), String> {
    let mut left: Vec<Leftover> = Vec::new();
    let gone = wait_for(grace, || {
        left = leftovers(since, run);
        left.is_empty().then_some(())
    });
    if gone.is_some() {
        return Ok(());
    }
    let list: Vec<String> = left
        .iter()
        .map(|leftover| format!("  pid {}: {}", leftover.pid, leftover.command))
        .collect();
    Err(format!(
        "{} ask_user process(es) started by this cargo run are still alive, \
         {} s after the other tests ended; a test did not end a child it started:\n{}",
        left.len(),
        grace.as_secs(),
        list.join("\n")
    ))
}

/// The records of this run summed into the closing line (stderr), then
/// removed; the records of runs that ended without their closing binary go too.
fn close_the_run() {
    let run = CargoRun::parent();
    if let Some(root) = records_root() {
        remove_ended_runs(&root, run.map(|run| run.key()).as_deref());
    }
    let Some(dir) = records_dir() else { return };
    let (skips, _) = sum_records(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    if let Some(line) = skips.closing_line() {
        eprintln!("\n{line}");
    }
}

fn check(test: fn() -> Result<(), Failed>) -> Result<Completion, Failed> {
    test().map(|()| Completion::Completed)
}

#[cfg(target_os = "linux")]
fn main() -> ExitCode {
    let mut args = Arguments::from_args();
    // In this order, one at a time: the process left on purpose is gone
    // before the last test looks.
    args.test_threads = Some(1);
    let mut trials = Vec::new();
    if std::env::var_os(CHILD).is_none() {
        trials = vec![
            Trial::ignorable_test(
                "the_scan_finds_an_ask_user_process_left_running_on_purpose",
                || check(the_scan_finds_an_ask_user_process_left_running_on_purpose),
            ),
            Trial::ignorable_test(
                "proc_stat_lines_are_read_with_spaces_and_parentheses_in_the_name",
                || check(proc_stat_lines_are_read_with_spaces_and_parentheses_in_the_name),
            ),
            Trial::ignorable_test("records_sum_into_one_closing_line", || {
                check(records_sum_into_one_closing_line)
            }),
            Trial::ignorable_test("records_of_ended_runs_go", || {
                check(records_of_ended_runs_go)
            }),
            Trial::ignorable_test("the_closing_line_ends_the_run_and_the_records_go", || {
                check(the_closing_line_ends_the_run_and_the_records_go)
            }),
            Trial::ignorable_test(
                "no_ask_user_process_started_by_this_run_is_left",
                no_ask_user_process_started_by_this_run_is_left,
            ),
        ];
    }
    let conclusion = libtest_mimic::run(&args, trials);
    if !args.list {
        close_the_run();
    }
    conclusion.exit_code()
}

#[cfg(not(target_os = "linux"))]
fn main() -> ExitCode {
    println!(
        "tests/zz_closing: the run's processes are read from /proc, on Linux; nothing to check here"
    );
    ExitCode::SUCCESS
}
