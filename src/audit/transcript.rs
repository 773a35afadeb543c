//! Pairing a JSONL transcript's responses with their requests, so each response knows its
//! method, its tool, the arguments it was called with and the protocol version it was asked
//! under; and remembering what the transcript showed earlier where a rule needs it (the
//! order of the last tools/list, each tool's outputSchema for the calls that follow).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::json::node::Node;
use crate::net::mcp::era;

/// A tool's outputSchema, as listed earlier in the transcript, compiled on first use.
pub struct OutputSchema {
    pub schema: Value,
    compiled: OnceLock<Result<jsonschema::Validator, String>>,
}

impl OutputSchema {
    pub fn new(schema: Value) -> OutputSchema {
        OutputSchema {
            schema,
            compiled: OnceLock::new(),
        }
    }

    /// The validator, or why the schema cannot be compiled (an unresolvable `$ref`, an
    /// invalid keyword: MG028 reports those on the listing).
    pub fn validator(&self) -> Result<&jsonschema::Validator, &str> {
        self.compiled
            .get_or_init(|| jsonschema::validator_for(&self.schema).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(String::as_str)
    }
}

impl std::fmt::Debug for OutputSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("OutputSchema").field(&self.schema).finish()
    }
}

impl PartialEq for OutputSchema {
    fn eq(&self, other: &OutputSchema) -> bool {
        self.schema == other.schema
    }
}

/// What the request behind a response said.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Call {
    pub method: Option<String>,
    /// `params.name` of a `tools/call`.
    pub tool: Option<String>,
    pub arguments: Option<Value>,
    /// `params.cursor` of a list request.
    pub cursor: Option<String>,
    pub latency_ms: Option<f64>,
    /// A response whose id no earlier request had.
    pub unmatched: bool,
    /// The protocol version the request declared in its `_meta` (2026-07-28 requests do).
    pub protocol_version: Option<String>,
    /// For tools/call: the tool's outputSchema from the last tools/list before it.
    pub output_schema: Option<Arc<OutputSchema>>,
    /// For tools/list: the order of an earlier listing of the same page that held the same
    /// tools, when this one lists them in another order.
    pub earlier_order: Option<Arc<Vec<String>>>,
}

impl Call {
    /// What a request (one with a method) asks.
    fn asked_by<N: Node>(request: &N) -> Call {
        let method = request.get("method").and_then(N::as_str);
        let params = request.get("params");
        Call {
            method: method.map(str::to_owned),
            tool: (method == Some("tools/call"))
                .then(|| params.and_then(|p| p.get("name")).and_then(N::as_str))
                .flatten()
                .map(str::to_owned),
            arguments: params.and_then(|p| p.get("arguments")).map(N::to_value),
            cursor: params
                .and_then(|p| p.get("cursor"))
                .and_then(N::as_str)
                .map(str::to_owned),
            latency_ms: None,
            unmatched: false,
            protocol_version: era::declared_version(request).map(str::to_owned),
            output_schema: None,
            earlier_order: None,
        }
    }
}

/// What one transcript line is.
pub enum Line {
    /// A request (kept for pairing) or a notification: not audited.
    Request,
    /// A response, with the call it answers.
    Response(Box<Call>),
    /// Not a JSON-RPC message: audited as it is.
    Other,
}

/// Whether a message is what [`Pairing::observe`] takes as a request (a notification too):
/// JSON-RPC 2.0 with a method. Not audited.
pub fn is_request<N: Node>(message: &N) -> bool {
    message.get("jsonrpc").and_then(N::as_str) == Some("2.0")
        && message.get("method").and_then(N::as_str).is_some()
}

/// The requests seen so far in one transcript, by id.
#[derive(Default)]
pub struct Pairing {
    pending: HashMap<String, Call>,
    /// Tool name -> outputSchema, from the latest tools/list pages.
    output_schemas: HashMap<String, Arc<OutputSchema>>,
    /// tools/list page (by the cursor asked for) -> what it listed last.
    listings: HashMap<Option<String>, Listing>,
}

