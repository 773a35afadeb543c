//! JSON text to a `serde_json::Value`, the tree `serde_json::from_str` builds, built faster.
//!
//! Tool results are mostly strings, and their strings are dense with escapes: a JSON text
//! inside a text block has a `\"` every few bytes, a log a `\n` on every line. `serde_json`
//! reads such a string one escape at a time, a call to find the next one and a call to decode
//! it, into a scratch buffer it copies out again (a fifth of the audit's instructions). Here a
//! string's plain start is read eight bytes at a time (most strings end there, copied once);
//! one with escapes has its closing quote found and is unescaped 64 bytes at a time from bit
//! masks ([`crate::json::masks`]) into a buffer of its size. An object's members and an array's
//! items are gathered first and built once, at their own size.
//!
//! [`parse`] gives exactly `serde_json::from_str::<Value>`'s answer: the same value (numbers
//! that are not plain integers are read by `serde_json` itself, duplicate keys keep the last
//! value at the first key's place), and for anything this parser does not accept (an error, a
//! lone surrogate, nesting deeper than [`MAX_DEPTH`], serde_json's raw-value key) the text is
//! handed to `serde_json`, whose error or value it then is. The property tests hold it to that.

use std::borrow::Cow;
use std::vec::Drain;

/// serde_json's recursion limit, the ceiling of `readLimits.maxNesting`: deeper input is an
/// error, never a stack overflow (every walk over a document recurses).
pub const MAX_NESTING: usize = 128;

use serde_json::{Map, Number, Value};

use crate::json::masks;

/// Nesting beyond this is left to `serde_json` (its own limit is 128 levels).
const MAX_DEPTH: usize = 100;

/// The key `serde_json` (with `raw_value`) reads a [`serde_json::value::RawValue`] from: a
/// document that uses it is left to `serde_json`.
const RAW_VALUE_KEY: &str = "$serde_json::private::RawValue";

/// `text` as a [`Value`], equal to `serde_json::from_str`'s (its error too).
pub fn parse(text: &str) -> serde_json::Result<Value> {
    match parse_plain(text) {
        Some(value) => Ok(value),
        None => serde_json::from_str(text),
    }
}

/// `text` as a [`Value`] when it is JSON this parser reads itself; `None` for anything else.
pub fn parse_plain(text: &str) -> Option<Value> {
    parse_with(text, SerdeTree)
}

