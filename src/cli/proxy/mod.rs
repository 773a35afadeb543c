//! `mcpguard proxy`: stands between an MCP client and a server and applies the contract to
//! the live traffic (DESIGN.md section 9). This file turns flags into the library's policy
//! and the stdio transport, prints the log, writes the telemetry and reloads the config;
//! [`listen`] does the same for `--listen` (Streamable HTTP, many clients). The decisions are
//! in `mcpguard::proxy`.

mod gateway;
mod listen;

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Context as _;

use mcpguard::net::mcp::{Target, config as servers};
use mcpguard::proxy::Policy;
use mcpguard::proxy::bridge;
use mcpguard::proxy::policy::{Level, Log, Record};
use mcpguard::proxy::stdio::{self, Ended, Event};
use mcpguard::proxy::store::{self, Artifacts, DirStore, NoStore};
use mcpguard::reshape::cursor::Secrets;

use super::exit::Code;

const AFTER_HELP: &str = "\
Put it where the client starts the server. In .mcp.json (Claude Code) or Claude Desktop's
config, instead of {\"command\": \"npx\", \"args\": [\"-y\", \"some-mcp-server\"]}:

  {\"command\": \"mcpguard\", \"args\": [\"proxy\", \"--\", \"npx\", \"-y\", \"some-mcp-server\"]}

What it does: every message passes byte for byte, except a tools/call result over its tool's
token budget (tokenBudgetThreshold, per tool under endpoints:) or the contract's limits. That
one comes back as the first page of its list, the first chunk of its text, or a summary, with
the full result stored (ax://DOMAIN/ID) and a line saying how to read on: the proxy adds one
tool, mcpguard_more, that returns the next page or chunk (cursor), fields or sections in full
(ref + fields), a line range (ref + lines), or what it is asked to find: the entries of the text
that match a regular expression, whole (ref + match, context), the records that pass a filter
(ref + where, order_by: paginate --where's language) or figures of them (ref + aggregate,
group_by), each within the budget. The server never sees it.

The config file is watched: a saved change applies to the next request, and a bad file keeps
the last good config (the log says why). Every decision is logged to stderr; --metrics writes a
record per request (JSON lines). --shadow changes nothing and logs what would have been done.

Cursors are signed with MCPGUARD_CURSOR_SECRET (or --secret-file), else a random secret for this
process: cursors then last as long as the process.

In front of a remote server (Streamable HTTP, either era), for a client that starts commands:

  {\"command\": \"mcpguard\", \"args\": [\"proxy\", \"--url\", \"https://mcp.example.com/mcp\"]}

This is the stdio bridge: the same policy, the server reached over HTTP. When the server asks
for a login (401), the sign-in page opens in the browser ($BROWSER, else the system's opener; the
URL is printed too) and the login is kept for the next start (see `mcpguard auth --help`); a 401
later refreshes it. `mcpguard install` turns a client's remote entries into this.

As a service for many clients (Streamable HTTP, both MCP eras), in front of an HTTP server:

  MCPGUARD_CURSOR_SECRET=... mcpguard proxy --listen 127.0.0.1:8080 \
      --url https://mcp.example.com/mcp --store redis://127.0.0.1:6379/0 \
      --metrics-listen 127.0.0.1:9090

Clients connect to http://127.0.0.1:8080/mcp. Their headers (Authorization and the like) go on
to the server and are never logged or stored (with --oauth the proxy sends its own login
instead, made with `mcpguard auth login --url URL`, and the server's 401 never reaches them); what the proxy keeps is scoped to the
credential that produced it. Instances that share the secret and the store serve one
population: a result shrunk by one is read to the end through another. /metrics (Prometheus)
and /health (ready or not, in JSON) are served on --metrics-listen; /health also on --listen.
SIGTERM or Ctrl-C stops taking requests and finishes those in flight (--shutdown-grace).

In front of a server that is a command (after --, --server, or a stdio entry of --mcp-config),
the proxy keeps the sessions itself: each 2025-11-25 client's initialize starts a server of
its own (ended by DELETE, by 30 idle minutes, or with the proxy; of 256 at once, the least
recently used ends to make room for a new one), and stateless 2026-07-28 requests share one
server, started on first use, their ids kept apart:

  MCPGUARD_CURSOR_SECRET=... mcpguard proxy --listen 127.0.0.1:8080 -- uvx mcp-server-time

Exit status: the server's, when it exits; 0 when the client closes the session (or --listen
stops on a signal); 2 when the server cannot be started, the port is taken or the flags are
wrong.

In front of every server of a client's list at once (the gateway): --mcp-config without --name
(or with several). One MCP server, tools and prompts named SERVER__NAME; each server started on
first use, its catalog cached (--catalog-cache) so tools/list starts nothing, ended after
serverIdleSeconds unused; a server that fails answers its own calls with an error naming it.
--status shows each server's state; `mcpguard install --gateway` puts a client's servers
behind it.

Examples:
  mcpguard proxy -- npx -y @modelcontextprotocol/server-everything
  mcpguard proxy --mcp-config .mcp.json                 # the gateway: every server in it
  mcpguard proxy --server 'uvx mcp-server-git --repository .' --metrics calls.jsonl
  mcpguard proxy --mcp-config .mcp.json --name github
  mcpguard proxy --shadow --log-format json -- python my_server.py
  mcpguard proxy --url https://mcp.linear.app/mcp
  mcpguard proxy --listen 127.0.0.1:8080 --url http://127.0.0.1:3001/mcp --header 'X-Team: a'
  mcpguard proxy --listen 127.0.0.1:8080 --url https://mcp.linear.app/mcp --oauth
  mcpguard proxy --listen 127.0.0.1:8080 --mcp-config .mcp.json --name github";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The server to run: 'CMD ARGS', split as a shell would (no shell runs). Or give the
    /// command after `--`.
    #[arg(long, value_name = "CMD ARGS", conflicts_with = "mcp_config")]
    pub server: Option<String>,

    /// A client's server list (mcpServers of Claude Desktop, Claude Code's .mcp.json). With
    /// one --name: that server alone. Without (or with several): the gateway, one MCP server
    /// in front of all of them, tools named SERVER__TOOL.
    #[arg(long, value_name = "FILE")]
    pub mcp_config: Option<PathBuf>,

    /// A server of --mcp-config (repeatable: the gateway over those only).
    #[arg(long, value_name = "NAME", requires = "mcp_config")]
    pub name: Vec<String>,

    /// Gateway: start every server at once and keep it, rather than on first use.
    #[arg(long, help_heading = "Gateway (--mcp-config without one --name)")]
    pub eager: bool,

    /// Gateway: print each server's state (running or not, tools, catalog cached when, last
    /// error) and exit.
    #[arg(
        long,
        requires = "mcp_config",
        help_heading = "Gateway (--mcp-config without one --name)"
    )]
    pub status: bool,

    /// Gateway: where server catalogs are kept between runs. Default:
    /// $XDG_CACHE_HOME/mcpguard/catalogs, else ~/.cache/mcpguard/catalogs.
    #[arg(
        long,
        value_name = "DIR",
        help_heading = "Gateway (--mcp-config without one --name)"
    )]
    pub catalog_cache: Option<PathBuf>,

    /// Gateway: the pins file, the SHA-256 of every tool definition seen (config `pins`:
    /// warn logs a changed one, hold keeps it back until `mcpguard pins approve`). Default:
    /// one per --mcp-config file in $XDG_CONFIG_HOME/mcpguard/pins (else ~/.config/...).
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Gateway (--mcp-config without one --name)"
    )]
    pub pins: Option<PathBuf>,

    /// The gateway's routing alone on stdin and stdout, without the policy: what --listen
    /// starts as its command.
    #[arg(long, hide = true, requires = "mcp_config")]
    pub route_only: bool,

    /// Seconds a request may wait for the server before the client gets an error (the session
    /// lives on).
    #[arg(long, value_name = "SECS", default_value_t = 300.0)]
    pub timeout: f64,

    /// The largest message read from either side; a larger one is answered with an error.
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
    pub max_message_bytes: usize,

    /// Change nothing: pass every message as it is and log what would have been done.
    #[arg(long)]
    pub shadow: bool,

    /// Write one record per request to this file (JSON lines): outcome, bytes and tokens
    /// before and after, upstream latency, proxy overhead.
    #[arg(long, value_name = "FILE")]
    pub metrics: Option<PathBuf>,

    /// Rotate --metrics to FILE.1 when it passes this size.
    #[arg(long, value_name = "BYTES", default_value_t = 10 << 20)]
    pub metrics_max_bytes: u64,

    /// Share of results whose token estimate is checked against Claude's exact count
    /// (recorded as exactTokensBefore; a difference over 25% is logged). 0 turns it off.
    #[arg(long, value_name = "SHARE", default_value_t = 0.01)]
    pub accuracy_sample: f64,

    /// The log on stderr: text for people, json for log collectors.
    #[arg(long, value_enum, default_value_t = LogFormat::Text, value_name = "FORMAT")]
    pub log_format: LogFormat,

    /// Log warnings and errors only, not every decision.
    #[arg(long)]
    pub quiet: bool,

    /// Where full results are kept. Default: the config's artifactDir.
    #[arg(long, value_name = "DIR")]
    pub artifact_dir: Option<PathBuf>,

    /// How long a full result is kept, e.g. 1h, 30m.
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = humantime::parse_duration)]
    pub artifact_ttl: Duration,

    /// The store's size cap in bytes; the oldest results go first.
    #[arg(long, value_name = "BYTES", default_value_t = store::DEFAULT_CAP_BYTES)]
    pub artifact_cap: u64,

    /// Keep no full results: shrunk results are previews without a reference.
    #[arg(long)]
    pub no_artifacts: bool,

    #[command(flatten)]
    pub signing: super::CursorArgs,

    /// Serve Streamable HTTP at http://ADDR/mcp to many clients, in front of --url or of the
    /// server's command. Needs MCPGUARD_CURSOR_SECRET (or --secret-file), shared by every
    /// instance.
    #[arg(long, value_name = "ADDR", help_heading = "Serving over HTTP")]
    pub listen: Option<std::net::SocketAddr>,

    /// A remote server's Streamable HTTP endpoint. Without --listen: the stdio bridge a
    /// stdio-only client starts (signing in with OAuth when the server asks, the login kept
    /// for the next start); with --listen: the upstream of the HTTP proxy.
    #[arg(long, value_name = "URL", conflicts_with_all = ["server", "command", "mcp_config"])]
    pub url: Option<String>,

    /// With --listen --url: hold the remote server's OAuth login (made once with `mcpguard
    /// auth login --url URL`) and send it upstream in place of the client's; refresh it when
    /// it expires or the server answers 401. Clients connect with no OAuth of their own. The
    /// stdio bridge (--url without --listen) always signs in when the server asks.
    #[arg(long, requires = "url", help_heading = "Serving over HTTP")]
    pub oauth: bool,

    /// What a client's remote entry was before `mcpguard install` made it this bridge (its URL
    /// member and type), for `uninstall`; nothing else reads it.
    #[arg(long, hide = true, value_name = "KEY[:TYPE]", requires = "url")]
    pub remote_entry: Option<String>,

    /// A header sent to --url on every request, 'Name: value' (repeatable); ${VAR} in the
    /// value is read from the environment. Never logged.
    #[arg(
        long = "header",
        value_name = "NAME: VALUE",
        requires = "url",
        help_heading = "Serving over HTTP"
    )]
    pub headers: Vec<String>,

    /// Where full results go with --listen: redis://HOST:PORT/DB (shared by instances) or a
    /// directory. Default: --artifact-dir, else the config's artifactDir.
    #[arg(
        long,
        value_name = "STORE",
        requires = "listen",
        conflicts_with = "artifact_dir",
        help_heading = "Serving over HTTP"
    )]
    pub store: Option<String>,

    /// Serve Prometheus metrics at http://ADDR/metrics and readiness at /health.
    #[arg(
        long,
        value_name = "ADDR",
        requires = "listen",
        help_heading = "Serving over HTTP"
    )]
    pub metrics_listen: Option<std::net::SocketAddr>,

    /// A Host (and Origin) the listener answers besides its own names, as HOST or HOST:PORT
    /// (repeat it for more). On a loopback address only localhost, 127.0.0.1 and [::1] are
    /// answered otherwise (DNS-rebinding protection: 421 for another Host, 403 for another
    /// Origin); on any other address nothing is checked unless this is given.
    #[arg(
        long = "allowed-host",
        value_name = "HOST",
        requires = "listen",
        help_heading = "Serving over HTTP"
    )]
    pub allowed_hosts: Vec<String>,

    /// The largest request body a client may send (413 beyond).
    #[arg(long, value_name = "BYTES", default_value_t = 4 << 20, help_heading = "Serving over HTTP")]
    pub max_request_bytes: usize,

    /// Requests to the server at once; more wait in the queue.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 64,
        help_heading = "Serving over HTTP"
    )]
    pub max_concurrent: usize,

    /// Requests that may wait for a place; more get 503 and a JSON-RPC error at once.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 256,
        help_heading = "Serving over HTTP"
    )]
    pub queue: usize,

    /// On SIGTERM, how long requests in flight may take to finish.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = humantime::parse_duration, help_heading = "Serving over HTTP")]
    pub shutdown_grace: Duration,

    /// The server's command, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,

    /// Last: its heading would otherwise take the flags after it.
    #[command(flatten)]
    pub login: super::oauth::OAuthArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

