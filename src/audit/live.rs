//! What a live audit asks a server, in what order.
//!
//! Once the era is settled (a `server/discover` probe or the `initialize` handshake): every
//! list the server offers (tools, resources, resource templates, prompts), following
//! nextCursor to the end with a page cap and a memory of the cursors seen; the first page of
//! tools/list once more (an unchanged catalog must come back in the same order); one list
//! request with a cursor the server never issued (it must answer error -32602); one
//! resources/read of a resource that does not exist (-32602 on 2026-07-28); the tool calls
//! of `--calls` with their expectations; with `--probe`, each tool annotated `readOnlyHint`
//! whose required arguments can be filled from its schema (defaults, enums, consts, examples),
//! never any other tool; and with `--ask-legacy`, a modern server is finally asked to
//! `initialize` on a connection of its own, to learn whether it is dual-era (not by default:
//! that request carries no `_meta`, which a modern-only server may rightly count against the
//! client, so asking is the user's call). A call answered with `input_required` is
//! reported, never answered and never taken for a final result.
//!
//! The result is the session's transcript, exactly as exchanged, plus what only a live session
//! can tell (a cursor cycle longer than one page, a runaway list, a broken expectation). The
//! transcript goes through the same rules as a captured one, so `--save` and `mcpguard audit
//! DIR` agree.

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::contract::RuleId;
use crate::contract::{INVALID_CURSOR_PROBE, MISSING_RESOURCE_PROBE};
use crate::net::mcp::era::{Era, Negotiated, Protocol};
use crate::net::mcp::{Client, ClientError, Limits, Target};

/// One `--calls` entry.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CallSpec {
    pub tool: String,
    #[serde(default = "empty_object")]
    pub arguments: Value,
    #[serde(default)]
    pub expect: Expect,
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

/// What a call must do.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Expect {
    /// The response, as sent, at most this many bytes.
    pub max_bytes: Option<u64>,
    /// `isError` as given (true: the call must fail; false: it must succeed).
    pub is_error: Option<bool>,
    /// Text the response must contain.
    pub contains: Option<String>,
}

/// How a live audit runs.
#[derive(Clone, Debug)]
pub struct Options {
    pub calls: Vec<CallSpec>,
    pub probe: bool,
    /// Pages of one list followed at most.
    pub max_pages: usize,
    /// The era to speak, or auto.
    pub protocol: Protocol,
    /// Under auto, also ask a modern server whether it answers `initialize` (dual-era).
    pub ask_legacy: bool,
    /// Signs in to an HTTP server that asks (`--oauth`): a fresh client per connection.
    pub oauth: Option<OAuthMaker>,
}

/// Makes the OAuth client of one connection (the CLI's, with its browser and loopback).
#[derive(Clone)]
#[allow(clippy::type_complexity)]
pub struct OAuthMaker(
    pub std::sync::Arc<dyn Fn() -> Result<crate::net::oauth::session::OAuth, String> + Send + Sync>,
);

impl std::fmt::Debug for OAuthMaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OAuthMaker")
    }
}

impl OAuthMaker {
    fn make(&self) -> Result<crate::net::oauth::session::OAuth, ClientError> {
        (self.0)().map_err(|detail| ClientError::Protocol {
            method: "sign-in".to_owned(),
            detail,
        })
    }
}

/// Something only a live session shows, for the report as a finding on the whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    pub code: RuleId,
    pub message: String,
    pub help: String,
    pub tool: Option<String>,
}

/// A finished (or interrupted) session.
#[derive(Debug)]
pub struct Session {
    pub name: String,
    pub target: String,
    pub transport: &'static str,
    /// The era, versions, capabilities and identity the server was found to have.
    pub server: Negotiated,
    /// Every message, one JSON text per line.
    pub transcript: String,
    /// Request id -> milliseconds to the answer.
    pub latencies: BTreeMap<u64, f64>,
    pub observations: Vec<Observation>,
    /// Tools by name with their definition's JSON, from every page.
    pub tools: Vec<(String, String)>,
    /// Pages tools/list took.
    pub tool_pages: usize,
    pub calls: usize,
    /// Tools not called, with why: --probe could not fill their arguments, or a --calls entry
    /// names a tool the client had to drop (MG032).
    pub skipped: Vec<String>,
    pub stderr: String,
    pub elapsed_ms: f64,
    /// Why the session ended early, if it did.
    pub error: Option<ClientError>,
}

