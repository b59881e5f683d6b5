//! Maps argv and `TOOLBOX_ACTION` onto the library, and outcomes onto exit codes.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use std::time::Duration;

use ask_user::answer::resolve_replies;
use ask_user::check;
use ask_user::describe::{Format, describe};
use ask_user::error::{AskError, Detail};
use ask_user::mcp::Fallback;
use ask_user::schema::Schema;
use ask_user::tty::{Terminal, form_timeout};
use ask_user::web::{WebOptions, ask_on_web, interrupt_on_signals};
use ask_user::{exit, print_document};

#[derive(Parser)]
#[command(
    name = "ask_user",
    version,
    about = "Ask a person a structured question; get strict JSON back.",
    long_about = "Ask a person a structured question; get strict JSON back.\n\n\
        As an Amp toolbox tool: TOOLBOX_ACTION=describe prints the tool description,\n\
        TOOLBOX_ACTION=execute reads the tool input on stdin and prints the prompt document.\n\
        Documents go to stdout, one JSON line; everything for people goes to stderr.",
    after_help = "Exit codes: 0 success, 1 error (error document on stdout), 2 usage error,\n\
        124 timed out (ask), 130 cancelled (ask)."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Print the prompt document for a tool input (what TOOLBOX_ACTION=execute prints).
    Prompt {
        /// The tool input: a JSON file, or - (the default) for stdin.
        file: Option<PathBuf>,
    },
    /// Ask a person and print the answer document (on the terminal, or `--ui web`: a local page).
    #[command(
        after_help = "Keys: ↑/↓ (or j/k, Tab) move, Enter chooses, Space toggles in a multi select,\n\
        1-9 jump to an option, y/n answer a confirm, Esc or q (Ctrl-C too) cancel.\n\
        Exit codes: 0 answered, 1 error (NO_TTY without a terminal), 124 timed out, 130 cancelled."
    )]
    Ask(AskArgs),
    /// Check a person's relayed reply against a tool input or a prompt document.
    Answer {
        /// The person's reply: one per question, in order.
        #[arg(long, value_name = "TEXT")]
        reply: Vec<String>,
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
    Schema {
        /// Which schema to print.
        #[arg(value_enum)]
        name: Schema,
    },
    /// Print the tool description for a host.
    Describe {
        /// Which host's tool format to print.
        #[arg(long, value_enum, default_value = "amp")]
        format: Format,
    },
    /// Serve MCP over stdio: one tool, ask_user, asked through the client's forms.
    Mcp {
        /// What to do when the client cannot show a form.
        #[arg(long, value_enum, default_value = "prompt")]
        fallback: Fallback,
        /// Never ask through the client's forms; always use the fallback.
        #[arg(long)]
        no_elicitation: bool,
        /// Seconds to wait for the person when the input gives no timeout.
        #[arg(long, value_name = "SECONDS", default_value = "300", value_parser = parse_wait)]
        timeout: Duration,
        /// Port for the answer page of --fallback web (default: a free one).
        #[arg(long, value_name = "N")]
        port: Option<u16>,
        /// Open the answer page of --fallback web with the system's browser opener.
        #[arg(long)]
        open: bool,
    },
}

#[derive(clap::Args)]
struct AskArgs {
    /// The tool input: a JSON file, or - (the default) for stdin.
    file: Option<PathBuf>,
    /// Where to ask: the terminal, or a page on 127.0.0.1 opened in a browser.
    #[arg(long, value_enum, default_value = "tty")]
    ui: Ui,
    /// Port for --ui web (default: a free one).
    #[arg(long, value_name = "N")]
    port: Option<u16>,
    /// Open the page with the system's browser opener (--ui web).
    #[arg(long)]
    open: bool,
    /// Give up after this many seconds (exit 124; decimals allowed; 0 waits forever).
    /// Overrides the input's timeout.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: Option<Duration>,
    /// Answer without a terminal or page: one reply per question, in order.
    #[arg(long, value_name = "TEXT")]
    reply: Vec<String>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Ui {
    Tty,
    Web,
}

fn main() -> ExitCode {
    ask_user::install_panic_handler();
    debug_panic_trigger();
    let code = match std::env::var_os("TOOLBOX_ACTION").filter(|v| !v.is_empty()) {
        Some(action) => toolbox(action),
        None => command_line(),
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// `TOOLBOX_ACTION` wins over argv.
fn toolbox(action: OsString) -> i32 {
    match action.to_str() {
        Some("describe") => print_line(&describe(Format::Amp)),
        Some("execute") => prompt(None),
        _ => fail(&AskError::UnknownAction(Detail::new(format!(
            "TOOLBOX_ACTION must be describe or execute, not {:?}",
            action.to_string_lossy()
        )))),
    }
}

fn command_line() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version go to stdout with exit 0; usage errors to stderr with 2.
            let _ = e.print();
            return if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
        }
    };
    match cli.command {
        None => {
            use clap::CommandFactory;
            let _ = Cli::command().write_long_help(&mut std::io::stderr());
            exit::USAGE
        }
        Some(Command::Prompt { file }) => prompt(file),
        Some(Command::Describe { format }) => print_line(&describe(format)),
        Some(Command::Ask(args)) => ask(args),
        Some(Command::Answer { reply, file }) => answer(file, &reply),
        Some(Command::Check {
            paths,
            format,
            quiet,
        }) => run_check(&paths, format, quiet),
        Some(Command::Schema { name }) => print_line(&name.line()),
        Some(Command::Mcp {
            fallback,
            no_elicitation,
            timeout,
            port,
            open,
        }) => mcp(ask_user::mcp::Options {
            fallback,
            elicitation: !no_elicitation,
            default_timeout: timeout,
            port,
            open_browser: open,
        }),
    }
}

