//! `audit --from-metrics FILE --format html`: a proxy's `--metrics` records (or an audit's) as
//! pictures on one self-contained page: tokens before and after per tool, what became of the
//! results, the tokens kept out of the context over time, how often the model read on with
//! `mcpguard_more` (and how: searches, filters, figures, reading in order, with the calls each
//! reading took), and the upstream latency and proxy overhead percentiles. Records are read
//! as JSON objects, so an audit's records (no before and after, no latencies) draw what they
//! have.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::page::{self, esc, num};

/// Points on the time line at most.
const TIME_BUCKETS: usize = 60;

/// What one record says, with what a proxy's record adds.
struct Row<'a> {
    tool: &'a str,
    method: &'a str,
    outcome: &'a str,
    before: u64,
    after: u64,
    time: Option<f64>,
    upstream_ms: Option<f64>,
    overhead_ms: Option<f64>,
    readable: bool,
    /// A call of `mcpguard_more`: how it read (match, where, ...), its place in its reading,
    /// and whether it ended it.
    way: Option<&'a str>,
    calls: u64,
    reached_end: bool,
}

fn row(record: &Value) -> Row<'_> {
    let text = |k: &str| record.get(k).and_then(Value::as_str);
    let number = |k: &str| record.get(k).and_then(Value::as_u64);
    let estimated = number("estimatedTokens").unwrap_or(0);
    let outcome = text("outcome").unwrap_or_else(|| {
        let flag = |k: &str| record.get(k).and_then(Value::as_bool).unwrap_or(false);
        if flag("chunkingUsed") {
            "chunked"
        } else if flag("summarizationUsed") {
            "summarized"
        } else if flag("paginationUsed") {
            "paginated"
        } else {
            "plain"
        }
    });
    Row {
        tool: text("tool").unwrap_or("?"),
        method: text("method").unwrap_or("tools/call"),
        outcome,
        before: number("tokensBefore").unwrap_or(estimated),
        after: number("tokensAfter").unwrap_or(estimated),
        time: text("time")
            .and_then(|t| humantime::parse_rfc3339_weak(t).ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs_f64()),
        upstream_ms: record.get("upstreamMs").and_then(Value::as_f64),
        overhead_ms: record.get("overheadMs").and_then(Value::as_f64),
        readable: record.get("artifactRef").is_some_and(Value::is_string),
        way: text("moreWay"),
        calls: number("moreCalls").unwrap_or(0),
        reached_end: record.get("moreReachedEnd").and_then(Value::as_bool) == Some(true),
    }
}

/// How the model read stored results: per way (match, where, aggregate, lines, reading in
/// order), the calls, the tokens they cost, and how many calls a reading took to its end or
/// its answer.
fn readings_section(rows: &[Row<'_>]) -> String {
    let mut by_way: BTreeMap<&str, (u64, u64, Vec<u64>)> = BTreeMap::new();
    for r in rows {
        let Some(way) = r.way else { continue };
        let e = by_way.entry(way).or_default();
        e.0 += 1;
        e.1 += r.after;
        if r.reached_end {
            e.2.push(r.calls);
        }
    }
    if by_way.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<section id=\"readings\"><h2>How the model read the stored results</h2><table id=\"readings-table\"><thead><tr><th>way</th><th class=\"n\">calls</th><th class=\"n\">tokens to the model</th><th class=\"n\">readings ended</th><th class=\"n\">calls to the end (median)</th><th class=\"n\">tokens per reading</th></tr></thead><tbody>",
    );
    let meaning = |w: &str| match w {
        "match" => "match (a search)",
        "where" => "where / order_by (records)",
        "aggregate" => "aggregate (figures)",
        "lines" => "lines (a range)",
        _ => "read in order (pages, chunks)",
    };
    for (way, (calls, tokens, mut ended)) in by_way {
        ended.sort_unstable();
        let median = ended.get(ended.len().saturating_sub(1) / 2).copied();
        let per = if ended.is_empty() {
            "".to_owned()
        } else {
            num(tokens / ended.len() as u64)
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{per}</td></tr>",
            esc(meaning(way)),
            num(calls),
            num(tokens),
            num(ended.len() as u64),
            median.map_or_else(String::new, num),
        );
    }
    out.push_str("</tbody></table><p class=\"note\">A reading starts with a call given <code>ref</code> and goes on with its <code>nextCursor</code>; it ends at the end of what it reads, or with its answer. A search that finds what it needs in one or two calls costs a fraction of reading everything in order.</p></section>");
    out
}

