//! The inbox's store over TLS (issue #40): a real PostgreSQL that takes
//! only TLS connections on TCP (`hostssl`, `hostnossl … reject`), with a
//! certificate from a test CA (openssl), reached through `sslmode` and
//! `sslrootcert` in the store URL. `inbox token add|list` is the client: it
//! opens the store as the inbox does.

mod common;
#[path = "common/netns.rs"]
mod netns;

use std::path::Path;
use std::process::Stdio;

use serde_json::Value;

use common::harness;
use common::inbox::{command, state};
use common::postgres::{self, Server};
use netns::TestCa;

/// A server on 127.0.0.1:PORT that refuses connections without TLS, with
/// a certificate for 127.0.0.1 signed by `ca` (made in `dir`).
fn tls_server(dir: &Path) -> (Server, TestCa, u16) {
    let ca = TestCa::make(&dir.join("ca"), "127.0.0.1").expect("openssl makes a test CA");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (cert, key) = (ca.cert.clone(), ca.key.clone());
    let settings = [
        "listen_addresses=127.0.0.1".to_string(),
        format!("port={port}"),
        "ssl=on".to_string(),
        "ssl_cert_file=server.pem".to_string(),
        "ssl_key_file=server.key".to_string(),
    ];
    let server = harness::require(
        Server::start_with(&settings, move |folder| {
            let data = folder.join("data");
            std::fs::copy(&cert, data.join("server.pem")).unwrap();
            std::fs::copy(&key, data.join("server.key")).unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt as _;
                let mode = std::fs::Permissions::from_mode(0o600);
                std::fs::set_permissions(data.join("server.key"), mode).unwrap();
            }
            std::fs::write(
                data.join("pg_hba.conf"),
                "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n",
            )
            .unwrap();
        }),
        postgres::MISSING,
    );
    (server, ca, port)
}

/// `inbox token ARGS --store URL`: (code, stdout).
fn token(url: &str, args: &[&str]) -> (i32, String) {
    let dir = state();
    let mut all = vec!["inbox", "token"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--store", url]);
    let out = command(dir.path(), &all)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn store_error(ran: (i32, String), says: &str) {
    let (code, stdout) = ran;
    assert_eq!(code, 1, "{stdout}");
    let document: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(document["error"]["code"], "STORE_ERROR", "{document}");
    let message = document["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("the inbox cannot open its store postgres://"),
        "{message}"
    );
    assert!(message.contains(says), "{message}");
}

fn verify_full_with_the_test_ca_connects_and_a_wrong_ca_or_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (server, ca, port) = tls_server(dir.path());
    server.psql("postgres", "CREATE DATABASE inbox").unwrap();
    let base = format!("postgres://ask_user@127.0.0.1:{port}/inbox?connect_timeout=5");
    let root = ca.ca.display().to_string();
    // The server refuses a connection without TLS: whatever connects below
    // went over TLS.
    store_error(
        token(&format!("{base}&sslmode=disable"), &["list"]),
        "no encryption",
    );
    let full = format!("{base}&sslmode=verify-full&sslrootcert={root}");
    let (code, out) = token(&full, &["add", "person", "Ada"]);
    assert_eq!(code, 0, "{out}");
    let (code, out) = token(&full, &["list"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("\"Ada\""), "{out}");
    // require: encrypted, the certificate not checked (libpq's meaning).
    let (code, out) = token(&format!("{base}&sslmode=require"), &["list"]);
    assert_eq!(code, 0, "{out}");
    // Another CA (of the same name): refused, and the message says the
    // certificate is not trusted.
    let other = TestCa::make(&dir.path().join("other"), "127.0.0.1").unwrap();
    let wrong = format!(
        "{base}&sslmode=verify-full&sslrootcert={}",
        other.ca.display()
    );
    store_error(token(&wrong, &["list"]), "invalid peer certificate");
    // The system's roots do not hold the test CA either.
    store_error(
        token(&format!("{base}&sslmode=verify-full"), &["list"]),
        "certificate",
    );
    // A name the certificate does not carry (it names 127.0.0.1 only):
    // refused under verify-full, taken under verify-ca.
    let by_name = format!(
        "postgres://ask_user@localhost:{port}/inbox?connect_timeout=5&hostaddr=127.0.0.1&sslrootcert={root}"
    );
    store_error(
        token(&format!("{by_name}&sslmode=verify-full"), &["list"]),
        "certificate not valid for name \"localhost\"",
    );
    let (code, out) = token(&format!("{by_name}&sslmode=verify-ca"), &["list"]);
    assert_eq!(code, 0, "{out}");
    // A mode that does not exist is named with the ones that do.
    store_error(
        token(&format!("{base}&sslmode=verify"), &["list"]),
        "sslmode=verify is not one of disable, prefer, require, verify-ca, verify-full",
    );
}

/// A server that speaks no TLS at all (`ssl=off`, on TCP): `require` and
/// the verifying modes are refused with a store error that says why, never
/// sent on in clear; `prefer` (the default) and `disable` go on in clear.
fn require_against_a_server_without_tls_is_refused_and_prefer_goes_on_in_clear() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let settings = [
        "listen_addresses=127.0.0.1".to_string(),
        format!("port={port}"),
        "ssl=off".to_string(),
    ];
    let server = harness::require(Server::start_with(&settings, |_| {}), postgres::MISSING);
    server.psql("postgres", "CREATE DATABASE inbox").unwrap();
    let base = format!("postgres://ask_user@127.0.0.1:{port}/inbox?connect_timeout=5");
    for mode in ["require", "verify-ca", "verify-full"] {
        store_error(
            token(&format!("{base}&sslmode={mode}"), &["list"]),
            "server does not support TLS",
        );
    }
    for mode in ["prefer", "disable"] {
        let (code, out) = token(&format!("{base}&sslmode={mode}"), &["add", "person", mode]);
        assert_eq!(code, 0, "{mode}: {out}");
    }
    let (code, out) = token(&base, &["list"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("\"prefer\"") && out.contains("\"disable\""),
        "{out}"
    );
}

common::harness::main!(
    verify_full_with_the_test_ca_connects_and_a_wrong_ca_or_name_is_refused,
    require_against_a_server_without_tls_is_refused_and_prefer_goes_on_in_clear,
);
