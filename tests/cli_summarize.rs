//! `mcpguard summarize` as a user runs it: the 500-booking list and the 2 MB log of the
//! examples, references followed with paginate, chunk and summarize, bloat fixes, an output
//! schema, and bad input. Every output is audited with mcpguard's own rules.

mod common;

use std::fs;
use std::path::Path;

use common::{code, mcpguard_in, repo, settings, transcript};
use serde_json::{Value, json};

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    mcpguard_in(dir).args(args).output().expect("runs")
}

/// `summarize FILE --report --format json` and more `flags`, run in `dir`: the run, its output
/// and its report (on stderr), after checking that it succeeded.
fn summarize_with_report(dir: &Path, file: &str, flags: &[&str]) -> (Value, Value) {
    let input = repo(file);
    let mut args = vec![
        "summarize",
        input.to_str().unwrap(),
        "--report",
        "--format",
        "json",
    ];
    args.extend_from_slice(flags);
    let out = run(dir, &args);
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    let report = serde_json::from_slice(&out.stderr).unwrap();
    (common::stdout_json(&out), report)
}

/// The fixes a summarize report lists, by name.
fn fix_names(report: &Value) -> Vec<&str> {
    report["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fix"].as_str().unwrap())
        .collect()
}

/// The contract object of an output: itself, or the JSON text of a tool result.
fn contract(output: &Value) -> Value {
    let result = output.get("result").unwrap_or(output);
    match result.pointer("/content/0/text").and_then(Value::as_str) {
        Some(text) => serde_json::from_str(text).expect("text block holds JSON"),
        None => result.clone(),
    }
}

