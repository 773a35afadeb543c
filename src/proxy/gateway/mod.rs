//! The gateway (DESIGN.md section 12): one MCP server in front of every server of a client's
//! config, which the proxy's policy serves as it serves any one server ([`start`] gives the
//! same [`ServerEnd`](super::stdio::ServerEnd) a child process or the stdio bridge gives). It
//! routes, it does not merge: tools and prompts are listed as `SERVER__NAME`
//! ([`super::names`]), every request goes to the server that has the name under the name it
//! knows ([`routes`]), and the shrinking, `mcpguard_more`, artifacts and records stay the
//! policy's, one for all servers.
//!
//! Servers start lazily ([`upstream`]): `tools/list` is answered from each server's cached
//! catalog ([`cache`]) when there is one, else every server without one is started at once and
//! listed in parallel. A server starts on the first use of one of its names, is refreshed
//! then (a catalog that changed sends `list_changed`), and ends after an idle time. A server
//! that cannot start, ends, hangs or floods answers its own requests with an error naming it,
//! and nothing else notices. `catalogs.rs` reads and keeps the catalogs; `servers.rs` takes what
//! the servers send.
//!
//! Both eras on the client's side: a 2025-11-25 `initialize` or a 2026-07-28 request with its
//! `_meta` is answered by the gateway itself; requests travel to each server in the era that
//! server speaks.

pub mod cache;
mod catalogs;
mod in_process;
mod listen;
pub mod pinned;
pub mod routes;
mod servers;
pub mod status;
pub mod upstream;

pub use in_process::start;