/// What a parse makes of what it reads: `serde_json`'s tree here, the audit's borrowed one in
/// [`crate::json::borrowed`]. The parser decides what is read; a builder only what is built.
pub(crate) trait Build<'t> {
    type Value;
    type Key;
    fn null(&self) -> Self::Value;
    fn bool(&self, b: bool) -> Self::Value;
    fn number(&self, n: Number) -> Self::Value;
    /// A string: borrowed from the text when it has no escape, else unescaped.
    fn string(&self, s: Cow<'t, str>) -> Self::Value;
    fn key(&self, s: Cow<'t, str>) -> Self::Key;
    /// A string with escapes: `unescape` writes it into the `room` bytes it is given and says
    /// how many it wrote (`None`: not a string this parser reads). Owned by default; a builder
    /// with an arena writes it there.
    fn unescaped(
        &self,
        room: usize,
        unescape: impl FnOnce(&mut [u8]) -> Option<usize>,
    ) -> Option<Cow<'t, str>> {
        owned(room, unescape).map(Cow::Owned)
    }
    fn array(&self, items: Drain<'_, Self::Value>) -> Self::Value;
    /// An object from its members as read: a repeated key keeps its last value at its first
    /// place, as `serde_json`'s own visitor does.
    fn object(&self, members: Drain<'_, (Self::Key, Self::Value)>) -> Self::Value;
}

/// `text` built by `B` when it is JSON this parser reads itself; `None` for anything else.
pub(crate) fn parse_with<'t, B: Build<'t>>(text: &'t str, build: B) -> Option<B::Value> {
    let mut p = Parser::<B> {
        build,
        bytes: text.as_bytes(),
        text,
        at: 0,
        members: Vec::new(),
        items: Vec::new(),
    };
    let value = p.value(0)?;
    p.skip_whitespace();
    (p.at == p.bytes.len()).then_some(value)
}

/// `serde_json`'s tree: every string owned, every object an index map.
struct SerdeTree;

impl<'t> Build<'t> for SerdeTree {
    type Value = Value;
    type Key = String;

    #[inline]
    fn null(&self) -> Value {
        Value::Null
    }
    #[inline]
    fn bool(&self, b: bool) -> Value {
        Value::Bool(b)
    }
    #[inline]
    fn number(&self, n: Number) -> Value {
        Value::Number(n)
    }
    #[inline]
    fn string(&self, s: Cow<'t, str>) -> Value {
        Value::String(s.into_owned())
    }
    #[inline]
    fn key(&self, s: Cow<'t, str>) -> String {
        s.into_owned()
    }
    #[inline]
    fn array(&self, items: Drain<'_, Value>) -> Value {
        Value::Array(items.collect())
    }
    #[inline]
    fn object(&self, members: Drain<'_, (String, Value)>) -> Value {
        let mut map = Map::with_capacity(members.len());
        for (key, value) in members {
            map.insert(key, value);
        }
        Value::Object(map)
    }
}

struct Parser<'t, B: Build<'t>> {
    build: B,
    text: &'t str,
    bytes: &'t [u8],
    at: usize,
    /// The members and items read of every object and array open, innermost last: each is
    /// built once at its end, at its own size (no growing, no rehashing as it fills).
    members: Vec<(B::Key, B::Value)>,
    items: Vec<B::Value>,
}

impl<'t, B: Build<'t>> Parser<'t, B> {
    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after whitespace, not consumed.
    fn peek(&mut self) -> Option<u8> {
        self.skip_whitespace();
        self.bytes.get(self.at).copied()
    }

    fn value(&mut self, depth: usize) -> Option<B::Value> {
        match self.peek()? {
            b'"' => self.string().map(|s| self.build.string(s)),
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b't' => self.literal(b"true").then(|| self.build.bool(true)),
            b'f' => self.literal(b"false").then(|| self.build.bool(false)),
            b'n' => self.literal(b"null").then(|| self.build.null()),
            b'-' | b'0'..=b'9' => self.number().map(|n| self.build.number(n)),
            _ => None,
        }
    }

    /// Whether `word` is next, read past it if so.
    fn literal(&mut self, word: &[u8]) -> bool {
        let end = self.at + word.len();
        let found = self.bytes.get(self.at..end) == Some(word);
        if found {
            self.at = end;
        }
        found
    }

    /// Enters the object or array whose opening bracket is at `self.at`: `Some(true)` when it
    /// closes at once with `close`; `None` past [`MAX_DEPTH`].
    fn enter(&mut self, depth: usize, close: u8) -> Option<bool> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.at += 1;
        let empty = self.peek()? == close;
        self.at += usize::from(empty);
        Some(empty)
    }

    /// After a member or an item: `Some(true)` at the container's `close`, `Some(false)` after
    /// a comma.
    fn closes(&mut self, close: u8) -> Option<bool> {
        let next = self.peek()?;
        if next != b',' && next != close {
            return None;
        }
        self.at += 1;
        Some(next == close)
    }

    fn object(&mut self, depth: usize) -> Option<B::Value> {
        let open = self.members.len();
        if self.enter(depth, b'}')? {
            return Some(self.build.object(self.members.drain(open..)));
        }
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            let key = self.string()?;
            if key == RAW_VALUE_KEY || self.peek()? != b':' {
                return None;
            }
            self.at += 1;
            let value = self.value(depth)?;
            self.members.push((self.build.key(key), value));
            if self.closes(b'}')? {
                return Some(self.build.object(self.members.drain(open..)));
            }
        }
    }

    fn array(&mut self, depth: usize) -> Option<B::Value> {
        let open = self.items.len();
        if self.enter(depth, b']')? {
            return Some(self.build.array(self.items.drain(open..)));
        }
        loop {
            let item = self.value(depth)?;
            self.items.push(item);
            if self.closes(b']')? {
                return Some(self.build.array(self.items.drain(open..)));
            }
        }
    }

    /// A plain integer (no sign, no fraction, no exponent, at most 19 digits, so it fits a
    /// `u64`) is read here; any other number by `serde_json`, from the span its characters make.
    fn number(&mut self) -> Option<Number> {
        let start = self.at;
        let len = self.bytes[start..]
            .iter()
            .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
            .unwrap_or(self.bytes.len() - start);
        self.at = start + len;
        let span = &self.bytes[start..self.at];
        let plain =
            len <= 19 && (len == 1 || span[0] != b'0') && span.iter().all(u8::is_ascii_digit);
        if plain {
            let n = span.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
            return Some(n.into());
        }
        // The span is ASCII, so cut on character boundaries.
        self.text[start..self.at].parse().ok()
    }

    /// The string whose opening quote is at `self.at`: borrowed when it has no escape, else
    /// unescaped.
    fn string(&mut self) -> Option<Cow<'t, str>> {
        let start = self.at + 1;
        let stop = plain_run_end(self.bytes, start);
        match *self.bytes.get(stop)? {
            b'"' => {
                self.at = stop + 1;
                Some(Cow::Borrowed(&self.text[start..stop]))
            }
            b'\\' => {
                let end = masks::string_end(self.bytes, stop)?;
                self.at = end + 1;
                let room = unescaped_room(start, end)?;
                let bytes = self.bytes;
                self.build
                    .unescaped(room, |out| unescape_into(out, bytes, start, stop, end))
            }
            _ => None, // a control character
        }
    }
}

