//! `--format junit`: a test suite per tool and a test case per response; findings at or above
//! `--fail-on` are failures, the rest are listed in the case's output.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::{Emitter, Settings};
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
        let mut suites: BTreeMap<&str, Vec<&DocumentReport>> = BTreeMap::new();
        for d in &report.documents {
            suites.entry(&d.tool).or_default().push(d);
        }
        let failed = |d: &DocumentReport| d.findings.iter().any(|f| settings.fails(f.severity));
        let total_failures = report.documents.iter().filter(|d| failed(d)).count();
        writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
        writeln!(
            out,
            r#"<testsuites name="mcpguard audit" tests="{}" failures="{total_failures}" errors="{}">"#,
            report.documents.len(),
            report.errors.len()
        )?;
        for (tool, docs) in suites {
            let failures = docs.iter().filter(|d| failed(d)).count();
            writeln!(
                out,
                r#"  <testsuite name="{}" tests="{}" failures="{failures}">"#,
                xml(tool),
                docs.len()
            )?;
            for d in docs {
                writeln!(
                    out,
                    r#"    <testcase name="{}" classname="{}">"#,
                    xml(&d.name),
                    xml(tool)
                )?;
                let mut listed = String::new();
                for f in &d.findings {
                    let line = format!(
                        "{} {} {} at {}: {} ({})\n",
                        f.severity,
                        f.code,
                        f.rule,
                        crate::pointer::display(&f.pointer),
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
