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

use std::borrow::Cow;
use std::cmp::Ordering;
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

    /// Whether `report` has a finding that fails the run.
    pub fn fails_report(&self, report: &Report) -> bool {
        self.fail_on.is_some_and(|f| report.has_finding_at(f))
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

/// The worst `n` findings, worst first: severity, then what fixing them saves, then document
/// order.
pub(crate) fn worst_findings(report: &Report, n: usize) -> Vec<Cow<'_, super::Finding>> {
    let saved = |f: &super::Finding| f.savings.map_or(0, |s| s.bytes);
    first_by(report.findings(), n, |a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| saved(b).cmp(&saved(a)))
    })
}

/// The first `n` of `items` as a stable sort by `order` would put them, holding no more than
/// those `n` at once (a report's documents may be read back from a file one at a time).
pub(crate) fn first_by<T>(
    items: impl Iterator<Item = T>,
    n: usize,
    order: impl Fn(&T, &T) -> Ordering,
) -> Vec<T> {
    let mut kept: Vec<T> = Vec::with_capacity(n.min(1024) + 1);
    for item in items {
        // After every kept one that is not after it: equals keep their order.
        let at = kept.partition_point(|k| order(k, &item) != Ordering::Greater);
        if at < n {
            kept.insert(at, item);
            kept.truncate(n);
        }
    }
    kept
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Severity;

    /// Every format writes the same bytes whether the report's documents are held, partly
    /// spilled to a file or all spilled: the walks that read them back lose nothing and keep
    /// their order.
    #[test]
    fn every_format_is_the_same_from_a_spilled_report() {
        let held = json::tests::report();
        let partly = json::tests::report_holding(40_000);
        let spilled = json::tests::report_holding(0);
        assert_eq!(held.documents.spilled(), 0);
        assert!(
            (1..partly.documents.len()).contains(&partly.documents.spilled()),
            "{} of {} spilled",
            partly.documents.spilled(),
            partly.documents.len()
        );
        assert_eq!(spilled.documents.spilled(), held.documents.len());
        let settings = Settings {
            fail_on: Some(Severity::Warning),
            version: "0.0.0-test",
            top: 10,
            context: None,
        };
        let formats = [
            Format::Table,
            Format::Json,
            Format::Jsonl,
            Format::Sarif,
            Format::Junit,
            Format::Github,
            Format::Markdown,
            Format::Html,
        ];
        for format in formats {
            let write = |report: &Report| {
                let mut out = Vec::new();
                emitter(format).emit(report, &settings, &mut out).unwrap();
                assert_eq!(report.documents.read_error(), None);
                String::from_utf8(out).unwrap()
            };
            let want = write(&held);
            assert!(want.len() > 1000, "{format:?}: {want}");
            assert_eq!(write(&partly), want, "{format:?}, partly spilled");
            assert_eq!(write(&spilled), want, "{format:?}, all spilled");
        }
    }

    /// The worst findings as a stable sort would list them, with no more held than asked for.
    #[test]
    fn first_by_is_a_stable_sort_cut_short() {
        let items: Vec<(u8, usize)> = (0..500).map(|i| ((i * 7919 % 13) as u8, i)).collect();
        for n in [0, 1, 5, 13, 499, 500, 600] {
            let mut want = items.clone();
            want.sort_by_key(|item| std::cmp::Reverse(item.0));
            want.truncate(n);
            assert_eq!(
                first_by(items.iter().copied(), n, |a, b| b.0.cmp(&a.0)),
                want
            );
        }
    }
}
