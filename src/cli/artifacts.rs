//! `mcpguard artifacts`: the full results the proxy (and `summarize`) kept, listed, shown and
//! cleared out by age and size.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use mcpguard::artifact::Ref;
use mcpguard::proxy::store::{self, Artifacts as _, DirStore};

use super::ReportFormat;
use super::exit::Code;

const AFTER_HELP: &str = "\
The store is the config's artifactDir (.mcpguard/artifacts) unless --artifact-dir names another.
An artifact is the full result a shrunk response points at (ax://DOMAIN/ID); the proxy keeps them
for --artifact-ttl (1h) and under --artifact-cap (100 MB), and `gc` applies the same rules by hand.

Exit codes: 0 done; 1 `show` found no such artifact (or it expired); 2 a bad reference or an
unreadable store.

Examples:
  mcpguard artifacts list
  mcpguard artifacts show ax://read_log/05881f79083eb8b3 | mcpguard chunk -
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
    /// Write one artifact's bytes to stdout, exactly as stored.
    Show {
        /// The reference, ax://DOMAIN/ID.
        reference: String,
    },
    /// Remove what expired, then the oldest until the store is under --cap.
    Gc {
        /// The store's size cap in bytes.
        #[arg(long, value_name = "BYTES", default_value_t = store::DEFAULT_CAP_BYTES)]
        cap: u64,
    },
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
                    let mut t =
                        mcpguard::human::table(&["artifact", "bytes", "age", "expired"], &[1, 2]);
                    for e in &entries {
                        t.add_row(vec![
                            e.reference.clone(),
                            super::render::thousands(e.bytes),
                            mcpguard::cursor::human_span(e.age_seconds as f64),
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
        Action::Show { reference } => {
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
