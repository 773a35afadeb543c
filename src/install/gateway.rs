//! `install --gateway`: a client's servers of one list gathered behind one gateway entry
//! (`mcpguard proxy --mcp-config FILE`, FILE holding them), and scattered back by
//! `uninstall`. Pure, as [`super::edit`] is: text in, text out, through the same syntax tree
//! that keeps every other byte of the file. The servers go back where the gateway entry
//! stands, in their order; the CLI keeps the file's text from before, and gives it back byte
//! for byte when nobody else wrote the file since.

use serde_json::{Map, Value};

use super::edit::{
    InstallError, Layout, check_names, cst_value, is_proxied, parse_root, servers_object,
};

/// The key of the gateway's entry, unless the list has a server of that name.
pub const KEY: &str = "mcpguard";

/// What [`gather`] did.
#[derive(Debug, PartialEq)]
pub struct Gathered {
    /// The file's new text.
    pub text: String,
    /// The key the gateway's entry got.
    pub key: String,
    /// The servers taken out, in the file's order, as the file wrote them.
    pub servers: Vec<(String, Value)>,
}

/// Why servers cannot be gathered.
#[derive(Debug, thiserror::Error)]
pub enum GatherError {
    #[error(transparent)]
    File(#[from] InstallError),
    #[error(
        "{0} starts through mcpguard proxy already; run `mcpguard uninstall` first, then install --gateway"
    )]
    Proxied(String),
    #[error("no servers to put behind the gateway")]
    Nothing,
    #[error("--gateway edits JSON server lists; {0} is TOML (Codex): install without --gateway")]
    Toml(String),
}

/// Takes the servers `names` names (all, when empty) out of the list at `layout` in `text`, and
/// puts one entry in the first one's place: `entry` of its key, [`KEY`] (or `mcpguard-gateway`
/// when a server keeps that name).
pub fn gather(
    text: &str,
    layout: &Layout,
    names: &[String],
    entry: &dyn Fn(&str) -> Map<String, Value>,
) -> Result<Gathered, GatherError> {
    let Layout::Json(path) = layout else {
        return Err(GatherError::Toml(layout.shown()));
    };
    let root = parse_root(text)?;
    let servers = servers_object(&root, path, layout)?;
    let props = servers.properties();
    let known: Vec<String> = props.iter().filter_map(|p| p.decoded_name()).collect();
    check_names(&known, names)?;
    let mut taken = Vec::new();
    let mut first = None;
    for (index, prop) in props.iter().enumerate() {
        let Some(name) = prop.decoded_name() else {
            continue;
        };
        if !names.is_empty() && !names.contains(&name) {
            continue;
        }
        let Some(Value::Object(server)) = prop.object_value().and_then(|o| o.to_serde_value())
        else {
            continue;
        };
        if is_proxied(&server) {
            return Err(GatherError::Proxied(name));
        }
        first.get_or_insert(index);
        taken.push((name, Value::Object(server), prop.clone()));
    }
    let Some(first) = first else {
        return Err(GatherError::Nothing);
    };
    let key = if known
        .iter()
        .any(|k| k == KEY && !taken.iter().any(|(n, ..)| n == KEY))
    {
        format!("{KEY}-gateway")
    } else {
        KEY.to_owned()
    };
    for (.., prop) in &taken {
        prop.clone().remove();
    }
    servers.insert(first, &key, cst_value(&Value::Object(entry(&key))));
    Ok(Gathered {
        text: root.to_string(),
        key,
        servers: taken.into_iter().map(|(n, v, _)| (n, v)).collect(),
    })
}

