//! What a document is, and what of it the model sees.
//!
//! A captured message is one of: a JSON-RPC response carrying an MCP tool result, a list result
//! (`tools/list`, `resources/list`, ...), resource contents, another result, an error, a request
//! or notification; or, without the JSON-RPC envelope, a bare tool result or plain JSON.
//!
//! The wire size is the whole message. What reaches the model is less and different: the text of
//! content blocks (a JSON text block is parsed so its structure can be measured), images and
//! audio at a fixed token cost, `structuredContent`, and for other results the result itself.
//! [`Anatomy::parts`] lists those pieces with the JSON pointer of each.

pub mod input;
pub mod result_text;

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

use crate::json::node::{Members as _, Node, ReadText};
use crate::json::pointer;

/// The recognised shape of a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `tools/call` result: `content` blocks, maybe `structuredContent`.
    ToolResult,
    /// `tools/list`, `resources/list`, `resources/templates/list` or `prompts/list` result.
    ListResult(ListKind),
    /// `resources/read` result: `contents` with text or blob.
    ResourceContents,
    /// Any other JSON-RPC result (initialize, completion, ...).
    OtherResult,
    /// A JSON-RPC error response.
    Error,
    /// A JSON-RPC request or notification (seen in transcripts).
    Request,
    /// JSON that is not an MCP message: an API payload, a file.
    Plain,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListKind {
    Tools,
    Resources,
    ResourceTemplates,
    Prompts,
}

impl ListKind {
    /// The member that holds the list, which is also the method's noun.
    pub fn member(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::ResourceTemplates => "resourceTemplates",
            ListKind::Prompts => "prompts",
        }
    }
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 10] = [
        Kind::ToolResult,
        Kind::ListResult(ListKind::Tools),
        Kind::ListResult(ListKind::Resources),
        Kind::ListResult(ListKind::ResourceTemplates),
        Kind::ListResult(ListKind::Prompts),
        Kind::ResourceContents,
        Kind::OtherResult,
        Kind::Error,
        Kind::Request,
        Kind::Plain,
    ];

    /// A short label for tables.
    pub fn label(self) -> &'static str {
        match self {
            Kind::ToolResult => "tool result",
            Kind::ListResult(ListKind::Tools) => "tools/list",
            Kind::ListResult(ListKind::Resources) => "resources/list",
            Kind::ListResult(ListKind::ResourceTemplates) => "templates/list",
            Kind::ListResult(ListKind::Prompts) => "prompts/list",
            Kind::ResourceContents => "resource",
            Kind::OtherResult => "result",
            Kind::Error => "error",
            Kind::Request => "request",
            Kind::Plain => "json",
        }
    }
}

/// One piece of what the model sees.
#[derive(Clone, Debug)]
pub struct Part<'a, N: Clone = Value> {
    /// Where it sits in the document (JSON pointer).
    pub pointer: String,
    pub content: PartContent<'a, N>,
}

#[derive(Clone, Debug)]
pub enum PartContent<'a, N: Clone = Value> {
    /// Text the model reads: a text content block, a text resource. `json` holds the parsed
    /// value when the whole text is a JSON object or array: borrowed from `structuredContent`
    /// when the text is that value written out (the same keys in the same order, the same
    /// numbers and strings), or the array its one member wraps (`{"items": [...]}` for a tool
    /// that returns a list), so the two are one tree.
    Text {
        text: &'a str,
        json: Option<Cow<'a, N>>,
        /// The text is `json`'s compact JSON byte for byte (as [`crate::json::compact::write`]
        /// writes it), known when the tree is borrowed from structuredContent: so is
        /// structuredContent's own, from the text without writing it (see [`written_compact`]).
        compact: bool,
    },
    /// An image or audio block: a fixed token cost, whatever its size. `data_bytes` is the
    /// length of its base64 data on the wire.
    Media { mime: &'a str, data_bytes: usize },
    /// JSON shown to the model as JSON: `structuredContent`, a list result, a resource link,
    /// an error object.
    Json(&'a N),
    /// The document's own text, for plain JSON passed as-is.
    Raw(&'a str),
}

/// A document taken apart.
#[derive(Clone, Debug)]
pub struct Anatomy<'a, N: Clone = Value> {
    pub kind: Kind,
    /// The JSON-RPC id, when the document is a JSON-RPC message that has one.
    pub id: Option<&'a N>,
    /// Where the payload (the result, or the document itself) starts.
    pub payload_pointer: &'static str,
    pub payload: &'a N,
    /// `isError: true` on a tool result.
    pub is_error: bool,
    pub parts: Vec<Part<'a, N>>,
}

/// Recognises `value` (whose exact text is `text`) and lists what the model sees.
pub fn anatomy<'a, N: ReadText<'a, Reader = ()> + Clone>(
    value: &'a N,
    text: &'a str,
) -> Anatomy<'a, N> {
    anatomy_in(value, text, ())
}

