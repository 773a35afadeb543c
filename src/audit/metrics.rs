//! Telemetry (seed 002 TelemetryRecord, FR-029..031): one record per audited response, written
//! as JSONL by `--metrics FILE`, and a summary of such records by tool and outcome
//! (`--from-metrics FILE`).

use std::collections::BTreeMap;

use serde::Serialize;

use super::Report;
use super::stats::Spread;

use crate::contract::telemetry::TelemetryRecord;

/// One record per document of the report.
pub fn records(report: &Report, time: &str) -> Vec<TelemetryRecord> {
    report
        .documents
        .iter()
        .map(|d| TelemetryRecord {
            method: None,
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
pub fn to_jsonl(records: &[TelemetryRecord]) -> String {
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

pub fn summarize(records: &[TelemetryRecord]) -> Vec<Summary> {
    let mut groups: BTreeMap<(&str, &'static str), Vec<&TelemetryRecord>> = BTreeMap::new();
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
