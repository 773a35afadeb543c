//! What a document costs: wire bytes, what the model sees, tokens, budget, client verdicts and
//! where the tokens go. The data behind `mcpguard estimate`; rendering is the CLI's job.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::contract::{ClientProfile, ClientVerdict, ResponseSize};
use crate::document::{self, PartContent};
use crate::input::Document;
use crate::measure::{self, PathCost};
use crate::tokens::Tokenizer;

/// How to estimate.
#[derive(Clone, Debug)]
pub struct Options {
    pub tokenizer: Tokenizer,
    /// Count with every estimator too.
    pub compare: bool,
    /// How many paths to list under "where the tokens go" (0: none, and the walk is skipped).
    pub top: usize,
    pub threshold: u64,
    pub hard_cap: u64,
    pub media_tokens: u64,
    /// Clients to judge against, by name.
    pub clients: BTreeMap<String, ClientProfile>,
}

/// Tokens against the budget (seed 002, TokenBudget).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    pub threshold: u64,
    pub hard_cap: u64,
    /// tokens / threshold, not clamped: 2.5 is two and a half budgets.
    pub used: f64,
    /// Tokens left under the threshold (0 when over).
    pub remaining: u64,
    /// Over the threshold: the response should be summarized (FR-010).
    pub summary_mode: bool,
    pub over_hard_cap: bool,
}

impl Budget {
    pub fn new(tokens: u64, threshold: u64, hard_cap: u64) -> Self {
        Budget {
            threshold,
            hard_cap,
            used: tokens as f64 / threshold.max(1) as f64,
            remaining: threshold.saturating_sub(tokens),
            summary_mode: tokens > threshold,
            over_hard_cap: tokens > hard_cap,
        }
    }
}

/// One estimator's count, for `--compare`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub tokenizer: &'static str,
    pub tokens: u64,
    /// (this - claude) / claude, in percent; absent for claude itself or an empty document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_vs_claude: Option<f64>,
}

/// Everything `estimate` says about one document.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentEstimate {
    pub name: String,
    pub kind: &'static str,
    pub wire_bytes: u64,
    pub visible_chars: u64,
    pub visible_bytes: u64,
    pub visible_lines: u64,
    pub tokenizer: &'static str,
    pub tokens: u64,
    pub budget: Budget,
    pub clients: BTreeMap<String, ClientVerdict>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub compare: Vec<Comparison>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub top_paths: Vec<PathCost>,
}

/// Sums over several documents.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub documents: u64,
    pub wire_bytes: u64,
    pub visible_chars: u64,
    pub tokens: u64,
    pub over_budget: u64,
    pub over_hard_cap: u64,
}

impl Totals {
    pub fn add(&mut self, e: &DocumentEstimate) {
        self.documents += 1;
        self.wire_bytes += e.wire_bytes;
        self.visible_chars += e.visible_chars;
        self.tokens += e.tokens;
        self.over_budget += u64::from(e.budget.summary_mode);
        self.over_hard_cap += u64::from(e.budget.over_hard_cap);
    }
}

/// The model-visible text of a document, piece by piece, and the media it carries.
struct Visible<'a> {
    texts: Vec<std::borrow::Cow<'a, str>>,
    media: u64,
}

fn visible<'a>(anatomy: &document::Anatomy<'a>) -> Visible<'a> {
    let mut v = Visible {
        texts: Vec::with_capacity(anatomy.parts.len()),
        media: 0,
    };
    for part in &anatomy.parts {
        match &part.content {
            PartContent::Text { text, .. } | PartContent::Raw(text) => v.texts.push((*text).into()),
            PartContent::Json(value) => v.texts.push(value.to_string().into()),
            PartContent::Media { .. } => v.media += 1,
        }
    }
    v
}

fn count(v: &Visible<'_>, tokenizer: Tokenizer, media_tokens: u64) -> u64 {
    let counter = tokenizer.counter();
    let text: u64 = v.texts.iter().map(|t| counter.count(t) as u64).sum();
    text + v.media * media_tokens
}

/// The tokens of what the model sees in a document taken apart.
pub fn tokens(anatomy: &document::Anatomy<'_>, tokenizer: Tokenizer, media_tokens: u64) -> u64 {
    count(&visible(anatomy), tokenizer, media_tokens)
}

