//! The Windows console: `CONIN$` and `CONOUT$` (the console itself, not the
//! redirected stdin and stdout, which carry the JSON), console modes for raw
//! and line input, keys read through crossterm and translated into the
//! `console::Key` values the widgets already use, and our own ANSI output,
//! which a Windows 10+ console interprets once VT processing is on.
//!
//! - Raw mode: line input, echo and processed input off (so the keyboard's
//!   Ctrl-C is a key, as with termios' ISIG off), VT input off (keys come as
//!   key records, not escape sequences), window input on (resize records).
//! - Keys: crossterm's `event::poll`/`event::read` (`ReadConsoleInputW`);
//!   only presses and repeats count, as a terminal sends bytes only then.
//! - Size: the window of the screen buffer; a resize is a crossterm
//!   `Resize` event or, for consoles that send none, a changed size seen
//!   while waiting.
//! - Console control events (Ctrl-C from another program, Ctrl-Break, the
//!   console closing, logoff, shutdown) cancel the form or the plain-mode
//!   question, with the console restored; for a close the handler holds the
//!   process open ([`CLOSE_GRACE`]) so the cancel document is written.
//! - Text goes out through `WriteConsoleW` (UTF-16), whatever the console's
//!   code page.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::windows::io::AsRawHandle;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once, mpsc};
use std::time::Duration;

use console::Key;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use windows_sys::Win32::Foundation::{ERROR_OPERATION_ABORTED, HANDLE};
use windows_sys::Win32::System::Console::{
    CONSOLE_MODE, CONSOLE_SCREEN_BUFFER_INFO, CTRL_BREAK_EVENT, CTRL_C_EVENT, CTRL_CLOSE_EVENT,
    CTRL_LOGOFF_EVENT, CTRL_SHUTDOWN_EVENT, DISABLE_NEWLINE_AUTO_RETURN, ENABLE_ECHO_INPUT,
    ENABLE_LINE_INPUT, ENABLE_PROCESSED_INPUT, ENABLE_PROCESSED_OUTPUT,
    ENABLE_VIRTUAL_TERMINAL_INPUT, ENABLE_VIRTUAL_TERMINAL_PROCESSING, ENABLE_WINDOW_INPUT,
    FlushConsoleInputBuffer, GetConsoleMode, GetConsoleScreenBufferInfo, ReadConsoleW,
    SetConsoleCtrlHandler, SetConsoleMode, WriteConsoleW,
};
use windows_sys::core::BOOL;

use super::{Chunk, SHOW_CURSOR, lost};
use crate::error::AskError;
use crate::tty::keys::{self, Decoded};

/// The longest single wait for input: the console handle's wait can miss
/// input (measured under wine), and a resize without a resize record and a
/// console control event are only seen between waits.
const WAIT_SLICE: Duration = Duration::from_millis(50);

/// How long the handler of a close, logoff or shutdown event holds the
/// process open for the form to end as cancelled and the process to exit
/// (the system allows 5 s for a close, then ends the process).
const CLOSE_GRACE: Duration = Duration::from_millis(4500);

/// The modes to restore from a panic, which cannot reach the `Console`:
/// (input handle, input mode, output handle, output mode, raw).
static SAVED: Mutex<Option<(usize, CONSOLE_MODE, usize, CONSOLE_MODE, bool)>> = Mutex::new(None);
/// A console of ours is in raw or line mode: control events are ours.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// A console control event came while [`ACTIVE`].
static STOPPED: AtomicBool = AtomicBool::new(false);

/// The process's console and the modes it had when opened.
pub struct Console {
    input: File,
    output: File,
    saved_input: CONSOLE_MODE,
    saved_output: CONSOLE_MODE,
    raw: bool,
    /// Keys read but not handled yet (a paste arrives at once).
    keys: VecDeque<Key>,
    resized: bool,
    /// The size last seen, to notice a resize that sent no record.
    seen_size: Option<(usize, usize)>,
}

