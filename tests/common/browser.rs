//! tests/web/drive.mjs: a headless Chromium that plays one scenario at the
//! URL that appears in a file.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{ChildStdout, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;

use super::clients::tests_dir;
use super::process::ChildGuard;

/// The file through which a test of this process hands `scenario` its URL
/// (and, with ".go" added, answers the scenario's `handshake`).
pub fn url_file(scenario: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "ask-user-browser-{}-{scenario}.url",
        std::process::id()
    ))
}

/// Writes `path` whole (a rename), so the driver never reads half of it.
fn write_whole(path: &Path, text: &str) {
    let partial = path.with_extension("part");
    std::fs::write(&partial, text).unwrap();
    std::fs::rename(&partial, path).unwrap();
}

/// Starts the browser on `scenario`, then hands it `url` (a page's address
/// with its token).
pub fn browser_at(chromium: &Path, scenario: &str, url: &str) -> Browser {
    let url_file = url_file(scenario);
    let browser = Browser::start(chromium, scenario, &url_file);
    write_whole(&url_file, url);
    browser
}

/// Answers the `handshake` of a scenario started by [`browser_at`]: it goes on.
pub fn go_on(scenario: &str) {
    let mut go = url_file(scenario).into_os_string();
    go.push(".go");
    write_whole(Path::new(&go), "");
}

/// The running driver; its stderr is collected on a thread. Dropped before
/// its end (a failed test), it is killed with its browser (its group).
pub struct Browser {
    child: ChildGuard,
    stdout: BufReader<ChildStdout>,
    errors: JoinHandle<String>,
}

impl Browser {
    /// Starts the driver on `scenario`, to wait for the page's URL in
    /// `url_file` (a stale one is removed first); returns once it says
    /// "ready", and panics with its stderr when it does not.
    pub fn start(chromium: &Path, scenario: &str, url_file: &Path) -> Browser {
        let _ = std::fs::remove_file(url_file);
        let mut child = ChildGuard::spawn(
            Command::new("node")
                .arg("drive.mjs")
                .arg(scenario)
                .arg(url_file)
                .current_dir(tests_dir("web"))
                .env("CHROMIUM", chromium)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        )
        .expect("node starts");
        let mut stderr = child.stderr.take().unwrap();
        let errors = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut ready = String::new();
        stdout.read_line(&mut ready).unwrap();
        if ready.trim() != "ready" {
            let _ = child.wait();
            panic!("the browser did not start: {}", errors.join().unwrap());
        }
        Browser {
            child,
            stdout,
            errors,
        }
    }

    /// Stops a browser that would wait for a URL that will never come: the
    /// driver and the Chromium it started (the guard kills its group).
    pub fn kill(self) {
        drop(self);
    }

    /// Waits for the next line the scenario says (after "ready"); panics
    /// with its stderr when it ends first.
    pub fn said_line(&mut self) -> String {
        let mut line = String::new();
        if self.stdout.read_line(&mut line).unwrap() == 0 {
            let _ = self.child.wait();
            panic!("the browser ended: {}", self.errors_so_far());
        }
        line.trim_end().to_string()
    }

    fn errors_so_far(&mut self) -> String {
        let errors = std::mem::replace(&mut self.errors, std::thread::spawn(String::new));
        errors.join().unwrap()
    }

    /// Waits for the end of the scenario.
    pub fn wait(mut self) -> Played {
        let mut said = String::new();
        self.stdout.read_to_string(&mut said).unwrap();
        let status = self.child.wait().unwrap();
        Played {
            status,
            said,
            errors: self.errors,
        }
    }
}

/// How a scenario ended.
pub struct Played {
    status: ExitStatus,
    /// The driver's stdout after "ready".
    said: String,
    errors: JoinHandle<String>,
}

impl Played {
    /// Asserts that the scenario passed; returns what the driver said.
    pub fn assert_passed(self, scenario: &str) -> String {
        assert!(
            self.status.success(),
            "{scenario} in the browser: {}{}",
            self.errors.join().unwrap(),
            self.said
        );
        self.said
    }
}
