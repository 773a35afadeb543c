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

pub mod aggregate;
pub mod filter;
mod lean;
mod locate;
mod order;
mod scan;
pub mod select;
mod session;

use serde::Serialize;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cmp::Ordering;

pub use filter::{BadFilter, Where};
pub use lean::{LeanDocument, locate_lean};
pub use locate::{Located, locate};
pub use order::{CREATION_FIELDS, Order, default_order};
pub use scan::{fingerprint, fingerprint_of};
pub use session::{Session, Settings, Size};

use crate::json::pointer;
use crate::reshape::cursor::{self, Decoded, Payload, Secrets, Verdict};
use crate::tokens::Tokenizer;
use locate::Holder;
use order::SortKey;

/// The largest page anyone may ask for (FR-002), whatever the config says.
pub const ABSOLUTE_MAX_PAGE_SIZE: usize = 200;

/// Why a page could not be made. [`PaginateError::is_refusal`] separates a cursor or request
/// that was refused (exit 1) from a job that could not be done (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum PaginateError {
    #[error("no list (or map of records) in this document; point at one with --path /json/pointer")]
    NoList,
    #[error("several lists of {len} items ({}); choose one with --path", candidates.join(", "))]
    Ambiguous { len: usize, candidates: Vec<String> },
    #[error("--path {path}: nothing there; the lists in this document are at: {}", if candidates.is_empty() { "(none)".to_owned() } else { candidates.join(", ") })]
    PathNotFound {
        path: String,
        candidates: Vec<String>,
    },
    #[error("--path {path}: that is {found}, not a list or a map of records")]
    PathNotList { path: String, found: &'static str },
    #[error("limit must be at least 1")]
    LimitZero,
    #[error("limit exceeds maximum of {max}")]
    LimitTooLarge { max: usize },
    #[error("--order-by {0}: expected FIELD, FIELD:asc or FIELD:desc")]
    BadOrder(String),
    #[error("--where {0}")]
    BadFilter(#[from] BadFilter),
    #[error("{0}")]
    Cursor(cursor::Malformed),
    /// A cursor that decoded but did not pass its checks, with the time it was issued.
    #[error("{}", .0.explain(*.1))]
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
    #[error(
        "the order and filters make a {len}-byte cursor, over the {max} that paginate reads back (readLimits.maxCursorBytes); shorten --order-by and --where"
    )]
    CursorTooLong { len: usize, max: usize },
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

/// What a page request asks for, before any cursor is read.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub limit: Option<usize>,
    pub order: Option<Order>,
    pub filters: Option<Where>,
    /// Keep the list's own order when none is asked for, instead of newest first (the proxy:
    /// a page must read as the server wrote it).
    pub input_order: bool,
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
    pub filters: Where,
    pub limit: usize,
    pub fingerprint: String,
    /// The request set no order and no filters: the list is as it came.
    untouched: bool,
    /// Extra members every cursor of this pager carries (the proxy's artifact reference).
    pub tags: serde_json::Map<String, Value>,
}

