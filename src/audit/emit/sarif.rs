//! `--format sarif`: SARIF 2.1.0, for code scanning dashboards. Every rule of the catalogue is
//! described once; each finding is a result located at its file, line and column, with its
//! JSON pointer as a logical location and what a fix saves as properties.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::{Value, json};

use super::{Emitter, Settings};
use crate::audit::{Finding, Report};
use crate::contract::{RULES, Severity};

pub struct Sarif;

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

impl Emitter for Sarif {
    fn emit(&self, report: &Report, settings: &Settings, out: &mut dyn Write) -> io::Result<()> {
        let rules: Vec<Value> = RULES
            .iter()
            .map(|r| {
                json!({
                    "id": r.code,
                    "name": r.name,
                    "shortDescription": {"text": r.summary},
                    "defaultConfiguration": {"level": level(r.severity)},
                })
            })
            .collect();
        let log = Log {
            schema: "https://json.schemastore.org/sarif-2.1.0.json",
            version: "2.1.0",
            runs: [Run {
                tool: json!({"driver": {
                    "name": "mcpguard",
                    "version": settings.version,
                    "rules": rules,
                }}),
                results: Results(report),
                column_kind: "unicodeCodePoints",
            }],
        };
        serde_json::to_writer_pretty(&mut *out, &log)?;
        writeln!(out)
    }
}

/// The SARIF log, its members in this order.
#[derive(Serialize)]
struct Log<'r> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'r>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'r> {
    tool: Value,
    results: Results<'r>,
    column_kind: &'static str,
}

/// A result per finding, each made as it is written (the report's documents may be read back
/// from a file one at a time).
struct Results<'r>(&'r Report);

impl Serialize for Results<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.located_findings().map(|(f, file)| result(&f, &file)))
    }
}

/// A finding as a SARIF result located in `file`.
fn result(f: &Finding, file: &str) -> Value {
    let index = RULES.iter().position(|r| r.code == f.code).unwrap_or(0);
    let region = json!({
        "startLine": f.line.unwrap_or(1),
        "startColumn": f.column.unwrap_or(1),
    });
    let mut properties = json!({"pointer": f.pointer});
    if let Some(tool) = &f.tool {
        properties["tool"] = json!(tool);
    }
    if let Some(s) = f.savings {
        properties["savingsBytes"] = json!(s.bytes);
        properties["savingsTokens"] = json!(s.tokens);
    }
    json!({
        "ruleId": f.code,
        "ruleIndex": index,
        "level": level(f.severity),
        "message": {"text": format!("{}. {}", f.message, f.help)},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": uri(file)},
                "region": region,
            },
            "logicalLocations": [{
                "fullyQualifiedName": format!("{}{}", f.document, crate::json::pointer::display(&f.pointer)),
                "kind": "element",
            }],
        }],
        "properties": properties,
    })
}

/// A relative path as a URI reference: forward slashes, spaces and the like percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.replace('\\', "/").bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
