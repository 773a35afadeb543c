//! The stdio bridge (`mcpguard proxy --url REMOTE`, no `--listen`): what a stdio-only client
//! (Claude Desktop, an IDE) starts to reach a remote Streamable HTTP server. It is the server
//! end of the stdio proxy ([`ServerEnd`]): each line the proxy writes for the server becomes a
//! POST, and every message that comes back (a JSON body, or the events of an SSE stream)
//! becomes a line the proxy reads; the policy (shrink, `mcpguard_more`, artifacts) is the stdio
//! proxy's, unchanged.
//!
//! Either era, message by message, as the client chose it. A 2026-07-28 request carries
//! `MCP-Protocol-Version` from its `_meta`, `Mcp-Method`, `Mcp-Name` and the `x-mcp-header`
//! parameters of the tools learned from tools/list; as the HTTP client, the bridge drops from
//! tools/list a tool whose `x-mcp-header` annotations are invalid (the spec's rule for a
//! client) and refuses to call it. A 2025-11-25 message (no modern `_meta`) carries the version
//! its initialize negotiated (initialize itself none) and the `mcp-session-id` it was given;
//! the session opens the GET stream for the server's own messages once initialized, follows a
//! broken response stream with `Last-Event-ID`, and ends with DELETE.
//!
//! A 401 is answered by the OAuth client (a login another process kept, a refresh, else a
//! login in the browser) and the request is sent once more; a 403 `insufficient_scope` steps
//! up. A request that cannot be sent gets a JSON-RPC error naming why (and, when a login is
//! needed, the command that does it). Requests run on threads of their own, so a slow tool call
//! holds back nothing else. HTTP is [`crate::net::http`]'s, as for the live audit.

use std::collections::HashMap;
use std::io::{BufReader, Read, Write};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::stdio::{Pipe, ServerEnd, lock};
use crate::net::http;
use crate::net::mcp::era;
use crate::net::mcp::framing::{self, Line, MAX_RESUMES, Sse};
use crate::net::oauth::session::{MAX_STEP_UPS, OAuth};
use crate::util::lines::{self, Capped};

/// How long the client's next message waits for the server to answer the legacy GET stream.
const GET_STREAM_WAIT: Duration = Duration::from_secs(2);

/// How to reach the remote server.
pub struct Options {
    pub url: String,
    /// The user's own headers (`--header`), sent on every request.
    pub headers: Vec<(String, String)>,
    /// How long one request may take, its stream included.
    pub timeout: Duration,
    pub max_message_bytes: usize,
    /// Signs in when the server asks; `None`: a 401 is the client's error.
    pub oauth: Option<OAuth>,
}

/// The JSON-RPC error code of an answer the bridge makes for a request it could not carry.
pub const BRIDGE_ERROR: i64 = -32603;

struct Relay {
    url: String,
    headers: Vec<(String, String)>,
    timeout: Duration,
    cap: usize,
    agent: http::Client,
    /// The legacy session, once initialize assigned one.
    session: Mutex<Option<String>>,
    /// The version initialize negotiated (2025-11-25 and before).
    legacy_version: Mutex<Option<String>>,
    /// The last version a modern request declared, for the notifications that follow it.
    modern_version: Mutex<Option<String>>,
    authorization: Mutex<Option<String>>,
    oauth: Mutex<Option<OAuth>>,
    /// Input schemas by tool name, for the `x-mcp-header` parameters of modern tools/call.
    tools: Mutex<HashMap<String, Value>>,
    /// Tools left out of a modern tools/list for invalid `x-mcp-header` annotations, and why.
    rejected: Mutex<HashMap<String, String>>,
    /// To the proxy: `None` once the relay has ended.
    out: Mutex<Option<std::io::PipeWriter>>,
    get_stream_opened: std::sync::atomic::AtomicBool,
}

