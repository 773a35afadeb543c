//! Putting the proxy into a client's server list, and taking it out again: chosen stdio
//! servers rewritten to start as `mcpguard proxy -- THEIR COMMAND`, remote ones (`type: http`,
//! a `url`) as the stdio bridge `mcpguard proxy --url URL`, in whatever file and
//! format the client keeps them ([`Layout`]: a JSON or JSONC object of servers somewhere in the
//! document, or Codex's TOML tables). Pure: text in, text and what happened to each server
//! out; [`super::clients`] says where each client's files are, the CLI reads and writes them.
//!
//! Only the members that change (`command`, `args`) are written, in place, through a syntax
//! tree that keeps the rest: every other byte of the file stays as it was (key order, spacing,
//! comments in JSONC and TOML), so `uninstall` gives back the file `install` was given.
//! Idempotent both ways: a server already behind the proxy is left as it is by `install`, and
//! one that is not is left as it is by `uninstall`.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use serde_json::{Map, Value};

use super::launcher::Launcher;

/// What became of one server.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    pub name: String,
    pub action: Action,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Now started through the proxy.
    Proxied,
    /// A remote server, now reached through the stdio bridge (`mcpguard proxy --url`).
    Bridged,
    /// Already was.
    AlreadyProxied,
    /// Back to its own command.
    Restored,
    /// Was not behind the proxy.
    NotProxied,
    /// A remote server the bridge cannot reach: the old SSE transport, or headers that are
    /// not plain text.
    SkippedUrl,
}

impl Action {
    pub fn describe(self) -> &'static str {
        match self {
            Action::Proxied => "now starts through mcpguard proxy",
            Action::Bridged => {
                "now reaches its URL through mcpguard proxy --url (the stdio bridge)"
            }
            Action::AlreadyProxied => "already starts through mcpguard proxy",
            Action::Restored => "starts its own command again",
            Action::NotProxied => "was not behind mcpguard proxy; left as it is",
            Action::SkippedUrl => {
                "is a remote server on the old SSE transport (or with headers that are not text); left as it is"
            }
        }
    }

    /// Whether the document changed for this server.
    pub fn changed(self) -> bool {
        matches!(self, Action::Proxied | Action::Bridged | Action::Restored)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("no {0} in it: no servers there")]
    NoServersAt(String),
    #[error(
        "`{0}` is in it twice; clients read the last one and an edit could change the other: keep one (nothing was changed)"
    )]
    Twice(String),
    /// Where the text cannot be read, 1-based, and why.
    #[error("{line}:{column}: {why}; fix the file first (nothing was changed)")]
    Syntax {
        line: usize,
        column: usize,
        why: String,
    },
    #[error("no server named {name}; it has {}", if known.is_empty() { "none".to_owned() } else { known.join(", ") })]
    UnknownServer { name: String, known: Vec<String> },
}

/// What `install` or `uninstall` does to one server entry.
#[derive(Clone, Copy, Debug)]
pub enum Op<'a> {
    Install {
        mcpguard: &'a Launcher,
        proxy_args: &'a [String],
    },
    Uninstall,
}

impl Op<'_> {
    fn apply(&self, entry: &mut Map<String, Value>) -> Action {
        match *self {
            Op::Install {
                mcpguard,
                proxy_args,
            } => install_entry(entry, mcpguard, proxy_args),
            Op::Uninstall => uninstall_entry(entry),
        }
    }
}

/// The members that name a remote server in the clients' formats.
const REMOTE_KEYS: [&str; 3] = ["url", "serverUrl", "httpUrl"];

/// The bridge's flag that says what a remote entry was (`KEY` or `KEY:TYPE`), so `uninstall`
/// gives the entry back in its client's own shape.
pub const REMOTE_ENTRY_FLAG: &str = "--remote-entry";

/// A remote entry's URL member and value.
fn remote_url(entry: &Map<String, Value>) -> Option<(&'static str, String)> {
    REMOTE_KEYS
        .iter()
        .find_map(|k| Some((*k, entry.get(*k)?.as_str()?.to_owned())))
}

