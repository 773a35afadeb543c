//! Finding the list in a tool result's JSON text without building it: the proxy pages a
//! 100 MB list in about the list's own size.
//!
//! The text is parsed into its skeleton: every value but the arrays where a list may sit (the
//! data itself, its members, its members' members, as [`super::locate`] looks), which are
//! kept as the spans of their items. The list is chosen among them by `locate`'s own rule;
//! the other arrays are then parsed into place, and the chosen one's items are read once to
//! check that each parses as `serde_json` parses it and to work out the fingerprint. A page
//! parses just its own items.
//!
//! Only for what the proxy asks (input order, no filters) and only when the list chosen is an
//! array: anything else (a map of records, a text that does not parse) is `None`, and the
//! caller locates it the usual way.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::locate::{Holder, Located, Spans, block_index, find_list_measured};
use super::scan::fingerprint_spans;
use crate::document::{self, Kind, PartContent};
use crate::json::pointer;

/// Arrays this deep in the data (0: the data itself) are kept as spans.
const LIST_DEPTH: u8 = 2;

/// The list in `doc`, a tool result whose list sits in a JSON text block, read lazily; `None`
/// when [`super::locate`] should find it (see the module doc).
pub fn locate_lean(doc: &Value) -> Option<Located<'_>> {
    let anatomy = document::anatomy_shallow(doc, "");
    if anatomy.kind != Kind::ToolResult {
        return None;
    }
    // The first block whose text is a JSON object or array, as `locate` takes it; a text that
    // looks like JSON but is not read here is left to `locate` to judge.
    let (block, text) = anatomy.parts.iter().find_map(|p| match &p.content {
        PartContent::Text { text, .. } if document::looks_like_json(text) => {
            Some((block_index(&p.pointer)?, *text))
        }
        _ => None,
    })?;
    let Chosen {
        data,
        pointer: chosen,
        spans,
    } = skeleton(text)?.choose()?;
    Some(Located {
        holder: Holder::ToolText {
            result: anatomy.payload_pointer,
            block,
            structured: anatomy.payload.get("structuredContent").is_some(),
        },
        document: doc,
        data: Cow::Owned(data),
        pointer: chosen,
        map: None,
        spans: Some(spans),
        rows: None,
    })
}

/// A plain JSON document (no MCP shape: not a tool result, a list result or a JSON-RPC
/// message) whose list is read lazily, for `paginate` in the list's own order: the document
/// with every array but the list parsed into place, and the list's items as spans. A 283 MB
/// list is paged in about its own size instead of serde_json's tree of it (2.1 GB).
pub struct LeanDocument<'t> {
    skeleton: Value,
    pointer: String,
    spans: Spans<'t>,
}

/// Top-level members that give a document an MCP shape ([`document::anatomy`]'s): such a
/// document is located the usual way.
const SHAPED: [&str; 7] = [
    "jsonrpc",
    "content",
    "contents",
    "tools",
    "resources",
    "resourceTemplates",
    "prompts",
];

impl<'t> LeanDocument<'t> {
    /// `text` read into its skeleton; `None` when it is not a plain document whose list is an
    /// array (see the module doc): the caller then parses it whole.
    pub fn read(text: &'t str) -> Option<LeanDocument<'t>> {
        let skeleton = skeleton(text)?;
        if (skeleton.data.as_object()).is_some_and(|m| SHAPED.iter().any(|k| m.contains_key(*k))) {
            return None;
        }
        let Chosen {
            data,
            pointer,
            spans,
        } = skeleton.choose()?;
        Some(LeanDocument {
            skeleton: data,
            pointer,
            spans,
        })
    }

    /// The first record, parsed: what decides a list's default order.
    pub fn first_item(&self) -> Option<Value> {
        let first = self.spans.items.first()?;
        serde_json::from_str(first.get()).ok()
    }

    /// The list, located as [`super::locate`] locates it in the parsed document.
    pub fn located(&self) -> Located<'_> {
        Located {
            holder: Holder::Document { at: "" },
            document: &self.skeleton,
            data: Cow::Borrowed(&self.skeleton),
            pointer: self.pointer.clone(),
            map: None,
            spans: Some(Spans {
                items: self.spans.items.clone(),
                fingerprint: self.spans.fingerprint.clone(),
            }),
            rows: None,
        }
    }
}

