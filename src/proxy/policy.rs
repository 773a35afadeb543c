//! The proxy's decisions, without I/O: a message and the state of the conversation in, what
//! to send to whom, what to log and what to record out. The transports move bytes; this
//! decides (DESIGN.md section 9).
//!
//! Transparent first: a message passes as the same bytes unless one of these applies:
//! - a client's `tools/call` of the injected tool is answered here, never forwarded;
//! - the last page of a server's `tools/list` gets the injected tool appended (and each
//!   tool's outputSchema is remembered, so a shrunk result stays valid against it);
//! - a server's `tools/call` result over its budget or the contract is shrunk ([`shrink`]);
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
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::more;
use super::result::Sizes;
use super::shrink::{self, Context, Outcome};
use super::store::Artifacts;
use crate::config::{self, Config};
use crate::contract::telemetry::TelemetryRecord;
use crate::reshape::cursor::Secrets;

/// The code of the errors the proxy answers for a server that cannot (JSON-RPC's
/// implementation-defined server error range).
pub const SERVER_ERROR: i64 = -32000;
/// A request the server did not answer in time.
pub const TIMEOUT_ERROR: i64 = -32001;

/// Where a message goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    Client(Vec<u8>),
    Server(Vec<u8>),
}

/// How loud a log line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Info,
    Warn,
    Error,
}

/// A log line: a message and fields for `--log-format json`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Log {
    pub level: Level,
    pub message: String,
    #[serde(flatten)]
    pub fields: serde_json::Map<String, Value>,
}

impl Log {
    pub fn new(level: Level, message: impl Into<String>) -> Log {
        Log {
            level,
            message: message.into(),
            fields: serde_json::Map::new(),
        }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Log {
        self.fields.insert(key.to_owned(), value.into());
        self
    }
}

/// One telemetry record per request: seed 002's TelemetryRecord, as `audit --metrics` writes
/// it (so `audit --from-metrics` reads either), then what the proxy adds.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// Seed 002's fields, shared with the audit's records.
    #[serde(flatten)]
    pub seed: TelemetryRecord,
    /// passthrough, paginated, chunked, summarized, answered (the injected tool) or error.
    pub outcome: &'static str,
    #[serde(flatten)]
    pub sizes: Sizes,
    /// The budget the result was held to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<u64>,
    /// From the request reaching the server to its answer reaching the proxy.
    pub upstream_ms: f64,
    /// What the proxy added: deciding, shrinking, storing.
    pub overhead_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_ref: Option<String>,
    /// `--shadow`: what would have been done; the server's bytes went out.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shadow: bool,
    /// For the results sampled (`--accuracy-sample`): the exact count of the tokens before,
    /// with Claude's tokenizer, to judge the estimate by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact_tokens_before: Option<u64>,
    /// The artifact store failed: the shrunk result went out without a reference.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub store_failed: bool,
    /// A call of the injected tool: how the model read the stored result.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub reading: Option<ReadingRecord>,
}

/// What a record says of a call of `mcpguard_more`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadingRecord {
    /// The arguments the model gave.
    pub more_arguments: Vec<&'static str>,
    /// match, where, aggregate, lines or read.
    pub more_way: &'static str,
    /// Calls of this reading so far, this one included (a `ref` call starts at 1).
    pub more_calls: u64,
    /// This answer ended the reading: the end of the text or list, or the answer.
    pub more_reached_end: bool,
}

/// Calls per reading (a reference read one way), to tell how many a reading took.
#[derive(Debug, Default)]
struct Readings {
    calls: HashMap<(String, &'static str), u64>,
}

/// Readings followed at most; past it the oldest are forgotten all at once.
const MAX_READINGS: usize = 10_000;

impl Readings {
    fn count(&mut self, reading: more::Reading) -> ReadingRecord {
        if self.calls.len() >= MAX_READINGS {
            self.calls.clear();
        }
        let key = (reading.reference.unwrap_or_default(), reading.way);
        let n = self.calls.entry(key.clone()).or_insert(0);
        *n = if reading.starts { 1 } else { *n + 1 };
        let calls = *n;
        if reading.reached_end {
            self.calls.remove(&key);
        }
        ReadingRecord {
            more_arguments: reading.arguments,
            more_way: reading.way,
            more_calls: calls,
            more_reached_end: reading.reached_end,
        }
    }
}

impl Record {
    fn new(id: String, method: &str, tool: Option<&str>, wall: f64) -> Record {
        Record {
            seed: TelemetryRecord {
                id,
                tool: tool.unwrap_or(method).to_owned(),
                method: Some(method.to_owned()),
                time: crate::reshape::cursor::iso_time(wall),
                estimated_tokens: 0,
                response_bytes: 0,
                item_count: 0,
                latency_ms: Some(0.0),
                pagination_used: false,
                summarization_used: false,
                chunking_used: false,
            },
            outcome: "passthrough",
            sizes: Sizes::default(),
            budget: None,
            upstream_ms: 0.0,
            overhead_ms: 0.0,
            artifact_ref: None,
            shadow: false,
            exact_tokens_before: None,
            store_failed: false,
            reading: None,
        }
    }