fn install_entry(
    entry: &mut Map<String, Value>,
    mcpguard: &Launcher,
    proxy_args: &[String],
) -> Action {
    if let Some((key, url)) = remote_url(entry) {
        return install_remote(entry, mcpguard, proxy_args, key, url);
    }
    if REMOTE_KEYS.iter().any(|k| entry.contains_key(*k)) || !entry.contains_key("command") {
        return Action::SkippedUrl;
    }
    if is_proxied(entry) {
        return Action::AlreadyProxied;
    }
    let command = entry.get("command").cloned().unwrap_or(Value::Null);
    let args = entry
        .get("args")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut new_args = proxy_start(mcpguard, proxy_args);
    new_args.push(Value::from("--"));
    new_args.push(command);
    new_args.extend(args);
    entry.insert("command".into(), Value::from(mcpguard.command.as_str()));
    entry.insert("args".into(), Value::Array(new_args));
    Action::Proxied
}

/// A remote server becomes the stdio bridge in front of it: `type` (when the entry has one)
/// `stdio`, the URL and headers moved into the bridge's flags.
fn install_remote(
    entry: &mut Map<String, Value>,
    mcpguard: &Launcher,
    proxy_args: &[String],
    key: &str,
    url: String,
) -> Action {
    let kind = entry.get("type").and_then(Value::as_str).map(str::to_owned);
    if kind.as_deref() == Some("sse") {
        return Action::SkippedUrl;
    }
    let mut headers = Vec::new();
    match entry.get("headers") {
        None => {}
        Some(Value::Object(map)) => {
            for (name, value) in map {
                let Some(value) = value.as_str() else {
                    return Action::SkippedUrl;
                };
                headers.push(format!("{name}: {value}"));
            }
        }
        Some(_) => return Action::SkippedUrl,
    }
    let was = match &kind {
        Some(kind) => format!("{key}:{kind}"),
        None => key.to_owned(),
    };
    let mut args = proxy_start(mcpguard, proxy_args);
    args.extend([REMOTE_ENTRY_FLAG, &was, "--url", &url].map(Value::from));
    for header in headers {
        args.push(Value::from("--header"));
        args.push(Value::from(header));
    }
    entry.shift_remove(key);
    entry.shift_remove("headers");
    if kind.is_some() {
        entry.insert("type".into(), Value::from("stdio"));
    }
    entry.insert("command".into(), Value::from(mcpguard.command.as_str()));
    entry.insert("args".into(), Value::Array(args));
    Action::Bridged
}

/// A proxied entry's arguments up to its own: the launcher's, `proxy`, the proxy's flags.
pub fn proxy_start(mcpguard: &Launcher, proxy_args: &[String]) -> Vec<Value> {
    mcpguard
        .args
        .iter()
        .map(String::as_str)
        .chain(std::iter::once("proxy"))
        .chain(proxy_args.iter().map(String::as_str))
        .map(Value::from)
        .collect()
}

