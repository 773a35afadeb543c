//! One pass over a document's visible JSON: its shape and where its bytes and tokens go.
//!
//! The shape is what the contract limits: nesting depth (the root is depth 0, as in the seed's
//! checks), the longest collection (an array, or a map of records: see [`crate::json::collection`])
//! and the longest string (in characters), each with the JSON pointer where it is, so a finding
//! can point at it.
//!
//! The costs answer "where do the tokens go": every scalar (with its key) is charged to a path
//! pattern in which array indices are `*` (`/bookings/*/notes`) and the keys of a map of
//! records `{key}` (`/users/{key}/name`), so a field repeated across 500 items shows up as one
//! line. Paths inside a JSON text block are written after a `#`:
//! `/result/content/0/text#/bookings/*/notes`. Costs are measured on compact JSON, so the
//! whitespace of a pretty-printed document is the difference between the total and the sum.

pub mod estimate;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher as _};

use rustc_hash::FxHasher;

use crate::json::node::{Members as _, Node, NodeKind};

use crate::document::{self, Anatomy, PartContent, Twin};
use crate::json::compact;
use crate::json::pointer::{PathStack, Seg};
use crate::tokens::TokenCounter;
use crate::tokens::media::MediaRule;

/// Where something is and how big it is.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Extent {
    pub pointer: String,
    pub len: usize,
}

/// The structural limits' measurements.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shape {
    pub depth: usize,
    pub deepest: String,
    pub longest_array: Option<Extent>,
    pub longest_string: Option<Extent>,
}

impl Shape {
    fn merge(&mut self, other: Shape) {
        if other.depth > self.depth {
            self.depth = other.depth;
            self.deepest = other.deepest;
        }
        if longer(&other.longest_array, &self.longest_array) {
            self.longest_array = other.longest_array;
        }
        if longer(&other.longest_string, &self.longest_string) {
            self.longest_string = other.longest_string;
        }
    }
}

fn longer(a: &Option<Extent>, b: &Option<Extent>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.len > b.len,
        (Some(_), None) => true,
        _ => false,
    }
}

/// The measured cost of one path pattern.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PathCost {
    pub path: String,
    /// How many values the pattern matched (items of a list, for a `*` path).
    pub count: usize,
    pub bytes: usize,
    pub tokens: usize,
}

/// Compact JSON text charged to each path pattern, in first-seen order. Patterns are keyed by
/// an id hashed from their segments as the walk goes down, so a pattern's text is built once,
/// when first seen, not at every value.
#[derive(Default)]
struct PathTexts {
    index: HashMap<u64, usize, BuildHasherDefault<FxHasher>>,
    entries: Vec<PathText>,
}

struct PathText {
    path: String,
    count: usize,
    /// The compact JSON charged to the path; empty for a replayed path (see `copy_of`).
    text: Vec<u8>,
    /// For a path replayed from a text block's walk: the entry whose text and costs it has,
    /// so the text is neither copied nor counted twice.
    copy_of: Option<usize>,
    /// Tokens that are not text: images and audio at their fixed cost.
    fixed_tokens: usize,
    /// Wire bytes that are not text: the base64 of images and audio.
    media_bytes: usize,
    /// `"name":` for a member's name charged here: every member that reaches this pattern by
    /// name has that name, so it is escaped once, not at every value.
    name: Vec<u8>,
}

impl PathText {
    fn new(path: String) -> Self {
        PathText {
            path,
            count: 0,
            text: Vec::new(),
            copy_of: None,
            fixed_tokens: 0,
            media_bytes: 0,
            name: Vec::new(),
        }
    }

    /// Charges the key of a member reached by `seg`, `"key":`, and says whether there was one
    /// (an item has none). A member's name is the one its pattern names; the key of a map of
    /// records' entry is data (its pattern says `{key}`), escaped each time.
    fn write_key(&mut self, seg: Seg<'_>) -> bool {
        match seg {
            Seg::Key(k) => {
                if self.name.is_empty() {
                    compact::write_str(&mut self.name, k);
                    self.name.push(b':');
                }
                self.text.extend_from_slice(&self.name);
            }
            Seg::Entry(k) => {
                compact::write_str(&mut self.text, k);
                self.text.push(b':');
            }
            Seg::Index(_) => return false,
        }
        true
    }
}

