//! `mcpguard auth`: the logins mcpguard holds for remote servers (DESIGN.md section 10). `login`
//! signs in through the browser and keeps the tokens in the OAuth store; `status` shows what is
//! kept (never a token); `logout` forgets it; `header` prints a fresh `Authorization` for a
//! client that asks a command for its headers (Claude Code's `headersHelper`). The stdio bridge
//! (`proxy --url`), the HTTP proxy's `--oauth` and `audit --oauth` use the same store.

use std::io::Write as _;
use std::time::Duration;

use anyhow::Context as _;
use mcpguard::net::oauth::discovery;
use mcpguard::net::oauth::store::{Login, now_secs};

use super::ReportFormat;
use super::exit::Code;
use super::oauth::OAuthArgs;

const AFTER_HELP: &str = "\
A login is kept per server URL and authorization server, as a file of mode 0600 under
~/.config/mcpguard/oauth (--oauth-store or MCPGUARD_OAUTH_STORE moves it). Every mcpguard
process uses it: log in once, and `proxy --url`, `proxy --listen --url ... --oauth` and
`audit --url ... --oauth` reach the server with it, refreshing it when it expires; processes
started together share one login and one refresh.

The sign-in URL is opened with $BROWSER (a `%s` in it is replaced by the URL) or the system's
opener, and printed; the browser comes back to http://127.0.0.1:PORT/callback.

Exit codes: 0 done; 1 `status --url` or `header` found no usable login; 2 the login failed or
the store could not be read.

Examples:
  mcpguard auth login --url https://mcp.example.com/mcp
  mcpguard auth status
  mcpguard auth header --url https://mcp.example.com/mcp     # {\"Authorization\": \"Bearer …\"}
  mcpguard auth logout --url https://mcp.example.com/mcp

