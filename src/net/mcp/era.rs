//! The two eras of MCP and what tells them apart (specification 2026-07-28, basic/versioning).
//!
//! *Legacy* revisions (2025-11-25 and earlier) open a session with `initialize`; the *modern*
//! revision 2026-07-28 has no handshake: every request carries its protocol version, client
//! identity and capabilities in `_meta`, and `server/discover` advertises what a server
//! speaks. A dual-era server answers both. This module holds the pure parts: the `--protocol`
//! choice, what a request's `_meta` and HTTP headers must say, and how a discover probe's
//! outcome is read. The conversation itself is in the parent module.

use serde_json::{Map, Value, json};

use crate::json::node::Node;
use crate::net::version;

/// The `_meta` keys of a modern request (basic/index, "Per-request protocol fields").
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// Requests that stay open until the client cancels them (2026-07-28 basic/patterns/
/// subscriptions): no timeout applies to them, and none keeps a session from ending.
pub const LONG_LIVED: [&str; 1] = ["subscriptions/listen"];

/// Error codes only a modern server sends: HeaderMismatch, MissingRequiredClientCapability,
/// UnsupportedProtocolVersion. One of them from a probe means "modern, retry", never "legacy".
pub const MODERN_ERRORS: [i64; 3] = [-32020, -32021, -32022];
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// `--protocol`: which era a live audit speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    /// Learn it: a `server/discover` probe, then `initialize` for a legacy server.
    #[default]
    Auto,
    /// 2026-07-28 only; a legacy server is an error.
    Modern,
    /// 2025-11-25's `initialize` handshake, without a probe.
    Legacy,
}

impl Protocol {
    /// The values `--protocol` takes, in the order `--help` lists them.
    pub const NAMES: [&'static str; 3] = ["auto", version::V2026_07_28, version::V2025_11_25];

    pub fn parse(text: &str) -> Option<Protocol> {
        match text {
            "auto" => Some(Protocol::Auto),
            version::V2026_07_28 => Some(Protocol::Modern),
            version::V2025_11_25 => Some(Protocol::Legacy),
            _ => None,
        }
    }
}

/// The era a server was spoken to in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    Modern,
    Legacy,
}

/// What the client learned about a server's protocol, for the servers table.
#[derive(Clone, Debug, Default)]
pub struct Negotiated {
    pub era: Option<Era>,
    /// The version every request used.
    pub version: Option<String>,
    /// The versions the server advertised (`server/discover`, an UnsupportedProtocolVersion
    /// error, or the one `initialize` settled on).
    pub supported: Vec<String>,
    pub capabilities: Value,
    /// serverInfo (initialize) or `_meta`'s io.modelcontextprotocol/serverInfo (discover).
    pub server_info: Option<Value>,
    /// Whether the server also answers the other era's opening: known only under auto.
    pub dual_era: Option<bool>,
    /// How the era was learned, for the log and the report.
    pub detection: String,
}

/// The `_meta` every modern request carries, merged into `params` (a caller's own `_meta`
/// keys, such as a progressToken, are kept).
pub fn with_request_meta(mut params: Value) -> Value {
    if !params.is_object() {
        params = Value::Object(Map::new());
    }
    let meta = params
        .as_object_mut()
        .expect("made an object above")
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(
            META_PROTOCOL_VERSION.into(),
            Value::from(version::V2026_07_28),
        );
        meta.insert(
            META_CLIENT_INFO.into(),
            json!({"name": "mcpguard", "version": env!("CARGO_PKG_VERSION")}),
        );
        meta.insert(META_CLIENT_CAPABILITIES.into(), json!({}));
    }
    params
}

/// Request params without the 2026-07-28 `_meta` keys, for a request re-sent in a legacy
/// session.
pub fn without_request_meta(mut params: Value) -> Value {
    if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
        meta.remove(META_PROTOCOL_VERSION);
        meta.remove(META_CLIENT_INFO);
        meta.remove(META_CLIENT_CAPABILITIES);
        if meta.is_empty() {
            params.as_object_mut().map(|p| p.remove("_meta"));
        }
    }
    params
}

/// The protocol version a request declares in its `_meta`, if it is a modern request.
pub fn declared_version<N: Node>(request: &N) -> Option<&str> {
    request
        .pointer("/params/_meta")
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .and_then(N::as_str)
}