impl PathTexts {
    fn entry(&mut self, id: u64, path: impl FnOnce() -> String) -> &mut PathText {
        let i = match self.index.get(&id) {
            Some(&i) => i,
            None => {
                self.index.insert(id, self.entries.len());
                self.entries.push(PathText::new(path()));
                self.entries.len() - 1
            }
        };
        &mut self.entries[i]
    }
}

/// Shape and per-path costs of a document's visible parts.
pub struct Profile {
    pub shape: Shape,
    texts: Option<PathTexts>,
}

impl Profile {
    /// The `n` costliest paths, tokens counted with `counter`, most first (ties by path).
    pub fn top_paths(&self, counter: &dyn TokenCounter, n: usize) -> Vec<PathCost> {
        let Some(texts) = &self.texts else {
            return Vec::new();
        };
        // The text's bytes and tokens of each entry, in order: a replayed entry takes its
        // original's, which comes before it.
        let mut measured: Vec<(usize, usize)> = Vec::with_capacity(texts.entries.len());
        for e in &texts.entries {
            let text_cost = match e.copy_of {
                Some(original) => measured[original],
                None => {
                    // serde_json's output: UTF-8, so the quick check passes and nothing is
                    // copied.
                    let text = std::str::from_utf8(&e.text)
                        .map_or_else(|_| String::from_utf8_lossy(&e.text), Into::into);
                    (e.text.len(), counter.count(&text))
                }
            };
            measured.push(text_cost);
        }
        let mut costs: Vec<PathCost> = texts
            .entries
            .iter()
            .zip(measured)
            .map(|(e, (bytes, tokens))| PathCost {
                path: e.path.clone(),
                count: e.count,
                bytes: bytes + e.media_bytes,
                tokens: tokens + e.fixed_tokens,
            })
            .collect();
        costs.sort_by(|a, b| {
            (b.tokens, b.bytes)
                .cmp(&(a.tokens, a.bytes))
                .then_with(|| a.path.cmp(&b.path))
        });
        costs.truncate(n);
        costs
    }
}

/// Measures the shape of one JSON value, pointers relative to its root.
pub fn shape(value: &impl Node) -> Shape {
    let mut walk = Walk::new(None, "");
    walk.value(value, 0, None);
    walk.shape
}

/// Measures every visible part of a document. `with_paths` also collects per-path costs
/// (the costlier half of the work); `media` prices image and audio blocks.
pub fn profile<N: Node + Clone>(
    anatomy: &Anatomy<'_, N>,
    with_paths: bool,
    media: MediaRule,
) -> Profile {
    profile_with(anatomy, with_paths, media, Twins::Replay)
}

/// Whether structuredContent that is a JSON text block's very tree is measured from the text's
/// walk ([`replay`]) or walked again (the oracle the replay is tested against).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Twins {
    Replay,
    #[cfg(test)]
    Walk,
}

/// A JSON text block's walk, kept for structuredContent that is the same tree.
struct Walked<'v, N> {
    tree: &'v N,
    /// The walk's base (`/result/content/0/text#`): every pointer and path it made starts so.
    base: String,
    /// The walk's own shape, before it was merged with the other parts'.
    shape: Shape,
    /// The path texts the walk added (a part's paths are all its own: they start with its base).
    entries: std::ops::Range<usize>,
}

fn profile_with<N: Node + Clone>(
    anatomy: &Anatomy<'_, N>,
    with_paths: bool,
    media: MediaRule,
    twins: Twins,
) -> Profile {
    let mut shape = Shape::default();
    let mut texts = with_paths.then(PathTexts::default);
    let mut walked: Vec<Walked<'_, N>> = Vec::new();
    for part in &anatomy.parts {
        if let PartContent::Json(v) = &part.content
            && twins == Twins::Replay
            && let Some((w, twin)) = walked
                .iter()
                .find_map(|w| document::twin_of(*v, w.tree).map(|t| (w, t)))
        {
            shape.merge(replay(w, twin, &part.pointer, texts.as_mut()));
            continue;
        }
        let json = match &part.content {
            PartContent::Text { json: Some(v), .. } => Some((&**v, format!("{}#", part.pointer))),
            PartContent::Json(v) => Some((*v, part.pointer.clone())),
            PartContent::Raw(_) => Some((anatomy.payload, String::new())),
            PartContent::Text {
                text, json: None, ..
            } => {
                let n = text.chars().count();
                if n > shape.longest_string.as_ref().map_or(0, |e| e.len) {
                    shape.longest_string = Some(Extent {
                        pointer: part.pointer.clone(),
                        len: n,
                    });
                }
                if let Some(t) = texts.as_mut() {
                    let e = t.entry(pattern_id(0, &part.pointer), || part.pointer.clone());
                    e.count += 1;
                    e.text.extend_from_slice(text.as_bytes());
                }
                None
            }
            PartContent::Media { mime, data } => {
                if let Some(t) = texts.as_mut() {
                    let e = t.entry(pattern_id(0, &part.pointer), || part.pointer.clone());
                    e.count += 1;
                    e.fixed_tokens += media.cost(mime, data).tokens as usize;
                    e.media_bytes += data.len();
                }
                None
            }
        };
        if let Some((value, prefix)) = json {
            let first_entry = texts.as_ref().map_or(0, |t| t.entries.len());
            let mut walk = Walk::new(texts.take(), &prefix);
            walk.value(value, 0, None);
            texts = walk.texts;
            if matches!(part.content, PartContent::Text { .. }) {
                walked.push(Walked {
                    tree: value,
                    base: prefix,
                    shape: walk.shape.clone(),
                    entries: first_entry..texts.as_ref().map_or(0, |t| t.entries.len()),
                });
            }
            shape.merge(walk.shape);
        }
    }
    Profile { shape, texts }
}

