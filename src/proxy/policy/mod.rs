//! The proxy's decisions, without I/O: a message and the state of the conversation in, what
//! to send to whom, what to log and what to record out. The transports move bytes; this
//! decides (DESIGN.md section 9).
//!
//! Transparent first: a message passes as the same bytes unless one of these applies:
//! - a client's `tools/call` of the injected tool is answered here, never forwarded;
//! - the last page of a server's `tools/list` gets the injected tool appended (and each
//!   tool's outputSchema is remembered, so a shrunk result stays valid against it);
//! - a server's `tools/call` result over its budget or the contract is shrunk ([`super::shrink`]);
//! - a line that is not JSON is answered (from the client: a parse error) or skipped (from the
//!   server: logged), and a response to an id nobody is waiting for is dropped and logged;
//! - requests that will get no answer (the server is gone, or took longer than the timeout)
//!   get a JSON-RPC error, and the server a `notifications/cancelled` for a timed-out one.
//!
//! Requests are matched to responses by id, kept as canonical JSON text (`1` and `"1"` are
//! different ids), within a stream: stdio has one (0); over HTTP each POST is a stream of its
//! own, so clients that share a policy may use the same ids. JSON-RPC batches (gone since
//! 2025-06-18) pass untouched.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};

use crate::config::{self, Config};
use crate::contract::telemetry::MORE_TOOL;
use crate::net::mcp::era;
use crate::reshape::cursor::Secrets;

use super::more;
use super::result::Sizes;
use super::shrink::Context;
use super::store::Artifacts;

mod call;
mod effects;
mod listing;
mod pending;
mod record;
mod watch;
mod wire;

pub use effects::{Effects, Level, Log, Route};
use listing::Tiers;
use pending::{Pending, pending_key};
use record::Readings;
pub use record::{ReadingRecord, Record};
use watch::Watch;
use wire::{CallParams, MetaOnly, bounded_error, is_batch, modern, ms, preview, result_line};
pub(crate) use wire::{Envelope, id_key, parse, sniff_id};
pub use wire::{SERVER_ERROR, TIMEOUT_ERROR, error_line};

/// The proxy's state for one client and one server.
pub struct Policy {
    config: Arc<Config>,
    secrets: Secrets,
    store: Box<dyn Artifacts + Send>,
    shadow: bool,
    /// The injected tool's name: [`MORE_TOOL`] unless the server has a tool of that name.
    more_tool: String,
    pending: HashMap<String, Pending>,
    /// outputSchema of each tool the server listed.
    schemas: HashMap<String, Value>,
    /// inputSchema of each listed tool that mirrors arguments into `Mcp-Param-*` headers.
    header_schemas: HashMap<String, Value>,
    /// Tool names the server listed.
    server_tools: std::collections::HashSet<String>,
    /// Whether each of the last [`Watch::WINDOW`] results was over budget, and the estimate
    /// sampling.
    watch: Watch,
    /// The tiered catalog's state: call records, every tool seen, the ones described.
    tiers: Tiers,
    /// Calls of `mcpguard_more` per reading, for the records.
    readings: Readings,
}

impl Policy {
    pub fn new(
        config: Arc<Config>,
        secrets: Secrets,
        store: Box<dyn Artifacts + Send>,
        shadow: bool,
    ) -> Policy {
        Policy {
            config,
            secrets,
            store,
            shadow,
            more_tool: MORE_TOOL.to_owned(),
            pending: HashMap::new(),
            schemas: HashMap::new(),
            header_schemas: HashMap::new(),
            server_tools: Default::default(),
            readings: Readings::default(),
            tiers: Tiers {
                find_tool: "mcpguard_find_tools".to_owned(),
                describe_tool: "mcpguard_describe_tools".to_owned(),
                call_tool: "mcpguard_call_tool".to_owned(),
                ..Tiers::default()
            },
            watch: Watch {
                recent: Default::default(),
                since_warning: Watch::WINDOW,
                sample_every: 100,
                results: 0,
            },
        }
    }

