//! Records in a tool's text that is not JSON (issue 61): `str(rows)` as the SQLite reference
//! server answers (a Python list of dicts), a DuckDB-style answer (tuples holding
//! `datetime.date` and `Decimal`), the same rows as CSV (Python's csv module: quoted commas,
//! quotes and line breaks) and as a Markdown table. The fixtures in tests/fixtures/records were
//! made by real Python from a real SQLite database, and `expected.json` holds that database's
//! own answers (`SELECT count(*), sum(total) ... WHERE status = 'cancelled'`): what mcpguard
//! reads must come to the same figures, on the command line and through the proxy.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::session::Session;
use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    common::repo(&format!("tests/fixtures/records/{name}"))
}

fn expected() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture("expected.json")).unwrap()).unwrap()
}

/// `mcpguard COMMAND FILE ARGS`, which must succeed: its stdout.
fn mcpguard_ok(command: &str, file: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpguard"))
        .arg(command)
        .arg(file)
        .args(args)
        .env("MCPGUARD_CURSOR_SECRET", "records-in-text-test-secret")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{command} {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `mcpguard paginate FILE ARGS` as JSON.
fn paginate(file: &str, args: &[&str]) -> Value {
    serde_json::from_slice(&mcpguard_ok("paginate", &fixture(file), args)).unwrap()
}

/// `mcpguard proxy` in front of the catalog fixture serving one recorded `tool`, which answers
/// every call from `answer` (`--answer-file`: its text; `--answer-result`: the whole result),
/// initialized.
fn proxy_in_front(
    dir: &std::path::Path,
    tool: Value,
    how: &str,
    answer: &std::path::Path,
) -> Session {
    let server = tool["server"].as_str().unwrap().to_owned();
    let tools = dir.join("tools.json");
    std::fs::write(&tools, json!({ "tools": [tool] }).to_string()).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpguard"));
    cmd.arg("proxy")
        .arg("--")
        .arg(common::live::catalog_server())
        .args(["--name", &server, "--recorded"])
        .arg(&tools)
        .arg(how)
        .arg(answer);
    let mut s = Session::spawn(cmd, dir);
    s.initialize();
    s
}

#[test]
fn every_format_counts_and_sums_as_the_database_does() {
    let expected = expected();
    let cancelled = &expected["cancelled"];
    for (file, status, total) in [
        ("sqlite-orders.result.json", "status", "total"),
        ("orders-csv.result.json", "status", "total"),
        // Tuples have no names: their fields are 1, 2, ...
        ("duckdb-orders.result.json", "3", "4"),
    ] {
        let figures = paginate(
            file,
            &[
                "--where",
                &format!("{status}=cancelled"),
                "--aggregate",
                &format!("count, sum({total})"),
            ],
        );
        assert_eq!(figures["of"], expected["rows"], "{file}: {figures}");
        assert_eq!(figures["count"], cancelled["count"], "{file}: {figures}");
        assert_eq!(
            figures[&format!("sum({total})")],
            cancelled["sum_total"],
            "{file}: {figures}"
        );
        // Grouped, each status as the database counts it.
        let grouped = paginate(
            file,
            &[
                "--group-by",
                status,
                "--aggregate",
                "count",
                "--format",
                "json",
            ],
        );
        let text = grouped.to_string();
        for (name, count) in expected["by_status"].as_object().unwrap() {
            assert!(
                text.contains(&format!("\"{name}\"")) && text.contains(&count.to_string()),
                "{file}: {name} {count} in {text}"
            );
        }
    }
    let table = paginate(
        "orders-markdown.result.json",
        &[
            "--where",
            "status=cancelled",
            "--aggregate",
            "count, sum(total)",
        ],
    );
    let first = &expected["markdown_first_50"];
    assert_eq!(
        (&table["of"], &table["count"], &table["sum(total)"]),
        (&json!(50), &first["cancelled"], &first["sum_total"]),
        "{table}"
    );
}

#[test]
fn quoted_commas_quotes_line_breaks_and_unicode_come_back_whole() {
    // Every note the database holds, read back out of the CSV and the repr alike.
    for file in ["orders-csv.result.json", "sqlite-orders.result.json"] {
        let page = paginate(file, &["--where", "id=9", "--limit", "50"]);
        let text = page.to_string();
        assert!(
            text.contains("\"id\":9") || text.contains("\\\"id\\\":9"),
            "{file}: {text}"
        );
        for needle in [
            "call before, please",
            "O'Brien",
            "naïve café ☕",
            "line one\\nline two",
        ] {
            let rows = paginate(
                file,
                &[
                    "--where",
                    &format!("note~{}", needle.split(['\'', '\\']).next().unwrap()),
                    "--aggregate",
                    "count",
                ],
            );
            assert!(
                rows["count"].as_u64().unwrap() > 0,
                "{file}: {needle}: {rows}"
            );
        }
    }
}

#[test]
fn through_the_proxy_a_shrunk_repr_answers_where_and_aggregate() {
    let dir = tempfile::tempdir().unwrap();
    let text: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("sqlite-orders.result.json")).unwrap(),
    )
    .unwrap();
    let answer = dir.path().join("rows.txt");
    std::fs::write(&answer, text["content"][0]["text"].as_str().unwrap()).unwrap();
    let tool = json!({"server": "sqlite", "tool": "read_query", "description": "Run a SELECT query",
                      "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}});
    let mut s = proxy_in_front(dir.path(), tool, "--answer-file", &answer);
    let shrunk = s.call("read_query", json!({"query": "SELECT * FROM orders"}));
    let preview = shrunk.to_string();
    assert!(
        preview.len() < 20_000,
        "{} bytes reached the client",
        preview.len()
    );
    let at = preview
        .find("ax://")
        .unwrap_or_else(|| panic!("no artifact reference: {preview}"));
    let reference: String = preview[at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | ':' | '_' | '-'))
        .collect();
    let figures = s.more(
        json!({"ref": reference, "where": "status=cancelled", "aggregate": "count, sum(total)"}),
    );
    let said = figures["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let cancelled = &expected()["cancelled"];
    assert!(
        said.contains(&format!("\"count\": {}", cancelled["count"]))
            || said.contains(&format!("\"count\":{}", cancelled["count"])),
        "{figures}"
    );
    assert!(
        said.contains(&cancelled["sum_total"].to_string()),
        "{figures}"
    );
    // `match` on records answers whole records.
    let matched = s.more(json!({"ref": reference, "where": "id=9"}));
    assert!(matched.to_string().contains("customer_"), "{matched}");
    s.finish();
}

/// The text of a fixture's first block, written to a file of its own (a `.csv` as a user has
/// it, a saved `str(rows)`).
fn text_file(dir: &std::path::Path, fixture_name: &str, file: &str) -> PathBuf {
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture(fixture_name)).unwrap()).unwrap();
    let path = dir.join(file);
    std::fs::write(&path, result["content"][0]["text"].as_str().unwrap()).unwrap();
    path
}

