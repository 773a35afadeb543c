//! `audit --format html`: the report as one page a reviewer looks at, self-contained (no
//! network; styles, script and the SVG charts drawn here are inline), to open from a CI
//! artifact or a pull request: the verdict and the limits; per tool, every response's tokens
//! against the budget and the hard cap; per client, the share of responses it keeps, cuts or
//! refuses; where the tokens go in the largest responses (a treemap of JSON paths); the
//! findings as a table that sorts and filters (the filter is in the URL); with `--baseline`,
//! each tool's growth. Large audits stay small: past [`POINTS_PER_TOOL`] a tool's dots are a
//! sample, past [`MAX_FINDING_ROWS`] the worst findings are listed, and the page says so.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::{self, Write};

use super::page::{self, Strip, esc, num};
use super::{Emitter, Settings};
use crate::audit::{Report, stats};
use crate::contract::RuleId;
use crate::contract::{ClientVerdict, Severity};

/// Dots drawn per tool at most (then an even sample, smallest and largest kept).
pub const POINTS_PER_TOOL: usize = 300;
/// Finding rows listed at most (the worst first); the JSON report has them all.
pub const MAX_FINDING_ROWS: usize = 5_000;
/// Responses whose paths are drawn as a treemap.
const TREEMAPS: usize = 3;

pub struct Html;

impl Emitter for Html {
    fn emit(&self, report: &Report, settings: &Settings, out: &mut dyn Write) -> io::Result<()> {
        let title = format!(
            "mcpguard audit: {} documents, {} tools",
            report.documents.len(),
            report.tools.len()
        );
        let mut body = String::new();
        header(&mut body, report, settings);
        tools(&mut body, report, settings);
        clients(&mut body, report);
        largest(&mut body, report);
        findings(&mut body, report, settings);
        baseline(&mut body, report, settings);
        out.write_all(page::page(&title, &body).as_bytes())
    }
}

fn header(body: &mut String, report: &Report, settings: &Settings) {
    let counts = report.counts();
    let n = |s| counts.get(&s).copied().unwrap_or(0);
    let failing: usize = [Severity::Error, Severity::Warning, Severity::Info]
        .into_iter()
        .filter(|s| settings.fails(*s))
        .map(n)
        .sum();
    let (class, verdict) = match settings.fail_on {
        _ if failing > 0 => (
            "fail",
            format!(
                "FAIL: {failing} finding{} at or above --fail-on {}",
                if failing == 1 { "" } else { "s" },
                settings.fail_on.map_or("never".into(), |s| s.to_string())
            ),
        ),
        Some(s) => ("pass", format!("PASS: nothing at or above --fail-on {s}")),
        None => ("pass", "PASS: --fail-on never".to_owned()),
    };
    let _ = write!(
        body,
        "<header><h1>mcpguard audit</h1><p id=\"verdict\" class=\"verdict {class}\">{}</p>",
        esc(&verdict)
    );
    let mut facts = vec![
        ("documents".to_owned(), num(report.documents.len() as u64)),
        ("tools".to_owned(), num(report.tools.len() as u64)),
        ("errors".to_owned(), num(n(Severity::Error) as u64)),
        ("warnings".to_owned(), num(n(Severity::Warning) as u64)),
        ("info".to_owned(), num(n(Severity::Info) as u64)),
    ];
    if !report.errors.is_empty() {
        facts.push((
            "inputs not read".to_owned(),
            num(report.errors.len() as u64),
        ));
    }
    if let Some(c) = &settings.context {
        let l = &c.limits;
        facts.extend([
            ("tokenizer".to_owned(), c.tokenizer.clone()),
            ("token budget".to_owned(), num(c.budget)),
            ("hard cap (tokens)".to_owned(), num(c.hard_cap)),
            ("maxBytes".to_owned(), num(l.max_bytes)),
            ("maxArrayItems".to_owned(), num(l.max_array_items)),
            ("maxStringLength".to_owned(), num(l.max_string_length)),
            ("maxJsonDepth".to_owned(), num(l.max_json_depth)),
        ]);
    }
    body.push_str(&page::facts(&facts));
    for e in &report.errors {
        let _ = write!(body, "<p class=\"note\">not read: {}</p>", esc(e));
    }
    body.push_str("</header>");
}

