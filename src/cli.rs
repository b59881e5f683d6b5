//! The command line: clap's definitions of every subcommand and flag, and
//! the parsers of their values. `main.rs` maps what is parsed here onto the
//! library.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use ask_user::check;
use ask_user::describe::Format;
use ask_user::mcp::Fallback;
use ask_user::schema::Schema;
use ask_user::setup::Host;

#[derive(Parser)]
#[command(
    name = "ask_user",
    // Not the executable's own name: on Windows that is `ask_user.exe`, and
    // usage lines and --help read the same on every system.
    bin_name = "ask_user",
    version,
    about = "Ask a person a structured question; get strict JSON back.",
    long_about = "Ask a person a structured question; get strict JSON back.\n\n\
        One binary, several faces: an MCP server for agent hosts (mcp; setup writes it into\n\
        their config files), the terminal (ask), a local page or one inbox page for every agent\n\
        on this machine (ask --ui web, inbox), and a tool that hosts run with TOOLBOX_ACTION set\n\
        (describe prints the tool description; execute reads the tool input on stdin and prints\n\
        the prompt document, as the prompt command does).\n\
        Documents go to stdout, one JSON line (check's text and github reports are lines of\n\
        text, and mcp speaks its protocol there); everything for people goes to stderr.",
    disable_help_subcommand = true,
    after_help = "Exit codes: 0 success, 1 error (error document on stdout), 2 usage error,\n\
        124 timed out (ask), 130 cancelled (ask)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Print the prompt document for a tool input (what TOOLBOX_ACTION=execute prints).
    #[command(display_order = 7)]
    Prompt {
        /// The tool input: a JSON file, or - (the default) for stdin.
        file: Option<PathBuf>,
    },
    /// Ask a person and print the answer document (on the terminal, or `--ui web`: a local page).
    #[command(
        after_help = "Keys: ↑/↓ (or j/k, Tab) move, Enter chooses, Space toggles in a multi select,\n\
        1-9 jump to an option, y/n answer a confirm, Ctrl-J (or Alt-Enter) starts a new line\n\
        in a text or Other field, Ctrl-N opens a note on the answer (Enter or Ctrl-N go back\n\
        to the answer), Esc or q (Ctrl-C too) cancel.\n\
        --ui plain: each question printed once as lines; type a number, a label, yes/no or\n\
        text and press Enter; a line /note TEXT before the answer adds a note; Ctrl-C or\n\
        Ctrl-D cancel. No escape sequences (screen readers).\n\
        --reply TEXT answers without asking; --note TEXT after a --reply adds a note to it.\n\
        Exit codes: 0 answered, 1 error (NO_TTY without a terminal), 2 usage error,\n\
        124 timed out, 130 cancelled."
    )]
    #[command(display_order = 2)]
    Ask(AskArgs),
    /// Check a person's relayed reply against a tool input or a prompt document.
    #[command(
        after_help = "Replies: an option number (2, #2, 2.), numbers for a multi select (1,3 or 1 3),\n\
        an option label (exact, then ignoring case), yes/no/y/n/true/false for a confirm, any text\n\
        for a text question or Other; \"\" skips a question that is not required. A number that\n\
        names no option (9, -1, 1.5) is asked again, never taken as Other text.\n\
        Notes: --note TEXT after a --reply adds a note to that answer, at most one per reply\n\
        (--reply 2 --note \"keep SQLite for tests\"); a note is data, as a reply is.\n\
        Exit codes: 0 answered, 1 error (INVALID_REPLY, or the input's own error document),\n\
        2 usage error."
    )]
    #[command(display_order = 8)]
    Answer {
        /// The person's reply: one per question, in order. A reply is data, even when it
        /// starts with "-" (--reply "-1", --reply "- use Redis").
        #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
        reply: Vec<String>,
        /// A note on the answer, given after the --reply it goes with (one per reply at most):
        /// --reply 2 --note "keep SQLite for tests". A note is data, as a reply is.
        #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
        note: Vec<String>,
        /// The notes paired with their replies (filled in by [`Cli::parse_args`]).
        #[arg(skip)]
        notes: Vec<Option<String>>,
        /// The tool input or prompt document: a JSON file, or - (the default) for stdin.
        file: Option<PathBuf>,
    },
    /// Check tool inputs and ask_user documents in files and folders (for CI).
    #[command(
        long_about = "Check tool inputs and ask_user documents in files and folders (for CI).\n\n\
            Folders are searched recursively for *.json (names starting with . are skipped).\n\
            Each file is a tool input in any dialect, or a prompt, answer or error document\n\
            that ask_user printed; each is validated by the same code the other faces use.",
        after_help = "Exit codes: 0 every file valid, 1 any file invalid or unreadable, 2 usage error."
    )]
    #[command(display_order = 9)]
    Check {
        /// Files and folders to check; - reads stdin.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// text: one line per invalid file (summary on stderr); json: one document listing
        /// every file; github: GitHub Actions annotations.
        #[arg(long, value_enum, default_value = "text")]
        format: check::Format,
        /// Print failures only: no summary line; json lists only invalid files.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Print a JSON Schema (2020-12) for tool inputs or for a document ask_user prints.
    #[command(display_order = 10)]
    Schema {
        /// Which schema to print.
        #[arg(value_enum)]
        name: SchemaName,
    },
    /// Print the tool description for a host.
    #[command(display_order = 11)]
    Describe {
        /// Which host's tool format to print.
        #[arg(long, value_enum, default_value = "amp")]
        format: DescribeFormat,
        /// The tool's name (claude and openai: at most 64 characters, no dots).
        #[arg(long, value_name = "NAME", default_value = ask_user::TOOL_NAME, value_parser = parse_tool_name)]
        tool_name: String,
    },
    /// Serve MCP over stdio: one tool, ask_user, asked through the client's forms.
    #[command(display_order = 3)]
    Mcp {
        /// What to do when the client cannot show a form.
        #[arg(long, value_enum, default_value = "prompt")]
        fallback: Fallback,
        /// Never ask through the client's forms; always use the fallback.
        #[arg(long)]
        no_elicitation: bool,
        /// Seconds to wait for the person when the input gives no timeout (decimals allowed;
        /// 0: no limit of the server's own, as long as the client keeps the call).
        #[arg(long, value_name = "SECONDS", default_value = "300", value_parser = parse_wait, allow_negative_numbers = true)]
        timeout: Duration,
        /// Seconds one call waits for the person (on the client's form, the answer page or in the
        /// inbox) before it returns a pending document (not an answer; the question stays
        /// answerable, and {"resume": ID} collects it). A form not answered by then goes on in
        /// the inbox or on the page, as --fallback says. Set it below the host's own tool-call
        /// timeout. Default: wait for the outcome.
        #[arg(long, value_name = "SECONDS", value_parser = parse_call_wait, allow_negative_numbers = true)]
        wait: Option<Duration>,
        /// Port for the answer page of --fallback web (default: a free one).
        #[arg(long, value_name = "N", value_parser = parse_port, allow_negative_numbers = true)]
        port: Option<u16>,
        /// Open the answer page of --fallback web with the system's browser opener.
        #[arg(long)]
        open: bool,
        /// Serve the tool under this name: 1 to 128 characters of A-Z, a-z, 0-9, _, - and .
        /// (Gemini CLI hides a tool named ask_user in headless runs).
        #[arg(long, value_name = "NAME", default_value = ask_user::TOOL_NAME, value_parser = parse_tool_name)]
        tool_name: String,
    },
    /// Answer a host's own ask tool through ask_user while you are away (a hook the host runs).
    #[command(
        long_about = "Answer a host's own ask tool through ask_user: a hook command the host runs, with its\n\
            event on stdin. Claude Code: a PreToolUse hook matched on AskUserQuestion, and an\n\
            Elicitation hook (any MCP server's form). Codex: a PreToolUse hook matched on\n\
            request_user_input. Gemini CLI: a BeforeTool hook matched on ^ask_user$. While you are\n\
            away (ask_user away on) and an inbox runs, the question is asked in the inbox and your\n\
            answer goes back to the host in its own shape (Codex, Gemini CLI: in the reason of a\n\
            denial, the only answer their hooks can give); a timeout or cancel goes back as the\n\
            host's \"no answer\", never an option.\n\
            At the keyboard it steps aside (nothing on stdout) and the host asks as before.",
        after_help = "Exit codes: 0 answered or stepped aside (stdout: the host's hook output, or nothing),\n\
            1 an input the hook cannot answer (one line on stderr; the host goes on with its own UI),\n\
            2 usage error."
    )]
    #[command(display_order = 6)]
    Hook {
        /// The host that runs the hook.
        #[arg(value_enum)]
        host: ask_user::hook::Host,
        /// Seconds the person has to answer before the host gets "no answer" (decimals
        /// allowed; 0: no limit). Default: the question's own timeout, else as long as the
        /// host lets the hook run. Keep it below the host's timeout for the hook.
        #[arg(long, value_name = "SECONDS", value_parser = parse_wait, allow_negative_numbers = true)]
        timeout: Option<Duration>,
    },
    /// Say whether you are away from the keyboard (hooks ask through the inbox while you are).
    #[command(
        long_about = "Say whether you are away from the keyboard. Away, `ask_user hook HOST` asks the\n\
            host's own questions in the inbox (and through the inbox's notifications); at the keyboard the\n\
            host asks as before. Kept in away.json in the state folder; no file is at the keyboard.\n\
            Prints the state: {\"tool\":\"ask_user\",\"version\":1,\"status\":\"ok\",\"away\":true,\"since\":MS}.",
        after_help = "Exit codes: 0 done (the state on stdout), 1 error (error document on stdout), 2 usage error."
    )]
    #[command(display_order = 5)]
    Away {
        /// on: away; off: at the keyboard; status: print the state.
        #[arg(value_enum)]
        state: AwayVerb,
    },
    /// Print this help, or the help of a command.
    #[command(display_order = 13)]
    Help {
        /// The command whose help to print.
        command: Option<String>,
    },
    /// Connect hosts (Claude Code, Codex, Gemini CLI, VS Code, …): add ask_user to their MCP config.
    #[command(
        long_about = "Connect hosts to ask_user: write its MCP server entry (this binary's absolute path,\n\
            with `mcp`) into each host's user-level config file, keeping everything else in the file.\n\
            Run from npx's or uvx's cache (npx -y ask-user, uvx --from ask-user ask_user), the entry\n\
            runs that same pinned command instead, since the cache may be emptied at any time.\n\n\
            Without HOST on a terminal, choose among the hosts (those found on this machine pre-selected).",
        after_help = "Hosts and files (Linux): claude-code ~/.claude.json, claude-desktop ~/.config/Claude/claude_desktop_config.json,\n\
            codex ~/.codex/config.toml, gemini ~/.gemini/settings.json, antigravity ~/.gemini/antigravity/mcp_config.json,\n\
            cursor ~/.cursor/mcp.json, vscode ~/.config/Code/User/mcp.json, amp ~/.config/amp/settings.json.\n\
            stdout: one JSON line per host (--dry-run: a unified diff per file); stderr: one line per host for people.\n\
            Exit codes: 0 done, 1 any host failed (its error document on stdout), 2 usage error, 130 cancelled."
    )]
    #[command(display_order = 1)]
    Setup(SetupArgs),
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell.
    #[command(
        after_help = "Load it for this shell, or install it where your shell looks:\n  \
        bash: source <(ask_user completions bash)       (~/.local/share/bash-completion/completions/ask_user)\n  \
        zsh:  ask_user completions zsh > ~/.zfunc/_ask_user   (with fpath+=(~/.zfunc) before compinit)\n  \
        fish: ask_user completions fish > ~/.config/fish/completions/ask_user.fish\n  \
        elvish: eval (ask_user completions elvish | slurp)\n  \
        powershell: ask_user completions powershell | Out-String | Invoke-Expression\n\
        Exit codes: 0 printed, 2 usage error."
    )]
    #[command(display_order = 12)]
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the man pages (ask_user.1 and one ask_user-COMMAND.1 per command) into DIR.
    /// For packagers: release archives carry them already.
    #[command(hide = true)]
    Man {
        /// The folder to write the pages into (created if missing).
        dir: PathBuf,
    },
    /// Serve the inbox: one page for every question from every asker on this machine.
    /// With a verb: list, answer or cancel its questions, or print its history, from any terminal.
    #[command(
        args_conflicts_with_subcommands = true,
        after_help = "Askers find the inbox through inbox.json in the state folder ($ASK_USER_STATE_DIR,\n\
        else $XDG_STATE_HOME/ask_user, else ~/.local/state/ask_user; on Windows\n\
        %LOCALAPPDATA%\\ask_user), or ASK_USER_INBOX and ASK_USER_TOKEN. Ctrl-C or SIGTERM\n\
        (on Windows Ctrl-C, Ctrl-Break or closing the console) stops it (exit 0); pending\n\
        questions stay in its store.\n\
        Exit codes: 0 stopped or done, 1 error (error document on stdout), 2 usage error."
    )]
    #[command(display_order = 4)]
    Inbox(Box<InboxArgs>),
}