impl Console {
    /// Opens `CONIN$` and `CONOUT$`; the reason when the process has no
    /// console (started detached, or by a program without one).
    pub fn open() -> Result<Self, String> {
        let open = |name: &str| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .open(name)
                .map_err(|e| format!("the console cannot be opened ({name}: {e})"))
        };
        let input = open("CONIN$")?;
        let output = open("CONOUT$")?;
        let saved_input = mode_of(&input).ok_or("CONIN$ is not a console")?;
        let saved_output = mode_of(&output).ok_or("CONOUT$ is not a console")?;
        Ok(Console {
            input,
            output,
            saved_input,
            saved_output,
            raw: false,
            keys: VecDeque::new(),
            resized: false,
            seen_size: None,
        })
    }

    /// Raw input and VT output, with the restorers installed first.
    pub fn enter_raw(&mut self) -> Result<(), String> {
        let input = (self.saved_input
            & !(ENABLE_LINE_INPUT
                | ENABLE_ECHO_INPUT
                | ENABLE_PROCESSED_INPUT
                | ENABLE_VIRTUAL_TERMINAL_INPUT))
            | ENABLE_WINDOW_INPUT;
        // "\n" starts a new line at its first column, as with termios' ONLCR.
        let output =
            (self.saved_output | ENABLE_PROCESSED_OUTPUT | ENABLE_VIRTUAL_TERMINAL_PROCESSING)
                & !DISABLE_NEWLINE_AUTO_RETURN;
        self.take_over(true);
        if !set_mode(&self.output, output) {
            return Err(
                "the console does not take escape sequences (Windows 10 or later is needed); use --ui plain"
                    .to_string(),
            );
        }
        if !set_mode(&self.input, input) {
            return Err("the console cannot be put in raw mode".to_string());
        }
        self.raw = true;
        self.seen_size = self.size();
        Ok(())
    }

    /// Line input with echo and Ctrl-C processing (the console's own line
    /// editing, which screen readers follow). Output is left as it is.
    pub fn enter_lines(&mut self) -> Result<(), String> {
        self.take_over(false);
        let input =
            self.saved_input | ENABLE_LINE_INPUT | ENABLE_ECHO_INPUT | ENABLE_PROCESSED_INPUT;
        if !set_mode(&self.input, input) {
            return Err("the console cannot be put in line mode".to_string());
        }
        Ok(())
    }

    /// Saves the modes for the panic hook and makes control events ours.
    fn take_over(&self, raw: bool) {
        if let Ok(mut saved) = SAVED.lock() {
            *saved = Some((
                handle(&self.input) as usize,
                self.saved_input,
                handle(&self.output) as usize,
                self.saved_output,
                raw,
            ));
        }
        install_restorers();
        STOPPED.store(false, Ordering::SeqCst);
        ACTIVE.store(true, Ordering::SeqCst);
    }

    /// Back to the modes found at `open`.
    pub fn restore(&mut self) {
        if let Ok(mut saved) = SAVED.lock() {
            *saved = None;
        }
        ACTIVE.store(false, Ordering::SeqCst);
        self.raw = false;
        set_mode(&self.input, self.saved_input);
        set_mode(&self.output, self.saved_output);
    }

    /// Columns and rows of the console window.
    pub fn size(&self) -> Option<(usize, usize)> {
        // SAFETY: an all-zero CONSOLE_SCREEN_BUFFER_INFO is valid, and the
        // call fills it from a handle open for the life of `self`.
        let mut info: CONSOLE_SCREEN_BUFFER_INFO = unsafe { std::mem::zeroed() };
        if unsafe { GetConsoleScreenBufferInfo(handle(&self.output), &mut info) } == 0 {
            return None;
        }
        let window = info.srWindow;
        let columns = usize::try_from(i32::from(window.Right) - i32::from(window.Left) + 1).ok()?;
        let rows = usize::try_from(i32::from(window.Bottom) - i32::from(window.Top) + 1).ok()?;
        (columns > 0 && rows > 0).then_some((columns, rows))
    }

    pub fn write(&mut self, text: &str) -> io::Result<()> {
        write_console(&self.output, text)
    }

    /// A second handle for writing plain text.
    pub fn writer(&self) -> io::Result<Box<dyn Write>> {
        Ok(Box::new(ConsoleWriter {
            output: self.output.try_clone()?,
            carry: Vec::new(),
        }))
    }

    /// Drops what was typed and not read yet.
    pub fn discard_input(&mut self) {
        self.keys.clear();
        if self.raw {
            let _ = self.read_ready();
            self.keys.clear();
        }
        // SAFETY: a console input handle open for the life of `self`.
        unsafe { FlushConsoleInputBuffer(handle(&self.input)) };
    }

    /// Whether the window changed size since this was last asked.
    pub fn take_resized(&mut self) -> bool {
        let now = self.size();
        if now != self.seen_size {
            self.seen_size = now;
            self.resized = true;
        }
        std::mem::take(&mut self.resized)
    }

    /// Whether a console control event came (Ctrl-Break, Ctrl-C from
    /// another program, the console closing): the form ends as cancelled.
    pub fn interrupted(&self) -> bool {
        STOPPED.load(Ordering::SeqCst)
    }

    pub fn has_pending_keys(&self) -> bool {
        !self.keys.is_empty()
    }

    pub fn pending_key(&mut self) -> io::Result<Option<Key>> {
        Ok(self.keys.pop_front())
    }

    /// Waits up to `wait` (at most [`WAIT_SLICE`]; the caller loops) for a
    /// key. `None` when none came.
    pub fn wait_key(&mut self, wait: Option<Duration>) -> io::Result<Option<Key>> {
        self.read_ready()?;
        if let Some(key) = self.keys.pop_front() {
            return Ok(Some(key));
        }
        let slice = wait.map_or(WAIT_SLICE, |wait| wait.min(WAIT_SLICE));
        if crossterm::event::poll(slice)? {
            self.read_ready()?;
        }
        Ok(self.keys.pop_front())
    }

    /// Reads every event ready now, without waiting: keys into `keys`,
    /// resizes into `resized`; the rest (key releases, focus, mouse) go.
    fn read_ready(&mut self) -> io::Result<()> {
        while crossterm::event::poll(Duration::ZERO)? {
            match crossterm::event::read()? {
                Event::Key(event) => self.keys.extend(key_of(&event)),
                Event::Resize(..) => self.resized = true,
                _ => {}
            }
        }
        Ok(())
    }
}

