//! Putting the proxy into a client's server list, and taking it out again: the `mcpServers`
//! of Claude Code's `.mcp.json` or Claude Desktop's config, rewritten so chosen stdio servers
//! start as `mcpguard proxy -- THEIR COMMAND`. Pure: a document in, a document and what
//! happened to each server out; the CLI reads and writes the file.
//!
//! Idempotent both ways: a server already behind the proxy is left as it is by `install`, and
//! one that is not is left as it is by `uninstall`. Every other member of an entry (`env`,
//! `type`, `cwd`, ...) and of the document is kept, in its order.

use serde_json::{Map, Value};

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
    /// Already was.
    AlreadyProxied,
    /// Back to its own command.
    Restored,
    /// Was not behind the proxy.
    NotProxied,
    /// A Streamable HTTP server (`url`): the stdio proxy starts commands.
    SkippedUrl,
}

impl Action {
    pub fn describe(self) -> &'static str {
        match self {
            Action::Proxied => "now starts through mcpguard proxy",
            Action::AlreadyProxied => "already starts through mcpguard proxy",
            Action::Restored => "starts its own command again",
            Action::NotProxied => "was not behind mcpguard proxy; left as it is",
            Action::SkippedUrl => "is a URL (Streamable HTTP) server; left as it is",
        }
    }

    /// Whether the document changed for this server.
    pub fn changed(self) -> bool {
        matches!(self, Action::Proxied | Action::Restored)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("no `mcpServers` object in it; is this a client's MCP config?")]
    NoServers,
    #[error("no server named {name}; it has {}", if known.is_empty() { "none".to_owned() } else { known.join(", ") })]
    UnknownServer { name: String, known: Vec<String> },
}

/// Puts the servers `names` names (all, when empty) behind `mcpguard` (the command that
/// starts it) with `proxy_args` before the `--`.
pub fn install(
    doc: &mut Value,
    names: &[String],
    mcpguard: &str,
    proxy_args: &[String],
) -> Result<Vec<Change>, InstallError> {
    each(doc, names, |entry| {
        if entry.contains_key("url") || !entry.contains_key("command") {
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
        let mut new_args = vec![Value::from("proxy")];
        new_args.extend(proxy_args.iter().map(|a| Value::from(a.as_str())));
        new_args.push(Value::from("--"));
        new_args.push(command);
        new_args.extend(args);
        entry.insert("command".into(), Value::from(mcpguard));
        entry.insert("args".into(), Value::Array(new_args));
        Action::Proxied
    })
}

/// Takes the servers `names` names (all, when empty) out from behind the proxy.
pub fn uninstall(doc: &mut Value, names: &[String]) -> Result<Vec<Change>, InstallError> {
    each(doc, names, |entry| {
        if !is_proxied(entry) {
            return Action::NotProxied;
        }
        let args = entry
            .get("args")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let Some(dash) = args.iter().position(|a| a == "--") else {
            return Action::NotProxied;
        };
        let mut rest = args[dash + 1..].to_vec();
        if rest.is_empty() {
            return Action::NotProxied;
        }
        let command = rest.remove(0);
        entry.insert("command".into(), command);
        if rest.is_empty() {
            entry.shift_remove("args");
        } else {
            entry.insert("args".into(), Value::Array(rest));
        }
        Action::Restored
    })
}

/// A server started as `…/mcpguard proxy … -- …`.
fn is_proxied(entry: &Map<String, Value>) -> bool {
    let command = entry.get("command").and_then(Value::as_str).unwrap_or("");
    let program = command.rsplit(['/', '\\']).next().unwrap_or(command);
    let first = entry
        .get("args")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str);
    (program == "mcpguard" || program == "mcpguard.exe") && first == Some("proxy")
}

fn each(
    doc: &mut Value,
    names: &[String],
    mut apply: impl FnMut(&mut Map<String, Value>) -> Action,
) -> Result<Vec<Change>, InstallError> {
    let servers = doc
        .get_mut("mcpServers")
        .and_then(Value::as_object_mut)
        .ok_or(InstallError::NoServers)?;
    let known: Vec<String> = servers.keys().cloned().collect();
    if let Some(name) = names.iter().find(|n| !servers.contains_key(*n)) {
        return Err(InstallError::UnknownServer {
            name: name.clone(),
            known,
        });
    }
    let mut changes = Vec::new();
    for (name, entry) in servers.iter_mut() {
        if !names.is_empty() && !names.contains(name) {
            continue;
        }
        let Some(entry) = entry.as_object_mut() else {
            continue;
        };
        changes.push(Change {
            name: name.clone(),
            action: apply(entry),
        });
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn install_then_uninstall_gives_back_the_original_and_both_are_idempotent() {
        let original = json!({"mcpServers": {
            "git": {"type": "stdio", "command": "uvx", "args": ["mcp-server-git"], "env": {"A": "1"}},
            "bare": {"command": "my-server"},
            "remote": {"type": "http", "url": "https://example.com/mcp"}
        }, "other": true});
        let mut doc = original.clone();
        let changes = install(&mut doc, &[], "/usr/bin/mcpguard", &[]).unwrap();
        let actions: Vec<Action> = changes.iter().map(|c| c.action).collect();
        assert_eq!(
            actions,
            [Action::Proxied, Action::Proxied, Action::SkippedUrl]
        );
        assert_eq!(
            doc["mcpServers"]["git"],
            json!({"type": "stdio", "command": "/usr/bin/mcpguard",
                   "args": ["proxy", "--", "uvx", "mcp-server-git"], "env": {"A": "1"}})
        );
        let once = doc.clone();
        let again = install(&mut doc, &[], "/usr/bin/mcpguard", &[]).unwrap();
        assert!(again.iter().all(|c| !c.action.changed()));
        assert_eq!(doc, once);
        uninstall(&mut doc, &[]).unwrap();
        assert_eq!(doc, original);
        assert!(
            uninstall(&mut doc, &[])
                .unwrap()
                .iter()
                .all(|c| !c.action.changed())
        );
        assert!(matches!(
            install(&mut doc, &["nope".into()], "mcpguard", &[]),
            Err(InstallError::UnknownServer { .. })
        ));
        assert!(matches!(
            install(&mut json!({"servers": {}}), &[], "mcpguard", &[]),
            Err(InstallError::NoServers)
        ));
    }
}
