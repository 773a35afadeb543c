//! `mcpguard audit`'s live targets: the flags that name servers (`--server`, `-- CMD`, `--url`,
//! `--mcp-config`) and the sessions run against them.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use mcpguard::audit::live::{self, Session};
use mcpguard::net::mcp::era::Protocol;
use mcpguard::net::mcp::{Limits, Target, config};

/// Flags of a live audit.
#[derive(Debug, Default, clap::Args)]
#[command(next_help_heading = "Live servers")]
pub struct LiveArgs {
    /// Spawn this server and audit it over stdio: 'CMD ARGS', split as a shell would (no shell
    /// runs). Or give the command after `--`.
    #[arg(long, value_name = "CMD ARGS", conflicts_with_all = ["url", "mcp_config"])]
    pub server: Option<String>,

    /// Audit a Streamable HTTP server at this URL.
    #[arg(long, value_name = "URL", conflicts_with = "mcp_config")]
    pub url: Option<String>,

    /// A header for --url, 'Name: value' (repeatable). ${VAR} in the value is read from the
    /// environment; values are never printed.
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "url")]
    pub headers: Vec<String>,

    /// Sign in with OAuth when the server asks (a 401): its metadata found as the MCP
    /// authorization spec says, the client registered (or --oauth-client-id), the sign-in URL
    /// opened with $BROWSER or the system's opener (and printed), the redirect taken on a
    /// loopback port; a 403 for more scope signs in again with it. The login is kept in the
    /// OAuth store and used by the next run (and by `mcpguard auth`, `proxy --url`).
    #[arg(long, requires = "url")]
    pub oauth: bool,

    /// A client's server list (the mcpServers of Claude Desktop, Claude Code's .mcp.json, ...):
    /// every server in it is audited, or only --name.
    #[arg(long, value_name = "FILE")]
    pub mcp_config: Option<PathBuf>,

    /// The server to audit from --mcp-config; with --server or --url, the name reports use.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// Tool calls to make (YAML or JSON): a list of {tool, arguments, expect: {maxBytes,
    /// isError, contains}}.
    #[arg(long, value_name = "FILE")]
    pub calls: Option<PathBuf>,

    /// Also call every tool annotated readOnlyHint whose required arguments have a default,
    /// enum, const or example in its schema; no other tool is ever called.
    #[arg(long)]
    pub probe: bool,

    /// Write each session as DIR/NAME.jsonl (what was exchanged, exactly) and the server's
    /// stderr as DIR/NAME.stderr.log; `mcpguard audit DIR` reads them again.
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,

    /// Seconds one request may take.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub timeout: f64,

    /// Seconds a whole session may take.
    #[arg(long, value_name = "SECS", default_value_t = 300.0)]
    pub timeout_total: f64,

    /// The largest message accepted from a server.
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
    pub max_message_bytes: usize,

    /// Pages of one list followed at most.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_pages: usize,

    /// The MCP era to speak. auto: probe with server/discover and speak 2026-07-28 (stateless,
    /// _meta on every request) to a server that lists it; open a 2025-11-25 session with
    /// initialize when the probe shows a legacy server (any answer that is not a
    /// DiscoverResult, an error status, no answer within 10 s).
    #[arg(long, value_name = "VERSION", default_value = "auto",
          value_parser = clap::builder::PossibleValuesParser::new(Protocol::NAMES))]
    pub protocol: String,

    /// Also ask a 2026-07-28 server, on a connection of its own, whether it answers a
    /// 2025-11-25 client's initialize (dual-era). Off by default: that initialize has no
    /// _meta, which a modern-only server may count against the client; the servers table
    /// then says "(legacy not asked)".
    #[arg(long)]
    pub ask_legacy: bool,

    /// The server's command, after `--` (instead of --server).
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,

    /// Last: its heading would otherwise take the flags after it.
    #[command(flatten)]
    pub login: super::oauth::OAuthArgs,
}

impl LiveArgs {
    /// True when some server is named.
    pub fn any(&self) -> bool {
        self.server.is_some()
            || self.url.is_some()
            || self.mcp_config.is_some()
            || !self.command.is_empty()
    }

