//! What a preview is made of and how it tightens: the list, map of records, object, log or
//! prose it shows,
//! the projected records, the schedule of levels from "everything" down to "summary and
//! reference", and the contract object built at one level.

use serde_json::{Map, Value, json};

use super::envelope::{Body, Payload, Unwrapped};
use super::output::Candidate;
use super::project::{self, Fields, path_exists};
use super::sample::Lengths;
use super::shrink::{self, Level, Shrinker};
use super::structured;
use super::text::{self, Shortener, head_tail};
use super::{Options, Outcome};
use crate::json::compact;
use crate::util::human::thousands;

/// The list a preview shows: the value itself if it is an array, else its largest array
/// member (one level down too: `{"data": {"items": [...]}}`). Returns the member's name.
pub(super) fn main_list<'v>(
    value: &'v Value,
    lengths: &Lengths,
) -> Option<(Option<&'v str>, &'v Vec<Value>)> {
    match value {
        Value::Array(a) => Some((None, a)),
        Value::Object(m) => {
            let mut best: Option<(&str, &Vec<Value>, usize)> = None;
            let mut total = 2;
            for (k, v) in m {
                let candidates: Vec<(&str, &Vec<Value>)> = match v {
                    Value::Array(a) => vec![(k.as_str(), a)],
                    Value::Object(inner) => inner
                        .iter()
                        .filter_map(|(k2, v2)| v2.as_array().map(|a| (k2.as_str(), a)))
                        .collect(),
                    _ => Vec::new(),
                };
                // A long string's quotes and escapes do not change which list is largest.
                let mut member = match v {
                    Value::String(text) => text.len() + 2,
                    _ => compact::len(v),
                };
                for (name, list) in candidates {
                    let size = list_len(list, lengths);
                    member += size - json_len_list(list);
                    if best.is_none_or(|(_, _, s)| size > s) {
                        best = Some((name, list, size));
                    }
                }
                total += k.len() + 4 + member;
            }
            let (name, list, size) = best?;
            // Only a list that is most of the data is "the" list.
            (size * 2 >= total && !list.is_empty()).then_some((Some(name), list))
        }
        _ => None,
    }
}

/// The map of records a preview shows when there is no list: the value itself, or its largest
/// member that is a map of records and most of the data (see [`crate::json::collection`]).
pub(super) fn main_map<'v>(
    value: &'v Value,
    lengths: &Lengths,
) -> Option<(Option<&'v str>, &'v Map<String, Value>)> {
    let m = value.as_object()?;
    if crate::json::collection::is_record_map(m) {
        return Some((None, m));
    }
    let (name, map) = m
        .iter()
        .filter_map(|(k, v)| v.as_object().map(|o| (k.as_str(), o)))
        .filter(|(_, o)| crate::json::collection::is_record_map(*o))
        .max_by_key(|(_, o)| o.len())?;
    let size = super::sample::full_len(&m[name], lengths);
    (size * 2 >= super::sample::full_len(value, lengths)).then_some((Some(name), map))
}

/// The compact size of a list as it was in the input: its sample scaled to its full length.
fn list_len(list: &[Value], lengths: &Lengths) -> usize {
    let sample = json_len_list(list);
    let full = lengths.of(list);
    if full == list.len() || list.is_empty() {
        sample
    } else {
        sample / list.len() * full
    }
}

fn json_len_list(list: &[Value]) -> usize {
    list.iter().map(compact::len).sum::<usize>() + list.len() + 1
}

/// What a preview is made of, decided once.
pub(super) struct Plan<'u> {
    pub(super) shape: PlanShape<'u>,
    pub(super) projection_source: String,
    pub(super) terms: Vec<String>,
    pub(super) summary_noun: String,
    /// The name of the list shown (`bookings`), for the artifact's domain.
    pub(super) list_name: Option<String>,
    /// The artifact the output names, set once it is stored.
    pub(super) reference: Option<String>,
    /// The fields a preview leaves out, for `meta.detailsAvailable`.
    pub(super) omitted: Vec<String>,
    pub(super) total_fields: usize,
    pub(super) projected: Vec<String>,
    /// The preview's records as they are in the input (at most maxArrayItems of them), and
    /// the projection they are shown through (`None`: every field). Projection and shrinking
    /// happen in one pass at each level, so a record's 100 MB field is never copied.
    pub(super) records: Vec<&'u Value>,
    pub(super) paths: Option<Vec<Vec<String>>>,
    pub(super) count: usize,
    pub(super) shortener: Shortener,
    /// The proxy's injected tool, when the way back is a tool call rather than a command.
    pub(super) more_tool: Option<String>,
}

