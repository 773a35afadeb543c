//! Compact JSON exactly as `serde_json` writes it, written and measured faster.
//!
//! What the model is shown of a JSON part, and what every path of "where the tokens go" is
//! charged, is its compact JSON; the audit writes it for every structured result and measures
//! it for every over-long list. [`write`] gives `serde_json::to_writer`'s bytes (the tests
//! compare them on every capture and on random values) but copies the runs of a string that
//! need no escape whole, found eight bytes at a time, where `serde_json` looks up an escape
//! table for every byte; [`len`] counts the same bytes without writing them.

use serde_json::Number;
#[cfg(test)]
use serde_json::Value;

use crate::json::masks::{self, next_escape};
use crate::json::node::{Members as _, Node, NodeKind};

/// A value's compact JSON.
pub fn string(value: &impl Node) -> String {
    let mut out = Vec::new();
    write(&mut out, value);
    if out.capacity() > out.len() + out.len() / 4 {
        out.shrink_to_fit();
    }
    // Only UTF-8 is written: a `Value`'s strings are, and escapes and numbers are ASCII.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Appends a value's compact JSON to `out`.
pub fn write(out: &mut Vec<u8>, value: &impl Node) {
    match value.kind() {
        NodeKind::Null => out.extend_from_slice(b"null"),
        NodeKind::Bool(true) => out.extend_from_slice(b"true"),
        NodeKind::Bool(false) => out.extend_from_slice(b"false"),
        NodeKind::Number(n) => write_number(out, n),
        NodeKind::String(s) => write_str(out, s),
        NodeKind::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(out, item);
            }
            out.push(b']');
        }
        NodeKind::Object(members) => {
            out.push(b'{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, k);
                out.push(b':');
                write(out, v);
            }
            out.push(b'}');
        }
    }
}

/// Appends a string as a quoted JSON string: `"` and `\` escaped with a backslash, the
/// controls that have a short escape with it (`\b \t \n \f \r`), the other controls as
/// `\u00xx` in lower-case hex; everything else, UTF-8 included, as it is.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    if bytes.len() >= LONG_STRING {
        return write_long_str(out, s);
    }
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut run = 0;
    while let Some(at) = next_escape(bytes, run) {
        out.extend_from_slice(&bytes[run..at]);
        out.extend_from_slice(escape(bytes[at]).as_bytes());
        run = at + 1;
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

/// Strings this long are written by [`write_long_str`].
const LONG_STRING: usize = 64;

/// [`write_str`] for a long string, 64 bytes a step: a block's bytes to escape are found as a
/// bit mask ([`masks::string_stops`]) and visited in order, the runs between them copied
/// sixteen bytes at a time. A log or a JSON text has an escape every few bytes (each newline,
/// each quote), where copying the runs between escapes costs a call each. The escaped length
/// is counted first ([`str_len`]), so the output grows once (and the slack past the end is cut
/// off).
fn write_long_str(out: &mut Vec<u8>, s: &str) {
    let start = out.len();
    let quoted = str_len(s);
    // Sixteen bytes of slack: a run's last chunk is copied whole.
    out.resize(start + quoted + 16, 0);
    let dst = &mut out[start..];
    dst[0] = b'"';
    let mut j = 1;
    let mut block = masks::StopBlock::new();
    for chunk in s.as_bytes().chunks(64) {
        let mut stops = block.load(chunk);
        let mut from = 0;
        loop {
            let stop = if stops == 0 {
                chunk.len()
            } else {
                stops.trailing_zeros() as usize
            };
            block.copy_run(from, stop, dst, j);
            j += stop - from;
            if stops == 0 {
                break;
            }
            j = put_escaped(dst, j, block.byte(stop));
            from = stop + 1;
            stops &= stops - 1;
        }
    }
    dst[j] = b'"';
    out.truncate(start + quoted);
}

/// Writes `byte`'s escape at `dst[j]` (with room for six bytes after it); returns where the
/// next byte goes.
#[inline]
fn put_escaped(dst: &mut [u8], j: usize, byte: u8) -> usize {
    let e = escape(byte);
    // A fixed size: a move rather than a call.
    dst[j..j + 6].copy_from_slice(&e.bytes);
    j + e.len
}

/// How a byte a JSON string must escape is written: `\"`, `\\`, a short escape, or `\u00xx`.
#[inline]
fn escape(byte: u8) -> Escape {
    let short = |c: u8| Escape {
        bytes: [b'\\', c, 0, 0, 0, 0],
        len: 2,
    };
    match byte {
        b'"' => short(b'"'),
        b'\\' => short(b'\\'),
        0x08 => short(b'b'),
        b'\t' => short(b't'),
        b'\n' => short(b'n'),
        0x0c => short(b'f'),
        b'\r' => short(b'r'),
        control => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let hex = |nibble: u8| HEX[usize::from(nibble)];
            Escape {
                bytes: [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    hex(control >> 4),
                    hex(control & 0xf),
                ],
                len: 6,
            }
        }
    }
}

