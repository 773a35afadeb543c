//! Python literal reprs as servers write them (`str(rows)` of a database cursor): lists and
//! tuples of dicts or tuples, strings in either quote style with Python's escapes, `None`,
//! `True`, `False`, ints and floats, and the constructor calls reprs hold for values JSON has
//! no type for, read as their values: `datetime.date(2026, 1, 3)` as `"2026-01-03"`,
//! `datetime.datetime(...)` and `datetime.time(...)` in ISO 8601, `Decimal('1.50')` as the
//! number, `UUID('...')` as its text, `datetime.timedelta(...)` as seconds. Anything else (a
//! class's own repr, `<object at 0x...>`) is not a literal, and the text stays text.

use std::ops::Range;

use serde_json::{Map, Number, Value};

/// The deepest nesting read.
const MAX_DEPTH: usize = 64;

/// Reads `text` whole as one Python literal.
pub fn parse(text: &str) -> Result<Value, String> {
    let mut p = Parser::new(text);
    let value = p.value()?;
    p.end()?;
    Ok(value)
}

/// Reads `text` whole as a Python list or tuple, handing `each` every item's byte range in
/// `text` with its value as it is read, so a list of a million rows is checked without being
/// held. `each` may refuse an item; that error ends the reading.
pub fn each_item(
    text: &str,
    mut each: impl FnMut(Range<usize>, Value) -> Result<(), String>,
) -> Result<(), String> {
    let mut p = Parser::new(text);
    p.space();
    let close = match p.peek() {
        Some(b'[') => b']',
        Some(b'(') => b')',
        _ => return Err(p.error("not a list or tuple")),
    };
    p.depth = 1;
    p.items(close, &mut each)?;
    p.end()
}

struct Parser<'t> {
    text: &'t [u8],
    at: usize,
    depth: usize,
    /// Inside how many constructor calls: there a bare name (`tzinfo=datetime.timezone.utc`)
    /// is an argument, kept as its text.
    calls: usize,
}

