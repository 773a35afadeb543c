//! What the policy watches across results: the share of oversized ones (seed 000: warn above
//! 5%), and the token estimate against the exact count on a sample.

use serde_json::Value;

use crate::proxy::shrink::Outcome;

use super::Policy;
use super::effects::{Effects, Level, Log};
use super::record::Record;

/// What the policy keeps an eye on beyond single messages: the share of oversized results
/// (seed 000: warn above 5%), and how close the token estimate is to the exact count.
pub(super) struct Watch {
    pub(super) recent: std::collections::VecDeque<bool>,
    /// Results since the last warning about the share.
    pub(super) since_warning: usize,
    /// Every how many results the estimate is checked (0: never).
    pub(super) sample_every: u64,
    pub(super) results: u64,
}

impl Watch {
    pub(super) const WINDOW: usize = 100;
    /// Share of oversized results above which the operator is warned.
    pub(super) const OVERSIZED_SHARE: f64 = 0.05;
    /// An estimate this far (relative) from the exact count is logged.
    pub(super) const ESTIMATE_SLACK: f64 = 0.25;
}

impl Policy {
    /// The share of oversized results over the last window, and a sample of the estimate
    /// against the exact count (FR-014).
    pub(super) fn watch_result(
        &mut self,
        tool: &str,
        result: &str,
        outcome: Outcome,
        record: &mut Record,
        fx: &mut Effects,
    ) {
        let w = &mut self.watch;
        w.recent.push_back(outcome != Outcome::Passthrough);
        if w.recent.len() > Watch::WINDOW {
            w.recent.pop_front();
        }
        w.since_warning += 1;
        let oversized = w.recent.iter().filter(|o| **o).count();
        let share = oversized as f64 / w.recent.len() as f64;
        if w.recent.len() >= 20
            && share > Watch::OVERSIZED_SHARE
            && w.since_warning >= Watch::WINDOW
        {
            w.since_warning = 0;
            fx.logs.push(
                Log::new(
                    Level::Warn,
                    format!(
                        "{oversized} of the last {} results were over budget ({:.0}%, more than {:.0}%): the server's tools return more than the context should take",
                        w.recent.len(),
                        share * 100.0,
                        Watch::OVERSIZED_SHARE * 100.0
                    ),
                )
                .with("oversizedShare", share),
            );
        }
        w.results += 1;
        let sampled = w.sample_every > 0 && w.results.is_multiple_of(w.sample_every);
        if !sampled || self.config.tokenizer == crate::tokens::Tokenizer::Claude {
            return;
        }
        let Ok(value) = serde_json::from_str::<Value>(result) else {
            return;
        };
        let anatomy = crate::document::anatomy(&value, "");
        let exact = crate::measure::estimate::tokens(
            &anatomy,
            crate::tokens::Tokenizer::Claude,
            self.config.media_tokens,
            &[],
        );
        record.exact_tokens_before = Some(exact);
        let estimate = record.sizes.tokens_before;
        let off = (estimate as f64 - exact as f64) / (exact.max(1) as f64);
        if off.abs() > Watch::ESTIMATE_SLACK && exact > 100 {
            fx.logs.push(
                Log::new(
                    Level::Warn,
                    format!(
                        "{tool}: the token estimate was {estimate}, the exact count {exact} ({:+.0}%)",
                        off * 100.0
                    ),
                )
                .with("tool", tool)
                .with("estimate", estimate)
                .with("exact", exact),
            );
        }
    }
}