/// A crossterm key event as the key a Unix terminal's bytes decode to
/// ([`keys::decode`]), so the widgets see the same keys on both systems.
/// `None` for a release.
fn key_of(event: &KeyEvent) -> Option<Key> {
    if !matches!(event.kind, KeyEventKind::Press | KeyEventKind::Repeat) {
        return None;
    }
    let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
    let alt = event.modifiers.contains(KeyModifiers::ALT);
    Some(match event.code {
        // Ctrl-J (which consoles send as Ctrl-Enter), Ctrl-Enter and
        // Alt-Enter: a newline in a text field.
        KeyCode::Enter if ctrl || alt => Key::Char('\n'),
        KeyCode::Enter => Key::Enter,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Tab => Key::Tab,
        KeyCode::BackTab => Key::BackTab,
        KeyCode::Esc => Key::Escape,
        KeyCode::Up => Key::ArrowUp,
        KeyCode::Down => Key::ArrowDown,
        KeyCode::Left => Key::ArrowLeft,
        KeyCode::Right => Key::ArrowRight,
        KeyCode::Home => Key::Home,
        KeyCode::End => Key::End,
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        KeyCode::Insert => Key::Insert,
        KeyCode::Delete => Key::Del,
        KeyCode::Null => Key::Char('\0'),
        // Ctrl and Alt together is AltGr on most layouts: a character.
        KeyCode::Char(c) if ctrl && !alt => control(c),
        // Alt-x: ESC x on a terminal.
        KeyCode::Char(c) if alt && !ctrl => Key::UnknownEscSeq(vec![c]),
        KeyCode::Char(c) => Key::Char(c),
        _ => Key::Unknown,
    })
}

/// Ctrl with a character: the control byte a terminal sends (Ctrl-C, Ctrl-A,
/// Ctrl-N, Ctrl-U, Ctrl-W, …), decoded as on Unix; with a character that
/// has no control byte, the character.
fn control(c: char) -> Key {
    let upper = c.to_ascii_uppercase();
    if !('@'..='_').contains(&upper) {
        return Key::Char(c);
    }
    match keys::decode(&[upper as u8 & 0x1f], false) {
        Decoded::Key(key, _) => key,
        Decoded::Incomplete => Key::Unknown,
    }
}

/// Where plain mode reads lines: the console in line mode, or stdin. The
/// console's line reads cannot be waited on with a deadline, so a thread
/// does the reading and hands each piece over; Ctrl-C and the other
/// console control events come through the handler instead.
pub struct LineInput {
    pieces: mpsc::Receiver<io::Result<Vec<u8>>>,
}

impl LineInput {
    /// The console `console` (already in line mode).
    pub fn terminal(console: &Console) -> Result<Self, AskError> {
        let input = console.input.try_clone().map_err(|e| lost(&e))?;
        Ok(Self::reading(move || read_console_line(&input)))
    }

