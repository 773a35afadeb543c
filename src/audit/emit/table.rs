//! `--format table` (the default): what a reviewer reads at a glance. A row per response,
//! statistics per tool, the worst findings with what fixing them saves, where the bytes of the
//! largest responses go, suggestions per client, and a closing line with the verdict.

use std::io::{self, Write};

use super::{Emitter, Settings, first_by, summary_line, worst_findings};
use crate::audit::Report;
use crate::util::human::{table as grid, thousands as n, write_streamed};

pub struct Table;

impl Emitter for Table {
    fn emit(&self, report: &Report, settings: &Settings, out: &mut dyn Write) -> io::Result<()> {
        if let Some(first) = report.documents.first() {
            let clients: Vec<&str> = first.clients.keys().collect();
            let mut header = vec![
                "document",
                "tool",
                "bytes",
                "tokens",
                "depth",
                "longest array",
                "longest string",
                "verdict",
            ];
            header.extend(&clients);
            // A row per response: written as it is made (twice: widths, then text), so a
            // transcript of millions of responses is not held a second time as a table.
            let row = |d: &crate::audit::DocumentReport| {
                let verdict = match d.worst {
                    None => "pass".to_owned(),
                    Some(s) => {
                        let mut codes: Vec<&str> = d
                            .findings
                            .iter()
                            .filter(|f| f.severity == s)
                            .map(|f| f.code)
                            .collect();
                        codes.dedup();
                        format!("{s} {}", codes.join(" "))
                    }
                };
                let mut row = vec![
                    d.name.clone(),
                    d.tool.clone(),
                    n(d.wire_bytes),
                    crate::util::human::token_count(d.tokens, d.counted_with),
                    d.depth.to_string(),
                    d.longest_array
                        .as_ref()
                        .map_or("-".into(), |e| n(e.len as u64)),
                    d.longest_string
                        .as_ref()
                        .map_or("-".into(), |e| n(e.len as u64)),
                    verdict,
                ];
                row.extend(d.clients.values().map(|v| v.to_string()));
                row
            };
            write_streamed(out, &header, &[2, 3, 4, 5, 6], || {
                report.documents.iter().map(|d| row(&d))
            })?;
            writeln!(out)?;
        }

        if report.tools.len() > 1 || report.tools.first().is_some_and(|t| t.count > 1) {
            writeln!(out, "\nper tool:")?;
            let mut t = grid(
                &[
                    "tool",
                    "responses",
                    "bytes p50",
                    "p95",
                    "max",
                    "tokens p50",
                    "p95",
                    "max",
                    "findings",
                ],
                &[1, 2, 3, 4, 5, 6, 7, 8],
            );
            for s in &report.tools {
                t.add_row(vec![
                    s.tool.clone(),
                    s.count.to_string(),
                    n(s.bytes.p50),
                    n(s.bytes.p95),
                    n(s.bytes.max),
                    n(s.tokens.p50),
                    n(s.tokens.p95),
                    n(s.tokens.max),
                    s.findings.to_string(),
                ]);
            }
            writeln!(out, "{t}")?;
        }

        if !report.servers.is_empty() {
            writeln!(out, "\nservers:")?;
            let mut t = grid(
                &[
                    "server",
                    "transport",
                    "reports as",
                    "protocol",
                    "tools (pages)",
                    "catalog tokens",
                    "heaviest tool",
                    "calls",
                    "latency p50 / max",
                    "took",
                ],
                &[5, 7],
            );
            for s in &report.servers {
                let heaviest = s
                    .tools
                    .first()
                    .map_or("-".to_owned(), |t| format!("{} ({})", t.name, n(t.tokens)));
                t.add_row(vec![
                    s.name.clone(),
                    s.transport.to_owned(),
                    s.server.clone().unwrap_or_else(|| "-".into()),
                    protocol_cell(s),
                    format!("{} ({})", s.tool_count, s.tool_pages),
                    n(s.catalog_tokens),
                    heaviest,
                    s.calls.to_string(),
                    format!("{:.1} / {:.1} ms", s.latency_p50_ms, s.latency_max_ms),
                    format!("{:.2} s", s.elapsed_ms / 1000.0),
                ]);
            }
            writeln!(out, "{t}")?;
            if report.servers.len() > 1 {
                // What a client that starts all of them loads: every server's catalog.
                let tools: usize = report.servers.iter().map(|s| s.tool_count).sum();
                let tokens: u64 = report.servers.iter().map(|s| s.catalog_tokens).sum();
                writeln!(
                    out,
                    "  all {} servers: {} tools, {} catalog tokens, {:.1}% of a 200,000-token context window at every start",
                    report.servers.len(),
                    n(tools as u64),
                    n(tokens),
                    tokens as f64 / 2000.0
                )?;
            }
            if let Some(plan) = &report.tier_plan {
                write_tier_plan(out, plan)?;
            }
            for s in &report.servers {
                writeln!(out, "  {}: {}", s.name, era_line(s))?;
                for skipped in &s.skipped {
                    writeln!(out, "  {}: did not call {skipped}", s.name)?;
                }
            }
        }

        let worst = worst_findings(report, settings.top);
        if !worst.is_empty() {
            writeln!(out, "\nworst findings:")?;
            for f in worst {
                let saves = f
                    .savings
                    .filter(|s| s.bytes > 0)
                    .map_or(String::new(), |s| {
                        format!(" [fix saves {} B, ~{} tokens]", n(s.bytes), n(s.tokens))
                    });
                writeln!(
                    out,
                    "  {:<7} {} {} {}",
                    f.severity.to_string(),
                    f.code,
                    f.document,
                    crate::json::pointer::display(&f.pointer)
                )?;
                writeln!(out, "          {}{saves}", f.message)?;
                writeln!(out, "          help: {}", f.help)?;
            }
        }

        let largest = first_by(
            report.documents.iter().filter(|d| !d.top_paths.is_empty()),
            3,
            |a, b| b.wire_bytes.cmp(&a.wire_bytes),
        );
        if !largest.is_empty() {
            writeln!(out, "\nwhere the tokens go (largest responses):")?;
            for d in largest {
                writeln!(
                    out,
                    "  {} ({} bytes, {} tokens)",
                    d.name,
                    n(d.wire_bytes),
                    n(d.tokens)
                )?;
                for p in d.top_paths.iter().take(3) {
                    let share = p.tokens as f64 * 100.0 / d.tokens.max(1) as f64;
                    writeln!(
                        out,
                        "    {share:>5.1}%  {}",
                        crate::json::pointer::display(&p.path)
                    )?;
                }
            }
        }

        if !report.suggestions.is_empty() {
            writeln!(out, "\nsuggestions:")?;
            for s in &report.suggestions {
                let hint = s.size_hint_chars.map_or(String::new(), |c| {
                    format!(
                        "; or raise the client's result-size limit to {} characters (p95 + 25%)",
                        n(c)
                    )
                });
                writeln!(
                    out,
                    "  {} in {} ({}): {}{hint}",
                    s.tool, s.client, s.verdict, s.fix
                )?;
            }
        }

        if !report.errors.is_empty() {
            writeln!(out, "\ncould not read:")?;
            for e in &report.errors {
                writeln!(out, "  {e}")?;
            }
        }
        writeln!(out, "\n{}", summary_line(report))
    }
}

