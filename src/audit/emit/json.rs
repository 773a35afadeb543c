//! `--format json` (the whole report, schema in contracts/schemas/audit.schema.json) and
//! `--format jsonl` (one finding per line, for streaming into other tools).
//!
//! The report's documents are most of its text (4 KB each, pretty), so they are written on
//! every core, each into its own buffer, and the envelope then takes them as they are: the
//! same bytes one serializer writing through the output would give, without the serial tail
//! after the audit.

use std::io::{self, Write};

use rayon::prelude::*;
use serde::Serialize;
use serde_json::value::RawValue;

use super::{Emitter, Settings};
use crate::audit::stats::{Suggestion, ToolStats};
use crate::audit::{DocumentReport, Documents, Finding, Report, ServerSummary};
use crate::contract::Severity;
use crate::contract::tiers::TierPlan;

pub struct Json;
pub struct Jsonl;

/// The report as `--format json` writes it, its members in this order. `D` is its documents:
/// [`WrittenApart`], or (for the test that holds the two alike) the documents themselves.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Envelope<'r, D> {
    tool: &'static str,
    version: &'static str,
    summary: Summary,
    documents: D,
    /// Inputs that could not be read, each naming the input.
    errors: &'r [String],
    /// Findings about the corpus as a whole (baseline growth, stale entries).
    corpus_findings: &'r [Finding],
    tools: &'r [ToolStats],
    suggestions: &'r [Suggestion],
    /// Live servers audited, one summary each.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    servers: &'r [ServerSummary],
    #[serde(skip_serializing_if = "Option::is_none")]
    tier_plan: Option<&'r TierPlan>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Summary {
    documents: usize,
    errors: usize,
    warnings: usize,
    info: usize,
    unreadable: usize,
    failed: bool,
}

/// `report`'s envelope, `documents` its documents.
fn envelope<'r, D>(report: &'r Report, settings: &Settings, documents: D) -> Envelope<'r, D> {
    let counts = report.counts();
    let n = |s| counts.get(&s).copied().unwrap_or(0);
    Envelope {
        tool: "mcpguard",
        version: settings.version,
        summary: Summary {
            documents: report.documents.len(),
            errors: n(Severity::Error),
            warnings: n(Severity::Warning),
            info: n(Severity::Info),
            unreadable: report.errors.len(),
            failed: settings.fails_report(report),
        },
        documents,
        errors: &report.errors,
        corpus_findings: &report.corpus_findings,
        tools: &report.tools,
        suggestions: &report.suggestions,
        servers: &report.servers,
        tier_plan: report.tier_plan.as_ref(),
    }
}

impl Emitter for Json {
    fn emit(&self, report: &Report, settings: &Settings, out: &mut dyn Write) -> io::Result<()> {
        let documents = WrittenApart(&report.documents);
        serde_json::to_writer_pretty(&mut *out, &envelope(report, settings, documents))?;
        writeln!(out)
    }
}

/// The documents of the envelope, written on every core a batch at a time (so the text held
/// at once does not grow with the report), each then taken as it is.
struct WrittenApart<'r>(&'r Documents);

/// Documents written at once: a few megabytes of text. (In tests a few, so that the test's
/// report is written in several batches.)
const BATCH: usize = if cfg!(test) { 7 } else { 1024 };

impl Serialize for WrittenApart<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeSeq as _};
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for batch in self.0.batches(BATCH) {
            let texts: Vec<Box<RawValue>> = batch
                .par_iter()
                .map(|d| document_text(d))
                .collect::<serde_json::Result<_>>()
                .map_err(S::Error::custom)?;
            for text in &texts {
                seq.serialize_element(text)?;
            }
        }
        seq.end()
    }
}

/// How deep the envelope holds a document: in its object, in the `documents` array.
const DOCUMENT_INDENT: &str = "\n    ";

/// A document's pretty JSON as the envelope holds it (in pretty JSON, two levels in): each
/// line after the first indented two levels more (a JSON string holds no raw line break, so
/// every one is the formatter's).
fn document_text(document: &DocumentReport) -> serde_json::Result<Box<RawValue>> {
    let text = serde_json::to_string_pretty(document)?;
    RawValue::from_string(text.replace('\n', DOCUMENT_INDENT))
}

impl Emitter for Jsonl {
    fn emit(&self, report: &Report, _: &Settings, out: &mut dyn Write) -> io::Result<()> {
        for f in report.findings() {
            serde_json::to_writer(&mut *out, &f)?;
            writeln!(out)?;
        }
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::path::Path;

    use super::*;
    use crate::audit::{Context, run};
    use crate::config::Config;
    use crate::document::input::Source;
    use crate::tokens::Tokenizer;

    /// The corpus of real captures and the contract's examples audited (findings of every
    /// kind, top paths, every client's verdict), and an input that cannot be read.
    pub(in crate::audit::emit) fn report() -> Report {
        report_holding(crate::audit::documents::HOLD_MAX)
    }

    /// [`report`], its documents spilled past `hold_max` bytes.
    pub(in crate::audit::emit) fn report_holding(hold_max: usize) -> Report {
        let ctx = Context {
            config: Config::default(),
            tokenizer: Tokenizer::Heuristic,
            clients: crate::contract::default_clients(),
            contract: None,
        };
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let sources = [
            "tests/fixtures/corpus",
            "contracts/examples",
            "no/such/capture.json",
        ]
        .map(|p| Source::Path(root.join(p)));
        let mut report = Report::holding(hold_max);
        run::run_into(&mut report, &sources, io::empty(), &ctx, None, &|| {});
        report
    }

    #[test]
    fn documents_written_on_every_core_give_the_text_one_serializer_writes() {
        let report = report();
        assert!(report.documents.len() > 30, "{}", report.documents.len());
        assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
        assert!(report.findings().count() > 30);
        let settings = Settings {
            fail_on: Some(Severity::Warning),
            version: "0.0.0-test",
            top: 10,
            context: None,
        };
        let mut written = Vec::new();
        Json.emit(&report, &settings, &mut written)
            .expect("written");
        let mut want = serde_json::to_vec_pretty(&envelope(&report, &settings, &report.documents))
            .expect("serialized");
        want.push(b'\n');
        assert_eq!(
            String::from_utf8_lossy(&written),
            String::from_utf8_lossy(&want)
        );
    }
}
