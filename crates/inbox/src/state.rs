//! The state folder (DESIGN §10) and what lives in it besides the store:
//! `inbox.json` (how askers find a running inbox), the persistent token, and
//! the lock that lets one inbox at a time serve a folder.
//!
//! The folder is `$ASK_USER_STATE_DIR`, else `$XDG_STATE_HOME/ask_user`, else
//! `~/.local/state/ask_user` (Windows: `%LOCALAPPDATA%\ask_user`); it is
//! created private (0700) and every file in it is written private (0600),
//! whole (a temporary file renamed over the old one). What private means on
//! Windows: [`ask_user_platform::files`].

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use ask_user_platform::{files, paths};

/// Where `inbox.json` says a running inbox is.
pub const INBOX_FILE: &str = "inbox.json";
/// The SQLite store of questions and outcomes.
pub const STORE_FILE: &str = "inbox.sqlite3";
/// The token, kept across restarts so bookmarks and waiting askers keep working.
const TOKEN_FILE: &str = "token";
/// Held (flock) by the inbox serving this folder.
const LOCK_FILE: &str = "inbox.lock";
/// Bytes of OS randomness in a token (128 bits, as the answer page's).
const TOKEN_BYTES: usize = 16;
/// How long a discovery waits for the inbox's port to accept a connection.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// The state folder, created (0700) if it was missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateDir {
    path: PathBuf,
}

impl StateDir {
    /// The folder the environment names (see the module's doc); `None` when
    /// none is set and there is no home folder.
    pub fn locate() -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os("ASK_USER_STATE_DIR").filter(|v| !v.is_empty()) {
            return Some(PathBuf::from(dir));
        }
        paths::default_state_dir()
    }

    /// Opens `path`, creating it (and its parents) with mode 0700.
    pub fn create(path: PathBuf) -> io::Result<StateDir> {
        if !path.is_dir() {
            files::create_private_dir_all(&path)?;
        }
        Ok(StateDir { path })
    }

    /// A folder that is only read (by askers): never created.
    pub fn existing(path: PathBuf) -> StateDir {
        StateDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn store_path(&self) -> PathBuf {
        self.path.join(STORE_FILE)
    }

    pub fn inbox_file(&self) -> PathBuf {
        self.path.join(INBOX_FILE)
    }

    /// The token of this folder's inbox: the stored one, or a new one (stored)
    /// when there is none or `rotate` asks for a fresh one.
    pub fn token(&self, rotate: bool) -> io::Result<String> {
        let path = self.path.join(TOKEN_FILE);
        if !rotate && let Ok(text) = fs::read_to_string(&path) {
            let token = text.trim();
            if is_token(token) {
                return Ok(token.to_string());
            }
        }
        let token = random_token()?;
        write_private(&path, format!("{token}\n").as_bytes())?;
        Ok(token)
    }

    /// Takes the folder's lock without waiting: `Err` with the holder's
    /// `inbox.json` (when readable) if another inbox serves this folder.
    /// The lock is released when the [`FolderLock`] is dropped or the
    /// process ends, however it ends.
    pub fn lock(&self) -> io::Result<Result<FolderLock, Option<InboxFile>>> {
        let file = files::private(OpenOptions::new().create(true).truncate(false).write(true))
            .open(self.path.join(LOCK_FILE))?;
        // flock on Unix, LockFileEx on Windows: see platform::files.
        match file.try_lock() {
            Ok(()) => Ok(Ok(FolderLock { _file: file })),
            Err(fs::TryLockError::WouldBlock) => Ok(Err(self.read_inbox_file())),
            Err(fs::TryLockError::Error(err)) => Err(err),
        }
    }

    /// Writes `inbox.json` (0600, whole).
    pub fn write_inbox_file(&self, file: &InboxFile) -> io::Result<()> {
        let mut line = ask_user_core::document_line(file);
        line.push('\n');
        write_private(&self.inbox_file(), line.as_bytes())
    }

    /// `inbox.json`, if it is there and well-formed.
    pub fn read_inbox_file(&self) -> Option<InboxFile> {
        let text = fs::read_to_string(self.inbox_file()).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Removes `inbox.json` if it still names process `pid` (a newer inbox's
    /// file is left alone).
    pub fn remove_inbox_file(&self, pid: u32) {
        if self.read_inbox_file().is_some_and(|file| file.pid == pid) {
            let _ = fs::remove_file(self.inbox_file());
        }
    }
}

/// The lock of a state folder, held by the inbox that serves it.
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
}

/// `inbox.json`: how askers reach the running inbox. Keys in this order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InboxFile {
    pub url: String,
    pub token: String,
    pub pid: u32,
}

