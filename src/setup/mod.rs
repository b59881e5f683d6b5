//! `ask_user setup`: one command writes (or removes) the `ask_user` MCP
//! server entry in each host's user-level config file, merged into what is
//! there (DESIGN §11). The hosts and what each entry carries are one table
//! ([`hosts`]); [`paths`] says where their files are; [`json`] and [`toml`]
//! edit the text without touching anything but the entry; [`hooks`] does
//! the same for `--hooks` (in JSON and in Codex's TOML); [`file`]
//! writes it safely; [`diff`] shows what `--dry-run` would change.
//!
//! Output: stdout carries data (one JSON line per host, or `--dry-run`'s
//! diffs); stderr carries one line per host for people.

mod diff;
mod file;
mod hooks;
mod hosts;
mod json;
mod launch;
mod paths;
mod toml;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{AskError, Detail, ErrorBody};
use crate::exit;
use hosts::Format;
pub use hosts::{GEMINI_TOOL_NAME, Host};
use launch::Launch;
pub use paths::{Env, Platform, config_path, detect};

/// The name of the entry in every host's list of servers.
const ENTRY: &str = crate::TOOL_NAME;

/// One value in an entry, in the shapes JSON and TOML share.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    Text(String),
    List(Vec<String>),
    Seconds(u64),
}

/// One key of the entry and the value setup writes there.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Field {
    key: &'static str,
    value: Value,
}

impl Field {
    fn new(key: &'static str, value: Value) -> Self {
        Field { key, value }
    }
}

/// What an existing entry runs, as `--list` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Configured {
    command: Option<String>,
    args: Option<Vec<String>>,
}

/// Where and why a config file does not parse, or has a value of the wrong
/// kind where the entry goes. Line and column count from 1; the column in
/// characters.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Malformed {
    line: usize,
    column: usize,
    message: String,
}

impl Malformed {
    fn at(text: &str, offset: usize, message: String) -> Self {
        let mut end = offset.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let before = &text[..end];
        let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
        Malformed {
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
            message,
        }
    }

    fn into_error(self, path: &Path) -> AskError {
        AskError::ConfigError(
            Detail::at(
                format!(
                    "{} does not parse at line {}, column {}: {}; fix the file, then run setup again (it was left as it was)",
                    path.display(),
                    self.line,
                    self.column,
                    self.message
                ),
                path.display().to_string(),
            )
            .with_parse_error(self.message),
        )
    }
}

/// The entry that setup writes for `host`, started as `launch` says.
fn fields(host: Host, launch: &Launch) -> Vec<Field> {
    let spec = host.spec();
    let mut args = launch.args.clone();
    args.push("mcp".to_string());
    args.extend(spec.args.iter().map(|arg| arg.to_string()));
    let mut fields = Vec::with_capacity(4);
    if let Format::Json {
        stdio_type: true, ..
    } = spec.format
    {
        fields.push(Field::new("type", Value::Text("stdio".into())));
    }
    fields.push(Field::new("command", Value::Text(launch.command.clone())));
    fields.push(Field::new("args", Value::List(args)));
    if let Some(seconds) = spec.tool_timeout_sec {
        fields.push(Field::new("tool_timeout_sec", Value::Seconds(seconds)));
    }
    fields
}

/// What setup does to each named host's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Write the entry (the binary's absolute path).
    Set,
    /// Take the entry out.
    Remove,
}

/// What setup writes into a host's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The `ask_user` MCP server entry.
    Entry,
    /// The hooks that answer the host's own ask tool (`--hooks`).
    Hooks,
}

/// A host's file as it is and as it would be, and which parts of ours it
/// holds (Gemini CLI keeps its servers and its hooks in one file).
struct Plan {
    host: Host,
    path: PathBuf,
    parts: Vec<Part>,
    before: Option<String>,
    after: String,
}