impl Session {
    /// The tools the server listed, by name, each as a JSON value (one that does not parse is
    /// left out: the audit reports it elsewhere).
    pub fn definitions(&self) -> Vec<(String, serde_json::Value)> {
        self.tools
            .iter()
            .filter_map(|(name, json)| Some((name.clone(), serde_json::from_str(json).ok()?)))
            .collect()
    }
}

/// The lists of MCP: method, member, and the capability that offers it.
const LISTS: [(&str, &str, &str); 4] = [
    ("tools/list", "tools", "tools"),
    ("resources/list", "resources", "resources"),
    ("resources/templates/list", "resourceTemplates", "resources"),
    ("prompts/list", "prompts", "prompts"),
];

/// Audits one server: connects, asks everything, and ends the session on every path.
pub fn run(name: &str, target: &Target, opts: &Options, limits: Limits) -> Session {
    let started = std::time::Instant::now();
    let mut session = Session {
        name: name.to_owned(),
        target: target.describe(),
        transport: target.transport(),
        server: Negotiated::default(),
        transcript: String::new(),
        latencies: BTreeMap::new(),
        observations: Vec::new(),
        tools: Vec::new(),
        tool_pages: 0,
        calls: 0,
        skipped: Vec::new(),
        stderr: String::new(),
        elapsed_ms: 0.0,
        error: None,
    };
    let oauth = match opts.oauth.as_ref().map(OAuthMaker::make).transpose() {
        Ok(oauth) => oauth,
        Err(e) => {
            session.error = Some(e);
            return session;
        }
    };
    match Client::connect(target, limits, opts.protocol, oauth) {
        Ok(mut client) => {
            if let Err(e) = converse(&mut client, opts, &mut session) {
                session.error = Some(e);
            }
            client.close();
            session.server = client.server.clone();
            if opts.ask_legacy
                && opts.protocol == Protocol::Auto
                && client.server.era == Some(Era::Modern)
            {
                session.server.dual_era = answers_initialize(target, limits, opts);
            }
            session
                .observations
                .extend(client.notes.iter().map(|n| Observation {
                    code: RuleId::EraViolation,
                    message: n.message.clone(),
                    help: n.help.into(),
                    tool: None,
                }));
            session.transcript = client.transcript();
            session.latencies = std::mem::take(&mut client.latencies);
            session.stderr = client.stderr();
        }
        Err(e) => session.error = Some(e),
    }
    session.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    session
}

fn converse(client: &mut Client, opts: &Options, s: &mut Session) -> Result<(), ClientError> {
    let capabilities = client.server.capabilities.clone();

    let mut tool_defs: Vec<Value> = Vec::new();
    let mut probed_list = None;
    for (method, member, capability) in LISTS {
        if capabilities.get(capability).is_none() {
            continue;
        }
        probed_list.get_or_insert(method);
        let (items, pages) = follow(client, method, member, opts.max_pages, s)?;
        if method == "tools/list" {
            client.learn_tools(&items);
            tool_defs = items;
            s.tool_pages = pages;
            // The same first page again: its order must not change (MG024 on the answer).
            client.request(method, json!({}))?;
        }
    }
    s.tools = tool_defs
        .iter()
        .map(|t| {
            let name = t
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned();
            (name, t.to_string())
        })
        .collect();

    // A cursor the server never issued must be refused with -32602 (MG020 on the answer).
    if let Some(method) = probed_list {
        client.request(method, json!({"cursor": INVALID_CURSOR_PROBE}))?;
    }
    // A resource it does not have must be -32602 on 2026-07-28 (MG029 on the answer).
    if capabilities.get("resources").is_some() {
        client.request("resources/read", json!({"uri": MISSING_RESOURCE_PROBE}))?;
    }

    for spec in &opts.calls {
        if let Some(why) = client.rejected_tool(&spec.tool) {
            s.skipped.push(format!(
                "{}: {why} (MG032); a 2026-07-28 client over Streamable HTTP drops it",
                spec.tool
            ));
            continue;
        }
        let reply = client.request(
            "tools/call",
            json!({"name": spec.tool, "arguments": spec.arguments}),
        )?;
        s.calls += 1;
        if !asked_for_input(&spec.tool, &reply.value, s) {
            check_expectations(spec, &reply.text, &reply.value, s);
        }
    }

    if opts.probe {
        let called: HashSet<&str> = opts.calls.iter().map(|c| c.tool.as_str()).collect();
        for tool in &tool_defs {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            let read_only = tool
                .pointer("/annotations/readOnlyHint")
                .and_then(Value::as_bool)
                == Some(true);
            if !read_only || called.contains(name) || client.rejected_tool(name).is_some() {
                continue;
            }
            match fill_arguments(tool.get("inputSchema").unwrap_or(&Value::Null)) {
                Ok(arguments) => {
                    let reply = client
                        .request("tools/call", json!({"name": name, "arguments": arguments}))?;
                    s.calls += 1;
                    asked_for_input(name, &reply.value, s);
                }
                Err(missing) => s.skipped.push(format!(
                    "{name}: no default, enum, const or example for required `{missing}`"
                )),
            }
        }
    }
    Ok(())
}

