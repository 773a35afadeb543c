//! What a document costs: wire bytes, what the model sees, tokens, budget, client verdicts and
//! where the tokens go. The data behind `mcpguard estimate`; rendering is the CLI's job.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::contract::{ClientProfile, ResponseSize};
use crate::document::input::Document;
use crate::document::{self, PartContent};
use crate::json::compact;
use crate::json::node::Node;
use crate::measure::{self, PathCost};
use crate::tokens::calibrated::{self, Scaled};
use crate::tokens::media::{Block, MediaCost, MediaRule};
use crate::tokens::{Counted, Tokenizer};
use crate::util::text_memo::TextMemo;

/// How to estimate.
#[derive(Clone, Debug)]
pub struct Options {
    pub tokenizer: Tokenizer,
    /// Count with every counter too.
    pub compare: bool,
    /// How many paths to list under "where the tokens go" (0: none, and the walk is skipped).
    pub top: usize,
    pub threshold: u64,
    pub hard_cap: u64,
    /// What an image costs where its size cannot be read or no pixel rule applies, and audio
    /// and other media always (see [`crate::tokens::media`]).
    pub media_tokens: u64,
    /// Clients to judge against, by name.
    pub clients: BTreeMap<String, ClientProfile>,
    /// Further token limits a verdict rests on (`--max-tokens`, the catalog's): with `auto`, a
    /// count near any of them is made exactly.
    pub limits: Vec<u64>,
}

impl Options {
    /// Every token limit a verdict on this document rests on: budget, hard cap, the clients'
    /// limits and thresholds, and the caller's own.
    pub fn verdict_limits(&self) -> Vec<u64> {
        let mut limits = vec![self.threshold, self.hard_cap];
        limits.extend(self.clients.values().flat_map(ClientProfile::token_limits));
        limits.extend(&self.limits);
        limits
    }
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

/// One counter's count, for `--compare`.
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
    /// The counter the count comes from: with `auto` and `claude-fast`, `claude` (exact: a
    /// response of up to 2 KB of text, or near a limit) or `claude-fast`.
    pub counted_with: &'static str,
    pub tokens: u64,
    pub budget: Budget,
    pub clients: crate::contract::Verdicts,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub compare: Vec<Comparison>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub top_paths: Vec<PathCost>,
    /// Each image, audio or binary block the model is sent, and what it costs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<MediaEstimate>,
    /// What a part's count by the tokenizer's own counter is multiplied by to be in the
    /// measure of `tokens` (see [`Counted::scale`]).
    #[serde(skip)]
    pub part_scale: f64,
}

/// One media block of a document and what it costs by the run's tokenizer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaEstimate {
    pub pointer: String,
    pub mime: String,
    /// The length of its base64 text.
    pub base64_bytes: u64,
    #[serde(flatten)]
    pub cost: MediaCost,
    /// With `--compare`: its cost by each rule (the two families' pixels and the flat figure).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub compare: Vec<MediaComparison>,
}

/// A media block's cost by one rule, for `--compare`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaComparison {
    pub counted_with: &'static str,
    pub tokens: u64,
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
    texts: Vec<Cow<'a, str>>,
    /// Each media block, its header read once for every count and verdict.
    media: Vec<Block>,
}

impl Visible<'_> {
    /// What the media cost by `rule`.
    fn media_tokens(&self, rule: MediaRule) -> u64 {
        self.media
            .iter()
            .map(|block| rule.price(block).tokens)
            .sum()
    }
}

/// What each part shows the model as text, resolved once for every view: a text block's text
/// borrowed, a JSON part's compact JSON written once (or taken from a text block that is it
/// written out compact); `None` for media.
fn part_texts<'a, N: Node + Clone>(
    anatomy: &document::Anatomy<'a, N>,
) -> Vec<Option<Cow<'a, str>>> {
    anatomy
        .parts
        .iter()
        .map(|part| match &part.content {
            PartContent::Text { text, .. } | PartContent::Raw(text) => Some(Cow::Borrowed(*text)),
            PartContent::Json(value) => Some(
                document::written_compact(anatomy, value)
                    .unwrap_or_else(|| Cow::Owned(compact::string(*value))),
            ),
            PartContent::Media { .. } => None,
        })
        .collect()
}

fn visible<'a, N: Node + Clone>(
    anatomy: &'a document::Anatomy<'_, N>,
    texts: &'a [Option<Cow<'_, str>>],
) -> Visible<'a> {
    let mut v = Visible {
        texts: Vec::with_capacity(texts.len()),
        media: Vec::new(),
    };
    for (part, text) in anatomy.parts.iter().zip(texts) {
        match (text, &part.content) {
            (Some(text), _) => v.texts.push(Cow::Borrowed(text)),
            (None, PartContent::Media { mime, data }) => v.media.push(Block::read(mime, data)),
            (None, _) => {}
        }
    }
    v
}

