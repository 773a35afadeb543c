//! Per-tool statistics (count, p50, p95 and max of bytes and tokens) and, for each tool that a
//! client would not take as it is, the smallest fix.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Context, DocumentReport};
use crate::contract::RuleId;
use crate::contract::{ClientVerdict, Severity, Verdicts};
use crate::measure::PathCost;

/// The 50th and 95th percentiles (nearest rank) and the maximum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Spread {
    pub p50: u64,
    pub p95: u64,
    pub max: u64,
}

impl Spread {
    pub fn of(mut values: Vec<u64>) -> Spread {
        if values.is_empty() {
            return Spread::default();
        }
        values.sort_unstable();
        let rank =
            |p: f64| values[((p * values.len() as f64).ceil() as usize).clamp(1, values.len()) - 1];
        Spread {
            p50: rank(0.50),
            p95: rank(0.95),
            max: values[values.len() - 1],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolStats {
    pub tool: String,
    pub count: usize,
    pub bytes: Spread,
    pub tokens: Spread,
    pub visible_chars: Spread,
    pub findings: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst: Option<Severity>,
}

/// `map`'s value for `tool`, made by `make` when it has none (the name copied only then: a
/// report's documents name a few tools many times over).
pub fn by_tool<'m, V>(
    map: &'m mut BTreeMap<String, V>,
    tool: &str,
    make: impl FnOnce() -> V,
) -> &'m mut V {
    if !map.contains_key(tool) {
        map.insert(tool.to_owned(), make());
    }
    map.get_mut(tool).expect("inserted above")
}

/// What the per-tool statistics and the suggestions need of each document, gathered as the
/// documents come (a report's documents may be spilled to a file, [`super::documents`]): three
/// numbers a document for the exact percentiles, and each tool's largest response in brief.
#[derive(Debug, Default)]
pub struct Tallies(BTreeMap<String, Tally>);

#[derive(Debug, Default)]
struct Tally {
    bytes: Vec<u64>,
    tokens: Vec<u64>,
    visible_chars: Vec<u64>,
    findings: usize,
    worst: Option<Severity>,
    /// The response with the most tokens (the last of equals).
    largest: Option<Largest>,
}

/// What a suggestion reads of a tool's largest response.
#[derive(Debug)]
struct Largest {
    tokens: u64,
    wire_bytes: u64,
    visible_chars: u64,
    clients: Verdicts,
    item_count: u64,
    /// It has an unbounded-list finding (MG002 or MG010).
    list: bool,
    top_path: Option<PathCost>,
}

impl Tallies {
    pub fn add(&mut self, d: &DocumentReport) {
        let tally = by_tool(&mut self.0, &d.tool, Tally::default);
        tally.bytes.push(d.wire_bytes);
        tally.tokens.push(d.tokens);
        tally.visible_chars.push(d.visible_chars);
        tally.findings += d.findings.len();
        tally.worst = tally.worst.max(d.worst);
        if tally.largest.as_ref().is_none_or(|l| d.tokens >= l.tokens) {
            tally.largest = Some(Largest {
                tokens: d.tokens,
                wire_bytes: d.wire_bytes,
                visible_chars: d.visible_chars,
                clients: d.clients.clone(),
                item_count: d.item_count,
                list: d.findings.iter().any(|f| {
                    f.code == RuleId::ArrayNotPaginated.code()
                        || f.code == RuleId::ListWithoutCursor.code()
                }),
                top_path: d.top_paths.first().cloned(),
            });
        }
    }

    /// Each tool's statistics, by the tool's name.
    pub fn per_tool(&self) -> Vec<ToolStats> {
        self.0
            .iter()
            .map(|(tool, t)| ToolStats {
                tool: tool.clone(),
                count: t.bytes.len(),
                bytes: Spread::of(t.bytes.clone()),
                tokens: Spread::of(t.tokens.clone()),
                visible_chars: Spread::of(t.visible_chars.clone()),
                findings: t.findings,
                worst: t.worst,
            })
            .collect()
    }
}

/// What to change so a client takes a tool's responses.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Suggestion {
    pub tool: String,
    pub client: String,
    /// What the client does with the tool's largest response today.
    pub verdict: ClientVerdict,
    /// The smallest change that would do.
    pub fix: String,
    /// A result-size hint for the client, from the observed p95 with 25% headroom, in
    /// characters (Claude Code can be told to take larger results).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_hint_chars: Option<u64>,
}

pub fn suggestions(tallies: &Tallies, tools: &[ToolStats], ctx: &Context) -> Vec<Suggestion> {
    let mut out = Vec::new();
    for stats in tools {
        let Some(largest) = tallies.0.get(&stats.tool).and_then(|t| t.largest.as_ref()) else {
            continue;
        };
        for (client, profile) in &ctx.clients {
            let verdict = largest.clients.get(client).unwrap_or(ClientVerdict::Ok);
            if verdict == ClientVerdict::Ok {
                continue;
            }
            // How much smaller it must get: the tightest of the client's limits it breaks.
            let share =
                |limit: Option<u64>, actual: u64| limit.map(|l| l as f64 / actual.max(1) as f64);
            let ratio = [
                share(profile.warn_tokens, largest.tokens),
                share(profile.max_tokens, largest.tokens),
                share(profile.cut_bytes, largest.wire_bytes),
                share(profile.spill_chars, largest.visible_chars),
            ]
            .into_iter()
            .flatten()
            .filter(|r| *r < 1.0)
            .fold(1.0, f64::min);
            let fix = if largest.list && largest.item_count > 1 {
                let fits = ((largest.item_count as f64 * ratio * 0.9).floor() as u64).max(1);
                format!(
                    "page it: at most {fits} of its {} items per response (mcpguard paginate --limit {fits})",
                    largest.item_count
                )
            } else if let Some(top) = largest
                .top_path
                .as_ref()
                .filter(|p| p.tokens as u64 * 2 > largest.tokens)
            {
                let (path, percent) = (
                    crate::json::pointer::display(&top.path),
                    top.tokens as u64 * 100 / largest.tokens.max(1),
                );
                if top.path.ends_with("/text") {
                    // Plain text (a log, a document): cut it at semantic boundaries instead.
                    format!(
                        "chunk {path} ({percent}% of its tokens): return the first chunk with a cursor for the next (mcpguard chunk)"
                    )
                } else {
                    format!(
                        "leave out or shorten {path} ({percent}% of its tokens): project fields, or return it as an artifact"
                    )
                }
            } else {
                "summarize it: a preview within the budget and the full result as an artifact"
                    .to_owned()
            };
            // Raising the client's limit is a fix only for responses that would still fit a
            // context: at most twice what the client takes today.
            let fits_a_context = profile
                .max_tokens
                .is_some_and(|m| stats.tokens.p95 <= 2 * m);
            let size_hint_chars = (client == "claude-code" && fits_a_context)
                .then(|| (stats.visible_chars.p95 as f64 * 1.25 / 1000.0).ceil() as u64 * 1000);
            out.push(Suggestion {
                tool: stats.tool.clone(),
                client: client.clone(),
                verdict,
                fix,
                size_hint_chars,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Spread;

    #[test]
    fn nearest_rank_percentiles() {
        let s = Spread::of((1..=100).collect());
        assert_eq!((s.p50, s.p95, s.max), (50, 95, 100));
        let s = Spread::of(vec![7]);
        assert_eq!((s.p50, s.p95, s.max), (7, 7, 7));
        assert_eq!(Spread::of(vec![]), Spread::default());
    }
}
