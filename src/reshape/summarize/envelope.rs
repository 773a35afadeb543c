//! Taking a response apart and putting the preview back: the data is moved out of its
//! envelope (a JSON-RPC response, a tool result's JSON text or structuredContent, plain JSON),
//! the bloat fixes run on it and are measured, and the finished contract object goes back
//! into the same kind of envelope: a tool result stays a valid tool result.

use serde_json::{Map, Value, json};

use super::sample::{Lengths, Sampler};
use super::{Fix, Options, shrink, text};
use crate::document::{self, Kind, PartContent};
use crate::json::compact;
use crate::json::whitespace;
use crate::measure;
use crate::tokens::heuristic_from_chars;
use crate::util::human::thousands;

/// The data of a response, taken out of its envelope, with the bloat fixes applied.
#[derive(Debug)]
pub(super) enum Payload {
    Json(Value),
    Text(String),
}

/// How the output is wrapped again.
#[derive(Debug)]
pub(super) struct Envelope {
    /// The JSON-RPC id, when the input was a JSON-RPC message.
    pub(super) rpc_id: Option<Value>,
    pub(super) body: Body,
}

#[derive(Debug, PartialEq)]
pub(super) enum Body {
    Plain,
    RpcResult,
    /// A JSON-RPC error: its code and message are kept (the message shortened).
    RpcError {
        code: Value,
        message: String,
    },
    Tool {
        is_error: bool,
    },
}

#[derive(Debug)]
pub(super) struct Unwrapped {
    pub(super) envelope: Envelope,
    pub(super) payload: Payload,
    /// structuredContent, when the tool result carried one.
    pub(super) structured: Option<Value>,
    /// Media and other blocks left out, described in one line.
    pub(super) left_out: Option<String>,
    pub(super) fixes: Vec<Fix>,
    pub(super) success: bool,
    /// Full lengths of the arrays the parse cut.
    pub(super) lengths: Lengths,
    /// What the records were read from when the text was not JSON ("a Python list of dicts
    /// with 5 fields"): the payload is then those records, as JSON.
    pub(super) read_from: Option<String>,
}

pub(super) fn fix(fix: &'static str, detail: String, bytes: u64) -> Fix {
    Fix {
        fix,
        detail,
        bytes,
        tokens: heuristic_from_chars(bytes as usize) as u64,
    }
}

/// The JSON in a tool result's first text block that holds an object or array, parsed by the
/// sampler: its pointer and value.
pub(super) fn tool_json_text(
    anatomy: &document::Anatomy<'_>,
    sampler: &mut Sampler,
) -> Option<(String, Value)> {
    if anatomy.kind != Kind::ToolResult {
        return None;
    }
    anatomy.parts.iter().find_map(|part| match part.content {
        PartContent::Text { text, .. } => {
            let trimmed = text.trim_start();
            if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
                return None;
            }
            sampler.parse(text).ok().map(|v| (part.pointer.clone(), v))
        }
        _ => None,
    })
}

