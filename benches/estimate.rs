//! Speed of the estimate path, in process:
//! - heuristic estimate of a 100 KB document: <= 0.1 ms (>= 1 GB/s)
//! - claude (ctok's reconstruction) on JSON tool-result text and logs: >= 150 MB/s (the
//!   performance issue; it was >= 30 MB/s, 100 KB <= 3.5 ms);
//!   each family's vocabulary loads in <= 30 ms (group `load`, one load per iteration)
//! - claude-fast: >= 1 GB/s
//!
//! Run: cargo bench --bench estimate. The whole-process figure (<= 10 ms for
//! `mcpguard estimate` on a 100 KB file) is measured by scripts/bench-cli.sh.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcpguard::document::input;
use mcpguard::measure::estimate::{self, Options};
use mcpguard::tokens::Tokenizer;
use mcpguard::tokens::claude::{Claude, Family, forget_counts, forget_remembered_segments};

/// A real 106 KB capture (mcp-server-git, git_log of 200 commits).
fn doc_100k() -> String {
    std::fs::read_to_string("tests/fixtures/git-log-200.json")
        .expect("run from the repository root")
}

/// About 1 MB of JSON: ten real captures in one array.
fn doc_1m() -> String {
    let one = doc_100k();
    let mut out = String::from("[");
    for i in 0..10 {
        if i > 0 {
            out.push(',');
        }
        out.push_str(one.trim_end());
    }
    out.push(']');
    out
}

fn options(tokenizer: Tokenizer, top: usize) -> Options {
    Options {
        tokenizer,
        compare: false,
        top,
        threshold: 4000,
        hard_cap: 12000,
        media_tokens: 1600,
        clients: mcpguard::contract::default_clients(),
        limits: Vec::new(),
    }
}

/// The text of a JSON tool result: 500 bookings, pretty-printed as list tools return them.
fn json_tool_text() -> String {
    std::fs::read_to_string("tests/fixtures/bookings-500.json")
        .expect("run from the repository root")
}

/// About 800 KB of log text as a tool result carries it: a real changelog and a real git log,
/// every line numbered as `grep -n` prints it, so that no line repeats (a log's timestamps do
/// the same) and the line memo saves nothing. scripts/bench-perf.sh counts 5 MB of the same.
fn log_800k() -> String {
    let text = |path: &str| -> String {
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(path).expect("run from the repository root"),
        )
        .expect("a capture");
        json["result"]["content"][0]["text"]
            .as_str()
            .expect("a text block")
            .to_owned()
    };
    let one =
        text("tests/fixtures/corpus/filesystem__tools_call__read_text_file__regex_changelog.json")
            + &text("tests/fixtures/corpus/git__tools_call__git_log__200.json");
    let mut out = String::new();
    for (i, line) in one.repeat(4).split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{}:{line}", i + 1));
    }
    out
}

/// Counting `text` after `forget` (outside the timing, before every count: a batch runs all
/// its set-ups first, so only its first count would follow its own). Claude's counters remember
/// segments, lines and whole texts per thread:
/// - [`forget_remembered_segments`]: the text is seen for the first time ("first-sight");
/// - [`forget_counts`]: its segments and lines were seen before (a corpus of one server's
///   results), but not the text itself, whose remembered count would make the figure the hash
///   that finds it.
fn counting_after(
    forget: fn(),
    t: Tokenizer,
    text: &str,
) -> impl FnMut(&mut criterion::Bencher) + '_ {
    move |b| {
        b.iter_batched(
            forget,
            |()| t.counter().count(black_box(text)),
            criterion::BatchSize::PerIteration,
        )
    }
}

fn counters(c: &mut Criterion) {
    let text = doc_100k();
    let json = json_tool_text();
    let big = doc_1m();
    let mut g = c.benchmark_group("count");
    g.throughput(Throughput::Bytes(text.len() as u64));
    for t in [Tokenizer::Heuristic, Tokenizer::ClaudeFast] {
        g.bench_function(format!("{t}/100KB"), |b| {
            b.iter(|| t.counter().count(black_box(&text)))
        });
    }
    for t in [
        Tokenizer::Claude,
        Tokenizer::ClaudeV3,
        Tokenizer::ClaudeLegacy,
        Tokenizer::O200k,
        Tokenizer::Cl100k,
    ] {
        t.counter()
            .count("warm up: build the tables once, outside the timing");
        g.bench_function(
            format!("{t}/100KB"),
            counting_after(forget_counts, t, &text),
        );
    }
    // Claude's counters remember segment costs per thread: the figures above are a text whose
    // segments were seen before (a corpus of one server's results), these a text seen for the
    // first time.
    for t in [Tokenizer::Claude, Tokenizer::ClaudeV3] {
        g.bench_function(
            format!("{t}/100KB/first-sight"),
            counting_after(forget_remembered_segments, t, &text),
        );
    }
    g.throughput(Throughput::Bytes(json.len() as u64));
    for t in [
        Tokenizer::Claude,
        Tokenizer::ClaudeV3,
        Tokenizer::ClaudeFast,
    ] {
        g.bench_function(
            format!("{t}/json-tool-text-{}KB", json.len() / 1000),
            counting_after(forget_counts, t, &json),
        );
    }
    for t in [Tokenizer::Claude, Tokenizer::ClaudeV3] {
        g.bench_function(
            format!("{t}/json-tool-text-{}KB/first-sight", json.len() / 1000),
            counting_after(forget_remembered_segments, t, &json),
        );
    }
    let log = log_800k();
    g.throughput(Throughput::Bytes(log.len() as u64));
    for t in [Tokenizer::Claude, Tokenizer::ClaudeV3] {
        g.bench_function(
            format!("{t}/log-{}KB", log.len() / 1000),
            counting_after(forget_counts, t, &log),
        );
        g.bench_function(
            format!("{t}/log-{}KB/first-sight", log.len() / 1000),
            counting_after(forget_remembered_segments, t, &log),
        );
    }
    g.throughput(Throughput::Bytes(big.len() as u64));
    g.sample_size(10);
    g.bench_function(
        "claude/1MB",
        counting_after(forget_counts, Tokenizer::Claude, &big),
    );
    g.bench_function(
        "claude/1MB/first-sight",
        counting_after(forget_remembered_segments, Tokenizer::Claude, &big),
    );
    g.finish();

    let mut g = c.benchmark_group("load");
    g.sample_size(10);
    for family in [Family::V4_7, Family::V3] {
        g.bench_function(format!("{family:?}"), |b| {
            b.iter(|| Claude::load(black_box(family)).unwrap())
        });
    }
    g.finish();
}

fn documents(c: &mut Criterion) {
    let text = doc_100k();
    let mut g = c.benchmark_group("estimate");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("parse+estimate/100KB/heuristic", |b| {
        let opts = options(Tokenizer::Heuristic, 0);
        b.iter(|| {
            let doc = input::parse_text("bench.json", black_box(&text))
                .pop()
                .unwrap()
                .unwrap();
            estimate::estimate(&doc, &opts)
        })
    });
    let doc = input::parse_text("bench.json", &text)
        .pop()
        .unwrap()
        .unwrap();
    g.bench_function("estimate(parsed)/100KB/heuristic", |b| {
        let opts = options(Tokenizer::Heuristic, 0);
        b.iter(|| estimate::estimate(black_box(&doc), &opts))
    });
    g.bench_function("estimate(parsed)/100KB/heuristic+top3", |b| {
        let opts = options(Tokenizer::Heuristic, 3);
        b.iter(|| estimate::estimate(black_box(&doc), &opts))
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! { name = benches; config = config(); targets = counters, documents }
criterion_main!(benches);
