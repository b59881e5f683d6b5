//! The hosts that setup connects, one row each in [`HOSTS`]: the format of
//! the host's config file, what its entry carries and the road that entry
//! takes to the person (what `setup --list` reports).
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

    pub(super) fn spec(self) -> &'static Spec {
        &HOSTS[self as usize]
    }
}

/// How a host's file holds its servers.
pub(super) enum Format {
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
pub(super) struct Spec {
    pub(super) name: &'static str,
    /// What people call it.
    pub(super) title: &'static str,
    pub(super) format: Format,
    /// Arguments after `mcp`: what this host needs to reach the person.
    pub(super) args: &'static [&'static str],
    /// Codex's limit for one tool call.
    pub(super) tool_timeout_sec: Option<u64>,
    /// Programs whose presence on PATH means the host is installed.
    pub(super) programs: &'static [&'static str],
    /// What `setup --list` says of the road this entry takes.
    pub(super) road: Road,
}

/// How a host's entry reaches the person, and what backs that claim.
pub(super) struct Road {
    /// `form` (the host's own MCP form); `prompt` (no forms: the model
    /// relays the question in the chat, the default fallback); `form or
    /// prompt` (not known whether it shows forms); `page or inbox`
    /// (`--fallback auto`: the inbox when one runs, else ask_user's page).
    pub(super) way: &'static str,
    /// Always `stdio` today.
    pub(super) transport: &'static str,
    /// The `--wait` written into `args`, in seconds (`None`: none).
    pub(super) wait_seconds: Option<u64>,
    /// The host's own limit on one tool call, and its source.
    pub(super) host_limit: &'static str,
    /// The host version this road was run with, or `not run: why`.
    pub(super) checked: &'static str,
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
/// road of hosts without forms at once.
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
pub(super) const CODEX_SERVER_TIMEOUT: &str = "300";
pub(super) const CODEX_TOOL_TIMEOUT_SEC: u64 = 1860;
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

#[cfg(test)]
mod tests {
    use super::*;

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
