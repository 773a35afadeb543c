//! `mcpguard validate-config`: check a config, print the defaults or the effective values, or
//! watch a file and re-validate it on every save, keeping the last good config (FR-026, FR-028).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::Serialize;

use mcpguard::config::{self, ConfigError, ConfigIssue, Effective};

use super::ReportFormat;
use super::exit::Code;
use super::render;

const AFTER_HELP: &str = "\
Checks: the JSON Schema in contracts/config.schema.json (types, ranges, unknown keys), then the
rules across keys (hardCap >= tokenBudgetThreshold, defaultPageSize <= maxPageSize <= 200, known
rule codes, per-tool pageSize). MCPGUARD_* variables are checked with the file. Every problem names
the file, line and column (or the variable), the key, the bad value and what is allowed.

Exit codes: 0 valid; 1 invalid; 2 the file could not be read.

Examples:
  mcpguard validate-config mcpguard.yaml
  mcpguard validate-config --print-defaults > mcpguard.yaml
  MCPGUARD_HARD_CAP=20000 mcpguard validate-config --show-effective
  mcpguard validate-config mcpguard.yaml --watch";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The config to check. Default: --config, $MCPGUARD_CONFIG, or mcpguard.yaml/.yml/.json
    /// in the working directory.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// Print the documented default config (YAML) and exit.
    #[arg(long, conflicts_with_all = ["show_effective", "watch", "file"])]
    pub print_defaults: bool,

    /// Show every effective value and where it came from (default, file:line, env).
    #[arg(long)]
    pub show_effective: bool,

    /// Keep running: re-validate on every save, print old -> new values, keep the last good
    /// config when a save is invalid. Stop with Ctrl-C.
    #[arg(long, conflicts_with = "show_effective")]
    pub watch: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
}

/// The JSON report (contracts/schemas/validate-config.schema.json).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    file: Option<String>,
    valid: bool,
    issues: Vec<ConfigIssue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    settings: Option<Vec<config::Setting>>,
    warnings: Vec<String>,
}

pub fn run(args: Args, global_config: &Option<PathBuf>) -> anyhow::Result<Code> {
    let mut out = std::io::stdout().lock();
    if args.print_defaults {
        out.write_all(config::default_yaml().as_bytes())?;
        return Ok(Code::Ok);
    }
    let env = super::mcpguard_env();
    let dir = std::env::current_dir()?;
    let explicit = args.file.as_deref().or(global_config.as_deref());
    let path = config::discover(explicit, &env, &dir);

    if args.watch {
        let path = path.context(
            "--watch needs a config file: name one, set MCPGUARD_CONFIG, or create mcpguard.yaml",
        )?;
        return watch(&path, &env, args.format, &mut out);
    }

    let outcome = check(path.as_deref(), &env);
    let code = match &outcome {
        Ok(_) => Code::Ok,
        Err(ConfigError::Read { .. }) => Code::Failure,
        Err(_) => Code::Findings,
    };
    if let Err(ConfigError::Read { .. }) = &outcome {
        // Not a verdict on the config: the file is not there to judge.
        return Err(outcome.unwrap_err().into());
    }
    let name = path.as_ref().map(|p| p.display().to_string());
    match args.format {
        ReportFormat::Json => {
            let (issues, settings, warnings) = match &outcome {
                Ok(e) => (
                    Vec::new(),
                    args.show_effective.then(|| e.settings()),
                    e.warnings.clone(),
                ),
                Err(err) => (issues_of(err, name.as_deref()), None, Vec::new()),
            };
            render::write_json(
                &mut out,
                &Report {
                    file: name,
                    valid: outcome.is_ok(),
                    issues,
                    settings,
                    warnings,
                },
            )?;
        }
        ReportFormat::Table => match &outcome {
            Ok(effective) => {
                for w in &effective.warnings {
                    render::warning(w);
                }
                match &name {
                    Some(n) => writeln!(out, "{n}: valid")?,
                    None => writeln!(
                        out,
                        "no config file (looked for --config, $MCPGUARD_CONFIG, {}); the defaults are valid",
                        config::DEFAULT_FILE_NAMES.join(", ")
                    )?,
                }
                if args.show_effective {
                    write_settings(&mut out, effective)?;
                }
            }
            Err(err) => write_issues(&mut out, err, name.as_deref())?,
        },
    }
    Ok(code)
}

