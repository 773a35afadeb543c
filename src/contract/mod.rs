//! The response contract: its limits, its rule catalogue, and the clients' own limits.
//!
//! Defaults come from seed 003 (INV-MCP-RESP-001..006) and seed 000; `contracts/invariants.yaml`
//! writes the same numbers down with their sources, and a test keeps the two in step. Rule codes
//! are stable: a code is never reused for another check.

pub mod pin_hashes;
pub mod pins;
pub mod telemetry;
pub mod tiers;

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
    pub id: RuleId,
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
}

/// Every rule mcpguard knows, as one table: the variant names a rule in code, then its code
/// (stable, never reused), its name in configs and reports, its default severity and what it
/// checks. `RuleId` and [`RULES`] are generated from it, so they cannot disagree.
macro_rules! rules {
    ($($id:ident = $code:ident $name:literal $severity:ident $summary:literal;)*) => {
        /// A rule, named in code: `RuleId::ResponseTooLarge` is MG001.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum RuleId {
            $($id,)*
        }

        /// The catalogue, in code order (`RuleId as usize` is a rule's index).
        pub const RULES: &[Rule] = &[
            $(Rule {
                id: RuleId::$id,
                code: stringify!($code),
                name: $name,
                severity: Severity::$severity,
                summary: $summary,
            },)*
        ];
    };
}

rules! {
    ResponseTooLarge = MG001 "response-too-large" Error "response over maxBytes (INV-MCP-RESP-001)";
    ArrayNotPaginated = MG002 "array-not-paginated" Error "array over maxArrayItems without hasMore/nextCursor (INV-MCP-RESP-002)";
    StringTooLong = MG003 "string-too-long" Warning "string over maxStringLength characters (INV-MCP-RESP-003)";
    TooDeep = MG004 "too-deep" Warning "JSON nested deeper than maxJsonDepth (INV-MCP-RESP-004)";
    MissingArtifactRef = MG005 "missing-artifact-ref" Warning "large result without an artifactRef (INV-MCP-RESP-005)";
    SummaryMissing = MG006 "summary-missing" Warning "no summary field (contract mode, INV-MCP-RESP-006)";
    SummaryTooLong = MG007 "summary-too-long" Warning "summary over maxSummaryLength characters (INV-MCP-RESP-006)";
    OverTokenBudget = MG008 "over-token-budget" Warning "tokens over tokenBudgetThreshold: summarize (FR-010)";
    OverHardCap = MG009 "over-hard-cap" Error "tokens over hardCap";
    ListWithoutCursor = MG010 "list-without-cursor" Warning "list over defaultPageSize without a cursor (FR-001)";
    PaginationInconsistent = MG011 "pagination-inconsistent" Error "hasMore and nextCursor disagree (FR-004)";
    Base64InText = MG012 "base64-in-text" Warning "base64 blob inside text or data";
    StructuredDuplicated = MG013 "structured-duplicated" Warning "structuredContent repeated as text";
    PrettyPrintedJson = MG014 "pretty-printed-json" Info "JSON text with whitespace a minify would save";
    ToolDescriptionTooLong = MG015 "tool-description-too-long" Warning "tool description over maxToolDescriptionBytes";
    CatalogOverBudget = MG016 "catalog-over-budget" Warning "tools/list catalog over maxCatalogTokens (seed 004 tiers)";
    ContractSchema = MG017 "contract-schema" Error "payload does not match the response contract (--contract)";
    ToolGrew = MG018 "tool-grew" Error "a tool's p95 size grew past --max-growth over the baseline";
    BaselineStale = MG019 "baseline-stale" Error "a baseline entry for a tool this audit did not see";
    InvalidCursorAccepted = MG020 "invalid-cursor-accepted" Error "a list answered an invalid cursor without error -32602 (live audit)";
    CursorRepeated = MG021 "cursor-repeated" Error "a list's nextCursor repeats a cursor already followed: it never ends";
    ListRunaway = MG022 "list-runaway" Error "a list still had a nextCursor after --max-pages pages (live audit)";
    CallExpectation = MG023 "call-expectation" Error "a tool call broke an expectation of --calls (live audit)";
    ToolsOrderUnstable = MG024 "tools-order-unstable" Warning "tools/list listed an unchanged catalog in another order: prompt caches miss";
    CacheHintsMissing = MG025 "cache-hints-missing" Warning "a 2026-07-28 list/read/discover result without ttlMs >= 0 and cacheScope";
    ResultTypeMissing = MG026 "result-type-missing" Error "a 2026-07-28 result without a resultType a client recognizes";
    StructuredContentInvalid = MG027 "structured-content-invalid" Error "structuredContent missing or not valid against the tool's outputSchema";
    SchemaRefUnresolved = MG028 "schema-ref-unresolved" Error "an inputSchema or outputSchema $ref that does not resolve inside the schema";
    ResourceNotFoundCode = MG029 "resource-not-found-code" Warning "a missing resource answered with -32002 on 2026-07-28 (now -32602)";
    EraViolation = MG030 "era-violation" Error "a 2026-07-28 server broke its era: stray stream messages, initialize demanded (live)";
    InputRequired = MG031 "input-required" Info "a call answered input_required; an audit never answers one (live audit)";
    HeaderAnnotationInvalid = MG032 "header-annotation-invalid" Error "a tool's x-mcp-header breaks the spec's constraints: 2026-07-28 HTTP clients drop the tool";
    UnreadableResponse = MG033 "unreadable-response" Error "a capture could not be read (not UTF-8 JSON, over a read limit): nothing in it was checked";
    ToolNameCollision = MG034 "tool-name-collision" Warning "two servers of one client list the same tool name: a client that merges the lists keeps one";
    ToolNameInvalid = MG035 "tool-name-invalid" Error "a tool name clients refuse: outside [A-Za-z0-9_.-], or over 64 characters";
    ToolDefinitionChanged = MG036 "tool-definition-changed" Error "a tool's definition differs from its pin (audit --pins): a changed description or schema, or a new tool";
}

