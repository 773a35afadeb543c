//! The response linter: every captured response checked against the contract.
//!
//! A finding is data (code, severity, document, JSON pointer, message, help, and what a fix
//! would save), never a printed line: emitters in [`emit`] turn a finished [`Report`] into a
//! table, JSON, SARIF, JUnit, GitHub annotations or Markdown. A document that cannot be read is
//! an [`crate::document::input::InputError`] kept in the report in its place; the rest are still audited.

pub mod baseline;
pub mod catalogs;
pub mod documents;
pub mod emit;
mod findings;
pub mod live;
pub mod metrics;
pub mod pinned;
mod protocol;
mod rules;
pub mod run;
pub mod stats;
pub mod transcript;

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::config::Config;
use crate::contract::RuleId;
use crate::contract::{self, ClientProfile, Limits, RuleLevel, Severity};
use crate::document;
use crate::document::input::Document;
use crate::json::node::{Node, ReadText};
use crate::measure::estimate::{self, Options};
use crate::measure::{self, Extent, PathCost};
use crate::tokens::Tokenizer;
use crate::tokens::media::MediaRule;

pub use documents::Documents;
pub use transcript::Call;

/// A name from a fixed list: a rule's code or name, a document's kind, a counter. (An alias,
/// so that serde reads it back through [`one_of`] instead of borrowing it from the text read.)
pub type Known = &'static str;

/// What a fix would save.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Savings {
    pub bytes: u64,
    pub tokens: u64,
}

/// One broken rule in one place. (Read back only from a report's own spill, [`documents`].)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    #[serde(deserialize_with = "rule_code")]
    pub code: Known,
    #[serde(deserialize_with = "rule_name")]
    pub rule: Known,
    pub severity: Severity,
    pub document: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// JSON pointer in the document (`#` then a pointer inside a JSON text block).
    pub pointer: String,
    pub message: String,
    pub help: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub savings: Option<Savings>,
    /// Line and column of the pointer in the file, when it could be located.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Finding {
    /// A finding about a run rather than a place in one response (baseline growth, what a
    /// live session saw), with the rule's severity for `tool` from the config, or `None` when
    /// the rule is turned off for it. It names no tool, pointer or savings: callers add those
    /// that apply.
    pub fn about_run(
        ctx: &Context,
        id: RuleId,
        tool: &str,
        document: &str,
        message: String,
        help: String,
    ) -> Option<Finding> {
        let severity = ctx.severity(id, tool)?;
        let rule = id.rule();
        Some(Finding {
            code: rule.code,
            rule: rule.name,
            severity,
            document: document.to_owned(),
            tool: None,
            pointer: String::new(),
            message,
            help,
            savings: None,
            line: None,
            column: None,
        })
    }
}

/// Everything the audit says about one response.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentReport {
    pub name: String,
    /// The file it came from (for a JSONL line: the transcript).
    pub file: String,
    /// The line in the file (JSONL), else 1.
    pub line: usize,
    pub tool: String,
    #[serde(deserialize_with = "kind_label")]
    pub kind: Known,
    pub wire_bytes: u64,
    pub visible_chars: u64,
    pub tokens: u64,
    /// The counter the count comes from (with `auto`: `claude` for a small response or near a
    /// limit, else `claude-fast`).
    #[serde(deserialize_with = "counter_name")]
    pub counted_with: Known,
    pub depth: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longest_array: Option<Extent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longest_string: Option<Extent>,
    pub clients: crate::contract::Verdicts,
    /// The worst severity among its findings, or none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst: Option<Severity>,
    pub findings: Vec<Finding>,
    /// Where the bytes go, for responses over maxBytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub top_paths: Vec<PathCost>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    /// Largest number of items in a list it carries.
    pub item_count: u64,
    pub pagination_used: bool,
    pub summarization_used: bool,
    pub chunking_used: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The name `known` holds that was written, read back as that very `&'static str`.
fn one_of<'de, D: Deserializer<'de>>(
    written: D,
    known: impl IntoIterator<Item = &'static str>,
) -> Result<&'static str, D::Error> {
    let name = String::deserialize(written)?;
    known
        .into_iter()
        .find(|k| *k == name)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown name {name:?}")))
}