fn check(
    path: Option<&Path>,
    env: &std::collections::BTreeMap<String, String>,
) -> Result<Effective, ConfigError> {
    let file = path.map(config::read_file).transpose()?;
    config::resolve(file.as_ref(), env)
}

/// Every problem of a failed check as issues (a syntax error is one issue).
fn issues_of(err: &ConfigError, name: Option<&str>) -> Vec<ConfigIssue> {
    match err {
        ConfigError::Invalid { issues } => issues.clone(),
        ConfigError::Syntax {
            path,
            line,
            column,
            message,
            format,
        } => vec![ConfigIssue {
            source: path.clone(),
            line: *line,
            column: *column,
            pointer: String::new(),
            message: format!("not valid {format}: {message}"),
            help: "fix the syntax at that position".to_owned(),
        }],
        ConfigError::Read { path, cause } => vec![ConfigIssue {
            source: name.unwrap_or(path).to_owned(),
            line: None,
            column: None,
            pointer: String::new(),
            message: format!("cannot read: {cause}"),
            help: "check the path and its permissions".to_owned(),
        }],
    }
}

fn write_issues(
    out: &mut (impl Write + ?Sized),
    err: &ConfigError,
    name: Option<&str>,
) -> anyhow::Result<()> {
    let issues = issues_of(err, name);
    writeln!(
        out,
        "{}: invalid, {} problem{}",
        name.unwrap_or("config"),
        issues.len(),
        if issues.len() == 1 { "" } else { "s" }
    )?;
    for issue in &issues {
        writeln!(out, "  {issue}")?;
    }
    Ok(())
}

fn write_settings(out: &mut impl Write, effective: &Effective) -> anyhow::Result<()> {
    let mut table = mcpguard::util::human::table(&["key", "value", "from"], &[]);
    for s in effective.settings() {
        let value = match &s.value {
            serde_json::Value::String(v) => v.clone(),
            other => other.to_string(),
        };
        table.add_row(vec![s.key, value, s.origin.to_string()]);
    }
    writeln!(out, "{table}")?;
    Ok(())
}

/// Validates `path` now and after every change, until interrupted. Never exits on a bad file.
fn watch(
    path: &Path,
    env: &std::collections::BTreeMap<String, String>,
    format: ReportFormat,
    out: &mut impl Write,
) -> anyhow::Result<Code> {
    let name = path.display().to_string();
    let mut good: Option<Effective> = None;
    let report = |out: &mut dyn Write, good: &mut Option<Effective>| -> anyhow::Result<()> {
        let outcome = check(Some(path), env);
        let line = match (&outcome, good.as_ref()) {
            (Ok(new), Some(old)) => {
                let changes = config::diff(&old.config, &new.config);
                serde_json::json!({"file": name, "valid": true, "changes": changes})
            }
            (Ok(_), None) => serde_json::json!({"file": name, "valid": true, "changes": []}),
            (Err(err), _) => serde_json::json!({
                "file": name, "valid": false,
                "issues": issues_of(err, Some(&name)),
                "keeping": if good.is_some() { "last good config" } else { "defaults" },
            }),
        };
        match format {
            ReportFormat::Json => writeln!(out, "{line}")?,
            ReportFormat::Table => match (&outcome, good.as_ref()) {
                (Ok(new), Some(old)) => {
                    let changes = config::diff(&old.config, &new.config);
                    if changes.is_empty() {
                        writeln!(out, "{name}: valid, no change")?;
                    } else {
                        writeln!(out, "{name}: valid, reloaded")?;
                    }
                    for c in changes {
                        let (old, new) = c.shown();
                        writeln!(out, "  {}: {old} -> {new}", c.key)?;
                    }
                }
                (Ok(_), None) => writeln!(out, "{name}: valid")?,
                (Err(err), _) => {
                    write_issues(out, err, Some(&name))?;
                    let kept = if good.is_some() {
                        "the last good config"
                    } else {
                        "the defaults"
                    };
                    writeln!(out, "  keeping {kept}")?;
                }
            },
        }
        out.flush()?;
        if let Ok(new) = outcome {
            *good = Some(new);
        }
        Ok(())
    };
    report(out, &mut good)?;

    let (_watcher, rx) = super::watch::file(path)?;
    eprintln!("mcpguard: watching {name} (Ctrl-C to stop)");

    while rx.recv().is_ok() {
        super::watch::settle(&rx, path);
        report(out, &mut good)?;
    }
    Ok(Code::Ok)
}
