//! The inbox past loopback (issue 24, DESIGN §14): askers in another network
//! namespace (a veth pair, as another machine would be) reach an inbox that
//! listens on the namespace link's address, over TLS with a test CA made by
//! openssl, and behind a real reverse proxy (Caddy) that terminates TLS.
//! Plain HTTP on that address is refused at start.
//!
//! Network namespaces need root and iproute2; the CA needs openssl; the proxy
//! needs Caddy (.ci/setup-deploy.sh installs them). Without them the tests
//! count as ignored (under CI: failed).

mod common;
#[path = "common/netns.rs"]
mod netns;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use common::bin;
use common::harness;
use common::inbox::{Asker, assert_error, run_with_input, state, until};
use common::process::{ChildGuard, exit_within, without_tty};
use netns::{NO_NAMESPACE, Namespace, TestCa};

const DATABASE: &str = r#"{"question":"Which database?","options":["PostgreSQL","SQLite"]}"#;

common::harness::main!(
    plain_http_past_loopback_and_flags_that_disagree_are_refused_at_start,
    an_unusable_certificate_is_a_clear_error_at_start,
    askers_in_another_namespace_reach_an_inbox_over_tls,
    askers_in_another_namespace_reach_an_inbox_behind_caddy,
);

fn inbox_error(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = common::inbox::command(dir, args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn plain_http_past_loopback_and_flags_that_disagree_are_refused_at_start() {
    let dir = state();
    let refused = |args: &[&str], says: &str| {
        let mut all = vec!["inbox"];
        all.extend_from_slice(args);
        let (code, stdout, stderr) = inbox_error(dir.path(), &all);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(stdout, "", "{args:?}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!dir.path().join("inbox.json").exists());
    };
    refused(
        &["--listen", "10.233.0.1:8443"],
        "plain HTTP would carry the token in clear",
    );
    refused(&["--listen", "0.0.0.0:8443"], "plain HTTP");
    refused(
        &[
            "--listen",
            "0.0.0.0:8443",
            "--tls-cert",
            "c.pem",
            "--tls-key",
            "k.pem",
        ],
        "pass --public-url",
    );
    refused(&["--listen", "localhost:8443"], "is not ADDRESS:PORT");
    refused(
        &["--listen", "10.233.0.1:8443", "--port", "1"],
        "cannot be used with",
    );
    refused(&["--tls-cert", "c.pem"], "--tls-key");
    refused(&["--behind-proxy"], "--public-url");
    refused(
        &["--behind-proxy", "--public-url", "http://inbox.example.com"],
        "is not an https:// URL",
    );
    refused(
        &["--public-url", "https://inbox.example.com/inbox"],
        "is not a URL of a host",
    );
}

fn an_unusable_certificate_is_a_clear_error_at_start() {
    let dir = state();
    let files = tempfile::tempdir().unwrap();
    let empty = files.path().join("empty.pem");
    std::fs::write(&empty, "").unwrap();
    let missing = files.path().join("missing.pem");
    let start = |cert: &Path, key: &Path| {
        let (code, stdout, _) = inbox_error(
            dir.path(),
            &[
                "inbox",
                "--listen",
                "127.0.0.1:0",
                "--tls-cert",
                cert.to_str().unwrap(),
                "--tls-key",
                key.to_str().unwrap(),
            ],
        );
        (code, stdout)
    };
    assert_error(start(&missing, &empty), "WEB_ERROR", "--tls-cert");
    assert_error(start(&empty, &empty), "WEB_ERROR", "no CERTIFICATE");
    let Some(ca) = TestCa::make(files.path(), "127.0.0.1") else {
        harness::require(None::<()>, "openssl (run .ci/setup-deploy.sh)");
        return;
    };
    assert_error(start(&ca.cert, &empty), "WEB_ERROR", "--tls-key");
    // A key that is not the certificate's.
    let other = TestCa::make(&files.path().join("other"), "127.0.0.1").unwrap();
    assert_error(
        start(&ca.cert, &other.key),
        "WEB_ERROR",
        "do not make a usable pair",
    );
    assert!(!dir.path().join("inbox.json").exists());
}

/// `ask_user ARGS` inside `namespace`, with `dir` as its state folder.
fn command_in(namespace: &Namespace, dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("ip");
    command
        .args(["netns", "exec", &namespace.name, bin()])
        .args(args)
        .env("ASK_USER_STATE_DIR", dir)
        .env_remove("TOOLBOX_ACTION")
        .env_remove("ASK_USER_UI");
    without_tty(&mut command);
    command
}

/// `ask_user inbox ARGS`, running (killed when dropped); its page URL from
/// the line it prints.
struct Served {
    _child: ChildGuard,
    url: String,
    token: String,
}

impl Served {
    fn start(dir: &Path, args: &[&str]) -> Served {
        use std::io::BufRead;
        let mut command = common::inbox::command(dir, &["inbox"]);
        let mut child = ChildGuard::spawn(
            command
                .args(args)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        )
        .unwrap();
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http"))
            .unwrap_or_else(|| panic!("no URL from the inbox: {line:?}"))
            .to_string();
        let (base, token) = url.split_once("/?token=").unwrap();
        Served {
            _child: child,
            url: base.to_string(),
            token: token.to_string(),
        }
    }
}

/// An asker in `namespace` that reaches the inbox at `url` and trusts `ca`.
fn remote_asker(namespace: &Namespace, dir: &Path, url: &str, token: &str, ca: &Path) -> Asker {
    let mut command = command_in(namespace, dir, &["ask", "--ui", "inbox", "-"]);
    command
        .env("ASK_USER_INBOX", url)
        .env("ASK_USER_TOKEN", token)
        .env("SSL_CERT_FILE", ca);
    Asker::spawn(command, DATABASE)
}

/// `ask_user inbox ARGS` from `namespace`, as a person elsewhere runs it.
fn remote_verb(
    namespace: &Namespace,
    dir: &Path,
    url: &str,
    token: &str,
    ca: Option<&Path>,
    args: &[&str],
) -> (i32, String) {
    let mut command = command_in(namespace, dir, args);
    command
        .env("ASK_USER_INBOX", url)
        .env("ASK_USER_TOKEN", token)
        .env_remove("SSL_CERT_FILE");
    if let Some(ca) = ca {
        command.env("SSL_CERT_FILE", ca);
    }
    run_with_input(&mut command, b"")
}

/// The whole round as someone elsewhere sees it: an asker in the namespace
/// asks, a person in the namespace lists and answers, the asker gets it.
fn ask_and_answer_from_the_namespace(namespace: &Namespace, url: &str, token: &str, ca: &Path) {
    let (asker_dir, person_dir) = (state(), state());
    let asker = remote_asker(namespace, asker_dir.path(), url, token, ca);
    let (code, listed) = remote_verb(
        namespace,
        person_dir.path(),
        url,
        token,
        Some(ca),
        &["inbox", "list"],
    );
    assert_eq!(code, 0, "{listed}");
    let item: Value = serde_json::from_str(listed.trim()).unwrap();
    assert_eq!(item["inboxId"], asker.id.as_str());
    let (code, answer) = remote_verb(
        namespace,
        person_dir.path(),
        url,
        token,
        Some(ca),
        &["inbox", "answer", &asker.id, "--reply", "2"],
    );
    assert_eq!(code, 0, "{answer}");
    let id = asker.id.clone();
    let (code, got) = asker.finish();
    assert_eq!(code, 0, "{got}");
    assert_eq!(got["status"], "ok", "{got}");
    assert_eq!(got["answers"][0]["values"][0], "SQLite", "{got}");
    assert_eq!(got["inboxId"], id.as_str());
}

fn askers_in_another_namespace_reach_an_inbox_over_tls() {
    let namespace = harness::require(Namespace::make(), NO_NAMESPACE);
    let files = tempfile::tempdir().unwrap();
    let ca = harness::require(
        TestCa::make(files.path(), &namespace.host_ip),
        "openssl (run .ci/setup-deploy.sh)",
    );
    let dir = state();
    let listen = format!("{}:{}", namespace.host_ip, namespace.free_port());
    // Plain HTTP on the namespace's address is refused at start.
    let (code, _, stderr) = inbox_error(dir.path(), &["inbox", "--listen", &listen]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("plain HTTP"), "{stderr}");

    let (cert, key) = (ca.cert.to_str().unwrap(), ca.key.to_str().unwrap());
    let inbox = Served::start(
        dir.path(),
        &["--listen", &listen, "--tls-cert", cert, "--tls-key", key],
    );
    assert_eq!(inbox.url, format!("https://{listen}"));
    ask_and_answer_from_the_namespace(&namespace, &inbox.url, &inbox.token, &ca.ca);

    // Without the CA, the certificate is not trusted: a clear, final error.
    let elsewhere = state();
    let untrusted = remote_verb(
        &namespace,
        elsewhere.path(),
        &inbox.url,
        &inbox.token,
        None,
        &["inbox", "list"],
    );
    assert_error(untrusted, "NO_INBOX", "SSL_CERT_FILE");
    // Plain HTTP to the TLS port gets no answer; a wrong token gets 401.
    let plain = format!("http://{listen}");
    let (code, said) = remote_verb(
        &namespace,
        elsewhere.path(),
        &plain,
        &inbox.token,
        None,
        &["inbox", "list"],
    );
    assert_eq!(code, 1, "{said}");
    let wrong = "0".repeat(32);
    let refused = remote_verb(
        &namespace,
        elsewhere.path(),
        &inbox.url,
        &wrong,
        Some(&ca.ca),
        &["inbox", "list"],
    );
    let (code, said) = refused;
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("token"), "{said}");

    // The local CLI finds it through inbox.json, over TLS too.
    let mut local = common::inbox::command(dir.path(), &["inbox", "list"]);
    local.env("SSL_CERT_FILE", &ca.ca);
    let (code, listed) = run_with_input(&mut local, b"");
    assert_eq!((code, listed.as_str()), (0, ""));
}

/// Caddy, terminating TLS at `public` and passing requests to `upstream`;
/// killed when dropped.
struct Caddy {
    child: ChildGuard,
    config: tempfile::TempDir,
}

impl Caddy {
    fn start(public: &str, upstream: &str, ca: &TestCa) -> Option<Caddy> {
        if !common::clients::runs("caddy", &["version"]) {
            return None;
        }
        let config = tempfile::tempdir().unwrap();
        let file = config.path().join("Caddyfile");
        std::fs::write(
            &file,
            format!(
                "{{\n  admin off\n  auto_https disable_redirects\n}}\n\
                 https://{public} {{\n  tls {} {}\n  reverse_proxy {upstream}\n}}\n",
                ca.cert.display(),
                ca.key.display()
            ),
        )
        .unwrap();
        let child = ChildGuard::spawn(
            Command::new("caddy")
                .args(["run", "--adapter", "caddyfile", "--config"])
                .arg(&file)
                .env("HOME", config.path())
                .env("XDG_DATA_HOME", config.path().join("data"))
                .env("XDG_CONFIG_HOME", config.path().join("config"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(config.path().join("caddy.log")).unwrap()),
        )
        .ok()?;
        Some(Caddy { child, config })
    }
}

impl Caddy {
    fn log(&self) -> String {
        std::fs::read_to_string(self.config.path().join("caddy.log")).unwrap_or_default()
    }
}

fn askers_in_another_namespace_reach_an_inbox_behind_caddy() {
    let namespace = harness::require(Namespace::make(), NO_NAMESPACE);
    let files = tempfile::tempdir().unwrap();
    let ca = harness::require(
        TestCa::make(files.path(), &namespace.host_ip),
        "openssl (run .ci/setup-deploy.sh)",
    );
    let public = format!("{}:{}", namespace.host_ip, namespace.free_port());
    let public_url = format!("https://{public}");
    let dir = state();
    let inbox = Served::start(
        dir.path(),
        &["--port", "0", "--behind-proxy", "--public-url", &public_url],
    );
    assert_eq!(inbox.url, public_url, "the page's URL is the public one");
    let local: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("inbox.json")).unwrap())
            .unwrap();
    let local = local["url"]
        .as_str()
        .unwrap()
        .strip_prefix("http://")
        .unwrap()
        .to_string();
    let mut caddy = harness::require(
        Caddy::start(&public, &local, &ca),
        "Caddy (run .ci/setup-deploy.sh)",
    );
    let mut probe = 0;
    until(Duration::from_secs(20), "Caddy to serve", || {
        probe += 1;
        let exited = exit_within(&mut caddy.child, Duration::ZERO, Duration::ZERO);
        assert!(exited.is_none(), "Caddy exited: {}", caddy.log());
        let probing = state();
        remote_verb(
            &namespace,
            probing.path(),
            &public_url,
            &inbox.token,
            Some(&ca.ca),
            &["inbox", "list"],
        )
        .0 == 0
    });
    ask_and_answer_from_the_namespace(&namespace, &public_url, &inbox.token, &ca.ca);
    // The inbox itself is not reachable from the namespace: it stays on loopback.
    let port: u16 = local.rsplit_once(':').unwrap().1.parse().unwrap();
    let direct = format!("http://{}:{port}", namespace.host_ip);
    let elsewhere = state();
    let (code, said) = remote_verb(
        &namespace,
        elsewhere.path(),
        &direct,
        &inbox.token,
        None,
        &["inbox", "list"],
    );
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("NO_INBOX"), "{said}");
}