/// Where the run of bytes from `at` that a string holds as they are ends: at a quote, a
/// backslash or a control character (what a JSON string must escape), or at the end of
/// `bytes`. Eight bytes at a time.
fn plain_run_end(bytes: &[u8], at: usize) -> usize {
    masks::next_escape(bytes, at).unwrap_or(bytes.len())
}

/// The index of the closing quote of the string whose contents start at `at`: its plain start
/// a word at a time (most strings end there), and from its first backslash on, 64 bytes at a
/// time ([`masks::string_end`]). `None` at a control character before any backslash or
/// at the end of the text.
pub(crate) fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let stop = plain_run_end(bytes, at);
    match *bytes.get(stop)? {
        b'"' => Some(stop),
        b'\\' => masks::string_end(bytes, stop),
        _ => None,
    }
}

/// The contents of the string between `start` and its closing quote at `end`, whose first
/// escape is at `escape`, unescaped into one buffer of their length (unescaping never
/// lengthens). `None` for what is left to `serde_json`: a control character, a bad escape, a
/// lone surrogate.
pub(crate) fn unescape(bytes: &[u8], start: usize, escape: usize, end: usize) -> Option<String> {
    owned(unescaped_room(start, end)?, |out| {
        unescape_into(out, bytes, start, escape, end)
    })
}

/// A string `unescape` writes into a buffer of `room` bytes of its own.
fn owned(room: usize, unescape: impl FnOnce(&mut [u8]) -> Option<usize>) -> Option<String> {
    let mut out = vec![0u8; room];
    let len = unescape(&mut out)?;
    out.truncate(len);
    // A string much shorter than its escaped form gives the rest back.
    if out.capacity() - out.len() > 64.max(out.len() / 4) {
        out.shrink_to_fit();
    }
    String::from_utf8(out).ok()
}

