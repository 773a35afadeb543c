//! What becomes of one `tools/call` result: it passes byte for byte when it fits its tool's
//! budget and the contract, else it is replaced by what `paginate`, `chunk` or `summarize`
//! would make of it, with the full result stored and a line saying how to read on.
//!
//! The choice, per tool (each strategy can be switched off under `endpoints:`, FR-035):
//! a list longer than a page is paged (the first page, in the server's order, with a signed
//! cursor); a result that is one block of plain text is chunked at semantic boundaries (the
//! first chunk, with a cursor); anything else, and whatever did not fit that way, is
//! summarized (a preview that always fits). A result with structuredContent is always
//! summarized, because the summary keeps structuredContent valid against the tool's
//! outputSchema (or, when the proxy has not seen it, the shape the server sent) and a page or
//! a chunk would not.
//!
//! `summarize` runs first, as the judge of "fits": its early return is the pass-through, and
//! its preview is the fallback for every other strategy, so an answer over budget is never
//! sent. When the store fails, the preview is remade without a reference (degraded, logged),
//! never the oversize result.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use crate::config::Config;
use crate::document::{self, PartContent};
use crate::reshape::artifact::Ref;
use crate::reshape::cursor::Secrets;
use crate::reshape::summarize::{self, Fields, Outcome as SummaryOutcome};

use super::result::{self, Sizes};
use super::store::Artifacts;

mod chunked;
mod paged;

pub(crate) use chunked::chunk_of;
use chunked::{first_chunk, search_hint};
use paged::first_page;
pub(crate) use paged::page_of;
pub use paged::{inner_budget, pageable};

/// Tokens kept back from the budget for the line that says how to read on and the `_meta`
/// budget fields, so the whole answer fits.
pub const HOWTO_RESERVE: u64 = 300;

/// And bytes kept back from maxBytes for the same.
pub const HOWTO_RESERVE_BYTES: u64 = 1200;

/// What the proxy did with a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Passthrough,
    Paginated,
    Chunked,
    Summarized,
    Error,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Passthrough => "passthrough",
            Outcome::Paginated => "paginated",
            Outcome::Chunked => "chunked",
            Outcome::Summarized => "summarized",
            Outcome::Error => "error",
        }
    }
}

/// What the policy needs to shrink.
pub struct Context<'a> {
    pub config: &'a Config,
    pub secrets: &'a Secrets,
    /// Unix seconds, for cursors.
    pub now: f64,
    /// The injected tool's name, for the way back.
    pub more_tool: &'a str,
}

/// The decision on one result.
#[derive(Debug)]
pub struct Decision {
    pub outcome: Outcome,
    /// The result to send instead of the server's; `None`: the server's bytes go as they are.
    pub result: Option<Value>,
    pub sizes: Sizes,
    pub budget: u64,
    pub reference: Option<String>,
    /// Something the operator should know (the store failed, a strategy fell back).
    pub warning: Option<String>,
    /// The full result could not be stored: what went out has no reference.
    pub store_failed: bool,
    /// The server's result said `isError: true` (as far as it was read: a result passed
    /// unread because every strategy is off counts as a success).
    pub is_error: bool,
}

impl Decision {
    fn pass(sizes: Sizes, budget: u64) -> Decision {
        Decision {
            outcome: Outcome::Passthrough,
            result: None,
            sizes,
            budget,
            reference: None,
            warning: None,
            store_failed: false,
            is_error: false,
        }
    }
}

