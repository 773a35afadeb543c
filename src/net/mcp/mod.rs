//! A raw JSON-RPC client for MCP servers that keeps the exact bytes of every message.
//!
//! A linter must judge what the server sent, not what a typed SDK made of it (rmcp drops
//! unknown fields: DESIGN.md section 2), so messages are built and read as JSON text, and every
//! one that crosses the wire is kept, in order, as a JSONL transcript that `mcpguard audit`
//! reads like any other.
//!
//! Both eras of the protocol ([`era`]): a 2026-07-28 server is spoken to statelessly, every
//! request carrying its `_meta`; a 2025-11-25 server through the `initialize` handshake. Under
//! `--protocol auto` a `server/discover` probe decides, once per server.
//!
//! Two transports: a child process speaking newline-delimited JSON-RPC on stdio
//! ([`stdio`]), and Streamable HTTP ([`http`]: POST with both reply kinds, plain JSON and SSE,
//! the era's headers, a legacy stream resumed with `Last-Event-ID`, DELETE at the end). Every
//! wait has a deadline (per request and in total) and every message a size cap, so a server
//! that hangs, dies, writes garbage or floods ends the session with an error that says which,
//! never a hang. A request the server sends mid-call (elicitation, sampling, roots) is refused
//! at once, so a server never waits on mcpguard.

pub mod config;
pub mod era;
pub mod framing;
mod http;
mod stdio;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::net::version::{self, V2026_07_28};

use era::{Negotiated, Protocol};

mod negotiate;
mod wire;

use era::without_request_meta;
pub use wire::replay_for_fuzzing;
use wire::{Outgoing, Received};

/// How long a `server/discover` probe waits under auto before taking the server for legacy
/// (stdio: "does not respond within a reasonable timeout"), and the dual-era check waits for
/// `initialize`. Never longer than --timeout.
pub const PROBE_WAIT: Duration = Duration::from_secs(10);

/// How to reach a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A command to spawn: program and arguments, with extra environment.
    Stdio {
        command: Vec<String>,
        env: BTreeMap<String, String>,
        /// The command as written, `${VAR}`s unexpanded, when expansion changed it: reports
        /// show this, never a value that came from the environment.
        shown: Option<String>,
    },
    /// A Streamable HTTP endpoint and the headers to send (values may be secrets).
    Http {
        url: String,
        headers: Vec<(String, String)>,
        /// The URL as written, `${VAR}`s unexpanded, when expansion changed it.
        shown: Option<String>,
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

    /// The command or URL as written: never a header value, an environment value, or what a
    /// `${VAR}` expanded to. Cut at [`DESCRIBE_MAX`] characters.
    pub fn describe(&self) -> String {
        let text = match self {
            Target::Stdio { shown: Some(s), .. } | Target::Http { shown: Some(s), .. } => s.clone(),
            Target::Stdio { command, .. } => shlex::try_join(command.iter().map(String::as_str))
                .unwrap_or_else(|_| command.join(" ")),
            Target::Http { url, .. } => url.clone(),
        };
        match text.char_indices().nth(DESCRIBE_MAX) {
            Some((cut, _)) => format!("{}...", &text[..cut]),
            None => text,
        }
    }
}

/// The longest a server's command or URL is shown in a report.
pub const DESCRIBE_MAX: usize = 200;

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
    #[error("{url}: the response stream of {method} ended before its answer: {cause}")]
    StreamCut {
        url: String,
        method: String,
        cause: String,
    },
    #[error("{method}: {detail}")]
    Protocol { method: String, detail: String },
}

/// An answer to a request: its exact text and its parsed value.
#[derive(Clone, Debug)]
pub struct Reply {
    pub text: String,
    pub value: Value,
}

impl Reply {
    /// The JSON-RPC error's code and message, if the answer is an error.
    pub fn error(&self) -> Option<(i64, &str)> {
        let e = self.value.get("error")?;
        Some((
            e.get("code").and_then(Value::as_i64).unwrap_or(0),
            e.get("message").and_then(Value::as_str).unwrap_or(""),
        ))
    }
}