impl RuleId {
    /// The rule's entry in the catalogue.
    pub fn rule(self) -> &'static Rule {
        &RULES[self as usize]
    }

    /// The rule's code (`MG001`), as findings and configs write it.
    pub fn code(self) -> &'static str {
        self.rule().code
    }
}

/// The cursor a live audit sends to check that a server refuses cursors it did not issue
/// (MG020); a transcript that holds it is checked the same way.
pub const INVALID_CURSOR_PROBE: &str = "mcpguard-invalid-cursor-probe";

/// The URI a live audit reads to check how a server answers a resource it does not have
/// (MG029 when a 2026-07-28 server still says -32002).
pub const MISSING_RESOURCE_PROBE: &str = "mcpguard-probe://missing-resource";

/// The rule a config key names, by code (`MG003`) or by name (`string-too-long`).
pub fn find_rule(key: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .find(|r| r.code.eq_ignore_ascii_case(key) || r.name == key)
}

/// What a client does with large tool output. Every number is optional: a client that has no
/// such limit leaves it out. `source` (and `clientVersion`) say where the numbers come from, so
/// users can check them and override them under `clients:` in their config.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientProfile {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warn_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// How the client decides that a result is over `maxTokens`: a cheap estimate first, the
    /// model's tokenizer only in between (Claude Code). Without it the count is compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<QuickEstimate>,
    /// What the model gets from a result over `maxTokens` (default `refuse`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_max_tokens: Option<OverMax>,
    /// Results whose text is longer than this many characters are written to a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spill_chars: Option<u64>,
    /// ... and the model gets the first this many characters of it (else only a pointer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview_chars: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_lines: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_description_bytes: Option<u64>,
    /// The model receives `structuredContent` instead of the text blocks when a result has
    /// both; embedded binary resources and resource links become one line each.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub structured_content_first: bool,
    /// What the client refuses of an image by its size in pixels, whatever it costs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_limits: Option<ImageLimits>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_version: Option<String>,
    #[serde(default)]
    pub source: String,
}