pub fn run(args: Args, config: &Option<PathBuf>) -> anyhow::Result<Code> {
    if args.status {
        return gateway::print_status(&args);
    }
    if args.route_only {
        return gateway::route_only(&args, config);
    }
    if args.listen.is_some() {
        return listen::run(args, config);
    }
    let effective = proxy_config(config, &args)?;
    let (upstream, shown) = upstream(&args, &|var| std::env::var(var).ok())?;
    let secrets = match args.signing.secrets()? {
        Some(s) => s,
        None => process_secret()?,
    };
    let artifact_dir = args
        .artifact_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(&effective.config.artifact_dir));
    let artifacts: Box<dyn Artifacts + Send> = if args.no_artifacts {
        Box::new(NoStore)
    } else {
        Box::new(DirStore::new(
            artifact_dir,
            args.artifact_ttl,
            args.artifact_cap,
        ))
    };
    let config_file = effective.file.clone();
    let mut policy = Policy::new(Arc::new(effective.config), secrets, artifacts, args.shadow);
    policy.sample_accuracy(args.accuracy_sample);
    if let Some(path) = &args.metrics {
        // The tiered catalog ranks tools by the calls this proxy saw before.
        let now = std::time::SystemTime::now();
        let mut rotated = path.clone().into_os_string();
        rotated.push(".1");
        for file in [PathBuf::from(rotated), path.clone()] {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let records: Vec<serde_json::Value> = text
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .filter(|r: &serde_json::Value| r["method"] == "tools/call")
                .collect();
            policy.seed_usage(records.iter().map(|r| {
                mcpguard::proxy::tiers::Call {
                    tool: r["tool"].as_str().unwrap_or(""),
                    ok: r["outcome"] != "error",
                    latency_ms: r["upstreamMs"].as_f64().unwrap_or(0.0),
                    age_seconds: r["time"]
                        .as_str()
                        .and_then(|t| humantime::parse_rfc3339_weak(t).ok())
                        .and_then(|t| now.duration_since(t).ok())
                        .map_or(f64::MAX, |d| d.as_secs_f64()),
                }
            }));
        }
    }

    let (tx, rx) = mpsc::channel();
    // Live reload: the watcher validates every save and hands the loop a good config only.
    let _watcher = match &config_file {
        Some(path) => Some(watch_config(
            path.clone(),
            config.clone(),
            gateway::wanted(&args),
            tx.clone(),
        )?),
        None => None,
    };

    let mut log = logger(args.log_format, args.quiet);
    log(&Log {
        level: Level::Info,
        message: format!(
            "proxying {shown}{}; results over {} tokens are shrunk{}",
            if args.shadow { " in shadow mode" } else { "" },
            policy.config().token_budget_threshold,
            config_file
                .as_ref()
                .map(|p| format!("; watching {}", p.display()))
                .unwrap_or_default()
        ),
        fields: Default::default(),
    });
    let mut metrics = args
        .metrics
        .clone()
        .map(|path| Metrics::new(path, args.metrics_max_bytes));
    let record = move |r: &Record| {
        if let Some(m) = &mut metrics {
            m.write(r);
        }
    };
    let timeout = Duration::from_secs_f64(args.timeout.max(0.001));
    let sinks = stdio::Sinks {
        log: Box::new(logger(args.log_format, args.quiet)),
        record: Box::new(record),
    };
    let ended = match upstream {
        Upstream::Command { command, env } => {
            let opts = stdio::Options {
                command,
                env,
                max_message_bytes: args.max_message_bytes,
                timeout,
            };
            stdio::run(policy, &opts, &shown, (tx, rx), sinks)?
        }
        Upstream::Remote { url, headers } => {
            // The browser may be needed at the first request: the login waits 5 minutes.
            let oauth = args.login.client(
                true,
                Duration::from_secs(300),
                timeout.min(Duration::from_secs(60)),
            )?;
            let server = bridge::start(bridge::Options {
                url,
                headers,
                timeout,
                max_message_bytes: args.max_message_bytes,
                oauth: Some(oauth),
            })
            .context("starting the bridge")?;
            let opts = stdio::Options {
                command: Vec::new(),
                env: Default::default(),
                max_message_bytes: args.max_message_bytes,
                timeout,
            };
            stdio::serve(policy, &opts, server, (tx, rx), sinks)
        }
        Upstream::Gateway => {
            let log = std::sync::Mutex::new(logger(args.log_format, args.quiet));
            let gateway_opts = gateway::options(
                &args,
                policy.config(),
                Arc::new(move |l: &Log| (log.lock().unwrap_or_else(|e| e.into_inner()))(l)),
            )?;
            let server =
                mcpguard::proxy::gateway::start(gateway_opts).context("starting the gateway")?;
            let opts = stdio::Options {
                command: Vec::new(),
                env: Default::default(),
                max_message_bytes: args.max_message_bytes,
                // The gateway answers a server's timeout itself, naming the server: the
                // policy's own comes later, for the gateway alone.
                timeout: timeout + GATEWAY_MARGIN,
            };
            stdio::serve(policy, &opts, server, (tx, rx), sinks)
        }
    };
    Ok(match ended {
        Ended::ClientClosed(_) => Code::Ok,
        Ended::ServerExited(Some(0)) => Code::Ok,
        Ended::ServerExited(code) => {
            log(&Log {
                level: Level::Warn,
                message: format!(
                    "the server exited ({})",
                    code.map_or("killed by a signal".to_owned(), |c| format!("status {c}"))
                ),
                fields: Default::default(),
            });
            Code::Server(code.unwrap_or(1).clamp(1, 255) as u8)
        }
    })
}

