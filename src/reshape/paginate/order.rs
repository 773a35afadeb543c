//! Ordering and filtering items: `--order-by FIELD[:asc|desc]` (dotted for nested fields), the
//! default order (newest first by creation time, FR-006), and sort keys that compare cheaply.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use serde_json::Value;

use super::PaginateError;

/// Fields that mean "when this was created", looked for in this order for the default order
/// (FR-006: creation time, newest first).
pub const CREATION_FIELDS: [&str; 3] = ["createdAt", "created_at", "created"];

/// A sort: a field (dotted path for nested, `price.total`) and a direction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    pub field: String,
    pub descending: bool,
}

impl Order {
    /// `field`, `field:asc` or `field:desc`.
    pub fn parse(text: &str) -> Result<Order, PaginateError> {
        let (field, dir) = match text.rsplit_once(':') {
            Some((f, "asc")) => (f, false),
            Some((f, "desc")) => (f, true),
            Some(_) => return Err(PaginateError::BadOrder(text.to_owned())),
            None => (text, false),
        };
        if field.is_empty() {
            return Err(PaginateError::BadOrder(text.to_owned()));
        }
        Ok(Order {
            field: field.to_owned(),
            descending: dir,
        })
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}",
            self.field,
            if self.descending { "desc" } else { "asc" }
        )
    }
}

/// The value at a dotted path (`price.total`) of an item.
pub(super) fn field<'v>(item: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(item, |v, key| member(v, key))
}

/// A member of an object. Records are small objects: scanning their few entries beats hashing
/// the key, and keeps paging a 100,000-item list close to the cost of parsing it.
pub(super) fn member<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    match v {
        Value::Object(m) if m.len() <= 16 => m.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
        Value::Object(m) => m.get(key),
        _ => None,
    }
}

/// The order used when none is asked for: newest first by creation time, if the items have
/// one; else the input order.
pub fn default_order(items: &[Value]) -> Option<Order> {
    let first = items.iter().find(|i| i.is_object())?;
    CREATION_FIELDS
        .iter()
        .find(|f| member(first, f).is_some())
        .map(|f| Order {
            field: (*f).to_owned(),
            descending: true,
        })
}

/// A sort key, looked up once per item and cheap to compare.
#[derive(Clone, Debug)]
pub(super) enum SortKey<'a> {
    Bool(bool),
    Num(f64),
    /// A string and its first 16 bytes as a big-endian number: comparing the numbers orders
    /// most keys (ISO dates, ids) without touching the strings.
    Str(u128, Cow<'a, str>),
    /// Arrays and objects, compared by their JSON text.
    Other(String),
    /// Missing or null: last, whatever the direction.
    Missing,
}

impl<'a> SortKey<'a> {
    pub(super) fn of(v: Option<&'a Value>) -> Self {
        match v {
            Some(Value::Bool(b)) => SortKey::Bool(*b),
            Some(Value::Number(n)) => SortKey::Num(n.as_f64().unwrap_or(0.0)),
            Some(Value::String(s)) => {
                let mut head = [0u8; 16];
                let n = s.len().min(16);
                head[..n].copy_from_slice(&s.as_bytes()[..n]);
                SortKey::Str(u128::from_be_bytes(head), Cow::Borrowed(s))
            }
            Some(Value::Null) | None => SortKey::Missing,
            Some(other) => SortKey::Other(other.to_string()),
        }
    }

    /// The key holding its own text, for an item that is let go once it is looked at.
    pub(super) fn into_owned(self) -> SortKey<'static> {
        match self {
            SortKey::Bool(b) => SortKey::Bool(b),
            SortKey::Num(n) => SortKey::Num(n),
            SortKey::Str(head, s) => SortKey::Str(head, Cow::Owned(s.into_owned())),
            SortKey::Other(s) => SortKey::Other(s),
            SortKey::Missing => SortKey::Missing,
        }
    }

    fn rank(&self) -> u8 {
        match self {
            SortKey::Bool(_) => 0,
            SortKey::Num(_) => 1,
            SortKey::Str(..) => 2,
            SortKey::Other(_) => 3,
            SortKey::Missing => 4,
        }
    }

    /// Values of one type compare naturally (numbers as numbers, strings by bytes, so ISO
    /// dates sort by time); types in a fixed order; missing last in either direction.
    pub(super) fn compare(&self, other: &Self, descending: bool) -> Ordering {
        let ord = match (self, other) {
            (SortKey::Bool(a), SortKey::Bool(b)) => a.cmp(b),
            (SortKey::Num(a), SortKey::Num(b)) => a.total_cmp(b),
            (SortKey::Str(ha, a), SortKey::Str(hb, b)) => ha.cmp(hb).then_with(|| a.cmp(b)),
            (SortKey::Other(a), SortKey::Other(b)) => a.cmp(b),
            (a, b) if a.rank() == 4 || b.rank() == 4 => return a.rank().cmp(&b.rank()),
            (a, b) => a.rank().cmp(&b.rank()),
        };
        if descending { ord.reverse() } else { ord }
    }
}
