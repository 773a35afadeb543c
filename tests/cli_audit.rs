//! `mcpguard audit` as CI runs it: the bundled examples, every output format, exit codes,
//! transcripts, baselines, shards, telemetry, and inputs that cannot be read.

mod common;

use std::fs;

use common::{code, mcpguard, mcpguard_in, repo, settings, transcript};
use serde_json::Value;

fn validate(schema_file: &str, value: &Value) {
    let schema: Value =
        serde_json::from_str(&fs::read_to_string(repo(schema_file)).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(value)
        .take(10)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{schema_file}: {errors:#?}");
}

fn audit_json(args: &[&str]) -> (i32, Value) {
    let out = mcpguard()
        .arg("audit")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    (code(&out), common::stdout_json(&out))
}

#[test]
fn examples_report_at_a_glance() {
    let out = mcpguard()
        .args([
            "audit",
            "contracts/examples",
            "--client",
            "claude-code,copilot-cli",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "the failing examples fail the run");
    settings(None).bind(|| insta::assert_snapshot!(transcript(&out)));
}

#[test]
fn every_failing_example_breaks_its_invariant_and_passing_ones_pass() {
    let (exit, report) = audit_json(&["contracts/examples"]);
    assert_eq!(exit, 1);
    validate("contracts/schemas/audit.schema.json", &report);
    for doc in report["documents"].as_array().unwrap() {
        let name = doc["name"].as_str().unwrap().rsplit('/').next().unwrap();
        let codes: Vec<&str> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap())
            .collect();
        let expected = match &name[..name.len().min(11)] {
            "fail-inv001" => "MG001",
            "fail-inv002" => "MG002",
            "fail-inv003" => "MG003",
            "fail-inv004" => "MG004",
            "fail-inv005" => "MG005",
            "fail-inv006" => "MG007",
            _ => {
                let serious: Vec<&Value> = doc["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|f| f["severity"] == "error")
                    .collect();
                assert!(serious.is_empty(), "{name} passes: {serious:#?}");
                continue;
            }
        };
        assert!(
            codes.contains(&expected),
            "{name}: {codes:?} lacks {expected}"
        );
    }
    // Findings point at real places: every pointer outside a JSON text block resolves.
    for doc in report["documents"].as_array().unwrap() {
        let text = fs::read_to_string(repo(doc["file"].as_str().unwrap())).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        for f in doc["findings"].as_array().unwrap() {
            let p = f["pointer"].as_str().unwrap();
            let outer = p.split('#').next().unwrap();
            assert!(
                value.pointer(outer).is_some(),
                "{} {}: {p}",
                doc["name"],
                f["code"]
            );
        }
    }
}

#[test]
fn a_list_sent_as_text_and_as_wrapped_structured_content_is_reported_once_as_sent_twice() {
    // A real capture: 2,000 items as a JSON text block and again as {"items": [...]}.
    let (_, report) = audit_json(&[
        "tests/fixtures/corpus/paged__tools_call__big__2000.json",
        "--fail-on",
        "never",
    ]);
    let findings = report["documents"][0]["findings"].as_array().unwrap();
    let twice: Vec<&Value> = findings.iter().filter(|f| f["code"] == "MG013").collect();
    assert_eq!(twice.len(), 1, "{findings:#?}");
    assert_eq!(twice[0]["pointer"], "/result/content/0/text");
    assert!(
        twice[0]["message"]
            .as_str()
            .unwrap()
            .contains("(167116 bytes sent twice)"),
        "{}",
        twice[0]
    );
}

#[test]
fn fail_on_sets_the_exit_code() {
    let warning_only = "contracts/examples/fail-inv004-depth-9.json";
    let run = |fail_on: &str| {
        code(
            &mcpguard()
                .args(["audit", warning_only, "--fail-on", fail_on])
                .output()
                .unwrap(),
        )
    };
    assert_eq!((run("error"), run("warning"), run("never")), (0, 1, 0));
    let clean = mcpguard()
        .args([
            "audit",
            "contracts/examples/pass-contract-bookings-page.json",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&clean), 0);
}

#[test]
fn sarif_matches_the_2_1_0_schema() {
    let out = mcpguard()
        .args(["audit", "contracts/examples", "--format", "sarif"])
        .output()
        .unwrap();
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    validate("tests/fixtures/sarif-2.1.0.schema.json", &log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    let first = results.iter().find(|r| r["ruleId"] == "MG002").unwrap();
    assert_eq!(
        first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "contracts/examples/fail-inv001-bookings-60kb.json"
    );
    assert_eq!(
        first["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
}

#[test]
fn github_junit_markdown_jsonl() {
    let run = |format: &str| {
        let out = mcpguard()
            .args([
                "audit",
                "contracts/examples/fail-inv002-search-25-items.json",
                "contracts/examples/fail-inv006-summary-too-long.json",
                "--format",
                format,
            ])
            .output()
            .unwrap();
        assert_eq!(code(&out), 1);
        String::from_utf8(out.stdout).unwrap()
    };
    let github = run("github");
    assert!(
        github.lines().all(|l| l.starts_with("::error ")
            || l.starts_with("::warning ")
            || l.starts_with("::notice ")),
        "{github}"
    );
    let junit = run("junit");
    assert!(junit.starts_with("<?xml") && junit.trim_end().ends_with("</testsuites>"));
    assert_eq!(junit.matches("<testcase ").count(), 2);
    assert_eq!(
        junit.matches("<failure ").count(),
        1,
        "one error; the summary warning is listed, not failed"
    );
    let jsonl = run("jsonl");
    for line in jsonl.lines() {
        let f: Value = serde_json::from_str(line).unwrap();
        assert!(f["code"].as_str().unwrap().starts_with("MG"));
    }
    let markdown = run("markdown");
    settings(None).bind(|| insta::assert_snapshot!(format!("{github}\n{junit}\n{markdown}")));
}

#[test]
fn transcripts_pair_responses_with_their_tools() {
    let dir = tempfile::tempdir().unwrap();
    let big: Vec<String> = (0..40)
        .map(|i| format!("{{\"id\":\"bk_{i}\",\"status\":\"confirmed\"}}"))
        .collect();
    let big_text = serde_json::to_string(&format!("{{\"bookings\":[{}]}}", big.join(","))).unwrap();
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_bookings","arguments":{"q":"late"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#.to_owned(),
        format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":{big_text}}}]}}}}"#),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_booking","arguments":{"id":"bk_1"}}}"#.to_owned(),
        r#"this line is not JSON"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"id\":\"bk_1\"}"}]}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":99,"result":{"content":[{"type":"text","text":"orphan"}]}}"#.to_owned(),
    ];
    fs::write(dir.path().join("session.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = mcpguard_in(dir.path())
        .args(["audit", "session.jsonl", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", transcript(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let docs = report["documents"].as_array().unwrap();
    let summary: Vec<(&str, &str)> = docs
        .iter()
        .map(|d| (d["name"].as_str().unwrap(), d["tool"].as_str().unwrap()))
        .collect();
    assert_eq!(
        summary,
        [
            ("session.jsonl:3", "search_bookings"),
            ("session.jsonl:6", "get_booking"),
            ("session.jsonl:7", "session")
        ]
    );
    assert!(
        docs[2]["notes"][0]
            .as_str()
            .unwrap()
            .contains("no request with this id")
    );
    assert_eq!(docs[0]["findings"][0]["code"], "MG002");
    assert_eq!(docs[0]["findings"][0]["line"], 3);
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0]
            .as_str()
            .unwrap()
            .starts_with("session.jsonl:5:2: invalid JSON"),
        "{errors:?}"
    );
}

#[test]
fn baselines_catch_a_grown_tool_and_stale_entries() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("captures")).unwrap();
    let response = |n: usize| {
        let items: Vec<String> = (0..n).map(|i| format!("{{\"id\":{i}}}")).collect();
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"{{\"items\":[{}],\"hasMore\":true,\"nextCursor\":\"c\"}}"}}]}}}}"#,
            items.join(",").replace('"', "\\\"")
        )
    };
    fs::write(d.join("captures/list_things.json"), response(10)).unwrap();
    fs::write(d.join("captures/gone_tool.json"), response(2)).unwrap();
    let update = mcpguard_in(d)
        .args([
            "audit",
            "captures",
            "--baseline",
            "baseline.json",
            "--update-baseline",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&update), 0, "{}", transcript(&update));
    let baseline: Value =
        serde_json::from_str(&fs::read_to_string(d.join("baseline.json")).unwrap()).unwrap();
    assert!(
        baseline["tools"]["list_things"]["p95Bytes"]
            .as_u64()
            .unwrap()
            > 0
    );

    let same = mcpguard_in(d)
        .args(["audit", "captures", "--baseline", "baseline.json"])
        .output()
        .unwrap();
    assert_eq!(code(&same), 0, "{}", transcript(&same));

    fs::write(
        d.join("captures/list_things.json"),
        response(10).replace(
            "\\\"items\\\":[",
            "\\\"items\\\":[{\\\"extra\\\":\\\"a long new field nobody asked for\\\"},",
        ),
    )
    .unwrap();
    fs::remove_file(d.join("captures/gone_tool.json")).unwrap();
    let grown = mcpguard_in(d)
        .args([
            "audit",
            "captures",
            "--baseline",
            "baseline.json",
            "--max-growth",
            "10",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&grown), 1);
    let report: Value = serde_json::from_slice(&grown.stdout).unwrap();
    let codes: Vec<(&str, &str)> = report["corpusFindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap(), f["tool"].as_str().unwrap()))
        .collect();
    assert_eq!(codes, [("MG018", "list_things"), ("MG019", "gone_tool")]);

    let missing = mcpguard_in(d)
        .args(["audit", "captures", "--baseline", "nope.json"])
        .output()
        .unwrap();
    assert_eq!(code(&missing), 2);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("create it with --update-baseline"));
}