/// The remote entry a bridge's `args` came from, put back: its URL member, `type`, headers.
fn uninstall_remote(entry: &mut Map<String, Value>, args: &[Value]) -> Action {
    let arg = |i: usize| args.get(i).and_then(Value::as_str);
    let Some(at) = args.iter().position(|a| a == REMOTE_ENTRY_FLAG) else {
        return Action::NotProxied;
    };
    let (key, kind) = match arg(at + 1).map(|w| w.split_once(':').unwrap_or((w, ""))) {
        Some((key, kind)) if REMOTE_KEYS.contains(&key) => (key.to_owned(), kind.to_owned()),
        _ => return Action::NotProxied,
    };
    let mut url = None;
    let mut headers = Map::new();
    let mut i = at + 2;
    while i < args.len() {
        match (arg(i), arg(i + 1)) {
            (Some("--url"), Some(u)) => url = Some(u.to_owned()),
            (Some("--header"), Some(h)) => {
                let (name, value) = h.split_once(':').unwrap_or((h, ""));
                headers.insert(name.trim().to_owned(), Value::from(value.trim_start()));
            }
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let Some(url) = url else {
        return Action::NotProxied;
    };
    entry.shift_remove("command");
    entry.shift_remove("args");
    if kind.is_empty() {
        entry.shift_remove("type");
    } else {
        entry.insert("type".into(), Value::from(kind));
    }
    // Where every client writes them: the URL first or after `type`, the headers after it.
    let at = entry.keys().position(|k| k == "type").map_or(0, |i| i + 1);
    entry.shift_insert(at, key, Value::from(url));
    if !headers.is_empty() {
        entry.shift_insert(at + 1, "headers".into(), Value::Object(headers));
    }
    Action::Restored
}

fn uninstall_entry(entry: &mut Map<String, Value>) -> Action {
    if !is_proxied(entry) {
        return Action::NotProxied;
    }
    let args = entry
        .get("args")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if args.iter().any(|a| a == REMOTE_ENTRY_FLAG) {
        return uninstall_remote(entry, &args);
    }
    let Some(dash) = args.iter().position(|a| a == "--") else {
        return Action::NotProxied;
    };
    let mut rest = args[dash + 1..].to_vec();
    if rest.is_empty() {
        return Action::NotProxied;
    }
    let command = rest.remove(0);
    entry.insert("command".into(), command);
    // A server with no arguments of its own either had no `args` (install then appended it,
    // last) or an empty one where its client put it (`claude mcp add` writes `"args": []`
    // before `env`): the member's place tells which, so either comes back as it was.
    let appended = entry.keys().next_back().is_some_and(|k| k == "args");
    if rest.is_empty() && appended {
        entry.shift_remove("args");
    } else {
        entry.insert("args".into(), Value::Array(rest));
    }
    Action::Restored
}

/// Where a client keeps its servers in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// A JSON (or JSONC) object of servers, under these keys from the root: `["mcpServers"]`,
    /// VS Code's `["servers"]`, Claude Code's local scope `["projects", DIR, "mcpServers"]`.
    Json(Vec<String>),
    /// A TOML table whose sub-tables are the servers: Codex's `mcp_servers`.
    Toml(String),
}

impl Layout {
    /// How a message names where the servers are: `mcpServers`, `projects["/p"].mcpServers`.
    pub fn shown(&self) -> String {
        match self {
            Layout::Toml(table) => format!("[{table}]"),
            Layout::Json(path) => {
                let mut out = String::new();
                for (i, key) in path.iter().enumerate() {
                    let plain = key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                    match (plain, i) {
                        (true, 0) => out.push_str(key),
                        (true, _) => out.push_str(&format!(".{key}")),
                        (false, _) => out.push_str(&format!("[{key:?}]")),
                    }
                }
                out
            }
        }
    }
}

/// One server as a config lists it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Listed {
    pub name: String,
    /// A remote server (a URL), reached through the stdio bridge once installed.
    pub remote: bool,
    /// Started as `mcpguard proxy -- ...`.
    pub proxied: bool,
}

/// The servers of a config's text, in their order.
pub fn list(text: &str, layout: &Layout) -> Result<Vec<Listed>, InstallError> {
    let mut listed = Vec::new();
    visit(text, layout, &[], |name, entry| {
        listed.push(Listed {
            name: name.to_owned(),
            remote: REMOTE_KEYS.iter().any(|k| entry.contains_key(*k))
                || !entry.contains_key("command")
                || entry
                    .get("args")
                    .and_then(Value::as_array)
                    .is_some_and(|a| a.iter().any(|x| x == REMOTE_ENTRY_FLAG)),
            proxied: is_proxied(entry),
        });
        None
    })?;
    Ok(listed)
}

/// `op` on the servers `names` names (all, when empty) of a config's text: the new text (the
/// old one, byte for byte, where nothing changed) and what became of each server.
pub fn edit(
    text: &str,
    layout: &Layout,
    names: &[String],
    op: &Op<'_>,
) -> Result<(String, Vec<Change>), InstallError> {
    let mut changes = Vec::new();
    let new = visit(text, layout, names, |name, entry| {
        let action = op.apply(entry);
        changes.push(Change {
            name: name.to_owned(),
            action,
        });
        Some(action)
    })?;
    Ok((new, changes))
}

/// Calls `f` on each chosen server entry (as JSON) and writes back what it changed when it
/// returns a changing action; the text with those changes.
fn visit(
    text: &str,
    layout: &Layout,
    names: &[String],
    f: impl FnMut(&str, &mut Map<String, Value>) -> Option<Action>,
) -> Result<String, InstallError> {
    // A UTF-8 byte order mark (Windows editors write one) stays in front, out of the parser's way.
    const BOM: &str = "\u{feff}";
    let (bom, text) = match text.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", text),
    };
    let new = match layout {
        Layout::Json(path) => visit_json(text, path, layout, names, f),
        Layout::Toml(table) => visit_toml(text, table, layout, names, f),
    }?;
    Ok(format!("{bom}{new}"))
}

