//! Running an audit over a corpus on every core, with output that never depends on how the
//! work was scheduled: files are audited in parallel and their reports put into the report in
//! input order as they finish; a JSONL transcript is streamed in batches (lines parsed in
//! parallel, requests and responses paired in order, responses audited in parallel, their
//! reports handed on), so memory stays bounded by the files and batches in flight, not the
//! corpus or the transcript (the report spills its documents, [`super::documents`]).

use std::collections::BTreeMap;
use std::hash::Hasher as _;
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use bumpalo::Bump;
use rayon::prelude::*;

use super::transcript::{Line, Pairing, is_request};
use super::{
    Call, Context, DocumentReport, Finding, Message, Report, ServerSummary, audit_document,
};
use crate::input::{self, Document, InputError, Source, Unit};
use crate::json_view;
use crate::mcp::live::Session;

/// Lines of a JSONL transcript held in memory at once, at most...
const BATCH_LINES: usize = 2048;
/// ...and about this many bytes of them, so memory does not grow with the transcript.
const BATCH_BYTES: usize = 8 << 20;

/// `--shard K/N`: this run audits the documents whose name hashes to K (1-based) of N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// Parses `K/N` with 1 <= K <= N.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (k, n) = text
            .split_once('/')
            .ok_or_else(|| format!("--shard {text}: expected K/N, e.g. 2/4"))?;
        let (k, n): (u64, u64) = match (k.parse(), n.parse()) {
            (Ok(k), Ok(n)) if n >= 1 && (1..=n).contains(&k) => (k, n),
            _ => return Err(format!("--shard {text}: expected K/N with 1 <= K <= N")),
        };
        Ok(Shard {
            index: k - 1,
            count: n,
        })
    }

    /// Whether a document belongs to this shard (by a hash of its name: stable across runs
    /// and machines, independent of the order of work).
    pub fn takes(&self, name: &str) -> bool {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.write(name.as_bytes());
        h.finish() % self.count == self.index
    }
}

/// What one file produced, in order.
type Items = Vec<Result<DocumentReport, String>>;

/// Documents put into a report in input order as files finish: each file's parts go in at
/// once when it is the one due, or wait for the files before it.
struct InOrder<'r> {
    report: &'r mut Report,
    /// Parts of files after the one due, and whether each is done.
    waiting: BTreeMap<usize, (Items, bool)>,
    due: usize,
}

impl InOrder<'_> {
    /// Some of what file `unit` produced, in order; `last` when it is done.
    fn take(&mut self, unit: usize, items: Items, last: bool) {
        if unit != self.due {
            let (waiting, done) = self.waiting.entry(unit).or_default();
            waiting.extend(items);
            *done |= last;
            return;
        }
        put(self.report, items);
        if last {
            self.due += 1;
            while let Some((items, done)) = self.waiting.remove(&self.due) {
                put(self.report, items);
                if !done {
                    // Part way through: the rest of it will come as it is made.
                    break;
                }
                self.due += 1;
            }
        }
    }
}

/// Audits every document of `sources`. `tick` is called once per file done (for a progress
/// bar); it must be cheap.
pub fn run(
    sources: &[Source],
    stdin: impl Read,
    ctx: &Context,
    shard: Option<Shard>,
    tick: &(dyn Fn() + Sync),
) -> Report {
    let mut report = Report::default();
    run_into(&mut report, sources, stdin, ctx, shard, tick);
    report
}

