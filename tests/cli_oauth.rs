//! Signing in to a remote server, as users run it: `mcpguard auth`, the stdio bridge
//! (`proxy --url`) driven over stdio by the Python SDK's client, and the HTTP proxy's `--oauth`,
//! against a real authorization server run locally (tests/oauth/server.py: the Python SDK's
//! authorization server, in front of an MCP server that checks the token's audience). The
//! login runs headless: BROWSER is a command that fetches the sign-in URL and follows the
//! redirect to mcpguard's loopback listener.
//!
//! These need the Python 3.12 virtualenv of scripts/python-servers.sh (`.ci/run` makes it and
//! runs them with `--ignored`); without it they fail and say so.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::listen::{Proxy, SECRET, agent, free_port};
use serde_json::{Value, json};

const BROWSER: &str = "curl -sSL -o /dev/null --max-time 20";

fn python() -> PathBuf {
    let python = common::repo("target/servers-venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `bash scripts/python-servers.sh` (the .ci/run does)",
        python.display()
    );
    python
}

/// tests/oauth/server.py on a port of its own, ended with the test.
struct AuthServer {
    child: Child,
    base: String,
}

impl AuthServer {
    fn start() -> AuthServer {
        let port = free_port();
        let child = Command::new(python())
            .arg(common::repo("tests/oauth/server.py"))
            .args(["--port", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python runs");
        let server = AuthServer {
            child,
            base: format!("http://127.0.0.1:{port}"),
        };
        let started = Instant::now();
        // Its own answer, not just any: another test's server could have taken the port.
        let ours = |r: ureq::http::Response<ureq::Body>| r.status() == 200;
        while !agent().get(&server.stats_url()).call().is_ok_and(ours) {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "tests/oauth/server.py did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    fn mcp(&self) -> String {
        format!("{}/mcp", self.base)
    }

    fn stats_url(&self) -> String {
        format!("{}/admin/stats", self.base)
    }

    /// Registrations, authorization requests and grants so far.
    fn stats(&self) -> Value {
        let mut r = agent().get(&self.stats_url()).call().unwrap();
        serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap()
    }

    /// Ends every access token: the next request with one gets a 401.
    fn expire_tokens(&self) {
        let r = agent()
            .post(&format!("{}/admin/expire", self.base))
            .send_empty()
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
    }
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpguard-oauth-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn auth(store: &Path, args: &[&str]) -> std::process::Output {
    common::mcpguard()
        .arg("auth")
        .args(args)
        .env("MCPGUARD_OAUTH_STORE", store)
        .env("BROWSER", BROWSER)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
#[ignore = "needs the Python 3.12 virtualenv of scripts/python-servers.sh; .ci/run runs it"]
fn auth_login_status_header_and_logout_against_a_real_authorization_server() {
    let server = AuthServer::start();
    let store = scratch("auth");
    let url = server.mcp();

    let login = auth(&store, &["login", "--url", &url]);
    assert_eq!(common::code(&login), 0, "{}", text(&login.stderr));
    let said = text(&login.stderr);
    assert!(said.contains(&format!("signed in to {url}")), "{said}");
    assert!(said.contains("scope mcp:tools"), "{said}");
    assert_eq!(server.stats()["authorizations"], 1);

    // One file, readable by the user alone, holding the tokens.
    let files: Vec<PathBuf> = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert_eq!(files.len(), 1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let kept: Value = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    let token = kept["accessToken"].as_str().unwrap().to_owned();
    assert!(kept["refreshToken"].is_string());
    assert_eq!(kept["resource"], url.as_str());

    let status = auth(&store, &["status", "--url", &url, "--format", "json"]);
    assert_eq!(common::code(&status), 0);
    let rows: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(rows[0]["server"], url.as_str());
    assert_eq!(rows[0]["issuer"], server.base.as_str());
    assert_eq!(rows[0]["scopes"], json!(["mcp:tools"]));
    assert_eq!(rows[0]["refreshable"], true);
    let table = auth(&store, &["status"]);
    assert!(
        text(&table.stdout).contains("1 login, in"),
        "{}",
        text(&table.stdout)
    );

    // The headersHelper form, and the header line; the token is printed only here.
    let header = auth(&store, &["header", "--url", &url]);
    assert_eq!(common::code(&header), 0);
    let object: Value = serde_json::from_slice(&header.stdout).unwrap();
    assert_eq!(object["Authorization"], format!("Bearer {token}"));
    let line = auth(&store, &["header", "--url", &url, "--format", "line"]);
    assert_eq!(
        text(&line.stdout),
        format!("Authorization: Bearer {token}\n")
    );
    // The token works on the server, and nothing else printed it.
    let mut answer = agent()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", &format!("Bearer {token}"))
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            .to_string(),
        )
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    assert!(
        answer
            .body_mut()
            .read_to_string()
            .unwrap()
            .contains("protocolVersion")
    );
    for output in [&login, &status, &table] {
        assert!(!text(&output.stdout).contains(&token));
        assert!(!text(&output.stderr).contains(&token));
    }

    let logout = auth(&store, &["logout", "--url", &url]);
    assert_eq!(common::code(&logout), 0);
    let said = text(&logout.stderr);
    assert!(said.contains(&format!("signed out of {url}")), "{said}");
    assert!(
        said.contains(&format!("revoked at {}", server.base)),
        "{said}"
    );
    // Revoked at the authorization server: the token no longer opens the server.
    let refused = agent()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", &format!("Bearer {token}"))
        .send(initialize(9).to_string())
        .unwrap();
    assert_eq!(refused.status().as_u16(), 401);
    let gone = auth(&store, &["header", "--url", &url]);
    assert_eq!(common::code(&gone), 1);
    assert!(
        text(&gone.stderr).contains(&format!("run `mcpguard auth login --url {url}`")),
        "{}",
        text(&gone.stderr)
    );
    assert!(gone.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&store);
}

/// tests/oauth/drive_bridge.py: the Python SDK's client starts `mcpguard proxy --url` and
/// drives it over stdio; its JSON report.
fn drive_bridge(store: &Path, url: &str, calls: &[&str], mode: &str) -> std::process::Child {
    // A user who takes a second to sign in: both bridges meet their 401 while the first
    // login is still open.
    let browser = store.join("slow-browser.sh");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\nsleep 1\nexec {BROWSER} \"$1\"\n"),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut command = Command::new(python());
    command
        .arg(common::repo("tests/oauth/drive_bridge.py"))
        .args(["--mcpguard", env!("CARGO_BIN_EXE_mcpguard")])
        .args(["--url", url, "--mode", mode])
        .env("MCPGUARD_OAUTH_STORE", store)
        .env("BROWSER", &browser)
        .env_remove("MCPGUARD_CONFIG")
        .current_dir(store)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for call in calls {
        command.arg("--call").arg(call);
    }
    command.spawn().unwrap()
}

fn report(child: Child) -> (Value, String) {
    let output = child.wait_with_output().unwrap();
    let stderr = text(&output.stderr);
    assert!(
        output.status.success(),
        "the bridge's client failed: {stderr}"
    );
    (serde_json::from_slice(&output.stdout).unwrap(), stderr)
}

#[test]
#[ignore = "needs the Python 3.12 virtualenv of scripts/python-servers.sh; .ci/run runs it"]
fn two_bridges_started_at_once_sign_in_once_and_shrink_what_the_remote_server_floods() {
    let server = AuthServer::start();
    let store = scratch("bridges");
    let url = server.mcp();
    // Both start with no login: one signs in, the other waits on the store's lock and uses
    // that login. One era each.
    let first = drive_bridge(
        &store,
        &url,
        &["whoami", r#"big_log={"lines": 3000}"#],
        "auto",
    );
    let second = drive_bridge(&store, &url, &["whoami"], "legacy");
    let (a, a_log) = report(first);
    let (b, b_log) = report(second);
    let stats = server.stats();
    assert_eq!(stats["authorizations"], 1, "{stats} {a_log} {b_log}");
    assert_eq!(stats["codeGrants"], 1, "{stats}");
    let signing_in = [&a_log, &b_log]
        .iter()
        .filter(|l| l.contains("sign in to the server in your browser"))
        .count();
    assert_eq!(signing_in, 1);

    for r in [&a, &b] {
        assert_eq!(
            r["tools"],
            json!(["whoami", "big_log", "mcpguard_more"]),
            "{r}"
        );
        assert_eq!(r["calls"][0]["text"], json!(["signed in as test-user"]));
    }
    // 3,000 log lines (about 490 KB) come back as a preview with the way to the rest.
    let shrunk = a["calls"][1]["text"].as_array().unwrap();
    let shown: usize = shrunk.iter().map(|t| t.as_str().unwrap().len()).sum();
    assert!(shown < 10_000, "{shown} characters reached the client");
    let joined = shrunk
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect::<String>();
    assert!(joined.contains("ax://big_log/"), "{joined}");
    assert!(joined.contains("mcpguard_more"), "{joined}");
    assert!(
        a_log.contains("big_log: ") && a_log.contains("was "),
        "{a_log}"
    );

    // The next start uses the kept login: no browser, no new authorization.
    let (again, again_log) = report(drive_bridge(&store, &url, &["whoami"], "auto"));
    assert_eq!(again["calls"][0]["text"], json!(["signed in as test-user"]));
    assert!(!again_log.contains("sign in to the server"), "{again_log}");
    assert_eq!(server.stats()["authorizations"], 1);
    let _ = std::fs::remove_dir_all(&store);
}

/// `proxy --listen 127.0.0.1:0 --url URL --oauth` with the store.
fn oauth_proxy(store: &Path, upstream: &str) -> Proxy {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpguard"));
    command
        .args([
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--url",
            upstream,
            "--oauth",
        ])
        .env("MCPGUARD_CURSOR_SECRET", SECRET)
        .env("MCPGUARD_OAUTH_STORE", store)
        .env_remove("MCPGUARD_CONFIG")
        .current_dir(store);
    Proxy::launch(command)
}

/// One legacy POST through the proxy: status, the session id, the WWW-Authenticate header,
/// and the JSON-RPC message (from a JSON body or the last event of a stream).
fn post(
    url: &str,
    session: Option<&str>,
    body: Value,
) -> (u16, Option<String>, Option<String>, Value) {
    let mut request = agent()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(s) = session {
        request = request.header("mcp-session-id", s);
    }
    let mut response = request.send(body.to_string()).unwrap();
    let status = response.status().as_u16();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let (session, challenge) = (header("mcp-session-id"), header("www-authenticate"));
    let text = response.body_mut().read_to_string().unwrap_or_default();
    let message = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .rfind(|d| !d.is_empty())
        .map_or_else(|| serde_json::from_str(&text), serde_json::from_str)
        .unwrap_or(Value::Null);
    (status, session, challenge, message)
}

fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "oauth-test", "version": "1"}}})
}

