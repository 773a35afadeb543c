//! `mcpguard summarize`: shrink a response so it fits, keeping the full data as an artifact.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context as _;
use serde_json::Value;

use mcpguard::reshape::artifact::Store;
use mcpguard::reshape::summarize::{self, Fields, Outcome, Report};

use super::exit::Code;
use super::{ReportFormat, TokenizerArg, render};

const AFTER_HELP: &str = "\
A response within the token budget (tokenBudgetThreshold, 4000) and every contract limit (10 KB,
10 items per array, 500 chars per string, depth 4) comes out byte for byte as it came in. Anything
else becomes the contract's shape, and is guaranteed to fit all of those limits:

  {\"summary\": \"500 bookings; showing 10; full result ax://bookings/3f2a…\", \"success\": true,
   \"count\": 500, \"items\": [...10 projected records...], \"hasMore\": true,
   \"artifactRef\": \"ax://bookings/3f2a…\", \"meta\": {\"kind\": \"preview\", \"totalFields\": 13,
   \"projectedFields\": \"id,status,…\", \"detailsAvailable\": {\"command\": \"mcpguard paginate ax://…\"},
   \"estimatedTokens\": …, \"budgetUsed\": …, \"budgetRemaining\": …, \"originalBytes\": …,
   \"finalBytes\": …, \"reduction\": …}}

When the first cut does not fit, it is tightened step by step: fewer items, shorter strings, fewer
fields, shallower, down to the summary and the reference. An MCP tool result comes back as a tool
result (its text holds the compact JSON), a JSON-RPC response as one; an isError result that is
small is kept whole.

Fields: the paths given with --fields, else the config's projection map for the record type
(`bookings` uses `projections.booking`), else the identifying and primary fields (ids, names,
status, dates, amounts, counts, severity, errors) without the verbose ones (descriptions, notes,
bodies, metadata). Long text is summarized: the first sentence, then sentences with the record's
key terms, ending with \"... [N more words; M chars]\"; logs show their first and last lines.

The full input is stored, content-addressed, in .mcpguard/artifacts (artifactDir, --artifact-dir)
and named ax://DOMAIN/ID; every command reads such a reference as its input. Bloat is removed
first and reported: minified JSON text, one copy of structuredContent, base64 blobs and media as
descriptors, and with --drop-empty / --table empty members and repeated keys.

Exit codes: 0 written; 2 it could not run (unreadable input, an unwritable artifact directory,
limits too small for any response); nothing is written to stdout then.

Examples:
  some-tool | mcpguard summarize
  mcpguard summarize bookings.json --report
  mcpguard summarize ax://bookings/3f2a9c0d1e2f3a4b --fields priceBreakdown
  mcpguard paginate ax://bookings/3f2a9c0d1e2f3a4b --limit 50
  mcpguard summarize result.json --fields id,status,price.total --table
  mcpguard summarize result.json --output-schema tool.json --report --format json";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// A JSON file holding one document, - for stdin, or an artifact ax://DOMAIN/ID.
    #[arg(value_name = "INPUT", default_value = "-")]
    pub input: String,

    /// Fields to keep per record: dotted paths (id,status,price.total), a section
    /// (priceBreakdown, returned in full), or `all`. Default: the config's projection map for
    /// the record type, else the identifying and primary fields.
    #[arg(long, value_name = "LIST")]
    pub fields: Option<String>,

    /// Summarize even a response that fits.
    #[arg(long)]
    pub force: bool,

    /// Tokens the output may cost. Default: the config's tokenBudgetThreshold (4000).
    #[arg(long, value_name = "TOKENS")]
    pub budget: Option<u64>,

    /// The tool the response came from: its `endpoints:` entry in the config sets the limits
    /// and the fields.
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,

    /// Token counter for the budget. Default: the config's `tokenizer` (auto).
    #[arg(long, value_enum, value_name = "NAME")]
    pub tokenizer: Option<TokenizerArg>,

    /// Drop null, "", [] and {} members.
    #[arg(long)]
    pub drop_empty: bool,

    /// Write a list of records as `columns` and `rows` (keys once, not per record).
    #[arg(long)]
    pub table: bool,

    /// The tool's outputSchema (or its tools/list entry): structuredContent is kept, valid
    /// against it.
    #[arg(long, value_name = "FILE")]
    pub output_schema: Option<PathBuf>,

    /// Where artifacts are stored. Default: the config's artifactDir (.mcpguard/artifacts).
    #[arg(long, value_name = "DIR", conflicts_with = "no_artifact")]
    pub artifact_dir: Option<PathBuf>,

    /// Do not store the full input (the output then has no artifactRef).
    #[arg(long)]
    pub no_artifact: bool,

    /// The artifact's domain (ax://DOMAIN/ID). Default: the list's name, else the kind of
    /// document.
    #[arg(long, value_name = "NAME")]
    pub domain: Option<String>,

    /// Print a before/after size table (bytes, tokens, each fix's savings) to stderr.
    #[arg(long)]
    pub report: bool,

    /// Format of the --report: a table, or JSON for scripts.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table, requires = "report")]
    pub format: ReportFormat,
}

