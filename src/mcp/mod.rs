//! A raw JSON-RPC client for MCP servers that keeps the exact bytes of every message.
//!
//! A linter must judge what the server sent, not what a typed SDK made of it (rmcp drops
//! unknown fields: DESIGN.md section 2), so messages are built and read as JSON text, and every
//! one that crosses the wire is kept, in order, as a JSONL transcript that `mcpguard audit`
//! reads like any other.
//!
//! Two transports: a child process speaking newline-delimited JSON-RPC on stdio
//! ([`stdio`]), and Streamable HTTP ([`http`]: POST with both reply kinds, plain JSON and SSE,
//! the session and protocol-version headers, DELETE at the end). Every wait has a deadline
//! (per request and in total) and every message a size cap, so a server that hangs, dies,
//! writes garbage or floods ends the session with an error that says which, never a hang.

pub mod config;
mod http;
pub mod live;
mod stdio;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The protocol version mcpguard asks for; the server's answer is accepted as it is.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// How to reach a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A command to spawn: program and arguments, with extra environment.
    Stdio {
        command: Vec<String>,
        env: BTreeMap<String, String>,
    },
    /// A Streamable HTTP endpoint and the headers to send (values may be secrets).
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
}

impl Target {
    /// How reports name the transport: `stdio` or `http`.
    pub fn transport(&self) -> &'static str {
        match self {
            Target::Stdio { .. } => "stdio",
            Target::Http { .. } => "http",
        }
    }

    /// The command or URL, never a header value or an environment value.
    pub fn describe(&self) -> String {
        match self {
            Target::Stdio { command, .. } => shlex::try_join(command.iter().map(String::as_str))
                .unwrap_or_else(|_| command.join(" ")),
            Target::Http { url, .. } => url.clone(),
        }
    }
}

/// Deadlines and caps for one session.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// How long one request may take.
    pub request: Duration,
    /// When the whole session must be over.
    pub deadline: Instant,
    /// The largest message accepted, in bytes.
    pub max_message_bytes: usize,
}

impl Limits {
    /// The time left for a request that starts now.
    fn wait(&self) -> Duration {
        self.request
            .min(self.deadline.saturating_duration_since(Instant::now()))
    }
}

/// Why a session ended early. Every message names what happened and what to check.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot start `{command}`: {cause}{hint}")]
    Spawn {
        command: String,
        cause: std::io::Error,
        hint: &'static str,
    },
    #[error(
        "the server exited ({status}) while mcpguard waited for the answer to {method}{stderr}"
    )]
    Exited {
        method: String,
        status: String,
        stderr: String,
    },
    #[error(
        "no answer to {method} within {secs:.1} s (--timeout); the server hangs or is too slow"
    )]
    Timeout { method: String, secs: f64 },
    #[error(
        "the server wrote a line that is not JSON while mcpguard waited for {method}: {preview:?}; on stdio, logs belong on stderr"
    )]
    NotJson { method: String, preview: String },
    #[error(
        "a message of more than {cap} bytes from the server (--max-message-bytes); the session was ended"
    )]
    TooLarge { cap: usize },
    #[error("{url}: HTTP {status} for {method}: {body}")]
    HttpStatus {
        url: String,
        status: u16,
        method: String,
        body: String,
    },
    #[error("{url}: {cause}")]
    Http { url: String, cause: String },
    #[error("{method}: the server answered with error {code}: {message}")]
    Rpc {
        method: String,
        code: i64,
        message: String,
    },
    #[error("cannot write to the server: {0}")]
    Write(std::io::Error),
}

/// An answer to a request: its exact text and its parsed value.
#[derive(Clone, Debug)]
pub struct Reply {
    pub text: String,
    pub value: Value,
}

/// One message from the server: its exact text and its parsed value.
type Incoming = (String, Value);

/// What a transport hands back for one request.
struct Received {
    /// The response.
    response: Incoming,
    /// Notifications and server requests that came before it, in order.
    others: Vec<Incoming>,
}

/// The messages that arrive while a request waits for its answer. Both transports hand
/// every message here; each is parsed once (a message that is not JSON ends the wait), the
/// answer ends the wait, the rest are kept in order.
struct Waiting<'a> {
    id: u64,
    method: &'a str,
    others: Vec<Incoming>,
}

