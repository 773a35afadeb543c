//! Client server lists: the `mcpServers` object that Claude Desktop
//! (`claude_desktop_config.json`), Claude Code (`.mcp.json`), Cursor and others use.
//!
//! A server is `{command, args, env}` (stdio) or `{type: "http", url, headers}` (Streamable
//! HTTP; `streamable-http` and `streamableHttp` are accepted spellings, and an entry with a
//! `url` and no `type` is HTTP). `${VAR}` and `${VAR:-default}` are expanded from the
//! environment in commands, arguments, env values, URLs and headers, as Claude Code does; a
//! value that came from the environment is never printed.

use std::collections::BTreeMap;

use serde_json::Value;

use super::Target;

/// One server of a client config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server {
    pub name: String,
    pub target: Target,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{file}: not JSON: {cause}")]
    Json { file: String, cause: String },
    #[error(
        "{file}: no `mcpServers` object; expected {{\"mcpServers\": {{\"NAME\": {{\"command\": ...}}}}}}"
    )]
    NoServers { file: String },
    #[error("{file}: mcpServers.{name}: {why}")]
    Server {
        file: String,
        name: String,
        why: String,
    },
    #[error("{file}: no server named `{name}`; it has: {known}")]
    UnknownName {
        file: String,
        name: String,
        known: String,
    },
}

/// The servers in a config file's text, in the file's order; only `name` if given.
pub fn parse(
    file: &str,
    text: &str,
    name: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Server>, ConfigError> {
    let value: Value = serde_json::from_str(text).map_err(|e| ConfigError::Json {
        file: file.to_owned(),
        cause: e.to_string(),
    })?;
    let Some(servers) = value.get("mcpServers").and_then(Value::as_object) else {
        return Err(ConfigError::NoServers {
            file: file.to_owned(),
        });
    };
    if let Some(wanted) = name
        && !servers.contains_key(wanted)
    {
        return Err(ConfigError::UnknownName {
            file: file.to_owned(),
            name: wanted.to_owned(),
            known: servers.keys().cloned().collect::<Vec<_>>().join(", "),
        });
    }
    servers
        .iter()
        .filter(|(n, _)| name.is_none_or(|w| w == n.as_str()))
        .map(|(n, entry)| {
            let fail = |why: String| ConfigError::Server {
                file: file.to_owned(),
                name: n.clone(),
                why,
            };
            server(n, entry, env).map_err(fail)
        })
        .collect()
}

fn server(
    name: &str,
    entry: &Value,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Server, String> {
    let expand = |key: &str, text: &str| {
        expand(text, env).map_err(|var| format!("{key}: ${{{var}}} is not set in the environment (give it a value or a default: ${{{var}:-default}})"))
    };
    let kind = entry.get("type").and_then(Value::as_str);
    let url = entry.get("url").and_then(Value::as_str);
    let target = match (kind, url) {
        (Some("http" | "streamable-http" | "streamableHttp"), Some(url)) | (None, Some(url)) => {
            let mut headers = Vec::new();
            if let Some(map) = entry.get("headers").and_then(Value::as_object) {
                for (k, v) in map {
                    let v = v
                        .as_str()
                        .ok_or_else(|| format!("headers.{k}: expected a string"))?;
                    headers.push((k.clone(), expand(&format!("headers.{k}"), v)?));
                }
            }
            let expanded = expand("url", url)?;
            Target::Http {
                shown: (expanded != url).then(|| url.to_owned()),
                url: expanded,
                headers,
            }
        }
        (Some("sse"), _) => {
            return Err("the legacy SSE transport is not supported; use the server's Streamable HTTP endpoint (type http)".into());
        }
        (Some(other), _) if other != "stdio" => {
            return Err(format!(
                "unknown type `{other}`; expected stdio or http (with a url)"
            ));
        }
        _ => {
            let command = entry
                .get("command")
                .and_then(Value::as_str)
                .ok_or("expected `command` (stdio) or `url` (http)")?;
            let mut argv = vec![expand("command", command)?];
            let mut written = vec![command];
            if let Some(args) = entry.get("args") {
                let args = args.as_array().ok_or("args: expected a list of strings")?;
                for (i, a) in args.iter().enumerate() {
                    let a = a
                        .as_str()
                        .ok_or_else(|| format!("args[{i}]: expected a string"))?;
                    argv.push(expand(&format!("args[{i}]"), a)?);
                    written.push(a);
                }
            }
            let shown = (argv.iter().zip(&written).any(|(x, w)| x != w)).then(|| {
                shlex::try_join(written.iter().copied()).unwrap_or_else(|_| written.join(" "))
            });
            let mut vars = BTreeMap::new();
            if let Some(map) = entry.get("env").and_then(Value::as_object) {
                for (k, v) in map {
                    let v = v
                        .as_str()
                        .ok_or_else(|| format!("env.{k}: expected a string"))?;
                    vars.insert(k.clone(), expand(&format!("env.{k}"), v)?);
                }
            }
            Target::Stdio {
                command: argv,
                env: vars,
                shown,
            }
        }
    };
    Ok(Server {
        name: name.to_owned(),
        target,
    })
}

/// `${VAR}` and `${VAR:-default}` replaced from `env`; the name of a missing variable is the
/// error.
pub fn expand(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (var, default) = match inner.split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (inner, None),
        };
        match (env(var), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(d)) => out.push_str(d),
            (None, None) => return Err(var.to_owned()),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(var: &str) -> Option<String> {
        (var == "TOKEN").then(|| "s3cret".to_owned())
    }

    #[test]
    fn reads_both_kinds_in_file_order() {
        let text = r#"{"mcpServers": {
            "files": {"command": "npx", "args": ["-y", "server-fs", "${HOME_DIR:-/tmp}"], "env": {"KEY": "${TOKEN}"}},
            "remote": {"type": "http", "url": "http://127.0.0.1:3001/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
        }}"#;
        let servers = parse(".mcp.json", text, None, &env).unwrap();
        assert_eq!(servers.len(), 2);
        assert_eq!(
            servers[0].target,
            Target::Stdio {
                command: vec!["npx".into(), "-y".into(), "server-fs".into(), "/tmp".into()],
                env: BTreeMap::from([("KEY".into(), "s3cret".into())]),
                shown: Some("npx -y server-fs '${HOME_DIR:-/tmp}'".into()),
            }
        );
        assert_eq!(
            servers[1].target,
            Target::Http {
                url: "http://127.0.0.1:3001/mcp".into(),
                headers: vec![("Authorization".into(), "Bearer s3cret".into())],
                shown: None,
            }
        );
        assert_eq!(
            parse(".mcp.json", text, Some("remote"), &env)
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn errors_name_the_server_and_never_a_value() {
        let text = r#"{"mcpServers": {"a": {"command": "x", "env": {"K": "${MISSING}"}}}}"#;
        let e = parse("c.json", text, None, &env).unwrap_err().to_string();
        assert!(
            e.starts_with("c.json: mcpServers.a: env.K: ${MISSING} is not set"),
            "{e}"
        );
        let e = parse("c.json", text, Some("b"), &env)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "c.json: no server named `b`; it has: a");
        let e = parse("c.json", r#"{"servers": {}}"#, None, &env).unwrap_err();
        assert!(matches!(e, ConfigError::NoServers { .. }));
        let sse = r#"{"mcpServers": {"old": {"type": "sse", "url": "http://x/sse"}}}"#;
        assert!(
            parse("c.json", sse, None, &env)
                .unwrap_err()
                .to_string()
                .contains("legacy SSE")
        );
    }
}
