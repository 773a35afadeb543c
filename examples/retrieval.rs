//! Measures the tool ranker on graded queries: recall@1/3/5/10 and MRR, and how long one query
//! takes. Run by `scripts/bench-find.sh`.
//!
//! `cargo run --release --example retrieval -- CORPUS GOLDEN [--misses] [--scale N]`: CORPUS and
//! GOLDEN in mcpproxy-go's retrieval format (see `quality::Dataset`). `--misses` lists the
//! queries whose first tool is not relevant; `--scale N` times the queries again over the
//! catalog repeated under new server names until it holds N tools.

use std::time::Instant;

use mcpguard::proxy::ranker::quality::{self, Dataset};
use mcpguard::proxy::ranker::{Ranker, Tool};
use serde_json::Value;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let misses = args.iter().any(|a| a == "--misses");
    let scale_at = args.iter().position(|a| a == "--scale");
    let scale: Option<usize> = scale_at
        .and_then(|i| args.get(i + 1))
        .map(|n| n.parse())
        .transpose()?;
    let files: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && scale_at.is_none_or(|s| *i != s + 1))
        .map(|(_, a)| a)
        .collect();
    let [corpus, golden] = files[..] else {
        anyhow::bail!("usage: retrieval CORPUS GOLDEN [--misses] [--scale N]");
    };
    let read = |path: &str| -> anyhow::Result<Value> {
        Ok(serde_json::from_slice(&std::fs::read(path)?)?)
    };
    let data = Dataset::from_json(&read(corpus)?, &read(golden)?);
    let started = Instant::now();
    let ranker = Ranker::new(data.catalog());
    let built = started.elapsed();
    let judged = data.judge(&ranker, 10);
    if misses {
        for ((query, _), j) in data.queries.iter().zip(&judged) {
            if !j.ranked.first().is_some_and(|t| j.relevant.contains(t)) {
                let top = &j.ranked[..j.ranked.len().min(5)];
                println!(
                    "miss  {query}\n      want {:?}\n      got  {top:?}",
                    j.relevant
                );
            }
        }
    }
    let q = quality::measure(&judged, &[1, 3, 5, 10]);
    let recall: Vec<String> = q
        .recall
        .iter()
        .map(|(k, r)| format!("recall@{k} {r:.3}"))
        .collect();
    println!(
        "{} queries over {} tools: {}  MRR {:.3}  (index built in {:.1} ms)",
        q.queries,
        ranker.len(),
        recall.join("  "),
        q.mrr,
        built.as_secs_f64() * 1e3,
    );
    if let Some(n) = scale {
        time_at_scale(&data, n);
    }
    Ok(())
}

/// Times every query, 20 times, over the catalog repeated to `n` tools (copy k's servers named
/// `SERVER~k`).
fn time_at_scale(data: &Dataset, n: usize) {
    let servers: Vec<String> = (0..n)
        .map(|i| {
            let t = &data.tools[i % data.tools.len()];
            let copy = i / data.tools.len();
            format!("{}~{copy}", t["server"].as_str().unwrap_or(""))
        })
        .collect();
    let started = Instant::now();
    let ranker = Ranker::new((0..n).map(|i| {
        let definition = &data.tools[i % data.tools.len()]["definition"];
        Tool::from_definition(&servers[i], &servers[i], definition)
    }));
    let built = started.elapsed();
    let mut times = Vec::new();
    for _ in 0..20 {
        for (query, _) in &data.queries {
            let started = Instant::now();
            std::hint::black_box(ranker.rank(query, 10));
            times.push(started.elapsed().as_secs_f64() * 1e6);
        }
    }
    times.sort_by(f64::total_cmp);
    let p = |f: f64| times[((times.len() as f64 - 1.0) * f).round() as usize];
    println!(
        "{} queries x 20 over {} tools: index built in {:.0} ms; a query p50 {:.0} us, p99 {:.0} us, max {:.0} us",
        data.queries.len(),
        ranker.len(),
        built.as_secs_f64() * 1e3,
        p(0.5),
        p(0.99),
        p(1.0),
    );
}
