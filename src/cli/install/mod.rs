//! `mcpguard install` and `mcpguard uninstall`: a client's MCP config rewritten so its servers
//! start through `mcpguard proxy`, and back, in whichever client's file and scope; `install
//! --list` shows every client config on this machine. The rewrite itself is
//! `mcpguard::install::edit`, where each client keeps its servers `mcpguard::install::clients`;
//! this file finds the files, keeps a backup, writes atomically and re-reads a file that its
//! client changed meanwhile; [`gateway`] does the same for `install --gateway`.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use mcpguard::install::clients::{self, Client, Location, Os, Places, Scope};
use mcpguard::install::edit::{self, Layout, Op};
use mcpguard::install::launcher::Launcher;

use super::exit::Code;

mod gateway;

const INSTALL_HELP: &str = "\
Each chosen stdio server's command becomes `mcpguard proxy -- COMMAND ARGS`. Only `command` and
`args` change, in place: every other byte of the file stays as it was (key order, spacing,
comments in VS Code's JSONC and Codex's TOML), and `uninstall` gives the file back. A remote
server ({\"type\": \"http\", \"url\": ...} and its headers) becomes the stdio bridge
`mcpguard proxy --url URL`, which signs in with OAuth the first time the server asks (or after
`mcpguard auth login --url URL`); servers on the old SSE transport and Codex's remote tables
are left as they are. A server already behind the proxy is left alone, so running it twice
changes nothing. Before a file changes, its content is copied to FILE.mcpguard-backup; the
new content goes to a temporary file renamed over it, so a file is never half-written. A file
the client rewrote meanwhile (Claude Code rewrites ~/.claude.json while it runs) is read again
and the edit made on what is there now, so none of the client's changes is lost.

Where the servers are (--client, with --scope):
  claude-code     local (default: this project's in ~/.claude.json), user (~/.claude.json),
                  project (./.mcp.json), all; where `claude mcp add --scope` puts them
  claude-desktop  claude_desktop_config.json in its place for this system
  cursor          ~/.cursor/mcp.json (user), .cursor/mcp.json (project)
  vscode          .vscode/mcp.json (project), Code/User/mcp.json (user); `servers`, JSONC
  codex           ~/.codex/config.toml (user, or $CODEX_HOME), .codex/config.toml (project)
  gemini          ~/.gemini/settings.json (user), .gemini/settings.json (project)
  windsurf        ~/.codeium/windsurf/mcp_config.json
Other clients default to every scope whose file exists. Restart the client (or run
`claude mcp list`) to pick it up; `mcpguard uninstall` undoes it.

With --gateway, a list's chosen servers leave it for a file of mcpguard's
(~/.config/mcpguard/gateways/, private) and one entry, `mcpguard`, runs the gateway over them
(`mcpguard proxy --mcp-config FILE`: one process, tools named SERVER__TOOL, servers started on
first use). `mcpguard uninstall` puts them back where that entry was, in their order: the file
byte for byte as it was when nothing else wrote it since.

Examples:
  mcpguard install --client claude-code                 # this project's servers (local scope)
  mcpguard install --client claude-code --scope all
  mcpguard install --list                               # every client config on this machine
  mcpguard install --client cursor --name github --dry-run
  mcpguard install --client claude-code --gateway       # all of them behind one gateway
  mcpguard install                                      # every server in ./.mcp.json
  mcpguard install ~/my-client.json -- --shadow --metrics calls.jsonl   # proxy flags after --";

const UNINSTALL_HELP: &str = "\
Each chosen server behind the proxy gets its own command back (what followed `--`); servers not
behind it are left alone. Files are backed up and written atomically, as by `install`.

Examples:
  mcpguard uninstall --client claude-code --scope all
  mcpguard uninstall --claude-desktop --name filesystem";

/// Where the client's config is.
#[derive(Debug, clap::Args)]
pub struct Target {
    /// A config file in the `mcpServers` shape (or VS Code's `servers`, or a TOML file with
    /// `[mcp_servers.NAME]` tables). Default: .mcp.json in the working directory.
    #[arg(value_name = "FILE", conflicts_with_all = ["claude_desktop", "client"])]
    pub file: Option<PathBuf>,

    /// The client whose servers to change, where it keeps them.
    #[arg(long, value_name = "CLIENT",
          value_parser = clap::builder::PossibleValuesParser::new(Client::ALL.map(Client::name)))]
    pub client: Option<String>,

    /// Which of the client's server lists. Default: local for claude-code (as `claude mcp
    /// add`), every one whose file exists for the others.
    #[arg(long, value_name = "SCOPE", requires = "client",
          value_parser = clap::builder::PossibleValuesParser::new(Scope::ALL.map(Scope::name)))]
    pub scope: Option<String>,

    /// Claude Desktop's config (the same as --client claude-desktop).
    #[arg(long, conflicts_with = "client")]
    pub claude_desktop: bool,

    /// Only this server (repeatable). Default: every server in the list.
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

    /// List every client config found on this machine (for this directory's project too),
    /// its servers, and which are behind the proxy; change nothing.
    #[arg(long, conflicts_with_all = ["file", "names", "dry_run"])]
    pub list: bool,

    /// With --list: table or json.
    #[arg(long, value_name = "FORMAT", default_value = "table", requires = "list",
          value_parser = ["table", "json"])]
    pub format: String,

    /// The command that starts mcpguard in the config (`"npx -y mcpguard"` splits as a shell
    /// would). Default: this mcpguard's full path (clients such as Claude Desktop start servers
    /// without your shell's PATH), or `npx -y mcpguard` / `uvx mcpguard` when this mcpguard
    /// runs from npx's or uvx's cache, which may be emptied.
    #[arg(long, value_name = "COMMAND")]
    pub mcpguard: Option<String>,

    /// Put the chosen servers of each list behind one gateway entry (`mcpguard proxy
    /// --mcp-config FILE`, the servers moved to FILE in ~/.config/mcpguard/gateways/), rather
    /// than each behind a proxy of its own. `uninstall` puts them back.
    #[arg(long, conflicts_with = "list")]
    pub gateway: bool,

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
    if args.list {
        return list(&args.format);
    }
    let mcpguard = match &args.mcpguard {
        Some(line) => Launcher::parse(line).with_context(|| {
            format!("--mcpguard {line:?}: not a command (empty, or a quote left open)")
        })?,
        None => Launcher::for_binary(
            &std::env::current_exe()
                .context("cannot tell where this mcpguard is; pass --mcpguard COMMAND")?,
        ),
    };
    if args.gateway {
        return gateway::install(&args.target, &mcpguard, &args.proxy_args);
    }
    let op = Op::Install {
        mcpguard: &mcpguard,
        proxy_args: &args.proxy_args,
    };
    rewrite(&args.target, &op)
}

