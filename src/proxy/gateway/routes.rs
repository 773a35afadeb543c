//! The gateway's routing table, built without I/O from every server's catalog: the lists a
//! client sees (tools and prompts renamed `SERVER__NAME`, resources as their servers wrote
//! them) and, for each exposed name or URI, which server has it under which original.
//!
//! Resource URIs are not renamed: a client may have them from elsewhere (a resource link in a
//! tool's result). When two servers list the same URI, the first keeps it and the others' copy
//! is listed as `mcpguard://SERVER/URI`, so both stay reachable. A URI nobody listed (one made
//! from a template) goes to the server whose template's fixed head it starts with, the longest
//! head winning.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::super::names;

/// One entry of a server's list (a tool, a prompt, a resource, a template) as the server wrote
/// it: kept as text, so a catalog of 10,000 tools costs its size and not a tree's.
pub type Item = Box<RawValue>;

/// What one server offers, as its own lists gave it (every page read).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Catalog {
    #[serde(default)]
    pub tools: Vec<Item>,
    #[serde(default)]
    pub prompts: Vec<Item>,
    #[serde(default)]
    pub resources: Vec<Item>,
    #[serde(default, rename = "resourceTemplates")]
    pub templates: Vec<Item>,
}

/// Whether two lists hold the same entries, written the same way, in the same order.
pub fn same(a: &[Item], b: &[Item]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.get() == y.get())
}

impl PartialEq for Catalog {
    fn eq(&self, other: &Catalog) -> bool {
        same(&self.tools, &other.tools)
            && same(&self.prompts, &other.prompts)
            && same(&self.resources, &other.resources)
            && same(&self.templates, &other.templates)
    }
}

/// The members of a JSON object in their order, their values left as text.
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Members<'de>, M::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    members.push((key, map.next_value::<&'de RawValue>()?));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// The string member `key` of an item, and the item's text with that member set to
/// `with(value)` (in its place; an item without it is `None`).
fn rewrite(
    item: &RawValue,
    key: &str,
    with: impl FnOnce(&str) -> String,
) -> Option<(String, String)> {
    let Members(members) = serde_json::from_str(item.get()).ok()?;
    let at = members.iter().position(|(k, _)| k == key)?;
    let original: String = serde_json::from_str(members[at].1.get()).ok()?;
    let replaced = serde_json::to_string(&with(&original)).ok()?;
    let mut text = String::with_capacity(item.get().len() + 16);
    text.push('{');
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&serde_json::to_string(k).ok()?);
        text.push(':');
        text.push_str(if i == at { &replaced } else { v.get() });
    }
    text.push('}');
    Some((original, text))
}

/// A string member of an item.
fn member(item: &RawValue, key: &str) -> Option<String> {
    let Members(members) = serde_json::from_str(item.get()).ok()?;
    let (_, v) = members.into_iter().find(|(k, _)| k == key)?;
    serde_json::from_str(v.get()).ok()
}

/// A server as the table sees it: its config key, its part of every exposed name, and its
/// catalog when one is known.
pub struct Entry<'a> {
    pub key: &'a str,
    pub part: &'a str,
    pub catalog: Option<&'a Catalog>,
    /// Tools kept back (`pins: hold`), by the server's name, with why.
    pub held: &'a BTreeMap<String, String>,
}

/// Where an exposed name leads: the server (its index in the config's order) and the name
/// the server knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub server: usize,
    pub original: String,
}

