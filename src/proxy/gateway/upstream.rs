//! One server behind the gateway, alone: started when first needed (a child process, or the
//! stdio bridge to a remote URL), opened in the era it speaks, its requests matched to their
//! answers by id, ended after an idle time, and after a failure tried again only on a later
//! use, with a backoff (1 s doubling to 5 minutes), never in a loop of its own.
//!
//! What a server sends besides answers to the gateway's own requests (answers to a client's,
//! its notifications and requests) goes to the [`Listener`]; a server that ends answers
//! everything it owed with the reason and the last lines of its stderr.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::super::bridge;
use super::super::launch;
use super::super::stdio::{self, ServerEnd, lock};
use crate::net::mcp::{Target, era};
use crate::net::oauth::session::OAuth;
use crate::net::version::{V2025_11_25, V2026_07_28};
use crate::util::lines::{self, Capped};

/// The prefix of every id the gateway makes itself: a client's id with it is renamed.
pub const OWN_ID: &str = "mcpguard-gw:";

/// How many of a server's last stderr lines an error shows.
const STDERR_LINES: usize = 5;
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(300);

/// Where a server's traffic that is not the gateway's own goes.
pub trait Listener: Send + Sync {
    /// A line from server `index` that answers no request of the gateway's or the client's
    /// (a notification, a request of the server's, a stray).
    fn line(&self, index: usize, line: &[u8]);
    /// Server `index`'s answer to the client's request `waiter`, under the id it was sent
    /// with (`id`, canonical JSON text).
    fn answer(&self, index: usize, line: &[u8], waiter: Waiter, id: &str);
    /// A line over the size cap; its head, and the waiter of its id if it had one.
    fn too_long(&self, index: usize, waiter: Option<Waiter>);
    /// The server ended: these were still waiting.
    fn ended(&self, index: usize, conn: &Arc<Conn>, why: &str, owed: Vec<Waiter>);
}

/// A request of the client's, sent on to a server.
#[derive(Clone, Debug)]
pub struct Waiter {
    /// The id as the client wrote it.
    pub client_id: String,
    pub method: String,
    /// The name the client used (a tool's or prompt's exposed name, a URI).
    pub label: String,
    /// Whether the client's request declared 2026-07-28.
    pub modern: bool,
    pub since: Instant,
}

impl Waiter {
    /// A client's request waiting from now.
    pub fn new(client_id: String, method: &str, label: String, modern: bool) -> Waiter {
        Waiter {
            client_id,
            method: method.to_owned(),
            label,
            modern,
            since: Instant::now(),
        }
    }
}

enum Pending {
    /// The gateway's own request: its result as the server wrote it, or the error's message.
    Own(mpsc::Sender<Result<Box<RawValue>, String>>),
    Client(Waiter),
}

/// How to reach and run the servers.
pub struct Launch {
    pub timeout: Duration,
    pub max_message_bytes: usize,
    /// A stored login for remote servers (never a browser: a lazily started server has no
    /// user in front of it).
    pub oauth: Option<Arc<dyn Fn() -> Option<OAuth> + Send + Sync>>,
    /// What the client said of itself at initialize: its capabilities and clientInfo.
    pub client: Mutex<(Value, Value)>,
    /// Where the servers' stderr goes.
    pub stderr: StderrSink,
}

/// A running server.
pub struct Conn {
    input: Mutex<Option<Box<dyn Write + Send>>>,
    pending: Mutex<HashMap<String, Pending>>,
    /// Speaks only 2026-07-28: every request carries the era's `_meta`.
    modern: AtomicBool,
    /// What the server said it can do, once it is open.
    capabilities: Mutex<Value>,
    next_id: AtomicU64,
    last_used: Mutex<Instant>,
    gone: AtomicBool,
    ended: Mutex<Option<EndWait>>,
}

/// Why a server could not be opened.
enum NotOpened {
    /// It answered, refusing: the other era may do.
    Refused(String),
    /// It could not start, ended, or said nothing: another try would fare no better.
    Failed(String),
}

/// A server end's wait for its process (see [`ServerEnd::ended`]).
type EndWait = Box<dyn FnMut(Duration) -> Option<Option<i32>> + Send>;

/// Where a server's stderr lines go: its key and the line.
pub type StderrSink = Arc<dyn Fn(&str, &str) + Send + Sync>;

enum Life {
    Stopped,
    Running(Arc<Conn>),
    Failed {
        why: String,
        retry_at: Instant,
        backoff: Duration,
    },
}

