//! Parsing a response without building what a preview will never show.
//!
//! A preview shows at most maxArrayItems items of any list, so every array is parsed up to a
//! cap and the rest of it is only skimmed: its length is counted, and the base64 and empty
//! members a bloat fix would remove are measured, but no value is built. A 100 MB list of
//! records costs its text and a few records, not a tree five to ten times its size.
//!
//! A map of records (`{"user-0": {...}, ...}`, see [`crate::json::collection`]) is a list too: once
//! its first entries show it is one, the rest are skimmed and counted the same way.
//!
//! The full length of a cut array is kept beside the tree, keyed by the address of the
//! array's buffer: it stays put while the tree is moved (only the `Vec` header moves), the
//! summarizer never grows or clones a cut array, and a cut array is never empty (its buffer is
//! a real allocation), so the key is unique. A cut map is keyed the same way by its first
//! key's buffer (never empty: a map whose first key is "" is not cut).

use std::collections::HashMap;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::json::compact;
use crate::measure;

/// Full lengths of the arrays a parse cut short.
#[derive(Clone, Debug, Default)]
pub struct Lengths(HashMap<usize, usize>);

impl Lengths {
    /// How many items `list` had in the input.
    pub fn of(&self, list: &[Value]) -> usize {
        if list.is_empty() {
            return 0;
        }
        self.0
            .get(&(list.as_ptr() as usize))
            .copied()
            .unwrap_or(list.len())
    }

    /// How many entries `map` had in the input.
    pub fn of_map(&self, map: &Map<String, Value>) -> usize {
        map.keys()
            .next()
            .filter(|k| !k.is_empty())
            .and_then(|k| self.0.get(&(k.as_ptr() as usize)))
            .copied()
            .unwrap_or(map.len())
    }

    /// Records that `list` holds the first items of a list of `len`.
    pub fn record(&mut self, list: &[Value], len: usize) {
        if len > list.len() && !list.is_empty() {
            self.0.insert(list.as_ptr() as usize, len);
        }
    }

    /// True when some array or map was cut.
    pub fn any(&self) -> bool {
        !self.0.is_empty()
    }
}

/// What the skimmed parts held that a bloat fix would remove.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skimmed {
    /// Characters of base64 runs (MG012) in skimmed strings.
    pub base64_chars: u64,
    /// Bytes of null, "", [] and {} members (with their keys) in skimmed objects.
    pub empty_bytes: u64,
}

/// Parses JSON with every array cut to `cap` items.
pub struct Sampler {
    cap: usize,
    pub lengths: Lengths,
    pub skimmed: Skimmed,
}

impl Sampler {
    pub fn new(cap: usize) -> Sampler {
        Sampler {
            cap: cap.max(1),
            lengths: Lengths::default(),
            skimmed: Skimmed::default(),
        }
    }

    /// The most items an array keeps.
    pub fn cap(&self) -> usize {
        self.cap
    }

    pub fn parse(&mut self, text: &str) -> Result<Value, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(text);
        let value = Build(self).deserialize(&mut de)?;
        de.end()?;
        Ok(value)
    }
}

/// Builds a value, cutting arrays.
struct Build<'s>(&'s mut Sampler);

impl<'de> DeserializeSeed<'de> for Build<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Build<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    crate::json::large::visit_scalars!();

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let cap = self.0.cap;
        let mut items = Vec::new();
        while items.len() < cap {
            match seq.next_element_seed(Build(&mut *self.0))? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
        let mut len = items.len();
        while seq.next_element_seed(Skim(&mut *self.0))?.is_some() {
            len += 1;
        }
        if len > items.len() {
            items.shrink_to_fit();
            self.0.lengths.0.insert(items.as_ptr() as usize, len);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let cap = self.0.cap.max(crate::json::collection::MIN_ENTRIES);
        let mut out = Map::new();
        let mut read = 0;
        while read < cap {
            let Some(key) = map.next_key::<String>()? else {
                return Ok(Value::Object(out));
            };
            let value = map.next_value_seed(Build(&mut *self.0))?;
            out.insert(key, value);
            read += 1;
        }
        let cut = crate::json::collection::is_record_map(&out)
            && out.keys().next().is_some_and(|k| !k.is_empty());
        if !cut {
            // An object with many fields, not records: built whole.
            while let Some(key) = map.next_key::<String>()? {
                let value = map.next_value_seed(Build(&mut *self.0))?;
                out.insert(key, value);
            }
            return Ok(Value::Object(out));
        }
        let mut len = out.len();
        while map.next_key::<KeyLen>()?.is_some() {
            map.next_value_seed(Skim(&mut *self.0))?;
            len += 1;
        }
        if len > out.len()
            && let Some(first) = out.keys().next()
        {
            self.0.lengths.0.insert(first.as_ptr() as usize, len);
        }
        Ok(Value::Object(out))
    }
}

