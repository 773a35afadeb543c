//! The parts the HTML reports share: one self-contained page (styles and script inline, no
//! network, readable without colour: every mark has a text label), escaping, and the SVG
//! charts drawn here rather than by a charting library (a strip plot against limits, a stacked
//! share bar, a treemap, a line over time). Light and dark by the reader's preference; prints.

use std::fmt::Write as _;

/// Text for HTML (element content and quoted attribute values alike).
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// 12345 as "12,345".
pub fn num(n: u64) -> String {
    crate::util::human::thousands(n)
}

const STYLE: &str = r#"
:root{--fg:#1b1f24;--muted:#57606a;--bg:#fff;--panel:#f6f8fa;--line:#d0d7de;--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e;--info:#0969da;--a:#0969da;--b:#8250df;--c:#bf8700;--d:#cf222e;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--panel:#161b22;--line:#30363d;--ok:#3fb950;--warn:#d29922;--bad:#f85149;--info:#58a6ff;--a:#58a6ff;--b:#bc8cff;--c:#e3b341;--d:#ff7b72}}
*{box-sizing:border-box}body{margin:0 auto;max-width:1200px;padding:1.5rem;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:1.6rem;margin:0 0 .5rem}h2{font-size:1.2rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.3rem}h3{font-size:1rem;margin:1rem 0 .3rem}
.verdict{display:inline-block;font-weight:700;padding:.3rem .7rem;border-radius:6px;border:2px solid}.verdict.pass{color:var(--ok)}.verdict.fail{color:var(--bad)}
dl.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:.4rem 1rem;margin:.8rem 0}dl.facts div{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.4rem .6rem}dt{color:var(--muted);font-size:.8rem}dd{margin:0;font-weight:600}
figure{margin:.5rem 0}figcaption,.note{color:var(--muted);font-size:.85rem}svg{max-width:100%;height:auto;font:12px system-ui,sans-serif}svg text{fill:var(--fg)}svg .muted{fill:var(--muted)}
.axis{stroke:var(--line)}.limit{stroke:var(--warn);stroke-dasharray:4 3;stroke-width:1.5}.cap{stroke:var(--bad);stroke-dasharray:2 2;stroke-width:1.5}.dot{fill:var(--a);fill-opacity:.45}.p50{stroke:var(--fg);stroke-width:2}.p95{stroke:var(--b);stroke-width:2}
.s0{fill:var(--ok)}.s1{fill:var(--warn)}.s2{fill:var(--bad)}.s3{fill:var(--info)}.t0{fill:var(--a)}.t1{fill:var(--b)}.t2{fill:var(--c)}.t3{fill:var(--d)}.cell{fill-opacity:.28;stroke:var(--bg);stroke-width:2}.lineA{stroke:var(--a);fill:none;stroke-width:2}.lineB{stroke:var(--b);fill:none;stroke-width:2}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{border-bottom:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top}th{background:var(--panel);position:sticky;top:0}th[data-key]{cursor:pointer}th[aria-sort=ascending]::after{content:" \25B2"}th[aria-sort=descending]::after{content:" \25BC"}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.sev{font-weight:700;text-transform:uppercase;font-size:.75rem}.sev.error{color:var(--bad)}.sev.warning{color:var(--warn)}.sev.info{color:var(--info)}.help{color:var(--muted);font-size:.85rem}code{font-size:.85em;word-break:break-all}
.controls{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.5rem 0}.controls label{color:var(--muted);font-size:.85rem}input,select{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:.25rem .4rem}
footer{margin-top:2rem;color:var(--muted);font-size:.8rem}
@media print{.controls{display:none}th{position:static}body{max-width:none}}
"#;

