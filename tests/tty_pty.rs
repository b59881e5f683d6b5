//! The terminal face driven in a real pseudo-terminal (rexpect): the JSON
//! arrives on a pipe, the answer leaves on stdout (a file), and the pty is the
//! controlling terminal the questions are asked on. After every exit path a
//! shell in the same pty checks that the terminal settings are back
//! (`stty -g` before and after) and the cursor was shown again.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use rexpect::session::PtySession;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_ask_user");
const SHOW_CURSOR: &str = "\x1b[?25h";
const DOWN: &str = "\x1b[B";
const UP: &str = "\x1b[A";
const ESC: &str = "\x1b";
const CTRL_C: &str = "\x03";

const DATABASE: &str = r#"{"question":"Which database?","options":[
  {"label":"PostgreSQL","description":"relational, mature","recommended":true},
  {"label":"SQLite","description":"embedded, single file"},
  {"label":"Redis"}]}"#;

/// One run of `ask_user ask` in a pty, under a shell that reports afterwards.
struct Run {
    session: PtySession,
    out: PathBuf,
    /// Everything the pty showed so far, byte for byte.
    transcript: Vec<u8>,
}

struct Finished {
    code: i32,
    document: Value,
    /// The pty's bytes from the start until the exit code was printed.
    screen: Vec<u8>,
    restored: bool,
    modes: String,
}

impl Finished {
    fn screen_text(&self) -> String {
        String::from_utf8_lossy(&self.screen).into_owned()
    }

    fn assert_terminal_restored(&self) {
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
        assert!(
            self.screen_text().contains(SHOW_CURSOR),
            "the cursor was not shown again: {:?}",
            self.screen_text()
        );
    }

    fn answers(&self) -> &Vec<Value> {
        self.document["answers"].as_array().expect("answers array")
    }
}

/// A fresh folder for one run's files.
fn run_dir() -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "pty-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn start(input: &str, args: &[&str]) -> Run {
    let dir = run_dir();
    let input_path = dir.join("input.json");
    std::fs::write(&input_path, input).unwrap();
    let out = dir.join("out.json");
    // stdin is a pipe (cat), stdout a file; the pty is stderr and /dev/tty.
    let command = r#"input=$1 bin=$2 out=$3
shift 3
tty > "$out.tty"
cat "$input" | "$bin" ask "$@" > "$out""#;
    let mut cmd = reporting_shell(command);
    cmd.arg(&input_path).arg(BIN).arg(&out).args(args);
    spawn(cmd, out)
}

/// A shell that runs `command` (its arguments in "$@") in a window of 100
/// columns, then reports the exit code, whether `stty -g` is unchanged, and
/// the terminal modes that matter.
fn reporting_shell(command: &str) -> Command {
    let script = format!(
        r#"
stty cols 100 rows 30
before=$(stty -g)
{command}
echo "rc=$?;"
after=$(stty -g)
if [ "$before" = "$after" ]; then echo "tty=restored;"; else echo "tty=changed;"; fi
echo "modes=$(stty -a | tr ' ;' '\n\n' | grep -E '^-?(icanon|echo|isig)$' | tr '\n' ' ');"
"#
    );
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(script).arg("sh").env_remove("NO_COLOR");
    cmd
}

fn spawn(cmd: Command, out: PathBuf) -> Run {
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
fn start_mcp_tty(mode: &str) -> (Run, PathBuf) {
    let dir = run_dir();
    let out = dir.join("out.json");
    let marker = dir.join("form-seen");
    let mut cmd = reporting_shell(r#"python3 "$@""#);
    cmd.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/tty/mcp_driver.py"
    ))
    .arg(BIN)
    .arg(&out)
    .arg(&marker)
    .arg(mode);
    (spawn(cmd, out), marker)
}

