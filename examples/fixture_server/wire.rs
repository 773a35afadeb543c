//! The fixture's wire layer: what rmcp would never do on its own, done to the JSON between it
//! and the client. Inbound, a message can be answered here instead of by rmcp (a legacy
//! server's unknown server/discover, a broken discover answer, a server that demands
//! initialize after advertising 2026-07-28); outbound, a response can be altered (caching
//! hints or resultType taken off, -32602 turned back into -32002). Over HTTP it also cuts
//! response streams and makes legacy streams that must be resumed with Last-Event-ID.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::{Era, Fault};

/// What the layer does with a message from the client.
pub enum Inbound {
    /// Answer it here with this JSON.
    Answer(Value),
    /// Answer it here with these bytes (not JSON).
    Raw(String),
    /// Let rmcp answer it.
    Forward,
}

#[derive(Default)]
struct Seen {
    /// Request id -> (method, whether the request declared 2026-07-28).
    requests: HashMap<String, (String, bool)>,
    initialized: bool,
    cuts: usize,
    /// Whether `refuse-version-once` has refused its one request.
    refused: bool,
    /// Legacy SSE answers held back until the client resumes, by event id.
    held: HashMap<u64, String>,
    next_event: u64,
    /// GET streams asked for and not yet answered (slow-get).
    gets_waiting: usize,
}

pub struct Layer {
    era: Era,
    fault: Fault,
    seen: Mutex<Seen>,
}

