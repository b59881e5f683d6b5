//! The terminal face driven in a real pseudo-terminal (rexpect): the JSON
//! arrives on a pipe, the answer leaves on stdout (a file), and the pty is the
//! controlling terminal the questions are asked on. After every exit path a
//! shell in the same pty checks that the terminal settings are back
//! (`stty -g` before and after) and the cursor was shown again. The harness
//! is tests/common/pty.rs.

// Unix only: a pseudo-terminal through rexpect, Unix only; Windows' console is driven by tests/cross/tty_wine.py.
#![cfg(unix)]

mod common;

use std::process::Command;

use common::pty::{Ask, assert_unanswered, start, start_mcp_tty};

const DOWN: &str = "\x1b[B";
const UP: &str = "\x1b[A";
const ESC: &str = "\x1b";
const CTRL_C: &str = "\x03";

const DATABASE: &str = r#"{"question":"Which database?","options":[
  {"label":"PostgreSQL","description":"relational, mature","recommended":true},
  {"label":"SQLite","description":"embedded, single file"},
  {"label":"Redis"}]}"#;

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
    assert_eq!(done.document["answeredBy"], common::answered_by("terminal"));
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

/// An arrow key whose bytes arrive in two reads (ESC, then "[B" a moment
/// later, as over a slow link) is still one arrow, not Esc and two letters.
/// (The gap, 5 ms, is well inside the 25 ms the terminal waits for the rest.)
#[test]
fn an_arrow_split_across_reads_is_one_key() {
    let mut run = start(DATABASE, &[]);
    run.expect("Redis").keys(ESC);
    std::thread::sleep(std::time::Duration::from_millis(5));
    run.keys("[B").expect("SQLite").keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    assert_eq!(done.answers()[0]["values"][0], "SQLite");
    done.assert_terminal_restored();
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

/// A paste arrives as many keys at once: the frame is drawn once they are
/// all handled, not once per key (300 redraws of a growing line over a slow
/// link would be seconds of flicker).
#[test]
fn a_paste_is_drawn_once_not_per_key() {
    let input = r#"{"questions":[{"question":"Name?","type":"text"}]}"#;
    let mut run = start(input, &[]);
    run.expect("Name?");
    let before = run.transcript.len();
    let pasted = "x".repeat(300);
    run.keys(&pasted).expect("xxxxxxxxxx").keys("\r");
    let done = run.finish();
    assert_eq!(done.answers()[0]["values"], serde_json::json!([pasted]));
    // Each frame starts by clearing to the end of the screen.
    let frames = String::from_utf8_lossy(&done.screen[before..])
        .matches("\x1b[J")
        .count();
    assert!(frames < 20, "{frames} frames drawn for one paste and Enter");
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

/// The highlighted row is coloured (cyan) unless NO_COLOR is set and not
/// empty, or the terminal is dumb (the full UI forced with `--ui tty`).
#[test]
fn colour_is_used_unless_no_color_or_a_dumb_terminal() {
    const CYAN: &[u8] = b"\x1b[1;36m";
    for (term, no_color, coloured) in [
        ("xterm-256color", None, true),
        ("xterm-256color", Some(""), true),
        ("xterm-256color", Some("1"), false),
        ("dumb", None, false),
    ] {
        let mut ask = common::pty::Ask::new(DATABASE)
            .args(&["--ui", "tty"])
            .env("TERM", term);
        if let Some(value) = no_color {
            ask = ask.env("NO_COLOR", value);
        }
        let mut run = ask.start();
        run.expect("Redis").keys("\r");
        let done = run.finish();
        assert_eq!(done.code, 0, "{}", done.document);
        let cyan = done.screen.windows(CYAN.len()).any(|w| w == CYAN);
        assert_eq!(cyan, coloured, "TERM={term} NO_COLOR={no_color:?}");
        assert!(
            done.screen.contains(&0x1b),
            "still styled: bold, dim, reverse"
        );
    }
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

/// A form waiting for a key sleeps (no CPU while idle), and a SIGTERM from
/// another process puts the terminal back (settings, cursor) before the
/// process dies of it.
#[test]
fn an_idle_form_sleeps_and_a_sigterm_restores_the_terminal() {
    let dir = common::pty::run_dir();
    let input = dir.join("input.json");
    std::fs::write(&input, DATABASE).unwrap();
    let out = dir.join("out.json");
    let pid_file = dir.join("pid");
    let mut command = common::pty::reporting_shell(
        r#"input=$1 bin=$2 out=$3 pid=$4
cat "$input" | "$bin" ask > "$out" &
echo $! > "$pid"
wait $!"#,
    );
    command
        .arg(&input)
        .arg(common::bin())
        .arg(&out)
        .arg(&pid_file);
    let mut run = common::pty::spawn(command, out);
    run.expect("Redis");
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    let cpu = || common::process::cpu_ticks(pid.parse().unwrap());
    let before = cpu();
    std::thread::sleep(std::time::Duration::from_secs(3));
    let spent = cpu() - before;
    assert!(spent <= 2, "{spent} clock ticks of CPU in 3 idle seconds");
    let status = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(status.success());
    // No document: the process died of the signal (finish() wants one).
    let (shown, rc) = run.session.exp_regex(r"rc=\d+;").unwrap();
    assert_eq!(rc, "rc=143;", "died of SIGTERM: {shown:?}");
    assert!(
        shown.contains("\x1b[?25h"),
        "the cursor is shown again: {shown:?}"
    );
    let (_, restored) = run.session.exp_regex(r"tty=\w+;").unwrap();
    assert_eq!(restored, "tty=restored;");
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
    // The form has 8 s and the first answer comes about halfway: with one
    // deadline for the whole form it ends about 4 s after that answer; a
    // deadline that restarted at the second question would give it 8 s more.
    let input = r#"{"questions":[{"question":"One?","type":"confirm"},{"question":"Two?","type":"confirm"}]}"#;
    let limit = std::time::Duration::from_secs(8);
    let started = std::time::Instant::now();
    let mut run = start(input, &["--timeout", "8"]);
    run.expect("One?");
    // Not a synchronisation: this test needs the form's clock to run.
    std::thread::sleep((limit / 2).saturating_sub(started.elapsed()));
    let answered = std::time::Instant::now();
    run.keys("y").expect("Two?");
    let done = run.finish();
    let after_answer = answered.elapsed();
    assert_unanswered(&done, 124, "timedOut");
    assert!(
        after_answer < limit,
        "the form ended {after_answer:?} after the first answer: its deadline restarted"
    );
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
    // The header leads the question's first row while it is asked.
    assert!(screen.contains("[Database] "), "{screen:?}");
    assert!(screen.contains("✓ Database: PostgreSQL"), "{screen:?}");
    assert!(screen.contains("✓ Features?: Auth"), "{screen:?}");
    assert!(screen.contains("✓ Name?: demo"), "{screen:?}");
    done.assert_terminal_restored();
}

/// A form's context is printed once above several questions (their frames
/// show only each question's own); a single question shows it in its frame,
/// under the question, not above it as well.
#[test]
fn a_forms_context_heads_several_questions_and_sits_under_a_single_one() {
    let input = r#"{"context":"form-wide context","questions":[
        {"question":"First?","type":"confirm"},{"question":"Second?","type":"confirm"}]}"#;
    let mut run = start(input, &[]);
    run.expect("Question 1 of 2")
        .keys("y")
        .expect("Question 2 of 2")
        .keys("y");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    let screen = done.screen_text();
    let context = screen.find("form-wide context");
    let first = screen.find("First?").unwrap();
    assert!(context.is_some_and(|at| at < first), "{screen:?}");

    let input =
        r#"{"context":"the only context","questions":[{"question":"Only?","type":"confirm"}]}"#;
    let mut run = start(input, &[]);
    run.expect("the only context").keys("y");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    let screen = done.screen_text();
    let question = screen.find("Only?").unwrap();
    let context = screen.find("the only context").unwrap();
    assert!(question < context, "the context came first: {screen:?}");
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

/// A terminal that reports no width or no height (0) is taken as 80 × 24:
/// nothing is cut to a zero-wide window, and a list is not squeezed into
/// the smallest frame.
#[test]
fn a_window_without_a_size_is_taken_as_80_by_24() {
    const LONG: &str = "alpha-bravo-charlie-delta-echo-foxtrot";
    let input = serde_json::json!({"question": "Which?", "options": [LONG, "short"]}).to_string();
    for (columns, rows) in [(0, 30), (0, 0)] {
        let mut run = Ask::new(&input).window(columns, rows).start();
        run.expect(LONG).expect("short").keys("\r");
        let done = run.finish();
        assert_eq!(done.answers()[0]["values"][0], LONG, "{columns}×{rows}");
    }
    let options: Vec<String> = ('a'..='j').map(|c| format!("option-{c}")).collect();
    let input = serde_json::json!({"question": "Which?", "options": options}).to_string();
    let mut run = Ask::new(&input).window(100, 0).start();
    run.expect("option-j").keys("\r");
    let done = run.finish();
    assert_eq!(done.answers()[0]["values"][0], "option-a");
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
    // The MCP server's terminal fallback: the person at this terminal.
    assert_eq!(
        call["result"]["structuredContent"]["answeredBy"],
        common::answered_by("terminal")
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

const CTRL_N: &str = "\x0e";

#[test]
fn ctrl_n_adds_a_note_and_the_choice_is_kept() {
    let mut run = start(DATABASE, &[]);
    run.expect("Ctrl-N note")
        .keys(DOWN)
        .keys(CTRL_N)
        .expect("Note:")
        .expect("Enter/Ctrl-N back to the answer")
        .keys("keep SQLite for tests")
        .expect("keep SQLite for tests")
        .keys("\r")
        .expect("Note: keep SQLite for tests")
        .keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    assert_eq!(
        done.answers()[0],
        serde_json::json!({"questionId":"q1","values":["SQLite"],"optionIds":["2"],
                           "note":"keep SQLite for tests"})
    );
    assert!(
        done.screen_text()
            .contains("✓ Which database?: SQLite · note: keep SQLite for tests"),
        "{:?}",
        done.screen_text()
    );
    done.assert_terminal_restored();
}

#[test]
fn letters_in_a_note_are_text_not_keys_and_ctrl_n_closes_it() {
    // In a confirm, n would answer no; in the note line it is a letter.
    let input = r#"{"questions":[{"question":"Deploy now?","type":"confirm"},
        {"question":"Name?","type":"text"}]}"#;
    let mut run = start(input, &[]);
    run.expect("Ctrl-N note")
        .keys(CTRL_N)
        .expect("Note:")
        .keys("not on a friday")
        .expect("not on a friday")
        .keys(CTRL_N)
        .expect("Note: not on a friday")
        .keys("y")
        .expect("Question 2 of 2")
        .keys("ada")
        .keys(CTRL_N)
        .keys("quoted")
        .keys(CTRL_N)
        .expect("Note: quoted")
        .keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    assert_eq!(
        done.answers(),
        &vec![
            serde_json::json!({"questionId":"q1","values":["yes"],"note":"not on a friday"}),
            serde_json::json!({"questionId":"q2","values":["ada"],"note":"quoted"}),
        ]
    );
    done.assert_terminal_restored();
}

#[test]
fn esc_in_the_note_line_cancels_the_form() {
    let mut run = start(DATABASE, &[]);
    run.expect("Ctrl-N note")
        .keys(CTRL_N)
        .expect("Note:")
        .keys("half")
        .expect("half")
        .keys(ESC);
    let done = run.finish();
    assert_unanswered(&done, 130, "cancelled");
}

#[test]
fn bell_rings_and_sends_osc_9_and_osc_777_before_the_form() {
    let hostile = r#"{"title":"Release;x\u0007\u001b]0;pwned","question":"Ship\u0007\u001b]52;c;Zm9v\u0007 now?\nReally?","options":["Yes","No"]}"#;
    let mut run = start(hostile, &["--bell"]);
    run.expect("Really?").keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    let alert =
        "\x07\x1b]9;ask_user: Ship now? Really?\x07\x1b]777;notify;Release,x;Ship now? Really?\x07";
    let screen = done.screen_text();
    let at = screen
        .find(alert)
        .unwrap_or_else(|| panic!("no alert in {screen:?}"));
    assert!(
        at < screen.find("Yes").unwrap(),
        "the alert comes before the form: {screen:?}"
    );
    // Nothing from the input reached the terminal as a control: one BEL for
    // the bell and one ending each OSC, and only our own two OSC strings.
    assert_eq!(screen.matches('\x07').count(), 3, "{screen:?}");
    assert_eq!(screen.matches("\x1b]").count(), 2, "{screen:?}");
    assert!(!screen.contains("pwned") && !screen.contains("Zm9v"));
    done.assert_terminal_restored();
}

#[test]
fn without_bell_nothing_rings() {
    let mut run = start(DATABASE, &[]);
    run.expect("Redis").keys("\r");
    let done = run.finish();
    assert!(!done.screen.contains(&0x07), "{:?}", done.screen_text());
    assert!(!done.screen_text().contains("\x1b]"));
}

/// Runs tests/tty/session.py: `ask ARGS… QUESTION_FILE` on a pty whose
/// session leader ignores SIGHUP, in `mode` (its docstring says which).
fn session(mode: &str, args: &[&str]) -> serde_json::Value {
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "session_{mode}_{}.json",
        args.join("_").replace('-', "")
    ));
    std::fs::write(&file, DATABASE).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/tty/session.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(mode)
        .arg(common::bin())
        .arg("ask")
        .args(args)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["killed"], false,
        "still running after 10 s: {report}"
    );
    report
}

/// The NO_TTY document of a terminal that went away, with `cause` inside.
fn assert_went_away(report: &serde_json::Value, cause: &str) {
    assert_eq!(report["code"], 1, "{report}");
    let document: serde_json::Value =
        serde_json::from_str(report["stdout"].as_str().unwrap()).unwrap();
    assert_eq!(document["error"]["code"], "NO_TTY", "{report}");
    assert_eq!(
        document["error"]["message"],
        format!(
            "the terminal went away while asking ({cause}); run ask again in a terminal, or pass one --reply per question"
        ),
    );
}

#[test]
fn a_hang_up_without_sighup_ends_the_form_with_no_tty_at_once() {
    // Not the session leader, so no SIGHUP: the read finds the end itself,
    // even after a resize's interrupted wait left EINTR as the last error.
    let report = session("hangup", &[]);
    assert_went_away(&report, "the terminal hung up");
}

#[test]
fn a_read_refused_to_a_background_process_group_is_no_tty_not_a_spin() {
    // Outside the foreground group, with SIGTTIN ignored, a read is EIO: an
    // error to report, never one to retry.
    for args in [&[][..], &["--ui", "plain"][..]] {
        let report = session("background", args);
        assert_went_away(&report, "Input/output error (os error 5)");
    }
}
