//! `mcpguard proxy --mcp-config FILE` without one `--name`: the gateway in front of every
//! server of the file (or of the names given). This file reads the server list, sets the
//! gateway up from flags and config, prints `--status`, and runs `--route-only`, the gateway
//! without the policy, which `--listen` starts per session as the command it serves.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;

use mcpguard::config::Config;
use mcpguard::config::PinMode;
use mcpguard::net::mcp::{Target, config as servers};
use mcpguard::proxy::gateway::cache::CatalogCache;
use mcpguard::proxy::gateway::pinned::{self, PinBook};
use mcpguard::proxy::gateway::{self, status};
use mcpguard::proxy::policy::Log;

use super::super::exit::Code;
use super::Args;

/// Whether these flags ask for the gateway: a server list and not exactly one name.
pub fn wanted(args: &Args) -> bool {
    args.mcp_config.is_some() && args.name.len() != 1
}

/// The servers of --mcp-config (all, or those --name names), by key.
pub fn servers(
    args: &Args,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<Vec<(String, Target)>> {
    let path = args
        .mcp_config
        .as_ref()
        .context("--mcp-config FILE is needed")?;
    let file = path.display().to_string();
    let text = mcpguard::util::fsutil::read_text_capped(
        path,
        mcpguard::util::fsutil::MAX_CLIENT_CONFIG_BYTES,
    )
    .with_context(|| format!("{file}: cannot read the server list"))?;
    let all = servers::parse(&file, &text, None, env)?;
    for name in &args.name {
        // The list's own error names what the file has.
        servers::parse(&file, &text, Some(name), env)?;
    }
    let chosen: Vec<(String, Target)> = all
        .into_iter()
        .filter(|s| args.name.is_empty() || args.name.contains(&s.name))
        .map(|s| (s.name, s.target))
        .collect();
    if chosen.is_empty() {
        anyhow::bail!("{file}: mcpServers is empty: nothing for the gateway to stand in front of");
    }
    Ok(chosen)
}

/// The catalog cache: --catalog-cache, else the user's cache folder.
pub fn cache_dir(args: &Args) -> Option<PathBuf> {
    args.catalog_cache
        .clone()
        .or_else(CatalogCache::default_dir)
}

/// The gateway's options from the flags and the config.
pub fn options(
    args: &Args,
    config: &Config,
    log: Arc<dyn Fn(&Log) + Send + Sync>,
) -> anyhow::Result<gateway::Options> {
    let env = |var: &str| std::env::var(var).ok();
    let servers = servers(args, &env)?;
    // Before the gateway's threads allocate.
    mcpguard::proxy::launch::huge_pages_off();
    let cache = cache_dir(args);
    let status_file = match (&cache, &args.mcp_config) {
        (Some(dir), Some(config)) => Some(status::file_for(dir, config)),
        _ => None,
    };
    let login = args.login.clone();
    let oauth: Arc<dyn Fn() -> _ + Send + Sync> = Arc::new(move || {
        login
            .client(false, Duration::from_secs(30), Duration::from_secs(30))
            .ok()
    });
    Ok(gateway::Options {
        servers,
        timeout: Duration::from_secs_f64(args.timeout.max(0.001)),
        max_message_bytes: args.max_message_bytes,
        max_name: usize::try_from(config.max_tool_name_length).unwrap_or(64),
        idle: Duration::from_secs(config.server_idle_seconds),
        eager: args.eager,
        cache: cache.map(CatalogCache::at),
        cwd: std::env::current_dir()?,
        oauth: Some(oauth),
        log,
        // A server's stderr is the user's, as the single-server proxy leaves it; each line
        // says whose it is.
        stderr: Arc::new(|key: &str, line: &str| eprintln!("[{key}] {line}")),
        status_file,
        pins: pin_book(args, config)?,
    })
}

/// The gateway's pins (`None` under `pins: off`). Under `hold` a pins file that does not read
/// stops the gateway, which could not keep its promise otherwise.
fn pin_book(args: &Args, config: &Config) -> anyhow::Result<Option<PinBook>> {
    if config.pins == PinMode::Off {
        return Ok(None);
    }
    let Some(file) = pinned::file_for(args.pins.as_deref(), args.mcp_config.as_deref()) else {
        anyhow::bail!(
            "no place for the pins file: neither HOME nor XDG_CONFIG_HOME is set; give --pins FILE, or set pins: off"
        );
    };

    let approve = match &args.pins {
        Some(file) => format!("mcpguard pins approve --pins {}", shown(file)),
        None => format!(
            "mcpguard pins approve --mcp-config {}",
            shown(args.mcp_config.as_deref().unwrap_or(Path::new(".mcp.json")))
        ),
    };
    let book = PinBook::new(config.pins, file, approve);
    // Under `hold` the pins decide the first listing: a file that does not read stops the
    // gateway now. Under `warn` it is read when a server's catalog is first checked.
    if config.pins == PinMode::Hold {
        book.reload_if_changed().map_err(anyhow::Error::msg)?;
    }
    Ok(Some(book))
}

/// A path as a person would paste it into a shell (absolute: the hint is read elsewhere).
fn shown(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let text = absolute.display().to_string();
    shlex::try_quote(&text).map_or(text.clone(), |q| q.into_owned())
}

/// `--route-only`: the gateway on this process's stdin and stdout, without the policy.
pub fn route_only(args: &Args, config: &Option<PathBuf>) -> anyhow::Result<Code> {
    let effective = super::super::load_config(config)?;
    let log = super::logger(args.log_format, args.quiet);
    let log = std::sync::Mutex::new(log);
    let opts = options(
        args,
        &effective.config,
        Arc::new(move |l: &Log| (log.lock().unwrap_or_else(|e| e.into_inner()))(l)),
    )?;
    gateway::serve(std::io::stdin(), Box::new(std::io::stdout()), opts);
    Ok(Code::Ok)
}

/// `--status`: each server's state as the running (or last) gateway over this file wrote it.
pub fn print_status(args: &Args) -> anyhow::Result<Code> {
    let path = args
        .mcp_config
        .as_ref()
        .context("--status needs --mcp-config FILE")?;
    let dir = cache_dir(args).context(
        "no cache folder: neither HOME nor XDG_CACHE_HOME is set; give --catalog-cache DIR",
    )?;
    let env = |var: &str| std::env::var(var).ok();
    let configured = servers(args, &env)?;
    let file = status::file_for(&dir, path);
    let written = status::read(&file);
    let running = written
        .as_ref()
        .and_then(|s| s.pid)
        .filter(|pid| Path::new(&format!("/proc/{pid}")).exists() || !cfg!(target_os = "linux"));
    println!(
        "{}",
        match running {
            Some(pid) => format!("gateway over {} running (pid {pid})", path.display()),
            None => format!("no gateway over {} is running", path.display()),
        }
    );
    let cache = CatalogCache::at(&dir);
    let cwd = std::env::current_dir()?;
    let mut grid = mcpguard::util::human::table(
        &["server", "state", "tools", "catalog cached", "last error"],
        &[2],
    );
    let now = std::time::SystemTime::now();
    for (name, target) in &configured {
        let seen = written
            .as_ref()
            .and_then(|s| s.servers.iter().find(|s| &s.name == name));
        // What the gateway wrote, else the cache as seen from here (a catalog is kept per
        // working directory, as servers are started in it).
        let saved = cache.load(&cache.file(target, &cwd));
        let state = match (seen, running) {
            (Some(s), Some(_)) => s.state.clone(),
            _ => "stopped".to_owned(),
        };
        let tools = seen
            .and_then(|s| s.tools)
            .or(saved.as_ref().map(|s| s.catalog.tools.len()));
        let cached_at = seen
            .and_then(|s| s.cached_at)
            .or(saved.as_ref().map(|s| s.saved_at));
        let cached = cached_at.map_or("never".to_owned(), |at| {
            let at = std::time::UNIX_EPOCH + Duration::from_secs(at);
            let ago = now.duration_since(at).unwrap_or_default();
            format!(
                "{} ago",
                humantime::format_duration(Duration::from_secs(ago.as_secs()))
            )
        });
        grid.add_row([
            name.clone(),
            state,
            tools.map_or_else(|| "-".to_owned(), |t| t.to_string()),
            cached,
            seen.and_then(|s| s.last_error.clone()).unwrap_or_default(),
        ]);
    }
    println!("{grid}");
    Ok(Code::Ok)
}