impl Run {
    /// Waits until `needle` (ASCII) is on screen.
    fn expect(&mut self, needle: &str) -> &mut Self {
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
    fn record(&mut self, text: &str) {
        self.transcript.extend(text.chars().map(|c| c as u32 as u8));
    }

    /// Sends keys as one write (an escape sequence must arrive whole).
    fn keys(&mut self, keys: &str) -> &mut Self {
        self.session.send(keys).unwrap();
        self.session.flush().unwrap();
        self
    }

    fn finish(&mut self) -> Finished {
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

fn assert_unanswered(done: &Finished, code: i32, flag: &str) {
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

#[test]
fn arrow_down_and_enter_choose_an_option() {
    let mut run = start(DATABASE, &[]);
    run.expect("Redis").keys(DOWN).expect("SQLite").keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0);
    assert_eq!(
        done.document["answers"][0],
        serde_json::json!({"questionId":"q1","values":["SQLite"],"optionIds":["2"]})
    );
    assert_eq!(done.document["answered"], true);
    done.assert_terminal_restored();
}

#[test]
fn descriptions_are_shown_under_their_labels_and_the_recommended_option_is_preselected() {
    let mut run = start(DATABASE, &[]);
    run.expect("Redis").keys("\r");
    let done = run.finish();
    let screen = done.screen_text();
    let label = screen.find("PostgreSQL").unwrap();
    let description = screen.find("relational, mature").unwrap();
    let next = screen.find("SQLite").unwrap();
    assert!(label < description && description < next, "{screen:?}");
    assert!(screen.contains("(recommended)"));
    assert_eq!(done.answers()[0]["values"][0], "PostgreSQL");
}

#[test]
fn vim_keys_and_digits_move_the_cursor() {
    let mut run = start(DATABASE, &[]);
    run.expect("Redis").keys("j").keys("j").keys("k").keys("\r");
    assert_eq!(run.finish().answers()[0]["values"][0], "SQLite");

    let mut run = start(DATABASE, &[]);
    run.expect("Redis").keys("3").keys("\r");
    assert_eq!(run.finish().answers()[0]["optionIds"][0], "3");
}

#[test]
fn the_default_option_is_preselected() {
    let input = r#"{"question":"Pick","options":["alpha","beta","gamma"],"default":"gamma"}"#;
    let mut run = start(input, &[]);
    run.expect("gamma").keys("\r");
    assert_eq!(run.finish().answers()[0]["values"][0], "gamma");
}

#[test]
fn space_toggles_in_a_multi_select_and_enter_confirms() {
    let input =
        r#"{"question":"Features?","multi_select":true,"options":["Auth","Cache","Search"]}"#;
    let mut run = start(input, &[]);
    run.expect("Search")
        .keys(" ")
        .keys(DOWN)
        .keys(DOWN)
        .keys(" ")
        .keys(UP)
        .keys(" ")
        .keys(" ")
        .keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0);
    assert_eq!(
        done.answers()[0],
        serde_json::json!({"questionId":"q1","values":["Auth","Search"],"optionIds":["1","3"]})
    );
    done.assert_terminal_restored();
}

#[test]
fn a_required_multi_select_needs_one_option() {
    let input = r#"{"question":"Features?","multi_select":true,"options":["Auth","Cache"]}"#;
    let mut run = start(input, &[]);
    run.expect("Cache")
        .keys("\r")
        .expect("Choose at least one option")
        .keys(DOWN)
        .keys(" ")
        .keys("\r");
    assert_eq!(
        run.finish().answers()[0]["values"],
        serde_json::json!(["Cache"])
    );
}

#[test]
fn other_leads_to_typed_text() {
    let input = r#"{"question":"Cache?","allow_other":true,"options":["Memcached","None"]}"#;
    let mut run = start(input, &[]);
    run.expect("Other")
        .keys(UP)
        .expect("type your answer")
        .keys("use Redis")
        .expect("use Redis")
        .keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0);
    assert_eq!(
        done.answers()[0],
        serde_json::json!({"questionId":"q1","values":["use Redis"],"optionIds":[],"customText":"use Redis"})
    );
    done.assert_terminal_restored();
}

#[test]
fn other_in_a_multi_select_joins_the_chosen_options() {
    let input = r#"{"questions":[{"question":"Which?","header":"Stack","multiSelect":true,
        "options":[{"label":"Rust","description":"fast"},{"label":"Go","description":"simple"}]}]}"#;
    let mut run = start(input, &[]);
    run.expect("Other")
        .keys(" ")
        .keys(DOWN)
        .keys(DOWN)
        .expect("type your answer")
        .keys("Zig and C")
        .expect("Zig and C")
        .keys("\r");
    assert_eq!(
        run.finish().answers()[0],
        serde_json::json!({"questionId":"q1","values":["Rust","Zig and C"],"optionIds":["1"],"customText":"Zig and C"})
    );
}

#[test]
fn text_with_a_default_takes_it_on_an_empty_enter() {
    let input = r#"{"questions":[{"question":"Name?","type":"text","placeholder":"my-app","default":"demo"}]}"#;
    let mut run = start(input, &[]);
    run.expect("my-app").keys("\r");
    let done = run.finish();
    assert_eq!(done.answers()[0]["values"], serde_json::json!(["demo"]));
    done.assert_terminal_restored();
}

#[test]
fn text_is_edited_and_required() {
    let input = r#"{"questions":[{"question":"Name?","type":"text"}]}"#;
    let mut run = start(input, &[]);
    run.expect("Name?")
        .keys("\r")
        .expect("An answer is required")
        .keys("hello wurld")
        .expect("wurld")
        .keys("\x7f\x7f\x7f\x7f")
        .keys("orld")
        .expect("orld")
        .keys("\r");
    assert_eq!(
        run.finish().answers()[0]["values"],
        serde_json::json!(["hello world"])
    );
}

