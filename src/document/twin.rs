//! Twins: a JSON text block that writes out `structuredContent` (or the list its one member
//! wraps), found by reading the text against the tree instead of parsing a second tree, so a
//! result that sends its data twice is measured, and charged, once per view.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use crate::json::node::{Members as _, Node};
use crate::json::pointer;

/// What of `structured` a JSON text could be written out from: the object itself for an
/// object, and for an array the one member of a wrapper object (`{"result": [...]}`, as the
/// SDKs wrap a tool's list; structuredContent is always an object).
pub(super) fn written_from<'a, N: Node>(text: &str, structured: &'a N) -> Option<&'a N> {
    match text.trim_start().as_bytes().first() {
        Some(b'{') => Some(structured),
        Some(b'[') => wrapped_list(structured).map(|(_, list)| list),
        _ => None,
    }
}

/// The key and the list of a one-member wrapper object (`{"items": [...]}`).
pub(super) fn wrapped_list<N: Node>(structured: &N) -> Option<(&str, &N)> {
    let wrapper = structured.as_object().filter(|w| w.len() == 1)?;
    let (key, list) = wrapper.iter().next()?;
    list.is_array().then_some((key, list))
}

/// Where a JSON text block's tree sits in structuredContent, when the anatomy borrowed it from
/// there (the same allocation, not only an equal value): a measure of the text is then a measure
/// of structuredContent, at other pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Twin<'a> {
    /// structuredContent itself.
    Whole,
    /// The non-empty list its one member `key` holds (one member: neither a list nor a map of
    /// records itself), one level deeper than in the text.
    Wrapped { key: &'a str },
}

impl Twin<'_> {
    /// Where the tree sits, structuredContent being at `structured`.
    pub fn pointer(self, structured: &str) -> String {
        match self {
            Twin::Whole => structured.to_owned(),
            Twin::Wrapped { key } => pointer::join(structured, key),
        }
    }

    /// How many levels deeper the tree sits in structuredContent than in the text.
    pub fn depth(self) -> usize {
        match self {
            Twin::Whole => 0,
            Twin::Wrapped { .. } => 1,
        }
    }
}

/// How `structured` holds `tree`, a text block's tree that may be borrowed from it.
pub fn twin_of<'a, N: Node>(structured: &'a N, tree: &N) -> Option<Twin<'a>> {
    if std::ptr::eq(structured, tree) {
        return Some(Twin::Whole);
    }
    let (key, list) = wrapped_list(structured)?;
    (std::ptr::eq(list, tree) && list.as_array().is_some_and(|items| !items.is_empty()))
        .then_some(Twin::Wrapped { key })
}

/// Whether a text block's JSON only repeats what `structured` (structuredContent) sends: the
/// same value, or the list its one-member wrapper holds. A tree the anatomy borrowed from
/// structuredContent is known equal without walking it.
pub fn repeats_structured<N: Node>(structured: &N, json: &N) -> bool {
    let same = |a: &N| std::ptr::eq(a, json) || crate::json::node::equal(a, json);
    same(structured) || (json.is_array() && wrapped_list(structured).is_some_and(|(_, l)| same(l)))
}

/// Whether `text` parses to exactly `value`, read without building anything: the same keys in
/// the same order, strings equal, and numbers as `serde_json` would make them (integers by
/// value, floats bit for bit). A duplicate key, another order or anything unreadable is a no,
/// and the text is then parsed on its own as before.
pub(super) fn writes_out<N: Node>(text: &str, value: &N) -> bool {
    let mut reader = serde_json::Deserializer::from_str(text);
    Same(value).deserialize(&mut reader).is_ok() && reader.end().is_ok()
}

/// A seed that reads a JSON value and fails at the first thing that differs from its own.
pub(super) struct Same<'v, N>(&'v N);

impl<'de, N: Node> DeserializeSeed<'de> for Same<'_, N> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, reader: D) -> Result<(), D::Error> {
        reader.deserialize_any(self)
    }
}

/// The error that stops the reading at a difference (never shown).
pub(super) fn differs<E: de::Error>() -> E {
    E::custom("differs")
}

pub(super) fn same_or_differs<E: de::Error>(same: bool) -> Result<(), E> {
    if same { Ok(()) } else { Err(differs()) }
}

impl<'de, N: Node> Visitor<'de> for Same<'_, N> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        same_or_differs(self.0.is_null())
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<(), E> {
        same_or_differs(self.0.as_bool() == Some(b))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<(), E> {
        same_or_differs(self.0.as_number() == Some(&Number::from(n)))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<(), E> {
        same_or_differs(self.0.as_number() == Some(&Number::from(n)))
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<(), E> {
        // Bit for bit: -0.0 == 0.0, but the two are written differently.
        let float = self.0.as_number().filter(|n| n.is_f64());
        same_or_differs(float.and_then(Number::as_f64).map(f64::to_bits) == Some(x.to_bits()))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        same_or_differs(self.0.as_str() == Some(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        let expected = self.0.as_array().ok_or_else(differs)?;
        for item in expected {
            items.next_element_seed(Same(item))?.ok_or_else(differs)?;
        }
        same_or_differs(items.next_element::<IgnoredAny>()?.is_none())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<(), A::Error> {
        let expected = self.0.as_object().ok_or_else(differs)?;
        for (key, value) in expected.iter() {
            members.next_key_seed(Key(key))?.ok_or_else(differs)?;
            members.next_value_seed(Same(value))?;
        }
        same_or_differs(members.next_key::<IgnoredAny>()?.is_none())
    }
}

/// A seed that reads an object's key and fails unless it is this one.
pub(super) struct Key<'k>(&'k str);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, reader: D) -> Result<(), D::Error> {
        reader.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        same_or_differs(self.0 == s)
    }
}
