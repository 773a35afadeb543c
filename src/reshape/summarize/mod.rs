//! `summarize`: a response that always fits, with the full data one reference away (seed 000
//! US2, FR-009..019; seed 001 R003; seed 002 SummaryResponse; seed 003's contract).
//!
//! A response within the token budget and every contract limit passes through unchanged.
//! Anything else becomes the contract's shape: `summary`, `success`, `count`, `items` (or
//! `data`, `lines`, `text`), `hasMore`, `artifactRef` and `meta` (what was kept, how to get
//! the rest, the budget). It is built at a level of tightness and checked against every limit
//! (bytes, tokens, depth, array, string and summary lengths, no base64 runs) by measuring the
//! finished output the way `audit` does; when it does not fit, the next, tighter level is
//! tried (fewer items, shorter strings, fewer fields, shallower), down to a summary and a
//! reference. That final check is what makes "always fits" hold for any input, not the
//! care taken in each step.
//!
//! Before shrinking, the bloat fixes run and are reported with what they saved: minified JSON
//! text, one copy of structuredContent, base64 blobs and media blocks as descriptors, and on
//! request empty members dropped and records written as a table.
//!
//! The core names the artifact (content-addressed, [`crate::reshape::artifact::Ref::for_content`]) but
//! does not store it: the caller does, before writing the output that points at it.

mod envelope;
mod output;
mod plan;
mod project;
mod sample;
mod shrink;
mod structured;
mod text;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

pub use project::Fields;
pub use text::cut;

use crate::contract::Limits;
use crate::document::input;
use crate::document::{self, Kind, PartContent};
use crate::measure;
use crate::measure::estimate;
use crate::reshape::artifact::Ref;
use crate::tokens::Tokenizer;
use crate::tokens::media::MediaRule;
use envelope::{Payload, unwrap};
use plan::{Plan, Step};

/// How to summarize.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    pub limits: Limits,
    /// Tokens a response may cost (tokenBudgetThreshold).
    pub budget: u64,
    pub tokenizer: Tokenizer,
    pub media_tokens: u64,
    pub fields: Fields,
    pub projections: &'a BTreeMap<String, Vec<String>>,
    pub drop_empty: bool,
    pub table: bool,
    /// Summarize even what fits.
    pub force: bool,
    /// The tool's outputSchema: structuredContent is kept, valid against it.
    pub output_schema: Option<&'a Value>,
    /// The artifact's domain; by default the list's name or the kind of document.
    pub domain: Option<String>,
    /// Store the full input as an artifact and name it in the output.
    pub artifact: bool,
    /// The proxy's injected tool: `meta.detailsAvailable` names a call of it instead of a
    /// `mcpguard` command.
    pub more_tool: Option<&'a str>,
}

/// What became of the response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    /// It fit: the input, byte for byte.
    Unchanged,
    /// Everything, with only bloat removed.
    Full,
    /// A preview with the rest in the artifact.
    Preview,
}

/// Bytes and tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Size {
    pub bytes: u64,
    pub tokens: u64,
}

/// One bloat fix and what it saved on the response as given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fix {
    pub fix: &'static str,
    pub detail: String,
    pub bytes: u64,
    /// The estimator's count of the characters removed.
    pub tokens: u64,
}

/// The before/after report (`--report`).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub outcome: Outcome,
    pub before: Size,
    pub after: Size,
    /// Share of tokens removed, 0..1.
    pub reduction: f64,
    pub fixes: Vec<Fix>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projection: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_ref: Option<String>,
    pub warnings: Vec<String>,
}

/// The result: the text to write and, when it points at one, the artifact to store.
#[derive(Clone, Debug)]
pub struct Summary {
    pub output: String,
    /// The artifact the output names (already handed to `store`).
    pub artifact: Option<Ref>,
    pub report: Report,
}

#[derive(Debug, thiserror::Error)]
pub enum SummarizeError {
    #[error(
        "even a summary and a reference do not fit maxBytes {max_bytes}, a {budget}-token budget, maxStringLength {max_string} and maxJsonDepth {max_depth} (the smallest output is {minimal} bytes); raise the limits"
    )]
    CannotFit {
        max_bytes: u64,
        budget: u64,
        max_string: u64,
        max_depth: u64,
        minimal: usize,
    },
    #[error("--output-schema: {0}")]
    Schema(String),
    #[error("{0}")]
    Store(String),
    #[error(transparent)]
    Input(#[from] crate::document::input::InputError),
}