/// The answer of the unlisted tool `unreadable`: a 300 KB result that serde_json refuses, as real
/// servers send them. `surrogate`: server-everything's echo of 60,000 words cut mid-pair by a
/// JavaScript string slice (a lone `\ud83d`); `bignum`: a number beyond f64 in `_meta`; `deep`:
/// `_meta` nested 200 deep. rmcp would never write these, so the layer writes them.
fn unreadable(id: &Value, kind: &str) -> String {
    let words = "word ".repeat(60_000);
    let (tail, meta) = match kind {
        "bignum" => ("", r#","_meta":{"n":1e999}"#.to_owned()),
        "deep" => (
            "",
            format!(r#","_meta":{{"d":{}{}}}"#, "[".repeat(200), "]".repeat(200)),
        ),
        _ => ("\\ud83d", String::new()),
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{words}{tail}"}}]{meta}}}}}"#
    )
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

impl Layer {
    pub fn new(era: Era, fault: Fault) -> Layer {
        Layer {
            era,
            fault,
            seen: Mutex::new(Seen::default()),
        }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn inbound(&self, message: &Value) -> Inbound {
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return Inbound::Forward;
        };
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let modern = message
            .pointer("/params/_meta")
            .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
            .and_then(Value::as_str)
            .is_some_and(|v| v >= "2026-07-28");
        {
            let mut seen = self.seen();
            if !id.is_null() {
                seen.requests
                    .insert(id.to_string(), (method.to_owned(), modern));
            }
            if method == "initialize" {
                seen.initialized = true;
            }
        }
        if method == "server/discover" {
            if self.era == Era::Legacy {
                return Inbound::Answer(error(&id, -32601, "Method not found"));
            }
            let answer = match self.fault {
                Fault::RefuseVersionOnce if !std::mem::replace(&mut self.seen().refused, true) => {
                    let mut refusal = error(&id, -32022, "Unsupported protocol version");
                    refusal["error"]["data"] =
                        json!({"supported": ["2026-07-28"], "requested": "2026-07-28"});
                    return Inbound::Answer(refusal);
                }
                Fault::DiscoverEmpty => json!({}),
                Fault::DiscoverGarbage => {
                    return Inbound::Raw("<html><body>upstream timeout</body></html>".into());
                }
                Fault::DiscoverNoVersions => json!({"resultType": "complete",
                    "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "public"}),
                Fault::DiscoverUnknownVersions => json!({"resultType": "complete",
                    "supportedVersions": ["2099-01-01"], "capabilities": {"tools": {}},
                    "ttlMs": 0, "cacheScope": "public"}),
                _ => return Inbound::Forward,
            };
            return Inbound::Answer(json!({"jsonrpc": "2.0", "id": id, "result": answer}));
        }
        if method == "tools/call"
            && message.pointer("/params/name").and_then(Value::as_str) == Some("unreadable")
        {
            let kind = message
                .pointer("/params/arguments/kind")
                .and_then(Value::as_str)
                .unwrap_or("surrogate");
            return Inbound::Raw(unreadable(&id, kind));
        }
        if self.fault == Fault::SlowGet && method == "tools/list" && self.seen().gets_waiting > 0 {
            return Inbound::Answer(error(
                &id,
                -32600,
                "tools/list came while the session's GET stream was still being answered",
            ));
        }
        if self.fault == Fault::ClaimsModern
            && method != "initialize"
            && !id.is_null()
            && !self.seen().initialized
        {
            return Inbound::Answer(error(
                &id,
                -32600,
                "Server not initialized: send initialize first",
            ));
        }
        Inbound::Forward
    }

    /// Alters a message from rmcp on its way out, by the request it answers.
    pub fn outbound(&self, message: &mut Value) {
        let Some(id) = message
            .get("id")
            .filter(|_| message.get("method").is_none())
        else {
            return;
        };
        let Some((method, modern)) = self.seen().requests.remove(&id.to_string()) else {
            return;
        };
        if let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) {
            if !modern {
                // A legacy peer never sees the 2026-07-28 fields.
                result.remove("resultType");
            }
            if modern && self.fault == Fault::NoCacheHints {
                result.remove("ttlMs");
                result.remove("cacheScope");
            }
            if modern && self.fault == Fault::NoResultType {
                result.remove("resultType");
            }
        }
        if modern
            && self.fault == Fault::OldNotFound
            && method == "resources/read"
            && message.pointer("/error/code") == Some(&json!(-32602))
        {
            message["error"]["code"] = json!(-32002);
        }
    }

    /// stdio: stdin through `inbound` to rmcp's end of the pipe, rmcp's output through
    /// `outbound` to stdout. Returns when stdin closes.
    pub async fn pump_stdio(
        self,
        mut to_rmcp: tokio::io::DuplexStream,
        from_rmcp: tokio::io::DuplexStream,
    ) {
        let layer = Arc::new(self);
        let stdout = Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));
        let out = Arc::clone(&stdout);
        let outbound = Arc::clone(&layer);
        let replies = tokio::spawn(async move {
            let mut lines = BufReader::new(from_rmcp).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let text = match serde_json::from_str::<Value>(&line) {
                    Ok(mut v) => {
                        outbound.outbound(&mut v);
                        v.to_string()
                    }
                    Err(_) => line,
                };
                write_line(&out, &text).await;
            }
        });
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let inbound = serde_json::from_str::<Value>(&line)
                .map(|v| layer.inbound(&v))
                .unwrap_or(Inbound::Forward);
            match inbound {
                Inbound::Answer(v) => write_line(&stdout, &v.to_string()).await,
                Inbound::Raw(text) => write_line(&stdout, &text).await,
                Inbound::Forward => {
                    let sent = to_rmcp.write_all(line.as_bytes()).await;
                    if sent.is_err() || to_rmcp.write_all(b"\n").await.is_err() {
                        break;
                    }
                }
            }
        }
        drop(to_rmcp);
        let _ = replies.await;
    }
}

async fn write_line(out: &tokio::sync::Mutex<tokio::io::Stdout>, text: &str) {
    let mut out = out.lock().await;
    let _ = out.write_all(text.as_bytes()).await;
    let _ = out.write_all(b"\n").await;
    let _ = out.flush().await;
}

fn sse(body: impl Into<Body>) -> Response {
    ([(header::CONTENT_TYPE, "text/event-stream")], body.into()).into_response()
}

