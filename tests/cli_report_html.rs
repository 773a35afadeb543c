//! The HTML reports from the command line: `audit --format html` (and `-o FILE`) and
//! `audit --from-metrics FILE --format html`. The page's skeleton is snapshotted (its elements,
//! ids and classes; the figures and texts redacted); the browser checks of what it shows are in
//! scripts/check-reports-browser.sh (Chromium), which `.ci/run` runs.

mod common;

use serde_json::Value;

/// The page's elements as an indented outline: name, id and classes; text left out, an SVG's
/// inside left out, and among siblings an element like one before it left out with what it
/// holds (a table of 30 rows is one row).
fn skeleton(html: &str) -> String {
    const VOID: [&str; 4] = ["meta", "input", "br", "link"];
    let mut out = Vec::new();
    // Per open element: the lines of its children so far, and whether it is left out.
    let mut stack: Vec<(std::collections::HashSet<String>, bool)> =
        vec![(Default::default(), false)];
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        let end = rest.find('>').unwrap_or(rest.len());
        let tag = &rest[..end];
        rest = &rest[end.min(rest.len())..];
        if tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            if !VOID.contains(&name) && stack.len() > 1 {
                stack.pop();
            }
            continue;
        }
        let name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let attr = |key: &str| {
            tag.split(&format!(" {key}=\""))
                .nth(1)
                .and_then(|r| r.split('"').next())
                .map(str::to_owned)
        };
        let mut line = name.clone();
        if let Some(id) = attr("id") {
            line.push_str(&format!("#{id}"));
        }
        if let Some(class) = attr("class") {
            line.push_str(&format!(".{}", class.replace(' ', ".")));
        }
        let (parent_seen, parent_hidden) = stack.last_mut().unwrap();
        let hidden = *parent_hidden || !parent_seen.insert(line.clone());
        if !hidden {
            out.push(format!("{}{line}", "  ".repeat(stack.len() - 1)));
        }
        let self_closing = tag.ends_with('/') || VOID.contains(&name.as_str());
        if !self_closing {
            // An SVG's inside is data: hidden.
            stack.push((Default::default(), hidden || name == "svg"));
        }
        if matches!(name.as_str(), "script" | "style") {
            let close = format!("</{name}>");
            rest = &rest[rest.find(&close).unwrap_or(rest.len())..];
        }
    }
    out.join("\n") + "\n"
}

#[test]
fn the_audit_page_has_its_sections_and_needs_no_network() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.html");
    let run = common::mcpguard()
        .args(["audit", "contracts/examples", "--format", "html", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(common::code(&run), 1, "{}", common::transcript(&run));
    assert!(run.stdout.is_empty(), "-o writes the file, not stdout");
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    for id in [
        "verdict",
        "tools",
        "clients",
        "largest",
        "findings",
        "tool-strips",
    ] {
        assert!(html.contains(&format!("id=\"{id}\"")), "no #{id}");
    }
    assert!(html.contains("FAIL: 14 findings at or above --fail-on error"));
    // Self-contained: nothing is fetched (no src or href that leaves the file).
    for needle in [
        "src=\"http",
        "href=\"http",
        "src=\"//",
        "@import",
        "url(http",
    ] {
        assert!(!html.contains(needle), "{needle} in the page");
    }
    let json = common::mcpguard()
        .args(["audit", "contracts/examples", "--format", "json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    let findings: usize = report["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["findings"].as_array().unwrap().len())
        .sum();
    assert_eq!(html.matches("<tr data-severity=").count(), findings);
    common::settings(None).bind(|| insta::assert_snapshot!("audit_page_skeleton", skeleton(&html)));
}

#[test]
fn what_a_response_names_is_text_on_the_page_never_markup() {
    let dir = tempfile::tempdir().unwrap();
    let evil = dir
        .path()
        .join("evil\"><script>alert(1)<\\script><img src=x onerror=alert(2)>.json");
    std::fs::write(
        &evil,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"<script>alert(3)</script>"}]}}"#,
    )
    .unwrap();
    let run = common::mcpguard_in(dir.path())
        .args(["audit", ".", "--format", "html", "--fail-on", "never"])
        .output()
        .unwrap();
    assert_eq!(common::code(&run), 0, "{}", common::transcript(&run));
    let html = String::from_utf8(run.stdout).unwrap();
    assert!(
        html.contains("evil&quot;&gt;&lt;script&gt;alert(1)"),
        "the name, escaped"
    );
    assert!(!html.contains("<script>alert"), "markup from input");
    assert!(!html.contains("<img src=x"), "markup from input");
    assert_eq!(
        html.matches("<script>").count(),
        1,
        "the page's own script only"
    );
}

