//! `--format sarif`: SARIF 2.1.0, for code scanning dashboards. Every rule of the catalogue is
//! described once; each finding is a result located at its file, line and column, with its
//! JSON pointer as a logical location and what a fix saves as properties.

use std::io::{self, Write};

use serde_json::{Value, json};

use super::{Emitter, Settings};
use crate::audit::Report;
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
        let files: std::collections::HashMap<&str, &str> = report
            .documents
            .iter()
            .map(|d| (d.name.as_str(), d.file.as_str()))
            .collect();
        let results: Vec<Value> = report
            .findings()
            .map(|f| {
                let index = RULES.iter().position(|r| r.code == f.code).unwrap_or(0);
                let file = files.get(f.document.as_str()).copied().unwrap_or(&f.document);
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
                            "fullyQualifiedName": format!("{}{}", f.document, crate::pointer::display(&f.pointer)),
                            "kind": "element",
                        }],
                    }],
                    "properties": properties,
                })
            })
            .collect();
        let log = json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": {
                    "name": "mcpguard",
                    "version": settings.version,
                    "rules": rules,
                }},
                "results": results,
                "columnKind": "unicodeCodePoints",
            }],
        });
        serde_json::to_writer_pretty(&mut *out, &log)?;
        writeln!(out)
    }
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
