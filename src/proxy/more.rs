//! The tool the proxy adds to `tools/list` and answers itself: the rest of a result it shrank,
//! read from the store a budget-sized piece at a time (DESIGN.md section 9).
//!
//! `ref` (an `ax://` reference) starts at the beginning: the first page when the result holds
//! a list, else the first chunk of its text. `cursor` (a `nextCursor` of an earlier answer)
//! goes on: the cursor carries the reference, the kind and the chunking, HMAC-signed, so a
//! forged or stale one is refused. `fields` narrows records (or an object) to the members
//! named; `lines` gives a line range of the text; `limit` sets the items per page (or lines
//! per chunk). Following `nextCursor` from `ref` to the end returns every item of the list, or
//! every byte of the text, once and in order.
//!
//! Or it finds: `match` (a regular expression) gives the matching entries of a text whole, or
//! the records whose JSON matches; `where`, `order_by` and `aggregate`/`group_by` ask records
//! (`find.rs` answers those).
//!
//! Every refusal is an `isError` result that says what to do: usually, call the original tool
//! again.

use serde_json::{Map, Value, json};

use super::find;
use super::result::{self, Sizes};
use super::shrink::{self, Context};
use super::store::Artifacts;
use crate::contract::telemetry::MORE_TOOL;
use crate::reshape::artifact::Ref;
use crate::reshape::chunk::lines::{self, Range};
use crate::reshape::cursor;
use crate::reshape::paginate;
use crate::reshape::summarize::cut;

/// The arguments it takes.
const ARGUMENTS: [&str; 11] = [
    "ref",
    "cursor",
    "match",
    "context",
    "where",
    "order_by",
    "aggregate",
    "group_by",
    "fields",
    "lines",
    "limit",
];

/// The tool as `tools/list` lists it. Every conversation that lists it pays for it: the
/// description is kept under 190 tokens and the whole entry under 430 (a test counts them).
pub fn definition(name: &str) -> Value {
    json!({
        "name": name,
        "title": "Read or search a shortened result",
        "description": "Reads or searches a result mcpguard shortened: `ref` (its artifactRef) starts, `cursor` (nextCursor) goes on. To find, not read it all: `match` (regex) returns matching log entries, sections or lines whole (`context`: lines around); on records, `where` (status=cancelled and total>100; also != < >= ~ in (a,b)), `order_by` (field:desc), `aggregate` (count, sum(f), avg(f), min(f), max(f)) with `group_by`. Also `fields`, `lines` (200-400), `limit`.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "ref": {"type": "string"},
                "cursor": {"type": "string"},
                "match": {"type": "string"},
                "context": {"type": "integer", "minimum": 0, "maximum": 50},
                "where": {"type": "string"},
                "order_by": {"type": "string"},
                "aggregate": {"type": "string"},
                "group_by": {"type": "string"},
                "fields": {"type": "string"},
                "lines": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1}
            }
        },
        "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
    })
}

/// What the tool was asked.
#[derive(Debug, Default)]
struct Ask {
    reference: Option<String>,
    cursor: Option<String>,
    lines: Option<String>,
    /// `match`, `where` and the rest, with `fields` and `limit`.
    find: find::Ask,
}

/// An answer and what it weighed.
#[derive(Debug)]
pub struct Answer {
    pub result: Value,
    pub sizes: Sizes,
    pub is_error: bool,
    /// How the model read: for telemetry (none for the tier tools).
    pub reading: Option<Reading>,
}

/// How one call read a stored result, for the proxy's records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    /// The reference read (from `ref`, or the cursor's).
    pub reference: Option<String>,
    /// The arguments the model gave, in the tool's order.
    pub arguments: Vec<&'static str>,
    /// `match`, `where`, `aggregate`, `lines` or `read` (pages and chunks in order).
    pub way: &'static str,
    /// A call with `ref` starts a reading; one with `cursor` goes on with it.
    pub starts: bool,
    /// The answer is the last of its reading: no `nextCursor` (the end, or the answer).
    pub reached_end: bool,
}

/// What a call turned out to read, learnt as its answer is made (kept when it fails).
struct Trace {
    way: &'static str,
    reference: Option<String>,
}

/// Answers one call of the tool.
pub fn answer(arguments: Option<&Value>, cx: &Context<'_>, store: &mut dyn Artifacts) -> Answer {
    let mut trace = Trace {
        way: "read",
        reference: None,
    };
    let (result, sizes, is_error) = match respond(arguments, cx, store, &mut trace) {
        Ok((result, tokens)) => {
            let bytes = serde_json::to_string(&result).map_or(0, |s| s.len() as u64);
            let sizes = Sizes {
                bytes_after: bytes,
                tokens_after: tokens,
                ..Sizes::default()
            };
            (result, sizes, false)
        }
        Err(message) => (
            result::error(format!("{MORE_TOOL}: {message}")),
            Sizes::default(),
            true,
        ),
    };
    let args = arguments.and_then(Value::as_object);
    let has = |k: &str| args.is_some_and(|a| a.get(k).is_some_and(|v| !v.is_null()));
    let reading = Reading {
        reference: trace.reference,
        arguments: ARGUMENTS.iter().copied().filter(|k| has(k)).collect(),
        way: trace.way,
        starts: !has("cursor"),
        reached_end: !is_error && result.get("nextCursor").is_none(),
    };
    Answer {
        result,
        sizes,
        is_error,
        reading: Some(reading),
    }
}

