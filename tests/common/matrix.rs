//! A real Matrix homeserver for the tests: Synapse (matrix-synapse, from
//! tests/matrix/.venv, which .ci/setup-matrix.sh installs) on 127.0.0.1 in
//! a scratch folder, with SQLite. Its config is Synapse's own
//! (`--generate-config`), with a second file on top that moves the client
//! listener to a free loopback port, drops federation and lifts the rate
//! limits (a test sends faster than a person). Each [`Synapse`] registers a
//! bot, a person and an outsider through the shared-secret registration API
//! (what `register_new_matrix_user` calls; tests/matrix/room.py does it in
//! one process), the bot creates a private room and invites the person, who
//! joins. Dropped, it stops Synapse (a [`ChildGuard`]) and removes the folder.
//!
//! The person's side is a real client too: tests/matrix/person.py, on
//! matrix-nio ([`Synapse::person_waits`], [`Synapse::send_as`]).
//!
//! Measured on the 2-core test machine: generating the config about 5 s,
//! Synapse answering about 7 s after its start, the users and the room
//! about 1 s more: about 13 s per [`Synapse::start`].

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::clients::{require, runs, tests_dir};
use super::process::ChildGuard;

/// What is missing, as the harness reports it.
pub const MISSING: &str = "Synapse and matrix-nio (run .ci/setup-matrix.sh)";

/// How long Synapse may take to answer after its start.
const START_LIMIT: Duration = Duration::from_secs(90);

