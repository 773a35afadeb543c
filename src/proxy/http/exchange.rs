//! One client request through the HTTP proxy: read and checked, decided by the policy, sent to
//! the server, and the server's answer (a JSON body or an event stream) decided again on its
//! way back. Everything that can go wrong between the three has an HTTP status and, for a
//! request, a JSON-RPC error with its id:
//!
//! | what                                         | status | JSON-RPC code |
//! |----------------------------------------------|--------|---------------|
//! | body over `--max-request-bytes`              | 413    | -32600        |
//! | body not JSON                                | 400    | -32700        |
//! | 2026-07-28 headers that disagree with body   | 400    | -32020        |
//! | every place and the queue taken              | 503    | -32000        |
//! | server unreachable, broken, wrong content    | 502    | -32000        |
//! | server slower than `--timeout`               | 504    | -32001        |
//! | the server's own refusal (401, 404, its 400) | as is  | as is         |
//! | `--oauth`: no login works (401/403 upstream) | 200    | -32000        |
//!
//! The policy runs on the blocking pool: shrinking a large result and reading the store take
//! time the async workers should not lose.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::sync::mpsc;

use super::super::policy::{self, Effects, Level, Log, Policy, SERVER_ERROR, TIMEOUT_ERROR};
use super::{App, Sends, Upstream, gate, headers};
use crate::net::mcp::framing::Sse;

use gate::HEADER_MISMATCH;

/// Runs `f` on the policy: right here when the caller knows it is `quick` (a small message
/// that only passes) and the policy is free, else off the async workers, so a result being
/// shrunk or a store being read never stalls them. Two thread hops a request were a third of
/// the proxy's CPU under load (scripts/bench-proxy-http.sh).
async fn decide(
    policy: &Arc<Mutex<Policy>>,
    quick: bool,
    f: impl FnOnce(&mut Policy) -> Effects + Send + 'static,
) -> Effects {
    // Not a blocking lock here: a large result being shrunk holds the policy for a while, and
    // a worker waiting for it would stall every connection on that worker.
    if quick && let Ok(mut free) = policy.try_lock() {
        return f(&mut free);
    }
    let policy = policy.clone();
    tokio::task::spawn_blocking(move || f(&mut super::lock(&policy)))
        .await
        .unwrap_or_default()
}

/// Below this a message is quick to decide on, unless it asks mcpguard itself for work.
const QUICK_BYTES: usize = 64 << 10;

/// Whether the policy answers `message` from the client at once: small, and not a call of
/// one of the tools mcpguard adds (`mcpguard_more` reads the store and pages a whole result).
fn quick_from_client(message: &Value, size: usize) -> bool {
    let own_tool = message["method"] == "tools/call"
        && message["params"]["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("mcpguard"));
    size <= QUICK_BYTES && !own_tool
}

/// A response of `status` with one JSON body.
fn json(status: StatusCode, back: HeaderMap, body: Vec<u8>) -> Response {
    let mut r = (status, body).into_response();
    r.headers_mut().extend(back);
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// A JSON-RPC error of the proxy's own, answering `id` (`null` when the message had none).
fn refusal(status: StatusCode, id: Option<&Value>, code: i64, message: &str) -> Response {
    let raw = id.map_or_else(|| "null".to_owned(), Value::to_string);
    json(
        status,
        HeaderMap::new(),
        policy::error_line(&raw, code, message),
    )
}

/// A request refused at the door ([`gate`]), as the server would have refused it.
pub(super) fn refused(r: gate::Refusal, id: Option<&Value>) -> Response {
    let mut error = serde_json::json!({"code": r.code, "message": r.message});
    if let Some(data) = r.data {
        error["data"] = data;
    }
    let id = if r.keeps_id { id.cloned() } else { None };
    let body = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error});
    json(r.status, HeaderMap::new(), body.to_string().into_bytes())
}

/// The messages the proxy answers a POST with: one as a JSON body, several as an event
/// stream (a describe's list_changed before its answer).
pub(super) fn answer(status: StatusCode, back: HeaderMap, mut messages: Vec<Vec<u8>>) -> Response {
    if messages.len() == 1 {
        return json(status, back, messages.pop().unwrap_or_default());
    }
    let mut body = Vec::new();
    for m in &messages {
        push_event(&mut body, None, m);
    }
    sse_response(back, Body::from(body))
}