pub fn run(args: Args, config: &Option<PathBuf>) -> anyhow::Result<Code> {
    let mut effective = super::load_config(config)?;
    if let Some(dir) = &args.artifact_dir {
        effective.config.artifact_dir = dir.display().to_string();
    }
    let c = &effective.config;
    let endpoint = args.tool.as_deref().and_then(|t| c.endpoints.get(t));
    let limits = args
        .tool
        .as_deref()
        .map_or_else(|| c.limits.clone(), |t| c.limits_for(t));
    let fields = match (&args.fields, endpoint.and_then(|e| e.fields.as_ref())) {
        (Some(f), _) => Fields::parse(f),
        (None, Some(f)) => Fields::Paths(f.clone()),
        (None, None) => Fields::Auto,
    };
    let schema: Option<Value> = match &args.output_schema {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("{}: cannot read the output schema", path.display()))?;
            Some(serde_json::from_str(&text).with_context(|| {
                format!("{}: the output schema is not valid JSON", path.display())
            })?)
        }
        None => None,
    };
    let source = super::source(&args.input, c)?;
    let (name, text) =
        mcpguard::document::input::read_text(&source, std::io::stdin().lock(), &c.read_limits)?;
    // A CSV file, a saved `str(rows)`, a Markdown table: summarized as a result holding it.
    let text = mcpguard::document::records::as_result_text(text);

    let opts = summarize::Options {
        limits,
        budget: args.budget.unwrap_or(c.token_budget_threshold),
        tokenizer: super::chosen_tokenizer(args.tokenizer, c),
        media_tokens: c.media_tokens,
        fields,
        projections: &c.projections,
        drop_empty: args.drop_empty,
        table: args.table,
        force: args.force,
        output_schema: schema.as_ref(),
        domain: args.domain.clone(),
        artifact: !args.no_artifact,
        more_tool: None,
    };
    // The artifact is stored before anything is written: output that points at an artifact
    // that is not there is worse than no output. On failure nothing reaches stdout.
    let store = Store::new(&c.artifact_dir);
    let summary = summarize::summarize(&name, text, &opts, |reference, text| {
        store
            .put(reference, text.as_bytes())
            .map(drop)
            .map_err(|e| e.to_string())
    })?;
    for warning in &summary.report.warnings {
        render::warning(warning);
    }

    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    out.write_all(summary.output.as_bytes())?;
    if summary.report.outcome != Outcome::Unchanged {
        writeln!(out)?;
    }
    out.flush()?;

    if args.report {
        let mut err = std::io::stderr().lock();
        match args.format {
            ReportFormat::Json => render::write_json(&mut err, &summary.report)?,
            ReportFormat::Table => write_report(&mut err, &summary.report)?,
        }
    }
    Ok(Code::Ok)
}

fn write_report(out: &mut impl Write, r: &Report) -> anyhow::Result<()> {
    let mut table = mcpguard::util::human::table(&["", "bytes", "tokens", "note"], &[1, 2]);
    table.add_row(vec![
        "before".to_owned(),
        render::thousands(r.before.bytes),
        render::thousands(r.before.tokens),
        String::new(),
    ]);
    for fix in &r.fixes {
        table.add_row(vec![
            format!("  {}", fix.fix),
            format!("-{}", render::thousands(fix.bytes)),
            format!("-{}", render::thousands(fix.tokens)),
            fix.detail.clone(),
        ]);
    }
    let note = match r.outcome {
        Outcome::Unchanged => "fits: passed through unchanged".to_owned(),
        Outcome::Full => "everything, without the bloat".to_owned(),
        Outcome::Preview => format!(
            "preview ({}; fields: {})",
            r.level.as_deref().unwrap_or(""),
            r.projection.as_deref().unwrap_or("")
        ),
    };
    table.add_row(vec![
        "after".to_owned(),
        render::thousands(r.after.bytes),
        render::thousands(r.after.tokens),
        note,
    ]);
    writeln!(out, "{table}")?;
    let mut line = format!("token reduction {}", render::percent(r.reduction));
    if let Some(reference) = &r.artifact_ref {
        line.push_str(&format!("; full result {reference}"));
    }
    writeln!(out, "{line}")?;
    Ok(())
}
