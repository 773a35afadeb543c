//! `mcpguard proxy --listen`: the proxy as a Streamable HTTP service for many clients, in
//! front of an HTTP server or of a command speaking stdio (DESIGN.md section 9).
//!
//! Clients POST to `/mcp` in either era; each POST is an exchange ([`exchange`]): its message
//! goes through the same [`Policy`] as on stdio, on to the server with the client's headers,
//! and the server's answer (one JSON body or an event stream) comes back through the policy.
//! In front of an HTTP server, GET (a legacy session's stream) and DELETE (its end) are
//! relayed as they are: the session is the server's, so any instance can carry any session.
//! In front of a command, the proxy keeps the sessions: a child per session, one shared
//! child for stateless requests ([`child`]).
//!
//! One policy per credential scope ([`headers::scope`]): what it learns (tool schemas, calls
//! for the tiered catalog) and the artifacts it keeps belong to that credential alone, and a
//! reference made under one credential is refused under another. Cursors are signed with the
//! shared secret, artifacts kept in a shared store, so several instances serve one client.
//!
//! Limits keep it alive: a request body cap (413), a response cap, a bound on requests in
//! flight with a bounded queue behind it (503 beyond), a per-request timeout (504), and on
//! SIGTERM or Ctrl-C a graceful stop that finishes what is in flight within a bound.

mod child;
mod child_requests;
mod decide;
mod events;
mod exchange;
mod gate;
pub mod headers;
mod intake;
pub mod login;
mod pump;
mod respond;
mod serve;
mod sessions;
mod upstream;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;

use crate::config::Config;
use crate::reshape::cursor::Secrets;

use super::policy::{Effects, Level, Log, Policy, Route};
use super::stdio::{Event, Sinks};
use super::store::{Artifacts, DirStore, NoStore, Redis};

/// How to serve.
pub struct Options {
    pub listen: SocketAddr,
    pub metrics_listen: Option<SocketAddr>,
    /// Hosts answered besides a loopback listener's own names (`--allowed-host`).
    pub allowed_hosts: Vec<String>,
    pub upstream: Upstream,
    pub max_request_bytes: usize,
    pub max_response_bytes: usize,
    pub timeout: Duration,
    /// Requests to the server at once, and requests waiting for one of those places.
    pub max_concurrent: usize,
    pub queue: usize,
    /// How long a stop waits for the requests in flight.
    pub shutdown_grace: Duration,
    /// In front of a gateway: the status file its sessions write, which `/health` lists per
    /// server (state, tools, catalog cached when, last error).
    pub gateway_status: Option<std::path::PathBuf>,
}

/// The server the proxy stands in front of.
pub enum Upstream {
    /// A Streamable HTTP endpoint, and the headers sent to it on every request (`--header`),
    /// over the client's own.
    Http {
        url: String,
        headers: Vec<(String, String)>,
        /// With `--oauth`: the login the proxy holds for it ([`login`]).
        login: Option<std::sync::Arc<login::HeldLogin>>,
    },
    /// A command speaking stdio: a child per 2025-11-25 session, one shared child for
    /// stateless requests ([`child`]). `shown` is how the log names it (never a secret the
    /// environment put in it).
    Command {
        command: Vec<String>,
        env: std::collections::BTreeMap<String, String>,
        shown: String,
    },
}

impl Upstream {
    fn shown(&self) -> &str {
        match self {
            Upstream::Http { url, .. } => url,
            Upstream::Command { shown, .. } => shown,
        }
    }
}

/// Where the full results go.
pub enum StoreChoice {
    /// A directory, one subdirectory per credential scope.
    Dir {
        dir: PathBuf,
        ttl: Duration,
        cap: u64,
    },
    Redis(Arc<Redis>),
    Off,
}

impl StoreChoice {
    fn for_scope(&self, scope: &str) -> Box<dyn Artifacts + Send> {
        match self {
            StoreChoice::Dir { dir, ttl, cap } => {
                Box::new(DirStore::new(dir.join("scopes").join(scope), *ttl, *cap))
            }
            StoreChoice::Redis(r) => Box::new(r.scope(scope)),
            StoreChoice::Off => Box::new(NoStore),
        }
    }