    /// Fills in the seed's fields from the sizes and times.
    fn finish(mut self) -> Record {
        self.seed.estimated_tokens = self.sizes.tokens_after;
        self.seed.response_bytes = self.sizes.bytes_after;
        self.seed.latency_ms = Some(((self.upstream_ms + self.overhead_ms) * 1e3).round() / 1e3);
        self
    }
}

/// What one event makes the proxy do.
#[derive(Debug, Default)]
pub struct Effects {
    pub sends: Vec<Route>,
    pub logs: Vec<Log>,
    pub records: Vec<Record>,
}

/// A request of the client's the server still owes an answer.
#[derive(Debug)]
struct Pending {
    /// The id as the client wrote it, for answers the proxy makes.
    raw_id: String,
    /// The id in canonical form, for records and logs.
    id: String,
    /// The request declared the 2026-07-28 era in its `_meta` (read for tools/call and
    /// tools/list, the requests whose answers depend on it).
    modern: bool,
    method: String,
    tool: Option<String>,
    since: Instant,
}

/// The fields of a JSON-RPC message the policy looks at; the rest stays raw (and borrowed from
/// the line, so a field's place in it is known).
#[derive(Deserialize)]
pub(crate) struct Envelope<'a> {
    #[serde(borrow, default)]
    pub(crate) id: Option<&'a RawValue>,
    #[serde(default)]
    pub(crate) method: Option<String>,
    #[serde(borrow, default)]
    pub(crate) params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    name: Option<String>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(default, rename = "_meta")]
    meta: Option<Value>,
}

/// The `_meta` of any request's params.
#[derive(Deserialize)]
struct MetaOnly {
    #[serde(default, rename = "_meta")]
    meta: Option<Value>,
}

/// Where a request's id is unique: one stream of messages (see the module doc).
fn pending_key(stream: u64, id: &str) -> String {
    if stream == 0 {
        id.to_owned()
    } else {
        format!("{stream}#{id}")
    }
}