/// A server of the config, whether running or not.
pub struct Upstream {
    pub index: usize,
    pub key: String,
    /// The key as every exposed name of this server begins (`SERVER__`).
    pub part: String,
    pub target: Target,
    /// Where its catalog is kept between runs, when a cache is.
    pub cache_file: Option<std::path::PathBuf>,
    life: Mutex<Life>,
    /// One start at a time: callers that arrive meanwhile wait for its outcome.
    starting: Mutex<()>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    pub starts: AtomicU64,
}

impl Upstream {
    pub fn new(
        index: usize,
        key: String,
        target: Target,
        cache_file: Option<std::path::PathBuf>,
    ) -> Upstream {
        Upstream {
            index,
            part: super::super::names::server_part(&key),
            key,
            target,
            cache_file,
            life: Mutex::new(Life::Stopped),
            starting: Mutex::new(()),
            stderr: Default::default(),
            starts: AtomicU64::new(0),
        }
    }

    /// The running connection, if the server is up.
    pub fn running(&self) -> Option<Arc<Conn>> {
        match &*lock(&self.life) {
            Life::Running(c) if !c.gone.load(Ordering::SeqCst) => Some(c.clone()),
            _ => None,
        }
    }

    /// Whether a start failed and the backoff has not passed yet.
    pub fn waiting(&self) -> bool {
        matches!(&*lock(&self.life), Life::Failed { retry_at, .. } if Instant::now() < *retry_at)
    }

    /// What the status shows: running, stopped, or the last failure.
    pub fn state(&self) -> (String, Option<String>) {
        match &*lock(&self.life) {
            Life::Running(c) if !c.gone.load(Ordering::SeqCst) => ("running".into(), None),
            Life::Failed { why, .. } => ("failed".into(), Some(why.clone())),
            _ => ("stopped".into(), None),
        }
    }

    /// The connection, started if it is not; the reason when it cannot be (now, or in the
    /// backoff after a failure).
    pub fn connect(
        &self,
        launch: &Launch,
        listener: &Arc<dyn Listener>,
    ) -> Result<Arc<Conn>, String> {
        if let Some(c) = self.running() {
            return Ok(c);
        }
        let _one = lock(&self.starting);
        if let Some(c) = self.running() {
            return Ok(c);
        }
        let backoff = match &*lock(&self.life) {
            Life::Failed {
                why,
                retry_at,
                backoff,
            } => {
                if Instant::now() < *retry_at {
                    let wait = retry_at.saturating_duration_since(Instant::now());
                    return Err(format!(
                        "{why} (tried again on a use after {} s)",
                        wait.as_secs().max(1)
                    ));
                }
                (*backoff * 2).min(MAX_BACKOFF)
            }
            _ => FIRST_BACKOFF,
        };
        self.starts.fetch_add(1, Ordering::SeqCst);
        match self.start(launch, listener) {
            Ok(conn) => {
                *lock(&self.life) = Life::Running(conn.clone());
                Ok(conn)
            }
            Err(why) => {
                let why = self.with_stderr(&why);
                *lock(&self.life) = Life::Failed {
                    why: why.clone(),
                    retry_at: Instant::now() + backoff,
                    backoff,
                };
                Err(why)
            }
        }
    }

    /// `why` with the last lines the server wrote to stderr, when it wrote any.
    pub fn with_stderr(&self, why: &str) -> String {
        let tail = lock(&self.stderr);
        if tail.is_empty() {
            return why.to_owned();
        }
        let lines: Vec<&str> = tail.iter().map(String::as_str).collect();
        format!("{why}; its stderr ended with: {}", lines.join(" | "))
    }

    /// Marks the server failed when `conn`, its running connection, ended on its own. False
    /// when the gateway ended it.
    pub fn ended(&self, conn: &Arc<Conn>, why: &str) -> bool {
        let mut life = lock(&self.life);
        match &*life {
            Life::Running(c) if Arc::ptr_eq(c, conn) => {
                // It ran: the next use starts it again at once; a start that fails then
                // waits the backoff.
                *life = Life::Failed {
                    why: why.to_owned(),
                    retry_at: Instant::now(),
                    backoff: FIRST_BACKOFF / 2,
                };
                true
            }
            _ => false,
        }
    }

    /// Ends the server if it has been idle for `idle` with nothing in flight.
    pub fn stop_if_idle(&self, idle: Duration) -> bool {
        let conn = {
            let mut life = lock(&self.life);
            let Life::Running(c) = &*life else {
                return false;
            };
            if !lock(&c.pending).is_empty() || lock(&c.last_used).elapsed() < idle {
                return false;
            }
            let c = c.clone();
            *life = Life::Stopped;
            c
        };
        conn.stop();
        true
    }

