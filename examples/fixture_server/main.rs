//! An MCP server built with rmcp 3.11 (the official Rust SDK) for mcpguard's live-audit tests:
//! paginated tools and resources, results that break the contract on purpose (oversized,
//! base64, duplicated), and misbehaviour on request, over stdio or Streamable HTTP, in either
//! era of the protocol or both.
//!
//!     fixture_server [--http 127.0.0.1:PORT] [--era dual|modern|legacy] [--fault FAULT]
//!
//! Eras: `dual` (the default) answers server/discover and initialize alike; `modern` lists only
//! 2026-07-28 and refuses initialize; `legacy` is a 2025-11-25 server: server/discover is an
//! unknown method (stdio) or a bare HTTP 400 (HTTP).
//!
//! Faults, one per rule or failure mcpguard must catch: the list faults `repeat-cursor`,
//! `runaway`, `accept-bad-cursor`, `hang-list`; the protocol rules `shuffle-tools` (MG024),
//! `no-cache-hints` (MG025), `no-result-type` (MG026), `bad-structured` (MG027),
//! `dangling-ref` (MG028), `old-not-found` (MG029), `stream-notify` (MG030), `input-required`
//! (MG031), `bad-header` (search's x-mcp-header has a space: MG032); and the era failures `claims-modern` (discover says 2026-07-28, everything else
//! demands initialize), `discover-garbage`, `discover-no-versions`,
//! `discover-unknown-versions`, `discover-empty` (server/discover answered `{}`, as the
//! conformance suite's legacy servers answer any method they do not know),
//! `refuse-version-once` (the first server/discover refused with UnsupportedProtocolVersion
//! though 2026-07-28 is listed, as the suite's request-metadata scenario does: a client must
//! ask again), `ask-roots` (a legacy call that asks the client for roots and
//! waits), and over HTTP `sse-poll` (a legacy stream closed after a priming event, resumed with
//! Last-Event-ID), `sse-never` (resumption that never delivers), `slow-get` (the GET stream
//! answered late, a tools/list sent before it refused), `cut-once` and `cut-always` (a modern
//! response stream cut before its answer).
//!
//! Tools that misbehave when called: `hang` never answers, `crash` exits the process, `garbage`
//! writes a line that is not JSON (stdio), `huge` answers with 5 MB; `unreadable` (not listed,
//! answered by the wire layer) with 300 KB that serde_json refuses (`kind`: `surrogate`,
//! `bignum`, `deep`). With --http, the address
//! prints on stdout once listening, and POST /garbage answers HTML instead of JSON.

mod wire;

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

const TOOLS_PER_PAGE: usize = 3;
const RESOURCES_PER_PAGE: usize = 10;

/// Which protocol revisions the fixture speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    Dual,
    Modern,
    Legacy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    None,
    /// tools/list answers a cursor with the same cursor.
    RepeatCursor,
    /// tools/list always has a next page.
    Runaway,
    /// an unknown cursor is answered with the first page instead of -32602.
    AcceptBadCursor,
    /// tools/list never answers.
    HangList,
    /// every other listing of a tools/list page comes in reverse order.
    ShuffleTools,
    NoCacheHints,
    NoResultType,
    /// get_report's structuredContent breaks its outputSchema.
    BadStructured,
    /// get_report's outputSchema points at a $def it does not have.
    DanglingRef,
    /// a missing resource is -32002 even on 2026-07-28.
    OldNotFound,
    /// tools/call sends notifications/tools/list_changed on the response stream.
    StreamNotify,
    /// book_room answers input_required.
    InputRequired,
    ClaimsModern,
    DiscoverGarbage,
    DiscoverNoVersions,
    DiscoverUnknownVersions,
    DiscoverEmpty,
    BadHeader,
    RefuseVersionOnce,
    /// every tool call first asks the client for roots/list and waits for the answer.
    AskRoots,
    SsePoll,
    SseNever,
    /// HTTP: the session's GET stream is answered after 500 ms, and a tools/list that comes
    /// while it waits is refused: a client must not race its requests past its GET stream.
    SlowGet,
    CutOnce,
    CutAlways,
}