    /// Whether the store can take artifacts now, and what it is.
    fn check(&self) -> (Result<(), String>, String) {
        match self {
            StoreChoice::Dir { dir, .. } => (
                crate::util::fsutil::create_private_dir_all(dir)
                    .map_err(|e| format!("{}: {e}", dir.display())),
                format!("directory {}", dir.display()),
            ),
            StoreChoice::Redis(r) => (r.ping(), format!("redis {}", r.shown())),
            StoreChoice::Off => (Ok(()), "off".to_owned()),
        }
    }
}

/// What every policy starts from.
pub struct Setup {
    pub config: Arc<Config>,
    pub secrets: Secrets,
    pub shadow: bool,
    pub accuracy_sample: f64,
    pub store: StoreChoice,
}

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("cannot listen on {addr}: {cause}{hint}")]
    Listen {
        addr: SocketAddr,
        cause: std::io::Error,
        hint: &'static str,
    },
    #[error("cannot start the proxy's runtime: {0}")]
    Runtime(std::io::Error),
    #[error("--url {url}: {why}")]
    Upstream { url: String, why: String },
    #[error("{0}")]
    Command(String),
}

/// Credential scopes kept at once; the least recently used goes first (its artifacts stay in
/// the store, its learned schemas are learned again).
const MAX_SCOPES: usize = 4096;

struct Scopes {
    policies: HashMap<String, (Arc<Mutex<Policy>>, u64)>,
    clock: u64,
}

/// What the handlers share.
pub(crate) struct App {
    opts: Options,
    setup: Setup,
    config: RwLock<Arc<Config>>,
    client: reqwest::Client,
    /// The running servers, when the upstream is a command.
    children: Option<sessions::Children>,
    /// The Host and Origin values answered (DNS-rebinding protection), when checked.
    hosts: Option<gate::Hosts>,
    metrics: super::metrics::Metrics,
    scopes: Mutex<Scopes>,
    next_stream: AtomicU64,
    permits: Arc<tokio::sync::Semaphore>,
    waiting: AtomicUsize,
    sinks: Mutex<Sinks>,
    stopping: AtomicBool,
}

pub(crate) fn lock<T: ?Sized>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What the policy said, sorted for a transport that answers each POST on its own response.
#[derive(Default)]
pub(crate) struct Sends {
    pub client: Vec<Vec<u8>>,
    pub server: Option<Vec<u8>>,
}

impl App {
    fn children(&self) -> Option<&sessions::Children> {
        self.children.as_ref()
    }

    /// The policy of a credential scope, made on first use.
    fn policy(&self, scope: &str) -> Arc<Mutex<Policy>> {
        let mut scopes = lock(&self.scopes);
        scopes.clock += 1;
        let now = scopes.clock;
        if let Some((p, used)) = scopes.policies.get_mut(scope) {
            *used = now;
            return p.clone();
        }
        if scopes.policies.len() >= MAX_SCOPES
            && let Some(oldest) = scopes
                .policies
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone())
        {
            scopes.policies.remove(&oldest);
        }
        let config = self
            .config
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let mut policy = Policy::new(
            config,
            self.setup.secrets.clone(),
            self.setup.store.for_scope(scope),
            self.setup.shadow,
        );
        policy.sample_accuracy(self.setup.accuracy_sample);
        let policy = Arc::new(Mutex::new(policy));
        scopes
            .policies
            .insert(scope.to_owned(), (policy.clone(), now));
        policy
    }

    /// Logs and records what the policy decided, counts it, and returns the messages.
    fn apply(&self, fx: Effects) -> Sends {
        for r in &fx.records {
            self.metrics.observe(r);
        }
        if !fx.logs.is_empty() || !fx.records.is_empty() {
            let mut sinks = lock(&self.sinks);
            for l in &fx.logs {
                (sinks.log)(l);
            }
            for r in &fx.records {
                (sinks.record)(r);
            }
        }
        let mut sends = Sends::default();
        for route in fx.sends {
            match route {
                Route::Client(bytes) => sends.client.push(bytes),
                Route::Server(bytes) => sends.server = Some(bytes),
            }
        }
        sends
    }

    fn log(&self, l: &Log) {
        (lock(&self.sinks).log)(l);
    }

    /// A new config for every policy, from the next request on.
    fn set_config(&self, config: Arc<Config>) {
        let old = std::mem::replace(
            &mut *self
                .config
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
            config.clone(),
        );
        let policies: Vec<_> = lock(&self.scopes)
            .policies
            .values()
            .map(|(p, _)| p.clone())
            .collect();
        for p in policies {
            lock(&p).set_config(config.clone());
        }
        for line in crate::config::describe(&crate::config::diff(&old, &config)) {
            self.log(&Log::new(Level::Info, line));
        }
    }
}