/// A JSON or JSONC document's syntax tree, every byte of it kept.
pub(super) fn parse_root(text: &str) -> Result<CstRootNode, InstallError> {
    CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| InstallError::Syntax {
        line: e.line_display(),
        column: e.column_display(),
        why: format!("not JSON: {}", e.kind()),
    })
}

/// The object of servers at `path` in a document's tree.
pub(super) fn servers_object(
    root: &CstRootNode,
    path: &[String],
    layout: &Layout,
) -> Result<CstObject, InstallError> {
    let missing = || InstallError::NoServersAt(layout.shown());
    let mut servers = root.object_value().ok_or_else(missing)?;
    for key in path {
        let twice = servers
            .properties()
            .iter()
            .filter(|p| p.decoded_name().as_deref() == Some(key.as_str()))
            .count()
            > 1;
        if twice {
            return Err(InstallError::Twice(key.clone()));
        }
        servers = servers.object_value(key).ok_or_else(missing)?;
    }
    Ok(servers)
}

pub(super) fn check_names(known: &[String], names: &[String]) -> Result<(), InstallError> {
    match names.iter().find(|n| !known.contains(n)) {
        Some(name) => Err(InstallError::UnknownServer {
            name: name.clone(),
            known: known.to_vec(),
        }),
        None => Ok(()),
    }
}

fn visit_json(
    text: &str,
    path: &[String],
    layout: &Layout,
    names: &[String],
    mut f: impl FnMut(&str, &mut Map<String, Value>) -> Option<Action>,
) -> Result<String, InstallError> {
    let root = parse_root(text)?;
    let servers = servers_object(&root, path, layout)?;
    let props = servers.properties();
    let known: Vec<String> = props.iter().filter_map(|p| p.decoded_name()).collect();
    check_names(&known, names)?;
    let mut inline: Vec<(String, String)> = Vec::new();
    for prop in props {
        let Some(name) = prop.decoded_name() else {
            continue;
        };
        if !names.is_empty() && !names.contains(&name) {
            continue;
        }
        let Some(entry) = prop.object_value() else {
            continue;
        };
        let Some(Value::Object(before)) = entry.to_serde_value() else {
            continue;
        };
        let mut after = before.clone();
        if !f(&name, &mut after).is_some_and(Action::changed) {
            continue;
        }
        let was = entry.to_string();
        let grows = after.keys().any(|k| !before.contains_key(k));
        if was.contains('\n') || !grows {
            write_json(&entry, &before, &after);
        } else {
            // An entry on one line stays on one line, in its own spacing (the syntax tree
            // would spread it over lines): a placeholder now, the entry written in its place.
            let placeholder = format!("@@mcpguard-entry-{}@@", inline.len());
            prop.set_value(CstInputValue::String(placeholder.clone()));
            inline.push((format!("\"{placeholder}\""), Inline::of(&was).write(&after)));
        }
    }
    let mut out = root.to_string();
    for (placeholder, text) in inline {
        out = out.replacen(&placeholder, &text, 1);
    }
    Ok(out)
}

/// The spacing of a JSON object written on one line: `{"a": 1, "b": 2}`, `{ "a":1,"b":2 }`.
struct Inline {
    colon: &'static str,
    comma: &'static str,
    pad: &'static str,
}

impl Inline {
    fn of(text: &str) -> Inline {
        Inline {
            colon: if text.contains("\": ") { ": " } else { ":" },
            comma: if text.contains(", ") { ", " } else { "," },
            pad: if text.starts_with("{ ") { " " } else { "" },
        }
    }

    /// `entry` on one line in this spacing (the braces padded as the entry's were).
    fn write(&self, entry: &Map<String, Value>) -> String {
        let written = self.value(&Value::Object(entry.clone()));
        let inside = &written[1..written.len() - 1];
        format!("{{{pad}{inside}{pad}}}", pad = self.pad)
    }

