//! Finding the list to page: the data of a document (a tool result's JSON text, a JSON-RPC
//! result, or the document itself), then the list in it: at `--path`, the data itself if it is
//! an array, else its longest array (a conventional name settles a tie). A map of records
//! (`{"user-0": {...}, ...}`, see [`crate::json::collection`]) is a list too: its entries are paged
//! in key order, each page a map of the same kind.

use std::borrow::Cow;

use serde_json::Value;
use serde_json::value::RawValue;

use super::PaginateError;
use crate::document::{self, Kind, PartContent, records};
use crate::json::collection::is_record_map;
use crate::json::pointer;
use crate::util::human::type_name;

/// Member names that usually hold a document's main list, preferred when several arrays tie.
const LIST_NAMES: [&str; 12] = [
    "items",
    "results",
    "data",
    "records",
    "entries",
    "rows",
    "bookings",
    "listings",
    "tools",
    "resources",
    "hits",
    "events",
];

/// Where the data holding the list sits in the document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Holder {
    /// The document itself (plain JSON, or a JSON-RPC result at `/result`).
    Document { at: &'static str },
    /// The JSON text of a tool result's content block; `structured` when the result also
    /// carries structuredContent to keep in step.
    ToolText {
        result: &'static str,
        block: usize,
        structured: bool,
    },
}

/// A list found in a document.
#[derive(Clone, Debug)]
pub struct Located<'d> {
    pub(super) holder: Holder,
    pub(super) document: &'d Value,
    /// The data the list is in: the document's own part, or the parsed text of a tool result.
    pub(super) data: Cow<'d, Value>,
    /// JSON pointer of the list inside `data` (empty: `data` is the list).
    pub pointer: String,
    /// When the list is a map of records: its entries in key order.
    pub(super) map: Option<MapEntries>,
    /// When the list is read lazily ([`super::lean`]): its items' JSON texts, each parsed
    /// when a page shows it, and the fingerprint worked out as they were checked.
    pub(super) spans: Option<Spans<'d>>,
    /// When the list is records read from a text that is not JSON (a Python repr, CSV, a
    /// Markdown table): where its rows are, each built when it is wanted (see
    /// [`crate::document::records`]).
    pub(super) rows: Option<records::Index<'d>>,
}

/// A list left as text: the spans of its items and its fingerprint (input order, no filter).
#[derive(Clone, Debug)]
pub(super) struct Spans<'d> {
    pub(super) items: Vec<&'d RawValue>,
    pub(super) fingerprint: String,
}

/// A map of records as a list: keys and records side by side, sorted by key.
#[derive(Clone, Debug)]
pub(super) struct MapEntries {
    pub(super) keys: Vec<String>,
    pub(super) records: Vec<Value>,
}

impl MapEntries {
    fn of(map: &serde_json::Map<String, Value>) -> MapEntries {
        let mut entries: Vec<(&String, &Value)> = map.iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        MapEntries {
            keys: entries.iter().map(|(k, _)| (*k).clone()).collect(),
            records: entries.into_iter().map(|(_, v)| v.clone()).collect(),
        }
    }
}