fn rule_code<'de, D: Deserializer<'de>>(written: D) -> Result<&'static str, D::Error> {
    one_of(written, contract::RULES.iter().map(|r| r.code))
}

fn rule_name<'de, D: Deserializer<'de>>(written: D) -> Result<&'static str, D::Error> {
    one_of(written, contract::RULES.iter().map(|r| r.name))
}

fn kind_label<'de, D: Deserializer<'de>>(written: D) -> Result<&'static str, D::Error> {
    one_of(written, document::Kind::ALL.map(document::Kind::label))
}

fn counter_name<'de, D: Deserializer<'de>>(written: D) -> Result<&'static str, D::Error> {
    one_of(written, Tokenizer::ALL.map(Tokenizer::name))
}

/// What an audit checks against, resolved once from the config and the flags.
pub struct Context {
    pub config: Config,
    pub tokenizer: Tokenizer,
    pub clients: BTreeMap<String, ClientProfile>,
    /// The response contract (`--contract`): contract mode, MG006 and MG017.
    pub contract: Option<jsonschema::Validator>,
}

impl Context {
    /// The limits for a tool: its endpoint overrides over the global ones.
    pub fn limits(&self, tool: &str) -> Limits {
        self.config.limits_for(tool)
    }

    /// The severity a rule has for a tool (`None`: turned off): the tool's `rules`, then the
    /// global `rules`, then the rule's default.
    ///
    /// Panics on a code that is not in the catalogue: that is a bug in mcpguard, not input.
    pub fn severity(&self, id: RuleId, tool: &str) -> Option<Severity> {
        let rule = id.rule();
        let level = |rules: &BTreeMap<String, RuleLevel>| {
            rules
                .iter()
                .find(|(k, _)| contract::find_rule(k).is_some_and(|r| r.code == rule.code))
                .map(|(_, v)| *v)
        };
        let chosen = self
            .config
            .endpoints
            .get(tool)
            .and_then(|e| level(&e.rules))
            .or_else(|| level(&self.config.rules));
        match chosen {
            Some(RuleLevel::Off) => None,
            Some(RuleLevel::Info) => Some(Severity::Info),
            Some(RuleLevel::Warning) => Some(Severity::Warning),
            Some(RuleLevel::Error) => Some(Severity::Error),
            None => Some(rule.severity),
        }
    }

    fn estimate_options(&self) -> Options {
        Options {
            tokenizer: self.tokenizer,
            compare: false,
            top: 0,
            threshold: self.config.token_budget_threshold,
            hard_cap: self.config.hard_cap,
            media_tokens: self.config.media_tokens,
            clients: self.clients.clone(),
            limits: vec![self.config.limits.max_catalog_tokens],
        }
    }
}

/// One message as the audit reads it: where it came from, its text as read, and the tree of
/// that text (serde_json's for a transcript's line, which the pairing has read already; the
/// borrowed [`crate::json::borrowed::Json`] for a whole file, read in less than half the time).
pub struct Message<'a, N: ReadText<'a>> {
    /// How reports name it.
    pub name: &'a str,
    /// The file it came from (for a JSONL line: the transcript).
    pub file: &'a str,
    /// The line in the file it starts on.
    pub line: usize,
    pub text: &'a str,
    pub tree: &'a N,
    /// What the JSON inside its text blocks is read with (the borrowed tree's arena).
    pub reader: N::Reader,
}

impl<'a> Message<'a, Value> {
    /// A document read by [`crate::document::input`], with serde_json's tree.
    pub fn of(doc: &'a Document) -> Self {
        Message {
            name: &doc.name,
            file: &doc.file,
            line: doc.line,
            text: &doc.text,
            tree: &doc.value,
            reader: (),
        }
    }
}

impl<'a, N: ReadText<'a>> Message<'a, N> {
    /// The same message with another tree of its text (the borrowed one, and its arena).
    pub fn with_tree<M: ReadText<'a>>(&self, tree: &'a M, reader: M::Reader) -> Message<'a, M> {
        Message {
            name: self.name,
            file: self.file,
            line: self.line,
            text: self.text,
            tree,
            reader,
        }
    }
}

