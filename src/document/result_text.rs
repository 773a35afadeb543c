//! The text a model reads of a stored tool result, streamed out of the result's JSON bytes: the
//! `text` of its text blocks and of its embedded text resources, joined by a newline, decoded as
//! it is read. A search over a 100 MB artifact reads it once, in pieces, and never builds it.
//!
//! It yields what the tree does (the proxy's `text_view` of a parsed result) for a tool result
//! whose blocks name their `type` before their text, which is how the SDKs write them. Any other
//! shape (a JSON-RPC envelope, a block whose text comes before its type, a result with no text,
//! bytes that are not JSON) is [`Stop::NotPlain`]: the caller parses the result whole instead.

use std::io::{self, BufRead};

/// Why the text was not streamed.
#[derive(Debug)]
pub enum Stop {
    /// The bytes could not be read.
    Io(io::Error),
    /// Not a shape this reader follows: parse the result whole.
    NotPlain,
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Stop {
        Stop::Io(e)
    }
}

/// Streams the text of the tool result `reader` holds into `sink`, in pieces; `sink` returns
/// false to stop (then the answer is [`Stop::NotPlain`]). On [`Stop::NotPlain`], what `sink`
/// was given is to be thrown away.
pub fn stream(reader: impl BufRead, sink: &mut dyn FnMut(&[u8]) -> bool) -> Result<(), Stop> {
    let mut scan = Scan { r: reader };
    let mut parts = 0usize;
    scan.expect(b'{')?;
    let mut first = true;
    loop {
        if !scan.next_member(&mut first, b'}')? {
            break;
        }
        let key = scan.small_string()?;
        scan.expect(b':')?;
        match key.as_str() {
            "jsonrpc" | "contents" | "tools" | "resources" | "resourceTemplates" | "prompts" => {
                return Err(Stop::NotPlain);
            }
            "content" => {
                scan.expect(b'[')?;
                let mut first_block = true;
                while scan.next_member(&mut first_block, b']')? {
                    block(&mut scan, &mut parts, sink)?;
                }
            }
            _ => scan.skip_value()?,
        }
    }
    if parts == 0 {
        return Err(Stop::NotPlain);
    }
    Ok(())
}

/// One content block: its text streamed when its `type` (read first) says it has one.
fn block<R: BufRead>(
    scan: &mut Scan<R>,
    parts: &mut usize,
    sink: &mut dyn FnMut(&[u8]) -> bool,
) -> Result<(), Stop> {
    scan.expect(b'{')?;
    let mut kind: Option<String> = None;
    let mut first = true;
    while scan.next_member(&mut first, b'}')? {
        let key = scan.small_string()?;
        scan.expect(b':')?;
        match (key.as_str(), kind.as_deref()) {
            ("type", _) => {
                if scan.peek()? != Some(b'"') {
                    return Err(Stop::NotPlain);
                }
                kind = Some(scan.small_string()?);
            }
            ("text", Some("text")) | ("resource", Some("resource")) => {
                if key == "resource" {
                    resource(scan, parts, sink)?;
                } else if scan.peek()? == Some(b'"') {
                    if *parts > 0 && !sink(b"\n") {
                        return Err(Stop::NotPlain);
                    }
                    *parts += 1;
                    scan.stream_string(sink)?;
                } else {
                    return Err(Stop::NotPlain);
                }
            }
            // Text (or a resource) before its type: the tree decides.
            ("text" | "resource", None) => return Err(Stop::NotPlain),
            _ => scan.skip_value()?,
        }
    }
    if kind.is_none() {
        return Err(Stop::NotPlain);
    }
    Ok(())
}

