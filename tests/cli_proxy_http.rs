//! `mcpguard proxy --listen` as its users run it: real proxy processes on loopback ports in
//! front of the rmcp fixture server over Streamable HTTP, spoken to in both eras. Two
//! instances share a store and a secret and serve one result page by page; faults get their
//! defined status and JSON-RPC error while the proxy stays up; SIGTERM stops it cleanly.
//! The Redis store has its own test (ignored by default: `.ci/run` installs redis-server and
//! runs it), which kills Redis mid-run.

mod common;

use std::io::{BufRead, BufReader, Write as _};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::live::HttpFixture;
use serde_json::{Value, json};

use common::listen::{Proxy, agent, free_port};
use common::processes::servers_of;

/// What came back: status, headers of interest, and the JSON-RPC messages (from a JSON body
/// or every event of a stream).
struct Answer {
    status: u16,
    session: Option<String>,
    messages: Vec<Value>,
    body: String,
}

impl Answer {
    /// The response (the message with an id).
    fn response(&self) -> &Value {
        self.messages
            .iter()
            .rev()
            .find(|m| m.get("id").is_some() && m.get("method").is_none())
            .unwrap_or_else(|| panic!("no response in {}: {}", self.status, self.body))
    }
}

fn post(url: &str, headers: &[(&str, &str)], body: &Value) -> Answer {
    post_raw(url, headers, body.to_string().into_bytes())
}

fn post_raw(url: &str, headers: &[(&str, &str)], body: Vec<u8>) -> Answer {
    let mut request = agent()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let mut response = request.send(&body[..]).expect("the proxy answers");
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    let sse = response
        .headers()
        .get("content-type")
        .is_some_and(|v| v.to_str().unwrap().starts_with("text/event-stream"));
    let text = response
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .unwrap_or_default();
    let messages = if sse {
        text.split("\n\n")
            .filter_map(|event| {
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                // An event without data (a priming event: an id and a retry) carries no message.
                let data = data.join("\n");
                (!data.is_empty()).then(|| serde_json::from_str(&data).unwrap())
            })
            .collect()
    } else {
        // Not JSON (a server's plain-text refusal): no messages; the body is kept.
        serde_json::from_str(&text).into_iter().collect()
    };
    Answer {
        status,
        session,
        messages,
        body: text,
    }
}

/// A POST of `size` bytes of JSON whitespace over a plain socket: the status and the body.
fn oversized_post(url: &str, size: usize) -> (u16, String) {
    raw_post(url, &format!("Content-Length: {size}"), |socket| {
        let _ = socket.write_all(&vec![b' '; size.min(1 << 16)]);
    })
}

/// A POST over a raw socket: `framing` is its length header, `send` writes the body (and may
/// stop early). The status and the whole answer, as the proxy sent them.
fn raw_post(
    url: &str,
    framing: &str,
    send: impl FnOnce(&mut std::net::TcpStream),
) -> (u16, String) {
    raw_post_as(url, None, framing, send)
}

/// [`raw_post`] with the `Host` given (`None`: the URL's own).
/// `host:port` of an `http://` URL.
fn authority_of(url: &str) -> &str {
    url.trim_start_matches("http://").split('/').next().unwrap()
}

fn raw_post_as(
    url: &str,
    host: Option<&str>,
    framing: &str,
    send: impl FnOnce(&mut std::net::TcpStream),
) -> (u16, String) {
    use std::io::{Read, Write};
    let authority = authority_of(url);
    let host = host.unwrap_or(authority);
    let mut socket = std::net::TcpStream::connect(authority).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(
        socket,
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n{framing}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    send(&mut socket);
    let mut answer = Vec::new();
    let _ = socket.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

fn get(url: &str) -> (u16, String) {
    let mut r = agent().get(url).call().expect("the proxy answers");
    (r.status().as_u16(), r.body_mut().read_to_string().unwrap())
}

/// The headers of a request in the legacy session `sid`.
fn in_session(sid: &str) -> [(&'static str, &str); 2] {
    [
        ("mcp-session-id", sid),
        ("mcp-protocol-version", "2025-11-25"),
    ]
}

/// A legacy session through `url`: initialize, initialized; its id.
fn session(url: &str) -> String {
    let init = post(
        url,
        &[],
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "cli_proxy_http", "version": "1"}}}),
    );
    assert_eq!(init.status, 200, "{}", init.body);
    let id = init.session.expect("the server assigns a session");
    let done = post(
        url,
        &in_session(&id),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(done.status, 202, "{}", done.body);
    id
}

fn call(tool: &str, arguments: Value, id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
}

/// The bookings of a page the proxy made: the JSON text of its first content block.
fn page(response: &Value) -> (Vec<String>, Option<String>) {
    let text = response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("not a page: {response}"));
    let inner: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: not a page: {response}"));
    let ids = inner["bookings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_owned())
        .collect();
    (ids, inner["nextCursor"].as_str().map(str::to_owned))
}

/// Reads a shrunk list_bookings result to its end through `proxies` in turn; every id once,
/// in order (300 unless the call asked for a `count`).
fn read_to_the_end(proxies: &[&str], first: &Value, headers: &[(&str, &str)]) -> usize {
    read_all(proxies, first, headers, 300)
}

fn read_all(proxies: &[&str], first: &Value, headers: &[(&str, &str)], count: usize) -> usize {
    let (mut ids, mut cursor) = page(first);
    let mut reads = 0;
    while let Some(c) = cursor {
        let through = proxies[reads % proxies.len()];
        reads += 1;
        let next = post(
            through,
            headers,
            &call("mcpguard_more", json!({"cursor": c}), 100 + reads as u64),
        );
        assert_eq!(next.status, 200, "{}", next.body);
        let (more, c) = page(next.response());
        ids.extend(more);
        cursor = c;
    }
    let expected: Vec<String> = (0..count).map(|i| format!("bk_{i:05}")).collect();
    assert_eq!(ids, expected, "every booking once, in order");
    reads
}

