//! How well a ranking finds what graded queries need, in the measures retrieval benchmarks
//! publish: recall@k (the share of a query's relevant tools among the first k, averaged over
//! queries) and MRR (the mean of 1/rank of the first relevant tool). A tool is relevant when its
//! grade is above 0; graded 0 are the hard negatives a benchmark lists to show they are wrong.
//! [`Dataset`] reads graded queries in mcpproxy-go's retrieval format (its corpus flat, or tools
//! as `tools/list` gives them).

use std::collections::HashSet;

use serde_json::{Value, json};

use super::{Ranker, Tool};

/// A catalog and the graded queries over it.
pub struct Dataset {
    /// `{"server", "definition"}` per tool, the definition as `tools/list` gives it.
    pub tools: Vec<Value>,
    /// `server:name` per tool, as the labels name them.
    pub ids: Vec<String>,
    /// The query and its relevant tools' ids.
    pub queries: Vec<(String, HashSet<String>)>,
}

impl Dataset {
    /// `corpus`: `{"tools": [{"server", "tool", "description", "inputSchema"?}]}` or
    /// `{"tools": [{"server", "definition"}]}`; `golden`: `{"queries": [{"query", "labels":
    /// [{"tool_id", "relevance"}]}]}`.
    pub fn from_json(corpus: &Value, golden: &Value) -> Self {
        let tools: Vec<Value> = corpus["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|entry| {
                if entry.get("definition").is_some() {
                    return entry.clone();
                }
                let mut tool = json!({"name": entry["tool"], "description": entry["description"]});
                if let Some(schema) = entry.get("inputSchema") {
                    tool["inputSchema"] = schema.clone();
                }
                json!({"server": entry["server"], "definition": tool})
            })
            .collect();
        let ids = tools
            .iter()
            .map(|t| {
                let server = t["server"].as_str().unwrap_or("");
                format!(
                    "{server}:{}",
                    t["definition"]["name"].as_str().unwrap_or("")
                )
            })
            .collect();
        let queries = golden["queries"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|q| {
                let relevant = q["labels"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|l| l["relevance"].as_u64().unwrap_or(0) > 0)
                    .filter_map(|l| l["tool_id"].as_str().map(str::to_owned))
                    .collect();
                (q["query"].as_str().unwrap_or("").to_owned(), relevant)
            })
            .collect();
        Dataset {
            tools,
            ids,
            queries,
        }
    }

    /// The catalog as the ranker reads it, each tool's category its server's name.
    pub fn catalog(&self) -> impl Iterator<Item = Tool<'_>> {
        self.tools.iter().map(|t| {
            let server = t["server"].as_str().unwrap_or("");
            Tool::from_definition(server, server, &t["definition"])
        })
    }

    /// Every query's first `depth` tools by `ranker` (built from [`Dataset::catalog`]).
    pub fn judge(&self, ranker: &Ranker, depth: usize) -> Vec<Judged<'_>> {
        self.queries
            .iter()
            .map(|(query, relevant)| Judged {
                ranked: ranker
                    .rank(query, depth)
                    .iter()
                    .map(|h| self.ids[h.tool].as_str())
                    .collect(),
                relevant: relevant.iter().map(String::as_str).collect(),
            })
            .collect()
    }
}

/// One graded query's answer: the tools returned, best first, and those relevant to it.
pub struct Judged<'a> {
    pub ranked: Vec<&'a str>,
    pub relevant: HashSet<&'a str>,
}

/// The measures over a set of queries.
#[derive(Clone, Debug, PartialEq)]
pub struct Quality {
    pub queries: usize,
    /// `(k, recall@k)` for each k asked.
    pub recall: Vec<(usize, f64)>,
    pub mrr: f64,
}

pub fn measure(judged: &[Judged<'_>], ks: &[usize]) -> Quality {
    let n = judged.len().max(1) as f64;
    let recall = ks
        .iter()
        .map(|&k| {
            let sum: f64 = judged
                .iter()
                .filter(|j| !j.relevant.is_empty())
                .map(|j| {
                    let found = j.ranked.iter().take(k).filter(|t| j.relevant.contains(*t));
                    found.count() as f64 / j.relevant.len() as f64
                })
                .sum();
            (k, sum / n)
        })
        .collect();
    let mrr = judged
        .iter()
        .map(|j| {
            j.ranked
                .iter()
                .position(|t| j.relevant.contains(t))
                .map_or(0.0, |i| 1.0 / (i + 1) as f64)
        })
        .sum::<f64>()
        / n;
    Quality {
        queries: judged.len(),
        recall,
        mrr,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recall_counts_each_relevant_tool_and_mrr_the_first() {
        let judged = [
            Judged {
                ranked: vec!["a", "b", "c"],
                relevant: HashSet::from(["b", "z"]),
            },
            Judged {
                ranked: vec!["x"],
                relevant: HashSet::from(["x"]),
            },
        ];
        let q = measure(&judged, &[1, 3]);
        assert_eq!(q.recall, [(1, 0.5), (3, 0.75)]);
        assert_eq!(q.mrr, (0.5 + 1.0) / 2.0);
    }
}
