//! Figures for the stdio proxy (scripts/bench-proxy.sh runs it in release):
//!
//! - `overhead N`: N small `tools/call`s, one at a time, to the fixture server directly and
//!   through `mcpguard proxy`; the round trips' percentiles and their difference.
//! - `make MB KIND FILE`: writes a tool result of about MB megabytes (`list`: records;
//!   `text`: log lines).
//! - `shrink FILE`: that result through the proxy's decision, timed, with this process's peak
//!   memory against the result's size (read in a fresh process, so making it is not counted).
//! - `gateway SERVERS N MCPGUARD CATALOG_SERVER DIR`: the gateway over SERVERS catalog servers
//!   of 100 tools each: ready with a cold cache, initialize + tools/list with a warm one (the
//!   server processes running then, the gateway's peak memory), the same servers started
//!   and listed by a bare client (the machine's floor for a cold start), and N calls' round
//!   trips through it against the single-server proxy.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpguard::config::Config;
use mcpguard::proxy::shrink::{self, Context};
use mcpguard::proxy::store::DirStore;
use mcpguard::reshape::cursor::Secrets;
use serde_json::json;

// The allocator the binary uses: the figures are the proxy's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("overhead") => overhead(args[2].parse().expect("N"), &args[3], &args[4]),
        Some("make") => make(args[2].parse().expect("MB"), &args[3], &args[4]),
        Some("shrink") => shrink(&args[2]),
        Some("gateway") => gateway(
            args[2].parse().expect("SERVERS"),
            args[3].parse().expect("N"),
            &args[4],
            &args[5],
            std::path::Path::new(&args[6]),
        ),
        _ => eprintln!(
            "usage: proxy_bench overhead N MCPGUARD FIXTURE | make MB list|text FILE | shrink FILE | gateway SERVERS N MCPGUARD CATALOG_SERVER DIR"
        ),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

/// Round trips of `n` calls to `command`.
fn round_trips(command: &[&str], n: usize) -> Vec<Duration> {
    calls(command, "search", n)
}

/// Round trips of `n` calls of `tool` to `command` (after one call that starts its server).
fn calls(command: &[&str], tool: &str, n: usize) -> Vec<Duration> {
    interleaved(&[(command, tool)], n).remove(0)
}

/// Round trips of `n` calls to each `(command, tool)`, every server started first and each
/// call of a round to the next in turn, so a machine that is slower for a while slows them
/// all alike: the round trips of each, sorted.
fn interleaved(targets: &[(&[&str], &str)], n: usize) -> Vec<Vec<Duration>> {
    let mut sessions: Vec<Session> = targets.iter().map(|(c, t)| Session::start(c, t)).collect();
    for s in &mut sessions {
        // The first call starts the server behind a proxy: not counted.
        s.call(0);
    }
    let mut times = vec![Vec::with_capacity(n); sessions.len()];
    for i in 1..=n {
        for (s, t) in sessions.iter_mut().zip(&mut times) {
            t.push(s.call(i));
        }
    }
    for t in &mut times {
        t.sort();
    }
    times
}

/// A client of one MCP server over stdio, initialized.
struct Session {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: BufReader<std::process::ChildStdout>,
    tool: String,
    line: String,
}

impl Session {
    fn start(command: &[&str], tool: &str) -> Session {
        let mut child = Command::new(command[0])
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts");
        let mut s = Session {
            stdin: child.stdin.take(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
            tool: tool.to_owned(),
            line: String::new(),
        };
        s.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}));
        s.stdout.read_line(&mut s.line).unwrap();
        s.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, v: serde_json::Value) {
        let mut bytes = v.to_string().into_bytes();
        bytes.push(b'\n');
        let stdin = self.stdin.as_mut().expect("open until dropped");
        stdin.write_all(&bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// One call's round trip.
    fn call(&mut self, i: usize) -> Duration {
        let started = Instant::now();
        let call = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
            "params": {"name": self.tool, "arguments": {"query": "late arrival"}}});
        self.send(call);
        self.line.clear();
        self.stdout.read_line(&mut self.line).unwrap();
        started.elapsed()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Closing stdin ends the server (and a proxy, which ends its own).
        self.stdin.take();
        let _ = self.child.wait();
    }
}

fn overhead(n: usize, mcpguard: &str, fixture: &str) {
    // Warm both (page cache, allocator) before measuring.
    round_trips(&[fixture], 200);
    let direct = round_trips(&[fixture], n);
    let proxied = round_trips(&[mcpguard, "proxy", "--quiet", "--", fixture], n);
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    for (p, name) in [(0.5, "p50"), (0.99, "p99")] {
        let (a, b) = (percentile(&direct, p), percentile(&proxied, p));
        println!(
            "{name}: direct {:.1} us, through the proxy {:.1} us, overhead {:.1} us",
            us(a),
            us(b),
            us(b) - us(a)
        );
    }
}

fn peak_rss_mb() -> f64 {
    peak_rss_mb_at("self")
}

