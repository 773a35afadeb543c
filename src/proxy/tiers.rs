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
        let mut ranked: Vec<(usize, &str)> = names.iter().copied().enumerate().collect();
        ranked.sort_by(|a, b| {
            self.score(b.1)
                .total_cmp(&self.score(a.1))
                .then(a.0.cmp(&b.0))
        });
        ranked.truncate(hot);
        ranked.sort_by_key(|r| r.0);
        ranked.into_iter().map(|r| r.1).collect()
    }
}

/// The search tool's definition.
pub fn search_definition(name: &str) -> Value {
    json!({
        "name": name,
        "title": "Find a tool",
        "description": "Finds tools of this server that are not listed (only the most used are). Give words of what you need; returns matching tool names with a one-line description. Then call the describe tool for one of them.",
        "inputSchema": {"type": "object", "required": ["query"], "properties": {
            "query": {"type": "string", "description": "words to look for in tool names and descriptions"}}},
        "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
    })
}

/// The describe tool's definition.
pub fn describe_definition(name: &str) -> Value {
    json!({
        "name": name,
        "title": "Describe a tool",
        "description": "Returns a tool's full definition (description and input schema) by name, and lists it from now on so it can be called.",
        "inputSchema": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string", "description": "the tool's name, as the search tool returned it"}}},
        "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
    })
}

/// The tools of `catalog` whose name or description has every word of `query`, best first
/// (a name match before a description match), at most `limit`, as `name: first sentence`.
pub fn search(catalog: &[Value], query: &str, limit: usize) -> Vec<String> {
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut hits: Vec<(usize, usize, String)> = Vec::new();
    for (i, tool) in catalog.iter().enumerate() {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
        let description = tool
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("");
        let (lname, ldesc) = (name.to_lowercase(), description.to_lowercase());
        if words.is_empty() || !words.iter().all(|w| lname.contains(w) || ldesc.contains(w)) {
            continue;
        }
        let in_name = words.iter().filter(|w| lname.contains(w.as_str())).count();
        let first = description
            .split_inclusive(". ")
            .next()
            .unwrap_or("")
            .trim();
        let first: String = first.chars().take(160).collect();
        hits.push((usize::MAX - in_name, i, format!("{name}: {first}")));
    }
    hits.sort();
    hits.into_iter().take(limit).map(|h| h.2).collect()
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
    }

    #[test]
    fn search_finds_by_every_word_names_first() {
        let catalog = vec![
            json!({"name": "git_log", "description": "Shows the commit logs. Paged."}),
            json!({"name": "read_file", "description": "Reads a file; also a log file."}),
            json!({"name": "git_diff", "description": "Shows changes."}),
        ];
        assert_eq!(
            search(&catalog, "log", 10),
            [
                "git_log: Shows the commit logs.",
                "read_file: Reads a file; also a log file."
            ]
        );
        assert_eq!(
            search(&catalog, "git changes", 10),
            ["git_diff: Shows changes."]
        );
        assert!(search(&catalog, "", 10).is_empty());
    }
}
