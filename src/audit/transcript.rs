//! Pairing a JSONL transcript's responses with their requests, so each response knows its
//! method, its tool and the arguments it was called with.

use std::collections::HashMap;

use serde_json::Value;

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
}

/// What one transcript line is.
pub enum Line {
    /// A request (kept for pairing) or a notification: not audited.
    Request,
    /// A response, with the call it answers.
    Response(Call),
    /// Not a JSON-RPC message: audited as it is.
    Other,
}

/// The requests seen so far in one transcript, by id.
#[derive(Default)]
pub struct Pairing {
    pending: HashMap<String, Call>,
}

impl Pairing {
    /// Records a request, or pairs a response with the request that had its id.
    pub fn observe(&mut self, message: &Value) -> Line {
        if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Line::Other;
        }
        let id = message
            .get("id")
            .filter(|v| !v.is_null())
            .map(Value::to_string);
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            if let Some(id) = id {
                let params = message.get("params");
                self.pending.insert(
                    id,
                    Call {
                        method: Some(method.to_owned()),
                        tool: (method == "tools/call")
                            .then(|| params.and_then(|p| p.get("name")).and_then(Value::as_str))
                            .flatten()
                            .map(str::to_owned),
                        arguments: params.and_then(|p| p.get("arguments")).cloned(),
                        cursor: params
                            .and_then(|p| p.get("cursor"))
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        latency_ms: None,
                        unmatched: false,
                    },
                );
            }
            return Line::Request;
        }
        if message.get("result").is_some() || message.get("error").is_some() {
            let call = id.and_then(|id| self.pending.remove(&id));
            return Line::Response(call.unwrap_or(Call {
                unmatched: true,
                ..Call::default()
            }));
        }
        Line::Other
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
