//! One block of plain text over budget, chunked at semantic boundaries: the first chunk with a
//! cursor, held to the budget and to `maxBytes`, and a hint of what to search for.

use serde_json::{Value, json};

use crate::document::{self, PartContent};
use crate::proxy::result;
use crate::reshape::artifact::Ref;
use crate::reshape::chunk;
use crate::reshape::cursor::{self, Payload};

use super::{Context, HOWTO_RESERVE_BYTES, Outcome};

/// The only text of a result that is one block of plain (not JSON) text.
pub(crate) fn sole_text(value: &Value) -> Option<&str> {
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
pub(super) fn first_chunk(
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

/// How to find entries in `text` (records, a log, JSONL, Markdown) rather than read them in
/// order; none for plain text.
pub(super) fn search_hint(text: &str, reference: &str, cx: &Context<'_>) -> Option<String> {
    let head = &text.as_bytes()[..text.len().min(crate::document::records::SNIFF_BYTES)];
    let kind = chunk::Kind::detect(None, head);
    // `detect` has sniffed delimited records (Csv) already; a Python repr or a Markdown table
    // is sniffed here, without parsing the head as delimited text a second time.
    let repr_or_table = matches!(
        text.trim_start().as_bytes().first(),
        Some(b'[' | b'(' | b'|')
    );
    if kind == chunk::Kind::Csv || (repr_or_table && crate::document::records::sniff(text)) {
        return Some(format!(
            " Its text holds records: filter, count and sum them with `where`, `aggregate` and `group_by` instead of reading them all: {}.",
            result::call(
                cx.more_tool,
                &json!({"ref": reference, "aggregate": "count"})
            )
        ));
    }
    let (what, example) = match kind {
        chunk::Kind::Log => ("log entries", "ERROR|FATAL"),
        chunk::Kind::Jsonl => ("records", "\"error\""),
        chunk::Kind::Markdown => ("sections", "^#+ .*Install"),
        chunk::Kind::Text | chunk::Kind::Csv => return None,
    };
    Some(format!(
        " To find {what} instead of reading them all: {}.",
        result::call(cx.more_tool, &json!({"ref": reference, "match": example}))
    ))
}

/// The chunking the proxy uses for `budget`.
pub(crate) fn chunk_options(
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
pub(crate) fn chunk_of(
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
