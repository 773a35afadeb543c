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

use serde_json::Value;

use crate::pointer;

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
pub struct Part<'a> {
    /// Where it sits in the document (JSON pointer).
    pub pointer: String,
    pub content: PartContent<'a>,
}

#[derive(Clone, Debug)]
pub enum PartContent<'a> {
    /// Text the model reads: a text content block, a text resource. `json` holds the parsed
    /// value when the whole text is a JSON object or array.
    Text { text: &'a str, json: Option<Value> },
    /// An image or audio block: a fixed token cost, whatever its size. `data_bytes` is the
    /// length of its base64 data on the wire.
    Media { mime: &'a str, data_bytes: usize },
    /// JSON shown to the model as JSON: `structuredContent`, a list result, a resource link,
    /// an error object.
    Json(&'a Value),
    /// The document's own text, for plain JSON passed as-is.
    Raw(&'a str),
}

/// A document taken apart.
#[derive(Clone, Debug)]
pub struct Anatomy<'a> {
    pub kind: Kind,
    /// The JSON-RPC id, when the document is a JSON-RPC message that has one.
    pub id: Option<&'a Value>,
    /// Where the payload (the result, or the document itself) starts.
    pub payload_pointer: &'static str,
    pub payload: &'a Value,
    /// `isError: true` on a tool result.
    pub is_error: bool,
    pub parts: Vec<Part<'a>>,
}

/// Recognises `value` (whose exact text is `text`) and lists what the model sees.
pub fn anatomy<'a>(value: &'a Value, text: &'a str) -> Anatomy<'a> {
    anatomy_with(value, text, true)
}

/// [`anatomy`] without parsing the JSON inside text blocks (`json` is always `None`), for a
/// caller that parses it its own way (summarize samples a 100 MB text instead of building it).
pub fn anatomy_shallow<'a>(value: &'a Value, text: &'a str) -> Anatomy<'a> {
    anatomy_with(value, text, false)
}

fn anatomy_with<'a>(value: &'a Value, text: &'a str, parse: bool) -> Anatomy<'a> {
    let envelope = value.get("jsonrpc").is_some_and(|v| v == "2.0");
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

fn payload_anatomy<'a>(
    payload: &'a Value,
    at: &'static str,
    id: Option<&'a Value>,
    parse: bool,
) -> Anatomy<'a> {
    let mut anatomy = Anatomy {
        kind: Kind::OtherResult,
        id,
        payload_pointer: at,
        payload,
        is_error: payload.get("isError").and_then(Value::as_bool) == Some(true),
        parts: Vec::new(),
    };
    if let Some(blocks) = payload.get("content").and_then(Value::as_array)
        && blocks
            .iter()
            .all(|b| b.get("type").is_some_and(Value::is_string))
    {
        anatomy.kind = Kind::ToolResult;
        let base = pointer::join(at, "content");
        for (i, block) in blocks.iter().enumerate() {
            let mut p = base.clone();
            pointer::push_index(&mut p, i);
            anatomy.parts.push(block_part(p, block, parse));
        }
        if let Some(structured) = payload.get("structuredContent") {
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
        if payload.get(list.member()).is_some_and(Value::is_array) {
            anatomy.kind = Kind::ListResult(list);
            anatomy.parts.push(json_part(at, payload));
            return anatomy;
        }
    }
    if let Some(contents) = payload.get("contents").and_then(Value::as_array) {
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

fn json_part<'a>(at: &str, value: &'a Value) -> Part<'a> {
    Part {
        pointer: at.to_owned(),
        content: PartContent::Json(value),
    }
}

fn text_part(pointer: String, text: &str, parse: bool) -> Part<'_> {
    Part {
        pointer,
        content: PartContent::Text {
            text,
            json: if parse { parse_json_text(text) } else { None },
        },
    }
}

/// The JSON inside a text block, when the text is exactly one JSON object or array.
pub fn parse_json_text(text: &str) -> Option<Value> {
    looks_like_json(text)
        .then(|| serde_json::from_str(text).ok())
        .flatten()
}

/// True when a text starts (after whitespace) as a JSON object or array would.
pub fn looks_like_json(text: &str) -> bool {
    let trimmed = text.trim_start();
    trimmed.starts_with('{') || trimmed.starts_with('[')
}

fn block_part(at: String, block: &Value, parse: bool) -> Part<'_> {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "text" => match block.get("text").and_then(Value::as_str) {
            Some(text) => text_part(pointer::join(&at, "text"), text, parse),
            None => json_part(&at, block),
        },
        "image" | "audio" => Part {
            content: PartContent::Media {
                mime: block.get("mimeType").and_then(Value::as_str).unwrap_or(""),
                data_bytes: block
                    .get("data")
                    .and_then(Value::as_str)
                    .map_or(0, str::len),
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

fn resource_part(at: String, resource: &Value, parse: bool) -> Part<'_> {
    if let Some(text) = resource.get("text").and_then(Value::as_str) {
        return text_part(pointer::join(&at, "text"), text, parse);
    }
    if let Some(blob) = resource.get("blob").and_then(Value::as_str) {
        return Part {
            content: PartContent::Media {
                mime: resource
                    .get("mimeType")
                    .and_then(Value::as_str)
                    .unwrap_or(""),
                data_bytes: blob.len(),
            },
            pointer: pointer::join(&at, "blob"),
        };
    }
    json_part(&at, resource)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
