//! The inbox on a full disk, for real: its state folder is a tmpfs of
//! 600 KiB (mounted by the test: root and mount(8), as in CI; elsewhere the
//! test is counted as ignored), filled by the questions of 60 askers at once.
//! Every asker either has its question stored or gets `STORE_ERROR` at once,
//! never a silent wait; the inbox says why once; the stored questions stay,
//! and once the disk has room again a new ask goes through. Beside it, the
//! other case: a store that does not answer (an outage, here a stand-in
//! inbox that answers 503), which an asker waits out, saying so at once.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use serde_json::Value;

use common::harness;
use common::inbox::{Asker, Inbox, command, run};
use common::process::{ChildGuard, exit_with_one_line, spawn_with_input};

/// A tmpfs of its own, unmounted when dropped (after every process that
/// holds a file in it: declare it first, so that it drops last).
struct Tmpfs {
    dir: PathBuf,
    _parent: tempfile::TempDir,
}

impl Tmpfs {
    /// A tmpfs of `size` (mount's `size=`), or `None` where this process
    /// may not mount one (not root).
    fn mount(size: &str) -> Option<Tmpfs> {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("state");
        std::fs::create_dir(&dir).unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size},mode=0700")])
            .arg("tmpfs")
            .arg(&dir)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        mounted.then_some(Tmpfs {
            dir,
            _parent: parent,
        })
    }

    /// Gives it `size` (room again, or less).
    fn resize(&self, size: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.dir)
            .status()
            .unwrap();
        assert!(status.success(), "remount {size}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let unmounted = Command::new("umount")
            .arg(&self.dir)
            .status()
            .is_ok_and(|status| status.success());
        if !unmounted {
            // Still busy (a test that failed half-way): detach it now, gone
            // once the last file in it is closed.
            let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
        }
    }
}

const NO_TMPFS: &str =
    "a tmpfs of the test's own (Linux, root and mount(8); CI runs the tests as root)";

/// Three questions of 990 characters each: one asker's tool input.
fn three_long_questions(n: usize) -> String {
    let question = |q: usize| {
        let head = format!("Asker {n}, question {q}: ");
        let text = format!("{head}{}", "x".repeat(990 - head.len()));
        serde_json::json!({"question": text, "options": ["yes", "no"]})
    };
    serde_json::json!({"questions": [question(1), question(2), question(3)]}).to_string()
}

/// What one asker did: its exit (code, stdout) and how long it took, or
/// the id its stderr named when its question was stored (it waits on).
struct Outcome {
    exited: Option<(i32, String, Duration)>,
    stored: Option<String>,
    stderr: String,
}

/// `TOOLBOX_ACTION=execute ASK_USER_UI=inbox ask_user` in `dir` with
/// `input`; a thread reports on `done` when its stdout ends (it exited)
/// with the time since its start, and its stderr as it comes on `said`.
fn execute(
    dir: &Path,
    n: usize,
    input: &str,
    done: &mpsc::Sender<(usize, String, Duration)>,
    said: &mpsc::Sender<(usize, String)>,
) -> ChildGuard {
    let mut asker = command(dir, &[]);
    asker
        .env("TOOLBOX_ACTION", "execute")
        .env("ASK_USER_UI", "inbox");
    let started = Instant::now();
    let mut child = spawn_with_input(&mut asker, input.as_bytes());
    let mut stdout = child.stdout.take().unwrap();
    let done = done.clone();
    std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        let _ = done.send((n, out, started.elapsed()));
    });
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let said = said.clone();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = said.send((n, line));
        }
    });
    child
}

