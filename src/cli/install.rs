//! `mcpguard install` and `mcpguard uninstall`: a client's MCP config rewritten so its servers
//! start through `mcpguard proxy`, and back. The rewrite itself is `mcpguard::proxy::install`;
//! this file finds the file, keeps a backup and writes atomically.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use serde_json::Value;

use mcpguard::proxy::install::{self, Change};

use super::exit::Code;

const INSTALL_HELP: &str = "\
Each chosen stdio server's command becomes `mcpguard proxy -- COMMAND ARGS`; its env, type and
every other member stay as they are, and so does the rest of the file. A server already behind
the proxy is left alone, so running it twice changes nothing; URL (Streamable HTTP) servers are
skipped. Before the file changes, its current content is copied to FILE.mcpguard-backup; the new
content is written to a temporary file and renamed over it, so the file is never half-written.
Restart the client (or run `claude mcp list`) to pick it up; `mcpguard uninstall` undoes it.

Examples:
  mcpguard install                               # every server in ./.mcp.json
  mcpguard install --name github --name git      # just these
  mcpguard install --claude-desktop
  mcpguard install .mcp.json -- --shadow --metrics calls.jsonl   # proxy flags, after --";

const UNINSTALL_HELP: &str = "\
Each chosen server behind the proxy gets its own command back (what followed `--`); servers not
behind it are left alone. The file is backed up and written atomically, as by `install`.

Examples:
  mcpguard uninstall
  mcpguard uninstall --claude-desktop --name filesystem";

/// Where the client's config is.
#[derive(Debug, clap::Args)]
pub struct Target {
    /// The config file. Default: .mcp.json in the working directory (Claude Code's project
    /// servers).
    #[arg(value_name = "FILE", conflicts_with = "claude_desktop")]
    pub file: Option<PathBuf>,

    /// Claude Desktop's config (claude_desktop_config.json in its place for this system).
    #[arg(long)]
    pub claude_desktop: bool,

    /// Only this server (repeatable). Default: every server in the file.
    #[arg(long = "name", value_name = "NAME")]
    pub names: Vec<String>,

    /// Say what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, clap::Args)]
#[command(after_help = INSTALL_HELP)]
pub struct InstallArgs {
    #[command(flatten)]
    pub target: Target,

    /// The command that starts mcpguard in the config. Default: this mcpguard's full path
    /// (clients such as Claude Desktop start servers without your shell's PATH).
    #[arg(long, value_name = "COMMAND")]
    pub mcpguard: Option<String>,

    /// Flags for `mcpguard proxy`, after `--`.
    #[arg(last = true, value_name = "PROXY FLAGS")]
    pub proxy_args: Vec<String>,
}

#[derive(Debug, clap::Args)]
#[command(after_help = UNINSTALL_HELP)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub target: Target,
}

pub fn install(args: InstallArgs) -> anyhow::Result<Code> {
    let mcpguard = match args.mcpguard {
        Some(c) => c,
        None => std::env::current_exe()
            .context("cannot tell where this mcpguard is; pass --mcpguard COMMAND")?
            .display()
            .to_string(),
    };
    rewrite(&args.target, |doc, names| {
        install::install(doc, names, &mcpguard, &args.proxy_args)
    })
}

pub fn uninstall(args: UninstallArgs) -> anyhow::Result<Code> {
    rewrite(&args.target, install::uninstall)
}

fn rewrite(
    target: &Target,
    apply: impl FnOnce(&mut Value, &[String]) -> Result<Vec<Change>, install::InstallError>,
) -> anyhow::Result<Code> {
    let path = match (&target.file, target.claude_desktop) {
        (Some(f), _) => f.clone(),
        (None, true) => claude_desktop_config()?,
        (None, false) => PathBuf::from(".mcp.json"),
    };
    let name = path.display().to_string();
    let text = std::fs::read_to_string(&path).with_context(|| format!("{name}: cannot read"))?;
    let mut doc: Value = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{name}:{}:{}: not JSON: {e}; fix the file first (nothing was changed)",
            e.line(),
            e.column()
        )
    })?;
    let changes = apply(&mut doc, &target.names).with_context(|| name.clone())?;
    let mut out = std::io::stdout().lock();
    for c in &changes {
        writeln!(out, "{}: {}", c.name, c.action.describe())?;
    }
    if !changes.iter().any(|c| c.action.changed()) {
        writeln!(out, "{name}: nothing to change")?;
        return Ok(Code::Ok);
    }
    if target.dry_run {
        writeln!(out, "{name}: not written (--dry-run)")?;
        return Ok(Code::Ok);
    }
    let mut backup = path.clone().into_os_string();
    backup.push(".mcpguard-backup");
    let backup = PathBuf::from(backup);
    mcpguard::fsutil::write_atomic(&backup, text.as_bytes())
        .with_context(|| format!("{}: cannot write the backup", backup.display()))?;
    let mut new = serde_json::to_string_pretty(&doc)?;
    new.push('\n');
    mcpguard::fsutil::write_atomic(&path, new.as_bytes())
        .with_context(|| format!("{name}: cannot write"))?;
    writeln!(
        out,
        "{name}: written (the previous content is in {})",
        backup.display()
    )?;
    Ok(Code::Ok)
}

/// Where Claude Desktop keeps its config on this system.
fn claude_desktop_config() -> anyhow::Result<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let path = if cfg!(target_os = "macos") {
        home.map(|h| h.join("Library/Application Support/Claude/claude_desktop_config.json"))
    } else if cfg!(windows) {
        std::env::var_os("APPDATA")
            .map(|a| PathBuf::from(a).join("Claude/claude_desktop_config.json"))
    } else {
        std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| home.map(|h| h.join(".config")))
            .map(|c| c.join("Claude/claude_desktop_config.json"))
    };
    path.context("cannot tell where Claude Desktop's config is (no HOME); name the file instead")
}
