//! The servers of one live audit as one client sees them, all at once: a tool name two servers
//! share (MG034: a client that merges their lists, or a gateway that does not prefix them,
//! keeps one), a name clients refuse (MG035), and all their catalogs together over the budget
//! of what a client loads at start (MG016, with what the tiered gateway would load instead).

use std::collections::BTreeMap;

use crate::contract::RuleId;

use super::{Context, Finding, Report};

/// The longest tool name the clients' patterns accept (Claude Desktop's and the Anthropic
/// API's `^[a-zA-Z0-9_-]{1,64}$`).
pub const CLIENT_NAME_MAX: usize = 64;

/// Adds the findings that need every server of the audit.
pub fn across_servers(report: &mut Report, ctx: &Context) {
    let mut owners: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for server in &report.servers {
        for tool in &server.tools {
            owners.entry(&tool.name).or_default().push(&server.name);
        }
    }
    let mut found = Vec::new();
    for (name, servers) in &owners {
        if servers.len() > 1 {
            found.extend(Finding::about_run(
                ctx,
                RuleId::ToolNameCollision,
                name,
                &format!("{}.jsonl", servers[1]),
                format!(
                    "`{name}` is listed by {}: a client that merges the lists keeps one of them, and which one is up to it",
                    servers.join(" and ")
                ),
                "give each server's tools a prefix of their own, or put one `mcpguard proxy --mcp-config FILE` in front of them all: it lists them as SERVER__NAME".into(),
            ));
        }
        if let Some(why) = refused(name) {
            for server in servers {
                found.extend(Finding::about_run(
                    ctx,
                    RuleId::ToolNameInvalid,
                    name,
                    &format!("{server}.jsonl"),
                    format!("the tool name `{name}` {why}"),
                    "keep tool names to 1-64 characters of A-Z a-z 0-9 _ - . (MCP 2025-11-25, server/tools \"Tool names\": 1-128 of those characters; Claude Desktop and the Anthropic API accept ^[a-zA-Z0-9_-]{1,64}$). mcpguard proxy --mcp-config FILE renames such tools within what clients accept".into(),
                ));
            }
        }
    }
    // What a client that starts every server loads: all their catalogs at once.
    let budget = ctx.config.limits.max_catalog_tokens;
    // The plan's exact count of them as one list, else the servers' own counts summed.
    let total = report.tier_plan.as_ref().map_or_else(
        || report.servers.iter().map(|s| s.catalog_tokens).sum(),
        |plan| plan.full_tokens,
    );
    if report.servers.len() > 1 && total > budget {
        let gateway = report
            .tier_plan
            .as_ref()
            .and_then(|p| p.tiers.first())
            .map_or(String::new(), |t0| {
                format!(" (behind the tiered gateway it would load {})", t0.tokens)
            });
        found.extend(Finding::about_run(
            ctx,
            RuleId::CatalogOverBudget,
            "all servers",
            "servers.jsonl",
            format!(
                "the {} servers' catalogs cost {total} tokens together, loaded at every start: over the {budget} a catalog may cost{gateway}",
                report.servers.len()
            ),
            "put the servers behind one `mcpguard proxy --mcp-config FILE` (catalog auto or tiered: the most used tools listed, the rest found on demand), or drop servers this client does not need".into(),
        ));
    }
    report.corpus_findings.extend(found);
}

/// Why clients refuse a tool name, if they do.
pub fn refused(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("is empty".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Some(format!("holds {c:?}, outside A-Z a-z 0-9 _ - ."));
    }
    let length = name.chars().count();
    (length > CLIENT_NAME_MAX)
        .then(|| format!("is {length} characters, over the {CLIENT_NAME_MAX} clients accept"))
}

#[cfg(test)]
mod tests {
    use super::refused;

    #[test]
    fn names_clients_refuse_say_why() {
        assert_eq!(refused("get_file.v2-beta"), None);
        assert_eq!(
            refused("files:read").as_deref(),
            Some("holds ':', outside A-Z a-z 0-9 _ - .")
        );
        assert!(refused(&"a".repeat(65)).unwrap().contains("65 characters"));
        assert_eq!(refused(&"a".repeat(64)), None);
        assert!(refused("").is_some());
    }
}
