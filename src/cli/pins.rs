//! `mcpguard pins`: the tool definitions a gateway has pinned (DESIGN.md section 12). `list`
//! shows every pin and every change waiting for a person; `approve` makes a changed or new
//! definition the pin (a tool `pins: hold` kept back is listed again, by a running gateway
//! too); `forget` drops pins, so the next sight pins afresh. The file is the gateway's for
//! an `--mcp-config FILE`, or one given with `--pins` (committed, and checked in CI by
//! `audit --mcp-config FILE --pins FILE`).

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use mcpguard::contract::pins::{Pins, changed_fields, description_diff};
use mcpguard::proxy::gateway::pinned;
use mcpguard::proxy::names;

use super::ReportFormat;
use super::exit::Code;

const AFTER_HELP: &str = "\
The gateway (`mcpguard proxy --mcp-config FILE`) records a SHA-256 of each tool's definition
(its canonical JSON) the first time it sees the tool's server. A later definition that differs,
or a new tool of that server, is kept as pending: under `pins: warn` (the default) the gateway
logs it and goes on; under `pins: hold` the tool is not listed and its calls are refused until
it is approved here. A running gateway reads the file again and lists the tool at once.

Exit codes: 0 done; 1 `list` found definitions waiting for approval; 2 the file could not be
read or written, or a name matches no pinned server or tool.

Examples:
  mcpguard pins list --mcp-config .mcp.json
  mcpguard pins approve filesystem__read_file --mcp-config .mcp.json
  mcpguard pins approve filesystem --mcp-config .mcp.json     # every change of that server
  mcpguard pins forget github --pins .mcpguard/pins.json";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,

    /// The gateway's server list: its pins file is the one in the user's config folder.
    #[arg(long, global = true, value_name = "FILE")]
    pub mcp_config: Option<PathBuf>,

    /// A pins file (the one `proxy --pins` or `audit --pins` uses).
    #[arg(long, global = true, value_name = "FILE")]
    pub pins: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Every pinned tool by server, and the changes waiting for approval with what changed.
    List {
        #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
        format: ReportFormat,
    },
    /// Make the pending definitions of a server, or of one SERVER__TOOL, the pins.
    Approve {
        /// SERVER or SERVER__TOOL (as the gateway names the tool).
        #[arg(value_name = "SERVER[__TOOL]", required = true)]
        names: Vec<String>,
    },
    /// Drop the pins of a server, or of one SERVER__TOOL: the next sight pins them afresh.
    Forget {
        #[arg(value_name = "SERVER[__TOOL]", required = true)]
        names: Vec<String>,
    },
}

pub fn run(args: Args) -> anyhow::Result<Code> {
    let file = pinned::file_for(args.pins.as_deref(), args.mcp_config.as_deref())
        .context(match (&args.pins, &args.mcp_config) {
            (None, None) => "which pins? give --mcp-config FILE (the gateway's server list) or --pins FILE",
            _ => "no place for the pins file: neither HOME nor XDG_CONFIG_HOME is set; give --pins FILE",
        })?;
    let mut pins = pinned::load(&file).map_err(anyhow::Error::msg)?;
    match args.action {
        Action::List { format } => list(&pins, &file, format),
        Action::Approve { names } => {
            let mut approved = 0;
            for name in &names {
                let (server, tool) = resolve(&pins, name, &file)?;
                let done = pins.approve(&server, tool.as_deref());
                if done.is_empty() {
                    eprintln!("mcpguard: {name}: nothing waits for approval");
                }
                for tool in &done {
                    eprintln!("mcpguard: approved {server} {tool}");
                }
                approved += done.len();
            }
            if approved > 0 {
                save(&file, &pins)?;
            }
            Ok(Code::Ok)
        }
        Action::Forget { names } => {
            for name in &names {
                let (server, tool) = resolve(&pins, name, &file)?;
                let gone = pins.forget(&server, tool.as_deref());
                eprintln!("mcpguard: forgot {gone} pin(s) of {name}");
            }
            save(&file, &pins)?;
            Ok(Code::Ok)
        }
    }
}

fn save(file: &Path, pins: &Pins) -> anyhow::Result<()> {
    pinned::save(file, pins).with_context(|| format!("cannot write {}", file.display()))
}

/// The server (its config key) and tool (its own name) `name` means: `SERVER` or
/// `SERVER__TOOL`, the server by its key or by the part of the gateway's names, the tool by
/// its own name or by the one the gateway gives it.
fn resolve(pins: &Pins, name: &str, file: &Path) -> anyhow::Result<(String, Option<String>)> {
    for (key, tools) in &pins.servers {
        let part = names::server_part(key);
        if name == key || name == part {
            return Ok((key.clone(), None));
        }
        for head in [key.as_str(), part.as_str()] {
            let Some(rest) = name
                .strip_prefix(head)
                .and_then(|r| r.strip_prefix(names::SEPARATOR))
            else {
                continue;
            };
            let tool = tools
                .keys()
                .find(|tool| *tool == rest || names::exposed(&part, key, tool, name.len()) == name);
            return match tool {
                Some(tool) => Ok((key.clone(), Some(tool.clone()))),
                None => anyhow::bail!(
                    "{name}: `{key}` has no pinned tool `{rest}` in {}; `mcpguard pins list` shows its tools",
                    file.display()
                ),
            };
        }
    }
    let known: Vec<&str> = pins.servers.keys().map(String::as_str).collect();
    anyhow::bail!(
        "{name}: no pinned server of that name in {} (it has: {})",
        file.display(),
        if known.is_empty() {
            "none yet: a gateway pins a server's tools the first time it lists them".to_owned()
        } else {
            known.join(", ")
        }
    )
}

fn list(pins: &Pins, file: &Path, format: ReportFormat) -> anyhow::Result<Code> {
    let waiting = pins
        .servers
        .values()
        .flat_map(|tools| tools.values())
        .filter(|pin| pin.pending.is_some())
        .count();
    if format == ReportFormat::Json {
        let mut out = std::io::stdout().lock();
        super::render::write_json(&mut out, pins)?;
    } else {
        println!("{}", file.display());
        let mut grid =
            mcpguard::util::human::table(&["server", "tool", "state", "sha256", "since"], &[]);
        let mut diffs = Vec::new();
        for (server, tools) in &pins.servers {
            for (tool, pin) in tools {
                let shown = pin.pending.as_ref().or(pin.approved.as_ref());
                let state = match (&pin.approved, &pin.pending) {
                    (Some(a), Some(p)) => {
                        let (before, after) = (a.value(), p.value());
                        if let Some(diff) = description_diff(&before, &after) {
                            diffs.push(format!("{server} {tool}: description {diff}"));
                        }
                        format!("changed: {}", changed_fields(&before, &after).join(", "))
                    }
                    (None, Some(_)) => "new since pinned".to_owned(),
                    _ => "pinned".to_owned(),
                };
                grid.add_row([
                    server.clone(),
                    tool.clone(),
                    state,
                    shown.map_or(String::new(), |s| s.sha256[..12].to_owned()),
                    shown.map_or(String::new(), |s| s.at.clone()),
                ]);
            }
        }
        println!("{grid}");
        for diff in diffs {
            println!("{diff}");
        }
        if waiting > 0 {
            println!(
                "{waiting} definition(s) wait for approval: `mcpguard pins approve SERVER[__TOOL]` with the same --mcp-config or --pins"
            );
        }
    }
    Ok(if waiting > 0 {
        Code::Findings
    } else {
        Code::Ok
    })
}
