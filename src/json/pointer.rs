//! JSON Pointer (RFC 6901) building, for findings and reports that name a place in a document.
//!
//! Two flavours: an exact pointer (`/bookings/3/notes`) and a pattern where every array index is
//! `*` (`/bookings/*/notes`), which is how per-path costs are aggregated across a list's items.

use std::collections::HashMap;

use rustc_hash::{FxHashMap, FxHashSet};

/// Appends one reference token to `pointer`, escaping `~` and `/` as RFC 6901 requires.
pub fn push_key(pointer: &mut String, key: &str) {
    pointer.push('/');
    for c in key.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Appends an array index.
pub fn push_index(pointer: &mut String, index: usize) {
    use std::fmt::Write as _;
    let _ = write!(pointer, "/{index}");
}

/// Joins a key onto a pointer, returning a new one.
pub fn join(pointer: &str, key: &str) -> String {
    let mut p = String::with_capacity(pointer.len() + key.len() + 1);
    p.push_str(pointer);
    push_key(&mut p, key);
    p
}

/// `pointer` (or pattern), made under `from`, moved to the same place under `to`: what was
/// found in one copy of a value, named in another.
pub fn rebase(pointer: &str, from: &str, to: &str) -> String {
    let rest = pointer.strip_prefix(from);
    debug_assert!(rest.is_some(), "{pointer} is not under {from}");
    format!("{to}{}", rest.unwrap_or_default())
}

/// Shows a pointer to a human: the root is `/` rather than the empty string.
pub fn display(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_per_rfc6901() {
        let mut p = String::new();
        push_key(&mut p, "a/b");
        push_key(&mut p, "m~n");
        push_index(&mut p, 3);
        assert_eq!(p, "/a~1b/m~0n/3");
        assert_eq!(display(""), "/");
        let v = serde_json::json!({"a/b": {"m~n": [0, 1, 2, 42]}});
        assert_eq!(v.pointer(&p), Some(&serde_json::json!(42)));
    }
}

/// One step down a JSON value: a member's key, an item's index, or the key of an entry of a
/// map of records (written as a key, folded to `{key}` in a pattern).
#[derive(Clone, Copy, Debug)]
pub enum Seg<'v> {
    Key(&'v str),
    Index(usize),
    Entry(&'v str),
}

/// A JSON pointer kept as a stack of segments while walking a value, written out only when
/// something is reported: going down a large document allocates next to nothing.
#[derive(Clone, Debug)]
pub struct PathStack<'v> {
    base: String,
    segs: Vec<Seg<'v>>,
}

impl<'v> PathStack<'v> {
    /// A path below `base` (a pointer, possibly ending in `#` for a JSON text block).
    pub fn new(base: &str) -> Self {
        PathStack {
            base: base.to_owned(),
            segs: Vec::new(),
        }
    }

    pub fn push(&mut self, seg: Seg<'v>) {
        self.segs.push(seg);
    }

    pub fn pop(&mut self) {
        self.segs.pop();
    }

    /// The exact pointer.
    pub fn pointer(&self) -> String {
        let mut p = self.base.clone();
        for seg in &self.segs {
            match seg {
                Seg::Key(k) | Seg::Entry(k) => push_key(&mut p, k),
                Seg::Index(i) => push_index(&mut p, *i),
            }
        }
        p
    }

    /// The pattern: every array index written as `*`, every map-of-records key as `{key}`.
    pub fn pattern(&self) -> String {
        let mut p = self.base.clone();
        for seg in &self.segs {
            match seg {
                Seg::Key(k) => push_key(&mut p, k),
                Seg::Index(_) => p.push_str("/*"),
                Seg::Entry(_) => {
                    p.push('/');
                    p.push_str(crate::json::collection::KEY_PATTERN);
                }
            }
        }
        p
    }
}

/// Where each of `pointers` starts in the JSON `text`: 1-based line and column (in characters),
/// found in one pass over the text. A pointer into a JSON text block (`.../text#/rows/3`) is
/// located at the string that holds the block. Pointers that are not in the text are left out.
///
/// The scan goes down only the members and items on the way to a wanted pointer and skips
/// every other value whole (strings from quote to quote with `memchr`, containers by their
/// brackets), so locating a few findings in a large response reads most of it at memory speed
/// and builds no pointer for the values it skips.
pub fn locate_all(text: &str, pointers: &[&str]) -> HashMap<String, (usize, usize)> {
    fn outer(p: &str) -> &str {
        p.split_once('#').map_or(p, |(outer, _)| outer)
    }
    let wanted: FxHashSet<&str> = pointers.iter().map(|p| outer(p)).collect();
    let mut found: FxHashMap<String, (usize, usize)> = FxHashMap::default();
    if wanted.is_empty() {
        return HashMap::new();
    }
    // Every wanted pointer and its ancestors: a `/` in a pointer always starts a segment
    // (a `/` inside a key is written `~1`).
    let mut on_the_way: FxHashSet<&str> = FxHashSet::default();
    for p in &wanted {
        on_the_way.insert(p);
        on_the_way.extend(p.match_indices('/').map(|(i, _)| &p[..i]));
    }
    let mut scanner = Scanner {
        text,
        bytes: text.as_bytes(),
        i: 0,
        line: 1,
        line_start: 0,
        counted: (0, 0),
        wanted: &wanted,
        on_the_way: &on_the_way,
        found: &mut found,
    };
    scanner.value(&mut String::new(), 0);
    pointers
        .iter()
        .filter_map(|p| Some(((*p).to_owned(), *found.get(outer(p))?)))
        .collect()
}

/// A forgiving JSON walker that only tracks where values start; the text has already been
/// parsed, so it never needs to report errors (on bad input it stops).
struct Scanner<'t, 'w> {
    text: &'t str,
    bytes: &'t [u8],
    i: usize,
    line: usize,
    line_start: usize,
    /// Characters counted on the current line so far: (up to this byte, this many), so the
    /// columns of many findings on one long line are counted in one pass.
    counted: (usize, usize),
    wanted: &'w FxHashSet<&'w str>,
    on_the_way: &'w FxHashSet<&'w str>,
    found: &'w mut FxHashMap<String, (usize, usize)>,
}

impl<'t> Scanner<'t, '_> {
    fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.i) {
            match b {
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    self.line_start = self.i;
                }
                b' ' | b'\t' | b'\r' => self.i += 1,
                _ => break,
            }
        }
    }

    /// The column of the current byte, in characters (UTF-8 lead bytes since the line start).
    fn column(&mut self) -> usize {
        let (mut at, mut chars) = self.counted;
        if at < self.line_start {
            (at, chars) = (self.line_start, 0);
        }
        // Both ends are where a value or a line starts, so on character boundaries: the
        // standard count, a word at a time; the lead bytes one by one should they not be.
        chars += match self.text.get(at..self.i) {
            Some(s) => s.chars().count(),
            None => self.bytes[at..self.i]
                .iter()
                .filter(|&&b| (b & 0xC0) != 0x80)
                .count(),
        };
        self.counted = (self.i, chars);
        chars + 1
    }

    /// The byte after the string that starts (with its quote) at `start`, or the end (the
    /// text was parsed, so its strings hold no raw control character).
    fn string_end(&self, start: usize) -> usize {
        crate::json::parse::string_end(self.bytes, start + 1)
            .map_or(self.bytes.len(), |quote| quote + 1)
    }

    /// Reads a key: as it is written when it has no escape, else unescaped as the document
    /// was read (a lone surrogate escape is U+FFFD). `None` at the end of the text.
    fn key(&mut self) -> Option<std::borrow::Cow<'t, str>> {
        let start = self.i;
        let end = self.string_end(start);
        self.i = end;
        let text: &'t str = self.text;
        let raw = text.get(start..end)?;
        if raw.len() < 2 || !raw.ends_with('"') {
            return None;
        }
        if !raw.contains('\\') {
            return Some(raw[1..raw.len() - 1].into());
        }
        crate::json::parse::parse_json::<String>(raw)
            .ok()
            .map(Into::into)
    }

    /// Skips one value (after any whitespace before it), keeping count of lines.
    fn skip_value(&mut self) {
        let start = self.i;
        let mut depth = 0usize;
        while let Some(&b) = self.bytes.get(self.i) {
            match b {
                b'"' => {
                    self.i = self.string_end(self.i);
                    if depth == 0 {
                        break;
                    }
                }
                b'{' | b'[' => {
                    depth += 1;
                    self.i += 1;
                }
                b'}' | b']' if depth == 0 => break, // The parent's end.
                b'}' | b']' => {
                    depth -= 1;
                    self.i += 1;
                    if depth == 0 {
                        break;
                    }
                }
                b',' if depth == 0 => break,
                _ => self.i += 1,
            }
        }
        // JSON has no raw newline inside a string: every newline skipped ends a line.
        let skipped = &self.bytes[start..self.i];
        if let Some(last) = memchr::memrchr(b'\n', skipped) {
            self.line += memchr::memchr_iter(b'\n', skipped).count();
            self.line_start = start + last + 1;
        }
    }

    /// Reads the value at the scanner's place, whose pointer is `path`; goes down only into
    /// members and items on the way to a wanted pointer. Returns `false` to stop the scan
    /// (everything found, or text that is not JSON).
    fn value(&mut self, path: &mut String, depth: usize) -> bool {
        self.skip_ws();
        if self.wanted.contains(path.as_str()) {
            let at = (self.line, self.column());
            self.found.insert(path.clone(), at);
            if self.found.len() == self.wanted.len() {
                return false;
            }
        }
        let Some(&b) = self.bytes.get(self.i) else {
            return false;
        };
        let container = match b {
            b'{' | b'[' if depth < 256 => b,
            _ => {
                self.skip_value();
                return true;
            }
        };
        self.i += 1;
        let mut index = 0;
        loop {
            self.skip_ws();
            let len = path.len();
            match (container, self.bytes.get(self.i)) {
                (b'{', Some(b'}')) | (b'[', Some(b']')) => {
                    self.i += 1;
                    return true;
                }
                (_, Some(b',')) => {
                    self.i += 1;
                    continue;
                }
                (b'{', Some(b'"')) => {
                    let Some(key) = self.key() else { return false };
                    push_key(path, &key);
                    self.skip_ws();
                    if self.bytes.get(self.i) == Some(&b':') {
                        self.i += 1;
                    }
                }
                (b'[', Some(_)) => {
                    push_index(path, index);
                    index += 1;
                }
                _ => return false,
            }
            let before = self.i;
            let go_on = if self.on_the_way.contains(path.as_str()) {
                self.value(path, depth + 1)
            } else {
                self.skip_ws();
                self.skip_value();
                true
            };
            path.truncate(len);
            if !go_on || self.i == before {
                return false; // Everything found, or nothing read: stop rather than spin.
            }
        }
    }
}

