//! A server that is a command, behind `proxy --listen` (DESIGN.md section 9): the children the
//! HTTP proxy starts, and the routing of their messages to the requests that wait for them.
//!
//! A 2025-11-25 client's `initialize` (a POST with no `Mcp-Session-Id`) starts a child of its
//! own. The session id is made here; every later POST, GET and DELETE of the session goes to
//! that child, which ends with DELETE, with its own exit, after [`SESSION_IDLE`] without a
//! request, when [`MAX_SESSIONS`] are open and it is the least recently used, or with the
//! proxy. A request without a session (a 2026-07-28 client: stateless,
//! each request whole) goes to one shared child, started on first use and again after it
//! exits. On the shared child the ids are rewritten on the way in, so that two clients'
//! `"id": 1` never meet, and restored on the way out; a session's child sees its client's
//! bytes as they are.
//!
//! Each child has one task reading its stdout, a line at a time under the message cap. A
//! response goes to the request waiting for its id; a progress notification to the request
//! that carries its token; a notification tagged with a subscription to the
//! `subscriptions/listen` request it names (with the client's id put back); any other message
//! of the server's (a log line, a request for roots or sampling) to the session's newest
//! request while one waits, else to its GET stream when one is open. On the shared child such
//! a message goes to the only request waiting, or, when
//! several wait and nobody can say whose it is, it is logged and dropped. When the child
//! exits, every request waiting on it hears so at once.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;

use super::super::policy::{self, Level, Log, Policy, SERVER_ERROR};
use super::exchange::{self, BAD_GATEWAY, GATEWAY_TIMEOUT};
use super::{App, lock};
use crate::util::lines::{self, Capped, Taken};

/// How long a session's child lives without a request.
pub const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);

/// Sessions (children) at once; a new one beyond ends the least recently used (many clients
/// never send DELETE).
pub const MAX_SESSIONS: usize = 256;

/// How long a child gets to exit after its stdin is closed, as on stdio.
const GRACE: Duration = super::super::stdio::GRACE;

use super::headers::SESSION as SESSION_HEADER;

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
struct Waiter {
    /// The id as the client wrote it.
    client_id: String,
    progress_token: Option<Value>,
    tx: mpsc::Sender<FromChild>,
    order: u64,
}

#[derive(Default)]
struct Routes {
    /// By the id the child sees, in canonical form.
    waiters: HashMap<String, Waiter>,
    /// The session's GET stream, its events.
    stream: Option<mpsc::Sender<Bytes>>,
    /// Why the child is gone, once it is.
    gone: Option<String>,
}

/// One running server.
pub(super) struct Child {
    /// `session 3f2a…` or `shared`, for the log.
    label: String,
    session: Option<String>,
    /// The credential scope that started the session: another one cannot use it.
    scope: String,
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    routes: Mutex<Routes>,
    next_id: AtomicU64,
    last_used: Mutex<Instant>,
    /// Set once the proxy asked it to exit: its exit is news then, not a warning.
    ending: std::sync::atomic::AtomicBool,
    kill: Notify,
}

/// The subscription a notification belongs to (2026-07-28, basic/patterns/subscriptions):
/// `params._meta["io.modelcontextprotocol/subscriptionId"]`, the id of the
/// `subscriptions/listen` request, borrowed from the line so it can be put back.
#[derive(Deserialize)]
struct SubscriptionParams<'a> {
    #[serde(borrow, rename = "_meta")]
    meta: Option<SubscriptionMeta<'a>>,
}

#[derive(Deserialize)]
struct SubscriptionMeta<'a> {
    #[serde(borrow, rename = "io.modelcontextprotocol/subscriptionId")]
    id: Option<&'a RawValue>,
}

/// Requests whose stream lives as long as the client listens: no `--timeout`, no place
/// among the requests in flight.
const LONG_LIVED: [&str; 1] = ["subscriptions/listen"];

#[derive(Deserialize)]
struct ProgressParams {
    #[serde(rename = "progressToken")]
    token: Value,
}