#[derive(clap::Args)]
pub struct SetupArgs {
    /// The hosts to connect.
    #[arg(value_enum, value_name = "HOST")]
    pub hosts: Vec<Host>,
    /// Print what would change, as a unified diff per file; write nothing.
    #[arg(long, conflicts_with = "list")]
    pub dry_run: bool,
    /// Take ask_user's entry out instead (nothing else; with --hooks, its hooks too).
    #[arg(long, conflicts_with = "list")]
    pub remove: bool,
    /// Also write the hooks that answer the host's own ask tool through ask_user while you
    /// are away (claude-code: ~/.claude/settings.json; codex: ~/.codex/config.toml, then
    /// trust them in codex with /hooks; gemini: ~/.gemini/settings.json).
    #[arg(long, conflicts_with = "list")]
    pub hooks: bool,
    /// Print one JSON line per host: host, path, exists, configured, command, args.
    #[arg(long)]
    pub list: bool,
}

#[derive(clap::Args)]
pub struct InboxArgs {
    #[command(subcommand)]
    pub verb: Option<InboxVerb>,
    /// Port on 127.0.0.1 (0: a free one).
    #[arg(long, value_name = "N", default_value_t = ask_user::inbox::DEFAULT_PORT, value_parser = parse_port, allow_negative_numbers = true)]
    pub port: u16,
    /// Listen on ADDRESS:PORT instead (an IP address; 0.0.0.0 for every address). Past
    /// loopback it needs --tls-cert and --tls-key, or --behind-proxy: plain HTTP is refused.
    #[arg(long, value_name = "ADDRESS:PORT", conflicts_with = "port", value_parser = ask_user::inbox::listen::parse_listen)]
    pub listen: Option<std::net::SocketAddr>,
    /// Serve over TLS with this PEM certificate chain (leaf first).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The PEM private key of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
    /// A reverse proxy in front terminates TLS: plain HTTP past loopback is allowed,
    /// and the inbox answers to --public-url.
    #[arg(long, requires = "public_url")]
    pub behind_proxy: bool,
    /// The https:// address people and askers open (the proxy's, or this machine's
    /// name): the page's URL, and a Host and Origin the inbox answers to.
    #[arg(long, value_name = "URL", value_parser = ask_user::inbox::listen::parse_public_url)]
    pub public_url: Option<ask_user::inbox::listen::PublicUrl>,
    /// Open the page with the system's browser opener.
    #[arg(long)]
    pub open: bool,
    /// Make a new token: bookmarks of the page stop working.
    #[arg(long)]
    pub new_token: bool,
    /// Run CMD for each new question, with its prompt document on stdin: a bridge to
    /// ntfy, Slack, a phone. CMD runs as `/bin/sh -c CMD` with ASK_USER_INBOX_ID,
    /// ASK_USER_QUESTION and ASK_USER_ASKER set; a failing or slow CMD is logged, never fatal.
    /// Without it: ASK_USER_NOTIFY_CMD (empty: none).
    #[arg(long, value_name = "CMD")]
    pub notify: Option<String>,
    /// Send each new question to a channel the person can answer from: ntfy=https://HOST/TOPIC,
    /// slack=env, webhook=URL, email=smtp://HOST:PORT/?to=ADDRESS, matrix=https://HOMESERVER/ROOM.
    /// Repeatable. Secrets come from ASK_USER_* variables (docs/inbox-channels.md), never from here;
    /// http:// only to this machine. Delivery is retried and never slows an ask.
    #[arg(long, value_name = "KIND=URL", value_parser = ask_user::inbox::contact::Spec::parse)]
    pub notify_to: Vec<ask_user::inbox::contact::Spec>,
    /// Seconds --notify's CMD may run before it (and its process group) is killed;
    /// also each --notify-to delivery attempt's time limit.
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_notify_limit, allow_negative_numbers = true)]
    pub notify_timeout: Duration,
    /// Seconds a question may be without its asker (killed, disconnected)
    /// before it is marked "asker gone".
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_wait, hide = true, allow_negative_numbers = true)]
    pub asker_grace: Duration,
    /// How long a question is kept after its asker gave up (its timeout, a host's
    /// tool timeout, a kill), for an answer to be collected with {"resume": ID};
    /// also how long an outcome can be resumed. Seconds, or with a unit: 90s, 30m, 24h, 7d.
    #[arg(long, value_name = "TIME", default_value = "24h", value_parser = parse_retention, allow_hyphen_values = true)]
    pub retention: Duration,
    /// Where questions are kept: a PostgreSQL URL (postgres://USER@HOST/DB, for
    /// an inbox past one machine), or a SQLite file. Without it: ASK_USER_STORE; else
    /// inbox.sqlite3 in the state folder.
    #[arg(long, value_name = "URL|FILE")]
    pub store: Option<String>,
    /// Connections this replica opens to a PostgreSQL store (1 to 32): one question's
    /// writes always go through the same one, in order; asks spread over them.
    /// A SQLite store always has one.
    #[arg(long, value_name = "N", default_value_t = ask_user::inbox::store::pool::DEFAULT_CONNECTIONS,
          value_parser = parse_store_connections)]
    pub store_connections: usize,
    /// Named tokens with roles, one `ROLE NAME TOKEN` a line (ROLE: person or asker):
    /// a person lists, answers, cancels and reads history (which records the name); an
    /// asker asks and waits for its own questions only. The file must be private (chmod 600).
    #[arg(long, value_name = "FILE")]
    pub tokens: Option<std::path::PathBuf>,
    /// A policy file (TOML): each person's contacts (`[people.NAME] notify = ["KIND=URL"]`),
    /// to which a question addressed with `to` is notified, and an escalation ladder
    /// (`[[escalate]] after, notify, via`) run while a question is unanswered. Read again
    /// when it changes; a bad edit keeps the last good one. `ask_user check FILE` checks it.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<std::path::PathBuf>,
}

