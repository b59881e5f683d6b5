//! Property tests of `setup`'s merge on arbitrary host config files:
//! whatever a JSON or JSONC file holds, [`plan`](crate::setup::plan)
//! either refuses it with a `CONFIG_ERROR` that names a line and column (and
//! writes nothing), or gives a file that parses, keeps every key that is not
//! the ask_user entry with its value, holds the entry as written, comes back
//! byte for byte from a second run, and loses only the entry to `--remove`.
//!
//! The harness here is shared with the TOML properties (`toml/fuzz.rs`).
//! Inputs: arbitrary bytes, token soup, random JSONC rendered in random
//! layouts (comments, trailing commas, odd whitespace, escaped keys, a
//! byte-order mark), and those files with a few bytes changed. `cargo test`
//! runs a few hundred of each; `bench/fuzz.sh` runs 100,000
//! (`PROPTEST_CASES`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use jsonc_parser::ast::{Object, Value as Ast};
use jsonc_parser::{CollectOptions, JsonValue, parse_to_ast, parse_to_value};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::options;
use crate::error::AskError;
use crate::setup::launch::Launch;
use crate::setup::{Action, ENTRY, Env, Format, Host, Platform, Value, config_path, fields, plan};

/// Cases per property: a few hundred in `cargo test`, `PROPTEST_CASES` in the bench.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(default)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(300),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A hang guard, not a speed target: one input's whole check (four plans).
const HANG: Duration = Duration::from_secs(10);

/// A config file's meaning, as the format's reference parser reads it:
/// objects and tables as maps (a repeated key: the last one counts, as in
/// the hosts' `JSON.parse`), numbers by their text.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::setup) enum Tree {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    /// A TOML date or time.
    Date(String),
    Arr(Vec<Tree>),
    Obj(BTreeMap<String, Tree>),
}

/// What a format's reference parser makes of a file's text (without its
/// byte-order mark): `None` when it does not parse.
pub(in crate::setup) struct Model {
    /// The whole file (an empty object for a file without a value).
    pub tree: Tree,
    /// Whether setup may edit it: the top level, the servers and the entry
    /// are each an object (or table) when they are there.
    pub editable: bool,
}

/// The reference parser of a format: the text (without its byte-order
/// mark), the servers key, and the entry's keys setup writes.
pub(in crate::setup) type Reference = fn(&str, &str, &[&str]) -> Option<Model>;

/// A home folder of its own for each test thread, where each case writes
/// the host's file before setup plans its change.
pub(in crate::setup) struct Home {
    _dir: tempfile::TempDir,
    env: Env,
}

impl Home {
    fn new() -> Home {
        // tmpfs when there is one: a case writes the file four times.
        let shm = std::path::Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            tempfile::tempdir_in(shm)
        } else {
            tempfile::tempdir()
        }
        .unwrap();
        let env = Env {
            platform: Platform::Linux,
            home: dir.path().to_path_buf(),
            appdata: None,
            xdg_config_home: None,
            codex_home: None,
            claude_config_dir: None,
            gemini_cli_home: None,
            path: None,
        };
        Home { _dir: dir, env }
    }

    fn path(&self, host: Host) -> PathBuf {
        config_path(host, &self.env)
    }

    /// `bytes` as `host`'s file, then the text setup would write there.
    fn plan(
        &self,
        host: Host,
        bytes: &[u8],
        action: Action,
        launch: &Launch,
    ) -> Result<String, AskError> {
        let path = self.path(host);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        plan(host, &self.env, action, launch).map(|plan| plan.after)
    }
}

thread_local! {
    static HOME: RefCell<Option<Home>> = const { RefCell::new(None) };
    /// Inputs merged and refused by this thread's property so far.
    static TALLY: std::cell::Cell<(u64, u64)> = const { std::cell::Cell::new((0, 0)) };
}

fn tally(merged: bool) {
    TALLY.with(|tally| {
        let (m, r) = tally.get();
        tally.set(if merged { (m + 1, r) } else { (m, r + 1) });
    });
}