pub(super) fn sse_response(back: HeaderMap, body: Body) -> Response {
    let mut r = (StatusCode::OK, body).into_response();
    r.headers_mut().extend(back);
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

/// One SSE event carrying `message` (each of its lines a `data:` line).
pub(super) fn push_event(out: &mut Vec<u8>, id: Option<&str>, message: &[u8]) {
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    out.extend_from_slice(b"event: message\n");
    let message = message.strip_suffix(b"\n").unwrap_or(message);
    for line in message.split(|b| *b == b'\n') {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out.push(b'\n');
}

/// An event that carries no message: an `id` (a point to resume from) and the server's
/// `retry`, with empty data, as a 2025-11-25 server primes a stream it may close.
pub(super) fn push_priming(
    out: &mut Vec<u8>,
    id: Option<&str>,
    retry: Option<std::time::Duration>,
) {
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    if let Some(retry) = retry {
        out.extend_from_slice(format!("retry: {}\n", retry.as_millis()).as_bytes());
    }
    out.extend_from_slice(b"data: \n\n");
}

/// The main type of a Content-Type, lowercased.
fn media_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// A POST's message, admitted: read, checked, and decided by its scope's policy; what goes on
/// to the server (if anything) and what the client is answered at once.
pub(super) struct Admitted {
    pub policy: Arc<Mutex<Policy>>,
    pub stream: u64,
    pub id: Option<Value>,
    pub head: HeaderMap,
    pub scope: String,
    pub message: Value,
    pub sends: Sends,
}

/// How long a request's body may take to arrive once its head has.
const BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The first half of POST /mcp: the body read under its cap, the era's header rules, the gate
/// in front of a command, and the policy's decision. `Err` is the answer already (a refusal).
pub(super) async fn admit(
    app: &Arc<App>,
    head: HeaderMap,
    body: Body,
) -> Result<Admitted, Response> {
    if app.stopping.load(Ordering::SeqCst) {
        app.metrics.refused("stopping");
        return Err(refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            None,
            SERVER_ERROR,
            "mcpguard proxy: stopping; send the request to another instance",
        ));
    }
    let cap = app.opts.max_request_bytes;
    let declared = head
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let too_large = || {
        app.metrics.refused("too_large");
        refusal(
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
            -32600,
            &format!(
                "mcpguard proxy: a request over {cap} bytes was not read (--max-request-bytes)"
            ),
        )
    };
    if declared.is_some_and(|n| n > cap as u64) {
        return Err(too_large());
    }
    // A body sent a few bytes at a time holds its connection no longer than this.
    let bytes = match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, cap)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => return Err(too_large()),
        Err(_) => {
            app.metrics.refused("slow_request");
            return Err(refusal(
                StatusCode::REQUEST_TIMEOUT,
                None,
                -32600,
                &format!(
                    "mcpguard proxy: the request's body did not arrive within {} s",
                    BODY_TIMEOUT.as_secs()
                ),
            ));
        }
    };
    let message: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            app.metrics.refused("bad_request");
            return Err(refusal(
                StatusCode::BAD_REQUEST,
                None,
                -32700,
                &format!("Parse error: mcpguard proxy could not read the body as JSON ({e})"),
            ));
        }
    };
    if message.is_array() {
        // A JSON-RPC batch: gone from MCP since 2025-06-18, and 2026-07-28 has a server refuse
        // it. Its answers could not be told apart on one stream, so it is refused whole, before
        // any of it reaches the server, rather than answered with an empty stream.
        app.metrics.refused("bad_request");
        return Err(refusal(
            StatusCode::BAD_REQUEST,
            None,
            -32600,
            "Invalid Request: mcpguard proxy does not take JSON-RPC batches (removed from MCP in 2025-06-18); send each message in a POST of its own",
        ));
    }
    let id = message.get("id").cloned();
    let mismatch = |why: String| {
        app.metrics.refused("header_mismatch");
        refusal(StatusCode::BAD_REQUEST, id.as_ref(), HEADER_MISMATCH, &why)
    };
    if headers::is_modern(&head)
        && let Err(why) = headers::check_modern(&head, &message)
    {
        return Err(mismatch(why));
    }
    let scope = headers::scope(&head);
    let policy = app.policy(&scope);
    if matches!(app.opts.upstream, Upstream::Command { .. }) && !head.contains_key(headers::SESSION)
    {
        // The shared child must only ever read whole 2026-07-28 requests.
        if let Err(r) = gate::stateless(&head, &message) {
            app.metrics.refused("bad_request");
            return Err(refused(r, id.as_ref()));
        }
        if let Err(why) = check_params(&policy, &head, &message) {
            return Err(mismatch(why));
        }
    }
    let stream = app.next_stream.fetch_add(1, Ordering::Relaxed);
    let line = bytes.to_vec();
    let quick = quick_from_client(&message, line.len());
    let fx = decide(&policy, quick, move |p| {
        p.from_client_on(stream, &line, Instant::now(), crate::reshape::cursor::now())
    })
    .await;
    let sends = app.apply(fx);
    Ok(Admitted {
        policy,
        stream,
        id,
        head,
        scope,
        message,
        sends,
    })
}