fn parse_ask(arguments: Option<&Value>) -> Result<Ask, String> {
    let empty = Map::new();
    let args = match arguments {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(m)) => m,
        Some(_) => return Err("the arguments must be an object".into()),
    };
    if let Some(unknown) = args.keys().find(|k| !ARGUMENTS.contains(&k.as_str())) {
        return Err(format!(
            "unknown argument `{}`; it takes {}",
            cut(unknown, 40),
            ARGUMENTS.join(", ")
        ));
    }
    let text = |key: &str| -> Result<Option<String>, String> {
        match args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) if key == "lines" => Ok(Some(n.to_string())),
            Some(Value::Array(a)) if matches!(key, "fields" | "where") => Ok(Some(
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(if key == "where" { " and " } else { "," }),
            )),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    };
    let whole = |key: &str, least: u64| -> Result<Option<usize>, String> {
        match args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_u64().or_else(|| v.as_str()?.trim().parse().ok()) {
                Some(n) if n >= least => Ok(Some(n.min(100_000) as usize)),
                _ => Err(format!(
                    "`{key}` must be a whole number of at least {least}"
                )),
            },
        }
    };
    let ask = Ask {
        reference: text("ref")?,
        cursor: text("cursor")?,
        lines: text("lines")?,
        find: find::Ask {
            pattern: text("match")?,
            context: whole("context", 0)?,
            filter: text("where")?.filter(|w| !w.trim().is_empty()),
            order_by: text("order_by")?.filter(|o| !o.trim().is_empty()),
            aggregate: text("aggregate")?.filter(|a| !a.trim().is_empty()),
            group_by: text("group_by")?.filter(|g| !g.trim().is_empty()),
            fields: text("fields")?.filter(|f| !f.trim().is_empty()),
            limit: whole("limit", 1)?,
        },
    };
    // A question goes on in the cursors of its answers: it must fit one the tool accepts.
    let q = &ask.find;
    let carried: usize = [&q.fields, &q.pattern, &q.filter, &q.order_by]
        .into_iter()
        .flatten()
        .map(|s| crate::json::python::escaped_len(s))
        .sum();
    if carried > MAX_QUESTION {
        return Err(format!(
            "`fields`, `match`, `where` and `order_by` together are {carried} characters as a cursor carries them; at most {MAX_QUESTION} fit: ask for fewer fields or a shorter question"
        ));
    }
    if let Some(r) = &ask.reference
        && r.len() > 64
    {
        return Err(format!(
            "`ref` {}: not an artifactRef (those are ax://DOMAIN/ID, under 60 characters)",
            cut(r, 60)
        ));
    }
    Ok(ask)
}

/// The most of a question (`fields`, `match`, `where`, `order_by`, as JSON-escaped characters)
/// a call may ask: its cursors carry it, base64 and signed, within the 4,096 bytes a cursor may
/// have, with room for the reference, the offset and the signature.
const MAX_QUESTION: usize = 1536;

