//! Maps argv and `TOOLBOX_ACTION` onto the library, and outcomes onto exit codes.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use ask_user::describe::{Format, describe};
use ask_user::error::{AskError, Detail};
use ask_user::mcp::Fallback;
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
        #[arg(long, value_name = "SECONDS", default_value_t = 300,
              value_parser = clap::value_parser!(u64).range(1..=86_400))]
        timeout: u64,
    },
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
        Some(Command::Mcp {
            fallback,
            no_elicitation,
            timeout,
        }) => mcp(ask_user::mcp::Options {
            fallback,
            elicitation: !no_elicitation,
            default_timeout: std::time::Duration::from_secs(timeout),
        }),
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
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
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