    /// Call records from earlier sessions (the `--metrics` file) for the tiered catalog; the
    /// proxy's own tools are not the server's, and take no place in its hot list.
    pub fn seed_usage<'c>(&mut self, calls: impl IntoIterator<Item = super::tiers::Call<'c>>) {
        for call in calls {
            if !self.is_own_tool(call.tool) {
                self.tiers.usage.add(&call);
            }
        }
    }

    /// Builds the token counters this policy counts with, before traffic: see
    /// [`prepare_counters`].
    pub fn prepare(&self) {
        prepare_counters(&self.config, self.watch.sample_every > 0);
    }

    /// Checks the token estimate against the exact count on this share of results (0 to 1;
    /// the default is 0.01).
    pub fn sample_accuracy(&mut self, share: f64) {
        self.watch.sample_every = if share <= 0.0 {
            0
        } else {
            (1.0 / share.min(1.0)).round().max(1.0) as u64
        };
    }

    /// The config in force.
    pub fn config(&self) -> &Arc<Config> {
        &self.config
    }

    /// The inputSchema of a listed tool whose arguments travel in `Mcp-Param-*` headers too.
    pub fn header_schema(&self, tool: &str) -> Option<&Value> {
        self.header_schemas.get(tool)
    }

    /// The injected tool's name.
    pub fn more_tool(&self) -> &str {
        &self.more_tool
    }

    /// Requests waiting for the server, subscriptions aside.
    pub fn in_flight(&self) -> usize {
        // A subscription is the client's to end: closing its side ends it.
        self.pending.values().filter(|p| !p.long_lived()).count()
    }

    /// Whether `name` is one of the proxy's own tools (its reader, the tiered catalog's three),
    /// listed or not.
    fn is_own_tool(&self, name: &str) -> bool {
        let t = &self.tiers;
        [
            &self.more_tool,
            &t.find_tool,
            &t.describe_tool,
            &t.call_tool,
        ]
        .iter()
        .any(|own| own.as_str() == name)
    }

    /// The tools the proxy answers itself: its reader, and the tiered catalog's find and
    /// describe tools (its call tool becomes the call it names: [`Policy::unwrap_call`]).
    fn answers_itself(&self, name: &str) -> bool {
        name == self.more_tool
            || (self.tiered() && (name == self.tiers.find_tool || name == self.tiers.describe_tool))
    }

    /// Puts a new config in force for the next request; returns what changed.
    pub fn set_config(&mut self, config: Arc<Config>) -> Vec<config::Change> {
        let changes = config::diff(&self.config, &config);
        self.config = config;
        changes
    }

    /// A line from the client.
    pub fn from_client(&mut self, line: &[u8], now: Instant, wall: f64) -> Effects {
        self.from_client_on(0, line, now, wall)
    }

    /// A message from the client on `stream` (whose answers come back on the same stream).
    pub fn from_client_on(&mut self, stream: u64, line: &[u8], now: Instant, wall: f64) -> Effects {
        let mut fx = Effects::default();
        let Some(env) = parse(line) else {
            if is_batch(line) {
                // A batch: not in either era's spec any more; the server decides.
                fx.sends.push(Route::Server(line.to_vec()));
                return fx;
            }
            fx.logs.push(
                Log::new(
                    Level::Warn,
                    "the client sent a line that is not JSON-RPC; answered with a parse error",
                )
                .with("line", preview(line)),
            );
            fx.sends.push(Route::Client(error_line(
                "null",
                -32700,
                "Parse error: mcpguard proxy could not read this line as a JSON-RPC message",
            )));
            return fx;
        };
        match (&env.method, env.id) {
            (Some(method), Some(id)) => {
                let canonical = id_key(id);
                let call = (method == "tools/call")
                    .then(|| {
                        env.params
                            .and_then(|p| serde_json::from_str::<CallParams>(p.get()).ok())
                    })
                    .flatten();
                if let Some(call) = &call
                    && self.tiered()
                    && call.name.as_deref() == Some(self.tiers.call_tool.as_str())
                {
                    return match self.unwrap_call(id.get(), call) {
                        Ok(inner) => self.from_client_on(stream, &inner, now, wall),
                        Err(refusal) => {
                            fx.sends
                                .push(Route::Client(result_line(id.get(), &refusal)));
                            fx
                        }
                    };
                }
                if let Some(call) = &call
                    && call.name.as_deref().is_some_and(|n| self.answers_itself(n))
                {
                    let started = Instant::now();
                    let cx = Context {
                        config: &self.config,
                        secrets: &self.secrets,
                        now: wall,
                        more_tool: &self.more_tool,
                    };
                    let arguments: Option<Value> = call
                        .arguments
                        .and_then(|a| serde_json::from_str(a.get()).ok());
                    let tool = call.name.clone().unwrap_or_default();
                    let answer = if tool == self.more_tool {
                        more::answer(arguments.as_ref(), &cx, self.store.as_mut())
                    } else {
                        let result = self.tier_tool(&tool, arguments.as_ref(), &mut fx);
                        more::Answer {
                            is_error: result.get("isError") == Some(&json!(true)),
                            sizes: Default::default(),
                            result,
                            reading: None,
                        }
                    };
                    let mut result = answer.result;
                    if modern(call.meta.as_ref()) {
                        result["resultType"] = json!("complete");
                    }
                    fx.logs.push(
                        Log::new(
                            if answer.is_error {
                                Level::Warn
                            } else {
                                Level::Info
                            },
                            format!(
                                "{tool} answered from the {}{}",
                                if tool == self.more_tool {
                                    "store"
                                } else {
                                    "catalog"
                                },
                                if answer.is_error {
                                    " with an error"
                                } else {
                                    ""
                                }
                            ),
                        )
                        .with("id", canonical.clone())
                        .with("tokens", answer.sizes.tokens_after),
                    );
                    let mut record = Record::new(canonical, method, Some(tool.as_str()), wall);
                    record.outcome = if answer.is_error { "error" } else { "answered" };
                    record.sizes = answer.sizes;
                    if let Some(reading) = answer.reading {
                        record.artifact_ref = reading.reference.clone();
                        record.reading = Some(self.readings.count(reading));
                    }
                    record.overhead_ms = ms(started.elapsed());
                    fx.records.push(record.finish());
                    fx.sends.push(Route::Client(result_line(id.get(), &result)));
                    return fx;
                }
                // Only a tools/list answer depends on the era (its cache scope) and the client
                // (`catalog: auto`): no other request's params are read twice for them.
                let modern = match &call {
                    Some(c) => modern(c.meta.as_ref()),
                    None if method == "tools/list" => {
                        let meta = env
                            .params
                            .and_then(|p| serde_json::from_str::<MetaOnly>(p.get()).ok())
                            .and_then(|p| p.meta);
                        self.learn_client(meta.as_ref().and_then(|m| m.get(era::META_CLIENT_INFO)));
                        modern(meta.as_ref())
                    }
                    None if method == "initialize" => {
                        let params = env
                            .params
                            .and_then(|p| serde_json::from_str::<Value>(p.get()).ok());
                        self.learn_client(params.as_ref().and_then(|p| p.get("clientInfo")));
                        false
                    }
                    None => false,
                };
                let tool = call.and_then(|c| c.name);
                self.pending.insert(
                    pending_key(stream, &canonical),
                    Pending {
                        raw_id: id.get().to_owned(),
                        id: canonical,
                        modern,
                        method: method.clone(),
                        tool,
                        since: now,
                    },
                );
            }
            (Some(method), None) if method == "notifications/cancelled" => {
                // The server owes nothing more for a cancelled request.
                if let Some(id) = env
                    .params
                    .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                    .and_then(|p| p.get("requestId").cloned())
                {
                    self.pending.remove(&pending_key(stream, &id.to_string()));
                }
            }
            _ => {}
        }
        fx.sends.push(Route::Server(line.to_vec()));
        fx
    }

    /// A line from the server.
    pub fn from_server(&mut self, line: &[u8], now: Instant, wall: f64) -> Effects {
        self.from_server_on(0, line, now, wall)
    }

    /// A message from the server on `stream`.
    pub fn from_server_on(&mut self, stream: u64, line: &[u8], now: Instant, wall: f64) -> Effects {
        let mut fx = Effects::default();
        let Some(env) = parse(line) else {
            if is_batch(line) {
                fx.sends.push(Route::Client(line.to_vec()));
                return fx;
            }
            // A broken answer (a byte of invalid UTF-8, two ids) still names the request it
            // answers at its head: that request is answered now, not at its timeout.
            let owner =
                sniff_id(line).and_then(|id| self.pending.remove(&pending_key(stream, &id)));
            let Some(p) = owner else {
                fx.logs.push(
                    Log::new(
                        Level::Warn,
                        "the server wrote a line that is not JSON-RPC on stdout; skipped (servers must log to stderr)",
                    )
                    .with("line", preview(line)),
                );
                return fx;
            };
            let why = match std::str::from_utf8(line) {
                Err(e) => format!("is not UTF-8 (at byte {})", e.valid_up_to()),
                Ok(text) => match serde_json::from_str::<Envelope<'_>>(text.trim_end()) {
                    Err(e) => format!("is not a JSON-RPC message ({e})"),
                    Ok(_) => "could not be read".to_owned(),
                },
            };
            fx.logs.push(
                Log::new(
                    Level::Error,
                    format!(
                        "the server's answer to {} {why}; answered with an error",
                        p.method
                    ),
                )
                .with("id", p.id.clone())
                .with("line", preview(line)),
            );
            self.note_call(
                p.tool.as_deref(),
                false,
                ms(now.saturating_duration_since(p.since)),
            );
            fx.sends.push(Route::Client(error_line(
                &p.raw_id,
                SERVER_ERROR,
                &format!("mcpguard proxy: the server's answer to {} {why}", p.method),
            )));
            let mut record = Record::new(p.id, &p.method, p.tool.as_deref(), wall);
            record.outcome = "error";
            fx.records.push(record.finish());
            return fx;
        };
        let (None, Some(id)) = (&env.method, env.id) else {
            // Requests and notifications of the server's pass as they are.
            fx.sends.push(Route::Client(line.to_vec()));
            return fx;
        };
        let canonical = id_key(id);
        let Some(pending) = self.pending.remove(&pending_key(stream, &canonical)) else {
            fx.logs.push(
                Log::new(
                    Level::Warn,
                    "the server answered an id no request is waiting for; dropped",
                )
                .with("id", canonical),
            );
            return fx;
        };
        let upstream = now.saturating_duration_since(pending.since);
        let started = Instant::now();
        let mut record = Record::new(canonical, &pending.method, pending.tool.as_deref(), wall);
        if env.error.is_some() {
            record.outcome = "error";
        }
        record.sizes = Sizes {
            bytes_before: line.len() as u64,
            bytes_after: line.len() as u64,
            ..Sizes::default()
        };
        record.upstream_ms = ms(upstream);
        record.shadow = self.shadow;
        let out = match (pending.method.as_str(), env.result) {
            ("tools/list", Some(result)) => {
                self.tools_list(result.get(), &pending, &mut record, &mut fx)
            }
            ("tools/call", Some(result)) => {
                let tool = pending.tool.clone().unwrap_or_default();
                self.tools_call(&tool, result.get(), &pending, &mut record, &mut fx, wall)
            }
            _ => env.error.and_then(|error| {
                let tool = pending.tool.as_deref().unwrap_or(&pending.method);
                let cap = self.config.limits_for(tool).max_bytes;
                bounded_error(&pending.raw_id, error, cap, &mut fx)
            }),
        };
        if pending.method == "tools/call" && env.result.is_none() {
            // A JSON-RPC error: a failed call (a result's own isError is noted by tools_call).
            self.note_call(pending.tool.as_deref(), false, record.upstream_ms);
        }
        record.overhead_ms = ms(started.elapsed());
        if let Some(bytes) = &out {
            record.sizes.bytes_after = bytes.len() as u64;
        }
        fx.sends
            .push(Route::Client(out.unwrap_or_else(|| line.to_vec())));
        fx.records.push(record.finish());
        fx
    }
}

