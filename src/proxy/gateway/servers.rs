//! What the servers send the gateway besides the answers to its own requests: answers to the
//! client's requests (sent on under the client's id, made 2026-07-28 where the client is),
//! notifications (a list change refreshes the catalog; a resource's URI is the client's),
//! requests for the client (under an id of the gateway's), and their ends; and the tick that
//! answers overdue requests and ends idle servers.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use serde_json::{Value, json};

use super::super::policy::{Level, id_key, parse};
use super::super::stdio::lock;
use super::upstream::{Conn, Listener, OWN_ID, Waiter};
use super::{Gateway, TICK, raw_value};

/// What answers for the servers: their lines to the client, their ends.
pub(super) struct Hub(pub(super) Weak<Gateway>);

impl Listener for Hub {
    fn answer(&self, index: usize, line: &[u8], waiter: Waiter, id: &str) {
        if let Some(g) = self.0.upgrade() {
            g.answered(index, line, &waiter, id);
        }
    }

    fn line(&self, index: usize, line: &[u8]) {
        let Some(g) = self.0.upgrade() else { return };
        let Some(envelope) = parse(line) else {
            let shown = String::from_utf8_lossy(&line[..line.len().min(120)]).into_owned();
            return g.log(
                Level::Warn,
                format!(
                    "`{}` wrote a line that is not JSON-RPC, skipped: {shown}",
                    g.upstreams[index].key
                ),
            );
        };
        match (envelope.method.as_deref(), envelope.id) {
            (Some("ping"), Some(id)) => {
                if let Some(conn) = g.upstreams[index].running() {
                    conn.write(
                        format!(
                            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{}}}}",
                            id.get()
                        )
                        .as_bytes(),
                    );
                }
            }
            (Some(_), Some(id)) => {
                // The server asks the client (sampling, elicitation, roots): under an id of
                // the gateway's, so two servers' ids never meet.
                let own = Value::from(format!(
                    "{OWN_ID}{}",
                    g.next_id.fetch_add(1, Ordering::SeqCst)
                ))
                .to_string();
                lock(&g.asked).insert(own.clone(), (index, id_key(id)));
                let Ok(mut message) = serde_json::from_slice::<Value>(line) else {
                    return;
                };
                message["id"] = raw_value(&own);
                g.send(message.to_string().as_bytes());
            }
            (Some(method), None) => g.server_notified(index, method, line),
            (None, _) => g.log(
                Level::Info,
                format!(
                    "`{}` answered a request nobody waits for (late, or cancelled)",
                    g.upstreams[index].key
                ),
            ),
        }
    }

    fn too_long(&self, index: usize, waiter: Option<Waiter>) {
        let Some(g) = self.0.upgrade() else { return };
        let why = format!(
            "its message was over {} bytes (--max-message-bytes)",
            g.launch.max_message_bytes
        );
        g.log(Level::Warn, format!("`{}`: {why}", g.upstreams[index].key));
        if let Some(waiter) = waiter {
            g.failed(index, &waiter, &why);
        }
    }

    fn ended(&self, index: usize, conn: &Arc<Conn>, why: &str, owed: Vec<Waiter>) {
        let Some(g) = self.0.upgrade() else { return };
        let upstream = &g.upstreams[index];
        let why = upstream.with_stderr(why);
        if upstream.ended(conn, &why) && !g.closing.load(Ordering::SeqCst) {
            g.log(Level::Warn, format!("`{}` ended: {why}", upstream.key));
        }
        for waiter in &owed {
            g.failed(index, waiter, &why);
        }
        g.write_status();
    }
}

impl Gateway {
    /// A server's answer to a client's request, to the client under the client's id.
    /// An answer to the client: on as the server wrote it when it went under the client's own
    /// id and in the client's era, else with the client's id (and a 2026-07-28 result type).
    fn answered(&self, index: usize, line: &[u8], waiter: &Waiter, id: &str) {
        let modern_server = self.upstreams[index]
            .running()
            .is_some_and(|c| c.is_modern());
        if id == waiter.client_id && (!waiter.modern || modern_server) {
            return self.send(line);
        }
        let Ok(mut message) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        message["id"] = raw_value(&waiter.client_id);
        if waiter.modern
            && let Some(result) = message.get_mut("result").and_then(Value::as_object_mut)
        {
            result
                .entry("resultType")
                .or_insert_with(|| json!("complete"));
        }
        self.send(message.to_string().as_bytes());
    }

    fn server_notified(self: &Arc<Self>, index: usize, method: &str, line: &[u8]) {
        match method {
            "notifications/tools/list_changed"
            | "notifications/prompts/list_changed"
            | "notifications/resources/list_changed" => {
                if let Some(conn) = self.upstreams[index].running() {
                    let g = self.clone();
                    std::thread::spawn(move || g.refresh(index, &conn));
                }
            }
            "notifications/resources/updated" => {
                let Ok(mut message) = serde_json::from_slice::<Value>(line) else {
                    return;
                };
                if let Some(uri) = message.pointer("/params/uri").and_then(Value::as_str) {
                    let exposed = self.table().exposed_uri(index, uri);
                    message["params"]["uri"] = Value::from(exposed);
                }
                self.send(message.to_string().as_bytes());
            }
            _ => self.send(line),
        }
    }
}

/// Looks for overdue requests and idle servers until the gateway is gone.
pub(super) fn tick(gateway: Weak<Gateway>) {
    loop {
        std::thread::sleep(TICK);
        let Some(g) = gateway.upgrade() else { return };
        if g.closing.load(Ordering::SeqCst) {
            return;
        }
        for (index, upstream) in g.upstreams.iter().enumerate() {
            let Some(conn) = upstream.running() else {
                continue;
            };
            for (server_id, waiter) in conn.overdue(g.launch.timeout) {
                conn.notify(
                    "notifications/cancelled",
                    json!({"requestId": raw_value(&server_id), "reason": "mcpguard gateway: timed out"}),
                );
                let why = format!(
                    "no answer within {} s (--timeout)",
                    g.launch.timeout.as_secs_f64()
                );
                g.failed(index, &waiter, &upstream.with_stderr(&why));
            }
            if !g.eager && upstream.stop_if_idle(g.idle) {
                g.log(
                    Level::Info,
                    format!(
                        "stopped `{}` after {} s unused",
                        upstream.key,
                        g.idle.as_secs()
                    ),
                );
                g.write_status();
            }
        }
    }
}
