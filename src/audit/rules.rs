//! The rules: what makes a response break the contract, each a stable code (see
//! `contract::RULES`). Structural rules look at what the model sees (a JSON text block is
//! parsed and walked; image data is a fixed cost, not a long string); size rules look at the
//! message as sent.

use super::findings::{Input, Out};
use super::{Context, Finding};
use crate::contract::RuleId;
use crate::contract::{INVALID_CURSOR_PROBE, Limits};
use crate::document::{self, Kind, PartContent, Twin};
use crate::json::compact;
use crate::json::node::{Members, Node, NodeKind};
use crate::json::pointer::{self, PathStack, Seg};
use crate::json::whitespace;
use crate::measure::estimate::DocumentEstimate;
use crate::measure::{self, BASE64_MIN_RUN};

/// JSON text that a minify would shrink by at least this many bytes is reported (MG014).
const PRETTY_MIN_SAVING: u64 = 64;

pub(super) fn check<N: Node + Clone>(input: &Input<'_, N>, ctx: &Context) -> Vec<Finding> {
    let mut out = Out::new(input, ctx);
    let l = input.limits;
    let e = input.estimate;
    let kind = input.anatomy.kind;
    let is_response = !matches!(kind, Kind::Request);

    // The answer to the invalid-cursor probe is judged on that alone: it is not a page a
    // client would read, and its content was already audited on the real pages.
    if input.call.cursor.as_deref() == Some(INVALID_CURSOR_PROBE) {
        check_cursors(&mut out);
        return out.into_findings();
    }

    // MG001: the message as sent.
    if is_response && e.wire_bytes > l.max_bytes {
        out.add(
            RuleId::ResponseTooLarge,
            "",
            format!("response is {} bytes, over the {}-byte limit", e.wire_bytes, l.max_bytes),
            "page it (mcpguard paginate), project fields or summarize it (mcpguard summarize), and keep the full result as an artifact".into(),
            Some(e.wire_bytes - l.max_bytes),
        );
    }
    // MG008 / MG009: tokens against the budget and the hard cap.
    let c = &ctx.config;
    if is_response && e.tokens > c.hard_cap {
        out.add(
            RuleId::OverHardCap,
            "",
            format!("{} tokens, over the hard cap of {}", e.tokens, c.hard_cap),
            "no response may exceed hardCap: summarize it or return a reference".into(),
            Some(bytes_for_tokens(e, e.tokens - c.hard_cap)),
        );
    } else if is_response && e.tokens > c.token_budget_threshold {
        out.add(
            RuleId::OverTokenBudget,
            "",
            format!(
                "{} tokens, over the budget of {}",
                e.tokens, c.token_budget_threshold
            ),
            format!(
                "summarize above tokenBudgetThreshold (FR-010): mcpguard summarize --budget {}",
                c.token_budget_threshold
            ),
            Some(bytes_for_tokens(e, e.tokens - c.token_budget_threshold)),
        );
    }

    check_cursors(&mut out);
    super::protocol::check(&mut out);
    if input.tree.pointer("/result/resultType").and_then(N::as_str) == Some("input_required") {
        // An interim result asks the client for input; it is not content a model reads.
        return out.into_findings();
    }
    if input.call.method.as_deref() == Some("initialize") {
        // Of an initialize result the model sees only the server's instructions.
        if let Some(text) = input
            .tree
            .pointer("/result/instructions")
            .and_then(N::as_str)
        {
            check_text(&mut out, "/result/instructions", text, l);
        }
        return out.into_findings();
    }
    match kind {
        Kind::ListResult(list) => check_list(&mut out, list.member()),
        Kind::ToolResult | Kind::Plain | Kind::OtherResult | Kind::ResourceContents => {
            check_content(&mut out)
        }
        Kind::Error | Kind::Request => {}
    }
    out.into_findings()
}

