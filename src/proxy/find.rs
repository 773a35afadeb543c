//! `mcpguard_more`'s questions, answered from a stored result without reading it all into the
//! context: `match` finds the entries of a text (streamed from the store, never held whole) or
//! the records whose JSON matches; `where` and `order_by` pick and sort records; `aggregate`
//! (with `group_by`) answers with figures instead of records. The searching and filtering are
//! the core's (`chunk::search`, `paginate::{filter, select, aggregate}`), the same that
//! `chunk --match`, `paginate --where` and `artifacts show --match` run; this file turns them
//! into answers the model reads, each with the call that reads on.

use serde_json::{Map, Value, json};

use super::result;
use super::shrink::{self, Context};
use super::store::Artifacts;
use crate::document::result_text::{self, Stop};
use crate::document::{self, PartContent};
use crate::reshape::artifact::Ref;
use crate::reshape::chunk::search::{self, Found, Query, Searcher, Window};
use crate::reshape::cursor::{self, Decoded, Payload};
use crate::reshape::paginate::aggregate::Aggregate;
use crate::reshape::paginate::select::{self, Question};
use crate::reshape::paginate::{self, Order, Where};
use crate::reshape::summarize::cut;
use crate::util::human::thousands;

/// What the model asked to find, from its arguments or from the cursor that carries them.
#[derive(Debug, Default)]
pub struct Ask {
    pub pattern: Option<String>,
    pub context: Option<usize>,
    pub filter: Option<String>,
    pub order_by: Option<String>,
    pub aggregate: Option<String>,
    pub group_by: Option<String>,
    pub fields: Option<String>,
    pub limit: Option<usize>,
}

/// What every refusal ends with: the way back to a result that can be read.
pub(super) const AGAIN: &str = "call the original tool again for a fresh result";

impl Ask {
    /// True when it asks about records (rather than for lines of text).
    pub fn asks_records(&self) -> bool {
        self.filter.is_some()
            || self.order_by.is_some()
            || self.aggregate.is_some()
            || self.group_by.is_some()
    }

    /// True when it asks a question at all (rather than to read on).
    pub fn asks(&self) -> bool {
        self.asks_records() || self.pattern.is_some() || self.context.is_some()
    }

    /// How it reads, for the records: `aggregate`, `match`, `where`, `lines` (a range was
    /// asked) or `read` (in order).
    pub fn way(&self, lines: bool) -> &'static str {
        if self.aggregate.is_some() || self.group_by.is_some() {
            "aggregate"
        } else if self.pattern.is_some() {
            "match"
        } else if self.filter.is_some() || self.order_by.is_some() {
            "where"
        } else if lines {
            "lines"
        } else {
            "read"
        }
    }
}

/// Tokens an answer keeps for its first and last lines (the count, the way on).
const FRAME_TOKENS: u64 = 120;
/// Blocks of matches in one answer at most.
const MAX_BLOCKS: usize = 100;

/// Where the stored result lives and how the model reads on.
pub struct Place<'a> {
    pub reference: &'a str,
    pub stored: &'a Ref,
    pub budget: u64,
}

/// `match` over the text of a result (or, when its text is JSON data, over its records).
pub fn find_text(
    ask: &Ask,
    place: &Place<'_>,
    issued: Option<&Decoded>,
    cx: &Context<'_>,
    store: &mut dyn Artifacts,
) -> Result<Value, String> {
    let pattern_text = ask.pattern.as_deref().unwrap_or_default();
    let pattern = search::compile(pattern_text).map_err(|e| format!("`match`: {e}"))?;
    let context = ask.context.unwrap_or(0);
    if context > search::MAX_CONTEXT {
        return Err(format!(
            "`context` is {context} lines; at most {}",
            search::MAX_CONTEXT
        ));
    }
    let p = issued.map(|d| &d.payload);
    let window = Window {
        skip: p.map_or(0, |p| p.offset.max(0) as usize),
        max_blocks: ask
            .limit
            .or(p.and_then(|p| p.limit).map(|l| l as usize))
            .unwrap_or(MAX_BLOCKS)
            .min(MAX_BLOCKS),
        max_tokens: place
            .budget
            .saturating_sub(FRAME_TOKENS)
            .max(place.budget / 2),
        tokenizer: cx.config.tokenizer,
    };
    let query = Query {
        pattern,
        context,
        kind: p
            .and_then(|p| p.unknown.get("textKind"))
            .and_then(Value::as_str)
            .and_then(crate::reshape::chunk::Kind::parse),
    };
    let found = match search_stored(place.stored, query, window, ask.fields.as_deref(), store)? {
        Searched::Text(found) => found,
        Searched::Records(value) => {
            let Some(located) = records(&value).filter(|_| issued.is_none()) else {
                return Err(format!(
                    "this cursor is for text, and {} holds records now; {AGAIN}",
                    place.stored
                ));
            };
            return find_records(ask, &located, place, None, cx);
        }
    };
    let r = place.stored;
    if let Some(p) = p
        && p.fingerprint.as_deref() != Some(found.fingerprint.as_str())
    {
        return Err(format!(
            "this cursor is for other content than {r} holds; {AGAIN}"
        ));
    }
    Ok(text_answer(&found, ask, pattern_text, window, place, cx))
}