    /// Standard input (a pipe, when there is no console).
    pub fn stdin() -> Result<Self, AskError> {
        Ok(Self::reading(|| {
            let mut buffer = vec![0u8; 4096];
            let n = io::stdin().lock().read(&mut buffer)?;
            buffer.truncate(n);
            Ok(buffer)
        }))
    }

    /// A thread that calls `read` until it gives an error or nothing (the
    /// end). When the form ends first, the thread stays blocked in its read
    /// until the process exits, which `ask` does right after.
    fn reading(mut read: impl FnMut() -> io::Result<Vec<u8>> + Send + 'static) -> Self {
        let (send, pieces) = mpsc::channel();
        std::thread::spawn(move || {
            loop {
                let piece = read();
                let last = !matches!(&piece, Ok(bytes) if !bytes.is_empty());
                if send.send(piece).is_err() || last {
                    break;
                }
            }
        });
        LineInput { pieces }
    }

    /// Waits up to `wait` (at most [`WAIT_SLICE`]; the caller loops) for
    /// input and appends what came to `pending`.
    pub fn wait(&mut self, wait: Option<Duration>, pending: &mut Vec<u8>) -> io::Result<Chunk> {
        if STOPPED.load(Ordering::SeqCst) {
            return Ok(Chunk::Interrupted);
        }
        let slice = wait.map_or(WAIT_SLICE, |wait| wait.min(WAIT_SLICE));
        match self.pieces.recv_timeout(slice) {
            Ok(Ok(bytes)) if bytes.is_empty() => Ok(Chunk::Ended),
            Ok(Ok(bytes)) => {
                pending.extend_from_slice(&bytes);
                Ok(Chunk::Data)
            }
            Ok(Err(err)) => Err(err),
            Err(mpsc::RecvTimeoutError::Timeout) if STOPPED.load(Ordering::SeqCst) => {
                Ok(Chunk::Interrupted)
            }
            Err(mpsc::RecvTimeoutError::Timeout) => Ok(Chunk::Nothing),
            Err(mpsc::RecvTimeoutError::Disconnected) => Ok(Chunk::Ended),
        }
    }
}

/// One read of the console in line mode: a typed line with its newline (as
/// "\n"), or nothing for Ctrl-Z at the start of a line (the end of input,
/// as Ctrl-D on Unix).
fn read_console_line(input: &File) -> io::Result<Vec<u8>> {
    let mut buffer = [0u16; 4096];
    loop {
        let mut read = 0u32;
        // SAFETY: `buffer` is valid for its length in UTF-16 units; the
        // handle is a console input handle this thread owns.
        let ok = unsafe {
            ReadConsoleW(
                handle(input),
                buffer.as_mut_ptr().cast(),
                buffer.len() as u32,
                &mut read,
                std::ptr::null(),
            )
        };
        if ok == 0 {
            let err = io::Error::last_os_error();
            // Ctrl-C ends the read early; the handler reports it.
            if err.raw_os_error() == Some(ERROR_OPERATION_ABORTED as i32) {
                std::thread::sleep(WAIT_SLICE);
                continue;
            }
            return Err(err);
        }
        if read == 0 {
            std::thread::sleep(WAIT_SLICE);
            continue;
        }
        let text = String::from_utf16_lossy(&buffer[..read as usize]);
        if text.starts_with('\u{1a}') {
            return Ok(Vec::new());
        }
        return Ok(text.replace("\r\n", "\n").into_bytes());
    }
}

/// Writes `text` to the console as UTF-16, whatever its code page.
fn write_console(output: &File, text: &str) -> io::Result<()> {
    let wide: Vec<u16> = text.encode_utf16().collect();
    let mut rest = &wide[..];
    while !rest.is_empty() {
        let mut written = 0u32;
        let chunk = rest.len().min(8192);
        // SAFETY: `rest` is valid for `chunk` UTF-16 units; the handle is a
        // console output handle open for the life of `output`.
        let ok = unsafe {
            WriteConsoleW(
                handle(output),
                rest.as_ptr(),
                chunk as u32,
                &mut written,
                std::ptr::null(),
            )
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        if written == 0 {
            return Err(io::Error::from(io::ErrorKind::WriteZero));
        }
        rest = &rest[(written as usize).min(rest.len())..];
    }
    Ok(())
}

/// Plain mode's writer on the console: bytes in, UTF-16 out; a character
/// cut between two writes waits for its rest.
struct ConsoleWriter {
    output: File,
    carry: Vec<u8>,
}

impl Write for ConsoleWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.carry.extend_from_slice(bytes);
        let text = take_text(&mut self.carry);
        write_console(&self.output, &text)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The text at the front of `carry` (a bad byte as U+FFFD), leaving in it
/// only a character cut at the end.
fn take_text(carry: &mut Vec<u8>) -> String {
    let mut text = String::new();
    let mut rest = &carry[..];
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                text.push_str(valid);
                rest = &[];
            }
            Err(err) => {
                let (valid, after) = rest.split_at(err.valid_up_to());
                text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                match err.error_len() {
                    Some(bad) => {
                        text.push('\u{fffd}');
                        rest = &after[bad..];
                    }
                    // Cut at the end: kept for the next write.
                    None => {
                        rest = after;
                        break;
                    }
                }
            }
        }
    }
    *carry = rest.to_vec();
    text
}

