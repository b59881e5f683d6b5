// The body of tests/tty_screen.rs, which includes it on Unix only.

use common::pty::{Ask, Resize, Run, Screen, screen};

const UP: &str = "\x1b[A";
const CTRL_J: &str = "\n";
const ALT_ENTER: &str = "\x1b\r";
/// The end of every frame: its last hint row ("… · Esc cancel", dim), then
/// the cursor parked at the start of that row.
const FRAME_END: &str = "Esc cancel\x1b[0m\r";

/// The screen after everything the pty has shown so far.
fn seen(run: &Run, window: (usize, usize)) -> Screen {
    screen(&run.transcript, window, None)
}

fn ctrl_j_and_alt_enter_start_new_lines_in_a_text_answer() {
    let input = r#"{"questions":[{"question":"Release notes?","type":"text"}]}"#;
    let mut run = Ask::new(input).start();
    run.expect("Ctrl-J new line")
        .keys("first line")
        .keys(CTRL_J)
        .keys("second")
        .keys(ALT_ENTER)
        .keys("third")
        .expect("third");
    let window = (100, 30);
    let screen = seen(&run, window);
    let at = screen
        .rows
        .iter()
        .position(|r| r.contains("first line"))
        .unwrap();
    assert_eq!(screen.rows[at].trim_end(), "› first line", "{screen:?}");
    assert_eq!(screen.rows[at + 1].trim_end(), "  second", "{screen:?}");
    assert_eq!(screen.rows[at + 2].trim_end(), "  third", "{screen:?}");
    run.keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    assert_eq!(
        done.answers()[0]["values"],
        serde_json::json!(["first line\nsecond\nthird"])
    );
    done.assert_terminal_restored();
}

fn other_takes_several_lines_too() {
    let input = r#"{"question":"Cache?","allow_other":true,"options":["Memcached","None"]}"#;
    let mut run = Ask::new(input).start();
    run.expect("Other")
        .keys(UP)
        .expect("Ctrl-J new line")
        .keys("use Redis")
        .keys(CTRL_J)
        .keys("with a TTL")
        .expect("with a TTL");
    {
        let screen = seen(&run, (100, 30));
        let at = screen
            .rows
            .iter()
            .position(|r| r.contains("use Redis"))
            .unwrap();
        assert_eq!(
            screen.rows[at].trim_end(),
            "❯ Other: use Redis",
            "{screen:?}"
        );
        // The second line lines up under the first.
        assert_eq!(
            screen.rows[at + 1].trim_end(),
            "         with a TTL",
            "{screen:?}"
        );
    }
    run.keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    assert_eq!(
        done.answers()[0],
        serde_json::json!({"questionId":"q1","values":["use Redis\nwith a TTL"],"optionIds":[],
            "customText":"use Redis\nwith a TTL"})
    );
}

fn a_tall_answer_scrolls_within_the_window() {
    let input = r#"{"questions":[{"question":"Notes?","type":"text"}]}"#;
    let window = (100, 10);
    let mut run = Ask::new(input).window(window.0, window.1).start();
    run.expect(FRAME_END);
    let lines: Vec<String> = (1..=15).map(|i| format!("line-{i:02}")).collect();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            run.keys(CTRL_J);
        }
        run.keys(line).expect(line).expect(FRAME_END);
    }
    let check = |run: &Run, cursor_line: &str, hidden: &str| {
        let screen = seen(run, window);
        let filled = screen.filled();
        assert!(filled.len() <= window.1, "{screen:?}");
        assert!(
            filled[0].starts_with("? Notes?"),
            "the question stays: {screen:?}"
        );
        assert!(filled.last().unwrap().contains("Esc cancel"), "{screen:?}");
        assert_eq!(screen.count(cursor_line), 1, "{screen:?}");
        assert_eq!(screen.count(hidden), 0, "{screen:?}");
    };
    check(&run, "line-15", "line-01");
    for _ in 0..10 {
        run.keys(UP).expect(FRAME_END);
    }
    check(&run, "line-05", "line-15");
    run.keys("\r");
    let done = run.finish();
    assert_eq!(done.answers()[0]["values"][0], lines.join("\n"));
    done.assert_terminal_restored();
}

fn answered_questions_stay_above_as_a_trail_cut_to_the_window() {
    let input = r#"{"questions":[
        {"question":"First?","header":"One","type":"confirm"},
        {"question":"Second?","header":"Two","type":"confirm"},
        {"question":"Third?","header":"Three","type":"confirm"},
        {"question":"A fourth question without a header?","type":"confirm"},
        {"question":"Which one?","header":"Five","options":["alpha","beta","gamma","delta"]}]}"#;
    let window = (100, 10);
    let mut run = Ask::new(input).window(window.0, window.1).start();
    run.expect("Question 1 of 5").keys("y");
    run.expect("Question 2 of 5").keys("n");
    run.expect("Question 3 of 5").expect(FRAME_END);
    {
        let screen = seen(&run, window);
        assert_eq!(
            &screen.filled()[..3],
            ["✓ One: yes", "✓ Two: no", "Question 3 of 5"],
            "{screen:?}"
        );
    }
    run.keys("y");
    run.expect("Question 4 of 5").keys("n");
    run.expect("Question 5 of 5").expect(FRAME_END);
    {
        let screen = seen(&run, window);
        // 9 rows for the frame: the question needs 8 (4 options, Other and
        // the hints), so the trail keeps only its most recent line.
        let filled = screen.filled();
        assert_eq!(
            &filled[..2],
            [
                "✓ A fourth question without a header?: no",
                "Question 5 of 5"
            ],
            "{screen:?}"
        );
        assert_eq!(filled.len(), 9, "{screen:?}");
        for gone in ["✓ One", "✓ Two", "✓ Three"] {
            assert_eq!(screen.count(gone), 0, "{screen:?}");
        }
        assert!(filled[8].contains("Esc cancel"), "{screen:?}");
    }
    run.keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    assert_eq!(done.answers().len(), 5);
    done.assert_terminal_restored();
}