/// Starts the relay: the server end the stdio proxy serves.
pub fn start(mut opts: Options) -> std::io::Result<ServerEnd<Pipe>> {
    let (from_server, relay_out) = std::io::pipe()?;
    let (relay_in, to_server) = std::io::pipe()?;
    let agent = http::Client::new(opts.timeout);
    // A login kept from before goes on the first request.
    let authorization = opts
        .oauth
        .as_mut()
        .and_then(|o| o.stored(&opts.url).ok().flatten());
    let relay = Arc::new(Relay {
        url: opts.url,
        headers: opts.headers,
        timeout: opts.timeout,
        cap: opts.max_message_bytes,
        agent,
        session: Mutex::new(None),
        legacy_version: Mutex::new(None),
        modern_version: Mutex::new(None),
        authorization: Mutex::new(authorization),
        oauth: Mutex::new(opts.oauth),
        tools: Mutex::new(HashMap::new()),
        rejected: Mutex::new(HashMap::new()),
        out: Mutex::new(Some(relay_out)),
        get_stream_opened: Default::default(),
    });
    let (done, finished) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        relay.run(relay_in);
        drop(done);
    });
    Ok(ServerEnd {
        input: Box::new(to_server),
        output: Box::new(from_server),
        ended: Box::new(move |grace| match finished.recv_timeout(grace) {
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            _ => Some(Some(0)),
        }),
    })
}

/// What the server's answer to one POST was.
enum Answer {
    /// Nothing more to do.
    Done,
    /// Signed in again (after a 401) or stepped up (after a 403): send it once more.
    Retry(u16),
}

impl Relay {
    /// Reads the proxy's lines for the server until it closes them, then ends the session.
    fn run(self: &Arc<Self>, input: std::io::PipeReader) {
        let mut reader = BufReader::with_capacity(1 << 16, input);
        let mut buf = Vec::new();
        loop {
            match lines::read_capped(&mut reader, &mut buf, self.cap) {
                Ok(Capped::Line) if buf.iter().all(u8::is_ascii_whitespace) => {}
                Ok(Capped::Line) => self.send(std::mem::take(&mut buf)),
                // The proxy caps what the client sends before it reaches this side.
                Ok(Capped::TooLong) => {
                    if lines::skip_line(&mut reader).is_err() {
                        break;
                    }
                }
                Ok(Capped::End) | Err(_) => break,
            }
        }
        let session = lock(&self.session).take();
        if let Some(session) = session {
            let mut request = self
                .agent
                .delete(&self.url)
                .header("mcp-session-id", &session);
            if let Some(v) = lock(&self.legacy_version).clone() {
                request = request.header("MCP-Protocol-Version", v);
            }
            let _ = self.with_auth(request).call();
        }
        lock(&self.out).take();
    }

    /// One message for the server: a request on a thread of its own, anything else in turn.
    fn send(self: &Arc<Self>, body: Vec<u8>) {
        let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let is_request = message.get("method").is_some() && message.get("id").is_some();
        if let Some(version) = era::declared_version(&message).filter(|v| era::is_modern(v)) {
            *lock(&self.modern_version) = Some(version.to_owned());
        }
        if is_request {
            let relay = self.clone();
            std::thread::spawn(move || relay.exchange(&body, &message));
        } else {
            self.exchange(&body, &message);
            if message.get("method").and_then(Value::as_str) == Some("notifications/initialized") {
                self.open_get_stream();
            }
        }
    }

    /// POSTs one message, signing in and sending it again when the server asks.
    fn exchange(self: &Arc<Self>, body: &[u8], message: &Value) {
        // One new login or refresh after a 401; a step-up per 403, as many as OAuth allows.
        let (mut unauthorized, mut forbidden) = (0, 0);
        loop {
            let may_sign_in = |status| match status {
                401 => unauthorized < 1,
                _ => forbidden < MAX_STEP_UPS,
            };
            match self.post_once(body, message, may_sign_in) {
                Ok(Answer::Done) => return,
                Ok(Answer::Retry(401)) => unauthorized += 1,
                Ok(Answer::Retry(_)) => forbidden += 1,
                Err(why) => {
                    self.fail(message, &why);
                    return;
                }
            }
        }
    }