    /// Ends the server, whatever it is doing.
    pub fn stop(&self) {
        let life = std::mem::replace(&mut *lock(&self.life), Life::Stopped);
        if let Life::Running(c) = life {
            c.stop();
        }
    }

    /// Starts the server and opens it: `initialize` first (a dual-era server then keeps a
    /// session, in which it may ask the client things); a server that refuses it is started
    /// anew and asked `server/discover` (a 2026-07-28 server over stdio may stop answering
    /// after a refused initialize).
    fn start(&self, launch: &Launch, listener: &Arc<dyn Listener>) -> Result<Arc<Conn>, String> {
        let why = |n: NotOpened| match n {
            NotOpened::Refused(why) | NotOpened::Failed(why) => why,
        };
        match self.open(launch, listener, false) {
            Err(NotOpened::Refused(legacy)) => self.open(launch, listener, true).map_err(|n| {
                format!(
                    "initialize failed ({legacy}), and server/discover: {}",
                    why(n)
                )
            }),
            opened => opened.map_err(why),
        }
    }

    fn open(
        &self,
        launch: &Launch,
        listener: &Arc<dyn Listener>,
        modern: bool,
    ) -> Result<Arc<Conn>, NotOpened> {
        lock(&self.stderr).clear();
        let end = match &self.target {
            Target::Stdio { command, env, .. } => {
                let mut process = launch::server_process(command, env)
                    .ok_or_else(|| NotOpened::Failed("its command is empty".to_owned()))?;
                process.stderr(std::process::Stdio::piped());
                let (end, stderr) = stdio::child_end(process).map_err(|e| {
                    let hint = if e.kind() == std::io::ErrorKind::NotFound {
                        " (is it installed and on PATH?)"
                    } else {
                        ""
                    };
                    NotOpened::Failed(format!(
                        "cannot start `{}`: {e}{hint}",
                        self.target.describe()
                    ))
                })?;
                if let Some(stderr) = stderr {
                    self.keep_stderr(stderr, launch.stderr.clone());
                }
                end
            }
            Target::Http { url, headers, .. } => bridge::start(bridge::Options {
                url: url.clone(),
                headers: headers.clone(),
                timeout: launch.timeout,
                max_message_bytes: launch.max_message_bytes,
                oauth: launch.oauth.as_ref().and_then(|make| make()),
            })
            .map_err(|e| NotOpened::Failed(format!("cannot reach {url}: {e}")))?,
        };
        let ServerEnd {
            input,
            output,
            ended,
        } = end;
        let conn = Arc::new(Conn {
            input: Mutex::new(Some(input)),
            pending: Mutex::new(HashMap::new()),
            modern: AtomicBool::new(false),
            capabilities: Mutex::new(Value::Null),
            next_id: AtomicU64::new(1),
            last_used: Mutex::new(Instant::now()),
            gone: AtomicBool::new(false),
            ended: Mutex::new(Some(ended)),
        });
        spawn_reader(
            self.index,
            output,
            launch.max_message_bytes,
            conn.clone(),
            listener.clone(),
        );
        if modern {
            let discovered = conn.request(
                "server/discover",
                era::with_request_meta(json!({})),
                launch.timeout,
            );
            let discovered = discovered.map(|d| parsed(&d));
            return match discovered {
                Ok(d)
                    if d["supportedVersions"]
                        .as_array()
                        .is_some_and(|v| v.iter().any(|v| v == V2026_07_28)) =>
                {
                    conn.modern.store(true, Ordering::SeqCst);
                    *lock(&conn.capabilities) = d.get("capabilities").cloned().unwrap_or_default();
                    Ok(conn)
                }
                Ok(_) => {
                    conn.stop();
                    Err(NotOpened::Refused("it does not list 2026-07-28".into()))
                }
                Err(why) => {
                    conn.stop();
                    Err(NotOpened::Failed(why))
                }
            };
        }
        let (capabilities, info) = lock(&launch.client).clone();
        let opened = conn.request(
            "initialize",
            json!({"protocolVersion": V2025_11_25, "capabilities": capabilities,
                   "clientInfo": if info.is_null() { json!({"name": "mcpguard", "version": env!("CARGO_PKG_VERSION")}) } else { info }}),
            launch.timeout,
        );
        match opened {
            Ok(result) => {
                conn.notify("notifications/initialized", json!({}));
                *lock(&conn.capabilities) = parsed(&result)
                    .get("capabilities")
                    .cloned()
                    .unwrap_or_default();
                Ok(conn)
            }
            Err(why) => {
                let gone = conn.gone.load(Ordering::SeqCst);
                conn.stop();
                if gone || why.starts_with("no answer") {
                    return Err(NotOpened::Failed(format!("{why} (while opening)")));
                }
                Err(NotOpened::Refused(why))
            }
        }
    }

