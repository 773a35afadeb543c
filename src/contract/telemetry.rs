//! The telemetry record (seed 002's TelemetryRecord, FR-029..031): one JSONL line per response,
//! written by `audit --metrics` and by the proxy's `--metrics`, read by `audit --from-metrics`.
//! Both writers share this type, so a file of either is read the same way; the proxy adds its
//! own fields after these.

use serde::{Deserialize, Serialize};

/// The tool the proxy adds to read the rest of a stored result, unless a server already has a
/// tool of that name; the records name its calls with it.
pub const MORE_TOOL: &str = "mcpguard_more";

/// Seed 002's fields, in its names and order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TelemetryRecord {
    /// The request's id, or the audited document's name.
    pub id: String,
    /// The tool called, or the method for other requests (seed 002's endpoint).
    pub tool: String,
    /// The JSON-RPC method (the proxy's records; an audit's records have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// When the record was made (RFC 3339).
    pub time: String,
    /// Tokens and bytes of what the client received.
    pub estimated_tokens: u64,
    pub response_bytes: u64,
    pub item_count: u64,
    /// From the request to the answer (none for a captured response).
    pub latency_ms: Option<f64>,
    pub pagination_used: bool,
    pub summarization_used: bool,
    pub chunking_used: bool,
}

impl TelemetryRecord {
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