/// An embedded resource: its `text`, if it has one (a `blob` is not text).
fn resource<R: BufRead>(
    scan: &mut Scan<R>,
    parts: &mut usize,
    sink: &mut dyn FnMut(&[u8]) -> bool,
) -> Result<(), Stop> {
    if scan.peek()? != Some(b'{') {
        return Err(Stop::NotPlain);
    }
    scan.expect(b'{')?;
    let mut first = true;
    let mut texts = 0;
    while scan.next_member(&mut first, b'}')? {
        let key = scan.small_string()?;
        scan.expect(b':')?;
        if key == "text" && scan.peek()? == Some(b'"') {
            texts += 1;
            if texts > 1 {
                return Err(Stop::NotPlain);
            }
            if *parts > 0 && !sink(b"\n") {
                return Err(Stop::NotPlain);
            }
            *parts += 1;
            scan.stream_string(sink)?;
        } else {
            scan.skip_value()?;
        }
    }
    Ok(())
}

/// A forward-only reader of JSON tokens.
struct Scan<R> {
    r: R,
}

/// Keys and `type` values longer than this are not what this reader follows.
const SMALL_STRING: usize = 256;

impl<R: BufRead> Scan<R> {
    /// The next byte that is not whitespace, left unread.
    fn peek(&mut self) -> Result<Option<u8>, Stop> {
        loop {
            let buf = self.r.fill_buf()?;
            if buf.is_empty() {
                return Ok(None);
            }
            match buf
                .iter()
                .position(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
            {
                Some(i) => {
                    let b = buf[i];
                    self.r.consume(i);
                    return Ok(Some(b));
                }
                None => {
                    let n = buf.len();
                    self.r.consume(n);
                }
            }
        }
    }

    fn byte(&mut self) -> Result<u8, Stop> {
        let buf = self.r.fill_buf()?;
        let Some(&b) = buf.first() else {
            return Err(Stop::NotPlain);
        };
        self.r.consume(1);
        Ok(b)
    }

    fn expect(&mut self, want: u8) -> Result<(), Stop> {
        if self.peek()? != Some(want) {
            return Err(Stop::NotPlain);
        }
        self.r.consume(1);
        Ok(())
    }

    /// True when another member (or element) follows: reads the `,` between them, or the
    /// closing `close`.
    fn next_member(&mut self, first: &mut bool, close: u8) -> Result<bool, Stop> {
        match self.peek()? {
            Some(b) if b == close => {
                self.r.consume(1);
                Ok(false)
            }
            Some(b',') if !*first => {
                self.r.consume(1);
                Ok(true)
            }
            Some(_) if *first => {
                *first = false;
                Ok(true)
            }
            _ => Err(Stop::NotPlain),
        }
    }

    /// A short string (a key, a type), decoded.
    fn small_string(&mut self) -> Result<String, Stop> {
        let mut out = Vec::new();
        let mut too_long = false;
        self.stream_string(&mut |piece| {
            if out.len() + piece.len() > SMALL_STRING {
                too_long = true;
            } else {
                out.extend_from_slice(piece);
            }
            true
        })?;
        if too_long {
            return Err(Stop::NotPlain);
        }
        String::from_utf8(out).map_err(|_| Stop::NotPlain)
    }

    /// A string, decoded into `sink` in pieces.
    fn stream_string(&mut self, sink: &mut dyn FnMut(&[u8]) -> bool) -> Result<(), Stop> {
        self.expect(b'"')?;
        loop {
            let buf = self.r.fill_buf()?;
            if buf.is_empty() {
                return Err(Stop::NotPlain);
            }
            match memchr::memchr2(b'"', b'\\', buf) {
                None => {
                    if !sink(buf) {
                        return Err(Stop::NotPlain);
                    }
                    let n = buf.len();
                    self.r.consume(n);
                }
                Some(i) => {
                    let quote = buf[i] == b'"';
                    if i > 0 && !sink(&buf[..i]) {
                        return Err(Stop::NotPlain);
                    }
                    self.r.consume(i + 1);
                    if quote {
                        return Ok(());
                    }
                    self.escape(sink)?;
                }
            }
        }
    }

    /// The escape after a backslash.
    fn escape(&mut self, sink: &mut dyn FnMut(&[u8]) -> bool) -> Result<(), Stop> {
        let plain = match self.byte()? {
            b'u' => {
                let mut c = self.hex4()?;
                if (0xD800..0xDC00).contains(&c) {
                    // A high surrogate: its low half must follow as another \u escape.
                    if self.byte()? != b'\\' || self.byte()? != b'u' {
                        return Err(Stop::NotPlain);
                    }
                    let low = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return Err(Stop::NotPlain);
                    }
                    c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
                }
                let ch = char::from_u32(c).ok_or(Stop::NotPlain)?;
                let mut utf8 = [0u8; 4];
                if !sink(ch.encode_utf8(&mut utf8).as_bytes()) {
                    return Err(Stop::NotPlain);
                }
                return Ok(());
            }
            other => crate::json::parse::simple_escape(other).ok_or(Stop::NotPlain)?,
        };
        if sink(&[plain]) {
            Ok(())
        } else {
            Err(Stop::NotPlain)
        }
    }