#[derive(Subcommand)]
pub enum InboxVerb {
    /// Print one JSON line per pending question, oldest first.
    List,
    /// Print one JSON line per decided question, the most recently decided first.
    #[command(
        after_help = "Each line: inboxId, source, askedAt, outcome (answered, declined, cancelled, dismissed,\n\
        timed_out, asker_gone), face (page, cli, asker, inbox, link, ntfy, matrix, rule), decidedBy (a person token's name or a rule's id,\n\
        when one decided), decidedAt, question (its prompt\n\
        document), answer (the answer document its asker got). Nothing in it is ever rewritten.\n\
        Exit codes: 0 done, 1 error (NO_INBOX), 2 usage error."
    )]
    History {
        /// Print at most N entries.
        #[arg(long, value_name = "N", value_parser = parse_limit, allow_negative_numbers = true)]
        limit: Option<usize>,
    },
    /// Answer a pending question: one --reply per question, in order (as `answer`).
    #[command(
        after_help = "Prints the answer document its asker gets. Exit codes: 0 answered, 1 error\n\
        (NO_INBOX, UNKNOWN_QUESTION, ALREADY_ANSWERED, INVALID_REPLY), 2 usage error."
    )]
    Answer {
        /// The question's inboxId (from `inbox list` or the page).
        id: String,
        /// The person's reply: one per question, in order. A reply is data, even when it
        /// starts with "-" (--reply "-1", --reply "- use Redis").
        #[arg(long, value_name = "TEXT", required = true, allow_hyphen_values = true)]
        reply: Vec<String>,
        /// A note on the answer, given after the --reply it goes with (one per reply at most):
        /// --reply 2 --note "keep SQLite for tests". A note is data, as a reply is.
        #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
        note: Vec<String>,
        /// The notes paired with their replies (filled in by [`Cli::parse_args`]).
        #[arg(skip)]
        notes: Vec<Option<String>>,
    },
    /// Cancel a pending question: its asker gets a cancelled document (exit 130).
    #[command(
        after_help = "Prints the cancelled document its asker gets. Exit codes: 0 cancelled, 1 error\n\
        (NO_INBOX, UNKNOWN_QUESTION, ALREADY_ANSWERED), 2 usage error."
    )]
    Cancel {
        /// The question's inboxId (from `inbox list` or the page).
        id: String,
    },
    /// Pair a phone: print a QR code and a link that give it a person token named NAME.
    #[command(
        after_help = "Asks the running inbox (its own token) for a pairing code: single-use, good for 10 minutes.\n\
        Prints the QR code and the link on stderr, and on stdout one JSON line:\n\
        {\"tool\":\"ask_user\",\"version\":1,\"status\":\"ok\",\"url\",\"name\",\"expiresAt\"}.\n\
        The phone must reach the inbox: --listen ADDRESS:PORT with --tls-cert/--tls-key, or --public-url\n\
        (docs/inbox-phone.md, \"Reach the inbox from a phone\"). `inbox token remove NAME` unpairs it.\n\
        Exit codes: 0 done, 1 error (NO_INBOX, NOT_REACHABLE, INVALID_FIELD), 2 usage error."
    )]
    Pair {
        /// The phone's token name (1 to 64 visible characters, no spaces); default: phone-N.
        name: Option<String>,
    },
    /// Keep named tokens in the store (PostgreSQL: every replica takes them at once).
    Token {
        /// The store, as `inbox --store`: a PostgreSQL URL or a SQLite file. Without it:
        /// ASK_USER_STORE; else inbox.sqlite3 in the state folder.
        #[arg(long, value_name = "URL|FILE", global = true)]
        store: Option<String>,
        #[command(subcommand)]
        verb: TokenVerb,
    },
    /// Keep standing answers: "while I am away, answer this kind of question with X".
    #[command(
        after_help = "A rule answers a new question that matches all of its --source, --folder, --text and\n\
        --regex (at least one), with its --reply values (one per question, as `inbox answer`),\n\
        until it expires; --while-away: only while its owner is away (`ask_user inbox away on`).\n\
        Never a question marked \"human\": true, nor one that needs approvals. The answer says\n\
        answeredBy {kind: rule, name: the rule's id}; history records face rule and the id.\n\
        A running inbox takes a change within 5 s (PostgreSQL replicas: at once)."
    )]
    Rule {
        /// The store, as `inbox --store`: a PostgreSQL URL or a SQLite file. Without it:
        /// ASK_USER_STORE; else inbox.sqlite3 in the state folder.
        #[arg(long, value_name = "URL|FILE", global = true)]
        store: Option<String>,
        #[command(subcommand)]
        verb: RuleVerb,
    },
    /// A person's away switch in the store, which their --while-away rules follow.
    #[command(
        after_help = "Prints {\"person\",\"away\",\"since\"?}. The page's switch sets the same one for a person\n\
        token. Exit codes: 0 done, 1 error (STORE_ERROR), 2 usage error."
    )]
    Away {
        #[arg(value_enum)]
        verb: AwayVerb,
        /// Whose switch (a person token's name); default: this machine's user.
        #[arg(long, value_name = "NAME")]
        person: Option<String>,
        /// The store, as `inbox --store`.
        #[arg(long, value_name = "URL|FILE")]
        store: Option<String>,
    },
}

