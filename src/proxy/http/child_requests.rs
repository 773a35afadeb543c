//! A client's POST, GET or DELETE sent to a child: the request written to its stdin, and the
//! answer (one JSON body, or the events of a stream) relayed back as the policy decides.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::proxy::policy::{self, Policy, SERVER_ERROR};

use super::child::{Child, FromChild};
use super::exchange;
use super::headers::SESSION as SESSION_HEADER;
use super::intake::Admitted;
use super::respond::{BAD_GATEWAY, GATEWAY_TIMEOUT};
use super::{App, ServerEnd, decide, respond};
use crate::net::mcp::era::LONG_LIVED;

/// The server end of `proxy --listen` in front of a command: children it starts.
pub(super) struct CommandEnd;

impl ServerEnd for CommandEnd {
    async fn post(app: Arc<App>, a: Admitted, bytes: Vec<u8>) -> Response {
        let to = (&a.head, a.scope.as_str());
        forward(app, a.policy, a.stream, a.id, to, &a.message, bytes).await
    }

    async fn session(app: Arc<App>, method: axum::http::Method, head: HeaderMap) -> Response {
        session_request(app, method, head).await
    }
}

/// The session a request names, if any.
pub(super) fn session_of(head: &HeaderMap) -> Option<&str> {
    head.get(SESSION_HEADER).and_then(|v| v.to_str().ok())
}

/// A POST's message, through to a child and its answer back.
async fn forward(
    app: Arc<App>,
    policy: Arc<Mutex<Policy>>,
    stream: u64,
    id: Option<Value>,
    (head, scope): (&HeaderMap, &str),
    message: &Value,
    bytes: Vec<u8>,
) -> Response {
    let Some(children) = app.children() else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let permit = match exchange::place(&app, &policy, stream, id.as_ref()).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let method = message.get("method").and_then(Value::as_str);
    let mut back = HeaderMap::new();
    let child = match (session_of(head), method) {
        (Some(session), _) => match children.session(session, scope) {
            Some(c) => c,
            None => {
                let why = "no such session (it ended, or the proxy restarted): start a new one with initialize".to_owned();
                return decide::failed(
                    &app,
                    &policy,
                    stream,
                    id.as_ref(),
                    (StatusCode::NOT_FOUND, SERVER_ERROR, "session"),
                    why,
                )
                .await;
            }
        },
        (None, Some("initialize")) => match children.start_session(&app, scope) {
            Ok((session, c)) => {
                if let Ok(v) = HeaderValue::from_str(&session) {
                    back.insert(SESSION_HEADER, v);
                }
                c
            }
            Err(why) => {
                return decide::failed(&app, &policy, stream, id.as_ref(), BAD_GATEWAY, why).await;
            }
        },
        (None, _) => match children.shared(&app).await {
            Ok(c) => c,
            Err(why) => {
                return decide::failed(&app, &policy, stream, id.as_ref(), BAD_GATEWAY, why).await;
            }
        },
    };
    if id.is_none() || method.is_none() {
        // A notification, or the client's answer to a request of the server's.
        return match child.write(&bytes).await {
            Ok(()) => (StatusCode::ACCEPTED, back).into_response(),
            Err(why) => decide::failed(&app, &policy, stream, id.as_ref(), BAD_GATEWAY, why).await,
        };
    }
    let token = message.pointer("/params/_meta/progressToken").cloned();
    let (key, mut rx) = match child.request(&bytes, token).await {
        Ok(r) => r,
        Err(why) => {
            return decide::failed(&app, &policy, stream, id.as_ref(), BAD_GATEWAY, why).await;
        }
    };
    // The first message of a long-lived request (a subscription's acknowledgement) must come
    // within --timeout like any answer; what follows has no deadline.
    let long_lived = method.is_some_and(|m| LONG_LIVED.contains(&m));
    let deadline = Instant::now() + app.opts.timeout;
    match tokio::time::timeout_at(deadline, rx.recv()).await {
        Err(_) => {
            child.forget(&key, "timeout").await;
            let why = decide::timed_out(&app);
            decide::failed(&app, &policy, stream, id.as_ref(), GATEWAY_TIMEOUT, why).await
        }
        Ok(None) => {
            let why = child.why_gone();
            decide::failed(&app, &policy, stream, id.as_ref(), BAD_GATEWAY, why).await
        }
        Ok(Some(FromChild::TooLong)) => {
            let why = decide::over_cap(app.opts.max_response_bytes);
            decide::failed(&app, &policy, stream, id.as_ref(), BAD_GATEWAY, why).await
        }
        Ok(Some(FromChild::Answer(answer))) => {
            let sends = decide::from_server(&app, &policy, stream, answer).await;
            if sends.client.is_empty() {
                let why = "the server's answer was not a JSON-RPC response to this request";
                return decide::failed(
                    &app,
                    &policy,
                    stream,
                    id.as_ref(),
                    BAD_GATEWAY,
                    why.to_owned(),
                )
                .await;
            }
            // A stateless (2026-07-28) answer's status says what its error is, as the SDK's
            // HTTP transport would say it; a session's answers are always 200.
            let status = match (&child.session, sends.client.last()) {
                (None, Some(last)) => serde_json::from_slice::<Value>(last)
                    .map_or(StatusCode::OK, |v| super::gate::status_of_answer(&v)),
                _ => StatusCode::OK,
            };
            respond::answer(status, back, sends.client)
        }
        Ok(Some(FromChild::Along(first))) => {
            // Messages before the answer: the answer becomes an event stream.
            let (tx, body) = respond::event_body();
            tokio::spawn(stream_answers(
                app,
                policy,
                stream,
                child,
                key,
                (first, rx),
                (!long_lived).then_some(deadline),
                tx,
                (!long_lived).then_some(permit),
            ));
            respond::sse_response(back, body)
        }
    }
}