/// The tokens of `v`, `claude-fast`'s class model taking each text's estimate from `model_of`,
/// its media priced by `media`.
fn count<'v>(
    v: &'v Visible<'_>,
    tokenizer: Tokenizer,
    media: MediaRule,
    limits: &[u64],
    model_of: impl FnMut(&'v str) -> f64,
) -> Counted {
    tokenizer.count_texts_with(
        v.texts.iter().map(|t| t.as_ref()),
        v.media_tokens(media),
        limits,
        model_of,
    )
}

/// The tokens of what the model sees in a document taken apart, counted for a verdict against
/// `limits` (with `auto`, exactly near one of them).
pub fn tokens<N: Node + Clone>(
    anatomy: &document::Anatomy<'_, N>,
    tokenizer: Tokenizer,
    media_tokens: u64,
    limits: &[u64],
) -> u64 {
    let texts = part_texts(anatomy);
    count(
        &visible(anatomy, &texts),
        tokenizer,
        MediaRule::new(tokenizer, media_tokens),
        limits,
        calibrated::model,
    )
    .tokens
}

impl Visible<'_> {
    /// The size of what the view shows, `tokens` counted, each text's characters, UTF-16 units
    /// and lines from `measures_of` (a [`text_measures`] already taken of the same text).
    fn size<'v>(
        &'v self,
        tokens: u64,
        mut measures_of: impl FnMut(&'v str) -> (u64, u64, u64),
    ) -> ResponseSize {
        let mut size = ResponseSize {
            tokens,
            media: self.media.len() as u64,
            ..ResponseSize::default()
        };
        for block in &self.media {
            if let Some(image) = block.image() {
                size.images += 1;
                size.longest_image_edge =
                    size.longest_image_edge.max(image.width.max(image.height));
            }
        }
        for text in &self.texts {
            let (chars, utf16, lines) = measures_of(text);
            size.chars += chars;
            size.utf16 += utf16;
            size.bytes += text.len() as u64;
            size.lines += lines;
        }
        size
    }
}

/// A text's characters, UTF-16 units and lines (as `str::lines` counts them), in one pass over
/// its bytes: a character begins at every byte that is not a continuation byte, a four-byte
/// character (lead byte 0xF0 and up) is two UTF-16 units, and the lines are the newlines plus
/// an unterminated last line.
fn text_measures(text: &str) -> (u64, u64, u64) {
    let (mut starts, mut astral, mut newlines) = (0u64, 0u64, 0u64);
    // Byte counters that cannot overflow within a block, summed per block: the loop
    // vectorizes.
    for block in text.as_bytes().chunks(255) {
        let (mut s, mut a, mut n) = (0u8, 0u8, 0u8);
        for &b in block {
            s += u8::from((b as i8) >= -0x40);
            a += u8::from(b >= 0xF0);
            n += u8::from(b == b'\n');
        }
        starts += u64::from(s);
        astral += u64::from(a);
        newlines += u64::from(n);
    }
    let unterminated = u64::from(!text.is_empty() && !text.ends_with('\n'));
    (starts, starts + astral, newlines + unterminated)
}

/// What a client that puts `structuredContent` first shows the model (Claude Code): the
/// structured content instead of the text blocks when a result has both, images as they are,
/// an embedded binary resource as a one-line notice, a resource link as one line. The notices'
/// wording is the client's; mcpguard writes lines of the same kind and length.
fn client_view<'a, N: Node + Clone>(
    anatomy: &'a document::Anatomy<'_, N>,
    texts: &'a [Option<Cow<'_, str>>],
) -> Visible<'a> {
    let structured = anatomy
        .parts
        .iter()
        .find(|p| p.pointer.ends_with("/structuredContent"));
    let mut v = Visible {
        texts: Vec::new(),
        media: Vec::new(),
    };
    for (part, text) in anatomy.parts.iter().zip(texts) {
        // The part's own text, as every view shows it (media have none).
        let shown = || Cow::Borrowed(text.as_deref().unwrap_or_default());
        match &part.content {
            PartContent::Media { mime, .. } if part.pointer.ends_with("/blob") => v
                .texts
                .push(format!("[Binary content ({mime}) saved to a file]").into()),
            PartContent::Media { mime, data } => v.media.push(Block::read(mime, data)),
            PartContent::Json(_) if structured.is_some_and(|s| s.pointer == part.pointer) => {
                v.texts.push(shown())
            }
            _ if structured.is_some() => {} // the text blocks give way to structuredContent
            PartContent::Json(value)
                if value.get("type").and_then(N::as_str) == Some("resource_link") =>
            {
                let field = |k: &str| value.get(k).and_then(N::as_str).unwrap_or("");
                v.texts
                    .push(format!("[Resource link: {} ({})]", field("name"), field("uri")).into());
            }
            PartContent::Text { .. } | PartContent::Raw(_) | PartContent::Json(_) => {
                v.texts.push(shown())
            }
        }
    }
    v
}