    fn value(&self, value: &Value) -> String {
        match value {
            Value::Object(map) => {
                let members: Vec<String> = map
                    .iter()
                    .map(|(k, v)| {
                        format!("{}{}{}", Value::from(k.as_str()), self.colon, self.value(v))
                    })
                    .collect();
                format!("{{{}}}", members.join(self.comma))
            }
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(|v| self.value(v)).collect();
                format!("[{}]", items.join(self.comma))
            }
            scalar => scalar.to_string(),
        }
    }
}

/// The members of `after` that differ from `before`, written into `entry` in place; those
/// gone, removed. A new member goes where it stands in `after` (install appends, so an `args`
/// it added goes last, as [`uninstall_entry`] expects; uninstall puts a URL back in its place).
fn write_json(entry: &CstObject, before: &Map<String, Value>, after: &Map<String, Value>) {
    for key in before.keys().filter(|k| !after.contains_key(*k)) {
        if let Some(prop) = entry.get(key) {
            prop.remove();
        }
    }
    for (index, (key, value)) in after.iter().enumerate() {
        if before.get(key) == Some(value) {
            continue;
        }
        if let (Some(Value::Array(old)), Some(array)) = (
            before.get(key),
            entry.get(key).and_then(|p| p.array_value()),
        ) && let Value::Array(new) = value
            && array.to_string().contains('\n')
        {
            // `args` one element a line (as Claude Code writes it) grows or shrinks at its
            // front (`proxy ... -- COMMAND` before the server's own): the elements that stay
            // keep their lines. An inline array is written whole, in the same inline style.
            if new.ends_with(old) {
                for (i, item) in new[..new.len() - old.len()].iter().enumerate() {
                    array.insert(i, cst_value(item));
                }
                continue;
            }
            if old.ends_with(new) {
                for element in array.elements().into_iter().take(old.len() - new.len()) {
                    element.remove();
                }
                continue;
            }
        }
        match entry.get(key) {
            Some(prop) => prop.set_value(cst_value(value)),
            None => {
                entry.insert(index, key, cst_value(value));
            }
        }
    }
}

pub(super) fn cst_value(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst_value).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), cst_value(v))).collect())
        }
    }
}

fn visit_toml(
    text: &str,
    table: &str,
    layout: &Layout,
    names: &[String],
    mut f: impl FnMut(&str, &mut Map<String, Value>) -> Option<Action>,
) -> Result<String, InstallError> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        let at = e.span().map_or(0, |s| s.start).min(text.len());
        let before = &text[..at];
        InstallError::Syntax {
            line: before.matches('\n').count() + 1,
            column: before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1,
            why: format!("not TOML: {}", e.message()),
        }
    })?;
    let servers = doc
        .get_mut(table)
        .and_then(toml_edit::Item::as_table_like_mut)
        .ok_or_else(|| InstallError::NoServersAt(layout.shown()))?;
    let known: Vec<String> = servers.iter().map(|(k, _)| k.to_owned()).collect();
    check_names(&known, names)?;
    for (name, item) in servers.iter_mut() {
        if !names.is_empty() && !names.iter().any(|n| n == name.get()) {
            continue;
        }
        let Some(entry) = item.as_table_like_mut() else {
            continue;
        };
        // What the decision needs, as JSON, in the table's order: the command, its args,
        // whether it is remote; the other members only as places.
        let mut before = Map::new();
        for (key, item) in entry.iter() {
            let value = match key {
                "command" => item.as_str().map_or(Value::Null, Value::from),
                "args" => Value::Array(
                    item.as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|v| v.as_str().map(Value::from))
                                .collect()
                        })
                        .unwrap_or_default(),
                ),
                _ => Value::Bool(true),
            };
            before.insert(key.to_owned(), value);
        }
        let mut after = before.clone();
        if !f(name.get(), &mut after).is_some_and(Action::changed) {
            continue;
        }
        for key in ["command", "args"] {
            let mut value = match after.get(key) {
                Some(v) if before.get(key) == Some(v) => continue,
                Some(Value::String(s)) => toml_edit::Value::from(s.as_str()),
                Some(Value::Array(items)) => {
                    let array: toml_edit::Array = items.iter().filter_map(Value::as_str).collect();
                    toml_edit::Value::Array(array)
                }
                _ => {
                    entry.remove(key);
                    continue;
                }
            };
            // The spacing and the comment around the old value (`command = "npx"  # ...`).
            if let Some(old) = entry.get(key).and_then(toml_edit::Item::as_value) {
                *value.decor_mut() = old.decor().clone();
            }
            entry.insert(key, toml_edit::Item::Value(value));
        }
    }
    Ok(doc.to_string())
}

