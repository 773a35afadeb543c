//! Output formats for an audit report: one [`Emitter`] per format, each writing to any
//! `Write` (the library never touches stdout itself).

mod github;
mod html;
mod json;
mod junit;
mod markdown;
pub mod metrics_html;
pub mod page;
mod sarif;
mod table;

use std::io::{self, Write};

use super::Report;
use crate::contract::Severity;

/// The formats `audit --format` speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Jsonl,
    Sarif,
    Junit,
    Github,
    Markdown,
    Html,
}

/// What every emitter needs besides the report.
pub struct Settings {
    /// Findings at or above this fail the run; `None` never fails.
    pub fail_on: Option<Severity>,
    /// mcpguard's version, for SARIF's tool.driver.
    pub version: &'static str,
    /// How many of the worst findings the human formats list.
    pub top: usize,
    /// What the responses were held to, for the formats that show it (HTML).
    pub context: Option<PageContext>,
}

/// What the audit held responses to, as the HTML page shows it.
#[derive(Clone, Debug)]
pub struct PageContext {
    pub tokenizer: String,
    pub limits: crate::contract::Limits,
    /// The global token budget, the tools' own, and the hard cap.
    pub budget: u64,
    pub tool_budgets: std::collections::BTreeMap<String, u64>,
    pub hard_cap: u64,
    /// With `--baseline`: each tool's p95 bytes in it.
    pub baseline: Option<std::collections::BTreeMap<String, u64>>,
}

impl PageContext {
    pub fn budget_for(&self, tool: &str) -> u64 {
        self.tool_budgets.get(tool).copied().unwrap_or(self.budget)
    }
}

impl Settings {
    pub fn fails(&self, severity: Severity) -> bool {
        self.fail_on.is_some_and(|f| severity >= f)
    }
}

pub trait Emitter {
    fn emit(&self, report: &Report, settings: &Settings, out: &mut dyn Write) -> io::Result<()>;
}

pub fn emitter(format: Format) -> Box<dyn Emitter> {
    match format {
        Format::Table => Box::new(table::Table),
        Format::Json => Box::new(json::Json),
        Format::Jsonl => Box::new(json::Jsonl),
        Format::Sarif => Box::new(sarif::Sarif),
        Format::Junit => Box::new(junit::Junit),
        Format::Github => Box::new(github::Github),
        Format::Markdown => Box::new(markdown::Markdown),
        Format::Html => Box::new(html::Html),
    }
}

/// The worst findings first: severity, then what fixing them saves, then document order.
pub(crate) fn worst_findings(report: &Report, n: usize) -> Vec<&super::Finding> {
    let mut all: Vec<&super::Finding> = report.findings().collect();
    all.sort_by(|a, b| {
        b.severity.cmp(&a.severity).then_with(|| {
            let saved = |f: &super::Finding| f.savings.map_or(0, |s| s.bytes);
            saved(b).cmp(&saved(a))
        })
    });
    all.truncate(n);
    all
}

/// "12 documents: 3 errors, 5 warnings, 1 info".
pub(crate) fn summary_line(report: &Report) -> String {
    let counts = report.counts();
    let n = |s| counts.get(&s).copied().unwrap_or(0);
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut line = format!(
        "{}: {}, {}, {} info",
        plural(report.documents.len(), "document"),
        plural(n(Severity::Error), "error"),
        plural(n(Severity::Warning), "warning"),
        n(Severity::Info)
    );
    if !report.errors.is_empty() {
        line.push_str(&format!(
            "; {} could not be read",
            plural(report.errors.len(), "input")
        ));
    }
    line
}