/// What walking structuredContent at `base` would measure, made from the walk of the text block
/// whose tree it is: the same shape and path texts under `base` instead of the text's base.
/// Through a wrapper everything is one level deeper, and the wrapper's key is charged to the
/// list's own path, as [`Walk::note_key`] charges it. The replayed paths are not indexed: no
/// later part can reach them, every part's paths starting with its own pointer.
fn replay<N>(
    w: &Walked<'_, N>,
    twin: Twin<'_>,
    base: &str,
    texts: Option<&mut PathTexts>,
) -> Shape {
    let base = twin.pointer(base);
    let rebase = |p: &str| crate::json::pointer::rebase(p, &w.base, &base);
    let extent = |e: &Option<Extent>| {
        e.as_ref().map(|e| Extent {
            pointer: rebase(&e.pointer),
            len: e.len,
        })
    };
    let shape = Shape {
        depth: w.shape.depth + twin.depth(),
        // A walk that never went down (a scalar or an empty root) names no deepest place.
        deepest: if w.shape.depth == 0 {
            String::new()
        } else {
            rebase(&w.shape.deepest)
        },
        longest_array: extent(&w.shape.longest_array),
        longest_string: extent(&w.shape.longest_string),
    };
    if let Some(t) = texts {
        if let Twin::Wrapped { key } = twin {
            let mut text = Vec::new();
            compact::write_str(&mut text, key);
            text.extend_from_slice(b":,");
            t.entries.push(PathText {
                text,
                ..PathText::new(base.clone())
            });
        }
        for i in w.entries.clone() {
            let e = &t.entries[i];
            let copy = PathText {
                count: e.count,
                copy_of: Some(e.copy_of.unwrap_or(i)),
                fixed_tokens: e.fixed_tokens,
                media_bytes: e.media_bytes,
                ..PathText::new(rebase(&e.path))
            };
            t.entries.push(copy);
        }
    }
    shape
}

/// A walk keeps its place as a [`PathStack`] and writes a pointer out only when it has
/// something to report, so going down a large document allocates next to nothing.
struct Walk<'v> {
    shape: Shape,
    path: PathStack<'v>,
    /// The pattern id of every level of the path, the root's first.
    ids: Vec<u64>,
    texts: Option<PathTexts>,
}

/// The id of a pattern one segment below `parent` (`*` for every array index).
fn pattern_id(parent: u64, segment: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write_u64(parent);
    h.write(segment.as_bytes());
    h.write_u8(0xff);
    h.finish()
}

impl<'v> Walk<'v> {
    fn new(texts: Option<PathTexts>, base: &str) -> Self {
        Walk {
            shape: Shape::default(),
            path: PathStack::new(base),
            ids: vec![pattern_id(0, base)],
            texts,
        }
    }

    fn exact(&self) -> String {
        self.path.pointer()
    }

    fn charge(&mut self) -> Option<&mut PathText> {
        let id = *self.ids.last().expect("the root id is never popped");
        let path = &self.path;
        self.texts.as_mut().map(|t| t.entry(id, || path.pattern()))
    }

