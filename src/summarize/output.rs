//! A finished output: serialized, measured the way `audit` measures a response, with meta's
//! numbers filled in until they describe the text they are part of.

use serde_json::{Value, json};

use super::envelope::{Body, Unwrapped, wrap};
use super::{Options, Outcome, Size, reduction, shape_within};
use crate::document;
use crate::estimate;

/// One finished output and what it costs.
pub(super) struct Candidate {
    pub(super) value: Value,
    pub(super) text: String,
    pub(super) size: Size,
    pub(super) outcome: Outcome,
    pub(super) lossy: bool,
}

impl Candidate {
    pub(super) fn new(
        contract: Value,
        structured: Option<Value>,
        u: &Unwrapped,
        outcome: Outcome,
        lossy: bool,
    ) -> Candidate {
        let value = wrap(contract, structured, u);
        Candidate {
            text: String::new(),
            value,
            size: Size::default(),
            outcome,
            lossy,
        }
    }

    /// Fills in meta's numbers (they change the size they describe, so until they settle)
    /// and says whether the output fits every limit.
    pub(super) fn settle(&mut self, u: &Unwrapped, opts: &Options<'_>, before: Size) -> bool {
        for _ in 0..6 {
            self.text = serde_json::to_string(&self.value).unwrap_or_default();
            let anatomy = document::anatomy(&self.value, &self.text);
            let tokens = estimate::tokens(&anatomy, opts.tokenizer, opts.media_tokens);
            let bytes = self.text.len() as u64;
            let within = shape_within(&anatomy, None, &opts.limits);
            let settled = self.size == Size { bytes, tokens };
            self.size = Size { bytes, tokens };
            if settled || !self.has_meta(u) {
                return within && bytes <= opts.limits.max_bytes && tokens <= opts.budget;
            }
            self.set_meta(u, opts, before);
        }
        false
    }

    /// Where the contract object sits in a non-tool output.
    fn contract_mut<'v>(value: &'v mut Value, u: &Unwrapped) -> Option<&'v mut Value> {
        if u.envelope.rpc_id.is_none() {
            return Some(value);
        }
        match u.envelope.body {
            Body::RpcError { .. } => value.get_mut("error")?.get_mut("data"),
            _ => value.get_mut("result"),
        }
    }

    fn has_meta(&self, u: &Unwrapped) -> bool {
        let contract = match &u.envelope.body {
            Body::Tool { .. } => {
                return self
                    .tool_contract()
                    .is_some_and(|c| c.get("meta").is_some());
            }
            _ if u.envelope.rpc_id.is_none() => Some(&self.value),
            Body::RpcError { .. } => self.value.get("error").and_then(|e| e.get("data")),
            _ => self.value.get("result"),
        };
        contract.is_some_and(|c| c.get("meta").is_some())
    }

    fn tool_contract(&self) -> Option<Value> {
        let result = self.value.get("result").unwrap_or(&self.value);
        let text = result.get("content")?.get(0)?.get("text")?.as_str()?;
        serde_json::from_str(text).ok()
    }

    fn set_meta(&mut self, u: &Unwrapped, opts: &Options<'_>, before: Size) {
        let size = self.size;
        let fill = |contract: &mut Value| {
            if let Some(Value::Object(meta)) = contract.get_mut("meta") {
                let used = size.tokens as f64 / opts.budget.max(1) as f64;
                meta.insert("estimatedTokens".into(), json!(size.tokens));
                meta.insert("budgetUsed".into(), json!(round3(used)));
                meta.insert(
                    "budgetRemaining".into(),
                    json!(opts.budget.saturating_sub(size.tokens)),
                );
                meta.insert("originalBytes".into(), json!(before.bytes));
                meta.insert("finalBytes".into(), json!(size.bytes));
                meta.insert(
                    "reduction".into(),
                    json!(round3(reduction(before.tokens, size.tokens))),
                );
            }
        };
        match &u.envelope.body {
            Body::Tool { .. } => {
                if let Some(mut contract) = self.tool_contract() {
                    fill(&mut contract);
                    let text = serde_json::to_string(&contract).unwrap_or_default();
                    let result = match self.value.get_mut("result") {
                        Some(r) => r,
                        None => &mut self.value,
                    };
                    if let Some(block) = result
                        .get_mut("content")
                        .and_then(|c| c.get_mut(0))
                        .and_then(Value::as_object_mut)
                    {
                        block.insert("text".into(), Value::String(text));
                    }
                }
            }
            _ => {
                if let Some(contract) = Self::contract_mut(&mut self.value, u) {
                    fill(contract);
                }
            }
        }
    }
}

pub(super) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