/// Runs `check` on [`config`]'s number of inputs from `strategy`; then
/// says (on stderr: `--nocapture` shows it) how many were merged and how
/// many refused, so that a run shows what its inputs reached.
pub(in crate::setup) fn property<S: Strategy>(
    name: &str,
    strategy: S,
    check: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let config = config();
    TALLY.with(|tally| tally.set((0, 0)));
    let started = Instant::now();
    let outcome = proptest::test_runner::TestRunner::new(config.clone()).run(&strategy, check);
    let (merged, refused) = TALLY.with(std::cell::Cell::get);
    eprintln!(
        "fuzz {name}: {} inputs, {merged} merged, {refused} refused, {:.1} s",
        config.cases,
        started.elapsed().as_secs_f64()
    );
    if let Err(failure) = outcome {
        panic!("{name}: {failure}");
    }
}

fn with_home<T>(run: impl FnOnce(&Home) -> T) -> T {
    HOME.with(|home| run(home.borrow_mut().get_or_insert_with(Home::new)))
}

pub(in crate::setup) fn container(host: Host) -> &'static str {
    match host.spec().format {
        Format::Json { container, .. } | Format::Toml { container } => container,
    }
}

/// The file without the entry, and without the servers object when the
/// entry was all it held: what must be the same before and after.
fn foreign(tree: &Tree, container: &str) -> Tree {
    let mut tree = tree.clone();
    if let Tree::Obj(root) = &mut tree
        && let Some(Tree::Obj(servers)) = root.get_mut(container)
    {
        servers.remove(ENTRY);
        if servers.is_empty() {
            root.remove(container);
        }
    }
    tree
}

fn entry<'t>(tree: &'t Tree, container: &str) -> Option<&'t Tree> {
    match tree {
        Tree::Obj(root) => match root.get(container)? {
            Tree::Obj(servers) => servers.get(ENTRY),
            _ => None,
        },
        _ => None,
    }
}

/// The entry's keys that setup does not write (a person's `env`, …).
fn entry_rest(tree: &Tree, container: &str, written: &[&str]) -> BTreeMap<String, Tree> {
    match entry(tree, container) {
        Some(Tree::Obj(entry)) => entry
            .iter()
            .filter(|(key, _)| !written.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect(),
        _ => BTreeMap::new(),
    }
}

fn holds(tree: Option<&Tree>, value: &Value) -> bool {
    match (tree, value) {
        (Some(Tree::Str(text)), Value::Text(wanted)) => text == wanted,
        (Some(Tree::Arr(items)), Value::List(wanted)) => {
            items.len() == wanted.len()
                && items
                    .iter()
                    .zip(wanted)
                    .all(|(item, wanted)| *item == Tree::Str(wanted.clone()))
        }
        (Some(Tree::Num(number)), Value::Seconds(wanted)) => {
            number.parse::<f64>().ok() == Some(*wanted as f64)
        }
        _ => false,
    }
}

fn split_bom(text: &str) -> (&str, &str) {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    }
}

/// A refusal: CONFIG_ERROR, naming the file and a line and column inside
/// it, with the parser's reason on one line and what to do.
fn check_refusal(
    error: &AskError,
    bytes: &[u8],
    path: &std::path::Path,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(error.code(), "CONFIG_ERROR", "{}", error.message());
    let message = error.message();
    prop_assert!(
        !message.contains('\n'),
        "a refusal spans lines: {message:?}"
    );
    let rest = message
        .strip_prefix(&format!("{} does not parse at line ", path.display()))
        .ok_or_else(|| TestCaseError::fail(format!("no file and line in {message:?}")))?;
    let (line, rest) = rest.split_once(", column ").unwrap_or_default();
    let (column, reason) = rest.split_once(": ").unwrap_or_default();
    let reason = reason
        .strip_suffix("; fix the file, then run setup again (it was left as it was)")
        .ok_or_else(|| TestCaseError::fail(format!("no advice in {message:?}")))?;
    prop_assert!(!reason.trim().is_empty(), "no reason in {message:?}");
    let document = error.document();
    prop_assert_eq!(document.error.parse_error.as_deref(), Some(reason));
    let shown = path.display().to_string();
    prop_assert_eq!(document.error.path.as_deref(), Some(shown.as_str()));
    let (line, column): (usize, usize) = match (line.parse(), column.parse()) {
        (Ok(line), Ok(column)) => (line, column),
        _ => {
            return Err(TestCaseError::fail(format!(
                "no line and column in {message:?}"
            )));
        }
    };
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.split('\n').collect();
    prop_assert!(
        line >= 1 && line <= lines.len(),
        "line {line} of {}: {message:?}",
        lines.len()
    );
    let width = lines[line - 1].chars().count();
    prop_assert!(
        column >= 1 && column <= width + 1,
        "column {column} of {width}: {message:?}"
    );
    Ok(())
}

