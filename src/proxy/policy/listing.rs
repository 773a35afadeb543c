//! The server's `tools/list` as the client sees it: the injected tool appended, each tool's
//! schemas remembered, and under `catalog: tiered` the hot list with search and describe.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::config;
use crate::json::large::Members;
use crate::proxy::more;

use super::Policy;
use super::effects::{Effects, Level, Log, Route};
use super::pending::Pending;
use super::record::Record;
use super::wire::result_line;

/// How many tools a search returns unless it asks for another number (seed 004's T2 page).
const SEARCH_LIMIT: usize = 5;

/// What `catalog: tiered` needs across messages.
#[derive(Default)]
pub(super) struct Tiers {
    pub(super) usage: crate::proxy::tiers::Usage,
    /// Every tool definition the server listed, in its order (one per name).
    pub(super) seen: crate::proxy::tiers::Definitions,
    /// The search index over `seen`, built at the first search after `seen` changed.
    pub(super) ranker: Option<crate::proxy::ranker::Ranker>,
    /// Tools `describe` put on the list.
    pub(super) promoted: std::collections::HashSet<String>,
    pub(super) find_tool: String,
    pub(super) describe_tool: String,
    pub(super) call_tool: String,
    /// The client defers tool definitions itself (Claude Code's ToolSearch): `auto` lists all.
    pub(super) client_defers: bool,
    /// What `auto` decided at the last tools/list page.
    pub(super) auto_tiered: bool,
    /// The last page read had a next page: the listing in progress is paged.
    pub(super) listing_paged: bool,
    /// `auto` has decided once (its first decision is logged).
    pub(super) auto_decided: bool,
}

/// Clients that load a tool's definition only when the model asks for it, by `clientInfo.name`.
const DEFERRING_CLIENTS: [&str; 1] = ["claude-code"];

/// A catalog page over this many bytes is over any `catalogBudget` worth having, uncounted.
const AUTO_COUNT_BYTES: usize = 256 * 1024;