/// A client's first, cheap look at a result's size: `chars / charsPerToken` plus
/// `imageTokens` per image. At most `keepAtMost` x maxTokens it keeps the result without
/// counting; above `tooLargeAbove` x maxTokens it is too large without counting; in between it
/// counts with the model's tokenizer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuickEstimate {
    pub chars_per_token: u64,
    pub image_tokens: u64,
    pub keep_at_most: f64,
    pub too_large_above: f64,
}

/// Limits on an image's size in pixels, apart from its tokens. Claude's API refuses a request
/// holding an image over `maxEdge` pixels on a side, and over `manyImagesMaxEdge` when the
/// request holds more than `manyImages` images; a client that passes MCP images on as they are
/// fails the turn. A result within the first limit but over the second is a warning: it is
/// refused once the conversation holds more than `manyImages` images.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageLimits {
    pub max_edge: u32,
    pub many_images: u64,
    pub many_images_max_edge: u32,
    #[serde(default)]
    pub source: String,
}

impl ImageLimits {
    /// What the client does with a result holding `size.images` images, the largest
    /// `size.longest_image_edge` pixels on its long edge.
    pub fn verdict(&self, size: &ResponseSize) -> ClientVerdict {
        let edge = size.longest_image_edge;
        if edge > self.max_edge
            || (edge > self.many_images_max_edge && size.images > self.many_images)
        {
            ClientVerdict::Refuse
        } else if edge > self.many_images_max_edge {
            ClientVerdict::Warn
        } else {
            ClientVerdict::Ok
        }
    }
}

/// What a client does with a result over its `maxTokens`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OverMax {
    /// Rejected.
    #[default]
    Refuse,
    /// Written to a file; the model receives a notice naming it and nothing of the data.
    FileOnly,
    /// Cut to `maxTokens x charsPerToken` characters, plus a notice.
    Truncate,
}

/// The clients mcpguard knows out of the box (DESIGN.md section 3). The same numbers, with
/// their sources, are in contracts/invariants.yaml; a test keeps the two equal.
pub fn default_clients() -> BTreeMap<String, ClientProfile> {
    let mut clients = BTreeMap::new();
    clients.insert(
        "claude-code".to_owned(),
        ClientProfile {
            max_tokens: Some(25_000),
            estimate: Some(QuickEstimate {
                chars_per_token: 4,
                image_tokens: 1_600,
                keep_at_most: 0.5,
                too_large_above: 4.0,
            }),
            over_max_tokens: Some(OverMax::FileOnly),
            spill_chars: Some(50_000),
            preview_chars: Some(2_000),
            max_description_bytes: Some(2_048),
            structured_content_first: true,
            image_limits: Some(ImageLimits {
                max_edge: 8000,
                many_images: 20,
                many_images_max_edge: 2000,
                source: "Claude's vision guide (platform.claude.com/docs/en/build-with-claude/vision): 8000x8000 px at most, 2000x2000 px in a request of more than 20 images; Claude Code passes MCP images on as they are and fails the turn (anthropics/claude-code issues 20605, 51540)".into(),
            }),
            client_version: Some("2.1.328".into()),
            source: "measured by driving Claude Code 2.1.328 (npm @anthropic-ai/claude-code) offline against a local stand-in for its API; MAX_MCP_OUTPUT_TOKENS defaults to 25000; ENABLE_MCP_LARGE_OUTPUT_FILES=0 turns file-only into truncate"
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

/// Each client's verdict on one response, in the order of the clients' names, written as a
/// JSON object. A short vector rather than a map: reports keep one per response, and a map's
/// smallest node is ten times the size of a verdict or two.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdicts(Vec<(String, ClientVerdict)>);

impl Verdicts {
    /// The clients' names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(name, _)| name.as_str())
    }

    /// The verdicts, in the order of [`Verdicts::keys`].
    pub fn values(&self) -> impl Iterator<Item = ClientVerdict> + '_ {
        self.0.iter().map(|(_, verdict)| *verdict)
    }

    pub fn get(&self, client: &str) -> Option<ClientVerdict> {
        self.0
            .iter()
            .find(|(name, _)| name == client)
            .map(|(_, verdict)| *verdict)
    }
}

impl FromIterator<(String, ClientVerdict)> for Verdicts {
    fn from_iter<I: IntoIterator<Item = (String, ClientVerdict)>>(iter: I) -> Self {
        let mut pairs: Vec<_> = iter.into_iter().collect();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        pairs.dedup_by(|later, earlier| later.0 == earlier.0);
        pairs.shrink_to_fit();
        Verdicts(pairs)
    }
}

impl Serialize for Verdicts {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(name, verdict)| (name, verdict)))
    }
}