/// Every property of one input file for `host`, against the format's
/// reference parser. `strict`: a check that a host reading plain JSON
/// still reads the file after setup, when it read it before.
pub(in crate::setup) fn check_merge(
    host: Host,
    bytes: &[u8],
    launch: &Launch,
    reference: Reference,
    strict: Option<fn(&str) -> bool>,
) -> Result<(), TestCaseError> {
    let started = Instant::now();
    let outcome = with_home(|home| check_with(home, host, bytes, launch, reference, strict));
    prop_assert!(started.elapsed() < HANG, "took {:?}", started.elapsed());
    outcome
}

fn check_with(
    home: &Home,
    host: Host,
    bytes: &[u8],
    launch: &Launch,
    reference: Reference,
    strict: Option<fn(&str) -> bool>,
) -> Result<(), TestCaseError> {
    let container = container(host);
    let path = home.path(host);
    let fields = fields(host, launch);
    let keys: Vec<&str> = fields.iter().map(|field| field.key).collect();
    let before = std::str::from_utf8(bytes).ok();
    let (bom, text) = split_bom(before.unwrap_or_default());
    let model = before.and_then(|_| reference(text, container, &keys));
    // --remove takes the entry whole: its keys may be anything.
    let removable = before
        .and_then(|_| reference(text, container, &[]))
        .is_some_and(|model| model.editable);
    match home.plan(host, bytes, Action::Remove, launch) {
        Err(error) => {
            check_refusal(&error, bytes, &path)?;
            prop_assert!(
                !removable,
                "--remove refused a file its parser reads: {}",
                error.message()
            );
        }
        Ok(removed) => {
            prop_assert!(
                removable,
                "--remove took a file its parser does not read: {:?}",
                removed
            );
            let model = model
                .as_ref()
                .map(|model| &model.tree)
                .unwrap_or(&Tree::Null);
            check_removed(host, model, bom, &removed, reference)?;
            if super::super::entry_in(host, text).is_ok_and(|entry| entry.is_none()) {
                prop_assert_eq!(
                    removed.as_bytes(),
                    bytes,
                    "--remove of nothing changed the file"
                );
            }
        }
    }
    let editable = model.as_ref().is_some_and(|model| model.editable);
    let after = match home.plan(host, bytes, Action::Set, launch) {
        Err(error) => {
            tally(false);
            check_refusal(&error, bytes, &path)?;
            prop_assert!(
                !editable,
                "refused a file its parser reads: {}",
                error.message()
            );
            return Ok(());
        }
        Ok(after) => after,
    };
    tally(true);
    let Some(model) = model.filter(|model| model.editable) else {
        return Err(TestCaseError::fail(format!(
            "merged a file its parser does not read: {after:?}"
        )));
    };
    let (after_bom, after_text) = split_bom(&after);
    prop_assert_eq!(bom, after_bom, "the byte-order mark did not stay");
    let Some(written) = reference(after_text, container, &keys) else {
        return Err(TestCaseError::fail(format!(
            "wrote a file that does not parse: {after:?}"
        )));
    };
    prop_assert!(
        written.editable,
        "wrote a file setup cannot edit again: {:?}",
        after
    );
    if let Some(strict) = strict
        && strict(text)
    {
        prop_assert!(strict(after_text), "plain JSON became JSONC: {after:?}");
    }
    prop_assert_eq!(
        foreign(&model.tree, container),
        foreign(&written.tree, container),
        "a key other than the entry changed: {:?}",
        after
    );
    prop_assert_eq!(
        entry_rest(&model.tree, container, &keys),
        entry_rest(&written.tree, container, &keys),
        "a key of the entry changed: {:?}",
        after
    );
    let Some(Tree::Obj(written_entry)) = entry(&written.tree, container) else {
        return Err(TestCaseError::fail(format!("no entry in {after:?}")));
    };
    for field in &fields {
        prop_assert!(
            holds(written_entry.get(field.key), &field.value),
            "{} is not {:?} in {:?}",
            field.key,
            field.value,
            after
        );
    }
    // setup's own reading (`--list`) agrees.
    let configured = super::super::entry_in(host, &after)
        .map_err(|e| TestCaseError::fail(format!("--list cannot read {after:?}: {e:?}")))?
        .ok_or_else(|| TestCaseError::fail(format!("--list sees no entry in {after:?}")))?;
    prop_assert_eq!(configured.command.as_deref(), Some(launch.command.as_str()));
    let again = home.plan(host, after.as_bytes(), Action::Set, launch).ok();
    prop_assert_eq!(
        again.as_deref(),
        Some(after.as_str()),
        "a second run changed the file"
    );
    let removed = home
        .plan(host, after.as_bytes(), Action::Remove, launch)
        .map_err(|e| {
            TestCaseError::fail(format!("--remove after setup failed: {}", e.message()))
        })?;
    check_removed(host, &model.tree, bom, &removed, reference)
}

