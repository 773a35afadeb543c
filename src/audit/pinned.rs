//! A live audit's tools against a pins file (MG036): the CI gate of the gateway's pins. Each
//! server's tools, as its tools/list gave them, are compared with their pins; a definition
//! that differs names the fields that changed and shows what a description lost and gained,
//! and a tool of a pinned server that has no pin is reported as new. A server the file has no
//! pins for is left alone: `--update-pins` writes them.

use crate::contract::RuleId;
use crate::contract::pins::Pins;

use super::live::Session;
use super::{Context, Finding, Report};

/// Adds an MG036 finding for every tool whose definition is not its pin.
pub fn compare(report: &mut Report, ctx: &Context, sessions: &[Session], pins: &Pins, file: &str) {
    for session in sessions {
        for change in pins.compare(&session.name, &session.definitions()) {
            let help = format!(
                "read the change; when it is what the server's authors meant, run the audit with --update-pins to pin it (or `mcpguard pins approve {}__{} --pins {file}`)",
                change.server, change.tool
            );
            report.corpus_findings.extend(
                Finding::about_run(
                    ctx,
                    RuleId::ToolDefinitionChanged,
                    &change.tool,
                    &format!("{}.jsonl", session.name),
                    change.describe(),
                    help,
                )
                .map(|f| Finding {
                    tool: Some(change.tool.clone()),
                    ..f
                }),
            );
        }
    }
}

/// Pins every tool the sessions saw as it is now (`--update-pins`).
pub fn update(pins: &mut Pins, sessions: &[Session], now: &str) {
    for session in sessions.iter().filter(|s| s.error.is_none()) {
        pins.approve_all(&session.name, &session.definitions(), now);
    }
}