#[test]
fn a_text_question_that_is_not_required_can_be_skipped() {
    let input = r#"{"questions":[{"question":"Notes?","type":"text","required":false}]}"#;
    let mut run = start(input, &[]);
    run.expect("empty skips").keys("\r");
    assert_eq!(
        run.finish().answers()[0],
        serde_json::json!({"questionId":"q1","values":[]})
    );
}

#[test]
fn confirm_answers_with_y_n_or_its_default() {
    let input = r#"{"prompt":"Proceed?","type":"confirm"}"#;
    let mut run = start(input, &[]);
    run.expect("Proceed?").keys("n");
    let done = run.finish();
    assert_eq!(done.answers()[0]["values"], serde_json::json!(["no"]));
    done.assert_terminal_restored();

    let input = r#"{"prompt":"Proceed?","type":"confirm","default":"yes"}"#;
    let mut run = start(input, &[]);
    run.expect("Proceed?").keys("\r");
    assert_eq!(
        run.finish().answers()[0]["values"],
        serde_json::json!(["yes"])
    );

    let mut run = start(input, &[]);
    run.expect("Proceed?").keys("\x1b[C").keys("\r");
    assert_eq!(
        run.finish().answers()[0]["values"],
        serde_json::json!(["no"])
    );
}

#[test]
fn esc_cancels_a_select() {
    let mut run = start(DATABASE, &[]);
    run.expect("Redis").keys(DOWN).expect("SQLite").keys(ESC);
    assert_unanswered(&run.finish(), 130, "cancelled");
}

#[test]
fn esc_cancels_text_input() {
    let input = r#"{"questions":[{"question":"Name?","type":"text"}]}"#;
    let mut run = start(input, &[]);
    run.expect("Name?").keys("abc").expect("abc").keys(ESC);
    assert_unanswered(&run.finish(), 130, "cancelled");
}

#[test]
fn q_cancels_a_select_and_a_confirm() {
    let mut run = start(DATABASE, &[]);
    run.expect("Redis").keys("q");
    assert_unanswered(&run.finish(), 130, "cancelled");

    let mut run = start(r#"{"prompt":"Go?","type":"confirm"}"#, &[]);
    run.expect("Go?").keys("q");
    assert_unanswered(&run.finish(), 130, "cancelled");
}

#[test]
fn ctrl_c_cancels_and_restores_the_terminal() {
    let mut run = start(DATABASE, &[]);
    run.expect("Redis").keys(CTRL_C);
    assert_unanswered(&run.finish(), 130, "cancelled");

    let input = r#"{"questions":[{"question":"Name?","type":"text"}]}"#;
    let mut run = start(input, &[]);
    run.expect("Name?").keys("x").expect("x").keys(CTRL_C);
    assert_unanswered(&run.finish(), 130, "cancelled");
}

#[test]
fn timeout_gives_timed_out_never_the_default() {
    // The input's own timeout (10 s) is overridden by --timeout.
    let input =
        r#"{"question":"Pick","options":["alpha","beta"],"default":"beta","timeout":10000}"#;
    let started = std::time::Instant::now();
    let mut run = start(input, &["--timeout", "0.4"]);
    run.expect("beta");
    let done = run.finish();
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_unanswered(&done, 124, "timedOut");
}

#[test]
fn timeout_covers_the_whole_form() {
    let input = r#"{"questions":[{"question":"One?","type":"confirm"},{"question":"Two?","type":"confirm"}]}"#;
    let mut run = start(input, &["--timeout", "1.5"]);
    run.expect("One?").keys("y").expect("Two?");
    assert_unanswered(&run.finish(), 124, "timedOut");
}

#[test]
fn several_questions_are_asked_in_turn_and_summarized() {
    let input = r#"{"title":"Project setup","questions":[
        {"question":"Which database?","header":"Database","options":["PostgreSQL","SQLite"]},
        {"question":"Features?","multiSelect":true,"options":["Auth","Cache"]},
        {"id":"name","question":"Name?","type":"text"}]}"#;
    let mut run = start(input, &[]);
    run.expect("Project setup")
        .expect("Question 1 of 3")
        .expect("SQLite")
        .keys("\r")
        .expect("Question 2 of 3")
        .expect("Cache")
        .keys(" ")
        .keys("\r")
        .expect("Question 3 of 3")
        .keys("demo")
        .expect("demo")
        .keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0);
    assert_eq!(
        done.document["answers"],
        serde_json::json!([
            {"questionId":"q1","values":["PostgreSQL"],"optionIds":["1"]},
            {"questionId":"q2","values":["Auth"],"optionIds":["1"]},
            {"questionId":"name","values":["demo"]}])
    );
    let screen = done.screen_text();
    assert!(screen.contains("✓ Database: PostgreSQL"), "{screen:?}");
    assert!(screen.contains("✓ Features?: Auth"), "{screen:?}");
    assert!(screen.contains("✓ Name?: demo"), "{screen:?}");
    done.assert_terminal_restored();
}