/// [`run`], into a report of the caller's (one that spills sooner, say).
///
/// Each worker takes the next file in input order, so files finish about in order, and puts
/// their documents into the report in input order as they come, holding only those that
/// finished before an earlier file did. Memory then follows the files in flight, not the
/// corpus, and the output never depends on how the work was scheduled.
pub fn run_into(
    report: &mut Report,
    sources: &[Source],
    mut stdin: impl Read,
    ctx: &Context,
    shard: Option<Shard>,
    tick: &(dyn Fn() + Sync),
) {
    let units = input::expand(sources);
    // Standard input cannot be shared between threads: read it first.
    let limits = &ctx.config.read_limits;
    let stdin_bytes = units
        .iter()
        .any(|u| matches!(u, Unit::Stdin))
        .then(|| input::read_bytes(&mut stdin, "<stdin>", None, limits));
    let audit_unit = |unit: &Unit, send: &mut dyn FnMut(Items)| match unit {
        Unit::Failed(err) => send(vec![Err(err.to_string())]),
        Unit::Stdin => match &stdin_bytes {
            Some(Ok(bytes)) => send(audit_file("<stdin>", bytes.clone(), ctx, shard)),
            Some(Err(e)) => send(vec![Err(e.to_string())]),
            None => {}
        },
        Unit::File { path, .. } if input::is_jsonl(path) => {
            audit_transcript(path, ctx, shard, send)
        }
        Unit::File { path, name } => match input::read_file_bytes(path, name, limits) {
            Ok(bytes) => send(audit_file(name, bytes, ctx, shard)),
            Err(e) => send(vec![Err(e.to_string())]),
        },
    };
    let next = AtomicUsize::new(0);
    let in_order = Mutex::new(InOrder {
        report: &mut *report,
        waiting: BTreeMap::new(),
        due: 0,
    });
    // The worker that finishes a file puts it (and any after it that wait) into the report:
    // no thread of its own to wake a few thousand times.
    let take = |unit, items, last| {
        in_order
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take(unit, items, last);
    };
    // One worker a thread of the pool, each taking the next file: files finish about in
    // order. A transcript's own batches still spread over every core.
    (0..rayon::current_num_threads())
        .into_par_iter()
        .for_each(|_| {
            loop {
                let unit = next.fetch_add(1, Ordering::Relaxed);
                let Some(u) = units.get(unit) else { break };
                audit_unit(u, &mut |items| take(unit, items, false));
                tick();
                take(unit, Vec::new(), true);
            }
        });
    report.finish(ctx);
}

/// Documents into the report, errors beside them.
fn put(report: &mut Report, items: Items) {
    let mut docs = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Ok(doc) => docs.push(doc),
            Err(e) => report.errors.push(e),
        }
    }
    report.extend(docs);
}

/// One whole file (or standard input). A JSON document is audited on the borrowed tree, read
/// in less than half the time of serde_json's and freed at once with its arena; anything else
/// (a transcript not named .jsonl, text that is not JSON, whose error serde_json's parser
/// words) is read as [`input`] reads documents.
fn audit_file(name: &str, bytes: Vec<u8>, ctx: &Context, shard: Option<Shard>) -> Items {
    let limits = &ctx.config.read_limits;
    let text = match input::document_text(name, bytes, limits) {
        Ok(text) => text,
        Err(e) => return vec![Err(e.to_string())],
    };
    // Sized for the tree of a typical capture: one chunk, not a few doublings.
    let arena = Bump::with_capacity(text.len());
    let Ok(tree) = json_view::parse(&text, &arena) else {
        return audit_documents(
            input::documents_of_text(name, text, limits),
            ctx,
            shard,
            None,
        );
    };
    // As a transcript of one message: a request is not audited.
    if is_request(&tree) || shard.is_some_and(|s| !s.takes(name)) {
        return Vec::new();
    }
    let message = Message {
        name,
        file: name,
        line: 1,
        text: &text,
        tree: &tree,
        reader: &arena,
    };
    vec![Ok(audit_document(&message, &Call::default(), ctx))]
}

/// Documents of one file, in order: paired when they are a transcript, then audited. A live
/// session gives the latency of each answer by request id.
fn audit_documents(
    docs: Vec<Result<Document, InputError>>,
    ctx: &Context,
    shard: Option<Shard>,
    latencies: Option<&BTreeMap<u64, f64>>,
) -> Items {
    let mut pairing = Pairing::default();
    let transcript = docs.len() > 1;
    let work: Vec<Result<(Document, Call), String>> = docs
        .into_iter()
        .filter_map(|d| match d {
            Err(e) => Some(Err(e.to_string())),
            Ok(doc) => match pairing.observe(&doc.value) {
                Line::Request => None,
                Line::Response(mut call) if transcript => {
                    let id = doc.value.get("id").and_then(serde_json::Value::as_u64);
                    call.latency_ms = id.zip(latencies).and_then(|(id, l)| l.get(&id).copied());
                    Some(Ok((doc, *call)))
                }
                Line::Response(_) | Line::Other => Some(Ok((doc, Call::default()))),
            },
        })
        .filter(|w| match (w, shard) {
            (Ok((doc, _)), Some(s)) => s.takes(&doc.name),
            _ => true,
        })
        .collect();
    work.into_par_iter()
        .map(|w| w.map(|(doc, call)| audit_document(&Message::of(&doc), &call, ctx)))
        .collect()
}

