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

use super::result::{self, Sizes};
use super::store::Artifacts;
use crate::config::Config;
use crate::document::{self, PartContent};
use crate::reshape::artifact::Ref;
use crate::reshape::chunk;
use crate::reshape::cursor::{self, Payload, Secrets};
use crate::reshape::paginate::{self, Pager, Request};
use crate::reshape::summarize::{self, Fields, Outcome as SummaryOutcome};

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

/// Page 1 of `located`, when it is longer than a page and that page fits.
fn first_page(
    located: &paginate::Located<'_>,
    tool: &str,
    reference: &str,
    cx: &Context<'_>,
    budget: u64,
) -> Option<(Outcome, Value)> {
    let c = cx.config;
    let page_size = c
        .endpoints
        .get(tool)
        .and_then(|e| e.page_size)
        .unwrap_or(c.default_page_size) as usize;
    if located.len() <= page_size {
        return None;
    }
    let mut page = page_of(
        located,
        reference,
        None,
        page_size,
        cx,
        (budget, Map::new()),
        None,
    )
    .ok()
    .flatten()?;
    // Records to find rather than page through: say how, with a field they have.
    let example = example_condition(&located.item(0));
    result::append_to_last_text(
        &mut page,
        &format!(
            " To find records: {}; figures without them: {}.",
            result::call(cx.more_tool, &json!({"ref": reference, "where": example})),
            result::call(
                cx.more_tool,
                &json!({"ref": reference, "aggregate": "count", "group_by": example.split('=').next().unwrap_or("status")})
            )
        ),
    );
    Some((Outcome::Paginated, page))
}

/// A condition records could be asked with: a field that names a state or a kind (`status`,
/// `type`, ...) if the record has one, else its first short text field, with its value.
fn example_condition(record: &Value) -> String {
    let Value::Object(m) = record else {
        return "FIELD=VALUE".into();
    };
    let short = |v: &Value| {
        v.as_str()
            .filter(|s| s.len() <= 40 && !s.contains(' '))
            .map(str::to_owned)
    };
    ["status", "state", "type", "kind", "level", "category"]
        .iter()
        .find_map(|k| m.get(*k).and_then(short).map(|v| format!("{k}={v}")))
        .or_else(|| {
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "id" | "uuid" | "_id" | "key"))
                .find_map(|(k, v)| short(v).map(|v| format!("{k}={v}")))
        })
        .unwrap_or_else(|| "FIELD=VALUE".into())
}

/// The list a result is made of, when it has one to page: found as `paginate` finds it, but
/// never the result's own content blocks (a text that is not JSON is chunked instead).
///
/// And only when every item fits `budget` on its own (with a fifth to spare for the page
/// around it, and half of it when the item is shown twice, as text and structuredContent): a list of a few huge trees is read as text, in chunks, so no page is ever
/// over budget. An item's JSON is counted only when its bytes could be over: a token is at
/// least a byte.
pub fn pageable<'v>(
    value: &'v Value,
    budget: u64,
    tokenizer: crate::tokens::Tokenizer,
) -> Option<paginate::Located<'v>> {
    // A list in a JSON text is read lazily (memory about its own size); what that does not
    // read (a map of records, say) is located the usual way.
    let located = paginate::locate_lean(value).or_else(|| paginate::locate(value, None).ok())?;
    // A page of a result with structuredContent shows each item twice (text and structured).
    let copies = if value.get("structuredContent").is_some() {
        2
    } else {
        1
    };
    let room = budget * 4 / 5 / copies;
    let counter = tokenizer.counter();
    let fits = |i: usize| {
        // An item's text as sent is at least its JSON's length: short enough, it fits.
        if located.item_text(i).is_some_and(|t| t.len() as u64 <= room) {
            return true;
        }
        let item = located.item(i);
        crate::json::compact::len(&*item) as u64 <= room
            || counter.count(&crate::json::compact::string(&*item)) as u64 <= room
    };
    (located.pointer != "/content" && located.len() > 1 && (0..located.len()).all(fits))
        .then_some(located)
}

/// The budget left for content once the line that says how to read on is paid for.
pub fn inner_budget(budget: u64) -> u64 {
    budget.saturating_sub(HOWTO_RESERVE).max(budget / 2).max(1)
}