/// Takes the gateway's entry `key` out of the list at `layout` in `text` and puts `servers`
/// in its place, in their order. A file without the entry is given back as it is (`None`).
pub fn scatter(
    text: &str,
    layout: &Layout,
    key: &str,
    servers: &[(String, Value)],
) -> Result<Option<String>, InstallError> {
    let Layout::Json(path) = layout else {
        return Ok(None);
    };
    let root = parse_root(text)?;
    let list = servers_object(&root, path, layout)?;
    let props = list.properties();
    let Some(at) = props
        .iter()
        .position(|p| p.decoded_name().as_deref() == Some(key))
    else {
        return Ok(None);
    };
    props[at].clone().remove();
    for (i, (name, server)) in servers.iter().enumerate() {
        list.insert(at + i, name, cst_value(server));
    }
    Ok(Some(root.to_string()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const FILE: &str = r#"{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}
    },
    "linear": {"type": "http", "url": "https://mcp.linear.app/mcp"},
    "time": {"command": "uvx", "args": ["mcp-server-time"]}
  },
  "other": true
}
"#;

    fn mcp() -> Layout {
        Layout::Json(vec!["mcpServers".into()])
    }

    /// The entry of a key: its key among its arguments, so a test sees which it was given.
    fn entry() -> impl Fn(&str) -> Map<String, Value> {
        |key: &str| {
            json!({"command": "/usr/bin/mcpguard", "args": ["proxy", "--mcp-config", "/g.json", key]})
                .as_object()
                .unwrap()
                .clone()
        }
    }

    #[test]
    fn servers_gathered_behind_one_entry_come_back_in_their_place_and_order() {
        let gathered = gather(FILE, &mcp(), &[], &entry()).unwrap();
        let after: Value = serde_json::from_str(&gathered.text).unwrap();
        assert_eq!(
            after,
            json!({"mcpServers": {"mcpguard": entry()("mcpguard")}, "other": true})
        );
        let names: Vec<&str> = gathered.servers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["github", "linear", "time"]);
        let back = scatter(&gathered.text, &mcp(), "mcpguard", &gathered.servers)
            .unwrap()
            .unwrap();
        let before: Value = serde_json::from_str(FILE).unwrap();
        let restored: Value = serde_json::from_str(&back).unwrap();
        assert_eq!(restored, before);
        let keys: Vec<String> = restored["mcpServers"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["github", "linear", "time"]);
        // Nothing more to scatter: the file is left as it is.
        assert_eq!(scatter(&back, &mcp(), "mcpguard", &[]).unwrap(), None);
    }

    #[test]
    fn some_servers_only_and_the_rest_stays_where_it_was() {
        let gathered = gather(FILE, &mcp(), &["time".into(), "github".into()], &entry()).unwrap();
        let after: Value = serde_json::from_str(&gathered.text).unwrap();
        let keys: Vec<&String> = after["mcpServers"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["mcpguard", "linear"]);
        assert!(
            gathered
                .text
                .contains(r#""linear": {"type": "http", "url": "https://mcp.linear.app/mcp"}"#)
        );
    }

    #[test]
    fn what_cannot_be_gathered_says_why() {
        let proxied =
            r#"{"mcpServers": {"a": {"command": "mcpguard", "args": ["proxy", "--", "x"]}}}"#;
        assert!(matches!(
            gather(proxied, &mcp(), &[], &entry()),
            Err(GatherError::Proxied(n)) if n == "a"
        ));
        assert!(matches!(
            gather(r#"{"mcpServers": {}}"#, &mcp(), &[], &entry()),
            Err(GatherError::Nothing)
        ));
        assert!(matches!(
            gather(FILE, &mcp(), &["nope".into()], &entry()),
            Err(GatherError::File(InstallError::UnknownServer { .. }))
        ));
        let named = r#"{"mcpServers": {"mcpguard": {"command": "x"}, "b": {"command": "y"}}}"#;
        let gathered = gather(named, &mcp(), &["b".into()], &entry()).unwrap();
        assert_eq!(gathered.key, "mcpguard-gateway");
        let after: Value = serde_json::from_str(&gathered.text).unwrap();
        assert_eq!(
            after["mcpServers"]["mcpguard-gateway"],
            json!(entry()("mcpguard-gateway"))
        );
    }
}