/// Serves until SIGTERM or Ctrl-C, then stops within `shutdown_grace`. `reloads` carries the
/// CLI's config reloads and notes.
pub fn run(
    setup: Setup,
    opts: Options,
    sinks: Sinks,
    reloads: std::sync::mpsc::Receiver<Event>,
) -> Result<(), HttpError> {
    // reqwest is built without a TLS provider of its own: ring, as rustls has it.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("mcpguard-proxy")
        .build()
        .map_err(HttpError::Runtime)?;
    runtime.block_on(serve(setup, opts, sinks, reloads))
}

async fn bind(addr: SocketAddr) -> Result<tokio::net::TcpListener, HttpError> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|cause| HttpError::Listen {
            addr,
            hint: if cause.kind() == std::io::ErrorKind::AddrInUse {
                "; another process has this port: pick another (--listen 127.0.0.1:0 takes a free one)"
            } else {
                ""
            },
            cause,
        })
}

async fn serve(
    setup: Setup,
    opts: Options,
    sinks: Sinks,
    reloads: std::sync::mpsc::Receiver<Event>,
) -> Result<(), HttpError> {
    super::policy::prepare_counters(&setup.config, setup.accuracy_sample > 0.0);
    let listener = bind(opts.listen).await?;
    let hosts = gate::Hosts::new(
        listener.local_addr().map_err(HttpError::Runtime)?,
        &opts.allowed_hosts,
    );
    let metrics_listener = match opts.metrics_listen {
        Some(addr) => Some(bind(addr).await?),
        None => None,
    };
    let children = match &opts.upstream {
        Upstream::Http { url, .. } => {
            let parsed = reqwest::Url::parse(url).map_err(|e| HttpError::Upstream {
                url: url.clone(),
                why: format!("not a URL ({e})"),
            })?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(HttpError::Upstream {
                    url: url.clone(),
                    why: "the server's URL must be http:// or https://".to_owned(),
                });
            }
            None
        }
        Upstream::Command {
            command,
            env,
            shown,
        } => {
            let children = sessions::Children::new(command.clone(), env.clone(), shown.clone());
            children.check().map_err(HttpError::Command)?;
            Some(children)
        }
    };
    let client = reqwest::Client::builder()
        .pool_idle_timeout(Duration::from_secs(30))
        .connect_timeout(opts.timeout.min(Duration::from_secs(10)))
        .build()
        .map_err(|e| HttpError::Upstream {
            url: opts.upstream.shown().to_owned(),
            why: e.to_string(),
        })?;
    let app = Arc::new(App {
        children,
        hosts,
        config: RwLock::new(setup.config.clone()),
        permits: Arc::new(tokio::sync::Semaphore::new(opts.max_concurrent.max(1))),
        opts,
        setup,
        client,
        metrics: super::metrics::Metrics::new(),
        scopes: Mutex::new(Scopes {
            policies: HashMap::new(),
            clock: 0,
        }),
        next_stream: AtomicU64::new(1),
        waiting: AtomicUsize::new(0),
        sinks: Mutex::new(sinks),
        stopping: AtomicBool::new(false),
    });
    {
        let app = app.clone();
        std::thread::spawn(move || {
            while let Ok(event) = reloads.recv() {
                match event {
                    Event::Reload(config) => {
                        // New counters are built here, not under a request.
                        super::policy::prepare_counters(&config, app.setup.accuracy_sample > 0.0);
                        app.set_config(config);
                    }
                    Event::Note(l) => app.log(&l),
                    _ => {}
                }
            }
        });
    }
    let mcp = Router::new()
        .route(
            "/mcp",
            post(post_mcp)
                .get(get_or_delete_mcp)
                .delete(get_or_delete_mcp)
                .layer(axum::middleware::from_fn_with_state(app.clone(), guard)),
        )
        .route(
            "/health",
            get(health).layer(axum::middleware::from_fn_with_state(app.clone(), guard)),
        )
        .with_state(app.clone());
    let local = listener.local_addr().map_err(HttpError::Runtime)?;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let server = tokio::spawn(serve::serve(listener, mcp, stopped.clone()));
    let mut shown_metrics = String::new();
    if let Some(l) = metrics_listener {
        let addr = l.local_addr().map_err(HttpError::Runtime)?;
        shown_metrics = format!("; metrics at http://{addr}/metrics");
        let hosts = gate::Hosts::new(addr, &app.opts.allowed_hosts);
        let routes = Router::new()
            .route("/metrics", get(metrics))
            .route("/health", get(health))
            .with_state(app.clone())
            .layer(axum::middleware::from_fn_with_state(hosts, guard_metrics));
        tokio::spawn(serve::serve(l, routes, stopped.clone()));
    }
    let (store_ok, store_shown) = app.setup.store.check();
    // Marked so that `--quiet` still prints it: with port 0 it is the only way to the port.
    app.log(&Log::new(
        Level::Info,
        format!(
            "listening on http://{local}/mcp, proxying {}; results over {} tokens are shrunk; artifacts: {store_shown}{shown_metrics}",
            app.opts.upstream.shown(),
            app.setup.config.token_budget_threshold
        ),
    ).with("event", "listening"));
    if let Err(why) = store_ok {
        app.log(&Log::new(
            Level::Warn,
            format!("the artifact store is not available ({why}); shrunk results go out without a reference until it is"),
        ));
    }
    if app.children.is_some() {
        let app = app.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                let ended = app
                    .children()
                    .map_or(0, |c| c.end_idle(sessions::SESSION_IDLE));
                if ended > 0 {
                    app.log(&Log::new(
                        Level::Info,
                        format!(
                            "ended {ended} session(s) idle for {} min, and their servers",
                            sessions::SESSION_IDLE.as_secs() / 60
                        ),
                    ));
                }
            }
        });
    }
    let signal = stop_signal().await;
    app.stopping.store(true, Ordering::SeqCst);
    let in_flight = app.metrics.summary()["inFlight"].as_i64().unwrap_or(0);
    app.log(&Log::new(
        Level::Info,
        format!(
            "{signal}: taking no new requests; finishing the {in_flight} in flight (at most {} s, --shutdown-grace)",
            app.opts.shutdown_grace.as_secs_f64()
        ),
    ));
    let _ = stop.send(true);
    match tokio::time::timeout(app.opts.shutdown_grace, server).await {
        Ok(_) => app.log(&Log::new(
            Level::Info,
            "stopped: every request was answered",
        )),
        Err(_) => app.log(&Log::new(
            Level::Warn,
            format!(
                "stopped after {} s with connections still open (streams, slow requests)",
                app.opts.shutdown_grace.as_secs_f64()
            ),
        )),
    }
    // No server outlives the proxy: each is asked to exit (stdin closed), then killed.
    if let Some(children) = app.children() {
        children.end_all().await;
    }
    Ok(())
}

