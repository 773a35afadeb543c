//! A server that is a command, behind `proxy --listen` (DESIGN.md section 9): one child the
//! HTTP proxy started ([`super::sessions`] says which), and the routing of its messages to the
//! requests that wait for them.
//!
//! On the shared child (stateless 2026-07-28 requests) the ids are rewritten on the way in, so
//! that two clients' `"id": 1` never meet, and restored on the way out; a session's child sees
//! its client's bytes as they are. A response goes to the request waiting for its id; a
//! progress notification to the request that carries its token; a notification tagged with a
//! subscription to the `subscriptions/listen` request it names (with the client's id put back);
//! any other message of the server's (a log line, a request for roots or sampling) to the
//! session's newest request while one waits, else to its GET stream when one is open. On the
//! shared child such a message goes to the only request waiting, or, when several wait and
//! nobody can say whose it is, it is logged and dropped.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::AsyncWriteExt as _;
use tokio::process::ChildStdin;
use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;

use crate::proxy::policy::{self, Level, Log};

use super::{App, lock, respond};

/// How long a child gets to exit after its stdin is closed, as on stdio.
pub(super) const GRACE: std::time::Duration = crate::proxy::stdio::GRACE;

/// What the child sent for one request.
pub(super) enum FromChild {
    /// A message of the server's on the way to the answer (progress, a log line, a request).
    Along(Vec<u8>),
    /// The answer, carrying the client's id.
    Answer(Vec<u8>),
    /// The answer was over the message cap and was not read.
    TooLong,
}

/// A request the child has not answered yet.
pub(super) struct Waiter {
    /// The id as the client wrote it.
    pub(super) client_id: String,
    pub(super) progress_token: Option<Value>,
    pub(super) tx: mpsc::Sender<FromChild>,
    pub(super) order: u64,
}

#[derive(Default)]
pub(super) struct Routes {
    /// By the id the child sees, in canonical form.
    pub(super) waiters: HashMap<String, Waiter>,
    /// The session's GET stream, its events.
    pub(super) stream: Option<mpsc::Sender<Bytes>>,
    /// Why the child is gone, once it is.
    pub(super) gone: Option<String>,
}

/// One running server.
pub(super) struct Child {
    /// `session 3f2a…` or `shared`, for the log.
    pub(super) label: String,
    pub(super) session: Option<String>,
    /// The credential scope that started the session: another one cannot use it.
    pub(super) scope: String,
    pub(super) stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    pub(super) routes: Mutex<Routes>,
    pub(super) next_id: AtomicU64,
    pub(super) last_used: Mutex<Instant>,
    /// Set once the proxy asked it to exit: its exit is news then, not a warning.
    pub(super) ending: std::sync::atomic::AtomicBool,
    pub(super) kill: Notify,
}

/// The subscription a notification belongs to (2026-07-28, basic/patterns/subscriptions):
/// `params._meta["io.modelcontextprotocol/subscriptionId"]`, the id of the
/// `subscriptions/listen` request, borrowed from the line so it can be put back.
#[derive(Deserialize)]
pub(super) struct SubscriptionParams<'a> {
    #[serde(borrow, rename = "_meta")]
    pub(super) meta: Option<SubscriptionMeta<'a>>,
}

#[derive(Deserialize)]
pub(super) struct SubscriptionMeta<'a> {
    #[serde(borrow, rename = "io.modelcontextprotocol/subscriptionId")]
    pub(super) id: Option<&'a RawValue>,
}

#[derive(Deserialize)]
pub(super) struct ProgressParams {
    #[serde(rename = "progressToken")]
    pub(super) token: Value,
}

