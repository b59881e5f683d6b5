//! `ask_user setup`: one command writes (or removes) the `ask_user` MCP
//! server entry in each host's user-level config file, merged into what is
//! there (DESIGN §11). The hosts, their files and what each entry carries are
//! one table here ([`HOSTS`]); [`json`] and [`toml`] edit the text without
//! touching anything but the entry; [`file`] writes it safely; [`diff`]
//! shows what `--dry-run` would change.
//!
//! Output: stdout carries data (one JSON line per host, or `--dry-run`'s
//! diffs); stderr carries one line per host for people.

mod diff;
mod file;
mod json;
mod launch;
mod toml;

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{AskError, Detail, ErrorBody};
use crate::exit;
use launch::Launch;

/// The name of the entry in every host's list of servers.
const ENTRY: &str = crate::TOOL_NAME;

/// A host that setup connects. Its command-line name is the kebab-case one
/// (`claude-code`, …, `vscode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Host {
    ClaudeCode,
    ClaudeDesktop,
    Codex,
    Gemini,
    Antigravity,
    Cursor,
    Vscode,
    Amp,
}

impl Host {
    pub const ALL: [Host; 8] = [
        Host::ClaudeCode,
        Host::ClaudeDesktop,
        Host::Codex,
        Host::Gemini,
        Host::Antigravity,
        Host::Cursor,
        Host::Vscode,
        Host::Amp,
    ];

    /// The name on the command line and in the output.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    fn spec(self) -> &'static Spec {
        &HOSTS[self as usize]
    }
}

/// How a host's file holds its servers.
enum Format {
    /// JSON (comments allowed): `{ "<container>": { "ask_user": {…} } }`.
    /// `stdio_type`: the entry starts with `"type": "stdio"`.
    Json {
        container: &'static str,
        stdio_type: bool,
    },
    /// TOML: `[<container>.ask_user]`.
    Toml { container: &'static str },
}

/// One row of the hosts table.
struct Spec {
    name: &'static str,
    /// What people call it.
    title: &'static str,
    format: Format,
    /// Arguments after `mcp`: what this host needs to reach the person.
    args: &'static [&'static str],
    /// Codex's limit for one tool call.
    tool_timeout_sec: Option<u64>,
    /// Programs whose presence on PATH means the host is installed.
    programs: &'static [&'static str],
    /// What `setup --list` says of the road this entry takes.
    road: Road,
}

/// How a host's entry reaches the person, and what backs that claim.
struct Road {
    /// `form` (the host's own MCP form); `prompt` (no forms: the model
    /// relays the question in the chat, the default fallback); `form or
    /// prompt` (not known whether it shows forms); `page or inbox`
    /// (`--fallback auto`: the inbox when one runs, else ask_user's page).
    way: &'static str,
    /// Always `stdio` today.
    transport: &'static str,
    /// The `--wait` written into `args`, in seconds (`None`: none).
    wait_seconds: Option<u64>,
    /// The host's own limit on one tool call, and its source.
    host_limit: &'static str,
    /// The host version this road was run with, or `not run: why`.
    checked: &'static str,
}

/// Claude Desktop cancels a stdio tool call after about 60 s, whatever
/// `MCP_TOOL_TIMEOUT` says (anthropics/claude-code#63379), and sends no
/// progress token. The wait ends well before: the call returns pending and
/// the model collects the answer with `{"resume": ID}`.
const NO_FORMS_WAIT: u64 = 45;
const NO_FORMS_WAIT_ARG: &str = "45";
const _: () = assert!(NO_FORMS_WAIT < 60);

/// Hosts without forms (no MCP elicitation) ask in the inbox when one runs,
/// else on ask_user's own page, opened in the browser; each call waits at
/// most [`NO_FORMS_WAIT`], so that it returns before the host's timer.
const NO_FORMS: &[&str] = &["--fallback", "auto", "--open", "--wait", NO_FORMS_WAIT_ARG];

