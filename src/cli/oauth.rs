//! The CLI's side of an OAuth login (the library's `mcpguard::net::oauth` does the protocol): the
//! browser and the one-shot loopback callback. The authorization URL is opened with the
//! `BROWSER` variable's command when set (a `%s` in it is replaced by the URL, else the URL is
//! appended), else with the system's opener, and is always printed to stderr. The redirect
//! comes back to `http://127.0.0.1:PORT/callback` (a random port, or `--oauth-callback-port`);
//! the first request there ends the wait. With `BROWSER` set to a command that fetches the URL
//! and follows redirects, the login runs headless (the tests and the conformance suite).
//!
//! [`OAuthArgs`] are the flags every door to a login shares (`audit --oauth`, `mcpguard auth`,
//! `proxy --url`), turned here into the library's settings, store and user agent.

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use mcpguard::net::oauth::session::{OAuth, Settings, UserAgent};
use mcpguard::net::oauth::store::{STORE_ENV, Store};

/// Where the client's secret comes from (never a flag: flags show in `ps`).
pub const CLIENT_SECRET_ENV: &str = "MCPGUARD_OAUTH_CLIENT_SECRET";

/// How mcpguard signs in to a server: the flags shared by `audit --oauth`, `auth` and `proxy`.
#[derive(Clone, Debug, Default, clap::Args)]
#[command(next_help_heading = "Signing in (OAuth)")]
pub struct OAuthArgs {
    /// A client registered beforehand at the authorization server (its secret, if any, from
    /// MCPGUARD_OAUTH_CLIENT_SECRET; never a flag). Default: the client registered by this
    /// login before, else a Client ID Metadata Document, else dynamic registration.
    #[arg(long, global = true, value_name = "ID")]
    pub oauth_client_id: Option<String>,

    /// This client's Client ID Metadata Document (an https URL), used where the authorization
    /// server takes one.
    #[arg(long, global = true, value_name = "URL")]
    pub oauth_client_metadata_url: Option<String>,

    /// Tokens for the client itself (client_credentials, for CI) instead of a user's sign-in;
    /// needs --oauth-client-id and MCPGUARD_OAUTH_CLIENT_SECRET.
    #[arg(long, global = true, requires = "oauth_client_id")]
    pub oauth_client_credentials: bool,

    /// The loopback port the sign-in comes back to (default: any free one). Fix it when the
    /// authorization server only takes the redirect URI it registered.
    #[arg(long, global = true, value_name = "PORT")]
    pub oauth_callback_port: Option<u16>,

    /// Where logins are kept (0600 files, one per server and authorization server).
    /// Default: $MCPGUARD_OAUTH_STORE, else ~/.config/mcpguard/oauth.
    #[arg(long, global = true, value_name = "DIR", env = STORE_ENV, hide_env_values = true)]
    pub oauth_store: Option<std::path::PathBuf>,
}

impl OAuthArgs {
    /// Whether a flag of a login was given (they mean nothing without one).
    pub fn any(&self) -> bool {
        self.oauth_client_id.is_some()
            || self.oauth_client_metadata_url.is_some()
            || self.oauth_client_credentials
            || self.oauth_callback_port.is_some()
    }

    /// The client's identity, the secret read from the environment.
    pub fn settings(&self) -> anyhow::Result<Settings> {
        let settings = Settings {
            client_id: self.oauth_client_id.clone(),
            client_secret: std::env::var(CLIENT_SECRET_ENV)
                .ok()
                .filter(|s| !s.is_empty()),
            client_metadata_url: self.oauth_client_metadata_url.clone(),
            client_credentials: self.oauth_client_credentials,
            client_name: "mcpguard".to_owned(),
        };
        if settings.client_credentials && settings.client_secret.is_none() {
            anyhow::bail!(
                "--oauth-client-credentials needs the client's secret in {CLIENT_SECRET_ENV}"
            );
        }
        Ok(settings)
    }

    /// The store of logins.
    pub fn store(&self) -> anyhow::Result<Store> {
        match self.oauth_store.clone().or_else(Store::default_dir) {
            Some(dir) => Ok(Store::at(dir)),
            None => anyhow::bail!(
                "no place for the OAuth store: neither HOME nor XDG_CONFIG_HOME is set; give --oauth-store DIR"
            ),
        }
    }