/// What `--remove` wrote: the file as it was (`model`), without the entry.
fn check_removed(
    host: Host,
    model: &Tree,
    bom: &str,
    removed: &str,
    reference: Reference,
) -> Result<(), TestCaseError> {
    let container = container(host);
    let (removed_bom, removed_text) = split_bom(removed);
    prop_assert_eq!(removed_bom, bom, "the byte-order mark did not stay");
    let Some(left) = reference(removed_text, container, &[]) else {
        return Err(TestCaseError::fail(format!("--remove wrote {removed:?}")));
    };
    prop_assert_eq!(
        entry(&left.tree, container),
        None,
        "--remove left the entry: {:?}",
        removed
    );
    prop_assert_eq!(
        foreign(model, container),
        foreign(&left.tree, container),
        "--remove changed another key: {:?}",
        removed
    );
    Ok(())
}

/// How hosts may start ask_user: the binary's path (any text a path can
/// be), or a package runner and its arguments.
pub(in crate::setup) fn launch() -> impl Strategy<Value = Launch> {
    let text = prop_oneof![
        3 => Just("/usr/local/bin/ask_user".to_string()),
        1 => Just("npx".to_string()),
        1 => Just("C:\\Program Files\\ask_user.exe".to_string()),
        2 => "(?s).{0,12}",
        1 => "[\"'\\\\#{}\\[\\]=,\n\r\t\u{0}\u{7f}\u{2028} a-z]{0,10}",
    ];
    (text.clone(), prop::collection::vec(text, 0..3))
        .prop_map(|(command, args)| Launch { command, args })
}

// ---- JSON ----------------------------------------------------------------

const JSON_HOSTS: [Host; 7] = [
    Host::ClaudeCode,
    Host::ClaudeDesktop,
    Host::Gemini,
    Host::Antigravity,
    Host::Cursor,
    Host::Vscode,
    Host::Amp,
];

fn json_host() -> impl Strategy<Value = Host> {
    prop::sample::select(JSON_HOSTS.to_vec())
}

fn tree(value: JsonValue<'_>) -> Tree {
    match value {
        JsonValue::Null => Tree::Null,
        JsonValue::Boolean(b) => Tree::Bool(b),
        JsonValue::Number(n) => Tree::Num(n.to_string()),
        JsonValue::String(s) => Tree::Str(s.into_owned()),
        JsonValue::Array(items) => Tree::Arr(items.into_iter().map(tree).collect()),
        JsonValue::Object(object) => Tree::Obj(
            object
                .into_iter()
                .map(|(key, value)| (key.into_owned(), tree(value)))
                .collect(),
        ),
    }
}

/// jsonc-parser's own parse, with the options setup reads with. Setup may
/// edit the file when the top level, the servers and the entry are objects,
/// and no key on the way to the entry (nor a key it writes) is written twice.
fn json_reference(text: &str, container: &str, written: &[&str]) -> Option<Model> {
    let tree = match parse_to_value(text, &options()).ok()? {
        None => Tree::Obj(BTreeMap::new()),
        Some(value) => tree(value),
    };
    let ast = parse_to_ast(text, &CollectOptions::default(), &options()).ok()?;
    /// `key`'s value in `object`; `Err` when the key is there twice.
    fn one<'o, 'a>(object: &'o Object<'a>, key: &str) -> Result<Option<&'o Ast<'a>>, ()> {
        let mut found = object.properties.iter().filter(|p| p.name.as_str() == key);
        match (found.next(), found.next()) {
            (_, Some(_)) => Err(()),
            (first, None) => Ok(first.map(|prop| &prop.value)),
        }
    }
    let editable = match &ast.value {
        None => true,
        Some(Ast::Object(root)) => match one(root, container) {
            Ok(None) => true,
            Ok(Some(Ast::Object(servers))) => match one(servers, ENTRY) {
                Ok(None) => true,
                Ok(Some(Ast::Object(entry))) => written.iter().all(|key| one(entry, key).is_ok()),
                _ => false,
            },
            _ => false,
        },
        Some(_) => false,
    };
    Some(Model { tree, editable })
}