fn a_full_disk_refuses_askers_at_once_keeps_the_stored_questions_and_recovers() {
    const ASKERS: usize = 60;
    let disk = harness::require(Tmpfs::mount("600k"), NO_TMPFS);
    let inbox = Inbox::start(&disk.dir);
    let (done, exits) = mpsc::channel();
    let (said, lines) = mpsc::channel();
    let mut askers: Vec<ChildGuard> = (0..ASKERS)
        .map(|n| execute(&disk.dir, n, &three_long_questions(n), &done, &said))
        .collect();
    // Every asker has its answer within 5 s of its start, or its question
    // is stored and it waits for the person: wait 8 s in all, then look.
    let mut outcomes: Vec<Outcome> = (0..ASKERS)
        .map(|_| Outcome {
            exited: None,
            stored: None,
            stderr: String::new(),
        })
        .collect();
    let looked_until = Instant::now() + Duration::from_secs(8);
    while let Ok((n, out, took)) =
        exits.recv_timeout(looked_until.saturating_duration_since(Instant::now()))
    {
        let status = askers[n].wait().unwrap();
        outcomes[n].exited = Some((status.code().unwrap(), out, took));
    }
    for (n, line) in lines.try_iter() {
        if let Some(id) = line
            .split("question ")
            .nth(1)
            .and_then(|rest| rest.split(';').next())
            .filter(|_| line.contains("asked in the inbox"))
        {
            outcomes[n].stored = Some(id.to_string());
        }
        outcomes[n].stderr.push_str(&line);
        outcomes[n].stderr.push('\n');
    }
    let mut refused_in = Vec::new();
    let mut stored = Vec::new();
    for (n, outcome) in outcomes.iter().enumerate() {
        match (&outcome.exited, &outcome.stored) {
            (Some((code, out, took)), None) => {
                assert_eq!(*code, 1, "asker {n}: {out}");
                assert!(
                    out.ends_with('\n') && out.matches('\n').count() == 1,
                    "asker {n}: {out:?}"
                );
                let document: Value = serde_json::from_str(out).unwrap();
                assert_eq!(document["status"], "error", "asker {n}: {document}");
                assert_eq!(document["error"]["code"], "STORE_ERROR", "{document}");
                assert_eq!(
                    document["error"]["message"],
                    "the inbox's store refuses writes: disk full (SQLite: database or disk is full); free space on the disk of the inbox's store file, then try again (every question stored before is kept)"
                );
                assert!(
                    *took < Duration::from_secs(5),
                    "asker {n} got its refusal after {took:?}"
                );
                // Final at once: no wait said, nothing retried.
                assert_eq!(outcome.stderr, "", "asker {n}");
                refused_in.push(*took);
            }
            (None, Some(id)) => stored.push(id.clone()),
            _ => panic!(
                "asker {n} neither exited with its refusal within 5 s nor had its question stored: exited {:?}, said {:?}",
                outcome.exited, outcome.stderr
            ),
        }
    }
    // The disk filled part of the way through: some stored, the rest refused.
    assert!(!stored.is_empty(), "nothing stored");
    assert!(!refused_in.is_empty(), "the disk never filled");
    refused_in.sort();
    eprintln!(
        "{} stored, {} refused: refusal after median {:?}, max {:?}",
        stored.len(),
        refused_in.len(),
        refused_in[refused_in.len() / 2],
        refused_in[refused_in.len() - 1]
    );
    // Every stored question is kept, and listed.
    let mut listed = inbox.ids();
    listed.sort();
    stored.sort();
    assert_eq!(listed, stored);
    // Room again: a new ask is stored and answered, on the same inbox.
    disk.resize("4m");
    let asker = Asker::ask(
        &disk.dir,
        r#"{"question":"Room again?","options":["yes","no"]}"#,
        &[],
    );
    let (code, out) = run(&disk.dir, &["inbox", "answer", &asker.id, "--reply", "1"]);
    assert_eq!(code, 0, "{out}");
    let (code, document) = asker.finish();
    assert_eq!(code, 0, "{document}");
    assert_eq!(document["answered"], true, "{document}");
    let mut listed = inbox.ids();
    listed.sort();
    assert_eq!(listed, stored, "the stored questions are still there");
    // The inbox said why, once (at most once a minute, and this took less).
    drop(askers);
    let said = inbox.stop();
    let refusing: Vec<&str> = said
        .lines()
        .filter(|line| line.contains("refuses writes"))
        .collect();
    assert_eq!(
        refusing,
        [
            "ask_user inbox: the store refuses writes: disk full (SQLite: database or disk is full); new questions and answers get STORE_ERROR until someone acts (free space on the disk of the inbox's store file); every question stored before is kept"
        ],
        "{said}"
    );
}