    fn hex4(&mut self) -> Result<u32, Stop> {
        let mut v = 0;
        for _ in 0..4 {
            let d = (self.byte()? as char).to_digit(16).ok_or(Stop::NotPlain)?;
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// Reads past one value of any kind.
    fn skip_value(&mut self) -> Result<(), Stop> {
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                None => return Err(Stop::NotPlain),
                Some(b'"') => self.stream_string(&mut |_| true)?,
                Some(b'{' | b'[') => {
                    self.r.consume(1);
                    depth += 1;
                    continue;
                }
                Some(b'}' | b']') => {
                    if depth == 0 {
                        return Err(Stop::NotPlain);
                    }
                    self.r.consume(1);
                    depth -= 1;
                }
                Some(b',' | b':') if depth > 0 => {
                    self.r.consume(1);
                    continue;
                }
                Some(_) => {
                    // A number or a literal: up to the next delimiter.
                    loop {
                        let buf = self.r.fill_buf()?;
                        if buf.is_empty() {
                            break;
                        }
                        match buf.iter().position(|b| {
                            matches!(b, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
                        }) {
                            Some(i) => {
                                self.r.consume(i);
                                break;
                            }
                            None => {
                                let n = buf.len();
                                self.r.consume(n);
                            }
                        }
                    }
                }
            }
            if depth == 0 {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn streamed(value: &Value, buffer: usize) -> Option<String> {
        let text = serde_json::to_string(value).unwrap();
        let reader = io::BufReader::with_capacity(buffer, text.as_bytes());
        let mut out = Vec::new();
        match stream(reader, &mut |p| {
            out.extend_from_slice(p);
            true
        }) {
            Ok(()) => Some(String::from_utf8(out).unwrap()),
            Err(Stop::NotPlain) => None,
            Err(Stop::Io(e)) => panic!("{e}"),
        }
    }

    #[test]
    fn texts_of_blocks_and_resources_joined_by_newlines() {
        let result = json!({
            "content": [
                {"type": "text", "text": "first \"quoted\"\nline é 😀 \u{1}"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a", "text": "second"}},
                {"type": "resource", "resource": {"uri": "file:///b", "blob": "AAAA"}},
                {"type": "text", "text": "third", "annotations": {"priority": [1, 2.5e3, true, null]}}
            ],
            "structuredContent": {"text": "not this"},
            "isError": false
        });
        for buffer in [1, 3, 16, 8192] {
            assert_eq!(
                streamed(&result, buffer).as_deref(),
                Some("first \"quoted\"\nline é 😀 \u{1}\nsecond\nthird"),
                "buffer {buffer}"
            );
        }
    }

    #[test]
    fn other_shapes_go_to_the_tree() {
        for value in [
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}),
            json!({"content": [{"text": "before its type", "type": "text"}]}),
            json!({"content": [{"type": "image", "data": "AA"}]}),
            json!({"contents": [{"uri": "x", "text": "resource read"}]}),
            json!({"content": [{"text": "no type"}]}),
            json!({"items": [1, 2]}),
        ] {
            assert_eq!(streamed(&value, 64), None, "{value}");
        }
        let mut out = Vec::new();
        assert!(matches!(
            stream(
                &b"{\"content\": [{\"type\": \"text\", \"text\": \"cut"[..],
                &mut |p| {
                    out.extend_from_slice(p);
                    true
                }
            ),
            Err(Stop::NotPlain)
        ));
    }
}