fn handle(file: &File) -> HANDLE {
    file.as_raw_handle() as HANDLE
}

fn mode_of(file: &File) -> Option<CONSOLE_MODE> {
    let mut mode: CONSOLE_MODE = 0;
    // SAFETY: a handle open for the life of `file`; `mode` is written.
    (unsafe { GetConsoleMode(handle(file), &mut mode) } != 0).then_some(mode)
}

fn set_mode(file: &File, mode: CONSOLE_MODE) -> bool {
    // SAFETY: a handle open for the life of `file`.
    unsafe { SetConsoleMode(handle(file), mode) != 0 }
}

/// The panic hook (the hook exits the process, skipping `Drop`) and the
/// console control handler, installed once.
fn install_restorers() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore_now();
            previous(info);
        }));
        // SAFETY: a handler with the signature the system expects, for the
        // life of the process. Should this fail, each event keeps its
        // default (the process ends).
        unsafe { SetConsoleCtrlHandler(Some(on_console_event), 1) };
    });
}

/// The console's modes as they were, and the cursor shown after raw mode.
fn restore_now() {
    let saved = SAVED.lock().ok().and_then(|mut saved| saved.take());
    if let Some((input, input_mode, output, output_mode, raw)) = saved {
        let (input, output) = (input as HANDLE, output as HANDLE);
        // SAFETY: handles of a `Console` still open (its Drop clears SAVED
        // before closing them).
        unsafe {
            if raw {
                let wide: Vec<u16> = SHOW_CURSOR.encode_utf16().collect();
                let mut written = 0u32;
                WriteConsoleW(
                    output,
                    wide.as_ptr(),
                    wide.len() as u32,
                    &mut written,
                    std::ptr::null(),
                );
            }
            SetConsoleMode(input, input_mode);
            SetConsoleMode(output, output_mode);
        }
    }
}

