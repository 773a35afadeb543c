//! Parsing a large tool result in about its own size.
//!
//! `serde_json::from_str::<Value>` unescapes a string with escapes (a log's `\n`, a JSON
//! text's `\"`) into a scratch buffer that grows by doubling, then copies it out: a 100 MB
//! text block costs up to 2.8x its size at the peak. [`parse_result`] reads a tool result's
//! content blocks itself: each block's long strings are found as raw spans and unescaped once
//! into a string of the right size, so the peak is the input plus the result. What it reads
//! is exactly what `serde_json` reads (the same value, the same duplicate-key rule, the same
//! errors: anything unusual is handed to `serde_json`).

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The scalar half of a [`serde::de::Visitor`] that builds a [`Value`] as `serde_json`'s own
/// does (a float it cannot hold is null), for visitors that build arrays and objects their own
/// way (summarize's sampler, paginate's skeleton).
macro_rules! visit_scalars {
    () => {
        fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
            Ok(Value::Bool(v))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
            Ok(Value::from(v))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
            Ok(Value::from(v))
        }
        fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
            Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
        }
        fn visit_str<E>(self, v: &str) -> Result<Value, E> {
            Ok(Value::String(v.to_owned()))
        }
        fn visit_string<E>(self, v: String) -> Result<Value, E> {
            Ok(Value::String(v))
        }
        fn visit_unit<E>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_none<E>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
    };
}
pub(crate) use visit_scalars;

/// Strings shorter than this are left to `serde_json`: their scratch copy costs nothing.
const LONG_STRING: usize = 4096;

/// Results smaller than this are left to `serde_json` whole: one pass over a few megabytes is
/// quicker than two, and their scratch copy is small.
const LARGE_RESULT: usize = 4 << 20;

/// `text` (a tool result's JSON) as a [`Value`], equal to `serde_json::from_str`'s.
pub fn parse_result(text: &str) -> serde_json::Result<Value> {
    parse_result_with(text, LARGE_RESULT, LONG_STRING)
}

/// [`parse_result`], taking results of `large` bytes or more apart itself and unescaping their
/// strings of `long` bytes or more (the tests and the fuzz target use 0 and 0).
pub(crate) fn parse_result_with(
    text: &str,
    large: usize,
    long: usize,
) -> serde_json::Result<Value> {
    if text.len() < large {
        return serde_json::from_str(text);
    }
    // One pass finds the spans; anything but an object whose `content` is a list of objects
    // goes to serde_json whole, as does an error deep inside (its message then names the line
    // and column in `text`, not in a span of it).
    let Ok(Envelope(members)) = serde_json::from_str::<Envelope<'_>>(text) else {
        return serde_json::from_str(text);
    };
    build(members, long).or_else(|_| serde_json::from_str(text))
}

fn build(members: Vec<(String, Member<'_>)>, long: usize) -> serde_json::Result<Value> {
    let mut out = Map::with_capacity(members.len());
    for (key, member) in members {
        let value = match member {
            Member::Raw(raw) => serde_json::from_str(raw.get())?,
            Member::Blocks(blocks) => Value::Array(
                blocks
                    .into_iter()
                    .map(|Members(block)| block_value(block, long))
                    .collect::<serde_json::Result<_>>()?,
            ),
        };
        out.insert(key, value);
    }
    Ok(Value::Object(out))
}

/// A content block, its strings of `long` bytes or more unescaped here.
fn block_value(members: Vec<(String, &RawValue)>, long: usize) -> serde_json::Result<Value> {
    let mut object = Map::with_capacity(members.len());
    for (key, raw) in members {
        let text = raw.get();
        let long_string = text.len() >= long && text.starts_with('"');
        let value = match long_string.then(|| unescape(text)).flatten() {
            Some(s) => Value::String(s),
            None => serde_json::from_str(text)?,
        };
        object.insert(key, value);
    }
    Ok(Value::Object(object))
}

/// A result's member: `content`, its blocks taken apart, or any other, as its span.
enum Member<'a> {
    Raw(&'a RawValue),
    Blocks(Vec<Members<'a>>),
}

/// A result's members, in order (duplicates kept: inserting them into a [`Map`] in order gives
/// `serde_json`'s rule, the last value at the first key's place).
struct Envelope<'a>(Vec<(String, Member<'a>)>);