impl<'a> Waiting<'a> {
    fn new(id: u64, method: &'a str) -> Waiting<'a> {
        Waiting {
            id,
            method,
            others: Vec::new(),
        }
    }

    /// Takes one message; returns everything received once it is the answer.
    fn offer(&mut self, text: String) -> Result<Option<Received>, ClientError> {
        let value = parse(&text, self.method)?;
        let answers = value.get("method").is_none()
            && value.get("id").and_then(Value::as_u64) == Some(self.id);
        if !answers {
            self.others.push((text, value));
            return Ok(None);
        }
        Ok(Some(Received {
            response: (text, value),
            others: std::mem::take(&mut self.others),
        }))
    }
}

/// A message from the server as JSON, or the error that names what was being waited for.
fn parse(text: &str, method: &str) -> Result<Value, ClientError> {
    serde_json::from_str(text).map_err(|_| ClientError::NotJson {
        method: method.to_owned(),
        preview: text.chars().take(120).collect(),
    })
}

/// A transport moves JSON texts; the client decides what they mean.
trait Transport {
    /// Sends a request and waits for the response with this id.
    fn request(
        &mut self,
        id: u64,
        method: &str,
        text: &str,
        limits: &Limits,
    ) -> Result<Received, ClientError>;
    /// Sends a notification or an answer to a server request.
    fn send(&mut self, text: &str, limits: &Limits) -> Result<(), ClientError>;
    /// Takes note of what initialize settled (HTTP needs the session and version headers).
    fn initialized(&mut self, _protocol_version: &str) {}
    /// Ends the session: closes stdin and waits for the process (killing it if it lingers),
    /// or sends DELETE.
    fn close(&mut self);
    /// What the server wrote to stderr (stdio), for the log.
    fn stderr(&self) -> String {
        String::new()
    }
}

/// A session with one server.
pub struct Client {
    transport: Box<dyn Transport>,
    next_id: u64,
    limits: Limits,
    /// Every message's exact text, in order: the transcript.
    pub messages: Vec<String>,
    /// Latency of each answered request, by id.
    pub latencies: BTreeMap<u64, f64>,
    /// The initialize result.
    pub server: Option<Value>,
}

impl Client {
    /// Starts the server (or reaches it) and performs the handshake: initialize with
    /// [`PROTOCOL_VERSION`], then notifications/initialized.
    pub fn connect(target: &Target, limits: Limits) -> Result<Client, ClientError> {
        let transport: Box<dyn Transport> = match target {
            Target::Stdio { command, env } => {
                Box::new(stdio::Stdio::spawn(command, env, limits.max_message_bytes)?)
            }
            Target::Http { url, headers } => Box::new(http::Http::new(url, headers, &limits)),
        };
        let mut client = Client {
            transport,
            next_id: 0,
            limits,
            messages: Vec::new(),
            latencies: BTreeMap::new(),
            server: None,
        };
        let init = client.request(
            "initialize",
            json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "mcpguard", "version": env!("CARGO_PKG_VERSION")},
            }),
        )?;
        if let Some(error) = init.value.get("error") {
            return Err(ClientError::Rpc {
                method: "initialize".into(),
                code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            });
        }
        let result = init.value.get("result").cloned().unwrap_or(Value::Null);
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or(PROTOCOL_VERSION)
            .to_owned();
        client.transport.initialized(&version);
        client.server = Some(result);
        client.notify("notifications/initialized", None)?;
        Ok(client)
    }

    /// Sends a request and returns the answer (a result or a JSON-RPC error, both kept).
    pub fn request(&mut self, method: &str, params: Value) -> Result<Reply, ClientError> {
        self.next_id += 1;
        let id = self.next_id;
        let text =
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        self.messages.push(text.clone());
        let started = Instant::now();
        let received = self.transport.request(id, method, &text, &self.limits)?;
        self.latencies
            .insert(id, started.elapsed().as_secs_f64() * 1000.0);
        for (text, value) in received.others {
            self.messages.push(text);
            self.answer_server_request(&value)?;
        }
        let (text, value) = received.response;
        self.messages.push(text.clone());
        Ok(Reply { text, value })
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            message["params"] = p;
        }
        self.send(message)
    }

    /// A server's request in the middle of ours (ping, roots/list, sampling...): ping is
    /// answered, anything else refused as not offered (mcpguard declares no capabilities).
    /// Notifications need no answer.
    fn answer_server_request(&mut self, message: &Value) -> Result<(), ClientError> {
        let (Some(id), Some(method)) = (
            message.get("id"),
            message.get("method").and_then(Value::as_str),
        ) else {
            return Ok(());
        };
        let answer = if method == "ping" {
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("mcpguard does not offer {method}")}})
        };
        self.send(answer)
    }

    /// Sends a message that expects no answer, keeping it in the transcript.
    fn send(&mut self, message: Value) -> Result<(), ClientError> {
        self.messages.push(message.to_string());
        let text = self.messages.last().expect("just pushed");
        self.transport.send(text, &self.limits)
    }

    /// Everything exchanged, one JSON text per line.
    pub fn transcript(&self) -> String {
        let mut out = String::new();
        for m in &self.messages {
            out.push_str(m);
            out.push('\n');
        }
        out
    }

    pub fn stderr(&self) -> String {
        self.transport.stderr()
    }

    /// Ends the session cleanly.
    pub fn close(&mut self) {
        self.transport.close();
    }
}