/// MG020 and MG021: what a list did with the cursor it was sent.
fn check_cursors<N: Node + Clone>(out: &mut Out<'_, N>) {
    let call = out.input.call;
    let (Some(method), Some(cursor)) = (call.method.as_deref(), call.cursor.as_deref()) else {
        return;
    };
    if !method.ends_with("/list") {
        return;
    }
    let value = out.input.tree;
    if cursor == INVALID_CURSOR_PROBE {
        let code = value.pointer("/error/code").and_then(N::as_i64);
        if code != Some(-32602) {
            let answer = match code {
                Some(c) => format!("error {c}"),
                None => "a result".to_owned(),
            };
            out.add(
                RuleId::InvalidCursorAccepted,
                "",
                format!("{method} answered a cursor it never issued with {answer}, not error -32602"),
                "treat an unknown or tampered cursor as invalid params: JSON-RPC error -32602 (MCP pagination)".into(),
                None,
            );
        }
        return;
    }
    if value.pointer("/result/nextCursor").and_then(N::as_str) == Some(cursor) {
        out.add(
            RuleId::CursorRepeated,
            "/result/nextCursor",
            format!("{method} returned the cursor it was given as nextCursor: a client following it never ends"),
            "return a cursor for the next page, and none on the last (FR-004)".into(),
            None,
        );
    }
}

/// Turns a token excess into the bytes that carry it, in proportion.
fn bytes_for_tokens(e: &DocumentEstimate, tokens: u64) -> u64 {
    if e.tokens == 0 {
        return 0;
    }
    (e.visible_bytes as u128 * tokens as u128 / e.tokens as u128) as u64
}

fn check_list<N: Node + Clone>(out: &mut Out<'_, N>, member: &str) {
    let input = out.input;
    let at = input.anatomy.payload_pointer;
    let payload = input.anatomy.payload;
    let items = payload.get(member).and_then(N::as_array).unwrap_or(&[]);
    let list_at = pointer::join(at, member);
    let page_size = out.ctx.config.default_page_size;
    if items.len() as u64 > page_size && payload.get("nextCursor").is_none() {
        let excess: u64 = items[page_size as usize..]
            .iter()
            .map(|v| crate::json::compact::len(v) as u64)
            .sum();
        out.add(
            RuleId::ListWithoutCursor,
            &list_at,
            format!("{} {member} in one response and no nextCursor", items.len()),
            format!("page lists over defaultPageSize ({page_size}) with a cursor (FR-001)"),
            Some(excess),
        );
    }
    if member != "tools" {
        return;
    }
    let l = input.limits;
    for (i, tool) in items.iter().enumerate() {
        let Some(description) = tool.get("description").and_then(N::as_str) else {
            continue;
        };
        if description.len() as u64 > l.max_tool_description_bytes {
            let mut p = list_at.clone();
            pointer::push_index(&mut p, i);
            let name = tool.get("name").and_then(N::as_str).unwrap_or("?");
            out.add(
                RuleId::ToolDescriptionTooLong,
                &pointer::join(&p, "description"),
                format!("tool `{name}` has a {}-byte description, over {} (Claude Code cuts it)", description.len(), l.max_tool_description_bytes),
                "keep the description to what the model needs to choose the tool; move details to the schema's property descriptions".into(),
                Some(description.len() as u64 - l.max_tool_description_bytes),
            );
        }
    }
    let tokens = input.estimate.tokens;
    if tokens > l.max_catalog_tokens {
        out.add(
            RuleId::CatalogOverBudget,
            &list_at,
            format!("the catalog of {} tools costs {tokens} tokens, over the {} a catalog loaded at start may cost", items.len(), l.max_catalog_tokens),
            tier_plan(items, l.max_catalog_tokens, out.ctx),
            Some(bytes_for_tokens(input.estimate, tokens - l.max_catalog_tokens)),
        );
    }
}

/// Seed 004's progressive disclosure for a catalog: which tools fit a T0 hot list, what brief
/// summaries of all of them cost (T2), and that full schemas load on demand (T3).
fn tier_plan<N: Node>(tools: &[N], t0_budget: u64, ctx: &Context) -> String {
    let counter = ctx.tokenizer.counter();
    let brief = |t: &N| {
        let name = t.get("name").and_then(N::as_str).unwrap_or("");
        let description = t.get("description").and_then(N::as_str).unwrap_or("");
        let first = description.split(". ").next().unwrap_or(description);
        counter.count(&format!("{name}: {first}")) as u64
    };
    let briefs: Vec<u64> = tools.iter().map(brief).collect();
    let all_briefs: u64 = briefs.iter().sum();
    let mut hot = 0;
    let mut spent = 0;
    for b in &briefs {
        if hot == 15 || spent + b > t0_budget {
            break;
        }
        spent += b;
        hot += 1;
    }
    format!(
        "load progressively (seed 004): T0 a hot list of {hot} tools in one line each ({spent} tokens, within {t0_budget}); T2 one line for each of the {} tools ({all_briefs} tokens); T3 a tool's full schema only when it is called",
        tools.len()
    )
}