fn call_whoami(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "whoami", "arguments": {}}})
}

#[test]
#[ignore = "needs the Python 3.12 virtualenv of scripts/python-servers.sh; .ci/run runs it"]
fn the_http_proxy_holds_the_login_and_a_401_mid_session_is_refreshed_out_of_sight() {
    let server = AuthServer::start();
    let store = scratch("http");
    let upstream = server.mcp();
    let proxy = oauth_proxy(&store, &upstream);

    // Not signed in yet: a JSON-RPC error that says how, never the upstream's 401 (which
    // would start the client's own OAuth against the proxy).
    let (status, _, challenge, message) = post(&proxy.url, None, initialize(1));
    assert_eq!(status, 200, "{message}");
    assert_eq!(challenge, None);
    let error = message["error"]["message"].as_str().unwrap_or_default();
    assert!(
        error.contains(&format!("run `mcpguard auth login --url {upstream}`")),
        "{message}"
    );

    // Signed in once, by the command a user runs; the proxy picks the login up.
    let login = auth(&store, &["login", "--url", &upstream]);
    assert_eq!(common::code(&login), 0, "{}", text(&login.stderr));
    let (status, session, _, message) = post(&proxy.url, None, initialize(2));
    assert_eq!(status, 200, "{message}");
    assert_eq!(
        message["result"]["protocolVersion"], "2025-11-25",
        "{message}"
    );
    let session = session.expect("a legacy session");
    let (_, _, _, message) = post(&proxy.url, Some(&session), call_whoami(3));
    assert_eq!(
        message["result"]["content"][0]["text"],
        "signed in as test-user"
    );

    // Every access token ends mid-session: the next call gets one refresh and one retry,
    // and the client sees its answer, not a 401.
    server.expire_tokens();
    let (status, _, challenge, message) = post(&proxy.url, Some(&session), call_whoami(4));
    assert_eq!((status, challenge), (200, None), "{message}");
    assert_eq!(
        message["result"]["content"][0]["text"], "signed in as test-user",
        "{message}"
    );
    let stats = server.stats();
    assert_eq!(stats["refreshGrants"], 1, "{stats}");
    assert_eq!(stats["authorizations"], 1, "{stats}");
    assert!(
        proxy.log().contains("login renewed, request sent again"),
        "{}",
        proxy.log()
    );
    // The refreshed login is kept for every process: `auth header` gives the new token.
    let header = auth(&store, &["header", "--url", &upstream]);
    let object: Value = serde_json::from_slice(&header.stdout).unwrap();
    let kept = object["Authorization"].as_str().unwrap().to_owned();
    assert!(!proxy.log().contains(kept.trim_start_matches("Bearer ")));
    let _ = std::fs::remove_dir_all(&store);
}

