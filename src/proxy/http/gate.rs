//! What a 2026-07-28 Streamable HTTP server refuses at its door, for the proxy standing in
//! front of a command: a stdio server sees no HTTP headers, and the one child that serves every
//! stateless request takes its era from the first request it reads, so a malformed request must
//! never reach it (one client's mistake would break the server for all). Pure: headers and a
//! body in, a [`Refusal`] (status, JSON-RPC code, message) out, the way the Python SDK's own
//! HTTP transport answers the same requests (basic/transports/streamable-http, "Server
//! Validation"; basic/index, "Per-request protocol fields").
//!
//! Also here: the HTTP status of a 2026-07-28 answer that is an error (the stdio server says
//! only the code), the `Mcp-Param-*` headers checked against the tool's inputSchema, and the
//! `Host` and `Origin` a listener accepts (DNS-rebinding protection, in front of any server).

use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use crate::net::mcp::era;
use crate::net::version;

/// Invalid Params.
const INVALID_PARAMS: i64 = -32602;
/// Method not found.
const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid Request.
const INVALID_REQUEST: i64 = -32600;
/// HeaderMismatch.
pub const HEADER_MISMATCH: i64 = -32020;

/// Why a request is refused before it reaches the server.
#[derive(Debug, PartialEq)]
pub struct Refusal {
    pub status: StatusCode,
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
    /// Whether the error keeps the request's id (the SDK answers "no session" with a null id).
    pub keeps_id: bool,
}

impl Refusal {
    fn new(status: StatusCode, code: i64, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            code,
            message: message.into(),
            data: None,
            keeps_id: true,
        }
    }
}

fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// A request with no `Mcp-Session-Id`, on its way to the shared child: it must be a whole
/// 2026-07-28 request. A legacy client's `initialize` starts a session and is not judged here;
/// responses and notifications pass (2026-07-28 defines none from the client over HTTP).
pub fn stateless(headers: &HeaderMap, body: &Value) -> Result<(), Refusal> {
    let (Some(method), Some(_)) = (body.get("method").and_then(Value::as_str), body.get("id"))
    else {
        return Ok(());
    };
    let version = header(headers, "mcp-protocol-version");
    if !version.is_some_and(era::is_modern) {
        if method == "initialize" {
            return Ok(());
        }
        // A legacy request outside a session, or one that says no version at all.
        let mut refusal = Refusal::new(
            StatusCode::BAD_REQUEST,
            INVALID_REQUEST,
            "Bad Request: Missing session ID",
        );
        refusal.keeps_id = false;
        return Err(refusal);
    }
    let meta = body.pointer("/params/_meta").and_then(Value::as_object);
    let Some(meta) = meta else {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            INVALID_PARAMS,
            format!(
                "params._meta must be an object carrying the required '{}' and '{}' envelope keys",
                era::META_PROTOCOL_VERSION,
                era::META_CLIENT_CAPABILITIES
            ),
        ));
    };
    let missing: Vec<&str> = [era::META_PROTOCOL_VERSION, era::META_CLIENT_CAPABILITIES]
        .into_iter()
        .filter(|key| !meta.contains_key(*key))
        .collect();
    if !missing.is_empty() {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            INVALID_PARAMS,
            format!(
                "params._meta is missing the required envelope key(s): {}",
                missing.join(", ")
            ),
        ));
    }
    let declared = meta
        .get(era::META_PROTOCOL_VERSION)
        .and_then(Value::as_str)
        .unwrap_or_default();
    if declared != version::V2026_07_28 {
        let mut refusal = Refusal::new(
            StatusCode::BAD_REQUEST,
            era::UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
        );
        refusal.data = Some(json!({"supported": [version::V2026_07_28], "requested": declared}));
        return Err(refusal);
    }
    if method == "initialize" {
        // No handshake in 2026-07-28: the method does not exist.
        let mut refusal = Refusal::new(StatusCode::NOT_FOUND, METHOD_NOT_FOUND, "Method not found");
        refusal.data = Some(Value::from(method));
        return Err(refusal);
    }
    Ok(())
}