/// Summarizes one response, `text` as read from `name`.
///
/// The text is parsed with every array cut a little above maxArrayItems ([`sample`]): a
/// preview never shows more, and a 100 MB list then costs its text, not a tree many times its
/// size. When the output will name an artifact, `store` is called with its reference and the
/// text as soon as the reference is known, before the preview is built; an error from it ends
/// the summary (the output must never point at an artifact that is not there). The text is
/// dropped once stored.
pub fn summarize(
    name: &str,
    text: String,
    opts: &Options<'_>,
    store: impl FnOnce(&Ref, &str) -> Result<(), String>,
) -> Result<Summary, SummarizeError> {
    let cap = (opts.limits.max_array_items as usize).max(10) + 1;
    let mut sampler = sample::Sampler::new(cap);
    let (text, value) = match sampler.parse(&text) {
        Ok(value) => (text, value),
        // A lone surrogate escape reads as U+FFFD, as every other reader takes it.
        Err(e) => {
            let error = || SummarizeError::Input(input::json_error(name, &text, &e));
            let repaired = crate::json::parse::repair_lone_surrogates(&text).ok_or_else(error)?;
            sampler = sample::Sampler::new(cap);
            let value = sampler.parse(&repaired).map_err(|_| error())?;
            (repaired, value)
        }
    };
    let anatomy = document::anatomy_shallow(&value, &text);
    let json_text = envelope::tool_json_text(&anatomy, &mut sampler);
    let before = measure_input(&anatomy, &text, json_text.as_ref(), &sampler.lengths, opts);
    drop(anatomy);
    let small = before.size.bytes <= opts.limits.max_bytes && before.size.tokens <= opts.budget;
    if (small && before.within_shape && !opts.force) || (small && before.is_error) {
        return Ok(Summary {
            output: text,
            artifact: None,
            report: Report {
                outcome: Outcome::Unchanged,
                before: before.size,
                after: before.size,
                reduction: 0.0,
                fixes: Vec::new(),
                projection: None,
                level: None,
                artifact_ref: None,
                warnings: Vec::new(),
            },
        });
    }

    let mut warnings = Vec::new();
    let unwrapped = unwrap(value, &text, json_text, sampler, opts, &mut warnings);
    let structured = match opts.output_schema {
        Some(schema) => Some(structured::Target::new(
            schema,
            unwrapped.structured.as_ref().or(match &unwrapped.payload {
                Payload::Json(v) => Some(v),
                _ => None,
            }),
        )?),
        None => None,
    };
    let mut plan = Plan::new(&unwrapped, opts, &mut warnings);

    let domain = opts
        .domain
        .clone()
        .unwrap_or_else(|| plan.domain(&unwrapped));
    let artifact = opts
        .artifact
        .then(|| Ref::for_content(&domain, text.as_bytes()));
    if let Some(r) = &artifact {
        store(r, &text).map_err(SummarizeError::Store)?;
    }
    drop(text);
    plan.reference = artifact.as_ref().map(ToString::to_string);

    let mut built = None;
    for level in plan.schedule(opts) {
        let Some(mut candidate) = plan.build(&unwrapped, &level, structured.as_ref(), opts) else {
            continue;
        };
        // "Everything" is only worth sending when nothing had to be cut.
        if matches!(level, Step::Whole(_)) && candidate.lossy {
            continue;
        }
        if candidate.settle(&unwrapped, opts, before.size) {
            built = Some((candidate, level));
            break;
        }
    }
    let Some((candidate, level)) = built else {
        let minimal = plan
            .build(&unwrapped, &Step::Bare, None, opts)
            .map_or(0, |mut c| {
                c.settle(&unwrapped, opts, before.size);
                c.text.len()
            });
        return Err(SummarizeError::CannotFit {
            max_bytes: opts.limits.max_bytes,
            budget: opts.budget,
            max_string: opts.limits.max_string_length,
            max_depth: opts.limits.max_json_depth,
            minimal,
        });
    };
    let after = candidate.size;
    let projection = plan.projection_source.clone();
    let plan_reference = plan.reference.take();
    drop(plan);
    Ok(Summary {
        output: candidate.text,
        artifact,
        report: Report {
            outcome: candidate.outcome,
            before: before.size,
            after,
            reduction: reduction(before.size.tokens, after.tokens),
            fixes: unwrapped.fixes,
            projection: Some(projection),
            level: Some(level.describe()),
            artifact_ref: plan_reference,
            warnings,
        },
    })
}

