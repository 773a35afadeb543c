//! Rules of the protocol itself, as 2026-07-28 states them: a stable tools/list order
//! (MG024), caching hints on cacheable results (MG025), `resultType` on every result (MG026),
//! structured content that matches the tool's outputSchema (MG027), schemas whose `$ref`s
//! resolve (MG028), -32602, not -32002, for a missing resource (MG029), and `x-mcp-header`
//! annotations a client can mirror (MG032).
//!
//! A response is judged as modern when its request declared 2026-07-28 in `_meta` (a live
//! audit's do, and so do a captured modern client's); the era-free rules (MG024, MG027, MG028,
//! MG032) apply to every transcript that holds the evidence.

use std::collections::HashSet;

use serde_json::Value;

use super::findings::Out;
use crate::contract::RuleId;
use crate::json::compact;
use crate::json::node::{Node, NodeKind};
use crate::net::mcp::era;

/// Results that must carry `ttlMs` and `cacheScope` (server/utilities/caching).
const CACHEABLE: [&str; 6] = [
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// The most schema errors one response reports (the first are the useful ones).
const MAX_SCHEMA_ERRORS: usize = 5;

pub(super) fn check<N: Node + Clone>(out: &mut Out<'_, N>) {
    let input = out.input;
    let call = input.call;
    let modern = call.protocol_version.as_deref().is_some_and(era::is_modern);
    let method = call.method.as_deref().unwrap_or("");
    // Only what a request asked (paired in a transcript or a live session) has rules here: a
    // lone capture is not read again as serde_json's tree.
    if !modern && !matches!(method, "tools/list" | "tools/call") {
        return;
    }
    let tree = input.tree;
    if let Some(result) = tree.get("result") {
        if modern {
            result_type(out, method, result);
            cache_hints(out, method, result);
        }
        if method == "tools/list" {
            // A catalog's rules read serde_json's tree of it (once per listing).
            let value = tree.as_value();
            tool_order(out, &value);
            schema_refs(out, &value["result"]);
            header_annotations(out, &value["result"]);
        }
        let interim = result.get("resultType").and_then(N::as_str) == Some("input_required");
        if method == "tools/call" && !interim {
            structured_content(out, result);
        }
    } else if modern
        && method == "resources/read"
        && tree.pointer("/error/code").and_then(N::as_i64) == Some(-32002)
    {
        out.add(
            RuleId::ResourceNotFoundCode,
            "/error/code",
            "resources/read answered a missing resource with -32002, the code of 2025-11-25; on 2026-07-28 it is -32602 (Invalid Params)".into(),
            "answer -32602 to requests that declare 2026-07-28 (and keep -32002 for legacy sessions if the server is dual-era)".into(),
            None,
        );
    }
}

/// MG026: every 2026-07-28 result says what it is; an unknown kind is invalid.
fn result_type<N: Node + Clone>(out: &mut Out<'_, N>, method: &str, result: &N) {
    match result.get("resultType") {
        None => out.add(
            RuleId::ResultTypeMissing,
            "/result",
            format!("the {method} result has no resultType, which every 2026-07-28 result must carry"),
            "add \"resultType\": \"complete\" (or \"input_required\" for a multi round-trip request); an SDK on 2026-07-28 does this".into(),
            None,
        ),
        Some(t) if t.as_str().is_some_and(|t| era::RESULT_TYPES.contains(&t)) => {}
        Some(other) => out.add(
            RuleId::ResultTypeMissing,
            "/result/resultType",
            format!("the {method} result has resultType {}, which no 2026-07-28 client recognizes; clients must treat it as invalid", compact::string(other)),
            "use \"complete\" or \"input_required\" (or a value of an extension the client advertised)".into(),
            None,
        ),
    }
}

/// MG025: a cacheable 2026-07-28 result carries `ttlMs` (an integer >= 0) and `cacheScope`
/// ("public" or "private"). Interim input_required results carry none.
fn cache_hints<N: Node + Clone>(out: &mut Out<'_, N>, method: &str, result: &N) {
    if !CACHEABLE.contains(&method)
        || result.get("resultType").and_then(N::as_str) == Some("input_required")
    {
        return;
    }
    let help = "give every cacheable result ttlMs (how long, in ms, it stays fresh; 0 for never) and cacheScope (\"public\" when it is the same for every user, else \"private\")";
    match result.get("ttlMs") {
        None => out.add(
            RuleId::CacheHintsMissing,
            "/result",
            format!("the {method} result has no ttlMs: clients must take it as stale at once and ask again every time"),
            help.into(),
            None,
        ),
        Some(t) if t.as_u64().is_none() => out.add(
            RuleId::CacheHintsMissing,
            "/result/ttlMs",
            format!("the {method} result has ttlMs {}, not an integer >= 0; clients ignore it and treat the result as stale", compact::string(t)),
            help.into(),
            None,
        ),
        Some(_) => {}
    }
    match result.get("cacheScope") {
        Some(s) if matches!(s.as_str(), Some("public" | "private")) => {}
        Some(other) => out.add(
            RuleId::CacheHintsMissing,
            "/result/cacheScope",
            format!("the {method} result has cacheScope {}; only \"public\" and \"private\" are defined", compact::string(other)),
            help.into(),
            None,
        ),
        None => out.add(
            RuleId::CacheHintsMissing,
            "/result",
            format!("the {method} result has no cacheScope: no client or shared cache can tell whether it may keep it"),
            help.into(),
            None,
        ),
    }
}

/// MG024: the same catalog, listed again, in another order.
fn tool_order<N: Node + Clone>(out: &mut Out<'_, N>, value: &Value) {
    let Some(earlier) = out.input.call.earlier_order.clone() else {
        return;
    };
    let now: Vec<&str> = value
        .pointer("/result/tools")
        .and_then(Value::as_array)
        .map(|t| {
            t.iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let at = earlier
        .iter()
        .zip(&now)
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    out.add(
        RuleId::ToolsOrderUnstable,
        "/result/tools",
        format!(
            "tools/list listed the same {} tools in another order than before (position {at}: `{}` where `{}` was): a client that puts the catalog in the prompt loses its prompt cache and pays for the whole catalog again",
            now.len(),
            now.get(at).copied().unwrap_or("?"),
            earlier.get(at).map_or("?", String::as_str)
        ),
        "return tools in a deterministic order, e.g. by name, not in hash-map or registration-race order (server/tools: SHOULD)".into(),
        None,
    );
}

/// MG027: structured content that breaks the tool's own outputSchema (or is missing when
/// the tool has one). Clients reject such results.
fn structured_content<N: Node + Clone>(out: &mut Out<'_, N>, result: &N) {
    let Some(schema) = out.input.call.output_schema.clone() else {
        return;
    };
    let tool = out.input.call.tool.clone().unwrap_or_default();
    let Some(content) = result.get("structuredContent") else {
        if !result
            .get("isError")
            .is_some_and(|e| matches!(e.kind(), NodeKind::Bool(true)))
        {
            out.add(
                RuleId::StructuredContentInvalid,
                "/result",
                format!("{tool} declares an outputSchema but its result has no structuredContent"),
                "a tool with an outputSchema must return structuredContent that conforms to it (server/tools, Output Schema)".into(),
                None,
            );
        }
        return;
    };
    let Ok(validator) = schema.validator() else {
        return; // The listing's schema does not compile: MG028 said why.
    };
    let content = content.as_value();
    let errors: Vec<_> = validator
        .iter_errors(&content)
        .take(MAX_SCHEMA_ERRORS)
        .collect();
    for error in errors {
        let path = error.instance_path().to_string();
        out.add(
            RuleId::StructuredContentInvalid,
            &format!("/result/structuredContent{path}"),
            format!("{tool}: structuredContent does not match the tool's outputSchema: {error}"),
            "return what the outputSchema promises, or fix the schema; clients validate structured results and reject those that do not conform".into(),
            None,
        );
    }
}

/// MG028: `$ref`s in a listed tool's inputSchema or outputSchema that do not resolve inside
/// the schema. A network `$ref` is unresolved too: clients must not fetch it.
fn schema_refs<N: Node + Clone>(out: &mut Out<'_, N>, result: &Value) {
    let Some(tools) = result.get("tools").and_then(Value::as_array) else {
        return;
    };
    for (i, tool) in tools.iter().enumerate() {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
        for member in ["inputSchema", "outputSchema"] {
            let Some(schema) = tool.get(member) else {
                continue;
            };
            let walked = Walked::of(schema);
            for (at, reference) in &walked.refs {
                if let Err(why) = walked.resolve(schema, reference) {
                    out.add(
                        RuleId::SchemaRefUnresolved,
                        &format!("/result/tools/{i}/{member}{at}"),
                        format!("{name}: {member} has $ref {reference:?}, which {why}"),
                        "put the definition under $defs in the schema itself and point at it with #/$defs/NAME; clients do not fetch remote schemas (basic/index, $ref Resolution)".into(),
                        None,
                    );
                }
            }
        }
    }
}

/// MG032: `x-mcp-header` annotations that break the specification's constraints. A 2026-07-28
/// client over Streamable HTTP must drop such a tool from the catalog, so to those clients the
/// tool does not exist; a stdio client may ignore the annotation, so the finding is about the
/// definition whatever transport this transcript came over.
fn header_annotations<N: Node + Clone>(out: &mut Out<'_, N>, result: &Value) {
    let Some(tools) = result.get("tools").and_then(Value::as_array) else {
        return;
    };
    for (i, tool) in tools.iter().enumerate() {
        let Some(schema) = tool.get("inputSchema") else {
            continue;
        };
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
        for (at, problem) in era::header_annotation_problems(schema) {
            out.add(
                RuleId::HeaderAnnotationInvalid,
                &format!("/result/tools/{i}/inputSchema{at}"),
                format!("{name}: {problem}; a 2026-07-28 client over Streamable HTTP must drop this tool from tools/list"),
                "name the header with a non-empty HTTP token, unique regardless of case, on an integer, string or boolean property reached from the root through `properties` alone (basic/transports/streamable-http, Custom Headers from Tool Parameters)".into(),
                None,
            );
        }
    }
}

/// What resolving a schema's `$ref`s needs, gathered in one walk: every `$ref` with the JSON
/// pointer to its object, and the `$anchor`s and `$id`s it declares (looking those up per
/// `$ref` walked the schema once for each: quadratic on a hostile catalog).
#[derive(Debug, Default)]
struct Walked {
    refs: Vec<(String, String)>,
    anchors: HashSet<String>,
    ids: HashSet<String>,
}

impl Walked {
    fn of(schema: &Value) -> Walked {
        let mut walked = Walked::default();
        walked.walk(schema, &mut String::new());
        walked
    }

    /// Depth-first with an explicit path; serde_json's nesting cap bounds the recursion.
    fn walk(&mut self, value: &Value, path: &mut String) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    match (key.as_str(), child.as_str()) {
                        ("$ref", Some(r)) => {
                            self.refs.push((path.clone(), r.to_owned()));
                            continue;
                        }
                        ("$anchor", Some(a)) => {
                            self.anchors.insert(a.to_owned());
                        }
                        ("$id", Some(id)) => {
                            self.ids.insert(id.to_owned());
                        }
                        _ => {}
                    }
                    let len = path.len();
                    crate::json::pointer::push_key(path, key);
                    self.walk(child, path);
                    path.truncate(len);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    let len = path.len();
                    crate::json::pointer::push_index(path, i);
                    self.walk(child, path);
                    path.truncate(len);
                }
            }
            _ => {}
        }
    }

    /// Whether a `$ref` resolves inside its own schema: a JSON pointer fragment (`#`,
    /// `#/a/b`, percent-encoded or not), a plain-name fragment matching an `$anchor`, or a URI
    /// some `$id` in the schema declares.
    fn resolve(&self, schema: &Value, reference: &str) -> Result<(), String> {
        if let Some(fragment) = reference.strip_prefix('#') {
            if fragment.is_empty() {
                return Ok(());
            }
            if fragment.starts_with('/') {
                let pointer = percent_decode(fragment);
                return match schema.pointer(&pointer) {
                    Some(_) => Ok(()),
                    None => Err("points at nothing in the schema".into()),
                };
            }
            return if self.anchors.contains(fragment) {
                Ok(())
            } else {
                Err(format!(
                    "names an anchor no $anchor \"{fragment}\" declares"
                ))
            };
        }
        let base = reference.split('#').next().unwrap_or(reference);
        if self.ids.contains(base) {
            return Ok(());
        }
        if base.starts_with("http://") || base.starts_with("https://") {
            Err("points outside the schema to the network; clients must not fetch it, so the schema cannot be validated".into())
        } else {
            Err("points outside the schema, to nothing it declares".into())
        }
    }
}