/// Sorts a table by a header's `data-key` (numbers by `data-v`), and filters the findings by
/// the controls; the filters live in the URL's hash (`#severity=error&rule=MG001`), so a link
/// opens a filtered view.
const SCRIPT: &str = r#"
(function(){
const table=document.getElementById('findings-table');
function rows(){return table?Array.from(table.tBodies[0].rows):[]}
function apply(){
  if(!table)return;const f={};
  document.querySelectorAll('[data-filter]').forEach(el=>{f[el.dataset.filter]=el.value.trim().toLowerCase()});
  let shown=0;
  rows().forEach(r=>{const ok=(!f.severity||r.dataset.severity===f.severity)&&(!f.rule||r.dataset.rule===f.rule.toUpperCase())&&(!f.tool||r.dataset.tool.toLowerCase()===f.tool)&&(!f.q||r.textContent.toLowerCase().includes(f.q));r.hidden=!ok;if(ok)shown++});
  const out=document.getElementById('shown');if(out)out.textContent=shown;
  const h=Object.entries(f).filter(([,v])=>v).map(([k,v])=>k+'='+encodeURIComponent(v)).join('&');
  history.replaceState(null,'',h?'#'+h:location.pathname+location.search);
}
function fromHash(){const p=new URLSearchParams(location.hash.slice(1));document.querySelectorAll('[data-filter]').forEach(el=>{const v=p.get(el.dataset.filter);if(v!==null)el.value=v})}
document.querySelectorAll('[data-filter]').forEach(el=>el.addEventListener('input',apply));
document.querySelectorAll('th[data-key]').forEach(th=>th.addEventListener('click',()=>{
  const t=th.closest('table'),i=Array.from(th.parentNode.children).indexOf(th),num=th.classList.contains('n');
  const dir=th.getAttribute('aria-sort')==='descending'?'ascending':'descending';
  t.querySelectorAll('th').forEach(x=>x.removeAttribute('aria-sort'));th.setAttribute('aria-sort',dir);
  const body=t.tBodies[0],all=Array.from(body.rows);
  all.sort((a,b)=>{const x=a.cells[i].dataset.v??a.cells[i].textContent,y=b.cells[i].dataset.v??b.cells[i].textContent;const c=num?(parseFloat(x)-parseFloat(y)):x.localeCompare(y);return dir==='ascending'?c:-c});
  all.forEach(r=>body.appendChild(r));
}));
fromHash();apply();
})();
"#;

/// The page around `body`.
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"mcpguard {}\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n<footer>Made by mcpguard {} with no network: everything on this page is in this file.</footer>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION"),
        esc(title),
        env!("CARGO_PKG_VERSION"),
    )
}

/// A `<dl>` of label and value pairs.
pub fn facts(pairs: &[(String, String)]) -> String {
    let mut out = String::from("<dl class=\"facts\">");
    for (k, v) in pairs {
        let _ = write!(out, "<div><dt>{}</dt><dd>{}</dd></div>", esc(k), esc(v));
    }
    out.push_str("</dl>");
    out
}

