//! `mcpguard audit`: the response linter for CI.

use std::io::{IsTerminal as _, Write};
use std::path::PathBuf;

use anyhow::Context as _;

use mcpguard::audit::baseline::Baseline;
use mcpguard::audit::emit::{self, Format, PageContext, Settings};
use mcpguard::audit::run::{self, Shard};
use mcpguard::audit::{Context, metrics};
use mcpguard::contract::Severity;
use mcpguard::proxy::gateway::pinned;
use mcpguard::util::fsutil::Durability;

use super::exit::Code;
use super::{TokenizerArg, render};

const AFTER_HELP: &str = "\
Inputs: files, directories (walked, sorted, for .json, .jsonl, .ndjson), - for stdin, artifacts
(ax://DOMAIN/ID). In a JSONL transcript (one JSON-RPC message per line) requests are paired with
responses by id, so each response is reported under its tool. A file that cannot be read is
reported in its place.

Live servers: --server 'CMD ARGS' (or the command after --) spawns a server and speaks stdio;
--url speaks Streamable HTTP; --mcp-config FILE audits every server of a client's mcpServers list
(or --name). mcpguard keeps the exact bytes of every message, follows every list's nextCursor to
the end, checks that a cursor it never got is refused with -32602, measures the tool catalog, and
with --calls / --probe calls tools; every response goes through the same rules as a captured one.
--save DIR keeps the session as DIR/NAME.jsonl, which `mcpguard audit DIR` reads again.
--protocol auto (the default) probes with server/discover and speaks 2026-07-28 to a server that
answers it, 2025-11-25 (initialize) to one that does not; the servers table says which.

Rules (codes are stable; turn one off or change its severity under `rules:` in the config, for
every tool or per tool under `endpoints:`):
  MG001 response over maxBytes            MG012 base64 blob inside text
  MG002 array over maxArrayItems, no page MG013 structuredContent repeated as text
  MG003 string over maxStringLength       MG014 pretty-printed JSON text
  MG004 nesting over maxJsonDepth         MG015 tool description over 2 KB
  MG005 large result, no artifactRef      MG016 tool catalog over maxCatalogTokens
  MG006 no summary (with --contract)      MG017 payload breaks --contract's schema
  MG007 summary over 100 characters       MG018/MG019 baseline: tool grew / entry stale
  MG008 tokens over the budget            MG020 invalid cursor not refused with -32602
  MG009 tokens over the hard cap          MG021 nextCursor repeats a cursor: never ends
  MG010 list over defaultPageSize         MG022 list still paging after --max-pages
  MG011 hasMore without a way to the rest MG023 a --calls expectation broken
  MG024 tools/list order not stable       MG028 schema $ref that does not resolve
  MG025 2026-07-28: no ttlMs / cacheScope MG029 2026-07-28: missing resource as -32002
  MG026 2026-07-28: no resultType         MG030 2026-07-28 broken mid-conversation
  MG027 structuredContent vs outputSchema MG031 a call answered input_required
                                          MG032 an x-mcp-header HTTP clients must refuse
                                          MG033 a capture that could not be read
                                          MG034 a tool name two servers share
                                          MG035 a tool name clients refuse
                                          MG036 a tool unlike its pin (--pins)

Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it; 2 nothing could be read,
or a live server could not be started or reached, hung (--timeout), exited, wrote something that
is not JSON or a message over --max-message-bytes (or usage, a bad config, a missing baseline).

Examples:
  mcpguard audit contracts/examples
  mcpguard audit captures/ --format sarif > mcpguard.sarif
  mcpguard audit session.jsonl --client claude-code,copilot-cli,opencode
  mcpguard audit captures/ --baseline .mcpguard/baseline.json --max-growth 10
  mcpguard audit --server 'npx -y @modelcontextprotocol/server-everything' --probe
  mcpguard audit --url http://127.0.0.1:3001/mcp --header 'Authorization: Bearer ${TOKEN}'
  mcpguard audit --url https://mcp.example.com/mcp --oauth      # signs in when the server asks
  mcpguard audit --mcp-config .mcp.json --save .mcpguard/sessions --format github
  mcpguard audit --mcp-config .mcp.json --pins .mcpguard/pins.json   # MG036: definitions changed
  mcpguard audit --calls calls.yaml -- node dist/server.js";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// Files, directories, JSONL transcripts, - for stdin, or artifacts (ax://DOMAIN/ID).
    #[arg(value_name = "PATH", required_unless_present_any = ["from_metrics", "server", "url", "mcp_config", "command"])]
    pub inputs: Vec<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,

    /// Write the report to FILE (atomically: whole or not at all) instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Exit 1 when a finding is at or above this severity.
    #[arg(long, value_enum, default_value_t = FailOn::Error, value_name = "SEVERITY")]
    pub fail_on: FailOn,

    #[command(flatten)]
    pub clients: super::ClientArgs,

    /// A response contract (JSON Schema, e.g. contracts/response.schema.json): turns on contract
    /// mode (a summary is required, MG006) and checks every payload against it (MG017).
    #[arg(long, value_name = "FILE")]
    pub contract: Option<PathBuf>,

    /// Token counter. Default: the config's `tokenizer` (auto: exact claude counts near a limit).
    #[arg(long, value_enum, value_name = "NAME")]
    pub tokenizer: Option<TokenizerArg>,

    /// Per-tool sizes from an earlier audit: fail when a tool grows past --max-growth or an
    /// entry is stale.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Allowed growth of a tool's p95 response size over the baseline, in percent.
    #[arg(long, value_name = "PERCENT", default_value_t = 10.0)]
    pub max_growth: f64,

    /// Write this audit's per-tool sizes to --baseline (atomically) instead of comparing.
    #[arg(long, requires = "baseline")]
    pub update_baseline: bool,

    /// A pins file (`mcpguard pins`): a live server's tool whose definition differs from its
    /// pin, or a new tool of a pinned server, is MG036 (an error).
    #[arg(long, value_name = "FILE")]
    pub pins: Option<PathBuf>,

    /// Write the tools this live audit saw to --pins (atomically) as their pins.
    #[arg(long, requires = "pins")]
    pub update_pins: bool,

    /// Audit only shard K of N (1-based), split by a hash of each document's name: the same
    /// split on every machine, for parallel CI jobs.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,

    /// Write one telemetry record per response (JSONL). A failure to write warns and never
    /// fails the audit.
    #[arg(long, value_name = "FILE")]
    pub metrics: Option<PathBuf>,

    /// Summarise a --metrics file (the audit's or the proxy's) by tool and outcome instead of
    /// auditing; with --format html, as pictures.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["baseline", "shard", "metrics"])]
    pub from_metrics: Option<PathBuf>,

    /// How many of the worst findings the table and Markdown list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,

    #[command(flatten)]
    pub live: super::live::LiveArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    Table,
    Json,
    Jsonl,
    Sarif,
    Junit,
    Github,
    Markdown,
    /// One self-contained page of charts and a table that sorts and filters.
    Html,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

pub fn run(args: Args, config: &Option<PathBuf>) -> anyhow::Result<Code> {
    if let Some(path) = &args.from_metrics {
        return from_metrics(path, args.format, args.output.as_deref());
    }
    let effective = super::load_config(config)?;
    let config = effective.config;
    let clients = args.clients.resolve(&config)?;
    let contract =
        match &args.contract {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read the contract {}", path.display()))?;
                let schema: serde_json::Value = serde_json::from_str(&text)
                    .with_context(|| format!("{}: not JSON", path.display()))?;
                Some(jsonschema::validator_for(&schema).map_err(|e| {
                    anyhow::anyhow!("{}: not a valid JSON Schema: {e}", path.display())
                })?)
            }
            None => None,
        };
    let shard = args
        .shard
        .as_deref()
        .map(Shard::parse)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let baseline = match &args.baseline {
        Some(path) if !args.update_baseline => {
            let text = std::fs::read_to_string(path).with_context(|| {
                format!(
                    "cannot read the baseline {}; create it with --update-baseline",
                    path.display()
                )
            })?;
            Some(
                serde_json::from_str::<Baseline>(&text)
                    .with_context(|| format!("{}: not a mcpguard baseline", path.display()))?,
            )
        }
        _ => None,
    };
    let pins = match &args.pins {
        Some(path) if !args.update_pins => {
            if !path.exists() {
                anyhow::bail!(
                    "cannot read the pins file {}: it does not exist; create it with --update-pins",
                    path.display()
                );
            }
            Some(pinned::load(path).map_err(anyhow::Error::msg)?)
        }
        _ => None,
    };
    if args.pins.is_some() && !args.live.any() {
        anyhow::bail!(
            "--pins compares live servers' tools: give --mcp-config FILE, --url or a server command"
        );
    }
    let ctx = Context {
        tokenizer: super::chosen_tokenizer(args.tokenizer, &config),
        config,
        clients,
        contract,
    };
    let page = PageContext {
        tokenizer: ctx.tokenizer.to_string(),
        limits: ctx.config.limits.clone(),
        budget: ctx.config.token_budget_threshold,
        tool_budgets: ctx
            .config
            .endpoints
            .keys()
            .map(|tool| (tool.clone(), ctx.config.budget_for(tool)))
            .collect(),
        hard_cap: ctx.config.hard_cap,
        baseline: baseline.as_ref().map(|b| {
            b.tools
                .iter()
                .map(|(tool, entry)| (tool.clone(), entry.p95_bytes))
                .collect()
        }),
    };

    let sources = super::sources(&args.inputs, &ctx.config)?;
    let sessions = if args.live.any() {
        args.live.run()?
    } else {
        Vec::new()
    };
    let progress = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{spinner} {pos} files audited ({elapsed})")
        {
            bar.set_style(style);
        }
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        bar
    });
    let tick = || {
        if let Some(bar) = &progress {
            bar.inc(1);
        }
    };
    let mut report = if sources.is_empty() {
        mcpguard::audit::Report::default()
    } else {
        run::run(&sources, std::io::stdin().lock(), &ctx, shard, &tick)
    };
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    for session in &sessions {
        run::audit_session(session, &ctx, &mut report);
    }
    if !sessions.is_empty() {
        let servers: Vec<(&str, Vec<serde_json::Value>)> = sessions
            .iter()
            .map(|s| {
                let tools = s.definitions().into_iter().map(|(_, t)| t).collect();
                (s.name.as_str(), tools)
            })
            .collect();
        report.tier_plan = Some(mcpguard::proxy::tiers::plan::of_servers(
            &servers,
            &ctx.config,
            mcpguard::tokens::Tokenizer::Claude.counter(),
        ));
        mcpguard::audit::catalogs::across_servers(&mut report, &ctx);
        report.finish(&ctx);
    }

    if let (Some(path), Some(pins)) = (&args.pins, &pins) {
        mcpguard::audit::pinned::compare(
            &mut report,
            &ctx,
            &sessions,
            pins,
            &path.display().to_string(),
        );
    }
    if let (Some(path), Some(base)) = (&args.baseline, &baseline) {
        report.corpus_findings = base.compare(
            &report.tools,
            args.max_growth,
            &path.display().to_string(),
            &ctx,
        );
    }
    if let Some(path) = &args.metrics {
        let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        let records = metrics::records(&report, &now);
        if let Err(e) =
            mcpguard::util::fsutil::write_atomic(path, metrics::to_jsonl(&records).as_bytes())
        {
            render::warning(&format!(
                "cannot write metrics to {}: {e}; the audit goes on",
                path.display()
            ));
        }
    }

    let settings = Settings {
        fail_on: match args.fail_on {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Info => Some(Severity::Info),
            FailOn::Never => None,
        },
        version: env!("CARGO_PKG_VERSION"),
        top: args.top,
        context: Some(page),
    };
    let emitter = emit::emitter(args.format.into());
    // A document spilled that cannot be read back leaves the output without it: an error, and
    // a file named by --output is then left as it was.
    let emit = |out: &mut dyn Write| {
        emitter.emit(&report, &settings, out)?;
        match report.documents.read_error() {
            Some(e) => Err(std::io::Error::other(e.to_owned())),
            None => Ok(()),
        }
    };
    match &args.output {
        Some(path) => mcpguard::util::fsutil::write_streamed(path, Durability::Synced, emit)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            emit(&mut out)?;
            out.flush()?;
        }
    }
    if let Some(e) = report.documents.spill_error() {
        render::warning(e);
    }
    if args.format != FormatArg::Table {
        for e in &report.errors {
            render::error(&anyhow::anyhow!("{e}"));
        }
    }

    if args.update_baseline
        && let Some(path) = &args.baseline
    {
        let baseline = Baseline::from_stats(&report.tools);
        mcpguard::util::fsutil::write_atomic(path, baseline.to_json().as_bytes())
            .with_context(|| format!("cannot write the baseline {}", path.display()))?;
        eprintln!(
            "mcpguard: wrote {} ({} tools)",
            path.display(),
            baseline.tools.len()
        );
    }

    if args.update_pins
        && let Some(path) = &args.pins
    {
        let mut pins = pinned::load(path).map_err(anyhow::Error::msg)?;
        mcpguard::audit::pinned::update(&mut pins, &sessions, &pinned::now());
        pinned::save(path, &pins)
            .with_context(|| format!("cannot write the pins file {}", path.display()))?;
        let tools: usize = pins.servers.values().map(|t| t.len()).sum();
        eprintln!(
            "mcpguard: wrote {} ({} servers, {tools} tools)",
            path.display(),
            pins.servers.len()
        );
    }

    // A live session that could not finish (a server that would not start, hung, crashed,
    // wrote garbage or flooded) is a failure to do the job, whatever was found before.
    if sessions.iter().any(|s| s.error.is_some())
        || (report.documents.is_empty() && !report.errors.is_empty())
    {
        return Ok(Code::Failure);
    }
    Ok(if settings.fails_report(&report) {
        Code::Findings
    } else {
        Code::Ok
    })
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Table => Format::Table,
            FormatArg::Json => Format::Json,
            FormatArg::Jsonl => Format::Jsonl,
            FormatArg::Sarif => Format::Sarif,
            FormatArg::Junit => Format::Junit,
            FormatArg::Github => Format::Github,
            FormatArg::Markdown => Format::Markdown,
            FormatArg::Html => Format::Html,
        }
    }
}

