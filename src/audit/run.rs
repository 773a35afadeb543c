//! Running an audit over a corpus on every core, with output that never depends on how the
//! work was scheduled: files are audited in parallel and their reports put into the report in
//! input order as they finish; a JSONL transcript is streamed in batches (lines parsed in
//! parallel, requests and responses paired in order, responses audited in parallel, their
//! reports handed on), so memory stays bounded by the files and batches in flight, not the
//! corpus or the transcript (the report spills its documents, [`super::documents`]).

use std::borrow::Cow;
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
use crate::audit::live::Session;
use crate::contract::RuleId;
use crate::document::input::{self, Document, InputError, Source, Unit};
use crate::json::borrowed::{self, Json};

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
type Items = Vec<Result<DocumentReport, Unreadable>>;

/// An input that could not be read: its words, and where, for the finding it becomes.
#[derive(Clone, Debug)]
pub(crate) struct Unreadable {
    message: String,
    file: String,
    line: Option<usize>,
    column: Option<usize>,
    /// Whether it hid responses (MG033), or only says there were none (a transcript of
    /// requests, or one a shard takes nothing of).
    finding: bool,
}

impl From<InputError> for Unreadable {
    fn from(e: InputError) -> Unreadable {
        Unreadable::from(&e)
    }
}

impl From<&InputError> for Unreadable {
    fn from(e: &InputError) -> Unreadable {
        let (file, line, column) = e.place();
        Unreadable {
            message: e.to_string(),
            file: file.to_owned(),
            line,
            column,
            finding: true,
        }
    }
}