/// Audits one message. `call` is what the transcript knows of the request it answers.
pub fn audit_document<'a, N: ReadText<'a> + Clone>(
    message: &Message<'a, N>,
    call: &Call,
    ctx: &Context,
) -> DocumentReport {
    let Message {
        name,
        file,
        line,
        text,
        tree,
        reader,
    } = *message;
    let anatomy = document::anatomy_in(tree, text, reader);
    let tool = call
        .tool
        .clone()
        .or_else(|| call.method.clone().filter(|m| m != "tools/call"))
        .unwrap_or_else(|| default_tool_name(file, anatomy.kind));
    let est = estimate::estimate_anatomy(name, text.len(), &anatomy, &ctx.estimate_options());
    let limits = ctx.limits(&tool);
    // Where the bytes go is worth the extra bookkeeping only for responses over the limit.
    let large = est.wire_bytes > limits.max_bytes;
    let profile = measure::profile(
        &anatomy,
        large,
        MediaRule::new(ctx.tokenizer, ctx.config.media_tokens),
    );

    let mut findings = rules::check(
        &findings::Input {
            name,
            tree,
            anatomy: &anatomy,
            estimate: &est,
            tool: &tool,
            limits: &limits,
            call,
        },
        ctx,
    );
    if !findings.is_empty() {
        let pointers: Vec<&str> = findings.iter().map(|f| f.pointer.as_str()).collect();
        let located = crate::json::pointer::locate_all(text, &pointers);
        for f in &mut findings {
            if let Some(&(l, c)) = located.get(&f.pointer) {
                f.line = Some(line + l - 1);
                f.column = Some(c);
            }
        }
    }
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.code.cmp(b.code))
            .then_with(|| a.pointer.cmp(&b.pointer))
    });
    let counter = crate::tokens::calibrated::Scaled {
        counter: ctx.tokenizer.counter(),
        scale: est.part_scale,
    };
    let top_paths = profile.top_paths(&counter, 5);
    let payload = payload_json(&anatomy);
    let has = |k: &str| payload.is_some_and(|p| p.get(k).is_some());
    let mut notes = Vec::new();
    if call.unmatched {
        notes.push("no request with this id earlier in the transcript: tool unknown".to_owned());
    }
    DocumentReport {
        name: name.to_owned(),
        file: file.to_owned(),
        line,
        kind: anatomy.kind.label(),
        wire_bytes: est.wire_bytes,
        visible_chars: est.visible_chars,
        tokens: est.tokens,
        counted_with: est.counted_with,
        depth: profile.shape.depth,
        item_count: profile
            .shape
            .longest_array
            .as_ref()
            .map_or(0, |e| e.len as u64),
        longest_array: profile.shape.longest_array,
        longest_string: profile.shape.longest_string,
        clients: est.clients,
        worst: findings.iter().map(|f| f.severity).max(),
        findings,
        top_paths,
        latency_ms: call.latency_ms,
        pagination_used: has("nextCursor") || has("hasMore"),
        summarization_used: has("summary") && has("artifactRef"),
        chunking_used: has("chunkIndex"),
        notes,
        tool,
    }
}

/// For a response with no request to name its tool: the list method for a list result, else
/// the file's name without its folder and extension (one capture per tool is the usual layout).
fn default_tool_name(file: &str, kind: document::Kind) -> String {
    match kind {
        document::Kind::ListResult(_) => kind.label().to_owned(),
        _ => std::path::Path::new(file)
            .file_stem()
            .map_or_else(|| file.to_owned(), |s| s.to_string_lossy().into_owned()),
    }
}

/// The JSON the model reads as the response's content: the JSON text of the first text block,
/// else structuredContent, else the payload itself for plain JSON.
fn payload_json<'a, N: Node + Clone>(anatomy: &'a document::Anatomy<'_, N>) -> Option<&'a N> {
    anatomy.parts.iter().find_map(|p| match &p.content {
        document::PartContent::Text { json: Some(v), .. } => Some(&**v),
        document::PartContent::Raw(_) => Some(anatomy.payload),
        _ => None,
    })
}