#[test]
fn two_instances_serve_one_result_page_by_page_and_keep_it_to_its_credential() {
    let fixture = HttpFixture::start(None);
    let store = tempfile::tempdir().unwrap();
    let dir = store.path().to_str().unwrap();
    let a = Proxy::start(
        &fixture.url,
        &["--store", dir, "--metrics-listen", "127.0.0.1:0"],
    );
    let b = Proxy::start(&fixture.url, &["--store", dir]);
    let alice = [("authorization", "Bearer alice")];

    // A legacy session opened through A, the call through A: the 300 bookings come back as a
    // first page, valid JSON-RPC, with the way on.
    let sid = session(&a.url);
    let legacy = [
        ("authorization", "Bearer alice"),
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let first = post(&a.url, &legacy, &call("list_bookings", json!({}), 1));
    assert_eq!(first.status, 200, "{}", first.body);
    let response = first.response();
    assert_eq!(
        response["result"]["_meta"]["mcpguard/budget"]["outcome"], "paginated",
        "{response}"
    );
    // The rest alternately through B and A.
    let reads = read_to_the_end(&[&b.url, &a.url], response, &alice);
    assert!(reads >= 5, "{reads} reads");

    // The artifact is alice's: the same reference with another credential is not found.
    let reference = response["result"]["_meta"]["mcpguard/budget"]["artifactRef"]
        .as_str()
        .unwrap();
    let as_alice = post(
        &b.url,
        &alice,
        &call(
            "mcpguard_more",
            json!({"ref": reference, "lines": "1-2"}),
            7,
        ),
    );
    assert_ne!(
        as_alice.response()["result"]["isError"],
        true,
        "{}",
        as_alice.body
    );
    let as_bob = post(
        &b.url,
        &[("authorization", "Bearer bob")],
        &call(
            "mcpguard_more",
            json!({"ref": reference, "lines": "1-2"}),
            8,
        ),
    );
    assert_eq!(
        as_bob.response()["result"]["isError"],
        true,
        "{}",
        as_bob.body
    );
    for log in [a.log(), b.log()] {
        assert!(
            !log.contains("alice") && !log.contains("Bearer"),
            "credentials in the log:\n{log}"
        );
    }

    // A 2026-07-28 request (no session) through B: answered, resultType kept.
    let modern_call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "list_bookings", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let modern = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "list_bookings"),
    ];
    let answer = post(&b.url, &modern, &modern_call);
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.response()["result"]["resultType"],
        "complete",
        "{}",
        answer.body
    );
    read_to_the_end(&[&a.url], answer.response(), &[]);

    // /metrics and /health of A: the savings and the adoption rate are there.
    let metrics = a.metrics.as_ref().unwrap();
    let (status, text) = get(&format!("{metrics}/metrics"));
    assert_eq!(status, 200);
    let figure = |name: &str| -> f64 {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in\n{text}"))
    };
    assert!(figure("mcpguard_more_reads_total") >= 3.0, "{text}");
    assert!(figure("mcpguard_pagination_adoption_ratio") > 0.0, "{text}");
    assert!(text.contains("mcpguard_response_tokens_sum{tool=\"list_bookings\",outcome=\"paginated\",stage=\"before\"}"), "{text}");
    let (status, health) = get(&format!("{metrics}/health"));
    let health: Value = serde_json::from_str(&health).unwrap();
    assert_eq!(
        (status, health["status"].as_str()),
        (200, Some("ready")),
        "{health}"
    );
    assert_eq!(health["readableResults"], 1, "{health}");
}

#[test]
fn faults_get_their_status_and_error_and_the_proxy_stays_up() {
    let fixture = HttpFixture::start(None);
    let store = tempfile::tempdir().unwrap();
    let dir = store.path().to_str().unwrap();
    let p = Proxy::start(
        &fixture.url,
        &[
            "--store",
            dir,
            "--timeout",
            "1",
            "--max-request-bytes",
            "100000",
        ],
    );
    // Not JSON.
    let bad = post_raw(&p.url, &[], b"{not json".to_vec());
    assert_eq!(
        (bad.status, bad.response()["error"]["code"].as_i64()),
        (400, Some(-32700))
    );
    // Over the request cap: refused from its Content-Length, before the body is read (so
    // over a raw socket: a client library may fail on the write the proxy did not wait for).
    let (status, body) = oversized_post(&p.url, 200_000);
    assert_eq!(status, 413, "{body}");
    assert!(
        body.contains("-32600") && body.contains("--max-request-bytes"),
        "{body}"
    );
    // 2026-07-28 headers that disagree with the body.
    let mismatch = post(
        &p.url,
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "search"),
        ],
        &call("list_bookings", json!({}), 3),
    );
    assert_eq!(mismatch.status, 400);
    assert_eq!(mismatch.response()["error"]["code"], -32020);
    assert_eq!(mismatch.response()["id"], 3);
    // A session that does not exist: the server's own answer passes.
    let unknown = post(
        &p.url,
        &in_session("no-such-session"),
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
    );
    assert!(
        matches!(unknown.status, 400 | 404),
        "{} {}",
        unknown.status,
        unknown.body
    );
    // A server slower than --timeout: 504 and -32001 for that request.
    let sid = session(&p.url);
    let legacy = in_session(&sid);
    let started = Instant::now();
    let slow = post(&p.url, &legacy, &call("hang", json!({}), 5));
    assert!(started.elapsed() < Duration::from_secs(10));
    let code = slow.response()["error"]["code"].as_i64();
    assert!(
        (slow.status, code) == (504, Some(-32001)) || (slow.status, code) == (200, Some(-32001)),
        "{} {}",
        slow.status,
        slow.body
    );
    // Still serving.
    let fine = post(&p.url, &legacy, &call("search", json!({"query": "x"}), 6));
    assert_eq!(fine.status, 200, "{}", fine.body);
    assert!(
        fine.response()["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("no results")
    );

    // The server gone: 502 and a JSON-RPC error naming the cause, for each request.
    drop(fixture);
    let gone = post(&p.url, &legacy, &call("search", json!({}), 7));
    assert_eq!(gone.status, 502, "{}", gone.body);
    let message = gone.response()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("cannot be reached"), "{message}");
    assert_eq!(gone.response()["id"], 7);
}

#[test]
fn unreadable_results_are_shrunk_and_batches_refused_in_front_of_a_command_and_a_url() {
    let store = tempfile::tempdir().unwrap();
    let dir = store.path().to_str().unwrap();
    let fixture = common::live::fixture();
    let http = HttpFixture::start(None);
    let command = Proxy::with(&["--store", dir, "--", fixture.to_str().unwrap()]);
    let url = Proxy::start(&http.url, &["--store", dir]);
    for p in [&command, &url] {
        let sid = session(&p.url);
        let legacy = in_session(&sid);
        for (id, kind) in [(1, "surrogate"), (2, "bignum"), (3, "deep")] {
            let answer = post(
                &p.url,
                &legacy,
                &call("unreadable", json!({"kind": kind}), id),
            );
            assert_eq!(answer.status, 200, "{kind}: {}", answer.body);
            assert!(
                answer.body.len() < 20_000,
                "{kind}: {} bytes",
                answer.body.len()
            );
            let meta = &answer.response()["result"]["_meta"]["mcpguard/budget"];
            assert!(
                meta["estimatedTokens"].as_u64().unwrap() <= 4000,
                "{kind}: {meta}"
            );
            assert!(
                meta["originalBytes"].as_u64().unwrap() > 300_000,
                "{kind}: {meta}"
            );
        }
        // A JSON-RPC batch: refused whole with -32600, never an empty stream.
        let batch = json!([
            {"jsonrpc": "2.0", "id": 10, "method": "ping"},
            {"jsonrpc": "2.0", "id": 11, "method": "tools/list"}
        ]);
        let refused = post(&p.url, &legacy, &batch);
        assert_eq!(refused.status, 400, "{}", refused.body);
        assert_eq!(
            refused.response()["error"]["code"],
            -32600,
            "{}",
            refused.body
        );
    }
}