fn make(mb: f64, kind: &str, file: &str) {
    let target = (mb * 1e6) as usize;
    let text = match kind {
        "list" => {
            let mut items = Vec::new();
            let mut size = 0;
            let mut i = 0;
            while size < target {
                let item = json!({"id": format!("bk_{i:07}"), "guestName": format!("Guest {i}"),
                    "status": "confirmed", "nights": i % 9 + 1,
                    "totalPrice": {"amount": 120 * (i % 9 + 1), "currency": "EUR"},
                    "notes": "Late arrival after 22:00; the key box code was sent by SMS."});
                size += item.to_string().len() + 1;
                items.push(item);
                i += 1;
            }
            let body = json!({ "bookings": items }).to_string();
            json!({"content": [{"type": "text", "text": body}]}).to_string()
        }
        _ => {
            let mut log = String::with_capacity(target + 200);
            let mut i = 0;
            while log.len() < target {
                log.push_str(&format!(
                    "2026-11-23T08:{:02}:{:02}.{:03}Z INFO  [worker-{}] processed booking bk_{i:07} in {} ms\n",
                    i / 600 % 60, i / 10 % 60, i * 37 % 1000, i % 4, i * 7 % 90 + 3
                ));
                i += 1;
            }
            json!({"content": [{"type": "text", "text": log}]}).to_string()
        }
    };
    std::fs::write(file, text).expect("written");
}

/// Timed runs of one shrink: this machine is a shared VM, so a median of several.
const RUNS: usize = 21;

fn shrink(file: &str) {
    // The token counters are built as the proxy builds them, before it takes requests: not
    // part of a shrink's time or memory.
    mcpguard::proxy::policy::prepare_counters(&Config::default(), true);
    let base = peak_rss_mb();
    let text = std::fs::read_to_string(file).expect("a result made by `make`");
    let kind = if text.contains("bookings") {
        "list"
    } else {
        "text"
    };
    let dir = tempfile::tempdir().unwrap();
    let mut store = DirStore::new(dir.path(), Duration::from_secs(3600), 1 << 40);
    let config = Arc::new(Config::default());
    let secrets = Secrets::parse("bench-secret-0123456789", "bench").unwrap();
    let cx = Context {
        config: &config,
        secrets: &secrets,
        now: mcpguard::reshape::cursor::now(),
        more_tool: "mcpguard_more",
    };
    // The first run pays for fresh pages from the kernel; a proxy that has run a while reuses
    // its memory, which is what the later runs show.
    let mut runs = Vec::new();
    let mut decision = None;
    for _ in 0..RUNS {
        // Each run counts afresh, as a new result would.
        mcpguard::tokens::claude::forget_counts();
        let started = Instant::now();
        decision = Some(shrink::decide("bench", &text, None, &cx, &mut store));
        runs.push(started.elapsed());
    }
    let decision = decision.expect("runs");
    let first = runs[0];
    runs.sort();
    let took = runs[RUNS / 2];
    let input_mb = text.len() as f64 / 1e6;
    println!(
        "shrink {kind} {input_mb:.1} MB: {:.1} ms (median of {RUNS}, fastest {:.1}; the first, cold: {:.1} ms), {} -> {} tokens ({}), peak memory {:.0} MB above start ({:.1}x the input)",
        took.as_secs_f64() * 1e3,
        runs[0].as_secs_f64() * 1e3,
        first.as_secs_f64() * 1e3,
        decision.sizes.tokens_before,
        decision.sizes.tokens_after,
        decision.outcome.name(),
        peak_rss_mb() - base,
        (peak_rss_mb() - base) / input_mb,
    );
}

