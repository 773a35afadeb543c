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

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::proxy::policy::{Level, Log, Policy, SERVER_ERROR};

use super::decide::{failed, forget, from_server, timed_out};
use super::events::relay_events;
use super::intake::Admitted;
use super::respond::{
    BAD_GATEWAY, GATEWAY_TIMEOUT, LOGIN_FAILED, answer, event_body, sse_response,
};
use super::upstream::{cause, media_type, read_capped, upstream_headers};
use super::{App, ServerEnd, Upstream, headers};

/// The server end of `proxy --listen --url`: a Streamable HTTP server.
pub(super) struct HttpEnd;

impl ServerEnd for HttpEnd {
    async fn post(app: Arc<App>, a: Admitted, bytes: Vec<u8>) -> Response {
        forward(app, a.policy, a.stream, a.id, a.head, bytes).await
    }

    async fn session(app: Arc<App>, method: Method, head: HeaderMap) -> Response {
        relay(app, method, head).await
    }
}

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
async fn forward(
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
pub(super) async fn refused_by_server(
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

/// GET and DELETE /mcp in front of an HTTP server: a legacy session's stream and its end,
/// relayed as they are.
async fn relay(app: Arc<App>, method: Method, head: HeaderMap) -> Response {
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