/// The HTTP status of a 2026-07-28 answer: 404 for a method the server does not have, 400
/// for any other error (the SDK's mapping), 200 for a result.
pub fn status_of_answer(answer: &Value) -> StatusCode {
    match answer.pointer("/error/code").and_then(Value::as_i64) {
        None => StatusCode::OK,
        Some(METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(_) => StatusCode::BAD_REQUEST,
    }
}

/// The `Mcp-Param-*` headers of a tools/call against its tool's inputSchema (streamable-http,
/// "Server Behavior for Custom Headers"): every annotated argument present in the body must
/// come as its header, equal after decoding (integers compared as numbers); a header whose
/// value has characters a header may not carry, or whose argument is absent, is refused too.
/// `Err` is the HeaderMismatch message.
pub fn params(headers: &HeaderMap, input_schema: &Value, arguments: &Value) -> Result<(), String> {
    let expected = era::param_headers(input_schema, arguments);
    for (name, value) in &expected {
        let Some(raw) = headers.get(name.as_str()) else {
            return Err(format!(
                "{name} header is missing but the request body's argument is present"
            ));
        };
        let sent = raw
            .to_str()
            .ok()
            .and_then(era::decode_header_value)
            .ok_or_else(|| format!("{name} header has characters a header value may not carry"))?;
        let want = era::decode_header_value(value).unwrap_or_default();
        if sent != want && !same_number(&sent, &want) {
            return Err(format!(
                "{name} header does not match the request body's argument"
            ));
        }
    }
    // A header for an annotated parameter the body does not carry.
    let annotated = era::param_headers(input_schema, &fill_annotated(input_schema));
    for (name, _) in annotated {
        if headers.contains_key(name.as_str())
            && !expected.iter().any(|(n, _)| n.eq_ignore_ascii_case(&name))
        {
            return Err(format!(
                "{name} header is present but the request body has no value for it"
            ));
        }
    }
    Ok(())
}

/// Arguments with a placeholder at every annotated property: which headers a schema can name.
fn fill_annotated(schema: &Value) -> Value {
    let mut out = serde_json::Map::new();
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (key, property) in properties {
            if property.get("properties").is_some() {
                out.insert(key.clone(), fill_annotated(property));
            } else if property.get("x-mcp-header").is_some() {
                out.insert(key.clone(), Value::from("x"));
            }
        }
    }
    Value::Object(out)
}

/// The `Host` (and `Origin`) values a listener answers: on a loopback address, its own names
/// (`localhost`, `127.0.0.1`, `[::1]`, with and without its port) plus `--allowed-host`; on
/// any other address only what `--allowed-host` names, and nothing is checked without it.
#[derive(Clone, Debug)]
pub struct Hosts {
    allowed: Vec<String>,
}

impl Hosts {
    /// `None`: no check (a non-loopback listener with no `--allowed-host`).
    pub fn new(listen: std::net::SocketAddr, extra: &[String]) -> Option<Hosts> {
        let mut allowed: Vec<String> = extra.iter().map(|h| h.to_ascii_lowercase()).collect();
        if listen.ip().is_loopback() {
            let port = listen.port();
            for name in ["localhost", "127.0.0.1", "[::1]"] {
                allowed.push(name.to_owned());
                allowed.push(format!("{name}:{port}"));
            }
        }
        (!allowed.is_empty()).then_some(Hosts { allowed })
    }

    fn allows(&self, authority: &str) -> bool {
        let authority = authority.to_ascii_lowercase();
        self.allowed.contains(&authority)
    }

    /// A request's `Host` and `Origin` against the list: a Host the listener does not answer
    /// to is 421 (Misdirected Request); an Origin that is present and not one of them is 403,
    /// as the specification asks (streamable-http, "Security & Endpoint"). A missing Origin
    /// is a client that is not a browser, and passes. A request in absolute form
    /// (`POST http://host/mcp`) is judged by the authority of its `target`, which HTTP says
    /// wins over Host, and must have a Host that agrees; two Host headers are refused.
    pub fn check(&self, headers: &HeaderMap, target: Option<&str>) -> Result<(), Refusal> {
        let hosts = headers.get_all("host").iter().count();
        let host = header(headers, "host").unwrap_or_default();
        let agrees = target.is_none_or(|t| t.eq_ignore_ascii_case(host));
        if hosts > 1 || !agrees || !self.allows(host) {
            let mut refusal = Refusal::new(
                StatusCode::MISDIRECTED_REQUEST,
                -32000,
                format!(
                    "mcpguard proxy: Host {host:?} is not one this listener answers to (DNS-rebinding protection; allow it with --allowed-host)"
                ),
            );
            refusal.keeps_id = false;
            return Err(refusal);
        }
        if let Some(origin) = header(headers, "origin") {
            let authority = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                .unwrap_or("\0");
            if !self.allows(authority) {
                let mut refusal = Refusal::new(
                    StatusCode::FORBIDDEN,
                    -32000,
                    format!(
                        "mcpguard proxy: Origin {origin:?} is not allowed (DNS-rebinding protection; allow its host with --allowed-host)"
                    ),
                );
                refusal.keeps_id = false;
                return Err(refusal);
            }
        }
        Ok(())
    }
}

