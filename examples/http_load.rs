//! Load figures for `mcpguard proxy --listen` (scripts/bench-proxy-http.sh runs it in release),
//! loopback only and bounded in time:
//!
//! - CLIENTS legacy sessions call the rmcp fixture's `search` at a steady RATE in all (each
//!   client paced at RATE/CLIENTS, its starts spread over the period) for SECONDS, first
//!   directly, then through the proxy; the round trips' percentiles and their difference are
//!   the proxy's overhead. The percentiles are of the steady state: the first [`WARM_UP`] of
//!   each run (sessions being made, both sides opening their connections) is printed apart,
//!   as every request is still checked. A third run calls the server directly again with every client on
//!   one connection pool, as the proxy reaches it, to tell the server's own tail under that
//!   pattern from the proxy's.
//! - Every answer is checked: the id of the request it answers, and the result byte for byte
//!   against the direct run's for the same query (each query is unique: `c{client}-r{n}`).
//!   Lost (no answer, an HTTP error), duplicated, reordered or different answers are counted.
//! - With SOAK seconds, the proxy then carries the same load that long while its resident
//!   memory is sampled; the series and its growth after the first minute are printed.
//!
//!   http_load MCPGUARD FIXTURE [CLIENTS RATE SECONDS SOAK]

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The start of each run, whose round trips are reported apart from the steady state's.
const WARM_UP: Duration = Duration::from_secs(1);

const SECRET: &str = "4d6367756172642d62656e63682d7365637265742d6e6f742d666f722d70726f64";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: http_load MCPGUARD FIXTURE [CLIENTS RATE SECONDS SOAK]");
        std::process::exit(2);
    }
    let number = |i: usize, default: u64| args.get(i).map_or(default, |a| a.parse().expect(a));
    let load = Load {
        clients: number(3, 50) as usize,
        rate: number(4, 1000) as f64,
        seconds: number(5, 60) as f64,
    };
    let soak = number(6, 0);
    let _ = rustls::crypto::ring::default_provider().install_default();

    let mut fixture = Started::fixture(&args[2]);
    let store = std::env::temp_dir().join(format!("mcpguard-http-load-{}", std::process::id()));
    let mut proxy = Started::proxy(&args[1], &fixture.url, &store);
    // The load generator gets one thread: the proxy and the fixture share the other core.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    println!(
        "{} clients, {} requests/s in all, {} s per run, legacy sessions, tools/call search",
        load.clients, load.rate, load.seconds
    );
    let cpu = |label: &str, before: [f64; 2], run: &Run| {
        let after = [
            cpu_seconds(fixture.child.id()),
            cpu_seconds(proxy.child.id()),
        ];
        let share = |i: usize| (after[i] - before[i]) / run.elapsed.as_secs_f64() * 100.0;
        println!(
            "{label}: CPU of the fixture {:.0}%, of the proxy {:.0}% (of one core)",
            share(0),
            share(1)
        );
    };
    let before = [
        cpu_seconds(fixture.child.id()),
        cpu_seconds(proxy.child.id()),
    ];
    let direct = runtime.block_on(load.run(&fixture.url));
    direct.print("direct ");
    cpu("direct ", before, &direct);
    let before = [
        cpu_seconds(fixture.child.id()),
        cpu_seconds(proxy.child.id()),
    ];
    let proxied = runtime.block_on(load.run(&proxy.url));
    proxied.print("proxied");
    cpu("proxied", before, &proxied);
    let p = |run: &Run, q: f64| percentile(&run.latencies, q).as_secs_f64() * 1e3;
    println!(
        "overhead, steady state: p50 {:+.3} ms, p99 {:+.3} ms (issue 14: <= 0.5 ms and <= 2 ms)",
        p(&proxied, 0.50) - p(&direct, 0.50),
        p(&proxied, 0.99) - p(&direct, 0.99)
    );
    let whole = |run: &Run, q: f64| {
        let mut all = [&run.warm_up[..], &run.latencies[..]].concat();
        all.sort_unstable();
        percentile(&all, q).as_secs_f64() * 1e3
    };
    println!(
        "overhead, whole runs (the first second too): p50 {:+.3} ms, p99 {:+.3} ms",
        whole(&proxied, 0.50) - whole(&direct, 0.50),
        whole(&proxied, 0.99) - whole(&direct, 0.99)
    );
    // The server reached the proxy's way (all sessions over one pool of connections): what
    // the server itself does under that pattern, apart from anything mcpguard does.
    let pooled = runtime.block_on(load.run_pooled(&fixture.url));
    pooled.print("direct, one pool");
    let check = proxied.against(&direct);
    println!(
        "checked: {} answers against the direct run's: {} lost, {} duplicated, {} reordered, {} different",
        check.compared, proxied.lost, proxied.duplicated, proxied.reordered, check.different
    );

    if soak > 0 {
        let soaking = Load {
            seconds: soak as f64,
            ..load
        };
        let pid = proxy.child.id();
        let stop = Arc::new(AtomicBool::new(false));
        let sampler = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut samples = Vec::new();
                let started = Instant::now();
                while !stop.load(Ordering::Relaxed) {
                    samples.push((started.elapsed().as_secs(), rss_kib(pid)));
                    std::thread::sleep(Duration::from_secs(10));
                }
                samples
            })
        };
        let run = runtime.block_on(soaking.run(&proxy.url));
        stop.store(true, Ordering::Relaxed);
        let samples = sampler.join().unwrap();
        run.print("soak   ");
        println!(
            "soak: {} lost, {} duplicated, {} reordered",
            run.lost, run.duplicated, run.reordered
        );
        let series: Vec<String> = samples
            .iter()
            .filter(|(s, _)| s % 60 == 0 || *s + 10 >= soak)
            .map(|(s, kib)| format!("{s}s {:.1}", *kib as f64 / 1024.0))
            .collect();
        println!("proxy resident memory (MiB): {}", series.join(", "));
        let after_warmup = samples.iter().find(|(s, _)| *s >= 60).map(|(_, k)| *k);
        let last = samples.last().map(|(_, k)| *k);
        let max = samples.iter().map(|(_, k)| *k).max();
        if let (Some(first), Some(last), Some(max)) = (after_warmup, last, max) {
            println!(
                "memory after the first minute: {:.1} MiB, at the end {:.1} MiB ({:+.1}%), highest {:.1} MiB",
                first as f64 / 1024.0,
                last as f64 / 1024.0,
                (last as f64 / first as f64 - 1.0) * 100.0,
                max as f64 / 1024.0
            );
        }
    }
    proxy.stop();
    fixture.stop();
    let _ = std::fs::remove_dir_all(&store);
}

