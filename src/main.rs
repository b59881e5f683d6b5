//! Maps argv and `TOOLBOX_ACTION` onto the library, and outcomes onto exit codes.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use ask_user::describe::{Format, describe};
use ask_user::error::{AskError, Detail};
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
    /// Ask a person and print the answer document (`--ui web`: a local answer page).
    Ask(AskArgs),
    /// Print the tool description for a host.
    Describe {
        /// Which host's tool format to print.
        #[arg(long, value_enum, default_value = "amp")]
        format: Format,
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
    /// Give up after this many seconds (exit 124); overrides the input's timeout.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    timeout: Option<u64>,
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
    }
}

fn ask(args: AskArgs) -> i32 {
    use ask_user::web::{Ending, WebOptions, ask_on_web, interrupt_on_signals};
    if let Ui::Tty = args.ui {
        return fail(&AskError::NoTty(Detail::new(
            "the terminal UI is not in this build; pass --ui web to answer in a browser",
        )));
    }
    let prompt = match ask_user::read_source(args.file.as_deref())
        .and_then(|bytes| ask_user::input::parse(&bytes))
    {
        Ok(prompt) => prompt,
        Err(err) => return fail(&err),
    };
    let options = WebOptions {
        port: args.port,
        open_browser: args.open,
        timeout: args.timeout.map(std::time::Duration::from_secs),
        interrupt: Some(interrupt_on_signals()),
    };
    match ask_on_web(&prompt, options) {
        Ok(outcome) => {
            print_document(&outcome.document);
            match outcome.ending {
                Ending::Answered => exit::OK,
                Ending::Cancelled => exit::CANCELLED,
                Ending::TimedOut => exit::TIMED_OUT,
            }
        }
        Err(err) => fail(&err),
    }
}

fn prompt(file: Option<PathBuf>) -> i32 {
    match ask_user::read_source(file.as_deref()).and_then(|bytes| ask_user::execute(&bytes)) {
        Ok(document) => {
            print_document(&document);
            exit::OK
        }
        Err(err) => fail(&err),
    }
}

fn fail(err: &AskError) -> i32 {
    print_document(&err.document());
    exit::ERROR
}

fn print_line(line: &str) -> i32 {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
    exit::OK
}

/// Lets the tests prove that a panic becomes INTERNAL_ERROR (there is no
/// other way to make this binary panic on purpose).
fn debug_panic_trigger() {
    if std::env::var_os("ASK_USER_DEBUG_PANIC").is_some_and(|v| v == "1") {
        panic!("panic requested by ASK_USER_DEBUG_PANIC");
    }
}