/// A body that sends `first` and then never ends (a stream that stays open and silent).
fn open_forever(first: String) -> Body {
    let head = futures_util::stream::once(async move { Ok::<Bytes, Infallible>(first.into()) });
    Body::from_stream(futures_util::StreamExt::chain(
        head,
        futures_util::stream::pending(),
    ))
}

/// The HTTP side of the layer, around rmcp's Streamable HTTP service.
pub async fn http_layer(State(layer): State<Arc<Layer>>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    if parts.method == axum::http::Method::GET {
        if let Some(last) = parts
            .headers
            .get("last-event-id")
            .and_then(|v| v.to_str().ok())
            && matches!(layer.fault, Fault::SsePoll | Fault::SseNever)
        {
            return layer.resume(last);
        }
        if layer.fault != Fault::SlowGet {
            return next.run(Request::from_parts(parts, body)).await;
        }
        layer.seen().gets_waiting += 1;
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let response = next.run(Request::from_parts(parts, body)).await;
        layer.seen().gets_waiting -= 1;
        return response;
    }
    let Ok(bytes) = axum::body::to_bytes(body, 16 << 20).await else {
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    };
    let message: Option<Value> = serde_json::from_slice(&bytes).ok();
    let method = message
        .as_ref()
        .and_then(|m| m.get("method"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    if layer.era == Era::Legacy && method.as_deref() == Some("server/discover") {
        // A legacy HTTP server that knows nothing of 2026-07-28: a bare 400.
        return StatusCode::BAD_REQUEST.into_response();
    }
    if let Some(m) = &message {
        match layer.inbound(m) {
            Inbound::Answer(v) => {
                // A modern error travels with a 4xx status (streamable-http, "Error Handling").
                let status = match v.pointer("/error/code").and_then(Value::as_i64) {
                    Some(-32022..=-32020) => StatusCode::BAD_REQUEST,
                    _ => StatusCode::OK,
                };
                return (
                    status,
                    [(header::CONTENT_TYPE, "application/json")],
                    v.to_string(),
                )
                    .into_response();
            }
            Inbound::Raw(text) => {
                return ([(header::CONTENT_TYPE, "application/json")], text).into_response();
            }
            Inbound::Forward => {}
        }
    }
    let id = message.as_ref().and_then(|m| m.get("id")).cloned();
    if let Some(m) = &message
        && let Some(mismatch) = param_header_mismatch(m, &parts.headers)
    {
        let body = error(id.as_ref().unwrap_or(&Value::Null), -32020, &mismatch);
        return (
            StatusCode::BAD_REQUEST,
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response();
    }
    if method.as_deref() == Some("tools/call") && layer.cut_now() {
        // The stream opens, half an answer arrives, and the connection ends.
        let partial = format!(
            "data: {{\"jsonrpc\":\"2.0\",\"id\":{},\"res",
            id.unwrap_or(Value::Null)
        );
        return sse(partial);
    }
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    if !layer.rewrites() {
        // Streamed through as rmcp sends it: a request rmcp sends mid-call must reach the
        // client before the stream ends.
        return response;
    }
    let (parts, body) = response.into_parts();
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let is_json = content_type.starts_with("application/json");
    let is_sse = content_type.starts_with("text/event-stream");
    if !(is_json || is_sse) || id.is_none() {
        return Response::from_parts(parts, body);
    }
    let Ok(bytes) = axum::body::to_bytes(body, 64 << 20).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let text = String::from_utf8_lossy(&bytes);
    if is_json {
        let rewritten = match serde_json::from_str::<Value>(&text) {
            Ok(mut v) => {
                layer.outbound(&mut v);
                v.to_string()
            }
            Err(_) => text.into_owned(),
        };
        return Response::from_parts(parts, Body::from(rewritten));
    }
    let mut out = String::new();
    let mut answer = None;
    for line in text.lines() {
        match line
            .strip_prefix("data: ")
            .or_else(|| line.strip_prefix("data:"))
        {
            Some(data) if !data.is_empty() => {
                let data = match serde_json::from_str::<Value>(data) {
                    Ok(mut v) => {
                        layer.outbound(&mut v);
                        if v.get("id").is_some() && v.get("method").is_none() {
                            answer = Some(v.to_string());
                        }
                        v.to_string()
                    }
                    Err(_) => data.to_owned(),
                };
                out.push_str("data: ");
                out.push_str(&data);
                out.push('\n');
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    let held = match layer.fault {
        Fault::SsePoll => true,
        Fault::SseNever => method.as_deref() == Some("tools/call"),
        _ => false,
    };
    if let (Some(answer), true) = (answer, held) {
        // Hold the answer back: a priming event with an id and a retry, then the stream ends;
        // the client must come back with GET and Last-Event-ID.
        let event = layer.hold(answer);
        return Response::from_parts(
            parts,
            Body::from(format!("id: {event}\nretry: 50\ndata: \n\n")),
        );
    }
    Response::from_parts(parts, Body::from(out))
}

impl Layer {
    /// Whether responses are rewritten (and so read whole before they are passed on).
    fn rewrites(&self) -> bool {
        matches!(
            self.fault,
            Fault::NoCacheHints
                | Fault::NoResultType
                | Fault::OldNotFound
                | Fault::SsePoll
                | Fault::SseNever
        )
    }

    /// Whether this tools/call's stream is to be cut.
    fn cut_now(&self) -> bool {
        let mut seen = self.seen();
        let cut = match self.fault {
            Fault::CutAlways => true,
            Fault::CutOnce => seen.cuts == 0,
            _ => false,
        };
        seen.cuts += usize::from(cut);
        cut
    }

    fn hold(&self, answer: String) -> u64 {
        let mut seen = self.seen();
        seen.next_event += 1;
        let event = seen.next_event;
        seen.held.insert(event, answer);
        event
    }

    /// GET with Last-Event-ID: the held answer (sse-poll), or a stream that never delivers
    /// (sse-never).
    fn resume(&self, last: &str) -> Response {
        eprintln!("fixture_server: GET with Last-Event-ID {last}");
        let held = last
            .trim()
            .parse::<u64>()
            .ok()
            .and_then(|event| self.seen().held.remove(&event));
        match (self.fault, held) {
            (Fault::SsePoll, Some(answer)) => {
                sse(format!("id: resumed-{last}\ndata: {answer}\n\n"))
            }
            _ => sse(open_forever(format!(
                ": resumed after {last}, nothing to send\n\n"
            ))),
        }
    }
}

/// What a 2026-07-28 server checks of `search`'s `x-mcp-header: Query`: the argument mirrored
/// in `Mcp-Param-Query`, Base64-sentinel-decoded (streamable-http, Server Validation).
fn param_header_mismatch(message: &Value, headers: &axum::http::HeaderMap) -> Option<String> {
    use base64::Engine as _;
    let modern = message
        .pointer("/params/_meta")
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(Value::as_str)
        .is_some_and(|v| v >= "2026-07-28");
    if !modern
        || message.get("method") != Some(&json!("tools/call"))
        || message.pointer("/params/name") != Some(&json!("search"))
    {
        return None;
    }
    let query = message.pointer("/params/arguments/query")?.as_str()?;
    let header = headers.get("mcp-param-query").and_then(|v| v.to_str().ok());
    let decoded = header.map(|h| {
        match h
            .strip_prefix("=?base64?")
            .and_then(|r| r.strip_suffix("?="))
        {
            Some(encoded) => base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .unwrap_or_default(),
            None => h.to_owned(),
        }
    });
    match decoded {
        Some(value) if value == query => None,
        Some(value) => Some(format!(
            "Header mismatch: Mcp-Param-Query header value {value:?} does not match body value {query:?}"
        )),
        None => Some("Header mismatch: Mcp-Param-Query is required for search's query".into()),
    }
}