/// [`anatomy`] of a tree that reads the JSON inside text blocks with `reader` (the arena of
/// the borrowed tree).
pub fn anatomy_in<'a, N: ReadText<'a> + Clone>(
    value: &'a N,
    text: &'a str,
    reader: N::Reader,
) -> Anatomy<'a, N> {
    anatomy_with(value, text, Parse::Text { twin: None, reader })
}

/// [`anatomy`] without parsing the JSON inside text blocks (`json` is always `None`), for a
/// caller that parses it its own way (summarize samples a 100 MB text instead of building it).
pub fn anatomy_shallow<'a, N: ReadText<'a> + Clone>(value: &'a N, text: &'a str) -> Anatomy<'a, N> {
    anatomy_with(value, text, Parse::No)
}

fn anatomy_with<'a, N: ReadText<'a> + Clone>(
    value: &'a N,
    text: &'a str,
    parse: Parse<'a, N>,
) -> Anatomy<'a, N> {
    let envelope = value.get("jsonrpc").and_then(Node::as_str) == Some("2.0");
    let id = if envelope { value.get("id") } else { None };

    if envelope {
        if let Some(result) = value.get("result") {
            return payload_anatomy(result, "/result", id, parse);
        }
        if let Some(error) = value.get("error") {
            return Anatomy {
                kind: Kind::Error,
                id,
                payload_pointer: "/error",
                payload: error,
                is_error: true,
                parts: vec![json_part("/error", error)],
            };
        }
        if value.get("method").is_some() {
            return Anatomy {
                kind: Kind::Request,
                id,
                payload_pointer: "",
                payload: value,
                is_error: false,
                parts: Vec::new(),
            };
        }
    }
    let bare = payload_anatomy(value, "", None, parse);
    if bare.kind == Kind::OtherResult {
        // Not an MCP shape at all: the model would get the document's text as it stands.
        return Anatomy {
            kind: Kind::Plain,
            parts: vec![Part {
                pointer: String::new(),
                content: PartContent::Raw(text),
            }],
            ..bare
        };
    }
    bare
}

fn payload_anatomy<'a, N: ReadText<'a> + Clone>(
    payload: &'a N,
    at: &'static str,
    id: Option<&'a N>,
    parse: Parse<'a, N>,
) -> Anatomy<'a, N> {
    let mut anatomy = Anatomy {
        kind: Kind::OtherResult,
        id,
        payload_pointer: at,
        payload,
        is_error: payload.get("isError").and_then(Node::as_bool) == Some(true),
        parts: Vec::new(),
    };
    if let Some(blocks) = payload.get("content").and_then(Node::as_array)
        && blocks
            .iter()
            .all(|b| b.get("type").is_some_and(Node::is_string))
    {
        anatomy.kind = Kind::ToolResult;
        let base = pointer::join(at, "content");
        let structured = payload.get("structuredContent");
        let parse = parse.with_twin(structured);
        for (i, block) in blocks.iter().enumerate() {
            let mut p = base.clone();
            pointer::push_index(&mut p, i);
            anatomy.parts.push(block_part(p, block, parse));
        }
        if let Some(structured) = structured {
            anatomy.parts.push(json_part(
                &pointer::join(at, "structuredContent"),
                structured,
            ));
        }
        return anatomy;
    }
    for list in [
        ListKind::Tools,
        ListKind::Resources,
        ListKind::ResourceTemplates,
        ListKind::Prompts,
    ] {
        if payload.get(list.member()).is_some_and(Node::is_array) {
            anatomy.kind = Kind::ListResult(list);
            anatomy.parts.push(json_part(at, payload));
            return anatomy;
        }
    }
    if let Some(contents) = payload.get("contents").and_then(Node::as_array) {
        anatomy.kind = Kind::ResourceContents;
        let base = pointer::join(at, "contents");
        for (i, item) in contents.iter().enumerate() {
            let mut p = base.clone();
            pointer::push_index(&mut p, i);
            anatomy.parts.push(resource_part(p, item, parse));
        }
        return anatomy;
    }
    anatomy.parts.push(json_part(at, payload));
    anatomy
}