/// What the listener asks of the server it fronts, whichever it is: a server over HTTP
/// ([`exchange::HttpEnd`]) or the children it starts ([`child_requests::CommandEnd`]).
trait ServerEnd {
    /// A POST's admitted message, sent on; the answer (a JSON body or an event stream) relayed
    /// back as the policy decides.
    fn post(
        app: Arc<App>,
        admitted: intake::Admitted,
        bytes: Vec<u8>,
    ) -> impl Future<Output = Response> + Send;
    /// A session's GET (its stream of the server's own messages) or DELETE (its end).
    fn session(
        app: Arc<App>,
        method: axum::http::Method,
        head: HeaderMap,
    ) -> impl Future<Output = Response> + Send;
}

/// POST /mcp: admitted by the exchange (read, checked, decided by the policy), then on to the
/// server over HTTP or to a child, or answered by the policy itself.
async fn post_mcp(State(app): State<Arc<App>>, head: HeaderMap, body: Body) -> Response {
    let _counted = app.metrics.enter();
    let mut a = match intake::admit(&app, head, body).await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    match (a.sends.server.take(), &app.opts.upstream) {
        (Some(bytes), Upstream::Http { .. }) => {
            exchange::HttpEnd::post(app.clone(), a, bytes).await
        }
        (Some(bytes), Upstream::Command { .. }) => {
            child_requests::CommandEnd::post(app.clone(), a, bytes).await
        }
        (None, _) => respond::answer(StatusCode::OK, HeaderMap::new(), a.sends.client),
    }
}