fn tools(body: &mut String, report: &Report, settings: &Settings) {
    if report.tools.is_empty() {
        return;
    }
    // Each tool's tokens a response, and how many are over its budget, in one walk.
    let mut by_tool: BTreeMap<String, (Vec<u64>, u64)> = BTreeMap::new();
    for d in &report.documents {
        let (tokens, over) = stats::by_tool(&mut by_tool, &d.tool, Default::default);
        tokens.push(d.tokens);
        let budget = settings.context.as_ref().map(|c| c.budget_for(&d.tool));
        *over += u64::from(budget.is_some_and(|b| d.tokens > b));
    }
    let over_budget: BTreeMap<String, u64> = by_tool
        .iter()
        .map(|(tool, (_, over))| (tool.clone(), *over))
        .collect();
    let mut sampled = Vec::new();
    let rows: Vec<Strip> = report
        .tools
        .iter()
        .map(|t| {
            let values = by_tool.remove(t.tool.as_str()).unwrap_or_default().0;
            if values.len() > POINTS_PER_TOOL {
                sampled.push(format!(
                    "{} ({} of {})",
                    t.tool,
                    POINTS_PER_TOOL,
                    values.len()
                ));
            }
            let mut limits = Vec::new();
            if let Some(c) = &settings.context {
                let budget = c.budget_for(&t.tool);
                limits.push((budget, "limit", format!("token budget {}", num(budget))));
                limits.push((c.hard_cap, "cap", format!("hard cap {}", num(c.hard_cap))));
            }
            Strip {
                label: t.tool.clone(),
                values: page::sample(values, POINTS_PER_TOOL),
                p50: t.tokens.p50,
                p95: t.tokens.p95,
                max: t.tokens.max,
                limits,
            }
        })
        .collect();
    body.push_str("<section id=\"tools\"><h2>Response tokens per tool</h2><figure>");
    body.push_str(&page::strips("tool-strips", &rows, "tokens"));
    let mut caption = String::from(
        "A dot per response (log scale); dark tick: p50, purple tick: p95; dashed: the tool's token budget (amber) and the hard cap (red).",
    );
    if !sampled.is_empty() {
        let _ = write!(
            caption,
            " Sampled evenly, smallest and largest kept: {}.",
            sampled.join(", ")
        );
    }
    let _ = write!(body, "<figcaption>{}</figcaption></figure>", esc(&caption));
    body.push_str("<table id=\"tools-table\"><thead><tr><th data-key=\"tool\">tool</th><th class=\"n\" data-key=\"n\">responses</th><th class=\"n\" data-key=\"p50\">p50 tokens</th><th class=\"n\" data-key=\"p95\">p95 tokens</th><th class=\"n\" data-key=\"max\">max tokens</th><th class=\"n\" data-key=\"over\">over budget</th><th class=\"n\" data-key=\"f\">findings</th></tr></thead><tbody>");
    for t in &report.tools {
        let over = over_budget.get(&t.tool).copied().unwrap_or(0);
        let cell = |v: u64| format!("<td class=\"n\" data-v=\"{v}\">{}</td>", num(v));
        let _ = write!(
            body,
            "<tr><td>{}</td>{}{}{}{}{}{}</tr>",
            esc(&t.tool),
            cell(t.count as u64),
            cell(t.tokens.p50),
            cell(t.tokens.p95),
            cell(t.tokens.max),
            cell(over),
            cell(t.findings as u64)
        );
    }
    body.push_str("</tbody></table></section>");
}

/// keep (taken, maybe with a warning), cut (the model sees part of it, or a pointer to a file),
/// refuse.
fn group(v: ClientVerdict) -> usize {
    match v {
        ClientVerdict::Ok | ClientVerdict::Warn => 0,
        ClientVerdict::Refuse => 2,
        _ => 1,
    }
}