/// Whether a text's head says it is records: JSON data, or what [`document::records`] reads.
fn holds_records(head: &[u8]) -> bool {
    // A piece may end inside a character: the head is judged up to its last whole one.
    let text = match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    matches!(text.trim_start().as_bytes().first(), Some(b'{' | b'['))
        || document::records::sniff(text)
}

/// What a search of a stored result found: matches in its text, or (its text being JSON data)
/// the parsed result, whose records are to be matched instead.
pub enum Searched {
    Text(Found),
    Records(Value),
}

/// Searches the text of the stored result `r`: streamed from the store when it can be (a
/// 100 MB artifact is never held), else parsed whole. `fields` searches those members of its
/// data instead. A result whose text is JSON data with a list of records is
/// [`Searched::Records`].
pub fn search_stored(
    r: &Ref,
    query: Query,
    window: Window,
    fields: Option<&str>,
    store: &mut dyn Artifacts,
) -> Result<Searched, String> {
    if fields.is_none() {
        let reader = match store.open(r) {
            Ok(Some(reader)) => reader,
            Ok(None) => return Err(gone(r)),
            Err(e) => return Err(format!("{r} cannot be read ({e}); {AGAIN}")),
        };
        let mut searcher = Searcher::new(query.clone(), window);
        // The text's head is held until it tells whether the text is records (JSON data, a
        // Python repr, CSV, a Markdown table): their records are matched, not their lines.
        let mut head: Option<Vec<u8>> = Some(Vec::new());
        let streamed = result_text::stream(reader, &mut |piece| {
            if let Some(held) = &mut head {
                held.extend_from_slice(piece);
                // Held until it tells: as much as the records reader sniffs.
                if held.len() < document::records::SNIFF_BYTES {
                    return true;
                }
                if holds_records(held) {
                    return false;
                }
                searcher.feed(held);
                head = None;
                return true;
            }
            searcher.feed(piece);
            true
        });
        match streamed {
            Ok(()) => match head {
                Some(held) if holds_records(&held) => {}
                Some(held) => {
                    searcher.feed(&held);
                    return Ok(Searched::Text(searcher.finish()));
                }
                None => return Ok(Searched::Text(searcher.finish())),
            },
            Err(Stop::NotPlain) => {}
            Err(Stop::Io(e)) => return Err(format!("{r} cannot be read ({e}); {AGAIN}")),
        }
    }
    let value = load(r, store)?;
    if fields.is_none() && records(&value).is_some() {
        return Ok(Searched::Records(value));
    }
    let text = text_view(&value, fields)?;
    Ok(Searched::Text(search::search(
        text.as_bytes(),
        query,
        window,
    )))
}