impl Fault {
    fn parse(name: &str) -> Option<Fault> {
        Some(match name {
            "none" => Fault::None,
            "repeat-cursor" => Fault::RepeatCursor,
            "runaway" => Fault::Runaway,
            "accept-bad-cursor" => Fault::AcceptBadCursor,
            "hang-list" => Fault::HangList,
            "shuffle-tools" => Fault::ShuffleTools,
            "no-cache-hints" => Fault::NoCacheHints,
            "no-result-type" => Fault::NoResultType,
            "bad-structured" => Fault::BadStructured,
            "dangling-ref" => Fault::DanglingRef,
            "old-not-found" => Fault::OldNotFound,
            "stream-notify" => Fault::StreamNotify,
            "input-required" => Fault::InputRequired,
            "claims-modern" => Fault::ClaimsModern,
            "discover-garbage" => Fault::DiscoverGarbage,
            "discover-no-versions" => Fault::DiscoverNoVersions,
            "discover-unknown-versions" => Fault::DiscoverUnknownVersions,
            "discover-empty" => Fault::DiscoverEmpty,
            "bad-header" => Fault::BadHeader,
            "refuse-version-once" => Fault::RefuseVersionOnce,
            "ask-roots" => Fault::AskRoots,
            "sse-poll" => Fault::SsePoll,
            "sse-never" => Fault::SseNever,
            "slow-get" => Fault::SlowGet,
            "cut-once" => Fault::CutOnce,
            "cut-always" => Fault::CutAlways,
            _ => return None,
        })
    }
}

#[derive(Clone)]
struct Fixture {
    fault: Fault,
    era: Era,
    stdio: bool,
    /// Listings of the first tools/list page so far (shared by every HTTP request).
    listings: Arc<AtomicUsize>,
}

fn tools(fault: Fault) -> Vec<Value> {
    let read_only = json!({"readOnlyHint": true});
    let mut report_schema = json!({"type": "object", "required": ["week", "occupancy"],
        "properties": {"week": {"$ref": "#/$defs/Week"}, "occupancy": {"type": "number"},
            "nights": {"type": "integer"}, "format": {"type": ["string", "null"]}},
        "$defs": {"Week": {"type": "string", "pattern": "^[0-9]{4}-W[0-9]{2}$"}}});
    if fault == Fault::DanglingRef {
        report_schema["$defs"] = json!({});
    }
    let query_header = if fault == Fault::BadHeader {
        "Search Query"
    } else {
        "Query"
    };
    vec![
        json!({"name": "list_bookings", "description": "All bookings of a property, with guests, prices and notes.",
            "annotations": read_only,
            "inputSchema": {"type": "object", "required": ["status"], "properties": {
                "status": {"type": "string", "enum": ["confirmed", "pending"]}}}}),
        json!({"name": "screenshot", "description": "A screenshot of the booking page, inlined as a data URI.",
            "annotations": read_only, "inputSchema": {"type": "object", "properties": {}}}),
        json!({"name": "get_report", "description": "The occupancy report, as text and as structured content.",
            "annotations": read_only,
            "inputSchema": {"type": "object", "required": ["format"], "properties": {
                "format": {"type": "string", "default": "json"}}},
            "outputSchema": report_schema}),
        json!({"name": "search", "description": "Full-text search over bookings.",
            "annotations": read_only,
            "inputSchema": {"type": "object", "required": ["query"], "properties": {
                "query": {"type": "string", "x-mcp-header": query_header}}}}),
        json!({"name": "delete_everything", "description": "Deletes every booking. Never call this in a test.",
            "annotations": {"destructiveHint": true, "readOnlyHint": false},
            "inputSchema": {"type": "object", "properties": {}}}),
        json!({"name": "hang", "description": "Never answers.", "inputSchema": {"type": "object"}}),
        json!({"name": "crash", "description": "Exits the server.", "inputSchema": {"type": "object"}}),
        json!({"name": "garbage", "description": "Writes a line that is not JSON on stdout.", "inputSchema": {"type": "object"}}),
        json!({"name": "huge", "description": "Answers with 5 MB of text.", "inputSchema": {"type": "object"}}),
        // Not annotated read-only, so `audit --probe` leaves it to the proxy's tests.
        json!({"name": "read_log", "description": "The worker's log: 4,000 lines (about 300 KB), with stack traces.",
            "inputSchema": {"type": "object", "properties": {}}}),
    ]
}

