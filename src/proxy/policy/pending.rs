//! Requests the server still owes an answer: matched by id within a stream, answered with an
//! error when the server is gone, takes too long or sends a line over the cap.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Policy;
use super::effects::{Effects, Level, Log, Route};
use super::record::Record;
use super::wire::{SERVER_ERROR, TIMEOUT_ERROR, error_line, sniff_id};

/// A request of the client's the server still owes an answer.
#[derive(Debug)]
pub(super) struct Pending {
    /// The id as the client wrote it, for answers the proxy makes.
    pub(super) raw_id: String,
    /// The id in canonical form, for records and logs.
    pub(super) id: String,
    /// The request declared the 2026-07-28 era in its `_meta` (read for tools/call and
    /// tools/list, the requests whose answers depend on it).
    pub(super) modern: bool,
    pub(super) method: String,
    pub(super) tool: Option<String>,
    pub(super) since: Instant,
}

impl Pending {
    /// A subscription: open until the client cancels it, never timed out.
    pub(super) fn long_lived(&self) -> bool {
        crate::net::mcp::era::LONG_LIVED.contains(&self.method.as_str())
    }
}

/// Where a request's id is unique: one stream of messages (see the module doc).
pub(super) fn pending_key(stream: u64, id: &str) -> String {
    if stream == 0 {
        id.to_owned()
    } else {
        format!("{stream}#{id}")
    }
}

impl Policy {
    /// The server is gone: every request it owed gets an error.
    pub fn server_gone(&mut self, why: &str) -> Effects {
        let mut fx = Effects::default();
        let mut owed: Vec<Pending> = self.pending.drain().map(|(_, p)| p).collect();
        owed.sort_by_key(|p| p.since);
        for p in owed {
            fx.sends.push(Route::Client(error_line(
                &p.raw_id,
                SERVER_ERROR,
                &format!(
                    "mcpguard proxy: the server {why} before answering {}",
                    p.method
                ),
            )));
        }
        fx
    }

    /// Whether a request of `stream` still waits for its answer.
    pub fn waiting_on(&self, stream: u64) -> bool {
        let prefix = pending_key(stream, "");
        self.pending.keys().any(|k| k.starts_with(&prefix))
    }

    /// The requests of `stream` the server will not answer (its HTTP exchange failed, timed
    /// out or was refused): an error with `code` for each, saying `why`.
    pub fn unanswered(&mut self, stream: u64, code: i64, why: &str, wall: f64) -> Effects {
        let mut fx = Effects::default();
        let prefix = pending_key(stream, "");
        let keys: Vec<String> = self
            .pending
            .keys()
            .filter(|k| k.starts_with(&prefix))
            .cloned()
            .collect();
        for key in keys {
            let Some(p) = self.pending.remove(&key) else {
                continue;
            };
            self.note_call(p.tool.as_deref(), false, 0.0);
            // A subscription has no answer to wait for: its client closing it is its end.
            let level = if p.method == "subscriptions/listen" {
                Level::Info
            } else {
                Level::Warn
            };
            fx.logs
                .push(Log::new(level, format!("{}: {why}", p.method)).with("id", p.id.clone()));
            fx.sends.push(Route::Client(error_line(
                &p.raw_id,
                code,
                &format!("mcpguard proxy: {why}"),
            )));
            let mut record = Record::new(p.id, &p.method, p.tool.as_deref(), wall);
            record.outcome = "error";
            fx.records.push(record.finish());
        }
        fx
    }

    /// A line from the server too long to hold: the request it answered (named by the id at
    /// its head, else the only one waiting) gets an error instead.
    pub fn server_line_too_long(&mut self, head: &[u8], cap: usize) -> Effects {
        let mut fx = Effects::default();
        let key = sniff_id(head).or_else(|| {
            (self.pending.len() == 1)
                .then(|| self.pending.keys().next().cloned())
                .flatten()
        });
        let owner = key.and_then(|k| self.pending.remove(&k));
        fx.logs.push(
            Log::new(
                Level::Error,
                format!("the server wrote a message over the {cap}-byte cap (--max-message-bytes); skipped"),
            )
            .with("answers", owner.as_ref().map_or(Value::Null, |p| p.method.clone().into())),
        );
        if let Some(p) = owner {
            fx.sends.push(Route::Client(error_line(
                &p.raw_id,
                SERVER_ERROR,
                &format!(
                    "mcpguard proxy: the server's answer to {} was over {cap} bytes and was not read; ask for less",
                    p.method
                ),
            )));
        }
        fx
    }

    /// A line from the client too long to hold.
    pub fn client_line_too_long(&mut self, cap: usize) -> Effects {
        let mut fx = Effects::default();
        fx.logs.push(Log::new(
            Level::Warn,
            format!("the client sent a message over the {cap}-byte cap; answered with an error"),
        ));
        fx.sends.push(Route::Client(error_line(
            "null",
            -32600,
            &format!("mcpguard proxy: a message over {cap} bytes was not read"),
        )));
        fx
    }

    /// When the oldest waiting request times out.
    pub fn next_deadline(&self, timeout: Duration) -> Option<Instant> {
        self.pending
            .values()
            .filter(|p| !p.long_lived())
            .map(|p| p.since + timeout)
            .min()
    }

    /// Requests older than `timeout`: an error to the client, a cancellation to the server.
    pub fn expire(&mut self, now: Instant, timeout: Duration) -> Effects {
        let mut fx = Effects::default();
        let late: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| !p.long_lived() && now.saturating_duration_since(p.since) >= timeout)
            .map(|(k, _)| k.clone())
            .collect();
        for key in late {
            let Some(p) = self.pending.remove(&key) else {
                continue;
            };
            let what = match &p.tool {
                Some(t) => format!("{} {t}", p.method),
                None => p.method.clone(),
            };
            fx.logs.push(
                Log::new(
                    Level::Warn,
                    format!(
                        "{what}: no answer in {} s; the client got an error and the server a cancellation",
                        timeout.as_secs_f64()
                    ),
                )
                .with("id", p.id.clone()),
            );
            fx.sends.push(Route::Client(error_line(
                &p.raw_id,
                TIMEOUT_ERROR,
                &format!(
                    "mcpguard proxy: the server did not answer {what} within {} s (--timeout)",
                    timeout.as_secs_f64()
                ),
            )));
            let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": serde_json::from_str::<Value>(&p.raw_id).unwrap_or(Value::Null),
                    "reason": "mcpguard proxy: timed out"}});
            let mut bytes = cancel.to_string().into_bytes();
            bytes.push(b'\n');
            fx.sends.push(Route::Server(bytes));
        }
        fx
    }
}