    /// One POST of `body` with its era's headers: what came back forwarded to the proxy (a
    /// JSON body, or a stream's events up to the answer), a retry asked for after a sign-in,
    /// or why it could not be carried.
    fn post_once(
        self: &Arc<Self>,
        body: &[u8],
        message: &Value,
        may_sign_in: impl Fn(u16) -> bool,
    ) -> Result<Answer, String> {
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|_| method.is_some());
        // The message's own era: a modern request declares its version; anything else is of
        // the legacy session (initialize has no version yet), or follows a modern request.
        let version = match era::declared_version(message) {
            Some(v) => Some(v.to_owned()),
            None if method == Some("initialize") => None,
            None => lock(&self.legacy_version)
                .clone()
                .or_else(|| lock(&self.modern_version).clone()),
        };
        let modern = version.as_deref().is_some_and(era::is_modern);
        if modern
            && method == Some("tools/call")
            && let Some(name) = message.pointer("/params/name").and_then(Value::as_str)
            && let Some(why) = lock(&self.rejected).get(name)
        {
            return Err(format!(
                "the tool {name} was left out of tools/list: {why}; the server must fix its x-mcp-header annotations"
            ));
        }
        let mut request = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        if let Some(v) = &version {
            request = request.header("MCP-Protocol-Version", v);
        }
        if modern && let (Some(method), Some(_)) = (method, id) {
            request = request.header("Mcp-Method", method);
            let params = message.get("params").unwrap_or(&Value::Null);
            if let Some(name) = era::request_name(method, params) {
                request = request.header("Mcp-Name", era::header_value(name));
            }
            if method == "tools/call" {
                let schema = params
                    .get("name")
                    .and_then(Value::as_str)
                    .and_then(|n| lock(&self.tools).get(n).cloned());
                if let Some(schema) = schema {
                    let arguments = params.get("arguments").unwrap_or(&Value::Null);
                    for (header, value) in era::param_headers(&schema, arguments) {
                        request = request.header(header, value);
                    }
                }
            }
        }
        if !modern && let Some(s) = lock(&self.session).clone() {
            request = request.header("mcp-session-id", s);
        }
        let sent_auth = lock(&self.authorization).clone();
        let request = self.with_auth(request);
        let mut response = request
            .send(body)
            .map_err(|e| format!("{} could not be reached: {e}", self.url))?;
        let status = response.status().as_u16();
        if matches!(status, 401 | 403) && may_sign_in(status) {
            let challenge = response
                .headers()
                .get("www-authenticate")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            if self.sign_in(status, challenge.as_deref(), sent_auth.as_deref())? {
                return Ok(Answer::Retry(status));
            }
        }
        if !(200..300).contains(&status) {
            let text = read_text(response.body_mut(), self.cap as u64);
            // The server's own JSON-RPC error for this request (an unsupported version's
            // -32022 with the versions it speaks, an unknown tool): the client's to read as is.
            if let Some(id) = id
                && let Ok(answer) = serde_json::from_str::<Value>(text.trim())
                && answer.get("id") == Some(id)
                && answer.get("error").is_some()
            {
                self.forward(&answer.to_string(), None);
                return Ok(Answer::Done);
            }
            let text: String = text.chars().take(2048).collect();
            let session_gone = status == 404 && lock(&self.session).is_some();
            return Err(if session_gone {
                "the server ended the session (HTTP 404); restart the client to start a new one"
                    .to_owned()
            } else {
                format!("the server answered HTTP {status}: {}", text.trim())
            });
        }
        if method == Some("initialize")
            && let Some(s) = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
        {
            *lock(&self.session) = Some(s.to_owned());
        }
        let Some(id) = id else {
            // A notification or an answer: 202 and nothing else.
            return Ok(Answer::Done);
        };
        let is_stream = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.to_ascii_lowercase().starts_with("text/event-stream"));
        if is_stream {
            self.follow_stream(response.body_mut(), id, method.unwrap_or(""), modern)
        } else {
            let text = read_limited(response.body_mut(), self.cap)?;
            self.forward(text.trim(), Some((id, method.unwrap_or(""))));
            Ok(Answer::Done)
        }
    }

    /// The events of a response stream up to the answer to `id`, through reconnections with
    /// `Last-Event-ID` on a legacy server.
    fn follow_stream(
        &self,
        body: &mut http::Body,
        id: &Value,
        method: &str,
        modern: bool,
    ) -> Result<Answer, String> {
        let until = Instant::now() + self.timeout;
        let mut sse = Sse::new(self.cap);
        if self.read_events(body, &mut sse, Some((id, method))) {
            return Ok(Answer::Done);
        }
        for _ in 0..MAX_RESUMES {
            let Some(last) = sse.last_event_id.clone().filter(|_| !modern) else {
                break;
            };
            let pause = sse.reconnect_after();
            if until.saturating_duration_since(Instant::now()) <= pause {
                break;
            }
            std::thread::sleep(pause);
            let mut request = self
                .agent
                .get(&self.url)
                .header("Accept", "text/event-stream")
                .header("Last-Event-ID", &last);
            if let Some(s) = lock(&self.session).clone() {
                request = request.header("mcp-session-id", s);
            }
            if let Some(v) = lock(&self.legacy_version).clone() {
                request = request.header("MCP-Protocol-Version", v);
            }
            let mut response = self
                .with_auth(request)
                .call()
                .map_err(|e| format!("resuming the stream: {e}"))?;
            if !response.status().is_success() {
                break;
            }
            if self.read_events(response.body_mut(), &mut sse, Some((id, method))) {
                return Ok(Answer::Done);
            }
        }
        Err("the server's stream ended before its answer".to_owned())
    }

    /// Forwards a stream's events; true once the answer to `waiting` came.
    fn read_events(
        &self,
        body: &mut http::Body,
        sse: &mut Sse,
        waiting: Option<(&Value, &str)>,
    ) -> bool {
        let mut lines = BufReader::new(body);
        loop {
            let line = match framing::read_line(&mut lines, self.cap) {
                Ok(Line::Text(line)) => line,
                Ok(Line::TooLong) | Ok(Line::End) | Err(_) => return false,
            };
            let Ok(Some(data)) = sse.line(&line) else {
                continue;
            };
            if self.forward(&data, waiting) {
                return true;
            }
        }
    }

    /// Writes one message to the proxy as a line; true when it is the answer to `waiting`
    /// (whose tools are learned when it answers tools/list).
    fn forward(&self, text: &str, waiting: Option<(&Value, &str)>) -> bool {
        if text.is_empty() {
            return false;
        }
        let mut answered = false;
        let mut rewritten = None;
        if let Some((id, method)) = waiting {
            let mut message: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            let is_answer = message.get("method").is_none()
                && message.get("id") == Some(id)
                && (message.get("result").is_some() || message.get("error").is_some());
            if is_answer {
                answered = true;
                if self.learn(method, &mut message) {
                    rewritten = Some(message.to_string());
                }
            }
        }
        // SSE data may span lines; raw newlines are whitespace between JSON tokens.
        let line = rewritten.unwrap_or_else(|| text.replace(['\n', '\r'], " "));
        if let Some(out) = lock(&self.out).as_mut() {
            let _ = out.write_all(line.as_bytes());
            let _ = out.write_all(b"\n");
        }
        answered
    }

    /// What the bridge keeps from an answer: the negotiated version and the tools' schemas.
    /// A modern tools/list loses the tools whose `x-mcp-header` annotations are invalid: true
    /// when `answer` was changed so.
    fn learn(&self, method: &str, answer: &mut Value) -> bool {
        match method {
            "initialize" => {
                if let Some(v) = answer
                    .pointer("/result/protocolVersion")
                    .and_then(Value::as_str)
                {
                    *lock(&self.legacy_version) = Some(v.to_owned());
                }
                false
            }
            "tools/list" => {
                let modern = lock(&self.legacy_version).is_none();
                let Some(tools) = answer
                    .pointer_mut("/result/tools")
                    .and_then(Value::as_array_mut)
                else {
                    return false;
                };
                let before = tools.len();
                let mut known = lock(&self.tools);
                let mut rejected = lock(&self.rejected);
                tools.retain(|tool| {
                    let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
                    let schema = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
                    let problems = era::header_annotation_problems(&schema);
                    if modern && let Some((pointer, why)) = problems.first() {
                        rejected.insert(name.to_owned(), format!("{why} (inputSchema{pointer})"));
                        return false;
                    }
                    known.insert(name.to_owned(), schema);
                    true
                });
                tools.len() != before
            }
            _ => false,
        }
    }

    /// The legacy GET stream, for the server's own requests and notifications; once. The
    /// client's next message waits until the server has answered the GET (at most
    /// [`GET_STREAM_WAIT`]), so the stream is open before any request it could carry the answer
    /// of: a server may answer a request on the GET stream while it is open.
    fn open_get_stream(self: &Arc<Self>) {
        let legacy = lock(&self.session).is_some();
        if !legacy
            || self
                .get_stream_opened
                .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        let relay = self.clone();
        let (answered, opened) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            let mut request = relay
                .agent
                .get(&relay.url)
                .header("Accept", "text/event-stream");
            if let Some(s) = lock(&relay.session).clone() {
                request = request.header("mcp-session-id", s);
            }
            if let Some(v) = lock(&relay.legacy_version).clone() {
                request = request.header("MCP-Protocol-Version", v);
            }
            // No overall timeout: the stream lives as long as the session.
            let request = relay.with_auth(request).without_timeout();
            let response = request.call();
            drop(answered);
            if let Ok(mut response) = response
                && response.status().is_success()
            {
                let mut sse = Sse::new(relay.cap);
                relay.read_events(response.body_mut(), &mut sse, None);
            }
        });
        let _ = opened.recv_timeout(GET_STREAM_WAIT);
    }

    /// The user's headers, then the login's `Authorization`, which replaces theirs: a server
    /// gets one credential, never two.
    fn with_auth(&self, mut request: http::Request) -> http::Request {
        let login = lock(&self.authorization).clone();
        for (name, value) in &self.headers {
            if login.is_none() || !name.eq_ignore_ascii_case("authorization") {
                request = request.header(name, value);
            }
        }
        if let Some(value) = login {
            request = request.header("Authorization", value);
        }
        request
    }

    /// A 401 or 403: the OAuth client's answer. `Ok(true)`: send the request again.
    fn sign_in(
        &self,
        status: u16,
        challenge: Option<&str>,
        failed: Option<&str>,
    ) -> Result<bool, String> {
        let mut oauth = lock(&self.oauth);
        let Some(oauth) = oauth.as_mut() else {
            return Ok(false);
        };
        // Another request may have signed in while this one waited for the lock.
        let current = lock(&self.authorization).clone();
        if status == 401 && current.is_some() && current.as_deref() != failed {
            return Ok(true);
        }
        let value = oauth
            .answer(&self.url, status, challenge, failed)
            .map_err(|e| format!("signing in to {}: {e}", self.url))?;
        *lock(&self.authorization) = Some(value);
        Ok(true)
    }

    /// The client's answer to a request that could not be carried; nothing for the rest.
    fn fail(&self, message: &Value, why: &str) {
        let Some(id) = message
            .get("id")
            .filter(|_| message.get("method").is_some())
        else {
            return;
        };
        let answer = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": BRIDGE_ERROR, "message": format!("mcpguard: {why}")},
        });
        self.forward(&answer.to_string(), None);
    }
}

/// At most `cap` bytes of a body, as text (for an error).
fn read_text(body: &mut http::Body, cap: u64) -> String {
    let mut bytes = Vec::new();
    let _ = body.take(cap).read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A JSON body of at most `cap` bytes.
fn read_limited(body: &mut http::Body, cap: usize) -> Result<String, String> {
    let mut bytes = Vec::new();
    body.take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("reading the server's answer: {e}"))?;
    if bytes.len() > cap {
        return Err(format!(
            "the server's answer is larger than --max-message-bytes ({cap})"
        ));
    }
    String::from_utf8(bytes).map_err(|_| "the server's answer is not UTF-8".to_owned())
}
