//! The HTTP proxy's header rules, without I/O: which headers cross to the server and back,
//! which of them are a credential (and so name the scope the proxy's artifacts belong to),
//! and the 2026-07-28 check that `Mcp-Method` and `Mcp-Name` say what the body says.

use axum::http::{HeaderMap, HeaderName};
use serde_json::Value;
use sha2::Digest as _;

use crate::net::mcp::era;

/// Hop-by-hop headers (RFC 9110 7.6.1) and those the proxy sets itself: never forwarded.
const NOT_FORWARDED: [&str; 12] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    // The proxy reads the bytes it measures: no compression on the way.
    "accept-encoding",
    "content-encoding",
    "proxy-authorization",
];

/// The headers that cross the proxy, either way: all but the hop-by-hop ones and those the
/// proxy sets itself (a body the proxy writes gets its own Content-Type).
pub fn forwarded(headers: &HeaderMap) -> HeaderMap {
    let mut out = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        if !NOT_FORWARDED.contains(&name.as_str()) {
            out.append(name.clone(), value.clone());
        }
    }
    out
}

/// Whether a header carries a credential: `Authorization`, `Cookie`, or a name with `key`,
/// `token`, `secret` or `auth` in it (`X-API-Key`, `X-Auth-Token`).
pub fn is_credential(name: &HeaderName) -> bool {
    let n = name.as_str();
    matches!(n, "authorization" | "cookie")
        || ["key", "token", "secret", "auth"]
            .iter()
            .any(|w| n.contains(w))
}

/// The scope of a request's artifacts: a hash of its credentials (never the credentials
/// themselves), or `anonymous` without any. A reference made under one scope is not found
/// under another.
pub fn scope(headers: &HeaderMap) -> String {
    let mut creds: Vec<(&str, &[u8])> = headers
        .iter()
        .filter(|(n, _)| is_credential(n))
        .map(|(n, v)| (n.as_str(), v.as_bytes()))
        .collect();
    if creds.is_empty() {
        return "anonymous".to_owned();
    }
    creds.sort();
    let mut hash = sha2::Sha256::new();
    for (name, value) in creds {
        hash.update(name.as_bytes());
        hash.update([0]);
        hash.update(value);
        hash.update([0]);
    }
    hash.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The header that names a legacy session.
pub const SESSION: &str = "mcp-session-id";

/// The era a request declares by its `MCP-Protocol-Version` header.
pub fn is_modern(headers: &HeaderMap) -> bool {
    header(headers, "mcp-protocol-version").is_some_and(era::is_modern)
}

fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// What a 2026-07-28 request's headers must agree with (streamable-http, "Server
/// Validation"): `Err` is the HeaderMismatch message.
pub fn check_modern(headers: &HeaderMap, body: &Value) -> Result<(), String> {
    let version = header(headers, "mcp-protocol-version").unwrap_or_default();
    let method = body.get("method").and_then(Value::as_str);
    let Some(method) = method else {
        // A response or an error from the client (to a server's request): no method to match.
        return Ok(());
    };
    if body.get("id").is_some() {
        let declared = body
            .pointer("/params/_meta")
            .and_then(|m| m.get(era::META_PROTOCOL_VERSION))
            .and_then(Value::as_str);
        if let Some(declared) = declared
            && declared != version
        {
            return Err(format!(
                "Header mismatch: MCP-Protocol-Version header value '{version}' does not match body value '{declared}'"
            ));
        }
    }
    match header(headers, "mcp-method") {
        None => return Err("Header mismatch: the Mcp-Method header is missing".to_owned()),
        Some(h) if h != method => {
            return Err(format!(
                "Header mismatch: Mcp-Method header value '{h}' does not match body value '{method}'"
            ));
        }
        Some(_) => {}
    }
    let params = body.get("params").unwrap_or(&Value::Null);
    let Some(name) = era::request_name(method, params) else {
        return Ok(());
    };
    match header(headers, "mcp-name") {
        None => Err("Header mismatch: the Mcp-Name header is missing".to_owned()),
        Some(h) => match era::decode_header_value(h) {
            Some(decoded) if decoded == name => Ok(()),
            Some(decoded) => Err(format!(
                "Header mismatch: Mcp-Name header value '{decoded}' does not match body value '{name}'"
            )),
            None => Err(format!(
                "Header mismatch: the Mcp-Name header '{h}' is not valid Base64 sentinel encoding"
            )),
        },
    }
}

/// Headers from name and value pairs, for the tests of this module and of [`super::gate`].
#[cfg(test)]
pub(super) fn map(pairs: &[(&'static str, &str)]) -> HeaderMap {
    let mut h = HeaderMap::new();
    for (n, v) in pairs {
        h.append(*n, axum::http::HeaderValue::from_str(v).unwrap());
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::net::version;

    #[test]
    fn hop_by_hop_headers_stay_and_the_rest_cross() {
        let h = map(&[
            ("authorization", "Bearer abc"),
            ("connection", "keep-alive"),
            ("host", "127.0.0.1:1"),
            ("mcp-session-id", "s1"),
            ("accept-encoding", "gzip"),
        ]);
        let out = forwarded(&h);
        let names: Vec<&str> = out.keys().map(HeaderName::as_str).collect();
        assert_eq!(names, ["authorization", "mcp-session-id"]);
    }

    #[test]
    fn the_scope_follows_the_credential_and_hides_it() {
        let a = scope(&map(&[("authorization", "Bearer alice")]));
        let b = scope(&map(&[("authorization", "Bearer bob")]));
        assert_ne!(a, b);
        assert!(!a.contains("alice"));
        assert_eq!(
            a,
            scope(&map(&[("authorization", "Bearer alice"), ("accept", "x")]))
        );
        assert_eq!(scope(&map(&[("x-api-key", "k")])).len(), 32);
        assert_eq!(scope(&map(&[("accept", "x")])), "anonymous");
    }

    #[test]
    fn modern_headers_must_match_the_body() {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "café", "_meta": {(era::META_PROTOCOL_VERSION): version::V2026_07_28}}});
        let good = map(&[
            ("mcp-protocol-version", version::V2026_07_28),
            ("mcp-method", "tools/call"),
            ("mcp-name", &era::header_value("café")),
        ]);
        assert_eq!(check_modern(&good, &body), Ok(()));
        let wrong_name = map(&[
            ("mcp-protocol-version", version::V2026_07_28),
            ("mcp-method", "tools/call"),
            ("mcp-name", "cafe"),
        ]);
        assert!(
            check_modern(&wrong_name, &body)
                .unwrap_err()
                .contains("'cafe'")
        );
        let wrong_method = map(&[
            ("mcp-protocol-version", version::V2026_07_28),
            ("mcp-method", "tools/list"),
            ("mcp-name", &era::header_value("café")),
        ]);
        assert!(
            check_modern(&wrong_method, &body)
                .unwrap_err()
                .contains("Mcp-Method")
        );
        let no_name = map(&[
            ("mcp-protocol-version", version::V2026_07_28),
            ("mcp-method", "tools/call"),
        ]);
        assert!(
            check_modern(&no_name, &body)
                .unwrap_err()
                .contains("missing")
        );
        let other_version = map(&[
            ("mcp-protocol-version", "2026-12-01"),
            ("mcp-method", "tools/call"),
            ("mcp-name", &era::header_value("café")),
        ]);
        assert!(
            check_modern(&other_version, &body)
                .unwrap_err()
                .contains("MCP-Protocol-Version")
        );
    }
}