fn clients(body: &mut String, report: &Report) {
    let Some(first) = report.documents.first() else {
        return;
    };
    let names: Vec<&str> = first.clients.keys().collect();
    if names.is_empty() {
        return;
    }
    // Each client's verdicts per tool, in one walk; over every response, their sums.
    let mut by_tool: BTreeMap<String, Vec<[u64; 3]>> = BTreeMap::new();
    for d in &report.documents {
        let row = stats::by_tool(&mut by_tool, &d.tool, || vec![[0; 3]; names.len()]);
        for (i, v) in d.clients.values().enumerate().take(names.len()) {
            row[i][group(v)] += 1;
        }
    }
    let mut counts = vec![[0u64; 3]; names.len()];
    for row in by_tool.values() {
        for (total, cells) in counts.iter_mut().zip(row) {
            for (t, c) in total.iter_mut().zip(cells) {
                *t += c;
            }
        }
    }
    body.push_str(
        "<section id=\"clients\"><h2>What each client does with these responses</h2><figure>",
    );
    for (name, c) in names.iter().zip(&counts) {
        body.push_str(&page::share_bar(
            name,
            &[
                ("keeps", c[0], "s0"),
                ("cuts", c[1], "s1"),
                ("refuses", c[2], "s2"),
            ],
        ));
    }
    body.push_str("<figcaption>Keeps: the model gets the response (maybe with a warning). Cuts: it gets the start, a preview, or a pointer to a file. Refuses: it gets nothing. Per client profile (--client), over every response.</figcaption></figure>");
    // The same per tool: which tools a client would cut or refuse.
    body.push_str("<table id=\"clients-table\"><thead><tr><th data-key=\"tool\">tool</th>");
    for name in &names {
        let _ = write!(body, "<th data-key=\"{0}\">{0}</th>", esc(name));
    }
    body.push_str("</tr></thead><tbody>");
    for (tool, cells) in &by_tool {
        let _ = write!(body, "<tr><td>{}</td>", esc(tool));
        for c in cells {
            let total: u64 = c.iter().sum();
            let said: Vec<String> = [("keeps", c[0]), ("cuts", c[1]), ("refuses", c[2])]
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(w, n)| format!("{w} {}", page::pct(*n, total)))
                .collect();
            // Sorted by the share kept.
            let _ = write!(
                body,
                "<td data-v=\"{:.3}\">{}</td>",
                c[0] as f64 / total.max(1) as f64,
                said.join(" · ")
            );
        }
        body.push_str("</tr>");
    }
    body.push_str("</tbody></table></section>");
}

fn largest(body: &mut String, report: &Report) {
    // Responses whose tokens spread over several paths first: one path is no picture.
    let largest_where = |paths: usize| {
        super::first_by(
            report
                .documents
                .iter()
                .filter(|d| d.top_paths.len() >= paths),
            TREEMAPS,
            |a, b| b.tokens.cmp(&a.tokens).then(a.name.cmp(&b.name)),
        )
    };
    let mut docs = largest_where(2);
    if docs.is_empty() {
        docs = largest_where(1);
    }
    if docs.is_empty() {
        return;
    }
    body.push_str("<section id=\"largest\"><h2>Where the tokens go in the largest responses</h2>");
    for (i, d) in docs.iter().enumerate() {
        let items: Vec<(String, u64)> = d
            .top_paths
            .iter()
            .map(|p| {
                let label = if p.count > 1 {
                    format!("{} ×{}", p.path, p.count)
                } else {
                    p.path.clone()
                };
                (label, p.tokens as u64)
            })
            .collect();
        let caption = format!(
            "{} ({}): {} tokens, {} bytes",
            d.name,
            d.tool,
            num(d.tokens),
            num(d.wire_bytes)
        );
        let _ = write!(body, "<figure><h3>{}</h3>", esc(&caption));
        body.push_str(&page::treemap(&format!("treemap-{i}"), &items, &caption));
        body.push_str("<figcaption>A cell per JSON path (collections folded: <code>[*]</code> is every item), its area its tokens.</figcaption></figure>");
    }
    body.push_str("</section>");
}