/// Skims a value: nothing is built; returns the compact size of the value when it is empty
/// (null, "", [], {}), for the drop-empty saving.
struct Skim<'s>(&'s mut Sampler);

impl<'de> DeserializeSeed<'de> for Skim<'_> {
    type Value = Option<u64>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<u64>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skim<'_> {
    type Value = Option<u64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Option<u64>, E> {
        Ok(None)
    }
    fn visit_str<E>(self, v: &str) -> Result<Option<u64>, E> {
        if v.len() >= measure::BASE64_MIN_RUN {
            self.0.skimmed.base64_chars += measure::base64_runs(v)
                .iter()
                .map(|r| r.len as u64)
                .sum::<u64>();
        }
        Ok(v.is_empty().then_some(2))
    }
    fn visit_unit<E>(self) -> Result<Option<u64>, E> {
        Ok(Some(4))
    }
    fn visit_none<E>(self) -> Result<Option<u64>, E> {
        Ok(Some(4))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<u64>, A::Error> {
        let mut empty = true;
        while seq.next_element_seed(Skim(&mut *self.0))?.is_some() {
            empty = false;
        }
        Ok(empty.then_some(2))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<u64>, A::Error> {
        let mut empty = true;
        while let Some(key) = map.next_key::<KeyLen>()? {
            empty = false;
            if let Some(len) = map.next_value_seed(Skim(&mut *self.0))? {
                // "key":value,
                self.0.skimmed.empty_bytes += key.0 + 2 + 1 + len + 1;
            }
        }
        Ok(empty.then_some(2))
    }
}

/// A key's length, read without keeping it.
struct KeyLen(u64);

impl<'de> serde::Deserialize<'de> for KeyLen {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<KeyLen, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = KeyLen;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E>(self, v: &str) -> Result<KeyLen, E> {
                Ok(KeyLen(v.len() as u64))
            }
        }
        d.deserialize_str(V)
    }
}

/// The compact size `value` had in the input: cut arrays count at their full length, each
/// left-out item the size of the average kept one.
pub fn full_len(value: &Value, lengths: &Lengths) -> usize {
    match value {
        Value::Array(a) if !a.is_empty() => {
            let inner = a.iter().map(|v| full_len(v, lengths)).sum();
            compact::container_len(a.len(), inner) * lengths.of(a) / a.len()
        }
        Value::Object(m) if !m.is_empty() => {
            let inner = m
                .iter()
                .map(|(k, v)| compact::member_len(k, full_len(v, lengths)))
                .sum();
            compact::container_len(m.len(), inner) * lengths.of_map(m) / m.len()
        }
        other => compact::len(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_are_cut_and_their_lengths_kept() {
        let text = r#"{"items":[1,2,3,4,5,{"a":null,"b":"","c":[{}]}],"small":[1,2],"nested":[[1,2,3,4]]}"#;
        let mut s = Sampler::new(3);
        let v = s.parse(text).unwrap();
        let items = v["items"].as_array().unwrap();
        assert_eq!(items.len(), 3);
        assert_eq!(s.lengths.of(items), 6);
        assert_eq!(s.lengths.of(v["small"].as_array().unwrap()), 2);
        assert_eq!(s.lengths.of(v["nested"][0].as_array().unwrap()), 4);
        // "a":null, "b":"", and the {} inside c's skimmed array is an item, not a member.
        assert_eq!(s.skimmed.empty_bytes, 9 + 7);
        // Moving the tree keeps the lengths.
        let moved = Box::new(v);
        assert_eq!(s.lengths.of(moved["items"].as_array().unwrap()), 6);
    }

    #[test]
    fn same_tree_as_serde_json_when_nothing_is_cut() {
        let text = r#"{"a":[1,-2,3.5,1e300,"x\u00e9\n"],"b":{"c":true,"d":null}}"#;
        let mut s = Sampler::new(10);
        assert_eq!(
            s.parse(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
        assert!(!s.lengths.any());
    }

    #[test]
    fn errors_and_depth_are_serde_json_s() {
        let mut s = Sampler::new(10);
        assert!(s.parse("{\"a\": [1, 2,]}").is_err());
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        let err = s.parse(&deep).unwrap_err();
        assert!(
            err.to_string().starts_with("recursion limit exceeded"),
            "{err}"
        );
    }
}