#[test]
fn shards_cover_the_corpus_exactly_once() {
    let names = |shard: &str| -> Vec<String> {
        let (_, r) = audit_json(&["contracts/examples", "--shard", shard]);
        r["documents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let mut all: Vec<String> = (1..=3).flat_map(|k| names(&format!("{k}/3"))).collect();
    all.sort();
    let (_, whole) = audit_json(&["contracts/examples"]);
    let mut expected: Vec<String> = whole["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_owned())
        .collect();
    expected.sort();
    assert_eq!(all, expected);
    let bad = mcpguard()
        .args(["audit", "contracts/examples", "--shard", "4/3"])
        .output()
        .unwrap();
    assert_eq!(code(&bad), 2);
}

#[test]
fn telemetry_records_and_their_summary() {
    let dir = tempfile::tempdir().unwrap();
    let metrics = dir.path().join("metrics.jsonl");
    let out = mcpguard()
        .args(["audit", "contracts/examples", "--metrics"])
        .arg(&metrics)
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    let records: Vec<Value> = fs::read_to_string(&metrics)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 17);
    let page = records
        .iter()
        .find(|r| {
            r["id"]
                .as_str()
                .unwrap()
                .ends_with("pass-contract-bookings-page.json")
        })
        .unwrap();
    assert_eq!(
        (
            page["paginationUsed"].as_bool(),
            page["summarizationUsed"].as_bool()
        ),
        (Some(true), Some(true))
    );
    let summary = mcpguard()
        .args(["audit", "--from-metrics"])
        .arg(&metrics)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(code(&summary), 0);
    let rows: Vec<Value> = serde_json::from_slice(&summary.stdout).unwrap();
    assert_eq!(
        rows.iter()
            .map(|r| r["count"].as_u64().unwrap())
            .sum::<u64>(),
        17
    );
    // A metrics file that cannot be written warns once and never fails the audit.
    let unwritable = mcpguard()
        .args([
            "audit",
            "contracts/examples/pass-contract-bookings-page.json",
            "--metrics",
            "/nonexistent-dir/m.jsonl",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&unwritable), 0);
    assert_eq!(
        String::from_utf8_lossy(&unwritable.stderr)
            .matches("cannot write metrics")
            .count(),
        1
    );
}

#[test]
fn contract_mode_requires_the_response_shape() {
    let (exit, report) = audit_json(&[
        "contracts/examples/fail-inv002-search-25-items.json",
        "contracts/examples/pass-contract-bookings-page.json",
        "--contract",
        "contracts/response.schema.json",
    ]);
    assert_eq!(exit, 1);
    let codes = |i: usize| -> Vec<String> {
        report["documents"][i]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(
        codes(0).contains(&"MG006".to_owned()) && codes(0).contains(&"MG017".to_owned()),
        "{:?}",
        codes(0)
    );
    assert!(
        codes(1).is_empty(),
        "the contract-shaped page passes: {:?}",
        codes(1)
    );
}

#[test]
fn unreadable_inputs_are_reported_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("a.json"), r#"{"ok": true}"#).unwrap();
    fs::write(d.join("b.json"), "{ not json").unwrap();
    let out = mcpguard_in(d)
        .args(["audit", ".", "--format", "json"])
        .output()
        .unwrap();
    // The readable one is audited; the other is a finding at its place (MG033), which fails the
    // audit: a CI gate must not pass on a capture it could not read.
    assert_eq!(code(&out), 1, "{}", transcript(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("b.json:1:3: invalid JSON"));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let unreadable = &report["corpusFindings"][0];
    assert_eq!(unreadable["code"], "MG033", "{report}");
    assert_eq!(unreadable["document"], "./b.json");
    assert_eq!(
        (unreadable["line"].as_u64(), unreadable["column"].as_u64()),
        (Some(1), Some(3))
    );
    // Reported where CI shows it: SARIF results and workflow annotations.
    for (format, shows) in [
        ("sarif", "\"ruleId\": \"MG033\""),
        ("github", "::error file=./b.json,line=1"),
    ] {
        let out = mcpguard_in(d)
            .args(["audit", ".", "--format", format])
            .output()
            .unwrap();
        assert_eq!(code(&out), 1);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(shows), "{format}: {text}");
    }
    let nothing = mcpguard_in(d)
        .args(["audit", "b.json", "missing.json"])
        .output()
        .unwrap();
    assert_eq!(code(&nothing), 2, "nothing could be read");
    settings(Some(d)).bind(|| insta::assert_snapshot!(transcript(&nothing)));
}

#[test]
fn ten_thousand_files_with_some_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("corpus");
    fs::create_dir(&d).unwrap();
    for i in 0..10_000 {
        let text = if i % 1000 == 7 {
            "{\"broken\": ".to_owned()
        } else {
            format!(
                r#"{{"jsonrpc":"2.0","id":{i},"result":{{"content":[{{"type":"text","text":"record {i}"}}]}}}}"#
            )
        };
        fs::write(d.join(format!("r{i:05}.json")), text).unwrap();
    }
    let out = mcpguard_in(dir.path())
        .args(["audit", "corpus", "--format", "jsonl"])
        .output()
        .unwrap();
    assert_eq!(
        code(&out),
        1,
        "the ten broken ones fail the audit: {}",
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .take(3)
            .collect::<Vec<_>>()
            .join("\n")
    );
    let unreadable = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("\"MG033\""))
        .count();
    assert_eq!(unreadable, 10);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.contains("invalid JSON"))
            .count(),
        10
    );
}

#[test]
fn output_is_the_same_whatever_the_order_of_work() {
    let run = |threads: &str| {
        mcpguard()
            .env("RAYON_NUM_THREADS", threads)
            .args([
                "audit",
                "contracts/examples",
                "tests/fixtures",
                "--format",
                "json",
            ])
            .output()
            .unwrap()
            .stdout
    };
    assert_eq!(run("1"), run("2"));
}