/// A child process and the address it serves.
struct Started {
    child: Child,
    url: String,
}

impl Started {
    /// The fixture over HTTP: it prints its address on stdout.
    fn fixture(path: &str) -> Started {
        let mut child = Command::new(path)
            .args(["--http", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the fixture starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = format!("http://{}/mcp", line.trim());
        Started { child, url }
    }

    /// The proxy in front of `upstream`: it says where it listens on stderr, which is then
    /// drained so its log never blocks it.
    fn proxy(path: &str, upstream: &str, store: &std::path::Path) -> Started {
        let mut child = Command::new(path)
            .args(["proxy", "--listen", "127.0.0.1:0", "--url", upstream])
            .arg("--store")
            .arg(store)
            .args(["--max-concurrent", "256", "--log-format", "json"])
            .args(
                std::env::var("HTTP_LOAD_PROXY_ARGS")
                    .unwrap_or_default()
                    .split_whitespace(),
            )
            .env("MCPGUARD_CURSOR_SECRET", SECRET)
            .env_remove("MCPGUARD_CONFIG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcpguard starts");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let url = loop {
            let line = lines
                .next()
                .expect("the proxy says where it listens")
                .unwrap();
            if let Some(at) = line.find("listening on http://") {
                let rest = &line[at + "listening on ".len()..];
                break rest[..rest.find([',', '"']).unwrap_or(rest.len())].to_owned();
            }
        };
        std::thread::spawn(move || for _ in lines {});
        Started { child, url }
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Clone, Copy)]
struct Load {
    clients: usize,
    rate: f64,
    seconds: f64,
}

/// What one run saw.
#[derive(Default)]
struct Run {
    /// Round trips of the steady state, after the warm-up.
    latencies: Vec<Duration>,
    /// Round trips of the warm-up.
    warm_up: Vec<Duration>,
    /// The result of each query answered, by query.
    results: HashMap<String, String>,
    sent: usize,
    lost: usize,
    duplicated: usize,
    reordered: usize,
    elapsed: Duration,
}

struct Check {
    compared: usize,
    different: usize,
}

impl Load {
    /// Each client on a connection of its own.
    async fn run(&self, url: &str) -> Run {
        self.run_with(url, None).await
    }

    /// All clients through one connection pool, the way the proxy reaches the server.
    async fn run_pooled(&self, url: &str) -> Run {
        let pool = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .unwrap();
        self.run_with(url, Some(pool)).await
    }

    async fn run_with(&self, url: &str, pool: Option<reqwest::Client>) -> Run {
        let period = Duration::from_secs_f64(self.clients as f64 / self.rate);
        let started = Instant::now();
        let end = started + Duration::from_secs_f64(self.seconds);
        let tasks: Vec<_> = (0..self.clients)
            .map(|c| {
                let url = url.to_owned();
                let offset = period.mul_f64(c as f64 / self.clients as f64);
                let http = pool.clone().unwrap_or_else(|| {
                    reqwest::Client::builder()
                        .pool_max_idle_per_host(1)
                        .timeout(Duration::from_secs(10))
                        .build()
                        .unwrap()
                });
                tokio::spawn(client(http, url, c, started + offset, period, end))
            })
            .collect();
        let mut run = Run::default();
        for task in tasks {
            let one = task.await.unwrap();
            run.latencies.extend(one.latencies);
            run.warm_up.extend(one.warm_up);
            run.results.extend(one.results);
            run.sent += one.sent;
            run.lost += one.lost;
            run.duplicated += one.duplicated;
            run.reordered += one.reordered;
        }
        run.elapsed = started.elapsed();
        run.latencies.sort_unstable();
        run.warm_up.sort_unstable();
        run
    }
}

impl Run {
    fn print(&self, label: &str) {
        let ms = |q: f64| percentile(&self.latencies, q).as_secs_f64() * 1e3;
        let warm = |q: f64| percentile(&self.warm_up, q).as_secs_f64() * 1e3;
        let answered = self.latencies.len() + self.warm_up.len();
        println!(
            "{label}: {answered} answered of {} sent in {:.1} s ({:.0}/s): p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            self.sent,
            self.elapsed.as_secs_f64(),
            answered as f64 / self.elapsed.as_secs_f64(),
            ms(0.50),
            ms(0.90),
            ms(0.99),
            ms(1.0)
        );
        println!(
            "{label}: the first {} s apart ({} round trips): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            WARM_UP.as_secs_f64(),
            self.warm_up.len(),
            warm(0.50),
            warm(0.99),
            warm(1.0)
        );
    }

    fn against(&self, direct: &Run) -> Check {
        let mut check = Check {
            compared: 0,
            different: 0,
        };
        for (query, result) in &self.results {
            if let Some(expected) = direct.results.get(query) {
                check.compared += 1;
                check.different += usize::from(expected != result);
            }
        }
        check
    }
}

/// One client: a legacy session, then a call every `period` from `first` until `end`.
async fn client(
    http: reqwest::Client,
    url: String,
    c: usize,
    first: Instant,
    period: Duration,
    end: Instant,
) -> Run {
    let mut run = Run::default();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "http_load", "version": "1"}}});
    let answer = post(&http, &url, None, &init).await.expect("initialize");
    let session = answer.session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(&http, &url, Some(&session), &initialized)
        .await
        .expect("initialized");
    let mut seen = std::collections::HashSet::new();
    for n in 0u64.. {
        let at = first + period.mul_f64(n as f64);
        if at >= end {
            break;
        }
        tokio::time::sleep_until(at.into()).await;
        let query = format!("c{c}-r{n}");
        let id = n + 1;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": query}}});
        run.sent += 1;
        let sent = Instant::now();
        let Ok(answer) = post(&http, &url, Some(&session), &request).await else {
            run.lost += 1;
            continue;
        };
        let took = sent.elapsed();
        let Some(response) = answer.response else {
            run.lost += 1;
            continue;
        };
        let answered = response["id"].as_u64();
        if answered != Some(id) {
            match answered {
                Some(other) if seen.contains(&other) => run.duplicated += 1,
                _ => run.reordered += 1,
            }
            continue;
        }
        seen.insert(id);
        let result = response["result"].to_string();
        if !result.contains(&query) {
            run.reordered += 1;
            continue;
        }
        if at < first + WARM_UP {
            run.warm_up.push(took);
        } else {
            run.latencies.push(took);
        }
        run.results.insert(query, result);
    }
    run
}

struct Answer {
    session: Option<String>,
    /// The JSON-RPC response (the last message with an id, JSON or SSE).
    response: Option<Value>,
}

async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> Result<Answer, reqwest::Error> {
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(s) = session {
        request = request
            .header("mcp-session-id", s)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let response = request.send().await?.error_for_status()?;
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let text = response.text().await?;
    let mut messages = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .chain(text.starts_with('{').then_some(text.as_str()))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok());
    let response = messages.rfind(|m| m.get("id").is_some());
    Ok(Answer { session, response })
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

/// User and system CPU seconds process `pid` has used (Linux; clock ticks of 1/100 s).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// Resident memory of process `pid` in KiB (Linux), 0 where it cannot be read.
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}