#[test]
fn the_metrics_page_draws_an_audits_records_and_refuses_a_broken_line() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("records.jsonl");
    let run = common::mcpguard()
        .args([
            "audit",
            "contracts/examples",
            "--fail-on",
            "never",
            "--metrics",
        ])
        .arg(&records)
        .output()
        .unwrap();
    assert_eq!(common::code(&run), 0);
    let page = common::mcpguard()
        .args(["audit", "--format", "html", "--from-metrics"])
        .arg(&records)
        .output()
        .unwrap();
    assert_eq!(common::code(&page), 0, "{}", common::transcript(&page));
    let html = String::from_utf8(page.stdout).unwrap();
    let lines = std::fs::read_to_string(&records).unwrap().lines().count();
    assert!(html.contains(&format!("{lines} records from")), "{html}");
    assert!(html.contains("id=\"tool-tokens\"") && html.contains("id=\"outcomes\""));
    // An audit's records have no latencies: no latency table.
    assert!(!html.contains("id=\"latency-table\""));

    std::fs::write(&records, "{\"tool\": \"a\"}\nnot json\n").unwrap();
    let broken = common::mcpguard()
        .args(["audit", "--format", "html", "--from-metrics"])
        .arg(&records)
        .output()
        .unwrap();
    assert_eq!(common::code(&broken), 2);
    let stderr = String::from_utf8_lossy(&broken.stderr);
    assert!(
        stderr.contains("records.jsonl:2: not a metrics record"),
        "{stderr}"
    );
    assert!(broken.stdout.is_empty());
}

#[test]
fn with_a_baseline_the_page_shows_each_tools_growth() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("baseline.json");
    let update = common::mcpguard()
        .args([
            "audit",
            "contracts/examples",
            "--fail-on",
            "never",
            "--update-baseline",
            "--baseline",
        ])
        .arg(&baseline)
        .output()
        .unwrap();
    assert_eq!(common::code(&update), 0, "{}", common::transcript(&update));
    // One tool's p95 halved in the baseline: it grew 100% since.
    let mut base: Value =
        serde_json::from_str(&std::fs::read_to_string(&baseline).unwrap()).unwrap();
    let entry = &mut base["tools"]["fail-inv001-bookings-60kb"];
    let p95 = entry["p95Bytes"].as_u64().unwrap();
    entry["p95Bytes"] = (p95 / 2).into();
    std::fs::write(&baseline, base.to_string()).unwrap();
    let page = common::mcpguard()
        .args([
            "audit",
            "contracts/examples",
            "--format",
            "html",
            "--fail-on",
            "never",
            "--baseline",
        ])
        .arg(&baseline)
        .output()
        .unwrap();
    let html = String::from_utf8(page.stdout).unwrap();
    assert!(html.contains("id=\"baseline-table\""), "no growth table");
    let table = html.split("id=\"baseline-table\"").nth(1).unwrap();
    let row = table
        .split("<tr>")
        .find(|r| r.contains("<td>fail-inv001-bookings-60kb</td>"))
        .expect("the tool's growth row");
    assert!(row.contains("+100%"), "{row}");
    assert!(
        html.contains("1 of 16 tools grew past --max-growth."),
        "the page says how many grew"
    );
}
