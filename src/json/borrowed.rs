//! A JSON document read in place, for the audit: each string borrowed from the text unless it
//! has an escape, each object the list of its members in order, nothing hashed, and every
//! node in one arena, freed at once.
//!
//! Building `serde_json`'s tree is a third of the cost of auditing a response: every key hashed
//! (SipHash) into an index map, every string allocated and copied, and the whole tree freed
//! again node by node. [`Json`] is read by the same parser ([`crate::json::parse`]) in less than
//! half the time (`cargo bench --bench parse`): its arrays, members and unescaped strings are
//! laid out in a [`Bump`] arena, so building one is a pointer bump and freeing it costs nothing
//! per node. What reads a tree through [`crate::json::node::Node`] (the anatomy, the measures,
//! the rules, compact JSON) reads it as it reads a `serde_json::Value`. It is the value
//! `serde_json::from_str` gives (what that parser does not read itself is handed to
//! `serde_json`, whose answer is then copied in), so a measure is the same on either tree.

use std::borrow::Cow;
use std::vec::Drain;

use bumpalo::Bump;
use rustc_hash::FxHashSet;
use serde_json::{Number, Value};

use crate::json::node::{Members, Node, NodeKind, ReadText};
use crate::json::parse::{self, Build};

/// A JSON value whose strings borrow from the text, or from the arena when they had escapes,
/// and whose arrays and members live in the arena; `'a` is the shorter of the two.
#[derive(Debug, Clone, PartialEq)]
pub enum Json<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(&'a str),
    Array(&'a [Json<'a>]),
    Object(Object<'a>),
}

/// An object's members in the text's order, each key once.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Object<'a> {
    members: &'a [(&'a str, Json<'a>)],
}

/// Objects with more members than this find repeated keys with a hash set, smaller ones by
/// comparing every pair (fewer than 120 comparisons, most settled by the lengths).
const PAIRWISE_UP_TO: usize = 16;

/// `text` as a [`Json`] built in `arena`: the value `serde_json::from_str` reads, and its
/// error.
pub fn parse<'a>(text: &'a str, arena: &'a Bump) -> serde_json::Result<Json<'a>> {
    match parse::parse_with(text, InArena(arena)) {
        Some(json) => Ok(json),
        None => serde_json::from_str::<Value>(text).map(|v| copy_in(&v, arena)),
    }
}

/// The builder behind [`parse`]: what it builds goes in the arena.
struct InArena<'a>(&'a Bump);

impl<'a> InArena<'a> {
    /// A string for the tree: as it is when borrowed (from the text, or from the arena where
    /// [`Build::unescaped`] wrote it), else copied in.
    fn str(&self, s: Cow<'a, str>) -> &'a str {
        match s {
            Cow::Borrowed(s) => s,
            Cow::Owned(s) => self.0.alloc_str(&s),
        }
    }
}

impl<'a> Build<'a> for InArena<'a> {
    type Value = Json<'a>;
    type Key = &'a str;

    #[inline]
    fn null(&self) -> Json<'a> {
        Json::Null
    }
    #[inline]
    fn bool(&self, b: bool) -> Json<'a> {
        Json::Bool(b)
    }
    #[inline]
    fn number(&self, n: Number) -> Json<'a> {
        Json::Number(n)
    }
    #[inline]
    fn string(&self, s: Cow<'a, str>) -> Json<'a> {
        Json::String(self.str(s))
    }
    #[inline]
    fn key(&self, s: Cow<'a, str>) -> &'a str {
        self.str(s)
    }
    /// Into the arena, where it stays: no buffer of its own, nothing copied again.
    fn unescaped(
        &self,
        room: usize,
        unescape: impl FnOnce(&mut [u8]) -> Option<usize>,
    ) -> Option<Cow<'a, str>> {
        let out = self.0.alloc_slice_fill_copy(room, 0u8);
        let len = unescape(out)?;
        std::str::from_utf8(&out[..len]).ok().map(Cow::Borrowed)
    }
    #[inline]
    fn array(&self, items: Drain<'_, Json<'a>>) -> Json<'a> {
        Json::Array(self.0.alloc_slice_fill_iter(items))
    }
    #[inline]
    fn object(&self, mut members: Drain<'_, (&'a str, Json<'a>)>) -> Json<'a> {
        let members = if has_repeated_key(members.as_slice()) {
            self.0
                .alloc_slice_fill_iter(keep_last_at_first(members.by_ref()))
        } else {
            self.0.alloc_slice_fill_iter(members)
        };
        Json::Object(Object { members })
    }
}

fn has_repeated_key(members: &[(&str, Json<'_>)]) -> bool {
    if members.len() <= PAIRWISE_UP_TO {
        members
            .iter()
            .enumerate()
            .any(|(i, (key, _))| members[..i].iter().any(|(k, _)| k == key))
    } else {
        let mut seen = FxHashSet::with_capacity_and_hasher(members.len(), Default::default());
        !members.iter().all(|(key, _)| seen.insert(*key))
    }
}

/// Members with every repeated key's last value at its first place, the later ones dropped:
/// what `serde_json` makes of a repeated key.
fn keep_last_at_first<'a>(
    members: impl Iterator<Item = (&'a str, Json<'a>)>,
) -> Vec<(&'a str, Json<'a>)> {
    let mut kept: Vec<(&'a str, Json<'a>)> = Vec::new();
    for (key, value) in members {
        match kept.iter_mut().find(|(k, _)| *k == key) {
            Some(first) => first.1 = value,
            None => kept.push((key, value)),
        }
    }
    kept
}

/// `serde_json`'s tree copied into the arena.
fn copy_in<'a>(value: &Value, arena: &'a Bump) -> Json<'a> {
    match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(n) => Json::Number(n.clone()),
        Value::String(s) => Json::String(arena.alloc_str(s)),
        Value::Array(items) => {
            Json::Array(arena.alloc_slice_fill_iter(items.iter().map(|v| copy_in(v, arena))))
        }
        Value::Object(members) => Json::Object(Object {
            members: arena.alloc_slice_fill_iter(
                members
                    .iter()
                    .map(|(k, v)| (&*arena.alloc_str(k), copy_in(v, arena))),
            ),
        }),
    }
}