#[test]
fn a_csv_file_or_a_saved_repr_on_the_command_line_is_read_as_records() {
    let dir = tempfile::tempdir().unwrap();
    let cancelled = &expected()["cancelled"];
    for (fixture_name, file) in [
        ("orders-csv.result.json", "orders.csv"),
        ("sqlite-orders.result.json", "rows.txt"),
    ] {
        let path = text_file(dir.path(), fixture_name, file);
        let out = mcpguard_ok(
            "paginate",
            &path,
            &[
                "--where",
                "status=cancelled",
                "--aggregate",
                "count, sum(total)",
            ],
        );
        let figures: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(figures["count"], cancelled["count"], "{file}: {figures}");
        assert_eq!(
            figures["sum(total)"], cancelled["sum_total"],
            "{file}: {figures}"
        );

        // summarize previews records projected to the fields asked for, and says what they
        // were read from.
        let out = mcpguard_ok("summarize", &path, &["--fields", "status,total"]);
        let result: Value = serde_json::from_slice(&out).unwrap();
        let preview: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        let summary = preview["summary"].as_str().unwrap();
        assert!(
            summary.contains(" records (") && summary.contains("read from its text"),
            "{file}: {summary}"
        );
        assert_eq!(preview["count"], expected()["rows"], "{file}: {preview}");
        let first = preview["items"][0].as_object().unwrap();
        assert_eq!(
            first.keys().collect::<Vec<_>>(),
            ["status", "total"],
            "{file}: {preview}"
        );
    }
    // JSON that is broken stays an error that says where, not records.
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"a\": 1,}").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpguard"))
        .arg("summarize")
        .arg(&broken)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken.json:1:"));
}

