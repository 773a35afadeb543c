//! The policy run for the HTTP proxy: off the async workers unless the message is quick, on a
//! server's message, on a request that failed or will get no answer, and on each event sent.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::proxy::policy::{Effects, Policy, SERVER_ERROR};

use super::respond::{answer, push_event, refusal};
use super::{App, Sends};

/// Below this a message is quick to decide on, unless it asks mcpguard itself for work.
pub(super) const QUICK_BYTES: usize = 64 << 10;

/// Runs `f` on the policy: right here when the caller knows it is `quick` (a small message
/// that only passes) and the policy is free, else off the async workers, so a result being
/// shrunk or a store being read never stalls them. Two thread hops a request were a third of
/// the proxy's CPU under load (scripts/bench-proxy-http.sh).
pub(super) async fn decide(
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
pub(super) async fn unanswered(
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