fn same_number(a: &str, b: &str) -> bool {
    matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::http::headers::map;

    fn request(method: &str, meta: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": meta}})
    }

    fn envelope() -> Value {
        json!({(era::META_PROTOCOL_VERSION): version::V2026_07_28, (era::META_CLIENT_CAPABILITIES): {}})
    }

    #[test]
    fn a_stateless_request_must_be_a_whole_modern_one() {
        let modern = map(&[("mcp-protocol-version", version::V2026_07_28)]);
        assert_eq!(
            stateless(&modern, &request("tools/list", envelope())),
            Ok(())
        );
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
        let r = stateless(&modern, &body).unwrap_err();
        assert_eq!((r.status, r.code), (StatusCode::BAD_REQUEST, -32602));
        let r = stateless(
            &modern,
            &request(
                "tools/list",
                json!({(era::META_PROTOCOL_VERSION): version::V2026_07_28}),
            ),
        )
        .unwrap_err();
        assert!(
            r.message.ends_with(era::META_CLIENT_CAPABILITIES),
            "{}",
            r.message
        );
        let mut old = envelope();
        old[era::META_PROTOCOL_VERSION] = json!("2099-01-01");
        let r = stateless(
            &map(&[("mcp-protocol-version", "2099-01-01")]),
            &request("tools/list", old),
        )
        .unwrap_err();
        assert_eq!((r.status, r.code), (StatusCode::BAD_REQUEST, -32022));
        assert_eq!(r.data.unwrap()["supported"], json!([version::V2026_07_28]));
        let r = stateless(&modern, &request("initialize", envelope())).unwrap_err();
        assert_eq!((r.status, r.code), (StatusCode::NOT_FOUND, -32601));
        // A legacy client: initialize opens a session; anything else needs one.
        let legacy = HeaderMap::new();
        assert_eq!(
            stateless(&legacy, &request("initialize", json!({}))),
            Ok(())
        );
        let r = stateless(&legacy, &request("tools/list", json!({}))).unwrap_err();
        assert_eq!(
            (r.status, r.code, r.keeps_id),
            (StatusCode::BAD_REQUEST, -32600, false)
        );
        // Notifications and responses are not judged.
        assert_eq!(
            stateless(
                &legacy,
                &json!({"jsonrpc": "2.0", "method": "notifications/x"})
            ),
            Ok(())
        );
    }

    #[test]
    fn a_loopback_listener_answers_only_its_own_names() {
        let hosts =
            Hosts::new("127.0.0.1:8080".parse().unwrap(), &["mcp.internal".into()]).unwrap();
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST",
            "[::1]:8080",
            "mcp.internal",
        ] {
            assert_eq!(hosts.check(&map(&[("host", ok)]), None), Ok(()), "{ok}");
        }
        let r = hosts
            .check(&map(&[("host", "evil.example.com")]), None)
            .unwrap_err();
        assert_eq!(r.status, StatusCode::MISDIRECTED_REQUEST);
        let r = hosts
            .check(
                &map(&[
                    ("host", "localhost:8080"),
                    ("origin", "http://evil.example.com"),
                ]),
                None,
            )
            .unwrap_err();
        assert_eq!(r.status, StatusCode::FORBIDDEN);
        let same = map(&[
            ("host", "localhost:8080"),
            ("origin", "http://localhost:8080"),
        ]);
        assert_eq!(hosts.check(&same, None), Ok(()));
        assert!(
            hosts
                .check(&map(&[("host", "localhost:9999")]), None)
                .is_err()
        );
        // Two Hosts, or a target in absolute form that names another host: refused.
        let mut two = map(&[("host", "localhost:8080")]);
        two.append("host", "evil.example.com".parse().unwrap());
        assert!(hosts.check(&two, None).is_err());
        let local = map(&[("host", "localhost:8080")]);
        assert!(hosts.check(&local, Some("evil.example.com")).is_err());
        assert_eq!(hosts.check(&local, Some("localhost:8080")), Ok(()));
        // Elsewhere nothing is checked unless asked.
        assert!(Hosts::new("0.0.0.0:8080".parse().unwrap(), &[]).is_none());
    }

    #[test]
    fn answers_get_the_status_the_sdk_gives() {
        assert_eq!(status_of_answer(&json!({"result": {}})), StatusCode::OK);
        assert_eq!(
            status_of_answer(&json!({"error": {"code": -32601}})),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            status_of_answer(&json!({"error": {"code": -32021}})),
            StatusCode::BAD_REQUEST
        );
    }

    #[test]
    fn param_headers_must_say_what_the_body_says() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "limit": {"type": "integer", "x-mcp-header": "Limit"},
            "query": {"type": "string"}}});
        let args = json!({"region": "Zoë", "limit": 42, "query": "q"});
        let good = map(&[
            ("mcp-param-region", "=?base64?Wm/Dqw==?="),
            ("mcp-param-limit", "42.0"),
        ]);
        assert_eq!(params(&good, &schema, &args), Ok(()));
        let wrong = map(&[("mcp-param-region", "Zoe"), ("mcp-param-limit", "42")]);
        assert!(
            params(&wrong, &schema, &args)
                .unwrap_err()
                .contains("does not match")
        );
        let missing = map(&[("mcp-param-limit", "42")]);
        assert!(
            params(&missing, &schema, &args)
                .unwrap_err()
                .contains("missing")
        );
        let bad = map(&[
            ("mcp-param-region", "=?base64?***?="),
            ("mcp-param-limit", "42"),
        ]);
        assert!(
            params(&bad, &schema, &args)
                .unwrap_err()
                .contains("characters")
        );
        let extra = map(&[
            ("mcp-param-region", "=?base64?Wm/Dqw==?="),
            ("mcp-param-limit", "42"),
        ]);
        let no_limit = json!({"region": "Zoë", "limit": null});
        assert!(
            params(&extra, &schema, &no_limit)
                .unwrap_err()
                .contains("no value")
        );
    }
}