fn json_part<'a, N: Clone>(at: &str, value: &'a N) -> Part<'a, N> {
    Part {
        pointer: at.to_owned(),
        content: PartContent::Json(value),
    }
}

/// Whether the JSON inside text blocks is parsed, and the value a text block may be written
/// out from (a tool result's `structuredContent`).
enum Parse<'a, N: ReadText<'a>> {
    No,
    Text {
        twin: Option<&'a N>,
        reader: N::Reader,
    },
}

impl<'a, N: ReadText<'a>> Clone for Parse<'a, N> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<'a, N: ReadText<'a>> Copy for Parse<'a, N> {}

impl<'a, N: ReadText<'a>> Parse<'a, N> {
    /// The same choice, with the value text blocks may be written out from.
    fn with_twin(self, twin: Option<&'a N>) -> Parse<'a, N> {
        match self {
            Parse::No => Parse::No,
            Parse::Text { reader, .. } => Parse::Text { twin, reader },
        }
    }
}

fn text_part<'a, N: ReadText<'a> + Clone>(
    pointer: String,
    text: &'a str,
    parse: Parse<'a, N>,
) -> Part<'a, N> {
    let (json, compact) = match parse {
        Parse::No => (None, false),
        Parse::Text { twin, reader } => match twin.and_then(|s| written_from(text, s)) {
            // Most often the text is the value's compact JSON (as the TypeScript SDK writes
            // it): bytes compared as the value is walked, cheaper than reading the text.
            Some(twin) if crate::json::compact::is_written(twin, text.as_bytes()) => {
                (Some(Cow::Borrowed(twin)), true)
            }
            Some(twin) if writes_out(text, twin) => (Some(Cow::Borrowed(twin)), false),
            _ => (parse_json_text(text, reader).map(Cow::Owned), false),
        },
    };
    Part {
        pointer,
        content: PartContent::Text {
            text,
            json,
            compact,
        },
    }
}

/// structuredContent's compact JSON, taken from a text block of `anatomy` that is its tree (or
/// the list its one member wraps) written out compact: the text itself, or the text inside the
/// wrapper's braces. `None` when no text block is.
pub fn written_compact<'a, N: Node + Clone>(
    anatomy: &Anatomy<'a, N>,
    structured: &N,
) -> Option<Cow<'a, str>> {
    anatomy.parts.iter().find_map(|part| {
        let PartContent::Text {
            text,
            json: Some(tree),
            compact: true,
        } = &part.content
        else {
            return None;
        };
        Some(match twin_of(structured, tree)? {
            Twin::Whole => Cow::Borrowed(*text),
            Twin::Wrapped { key } => {
                let mut head = Vec::with_capacity(key.len() + 4);
                head.push(b'{');
                crate::json::compact::write_str(&mut head, key);
                head.push(b':');
                // Only the key's few bytes are checked as UTF-8, not the (long) text after it.
                let mut out = String::from_utf8(head).ok()?;
                out.reserve(text.len() + 1);
                out.push_str(text);
                out.push('}');
                Cow::Owned(out)
            }
        })
    })
}

/// The JSON inside a text block, when the text is exactly one JSON object or array.
pub fn parse_json_text<'a, N: ReadText<'a>>(text: &'a str, reader: N::Reader) -> Option<N> {
    looks_like_json(text)
        .then(|| N::read(text, reader))
        .flatten()
}

/// What of `structured` a JSON text could be written out from: the object itself for an
/// object, and for an array the one member of a wrapper object (`{"result": [...]}`, as the
/// SDKs wrap a tool's list; structuredContent is always an object).
fn written_from<'a, N: Node>(text: &str, structured: &'a N) -> Option<&'a N> {
    match text.trim_start().as_bytes().first() {
        Some(b'{') => Some(structured),
        Some(b'[') => wrapped_list(structured).map(|(_, list)| list),
        _ => None,
    }
}