pub(super) enum PlanShape<'u> {
    List,
    /// A map of records: the keys of the records shown, in order.
    Map {
        keys: Vec<&'u str>,
    },
    Object {
        label: Option<String>,
    },
    Lines {
        text: &'u str,
        lines: usize,
    },
    Prose {
        text: &'u str,
    },
    Scalar(&'u Value),
}

/// A level's field count meaning "every field the projection chose".
pub(super) const ALL_PROJECTED: usize = usize::MAX - 1;

/// One attempt of the schedule.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Step {
    /// Everything, if nothing has to be cut (the first attempt).
    Whole(Level),
    Projected(Level),
    /// No records: summary, count and meta.
    NoItems,
    /// Summary, success, hasMore and artifactRef only.
    Bare,
}

impl Step {
    pub(super) fn describe(&self) -> String {
        match self {
            Step::Whole(_) => "everything".into(),
            Step::Projected(l) => format!(
                "{} items, {}-char strings, {} fields, depth {}",
                l.items,
                l.string,
                match l.fields {
                    usize::MAX => "all".to_owned(),
                    ALL_PROJECTED => "the projected".to_owned(),
                    n => n.to_string(),
                },
                l.depth
            ),
            Step::NoItems => "summary, count and meta".into(),
            Step::Bare => "summary and reference".into(),
        }
    }
}