/// The matches found, framed: how many, which are shown, and the call for the next ones.
fn text_answer(
    found: &Found,
    ask: &Ask,
    pattern: &str,
    window: Window,
    place: &Place<'_>,
    cx: &Context<'_>,
) -> Value {
    let unit = match found.kind {
        crate::reshape::chunk::Kind::Text => "line",
        crate::reshape::chunk::Kind::Log => "log entry",
        crate::reshape::chunk::Kind::Markdown => "block",
        crate::reshape::chunk::Kind::Jsonl | crate::reshape::chunk::Kind::Csv => "record",
    };
    let plural = |n: u64, one: &str| {
        if n == 1 {
            format!("1 {one}")
        } else if let Some(stem) = one.strip_suffix('y') {
            format!("{} {stem}ies", thousands(n))
        } else {
            format!("{} {one}s", thousands(n))
        }
    };
    let shown_to = window.skip + found.shown.len();
    let lines = thousands(found.total_lines);
    let mut head = if found.entries == 0 {
        format!(
            "[mcpguard] No {unit} matches `{}` in {lines} lines ({}).",
            cut(pattern, 120),
            found.kind.name()
        )
    } else {
        format!(
            "[mcpguard] {} {} `{}` in {lines} lines ({}); showing {}-{shown_to}",
            plural(found.entries, unit),
            if found.entries == 1 {
                "matches"
            } else {
                "match"
            },
            cut(pattern, 120),
            found.kind.name(),
            window.skip + usize::from(!found.shown.is_empty()),
        )
    };
    if found.entries > 0 {
        if found.blocks != found.entries {
            head.push_str(&format!(
                " of {} blocks (matches within {} lines of each other are shown together)",
                thousands(found.blocks),
                2 * ask.context.unwrap_or(0)
            ));
        }
        head.push('.');
    }
    let mut out = result::text(head);
    let mut body = String::new();
    for b in &found.shown {
        body.push_str(&format!("--- {}", b.place()));
        if let Some(last) = b.cut_from {
            // The rest starts on the next line, or on the line that was cut when it is the
            // last: never an empty or reversed range.
            let from = if b.end_line < last {
                b.end_line + 1
            } else {
                last
            };
            body.push_str(&format!(
                " (of {}-{last}: cut to fit; the rest: {})",
                b.start_line,
                result::call(
                    cx.more_tool,
                    &json!({"ref": place.reference, "lines": format!("{from}-{last}")})
                )
            ));
        }
        body.push('\n');
        body.push_str(&b.text);
        if !b.text.ends_with('\n') {
            body.push('\n');
        }
    }
    if !body.is_empty() {
        result::push_text(&mut out, body);
    }
    let more = (shown_to as u64) < found.blocks;
    if more {
        let mut p = Payload::new(shown_to as u64, cx.now);
        p.kind = Some("match".into());
        p.fingerprint = Some(found.fingerprint.clone());
        p.limit = ask.limit.map(|l| l as u64);
        let tags = &mut p.unknown;
        tags.insert("ref".into(), place.reference.into());
        tags.insert("match".into(), pattern.into());
        if let Some(c) = ask.context.filter(|c| *c > 0) {
            tags.insert("context".into(), c.into());
        }
        tags.insert("textKind".into(), found.kind.name().into());
        if let Some(f) = &ask.fields {
            tags.insert("fields".into(), f.clone().into());
        }
        let next = cursor::encode(&p, cx.secrets);
        result::push_text(
            &mut out,
            format!(
                "[mcpguard] The next matches: {}.",
                result::call(cx.more_tool, &json!({"cursor": next}))
            ),
        );
        out["nextCursor"] = next.into();
    }
    out
}

/// `where`, `order_by`, `match` over records, or `aggregate`: the records of the stored result
/// asked about, a page of them (or the figures).
pub fn query_records(
    ask: &Ask,
    place: &Place<'_>,
    issued: Option<&Decoded>,
    cx: &Context<'_>,
    store: &mut dyn Artifacts,
) -> Result<Value, String> {
    let value = load(place.stored, store)?;
    let Some(located) = records(&value) else {
        let what = if ask.aggregate.is_some() || ask.group_by.is_some() {
            "`aggregate` and `group_by` work on records"
        } else if ask.order_by.is_some() && ask.filter.is_none() {
            "`order_by` sorts records"
        } else {
            "`where` filters records"
        };
        let why = why_not_records(&value).map_or(String::new(), |why| format!(" ({why})"));
        return Err(format!(
            "{what}, and {} holds text, not a list of records{why}; find lines in it with `match` (a regular expression)",
            place.stored
        ));
    };
    find_records(ask, &located, place, issued, cx)
}

