//! The servers' catalogs as the gateway keeps them: read from every server that has none (all
//! at once: a cold start takes the slowest server's time, not the sum), each list followed to
//! its last page with its entries left as text, kept in the cache, refreshed when a server
//! starts or says its list changed (a change announced to the client), and the status file
//! `--status` reads.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::super::policy::Level;
use super::super::stdio::lock;
use super::Gateway;
use super::routes::{self, Catalog};
use super::status;
use super::upstream::Conn;

/// What a list request asks for: the method, the result's key, the capability it needs.
pub(super) const LISTS: [(&str, &str, &str); 4] = [
    ("tools/list", "tools", "tools"),
    ("prompts/list", "prompts", "prompts"),
    ("resources/list", "resources", "resources"),
    ("resources/templates/list", "resourceTemplates", "resources"),
];

/// The most pages of one server's list read before the rest is left out.
const MAX_PAGES: usize = 1000;

impl Gateway {
    /// Makes sure every server has a catalog: those without one (never cached, or `all`)
    /// are started and listed, all at once; one that fails is left out and logged.
    pub(super) fn ensure_catalogs(self: &Arc<Self>, all: bool) {
        let missing: Vec<usize> = lock(&self.catalogs)
            .iter()
            .enumerate()
            .filter(|(_, c)| all || c.is_none())
            .map(|(i, _)| i)
            // A server in its backoff is left alone: it was tried, and said why.
            .filter(|&i| !self.upstreams[i].waiting())
            .collect();
        if missing.is_empty() {
            return;
        }
        std::thread::scope(|scope| {
            for &index in &missing {
                scope.spawn(move || {
                    let upstream = &self.upstreams[index];
                    let listed = upstream
                        .connect(&self.launch, &self.listener())
                        .and_then(|conn| self.list_all(&conn));
                    match listed {
                        Ok(catalog) => {
                            self.keep(index, catalog);
                        }
                        Err(why) => self.log(
                            Level::Warn,
                            format!("`{}` left out of the catalog: {why}", upstream.key),
                        ),
                    }
                });
            }
        });
        self.save_pins();
        self.rebuild();
        self.write_status();
    }

    /// Lists a running server again; a catalog that changed is kept and announced.
    pub(super) fn refresh(&self, index: usize, conn: &Conn) {
        let Ok(catalog) = self.list_all(conn) else {
            return;
        };
        let before = lock(&self.catalogs)[index].clone();
        if before.as_ref() == Some(&catalog) {
            // Unchanged since it was kept; its pins are checked all the same (one forgotten
            // is pinned afresh, pins turned on since see it).
            self.check_pins(index);
            self.save_pins();
            return;
        }
        self.keep(index, catalog.clone());
        self.save_pins();
        self.rebuild();
        if let Some(before) = before {
            for (changed, method) in [
                (
                    !routes::same(&before.tools, &catalog.tools),
                    "notifications/tools/list_changed",
                ),
                (
                    !routes::same(&before.prompts, &catalog.prompts),
                    "notifications/prompts/list_changed",
                ),
                (
                    !routes::same(&before.resources, &catalog.resources)
                        || !routes::same(&before.templates, &catalog.templates),
                    "notifications/resources/list_changed",
                ),
            ] {
                if changed {
                    self.list_changed(method);
                }
            }
        }
    }

    /// Keeps a server's catalog, in memory and in the cache.
    pub(super) fn keep(&self, index: usize, catalog: Catalog) {
        if let (Some(cache), Some(file)) = (&self.cache, &self.upstreams[index].cache_file)
            && let Err(e) = cache.save(file, &self.upstreams[index].key, &catalog)
        {
            self.log(
                Level::Warn,
                format!(
                    "cannot keep the catalog of `{}` in {}: {e}",
                    self.upstreams[index].key,
                    file.display()
                ),
            );
        }
        lock(&self.catalog_times)[index] = Some(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        );
        lock(&self.catalogs)[index] = Some(catalog);
        self.check_pins(index);
    }

    /// Every list of a server, each read to its last page.
    pub(super) fn list_all(&self, conn: &Conn) -> Result<Catalog, String> {
        let mut catalog = Catalog::default();
        for (method, key, capability) in LISTS {
            if !conn.can(capability) {
                continue;
            }
            let mut items = Vec::new();
            let mut cursor: Option<Value> = None;
            for _ in 0..MAX_PAGES {
                let params = match &cursor {
                    Some(c) => json!({ "cursor": c }),
                    None => json!({}),
                };
                let page = match conn.request(method, params, self.launch.timeout) {
                    Ok(page) => page,
                    // A server that lists no prompts (or resources) though it said it had
                    // them: none, not a failure; its tools are what it is for.
                    Err(why) if method == "tools/list" => return Err(format!("{method}: {why}")),
                    Err(_) => break,
                };
                // The page's members left as text; its list split into entries, each kept
                // as the server wrote it: no tree of the catalog is built.
                let Ok(members) = serde_json::from_str::<HashMap<&str, &RawValue>>(page.get())
                else {
                    break;
                };
                if let Some(list) = members.get(key)
                    && let Ok(entries) = serde_json::from_str::<Vec<Box<RawValue>>>(list.get())
                {
                    items.extend(entries);
                }
                match members.get("nextCursor").map(|c| parsed_value(c)) {
                    Some(next) if !next.is_null() && Some(&next) != cursor.as_ref() => {
                        cursor = Some(next);
                    }
                    _ => break,
                }
            }
            match key {
                "tools" => catalog.tools = items,
                "prompts" => catalog.prompts = items,
                "resources" => catalog.resources = items,
                _ => catalog.templates = items,
            }
        }
        Ok(catalog)
    }

    pub(super) fn write_status(&self) {
        let Some(file) = &self.status_file else {
            return;
        };
        let catalogs = lock(&self.catalogs);
        let times = lock(&self.catalog_times);
        let servers: Vec<Value> = self
            .upstreams
            .iter()
            .enumerate()
            .map(|(i, u)| {
                let (state, error) = u.state();
                status::ServerStatus {
                    name: u.key.clone(),
                    target: u.target.describe(),
                    state: if self.closing.load(Ordering::SeqCst) {
                        "stopped".into()
                    } else {
                        state
                    },
                    last_error: error,
                    tools: catalogs[i].as_ref().map(|c| c.tools.len()),
                    cached_at: times[i],
                    starts: u.starts.load(Ordering::SeqCst),
                }
                .to_value()
            })
            .collect();
        drop((catalogs, times));
        let running = !self.closing.load(Ordering::SeqCst);
        if let Err(e) = status::write(file, running, servers) {
            self.log(Level::Warn, format!("cannot write {}: {e}", file.display()));
        }
    }
}

fn parsed_value(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}