In Claude Code's config, for a remote server that takes the token itself:
  \"headersHelper\": \"mcpguard auth header --url https://mcp.example.com/mcp\"";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,

    #[command(flatten)]
    pub login: OAuthArgs,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Sign in to a server in the browser and keep the login (replacing one kept before).
    Login {
        /// The server's Streamable HTTP endpoint.
        #[arg(long, value_name = "URL")]
        url: String,
        /// Seconds to wait for the browser to come back.
        #[arg(long, value_name = "SECS", default_value_t = 300.0)]
        timeout: f64,
    },
    /// The logins kept: server, authorization server, client, scopes, expiry. No tokens.
    Status {
        /// Only this server's login (exit 1 when there is none).
        #[arg(long, value_name = "URL")]
        url: Option<String>,
        #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
        format: ReportFormat,
    },
    /// Forget a server's login.
    Logout {
        #[arg(long, value_name = "URL")]
        url: String,
    },
    /// Print a fresh Authorization header for a server (refreshed when it is about to expire),
    /// as the JSON object a headersHelper prints, or as an HTTP header line.
    Header {
        #[arg(long, value_name = "URL")]
        url: String,
        #[arg(long, value_enum, default_value_t = HeaderFormat::Json)]
        format: HeaderFormat,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HeaderFormat {
    /// {"Authorization": "Bearer …"}
    Json,
    /// Authorization: Bearer …
    Line,
}

/// How long a request to the authorization server, or the wait for another process's login,
/// may take.
const REQUEST: Duration = Duration::from_secs(30);

pub fn run(args: Args) -> anyhow::Result<Code> {
    let store = args.login.store()?;
    let mut out = std::io::stdout().lock();
    match args.action {
        Action::Login { url, timeout } => {
            let wait = Duration::from_secs_f64(timeout.max(1.0));
            let mut oauth = args.login.client(true, wait, REQUEST)?;
            let login = oauth
                .sign_in(&url)
                .with_context(|| format!("signing in to {url}"))?;
            eprintln!(
                "mcpguard: signed in to {} at {} (client {}{}); kept in {}",
                login.resource,
                login.issuer,
                login.client_id,
                scopes_shown(&login),
                store.dir().display()
            );
        }
        Action::Status { url, format } => {
            let logins = match &url {
                Some(url) => store.find(&key(url)?)?.into_iter().collect(),
                None => {
                    let (logins, corrupt) = store.all()?;
                    for e in &corrupt {
                        super::render::warning(&e.to_string());
                    }
                    logins
                }
            };
            match format {
                ReportFormat::Json => {
                    let rows: Vec<_> = logins.iter().map(status_json).collect();
                    super::render::write_json(&mut out, &rows)?;
                }
                ReportFormat::Table => write_table(&mut out, &logins, store.dir())?,
            }
            if let Some(url) = url
                && logins.is_empty()
            {
                eprintln!(
                    "mcpguard: not signed in to {url}: run `mcpguard auth login --url {url}`"
                );
                return Ok(Code::Findings);
            }
        }
        Action::Logout { url } => {
            let removed = store.remove(&key(&url)?)?;
            if removed.is_empty() {
                eprintln!("mcpguard: no login was kept for {url}");
            }
            let oauth = args.login.client(false, REQUEST, REQUEST)?;
            for login in &removed {
                let revoked = match oauth.revoke(login) {
                    Ok(true) => format!("revoked at {}", login.issuer),
                    Ok(false) => format!(
                        "{} has no revocation endpoint, so it may still list the grant",
                        login.issuer
                    ),
                    Err(e) => format!("not revoked ({e})"),
                };
                eprintln!(
                    "mcpguard: signed out of {url}: its tokens are deleted from this machine and {revoked}"
                );
            }
        }
        Action::Header { url, format } => {
            let mut oauth = args.login.client(false, REQUEST, REQUEST)?;
            let Some(value) = oauth.stored(&url)? else {
                eprintln!(
                    "mcpguard: not signed in to {url}: run `mcpguard auth login --url {url}`"
                );
                return Ok(Code::Findings);
            };
            match format {
                HeaderFormat::Json => {
                    serde_json::to_writer(&mut out, &serde_json::json!({"Authorization": value}))?
                }
                HeaderFormat::Line => write!(out, "Authorization: {value}")?,
            }
            writeln!(out)?;
        }
    }
    Ok(Code::Ok)
}

fn key(url: &str) -> anyhow::Result<String> {
    discovery::canonical_resource(url).with_context(|| format!("--url {url}"))
}

fn scopes_shown(login: &Login) -> String {
    if login.scopes.is_empty() {
        String::new()
    } else {
        format!(", scope {}", login.scopes.join(" "))
    }
}

/// When the access token expires, said for a person.
fn expiry(login: &Login) -> String {
    match login.expires_at {
        None => "no expiry given".to_owned(),
        Some(at) => {
            let now = now_secs();
            if at <= now {
                "expired".to_owned()
            } else {
                format!(
                    "in {}",
                    mcpguard::reshape::cursor::human_span((at - now) as f64)
                )
            }
        }
    }
}

fn status_json(login: &Login) -> serde_json::Value {
    serde_json::json!({
        "server": login.resource,
        "issuer": login.issuer,
        "clientId": login.client_id,
        "grant": login.grant,
        "scopes": login.scopes,
        "expiresAt": login.expires_at,
        "expired": login.expires_at.is_some_and(|at| at <= now_secs()),
        "refreshable": login.refresh_token.is_some(),
        "obtainedAt": login.obtained_at,
    })
}

fn write_table(
    out: &mut impl std::io::Write,
    logins: &[Login],
    dir: &std::path::Path,
) -> anyhow::Result<()> {
    let mut t = mcpguard::util::human::table(
        &[
            "server",
            "authorization server",
            "scopes",
            "token expires",
            "refresh",
        ],
        &[],
    );
    for l in logins {
        t.add_row([
            l.resource.clone(),
            l.issuer.clone(),
            if l.scopes.is_empty() {
                "-".to_owned()
            } else {
                l.scopes.join(" ")
            },
            expiry(l),
            if l.refresh_token.is_some() {
                "yes"
            } else {
                "no"
            }
            .to_owned(),
        ]);
    }
    writeln!(out, "{t}")?;
    let noun = if logins.len() == 1 { "login" } else { "logins" };
    writeln!(out, "{} {noun}, in {}", logins.len(), dir.display())?;
    Ok(())
}