/// A transport moves JSON texts; the client decides what they mean.
trait Transport {
    /// Sends a request and waits for the response with its id, answering the server's own
    /// requests in the meantime.
    fn request(&mut self, out: &Outgoing<'_>, limits: &Limits) -> Result<Received, ClientError>;
    /// Sends a notification.
    fn send(&mut self, out: &Outgoing<'_>, limits: &Limits) -> Result<(), ClientError>;
    /// Ends the conversation: closes stdin and waits for the process (killing it if it
    /// lingers), or ends a legacy HTTP session with DELETE.
    fn close(&mut self);
    /// What the server wrote to stderr (stdio), for the log.
    fn stderr(&self) -> String {
        String::new()
    }
}

/// Something the server did that its era forbids, noticed while talking to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    pub message: String,
    /// What the server should do instead.
    pub help: &'static str,
}

/// A conversation with one server, in one era.
pub struct Client {
    transport: Box<dyn Transport>,
    next_id: u64,
    limits: Limits,
    protocol: Protocol,
    /// Every message's exact text, in order: the transcript.
    pub messages: Vec<String>,
    /// Latency of each answered request, by id.
    pub latencies: BTreeMap<u64, f64>,
    /// The era, versions and identity the server was found to have.
    pub server: Negotiated,
    /// What the server did that its era forbids, in order.
    pub notes: Vec<Note>,
    /// Each listed tool's inputSchema, for the `Mcp-Param-*` headers of its calls.
    input_schemas: BTreeMap<String, Value>,
    /// Tools a 2026-07-28 client over Streamable HTTP must drop (an invalid `x-mcp-header`),
    /// with why: never called.
    rejected_tools: BTreeMap<String, String>,
    /// Whether the server is reached over Streamable HTTP.
    http: bool,
}

impl Client {
    /// Starts the server (or reaches it) and settles the era: `--protocol 2025-11-25` opens
    /// with `initialize`; auto and 2026-07-28 probe with `server/discover` first, and auto
    /// falls back to `initialize` on any answer that is not a modern one.
    pub fn connect(
        target: &Target,
        limits: Limits,
        protocol: Protocol,
        oauth: Option<crate::net::oauth::session::OAuth>,
    ) -> Result<Client, ClientError> {
        let transport: Box<dyn Transport> = match target {
            Target::Stdio { command, env, .. } => Box::new(
                stdio::Stdio::spawn(command, env, limits.max_message_bytes).map_err(
                    |e| match e {
                        // Named as written: what a ${VAR} expanded to is never shown.
                        ClientError::Spawn { cause, hint, .. } => ClientError::Spawn {
                            command: target.describe(),
                            cause,
                            hint,
                        },
                        other => other,
                    },
                )?,
            ),
            Target::Http { url, headers, .. } => {
                Box::new(http::Http::new(url, headers, &limits, oauth))
            }
        };
        let mut client = Client {
            transport,
            next_id: 0,
            limits,
            protocol,
            messages: Vec::new(),
            latencies: BTreeMap::new(),
            server: Negotiated::default(),
            notes: Vec::new(),
            input_schemas: BTreeMap::new(),
            rejected_tools: BTreeMap::new(),
            http: matches!(target, Target::Http { .. }),
        };
        match protocol {
            Protocol::Legacy => {
                client.initialize(format!("--protocol {}", version::V2025_11_25))?
            }
            Protocol::Auto | Protocol::Modern => client.discover()?,
        }
        Ok(client)
    }

    /// Takes note of the tools a server listed: a 2026-07-28 call over HTTP mirrors the
    /// arguments its inputSchema marks with `x-mcp-header` into headers, and a tool whose
    /// annotations break the constraints is dropped, as such a client must drop it (stdio
    /// clients may ignore the annotations, and legacy ones know nothing of them).
    pub fn learn_tools(&mut self, tools: &[Value]) {
        for tool in tools {
            let (Some(name), Some(schema)) = (
                tool.get("name").and_then(Value::as_str),
                tool.get("inputSchema"),
            ) else {
                continue;
            };
            let problems = era::header_annotation_problems(schema);
            if self.http && self.modern() && !problems.is_empty() {
                let why = problems.into_iter().map(|(_, p)| p).collect::<Vec<_>>();
                self.rejected_tools.insert(name.to_owned(), why.join("; "));
            } else {
                self.input_schemas.insert(name.to_owned(), schema.clone());
            }
        }
    }