#[test]
fn a_hostile_label_reaches_the_terminal_only_as_harmless_text() {
    let input = serde_json::json!({
        "question": "Pick \u{1b}[2J one",
        "context": "ctx \u{1b}]0;ctx-title\u{7}here",
        "options": [
            {"label": "safe\u{1b}]0;pwned\u{7}label", "description": "wipe\u{1b}[2Jdesc\u{9b}2J"},
            {"label": "move\u{1b}[10;1Hd\u{202e}rtl"},
        ]
    })
    .to_string();
    let mut run = start(&input, &[]);
    run.expect("safelabel").expect("movedrtl").keys("\r");
    let done = run.finish();
    let screen = &done.screen;
    let contains = |needle: &[u8]| screen.windows(needle.len()).any(|w| w == needle);
    assert!(!contains(b"\x1b]"), "an OSC sequence reached the terminal");
    assert!(!contains(b"pwned") && !contains(b"ctx-title"));
    assert!(!contains(b"\x1b[2J"), "a clear-screen reached the terminal");
    assert!(
        !contains(b"\x1b[10;1H"),
        "a cursor move reached the terminal"
    );
    assert!(!contains("\u{9b}".as_bytes()) && !contains("\u{202e}".as_bytes()));
    assert!(contains(b"wipedesc") && contains(b"ctx here"));
    // The document keeps the text as given: JSON escaping is exact.
    assert_eq!(
        done.answers()[0]["values"][0],
        "safe\u{1b}]0;pwned\u{7}label"
    );
    done.assert_terminal_restored();
}

#[test]
fn a_resized_window_is_drawn_again_at_once() {
    const LONG: &str = "alpha-bravo-charlie-delta-echo-foxtrot-golf-hotel-india-juliet";
    const ELLIPSIS: &str = "\u{e2}\u{80}\u{a6}"; // "…" as rexpect sees it: one char per byte
    let input = serde_json::json!({"question": "Which?", "options": [LONG, "short"]}).to_string();
    let mut run = start(&input, &[]);
    run.expect("india-juliet").expect("short");
    assert!(
        !String::from_utf8_lossy(&run.transcript).contains('…'),
        "nothing is cut at 100 columns"
    );
    // Narrow the window from outside, as a terminal emulator does: the kernel
    // sends SIGWINCH, and the frame must fit before any key is pressed.
    let tty = std::fs::read_to_string(run.out.with_extension("json.tty")).unwrap();
    let status = Command::new("stty")
        .args(["-F", tty.trim(), "cols", "30"])
        .status()
        .unwrap();
    assert!(status.success());
    run.expect("alpha-bravo-charlie")
        .expect(ELLIPSIS)
        .keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    assert_eq!(done.answers()[0]["values"][0], LONG);
    done.assert_terminal_restored();
}

#[test]
fn mcp_fallback_tty_asks_on_the_terminal() {
    let (mut run, _) = start_mcp_tty("answer");
    run.expect("Redis").keys(DOWN).expect("SQLite").keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    let call = &done.document["received"][0];
    assert_eq!(call["id"], 7, "{call}");
    assert_eq!(call["result"]["isError"], false);
    assert_eq!(
        call["result"]["structuredContent"]["answers"],
        serde_json::json!([{"questionId":"q1","values":["SQLite"],"optionIds":["2"]}])
    );
    assert_eq!(done.document["server_rc"], 0);
    done.assert_terminal_restored();
}

#[test]
fn mcp_fallback_tty_ends_the_form_when_the_client_cancels_the_call() {
    let (mut run, marker) = start_mcp_tty("cancel");
    run.expect("Redis");
    std::fs::write(&marker, "").unwrap();
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    // No response for the cancelled call (id 7): the first message is the ping's.
    let received = done.document["received"].as_array().unwrap();
    assert_eq!(received.len(), 1, "{received:?}");
    assert_eq!(received[0]["id"], 8);
    assert_eq!(received[0]["result"], serde_json::json!({}));
    assert_eq!(done.document["server_rc"], 0);
    assert!(
        done.screen_text().contains("Cancelled"),
        "{:?}",
        done.screen_text()
    );
    done.assert_terminal_restored();
}