/// An escape sequence: at most six bytes.
struct Escape {
    bytes: [u8; 6],
    len: usize,
}

impl Escape {
    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Whether `bytes` are exactly what [`write`] writes for `value`, and `serde_json` reads them
/// back as `value`: compared as the value is walked, nothing written. A JSON text block that
/// structuredContent was written out to (as the TypeScript SDK sends a structured result) is
/// then known to be its compact JSON without being read. A float's shortest form is read back
/// as itself only with serde_json's `float_roundtrip` (jsonschema turns it on; without it a
/// quarter of random doubles come back a bit off), so each float is read back to make sure.
pub fn is_written(value: &impl Node, bytes: &[u8]) -> bool {
    let mut rest = bytes;
    matches(value, &mut rest) && rest.is_empty()
}

/// Takes `expected` off the front of `rest`, if it starts so.
fn take(rest: &mut &[u8], expected: &[u8]) -> bool {
    match rest.strip_prefix(expected) {
        Some(after) => {
            *rest = after;
            true
        }
        None => false,
    }
}

fn matches(value: &impl Node, rest: &mut &[u8]) -> bool {
    match value.kind() {
        NodeKind::Null => take(rest, b"null"),
        NodeKind::Bool(true) => take(rest, b"true"),
        NodeKind::Bool(false) => take(rest, b"false"),
        NodeKind::Number(n) => matches_number(n, rest),
        NodeKind::String(s) => matches_str(s, rest),
        NodeKind::Array(items) => {
            take(rest, b"[")
                && items
                    .iter()
                    .enumerate()
                    .all(|(i, item)| (i == 0 || take(rest, b",")) && matches(item, rest))
                && take(rest, b"]")
        }
        NodeKind::Object(members) => {
            take(rest, b"{")
                && members.iter().enumerate().all(|(i, (k, v))| {
                    (i == 0 || take(rest, b","))
                        && matches_str(k, rest)
                        && take(rest, b":")
                        && matches(v, rest)
                })
                && take(rest, b"}")
        }
    }
}

fn matches_str(s: &str, rest: &mut &[u8]) -> bool {
    let bytes = s.as_bytes();
    if !take(rest, b"\"") {
        return false;
    }
    let mut run = 0;
    while let Some(at) = next_escape(bytes, run) {
        if !(take(rest, &bytes[run..at]) && take(rest, escape(bytes[at]).as_bytes())) {
            return false;
        }
        run = at + 1;
    }
    take(rest, &bytes[run..]) && take(rest, b"\"")
}

fn matches_number(n: &Number, rest: &mut &[u8]) -> bool {
    if let Some(u) = n.as_u64() {
        return take(rest, itoa::Buffer::new().format(u).as_bytes());
    }
    if let Some(i) = n.as_i64() {
        return take(rest, itoa::Buffer::new().format(i).as_bytes());
    }
    let mut written = Vec::new();
    write_number(&mut written, n);
    // Read back bit for bit, by the reader that reads the text.
    take(rest, &written)
        && serde_json::from_slice::<serde_json::Value>(&written)
            .ok()
            .and_then(|v| v.as_f64())
            .zip(n.as_f64())
            .is_some_and(|(read, own)| read.to_bits() == own.to_bits())
}

fn write_number(out: &mut Vec<u8>, n: &Number) {
    if let Some(u) = n.as_u64() {
        out.extend_from_slice(itoa::Buffer::new().format(u).as_bytes());
    } else if let Some(i) = n.as_i64() {
        out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes());
    } else {
        // A float, as `serde_json` shows it (its shortest round-trip form).
        use std::io::Write as _;
        let _ = write!(out, "{n}");
    }
}

