//! The response contract: its limits, its rule catalogue, and the clients' own limits.
//!
//! Defaults come from seed 003 (INV-MCP-RESP-001..006) and seed 000; `contracts/invariants.yaml`
//! writes the same numbers down with their sources, and a test keeps the two in step. Rule codes
//! are stable: a code is never reused for another check.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The structural limits a response must keep (seed 003, "Hard Response Limits").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Limits {
    /// INV-MCP-RESP-001: whole message, bytes on the wire.
    pub max_bytes: u64,
    /// INV-MCP-RESP-002: items per array without `hasMore`/`nextCursor`.
    pub max_array_items: u64,
    /// INV-MCP-RESP-003: characters per string.
    pub max_string_length: u64,
    /// INV-MCP-RESP-004: nesting, the root being depth 0.
    pub max_json_depth: u64,
    /// INV-MCP-RESP-006: characters of the `summary` field.
    pub max_summary_length: u64,
    /// Claude Code cuts tool descriptions at 2 KB.
    pub max_tool_description_bytes: u64,
    /// Seed 004's T0 budget: what a tool catalog loaded at start may cost.
    pub max_catalog_tokens: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 10_240,
            max_array_items: 10,
            max_string_length: 500,
            max_json_depth: 4,
            max_summary_length: 100,
            max_tool_description_bytes: 2_048,
            max_catalog_tokens: 2_000,
        }
    }
}

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// What the config may set a rule to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleLevel {
    Off,
    Info,
    Warning,
    Error,
}

/// One entry of the rule catalogue.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
}

/// Every rule mcpguard knows. Codes are stable and never reused.
pub const RULES: &[Rule] = &[
    Rule {
        code: "MG001",
        name: "response-too-large",
        severity: Severity::Error,
        summary: "response over maxBytes (INV-MCP-RESP-001)",
    },
    Rule {
        code: "MG002",
        name: "array-not-paginated",
        severity: Severity::Error,
        summary: "array over maxArrayItems without hasMore/nextCursor (INV-MCP-RESP-002)",
    },
    Rule {
        code: "MG003",
        name: "string-too-long",
        severity: Severity::Warning,
        summary: "string over maxStringLength characters (INV-MCP-RESP-003)",
    },
    Rule {
        code: "MG004",
        name: "too-deep",
        severity: Severity::Warning,
        summary: "JSON nested deeper than maxJsonDepth (INV-MCP-RESP-004)",
    },
    Rule {
        code: "MG005",
        name: "missing-artifact-ref",
        severity: Severity::Warning,
        summary: "large result without an artifactRef (INV-MCP-RESP-005)",
    },
    Rule {
        code: "MG006",
        name: "summary-missing",
        severity: Severity::Warning,
        summary: "no summary field (contract mode, INV-MCP-RESP-006)",
    },
    Rule {
        code: "MG007",
        name: "summary-too-long",
        severity: Severity::Warning,
        summary: "summary over maxSummaryLength characters (INV-MCP-RESP-006)",
    },
    Rule {
        code: "MG008",
        name: "over-token-budget",
        severity: Severity::Warning,
        summary: "tokens over tokenBudgetThreshold: summarize (FR-010)",
    },
    Rule {
        code: "MG009",
        name: "over-hard-cap",
        severity: Severity::Error,
        summary: "tokens over hardCap",
    },
    Rule {
        code: "MG010",
        name: "list-without-cursor",
        severity: Severity::Warning,
        summary: "list over defaultPageSize without a cursor (FR-001)",
    },
    Rule {
        code: "MG011",
        name: "pagination-inconsistent",
        severity: Severity::Error,
        summary: "hasMore and nextCursor disagree (FR-004)",
    },
    Rule {
        code: "MG012",
        name: "base64-in-text",
        severity: Severity::Warning,
        summary: "base64 blob inside text or data",
    },
    Rule {
        code: "MG013",
        name: "structured-duplicated",
        severity: Severity::Warning,
        summary: "structuredContent repeated as text",
    },
    Rule {
        code: "MG014",
        name: "pretty-printed-json",
        severity: Severity::Info,
        summary: "JSON text with whitespace a minify would save",
    },
    Rule {
        code: "MG015",
        name: "tool-description-too-long",
        severity: Severity::Warning,
        summary: "tool description over maxToolDescriptionBytes",
    },
    Rule {
        code: "MG016",
        name: "catalog-over-budget",
        severity: Severity::Warning,
        summary: "tools/list catalog over maxCatalogTokens (seed 004 tiers)",
    },
    Rule {
        code: "MG017",
        name: "contract-schema",
        severity: Severity::Error,
        summary: "payload does not match the response contract (--contract)",
    },
    Rule {
        code: "MG018",
        name: "tool-grew",
        severity: Severity::Error,
        summary: "a tool's p95 size grew past --max-growth over the baseline",
    },
    Rule {
        code: "MG019",
        name: "baseline-stale",
        severity: Severity::Error,
        summary: "a baseline entry for a tool this audit did not see",
    },
    Rule {
        code: "MG020",
        name: "invalid-cursor-accepted",
        severity: Severity::Error,
        summary: "a list answered an invalid cursor without error -32602 (live audit)",
    },
    Rule {
        code: "MG021",
        name: "cursor-repeated",
        severity: Severity::Error,
        summary: "a list's nextCursor repeats a cursor already followed: it never ends",
    },
    Rule {
        code: "MG022",
        name: "list-runaway",
        severity: Severity::Error,
        summary: "a list still had a nextCursor after --max-pages pages (live audit)",
    },
    Rule {
        code: "MG023",
        name: "call-expectation",
        severity: Severity::Error,
        summary: "a tool call broke an expectation of --calls (live audit)",
    },
];

