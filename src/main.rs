//! Maps argv and `TOOLBOX_ACTION` onto the library, and outcomes onto exit codes.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

mod cli;
mod generate;
use cli::{
    AskArgs, AwayVerb, Cli, Command, InboxArgs, InboxVerb, RuleVerb, SetupArgs, TokenVerb,
    choose_ui,
};

use ask_user::answer::{AnswerDocument, Channel, resolve_replies};
use ask_user::ask::AskOptions;
use ask_user::check;
use ask_user::describe::{Format, describe};
use ask_user::error::{AskError, Detail};
use ask_user::inbox::hub::votes::Replied;
use ask_user::inbox::metrics::AskingFace;
use ask_user::{exit, print_document};

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
        Some("describe") => print_line(&describe(Format::Amp, ask_user::TOOL_NAME)),
        Some("execute") => match std::env::var("ASK_USER_UI") {
            // Unset (or empty): exactly seed 003, the prompt document.
            Err(_) => prompt(None),
            Ok(name) if name.trim().is_empty() => prompt(None),
            Ok(name) => match choose_ui(None, Some(name.trim()), None) {
                Ok(ui) => {
                    let options = AskOptions {
                        ui,
                        port: None,
                        open: false,
                        timeout: None,
                        input_from_stdin: true,
                        face: AskingFace::Execute,
                        bell: false,
                    };
                    answer_exit(ask_user::ask::ask(&options, || ask_user::read_source(None)))
                }
                // No usage errors here: the host reads an error document.
                Err(message) => fail(&AskError::UnknownAction(Detail::new(format!(
                    "{message} (or unset, for the prompt document)"
                )))),
            },
        },
        _ => fail(&AskError::UnknownAction(Detail::new(format!(
            "TOOLBOX_ACTION must be describe or execute, not {:?}",
            action.to_string_lossy()
        )))),
    }
}

fn command_line() -> i32 {
    let cli = match Cli::parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) => return parse_ended(&e),
    };
    match cli.command {
        None => {
            use clap::CommandFactory;
            let _ = Cli::command().write_long_help(&mut std::io::stderr());
            exit::USAGE
        }
        Some(Command::Help { command }) => help(command.as_deref()),
        Some(Command::Prompt { file }) => prompt(file),
        Some(Command::Describe { format, tool_name }) => {
            let format = Format::from(format);
            match ask_user::describe::check_tool_name(&tool_name, format) {
                Ok(()) => print_line(&describe(format, &tool_name)),
                Err(message) => usage_error("describe", &message),
            }
        }
        Some(Command::Ask(args)) => ask(args),
        Some(Command::Answer {
            reply, notes, file, ..
        }) => answer(file, &reply, &notes),
        Some(Command::Check {
            paths,
            format,
            quiet,
        }) => run_check(&paths, format, quiet),
        Some(Command::Schema { name }) => print_line(&ask_user::schema::Schema::from(name).line()),
        Some(Command::Mcp {
            fallback,
            no_elicitation,
            timeout,
            wait,
            port,
            open,
            tool_name,
        }) => mcp(ask_user::mcp::Options {
            tool_name,
            fallback,
            elicitation: !no_elicitation,
            // 0: no limit of the server's own, as `ask --timeout 0`.
            default_timeout: (!timeout.is_zero()).then_some(timeout),
            wait,
            port,
            open_browser: open,
        }),
        Some(Command::Setup(args)) => setup(args),
        Some(Command::Inbox(args)) => inbox(*args),
        Some(Command::Hook { host, timeout }) => hook(host, timeout),
        Some(Command::Away { state }) => {
            let set = match state {
                AwayVerb::On => Some(true),
                AwayVerb::Off => Some(false),
                AwayVerb::Status => None,
            };
            match ask_user::inbox::away::command(set) {
                Ok(document) => {
                    print_document(&document);
                    exit::OK
                }
                Err(err) => fail(&err),
            }
        }
        Some(Command::Completions { shell }) => {
            generate::completions(shell, &mut std::io::stdout().lock());
            exit::OK
        }
        Some(Command::Man { dir }) => match generate::man_pages(&dir) {
            Ok(_) => exit::OK,
            Err(err) => fail(&err),
        },
    }
}

/// `ask_user hook HOST`: the host's event on stdin; its hook output (or
/// nothing) on stdout; an input it cannot answer is one line on stderr and
/// the host's non-blocking error code.
fn hook(host: ask_user::hook::Host, timeout: Option<std::time::Duration>) -> i32 {
    use ask_user::hook::{Options, Ran, Unfit, run};
    let stdin = match ask_user::input::read_limited(std::io::stdin().lock()) {
        Ok(bytes) => bytes,
        Err(err) => {
            eprintln!("ask_user hook: {err}");
            return host.unfit_exit_code();
        }
    };
    match run(&Options { host, timeout }, &stdin) {
        Ran::Replied(output) => print_document(&output),
        Ran::SteppedAside(note) => {
            if let Some(note) = note {
                eprintln!("ask_user hook: {note}");
            }
        }
        Ran::Unfit(Unfit(why)) => {
            eprintln!("ask_user hook: {why}");
            return host.unfit_exit_code();
        }
    }
    exit::OK
}