/// Whether a modern server also opens a legacy session: `initialize` in a conversation of its
/// own (a new process, or a new HTTP session that is then deleted), since a dual-era server
/// may keep one process or session in the era it began with. `None` when it neither answered
/// nor refused.
fn answers_initialize(target: &Target, mut limits: Limits, opts: &Options) -> Option<bool> {
    limits.request = limits.request.min(crate::net::mcp::PROBE_WAIT);
    let oauth = opts.oauth.as_ref().map(OAuthMaker::make).transpose().ok()?;
    match Client::connect(target, limits, Protocol::Legacy, oauth) {
        Ok(mut client) => {
            client.close();
            Some(true)
        }
        Err(ClientError::Rpc { .. } | ClientError::HttpStatus { .. }) => Some(false),
        Err(_) => None,
    }
}

/// Follows one list to its end; returns its items and the pages it took.
fn follow(
    client: &mut Client,
    method: &str,
    member: &str,
    max_pages: usize,
    s: &mut Session,
) -> Result<(Vec<Value>, usize), ClientError> {
    let mut items = Vec::new();
    let mut pages = 0;
    let mut cursor: Option<String> = None;
    let mut seen: HashSet<String> = HashSet::new();
    for page in 1.. {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let reply = client.request(method, params)?;
        pages = page;
        let Some(result) = reply.value.get("result") else {
            break;
        };
        if asked_for_input(method, &reply.value, s) {
            break;
        }
        if let Some(list) = result.get(member).and_then(Value::as_array) {
            items.extend(list.iter().cloned());
        }
        let next = result
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_owned);
        let Some(next) = next else {
            break;
        };
        if !seen.insert(next.clone()) {
            // The same cursor as the request is MG021 on that response (a transcript shows it
            // too); an older one is a cycle only a live session sees.
            if cursor.as_deref() != Some(next.as_str()) {
                s.observations.push(Observation {
                    code: RuleId::CursorRepeated,
                    message: format!(
                        "{method} came back to a cursor it had already returned, after {page} pages: a client following nextCursor never ends"
                    ),
                    help: "each nextCursor must lead forward; none on the last page (FR-004)".into(),
                    tool: None,
                });
            }
            break;
        }
        if page >= max_pages {
            s.observations.push(Observation {
                code: RuleId::ListRunaway,
                message: format!(
                    "{method} still had a nextCursor after {page} pages ({} items); stopped there",
                    items.len()
                ),
                help: "check that the last page has no nextCursor, or raise --max-pages for a very long list".into(),
                tool: None,
            });
            break;
        }
        cursor = Some(next);
    }
    Ok((items, pages))
}

/// An `input_required` result (2026-07-28 multi round-trip requests): the server wants the
/// client to gather input and retry. An audit never answers one, so it is reported (MG031) and
/// the call has no final result to judge.
fn asked_for_input(what: &str, reply: &Value, s: &mut Session) -> bool {
    let Some(result) = reply.get("result") else {
        return false;
    };
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return false;
    }
    let wants: Vec<String> = result
        .get("inputRequests")
        .and_then(Value::as_object)
        .map(|r| {
            r.iter()
                .map(|(key, req)| {
                    let method = req.get("method").and_then(Value::as_str).unwrap_or("?");
                    format!("{key}: {method}")
                })
                .collect()
        })
        .unwrap_or_default();
    s.observations.push(Observation {
        code: RuleId::InputRequired,
        message: format!(
            "{what} answered input_required ({}) instead of a result; mcpguard never answers for a user, so its final result was not audited",
            if wants.is_empty() { "no inputRequests".to_owned() } else { wants.join(", ") }
        ),
        help: "give the call arguments that need no user input in --calls, or audit a captured transcript of the completed exchange".into(),
        tool: Some(what.to_owned()).filter(|_| !what.contains('/')),
    });
    true
}