/// Whether a version is of the modern era (ISO dates compare as strings do).
pub fn is_modern(version: &str) -> bool {
    version >= version::V2026_07_28
}

/// The `Mcp-Name` a request needs on HTTP: `params.name` of tools/call and prompts/get,
/// `params.uri` of resources/read.
pub fn request_name<'a>(method: &str, params: &'a Value) -> Option<&'a str> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return None,
    };
    params.get(key).and_then(Value::as_str)
}

/// A value as an HTTP header may carry it (streamable-http, "Value Encoding"): plain when it
/// is visible ASCII with inner spaces only and not itself shaped like the sentinel, otherwise
/// `=?base64?...?=` of its UTF-8.
pub fn header_value(value: &str) -> String {
    use base64::Engine as _;
    let sentinel = value.starts_with("=?base64?") && value.ends_with("?=");
    let visible = value.bytes().all(|b| (0x20..=0x7e).contains(&b));
    let trimmed = !value.starts_with(' ') && !value.ends_with(' ');
    let plain = !value.is_empty() && visible && trimmed && !sentinel;
    if plain {
        value.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    }
}

/// A header value as [`header_value`] wrote it, decoded: the Base64 sentinel form read back,
/// a plain value as it is. `None`: a sentinel whose inside is not Base64 of UTF-8.
pub fn decode_header_value(value: &str) -> Option<String> {
    use base64::Engine as _;
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(inside) => base64::engine::general_purpose::STANDARD
            .decode(inside)
            .ok()
            .and_then(|b| String::from_utf8(b).ok()),
        None => Some(value.to_owned()),
    }
}

/// The `Mcp-Param-{Name}` headers a tools/call carries on HTTP (streamable-http, "Custom
/// Headers from Tool Parameters"): for every property of the tool's inputSchema annotated
/// `x-mcp-header` and reachable from the root through `properties` alone, the argument at that
/// path when it is a string, an integer or a boolean, encoded as header values are. An
/// annotation that is not an HTTP token names no header and is skipped.
pub fn param_headers(input_schema: &Value, arguments: &Value) -> Vec<(String, String)> {
    fn walk(schema: &Value, arguments: Option<&Value>, out: &mut Vec<(String, String)>) {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return;
        };
        for (key, property) in properties {
            let value = arguments.and_then(|a| a.get(key));
            if let Some(name) = property.get("x-mcp-header").and_then(Value::as_str)
                && is_token(name)
            {
                let text = match value {
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(Value::Bool(b)) => Some(b.to_string()),
                    Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(n.to_string()),
                    _ => None,
                };
                if let Some(text) = text {
                    out.push((format!("Mcp-Param-{name}"), header_value(&text)));
                }
            }
            walk(property, value, out);
        }
    }
    let mut out = Vec::new();
    walk(input_schema, Some(arguments), &mut out);
    out
}

