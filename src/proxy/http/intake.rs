//! A client's request as the HTTP proxy takes it in: the body read within its size and time
//! limits, parsed, its 2026-07-28 headers checked against it, and whether the policy may decide
//! it on the async worker (a small message that only passes).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use gate::HEADER_MISMATCH;
use serde_json::Value;

use crate::proxy::policy::{Policy, SERVER_ERROR};

use super::decide::QUICK_BYTES;
use super::decide::decide;
use super::respond::{refusal, refused};
use super::{App, Sends, Upstream, gate, headers};

/// Whether the policy answers `message` from the client at once: small, and not a call of
/// one of the tools mcpguard adds (`mcpguard_more` reads the store and pages a whole result).
pub(super) fn quick_from_client(message: &Value, size: usize) -> bool {
    let own_tool = message["method"] == "tools/call"
        && message["params"]["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("mcpguard"));
    size <= QUICK_BYTES && !own_tool
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
pub(super) const BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

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
pub(super) fn check_params(
    policy: &Mutex<Policy>,
    head: &HeaderMap,
    message: &Value,
) -> Result<(), String> {
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