#[cfg(test)]
mod locate_tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// Writes `value` as JSON with the given whitespace between its tokens, noting where every
    /// value starts: the oracle the scanner's answers are checked against.
    fn write_noting(
        value: &Value,
        path: &mut String,
        out: &mut String,
        starts: &mut Vec<(String, usize)>,
        blanks: &mut impl Iterator<Item = &'static str>,
    ) {
        starts.push((path.clone(), out.len()));
        let len = path.len();
        match value {
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(blanks.next().unwrap());
                    push_index(path, i);
                    write_noting(item, path, out, starts, blanks);
                    path.truncate(len);
                    out.push_str(blanks.next().unwrap());
                }
                out.push(']');
            }
            Value::Object(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(blanks.next().unwrap());
                    out.push_str(&serde_json::to_string(k).unwrap());
                    out.push_str(blanks.next().unwrap());
                    out.push(':');
                    out.push_str(blanks.next().unwrap());
                    push_key(path, k);
                    write_noting(v, path, out, starts, blanks);
                    path.truncate(len);
                }
                out.push('}');
            }
            scalar => out.push_str(&scalar.to_string()),
        }
    }

    fn json() -> impl Strategy<Value = Value> {
        let keys_and_text = "(?s)[a-z/~\"\\\\\n\u{1}é日🦀]{0,6}";
        crate::json::compact::random_json(any::<i32>().prop_map(Value::from), keys_and_text, 5, 6)
    }

    proptest! {
        /// Any subset of a document's pointers, in any layout (compact, indented, with tabs
        /// and blank lines), is found at the line and column where the value was written.
        #[test]
        fn finds_every_value_where_it_was_written(
            value in json(),
            layout in proptest::collection::vec(0usize..5, 1..40),
            pick in proptest::collection::vec(any::<bool>(), 1..40),
        ) {
            const BLANKS: [&str; 5] = ["", " ", "\n", "\n  ", "\t\r\n\n"];
            let mut blanks = layout.iter().map(|&i| BLANKS[i]).cycle();
            let (mut text, mut starts) = (String::new(), Vec::new());
            write_noting(&value, &mut String::new(), &mut text, &mut starts, &mut blanks);
            prop_assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value.clone());
            let position = |at: usize| {
                let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                (text[..at].matches('\n').count() + 1, text[line_start..at].chars().count() + 1)
            };
            let chosen: Vec<&(String, usize)> = starts
                .iter()
                .zip(pick.iter().cycle())
                .filter_map(|(s, &keep)| keep.then_some(s))
                .collect();
            let pointers: Vec<&str> = chosen.iter().map(|(p, _)| p.as_str()).collect();
            let got = locate_all(&text, &pointers);
            prop_assert_eq!(got.len(), chosen.len());
            for (p, at) in chosen {
                prop_assert_eq!(got[p], position(*at), "{} in {}", p, text);
            }
        }
    }

    #[test]
    fn finds_lines_and_columns() {
        let text = "{\n  \"a\": [1, {\"b~/\": \"é\"}],\n  \"c\": \"{\\\"x\\\":1}\"\n}";
        let got = locate_all(text, &["", "/a", "/a/1/b~0~1", "/c#/x", "/missing"]);
        assert_eq!(got[""], (1, 1));
        assert_eq!(got["/a"], (2, 8));
        assert_eq!(got["/a/1/b~0~1"], (2, 20));
        assert_eq!(got["/c#/x"], (3, 8));
        assert!(!got.contains_key("/missing"));
        // After characters of two and three bytes on the same line, a column counts characters.
        assert_eq!(locate_all(r#"{"é日":1,"b":2}"#, &["/b"])["/b"], (1, 13));
    }

    /// A string is skipped a few dozen bytes by hand, then by `memchr2`: an escape on either
    /// side of that seam, or spanning it, still ends the string at its real quote.
    #[test]
    fn long_strings_with_escapes_anywhere_are_skipped_whole() {
        for at in 0..80 {
            for escape in ["\\\"", "\\\\", "\\n", "\\u0022"] {
                let inner = format!("{}{escape}{}{escape}", "x".repeat(at), "y".repeat(80 - at));
                let text = format!(r#"{{"a":"{inner}","b":[1]}}"#);
                let column = text.find("[1]").unwrap() + 1;
                let got = locate_all(&text, &["/b", "/b/0"]);
                assert_eq!(got["/b"], (1, column), "{text}");
                assert_eq!(got["/b/0"], (1, column + 1), "{text}");
            }
        }
    }

    #[test]
    fn a_lone_surrogate_in_a_key_neither_loses_the_place_nor_spins() {
        // Found by the `input` fuzz target: the key could not be unescaped, the scanner lost
        // its place and looped on a `}` where an array item should be.
        let text = r#"{"tools":[{"inputSchema":{"t\udc00ype":"object"}},{"description":"x"}]}"#;
        let got = locate_all(
            text,
            &["/tools/1/description", "/tools/0/inputSchema/t\u{fffd}ype"],
        );
        assert_eq!(got["/tools/1/description"], (1, 66));
        assert_eq!(got["/tools/0/inputSchema/t\u{fffd}ype"], (1, 40));
        // Text that is not JSON at all ends the scan; it never hangs.
        assert!(locate_all("[}}}]]", &["/0/x"]).is_empty());
        let _ = locate_all("{\"a\":[:}]}", &["/a/1", "/b"]);
    }
}