/// How much longer the policy waits than the gateway, whose answer names the server.
const GATEWAY_MARGIN: Duration = Duration::from_secs(2);

/// The server the proxy stands in front of.
enum Upstream {
    /// A command it starts, with its environment.
    Command {
        command: Vec<String>,
        env: std::collections::BTreeMap<String, String>,
    },
    /// A remote Streamable HTTP server, reached through the bridge.
    Remote {
        url: String,
        headers: Vec<(String, String)>,
    },
    /// Every server of --mcp-config, behind the gateway.
    Gateway,
}

/// The server, and how to show it (as written: never a secret an environment variable
/// expanded into it).
fn upstream(
    args: &Args,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<(Upstream, String)> {
    if gateway::wanted(args) {
        let file = args.mcp_config.as_ref().map(|p| p.display().to_string());
        // Read now, so a bad file is an error before anything starts.
        let servers = gateway::servers(args, env)?;
        let shown = format!(
            "the gateway over {} ({} servers)",
            file.unwrap_or_default(),
            servers.len()
        );
        return Ok((Upstream::Gateway, shown));
    }
    if let Some(path) = &args.mcp_config {
        let file = path.display().to_string();
        let text = mcpguard::util::fsutil::read_text_capped(
            path,
            mcpguard::util::fsutil::MAX_CLIENT_CONFIG_BYTES,
        )
        .with_context(|| format!("{file}: cannot read the server list"))?;
        let mut list = servers::parse(&file, &text, args.name.first().map(String::as_str), env)?;
        let Some(server) = list.pop() else {
            anyhow::bail!("{file}: mcpServers is empty");
        };
        let shown = server.target.describe();
        return Ok(match server.target {
            Target::Stdio {
                command,
                env,
                shown,
            } => {
                let shown = shown.unwrap_or_else(|| command.join(" "));
                (Upstream::Command { command, env }, shown)
            }
            Target::Http { url, headers, .. } => (Upstream::Remote { url, headers }, shown),
        });
    }
    if let Some(url) = &args.url {
        let headers = super::live::parse_headers(&args.headers, env)?;
        return Ok((
            Upstream::Remote {
                url: url.clone(),
                headers,
            },
            url.clone(),
        ));
    }
    let command = super::live::server_command(args.server.as_deref(), &args.command)?;
    if command.is_empty() {
        anyhow::bail!(
            "no server to proxy: give its command after --, e.g. `mcpguard proxy -- npx -y @modelcontextprotocol/server-everything`, or --server 'CMD ARGS', or --url URL (a remote server), or --mcp-config FILE --name NAME"
        );
    }
    let shown = Target::Stdio {
        command: command.clone(),
        env: Default::default(),
        shown: None,
    }
    .describe();
    Ok((
        Upstream::Command {
            command,
            env: Default::default(),
        },
        shown,
    ))
}

/// A secret for this process alone, when none is configured: 32 bytes from the system's
/// random source.
fn process_secret() -> anyhow::Result<Secrets> {
    let hex = mcpguard::util::random::random_hex(32).context(
        "no cursor secret is set and /dev/urandom cannot be read; set MCPGUARD_CURSOR_SECRET",
    )?;
    Ok(Secrets::parse(&hex, "a random per-process secret")?)
}

/// The config as the proxy runs it (read once at start, again at each reload).
pub(super) fn proxy_config(
    config: &Option<PathBuf>,
    args: &Args,
) -> anyhow::Result<mcpguard::config::Effective> {
    let mut effective = super::load_config(config)?;
    gateway_catalog(&mut effective, gateway::wanted(args));
    Ok(effective)
}

/// The gateway's catalog is `auto` unless the file or the environment names one (DESIGN.md
/// section 12): the single-server proxy keeps `full`.
fn gateway_catalog(effective: &mut mcpguard::config::Effective, gateway: bool) {
    if gateway && effective.origin("/catalog") == mcpguard::config::Origin::Default {
        effective.config.catalog = mcpguard::config::Catalog::Auto;
    }
}

/// Watches the config file; every save that validates is sent to the loop, every one that
/// does not is logged and the last good config stays.
fn watch_config(
    path: PathBuf,
    explicit: Option<PathBuf>,
    gateway: bool,
    tx: mpsc::Sender<Event>,
) -> anyhow::Result<notify::RecommendedWatcher> {
    let (watcher, changes) = super::watch::file(&path)?;
    std::thread::spawn(move || {
        while changes.recv().is_ok() {
            super::watch::settle(&changes, &path);
            let env = super::mcpguard_env();
            let dir = std::env::current_dir().unwrap_or_default();
            let explicit = explicit.clone().or_else(|| Some(path.clone()));
            let event = match mcpguard::config::load(explicit.as_deref(), &env, &dir) {
                Ok(mut effective) => {
                    gateway_catalog(&mut effective, gateway);
                    Event::Reload(Arc::new(effective.config))
                }
                Err(e) => Event::Note(Log {
                    level: Level::Error,
                    message: format!(
                        "{}: not reloaded, the last good config stays: {e}",
                        path.display()
                    ),
                    fields: Default::default(),
                }),
            };
            if tx.send(event).is_err() {
                return;
            }
        }
    });
    Ok(watcher)
}

/// Prints log lines to stderr as text or JSON; `quiet` keeps warnings and errors only.
fn logger(format: LogFormat, quiet: bool) -> impl FnMut(&Log) + Send + 'static {
    let mut throttle = mcpguard::proxy::throttle::Throttle::default();
    let mut write = write_log(format, quiet);
    move |l: &Log| {
        for l in throttle.admit(l, std::time::Instant::now()) {
            write(&l);
        }
    }
}