fn check_expectations(spec: &CallSpec, text: &str, value: &Value, s: &mut Session) {
    let mut broken = Vec::new();
    let e = &spec.expect;
    if let Some(max) = e.max_bytes
        && text.len() as u64 > max
    {
        broken.push(format!("{} bytes, over maxBytes {max}", text.len()));
    }
    if let Some(want) = e.is_error {
        let got = value.pointer("/result/isError").and_then(Value::as_bool) == Some(true)
            || value.get("error").is_some();
        if got != want {
            broken.push(format!("isError is {got}, expected {want}"));
        }
    }
    if let Some(needle) = &e.contains
        && !text.contains(needle.as_str())
    {
        broken.push(format!("the response does not contain {needle:?}"));
    }
    if !broken.is_empty() {
        s.observations.push(Observation {
            code: RuleId::CallExpectation,
            message: format!("{}: {}", spec.tool, broken.join("; ")),
            help: "see the expectations for this call in the --calls file".into(),
            tool: Some(spec.tool.clone()),
        });
    }
}

/// Arguments for a tool from its input schema: every required property from its default,
/// const, first enum value or first example. The name of the first that has none is the error.
pub fn fill_arguments(schema: &Value) -> Result<Value, String> {
    let props = schema.get("properties").and_then(Value::as_object);
    let mut args = Map::new();
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect::<Vec<_>>())
        .unwrap_or_default();
    for name in required {
        let prop = props.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
        let value = prop
            .get("default")
            .or_else(|| prop.get("const"))
            .or_else(|| prop.get("enum").and_then(|e| e.get(0)))
            .or_else(|| prop.get("examples").and_then(|e| e.get(0)))
            .cloned()
            .ok_or_else(|| name.to_owned())?;
        args.insert(name.to_owned(), value);
    }
    Ok(Value::Object(args))
}

/// Parses a `--calls` file (YAML or JSON): a list of `{tool, arguments, expect}`.
pub fn parse_calls(value: Value) -> Result<Vec<CallSpec>, String> {
    let list = match value {
        Value::Array(list) => list,
        Value::Object(mut m) if m.contains_key("calls") => match m.remove("calls") {
            Some(Value::Array(list)) => list,
            _ => return Err("`calls` must be a list".into()),
        },
        _ => return Err("expected a list of {tool, arguments, expect}".into()),
    };
    list.into_iter()
        .enumerate()
        .map(|(i, v)| {
            serde_json::from_value::<CallSpec>(v).map_err(|e| format!("entry {}: {e}", i + 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_come_only_from_the_schema() {
        let schema = json!({"type": "object", "required": ["format", "n", "q"], "properties": {
            "format": {"enum": ["json", "text"]}, "n": {"type": "integer", "default": 5},
            "q": {"type": "string", "examples": ["hotels"]}, "extra": {"type": "string"}}});
        assert_eq!(
            fill_arguments(&schema).unwrap(),
            json!({"format": "json", "n": 5, "q": "hotels"})
        );
        let open = json!({"required": ["path"], "properties": {"path": {"type": "string"}}});
        assert_eq!(fill_arguments(&open).unwrap_err(), "path");
        assert_eq!(fill_arguments(&json!({})).unwrap(), json!({}));
    }

    #[test]
    fn calls_files_are_checked() {
        let calls = parse_calls(
            json!([{"tool": "echo", "arguments": {"m": "hi"}, "expect": {"maxBytes": 100}}]),
        )
        .unwrap();
        assert_eq!(calls[0].expect.max_bytes, Some(100));
        assert!(
            parse_calls(json!([{"tool": "echo", "args": {}}]))
                .unwrap_err()
                .starts_with("entry 1:")
        );
    }
}
