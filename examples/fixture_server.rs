//! An MCP server built with rmcp (the official Rust SDK) for mcpguard's live-audit tests:
//! paginated tools and resources, results that break the contract on purpose (oversized,
//! base64, duplicated), and misbehaviour on request, over stdio or Streamable HTTP.
//!
//!     fixture_server [--http 127.0.0.1:PORT] [--fault repeat-cursor|runaway|accept-bad-cursor|hang-list]
//!
//! Tools that misbehave when called: `hang` never answers, `crash` exits the process, `garbage`
//! writes a line that is not JSON (stdio), `huge` answers with 5 MB. With --http, the address
//! prints on stdout once listening, and POST /garbage answers HTML instead of JSON.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

const TOOLS_PER_PAGE: usize = 3;
const RESOURCES_PER_PAGE: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    None,
    /// tools/list answers a cursor with the same cursor.
    RepeatCursor,
    /// tools/list always has a next page.
    Runaway,
    /// an unknown cursor is answered with the first page instead of -32602.
    AcceptBadCursor,
    /// tools/list never answers.
    HangList,
}

#[derive(Clone)]
struct Fixture {
    fault: Fault,
    stdio: bool,
}

fn tools() -> Vec<Value> {
    let read_only = json!({"readOnlyHint": true});
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
                "format": {"type": "string", "default": "json"}}}}),
        json!({"name": "search", "description": "Full-text search over bookings.",
            "annotations": read_only,
            "inputSchema": {"type": "object", "required": ["query"], "properties": {
                "query": {"type": "string"}}}}),
        json!({"name": "delete_everything", "description": "Deletes every booking. Never call this in a test.",
            "annotations": {"destructiveHint": true, "readOnlyHint": false},
            "inputSchema": {"type": "object", "properties": {}}}),
        json!({"name": "hang", "description": "Never answers.", "inputSchema": {"type": "object"}}),
        json!({"name": "crash", "description": "Exits the server.", "inputSchema": {"type": "object"}}),
        json!({"name": "garbage", "description": "Writes a line that is not JSON on stdout.", "inputSchema": {"type": "object"}}),
        json!({"name": "huge", "description": "Answers with 5 MB of text.", "inputSchema": {"type": "object"}}),
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
    let start = start.min(items.len().saturating_sub(per_page));
    let slice: Vec<&Value> = items.iter().skip(start).take(per_page).collect();
    let next = match fault {
        Fault::RepeatCursor if cursor.is_some() => cursor.map(str::to_owned),
        Fault::Runaway => Some(format!("page-{}", index + 1)),
        _ => (start + per_page < items.len()).then(|| format!("page-{}", index + 1)),
    };
    let mut result = json!({member: slice});
    if let Some(n) = next {
        result["nextCursor"] = json!(n);
    }
    serde_json::from_value(result).map_err(|e| McpError::internal_error(e.to_string(), None))
}

fn bookings(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            json!({"id": format!("bk_{i:05}"), "guestName": format!("Guest {i}"), "status": "confirmed",
                "checkInDate": "2026-12-01", "nights": i % 9 + 1, "totalPrice": {"amount": 120 * (i % 9 + 1), "currency": "EUR"},
                "notes": "Late arrival after 22:00; the key box code was sent by SMS. Prefers the upstairs room."})
        })
        .collect()
}

fn text_result(text: String) -> CallToolResponse {
    tool_result(json!({"content": [{"type": "text", "text": text}]}))
}

fn tool_result(value: Value) -> CallToolResponse {
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

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        if self.fault == Fault::HangList {
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        }
        let cursor = request.and_then(|r| r.cursor);
        page(
            "tools",
            &tools(),
            TOOLS_PER_PAGE,
            cursor.as_deref(),
            self.fault,
        )
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

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        serde_json::from_value(json!({"resourceTemplates": [
            {"uriTemplate": "bookings://{id}", "name": "a booking", "mimeType": "application/json"}]}))
        .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        serde_json::from_value(json!({"prompts": [
            {"name": "summarize_week", "description": "Summarize the week's bookings."}]}))
        .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.clone().unwrap_or_default();
        Ok(match request.name.as_ref() {
            "list_bookings" => {
                text_result(json!({"bookings": bookings(300), "total": 300}).to_string())
            }
            "screenshot" => {
                let png =
                    "iVBORw0KGgoAAAANSUhEUgAAAoAAAAHgCAYAAAA10dzkAAAgAElEQVR4nO3d".repeat(700);
                text_result(json!({"url": "https://example.com/checkout", "screenshot": format!("data:image/png;base64,{png}")}).to_string())
            }
            "get_report" => {
                let report = json!({"week": "2026-W47", "occupancy": 0.82, "nights": 143, "format": args.get("format")});
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
    let fault = match flag("--fault").as_deref() {
        None | Some("none") => Fault::None,
        Some("repeat-cursor") => Fault::RepeatCursor,
        Some("runaway") => Fault::Runaway,
        Some("accept-bad-cursor") => Fault::AcceptBadCursor,
        Some("hang-list") => Fault::HangList,
        Some(other) => {
            eprintln!("fixture_server: unknown --fault {other}");
            std::process::exit(2);
        }
    };
    let http = flag("--http");
    eprintln!("fixture_server: starting (fault {fault:?})");
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(async move {
        match http {
            None => {
                let server = Fixture { fault, stdio: true }
                    .serve(rmcp::transport::stdio())
                    .await
                    .expect("stdio session");
                let _ = server.waiting().await;
            }
            Some(addr) => serve_http(&addr, fault).await,
        }
    });
}

async fn serve_http(addr: &str, fault: Fault) {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let service = StreamableHttpService::new(
        move || {
            Ok(Fixture {
                fault,
                stdio: false,
            })
        },
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service).route(
        "/garbage",
        axum::routing::post(|| async {
            (
                [("content-type", "application/json")],
                "<html><body>502 Bad Gateway</body></html>",
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
    println!("{}", listener.local_addr().expect("an address"));
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    axum::serve(listener, router).await.expect("serve");
}
