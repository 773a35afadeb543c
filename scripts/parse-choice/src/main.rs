//! Issue 26, point 4: "a measuring pass that does not build trees ... simd-json / sonic-rs tape,
//! or a hand-written scanner if faster; benchmark and choose".
//!
//! Every candidate reads the same files (a directory of captured responses, already in memory)
//! and finds what the seed's checks find (`tests/peers/seed_audit.py`): the nesting depth, the
//! longest array and the longest string in characters, in the response and in the JSON inside
//! each `text` block, as the audit measures both. The candidates must agree on every file
//! (checked before anything is timed), so the figures compare equal work. Each is timed in
//! rounds of one run of every candidate, its fastest run kept: this machine's slow spells then
//! fall on all of them alike.
//!
//!     bash scripts/bench-parse.sh [DIR]
//!
//! The scan is a prototype written for this comparison, not mcpguard's code: it does not
//! validate (a pass built on it would fall back to serde_json for an error's line and column)
//! and measures only the seed's three figures. It looks at a byte at a time; simd-json and
//! sonic-rs find a JSON text's structure 32 or 64 bytes at a time.

use std::time::Instant;

use serde_json::Value;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The seed's three figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Shape {
    depth: usize,
    longest_array: usize,
    longest_string: usize,
}

impl Shape {
    fn max(self, o: Shape) -> Shape {
        Shape {
            depth: self.depth.max(o.depth),
            longest_array: self.longest_array.max(o.longest_array),
            longest_string: self.longest_string.max(o.longest_string),
        }
    }
}

// ---- the tree: serde_json::Value, walked as seed_audit.py walks it -------------------------

fn walk(v: &Value, depth: usize, s: &mut Shape, inner: &mut Shape) {
    s.depth = s.depth.max(depth);
    match v {
        Value::Array(items) => {
            s.longest_array = s.longest_array.max(items.len());
            items.iter().for_each(|x| walk(x, depth + 1, s, inner));
        }
        Value::Object(members) => {
            for (k, x) in members {
                if k == "text"
                    && let Value::String(t) = x
                    && t.trim_start().starts_with(['{', '['])
                    && let Ok(j) = serde_json::from_str::<Value>(t)
                {
                    let mut js = Shape::default();
                    walk(&j, 0, &mut js, &mut Shape::default());
                    *inner = inner.max(js);
                }
                walk(x, depth + 1, s, inner);
            }
        }
        Value::String(t) => s.longest_string = s.longest_string.max(t.chars().count()),
        _ => {}
    }
}

fn tree_serde(b: &[u8]) -> Shape {
    let v: Value = serde_json::from_slice(b).expect("the corpus is JSON");
    let (mut s, mut inner) = (Shape::default(), Shape::default());
    walk(&v, 0, &mut s, &mut inner);
    s.max(inner)
}

// ---- simd-json's tape, walked the same way -------------------------------------------------