/// Estimates every document of `sources`, in order, each handed to `visit` with the errors
/// between them. A whole input is read into [`crate::json::borrowed`]'s arena tree (a 283 MB list
/// took 2.6 GB as serde_json's tree) and freed before the next; what that tree declines (a
/// lone surrogate to repair, several documents one a line, broken JSON whose error serde_json
/// words) is read as [`input`](crate::document::input) reads documents.
pub fn for_each(
    sources: &[crate::document::input::Source],
    stdin: impl std::io::Read,
    limits: &crate::config::ReadLimits,
    opts: &Options,
    mut visit: impl FnMut(Result<DocumentEstimate, crate::document::input::InputError>),
) {
    use crate::document::input::Input;
    crate::document::input::for_each_input(sources, stdin, limits, |input| match input {
        Input::Document(doc) => visit(doc.map(|d| estimate(&d, opts))),
        Input::Whole { name, text } => {
            let arena = bumpalo::Bump::with_capacity(text.len());
            match crate::json::borrowed::parse(&text, &arena) {
                Ok(tree) => {
                    let anatomy = document::anatomy_in(&tree, &text, &arena);
                    visit(Ok(estimate_anatomy(&name, text.len(), &anatomy, opts)));
                }
                Err(_) => {
                    drop(arena);
                    for doc in crate::document::input::documents_of_text(&name, text, limits) {
                        visit(doc.map(|d| estimate(&d, opts)));
                    }
                }
            }
        }
    });
}

/// Estimates one document.
pub fn estimate(doc: &Document, opts: &Options) -> DocumentEstimate {
    let anatomy = document::anatomy(&doc.value, &doc.text);
    estimate_anatomy(&doc.name, doc.text.len(), &anatomy, opts)
}

/// Estimates a document already taken apart (the audit shares one [`document::Anatomy`]
/// between this and its rules), from either tree: `name` is how reports name it, `wire_bytes`
/// the length of its text as read.
pub fn estimate_anatomy<N: Node + Clone>(
    name: &str,
    wire_bytes: usize,
    anatomy: &document::Anatomy<'_, N>,
    opts: &Options,
) -> DocumentEstimate {
    let texts = part_texts(anatomy);
    let seen = visible(anatomy, &texts);
    let media_rule = MediaRule::new(opts.tokenizer, opts.media_tokens);
    // A client's own view shows some of the same texts (structuredContent alone): their class
    // model estimates and their measures are read once.
    let mut models = TextMemo::default();
    let counted = count(
        &seen,
        opts.tokenizer,
        media_rule,
        &opts.verdict_limits(),
        |t| models.keep(t, calibrated::model),
    );
    let model_of = |t: &str| models.get_or(t, calibrated::model);
    let (tokens, counted_with) = (counted.tokens, counted.by);

    let mut measured = TextMemo::default();
    let generic = seen.size(tokens, |t| measured.keep(t, text_measures));
    let measures_of = |t: &str| measured.get_or(t, text_measures);
    let clients = opts
        .clients
        .iter()
        .map(|(name, profile)| {
            // A client that puts structuredContent first builds its own view; the others see
            // what the run measured.
            let own = profile
                .structured_content_first
                .then(|| client_view(anatomy, &texts));
            let view = own.as_ref().unwrap_or(&seen);
            // A view of the same texts has the same size, measured once.
            let same_texts = view.media == seen.media && view.texts == seen.texts;
            let size = if same_texts {
                generic
            } else {
                view.size(tokens, measures_of)
            };
            // The client counts with Claude's tokenizer (its quick estimate prices an image
            // at its own flat figure, in the verdict; the count it falls back on is the API's,
            // by pixels), and only its `maxTokens` hangs on that count: `auto` decides it
            // exactly near the limit and by claude-fast further away, where both land on the
            // same side (the verdict is the same, the cost is not: a 200 KB result in the
            // client's counting band is 10 ms exactly).
            let limit: Vec<u64> = profile.max_tokens.into_iter().collect();
            let client_media = MediaRule::new(Tokenizer::Auto, opts.media_tokens);
            // The run's own count serves when the client sees the same thing and it decides
            // the limit: exact, or claude-fast far enough from it.
            let same_view = same_texts && (seen.media.is_empty() || client_media == media_rule);
            let known = (same_view && counted.settles(&limit)).then_some(tokens);
            let exact = || {
                known.unwrap_or_else(|| {
                    count(view, Tokenizer::Auto, client_media, &limit, model_of).tokens
                })
            };
            (name.clone(), profile.verdict(size, exact))
        })
        .collect();

    let compare = if opts.compare {
        let counts: Vec<(Tokenizer, u64)> = Tokenizer::COMPARED
            .iter()
            .map(|&t| {
                let n = if t == counted_with {
                    tokens
                } else {
                    count(
                        &seen,
                        t,
                        MediaRule::new(t, opts.media_tokens),
                        &[],
                        model_of,
                    )
                    .tokens
                };
                (t, n)
            })
            .collect();
        let claude = counts[0].1; // COMPARED starts with claude, the reference
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
        let profile = measure::profile(anatomy, true, media_rule);
        let counter = Scaled {
            counter: opts.tokenizer.counter(),
            scale: counted.scale(),
        };
        profile.top_paths(&counter, opts.top)
    } else {
        Vec::new()
    };

    DocumentEstimate {
        name: name.to_owned(),
        kind: anatomy.kind.label(),
        wire_bytes: wire_bytes as u64,
        visible_chars: generic.chars,
        visible_bytes: generic.bytes,
        visible_lines: generic.lines,
        tokenizer: opts.tokenizer.name(),
        counted_with: counted_with.name(),
        tokens,
        budget: Budget::new(tokens, opts.threshold, opts.hard_cap),
        clients,
        compare,
        top_paths,
        media: media_estimates(anatomy, media_rule, opts),
        part_scale: counted.scale(),
    }
}

