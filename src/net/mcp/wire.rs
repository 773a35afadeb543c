//! The messages of one exchange: a request as sent, what came back for it, the server's own
//! requests answered at once, and a line of the wire parsed with an error that names the
//! method.

use serde_json::{Value, json};

use crate::net::version;

use super::ClientError;
use super::{era, framing};

/// One message from the server: its exact text and its parsed value.
pub(super) type Incoming = (String, Value);

/// What a transport hands back for one request.
pub(super) struct Received {
    /// The response.
    pub(super) response: Incoming,
    /// What came before it, in order: the server's notifications and requests, and
    /// mcpguard's answers to those requests.
    pub(super) others: Vec<Incoming>,
}

/// A message to send, with what the transport needs to know of it.
pub(super) struct Outgoing<'a> {
    /// The request id; `None` for a notification or an answer.
    pub(super) id: Option<u64>,
    pub(super) method: &'a str,
    /// `params.name` or `params.uri`: HTTP's Mcp-Name on 2026-07-28.
    pub(super) name: Option<&'a str>,
    /// The protocol version the message is sent under (HTTP's MCP-Protocol-Version); `None`
    /// for `initialize`, which carries it in its body.
    pub(super) version: Option<&'a str>,
    /// `Mcp-Param-*` headers of a 2026-07-28 tools/call over HTTP.
    pub(super) param_headers: &'a [(String, String)],
    pub(super) text: &'a str,
}

impl Outgoing<'_> {
    pub(super) fn modern(&self) -> bool {
        self.version.is_some_and(era::is_modern)
    }
}

/// What one message did to a request waiting for its answer.
pub(super) enum Offer {
    /// It was the answer: everything received.
    Answered(Received),
    /// It was a request from the server: send this answer now, then keep waiting.
    Reply(String),
    /// A notification or another id's answer, kept: keep waiting.
    Kept,
}

/// The messages that arrive while a request waits for its answer. Both transports hand
/// every message here; each is parsed once (a message that is not JSON ends the wait), the
/// answer ends the wait, a request from the server is answered at once, the rest are kept in
/// order.
pub(super) struct Waiting<'a> {
    pub(super) id: u64,
    pub(super) method: &'a str,
    pub(super) modern: bool,
    pub(super) answers: bool,
    pub(super) others: Vec<Incoming>,
}

impl<'a> Waiting<'a> {
    /// `answers`: whether the transport can answer the server's requests (Streamable HTTP on
    /// 2026-07-28 may not send responses at all: such a request is kept, unanswered).
    pub(super) fn new(out: &Outgoing<'a>, answers: bool) -> Waiting<'a> {
        Waiting {
            id: out.id.unwrap_or(0),
            method: out.method,
            modern: out.modern(),
            answers,
            others: Vec::new(),
        }
    }

    pub(super) fn offer(&mut self, text: String) -> Result<Offer, ClientError> {
        let value = parse(&text, self.method)?;
        let method = value.get("method").and_then(Value::as_str);
        if method.is_none() && value.get("id").and_then(Value::as_u64) == Some(self.id) {
            return Ok(Offer::Answered(Received {
                response: (text, value),
                others: std::mem::take(&mut self.others),
            }));
        }
        let answer = match (method, value.get("id")) {
            (Some(method), Some(id)) if self.answers => {
                Some(answer_to_server(id, method, self.modern))
            }
            _ => None,
        };
        self.others.push((text, value));
        Ok(match answer {
            Some(answer) => {
                let text = answer.to_string();
                self.others.push((text.clone(), answer));
                Offer::Reply(text)
            }
            None => Offer::Kept,
        })
    }
}

/// mcpguard's answer to a request from the server: a legacy ping is answered; anything else
/// (elicitation, sampling, roots, a modern ping) is refused, since mcpguard declares no client
/// capabilities and an audit never answers for a user.
pub(super) fn answer_to_server(id: &Value, method: &str, modern: bool) -> Value {
    if method == "ping" && !modern {
        return json!({"jsonrpc": "2.0", "id": id, "result": {}});
    }
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!(
        "mcpguard does not provide {method}: it is an audit, declares no client capabilities and never answers for a user"
    )}})
}

/// A message from the server as JSON, or the error that names what was being waited for.
pub(super) fn parse(text: &str, method: &str) -> Result<Value, ClientError> {
    serde_json::from_str(text).map_err(|_| ClientError::NotJson {
        method: method.to_owned(),
        preview: text.chars().take(120).collect(),
    })
}

/// What the fuzz targets `jsonrpc_reader` and `sse_parser` run: `data` as a server's output,
/// read the way a transport reads it (stdio lines, or SSE events when `sse`), each message
/// offered to a request waiting for its answer, with mcpguard's answers to the server's own
/// requests built as they would be sent. Returns how many messages were taken.
#[doc(hidden)]
pub fn replay_for_fuzzing(data: &[u8], sse: bool, modern: bool) -> usize {
    let out = Outgoing {
        id: Some(1),
        method: "tools/call",
        name: Some("fuzz"),
        version: Some(if modern {
            version::V2026_07_28
        } else {
            version::V2025_11_25
        }),
        param_headers: &[],
        text: "{}",
    };
    let mut waiting = Waiting::new(&out, true);
    let mut events = framing::Sse::new(1 << 16);
    let mut reader = data;
    let mut taken = 0;
    loop {
        let line = match framing::read_line(&mut reader, 1 << 16) {
            Ok(framing::Line::Text(line)) => line,
            Ok(framing::Line::End | framing::Line::TooLong) | Err(_) => return taken,
        };
        let message = if sse {
            match events.line(&line) {
                Ok(Some(data)) => data,
                Ok(None) => continue,
                Err(framing::TooLarge) => return taken,
            }
        } else if line.trim().is_empty() {
            continue;
        } else {
            line
        };
        taken += 1;
        match waiting.offer(message) {
            Ok(Offer::Answered(_)) | Err(_) => return taken,
            Ok(Offer::Reply(answer)) => {
                assert!(
                    serde_json::from_str::<Value>(&answer).is_ok(),
                    "an answer is JSON"
                );
            }
            Ok(Offer::Kept) => {}
        }
    }
}

/// A short rendering of a value for an error message.
pub(super) fn preview(value: Option<&Value>) -> String {
    match value {
        None => "nothing".into(),
        Some(v) => v.to_string().chars().take(80).collect(),
    }
}