fn check_content<N: Node + Clone>(out: &mut Out<'_, N>) {
    let input = out.input;
    let anatomy = input.anatomy;
    let l = input.limits;

    let mut structured: Option<&N> = None;
    let mut text_json: Vec<(&str, &str, &N)> = Vec::new();
    let mut walked: Vec<Walked<'_, N>> = Vec::new();
    for part in &anatomy.parts {
        match &part.content {
            PartContent::Text {
                text,
                json: Some(v),
                ..
            } => {
                text_json.push((&part.pointer, text, v));
                walked.push(walk(out, v, &format!("{}#", part.pointer), l));
            }
            PartContent::Text {
                text, json: None, ..
            } => check_text(out, &part.pointer, text, l),
            PartContent::Json(v) if part.pointer.ends_with("/structuredContent") => {
                structured = Some(v);
                // A list is paged or not by its parent: a wrapper that says so (its one member
                // `hasMore` or `nextCursor`) is walked.
                let twin = walked
                    .iter()
                    .find_map(|w| document::twin_of(*v, w.tree).map(|t| (w, t)))
                    .filter(|(_, t)| *t == Twin::Whole || !paged(v.as_object()));
                match twin {
                    Some((w, twin)) if !walk_twins() => repeat(out, w, twin, &part.pointer, l),
                    _ => {
                        walk(out, v, &part.pointer, l);
                    }
                }
            }
            PartContent::Json(v) => {
                walk(out, v, &part.pointer, l);
            }
            PartContent::Raw(text) => {
                walk(out, anatomy.payload, "", l);
                check_pretty(out, "", text);
            }
            PartContent::Media { .. } => {}
        }
    }
    for (at, text, v) in &text_json {
        check_pretty(out, at, text);
        // MG013: the same JSON as text and as structuredContent.
        if structured.is_some_and(|s| document::repeats_structured(s, v)) {
            out.add(
                RuleId::StructuredDuplicated,
                at,
                format!("this text block repeats structuredContent ({} bytes sent twice)", text.len()),
                "send it once: structuredContent for clients that read it, or a short text summary beside it".into(),
                Some(text.len() as u64),
            );
        }
    }
    // The content the response carries: contract fields at the top of its JSON.
    let payload = text_json
        .first()
        .map(|(_, _, v)| *v)
        .or(structured)
        .or(matches!(anatomy.kind, Kind::Plain).then_some(anatomy.payload));
    let at = text_json
        .first()
        .map(|(p, _, _)| format!("{p}#"))
        .or_else(|| structured.map(|_| pointer::join(anatomy.payload_pointer, "structuredContent")))
        .unwrap_or_default();
    if let Some(p) = payload.and_then(N::as_object) {
        check_contract_fields(out, p, &at, l);
    }
    if let (Some(contract), Some(p)) = (&out.ctx.contract, payload) {
        let p = p.as_value();
        for error in contract.iter_errors(&p) {
            let inner = error.instance_path().to_string();
            out.add(
                RuleId::ContractSchema,
                &format!("{at}{inner}"),
                format!("does not match the response contract: {error}"),
                "see the contract passed with --contract (contracts/response.schema.json)".into(),
                None,
            );
        }
    }
}