    /// The servers named, with the name reports give them.
    fn targets(&self) -> anyhow::Result<Vec<(String, Target)>> {
        let env = |var: &str| std::env::var(var).ok();
        if let Some(path) = &self.mcp_config {
            let file = path.display().to_string();
            let text = mcpguard::util::fsutil::read_text_capped(
                path,
                mcpguard::util::fsutil::MAX_CLIENT_CONFIG_BYTES,
            )
            .with_context(|| format!("{file}: cannot read the server list"))?;
            let servers = config::parse(&file, &text, self.name.as_deref(), &env)?;
            if servers.is_empty() {
                anyhow::bail!("{file}: mcpServers is empty");
            }
            return Ok(servers.into_iter().map(|s| (s.name, s.target)).collect());
        }
        if let Some(url) = &self.url {
            let headers = parse_headers(&self.headers, &env)?;
            let name = self.name.clone().unwrap_or_else(|| url_name(url));
            return Ok(vec![(
                name,
                Target::Http {
                    url: url.clone(),
                    headers,
                    shown: None,
                },
            )]);
        }
        let command = server_command(self.server.as_deref(), &self.command)?;
        if command.is_empty() {
            anyhow::bail!("--server: empty command");
        }
        let name = self.name.clone().unwrap_or_else(|| command_name(&command));
        Ok(vec![(
            name,
            Target::Stdio {
                command,
                env: Default::default(),
                shown: None,
            },
        )])
    }

    /// The OAuth client of each connection, with --oauth.
    fn oauth_maker(&self) -> anyhow::Result<Option<live::OAuthMaker>> {
        if !self.oauth {
            if self.login.any() {
                anyhow::bail!("the --oauth-* flags need --oauth");
            }
            return Ok(None);
        }
        let wait = Duration::from_secs_f64(self.timeout_total.max(1.0));
        let request = Duration::from_secs_f64(self.timeout.max(0.001));
        // Checked now: a taken port or a missing secret is an error before anything is sent.
        drop(self.login.client(true, wait, request)?);
        let login = self.login.clone();
        Ok(Some(live::OAuthMaker(std::sync::Arc::new(move || {
            login
                .client(true, wait, request)
                .map_err(|e| format!("{e:#}"))
        }))))
    }

    /// Runs a session against every server named, saving transcripts with --save.
    pub fn run(&self) -> anyhow::Result<Vec<Session>> {
        let targets = self.targets()?;
        let calls = match &self.calls {
            Some(path) => {
                let file = path.display().to_string();
                let text = mcpguard::util::fsutil::read_text_capped(
                    path,
                    mcpguard::util::fsutil::MAX_CONFIG_BYTES,
                )
                .with_context(|| format!("{file}: cannot read the calls"))?;
                let json = path.extension().is_some_and(|e| e == "json");
                let parsed = mcpguard::config::parse_text(&file, &text, json)?;
                live::parse_calls(parsed.value).map_err(|e| anyhow::anyhow!("{file}: {e}"))?
            }
            None => Vec::new(),
        };
        let opts = live::Options {
            calls,
            probe: self.probe,
            max_pages: self.max_pages.max(1),
            protocol: Protocol::parse(&self.protocol).unwrap_or_default(),
            ask_legacy: self.ask_legacy,
            oauth: self.oauth_maker()?,
        };
        if let Some(dir) = &self.save {
            std::fs::create_dir_all(dir).with_context(|| {
                format!("--save {}: cannot create the directory", dir.display())
            })?;
        }
        let mut sessions = Vec::new();
        for (name, target) in targets {
            let limits = Limits {
                request: Duration::from_secs_f64(self.timeout.max(0.001)),
                deadline: Instant::now() + Duration::from_secs_f64(self.timeout_total.max(0.001)),
                max_message_bytes: self.max_message_bytes,
            };
            let session = live::run(&name, &target, &opts, limits);
            if let Some(dir) = &self.save {
                let base = file_name(&name);
                let path = dir.join(format!("{base}.jsonl"));
                mcpguard::util::fsutil::write_atomic(&path, session.transcript.as_bytes())
                    .with_context(|| format!("cannot write {}", path.display()))?;
                if !session.stderr.is_empty() {
                    let log = dir.join(format!("{base}.stderr.log"));
                    mcpguard::util::fsutil::write_atomic(&log, session.stderr.as_bytes())
                        .with_context(|| format!("cannot write {}", log.display()))?;
                }
            }
            sessions.push(session);
        }
        Ok(sessions)
    }
}