    /// Why a listed tool was dropped and must not be called, if it was.
    pub fn rejected_tool(&self, name: &str) -> Option<&str> {
        self.rejected_tools.get(name).map(String::as_str)
    }

    /// Sends a request in the server's era and returns the answer (a result or a JSON-RPC
    /// error, both kept). On 2026-07-28 a response stream that breaks before its answer is
    /// re-issued once with a new id, as the transport requires.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Reply, ClientError> {
        let limits = self.limits;
        if !self.modern() {
            let version = self.server.version.clone();
            return self.exchange(method, params, version.as_deref(), &limits);
        }
        let params = era::with_request_meta(params);
        let reply = match self.exchange(method, params.clone(), Some(version::V2026_07_28), &limits)
        {
            Err(ClientError::StreamCut { cause, .. }) => {
                self.notes.push(Note {
                    message: format!(
                        "the response stream of {method} broke before its answer ({cause}); mcpguard re-issued it once with a new id"
                    ),
                    help: "end every response stream with the answer; a client must re-issue a request whose stream breaks (2026-07-28 changelog)",
                });
                match self.exchange(method, params.clone(), Some(version::V2026_07_28), &limits) {
                    Err(ClientError::StreamCut { url, method, cause }) => {
                        return Err(ClientError::StreamCut {
                            url,
                            method,
                            cause: format!(
                                "{cause}, and again when re-issued with a new id; the server drops this request's stream"
                            ),
                        });
                    }
                    other => other?,
                }
            }
            other => other?,
        };
        match self.check_still_modern(method, &reply) {
            Ok(()) => Ok(reply),
            // Under auto the era is re-learned once, as the versioning page allows: the
            // finding stays, the audit goes on in the era the server really speaks.
            Err(ClientError::Protocol { detail, .. }) if self.protocol == Protocol::Auto => {
                self.notes.push(Note {
                    message: format!("{method}: {detail}"),
                    help: "a server that lists 2026-07-28 in server/discover must serve requests that carry their own _meta, with no initialize (basic/versioning)",
                });
                self.initialize(format!(
                    "initialize, since the server demanded it after advertising {V2026_07_28}"
                ))?;
                let version = self.server.version.clone();
                let params = without_request_meta(params);
                self.exchange(method, params, version.as_deref(), &limits)
            }
            Err(e) => Err(e),
        }
    }

    /// One request on the wire: its id, its transcript lines, its latency.
    fn exchange(
        &mut self,
        method: &str,
        params: Value,
        version: Option<&str>,
        limits: &Limits,
    ) -> Result<Reply, ClientError> {
        self.next_id += 1;
        let id = self.next_id;
        let name = era::request_name(method, &params).map(str::to_owned);
        let param_headers = match (&name, version.is_some_and(era::is_modern)) {
            (Some(tool), true) if method == "tools/call" => self
                .input_schemas
                .get(tool)
                .map(|schema| {
                    era::param_headers(schema, params.get("arguments").unwrap_or(&Value::Null))
                })
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let text =
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        self.messages.push(text.clone());
        let out = Outgoing {
            id: Some(id),
            method,
            name: name.as_deref(),
            version,
            param_headers: &param_headers,
            text: &text,
        };
        let started = Instant::now();
        let received = self.transport.request(&out, limits)?;
        self.latencies
            .insert(id, started.elapsed().as_secs_f64() * 1000.0);
        let modern = out.modern();
        for (text, value) in received.others {
            if modern {
                self.review_modern_stream(method, id, &value);
            }
            self.messages.push(text);
        }
        let (text, value) = received.response;
        self.messages.push(text.clone());
        Ok(Reply { text, value })
    }

    /// Sends a notification (legacy only: 2026-07-28 defines none from the client but
    /// cancellation).
    fn notify(&mut self, method: &str) -> Result<(), ClientError> {
        let text = json!({"jsonrpc": "2.0", "method": method}).to_string();
        self.messages.push(text.clone());
        let version = self.server.version.clone();
        let out = Outgoing {
            id: None,
            method,
            name: None,
            version: version.as_deref(),
            param_headers: &[],
            text: &text,
        };
        self.transport.send(&out, &self.limits)
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

    /// Ends the conversation cleanly.
    pub fn close(&mut self) {
        self.transport.close();
    }
}