/// Runs on a thread the system starts for each event. While a form holds
/// the console, every event cancels it; otherwise the next handler (or the
/// default, which ends the process) decides.
unsafe extern "system" fn on_console_event(event: u32) -> BOOL {
    if !ACTIVE.load(Ordering::SeqCst) {
        return 0;
    }
    match event {
        CTRL_C_EVENT | CTRL_BREAK_EVENT => {
            STOPPED.store(true, Ordering::SeqCst);
            1
        }
        CTRL_CLOSE_EVENT | CTRL_LOGOFF_EVENT | CTRL_SHUTDOWN_EVENT => {
            STOPPED.store(true, Ordering::SeqCst);
            // The process ends when this returns: the form loop sees the
            // flag within a wait slice and the process exits before then.
            std::thread::sleep(CLOSE_GRACE);
            1
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, modifiers: KeyModifiers) -> Option<Key> {
        key_of(&KeyEvent::new_with_kind(
            code,
            modifiers,
            KeyEventKind::Press,
        ))
    }

    #[test]
    fn keys_translate_to_what_a_unix_terminal_decodes() {
        let none = KeyModifiers::NONE;
        assert_eq!(press(KeyCode::Enter, none), Some(Key::Enter));
        assert_eq!(press(KeyCode::Down, none), Some(Key::ArrowDown));
        assert_eq!(press(KeyCode::Up, none), Some(Key::ArrowUp));
        assert_eq!(press(KeyCode::Left, none), Some(Key::ArrowLeft));
        assert_eq!(press(KeyCode::Right, none), Some(Key::ArrowRight));
        assert_eq!(press(KeyCode::Esc, none), Some(Key::Escape));
        assert_eq!(press(KeyCode::Tab, none), Some(Key::Tab));
        assert_eq!(
            press(KeyCode::BackTab, KeyModifiers::SHIFT),
            Some(Key::BackTab)
        );
        assert_eq!(press(KeyCode::Backspace, none), Some(Key::Backspace));
        assert_eq!(press(KeyCode::Delete, none), Some(Key::Del));
        assert_eq!(press(KeyCode::Home, none), Some(Key::Home));
        assert_eq!(press(KeyCode::End, none), Some(Key::End));
        assert_eq!(press(KeyCode::PageUp, none), Some(Key::PageUp));
        assert_eq!(press(KeyCode::PageDown, none), Some(Key::PageDown));
        assert_eq!(press(KeyCode::F(1), none), Some(Key::Unknown));
    }

    #[test]
    fn characters_keep_their_case_and_any_script() {
        let none = KeyModifiers::NONE;
        assert_eq!(press(KeyCode::Char('q'), none), Some(Key::Char('q')));
        assert_eq!(
            press(KeyCode::Char('Q'), KeyModifiers::SHIFT),
            Some(Key::Char('Q'))
        );
        assert_eq!(press(KeyCode::Char('é'), none), Some(Key::Char('é')));
        assert_eq!(press(KeyCode::Char('文'), none), Some(Key::Char('文')));
        assert_eq!(press(KeyCode::Char('🦀'), none), Some(Key::Char('🦀')));
        // AltGr is Ctrl+Alt: the character it types.
        let altgr = KeyModifiers::CONTROL | KeyModifiers::ALT;
        assert_eq!(press(KeyCode::Char('@'), altgr), Some(Key::Char('@')));
        assert_eq!(
            press(KeyCode::Char('x'), KeyModifiers::ALT),
            Some(Key::UnknownEscSeq(vec!['x']))
        );
    }

    #[test]
    fn ctrl_keys_are_the_control_bytes_of_a_terminal() {
        let ctrl = KeyModifiers::CONTROL;
        assert_eq!(press(KeyCode::Char('c'), ctrl), Some(Key::CtrlC));
        assert_eq!(press(KeyCode::Char('C'), ctrl), Some(Key::CtrlC));
        assert_eq!(press(KeyCode::Char('a'), ctrl), Some(Key::Home));
        assert_eq!(press(KeyCode::Char('e'), ctrl), Some(Key::End));
        assert_eq!(press(KeyCode::Char('n'), ctrl), Some(Key::Char('\u{e}')));
        assert_eq!(press(KeyCode::Char('u'), ctrl), Some(Key::Char('\u{15}')));
        assert_eq!(press(KeyCode::Char('w'), ctrl), Some(Key::Char('\u{17}')));
        assert_eq!(press(KeyCode::Char('j'), ctrl), Some(Key::Char('\n')));
        assert_eq!(press(KeyCode::Char('h'), ctrl), Some(Key::Backspace));
        assert_eq!(press(KeyCode::Char('['), ctrl), Some(Key::Escape));
        assert_eq!(press(KeyCode::Char('1'), ctrl), Some(Key::Char('1')));
        // Ctrl-J as consoles send it, Ctrl-Enter and Alt-Enter: a newline.
        assert_eq!(press(KeyCode::Enter, ctrl), Some(Key::Char('\n')));
        assert_eq!(
            press(KeyCode::Enter, KeyModifiers::ALT),
            Some(Key::Char('\n'))
        );
    }

    #[test]
    fn releases_are_not_keys_and_repeats_are() {
        let event = |kind| KeyEvent::new_with_kind(KeyCode::Down, KeyModifiers::NONE, kind);
        assert_eq!(key_of(&event(KeyEventKind::Release)), None);
        assert_eq!(key_of(&event(KeyEventKind::Repeat)), Some(Key::ArrowDown));
    }

    #[test]
    fn plain_mode_text_cut_inside_a_character_waits_for_the_rest() {
        let whole = "aé文".as_bytes();
        for cut in 0..=whole.len() {
            let mut carry = whole[..cut].to_vec();
            let mut text = take_text(&mut carry);
            carry.extend_from_slice(&whole[cut..]);
            text.push_str(&take_text(&mut carry));
            assert_eq!(text, "aé文", "cut at {cut}");
            assert!(carry.is_empty());
        }
        let mut bad = b"a\xffb\xe6".to_vec();
        assert_eq!(take_text(&mut bad), "a\u{fffd}b");
        assert_eq!(bad, b"\xe6");
    }
}