/// Estimates one document.
pub fn estimate(doc: &Document, opts: &Options) -> DocumentEstimate {
    let anatomy = document::anatomy(&doc.value, &doc.text);
    estimate_anatomy(doc, &anatomy, opts)
}

/// Estimates a document already taken apart (the audit shares one [`document::Anatomy`]
/// between this and its rules).
pub fn estimate_anatomy(
    doc: &Document,
    anatomy: &document::Anatomy<'_>,
    opts: &Options,
) -> DocumentEstimate {
    let seen = visible(anatomy);
    let visible_chars: u64 = seen.texts.iter().map(|t| t.chars().count() as u64).sum();
    let visible_bytes: u64 = seen.texts.iter().map(|t| t.len() as u64).sum();
    let visible_lines: u64 = seen
        .texts
        .iter()
        .map(|t| t.lines().count() as u64)
        .sum::<u64>();
    let tokens = count(&seen, opts.tokenizer, opts.media_tokens);

    let size = ResponseSize {
        tokens,
        chars: visible_chars,
        bytes: visible_bytes,
        lines: visible_lines,
    };
    let clients = opts
        .clients
        .iter()
        .map(|(name, profile)| (name.clone(), profile.verdict(size)))
        .collect();

    let compare = if opts.compare {
        let counts: Vec<(Tokenizer, u64)> = Tokenizer::ALL
            .iter()
            .map(|&t| {
                (
                    t,
                    if t == opts.tokenizer {
                        tokens
                    } else {
                        count(&seen, t, opts.media_tokens)
                    },
                )
            })
            .collect();
        let claude = counts
            .iter()
            .find(|(t, _)| *t == Tokenizer::Claude)
            .map_or(0, |(_, n)| *n);
        counts
            .into_iter()
            .map(|(t, n)| Comparison {
                tokenizer: t.name(),
                tokens: n,
                error_vs_claude: (t != Tokenizer::Claude && claude > 0)
                    .then(|| (n as f64 - claude as f64) * 100.0 / claude as f64),
            })
            .collect()
    } else {
        Vec::new()
    };

    let top_paths = if opts.top > 0 {
        let profile = measure::profile(anatomy, true, opts.media_tokens as usize);
        profile.top_paths(opts.tokenizer.counter(), opts.top)
    } else {
        Vec::new()
    };

    DocumentEstimate {
        name: doc.name.clone(),
        kind: anatomy.kind.label(),
        wire_bytes: doc.text.len() as u64,
        visible_chars,
        visible_bytes,
        visible_lines,
        tokenizer: opts.tokenizer.name(),
        tokens,
        budget: Budget::new(tokens, opts.threshold, opts.hard_cap),
        clients,
        compare,
        top_paths,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::parse_text;

    fn opts() -> Options {
        Options {
            tokenizer: Tokenizer::Heuristic,
            compare: false,
            top: 3,
            threshold: 4000,
            hard_cap: 12000,
            media_tokens: 1600,
            clients: crate::contract::default_clients(),
        }
    }

    #[test]
    fn plain_json_costs_its_text() {
        let text = "{\n  \"id\": \"b-1\",\n  \"status\": \"confirmed\"\n}\n";
        let doc = parse_text("p.json", text).pop().unwrap().unwrap();
        let e = estimate(&doc, &opts());
        assert_eq!(e.kind, "json");
        assert_eq!(e.wire_bytes, text.len() as u64);
        assert_eq!(e.visible_chars, text.chars().count() as u64);
        assert_eq!(
            e.tokens,
            crate::tokens::heuristic_from_chars(text.chars().count()) as u64
        );
        assert_eq!(e.budget.remaining, 4000 - e.tokens);
    }

    #[test]
    fn images_cost_a_fixed_amount() {
        let text = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}]}}"#;
        let doc = parse_text("i.json", text).pop().unwrap().unwrap();
        let e = estimate(&doc, &opts());
        assert_eq!(e.tokens, 1600);
        assert_eq!(e.visible_chars, 0);
        assert_eq!(e.top_paths[0].path, "/result/content/0");
    }
}
