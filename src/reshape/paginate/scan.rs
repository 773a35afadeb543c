//! One pass over the list before paging: which items pass the filters, every item's sort key,
//! and the fingerprint of what decides offsets, which a cursor carries to detect changed data.

use std::fmt;
use std::ops::Range;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::filter::Where;
use super::locate::Located;
use super::order::{Order, SortKey, field, member};

/// Fields that identify an item, looked for in this order.
const IDENTITY_FIELDS: [&str; 4] = ["id", "uuid", "_id", "key"];

/// A fingerprint of what decides which item sits at which offset: the number of items and, in
/// input order, each item's identity (its `id`, `uuid`, `_id` or `key`, else the whole item),
/// its sort key and the values its filters look at. Adding, removing or reordering items, or
/// changing what they are sorted or filtered by, changes it; editing another field does not,
/// since it moves nothing. 64-bit xxh3, hex.
pub fn fingerprint(items: &[Value], order: Option<&Order>, filters: &Where) -> String {
    let mut buf = Vec::with_capacity(items.len() * 24);
    for item in items {
        let key = order.and_then(|o| field(item, &o.field));
        fingerprint_item(&mut buf, item, key, filters);
    }
    finish_fingerprint(&buf, items.len())
}

pub(super) fn finish_fingerprint(buf: &[u8], len: usize) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&(len as u64).to_le_bytes());
    h.update(buf);
    format!("{:016x}", h.digest())
}

pub(super) fn fingerprint_item(
    buf: &mut Vec<u8>,
    item: &Value,
    sort_key: Option<&Value>,
    filters: &Where,
) {
    let identity = IDENTITY_FIELDS.iter().find_map(|f| member(item, f));
    fingerprint_head(buf, identity.unwrap_or(item), sort_key);
    for key in filters.fields() {
        buf.push(0xFC);
        encode_value(buf, field(item, key).unwrap_or(&Value::Null));
    }
}

/// An item's identity (or the whole item, when it has none) and its sort key.
fn fingerprint_head(buf: &mut Vec<u8>, identity: &Value, sort_key: Option<&Value>) {
    buf.push(0xFE);
    encode_value(buf, identity);
    buf.push(0xFD);
    encode_value(buf, sort_key.unwrap_or(&Value::Null));
}

/// An unambiguous byte encoding of a value (type tags and lengths), for hashing.
fn encode_value(buf: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => buf.push(0),
        Value::Bool(b) => buf.push(if *b { 2 } else { 1 }),
        Value::Number(n) => {
            buf.push(3);
            match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => buf.extend_from_slice(&u.to_le_bytes()),
                (None, Some(i)) => buf.extend_from_slice(&i.to_le_bytes()),
                _ => buf.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_bits().to_le_bytes()),
            }
        }
        Value::String(s) => {
            buf.push(4);
            buf.extend_from_slice(&(s.len() as u64).to_le_bytes());
            buf.extend_from_slice(s.as_bytes());
        }
        Value::Array(a) => {
            buf.push(5);
            buf.extend_from_slice(&(a.len() as u64).to_le_bytes());
            for x in a {
                encode_value(buf, x);
            }
        }
        Value::Object(m) => {
            buf.push(6);
            buf.extend_from_slice(&(m.len() as u64).to_le_bytes());
            for (k, x) in m {
                buf.extend_from_slice(&(k.len() as u64).to_le_bytes());
                buf.extend_from_slice(k.as_bytes());
                encode_value(buf, x);
            }
        }
    }
}

/// The fingerprint of a list left as text (input order, no filters: as [`fingerprint`] makes
/// it), checking on the way that every item parses as `serde_json` parses it; `None` when one
/// does not. Nothing is built but the identities.
pub(super) fn fingerprint_spans(items: &[&RawValue]) -> Option<String> {
    let part = |items: &[&RawValue]| -> Option<Vec<u8>> {
        let mut buf = Vec::with_capacity(items.len() * 24);
        for raw in items {
            fingerprint_span(&mut buf, raw.get())?;
        }
        Some(buf)
    };
    let bytes: usize = items.iter().map(|raw| raw.get().len()).sum();
    let buf = if bytes >= PARALLEL_SPANS_MIN_BYTES && items.len() > 1 {
        let (left, right) = items.split_at(items.len() / 2);
        let (right, left) = crate::util::parallel::join(&|| part(right), || part(left));
        let mut buf = left?;
        buf.extend_from_slice(&right?);
        buf
    } else {
        part(items)?
    };
    Some(finish_fingerprint(&buf, items.len()))
}

/// [`fingerprint_item`] of one item's JSON text, with no sort key and no filters.
fn fingerprint_span(buf: &mut Vec<u8>, text: &str) -> Option<()> {
    let identity = if text.trim_start().starts_with('{') {
        let Identity(found) = serde_json::from_str(text).ok()?;
        found.into_iter().flatten().next()
    } else {
        None
    };
    let identity = match identity {
        Some(id) => id,
        None => serde_json::from_str(text).ok()?,
    };
    fingerprint_head(buf, &identity, None);
    Some(())
}

/// An object's identity fields (by [`IDENTITY_FIELDS`] order), its other members read and
/// checked but not kept.
struct Identity([Option<Value>; IDENTITY_FIELDS.len()]);