#[test]
fn a_csv_of_many_megabytes_is_read_as_records_and_paged_in_order() {
    // The captured orders repeated past 10 MB (the reader once stopped at 8 MB and left a
    // longer text as text): every copy counts, and pages come in the order asked for.
    let dir = tempfile::tempdir().unwrap();
    let path = text_file(dir.path(), "orders-csv.result.json", "orders.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let (header, rows) = text.split_once('\n').unwrap();
    let copies = (10 << 20) / rows.len() + 1;
    let big = dir.path().join("orders-big.csv");
    std::fs::write(&big, format!("{header}\n{}", rows.repeat(copies))).unwrap();
    assert!(std::fs::metadata(&big).unwrap().len() > 10 << 20);
    let cancelled = &expected()["cancelled"];
    let out = mcpguard_ok(
        "paginate",
        &big,
        &[
            "--where",
            "status=cancelled",
            "--aggregate",
            "count, sum(total)",
        ],
    );
    let figures: Value = serde_json::from_slice(&out).unwrap();
    let count = cancelled["count"].as_u64().unwrap() * copies as u64;
    assert_eq!(figures["count"], count, "{figures}");
    let rows_in_all = expected()["rows"].as_u64().unwrap() * copies as u64;
    assert_eq!(figures["of"], rows_in_all, "{figures}");
    let sum = cancelled["sum_total"].as_f64().unwrap() * copies as f64;
    let got = figures["sum(total)"].as_f64().unwrap();
    assert!((got - sum).abs() < 1e-6 * sum, "{got} vs {sum}");

    let out = mcpguard_ok(
        "paginate",
        &big,
        &[
            "--where",
            "status=cancelled",
            "--order-by",
            "total:desc",
            "--limit",
            "5",
        ],
    );
    let page: Value = serde_json::from_slice(&out).unwrap();
    let page: Value = serde_json::from_str(page["content"][0]["text"].as_str().unwrap()).unwrap();
    let totals: Vec<f64> = (page["items"].as_array().unwrap().iter())
        .map(|item| {
            assert_eq!(item["status"], "cancelled");
            item["total"].as_f64().unwrap()
        })
        .collect();
    assert_eq!(totals.len(), 5);
    assert!(totals.windows(2).all(|w| w[0] >= w[1]), "{totals:?}");
    assert_eq!(page["meta"]["totalCount"], count, "{page}");
}

#[test]
fn a_csv_without_its_header_row_is_read_with_fields_named_by_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = text_file(dir.path(), "orders-csv.result.json", "orders.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let (header, rows) = text.split_once('\n').unwrap();
    assert_eq!(header, "id,customer,status,total,note\r");
    let headless = dir.path().join("orders-no-header.csv");
    std::fs::write(&headless, rows).unwrap();
    let cancelled = &expected()["cancelled"];
    let out = mcpguard_ok(
        "paginate",
        &headless,
        &["--where", "3=cancelled", "--aggregate", "count, sum(4)"],
    );
    let figures: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(figures["of"], expected()["rows"], "{figures}");
    assert_eq!(figures["count"], cancelled["count"], "{figures}");
    assert_eq!(figures["sum(4)"], cancelled["sum_total"], "{figures}");

    let out = mcpguard_ok("summarize", &headless, &["--fields", "1,3"]);
    let result: Value = serde_json::from_slice(&out).unwrap();
    let preview: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(preview["count"], expected()["rows"], "{preview}");
    assert_eq!(
        preview["items"][0],
        json!({"1": 1, "3": "refunded"}),
        "{preview}"
    );
}

#[test]
fn artifacts_show_answers_on_records_stored_as_text() {
    use mcpguard::proxy::store::{Artifacts as _, DirStore};
    use mcpguard::reshape::artifact::Ref;
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    let mut store = DirStore::new(&store_dir, std::time::Duration::from_secs(3600), 1 << 30);
    let cancelled = &expected()["cancelled"];
    for (file, status, total) in [
        ("sqlite-orders.result.json", "status", "total"),
        ("duckdb-orders.result.json", "3", "4"),
    ] {
        let result = std::fs::read(fixture(file)).unwrap();
        let reference = Ref::for_content("read_query", &result);
        store.put(&reference, &result).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_mcpguard"))
            .args(["artifacts", "show", "--artifact-dir"])
            .arg(&store_dir)
            .arg(reference.to_string())
            .args(["--where", &format!("{status}=cancelled")])
            .args(["--aggregate", &format!("count, sum({total})")])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let figures: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(figures["count"], cancelled["count"], "{file}: {figures}");
        assert_eq!(
            figures[&format!("sum({total})")],
            cancelled["sum_total"],
            "{file}: {figures}"
        );
    }
}

#[test]
fn through_the_proxy_a_csv_under_structured_content_answers_where_and_match_with_whole_records() {
    // server-filesystem's read_text_file: the file as text, and structuredContent
    // `{"content": "<the same text>"}` (no list in it).
    let dir = tempfile::tempdir().unwrap();
    let csv = text_file(dir.path(), "orders-csv.result.json", "orders.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let answer = dir.path().join("answer.json");
    std::fs::write(
        &answer,
        json!({"content": [{"type": "text", "text": text}], "structuredContent": {"content": text}})
            .to_string(),
    )
    .unwrap();
    let tool = json!({"server": "filesystem", "tool": "read_text_file", "description": "Read a file",
                      "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
                      "outputSchema": {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]}});
    let mut s = proxy_in_front(dir.path(), tool, "--answer-result", &answer);
    let shrunk = s.call("read_text_file", json!({"path": "orders.csv"}));
    let preview = shrunk.to_string();
    assert!(
        preview.len() < 20_000,
        "{} bytes reached the client",
        preview.len()
    );
    assert!(preview.contains("Its text holds records"), "{preview}");
    let reference = shrunk["_meta"]["mcpguard/budget"]["artifactRef"]
        .as_str()
        .unwrap_or_else(|| panic!("no artifact reference: {preview}"))
        .to_owned();
    let figures = s.more(
        json!({"ref": reference, "where": "status=cancelled", "aggregate": "count, sum(total)"}),
    );
    let said = figures.to_string();
    let cancelled = &expected()["cancelled"];
    assert!(
        said.contains(&format!("\\\"count\\\": {}", cancelled["count"])),
        "{figures}"
    );
    assert!(
        said.contains(&cancelled["sum_total"].to_string()),
        "{figures}"
    );
    // The record whose note holds a line break comes back whole, as JSON.
    let matched = s.more(json!({"ref": reference, "match": "line one"}));
    let said = matched.to_string();
    assert!(said.contains("records match"), "{matched}");
    assert!(said.contains(r#"line one\\nline two"#), "{matched}");
    s.finish();
}

#[test]
fn chunks_of_a_csv_and_of_a_repr_on_one_line_end_between_records() {
    let dir = tempfile::tempdir().unwrap();
    for (fixture_name, file, ends) in [
        // A record ends at a line's end outside quotes (a note holds a quoted line break).
        ("orders-csv.result.json", "orders.csv", "\r\n"),
        // 96 KB of tuples on one line: a chunk ends after a tuple and its comma.
        ("duckdb-orders.result.json", "rows.txt", "), "),
    ] {
        let path = text_file(dir.path(), fixture_name, file);
        let whole = std::fs::read_to_string(&path).unwrap();
        let out = mcpguard_ok(
            "chunk",
            &path,
            &["--all", "--format", "jsonl", "--max-tokens", "1500"],
        );
        let chunks: Vec<String> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["content"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert!(chunks.len() > 5, "{file}: {} chunks", chunks.len());
        assert_eq!(
            chunks.concat(),
            whole,
            "{file}: the chunks give the text back"
        );
        for chunk in &chunks[..chunks.len() - 1] {
            assert!(
                chunk.ends_with(ends),
                "{file}: a chunk ends mid-record: {:?}",
                &chunk[chunk.len().saturating_sub(60)..]
            );
            if file == "orders.csv" {
                assert_eq!(
                    chunk.matches('"').count() % 2,
                    0,
                    "{file}: a quoted field cut: {chunk:?}"
                );
            }
        }
    }
}
