//! Seed 004's T1 and T2 as `mcpguard_find_tools` answers them. Without a query, a category or
//! a figure to filter by: T1, the categories (a server's is the config's `servers: {NAME:
//! {category}}`, else its name) with their tool counts, servers and most used tools. With one:
//! T2, one line per tool (name, the first sentence of its description, its parameters reduced
//! as seed 004's `simplify_params` does, its mean latency and success rate when calls are on
//! record), ranked by relevance to the query (or by tier score without one), a page at a time
//! within a token budget, with a cursor for the next. When nothing fits, the answer says how
//! to search instead rather than pad the list.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::super::ranker::{self, Ranker, Tool};
use super::{Definitions, Usage, server_of};

/// The most bytes of lines one page holds (about 3,000 tokens: T2's budget of 6,000-8,000
/// less what T0 and T1 took).
const PAGE_BYTES: usize = 12_000;
/// The most characters of a description's first sentence shown.
const SENTENCE_CHARS: usize = 160;
/// Popular tools named per category in T1.
const POPULAR: usize = 3;

/// The catalog a search looks in: every tool seen (in the catalog's order), its index, the
/// call records, and each server's category by its name part.
pub struct Lookup<'a> {
    pub tools: &'a Definitions,
    pub ranker: &'a Ranker,
    pub usage: &'a Usage,
    pub categories: &'a HashMap<String, String>,
    /// The names of the find and describe tools, as this catalog gives them.
    pub find_tool: &'a str,
    pub describe_tool: &'a str,
}

/// What a find call asks.
#[derive(Clone, Debug, Default)]
pub struct Request<'a> {
    pub query: &'a str,
    pub category: Option<&'a str>,
    pub server: Option<&'a str>,
    pub max_latency_ms: Option<f64>,
    pub min_success_rate: Option<f64>,
    pub limit: usize,
    pub cursor: Option<&'a str>,
}

impl Request<'_> {
    fn filters_by_figures(&self) -> bool {
        self.max_latency_ms.is_some() || self.min_success_rate.is_some()
    }

    /// What ties a cursor to its search: the same words and filters, or it is refused.
    fn fingerprint(&self) -> String {
        let said = format!(
            "{}\u{0}{:?}\u{0}{:?}\u{0}{:?}\u{0}{:?}",
            self.query, self.category, self.server, self.max_latency_ms, self.min_success_rate
        );
        Sha256::digest(said.as_bytes())[..4]
            .iter()
            .fold(String::new(), |mut hex, b| {
                let _ = write!(hex, "{b:02x}");
                hex
            })
    }
}

/// The index over a catalog of tool definitions, each read with its server and category (one
/// tree at a time).
pub fn ranker(catalog: &Definitions, categories: &HashMap<String, String>) -> Ranker {
    let mut builder = ranker::Builder::default();
    for index in 0..catalog.len() {
        let tool = catalog.tree(index);
        let server = server_of(catalog.name(index)).unwrap_or("");
        let category = categories.get(server).map_or("", String::as_str);
        builder.add(&Tool::from_definition(server, category, &tool));
    }
    builder.finish()
}

/// Seed 004's `simplify_params`: each top-level parameter with its type, the optional ones
/// marked `?` (`path: string, depth?: integer`).
pub fn simplify_params(schema: &Value) -> String {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return String::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = String::new();
    for (name, spec) in properties {
        if !out.is_empty() {
            out.push_str(", ");
        }
        let kind = match spec.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(types)) => types
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("|"),
            _ if spec.get("enum").is_some() => "enum".to_owned(),
            _ => "any".to_owned(),
        };
        let optional = if required.contains(&name.as_str()) {
            ""
        } else {
            "?"
        };
        let _ = write!(out, "{name}{optional}: {kind}");
    }
    out
}