fn setup(args: SetupArgs) -> i32 {
    use ask_user::setup::{Action, Options, list, run};
    if args.list {
        return list(&args.hosts);
    }
    run(Options {
        hosts: args.hosts,
        action: if args.remove {
            Action::Remove
        } else {
            Action::Set
        },
        dry_run: args.dry_run,
        hooks: args.hooks,
    })
}

fn ask(args: AskArgs) -> i32 {
    let AskArgs {
        file,
        ui,
        port,
        open,
        timeout,
        reply: replies,
        notes,
        bell,
        ..
    } = args;
    let env = |name| std::env::var(name).ok();
    let ui = match choose_ui(ui, env("ASK_USER_UI").as_deref(), env("TERM").as_deref()) {
        Ok(ui) => ui,
        Err(message) => {
            eprintln!("error: {message}");
            return exit::USAGE;
        }
    };
    let input_from_stdin = file.as_deref().is_none_or(|f| f.as_os_str() == "-");
    let read = || ask_user::read_source(file.as_deref());
    let outcome = if !replies.is_empty() {
        read()
            .and_then(|bytes| ask_user::input::parse(&bytes))
            .and_then(|prompt| resolve_replies(&prompt, &replies, &notes))
            .map(|document| {
                document.answered_by_person(ask_user_platform::user::name(), Channel::Cli)
            })
    } else {
        let options = AskOptions {
            ui,
            port,
            open,
            timeout,
            input_from_stdin,
            face: AskingFace::Ask,
            bell,
        };
        ask_user::ask::ask(&options, read)
    };
    answer_exit(outcome)
}