/// Takes the data out of `value` (moved, not copied) and applies the bloat fixes.
/// `json_text` is [`tool_json_text`]'s answer; `sampler` what the parses skimmed.
pub(super) fn unwrap(
    mut value: Value,
    text: &str,
    json_text: Option<(String, Value)>,
    mut sampler: Sampler,
    opts: &Options<'_>,
    warnings: &mut Vec<String>,
) -> Unwrapped {
    let anatomy = document::anatomy_shallow(&value, text);
    let mut json_text = json_text;
    let rpc_id = anatomy.id.cloned().or_else(|| {
        value
            .get("jsonrpc")
            .is_some()
            .then(|| value.get("id").cloned().unwrap_or(Value::Null))
    });
    let is_error = anatomy.is_error;
    let payload_pointer = anatomy.payload_pointer;
    let mut fixes = Vec::new();
    let mut left_out: Vec<String> = Vec::new();
    let mut read_from = None;
    // What to move out of the document once its anatomy (which borrows it) is gone: the data
    // is taken, not copied, so a 100 MB response is not held twice.
    enum Take {
        Ready(Payload),
        At(String),
    }
    let mut structured_at: Option<String> = None;
    let (body, take) = match anatomy.kind {
        Kind::ToolResult => {
            let mut json_block: Option<(&str, Value)> = None;
            let mut texts: Vec<&str> = Vec::new();
            let mut media_bytes = 0usize;
            let mut media: Vec<&str> = Vec::new();
            let mut structured: Option<(&Value, String)> = None;
            for part in anatomy.parts {
                match part.content {
                    PartContent::Text { text, .. }
                        if json_text
                            .as_ref()
                            .is_some_and(|(at, _)| *at == part.pointer) =>
                    {
                        json_block = json_text.take().map(|(_, v)| (text, v));
                    }
                    PartContent::Text { text, .. } => texts.push(text),
                    PartContent::Json(v) if part.pointer.ends_with("/structuredContent") => {
                        structured = Some((v, part.pointer));
                    }
                    PartContent::Media { mime, data } => {
                        media_bytes += data.len();
                        media.push(mime);
                    }
                    PartContent::Json(v) => {
                        let kind = v.get("type").and_then(Value::as_str).unwrap_or("unknown");
                        left_out.push(format!("a {kind} block ({} bytes)", compact::len(v)));
                    }
                    PartContent::Raw(_) => {}
                }
            }
            if !media.is_empty() {
                let mut kinds = media.clone();
                kinds.dedup();
                let desc = format!(
                    "{} media block{} ({}) with {} bytes of base64",
                    media.len(),
                    if media.len() == 1 { "" } else { "s" },
                    kinds.join(", "),
                    thousands(media_bytes as u64)
                );
                fixes.push(fix(
                    "base64",
                    format!("{desc} described"),
                    media_bytes as u64,
                ));
                left_out.push(desc);
            }
            let take = match json_block {
                Some((text, v)) => {
                    let spaces = whitespace::insignificant(text);
                    if spaces > 0 {
                        fixes.push(fix(
                            "minify",
                            "JSON text without indentation".into(),
                            spaces,
                        ));
                    }
                    if let Some((s, at)) = &structured {
                        let repeated = document::repeats_structured(*s, &v);
                        if repeated {
                            fixes.push(fix(
                                "duplicate",
                                "structuredContent repeated the text: one copy kept".into(),
                                text.trim_end().len() as u64 - spaces,
                            ));
                        }
                        if opts.output_schema.is_some() {
                            structured_at = Some(at.clone());
                        } else if !repeated {
                            warnings.push(
                                "structuredContent left out: pass --output-schema FILE to keep it valid against the tool's outputSchema".into(),
                            );
                        }
                    }
                    if !texts.is_empty() {
                        left_out.push(format!("{} other text block(s)", texts.len()));
                    }
                    Take::Ready(Payload::Json(v))
                }
                None => match structured {
                    Some((_, at)) => {
                        if opts.output_schema.is_some() {
                            structured_at = Some(at.clone());
                        }
                        Take::At(at)
                    }
                    None => match records_in(&texts) {
                        Some(index) => {
                            // Rows built up to the sample's cap, as a JSON list is cut.
                            let rows: Vec<Value> = index.rows().take(sampler.cap()).collect();
                            sampler.lengths.record(&rows, index.len());
                            read_from = Some(index.what);
                            Take::Ready(Payload::Json(Value::Array(rows)))
                        }
                        None => Take::Ready(Payload::Text(texts.join("\n"))),
                    },
                },
            };
            (Body::Tool { is_error }, take)
        }
        Kind::Error => (
            Body::RpcError {
                code: anatomy
                    .payload
                    .get("code")
                    .cloned()
                    .unwrap_or(json!(-32603)),
                message: text::shorten(
                    anatomy
                        .payload
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("error"),
                    (opts.limits.max_string_length as usize).min(200),
                    &[],
                ),
            },
            Take::At(payload_pointer.to_owned()),
        ),
        Kind::Plain | Kind::Request => {
            let spaces = whitespace::insignificant(text);
            if spaces > 0 {
                fixes.push(fix("minify", "JSON without indentation".into(), spaces));
            }
            (Body::Plain, Take::At(String::new()))
        }
        // resources/read of one text: the text is the data (a log reads as a log).
        Kind::ResourceContents
            if let [
                document::Part {
                    content: PartContent::Text { text, .. },
                    ..
                },
            ] = anatomy.parts.as_slice() =>
        {
            (
                Body::RpcResult,
                Take::Ready(Payload::Text((*text).to_owned())),
            )
        }
        _ => (Body::RpcResult, Take::At(payload_pointer.to_owned())),
    };
    let structured = structured_at
        .as_deref()
        .and_then(|at| value.pointer(at).cloned());
    let payload = match take {
        Take::Ready(p) => p,
        Take::At(at) if at.is_empty() => Payload::Json(value),
        Take::At(at) => Payload::Json(value.pointer_mut(&at).map(Value::take).unwrap_or_default()),
    };
    let success = !is_error;
    let mut payload = payload;
    let Sampler {
        lengths, skimmed, ..
    } = sampler;
    if let Payload::Json(v) = &mut payload {
        // What the sample holds is described; what was skimmed is counted as it would be.
        let saved = describe_blobs(v) + skimmed.base64_chars;
        if saved > 0 {
            fixes.push(fix(
                "base64",
                "base64 inside strings described".into(),
                saved,
            ));
        }
        if opts.drop_empty {
            let saved = shrink::drop_empty(v) + skimmed.empty_bytes;
            if saved > 0 {
                fixes.push(fix(
                    "drop-empty",
                    "null, \"\", [] and {} members dropped".into(),
                    saved,
                ));
            }
        }
    }
    if let Payload::Text(t) = &mut payload {
        let saved = describe_in_place(t);
        if saved > 0 {
            fixes.push(fix(
                "base64",
                "base64 inside the text described".into(),
                saved,
            ));
        }
    }
    Unwrapped {
        envelope: Envelope { rpc_id, body },
        payload,
        structured,
        left_out: (!left_out.is_empty()).then(|| left_out.join("; ")),
        fixes,
        success,
        lengths,
        read_from,
    }
}