/// Where an asker or a CLI verb sends its requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// `http://HOST:PORT` or `https://HOST[:PORT]` (no path).
    pub base: String,
    /// `HOST:PORT` (or `HOST` for https on 443), as sent in `Host`.
    pub authority: String,
    pub token: String,
}

impl Endpoint {
    /// Whether requests go over TLS (an `https://` inbox).
    pub fn tls(&self) -> bool {
        self.base.starts_with("https://")
    }

    /// `HOST:PORT` to connect to.
    pub fn dial(&self) -> String {
        dial(&self.base, &self.authority)
    }

    /// The host alone (brackets kept), for the TLS server name.
    pub fn host(&self) -> &str {
        host_of(&self.authority)
    }
}

/// `HOST:PORT` to connect to for `authority` under `base`'s scheme: https
/// without a port is on 443.
fn dial(base: &str, authority: &str) -> String {
    if base.starts_with("https://") && port_of(authority).is_none() {
        format!("{authority}:443")
    } else {
        authority.to_string()
    }
}

/// The port of `HOST:PORT` (`[V6]:PORT`); `None` for a host alone.
fn port_of(authority: &str) -> Option<&str> {
    authority
        .rsplit_once(':')
        .filter(|(host, port)| !host.is_empty() && !port.contains(']'))
        .map(|(_, port)| port)
}

fn host_of(authority: &str) -> &str {
    match port_of(authority) {
        Some(port) => &authority[..authority.len() - port.len() - 1],
        None => authority,
    }
}

/// Why no inbox was found: said in `NO_INBOX`'s message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// No state folder could be named (no `HOME`; Windows: no `LOCALAPPDATA`).
    NoFolder,
    /// No `inbox.json` (or an unreadable one) in this folder.
    NoFile(PathBuf),
    /// `inbox.json` names a process that has ended.
    DeadProcess { file: PathBuf, pid: u32 },
    /// Nothing accepts connections at the address.
    Refused(String),
    /// `ASK_USER_INBOX` is not an `http(s)://HOST:PORT` address (or a list of
    /// them, separated by commas or spaces).
    BadAddress(String),
    /// `ASK_USER_INBOX` is set and no token is known for it.
    NoToken(String),
}

impl Missing {
    pub fn message(&self) -> String {
        let start = "start one with `ask_user inbox` (or set ASK_USER_INBOX and ASK_USER_TOKEN)";
        match self {
            Missing::NoFolder => format!(
                "no inbox is running: no state folder is known (set ASK_USER_STATE_DIR or {}); {start}",
                paths::STATE_VAR
            ),
            Missing::NoFile(path) => {
                format!(
                    "no inbox is running ({} does not exist); {start}",
                    path.display()
                )
            }
            Missing::DeadProcess { file, pid } => format!(
                "no inbox is running ({} names process {pid}, which has ended); {start}",
                file.display()
            ),
            Missing::Refused(address) => {
                format!("no inbox is running: nothing answers at {address}; {start}")
            }
            Missing::BadAddress(value) => format!(
                "ASK_USER_INBOX must be an http://HOST:PORT or https://HOST[:PORT] address (or several, separated by commas), not {value:?}; set it to the URL `ask_user inbox` printed"
            ),
            Missing::NoToken(address) => format!(
                "ASK_USER_INBOX is {address} but no token is known for it; set ASK_USER_TOKEN to the inbox's token"
            ),
        }
    }
}