/// Writes `bytes` to `output` (atomically) or to stdout.
fn write_out(output: Option<&std::path::Path>, bytes: &[u8]) -> anyhow::Result<()> {
    match output {
        Some(path) => mcpguard::util::fsutil::write_atomic(path, bytes)
            .with_context(|| format!("cannot write {}", path.display())),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)?;
            out.flush()?;
            Ok(())
        }
    }
}

/// `--from-metrics FILE`: records summarised by tool and outcome (FR-031), or drawn (html).
fn from_metrics(
    path: &std::path::Path,
    format: FormatArg,
    output: Option<&std::path::Path>,
) -> anyhow::Result<Code> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    if format == FormatArg::Html {
        let mut records = Vec::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let record: serde_json::Value = serde_json::from_str(line)
                .ok()
                .filter(serde_json::Value::is_object)
                .with_context(|| {
                    format!(
                        "{}:{}: not a metrics record (a JSON object)",
                        path.display(),
                        i + 1
                    )
                })?;
            records.push(record);
        }
        let html = emit::metrics_html::page(&records, &path.display().to_string());
        write_out(output, html.as_bytes())?;
        return Ok(Code::Ok);
    }
    let mut records = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        records.push(
            serde_json::from_str::<mcpguard::contract::telemetry::TelemetryRecord>(line)
                .with_context(|| format!("{}:{}: not a metrics record", path.display(), i + 1))?,
        );
    }
    let summary = metrics::summarize(&records);
    let mut out = Vec::new();
    match format {
        FormatArg::Json => render::write_json(&mut out, &summary)?,
        _ => {
            let mut t = mcpguard::util::human::table(
                &[
                    "tool",
                    "outcome",
                    "responses",
                    "mean tokens",
                    "p95 tokens",
                    "max tokens",
                    "p95 bytes",
                ],
                &[2, 3, 4, 5, 6],
            );
            for s in &summary {
                t.add_row(vec![
                    s.tool.clone(),
                    s.outcome.to_owned(),
                    s.count.to_string(),
                    render::thousands(s.mean_tokens),
                    render::thousands(s.tokens.p95),
                    render::thousands(s.tokens.max),
                    render::thousands(s.bytes.p95),
                ]);
            }
            writeln!(out, "{t}")?;
            writeln!(out, "{} records from {}", records.len(), path.display())?;
        }
    }
    write_out(output, &out)?;
    Ok(Code::Ok)
}
