//! What of a document the model sees, piece by piece with the JSON pointer of each: the text of
//! content blocks (a JSON text block parsed so its structure can be measured), images and audio,
//! `structuredContent`, and for other results the result itself.

use std::borrow::Cow;

use serde_json::Value;

use crate::json::node::{Node, ReadText};
use crate::json::pointer;

use super::kind::{Kind, ListKind};
use super::twin::{Twin, twin_of, writes_out, written_from};

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
    /// An image or audio block, or an embedded binary resource: `data` is its base64 text
    /// (see [`crate::tokens::media`] for what it costs).
    Media { mime: &'a str, data: &'a str },
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

pub(super) fn anatomy_with<'a, N: ReadText<'a> + Clone>(
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

pub(super) fn payload_anatomy<'a, N: ReadText<'a> + Clone>(
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

pub(super) fn json_part<'a, N: Clone>(at: &str, value: &'a N) -> Part<'a, N> {
    Part {
        pointer: at.to_owned(),
        content: PartContent::Json(value),
    }
}

/// Whether the JSON inside text blocks is parsed, and the value a text block may be written
/// out from (a tool result's `structuredContent`).
pub(super) enum Parse<'a, N: ReadText<'a>> {
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
    pub(super) fn with_twin(self, twin: Option<&'a N>) -> Parse<'a, N> {
        match self {
            Parse::No => Parse::No,
            Parse::Text { reader, .. } => Parse::Text { twin, reader },
        }
    }
}

pub(super) fn text_part<'a, N: ReadText<'a> + Clone>(
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

/// The JSON inside a text block, when the text is exactly one JSON object or array.
pub fn parse_json_text<'a, N: ReadText<'a>>(text: &'a str, reader: N::Reader) -> Option<N> {
    looks_like_json(text)
        .then(|| N::read(text, reader))
        .flatten()
}

/// True when a text starts (after whitespace) as a JSON object or array would.
pub fn looks_like_json(text: &str) -> bool {
    let trimmed = text.trim_start();
    trimmed.starts_with('{') || trimmed.starts_with('[')
}

pub(super) fn block_part<'a, N: ReadText<'a> + Clone>(
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
                data: block.get("data").and_then(Node::as_str).unwrap_or(""),
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

pub(super) fn resource_part<'a, N: ReadText<'a> + Clone>(
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
                data: blob,
            },
            pointer: pointer::join(&at, "blob"),
        };
    }
    json_part(&at, resource)
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