/// What the environment says about where the inbox is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lookup {
    /// The state folder ([`StateDir::locate`]).
    pub folder: Option<PathBuf>,
    /// `ASK_USER_INBOX`.
    pub address: Option<String>,
    /// `ASK_USER_TOKEN`.
    pub token: Option<String>,
}

impl Lookup {
    pub fn from_env() -> Lookup {
        let var = |name: &str| {
            std::env::var(name)
                .ok()
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        Lookup {
            folder: StateDir::locate(),
            address: var("ASK_USER_INBOX"),
            token: var("ASK_USER_TOKEN"),
        }
    }

    /// Finds the running inbox: `ASK_USER_INBOX` (with `ASK_USER_TOKEN`, or
    /// the token in `inbox.json` when it names the same address), else
    /// `inbox.json` in the state folder. A file whose process has ended, or
    /// whose port refuses connections, is stale: no inbox.
    pub fn discover(&self) -> Result<Endpoint, Missing> {
        self.discover_from(None)
    }

    /// [`Lookup::discover`] for an asker that leaves the replica at `base`
    /// (it went away, or it is stopping): the addresses after it in
    /// `ASK_USER_INBOX` are tried first, then those before it, and `base`
    /// last. Without a list (or with `base` not in it), as `discover`.
    pub fn discover_after(&self, base: &str) -> Result<Endpoint, Missing> {
        self.discover_from(Some(base))
    }

    fn discover_from(&self, after: Option<&str>) -> Result<Endpoint, Missing> {
        let folder = self.folder.clone().map(StateDir::existing);
        let file = folder.as_ref().and_then(StateDir::read_inbox_file);
        if let Some(addresses) = &self.address {
            // Several replicas of one inbox (a team inbox on PostgreSQL): the
            // first that answers, in the order given. An asker whose replica
            // goes away finds the next one here when it reconnects.
            let mut parsed = addresses
                .split([',', ' '])
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(|a| parse_address(a).ok_or_else(|| Missing::BadAddress(a.into())))
                .collect::<Result<Vec<_>, _>>()?;
            if let Some(at) = after.and_then(|after| parsed.iter().position(|(b, _)| b == after)) {
                parsed.rotate_left(at + 1);
            }
            let mut found = Err(Missing::BadAddress(addresses.clone()));
            for (base, authority) in parsed {
                let token = self
                    .token
                    .clone()
                    .or_else(|| {
                        file.as_ref()
                            .filter(|f| parse_address(&f.url).is_some_and(|(b, _)| b == base))
                            .map(|f| f.token.clone())
                    })
                    .ok_or_else(|| Missing::NoToken(base.clone()))?;
                found = probe(&base, &authority).map(|()| Endpoint {
                    base,
                    authority,
                    token,
                });
                if found.is_ok() {
                    break;
                }
            }
            return found;
        }
        let folder = folder.ok_or(Missing::NoFolder)?;
        let file = file.ok_or_else(|| Missing::NoFile(folder.inbox_file()))?;
        if !process_is_alive(file.pid) {
            return Err(Missing::DeadProcess {
                file: folder.inbox_file(),
                pid: file.pid,
            });
        }
        let (base, authority) =
            parse_address(&file.url).ok_or_else(|| Missing::Refused(file.url.clone()))?;
        probe(&base, &authority)?;
        Ok(Endpoint {
            base,
            authority,
            token: self.token.clone().unwrap_or(file.token),
        })
    }
}

/// Whether something listens at `base` (`authority` there). A connection
/// that is neither accepted nor refused in time counts as there: a busy inbox
/// (its accept queue full of askers) is slow, not gone.
fn probe(base: &str, authority: &str) -> Result<(), Missing> {
    let refused = || Missing::Refused(base.to_string());
    let addresses: Vec<SocketAddr> = dial(base, authority)
        .to_socket_addrs()
        .map_err(|_| refused())?
        .collect();
    let answers = |address: &SocketAddr| match TcpStream::connect_timeout(address, PROBE_TIMEOUT) {
        Ok(_) => true,
        Err(e) => e.kind() == io::ErrorKind::TimedOut,
    };
    if addresses.iter().any(answers) {
        Ok(())
    } else {
        Err(refused())
    }
}

/// `http://HOST:PORT[/…]` → (`http://HOST:PORT`, `HOST:PORT`);
/// `https://HOST[:PORT][/…]` likewise (no port: 443).
pub fn parse_address(url: &str) -> Option<(String, String)> {
    let url = url.trim();
    let (scheme, rest) = match url.strip_prefix("http://") {
        Some(rest) => ("http", rest),
        None => ("https", url.strip_prefix("https://")?),
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let (host, port) = match port_of(authority) {
        Some(port) => (host_of(authority), Some(port)),
        None if scheme == "https" => (authority, None),
        None => return None,
    };
    if let Some(port) = port {
        port.parse::<u16>().ok().filter(|&p| p != 0)?;
    }
    let host_ok = !host.is_empty()
        && (host.starts_with('[') && host.ends_with(']')
            || host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'));
    host_ok.then(|| {
        let authority = match port {
            Some(port) => format!("{host}:{}", port.parse::<u16>().unwrap_or_default()),
            None => host.to_string(),
        };
        (format!("{scheme}://{authority}"), authority)
    })
}

/// Whether process `pid` exists (it may belong to another user).
pub fn process_is_alive(pid: u32) -> bool {
    ask_user_platform::process::is_alive(pid)
}

fn is_token(text: &str) -> bool {
    text.len() == TOKEN_BYTES * 2 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

fn random_token() -> io::Result<String> {
    random_hex(TOKEN_BYTES)
}

/// `bytes` bytes from the OS random source, as lowercase hex.
pub fn random_hex(bytes: usize) -> io::Result<String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes `bytes` to `path` whole and with mode 0600: into a new temporary
/// file beside it, flushed to disk, then renamed over `path`.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = files::private(OpenOptions::new().write(true).create(true).truncate(true))
            .open(&tmp)?;
        // A file left by an earlier run may have other bits: set them again.
        files::make_private(&file)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        // Closed before the rename: Windows renames no open file over another.
        drop(file);
        fs::rename(&tmp, path)?;
        files::sync_dir(dir)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn folder() -> (tempfile::TempDir, StateDir) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::create(tmp.path().join("a/b/ask_user")).unwrap();
        (tmp, dir)
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    /// A port on 127.0.0.1 that refuses connections for as long as the
    /// returned socket lives, and that no other socket can take meanwhile:
    /// the socket is bound to it without SO_REUSEADDR and never listens. (A
    /// dropped listener's port is free for any process to listen on, and one
    /// did in a loaded run.) tokio's socket sets no option before `bind`.
    fn refusing_port() -> (tokio::net::TcpSocket, u16) {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket
            .bind((std::net::Ipv4Addr::LOCALHOST, 0).into())
            .unwrap();
        let port = socket.local_addr().unwrap().port();
        (socket, port)
    }

    #[test]
    fn a_bound_socket_that_never_listens_refuses_and_keeps_its_port() {
        let (_socket, port) = refusing_port();
        assert_ne!(port, 0);
        assert_eq!(
            std::net::TcpStream::connect(("127.0.0.1", port))
                .unwrap_err()
                .kind(),
            io::ErrorKind::ConnectionRefused
        );
        // std sets SO_REUSEADDR on its listeners, and still cannot take it.
        let taken = TcpListener::bind(("127.0.0.1", port)).unwrap_err();
        assert_eq!(taken.kind(), io::ErrorKind::AddrInUse);
    }

    // Modes are Unix's; on Windows the profile's access list applies.
    #[cfg(unix)]
    #[test]
    fn the_folder_is_0700_and_its_files_0600() {
        let (_tmp, dir) = folder();
        assert_eq!(mode(dir.path()), 0o700);
        let file = InboxFile {
            url: "http://127.0.0.1:27587".into(),
            token: "ab".repeat(16),
            pid: 42,
        };
        dir.write_inbox_file(&file).unwrap();
        assert_eq!(mode(&dir.inbox_file()), 0o600);
        assert_eq!(
            fs::read_to_string(dir.inbox_file()).unwrap(),
            format!(
                "{{\"url\":\"http://127.0.0.1:27587\",\"token\":\"{}\",\"pid\":42}}\n",
                "ab".repeat(16)
            )
        );
        assert_eq!(dir.read_inbox_file(), Some(file));
        dir.token(false).unwrap();
        assert_eq!(mode(&dir.path().join(TOKEN_FILE)), 0o600);
        // No temporary file is left behind.
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    }

    #[cfg(unix)]
    #[test]
    fn an_existing_file_with_wider_bits_is_rewritten_0600() {
        use std::os::unix::fs::PermissionsExt;
        let (_tmp, dir) = folder();
        fs::write(dir.inbox_file(), "{}").unwrap();
        fs::set_permissions(dir.inbox_file(), fs::Permissions::from_mode(0o644)).unwrap();
        dir.write_inbox_file(&InboxFile {
            url: "http://127.0.0.1:1".into(),
            token: "00".repeat(16),
            pid: 1,
        })
        .unwrap();
        assert_eq!(mode(&dir.inbox_file()), 0o600);
    }

    #[test]
    fn the_token_persists_until_rotated() {
        let (_tmp, dir) = folder();
        let first = dir.token(false).unwrap();
        assert!(is_token(&first), "{first}");
        assert_eq!(dir.token(false).unwrap(), first);
        let rotated = dir.token(true).unwrap();
        assert_ne!(rotated, first);
        assert_eq!(dir.token(false).unwrap(), rotated);
        // A damaged token file is replaced, never used: too short, or the
        // right length but not hexadecimal.
        let hex = |t: &str| t.len() == 32 && t.bytes().all(|b| b.is_ascii_hexdigit());
        for damaged in ["short".to_string(), "abc".to_string(), "zz".repeat(16)] {
            fs::write(dir.path().join(TOKEN_FILE), format!("{damaged}\n")).unwrap();
            let fresh = dir.token(false).unwrap();
            assert!(hex(&fresh), "{damaged:?} gave {fresh:?}");
        }
    }

    #[test]
    fn one_lock_per_folder() {
        let (_tmp, dir) = folder();
        let held = dir.lock().unwrap().expect("the first lock");
        let file = InboxFile {
            url: "http://127.0.0.1:9".into(),
            token: "cd".repeat(16),
            pid: std::process::id(),
        };
        dir.write_inbox_file(&file).unwrap();
        // flock locks belong to the open file: a second open is refused.
        assert_eq!(dir.lock().unwrap().unwrap_err(), Some(file));
        drop(held);
        let free = ask_user_platform::files::comes_free(|| dir.lock().unwrap().is_ok());
        assert!(free, "the lock is still held after it was dropped");
    }

    #[test]
    fn removing_inbox_json_spares_a_newer_inbox_file() {
        let (_tmp, dir) = folder();
        let file = InboxFile {
            url: "http://127.0.0.1:9".into(),
            token: "cd".repeat(16),
            pid: 7,
        };
        dir.write_inbox_file(&file).unwrap();
        dir.remove_inbox_file(8);
        assert!(dir.inbox_file().exists());
        dir.remove_inbox_file(7);
        assert!(!dir.inbox_file().exists());
    }

    #[test]
    fn addresses() {
        let ok = |url: &str, base: &str| {
            assert_eq!(
                parse_address(url).map(|(b, _)| b),
                Some(base.to_string()),
                "{url}"
            )
        };
        ok("http://127.0.0.1:27587", "http://127.0.0.1:27587");
        ok("http://127.0.0.1:27587/", "http://127.0.0.1:27587");
        ok(" http://localhost:9000/?token=x ", "http://localhost:9000");
        ok("http://[::1]:9000", "http://[::1]:9000");
        ok("https://10.0.0.5:8443/", "https://10.0.0.5:8443");
        ok("https://inbox.example.com", "https://inbox.example.com");
        ok("https://[fd00::5]/?token=x", "https://[fd00::5]");
        for bad in [
            "127.0.0.1:9000",
            "ftp://127.0.0.1:9000",
            "https://:9000",
            "https://",
            "https://[::1]:0",
            "http://127.0.0.1",
            "http://127.0.0.1:0",
            "http://127.0.0.1:99999",
            "http://:9000",
            "http://a b:9000",
            "http://user@host:9000",
            "https://[::1",
            "https://::1]",
        ] {
            assert_eq!(parse_address(bad), None, "{bad}");
        }
    }

    #[test]
    fn processes() {
        assert!(process_is_alive(std::process::id()));
        assert!(!process_is_alive(0));
        assert!(!process_is_alive(u32::MAX));
        assert!(!process_is_alive(
            ask_user_platform::process::ended_process()
        ));
    }

    #[test]
    fn discovery_follows_inbox_json_and_knows_a_stale_one() {
        let (_tmp, dir) = folder();
        let lookup = Lookup {
            folder: Some(dir.path().to_path_buf()),
            ..Lookup::default()
        };
        assert_eq!(
            Lookup::default().discover(),
            Err(Missing::NoFolder),
            "no folder"
        );
        assert_eq!(lookup.discover(), Err(Missing::NoFile(dir.inbox_file())));

        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}");
        let token = "ef".repeat(16);
        let file = |pid| InboxFile {
            url: url.clone(),
            token: token.clone(),
            pid,
        };
        dir.write_inbox_file(&file(std::process::id())).unwrap();
        let found = Endpoint {
            base: url.clone(),
            authority: format!("127.0.0.1:{port}"),
            token: token.clone(),
        };
        assert_eq!(lookup.discover(), Ok(found.clone()));

        // A process that has ended: stale, whatever listens on the port.
        let dead = ask_user_platform::process::ended_process();
        dir.write_inbox_file(&file(dead)).unwrap();
        assert_eq!(
            lookup.discover(),
            Err(Missing::DeadProcess {
                file: dir.inbox_file(),
                pid: dead
            })
        );
        // A live process (pid reused) but a closed port: stale too.
        let (_refusing, closed) = refusing_port();
        let closed_url = format!("http://127.0.0.1:{closed}");
        dir.write_inbox_file(&InboxFile {
            url: closed_url.clone(),
            ..file(std::process::id())
        })
        .unwrap();
        assert_eq!(lookup.discover(), Err(Missing::Refused(closed_url.clone())));
        let message = Missing::Refused(closed_url).message();
        assert!(message.contains("ask_user inbox"), "{message}");
        drop(listener);
    }

    #[test]
    fn several_addresses_are_replicas_tried_in_order() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let up = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let (_refusing, closed) = refusing_port();
        let down = format!("http://127.0.0.1:{closed}");
        let with = |address: String| Lookup {
            folder: None,
            address: Some(address),
            token: Some("tok".into()),
        };
        // The first that answers, whatever the separator.
        for list in [
            format!("{down},{up}"),
            format!("{down} {up}"),
            format!(" {down} , {up} ,"),
        ] {
            assert_eq!(
                with(list.clone()).discover().map(|e| e.base),
                Ok(up.clone()),
                "{list}"
            );
        }
        assert_eq!(
            with(format!("{up},{down}")).discover().map(|e| e.base),
            Ok(up.clone())
        );
        // None answers: the last one's refusal.
        assert_eq!(
            with(format!("{down},{down}")).discover(),
            Err(Missing::Refused(down.clone()))
        );
        // A malformed entry anywhere is said at once; an empty list is malformed.
        assert_eq!(
            with(format!("{up},ftp://x:1")).discover(),
            Err(Missing::BadAddress("ftp://x:1".into()))
        );
        assert_eq!(
            with(" , ".into()).discover(),
            Err(Missing::BadAddress(" , ".into()))
        );
    }

    #[test]
    fn an_asker_that_leaves_a_replica_tries_the_next_ones_first() {
        let (first, second) = (
            TcpListener::bind("127.0.0.1:0").unwrap(),
            TcpListener::bind("127.0.0.1:0").unwrap(),
        );
        let [a, b] = [&first, &second]
            .map(|l| format!("http://127.0.0.1:{}", l.local_addr().unwrap().port()));
        let (_refusing, closed) = refusing_port();
        let down = format!("http://127.0.0.1:{closed}");
        let lookup = Lookup {
            folder: None,
            address: Some(format!("{a},{down},{b}")),
            token: Some("tok".into()),
        };
        let after = |base: &str| lookup.discover_after(base).map(|e| e.base);
        assert_eq!(lookup.discover().map(|e| e.base), Ok(a.clone()));
        // From A: the next that answers (the one between is down).
        assert_eq!(after(&a), Ok(b.clone()));
        // From B, the last: round to the first.
        assert_eq!(after(&b), Ok(a.clone()));
        assert_eq!(after(&down), Ok(b.clone()));
        // Not in the list: from the start.
        assert_eq!(after("http://127.0.0.1:1"), Ok(a.clone()));
        // The one left is tried last, and taken when nothing else answers.
        drop(second);
        assert_eq!(after(&a), Ok(a.clone()));
    }

    #[test]
    fn the_environment_overrides_inbox_json() {
        let (_tmp, dir) = folder();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}");
        dir.write_inbox_file(&InboxFile {
            url: format!("{url}/"),
            token: "12".repeat(16),
            pid: std::process::id(),
        })
        .unwrap();
        let with = |address: Option<&str>, token: Option<&str>| Lookup {
            folder: Some(dir.path().to_path_buf()),
            address: address.map(String::from),
            token: token.map(String::from),
        };
        // The same address as the file: its token serves.
        assert_eq!(
            with(Some(&url), None).discover().map(|e| e.token),
            Ok("12".repeat(16))
        );
        // ASK_USER_TOKEN wins over the file's.
        assert_eq!(
            with(None, Some("other")).discover().map(|e| e.token),
            Ok("other".to_string())
        );
        let forwarded = format!("http://localhost:{port}");
        assert_eq!(
            with(Some(&forwarded), None).discover(),
            Err(Missing::NoToken(forwarded.clone()))
        );
        assert_eq!(
            with(Some(&forwarded), Some("tok")).discover(),
            Ok(Endpoint {
                base: forwarded.clone(),
                authority: format!("localhost:{port}"),
                token: "tok".into()
            })
        );
        assert_eq!(
            with(Some("127.0.0.1:1"), Some("tok")).discover(),
            Err(Missing::BadAddress("127.0.0.1:1".into()))
        );
    }

