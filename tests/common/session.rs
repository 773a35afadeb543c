//! A client session for the stdio tests: a process on pipes, JSON-RPC lines both ways, as
//! Claude Code writes them; the proxy's and the gateway's tests drive it.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::live::fixture;

pub const WAIT: Duration = Duration::from_secs(30);

/// A client session: a process on pipes, JSON-RPC lines both ways.
pub struct Session {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub lines: Receiver<String>,
    pub stderr: Arc<Mutex<String>>,
    pub next_id: u64,
    /// Messages that came while waiting for an answer (notifications, the server's requests).
    pub between: Vec<Value>,
}

impl Session {
    /// `mcpguard proxy ARGS -- fixture_server FIXTURE_ARGS`, run in `dir`.
    pub fn proxy(dir: &Path, args: &[&str], fixture_args: &[&str]) -> Session {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpguard"));
        cmd.arg("proxy")
            .args(args)
            .arg("--")
            .arg(fixture())
            .args(fixture_args);
        Session::spawn(cmd, dir)
    }

    /// The fixture alone: the conversation the proxy must not change.
    pub fn direct(dir: &Path) -> Session {
        Session::spawn(Command::new(fixture()), dir)
    }

    pub fn spawn(mut cmd: Command, dir: &Path) -> Session {
        for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("MCPGUARD_")) {
            cmd.env_remove(key);
        }
        let mut child = cmd
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
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
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines() {
                let Ok(line) = line else { break };
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        Session {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            next_id: 0,
            between: Vec::new(),
        }
    }

    pub fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line from the process.
    pub fn line(&mut self) -> String {
        self.lines
            .recv_timeout(WAIT)
            .unwrap_or_else(|_| panic!("no answer in {WAIT:?}; stderr:\n{}", self.stderr()))
    }

    /// Sends a request; returns its answer's exact line (messages in between are skipped).
    pub fn request_raw(&mut self, method: &str, params: Value) -> String {
        self.next_id += 1;
        let id = self.next_id;
        self.send_raw(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        loop {
            let line = self.line();
            let v: Value = serde_json::from_str(&line).expect("the proxy writes JSON");
            if v["id"] == json!(id) && v.get("method").is_none() {
                return line;
            }
            self.between.push(v);
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        serde_json::from_str(&self.request_raw(method, params)).unwrap()
    }

    pub fn initialize(&mut self) -> String {
        let line = self.request_raw(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "cli-proxy-test", "version": "1"}}),
        );
        self.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        line
    }

    /// Every page of tools/list, as the exact lines received.
    pub fn tools_pages(&mut self) -> Vec<String> {
        let mut pages = Vec::new();
        let mut params = json!({});
        loop {
            let line = self.request_raw("tools/list", params);
            let v: Value = serde_json::from_str(&line).unwrap();
            let next = v["result"]["nextCursor"].clone();
            pages.push(line);
            if next.is_null() {
                return pages;
            }
            params = json!({ "cursor": next });
        }
    }

    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let v = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        v.get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{tool}: not a result: {v}"))
    }

    pub fn more(&mut self, arguments: Value) -> Value {
        self.call("mcpguard_more", arguments)
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits until stderr holds `text`.
    pub fn wait_stderr(&self, text: &str) {
        let until = Instant::now() + WAIT;
        while !self.stderr().contains(text) {
            assert!(
                Instant::now() < until,
                "never logged {text:?}:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Closes stdin and waits for the exit code.
    pub fn finish(mut self) -> (Option<i32>, String) {
        drop(self.stdin.take());
        let until = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(50));
                return (status.code(), self.stderr());
            }
            assert!(Instant::now() < until, "the proxy did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
