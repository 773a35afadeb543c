//! `--format github`: GitHub Actions workflow commands, one annotation per finding, shown on
//! the file (and line) in the pull request.

use std::io::{self, Write};

use super::{Emitter, Settings};
use crate::audit::Report;
use crate::contract::Severity;

pub struct Github;

/// Escapes a message (data) per the workflow-command rules.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (also `:` and `,`).
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

impl Emitter for Github {
    fn emit(&self, report: &Report, _: &Settings, out: &mut dyn Write) -> io::Result<()> {
        for (f, file) in report.located_findings() {
            let level = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let mut props = format!("file={}", property(&file));
            if let Some(line) = f.line {
                props.push_str(&format!(",line={line}"));
            }
            if let Some(col) = f.column {
                props.push_str(&format!(",col={col}"));
            }
            props.push_str(&format!(
                ",title={}",
                property(&format!("{} {}", f.code, f.rule))
            ));
            let at = crate::json::pointer::display(&f.pointer);
            writeln!(
                out,
                "::{level} {props}::{}",
                data(&format!("{} at {at}. {}", f.message, f.help))
            )?;
        }
        Ok(())
    }
}
