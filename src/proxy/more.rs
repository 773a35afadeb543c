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
//! Every refusal is an `isError` result that says what to do: usually, call the original tool
//! again.

use serde_json::{Map, Value, json};

use super::result::{self, Sizes};
use super::shrink::{self, Context};
use super::store::Artifacts;
use crate::artifact::Ref;
use crate::chunk::lines::{self, Range};
use crate::cursor;
use crate::document::{self, PartContent};
use crate::paginate;
use crate::summarize::cut;

/// The name the proxy gives its tool unless a server already has a tool of that name.
pub const NAME: &str = "mcpguard_more";

/// The arguments it takes.
const ARGUMENTS: [&str; 5] = ["ref", "cursor", "fields", "lines", "limit"];

/// The tool as `tools/list` lists it (its description is kept under 150 tokens: it costs
/// every conversation that lists it).
pub fn definition(name: &str) -> Value {
    json!({
        "name": name,
        "title": "Read the rest of a shortened result",
        "description": "Reads the rest of a tool result that mcpguard shortened to fit the context. Start with `ref` (the result's artifactRef, ax://...) or continue with `cursor` (the nextCursor of the previous answer). Optional: `fields` (comma-separated) returns only those fields of each record, or those sections of an object, in full; `lines` (e.g. \"200-400\") returns a line range of text; `limit` sets items per page.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "ref": {"type": "string", "description": "artifactRef of a shortened result (ax://...)"},
                "cursor": {"type": "string", "description": "nextCursor of the previous answer"},
                "fields": {"type": "string", "description": "comma-separated fields or sections"},
                "lines": {"type": "string", "description": "a line range, START-END"},
                "limit": {"type": "integer", "minimum": 1, "description": "items per page"}
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
    fields: Option<String>,
    lines: Option<String>,
    limit: Option<usize>,
}

/// An answer and what it weighed.
#[derive(Debug)]
pub struct Answer {
    pub result: Value,
    pub sizes: Sizes,
    pub is_error: bool,
}

/// Answers one call of the tool.
pub fn answer(arguments: Option<&Value>, cx: &Context<'_>, store: &mut dyn Artifacts) -> Answer {
    match respond(arguments, cx, store) {
        Ok((result, tokens)) => {
            let bytes = serde_json::to_string(&result).map_or(0, |s| s.len() as u64);
            Answer {
                result,
                sizes: Sizes {
                    bytes_after: bytes,
                    tokens_after: tokens,
                    ..Sizes::default()
                },
                is_error: false,
            }
        }
        Err(message) => Answer {
            result: result::error(format!("{NAME}: {message}")),
            sizes: Sizes::default(),
            is_error: true,
        },
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
            Some(Value::Array(a)) if key == "fields" => Ok(Some(
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(","),
            )),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    };
    let limit = match args.get("limit") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64() {
            Some(n) if n >= 1 => Some(n.min(100_000) as usize),
            _ => return Err("`limit` must be a whole number of at least 1".into()),
        },
    };
    Ok(Ask {
        reference: text("ref")?,
        cursor: text("cursor")?,
        fields: text("fields")?.filter(|f| !f.trim().is_empty()),
        lines: text("lines")?,
        limit,
    })
}

/// The answer and the tokens it costs.
fn respond(
    arguments: Option<&Value>,
    cx: &Context<'_>,
    store: &mut dyn Artifacts,
) -> Result<(Value, u64), String> {
    let ask = parse_ask(arguments)?;
    let again = "call the original tool again for a fresh result";
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
    let fields = match &decoded {
        Some(_) => from_cursor("fields"),
        None => ask.fields.clone(),
    };
    let r = Ref::parse(&reference).map_err(|e| e.to_string())?;
    let text = match store.get(&r) {
        Ok(Some(t)) => t,
        Ok(None) => {
            return Err(format!(
                "{r} has expired or is not in this proxy's store; {again}"
            ));
        }
        Err(e) => return Err(format!("{r} cannot be read ({e}); {again}")),
    };
    let value = crate::leanjson::parse_result(&text)
        .map_err(|e| format!("{r} is not a JSON result ({e}); {again}"))?;
    drop(text);
    let budget = cx.config.budget_for(r.domain());
    let inner = shrink::inner_budget(budget);

    let mut out = if let Some(spec) = &ask.lines {
        let text = text_view(&value, fields.as_deref())?;
        line_range(&text, spec, &reference, cx, inner)?
    } else {
        let kind = decoded.as_ref().and_then(|d| d.payload.kind.clone());
        let whole = match kind.as_deref() {
            Some("chunk") => None,
            _ => shrink::pageable(&value, inner, cx.config.tokenizer),
        };
        // `fields` pages the records narrowed to them; the list is found once either way.
        let narrowed = match (&whole, fields.as_deref()) {
            (Some(list), Some(f)) => Some(narrow(list, f)),
            _ => None,
        };
        let list = match &narrowed {
            Some(doc) => paginate::locate(doc, None).ok(),
            None => whole,
        };
        match (list, kind.as_deref()) {
            (Some(located), Some("page") | None) => {
                let page_size = ask
                    .limit
                    .unwrap_or(cx.config.default_page_size as usize)
                    .min(cx.config.max_page_size as usize);
                shrink::page_of(
                    &located,
                    &reference,
                    fields.as_deref(),
                    page_size,
                    cx,
                    inner,
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
                let text = text_view(&value, fields.as_deref())?;
                let at = decoded
                    .as_ref()
                    .map_or(0, |d| d.payload.offset.max(0) as usize);
                let issued = decoded.as_ref().map(|d| &d.payload);
                let max_lines = ask.limit.map(|l| l as u64);
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
    let tokens = result::tokens(&out, cx.config, budget);
    let sizes = Sizes {
        tokens_after: tokens,
        ..Sizes::default()
    };
    let mut extra = Map::new();
    extra.insert("artifactRef".into(), reference.into());
    result::set_budget_meta(&mut out, budget, &sizes, extra);
    Ok((out, tokens))
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

/// The records narrowed to `fields` (comma-separated), as a document to page.
fn narrow(list: &paginate::Located<'_>, fields: &str) -> Value {
    let names: Vec<&str> = fields.split(',').map(str::trim).collect();
    let items: Vec<Value> = (0..list.len())
        .map(|i| select(&list.item(i), &names))
        .collect();
    json!({ "items": items })
}

/// The members of `value` named (dotted paths reach inside), in the order named.
fn select(value: &Value, names: &[&str]) -> Value {
    let Value::Object(_) = value else {
        return value.clone();
    };
    let mut out = Map::new();
    for name in names {
        let mut at = value;
        let mut found = true;
        for step in name.split('.') {
            match at.get(step) {
                Some(v) => at = v,
                None => {
                    found = false;
                    break;
                }
            }
        }
        if found {
            out.insert((*name).to_owned(), at.clone());
        }
    }
    Value::Object(out)
}

/// The text the model reads of the result: its text blocks (joined by a newline), or the
/// members `fields` names of its data as indented JSON, or the result itself as JSON when it
/// has no text.
fn text_view(value: &Value, fields: Option<&str>) -> Result<String, String> {
    let anatomy = document::anatomy(value, "");
    if let Some(fields) = fields {
        let names: Vec<&str> = fields.split(',').map(str::trim).collect();
        let data = anatomy
            .parts
            .iter()
            .find_map(|p| match &p.content {
                PartContent::Json(v) if p.pointer.ends_with("/structuredContent") => Some(*v),
                _ => None,
            })
            .cloned()
            .or_else(|| {
                anatomy.parts.iter().find_map(|p| match &p.content {
                    PartContent::Text { json: Some(v), .. } => Some(v.clone()),
                    _ => None,
                })
            })
            .ok_or("`fields` needs a result that holds JSON; this one is text (use `lines`)")?;
        let selected = select(&data, &names);
        if selected.as_object().is_some_and(Map::is_empty) {
            let known: Vec<&str> = data
                .as_object()
                .map(|m| m.keys().map(String::as_str).take(30).collect())
                .unwrap_or_default();
            return Err(format!(
                "none of `{}` is in this result; it has {}",
                cut(fields, 200),
                known.join(", ")
            ));
        }
        return serde_json::to_string_pretty(&selected).map_err(|e| e.to_string());
    }
    let texts: Vec<&str> = anatomy
        .parts
        .iter()
        .filter_map(|p| match &p.content {
            PartContent::Text { text, .. } => Some(*text),
            _ => None,
        })
        .collect();
    if texts.is_empty() {
        return serde_json::to_string_pretty(value).map_err(|e| e.to_string());
    }
    Ok(texts.join("\n"))
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
        let prefix = &line[..crate::chunk::boundaries::cut_point(line, keep)];
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
