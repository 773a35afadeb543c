//! Tool results the proxy writes itself: error results, the line that tells the model how to
//! read on, the budget fields in `_meta`, and what a result costs the model.

use serde_json::{Map, Value, json};

use crate::config::Config;
use crate::document;
use crate::measure::estimate;

/// The `_meta` key the proxy's budget fields go under (FR-012).
pub const META_KEY: &str = "mcpguard/budget";

/// A tool result with one text block.
pub fn text(text: impl Into<String>) -> Value {
    json!({"content": [{"type": "text", "text": text.into()}]})
}

/// An error the model can act on: `isError`, one text block.
pub fn error(message: impl Into<String>) -> Value {
    json!({"content": [{"type": "text", "text": message.into()}], "isError": true})
}

/// Tokens the model reads for `result` (text blocks, structuredContent, media at their fixed
/// cost), counted for a verdict against `budget`.
pub fn tokens(result: &Value, config: &Config, budget: u64) -> u64 {
    // Texts are counted as text: the JSON inside them need not be parsed.
    let anatomy = document::anatomy_shallow(result, "");
    estimate::tokens(&anatomy, config.tokenizer, config.media_tokens, &[budget])
}

/// Appends a text block to a tool result's content (made a list if it was missing).
pub fn push_text(result: &mut Value, line: String) {
    let Some(obj) = result.as_object_mut() else {
        return;
    };
    let content = obj
        .entry("content")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(blocks) = content {
        blocks.push(json!({"type": "text", "text": line}));
    }
}

/// Adds `text` to the end of the result's last text block (the line that says how to go on).
pub fn append_to_last_text(result: &mut Value, text: &str) {
    if let Some(Value::Array(blocks)) = result.get_mut("content")
        && let Some(Value::String(last)) = blocks
            .iter_mut()
            .rev()
            .find(|b| b["type"] == "text")
            .and_then(|b| b.get_mut("text"))
    {
        last.push_str(text);
    }
}

/// The call that reads on, as the model would write it.
pub fn call(tool: &str, arguments: &Value) -> String {
    format!("call `{tool}` with {arguments}")
}

/// What was measured, for `_meta` and the telemetry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sizes {
    pub bytes_before: u64,
    pub tokens_before: u64,
    pub bytes_after: u64,
    pub tokens_after: u64,
}

/// Writes the budget fields into `result._meta[META_KEY]` (keeping the server's `_meta`).
pub fn set_budget_meta(result: &mut Value, budget: u64, sizes: &Sizes, extra: Map<String, Value>) {
    let Some(obj) = result.as_object_mut() else {
        return;
    };
    let mut meta = Map::new();
    meta.insert("tokenBudget".into(), budget.into());
    meta.insert("estimatedTokens".into(), sizes.tokens_after.into());
    meta.insert(
        "budgetUsed".into(),
        json!((sizes.tokens_after as f64 / budget.max(1) as f64 * 1000.0).round() / 1000.0),
    );
    meta.insert(
        "budgetRemaining".into(),
        budget.saturating_sub(sizes.tokens_after).into(),
    );
    if sizes.bytes_before > 0 {
        meta.insert("originalBytes".into(), sizes.bytes_before.into());
        meta.insert("originalTokens".into(), sizes.tokens_before.into());
    }
    meta.extend(extra);
    // SDK clients that keep only the result's declared members still find the way on.
    if let Some(next) = obj.get("nextCursor") {
        meta.insert("nextCursor".into(), next.clone());
    }
    let slot = obj
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(m) = slot {
        m.insert(META_KEY.into(), Value::Object(meta));
    }
}

/// Members of the server's result that describe the result rather than its content
/// (`resultType`, the 2026-07-28 cache hints, `_meta`), carried over to the result that
/// replaces it.
pub fn carry_envelope(from: &Value, to: &mut Value) {
    let (Some(from), Some(to)) = (from.as_object(), to.as_object_mut()) else {
        return;
    };
    for key in ["resultType", "ttlMs", "cacheScope", "_meta", "isError"] {
        if let Some(v) = from.get(key)
            && !to.contains_key(key)
        {
            to.insert(key.to_owned(), v.clone());
        }
    }
}