/// The answer and the tokens it costs.
fn respond(
    arguments: Option<&Value>,
    cx: &Context<'_>,
    store: &mut dyn Artifacts,
    trace: &mut Trace,
) -> Result<(Value, u64), String> {
    let mut ask = parse_ask(arguments)?;
    trace.way = ask.find.way(ask.lines.is_some());
    trace.reference.clone_from(&ask.reference);
    let again = find::AGAIN;
    let decoded = match &ask.cursor {
        Some(text) => {
            let decoded = cursor::decode_up_to(text, cx.config.read_limits.cursor_bytes())
                .map_err(|e| format!("this cursor is not one mcpguard issued ({e}); {again}"))?;
            let verdict = cursor::check(
                &decoded,
                Some(cx.secrets),
                cx.now,
                cx.config.cursor_ttl_seconds as f64,
            );
            if !verdict.usable() {
                return Err(format!(
                    "this cursor is refused: {}; {again}",
                    verdict.explain(decoded.payload.ts)
                ));
            }
            Some(decoded)
        }
        None => None,
    };
    let from_cursor = |key: &str| {
        decoded
            .as_ref()
            .and_then(|d| d.payload.unknown.get(key))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let reference = match (&decoded, &ask.reference) {
        (Some(_), _) => from_cursor("ref").ok_or_else(|| {
            format!("this cursor was not issued by the proxy (it names no result); {again}")
        })?,
        (None, Some(r)) => r.clone(),
        (None, None) => {
            return Err(
                "give `ref` (the artifactRef of a shortened result) or `cursor` (the nextCursor of the previous answer)"
                    .into(),
            );
        }
    };
    trace.reference = Some(reference.clone());
    if decoded.is_some() && ask.find.asks() {
        return Err(
            "a cursor carries its question: give `cursor` alone, or `ref` with a new `match` or `where`"
                .into(),
        );
    }
    let fields = match &decoded {
        Some(_) => from_cursor("fields"),
        None => ask.find.fields.clone(),
    };
    let r = Ref::parse(&reference).map_err(|e| e.to_string())?;
    let budget = cx.config.budget_for(r.domain());
    let inner = shrink::inner_budget(budget);

    // A question, asked now or carried by the cursor.
    let kind = decoded.as_ref().and_then(|d| d.payload.kind.clone());
    let mut question = find::Ask {
        fields: fields.clone(),
        ..std::mem::take(&mut ask.find)
    };
    if decoded.is_some() {
        question.pattern = from_cursor("match");
        question.filter = from_cursor("where");
        question.order_by = from_cursor("orderBy");
        question.context = decoded
            .as_ref()
            .and_then(|d| d.payload.unknown.get("context"))
            .and_then(Value::as_u64)
            .map(|c| c as usize);
    }
    let place = find::Place {
        reference: &reference,
        stored: &r,
        budget: inner,
    };
    trace.way = question.way(ask.lines.is_some());
    let asks_records = question.asks_records();
    if ask.lines.is_some() && (asks_records || question.pattern.is_some()) {
        return Err("`lines` reads a range; give it without `match` or `where`".into());
    }
    if kind.as_deref() == Some("match")
        || (!asks_records && question.pattern.is_some() && decoded.is_none())
    {
        let out = find::find_text(&question, &place, decoded.as_ref(), cx, store)?;
        return Ok(framed(out, budget, &reference, cx));
    }
    if asks_records || (kind.as_deref() == Some("page") && question.pattern.is_some()) {
        let out = find::query_records(&question, &place, decoded.as_ref(), cx, store)?;
        return Ok(framed(out, budget, &reference, cx));
    }
    let value = find::load(&r, store)?;

    let out = if let Some(spec) = &ask.lines {
        let text = find::text_view(&value, fields.as_deref())?;
        line_range(&text, spec, &reference, cx, inner)?
    } else {
        let kind = decoded.as_ref().and_then(|d| d.payload.kind.clone());
        let whole = match kind.as_deref() {
            Some("chunk") => None,
            _ => shrink::pageable(&value, inner, cx.config.tokenizer),
        };
        // `fields` pages the records narrowed to them; the list is found once either way.
        let narrowed = match (&whole, fields.as_deref()) {
            (Some(list), Some(f)) => Some(narrow(list, f)?),
            _ => None,
        };
        let list = match &narrowed {
            Some(doc) => paginate::locate(doc, None).ok(),
            None => whole,
        };
        match (list, kind.as_deref()) {
            (Some(located), Some("page") | None) => {
                let page_size = question
                    .limit
                    .unwrap_or(cx.config.default_page_size as usize)
                    .min(cx.config.max_page_size as usize);
                shrink::page_of(
                    &located,
                    &reference,
                    fields.as_deref(),
                    page_size,
                    cx,
                    (inner, Map::new()),
                    decoded.as_ref(),
                )
                .map_err(|e| format!("{e}; {again}"))?
                .ok_or_else(|| {
                    format!(
                        "one item of this list is over the {budget}-token budget; ask for fewer `fields`"
                    )
                })?
            }
            (None, Some("page")) => {
                return Err(format!(
                    "this cursor is for a list {r} does not hold; {again}"
                ));
            }
            _ => {
                let text = find::text_view(&value, fields.as_deref())?;
                let at = decoded
                    .as_ref()
                    .map_or(0, |d| d.payload.offset.max(0) as usize);
                let issued = decoded.as_ref().map(|d| &d.payload);
                let max_lines = question.limit.map(|l| l as u64);
                shrink::chunk_of(
                    &text,
                    &reference,
                    fields.as_deref(),
                    cx,
                    (inner, max_lines),
                    at,
                    issued,
                )
                .map_err(|e| format!("{e}; {again}"))?
            }
        }
    };
    Ok(framed(out, budget, &reference, cx))
}

/// An answer with its cost counted and said in `_meta`, and the tokens it costs.
fn framed(mut out: Value, budget: u64, reference: &str, cx: &Context<'_>) -> (Value, u64) {
    let tokens = result::tokens(&out, cx.config, budget);
    let sizes = Sizes {
        tokens_after: tokens,
        ..Sizes::default()
    };
    let mut extra = Map::new();
    extra.insert("artifactRef".into(), reference.into());
    result::set_budget_meta(&mut out, budget, &sizes, extra);
    (out, tokens)
}

/// How `ref` alone reads a stored result under `budget`: `pages` of its list, or `chunks` of
/// its text.
pub fn reads_as(result: &Value, budget: u64, tokenizer: crate::tokens::Tokenizer) -> &'static str {
    if shrink::pageable(result, shrink::inner_budget(budget), tokenizer).is_some() {
        "pages"
    } else {
        "chunks"
    }
}

