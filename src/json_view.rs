//! A JSON document read in place, for the audit: each string borrowed from the text unless it
//! has an escape, each object the list of its members in order, nothing hashed.
//!
//! Building `serde_json`'s tree is a third of the cost of auditing a response: every key hashed
//! (SipHash) into an index map, every string allocated and copied, and the whole tree freed
//! again. [`Json`] is read by the same parser ([`crate::json_tree`]) in about half the time
//! (`cargo bench --bench parse`), and what reads a tree through [`crate::json_node::Node`]
//! (the anatomy, the measures, compact JSON) reads it as it reads a `serde_json::Value`. It is
//! the value `serde_json::from_str` gives (what that parser does not read itself is handed to
//! `serde_json`, whose answer is then converted), so a measure is the same on either tree.

use std::borrow::Cow;
use std::vec::Drain;

use rustc_hash::FxHashSet;
use serde_json::{Number, Value};

use crate::json_node::{Members, Node, NodeKind, ReadText};
use crate::json_tree::{self, Build};

/// A JSON value whose strings borrow from the text `'t` where they can.
#[derive(Debug, Clone, PartialEq)]
pub enum Json<'t> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'t, str>),
    Array(Vec<Json<'t>>),
    Object(Object<'t>),
}

/// An object's members in the text's order, each key once.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object<'t> {
    members: Vec<(Cow<'t, str>, Json<'t>)>,
}

/// Objects with more members than this find repeated keys with a hash set, smaller ones by
/// comparing every pair (fewer than 120 comparisons, most settled by the lengths).
const PAIRWISE_UP_TO: usize = 16;

/// `text` as a [`Json`]: the value `serde_json::from_str` reads, and its error.
pub fn parse(text: &str) -> serde_json::Result<Json<'_>> {
    match json_tree::parse_with::<Borrowed>(text) {
        Some(json) => Ok(json),
        None => serde_json::from_str::<Value>(text).map(Json::from),
    }
}

/// The builder behind [`parse`].
enum Borrowed {}

impl<'t> Build<'t> for Borrowed {
    type Value = Json<'t>;
    type Key = Cow<'t, str>;

    #[inline]
    fn null() -> Json<'t> {
        Json::Null
    }
    #[inline]
    fn bool(b: bool) -> Json<'t> {
        Json::Bool(b)
    }
    #[inline]
    fn number(n: Number) -> Json<'t> {
        Json::Number(n)
    }
    #[inline]
    fn string(s: Cow<'t, str>) -> Json<'t> {
        Json::String(s)
    }
    #[inline]
    fn key(s: Cow<'t, str>) -> Cow<'t, str> {
        s
    }
    #[inline]
    fn array(items: Drain<'_, Json<'t>>) -> Json<'t> {
        Json::Array(items.collect())
    }
    #[inline]
    fn object(members: Drain<'_, (Cow<'t, str>, Json<'t>)>) -> Json<'t> {
        let mut members: Vec<_> = members.collect();
        if has_repeated_key(&members) {
            members = keep_last_at_first(members);
        }
        Json::Object(Object { members })
    }
}

fn has_repeated_key(members: &[(Cow<'_, str>, Json<'_>)]) -> bool {
    if members.len() <= PAIRWISE_UP_TO {
        members
            .iter()
            .enumerate()
            .any(|(i, (key, _))| members[..i].iter().any(|(k, _)| k == key))
    } else {
        let mut seen = FxHashSet::with_capacity_and_hasher(members.len(), Default::default());
        !members.iter().all(|(key, _)| seen.insert(&**key))
    }
}

/// Members with every repeated key's last value at its first place, the later ones dropped:
/// what `serde_json` makes of a repeated key.
fn keep_last_at_first<'t>(members: Vec<(Cow<'t, str>, Json<'t>)>) -> Vec<(Cow<'t, str>, Json<'t>)> {
    let mut kept: Vec<(Cow<'t, str>, Json<'t>)> = Vec::with_capacity(members.len());
    for (key, value) in members {
        match kept.iter_mut().find(|(k, _)| *k == key) {
            Some(first) => first.1 = value,
            None => kept.push((key, value)),
        }
    }
    kept
}

impl From<Value> for Json<'static> {
    fn from(value: Value) -> Json<'static> {
        match value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(b),
            Value::Number(n) => Json::Number(n),
            Value::String(s) => Json::String(Cow::Owned(s)),
            Value::Array(items) => Json::Array(items.into_iter().map(Json::from).collect()),
            Value::Object(members) => Json::Object(Object {
                members: members
                    .into_iter()
                    .map(|(k, v)| (Cow::Owned(k), Json::from(v)))
                    .collect(),
            }),
        }
    }
}

impl<'t> ReadText<'t> for Json<'t> {
    fn read(text: &'t str) -> Option<Json<'t>> {
        parse(text).ok()
    }
}

impl<'t> Node for Json<'t> {
    type Members = Object<'t>;

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

impl<'t> Members for Object<'t> {
    type Node = Json<'t>;

    fn len(&self) -> usize {
        self.members.len()
    }

    /// By reading the members in order: the objects of tool results are small, and the large
    /// ones (maps of records) are walked, not looked up.
    fn get(&self, key: &str) -> Option<&Self::Node> {
        self.members.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Self::Node)> {
        self.members.iter().map(|(k, v)| (&**k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The value and the error `serde_json` reads, written out (key order and all).
    fn same_as_serde_json(text: &str) {
        let ours = parse(text)
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
        let json = parse(text).unwrap();
        let Json::Object(members) = &json else {
            panic!("an object")
        };
        let [(plain_key, plain), (_, escaped), (quoted_key, _)] = &members.members[..] else {
            panic!("three members")
        };
        assert!(matches!(plain_key, Cow::Borrowed(_)));
        assert!(matches!(plain, Json::String(Cow::Borrowed("as it is"))));
        assert!(matches!(escaped, Json::String(Cow::Owned(s)) if s == "a\nb"));
        assert!(matches!(quoted_key, Cow::Owned(k) if k == "k\"ey"));
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
            let json = parse(&text).unwrap();
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
        crate::compact::random_json(scalars, text, 4, 20)
    }

    proptest! {
        #[test]
        fn any_value_written_any_way_reads_as_serde_json_reads_it(v in json()) {
            let compact = v.to_string();
            same_as_serde_json(&compact);
            same_as_serde_json(&serde_json::to_string_pretty(&v).unwrap());
            same_as_serde_json(&crate::pyjson::dumps(&v));
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