/// A server started as `…/mcpguard proxy … -- …`, or through a runner (`npx -y mcpguard proxy`).
pub(super) fn is_proxied(entry: &Map<String, Value>) -> bool {
    let command = entry.get("command").and_then(Value::as_str).unwrap_or("");
    let args: Vec<&str> = entry
        .get("args")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|v| v.as_str().unwrap_or("")).collect())
        .unwrap_or_default();
    super::launcher::proxy_index(command, &args).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard_with(mcpguard: &Launcher) -> Op<'_> {
        Op::Install {
            mcpguard,
            proxy_args: &[],
        }
    }

    fn usr_bin() -> Launcher {
        Launcher::parse("/usr/bin/mcpguard").unwrap()
    }

    fn servers(path: &[&str]) -> Layout {
        Layout::Json(path.iter().map(|s| s.to_string()).collect())
    }

    /// install, install again, uninstall, uninstall again: the second of each changes nothing
    /// and the end is the start, byte for byte. The installed text, for a closer look.
    fn round_trip(text: &str, layout: &Layout) -> String {
        let (installed, changes) = edit(text, layout, &[], &guard_with(&usr_bin())).unwrap();
        assert!(
            changes.iter().any(|c| c.action == Action::Proxied),
            "{changes:?}"
        );
        let (again, changes) = edit(&installed, layout, &[], &guard_with(&usr_bin())).unwrap();
        assert_eq!(again, installed);
        assert!(changes.iter().all(|c| !c.action.changed()), "{changes:?}");
        let (restored, _) = edit(&installed, layout, &[], &Op::Uninstall).unwrap();
        assert_eq!(
            restored, text,
            "uninstall gives back the file install was given"
        );
        let (still, changes) = edit(&restored, layout, &[], &Op::Uninstall).unwrap();
        assert_eq!(still, text);
        assert!(changes.iter().all(|c| !c.action.changed()));
        installed
    }

    #[test]
    fn a_json_config_changes_only_where_a_server_changes() {
        // Claude Desktop's documented shape, with the spacing a person leaves.
        let text = "{\n  \"globalShortcut\": \"\",\n  \"mcpServers\": {\n    \"git\": { \"type\": \"stdio\", \"command\": \"uvx\", \"args\": [\"mcp-server-git\"], \"env\": {\"A\": \"1\"} },\n    \"bare\": {\n      \"command\": \"my-server\"\n    },\n    \"remote\": {\n      \"type\": \"http\",\n      \"url\": \"https://example.com/mcp\"\n    }\n  },\n  \"other\": true\n}\n";
        let installed = round_trip(text, &servers(&["mcpServers"]));
        let doc: Value = serde_json::from_str(&installed).unwrap();
        assert_eq!(
            doc["mcpServers"]["git"],
            serde_json::json!({"type": "stdio", "command": "/usr/bin/mcpguard",
                "args": ["proxy", "--", "uvx", "mcp-server-git"], "env": {"A": "1"}})
        );
        assert_eq!(
            doc["mcpServers"]["bare"]["args"],
            serde_json::json!(["proxy", "--", "my-server"])
        );
        // The remote server: the stdio bridge in front of it.
        assert_eq!(
            doc["mcpServers"]["remote"],
            serde_json::json!({"type": "stdio", "command": "/usr/bin/mcpguard",
                "args": ["proxy", "--remote-entry", "url:http", "--url", "https://example.com/mcp"]})
        );
        // Untouched lines stay as they were.
        assert!(installed.starts_with("{\n  \"globalShortcut\": \"\",\n"));
        let (_, changes) = edit(
            text,
            &servers(&["mcpServers"]),
            &[],
            &guard_with(&usr_bin()),
        )
        .unwrap();
        let actions: Vec<Action> = changes.iter().map(|c| c.action).collect();
        assert_eq!(actions, [Action::Proxied, Action::Proxied, Action::Bridged]);
    }

    #[test]
    fn remote_servers_become_the_bridge_and_come_back_in_their_clients_shape() {
        let text = r#"{"mcpServers": {
  "gh": {"type": "http", "url": "https://api.example.com/mcp/", "headers": {"X-Team": "a", "Authorization": "Bearer ${GH_TOKEN}"}, "timeout": 30},
  "windsurf-style": {"serverUrl": "https://w.example.com/mcp"},
  "old-sse": {"type": "sse", "url": "https://s.example.com/sse"}
}}"#;
        let layout = servers(&["mcpServers"]);
        let (installed, changes) = edit(text, &layout, &[], &guard_with(&usr_bin())).unwrap();
        let actions: Vec<Action> = changes.iter().map(|c| c.action).collect();
        assert_eq!(
            actions,
            [Action::Bridged, Action::Bridged, Action::SkippedUrl]
        );
        let doc: Value = serde_json::from_str(&installed).unwrap();
        assert_eq!(
            doc["mcpServers"]["gh"],
            serde_json::json!({"type": "stdio", "timeout": 30, "command": "/usr/bin/mcpguard",
                "args": ["proxy", "--remote-entry", "url:http", "--url", "https://api.example.com/mcp/",
                         "--header", "X-Team: a", "--header", "Authorization: Bearer ${GH_TOKEN}"]})
        );
        assert_eq!(
            doc["mcpServers"]["windsurf-style"]["args"],
            serde_json::json!([
                "proxy",
                "--remote-entry",
                "serverUrl",
                "--url",
                "https://w.example.com/mcp"
            ])
        );
        let listed = list(&installed, &layout).unwrap();
        assert!(listed.iter().all(|l| l.remote), "{listed:?}");
        assert_eq!(listed.iter().filter(|l| l.proxied).count(), 2);
        // Back in their own shape, members and values (an inline object now spans lines).
        let (restored, _) = edit(&installed, &layout, &[], &Op::Uninstall).unwrap();
        let before: Value = serde_json::from_str(text).unwrap();
        let after: Value = serde_json::from_str(&restored).unwrap();
        assert_eq!(after, before);
        assert!(
            restored.contains(r#""old-sse": {"type": "sse", "url": "https://s.example.com/sse"}"#)
        );
    }

    #[test]
    fn a_remote_entry_on_one_line_comes_back_byte_for_byte() {
        // As `claude mcp add --transport http` and Cursor write them, and a spacing of one's own.
        for text in [
            "{\n  \"mcpServers\": {\n    \"linear\": {\"type\": \"http\", \"url\": \"https://mcp.linear.app/mcp\", \"headers\": {\"Authorization\": \"Bearer ${LINEAR}\"}, \"timeout\": 30}\n  }\n}\n",
            "{\"mcpServers\":{\"docs\":{\"url\":\"https://docs.example.com/mcp\",\"headers\":{\"X-Key\":\"k\"}},\"local\":{\"command\":\"npx\"}}}",
            "{\"mcpServers\": {\"ctx\": { \"type\": \"http\", \"url\": \"https://c.example.com/mcp\" }}}",
        ] {
            let layout = servers(&["mcpServers"]);
            let (installed, changes) = edit(text, &layout, &[], &guard_with(&usr_bin())).unwrap();
            assert!(
                changes.iter().any(|c| c.action == Action::Bridged),
                "{changes:?}"
            );
            assert_eq!(
                installed.lines().count(),
                text.lines().count(),
                "one line stays one line:\n{installed}"
            );
            let (restored, _) = edit(&installed, &layout, &[], &Op::Uninstall).unwrap();
            assert_eq!(restored, text);
        }
    }

    #[test]
    fn claude_codes_local_scope_is_under_its_project() {
        // As `claude mcp add` writes it: `"args": []` before `env` comes back as it was.
        let text = r#"{"numStartups": 3, "projects": {"/home/u/app": {"allowedTools": [], "mcpServers": {"evu": {"type": "stdio", "command": "npx", "args": [], "env": {}}, "two": {"type": "stdio", "command": "npx", "args": ["-y", "evu"], "env": {}}}}}, "mcpServers": {"user-one": {"command": "uvx", "args": ["mcp-server-time"]}}}"#;
        let local = servers(&["projects", "/home/u/app", "mcpServers"]);
        let installed = round_trip(text, &local);
        let doc: Value = serde_json::from_str(&installed).unwrap();
        assert_eq!(
            doc["projects"]["/home/u/app"]["mcpServers"]["evu"]["command"],
            "/usr/bin/mcpguard"
        );
        assert_eq!(
            doc["mcpServers"]["user-one"]["command"], "uvx",
            "the user scope is not touched"
        );
        let other = servers(&["projects", "/elsewhere", "mcpServers"]);
        let err = edit(text, &other, &[], &guard_with(&usr_bin()))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "no projects[\"/elsewhere\"].mcpServers in it: no servers there"
        );
    }

    #[test]
    fn vs_codes_jsonc_keeps_its_comments_and_inputs() {
        // VS Code's documented .vscode/mcp.json: `servers`, `inputs`, comments, a trailing comma.
        let text = r#"{
  // Servers for this workspace
  "inputs": [
    { "type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true }
  ],
  "servers": {
    "Perplexity": {
      "type": "stdio",
      "command": "npx", // the launcher
      "args": ["-y", "server-perplexity-ask"],
      "env": { "PERPLEXITY_API_KEY": "${input:perplexity-key}" },
    },
    "fetch": {
      "type": "http",
      "url": "https://example.com/mcp"
    }
  }
}
"#;
        let installed = round_trip(text, &servers(&["servers"]));
        assert!(installed.contains("// Servers for this workspace"));
        assert!(
            installed.contains("\"command\": \"/usr/bin/mcpguard\", // the launcher"),
            "{installed}"
        );
        assert!(installed.contains("\"${input:perplexity-key}\""));
    }

    #[test]
    fn codexs_toml_keeps_its_comments_and_other_tables() {
        // Codex's documented ~/.codex/config.toml.
        let text = r#"model = "o3"   # the default model

# Servers Codex starts
[mcp_servers.docs]
command = "npx"
args = ["-y", "mcp-server"]
env = { "API_KEY" = "value" }

[mcp_servers.remote]
url = "https://example.com/mcp"

[profiles.fast]
model = "o4-mini"
"#;
        let layout = Layout::Toml("mcp_servers".into());
        let installed = round_trip(text, &layout);
        assert!(installed.contains("model = \"o3\"   # the default model"));
        assert!(installed.contains("# Servers Codex starts"));
        assert!(
            installed.contains("command = \"/usr/bin/mcpguard\""),
            "{installed}"
        );
        assert!(
            installed.contains(r#"args = ["proxy", "--", "npx", "-y", "mcp-server"]"#),
            "{installed}"
        );
        let listed = list(&installed, &layout).unwrap();
        assert_eq!(
            listed,
            [
                Listed {
                    name: "docs".into(),
                    remote: false,
                    proxied: true
                },
                Listed {
                    name: "remote".into(),
                    remote: true,
                    proxied: false
                },
            ]
        );
    }

    #[test]
    fn chosen_names_only_and_unknown_names_and_broken_files_are_errors() {
        let text = r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}"#;
        let layout = servers(&["mcpServers"]);
        let (new, changes) = edit(text, &layout, &["b".into()], &guard_with(&usr_bin())).unwrap();
        assert_eq!(changes.len(), 1);
        let doc: Value = serde_json::from_str(&new).unwrap();
        assert_eq!(doc["mcpServers"]["a"]["command"], "x");
        assert!(matches!(
            edit(text, &layout, &["nope".into()], &guard_with(&usr_bin())),
            Err(InstallError::UnknownServer { .. })
        ));
        assert!(matches!(
            edit(r#"{"servers": {}}"#, &layout, &[], &guard_with(&usr_bin())),
            Err(InstallError::NoServersAt(_))
        ));
        let json = edit(
            "{\"mcpServers\": {\n  \"a\": ,\n}",
            &layout,
            &[],
            &guard_with(&usr_bin()),
        )
        .unwrap_err();
        assert!(json.to_string().starts_with("2:8: not JSON"), "{json}");
        let toml = edit(
            "x = 1\na = [",
            &Layout::Toml("mcp_servers".into()),
            &[],
            &guard_with(&usr_bin()),
        )
        .unwrap_err();
        assert!(toml.to_string().starts_with("2:"), "{toml}");
    }
}