fn find_records(
    ask: &Ask,
    located: &paginate::Located<'_>,
    place: &Place<'_>,
    issued: Option<&Decoded>,
    cx: &Context<'_>,
) -> Result<Value, String> {
    let filter = ask
        .filter
        .as_deref()
        .map(|w| Where::parse(&[w]))
        .transpose()
        .map_err(|e| format!("`where` {e}"))?;
    let pattern = ask
        .pattern
        .as_deref()
        .map(search::compile)
        .transpose()
        .map_err(|e| format!("`match`: {e}"))?;
    let order = ask
        .order_by
        .as_deref()
        .map(Order::parse)
        .transpose()
        .map_err(|_| {
            format!(
                "`order_by` {}: expected FIELD, FIELD:asc or FIELD:desc",
                cut(ask.order_by.as_deref().unwrap_or(""), 60)
            )
        })?;
    let aggregate = (ask.aggregate.is_some() || ask.group_by.is_some())
        .then(|| {
            Aggregate::parse(
                ask.aggregate.as_deref().unwrap_or("count"),
                ask.group_by.as_deref(),
            )
        })
        .transpose()
        .map_err(|e| format!("`aggregate` {e}"))?;
    let names: Vec<&str> = ask
        .fields
        .as_deref()
        .map(|f| {
            f.split(',')
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .collect()
        })
        .unwrap_or_default();
    // A field no record has is a typo more often than a question: say so.
    let mut asked: Vec<&str> = filter.as_ref().map(Where::fields).unwrap_or_default();
    asked.extend(order.as_ref().map(|o| o.field.as_str()));
    asked.extend(aggregate.iter().flat_map(|a| {
        a.measures
            .iter()
            .filter_map(|m| match m {
                paginate::aggregate::Measure::Count => None,
                paginate::aggregate::Measure::Sum(f)
                | paginate::aggregate::Measure::Min(f)
                | paginate::aggregate::Measure::Max(f)
                | paginate::aggregate::Measure::Avg(f) => Some(f.as_str()),
            })
            .chain(a.group_by.as_deref())
    }));
    asked.extend(names.iter().copied());
    known_fields(located, &asked)?;
    let question = Question {
        filter: filter.as_ref(),
        pattern: pattern.as_ref(),
        order: order.as_ref(),
        fields: (!names.is_empty()).then_some(names.as_slice()),
    };
    if let Some(aggregate) = aggregate {
        let mut matched = 0usize;
        let figures_of = aggregate.over(question.kept(located).map(|(_, item)| {
            matched += 1;
            item
        }));
        let mut figures = Map::new();
        if let Some(w) = &ask.filter {
            figures.insert("where".into(), w.clone().into());
        }
        if let Some(p) = &ask.pattern {
            figures.insert("match".into(), p.clone().into());
        }
        figures.insert("matched".into(), matched.into());
        figures.insert("of".into(), located.len().into());
        if let Value::Object(m) = figures_of {
            figures.extend(m);
        }
        let text = serde_json::to_string_pretty(&Value::Object(figures)).unwrap_or_default();
        return Ok(result::text(text));
    }
    let picked = select::select(located, &question);
    let described = describe(ask);
    let head = if described.is_empty() {
        format!("[mcpguard] {} records", thousands(picked.total as u64))
    } else {
        format!(
            "[mcpguard] {} of {} records match {}",
            thousands(picked.matched as u64),
            thousands(picked.total as u64),
            cut(&described, 300)
        )
    };
    if picked.matched == 0 {
        return Ok(result::text(format!("{head}.")));
    }
    let page_size = ask
        .limit
        .unwrap_or(cx.config.default_page_size as usize)
        .min(cx.config.max_page_size as usize);
    // As a tool result, so that a page is measured (and shown) as the model reads it.
    let picked = json!({"content": [{"type": "text", "text": picked.text}]});
    let selection = records(&picked).ok_or("the records picked cannot be paged")?;
    let mut tags = Map::new();
    for (key, value) in [
        ("match", &ask.pattern),
        ("where", &ask.filter),
        ("orderBy", &ask.order_by),
    ] {
        if let Some(v) = value {
            tags.insert(key.into(), v.clone().into());
        }
    }
    let inner = shrink::inner_budget(place.budget);
    let mut out = shrink::page_of(
        &selection,
        place.reference,
        ask.fields.as_deref(),
        page_size,
        cx,
        (inner.saturating_sub(FRAME_TOKENS / 2), tags),
        issued,
    )
    .map_err(|e| format!("{e}; {AGAIN}"))?
    .ok_or_else(|| {
        format!(
            "one record is over the {}-token budget; ask for fewer `fields`",
            place.budget
        )
    })?;
    if let Some(Value::Array(blocks)) = out.get_mut("content") {
        blocks.insert(0, json!({"type": "text", "text": format!("{head}.")}));
    }
    Ok(out)
}

/// The question in words: `status=cancelled and total>100`, the pattern, the order.
fn describe(ask: &Ask) -> String {
    let mut parts = Vec::new();
    if let Some(w) = &ask.filter {
        parts.push(format!("`{w}`"));
    }
    if let Some(p) = &ask.pattern {
        parts.push(format!("/{p}/"));
    }
    let mut text = parts.join(" and ");
    if let Some(o) = &ask.order_by {
        text.push_str(&format!(" (by {o})"));
    }
    text.trim().to_owned()
}

/// The list of records a stored result holds (as `paginate` finds it; never its own content
/// blocks).
pub fn records(value: &Value) -> Option<paginate::Located<'_>> {
    // A list in a JSON text is read lazily: its items are parsed one at a time, never held
    // as a tree (what that does not read, a map of records say, is located the usual way).
    paginate::locate_lean(value)
        .or_else(|| paginate::locate(value, None).ok())
        .filter(|l| l.pointer != "/content" && !l.is_empty())
}

