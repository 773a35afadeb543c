//! Speed of reading a response into a tree, in process, on one core (issue 26, point 4): the
//! 18 real captures of tests/fixtures/corpus and the JSON texts inside their text blocks, read
//! into `serde_json`'s tree (by `json::parse`, as every command reads a document) and into the
//! audit's borrowed tree (`json::borrowed`), each tree freed again.
//!
//! Run: cargo bench --bench parse. scripts/bench-parse.sh measures the other candidates
//! (sonic-rs, simd-json, a scan with no tree) in a workspace of their own.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcpguard::json::node::Node;
use mcpguard::json::{borrowed, parse};

/// The captures, and the JSON texts their text blocks hold.
fn texts() -> Vec<String> {
    let mut texts = Vec::new();
    for entry in std::fs::read_dir("tests/fixtures/corpus").expect("run from the repository root") {
        let text = std::fs::read_to_string(entry.expect("a capture").path()).expect("UTF-8");
        let value = parse::parse(&text).expect("JSON");
        let blocks = value.pointer("/result/content").and_then(Node::as_array);
        texts.extend(
            blocks
                .into_iter()
                .flatten()
                .filter_map(|b| b.get("text").and_then(Node::as_str))
                .filter(|t| mcpguard::document::looks_like_json(t))
                .map(str::to_owned),
        );
        texts.push(text);
    }
    texts
}

fn parse(c: &mut Criterion) {
    let texts = texts();
    let bytes: usize = texts.iter().map(String::len).sum();
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("serde_json tree (json::parse)", |b| {
        b.iter(|| {
            for text in &texts {
                black_box(parse::parse(black_box(text)).is_ok());
            }
        })
    });
    group.bench_function("borrowed tree (json::borrowed)", |b| {
        b.iter(|| {
            for text in &texts {
                // A fresh arena each time, as the audit makes one per response.
                let arena = bumpalo::Bump::new();
                black_box(borrowed::parse(black_box(text), &arena).is_ok());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