/// A POST of `size` bytes of body sent chunked (no Content-Length), as a client streaming a
/// 100 MB upload would: refused once the cap is passed, without reading the rest.
fn chunked_post(url: &str, size: usize) -> (u16, String) {
    raw_post(url, "Transfer-Encoding: chunked", |socket| {
        let piece = vec![b' '; 1 << 20];
        let mut sent = 0;
        while sent < size {
            let head = format!("{:x}\r\n", piece.len());
            let wrote = socket
                .write_all(head.as_bytes())
                .and_then(|()| socket.write_all(&piece))
                .and_then(|()| socket.write_all(b"\r\n"));
            if wrote.is_err() {
                break; // the proxy answered and closed: the rest was never read
            }
            sent += piece.len();
        }
        let _ = socket.write_all(b"0\r\n\r\n");
    })
}

#[test]
fn broken_servers_and_clients_get_defined_answers_and_the_proxy_stays_up() {
    // A server that answers with an HTML error page under a JSON content type.
    let fixture = HttpFixture::start(None);
    // (--quiet still says where it listens: Proxy::start reads it.)
    let html = Proxy::start(&fixture.url.replace("/mcp", "/garbage"), &["--quiet"]);
    let answer = post(&html.url, &[], &call("search", json!({"query": "x"}), 1));
    assert_eq!(answer.status, 502, "{}", answer.body);
    assert_eq!(answer.response()["error"]["code"], -32000);
    assert_eq!(answer.response()["id"], 1);

    // A server that resets its answer stream mid-way: the request gets an error, not silence.
    let cutting = HttpFixture::start(Some("cut-always"));
    let p = Proxy::start(&cutting.url, &[]);
    let sid = session(&p.url);
    let legacy = in_session(&sid);
    let cut = post(&p.url, &legacy, &call("search", json!({"query": "x"}), 2));
    let error = &cut.response()["error"];
    assert_eq!(error["code"], -32000, "{}", cut.body);
    assert!(
        error["message"].as_str().unwrap().contains("stream ended"),
        "{error}"
    );

    // A server that floods: 5 MB for one answer, over --max-message-bytes.
    let p = Proxy::start(
        &fixture.url,
        &[
            "--max-message-bytes",
            "1000000",
            "--metrics-listen",
            "127.0.0.1:0",
        ],
    );
    let sid = session(&p.url);
    let legacy = in_session(&sid);
    let flood = post(&p.url, &legacy, &call("huge", json!({}), 3));
    assert!(
        flood.body.len() < 10_000,
        "{} bytes passed",
        flood.body.len()
    );
    let error = &flood.response()["error"];
    assert_eq!(error["code"], -32000, "{}", flood.body);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("--max-message-bytes"),
        "{error}"
    );

    // A client that sends 100 MB without a Content-Length: refused once past the cap.
    let (status, body) = chunked_post(&p.url, 100 << 20);
    assert_eq!(status, 413, "{body}");

    // A client that goes away while its answer is on the way: the request is dropped, the
    // in-flight gauge comes back to zero, and the next client is served.
    {
        use std::io::Write;
        let authority = authority_of(&p.url);
        let mut socket = std::net::TcpStream::connect(authority).unwrap();
        let body = call("hang", json!({}), 4).to_string();
        write!(
            socket,
            "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {sid}\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        std::thread::sleep(Duration::from_millis(300));
    }
    let metrics = format!("{}/metrics", p.metrics.as_ref().unwrap());
    let started = Instant::now();
    loop {
        let (_, text) = get(&metrics);
        if text.contains("mcpguard_in_flight_requests 0") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "still in flight: {text}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let fine = post(&p.url, &legacy, &call("search", json!({"query": "y"}), 5));
    assert_eq!(fine.status, 200, "{}", fine.body);
    assert!(fine.response()["result"]["content"][0]["text"].is_string());
}

#[cfg(unix)]
#[test]
fn sigterm_finishes_what_is_in_flight_and_exits_zero() {
    let fixture = HttpFixture::start(None);
    let store = tempfile::tempdir().unwrap();
    let mut p = Proxy::start(
        &fixture.url,
        &[
            "--store",
            store.path().to_str().unwrap(),
            "--shutdown-grace",
            "5s",
        ],
    );
    let sid = session(&p.url);
    // A request in flight when the signal comes is still answered.
    let url = p.url.clone();
    let in_flight = std::thread::spawn(move || {
        let legacy = in_session(&sid);
        post(&url, &legacy, &call("read_log", json!({}), 1))
    });
    std::thread::sleep(Duration::from_millis(20));
    p.sigterm();
    let answer = in_flight.join().unwrap();
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(p.exit_status().code(), Some(0), "{}", p.log());
    assert!(p.log().contains("SIGTERM"), "{}", p.log());
}

/// A redis-server of our own on a free port, stopped when dropped.
struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    fn start(port: u16) -> RedisServer {
        let child = Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(Stdio::null())
            .spawn()
            .expect(
                "redis-server is missing: run scripts/redis.sh (Debian's redis-server package)",
            );
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "redis-server did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        RedisServer { child, port }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_legacy_stream_closed_before_its_answer_is_resumed_with_last_event_id() {
    // SSE polling (2025-11-25): the server closes each POST's stream after a numbered priming
    // event and gives the answer to a GET with Last-Event-ID. The proxy goes back for it, so
    // the answer still passes through the policy (the 300 bookings come back as a page).
    let fixture = HttpFixture::start(Some("sse-poll"));
    let store = tempfile::tempdir().unwrap();
    let p = Proxy::start(&fixture.url, &["--store", store.path().to_str().unwrap()]);
    let sid = session(&p.url);
    let legacy = in_session(&sid);
    let first = post(&p.url, &legacy, &call("list_bookings", json!({}), 1));
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(
        first.response()["result"]["_meta"]["mcpguard/budget"]["outcome"],
        "paginated",
        "{}",
        first.body
    );
    // The server's priming event (an id, its retry, empty data) reaches the client too.
    let priming = first.body.split("\n\n").next().unwrap_or_default();
    assert!(
        priming.starts_with("id: ") && priming.contains("\nretry: ") && priming.ends_with("data: "),
        "{}",
        first.body
    );
    read_to_the_end(&[&p.url], first.response(), &legacy);
    assert!(p.log().contains("Last-Event-ID"), "{}", p.log());

    // A server whose resumed stream never delivers: the request ends at --timeout with its
    // error, and the proxy serves on.
    let never = HttpFixture::start(Some("sse-never"));
    let q = Proxy::start(
        &never.url,
        &["--store", store.path().to_str().unwrap(), "--timeout", "2"],
    );
    let sid = session(&q.url);
    let legacy = in_session(&sid);
    let started = Instant::now();
    let stuck = post(&q.url, &legacy, &call("list_bookings", json!({}), 2));
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(stuck.response()["error"]["code"], -32001, "{}", stuck.body);
}

/// Waits until the proxy `pid` has `n` servers.
fn until_children(pid: u32, n: usize, log: impl Fn() -> String) {
    let started = Instant::now();
    while servers_of(pid).len() != n {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{} servers, not {n}\n{}",
            servers_of(pid).len(),
            log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A modern (2026-07-28) tools/call: the body and its headers.
fn modern_call(tool: &str, arguments: Value, id: u64) -> (Value, [(&'static str, String); 3]) {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let headers = [
        ("mcp-protocol-version", "2026-07-28".to_owned()),
        ("mcp-method", "tools/call".to_owned()),
        ("mcp-name", tool.to_owned()),
    ];
    (body, headers)
}

fn post_modern(url: &str, (body, headers): &(Value, [(&'static str, String); 3])) -> Answer {
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    post(url, &headers, body)
}

#[test]
fn a_command_behind_listen_runs_a_server_per_session_and_one_for_stateless_requests() {
    let store = tempfile::tempdir().unwrap();
    let fixture = common::live::fixture();
    let mut p = Proxy::with(&[
        "--store",
        store.path().to_str().unwrap(),
        "--timeout",
        "2",
        "--",
        fixture.to_str().unwrap(),
    ]);
    let pid = p.child.id();
    assert_eq!(servers_of(pid).len(), 0, "no server before a client");

    // Two legacy sessions: a server each; the same JSON-RPC id in both, each its own answer.
    let (s1, s2) = (session(&p.url), session(&p.url));
    assert_ne!(s1, s2);
    until_children(pid, 2, || p.log());
    let (h1, h2) = (in_session(&s1), in_session(&s2));
    let big = post(&p.url, &h1, &call("list_bookings", json!({}), 1));
    let small = post(&p.url, &h2, &call("list_bookings", json!({"count": 4}), 1));
    assert_eq!((big.status, small.status), (200, 200), "{}", big.body);
    assert_eq!(
        big.response()["result"]["_meta"]["mcpguard/budget"]["outcome"],
        "paginated"
    );
    read_to_the_end(&[&p.url], big.response(), &h1);
    assert_eq!(small.response()["id"], 1);
    assert_eq!(page(small.response()).0.len(), 4, "{}", small.body);

    // Stateless requests share one more server; concurrent ones with the same id each get
    // their own answer, under their own id.
    let askers: Vec<_> = [3usize, 5, 7, 9]
        .into_iter()
        .map(|count| {
            let url = p.url.clone();
            std::thread::spawn(move || {
                let a = post_modern(
                    &url,
                    &modern_call("list_bookings", json!({"count": count}), 1),
                );
                assert_eq!(a.status, 200, "{}", a.body);
                assert_eq!(a.response()["id"], 1, "{}", a.body);
                (count, page(a.response()).0.len())
            })
        })
        .collect();
    for asker in askers {
        let (asked, got) = asker.join().unwrap();
        assert_eq!(asked, got);
    }
    until_children(pid, 3, || p.log());

    // A session that does not exist: 404, and the client knows to start again.
    let h_gone = [("mcp-session-id", "0123456789abcdef0123456789abcdef")];
    let gone = post(&p.url, &h_gone, &call("list_bookings", json!({}), 2));
    assert_eq!(gone.status, 404, "{}", gone.body);
    assert!(
        gone.response()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize"),
        "{}",
        gone.body
    );

    // A server that hangs: 504 and a timeout error; it still answers the next request.
    let hung = post_modern(&p.url, &modern_call("hang", json!({}), 3));
    assert_eq!(hung.status, 504, "{}", hung.body);
    assert_eq!(hung.response()["error"]["code"], -32001, "{}", hung.body);
    let after = post_modern(
        &p.url,
        &modern_call("list_bookings", json!({"count": 2}), 4),
    );
    assert_eq!(page(after.response()).0.len(), 2, "{}", after.body);

    // A session's server that exits mid-call: 502 naming its exit; the session is over, the
    // proxy and the other session go on.
    let crashed = post(&p.url, &h2, &call("crash", json!({}), 5));
    assert_eq!(crashed.status, 502, "{}", crashed.body);
    assert!(
        crashed.body.contains("exited with status 3"),
        "{}",
        crashed.body
    );
    assert_eq!(
        post(&p.url, &h2, &call("list_bookings", json!({}), 6)).status,
        404
    );
    until_children(pid, 2, || p.log());
    let still = post(&p.url, &h1, &call("list_bookings", json!({"count": 1}), 7));
    assert_eq!(page(still.response()).0.len(), 1, "{}", still.body);

    // DELETE ends a session and its server.
    let mut deleted = agent()
        .delete(&p.url)
        .header("mcp-session-id", &s1)
        .call()
        .unwrap();
    assert_eq!(
        deleted.status().as_u16(),
        200,
        "{:?}",
        deleted.body_mut().read_to_string()
    );
    until_children(pid, 1, || p.log());
    assert_eq!(
        post(&p.url, &h1, &call("list_bookings", json!({}), 8)).status,
        404
    );

    // SIGTERM: the proxy exits 0 and its last server with it.
    p.sigterm();
    assert_eq!(p.exit_status().code(), Some(0), "{}", p.log());
    let log = p.log();
    assert_eq!(log.matches("started the server").count(), 3, "{log}");
}

#[test]
fn a_command_behind_listen_streams_what_comes_before_the_answer() {
    // The server sends a notification on the way to its answer: the POST becomes an event
    // stream, the notification first, then the answer.
    let fixture = common::live::fixture();
    let p = Proxy::with(&[
        "--no-artifacts",
        "--",
        fixture.to_str().unwrap(),
        "--fault",
        "stream-notify",
    ]);
    let sid = session(&p.url);
    let h = in_session(&sid);
    let answer = post(&p.url, &h, &call("list_bookings", json!({"count": 2}), 1));
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        methods(&answer),
        ["notifications/tools/list_changed", "(answer)"],
        "{}",
        answer.body
    );
    assert_eq!(page(answer.response()).0.len(), 2);

    // The same with the session's GET stream open: what the server says during the call
    // still rides the call's own stream (it went to the GET stream, and the answer came back
    // as plain JSON).
    let sid = session(&p.url);
    let (url, session_id) = (p.url.clone(), sid.clone());
    let (opened, is_open) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut response = agent()
            .get(&url)
            .header("mcp-session-id", &session_id)
            .header("mcp-protocol-version", "2025-11-25")
            .header("accept", "text/event-stream")
            .call()
            .expect("the GET stream opens");
        let _ = opened.send(response.status().as_u16());
        let _ = response.body_mut().read_to_string();
    });
    assert_eq!(is_open.recv_timeout(Duration::from_secs(10)), Ok(200));
    let h = in_session(&sid);
    let answer = post(&p.url, &h, &call("list_bookings", json!({"count": 2}), 2));
    assert_eq!(
        methods(&answer),
        ["notifications/tools/list_changed", "(answer)"],
        "{}",
        answer.body
    );
}

/// What an answer brought, in order: each message's method, `(answer)` for the response.
fn methods(answer: &Answer) -> Vec<&str> {
    answer
        .messages
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("(answer)"))
        .collect()
}

/// Needs redis-server (scripts/redis.sh installs it; `.ci/run` runs this test).
#[test]
#[ignore = "needs redis-server: bash scripts/redis.sh, then cargo test --test cli_proxy_http -- --ignored"]
fn redis_shared_by_two_instances_and_redis_down_means_previews_without_references() {
    let fixture = HttpFixture::start(None);
    let port = free_port();
    let redis = RedisServer::start(port);
    let store = format!("redis://127.0.0.1:{}/0", redis.port);
    let a = Proxy::start(
        &fixture.url,
        &["--store", &store, "--metrics-listen", "127.0.0.1:0"],
    );
    let b = Proxy::start(&fixture.url, &["--store", &store]);
    let sid = session(&a.url);
    let legacy = in_session(&sid);
    // The issue's case: 500 bookings, read page by page switching instances at every page.
    let first = post(
        &a.url,
        &legacy,
        &call("list_bookings", json!({"count": 500}), 1),
    );
    let reads = read_all(&[&b.url, &a.url], first.response(), &[], 500);
    assert!(reads >= 8, "{reads} reads");
    // Found, not paged, through the other instance: a question of the result in Redis.
    let reference = first.response()["result"]["_meta"]["mcpguard/budget"]["artifactRef"].clone();
    let asked = post(
        &b.url,
        &[],
        &call(
            "mcpguard_more",
            json!({"ref": reference, "where": "id in (bk_00007, bk_00420)", "aggregate": "count, sum(nights)"}),
            50,
        ),
    );
    let figures: Value = serde_json::from_str(
        asked.response()["result"]["content"][0]["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(figures["count"], 2, "{figures}");
    assert_eq!(figures["sum(nights)"], 8 + 7, "{figures}");
    let found = post(
        &a.url,
        &[],
        &call(
            "mcpguard_more",
            json!({"ref": reference, "match": "Guest 42[0-9]\\b"}),
            51,
        ),
    );
    let text = found.response()["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        text.contains("10 of 500 records match /Guest 42[0-9]\\b/"),
        "{text}"
    );
    let (_, text) = get(&format!("{}/metrics", a.metrics.as_ref().unwrap()));
    let adoption = text
        .lines()
        .find_map(|l| l.strip_prefix("mcpguard_pagination_adoption_ratio "))
        .unwrap_or_else(|| panic!("no adoption ratio: {text}"));
    assert!(adoption.parse::<f64>().unwrap() > 0.0, "{text}");

    // Redis gone: a result over budget still never passes whole; it is a preview without a
    // reference, and the store error is counted.
    drop(redis);
    let degraded = post(&a.url, &legacy, &call("list_bookings", json!({}), 2));
    assert_eq!(degraded.status, 200, "{}", degraded.body);
    let result = &degraded.response()["result"];
    assert!(
        degraded.body.len() < 40_000,
        "{} bytes passed",
        degraded.body.len()
    );
    assert!(
        result["_meta"]["mcpguard/budget"]["artifactRef"].is_null(),
        "{result}"
    );
    let metrics = a.metrics.as_ref().unwrap();
    let (_, text) = get(&format!("{metrics}/metrics"));
    assert!(text.contains("mcpguard_store_errors_total 1"), "{text}");
    let (status, _) = get(&format!("{metrics}/health"));
    assert_eq!(status, 503, "not ready while Redis is down");

    // Redis back on the same port: references again, without a restart of the proxy.
    let _redis = RedisServer::start(port);
    let again = post(&a.url, &legacy, &call("list_bookings", json!({}), 3));
    assert!(
        again.response()["result"]["_meta"]["mcpguard/budget"]["artifactRef"].is_string(),
        "{}",
        again.body
    );
    read_to_the_end(&[&b.url], again.response(), &[]);
    let (status, _) = get(&format!("{metrics}/health"));
    assert_eq!(status, 200);
}

/// The shared store's own bookkeeping, against a real Redis: the total stays under the cap
/// with the oldest out first, storing the same artifact twice counts it once, and an artifact
/// past its TTL is forgotten from the total as well as from Redis.
#[test]
#[ignore = "needs redis-server: bash scripts/redis.sh, then cargo test --test cli_proxy_http -- --ignored"]
fn redis_store_keeps_its_total_under_the_cap_oldest_out_first() {
    use mcpguard::proxy::store::{Artifacts as _, Redis};
    use mcpguard::reshape::artifact::Ref;

    let redis = RedisServer::start(free_port());
    let url = format!("redis://127.0.0.1:{}/0", redis.port);
    let shared = Arc::new(Redis::open(&url, Duration::from_secs(3600), 1000).unwrap());
    let mut alice = shared.scope("alice");
    let mut bob = shared.scope("bob");
    let artifact = |fill: u8| {
        let bytes = vec![fill; 400];
        (Ref::for_content("text", &bytes), bytes)
    };
    let (a, a_bytes) = artifact(b'a');
    let (b, b_bytes) = artifact(b'b');
    let (c, c_bytes) = artifact(b'c');
    alice.put(&a, &a_bytes).unwrap();
    alice.put(&a, &a_bytes).unwrap();
    // Apart in time, so which is older is not a tie.
    std::thread::sleep(Duration::from_millis(2));
    bob.put(&b, &b_bytes).unwrap();
    std::thread::sleep(Duration::from_millis(2));
    assert!(alice.get(&a).unwrap().is_some(), "800 bytes fit in 1000");
    alice.put(&c, &c_bytes).unwrap();
    std::thread::sleep(Duration::from_millis(2));
    assert_eq!(alice.get(&a).unwrap(), None, "the oldest went first");
    assert!(bob.get(&b).unwrap().is_some());
    assert!(alice.get(&c).unwrap().is_some());
    assert_eq!(
        alice.get(&b).unwrap(),
        None,
        "bob's artifact is not alice's"
    );
    let too_big = vec![b'x'; 1001];
    assert!(
        alice
            .put(&Ref::for_content("text", &too_big), &too_big)
            .is_err()
    );

    // An artifact stored with a TTL of 50 ms: once that passed, the next store forgets it from
    // the total as Redis forgot its bytes (c's 400 and e's 200 remain, not d's 400 as well).
    let brief = Arc::new(Redis::open(&url, Duration::from_millis(50), 1000).unwrap());
    let (d, d_bytes) = artifact(b'd');
    brief.scope("alice").put(&d, &d_bytes).unwrap();
    std::thread::sleep(Duration::from_millis(120));
    let e_bytes = vec![b'e'; 200];
    let e = Ref::for_content("text", &e_bytes);
    alice.put(&e, &e_bytes).unwrap();
    let mut conn = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let total: u64 = redis::cmd("GET")
        .arg("mcpguard-store:bytes")
        .query(&mut conn)
        .unwrap();
    assert_eq!(total, 600);
    assert!(alice.get(&e).unwrap().is_some(), "e");
    assert!(alice.get(&c).unwrap().is_some(), "c");
}

/// A modern request's headers and body, with `_meta` as given (`None`: no `_meta` at all).
fn modern_request(
    method: &str,
    id: u64,
    params: Value,
    meta: Option<Value>,
) -> (Value, Vec<(&'static str, String)>) {
    let mut params = params;
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let version = body
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("2026-07-28")
        .to_owned();
    let headers = vec![
        ("mcp-protocol-version", version),
        ("mcp-method", method.to_owned()),
    ];
    (body, headers)
}

fn envelope() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}})
}

fn send(url: &str, (body, headers): &(Value, Vec<(&'static str, String)>)) -> Answer {
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    post(url, &headers, body)
}

#[test]
fn in_front_of_a_command_a_malformed_stateless_request_is_refused_and_never_breaks_the_shared_server()
 {
    // The shared child takes its era from the first request it reads: before the gate, one
    // tools/list without _meta fixed it to 2025-11-25 and every later 2026-07-28 request of
    // every client got -32600. Each refusal below is what a 2026-07-28 server's HTTP face
    // answers (the Python SDK's, measured).
    let store = tempfile::tempdir().unwrap();
    let fixture = common::live::fixture();
    let p = Proxy::with(&[
        "--store",
        store.path().to_str().unwrap(),
        "--",
        fixture.to_str().unwrap(),
    ]);
    let no_meta = send(&p.url, &modern_request("tools/list", 1, json!({}), None));
    assert_eq!(
        (no_meta.status, &no_meta.response()["error"]["code"]),
        (400, &json!(-32602)),
        "{}",
        no_meta.body
    );
    let half = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let half = send(
        &p.url,
        &modern_request("tools/list", 2, json!({}), Some(half)),
    );
    assert_eq!(half.status, 400);
    assert!(
        half.body
            .contains("io.modelcontextprotocol/clientCapabilities"),
        "{}",
        half.body
    );
    let mut future = envelope();
    future["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let future = send(
        &p.url,
        &modern_request("tools/list", 3, json!({}), Some(future)),
    );
    assert_eq!(
        (future.status, &future.response()["error"]["code"]),
        (400, &json!(-32022))
    );
    assert_eq!(
        future.response()["error"]["data"]["supported"],
        json!(["2026-07-28"])
    );
    let init = send(
        &p.url,
        &modern_request("initialize", 4, json!({}), Some(envelope())),
    );
    assert_eq!(
        (init.status, &init.response()["error"]["code"]),
        (404, &json!(-32601))
    );
    let no_session = post(
        &p.url,
        &[],
        &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}),
    );
    assert_eq!(no_session.status, 400, "{}", no_session.body);
    assert!(
        no_session.body.contains("Missing session ID"),
        "{}",
        no_session.body
    );

    // The shared server was never given any of them: a whole request is served in 2026-07-28.
    let listed = send(
        &p.url,
        &modern_request("tools/list", 6, json!({}), Some(envelope())),
    );
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert!(
        listed.response()["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{}",
        listed.body
    );
    // The rest of the catalog (the fixture pages it): the proxy learns each tool's schema.
    let mut cursor = listed.response()["result"]["nextCursor"]
        .as_str()
        .map(str::to_owned);
    let mut page = 60;
    while let Some(c) = cursor {
        page += 1;
        let next = send(
            &p.url,
            &modern_request("tools/list", page, json!({"cursor": c}), Some(envelope())),
        );
        assert_eq!(next.status, 200, "{}", next.body);
        cursor = next.response()["result"]["nextCursor"]
            .as_str()
            .map(str::to_owned);
    }
    // An error the server itself answers gets the status its HTTP face would give: 404 for a
    // method it does not have.
    let unknown = send(
        &p.url,
        &modern_request("nope/nope", 7, json!({}), Some(envelope())),
    );
    assert_eq!(
        (unknown.status, &unknown.response()["error"]["code"]),
        (404, &json!(-32601)),
        "{}",
        unknown.body
    );

    // Mcp-Param-* against the inputSchema listed above (search mirrors `query` as Query).
    let mut call = modern_request(
        "tools/call",
        8,
        json!({"name": "search", "arguments": {"query": "Dupont"}}),
        Some(envelope()),
    );
    call.1.push(("mcp-name", "search".to_owned()));
    let missing = send(&p.url, &call);
    assert_eq!(
        (missing.status, &missing.response()["error"]["code"]),
        (400, &json!(-32020)),
        "{}",
        missing.body
    );
    call.1.push(("mcp-param-query", "Martin".to_owned()));
    let wrong = send(&p.url, &call);
    assert_eq!(
        (wrong.status, &wrong.response()["error"]["code"]),
        (400, &json!(-32020)),
        "{}",
        wrong.body
    );
    call.1.pop();
    call.1.push(("mcp-param-query", "Dupont".to_owned()));
    let right = send(&p.url, &call);
    assert_eq!(right.status, 200, "{}", right.body);
    assert!(right.response()["result"].is_object(), "{}", right.body);
}

/// A POST with the Host and Origin given, over a raw socket: the status.
fn post_as(url: &str, host: &str, origin: Option<&str>) -> u16 {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut framing = format!(
        "Content-Length: {}\r\nAccept: application/json, text/event-stream",
        body.len()
    );
    if let Some(origin) = origin {
        framing.push_str(&format!("\r\nOrigin: {origin}"));
    }
    raw_post_as(url, Some(host), &framing, |socket| {
        socket.write_all(body.as_bytes()).unwrap();
    })
    .0
}

#[test]
fn a_loopback_listener_refuses_other_hosts_and_origins() {
    // DNS rebinding: a page on evil.example.com that resolves to 127.0.0.1 must not reach the
    // server behind the proxy, whatever that server checks itself.
    let fixture = HttpFixture::start(None);
    let p = Proxy::start(&fixture.url, &["--allowed-host", "mcp.internal"]);
    let authority = authority_of(&p.url).to_owned();
    let port = authority.rsplit(':').next().unwrap().to_owned();
    assert_eq!(post_as(&p.url, &authority, None), 200);
    assert_eq!(
        post_as(
            &p.url,
            &format!("localhost:{port}"),
            Some(&format!("http://localhost:{port}"))
        ),
        200
    );
    assert_eq!(
        post_as(&p.url, "evil.example.com", Some("http://evil.example.com")),
        421
    );
    assert_eq!(
        post_as(&p.url, &authority, Some("http://evil.example.com")),
        403
    );
    assert_eq!(post_as(&p.url, "mcp.internal", None), 200);
    // Two Hosts, or a target in absolute form naming another host, are another host.
    let two = raw_request(
        &authority,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nHost: evil.example.com\r\nContent-Length: 0\r\n"
        ),
    );
    assert_eq!(two, 421);
    let absolute = raw_request(
        &authority,
        &format!(
            "POST http://evil.example.com/mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Length: 0\r\n"
        ),
    );
    assert!(matches!(absolute, 400 | 421), "{absolute}");
    // /health tells the upstream and the store: it answers the same names only.
    let health = |host: &str| {
        raw_request(
            &authority,
            &format!("GET /health HTTP/1.1\r\nHost: {host}\r\n"),
        )
    };
    assert_eq!(health(&authority), 200);
    assert_eq!(health("evil.example.com"), 421);
    assert!(p.log().contains("listening on"));
}

/// A request written as given (its line and headers, without the blank line), over a raw
/// socket: the status of the answer.
fn raw_request(authority: &str, head: &str) -> u16 {
    use std::io::{Read, Write};
    let mut socket = std::net::TcpStream::connect(authority).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(socket, "{head}Connection: close\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    let _ = socket.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer)
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

#[test]
fn a_request_sent_half_way_does_not_hold_its_connection() {
    use std::io::{Read, Write};
    let fixture = HttpFixture::start(None);
    let p = Proxy::start(&fixture.url, &[]);
    let authority = authority_of(&p.url).to_owned();
    // Half a head, then nothing: a slow client, or one holding connections open on purpose.
    let mut socket = std::net::TcpStream::connect(&authority).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        socket,
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: appl"
    )
    .unwrap();
    let mut rest = Vec::new();
    let closed = socket.read_to_end(&mut rest);
    assert!(
        closed.is_ok(),
        "the proxy closes it rather than wait for ever: {closed:?}"
    );
    // And it still serves.
    assert_eq!(post_as(&p.url, &authority, None), 200);
}

/// The conformance server (tests/conformance/server.py) over stdio, from the pinned virtualenv
/// scripts/python-servers.sh makes; a loud failure when it is missing.
fn conformance_server() -> Vec<String> {
    let python = common::repo("target/servers-venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `bash scripts/python-servers.sh` (the .ci/run does)",
        python.display()
    );
    vec![
        python.display().to_string(),
        common::repo("tests/conformance/server.py")
            .display()
            .to_string(),
        "--stdio".to_owned(),
    ]
}

#[test]
#[ignore = "needs the Python 3.12 virtualenv of scripts/python-servers.sh; .ci/run runs it"]
fn a_subscription_through_the_shared_server_keeps_the_clients_id_and_gets_its_notifications() {
    // The shared child sees the proxy's id for every request; a subscription's acknowledgement
    // and notifications carry that id in _meta (subscriptionId). Before, the acknowledgement
    // came back with the proxy's id and the list_changed notification was dropped as "a
    // message nobody can be given".
    let server = conformance_server();
    let mut args = vec!["--"];
    args.extend(server.iter().map(String::as_str));
    let p = Proxy::with(&args);
    let (body, headers) = modern_request(
        "subscriptions/listen",
        101,
        json!({"notifications": {"toolsListChanged": true}}),
        Some(envelope()),
    );
    let mut request = agent()
        .post(&p.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in &headers {
        request = request.header(*k, v.as_str());
    }
    let response = request.send(body.to_string().as_bytes()).unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let mut lines = BufReader::new(response.into_body().into_reader()).lines();
    let mut next_message = || -> Value {
        for line in lines.by_ref() {
            if let Some(data) = line.unwrap().strip_prefix("data: ")
                && !data.is_empty()
            {
                return serde_json::from_str(data).unwrap();
            }
        }
        panic!("the listen stream ended")
    };
    let ack = next_message();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 101,
        "{ack}"
    );
    // Another client changes the tool list; the listener hears of it, under its own id.
    let mut trigger = modern_request(
        "tools/call",
        7,
        json!({"name": "test_trigger_tool_change", "arguments": {}}),
        Some(envelope()),
    );
    trigger
        .1
        .push(("mcp-name", "test_trigger_tool_change".to_owned()));
    let changed = send(&p.url, &trigger);
    assert_eq!(changed.status, 200, "{}", changed.body);
    let note = next_message();
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    assert_eq!(
        note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 101,
        "{note}"
    );
    assert!(!p.log().contains("nobody can be given"), "{}", p.log());
}

#[test]
fn artifact_dir_names_the_store_with_listen_too() {
    // It was ignored with --listen: artifacts went to the config's artifactDir instead.
    let fixture = HttpFixture::start(None);
    let dir = tempfile::tempdir().unwrap();
    let p = Proxy::start(
        &fixture.url,
        &["--artifact-dir", dir.path().to_str().unwrap()],
    );
    let sid = session(&p.url);
    let big = post(
        &p.url,
        &in_session(&sid),
        &call("list_bookings", json!({}), 1),
    );
    assert_eq!(
        big.response()["result"]["_meta"]["mcpguard/budget"]["outcome"],
        "paginated",
        "{}",
        big.body
    );
    let stored = walkdir::WalkDir::new(dir.path())
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .count();
    assert!(stored > 0, "nothing under --artifact-dir: {}", p.log());
}

/// The metric names and label names in a PromQL expression: `mcpguard_...` identifiers, and
/// the labels of its matchers (`{stage="before"}`) and groupings (`by (tool)`, `ignoring(x)`).
fn promql_names(expr: &str) -> (Vec<String>, Vec<String>) {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let metrics: Vec<String> = expr
        .match_indices("mcpguard_")
        .map(|(at, _)| ident(&expr[at..]))
        .collect();
    let mut labels = Vec::new();
    for (open, close) in [('{', '}'), ('(', ')')] {
        for (at, _) in expr.match_indices(open) {
            let before = expr[..at].trim_end();
            let grouping = ["by", "without", "ignoring", "on", "group_left"]
                .iter()
                .any(|k| before.ends_with(k));
            if open == '(' && !grouping {
                continue;
            }
            let inside = &expr[at + 1..at + 1 + expr[at + 1..].find(close).unwrap()];
            for part in inside.split(',') {
                let name = ident(part.trim());
                if !name.is_empty() {
                    labels.push(name);
                }
            }
        }
    }
    (metrics, labels)
}

#[test]
fn the_grafana_dashboard_asks_only_for_metrics_and_labels_the_proxy_exports() {
    // dashboards/grafana-proxy.json, against a real proxy's /metrics after traffic that fills
    // every family: a session, a result shrunk and read to its end, a refusal.
    let fixture = HttpFixture::start(None);
    let p = Proxy::start(&fixture.url, &["--metrics-listen", "127.0.0.1:0"]);
    let sid = session(&p.url);
    let first = post(
        &p.url,
        &in_session(&sid),
        &call("list_bookings", json!({}), 1),
    );
    read_to_the_end(&[&p.url], first.response(), &[]);
    assert_eq!(post_raw(&p.url, &[], b"{not json".to_vec()).status, 400);
    let (_, text) = get(&format!("{}/metrics", p.metrics.as_ref().unwrap()));
    let mut exported: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let name: String = line
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let labels = exported.entry(name).or_default();
        if let Some(inside) = line.split_once('{').and_then(|(_, r)| r.split_once('}')) {
            for pair in inside.0.split(',') {
                let label = pair.split('=').next().unwrap().to_owned();
                if !labels.contains(&label) {
                    labels.push(label);
                }
            }
        }
    }

    let dashboard: Value = serde_json::from_str(
        &std::fs::read_to_string(common::repo("dashboards/grafana-proxy.json")).unwrap(),
    )
    .unwrap();
    let panels = dashboard["panels"].as_array().unwrap();
    assert!(panels.len() >= 8, "{} panels", panels.len());
    let mut queried = std::collections::BTreeSet::new();
    for panel in panels {
        let title = panel["title"].as_str().unwrap();
        let targets = panel["targets"].as_array().unwrap();
        assert!(!targets.is_empty(), "{title}: no query");
        for target in targets {
            let expr = target["expr"].as_str().unwrap();
            let (metrics, labels) = promql_names(expr);
            assert!(
                !metrics.is_empty(),
                "{title}: {expr} names no mcpguard metric"
            );
            for m in &metrics {
                assert!(
                    exported.contains_key(m),
                    "{title}: {m} is not exported; /metrics has {:?}",
                    exported.keys().collect::<Vec<_>>()
                );
                queried.insert(m.clone());
            }
            for l in &labels {
                assert!(
                    metrics.iter().any(|m| exported[m].contains(l)),
                    "{title}: no metric of {expr} has the label {l}"
                );
            }
        }
    }
    // The figures issue 28 names: savings, outcomes, adoption, latency and overhead.
    for needed in [
        "mcpguard_response_tokens_sum",
        "mcpguard_requests_total",
        "mcpguard_more_reads_total",
        "mcpguard_upstream_latency_seconds_bucket",
        "mcpguard_overhead_seconds_bucket",
    ] {
        assert!(
            queried.contains(needed),
            "the dashboard never shows {needed}"
        );
    }
}

#[test]
fn the_gateway_behind_listen_serves_every_server_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    let p = gateway_behind_listen(dir.path(), "");
    // A 2025-11-25 session: one catalog of both servers, a call to each, a list read on.
    let id = session(&p.url);
    let names = listed_names(&p.url, &id);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    for name in ["alpha__get_report", "beta__get_report", "mcpguard_more"] {
        assert!(names.contains(&name), "{name} missing: {names:?}");
    }
    for (n, server) in ["alpha", "beta"].into_iter().enumerate() {
        let report = post(
            &p.url,
            &in_session(&id),
            &call(&format!("{server}__get_report"), json!({}), 10 + n as u64),
        );
        assert_eq!(
            report.response()["result"]["structuredContent"]["nights"],
            143,
            "{server}: {}",
            report.body
        );
    }
    let first = post(
        &p.url,
        &in_session(&id),
        &call("beta__list_bookings", json!({"status": "confirmed"}), 20),
    );
    let (_, next) = page(first.response());
    let next = next.expect("300 bookings do not fit one page");
    let more = post(
        &p.url,
        &in_session(&id),
        &call("mcpguard_more", json!({"cursor": next}), 21),
    );
    assert!(!page(more.response()).0.is_empty(), "{}", more.body);
    // A stateless 2026-07-28 request to each server.
    for server in ["alpha", "beta"] {
        let answer = post_modern(
            &p.url,
            &modern_call(&format!("{server}__get_report"), json!({}), 30),
        );
        let result = &answer.response()["result"];
        assert_eq!(
            result["resultType"], "complete",
            "{server}: {}",
            answer.body
        );
        assert_eq!(result["structuredContent"]["week"], "2026-W47", "{server}");
    }
    // /health says per server: started, its tools, when its catalog was cached.
    let health_url = p.url.replace("/mcp", "/health");
    let (status, health) = get(&health_url);
    let health: Value = serde_json::from_str(&health).unwrap();
    assert_eq!(
        (status, health["status"].as_str()),
        (200, Some("ready")),
        "{health}"
    );
    let servers = health["servers"]
        .as_array()
        .unwrap_or_else(|| panic!("{health}"));
    let names: Vec<&str> = servers
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alpha", "beta"], "{health}");
    for server in servers {
        assert_eq!(server["state"], "running", "{server}");
        assert!(server["tools"].as_u64().unwrap() > 3, "{server}");
        assert!(
            server["cachedAt"].as_u64().unwrap() > 1_700_000_000,
            "{server}"
        );
        assert!(server.get("lastError").is_none(), "{server}");
    }
}

#[test]
fn a_tiered_gateway_behind_listen_calls_any_tool_through_mcpguard_call_tool_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    let p = gateway_behind_listen(dir.path(), "catalog: tiered\n");
    // 2025-11-25: only mcpguard's tools are listed; any tool is called through them.
    let id = session(&p.url);
    let names = listed_names(&p.url, &id);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    assert!(!names.contains(&"beta__get_report"), "{names:?}");
    assert!(names.contains(&"mcpguard_call_tool"), "{names:?}");
    let through =
        |answer: &Answer| answer.response()["result"]["structuredContent"]["nights"].clone();
    let legacy = post(
        &p.url,
        &in_session(&id),
        &call(
            "mcpguard_call_tool",
            json!({"name": "beta__get_report", "arguments": {}}),
            2,
        ),
    );
    assert_eq!(through(&legacy), 143, "{}", legacy.body);
    // 2026-07-28, stateless: the Mcp-Name header names mcpguard's tool, as the body does.
    let modern = post_modern(
        &p.url,
        &modern_call(
            "mcpguard_call_tool",
            json!({"name": "alpha__get_report", "arguments": {}}),
            3,
        ),
    );
    let result = &modern.response()["result"];
    assert_eq!(result["resultType"], "complete", "{}", modern.body);
    assert_eq!(
        result["structuredContent"]["nights"], 143,
        "{}",
        modern.body
    );
    let found = post_modern(
        &p.url,
        &modern_call(
            "mcpguard_find_tools",
            json!({"query": "occupancy report"}),
            4,
        ),
    );
    let text = found.response()["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(text.contains("__get_report: "), "{}", found.body);
}

/// `proxy --listen` over two rmcp fixtures (one per era) as a gateway, with `config` (YAML)
/// as its config; its cache, store and pins in `dir`.
fn gateway_behind_listen(dir: &std::path::Path, config: &str) -> Proxy {
    let fixture = common::live::fixture();
    let file = dir.join(".mcp.json");
    std::fs::write(
        &file,
        json!({"mcpServers": {
            "alpha": {"command": fixture, "args": []},
            "beta": {"command": fixture, "args": ["--era", "modern"]}}})
        .to_string(),
    )
    .unwrap();
    let config_file = dir.join("mcpguard.yaml");
    std::fs::write(&config_file, config).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_owned();
    Proxy::with(&[
        "--config",
        &path("mcpguard.yaml"),
        "--mcp-config",
        &path(".mcp.json"),
        "--catalog-cache",
        &path("catalogs"),
        "--store",
        &path("store"),
        "--pins",
        &path("pins.json"),
    ])
}

/// The tool names a 2025-11-25 session `id` is listed.
fn listed_names(url: &str, id: &str) -> Vec<String> {
    let list = post(
        url,
        &in_session(id),
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    );
    list.response()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}