impl Located<'_> {
    /// How many items the list has.
    pub fn len(&self) -> usize {
        match (&self.spans, &self.rows) {
            (Some(spans), _) => spans.items.len(),
            (_, Some(rows)) => rows.len(),
            _ => self.items().len(),
        }
    }

    /// True when the list has no items.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Item `i` (parsed now when the list is read lazily; its span was checked to parse).
    pub fn item(&self, i: usize) -> Cow<'_, Value> {
        match (&self.spans, &self.rows) {
            (Some(spans), _) => Cow::Owned(
                spans
                    .items
                    .get(i)
                    .and_then(|raw| serde_json::from_str(raw.get()).ok())
                    .unwrap_or_default(),
            ),
            (_, Some(rows)) => Cow::Owned(rows.row(i)),
            _ => Cow::Borrowed(self.items().get(i).unwrap_or(&Value::Null)),
        }
    }

    /// True when the items are read one at a time as they are wanted (a JSON list left as
    /// text, or records in a text that is not JSON): [`Located::items`] is then empty.
    pub fn is_lazy(&self) -> bool {
        self.spans.is_some() || self.rows.is_some()
    }

    /// What the records were read from when the text was not JSON ("a Python list of dicts
    /// with 5 fields").
    pub fn read_from(&self) -> Option<&str> {
        self.rows.as_ref().map(|rows| rows.what.as_str())
    }

    /// Item `i`'s JSON text as the document has it, when the list is read lazily.
    pub fn item_text(&self, i: usize) -> Option<&str> {
        self.spans.as_ref()?.items.get(i).map(|raw| raw.get())
    }

    /// The items, when the list is held parsed (empty for a list read lazily, see
    /// [`Located::is_lazy`]: use [`Located::len`] and [`Located::item`]).
    pub fn items(&self) -> &[Value] {
        if let Some(map) = &self.map {
            return &map.records;
        }
        self.data
            .pointer(&self.pointer)
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// True when the list is a map of records.
    pub fn is_map(&self) -> bool {
        self.map.is_some()
    }

    /// Where the list is, for messages: `/bookings`, or `/result/content/0/text#/bookings`.
    pub fn describe(&self) -> String {
        match &self.holder {
            Holder::Document { at } => {
                pointer::display(&format!("{at}{}", self.pointer)).to_owned()
            }
            Holder::ToolText { result, block, .. } => {
                format!(
                    "{result}/content/{block}/text#{}",
                    pointer::display(&self.pointer)
                )
            }
        }
    }
}

/// Finds the list to page in `doc`: at `path` (relative to the data) if given, else the data
/// itself if it is an array, else its largest array member.
pub fn locate<'d>(doc: &'d Value, path: Option<&str>) -> Result<Located<'d>, PaginateError> {
    let mut anatomy = document::anatomy(doc, "");
    let mut rows = None;
    let (holder, data) = match anatomy.kind {
        Kind::ToolResult => {
            // The parsed text is moved out of the anatomy, not copied: it can be 100 MB (or it
            // is structuredContent's, borrowed).
            let text_block = anatomy.parts.iter_mut().find_map(|p| match &mut p.content {
                PartContent::Text {
                    json: json @ Some(_),
                    ..
                } => block_index(&p.pointer).and_then(|i| json.take().map(|v| (i, v))),
                _ => None,
            });
            // Text that is not JSON may still hold records (a Python repr, CSV, a Markdown
            // table): read as JSON records, unless structuredContent holds a list to page
            // (server-filesystem's `{"content": "<the file>"}` holds none).
            let structured_list = anatomy
                .payload
                .get("structuredContent")
                .is_some_and(|s| s.is_array() || !collections_in(s).is_empty());
            let text_block = text_block.or_else(|| {
                if structured_list {
                    return None;
                }
                anatomy.parts.iter().find_map(|p| match &p.content {
                    PartContent::Text {
                        text, json: None, ..
                    } => {
                        // Its rows stand for the list: the data is the empty list they page.
                        let block = block_index(&p.pointer)?;
                        rows = Some(records::index(text).ok()?);
                        Some((block, Cow::Owned(Value::Array(Vec::new()))))
                    }
                    _ => None,
                })
            });
            match text_block {
                Some((block, data)) => (
                    Holder::ToolText {
                        result: anatomy.payload_pointer,
                        block,
                        structured: anatomy.payload.get("structuredContent").is_some(),
                    },
                    data,
                ),
                None => (
                    Holder::Document {
                        at: anatomy.payload_pointer,
                    },
                    Cow::Borrowed(anatomy.payload),
                ),
            }
        }
        _ => (
            Holder::Document {
                at: anatomy.payload_pointer,
            },
            Cow::Borrowed(anatomy.payload),
        ),
    };
    let pointer = match path {
        Some(p) => {
            let p = if p == "/" { "" } else { p };
            match data.pointer(p) {
                Some(Value::Array(_)) => p.to_owned(),
                Some(Value::Object(m)) if is_record_map(m) => p.to_owned(),
                Some(other) => {
                    return Err(PaginateError::PathNotList {
                        path: p.to_owned(),
                        found: type_name(other),
                    });
                }
                None => {
                    return Err(PaginateError::PathNotFound {
                        path: p.to_owned(),
                        candidates: collections_in(&data).into_iter().map(|(p, _)| p).collect(),
                    });
                }
            }
        }
        None => find_list(&data)?,
    };
    let map = match data.pointer(&pointer) {
        Some(Value::Object(m)) => Some(MapEntries::of(m)),
        _ => None,
    };
    Ok(Located {
        holder,
        document: doc,
        data,
        pointer,
        map,
        spans: None,
        rows,
    })
}

