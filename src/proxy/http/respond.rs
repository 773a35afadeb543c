//! The HTTP answers the proxy builds: a JSON body, a refusal with its JSON-RPC error, an event
//! stream and the events written into it.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::proxy::policy::{self, SERVER_ERROR, TIMEOUT_ERROR};

use super::gate;

/// The answers for a server that cannot be reached, answers late, or needs a login that fails:
/// the HTTP status, the JSON-RPC code and the reason logged.
pub(super) const BAD_GATEWAY: (StatusCode, i64, &str) =
    (StatusCode::BAD_GATEWAY, SERVER_ERROR, "upstream");

/// `--oauth` and no login works: a JSON-RPC error in a 200, not the upstream's 401 (which would
/// start the client's own OAuth against the proxy).
pub(super) const LOGIN_FAILED: (StatusCode, i64, &str) = (StatusCode::OK, SERVER_ERROR, "login");

pub(super) const GATEWAY_TIMEOUT: (StatusCode, i64, &str) =
    (StatusCode::GATEWAY_TIMEOUT, TIMEOUT_ERROR, "timeout");

/// A response of `status` with one JSON body.
pub(super) fn json(status: StatusCode, back: HeaderMap, body: Vec<u8>) -> Response {
    let mut r = (status, body).into_response();
    r.headers_mut().extend(back);
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// A JSON-RPC error of the proxy's own, answering `id` (`null` when the message had none).
pub(super) fn refusal(
    status: StatusCode,
    id: Option<&Value>,
    code: i64,
    message: &str,
) -> Response {
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