#[derive(Subcommand)]
pub enum RuleVerb {
    /// Add a rule; prints it as `rule list` does, with its id.
    #[command(
        after_help = "Exit codes: 0 kept, 1 error (STORE_ERROR), 2 usage error (no match, no reply, a bad\n\
        regex, a bad time)."
    )]
    Add {
        /// The reply it gives: one per question, in order (as `inbox answer --reply`).
        #[arg(long, value_name = "TEXT", required = true, allow_hyphen_values = true)]
        reply: Vec<String>,
        /// Only questions from this source (the host's name, as `inbox list` shows it).
        #[arg(long, value_name = "NAME")]
        source: Option<String>,
        /// Only questions asked in this folder or one under it.
        #[arg(long, value_name = "PATH")]
        folder: Option<String>,
        /// Only questions whose text (title, questions, contexts) contains this, in any case.
        #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
        text: Option<String>,
        /// Only questions whose text matches this regular expression (regex-lite syntax;
        /// (?i) for any case).
        #[arg(long, value_name = "REGEX", allow_hyphen_values = true)]
        regex: Option<String>,
        /// Only while its owner is away.
        #[arg(long)]
        while_away: bool,
        /// How long it stands: seconds, or 90s, 30m, 24h, 7d (at most 365 days).
        #[arg(long = "for", value_name = "TIME", default_value = "24h", value_parser = parse_rule_lifetime, allow_hyphen_values = true)]
        lasts: Duration,
        /// Whose rule it is (whose away switch --while-away follows); default: this
        /// machine's user.
        #[arg(long, value_name = "NAME")]
        owner: Option<String>,
    },
    /// Print one JSON line per rule: id, owner, its match, replies, whileAway, addedAt, expiresAt.
    List,
    /// Remove a rule: no replica answers by it any more (within 5 s; PostgreSQL: at once).
    Remove {
        /// The rule's id (from `rule list`).
        id: String,
    },
}