/// Documents put into a report in input order as files finish: each file's parts go in at
/// once when it is the one due, or wait for the files before it.
struct InOrder<'r> {
    report: &'r mut Report,
    ctx: &'r Context,
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
        put(self.report, items, self.ctx);
        if last {
            self.due += 1;
            while let Some((items, done)) = self.waiting.remove(&self.due) {
                put(self.report, items, self.ctx);
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
        Unit::Failed(err) => send(vec![Err(err.into())]),
        Unit::Stdin => match &stdin_bytes {
            Some(Ok(bytes)) => send(audit_file("<stdin>", bytes.clone(), ctx, shard)),
            Some(Err(e)) => send(vec![Err(e.into())]),
            None => {}
        },
        Unit::File { path, .. } if input::is_jsonl(path) => {
            audit_transcript(path, ctx, shard, send)
        }
        Unit::File { path, name } => match input::read_json_file_bytes(path, name, limits) {
            Ok(bytes) => send(audit_file(name, bytes, ctx, shard)),
            Err(e) => send(vec![Err(e.into())]),
        },
    };
    let next = AtomicUsize::new(0);
    let in_order = Mutex::new(InOrder {
        report: &mut *report,
        ctx,
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

/// Documents into the report, errors beside them: a response that could not be read is also
/// a finding at its file (MG033), so that a CI gate fails on it and SARIF and annotations show
/// it, rather than pass on what it never saw.
fn put(report: &mut Report, items: Items, ctx: &Context) {
    let mut docs = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Ok(doc) => docs.push(doc),
            Err(e) => {
                let finding = e.finding.then(|| {
                    Finding::about_run(
                    ctx,
                    RuleId::UnreadableResponse,
                    &e.file,
                    &e.file,
                    e.message.clone(),
                    "make the capture readable (UTF-8 JSON within readLimits), or leave it out of the audit".into(),
                )
                });
                report
                    .corpus_findings
                    .extend(finding.flatten().map(|f| Finding {
                        line: e.line,
                        column: e.column,
                        ..f
                    }));
                report.errors.push(e.message);
            }
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
        Err(e) => return vec![Err(e.into())],
    };
    // Sized for the tree of a typical capture: one chunk, not a few doublings.
    let arena = Bump::with_capacity(text.len());
    let Ok(tree) = borrowed::parse(&text, &arena) else {
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
    let work: Vec<Result<(Document, Call), Unreadable>> = docs
        .into_iter()
        .filter_map(|d| match d {
            Err(e) => Some(Err(e.into())),
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
        Err(e) => return send(vec![Err(e.into())]),
    };
    let limits = &ctx.config.read_limits;
    let mut sent = 0;
    let mut pairing = Pairing::default();
    input::for_each_line_batch(&name, reader, limits, BATCH_LINES, BATCH_BYTES, |batch| {
        // Each line read in its own arena, on every core...
        let mut arenas: Vec<Bump> = batch.iter().map(|_| Bump::new()).collect();
        let read: Vec<Result<TranscriptLine<'_>, Unreadable>> = batch
            .par_iter()
            .zip(arenas.par_iter_mut())
            .map(|((number, line), arena)| match line {
                Ok(text) => TranscriptLine::read(&name, *number, text, arena, limits)
                    .map_err(Unreadable::from),
                Err(e) => Err(e.into()),
            })
            .collect();
        // ...requests and responses paired in order...
        let mut work = Vec::with_capacity(read.len());
        for line in read {
            match line {
                Err(e) => work.push(Err(e)),
                Ok(line) => match line.observe(&mut pairing) {
                    Line::Request => {}
                    Line::Response(call) => work.push(Ok((line, *call))),
                    Line::Other => work.push(Ok((line, Call::default()))),
                },
            }
        }
        // ...and the responses audited on every core.
        let audited: Items = work
            .into_par_iter()
            .filter(|w| match (w, shard) {
                (Ok((line, _)), Some(s)) => s.takes(line.name()),
                _ => true,
            })
            .map(|w| w.map(|(line, call)| line.audit(&call, ctx)))
            .collect();
        sent += audited.len();
        send(audited);
    });
    if sent == 0 {
        // A transcript of requests only, or an empty file: say so rather than nothing.
        send(vec![Err(Unreadable {
            message: format!("{name}: no responses in this transcript"),
            file: name,
            line: None,
            column: None,
            finding: false,
        })]);
    }
}

/// A transcript line, read.
enum TranscriptLine<'a> {
    /// Read in place, into an arena of its own (as a whole file is, [`audit_file`]).
    Tree {
        name: String,
        file: &'a str,
        line: usize,
        text: &'a str,
        tree: Json<'a>,
    },
    /// Read as [`input`] reads it: a lone surrogate repaired (the borrowed tree hands such a
    /// text to serde_json, which refuses it).
    Document(Document),
}

impl<'a> TranscriptLine<'a> {
    /// Line `number` of transcript `file`, read into `arena`; or as [`input::parse_line`]
    /// reads it, or words its error, when that fails.
    fn read(
        file: &'a str,
        number: usize,
        text: &'a str,
        arena: &'a mut Bump,
        limits: &crate::config::ReadLimits,
    ) -> Result<TranscriptLine<'a>, InputError> {
        if input::check_nesting(file, text, limits).is_ok() {
            // Sized for the tree of a typical response: one chunk, not a few doublings.
            *arena = Bump::with_capacity(text.len());
            let arena: &'a Bump = arena;
            if let Ok(tree) = borrowed::parse(text, arena) {
                return Ok(TranscriptLine::Tree {
                    name: format!("{file}:{number}"),
                    file,
                    line: number,
                    text,
                    tree,
                });
            }
        }
        input::parse_line(file, number, text.to_owned(), limits).map(TranscriptLine::Document)
    }

    fn name(&self) -> &str {
        match self {
            TranscriptLine::Tree { name, .. } => name,
            TranscriptLine::Document(doc) => &doc.name,
        }
    }

    /// What the line is to the transcript's pairing (a request is kept, a response paired).
    fn observe(&self, pairing: &mut Pairing) -> Line {
        match self {
            TranscriptLine::Tree { text, tree, .. } => pairing.observe_tree(tree, || {
                // A tools/list page, kept as serde_json's tree: the same value.
                Cow::Owned(crate::json::parse::parse_value(text).unwrap_or(serde_json::Value::Null))
            }),
            TranscriptLine::Document(doc) => pairing.observe(&doc.value),
        }
    }

    fn audit(&self, call: &Call, ctx: &Context) -> DocumentReport {
        match self {
            TranscriptLine::Tree {
                name,
                file,
                line,
                text,
                tree,
            } => {
                // The JSON inside its text blocks, read into an arena of this thread's.
                let arena = Bump::with_capacity(text.len());
                let message = Message {
                    name,
                    file,
                    line: *line,
                    text,
                    tree,
                    reader: &arena,
                };
                audit_document(&message, call, ctx)
            }
            TranscriptLine::Document(doc) => audit_document(&Message::of(doc), call, ctx),
        }
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
            ctx,
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
            RuleId::CatalogOverBudget,
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
    use std::path::Path;

    use super::{Context, Items, Shard, audit_documents, run};
    use crate::config::Config;
    use crate::document::input::{self, Source};
    use crate::tokens::Tokenizer;

    /// Every capture of the corpus answering its request, and the lines a transcript read in
    /// place must hand to serde_json or word as errors: a tool's outputSchema its call does
    /// not meet, a tools/list page listed again in another order, a notification, a response
    /// nobody asked for, results that break 2026-07-28's rules, a lone surrogate, a line that
    /// is not JSON, one nested too deep.
    fn transcript() -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus");
        let mut names: Vec<_> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        let mut lines = Vec::new();
        for (id, path) in names.iter().enumerate() {
            let mut capture: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
            let parts: Vec<&str> = stem.split("__").collect();
            let method = parts[1].replace('_', "/");
            let params = serde_json::json!({"name": parts.get(2)});
            lines.push(
                serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
                    .to_string(),
            );
            capture["id"] = id.into();
            lines.push(capture.to_string());
            if let Some(tools) = capture.pointer("/result/tools").and_then(|t| t.as_array()) {
                let reversed: Vec<_> = tools.iter().rev().collect();
                lines.push(format!(
                    r#"{{"jsonrpc":"2.0","id":"again{id}","method":"tools/list"}}"#
                ));
                lines.push(serde_json::json!({"jsonrpc": "2.0", "id": format!("again{id}"), "result": {"tools": reversed}}).to_string());
            }
        }
        lines.extend([
            r#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":"l","result":{"tools":[{"name":"weather","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"temp":{"type":"number"}},"required":["temp"]}}]}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"weather","arguments":{"city":"Oslo"}}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":"c","result":{"content":[{"type":"text","text":"{\"temp\":\"warm\"}"}],"structuredContent":{"temp":"warm"}}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":"nobody","result":{"content":[{"type":"text","text":"late"}]}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":"s","result":{"content":[{"type":"text","text":"cut \ud83d"}]}}"#.to_owned(),
            // 2026-07-28: a cacheable result's hints, an unknown resultType, the old -32002.
            r#"{"jsonrpc":"2.0","id":"m1","method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":"m1","result":{"prompts":[],"resultType":"complete","ttlMs":"5","cacheScope":{"a":"é\u0001"}}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":"m2","method":"tools/call","params":{"name":"weather","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":"m2","result":{"content":[],"isError":true,"resultType":7}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":"m3","method":"resources/read","params":{"uri":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":"m3","error":{"code":-32002,"message":"not found"}}"#.to_owned(),
            "not json at all".to_owned(),
            format!("{}1{}", "[".repeat(200), "]".repeat(200)),
        ]);
        lines.join("\n") + "\n"
    }

    /// A report's documents and errors, as JSON.
    fn written(items: Items) -> Vec<serde_json::Value> {
        items
            .into_iter()
            .map(|item| match item {
                Ok(doc) => serde_json::to_value(doc).unwrap(),
                Err(e) => e.message.into(),
            })
            .collect()
    }

    #[test]
    fn a_transcript_read_in_place_is_audited_as_its_serde_json_tree() {
        let ctx = Context {
            config: Config::default(),
            tokenizer: Tokenizer::Heuristic,
            clients: crate::contract::default_clients(),
            contract: None,
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let text = transcript();
        let text_lines: Vec<String> = text.lines().map(str::to_owned).collect();
        std::fs::write(&path, &text).unwrap();
        let report = run(
            &[Source::Path(path.clone())],
            std::io::empty(),
            &ctx,
            None,
            &|| {},
        );
        // The oracle: the same lines as a live session's transcript is read, serde_json's
        // tree each.
        let name = path.display().to_string();
        let docs = input::read_unit_bytes(&name, text.into_bytes(), true, &ctx.config.read_limits);
        let (expected_docs, expected_errors): (Vec<_>, Vec<_>) =
            written(audit_documents(docs, &ctx, None, None))
                .into_iter()
                .partition(serde_json::Value::is_object);
        let docs = written(
            report
                .documents
                .iter()
                .map(|d| Ok(d.into_owned()))
                .collect(),
        );
        let errors: Vec<serde_json::Value> =
            report.errors.iter().map(|e| e.as_str().into()).collect();
        assert_eq!(docs.len(), expected_docs.len());
        for (doc, expected) in docs.iter().zip(&expected_docs) {
            assert_eq!(doc, expected, "{}", expected["name"]);
        }
        assert_eq!(errors, expected_errors);
        // What the lines are there for.
        let codes: Vec<&str> = docs
            .iter()
            .flat_map(|d| d["findings"].as_array().unwrap())
            .filter_map(|f| f["code"].as_str())
            .collect();
        for code in ["MG025", "MG026", "MG027", "MG029"] {
            assert!(codes.contains(&code), "{code} in {codes:?}");
        }
        let surrogate = text_lines
            .iter()
            .position(|l| l.contains(r#""id":"s""#))
            .unwrap()
            + 1;
        assert!(
            docs.iter()
                .any(|d| d["name"] == format!("{name}:{surrogate}").as_str())
        );
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[0].as_str().unwrap().contains("invalid JSON"),
            "{errors:?}"
        );
    }

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
