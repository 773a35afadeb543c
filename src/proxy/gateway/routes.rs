//! The gateway's routing table, built without I/O from every server's catalog: the lists a
//! client sees (tools and prompts renamed `SERVER__NAME`, resources as their servers wrote
//! them) and, for each exposed name or URI, which server has it under which original.
//!
//! Resource URIs are not renamed: a client may have them from elsewhere (a resource link in a
//! tool's result). When two servers list the same URI, the first keeps it and the others' copy
//! is listed as `mcpguard://SERVER/URI`, so both stay reachable. A URI nobody listed (one made
//! from a template) goes to the server whose template's fixed head it starts with, the longest
//! head winning.

use std::collections::HashMap;

use serde_json::Value;

use super::names;

/// What one server offers, as its own lists gave it (every page read).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Catalog {
    #[serde(default)]
    pub tools: Vec<Value>,
    #[serde(default)]
    pub prompts: Vec<Value>,
    #[serde(default)]
    pub resources: Vec<Value>,
    #[serde(default, rename = "resourceTemplates")]
    pub templates: Vec<Value>,
}

/// A server as the table sees it: its config key, its part of every exposed name, and its
/// catalog when one is known.
pub struct Entry<'a> {
    pub key: &'a str,
    pub part: &'a str,
    pub catalog: Option<&'a Catalog>,
}

/// Where an exposed name leads: the server (its index in the config's order) and the name
/// the server knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub server: usize,
    pub original: String,
}

/// The lists a client gets and the way back from each entry.
#[derive(Default)]
pub struct Table {
    pub tools: Vec<Value>,
    pub prompts: Vec<Value>,
    pub resources: Vec<Value>,
    pub templates: Vec<Value>,
    tool_routes: HashMap<String, Route>,
    prompt_routes: HashMap<String, Route>,
    uri_routes: HashMap<String, Route>,
    /// (server, original URI) to the URI the client knows, for `resources/updated`.
    uri_exposed: HashMap<(usize, String), String>,
    /// Each template's fixed head (its text before the first `{`), longest first.
    template_heads: Vec<(String, usize)>,
    /// Servers by their name part, for `mcpguard://SERVER/...` URIs.
    parts: HashMap<String, usize>,
}

/// The scheme of a URI the gateway made for a second server's copy of a resource.
pub const GATEWAY_SCHEME: &str = "mcpguard://";