    #[test]
    fn https_without_a_port_is_dialled_on_443_and_sent_without_it() {
        let (base, authority) = parse_address("https://inbox.example.com/").unwrap();
        let endpoint = Endpoint {
            base,
            authority,
            token: String::new(),
        };
        assert!(endpoint.tls());
        assert_eq!(endpoint.authority, "inbox.example.com");
        assert_eq!(endpoint.dial(), "inbox.example.com:443");
        assert_eq!(endpoint.host(), "inbox.example.com");
        let (base, authority) = parse_address("https://[fd00::5]:8443").unwrap();
        let endpoint = Endpoint {
            base,
            authority,
            token: String::new(),
        };
        assert_eq!(endpoint.dial(), "[fd00::5]:8443");
        assert_eq!(endpoint.host(), "[fd00::5]");
        let (base, authority) = parse_address("http://[::1]:9000").unwrap();
        let endpoint = Endpoint {
            base,
            authority,
            token: String::new(),
        };
        assert!(!endpoint.tls());
        assert_eq!(endpoint.dial(), "[::1]:9000");
        assert_eq!(port_of("[::1]"), None);
        assert_eq!(port_of(":9000"), None);
    }

    #[test]
    fn probing_finds_a_listener_and_not_a_closed_port() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let base = format!("http://127.0.0.1:{port}");
        assert_eq!(probe(&base, &format!("127.0.0.1:{port}")), Ok(()));
        let (_refusing, closed) = refusing_port();
        assert_eq!(
            probe(
                &format!("http://127.0.0.1:{closed}"),
                &format!("127.0.0.1:{closed}")
            ),
            Err(Missing::Refused(format!("http://127.0.0.1:{closed}")))
        );
        drop(listener);
    }
}