    /// Hands the server's stderr to `sink` a line at a time, and keeps the last few for
    /// errors.
    fn keep_stderr(&self, stderr: std::process::ChildStderr, sink: StderrSink) {
        let tail = self.stderr.clone();
        let key = self.key.clone();
        std::thread::spawn(move || {
            let reader = BufReader::new(stderr);
            for line in reader.split(b'\n') {
                let Ok(line) = line else { break };
                let text = String::from_utf8_lossy(&line);
                let text = text.trim_end();
                sink(&key, text);
                let mut tail = lock(&tail);
                if tail.len() == STDERR_LINES {
                    tail.pop_front();
                }
                tail.push_back(text.chars().take(300).collect());
            }
        });
    }
}

impl Conn {
    /// Whether the server speaks only 2026-07-28.
    pub fn is_modern(&self) -> bool {
        self.modern.load(Ordering::SeqCst)
    }

    /// Whether the server said it has this capability (`tools`, `prompts`, `resources`).
    pub fn can(&self, capability: &str) -> bool {
        lock(&self.capabilities).get(capability).is_some()
    }

    /// Sends one of the gateway's own requests and waits for its result as the server wrote
    /// it (or the error's message) up to `timeout`.
    pub fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Box<RawValue>, String> {
        let id = format!("{OWN_ID}{}", self.next_id.fetch_add(1, Ordering::SeqCst));
        let key = Value::from(id.as_str()).to_string();
        let (tx, rx) = mpsc::channel();
        lock(&self.pending).insert(key.clone(), Pending::Own(tx));
        let params = if self.is_modern() {
            era::with_request_meta(params)
        } else {
            params
        };
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if !self.write(&line.to_string().into_bytes()) {
            lock(&self.pending).remove(&key);
            return Err("its input is closed".into());
        }
        match rx.recv_timeout(timeout) {
            Ok(answer) => answer,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                lock(&self.pending).remove(&key);
                Err(format!(
                    "no answer to {method} within {} s",
                    timeout.as_secs_f64()
                ))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err("it ended".into()),
        }
    }

    /// Sends a notification of the gateway's own.
    pub fn notify(&self, method: &str, params: Value) {
        let line = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.write(&line.to_string().into_bytes());
    }

    /// Sends a request of the gateway's own whose answer nobody waits for.
    pub fn send_unanswered(&self, method: &str, params: Value) {
        let params = if self.is_modern() {
            era::with_request_meta(params)
        } else {
            params
        };
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":{},\"params\":{params}}}",
            self.own_id(),
            Value::from(method)
        );
        self.write(line.as_bytes());
    }

    /// Sends a client's request (its line already made for this server) and remembers who
    /// waits for the answer, under `id_key` (the id in the line, canonical).
    pub fn forward(&self, id_key: String, line: &[u8], waiter: Waiter) -> bool {
        lock(&self.pending).insert(id_key.clone(), Pending::Client(waiter));
        *lock(&self.last_used) = Instant::now();
        if self.write(line) {
            return true;
        }
        lock(&self.pending).remove(&id_key);
        false
    }

    /// Sends a line as it is (an answer to the server's own request, a notification).
    pub fn write(&self, line: &[u8]) -> bool {
        let mut input = lock(&self.input);
        let Some(out) = input.as_mut() else {
            return false;
        };
        // One write, newline included (a line in two writes can wake the server twice).
        let ok = if line.last() == Some(&b'\n') {
            out.write_all(line).is_ok()
        } else {
            let mut whole = Vec::with_capacity(line.len() + 1);
            whole.extend_from_slice(line);
            whole.push(b'\n');
            out.write_all(&whole).is_ok()
        } && out.flush().is_ok();
        if !ok {
            input.take();
        }
        ok
    }

    /// A fresh id for a request of the gateway's own, as it goes in a line.
    pub fn own_id(&self) -> String {
        Value::from(format!(
            "{OWN_ID}{}",
            self.next_id.fetch_add(1, Ordering::SeqCst)
        ))
        .to_string()
    }

    /// The client requests waiting longer than `timeout`, taken out.
    pub fn overdue(&self, timeout: Duration) -> Vec<(String, Waiter)> {
        let mut pending = lock(&self.pending);
        let late: Vec<String> = pending
            .iter()
            .filter_map(|(k, p)| match p {
                Pending::Client(w) if w.since.elapsed() >= timeout => Some(k.clone()),
                _ => None,
            })
            .collect();
        late.into_iter()
            .filter_map(|k| match pending.remove(&k) {
                Some(Pending::Client(w)) => Some((k, w)),
                _ => None,
            })
            .collect()
    }

    /// The server's id for a client request still waiting, taken out (a cancellation).
    pub fn take_client(&self, client_id: &str) -> Option<String> {
        let mut pending = lock(&self.pending);
        let key = pending.iter().find_map(|(k, p)| match p {
            Pending::Client(w) if w.client_id == client_id => Some(k.clone()),
            _ => None,
        })?;
        pending.remove(&key);
        Some(key)
    }

    /// Closes the server's input (its signal to exit), then waits a grace period and kills it.
    pub fn stop(&self) {
        self.gone.store(true, Ordering::SeqCst);
        lock(&self.input).take();
        if let Some(mut ended) = lock(&self.ended).take() {
            std::thread::spawn(move || {
                ended(stdio::GRACE);
                drop(ended);
            });
        }
    }

    fn take(&self, key: &str) -> Option<Pending> {
        lock(&self.pending).remove(key)
    }
}

