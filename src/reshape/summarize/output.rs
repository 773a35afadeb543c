//! A finished output: wrapped in the input's envelope, serialized, measured the way `audit`
//! measures a response, with meta's numbers filled in until they describe the text they are
//! part of.

use serde_json::{Value, json};

use super::envelope::{Unwrapped, wrap};
use super::{Options, Outcome, Size, reduction, shape_within};
use crate::document;
use crate::measure::estimate;

/// One finished output and what it costs.
pub(super) struct Candidate {
    /// The contract object, kept apart from its envelope so meta can be filled in place.
    contract: Value,
    structured: Option<Value>,
    pub(super) text: String,
    pub(super) size: Size,
    pub(super) outcome: Outcome,
    pub(super) lossy: bool,
}

impl Candidate {
    pub(super) fn new(
        contract: Value,
        structured: Option<Value>,
        outcome: Outcome,
        lossy: bool,
    ) -> Candidate {
        Candidate {
            contract,
            structured,
            text: String::new(),
            size: Size::default(),
            outcome,
            lossy,
        }
    }

    /// Fills in meta's numbers (they change the size they describe, so until they settle)
    /// and says whether the output fits every limit.
    pub(super) fn settle(&mut self, u: &Unwrapped, opts: &Options<'_>, before: Size) -> bool {
        for _ in 0..6 {
            let value = wrap(self.contract.clone(), self.structured.clone(), u);
            self.text = serde_json::to_string(&value).unwrap_or_default();
            let anatomy = document::anatomy(&value, &self.text);
            let tokens =
                estimate::tokens(&anatomy, opts.tokenizer, opts.media_tokens, &[opts.budget]);
            let bytes = self.text.len() as u64;
            let within = shape_within(&anatomy, None, &opts.limits);
            let settled = self.size == Size { bytes, tokens };
            self.size = Size { bytes, tokens };
            let meta = match self.contract.get_mut("meta") {
                Some(Value::Object(meta)) if !settled => meta,
                _ => return within && bytes <= opts.limits.max_bytes && tokens <= opts.budget,
            };
            let used = tokens as f64 / opts.budget.max(1) as f64;
            meta.insert("estimatedTokens".into(), json!(tokens));
            meta.insert("budgetUsed".into(), json!(round3(used)));
            meta.insert(
                "budgetRemaining".into(),
                json!(opts.budget.saturating_sub(tokens)),
            );
            meta.insert("originalBytes".into(), json!(before.bytes));
            meta.insert("finalBytes".into(), json!(bytes));
            meta.insert(
                "reduction".into(),
                json!(round3(reduction(before.tokens, tokens))),
            );
        }
        false
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