/// A tools/call's `Mcp-Param-*` headers against the tool's inputSchema, as this scope's
/// policy saw it listed (a tool never listed here cannot be checked, and passes).
fn check_params(policy: &Mutex<Policy>, head: &HeaderMap, message: &Value) -> Result<(), String> {
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return Ok(());
    }
    let Some(tool) = message.pointer("/params/name").and_then(Value::as_str) else {
        return Ok(());
    };
    let schema = super::lock(policy).header_schema(tool).cloned();
    match schema {
        Some(schema) => {
            let arguments = message.pointer("/params/arguments").unwrap_or(&Value::Null);
            gate::params(head, &schema, arguments)
        }
        None => Ok(()),
    }
}

/// What the policy makes of the server's `body` (a message for the request of `stream`).
pub(super) async fn from_server(
    app: &App,
    policy: &Arc<Mutex<Policy>>,
    stream: u64,
    body: Vec<u8>,
) -> Sends {
    let quick = body.len() <= QUICK_BYTES;
    let fx = decide(policy, quick, move |p| {
        p.from_server_on(stream, &body, Instant::now(), crate::reshape::cursor::now())
    })
    .await;
    app.apply(fx)
}

/// The exchange failed between the proxy and the server: the request's error (through the
/// policy, which forgets the request and records it), or, for a notification, `status` alone.
pub(super) async fn failed(
    app: &App,
    policy: &Arc<Mutex<Policy>>,
    stream: u64,
    id: Option<&Value>,
    (status, code, reason): (StatusCode, i64, &'static str),
    why: String,
) -> Response {
    app.metrics.refused(reason);
    let client = unanswered(app, policy, stream, code, why).await;
    match (client.is_empty(), id) {
        (false, _) => answer(status, HeaderMap::new(), client),
        (true, Some(id)) => refusal(
            status,
            Some(id),
            code,
            "mcpguard proxy: the server did not answer",
        ),
        (true, None) => status.into_response(),
    }
}

/// The requests of `stream` nobody will get an answer to (the server refused them, the
/// client left): logged and recorded as errors, nothing sent.
pub(super) async fn forget(app: &App, policy: &Arc<Mutex<Policy>>, stream: u64, why: String) {
    unanswered(app, policy, stream, SERVER_ERROR, why).await;
}

/// What the policy says to the client of `stream` about the requests it still waits for
/// (errors of `code`, or nothing when none is waiting); logged and recorded either way.
async fn unanswered(
    app: &App,
    policy: &Arc<Mutex<Policy>>,
    stream: u64,
    code: i64,
    why: String,
) -> Vec<Vec<u8>> {
    let fx = decide(policy, true, move |p| {
        p.unanswered(stream, code, &why, crate::reshape::cursor::now())
    })
    .await;
    app.apply(fx).client
}

pub(super) const BAD_GATEWAY: (StatusCode, i64, &str) =
    (StatusCode::BAD_GATEWAY, SERVER_ERROR, "upstream");
/// `--oauth` and no login works: a JSON-RPC error in a 200, not the upstream's 401 (which would
/// start the client's own OAuth against the proxy).
pub(super) const LOGIN_FAILED: (StatusCode, i64, &str) = (StatusCode::OK, SERVER_ERROR, "login");
pub(super) const GATEWAY_TIMEOUT: (StatusCode, i64, &str) =
    (StatusCode::GATEWAY_TIMEOUT, TIMEOUT_ERROR, "timeout");

/// A place among the requests to the server (`--max-concurrent`), waited for in the queue
/// when there is room there (`--queue`); else the request's 503.
pub(super) async fn place(
    app: &App,
    policy: &Arc<Mutex<Policy>>,
    stream: u64,
    id: Option<&Value>,
) -> Result<tokio::sync::OwnedSemaphorePermit, Response> {
    if let Ok(p) = app.permits.clone().try_acquire_owned() {
        return Ok(p);
    }
    if app.waiting.fetch_add(1, Ordering::SeqCst) >= app.opts.queue {
        app.waiting.fetch_sub(1, Ordering::SeqCst);
        let mut r = failed(
            app,
            policy,
            stream,
            id,
            (StatusCode::SERVICE_UNAVAILABLE, SERVER_ERROR, "busy"),
            format!(
                "busy: {} requests to the server in flight and {} waiting (--max-concurrent, --queue); try again",
                app.opts.max_concurrent, app.opts.queue
            ),
        )
        .await;
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return Err(r);
    }
    let p = app.permits.clone().acquire_owned().await;
    app.waiting.fetch_sub(1, Ordering::SeqCst);
    p.map_err(|_| StatusCode::SERVICE_UNAVAILABLE.into_response())
}

/// Sends the client's message on to the server and brings its answer back.
pub(super) async fn forward(
    app: Arc<App>,
    policy: Arc<Mutex<Policy>>,
    stream: u64,
    id: Option<Value>,
    head: HeaderMap,
    bytes: Vec<u8>,
) -> Response {
    let permit = match place(&app, &policy, stream, id.as_ref()).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let Upstream::Http { url, login, .. } = &app.opts.upstream else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let deadline = tokio::time::Instant::now() + app.opts.timeout;
    let bytes = Bytes::from(bytes);
    let mut renewed = false;
    let response = loop {
        let (to_server, sent) = upstream_headers(&app, &head);
        let request = app.client.post(url).headers(to_server).body(bytes.clone());
        let response = match tokio::time::timeout_at(deadline, request.send()).await {
            Err(_) => {
                return failed(
                    &app,
                    &policy,
                    stream,
                    id.as_ref(),
                    GATEWAY_TIMEOUT,
                    timed_out(&app),
                )
                .await;
            }
            Ok(Err(e)) => {
                return failed(
                    &app,
                    &policy,
                    stream,
                    id.as_ref(),
                    BAD_GATEWAY,
                    format!("the server at {url} cannot be reached: {}", cause(&e)),
                )
                .await;
            }
            Ok(Ok(r)) => r,
        };
        let status = response.status().as_u16();
        let Some(login) = login.as_ref().filter(|_| matches!(status, 401 | 403)) else {
            break response;
        };
        // The upstream's refusal of the login never reaches the client: renewed once, else
        // an error that says how to sign in.
        let why = if renewed {
            format!("the server at {url} still answers HTTP {status} after the login was renewed")
        } else {
            match login.renew(status, response.headers(), sent).await {
                Ok(()) => {
                    renewed = true;
                    app.log(&Log::new(
                        Level::Info,
                        format!(
                            "the server answered HTTP {status}: login renewed, request sent again"
                        ),
                    ));
                    continue;
                }
                Err(why) => why,
            }
        };
        return failed(&app, &policy, stream, id.as_ref(), LOGIN_FAILED, why).await;
    };
    let status = response.status();
    let back = headers::forwarded(response.headers());
    let media = media_type(response.headers());
    if !status.is_success() {
        return refused_by_server(&app, &policy, stream, id.as_ref(), response, deadline).await;
    }
    if status == StatusCode::ACCEPTED || id.is_none() {
        // A notification or a response of the client's: the server took it. A request
        // answered so is one nobody will answer.
        if id.is_some() {
            let why = "the server answered 202 Accepted, with no response".to_owned();
            forget(&app, &policy, stream, why).await;
        }
        return (
            StatusCode::from_u16(status.as_u16()).unwrap_or(StatusCode::ACCEPTED),
            back,
        )
            .into_response();
    }
    match media.as_str() {
        "application/json" => {
            let body = match read_capped(response, app.opts.max_response_bytes, deadline).await {
                Ok(b) => b,
                Err(e) => {
                    return failed(&app, &policy, stream, id.as_ref(), e.kind(), e.why()).await;
                }
            };
            let sends = from_server(&app, &policy, stream, body).await;
            if sends.client.is_empty() {
                return failed(
                    &app,
                    &policy,
                    stream,
                    id.as_ref(),
                    BAD_GATEWAY,
                    "the server's answer was not a JSON-RPC response to this request".to_owned(),
                )
                .await;
            }
            answer(StatusCode::OK, back, sends.client)
        }
        "text/event-stream" => {
            let (tx, body) = event_body();
            tokio::spawn(relay_events(
                app, policy, stream, head, response, deadline, tx, permit,
            ));
            sse_response(back, body)
        }
        other => failed(
            &app,
            &policy,
            stream,
            id.as_ref(),
            BAD_GATEWAY,
            format!(
                "the server answered HTTP {} with Content-Type {:?}, not JSON or an event stream",
                status.as_u16(),
                other
            ),
        )
        .await,
    }
}

/// The server said no. A 4xx is its refusal of this request and passes as it is, headers and
/// body (an unknown session's 404 tells the client to start a new one, a 401 carries the auth
/// challenge), and so does any JSON answer; a 5xx that is not JSON (an HTML error page, a
/// gateway's text) becomes a 502 with a JSON-RPC error the client can read.
async fn refused_by_server(
    app: &App,
    policy: &Arc<Mutex<Policy>>,
    stream: u64,
    id: Option<&Value>,
    response: reqwest::Response,
    deadline: tokio::time::Instant,
) -> Response {
    let status = response.status();
    let media = media_type(response.headers());
    let back = headers::forwarded(response.headers());
    let body = read_capped(response, 64 << 10, deadline)
        .await
        .unwrap_or_default();
    let readable = media == "application/json" || status.is_client_error();
    if !readable {
        let shown = String::from_utf8_lossy(&body[..body.len().min(200)])
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        return failed(
            app,
            policy,
            stream,
            id,
            BAD_GATEWAY,
            format!(
                "the server answered HTTP {} with {}: {shown}",
                status.as_u16(),
                if media.is_empty() {
                    "no Content-Type".to_owned()
                } else {
                    media
                }
            ),
        )
        .await;
    }
    let why = format!("the server refused it (HTTP {})", status.as_u16());
    forget(app, policy, stream, why).await;
    let status = StatusCode::from_u16(status.as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
    (status, back, body).into_response()
}

/// Why a request got no answer: `--timeout` passed.
pub(super) fn timed_out(app: &App) -> String {
    format!(
        "the server did not answer within {} s (--timeout)",
        app.opts.timeout.as_secs_f64()
    )
}

/// Why an answer was not read: over `cap` bytes.
pub(super) fn over_cap(cap: usize) -> String {
    format!(
        "the server's answer was over {cap} bytes and was not read (--max-message-bytes); ask for less"
    )
}

/// Why reading the server's body failed.
enum ReadError {
    TooLarge(usize),
    Timeout,
    Broken(String),
}

impl ReadError {
    fn kind(&self) -> (StatusCode, i64, &'static str) {
        match self {
            ReadError::Timeout => GATEWAY_TIMEOUT,
            ReadError::TooLarge(_) | ReadError::Broken(_) => BAD_GATEWAY,
        }
    }

    fn why(&self) -> String {
        match self {
            ReadError::TooLarge(cap) => over_cap(*cap),
            ReadError::Timeout => {
                "the server did not finish its answer in time (--timeout)".to_owned()
            }
            ReadError::Broken(e) => format!("the server's answer broke off: {e}"),
        }
    }
}

/// The whole body, up to `cap` bytes, by the deadline.
async fn read_capped(
    mut response: reqwest::Response,
    cap: usize,
    deadline: tokio::time::Instant,
) -> Result<Vec<u8>, ReadError> {
    if response.content_length().is_some_and(|n| n > cap as u64) {
        return Err(ReadError::TooLarge(cap));
    }
    let mut body = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, response.chunk()).await {
            Err(_) => return Err(ReadError::Timeout),
            Ok(Err(e)) => return Err(ReadError::Broken(cause(&e))),
            Ok(Ok(None)) => return Ok(body),
            Ok(Ok(Some(chunk))) => {
                if body.len() + chunk.len() > cap {
                    return Err(ReadError::TooLarge(cap));
                }
                body.extend_from_slice(&chunk);
            }
        }
    }
}

