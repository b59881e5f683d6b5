//! `ask_user ask` in a real pseudo-terminal (rexpect): the JSON arrives on
//! a pipe, the answer leaves on stdout (a file), and the pty is the
//! controlling terminal the questions are asked on. After every exit path a
//! shell in the same pty reports the exit code and checks that the terminal
//! settings are back (`stty -g` before and after). `screen` replays what the
//! pty showed into a terminal emulator (pyte) to see what a person saw.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use rexpect::session::PtySession;
use serde_json::Value;

use super::bin;

pub const SHOW_CURSOR: &str = "\x1b[?25h";

/// One run of `ask_user ask` in a pty, under a shell that reports afterwards.
pub struct Run {
    pub session: PtySession,
    pub out: PathBuf,
    /// Everything the pty showed so far, byte for byte.
    pub transcript: Vec<u8>,
}

pub struct Finished {
    pub code: i32,
    pub document: Value,
    /// The pty's bytes from the start until the exit code was printed.
    pub screen: Vec<u8>,
    pub restored: bool,
    pub modes: String,
}

impl Finished {
    pub fn screen_text(&self) -> String {
        String::from_utf8_lossy(&self.screen).into_owned()
    }

    pub fn assert_terminal_restored(&self) {
        self.assert_settings_restored();
        assert!(
            self.screen_text().contains(SHOW_CURSOR),
            "the cursor was not shown again: {:?}",
            self.screen_text()
        );
    }

    /// `stty -g` as before, in cooked mode (plain mode writes no cursor show).
    pub fn assert_settings_restored(&self) {
        assert!(
            self.restored,
            "terminal settings changed: {}; screen: {:?}",
            self.modes,
            self.screen_text()
        );
        assert!(
            self.modes.split(' ').any(|m| m == "icanon") && self.modes.contains("isig"),
            "cooked mode not back: {}",
            self.modes
        );
    }

    pub fn answers(&self) -> &Vec<Value> {
        self.document["answers"].as_array().expect("answers array")
    }
}

/// A fresh folder for one run's files.
pub fn run_dir() -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "pty-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn start(input: &str, args: &[&str]) -> Run {
    Ask::new(input).args(args).start()
}

/// One `ask_user ask` run to start in a pty: its arguments, environment and
/// window size.
pub struct Ask<'a> {
    input: &'a str,
    args: Vec<&'a str>,
    env: Vec<(&'a str, &'a str)>,
    window: (usize, usize),
    /// Pass the input as a FILE argument instead of on stdin.
    as_file: bool,
}

impl<'a> Ask<'a> {
    pub fn new(input: &'a str) -> Self {
        Ask {
            input,
            args: Vec::new(),
            env: Vec::new(),
            window: (100, 30),
            as_file: false,
        }
    }

    pub fn args(mut self, args: &[&'a str]) -> Self {
        self.args.extend_from_slice(args);
        self
    }

    pub fn env(mut self, name: &'a str, value: &'a str) -> Self {
        self.env.push((name, value));
        self
    }

    /// Columns and rows of the pty.
    pub fn window(mut self, columns: usize, rows: usize) -> Self {
        self.window = (columns, rows);
        self
    }

    pub fn input_as_file(mut self) -> Self {
        self.as_file = true;
        self
    }

    pub fn start(self) -> Run {
        let dir = run_dir();
        let input_path = dir.join("input.json");
        std::fs::write(&input_path, self.input).unwrap();
        let out = dir.join("out.json");
        // stdin is a pipe (cat), stdout a file; the pty is stderr and /dev/tty.
        let command = if self.as_file {
            r#"input=$1 bin=$2 out=$3
shift 3
tty > "$out.tty"
"$bin" ask "$input" "$@" > "$out""#
        } else {
            r#"input=$1 bin=$2 out=$3
shift 3
tty > "$out.tty"
cat "$input" | "$bin" ask "$@" > "$out""#
        };
        let mut cmd = reporting_shell_sized(command, self.window);
        cmd.arg(&input_path).arg(bin()).arg(&out).args(&self.args);
        for (name, value) in &self.env {
            cmd.env(name, value);
        }
        spawn(cmd, out)
    }
}

/// A shell that runs `command` (its arguments in "$@") in a window of 100
/// columns and 30 rows, then reports the exit code, whether `stty -g` is
/// unchanged, and the terminal modes that matter.
pub fn reporting_shell(command: &str) -> Command {
    reporting_shell_sized(command, (100, 30))
}

/// As [`reporting_shell`], in a window of `columns` × `rows`. The shell
/// itself outlives a Ctrl-C (its trap), which the terminal sends to every
/// process in the foreground group, so that it can still report.
pub fn reporting_shell_sized(command: &str, (columns, rows): (usize, usize)) -> Command {
    let script = format!(
        r#"
trap 'true' INT
stty cols {columns} rows {rows}
before=$(stty -g)
{command}
echo "rc=$?;"
after=$(stty -g)
if [ "$before" = "$after" ]; then echo "tty=restored;"; else echo "tty=changed;"; fi
echo "modes=$(stty -a | tr ' ;' '\n\n' | grep -E '^-?(icanon|echo|isig)$' | tr '\n' ' ');"
"#
    );
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(script)
        .arg("sh")
        .env_remove("NO_COLOR")
        .env_remove("ASK_USER_UI");
    cmd
}

pub fn spawn(cmd: Command, out: PathBuf) -> Run {
    let session = rexpect::session::spawn_command(cmd, Some(10_000)).expect("spawn in a pty");
    Run {
        session,
        out,
        transcript: Vec::new(),
    }
}

/// `ask_user mcp --fallback tty` in a pty, driven over its stdio by
/// tests/tty/mcp_driver.py (`answer` or `cancel`); the pty is the terminal
/// the form is drawn on. The "document" is the driver's report.
pub fn start_mcp_tty(mode: &str) -> (Run, PathBuf) {
    let dir = run_dir();
    let out = dir.join("out.json");
    let marker = dir.join("form-seen");
    let mut cmd = reporting_shell(r#"python3 "$@""#);
    cmd.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/tty/mcp_driver.py"
    ))
    .arg(bin())
    .arg(&out)
    .arg(&marker)
    .arg(mode);
    (spawn(cmd, out), marker)
}