/// Walks the value at `nodes[i]`; returns the index after it.
fn tape_walk(
    nodes: &[simd_json::Node<'_>],
    i: usize,
    depth: usize,
    s: &mut Shape,
    inner: &mut Shape,
) -> usize {
    use simd_json::Node;
    s.depth = s.depth.max(depth);
    match nodes[i] {
        Node::Array { len, .. } => {
            s.longest_array = s.longest_array.max(len);
            let mut j = i + 1;
            for _ in 0..len {
                j = tape_walk(nodes, j, depth + 1, s, inner);
            }
            j
        }
        Node::Object { len, .. } => {
            let mut j = i + 1;
            for _ in 0..len {
                let key = nodes[j];
                j += 1;
                if let (Node::String("text"), Node::String(t)) = (key, nodes[j])
                    && t.trim_start().starts_with(['{', '['])
                {
                    let mut copy = t.as_bytes().to_vec();
                    if let Ok(tape) = simd_json::to_tape(&mut copy) {
                        let mut js = Shape::default();
                        tape_walk(&tape.0, 0, 0, &mut js, &mut Shape::default());
                        *inner = inner.max(js);
                    }
                }
                j = tape_walk(nodes, j, depth + 1, s, inner);
            }
            j
        }
        Node::String(t) => {
            s.longest_string = s.longest_string.max(t.chars().count());
            i + 1
        }
        Node::Static(_) => i + 1,
    }
}

fn tape_simd(b: &[u8]) -> Shape {
    let mut copy = b.to_vec();
    let tape = simd_json::to_tape(&mut copy).expect("the corpus is JSON");
    let (mut s, mut inner) = (Shape::default(), Shape::default());
    tape_walk(&tape.0, 0, 0, &mut s, &mut inner);
    s.max(inner)
}

// ---- sonic-rs's own tree ------------------------------------------------------------------------

fn sonic_walk(v: &sonic_rs::Value, depth: usize, s: &mut Shape, inner: &mut Shape) {
    use sonic_rs::{JsonContainerTrait, JsonValueTrait};
    s.depth = s.depth.max(depth);
    if let Some(items) = v.as_array() {
        s.longest_array = s.longest_array.max(items.len());
        items
            .iter()
            .for_each(|x| sonic_walk(x, depth + 1, s, inner));
    } else if let Some(members) = v.as_object() {
        for (k, x) in members.iter() {
            if k == "text"
                && let Some(t) = x.as_str()
                && t.trim_start().starts_with(['{', '['])
                && let Ok(j) = sonic_rs::from_str::<sonic_rs::Value>(t)
            {
                let mut js = Shape::default();
                sonic_walk(&j, 0, &mut js, &mut Shape::default());
                *inner = inner.max(js);
            }
            sonic_walk(x, depth + 1, s, inner);
        }
    } else if let Some(t) = v.as_str() {
        s.longest_string = s.longest_string.max(t.chars().count());
    }
}

fn tree_sonic(b: &[u8]) -> Shape {
    let v: sonic_rs::Value = sonic_rs::from_slice(b).expect("the corpus is JSON");
    let (mut s, mut inner) = (Shape::default(), Shape::default());
    sonic_walk(&v, 0, &mut s, &mut inner);
    s.max(inner)
}

// ---- the scan: one pass over the bytes, no tree ----------------------------------------------

struct Frame {
    array: bool,
    items: usize,
    /// In an object: the next string is a key.
    expect_key: bool,
}

/// Measures a JSON text in one pass. `texts` is where an unescaped `text` string is copied to
/// be scanned in turn. `None` when the text is not structurally JSON.
fn scan(b: &[u8], texts: &mut Vec<u8>) -> Option<(Shape, Shape)> {
    let mut s = Shape::default();
    let mut inner = Shape::default();
    let mut stack: Vec<Frame> = Vec::with_capacity(32);
    let mut i = 0;
    let mut last_key_is_text = false;
    let mut done = false;
    while i < b.len() {
        let c = b[i];
        if matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
            i += 1;
            continue;
        }
        match c {
            b',' => {
                let top = stack.last_mut()?;
                top.expect_key = !top.array;
                i += 1;
                continue;
            }
            b':' => {
                i += 1;
                continue;
            }
            b']' | b'}' => {
                let top = stack.pop()?;
                if top.array != (c == b']') {
                    return None;
                }
                if top.array {
                    s.longest_array = s.longest_array.max(top.items);
                }
                done = stack.is_empty();
                i += 1;
                continue;
            }
            _ => {}
        }
        if done {
            return None; // something after the root value
        }
        // A key, or the start of a value.
        if c == b'"' && stack.last().is_some_and(|f| f.expect_key) {
            let (end, escaped) = string_end(b, i + 1)?;
            last_key_is_text = !escaped && &b[i + 1..end] == b"text";
            stack.last_mut()?.expect_key = false;
            i = end + 1;
            continue;
        }
        s.depth = s.depth.max(stack.len());
        if let Some(top) = stack.last_mut() {
            top.items += 1;
        }
        let is_text = std::mem::take(&mut last_key_is_text);
        match c {
            b'[' | b'{' => {
                stack.push(Frame {
                    array: c == b'[',
                    items: 0,
                    expect_key: c == b'{',
                });
                i += 1;
            }
            b'"' => {
                let (end, escaped) = string_end(b, i + 1)?;
                let raw = &b[i + 1..end];
                // A string has no more characters than its text has bytes: most cannot win,
                // and only a `text` is unescaped for its own sake.
                if escaped && (is_text || raw.len() > s.longest_string) {
                    texts.clear();
                    unescape(raw, texts)?;
                }
                if raw.len() > s.longest_string {
                    let chars = char_count(if escaped { texts } else { raw });
                    s.longest_string = s.longest_string.max(chars);
                }
                if is_text {
                    let body: &[u8] = if escaped { texts } else { raw };
                    let start = body.iter().position(|c| !c.is_ascii_whitespace());
                    if start.is_some_and(|k| matches!(body[k], b'{' | b'[')) {
                        let mut nested = Vec::new();
                        if let Some((js, _)) = scan(body, &mut nested) {
                            inner = inner.max(js);
                        }
                    }
                }
                i = end + 1;
            }
            _ => {
                // A number or a literal: up to the next delimiter.
                while i < b.len()
                    && !matches!(b[i], b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t')
                {
                    i += 1;
                }
            }
        }
        done = stack.is_empty();
    }
    (done && stack.is_empty()).then_some((s, inner))
}

/// Where the string that starts at `from` ends (its closing quote), and whether it has escapes.
/// Only quotes stop the search: a quote after an odd run of backslashes is escaped.
fn string_end(b: &[u8], from: usize) -> Option<(usize, bool)> {
    let mut j = from;
    loop {
        let q = j + memchr::memchr(b'"', &b[j..])?;
        let backslashes = b[from..q].iter().rev().take_while(|&&c| c == b'\\').count();
        if backslashes % 2 == 0 {
            return Some((q, memchr::memchr(b'\\', &b[from..q]).is_some()));
        }
        j = q + 1;
    }
}

/// Characters in UTF-8: the bytes that do not continue one, counted 255 at a time in bytes
/// (which the compiler turns into vector code).
fn char_count(b: &[u8]) -> usize {
    b.chunks(255)
        .map(|c| c.iter().map(|&x| u8::from((x as i8) >= -0x40)).sum::<u8>() as usize)
        .sum()
}

fn hex4(b: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(b.get(..4)?).ok()?;
    u32::from_str_radix(s, 16).ok()
}

/// A JSON string's body, unescaped into `out` as UTF-8.
fn unescape(b: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let mut i = 0;
    while i < b.len() {
        let Some(k) = memchr::memchr(b'\\', &b[i..]) else {
            out.extend_from_slice(&b[i..]);
            break;
        };
        out.extend_from_slice(&b[i..i + k]);
        i += k + 1;
        let e = *b.get(i)?;
        i += 1;
        let c = match e {
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'"' | b'\\' | b'/' => e as char,
            b'u' => {
                let mut u = hex4(&b[i..])?;
                i += 4;
                if (0xD800..0xDC00).contains(&u) && b.get(i..i + 2) == Some(b"\\u") {
                    let lo = hex4(&b[i + 2..])?;
                    if (0xDC00..0xE000).contains(&lo) {
                        u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                        i += 6;
                    }
                }
                char::from_u32(u).unwrap_or('\u{FFFD}')
            }
            _ => return None,
        };
        let mut buf = [0; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
    Some(())
}

fn scanned(b: &[u8]) -> Shape {
    let mut texts = Vec::new();
    let (s, inner) = scan(b, &mut texts).expect("the corpus is JSON");
    s.max(inner)
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: parse-choice DIR");
    let mut files: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .expect("a directory of .json files")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "json").then(|| std::fs::read(p).expect("readable"))
        })
        .collect();
    files.sort();
    let total: usize = files.iter().map(Vec::len).sum();
    for b in &files {
        let tree = tree_serde(b);
        assert_eq!(scanned(b), tree, "the scan and serde_json's tree disagree");
        assert_eq!(
            tape_simd(b),
            tree,
            "simd-json's tape and serde_json's tree disagree"
        );
        assert_eq!(
            tree_sonic(b),
            tree,
            "sonic-rs's tree and serde_json's tree disagree"
        );
    }
    let mb = total as f64 / 1e6;
    println!(
        "{} responses, {mb:.1} MB; every candidate finds the same on every one",
        files.len()
    );
    type Candidate<'a> = (&'a str, &'a dyn Fn(&[u8]) -> usize);
    let shape = |s: Shape| s.depth + s.longest_array + s.longest_string;
    let candidates: [Candidate; 8] = [
        ("serde_json::Value, walked (today's parse and walk)", &|b| {
            shape(tree_serde(b))
        }),
        ("sonic-rs, its own Value, walked", &|b| shape(tree_sonic(b))),
        ("simd-json tape (of a copy of the bytes), walked", &|b| {
            shape(tape_simd(b))
        }),
        ("a hand-written scan, no tree", &|b| shape(scanned(b))),
        ("  serde_json::Value", &|b| {
            serde_json::from_slice::<Value>(b).map_or(0, |v| v.is_object() as usize)
        }),
        (
            "  serde_json into IgnoredAny (validates, builds nothing)",
            &|b| serde_json::from_slice::<serde::de::IgnoredAny>(b).map_or(0, |_| 1),
        ),
        ("  sonic-rs into serde_json::Value", &|b| {
            sonic_rs::from_slice::<Value>(b).map_or(0, |v| v.is_object() as usize)
        }),
        ("  simd-json into serde_json::Value", &|b| {
            let mut copy = b.to_vec();
            simd_json::serde::from_slice::<Value>(&mut copy).map_or(0, |v| v.is_object() as usize)
        }),
    ];
    // Rounds of one run of each, so that a slow spell of the machine falls on all of them.
    const ROUNDS: usize = 7;
    // The candidates before this one do the whole job; the rest parse the response alone.
    const FOR_SCALE: usize = 4;
    let mut best = [f64::MAX; 8];
    for _ in 0..ROUNDS {
        for (k, (_, f)) in candidates.iter().enumerate() {
            let t = Instant::now();
            std::hint::black_box(files.iter().map(|b| f(b)).sum::<usize>());
            best[k] = best[k].min(t.elapsed().as_secs_f64());
        }
    }
    println!(
        "the fastest of {ROUNDS} rounds (each a run of every candidate), one core, in memory:"
    );
    for (k, (name, _)) in candidates.iter().enumerate() {
        if k == FOR_SCALE {
            println!("  for scale, the response alone (not its text's JSON), nothing walked:");
        }
        let times = if k == 0 {
            String::new()
        } else {
            format!("{:.1}x", best[0] / best[k])
        };
        println!(
            "  {name:<58} {:>6.0} MB/s {:>7.3} s {times:>6}",
            mb / best[k],
            best[k]
        );
    }
}