use std::collections::HashMap;
use std::io::{BufReader, Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use serde_json::{Value, json};

use super::names;
use super::policy::{Level, Log};
use super::stdio::lock;
use crate::net::mcp::{Target, era};
use crate::net::oauth::session::OAuth;
use crate::net::version::{HANDSHAKE_VERSIONS, V2025_11_25, V2026_07_28};
use crate::util::lines::{self, Capped};

use cache::CatalogCache;
use catalogs::LISTS;
use pinned::PinBook;
use routes::{Catalog, Entry, Table};
use servers::{Hub, tick};
use upstream::{Conn, Launch, Listener, OWN_ID, Upstream, Waiter};

/// How the gateway runs.
pub struct Options {
    /// Every server of the config, by key, in the file's order.
    pub servers: Vec<(String, Target)>,
    /// How long a server may take to start, and to answer one request.
    pub timeout: Duration,
    pub max_message_bytes: usize,
    /// The longest exposed name (`maxToolNameLength`).
    pub max_name: usize,
    /// How long a started server may sit unused before it is ended (`serverIdleSeconds`).
    pub idle: Duration,
    /// Start every server at once and keep them.
    pub eager: bool,
    /// Where catalogs are kept between runs; `None`: nowhere.
    pub cache: Option<CatalogCache>,
    /// The directory servers are started in (part of what names a cached catalog).
    pub cwd: PathBuf,
    /// A stored login for remote servers that ask for one.
    pub oauth: Option<Arc<dyn Fn() -> Option<OAuth> + Send + Sync>>,
    pub log: Arc<dyn Fn(&Log) + Send + Sync>,
    /// Where each server's stderr goes, a line at a time with the server's key.
    pub stderr: upstream::StderrSink,
    /// Where the servers' state is written for `--status`.
    pub status_file: Option<PathBuf>,
    /// The tool pins, unless `pins: off`.
    pub pins: Option<PinBook>,
}

/// How often overdue requests and idle servers are looked for.
const TICK: Duration = Duration::from_millis(200);

/// JSON-RPC's "invalid params": an unknown tool, prompt or resource.
const INVALID_PARAMS: i64 = -32602;

/// Serves the client on `input` and `output` until its input ends; then every server ends.
pub fn serve(input: impl Read, output: Box<dyn Write + Send>, opts: Options) {
    let cap = opts.max_message_bytes;
    let (gateway, ticker) = begin(opts, output);
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut buf = Vec::new();
    loop {
        match lines::read_capped(&mut reader, &mut buf, cap) {
            // A blank line is not JSON, which from_client skips.
            Ok(Capped::Line) => gateway.from_client(&buf),
            // The policy caps what the client sends before it gets here.
            Ok(Capped::TooLong) => {
                if lines::skip_line(&mut reader).is_err() {
                    break;
                }
            }
            Ok(Capped::End) | Err(_) => break,
        }
    }
    end(gateway, ticker);
}

/// Builds the gateway and starts what runs beside it: the eager start, the ticker.
fn begin(
    opts: Options,
    output: Box<dyn Write + Send>,
) -> (Arc<Gateway>, std::thread::JoinHandle<()>) {
    let gateway = Gateway::new(opts, output);
    if gateway.eager {
        let g = gateway.clone();
        std::thread::spawn(move || g.ensure_catalogs(true));
    }
    let ticker = {
        let weak = Arc::downgrade(&gateway);
        std::thread::spawn(move || tick(weak))
    };
    (gateway, ticker)
}

/// The client's side has closed: every server ends, the state is written.
fn end(gateway: Arc<Gateway>, ticker: std::thread::JoinHandle<()>) {
    gateway.closing.store(true, Ordering::SeqCst);
    for upstream in &gateway.upstreams {
        upstream.stop();
    }
    gateway.write_status();
    drop(gateway);
    let _ = ticker.join();
}

struct Gateway {
    upstreams: Vec<Arc<Upstream>>,
    catalogs: Mutex<Vec<Option<Catalog>>>,
    /// When each catalog was saved or read (seconds since the epoch).
    catalog_times: Mutex<Vec<Option<u64>>>,
    cache: Option<CatalogCache>,
    table: RwLock<Arc<Table>>,
    out: Mutex<Box<dyn Write + Send>>,
    launch: Launch,
    max_name: usize,
    idle: Duration,
    eager: bool,
    log: Arc<dyn Fn(&Log) + Send + Sync>,
    status_file: Option<PathBuf>,
    /// Requests a server sent the client: the gateway's id to (server, the server's id).
    asked: Mutex<HashMap<String, (usize, String)>>,
    next_id: AtomicU64,
    listener: Arc<dyn Listener>,
    closing: AtomicBool,
    /// The client's open `subscriptions/listen` requests (2026-07-28).
    subscriptions: Mutex<listen::Subscriptions>,
    /// The client opened a 2025-11-25 session: it hears list changes unsolicited.
    legacy_client: AtomicBool,
    pins: Option<PinBook>,
}

impl Gateway {
    fn new(opts: Options, out: Box<dyn Write + Send>) -> Arc<Gateway> {
        let upstreams: Vec<Arc<Upstream>> = opts
            .servers
            .into_iter()
            .enumerate()
            .map(|(i, (key, target))| {
                let file = opts.cache.as_ref().map(|c| c.file(&target, &opts.cwd));
                Arc::new(Upstream::new(i, key, target, file))
            })
            .collect();
        let saved: Vec<Option<cache::Saved>> = upstreams
            .iter()
            .map(|u| {
                u.cache_file
                    .as_ref()
                    .and_then(|f| opts.cache.as_ref()?.load(f))
            })
            .collect();
        let catalog_times = saved
            .iter()
            .map(|s| s.as_ref().map(|s| s.saved_at))
            .collect();
        let catalogs = saved.into_iter().map(|s| s.map(|s| s.catalog)).collect();
        // The servers' lines come back through a hub that holds the gateway weakly.
        let gateway = Arc::new_cyclic(|weak| Gateway {
            listener: Arc::new(Hub(weak.clone())),
            upstreams,
            catalogs: Mutex::new(catalogs),
            catalog_times: Mutex::new(catalog_times),
            cache: opts.cache,
            table: RwLock::default(),
            out: Mutex::new(out),
            launch: Launch {
                timeout: opts.timeout,
                max_message_bytes: opts.max_message_bytes,
                oauth: opts.oauth,
                client: Mutex::new((json!({}), Value::Null)),
                stderr: opts.stderr,
            },
            max_name: opts.max_name,
            idle: opts.idle,
            eager: opts.eager,
            log: opts.log,
            status_file: opts.status_file,
            asked: Mutex::default(),
            subscriptions: Mutex::default(),
            legacy_client: AtomicBool::new(false),
            next_id: AtomicU64::new(1),
            closing: AtomicBool::new(false),
            pins: opts.pins,
        });
        // Under `hold` a cached catalog of a server the pins do not know is pinned before the
        // first listing, which the pins decide. Under `warn` nothing is held: a server's
        // catalog is checked when it starts, and a warm start reads no pins at all.
        if gateway.refresh_first() {
            gateway.check_cached_pins();
        }
        gateway.rebuild();
        gateway.write_status();
        gateway
    }

    fn log(&self, level: Level, message: String) {
        (self.log)(&Log::new(level, message));
    }

    fn listener(&self) -> Arc<dyn Listener> {
        self.listener.clone()
    }

    fn table(&self) -> Arc<Table> {
        self.table
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Builds the routing table from the catalogs known now.
    fn rebuild(&self) {
        let held: Vec<_> = self
            .upstreams
            .iter()
            .map(|u| {
                self.pins
                    .as_ref()
                    .map(|p| p.held(&u.key))
                    .unwrap_or_default()
            })
            .collect();
        let catalogs = lock(&self.catalogs);
        let entries: Vec<Entry<'_>> = self
            .upstreams
            .iter()
            .zip(catalogs.iter())
            .zip(&held)
            .map(|((u, catalog), held)| Entry {
                key: &u.key,
                part: &u.part,
                catalog: catalog.as_ref(),
                held,
            })
            .collect();
        let table = Arc::new(Table::build(&entries, self.max_name));
        drop(entries);
        *self
            .table
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = table;
    }

    /// Writes a line to the client in one write (a line in two can wake the reader twice).
    fn send(&self, bytes: &[u8]) {
        let mut out = lock(&self.out);
        if bytes.last() == Some(&b'\n') {
            let _ = out.write_all(bytes);
        } else {
            let mut line = Vec::with_capacity(bytes.len() + 1);
            line.extend_from_slice(bytes);
            line.push(b'\n');
            let _ = out.write_all(&line);
        }
        let _ = out.flush();
    }

    fn answer(&self, raw_id: &str, modern: bool, mut result: Value) {
        if modern && let Some(r) = result.as_object_mut() {
            r.entry("resultType").or_insert_with(|| json!("complete"));
        }
        let line = json!({"jsonrpc": "2.0", "id": raw_value(raw_id), "result": result});
        self.send(line.to_string().as_bytes());
    }

    fn error(&self, raw_id: &str, code: i64, message: &str) {
        self.send(&super::policy::error_line(raw_id, code, message));
    }

    /// Answers a request its server could not: a tool's as a result with `isError` (the
    /// model reads it), any other as a JSON-RPC error.
    fn failed(&self, index: usize, waiter: &Waiter, why: &str) {
        let key = &self.upstreams[index].key;
        let text = format!(
            "mcpguard gateway: the server `{key}` cannot answer {} {}: {why}",
            waiter.method, waiter.label
        );
        if waiter.method == "tools/call" {
            self.answer(
                &waiter.client_id,
                waiter.modern,
                json!({"content": [{"type": "text", "text": text}], "isError": true}),
            );
        } else {
            self.error(&waiter.client_id, super::policy::SERVER_ERROR, &text);
        }
    }

    fn from_client(self: &Arc<Self>, line: &[u8]) {
        let Ok(message) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        let method = message.get("method").and_then(Value::as_str);
        match (method, message.get("id")) {
            (Some(method), Some(id)) => {
                let raw_id = id.to_string();
                let method = method.to_owned();
                self.request(&method, raw_id, message);
            }
            (Some(method), None) => self.notification(method, &message),
            (None, Some(id)) => self.client_answered(&id.to_string(), message),
            (None, None) => {}
        }
    }

    fn request(self: &Arc<Self>, method: &str, raw_id: String, message: Value) {
        let modern = era::declared_version(&message).is_some_and(era::is_modern);
        match method {
            "initialize" => {
                self.legacy_client.store(true, Ordering::SeqCst);
                let params = &message["params"];
                let asked = params["protocolVersion"].as_str().unwrap_or(V2025_11_25);
                let version = if HANDSHAKE_VERSIONS.contains(&asked) {
                    asked
                } else {
                    V2025_11_25
                };
                *lock(&self.launch.client) = (
                    params.get("capabilities").cloned().unwrap_or(json!({})),
                    params.get("clientInfo").cloned().unwrap_or(Value::Null),
                );
                self.answer(
                    &raw_id,
                    false,
                    json!({"protocolVersion": version, "capabilities": capabilities(),
                           "serverInfo": server_info(), "instructions": self.instructions()}),
                );
            }
            "ping" => self.answer(&raw_id, modern, json!({})),
            "subscriptions/listen" => self.listen(&raw_id, &message["params"]),
            "server/discover" => self.answer(
                &raw_id,
                true,
                json!({"supportedVersions": [V2026_07_28, V2025_11_25],
                       "capabilities": capabilities(), "instructions": self.instructions(),
                       "ttlMs": 0, "cacheScope": "private",
                       "_meta": {era::META_SERVER_INFO: server_info()}}),
            ),
            "logging/setLevel" => {
                for upstream in &self.upstreams {
                    if let Some(conn) = upstream.running() {
                        conn.send_unanswered("logging/setLevel", message["params"].clone());
                    }
                }
                self.answer(&raw_id, modern, json!({}));
            }
            _ if LISTS.iter().any(|(m, ..)| *m == method) => {
                let g = self.clone();
                let method = method.to_owned();
                std::thread::spawn(move || {
                    g.reload_pins();
                    g.ensure_catalogs(false);
                    g.answer_list(&method, &raw_id, modern);
                });
            }
            "tools/call"
            | "prompts/get"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "completion/complete" => {
                self.route(method, raw_id, message, modern, true);
            }
            _ => self.error(
                &raw_id,
                -32601,
                &format!("Method not found: {method} (mcpguard gateway)"),
            ),
        }
    }

    fn answer_list(&self, method: &str, raw_id: &str, modern: bool) {
        let table = self.table();
        let (key, items) = match method {
            "tools/list" => ("tools", &table.tools),
            "prompts/list" => ("prompts", &table.prompts),
            "resources/list" => ("resources", &table.resources),
            _ => ("resourceTemplates", &table.templates),
        };
        // Written from the entries' text: a 10,000-tool list is never a tree here.
        let size = items.iter().map(|i| i.len() + 1).sum::<usize>() + 128;
        let mut line = String::with_capacity(size);
        line.push_str(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{raw_id},\"result\":{{\"{key}\":["
        ));
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            line.push_str(item);
        }
        line.push(']');
        if modern {
            // A 2026-07-28 list is cacheable and must say how: the gateway's changes with its
            // servers (list_changed), so no one keeps it.
            line.push_str(",\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\"");
        }
        line.push_str("}}\n");
        self.send(line.as_bytes());
    }

    /// Sends a request to the server that has its name, starting the server if need be (on
    /// a thread of its own then: a start holds back no other request).
    fn route(
        self: &Arc<Self>,
        method: &str,
        raw_id: String,
        message: Value,
        modern: bool,
        retry: bool,
    ) {
        let params = &message["params"];
        let (label, route) = {
            let table = self.table();
            match method {
                "tools/call" | "prompts/get" => {
                    let name = params["name"].as_str().unwrap_or("").to_owned();
                    let route = if method == "tools/call" {
                        table.tool(&name).cloned()
                    } else {
                        table.prompt(&name).cloned()
                    };
                    (name, route)
                }
                "completion/complete" => {
                    let r = &params["ref"];
                    match r["type"].as_str() {
                        Some("ref/prompt") => {
                            let name = r["name"].as_str().unwrap_or("").to_owned();
                            let route = table.prompt(&name).cloned();
                            (name, route)
                        }
                        _ => {
                            let uri = r["uri"].as_str().unwrap_or("").to_owned();
                            let route = table.uri(&uri);
                            (uri, route)
                        }
                    }
                }
                _ => {
                    let uri = params["uri"].as_str().unwrap_or("").to_owned();
                    let route = table.uri(&uri);
                    (uri, route)
                }
            }
        };
        if method == "tools/call"
            && let Some(why) = self.held(&label)
        {
            return self.refuse_held(&raw_id, modern, &label, &why);
        }
        let Some(route) = route else {
            // Not in the catalogs known so far: read the missing ones, then look again.
            if retry && lock(&self.catalogs).iter().any(Option::is_none) {
                let g = self.clone();
                let method = method.to_owned();
                std::thread::spawn(move || {
                    g.ensure_catalogs(false);
                    g.route(&method, raw_id, message, modern, false);
                });
                return;
            }
            // A name under a server whose catalog was never read (it could not start): that
            // server answers, with why, rather than "unknown".
            if let Some(index) = self.unlisted_server(&label) {
                let waiter = Waiter::new(raw_id, method, label, modern);
                let (_, error) = self.upstreams[index].state();
                let why = error.unwrap_or_else(|| "its tools could not be listed".to_owned());
                return self.failed(index, &waiter, &why);
            }
            let what = match method {
                "tools/call" => "tool",
                "prompts/get" => "prompt",
                _ => "resource",
            };
            return self.error(
                &raw_id,
                INVALID_PARAMS,
                &format!(
                    "Unknown {what}: {label} (no server behind the mcpguard gateway lists it)"
                ),
            );
        };
        let waiter = Waiter::new(raw_id, method, label, modern);
        let upstream = self.upstreams[route.server].clone();
        let message = renamed(method, message, &route.original);
        if let Some(conn) = upstream.running() {
            return self.forward(&conn, route.server, message, waiter);
        }
        let g = self.clone();
        std::thread::spawn(move || match g.connect(route.server) {
            // The start read the catalog again: a tool changed since is held now.
            Ok(_) if waiter.method == "tools/call" && g.table().held(&waiter.label).is_some() => {
                let why = g.table().held(&waiter.label).unwrap_or_default().to_owned();
                g.refuse_held(&waiter.client_id, waiter.modern, &waiter.label, &why);
            }
            Ok(conn) => g.forward(&conn, route.server, message, waiter),
            Err(why) => g.failed(route.server, &waiter, &why),
        });
    }

    /// The server without a catalog whose part a name starts with (`SERVER__`).
    fn unlisted_server(&self, name: &str) -> Option<usize> {
        let catalogs = lock(&self.catalogs);
        self.upstreams
            .iter()
            .enumerate()
            .find_map(|(index, upstream)| {
                let part = &upstream.part;
                let under = name
                    .strip_prefix(part.as_str())
                    .is_some_and(|rest| rest.starts_with(names::SEPARATOR));
                (under && catalogs[index].is_none()).then_some(index)
            })
    }

    /// The server's connection, started if need be; a start refreshes its catalog.
    fn connect(self: &Arc<Self>, index: usize) -> Result<Arc<Conn>, String> {
        let upstream = &self.upstreams[index];
        if let Some(conn) = upstream.running() {
            return Ok(conn);
        }
        let conn = upstream.connect(&self.launch, &self.listener())?;
        self.log(
            Level::Info,
            format!(
                "started `{}` ({})",
                upstream.key,
                upstream.target.describe()
            ),
        );
        if self.refresh_first() {
            self.refresh(index, &conn);
        } else {
            let g = self.clone();
            let c = conn.clone();
            std::thread::spawn(move || g.refresh(index, &c));
        }
        self.write_status();
        Ok(conn)
    }

    fn forward(&self, conn: &Conn, index: usize, mut message: Value, waiter: Waiter) {
        let id = if waiter.client_id.starts_with(&format!("\"{OWN_ID}")) {
            conn.own_id()
        } else {
            waiter.client_id.clone()
        };
        message["id"] = raw_value(&id);
        if let Some(params) = message.get_mut("params") {
            let taken = std::mem::take(params);
            *params = match (conn.is_modern(), waiter.modern) {
                (true, false) => era::with_request_meta(taken),
                (false, true) => era::without_request_meta(taken),
                _ => taken,
            };
        }
        // One write, newline included: a line in two writes can wake the server twice.
        let mut line = message.to_string();
        line.push('\n');
        if !conn.forward(id, line.as_bytes(), waiter.clone()) {
            self.failed(index, &waiter, "its input is closed");
        }
    }

    fn notification(&self, method: &str, message: &Value) {
        match method {
            "notifications/cancelled" => {
                let Some(id) = message.pointer("/params/requestId") else {
                    return;
                };
                let client_id = id.to_string();
                if self.unlisten(&client_id) {
                    return;
                }
                for upstream in &self.upstreams {
                    if let Some(conn) = upstream.running()
                        && let Some(server_id) = conn.take_client(&client_id)
                    {
                        let mut params = message["params"].clone();
                        params["requestId"] = raw_value(&server_id);
                        conn.notify(method, params);
                    }
                }
            }
            "notifications/roots/list_changed" => {
                for upstream in &self.upstreams {
                    if let Some(conn) = upstream.running() {
                        conn.notify(method, message["params"].clone());
                    }
                }
            }
            _ => {}
        }
    }

    /// The client's answer to a request a server sent it: back to that server, its id back.
    fn client_answered(&self, raw_id: &str, mut message: Value) {
        let Some((index, server_id)) = lock(&self.asked).remove(raw_id) else {
            return;
        };
        if let Some(conn) = self.upstreams[index].running() {
            message["id"] = raw_value(&server_id);
            conn.write(message.to_string().as_bytes());
        }
    }

    fn instructions(&self) -> String {
        let keys: Vec<&str> = self.upstreams.iter().map(|u| u.key.as_str()).collect();
        format!(
            "mcpguard gateway in front of {} servers ({}). Each tool and prompt is named SERVER__NAME after the server that has it.",
            keys.len(),
            keys.join(", ")
        )
    }
}

/// A request with the name its server knows in place of the exposed one.
fn renamed(method: &str, mut message: Value, original: &str) -> Value {
    let params = &mut message["params"];
    match method {
        "tools/call" | "prompts/get" => params["name"] = Value::from(original),
        "completion/complete" if params["ref"]["type"] == "ref/prompt" => {
            params["ref"]["name"] = Value::from(original);
        }
        "completion/complete" => params["ref"]["uri"] = Value::from(original),
        _ => params["uri"] = Value::from(original),
    }
    message
}

/// An id (canonical JSON text) as a value again.
fn raw_value(raw_id: &str) -> Value {
    serde_json::from_str(raw_id).unwrap_or(Value::Null)
}

fn capabilities() -> Value {
    json!({"tools": {"listChanged": true}, "prompts": {"listChanged": true},
           "resources": {"listChanged": true, "subscribe": true}, "logging": {}, "completions": {}})
}

fn server_info() -> Value {
    json!({"name": "mcpguard-gateway", "version": env!("CARGO_PKG_VERSION")})
}