/// A page of `located`, the first or the one `issued` points at, as a tool result with the way
/// on. `Ok(None)` when even one item is over the budget; `Err` says why a cursor does not
/// belong to this list.
pub(super) fn page_of(
    located: &paginate::Located<'_>,
    reference: &str,
    fields: Option<&str>,
    page_size: usize,
    cx: &Context<'_>,
    (budget, tags): (u64, Map<String, Value>),
    issued: Option<&cursor::Decoded>,
) -> Result<Option<Value>, String> {
    let c = cx.config;
    let request = Request {
        limit: issued.is_none().then_some(page_size),
        input_order: true,
        ..Request::default()
    };
    let mut pager = Pager::new(located, &request, issued, c.max_page_size as usize)
        .map_err(|e| e.to_string())?;
    pager.tags.insert("ref".into(), reference.into());
    if let Some(f) = fields {
        pager.tags.insert("fields".into(), f.into());
    }
    pager.tags.extend(tags);
    let offset = match issued {
        Some(d) => pager.resume(d).map_err(|e| e.to_string())?,
        None => 0,
    };
    let shown = |output: &Value| result::tokens(output, c, budget);
    let page = pager.page_within_by(offset, budget, &shown, cx.now, cx.secrets);
    if page.meta.budget_exceeded == Some(true) {
        return Ok(None);
    }
    let mut out = if page.output.get("content").is_some() {
        page.output
    } else {
        result::text(page.output.to_string())
    };
    let shown = format!(
        "Items {}-{} of {}",
        offset + usize::from(page.count > 0),
        offset + page.count,
        pager.total()
    );
    let line = match &page.next_cursor {
        Some(_) => format!(
            "[mcpguard] {shown}. The next page: {} (the nextCursor above). All of it: {reference}.",
            result::call(cx.more_tool, &json!({"cursor": "<nextCursor>"}))
        ),
        None => format!("[mcpguard] {shown}: the last page."),
    };
    result::push_text(&mut out, line);
    if let Some(next) = page.next_cursor {
        out["nextCursor"] = next.into();
    }
    Ok(Some(out))
}

/// The only text of a result that is one block of plain (not JSON) text.
pub(super) fn sole_text(value: &Value) -> Option<&str> {
    if value.get("structuredContent").is_some() {
        return None;
    }
    let anatomy = document::anatomy(value, "");
    let [part] = anatomy.parts.as_slice() else {
        return None;
    };
    match &part.content {
        PartContent::Text {
            text, json: None, ..
        } => Some(text),
        _ => None,
    }
}

/// Chunk 1 of a result that is one block of plain text, when it makes more than one chunk.
fn first_chunk(
    value: &Value,
    reference: &str,
    cx: &Context<'_>,
    budget: u64,
) -> Option<(Outcome, Value)> {
    let text = sole_text(value)?;
    let mut out = chunk_of(text, reference, None, cx, (budget, None), 0, None).ok()?;
    if out.get("nextCursor").is_none() || result::tokens(&out, cx.config, budget) > budget {
        // One chunk is the whole text, or even a chunk is over: a summary does better.
        return None;
    }
    if out.get("isError").is_none()
        && let Some(e) = value.get("isError")
    {
        out["isError"] = e.clone();
    }
    if let Some(hint) = search_hint(text, reference, cx) {
        result::append_to_last_text(&mut out, &hint);
    }
    Some((Outcome::Chunked, out))
}

/// How to find entries in `text` (a log, JSONL, Markdown) rather than read them in order; none
/// for plain text.
fn search_hint(text: &str, reference: &str, cx: &Context<'_>) -> Option<String> {
    let head = &text.as_bytes()[..text.len().min(64 << 10)];
    let (what, example) = match chunk::Kind::detect(None, head) {
        chunk::Kind::Log => ("log entries", "ERROR|FATAL"),
        chunk::Kind::Jsonl => ("records", "\"error\""),
        chunk::Kind::Markdown => ("sections", "^#+ .*Install"),
        chunk::Kind::Text => return None,
    };
    Some(format!(
        " To find {what} instead of reading them all: {}.",
        result::call(cx.more_tool, &json!({"ref": reference, "match": example}))
    ))
}

/// The chunking the proxy uses for `budget`.
pub(super) fn chunk_options(
    cx: &Context<'_>,
    budget: u64,
    max_lines: Option<u64>,
) -> chunk::Options {
    chunk::Options {
        max_tokens: cx.config.chunk_size.min(budget).max(1),
        max_lines: max_lines.unwrap_or(cx.config.chunk_max_lines).max(1),
        kind: None,
        tokenizer: cx.config.tokenizer,
    }
}

