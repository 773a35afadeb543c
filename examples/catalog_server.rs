//! A stdio MCP server that serves a catalog and nothing else, for the gateway's scale figures
//! (scripts/bench-gateway.sh): `--tools N` tools shaped like real ones (a sentence or three of
//! description, two to five typed parameters), `--delay-ms D` before it answers initialize
//! (a server's start-up), every call answered at once with one short line.
//!
//! `--recorded FILE` serves instead the tools a recorded catalog holds for server NAME (rows of
//! `{"server", "tool", "description", "inputSchema"}`, as tests/fixtures/retrieval's
//! LiveMCPBench catalog), for the tiers' figures (scripts/bench-tiers.sh).
//!
//! `--answer-file FILE` answers every call with that file's text (a database's repr, a CSV),
//! `--answer-result FILE` with that file's JSON as the whole result (structuredContent too),
//! for the checks of records read from text.
//!
//!     catalog_server --name NAME [--tools 100] [--delay-ms 0] [--recorded FILE] [--answer-file FILE] [--answer-result FILE]

use std::io::{BufRead, Write};
use std::time::Duration;

use serde_json::{Value, json};

const TOPICS: [&str; 10] = [
    "issues", "files", "pages", "tickets", "rows", "events", "messages", "builds", "users", "notes",
];
const VERBS: [&str; 8] = [
    "list", "get", "search", "create", "update", "delete", "export", "count",
];

fn tools(server: &str, n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let (verb, topic) = (VERBS[i % VERBS.len()], TOPICS[(i / VERBS.len()) % TOPICS.len()]);
            let mut properties = serde_json::Map::new();
            for p in 0..(2 + i % 4) {
                properties.insert(
                    format!("{}_{p}", ["id", "query", "limit", "cursor", "owner"][p % 5]),
                    json!({"type": if p % 3 == 2 { "integer" } else { "string" },
                           "description": format!("The {topic} {} to use.", ["id", "filter", "page size", "page", "owner"][p % 5])}),
                );
            }
            json!({
                "name": format!("{verb}_{topic}_{i:03}"),
                "description": format!(
                    "{verb} the {topic} of the {server} workspace. Results are sorted by last change, newest first; \
                     archived {topic} are left out unless asked for. Use it when the user names {topic} by id or by a phrase."
                ),
                "inputSchema": {"type": "object", "properties": properties, "required": ["id_0"]},
                "annotations": {"readOnlyHint": matches!(verb, "list" | "get" | "search" | "count" | "export")}
            })
        })
        .collect()
}

/// The tools `path` records for `server`, as tools/list gives them.
fn recorded(path: &str, server: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let file: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    file["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|row| row["server"] == server)
        .map(|row| {
            let mut tool = json!({"name": row["tool"], "description": row["description"]});
            tool["inputSchema"] = row
                .get("inputSchema")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object"}));
            tool
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let server = flag("--name").unwrap_or_else(|| "catalog".to_owned());
    let count: usize = flag("--tools").and_then(|n| n.parse().ok()).unwrap_or(100);
    let delay = Duration::from_millis(flag("--delay-ms").and_then(|n| n.parse().ok()).unwrap_or(0));
    let catalog = match flag("--recorded") {
        Some(path) => recorded(&path, &server),
        None => tools(&server, count),
    };
    let answer = flag("--answer-file")
        .map(|path| std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")));
    let whole: Option<Value> = flag("--answer-result").map(|path| {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    });
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = message.get("id").cloned() else {
            continue;
        };
        let result = match message["method"].as_str() {
            Some("initialize") => {
                std::thread::sleep(delay);
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                       "serverInfo": {"name": server, "version": "1"}})
            }
            // One page: any cursor is one it never gave (MCP pagination: -32602).
            Some("tools/list") if message["params"].get("cursor").is_some() => {
                let error = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "unknown cursor"}});
                let _ = writeln!(out, "{error}");
                let _ = out.flush();
                continue;
            }
            Some("tools/list") => json!({ "tools": catalog }),
            Some("tools/call") if whole.is_some() => whole.clone().unwrap_or_default(),
            Some("tools/call") => json!({"content": [{"type": "text",
                "text": answer.clone().unwrap_or_else(|| format!("{} done", message["params"]["name"].as_str().unwrap_or("")))}]}),
            Some("ping") => json!({}),
            _ => {
                let error = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "not here"}});
                let _ = writeln!(out, "{error}");
                let _ = out.flush();
                continue;
            }
        };
        let _ = writeln!(
            out,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "result": result})
        );
        let _ = out.flush();
    }
}