/// Decides what `tool`'s result (its JSON text, as the server sent it) becomes.
pub fn decide(
    tool: &str,
    result_text: &str,
    output_schema: Option<&Value>,
    cx: &Context<'_>,
    store: &mut dyn Artifacts,
) -> Decision {
    let c = cx.config;
    let budget = c.budget_for(tool);
    let endpoint = c.endpoints.get(tool);
    let flag =
        |f: fn(&crate::config::Endpoint) -> Option<bool>| endpoint.and_then(f) != Some(false);
    let (paging, chunking, summarizing) = (
        flag(|e| e.pagination),
        flag(|e| e.chunking),
        flag(|e| e.summarization),
    );
    let bytes = result_text.len() as u64;
    let unmeasured = Sizes {
        bytes_before: bytes,
        bytes_after: bytes,
        ..Sizes::default()
    };
    if !(paging || chunking || summarizing) {
        return Decision::pass(unmeasured, budget);
    }
    // One parse of the envelope; the JSON inside text blocks stays text until a strategy
    // needs it. What serde_json refuses is still measured and shrunk, in a form it reads.
    let (readable, original, unreadable) = match crate::json::large::parse_result(result_text) {
        Ok(original) => (Cow::Borrowed(result_text), original, None),
        Err(error) => match Readable::of(result_text, &error) {
            Readable::Repaired(text, original) => (Cow::Owned(text), original, None),
            Readable::AsText(text, original) => (Cow::Owned(text), original, Some(error)),
        },
    };
    let result_text = readable.as_ref();
    if unreadable.is_some() {
        // Its shape cannot be judged, only its size: within the tool's bytes and budget, the
        // server's bytes pass as they are.
        let tokens = result::tokens(&original, c, budget);
        if bytes <= c.limits_for(tool).max_bytes && tokens <= budget {
            let sizes = Sizes {
                tokens_before: tokens,
                tokens_after: tokens,
                ..unmeasured
            };
            return Decision::pass(sizes, budget);
        }
    }
    // An input_required result is a question for the client, not content (2026-07-28 MRTR).
    if original.get("resultType") == Some(&json!("input_required")) {
        return Decision::pass(unmeasured, budget);
    }

    let is_error = original.get("isError") == Some(&json!(true));
    // A tool whose outputSchema this proxy has not seen (the client never listed the tools in
    // this session, or listed them through another instance) may still have one, and clients
    // validate against it: structuredContent is then kept in the shape the server sent.
    let inferred = output_schema
        .is_none()
        .then(|| original.get("structuredContent").map(shape_of))
        .flatten();
    let output_schema = output_schema.or(inferred.as_ref());
    let strategies = Strategies {
        paging,
        chunking,
        summarizing,
    };
    let mut decision = shrink_parsed(
        tool,
        result_text,
        &original,
        output_schema,
        strategies,
        cx,
        store,
    );
    // The bytes received, whatever form they were read in.
    decision.sizes.bytes_before = bytes;
    if decision.outcome == Outcome::Passthrough {
        decision.sizes.bytes_after = bytes;
    }
    if let Some(error) = unreadable
        && decision.outcome != Outcome::Passthrough
    {
        decision.warning.get_or_insert_with(|| {
            format!("the result of {tool} is not JSON mcpguard can read ({error}); its text was shrunk as text")
        });
    }
    Decision {
        is_error,
        ..decision
    }
}

/// A result serde_json refuses, in a form the strategies read.
enum Readable {
    /// Its lone surrogate escapes (`"\ud83d"`, a UTF-16 string cut mid-pair, as JavaScript
    /// servers emit) read as U+FFFD, as `input` reads them in files: the same length, the same
    /// shape, shrunk as any other result.
    Repaired(String, Value),
    /// Still unreadable (a number beyond f64, nesting past serde_json's 128 levels): its text as
    /// the one text block of a result, so that an oversize one goes out as a preview of its
    /// text, never whole.
    AsText(String, Value),
}

impl Readable {
    fn of(text: &str, error: &serde_json::Error) -> Readable {
        if let Some(repaired) = crate::json::parse::repair_lone_surrogates(text)
            && let Ok(value) = crate::json::large::parse_result(&repaired)
        {
            return Readable::Repaired(repaired, value);
        }
        let note = format!(
            "\n[mcpguard] The server's result above is not JSON mcpguard can read ({error}), so it was read as text."
        );
        let value = result::text(format!("{text}{note}"));
        Readable::AsText(value.to_string(), value)
    }
}

/// Objects of at most this many keys are records (their fields required in [`shape_of`]);
/// larger ones are maps, whose keys are data.
const RECORD_FIELDS: usize = 32;