impl Plan {
    /// What of ours the file holds, for people.
    fn what(&self) -> &'static str {
        match self.parts[..] {
            [Part::Hooks] => "ask_user's hooks",
            [Part::Entry, Part::Hooks] => "ask_user and its hooks",
            _ => "ask_user",
        }
    }

    /// What "already set up" is said of: nothing for the entry alone (as
    /// setup has always said it), else what.
    fn subject(&self) -> String {
        match self.parts[..] {
            [Part::Entry] => String::new(),
            _ => format!("{} ", self.what()),
        }
    }

    fn is(&self) -> &'static str {
        if self.parts[..] == [Part::Entry] {
            "is"
        } else {
            "are"
        }
    }

    fn was(&self) -> &'static str {
        if self.parts[..] == [Part::Entry] {
            "was"
        } else {
            "were"
        }
    }

    fn changes(&self) -> bool {
        self.before.as_deref() != Some(self.after.as_str())
            && !(self.before.is_none() && self.after.is_empty())
    }
}

/// Reads `host`'s files and works out their new text; writes nothing. With
/// `with_hooks`, the hooks too: in their own file, or in the same one.
fn plans(
    host: Host,
    env: &Env,
    action: Action,
    launch: &Launch,
    with_hooks: bool,
) -> Result<Vec<Plan>, AskError> {
    let mut entry = plan(host, env, action, launch)?;
    let Some(road) = hooks::road(host).filter(|_| with_hooks) else {
        return Ok(vec![entry]);
    };
    let path = hooks::settings_path(host, env);
    let same_file = path == entry.path;
    let before = if same_file {
        entry.before.clone()
    } else {
        read_text(&path)?
    };
    // In one file, a remove undoes a set in the reverse order: the hooks
    // (written after the entry) go first, so that the entry's servers
    // object is the file's last key again, where setup put it.
    let current = match (same_file, action) {
        (true, Action::Set) => entry.after.clone(),
        _ => before.clone().unwrap_or_default(),
    };
    let (bom, text) = split_bom(&current);
    let mut edited = match action {
        Action::Set => hooks::set(text, road, launch),
        Action::Remove => hooks::remove(text, road),
    }
    .map_err(|malformed| malformed.into_error(&path))?;
    if same_file && action == Action::Remove {
        edited = edit_entry(host, action, launch, &edited)
            .map_err(|malformed| malformed.into_error(&path))?;
    }
    let after = format!("{bom}{edited}");
    if same_file {
        entry.parts.push(Part::Hooks);
        entry.after = after;
        return Ok(vec![entry]);
    }
    Ok(vec![
        entry,
        Plan {
            host,
            path,
            parts: vec![Part::Hooks],
            before,
            after,
        },
    ])
}

/// Reads `host`'s MCP config file and works out its new text; writes nothing.
fn plan(host: Host, env: &Env, action: Action, launch: &Launch) -> Result<Plan, AskError> {
    let path = config_path(host, env);
    let before = read_text(&path)?;
    // A byte-order mark (Windows editors) stays, out of the parsers' way.
    let (bom, text) = split_bom(before.as_deref().unwrap_or(""));
    let after = format!(
        "{bom}{}",
        edit_entry(host, action, launch, text).map_err(|malformed| malformed.into_error(&path))?
    );
    Ok(Plan {
        host,
        path,
        parts: vec![Part::Entry],
        before,
        after,
    })
}

/// `text` (without a byte-order mark) with the entry set or removed.
fn edit_entry(
    host: Host,
    action: Action,
    launch: &Launch,
    text: &str,
) -> Result<String, Malformed> {
    match (action, &host.spec().format) {
        (Action::Set, Format::Json { container, .. }) => {
            json::set(text, container, ENTRY, &fields(host, launch))
        }
        (Action::Set, Format::Toml { container }) => {
            toml::set(text, container, ENTRY, &fields(host, launch))
        }
        (Action::Remove, Format::Json { container, .. }) => json::remove(text, container, ENTRY),
        (Action::Remove, Format::Toml { container }) => toml::remove(text, container, ENTRY),
    }
}

fn split_bom(text: &str) -> (&str, &str) {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    }
}

/// The entry in `text`, a file of `host`'s.
fn entry_in(host: Host, text: &str) -> Result<Option<Configured>, Malformed> {
    let (_, text) = split_bom(text);
    match &host.spec().format {
        Format::Json { container, .. } => json::read(text, container, ENTRY),
        Format::Toml { container } => toml::read(text, container, ENTRY),
    }
}

fn read_text(path: &Path) -> Result<Option<String>, AskError> {
    match file::read(path)? {
        None => Ok(None),
        Some(bytes) => String::from_utf8(bytes).map(Some).map_err(|e| {
            let valid = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
            Malformed::at(&text, valid, "the file is not UTF-8 text".into()).into_error(path)
        }),
    }
}