/// A stand-in for an inbox whose store does not answer: every request gets
/// 503 `STORE_ERROR` with `Retry-After`, as a replica during a PostgreSQL
/// outage answers. Counts the asks; its thread ends with the [`Stop`].
fn outage() -> (u16, Arc<AtomicUsize>, Stop) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let asks = Arc::new(AtomicUsize::new(0));
    let stopped = Arc::new(AtomicBool::new(false));
    let (counted, stopping) = (Arc::clone(&asks), Arc::clone(&stopped));
    std::thread::spawn(move || {
        let body = r#"{"tool":"ask_user","version":1,"status":"error","error":{"code":"STORE_ERROR","message":"the inbox's store failed (PostgreSQL: connection refused); check that PostgreSQL is up and reachable"}}"#;
        for stream in listener.incoming() {
            if stopping.load(Ordering::SeqCst) {
                break;
            }
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            // The head, then the body its length names (the asker's probe
            // connects and closes: nothing to read, nothing to answer).
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
            if head.is_empty() {
                continue;
            }
            let length = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length: "))
                .map_or(0, |n| n.trim().parse().unwrap_or(0));
            let mut rest = vec![0u8; length];
            let _ = stream.read_exact(&mut rest);
            if head.starts_with("post /api/ask ") {
                counted.fetch_add(1, Ordering::SeqCst);
            }
            let _ = stream.write_all(
                format!(
                    "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            );
        }
    });
    (port, asks, Stop { port, stopped })
}

/// Ends [`outage`]'s thread when dropped: sets its flag and wakes its accept.
struct Stop {
    port: u16,
    stopped: Arc<AtomicBool>,
}

impl Drop for Stop {
    fn drop(&mut self) {
        self.stopped.store(true, Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn an_ask_during_an_outage_says_at_once_that_it_waits_and_ends_within_its_timeout() {
    let (port, asks, _stop) = outage();
    let dir = tempfile::tempdir().unwrap();
    let mut asker = command(dir.path(), &["ask", "--ui", "inbox", "--timeout", "3", "-"]);
    asker
        .env("ASK_USER_INBOX", format!("http://127.0.0.1:{port}"))
        .env("ASK_USER_TOKEN", "0".repeat(32));
    let started = Instant::now();
    let mut child = spawn_with_input(&mut asker, br#"{"question":"Go?","options":["yes","no"]}"#);
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (said, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = said.send((line, started.elapsed()));
        }
    });
    // At once: the first refusal is said, with why and for how long.
    let (first, at) = lines
        .recv_timeout(Duration::from_secs(2))
        .expect("a line at once");
    assert_eq!(
        first,
        format!(
            "ask_user: the inbox at http://127.0.0.1:{port} cannot store the question yet (503 Service Unavailable: the inbox's store failed (PostgreSQL: connection refused); check that PostgreSQL is up and reachable); retrying until it can, for up to 3 s (the asker's timeout)"
        )
    );
    assert!(at < Duration::from_secs(2), "{at:?}");
    // It retries (the same key) until its own timeout ends it: timed out, 124.
    let (code, out) = exit_with_one_line(&mut child, Duration::from_secs(20));
    let took = started.elapsed();
    assert_eq!(code, 124, "{out}");
    let document: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(document["timedOut"], true, "{document}");
    assert!(
        took >= Duration::from_secs(3) && took < Duration::from_secs(10),
        "{took:?}"
    );
    assert!(asks.load(Ordering::SeqCst) >= 2, "retried");
    // Said once, not at every retry.
    let rest: Vec<String> = lines.try_iter().map(|(line, _)| line).collect();
    assert!(
        !rest
            .iter()
            .any(|line| line.contains("cannot store the question yet")),
        "{rest:?}"
    );
}

common::harness::main!(
    a_full_disk_refuses_askers_at_once_keeps_the_stored_questions_and_recovers,
    an_ask_during_an_outage_says_at_once_that_it_waits_and_ends_within_its_timeout,
);