#[derive(Subcommand)]
pub enum TokenVerb {
    /// Make a token for NAME with ROLE and keep its SHA-256 (never the token) in the store.
    #[command(
        after_help = "Prints {\"name\",\"role\",\"token\"}: the token is shown this once. A running inbox\n\
        takes it within 5 s (PostgreSQL replicas: at once). Exit codes: 0 kept, 1 error (STORE_ERROR:\n\
        the store), 2 usage error (a bad or taken name, a bad group, --group on an asker)."
    )]
    Add {
        /// person (lists, answers, reads history) or asker (asks, waits for its own questions).
        #[arg(value_enum)]
        role: TokenRoleArg,
        /// Who holds it: recorded in history as who answered (1 to 64 characters, no spaces).
        name: String,
        /// A group this person belongs to (repeatable; person tokens only): a question's
        /// `to` reaches everyone in the group. Named like tokens (1 to 64 characters, no spaces).
        #[arg(long = "group", value_name = "G")]
        groups: Vec<String>,
    },
    /// Print one JSON line per kept token: name, role, groups, addedAt (never the token).
    List,
    /// Forget NAME's token: a running inbox refuses it within 5 s (PostgreSQL replicas: at once).
    Remove { name: String },
}

/// `ask_user away on|off|status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AwayVerb {
    On,
    Off,
    Status,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum TokenRoleArg {
    Person,
    Asker,
}

impl From<TokenRoleArg> for ask_user::inbox::store::TokenRole {
    fn from(role: TokenRoleArg) -> Self {
        match role {
            TokenRoleArg::Person => ask_user::inbox::store::TokenRole::Person,
            TokenRoleArg::Asker => ask_user::inbox::store::TokenRole::Asker,
        }
    }
}

#[derive(clap::Args)]
pub struct AskArgs {
    /// The tool input: a JSON file, or - (the default) for stdin.
    pub file: Option<PathBuf>,
    /// Where to ask: tty (the terminal), plain (the terminal as plain lines: screen
    /// readers, dumb terminals, pipes), web (a page on 127.0.0.1), inbox (the running
    /// `ask_user inbox`), or auto (the inbox when one runs, else the terminal).
    /// Without it: ASK_USER_UI, else plain when TERM=dumb, else tty.
    #[arg(long, value_enum)]
    pub ui: Option<Ui>,
    /// Port for --ui web (default: a free one).
    #[arg(long, value_name = "N", value_parser = parse_port, allow_negative_numbers = true)]
    pub port: Option<u16>,
    /// Open the page with the system's browser opener (--ui web).
    #[arg(long)]
    pub open: bool,
    /// Give up after this many seconds (exit 124; decimals allowed; 0 waits forever).
    /// Overrides the input's timeout.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub timeout: Option<Duration>,
    /// Answer without a terminal or page: one reply per question, in order (a reply
    /// starting with "-" is a reply too).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub reply: Vec<String>,
    /// A note on the answer, given after the --reply it goes with (one per reply at most).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub note: Vec<String>,
    /// The notes paired with their replies (filled in by [`Cli::parse_args`]).
    #[arg(skip)]
    pub notes: Vec<Option<String>>,
    /// When the question is shown on the terminal, ring its bell and send a desktop
    /// notification (OSC 9 and OSC 777: iTerm2, WezTerm, kitty, foot, Windows Terminal).
    /// --ui plain rings the bell only (a BEL byte, no escape sequence).
    #[arg(long)]
    pub bell: bool,
}