/// The configured entry of `host`, if any.
fn configured(host: Host, env: &Env) -> Result<(bool, Option<Configured>), AskError> {
    let path = config_path(host, env);
    let Some(text) = read_text(&path)? else {
        return Ok((false, None));
    };
    entry_in(host, &text)
        .map(|entry| (true, entry))
        .map_err(|malformed| malformed.into_error(&path))
}
/// What `setup` is asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// The hosts named on the command line (none: choose on the terminal).
    pub hosts: Vec<Host>,
    pub action: Action,
    pub dry_run: bool,
    /// The hooks as well (`--hooks`): hosts without a hook road are a usage error.
    pub hooks: bool,
}

/// One line of `setup --list`.
#[derive(Serialize)]
struct ListLine<'a> {
    host: &'static str,
    path: String,
    exists: bool,
    configured: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<Vec<String>>,
    /// For a host with hooks (`--hooks`): whether its settings hold every
    /// hook of ours.
    #[serde(skip_serializing_if = "Option::is_none")]
    hooks: Option<bool>,
    /// What the entry setup writes does (not the one in the file).
    road: &'static str,
    transport: &'static str,
    /// The `--wait` setup writes, in seconds; null: none.
    #[serde(rename = "waitSeconds")]
    wait_seconds: Option<u64>,
    #[serde(rename = "hostLimit")]
    host_limit: &'static str,
    checked: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorBody<'a>>,
}

/// `setup --list [HOST...]`: one JSON line per host (every host when none
/// is named); exit 1 when a file cannot be read.
pub fn list(hosts: &[Host]) -> i32 {
    let Some(env) = Env::from_process() else {
        return no_home();
    };
    let hosts = if hosts.is_empty() {
        &Host::ALL[..]
    } else {
        hosts
    };
    let mut code = exit::OK;
    for &host in unique(hosts).iter() {
        let path = config_path(host, &env);
        let road = &host.spec().road;
        let line = match configured(host, &env)
            .and_then(|found| hooks_configured(host, &env).map(|hooks| (found, hooks)))
        {
            Ok(((exists, entry), hooks)) => ListLine {
                host: host.name(),
                path: path.display().to_string(),
                exists,
                configured: entry.is_some(),
                command: entry.as_ref().and_then(|entry| entry.command.clone()),
                args: entry.and_then(|entry| entry.args),
                hooks,
                road: road.way,
                transport: road.transport,
                wait_seconds: road.wait_seconds,
                host_limit: road.host_limit,
                checked: road.checked,
                error: None,
            },
            Err(error) => {
                code = exit::ERROR;
                let body = error.document().error;
                ListLine {
                    host: host.name(),
                    path: path.display().to_string(),
                    exists: path.exists(),
                    configured: false,
                    command: None,
                    args: None,
                    hooks: None,
                    road: road.way,
                    transport: road.transport,
                    wait_seconds: road.wait_seconds,
                    host_limit: road.host_limit,
                    checked: road.checked,
                    error: Some(owned(body)),
                }
            }
        };
        crate::print_document(&line);
    }
    code
}

/// Whether `host`'s settings hold our hooks; `None` for a host without any.
fn hooks_configured(host: Host, env: &Env) -> Result<Option<bool>, AskError> {
    let Some(road) = hooks::road(host) else {
        return Ok(None);
    };
    let path = hooks::settings_path(host, env);
    let Some(text) = read_text(&path)? else {
        return Ok(Some(false));
    };
    hooks::configured(split_bom(&text).1, road)
        .map(Some)
        .map_err(|malformed| malformed.into_error(&path))
}