impl Parser<'_> {
    fn new(text: &str) -> Parser<'_> {
        Parser {
            text: text.as_bytes(),
            at: 0,
            depth: 0,
            calls: 0,
        }
    }

    /// Nothing but space left.
    fn end(&mut self) -> Result<(), String> {
        self.space();
        if self.at < self.text.len() {
            return Err(self.error("text after the value"));
        }
        Ok(())
    }

    fn error(&self, what: &str) -> String {
        format!("not a Python literal: {what} at byte {}", self.at)
    }

    fn space(&mut self) {
        while self.at < self.text.len() && self.text[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.space();
        if self.peek() == Some(byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        self.space();
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nesting deeper than 64"));
        }
        let value = match self.peek() {
            Some(b'[') => self.sequence(b']').map(Value::Array),
            // JSON has no tuple: an array, whose items a record names by their place.
            Some(b'(') => self.sequence(b')').map(Value::Array),
            Some(b'{') => self.dict(),
            Some(b'\'' | b'"') => self.string().map(Value::String),
            Some(b'-' | b'+' | b'0'..=b'9' | b'.') => self.number(),
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => self.word(),
            Some(_) => Err(self.error("an unexpected character")),
            None => Err(self.error("the end of the text")),
        };
        self.depth -= 1;
        value
    }

    /// The items up to `close`.
    fn sequence(&mut self, close: u8) -> Result<Vec<Value>, String> {
        let mut items = Vec::new();
        self.items(close, &mut |_, item| {
            items.push(item);
            Ok(())
        })?;
        Ok(items)
    }

    /// From an opening bracket to its `close`, a trailing comma allowed: each item with its
    /// byte range, handed on as read.
    fn items(
        &mut self,
        close: u8,
        each: &mut dyn FnMut(Range<usize>, Value) -> Result<(), String>,
    ) -> Result<(), String> {
        self.at += 1;
        loop {
            if self.eat(close) {
                return Ok(());
            }
            self.space();
            let start = self.at;
            let item = self.value()?;
            each(start..self.at, item)?;
            if !self.eat(b',') {
                if self.eat(close) {
                    return Ok(());
                }
                return Err(self.error("a missing comma"));
            }
        }
    }

    fn dict(&mut self) -> Result<Value, String> {
        self.at += 1;
        let mut map = Map::new();
        loop {
            if self.eat(b'}') {
                return Ok(Value::Object(map));
            }
            let key = match self.value()? {
                Value::String(s) => s,
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Null => "None".to_owned(),
                _ => return Err(self.error("a key that is not a string or a number")),
            };
            if !self.eat(b':') {
                return Err(self.error("a missing colon"));
            }
            let value = self.value()?;
            map.insert(key, value);
            if !self.eat(b',') {
                if self.eat(b'}') {
                    return Ok(Value::Object(map));
                }
                return Err(self.error("a missing comma"));
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = self.text[self.at];
        self.at += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.error("an unclosed string"));
            };
            self.at += 1;
            match c {
                _ if c == quote => break,
                b'\\' => self.escape(&mut out)?,
                _ => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| self.error("a string that is not UTF-8"))
    }

    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), String> {
        let Some(c) = self.peek() else {
            return Err(self.error("an unclosed string"));
        };
        self.at += 1;
        let simple = match c {
            b'\\' => Some(b'\\'),
            b'\'' => Some(b'\''),
            b'"' => Some(b'"'),
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'0' => Some(0),
            b'a' => Some(7),
            b'b' => Some(8),
            b'f' => Some(12),
            b'v' => Some(11),
            _ => None,
        };
        if let Some(byte) = simple {
            out.push(byte);
            return Ok(());
        }
        let digits = match c {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => {
                // Python keeps an unknown escape as it is.
                out.extend_from_slice(&[b'\\', c]);
                return Ok(());
            }
        };
        let hex = self
            .text
            .get(self.at..self.at + digits)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.error("a bad escape"))?;
        self.at += digits;
        let ch = char::from_u32(hex).unwrap_or('\u{fffd}');
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        Ok(())
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.at;
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'_') {
                self.at += 1;
            } else {
                break;
            }
        }
        let text: String = String::from_utf8_lossy(&self.text[start..self.at]).replace('_', "");
        number(&text).ok_or_else(|| self.error("a bad number"))
    }

    /// `None`, `True`, `False`, `inf`/`nan`, or a constructor call.
    fn word(&mut self) -> Result<Value, String> {
        let start = self.at;
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
                self.at += 1;
            } else {
                break;
            }
        }
        let word = String::from_utf8_lossy(&self.text[start..self.at]).into_owned();
        match word.as_str() {
            "None" => return Ok(Value::Null),
            "True" => return Ok(Value::Bool(true)),
            "False" => return Ok(Value::Bool(false)),
            "inf" | "nan" => return Ok(Value::Null),
            _ => {}
        }
        // A bytes or raw string: b'...', r'...'.
        if matches!(word.as_str(), "b" | "r" | "u" | "rb" | "br")
            && matches!(self.peek(), Some(b'\'' | b'"'))
        {
            return self.string().map(Value::String);
        }
        self.space();
        if self.peek() != Some(b'(') {
            if self.calls > 0 {
                return Ok(Value::String(word));
            }
            return Err(self.error(&format!("the name {word:?}")));
        }
        self.at += 1;
        self.calls += 1;
        let args = self.arguments();
        self.calls -= 1;
        let (args, named) = args?;
        call(&word, &args, &named).ok_or_else(|| self.error(&format!("the call {word}(...)")))
    }

    /// A call's arguments, up to its `)`: by place, and by name.
    #[allow(clippy::type_complexity)]
    fn arguments(&mut self) -> Result<(Vec<Value>, Map<String, Value>), String> {
        let mut args = Vec::new();
        let mut named = Map::new();
        loop {
            if self.eat(b')') {
                break;
            }
            let save = self.at;
            self.space();
            let name_start = self.at;
            while let Some(c) = self.peek() {
                if c.is_ascii_alphanumeric() || c == b'_' {
                    self.at += 1;
                } else {
                    break;
                }
            }
            let name = String::from_utf8_lossy(&self.text[name_start..self.at]).into_owned();
            if !name.is_empty() && self.eat(b'=') {
                // tzinfo=datetime.timezone.utc and the like: kept by name.
                named.insert(name, self.value()?);
            } else {
                self.at = save;
                args.push(self.value()?);
            }
            if !self.eat(b',') {
                if self.eat(b')') {
                    break;
                }
                return Err(self.error("a missing comma"));
            }
        }
        Ok((args, named))
    }
}