/// MG005, MG006, MG007, MG011 on the content's top-level object.
fn check_contract_fields<N: Node + Clone>(
    out: &mut Out<'_, N>,
    p: &N::Members,
    at: &str,
    l: &Limits,
) {
    let e = out.input.estimate;
    if e.wire_bytes > l.max_bytes && !p.contains_key("artifactRef") {
        out.add(
            RuleId::MissingArtifactRef,
            at,
            format!("a {}-byte result with no artifactRef to fetch the rest from", e.wire_bytes),
            "store the full result and return a reference (ax://domain/id) with a preview: mcpguard summarize".into(),
            None,
        );
    }
    match p.get("summary").map(N::kind) {
        None if out.ctx.contract.is_some() => out.add(
            RuleId::SummaryMissing,
            at,
            "no summary field".into(),
            format!(
                "begin every response with a one-line summary of at most {} characters",
                l.max_summary_length
            ),
            None,
        ),
        Some(NodeKind::String(s)) if s.chars().count() as u64 > l.max_summary_length => {
            let chars = s.chars().count() as u64;
            out.add(
                RuleId::SummaryTooLong,
                &pointer::join(at, "summary"),
                format!(
                    "summary is {chars} characters, over {}",
                    l.max_summary_length
                ),
                "one line: counts and what was found, details in items or the artifact".into(),
                Some(chars - l.max_summary_length),
            );
        }
        _ => {}
    }
    let has_more = p.get("hasMore").and_then(N::as_bool);
    let cursor = p.get("nextCursor");
    let cursor_ok = cursor.and_then(N::as_str).is_some_and(|c| !c.is_empty());
    let inconsistent = match (has_more, cursor) {
        // seed 003's wrapResponse marks a preview `hasMore` with an artifactRef and no cursor:
        // the rest is fetched from the artifact, which is as good a way as a cursor.
        (Some(true), None) if p.contains_key("artifactRef") => None,
        (Some(true), _) if !cursor_ok => Some(
            "hasMore is true but there is neither a nextCursor nor an artifactRef to fetch more with",
        ),
        (Some(false), Some(c)) if !c.is_null() => {
            Some("hasMore is false but a nextCursor is present")
        }
        (_, Some(c)) if !c.is_null() && !cursor_ok => Some("nextCursor is empty or not a string"),
        _ => None,
    };
    if let Some(message) = inconsistent {
        out.add(
            RuleId::PaginationInconsistent,
            &pointer::join(
                at,
                if has_more.is_some() {
                    "hasMore"
                } else {
                    "nextCursor"
                },
            ),
            message.into(),
            "send nextCursor exactly when hasMore is true, and omit both on the last page (FR-004)"
                .into(),
            None,
        );
    }
}

/// A text block that is not JSON: its length and any base64 inside.
fn check_text<N: Node + Clone>(out: &mut Out<'_, N>, at: &str, text: &str, l: &Limits) {
    long_string(out, at, text, l);
    base64_runs(out, at, text);
}

fn long_string<N: Node + Clone>(out: &mut Out<'_, N>, at: &str, s: &str, l: &Limits) {
    let max = l.max_string_length as usize;
    if s.len() <= max {
        return;
    }
    let chars = s.chars().count();
    if chars > max {
        let cut = s.char_indices().nth(max).map_or(s.len(), |(i, _)| i);
        out.add(
            RuleId::StringTooLong,
            at,
            format!("a string of {chars} characters, over {max}"),
            "truncate with a note of the full length, or chunk it (mcpguard chunk) and return the first chunk with a cursor".into(),
            Some((s.len() - cut) as u64),
        );
    }
}

/// MG012: runs of base64 inside a string (a data: URI, an inlined file).
fn base64_runs<N: Node + Clone>(out: &mut Out<'_, N>, at: &str, s: &str) {
    for run in measure::base64_runs(s) {
        let message = match run.mime {
            Some(m) => format!("{} characters of base64 ({m}) inside the text", run.len),
            None => format!("{} characters of base64 inside the text", run.len),
        };
        out.add(
            RuleId::Base64InText,
            at,
            message,
            "return it as an image or resource block, or store it and send a short descriptor with a reference".into(),
            Some(run.len.saturating_sub(80) as u64),
        );
    }
}

/// MG014: JSON text with whitespace a minify would remove (counted over the text's bytes, not
/// by writing its tree again).
fn check_pretty<N: Node + Clone>(out: &mut Out<'_, N>, at: &str, text: &str) {
    let len = text.trim_end().len() as u64;
    let compact = len - whitespace::insignificant(text);
    if len > compact + PRETTY_MIN_SAVING {
        out.add(
            RuleId::PrettyPrintedJson,
            at,
            format!("JSON text of {len} bytes that is {compact} bytes minified"),
            "serialize without indentation (JSON.stringify(value), json.dumps(value, separators=(',', ':')))".into(),
            Some(len - compact),
        );
    }
}

