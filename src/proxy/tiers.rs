//! The tiered catalog (seed 004's progressive disclosure): `tools/list` lists the hot tools in
//! full, plus a search/describe pair that finds and explains the others. Which tools are hot
//! comes from the proxy's own call records, scored with seed 004's formula:
//!
//! ```text
//! score = 0.40 * min(calls / 10,000, 1)          popularity
//!       + 0.30 * successes / calls                reliability
//!       + 0.20 * max(0, 1 - mean latency / 1 s)   performance
//!       + 0.10 * calls in 7 days / calls in 30    recency
//! ```
//!
//! The hot list is the `catalogHotTools` best scores; a tool never called scores 0 and keeps its
//! place in the server's order behind the called ones, so a first session lists the server's
//! first tools and later sessions what is used. Ties keep the server's order: the listing is
//! deterministic. Nothing is ever refused: a call to a tool that is not listed goes through,
//! and `describe` puts a tool on the list (the client is told the list changed).

use std::collections::HashMap;

use serde_json::{Value, json};

use super::ranker::{Ranker, Tool};

/// What the proxy knows of one tool's calls.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub calls: u64,
    pub successes: u64,
    pub latency_ms_sum: f64,
    pub last_7_days: u64,
    pub last_30_days: u64,
}

/// One call, as a record says it (or as the proxy just saw it).
pub struct Call<'a> {
    pub tool: &'a str,
    pub ok: bool,
    pub latency_ms: f64,
    /// Seconds before now.
    pub age_seconds: f64,
}

const DAY: f64 = 86_400.0;

impl Stats {
    pub fn add(&mut self, call: &Call<'_>) {
        self.calls += 1;
        self.successes += u64::from(call.ok);
        self.latency_ms_sum += call.latency_ms.max(0.0);
        if call.age_seconds <= 7.0 * DAY {
            self.last_7_days += 1;
        }
        if call.age_seconds <= 30.0 * DAY {
            self.last_30_days += 1;
        }
    }

    /// Seed 004's tier score, rounded to two places as the seed does.
    pub fn score(&self) -> f64 {
        if self.calls == 0 {
            return 0.0;
        }
        let calls = self.calls as f64;
        let popularity = (calls / 10_000.0).min(1.0);
        let reliability = self.successes as f64 / calls;
        let performance = (1.0 - self.latency_ms_sum / calls / 1000.0).max(0.0);
        let recency = if self.last_30_days > 0 {
            self.last_7_days as f64 / self.last_30_days as f64
        } else {
            0.0
        };
        let score = 0.40 * popularity + 0.30 * reliability + 0.20 * performance + 0.10 * recency;
        (score * 100.0).round() / 100.0
    }
}

/// The call records, by tool.
#[derive(Clone, Debug, Default)]
pub struct Usage {
    by_tool: HashMap<String, Stats>,
}

impl Usage {
    pub fn add(&mut self, call: &Call<'_>) {
        self.by_tool
            .entry(call.tool.to_owned())
            .or_default()
            .add(call);
    }

    /// The tools with calls on record, sorted by name.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.by_tool.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    pub fn score(&self, tool: &str) -> f64 {
        self.by_tool.get(tool).map_or(0.0, Stats::score)
    }

    /// The `hot` tools of `names` (in the server's order): the best scores, ties and the
    /// never-called in the server's order.
    pub fn hot<'n>(&self, names: &[&'n str], hot: usize) -> Vec<&'n str> {
        self.hot_within(names, hot, u64::MAX, |_| 0)
    }

    /// As [`Usage::hot`], taking tools best first only while their `cost` (tokens) together
    /// stays within `budget`: one that does not fit is passed over for the next that does.
    pub fn hot_within<'n>(
        &self,
        names: &[&'n str],
        hot: usize,
        budget: u64,
        mut cost: impl FnMut(&str) -> u64,
    ) -> Vec<&'n str> {
        let mut ranked: Vec<(usize, &str)> = names.iter().copied().enumerate().collect();
        ranked.sort_by(|a, b| {
            self.score(b.1)
                .total_cmp(&self.score(a.1))
                .then(a.0.cmp(&b.0))
        });
        let mut spent = 0u64;
        let mut taken = Vec::new();
        for r in ranked {
            if taken.len() == hot {
                break;
            }
            let c = cost(r.1);
            if spent.saturating_add(c) <= budget {
                spent += c;
                taken.push(r);
            }
        }
        taken.sort_by_key(|r| r.0);
        taken.into_iter().map(|r| r.1).collect()
    }
}