/// Claude Desktop declares form elicitation but never shows the form: it
/// is not asked for one (`--no-elicitation`), and the question takes the
/// road of hosts without forms at once (issue 38).
const FORMS_NEVER_SHOWN: &[&str] = &[
    "--no-elicitation",
    "--fallback",
    "auto",
    "--open",
    "--wait",
    NO_FORMS_WAIT_ARG,
];

/// Gemini CLI hides every tool named `ask_user` in headless runs (its
/// policy matches MCP tools by their bare name), so there the tool is served
/// under this name.
pub const GEMINI_TOOL_NAME: &str = "ask_person";

/// Codex gives up on a tool call after `tool_timeout_sec` (60 s unless
/// set). The server's own wait is written out beside it, so that the limit
/// visibly exceeds it; and the limit also exceeds the longest `timeout` a
/// tool input may ask for (30 min), so that whatever ends the wait (an
/// answer, a decline, a timeout) reaches the model.
const CODEX_SERVER_TIMEOUT: &str = "300";
const CODEX_TOOL_TIMEOUT_SEC: u64 = 1860;
const _: () = assert!(CODEX_TOOL_TIMEOUT_SEC * 1000 > crate::input::MAX_TIMEOUT_MS);

/// Every host, in [`Host`] order.
const HOSTS: [Spec; 8] = [
    Spec {
        name: "claude-code",
        title: "Claude Code",
        format: Format::Json {
            container: "mcpServers",
            stdio_type: true,
        },
        args: &[],
        tool_timeout_sec: None,
        programs: &["claude"],
        road: Road {
            way: "form",
            transport: "stdio",
            wait_seconds: None,
            host_limit: "an idle limit of 30 min for stdio (CLAUDE_CODE_MCP_TOOL_IDLE_TIMEOUT, Claude Code docs); calls past 2 min go on in the background (2.1.212)",
            checked: "Claude Code 2.1.330 (tests/hosts.rs: form, decline; tests/setup_hosts.rs: the entry connects)",
        },
    },
    Spec {
        name: "claude-desktop",
        title: "Claude Desktop",
        format: Format::Json {
            container: "mcpServers",
            stdio_type: false,
        },
        args: FORMS_NEVER_SHOWN,
        tool_timeout_sec: None,
        programs: &["claude-desktop"],
        road: Road {
            way: "page or inbox",
            transport: "stdio",
            wait_seconds: Some(NO_FORMS_WAIT),
            host_limit: "about 60 s per call, MCP_TOOL_TIMEOUT ignored (anthropics/claude-code#63379, Claude Desktop 1.9659.1)",
            checked: "not run: Claude Desktop has no Linux build; the wait, pending and resume run with the MCP TypeScript SDK 1.32.2 as the client (tests/mcp_wait.rs, tests/mcp_form_wait.rs)",
        },
    },
    Spec {
        name: "codex",
        title: "Codex",
        format: Format::Toml {
            container: "mcp_servers",
        },
        args: &["--timeout", CODEX_SERVER_TIMEOUT],
        tool_timeout_sec: Some(CODEX_TOOL_TIMEOUT_SEC),
        programs: &["codex"],
        road: Road {
            way: "form",
            transport: "stdio",
            wait_seconds: None,
            host_limit: "tool_timeout_sec, 60 s unless set (Codex config docs); setup writes 1860, above the server's 300 s and any input's timeout",
            checked: "Codex 0.169.0 (tests/setup_hosts.rs: the entry is read; tests/hosts.rs: tool_timeout_sec and resume through the inbox); its form was tried by hand (research: hosts.md)",
        },
    },
    Spec {
        name: "gemini",
        title: "Gemini CLI",
        format: Format::Json {
            container: "mcpServers",
            stdio_type: false,
        },
        args: &["--tool-name", GEMINI_TOOL_NAME],
        tool_timeout_sec: None,
        programs: &["gemini"],
        road: Road {
            way: "prompt",
            transport: "stdio",
            wait_seconds: None,
            host_limit: "the entry's timeout, 10 min unless set (Gemini CLI docs: MCP servers)",
            checked: "Gemini CLI 0.61.0 lists the server (tests/setup_hosts.rs); the relay was run by hand through a renaming proxy (docs/hosts.md)",
        },
    },
    Spec {
        name: "antigravity",
        title: "Antigravity",
        format: Format::Json {
            container: "mcpServers",
            stdio_type: false,
        },
        args: &[],
        tool_timeout_sec: None,
        programs: &["antigravity"],
        road: Road {
            way: "form or prompt",
            transport: "stdio",
            wait_seconds: None,
            host_limit: "not known",
            checked: "not run: no Linux test build here",
        },
    },
    Spec {
        name: "cursor",
        title: "Cursor",
        format: Format::Json {
            container: "mcpServers",
            stdio_type: false,
        },
        args: &[],
        tool_timeout_sec: None,
        programs: &["cursor", "cursor-agent"],
        road: Road {
            way: "form",
            transport: "stdio",
            wait_seconds: None,
            host_limit: "not known",
            checked: "not run: no Linux test build here",
        },
    },
    Spec {
        name: "vscode",
        title: "VS Code",
        format: Format::Json {
            container: "servers",
            stdio_type: true,
        },
        args: &[],
        tool_timeout_sec: None,
        programs: &["code"],
        road: Road {
            way: "form",
            transport: "stdio",
            wait_seconds: None,
            host_limit: "not known",
            checked: "not run: no VS Code here",
        },
    },
    Spec {
        name: "amp",
        title: "Amp",
        format: Format::Json {
            container: "amp.mcpServers",
            stdio_type: false,
        },
        args: NO_FORMS,
        tool_timeout_sec: None,
        programs: &["amp"],
        road: Road {
            way: "page or inbox",
            transport: "stdio",
            wait_seconds: Some(NO_FORMS_WAIT),
            host_limit: "not known; the same wait as Claude Desktop's, to be safe",
            checked: "Amp 0.0.1790142911-g7618fb connects with one tool (tests/setup_hosts.rs); a tool call needs ampcode.com: not run",
        },
    },
];