/// What [`walk`] found in a JSON text block's tree, kept for structuredContent that is the same
/// tree (the anatomy borrowed it).
struct Walked<'v, N> {
    tree: &'v N,
    /// The walk's base (`/result/content/0/text#`): every pointer it made starts so.
    base: String,
    findings: std::ops::Range<usize>,
    /// The deepest nesting and the first place it is reached, over the limit or not.
    deepest: (usize, String),
}

#[cfg(test)]
thread_local! {
    static WALK_TWINS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether structuredContent that is a text block's tree is walked again rather than given the
/// text's findings ([`repeat`]). Only a test asks for it: the oracle `repeat` is checked against.
fn walk_twins() -> bool {
    #[cfg(test)]
    return WALK_TWINS.get();
    #[cfg(not(test))]
    false
}

/// MG002, MG003, MG004, MG012 over a JSON value the model sees.
fn walk<'v, N: Node + Clone>(
    out: &mut Out<'_, N>,
    value: &'v N,
    base: &str,
    l: &Limits,
) -> Walked<'v, N> {
    let first = out.len();
    let at = PathStack::new(base);
    let mut walker = Walker {
        out,
        l,
        deepest: (0, at.pointer()),
        at,
    };
    walker.value(value, 0, None, false);
    let deepest = walker.deepest;
    too_deep(out, &deepest, l);
    Walked {
        tree: value,
        base: base.to_owned(),
        findings: first..out.len(),
        deepest,
    }
}

/// MG004 at the first place the deepest nesting is reached, if that is over the limit.
fn too_deep<N: Node + Clone>(out: &mut Out<'_, N>, (depth, at): &(usize, String), l: &Limits) {
    if *depth as u64 > l.max_json_depth {
        out.add(
            RuleId::TooDeep,
            at,
            format!("nested {depth} levels deep, over {}", l.max_json_depth),
            "flatten: return ids and summaries of nested records, and the full record on request"
                .into(),
            None,
        );
    }
}

/// What [`walk`] would find in structuredContent at `base`, from the walk of the text block
/// whose tree it is: the same findings at the tree's place in it instead of the text's base,
/// and MG004 (the walk's last) judged again on the deepest nesting plus the levels the tree
/// sits deeper, reached first at the same place. The wrapper around a list breaks no rule
/// itself (one member, not a string, at depth 0).
fn repeat<N: Node + Clone>(
    out: &mut Out<'_, N>,
    w: &Walked<'_, N>,
    twin: Twin<'_>,
    base: &str,
    l: &Limits,
) {
    let base = twin.pointer(base);
    let at = |p: &str| pointer::rebase(p, &w.base, &base);
    out.repeat(w.findings.clone(), |f| f.code != RuleId::TooDeep.code(), at);
    let (depth, first) = &w.deepest;
    too_deep(out, &(depth + twin.depth(), at(first)), l);
}

/// The rules' walk over one JSON value: where it is, and the deepest nesting so far.
struct Walker<'w, 'o, 'v, N: Node + Clone> {
    out: &'w mut Out<'o, N>,
    l: &'w Limits,
    at: PathStack<'v>,
    deepest: (usize, String),
}