/// The proxy's state for one client and one server.
pub struct Policy {
    config: Arc<Config>,
    secrets: Secrets,
    store: Box<dyn Artifacts + Send>,
    shadow: bool,
    /// The injected tool's name: [`more::NAME`] unless the server has a tool of that name.
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

/// What `catalog: tiered` needs across messages.
#[derive(Default)]
struct Tiers {
    usage: super::tiers::Usage,
    /// Every tool definition the server listed, in its order (one per name), and where each
    /// name is in it.
    seen: Vec<Value>,
    seen_at: HashMap<String, usize>,
    /// Tools `describe` put on the list.
    promoted: std::collections::HashSet<String>,
    search_tool: String,
    describe_tool: String,
}

/// What the policy keeps an eye on beyond single messages: the share of oversized results
/// (seed 000: warn above 5%), and how close the token estimate is to the exact count.
struct Watch {
    recent: std::collections::VecDeque<bool>,
    /// Results since the last warning about the share.
    since_warning: usize,
    /// Every how many results the estimate is checked (0: never).
    sample_every: u64,
    results: u64,
}

impl Watch {
    const WINDOW: usize = 100;
    /// Share of oversized results above which the operator is warned.
    const OVERSIZED_SHARE: f64 = 0.05;
    /// An estimate this far (relative) from the exact count is logged.
    const ESTIMATE_SLACK: f64 = 0.25;
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
            more_tool: more::NAME.to_owned(),
            pending: HashMap::new(),
            schemas: HashMap::new(),
            header_schemas: HashMap::new(),
            server_tools: Default::default(),
            readings: Readings::default(),
            tiers: Tiers {
                search_tool: "mcpguard_search_tools".to_owned(),
                describe_tool: "mcpguard_describe_tool".to_owned(),
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

    /// Call records from earlier sessions (the `--metrics` file) for the tiered catalog.
    pub fn seed_usage<'c>(&mut self, calls: impl IntoIterator<Item = super::tiers::Call<'c>>) {
        for call in calls {
            self.tiers.usage.add(&call);
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

    /// Requests waiting for the server.
    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }

    /// The tools the proxy answers itself: its reader, and the tiered catalog's pair.
    fn answers_itself(&self, name: &str) -> bool {
        name == self.more_tool
            || (self.config.catalog == config::Catalog::Tiered
                && (name == self.tiers.search_tool || name == self.tiers.describe_tool))
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
                                "{} answered from the store{}",
                                self.more_tool,
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
                    let mut record =
                        Record::new(canonical, method, Some(self.more_tool.as_str()), wall);
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
                // Only a tools/list answer depends on the era (its cache scope): no other
                // request's params are read twice for it.
                let modern = match &call {
                    Some(c) => modern(c.meta.as_ref()),
                    None if method == "tools/list" => env
                        .params
                        .and_then(|p| serde_json::from_str::<MetaOnly>(p.get()).ok())
                        .is_some_and(|p| modern(p.meta.as_ref())),
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

    /// The last page of a tools/list gets the injected tool; every page teaches the policy
    /// the tools' names and outputSchemas. `None`: the page passes as it is.
    fn tools_list(
        &mut self,
        result: &str,
        pending: &Pending,
        record: &mut Record,
        fx: &mut Effects,
    ) -> Option<Vec<u8>> {
        let mut value: Value = serde_json::from_str(result).ok()?;
        let tools = value.get("tools")?.as_array()?;
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            self.server_tools.insert(name.to_owned());
            match tool.get("outputSchema") {
                Some(schema) => self.schemas.insert(name.to_owned(), schema.clone()),
                None => self.schemas.remove(name),
            };
            match tool.get("inputSchema") {
                Some(schema) if schema.to_string().contains("\"x-mcp-header\"") => {
                    self.header_schemas.insert(name.to_owned(), schema.clone())
                }
                _ => self.header_schemas.remove(name),
            };
        }
        for slot in [
            &mut self.more_tool,
            &mut self.tiers.search_tool,
            &mut self.tiers.describe_tool,
        ] {
            if self.server_tools.contains(slot.as_str()) {
                let taken = slot.clone();
                let mut n = 2;
                while self.server_tools.contains(&format!("{taken}_{n}")) {
                    n += 1;
                }
                *slot = format!("{taken}_{n}");
                fx.logs.push(Log::new(
                    Level::Warn,
                    format!(
                        "the server has a tool named {taken}; the proxy's tool is {slot} instead"
                    ),
                ));
            }
        }
        let mut changed = false;
        if self.config.catalog == config::Catalog::Trim {
            let limit = self.config.limits.max_tool_description_bytes as usize;
            let t = super::catalog::trim(&mut value, limit, self.config.tokenizer.counter());
            if t.descriptions_cut + t.boilerplate_dropped > 0 {
                changed = true;
                record.sizes.tokens_before = t.tokens_before;
                record.sizes.tokens_after = t.tokens_after;
                record.outcome = "trimmed";
                let verb = if self.shadow { "would save" } else { "saved" };
                fx.logs.push(
                    Log::new(
                        Level::Info,
                        format!(
                            "tools/list: {} descriptions cut, {} schema boilerplate members dropped: {} -> {} tokens ({verb} {})",
                            t.descriptions_cut,
                            t.boilerplate_dropped,
                            t.tokens_before,
                            t.tokens_after,
                            t.tokens_before.saturating_sub(t.tokens_after)
                        ),
                    )
                    .with("tokensSaved", t.tokens_before.saturating_sub(t.tokens_after)),
                );
            }
        }
        if self.config.catalog == config::Catalog::Tiered {
            changed |= self.tier_page(&mut value, fx);
        }
        if value.get("nextCursor").is_none_or(Value::is_null) {
            let tools = value.get_mut("tools")?.as_array_mut()?;
            tools.push(more::definition(&self.more_tool));
            if self.config.catalog == config::Catalog::Tiered {
                tools.push(super::tiers::search_definition(&self.tiers.search_tool));
                tools.push(super::tiers::describe_definition(&self.tiers.describe_tool));
            }
            changed = true;
        }
        if !changed || self.shadow {
            return None;
        }
        if pending.modern && self.config.catalog == config::Catalog::Tiered {
            // The tiers follow this client's own calls: no cache may share the list. The
            // server's ttlMs stays (the proxy's changes do not make the list change sooner).
            value["cacheScope"] = json!("private");
        }
        Some(result_line(&pending.raw_id, &value))
    }

    /// Keeps on a tools/list page only the hot tools and those described; remembers every tool
    /// for search and describe. Returns whether the page changed.
    fn tier_page(&mut self, page: &mut Value, fx: &mut Effects) -> bool {
        let Some(tools) = page.get_mut("tools").and_then(Value::as_array_mut) else {
            return false;
        };
        for tool in tools.iter() {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            match self.tiers.seen_at.get(name) {
                Some(&i) => self.tiers.seen[i] = tool.clone(),
                None => {
                    self.tiers
                        .seen_at
                        .insert(name.to_owned(), self.tiers.seen.len());
                    self.tiers.seen.push(tool.clone());
                }
            }
        }
        // Ranked among every tool seen so far and every tool with calls on record, so a page
        // is decided as the whole catalog would be: a used tool on a later page takes its
        // place in the hot list before the first page is answered.
        let mut names: Vec<&str> = self
            .tiers
            .seen
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .collect();
        for used in self.tiers.usage.names() {
            if !self.tiers.seen_at.contains_key(used) {
                names.push(used);
            }
        }
        let hot: std::collections::HashSet<String> = self
            .tiers
            .usage
            .hot(&names, self.config.catalog_hot_tools as usize)
            .into_iter()
            .map(str::to_owned)
            .collect();
        let before = tools.len();
        tools.retain(|t| {
            t.get("name")
                .and_then(Value::as_str)
                .is_none_or(|n| hot.contains(n) || self.tiers.promoted.contains(n))
        });
        let kept = tools.len();
        if kept < before {
            fx.logs.push(Log::new(
                Level::Info,
                format!(
                    "tools/list (tiered): {kept} of {before} tools on this page listed; the rest through {} and {}",
                    self.tiers.search_tool, self.tiers.describe_tool
                ),
            ));
        }
        kept < before
    }

    /// A call of the tiered catalog's search or describe tool, answered here.
    fn tier_tool(&mut self, name: &str, arguments: Option<&Value>, fx: &mut Effects) -> Value {
        let arg = |key: &str| {
            arguments
                .and_then(|a| a.get(key))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        if name == self.tiers.search_tool {
            let query = arg("query");
            let hits = super::tiers::search(&self.tiers.seen, &query, 20);
            if hits.is_empty() {
                return super::result::text(format!(
                    "No tool matches {query:?} among the {} this server has listed.",
                    self.tiers.seen.len()
                ));
            }
            return super::result::text(format!(
                "{}\n\nCall `{}` with {{\"name\": ...}} for one of them.",
                hits.join("\n"),
                self.tiers.describe_tool
            ));
        }
        let wanted = arg("name");
        let Some(tool) = self
            .tiers
            .seen_at
            .get(&wanted)
            .map(|&i| self.tiers.seen[i].clone())
        else {
            return super::result::error(format!(
                "{}: no tool named {wanted:?}; call `{}` to find one",
                self.tiers.describe_tool, self.tiers.search_tool
            ));
        };
        if self.tiers.promoted.insert(wanted.clone()) {
            // It is listed from now on: the client is told to list again.
            fx.sends.push(Route::Client(
                b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n".to_vec(),
            ));
        }
        super::result::text(serde_json::to_string_pretty(&tool).unwrap_or_default())
    }

    fn tools_call(
        &mut self,
        tool: &str,
        result: &str,
        pending: &Pending,
        record: &mut Record,
        fx: &mut Effects,
        wall: f64,
    ) -> Option<Vec<u8>> {
        let cx = Context {
            config: &self.config,
            secrets: &self.secrets,
            now: wall,
            more_tool: &self.more_tool,
        };
        let decision = shrink::decide(
            tool,
            result,
            self.schemas.get(tool),
            &cx,
            self.store.as_mut(),
        );
        self.note_call(Some(tool), !decision.is_error, record.upstream_ms);
        let mut sizes = decision.sizes;
        // The bytes of the whole message, not only the result, for the record.
        let frame = record
            .sizes
            .bytes_before
            .saturating_sub(result.len() as u64);
        sizes.bytes_before += frame;
        sizes.bytes_after += frame;
        record.sizes = sizes;
        record.budget = Some(decision.budget);
        record.outcome = decision.outcome.name();
        record.seed.pagination_used = decision.outcome == Outcome::Paginated;
        record.seed.summarization_used = decision.outcome == Outcome::Summarized;
        record.seed.chunking_used = decision.outcome == Outcome::Chunked;
        record.artifact_ref = decision.reference.clone();
        record.store_failed = decision.store_failed;
        if let Some(w) = &decision.warning {
            fx.logs
                .push(Log::new(Level::Warn, w.clone()).with("tool", tool));
        }
        let verb = if self.shadow { "would be" } else { "was" };
        if decision.outcome != Outcome::Passthrough {
            fx.logs.push(
                Log::new(
                    Level::Info,
                    format!(
                        "{tool}: {} bytes, {} tokens over a budget of {}: {verb} {} to {} tokens",
                        sizes.bytes_before,
                        sizes.tokens_before,
                        decision.budget,
                        decision.outcome.name(),
                        sizes.tokens_after
                    ),
                )
                .with("id", record.seed.id.clone())
                .with("tool", tool)
                .with("outcome", decision.outcome.name())
                .with("shadow", self.shadow),
            );
        } else {
            fx.logs.push(
                Log::new(Level::Info, format!("{tool}: passed through"))
                    .with("id", record.seed.id.clone())
                    .with("tool", tool)
                    .with("bytes", sizes.bytes_before)
                    .with("tokens", sizes.tokens_before),
            );
        }
        self.watch_result(tool, result, decision.outcome, record, fx);
        if self.shadow {
            record.sizes.bytes_after = record.sizes.bytes_before;
            return None;
        }
        let out = decision.result?;
        Some(result_line(&pending.raw_id, &out))
    }

    /// One call of a tool, for the tiered catalog's scores.
    fn note_call(&mut self, tool: Option<&str>, ok: bool, latency_ms: f64) {
        self.tiers.usage.add(&super::tiers::Call {
            tool: tool.unwrap_or(""),
            ok,
            latency_ms,
            age_seconds: 0.0,
        });
    }

    /// The share of oversized results over the last window, and a sample of the estimate
    /// against the exact count (FR-014).
    fn watch_result(
        &mut self,
        tool: &str,
        result: &str,
        outcome: Outcome,
        record: &mut Record,
        fx: &mut Effects,
    ) {
        let w = &mut self.watch;
        w.recent.push_back(outcome != Outcome::Passthrough);
        if w.recent.len() > Watch::WINDOW {
            w.recent.pop_front();
        }
        w.since_warning += 1;
        let oversized = w.recent.iter().filter(|o| **o).count();
        let share = oversized as f64 / w.recent.len() as f64;
        if w.recent.len() >= 20
            && share > Watch::OVERSIZED_SHARE
            && w.since_warning >= Watch::WINDOW
        {
            w.since_warning = 0;
            fx.logs.push(
                Log::new(
                    Level::Warn,
                    format!(
                        "{oversized} of the last {} results were over budget ({:.0}%, more than {:.0}%): the server's tools return more than the context should take",
                        w.recent.len(),
                        share * 100.0,
                        Watch::OVERSIZED_SHARE * 100.0
                    ),
                )
                .with("oversizedShare", share),
            );
        }
        w.results += 1;
        let sampled = w.sample_every > 0 && w.results.is_multiple_of(w.sample_every);
        if !sampled || self.config.tokenizer == crate::tokens::Tokenizer::Claude {
            return;
        }
        let Ok(value) = serde_json::from_str::<Value>(result) else {
            return;
        };
        let anatomy = crate::document::anatomy(&value, "");
        let exact = crate::measure::estimate::tokens(
            &anatomy,
            crate::tokens::Tokenizer::Claude,
            self.config.media_tokens,
            &[],
        );
        record.exact_tokens_before = Some(exact);
        let estimate = record.sizes.tokens_before;
        let off = (estimate as f64 - exact as f64) / (exact.max(1) as f64);
        if off.abs() > Watch::ESTIMATE_SLACK && exact > 100 {
            fx.logs.push(
                Log::new(
                    Level::Warn,
                    format!(
                        "{tool}: the token estimate was {estimate}, the exact count {exact} ({:+.0}%)",
                        off * 100.0
                    ),
                )
                .with("tool", tool)
                .with("estimate", estimate)
                .with("exact", exact),
            );
        }
    }

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
        self.pending.values().map(|p| p.since + timeout).min()
    }

    /// Requests older than `timeout`: an error to the client, a cancellation to the server.
    pub fn expire(&mut self, now: Instant, timeout: Duration) -> Effects {
        let mut fx = Effects::default();
        let late: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| now.saturating_duration_since(p.since) >= timeout)
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

/// A JSON-RPC error over `cap` bytes (a server that put a whole log or page in its message)
/// made to fit: its code kept, its message cut, its data left out. `None`: it fits, and passes
/// as it is.
fn bounded_error(raw_id: &str, error: &RawValue, cap: u64, fx: &mut Effects) -> Option<Vec<u8>> {
    let size = error.get().len() as u64;
    if size <= cap {
        return None;
    }
    #[derive(Deserialize)]
    struct Error {
        code: Option<i64>,
        message: Option<String>,
    }
    let parsed: Option<Error> = serde_json::from_str(error.get()).ok();
    let code = parsed.as_ref().and_then(|e| e.code).unwrap_or(SERVER_ERROR);
    let message = parsed.and_then(|e| e.message).unwrap_or_default();
    let keep = usize::try_from(cap / 2).unwrap_or(usize::MAX).max(64);
    let cut = crate::reshape::summarize::cut(&message, keep);
    fx.logs.push(
        Log::new(
            Level::Warn,
            format!("the server's error of {size} bytes was cut to fit {cap} bytes"),
        )
        .with("code", code),
    );
    Some(error_line(
        raw_id,
        code,
        &format!("{cut} [mcpguard: the server's error was {size} bytes; cut to fit]"),
    ))
}

pub(crate) fn parse(line: &[u8]) -> Option<Envelope<'_>> {
    let text = std::str::from_utf8(line).ok()?;
    serde_json::from_str(text.trim_end()).ok()
}

/// A JSON array: a batch, passed as it is. Only valid JSON passes unread, so what the proxy
/// forwards is always UTF-8 JSON.
fn is_batch(line: &[u8]) -> bool {
    line.iter().copied().find(|b| !b.is_ascii_whitespace()) == Some(b'[')
        && serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok()
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

/// An id in canonical form (a string stays quoted, a number as JSON writes it).
pub(crate) fn id_key(id: &RawValue) -> String {
    serde_json::from_str::<Value>(id.get()).map_or_else(|_| id.get().to_owned(), |v| v.to_string())
}

/// Whether a request declared the 2026-07-28 era in its `_meta`.
fn modern(meta: Option<&Value>) -> bool {
    meta.and_then(|m| m.get(crate::net::mcp::era::META_PROTOCOL_VERSION))
        .and_then(Value::as_str)
        .is_some_and(|v| v >= crate::net::version::V2026_07_28)
}

fn result_line(raw_id: &str, result: &Value) -> Vec<u8> {
    let mut out = format!("{{\"jsonrpc\":\"2.0\",\"id\":{raw_id},\"result\":").into_bytes();
    // Writing a Value to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut out, result);
    out.extend_from_slice(b"}\n");
    out
}

/// A JSON-RPC error answering `raw_id` (the id as the client wrote it), as one line.
pub fn error_line(raw_id: &str, code: i64, message: &str) -> Vec<u8> {
    let mut out = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{raw_id},\"error\":{}}}",
        json!({"code": code, "message": message})
    )
    .into_bytes();
    out.push(b'\n');
    out
}

/// The id at the head of a message too long to parse: `"id":` then a number or a string.
pub(crate) fn sniff_id(head: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(&head[..head.len().min(64 << 10)]);
    let at = text.find("\"id\"")? + 4;
    let rest = text[at..].trim_start().strip_prefix(':')?.trim_start();
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    match stream.next()?.ok()? {
        v @ (Value::Number(_) | Value::String(_)) => Some(v.to_string()),
        _ => None,
    }
}

fn preview(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(120)]);
    text.trim_end().to_owned()
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::store::NoStore;

    fn policy() -> Policy {
        Policy::new(
            Arc::new(Config::default()),
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
        let names: Vec<&str> = v["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
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
        let mut p = Policy::new(
            Arc::new(config),
            Secrets::parse("test-secret-test-secret", "test").unwrap(),
            Box::new(NoStore),
            false,
        );
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