/// GET and DELETE /mcp: a legacy session's stream and its end, the server's (relayed) or a
/// child's.
async fn get_or_delete_mcp(
    State(app): State<Arc<App>>,
    method: axum::http::Method,
    head: HeaderMap,
) -> Response {
    match app.opts.upstream {
        Upstream::Http { .. } => exchange::HttpEnd::session(app, method, head).await,
        Upstream::Command { .. } => child_requests::CommandEnd::session(app, method, head).await,
    }
}

/// Every request to /mcp: refused before anything else when its Host or Origin is not one the
/// listener answers ([`gate::Hosts`]).
async fn guard(
    State(app): State<Arc<App>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if let Some(hosts) = &app.hosts
        && let Err(refusal) = hosts.check(
            request.headers(),
            request.uri().authority().map(|a| a.as_str()),
        )
    {
        app.metrics.refused("host");
        return respond::refused(refusal, None);
    }
    next.run(request).await
}

/// The metrics listener's routes, refused as [`guard`] refuses them for the names of its own
/// address: `/health` and `/metrics` tell the upstream, the store and the counters.
async fn guard_metrics(
    State(hosts): State<Option<gate::Hosts>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if let Some(hosts) = &hosts
        && let Err(refusal) = hosts.check(
            request.headers(),
            request.uri().authority().map(|a| a.as_str()),
        )
    {
        return respond::refused(refusal, None);
    }
    next.run(request).await
}

async fn stop_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            return tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = tokio::signal::ctrl_c() => "SIGINT",
            };
        }
    }
    let _ = tokio::signal::ctrl_c().await;
    "SIGINT"
}

/// `/health`: ready (200) or not (503: stopping, or the store cannot be reached), with the
/// figures `/metrics` has, and in front of a gateway each of its servers.
async fn health(State(app): State<Arc<App>>) -> Response {
    let checked = app.clone();
    let (store, shown) = tokio::task::spawn_blocking(move || checked.setup.store.check())
        .await
        .unwrap_or_else(|_| (Err("the check failed".to_owned()), String::new()));
    let stopping = app.stopping.load(Ordering::SeqCst);
    let why = if stopping {
        Some("stopping".to_owned())
    } else {
        store.as_ref().err().map(|e| format!("artifact store: {e}"))
    };
    let mut body = json!({
        "status": if why.is_none() { "ready" } else { "not-ready" },
        "upstream": app.opts.upstream.shown(),
        "store": shown,
    });
    if let Some(why) = &why {
        body["why"] = json!(why);
    }
    if let Some(file) = &app.opts.gateway_status {
        // As the last session wrote it; before any session, the servers have not started.
        let servers =
            crate::proxy::gateway::status::read(file).map_or_else(Vec::new, |s| s.servers);
        body["servers"] = json!(servers);
    }
    if let (Some(b), serde_json::Value::Object(figures)) =
        (body.as_object_mut(), app.metrics.summary())
    {
        b.extend(figures);
    }
    let status = if why.is_none() {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// `/metrics`: Prometheus text.
async fn metrics(State(app): State<Arc<App>>) -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        app.metrics.encode(),
    )
        .into_response()
}