fn page<T: serde::de::DeserializeOwned>(
    member: &str,
    items: &[Value],
    per_page: usize,
    cursor: Option<&str>,
    fault: Fault,
) -> Result<T, McpError> {
    let start = match cursor {
        None => 0,
        Some(c) => match c
            .strip_prefix("page-")
            .and_then(|n| n.parse::<usize>().ok())
        {
            Some(n) if n * per_page < items.len() || fault == Fault::Runaway => n * per_page,
            _ if fault == Fault::AcceptBadCursor => 0,
            _ => {
                return Err(McpError::invalid_params(
                    format!("unknown cursor {c:?}"),
                    None,
                ));
            }
        },
    };
    let index = start / per_page;
    // A runaway server keeps serving its last page; a well-behaved one ends on a short page.
    let start = if fault == Fault::Runaway {
        start.min(items.len().saturating_sub(per_page))
    } else {
        start
    };
    let slice: Vec<&Value> = items.iter().skip(start).take(per_page).collect();
    let next = match fault {
        Fault::RepeatCursor if cursor.is_some() => cursor.map(str::to_owned),
        Fault::Runaway => Some(format!("page-{}", index + 1)),
        _ => (start + per_page < items.len()).then(|| format!("page-{}", index + 1)),
    };
    // Built from JSON, rmcp leaves resultType unset: a complete result says so itself (the
    // wire layer takes it off for legacy peers and for the no-result-type fault).
    let mut result = json!({member: slice, "resultType": "complete"});
    if let Some(n) = next {
        result["nextCursor"] = json!(n);
    }
    serde_json::from_value(result).map_err(|e| McpError::internal_error(e.to_string(), None))
}

fn bookings(n: usize) -> Vec<Value> {
    mixed_bookings(n, false)
}

/// Bookings; `mixed`: some cancelled (every tenth from the fourth) and some pending, as a real
/// property's list is.
fn mixed_bookings(n: usize, mixed: bool) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let status = match i % 10 {
                3 if mixed => "cancelled",
                7 if mixed => "pending",
                _ => "confirmed",
            };
            json!({"id": format!("bk_{i:05}"), "guestName": format!("Guest {i}"), "status": status,
                "checkInDate": "2026-12-01", "nights": i % 9 + 1, "totalPrice": {"amount": 120 * (i % 9 + 1), "currency": "EUR"},
                "notes": "Late arrival after 22:00; the key box code was sent by SMS. Prefers the upstairs room."})
        })
        .collect()
}

/// A realistic application log: timestamped lines, and now and then an error with its
/// indented stack trace (continuation lines a chunker must keep with their entry).
/// `fatal`: every fourth error is FATAL instead.
fn worker_log_with(lines: usize, fatal: bool) -> String {
    let mut out = String::new();
    let mut n = 0;
    while n < lines {
        let (minute, second, milli) = (n / 600 % 60, n / 10 % 60, n * 37 % 1000);
        let worker = n % 4;
        if n % 97 == 96 {
            let level = if fatal && n / 97 % 4 == 3 {
                "FATAL"
            } else {
                "ERROR"
            };
            out.push_str(&format!(
                "2026-11-23T08:{minute:02}:{second:02}.{milli:03}Z {level} [worker-{worker}] booking bk_{n:05} failed: payment gateway timed out after 30000 ms\n"
            ));
            for frame in [
                "charge_card (payments/gateway.py:214)",
                "confirm_booking (bookings/service.py:88)",
                "handle (worker/loop.py:41)",
            ] {
                out.push_str(&format!("    at {frame}\n"));
            }
            n += 4;
        } else {
            out.push_str(&format!(
                "2026-11-23T08:{minute:02}:{second:02}.{milli:03}Z INFO  [worker-{worker}] processed booking bk_{n:05} for property p_{:03} in {} ms\n",
                n % 211,
                n * 7 % 90 + 3
            ));
            n += 1;
        }
    }
    out
}

fn text_result(text: String) -> CallToolResponse {
    tool_result(json!({"content": [{"type": "text", "text": text}]}))
}