/// The operating systems whose file locations differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    Linux,
    MacOs,
    Windows,
}

impl Platform {
    /// The one this binary runs on (other Unixes keep Linux's locations).
    pub fn current() -> Platform {
        if cfg!(windows) {
            Platform::Windows
        } else if cfg!(target_os = "macos") {
            Platform::MacOs
        } else {
            Platform::Linux
        }
    }
}

/// Where the files are: the home folder and the variables the hosts honour.
/// Read once from the process ([`Env::from_process`]); a value of its own
/// in the tests.
#[derive(Debug, Clone)]
pub struct Env {
    pub platform: Platform,
    /// `HOME` (Windows: `USERPROFILE`).
    pub home: PathBuf,
    /// `APPDATA` (Windows: Claude Desktop, VS Code; the roaming profile
    /// folder, `%USERPROFILE%\AppData\Roaming` when unset).
    pub appdata: Option<PathBuf>,
    /// `XDG_CONFIG_HOME` (Linux: Claude Desktop, VS Code; Amp everywhere).
    pub xdg_config_home: Option<PathBuf>,
    /// `CODEX_HOME`: Codex's folder instead of `~/.codex`.
    pub codex_home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR`: holds `.claude.json` instead of the home folder.
    pub claude_config_dir: Option<PathBuf>,
    /// `GEMINI_CLI_HOME`: holds `.gemini` instead of the home folder.
    pub gemini_cli_home: Option<PathBuf>,
    /// `PATH`, to find the hosts' programs.
    pub path: Option<OsString>,
}

impl Env {
    /// `None` when HOME (Windows: USERPROFILE) is unset or empty.
    pub fn from_process() -> Option<Env> {
        Some(Env::from_vars(
            Platform::current(),
            crate::platform::paths::home()?,
            |name| std::env::var_os(name),
        ))
    }

    /// The rest of the environment, read with `lookup` (empty counts as unset).
    fn from_vars(
        platform: Platform,
        home: PathBuf,
        lookup: impl Fn(&str) -> Option<OsString>,
    ) -> Env {
        let var = |name: &str| {
            lookup(name)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        };
        Env {
            platform,
            home,
            appdata: var("APPDATA").filter(|_| platform == Platform::Windows),
            // The XDG rules: a relative path is to be ignored.
            xdg_config_home: var("XDG_CONFIG_HOME").filter(|path| path.is_absolute()),
            codex_home: var("CODEX_HOME"),
            claude_config_dir: var("CLAUDE_CONFIG_DIR"),
            gemini_cli_home: var("GEMINI_CLI_HOME"),
            path: lookup("PATH"),
        }
    }

    /// `~/.config`, or `XDG_CONFIG_HOME`.
    fn config_home(&self) -> PathBuf {
        self.xdg_config_home
            .clone()
            .unwrap_or_else(|| self.home.join(".config"))
    }

    /// Where desktop apps keep their settings: `~/Library/Application
    /// Support` on macOS, the XDG config folder on Linux, `%APPDATA%` on
    /// Windows (Electron's `appData` on each: Claude Desktop and VS Code are
    /// Electron apps).
    fn app_data(&self) -> PathBuf {
        match self.platform {
            Platform::MacOs => self.home.join("Library").join("Application Support"),
            Platform::Linux => self.config_home(),
            Platform::Windows => self
                .appdata
                .clone()
                .unwrap_or_else(|| self.home.join("AppData").join("Roaming")),
        }
    }

