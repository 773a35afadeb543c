//! Baselines: per-tool sizes recorded from one audit, so a later audit fails when a tool's
//! responses grow more than `--max-growth` percent, or when the baseline names a tool the
//! audit no longer sees (a stale entry). `--update-baseline` rewrites it atomically.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::stats::ToolStats;
use super::{Context, Finding, Savings};
use crate::contract::RuleId;

/// The file format (`version` 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub version: u32,
    pub tools: BTreeMap<String, Entry>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Entry {
    pub count: usize,
    pub p95_bytes: u64,
    pub max_bytes: u64,
    pub p95_tokens: u64,
    pub max_tokens: u64,
}

impl Baseline {
    pub fn from_stats(tools: &[ToolStats]) -> Baseline {
        Baseline {
            version: 1,
            tools: tools
                .iter()
                .map(|t| {
                    (
                        t.tool.clone(),
                        Entry {
                            count: t.count,
                            p95_bytes: t.bytes.p95,
                            max_bytes: t.bytes.max,
                            p95_tokens: t.tokens.p95,
                            max_tokens: t.tokens.max,
                        },
                    )
                })
                .collect(),
        }
    }

    /// The baseline as pretty JSON with a final newline (stable: keys sorted).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// MG018 for every tool whose p95 bytes grew more than `max_growth` percent; MG019 for
    /// every entry no document of this audit belongs to.
    pub fn compare(
        &self,
        tools: &[ToolStats],
        max_growth: f64,
        name: &str,
        ctx: &Context,
    ) -> Vec<Finding> {
        let finding =
            |code: RuleId, tool: &str, message: String, help: &str, savings: Option<Savings>| {
                Finding::about_run(ctx, code, tool, name, message, help.to_owned()).map(|f| {
                    Finding {
                        tool: Some(tool.to_owned()),
                        pointer: crate::json::pointer::join("/tools", tool),
                        savings,
                        ..f
                    }
                })
            };
        let grown = tools.iter().filter_map(|t| {
            let before = self.tools.get(&t.tool)?.p95_bytes;
            let allowed = (before as f64 * (1.0 + max_growth / 100.0)) as u64;
            if t.bytes.p95 <= allowed {
                return None;
            }
            let growth = (t.bytes.p95 as f64 / before.max(1) as f64 - 1.0) * 100.0;
            finding(
                RuleId::ToolGrew,
                &t.tool,
                format!(
                    "`{}` grew {growth:.0}%: p95 {} bytes, baseline {before} (at most {max_growth}% allowed)",
                    t.tool, t.bytes.p95
                ),
                "shrink the response back, or accept the new size with --update-baseline",
                Some(Savings { bytes: t.bytes.p95 - allowed, tokens: 0 }),
            )
        });
        let stale = self
            .tools
            .keys()
            .filter(|tool| !tools.iter().any(|t| &t.tool == *tool))
            .filter_map(|tool| {
                finding(
                    RuleId::BaselineStale,
                    tool,
                    format!("the baseline has `{tool}`, which this audit did not see"),
                    "if the tool is gone, rewrite the baseline with --update-baseline",
                    None,
                )
            });
        grown.chain(stale).collect()
    }
}