/// A whole audit: every document, the inputs that could not be read, and what was checked
/// across documents (baseline findings). `--format json` writes it as `emit::json`'s envelope.
///
/// Documents come in through [`Report::extend`], which keeps what the summary and the per-tool
/// statistics need as they pass, so that [`Documents`] may spill the documents themselves.
#[derive(Debug, Default)]
pub struct Report {
    pub documents: Documents,
    /// Inputs that could not be read, each naming the input.
    pub errors: Vec<String>,
    /// Findings about the corpus as a whole (baseline growth, stale entries).
    pub corpus_findings: Vec<Finding>,
    pub tools: Vec<stats::ToolStats>,
    pub suggestions: Vec<stats::Suggestion>,
    /// Live servers audited, one summary each.
    pub servers: Vec<ServerSummary>,
    /// Seed 004's tiers over the live servers' whole catalog.
    pub tier_plan: Option<crate::contract::tiers::TierPlan>,
    /// How many findings of each severity the documents have.
    document_counts: BTreeMap<Severity, usize>,
    tallies: stats::Tallies,
}

/// What a live session found out about a server as a whole.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerSummary {
    pub name: String,
    /// The command or URL (never a header or environment value).
    pub target: String,
    pub transport: &'static str,
    /// The version every request used: 2026-07-28 (modern) or what initialize settled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The versions the server advertised.
    pub supported_versions: Vec<String>,
    /// Whether it answers both eras (asked only under `--protocol auto`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dual_era: Option<bool>,
    /// How the era was learned (`server/discover`, or why initialize was used).
    pub era_detection: String,
    /// The capabilities it declared, by name, and the extensions among them.
    pub capabilities: Vec<String>,
    pub extensions: Vec<String>,
    /// serverInfo's name and version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    pub tool_count: usize,
    pub tool_pages: usize,
    /// The whole catalog's tokens (every page's tool definitions).
    pub catalog_tokens: u64,
    /// Tools by the tokens of their definition, heaviest first.
    pub tools: Vec<CatalogTool>,
    pub messages: usize,
    pub calls: usize,
    /// Tools --probe left alone, with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    pub latency_p50_ms: f64,
    pub latency_max_ms: f64,
    pub elapsed_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CatalogTool {
    pub name: String,
    pub tokens: u64,
}

impl ServerSummary {
    pub fn of(session: &crate::audit::live::Session, ctx: &Context) -> ServerSummary {
        let counter = ctx.tokenizer.counter();
        let mut tools: Vec<CatalogTool> = session
            .tools
            .iter()
            .map(|(name, json)| CatalogTool {
                name: name.clone(),
                tokens: counter.count(json) as u64,
            })
            .collect();
        tools.sort_by(|a, b| b.tokens.cmp(&a.tokens).then_with(|| a.name.cmp(&b.name)));
        // The audit's own percentiles (nearest rank), over whole microseconds.
        let latency = stats::Spread::of(
            session
                .latencies
                .values()
                .map(|ms| (ms * 1000.0).round() as u64)
                .collect(),
        );
        let negotiated = &session.server;
        let server = negotiated.server_info.as_ref().map(|i| {
            let name = i
                .get("name")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("?");
            match i.get("version").and_then(serde_json::Value::as_str) {
                Some(v) => format!("{name} {v}"),
                None => name.to_owned(),
            }
        });
        ServerSummary {
            name: session.name.clone(),
            target: session.target.clone(),
            transport: session.transport,
            protocol_version: negotiated.version.clone(),
            supported_versions: negotiated.supported.clone(),
            dual_era: negotiated.dual_era,
            era_detection: negotiated.detection.clone(),
            capabilities: negotiated
                .capabilities
                .as_object()
                .map(|c| c.keys().filter(|k| *k != "extensions").cloned().collect())
                .unwrap_or_default(),
            extensions: negotiated
                .capabilities
                .pointer("/extensions")
                .and_then(serde_json::Value::as_object)
                .map(|e| e.keys().cloned().collect())
                .unwrap_or_default(),
            server,
            tool_count: tools.len(),
            tool_pages: session.tool_pages,
            catalog_tokens: tools.iter().map(|t| t.tokens).sum(),
            tools,
            messages: session.transcript.lines().count(),
            calls: session.calls,
            skipped: session.skipped.clone(),
            latency_p50_ms: latency.p50 as f64 / 1000.0,
            latency_max_ms: latency.max as f64 / 1000.0,
            elapsed_ms: session.elapsed_ms,
            error: session.error.as_ref().map(ToString::to_string),
        }
    }
}