const WIDE: &str = r#"{"title":"Pick a stack","question":"Which stack should the new service use?","options":[
  {"label":"Rust with tokio, axum and sqlx on PostgreSQL, deployed as one static binary","description":"fast, strict, a little slower to write; the team knows it from the ingest service"},
  {"label":"Go with the standard library and pgx, deployed in a distroless container","description":"simple and quick to build; fewer guarantees about data races and nil values"},
  {"label":"Python with FastAPI and SQLAlchemy","description":"quickest to write"}]}"#;

/// A frame drawn at 80 columns, the window narrowed to 40, the frame drawn
/// again: on the screen of a terminal that reflows and of one that cuts,
/// exactly the new frame, with no row of the old one left anywhere.
fn narrowing_the_window_leaves_no_rows_of_the_old_frame() {
    let (rows, before, after) = (24, 80, 40);
    let mut run = Ask::new(WIDE).window(before, rows).start();
    run.expect(FRAME_END);
    let offset = run.transcript.len();
    run.resize(after, rows).expect(FRAME_END);
    let drawn_fresh = screen(&run.transcript[offset..], (after, rows), None);
    let new_frame = drawn_fresh.filled();
    assert!(new_frame.iter().any(|r| r.contains("Which stack")));
    for how in [Resize::Reflow, Resize::Cut] {
        let seen = screen(&run.transcript, (before, rows), Some((offset, after, how)));
        let filled = seen.filled();
        let frame_rows = &filled[filled.len() - new_frame.len()..];
        assert_eq!(frame_rows, new_frame.as_slice(), "{how:?}: {seen:?}");
        let above = &filled[..filled.len() - new_frame.len()];
        match how {
            // The title above the frame is kept whole: the erase went back
            // exactly to the frame's first row.
            Resize::Reflow => assert_eq!(above, ["Pick a stack"], "{seen:?}"),
            // Here the erase counts rows the terminal did not wrap, and goes
            // higher: the title may go, but nothing of the old frame stays.
            Resize::Cut => assert!(
                above.iter().all(|r| r.starts_with("Pick a stack")),
                "{seen:?}"
            ),
        }
    }
    // The model is not blind: erasing as many rows as the frame has lines
    // (what the UI did before) leaves rows behind on a reflowing terminal.
    let lines = String::from_utf8_lossy(&run.transcript[..offset])
        .rsplit("\x1b[J")
        .next()
        .unwrap()
        .split('\n')
        .count();
    let redraw = String::from_utf8_lossy(&run.transcript[offset..]).into_owned();
    let (up, rest) = redraw.split_once('A').unwrap();
    assert!(up.starts_with("\x1b["), "{redraw:?}");
    let naive = [
        &run.transcript[..offset],
        format!("\x1b[{}A{rest}", lines - 1).as_bytes(),
    ]
    .concat();
    let stale = screen(
        &naive,
        (before, rows),
        Some((offset, after, Resize::Reflow)),
    );
    assert!(stale.filled().len() > new_frame.len() + 1, "{stale:?}");

    run.keys("\r");
    let done = run.finish();
    assert_eq!(done.code, 0, "{}", done.document);
    done.assert_terminal_restored();
}

fn the_selected_row_is_marked_without_colour() {
    let input = r#"{"questions":[
        {"question":"Which?","options":["alpha","beta"]},
        {"question":"Go?","type":"confirm","default":"no"}]}"#;
    let mut run = Ask::new(input).env("NO_COLOR", "1").start();
    run.expect("beta").expect(FRAME_END);
    {
        let screen = seen(&run, (100, 30));
        assert!(
            screen.rows.iter().any(|r| r.starts_with("❯ 1. alpha")),
            "{screen:?}"
        );
        assert!(
            screen.rows.iter().any(|r| r.starts_with("  2. beta")),
            "{screen:?}"
        );
    }
    run.keys("\r").expect("Go?").expect(FRAME_END);
    {
        let screen = seen(&run, (100, 30));
        assert!(
            screen.rows.iter().any(|r| r.trim_end() == "  Yes  ❯ No"),
            "{screen:?}"
        );
    }
    let colours = ["\x1b[32m", "\x1b[33m", "\x1b[1;36m"];
    run.keys("\r");
    let done = run.finish();
    let text = done.screen_text();
    assert!(colours.iter().all(|c| !text.contains(c)), "{text:?}");
    assert_eq!(done.answers()[1]["values"][0], "no");
}