/// Chunk `index` of `text` as a tool result with the way on. `Err` carries a message for the
/// model (a cursor for other text, past the end).
pub(super) fn chunk_of(
    text: &str,
    reference: &str,
    fields: Option<&str>,
    cx: &Context<'_>,
    (budget, max_lines): (u64, Option<u64>),
    at: usize,
    issued: Option<&Payload>,
) -> Result<Value, String> {
    let mut opts = chunk_options(cx, budget, max_lines);
    if let Some(p) = issued {
        opts.max_tokens = p.limit.unwrap_or(opts.max_tokens);
        opts.max_lines = p
            .unknown
            .get("maxLines")
            .and_then(Value::as_u64)
            .unwrap_or(opts.max_lines);
        opts.kind = p
            .unknown
            .get("textKind")
            .and_then(Value::as_str)
            .and_then(chunk::Kind::parse);
    }
    let cut = |opts: &chunk::Options| {
        chunk::index_until("result", text.as_bytes(), opts, at).map_err(|e| e.to_string())
    };
    let mut index = cut(&opts)?;
    // The chunker estimates as it cuts; the answer is held to the budget as counted, and to
    // the tool's maxBytes as written (a text of many multi-byte characters, or of characters
    // JSON escapes, has few tokens to its bytes). Where they disagree the first answer shrinks
    // its chunks until it fits, and its cursor carries the size every later chunk is cut at.
    if issued.is_none() {
        let counter = cx.config.tokenizer.counter();
        let domain =
            Ref::parse(reference).map_or_else(|_| String::new(), |r| r.domain().to_owned());
        let room = cx
            .config
            .limits_for(&domain)
            .max_bytes
            .saturating_sub(HOWTO_RESERVE_BYTES)
            .max(1024);
        for _ in 0..8 {
            let Some(b) = index.chunks.get(at) else { break };
            let Some(content) = text.get(b.start as usize..b.end as usize) else {
                break;
            };
            let tokens = counter.count(content) as u64;
            let bytes = crate::json::compact::str_len(content) as u64;
            if (tokens <= budget && bytes <= room) || opts.max_tokens <= 50 {
                break;
            }
            let shrink = |n: u64, over: u64, of: u64| n * over * 9 / (10 * of.max(1));
            opts.max_tokens = shrink(opts.max_tokens, budget, tokens)
                .min(shrink(opts.max_tokens, room, bytes))
                .clamp(50, opts.max_tokens.saturating_sub(1).max(50));
            index = cut(&opts)?;
        }
    }
    if let Some(p) = issued
        && p.fingerprint.as_deref() != Some(index.fingerprint.as_str())
    {
        return Err("this cursor is for other content than its reference holds".into());
    }
    let Some(b) = index.chunks.get(at) else {
        return Err(format!(
            "the cursor points at chunk {} of {}",
            at + 1,
            index.chunks.len()
        ));
    };
    let content = text
        .get(b.start as usize..b.end as usize)
        .ok_or("a chunk boundary is not on a character boundary")?;
    let mut out = result::text(content);
    // The chunks are cut only as far as the one asked for: their number is known at the end.
    let of = if index.complete {
        format!(" of {}", index.chunks.len())
    } else {
        String::new()
    };
    let position = format!(
        "Lines {}-{} of {} (chunk {}{of})",
        b.start_line,
        b.end_line,
        index.total_lines,
        at + 1,
    );
    let line = if !index.complete || at + 1 < index.chunks.len() {
        let mut p = Payload::new(at as u64 + 1, cx.now);
        p.kind = Some("chunk".into());
        p.limit = Some(opts.max_tokens);
        p.fingerprint = Some(index.fingerprint.clone());
        p.unknown.insert("ref".into(), reference.into());
        if let Some(f) = fields {
            p.unknown.insert("fields".into(), f.into());
        }
        p.unknown.insert("maxLines".into(), opts.max_lines.into());
        p.unknown
            .insert("textKind".into(), index.kind.name().into());
        let next = cursor::encode(&p, cx.secrets);
        out["nextCursor"] = next.clone().into();
        format!(
            "[mcpguard] {position}. The next chunk: {}. A line range: {}.",
            result::call(cx.more_tool, &json!({"cursor": next})),
            result::call(
                cx.more_tool,
                &json!({"ref": reference, "lines": "START-END"})
            )
        )
    } else {
        format!("[mcpguard] {position}: the end.")
    };
    result::push_text(&mut out, line);
    Ok(out)
}