/// Writes one log line, as text or JSON, to stderr.
fn write_log(format: LogFormat, quiet: bool) -> impl FnMut(&Log) + Send + 'static {
    move |l: &Log| {
        if quiet && l.level == Level::Info && l.fields.get("event").is_none_or(|e| e != "listening")
        {
            return;
        }
        // The line is made whole and written at once: one system call, never interleaved
        // with another thread's line (a proxy serving many clients logs from many threads).
        let mut line = match format {
            LogFormat::Json => {
                let mut line = serde_json::Map::new();
                line.insert(
                    "ts".into(),
                    mcpguard::reshape::cursor::iso_time(mcpguard::reshape::cursor::now()).into(),
                );
                if let Ok(serde_json::Value::Object(m)) = serde_json::to_value(l) {
                    line.extend(m);
                }
                serde_json::Value::Object(line).to_string()
            }
            LogFormat::Text => {
                let level = match l.level {
                    Level::Info => "info",
                    Level::Warn => "warning",
                    Level::Error => "error",
                };
                format!("mcpguard proxy: {level}: {}", l.message)
            }
        };
        line.push('\n');
        let _ = anstream::stderr().lock().write_all(line.as_bytes());
    }
}

/// The `--metrics` file: a JSON line per request, rotated at a size, and a failure that warns
/// once and never touches the traffic.
struct Metrics {
    path: PathBuf,
    max_bytes: u64,
    file: Option<std::fs::File>,
    written: u64,
    failed: bool,
}

