//! `--format json` (the whole report, schema in contracts/schemas/audit.schema.json) and
//! `--format jsonl` (one finding per line, for streaming into other tools).

use std::io::{self, Write};

use serde::Serialize;

use super::{Emitter, Settings};
use crate::audit::Report;
use crate::contract::Severity;

pub struct Json;
pub struct Jsonl;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Envelope<'r> {
    tool: &'static str,
    version: &'static str,
    summary: Summary,
    #[serde(flatten)]
    report: &'r Report,
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

impl Emitter for Json {
    fn emit(&self, report: &Report, settings: &Settings, out: &mut dyn Write) -> io::Result<()> {
        let counts = report.counts();
        let n = |s| counts.get(&s).copied().unwrap_or(0);
        let envelope = Envelope {
            tool: "mcpguard",
            version: settings.version,
            summary: Summary {
                documents: report.documents.len(),
                errors: n(Severity::Error),
                warnings: n(Severity::Warning),
                info: n(Severity::Info),
                unreadable: report.errors.len(),
                failed: report.findings().any(|f| settings.fails(f.severity)),
            },
            report,
        };
        serde_json::to_writer_pretty(&mut *out, &envelope)?;
        writeln!(out)
    }
}

impl Emitter for Jsonl {
    fn emit(&self, report: &Report, _: &Settings, out: &mut dyn Write) -> io::Result<()> {
        for f in report.findings() {
            serde_json::to_writer(&mut *out, f)?;
            writeln!(out)?;
        }
        Ok(())
    }
}
