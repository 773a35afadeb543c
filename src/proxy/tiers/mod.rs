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
//! The hot list is the config's `hot:` tools, then the tools with calls on record, best score
//! first, at most `catalogHotTools` and within `maxCatalogTokens`; a tool never called and not
//! named in `hot:` is found, not listed. Ties keep the server's order: the listing is
//! deterministic. Nothing is ever refused: a call to a tool that is not listed goes through,
//! and `describe` puts a tool on the list (the client is told the list changed). [`lookup`]
//! answers `mcpguard_find_tools` (T1 and T2).

pub mod definitions;
pub mod lookup;
pub mod plan;

use std::collections::HashMap;

use serde_json::{Value, json};

pub use definitions::Definitions;
pub use lookup::{Lookup, Request, simplify_params};

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

    /// The mean time to an answer, in milliseconds.
    pub fn mean_latency_ms(&self) -> f64 {
        self.latency_ms_sum / self.calls.max(1) as f64
    }

    /// The share of calls that succeeded, 0 to 1.
    pub fn success_rate(&self) -> f64 {
        self.successes as f64 / self.calls.max(1) as f64
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

    /// What the records say of a tool, if it was ever called.
    pub fn stats(&self, tool: &str) -> Option<&Stats> {
        self.by_tool.get(tool)
    }

    /// The `hot` tools of `names` (in the server's order): those the config names (`chosen`)
    /// first, then those with calls on record, best score first; ties in the server's order.
    pub fn hot<'n>(&self, names: &[&'n str], chosen: &[String], hot: usize) -> Vec<&'n str> {
        self.hot_within(names, chosen, hot, u64::MAX, |_| 0)
    }

    /// As [`Usage::hot`], taking tools best first only while their `cost` (tokens) together
    /// stays within `budget`: one that does not fit is passed over for the next that does.
    pub fn hot_within<'n>(
        &self,
        names: &[&'n str],
        chosen: &[String],
        hot: usize,
        budget: u64,
        mut cost: impl FnMut(&str) -> u64,
    ) -> Vec<&'n str> {
        let place = |name: &str| chosen.iter().position(|c| c == name);
        let mut ranked: Vec<(usize, &str)> = names
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, name)| place(name).is_some() || self.by_tool.contains_key(*name))
            .collect();
        ranked.sort_by(|a, b| {
            let chosen = |name| place(name).map_or(usize::MAX, |p| p);
            chosen(a.1)
                .cmp(&chosen(b.1))
                .then(self.score(b.1).total_cmp(&self.score(a.1)))
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
        "description": format!("Finds tools not listed here (only the most used are). With `query`, what you need in a few words: the best matches, one line each; `category`, `server` and figures narrow it. Without: the categories. Then call `{describe}` for the ones to use."),
        "inputSchema": {"type": "object", "properties": {
            "query": {"type": "string", "description": "what the tool should do"},
            "category": {"type": "string"},
            "server": {"type": "string"},
            "maxLatencyMs": {"type": "number"},
            "minSuccessRate": {"type": "number", "maximum": 1},
            "limit": {"type": "integer", "maximum": 50, "description": "default 5"},
            "cursor": {"type": "string"}}},
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

/// Each server's category by the part of the gateway's names its key becomes (the config's
/// `servers: {NAME: {category}}`).
pub fn categories(config: &crate::config::Config) -> HashMap<String, String> {
    config
        .servers
        .iter()
        .filter_map(|(key, server)| {
            Some((super::names::server_part(key), server.category.clone()?))
        })
        .collect()
}

/// The server part of a gateway's tool name (`SERVER__TOOL`), or `None` for a name without.
pub fn server_of(name: &str) -> Option<&str> {
    name.split_once("__").map(|(server, _)| server)
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
        // Only tools with records, or named in the config, are hot.
        assert_eq!(usage.hot(&names, &[], 10), ["git_diff", "git_log"]);
        assert_eq!(usage.hot(&names, &[], 1), ["git_log"]);
        assert!(Usage::default().hot(&names, &[], 10).is_empty());
        // The config's choice comes first, in the server's order on the list.
        let chosen = ["git_show".to_owned(), "nope".to_owned()];
        assert_eq!(usage.hot(&names, &chosen, 2), ["git_log", "git_show"]);
        assert_eq!(usage.hot(&names, &chosen, 1), ["git_show"]);
        // Within 100 tokens: git_show (60) first, git_log (50) does not fit, git_diff (30)
        // does; the list keeps the server's order.
        let cost = |n: &str| match n {
            "git_show" => 60,
            "git_log" => 50,
            _ => 30,
        };
        assert_eq!(
            usage.hot_within(&names, &chosen, 10, 100, cost),
            ["git_diff", "git_show"]
        );
        let stats = usage.stats("git_log").unwrap();
        assert_eq!(
            (stats.mean_latency_ms(), stats.success_rate()),
            (200.0, 1.0)
        );
    }
}
