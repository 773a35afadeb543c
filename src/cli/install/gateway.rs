//! `install --gateway` and its undoing: a client's servers of a list moved into a file of
//! mcpguard's (`~/.config/mcpguard/gateways/`, 0700, its files 0600: they hold the servers'
//! tokens) and replaced by one entry that runs the gateway over it; `uninstall` puts them
//! back. The edit is `mcpguard::install::gateway`'s; this file names the gateway file, keeps
//! what the client's file was, writes both atomically, and re-reads a file its client changed.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use mcpguard::install::clients::Client;
use mcpguard::install::edit::Layout;
use mcpguard::install::gateway::{self, GatherError};
use mcpguard::install::launcher::Launcher;
use mcpguard::util::fsutil::{self, Durability};

use super::super::exit::Code;
use super::{Target, locations, places, read_config, write_config};

/// A gateway file: the servers, in the `mcpServers` shape the gateway reads, and what
/// `uninstall` needs to put them back.
#[derive(Serialize, Deserialize)]
struct Record {
    #[serde(rename = "mcpServers")]
    servers: Map<String, Value>,
    mcpguard: Installed,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Installed {
    /// The client's file and where in it the servers were.
    file: PathBuf,
    layout: String,
    /// The key of the gateway's entry there.
    key: String,
    /// The file's text before `install --gateway`, and after it: given back byte for byte
    /// when the file is still as mcpguard left it.
    before: String,
    after: String,
}

/// Where the gateway file of a client's list goes: the user's config folder, named by the
/// list's file and place in it.
fn record_path(path: &Path, layout: &Layout) -> anyhow::Result<PathBuf> {
    let places = places()?;
    let config = places
        .xdg_config_home
        .clone()
        .unwrap_or_else(|| places.home.join(".config"));
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut hash = Sha256::new();
    hash.update(absolute.to_string_lossy().as_bytes());
    hash.update([0]);
    hash.update(layout.shown().as_bytes());
    let digest: String = hash
        .finalize()
        .iter()
        .take(6)
        .map(|b| format!("{b:02x}"))
        .collect();
    let stem: String = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    Ok(config
        .join("mcpguard")
        .join("gateways")
        .join(format!("{}-{digest}.json", stem.trim_matches('-'))))
}

/// The longest name a client accepts for a tool (Claude Desktop's and the API's pattern).
const CLIENT_NAME_MAX: usize = 64;

/// Whether the list is Claude Code's, which names each MCP tool `mcp__ENTRY__TOOL` (2.1.330:
/// `(e,o)=>`mcp__${xn(e)}__${o}``, the entry's key reduced to `[a-zA-Z0-9_-]`, nothing cut):
/// `--client claude-code`, or a project's `.mcp.json`.
fn claude_code_list(target: &Target, path: &Path) -> bool {
    target.client.as_deref() == Some(Client::ClaudeCode.name())
        || path.file_name().is_some_and(|n| n == ".mcp.json")
}

/// The longest name the gateway may give a tool so that Claude Code's whole name for it, under
/// the entry `key`, stays within [`CLIENT_NAME_MAX`].
fn names_room_under(key: &str) -> usize {
    CLIENT_NAME_MAX - format!("mcp__{key}__").len()
}

/// `install --gateway`: each list's chosen servers behind one gateway entry.
pub fn install(
    target: &Target,
    mcpguard: &Launcher,
    proxy_args: &[String],
) -> anyhow::Result<Code> {
    let lists = locations(target)?;
    let mut out = std::io::stdout().lock();
    for (label, path, layout) in &lists {
        let name = path.display().to_string();
        let record_file = record_path(path, layout)?;
        if record_file.exists() {
            writeln!(
                out,
                "{label}: already behind the gateway ({}); `mcpguard uninstall` first to change it",
                record_file.display()
            )?;
            continue;
        }
        let mut args = mcpguard::install::edit::proxy_start(mcpguard, &[]);
        args.push(Value::from("--mcp-config"));
        args.push(Value::from(record_file.display().to_string()));
        args.extend(proxy_args.iter().map(|a| Value::from(a.as_str())));
        let prefixed = claude_code_list(target, path);
        let entry = |key: &str| {
            let mut entry = Map::new();
            entry.insert("command".into(), Value::from(mcpguard.command.as_str()));
            entry.insert("args".into(), Value::Array(args.clone()));
            if prefixed {
                let room = names_room_under(key);
                entry.insert(
                    "env".into(),
                    serde_json::json!({ "MCPGUARD_MAX_TOOL_NAME_LENGTH": room.to_string() }),
                );
            }
            entry
        };
        let gather = |text: &str| match gateway::gather(text, layout, &target.names, &entry) {
            Ok(g) => Ok(Some(g)),
            Err(GatherError::Nothing) => Ok(None),
            Err(GatherError::File(e)) => Err(super::in_file(&name, &e)),
            Err(e) => Err(anyhow::anyhow!("{name}: {e}")),
        };
        let mut text = read_config(path)?;
        let Some(mut gathered) = gather(&text)? else {
            writeln!(out, "{label}: no servers; nothing to change")?;
            continue;
        };
        let names: Vec<&str> = gathered.servers.iter().map(|(n, _)| n.as_str()).collect();
        let said = format!(
            "{} servers ({}) now start behind one gateway: {} proxy --mcp-config {}",
            names.len(),
            names.join(", "),
            mcpguard.display(),
            record_file.display()
        );
        if target.dry_run {
            writeln!(out, "{label}: {said}\n{name}: not written (--dry-run)")?;
            continue;
        }
        // The client may have rewritten its file meanwhile: the edit is made on what is there.
        for _ in 0..5 {
            let now = read_config(path)?;
            if now == text {
                break;
            }
            text = now;
            gathered = gather(&text)?.context("the servers went while mcpguard worked")?;
        }
        let record = Record {
            servers: gathered.servers.iter().cloned().collect(),
            mcpguard: Installed {
                file: std::path::absolute(path).unwrap_or_else(|_| path.clone()),
                layout: layout.shown(),
                key: gathered.key.clone(),
                before: text.clone(),
                after: gathered.text.clone(),
            },
        };
        // The servers are safe in the gateway's file before they leave the client's.
        let dir = record_file.parent().expect("a file in a folder");
        fsutil::create_private_dir_all(dir)
            .and_then(|()| fsutil::keep_private(dir, 0o700))
            .with_context(|| format!("{}: cannot create", dir.display()))?;
        let bytes = serde_json::to_vec_pretty(&record)?;
        fsutil::write_with(&record_file, &bytes, Durability::Private)
            .with_context(|| format!("{}: cannot write", record_file.display()))?;
        if let Err(e) = write_config(path, &text, &gathered.text) {
            let _ = std::fs::remove_file(&record_file);
            return Err(e);
        }
        writeln!(out, "{label}: {said}")?;
    }
    Ok(Code::Ok)
}

/// The gateway installs among the target's lists undone: their servers back where the
/// gateway's entry was (the file byte for byte as it was, when nobody else wrote it since).
/// Says what it did; the lists without one are left to the rest of `uninstall`.
pub fn uninstall(target: &Target) -> anyhow::Result<()> {
    let lists = locations(target)?;
    let mut out = std::io::stdout().lock();
    for (label, path, layout) in &lists {
        let record_file = record_path(path, layout)?;
        let Ok(text) = fsutil::read_text_capped(&record_file, fsutil::MAX_CLIENT_CONFIG_BYTES)
        else {
            continue;
        };
        let record: Record = serde_json::from_str(&text).with_context(|| {
            format!(
                "{}: not a gateway file of mcpguard's",
                record_file.display()
            )
        })?;
        let servers: Vec<(String, Value)> = record.servers.into_iter().collect();
        let names: Vec<&str> = servers.iter().map(|(n, _)| n.as_str()).collect();
        let said = format!(
            "{} servers ({}) start on their own again",
            names.len(),
            names.join(", ")
        );
        if target.dry_run {
            writeln!(
                out,
                "{label}: {said}\n{}: not written (--dry-run)",
                path.display()
            )?;
            continue;
        }
        let now = read_config(path)?;
        let back = if now == record.mcpguard.after {
            Some(record.mcpguard.before.clone())
        } else {
            gateway::scatter(&now, layout, &record.mcpguard.key, &servers)
                .map_err(|e| super::in_file(&path.display().to_string(), &e))?
        };
        match back {
            Some(back) => {
                write_config(path, &now, &back)?;
                writeln!(out, "{label}: {said}")?;
            }
            None => writeln!(
                out,
                "{label}: the gateway's entry `{}` is gone from the file; its servers are kept in {}",
                record.mcpguard.key,
                record_file.display()
            )?,
        }
        if back_written(path, &record.mcpguard.key, layout)? {
            std::fs::remove_file(&record_file)
                .with_context(|| format!("{}: cannot remove", record_file.display()))?;
        }
    }
    Ok(())
}

/// Whether the gateway's entry is out of the client's file now.
fn back_written(path: &Path, key: &str, layout: &Layout) -> anyhow::Result<bool> {
    let text = read_config(path)?;
    Ok(gateway::scatter(&text, layout, key, &[])
        .ok()
        .flatten()
        .is_none())
}