/// Builds the counters of `config`'s tokenizer, and Claude's exact one when results are
/// sampled for accuracy. Built on first use otherwise, they would be built under the policy's
/// lock by the first result to need them, and every request behind it would wait (the first
/// 200 ms of the HTTP load bench had its p99 from this).
pub fn prepare_counters(config: &Config, sampling: bool) {
    config.tokenizer.prepare();
    if sampling {
        crate::tokens::Tokenizer::Claude.prepare();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::store::NoStore;
    use std::time::Duration;

    fn policy() -> Policy {
        policy_with(Config::default())
    }

    /// The names of the tools a tools/list answer lists, in order.
    fn tool_names(answer: &Value) -> Vec<&str> {
        answer["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect()
    }

    fn policy_with(config: Config) -> Policy {
        Policy::new(
            Arc::new(config),
            Secrets::parse("test-secret-test-secret", "test").unwrap(),
            Box::new(NoStore),
            false,
        )
    }

    fn client(p: &mut Policy, line: &str) -> Effects {
        p.from_client(line.as_bytes(), Instant::now(), 1_800_000_000.0)
    }

    fn server(p: &mut Policy, line: &str) -> Effects {
        p.from_server(line.as_bytes(), Instant::now(), 1_800_000_000.0)
    }

    #[test]
    fn a_subscription_is_never_timed_out_and_keeps_no_session_open() {
        let mut p = policy();
        let t0 = Instant::now();
        let listen = r#"{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}"#;
        p.from_client(listen.as_bytes(), t0, 1_800_000_000.0);
        let call = r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"x"}}"#;
        p.from_client(call.as_bytes(), t0, 1_800_000_000.0);
        assert_eq!(p.in_flight(), 1, "the call only");
        let timeout = Duration::from_secs(30);
        assert_eq!(p.next_deadline(timeout), Some(t0 + timeout));
        let fx = p.expire(t0 + Duration::from_secs(3600), timeout);
        // The call timed out; the subscription is still open, and its answer still passes.
        assert_eq!(
            fx.sends
                .iter()
                .filter(|s| matches!(s, Route::Client(_)))
                .count(),
            1
        );
        assert_eq!(p.in_flight(), 0);
        assert_eq!(p.next_deadline(timeout), None);
        let end = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"resultType\":\"complete\"}}\n";
        assert_eq!(server(&mut p, end).sends, vec![Route::Client(end.into())]);
    }

    #[test]
    fn what_it_does_not_touch_passes_byte_for_byte() {
        let mut p = policy();
        let init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}\n";
        assert_eq!(client(&mut p, init).sends, vec![Route::Server(init.into())]);
        let answer = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\",  \"x\":[1, 2]}}\n";
        assert_eq!(
            server(&mut p, answer).sends,
            vec![Route::Client(answer.into())]
        );
        let note = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n";
        assert_eq!(server(&mut p, note).sends, vec![Route::Client(note.into())]);
        let ask = "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"roots/list\"}\n";
        assert_eq!(server(&mut p, ask).sends, vec![Route::Client(ask.into())]);
        let reply = "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"result\":{\"roots\":[]}}\n";
        assert_eq!(
            client(&mut p, reply).sends,
            vec![Route::Server(reply.into())]
        );
    }

    #[test]
    fn the_injected_tool_is_listed_last_on_the_last_page_and_never_collides() {
        let mut p = policy();
        client(&mut p, r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
        let page1 = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{}}],"nextCursor":"p2"}}"#;
        assert_eq!(
            server(&mut p, page1).sends,
            vec![Route::Client(page1.into())]
        );
        client(
            &mut p,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"p2"}}"#,
        );
        let page2 = r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"mcpguard_more","inputSchema":{}}],"ttlMs":1000}}"#;
        let fx = server(&mut p, page2);
        let Route::Client(bytes) = &fx.sends[0] else {
            panic!()
        };
        let v: Value = serde_json::from_slice(bytes).unwrap();
        let names = tool_names(&v);
        assert_eq!(names, ["mcpguard_more", "mcpguard_more_2"]);
        assert_eq!(v["result"]["ttlMs"], 1000);
        assert_eq!(v["id"], 3);
    }

    #[test]
    fn garbage_unknown_ids_timeouts_and_a_dead_server_each_get_an_answer() {
        let mut p = policy();
        let fx = client(&mut p, "not json\n");
        assert!(
            matches!(&fx.sends[0], Route::Client(b) if String::from_utf8_lossy(b).contains("-32700"))
        );
        assert!(server(&mut p, "Traceback\n").sends.is_empty());
        assert!(
            server(&mut p, r#"{"jsonrpc":"2.0","id":99,"result":{}}"#)
                .sends
                .is_empty()
        );

        let t0 = Instant::now();
        p.from_client(
            br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"hang"}}"#,
            t0,
            0.0,
        );
        p.from_client(
            br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}}"#,
            t0 + Duration::from_secs(20),
            0.0,
        );
        let fx = p.expire(t0 + Duration::from_secs(31), Duration::from_secs(30));
        assert_eq!(fx.sends.len(), 2, "one error, one cancellation");
        assert!(
            matches!(&fx.sends[0], Route::Client(b) if String::from_utf8_lossy(b).contains("\"id\":\"a\""))
        );
        assert!(
            matches!(&fx.sends[1], Route::Server(b) if String::from_utf8_lossy(b).contains("\"requestId\":\"a\""))
        );
        let fx = p.server_gone("exited with status 3");
        assert!(
            matches!(&fx.sends[..], [Route::Client(b)] if String::from_utf8_lossy(b).contains("\"id\":5"))
        );
        assert_eq!(p.in_flight(), 0);
    }

    #[test]
    fn an_oversize_line_is_charged_to_the_request_named_at_its_head() {
        let mut p = policy();
        client(
            &mut p,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"huge"}}"#,
        );
        client(&mut p, r#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#);
        let fx = p.server_line_too_long(
            br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"xxxx"#,
            1024,
        );
        assert!(
            matches!(&fx.sends[..], [Route::Client(b)] if String::from_utf8_lossy(b).contains("\"id\":7"))
        );
        assert_eq!(p.in_flight(), 1);
        assert_eq!(
            sniff_id(br#"{"id" : "x\"y", "result"#),
            Some(r#""x\"y""#.into())
        );
    }

    #[test]
    fn a_run_of_oversized_results_is_warned_about_and_estimates_are_sampled() {
        let mut p = policy();
        p.sample_accuracy(1.0);
        let big = "word ".repeat(5000);
        let mut warned = 0;
        let mut sampled = 0;
        for i in 0..30 {
            client(
                &mut p,
                &format!(
                    r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"t"}}}}"#
                ),
            );
            let answer = json!({"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": big}]}});
            let fx = server(&mut p, &answer.to_string());
            warned += fx
                .logs
                .iter()
                .filter(|l| l.message.contains("were over budget"))
                .count();
            let record = &fx.records[0];
            assert_eq!(
                record.outcome, "summarized",
                "NoStore: a preview without a reference"
            );
            if let Some(exact) = record.exact_tokens_before {
                sampled += 1;
                assert!(exact > 4000, "{exact}");
            }
        }
        assert_eq!(warned, 1, "once per window");
        assert_eq!(sampled, 30);
    }

    #[test]
    fn a_trimmed_catalog_says_what_it_saved_and_keeps_the_real_schemas_for_validation() {
        let config = Config {
            catalog: config::Catalog::Trim,
            ..Config::default()
        };
        let mut p = policy_with(config);
        client(&mut p, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        let page = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "git_status",
            "inputSchema": {"type": "object", "properties": {"repo_path": {"title": "Repo Path", "type": "string"}}},
            "outputSchema": {"type": "object", "properties": {"clean": {"title": "Clean", "type": "boolean"}}}}]}});
        let fx = server(&mut p, &page.to_string());
        let Route::Client(bytes) = &fx.sends[0] else {
            panic!()
        };
        let v: Value = serde_json::from_slice(bytes).unwrap();
        assert_eq!(
            v["result"]["tools"][0]["inputSchema"]["properties"]["repo_path"],
            json!({"type": "string"})
        );
        assert!(
            fx.logs
                .iter()
                .any(|l| l.message.contains("2 schema boilerplate members dropped"))
        );
        assert_eq!(fx.records[0].outcome, "trimmed");
        assert_eq!(
            p.schemas["git_status"]["properties"]["clean"]["title"], "Clean",
            "results are validated against the schema the server wrote"
        );
    }

    #[test]
    fn a_tiered_page_keeps_the_servers_bytes_and_describes_from_them() {
        let config = Config {
            catalog: config::Catalog::Tiered,
            hot: vec!["b".to_owned()],
            ..Config::default()
        };
        let mut p = policy_with(config);
        client(
            &mut p,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        );
        // A pretty-printed tool, members around the list, and a cache scope to overrule.
        let page = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"_meta\":{\"k\": [1, 2]},\"tools\":[{\"name\":\"a\",\"inputSchema\":{}},{ \"name\": \"b\",\n  \"description\": \"Bee.\", \"inputSchema\": {} }],\"cacheScope\":\"shared\",\"ttlMs\":5}}";
        let fx = server(&mut p, page);
        let Route::Client(bytes) = &fx.sends[0] else {
            panic!()
        };
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(
            text.starts_with("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"_meta\":{\"k\": [1, 2]},\"tools\":[{ \"name\": \"b\",\n  \"description\": \"Bee.\", \"inputSchema\": {} },"),
            "{text}"
        );
        assert!(
            text.ends_with(",\"cacheScope\":\"private\",\"ttlMs\":5}}\n"),
            "{text}"
        );
        let v: Value = serde_json::from_str(&text).unwrap();
        let names = tool_names(&v);
        assert_eq!(
            names,
            [
                "b",
                "mcpguard_more",
                "mcpguard_find_tools",
                "mcpguard_describe_tools",
                "mcpguard_call_tool"
            ]
        );
        let describe = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcpguard_describe_tools","arguments":{"names":["a"]}}}"#;
        let fx = client(&mut p, describe);
        let answer: Value = fx
            .sends
            .iter()
            .find_map(|s| match s {
                Route::Client(b) if b.starts_with(b"{\"jsonrpc\":\"2.0\",\"id\":2") => {
                    serde_json::from_slice(b).ok()
                }
                _ => None,
            })
            .unwrap();
        let described: Value =
            serde_json::from_str(answer["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(described, json!([{"name": "a", "inputSchema": {}}]));
    }

    /// A tools/call of `tool` as request `id`, then the server's `result`: what the client got.
    fn call_answered(p: &mut Policy, id: u64, result: &str) -> (Value, Effects) {
        client(
            p,
            &format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo"}}}}"#
            ),
        );
        let fx = server(
            p,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#),
        );
        let [Route::Client(bytes)] = &fx.sends[..] else {
            panic!("one answer to the client: {:?}", fx.sends.len())
        };
        let answer = serde_json::from_slice(bytes)
            .unwrap_or_else(|e| panic!("the client gets JSON it can read ({e})"));
        (answer, fx)
    }

    #[test]
    fn results_serde_json_refuses_are_shrunk_never_passed_whole() {
        // server-everything's echo of 60,000 words cut mid-pair (a lone surrogate), a number
        // beyond f64, and nesting past serde_json's 128 levels in _meta: each about 300 KB.
        let words = "word ".repeat(60_000);
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let text =
            |tail: &str| format!(r#"{{"content":[{{"type":"text","text":"{words}{tail}"}}]"#);
        for (case, result) in [
            ("lone surrogate", format!(r#"{}}}"#, text("\\ud83d"))),
            ("1e999", format!(r#"{},"_meta":{{"n":1e999}}}}"#, text(""))),
            (
                "deep _meta",
                format!(r#"{},"_meta":{{"d":{deep}}}}}"#, text("")),
            ),
        ] {
            let mut p = policy();
            let (answer, fx) = call_answered(&mut p, 3, &result);
            let record = &fx.records[0];
            assert_eq!(record.outcome, "summarized", "{case}");
            assert!(
                record.sizes.bytes_before > 300_000,
                "{case}: measured as received"
            );
            let meta = &answer["result"]["_meta"][super::super::result::META_KEY];
            let tokens = meta["estimatedTokens"].as_u64().unwrap();
            assert!(tokens <= 4000, "{case}: {tokens} tokens");
            assert!(
                answer.to_string().len() < 12_000,
                "{case}: {} bytes",
                answer.to_string().len()
            );
            assert!(
                answer["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .contains("word word")
            );
        }
        // What fits passes as the server wrote it: measured, and within its budget.
        let mut p = policy();
        for (id, result) in [
            r#"{"content":[{"type":"text","text":"hi \ud83d"}]}"#,
            r#"{"content":[{"type":"text","text":"hi"}],"_meta":{"n":1e999}}"#,
            &format!(r#"{{"content":[],"_meta":{{"d":{deep}}}}}"#),
        ]
        .into_iter()
        .enumerate()
        {
            client(
                &mut p,
                &format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo"}}}}"#
                ),
            );
            let small = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
            let fx = server(&mut p, &small);
            assert_eq!(fx.sends, vec![Route::Client(small.into())]);
            assert_eq!(fx.records[0].outcome, "passthrough");
        }
    }

    #[test]
    fn an_answer_that_cannot_be_read_is_an_error_for_its_request_at_once() {
        for line in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"caf\xe9\"}]}}\n"[..],
            br#"{"jsonrpc":"2.0","id":6,"id":7,"result":{"content":[]}}"#,
        ] {
            let mut p = policy();
            client(
                &mut p,
                r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo"}}"#,
            );
            let fx = p.from_server(line, Instant::now(), 0.0);
            let [Route::Client(bytes)] = &fx.sends[..] else {
                panic!("answered at once: {:?}", fx.sends)
            };
            let answer: Value = serde_json::from_slice(bytes).unwrap();
            assert_eq!(answer["id"], 6);
            assert_eq!(answer["error"]["code"], SERVER_ERROR);
            assert_eq!(p.in_flight(), 0);
            assert_eq!(fx.records[0].outcome, "error");
        }
    }

    #[test]
    fn an_error_over_the_tools_bytes_goes_out_cut_with_its_code() {
        let mut p = policy();
        client(
            &mut p,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo"}}"#,
        );
        let log = "Traceback line\n".repeat(350_000);
        let huge = json!({"jsonrpc": "2.0", "id": 9,
            "error": {"code": -32603, "message": log, "data": {"log": log}}});
        let fx = server(&mut p, &huge.to_string());
        let [Route::Client(bytes)] = &fx.sends[..] else {
            panic!("one answer: {:?}", fx.sends.len())
        };
        assert!(bytes.len() < 10_240, "{} bytes", bytes.len());
        let answer: Value = serde_json::from_slice(bytes).unwrap();
        assert_eq!(answer["id"], 9);
        assert_eq!(answer["error"]["code"], -32603);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("Traceback line"), "{message:.80}");
        assert!(message.contains("cut to fit"), "{message:.80}");
        // A small error passes as the server wrote it.
        client(
            &mut p,
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo"}}"#,
        );
        let small = r#"{"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"no such tool"}}"#;
        assert_eq!(
            server(&mut p, small).sends,
            vec![Route::Client(small.into())]
        );
    }
}