fn number(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::from(i));
    }
    let f: f64 = text.parse().ok()?;
    Number::from_f64(f).map(Value::Number)
}

/// The value of a constructor call a repr holds, when it is one of the known ones.
fn call(name: &str, args: &[Value], named: &Map<String, Value>) -> Option<Value> {
    let int = |i: usize| args.get(i).and_then(Value::as_i64);
    let short = name.rsplit('.').next().unwrap_or(name);
    match short {
        "date" => Some(Value::from(format!(
            "{:04}-{:02}-{:02}",
            int(0)?,
            int(1)?,
            int(2)?
        ))),
        "datetime" => {
            let mut text = format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                int(0)?,
                int(1)?,
                int(2)?,
                int(3).unwrap_or(0),
                int(4).unwrap_or(0),
                int(5).unwrap_or(0)
            );
            if let Some(us) = int(6).filter(|us| *us > 0) {
                text.push_str(&format!(".{us:06}"));
            }
            if named.contains_key("tzinfo") {
                text.push('Z');
            }
            Some(Value::from(text))
        }
        "time" => Some(Value::from(format!(
            "{:02}:{:02}:{:02}",
            int(0).unwrap_or(0),
            int(1).unwrap_or(0),
            int(2).unwrap_or(0)
        ))),
        "Decimal" => match args.first()? {
            Value::String(s) => number(s.trim()).or_else(|| Some(Value::Null)),
            n @ Value::Number(_) => Some(n.clone()),
            _ => None,
        },
        "UUID" => args.first()?.as_str().map(Value::from),
        "timedelta" => {
            let get = |key: &str, i: usize| {
                named
                    .get(key)
                    .and_then(Value::as_f64)
                    .or_else(|| args.get(i).and_then(Value::as_f64))
                    .unwrap_or(0.0)
            };
            let seconds =
                get("days", 0) * 86_400.0 + get("seconds", 1) + get("microseconds", 2) / 1e6;
            Number::from_f64(seconds).map(Value::Number)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reprs_of_rows_read_as_their_values() {
        let text = r#"[{'id': 1, 'customer': "O'Brien", 'note': 'a\nb \'q\' \x41\u00e9', 'total': 492.09, 'paid': True, 'ref': None}]"#;
        assert_eq!(
            parse(text).unwrap(),
            json!([{"id": 1, "customer": "O'Brien", "note": "a\nb 'q' Aé", "total": 492.09, "paid": true, "ref": null}])
        );
        let tuples = "[(55, 'customer_710', datetime.date(2026, 1, 3), Decimal('45.49'), datetime.datetime(2026, 1, 3, 10, 5, tzinfo=datetime.timezone.utc), UUID('7f1c0d9e-0000-4000-8000-000000000001'), -1e-05,)]";
        assert_eq!(
            parse(tuples).unwrap(),
            json!([[
                55,
                "customer_710",
                "2026-01-03",
                45.49,
                "2026-01-03T10:05:00Z",
                "7f1c0d9e-0000-4000-8000-000000000001",
                -1e-05
            ]])
        );
        assert_eq!(parse("(1,)").unwrap(), json!([1]));
        assert_eq!(
            parse("datetime.timedelta(days=1, seconds=30)").unwrap(),
            json!(86430.0)
        );
    }

    #[test]
    fn what_is_not_a_literal_says_where() {
        for (text, says) in [
            (
                "[<Row object at 0x7f>]",
                "an unexpected character at byte 1",
            ),
            ("[1, 2", "a missing comma at byte 5"),
            ("{'a' 1}", "a missing colon"),
            ("Foo(1)", "the call Foo(...)"),
            ("[1] tail", "text after the value"),
            ("'open", "an unclosed string"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
        assert!(parse(&"[".repeat(100)).unwrap_err().contains("nesting"));
    }
}