/// The cursor a live audit sends to check that a server refuses cursors it did not issue
/// (MG020); a transcript that holds it is checked the same way.
pub const INVALID_CURSOR_PROBE: &str = "mcpguard-invalid-cursor-probe";

/// The rule a config key names, by code (`MG003`) or by name (`string-too-long`).
pub fn find_rule(key: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .find(|r| r.code.eq_ignore_ascii_case(key) || r.name == key)
}

/// What a client does with large tool output. Every number is optional: a client that has no
/// such limit leaves it out. `source` says where the number comes from, so users can check it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientProfile {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warn_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spill_chars: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_lines: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_description_bytes: Option<u64>,
    #[serde(default)]
    pub source: String,
}

/// The clients mcpguard knows out of the box (DESIGN.md section 3).
pub fn default_clients() -> BTreeMap<String, ClientProfile> {
    let mut clients = BTreeMap::new();
    clients.insert(
        "claude-code".to_owned(),
        ClientProfile {
            warn_tokens: Some(10_000),
            max_tokens: Some(25_000),
            spill_chars: Some(50_000),
            max_description_bytes: Some(2_048),
            source: "Claude Code docs, MCP output limits (MAX_MCP_OUTPUT_TOKENS, default 25000)"
                .into(),
            ..ClientProfile::default()
        },
    );
    clients.insert(
        "copilot-cli".to_owned(),
        ClientProfile {
            cut_bytes: Some(10_240),
            source: "GitHub Copilot CLI: MCP text output truncated at 10 KB".into(),
            ..ClientProfile::default()
        },
    );
    clients.insert(
        "opencode".to_owned(),
        ClientProfile {
            cut_bytes: Some(51_200),
            cut_lines: Some(2_000),
            source: "OpenCode: tool output truncated at 50 KiB or 2000 lines".into(),
            ..ClientProfile::default()
        },
    );
    clients
}

/// What a client does with one response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClientVerdict {
    /// Taken as it is.
    Ok,
    /// Taken, with a warning to the user.
    Warn,
    /// Written to a file; the model gets a pointer to it.
    Spill,
    /// Truncated: the model sees only the start.
    Cut,
    /// Rejected.
    Refuse,
}

impl fmt::Display for ClientVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClientVerdict::Ok => "ok",
            ClientVerdict::Warn => "warn",
            ClientVerdict::Spill => "spill",
            ClientVerdict::Cut => "cut",
            ClientVerdict::Refuse => "refuse",
        })
    }
}

/// What one response looks like to a client.
#[derive(Clone, Copy, Debug)]
pub struct ResponseSize {
    pub tokens: u64,
    pub chars: u64,
    pub bytes: u64,
    pub lines: u64,
}

impl ClientProfile {
    /// The most severe thing this client does with a response of this size.
    pub fn verdict(&self, size: ResponseSize) -> ClientVerdict {
        let over = |limit: Option<u64>, value: u64| limit.is_some_and(|l| value > l);
        if over(self.max_tokens, size.tokens) {
            ClientVerdict::Refuse
        } else if over(self.cut_bytes, size.bytes) || over(self.cut_lines, size.lines) {
            ClientVerdict::Cut
        } else if over(self.spill_chars, size.chars) {
            ClientVerdict::Spill
        } else if over(self.warn_tokens, size.tokens) {
            ClientVerdict::Warn
        } else {
            ClientVerdict::Ok
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_findable() {
        let mut codes: Vec<_> = RULES.iter().map(|r| r.code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), RULES.len());
        assert_eq!(find_rule("mg003").unwrap().name, "string-too-long");
        assert_eq!(find_rule("too-deep").unwrap().code, "MG004");
        assert!(find_rule("MG999").is_none());
    }

    #[test]
    fn claude_code_verdicts() {
        let cc = &default_clients()["claude-code"];
        let size = |tokens| ResponseSize {
            tokens,
            chars: tokens * 3,
            bytes: tokens * 3,
            lines: 1,
        };
        assert_eq!(cc.verdict(size(9_000)), ClientVerdict::Ok);
        assert_eq!(cc.verdict(size(10_001)), ClientVerdict::Warn);
        assert_eq!(cc.verdict(size(20_000)), ClientVerdict::Spill);
        assert_eq!(cc.verdict(size(25_001)), ClientVerdict::Refuse);
    }
}