/// A small result (initialize's, discover's) as a tree.
fn parsed(result: &RawValue) -> Value {
    serde_json::from_str(result.get()).unwrap_or_default()
}

/// Reads a server's lines: the gateway's own answers are delivered here, the rest goes to the
/// listener; at the end, every waiter hears why.
fn spawn_reader(
    index: usize,
    output: Box<dyn std::io::Read + Send>,
    cap: usize,
    conn: Arc<Conn>,
    listener: Arc<dyn Listener>,
) {
    std::thread::spawn(move || {
        let mut reader = BufReader::with_capacity(1 << 16, output);
        let mut buf = Vec::new();
        let why = loop {
            match lines::read_capped(&mut reader, &mut buf, cap) {
                Ok(Capped::Line) if buf.iter().all(u8::is_ascii_whitespace) => {}
                Ok(Capped::Line) => deliver(index, &buf, &conn, &*listener),
                Ok(Capped::TooLong) => {
                    let waiter = super::super::policy::sniff_id(&buf)
                        .and_then(|id| conn.take(&id))
                        .and_then(|p| match p {
                            Pending::Client(w) => Some(w),
                            Pending::Own(tx) => {
                                let _ = tx.send(Err(format!("its answer was over {cap} bytes")));
                                None
                            }
                        });
                    listener.too_long(index, waiter);
                    buf.clear();
                    if lines::skip_line(&mut reader).is_err() {
                        break "its output failed".to_owned();
                    }
                }
                Ok(Capped::End) => break "it exited".to_owned(),
                Err(e) => break format!("its output failed: {e}"),
            }
        };
        conn.gone.store(true, Ordering::SeqCst);
        let owed: Vec<Waiter> = std::mem::take(&mut *lock(&conn.pending))
            .into_values()
            .filter_map(|p| match p {
                Pending::Client(w) => Some(w),
                Pending::Own(tx) => {
                    let _ = tx.send(Err(why.clone()));
                    None
                }
            })
            .collect();
        listener.ended(index, &conn, &why, owed);
    });
}

fn deliver(index: usize, line: &[u8], conn: &Arc<Conn>, listener: &dyn Listener) {
    let Some(envelope) = super::super::policy::parse(line) else {
        listener.line(index, line);
        return;
    };
    let is_answer = envelope.method.is_none() && envelope.id.is_some();
    if !is_answer {
        listener.line(index, line);
        return;
    }
    let key = super::super::policy::id_key(envelope.id.expect("checked above"));
    match conn.take(&key) {
        Some(Pending::Own(tx)) => {
            let answer = match (envelope.result, envelope.error) {
                (Some(r), _) => Ok(r.to_owned()),
                (None, Some(e)) => {
                    let e: Value = serde_json::from_str(e.get()).unwrap_or_default();
                    Err(format!(
                        "error {}: {}",
                        e["code"],
                        e["message"].as_str().unwrap_or("")
                    ))
                }
                (None, None) => Err("an answer with neither result nor error".into()),
            };
            let _ = tx.send(answer);
        }
        Some(Pending::Client(waiter)) => listener.answer(index, line, waiter, &key),
        None => listener.line(index, line),
    }
}