pub use ask_user::ask::Ui;

impl Cli {
    /// Parses `args` as `try_parse_from` does, then pairs each `--note` with
    /// the `--reply` before it; a note with no reply before it, or a second
    /// note for one reply, is a usage error.
    pub fn parse_args<I, T>(args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        use clap::{CommandFactory, FromArgMatches};
        let mut command = Cli::command();
        let matches = command.try_get_matches_from_mut(args)?;
        let mut cli = Cli::from_arg_matches(&matches)?;
        let (name, sub) = match matches.subcommand() {
            Some(("inbox", inbox)) => match inbox.subcommand() {
                Some(("answer", answer)) => ("inbox answer", answer),
                _ => return Ok(cli),
            },
            Some((name, sub)) if name == "ask" || name == "answer" => (name, sub),
            _ => return Ok(cli),
        };
        let paired = pair_notes(
            &indices(sub, "reply"),
            &indices(sub, "note"),
            sub.get_many::<String>("note").into_iter().flatten(),
        )
        .map_err(|message| {
            let mut found = command.clone();
            for part in name.split(' ') {
                found = match found.find_subcommand(part) {
                    Some(next) => next.clone(),
                    None => break,
                };
            }
            found.error(clap::error::ErrorKind::ArgumentConflict, message)
        })?;
        match &mut cli.command {
            Some(Command::Answer { notes, .. }) => *notes = paired,
            Some(Command::Ask(args)) => args.notes = paired,
            Some(Command::Inbox(args)) => {
                if let Some(InboxVerb::Answer { notes, .. }) = &mut args.verb {
                    *notes = paired;
                }
            }
            _ => {}
        }
        Ok(cli)
    }
}

fn indices(matches: &clap::ArgMatches, id: &str) -> Vec<usize> {
    matches.indices_of(id).into_iter().flatten().collect()
}

/// One entry per reply (by position on the command line): the note given
/// after it and before the next reply, if any.
pub fn pair_notes<'a>(
    replies: &[usize],
    notes: &[usize],
    texts: impl IntoIterator<Item = &'a String>,
) -> Result<Vec<Option<String>>, String> {
    let mut paired: Vec<Option<String>> = vec![None; replies.len()];
    for (&at, text) in notes.iter().zip(texts) {
        let Some(reply) = replies.iter().rposition(|&r| r < at) else {
            return Err(format!(
                "--note {text:?} comes before any --reply; give it after the reply it goes with"
            ));
        };
        if paired[reply].is_some() {
            return Err(format!(
                "reply {} has two notes; give at most one --note after each --reply",
                reply + 1
            ));
        }
        paired[reply] = Some(text.clone());
    }
    Ok(paired)
}

/// `--tool-name`: MCP's rule for tool names (the stricter API rules of
/// `describe --format claude|openai` are checked once the format is known).
pub fn parse_tool_name(text: &str) -> Result<String, String> {
    ask_user::describe::check_tool_name(text, Format::Mcp).map(|()| text.to_string())
}

/// The face `ask` uses: `--ui`, else `ASK_USER_UI` (`ui_env`; empty counts
/// as unset), else plain on a dumb terminal (`term`), else the full terminal UI.
pub fn choose_ui(flag: Option<Ui>, ui_env: Option<&str>, term: Option<&str>) -> Result<Ui, String> {
    use clap::ValueEnum;
    if let Some(ui) = flag {
        return Ok(ui);
    }
    match ui_env.filter(|v| !v.is_empty()) {
        Some(value) => Ui::from_str(value, true).map_err(|_| {
            format!("ASK_USER_UI must be tty, plain, web, inbox or auto, not {value:?}")
        }),
        None if term == Some("dumb") => Ok(Ui::Plain),
        None => Ok(Ui::Tty),
    }
}

/// A number of seconds as written (decimals allowed), any sign: each flag
/// says its own range. The numeric flags take a value that starts with `-`
/// (`allow_negative_numbers`), so `--timeout -5` reaches these parsers and
/// gets their range instead of clap's "to pass '-5' as a value, use '-- -5'".
fn seconds(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite())
        .ok_or_else(|| format!("{text:?} is not a number of seconds (like 30 or 0.5)"))
}

/// [`seconds`] as a duration when it is within `0..=max`, else `None`.
fn seconds_within(text: &str, max: f64) -> Result<Option<Duration>, String> {
    let n = seconds(text)?;
    Ok(if (0.0..=max).contains(&n) {
        Duration::try_from_secs_f64(n).ok()
    } else {
        None
    })
}

/// `ask --timeout`: 0 or more seconds, decimals allowed (0: no limit).
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    if seconds(text)? < 0.0 {
        return Err(format!(
            "{text:?} is negative: give a number of seconds, 0 or more (like 30 or 0.5; 0 waits forever)"
        ));
    }
    seconds_within(text, f64::MAX)?
        .ok_or_else(|| format!("{text:?} is too many seconds: give 0 for no limit"))
}

