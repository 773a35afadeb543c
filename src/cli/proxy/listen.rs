//! `mcpguard proxy --listen`: the flags of the HTTP service turned into the library's
//! [`mcpguard::proxy::http`] setup; the log, the telemetry file and config reloads as for
//! stdio.

use std::path::PathBuf;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use anyhow::Context as _;

use mcpguard::proxy::http::{self, StoreChoice, Upstream};
use mcpguard::proxy::policy::Record;
use mcpguard::proxy::stdio::Sinks;
use mcpguard::proxy::store::Redis;

use super::super::exit::Code;
use super::{Args, Metrics, logger, watch_config};

pub fn run(args: Args, config: &Option<PathBuf>) -> anyhow::Result<Code> {
    let listen = args.listen.context("--listen is required here")?;
    let effective = super::proxy_config(config, &args)?;
    let env = |var: &str| std::env::var(var).ok();
    let (upstream, gateway_status) = upstream(&args, config, &env)?;
    let secrets = args.signing.secrets()?.context(
        "--listen needs a cursor secret that every instance shares, so any of them verifies any cursor: set MCPGUARD_CURSOR_SECRET (64 hex characters, e.g. from `openssl rand -hex 32`) or --secret-file FILE",
    )?;
    let store = if args.no_artifacts {
        StoreChoice::Off
    } else {
        match args.store.as_deref() {
            Some(s) if s.starts_with("redis://") || s.starts_with("rediss://") => {
                StoreChoice::Redis(Arc::new(
                    Redis::open(s, args.artifact_ttl, args.artifact_cap)
                        .map_err(anyhow::Error::msg)?,
                ))
            }
            Some(dir) => StoreChoice::Dir {
                dir: PathBuf::from(dir),
                ttl: args.artifact_ttl,
                cap: args.artifact_cap,
            },
            // --artifact-dir names the directory with --listen as it does on stdio.
            None => StoreChoice::Dir {
                dir: args
                    .artifact_dir
                    .clone()
                    .unwrap_or_else(|| PathBuf::from(&effective.config.artifact_dir)),
                ttl: args.artifact_ttl,
                cap: args.artifact_cap,
            },
        }
    };
    let (tx, rx) = mpsc::channel();
    let _watcher = match &effective.file {
        Some(path) => Some(watch_config(
            path.clone(),
            config.clone(),
            super::gateway::wanted(&args),
            tx.clone(),
        )?),
        None => None,
    };
    let mut metrics = args
        .metrics
        .clone()
        .map(|path| Metrics::new(path, args.metrics_max_bytes));
    let sinks = Sinks {
        log: Box::new(logger(args.log_format, args.quiet)),
        record: Box::new(move |r: &Record| {
            if let Some(m) = &mut metrics {
                m.write(r);
            }
        }),
    };
    let setup = http::Setup {
        config: Arc::new(effective.config),
        secrets,
        shadow: args.shadow,
        accuracy_sample: args.accuracy_sample,
        store,
    };
    let opts = http::Options {
        listen,
        metrics_listen: args.metrics_listen,
        allowed_hosts: args.allowed_hosts.clone(),
        upstream,
        max_request_bytes: args.max_request_bytes,
        max_response_bytes: args.max_message_bytes,
        timeout: Duration::from_secs_f64(args.timeout.max(0.001)),
        max_concurrent: args.max_concurrent,
        queue: args.queue,
        shutdown_grace: args.shutdown_grace,
        gateway_status,
    };
    http::run(setup, opts, sinks, rx)?;
    drop(tx);
    Ok(Code::Ok)
}

/// How long a request to the authorization server, or a wait for another process's refresh,
/// may take.
const LOGIN_WAIT: Duration = Duration::from_secs(30);

/// The server to stand in front of: --url and --header, a command (after --, --server), or
/// either kind from --mcp-config; in front of a gateway, also the status file its sessions
/// write, which /health lists per server.
fn upstream(
    args: &Args,
    config: &Option<PathBuf>,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<(Upstream, Option<PathBuf>)> {
    if args.url.is_none()
        && args.mcp_config.is_none()
        && args.server.is_none()
        && args.command.is_empty()
    {
        anyhow::bail!(
            "--listen needs the server to stand in front of: --url http://HOST:PORT/mcp (with --header 'Name: value' as needed), its command after -- (e.g. `mcpguard proxy --listen 127.0.0.1:8080 -- npx -y some-mcp-server`), or --mcp-config FILE --name NAME"
        );
    }
    let status_file = || {
        let dir = super::gateway::cache_dir(args)?;
        let file = args.mcp_config.as_ref()?;
        Some(mcpguard::proxy::gateway::status::file_for(&dir, file))
    };
    Ok(match super::upstream(args, env)? {
        (super::Upstream::Remote { url, headers }, _) => {
            // --oauth: the proxy holds the login (stored by `mcpguard auth login`); it never
            // opens a browser itself.
            let login = if args.oauth {
                let oauth = args.login.client(false, LOGIN_WAIT, LOGIN_WAIT)?;
                let held = http::login::HeldLogin::new(&url, oauth);
                if !held.signed_in() {
                    super::super::render::warning(&format!(
                        "--oauth: not signed in to {url} yet; requests get an error until `mcpguard auth login --url {url}` is run"
                    ));
                }
                Some(Arc::new(held))
            } else {
                None
            };
            let upstream = Upstream::Http {
                url,
                headers,
                login,
            };
            (upstream, None)
        }
        (super::Upstream::Command { command, env }, shown) => {
            let upstream = Upstream::Command {
                command,
                env,
                shown,
            };
            (upstream, None)
        }
        // The gateway as the command each session starts: its routing alone, the policy is
        // this process's.
        (super::Upstream::Gateway, shown) => {
            let upstream = Upstream::Command {
                command: route_only_command(args, config)?,
                env: Default::default(),
                shown,
            };
            (upstream, status_file())
        }
    })
}

/// `mcpguard proxy --route-only` with this run's server list, config and limits.
fn route_only_command(args: &Args, config: &Option<PathBuf>) -> anyhow::Result<Vec<String>> {
    let absolute = |p: &PathBuf| -> anyhow::Result<String> {
        Ok(std::path::absolute(p)?.to_string_lossy().into_owned())
    };
    let exe = std::env::current_exe().context("finding mcpguard's own binary")?;
    let mut command = vec![
        exe.to_string_lossy().into_owned(),
        "proxy".to_owned(),
        "--route-only".to_owned(),
        "--mcp-config".to_owned(),
        absolute(args.mcp_config.as_ref().context("--mcp-config FILE")?)?,
        "--timeout".to_owned(),
        args.timeout.to_string(),
        "--max-message-bytes".to_owned(),
        args.max_message_bytes.to_string(),
    ];
    for name in &args.name {
        command.extend(["--name".to_owned(), name.clone()]);
    }
    if let Some(dir) = super::gateway::cache_dir(args) {
        command.extend(["--catalog-cache".to_owned(), absolute(&dir)?]);
    }
    if let Some(file) = &args.pins {
        command.extend(["--pins".to_owned(), absolute(file)?]);
    }
    if let Some(file) = config {
        command.extend(["--config".to_owned(), absolute(file)?]);
    }
    if args.eager {
        command.push("--eager".to_owned());
    }
    if args.quiet {
        command.push("--quiet".to_owned());
    }
    Ok(command)
}