impl Metrics {
    fn new(path: PathBuf, max_bytes: u64) -> Metrics {
        Metrics {
            path,
            max_bytes,
            file: None,
            written: 0,
            failed: false,
        }
    }

    fn write(&mut self, record: &Record) {
        if self.failed {
            return;
        }
        if let Err(e) = self.try_write(record) {
            self.failed = true;
            let _ = writeln!(
                anstream::stderr(),
                "mcpguard proxy: warning: --metrics {}: {e}; telemetry is off for this session, the traffic is not affected",
                self.path.display()
            );
        }
    }

    fn try_write(&mut self, record: &Record) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(record)?;
        line.push(b'\n');
        if self.file.is_none() {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)?;
            self.written = file.metadata()?.len();
            self.file = Some(file);
        }
        if self.written + line.len() as u64 > self.max_bytes && self.written > 0 {
            let mut rotated = self.path.clone().into_os_string();
            rotated.push(".1");
            std::fs::rename(&self.path, rotated)?;
            self.file = Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&self.path)?,
            );
            self.written = 0;
        }
        if let Some(f) = &mut self.file {
            f.write_all(&line)?;
            self.written += line.len() as u64;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_injected_tool_description_stays_short() {
        let d = mcpguard::proxy::more::definition(mcpguard::contract::telemetry::MORE_TOOL);
        let text = d["description"].as_str().unwrap();
        let counter = mcpguard::tokens::Tokenizer::Claude.counter();
        let tokens = counter.count(text);
        assert!(tokens <= 190, "{tokens} tokens");
        // The whole entry a client lists (name, title, schema, annotations): 366 tokens before
        // `match`, `where` and the rest were added, 426 with them.
        let whole = counter.count(&d.to_string());
        assert!(whole <= 430, "{whole} tokens");
    }
}