    /// The pattern id one level down by `seg` (the same for every index of an array).
    fn child_id(&self, seg: Seg<'_>) -> u64 {
        let parent = *self.ids.last().expect("the root id is never popped");
        match seg {
            Seg::Key(k) => pattern_id(parent, k),
            Seg::Index(_) => pattern_id(parent, "*"),
            Seg::Entry(_) => pattern_id(parent, crate::json::collection::KEY_PATTERN),
        }
    }

    fn down(&mut self, seg: Seg<'v>, id: u64) {
        self.path.push(seg);
        self.ids.push(id);
    }

    fn up(&mut self) {
        self.path.pop();
        self.ids.pop();
    }

    /// Measures `value`, reached from its parent by `seg` when it is a member (its key is
    /// charged with it; an item's index, or the root, is not charged).
    fn value<N: Node>(&mut self, value: &'v N, depth: usize, seg: Option<Seg<'v>>) {
        if depth > self.shape.depth {
            self.shape.depth = depth;
            self.shape.deepest = self.exact();
        }
        match value.kind() {
            NodeKind::Array(items) if !items.is_empty() => {
                self.note_key(seg);
                if items.len() > self.shape.longest_array.as_ref().map_or(0, |e| e.len) {
                    self.shape.longest_array = Some(Extent {
                        pointer: self.exact(),
                        len: items.len(),
                    });
                }
                let id = self.child_id(Seg::Index(0));
                for (i, item) in items.iter().enumerate() {
                    self.down(Seg::Index(i), id);
                    self.value(item, depth + 1, None);
                    self.up();
                }
            }
            NodeKind::Object(members) if !members.is_empty() => {
                self.note_key(seg);
                let map = crate::json::collection::is_record_map(members);
                if map && members.len() > self.shape.longest_array.as_ref().map_or(0, |e| e.len) {
                    self.shape.longest_array = Some(Extent {
                        pointer: self.exact(),
                        len: members.len(),
                    });
                }
                for (k, v) in members.iter() {
                    // A map's keys are data: they fold like an array's indexes, and each is
                    // charged to its entry's pattern.
                    let seg = if map { Seg::Entry(k) } else { Seg::Key(k) };
                    self.down(seg, self.child_id(seg));
                    self.value(v, depth + 1, Some(seg));
                    self.up();
                }
            }
            scalar => {
                if let NodeKind::String(s) = scalar {
                    let longest = self.shape.longest_string.as_ref().map_or(0, |e| e.len);
                    // A string has at most as many characters as bytes: most cannot win.
                    if s.len() > longest {
                        let n = s.chars().count();
                        if n > longest {
                            self.shape.longest_string = Some(Extent {
                                pointer: self.exact(),
                                len: n,
                            });
                        }
                    }
                }
                if let Some(entry) = self.charge() {
                    entry.count += 1;
                    if let Some(seg) = seg {
                        entry.write_key(seg);
                    }
                    compact::write(&mut entry.text, value);
                    entry.text.push(b',');
                }
            }
        }
    }

    /// A container's key is charged to the container's own pattern.
    fn note_key(&mut self, seg: Option<Seg<'v>>) {
        if let Some(seg) = seg
            && let Some(entry) = self.charge()
            && entry.write_key(seg)
        {
            entry.text.push(b',');
        }
    }
}

/// Runs of base64 at least this long inside text are reported (MG012) and replaced by a
/// descriptor when summarizing.
pub const BASE64_MIN_RUN: usize = 256;

/// A run of base64 inside a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Base64Run<'s> {
    /// Byte offset and length of the run.
    pub start: usize,
    pub len: usize,
    /// The media type of a `data:` URI the run belongs to.
    pub mime: Option<&'s str>,
}

/// The base64 runs of at least [`BASE64_MIN_RUN`] characters in `s` that mix upper case,
/// lower case and digits (so a long word or a row of dashes is not one).
pub fn base64_runs(s: &str) -> Vec<Base64Run<'_>> {
    let b = s.as_bytes();
    let in_alphabet = |i: usize| B64[b[i] as usize] != 0;
    let mut runs = Vec::new();
    // Probe the last byte a run starting at `i` would need: text with a separator every few
    // characters is crossed 256 bytes at a time, and no byte is looked at more than twice.
    // `i` is always where a run could start (the text's start, or just after a separator).
    let mut i = 0;
    while i + BASE64_MIN_RUN <= b.len() {
        let probe = i + BASE64_MIN_RUN - 1;
        if !in_alphabet(probe) {
            i = probe + 1;
            continue;
        }
        let mut start = probe;
        while start > i && in_alphabet(start - 1) {
            start -= 1;
        }
        if start > i {
            i = start;
            continue;
        }
        let mut end = probe + 1;
        while end < b.len() && in_alphabet(end) {
            end += 1;
        }
        let seen = b[start..end]
            .iter()
            .fold(0, |acc, &c| acc | B64[c as usize]);
        if seen == 0b1111 {
            let mime = s[..start]
                .rfind("data:")
                .and_then(|d| s[d + 5..start].split(';').next())
                .filter(|m| !m.is_empty() && m.len() < 100 && !m.contains(char::is_whitespace));
            runs.push(Base64Run {
                start,
                len: end - start,
                mime,
            });
        }
        i = end;
    }
    runs
}