fn reduction(before: u64, after: u64) -> f64 {
    if before == 0 {
        0.0
    } else {
        (1.0 - after as f64 / before as f64).max(0.0)
    }
}

/// What the input costs and whether its shape is within the limits.
struct Measured {
    size: Size,
    within_shape: bool,
    is_error: bool,
}

fn measure_input(
    anatomy: &document::Anatomy<'_>,
    text: &str,
    json_text: Option<&(String, Value)>,
    lengths: &sample::Lengths,
    opts: &Options<'_>,
) -> Measured {
    let cut = lengths.any();
    // Text blocks are whole strings whatever was cut; a JSON part is a sample then, and its
    // count is scaled to the part's full size.
    let tokens = if cut {
        let counter = opts.tokenizer.counter();
        let media = MediaRule::new(opts.tokenizer, opts.media_tokens);
        anatomy
            .parts
            .iter()
            .map(|part| match &part.content {
                PartContent::Text { text, .. } | PartContent::Raw(text) => {
                    counter.count(text) as u64
                }
                PartContent::Json(v) => {
                    let sample = crate::json::compact::string(*v);
                    let full = sample::full_len(v, lengths) as u64;
                    counter.count(&sample) as u64 * full / sample.len().max(1) as u64
                }
                PartContent::Media { mime, data } => media.cost(mime, data).tokens,
            })
            .sum()
    } else {
        estimate::tokens(anatomy, opts.tokenizer, opts.media_tokens, &[opts.budget])
    };
    // A cut array was longer than maxArrayItems: not within the limits, nothing to check.
    // A list result (tools/list, ...) is judged like audit judges it: by its size; the depth
    // of an inputSchema is not the server's to choose.
    let within_shape = !cut
        && (matches!(anatomy.kind, Kind::ListResult(_))
            || shape_within(anatomy, json_text, &opts.limits));
    Measured {
        size: Size {
            bytes: text.len() as u64,
            tokens,
        },
        within_shape,
        is_error: anatomy.is_error,
    }
}

/// Depth, array, string and summary limits and no base64 runs, over what the model sees.
/// `json_text` is the parsed JSON of the text block at that pointer, if any.
fn shape_within(
    anatomy: &document::Anatomy<'_>,
    json_text: Option<&(String, Value)>,
    l: &Limits,
) -> bool {
    let string_ok = |s: &str| {
        let max = l.max_string_length;
        let bytes = s.len() as u64;
        // A character is at most 4 bytes: only lengths in between need counting.
        (bytes <= max || (bytes <= max.saturating_mul(4) && s.chars().count() as u64 <= max))
            && measure::base64_runs(s).is_empty()
    };
    let json_ok = |v: &Value| {
        let shape = measure::shape(v);
        let strings_ok = strings_within(v, &string_ok);
        shape.depth as u64 <= l.max_json_depth
            && shape
                .longest_array
                .is_none_or(|a| a.len as u64 <= l.max_array_items)
            && strings_ok
            && v.get("summary")
                .and_then(Value::as_str)
                .is_none_or(|s| s.chars().count() as u64 <= l.max_summary_length)
    };
    anatomy.parts.iter().all(|part| match &part.content {
        PartContent::Text { json: Some(v), .. } => json_ok(v),
        PartContent::Text { .. } if json_text.is_some_and(|(at, _)| *at == part.pointer) => {
            json_text.is_some_and(|(_, v)| json_ok(v))
        }
        PartContent::Text {
            text, json: None, ..
        } => string_ok(text),
        PartContent::Json(v) => json_ok(v),
        PartContent::Raw(_) => json_ok(anatomy.payload),
        PartContent::Media { .. } => true,
    })
}

fn strings_within(v: &Value, ok: &impl Fn(&str) -> bool) -> bool {
    match v {
        Value::String(s) => ok(s),
        Value::Array(a) => a.iter().all(|x| strings_within(x, ok)),
        Value::Object(m) => m.iter().all(|(k, x)| ok(k) && strings_within(x, ok)),
        _ => true,
    }
}