/// Where a message goes.
#[derive(Debug, Clone, Copy)]
pub enum To<'a> {
    /// The room, related to nothing.
    Room,
    /// The thread of this event (`m.relates_to` with `rel_type: m.thread`).
    Thread(&'a str),
    /// A plain reply to this event (`m.in_reply_to`, no thread).
    Reply(&'a str),
}

/// One Matrix user: its id (`@bot:localhost`) and access token.
#[derive(Debug, Clone, Default)]
pub struct User {
    pub id: String,
    pub token: String,
}

/// A running Synapse with a room that its bot and person are in.
pub struct Synapse {
    dir: tempfile::TempDir,
    python: PathBuf,
    port: u16,
    child: Option<ChildGuard>,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The room's id (`!…`).
    pub room: String,
    /// The bot the inbox posts as.
    pub bot: User,
    /// A member of the room: the person who answers.
    pub person: User,
    /// A user of the homeserver who is not in the room.
    pub outsider: User,
}

/// The venv's Python, when it has Synapse and matrix-nio; else the test is ignored.
pub fn python() -> PathBuf {
    let python = tests_dir("matrix").join(".venv/bin/python");
    let found = python.is_file() && runs(&python, &["-c", "import synapse.app.homeserver, nio"]);
    require(found.then_some(python), MISSING)
}

impl Synapse {
    /// Starts Synapse and sets up the room (ignored when Synapse is not installed).
    pub fn start() -> Synapse {
        let python = python();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path();
        let began = Instant::now();
        let generated = Command::new(&python)
            .args(["-m", "synapse.app.homeserver", "--server-name", "localhost"])
            .arg("--config-path")
            .arg(path.join("homeserver.yaml"))
            .arg("--data-directory")
            .arg(path.join("data"))
            .arg("--config-directory")
            .arg(path)
            .args(["--generate-config", "--report-stats=no"])
            .current_dir(path)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert!(
            generated.status.success(),
            "synapse --generate-config: {}",
            String::from_utf8_lossy(&generated.stderr)
        );
        let port = free_port();
        std::fs::write(path.join("test.yaml"), overrides(port)).unwrap();
        let mut synapse = Synapse {
            base: format!("http://127.0.0.1:{port}"),
            dir,
            python,
            port,
            child: None,
            room: String::new(),
            bot: User::default(),
            person: User::default(),
            outsider: User::default(),
        };
        synapse.run();
        eprintln!(
            "synapse: answering after {:.1} s",
            began.elapsed().as_secs_f64()
        );
        synapse.make_room();
        eprintln!(
            "synapse: room ready after {:.1} s",
            began.elapsed().as_secs_f64()
        );
        synapse
    }

    /// The port it listens on (kept across [`Synapse::stop`] and [`Synapse::run`]).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops Synapse (SIGKILL), keeping its folder: [`Synapse::run`] starts it again.
    pub fn stop(&mut self) {
        self.child = None;
        let began = Instant::now();
        while !super::process::port_is_closed(self.port) {
            assert!(
                began.elapsed() < Duration::from_secs(10),
                "synapse did not stop"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts Synapse on its folder and waits until it answers.
    pub fn run(&mut self) {
        assert!(self.child.is_none(), "synapse runs already");
        let path = self.dir.path();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path.join("stderr.log"))
            .unwrap();
        let child = ChildGuard::spawn(
            Command::new(&self.python)
                .args([
                    "-m",
                    "synapse.app.homeserver",
                    "-c",
                    "homeserver.yaml",
                    "-c",
                    "test.yaml",
                ])
                .current_dir(path)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log),
        )
        .unwrap();
        self.child = Some(child);
        let began = Instant::now();
        while !self.answers() {
            let exited = self.child.as_mut().unwrap().try_wait().unwrap();
            assert!(
                exited.is_none() && began.elapsed() < START_LIMIT,
                "synapse did not start ({exited:?}): {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Its log (stderr, and homeserver.log), for a failure's message.
    pub fn log(&self) -> String {
        let path = self.dir.path();
        let read = |name: &str| std::fs::read_to_string(path.join(name)).unwrap_or_default();
        let text = read("stderr.log") + &read("homeserver.log");
        let skip = text.chars().count().saturating_sub(4000);
        text.chars().skip(skip).collect()
    }

    /// Whether `GET /_matrix/client/versions` answers 200.
    fn answers(&self) -> bool {
        use std::io::{Read, Write};
        let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
        let request =
            "GET /_matrix/client/versions HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
        let mut reply = String::new();
        stream.write_all(request.as_bytes()).is_ok()
            && stream.read_to_string(&mut reply).is_ok()
            && reply.starts_with("HTTP/1.1 200")
    }

    fn make_room(&mut self) {
        let secret = std::fs::read_to_string(self.dir.path().join("homeserver.yaml"))
            .unwrap()
            .lines()
            .find_map(|line| line.strip_prefix("registration_shared_secret: "))
            .expect("the generated config has a registration_shared_secret")
            .trim()
            .trim_matches('"')
            .to_string();
        let out = Command::new(&self.python)
            .arg(tests_dir("matrix").join("room.py"))
            .args([&self.base, &secret])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "room.py: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.log()
        );
        let made: Value = serde_json::from_slice(&out.stdout).unwrap();
        let user = |key: &str| User {
            id: made[key]["id"].as_str().unwrap().to_string(),
            token: made[key]["token"].as_str().unwrap().to_string(),
        };
        self.room = made["room"].as_str().unwrap().to_string();
        self.bot = user("bot");
        self.person = user("person");
        self.outsider = user("outsider");
    }

    /// The `--notify-to` argument for this room: `matrix=http://127.0.0.1:PORT/ROOM`.
    pub fn notify_to(&self) -> String {
        format!("matrix={}/{}", self.base, self.room)
    }

    /// tests/matrix/person.py as `user`: `wait` for a message from `sender`
    /// containing `contains` (in `thread`'s thread when given); the message
    /// (event_id, body, content), or `None` when none came within `limit`.
    pub fn wait_as(
        &self,
        user: &User,
        sender: &str,
        contains: &str,
        thread: Option<&str>,
        limit: Duration,
    ) -> Option<Value> {
        let mut command = self.person_command(user, "wait");
        command.args(["--sender", sender, "--contains", contains]);
        command.args(["--timeout", &limit.as_secs_f64().to_string()]);
        if let Some(thread) = thread {
            command.args(["--thread", thread]);
        }
        let out = command.output().unwrap();
        out.status
            .success()
            .then(|| serde_json::from_slice(&out.stdout).unwrap())
    }

    /// The person waits for the bot's message containing `contains`.
    pub fn person_waits(&self, contains: &str, thread: Option<&str>) -> Value {
        self.wait_as(
            &self.person,
            &self.bot.id,
            contains,
            thread,
            Duration::from_secs(30),
        )
        .unwrap_or_else(|| {
            panic!(
                "the person saw no message containing {contains:?} from the bot\n{}",
                self.log()
            )
        })
    }

    /// tests/matrix/person.py as `user`: sends `text` to the room, `to` an
    /// event or not; its event id.
    pub fn send_as(&self, user: &User, text: &str, to: To) -> String {
        self.try_send_as(user, text, to, None)
            .unwrap_or_else(|refused| panic!("person.py send: {refused}"))
    }

    /// [`Synapse::send_as`], `claim`ing to be question `claim` as the bot's
    /// messages do (`org.ask_user.inbox_id`); the homeserver's refusal as `Err`.
    pub fn try_send_as(
        &self,
        user: &User,
        text: &str,
        to: To,
        claim: Option<&str>,
    ) -> Result<String, String> {
        let mut command = self.person_command(user, "send");
        if let Some(claim) = claim {
            command.args(["--claim", claim]);
        }
        command.arg(text);
        match to {
            To::Room => {}
            To::Thread(root) => {
                command.args(["--thread", root]);
            }
            To::Reply(event) => {
                command.args(["--reply", event]);
            }
        }
        let out = command.output().unwrap();
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        let sent: Value = serde_json::from_slice(&out.stdout).unwrap();
        Ok(sent["event_id"].as_str().unwrap().to_string())
    }

    fn person_command(&self, user: &User, verb: &str) -> Command {
        let mut command = Command::new(&self.python);
        command
            .arg(tests_dir("matrix").join("person.py"))
            .args([verb, &self.base, &user.id, &user.token, &self.room])
            .stdin(Stdio::null());
        command
    }
}

/// A loopback port nothing listens on now (the small race with another
/// process taking it before Synapse does is accepted).
fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The second config file: loopback client listener on `port`, no
/// federation, no rate limits, cheap password hashing (test users only).
fn overrides(port: u16) -> String {
    let lifted = "{per_second: 1000, burst_count: 1000}";
    format!(
        "listeners:
  - bind_addresses: ['127.0.0.1']
    port: {port}
    type: http
    tls: false
    x_forwarded: false
    resources:
      - names: [client]
        compress: false
trusted_key_servers: []
suppress_key_server_warning: true
bcrypt_rounds: 4
rc_message: {lifted}
rc_registration: {lifted}
rc_login:
  address: {lifted}
  account: {lifted}
  failed_attempts: {lifted}
rc_joins:
  local: {lifted}
  remote: {lifted}
rc_invites:
  per_room: {lifted}
  per_user: {lifted}
"
    )
}