    fn gemini_home(&self) -> PathBuf {
        self.gemini_cli_home
            .clone()
            .unwrap_or_else(|| self.home.clone())
            .join(".gemini")
    }

    fn codex_home(&self) -> PathBuf {
        self.codex_home
            .clone()
            .unwrap_or_else(|| self.home.join(".codex"))
    }
}

/// The user-level MCP config file of `host`. The same names under the
/// same folders on every platform, but for the desktop apps' folder
/// ([`Env::app_data`]); on Windows the home folder is `%USERPROFILE%`.
/// Where each host documents its file (Windows included): docs/hosts.md's
/// table of hosts, which cites each host's documentation.
pub fn config_path(host: Host, env: &Env) -> PathBuf {
    match host {
        Host::ClaudeCode => env
            .claude_config_dir
            .clone()
            .unwrap_or_else(|| env.home.clone())
            .join(".claude.json"),
        // modelcontextprotocol.io/quickstart/user: macOS and Windows
        // (`%APPDATA%\Claude\claude_desktop_config.json`).
        Host::ClaudeDesktop => env
            .app_data()
            .join("Claude")
            .join("claude_desktop_config.json"),
        Host::Codex => env.codex_home().join("config.toml"),
        Host::Gemini => env.gemini_home().join("settings.json"),
        Host::Antigravity => env
            .home
            .join(".gemini")
            .join("antigravity")
            .join("mcp_config.json"),
        Host::Cursor => env.home.join(".cursor").join("mcp.json"),
        // code.visualstudio.com/docs/configure/settings (user settings
        // folder: `%APPDATA%\Code\User` on Windows).
        Host::Vscode => env.app_data().join("Code").join("User").join("mcp.json"),
        Host::Amp => {
            // Amp reads settings.jsonc as well; a person who keeps that one
            // gets the entry there, not in a new settings.json beside it.
            let folder = env.config_home().join("amp");
            let (json, jsonc) = (folder.join("settings.json"), folder.join("settings.jsonc"));
            if !json.exists() && jsonc.exists() {
                jsonc
            } else {
                json
            }
        }
    }
}

/// The folder a host makes when it is installed or first run: the one that
/// holds its config file (for Claude Code, whose file sits in the home
/// folder, `~/.claude`).
fn marker(host: Host, env: &Env) -> PathBuf {
    match host {
        Host::ClaudeCode => env
            .claude_config_dir
            .clone()
            .unwrap_or_else(|| env.home.join(".claude")),
        _ => config_path(host, env)
            .parent()
            .map_or_else(|| env.home.clone(), Path::to_path_buf),
    }
}