/// `--port`: 0 to 65535 (0: a free one).
pub fn parse_port(text: &str) -> Result<u16, String> {
    text.trim().parse::<u16>().map_err(|_| {
        format!("{text:?} is not a port: give a number from 0 to 65535 (0: a free one)")
    })
}

/// `inbox history --limit`: a count, 0 or more.
pub fn parse_limit(text: &str) -> Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .map_err(|_| format!("{text:?} is not a count: give a whole number, 0 or more"))
}

/// `inbox --notify-timeout`: more than zero, at most an hour.
pub fn parse_notify_limit(text: &str) -> Result<Duration, String> {
    // Out of range (negative included) counts as zero: the same message.
    let limit = seconds_within(text, 3600.0)?.unwrap_or_default();
    if limit.is_zero() {
        return Err(format!(
            "{text:?} is out of range: give more than 0 and at most 3600 seconds"
        ));
    }
    Ok(limit)
}

/// `inbox --store-connections`: 1 to [`MAX_CONNECTIONS`](ask_user::inbox::store::pool::MAX_CONNECTIONS).
pub fn parse_store_connections(text: &str) -> Result<usize, String> {
    let max = ask_user::inbox::store::pool::MAX_CONNECTIONS;
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "{text:?} is out of range: give 1 to {max} connections"
        )),
    }
}

/// `mcp --timeout`: as `ask --timeout` (0: no limit of its own), and a
/// limit is at most a day.
pub fn parse_wait(text: &str) -> Result<Duration, String> {
    seconds_within(text, 86_400.0)?
        .ok_or_else(|| format!("{text:?} is out of range: give 0 to 86400 seconds (0: no limit)"))
}

/// `mcp --wait`: more than zero, at most a day.
pub fn parse_call_wait(text: &str) -> Result<Duration, String> {
    // Out of range (negative included) counts as zero: the same message.
    let wait = seconds_within(text, 86_400.0)?.unwrap_or_default();
    if wait.is_zero() {
        return Err(format!(
            "{text:?} is out of range: give more than 0 and at most 86400 seconds (leave --wait out to wait for the outcome)"
        ));
    }
    Ok(wait)
}

/// `inbox rule add --for`: as `--retention`.
pub fn parse_rule_lifetime(text: &str) -> Result<Duration, String> {
    parse_retention(text).map_err(|e| e.replace("keep questions", "a rule stands"))
}