/// A JSONL transcript, streamed: each batch's reports go to `send` as they are made.
fn audit_transcript(
    path: &std::path::Path,
    ctx: &Context,
    shard: Option<Shard>,
    send: &mut dyn FnMut(Items),
) {
    let name = path.display().to_string();
    let reader = match input::open_jsonl(path, &name) {
        Ok(reader) => reader,
        Err(e) => return send(vec![Err(e.to_string())]),
    };
    let mut sent = 0;
    let mut pairing = Pairing::default();
    input::for_each_line_batch(
        &name,
        reader,
        &ctx.config.read_limits,
        BATCH_LINES,
        BATCH_BYTES,
        |batch| {
            let parsed: Vec<Result<Document, InputError>> = batch
                .into_par_iter()
                .map(|(number, line)| {
                    line.and_then(|text| {
                        input::parse_line(&name, number, text, &ctx.config.read_limits)
                    })
                })
                .collect();
            let mut work = Vec::with_capacity(parsed.len());
            for d in parsed {
                match d {
                    Err(e) => work.push(Err(e.to_string())),
                    Ok(doc) => match pairing.observe(&doc.value) {
                        Line::Request => {}
                        Line::Response(call) => work.push(Ok((doc, *call))),
                        Line::Other => work.push(Ok((doc, Call::default()))),
                    },
                }
            }
            let audited: Items = work
                .into_par_iter()
                .filter(|w| match (w, shard) {
                    (Ok((doc, _)), Some(s)) => s.takes(&doc.name),
                    _ => true,
                })
                .map(|w| w.map(|(doc, call)| audit_document(&Message::of(&doc), &call, ctx)))
                .collect();
            sent += audited.len();
            send(audited);
        },
    );
    if sent == 0 {
        // A transcript of requests only, or an empty file: say so rather than nothing.
        send(vec![Err(format!(
            "{name}: no responses in this transcript"
        ))]);
    }
}

/// A live session (`mcpguard audit --server/--url/--mcp-config`): its transcript through the
/// same pairing and rules as a JSONL file, each response with the latency measured live; what
/// only the live session saw becomes findings on the run; a session that ended early is an
/// error naming the server.
pub fn audit_session(session: &Session, ctx: &Context, report: &mut Report) {
    let file = format!("{}.jsonl", session.name);
    if !session.transcript.is_empty() {
        let docs = input::read_unit_bytes(
            &file,
            session.transcript.clone().into_bytes(),
            true,
            &ctx.config.read_limits,
        );
        put(
            report,
            audit_documents(docs, ctx, None, Some(&session.latencies)),
        );
    }
    for o in &session.observations {
        let tool = o.tool.as_deref().unwrap_or(&session.name);
        let finding =
            Finding::about_run(ctx, o.code, tool, &file, o.message.clone(), o.help.clone());
        report.corpus_findings.extend(finding.map(|f| Finding {
            tool: o.tool.clone(),
            ..f
        }));
    }
    let summary = ServerSummary::of(session, ctx);
    // A catalog spread over pages is judged whole too: the per-page MG016 cannot see it.
    let budget = ctx.config.limits.max_catalog_tokens;
    if summary.tool_pages > 1 && summary.catalog_tokens > budget {
        report.corpus_findings.extend(Finding::about_run(
            ctx,
            "MG016",
            &session.name,
            &file,
            format!(
                "the catalog of {} tools over {} pages costs {} tokens, over the {budget} a catalog loaded at start may cost",
                summary.tool_count, summary.tool_pages, summary.catalog_tokens
            ),
            "load a few tools up front and the rest on demand (seed 004 tiers), and shorten the heaviest descriptions".into(),
        ));
    }
    if let Some(e) = &session.error {
        report
            .errors
            .push(format!("{} ({}): {e}", session.name, session.target));
    }
    report.servers.push(summary);
}

#[cfg(test)]
mod tests {
    use super::Shard;

    #[test]
    fn shards_split_deterministically() {
        assert!(Shard::parse("0/3").is_err());
        assert!(Shard::parse("4/3").is_err());
        assert!(Shard::parse("x").is_err());
        let shards: Vec<Shard> = (1..=3)
            .map(|k| Shard::parse(&format!("{k}/3")).unwrap())
            .collect();
        for i in 0..300 {
            let name = format!("captures/r{i}.json");
            assert_eq!(
                shards.iter().filter(|s| s.takes(&name)).count(),
                1,
                "{name} in exactly one shard"
            );
        }
    }
}