pub fn uninstall(args: UninstallArgs) -> anyhow::Result<Code> {
    gateway::uninstall(&args.target)?;
    rewrite(&args.target, &Op::Uninstall)
}

/// A client's config file's text.
fn read_config(path: &Path) -> anyhow::Result<String> {
    mcpguard::util::fsutil::read_text_capped(path, mcpguard::util::fsutil::MAX_CLIENT_CONFIG_BYTES)
        .with_context(|| format!("{}: cannot read", path.display()))
}

/// Writes `new` over a client's config file whose text was `old`: `old` kept in
/// FILE.mcpguard-backup, both as private as the file (it holds tokens), the file replaced
/// atomically, through a link to the file it points at.
fn write_config(path: &Path, old: &str, new: &str) -> anyhow::Result<PathBuf> {
    let name = path.display().to_string();
    let mut backup = path.to_path_buf().into_os_string();
    backup.push(".mcpguard-backup");
    let backup = PathBuf::from(backup);
    let like = std::fs::metadata(path).with_context(|| format!("{name}: cannot read"))?;
    mcpguard::util::fsutil::write_like(&backup, old.as_bytes(), &like)
        .with_context(|| format!("{}: cannot write the backup", backup.display()))?;
    mcpguard::util::fsutil::rewrite_keeping(path, new.as_bytes())
        .with_context(|| format!("{name}: cannot write (nothing was changed)"))?;
    Ok(backup)
}

/// Where this machine keeps things, from the environment.
fn places() -> anyhow::Result<Places> {
    let var = |name: &str| std::env::var_os(name).map(PathBuf::from);
    let home = var("HOME")
        .or_else(|| var("USERPROFILE"))
        .context("cannot tell where your home directory is (no HOME); name the file instead")?;
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    // Claude Code's project: the git repository around the directory, else the directory.
    let project_root = cwd
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(&cwd)
        .to_path_buf();
    Ok(Places {
        home,
        cwd,
        project_root,
        os: if cfg!(target_os = "macos") {
            Os::MacOs
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        },
        claude_config_dir: var("CLAUDE_CONFIG_DIR"),
        codex_home: var("CODEX_HOME"),
        xdg_config_home: var("XDG_CONFIG_HOME"),
        appdata: var("APPDATA"),
    })
}