fn findings(body: &mut String, report: &Report, settings: &Settings) {
    // The rules and tools to filter by, in one walk (a report's documents may be read back
    // from a file one at a time).
    let (mut total, mut rules, mut tools) = (0, BTreeSet::new(), BTreeSet::new());
    for f in report.findings() {
        total += 1;
        rules.insert(f.code);
        if let Some(tool) = &f.tool
            && !tools.contains(tool)
        {
            tools.insert(tool.clone());
        }
    }
    let _ = write!(
        body,
        "<section id=\"findings\"><h2>Findings</h2><div class=\"controls\"><label>severity <select data-filter=\"severity\"><option value=\"\">all</option><option>error</option><option>warning</option><option>info</option></select></label>"
    );
    let options = |values: &mut dyn Iterator<Item = &str>| {
        values
            .map(|v| format!("<option>{}</option>", esc(v)))
            .collect::<String>()
    };
    let _ = write!(
        body,
        "<label>rule <select data-filter=\"rule\"><option value=\"\">all</option>{}</select></label><label>tool <select data-filter=\"tool\"><option value=\"\">all</option>{}</select></label><label>text <input type=\"search\" data-filter=\"q\" placeholder=\"message, pointer, document\"></label><span class=\"note\"><span id=\"shown\">{}</span> of {} shown</span></div>",
        options(&mut rules.into_iter()),
        options(&mut tools.iter().map(String::as_str)),
        total.min(MAX_FINDING_ROWS),
        num(total as u64)
    );
    if total > MAX_FINDING_ROWS {
        let _ = write!(
            body,
            "<p class=\"note\">The {} worst of {} findings are listed; the JSON report (--format json) has them all.</p>",
            num(MAX_FINDING_ROWS as u64),
            num(total as u64)
        );
    }
    body.push_str("<table id=\"findings-table\"><thead><tr><th data-key=\"sev\" class=\"n\">severity</th><th data-key=\"rule\">rule</th><th data-key=\"tool\">tool</th><th data-key=\"doc\">document and pointer</th><th data-key=\"msg\">finding</th></tr></thead><tbody>");
    for f in super::worst_findings(report, MAX_FINDING_ROWS) {
        let place = match (f.line, f.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}", f.document),
            _ => f.document.clone(),
        };
        let rank = f.severity as u8;
        let _ = write!(
            body,
            "<tr data-severity=\"{sev}\" data-rule=\"{code}\" data-tool=\"{tool}\"><td data-v=\"{rank}\"><span class=\"sev {sev}\">{sev}</span></td><td><code>{code}</code> {rule}</td><td>{tool}</td><td>{place}<br><code>{pointer}</code></td><td>{message}<div class=\"help\">{help}</div></td></tr>",
            sev = f.severity,
            code = esc(f.code),
            rule = esc(f.rule),
            tool = esc(f.tool.as_deref().unwrap_or("")),
            place = esc(&place),
            pointer = esc(&f.pointer),
            message = esc(&f.message),
            help = esc(&f.help),
        );
    }
    body.push_str("</tbody></table>");
    if settings.fail_on.is_none() && total == 0 {
        body.push_str("<p class=\"note\">No findings.</p>");
    }
    body.push_str("</section>");
}

fn baseline(body: &mut String, report: &Report, settings: &Settings) {
    let Some(base) = settings.context.as_ref().and_then(|c| c.baseline.as_ref()) else {
        return;
    };
    body.push_str("<section id=\"baseline\"><h2>Growth against the baseline</h2><table id=\"baseline-table\"><thead><tr><th data-key=\"tool\">tool</th><th class=\"n\" data-key=\"b\">baseline p95 bytes</th><th class=\"n\" data-key=\"n\">p95 bytes now</th><th class=\"n\" data-key=\"g\">growth</th></tr></thead><tbody>");
    for t in &report.tools {
        let now = t.bytes.p95;
        let (before, growth) = match base.get(&t.tool) {
            Some(&b) => (
                num(b),
                if b == 0 {
                    (0.0, "new".to_owned())
                } else {
                    let g = 100.0 * (now as f64 - b as f64) / b as f64;
                    (g, format!("{g:+.0}%"))
                },
            ),
            None => ("-".to_owned(), (0.0, "not in the baseline".to_owned())),
        };
        let _ = write!(
            body,
            "<tr><td>{}</td><td class=\"n\">{before}</td><td class=\"n\" data-v=\"{now}\">{}</td><td class=\"n\" data-v=\"{:.1}\">{}</td></tr>",
            esc(&t.tool),
            num(now),
            growth.0,
            esc(&growth.1)
        );
    }
    let stale: Vec<&String> = base
        .keys()
        .filter(|k| !report.tools.iter().any(|t| &t.tool == *k))
        .collect();
    body.push_str("</tbody></table>");
    if !stale.is_empty() {
        let _ = write!(
            body,
            "<p class=\"note\">In the baseline but not in this audit: {}.</p>",
            esc(&stale
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", "))
        );
    }
    let growing = report
        .corpus_findings
        .iter()
        .filter(|f| f.code == RuleId::ToolGrew.code())
        .count();
    let _ = write!(
        body,
        "<p class=\"note\">{} of {} tools grew past --max-growth.</p></section>",
        growing,
        report.tools.len()
    );
}