fn owned(body: ErrorBody<'_>) -> ErrorBody<'static> {
    ErrorBody {
        code: body.code.into_owned().into(),
        message: body.message.into_owned().into(),
        path: body.path.map(|p| p.into_owned().into()),
        parse_error: body.parse_error.map(|p| p.into_owned().into()),
    }
}

/// One line of `setup HOST...` on stdout for a host that went well.
#[derive(Serialize)]
struct DoneLine {
    host: &'static str,
    path: String,
    /// `added`, `updated`, `removed` or `unchanged`.
    action: &'static str,
    /// Whether the file holds the entry (and with `hooks`, the hooks) now.
    configured: bool,
    /// This line is about a file that setup wrote ask_user's hooks into
    /// (`--hooks`); Claude Code's are in a file of their own.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    hooks: bool,
    /// The backup this run made (the first change to the file).
    #[serde(skip_serializing_if = "Option::is_none")]
    backup: Option<String>,
}

/// `setup [HOST...] [--dry-run] [--remove]`.
pub fn run(options: Options) -> i32 {
    let Some(env) = Env::from_process() else {
        return no_home();
    };
    if options.hooks
        && let Some(host) = options
            .hosts
            .iter()
            .find(|&&host| hooks::road(host).is_none())
    {
        tell(&format!(
            "ask_user setup: --hooks: {} has no hook that setup writes; hosts with one: {}",
            host.name(),
            hooks::hosts_with_hooks().join(", ")
        ));
        return exit::USAGE;
    }
    // How hosts would start this binary, known before any host is chosen:
    // when no entry can be written (a binary in the temporary folder), each
    // host fails alike, and the picker is not shown for nothing.
    let launch = match options.action {
        Action::Set => this_launch(),
        Action::Remove => Ok(Launch {
            command: String::new(),
            args: Vec::new(),
        }),
    };
    let hosts = match (&launch, options.hosts.is_empty()) {
        (Err(error), true) => {
            tell(&format!("✗ ask_user setup: {}", error.message()));
            if !options.dry_run {
                crate::print_document(&error.document());
            }
            return exit::ERROR;
        }
        (Ok(_), true) => match choose(&env, options.action, options.hooks) {
            Ok(hosts) => hosts,
            Err(code) => return code,
        },
        (_, false) => unique(&options.hosts),
    };
    let mut code = exit::OK;
    for host in hosts {
        let planned = match &launch {
            Ok(launch) => plans(host, &env, options.action, launch, options.hooks),
            Err(error) => Err(error.clone()),
        };
        let outcome = planned.and_then(|plans| {
            plans.iter().try_for_each(|plan| {
                if options.dry_run {
                    preview(plan, options.action);
                    Ok(())
                } else {
                    apply(plan, options.action)
                }
            })
        });
        if let Err(error) = outcome {
            code = exit::ERROR;
            tell(&format!("✗ {}: {}", host.name(), error.message()));
            if !options.dry_run {
                crate::print_document(&error.document());
            }
        }
    }
    code
}

/// `--dry-run`: the diff on stdout, what would happen on stderr.
fn preview(plan: &Plan, action: Action) {
    let name = plan.host.name();
    let path = plan.path.display();
    let what = plan.what();
    if !plan.changes() {
        tell(&match action {
            Action::Set => format!("✓ {name}: {}already set up in {path}", plan.subject()),
            Action::Remove => format!("✓ {name}: {what} {} not in {path}", plan.is()),
        });
        return;
    }
    let diff = diff::unified(&plan.path, plan.before.as_deref(), &plan.after);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(diff.as_bytes()).and_then(|()| out.flush());
    tell(&match action {
        Action::Set => format!("• {name}: would write {what} into {path} (dry run)"),
        Action::Remove => format!("• {name}: would remove {what} from {path} (dry run)"),
    });
}

/// Writes the plan and reports it: a JSON line on stdout, a line on stderr.
fn apply(plan: &Plan, action: Action) -> Result<(), AskError> {
    let name = plan.host.name();
    let path = plan.path.display();
    let (verb, backup) = if plan.changes() {
        let backup = file::write(&plan.path, &plan.after)?;
        let verb = match action {
            Action::Remove => "removed",
            Action::Set if had_entry(plan) => "updated",
            Action::Set => "added",
        };
        (verb, backup)
    } else {
        ("unchanged", None)
    };
    let what = plan.what();
    let message = match (verb, action) {
        ("unchanged", Action::Set) => {
            format!("✓ {name}: {}already set up in {path}", plan.subject())
        }
        ("unchanged", Action::Remove) => format!("✓ {name}: {what} {} not in {path}", plan.was()),
        ("removed", _) => format!("✓ {name}: removed {what} from {path}"),
        ("added", _) => format!("✓ {name}: added {what} to {path}"),
        _ => format!("✓ {name}: updated {what} in {path}"),
    };
    tell(&match &backup {
        Some(backup) => format!("{message} (backup: {})", backup.display()),
        None => message,
    });
    if let Some(step) = hooks::road(plan.host)
        .and_then(|road| road.after_writing())
        .filter(|_| {
            verb != "unchanged" && action == Action::Set && plan.parts.contains(&Part::Hooks)
        })
    {
        tell(&format!("  {name}: {step}"));
    }
    crate::print_document(&DoneLine {
        host: name,
        path: path.to_string(),
        action: verb,
        configured: action == Action::Set,
        hooks: plan.parts.contains(&Part::Hooks),
        backup: backup.map(|backup| backup.display().to_string()),
    });
    Ok(())
}

/// Whether the file already held a part of ours before this run changed it.
fn had_entry(plan: &Plan) -> bool {
    let Some(before) = plan.before.as_deref() else {
        return false;
    };
    plan.parts.iter().any(|part| match part {
        Part::Entry => entry_in(plan.host, before).is_ok_and(|entry| entry.is_some()),
        Part::Hooks => hooks::road(plan.host)
            .is_some_and(|road| hooks::configured(split_bom(before).1, road).unwrap_or(false)),
    })
}

/// Without hosts on the command line: the person picks them on the
/// terminal, with ask_user's own multi-select; detected hosts (or, to
/// remove, the configured ones) come pre-selected. `Err` holds the exit code.
fn choose(env: &Env, action: Action, with_hooks: bool) -> Result<Vec<Host>, i32> {
    let terminal = crate::tty::Terminal::open().map_err(|_| {
        tell(&format!(
            "ask_user setup: name the hosts to set up (no terminal to choose on): ask_user setup HOST...\n  hosts: {}",
            host_names()
        ));
        exit::USAGE
    })?;
    let preselected: Vec<Host> = match action {
        Action::Set => detect(env),
        Action::Remove => Host::ALL
            .into_iter()
            .filter(|&host| configured(host, env).is_ok_and(|(_, entry)| entry.is_some()))
            .collect(),
    };
    let prompt = picker(env, action, &preselected, with_hooks);
    // A note belongs to an answer for the model, not to a choice of hosts.
    match crate::tty::ask_with(terminal, &prompt, None, crate::tty::Notes::Off) {
        Ok(document) if document.answered => Ok(document
            .answers
            .first()
            .and_then(|answer| answer.option_ids.as_ref())
            .into_iter()
            .flatten()
            .filter_map(|id| id.parse::<usize>().ok())
            .filter_map(|n| Host::ALL.get(n.wrapping_sub(1)).copied())
            .collect()),
        Ok(_) => {
            tell("ask_user setup: cancelled; nothing was changed");
            Err(exit::CANCELLED)
        }
        Err(error) => Err(fail(&error)),
    }
}

/// The multi-select question: one option per host, in [`Host::ALL`] order
/// (option n is host n), with its file; with `--hooks`, only the hosts
/// whose hooks setup writes.
fn picker(
    env: &Env,
    action: Action,
    preselected: &[Host],
    with_hooks: bool,
) -> crate::model::Prompt {
    use crate::model::{Choice, Default, Kind, Prompt, Question};
    let offered = |host: Host| !with_hooks || hooks::road(host).is_some();
    let options = Host::ALL
        .iter()
        .enumerate()
        .filter(|&(_, &host)| offered(host))
        .map(|(index, &host)| Choice {
            id: (index + 1).to_string(),
            label: host.name().to_string(),
            description: Some(format!(
                "{} · {}",
                host.spec().title,
                config_path(host, env).display()
            )),
            recommended: false,
        })
        .collect();
    let ids = Host::ALL
        .iter()
        .enumerate()
        .filter(|&(_, &host)| offered(host) && preselected.contains(&host))
        .map(|(index, _)| (index + 1).to_string())
        .collect::<Vec<_>>();
    let text = match (action, with_hooks) {
        (Action::Set, false) => "Which hosts should ask_user connect to?",
        (Action::Set, true) => {
            "Which hosts should ask_user connect to, with the hooks that answer their own questions while you are away?"
        }
        (Action::Remove, false) => "Remove ask_user from which hosts?",
        (Action::Remove, true) => "Remove ask_user and its hooks from which hosts?",
    };
    Prompt {
        title: None,
        context: None,
        timeout_ms: None,
        routing: crate::model::Routing::default(),
        questions: vec![Question {
            id: "hosts".into(),
            id_given: true,
            header: Some("Setup".into()),
            text: text.into(),
            context: Some(match action {
                Action::Set => "Found on this machine: pre-selected. Each host's config file keeps everything else in it.".into(),
                Action::Remove => "Pre-selected: the hosts that have ask_user now.".into(),
            }),
            kind: Kind::MultiSelect,
            options,
            allow_other: false,
            required: true,
            default: (!ids.is_empty()).then_some(Default::Options(ids)),
            placeholder: None,
        }],
    }
}

/// How hosts start this binary: its absolute, canonical path, or the
/// `npx`/`uvx` form when it runs from such a cache ([`launch`]).
fn this_launch() -> Result<Launch, AskError> {
    let path = std::env::current_exe()
        .and_then(|path| ask_user_platform::paths::canonical(&path))
        .map_err(|e| {
            AskError::WriteError(Detail::new(format!(
                "cannot find the path of this ask_user binary ({e}); run setup from an installed binary"
            )))
        })?;
    let temp = std::env::temp_dir();
    let temp = ask_user_platform::paths::canonical(&temp).unwrap_or(temp);
    launch::launch(&path, &temp, env!("CARGO_PKG_VERSION"))
}

/// The hosts once each, in the order first named.
fn unique(hosts: &[Host]) -> Vec<Host> {
    let mut seen = Vec::with_capacity(hosts.len());
    for &host in hosts {
        if !seen.contains(&host) {
            seen.push(host);
        }
    }
    seen
}

fn host_names() -> String {
    Host::ALL.map(Host::name).join(", ")
}

fn no_home() -> i32 {
    tell(&format!(
        "ask_user setup: {} is not set: set it to your home folder",
        ask_user_platform::paths::HOME_VAR
    ));
    exit::USAGE
}

fn fail(error: &AskError) -> i32 {
    crate::print_document(&error.document());
    exit::ERROR
}

/// One line for people, on stderr.
fn tell(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::hosts::{CODEX_SERVER_TIMEOUT, CODEX_TOOL_TIMEOUT_SEC};
    use super::*;

    #[test]
    fn codex_waits_longer_than_the_server_and_any_input() {
        let native = Launch {
            command: "/bin/ask_user".into(),
            args: vec![],
        };
        let fields = fields(Host::Codex, &native);
        let args = &fields[1].value;
        assert_eq!(
            *args,
            Value::List(vec![
                "mcp".into(),
                "--timeout".into(),
                CODEX_SERVER_TIMEOUT.into()
            ])
        );
        let server: u64 = CODEX_SERVER_TIMEOUT.parse().unwrap();
        assert!(CODEX_TOOL_TIMEOUT_SEC > server);
        assert_eq!(
            fields[2],
            Field::new("tool_timeout_sec", Value::Seconds(CODEX_TOOL_TIMEOUT_SEC))
        );
    }

    #[test]
    fn a_cache_launch_goes_before_mcp_and_the_hosts_own_arguments() {
        let npx = Launch {
            command: "npx".into(),
            args: vec!["-y".into(), "ask-user@1.2.3".into()],
        };
        let gemini = fields(Host::Gemini, &npx);
        assert_eq!(gemini[0], Field::new("command", Value::Text("npx".into())));
        assert_eq!(
            gemini[1],
            Field::new(
                "args",
                Value::List(vec![
                    "-y".into(),
                    "ask-user@1.2.3".into(),
                    "mcp".into(),
                    "--tool-name".into(),
                    GEMINI_TOOL_NAME.into()
                ])
            )
        );
        let vscode = fields(Host::Vscode, &npx);
        assert_eq!(vscode[0], Field::new("type", Value::Text("stdio".into())));
        assert_eq!(vscode[1], Field::new("command", Value::Text("npx".into())));
    }

    #[test]
    fn positions_count_lines_and_characters_from_one() {
        let m = Malformed::at("ab\ncé x", 7, String::new());
        assert_eq!((m.line, m.column), (2, 4));
        let m = Malformed::at("", 5, String::new());
        assert_eq!((m.line, m.column), (1, 1));
        // An offset inside a character counts from that character.
        let m = Malformed::at("aé", 2, String::new());
        assert_eq!((m.line, m.column), (1, 2));
    }
}