impl<'de> Deserialize<'de> for Verdicts {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Pairs;
        impl<'de> serde::de::Visitor<'de> for Pairs {
            type Value = Verdicts;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a verdict for each client, by the client's name")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Verdicts, A::Error> {
                let mut pairs = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(pair) = map.next_entry()? {
                    pairs.push(pair);
                }
                Ok(pairs.into_iter().collect())
            }
        }
        deserializer.deserialize_map(Pairs)
    }
}

/// What a client does with one response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClientVerdict {
    /// Taken as it is.
    Ok,
    /// Taken, with a warning to the user.
    Warn,
    /// Written to a file; the model gets a pointer to it.
    Spill,
    /// Written to a file; the model gets the first `previewChars` of it.
    Preview,
    /// Truncated: the model sees only the start.
    Cut,
    /// Over `maxTokens` and cut to fit, with a notice.
    Truncated,
    /// Over `maxTokens`: the model gets a notice naming a file, and nothing of the data.
    FileOnly,
    /// Rejected.
    Refuse,
}

impl fmt::Display for ClientVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClientVerdict::Ok => "ok",
            ClientVerdict::Warn => "warn",
            ClientVerdict::Spill => "spill",
            ClientVerdict::Preview => "preview",
            ClientVerdict::Cut => "cut",
            ClientVerdict::Truncated => "truncated",
            ClientVerdict::FileOnly => "file-only",
            ClientVerdict::Refuse => "refuse",
        })
    }
}

/// What one response looks like to a client, measured on what that client shows the model.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResponseSize {
    /// The run's own count (its `--tokenizer`).
    pub tokens: u64,
    pub chars: u64,
    /// Characters as JavaScript counts them (UTF-16 code units): what a JS client compares.
    pub utf16: u64,
    pub bytes: u64,
    pub lines: u64,
    /// Images and audio blocks.
    pub media: u64,
    /// The images among them whose size their header gives, and the longest edge of any.
    pub images: u64,
    pub longest_image_edge: u32,
}