impl Policy {
    /// The last page of a tools/list gets the injected tool; every page teaches the policy
    /// the tools' names and outputSchemas. `None`: the page passes as it is.
    pub(super) fn tools_list(
        &mut self,
        result: &str,
        pending: &Pending,
        record: &mut Record,
        fx: &mut Effects,
    ) -> Option<Vec<u8>> {
        if self.config.catalog == config::Catalog::Auto {
            self.decide_auto(result, fx);
        }
        if self.tiered() {
            return self.tiered_list(result, pending, fx);
        }
        if self.config.catalog != config::Catalog::Trim {
            return self.full_list(result, pending, fx);
        }
        let mut value: Value = serde_json::from_str(result).ok()?;
        let tools = value.get("tools")?.as_array()?;
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            let input = tool.get("inputSchema").map(Value::to_string);
            self.learn_tool(name, tool.get("outputSchema").cloned(), input.as_deref());
        }
        self.rename_own_tools(fx);
        let mut changed = false;
        let limit = self.config.limits.max_tool_description_bytes as usize;
        let t = crate::proxy::catalog::trim(&mut value, limit, self.config.tokenizer.counter());
        if t.descriptions_cut + t.boilerplate_dropped > 0 {
            changed = true;
            record.sizes.tokens_before = t.tokens_before;
            record.sizes.tokens_after = t.tokens_after;
            record.outcome = "trimmed";
            let verb = if self.shadow { "would save" } else { "saved" };
            fx.logs.push(
                Log::new(
                    Level::Info,
                    format!(
                        "tools/list: {} descriptions cut, {} schema boilerplate members dropped: {} -> {} tokens ({verb} {})",
                        t.descriptions_cut,
                        t.boilerplate_dropped,
                        t.tokens_before,
                        t.tokens_after,
                        t.tokens_before.saturating_sub(t.tokens_after)
                    ),
                )
                .with("tokensSaved", t.tokens_before.saturating_sub(t.tokens_after)),
            );
        }
        if value.get("nextCursor").is_none_or(Value::is_null) {
            let tools = value.get_mut("tools")?.as_array_mut()?;
            tools.push(more::definition(&self.more_tool));
            changed = true;
        }
        if !changed || self.shadow {
            return None;
        }
        Some(result_line(&pending.raw_id, &value))
    }

    /// Whether the tiered catalog is in force: `catalog: tiered`, or `auto` decided so.
    pub(super) fn tiered(&self) -> bool {
        match self.config.catalog {
            config::Catalog::Tiered => true,
            config::Catalog::Auto => self.tiers.auto_tiered,
            config::Catalog::Full | config::Catalog::Trim => false,
        }
    }

    /// Remembers the client's name, from `initialize` or a 2026-07-28 request's `_meta`.
    pub(super) fn learn_client(&mut self, client_info: Option<&Value>) {
        if let Some(name) = client_info
            .and_then(|c| c.get("name"))
            .and_then(Value::as_str)
        {
            self.tiers.client_defers = DEFERRING_CLIENTS.contains(&name);
        }
    }

    /// `catalog: auto` on a tools/list page: full for a client that defers definitions
    /// itself, full for a catalog of one page within `catalogBudget` tokens, else tiered (a
    /// paged catalog is a large one). A change is logged.
    fn decide_auto(&mut self, result: &str, fx: &mut Effects) {
        #[derive(serde::Deserialize)]
        struct Next<'a> {
            #[serde(borrow, default, rename = "nextCursor")]
            next_cursor: Option<&'a RawValue>,
        }
        let paged = serde_json::from_str::<Next<'_>>(result)
            .ok()
            .and_then(|n| n.next_cursor)
            .is_some_and(|c| c.get() != "null");
        let budget = self.config.catalog_budget;
        let (tiered, why) = if self.tiers.client_defers {
            (
                false,
                "the client defers tool definitions itself".to_owned(),
            )
        } else if paged || self.tiers.listing_paged {
            (true, "the catalog comes in pages".to_owned())
        } else if result.len() > AUTO_COUNT_BYTES {
            (true, format!("the catalog is {} bytes", result.len()))
        } else {
            let (tokens, _) =
                self.config
                    .tokenizer
                    .count_for_verdict(std::iter::once(result), 0, &[budget]);
            let verdict = if tokens > budget { "over" } else { "within" };
            (
                tokens > budget,
                format!("the catalog's {tokens} tokens are {verdict} catalogBudget {budget}"),
            )
        };
        self.tiers.listing_paged = paged;
        if tiered != self.tiers.auto_tiered || !self.tiers.auto_decided {
            let mode = if tiered { "tiered" } else { "full" };
            fx.logs.push(Log::new(
                Level::Info,
                format!("catalog auto: {mode}, as {why}"),
            ));
        }
        self.tiers.auto_tiered = tiered;
        self.tiers.auto_decided = true;
    }

    /// A tools/list page under `catalog: full`, read without building its tree: each tool's
    /// name and schemas learned from its fields alone, the injected tool written into the
    /// last page's text before the list's closing bracket. Everything else is the server's
    /// bytes (a 10,000-tool list through the gateway is 5 MB).
    fn full_list(&mut self, result: &str, pending: &Pending, fx: &mut Effects) -> Option<Vec<u8>> {
        #[derive(serde::Deserialize)]
        struct Page<'a> {
            #[serde(borrow)]
            tools: &'a RawValue,
            #[serde(borrow, default, rename = "nextCursor")]
            next_cursor: Option<&'a RawValue>,
        }
        let page: Page<'_> = serde_json::from_str(result).ok()?;
        let tools: Vec<&RawValue> = serde_json::from_str(page.tools.get()).ok()?;
        self.learn_tools(&tools);
        self.rename_own_tools(fx);
        let last = page.next_cursor.is_none_or(|c| c.get() == "null");
        if !last || self.shadow {
            return None;
        }
        // Where the list's `]` is in the result's text.
        let list = page.tools.get();
        let end = list.as_ptr() as usize - result.as_ptr() as usize + list.len() - 1;
        let empty = tools.is_empty();
        let definition = more::definition(&self.more_tool).to_string();
        let mut line = Vec::with_capacity(result.len() + definition.len() + 64);
        line.extend_from_slice(
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":",
                pending.raw_id
            )
            .as_bytes(),
        );
        line.extend_from_slice(&result.as_bytes()[..end]);
        if !empty {
            line.push(b',');
        }
        line.extend_from_slice(definition.as_bytes());
        line.extend_from_slice(&result.as_bytes()[end..]);
        line.extend_from_slice(b"}\n");
        Some(line)
    }

    /// A tools/list page under the tiered catalog, read without building its tree either:
    /// every tool kept as its text for search and describe, only the hot and the described
    /// ones left on the page, the catalog's own tools added to the last page. The page's other
    /// members pass as the server wrote them.
    fn tiered_list(
        &mut self,
        result: &str,
        pending: &Pending,
        fx: &mut Effects,
    ) -> Option<Vec<u8>> {
        let Members(members) = serde_json::from_str(result).ok()?;
        // The last `tools` member, as a tree's reader would take it.
        let list = members.iter().rev().find(|(key, _)| key == "tools")?.1;
        let tools: Vec<&RawValue> = serde_json::from_str(list.get()).ok()?;
        let names = self.learn_tools(&tools);
        self.rename_own_tools(fx);
        if !tools.is_empty() {
            // The search index is built again from `seen` at the next search.
            self.tiers.ranker = None;
        }
        for (tool, name) in tools.iter().zip(&names) {
            if let Some(name) = name {
                self.tiers.seen.insert(name, (*tool).to_owned());
            }
        }
        let hot = self.hot_tools();
        let kept: Vec<&RawValue> = tools
            .iter()
            .zip(&names)
            .filter(|(_, name)| {
                name.as_deref()
                    .is_none_or(|n| hot.contains(n) || self.tiers.promoted.contains(n))
            })
            .map(|(tool, _)| *tool)
            .collect();
        if kept.len() < tools.len() {
            fx.logs.push(Log::new(
                Level::Info,
                format!(
                    "tools/list (tiered): {} of {} tools on this page listed; the rest through {} and {}",
                    kept.len(),
                    tools.len(),
                    self.tiers.find_tool,
                    self.tiers.describe_tool
                ),
            ));
        }
        let last = members
            .iter()
            .rev()
            .find(|(key, _)| key == "nextCursor")
            .is_none_or(|(_, cursor)| cursor.get() == "null");
        if (kept.len() == tools.len() && !last) || self.shadow {
            return None;
        }
        let mut line =
            Vec::with_capacity(kept.iter().map(|t| t.get().len() + 1).sum::<usize>() + 4096);
        line.extend_from_slice(
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{",
                pending.raw_id
            )
            .as_bytes(),
        );
        // The tiers follow this client's own calls: no cache may share the list. The server's
        // ttlMs stays (the proxy's changes do not make the list change sooner).
        let private = pending.modern;
        let mut scoped = false;
        for (key, value) in &members {
            let text = match key.as_str() {
                "tools" if std::ptr::eq(*value, list) => self.listed_text(&kept, last),
                "tools" => continue,
                "cacheScope" if private => {
                    scoped = true;
                    "\"private\"".to_owned()
                }
                _ => value.get().to_owned(),
            };
            if line.last() != Some(&b'{') {
                line.push(b',');
            }
            line.extend_from_slice(Value::from(key.as_str()).to_string().as_bytes());
            line.push(b':');
            line.extend_from_slice(text.as_bytes());
        }
        if private && !scoped {
            line.extend_from_slice(b",\"cacheScope\":\"private\"");
        }
        line.extend_from_slice(b"}}\n");
        Some(line)
    }

    /// A tiered page's list: the tools kept, and on the last page the catalog's own four.
    fn listed_text(&self, kept: &[&RawValue], last: bool) -> String {
        let mut texts: Vec<String> = kept.iter().map(|t| t.get().to_owned()).collect();
        if last {
            let tiers = &self.tiers;
            texts.extend(
                [
                    more::definition(&self.more_tool),
                    crate::proxy::tiers::find_definition(&tiers.find_tool, &tiers.describe_tool),
                    crate::proxy::tiers::describe_definition(&tiers.describe_tool),
                    crate::proxy::tiers::call_definition(&tiers.call_tool),
                ]
                .iter()
                .map(Value::to_string),
            );
        }
        format!("[{}]", texts.join(","))
    }

    /// Seed 004's T0: the hot tools within maxCatalogTokens (2,000), by the exact count,
    /// ranked among every tool seen so far and every tool with calls on record, so a page is
    /// decided as the whole catalog would be: a used tool on a later page takes its place in
    /// the hot list before the first page is answered.
    fn hot_tools(&self) -> HashSet<String> {
        let seen = &self.tiers.seen;
        let mut names: Vec<&str> = seen.names().collect();
        for used in self.tiers.usage.names() {
            if !seen.contains(used) {
                names.push(used);
            }
        }
        let exact = match self.config.tokenizer {
            crate::tokens::Tokenizer::Auto => crate::tokens::Tokenizer::Claude,
            t => t,
        }
        .counter();
        let cost = |name: &str| {
            seen.index_of(name)
                .map_or(0, |i| exact.count(seen.text(i)) as u64)
        };
        self.tiers
            .usage
            .hot_within(
                &names,
                &self.config.hot,
                self.config.catalog_hot_tools as usize,
                self.config.limits.max_catalog_tokens,
                cost,
            )
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// Learns each tool of a page from its fields alone (no tree of the page): its name and
    /// schemas. Returns the names, `None` for a tool without one.
    fn learn_tools<'a>(&mut self, tools: &[&'a RawValue]) -> Vec<Option<Cow<'a, str>>> {
        #[derive(serde::Deserialize)]
        struct Tool<'a> {
            #[serde(borrow, default)]
            name: Option<Cow<'a, str>>,
            #[serde(borrow, default, rename = "outputSchema")]
            output_schema: Option<&'a RawValue>,
            #[serde(borrow, default, rename = "inputSchema")]
            input_schema: Option<&'a RawValue>,
        }
        tools
            .iter()
            .map(|raw| {
                let tool: Tool<'a> = serde_json::from_str(raw.get()).ok()?;
                let name = tool.name?;
                let output = tool
                    .output_schema
                    .and_then(|s| serde_json::from_str(s.get()).ok());
                self.learn_tool(&name, output, tool.input_schema.map(RawValue::get));
                Some(name)
            })
            .collect()
    }

    /// Remembers a tool the server listed: its name, its outputSchema, and its inputSchema
    /// when that mirrors arguments into `Mcp-Param-*` headers.
    fn learn_tool(&mut self, name: &str, output_schema: Option<Value>, input_schema: Option<&str>) {
        self.server_tools.insert(name.to_owned());
        match output_schema {
            Some(schema) => self.schemas.insert(name.to_owned(), schema),
            None => self.schemas.remove(name),
        };
        let headers = input_schema
            .filter(|s| s.contains("\"x-mcp-header\""))
            .and_then(|s| serde_json::from_str::<Value>(s).ok());
        match headers {
            Some(schema) => self.header_schemas.insert(name.to_owned(), schema),
            None => self.header_schemas.remove(name),
        };
    }

    /// The proxy's own tools renamed when the server has a tool of the same name.
    fn rename_own_tools(&mut self, fx: &mut Effects) {
        for slot in [
            &mut self.more_tool,
            &mut self.tiers.find_tool,
            &mut self.tiers.describe_tool,
            &mut self.tiers.call_tool,
        ] {
            if self.server_tools.contains(slot.as_str()) {
                let taken = slot.clone();
                let mut n = 2;
                while self.server_tools.contains(&format!("{taken}_{n}")) {
                    n += 1;
                }
                *slot = format!("{taken}_{n}");
                fx.logs.push(Log::new(
                    Level::Warn,
                    format!(
                        "the server has a tool named {taken}; the proxy's tool is {slot} instead"
                    ),
                ));
            }
        }
    }

    /// A call of the tiered catalog's find or describe tool, answered here.
    pub(super) fn tier_tool(
        &mut self,
        name: &str,
        arguments: Option<&Value>,
        fx: &mut Effects,
    ) -> Value {
        let arg = |key: &str| arguments.and_then(|a| a.get(key));
        if name == self.tiers.find_tool {
            let text = |key: &str| arg(key).and_then(Value::as_str).map(str::trim);
            let request = crate::proxy::tiers::Request {
                query: text("query").unwrap_or(""),
                category: text("category").filter(|c| !c.is_empty()),
                server: text("server").filter(|s| !s.is_empty()),
                max_latency_ms: arg("maxLatencyMs").and_then(Value::as_f64),
                min_success_rate: arg("minSuccessRate").and_then(Value::as_f64),
                limit: arg("limit")
                    .and_then(Value::as_u64)
                    .map_or(SEARCH_LIMIT, |n| n.clamp(1, 50) as usize),
                cursor: text("cursor").filter(|c| !c.is_empty()),
            };
            return self.find(&request);
        }
        let names: Vec<String> = match arg("names") {
            Some(Value::Array(names)) => names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => arg("name")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .into_iter()
                .collect(),
        };
        self.describe(&names, fx)
    }

    /// Seed 004's T2 (a query, a category or figures) or T1 (none of them: the categories).
    fn find(&mut self, request: &crate::proxy::tiers::Request<'_>) -> Value {
        // A server's category by the part of the gateway's names its key becomes.
        let categories: HashMap<String, String> = self
            .config
            .servers
            .iter()
            .filter_map(|(key, server)| {
                Some((
                    crate::proxy::names::server_part(key),
                    server.category.clone()?,
                ))
            })
            .collect();
        let tiers = &mut self.tiers;
        let ranker = tiers
            .ranker
            .get_or_insert_with(|| crate::proxy::tiers::lookup::ranker(&tiers.seen, &categories));
        let lookup = crate::proxy::tiers::Lookup {
            tools: &tiers.seen,
            ranker,
            usage: &tiers.usage,
            categories: &categories,
            find_tool: &tiers.find_tool,
            describe_tool: &tiers.describe_tool,
        };
        match lookup.answer(request) {
            Ok(text) => crate::proxy::result::text(text),
            Err(why) => crate::proxy::result::error(why),
        }
    }

    /// Seed 004's T3: the definitions of `names`, listed from now on (the client is told the
    /// list changed).
    fn describe(&mut self, names: &[String], fx: &mut Effects) -> Value {
        let tiers = &mut self.tiers;
        if names.is_empty() || names.len() > crate::proxy::tiers::MAX_DESCRIBED {
            return crate::proxy::result::error(format!(
                "{}: give `names`, 1 to {} tool names",
                tiers.describe_tool,
                crate::proxy::tiers::MAX_DESCRIBED
            ));
        }
        let (known, unknown): (Vec<&String>, Vec<&String>) =
            names.iter().partition(|n| tiers.seen.contains(n));
        if known.is_empty() {
            return crate::proxy::result::error(format!(
                "{}: no tool named {unknown:?}; call `{}` to find one",
                tiers.describe_tool, tiers.find_tool
            ));
        }
        let mut promoted = false;
        let definitions: Vec<Value> = known
            .iter()
            .map(|name| {
                promoted |= tiers.promoted.insert((*name).clone());
                tiers
                    .seen
                    .index_of(name)
                    .map_or(Value::Null, |i| tiers.seen.tree(i))
            })
            .collect();
        if promoted {
            fx.sends.push(Route::Client(
                b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n".to_vec(),
            ));
        }
        let mut note = String::new();
        if !unknown.is_empty() {
            note.push_str(&format!(
                "No tool named {unknown:?}; call `{}` to find one. ",
                tiers.find_tool
            ));
        }
        note.push_str(&format!(
            "Listed from now on; a client that does not list again can call them through `{}`.",
            tiers.call_tool
        ));
        let definitions = serde_json::to_string_pretty(&definitions).unwrap_or_default();
        let mut result = crate::proxy::result::text(definitions);
        crate::proxy::result::push_text(&mut result, note);
        result
    }

    /// `mcpguard_call_tool {name, arguments}` as the request it stands for: the same id, the
    /// named tool and its arguments (and the call's `_meta`), which then goes on as any call
    /// does. `Err`: the result refusing it.
    pub(super) fn unwrap_call(
        &self,
        raw_id: &str,
        call: &super::wire::CallParams<'_>,
    ) -> Result<Vec<u8>, Value> {
        let arguments: Value = call
            .arguments
            .and_then(|a| serde_json::from_str(a.get()).ok())
            .unwrap_or(Value::Null);
        let name = arguments.get("name").and_then(Value::as_str).unwrap_or("");
        if name.is_empty() || name == self.tiers.call_tool {
            return Err(crate::proxy::result::error(format!(
                "{}: give `name`, the tool to call, and its `arguments`",
                self.tiers.call_tool
            )));
        }
        let mut params = json!({"name": name});
        if let Some(inner) = arguments.get("arguments") {
            params["arguments"] = inner.clone();
        }
        if let Some(meta) = &call.meta {
            params["_meta"] = meta.clone();
        }
        let request = json!({"jsonrpc": "2.0", "method": "tools/call", "params": params});
        let mut line = request.to_string();
        // The id as the client wrote it, byte for byte.
        line.insert_str(1, &format!("\"id\":{raw_id},"));
        line.push('\n');
        Ok(line.into_bytes())
    }
}
