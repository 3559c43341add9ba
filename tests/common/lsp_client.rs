//! A minimal LSP client for `lemplint server` (tests/lsp.rs, benches/lsp.rs): framed
//! JSON-RPC over the child's stdio, messages read on a thread.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

pub struct Client {
    pub child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Messages read while waiting for something else.
    seen: Vec<Value>,
}

impl Client {
    pub fn start(exe: &Path, dir: &Path) -> Client {
        let mut child = Command::new(exe)
            .arg("server")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, incoming) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse().unwrap();
                    }
                }
                let mut body = vec![0; len];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        Client {
            child,
            stdin,
            incoming,
            next_id: 1,
            seen: Vec::new(),
        }
    }

    pub fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let reply = self.wait(|m| m["id"] == json!(id), &format!("a reply to {method}"));
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    /// The first message (already seen or arriving within 20 s) that `want` accepts.
    pub fn wait(&mut self, want: impl Fn(&Value) -> bool, what: &str) -> Value {
        if let Some(i) = self.seen.iter().position(&want) {
            return self.seen.remove(i);
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(m) if want(&m) => return m,
                Ok(m) => self.seen.push(m),
                Err(_) => panic!("timed out waiting for {what}; saw {:#?}", self.seen),
            }
        }
    }

    /// Messages received and not yet taken by [`Client::wait`].
    pub fn seen(&self) -> &[Value] {
        &self.seen
    }

    /// The first diagnostics published for `uri` that `want` accepts (every change is
    /// linted after a pause, so an earlier publication may still show the old state).
    pub fn diagnostics_until(&mut self, uri: &str, want: impl Fn(&[String]) -> bool) -> Vec<Value> {
        let m = self.wait(
            |m| {
                is_diagnostics_for(m, uri)
                    && want(&codes(m["params"]["diagnostics"].as_array().unwrap()))
            },
            &format!("the expected diagnostics for {uri}"),
        );
        m["params"]["diagnostics"].as_array().unwrap().clone()
    }
}

pub fn is_diagnostics_for(m: &Value, uri: &str) -> bool {
    m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
}

pub fn codes(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

pub fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}