impl ClientProfile {
    /// The limits this client compares the run's own count with. A client with its own
    /// `estimate` judges `maxTokens` by that estimate and an exact count of its own (see
    /// [`ClientProfile::verdict`]), so only its warning threshold is the run's business.
    pub fn token_limits(&self) -> impl Iterator<Item = u64> + '_ {
        let max = self.max_tokens.filter(|_| self.estimate.is_none());
        [self.warn_tokens, max].into_iter().flatten()
    }

    /// The most severe thing this client does with a response of this size. `exact` counts
    /// what the client shows the model as Claude's tokenizer would, at least exactly enough to
    /// fall on the right side of `maxTokens`; it is called only where the client itself would
    /// count.
    pub fn verdict(&self, size: ResponseSize, exact: impl FnOnce() -> u64) -> ClientVerdict {
        let images = self
            .image_limits
            .as_ref()
            .map_or(ClientVerdict::Ok, |l| l.verdict(&size));
        self.token_verdict(size, exact).max(images)
    }

    /// The verdict on the response's size in tokens, characters, bytes and lines.
    fn token_verdict(&self, size: ResponseSize, exact: impl FnOnce() -> u64) -> ClientVerdict {
        let over = |limit: Option<u64>, value: u64| limit.is_some_and(|l| value > l);
        let over_max = match (self.max_tokens, &self.estimate) {
            (Some(max), Some(e)) => {
                let quick =
                    size.utf16.div_ceil(e.chars_per_token.max(1)) + size.media * e.image_tokens;
                if quick as f64 <= max as f64 * e.keep_at_most {
                    false
                } else if quick as f64 > max as f64 * e.too_large_above {
                    true
                } else {
                    exact() > max
                }
            }
            (max, None) => over(max, size.tokens),
            (None, Some(_)) => false,
        };
        let chars = if self.estimate.is_some() {
            size.utf16
        } else {
            size.chars
        };
        if over_max {
            match self.over_max_tokens.unwrap_or_default() {
                OverMax::Refuse => ClientVerdict::Refuse,
                OverMax::FileOnly => ClientVerdict::FileOnly,
                OverMax::Truncate => ClientVerdict::Truncated,
            }
        } else if over(self.cut_bytes, size.bytes) || over(self.cut_lines, size.lines) {
            ClientVerdict::Cut
        } else if over(self.spill_chars, chars) {
            if self.preview_chars.is_some() {
                ClientVerdict::Preview
            } else {
                ClientVerdict::Spill
            }
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
    fn claude_code_verdicts_follow_the_client() {
        let cc = &default_clients()["claude-code"];
        let text = |utf16: u64| ResponseSize {
            tokens: 0,
            chars: utf16,
            utf16,
            bytes: utf16,
            lines: 1,
            ..ResponseSize::default()
        };
        let never = || -> u64 { panic!("the client does not count here") };
        // Up to half the limit by chars/4: kept without counting.
        assert_eq!(cc.verdict(text(50_000), never), ClientVerdict::Ok);
        // Kept, but over 50,000 characters: a 2,000-character preview (50,000 kept, 50,001 not).
        assert_eq!(cc.verdict(text(50_001), || 20_000), ClientVerdict::Preview);
        // In between, the exact count decides.
        assert_eq!(cc.verdict(text(60_000), || 25_000), ClientVerdict::Preview);
        assert_eq!(cc.verdict(text(60_000), || 25_001), ClientVerdict::FileOnly);
        // Over four times the limit: too large without counting.
        assert_eq!(cc.verdict(text(400_004), never), ClientVerdict::FileOnly);
        // Images count 1,600 each in the estimate.
        let images = ResponseSize {
            media: 7,
            ..text(0)
        };
        assert_eq!(cc.verdict(images, never), ClientVerdict::Ok);
        let images = ResponseSize {
            media: 9,
            ..text(0)
        };
        assert_eq!(cc.verdict(images, || 14_400), ClientVerdict::Ok);
        // An image's pixels: over 8,000 on a side refused; over 2,000 a warning, refused in a
        // result of more than 20 images.
        let shot = |images: u64, edge: u32| ResponseSize {
            media: images,
            images,
            longest_image_edge: edge,
            ..text(100)
        };
        assert_eq!(cc.verdict(shot(1, 2000), never), ClientVerdict::Ok);
        assert_eq!(cc.verdict(shot(1, 2001), never), ClientVerdict::Warn);
        assert_eq!(cc.verdict(shot(20, 2001), || 0), ClientVerdict::Warn);
        assert_eq!(cc.verdict(shot(21, 2001), || 0), ClientVerdict::Refuse);
        assert_eq!(cc.verdict(shot(1, 8001), never), ClientVerdict::Refuse);
        // With ENABLE_MCP_LARGE_OUTPUT_FILES=0 the result is cut instead.
        let truncating = ClientProfile {
            over_max_tokens: Some(OverMax::Truncate),
            ..cc.clone()
        };
        assert_eq!(
            truncating.verdict(text(400_004), never),
            ClientVerdict::Truncated
        );
    }

    #[test]
    fn generic_profiles_compare_their_numbers() {
        let copilot = &default_clients()["copilot-cli"];
        let size = ResponseSize {
            tokens: 10,
            chars: 20_000,
            utf16: 20_000,
            bytes: 20_000,
            lines: 1,
            ..ResponseSize::default()
        };
        assert_eq!(copilot.verdict(size, || unreachable!()), ClientVerdict::Cut);
    }
}
