//! `mcpguard artifacts`: the full results the proxy (and `summarize`) kept, listed, shown and
//! cleared out by age and size.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use mcpguard::proxy::store::{self, Artifacts as _, DirStore};
use mcpguard::reshape::artifact::Ref;

use super::ReportFormat;
use super::exit::Code;

const AFTER_HELP: &str = "\
The store is the config's artifactDir (.mcpguard/artifacts) unless --artifact-dir names another.
An artifact is the full result a shrunk response points at (ax://DOMAIN/ID); the proxy keeps them
for --artifact-ttl (1h) and under --artifact-cap (100 MB), and `gc` applies the same rules by hand.

`show --match` writes the matching entries whole (each under `--- lines A-B`); `--where` and
`--order-by` write the records that pass, one JSON object per line; `--aggregate` writes figures.
The filter language is paginate's --where; the same questions a model asks with mcpguard_more.

Exit codes: 0 done; 1 `show` found no such artifact (or it expired), or nothing matched; 2 a bad
reference, pattern or filter, or an unreadable store.

Examples:
  mcpguard artifacts list
  mcpguard artifacts show ax://read_log/05881f79083eb8b3 | mcpguard chunk -
  mcpguard artifacts show ax://read_log/05881f79083eb8b3 --match 'ERROR|FATAL' --context 2
  mcpguard artifacts show ax://list_bookings/9c1e0d2a44b1f0e7 --where status=cancelled
  mcpguard artifacts show ax://list_bookings/9c1e0d2a44b1f0e7 --aggregate 'count, sum(total)' --group-by status
  mcpguard artifacts gc --ttl 10m --cap 50000000";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,

    /// The store. Default: the config's artifactDir.
    #[arg(long, global = true, value_name = "DIR")]
    pub artifact_dir: Option<PathBuf>,

    /// How long an artifact lives, e.g. 1h, 30m.
    #[arg(long, global = true, value_name = "DURATION", default_value = "1h", value_parser = humantime::parse_duration)]
    pub ttl: Duration,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Every artifact, oldest first: reference, size, age, expired or not.
    List {
        #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
        format: ReportFormat,
    },
    /// Write one artifact's bytes to stdout, exactly as stored; or find in it (--match,
    /// --where, --aggregate).
    Show {
        /// The reference, ax://DOMAIN/ID.
        reference: String,
        #[command(flatten)]
        find: FindArgs,
    },
    /// Remove what expired, then the oldest until the store is under --cap.
    Gc {
        /// The store's size cap in bytes.
        #[arg(long, value_name = "BYTES", default_value_t = store::DEFAULT_CAP_BYTES)]
        cap: u64,
    },
}

/// What `artifacts show` finds instead of writing the whole artifact: the same questions the
/// proxy's `mcpguard_more` answers for a model.
#[derive(Debug, Default, clap::Args)]
pub struct FindArgs {
    /// The entries of its text that match this regular expression, whole (log entries with
    /// their stack traces, Markdown blocks, JSONL records, else lines); on a list of records,
    /// the records whose JSON matches.
    #[arg(long = "match", value_name = "REGEX")]
    pub pattern: Option<String>,

    /// With --match on text: N lines of context around each match (at most 50).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub context: usize,

    /// Only the records that pass (as paginate --where): status=cancelled, total>100,
    /// title~refund, status in (a, b); repeatable, all must hold.
    #[arg(long = "where", value_name = "CONDITION")]
    pub filters: Vec<String>,

    /// Records sorted by FIELD (FIELD:desc for largest first).
    #[arg(long, value_name = "FIELD[:asc|desc]")]
    pub order_by: Option<String>,

    /// Figures instead of records: count, sum(FIELD), avg(FIELD), min(FIELD), max(FIELD).
    #[arg(long, value_name = "MEASURES")]
    pub aggregate: Option<String>,

    /// With --aggregate: the figures per value of this field.
    #[arg(long, value_name = "FIELD")]
    pub group_by: Option<String>,
}

impl FindArgs {
    fn asks(&self) -> bool {
        self.pattern.is_some()
            || !self.filters.is_empty()
            || self.order_by.is_some()
            || self.aggregate.is_some()
            || self.group_by.is_some()
    }
}

