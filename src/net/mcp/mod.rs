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
use era::{Era, Negotiated, Protocol};

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

/// One message from the server: its exact text and its parsed value.
type Incoming = (String, Value);

/// What a transport hands back for one request.
struct Received {
    /// The response.
    response: Incoming,
    /// What came before it, in order: the server's notifications and requests, and
    /// mcpguard's answers to those requests.
    others: Vec<Incoming>,
}

/// A message to send, with what the transport needs to know of it.
struct Outgoing<'a> {
    /// The request id; `None` for a notification or an answer.
    id: Option<u64>,
    method: &'a str,
    /// `params.name` or `params.uri`: HTTP's Mcp-Name on 2026-07-28.
    name: Option<&'a str>,
    /// The protocol version the message is sent under (HTTP's MCP-Protocol-Version); `None`
    /// for `initialize`, which carries it in its body.
    version: Option<&'a str>,
    /// `Mcp-Param-*` headers of a 2026-07-28 tools/call over HTTP.
    param_headers: &'a [(String, String)],
    text: &'a str,
}

impl Outgoing<'_> {
    fn modern(&self) -> bool {
        self.version.is_some_and(era::is_modern)
    }
}

/// What one message did to a request waiting for its answer.
enum Offer {
    /// It was the answer: everything received.
    Answered(Received),
    /// It was a request from the server: send this answer now, then keep waiting.
    Reply(String),
    /// A notification or another id's answer, kept: keep waiting.
    Kept,
}

/// The messages that arrive while a request waits for its answer. Both transports hand
/// every message here; each is parsed once (a message that is not JSON ends the wait), the
/// answer ends the wait, a request from the server is answered at once, the rest are kept in
/// order.
struct Waiting<'a> {
    id: u64,
    method: &'a str,
    modern: bool,
    answers: bool,
    others: Vec<Incoming>,
}

