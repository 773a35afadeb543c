//! `--format junit`: a test suite per tool and a test case per response; findings at or above
//! `--fail-on` are failures, the rest are listed in the case's output.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::{Emitter, Settings};
use crate::audit::stats::by_tool;
use crate::audit::{DocumentReport, Report};

pub struct Junit;

fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 forbids most control characters even escaped.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

impl Emitter for Junit {
    fn emit(&self, report: &Report, settings: &Settings, out: &mut dyn Write) -> io::Result<()> {
        // Each tool's documents (by their place: a report's documents may be read back from a
        // file one at a time), and how many of them fail.
        let failed = |d: &DocumentReport| d.findings.iter().any(|f| settings.fails(f.severity));
        let mut suites: BTreeMap<String, (Vec<usize>, usize)> = BTreeMap::new();
        for (i, d) in report.documents.iter().enumerate() {
            let suite = by_tool(&mut suites, &d.tool, Default::default);
            suite.0.push(i);
            suite.1 += usize::from(failed(&d));
        }
        let total_failures: usize = suites.values().map(|(_, failures)| failures).sum();
        writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
        writeln!(
            out,
            r#"<testsuites name="mcpguard audit" tests="{}" failures="{total_failures}" errors="{}">"#,
            report.documents.len(),
            report.errors.len()
        )?;
        for (tool, (places, failures)) in suites {
            writeln!(
                out,
                r#"  <testsuite name="{}" tests="{}" failures="{failures}">"#,
                xml(&tool),
                places.len()
            )?;
            for d in report.documents.pick(places) {
                writeln!(
                    out,
                    r#"    <testcase name="{}" classname="{}">"#,
                    xml(&d.name),
                    xml(&tool)
                )?;
                let mut listed = String::new();
                for f in &d.findings {
                    let line = format!(
                        "{} {} {} at {}: {} ({})\n",
                        f.severity,
                        f.code,
                        f.rule,
                        crate::json::pointer::display(&f.pointer),
                        f.message,
                        f.help
                    );
                    if settings.fails(f.severity) {
                        writeln!(
                            out,
                            r#"      <failure type="{}" message="{}">{}</failure>"#,
                            f.code,
                            xml(&f.message),
                            xml(&line)
                        )?;
                    } else {
                        listed.push_str(&line);
                    }
                }
                if !listed.is_empty() {
                    writeln!(out, "      <system-out>{}</system-out>", xml(&listed))?;
                }
                writeln!(out, "    </testcase>")?;
            }
            writeln!(out, "  </testsuite>")?;
        }
        if !report.errors.is_empty() {
            writeln!(
                out,
                r#"  <testsuite name="unreadable inputs" tests="{0}" errors="{0}">"#,
                report.errors.len()
            )?;
            for e in &report.errors {
                writeln!(
                    out,
                    r#"    <testcase name="{}"><error message="{}"/></testcase>"#,
                    xml(e),
                    xml(e)
                )?;
            }
            writeln!(out, "  </testsuite>")?;
        }
        writeln!(out, "</testsuites>")
    }
}