/// Plain JSON, as `JSON.parse` (and serde_json) read it; an empty file counts.
fn json_strict(text: &str) -> bool {
    text.trim_matches([' ', '\t', '\n', '\r']).is_empty()
        || serde_json::from_str::<serde_json::Value>(text).is_ok()
}

/// A JSON value to render; object keys may repeat.
#[derive(Debug, Clone)]
enum J {
    Null,
    Bool(bool),
    Num(&'static str),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

/// Stands for the host's servers key until the file is rendered.
const CONTAINER: &str = "\u{e000}servers";

fn json_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "", "x", "ask_user", "mcp", "/bin/ask_user", "C:\\bin", "say \"hi\"", "é", "\u{2028}",
            "\u{0}", "\u{1f}", "\u{7f}", "😀", "// not a comment", "/* nor this */", "\r\n",
        ])
        .prop_map(String::from),
        1 => "(?s).{0,8}",
    ]
}

fn json_key() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(vec![
            "mcpServers", "servers", "amp.mcpServers", "ask_user", "command", "args", "type",
            "env", "theme", "mcp", "", "Ask_User", "ask_user ", "askUser", "é", "\"", "\\",
        ])
        .prop_map(String::from),
        2 => "[a-z]{1,5}",
        1 => json_text(),
    ]
}

fn json_number() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "0",
        "-0",
        "1",
        "-1",
        "1860",
        "1860.0",
        "1.5e3",
        "-2.25E-3",
        "1E+2",
        "0.0",
        "123456789012345678901234567890",
    ])
}

fn json_value() -> impl Strategy<Value = J> {
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        json_number().prop_map(J::Num),
        json_text().prop_map(J::Str),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(J::Arr),
            prop::collection::vec((json_key(), inner), 0..4).prop_map(J::Obj),
        ]
    })
}

/// `members` with `extra` put in at `at` (and, sometimes, again at the end).
fn with_member(
    mut members: Vec<(String, J)>,
    extra: Option<(String, J)>,
    at: usize,
    twice: bool,
) -> Vec<(String, J)> {
    if let Some(extra) = extra {
        members.insert(at % (members.len() + 1), extra.clone());
        if twice {
            members.push(extra);
        }
    }
    members
}

/// An ask_user entry: keys setup writes and keys it must keep, or a value
/// of the wrong kind.
fn json_entry() -> impl Strategy<Value = J> {
    let key = prop_oneof![
        3 => prop::sample::select(vec!["command", "args", "type", "env", "cwd", "disabled", "timeout"])
            .prop_map(String::from),
        1 => json_key(),
    ];
    let right = prop_oneof![
        Just(J::Str("/usr/local/bin/ask_user".into())),
        Just(J::Arr(vec![J::Str("mcp".into())])),
        Just(J::Str("stdio".into())),
        json_value(),
    ];
    prop_oneof![
        8 => prop::collection::vec((key, right), 0..5).prop_map(J::Obj),
        1 => json_value(),
    ]
}

fn json_servers() -> impl Strategy<Value = J> {
    let servers = (
        prop::collection::vec((json_key(), json_value()), 0..3),
        prop::option::of(json_entry()),
        any::<usize>(),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(others, entry, at, twice)| {
            J::Obj(with_member(
                others,
                entry.map(|e| (ENTRY.to_string(), e)),
                at,
                twice,
            ))
        });
    prop_oneof![8 => servers, 1 => json_value()]
}