/// The gateway's scale figures (see the module doc).
fn gateway(servers: usize, n: usize, mcpguard: &str, catalog_server: &str, dir: &std::path::Path) {
    let cache = dir.join("catalogs");
    let _ = std::fs::remove_dir_all(&cache);
    std::fs::create_dir_all(dir).unwrap();
    // Start-up times from 0 to 290 ms: the slowest bounds a cold start, their sum does not.
    let delay = |i: usize| (i * 37) % 300;
    let entries: serde_json::Map<String, serde_json::Value> = (0..servers)
        .map(|i| {
            let name = format!("s{i:03}");
            let args = json!([
                "--name",
                name,
                "--tools",
                "100",
                "--delay-ms",
                delay(i).to_string()
            ]);
            (name, json!({"command": catalog_server, "args": args}))
        })
        .collect();
    let config = dir.join("mcp.json");
    std::fs::write(&config, json!({ "mcpServers": entries }).to_string()).unwrap();
    let slowest = (0..servers).map(delay).max().unwrap_or(0);
    let sum: usize = (0..servers).map(delay).sum();
    let gateway_cmd = |extra: &[&str]| {
        let mut c = vec![mcpguard.to_owned(), "proxy".into(), "--quiet".into()];
        c.extend(["--mcp-config".into(), config.display().to_string()]);
        c.extend(["--catalog-cache".into(), cache.display().to_string()]);
        c.extend(extra.iter().map(|s| s.to_string()));
        c
    };
    for round in ["cold", "warm"] {
        let command = gateway_cmd(&[]);
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts");
        let started = Instant::now();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let answers = initialize_and_list(&mut stdin, &mut stdout);
        // The clock stops when the answer has arrived: reading it is the client's time.
        let took = started.elapsed();
        let tools = answers
            .iter()
            .filter_map(|a| serde_json::from_str::<serde_json::Value>(a).ok())
            .find_map(|v| v["result"]["tools"].as_array().map(Vec::len))
            .unwrap_or(0);
        let running = processes_of(catalog_server);
        let peak = peak_rss_mb_of(child.id());
        println!(
            "{round} cache: initialize + tools/list of {tools} tools from {servers} servers in {:.1} ms; \
             {running} server processes running; the gateway's peak memory {peak:.1} MB{}",
            took.as_secs_f64() * 1e3,
            if round == "cold" {
                format!(" (servers' start-up: slowest {slowest} ms, sum {sum} ms)")
            } else {
                String::new()
            }
        );
        drop(stdin);
        let _ = child.wait();
    }
    let bare = bare_start(servers, catalog_server, delay);
    println!(
        "the same servers started at once by a bare client, each initialized and listed: all answered in {:.1} ms (what a cold start costs on this machine without a gateway)",
        bare.as_secs_f64() * 1e3,
    );
    // The added latency of one call: the single-server proxy and the gateway over all servers,
    // in turn.
    let single = [
        mcpguard,
        "proxy",
        "--quiet",
        "--",
        catalog_server,
        "--name",
        "s000",
    ];
    let through = gateway_cmd(&[]);
    let through: Vec<&str> = through.iter().map(String::as_str).collect();
    let [direct, single, through]: [Vec<Duration>; 3] = interleaved(
        &[
            (&[catalog_server, "--name", "s000"], "list_issues_000"),
            (&single, "list_issues_000"),
            (&through, "s000__list_issues_000"),
        ],
        n,
    )
    .try_into()
    .expect("three");
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    for (p, name) in [(0.5, "p50"), (0.99, "p99")] {
        let (d, s, g) = (
            percentile(&direct, p),
            percentile(&single, p),
            percentile(&through, p),
        );
        println!(
            "{name} of {n} calls: direct {:.1} us, single-server proxy {:.1} us (+{:.1}), gateway {:.1} us (+{:.1}); gateway/single {:.2}",
            us(d),
            us(s),
            us(s) - us(d),
            us(g),
            us(g) - us(d),
            us(g) / us(s)
        );
    }
}

/// How long `servers` catalog servers take to be started and listed, all at once, by a client
/// with no gateway: a thread per server, as the gateway lists them cold.
fn bare_start(servers: usize, catalog_server: &str, delay: impl Fn(usize) -> usize) -> Duration {
    let started = Instant::now();
    let children: Vec<std::process::Child> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..servers)
            .map(|i| {
                let delay = delay(i).to_string();
                scope.spawn(move || {
                    let name = format!("s{i:03}");
                    let mut child = Command::new(catalog_server)
                        .args(["--name", &name, "--tools", "100", "--delay-ms", &delay])
                        .stdin(Stdio::piped())
                        .stdout(Stdio::piped())
                        .stderr(Stdio::null())
                        .spawn()
                        .expect("starts");
                    let mut stdin = child.stdin.take().unwrap();
                    let mut stdout = BufReader::new(child.stdout.take().unwrap());
                    let [_, answer] = initialize_and_list(&mut stdin, &mut stdout);
                    // Parsed as a client would, as the gateway does.
                    let listed: serde_json::Value = serde_json::from_str(&answer).unwrap();
                    assert!(listed["result"]["tools"].is_array());
                    drop(stdin);
                    child
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let took = started.elapsed();
    for mut child in children {
        let _ = child.wait();
    }
    took
}

/// Sends `initialize`, `notifications/initialized` and `tools/list` at once, as a client
/// starting up does; the answers to the first and the last.
fn initialize_and_list(stdin: &mut impl Write, stdout: &mut impl BufRead) -> [String; 2] {
    for message in [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    stdin.flush().unwrap();
    let mut answers = [String::new(), String::new()];
    for answer in &mut answers {
        stdout.read_line(answer).unwrap();
    }
    answers
}

/// How many processes run `program`.
fn processes_of(program: &str) -> usize {
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| {
                    std::fs::read(e.path().join("cmdline"))
                        .is_ok_and(|c| c.split(|b| *b == 0).next() == Some(program.as_bytes()))
                })
                .count()
        })
        .unwrap_or(0)
}

fn peak_rss_mb_of(pid: u32) -> f64 {
    peak_rss_mb_at(&pid.to_string())
}

/// The peak resident memory of `/proc/PROCESS` (`self` or a pid), in MB.
fn peak_rss_mb_at(process: &str) -> f64 {
    std::fs::read_to_string(format!("/proc/{process}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}
