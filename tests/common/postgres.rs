//! A real PostgreSQL server for the tests, started in a temporary folder as
//! an unprivileged user (`postgres` when the tests run as root, which
//! PostgreSQL refuses to run as; else the tests' own user). It listens on a
//! Unix socket in that folder only (no port to race for), trusts local
//! connections, and is stopped and removed when the test process ends, even
//! by a crash: a shell holds the server and waits on a pipe from the test
//! process, whose closing stops it.
//!
//! The server programs are found in `ASK_USER_PG_BIN`, else the newest
//! `/usr/lib/postgresql/*/bin` (Debian's packages, `.ci/setup-postgres.sh`),
//! else on the PATH. Missing, a test that needs them is ignored (a failure
//! under CI) through [`super::harness::require`].

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// What is missing, as the harness reports it.
pub const MISSING: &str =
    "PostgreSQL's server programs (initdb, postgres: run .ci/setup-postgres.sh)";

/// One running server.
pub struct Server {
    /// The server's folder: its data and its socket.
    dir: PathBuf,
    /// The shell that holds the server; its stdin is the pipe whose closing
    /// stops it.
    holder: Mutex<Option<Child>>,
    bin: PathBuf,
    user: Option<String>,
    databases: AtomicUsize,
    /// More `-c name=value` settings for every start (TLS, a TCP port).
    settings: Vec<String>,
}

/// The server every test in this process shares, started on first use;
/// `None` when PostgreSQL is not installed.
pub fn shared() -> Option<&'static Server> {
    static SERVER: OnceLock<Option<Server>> = OnceLock::new();
    SERVER.get_or_init(Server::start).as_ref()
}

/// The folder of PostgreSQL's server programs, if there is one.
pub fn bin_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("ASK_USER_PG_BIN").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("bin"))
        .filter(|bin| bin.join("initdb").is_file())
        .collect();
    // "9.6" < "15": by the major version as a number.
    debian.sort_by_key(|bin| {
        bin.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.split('.').next())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    if let Some(newest) = debian.pop() {
        return Some(newest);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .find(|dir| dir.join("initdb").is_file() && dir.join("postgres").is_file())
}

#[cfg(unix)]
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(not(unix))]
fn is_root() -> bool {
    false
}

impl Server {
    /// A server of its own (one a test may stop), `None` without PostgreSQL.
    pub fn start() -> Option<Server> {
        Server::start_with(&[], |_| {})
    }

    /// [`Server::start`] with more settings (`name=value`, as `-c` takes
    /// them), and `prepare` run on its folder between initdb and the first
    /// start (to write pg_hba.conf or a certificate the server reads).
    pub fn start_with(settings: &[String], prepare: impl FnOnce(&Path)) -> Option<Server> {
        let bin = bin_dir()?;
        let user = is_root().then(|| "postgres".to_string());
        let dir = tempfile::Builder::new()
            .prefix("ask_user-pg.")
            .tempdir()
            .expect("a temporary folder")
            .keep();
        if let Some(user) = &user {
            let status = Command::new("chown")
                .args([user.as_str(), dir.to_str().unwrap()])
                .status()
                .expect("chown");
            assert!(status.success(), "chown {user} {}", dir.display());
        }
        let server = Server {
            dir,
            holder: Mutex::new(None),
            bin,
            user,
            databases: AtomicUsize::new(0),
            settings: settings
                .iter()
                .flat_map(|s| ["-c".to_string(), s.clone()])
                .collect(),
        };
        let output = server
            .command("initdb")
            .args([
                "-A",
                "trust",
                "-U",
                "ask_user",
                "-E",
                "UTF8",
                "--no-sync",
                "-D",
            ])
            .arg(server.data())
            .output()
            .expect("initdb runs");
        assert!(
            output.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        prepare(&server.dir);
        if let Some(user) = &server.user {
            let status = Command::new("chown")
                .args(["-R", user.as_str(), server.dir.to_str().unwrap()])
                .status()
                .expect("chown");
            assert!(status.success());
        }
        server.run();
        Some(server)
    }

    /// A command as the server's user.
    fn command(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        match &self.user {
            Some(user) => {
                let mut command = Command::new("runuser");
                command.args(["-u", user, "--"]).arg(program);
                command
            }
            None => Command::new(program),
        }
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Starts the server (again) and waits until it takes connections.
    pub fn run(&self) {
        let mut holder = self.holder.lock().unwrap();
        assert!(holder.is_none(), "the server runs already");
        // The shell stops the server (a fast shutdown) when its stdin, a
        // pipe from this process, closes: at `stop`, or when this process
        // ends however it ends. With `remove`, it then deletes the folder.
        let script = r#"
            bin=$1 dir=$2
            shift 2
            "$bin" -D "$dir/data" -k "$dir" -c listen_addresses= -c max_connections=200 \
                 -c log_min_messages=fatal "$@" >"$dir/server.log" 2>&1 &
            server=$!
            read -r how
            kill -INT "$server" 2>/dev/null
            wait "$server"
            [ "$how" = stop ] || rm -rf "$dir"
        "#;
        let mut command = match &self.user {
            Some(user) => {
                let mut runuser = Command::new("runuser");
                runuser.args(["-u", user, "--", "sh"]);
                runuser
            }
            None => Command::new("sh"),
        };
        command
            .args(["-c", script, "sh"])
            .arg(self.bin.join("postgres"))
            .arg(&self.dir)
            .args(&self.settings);
        let child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server's shell starts");
        *holder = Some(child);
        drop(holder);
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if self.psql("postgres", "SELECT 1").is_ok() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "PostgreSQL did not start in 30 s: {}",
                std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the server (a fast shutdown: connections are cut), keeping its
    /// data for [`Server::run`].
    pub fn stop(&self) {
        let Some(mut child) = self.holder.lock().unwrap().take() else {
            return;
        };
        use std::io::Write as _;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(b"stop\n");
        }
        let _ = child.wait();
    }

    /// The socket folder, as a connection URL's host.
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// A URL for database `name` on this server.
    pub fn url(&self, name: &str) -> String {
        let host: String = self
            .dir
            .display()
            .to_string()
            .bytes()
            .map(|b| match b {
                b'/' => "%2F".to_string(),
                b if b.is_ascii_alphanumeric() || b"-._~".contains(&b) => char::from(b).to_string(),
                b => format!("%{b:02X}"),
            })
            .collect();
        // A server given its own port (`port=N`) has its socket named by it.
        let port = self
            .settings
            .iter()
            .find_map(|s| s.strip_prefix("port="))
            .map_or(String::new(), |port| format!(":{port}"));
        format!("postgres://ask_user@{host}{port}/{name}")
    }

    /// A new, empty database, and its URL.
    pub fn new_database(&self) -> String {
        let n = self.databases.fetch_add(1, Ordering::Relaxed);
        let name = format!("t{}_{n}", std::process::id());
        self.psql("postgres", &format!("CREATE DATABASE {name}"))
            .unwrap_or_else(|e| panic!("CREATE DATABASE {name}: {e}"));
        self.url(&name)
    }

    /// Runs `sql` in database `name` through a client of the server's own.
    pub fn psql(&self, name: &str, sql: &str) -> Result<String, String> {
        let url = self.url(name);
        let mut client =
            postgres::Client::connect(&url, postgres::NoTls).map_err(|e| e.to_string())?;
        let messages = client
            .simple_query(sql)
            .map_err(|e| match e.as_db_error() {
                Some(db) => db.message().to_string(),
                None => e.to_string(),
            })?;
        Ok(messages
            .iter()
            .filter_map(|m| match m {
                postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"))
    }
}
