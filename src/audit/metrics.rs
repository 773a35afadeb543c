//! Telemetry (seed 002 TelemetryRecord, FR-029..031): one record per audited response, written
//! as JSONL by `--metrics FILE`, and a summary of such records by tool and outcome
//! (`--from-metrics FILE`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Report;
use super::stats::Spread;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub id: String,
    pub tool: String,
    /// When the record was made (RFC 3339).
    pub time: String,
    pub estimated_tokens: u64,
    pub response_bytes: u64,
    pub item_count: u64,
    pub latency_ms: Option<f64>,
    pub pagination_used: bool,
    pub summarization_used: bool,
    pub chunking_used: bool,
}

impl Record {
    /// What was done to keep the response small: chunked, summarized, paginated, or plain.
    pub fn outcome(&self) -> &'static str {
        if self.chunking_used {
            "chunked"
        } else if self.summarization_used {
            "summarized"
        } else if self.pagination_used {
            "paginated"
        } else {
            "plain"
        }
    }
}

/// One record per document of the report.
pub fn records(report: &Report, time: &str) -> Vec<Record> {
    report
        .documents
        .iter()
        .map(|d| Record {
            id: d.name.clone(),
            tool: d.tool.clone(),
            time: time.to_owned(),
            estimated_tokens: d.tokens,
            response_bytes: d.wire_bytes,
            item_count: d.item_count,
            latency_ms: d.latency_ms,
            pagination_used: d.pagination_used,
            summarization_used: d.summarization_used,
            chunking_used: d.chunking_used,
        })
        .collect()
}

/// Records as JSONL.
pub fn to_jsonl(records: &[Record]) -> String {
    let mut out = String::new();
    for r in records {
        out.push_str(&serde_json::to_string(r).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// Records by tool and outcome (FR-031).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub tool: String,
    pub outcome: &'static str,
    pub count: usize,
    pub tokens: Spread,
    pub bytes: Spread,
    pub mean_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_latency_ms: Option<f64>,
}

pub fn summarize(records: &[Record]) -> Vec<Summary> {
    let mut groups: BTreeMap<(&str, &'static str), Vec<&Record>> = BTreeMap::new();
    for r in records {
        groups.entry((&r.tool, r.outcome())).or_default().push(r);
    }
    groups
        .into_iter()
        .map(|((tool, outcome), rs)| {
            let latencies: Vec<f64> = rs.iter().filter_map(|r| r.latency_ms).collect();
            Summary {
                tool: tool.to_owned(),
                outcome,
                count: rs.len(),
                tokens: Spread::of(rs.iter().map(|r| r.estimated_tokens).collect()),
                bytes: Spread::of(rs.iter().map(|r| r.response_bytes).collect()),
                mean_tokens: rs.iter().map(|r| r.estimated_tokens).sum::<u64>() / rs.len() as u64,
                mean_latency_ms: (!latencies.is_empty())
                    .then(|| latencies.iter().sum::<f64>() / latencies.len() as f64),
            }
        })
        .collect()
}
