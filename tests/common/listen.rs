//! A `mcpguard proxy --listen` process for the HTTP tests: started on a free port, its log
//! collected, killed when dropped; and the HTTP client the tests speak to it with.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The cursor secret of the proxies the tests start.
pub const SECRET: &str = "4d6367756172642d746573742d7365637265742d6e6f742d666f722d70726f64";

/// A `mcpguard proxy --listen` process on a free port, its log collected; killed when dropped.
pub struct Proxy {
    pub child: Child,
    pub url: String,
    pub metrics: Option<String>,
    log: Arc<Mutex<String>>,
}

impl Proxy {
    pub fn start(upstream: &str, extra: &[&str]) -> Proxy {
        Proxy::with(&[&["--url", upstream], extra].concat())
    }

    /// `proxy --listen 127.0.0.1:0` and `args` (the upstream and options).
    pub fn with(args: &[&str]) -> Proxy {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcpguard"));
        command
            .args(["proxy", "--listen", "127.0.0.1:0"])
            .args(args)
            .env("MCPGUARD_CURSOR_SECRET", SECRET)
            .env_remove("MCPGUARD_CONFIG");
        Proxy::launch(command)
    }

    /// Starts `command` (a `mcpguard proxy --listen` of the caller's making) and waits for it
    /// to listen.
    pub fn launch(mut command: Command) -> Proxy {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcpguard runs");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("listening on") {
                    let _ = tx.send(line.clone());
                }
                let mut l = sink.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
        });
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("the proxy did not start: {}", log.lock().unwrap()));
        let url = line
            .split("listening on ")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .unwrap()
            .to_owned();
        let metrics = line
            .split("metrics at ")
            .nth(1)
            .map(|m| m.trim().trim_end_matches("/metrics").to_owned());
        Proxy {
            child,
            url,
            metrics,
            log,
        }
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    pub fn sigterm(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// How the proxy exited, within 10 s.
    pub fn exit_status(&mut self) -> std::process::ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(started.elapsed() < Duration::from_secs(10), "still running");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// A port on 127.0.0.1 that refuses connections for as long as the socket is held: bound, never
/// listening. Unlike a port that was free a moment ago, no other test's server can take it
/// meanwhile, so a connection to it is refused at once, every time.
pub fn refused_port() -> (tokio::net::TcpSocket, u16) {
    let socket = tokio::net::TcpSocket::new_v4().expect("a TCP socket");
    socket
        .bind("127.0.0.1:0".parse().unwrap())
        .expect("a port on 127.0.0.1");
    let port = socket.local_addr().unwrap().port();
    (socket, port)
}

/// A port nothing listens on now (for a server the test starts on it).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