/// The list a skeleton holds, chosen by `locate`'s own rule: the data with every other array
/// parsed into its place, where the list is, and its items as spans.
struct Chosen<'t> {
    data: Value,
    pointer: String,
    spans: Spans<'t>,
}

impl<'t> Skeleton<'t> {
    /// `None` when the list chosen is not an array (a map of records), or an item or another
    /// array does not parse as serde_json parses it.
    fn choose(self) -> Option<Chosen<'t>> {
        let Skeleton { mut data, lists } = self;
        let array_len = |p: &str, _: &[Value]| {
            lists
                .iter()
                .rfind(|(at, _)| at == p)
                .map_or(0, |(_, items)| items.len())
        };
        let pointer = find_list_measured(&data, &array_len).ok()?;
        if !data.pointer(&pointer).is_some_and(Value::is_array) {
            return None;
        }
        let mut items = None;
        for (at, spans) in lists {
            if at == pointer {
                items = Some(spans);
            } else if let Some(slot @ Value::Array(_)) = data.pointer_mut(&at) {
                // The other arrays, parsed into their place (a later duplicate key took the
                // place of an earlier one: the last written wins, as it does in a parse).
                *slot = Value::Array(
                    spans
                        .iter()
                        .map(|raw| serde_json::from_str(raw.get()))
                        .collect::<Result<_, _>>()
                        .ok()?,
                );
            }
        }
        let items = items?;
        let fingerprint = fingerprint_spans(&items)?;
        Some(Chosen {
            data,
            pointer,
            spans: Spans { items, fingerprint },
        })
    }
}

/// A JSON text with its shallow arrays as spans: `(pointer, items)` in the order read, each
/// standing in `data` as an empty array.
struct Skeleton<'t> {
    data: Value,
    lists: Vec<(String, Vec<&'t RawValue>)>,
}

fn skeleton(text: &str) -> Option<Skeleton<'_>> {
    let mut lists = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let data = Level {
        depth: 0,
        pointer: String::new(),
        lists: &mut lists,
    }
    .deserialize(&mut de)
    .ok()?;
    de.end().ok()?;
    Some(Skeleton { data, lists })
}

/// A value at `depth`, read into the skeleton.
struct Level<'s, 't> {
    depth: u8,
    pointer: String,
    lists: &'s mut Vec<(String, Vec<&'t RawValue>)>,
}