impl<'u> Plan<'u> {
    pub(super) fn new(
        u: &'u Unwrapped,
        opts: &Options<'_>,
        warnings: &mut Vec<String>,
    ) -> Plan<'u> {
        let max_items = opts.limits.max_array_items as usize;
        let mut plan = Plan {
            shape: PlanShape::Scalar(&Value::Null),
            projection_source: "none".into(),
            terms: Vec::new(),
            summary_noun: String::new(),
            list_name: None,
            reference: None,
            omitted: Vec::new(),
            total_fields: 0,
            projected: Vec::new(),
            records: Vec::new(),
            paths: None,
            count: 0,
            shortener: Shortener::default(),
            more_tool: opts.more_tool.map(str::to_owned),
        };
        match &u.payload {
            Payload::Text(t) => {
                let lines = t.lines().count();
                plan.count = lines;
                if lines > max_items.max(3) {
                    plan.shape = PlanShape::Lines { text: t, lines };
                    plan.summary_noun = "lines".into();
                } else {
                    plan.shape = PlanShape::Prose { text: t };
                    plan.summary_noun = "words".into();
                    plan.count = t.split_whitespace().count();
                }
            }
            Payload::Json(v) => {
                let (name, records): (Option<&str>, Vec<&Value>) = match main_list(v, &u.lengths) {
                    Some((name, list)) => {
                        plan.shape = PlanShape::List;
                        plan.count = u.lengths.of(list);
                        plan.summary_noun = match &u.read_from {
                            Some(what) => format!("records ({what}, read from its text)"),
                            None => name.unwrap_or("items").to_owned(),
                        };
                        plan.list_name = name.map(str::to_owned);
                        (name, list.iter().take(max_items).collect())
                    }
                    None if let Some((name, map)) = main_map(v, &u.lengths) => {
                        plan.count = u.lengths.of_map(map);
                        plan.summary_noun = format!("{} keyed by id", name.unwrap_or("records"));
                        plan.list_name = name.map(str::to_owned);
                        let shown: Vec<(&str, &Value)> = map
                            .iter()
                            .take(max_items)
                            .map(|(k, v)| (k.as_str(), v))
                            .collect();
                        plan.shape = PlanShape::Map {
                            keys: shown.iter().map(|(k, _)| *k).collect(),
                        };
                        (name, shown.into_iter().map(|(_, v)| v).collect())
                    }
                    None if v.is_object() => {
                        plan.shape = PlanShape::Object { label: label_of(v) };
                        (None, vec![v])
                    }
                    None => {
                        plan.shape = PlanShape::Scalar(v);
                        (None, Vec::new())
                    }
                };
                let maps: Vec<&Map<String, Value>> =
                    records.iter().filter_map(|r| r.as_object()).collect();
                let projection = project::choose(&opts.fields, name, &maps, opts.projections);
                plan.projection_source = projection.source.clone();
                // Distinct fields over all records, in first-seen order; membership in a set
                // (with the list alone a map of 20,000 keys was quadratic).
                let mut all_fields: Vec<&String> = Vec::new();
                let mut known = std::collections::HashSet::new();
                for k in maps.iter().flat_map(|m| m.keys()) {
                    if known.insert(k) {
                        all_fields.push(k);
                    }
                }
                plan.total_fields = all_fields.len();
                plan.records = records.clone();
                match &projection.paths {
                    Some(paths) => {
                        if let Fields::Paths(asked) = &opts.fields {
                            for p in asked {
                                if !records.iter().any(|r| path_exists(r, p)) {
                                    let have: Vec<&str> =
                                        all_fields.iter().take(12).map(|s| s.as_str()).collect();
                                    warnings.push(format!(
                                        "--fields: `{p}` matches nothing (fields here: {})",
                                        have.join(", ")
                                    ));
                                }
                            }
                        }
                        plan.paths = Some(
                            paths
                                .iter()
                                .map(|p| p.split('.').map(str::to_owned).collect())
                                .collect(),
                        );
                        plan.projected = paths
                            .iter()
                            .filter(|p| records.iter().any(|r| path_exists(r, p)))
                            .cloned()
                            .collect();
                        plan.omitted = all_fields
                            .iter()
                            .filter(|f| !paths.iter().any(|p| p.split('.').next() == Some(f)))
                            .map(|s| (*s).clone())
                            .collect();
                    }
                    None => {
                        plan.projected = all_fields.iter().map(|s| (*s).clone()).collect();
                    }
                }
                // Key terms: the short string values of the records' primary fields.
                for r in &records {
                    if let Value::Object(m) = r {
                        for (k, v) in m {
                            if let (Some(r), Some(s)) = (project::rank(k, v), v.as_str())
                                && r <= 2
                                && s.len() <= 40
                            {
                                plan.terms.push(s.to_owned());
                            }
                        }
                    }
                }
            }
        }
        plan
    }

    /// The artifact's domain when none is given: the list's name, else the kind of data.
    pub(super) fn domain(&self, u: &Unwrapped) -> String {
        if let Some(name) = &self.list_name {
            return name.clone();
        }
        match (&u.payload, &u.envelope.body) {
            (Payload::Text(_), _) => "text",
            (_, Body::Tool { .. }) => "tool-result",
            (_, Body::RpcError { .. }) => "error",
            (_, Body::RpcResult) => "result",
            (_, Body::Plain) => "json",
        }
        .to_owned()
    }

    pub(super) fn schedule(&self, opts: &Options<'_>) -> Vec<Step> {
        let l = &opts.limits;
        let items = l.max_array_items as usize;
        let string = l.max_string_length as usize;
        let depth = l.max_json_depth as usize;
        let projected_fields = if opts.fields == Fields::All {
            usize::MAX
        } else {
            ALL_PROJECTED
        };
        let mut steps = Vec::new();
        if opts.fields == Fields::Auto {
            steps.push(Step::Whole(Level {
                items,
                string,
                fields: usize::MAX,
                depth,
            }));
        }
        let tighter = [
            (items, string, projected_fields, depth),
            (items, 200, projected_fields, depth),
            (5, 200, 8, depth),
            (3, 120, 6, depth),
            (2, 80, 4, depth.saturating_sub(1)),
            (1, 60, 3, depth.saturating_sub(1)),
            (1, 40, 2, depth.saturating_sub(2)),
        ];
        for (i, s, f, d) in tighter {
            let level = Level {
                items: i.min(items).max(1),
                string: s.min(string),
                fields: f,
                depth: d,
            };
            if steps.last() != Some(&Step::Projected(level)) {
                steps.push(Step::Projected(level));
            }
        }
        steps.push(Step::NoItems);
        steps.push(Step::Bare);
        steps
    }

    /// The output at one step, measured; `None` when the step does not apply.
    pub(super) fn build(
        &self,
        u: &Unwrapped,
        step: &Step,
        structured: Option<&structured::Target<'_>>,
        opts: &Options<'_>,
    ) -> Option<Candidate> {
        let l = &opts.limits;
        let max_string = l.max_string_length as usize;
        let mut out = Map::new();
        let mut lossy = false;
        let mut shown = 0usize;
        // Depth the contract object spends above a record: root -> items -> record.
        let (level, whole) = match step {
            Step::Whole(level) => (Some(*level), true),
            Step::Projected(level) => (Some(*level), false),
            Step::NoItems | Step::Bare => (None, false),
        };
        let mut body: Option<(&'static str, Value)> = None;
        let mut table: Option<(Vec<String>, Vec<Value>)> = None;
        if let Some(level) = level {
            let mut s = Shrinker {
                level,
                terms: &self.terms,
                lengths: &u.lengths,
                shortener: &self.shortener,
                lossy: false,
            };
            match &self.shape {
                PlanShape::List => {
                    // "Everything" applies only to a list that fits whole: then the records
                    // are all of it.
                    if whole && self.count > level.items {
                        return None;
                    }
                    let below = level.depth.saturating_sub(2);
                    let paths = if whole { None } else { self.paths.as_deref() };
                    let items: Vec<Value> = self
                        .records
                        .iter()
                        .take(level.items)
                        .map(|r| s.record(r, paths, below))
                        .collect();
                    shown = items.len();
                    if opts.table {
                        table = shrink::table(&items);
                    }
                    if table.is_none() {
                        body = Some(("items", Value::Array(items)));
                    }
                }
                PlanShape::Map { keys } => {
                    if whole && self.count > level.items {
                        return None;
                    }
                    let below = level.depth.saturating_sub(2);
                    let paths = if whole { None } else { self.paths.as_deref() };
                    let entries: Map<String, Value> = keys
                        .iter()
                        .zip(&self.records)
                        .take(level.items)
                        .map(|(k, r)| ((*k).to_owned(), s.record(r, paths, below)))
                        .collect();
                    shown = entries.len();
                    body = Some(("data", Value::Object(entries)));
                }
                PlanShape::Object { .. } => {
                    // The object is the one record.
                    let paths = if whole { None } else { self.paths.as_deref() };
                    let record = self.records.first().copied().unwrap_or(&Value::Null);
                    let below = level.depth.saturating_sub(1);
                    body = Some(("data", s.record(record, paths, below)));
                    shown = 1;
                }
                PlanShape::Lines { text, .. } => {
                    let (lines, _) = head_tail(text, level.items, level.string);
                    s.lossy = true;
                    shown = lines.len();
                    body = Some(("lines", json!(lines)));
                }
                PlanShape::Prose { text } => {
                    body = Some(("text", Value::String(s.string(text))));
                    shown = 1;
                }
                PlanShape::Scalar(v) => {
                    body = Some(("data", s.value(v, 0)));
                    shown = 1;
                }
            }
            lossy = s.lossy;
        }
        if !whole || u.left_out.is_some() {
            lossy = true;
        }
        // The summary is a string too: it keeps both limits.
        let summary_max = l.max_summary_length.min(l.max_string_length) as usize;
        let fits_summary = |text: String| cut_summary(text, summary_max);
        out.insert(
            "summary".into(),
            Value::String(fits_summary(self.summary_line(u, shown, lossy))),
        );
        out.insert("success".into(), Value::Bool(u.success));
        if matches!(
            self.shape,
            PlanShape::List | PlanShape::Map { .. } | PlanShape::Lines { .. }
        ) {
            out.insert("count".into(), json!(self.count));
        }
        if let Some((name, value)) = body {
            out.insert(name.into(), value);
        }
        if let Some((columns, rows)) = table {
            out.insert("columns".into(), json!(columns));
            out.insert("rows".into(), Value::Array(rows));
        }
        // hasMore promises a way to the rest (FR-004, MG011): the artifact. Without one, meta's
        // kind still says this is a preview.
        if lossy && self.reference.is_some() {
            out.insert("hasMore".into(), Value::Bool(true));
        }
        if let Some(r) = &self.reference {
            out.insert("artifactRef".into(), Value::String(r.clone()));
        }
        if *step != Step::Bare {
            let mut meta = Map::new();
            meta.insert("kind".into(), json!(if lossy { "preview" } else { "full" }));
            if self.total_fields > 0 {
                meta.insert("totalFields".into(), json!(self.total_fields));
                if !whole {
                    meta.insert(
                        "projectedFields".into(),
                        Value::String(text::cut(&self.projected.join(","), max_string)),
                    );
                }
            }
            if lossy {
                meta.insert("detailsAvailable".into(), self.details(max_string));
            }
            if let Some(left) = &u.left_out {
                meta.insert("leftOut".into(), Value::String(text::cut(left, max_string)));
            }
            for key in [
                "estimatedTokens",
                "budgetUsed",
                "budgetRemaining",
                "originalBytes",
                "finalBytes",
                "reduction",
            ] {
                meta.insert(key.into(), json!(0));
            }
            out.insert("meta".into(), Value::Object(meta));
        }
        let structured_value = match (structured, level) {
            (Some(target), Some(level)) => Some(target.fit(&level, &self.terms)?),
            (Some(target), None) => Some(target.fit(
                &Level {
                    items: 1,
                    string: 40.min(max_string),
                    fields: 1,
                    depth: 1,
                },
                &self.terms,
            )?),
            (None, _) => None,
        };
        Some(Candidate::new(
            Value::Object(out),
            structured_value,
            if lossy {
                Outcome::Preview
            } else {
                Outcome::Full
            },
            lossy,
        ))
    }

    fn summary_line(&self, u: &Unwrapped, shown: usize, lossy: bool) -> String {
        let what = match &self.shape {
            _ if let Body::RpcError { code, message } = &u.envelope.body => {
                format!("error {code}: {message}")
            }
            PlanShape::List | PlanShape::Map { .. } => format!(
                "{} {}; showing {shown}",
                thousands(self.count as u64),
                self.summary_noun
            ),
            PlanShape::Object { label } => {
                let label = label.as_deref().unwrap_or("object");
                if lossy {
                    format!(
                        "{label}: {} of {} fields",
                        self.projected.len().min(self.total_fields),
                        self.total_fields
                    )
                } else {
                    format!("{label}: {} fields", self.total_fields)
                }
            }
            PlanShape::Lines { lines, .. } => {
                format!("{} lines; first and last shown", thousands(*lines as u64))
            }
            PlanShape::Prose { .. } => {
                format!(
                    "{} words; key sentences shown",
                    thousands(self.count as u64)
                )
            }
            PlanShape::Scalar(_) => "a value".into(),
        };
        match &self.reference {
            Some(r) if lossy => format!("{what}; full result {r}"),
            _ => what,
        }
    }

    /// How to get what the preview leaves out: the exact command.
    fn details(&self, max_string: usize) -> Value {
        let source = self.reference.as_deref().unwrap_or("INPUT");
        let mut d = Map::new();
        if let Some(tool) = &self.more_tool {
            // Inside the proxy the way back is a call of its injected tool, not a command.
            d.insert("tool".into(), Value::String(tool.clone()));
            d.insert("arguments".into(), serde_json::json!({ "ref": source }));
            if !self.omitted.is_empty() {
                let fields = self.omitted.join(",");
                d.insert(
                    "fields".into(),
                    Value::String(text::cut(&fields, max_string)),
                );
            }
            return Value::Object(d);
        }
        let command = match &self.shape {
            PlanShape::List | PlanShape::Map { .. } => format!("mcpguard paginate {source}"),
            PlanShape::Lines { .. } | PlanShape::Prose { .. } => {
                format!("mcpguard chunk {source}")
            }
            _ => format!("mcpguard summarize {source} --fields all"),
        };
        d.insert(
            "command".into(),
            Value::String(text::cut(&command, max_string)),
        );
        if !self.omitted.is_empty() {
            let fields = self.omitted.join(",");
            d.insert(
                "fields".into(),
                Value::String(text::cut(&fields, max_string)),
            );
            let more = format!("mcpguard summarize {source} --fields {fields}");
            if more.chars().count() <= max_string {
                d.insert("fieldsCommand".into(), Value::String(more));
            }
        }
        Value::Object(d)
    }
}

/// The record's label for a summary: its id, name or title.
pub(super) fn label_of(v: &Value) -> Option<String> {
    let m = v.as_object()?;
    ["id", "name", "title", "key"]
        .iter()
        .find_map(|k| match m.get(*k) {
            Some(Value::String(s)) if s.chars().count() <= 40 => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
}

/// A summary of at most `max` characters: dropping the reference first, then cutting.
pub(super) fn cut_summary(text: String, max: usize) -> String {
    if text.chars().count() <= max {
        return text;
    }
    if let Some(cut) = text.find("; full result ") {
        let short = &text[..cut];
        if short.chars().count() <= max {
            return short.to_owned();
        }
    }
    text::cut(&text, max)
}