/// The bytes [`unescape_into`] needs for the string between `start` and `end`: its escaped
/// length and sixteen of slack (a run's last chunk is copied whole).
fn unescaped_room(start: usize, end: usize) -> Option<usize> {
    Some(end.checked_sub(start)? + 16)
}

/// [`unescape`] into `out` (at least [`unescaped_room`] long): how many bytes the string
/// takes, UTF-8 (runs are copied whole and cut only at ASCII bytes, and escapes write whole
/// characters; the caller still checks it). Read 64 bytes at a time: a block's stops
/// (backslashes and controls, as bit masks) are visited in order, the runs between them
/// copied sixteen bytes at a time.
fn unescape_into(
    out: &mut [u8],
    bytes: &[u8],
    start: usize,
    escape: usize,
    end: usize,
) -> Option<usize> {
    let prefix = bytes.get(start..escape)?;
    if end > bytes.len() || escape > end || out.len() < unescaped_room(start, end)? {
        return None;
    }
    out[..prefix.len()].copy_from_slice(prefix);
    let (mut i, mut j) = (escape, prefix.len());
    let mut block = masks::StopBlock::new();
    while i < end {
        let mut stops = block.load(&bytes[i..]);
        // Only the string's own bytes: its quote and what follows are not read.
        let limit = (end - i).min(64);
        if limit < 64 {
            stops &= (1u64 << limit) - 1;
        }
        let mut from = 0;
        loop {
            let stop = if stops == 0 {
                limit
            } else {
                stops.trailing_zeros() as usize
            };
            block.copy_run(from, stop, out, j);
            j += stop - from;
            if stops == 0 {
                i += limit;
                break;
            }
            // A backslash (a control ends the reading: serde_json refuses it).
            if block.byte(stop) != b'\\' {
                return None;
            }
            let letter = *bytes.get(i + stop + 1)?;
            let simple = SIMPLE_ESCAPES[usize::from(letter)];
            let len = if simple != 0 {
                *out.get_mut(j)? = simple;
                j += 1;
                2
            } else if letter == b'u' {
                let (c, len) = unicode_escape(&bytes[i + stop..])?;
                j += c.encode_utf8(out.get_mut(j..j + 4)?).len();
                len
            } else {
                return None;
            };
            from = stop + len;
            if from >= limit {
                // The escape ends the block (or runs into the next): read on from its end.
                i += from;
                break;
            }
            stops &= !((1u64 << from) - 1);
        }
    }
    Some(j)
}

/// [`simple_escape`] as a table: the byte each escape letter stands for, 0 for none.
const SIMPLE_ESCAPES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut letter = 0;
    while letter < 256 {
        if let Some(byte) = simple_escape(letter as u8) {
            table[letter] = byte;
        }
        letter += 1;
    }
    table
};

/// The character a `\uXXXX` escape at the start of `raw` stands for (a surrogate pair taking
/// two), and the escape's length; `None` for a lone surrogate or bad hex digits.
fn unicode_escape(raw: &[u8]) -> Option<(char, usize)> {
    let high = hex4(raw.get(2..6)?)?;
    match high {
        0xD800..=0xDBFF => {
            if raw.get(6..8)? != b"\\u" {
                return None;
            }
            let low = hex4(raw.get(8..12)?)?;
            if !(0xDC00..=0xDFFF).contains(&low) {
                return None;
            }
            Some((
                char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?,
                12,
            ))
        }
        0xDC00..=0xDFFF => None,
        _ => Some((char::from_u32(high)?, 6)),
    }
}

/// The byte a one-letter JSON escape (`\\n`, `\\"`, ...) stands for; `None` for `u` and for
/// letters JSON has no escape for.
pub const fn simple_escape(letter: u8) -> Option<u8> {
    Some(match letter {
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 0x08,
        b'f' => 0x0c,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        _ => return None,
    })
}

fn hex4(digits: &[u8]) -> Option<u32> {
    digits
        .iter()
        .try_fold(0u32, |n, &d| Some(n * 16 + char::from(d).to_digit(16)?))
}

