//! `ask_user mcp` driven by raw JSON-RPC lines over its stdio, no SDK: for
//! what no SDK will send and for the paths a test must reach even where the
//! SDKs are not installed.

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use super::bin;
use super::process::{ChildGuard, spawn_piped};

/// The server as a child process, read line by line on a thread.
pub struct Raw {
    pub child: ChildGuard,
    /// `None` once closed.
    pub stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Raw {
    pub fn start(args: &[&str]) -> Raw {
        Raw::start_with(args, &[])
    }

    pub fn start_with(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Raw {
        let mut command = Command::new(bin());
        command.args(args).envs(env.iter().copied());
        Raw::spawn(command)
    }

    /// Starts `command` (the binary with its arguments) with piped stdio.
    pub fn spawn(mut command: Command) -> Raw {
        let mut child = spawn_piped(&mut command, Stdio::null());
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Raw {
            child,
            stdin: Some(stdin),
            lines,
        }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next message; every stdout line must be one JSON-RPC message.
    pub fn next(&self) -> Value {
        self.next_within(Duration::from_secs(10))
    }

    /// The next message, which must come within `limit`.
    pub fn next_within(&self, limit: Duration) -> Value {
        let line = self
            .lines
            .recv_timeout(limit)
            .unwrap_or_else(|_| panic!("the server answers within {limit:?}"));
        let value: Value = serde_json::from_str(&line).expect("stdout carries JSON only");
        assert_eq!(value["jsonrpc"], "2.0", "{line}");
        value
    }

    /// Initializes the session; returns the initialize response.
    pub fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": capabilities,
                "clientInfo": {"name": "raw", "version": "0"}}})
            .to_string(),
        );
        let reply = self.next();
        assert_eq!(reply["id"], 0);
        assert_eq!(reply["result"]["protocolVersion"], version);
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        reply
    }

    /// Sends `tools/call` for ask_user with these arguments (and `_meta`, if any).
    pub fn call(&mut self, id: u64, arguments: &Value, meta: Option<Value>) {
        let mut params = json!({"name": "ask_user", "arguments": arguments});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
                .to_string(),
        );
    }

    /// Sends `tools/call` with `params`, plus `extra`'s keys (a retry's
    /// `requestState`, `inputResponses`), and returns the next message.
    pub fn call_with(&mut self, id: u64, params: &Value, extra: &Value) -> Value {
        let mut params = params.clone();
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
                .to_string(),
        );
        self.next()
    }

    pub fn ping(&mut self, id: u64) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string());
        assert_eq!(
            self.next(),
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        );
    }
}