/// The key and the list of a one-member wrapper object (`{"items": [...]}`).
fn wrapped_list<N: Node>(structured: &N) -> Option<(&str, &N)> {
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
fn writes_out<N: Node>(text: &str, value: &N) -> bool {
    let mut reader = serde_json::Deserializer::from_str(text);
    Same(value).deserialize(&mut reader).is_ok() && reader.end().is_ok()
}

/// A seed that reads a JSON value and fails at the first thing that differs from its own.
struct Same<'v, N>(&'v N);

impl<'de, N: Node> DeserializeSeed<'de> for Same<'_, N> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, reader: D) -> Result<(), D::Error> {
        reader.deserialize_any(self)
    }
}

/// The error that stops the reading at a difference (never shown).
fn differs<E: de::Error>() -> E {
    E::custom("differs")
}

fn same_or_differs<E: de::Error>(same: bool) -> Result<(), E> {
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
struct Key<'k>(&'k str);

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

/// True when a text starts (after whitespace) as a JSON object or array would.
pub fn looks_like_json(text: &str) -> bool {
    let trimmed = text.trim_start();
    trimmed.starts_with('{') || trimmed.starts_with('[')
}

fn block_part<'a, N: ReadText<'a> + Clone>(
    at: String,
    block: &'a N,
    parse: Parse<'a, N>,
) -> Part<'a, N> {
    let kind = block.get("type").and_then(Node::as_str).unwrap_or("");
    match kind {
        "text" => match block.get("text").and_then(Node::as_str) {
            Some(text) => text_part(pointer::join(&at, "text"), text, parse),
            None => json_part(&at, block),
        },
        "image" | "audio" => Part {
            content: PartContent::Media {
                mime: block.get("mimeType").and_then(Node::as_str).unwrap_or(""),
                data_bytes: block.get("data").and_then(Node::as_str).map_or(0, str::len),
            },
            pointer: at,
        },
        "resource" => match block.get("resource") {
            Some(resource) => resource_part(pointer::join(&at, "resource"), resource, parse),
            None => json_part(&at, block),
        },
        // resource_link and anything newer: the model sees the block as JSON.
        _ => json_part(&at, block),
    }
}

fn resource_part<'a, N: ReadText<'a> + Clone>(
    at: String,
    resource: &'a N,
    parse: Parse<'a, N>,
) -> Part<'a, N> {
    if let Some(text) = resource.get("text").and_then(Node::as_str) {
        return text_part(pointer::join(&at, "text"), text, parse);
    }
    if let Some(blob) = resource.get("blob").and_then(Node::as_str) {
        return Part {
            content: PartContent::Media {
                mime: resource
                    .get("mimeType")
                    .and_then(Node::as_str)
                    .unwrap_or(""),
                data_bytes: blob.len(),
            },
            pointer: pointer::join(&at, "blob"),
        };
    }
    json_part(&at, resource)
}

/// For property tests: small JSON values whose numbers include 0.0, -0.0 and 1.0 (written
/// otherwise than the integers 0 and 1) and whose strings need escapes.
#[cfg(test)]
fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let scalars = prop_oneof![
        (-3i64..3).prop_map(Value::from),
        prop_oneof![Just(0.0), Just(-0.0), Just(1.0), Just(0.5)].prop_map(Value::from),
    ];
    crate::json::compact::random_json(scalars, "[ab\"é]{0,2}", 3, 3)
}