/// The records narrowed to `fields` (comma-separated), as a document to page; a field no
/// record has is an error that names it, not a page of empty records.
fn narrow(list: &paginate::Located<'_>, fields: &str) -> Result<Value, String> {
    let names: Vec<&str> = fields.split(',').map(str::trim).collect();
    find::known_fields(list, &names)?;
    let items: Vec<Value> = (0..list.len())
        .map(|i| crate::reshape::paginate::select::project(&list.item(i), &names))
        .collect();
    Ok(json!({ "items": items }))
}

/// Lines `spec` of `text`, as many of them as fit `budget`.
fn line_range(
    text: &str,
    spec: &str,
    reference: &str,
    cx: &Context<'_>,
    budget: u64,
) -> Result<Value, String> {
    let range = Range::parse(&spec.replacen('-', ":", 1)).map_err(|_| {
        format!(
            "`lines` {}: expected START-END with 1 <= START <= END, e.g. 200-400",
            cut(spec, 40)
        )
    })?;
    let Some(got) = lines::extract(text.as_bytes(), range).map_err(|e| e.to_string())? else {
        let total = text.lines().count();
        return Err(format!(
            "`lines` {spec}: the text has {total} lines; the range starts past the end"
        ));
    };
    let content = String::from_utf8_lossy(&got.content);
    let counter = cx.config.tokenizer.counter();
    let max_lines = cx.config.chunk_max_lines.max(1) as usize;
    let mut used = 0u64;
    let mut end = 0usize;
    let mut shown = 0u64;
    for line in content.split_inclusive('\n') {
        let cost = counter.count(line) as u64;
        if shown > 0 && (used + cost > budget || shown as usize >= max_lines) {
            break;
        }
        if shown == 0 && cost > budget {
            return Ok(long_line(line, cost, &got, reference, cx, budget));
        }
        used += cost;
        end += line.len();
        shown += 1;
    }
    let last = got.start_line + shown.saturating_sub(1);
    let mut out = result::text(&content[..end]);
    let position = format!("Lines {}-{last} of {}", got.start_line, got.total_lines);
    let line = if last < got.end_line {
        format!(
            "[mcpguard] {position} (the rest of the range did not fit the budget). Next: {}.",
            result::call(
                cx.more_tool,
                &json!({"ref": reference, "lines": format!("{}-{}", last + 1, got.end_line)})
            )
        )
    } else {
        format!("[mcpguard] {position}.")
    };
    result::push_text(&mut out, line);
    Ok(out)
}

/// The first line of a range that alone is over `budget` (`cost` tokens): as much of its
/// start as fits, and the two ways on (the whole text in chunks, or the lines after it).
fn long_line(
    line: &str,
    cost: u64,
    got: &lines::Extract,
    reference: &str,
    cx: &Context<'_>,
    budget: u64,
) -> Value {
    // Held to the budget as the answer is measured (`result::tokens`, which is what the
    // client's budget meta reports): a proportional guess, then smaller until it agrees.
    let mut keep = (line.len() as u64 * budget * 9 / (10 * cost.max(1))) as usize;
    let (prefix, mut out) = loop {
        let prefix = &line[..crate::reshape::chunk::boundaries::cut_point(line, keep)];
        let out = result::text(prefix);
        let tokens = result::tokens(&out, cx.config, budget);
        if prefix.len() <= 1 || tokens <= budget {
            break (prefix, out);
        }
        keep = (prefix.len() as u64 * budget * 9 / (10 * tokens)) as usize;
    };
    let n = got.start_line;
    let mut way_on = format!(
        "[mcpguard] Line {n} of {} is longer than the budget ({cost} tokens, {} bytes): its first {} bytes are above. The whole text in chunks: {}.",
        got.total_lines,
        line.len(),
        prefix.len(),
        result::call(cx.more_tool, &json!({"ref": reference}))
    );
    if n < got.end_line {
        way_on.push_str(&format!(
            " The lines after it: {}.",
            result::call(
                cx.more_tool,
                &json!({"ref": reference, "lines": format!("{}-{}", n + 1, got.end_line)})
            )
        ));
    }
    result::push_text(&mut out, way_on);
    out
}