/// `mcpguard_find_tools`' definition (seed 004's T1 without a query, T2 with one).
pub fn find_definition(name: &str, describe: &str) -> Value {
    json!({
        "name": name,
        "title": "Find tools",
        "description": format!("Finds tools not listed here (only the most used are). With `query`, what you need in a few words: the best matches, one line each. Without: each server and its tool count. Then call `{describe}` for the ones to use."),
        "inputSchema": {"type": "object", "properties": {
            "query": {"type": "string", "description": "what the tool should do"},
            "server": {"type": "string", "description": "one server only"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "default 10"}}},
        "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
    })
}

/// `mcpguard_describe_tools`' definition (seed 004's T3).
pub fn describe_definition(name: &str) -> Value {
    json!({
        "name": name,
        "title": "Describe tools",
        "description": "Full definitions of tools by name (at most 10), listed from then on so they can be called.",
        "inputSchema": {"type": "object", "required": ["names"], "properties": {
            "names": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_DESCRIBED}}},
        "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
    })
}

/// `mcpguard_call_tool`'s definition: any tool, listed or not, for clients that do not list
/// again when told the list changed.
pub fn call_definition(name: &str) -> Value {
    json!({
        "name": name,
        "title": "Call a tool",
        "description": "Calls any tool by name, listed or not: for a tool you described that is not among your tools.",
        "inputSchema": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"},
            "arguments": {"type": "object", "description": "as the tool's input schema says"}}},
        "annotations": {"openWorldHint": true}
    })
}

/// The most tools one describe call returns.
pub const MAX_DESCRIBED: usize = 10;

/// The server part of a gateway's tool name (`SERVER__TOOL`), or `None` for a name without.
pub fn server_of(name: &str) -> Option<&str> {
    name.split_once("__").map(|(server, _)| server)
}

/// Seed 004's T1: each server of a catalog of tool `names` (by their `SERVER__` part) with how
/// many tools it has, in the catalog's order, and a few of its tool names; a catalog of one
/// server says how many tools it has.
pub fn overview(names: &[&str]) -> String {
    let mut servers: Vec<(&str, Vec<&str>)> = Vec::new();
    for &name in names {
        let server = server_of(name).unwrap_or("");
        match servers.iter_mut().find(|(s, _)| *s == server) {
            Some((_, names)) => names.push(name),
            None => servers.push((server, vec![name])),
        }
    }
    let mut lines: Vec<String> = servers
        .iter()
        .map(|(server, names)| {
            let some: Vec<&str> = names.iter().take(3).copied().collect();
            let more = if names.len() > 3 { ", ..." } else { "" };
            let who = if server.is_empty() {
                "this server"
            } else {
                server
            };
            let n = names.len();
            let plural = if n == 1 { "" } else { "s" };
            format!("{who}: {n} tool{plural} ({}{more})", some.join(", "))
        })
        .collect();
    let plural = if servers.len() == 1 { "" } else { "s" };
    lines.insert(
        0,
        format!("{} tools of {} server{plural}:", names.len(), servers.len()),
    );
    lines.join("\n")
}

/// The ranker over a catalog of tool definitions, as `search` reads it.
pub fn ranker(catalog: &[Value]) -> Ranker {
    Ranker::new(catalog.iter().map(|t| Tool::from_definition("", "", t)))
}

