//! JSON Pointer (RFC 6901) building, for findings and reports that name a place in a document.
//!
//! Two flavours: an exact pointer (`/bookings/3/notes`) and a pattern where every array index is
//! `*` (`/bookings/*/notes`), which is how per-path costs are aggregated across a list's items.

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
                    p.push_str(crate::collection::KEY_PATTERN);
                }
            }
        }
        p
    }
}

/// Where each of `pointers` starts in the JSON `text`: 1-based line and column (in characters),
/// found in one pass over the text. A pointer into a JSON text block (`.../text#/rows/3`) is
/// located at the string that holds the block. Pointers that are not in the text are left out.
pub fn locate_all(
    text: &str,
    pointers: &[&str],
) -> std::collections::HashMap<String, (usize, usize)> {
    use std::collections::{HashMap, HashSet};
    let wanted: HashSet<&str> = pointers
        .iter()
        .map(|p| p.split_once('#').map_or(*p, |(outer, _)| outer))
        .collect();
    let mut found: HashMap<String, (usize, usize)> = HashMap::new();
    if wanted.is_empty() {
        return found;
    }
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        i: 0,
        line: 1,
        line_start: 0,
    };
    let mut path = String::new();
    scanner.value(&mut path, &wanted, &mut found, 0);
    let mut out = HashMap::new();
    for p in pointers {
        let outer = p.split_once('#').map_or(*p, |(outer, _)| outer);
        if let Some(&at) = found.get(outer) {
            out.insert((*p).to_owned(), at);
        }
    }
    out
}

/// A forgiving JSON walker that only tracks where values start; the text has already been
/// parsed, so it never needs to report errors (on bad input it stops).
struct Scanner<'t> {
    bytes: &'t [u8],
    i: usize,
    line: usize,
    line_start: usize,
}

impl Scanner<'_> {
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

    fn column(&self) -> usize {
        // Characters, not bytes: count the UTF-8 lead bytes since the line start.
        self.bytes[self.line_start..self.i]
            .iter()
            .filter(|&&b| (b & 0xC0) != 0x80)
            .count()
            + 1
    }

    /// Reads a string, returning its unescaped content only when `keep` (keys).
    fn string(&mut self, keep: bool) -> Option<String> {
        let start = self.i + 1;
        self.i += 1;
        let mut escaped = false;
        while let Some(&b) = self.bytes.get(self.i) {
            self.i += 1;
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => {
                    if !keep {
                        return None;
                    }
                    // As the document was read: a lone surrogate escape is U+FFFD.
                    let raw = std::str::from_utf8(&self.bytes[start - 1..self.i]).ok()?;
                    return crate::input::parse_json::<String>(raw).ok();
                }
                _ => {}
            }
        }
        None
    }

    fn value(
        &mut self,
        path: &mut String,
        wanted: &std::collections::HashSet<&str>,
        found: &mut std::collections::HashMap<String, (usize, usize)>,
        depth: usize,
    ) {
        self.skip_ws();
        if wanted.contains(path.as_str()) {
            found.insert(path.clone(), (self.line, self.column()));
            if found.len() == wanted.len() {
                self.i = self.bytes.len();
                return;
            }
        }
        let Some(&b) = self.bytes.get(self.i) else {
            return;
        };
        match b {
            b'{' if depth < 256 => {
                self.i += 1;
                loop {
                    self.skip_ws();
                    match self.bytes.get(self.i) {
                        Some(b'}') => {
                            self.i += 1;
                            return;
                        }
                        Some(b',') => self.i += 1,
                        Some(b'"') => {
                            let Some(key) = self.string(true) else { return };
                            self.skip_ws();
                            if self.bytes.get(self.i) == Some(&b':') {
                                self.i += 1;
                            }
                            let len = path.len();
                            push_key(path, &key);
                            let before = self.i;
                            self.value(path, wanted, found, depth + 1);
                            path.truncate(len);
                            if self.i == before {
                                return; // Nothing read: stop rather than spin.
                            }
                        }
                        _ => return,
                    }
                }
            }
            b'[' if depth < 256 => {
                self.i += 1;
                let mut index = 0;
                loop {
                    self.skip_ws();
                    match self.bytes.get(self.i) {
                        Some(b']') => {
                            self.i += 1;
                            return;
                        }
                        Some(b',') => self.i += 1,
                        Some(_) => {
                            let len = path.len();
                            push_index(path, index);
                            index += 1;
                            let before = self.i;
                            self.value(path, wanted, found, depth + 1);
                            path.truncate(len);
                            if self.i == before {
                                return; // Nothing read: stop rather than spin.
                            }
                        }
                        None => return,
                    }
                }
            }
            b'"' => {
                self.string(false);
            }
            _ => {
                while let Some(&c) = self.bytes.get(self.i) {
                    if matches!(c, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                        break;
                    }
                    self.i += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod locate_tests {
    use super::*;

    #[test]
    fn finds_lines_and_columns() {
        let text = "{\n  \"a\": [1, {\"b~/\": \"é\"}],\n  \"c\": \"{\\\"x\\\":1}\"\n}";
        let got = locate_all(text, &["", "/a", "/a/1/b~0~1", "/c#/x", "/missing"]);
        assert_eq!(got[""], (1, 1));
        assert_eq!(got["/a"], (2, 8));
        assert_eq!(got["/a/1/b~0~1"], (2, 20));
        assert_eq!(got["/c#/x"], (3, 8));
        assert!(!got.contains_key("/missing"));
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