/// One row of a strip plot: the values (already sampled), their p50, p95 and max, and the
/// limits drawn across the rows.
pub struct Strip {
    pub label: String,
    pub values: Vec<u64>,
    pub p50: u64,
    pub p95: u64,
    pub max: u64,
    /// A line per row: (value, class, label), e.g. the tool's budget.
    pub limits: Vec<(u64, &'static str, String)>,
}

/// Strip plots on one log scale, a row each: a dot per value, ticks at p50 and p95, the
/// limits as dashed lines, every figure also written out at the row's end.
pub fn strips(id: &str, rows: &[Strip], unit: &str) -> String {
    let (left, right, row_h, top) = (180.0, 250.0, 30.0, 24.0);
    let width = 1000.0;
    let plot = width - left - right;
    let hi = rows
        .iter()
        .flat_map(|r| std::iter::once(r.max).chain(r.limits.iter().map(|l| l.0)))
        .max()
        .unwrap_or(1)
        .max(10) as f64;
    let scale = |v: u64| left + plot * ((v.max(1) as f64).ln() / (hi * 1.15).ln()).clamp(0.0, 1.0);
    let height = top + row_h * rows.len() as f64 + 24.0;
    let mut svg = format!(
        "<svg id=\"{id}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{}\">",
        esc(&format!("{unit} per response, one row per tool, log scale"))
    );
    // Axis: powers of ten.
    let mut tick = 1u64;
    while (tick as f64) <= hi * 1.15 {
        let x = scale(tick);
        let _ = write!(
            svg,
            "<line class=\"axis\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{}\" y2=\"{}\"/><text class=\"muted\" x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            top - 6.0,
            height - 20.0,
            height - 6.0,
            short(tick)
        );
        tick = tick.saturating_mul(10);
    }
    for (i, row) in rows.iter().enumerate() {
        let y = top + row_h * i as f64 + row_h / 2.0;
        let _ = write!(
            svg,
            "<g class=\"strip\" data-tool=\"{}\" data-count=\"{}\"><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            esc(&row.label),
            row.values.len(),
            left - 8.0,
            y + 4.0,
            esc(&clip(&row.label, 24))
        );
        for (value, class, label) in &row.limits {
            let x = scale(*value);
            let _ = write!(
                svg,
                "<line class=\"{class}\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"><title>{}</title></line>",
                y - row_h / 2.0 + 2.0,
                y + row_h / 2.0 - 2.0,
                esc(label)
            );
        }
        for v in &row.values {
            let _ = write!(
                svg,
                "<circle class=\"dot\" cx=\"{:.1}\" cy=\"{y:.1}\" r=\"3\"/>",
                scale(*v)
            );
        }
        for (v, class) in [(row.p50, "p50"), (row.p95, "p95")] {
            let x = scale(v);
            let _ = write!(
                svg,
                "<line class=\"{class}\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>",
                y - 9.0,
                y + 9.0
            );
        }
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\">p50 {} · p95 {} · max {}</text></g>",
            left + plot + 10.0,
            y + 4.0,
            short(row.p50),
            short(row.p95),
            short(row.max)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// One horizontal bar of shares, each segment labelled with its name and percentage.
pub fn share_bar(label: &str, parts: &[(&str, u64, &str)]) -> String {
    let total: u64 = parts.iter().map(|p| p.1).sum::<u64>().max(1);
    let (left, width, h) = (180.0, 800.0, 26.0);
    let mut svg = format!(
        "<svg class=\"share\" data-label=\"{}\" viewBox=\"0 0 1000 {h}\" role=\"img\" aria-label=\"{}\"><text x=\"{}\" y=\"17\" text-anchor=\"end\">{}</text>",
        esc(label),
        esc(&format!(
            "{label}: {}",
            parts
                .iter()
                .map(|(n, c, _)| format!("{n} {}", pct(*c, total)))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        left - 8.0,
        esc(&clip(label, 24))
    );
    let mut x = left;
    for (name, count, class) in parts {
        if *count == 0 {
            continue;
        }
        let w = width * *count as f64 / total as f64;
        let _ = write!(
            svg,
            "<rect class=\"{class}\" data-part=\"{}\" data-count=\"{count}\" x=\"{x:.1}\" y=\"2\" width=\"{w:.1}\" height=\"{}\"><title>{}: {count} ({})</title></rect>",
            esc(name),
            h - 4.0,
            esc(name),
            pct(*count, total)
        );
        if w > 70.0 {
            let _ = write!(
                svg,
                "<text x=\"{:.1}\" y=\"17\" style=\"fill:var(--bg)\">{} {}</text>",
                x + 4.0,
                esc(name),
                pct(*count, total)
            );
        }
        x += w;
    }
    svg.push_str("</svg>");
    svg
}

/// Two bars per row on one linear scale (e.g. tokens before and after), each with its figure.
pub fn bar_pairs(
    id: &str,
    rows: &[(String, u64, u64)],
    names: (&str, &str),
    caption: &str,
) -> String {
    let (left, width, row_h) = (180.0, 640.0, 34.0);
    let hi = rows.iter().map(|r| r.1.max(r.2)).max().unwrap_or(1).max(1) as f64;
    let height = row_h * rows.len() as f64 + 24.0;
    let mut svg = format!(
        "<svg id=\"{id}\" viewBox=\"0 0 1000 {height}\" role=\"img\" aria-label=\"{}\"><rect class=\"t0\" x=\"{left}\" y=\"2\" width=\"10\" height=\"10\"/><text x=\"{}\" y=\"11\">{}</text><rect class=\"t1\" x=\"{}\" y=\"2\" width=\"10\" height=\"10\"/><text x=\"{}\" y=\"11\">{}</text>",
        esc(caption),
        left + 14.0,
        esc(names.0),
        left + 134.0,
        left + 148.0,
        esc(names.1)
    );
    for (i, (label, a, b)) in rows.iter().enumerate() {
        let y = 20.0 + row_h * i as f64;
        let _ = write!(
            svg,
            "<g class=\"pair\" data-label=\"{}\" data-a=\"{a}\" data-b=\"{b}\"><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            esc(label),
            left - 8.0,
            y + 18.0,
            esc(&clip(label, 24))
        );
        for (j, v) in [a, b].into_iter().enumerate() {
            let w = (width * *v as f64 / hi).max(1.0);
            let yy = y + 4.0 + 13.0 * j as f64;
            let _ = write!(
                svg,
                "<rect class=\"t{j}\" x=\"{left}\" y=\"{yy:.1}\" width=\"{w:.1}\" height=\"11\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                left + w + 6.0,
                yy + 10.0,
                num(*v)
            );
        }
        svg.push_str("</g>");
    }
    svg.push_str("</svg>");
    svg
}

/// A treemap of `(label, value)` (squarified), each cell with its label and share.
pub fn treemap(id: &str, items: &[(String, u64)], caption: &str) -> String {
    let (w, h) = (1000.0, 320.0);
    let total: u64 = items.iter().map(|i| i.1).sum::<u64>().max(1);
    let mut cells = Vec::new();
    squarify(
        items
            .iter()
            .filter(|i| i.1 > 0)
            .map(|(l, v)| (l.as_str(), *v as f64 * w * h / total as f64))
            .collect(),
        (0.0, 0.0, w, h),
        &mut cells,
    );
    let mut svg = format!(
        "<svg id=\"{id}\" class=\"treemap\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"{}\">",
        esc(caption)
    );
    for (i, (label, (x, y, cw, ch))) in cells.iter().enumerate() {
        let value = items.iter().find(|it| it.0 == *label).map_or(0, |it| it.1);
        let _ = write!(
            svg,
            "<g class=\"cell-group\" data-path=\"{}\" data-value=\"{value}\"><rect class=\"cell t{}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{cw:.1}\" height=\"{ch:.1}\"><title>{}: {} ({})</title></rect>",
            esc(label),
            i % 4,
            esc(label),
            num(value),
            pct(value, total)
        );
        if *cw > 60.0 && *ch > 30.0 {
            let chars = ((cw - 8.0) / 7.0) as usize;
            let _ = write!(
                svg,
                "<text x=\"{:.1}\" y=\"{:.1}\">{}</text><text class=\"muted\" x=\"{:.1}\" y=\"{:.1}\">{} · {}</text>",
                x + 4.0,
                y + 15.0,
                esc(&clip(label, chars.max(4))),
                x + 4.0,
                y + 29.0,
                num(value),
                pct(value, total)
            );
        }
        svg.push_str("</g>");
    }
    svg.push_str("</svg>");
    svg
}

type Rect = (f64, f64, f64, f64);

/// Squarified treemap layout (Bruls, Huizing, van Wijk): areas in, rectangles out.
fn squarify<'a>(mut items: Vec<(&'a str, f64)>, mut area: Rect, out: &mut Vec<(&'a str, Rect)>) {
    items.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut row: Vec<(&str, f64)> = Vec::new();
    let worst = |row: &[(&str, f64)], side: f64| -> f64 {
        let sum: f64 = row.iter().map(|r| r.1).sum();
        let (mx, mn) = row
            .iter()
            .fold((0f64, f64::MAX), |(a, b), r| (a.max(r.1), b.min(r.1)));
        (side * side * mx / (sum * sum)).max(sum * sum / (side * side * mn))
    };
    let mut rest = items.into_iter().peekable();
    while let Some(item) = rest.next() {
        let side = area.2.min(area.3);
        let mut with = row.clone();
        with.push(item);
        if row.is_empty() || worst(&with, side) <= worst(&row, side) {
            row = with;
        } else {
            area = lay_row(&row, area, out);
            row = vec![item];
        }
        if rest.peek().is_none() {
            lay_row(&row, area, out);
        }
    }
}

fn lay_row<'a>(row: &[(&'a str, f64)], (x, y, w, h): Rect, out: &mut Vec<(&'a str, Rect)>) -> Rect {
    let sum: f64 = row.iter().map(|r| r.1).sum();
    if w >= h {
        let cw = if h > 0.0 { sum / h } else { 0.0 };
        let mut cy = y;
        for (label, a) in row {
            let ch = if cw > 0.0 { a / cw } else { 0.0 };
            out.push((label, (x, cy, cw, ch)));
            cy += ch;
        }
        (x + cw, y, (w - cw).max(0.0), h)
    } else {
        let ch = if w > 0.0 { sum / w } else { 0.0 };
        let mut cx = x;
        for (label, a) in row {
            let cw = if ch > 0.0 { a / ch } else { 0.0 };
            out.push((label, (cx, y, cw, ch)));
            cx += cw;
        }
        (x, y + ch, w, (h - ch).max(0.0))
    }
}

/// One line of [`lines`]: its name, its CSS class and its points (x, y).
pub type Series<'a> = (&'a str, &'a str, Vec<(f64, f64)>);

/// Lines over time, each labelled at its last point.
pub fn lines(id: &str, series: &[Series<'_>], caption: &str) -> String {
    let (w, h, left, bottom) = (1000.0, 260.0, 70.0, 30.0);
    let xs = series.iter().flat_map(|s| s.2.iter().map(|p| p.0));
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let ymax = series
        .iter()
        .flat_map(|s| s.2.iter().map(|p| p.1))
        .fold(1.0f64, f64::max);
    let span = (x1 - x0).max(1.0);
    let sx = |x: f64| left + (w - left - 160.0) * (x - x0) / span;
    let sy = |y: f64| (h - bottom) - (h - bottom - 10.0) * y / ymax;
    let mut svg = format!(
        "<svg id=\"{id}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"{}\"><line class=\"axis\" x1=\"{left}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/><text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><text class=\"muted\" x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>",
        esc(caption),
        w - 160.0,
        h - bottom,
        h - bottom,
        left - 6.0,
        sy(ymax) + 4.0,
        short(ymax as u64),
        left - 6.0,
        h - bottom,
    );
    for (name, class, points) in series {
        if points.is_empty() {
            continue;
        }
        let path: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{:.1},{:.1}", sx(*x), sy(*y)))
            .collect();
        let (lx, ly) = points[points.len() - 1];
        let _ = write!(
            svg,
            "<polyline class=\"{class}\" data-series=\"{}\" data-points=\"{}\" points=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\">{} {}</text>",
            esc(name),
            points.len(),
            path.join(" "),
            sx(lx) + 6.0,
            sy(ly) + 4.0,
            esc(name),
            short(ly as u64)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A figure in three significant digits: 1200 as "1.2k", 27027 as "27k", 3400000 as "3.4M".
pub fn short(n: u64) -> String {
    let (value, suffix) = match n {
        0..1_000 => return n.to_string(),
        1_000..999_500 => (n as f64 / 1e3, "k"),
        _ => (n as f64 / 1e6, "M"),
    };
    let digits = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    let text = format!("{value:.digits$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    format!("{text}{suffix}")
}

/// A share as a percentage with no decimals (one under 10%).
pub fn pct(part: u64, total: u64) -> String {
    let p = 100.0 * part as f64 / total.max(1) as f64;
    if p > 0.0 && p < 10.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.0}%")
    }
}

/// At most `n` characters, with an ellipsis when cut.
pub fn clip(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        text.to_owned()
    } else {
        let kept: String = text.chars().take(n.saturating_sub(1)).collect();
        kept + "…"
    }
}

/// At most `cap` of `values`, evenly spread (the smallest and largest kept), so a chart of a
/// huge audit stays small; the values in order.
pub fn sample(mut values: Vec<u64>, cap: usize) -> Vec<u64> {
    values.sort_unstable();
    if values.len() <= cap || cap < 2 {
        return values;
    }
    let last = values.len() - 1;
    (0..cap).map(|i| values[i * last / (cap - 1)]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_and_numbers() {
        assert_eq!(
            esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(short(999), "999");
        assert_eq!(short(1_200), "1.2k");
        assert_eq!(short(27_027), "27k");
        assert_eq!(short(38_501), "38.5k");
        assert_eq!(short(1_186_270), "1.19M");
        assert_eq!(short(999_999), "1M");
        assert_eq!(short(3_400_000), "3.4M");
        assert_eq!(pct(1, 3), "33%");
        assert_eq!(pct(1, 30), "3.3%");
        assert_eq!(clip("abcdef", 4), "abc…");
    }

    #[test]
    fn a_sample_keeps_the_ends_and_its_size() {
        let s = sample((0..10_000).rev().collect(), 100);
        assert_eq!(s.len(), 100);
        assert_eq!((s[0], s[99]), (0, 9_999));
        assert!(s.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn a_treemap_tiles_its_area_with_every_item() {
        let items: Vec<(String, u64)> = [600u64, 300, 60, 30, 10]
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("/p{i}"), *v))
            .collect();
        let mut cells = Vec::new();
        squarify(
            items
                .iter()
                .map(|(l, v)| (l.as_str(), *v as f64 * 100.0))
                .collect(),
            (0.0, 0.0, 500.0, 200.0),
            &mut cells,
        );
        assert_eq!(cells.len(), 5);
        let area: f64 = cells.iter().map(|(_, r)| r.2 * r.3).sum();
        assert!((area - 100_000.0).abs() < 1.0, "{area}");
        for (_, (x, y, w, h)) in &cells {
            assert!(*x >= -0.01 && *y >= -0.01 && x + w <= 500.01 && y + h <= 200.01);
        }
    }
}