/// For property tests: structuredContent (an object, often one member wrapping a list) and a
/// text block: the text written from it, from what it wraps, or from another value, compact or
/// indented, and now and then with one of its numbers or strings changed.
#[cfg(test)]
pub(crate) fn structured_and_text() -> impl proptest::strategy::Strategy<Value = (Value, String)> {
    use proptest::prelude::*;
    use serde_json::json;
    let wrapper = (prop_oneof![Just("items"), Just("result")], json_value())
        .prop_map(|(k, v)| json!({ k: if v.is_array() { v } else { json!([v]) } }));
    let object = json_value().prop_map(|v| if v.is_object() { v } else { json!({"v": v}) });
    let structured = prop_oneof![wrapper, object];
    (
        structured,
        json_value(),
        0..3usize,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(structured, other, source, pretty, nudge)| {
            let inner = structured
                .as_object()
                .and_then(|m| m.values().next())
                .cloned();
            let from = match source {
                0 => structured.clone(),
                1 => inner.unwrap_or(Value::Null),
                _ => other,
            };
            let mut text = if pretty {
                serde_json::to_string_pretty(&from).unwrap()
            } else {
                serde_json::to_string(&from).unwrap()
            };
            if nudge {
                // The first 0 becomes -0 (and 0.0 -0.0), or the first "a" "b".
                text = text
                    .replacen(":0", ":-0", 1)
                    .replacen("[0", "[-0", 1)
                    .replacen("\"a", "\"b", 1);
            }
            (structured, text)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// The text block's tree: borrowed from structuredContent or parsed, and what it holds.
    fn text_json(text: &str, structured: &Value) -> (bool, Option<Value>) {
        let doc =
            json!({"content": [{"type": "text", "text": text}], "structuredContent": structured});
        let a = anatomy(&doc, "");
        match &a.parts[0].content {
            PartContent::Text { json, .. } => (
                matches!(json, Some(Cow::Borrowed(_))),
                json.as_ref().map(|v| v.as_ref().clone()),
            ),
            other => panic!("not a text part: {other:?}"),
        }
    }

    #[test]
    fn a_text_block_written_out_from_structured_content_borrows_its_tree() {
        let structured = json!({"items": [{"id": 1, "name": "é\"x", "ok": true, "v": [0.5, -2, null]}], "total": 1});
        for text in [
            serde_json::to_string(&structured).unwrap(),
            serde_json::to_string_pretty(&structured).unwrap(),
            // The same strings escaped otherwise.
            r#"{"items":[{"id":1,"name":"\u00e9\"\u0078","ok":true,"v":[0.5,-2,null]}],"total":1}"#
                .to_owned(),
        ] {
            assert_eq!(
                text_json(&text, &structured),
                (true, Some(structured.clone())),
                "{text}"
            );
        }
        // A list, and structuredContent the object that wraps it.
        let list = json!([{"id": 0, "tags": ["a"]}, {"id": 1, "tags": []}]);
        let text = serde_json::to_string(&list).unwrap();
        for wrapper in [json!({"items": list}), json!({"result": list})] {
            assert_eq!(text_json(&text, &wrapper), (true, Some(list.clone())));
        }
        // Not when the wrapper has more than the list, or the list is another.
        for not_a_wrapper in [
            json!({"items": list, "total": 2}),
            json!({"items": [list[0]]}),
        ] {
            assert_eq!(
                text_json(&text, &not_a_wrapper),
                (false, Some(list.clone()))
            );
        }
    }

    #[test]
    fn a_twin_is_the_same_tree_not_an_equal_one() {
        let structured = json!({"items": [1, 2]});
        let list = &structured["items"];
        assert_eq!(twin_of(&structured, &structured), Some(Twin::Whole));
        assert_eq!(
            twin_of(&structured, list),
            Some(Twin::Wrapped { key: "items" })
        );
        assert_eq!(twin_of(&structured, &structured.clone()), None);
        assert_eq!(twin_of(&structured, &list.clone()), None);
        let empty = json!({"items": []});
        assert_eq!(twin_of(&empty, &empty["items"]), None);
    }

    #[test]
    fn a_text_block_repeats_structured_content_or_the_list_it_wraps() {
        let list = json!([{"id": 1, "tags": ["a"]}]);
        let object = json!({"a": 1, "b": list});
        assert!(repeats_structured(&object, &object));
        // Equal as JSON values: another key order is the same object.
        assert!(repeats_structured(&object, &json!({"b": list, "a": 1})));
        assert!(repeats_structured(&json!({"items": list}), &list));
        assert!(repeats_structured(&json!({"result": list}), &list.clone()));
        for (structured, json) in [
            (json!({"items": list, "total": 1}), list.clone()),
            (json!({"items": [1]}), list.clone()),
            (json!({"items": {"id": 1}}), json!({"id": 1})),
            (object.clone(), json!({"a": 1})),
        ] {
            assert!(
                !repeats_structured(&structured, &json),
                "{structured} {json}"
            );
        }
    }

    #[test]
    fn a_text_block_that_differs_in_any_way_is_parsed_on_its_own() {
        let structured = json!({"a": 1, "b": [0.0, "x"]});
        for text in [
            r#"{"b":[0.0,"x"],"a":1}"#,       // another order
            r#"{"a":1.0,"b":[0.0,"x"]}"#,     // a float for an integer
            r#"{"a":1,"b":[-0.0,"x"]}"#,      // -0.0 is written otherwise
            r#"{"a":1,"b":[0.0,"y"]}"#,       // another string
            r#"{"a":1,"b":[0.0]}"#,           // an item fewer
            r#"{"a":1,"b":[0.0,"x",null]}"#,  // an item more
            r#"{"a":1}"#,                     // a member fewer
            r#"{"a":1,"b":[0.0,"x"],"c":2}"#, // a member more
            r#"{"a":0,"a":1,"b":[0.0,"x"]}"#, // a duplicate key (the last wins)
            r#"[1]"#,
        ] {
            let parsed: Value = serde_json::from_str(text).unwrap();
            assert_eq!(
                text_json(text, &structured),
                (false, Some(parsed)),
                "{text}"
            );
        }
        // Not JSON at all, or JSON with something after it: no tree, as before.
        assert_eq!(
            text_json(r#"{"a":1,"b":[0.0,"x"]} and more"#, &structured),
            (false, None)
        );
        assert_eq!(text_json("a=1", &structured), (false, None));
    }

    /// What an anatomy shows, whichever tree it was read from: the kind, the id and payload,
    /// and each part with its pointer, its text, its tree (and whether that tree is borrowed
    /// from structuredContent) and whether the text is that tree's compact JSON.
    fn shown<'a, N: Node + Clone>(a: &Anatomy<'a, N>) -> String {
        let parts: Vec<String> = a
            .parts
            .iter()
            .map(|p| {
                let content = match &p.content {
                    PartContent::Text {
                        text,
                        json,
                        compact,
                    } => format!(
                        "text {text:?} json {:?} borrowed {} compact {compact}",
                        json.as_ref().map(|j| j.to_value().to_string()),
                        matches!(json, Some(Cow::Borrowed(_)))
                    ),
                    PartContent::Media { mime, data_bytes } => format!("media {mime} {data_bytes}"),
                    PartContent::Json(v) => format!("json {}", v.to_value()),
                    PartContent::Raw(text) => format!("raw {text:?}"),
                };
                format!("{} {content}", p.pointer)
            })
            .collect();
        format!(
            "{:?} id {:?} payload {} at {:?} error {} parts {parts:#?}",
            a.kind,
            a.id.map(|i| i.to_value()),
            a.payload.to_value(),
            a.payload_pointer,
            a.is_error
        )
    }

    fn same_anatomy_from_either_tree(text: &str) {
        let value = crate::json::parse::parse(text).unwrap();
        let arena = bumpalo::Bump::new();
        let json = crate::json::borrowed::parse(text, &arena).unwrap();
        assert_eq!(
            shown(&anatomy_in(&json, text, &arena)),
            shown(&anatomy(&value, text))
        );
        assert_eq!(
            shown(&anatomy_shallow(&json, text)),
            shown(&anatomy_shallow(&value, text))
        );
    }

    #[test]
    fn the_borrowed_tree_shows_what_serde_json_s_shows() {
        for entry in std::fs::read_dir("tests/fixtures/corpus").unwrap() {
            same_anatomy_from_either_tree(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
        }
        for text in [
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"u","text":"[1]"},{"uri":"v","blob":"AAAA","mimeType":"image/png"}]}}"#,
            r#"{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"resource","resource":{"text":"{\"a\":1}"}}],"isError":true}"#,
            r#"{"plain": ["json"]}"#,
        ] {
            same_anatomy_from_either_tree(text);
        }
    }

    proptest! {
        /// structuredContent's compact JSON is taken from the text exactly when the text is it,
        /// or the non-empty list it wraps written compact; and it is then what is written.
        #[test]
        fn structured_content_taken_from_its_text_is_its_compact_json(
            (structured, text) in structured_and_text()
        ) {
            let doc = json!({"content": [{"type": "text", "text": text}], "structuredContent": structured});
            let a = anatomy(&doc, "");
            let structured = &doc["structuredContent"];
            let compact = crate::json::compact::string(structured);
            let list = structured
                .as_object()
                .filter(|m| m.len() == 1)
                .and_then(|m| m.values().next())
                .filter(|l| l.as_array().is_some_and(|items| !items.is_empty()));
            let taken = text == compact || list.is_some_and(|l| text == crate::json::compact::string(l));
            let from_text = written_compact(&a, structured);
            prop_assert_eq!(from_text.is_some(), taken);
            if let Some(from_text) = from_text {
                prop_assert_eq!(from_text.as_ref(), compact.as_str());
            }
        }

        /// The text blocks of the property documents read the same from the borrowed tree.
        #[test]
        fn the_borrowed_tree_finds_the_same_twins((structured, text) in structured_and_text()) {
            let doc = json!({"content": [{"type": "text", "text": text}], "structuredContent": structured});
            same_anatomy_from_either_tree(&doc.to_string());
        }

        /// Borrowed exactly when the text's own tree is structuredContent's, or the list it
        /// wraps, written the same (so equal bit for bit); and the tree is always the text's.
        #[test]
        fn the_text_block_tree_is_always_the_texts_own((structured, text) in structured_and_text()) {
            let own: Option<Value> = parse_json_text(&text, ());
            let (borrowed, tree) = text_json(&text, &structured);
            let written = |v: Option<&Value>| v.map(|v| serde_json::to_string(v).unwrap());
            prop_assert_eq!(written(tree.as_ref()), written(own.as_ref()));
            let twin = match (&own, &structured) {
                (Some(Value::Array(_)), Value::Object(m)) if m.len() == 1 => m.values().next(),
                (Some(Value::Object(_)), _) => Some(&structured),
                _ => None,
            };
            let identical = own.is_some() && written(own.as_ref()) == written(twin);
            prop_assert_eq!(borrowed, identical);
        }
    }

    #[test]
    fn structured_content_of_real_captures_is_taken_from_its_compact_text() {
        for (capture, taken) in [
            // The text is structuredContent written out compact.
            (
                "everything__tools_call__get-structured-content__new_york.json",
                true,
            ),
            // The text is the list `{"items": [...]}` wraps, compact.
            ("paged__tools_call__big__2000.json", true),
            // The text is not JSON, and structuredContent wraps it.
            ("filesystem__tools_call__search_files__all_rs.json", false),
        ] {
            let text = std::fs::read_to_string(format!("tests/fixtures/corpus/{capture}")).unwrap();
            let doc: Value = serde_json::from_str(&text).unwrap();
            let a = anatomy(&doc, &text);
            let structured = &doc["result"]["structuredContent"];
            let compact = crate::json::compact::string(structured);
            match written_compact(&a, structured) {
                Some(from_text) => assert!(taken && from_text == compact, "{capture}"),
                None => assert!(!taken, "{capture}"),
            }
            // The same without the text's being compact: indented, it is parsed on its own.
            let mut indented = doc.clone();
            if let Some(t) = indented["result"]["content"][0]["text"].as_str()
                && let Ok(tree) = serde_json::from_str::<Value>(t)
            {
                indented["result"]["content"][0]["text"] =
                    serde_json::to_string_pretty(&tree).unwrap().into();
                let a = anatomy(&indented, "");
                assert!(written_compact(&a, &indented["result"]["structuredContent"]).is_none());
            }
        }
    }

    #[test]
    fn tool_result_parts() {
        let v = json!({"jsonrpc":"2.0","id":7,"result":{
            "content":[{"type":"text","text":"{\"a\":1}"},{"type":"image","data":"AAAA","mimeType":"image/png"}],
            "structuredContent":{"a":1}}});
        let a = anatomy(&v, "");
        assert_eq!(a.kind, Kind::ToolResult);
        assert_eq!(a.id, Some(&json!(7)));
        let pointers: Vec<_> = a.parts.iter().map(|p| p.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/result/content/0/text",
                "/result/content/1",
                "/result/structuredContent"
            ]
        );
        assert!(matches!(
            &a.parts[0].content,
            PartContent::Text { json: Some(_), .. }
        ));
        assert!(matches!(
            a.parts[1].content,
            PartContent::Media { data_bytes: 4, .. }
        ));
    }

    #[test]
    fn plain_and_lists() {
        let v = json!({"bookings": []});
        assert_eq!(anatomy(&v, "{\"bookings\": []}").kind, Kind::Plain);
        let v = json!({"jsonrpc":"2.0","id":1,"result":{"tools":[]}});
        assert_eq!(anatomy(&v, "").kind, Kind::ListResult(ListKind::Tools));
        let v = json!({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}});
        assert_eq!(anatomy(&v, "").kind, Kind::Error);
        let v = json!({"content":[{"type":"text","text":"hi"}]});
        assert_eq!(anatomy(&v, "").kind, Kind::ToolResult);
    }
}