impl<'v, N: Node + Clone + 'v> Walker<'_, '_, 'v, N> {
    /// Checks `value` and everything in it for MG002, MG003 and MG012. When `sizing`, returns
    /// the length of its compact JSON (else 0), measured on the way: a list over
    /// maxArrayItems is charged the bytes of the items over the limit, and measuring them as
    /// they are walked costs no second walk (nor a third for a list inside such a list).
    fn value(
        &mut self,
        value: &'v N,
        depth: usize,
        parent: Option<&N::Members>,
        sizing: bool,
    ) -> usize {
        if depth > self.deepest.0 {
            self.deepest = (depth, self.at.pointer());
        }
        let limit = self.l.max_array_items as usize;
        let (entries, len) = match value.kind() {
            NodeKind::Array(items) => {
                let what = (items.len() > limit && !paged(parent))
                    .then(|| format!("a list of {} items", items.len()));
                let entries = items.iter().enumerate();
                let entries = entries.map(|(i, item)| (Seg::Index(i), None, item));
                let len = self.entries(entries, depth, None, what, sizing);
                (items.len(), len)
            }
            NodeKind::Object(members) => {
                let what = (members.len() > limit
                    && !paged(parent)
                    && crate::json::collection::is_record_map(members))
                .then(|| format!("a map of {} records keyed by id", members.len()));
                let entries = members.iter().map(|(k, v)| (Seg::Key(k), Some(k), v));
                let len = self.entries(entries, depth, Some(members), what, sizing);
                (members.len(), len)
            }
            NodeKind::String(s) => {
                // Only long strings can break a rule: short ones cost one comparison.
                if s.len() > (self.l.max_string_length as usize).min(BASE64_MIN_RUN) {
                    let here = self.at.pointer();
                    long_string(self.out, &here, s, self.l);
                    if s.len() >= BASE64_MIN_RUN {
                        base64_runs(self.out, &here, s);
                    }
                }
                return if sizing { compact::str_len(s) } else { 0 };
            }
            _ => return if sizing { compact::len(value) } else { 0 },
        };
        if sizing {
            compact::container_len(entries, len)
        } else {
            0
        }
    }

    /// Walks a list's items or an object's members (`key` given), and returns their compact
    /// JSON's length when `sizing` (a member's `"key":` included, the commas between them
    /// not). `what` names a collection over maxArrayItems that nothing pages: MG002, charged
    /// the entries past the limit and a comma each, is reported before what was found in them.
    fn entries(
        &mut self,
        entries: impl Iterator<Item = (Seg<'v>, Option<&'v str>, &'v N)>,
        depth: usize,
        parent: Option<&N::Members>,
        what: Option<String>,
        sizing: bool,
    ) -> usize {
        let limit = self.l.max_array_items as usize;
        let first = self.out.len();
        let (mut len, mut excess) = (0, 0);
        for (i, (seg, key, value)) in entries.enumerate() {
            let charged = what.is_some() && i >= limit;
            self.at.push(seg);
            let value_len = self.value(value, depth + 1, parent, sizing || charged);
            self.at.pop();
            let entry_len = match key {
                Some(k) if sizing || charged => compact::member_len(k, value_len),
                _ => value_len,
            };
            len += entry_len;
            if charged {
                excess += entry_len as u64 + 1;
            }
        }
        if let Some(what) = what {
            unpaginated(self.out, first, &self.at.pointer(), what, excess, self.l);
        }
        len
    }
}

/// Whether a collection's parent object says how to get the rest of it.
fn paged(parent: Option<&impl Members>) -> bool {
    parent.is_some_and(|p| p.contains_key("hasMore") || p.contains_key("nextCursor"))
}

/// MG002: a list (or a map of records) over maxArrayItems that nothing pages.
/// It is reported before the findings from `index` on (those inside it).
fn unpaginated<N: Node + Clone>(
    out: &mut Out<'_, N>,
    index: usize,
    at: &str,
    what: String,
    excess: u64,
    l: &Limits,
) {
    let max = l.max_array_items;
    out.add_before(
        index,
        RuleId::ArrayNotPaginated,
        at,
        format!("{what} with no hasMore or nextCursor, over {max}"),
        format!(
            "return the first {max} with hasMore and a nextCursor (mcpguard paginate --limit {max})"
        ),
        Some(excess),
    );
}

#[cfg(test)]
mod tests {
    use crate::audit::{Call, Context, Message, audit_document};
    use crate::config::Config;
    use crate::document::input::parse_text;
    use crate::tokens::Tokenizer;

    fn ctx() -> Context {
        Context {
            config: Config::default(),
            tokenizer: Tokenizer::Heuristic,
            clients: crate::contract::default_clients(),
            contract: None,
        }
    }

    /// The report on `text`, which the borrowed tree must give as serde_json's does.
    fn audited(text: &str, ctx: &Context) -> crate::audit::DocumentReport {
        let doc = parse_text("t.json", text).pop().unwrap().unwrap();
        let r = audit_document(&Message::of(&doc), &Call::default(), ctx);
        let arena = bumpalo::Bump::new();
        let tree = crate::json::borrowed::parse(text, &arena).unwrap();
        let message = Message::of(&doc).with_tree(&tree, &arena);
        let borrowed = audit_document(&message, &Call::default(), ctx);
        assert_eq!(
            serde_json::to_value(&borrowed).unwrap(),
            serde_json::to_value(&r).unwrap(),
            "the borrowed tree's report on {text}"
        );
        r
    }