/// `inbox --retention`: seconds, or a number with `s`, `m`, `h` or `d`
/// (`90s`, `30m`, `24h`, `7d`); at least a second, at most 365 days.
pub fn parse_retention(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    let (number, unit) = match trimmed.char_indices().last() {
        Some((at, unit @ ('s' | 'm' | 'h' | 'd'))) => (&trimmed[..at], unit),
        _ => (trimmed, 's'),
    };
    let scale = match unit {
        'm' => 60.0,
        'h' => 3600.0,
        'd' => 86_400.0,
        _ => 1.0,
    };
    let seconds = number
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite())
        .map(|n| n * scale)
        .ok_or_else(|| format!("{text:?} is not a time (like 90, 90s, 30m, 24h or 7d)"))?;
    // A negative time (-1h) is out of range, as zero is.
    let retention = Duration::try_from_secs_f64(seconds.max(0.0)).unwrap_or(Duration::MAX);
    if retention < Duration::from_secs(1) || retention > Duration::from_secs(365 * 86_400) {
        return Err(format!(
            "{text:?} is out of range: keep questions from 1 second to 365 days"
        ));
    }
    Ok(retention)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The notes `parse_args` paired for whichever command took replies.
    fn notes_of(args: &[&str]) -> Vec<Option<String>> {
        let cli = Cli::parse_args(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        match cli.command {
            Some(Command::Answer { notes, .. }) => notes,
            Some(Command::Ask(ask)) => ask.notes,
            Some(Command::Inbox(inbox)) => match inbox.verb {
                Some(InboxVerb::Answer { notes, .. }) => notes,
                _ => panic!("{args:?}: not inbox answer"),
            },
            _ => panic!("{args:?}: no replies"),
        }
    }

    // Each command that takes --reply pairs its notes, and a note out of
    // place is a usage error naming that command, `inbox answer` included.
    #[test]
    fn notes_pair_with_the_reply_before_them_on_every_command_with_replies() {
        let want = vec![Some("keep it".to_string()), None];
        for (prefix, usage) in [
            (&["ask_user", "answer"][..], "Usage: ask_user answer "),
            (
                &["ask_user", "ask", "--ui", "tty"][..],
                "Usage: ask_user ask ",
            ),
            (
                &["ask_user", "inbox", "answer", "u7Kq"][..],
                "Usage: ask_user inbox answer ",
            ),
        ] {
            let args: Vec<&str> = [
                prefix,
                &["--reply", "2", "--note", "keep it", "--reply", "1"],
            ]
            .concat();
            assert_eq!(notes_of(&args), want, "{args:?}");

            let early: Vec<&str> = [prefix, &["--note", "x", "--reply", "1"]].concat();
            let Err(error) = Cli::parse_args(&early) else {
                panic!("{early:?} was taken");
            };
            assert_eq!(error.kind(), clap::error::ErrorKind::ArgumentConflict);
            let text = error.to_string();
            assert!(text.contains("comes before any --reply"), "{text}");
            assert!(text.contains(usage), "{early:?}: {text}");
        }
        // Another inbox verb has no replies to pair.
        let cli = Cli::parse_args(["ask_user", "inbox", "list"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Inbox(inbox)) if matches!(inbox.verb, Some(InboxVerb::List))
        ));
    }

    #[test]
    fn the_flag_then_ask_user_ui_then_a_dumb_terminal_choose_the_face() {
        assert_eq!(
            choose_ui(Some(Ui::Web), Some("plain"), Some("dumb")),
            Ok(Ui::Web)
        );
        assert_eq!(choose_ui(None, Some("PLAIN"), None), Ok(Ui::Plain));
        assert_eq!(choose_ui(None, Some("tty"), Some("dumb")), Ok(Ui::Tty));
        // Empty is unset: the terminal decides.
        assert_eq!(choose_ui(None, Some(""), Some("dumb")), Ok(Ui::Plain));
        assert_eq!(choose_ui(None, Some(""), Some("xterm")), Ok(Ui::Tty));
        assert_eq!(choose_ui(None, None, Some("xterm-256color")), Ok(Ui::Tty));
        assert_eq!(choose_ui(None, None, None), Ok(Ui::Tty));
        assert_eq!(
            choose_ui(None, Some("gui"), None),
            Err("ASK_USER_UI must be tty, plain, web, inbox or auto, not \"gui\"".to_string())
        );
    }

    #[test]
    fn time_limits_keep_to_their_ranges() {
        let secs = Duration::from_secs;
        assert_eq!(parse_seconds(" 0.5 "), Ok(Duration::from_millis(500)));
        for text in ["", "soon", "NaN", "1e400", "-inf"] {
            assert_eq!(
                parse_seconds(text),
                Err(format!(
                    "{text:?} is not a number of seconds (like 30 or 0.5)"
                ))
            );
        }
        for text in ["-1", "-5", "-0.5"] {
            assert_eq!(
                parse_seconds(text),
                Err(format!(
                    "{text:?} is negative: give a number of seconds, 0 or more (like 30 or 0.5; 0 waits forever)"
                ))
            );
        }
        assert_eq!(parse_seconds("-0"), Ok(Duration::ZERO));
        assert!(
            parse_seconds("1e300")
                .unwrap_err()
                .contains("too many seconds")
        );
        assert_eq!(parse_notify_limit("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_notify_limit("3600"), Ok(secs(3600)));
        for text in ["0", "3600.5", "86400", "-1"] {
            assert_eq!(
                parse_notify_limit(text),
                Err(format!(
                    "{text:?} is out of range: give more than 0 and at most 3600 seconds"
                ))
            );
        }
        assert!(
            parse_notify_limit("x")
                .unwrap_err()
                .contains("not a number")
        );
        assert_eq!(parse_wait("0"), Ok(Duration::ZERO));
        assert_eq!(parse_wait("86400"), Ok(secs(86_400)));
        for text in ["86401", "-1"] {
            assert_eq!(
                parse_wait(text),
                Err(format!(
                    "{text:?} is out of range: give 0 to 86400 seconds (0: no limit)"
                ))
            );
        }
        assert_eq!(parse_call_wait("86400"), Ok(secs(86_400)));
        for text in ["0", "86400.5", "-5"] {
            assert!(
                parse_call_wait(text).unwrap_err().contains("out of range"),
                "{text}"
            );
        }
    }

    #[test]
    fn ports_and_counts_say_what_they_take() {
        assert_eq!(parse_port("0"), Ok(0));
        assert_eq!(parse_port(" 65535 "), Ok(65_535));
        for text in ["-1", "65536", "x", ""] {
            assert_eq!(
                parse_port(text),
                Err(format!(
                    "{text:?} is not a port: give a number from 0 to 65535 (0: a free one)"
                ))
            );
        }
        assert_eq!(parse_limit("0"), Ok(0));
        assert_eq!(parse_limit("20"), Ok(20));
        for text in ["-1", "1.5", "many"] {
            assert_eq!(
                parse_limit(text),
                Err(format!(
                    "{text:?} is not a count: give a whole number, 0 or more"
                ))
            );
        }
    }

    #[test]
    fn retention_takes_seconds_or_a_unit_within_a_second_to_a_year() {
        let secs = Duration::from_secs;
        for (text, want) in [
            ("90", secs(90)),
            (" 90s ", secs(90)),
            ("30m", secs(1800)),
            ("24h", secs(86_400)),
            ("1.5h", secs(5400)),
            ("7d", secs(7 * 86_400)),
            ("1", secs(1)),
            ("365d", secs(365 * 86_400)),
        ] {
            assert_eq!(parse_retention(text), Ok(want), "{text}");
        }
        for text in ["", "h", "soon", "24x", "NaNs", "infh"] {
            let err = parse_retention(text).unwrap_err();
            assert!(err.contains("is not a time"), "{text}: {err}");
        }
        for text in ["0", "0.5", "366d", "9000h", "-1h", "-90", "1e300d"] {
            let err = parse_retention(text).unwrap_err();
            assert!(err.contains("from 1 second to 365 days"), "{text}: {err}");
        }
    }
}

/// `describe --format`: the hosts' tool formats of [`Format`] as clap values
/// (the contract crate knows no command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DescribeFormat {
    Amp,
    Claude,
    Mcp,
    Openai,
}

impl From<DescribeFormat> for Format {
    fn from(format: DescribeFormat) -> Self {
        match format {
            DescribeFormat::Amp => Format::Amp,
            DescribeFormat::Claude => Format::Claude,
            DescribeFormat::Mcp => Format::Mcp,
            DescribeFormat::Openai => Format::Openai,
        }
    }
}

/// `schema NAME`: the documents of [`Schema`] as clap values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaName {
    /// A tool input, in every dialect of docs/documents.md's "Input dialects".
    Input,
    /// The prompt document that execute and prompt print (docs/documents.md: "Prompt document").
    Prompt,
    /// The answer document that ask, answer and mcp print (docs/documents.md: "Answer document").
    Answer,
    /// The error document (docs/documents.md: "Error document and codes").
    Error,
}

impl From<SchemaName> for Schema {
    fn from(name: SchemaName) -> Self {
        match name {
            SchemaName::Input => Schema::Input,
            SchemaName::Prompt => Schema::Prompt,
            SchemaName::Answer => Schema::Answer,
            SchemaName::Error => Schema::Error,
        }
    }
}