/// A name for a spawned server: the package or script a launcher runs
/// (`npx -y @modelcontextprotocol/server-everything` is `server-everything`), else the program.
/// The server's command from `--server 'CMD ARGS'` (split as a shell would, without a shell)
/// or from the words after `--`.
pub fn server_command(server: Option<&str>, after_dash: &[String]) -> anyhow::Result<Vec<String>> {
    match server {
        Some(line) => shlex::split(line).with_context(|| {
            format!("--server {line:?}: unbalanced quotes; quote the command as a shell would")
        }),
        None => Ok(after_dash.to_vec()),
    }
}

fn command_name(command: &[String]) -> String {
    let base = |s: &str| {
        let last = s.rsplit(['/', '\\']).next().unwrap_or(s);
        last.split('@')
            .find(|p| !p.is_empty())
            .unwrap_or(last)
            .to_owned()
    };
    const LAUNCHERS: [&str; 9] = [
        "npx", "node", "uvx", "uv", "python", "python3", "deno", "bun", "pnpm",
    ];
    let program = base(&command[0]);
    if LAUNCHERS.contains(&program.as_str())
        && let Some(arg) = command[1..]
            .iter()
            .find(|a| !a.starts_with('-') && *a != "run")
    {
        // A script is named by its package: .../server-everything/dist/index.js.
        const PLUMBING: [&str; 8] = [
            "dist", "build", "lib", "src", "bin", "index.js", "main.js", "index.py",
        ];
        if let Some(part) = arg
            .rsplit(['/', '\\'])
            .find(|p| !p.is_empty() && !PLUMBING.contains(p))
            .filter(|_| arg.contains(['/', '\\']))
        {
            let name = base(part);
            return name
                .strip_suffix(".js")
                .or(name.strip_suffix(".py"))
                .unwrap_or(&name)
                .to_owned();
        }
        return base(arg);
    }
    program
}

/// A name for an HTTP server: its host and port.
fn url_name(url: &str) -> String {
    let rest = url.split("://").nth(1).unwrap_or(url);
    rest.split('/').next().unwrap_or(rest).replace(':', "-")
}

/// A server name as a file name: anything but letters, digits, `-`, `_` and `.` becomes `-`.
fn file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// `--header 'Name: value'` flags, with `${VAR}` in a value read from the environment.
pub fn parse_headers(
    flags: &[String],
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<Vec<(String, String)>> {
    let mut headers = Vec::new();
    for h in flags {
        let (name, value) = h.split_once(':').with_context(|| {
            format!(
                "--header `{}`: expected 'Name: value'",
                h.split(':').next().unwrap_or("")
            )
        })?;
        let value = config::expand(value.trim(), env).map_err(|var| {
            anyhow::anyhow!(
                "--header {}: ${{{var}}} is not set in the environment",
                name.trim()
            )
        })?;
        headers.push((name.trim().to_owned(), value));
    }
    Ok(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_which_server() {
        let cmd = |s: &str| shlex::split(s).unwrap();
        assert_eq!(
            command_name(&cmd("npx -y @modelcontextprotocol/server-everything")),
            "server-everything"
        );
        assert_eq!(
            command_name(&cmd("node tests/peers/node_modules/x/dist/index.js stdio")),
            "x"
        );
        assert_eq!(command_name(&cmd("python3 server.py")), "server.py");
        assert_eq!(
            command_name(&cmd("/usr/local/bin/my-server --port 3")),
            "my-server"
        );
        assert_eq!(url_name("http://127.0.0.1:3001/mcp"), "127.0.0.1-3001");
        assert_eq!(file_name("a b/c"), "a-b-c");
    }
}
