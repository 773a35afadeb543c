//! Paging a list held in a document: find the list, filter and order it, cut one page, and
//! sign a cursor for the next (seed 000 US1, FR-001..008; seed 002 PaginatedResponse).
//!
//! The list is found in the document's data: the parsed JSON text of an MCP tool result, a
//! JSON-RPC result, or the document itself. The page keeps the document's shape (FR-033: new
//! fields are additive): the list is replaced by the page and `nextCursor` and `meta` are added
//! beside it; a bare array becomes `{items, nextCursor, meta}`. A tool result comes back as a
//! tool result, its `structuredContent` kept in step with its text.
//!
//! A cursor binds the order, the filters and a fingerprint of the list, so a cursor replayed
//! against other options or changed data is refused rather than silently skipping or repeating
//! items. [`Pager`] holds the ordered list, so walking every page is linear in the list's size.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::cursor::{self, Decoded, Payload, Secrets, Verdict};
use crate::document::{self, Kind, PartContent};
use crate::pointer;
use crate::tokens::Tokenizer;

/// The largest page anyone may ask for (FR-002), whatever the config says.
pub const ABSOLUTE_MAX_PAGE_SIZE: usize = 200;

/// Fields that mean "when this was created", looked for in this order for the default order
/// (FR-006: creation time, newest first).
pub const CREATION_FIELDS: [&str; 3] = ["createdAt", "created_at", "created"];

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

/// Why a page could not be made. [`PaginateError::is_refusal`] separates a cursor or request
/// that was refused (exit 1) from a job that could not be done (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum PaginateError {
    #[error("no list in this document; point at one with --path /json/pointer")]
    NoList,
    #[error("several lists of {len} items ({}); choose one with --path", candidates.join(", "))]
    Ambiguous { len: usize, candidates: Vec<String> },
    #[error("--path {path}: nothing there; the lists in this document are at: {}", if candidates.is_empty() { "(none)".to_owned() } else { candidates.join(", ") })]
    PathNotFound {
        path: String,
        candidates: Vec<String>,
    },
    #[error("--path {path}: that is {found}, not a list")]
    PathNotList { path: String, found: &'static str },
    #[error("limit must be at least 1")]
    LimitZero,
    #[error("limit exceeds maximum of {max}")]
    LimitTooLarge { max: usize },
    #[error("--order-by {0}: expected FIELD, FIELD:asc or FIELD:desc")]
    BadOrder(String),
    #[error("--filter {0}: expected KEY=VALUE")]
    BadFilter(String),
    #[error("{0}")]
    Cursor(cursor::Malformed),
    /// A cursor that decoded but did not pass its checks, with the time it was issued.
    #[error("{}", cursor_refusal(.0, .1))]
    Refused(Verdict, f64),
    #[error("this cursor is for a {0}, not a page of a list")]
    WrongKind(String),
    #[error(
        "this cursor was issued for {what} {issued}; this request has {requested}. Repeat the first request's {flag}, or start again without --cursor"
    )]
    Mismatch {
        what: &'static str,
        flag: &'static str,
        issued: String,
        requested: String,
    },
    #[error(
        "data changed since this cursor was issued; re-query from the start (run without --cursor)"
    )]
    DataChanged,
    #[error("the cursor's offset {offset} is past the end of the list ({total} items)")]
    PastEnd { offset: u64, total: usize },
}

impl PaginateError {
    /// True for a refused cursor or request (exit 1); false when the job could not be done.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            PaginateError::Cursor(_)
                | PaginateError::Refused(..)
                | PaginateError::WrongKind(_)
                | PaginateError::Mismatch { .. }
                | PaginateError::DataChanged
                | PaginateError::PastEnd { .. }
        )
    }
}

fn cursor_refusal(verdict: &Verdict, issued: &f64) -> String {
    match verdict {
        Verdict::BadSignature => "cursor signature does not verify: it was changed, or signed with another secret; start again without --cursor".to_owned(),
        Verdict::Expired { age_seconds, ttl_seconds } => format!(
            "cursor expired: issued {} ({} ago) and valid for {} (cursorTtlSeconds); start again from the first page (run without --cursor)",
            cursor::iso_time(*issued),
            cursor::human_span(*age_seconds),
            cursor::human_span(*ttl_seconds)
        ),
        Verdict::FromTheFuture { ahead_seconds } => format!(
            "cursor is dated {} in the future; check this machine's clock, or start again without --cursor",
            cursor::human_span(*ahead_seconds)
        ),
        Verdict::Malformed { reason } => format!("malformed cursor: {reason}"),
        other => format!("cursor refused: {}", other.name()),
    }
}

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