impl Run {
    /// Waits until `needle` (ASCII) is on screen.
    pub fn expect(&mut self, needle: &str) -> &mut Self {
        match self.session.exp_string(needle) {
            Ok(before) => {
                self.record(&before);
                self.record(needle);
            }
            Err(e) => panic!(
                "{needle:?} never appeared ({e}); screen: {:?}",
                String::from_utf8_lossy(&self.transcript)
            ),
        }
        self
    }

    /// rexpect hands back each byte as one char.
    pub fn record(&mut self, text: &str) {
        self.transcript.extend(text.chars().map(|c| c as u32 as u8));
    }

    /// Sends keys as one write (an escape sequence must arrive whole).
    /// The window's new size, set from outside as a terminal emulator does
    /// (the kernel sends SIGWINCH).
    pub fn resize(&mut self, columns: usize, rows: usize) -> &mut Self {
        let tty = std::fs::read_to_string(self.out.with_extension("json.tty")).unwrap();
        let status = Command::new("stty")
            .args(["-F", tty.trim()])
            .args(["cols", &columns.to_string(), "rows", &rows.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        self
    }

    pub fn keys(&mut self, keys: &str) -> &mut Self {
        self.session.send(keys).unwrap();
        self.session.flush().unwrap();
        self
    }

    pub fn finish(&mut self) -> Finished {
        let (before, matched) = self.session.exp_regex(r"rc=\d+;").unwrap_or_else(|e| {
            panic!(
                "no exit ({e}); screen: {:?}",
                String::from_utf8_lossy(&self.transcript)
            )
        });
        self.record(&before);
        let code = matched[3..matched.len() - 1].parse().unwrap();
        let screen = self.transcript.clone();
        let (_, restored) = self.session.exp_regex(r"tty=\w+;").unwrap();
        let (_, modes) = self.session.exp_regex(r"modes=[^;]*;").unwrap();
        self.session.exp_eof().unwrap();
        let text = std::fs::read_to_string(&self.out).unwrap();
        assert!(
            text.ends_with('\n') && text.matches('\n').count() == 1,
            "one line: {text:?}"
        );
        Finished {
            code,
            document: serde_json::from_str(&text).unwrap(),
            screen,
            restored: restored == "tty=restored;",
            modes: modes.to_string(),
        }
    }
}

pub fn assert_unanswered(done: &Finished, code: i32, flag: &str) {
    assert_eq!(done.code, code, "{}", done.document);
    assert_eq!(done.document["status"], "ok");
    assert_eq!(done.document["answered"], false);
    assert_eq!(done.document[flag], true);
    let other = if flag == "cancelled" {
        "timedOut"
    } else {
        "cancelled"
    };
    assert_eq!(done.document[other], false);
    assert_eq!(done.answers().len(), 0, "{}", done.document);
    done.assert_terminal_restored();
}

/// The screen a person saw: the rows of the window (trailing blanks cut)
/// and the cursor.
#[derive(Debug)]
pub struct Screen {
    pub rows: Vec<String>,
    pub cursor: (usize, usize),
}

impl Screen {
    /// The rows that hold something.
    pub fn filled(&self) -> Vec<&str> {
        self.rows
            .iter()
            .map(String::as_str)
            .filter(|r| !r.trim().is_empty())
            .collect()
    }

    /// How many rows contain `needle`.
    pub fn count(&self, needle: &str) -> usize {
        self.rows.iter().filter(|r| r.contains(needle)).count()
    }
}

/// How a terminal treats its rows when the window gets narrower.
#[derive(Debug, Clone, Copy)]
pub enum Resize {
    /// Lines are wrapped again at the new width (VTE, kitty, iTerm2, tmux…).
    Reflow,
    /// Rows keep their place and lose what no longer fits (xterm).
    Cut,
}

/// `bytes` (a pty's output) replayed into pyte in a window of `columns` ×
/// `rows`; with `resize`, the window becomes `(offset, new_columns, how)`:
/// the first `offset` bytes are drawn before it. Without pyte the test ends
/// as ignored, a failure under CI (`.ci/setup-tty.sh` installs it).
pub fn screen(
    bytes: &[u8],
    (columns, rows): (usize, usize),
    resize: Option<(usize, usize, Resize)>,
) -> Screen {
    let python = super::clients::pyte_python();
    let path = run_dir().join("transcript.bin");
    std::fs::write(&path, bytes).unwrap();
    let mut cmd = Command::new(python);
    cmd.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/tty/screen.py"))
        .arg(&path)
        .arg(columns.to_string())
        .arg(rows.to_string());
    if let Some((offset, new_columns, how)) = resize {
        let how = match how {
            Resize::Reflow => "reflow",
            Resize::Cut => "cut",
        };
        cmd.args([
            "--resize",
            &offset.to_string(),
            &new_columns.to_string(),
            how,
        ]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "screen.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["display"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect();
    let cursor = (
        json["cursor"][0].as_u64().unwrap() as usize,
        json["cursor"][1].as_u64().unwrap() as usize,
    );
    Screen { rows, cursor }
}