impl<'t> DeserializeSeed<'t> for Level<'_, 't> {
    type Value = Value;
    fn deserialize<D: Deserializer<'t>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'t> Visitor<'t> for Level<'_, 't> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    crate::json::large::visit_scalars!();
    fn visit_seq<A: SeqAccess<'t>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(raw) = seq.next_element::<&'t RawValue>()? {
            items.push(raw);
        }
        self.lists.push((self.pointer, items));
        Ok(Value::Array(Vec::new()))
    }
    fn visit_map<A: MapAccess<'t>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = if self.depth < LIST_DEPTH {
                map.next_value_seed(Level {
                    depth: self.depth + 1,
                    pointer: pointer::join(&self.pointer, &key),
                    lists: self.lists,
                })?
            } else {
                map.next_value::<Value>()?
            };
            members.insert(key, value);
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reshape::paginate::{Pager, Request, locate};
    use serde_json::json;

    fn result_of(data: &Value) -> Value {
        json!({"content": [{"type": "text", "text": "a note"},
            {"type": "text", "text": serde_json::to_string_pretty(data).unwrap()}]})
    }

    /// Every page and the fingerprint, lean and parsed, the same.
    fn same_pages(doc: &Value) {
        let lean = locate_lean(doc).expect("read lazily");
        let full = locate(doc, None).unwrap();
        let request = Request {
            limit: Some(7),
            input_order: true,
            ..Request::default()
        };
        same_pages_of(&lean, &full, &request);
    }

    /// `lean` and `full` found the same list, and `request` pages it the same from either.
    fn same_pages_of(lean: &Located<'_>, full: &Located<'_>, request: &Request) {
        assert_eq!((&lean.pointer, lean.len()), (&full.pointer, full.len()));
        let secrets = crate::reshape::cursor::Secrets::parse("lean-test-secret-0123", "t").unwrap();
        let a = Pager::new(lean, request, None, 100).unwrap();
        let b = Pager::new(full, request, None, 100).unwrap();
        assert_eq!(a.fingerprint, b.fingerprint);
        let mut offset = 0;
        while offset < full.len() {
            let (pa, pb) = (
                a.page(offset, 7, 1.0, &secrets, None),
                b.page(offset, 7, 1.0, &secrets, None),
            );
            assert_eq!(pa.output, pb.output);
            offset += 7;
        }
    }

    #[test]
    fn pages_as_the_parsed_list_does() {
        let bookings: Vec<Value> = (0..40)
            .map(|i| {
                json!({"id": format!("bk_{i}"), "guest": {"name": format!("G \"{i}\"")},
                "nights": i % 5, "rate": 1.5 * f64::from(i), "tags": ["a", i]})
            })
            .collect();
        // The list beside other arrays (parsed back into place), nested one level, bare, and
        // items without an identity (whole items make the fingerprint).
        same_pages(&result_of(
            &json!({"bookings": bookings, "warnings": ["x", "y"], "n": 40}),
        ));
        same_pages(&result_of(
            &json!({"page": {"items": bookings, "filters": [{"k": 1}]}, "meta": {"tags": [1]}}),
        ));
        same_pages(&result_of(&json!(bookings)));
        let plain: Vec<Value> = (0..30).map(|i| json!([i, {"v": i}])).collect();
        same_pages(&result_of(&json!({"rows": plain})));
        // Duplicate keys: the last value wins, an array or not.
        let dup = json!({"content": [{"type": "text",
            "text": r#"{"rows": [1, 2, 3], "rows": [4, 5, 6, 7], "x": [1], "x": {"y": 2}}"#}]});
        same_pages(&dup);
    }

    /// A plain document paged from its text as `paginate` pages it parsed (its default
    /// request: no order asked, so none when its records have no creation time), page by
    /// page, cursors and all.
    fn same_document_pages(text: &str) {
        let lean = LeanDocument::read(text).expect("read lazily");
        let doc: Value = serde_json::from_str(text).unwrap();
        let full = locate(&doc, None).unwrap();
        let request = Request {
            limit: Some(7),
            ..Request::default()
        };
        same_pages_of(&lean.located(), &full, &request);
    }

    #[test]
    fn a_plain_document_pages_from_its_text_as_parsed() {
        let rows: Vec<Value> = (0..40)
            .map(|i| json!({"id": i, "name": format!("r \"{i}\" é"), "tags": ["a", i], "n": {"x": i}}))
            .collect();
        for doc in [
            json!({"bookings": rows, "warnings": ["x"], "total": 40}),
            json!({"data": {"rows": rows, "facets": [1, 2]}, "meta": {"tags": [1]}}),
            json!(rows),
        ] {
            same_document_pages(&serde_json::to_string_pretty(&doc).unwrap());
            same_document_pages(&doc.to_string());
        }
        // MCP shapes, and a map of records, are located the usual way.
        for text in [
            r#"{"content": [{"type": "text", "text": "[1,2]"}]}"#,
            r#"{"jsonrpc": "2.0", "id": 1, "result": {"items": [1, 2, 3]}}"#,
            r#"{"tools": [{"name": "a"}]}"#,
            r#"{"users": {"u1": {"name": "a"}, "u2": {"name": "b"}}}"#,
            "[1, 2",
        ] {
            assert!(LeanDocument::read(text).is_none(), "{text}");
        }
    }

    #[test]
    fn leaves_to_locate_what_it_does_not_read() {
        let map: Map<String, Value> = (0..30)
            .map(|i| (format!("user-{i}"), json!({"name": "n", "tags": [i]})))
            .collect();
        for doc in [
            // A map of records, plain text, an item serde_json refuses, a plain JSON document.
            result_of(&Value::Object(map)),
            json!({"content": [{"type": "text", "text": "[1, 2, oops]"}]}),
            json!({"content": [{"type": "text", "text": r#"[1, "\ud800", 3]"#}]}),
            json!({"content": [{"type": "text", "text": "[1, 1e999, 3]"}]}),
            json!({"items": [1, 2, 3]}),
        ] {
            assert!(locate_lean(&doc).is_none(), "{doc}");
        }
    }
}