/// The records in a result's one text block that is not JSON (a Python repr, CSV, a Markdown
/// table), found only when its head looks like them: most text is not, and is never parsed.
fn records_in<'t>(texts: &[&'t str]) -> Option<document::records::Index<'t>> {
    match texts {
        [text] if document::records::sniff(text) => document::records::index(text).ok(),
        _ => None,
    }
}

/// Replaces base64 runs inside every string; returns the bytes saved.
pub(super) fn describe_blobs(value: &mut Value) -> u64 {
    match value {
        Value::String(s) => describe_in_place(s),
        Value::Array(a) => a.iter_mut().map(describe_blobs).sum(),
        Value::Object(m) => m.values_mut().map(describe_blobs).sum(),
        _ => 0,
    }
}

/// Replaces the base64 runs of one text with descriptors; returns the bytes saved.
fn describe_in_place(text: &mut String) -> u64 {
    if text.len() < measure::BASE64_MIN_RUN {
        return 0;
    }
    match text::describe_base64(text) {
        std::borrow::Cow::Owned(described) => {
            let saved = text.len().saturating_sub(described.len()) as u64;
            *text = described;
            saved
        }
        std::borrow::Cow::Borrowed(_) => 0,
    }
}

/// The contract object back in the input's envelope: a tool result stays a tool result (its
/// text holds the compact JSON), a JSON-RPC response stays one.
pub(super) fn wrap(contract: Value, structured: Option<Value>, u: &Unwrapped) -> Value {
    let inner = match &u.envelope.body {
        Body::Tool { is_error } => {
            let content = json!([{
                "type": "text",
                "text": serde_json::to_string(&contract).unwrap_or_default(),
            }]);
            let mut result = Map::new();
            result.insert("content".into(), content);
            if let Some(s) = structured {
                result.insert("structuredContent".into(), s);
            }
            if *is_error {
                result.insert("isError".into(), Value::Bool(true));
            }
            Value::Object(result)
        }
        Body::RpcError { code, message } => {
            json!({"code": code, "message": message, "data": contract})
        }
        Body::Plain | Body::RpcResult => contract,
    };
    match &u.envelope.rpc_id {
        Some(id) => {
            let member = if matches!(u.envelope.body, Body::RpcError { .. }) {
                "error"
            } else {
                "result"
            };
            json!({"jsonrpc": "2.0", "id": id, member: inner})
        }
        None => inner,
    }
}