/// Base64 alphabet classes, one lookup per byte: bit 0 base64, 1 upper, 2 lower, 3 digit.
const B64: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = if b.is_ascii_uppercase() {
            0b0011
        } else if b.is_ascii_lowercase() {
            0b0101
        } else if b.is_ascii_digit() {
            0b1001
        } else if matches!(b, b'+' | b'/' | b'=' | b'-' | b'_') {
            0b0001
        } else {
            0
        };
        c += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{anatomy, anatomy_in};
    use crate::tokens::Heuristic;
    use serde_json::{Value, json};

    #[test]
    fn shape_matches_the_seed_definition() {
        // seed_audit.py: root depth 0, every nested value one deeper.
        let v = json!({"a": [1, {"b": "xyz"}], "c": "hello"});
        let s = shape(&v);
        assert_eq!(s.depth, 3);
        assert_eq!(s.deepest, "/a/1/b");
        assert_eq!(
            s.longest_array,
            Some(Extent {
                pointer: "/a".into(),
                len: 2
            })
        );
        assert_eq!(
            s.longest_string,
            Some(Extent {
                pointer: "/c".into(),
                len: 5
            })
        );
        assert_eq!(shape(&json!([])).depth, 0);
    }

    /// The profile with structuredContent measured from its text block's walk, and walked again.
    fn replayed_and_walked(doc: &Value, text: &str) -> [(Shape, Vec<PathCost>); 2] {
        let a = anatomy(doc, text);
        [Twins::Replay, Twins::Walk].map(|twins| {
            let p = profile_with(&a, true, MediaRule::flat(0), twins);
            let paths = p.top_paths(&Heuristic, usize::MAX);
            (p.shape, paths)
        })
    }

    /// The shape and every path's cost, measured on the borrowed tree and on serde_json's,
    /// replaying structuredContent from its text block and walking it again.
    #[test]
    fn the_borrowed_tree_measures_as_serde_json_s() {
        for entry in std::fs::read_dir(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/corpus"
        ))
        .unwrap()
        {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let value: Value = serde_json::from_str(&text).unwrap();
            let arena = bumpalo::Bump::new();
            let json = crate::json::borrowed::parse(&text, &arena).unwrap();
            let (a, b) = (anatomy(&value, &text), anatomy_in(&json, &text, &arena));
            for twins in [Twins::Replay, Twins::Walk] {
                let (p, q) = (
                    profile_with(&a, true, MediaRule::flat(85), twins),
                    profile_with(&b, true, MediaRule::flat(85), twins),
                );
                assert_eq!(p.shape, q.shape);
                assert_eq!(
                    p.top_paths(&Heuristic, usize::MAX),
                    q.top_paths(&Heuristic, usize::MAX)
                );
            }
        }
    }

    #[test]
    fn structured_content_measured_from_its_text_block_is_measured_as_walked() {
        // A real capture: 2,000 items as a JSON text block and again as {"items": [...]}.
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/corpus/paged__tools_call__big__2000.json"
        ))
        .unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        let [replayed, walked] = replayed_and_walked(&doc, &text);
        assert_eq!(replayed, walked);
        assert!(
            walked
                .1
                .iter()
                .any(|p| p.path == "/result/structuredContent/items/*/id")
        );
        // The object itself, with an awkward key on the way.
        let structured = json!({"a/b~": [{"x": "é"}], "n": {"deep": [[1]]}, "s": "long string"});
        let doc = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": structured.to_string()}],
            "structuredContent": structured}});
        let [replayed, walked] = replayed_and_walked(&doc, &doc.to_string());
        assert_eq!(replayed, walked);
    }

    proptest::proptest! {
        #[test]
        fn structured_content_is_measured_as_walked_whatever_the_text(
            (structured, text) in crate::document::structured_and_text()
        ) {
            let doc = json!({"jsonrpc": "2.0", "id": 1, "result": {
                "content": [{"type": "text", "text": text}], "structuredContent": structured}});
            let [replayed, walked] = replayed_and_walked(&doc, &doc.to_string());
            proptest::prop_assert_eq!(replayed, walked);
        }
    }

    #[test]
    fn paths_aggregate_list_items() {
        let v = json!({"bookings": [
            {"id": "b1", "notes": "long long long long text"},
            {"id": "b2", "notes": "more more more more text"}
        ]});
        let text = v.to_string();
        let a = anatomy(&v, &text);
        let p = profile(&a, true, MediaRule::flat(0));
        let top = p.top_paths(&Heuristic, 2);
        assert_eq!(top[0].path, "/bookings/*/notes");
        assert_eq!(top[0].count, 2);
        assert_eq!(top[1].path, "/bookings/*/id");
    }

    #[test]
    fn maps_of_records_fold_their_keys() {
        let users: serde_json::Map<String, Value> = (0..12)
            .map(|i| {
                (
                    format!("user-{i}"),
                    json!({"name": format!("User {i}"), "age": i}),
                )
            })
            .collect();
        let v = json!({"users": users, "total": 12});
        let text = v.to_string();
        let p = profile(&anatomy(&v, &text), true, MediaRule::flat(0));
        let top = p.top_paths(&Heuristic, 3);
        let paths: Vec<(&str, usize)> = top.iter().map(|t| (t.path.as_str(), t.count)).collect();
        // The ids themselves are charged to the entry, as a list item's brackets would be.
        assert_eq!(
            paths,
            [
                ("/users/{key}/name", 12),
                ("/users/{key}", 0),
                ("/users/{key}/age", 12)
            ]
        );
        // Each entry's own key is charged as written (`"user-10":,`), and so is every member's
        // name, though it is escaped once per pattern.
        let bytes = |path: &str| top.iter().find(|t| t.path == path).unwrap().bytes;
        let ids: usize = (0..12).map(|i| format!("\"user-{i}\":,").len()).sum();
        let names: usize = (0..12)
            .map(|i| format!("\"name\":\"User {i}\",").len())
            .sum();
        assert_eq!(bytes("/users/{key}"), ids);
        assert_eq!(bytes("/users/{key}/name"), names);
        let longest = p.shape.longest_array.unwrap();
        assert_eq!((longest.pointer.as_str(), longest.len), ("/users", 12));
    }

    #[test]
    fn json_text_blocks_are_measured_inside() {
        let inner = json!({"rows": [1, 2, 3]}).to_string();
        let v = json!({"content": [{"type": "text", "text": inner}]});
        let text = v.to_string();
        let p = profile(&anatomy(&v, &text), true, MediaRule::flat(0));
        assert_eq!(
            p.shape.longest_array.unwrap().pointer,
            "/content/0/text#/rows"
        );
    }

    #[test]
    fn base64_runs_match_a_byte_by_byte_scan() {
        fn naive(s: &str) -> Vec<(usize, usize)> {
            let b = s.as_bytes();
            let mut out = Vec::new();
            let mut i = 0;
            while i < b.len() {
                if B64[b[i] as usize] == 0 {
                    i += 1;
                    continue;
                }
                let start = i;
                let mut seen = 0;
                while i < b.len() && B64[b[i] as usize] != 0 {
                    seen |= B64[b[i] as usize];
                    i += 1;
                }
                if i - start >= BASE64_MIN_RUN && seen == 0b1111 {
                    out.push((start, i - start));
                }
            }
            out
        }
        let blob = "iVBORw0KGgoAAAANSUhEUgAA".repeat(30);
        let texts = [
            format!("see data:image/png;base64,{blob} and {blob}"),
            blob.clone(),
            "word ".repeat(500),
            format!("{} {blob}x", "a".repeat(300)),
            format!("{}{}", "A1".repeat(100), " b".repeat(200)),
            "x".repeat(255),
        ];
        for t in &texts {
            let fast: Vec<(usize, usize)> =
                base64_runs(t).iter().map(|r| (r.start, r.len)).collect();
            assert_eq!(fast, naive(t), "{}", &t[..t.len().min(60)]);
        }
        assert_eq!(base64_runs(&texts[0])[0].mime, Some("image/png"));
    }
}