/// `KEY=VALUE` pairs into a filter map.
pub fn parse_filters(pairs: &[String]) -> Result<BTreeMap<String, String>, PaginateError> {
    pairs
        .iter()
        .map(|p| match p.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
            _ => Err(PaginateError::BadFilter(p.clone())),
        })
        .collect()
}

/// Where the data holding the list sits in the document.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Holder {
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
    holder: Holder,
    document: &'d Value,
    /// The data the list is in: the document's own part, or the parsed text of a tool result.
    data: Cow<'d, Value>,
    /// JSON pointer of the list inside `data` (empty: `data` is the list).
    pub pointer: String,
}

impl Located<'_> {
    pub fn items(&self) -> &[Value] {
        self.data
            .pointer(&self.pointer)
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
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
    let anatomy = document::anatomy(doc, "");
    let (holder, data) = match anatomy.kind {
        Kind::ToolResult => {
            let text_block = anatomy.parts.iter().find_map(|p| match &p.content {
                PartContent::Text { json: Some(v), .. } => {
                    block_index(&p.pointer).map(|i| (i, v.clone()))
                }
                _ => None,
            });
            match text_block {
                Some((block, data)) => (
                    Holder::ToolText {
                        result: anatomy.payload_pointer,
                        block,
                        structured: anatomy.payload.get("structuredContent").is_some(),
                    },
                    Cow::Owned(data),
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
                Some(other) => {
                    return Err(PaginateError::PathNotList {
                        path: p.to_owned(),
                        found: type_name(other),
                    });
                }
                None => {
                    return Err(PaginateError::PathNotFound {
                        path: p.to_owned(),
                        candidates: arrays_in(&data).into_iter().map(|(p, _)| p).collect(),
                    });
                }
            }
        }
        None => find_list(&data)?,
    };
    Ok(Located {
        holder,
        document: doc,
        data,
        pointer,
    })
}

fn block_index(pointer: &str) -> Option<usize> {
    // "/result/content/3/text" or "/content/3/text"
    let mut tokens = pointer.rsplit('/');
    tokens.next()?;
    tokens.next()?.parse().ok()
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Arrays among the data's members and their members' members: (pointer, length).
fn arrays_in(data: &Value) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    if let Value::Object(members) = data {
        for (k, v) in members {
            let p = pointer::join("", k);
            match v {
                Value::Array(a) => out.push((p, a.len())),
                Value::Object(inner) => {
                    for (k2, v2) in inner {
                        if let Value::Array(a) = v2 {
                            out.push((pointer::join(&p, k2), a.len()));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

fn find_list(data: &Value) -> Result<String, PaginateError> {
    if data.is_array() {
        return Ok(String::new());
    }
    let arrays = arrays_in(data);
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

/// Fields that identify an item, looked for in this order.
const IDENTITY_FIELDS: [&str; 4] = ["id", "uuid", "_id", "key"];

/// A fingerprint of what decides which item sits at which offset: the number of items and, in
/// input order, each item's identity (its `id`, `uuid`, `_id` or `key`, else the whole item),
/// its sort key and the values its filters look at. Adding, removing or reordering items, or
/// changing what they are sorted or filtered by, changes it; editing another field does not,
/// since it moves nothing. 64-bit xxh3, hex.
pub fn fingerprint(
    items: &[Value],
    order: Option<&Order>,
    filters: &BTreeMap<String, String>,
) -> String {
    let mut buf = Vec::with_capacity(items.len() * 24);
    for item in items {
        let key = order.and_then(|o| field(item, &o.field));
        fingerprint_item(&mut buf, item, key, filters);
    }
    finish_fingerprint(&buf, items.len())
}

fn finish_fingerprint(buf: &[u8], len: usize) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&(len as u64).to_le_bytes());
    h.update(buf);
    format!("{:016x}", h.digest())
}

fn fingerprint_item(
    buf: &mut Vec<u8>,
    item: &Value,
    sort_key: Option<&Value>,
    filters: &BTreeMap<String, String>,
) {
    buf.push(0xFE);
    match IDENTITY_FIELDS.iter().find_map(|f| member(item, f)) {
        Some(id) => encode_value(buf, id),
        None => encode_value(buf, item),
    }
    buf.push(0xFD);
    encode_value(buf, sort_key.unwrap_or(&Value::Null));
    for key in filters.keys() {
        buf.push(0xFC);
        encode_value(buf, field(item, key).unwrap_or(&Value::Null));
    }
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

/// The value at a dotted path (`price.total`) of an item.
fn field<'v>(item: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(item, |v, key| member(v, key))
}

/// A member of an object. Records are small objects: scanning their few entries beats hashing
/// the key, and keeps paging a 100,000-item list close to the cost of parsing it.
fn member<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
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

/// Lists at least this long are scanned on two threads.
const PARALLEL_SCAN_MIN: usize = 20_000;

/// One pass over the list: the indices that pass the filters, every item's sort key, and the
/// fingerprint (which needs the same lookups). Reading fields of many small objects is bound
/// by memory latency, so a long list is scanned in two halves at once.
fn scan<'a>(
    items: &'a [Value],
    order: Option<&Order>,
    filters: &BTreeMap<String, String>,
) -> (Vec<u32>, Vec<SortKey<'a>>, String) {
    let part = |base: usize, items: &'a [Value]| {
        let mut view = Vec::with_capacity(items.len());
        let mut keys = Vec::with_capacity(if order.is_some() { items.len() } else { 0 });
        let mut buf = Vec::with_capacity(items.len() * 48);
        for (i, item) in items.iter().enumerate() {
            let key = order.and_then(|o| field(item, &o.field));
            fingerprint_item(&mut buf, item, key, filters);
            if order.is_some() {
                keys.push(SortKey::of(key));
            }
            if filters.is_empty() || matches(item, filters) {
                view.push((base + i) as u32);
            }
        }
        (view, keys, buf)
    };
    let (mut view, mut keys, mut buf) = if items.len() >= PARALLEL_SCAN_MIN {
        let (left, right) = items.split_at(items.len() / 2);
        let (a, b) = std::thread::scope(|s| {
            let right_half = s.spawn(|| part(left.len(), right));
            let left_half = part(0, left);
            (
                left_half,
                right_half.join().expect("the scan does not panic"),
            )
        });
        let (mut view, mut keys, mut buf) = a;
        view.extend(b.0);
        keys.extend(b.1);
        buf.extend_from_slice(&b.2);
        (view, keys, buf)
    } else {
        part(0, items)
    };
    view.shrink_to_fit();
    keys.shrink_to_fit();
    let fingerprint = finish_fingerprint(&buf, items.len());
    buf.clear();
    (view, keys, fingerprint)
}

/// A sort key, looked up once per item and cheap to compare.
#[derive(Clone, Debug)]
enum SortKey<'a> {
    Bool(bool),
    Num(f64),
    /// A string and its first 16 bytes as a big-endian number: comparing the numbers orders
    /// most keys (ISO dates, ids) without touching the strings.
    Str(u128, &'a str),
    /// Arrays and objects, compared by their JSON text.
    Other(String),
    /// Missing or null: last, whatever the direction.
    Missing,
}

impl<'a> SortKey<'a> {
    fn of(v: Option<&'a Value>) -> Self {
        match v {
            Some(Value::Bool(b)) => SortKey::Bool(*b),
            Some(Value::Number(n)) => SortKey::Num(n.as_f64().unwrap_or(0.0)),
            Some(Value::String(s)) => {
                let mut head = [0u8; 16];
                let n = s.len().min(16);
                head[..n].copy_from_slice(&s.as_bytes()[..n]);
                SortKey::Str(u128::from_be_bytes(head), s)
            }
            Some(Value::Null) | None => SortKey::Missing,
            Some(other) => SortKey::Other(other.to_string()),
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
    fn compare(&self, other: &Self, descending: bool) -> Ordering {
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

fn matches(item: &Value, filters: &BTreeMap<String, String>) -> bool {
    filters.iter().all(|(key, want)| match field(item, key) {
        Some(Value::String(s)) => s == want,
        Some(Value::Number(n)) => want.parse::<f64>().ok() == n.as_f64(),
        Some(Value::Bool(b)) => want == if *b { "true" } else { "false" },
        Some(Value::Null) => want == "null",
        Some(other) => serde_json::to_string(other).is_ok_and(|text| text == *want),
        None => false,
    })
}

/// What a page request asks for, before any cursor is read.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub limit: Option<usize>,
    pub order: Option<Order>,
    pub filters: Option<BTreeMap<String, String>>,
}

/// A list filtered once, from which pages are cut in order.
///
/// Ordering is lazy: the first pages only need the smallest `offset + count` items, which a
/// selection finds in linear time; a page deep in the list (or a walk through all of them)
/// sorts the whole view once and slices it after that. Either way the result is that of a
/// stable sort: ties keep input order.
pub struct Pager<'l, 'd> {
    located: &'l Located<'d>,
    /// Indices of the items that pass the filters, in input order.
    view: Vec<u32>,
    /// Sort key of every item (by input index), when there is an order.
    keys: Vec<SortKey<'l>>,
    /// `view` fully sorted, once something needed it.
    sorted: std::cell::OnceCell<Vec<u32>>,
    /// The first items of the order, found by a selection for the first page asked for.
    prefix: std::cell::OnceCell<Vec<u32>>,
    /// The view is already in order (common: APIs return sorted lists).
    presorted: bool,
    pub order: Option<Order>,
    pub filters: BTreeMap<String, String>,
    pub limit: usize,
    pub fingerprint: String,
    /// The request set no order and no filters: the list is as it came.
    untouched: bool,
}

/// What a cursor allows, once it has been checked against the request.
pub struct Resume {
    pub offset: usize,
}

impl<'l, 'd> Pager<'l, 'd> {
    /// Filters the list and looks up sort keys. `cursor`, when given, supplies the order,
    /// filters and page size the request leaves out, and is refused when the request
    /// contradicts it.
    pub fn new(
        located: &'l Located<'d>,
        request: &Request,
        cursor: Option<&Decoded>,
        max_limit: usize,
    ) -> Result<Pager<'l, 'd>, PaginateError> {
        let items = located.items();
        let issued = cursor.map(|c| &c.payload);
        let order = match (&request.order, issued) {
            (Some(o), _) => Some(o.clone()),
            (None, Some(p)) => p.order.as_deref().map(Order::parse).transpose()?,
            (None, None) => default_order(items),
        };
        let filters = match (&request.filters, issued) {
            (Some(f), _) => f.clone(),
            (None, Some(p)) => p.filters.clone().unwrap_or_default(),
            (None, None) => BTreeMap::new(),
        };
        if let Some(p) = issued {
            let issued_order = p.order.clone().unwrap_or_else(|| "input order".to_owned());
            let requested_order = order
                .as_ref()
                .map_or_else(|| "input order".to_owned(), Order::to_string);
            if issued_order != requested_order {
                return Err(PaginateError::Mismatch {
                    what: "order",
                    flag: "--order-by",
                    issued: issued_order,
                    requested: requested_order,
                });
            }
            let issued_filters = p.filters.clone().unwrap_or_default();
            if issued_filters != filters {
                let show = |f: &BTreeMap<String, String>| {
                    if f.is_empty() {
                        "no filters".to_owned()
                    } else {
                        f.iter()
                            .map(|(k, v)| format!("{k}={v}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                };
                return Err(PaginateError::Mismatch {
                    what: "filters",
                    flag: "--filter",
                    issued: show(&issued_filters),
                    requested: show(&filters),
                });
            }
        }
        let limit = request
            .limit
            .or_else(|| issued.and_then(|p| p.limit).map(|l| l as usize))
            .unwrap_or(max_limit.min(50));
        if limit == 0 {
            return Err(PaginateError::LimitZero);
        }
        let max = max_limit.min(ABSOLUTE_MAX_PAGE_SIZE);
        if limit > max {
            return Err(PaginateError::LimitTooLarge { max });
        }

        let (view, keys, fingerprint) = scan(items, order.as_ref(), &filters);
        let descending = order.as_ref().is_some_and(|o| o.descending);
        let presorted = keys.is_empty()
            || view.windows(2).all(|w| {
                keys[w[0] as usize].compare(&keys[w[1] as usize], descending) != Ordering::Greater
            });
        Ok(Pager {
            located,
            view,
            keys,
            sorted: std::cell::OnceCell::new(),
            prefix: std::cell::OnceCell::new(),
            presorted,
            untouched: request.order.is_none() && filters.is_empty(),
            fingerprint,
            order,
            filters,
            limit,
        })
    }

    /// Positions `start..end` of the ordered view, as indices into the list.
    fn ordered(&self, start: usize, end: usize) -> Cow<'_, [u32]> {
        if self.presorted {
            return Cow::Borrowed(&self.view[start..end]);
        }
        if let Some(sorted) = self.sorted.get() {
            return Cow::Borrowed(&sorted[start..end]);
        }
        let descending = self.order.as_ref().is_some_and(|o| o.descending);
        // Ties broken by input index: an unstable sort then equals a stable one.
        let cmp = |a: &u32, b: &u32| {
            self.keys[*a as usize]
                .compare(&self.keys[*b as usize], descending)
                .then(a.cmp(b))
        };
        if let Some(prefix) = self.prefix.get()
            && end <= prefix.len()
        {
            return Cow::Borrowed(&prefix[start..end]);
        }
        // The first page asked for, near the start: select the smallest `end` items in linear
        // time and sort just those. Once only: a walk onwards sorts everything, once.
        if self.prefix.get().is_none() && end > 0 && end <= self.view.len() / 8 {
            let prefix = self.prefix.get_or_init(|| {
                let mut prefix = self.view.clone();
                prefix.select_nth_unstable_by(end - 1, cmp);
                prefix.truncate(end);
                prefix.sort_unstable_by(cmp);
                prefix
            });
            return Cow::Borrowed(&prefix[start..end]);
        }
        let sorted = self.sorted.get_or_init(|| {
            let mut all = self.view.clone();
            all.sort_unstable_by(cmp);
            all
        });
        Cow::Borrowed(&sorted[start..end])
    }

    /// Items after filtering.
    pub fn total(&self) -> usize {
        self.view.len()
    }

    /// True when the whole list fits one page as it came: the document can go out unchanged
    /// (US1.3, FR-034).
    pub fn fits_unchanged(&self) -> bool {
        self.untouched && self.located.items().len() <= self.limit
    }

    /// Checks a cursor's kind, data and offset against this list.
    pub fn resume(&self, decoded: &Decoded) -> Result<Resume, PaginateError> {
        let p = &decoded.payload;
        if let Some(kind) = p.kind.as_deref().filter(|k| *k != "page") {
            return Err(PaginateError::WrongKind(kind.to_owned()));
        }
        if p.fingerprint
            .as_ref()
            .is_some_and(|fp| *fp != self.fingerprint)
        {
            return Err(PaginateError::DataChanged);
        }
        let offset = p.offset.max(0) as u64;
        if offset as usize >= self.total() && !(offset == 0 && self.total() == 0) {
            return Err(PaginateError::PastEnd {
                offset,
                total: self.total(),
            });
        }
        Ok(Resume {
            offset: offset as usize,
        })
    }

    /// The page starting at `offset` with `count` items (fewer at the end), with a cursor for
    /// the next when there is more.
    pub fn page(
        &self,
        offset: usize,
        count: usize,
        issued_at: f64,
        secrets: &Secrets,
        budget: Option<&Budget>,
    ) -> Page {
        let end = (offset + count).min(self.total());
        let next = (end < self.total()).then(|| {
            let mut payload = Payload::new(end as u64, issued_at);
            payload.order = self.order.as_ref().map(Order::to_string);
            payload.filters = (!self.filters.is_empty()).then(|| self.filters.clone());
            payload.kind = Some("page".to_owned());
            payload.limit = Some(self.limit as u64);
            payload.fingerprint = Some(self.fingerprint.clone());
            cursor::encode(&payload, secrets)
        });
        let list = self.located.items();
        let items: Vec<Value> = self
            .ordered(offset, end)
            .iter()
            .map(|&i| list[i as usize].clone())
            .collect();
        let meta = Meta {
            total_count: self.total(),
            page_size: self.limit,
            has_more: next.is_some(),
            offset,
            held_back: budget.map(|b| b.held_back),
            budget_exceeded: budget.and_then(|b| b.exceeded.then_some(true)),
        };
        Page {
            output: self.render(items, next.as_deref(), &meta),
            count: end - offset,
            next_cursor: next,
            meta,
        }
    }

    /// The largest page from `offset` (at most the limit, at least one item) whose output fits
    /// `tokens` as counted by `tokenizer` (seed 004's load-until-budget).
    pub fn page_within(
        &self,
        offset: usize,
        tokens: u64,
        tokenizer: Tokenizer,
        issued_at: f64,
        secrets: &Secrets,
    ) -> Page {
        let counter = tokenizer.counter();
        let available = self.limit.min(self.total().saturating_sub(offset));
        let fits = |n: usize| {
            let page = self.page(
                offset,
                n,
                issued_at,
                secrets,
                Some(&Budget {
                    held_back: available - n,
                    exceeded: false,
                }),
            );
            let cost = counter.count(&page.output.to_string()) as u64;
            (cost <= tokens, page)
        };
        // Output grows with every item: binary search the largest count that fits.
        let (mut lo, mut hi) = (1usize, available.max(1));
        let (ok, mut best) = fits(lo);
        if !ok {
            let mut page = self.page(
                offset,
                1,
                issued_at,
                secrets,
                Some(&Budget {
                    held_back: available.saturating_sub(1),
                    exceeded: true,
                }),
            );
            page.meta.budget_exceeded = Some(true);
            return page;
        }
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            let (ok, page) = fits(mid);
            if ok {
                lo = mid;
                best = page;
            } else {
                hi = mid - 1;
            }
        }
        best
    }

    /// The document with the list replaced by `items` and the paging fields added beside it.
    /// Only what lies outside the list is copied, so a page costs its own size, not the list's.
    fn render(&self, items: Vec<Value>, next: Option<&str>, meta: &Meta) -> Value {
        let located = self.located;
        let mut paging = Map::new();
        if let Some(c) = next {
            paging.insert("nextCursor".into(), Value::from(c));
        }
        paging.insert(
            "meta".into(),
            serde_json::to_value(meta).unwrap_or(Value::Null),
        );

        // The data with the page in place of the list, and the paging fields beside it (in
        // the list's parent object), or `{items, nextCursor, meta}` for a bare array.
        let (parent, key) = match located.pointer.rfind('/') {
            Some(cut) => (&located.pointer[..cut], &located.pointer[cut + 1..]),
            None => ("", ""),
        };
        let data = match located.data.pointer(parent) {
            Some(Value::Object(obj)) if !located.pointer.is_empty() => {
                let key = key.replace("~1", "/").replace("~0", "~");
                let mut items = Some(Value::Array(items));
                let mut copy = Map::with_capacity(obj.len() + 2);
                for (k, v) in obj {
                    if *k == key {
                        copy.insert(k.clone(), items.take().unwrap_or_default());
                    } else if k != "nextCursor" && k != "meta" {
                        copy.insert(k.clone(), v.clone());
                    }
                }
                copy.extend(paging);
                clone_with(
                    &located.data,
                    "",
                    vec![(parent.to_owned(), Value::Object(copy))],
                )
            }
            _ => {
                let mut obj = Map::new();
                obj.insert("items".into(), Value::Array(items));
                obj.extend(paging);
                Value::Object(obj)
            }
        };
        match &located.holder {
            Holder::Document { at: "" } => data,
            Holder::Document { at } => {
                clone_with(located.document, "", vec![((*at).to_owned(), data)])
            }
            Holder::ToolText {
                result,
                block,
                structured,
            } => {
                let mut swaps = vec![(
                    format!("{result}/content/{block}/text"),
                    Value::from(data.to_string()),
                )];
                if *structured {
                    swaps.push((format!("{result}/structuredContent"), data));
                }
                clone_with(located.document, "", swaps)
            }
        }
    }
}

/// A deep copy of `value` (which sits at pointer `at`) in which each `(pointer, replacement)`
/// takes the place of what is there. Subtrees being replaced are never copied, and the
/// replacements are moved in, not copied.
fn clone_with(value: &Value, at: &str, swaps: Vec<(String, Value)>) -> Value {
    let mut swaps: Vec<(String, Option<Value>)> =
        swaps.into_iter().map(|(p, v)| (p, Some(v))).collect();
    splice(value, at, &mut swaps)
}

fn splice(value: &Value, at: &str, swaps: &mut [(String, Option<Value>)]) -> Value {
    if let Some((_, replacement)) = swaps.iter_mut().find(|(p, _)| p == at) {
        return replacement.take().unwrap_or_default();
    }
    let below = |p: &str| p.len() > at.len() && p.starts_with(at) && p.as_bytes()[at.len()] == b'/';
    if !swaps.iter().any(|(p, _)| below(p)) {
        return value.clone();
    }
    match value {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| (k.clone(), splice(v, &pointer::join(at, k), swaps)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let mut p = at.to_owned();
                    pointer::push_index(&mut p, i);
                    splice(v, &p, swaps)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Budget bookkeeping for a page cut to fit.
pub struct Budget {
    pub held_back: usize,
    pub exceeded: bool,
}

/// `meta` of a page (seed 002 PageMetadata, plus what mcpguard adds).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    pub total_count: usize,
    pub page_size: usize,
    pub has_more: bool,
    pub offset: usize,
    /// Items of this page's size left for the next page to fit `--budget`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_back: Option<usize>,
    /// Even one item is over `--budget` (the page carries one anyway, so paging ends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_exceeded: Option<bool>,
}

/// One page, ready to print.
pub struct Page {
    pub output: Value,
    /// How many items it carries.
    pub count: usize,
    pub next_cursor: Option<String>,
    pub meta: Meta,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fp(items: &Value, order: Option<&str>, filters: &[(&str, &str)]) -> String {
        let order = order.map(|o| Order::parse(o).unwrap());
        let filters = filters
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        fingerprint(items.as_array().unwrap(), order.as_ref(), &filters)
    }

    #[test]
    fn fingerprint_covers_what_moves_items() {
        let a = json!([{"id": 1, "at": "b", "note": "x"}, {"id": 2, "at": "a", "note": "y"}]);
        let base = fp(&a, Some("at:desc"), &[]);
        // Editing a field nobody sorts or filters by moves nothing.
        let mut edited = a.clone();
        edited[0]["note"] = json!("changed");
        assert_eq!(fp(&edited, Some("at:desc"), &[]), base);
        // Changing the sort key, the identity, or the membership does.
        let mut resorted = a.clone();
        resorted[0]["at"] = json!("0");
        assert_ne!(fp(&resorted, Some("at:desc"), &[]), base);
        let removed = json!([a[1].clone()]);
        assert_ne!(fp(&removed, Some("at:desc"), &[]), base);
        let swapped = json!([a[1].clone(), a[0].clone()]);
        assert_ne!(fp(&swapped, Some("at:desc"), &[]), base);
        // A field a filter looks at counts too.
        assert_ne!(
            fp(&edited, None, &[("note", "x")]),
            fp(&a, None, &[("note", "x")])
        );
    }

    #[test]
    fn finds_the_list() {
        let doc = json!({"query": "x", "results": [1, 2, 3], "tags": ["a"]});
        assert_eq!(locate(&doc, None).unwrap().pointer, "/results");
        let tie = json!({"a": [1, 2], "b": [3, 4]});
        assert!(matches!(
            locate(&tie, None),
            Err(PaginateError::Ambiguous { len: 2, .. })
        ));
        let named = json!({"a": [1, 2], "items": [3, 4]});
        assert_eq!(locate(&named, None).unwrap().pointer, "/items");
        let nested = json!({"data": {"rows": [1, 2, 3]}});
        assert_eq!(locate(&nested, None).unwrap().pointer, "/data/rows");
        assert!(matches!(
            locate(&json!({"n": 1}), None),
            Err(PaginateError::NoList)
        ));
        assert!(matches!(
            locate(&doc, Some("/query")),
            Err(PaginateError::PathNotList {
                found: "a string",
                ..
            })
        ));
    }

    #[test]
    fn orders_parse_and_missing_keys_sort_last() {
        assert_eq!(
            Order::parse("price.total:desc").unwrap().to_string(),
            "price.total:desc"
        );
        assert_eq!(Order::parse("id").unwrap().to_string(), "id:asc");
        assert!(Order::parse(":desc").is_err());
        assert!(Order::parse("id:sideways").is_err());
        let one = json!(1);
        for descending in [false, true] {
            let some = SortKey::of(Some(&one));
            assert_eq!(
                SortKey::Missing.compare(&some, descending),
                Ordering::Greater
            );
            assert_eq!(some.compare(&SortKey::Missing, descending), Ordering::Less);
        }
        let (a, b) = (json!("2026-11-01T00:00:00Z"), json!("2026-11-01T00:00:01Z"));
        assert_eq!(
            SortKey::of(Some(&a)).compare(&SortKey::of(Some(&b)), false),
            Ordering::Less
        );
        assert_eq!(
            SortKey::of(Some(&json!(10))).compare(&SortKey::of(Some(&json!(9.5))), false),
            Ordering::Greater
        );
    }
}