/// The lists a client gets (each entry as JSON text) and the way back from each entry.
#[derive(Default)]
pub struct Table {
    pub tools: Vec<String>,
    pub prompts: Vec<String>,
    pub resources: Vec<String>,
    pub templates: Vec<String>,
    tool_routes: HashMap<String, Route>,
    prompt_routes: HashMap<String, Route>,
    uri_routes: HashMap<String, Route>,
    /// Tools kept out of the list (`pins: hold`), by exposed name, with why.
    held_tools: HashMap<String, String>,
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
            for (kind, list, routes, source) in [
                (
                    "tool",
                    &mut table.tools,
                    &mut table.tool_routes,
                    &catalog.tools,
                ),
                (
                    "prompt",
                    &mut table.prompts,
                    &mut table.prompt_routes,
                    &catalog.prompts,
                ),
            ] {
                for item in source {
                    let mut name = String::new();
                    let Some((original, exposed)) = rewrite(item, "name", |original| {
                        name = names::exposed(entry.part, entry.key, original, max);
                        // Only a hash collision could get here; the next name is as stable.
                        while routes.contains_key(&name) {
                            name = names::exposed(entry.part, entry.key, &format!("{name}'"), max);
                        }
                        name.clone()
                    }) else {
                        continue;
                    };
                    if let Some(why) = entry.held.get(&original).filter(|_| kind == "tool") {
                        table.held_tools.insert(name, why.clone());
                        continue;
                    }
                    list.push(exposed);
                    routes.insert(name, Route { server, original });
                }
            }
            for item in &catalog.resources {
                let mut exposed_uri = String::new();
                let Some((uri, exposed)) = rewrite(item, "uri", |uri| {
                    exposed_uri = if table.uri_routes.contains_key(uri) {
                        format!("{GATEWAY_SCHEME}{}/{uri}", entry.part)
                    } else {
                        uri.to_owned()
                    };
                    exposed_uri.clone()
                }) else {
                    continue;
                };
                table.resources.push(exposed);
                table
                    .uri_exposed
                    .insert((server, uri.clone()), exposed_uri.clone());
                table.uri_routes.insert(
                    exposed_uri,
                    Route {
                        server,
                        original: uri,
                    },
                );
            }
            for item in &catalog.templates {
                if let Some(template) = member(item, "uriTemplate") {
                    let head = template.split('{').next().unwrap_or("");
                    table.template_heads.push((head.to_owned(), server));
                }
                table.templates.push(item.get().to_owned());
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

    /// Why a tool is kept back, if it is.
    pub fn held(&self, name: &str) -> Option<&str> {
        self.held_tools.get(name).map(String::as_str)
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

    fn item(v: serde_json::Value) -> Item {
        serde_json::value::to_raw_value(&v).unwrap()
    }

    fn catalog(tools: &[&str], uris: &[&str]) -> Catalog {
        Catalog {
            tools: tools
                .iter()
                .map(|t| item(json!({"title": format!("The {t}"), "name": t, "_meta": {"k": 1}})))
                .collect(),
            resources: uris
                .iter()
                .map(|u| item(json!({"uri": u, "name": u})))
                .collect(),
            templates: vec![item(
                json!({"uriTemplate": "repo://{owner}/{name}", "name": "repo"}),
            )],
            ..Catalog::default()
        }
    }

    fn parsed(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn two_servers_with_the_same_tool_and_uri_both_stay_reachable() {
        let (a, b) = (
            catalog(&["search", "get"], &["file:///x"]),
            catalog(&["search", "wipe"], &["file:///x"]),
        );
        let held = BTreeMap::from([("wipe".to_owned(), "its definition changed".to_owned())]);
        let table = Table::build(
            &[
                Entry {
                    key: "alpha",
                    part: "alpha",
                    catalog: Some(&a),
                    held: &BTreeMap::new(),
                },
                Entry {
                    key: "beta",
                    part: "beta",
                    catalog: Some(&b),
                    held: &held,
                },
                Entry {
                    key: "gamma",
                    part: "gamma",
                    catalog: None,
                    held: &BTreeMap::new(),
                },
            ],
            64,
        );
        let names: Vec<String> = table
            .tools
            .iter()
            .map(|t| parsed(t)["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["alpha__search", "alpha__get", "beta__search"]);
        // The entry as the server wrote it, members in its order, only the name changed.
        assert_eq!(
            table.tools[2],
            r#"{"title":"The search","name":"beta__search","_meta":{"k":1}}"#
        );
        assert_eq!(
            table.tool("beta__search"),
            Some(&Route {
                server: 1,
                original: "search".into()
            })
        );
        assert_eq!(table.tool("search"), None);
        // A tool held back is neither listed nor routed, and says why.
        assert_eq!(table.tool("beta__wipe"), None);
        assert_eq!(table.held("beta__wipe"), Some("its definition changed"));
        assert_eq!(table.held("beta__search"), None);
        assert_eq!(table.uri("file:///x").unwrap().server, 0);
        assert_eq!(
            parsed(&table.resources[1])["uri"],
            "mcpguard://beta/file:///x"
        );
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
