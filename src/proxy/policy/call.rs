//! A server's `tools/call` result: shrunk to its budget or passed, and recorded.

use crate::proxy::shrink::{self, Context, Outcome};

use super::Policy;
use super::effects::{Effects, Level, Log};
use super::pending::Pending;
use super::record::Record;
use super::wire::result_line;

impl Policy {
    pub(super) fn tools_call(
        &mut self,
        tool: &str,
        result: &str,
        pending: &Pending,
        record: &mut Record,
        fx: &mut Effects,
        wall: f64,
    ) -> Option<Vec<u8>> {
        let cx = Context {
            config: &self.config,
            secrets: &self.secrets,
            now: wall,
            more_tool: &self.more_tool,
        };
        let decision = shrink::decide(
            tool,
            result,
            self.schemas.get(tool),
            &cx,
            self.store.as_mut(),
        );
        self.note_call(Some(tool), !decision.is_error, record.upstream_ms);
        let mut sizes = decision.sizes;
        // The bytes of the whole message, not only the result, for the record.
        let frame = record
            .sizes
            .bytes_before
            .saturating_sub(result.len() as u64);
        sizes.bytes_before += frame;
        sizes.bytes_after += frame;
        record.sizes = sizes;
        record.budget = Some(decision.budget);
        record.outcome = decision.outcome.name();
        record.seed.pagination_used = decision.outcome == Outcome::Paginated;
        record.seed.summarization_used = decision.outcome == Outcome::Summarized;
        record.seed.chunking_used = decision.outcome == Outcome::Chunked;
        record.artifact_ref = decision.reference.clone();
        record.store_failed = decision.store_failed;
        if let Some(w) = &decision.warning {
            fx.logs
                .push(Log::new(Level::Warn, w.clone()).with("tool", tool));
        }
        let verb = if self.shadow { "would be" } else { "was" };
        if decision.outcome != Outcome::Passthrough {
            fx.logs.push(
                Log::new(
                    Level::Info,
                    format!(
                        "{tool}: {} bytes, {} tokens over a budget of {}: {verb} {} to {} tokens",
                        sizes.bytes_before,
                        sizes.tokens_before,
                        decision.budget,
                        decision.outcome.name(),
                        sizes.tokens_after
                    ),
                )
                .with("id", record.seed.id.clone())
                .with("tool", tool)
                .with("outcome", decision.outcome.name())
                .with("shadow", self.shadow),
            );
        } else {
            fx.logs.push(
                Log::new(Level::Info, format!("{tool}: passed through"))
                    .with("id", record.seed.id.clone())
                    .with("tool", tool)
                    .with("bytes", sizes.bytes_before)
                    .with("tokens", sizes.tokens_before),
            );
        }
        self.watch_result(tool, result, decision.outcome, record, fx);
        if self.shadow {
            record.sizes.bytes_after = record.sizes.bytes_before;
            return None;
        }
        let out = decision.result?;
        Some(result_line(&pending.raw_id, &out))
    }

    /// One call of a tool, for the tiered catalog's scores.
    pub(super) fn note_call(&mut self, tool: Option<&str>, ok: bool, latency_ms: f64) {
        self.tiers.usage.add(&crate::proxy::tiers::Call {
            tool: tool.unwrap_or(""),
            ok,
            latency_ms,
            age_seconds: 0.0,
        });
    }
}