impl Report {
    /// An empty report whose documents spill past `hold_max` bytes (see [`Documents`]).
    pub fn holding(hold_max: usize) -> Report {
        Report {
            documents: Documents::holding(hold_max),
            ..Report::default()
        }
    }

    /// Adds documents after the others.
    pub fn extend(&mut self, docs: Vec<DocumentReport>) {
        docs.iter().for_each(|doc| self.count(doc));
        self.documents.extend(docs);
    }

    /// What the summary and the per-tool statistics keep of a document.
    fn count(&mut self, doc: &DocumentReport) {
        for f in &doc.findings {
            *self.document_counts.entry(f.severity).or_insert(0) += 1;
        }
        self.tallies.add(doc);
    }

    /// Every finding, document ones first (in document order), then corpus ones. Those of a
    /// spilled document are read back with it.
    pub fn findings(&self) -> impl Iterator<Item = Cow<'_, Finding>> {
        self.documents
            .iter()
            .flat_map(|d| FindingsOf::of(d).0)
            .chain(self.corpus_findings.iter().map(Cow::Borrowed))
    }

    /// Every finding as [`Report::findings`] gives them, each with the file it is in: its
    /// document's file, or for a finding about the run, the one it names.
    pub fn located_findings(&self) -> impl Iterator<Item = (Cow<'_, Finding>, Cow<'_, str>)> {
        self.documents
            .iter()
            .flat_map(|d| {
                let (findings, file) = FindingsOf::of(d);
                findings.map(move |f| (f, file.clone()))
            })
            .chain(
                self.corpus_findings
                    .iter()
                    .map(|f| (Cow::Borrowed(f), Cow::Borrowed(f.document.as_str()))),
            )
    }

    /// How many findings of each severity.
    pub fn counts(&self) -> BTreeMap<Severity, usize> {
        let mut counts = self.document_counts.clone();
        for f in &self.corpus_findings {
            *counts.entry(f.severity).or_insert(0) += 1;
        }
        counts
    }

    /// Whether any finding is at or above `severity`.
    pub fn has_finding_at(&self, severity: Severity) -> bool {
        self.counts().iter().any(|(&s, &n)| s >= severity && n > 0)
    }

    /// Fills in per-tool statistics and suggestions once every document is in, and puts the
    /// documents spilled into their file.
    pub fn finish(&mut self, ctx: &Context) {
        self.documents.flush();
        self.tools = self.tallies.per_tool();
        self.suggestions = stats::suggestions(&self.tallies, &self.tools, ctx);
    }
}

/// A document's findings: borrowed from one held, moved out of one read back.
enum FindingsOf<'r> {
    Held(std::slice::Iter<'r, Finding>),
    Read(std::vec::IntoIter<Finding>),
}

impl<'r> FindingsOf<'r> {
    /// A document's findings, and its file.
    fn of(d: Cow<'r, DocumentReport>) -> (FindingsOf<'r>, Cow<'r, str>) {
        match d {
            Cow::Borrowed(d) => (
                FindingsOf::Held(d.findings.iter()),
                Cow::Borrowed(d.file.as_str()),
            ),
            Cow::Owned(d) => (FindingsOf::Read(d.findings.into_iter()), Cow::Owned(d.file)),
        }
    }
}

impl<'r> Iterator for FindingsOf<'r> {
    type Item = Cow<'r, Finding>;

    fn next(&mut self) -> Option<Cow<'r, Finding>> {
        match self {
            FindingsOf::Held(held) => held.next().map(Cow::Borrowed),
            FindingsOf::Read(read) => read.next().map(Cow::Owned),
        }
    }
}