/// Each media part of `anatomy` priced by `rule`, and with `--compare` by every rule.
fn media_estimates<N: Node + Clone>(
    anatomy: &document::Anatomy<'_, N>,
    rule: MediaRule,
    opts: &Options,
) -> Vec<MediaEstimate> {
    let rules = [Tokenizer::Claude, Tokenizer::ClaudeV3, Tokenizer::Heuristic]
        .map(|t| MediaRule::new(t, opts.media_tokens));
    anatomy
        .parts
        .iter()
        .filter_map(|part| {
            let PartContent::Media { mime, data } = part.content else {
                return None;
            };
            let block = Block::read(mime, data);
            let compare = if opts.compare {
                rules
                    .iter()
                    .map(|r| {
                        let cost = r.price(&block);
                        MediaComparison {
                            counted_with: cost.counted_with,
                            tokens: cost.tokens,
                        }
                    })
                    .collect()
            } else {
                Vec::new()
            };
            Some(MediaEstimate {
                pointer: part.pointer.clone(),
                mime: mime.to_owned(),
                base64_bytes: data.len() as u64,
                cost: rule.price(&block),
                compare,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::input::parse_text;

    #[test]
    fn text_measures_are_std_counts() {
        let long = "naïve 😀 line\r\n".repeat(100);
        for text in [
            "",
            "a",
            "a\n",
            "\n",
            "a\nb",
            "\n\n",
            "é😀\u{301}中",
            "x\r\ny\r",
            long.as_str(),
        ] {
            assert_eq!(
                text_measures(text),
                (
                    text.chars().count() as u64,
                    text.encode_utf16().count() as u64,
                    text.lines().count() as u64
                ),
                "{text:?}"
            );
        }
    }

    fn opts() -> Options {
        Options {
            tokenizer: Tokenizer::Heuristic,
            compare: false,
            top: 3,
            threshold: 4000,
            hard_cap: 12000,
            media_tokens: 1600,
            clients: crate::contract::default_clients(),
            limits: Vec::new(),
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

    #[test]
    fn every_capture_estimates_the_same_from_the_arena_tree_as_from_serde_jsons() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/corpus");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        assert!(files.len() >= 10);
        let opts = Options {
            tokenizer: Tokenizer::Claude,
            compare: true,
            ..opts()
        };
        let sources: Vec<crate::document::input::Source> = files
            .iter()
            .map(|p| crate::document::input::Source::Path(p.clone()))
            .collect();
        let mut from_arena = Vec::new();
        let limits = crate::config::ReadLimits::default();
        for_each(&sources, std::io::empty(), &limits, &opts, |e| {
            from_arena.push(serde_json::to_value(e.unwrap()).unwrap());
        });
        let mut from_serde = Vec::new();
        crate::document::input::for_each_document(&sources, std::io::empty(), &limits, |d| {
            from_serde.push(serde_json::to_value(estimate(&d.unwrap(), &opts)).unwrap());
        });
        assert_eq!(from_arena.len(), files.len());
        assert_eq!(from_arena, from_serde);
    }
}
