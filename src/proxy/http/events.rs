//! A server's event stream relayed to the client event by event, each message decided by the
//! policy on its way, and a dropped stream resumed with `Last-Event-ID`.

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, header};
use tokio::sync::mpsc;

use crate::net::mcp::framing::Sse;
use crate::proxy::policy::{Level, Log, Policy, SERVER_ERROR, TIMEOUT_ERROR};

use super::decide::{end_events, forget, send_event, timed_out};
use super::respond::push_priming;
use super::upstream::{cause, media_type, upstream_headers};
use super::{App, Upstream, headers};

/// Reads the server's event stream, decides each message and sends it on as an event, until
/// the stream ends, the deadline passes (an error for the request) or the client goes (the
/// server's stream is dropped with it). Holds the request's place until then.
#[allow(clippy::too_many_arguments)]
pub(super) async fn relay_events(
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
pub(super) async fn resume_events(
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