fn ask(args: AskArgs) -> i32 {
    let AskArgs {
        file,
        ui,
        port,
        open,
        timeout,
        reply: replies,
    } = args;
    let read_prompt =
        || ask_user::read_source(file.as_deref()).and_then(|bytes| ask_user::input::parse(&bytes));
    let outcome = if !replies.is_empty() {
        read_prompt().and_then(|prompt| resolve_replies(&prompt, &replies))
    } else {
        match ui {
            // The terminal first: without one, NO_TTY at once, before stdin is read.
            Ui::Tty => Terminal::open().and_then(|terminal| {
                let prompt = read_prompt()?;
                let timeout = form_timeout(timeout, &prompt);
                ask_user::tty::ask(terminal, &prompt, timeout)
            }),
            Ui::Web => read_prompt().and_then(|prompt| {
                let options = WebOptions {
                    port,
                    open_browser: open,
                    timeout: form_timeout(timeout, &prompt),
                    interrupt: Some(interrupt_on_signals()),
                };
                ask_on_web(&prompt, options).map(|outcome| outcome.document)
            }),
        }
    };
    match outcome {
        Ok(document) => {
            print_document(&document);
            if document.timed_out {
                exit::TIMED_OUT
            } else if document.cancelled {
                exit::CANCELLED
            } else {
                exit::OK
            }
        }
        Err(err) => fail(&err),
    }
}

fn answer(file: Option<PathBuf>, replies: &[String]) -> i32 {
    let outcome = ask_user::read_source(file.as_deref())
        .and_then(|bytes| ask_user::input::parse_input_or_prompt(&bytes))
        .and_then(|prompt| resolve_replies(&prompt, replies));
    match outcome {
        Ok(document) => {
            print_document(&document);
            exit::OK
        }
        Err(err) => fail(&err),
    }
}

/// `--timeout`: non-negative seconds, decimals allowed.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("{text:?} is not a number of seconds (like 30 or 0.5)"))
}

/// `mcp --timeout`: as `ask --timeout`, but a server never waits forever or
/// longer than a day.
fn parse_wait(text: &str) -> Result<Duration, String> {
    let wait = parse_seconds(text)?;
    if wait.is_zero() || wait > Duration::from_secs(86_400) {
        return Err(format!(
            "{text:?} is out of range: give more than 0 and at most 86400 seconds"
        ));
    }
    Ok(wait)
}

fn prompt(file: Option<PathBuf>) -> i32 {
    match ask_user::read_source(file.as_deref()) {
        Ok(bytes) => {
            let (line, code) = ask_user::execute_line(&bytes);
            print_line(&line);
            code
        }
        Err(err) => fail(&err),
    }
}

fn run_check(paths: &[PathBuf], format: check::Format, quiet: bool) -> i32 {
    use std::io::Write;
    let reports = check::check_paths(paths);
    let rendered = check::render(&reports, format, quiet);
    let mut out = std::io::stdout().lock();
    let _ = out
        .write_all(rendered.stdout.as_bytes())
        .and_then(|()| out.flush());
    // The summary after the findings, as a person reading a terminal expects.
    let _ = std::io::stderr().write_all(rendered.stderr.as_bytes());
    if reports.iter().all(check::FileReport::is_valid) {
        exit::OK
    } else {
        exit::ERROR
    }
}

fn mcp(options: ask_user::mcp::Options) -> i32 {
    ask_user::set_stdout_is_protocol();
    debug_panic_trigger_in("mcp");
    match ask_user::mcp::serve(options) {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("ask_user mcp: {e}");
            exit::ERROR
        }
    }
}

fn fail(err: &AskError) -> i32 {
    print_document(&err.document());
    exit::ERROR
}

fn print_line(line: &str) -> i32 {
    ask_user::print_line(line);
    exit::OK
}

/// Lets the tests prove that a panic becomes INTERNAL_ERROR (there is no
/// other way to make this binary panic on purpose).
fn debug_panic_trigger() {
    debug_panic_trigger_in("1");
}

/// `ASK_USER_DEBUG_PANIC=mcp` panics once the mcp face owns stdout, to prove
/// the panic report stays off the protocol stream.
fn debug_panic_trigger_in(stage: &str) {
    if std::env::var_os("ASK_USER_DEBUG_PANIC").is_some_and(|v| v == stage) {
        panic!("panic requested by ASK_USER_DEBUG_PANIC");
    }
}