/// The server lists a target names: a file, a client's scope(s), or ./.mcp.json.
fn locations(target: &Target) -> anyhow::Result<Vec<(String, PathBuf, Layout)>> {
    let client = match (&target.client, target.claude_desktop) {
        (Some(name), _) => Client::parse(name),
        (None, true) => Some(Client::ClaudeDesktop),
        (None, false) => None,
    };
    let Some(client) = client else {
        let path = target
            .file
            .clone()
            .unwrap_or_else(|| PathBuf::from(".mcp.json"));
        let layout = layout_of(&path);
        return Ok(vec![(path.display().to_string(), path, layout)]);
    };
    let scope = target
        .scope
        .as_deref()
        .and_then(Scope::parse)
        .unwrap_or_else(|| clients::default_scope(client));
    let places = places()?;
    let all = places.locations(client, scope);
    if all.is_empty() {
        anyhow::bail!(
            "{} has no {} scope; it keeps its servers in: {}",
            client.name(),
            scope.name(),
            places
                .locations(client, Scope::All)
                .iter()
                .map(|l| format!("{} ({})", l.path.display(), l.scope.name()))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let found: Vec<&Location> = all.iter().filter(|l| l.path.is_file()).collect();
    if found.is_empty() {
        anyhow::bail!(
            "{}: no config found; looked at {}",
            client.name(),
            all.iter()
                .map(|l| l.path.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(found
        .into_iter()
        .map(|l| {
            let label = format!(
                "{} ({} scope, {} in {})",
                client.name(),
                l.scope.name(),
                l.layout.shown(),
                l.path.display()
            );
            (label, l.path.clone(), l.layout.clone())
        })
        .collect())
}

/// A named file's layout: TOML tables for a .toml file; VS Code's `servers` when that is what
/// the file has; else `mcpServers`.
fn layout_of(path: &Path) -> Layout {
    if path.extension().is_some_and(|e| e == "toml") {
        return Layout::Toml("mcp_servers".to_owned());
    }
    let servers = Layout::Json(vec!["servers".to_owned()]);
    match mcpguard::util::fsutil::read_text_capped(
        path,
        mcpguard::util::fsutil::MAX_CLIENT_CONFIG_BYTES,
    ) {
        Ok(text) if edit::list(&text, &servers).is_ok() => {
            let mcp = Layout::Json(vec!["mcpServers".to_owned()]);
            if edit::list(&text, &mcp).is_ok() {
                mcp
            } else {
                servers
            }
        }
        _ => Layout::Json(vec!["mcpServers".to_owned()]),
    }
}

fn rewrite(target: &Target, op: &Op<'_>) -> anyhow::Result<Code> {
    let lists = locations(target)?;
    let mut out = std::io::stdout().lock();
    let mut backed_up = BTreeSet::new();
    for (label, path, layout) in &lists {
        if lists.len() > 1 {
            writeln!(out, "{label}:")?;
        }
        let name = path.display().to_string();
        let read = || {
            mcpguard::util::fsutil::read_text_capped(
                path,
                mcpguard::util::fsutil::MAX_CLIENT_CONFIG_BYTES,
            )
            .with_context(|| format!("{name}: cannot read"))
        };
        let mut text = read()?;
        let (mut new, changes) = edit(&text, layout, &target.names, op, &name)?;
        let said: Vec<String> = changes
            .iter()
            .map(|c| format!("{}: {}", c.name, c.action.describe()))
            .collect();
        if !changes.iter().any(|c| c.action.changed()) {
            writeln!(out, "{}", said.join("\n"))?;
            writeln!(out, "{name}: nothing to change")?;
            continue;
        }
        if target.dry_run {
            writeln!(out, "{}", said.join("\n"))?;
            writeln!(out, "{name}: not written (--dry-run)")?;
            continue;
        }
        // A client may rewrite its file while it runs (Claude Code does ~/.claude.json): read
        // it again just before writing, and make the edit on what is there then.
        for _ in 0..5 {
            let now = read()?;
            if now == text {
                break;
            }
            writeln!(
                out,
                "{name}: changed while mcpguard worked (its client rewrote it); the edit was made again on what is there now, its changes kept"
            )?;
            text = now;
            new = edit(&text, layout, &target.names, op, &name)?.0;
        }
        let mut backup = path.clone().into_os_string();
        backup.push(".mcpguard-backup");
        let backup = PathBuf::from(backup);
        // The backup and the new content are as private as the file: it holds tokens.
        let like = std::fs::metadata(path).with_context(|| format!("{name}: cannot read"))?;
        // One backup a run: a file with two scopes in it keeps the content it had before.
        if backed_up.insert(path.clone()) {
            mcpguard::util::fsutil::write_like(&backup, text.as_bytes(), &like)
                .with_context(|| format!("{}: cannot write the backup", backup.display()))?;
        }
        // Through a link to the file it points at: a dotfiles manager's link stays a link.
        let written = mcpguard::util::fsutil::rewrite_keeping(path, new.as_bytes())
            .with_context(|| format!("{name}: cannot write (nothing was changed)"))?;
        writeln!(out, "{}", said.join("\n"))?;
        let through = if written != *path && path.is_symlink() {
            format!(" through the link to {}", written.display())
        } else {
            String::new()
        };
        writeln!(
            out,
            "{name}: written{through} (the previous content is in {})",
            backup.display()
        )?;
    }
    Ok(Code::Ok)
}

/// [`edit::edit`] of a file's text, its errors naming the file.
fn edit(
    text: &str,
    layout: &Layout,
    names: &[String],
    op: &Op<'_>,
    name: &str,
) -> anyhow::Result<(String, Vec<edit::Change>)> {
    edit::edit(text, layout, names, op).map_err(|e| in_file(name, &e))
}

/// An error of a file's, named as the house names them: `FILE:LINE:COL: ...` for where its
/// text cannot be read, `FILE: ...` otherwise.
fn in_file(name: &str, e: &edit::InstallError) -> anyhow::Error {
    match e {
        edit::InstallError::Syntax { .. } => anyhow::anyhow!("{name}:{e}"),
        _ => anyhow::anyhow!("{name}: {e}"),
    }
}

/// One client's server list, for `--list`.
#[derive(serde::Serialize)]
struct Found {
    client: &'static str,
    scope: &'static str,
    file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    servers: Vec<edit::Listed>,
}

fn list(format: &str) -> anyhow::Result<Code> {
    let places = places()?;
    let mut found = Vec::new();
    for client in Client::ALL {
        for l in places.locations(client, Scope::All) {
            let Ok(text) = mcpguard::util::fsutil::read_text_capped(
                &l.path,
                mcpguard::util::fsutil::MAX_CLIENT_CONFIG_BYTES,
            ) else {
                continue;
            };
            let (servers, error) = match edit::list(&text, &l.layout) {
                Ok(s) => (s, None),
                // Claude Code's local scope: the file is there, this project is not in it.
                Err(edit::InstallError::NoServersAt(_)) => continue,
                Err(e) => (Vec::new(), Some(e.to_string())),
            };
            found.push(Found {
                client: client.name(),
                scope: l.scope.name(),
                file: l.path.display().to_string(),
                error,
                servers,
            });
        }
    }
    let mut out = std::io::stdout().lock();
    if format == "json" {
        super::render::write_json(&mut out, &found)?;
        return Ok(Code::Ok);
    }
    if found.is_empty() {
        writeln!(
            out,
            "no client config found (looked where each client keeps one; see --help)"
        )?;
        return Ok(Code::Ok);
    }
    let mut table = mcpguard::util::human::table(
        &[
            "client",
            "scope",
            "server",
            "kind",
            "through mcpguard",
            "file",
        ],
        &[],
    );
    for f in &found {
        if let Some(e) = &f.error {
            table.add_row([f.client, f.scope, "-", "-", e.as_str(), f.file.as_str()]);
        }
        for s in &f.servers {
            let kind = if s.remote { "remote" } else { "stdio" };
            let proxied = if s.proxied { "yes" } else { "no" };
            table.add_row([
                f.client,
                f.scope,
                s.name.as_str(),
                kind,
                proxied,
                f.file.as_str(),
            ]);
        }
    }
    writeln!(out, "{table}")?;
    Ok(Code::Ok)
}