impl<'a> Waiting<'a> {
    /// `answers`: whether the transport can answer the server's requests (Streamable HTTP on
    /// 2026-07-28 may not send responses at all: such a request is kept, unanswered).
    fn new(out: &Outgoing<'a>, answers: bool) -> Waiting<'a> {
        Waiting {
            id: out.id.unwrap_or(0),
            method: out.method,
            modern: out.modern(),
            answers,
            others: Vec::new(),
        }
    }

    fn offer(&mut self, text: String) -> Result<Offer, ClientError> {
        let value = parse(&text, self.method)?;
        let method = value.get("method").and_then(Value::as_str);
        if method.is_none() && value.get("id").and_then(Value::as_u64) == Some(self.id) {
            return Ok(Offer::Answered(Received {
                response: (text, value),
                others: std::mem::take(&mut self.others),
            }));
        }
        let answer = match (method, value.get("id")) {
            (Some(method), Some(id)) if self.answers => {
                Some(answer_to_server(id, method, self.modern))
            }
            _ => None,
        };
        self.others.push((text, value));
        Ok(match answer {
            Some(answer) => {
                let text = answer.to_string();
                self.others.push((text.clone(), answer));
                Offer::Reply(text)
            }
            None => Offer::Kept,
        })
    }
}

/// mcpguard's answer to a request from the server: a legacy ping is answered; anything else
/// (elicitation, sampling, roots, a modern ping) is refused, since mcpguard declares no client
/// capabilities and an audit never answers for a user.
fn answer_to_server(id: &Value, method: &str, modern: bool) -> Value {
    if method == "ping" && !modern {
        return json!({"jsonrpc": "2.0", "id": id, "result": {}});
    }
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!(
        "mcpguard does not provide {method}: it is an audit, declares no client capabilities and never answers for a user"
    )}})
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

    fn modern(&self) -> bool {
        self.server.era == Some(Era::Modern)
    }

    /// The `server/discover` probe (stdio and HTTP alike). A DiscoverResult (a result that
    /// lists supportedVersions) or a modern error means modern; an UnsupportedProtocolVersion
    /// refusal is answered by asking again in a listed version. Anything else (another
    /// result, such as the `{}` legacy servers give a method they do not know; another error;
    /// an HTTP error status without a modern error; no answer in time) means legacy, and
    /// `detection` says which it was.
    fn discover(&mut self) -> Result<(), ClientError> {
        const METHOD: &str = "server/discover";
        let auto = self.protocol == Protocol::Auto;
        let mut limits = self.limits;
        if auto {
            limits.request = limits.request.min(PROBE_WAIT);
        }
        let params = era::with_request_meta(json!({}));
        let mut reply = self.exchange(METHOD, params.clone(), Some(version::V2026_07_28), &limits);
        // Refused with UnsupportedProtocolVersion: ask once more in a version the server
        // lists, as a client must (basic/versioning), before deciding anything.
        if let Ok(refused) = &reply
            && refused.error().map(|(code, _)| code) == Some(era::UNSUPPORTED_PROTOCOL_VERSION)
        {
            let supported = refused.value.pointer("/error/data/supported");
            let listed = era::advertised_versions(supported).unwrap_or_default();
            if era::choose(&listed).map(|(era, _)| era) == Some(Era::Modern) {
                reply = self.exchange(METHOD, params, Some(version::V2026_07_28), &limits);
            }
        }
        let legacy_because = match reply {
            Ok(reply) => match (reply.value.get("result"), reply.error()) {
                (Some(result), _) => {
                    // Legacy servers answer a method they do not know with an empty (or any
                    // other) result: only a list of versions shows a modern server.
                    match era::advertised_versions(result.get("supportedVersions"))
                        .filter(|l| !l.is_empty())
                    {
                        Some(listed) => return self.adopt(result, listed, METHOD),
                        None => {
                            let why = format!(
                                "server/discover answered a result that is not a DiscoverResult (supportedVersions: {})",
                                preview(result.get("supportedVersions"))
                            );
                            // A result shaped like a modern one (not the `{}` of a method a
                            // legacy server does not know) is a modern server getting it wrong.
                            if looks_modern(result) {
                                self.notes.push(Note {
                                    message: format!("{why}, though it has the fields of one"),
                                    help: "a 2026-07-28 server's DiscoverResult lists the versions it speaks in supportedVersions (basic/versioning)",
                                });
                            }
                            why
                        }
                    }
                }
                (None, Some((code, _))) if code == era::UNSUPPORTED_PROTOCOL_VERSION => {
                    let supported = reply.value.pointer("/error/data/supported");
                    let listed = era::advertised_versions(supported).unwrap_or_default();
                    if era::choose(&listed).map(|(era, _)| era) == Some(Era::Modern) {
                        // Asked again in a version it lists, and refused again.
                        return Err(ClientError::Protocol {
                            method: METHOD.into(),
                            detail: format!(
                                "the server refused {V2026_07_28} twice with UnsupportedProtocolVersion while listing it as supported ({listed:?})"
                            ),
                        });
                    }
                    return self.adopt(&Value::Null, listed, METHOD);
                }
                (None, Some((code, message))) if era::MODERN_ERRORS.contains(&code) => {
                    return Err(ClientError::Rpc {
                        method: METHOD.into(),
                        code,
                        message: message.to_owned(),
                    });
                }
                (None, Some((code, message))) => {
                    format!("server/discover answered error {code} ({message})")
                }
                (None, None) => "server/discover answered neither a result nor an error".into(),
            },
            Err(ClientError::Timeout { secs, .. }) => {
                format!("server/discover had no answer within {secs:.1} s")
            }
            Err(ClientError::HttpStatus { status, .. }) if status >= 400 => {
                format!("server/discover got HTTP {status} without a 2026-07-28 error")
            }
            Err(e) => return Err(e),
        };
        if !auto {
            return Err(ClientError::Protocol {
                method: METHOD.into(),
                detail: format!(
                    "the server does not speak {V2026_07_28} ({legacy_because}); audit it with --protocol {} or auto",
                    version::V2025_11_25
                ),
            });
        }
        self.server.dual_era = Some(false);
        self.initialize(format!("initialize, since {legacy_because}"))
    }

    /// Takes the versions a modern server advertised: speaks 2026-07-28 when listed, opens a
    /// legacy session when only legacy versions are, and gives up when none is known.
    fn adopt(
        &mut self,
        result: &Value,
        listed: Vec<String>,
        method: &str,
    ) -> Result<(), ClientError> {
        match era::choose(&listed) {
            Some((Era::Modern, version)) => {
                self.server.era = Some(Era::Modern);
                self.server.version = Some(version.to_owned());
                self.server.capabilities =
                    result.get("capabilities").cloned().unwrap_or(Value::Null);
                self.server.server_info = result
                    .pointer("/_meta")
                    .and_then(|m| m.get(era::META_SERVER_INFO))
                    .cloned();
                self.server.detection = method.to_owned();
                self.server.supported = listed;
                Ok(())
            }
            Some((Era::Legacy, _)) if self.protocol == Protocol::Auto => {
                let why = format!("initialize, since server/discover lists only {listed:?}");
                self.initialize(why)?;
                self.server.supported = listed;
                Ok(())
            }
            _ => Err(ClientError::Protocol {
                method: method.into(),
                detail: format!(
                    "the server lists {listed:?}, and mcpguard speaks {V2026_07_28}{}",
                    if self.protocol == Protocol::Auto {
                        format!(" and {}", version::HANDSHAKE_VERSIONS.join(", "))
                    } else {
                        format!(" (--protocol {V2026_07_28})")
                    }
                ),
            }),
        }
    }

    /// The legacy handshake: initialize with 2025-11-25, then notifications/initialized.
    fn initialize(&mut self, detection: String) -> Result<(), ClientError> {
        let params = json!({
            "protocolVersion": version::V2025_11_25,
            "capabilities": {},
            "clientInfo": {"name": "mcpguard", "version": env!("CARGO_PKG_VERSION")},
        });
        let limits = self.limits;
        let init = self.exchange("initialize", params, None, &limits)?;
        if let Some((code, message)) = init.error() {
            return Err(ClientError::Rpc {
                method: "initialize".into(),
                code,
                message: message.to_owned(),
            });
        }
        let result = init.value.get("result").cloned().unwrap_or(Value::Null);
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or(version::V2025_11_25)
            .to_owned();
        self.server.era = Some(Era::Legacy);
        self.server.supported = vec![version.clone()];
        self.server.version = Some(version);
        self.server.capabilities = result.get("capabilities").cloned().unwrap_or(Value::Null);
        self.server.server_info = result.get("serverInfo").cloned();
        self.server.detection = detection;
        self.notify("notifications/initialized")
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

    /// A server that advertised 2026-07-28 and then answers a list request as a legacy server
    /// does before `initialize` ("Server not initialized", "before initialization"): an
    /// error naming both, since its advertisement is wrong and every later request would fail
    /// the same way. Only lists are judged: a tool's own error may well say "not initialized"
    /// about something else.
    fn check_still_modern(&self, method: &str, reply: &Reply) -> Result<(), ClientError> {
        let Some((code, message)) = reply.error() else {
            return Ok(());
        };
        if !method.ends_with("/list")
            || era::MODERN_ERRORS.contains(&code)
            || !message.to_ascii_lowercase().contains("initializ")
        {
            return Ok(());
        }
        Err(ClientError::Protocol {
            method: method.to_owned(),
            detail: format!(
                "the server advertised {V2026_07_28} ({}), then answered error {code} ({message}) as a server waiting for initialize would; have it serve requests that carry their own _meta without a session (or audit it with --protocol {})",
                self.server.detection,
                version::V2025_11_25
            ),
        })
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

    /// What a 2026-07-28 server may not send before its answer: requests (it asks through an
    /// input_required result), change notifications (they belong on a subscriptions/listen
    /// stream, and mcpguard opened none), and log messages nobody asked for (no logLevel).
    fn review_modern_stream(&mut self, method: &str, id: u64, message: &Value) {
        let Some(sent) = message.get("method").and_then(Value::as_str) else {
            return;
        };
        let what = if message.get("id").is_some() {
            format!(
                "sent the request {sent} on the response stream of {method} (id {id}); a {V2026_07_28} server asks through an input_required result; mcpguard refused it"
            )
        } else if sent == "notifications/message" {
            format!(
                "sent notifications/message during {method} (id {id}), which set no {}; a {V2026_07_28} server logs only when a request asks",
                era::META_LOG_LEVEL
            )
        } else if !era::REQUEST_SCOPED_NOTIFICATIONS.contains(&sent) {
            format!(
                "sent {sent} on the response stream of {method} (id {id}), a stream nobody subscribed to; {V2026_07_28} delivers change notifications only on a subscriptions/listen stream"
            )
        } else {
            return;
        };
        self.notes.push(Note {
            message: what,
            help: "2026-07-28 response streams carry the answer and the request's own progress and logs, nothing else (basic/transports)",
        });
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

/// Whether a `server/discover` result carries a field only a DiscoverResult or another
/// 2026-07-28 result has (`supportedVersions`, `resultType`, `capabilities`): then its missing
/// or broken version list is a modern server's mistake, not a legacy server's generic answer.
fn looks_modern(result: &Value) -> bool {
    ["supportedVersions", "resultType", "capabilities"]
        .iter()
        .any(|key| result.get(key).is_some())
}

/// Request params without the 2026-07-28 `_meta` keys, for a request re-sent in a legacy
/// session.
fn without_request_meta(mut params: Value) -> Value {
    if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
        meta.remove(era::META_PROTOCOL_VERSION);
        meta.remove(era::META_CLIENT_INFO);
        meta.remove(era::META_CLIENT_CAPABILITIES);
        if meta.is_empty() {
            params.as_object_mut().map(|p| p.remove("_meta"));
        }
    }
    params
}

/// What the fuzz targets `jsonrpc_reader` and `sse_parser` run: `data` as a server's output,
/// read the way a transport reads it (stdio lines, or SSE events when `sse`), each message
/// offered to a request waiting for its answer, with mcpguard's answers to the server's own
/// requests built as they would be sent. Returns how many messages were taken.
#[doc(hidden)]
pub fn replay_for_fuzzing(data: &[u8], sse: bool, modern: bool) -> usize {
    let out = Outgoing {
        id: Some(1),
        method: "tools/call",
        name: Some("fuzz"),
        version: Some(if modern {
            version::V2026_07_28
        } else {
            version::V2025_11_25
        }),
        param_headers: &[],
        text: "{}",
    };
    let mut waiting = Waiting::new(&out, true);
    let mut events = framing::Sse::new(1 << 16);
    let mut reader = data;
    let mut taken = 0;
    loop {
        let line = match framing::read_line(&mut reader, 1 << 16) {
            Ok(framing::Line::Text(line)) => line,
            Ok(framing::Line::End | framing::Line::TooLong) | Err(_) => return taken,
        };
        let message = if sse {
            match events.line(&line) {
                Ok(Some(data)) => data,
                Ok(None) => continue,
                Err(framing::TooLarge) => return taken,
            }
        } else if line.trim().is_empty() {
            continue;
        } else {
            line
        };
        taken += 1;
        match waiting.offer(message) {
            Ok(Offer::Answered(_)) | Err(_) => return taken,
            Ok(Offer::Reply(answer)) => {
                assert!(
                    serde_json::from_str::<Value>(&answer).is_ok(),
                    "an answer is JSON"
                );
            }
            Ok(Offer::Kept) => {}
        }
    }
}

/// A short rendering of a value for an error message.
fn preview(value: Option<&Value>) -> String {
    match value {
        None => "nothing".into(),
        Some(v) => v.to_string().chars().take(80).collect(),
    }
}