impl Table {
    /// The table for these servers, in this order; `max` is the longest exposed name.
    pub fn build(servers: &[Entry<'_>], max: usize) -> Table {
        let mut table = Table::default();
        for (server, entry) in servers.iter().enumerate() {
            table.parts.insert(entry.part.to_owned(), server);
            let Some(catalog) = entry.catalog else {
                continue;
            };
            for (list, routes, source) in [
                (&mut table.tools, &mut table.tool_routes, &catalog.tools),
                (
                    &mut table.prompts,
                    &mut table.prompt_routes,
                    &catalog.prompts,
                ),
            ] {
                for item in source {
                    let Some(original) = item.get("name").and_then(Value::as_str) else {
                        continue;
                    };
                    let mut name = names::exposed(entry.part, entry.key, original, max);
                    // Only a hash collision could get here; the next name is as stable.
                    while routes.contains_key(&name) {
                        name = names::exposed(entry.part, entry.key, &format!("{name}'"), max);
                    }
                    let mut exposed = item.clone();
                    exposed["name"] = Value::from(name.as_str());
                    list.push(exposed);
                    routes.insert(
                        name,
                        Route {
                            server,
                            original: original.to_owned(),
                        },
                    );
                }
            }
            for item in &catalog.resources {
                let Some(uri) = item.get("uri").and_then(Value::as_str) else {
                    continue;
                };
                let exposed_uri = if table.uri_routes.contains_key(uri) {
                    format!("{GATEWAY_SCHEME}{}/{uri}", entry.part)
                } else {
                    uri.to_owned()
                };
                let mut exposed = item.clone();
                exposed["uri"] = Value::from(exposed_uri.as_str());
                table.resources.push(exposed);
                table
                    .uri_exposed
                    .insert((server, uri.to_owned()), exposed_uri.clone());
                table.uri_routes.insert(
                    exposed_uri,
                    Route {
                        server,
                        original: uri.to_owned(),
                    },
                );
            }
            for item in &catalog.templates {
                if let Some(template) = item.get("uriTemplate").and_then(Value::as_str) {
                    let head = template.split('{').next().unwrap_or("");
                    table.template_heads.push((head.to_owned(), server));
                }
                table.templates.push(item.clone());
            }
        }
        table
            .template_heads
            .sort_by_key(|(head, _)| std::cmp::Reverse(head.len()));
        table
    }

    pub fn tool(&self, name: &str) -> Option<&Route> {
        self.tool_routes.get(name)
    }

    pub fn prompt(&self, name: &str) -> Option<&Route> {
        self.prompt_routes.get(name)
    }

    /// The server of a URI a client asks for: one listed, a gateway URI, or one a template
    /// made.
    pub fn uri(&self, uri: &str) -> Option<Route> {
        if let Some(route) = self.uri_routes.get(uri) {
            return Some(route.clone());
        }
        if let Some(rest) = uri.strip_prefix(GATEWAY_SCHEME)
            && let Some((part, original)) = rest.split_once('/')
            && let Some(&server) = self.parts.get(part)
        {
            return Some(Route {
                server,
                original: original.to_owned(),
            });
        }
        self.template_heads
            .iter()
            .find(|(head, _)| !head.is_empty() && uri.starts_with(head.as_str()))
            .map(|&(_, server)| Route {
                server,
                original: uri.to_owned(),
            })
    }

    /// The URI a client knows for a server's resource.
    pub fn exposed_uri(&self, server: usize, original: &str) -> String {
        self.uri_exposed
            .get(&(server, original.to_owned()))
            .cloned()
            .unwrap_or_else(|| original.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn catalog(tools: &[&str], uris: &[&str]) -> Catalog {
        Catalog {
            tools: tools
                .iter()
                .map(|t| json!({"name": t, "title": format!("The {t}"), "_meta": {"k": 1}}))
                .collect(),
            resources: uris.iter().map(|u| json!({"uri": u, "name": u})).collect(),
            templates: vec![json!({"uriTemplate": "repo://{owner}/{name}", "name": "repo"})],
            ..Catalog::default()
        }
    }

    #[test]
    fn two_servers_with_the_same_tool_and_uri_both_stay_reachable() {
        let (a, b) = (
            catalog(&["search", "get"], &["file:///x"]),
            catalog(&["search"], &["file:///x"]),
        );
        let table = Table::build(
            &[
                Entry {
                    key: "alpha",
                    part: "alpha",
                    catalog: Some(&a),
                },
                Entry {
                    key: "beta",
                    part: "beta",
                    catalog: Some(&b),
                },
                Entry {
                    key: "gamma",
                    part: "gamma",
                    catalog: None,
                },
            ],
            64,
        );
        let names: Vec<&str> = table
            .tools
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["alpha__search", "alpha__get", "beta__search"]);
        assert_eq!(table.tools[2]["title"], "The search");
        assert_eq!(table.tools[2]["_meta"], json!({"k": 1}));
        assert_eq!(
            table.tool("beta__search"),
            Some(&Route {
                server: 1,
                original: "search".into()
            })
        );
        assert_eq!(table.tool("search"), None);
        assert_eq!(table.uri("file:///x").unwrap().server, 0);
        assert_eq!(table.resources[1]["uri"], "mcpguard://beta/file:///x");
        let second = table.uri("mcpguard://beta/file:///x").unwrap();
        assert_eq!((second.server, second.original.as_str()), (1, "file:///x"));
        assert_eq!(
            table.exposed_uri(1, "file:///x"),
            "mcpguard://beta/file:///x"
        );
        // A URI from a template goes to the first server that has that template.
        assert_eq!(table.uri("repo://a/b").unwrap().server, 0);
        assert_eq!(table.uri("unknown://z"), None);
    }
}