fn json_root() -> impl Strategy<Value = J> {
    let root = (
        prop::collection::vec((json_key(), json_value()), 0..5),
        prop::option::of(json_servers()),
        any::<usize>(),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(others, servers, at, twice)| {
            J::Obj(with_member(
                others,
                servers.map(|s| (CONTAINER.to_string(), s)),
                at,
                twice,
            ))
        });
    prop_oneof![12 => root, 1 => json_value()]
}

/// The layout choices of one rendering, from a seed (a small xorshift):
/// whitespace and comments between tokens, trailing commas, escapes.
struct Layout {
    state: u64,
    /// Whether the text is still plain JSON (no comment, no trailing comma).
    plain: bool,
}

impl Layout {
    fn new(seed: u64) -> Layout {
        Layout {
            state: seed | 1,
            plain: true,
        }
    }

    fn next(&mut self, below: u64) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state % below
    }

    /// What goes between two tokens.
    fn gap(&mut self) -> &'static str {
        const GAPS: [&str; 15] = [
            "",
            "",
            "",
            "",
            " ",
            " ",
            "\n  ",
            "\n    ",
            "\r\n",
            "\t",
            "\n\n",
            "// note\n",
            "/* note */",
            "/*\n * block\n */\n",
            "// crlf\r\n",
        ];
        let gap = GAPS[self.next(GAPS.len() as u64) as usize];
        if gap.contains('/') {
            self.plain = false;
        }
        gap
    }

    fn trailing_comma(&mut self) -> bool {
        let trailing = self.next(6) == 0;
        if trailing {
            self.plain = false;
        }
        trailing
    }

    /// A JSON string, some characters escaped that need not be.
    fn string(&mut self, text: &str, out: &mut String) {
        out.push('"');
        for c in text.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                '/' if self.next(3) == 0 => out.push_str("\\/"),
                c if self.next(10) == 0 => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{unit:04X}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }

    fn render(&mut self, value: &J, container: &str, out: &mut String) {
        match value {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Num(n) => out.push_str(n),
            J::Str(s) => self.string(s, out),
            J::Arr(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    out.push_str(self.gap());
                    self.render(item, container, out);
                    out.push_str(self.gap());
                    if index + 1 < items.len() || self.trailing_comma() {
                        out.push(',');
                    }
                }
                out.push_str(self.gap());
                out.push(']');
            }
            J::Obj(members) => {
                out.push('{');
                for (index, (key, item)) in members.iter().enumerate() {
                    out.push_str(self.gap());
                    let key = if key == CONTAINER { container } else { key };
                    self.string(key, out);
                    out.push_str(self.gap());
                    out.push(':');
                    out.push_str(self.gap());
                    self.render(item, container, out);
                    out.push_str(self.gap());
                    if index + 1 < members.len() || self.trailing_comma() {
                        out.push(',');
                    }
                }
                out.push_str(self.gap());
                out.push('}');
            }
        }
    }
}

fn json_tree(value: &J, container: &str) -> Tree {
    match value {
        J::Null => Tree::Null,
        J::Bool(b) => Tree::Bool(*b),
        J::Num(n) => Tree::Num(n.to_string()),
        J::Str(s) => Tree::Str(s.clone()),
        J::Arr(items) => Tree::Arr(items.iter().map(|i| json_tree(i, container)).collect()),
        J::Obj(members) => Tree::Obj(
            members
                .iter()
                .map(|(key, item)| {
                    let key = if key == CONTAINER { container } else { key };
                    (key.to_string(), json_tree(item, container))
                })
                .collect(),
        ),
    }
}

/// A rendered file: its text, its meaning, and whether it is plain JSON.
fn render_json(value: &J, container: &str, seed: u64, bom: bool) -> (String, Tree, bool) {
    let mut layout = Layout::new(seed);
    let mut out = String::from(if bom { "\u{feff}" } else { "" });
    out.push_str(layout.gap());
    layout.render(value, container, &mut out);
    match layout.next(4) {
        0 => out.push('\n'),
        1 => {
            out.push_str("\n// the end, without a newline");
            layout.plain = false;
        }
        _ => out.push_str(layout.gap()),
    }
    (out, json_tree(value, container), layout.plain)
}

