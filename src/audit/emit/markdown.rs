//! `--format markdown`: a comment for a pull request. A verdict line, the responses that break
//! the contract, and the worst findings with their fixes.

use std::io::{self, Write};

use super::{Emitter, Settings, summary_line, worst_findings};
use crate::audit::Report;

pub struct Markdown;

/// Text safe inside a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

impl Emitter for Markdown {
    fn emit(&self, report: &Report, settings: &Settings, out: &mut dyn Write) -> io::Result<()> {
        let failed = settings.fails_report(report);
        writeln!(
            out,
            "### mcpguard audit: {}\n",
            if failed { "failed" } else { "passed" }
        )?;
        writeln!(out, "{}\n", summary_line(report))?;
        let flagged = || report.documents.iter().filter(|d| d.worst.is_some());
        if flagged().next().is_some() {
            writeln!(out, "| response | tool | bytes | tokens | worst | codes |")?;
            writeln!(out, "|---|---|--:|--:|---|---|")?;
            for d in flagged() {
                let mut codes: Vec<&str> = d.findings.iter().map(|f| f.code).collect();
                codes.sort_unstable();
                codes.dedup();
                writeln!(
                    out,
                    "| `{}` | {} | {} | {} | {} | {} |",
                    cell(&d.name),
                    cell(&d.tool),
                    d.wire_bytes,
                    d.tokens,
                    d.worst.map_or(String::new(), |s| s.to_string()),
                    codes.join(" ")
                )?;
            }
            writeln!(out)?;
        }
        let worst = worst_findings(report, settings.top);
        if !worst.is_empty() {
            writeln!(out, "<details><summary>Worst findings</summary>\n")?;
            for f in worst {
                writeln!(
                    out,
                    "- **{} {}** `{}` at `{}`: {}. {}",
                    f.code,
                    f.severity,
                    cell(&f.document),
                    crate::json::pointer::display(&f.pointer),
                    cell(&f.message),
                    cell(&f.help)
                )?;
            }
            writeln!(out, "\n</details>")?;
        }
        Ok(())
    }
}
