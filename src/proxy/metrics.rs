//! What the HTTP proxy counts, for `/metrics` (Prometheus text, through the Prometheus
//! organisation's `prometheus-client`) and `/health` (the same figures in JSON): seed 000's
//! FR-029..032. Everything is fed from the policy's [`Record`]s and the transport's own
//! events, so the figures and the `--metrics` file never disagree.
//!
//! Tool names come from the server and the clients: past [`MAX_TOOLS`] distinct names, the
//! rest are counted as `other`, so a client calling made-up tools cannot grow the registry.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use serde_json::{Value, json};

use super::policy::Record;

/// Distinct tool labels kept; the rest are `other`.
pub const MAX_TOOLS: usize = 256;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Call {
    method: String,
    tool: String,
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Staged {
    tool: String,
    outcome: String,
    /// `before` (what the server sent) or `after` (what the client received).
    stage: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Refusal {
    /// What was refused: `busy`, `too_large`, `bad_request`, `header_mismatch`, `timeout`,
    /// `upstream`, `login` (`--oauth` and no login works).
    reason: &'static str,
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

/// The proxy's figures.
pub struct Metrics {
    registry: Registry,
    requests: Family<Call, Counter>,
    bytes: Histograms<Staged>,
    tokens: Histograms<Staged>,
    upstream: Histogram,
    overhead: Histogram,
    store_errors: Counter,
    refused: Family<Refusal, Counter>,
    in_flight: Gauge,
    /// tools/call results seen, those over budget, those shrunk with a reference (the ones a
    /// client can read on), and the reads of the injected tool.
    results: Counter,
    oversized: Counter,
    readable: Counter,
    reads: Counter,
    adoption: Gauge<f64, AtomicU64>,
    oversized_share: Gauge<f64, AtomicU64>,
    tools: Mutex<HashSet<String>>,
    /// Records observed (the families have no total).
    seen: AtomicU64,
}

fn bytes_buckets() -> Histogram {
    // 256 B to 256 MB.
    Histogram::new(exponential_buckets(256.0, 4.0, 11))
}

fn tokens_buckets() -> Histogram {
    // 64 to 64M tokens.
    Histogram::new(exponential_buckets(64.0, 4.0, 11))
}

fn seconds_buckets() -> Histogram {
    // 50 µs to about 100 s.
    Histogram::new(exponential_buckets(50e-6, 3.0, 14))
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("mcpguard");
        let m = Metrics {
            requests: Family::default(),
            bytes: Family::new_with_constructor(bytes_buckets),
            tokens: Family::new_with_constructor(tokens_buckets),
            upstream: seconds_buckets(),
            overhead: seconds_buckets(),
            store_errors: Counter::default(),
            refused: Family::default(),
            in_flight: Gauge::default(),
            results: Counter::default(),
            oversized: Counter::default(),
            readable: Counter::default(),
            reads: Counter::default(),
            adoption: Gauge::default(),
            oversized_share: Gauge::default(),
            tools: Mutex::new(HashSet::new()),
            seen: AtomicU64::new(0),
            registry: Registry::default(),
        };
        registry.register(
            "requests",
            "Requests answered, by method, tool and outcome (passthrough, paginated, chunked, summarized, answered, trimmed, error)",
            m.requests.clone(),
        );
        registry.register(
            "response_bytes",
            "Bytes of each tools/call result, before (from the server) and after (to the client)",
            m.bytes.clone(),
        );
        registry.register(
            "response_tokens",
            "Estimated tokens of each tools/call result, before and after",
            m.tokens.clone(),
        );
        registry.register(
            "upstream_latency_seconds",
            "From a request reaching the server to its answer reaching the proxy",
            m.upstream.clone(),
        );
        registry.register(
            "overhead_seconds",
            "What the proxy added to a request: deciding, shrinking, storing",
            m.overhead.clone(),
        );
        registry.register(
            "store_errors",
            "Shrunk results that went out without a reference because the artifact store failed",
            m.store_errors.clone(),
        );
        registry.register(
            "refused",
            "Requests the proxy answered with an error itself, by reason",
            m.refused.clone(),
        );
        registry.register(
            "in_flight_requests",
            "Requests waiting for the server now",
            m.in_flight.clone(),
        );
        registry.register(
            "tool_results",
            "tools/call results from the server",
            m.results.clone(),
        );
        registry.register(
            "oversized_results",
            "tools/call results over their budget",
            m.oversized.clone(),
        );
        registry.register(
            "readable_results",
            "Shrunk results with a reference to read on from",
            m.readable.clone(),
        );
        registry.register(
            "more_reads",
            "Calls of the injected tool (a page, chunk, section or line range read on)",
            m.reads.clone(),
        );
        registry.register(
            "pagination_adoption_ratio",
            "Pagination adoption: reads of the injected tool per shrunk result with a reference, on this instance (0.0: nobody reads on; across instances: sum(rate(mcpguard_more_reads_total)) / sum(rate(mcpguard_readable_results_total)))",
            m.adoption.clone(),
        );
        registry.register(
            "oversized_share_ratio",
            "Share of tools/call results over their budget",
            m.oversized_share.clone(),
        );
        Metrics { registry, ..m }
    }

    /// A label for `tool`: itself, or `other` once [`MAX_TOOLS`] names are taken.
    fn tool_label(&self, tool: &str) -> String {
        let mut tools = self
            .tools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if tools.contains(tool) {
            return tool.to_owned();
        }
        if tools.len() < MAX_TOOLS {
            tools.insert(tool.to_owned());
            return tool.to_owned();
        }
        "other".to_owned()
    }

    /// One request's record.
    pub fn observe(&self, r: &Record) {
        self.seen.fetch_add(1, Ordering::Relaxed);
        let tool = self.tool_label(&r.seed.tool);
        self.requests
            .get_or_create(&Call {
                method: r.seed.method.clone().unwrap_or_default(),
                tool: tool.clone(),
                outcome: r.outcome.to_owned(),
            })
            .inc();
        if r.store_failed {
            self.store_errors.inc();
        }
        if r.outcome == "answered" {
            self.reads.inc();
        }
        if r.seed.method.as_deref() == Some("tools/call") && r.outcome != "answered" {
            self.results.inc();
            if r.budget.is_some_and(|b| r.sizes.tokens_before > b) || r.outcome != "passthrough" {
                self.oversized.inc();
            }
            if r.artifact_ref.is_some() {
                self.readable.inc();
            }
            for (stage, bytes, tokens) in [
                ("before", r.sizes.bytes_before, r.sizes.tokens_before),
                ("after", r.sizes.bytes_after, r.sizes.tokens_after),
            ] {
                let labels = Staged {
                    tool: tool.clone(),
                    outcome: r.outcome.to_owned(),
                    stage,
                };
                self.bytes.get_or_create(&labels).observe(bytes as f64);
                self.tokens.get_or_create(&labels).observe(tokens as f64);
            }
            self.upstream.observe(r.upstream_ms / 1e3);
        }
        self.overhead.observe(r.overhead_ms / 1e3);
        self.update_ratios();
    }

    fn update_ratios(&self) {
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        self.adoption
            .set(ratio(self.reads.get(), self.readable.get()));
        self.oversized_share
            .set(ratio(self.oversized.get(), self.results.get()));
    }

    /// A request the proxy refused or failed itself (`reason` as in [`Refusal`]).
    pub fn refused(&self, reason: &'static str) {
        self.refused.get_or_create(&Refusal { reason }).inc();
    }

    /// One more request in flight; the guard counts it out.
    pub fn enter(&self) -> InFlight<'_> {
        self.in_flight.inc();
        InFlight(self)
    }

    /// The Prometheus text of every figure.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }

    /// The figures `/health` shows beside its verdict.
    pub fn summary(&self) -> Value {
        let requests: u64 = self.total_requests();
        json!({
            "requests": requests,
            "inFlight": self.in_flight.get(),
            "toolResults": self.results.get(),
            "oversizedResults": self.oversized.get(),
            "oversizedShare": self.oversized_share.get(),
            "readableResults": self.readable.get(),
            "moreReads": self.reads.get(),
            "paginationAdoption": self.adoption.get(),
            "storeErrors": self.store_errors.get(),
        })
    }

    fn total_requests(&self) -> u64 {
        self.seen.load(Ordering::Relaxed)
    }
}

/// A request in flight, counted out when dropped.
pub struct InFlight<'m>(&'m Metrics);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.dec();
    }
}