/// The page for `records`, read from `source` (named in the header).
pub fn page(records: &[Value], source: &str) -> String {
    let rows: Vec<Row<'_>> = records.iter().map(row).collect();
    let calls: Vec<&Row<'_>> = rows
        .iter()
        .filter(|r| r.method == "tools/call" && r.tool != crate::contract::telemetry::MORE_TOOL)
        .collect();
    let reads = rows
        .iter()
        .filter(|r| r.tool == crate::contract::telemetry::MORE_TOOL)
        .count() as u64;
    let readable = rows.iter().filter(|r| r.readable).count() as u64;
    let before: u64 = calls.iter().map(|r| r.before).sum();
    let after: u64 = calls.iter().map(|r| r.after).sum();
    let mut body = format!(
        "<header><h1>mcpguard proxy: what it kept out of the context</h1><p class=\"note\">{} records from {}</p>",
        num(rows.len() as u64),
        esc(source)
    );
    body.push_str(&page::facts(&[
        ("tool results".to_owned(), num(calls.len() as u64)),
        ("tokens from the servers".to_owned(), num(before)),
        ("tokens to the model".to_owned(), num(after)),
        (
            "tokens kept out".to_owned(),
            format!(
                "{} ({})",
                num(before.saturating_sub(after)),
                page::pct(before.saturating_sub(after), before)
            ),
        ),
        ("shrunk with a reference".to_owned(), num(readable)),
        (
            "reads with mcpguard_more".to_owned(),
            format!(
                "{} ({:.2} per shrunk result)",
                num(reads),
                if readable == 0 {
                    0.0
                } else {
                    reads as f64 / readable as f64
                }
            ),
        ),
    ]));
    body.push_str("</header>");

    // Per tool: tokens before and after, and what became of its results.
    let mut by_tool: BTreeMap<&str, (u64, u64, BTreeMap<&str, u64>)> = BTreeMap::new();
    for r in &calls {
        let e = by_tool.entry(r.tool).or_default();
        e.0 += r.before;
        e.1 += r.after;
        *e.2.entry(r.outcome).or_default() += 1;
    }
    let mut pairs: Vec<(String, u64, u64)> = by_tool
        .iter()
        .map(|(t, (b, a, _))| ((*t).to_owned(), *b, *a))
        .collect();
    pairs.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    body.push_str("<section id=\"tokens\"><h2>Tokens before and after, per tool</h2><figure>");
    body.push_str(&page::bar_pairs(
        "tool-tokens",
        &pairs,
        ("from the server", "to the model"),
        "tokens of tools/call results per tool, before and after the proxy",
    ));
    body.push_str(
        "<figcaption>Summed over the records, largest first.</figcaption></figure></section>",
    );

    body.push_str("<section id=\"outcomes\"><h2>What became of the results</h2><figure>");
    let classes = |o: &str| match o {
        "passthrough" | "plain" => "s0",
        "paginated" => "t0",
        "chunked" => "t1",
        "summarized" => "t2",
        "trimmed" => "t3",
        "error" => "s2",
        _ => "s1",
    };
    let mut all: BTreeMap<&str, u64> = BTreeMap::new();
    for (_, _, outcomes) in by_tool.values() {
        for (o, n) in outcomes {
            *all.entry(o).or_default() += n;
        }
    }
    fn parts<'m>(
        m: &BTreeMap<&'m str, u64>,
        classes: impl Fn(&str) -> &'static str,
    ) -> Vec<(&'m str, u64, &'static str)> {
        m.iter().map(|(o, n)| (*o, *n, classes(o))).collect()
    }
    body.push_str(&page::share_bar("all tools", &parts(&all, classes)));
    for (tool, (_, _, outcomes)) in &by_tool {
        body.push_str(&page::share_bar(tool, &parts(outcomes, classes)));
    }
    body.push_str("<figcaption>Passed as they were, shrunk (paginated, chunked, summarized, trimmed), or errors; per tool and over all.</figcaption></figure></section>");

    // Over time: cumulative tokens kept out, in at most TIME_BUCKETS steps.
    let mut timed: Vec<(f64, u64, u64)> = calls
        .iter()
        .filter_map(|r| r.time.map(|t| (t, r.before, r.after)))
        .collect();
    timed.sort_by(|a, b| a.0.total_cmp(&b.0));
    if timed.len() > 1 {
        let (t0, t1) = (timed[0].0, timed[timed.len() - 1].0);
        let step = ((t1 - t0) / TIME_BUCKETS as f64).max(1e-3);
        // Hours on a long run, minutes on a short one, seconds on a test's.
        let (unit, per) = match t1 - t0 {
            d if d >= 3.0 * 3600.0 => ("hours", 3600.0),
            d if d >= 180.0 => ("minutes", 60.0),
            _ => ("seconds", 1.0),
        };
        let mut kept = vec![(0.0, 0.0)];
        let mut sent = vec![(0.0, 0.0)];
        let (mut k, mut s) = (0u64, 0u64);
        let mut i = 0;
        let mut edge = t0 + step;
        while i < timed.len() {
            while i < timed.len() && timed[i].0 <= edge {
                k += timed[i].1.saturating_sub(timed[i].2);
                s += timed[i].2;
                i += 1;
            }
            let x = (edge - t0).min(t1 - t0) / per;
            kept.push((x, k as f64));
            sent.push((x, s as f64));
            edge += step;
        }
        body.push_str(
            "<section id=\"time\"><h2>Tokens kept out of the context over time</h2><figure>",
        );
        body.push_str(&page::lines(
            "over-time",
            &[
                ("kept out", "lineA", kept),
                ("sent to the model", "lineB", sent),
            ],
            "cumulative tokens kept out of the context and sent to it, over the records' time",
        ));
        let _ = write!(
            body,
            "<figcaption>Cumulative tokens, from {} to {} ({:.1} {unit} across).</figcaption></figure></section>",
            esc(&iso(t0)),
            esc(&iso(t1)),
            (t1 - t0) / per
        );
    }

    body.push_str(&readings_section(&rows));

    // Latency percentiles (a proxy's records only).
    let percentiles = |mut v: Vec<f64>| -> Option<[f64; 4]> {
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        Some([at(0.5), at(0.95), at(0.99), v[v.len() - 1]])
    };
    let upstream = percentiles(rows.iter().filter_map(|r| r.upstream_ms).collect());
    let overhead = percentiles(rows.iter().filter_map(|r| r.overhead_ms).collect());
    if upstream.is_some() || overhead.is_some() {
        body.push_str("<section id=\"latency\"><h2>Latency</h2><table id=\"latency-table\"><thead><tr><th>milliseconds</th><th class=\"n\">p50</th><th class=\"n\">p95</th><th class=\"n\">p99</th><th class=\"n\">max</th></tr></thead><tbody>");
        for (name, p) in [
            ("upstream (the server)", upstream),
            ("proxy overhead", overhead),
        ] {
            if let Some(p) = p {
                let _ = write!(
                    body,
                    "<tr><td>{name}</td><td class=\"n\">{:.1}</td><td class=\"n\">{:.1}</td><td class=\"n\">{:.1}</td><td class=\"n\">{:.1}</td></tr>",
                    p[0], p[1], p[2], p[3]
                );
            }
        }
        body.push_str("</tbody></table></section>");
    }
    page::page("mcpguard proxy metrics", &body)
}

fn iso(secs: f64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(secs.max(0.0));
    humantime::format_rfc3339_seconds(t).to_string()
}