/// The filters a cursor was issued with: the seed's `filters` map and mcpguard's `where`.
pub fn issued_filters(p: &Payload) -> Result<Where, PaginateError> {
    let mut filters = p
        .filters
        .as_ref()
        .map(Where::from_equalities)
        .unwrap_or_default();
    if let Some(Value::Array(conditions)) = p.unknown.get("where") {
        let texts: Vec<&str> = conditions.iter().filter_map(Value::as_str).collect();
        filters.conditions.extend(Where::parse(&texts)?.conditions);
    }
    Ok(filters)
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
            // A map of records pages in key order unless asked otherwise; a list newest first
            // when its records say when they were made.
            (None, None) if located.is_map() || request.input_order => None,
            (None, None) => match items {
                // A list read lazily: its first item, as the first of a parsed list.
                [] if located.is_lazy() => default_order(std::slice::from_ref(&*located.item(0))),
                items => default_order(items),
            },
        };
        let filters = match (&request.filters, issued) {
            (Some(f), _) => f.clone(),
            (None, Some(p)) => issued_filters(p)?,
            (None, None) => Where::default(),
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
            let issued_filters = issued_filters(p)?;
            if issued_filters.canonical() != filters.canonical() {
                let show = |f: &Where| {
                    if f.is_empty() {
                        "no filters".to_owned()
                    } else {
                        f.canonical().join(", ")
                    }
                };
                return Err(PaginateError::Mismatch {
                    what: "filters",
                    flag: "--where",
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

        let (view, keys, fingerprint) = match &located.spans {
            // A JSON list left as text, in its own order and unfiltered (the proxy's way): its
            // fingerprint is known, and nothing else needs its items.
            Some(spans) if order.is_none() && filters.is_empty() => (
                (0..spans.items.len() as u32).collect(),
                Vec::new(),
                spans.fingerprint.clone(),
            ),
            _ if located.is_lazy() => scan::scan_lazy(located, order.as_ref(), &filters),
            _ => scan::scan(items, order.as_ref(), &filters),
        };
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
            tags: serde_json::Map::new(),
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
        self.untouched && self.located.len() <= self.limit
    }

    /// Checks a cursor's kind, data and offset against this list; returns where to start.
    pub fn resume(&self, decoded: &Decoded) -> Result<usize, PaginateError> {
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
        Ok(offset as usize)
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
            payload.unknown = self.tags.clone();
            if !self.filters.is_empty() {
                // Equalities as the seed's `filters` map; anything else in mcpguard's `where`.
                match self.filters.as_equalities() {
                    Some(map) => payload.filters = Some(map),
                    None => {
                        payload
                            .unknown
                            .insert("where".into(), self.filters.canonical().into());
                    }
                }
            }
            payload.kind = Some("page".to_owned());
            payload.limit = Some(self.limit as u64);
            payload.fingerprint = Some(self.fingerprint.clone());
            cursor::encode(&payload, secrets)
        });
        let list = self.located.items();
        let ordered = self.ordered(offset, end);
        let items = match &self.located.map {
            Some(map) => Value::Object(
                ordered
                    .iter()
                    .map(|&i| (map.keys[i as usize].clone(), list[i as usize].clone()))
                    .collect(),
            ),
            None => Value::Array(
                ordered
                    .iter()
                    .map(|&i| self.located.item(i as usize).into_owned())
                    .collect(),
            ),
        };
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
        // Fits or not is a verdict: auto counts exactly near the budget.
        let cost = |output: &Value| {
            let text = output.to_string();
            tokenizer
                .count_for_verdict([text.as_str()].into_iter(), 0, &[tokens])
                .0
        };
        self.page_within_by(offset, tokens, &cost, issued_at, secrets)
    }

    /// [`Pager::page_within`] with the page's cost measured by `cost` (the proxy counts what
    /// the model is shown of a tool result, not its JSON text).
    pub fn page_within_by(
        &self,
        offset: usize,
        tokens: u64,
        cost: &dyn Fn(&Value) -> u64,
        issued_at: f64,
        secrets: &Secrets,
    ) -> Page {
        let available = self.limit.min(self.total().saturating_sub(offset));
        let fits = |n: usize| {
            let page = self.page(
                offset,
                n,
                issued_at,
                secrets,
                Some(&Budget {
                    held_back: available.saturating_sub(n),
                    exceeded: false,
                }),
            );
            (cost(&page.output) <= tokens, page)
        };
        // Usually the whole page fits: one count says so.
        let (ok, whole) = fits(available.max(1));
        if ok {
            return whole;
        }
        // Output grows with every item: binary search the largest count that fits.
        let (mut lo, mut hi) = (1usize, available.max(1) - 1);
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

    /// The document with the list replaced by `items` (an array, or a map of the page's
    /// records) and the paging fields added beside it. Only what lies outside the list is
    /// copied, so a page costs its own size, not the list's.
    fn render(&self, items: Value, next: Option<&str>, meta: &Meta) -> Value {
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
                let mut items = Some(items);
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
                // A bare map of records goes under `data`: `items` is a list by contract.
                let name = if items.is_object() { "data" } else { "items" };
                let mut obj = Map::new();
                obj.insert(name.into(), items);
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
    use super::order::SortKey;
    use super::*;
    use serde_json::json;

    fn fp(items: &Value, order: Option<&str>, filters: &[(&str, &str)]) -> String {
        let order = order.map(|o| Order::parse(o).unwrap());
        let texts: Vec<String> = filters.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let filters = Where::parse(&texts).unwrap();
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