impl Pairing {
    /// Records a request, or pairs a response with the request that had its id.
    pub fn observe(&mut self, message: &Value) -> Line {
        self.observe_tree(message, || Cow::Borrowed(message))
    }

    /// [`Pairing::observe`] on any tree of the message; `value` gives serde_json's for a
    /// tools/list page, whose tools and schemas are kept (a few messages, read once more).
    pub fn observe_tree<'v, N: Node>(
        &mut self,
        message: &N,
        value: impl FnOnce() -> Cow<'v, Value>,
    ) -> Line {
        if message.get("jsonrpc").and_then(N::as_str) != Some("2.0") {
            return Line::Other;
        }
        let id = message
            .get("id")
            .filter(|v| !v.is_null())
            .map(crate::json::compact::string);
        if message.get("method").and_then(N::as_str).is_some() {
            if let Some(id) = id {
                self.pending.insert(id, Call::asked_by(message));
            }
            return Line::Request;
        }
        if message.get("result").is_some() || message.get("error").is_some() {
            let mut call = id.and_then(|id| self.pending.remove(&id)).unwrap_or(Call {
                unmatched: true,
                ..Call::default()
            });
            match call.method.as_deref() {
                Some("tools/list") => self.remember_listing(&mut call, &value()),
                Some("tools/call") => {
                    call.output_schema = call
                        .tool
                        .as_ref()
                        .and_then(|t| self.output_schemas.get(t))
                        .cloned();
                }
                _ => {}
            }
            return Line::Response(Box::new(call));
        }
        Line::Other
    }
}

impl Pairing {
    /// Takes note of a tools/list page: its tools' output schemas, and its order against the
    /// last listing of the same page.
    fn remember_listing(&mut self, call: &mut Call, message: &Value) {
        let Some(tools) = message.pointer("/result/tools").and_then(Value::as_array) else {
            return;
        };
        let mut names = Vec::with_capacity(tools.len());
        let mut definitions = Vec::with_capacity(tools.len());
        for tool in tools {
            definitions.push(xxhash_rust::xxh3::xxh3_64(tool.to_string().as_bytes()));
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            names.push(name.to_owned());
            match tool.get("outputSchema") {
                Some(schema) if schema.is_object() || schema.is_boolean() => {
                    self.output_schemas
                        .insert(name.to_owned(), Arc::new(OutputSchema::new(schema.clone())));
                }
                _ => {
                    self.output_schemas.remove(name);
                }
            }
        }
        let listing = Listing {
            names: Arc::new(names),
            definitions,
        };
        if let Some(earlier) = self.listings.get(&call.cursor)
            && earlier.definitions != listing.definitions
            && earlier.same_tools(&listing)
        {
            call.earlier_order = Some(Arc::clone(&earlier.names));
        }
        self.listings.insert(call.cursor.clone(), listing);
    }
}

/// One tools/list page as listed: names in order, and a fingerprint of each definition.
struct Listing {
    names: Arc<Vec<String>>,
    definitions: Vec<u64>,
}

impl Listing {
    /// Whether two listings hold the same definitions, whatever their order: an unchanged
    /// catalog.
    fn same_tools(&self, other: &Listing) -> bool {
        let mut a = self.definitions.clone();
        let mut b = other.definitions.clone();
        a.sort_unstable();
        b.sort_unstable();
        a == b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pairs_by_id() {
        let mut p = Pairing::default();
        assert!(matches!(
            p.observe(&json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"m":"hi"}}})),
            Line::Request
        ));
        match p.observe(&json!({"jsonrpc":"2.0","id":7,"result":{}})) {
            Line::Response(call) => {
                assert_eq!(call.tool.as_deref(), Some("echo"));
                assert_eq!(call.arguments, Some(json!({"m":"hi"})));
            }
            _ => panic!("a response"),
        }
        match p.observe(&json!({"jsonrpc":"2.0","id":7,"result":{}})) {
            Line::Response(call) => assert!(call.unmatched, "the request was used up"),
            _ => panic!("a response"),
        }
    }
}