    fn codes(text: &str) -> Vec<&'static str> {
        let r = audited(text, &ctx());
        let mut c: Vec<_> = r.findings.iter().map(|f| f.code).collect();
        c.sort_unstable();
        c.dedup();
        c
    }

    #[test]
    fn clean_response_has_no_findings() {
        assert!(
            codes(r#"{"summary":"3 items","success":true,"items":[{"id":"a","label":"x"}]}"#)
                .is_empty()
        );
    }

    #[test]
    fn a_map_of_records_is_a_list_to_page() {
        let entries: Vec<String> = (0..12)
            .map(|i| format!(r#""user-{i}":{{"name":"U{i}"}}"#))
            .collect();
        let map = format!("{{{}}}", entries.join(","));
        assert_eq!(codes(&format!(r#"{{"users":{map}}}"#)), ["MG002"]);
        assert!(
            codes(&format!(
                r#"{{"users":{map},"hasMore":true,"nextCursor":"c"}}"#
            ))
            .is_empty()
        );
        // Ten records is within the limit; sections of a config are no map.
        let ten = format!("{{{}}}", entries[..10].join(","));
        assert!(codes(&format!(r#"{{"users":{ten}}}"#)).is_empty());
    }

    #[test]
    fn pagination_flags_and_lists() {
        let items: Vec<String> = (0..12).map(|i| i.to_string()).collect();
        let list = format!("[{}]", items.join(","));
        assert_eq!(codes(&format!(r#"{{"items":{list}}}"#)), ["MG002"]);
        assert!(
            codes(&format!(
                r#"{{"items":{list},"hasMore":true,"nextCursor":"abc"}}"#
            ))
            .is_empty()
        );
        assert_eq!(
            codes(&format!(r#"{{"items":{list},"hasMore":true}}"#)),
            ["MG011"]
        );
        assert_eq!(
            codes(r#"{"items":[],"hasMore":false,"nextCursor":"x"}"#),
            ["MG011"]
        );
    }

    #[test]
    fn base64_and_duplication() {
        let blob = "iVBORw0KGgoAAAANSUhEUgAA".repeat(20);
        let text = serde_json::json!({"shot": format!("data:image/png;base64,{blob}")}).to_string();
        let doc = serde_json::json!({"content":[{"type":"text","text": text}]}).to_string();
        assert_eq!(codes(&doc), ["MG003", "MG012"]);
        let v = serde_json::json!({"a": 1});
        let dup = serde_json::json!({"content":[{"type":"text","text": v.to_string()}], "structuredContent": v}).to_string();
        assert_eq!(codes(&dup), ["MG013"]);
    }

    /// The findings of `text` (as JSON), with structuredContent given its text block's findings
    /// and walked again, under limits that most values break.
    fn repeated_and_walked(text: &str) -> [String; 2] {
        let mut ctx = ctx();
        ctx.config.limits.max_array_items = 2;
        ctx.config.limits.max_json_depth = 2;
        ctx.config.limits.max_string_length = 1;
        [false, true].map(|walk| {
            super::WALK_TWINS.set(walk);
            let r = audited(text, &ctx);
            serde_json::to_string_pretty(&r.findings).unwrap()
        })
    }

    #[test]
    fn structured_content_gets_the_findings_a_walk_would_find() {
        // A real capture: 2,000 items as a JSON text block and again as {"items": [...]}.
        let capture = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/corpus/paged__tools_call__big__2000.json"
        ))
        .unwrap();
        let [repeated, walked] = repeated_and_walked(&capture);
        assert_eq!(repeated, walked);
        assert!(
            walked.contains("/result/structuredContent/items/0"),
            "{walked}"
        );
        // The object itself, nested deep enough for MG004, with an awkward key on the way.
        let structured = serde_json::json!({"a/b~": [{"x": "é"}, 1, 2], "n": {"deep": [[1]]}});
        let doc = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": structured.to_string()}],
            "structuredContent": structured}});
        let [repeated, walked] = repeated_and_walked(&doc.to_string());
        assert_eq!(repeated, walked);
        assert!(walked.contains("MG004") && walked.contains("/result/structuredContent/a~1b~0"));
        // A wrapper whose one member says the list is paged: the list is too long only as text.
        let list = serde_json::json!([1, 2, 3]);
        let doc = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": list.to_string()}],
            "structuredContent": {"nextCursor": list}}});
        let [repeated, walked] = repeated_and_walked(&doc.to_string());
        assert_eq!(repeated, walked);
        assert_eq!(walked.matches("MG002").count(), 1, "{walked}");
    }

    proptest::proptest! {
        #[test]
        fn structured_content_gets_its_findings_whatever_the_text(
            (structured, text) in crate::document::structured_and_text()
        ) {
            let doc = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {
                "content": [{"type": "text", "text": text}], "structuredContent": structured}});
            let [repeated, walked] = repeated_and_walked(&doc.to_string());
            proptest::prop_assert_eq!(repeated, walked);
        }
    }

    /// Lists and maps of records (eight or more objects sharing a field), nested in each other.
    fn lists_and_record_maps() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        use serde_json::Value;
        let leaf = crate::json::compact::random_json(
            any::<i16>().prop_map(Value::from),
            "[a\"\n\u{1}é]{0,3}",
            2,
            4,
        );
        leaf.prop_recursive(3, 200, 12, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..12).prop_map(Value::Array),
                proptest::collection::vec(inner, 8..12).prop_map(|values| {
                    let records = values
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| (format!("id-{i}"), serde_json::json!({"name": i, "v": v})));
                    Value::Object(records.collect())
                }),
            ]
        })
    }

    proptest::proptest! {
        /// MG002 charges a list the compact JSON of its items over the limit, and a comma each;
        /// a map of records its members over the limit, `"key":value,` each. Measured as the
        /// walk goes, checked here against `compact::len` of each value.
        #[test]
        fn a_long_list_is_charged_the_bytes_of_the_items_over_the_limit(
            value in lists_and_record_maps()
        ) {
            use crate::json::compact;
            let doc = parse_text("t.json", &serde_json::json!({"data": value}).to_string())
                .pop().unwrap().unwrap();
            let mut ctx = ctx();
            ctx.config.limits.max_array_items = 2;
            let r = audited(&doc.text, &ctx);
            let mut expected = Vec::new();
            let mut stack = vec![(String::new(), &doc.value)];
            while let Some((at, v)) = stack.pop() {
                let excess = match v {
                    serde_json::Value::Array(items) => {
                        stack.extend(items.iter().enumerate().map(|(i, item)| (format!("{at}/{i}"), item)));
                        (items.len() > 2).then(|| items[2..].iter().map(|i| compact::len(i) as u64 + 1).sum::<u64>())
                    }
                    serde_json::Value::Object(members) => {
                        stack.extend(members.iter().map(|(k, item)| (format!("{at}/{k}"), item)));
                        (members.len() > 2 && crate::json::collection::is_record_map(members)).then(|| {
                            members.iter().skip(2)
                                .map(|(k, v)| (compact::str_len(k) + 2 + compact::len(v)) as u64)
                                .sum::<u64>()
                        })
                    }
                    _ => None,
                };
                if let Some(bytes) = excess {
                    expected.push((at, bytes));
                }
            }
            let mut found: Vec<(String, u64)> = r.findings.iter()
                .filter(|f| f.code == "MG002")
                .map(|f| (f.pointer.clone(), f.savings.unwrap().bytes))
                .collect();
            expected.sort();
            found.sort();
            proptest::prop_assert_eq!(found, expected);
        }
    }

    #[test]
    fn a_list_sent_as_text_and_wrapped_in_structured_content_is_sent_twice() {
        let list = serde_json::json!([{"id": 1}, {"id": 2}]);
        let result = |structured: serde_json::Value| {
            serde_json::json!({"content":[{"type":"text","text": list.to_string()}], "structuredContent": structured}).to_string()
        };
        assert_eq!(
            codes(&result(serde_json::json!({"items": list}))),
            ["MG013"]
        );
        // Indented the same: the anatomy parses it on its own, and it is still the same list.
        let pretty = serde_json::to_string_pretty(&list).unwrap();
        let doc = serde_json::json!({"content":[{"type":"text","text": pretty}], "structuredContent": {"items": list}});
        assert!(codes(&doc.to_string()).contains(&"MG013"));
        // A wrapper with more than the list, or another list, is not a copy.
        assert!(codes(&result(serde_json::json!({"items": list, "total": 2}))).is_empty());
        assert!(codes(&result(serde_json::json!({"items": [list[0]]}))).is_empty());
    }
}