/// An event stream's body, and where its events are sent.
pub(super) fn event_body() -> (mpsc::Sender<Bytes>, Body) {
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    let body = Body::from_stream(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, std::convert::Infallible>(b), rx))
    }));
    (tx, body)
}

/// Decides a message of the server's for the request of `stream` and sends what comes of it
/// as events, the first carrying `event_id`. `Err` when the client left (the request is
/// forgotten then).
pub(super) async fn send_event(
    app: &App,
    policy: &Arc<Mutex<Policy>>,
    stream: u64,
    data: Vec<u8>,
    mut event_id: Option<String>,
    tx: &mpsc::Sender<Bytes>,
) -> Result<(), ()> {
    for m in from_server(app, policy, stream, data).await.client {
        let mut event = Vec::new();
        push_event(&mut event, event_id.take().as_deref(), &m);
        if tx.send(Bytes::from(event)).await.is_err() {
            let why = "the client left before the answer".to_owned();
            forget(app, policy, stream, why).await;
            return Err(());
        }
    }
    Ok(())
}

/// The end of an event stream: whatever the request of `stream` still waits for gets its
/// error (`code`, recorded as `reason`, saying `why`) as the last event.
pub(super) async fn end_events(
    app: &App,
    policy: &Arc<Mutex<Policy>>,
    stream: u64,
    tx: &mpsc::Sender<Bytes>,
    (code, reason, why): (i64, &'static str, String),
) {
    let client = unanswered(app, policy, stream, code, why).await;
    if !client.is_empty() {
        app.metrics.refused(reason);
    }
    for m in client {
        let mut event = Vec::new();
        push_event(&mut event, None, &m);
        let _ = tx.send(Bytes::from(event)).await;
    }
}

/// Reads the server's event stream, decides each message and sends it on as an event, until
/// the stream ends, the deadline passes (an error for the request) or the client goes (the
/// server's stream is dropped with it). Holds the request's place until then.
#[allow(clippy::too_many_arguments)]
async fn relay_events(
    app: Arc<App>,
    policy: Arc<Mutex<Policy>>,
    stream: u64,
    head: HeaderMap,
    mut response: reqwest::Response,
    deadline: tokio::time::Instant,
    tx: mpsc::Sender<Bytes>,
    _permit: tokio::sync::OwnedSemaphorePermit,
) {
    let cap = app.opts.max_response_bytes;
    // One parser across reconnections: it keeps the last event id and the retry.
    let mut sse = Sse::new(cap);
    let mut pending: Vec<u8> = Vec::new();
    let mut sent_id: Option<String> = None;
    let mut sent_retry = None;
    let mut resumes = 0;
    let end_with = |why: (i64, &'static str, String)| end_events(&app, &policy, stream, &tx, why);
    loop {
        let chunk = match tokio::time::timeout_at(deadline, response.chunk()).await {
            Err(_) => return end_with((TIMEOUT_ERROR, "timeout", timed_out(&app))).await,
            Ok(Ok(Some(c))) => c,
            Ok(end) => {
                let why = match end {
                    Err(e) => format!("the server's stream broke off: {}", cause(&e)),
                    Ok(_) => "the server's stream ended before its answer".to_owned(),
                };
                // A 2025-11-25 server may close a stream it numbered and hold the answer for
                // a GET with Last-Event-ID (SSE polling): the proxy goes back for it, so the
                // answer still comes through the policy.
                let back =
                    resume_events(&app, &policy, stream, &head, &sse, &mut resumes, deadline);
                match back.await {
                    Some(r) => {
                        response = r;
                        pending.clear();
                        continue;
                    }
                    None => return end_with((SERVER_ERROR, "upstream", why)).await,
                }
            }
        };
        pending.extend_from_slice(&chunk);
        let mut start = 0;
        while let Some(at) = memchr::memchr(b'\n', &pending[start..]) {
            let raw = &pending[start..start + at];
            start += at + 1;
            let line = String::from_utf8_lossy(raw.strip_suffix(b"\r").unwrap_or(raw));
            let data = match sse.line(&line) {
                Ok(Some(d)) => d,
                Ok(None) if line.is_empty() && sse.last_event_id != sent_id => {
                    // An event with an id and no data: the server's priming event (2025-11-25
                    // SSE polling), passed on with its retry so the client may resume too.
                    sent_id.clone_from(&sse.last_event_id);
                    let mut event = Vec::new();
                    push_priming(&mut event, sent_id.as_deref(), sse.retry);
                    sent_retry = sse.retry;
                    if tx.send(Bytes::from(event)).await.is_err() {
                        return forget(&app, &policy, stream, "the client left".to_owned()).await;
                    }
                    continue;
                }
                Ok(None) => continue,
                Err(_) => {
                    let why = format!(
                        "an event of the server's was over {cap} bytes and was not read (--max-message-bytes)"
                    );
                    return end_with((SERVER_ERROR, "upstream", why)).await;
                }
            };
            let id = sse
                .last_event_id
                .clone()
                .filter(|id| sent_id.as_ref() != Some(id));
            if id.is_some() {
                sent_id = id.clone();
            }
            if sse.retry != sent_retry {
                sent_retry = sse.retry;
                let mut event = Vec::new();
                push_priming(&mut event, None, sent_retry);
                let _ = tx.send(Bytes::from(event)).await;
            }
            let sent = send_event(&app, &policy, stream, data.into_bytes(), id, &tx).await;
            if sent.is_err() {
                return;
            }
            if !super::lock(&policy).waiting_on(stream) {
                // The answer is through: the client's stream ends here, and dropping the
                // server's (a resumed GET the server keeps open) closes that one too.
                return;
            }
        }
        pending.drain(..start);
        if pending.len() > cap {
            let why = format!(
                "a line of the server's stream was over {cap} bytes and was not read (--max-message-bytes)"
            );
            return end_with((SERVER_ERROR, "upstream", why)).await;
        }
    }
}

/// The way back into a legacy request's stream that the server closed before its answer: after
/// the server's `retry` ([`Sse::reconnect_after`]), GET with `Last-Event-ID`, as the live
/// client does.
/// `None` when there is no way back: a 2026-07-28 request (its streams are not resumed), no
/// event id, the answer already through, the resumptions or the deadline spent, or the GET
/// refused.
async fn resume_events(
    app: &App,
    policy: &Arc<Mutex<Policy>>,
    stream: u64,
    head: &HeaderMap,
    sse: &Sse,
    resumes: &mut u32,
    deadline: tokio::time::Instant,
) -> Option<reqwest::Response> {
    let last_event_id = sse.last_event_id.clone()?;
    if headers::is_modern(head) || *resumes >= crate::net::mcp::framing::MAX_RESUMES {
        return None;
    }
    let Upstream::Http { url, .. } = &app.opts.upstream else {
        return None;
    };
    // Asked at the end of every numbered stream, so off the workers only when it must wait.
    let free = policy.try_lock().ok().map(|p| p.waiting_on(stream));
    let waiting = match free {
        Some(w) => w,
        None => {
            let held = policy.clone();
            tokio::task::spawn_blocking(move || super::lock(&held).waiting_on(stream))
                .await
                .unwrap_or(false)
        }
    };
    let pause = sse.reconnect_after();
    if !waiting || tokio::time::Instant::now() + pause >= deadline {
        return None;
    }
    *resumes += 1;
    tokio::time::sleep(pause).await;
    let (mut to_server, _) = upstream_headers(app, head);
    to_server.remove(header::CONTENT_TYPE);
    let request = app
        .client
        .get(url)
        .headers(to_server)
        .header("last-event-id", &last_event_id);
    let response = tokio::time::timeout_at(deadline, request.send())
        .await
        .ok()?
        .ok()?;
    let resumed =
        response.status().is_success() && media_type(response.headers()) == "text/event-stream";
    app.log(
        &Log::new(
            if resumed { Level::Info } else { Level::Warn },
            format!(
                "the server closed a stream before its answer; GET with Last-Event-ID {last_event_id:?}: HTTP {}",
                response.status().as_u16()
            ),
        ),
    );
    resumed.then_some(response)
}

/// GET and DELETE /mcp in front of an HTTP server: a legacy session's stream and its end,
/// relayed as they are.
pub(super) async fn relay(app: Arc<App>, method: Method, head: HeaderMap) -> Response {
    let Upstream::Http { url, login, .. } = &app.opts.upstream else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let (to_server, sent) = upstream_headers(&app, &head);
    let request = app.client.request(method.clone(), url).headers(to_server);
    let mut response = match tokio::time::timeout(app.opts.timeout, request.send()).await {
        Err(_) => return StatusCode::GATEWAY_TIMEOUT.into_response(),
        Ok(Err(e)) => {
            app.metrics.refused("upstream");
            return (
                StatusCode::BAD_GATEWAY,
                format!(
                    "mcpguard proxy: the server cannot be reached: {}",
                    cause(&e)
                ),
            )
                .into_response();
        }
        Ok(Ok(r)) => r,
    };
    if let Some(login) = login
        && matches!(response.status().as_u16(), 401 | 403)
    {
        // As for a POST: renewed once and sent again, else a 502 that says how to sign in.
        let status = response.status().as_u16();
        let again = match login.renew(status, response.headers(), sent).await {
            Ok(()) => {
                let (to_server, _) = upstream_headers(&app, &head);
                let request = app.client.request(method.clone(), url).headers(to_server);
                match tokio::time::timeout(app.opts.timeout, request.send()).await {
                    Ok(Ok(r)) if !matches!(r.status().as_u16(), 401 | 403) => Ok(r),
                    _ => Err(format!("the server at {url} still refuses the login")),
                }
            }
            Err(why) => Err(why),
        };
        response = match again {
            Ok(r) => r,
            Err(why) => {
                app.metrics.refused(LOGIN_FAILED.2);
                return (StatusCode::BAD_GATEWAY, format!("mcpguard proxy: {why}")).into_response();
            }
        };
    }
    let status =
        StatusCode::from_u16(response.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
    let back = headers::forwarded(response.headers());
    let body = Body::from_stream(futures_util::stream::unfold(response, |mut r| async move {
        match r.chunk().await {
            Ok(Some(c)) => Some((Ok::<_, std::io::Error>(c), r)),
            Ok(None) => None,
            Err(e) => Some((Err(std::io::Error::other(e)), r)),
        }
    }));
    (status, back, body).into_response()
}

/// The headers of a request to the server: the client's (hop-by-hop ones dropped), then the
/// `--header` ones; with `--oauth`, the held login's `Authorization` in place of the client's.
/// Also the `Authorization` value sent, for a renewal.
fn upstream_headers(app: &App, head: &HeaderMap) -> (HeaderMap, Option<String>) {
    let mut to_server = headers::forwarded(head);
    let Upstream::Http {
        headers: extra,
        login,
        ..
    } = &app.opts.upstream
    else {
        return (to_server, None);
    };
    for (name, value) in extra {
        if let (Ok(name), Ok(value)) = (
            header::HeaderName::try_from(name.as_str()),
            HeaderValue::try_from(value.as_str()),
        ) {
            to_server.append(name, value);
        }
    }
    let sent = login.as_ref().and_then(|l| l.apply(&mut to_server));
    (to_server, sent)
}

/// The innermost cause of a client error: "connection refused", not "error sending request".
fn cause(e: &reqwest::Error) -> String {
    let mut source: &dyn std::error::Error = e;
    while let Some(s) = source.source() {
        source = s;
    }
    let text = source.to_string();
    if e.is_connect() {
        format!("cannot connect ({text})")
    } else {
        text
    }
}