/// Why the first text of a result is not records (JSON, a Python repr, CSV or TSV, a
/// Markdown table), when it is text.
fn why_not_records(value: &Value) -> Option<String> {
    document::anatomy(value, "")
        .parts
        .iter()
        .find_map(|p| match &p.content {
            PartContent::Text {
                text, json: None, ..
            } => document::records::index(text).err(),
            _ => None,
        })
}

/// The stored result, parsed.
pub fn load(r: &Ref, store: &mut dyn Artifacts) -> Result<Value, String> {
    let text = match store.get(r) {
        Ok(Some(t)) => t,
        Ok(None) => return Err(gone(r)),
        Err(e) => return Err(format!("{r} cannot be read ({e}); {AGAIN}")),
    };
    crate::json::large::parse_result(&text)
        .map_err(|e| format!("{r} is not a JSON result ({e}); {AGAIN}"))
}

fn gone(r: &Ref) -> String {
    format!("{r} has expired or is not in this proxy's store; {AGAIN}")
}

/// The text the model reads of the result: its text blocks (joined by a newline), or the
/// An error naming the fields no record of `located` has (a typo, most often), a few of them and
/// how many more, with the fields the records do have; none when every name is known.
pub fn known_fields(located: &paginate::Located<'_>, names: &[&str]) -> Result<(), String> {
    const SHOWN: usize = 8;
    let (missing, known) = select::unknown_fields(located, names);
    if missing.is_empty() {
        return Ok(());
    }
    let mut listed: Vec<String> = missing
        .iter()
        .take(SHOWN)
        .map(|m| format!("`{}`", cut(m, 60)))
        .collect();
    if missing.len() > SHOWN {
        listed.push(format!("and {} more", missing.len() - SHOWN));
    }
    Err(format!(
        "no record has the field{} {}; the records have {}",
        if missing.len() == 1 { "" } else { "s" },
        listed.join(", "),
        known.join(", ")
    ))
}

/// members `fields` names of its data as indented JSON, or the result itself as JSON when it
/// has no text.
pub fn text_view(value: &Value, fields: Option<&str>) -> Result<String, String> {
    let anatomy = document::anatomy(value, "");
    if let Some(fields) = fields {
        let names: Vec<&str> = fields.split(',').map(str::trim).collect();
        let data = anatomy
            .parts
            .iter()
            .find_map(|p| match &p.content {
                PartContent::Json(v) if p.pointer.ends_with("/structuredContent") => Some(*v),
                _ => None,
            })
            .cloned()
            .or_else(|| {
                anatomy.parts.iter().find_map(|p| match &p.content {
                    PartContent::Text { json: Some(v), .. } => Some(v.as_ref().clone()),
                    _ => None,
                })
            })
            .ok_or("`fields` needs a result that holds JSON; this one is text (use `lines`)")?;
        let selected = select::project(&data, &names);
        if selected.as_object().is_some_and(Map::is_empty) {
            let known: Vec<&str> = data
                .as_object()
                .map(|m| m.keys().map(String::as_str).take(30).collect())
                .unwrap_or_default();
            return Err(format!(
                "none of `{}` is in this result; it has {}",
                cut(fields, 200),
                known.join(", ")
            ));
        }
        return serde_json::to_string_pretty(&selected).map_err(|e| e.to_string());
    }
    let texts: Vec<&str> = anatomy
        .parts
        .iter()
        .filter_map(|p| match &p.content {
            PartContent::Text { text, .. } => Some(*text),
            _ => None,
        })
        .collect();
    if texts.is_empty() {
        return serde_json::to_string_pretty(value).map_err(|e| e.to_string());
    }
    Ok(texts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text streamed from a stored result's bytes is the text the tree gives, for every
    /// captured response the streaming reader follows (the rest fall back to the tree).
    #[test]
    fn streamed_text_is_the_trees_text_on_the_corpus() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus");
        let mut streamed = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            let value: Value = serde_json::from_slice(&bytes).unwrap();
            // The proxy stores a result, not its envelope.
            let result = value.get("result").cloned().unwrap_or(value);
            let text = serde_json::to_vec(&result).unwrap();
            let mut out = Vec::new();
            let outcome =
                result_text::stream(std::io::BufReader::with_capacity(7, &text[..]), &mut |p| {
                    out.extend_from_slice(p);
                    true
                });
            if outcome.is_ok() {
                streamed += 1;
                let tree = text_view(&result, None).unwrap();
                assert_eq!(String::from_utf8(out).unwrap(), tree, "{}", path.display());
            }
        }
        assert!(streamed >= 8, "{streamed} streamed");
    }
}