/// `%XX` escapes decoded (a URI fragment's JSON pointer may use them); invalid ones kept.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn resolve(schema: &Value, reference: &str) -> Result<(), String> {
        Walked::of(schema).resolve(schema, reference)
    }

    #[test]
    fn refs_resolve_inside_the_schema_only() {
        let schema = json!({"$defs": {"Time": {"type": "string"}, "a b": {"$anchor": "Zone"}},
            "properties": {"t": {"$ref": "#/$defs/Time"}}});
        assert!(resolve(&schema, "#/$defs/Time").is_ok());
        assert!(resolve(&schema, "#/$defs/a%20b").is_ok());
        assert!(resolve(&schema, "#").is_ok());
        assert!(resolve(&schema, "#Zone").is_ok());
        assert!(resolve(&schema, "#/$defs/Missing").is_err());
        assert!(resolve(&schema, "#Nowhere").is_err());
        let remote = resolve(&schema, "https://example.com/time.json").unwrap_err();
        assert!(remote.contains("network"), "{remote}");
        let with_id = json!({"$defs": {"T": {"$id": "urn:time"}}});
        assert!(resolve(&with_id, "urn:time").is_ok());
    }

    #[test]
    fn refs_are_found_with_their_pointers() {
        let schema =
            json!({"properties": {"a/b": {"$ref": "#/x"}, "l": {"items": [{"$ref": "#/y"}]}}});
        let found = Walked::of(&schema).refs;
        assert_eq!(
            found,
            [
                ("/properties/a~1b".to_owned(), "#/x".to_owned()),
                ("/properties/l/items/0".to_owned(), "#/y".to_owned())
            ]
        );
    }
}