/// The tools of `catalog` that best match `query` (built into `ranker`), at most `limit`, as
/// `name: first sentence of its description`; with `server`, that server's tools only.
pub fn search(
    ranker: &Ranker,
    catalog: &[Value],
    query: &str,
    server: Option<&str>,
    limit: usize,
) -> Vec<String> {
    let of_server = |tool: &&Value| {
        server.is_none_or(|s| {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
            server_of(name) == Some(s)
        })
    };
    let depth = if server.is_some() {
        catalog.len()
    } else {
        limit
    };
    ranker
        .rank(query, depth)
        .into_iter()
        .filter_map(|hit| catalog.get(hit.tool))
        .filter(of_server)
        .take(limit)
        .map(summary_line)
        .collect()
}

/// `name: first sentence`, the sentence cut at 160 characters.
fn summary_line(tool: &Value) -> String {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
    let description = tool
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("");
    let first = description
        .split_inclusive(". ")
        .next()
        .unwrap_or("")
        .trim();
    let first: String = first.chars().take(160).collect();
    format!("{name}: {first}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(tool: &str, ok: bool, latency_ms: f64, days: f64) -> Call<'_> {
        Call {
            tool,
            ok,
            latency_ms,
            age_seconds: days * DAY,
        }
    }

    #[test]
    fn scores_follow_seed_004_and_the_hot_list_is_deterministic() {
        let mut usage = Usage::default();
        for _ in 0..10 {
            usage.add(&call("git_log", true, 200.0, 1.0));
        }
        usage.add(&call("git_diff", false, 2000.0, 20.0));
        // 0.40 * 0.001 + 0.30 * 1 + 0.20 * 0.8 + 0.10 * 1 = 0.5604 -> 0.56
        assert_eq!(usage.score("git_log"), 0.56);
        // 0.40 * 0.0001 + 0 + 0 + 0.10 * 0 = 0.00004 -> 0.0
        assert_eq!(usage.score("git_diff"), 0.0);
        let names = ["git_status", "git_diff", "git_log", "git_show"];
        assert_eq!(usage.hot(&names, 2), ["git_status", "git_log"]);
        assert_eq!(usage.hot(&names, 10), names);
        // Within 100 tokens: git_log (60) first, git_status (50) does not fit, git_diff (30)
        // does; the list keeps the server's order.
        let cost = |n: &str| match n {
            "git_log" => 60,
            "git_status" => 50,
            _ => 30,
        };
        assert_eq!(
            usage.hot_within(&names, 10, 100, cost),
            ["git_diff", "git_log"]
        );
        assert_eq!(usage.hot_within(&names, 1, 100, cost), ["git_log"]);
    }

    #[test]
    fn search_ranks_names_first_and_finds_nothing_for_nothing() {
        let catalog = vec![
            json!({"name": "git_log", "description": "Shows the commit logs. Paged."}),
            json!({"name": "read_file", "description": "Reads a file; also a log file."}),
            json!({"name": "git_diff", "description": "Shows changes."}),
        ];
        let ranker = ranker(&catalog);
        let search = |query: &str, limit: usize| search(&ranker, &catalog, query, None, limit);
        assert_eq!(
            search("log", 10),
            [
                "git_log: Shows the commit logs.",
                "read_file: Reads a file; also a log file."
            ]
        );
        assert_eq!(search("git changes", 1), ["git_diff: Shows changes."]);
        assert!(search("", 10).is_empty());
        assert!(search("zebra", 10).is_empty());
    }

    #[test]
    fn the_overview_counts_each_servers_tools_and_a_server_narrows_a_search() {
        let catalog = vec![
            json!({"name": "git__git_log", "description": "Shows the commit logs."}),
            json!({"name": "fs__read_file", "description": "Reads a file."}),
            json!({"name": "git__git_diff", "description": "Shows changes between commits."}),
        ];
        assert_eq!(
            overview(&["git__git_log", "fs__read_file", "git__git_diff"]),
            "3 tools of 2 servers:\ngit: 2 tools (git__git_log, git__git_diff)\nfs: 1 tool (fs__read_file)"
        );
        let ranker = ranker(&catalog);
        assert_eq!(
            search(&ranker, &catalog, "shows", Some("git"), 1),
            ["git__git_log: Shows the commit logs."]
        );
        assert!(search(&ranker, &catalog, "file", Some("git"), 5).is_empty());
    }
}