    /// Binds the loopback now, so that a taken port is an error before anything is sent.
    pub fn loopback(&self, wait: Duration) -> anyhow::Result<Loopback> {
        let port = self.oauth_callback_port;
        Loopback::bind(port, wait).with_context(|| {
            format!(
                "cannot listen on 127.0.0.1:{} for the sign-in (--oauth-callback-port)",
                port.unwrap_or(0)
            )
        })
    }

    /// An OAuth client: `interactive`, it opens the browser when a login is needed (waiting
    /// `wait` for the user); otherwise it uses stored logins (and client credentials) only.
    /// `request` bounds each request to the authorization server and the wait for another
    /// process's login.
    pub fn client(
        &self,
        interactive: bool,
        wait: Duration,
        request: Duration,
    ) -> anyhow::Result<OAuth> {
        let user: Option<Box<dyn UserAgent>> = if interactive && !self.oauth_client_credentials {
            Some(Box::new(self.loopback(wait)?))
        } else {
            None
        };
        Ok(OAuth::new(
            self.settings()?,
            user,
            Some(self.store()?),
            request.max(wait),
        ))
    }
}

/// The loopback listener and the browser.
pub struct Loopback {
    listener: TcpListener,
    port: u16,
    wait: Duration,
}

impl Loopback {
    /// Listens on 127.0.0.1 (`port`, or one the system picks) for the redirect, waiting at
    /// most `wait` for it.
    pub fn bind(port: Option<u16>, wait: Duration) -> std::io::Result<Loopback> {
        let listener = TcpListener::bind(("127.0.0.1", port.unwrap_or(0)))?;
        let port = listener.local_addr()?.port();
        listener.set_nonblocking(true)?;
        Ok(Loopback {
            listener,
            port,
            wait,
        })
    }
}

impl UserAgent for Loopback {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn authorize(&mut self, url: &str) -> Result<String, String> {
        eprintln!("mcpguard: sign in to the server in your browser: {url}");
        open(url);
        let deadline = Instant::now() + self.wait;
        loop {
            match self.listener.accept() {
                Ok((mut stream, _)) => {
                    let _ = stream.set_nonblocking(false);
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                    let mut head = vec![0u8; 8192];
                    let n = stream.read(&mut head).unwrap_or(0);
                    let head = String::from_utf8_lossy(&head[..n]);
                    let target = head.split_whitespace().nth(1).unwrap_or("");
                    let Some(query) = target
                        .strip_prefix("/callback?")
                        .or_else(|| (target == "/callback").then_some(""))
                    else {
                        let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                        continue;
                    };
                    let page = "mcpguard: signed in; you can close this window.";
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                        page.len()
                    );
                    return Ok(query.to_owned());
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline {
                        return Err(format!(
                            "no sign-in came back to {} within {:.0} s (--timeout-total)",
                            self.redirect_uri(),
                            self.wait.as_secs_f64()
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => return Err(format!("the loopback listener failed: {e}")),
            }
        }
    }
}

/// Opens `url` with `BROWSER`, else the system's opener; a failure leaves the printed URL.
fn open(url: &str) {
    let command: Vec<String> = match std::env::var("BROWSER") {
        Ok(browser) if !browser.trim().is_empty() => {
            let words: Vec<String> = browser.split_whitespace().map(str::to_owned).collect();
            if words.iter().any(|w| w.contains("%s")) {
                words.iter().map(|w| w.replace("%s", url)).collect()
            } else {
                words.into_iter().chain([url.to_owned()]).collect()
            }
        }
        _ if cfg!(target_os = "macos") => vec!["open".into(), url.into()],
        _ if cfg!(windows) => vec!["explorer".into(), url.into()],
        _ => vec!["xdg-open".into(), url.into()],
    };
    let spawned = std::process::Command::new(&command[0])
        .args(&command[1..])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match spawned {
        // Reaped in the background: a browser may outlive the login.
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(e) => eprintln!(
            "mcpguard: could not start {} ({e}); open the URL above yourself",
            command[0]
        ),
    }
}