/// Sends what the child says for one request as events, until its answer, the deadline (none
/// for a long-lived request), or the client leaving (the child is then told to stop); holds
/// the request's place until then, when it has one.
#[allow(clippy::too_many_arguments)]
async fn stream_answers(
    app: Arc<App>,
    policy: Arc<Mutex<Policy>>,
    stream: u64,
    child: Arc<Child>,
    key: String,
    (first, mut rx): (Vec<u8>, mpsc::Receiver<FromChild>),
    deadline: Option<Instant>,
    tx: mpsc::Sender<Bytes>,
    _permit: Option<tokio::sync::OwnedSemaphorePermit>,
) {
    let mut next = Some(FromChild::Along(first));
    let far = Instant::now() + Duration::from_secs(365 * 24 * 3600);
    loop {
        let wait = tokio::time::timeout_at(deadline.unwrap_or(far), rx.recv());
        let received = match next.take() {
            Some(m) => Ok(Some(m)),
            None => tokio::select! {
                r = wait => r,
                () = tx.closed() => {
                    child.forget(&key, "the client left").await;
                    let why = "the client left before the answer".to_owned();
                    decide::forget(&app, &policy, stream, why).await;
                    return;
                }
            },
        };
        let message = match received {
            Err(_) => {
                child.forget(&key, "timeout").await;
                let end = (policy::TIMEOUT_ERROR, "timeout", decide::timed_out(&app));
                return decide::end_events(&app, &policy, stream, &tx, end).await;
            }
            Ok(None) => {
                let end = (SERVER_ERROR, "upstream", child.why_gone());
                return decide::end_events(&app, &policy, stream, &tx, end).await;
            }
            Ok(Some(m)) => m,
        };
        let (data, last) = match message {
            FromChild::Along(d) => (d, false),
            FromChild::Answer(d) => (d, true),
            FromChild::TooLong => {
                let why = decide::over_cap(app.opts.max_response_bytes);
                let end = (SERVER_ERROR, "upstream", why);
                return decide::end_events(&app, &policy, stream, &tx, end).await;
            }
        };
        if decide::send_event(&app, &policy, stream, data, None, &tx)
            .await
            .is_err()
        {
            child.forget(&key, "the client left").await;
            return;
        }
        if last {
            return;
        }
    }
}

/// GET and DELETE /mcp of a session: its stream of the server's own messages, and its end.
async fn session_request(app: Arc<App>, method: axum::http::Method, head: HeaderMap) -> Response {
    let Some(children) = app.children() else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let scope = super::headers::scope(&head);
    let Some(session) = session_of(&head) else {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            "mcpguard proxy: GET and DELETE need an Mcp-Session-Id (a stateless request has no stream of its own)",
        )
            .into_response();
    };
    if method == axum::http::Method::DELETE {
        return if children.end_session(session, &scope) {
            StatusCode::OK.into_response()
        } else {
            StatusCode::NOT_FOUND.into_response()
        };
    }
    let Some(child) = children.session(session, &scope) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let (events, body) = respond::event_body();
    child.open_stream(events);
    respond::sse_response(HeaderMap::new(), body)
}