/// What is wrong with a tool's `x-mcp-header` annotations (streamable-http, "Schema
/// Extension"): each problem with the JSON pointer (inside the inputSchema) of the annotated
/// property. A Streamable HTTP client of 2026-07-28 must drop a tool with any of them from
/// `tools/list`. The constraints: a non-empty HTTP token, unique regardless of case, on a
/// property of type integer, string or boolean, reachable from the root through `properties`
/// alone.
pub fn header_annotation_problems(input_schema: &Value) -> Vec<(String, String)> {
    fn walk(
        value: &Value,
        pointer: &mut String,
        reachable: bool,
        seen: &mut Vec<String>,
        out: &mut Vec<(String, String)>,
    ) {
        match value {
            Value::Object(map) => {
                if let Some(annotation) = map.get("x-mcp-header") {
                    let problem = annotation_problem(map, annotation, reachable, seen);
                    if let Some(problem) = problem {
                        out.push((pointer.clone(), problem));
                    }
                }
                for (key, child) in map {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                    if key == "properties"
                        && let Value::Object(properties) = child
                    {
                        // Each property of a reachable schema is reachable in turn.
                        for (name, property) in properties {
                            let inner = pointer.len();
                            pointer.push('/');
                            pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
                            walk(property, pointer, reachable, seen, out);
                            pointer.truncate(inner);
                        }
                    } else if key != "x-mcp-header" {
                        walk(child, pointer, false, seen, out);
                    }
                    pointer.truncate(len);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = pointer.len();
                    pointer.push_str(&format!("/{i}"));
                    walk(item, pointer, false, seen, out);
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
    }
    fn annotation_problem(
        property: &Map<String, Value>,
        annotation: &Value,
        reachable: bool,
        seen: &mut Vec<String>,
    ) -> Option<String> {
        let Some(name) = annotation.as_str() else {
            return Some(format!("x-mcp-header is {annotation}, not a string"));
        };
        if name.is_empty() {
            return Some("x-mcp-header is empty".into());
        }
        if !is_token(name) {
            return Some(format!(
                "x-mcp-header {name:?} is not an HTTP field-name token (no spaces, colons, control or non-ASCII characters)"
            ));
        }
        let folded = name.to_ascii_lowercase();
        if seen.contains(&folded) {
            return Some(format!(
                "x-mcp-header {name:?} names a header another property of this schema names too (case does not count)"
            ));
        }
        seen.push(folded);
        if !reachable {
            return Some(format!(
                "x-mcp-header {name:?} is on a schema that is not reached from the root through `properties` alone (items, oneOf, $ref and the like are not followed)"
            ));
        }
        match property.get("type") {
            Some(Value::String(t)) if ["integer", "string", "boolean"].contains(&t.as_str()) => {
                None
            }
            None => None,
            Some(other) => Some(format!(
                "x-mcp-header {name:?} is on a property of type {other}; only integer, string and boolean may be mirrored"
            )),
        }
    }
    let mut out = Vec::new();
    walk(
        input_schema,
        &mut String::new(),
        true,
        &mut Vec::new(),
        &mut out,
    );
    out
}

/// An HTTP field-name token (RFC 9110 `1*tchar`).
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The versions a server advertises: a DiscoverResult's `supportedVersions`, or the
/// `supported` list of an UnsupportedProtocolVersion error's data. `None` when the field is
/// missing or not a list of strings.
pub fn advertised_versions(list: Option<&Value>) -> Option<Vec<String>> {
    let list = list?.as_array()?;
    list.iter().map(|v| v.as_str().map(str::to_owned)).collect()
}

/// What a server's advertised versions let mcpguard speak: modern when 2026-07-28 is listed,
/// else the newest listed legacy version it can open with `initialize`.
pub fn choose(listed: &[String]) -> Option<(Era, &str)> {
    if listed.iter().any(|v| v == version::V2026_07_28) {
        return Some((Era::Modern, version::V2026_07_28));
    }
    version::HANDSHAKE_VERSIONS
        .iter()
        .find(|v| listed.iter().any(|l| l == *v))
        .map(|v| (Era::Legacy, *v))
}

/// A `resultType` a client understands (basic/index: an unknown one is invalid; an absent one
/// is "complete" from an earlier-era server only).
pub const RESULT_TYPES: [&str; 2] = ["complete", "input_required"];

/// The notifications a 2026-07-28 server may send on a request's response stream: those about
/// that request. Change notifications belong on a `subscriptions/listen` stream.
pub const REQUEST_SCOPED_NOTIFICATIONS: [&str; 2] =
    ["notifications/progress", "notifications/message"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_is_merged_not_replaced() {
        let p = with_request_meta(json!({"name": "x", "_meta": {"progressToken": 7}}));
        assert_eq!(p["_meta"]["progressToken"], 7);
        assert_eq!(p["_meta"][META_PROTOCOL_VERSION], version::V2026_07_28);
        assert_eq!(p["_meta"][META_CLIENT_CAPABILITIES], json!({}));
        assert_eq!(
            declared_version(&json!({"params": p})),
            Some(version::V2026_07_28)
        );
        assert_eq!(
            with_request_meta(Value::Null)["_meta"][META_CLIENT_INFO]["name"],
            "mcpguard"
        );
    }

    #[test]
    fn header_values_follow_the_encoding_rules() {
        // The specification's own examples (streamable-http, "Encoding examples").
        assert_eq!(header_value("us-west1"), "us-west1");
        assert_eq!(
            header_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            header_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
    }

    #[test]
    fn header_values_decode_to_what_was_encoded() {
        for v in [
            "get_weather",
            "café",
            " padded ",
            "=?base64?x?=",
            "file:///a b",
        ] {
            assert_eq!(decode_header_value(&header_value(v)).as_deref(), Some(v));
        }
        assert_eq!(decode_header_value("=?base64?***?="), None);
    }

    #[test]
    fn annotated_parameters_become_headers() {
        // The specification's example, plus a nested property, a non-ASCII value, a number
        // (not allowed), an annotation behind `items` (not reachable) and a bad header name.
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
            "filter": {"type": "object", "properties": {
                "tenant": {"type": "string", "x-mcp-header": "Tenant"},
                "limit": {"type": "integer", "x-mcp-header": "Limit"},
                "ratio": {"type": "number", "x-mcp-header": "Ratio"}}},
            "tags": {"type": "array", "items": {"properties": {"t": {"x-mcp-header": "Tag"}}}},
            "bad": {"type": "string", "x-mcp-header": "Bad Name"}}});
        let args = json!({"region": "us-west1", "query": "SELECT 1", "bad": "x",
            "filter": {"tenant": "Zoë", "limit": 42, "ratio": 0.5}, "tags": [{"t": "a"}]});
        assert_eq!(
            param_headers(&schema, &args),
            [
                ("Mcp-Param-Region".to_owned(), "us-west1".to_owned()),
                (
                    "Mcp-Param-Tenant".to_owned(),
                    "=?base64?Wm/Dqw==?=".to_owned()
                ),
                ("Mcp-Param-Limit".to_owned(), "42".to_owned()),
            ]
        );
        assert!(param_headers(&schema, &json!({})).is_empty());
    }

    #[test]
    fn header_annotations_are_judged_by_the_spec_constraints() {
        let problems = |properties: Value| {
            header_annotation_problems(&json!({"type": "object", "properties": properties}))
        };
        // Valid: the specification's example, a nested property, no type given.
        assert!(
            problems(
                json!({"region": {"type": "string", "x-mcp-header": "Region"},
                "filter": {"type": "object", "properties": {
                    "tenant": {"type": "integer", "x-mcp-header": "Tenant"}}},
                "flag": {"x-mcp-header": "Flag"}})
            )
            .is_empty()
        );
        for (properties, pointer, says) in [
            (
                json!({"v": {"type": "string", "x-mcp-header": ""}}),
                "/properties/v",
                "is empty",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "My Region"}}),
                "/properties/v",
                "not an HTTP field-name token",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "a:b"}}),
                "/properties/v",
                "not an HTTP field-name token",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "Zoë"}}),
                "/properties/v",
                "not an HTTP field-name token",
            ),
            (
                json!({"v": {"type": "object", "x-mcp-header": "Data"}}),
                "/properties/v",
                "of type \"object\"",
            ),
            (
                json!({"v": {"type": "number", "x-mcp-header": "Ratio"}}),
                "/properties/v",
                "of type \"number\"",
            ),
            (
                json!({"v": {"type": "null", "x-mcp-header": "Nil"}}),
                "/properties/v",
                "of type \"null\"",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "MyField"},
                    "b": {"type": "string", "x-mcp-header": "myfield"}}),
                "/properties/b",
                "another property",
            ),
            (
                json!({"t": {"type": "array", "items": {"type": "string", "x-mcp-header": "Tag"}}}),
                "/properties/t/items",
                "not reached from the root",
            ),
            (
                json!({"o": {"oneOf": [{"type": "string", "x-mcp-header": "One"}]}}),
                "/properties/o/oneOf/0",
                "not reached from the root",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": 7}}),
                "/properties/v",
                "not a string",
            ),
        ] {
            let found = problems(properties.clone());
            assert_eq!(found.len(), 1, "{properties}: {found:?}");
            assert_eq!(found[0].0, pointer, "{properties}");
            assert!(found[0].1.contains(says), "{properties}: {}", found[0].1);
        }
    }

    #[test]
    fn versions_pick_the_era() {
        let v = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            choose(&v(&["2026-07-28"])),
            Some((Era::Modern, version::V2026_07_28))
        );
        assert_eq!(
            choose(&v(&["2025-06-18", "2025-11-25"])),
            Some((Era::Legacy, "2025-11-25"))
        );
        assert_eq!(choose(&v(&["2099-01-01"])), None);
        assert_eq!(choose(&[]), None);
        assert_eq!(advertised_versions(Some(&json!(["a", 1]))), None);
        assert_eq!(Protocol::parse("2025-11-25"), Some(Protocol::Legacy));
        assert!(is_modern("2026-07-28") && !is_modern("2025-11-25"));
    }
}