pub fn run(args: Args, config: &Option<PathBuf>) -> anyhow::Result<Code> {
    let dir = match &args.artifact_dir {
        Some(d) => d.clone(),
        None => PathBuf::from(super::load_config(config)?.config.artifact_dir),
    };
    let cap = match &args.action {
        Action::Gc { cap } => *cap,
        _ => u64::MAX,
    };
    let mut store = DirStore::new(&dir, args.ttl, cap);
    let mut out = std::io::stdout().lock();
    match args.action {
        Action::List { format } => {
            let entries = store.entries(SystemTime::now());
            match format {
                ReportFormat::Json => super::render::write_json(&mut out, &entries)?,
                ReportFormat::Table => {
                    let mut t = mcpguard::util::human::table(
                        &["artifact", "bytes", "age", "expired"],
                        &[1, 2],
                    );
                    for e in &entries {
                        t.add_row(vec![
                            e.reference.clone(),
                            super::render::thousands(e.bytes),
                            mcpguard::reshape::cursor::human_span(e.age_seconds as f64),
                            if e.expired { "yes" } else { "" }.to_owned(),
                        ]);
                    }
                    writeln!(out, "{t}")?;
                    let total: u64 = entries.iter().map(|e| e.bytes).sum();
                    writeln!(
                        out,
                        "{} artifacts, {} bytes, in {}",
                        entries.len(),
                        super::render::thousands(total),
                        dir.display()
                    )?;
                }
            }
            Ok(Code::Ok)
        }
        Action::Show { reference, find } if find.asks() => {
            let r = Ref::parse(&reference)?;
            let tokenizer = super::load_config(config)?.config.tokenizer;
            self::find(&r, &find, tokenizer, &mut store, &mut out)
        }
        Action::Show { reference, .. } => {
            let r = Ref::parse(&reference)?;
            match store.get(&r).map_err(anyhow::Error::msg)? {
                Some(text) => {
                    out.write_all(text.as_bytes())?;
                    Ok(Code::Ok)
                }
                None => {
                    super::render::error(&anyhow::anyhow!(
                        "{reference}: not in {} (expired after {}, removed, or never stored)",
                        dir.display(),
                        humantime::format_duration(args.ttl)
                    ));
                    Ok(Code::Findings)
                }
            }
        }
        Action::Gc { .. } => {
            let removed = store.sweep(SystemTime::now());
            let bytes: u64 = removed.iter().map(|e| e.bytes).sum();
            let left = store.entries(SystemTime::now());
            writeln!(
                out,
                "removed {} artifacts ({} bytes); {} left ({} bytes) in {}",
                removed.len(),
                super::render::thousands(bytes),
                left.len(),
                super::render::thousands(left.iter().map(|e| e.bytes).sum()),
                dir.display()
            )?;
            Ok(Code::Ok)
        }
    }
}

/// `artifacts show --match/--where/...`: the matching entries of its text, or its records that
/// pass (one JSON object per line), or the figures.
fn find(
    r: &Ref,
    find: &FindArgs,
    tokenizer: mcpguard::tokens::Tokenizer,
    store: &mut DirStore,
    out: &mut impl Write,
) -> anyhow::Result<Code> {
    use mcpguard::proxy::find::{self, Searched};
    use mcpguard::reshape::chunk::search;
    use mcpguard::reshape::paginate::{Order, Where, aggregate::Aggregate, select};

    let pattern = find
        .pattern
        .as_deref()
        .map(|p| search::compile(p).map_err(|e| anyhow::anyhow!("--match {p}: {e}")))
        .transpose()?;
    if find.context > search::MAX_CONTEXT {
        anyhow::bail!(
            "--context {}: at most {}",
            find.context,
            search::MAX_CONTEXT
        );
    }
    let asks_records = !find.filters.is_empty()
        || find.order_by.is_some()
        || find.aggregate.is_some()
        || find.group_by.is_some();
    let value = match (&pattern, asks_records) {
        (Some(regex), false) => {
            let query = search::Query {
                pattern: regex.clone(),
                context: find.context,
                kind: None,
            };
            match find::search_stored(
                r,
                query,
                super::render::whole_window(tokenizer),
                None,
                store,
            )
            .map_err(anyhow::Error::msg)?
            {
                Searched::Text(found) => {
                    let p = find.pattern.as_deref().unwrap_or_default();
                    super::render::write_matches(out, &found, p, false)?;
                    return Ok(if found.entries > 0 {
                        Code::Ok
                    } else {
                        Code::Findings
                    });
                }
                Searched::Records(value) => value,
            }
        }
        _ => find::load(r, store).map_err(anyhow::Error::msg)?,
    };
    let Some(located) = find::records(&value) else {
        anyhow::bail!(
            "{r} holds text, not a list of records: --where, --order-by and --aggregate work on records; find lines with --match"
        );
    };
    let filter = (!find.filters.is_empty())
        .then(|| Where::parse(&find.filters))
        .transpose()
        .map_err(|e| anyhow::anyhow!("--where {e}"))?;
    let order = find.order_by.as_deref().map(Order::parse).transpose()?;
    let question = select::Question {
        filter: filter.as_ref(),
        pattern: pattern.as_ref(),
        order: order.as_ref(),
        fields: None,
    };
    if find.aggregate.is_some() || find.group_by.is_some() {
        let aggregate = Aggregate::parse(
            find.aggregate.as_deref().unwrap_or("count"),
            find.group_by.as_deref(),
        )
        .map_err(|e| anyhow::anyhow!("--aggregate {e}"))?;
        let figures = aggregate.over(question.kept(&located).map(|(_, item)| item));
        super::render::write_json(out, &figures)?;
        return Ok(Code::Ok);
    }
    let picked = select::select(&located, &question);
    // One record per line, compact whatever the document's layout.
    for &i in &picked.kept {
        serde_json::to_writer(&mut *out, &*located.item(i))?;
        writeln!(out)?;
    }
    out.flush()?;
    super::render::warning(&format!(
        "{} of {} records match",
        super::render::thousands(picked.matched as u64),
        super::render::thousands(picked.total as u64)
    ));
    Ok(if picked.matched > 0 {
        Code::Ok
    } else {
        Code::Findings
    })
}