/// The length of a value's compact JSON, without writing it.
pub fn len(value: &impl Node) -> usize {
    match value.kind() {
        NodeKind::Null => 4,
        NodeKind::Bool(b) => 4 + usize::from(!b),
        NodeKind::Number(n) => number_len(n),
        NodeKind::String(s) => str_len(s),
        NodeKind::Array(items) => container_len(items.len(), items.iter().map(len).sum()),
        NodeKind::Object(members) => container_len(
            members.len(),
            members.iter().map(|(k, v)| member_len(k, len(v))).sum(),
        ),
    }
}

/// The length of a list or an object of `entries` whose own lengths add up to `inner`: its
/// brackets or braces, and a comma between entries.
pub fn container_len(entries: usize, inner: usize) -> usize {
    1 + entries.max(1) + inner
}

/// The length of an object's member whose value is `value_len` long: `"key":value`.
pub fn member_len(key: &str, value_len: usize) -> usize {
    str_len(key) + 1 + value_len
}

/// A number's length: an integer's digits (and sign) counted, a float's written.
fn number_len(n: &Number) -> usize {
    let digits = |u: u64| u.checked_ilog10().map_or(1, |d| d as usize + 1);
    if let Some(u) = n.as_u64() {
        digits(u)
    } else if let Some(i) = n.as_i64() {
        1 + digits(i.unsigned_abs())
    } else {
        // A float: written to a formatter that only counts.
        struct Count(usize);
        impl std::fmt::Write for Count {
            fn write_str(&mut self, s: &str) -> std::fmt::Result {
                self.0 += s.len();
                Ok(())
            }
        }
        let mut count = Count(0);
        let _ = std::fmt::Write::write_fmt(&mut count, format_args!("{n}"));
        count.0
    }
}

/// A string's length as a quoted, escaped JSON string: `"` and `\` take two bytes, a control
/// character two (`\n`, `\t`, `\r`, `\b`, `\f`) or six (`\u001f`); everything else, UTF-8
/// included, is written as it is.
pub fn str_len(s: &str) -> usize {
    let mut extra = 0usize;
    // Byte counters that cannot overflow within a block, summed per block: the loop
    // vectorizes.
    for block in s.as_bytes().chunks(51) {
        let mut n = 0u8;
        for &b in block {
            let short = matches!(b, b'"' | b'\\' | 0x08 | b'\t' | b'\n' | 0x0c | b'\r');
            n += u8::from(short) + 5 * u8::from(b < 0x20 && !short);
        }
        extra += usize::from(n);
    }
    s.len() + 2 + extra
}

