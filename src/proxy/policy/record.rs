//! The telemetry record of each request (seed 002's fields and the proxy's), and how a reading
//! of a stored result through the injected tool is counted across its calls.

use std::collections::HashMap;

use crate::contract::telemetry::TelemetryRecord;
use crate::proxy::more;
use crate::proxy::result::Sizes;

/// One telemetry record per request: seed 002's TelemetryRecord, as `audit --metrics` writes
/// it (so `audit --from-metrics` reads either), then what the proxy adds.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// Seed 002's fields, shared with the audit's records.
    #[serde(flatten)]
    pub seed: TelemetryRecord,
    /// passthrough, paginated, chunked, summarized, answered (the injected tool) or error.
    pub outcome: &'static str,
    #[serde(flatten)]
    pub sizes: Sizes,
    /// The budget the result was held to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<u64>,
    /// From the request reaching the server to its answer reaching the proxy.
    pub upstream_ms: f64,
    /// What the proxy added: deciding, shrinking, storing.
    pub overhead_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_ref: Option<String>,
    /// `--shadow`: what would have been done; the server's bytes went out.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shadow: bool,
    /// For the results sampled (`--accuracy-sample`): the exact count of the tokens before,
    /// with Claude's tokenizer, to judge the estimate by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact_tokens_before: Option<u64>,
    /// The artifact store failed: the shrunk result went out without a reference.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub store_failed: bool,
    /// A call of the injected tool: how the model read the stored result.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub reading: Option<ReadingRecord>,
}

/// What a record says of a call of `mcpguard_more`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadingRecord {
    /// The arguments the model gave.
    pub more_arguments: Vec<&'static str>,
    /// match, where, aggregate, lines or read.
    pub more_way: &'static str,
    /// Calls of this reading so far, this one included (a `ref` call starts at 1).
    pub more_calls: u64,
    /// This answer ended the reading: the end of the text or list, or the answer.
    pub more_reached_end: bool,
}

/// Calls per reading (a reference read one way), to tell how many a reading took.
#[derive(Debug, Default)]
pub(super) struct Readings {
    pub(super) calls: HashMap<(String, &'static str), u64>,
}

/// Readings followed at most; past it the oldest are forgotten all at once.
pub(super) const MAX_READINGS: usize = 10_000;

impl Readings {
    pub(super) fn count(&mut self, reading: more::Reading) -> ReadingRecord {
        if self.calls.len() >= MAX_READINGS {
            self.calls.clear();
        }
        let key = (reading.reference.unwrap_or_default(), reading.way);
        let n = self.calls.entry(key.clone()).or_insert(0);
        *n = if reading.starts { 1 } else { *n + 1 };
        let calls = *n;
        if reading.reached_end {
            self.calls.remove(&key);
        }
        ReadingRecord {
            more_arguments: reading.arguments,
            more_way: reading.way,
            more_calls: calls,
            more_reached_end: reading.reached_end,
        }
    }
}

impl Record {
    pub(super) fn new(id: String, method: &str, tool: Option<&str>, wall: f64) -> Record {
        Record {
            seed: TelemetryRecord {
                id,
                tool: tool.unwrap_or(method).to_owned(),
                method: Some(method.to_owned()),
                time: crate::reshape::cursor::iso_time(wall),
                estimated_tokens: 0,
                response_bytes: 0,
                item_count: 0,
                latency_ms: Some(0.0),
                pagination_used: false,
                summarization_used: false,
                chunking_used: false,
            },
            outcome: "passthrough",
            sizes: Sizes::default(),
            budget: None,
            upstream_ms: 0.0,
            overhead_ms: 0.0,
            artifact_ref: None,
            shadow: false,
            exact_tokens_before: None,
            store_failed: false,
            reading: None,
        }
    }

    /// Fills in the seed's fields from the sizes and times.
    pub(super) fn finish(mut self) -> Record {
        self.seed.estimated_tokens = self.sizes.tokens_after;
        self.seed.response_bytes = self.sizes.bytes_after;
        self.seed.latency_ms = Some(((self.upstream_ms + self.overhead_ms) * 1e3).round() / 1e3);
        self
    }
}
