//! The CLI's side of an OAuth login (the library's `mcpguard::oauth` does the protocol): the
//! browser and the one-shot loopback callback. The authorization URL is opened with the
//! `BROWSER` variable's command when set (a `%s` in it is replaced by the URL, else the URL is
//! appended), else with the system's opener, and is always printed to stderr. The redirect
//! comes back to `http://127.0.0.1:PORT/callback` (a random port, or `--oauth-callback-port`);
//! the first request there ends the wait. With `BROWSER` set to a command that fetches the URL
//! and follows redirects, the login runs headless (the tests and the conformance suite).

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use mcpguard::oauth::session::UserAgent;

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
