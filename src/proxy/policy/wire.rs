//! The JSON-RPC the policy reads and writes: the envelope of a line, ids in canonical form,
//! result and error lines, and an error too large to pass made to fit.

use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::effects::{Effects, Level, Log};

/// The code of the errors the proxy answers for a server that cannot (JSON-RPC's
/// implementation-defined server error range).
pub const SERVER_ERROR: i64 = -32000;
/// A request the server did not answer in time.
pub const TIMEOUT_ERROR: i64 = -32001;

/// The fields of a JSON-RPC message the policy looks at; the rest stays raw (and borrowed from
/// the line, so a field's place in it is known).
#[derive(Deserialize)]
pub(crate) struct Envelope<'a> {
    #[serde(borrow, default)]
    pub(crate) id: Option<&'a RawValue>,
    #[serde(default)]
    pub(crate) method: Option<String>,
    #[serde(borrow, default)]
    pub(crate) params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(crate) result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(crate) error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
pub(super) struct CallParams<'a> {
    pub(super) name: Option<String>,
    #[serde(borrow, default)]
    pub(super) arguments: Option<&'a RawValue>,
    #[serde(default, rename = "_meta")]
    pub(super) meta: Option<Value>,
}

/// The `_meta` of any request's params.
#[derive(Deserialize)]
pub(super) struct MetaOnly {
    #[serde(default, rename = "_meta")]
    pub(super) meta: Option<Value>,
}

/// A JSON-RPC error over `cap` bytes (a server that put a whole log or page in its message)
/// made to fit: its code kept, its message cut, its data left out. `None`: it fits, and passes
/// as it is.
pub(super) fn bounded_error(
    raw_id: &str,
    error: &RawValue,
    cap: u64,
    fx: &mut Effects,
) -> Option<Vec<u8>> {
    let size = error.get().len() as u64;
    if size <= cap {
        return None;
    }
    #[derive(Deserialize)]
    pub(super) struct Error {
        code: Option<i64>,
        message: Option<String>,
    }
    let parsed: Option<Error> = serde_json::from_str(error.get()).ok();
    let code = parsed.as_ref().and_then(|e| e.code).unwrap_or(SERVER_ERROR);
    let message = parsed.and_then(|e| e.message).unwrap_or_default();
    let keep = usize::try_from(cap / 2).unwrap_or(usize::MAX).max(64);
    let cut = crate::reshape::summarize::cut(&message, keep);
    fx.logs.push(
        Log::new(
            Level::Warn,
            format!("the server's error of {size} bytes was cut to fit {cap} bytes"),
        )
        .with("code", code),
    );
    Some(error_line(
        raw_id,
        code,
        &format!("{cut} [mcpguard: the server's error was {size} bytes; cut to fit]"),
    ))
}

pub(crate) fn parse(line: &[u8]) -> Option<Envelope<'_>> {
    let text = std::str::from_utf8(line).ok()?;
    serde_json::from_str(text.trim_end()).ok()
}

/// A JSON array: a batch, passed as it is. Only valid JSON passes unread, so what the proxy
/// forwards is always UTF-8 JSON.
pub(super) fn is_batch(line: &[u8]) -> bool {
    line.iter().copied().find(|b| !b.is_ascii_whitespace()) == Some(b'[')
        && serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok()
}

/// An id in canonical form (a string stays quoted, a number as JSON writes it).
pub(crate) fn id_key(id: &RawValue) -> String {
    serde_json::from_str::<Value>(id.get()).map_or_else(|_| id.get().to_owned(), |v| v.to_string())
}

/// Whether a request declared the 2026-07-28 era in its `_meta`.
pub(super) fn modern(meta: Option<&Value>) -> bool {
    meta.and_then(|m| m.get(crate::net::mcp::era::META_PROTOCOL_VERSION))
        .and_then(Value::as_str)
        .is_some_and(|v| v >= crate::net::version::V2026_07_28)
}

pub(super) fn result_line(raw_id: &str, result: &Value) -> Vec<u8> {
    let mut out = format!("{{\"jsonrpc\":\"2.0\",\"id\":{raw_id},\"result\":").into_bytes();
    // Writing a Value to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut out, result);
    out.extend_from_slice(b"}\n");
    out
}

/// A JSON-RPC error answering `raw_id` (the id as the client wrote it), as one line.
pub fn error_line(raw_id: &str, code: i64, message: &str) -> Vec<u8> {
    let mut out = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{raw_id},\"error\":{}}}",
        json!({"code": code, "message": message})
    )
    .into_bytes();
    out.push(b'\n');
    out
}

/// The id at the head of a message too long to parse: `"id":` then a number or a string.
pub(crate) fn sniff_id(head: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(&head[..head.len().min(64 << 10)]);
    let at = text.find("\"id\"")? + 4;
    let rest = text[at..].trim_start().strip_prefix(':')?.trim_start();
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    match stream.next()?.ok()? {
        v @ (Value::Number(_) | Value::String(_)) => Some(v.to_string()),
        _ => None,
    }
}

pub(super) fn preview(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(120)]);
    text.trim_end().to_owned()
}

pub(super) fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}