fn tool_result(mut value: Value) -> CallToolResponse {
    value["resultType"] = json!("complete");
    let result: CallToolResult = serde_json::from_value(value).expect("a valid tool result");
    result.into()
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_instructions("Bookings fixture for mcpguard's tests.")
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        match self.era {
            Era::Dual => Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS),
            Era::Modern => Cow::Owned(vec![ProtocolVersion::V_2026_07_28]),
            Era::Legacy => {
                Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
            }
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        if self.fault == Fault::HangList {
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        }
        let cursor = request.and_then(|r| r.cursor);
        let mut all = tools(self.fault);
        if cursor.is_none()
            && self.fault == Fault::ShuffleTools
            && self.listings.fetch_add(1, Ordering::SeqCst) % 2 == 1
        {
            all[..TOOLS_PER_PAGE].reverse();
        }
        page("tools", &all, TOOLS_PER_PAGE, cursor.as_deref(), self.fault)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let resources: Vec<Value> = (0..25)
            .map(|i| json!({"uri": format!("bookings://{i}"), "name": format!("booking {i}"), "mimeType": "application/json"}))
            .collect();
        let cursor = request.and_then(|r| r.cursor);
        // Faults are about tools/list; resources always page correctly.
        page(
            "resources",
            &resources,
            RESOURCES_PER_PAGE,
            cursor.as_deref(),
            Fault::None,
        )
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri.as_str();
        let known = uri
            .strip_prefix("bookings://")
            .and_then(|n| n.parse::<usize>().ok())
            .is_some_and(|n| n < 25);
        if !known {
            // rmcp answers -32602 to 2026-07-28 requests and -32002 to legacy ones.
            return Err(McpError::resource_not_found(
                format!("no resource {uri}"),
                None,
            ));
        }
        let booking = &bookings(25)[uri[11..].parse::<usize>().unwrap_or(0)];
        serde_json::from_value::<rmcp::model::ReadResourceResult>(json!({
            "resultType": "complete",
            "contents": [{"uri": uri, "mimeType": "application/json", "text": booking.to_string()}]}))
        .map(Into::into)
        .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        serde_json::from_value(json!({"resultType": "complete", "resourceTemplates": [
            {"uriTemplate": "bookings://{id}", "name": "a booking", "mimeType": "application/json"}]}))
        .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        serde_json::from_value(json!({"resultType": "complete", "prompts": [
            {"name": "summarize_week", "description": "Summarize the week's bookings."}]}))
        .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.clone().unwrap_or_default();
        match self.fault {
            Fault::StreamNotify => {
                let _ = context.peer.notify_tool_list_changed().await;
            }
            Fault::AskRoots => {
                // A legacy server may ask mid-call (roots is deprecated in 2026-07-28, which is
                // the point: old servers still do it); it waits for the client's answer.
                #[allow(deprecated)]
                let asked = context.peer.list_roots().await;
                eprintln!("fixture_server: roots/list answered: {}", asked.is_ok());
            }
            Fault::InputRequired => {
                let pending = json!({"resultType": "input_required",
                    "inputRequests": {"guests": {"method": "elicitation/create", "params": {
                        "mode": "form", "message": "How many guests?",
                        "requestedSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}}},
                    "requestState": "opaque-1"});
                return serde_json::from_value(pending)
                    .map(CallToolResponse::InputRequired)
                    .map_err(|e| McpError::internal_error(e.to_string(), None));
            }
            _ => {}
        }
        Ok(match request.name.as_ref() {
            "list_bookings" => {
                // `count` (300 by default) is left out of the listed schema, so the catalog
                // the other tests measure stays as it is; the HTTP tests ask for 500.
                let count = args
                    .get("count")
                    .and_then(Value::as_u64)
                    .unwrap_or(300)
                    .min(100_000);
                let count = count as usize;
                // `mixed` (also left out of the schema): statuses vary, for the search tests.
                let mixed = args.get("mixed").and_then(Value::as_bool) == Some(true);
                text_result(
                    json!({"bookings": mixed_bookings(count, mixed), "total": count}).to_string(),
                )
            }
            "screenshot" => {
                let png =
                    "iVBORw0KGgoAAAANSUhEUgAAAoAAAAHgCAYAAAA10dzkAAAgAElEQVR4nO3d".repeat(700);
                text_result(json!({"url": "https://example.com/checkout", "screenshot": format!("data:image/png;base64,{png}")}).to_string())
            }
            "get_report" => {
                let occupancy = if self.fault == Fault::BadStructured {
                    json!("82%")
                } else {
                    json!(0.82)
                };
                let report = json!({"week": "2026-W47", "occupancy": occupancy, "nights": 143, "format": args.get("format")});
                tool_result(
                    json!({"content": [{"type": "text", "text": serde_json::to_string_pretty(&report).unwrap()}],
                    "structuredContent": report}),
                )
            }
            "search" => text_result(format!("no results for {:?}", args.get("query"))),
            "delete_everything" => tool_result(
                json!({"content": [{"type": "text", "text": "deleted every booking"}], "isError": true}),
            ),
            "hang" => {
                tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
                text_result("woke up".into())
            }
            "crash" => std::process::exit(3),
            "garbage" => {
                if self.stdio {
                    use std::io::Write as _;
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(b"Traceback (most recent call last): this is not JSON\n");
                    let _ = out.flush();
                }
                text_result("garbage written".into())
            }
            "huge" => text_result("x".repeat(5 << 20)),
            // `lines` and `fatal`, left out of the schema: a longer log, some errors FATAL.
            "read_log" => text_result(worker_log_with(
                args.get("lines")
                    .and_then(Value::as_u64)
                    .map_or(4000, |n| n.min(1_000_000) as usize),
                args.get("fatal").and_then(Value::as_bool) == Some(true),
            )),
            other => {
                return Err(McpError::invalid_params(format!("no tool {other}"), None));
            }
        })
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let fault = match flag("--fault") {
        None => Fault::None,
        Some(name) => Fault::parse(&name).unwrap_or_else(|| {
            eprintln!("fixture_server: unknown --fault {name}");
            std::process::exit(2);
        }),
    };
    let era = match flag("--era").as_deref() {
        None | Some("dual") => Era::Dual,
        Some("modern") => Era::Modern,
        Some("legacy") => Era::Legacy,
        Some(other) => {
            eprintln!("fixture_server: unknown --era {other} (dual, modern, legacy)");
            std::process::exit(2);
        }
    };
    let http = flag("--http");
    eprintln!("fixture_server: starting ({era:?}, fault {fault:?})");
    let fixture = Fixture {
        fault,
        era,
        stdio: http.is_none(),
        listings: Arc::new(AtomicUsize::new(0)),
    };
    let layer = wire::Layer::new(era, fault);
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(async move {
        match http {
            None => serve_stdio(fixture, layer).await,
            Some(addr) => serve_http(&addr, fixture, layer).await,
        }
    });
}

/// rmcp serves one end of an in-memory pipe; the wire layer stands between it and the real
/// stdin and stdout.
async fn serve_stdio(fixture: Fixture, layer: wire::Layer) {
    // Two one-way pipes, so closing the one into rmcp is an end of input rmcp sees.
    let (to_rmcp, rmcp_in) = tokio::io::duplex(1 << 20);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(1 << 20);
    let server = tokio::spawn(async move {
        if let Ok(running) = fixture.serve((rmcp_in, rmcp_out)).await {
            let _ = running.waiting().await;
        }
    });
    layer.pump_stdio(to_rmcp, from_rmcp).await;
    server.abort();
}

async fn serve_http(addr: &str, fixture: Fixture, layer: wire::Layer) {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let service = StreamableHttpService::new(
        move || Ok(fixture.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let mcp =
        axum::Router::new()
            .fallback_service(service)
            .layer(axum::middleware::from_fn_with_state(
                Arc::new(layer),
                wire::http_layer,
            ));
    let router = axum::Router::new().nest("/mcp", mcp).route(
        "/garbage",
        axum::routing::post(|| async {
            (
                [("content-type", "application/json")],
                "<html><body>502 Bad Gateway</body></html>",
            )
        }),
    );
    use axum::serve::ListenerExt as _;
    let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
    println!("{}", listener.local_addr().expect("an address"));
    // As a real server would: no Nagle delay on answers written in pieces.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    axum::serve(listener, router).await.expect("serve");
}