/// Prints an asker's outcome: 0 answered, 124 timed out, 130 cancelled, 1 an error.
fn answer_exit(outcome: Result<AnswerDocument, AskError>) -> i32 {
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

fn inbox(args: InboxArgs) -> i32 {
    let done = |outcome: Result<AnswerDocument, AskError>| match outcome {
        Ok(document) => {
            print_document(&document);
            exit::OK
        }
        Err(err) => fail(&err),
    };
    match args.verb {
        None => {
            use ask_user::inbox::listen::Exposure;
            let address = args
                .listen
                .unwrap_or_else(|| Exposure::loopback(args.port).address);
            let tls = args.tls_cert.zip(args.tls_key);
            let exposure = match Exposure::new(address, tls, args.behind_proxy, args.public_url) {
                Ok(exposure) => exposure,
                Err(message) => return usage_error("inbox", &message),
            };
            let env = |name: &str| std::env::var(name).ok();
            let channels = match ask_user::inbox::channels::resolve(&args.notify_to, &env) {
                Ok(channels) => channels,
                Err(message) => return usage_error("inbox", &message),
            };
            let options = ask_user::inbox::ServeOptions {
                exposure,
                channels,
                notify_timeout: args.notify_timeout,
                open_browser: args.open,
                new_token: args.new_token,
                asker_grace: args.asker_grace,
                retention: args.retention,
                notify: notify_command(args.notify).map(|command| {
                    ask_user::inbox::notify::Notify {
                        command,
                        time_limit: args.notify_timeout,
                    }
                }),
                store: store_location(args.store),
                store_connections: args.store_connections,
                tokens: args.tokens,
                policy: args.policy,
                mcp: Some(ask_user::mcp::http::McpHttp::endpoint),
            };
            match ask_user::inbox::serve(options) {
                Ok(()) => exit::OK,
                Err(err) => fail(&err),
            }
        }
        Some(InboxVerb::List) => print_lines(ask_user::inbox::list()),
        Some(InboxVerb::History { limit }) => print_lines(ask_user::inbox::history(limit)),
        Some(InboxVerb::Answer {
            id, reply, notes, ..
        }) => match ask_user::inbox::answer(&id, &reply, &notes) {
            Ok(Replied::Document(document)) => done(Ok(document)),
            Ok(Replied::Vote(vote)) => {
                // The receipt is data (stdout); the sentence is for the person.
                print_document(&vote);
                eprintln!("{}", vote.summary());
                exit::OK
            }
            Err(err) => fail(&err),
        },
        Some(InboxVerb::Cancel { id }) => done(ask_user::inbox::cancel(&id)),
        Some(InboxVerb::Pair { name }) => match ask_user::inbox::pair::request(name) {
            Ok(code) => {
                let qr = ask_user::inbox::pair::qr_text(&code.url).unwrap_or_default();
                eprintln!(
                    "{qr}\nScan this with the phone, or open on it (once, within {} minutes):\n{}\nIt pairs as {:?}; `ask_user inbox token remove {}` unpairs it.",
                    ask_user::inbox::pair::CODE_MINUTES,
                    code.url,
                    code.name,
                    code.name
                );
                print_document(&code.document());
                exit::OK
            }
            Err(err) => fail(&err),
        },
        Some(InboxVerb::Token { store, verb }) => {
            use ask_user::inbox::tokens::{Command, Refused, run};
            let command = match verb {
                TokenVerb::Add { role, name, groups } => Command::Add {
                    role: role.into(),
                    name,
                    groups,
                },
                TokenVerb::List => Command::List,
                TokenVerb::Remove { name } => Command::Remove { name },
            };
            match run(store_location(store), command) {
                Ok(lines) => print_lines(Ok(lines)),
                Err(Refused::Usage(message)) => usage_error("inbox", &message),
                Err(Refused::Failed(err)) => fail(&err),
            }
        }
        Some(InboxVerb::Rule { store, verb }) => {
            use ask_user::inbox::hub::rules::{Command, Refused, Rule, run};
            let command = match verb {
                RuleVerb::Add {
                    reply,
                    source,
                    folder,
                    text,
                    regex,
                    while_away,
                    lasts,
                    owner,
                } => Command::Add {
                    owner,
                    rule: Rule {
                        source,
                        folder,
                        text,
                        regex,
                        replies: reply,
                        while_away,
                    },
                    lasts,
                },
                RuleVerb::List => Command::List,
                RuleVerb::Remove { id } => Command::Remove { id },
            };
            match run(store_location(store), command) {
                Ok(lines) => print_lines(Ok(lines)),
                Err(Refused::Usage(message)) => usage_error("inbox", &message),
                Err(Refused::Failed(err)) => fail(&err),
            }
        }
        Some(InboxVerb::Away {
            verb,
            person,
            store,
        }) => {
            use ask_user::inbox::hub::rules::{Refused, away};
            let set = match verb {
                AwayVerb::On => Some(true),
                AwayVerb::Off => Some(false),
                AwayVerb::Status => None,
            };
            match away(store_location(store), person, set) {
                Ok(lines) => print_lines(Ok(lines)),
                Err(Refused::Usage(message)) => usage_error("inbox", &message),
                Err(Refused::Failed(err)) => fail(&err),
            }
        }
    }
}

/// `--store`, else `ASK_USER_STORE`; empty is none (the state folder's file).
fn store_location(flag: Option<String>) -> Option<ask_user::inbox::store::Location> {
    flag.or_else(|| std::env::var("ASK_USER_STORE").ok())
        .filter(|store| !store.is_empty())
        .as_deref()
        .map(ask_user::inbox::store::Location::parse)
}

fn print_lines(lines: Result<Vec<String>, AskError>) -> i32 {
    match lines {
        Ok(lines) => {
            for line in lines {
                ask_user::print_line(&line);
            }
            exit::OK
        }
        Err(err) => fail(&err),
    }
}

/// `--notify`, else `ASK_USER_NOTIFY_CMD`; empty is none.
fn notify_command(flag: Option<String>) -> Option<String> {
    flag.or_else(|| std::env::var("ASK_USER_NOTIFY_CMD").ok())
        .filter(|command| !command.trim().is_empty())
}

fn answer(file: Option<PathBuf>, replies: &[String], notes: &[Option<String>]) -> i32 {
    let outcome = ask_user::read_source(file.as_deref())
        .and_then(|bytes| ask_user::prompt::parse_input_or_prompt(&bytes))
        .and_then(|prompt| resolve_replies(&prompt, replies, notes))
        .map(|document| document.answered_by_person(ask_user_platform::user::name(), Channel::Cli));
    match outcome {
        Ok(document) => {
            print_document(&document);
            exit::OK
        }
        Err(err) => fail(&err),
    }
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

/// `ask_user help [COMMAND]`: exactly what `ask_user [COMMAND] --help`
/// prints (stdout, exit 0); an unknown COMMAND is clap's usage error (exit 2).
fn help(name: Option<&str>) -> i32 {
    let args = ["ask_user"].into_iter().chain(name).chain(["--help"]);
    match Cli::try_parse_from(args) {
        Err(e) => parse_ended(&e),
        // Unreachable: --help always ends parsing.
        Ok(_) => exit::USAGE,
    }
}

/// Where clap stopped parsing: --help and --version go to stdout with exit 0,
/// usage errors to stderr with exit 2.
fn parse_ended(e: &clap::Error) -> i32 {
    let _ = e.print();
    if e.use_stderr() {
        exit::USAGE
    } else {
        exit::OK
    }
}

/// A usage error of `subcommand` found after parsing: clap's format on
/// stderr, exit 2.
fn usage_error(subcommand: &str, message: &str) -> i32 {
    use clap::CommandFactory;
    let mut command = Cli::command();
    command.build();
    if let Some(sub) = command.find_subcommand_mut(subcommand) {
        let _ = sub
            .error(clap::error::ErrorKind::ValueValidation, message)
            .print();
    }
    exit::USAGE
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