/// `line` with its id (`span`, borrowed from it) replaced by `id`.
fn with_id(line: &[u8], span: &RawValue, id: &str) -> Vec<u8> {
    let start = (span.get().as_ptr() as usize).saturating_sub(line.as_ptr() as usize);
    let end = start + span.get().len();
    debug_assert!(end <= line.len(), "the id is borrowed from the line");
    [&line[..start], id.as_bytes(), &line[end..]].concat()
}

impl Child {
    fn shared(&self) -> bool {
        self.session.is_none()
    }

    /// Sends the client's request and returns where its answer will come: the key the child
    /// knows it by, and the channel.
    async fn request(
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
    async fn write(&self, bytes: &[u8]) -> Result<(), String> {
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
    async fn forget(&self, key: &str, reason: &str) {
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
    fn why_gone(&self) -> String {
        lock(&self.routes)
            .gone
            .clone()
            .unwrap_or_else(|| "the server stopped before answering".to_owned())
    }

    /// The session's GET stream (where its events go), replacing the one before.
    fn open_stream(&self, events: mpsc::Sender<Bytes>) {
        let mut routes = lock(&self.routes);
        if routes.gone.is_none() {
            routes.stream = Some(events);
        }
    }

    /// Closes the child's stdin (the stdio transport's way to ask a server to exit) and kills
    /// it if it is still there after the grace period.
    fn end(self: &Arc<Self>) {
        self.ending.store(true, Ordering::SeqCst);
        let child = self.clone();
        tokio::spawn(async move {
            child.stdin.lock().await.take();
            tokio::time::sleep(GRACE).await;
            child.kill.notify_one();
        });
    }

    /// Where a message of the child's goes.
    async fn route(&self, app: &App, line: &[u8]) {
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
    async fn along(&self, app: &App, method: Option<&str>, params: Option<&RawValue>, line: &[u8]) {
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
            exchange::push_event(&mut event, None, line);
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
    fn subscription_route(
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
    async fn too_long(&self, head: &[u8]) {
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
    fn close(&self, why: String) {
        let mut routes = lock(&self.routes);
        routes.gone = Some(why);
        routes.waiters.clear();
        routes.stream = None;
    }
}

/// The children of one proxy.
pub(super) struct Children {
    command: Vec<String>,
    env: BTreeMap<String, String>,
    shown: String,
    shared: tokio::sync::Mutex<Option<Arc<Child>>>,
    sessions: Mutex<HashMap<String, Arc<Child>>>,
    /// Readers still running, so a stop can wait for every child to be reaped.
    running: Arc<()>,
}

impl Children {
    pub(super) fn new(
        command: Vec<String>,
        env: BTreeMap<String, String>,
        shown: String,
    ) -> Children {
        Children {
            command,
            env,
            shown,
            shared: tokio::sync::Mutex::new(None),
            sessions: Mutex::new(HashMap::new()),
            running: Arc::new(()),
        }
    }

    pub(super) fn shown(&self) -> &str {
        &self.shown
    }

    /// Whether the command can be found, so that a typo fails at the start and not at the
    /// first client's request.
    pub(super) fn check(&self) -> Result<(), String> {
        let Some(program) = self.command.first() else {
            return Err("the server's command is empty".to_owned());
        };
        let path = std::path::Path::new(program);
        let found = if path.components().count() > 1 {
            path.is_file()
        } else {
            std::env::var_os("PATH")
                .is_some_and(|dirs| std::env::split_paths(&dirs).any(|d| d.join(path).is_file()))
        };
        if found {
            Ok(())
        } else {
            Err(format!(
                "cannot start the server `{}`: `{program}` is not found; is it installed and on PATH?",
                self.shown
            ))
        }
    }

    fn session(&self, id: &str, scope: &str) -> Option<Arc<Child>> {
        lock(&self.sessions)
            .get(id)
            .filter(|c| c.scope == scope)
            .cloned()
    }

    /// The shared child, started when there is none.
    async fn shared(&self, app: &Arc<App>) -> Result<Arc<Child>, String> {
        let mut shared = self.shared.lock().await;
        if let Some(child) = shared.as_ref()
            && lock(&child.routes).gone.is_none()
        {
            return Ok(child.clone());
        }
        let child = self.start(app, None, String::new())?;
        *shared = Some(child.clone());
        Ok(child)
    }

    /// A new session and its child.
    fn start_session(&self, app: &Arc<App>, scope: &str) -> Result<(String, Arc<Child>), String> {
        let evicted = {
            let mut sessions = lock(&self.sessions);
            let oldest = (sessions.len() >= MAX_SESSIONS)
                .then(|| {
                    sessions
                        .iter()
                        .min_by_key(|(_, c)| *lock(&c.last_used))
                        .map(|(id, _)| id.clone())
                })
                .flatten();
            oldest.and_then(|id| sessions.remove(&id))
        };
        if let Some(child) = evicted {
            app.log(
                &Log::new(
                    Level::Info,
                    format!("{MAX_SESSIONS} sessions are open: the least recently used one ends to make room (its client starts a new one)"),
                )
                .with("server", child.label.clone()),
            );
            child.end();
        }
        // 128 random bits.
        let id = crate::util::random::random_hex(16)
            .map_err(|e| format!("cannot make a session id: /dev/urandom: {e}"))?;
        let child = self.start(app, Some(id.clone()), scope.to_owned())?;
        lock(&self.sessions).insert(id.clone(), child.clone());
        Ok((id, child))
    }

    fn end_session(&self, id: &str, scope: &str) -> bool {
        let mut sessions = lock(&self.sessions);
        if sessions.get(id).is_none_or(|c| c.scope != scope) {
            return false;
        }
        if let Some(child) = sessions.remove(id) {
            child.end();
        }
        true
    }

    /// Ends the sessions idle for longer than `idle`; returns how many.
    pub(super) fn end_idle(&self, idle: Duration) -> usize {
        let now = Instant::now();
        let mut sessions = lock(&self.sessions);
        let idle_ids: Vec<String> = sessions
            .iter()
            .filter(|(_, c)| now.duration_since(*lock(&c.last_used)) > idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &idle_ids {
            if let Some(child) = sessions.remove(id) {
                child.end();
            }
        }
        idle_ids.len()
    }

    /// Ends every child and waits up to twice the grace period for them to be reaped.
    pub(super) async fn end_all(&self) {
        let children: Vec<Arc<Child>> = lock(&self.sessions).drain().map(|(_, c)| c).collect();
        for c in children
            .iter()
            .chain(self.shared.lock().await.take().iter())
        {
            c.end();
        }
        let until = Instant::now() + 2 * GRACE;
        while Arc::strong_count(&self.running) > 1 && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Starts a child and its reader.
    fn start(
        &self,
        app: &Arc<App>,
        session: Option<String>,
        scope: String,
    ) -> Result<Arc<Child>, String> {
        let Some(command) = super::super::stdio::server_process(&self.command, &self.env) else {
            return Err("the server's command is empty".to_owned());
        };
        let mut process = tokio::process::Command::from(command)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                let hint = if e.kind() == std::io::ErrorKind::NotFound {
                    "; is it installed and on PATH?"
                } else {
                    ""
                };
                format!("cannot start the server `{}`: {e}{hint}", self.shown)
            })?;
        let (Some(stdin), Some(stdout)) = (process.stdin.take(), process.stdout.take()) else {
            return Err("the server's pipes could not be opened".to_owned());
        };
        let label = match &session {
            Some(id) => format!("session {}", &id[..8.min(id.len())]),
            None => "shared".to_owned(),
        };
        app.log(
            &Log::new(
                Level::Info,
                format!("started the server `{}` ({label})", self.shown),
            )
            .with("pid", process.id().unwrap_or(0)),
        );
        let child = Arc::new(Child {
            label,
            session,
            scope,
            stdin: tokio::sync::Mutex::new(Some(stdin)),
            routes: Mutex::new(Routes::default()),
            next_id: AtomicU64::new(1),
            last_used: Mutex::new(Instant::now()),
            ending: std::sync::atomic::AtomicBool::new(false),
            kill: Notify::new(),
        });
        tokio::spawn(read(
            app.clone(),
            child.clone(),
            process,
            stdout,
            self.running.clone(),
        ));
        Ok(child)
    }

    /// The child is gone: out of the session table or the shared place.
    async fn forget_child(&self, child: &Arc<Child>) {
        match &child.session {
            Some(id) => {
                let mut sessions = lock(&self.sessions);
                if sessions.get(id).is_some_and(|c| Arc::ptr_eq(c, child)) {
                    sessions.remove(id);
                }
            }
            None => {
                let mut shared = self.shared.lock().await;
                if shared.as_ref().is_some_and(|c| Arc::ptr_eq(c, child)) {
                    *shared = None;
                }
            }
        }
    }
}

/// Reads the child's stdout until it ends (or the child is killed), then reaps it and tells
/// everyone who waits.
async fn read(
    app: Arc<App>,
    child: Arc<Child>,
    mut process: tokio::process::Child,
    stdout: ChildStdout,
    _running: Arc<()>,
) {
    let cap = app.opts.max_response_bytes;
    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    let mut buf = Vec::new();
    let killed = loop {
        let read = tokio::select! {
            r = read_capped(&mut reader, &mut buf, cap) => r,
            () = child.kill.notified() => break true,
        };
        match read {
            Ok(Capped::Line) => child.route(&app, &buf).await,
            Ok(Capped::TooLong) => {
                app.log(
                    &Log::new(
                        Level::Error,
                        format!("the server wrote a message over the {cap}-byte cap (--max-message-bytes); skipped"),
                    )
                    .with("server", child.label.clone()),
                );
                child.too_long(&buf).await;
            }
            Ok(Capped::End) | Err(_) => break false,
        }
    };
    let status = if killed {
        None
    } else {
        tokio::time::timeout(GRACE, process.wait())
            .await
            .ok()
            .and_then(Result::ok)
    };
    let how = match status {
        Some(s) => match s.code() {
            Some(c) => format!("exited with status {c}"),
            None => "was killed by a signal".to_owned(),
        },
        None => {
            let _ = process.start_kill();
            let _ = process.wait().await;
            if killed {
                "was stopped".to_owned()
            } else {
                "closed its stdout and was stopped".to_owned()
            }
        }
    };
    child.close(format!("the server {how}"));
    if let Some(children) = app.children() {
        children.forget_child(&child).await;
    }
    let level = if child.ending.load(Ordering::SeqCst) {
        Level::Info
    } else {
        Level::Warn
    };
    app.log(
        &Log::new(
            level,
            format!(
                "the server `{}` ({}) {how}",
                app.children().map_or("", Children::shown),
                child.label
            ),
        )
        .with("server", child.label.clone()),
    );
}

/// [`crate::util::lines::read_capped`] on an async reader (its step, [`lines::take`], shared): one
/// line into the cleared `buf`, or `TooLong` with the line's head kept and the rest of it
/// skipped.
async fn read_capped(
    reader: &mut BufReader<ChildStdout>,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<Capped> {
    buf.clear();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if buf.is_empty() {
                Capped::End
            } else {
                Capped::Line
            });
        }
        match lines::take(buf, available, cap) {
            Taken::Part(used) => reader.consume(used),
            Taken::Line(used) => {
                reader.consume(used);
                return Ok(Capped::Line);
            }
            Taken::Over => break,
        }
    }
    // The rest of the line, not kept.
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(Capped::TooLong);
        }
        match memchr::memchr(b'\n', available) {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(Capped::TooLong);
            }
            None => {
                let n = available.len();
                reader.consume(n);
            }
        }
    }
}

/// The session a request names, if any.
fn session_of(head: &HeaderMap) -> Option<&str> {
    head.get(SESSION_HEADER).and_then(|v| v.to_str().ok())
}

/// A POST's message, through to a child and its answer back.
pub(super) async fn forward(
    app: Arc<App>,
    policy: Arc<Mutex<Policy>>,
    stream: u64,
    id: Option<Value>,
    (head, scope): (&HeaderMap, &str),
    message: &Value,
    bytes: Vec<u8>,
) -> Response {
    let Some(children) = app.children() else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let permit = match exchange::place(&app, &policy, stream, id.as_ref()).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let method = message.get("method").and_then(Value::as_str);
    let mut back = HeaderMap::new();
    let child = match (session_of(head), method) {
        (Some(session), _) => match children.session(session, scope) {
            Some(c) => c,
            None => {
                let why = "no such session (it ended, or the proxy restarted): start a new one with initialize".to_owned();
                return exchange::failed(
                    &app,
                    &policy,
                    stream,
                    id.as_ref(),
                    (StatusCode::NOT_FOUND, SERVER_ERROR, "session"),
                    why,
                )
                .await;
            }
        },
        (None, Some("initialize")) => match children.start_session(&app, scope) {
            Ok((session, c)) => {
                if let Ok(v) = HeaderValue::from_str(&session) {
                    back.insert(SESSION_HEADER, v);
                }
                c
            }
            Err(why) => {
                return exchange::failed(&app, &policy, stream, id.as_ref(), BAD_GATEWAY, why)
                    .await;
            }
        },
        (None, _) => match children.shared(&app).await {
            Ok(c) => c,
            Err(why) => {
                return exchange::failed(&app, &policy, stream, id.as_ref(), BAD_GATEWAY, why)
                    .await;
            }
        },
    };
    if id.is_none() || method.is_none() {
        // A notification, or the client's answer to a request of the server's.
        return match child.write(&bytes).await {
            Ok(()) => (StatusCode::ACCEPTED, back).into_response(),
            Err(why) => {
                exchange::failed(&app, &policy, stream, id.as_ref(), BAD_GATEWAY, why).await
            }
        };
    }
    let token = message.pointer("/params/_meta/progressToken").cloned();
    let (key, mut rx) = match child.request(&bytes, token).await {
        Ok(r) => r,
        Err(why) => {
            return exchange::failed(&app, &policy, stream, id.as_ref(), BAD_GATEWAY, why).await;
        }
    };
    // The first message of a long-lived request (a subscription's acknowledgement) must come
    // within --timeout like any answer; what follows has no deadline.
    let long_lived = method.is_some_and(|m| LONG_LIVED.contains(&m));
    let deadline = Instant::now() + app.opts.timeout;
    match tokio::time::timeout_at(deadline, rx.recv()).await {
        Err(_) => {
            child.forget(&key, "timeout").await;
            let why = exchange::timed_out(&app);
            exchange::failed(&app, &policy, stream, id.as_ref(), GATEWAY_TIMEOUT, why).await
        }
        Ok(None) => {
            let why = child.why_gone();
            exchange::failed(&app, &policy, stream, id.as_ref(), BAD_GATEWAY, why).await
        }
        Ok(Some(FromChild::TooLong)) => {
            let why = exchange::over_cap(app.opts.max_response_bytes);
            exchange::failed(&app, &policy, stream, id.as_ref(), BAD_GATEWAY, why).await
        }
        Ok(Some(FromChild::Answer(answer))) => {
            let sends = exchange::from_server(&app, &policy, stream, answer).await;
            if sends.client.is_empty() {
                let why = "the server's answer was not a JSON-RPC response to this request";
                return exchange::failed(
                    &app,
                    &policy,
                    stream,
                    id.as_ref(),
                    BAD_GATEWAY,
                    why.to_owned(),
                )
                .await;
            }
            // A stateless (2026-07-28) answer's status says what its error is, as the SDK's
            // HTTP transport would say it; a session's answers are always 200.
            let status = match (&child.session, sends.client.last()) {
                (None, Some(last)) => serde_json::from_slice::<Value>(last)
                    .map_or(StatusCode::OK, |v| super::gate::status_of_answer(&v)),
                _ => StatusCode::OK,
            };
            exchange::answer(status, back, sends.client)
        }
        Ok(Some(FromChild::Along(first))) => {
            // Messages before the answer: the answer becomes an event stream.
            let (tx, body) = exchange::event_body();
            tokio::spawn(relay(
                app,
                policy,
                stream,
                child,
                key,
                (first, rx),
                (!long_lived).then_some(deadline),
                tx,
                (!long_lived).then_some(permit),
            ));
            exchange::sse_response(back, body)
        }
    }
}

/// Sends what the child says for one request as events, until its answer, the deadline (none
/// for a long-lived request), or the client leaving (the child is then told to stop); holds
/// the request's place until then, when it has one.
#[allow(clippy::too_many_arguments)]
async fn relay(
    app: Arc<App>,
    policy: Arc<Mutex<Policy>>,
    stream: u64,
    child: Arc<Child>,
    key: String,
    (first, mut rx): (Vec<u8>, mpsc::Receiver<FromChild>),
    deadline: Option<Instant>,
    tx: mpsc::Sender<Bytes>,
    _permit: Option<tokio::sync::OwnedSemaphorePermit>,
) {
    let mut next = Some(FromChild::Along(first));
    let far = Instant::now() + Duration::from_secs(365 * 24 * 3600);
    loop {
        let wait = tokio::time::timeout_at(deadline.unwrap_or(far), rx.recv());
        let received = match next.take() {
            Some(m) => Ok(Some(m)),
            None => tokio::select! {
                r = wait => r,
                () = tx.closed() => {
                    child.forget(&key, "the client left").await;
                    let why = "the client left before the answer".to_owned();
                    exchange::forget(&app, &policy, stream, why).await;
                    return;
                }
            },
        };
        let message = match received {
            Err(_) => {
                child.forget(&key, "timeout").await;
                let end = (policy::TIMEOUT_ERROR, "timeout", exchange::timed_out(&app));
                return exchange::end_events(&app, &policy, stream, &tx, end).await;
            }
            Ok(None) => {
                let end = (SERVER_ERROR, "upstream", child.why_gone());
                return exchange::end_events(&app, &policy, stream, &tx, end).await;
            }
            Ok(Some(m)) => m,
        };
        let (data, last) = match message {
            FromChild::Along(d) => (d, false),
            FromChild::Answer(d) => (d, true),
            FromChild::TooLong => {
                let why = exchange::over_cap(app.opts.max_response_bytes);
                let end = (SERVER_ERROR, "upstream", why);
                return exchange::end_events(&app, &policy, stream, &tx, end).await;
            }
        };
        if exchange::send_event(&app, &policy, stream, data, None, &tx)
            .await
            .is_err()
        {
            child.forget(&key, "the client left").await;
            return;
        }
        if last {
            return;
        }
    }
}

/// GET and DELETE /mcp of a session: its stream of the server's own messages, and its end.
pub(super) async fn session_request(
    app: Arc<App>,
    method: axum::http::Method,
    head: HeaderMap,
) -> Response {
    let Some(children) = app.children() else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let scope = super::headers::scope(&head);
    let Some(session) = session_of(&head) else {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            "mcpguard proxy: GET and DELETE need an Mcp-Session-Id (a stateless request has no stream of its own)",
        )
            .into_response();
    };
    if method == axum::http::Method::DELETE {
        return if children.end_session(session, &scope) {
            StatusCode::OK.into_response()
        } else {
            StatusCode::NOT_FOUND.into_response()
        };
    }
    let Some(child) = children.session(session, &scope) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let (events, body) = exchange::event_body();
    child.open_stream(events);
    exchange::sse_response(HeaderMap::new(), body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_swapped_and_nothing_else_moves() {
        let line = br#"{"jsonrpc":"2.0","id": "a\"b" ,"result":{"id":7}}"#;
        let envelope = policy::parse(line).unwrap();
        let out = with_id(line, envelope.id.unwrap(), "42");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"jsonrpc":"2.0","id": 42 ,"result":{"id":7}}"#
        );
    }

    #[test]
    fn a_waiter_hears_the_answer_to_its_id_with_its_own_id_back() {
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