impl<'a> ReadText<'a> for Json<'a> {
    type Reader = &'a Bump;

    fn read(text: &'a str, arena: &'a Bump) -> Option<Json<'a>> {
        parse(text, arena).ok()
    }
}

impl<'a> Node for Json<'a> {
    type Members = Object<'a>;

    fn kind(&self) -> NodeKind<'_, Self> {
        match self {
            Json::Null => NodeKind::Null,
            Json::Bool(b) => NodeKind::Bool(*b),
            Json::Number(n) => NodeKind::Number(n),
            Json::String(s) => NodeKind::String(s),
            Json::Array(items) => NodeKind::Array(items),
            Json::Object(members) => NodeKind::Object(members),
        }
    }
}

impl<'a> Members for Object<'a> {
    type Node = Json<'a>;

    fn len(&self) -> usize {
        self.members.len()
    }

    /// By reading the members in order: the objects of tool results are small, and the large
    /// ones (maps of records) are walked, not looked up.
    fn get(&self, key: &str) -> Option<&Self::Node> {
        self.members.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Self::Node)> {
        self.members.iter().map(|(k, v)| (*k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The value and the error `serde_json` reads, written out (key order and all).
    fn same_as_serde_json(text: &str) {
        let arena = Bump::new();
        let ours = parse(text, &arena)
            .map(|j| j.to_value().to_string())
            .map_err(|e| e.to_string());
        let theirs = serde_json::from_str::<Value>(text)
            .map(|v| v.to_string())
            .map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{}", &text[..text.floor_char_boundary(300)]);
    }

    #[test]
    fn strings_without_escapes_are_borrowed_from_the_text() {
        let text = r#"{"plain": "as it is", "escaped": "a\nb", "k\"ey": 1}"#;
        let arena = Bump::new();
        let json = parse(text, &arena).unwrap();
        let Json::Object(members) = &json else {
            panic!("an object")
        };
        let [(plain_key, plain), (_, escaped), (quoted_key, _)] = members.members else {
            panic!("three members")
        };
        let in_text = |s: &str| text.as_bytes().as_ptr_range().contains(&s.as_ptr());
        let Json::String(plain) = plain else {
            panic!("a string")
        };
        assert!(
            in_text(plain_key) && in_text(plain),
            "borrowed from the text"
        );
        assert_eq!(*plain, "as it is");
        assert!(matches!(escaped, Json::String(s) if *s == "a\nb" && !in_text(s)));
        assert!(*quoted_key == "k\"ey" && !in_text(quoted_key));
    }

    #[test]
    fn a_repeated_key_keeps_its_last_value_at_its_first_place() {
        let many: String = (0..40).map(|i| format!(r#""k{i}": {i}, "#)).collect();
        for text in [
            r#"{"a": 1, "b": 2, "a": 3}"#.to_owned(),
            r#"{"a": 1, "a": 2, "a": {"a": 4, "a": 5}}"#.to_owned(),
            format!(r#"{{{many} "k3": "last", "z": null, "k39": []}}"#),
            format!(r#"{{{many} "end": true}}"#),
        ] {
            same_as_serde_json(&text);
        }
    }

    #[test]
    fn reads_every_capture_as_serde_json_does() {
        for entry in std::fs::read_dir("tests/fixtures/corpus").unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            same_as_serde_json(&text);
            let arena = Bump::new();
            let json = parse(&text, &arena).unwrap();
            let blocks = json.pointer("/result/content").and_then(Node::as_array);
            for text in blocks
                .into_iter()
                .flatten()
                .filter_map(|b| b.get("text").and_then(Node::as_str))
            {
                same_as_serde_json(text);
            }
        }
    }

    #[test]
    fn what_the_parser_leaves_to_serde_json_reads_the_same() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for text in [
            String::new(),
            r#"{"$serde_json::private::RawValue": "1"}"#.into(),
            r#"["\ud800"]"#.into(),
            r#"{"n": 1e400}"#.into(),
            "[1,]".into(),
            deep(120),
            deep(129),
        ] {
            same_as_serde_json(&text);
        }
    }

    fn json() -> impl Strategy<Value = Value> {
        let text = "(?s)[ab\"\\\\/\u{0}-\u{1f}é日🦀]{0,12}";
        let scalars = prop_oneof![
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
        ];
        crate::json::compact::random_json(scalars, text, 4, 20)
    }

    proptest! {
        #[test]
        fn any_value_written_any_way_reads_as_serde_json_reads_it(v in json()) {
            let compact = v.to_string();
            same_as_serde_json(&compact);
            same_as_serde_json(&serde_json::to_string_pretty(&v).unwrap());
            same_as_serde_json(&crate::json::python::dumps(&v));
        }

        /// Keys drawn from a few letters repeat often, in objects small and large.
        #[test]
        fn repeated_keys_read_as_serde_json_reads_them(
            members in proptest::collection::vec(("[a-d]{1,2}", any::<u8>()), 0..40),
        ) {
            let text = format!(
                "{{{}}}",
                members.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect::<Vec<_>>().join(", ")
            );
            same_as_serde_json(&text);
        }
    }
}