/// tmux, a terminal that reflows its lines on a resize, run headless on a
/// private socket: the screen it shows is its own, not a model's.
struct Tmux {
    program: std::path::PathBuf,
    socket: String,
}

impl Tmux {
    /// Without tmux the test ends as ignored, a failure under CI
    /// (`.ci/setup-tty.sh` installs it).
    fn start(command: &str, (columns, rows): (usize, usize)) -> Tmux {
        let program = common::clients::tmux();
        let dir = common::pty::run_dir();
        let tmux = Tmux {
            program,
            socket: dir.join("tmux.sock").to_string_lossy().into_owned(),
        };
        let (columns, rows) = (columns.to_string(), rows.to_string());
        tmux.run(&[
            "new-session",
            "-d",
            "-x",
            &columns,
            "-y",
            &rows,
            "sh",
            "-c",
            command,
        ]);
        tmux
    }

    fn run(&self, args: &[&str]) -> String {
        let out = std::process::Command::new(&self.program)
            .args(["-S", &self.socket, "-f", "/dev/null"])
            .args(args)
            .env_remove("TMUX")
            .env_remove("ASK_USER_UI")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The visible rows, once one of them is exactly `row` (polled: this
    /// waits on what the screen shows, for at most 10 s).
    fn rows_once(&self, row: &str) -> Vec<String> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let rows: Vec<String> = self
                .run(&["capture-pane", "-p"])
                .lines()
                .map(|r| r.trim_end().to_string())
                .collect();
            if rows.iter().any(|r| r == row) {
                return rows;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{row:?} never showed: {rows:#?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = std::process::Command::new(&self.program)
            .args(["-S", &self.socket, "kill-server"])
            .output();
    }
}

fn filled(rows: &[String]) -> Vec<&str> {
    rows.iter()
        .map(String::as_str)
        .filter(|r| !r.is_empty())
        .collect()
}

fn in_tmux_a_narrowed_window_shows_the_new_frame_and_nothing_else() {
    let dir = common::pty::run_dir();
    let file = dir.join("wide.json");
    std::fs::write(&file, WIDE).unwrap();
    let command = format!(
        "echo shell line above; exec '{}' ask '{}' > /dev/null",
        common::bin(),
        file.display()
    );
    // What the frame looks like when drawn at 40 columns from the start.
    let narrow = Tmux::start(&command, (40, 24));
    let reference = narrow.rows_once("  Ctrl-N note · Esc cancel");
    let reference = filled(&reference);
    let start = reference
        .iter()
        .position(|r| r.starts_with("? Which"))
        .unwrap();
    let frame = &reference[start..];

    let wide = Tmux::start(&command, (80, 24));
    wide.rows_once("  ↑/↓ move · 1-3 go to · Enter choose · Ctrl-N note · Esc cancel");
    wide.run(&["resize-window", "-x", "40", "-y", "24"]);
    let rows = wide.rows_once("  Ctrl-N note · Esc cancel");
    let shown = filled(&rows);
    let (above, drawn) = shown.split_at(shown.len().saturating_sub(frame.len()));
    assert_eq!(drawn, frame, "{rows:#?}");
    // Above the frame only what was there before it (tmux may have pushed
    // it into the scrollback): no row of the old frame.
    assert!(
        above
            .iter()
            .all(|r| ["shell line above", "Pick a stack"].contains(r)),
        "{rows:#?}"
    );
}

/// However the form ends, its frame is taken off the screen: what stays is
/// the summary the face prints after it (answered, cancelled, timed out).
fn the_frame_is_removed_when_the_form_ends() {
    let input = r#"{"question":"Which database?","options":["PostgreSQL","SQLite"]}"#;
    let window = (100, 30);
    for (keys, args, summary) in [
        ("\r", &[][..], "Which database?: PostgreSQL"),
        ("\x1b", &[], "Cancelled"),
        ("", &["--timeout", "1"], "Timed out"),
    ] {
        let mut run = Ask::new(input).args(args).start();
        run.expect(FRAME_END).keys(keys);
        let done = run.finish();
        let rows: Vec<String> = screen(&done.screen, window, None)
            .filled()
            .into_iter()
            .map(|row| row.trim_end().to_string())
            .collect();
        assert_eq!(rows.len(), 1, "{keys:?}: {rows:#?}");
        assert!(rows[0].contains(summary), "{keys:?}: {rows:#?}");
    }
}

common::harness::main!(
    ctrl_j_and_alt_enter_start_new_lines_in_a_text_answer,
    other_takes_several_lines_too,
    a_tall_answer_scrolls_within_the_window,
    answered_questions_stay_above_as_a_trail_cut_to_the_window,
    narrowing_the_window_leaves_no_rows_of_the_old_frame,
    the_selected_row_is_marked_without_colour,
    in_tmux_a_narrowed_window_shows_the_new_frame_and_nothing_else,
    the_frame_is_removed_when_the_form_ends,
);