#[test]
#[ignore = "needs the Python 3.12 virtualenv of scripts/python-servers.sh; .ci/run runs it"]
fn a_static_authorization_the_server_refuses_gives_way_to_the_login() {
    // `--header 'Authorization: …'` from an old config, which the server no longer takes: the
    // bridge signs in and sends its login instead of the header, never both.
    let server = AuthServer::start();
    let store = scratch("static");
    let mut command = Command::new(python());
    command
        .arg(common::repo("tests/oauth/drive_bridge.py"))
        .args(["--mcpguard", env!("CARGO_BIN_EXE_mcpguard")])
        .args(["--url", &server.mcp(), "--call", "whoami"])
        .arg("--proxy-arg=--header=Authorization: Bearer revoked-long-ago")
        .env("MCPGUARD_OAUTH_STORE", &store)
        .env("BROWSER", BROWSER)
        .env_remove("MCPGUARD_CONFIG")
        .current_dir(&store)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (answer, log) = report(command.spawn().unwrap());
    assert_eq!(
        answer["calls"][0]["text"],
        json!(["signed in as test-user"]),
        "{log}"
    );
    assert_eq!(server.stats()["authorizations"], 1);
    let _ = std::fs::remove_dir_all(&store);
}

#[test]
#[ignore = "needs the Python 3.12 virtualenv of scripts/python-servers.sh; .ci/run runs it"]
fn a_gateway_reaches_a_remote_server_behind_oauth_with_the_stored_login() {
    let server = AuthServer::start();
    let store = scratch("gateway");
    let url = server.mcp();
    let servers = store.join(".mcp.json");
    std::fs::write(
        &servers,
        json!({"mcpServers": {
            "remote": {"type": "http", "url": url},
            "local": {"command": common::live::fixture(), "args": []}}})
        .to_string(),
    )
    .unwrap();
    let gateway = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpguard"));
        cmd.arg("proxy")
            .arg("--mcp-config")
            .arg(&servers)
            .arg("--catalog-cache")
            .arg(store.join("catalogs"))
            .arg("--pins")
            .arg(store.join("pins.json"))
            .arg("--oauth-store")
            .arg(store.join("oauth"))
            // No browser: a gateway never signs in by itself; it says how.
            .env("BROWSER", "false");
        common::session::Session::spawn(cmd, &store)
    };
    let said = |result: &Value| {
        result["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    };

    // Not signed in: the local server works, the remote one says how to sign in.
    let mut before = gateway();
    before.initialize();
    let local = before.call("local__get_report", json!({}));
    assert_eq!(local["structuredContent"]["nights"], 143, "{local}");
    let refused = before.call("remote__whoami", json!({}));
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        said(&refused).contains(&format!("mcpguard auth login --url {url}")),
        "{refused}"
    );
    before.finish();

    let login = auth(&store.join("oauth"), &["login", "--url", &url]);
    assert_eq!(common::code(&login), 0, "{}", text(&login.stderr));

    // Signed in: the gateway lists the remote server's tools and calls them with the login.
    let mut after = gateway();
    after.initialize();
    let list = after.request("tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"remote__whoami"), "{names:?}");
    assert!(names.contains(&"local__get_report"), "{names:?}");
    let whoami = after.call("remote__whoami", json!({}));
    assert_eq!(said(&whoami), "signed in as test-user", "{whoami}");
    let (_, log) = after.finish();
    assert!(!log.contains("Bearer "), "a token reached the log: {log}");
    assert_eq!(server.stats()["authorizations"], 1);
    let _ = std::fs::remove_dir_all(&store);
}