/// A JSON Schema that `value` satisfies and that keeps its shape: every value's type, a
/// record's fields required, arrays and maps of any length. What a summary of
/// structuredContent must stay valid against when the tool's own outputSchema is unknown.
fn shape_of(value: &Value) -> Value {
    match value {
        Value::Object(map) if map.len() <= RECORD_FIELDS => {
            let properties: serde_json::Map<String, Value> = map
                .iter()
                .map(|(key, v)| (key.clone(), shape_of(v)))
                .collect();
            json!({"type": "object", "properties": properties, "required": map.keys().collect::<Vec<_>>()})
        }
        Value::Object(_) => json!({"type": "object"}),
        Value::Array(_) => json!({"type": "array"}),
        Value::String(_) => json!({"type": "string"}),
        Value::Number(n) if n.is_f64() => json!({"type": "number"}),
        Value::Number(_) => json!({"type": "integer"}),
        Value::Bool(_) => json!({"type": "boolean"}),
        Value::Null => json!({"type": "null"}),
    }
}

/// Which strategies a tool allows (FR-035).
#[derive(Clone, Copy)]
struct Strategies {
    paging: bool,
    chunking: bool,
    summarizing: bool,
}

/// [`decide`] once the result is parsed (`original`) and known to be content.
fn shrink_parsed(
    tool: &str,
    result_text: &str,
    original: &Value,
    output_schema: Option<&Value>,
    Strategies {
        paging,
        chunking,
        summarizing,
    }: Strategies,
    cx: &Context<'_>,
    store: &mut dyn Artifacts,
) -> Decision {
    let c = cx.config;
    let budget = c.budget_for(tool);
    let bytes = result_text.len() as u64;
    let unmeasured = Sizes {
        bytes_before: bytes,
        bytes_after: bytes,
        ..Sizes::default()
    };
    let limits = c.limits_for(tool);
    let mut sizes = unmeasured;
    if bytes <= limits.max_bytes {
        // Small enough to fit: summarize judges it (budget and every contract limit), and its
        // early return is the pass-through.
        let judge = summary_options(cx, tool, output_schema, limits.clone(), budget, false);
        match summarize::summarize(tool, result_text.to_owned(), &judge, |_, _| Ok(())) {
            Ok(verdict) => {
                let before = verdict.report.before;
                sizes.tokens_before = before.tokens;
                sizes.tokens_after = before.tokens;
                if verdict.report.outcome == SummaryOutcome::Unchanged {
                    return Decision::pass(sizes, budget);
                }
            }
            // Does not fit, and even a preview may not: the shrinking below says so.
            Err(summarize::SummarizeError::CannotFit { .. }) => {}
            Err(e) => {
                return failed(
                    format!("the result of {tool} could not be read: {e}"),
                    sizes,
                    budget,
                );
            }
        }
    }

    // Over. The list to page, if there is one, is found on a second thread while this one
    // stores the full result (hashed, written) and counts its tokens.
    let structured = output_schema.is_some() && original.get("structuredContent").is_some();
    let inner = inner_budget(budget);
    let locate = || {
        (paging && !structured)
            .then(|| pageable(original, inner, c.tokenizer))
            .flatten()
    };
    let (list, (reference, warning)) = crate::util::parallel::join(&locate, || {
        if bytes > limits.max_bytes {
            // Over maxBytes: over the contract whatever its tokens; they are counted for
            // the record, on the text the model would read, without parsing it.
            let anatomy = document::anatomy_shallow(original, "");
            sizes.tokens_before =
                crate::measure::estimate::tokens(&anatomy, c.tokenizer, c.media_tokens, &[]);
        }
        keep(tool, result_text, store)
    });
    let mut chosen: Option<(Outcome, Value)> = None;
    if let Some(r) = &reference {
        if let Some(list) = list {
            chosen = first_page(&list, tool, r, cx, inner);
        }
        if chosen.is_none() && chunking && !structured {
            chosen = first_chunk(original, r, cx, inner);
        }
    }
    let (outcome, mut out) = match chosen {
        Some(c) => c,
        None if summarizing => {
            let mut reserved = limits.clone();
            reserved.max_bytes = reserved
                .max_bytes
                .saturating_sub(HOWTO_RESERVE_BYTES)
                .max(1024);
            let opts = summary_options(
                cx,
                tool,
                output_schema,
                reserved,
                inner,
                reference.is_some(),
            );
            // Already stored: summarize names the same artifact (same domain, same bytes).
            let summary =
                match summarize::summarize(tool, result_text.to_owned(), &opts, |_, _| Ok(())) {
                    Ok(s) => s,
                    Err(e) => return failed(e.to_string(), sizes, budget),
                };
            let Ok(mut preview) = serde_json::from_str::<Value>(&summary.output) else {
                return failed("the preview is not JSON".into(), sizes, budget);
            };
            if let Some(r) = &reference {
                let hint = document::anatomy_shallow(original, "")
                    .parts
                    .iter()
                    .find_map(|p| match &p.content {
                        PartContent::Text { text, .. } => search_hint(text, r, cx),
                        _ => None,
                    })
                    .unwrap_or_default();
                result::push_text(
                    &mut preview,
                    format!(
                        "[mcpguard] This is a preview of a {}-byte result. The rest: {}.{hint}",
                        sizes.bytes_before,
                        result::call(cx.more_tool, &json!({"ref": r}))
                    ),
                );
            }
            (Outcome::Summarized, preview)
        }
        // The strategies that apply are switched off for this tool: the operator's choice.
        None => return Decision::pass(sizes, budget),
    };
    result::carry_envelope(original, &mut out);
    sizes.tokens_after = result::tokens(&out, c, budget);
    let mut extra = Map::new();
    extra.insert("outcome".into(), outcome.name().into());
    if let Some(r) = &reference {
        extra.insert("artifactRef".into(), r.clone().into());
    }
    result::set_budget_meta(&mut out, budget, &sizes, extra);
    sizes.bytes_after = serde_json::to_string(&out).map_or(0, |s| s.len() as u64);
    Decision {
        outcome,
        result: Some(out),
        sizes,
        budget,
        reference,
        store_failed: warning.is_some(),
        warning,
        is_error: false,
    }
}