impl<'de> Deserialize<'de> for Identity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Field;
        impl<'de> DeserializeSeed<'de> for Field {
            type Value = Option<usize>;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
                d.deserialize_str(self)
            }
        }
        impl Visitor<'_> for Field {
            type Value = Option<usize>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Option<usize>, E> {
                Ok(IDENTITY_FIELDS.iter().position(|f| *f == name))
            }
        }
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = Identity;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Identity, A::Error> {
                let mut found = Identity(Default::default());
                while let Some(field) = map.next_key_seed(Field)? {
                    match field {
                        // A duplicate's last value wins, as in a parsed object.
                        Some(i) => found.0[i] = Some(map.next_value()?),
                        None => map.next_value::<Checked>().map(|_| ())?,
                    }
                }
                Ok(found)
            }
        }
        deserializer.deserialize_map(Members)
    }
}

/// Any JSON value, read as a [`Value`] would be read (numbers, escapes and all), then let go.
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Checked)
    }
}

impl<'de> Visitor<'de> for Checked {
    type Value = Checked;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_str<E>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_unit<E>(self) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        while map.next_entry::<Checked, Checked>()?.is_some() {}
        Ok(Checked)
    }
}

/// Lists left as text of at least this many bytes are checked on two threads.
const PARALLEL_SPANS_MIN_BYTES: usize = 256 * 1024;

/// Lists read lazily at least this long are scanned on two threads (each item is parsed).
const PARALLEL_LAZY_SCAN_MIN: usize = 2_000;

/// [`scan`] of a list read lazily ([`Located::is_lazy`]): each item built, looked at and let
/// go, its sort key kept. The fingerprint is [`fingerprint`]'s of the items built.
pub(super) fn scan_lazy(
    located: &Located<'_>,
    order: Option<&Order>,
    filters: &Where,
) -> (Vec<u32>, Vec<SortKey<'static>>, String) {
    let part = |range: Range<usize>| {
        let mut view = Vec::new();
        let mut keys = Vec::with_capacity(if order.is_some() { range.len() } else { 0 });
        let mut buf = Vec::with_capacity(range.len() * 48);
        for i in range {
            let item = located.item(i);
            let key = order.and_then(|o| field(&item, &o.field));
            fingerprint_item(&mut buf, &item, key, filters);
            if order.is_some() {
                keys.push(SortKey::of(key).into_owned());
            }
            if filters.is_empty() || filters.matches(&item) {
                view.push(i as u32);
            }
        }
        (view, keys, buf)
    };
    let len = located.len();
    let (mut view, keys, buf) = in_halves(len, PARALLEL_LAZY_SCAN_MIN, &part);
    view.shrink_to_fit();
    (view, keys, finish_fingerprint(&buf, len))
}

/// The fingerprint of `located`'s list, however it is held (see [`fingerprint`]).
pub fn fingerprint_of(located: &Located<'_>, order: Option<&Order>, filters: &Where) -> String {
    if located.is_lazy() {
        scan_lazy(located, order, filters).2
    } else {
        fingerprint(located.items(), order, filters)
    }
}

/// Lists at least this long are scanned on two threads.
const PARALLEL_SCAN_MIN: usize = 20_000;

/// One pass over the list: the indices that pass the filters, every item's sort key, and the
/// fingerprint (which needs the same lookups). Reading fields of many small objects is bound
/// by memory latency, so a long list is scanned in two halves at once.
pub(super) fn scan<'a>(
    items: &'a [Value],
    order: Option<&Order>,
    filters: &Where,
) -> (Vec<u32>, Vec<SortKey<'a>>, String) {
    let part = |range: Range<usize>| {
        let base = range.start;
        let items = &items[range];
        let mut view = Vec::with_capacity(items.len());
        let mut keys = Vec::with_capacity(if order.is_some() { items.len() } else { 0 });
        let mut buf = Vec::with_capacity(items.len() * 48);
        for (i, item) in items.iter().enumerate() {
            let key = order.and_then(|o| field(item, &o.field));
            fingerprint_item(&mut buf, item, key, filters);
            if order.is_some() {
                keys.push(SortKey::of(key));
            }
            if filters.is_empty() || filters.matches(item) {
                view.push((base + i) as u32);
            }
        }
        (view, keys, buf)
    };
    let (mut view, mut keys, buf) = in_halves(items.len(), PARALLEL_SCAN_MIN, &part);
    view.shrink_to_fit();
    keys.shrink_to_fit();
    (view, keys, finish_fingerprint(&buf, items.len()))
}

/// What a pass over part of a list found: the indices kept, the sort keys, the fingerprint's
/// bytes.
type Part<K> = (Vec<u32>, Vec<K>, Vec<u8>);

/// `part` of `0..len`, as two halves at once when `len` reaches `parallel_min`, joined in
/// order.
fn in_halves<K: Send>(
    len: usize,
    parallel_min: usize,
    part: &(dyn Fn(Range<usize>) -> Part<K> + Sync),
) -> Part<K> {
    if len < parallel_min {
        return part(0..len);
    }
    let half = len / 2;
    let (right, mut whole) = crate::util::parallel::join(&|| part(half..len), || part(0..half));
    whole.0.extend(right.0);
    whole.1.extend(right.1);
    whole.2.extend_from_slice(&right.2);
    whole
}