/// The protocol a server spoke, and whether it speaks the other era too.
pub(crate) fn protocol_cell(s: &crate::audit::ServerSummary) -> String {
    let version = s.protocol_version.as_deref().unwrap_or("-");
    match s.dual_era {
        Some(true) => format!("{version}, dual-era"),
        Some(false) => format!("{version} only"),
        None if crate::net::mcp::era::is_modern(version) => format!("{version} (legacy not asked)"),
        None => version.to_owned(),
    }
}

/// How the era was learned, what the server advertises and declares.
pub(crate) fn era_line(s: &crate::audit::ServerSummary) -> String {
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_owned()
        } else {
            v.join(", ")
        }
    };
    format!(
        "era by {}; supports {}; capabilities {}; extensions {}",
        if s.era_detection.is_empty() {
            "-"
        } else {
            &s.era_detection
        },
        list(&s.supported_versions),
        list(&s.capabilities),
        list(&s.extensions)
    )
}

/// Seed 004's tiers over the whole catalog, each total against its budget.
fn write_tier_plan(out: &mut dyn Write, plan: &crate::contract::tiers::TierPlan) -> io::Result<()> {
    writeln!(
        out,
        "  behind the tiered gateway (`mcpguard proxy --mcp-config FILE`, catalog tiered), seed 004's tiers, exact claude counts:"
    )?;
    for tier in &plan.tiers {
        writeln!(
            out,
            "    {} {:>7} / {:>6} {}  {}",
            tier.tier,
            n(tier.tokens),
            n(tier.budget),
            if tier.within() { "ok  " } else { "OVER" },
            tier.holds
        )?;
    }
    let start = plan.tiers.first().map_or(0, |t| t.tokens);
    writeln!(
        out,
        "    at start {} tokens against {} for the {} tools listed whole (exact, named SERVER__TOOL)",
        n(start),
        n(plan.full_tokens),
        n(plan.tools as u64)
    )
}