/// Stores the full result once, named by its content: its reference, or why there is none.
fn keep(
    tool: &str,
    result_text: &str,
    store: &mut dyn Artifacts,
) -> (Option<String>, Option<String>) {
    let stored = Ref::for_content(tool, result_text.as_bytes());
    match store.put(&stored, result_text.as_bytes()) {
        Ok(()) => (Some(stored.to_string()), None),
        Err(why) => (
            None,
            Some(format!(
                "the artifact store failed ({why}); {tool}'s result goes out as a preview without a reference"
            )),
        ),
    }
}

/// How the proxy asks summarize, for the fit check and for a preview.
fn summary_options<'a>(
    cx: &Context<'a>,
    tool: &str,
    output_schema: Option<&'a Value>,
    limits: crate::contract::Limits,
    budget: u64,
    artifact: bool,
) -> summarize::Options<'a> {
    let fields = cx
        .config
        .endpoints
        .get(tool)
        .and_then(|e| e.fields.clone())
        .map_or(Fields::Auto, Fields::Paths);
    summarize::Options {
        limits,
        budget,
        tokenizer: cx.config.tokenizer,
        media_tokens: cx.config.media_tokens,
        fields,
        projections: &cx.config.projections,
        drop_empty: false,
        table: false,
        force: false,
        output_schema,
        domain: Some(tool.to_owned()),
        artifact,
        more_tool: Some(cx.more_tool),
    }
}

fn failed(why: String, sizes: Sizes, budget: u64) -> Decision {
    Decision {
        is_error: false,
        outcome: Outcome::Error,
        result: Some(result::error(format!(
            "mcpguard could not bring this result within its budget of {budget} tokens ({why}); it was not sent"
        ))),
        sizes,
        budget,
        reference: None,
        warning: Some(why),
        store_failed: false,
    }
}