/// A document's JSON as a [`Value`], read by [`parse_plain`] (the same tree, faster), or
/// when that declines by [`parse_json`] (whose error, or lone-surrogate repair, it then is).
pub fn parse_value(text: &str) -> Result<Value, serde_json::Error> {
    parse_plain(text).map_or_else(|| parse_json(text), Ok)
}

/// Parses JSON as serde_json does, except that a lone UTF-16 surrogate escape (`"\ud800"`, which
/// JSON's grammar allows, Python's json reads, and servers that slice UTF-16 strings emit)
/// reads as U+FFFD, as Claude's tokenizer reads it. Valid input never takes the second pass.
pub fn parse_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    match serde_json::from_str(text) {
        Err(err) if err.is_syntax() && text.contains("\\u") => match repair_lone_surrogates(text) {
            Some(repaired) => serde_json::from_str(&repaired).map_err(|_| err),
            None => Err(err),
        },
        result => result,
    }
}

/// `text` with every lone surrogate escape inside a string replaced by `\uFFFD`; `None` when
/// there is none. One pass; escapes outside strings and valid pairs are left alone. Every
/// reader of JSON that serde_json refuses for a lone surrogate repairs it this way.
pub fn repair_lone_surrogates(text: &str) -> Option<String> {
    fn escape_at(b: &[u8], i: usize) -> Option<u16> {
        let hex = b.get(i..i + 6)?;
        if hex[0] != b'\\' || hex[1] != b'u' {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    }
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let (mut i, mut in_string, mut changed) = (0, false, false);
    while i < b.len() {
        match b[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                if let Some(unit) = escape_at(b, i) {
                    let high = (0xD800..0xDC00).contains(&unit);
                    let paired = high
                        && escape_at(b, i + 6).is_some_and(|lo| (0xDC00..0xE000).contains(&lo));
                    if paired {
                        out.extend_from_slice(&b[i..i + 12]);
                        i += 12;
                    } else {
                        let lone = (0xD800..0xE000).contains(&unit);
                        out.extend_from_slice(if lone { b"\\uFFFD" } else { &b[i..i + 6] });
                        changed |= lone;
                        i += 6;
                    }
                    continue;
                }
                // Any other escape: the backslash and the character it escapes.
                out.extend_from_slice(&b[i..(i + 2).min(b.len())]);
                i += 2;
                continue;
            }
            _ => {}
        }
        out.push(b[i]);
        i += 1;
    }
    // Only ASCII escapes were rewritten, so the bytes are still UTF-8.
    changed.then(|| String::from_utf8(out).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Both parsers' answers, the values written out (key order and a float's sign count).
    fn answers(text: &str) -> (Result<String, String>, Result<String, String>) {
        let show =
            |r: serde_json::Result<Value>| r.map(|v| v.to_string()).map_err(|e| e.to_string());
        (show(parse(text)), show(serde_json::from_str(text)))
    }

    fn same_as_serde_json(text: &str) {
        let (ours, theirs) = answers(text);
        assert_eq!(ours, theirs, "{}", &text[..text.floor_char_boundary(300)]);
    }

    #[test]
    fn reads_every_capture_and_every_json_text_in_one_itself() {
        for entry in std::fs::read_dir("tests/fixtures/corpus").unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let ours = parse_plain(&text).expect("read without serde_json");
            assert_eq!(
                ours.to_string(),
                serde_json::from_str::<Value>(&text).unwrap().to_string()
            );
            let blocks = ours.pointer("/result/content").and_then(Value::as_array);
            for text in blocks
                .into_iter()
                .flatten()
                .filter_map(|b| b["text"].as_str())
            {
                same_as_serde_json(text);
            }
        }
    }

    #[test]
    fn numbers_are_what_serde_json_makes_of_them() {
        for n in [
            "0",
            "-0",
            "7",
            "-7",
            "1.0",
            "-0.0",
            "1e5",
            "1E+5",
            "0.1e-2",
            "2.5e-308",
            "9999999999999999999",
            "18446744073709551615",
            "18446744073709551616",
            "123456789012345678901234567890",
            "-9223372036854775808",
            "-9223372036854775809",
            "1e400",
            "-1e400",
            "01",
            "-01",
            "1.",
            ".5",
            "-",
            "+1",
            "1e",
            "1-2",
            "0x10",
            "1.5.3",
        ] {
            same_as_serde_json(n);
            same_as_serde_json(&format!("[{n}]"));
            same_as_serde_json(&format!(r#"{{"n": {n} }}"#));
        }
    }

    #[test]
    fn strings_keys_and_structure_as_serde_json_reads_them() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let long = "é \\\"q\\\" \\n 日本 🦀 \\u00e9 \\ud83e\\udd80 \\/ \\b\\f\\r\\t".repeat(50);
        for text in [
            String::new(),
            " ".into(),
            r#""""#.into(),
            r#" {"a": 1, "b": [true, false, null], "a": {"c": "d"}} "#.into(),
            format!(r#"{{"{RAW_VALUE_KEY}": "1"}}"#),
            format!("\"{long}\""),
            format!("{{\"{long}\": \"{long}\"}}"),
            r#""\u0000 \u001f \uFFFF \uD834\uDD1E""#.into(),
            r#""\ud800""#.into(),
            r#""\ud800\u0041""#.into(),
            r#""\udc00""#.into(),
            r#""\u12""#.into(),
            r#""\uZZZZ""#.into(),
            r#""\q""#.into(),
            "\"tab\tinside\"".into(),
            "\"new\nline\"".into(),
            r#""unterminated"#.into(),
            r#""ends in a backslash\"#.into(),
            "tru".into(),
            "nulls".into(),
            "[1,]".into(),
            "[1 2]".into(),
            r#"{"a":1,}"#.into(),
            r#"{"a" 1}"#.into(),
            r#"{a: 1}"#.into(),
            "[] []".into(),
            "{}\n\t\r ".into(),
            deep(MAX_DEPTH),
            deep(MAX_DEPTH + 1),
            deep(127),
            deep(128),
            deep(129),
        ] {
            same_as_serde_json(&text);
        }
        assert!(parse_plain(&deep(MAX_DEPTH)).is_some());
    }

    fn json() -> impl Strategy<Value = Value> {
        let text = "(?s)[a-z\"\\\\/\u{0}-\u{1f}\u{7f}é日🦀]{0,90}";
        let scalars = prop_oneof![
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            (0u32..1000).prop_map(|n| Value::from(f64::from(n) / 8.0)),
        ];
        crate::json::compact::random_json(scalars, text, 4, 5)
    }

    proptest! {
        #[test]
        fn any_value_written_any_way_reads_back_as_serde_json_reads_it(v in json()) {
            let compact = v.to_string();
            prop_assert!(parse_plain(&compact).is_some());
            same_as_serde_json(&compact);
            same_as_serde_json(&serde_json::to_string_pretty(&v).unwrap());
            // Python's way: every character past ASCII as \u escapes, surrogate pairs too.
            same_as_serde_json(&crate::json::python::dumps(&v));
        }

        #[test]
        fn a_text_broken_anywhere_gets_serde_json_s_answer(
            v in json(),
            at in any::<prop::sample::Index>(),
            with in prop::sample::select(vec!["", "\"", "\\", ",", ":", "]", "}", "[", "{", "0", "-", "e", ".", "\u{1}", "\\u", "\\ud800", " "]),
            cut in any::<bool>(),
        ) {
            let text = serde_json::to_string_pretty(&v).unwrap();
            let mut at = at.index(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let broken = if cut {
                format!("{}{with}", &text[..at])
            } else {
                format!("{}{with}{}", &text[..at], &text[at..])
            };
            same_as_serde_json(&broken);
        }
    }
}