/// Byte edits that keep a file nearly valid.
#[derive(Debug, Clone)]
pub(in crate::setup) enum Edit {
    Put(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Repeat(usize, usize),
}

pub(in crate::setup) fn edit(tokens: Vec<&'static str>) -> impl Strategy<Value = Edit> {
    let tokens = prop::sample::select(tokens);
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Edit::Put(at, byte)),
        (any::<usize>(), tokens.prop_map(|t| t.as_bytes().to_vec()))
            .prop_map(|(at, t)| Edit::Insert(at, t)),
        (any::<usize>(), 1usize..12).prop_map(|(at, n)| Edit::Delete(at, n)),
        (any::<usize>(), 1usize..24).prop_map(|(at, n)| Edit::Repeat(at, n)),
    ]
}

pub(in crate::setup) fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for edit in edits {
        let len = bytes.len().max(1);
        match edit {
            Edit::Put(at, byte) if !bytes.is_empty() => bytes[at % len] = *byte,
            Edit::Insert(at, token) => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, token.iter().copied());
            }
            Edit::Delete(at, n) if !bytes.is_empty() => {
                let at = at % len;
                bytes.drain(at..(at + n).min(bytes.len()));
            }
            Edit::Repeat(at, n) if !bytes.is_empty() => {
                let at = at % len;
                let end = (at + n).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(end..end, copy);
            }
            _ => {}
        }
    }
    bytes
}

const JSON_TOKENS: [&str; 34] = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "\"mcpServers\"",
    "\"servers\"",
    "\"amp.mcpServers\"",
    "\"ask_user\"",
    "\"command\"",
    "\"args\"",
    "\"x\"",
    "1",
    "-0.5e3",
    "null",
    "true",
    "// c\n",
    "/* c */",
    "/*",
    "//",
    " ",
    "\n",
    "\r",
    "\t",
    "\u{feff}",
    "'a'",
    "0x1",
    "NaN",
    "\"\\ud800\"",
    "\"\\u00\"",
    "\u{a0}",
];

/// Any bytes at all: mostly refused, never a panic.
#[test]
fn json_arbitrary_bytes() {
    let bytes = prop::collection::vec(any::<u8>(), 0..256);
    property(
        "json_arbitrary_bytes",
        (json_host(), bytes, launch()),
        |(host, bytes, launch)| {
            check_merge(host, &bytes, &launch, json_reference, Some(json_strict))
        },
    );
}

/// JSON's tokens in any order: near misses of every shape.
#[test]
fn json_token_soup() {
    let tokens = prop::collection::vec(prop::sample::select(JSON_TOKENS.to_vec()), 0..24);
    property(
        "json_token_soup",
        (json_host(), tokens, launch()),
        |(host, tokens, launch)| {
            check_merge(
                host,
                tokens.concat().as_bytes(),
                &launch,
                json_reference,
                Some(json_strict),
            )
        },
    );
}

/// Random JSONC in random layouts: the renderer's meaning is the parser's,
/// and setup keeps all of it but the entry.
#[test]
fn json_random_files() {
    let inputs = (
        json_host(),
        json_root(),
        any::<u64>(),
        prop::bool::weighted(0.1),
        launch(),
    );
    property(
        "json_random_files",
        inputs,
        |(host, value, seed, bom, launch)| {
            let container = container(host);
            let (text, meaning, plain) = render_json(&value, container, seed, bom);
            let model = json_reference(split_bom(&text).1, container, &[]);
            prop_assert_eq!(
                model.map(|m| m.tree),
                Some(meaning),
                "the parser reads {:?} otherwise",
                text
            );
            if plain {
                prop_assert!(json_strict(split_bom(&text).1), "{:?}", text);
            }
            check_merge(
                host,
                text.as_bytes(),
                &launch,
                json_reference,
                Some(json_strict),
            )
        },
    );
}

/// Those files with a few bytes changed.
#[test]
fn json_edited_files() {
    let edits = prop::collection::vec(edit(JSON_TOKENS.to_vec()), 1..4);
    let inputs = (
        json_host(),
        json_root(),
        any::<u64>(),
        prop::bool::weighted(0.1),
        edits,
        launch(),
    );
    property(
        "json_edited_files",
        inputs,
        |(host, value, seed, bom, edits, launch)| {
            let (text, _, _) = render_json(&value, container(host), seed, bom);
            check_merge(
                host,
                &apply(text.into_bytes(), &edits),
                &launch,
                json_reference,
                Some(json_strict),
            )
        },
    );
}