/// `line` with its id (`span`, borrowed from it) replaced by `id`.
pub(super) fn with_id(line: &[u8], span: &RawValue, id: &str) -> Vec<u8> {
    let start = (span.get().as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    let end = start + span.get().len();
    debug_assert!(end <= line.len(), "the id is borrowed from the line");
    [&line[..start], id.as_bytes(), &line[end..]].concat()
}

impl Child {
    pub(super) fn shared(&self) -> bool {
        self.session.is_none()
    }

    /// Sends the client's request and returns where its answer will come: the key the child
    /// knows it by, and the channel.
    pub(super) async fn request(
        &self,
        line: &[u8],
        progress_token: Option<Value>,
    ) -> Result<(String, mpsc::Receiver<FromChild>), String> {
        let envelope =
            policy::parse(line).ok_or_else(|| "the request could not be read again".to_owned())?;
        let id = envelope
            .id
            .ok_or_else(|| "the request has no id".to_owned())?;
        let order = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (key, bytes) = if self.shared() {
            let key = format!("{order}");
            let bytes = with_id(line, id, &key);
            (key, bytes)
        } else {
            (policy::id_key(id), line.to_vec())
        };
        let (tx, rx) = mpsc::channel(32);
        {
            let mut routes = lock(&self.routes);
            if let Some(why) = &routes.gone {
                return Err(why.clone());
            }
            if routes.waiters.contains_key(&key) {
                return Err(format!(
                    "a request with id {key} is still waiting in this session; ids must be unique"
                ));
            }
            routes.waiters.insert(
                key.clone(),
                Waiter {
                    client_id: id.get().to_owned(),
                    progress_token,
                    tx,
                    order,
                },
            );
        }
        if let Err(why) = self.write(&bytes).await {
            lock(&self.routes).waiters.remove(&key);
            return Err(why);
        }
        Ok((key, rx))
    }

    /// Writes one message to the child's stdin.
    pub(super) async fn write(&self, bytes: &[u8]) -> Result<(), String> {
        *lock(&self.last_used) = Instant::now();
        let mut stdin = self.stdin.lock().await;
        let Some(pipe) = stdin.as_mut() else {
            return Err("the server is stopping".to_owned());
        };
        let newline: &[u8] = if bytes.last() == Some(&b'\n') {
            b""
        } else {
            b"\n"
        };
        let written = async {
            pipe.write_all(bytes).await?;
            pipe.write_all(newline).await?;
            pipe.flush().await
        };
        written
            .await
            .map_err(|e| format!("the server's stdin is closed ({e})"))
    }

    /// The request of `key` will not be waited for (timed out, its client left): the server
    /// is told to stop working on it.
    pub(super) async fn forget(&self, key: &str, reason: &str) {
        if lock(&self.routes).waiters.remove(key).is_none() {
            return;
        }
        let cancel = serde_json::json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": serde_json::from_str::<Value>(key).unwrap_or(Value::Null), "reason": reason},
        });
        let _ = self.write(cancel.to_string().as_bytes()).await;
    }

    /// Why the child cannot answer.
    pub(super) fn why_gone(&self) -> String {
        lock(&self.routes)
            .gone
            .clone()
            .unwrap_or_else(|| "the server stopped before answering".to_owned())
    }

    /// The session's GET stream (where its events go), replacing the one before.
    pub(super) fn open_stream(&self, events: mpsc::Sender<Bytes>) {
        let mut routes = lock(&self.routes);
        if routes.gone.is_none() {
            routes.stream = Some(events);
        }
    }

    /// Closes the child's stdin (the stdio transport's way to ask a server to exit) and kills
    /// it if it is still there after the grace period.
    pub(super) fn end(self: &Arc<Self>) {
        self.ending.store(true, Ordering::SeqCst);
        let child = self.clone();
        tokio::spawn(async move {
            child.stdin.lock().await.take();
            tokio::time::sleep(GRACE).await;
            child.kill.notify_one();
        });
    }

    /// Where a message of the child's goes.
    pub(super) async fn route(&self, app: &App, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let Some(envelope) = policy::parse(line) else {
            app.log(
                &Log::new(
                    Level::Warn,
                    "the server wrote a line that is not JSON-RPC on stdout; skipped (servers must log to stderr)",
                )
                .with("server", self.label.clone()),
            );
            return;
        };
        match (envelope.method.as_deref(), envelope.id) {
            (None, Some(id)) => {
                let waiter = lock(&self.routes).waiters.remove(&policy::id_key(id));
                match waiter {
                    Some(w) => {
                        let bytes = if self.shared() {
                            with_id(line, id, &w.client_id)
                        } else {
                            line.to_vec()
                        };
                        let _ = w.tx.send(FromChild::Answer(bytes)).await;
                    }
                    None => app.log(
                        &Log::new(
                            Level::Warn,
                            "the server answered an id no request is waiting for; dropped",
                        )
                        .with("id", id.get().to_owned())
                        .with("server", self.label.clone()),
                    ),
                }
            }
            (method, _) => self.along(app, method, envelope.params, line).await,
        }
    }

    /// A message of the server's that is not an answer: to the request it belongs to, the
    /// session's stream, or nobody.
    pub(super) async fn along(
        &self,
        app: &App,
        method: Option<&str>,
        params: Option<&RawValue>,
        line: &[u8],
    ) {
        if self.shared()
            && let Some(bytes_and_tx) = self.subscription_route(params, line)
        {
            let (bytes, tx) = bytes_and_tx;
            // As for progress: a listener that does not read loses it, nobody else waits.
            let _ = tx.try_send(FromChild::Along(bytes));
            return;
        }
        let token = params
            .filter(|_| method == Some("notifications/progress"))
            .and_then(|p| serde_json::from_str::<ProgressParams>(p.get()).ok())
            .map(|p| p.token);
        let (waiter, stream) = {
            let routes = lock(&self.routes);
            let by_token = token.as_ref().and_then(|t| {
                routes
                    .waiters
                    .values()
                    .find(|w| w.progress_token.as_ref() == Some(t))
            });
            let stream = routes.stream.clone().filter(|s| !s.is_closed());
            let fallback = || {
                if self.shared() {
                    (routes.waiters.len() == 1)
                        .then(|| routes.waiters.values().next())
                        .flatten()
                } else {
                    routes.waiters.values().max_by_key(|w| w.order)
                }
            };
            // A request in flight takes what the server says meanwhile (its logs, its requests
            // for sampling or roots), as a 2025-11-25 server would send them on that request's
            // stream; the GET stream takes what comes while no request waits.
            let waiter = by_token.or_else(fallback);
            (waiter.map(|w| w.tx.clone()), stream)
        };
        if let Some(tx) = waiter {
            let along = FromChild::Along(line.to_vec());
            if !self.shared() {
                let _ = tx.send(along).await;
            } else if let Err(mpsc::error::TrySendError::Full(_)) = tx.try_send(along) {
                // The shared server's reader waits for no one client: one that does not read
                // its progress loses it instead of holding up the others' answers.
                app.log(
                    &Log::new(
                        Level::Warn,
                        "a client is not reading what the shared server sends before its answer; dropped",
                    )
                    .with("method", method.unwrap_or("").to_owned()),
                );
            }
        } else if let Some(stream) = stream {
            let mut event = Vec::new();
            respond::push_event(&mut event, None, line);
            let _ = stream.send(Bytes::from(event)).await;
        } else {
            app.log(
                &Log::new(
                    Level::Warn,
                    "the server sent a message nobody can be given (no request of its client waits, no GET stream is open); dropped",
                )
                .with("method", method.unwrap_or("").to_owned())
                .with("server", self.label.clone()),
            );
        }
    }

    /// A notification tagged with a subscription the shared child knows by its own id: the
    /// line with the client's id put back, and where its `subscriptions/listen` waits.
    pub(super) fn subscription_route(
        &self,
        params: Option<&RawValue>,
        line: &[u8],
    ) -> Option<(Vec<u8>, mpsc::Sender<FromChild>)> {
        let params: SubscriptionParams<'_> = serde_json::from_str(params?.get()).ok()?;
        let id = params.meta?.id?;
        let routes = lock(&self.routes);
        let waiter = routes.waiters.get(&policy::id_key(id))?;
        Some((with_id(line, id, &waiter.client_id), waiter.tx.clone()))
    }

    /// A line over the cap: the request it answered (by the id at its head, else the only
    /// one waiting) hears so.
    pub(super) async fn too_long(&self, head: &[u8]) {
        let waiter = {
            let mut routes = lock(&self.routes);
            let key = policy::sniff_id(head).or_else(|| {
                (routes.waiters.len() == 1)
                    .then(|| routes.waiters.keys().next().cloned())
                    .flatten()
            });
            key.and_then(|k| routes.waiters.remove(&k))
        };
        if let Some(w) = waiter {
            let _ = w.tx.send(FromChild::TooLong).await;
        }
    }

    /// The child is gone: every waiter and the stream are let go (their receivers see the end).
    pub(super) fn close(&self, why: String) {
        let mut routes = lock(&self.routes);
        routes.gone = Some(why);
        routes.waiters.clear();
        routes.stream = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn an_id_is_swapped_and_nothing_else_moves() {
        let line = br#"{"jsonrpc":"2.0","id": "a\"b" ,"result":{"id":7}}"#;
        let envelope = policy::parse(line).unwrap();
        let out = with_id(line, envelope.id.unwrap(), "42");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"jsonrpc":"2.0","id": 42 ,"result":{"id":7}}"#
        );
    }

    #[test]
    pub(super) fn a_waiter_hears_the_answer_to_its_id_with_its_own_id_back() {
        let line = br#"{"jsonrpc":"2.0","result":{},"id":3}"#;
        let envelope = policy::parse(line).unwrap();
        let id = envelope.id.unwrap();
        assert_eq!(policy::id_key(id), "3");
        let out = with_id(line, id, r#""client-1""#);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"jsonrpc":"2.0","result":{},"id":"client-1"}"#
        );
    }
}