/// An object's members as spans, in order, duplicates kept (a page whose one large member is
/// rewritten and the others passed as they are).
pub struct Members<'a>(pub Vec<(String, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Envelope<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Of;
        impl<'de> Visitor<'de> for Of {
            type Value = Envelope<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a tool result")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope<'de>, A::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    let member = match key.as_str() {
                        "content" => Member::Blocks(map.next_value()?),
                        _ => Member::Raw(map.next_value()?),
                    };
                    members.push((key, member));
                }
                Ok(Envelope(members))
            }
        }
        deserializer.deserialize_map(Of)
    }
}

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Of;
        impl<'de> Visitor<'de> for Of {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    members.push(entry);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Of)
    }
}

/// The string a JSON string literal (`raw`, quotes included, as a span `serde_json` has
/// checked) stands for, built in one allocation of its own size; `None` for what `serde_json`
/// decides itself (a lone surrogate).
fn unescape(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let end = bytes
        .len()
        .checked_sub(1)
        .filter(|&e| e >= 1 && bytes[0] == b'"')?;
    let escape = memchr::memchr(b'\\', &bytes[..end]).unwrap_or(end);
    crate::json::parse::unescape(bytes, 1, escape, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_as_serde(text: &str) {
        let ours = parse_result_with(text, 0, 0).map_err(|e| e.to_string());
        let theirs = serde_json::from_str::<Value>(text).map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{}", &text[..text.len().min(200)]);
    }

    #[test]
    fn unescapes_like_serde_json() {
        for s in [
            r#""plain""#,
            r#""a\"b\\c\/d\b\f\n\r\t""#,
            r#""\u00e9\u4e2d\ud83d\ude00 and é""#,
            r#""""#,
            r#""\\u0041""#,
        ] {
            let expected: String = serde_json::from_str(s).unwrap();
            assert_eq!(unescape(s).as_deref(), Some(expected.as_str()), "{s}");
        }
        // What serde_json decides: a lone surrogate, a bad escape.
        for s in [r#""\ud83d""#, r#""\ude00x""#, r#""\q""#, r#""\u12""#] {
            assert_eq!(unescape(s), None, "{s}");
        }
    }

    #[test]
    fn long_results_parse_as_serde_json_parses_them() {
        let long = "line \"one\"\n\ttwo \u{e9}\u{1F600} \\ end\n".repeat(400);
        let inner = serde_json::json!({"bookings": [{"id": "bk_1", "notes": long}]}).to_string();
        for text in [
            serde_json::json!({"content": [{"type": "text", "text": long}], "isError": false})
                .to_string(),
            serde_json::json!({"content": [{"type": "text", "text": inner},
                {"type": "image", "data": "QUJD".repeat(2000), "mimeType": "image/png"}],
                "structuredContent": {"n": 1}, "_meta": {"k": [1, 2]}})
            .to_string(),
            // Duplicate keys: the last value at the first key's place, as serde_json does.
            format!(
                r#"{{"content": [{{"type": "text", "text": "{}", "type": "x"}}], "content": [{{"text": {}}}]}}"#,
                "a".repeat(5000),
                serde_json::to_string(&long).unwrap()
            ),
            // Not a result, or not JSON at all: serde_json's own answer and error.
            format!("[{}]", serde_json::to_string(&long).unwrap()),
            format!(r#"{{"content": "{}"}}"#, "b".repeat(5000)),
            format!(r#"{{"content": [{{"text": "{}"}}]"#, "c".repeat(5000)),
            format!(
                r#"{{"content": [{{"text": "{}\ud800"}}]}}"#,
                "d".repeat(5000)
            ),
            format!(
                r#"{{"content": [{{"text": "{}"}}]}} trailing"#,
                "e".repeat(5000)
            ),
        ] {
            same_as_serde(&text);
        }
    }
}