pub(super) fn block_index(pointer: &str) -> Option<usize> {
    // "/result/content/3/text" or "/content/3/text"
    let mut tokens = pointer.rsplit('/');
    tokens.next()?;
    tokens.next()?.parse().ok()
}

/// The collections among the data's members and their members' members, arrays and maps of
/// records: (pointer, length).
fn collections_in(data: &Value) -> Vec<(String, usize)> {
    collections_measured(data, &|_, a| a.len())
}

/// [`collections_in`] with the length of the array at a pointer told by `array_len` (a list
/// read lazily stands in the data as an empty array).
pub(super) fn collections_measured(
    data: &Value,
    array_len: &dyn Fn(&str, &[Value]) -> usize,
) -> Vec<(String, usize)> {
    let collection = |p: &str, v: &Value| match v {
        Value::Array(a) => Some(array_len(p, a)),
        Value::Object(m) if is_record_map(m) => Some(m.len()),
        _ => None,
    };
    let mut out = Vec::new();
    if let Value::Object(members) = data {
        for (k, v) in members {
            let p = pointer::join("", k);
            if let Some(n) = collection(&p, v) {
                out.push((p, n));
            } else if let Value::Object(inner) = v {
                for (k2, v2) in inner {
                    let p2 = pointer::join(&p, k2);
                    if let Some(n) = collection(&p2, v2) {
                        out.push((p2, n));
                    }
                }
            }
        }
    }
    out
}

fn find_list(data: &Value) -> Result<String, PaginateError> {
    find_list_measured(data, &|_, a| a.len())
}

/// [`find_list`] with array lengths told by `array_len`, as [`collections_measured`].
pub(super) fn find_list_measured(
    data: &Value,
    array_len: &dyn Fn(&str, &[Value]) -> usize,
) -> Result<String, PaginateError> {
    match data {
        Value::Array(_) => return Ok(String::new()),
        Value::Object(m) if is_record_map(m) => return Ok(String::new()),
        _ => {}
    }
    let arrays = collections_measured(data, array_len);
    let longest = arrays
        .iter()
        .map(|(_, n)| *n)
        .max()
        .ok_or(PaginateError::NoList)?;
    let best: Vec<&String> = arrays
        .iter()
        .filter(|(_, n)| *n == longest)
        .map(|(p, _)| p)
        .collect();
    if best.len() == 1 {
        return Ok(best[0].clone());
    }
    // A tie: a conventional name settles it, if exactly one has one.
    let named: Vec<&&String> = best
        .iter()
        .filter(|p| LIST_NAMES.iter().any(|n| p.rsplit('/').next() == Some(n)))
        .collect();
    if named.len() == 1 {
        return Ok((*named[0]).clone());
    }
    Err(PaginateError::Ambiguous {
        len: longest,
        candidates: best.into_iter().cloned().collect(),
    })
}