/// The hosts that look installed: their folder exists or one of their
/// programs is on PATH.
pub fn detect(env: &Env) -> Vec<Host> {
    let on_path = |program: &str| {
        env.path.as_ref().is_some_and(|path| {
            std::env::split_paths(path)
                .any(|folder| crate::platform::paths::has_program(&folder, program))
        })
    };
    Host::ALL
        .into_iter()
        .filter(|&host| {
            marker(host, env).is_dir() || host.spec().programs.iter().any(|p| on_path(p))
        })
        .collect()
}

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

/// A host's file as it is and as it would be.
struct Plan {
    host: Host,
    path: PathBuf,
    before: Option<String>,
    after: String,
}

impl Plan {
    fn changes(&self) -> bool {
        self.before.as_deref() != Some(self.after.as_str())
            && !(self.before.is_none() && self.after.is_empty())
    }
}

/// Reads `host`'s file and works out its new text; writes nothing.
fn plan(host: Host, env: &Env, action: Action, launch: &Launch) -> Result<Plan, AskError> {
    let path = config_path(host, env);
    let before = read_text(&path)?;
    // A byte-order mark (Windows editors) stays, out of the parsers' way.
    let (bom, text) = split_bom(before.as_deref().unwrap_or(""));
    let edited = match (action, &host.spec().format) {
        (Action::Set, Format::Json { container, .. }) => {
            json::set(text, container, ENTRY, &fields(host, launch))
        }
        (Action::Set, Format::Toml { container }) => {
            toml::set(text, container, ENTRY, &fields(host, launch))
        }
        (Action::Remove, Format::Json { container, .. }) => json::remove(text, container, ENTRY),
        (Action::Remove, Format::Toml { container }) => toml::remove(text, container, ENTRY),
    };
    let after = format!(
        "{bom}{}",
        edited.map_err(|malformed| malformed.into_error(&path))?
    );
    Ok(Plan {
        host,
        path,
        before,
        after,
    })
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
        let line = match configured(host, &env) {
            Ok((exists, entry)) => ListLine {
                host: host.name(),
                path: path.display().to_string(),
                exists,
                configured: entry.is_some(),
                command: entry.as_ref().and_then(|entry| entry.command.clone()),
                args: entry.and_then(|entry| entry.args),
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
    /// Whether the file holds the entry now.
    configured: bool,
    /// The backup this run made (the first change to the file).
    #[serde(skip_serializing_if = "Option::is_none")]
    backup: Option<String>,
}

/// `setup [HOST...] [--dry-run] [--remove]`.
pub fn run(options: Options) -> i32 {
    let Some(env) = Env::from_process() else {
        return no_home();
    };
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
        (Ok(_), true) => match choose(&env, options.action) {
            Ok(hosts) => hosts,
            Err(code) => return code,
        },
        (_, false) => unique(&options.hosts),
    };
    let mut code = exit::OK;
    for host in hosts {
        let planned = match &launch {
            Ok(launch) => plan(host, &env, options.action, launch),
            Err(error) => Err(error.clone()),
        };
        let outcome = planned.and_then(|plan| {
            if options.dry_run {
                preview(&plan, options.action);
                Ok(())
            } else {
                apply(&plan, options.action)
            }
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
    if !plan.changes() {
        tell(&match action {
            Action::Set => format!("✓ {name}: already set up in {path}"),
            Action::Remove => format!("✓ {name}: ask_user is not in {path}"),
        });
        return;
    }
    let diff = diff::unified(&plan.path, plan.before.as_deref(), &plan.after);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(diff.as_bytes()).and_then(|()| out.flush());
    tell(&match action {
        Action::Set => format!("• {name}: would write ask_user into {path} (dry run)"),
        Action::Remove => format!("• {name}: would remove ask_user from {path} (dry run)"),
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
    let message = match (verb, action) {
        ("unchanged", Action::Set) => format!("✓ {name}: already set up in {path}"),
        ("unchanged", Action::Remove) => format!("✓ {name}: ask_user was not in {path}"),
        ("removed", _) => format!("✓ {name}: removed ask_user from {path}"),
        ("added", _) => format!("✓ {name}: added ask_user to {path}"),
        _ => format!("✓ {name}: updated ask_user in {path}"),
    };
    tell(&match &backup {
        Some(backup) => format!("{message} (backup: {})", backup.display()),
        None => message,
    });
    crate::print_document(&DoneLine {
        host: name,
        path: path.to_string(),
        action: verb,
        configured: action == Action::Set,
        backup: backup.map(|backup| backup.display().to_string()),
    });
    Ok(())
}

/// Whether the file already held an entry before this run changed it.
fn had_entry(plan: &Plan) -> bool {
    plan.before
        .as_deref()
        .is_some_and(|before| entry_in(plan.host, before).is_ok_and(|entry| entry.is_some()))
}

/// Without hosts on the command line: the person picks them on the
/// terminal, with ask_user's own multi-select; detected hosts (or, to
/// remove, the configured ones) come pre-selected. `Err` holds the exit code.
fn choose(env: &Env, action: Action) -> Result<Vec<Host>, i32> {
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
    let prompt = picker(env, action, &preselected);
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
/// (so option n is host n), with its file.
fn picker(env: &Env, action: Action, preselected: &[Host]) -> crate::model::Prompt {
    use crate::model::{Choice, Default, Kind, Prompt, Question};
    let options = Host::ALL
        .iter()
        .enumerate()
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
        .filter(|(_, host)| preselected.contains(host))
        .map(|(index, _)| (index + 1).to_string())
        .collect::<Vec<_>>();
    let text = match action {
        Action::Set => "Which hosts should ask_user connect to?",
        Action::Remove => "Remove ask_user from which hosts?",
    };
    Prompt {
        title: None,
        context: None,
        timeout_ms: None,
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
        .and_then(|path| crate::platform::paths::canonical(&path))
        .map_err(|e| {
            AskError::WriteError(Detail::new(format!(
                "cannot find the path of this ask_user binary ({e}); run setup from an installed binary"
            )))
        })?;
    let temp = std::env::temp_dir();
    let temp = crate::platform::paths::canonical(&temp).unwrap_or(temp);
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
        crate::platform::paths::HOME_VAR
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
    use super::*;

    fn env(platform: Platform) -> Env {
        Env {
            platform,
            home: PathBuf::from("/h"),
            appdata: None,
            xdg_config_home: None,
            codex_home: None,
            claude_config_dir: None,
            gemini_cli_home: None,
            path: None,
        }
    }

    #[test]
    fn the_table_is_in_host_order() {
        for host in Host::ALL {
            assert_eq!(
                host.spec().name,
                clap::ValueEnum::to_possible_value(&host)
                    .unwrap()
                    .get_name()
            );
        }
    }

    #[test]
    fn linux_paths_follow_the_issue_and_the_variables() {
        let mut env = env(Platform::Linux);
        let paths: Vec<_> = Host::ALL.map(|host| config_path(host, &env)).into();
        assert_eq!(
            paths,
            [
                "/h/.claude.json",
                "/h/.config/Claude/claude_desktop_config.json",
                "/h/.codex/config.toml",
                "/h/.gemini/settings.json",
                "/h/.gemini/antigravity/mcp_config.json",
                "/h/.cursor/mcp.json",
                "/h/.config/Code/User/mcp.json",
                "/h/.config/amp/settings.json",
            ]
            .map(PathBuf::from)
        );
        env.xdg_config_home = Some("/x".into());
        env.codex_home = Some("/c".into());
        env.claude_config_dir = Some("/cc".into());
        env.gemini_cli_home = Some("/g".into());
        let paths: Vec<_> = Host::ALL.map(|host| config_path(host, &env)).into();
        assert_eq!(
            paths,
            [
                "/cc/.claude.json",
                "/x/Claude/claude_desktop_config.json",
                "/c/config.toml",
                "/g/.gemini/settings.json",
                "/h/.gemini/antigravity/mcp_config.json",
                "/h/.cursor/mcp.json",
                "/x/Code/User/mcp.json",
                "/x/amp/settings.json",
            ]
            .map(PathBuf::from)
        );
    }

    #[test]
    fn macos_keeps_desktop_apps_in_application_support() {
        let env = env(Platform::MacOs);
        assert_eq!(
            config_path(Host::ClaudeDesktop, &env),
            PathBuf::from("/h/Library/Application Support/Claude/claude_desktop_config.json")
        );
        assert_eq!(
            config_path(Host::Vscode, &env),
            PathBuf::from("/h/Library/Application Support/Code/User/mcp.json")
        );
        assert_eq!(
            config_path(Host::Amp, &env),
            PathBuf::from("/h/.config/amp/settings.json")
        );
        assert_eq!(
            config_path(Host::Cursor, &env),
            PathBuf::from("/h/.cursor/mcp.json")
        );
    }

    #[test]
    fn the_environment_is_read_by_the_platforms_rules() {
        let vars = |name: &str| {
            let value = match name {
                "APPDATA" => "/roaming",
                "XDG_CONFIG_HOME" => "relative/config",
                "CODEX_HOME" => "/codex",
                "CLAUDE_CONFIG_DIR" => "",
                "PATH" => "/bin",
                _ => return None,
            };
            Some(OsString::from(value))
        };
        let linux = Env::from_vars(Platform::Linux, PathBuf::from("/h"), vars);
        // APPDATA is Windows' own; a relative XDG_CONFIG_HOME is ignored; empty is unset.
        assert_eq!(linux.appdata, None);
        assert_eq!(linux.xdg_config_home, None);
        assert_eq!(linux.codex_home, Some(PathBuf::from("/codex")));
        assert_eq!(linux.claude_config_dir, None);
        assert_eq!(linux.gemini_cli_home, None);
        assert_eq!(linux.path, Some(OsString::from("/bin")));
        let windows = Env::from_vars(Platform::Windows, PathBuf::from("/h"), vars);
        assert_eq!(windows.appdata, Some(PathBuf::from("/roaming")));
        // Absolute as the running binary's std sees it: `/xdg` has no drive
        // on Windows, so it is relative there.
        let xdg = if cfg!(windows) { r"C:\xdg" } else { "/xdg" };
        let absolute = Env::from_vars(Platform::Linux, PathBuf::from("/h"), |name| {
            (name == "XDG_CONFIG_HOME").then(|| OsString::from(xdg))
        });
        assert_eq!(absolute.xdg_config_home, Some(PathBuf::from(xdg)));
    }

    #[test]
    fn windows_keeps_desktop_apps_in_appdata_and_the_rest_in_the_profile() {
        // The paths as a Windows binary builds them, written here with `/`
        // so that the test runs on every platform.
        let mut env = env(Platform::Windows);
        env.home = PathBuf::from("/Users/a");
        let paths: Vec<_> = Host::ALL.map(|host| config_path(host, &env)).into();
        assert_eq!(
            paths,
            [
                "/Users/a/.claude.json",
                "/Users/a/AppData/Roaming/Claude/claude_desktop_config.json",
                "/Users/a/.codex/config.toml",
                "/Users/a/.gemini/settings.json",
                "/Users/a/.gemini/antigravity/mcp_config.json",
                "/Users/a/.cursor/mcp.json",
                "/Users/a/AppData/Roaming/Code/User/mcp.json",
                "/Users/a/.config/amp/settings.json",
            ]
            .map(PathBuf::from)
        );
        // %APPDATA% wins for the desktop apps; XDG_CONFIG_HOME does not
        // move them (it moves Amp's, as everywhere).
        env.appdata = Some("/roaming".into());
        env.xdg_config_home = Some("/x".into());
        assert_eq!(
            config_path(Host::ClaudeDesktop, &env),
            PathBuf::from("/roaming/Claude/claude_desktop_config.json")
        );
        assert_eq!(
            config_path(Host::Vscode, &env),
            PathBuf::from("/roaming/Code/User/mcp.json")
        );
        assert_eq!(
            config_path(Host::Amp, &env),
            PathBuf::from("/x/amp/settings.json")
        );
    }

    #[cfg(windows)]
    #[test]
    fn windows_paths_use_backslashes() {
        let mut env = env(Platform::Windows);
        env.home = PathBuf::from(r"C:\Users\a");
        env.appdata = Some(r"C:\Users\a\AppData\Roaming".into());
        assert_eq!(
            config_path(Host::ClaudeDesktop, &env).to_str(),
            Some(r"C:\Users\a\AppData\Roaming\Claude\claude_desktop_config.json")
        );
        assert_eq!(
            config_path(Host::Codex, &env).to_str(),
            Some(r"C:\Users\a\.codex\config.toml")
        );
    }

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

    #[test]
    fn detection_takes_config_folders_and_executable_programs_only() {
        let root = tempfile::tempdir().unwrap();
        let mut env = env(Platform::current());
        env.home = root.path().join("home");
        std::fs::create_dir_all(env.home.join(".cursor")).unwrap();
        std::fs::create_dir_all(env.home.join(".claude")).unwrap();
        let bin = root.path().join("bin");
        std::fs::create_dir_all(bin.join("codex")).unwrap();
        // A program on Unix is an executable file; on Windows a file with
        // an extension PATHEXT lists.
        #[cfg(unix)]
        for (name, mode) in [("gemini", 0o755), ("amp", 0o644)] {
            use std::os::unix::fs::PermissionsExt;
            std::fs::write(bin.join(name), "").unwrap();
            std::fs::set_permissions(bin.join(name), std::fs::Permissions::from_mode(mode))
                .unwrap();
        }
        #[cfg(windows)]
        for name in ["gemini.cmd", "amp"] {
            std::fs::write(bin.join(name), "").unwrap();
        }
        env.path = Some(bin.into_os_string());
        // A folder named codex and a file amp that cannot run are no programs.
        assert_eq!(detect(&env), [Host::ClaudeCode, Host::Gemini, Host::Cursor]);
        env.path = None;
        assert_eq!(detect(&env), [Host::ClaudeCode, Host::Cursor]);
    }

    #[test]
    fn the_wait_said_is_the_wait_written_and_hosts_without_forms_take_auto() {
        for host in Host::ALL {
            let spec = host.spec();
            let written = spec
                .args
                .windows(2)
                .find(|pair| pair[0] == "--wait")
                .map(|pair| pair[1].parse::<u64>().unwrap());
            assert_eq!(written, spec.road.wait_seconds, "{}", spec.name);
            let auto = spec.args.windows(2).any(|p| p == ["--fallback", "auto"]);
            assert_eq!(auto, spec.road.way == "page or inbox", "{}", spec.name);
            assert!(
                spec.road.checked.starts_with("not run: ")
                    || spec.road.checked.chars().any(|c| c.is_ascii_digit()),
                "{}",
                spec.name
            );
        }
        assert_eq!(NO_FORMS_WAIT_ARG.parse::<u64>(), Ok(NO_FORMS_WAIT));
    }

    /// Claude Desktop declares forms but never shows them: its entry asks
    /// for none, and takes the page or the inbox within the wait. No other
    /// host is kept from its forms.
    #[test]
    fn only_the_host_that_never_shows_its_forms_is_asked_for_none() {
        for host in Host::ALL {
            let spec = host.spec();
            let none = spec.args.contains(&"--no-elicitation");
            assert_eq!(none, spec.name == "claude-desktop", "{}", spec.name);
        }
        assert_eq!(Host::ClaudeDesktop.spec().args, FORMS_NEVER_SHOWN);
        assert_eq!(FORMS_NEVER_SHOWN[1..], *NO_FORMS);
    }
}