impl Lookup<'_> {
    fn name(&self, index: usize) -> &str {
        self.tools.name(index)
    }

    /// A tool's category: its server's from the config, else the server's name part (`""`
    /// behind one server).
    fn category(&self, index: usize) -> &str {
        let server = server_of(self.name(index)).unwrap_or("");
        self.categories.get(server).map_or(server, String::as_str)
    }

    /// The answer to a find call: its text, or why the call cannot be answered.
    pub fn answer(&self, request: &Request<'_>) -> Result<String, String> {
        if request.query.is_empty() && request.category.is_none() && !request.filters_by_figures() {
            return Ok(self.overview(request.server));
        }
        let offset = match request.cursor {
            None => 0,
            Some(cursor) => cursor
                .split_once('.')
                .filter(|(_, print)| *print == request.fingerprint())
                .and_then(|(offset, _)| offset.parse::<usize>().ok())
                .ok_or_else(|| {
                    format!(
                        "{}: the cursor {cursor:?} is not one of this search's; give it with the same query and filters it came with",
                        self.find_tool
                    )
                })?,
        };
        let (found, unrecorded) = self.found(request);
        if found.is_empty() {
            return Ok(self.nothing(request, unrecorded));
        }
        let mut lines = Vec::new();
        let mut bytes = 0;
        for &index in found.iter().skip(offset).take(request.limit.max(1)) {
            let line = self.summary_line(index);
            if !lines.is_empty() && bytes + line.len() > PAGE_BYTES {
                break;
            }
            bytes += line.len() + 1;
            lines.push(line);
        }
        let mut text = lines.join("\n");
        let next = offset + lines.len();
        if next < found.len() {
            let _ = write!(
                text,
                "\n\n{} more: call `{}` again with the same arguments and \"cursor\": \"{next}.{}\".",
                found.len() - next,
                self.find_tool,
                request.fingerprint()
            );
        }
        if unrecorded > 0 {
            let _ = write!(
                text,
                "\n{unrecorded} tools without calls on record were left out by maxLatencyMs / minSuccessRate."
            );
        }
        let _ = write!(
            text,
            "\n\nCall `{}` with {{\"names\": [...]}} for the ones to use.",
            self.describe_tool
        );
        Ok(text)
    }

    /// The tools a search finds, best first, and how many the figures filters left out for
    /// want of records.
    fn found(&self, request: &Request<'_>) -> (Vec<usize>, usize) {
        let wanted_category = request.category.map(str::to_lowercase);
        let within = |index: usize| {
            let server = server_of(self.name(index)).unwrap_or("");
            request.server.is_none_or(|s| s == server)
                && wanted_category.as_ref().is_none_or(|c| {
                    self.category(index).to_lowercase() == *c || server.to_lowercase() == *c
                })
        };
        let ordered: Vec<usize> = if request.query.is_empty() {
            self.by_score((0..self.tools.len()).filter(|&i| within(i)).collect())
        } else {
            self.ranker
                .rank(request.query, self.tools.len())
                .into_iter()
                .map(|hit| hit.tool)
                .filter(|&i| i < self.tools.len() && within(i))
                .collect()
        };
        if !request.filters_by_figures() {
            return (ordered, 0);
        }
        let mut unrecorded = 0;
        let kept = ordered
            .into_iter()
            .filter(|&index| match self.usage.stats(self.name(index)) {
                None => {
                    unrecorded += 1;
                    false
                }
                Some(stats) => {
                    request
                        .max_latency_ms
                        .is_none_or(|max| stats.mean_latency_ms() <= max)
                        && request
                            .min_success_rate
                            .is_none_or(|min| stats.success_rate() >= min)
                }
            })
            .collect();
        (kept, unrecorded)
    }

    /// Tools by tier score, best first, ties in the catalog's order.
    fn by_score(&self, mut indices: Vec<usize>) -> Vec<usize> {
        indices.sort_by(|&a, &b| {
            self.usage
                .score(self.name(b))
                .total_cmp(&self.usage.score(self.name(a)))
                .then(a.cmp(&b))
        });
        indices
    }

    /// `name: first sentence (params) · figures`.
    fn summary_line(&self, index: usize) -> String {
        let tool = self.tools.tree(index);
        let name = self.name(index);
        let description = tool
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("");
        let first = description
            .split_inclusive(". ")
            .next()
            .unwrap_or("")
            .trim();
        let mut line = format!("{name}: ");
        line.extend(first.chars().take(SENTENCE_CHARS));
        let params = tool
            .get("inputSchema")
            .map(simplify_params)
            .unwrap_or_default();
        if !params.is_empty() {
            let _ = write!(line, " ({params})");
        }
        if let Some(stats) = self.usage.stats(name) {
            let _ = write!(
                line,
                " · avg {:.0} ms, {:.0}% ok",
                stats.mean_latency_ms(),
                stats.success_rate() * 100.0
            );
        }
        line
    }

    /// Seed 004's T1: each category with its tool count, its servers when they are not just
    /// the one of its name, and its most used tools (the first ones before any record).
    fn overview(&self, server: Option<&str>) -> String {
        struct Shelf<'n> {
            name: &'n str,
            servers: Vec<&'n str>,
            tools: Vec<usize>,
        }
        let mut shelves: Vec<Shelf<'_>> = Vec::new();
        let mut servers: Vec<&str> = Vec::new();
        for index in 0..self.tools.len() {
            let part = server_of(self.name(index)).unwrap_or("");
            if server.is_some_and(|s| s != part) {
                continue;
            }
            if !servers.contains(&part) {
                servers.push(part);
            }
            let category = self.category(index);
            let shelf = match shelves.iter().position(|s| s.name == category) {
                Some(at) => &mut shelves[at],
                None => {
                    shelves.push(Shelf {
                        name: category,
                        servers: Vec::new(),
                        tools: Vec::new(),
                    });
                    shelves.last_mut().expect("pushed")
                }
            };
            if !shelf.servers.contains(&part) {
                shelf.servers.push(part);
            }
            shelf.tools.push(index);
        }
        let count: usize = shelves.iter().map(|s| s.tools.len()).sum();
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let mut text = plural(count, "tool");
        let _ = write!(text, " of {}", plural(servers.len(), "server"));
        let by_server = shelves
            .iter()
            .all(|s| s.servers.len() == 1 && s.servers[0] == s.name);
        if !by_server {
            let n = shelves.len();
            let _ = write!(text, " in {n} categor{}", if n == 1 { "y" } else { "ies" });
        }
        text.push(':');
        for shelf in &shelves {
            let popular: Vec<&str> = self
                .by_score(shelf.tools.clone())
                .into_iter()
                .take(POPULAR)
                .map(|i| self.name(i))
                .collect();
            let more = if shelf.tools.len() > POPULAR {
                ", ..."
            } else {
                ""
            };
            let who = if shelf.name.is_empty() {
                "this server"
            } else {
                shelf.name
            };
            let _ = write!(
                text,
                "\n{who}: {} ({}{more})",
                plural(shelf.tools.len(), "tool"),
                popular.join(", ")
            );
            if !(shelf.servers.len() == 1 && shelf.servers[0] == shelf.name) {
                let _ = write!(text, " from {}", shelf.servers.join(", "));
            }
        }
        let category = if by_server {
            ""
        } else {
            "; `category` to list one category's tools"
        };
        let server = if servers.len() > 1 {
            "; `server` to look in one server only"
        } else {
            ""
        };
        let _ = write!(
            text,
            "\n\nGive `query` (what the tool should do) to find tools{category}{server}."
        );
        text
    }

    /// The answer when nothing fits: what was looked in, and how to search instead.
    fn nothing(&self, request: &Request<'_>, unrecorded: usize) -> String {
        let mut within = String::new();
        if let Some(c) = request.category {
            let _ = write!(within, " in category {c:?}");
        }
        if let Some(s) = request.server {
            let _ = write!(within, " of server {s:?}");
        }
        let asked = if request.query.is_empty() {
            String::from("the figures asked for")
        } else {
            format!("{:?}", request.query)
        };
        let mut text = format!(
            "No tool{within} matches {asked} among the {} listed. Try other words (what the tool acts on, what it does), or call `{}` without `query` to see the categories.",
            self.tools.len(),
            self.find_tool
        );
        if unrecorded > 0 {
            let _ = write!(
                text,
                " {unrecorded} tools have no calls on record yet, so maxLatencyMs / minSuccessRate cannot keep them."
            );
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::Call;
    use super::*;

    fn catalog() -> Vec<Value> {
        vec![
            json!({"name": "git__git_log", "description": "Shows the commit logs. Paged.",
                   "inputSchema": {"type": "object", "required": ["repo_path"],
                                   "properties": {"repo_path": {"type": "string"}, "max_count": {"type": "integer"}}}}),
            json!({"name": "fs__read_file", "description": "Reads a file; also a log file.",
                   "inputSchema": {"type": "object", "properties": {"path": {"type": ["string", "null"]}}}}),
            json!({"name": "git__git_diff", "description": "Shows changes between commits."}),
            json!({"name": "github__create_issue", "description": "Opens an issue."}),
        ]
    }

    fn answer(
        tools: &[Value],
        usage: &Usage,
        categories: &[(&str, &str)],
        request: Request<'_>,
    ) -> Result<String, String> {
        let categories: HashMap<String, String> = categories
            .iter()
            .map(|(s, c)| ((*s).to_owned(), (*c).to_owned()))
            .collect();
        let tools = Definitions::of(tools);
        let ranker = ranker(&tools, &categories);
        Lookup {
            tools: &tools,
            ranker: &ranker,
            usage,
            categories: &categories,
            find_tool: "mcpguard_find_tools",
            describe_tool: "mcpguard_describe_tools",
        }
        .answer(&request)
    }

    fn ask(query: &str, limit: usize) -> Request<'_> {
        Request {
            query,
            limit,
            ..Request::default()
        }
    }

    #[test]
    fn params_are_reduced_as_seed_004_does() {
        let schema = json!({"type": "object", "required": ["a"], "properties": {
            "a": {"type": "string"}, "b": {"type": ["integer", "null"]}, "c": {"enum": [1]}, "d": {}}});
        assert_eq!(
            simplify_params(&schema),
            "a: string, b?: integer|null, c?: enum, d?: any"
        );
        assert_eq!(simplify_params(&json!({"type": "object"})), "");
    }

    #[test]
    fn a_query_ranks_one_line_per_tool_with_params_and_figures() {
        let tools = catalog();
        let mut usage = Usage::default();
        for ok in [true, true, true, false] {
            usage.add(&Call {
                tool: "git__git_log",
                ok,
                latency_ms: 40.0,
                age_seconds: 0.0,
            });
        }
        let found = answer(&tools, &usage, &[], ask("log", 10)).unwrap();
        let lines: Vec<&str> = found.lines().collect();
        assert_eq!(
            lines[0],
            "git__git_log: Shows the commit logs. (repo_path: string, max_count?: integer) · avg 40 ms, 75% ok"
        );
        assert_eq!(
            lines[1],
            "fs__read_file: Reads a file; also a log file. (path?: string|null)"
        );
        assert_eq!(
            lines[3],
            "Call `mcpguard_describe_tools` with {\"names\": [...]} for the ones to use."
        );
        let nothing = answer(&tools, &usage, &[], ask("zebra", 10)).unwrap();
        assert!(
            nothing.starts_with("No tool matches \"zebra\" among the 4 listed."),
            "{nothing}"
        );
        // Figures keep only tools with records that meet them, and say what was left out.
        let fast = answer(
            &tools,
            &usage,
            &[],
            Request {
                max_latency_ms: Some(50.0),
                ..ask("log", 10)
            },
        )
        .unwrap();
        assert!(fast.starts_with("git__git_log: "), "{fast}");
        assert!(
            fast.contains("\n1 tools without calls on record were left out"),
            "{fast}"
        );
        let reliable = answer(
            &tools,
            &usage,
            &[],
            Request {
                min_success_rate: Some(0.9),
                ..ask("log", 10)
            },
        )
        .unwrap();
        assert!(
            reliable.starts_with("No tool matches \"log\""),
            "{reliable}"
        );
    }

    #[test]
    fn pages_follow_their_cursor_and_a_strange_cursor_is_refused() {
        let tools = catalog();
        let usage = Usage::default();
        let first = answer(&tools, &usage, &[], ask("shows commits log file", 1)).unwrap();
        assert!(
            first.contains("\n\n3 more: call `mcpguard_find_tools` again"),
            "{first}"
        );
        let head = |page: &str| {
            page.lines()
                .next()
                .unwrap()
                .split(':')
                .next()
                .unwrap()
                .to_owned()
        };
        let cursor = first
            .split("\"cursor\": \"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("no cursor: {first}"));
        let second = answer(
            &tools,
            &usage,
            &[],
            Request {
                cursor: Some(cursor),
                ..ask("shows commits log file", 1)
            },
        )
        .unwrap();
        assert_ne!(head(&second), head(&first), "{second}");
        assert!(second.contains("\n\n2 more: "), "{second}");
        let e = answer(
            &tools,
            &usage,
            &[],
            Request {
                cursor: Some(cursor),
                ..ask("other words", 1)
            },
        )
        .unwrap_err();
        assert!(e.contains("is not one of this search's"), "{e}");
        assert!(
            answer(
                &tools,
                &usage,
                &[],
                Request {
                    cursor: Some("x"),
                    ..ask("log", 1)
                }
            )
            .is_err()
        );
    }

    #[test]
    fn the_overview_groups_by_category_and_a_category_lists_its_tools() {
        let tools = catalog();
        let usage = Usage::default();
        assert_eq!(
            answer(&tools, &usage, &[], Request::default()).unwrap(),
            "4 tools of 3 servers:\ngit: 2 tools (git__git_log, git__git_diff)\nfs: 1 tool (fs__read_file)\ngithub: 1 tool (github__create_issue)\n\nGive `query` (what the tool should do) to find tools; `server` to look in one server only."
        );
        let code = [("git", "code"), ("github", "code")];
        let overview = answer(&tools, &usage, &code, Request::default()).unwrap();
        assert!(
            overview.starts_with("4 tools of 3 servers in 2 categories:\ncode: 3 tools (git__git_log, git__git_diff, github__create_issue) from git, github\nfs: 1 tool (fs__read_file)\n"),
            "{overview}"
        );
        let listed = answer(
            &tools,
            &usage,
            &code,
            Request {
                category: Some("Code"),
                limit: 5,
                ..Request::default()
            },
        )
        .unwrap();
        assert_eq!(
            listed.lines().take_while(|l| !l.is_empty()).count(),
            3,
            "{listed}"
        );
        let one = answer(
            &tools,
            &usage,
            &code,
            Request {
                server: Some("git"),
                ..Request::default()
            },
        )
        .unwrap();
        assert!(
            one.starts_with("2 tools of 1 server in 1 category:\ncode: 2 tools"),
            "{one}"
        );
    }
}