/// Audits a file with the default contract and returns the finding codes.
fn audit_codes(dir: &Path, file: &str) -> Vec<String> {
    let out = run(dir, &["audit", file, "--format", "json"]);
    let report = common::stdout_json(&out);
    report["documents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["findings"].as_array().unwrap().clone())
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_500_booking_list_becomes_a_preview_with_a_working_reference() {
    let dir = scratch();
    let input = repo("tests/fixtures/bookings-500.json");
    let out = run(dir.path(), &["summarize", input.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    assert!(out.stdout.len() <= 10_240, "{} bytes", out.stdout.len());
    let preview = common::stdout_json(&out);
    let reference = preview["artifactRef"].as_str().unwrap().to_owned();
    assert!(reference.starts_with("ax://bookings/"), "{reference}");
    let summary = preview["summary"].as_str().unwrap();
    assert!(summary.chars().count() <= 100, "{summary}");
    assert_eq!(
        summary,
        format!("500 bookings; showing 10; full result {reference}")
    );
    assert_eq!(preview["count"], 500);
    assert_eq!(preview["hasMore"], true);
    assert_eq!(preview["success"], true);
    let items = preview["items"].as_array().unwrap();
    assert_eq!(items.len(), 10);
    // seed 001's booking map, as far as these records have its fields.
    assert_eq!(
        items[0].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["id", "guestName", "status", "checkInDate", "totalPrice"]
    );
    let meta = &preview["meta"];
    assert_eq!(meta["kind"], "preview");
    assert_eq!(meta["originalBytes"], fs::metadata(&input).unwrap().len());
    assert_eq!(meta["finalBytes"], out.stdout.len() as u64 - 1);
    assert!(
        meta["budgetRemaining"].as_u64().unwrap() + meta["estimatedTokens"].as_u64().unwrap()
            == 4000
    );
    assert_eq!(
        meta["detailsAvailable"]["command"],
        format!("mcpguard paginate {reference}")
    );

    // The artifact holds the input, byte for byte, where the reference says.
    let id = reference.rsplit('/').next().unwrap();
    let stored = dir
        .path()
        .join(format!(".mcpguard/artifacts/bookings/{id}.json"));
    assert_eq!(fs::read(&stored).unwrap(), fs::read(&input).unwrap());

    // Following it: paginate pages the full list, estimate measures it.
    let page = mcpguard_in(dir.path())
        .env("MCPGUARD_CURSOR_SECRET", "summarize-test")
        .args(["paginate", &reference, "--limit", "50"])
        .output()
        .unwrap();
    assert_eq!(code(&page), 0, "{}", transcript(&page));
    let page = common::stdout_json(&page);
    assert_eq!(page["meta"]["totalCount"], 500);
    assert_eq!(page["bookings"].as_array().unwrap().len(), 50);
    let est = run(dir.path(), &["estimate", &reference, "--format", "json"]);
    assert_eq!(code(&est), 0, "{}", transcript(&est));
    assert_eq!(
        common::stdout_json(&est)["documents"][0]["name"],
        reference.as_str()
    );

    // The preview itself passes the contract.
    fs::write(dir.path().join("preview.json"), &out.stdout).unwrap();
    assert_eq!(
        audit_codes(dir.path(), "preview.json"),
        Vec::<String>::new()
    );
}

#[test]
fn a_section_of_the_stored_result_comes_back_in_full() {
    let dir = scratch();
    let input = repo("contracts/examples/fail-inv001-bookings-60kb.json");
    let first = common::stdout_json(&run(dir.path(), &["summarize", input.to_str().unwrap()]));
    let reference = first["artifactRef"].as_str().unwrap();
    // The preview says how to get what it left out.
    let details = &first["meta"]["detailsAvailable"];
    assert!(
        details["fields"]
            .as_str()
            .unwrap()
            .contains("priceBreakdown"),
        "{details}"
    );

    let out = run(
        dir.path(),
        &["summarize", reference, "--fields", "priceBreakdown"],
    );
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    let section = common::stdout_json(&out);
    let original: Value = serde_json::from_slice(&fs::read(&input).unwrap()).unwrap();
    for (i, item) in section["items"].as_array().unwrap().iter().enumerate() {
        assert_eq!(
            item,
            &json!({"priceBreakdown": original["bookings"][i]["priceBreakdown"]})
        );
    }
    assert_eq!(section["meta"]["projectedFields"], "priceBreakdown");
}

#[test]
fn the_2mb_log_in_a_tool_result_becomes_a_valid_tool_result_under_budget() {
    let dir = scratch();
    let input = repo("contracts/examples/fail-inv003-log-2mb-text.json");
    let out = run(
        dir.path(),
        &["summarize", input.to_str().unwrap(), "--report"],
    );
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    let output = common::stdout_json(&out);
    let original: Value = serde_json::from_slice(&fs::read(&input).unwrap()).unwrap();
    // Still a JSON-RPC response to the same request, holding a tool result.
    assert_eq!(output["jsonrpc"], "2.0");
    assert_eq!(output["id"], original["id"]);
    let content = output["result"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 1);
    assert_eq!(content[0]["type"], "text");
    let c = contract(&output);
    let lines = c["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 10);
    let log = original["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(lines[0], log.lines().next().unwrap());
    assert_eq!(lines[9], log.lines().last().unwrap());
    assert_eq!(c["count"], log.lines().count());
    assert!(
        c["meta"]["detailsAvailable"]["command"]
            .as_str()
            .unwrap()
            .starts_with("mcpguard chunk ax://")
    );

    fs::write(dir.path().join("out.json"), &out.stdout).unwrap();
    let est = common::stdout_json(&run(
        dir.path(),
        &["estimate", "out.json", "--format", "json"],
    ));
    assert!(est["documents"][0]["tokens"].as_u64().unwrap() <= 4000);
    assert_eq!(audit_codes(dir.path(), "out.json"), Vec::<String>::new());

    // The reference reads the log chunk by chunk.
    let reference = c["artifactRef"].as_str().unwrap();
    let chunk = mcpguard_in(dir.path())
        .env("MCPGUARD_CURSOR_SECRET", "summarize-test")
        .args(["chunk", reference])
        .output()
        .unwrap();
    assert_eq!(code(&chunk), 0, "{}", transcript(&chunk));
    let chunk = common::stdout_json(&chunk);
    assert!(log.starts_with(chunk["content"].as_str().unwrap()));

    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("before") && stderr.contains("2,018,123"),
        "{stderr}"
    );
}

#[test]
fn token_reduction_on_the_bundled_examples() {
    // seed SC-002: at least 60% fewer tokens on average over the responses that need it.
    let dir = scratch();
    let mut rows = String::from("example | outcome | tokens before | after | reduction\n");
    let mut reductions = Vec::new();
    let mut names: Vec<_> = fs::read_dir(repo("contracts/examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let out = run(
            dir.path(),
            &[
                "summarize",
                path.to_str().unwrap(),
                "--report",
                "--format",
                "json",
            ],
        );
        assert_eq!(code(&out), 0, "{name}: {}", transcript(&out));
        let report: Value = serde_json::from_slice(&out.stderr).unwrap();
        let r = report["reduction"].as_f64().unwrap();
        rows.push_str(&format!(
            "{name} | {} | {} | {} | {:.1}%\n",
            report["outcome"].as_str().unwrap(),
            report["before"]["tokens"],
            report["after"]["tokens"],
            r * 100.0
        ));
        if name.starts_with("fail-") {
            reductions.push(r);
            // Whatever was summarized passes the contract afterwards.
            fs::write(dir.path().join("out.json"), &out.stdout).unwrap();
            assert_eq!(
                audit_codes(dir.path(), "out.json"),
                Vec::<String>::new(),
                "{name}"
            );
        } else {
            // A passing example fits, so it comes back unchanged.
            assert_eq!(report["outcome"], "unchanged", "{name}");
            assert_eq!(out.stdout, fs::read(&path).unwrap(), "{name}");
        }
    }
    let average = reductions.iter().sum::<f64>() / reductions.len() as f64;
    rows.push_str(&format!(
        "average over the {} failing examples: {:.1}%\n",
        reductions.len(),
        average * 100.0
    ));
    settings(None).bind(|| insta::assert_snapshot!(rows));
    assert!(average >= 0.60, "average reduction {average}");
}

#[test]
fn a_response_that_fits_passes_through_byte_for_byte_unless_forced() {
    let dir = scratch();
    let input = repo("contracts/examples/pass-plain-api-booking.json");
    let out = run(dir.path(), &["summarize", input.to_str().unwrap()]);
    assert_eq!(code(&out), 0);
    assert_eq!(out.stdout, fs::read(&input).unwrap());
    assert!(
        !dir.path().join(".mcpguard").exists(),
        "nothing stored for a passthrough"
    );

    let forced = common::stdout_json(&run(
        dir.path(),
        &["summarize", input.to_str().unwrap(), "--force"],
    ));
    assert_eq!(forced["meta"]["kind"], "full");
    assert!(forced["data"]["id"].is_string(), "{forced}");

    // Through a pipe, as `some-tool | mcpguard summarize` runs it.
    let piped = mcpguard_in(dir.path())
        .arg("summarize")
        .write_stdin(fs::read(repo("tests/fixtures/git-log-200.json")).unwrap())
        .output()
        .unwrap();
    assert_eq!(code(&piped), 0, "{}", transcript(&piped));
    assert!(piped.stdout.len() <= 10_240);
}

#[test]
fn a_small_error_result_is_kept_whole_even_when_forced() {
    let dir = scratch();
    let input = repo("contracts/examples/pass-everything-unknown-tool-error.json");
    let out = run(
        dir.path(),
        &["summarize", input.to_str().unwrap(), "--force"],
    );
    assert_eq!(code(&out), 0);
    assert_eq!(out.stdout, fs::read(&input).unwrap());
}

#[test]
fn a_list_also_sent_wrapped_as_structured_content_keeps_one_copy() {
    // A real capture: 2,000 items as a JSON text block and again as {"items": [...]}.
    let dir = scratch();
    let file = "tests/fixtures/corpus/paged__tools_call__big__2000.json";
    let (output, report) = summarize_with_report(dir.path(), file, &[]);
    assert_eq!(fix_names(&report), ["duplicate"], "{report:#}");
    assert_eq!(report["fixes"][0]["bytes"], 167116);
    let warnings = report["warnings"].to_string();
    assert!(
        !warnings.contains("structuredContent left out"),
        "{warnings}"
    );
    assert!(output["result"].get("structuredContent").is_none());
}

#[test]
fn bloat_fixes_are_reported_with_their_savings() {
    let dir = scratch();
    let file = "contracts/examples/fail-inv001-pretty-duplicated-structured.json";
    let (output, report) = summarize_with_report(dir.path(), file, &["--drop-empty", "--table"]);
    let fixes = fix_names(&report);
    assert!(
        fixes.contains(&"minify") && fixes.contains(&"duplicate"),
        "{fixes:?}"
    );
    for f in report["fixes"].as_array().unwrap() {
        assert!(f["bytes"].as_u64().unwrap() > 0, "{f}");
    }
    assert!(
        output["result"].get("structuredContent").is_none(),
        "one copy kept"
    );
    let c = contract(&output);
    let columns = c["columns"].as_array().unwrap();
    let rows = c["rows"].as_array().unwrap();
    assert!(
        !rows.is_empty()
            && rows
                .iter()
                .all(|r| r.as_array().unwrap().len() == columns.len())
    );

    // A base64 screenshot becomes a descriptor; everything else is kept.
    let shot = repo("contracts/examples/fail-inv003-base64-screenshot.json");
    let out = run(dir.path(), &["summarize", shot.to_str().unwrap()]);
    let c = contract(&common::stdout_json(&out));
    assert_eq!(c["meta"]["kind"], "full");
    assert!(
        c["data"]["screenshot"]
            .as_str()
            .unwrap()
            .ends_with("[base64 image/png, 30,474 bytes]"),
        "{c}"
    );
}

#[test]
fn structured_content_stays_valid_against_the_output_schema() {
    let dir = scratch();
    let hits: Vec<Value> = (0..80)
        .map(|i| json!({"path": format!("src/module_{i}.rs"), "line": i * 7, "preview": "fn handler(request: Request) -> Response { todo!() }".repeat(3)}))
        .collect();
    let data = json!({"query": "handler", "total": 80, "hits": hits});
    let result = json!({"jsonrpc": "2.0", "id": 7, "result": {
        "content": [{"type": "text", "text": data.to_string()}],
        "structuredContent": data,
    }});
    let schema = json!({"name": "search_code", "inputSchema": {"type": "object"}, "outputSchema": {
        "type": "object",
        "required": ["query", "total", "hits"],
        "properties": {
            "query": {"type": "string"},
            "total": {"type": "integer"},
            "hits": {"type": "array", "minItems": 1, "items": {
                "type": "object", "required": ["path", "line"],
                "properties": {"path": {"type": "string", "pattern": "^src/"}, "line": {"type": "integer"}}
            }}
        }
    }});
    fs::write(dir.path().join("result.json"), result.to_string()).unwrap();
    fs::write(dir.path().join("tool.json"), schema.to_string()).unwrap();
    let out = run(
        dir.path(),
        &["summarize", "result.json", "--output-schema", "tool.json"],
    );
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    assert!(out.stdout.len() <= 10_240);
    let output = common::stdout_json(&out);
    let structured = &output["result"]["structuredContent"];
    let validator = jsonschema::validator_for(&schema["outputSchema"]).unwrap();
    assert!(validator.is_valid(structured), "{structured}");
    assert_eq!(structured["hasMore"], true);
    assert_eq!(structured["total"], 80);
    assert!(structured["hits"].as_array().unwrap().len() <= 10);
    // Without the schema, the duplicate copy is left out.
    let out = run(dir.path(), &["summarize", "result.json"]);
    assert!(
        common::stdout_json(&out)["result"]
            .get("structuredContent")
            .is_none()
    );
}

#[test]
fn odd_input_is_summarized_or_refused_clearly() {
    let dir = scratch();
    let d = dir.path();
    // A tool result with an unknown block type: summarized, the block described.
    let odd = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [
        {"type": "hologram", "frames": "x".repeat(20_000)},
        {"type": "text", "text": "The render finished in 14 s. Output is attached."}
    ]}});
    fs::write(d.join("odd.json"), odd.to_string()).unwrap();
    let out = run(d, &["summarize", "odd.json"]);
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    let c = contract(&common::stdout_json(&out));
    assert!(
        c["meta"]["leftOut"].as_str().unwrap().contains("hologram"),
        "{c}"
    );

    // A 5 MB single string: cut with its full length, never whole.
    let big = json!({"id": "doc-1", "body": "word ".repeat(1_000_000)});
    fs::write(d.join("big.json"), big.to_string()).unwrap();
    let out = run(d, &["summarize", "big.json"]);
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    assert!(out.stdout.len() <= 10_240);

    // A JSON-RPC error stays an error with its code and a short message.
    let error = json!({"jsonrpc": "2.0", "id": 9, "error": {"code": -32603,
        "message": format!("Internal error: {}", "at com.acme.Booking.save(Booking.java:88) ".repeat(400)),
        "data": {"trace": vec!["at x"; 50]}}});
    fs::write(d.join("error.json"), error.to_string()).unwrap();
    let out = common::stdout_json(&run(d, &["summarize", "error.json"]));
    assert_eq!(out["id"], 9);
    assert_eq!(out["error"]["code"], -32603);
    let message = out["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Internal error: at com.acme") && message.chars().count() <= 200,
        "{message}"
    );
    assert!(
        out["error"]["data"]["summary"]
            .as_str()
            .unwrap()
            .starts_with("error -32603: Internal error")
    );
    assert_eq!(out["error"]["data"]["success"], false);

    // resources/read of a log: read as a log, first and last lines.
    let log: String = (1..=3000)
        .map(|i| format!("2026-11-20 10:{:02}:00 INFO request {i}\n", i % 60))
        .collect();
    let read = json!({"jsonrpc": "2.0", "id": 4, "result": {"contents": [{"uri": "file:///app.log", "mimeType": "text/plain", "text": log}]}});
    fs::write(d.join("read.json"), read.to_string()).unwrap();
    let out = common::stdout_json(&run(d, &["summarize", "read.json"]));
    assert_eq!(out["result"]["count"], 3000);
    assert_eq!(
        out["result"]["lines"][0],
        "2026-11-20 10:01:00 INFO request 1"
    );

    // With --fields, the first cut keeps strings up to maxStringLength (500), not less.
    let notes = "The guest arrives after ten. ".repeat(14);
    let records: Vec<Value> = (0..40)
        .map(|i| json!({"id": format!("r{i}"), "notes": notes, "body": "x".repeat(2000)}))
        .collect();
    fs::write(
        d.join("notes.json"),
        json!({"records": records}).to_string(),
    )
    .unwrap();
    let out = common::stdout_json(&run(
        d,
        &["summarize", "notes.json", "--fields", "id,notes"],
    ));
    assert_eq!(out["items"][0]["notes"], notes.as_str());

    // A projection path that matches nothing: a warning, not a failure.
    let input = repo("tests/fixtures/bookings-500.json");
    let out = run(
        d,
        &[
            "summarize",
            input.to_str().unwrap(),
            "--fields",
            "id,guest.phone",
        ],
    );
    assert_eq!(code(&out), 0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`guest.phone` matches nothing"), "{stderr}");
    assert_eq!(
        common::stdout_json(&out)["items"][0],
        json!({"id": "bk_000000"})
    );
}

#[test]
fn bad_input_exits_2_with_nothing_on_stdout() {
    let dir = scratch();
    let d = dir.path();
    fs::write(d.join("bad.json"), "{\"bookings\": [1, 2,\n").unwrap();
    fs::write(d.join("empty.json"), "").unwrap();
    fs::write(
        d.join("deep.json"),
        "[".repeat(100_000) + &"]".repeat(100_000),
    )
    .unwrap();
    fs::write(d.join("a-file"), "not a directory").unwrap();
    let bookings = repo("tests/fixtures/bookings-500.json");
    let bookings = bookings.to_str().unwrap();
    let mut report = String::new();
    for args in [
        vec!["summarize", "bad.json"],
        vec!["summarize", "empty.json"],
        vec!["summarize", "deep.json"],
        vec!["summarize", bookings, "--artifact-dir", "a-file/store"],
        vec!["summarize", "ax://../../etc/passwd"],
        vec!["summarize", "ax://bookings/0123456789abcdef"],
        vec!["paginate", "ax:///etc/passwd"],
        vec!["estimate", "ax://Bookings/0123456789abcdef"],
        vec!["chunk", "ax://bookings/../0123456789abcdef"],
    ] {
        let out = mcpguard_in(d)
            .env("MCPGUARD_CURSOR_SECRET", "summarize-test")
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(code(&out), 2, "{args:?}: {}", transcript(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        report.push_str(&format!(
            "$ mcpguard {}\n{}\n",
            args.join(" "),
            transcript(&out)
        ));
    }
    // The failed store left nothing behind.
    assert_eq!(fs::read_dir(d).unwrap().count(), 4);
    settings(Some(d)).bind(|| insta::assert_snapshot!(report));
}

#[test]
fn a_map_of_records_is_summarized_as_a_collection() {
    let out = mcpguard_in(&common::root())
        .args([
            "summarize",
            "tests/fixtures/users-by-id-250.json",
            "--no-artifact",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["count"], 250);
    assert!(
        summary["summary"]
            .as_str()
            .unwrap()
            .starts_with("250 users keyed by id; showing 10"),
        "{summary}"
    );
    let shown = summary["data"].as_object().unwrap();
    assert_eq!(shown.len(), 10);
    assert!(shown.keys().all(|k| k.starts_with("usr_")));
    assert_eq!(
        summary["meta"]["detailsAvailable"]["command"]
            .as_str()
            .unwrap()
            .split(' ')
            .take(2)
            .collect::<Vec<_>>(),
        ["mcpguard", "paginate"]
    );

    // estimate folds the map's keys where it says where the tokens go; audit pages it.
    let est = mcpguard_in(&common::root())
        .args([
            "estimate",
            "tests/fixtures/users-by-id-250.json",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&est.stdout);
    assert!(text.contains("/users/{key}/email"), "{text}");
    assert!(!text.contains("/users/usr_"), "{text}");
    let audit = mcpguard_in(&common::root())
        .args([
            "audit",
            "tests/fixtures/users-by-id-250.json",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&audit.stdout);
    assert!(
        text.contains("a map of 250 records keyed by id with no hasMore or nextCursor, over 10"),
        "{text}"
    );
}