/// Random JSON values for property tests: null, booleans, `numbers`, strings matching `text`,
/// in arrays and objects (keys matching `text` too) up to `depth` levels and `width` wide.
#[cfg(test)]
pub(crate) fn random_json(
    numbers: impl proptest::strategy::Strategy<Value = Value> + Clone + 'static,
    text: &'static str,
    depth: u32,
    width: usize,
) -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        numbers,
        text.prop_map(Value::from),
    ];
    leaf.prop_recursive(depth, 60, width as u32, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..width).prop_map(Value::Array),
            proptest::collection::vec((text, inner), 0..width)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn same_as_serde_json(v: &Value) {
        let theirs = serde_json::to_string(v).unwrap();
        assert_eq!(string(v), theirs, "{v}");
        assert_eq!(len(v), theirs.len(), "{v}");
        recognized_only_as_written(v, &theirs);
        recognized_only_as_written(v, &serde_json::to_string_pretty(v).unwrap());
    }

    /// `is_written` says yes to `text` exactly when it is `v`'s compact JSON and reads back as
    /// `v`; and no to it with any one byte taken away or added.
    fn recognized_only_as_written(v: &Value, text: &str) {
        let reads_back = serde_json::from_str::<Value>(text).is_ok_and(|back| back == *v);
        let expected = text == string(v) && reads_back;
        assert_eq!(is_written(v, text.as_bytes()), expected, "{v} as {text}");
        let bytes = text.as_bytes();
        for at in [0, bytes.len() / 2, bytes.len().saturating_sub(1)] {
            let mut shorter = bytes.to_vec();
            if at < shorter.len() {
                shorter.remove(at);
                assert!(!is_written(v, &shorter), "{v} as {shorter:?}");
            }
            let mut longer = bytes.to_vec();
            longer.insert(at, b' ');
            assert!(!is_written(v, &longer), "{v} as {longer:?}");
        }
    }

    #[test]
    fn writes_and_measures_what_serde_json_writes() {
        let every_byte: String = (0u8..0x80).map(char::from).collect();
        for v in [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(9),
            json!(10),
            json!(-17),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(1.5e300),
            json!(-0.1),
            json!(3.0),
            json!(1e-7),
            json!(""),
            json!([]),
            json!({}),
            json!([[]]),
            json!({"": {}}),
            json!(every_byte),
            json!({"quote \" back \\ \u{1f} \t": ["é 日本 🦀", 1, null, [2.25, {"k": false}]]}),
        ] {
            same_as_serde_json(&v);
        }
        // Every captured response, and every JSON text inside one.
        for entry in std::fs::read_dir("tests/fixtures/corpus").unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let v: Value = serde_json::from_str(&text).unwrap();
            same_as_serde_json(&v);
            for block in v
                .pointer("/result/content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(Ok(inner)) = block["text"].as_str().map(serde_json::from_str::<Value>) {
                    same_as_serde_json(&inner);
                }
            }
        }
    }

    fn json() -> impl Strategy<Value = Value> {
        // Escapes at every offset within a word: quotes, backslashes, every control, DEL,
        // and multi-byte characters next to them; strings short and long (`LONG_STRING`).
        let text = "(?s)[a-z\"\\\\\u{0}-\u{1f}\u{7f}é日🦀]{0,90}";
        let scalars = prop_oneof![
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
        ];
        random_json(scalars, text, 4, 5)
    }

    proptest! {
        #[test]
        fn any_value_is_written_and_measured_as_serde_json_writes_it(v in json()) {
            same_as_serde_json(&v);
        }

        #[test]
        fn a_text_is_recognized_as_a_value_written_only_when_it_is(v in json(), w in json()) {
            // Mostly another value's text; sometimes one that differs from v's in one place.
            recognized_only_as_written(&v, &string(&w));
        }
    }

    #[test]
    fn an_escape_is_recognized_only_as_written() {
        let v = json!(["a\nb", "q\"", "\u{1f}"]);
        assert!(is_written(&v, br#"["a\nb","q\"","\u001f"]"#));
        // Each differs from what is written in one escape of the same length.
        for other in [
            br#"["a\tb","q\"","\u001f"]"#,
            br#"["a\nb","q\\","\u001f"]"#,
            br#"["a\nb","q\"","\u001e"]"#,
            br#"["a\nb","q\"","\u001F"]"#,
        ] {
            assert!(!is_written(&v, other), "{}", String::from_utf8_lossy(other));
        }
    }

    #[test]
    fn a_float_is_recognized_only_when_it_reads_back_bit_for_bit() {
        let zero = json!(0.0);
        assert!(is_written(&zero, b"0.0"));
        assert!(!is_written(&zero, b"-0.0"));
        assert!(is_written(&json!(-0.0), b"-0.0"));
        // An integer is not written as a float, nor a float as an integer.
        assert!(!is_written(&json!(3), b"3.0"));
        assert!(!is_written(&json!(3.0), b"3"));
        assert!(is_written(
            &json!([1.5e300, -0.1, 1e-7]),
            b"[1.5e+300,-0.1,1e-7]"
        ));
        assert!(!is_written(
            &json!([1.5e300, -0.1, 1e-7]),
            b"[1.5e300,-0.1,1e-7]"
        ));
    }
}
