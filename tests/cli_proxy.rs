//! `mcpguard proxy` over stdio, in front of the rmcp fixture server, driven by a client that
//! writes JSON-RPC lines as Claude Code does: what fits passes byte for byte (checked against
//! the same conversation without the proxy), what does not comes back within budget and is
//! read to the end through the injected tool, and every fault gets an answer.

mod common;

use std::path::Path;
use std::process::Command;

use common::live::fixture;
use common::session::{Session, WAIT};
use serde_json::{Value, json};

fn text_of(result: &Value) -> Vec<String> {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .collect()
}

fn budget_meta(result: &Value) -> &Value {
    &result["_meta"]["mcpguard/budget"]
}

/// The answer's cost as the proxy counted it, checked against the default budget.
fn assert_within_budget(result: &Value) {
    let meta = budget_meta(result);
    let tokens = meta["estimatedTokens"]
        .as_u64()
        .expect("budget fields in _meta");
    assert!(tokens <= 4000, "{tokens} tokens: {meta}");
    let bytes = serde_json::to_string(result).unwrap().len();
    assert!(bytes <= 10240 + 2048, "{bytes} bytes");
}

#[test]
fn what_fits_passes_byte_for_byte_and_the_injected_tool_is_listed_last() {
    let dir = tempfile::tempdir().unwrap();
    let mut direct = Session::direct(dir.path());
    let mut proxied = Session::proxy(dir.path(), &[], &[]);
    assert_eq!(proxied.initialize(), direct.initialize());

    let (theirs, ours) = (direct.tools_pages(), proxied.tools_pages());
    assert_eq!(ours.len(), theirs.len());
    let last = ours.len() - 1;
    assert_eq!(
        ours[..last],
        theirs[..last],
        "every page but the last is untouched"
    );
    let page: Value = serde_json::from_str(&ours[last]).unwrap();
    let names: Vec<&str> = page["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.last(), Some(&"mcpguard_more"), "{names:?}");
    let mut expected: Value = serde_json::from_str(&theirs[last]).unwrap();
    expected["result"]["tools"].as_array_mut().unwrap().push(
        page["result"]["tools"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone(),
    );
    assert_eq!(
        page, expected,
        "the last page gains the tool and nothing else"
    );

    for (tool, args) in [
        ("get_report", json!({"format": "json"})),
        ("search", json!({"query": "late arrival"})),
        ("delete_everything", json!({})),
    ] {
        let params = json!({"name": tool, "arguments": args});
        assert_eq!(
            proxied.request_raw("tools/call", params.clone()),
            direct.request_raw("tools/call", params),
            "{tool}: a result that fits passes as the same bytes"
        );
    }
    let (code, stderr) = proxied.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("get_report: passed through"), "{stderr}");
}

#[test]
fn an_oversized_list_comes_back_paged_and_the_pages_add_up_to_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let mut direct = Session::direct(dir.path());
    direct.initialize();
    let original = direct.call("list_bookings", json!({"status": "confirmed"}));
    let original: Value = serde_json::from_str(&text_of(&original)[0]).unwrap();
    let bookings = original["bookings"].as_array().unwrap();
    assert_eq!(bookings.len(), 300);

    let mut s = Session::proxy(dir.path(), &[], &[]);
    s.initialize();
    let first = s.call("list_bookings", json!({"status": "confirmed"}));
    assert_within_budget(&first);
    assert_eq!(budget_meta(&first)["outcome"], "paginated");
    let texts = text_of(&first);
    assert!(texts.last().unwrap().contains("mcpguard_more"), "{texts:?}");
    let reference = budget_meta(&first)["artifactRef"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(reference.starts_with("ax://list_bookings/"), "{reference}");

    let mut seen: Vec<Value> = Vec::new();
    let mut page = first;
    loop {
        let body: Value = serde_json::from_str(&text_of(&page)[0]).unwrap();
        seen.extend(body["bookings"].as_array().unwrap().iter().cloned());
        let Some(next) = page["nextCursor"].as_str().map(str::to_owned) else {
            break;
        };
        assert_eq!(body["nextCursor"], json!(next), "the page's own nextCursor");
        page = s.more(json!({ "cursor": next }));
        assert_ne!(page["isError"], json!(true), "{page}");
        assert_within_budget(&page);
    }
    assert_eq!(&seen, bookings, "every booking once, in the server's order");

    // `fields`: the records narrowed, paged the same way.
    let narrow = s.more(json!({"ref": reference, "fields": "id,totalPrice.amount", "limit": 100}));
    let body: Value = serde_json::from_str(&text_of(&narrow)[0]).unwrap();
    assert_eq!(
        body["items"][0],
        json!({"id": "bk_00000", "totalPrice.amount": 120})
    );
    assert_eq!(body["items"].as_array().unwrap().len(), 100);
    assert!(narrow["nextCursor"].is_string());
    // The full result is on disk, private to the user.
    let (code, _) = s.finish();
    assert_eq!(code, Some(0));
    let stored = std::fs::read_dir(dir.path().join(".mcpguard/artifacts/list_bookings"))
        .unwrap()
        .count();
    assert_eq!(stored, 1);
}

#[test]
fn long_or_unknown_fields_and_a_huge_ref_get_short_answers_and_usable_cursors() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::proxy(dir.path(), &[], &[]);
    s.initialize();
    let first = s.call("list_bookings", json!({}));
    let reference = reference_of(&first);
    let short = |result: &Value| {
        assert_eq!(result["isError"], json!(true), "{result}");
        let len = result.to_string().len();
        assert!(len < 3000, "{len} bytes: {:.300}", result.to_string());
        text_of(result).join(" ")
    };
    // A field no booking has is named, not answered with empty records.
    let said = short(&s.more(json!({"ref": reference, "fields": "id,nope"})));
    assert!(said.contains("`nope`") && said.contains("status"), "{said}");
    // 10,000 unknown names: refused in a few lines.
    let many: Vec<String> = (0..10_000).map(|i| format!("field_{i}")).collect();
    let said = short(&s.more(json!({"ref": reference, "fields": many.join(",")})));
    assert!(said.contains("fewer fields"), "{said}");
    // A megabyte where a reference goes is not echoed back.
    let said = short(&s.more(json!({"ref": format!("ax://{}", "a".repeat(1 << 20))})));
    assert!(said.contains("ax://DOMAIN/ID"), "{said}");
    // The longest question taken issues cursors the tool then takes.
    let known = "id,status,guestName,totalPrice.amount";
    let longest: String = std::iter::repeat_n(known, 1536 / (known.len() + 1))
        .collect::<Vec<_>>()
        .join(",");
    let page = s.more(json!({"ref": reference, "fields": longest, "limit": 5}));
    assert_ne!(page["isError"], json!(true), "{page}");
    let next = page["nextCursor"].as_str().expect("a next page").to_owned();
    let again = s.more(json!({ "cursor": next }));
    assert_ne!(again["isError"], json!(true), "{again}");
    assert_within_budget(&again);
}

#[test]
fn a_300_kb_log_is_read_in_chunks_that_add_up_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let mut direct = Session::direct(dir.path());
    direct.initialize();
    let original = text_of(&direct.call("read_log", json!({})))[0].clone();
    assert!(original.len() > 300_000);

    let mut s = Session::proxy(dir.path(), &[], &[]);
    s.initialize();
    let mut page = s.call("read_log", json!({}));
    assert_eq!(budget_meta(&page)["outcome"], "chunked");
    let reference = budget_meta(&page)["artifactRef"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut joined = String::new();
    let mut chunks = 0;
    loop {
        assert_within_budget(&page);
        let texts = text_of(&page);
        assert_eq!(
            texts.len(),
            2,
            "the chunk, then the line that says how to go on"
        );
        joined.push_str(&texts[0]);
        chunks += 1;
        let Some(next) = page["nextCursor"].as_str().map(str::to_owned) else {
            assert!(texts[1].contains("the end"), "{}", texts[1]);
            break;
        };
        page = s.more(json!({ "cursor": next }));
    }
    assert!(chunks > 10, "{chunks} chunks");
    assert_eq!(joined, original, "the chunks are the log, byte for byte");

    // A line range, and a range too big for one answer: what fits, and where to go on.
    let range = s.more(json!({"ref": reference, "lines": "101-120"}));
    let want: String = original.split_inclusive('\n').skip(100).take(20).collect();
    assert_eq!(text_of(&range)[0], want);
    let wide = s.more(json!({"ref": reference, "lines": "1-999999999"}));
    assert_within_budget(&wide);
    let texts = text_of(&wide);
    let shown = texts[0].lines().count();
    assert!(shown > 10 && shown < 4000, "{shown} lines");
    let want: String = original.split_inclusive('\n').take(shown).collect();
    assert_eq!(texts[0], want);
    assert!(
        texts[1].contains("did not fit")
            && texts[1].contains(&format!(
                "\"lines\":\"{}-{}\"",
                shown + 1,
                original.lines().count()
            )),
        "{}",
        texts[1]
    );

    // One line over the budget by itself (5 MB on one line): its start, within budget, and
    // the way on, never the whole line.
    let huge = s.call("huge", json!({}));
    let reference = budget_meta(&huge)["artifactRef"]
        .as_str()
        .unwrap()
        .to_owned();
    let line = s.more(json!({"ref": reference, "lines": "1-1"}));
    assert_within_budget(&line);
    let texts = text_of(&line);
    assert!(
        texts[0].len() > 1000 && texts[0].bytes().all(|b| b == b'x'),
        "{} bytes",
        texts[0].len()
    );
    assert!(
        texts[1].contains("Line 1 of 1 is longer than the budget")
            && texts[1].contains(&format!("{{\"ref\":\"{reference}\"}}")),
        "{}",
        texts[1]
    );
}

#[test]
fn forged_stale_and_escaping_requests_of_the_tool_get_errors_that_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::proxy(dir.path(), &[], &[]);
    s.initialize();
    let first = s.call("list_bookings", json!({"status": "confirmed"}));
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    // One character changed in the signed payload.
    let mut forged = cursor.into_bytes();
    forged[20] = if forged[20] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).unwrap();
    for (args, says) in [
        (json!({"cursor": forged}), "call the original tool again"),
        (
            json!({"cursor": "bm90IGEgY3Vyc29y"}),
            "call the original tool again",
        ),
        (
            json!({"ref": "ax://../../etc/passwd"}),
            "not an artifact reference",
        ),
        (
            json!({"ref": "ax://list_bookings/0123456789abcdef"}),
            "has expired",
        ),
        (
            json!({"ref": "ax://x/0123456789abcdef", "path": "/"}),
            "unknown argument `path`",
        ),
        (json!({}), "give `ref`"),
        (
            json!({"ref": "ax://x/0123456789abcdef", "limit": 0}),
            "`limit`",
        ),
    ] {
        let answer = s.more(args.clone());
        assert_eq!(answer["isError"], json!(true), "{args}: {answer}");
        let text = text_of(&answer).join(" ");
        assert!(text.contains(says), "{args}: {text}");
    }
    // The session is fine afterwards.
    assert_eq!(
        budget_meta(&s.call("list_bookings", json!({"status": "confirmed"})))["outcome"],
        "paginated"
    );
}

#[test]
fn a_hung_call_times_out_and_the_session_lives_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::proxy(dir.path(), &["--timeout", "1"], &[]);
    s.initialize();
    let hung = s.request("tools/call", json!({"name": "hang", "arguments": {}}));
    assert_eq!(hung["error"]["code"], json!(-32001), "{hung}");
    assert!(
        hung["error"]["message"]
            .as_str()
            .unwrap()
            .contains("within 1 s")
    );
    let report = s.call("get_report", json!({"format": "json"}));
    assert_eq!(report["structuredContent"]["week"], "2026-W47");
    // A line the server writes that is not JSON is skipped; its call is still answered.
    let garbage = s.call("garbage", json!({}));
    assert_eq!(text_of(&garbage), ["garbage written"]);
    // The client's own garbage gets a parse error and nothing reaches the server.
    s.send_raw("this is not json");
    let answer: Value = serde_json::from_str(&s.line()).unwrap();
    assert_eq!(answer["error"]["code"], json!(-32700));
    // The log is read on a thread of its own: waited for, not sampled.
    s.wait_stderr("not JSON-RPC on stdout; skipped");
    s.wait_stderr("hang: no answer in 1 s");
}

#[test]
fn a_flood_over_the_message_cap_is_an_error_for_its_call_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::proxy(dir.path(), &["--max-message-bytes", "1000000"], &[]);
    s.initialize();
    let flood = s.request("tools/call", json!({"name": "huge", "arguments": {}}));
    assert_eq!(flood["error"]["code"], json!(-32000), "{flood}");
    assert!(
        flood["error"]["message"]
            .as_str()
            .unwrap()
            .contains("over 1000000 bytes")
    );
    let report = s.call("get_report", json!({"format": "json"}));
    assert_eq!(report["structuredContent"]["nights"], 143);
}

#[test]
fn a_result_serde_json_refuses_comes_back_shrunk_and_readable_never_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::proxy(dir.path(), &[], &[]);
    s.initialize();
    for kind in ["surrogate", "bignum", "deep"] {
        let line = s.request_raw(
            "tools/call",
            json!({"name": "unreadable", "arguments": {"kind": kind}}),
        );
        assert!(
            line.len() < 20_000,
            "{kind}: {} bytes reached the client",
            line.len()
        );
        let answer: Value = serde_json::from_str(&line).unwrap();
        let result = &answer["result"];
        assert_within_budget(result);
        assert!(budget_meta(result)["originalBytes"].as_u64().unwrap() > 300_000);
        // The way back reads the whole of it, in budget-sized pieces.
        let reference = reference_of(result);
        let more = s.more(json!({"ref": reference}));
        assert_within_budget(&more);
        assert!(text_of(&more)[0].contains("word word"), "{kind}: {more}");
    }
    // The two it could not repair are said to be read as text.
    assert_eq!(
        s.stderr().matches("is not JSON mcpguard can read").count(),
        2,
        "{}",
        s.stderr()
    );
}

#[test]
fn a_server_that_dies_mid_call_answers_with_an_error_and_its_status() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::proxy(dir.path(), &[], &[]);
    s.initialize();
    let crashed = s.request("tools/call", json!({"name": "crash", "arguments": {}}));
    assert_eq!(crashed["error"]["code"], json!(-32000), "{crashed}");
    assert!(
        crashed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exited with status 3"),
        "{crashed}"
    );
    let (code, stderr) = s.finish();
    assert_eq!(
        code,
        Some(3),
        "the proxy exits with the server's status: {stderr}"
    );
}

#[test]
fn a_result_with_an_output_schema_stays_valid_against_it_when_shrunk() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpguard.yaml"),
        "endpoints:\n  get_report:\n    tokenBudgetThreshold: 300\n",
    )
    .unwrap();
    let mut s = Session::proxy(dir.path(), &[], &[]);
    s.initialize();
    let pages = s.tools_pages();
    let schema = pages
        .iter()
        .flat_map(|p| {
            serde_json::from_str::<Value>(p).unwrap()["result"]["tools"]
                .as_array()
                .unwrap()
                .clone()
        })
        .find(|t| t["name"] == "get_report")
        .unwrap()["outputSchema"]
        .clone();
    // A 2,000-character argument comes back in the report: over maxStringLength and the budget.
    let report = s.call(
        "get_report",
        json!({"format": "a format name ".repeat(150)}),
    );
    assert_eq!(budget_meta(&report)["outcome"], "summarized", "{report}");
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(
        validator.is_valid(&report["structuredContent"]),
        "{}",
        report["structuredContent"]
    );

    // A client that calls without listing the tools first (a stateless client does): the
    // proxy has not seen the schema, and the summary still keeps structuredContent in the
    // shape the server sent, so it validates against the schema the client has.
    let mut unlisted = Session::proxy(dir.path(), &[], &[]);
    unlisted.initialize();
    let report = unlisted.call(
        "get_report",
        json!({"format": "a format name ".repeat(150)}),
    );
    assert_eq!(budget_meta(&report)["outcome"], "summarized", "{report}");
    assert!(
        validator.is_valid(&report["structuredContent"]),
        "{}",
        report["structuredContent"]
    );
}

#[test]
fn a_config_edit_changes_the_next_response_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcpguard.yaml");
    std::fs::write(
        &config,
        "tokenBudgetThreshold: 100000\nhardCap: 200000\nlimits:\n  maxBytes: 1000000\n  maxArrayItems: 1000\n  maxStringLength: 100000\n",
    )
    .unwrap();
    let mut direct = Session::direct(dir.path());
    direct.initialize();
    let params = json!({"name": "list_bookings", "arguments": {"status": "confirmed"}});
    let unchanged = direct.request_raw("tools/call", params.clone());

    let metrics = dir.path().join("calls.jsonl");
    let mut s = Session::proxy(dir.path(), &["--metrics", metrics.to_str().unwrap()], &[]);
    s.initialize();
    assert_eq!(
        s.request_raw("tools/call", params.clone()),
        unchanged,
        "within the raised limits"
    );

    std::fs::write(&config, "tokenBudgetThreshold: 2000\n").unwrap();
    s.wait_stderr("config reloaded: tokenBudgetThreshold 100000 -> 2000");
    let paged: Value = serde_json::from_str(&s.request_raw("tools/call", params.clone())).unwrap();
    let meta = budget_meta(&paged["result"]);
    assert_eq!(meta["outcome"], "paginated");
    assert_eq!(meta["tokenBudget"], 2000);
    assert!(meta["estimatedTokens"].as_u64().unwrap() <= 2000, "{meta}");

    // A broken file keeps the last good config, and says why.
    std::fs::write(&config, "tokenBudgetThreshold: lots\n").unwrap();
    s.wait_stderr("not reloaded, the last good config stays");
    let still: Value = serde_json::from_str(&s.request_raw("tools/call", params)).unwrap();
    assert_eq!(budget_meta(&still["result"])["tokenBudget"], 2000);

    let (code, _) = s.finish();
    assert_eq!(code, Some(0));
    let records: Vec<Value> = std::fs::read_to_string(&metrics)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let calls: Vec<&Value> = records
        .iter()
        .filter(|r| r["method"] == "tools/call")
        .collect();
    let outcomes: Vec<&str> = calls
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["passthrough", "paginated", "paginated"]);
    assert!(calls[1]["tokensBefore"].as_u64().unwrap() > calls[1]["tokensAfter"].as_u64().unwrap());
    assert!(calls[1]["bytesBefore"].as_u64().unwrap() > 80_000);
    assert_eq!(calls[1]["paginationUsed"], true);
    assert!(records.iter().any(|r| r["method"] == "initialize"));

    // `audit --from-metrics` reads the proxy's records.
    let out = common::mcpguard_in(dir.path())
        .args(["audit", "--from-metrics", "calls.jsonl", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(common::code(&out), 0, "{}", common::transcript(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows: Vec<(String, String, u64)> = summary
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["tool"] == "list_bookings")
        .map(|r| {
            (
                r["tool"].as_str().unwrap().to_owned(),
                r["outcome"].as_str().unwrap().to_owned(),
                r["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("list_bookings".into(), "paginated".into(), 2),
            ("list_bookings".into(), "plain".into(), 1)
        ]
    );
}

#[test]
fn shadow_mode_changes_nothing_and_records_what_it_would_have_done() {
    let dir = tempfile::tempdir().unwrap();
    let mut direct = Session::direct(dir.path());
    direct.initialize();
    let params = json!({"name": "list_bookings", "arguments": {"status": "confirmed"}});
    let unchanged = direct.request_raw("tools/call", params.clone());
    let direct_pages = direct.tools_pages();

    let metrics = dir.path().join("shadow.jsonl");
    let mut s = Session::proxy(
        dir.path(),
        &[
            "--shadow",
            "--log-format",
            "json",
            "--metrics",
            metrics.to_str().unwrap(),
        ],
        &[],
    );
    s.initialize();
    assert_eq!(s.request_raw("tools/call", params), unchanged);
    assert_eq!(
        s.tools_pages(),
        direct_pages,
        "no tool is added in shadow mode"
    );
    let (_, stderr) = s.finish();
    let decision: Value = stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["outcome"] == "paginated")
        .unwrap_or_else(|| panic!("{stderr}"));
    assert_eq!(decision["shadow"], true);
    assert!(
        decision["message"]
            .as_str()
            .unwrap()
            .contains("would be paginated")
    );
    let record: Value = std::fs::read_to_string(&metrics)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["method"] == "tools/call")
        .unwrap();
    assert_eq!(record["shadow"], true);
    assert_eq!(record["outcome"], "paginated");
    assert_eq!(record["bytesAfter"], record["bytesBefore"]);
}

#[test]
fn a_2026_07_28_client_passes_through_and_gets_modern_answers_from_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::proxy(dir.path(), &[], &[]);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}});
    let discover = s.request("server/discover", json!({"_meta": meta}));
    assert!(
        discover["result"]["supportedVersions"]
            .to_string()
            .contains("2026-07-28"),
        "{discover}"
    );
    let first = s.request(
        "tools/call",
        json!({"name": "read_log", "arguments": {}, "_meta": meta}),
    )["result"]
        .clone();
    assert_eq!(
        first["resultType"], "complete",
        "carried over from the server's result"
    );
    let next = s.request(
        "tools/call",
        json!({"name": "mcpguard_more", "arguments": {"cursor": first["nextCursor"]}, "_meta": meta}),
    )["result"]
        .clone();
    assert_eq!(next["resultType"], "complete");
    assert!(text_of(&next)[1].contains("(chunk 2"), "{next}");
}

#[test]
fn bad_invocations_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::mcpguard_in(dir.path())
        .arg("proxy")
        .output()
        .unwrap();
    assert_eq!(common::code(&out), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("give its command after --"));
    let out = common::mcpguard_in(dir.path())
        .args(["proxy", "--", "/nonexistent/mcp-server"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(common::code(&out), 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot start the server `/nonexistent/mcp-server`")
            && stderr.contains("on PATH"),
        "{stderr}"
    );
}

#[test]
fn artifacts_are_listed_shown_and_cleared_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut direct = Session::direct(dir.path());
    direct.initialize();
    let original = direct.call("read_log", json!({}));
    let mut s = Session::proxy(dir.path(), &[], &[]);
    s.initialize();
    let first = s.call("read_log", json!({}));
    let reference = budget_meta(&first)["artifactRef"]
        .as_str()
        .unwrap()
        .to_owned();
    s.finish();

    let run = |args: &[&str]| common::mcpguard_in(dir.path()).args(args).output().unwrap();
    let listed = run(&["artifacts", "list", "--format", "json"]);
    assert_eq!(common::code(&listed), 0);
    let entries: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(entries[0]["reference"], json!(reference), "{entries}");
    assert!(entries[0]["bytes"].as_u64().unwrap() > 380_000);
    let shown = run(&["artifacts", "show", &reference]);
    assert_eq!(common::code(&shown), 0);
    let stored: Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(
        stored["content"], original["content"],
        "the full result, as the server sent it"
    );
    let escaping = run(&["artifacts", "show", "ax://../../etc/passwd"]);
    assert_eq!(common::code(&escaping), 2);
    // Nothing has expired at an hour; everything has at no time at all.
    let kept = run(&["artifacts", "gc"]);
    assert!(String::from_utf8_lossy(&kept.stdout).starts_with("removed 0 artifacts"));
    let cleared = run(&["artifacts", "gc", "--ttl", "0s"]);
    assert!(String::from_utf8_lossy(&cleared.stdout).starts_with("removed 1 artifacts"));
    assert_eq!(common::code(&run(&["artifacts", "show", &reference])), 1);
}

#[test]
fn a_store_that_cannot_be_written_degrades_to_a_preview_never_to_the_full_result() {
    let dir = tempfile::tempdir().unwrap();
    // A file where the store's directory should be: every write fails.
    std::fs::write(dir.path().join("blocked"), "not a directory").unwrap();
    let mut s = Session::proxy(dir.path(), &["--artifact-dir", "blocked/store"], &[]);
    s.initialize();
    let result = s.call("read_log", json!({}));
    assert_within_budget(&result);
    assert_eq!(budget_meta(&result)["outcome"], "summarized", "{result}");
    assert!(budget_meta(&result).get("artifactRef").is_none());
    assert!(!text_of(&result).join(" ").contains("ax://"));
    s.wait_stderr("the artifact store failed");
}

#[test]
fn install_rewrites_a_client_config_atomically_with_a_backup_and_uninstall_undoes_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".mcp.json");
    let original = r#"{
  "mcpServers": {
    "git": {"type": "stdio", "command": "uvx", "args": ["mcp-server-git", "--repository", "."], "env": {"TOKEN": "${GIT_TOKEN}"}},
    "remote": {"type": "http", "url": "https://example.com/mcp"}
  }
}"#;
    std::fs::write(&config, original).unwrap();
    let run = |args: &[&str]| common::mcpguard_in(dir.path()).args(args).output().unwrap();

    let out = run(&["install", "--mcpguard", "mcpguard", "--", "--shadow"]);
    assert_eq!(common::code(&out), 0, "{}", common::transcript(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("git: now starts through mcpguard proxy"),
        "{stdout}"
    );
    assert!(
        stdout.contains("remote: now reaches its URL through mcpguard proxy --url"),
        "{stdout}"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(
        doc["mcpServers"]["git"],
        json!({"type": "stdio", "command": "mcpguard",
               "args": ["proxy", "--shadow", "--", "uvx", "mcp-server-git", "--repository", "."],
               "env": {"TOKEN": "${GIT_TOKEN}"}})
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".mcp.json.mcpguard-backup")).unwrap(),
        original
    );
    let installed = std::fs::read(&config).unwrap();
    let again = run(&["install", "--mcpguard", "mcpguard"]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("nothing to change"));
    assert_eq!(std::fs::read(&config).unwrap(), installed, "idempotent");

    assert_eq!(
        doc["mcpServers"]["remote"],
        json!({"type": "stdio", "command": "mcpguard",
               "args": ["proxy", "--shadow", "--remote-entry", "url:http", "--url", "https://example.com/mcp"]})
    );

    let out = run(&["uninstall", "--name", "git"]);
    assert_eq!(common::code(&out), 0);
    // Only `command` and `args` were written, in place: uninstall gives the bytes back.
    let restored = std::fs::read_to_string(&config).unwrap();
    let git_line = original.lines().nth(2).unwrap();
    assert!(restored.contains(git_line), "{restored}");
    // The remote entry comes back in its own shape (the inline object now on several lines).
    let out = run(&["uninstall", "--name", "remote"]);
    assert_eq!(common::code(&out), 0);
    let restored: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(restored, serde_json::from_str::<Value>(original).unwrap());

    let unknown = run(&["install", "--name", "github"]);
    assert_eq!(common::code(&unknown), 2);
    assert!(
        String::from_utf8_lossy(&unknown.stderr)
            .contains("no server named github; it has git, remote")
    );
    std::fs::write(&config, "{\"mcpServers\": {\n  \"a\": ,\n}").unwrap();
    let broken = run(&["install"]);
    assert_eq!(common::code(&broken), 2);
    let stderr = String::from_utf8_lossy(&broken.stderr);
    assert!(
        stderr.contains(".mcp.json:2:") && stderr.contains("nothing was changed"),
        "{stderr}"
    );
}

#[test]
fn a_client_that_writes_its_requests_and_closes_still_gets_every_answer() {
    let dir = tempfile::tempdir().unwrap();
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "pipe", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read_log", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_report", "arguments": {"format": "json"}}}),
    ]
    .iter()
    .map(|r| format!("{r}\n"))
    .collect::<String>();
    let out = common::mcpguard_in(dir.path())
        .args(["proxy", "--quiet", "--"])
        .arg(fixture())
        .write_stdin(requests)
        .timeout(WAIT)
        .output()
        .unwrap();
    assert_eq!(common::code(&out), 0, "{}", common::transcript(&out));
    // The server answers concurrent calls in the order they finish; every one arrives.
    let mut ids: Vec<u64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_u64()
                .unwrap()
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3]);
}

#[test]
fn an_input_required_result_passes_as_the_server_wrote_it() {
    let dir = tempfile::tempdir().unwrap();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let params = json!({"name": "get_report", "arguments": {"format": "json"}, "_meta": meta});
    let mut direct = Session::spawn(
        {
            let mut c = Command::new(fixture());
            c.args(["--fault", "input-required"]);
            c
        },
        dir.path(),
    );
    let theirs = direct.request_raw("tools/call", params.clone());
    let mut s = Session::proxy(dir.path(), &[], &["--fault", "input-required"]);
    let ours = s.request_raw("tools/call", params);
    assert!(ours.contains("\"input_required\""), "{ours}");
    assert_eq!(ours, theirs);
}

#[test]
fn a_tiered_catalog_lists_the_most_used_tools_and_finds_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpguard.yaml"),
        "catalog: tiered\ncatalogHotTools: 3\n",
    )
    .unwrap();
    // Earlier sessions' records: read_log and get_report are the ones in use.
    let now = mcpguard::reshape::cursor::iso_time(mcpguard::reshape::cursor::now());
    let mut records = String::new();
    for (tool, n) in [("read_log", 30), ("get_report", 20), ("crash", 1)] {
        for _ in 0..n {
            let outcome = if tool == "crash" {
                "error"
            } else {
                "passthrough"
            };
            records.push_str(&format!(
                "{}\n",
                json!({"method": "tools/call", "tool": tool, "outcome": outcome, "upstreamMs": 40.0, "time": now})
            ));
        }
    }
    std::fs::write(dir.path().join("calls.jsonl"), records).unwrap();
    let mut s = Session::proxy(dir.path(), &["--metrics", "calls.jsonl"], &[]);
    s.initialize();
    let listed = |s: &mut Session| -> Vec<String> {
        s.tools_pages()
            .iter()
            .flat_map(|p| {
                serde_json::from_str::<Value>(p).unwrap()["result"]["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["name"].as_str().unwrap().to_owned())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    assert_eq!(
        listed(&mut s),
        [
            "get_report",
            "crash",
            "read_log",
            "mcpguard_more",
            "mcpguard_find_tools",
            "mcpguard_describe_tools",
            "mcpguard_call_tool"
        ],
        "scored by seed 004: read_log and get_report 0.59, crash 0.29 (fast, recent, never worked), the rest never called"
    );
    // A tool that is not listed still goes through, directly and through mcpguard_call_tool
    // (the same answer, shrunk or not as any call).
    let searched = s.call("search", json!({"query": "late"}));
    assert_eq!(
        text_of(&searched),
        ["no results for Some(String(\"late\"))"]
    );
    let through = s.call(
        "mcpguard_call_tool",
        json!({"name": "search", "arguments": {"query": "late"}}),
    );
    assert_eq!(through, searched);
    let refused = s.call("mcpguard_call_tool", json!({"arguments": {}}));
    assert_eq!(refused["isError"], json!(true), "{refused}");
    // Without a query: how many tools there are (T1).
    let overview = s.call("mcpguard_find_tools", json!({}));
    assert!(
        text_of(&overview)[0].starts_with("10 tools of 1 server:\nthis server: 10 tools ("),
        "{overview}"
    );
    // A request in the words of a person, not of the tool's description.
    let found = s.call(
        "mcpguard_find_tools",
        json!({"query": "look for a booking by words in it", "limit": 3}),
    );
    let found = &text_of(&found)[0];
    assert!(
        found.starts_with("search: Full-text search over bookings."),
        "{found}"
    );
    assert_eq!(
        found.lines().take_while(|l| !l.is_empty()).count(),
        3,
        "{found}"
    );
    let nothing = s.call("mcpguard_find_tools", json!({"query": "zebra"}));
    assert!(
        text_of(&nothing)[0].starts_with("No tool matches \"zebra\""),
        "{nothing}"
    );
    let described = s.call(
        "mcpguard_describe_tools",
        json!({"names": ["search", "nope"]}),
    );
    let texts = text_of(&described);
    let definitions: Value = serde_json::from_str(&texts[0]).unwrap();
    assert_eq!(definitions[0]["inputSchema"]["required"], json!(["query"]));
    assert_eq!(definitions.as_array().unwrap().len(), 1);
    assert!(
        texts[1].starts_with("No tool named [\"nope\"]"),
        "{texts:?}"
    );
    assert!(
        s.between
            .iter()
            .any(|m| m["method"] == "notifications/tools/list_changed"),
        "{:?}",
        s.between
    );
    assert!(
        listed(&mut s).contains(&"search".to_owned()),
        "described, so listed"
    );
    let unknown = s.call("mcpguard_describe_tools", json!({"names": ["nope"]}));
    assert_eq!(unknown["isError"], json!(true));
}

#[cfg(target_os = "linux")]
#[test]
fn a_killed_proxy_takes_its_server_with_it() {
    let dir = tempfile::tempdir().unwrap();
    // A server that ignores its stdin closing: only a signal can end it.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpguard"));
    cmd.args(["proxy", "--", "sh", "-c", "exec sleep 300"]);
    let mut s = Session::spawn(cmd, dir.path());
    // Its children: the server, once it is `sleep`, and the warden.
    let (servers, warden) = common::processes::until_started(s.child.id(), "sleep", 2);
    // SIGKILL: no handler runs, no guard drops.
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    assert!(
        common::processes::exits_within(servers[0], WAIT),
        "the server {servers:?} outlived the proxy"
    );
    assert!(
        common::processes::exits_within(warden, WAIT),
        "the warden {warden} outlived the proxy and its server"
    );
}

/// `mcpguard proxy --url URL ARGS`: the stdio bridge, run in `dir`.
fn bridge(dir: &Path, url: &str, args: &[&str]) -> Session {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcpguard"));
    cmd.args(["proxy", "--url", url])
        .args(args)
        .env("MCPGUARD_OAUTH_STORE", dir.join("oauth"));
    Session::spawn(cmd, dir)
}

#[test]
fn the_stdio_bridge_shrinks_a_remote_servers_log_and_reads_it_back_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    let mut direct = Session::direct(dir.path());
    direct.initialize();
    let original = text_of(&direct.call("read_log", json!({})))[0].clone();
    let remote = common::live::HttpFixture::start(None);

    // 2025-11-25: initialize, a session, the log in chunks through mcpguard_more.
    let mut s = bridge(dir.path(), &remote.url, &[]);
    let answer: Value = serde_json::from_str(&s.initialize()).unwrap();
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-11-25",
        "{answer}"
    );
    let mut names = Vec::new();
    for page in s.tools_pages() {
        let page: Value = serde_json::from_str(&page).unwrap();
        for tool in page["result"]["tools"].as_array().unwrap() {
            names.push(tool["name"].as_str().unwrap().to_owned());
        }
    }
    assert!(names.contains(&"read_log".to_owned()), "{names:?}");
    assert_eq!(names.last().map(String::as_str), Some("mcpguard_more"));
    let mut page = s.call("read_log", json!({}));
    assert_eq!(budget_meta(&page)["outcome"], "chunked");
    let mut joined = String::new();
    loop {
        assert_within_budget(&page);
        joined.push_str(&text_of(&page)[0]);
        let Some(next) = page["nextCursor"].as_str().map(str::to_owned) else {
            break;
        };
        page = s.more(json!({ "cursor": next }));
    }
    assert_eq!(
        joined, original,
        "the chunks are the remote log, byte for byte"
    );
    let (code, log) = s.finish();
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains(&format!("proxying {}", remote.url)), "{log}");

    // 2026-07-28: no initialize; the request's _meta gives the era (and the HTTP headers).
    let mut s = bridge(dir.path(), &remote.url, &[]);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bridge-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}});
    let answer = s.request(
        "tools/call",
        json!({"name": "read_log", "arguments": {}, "_meta": meta}),
    );
    let first = &answer["result"];
    assert_eq!(budget_meta(first)["outcome"], "chunked", "{answer}");
    assert!(original.starts_with(&text_of(first)[0]));
}

#[test]
fn the_stdio_bridge_opens_its_get_stream_before_the_next_request() {
    // A 2025-11-25 server may answer a request on the session's GET stream while it is open;
    // the fixture answers that GET after 500 ms and refuses a tools/list sent meanwhile.
    let dir = tempfile::tempdir().unwrap();
    let remote = common::live::HttpFixture::start(Some("slow-get"));
    let mut s = bridge(dir.path(), &remote.url, &[]);
    s.initialize();
    let mut names = Vec::new();
    for page in s.tools_pages() {
        let page: Value = serde_json::from_str(&page).unwrap();
        let tools = page["result"]["tools"].as_array();
        for tool in tools.unwrap_or_else(|| panic!("{page}")) {
            names.push(tool["name"].as_str().unwrap_or_default().to_owned());
        }
    }
    assert!(names.iter().any(|n| n == "read_log"), "{names:?}");
    let (code, log) = s.finish();
    assert_eq!(code, Some(0), "{log}");
}

#[test]
fn the_stdio_bridge_answers_each_request_with_an_error_when_the_server_cannot_be_reached() {
    let dir = tempfile::tempdir().unwrap();
    let (_held, port) = common::listen::refused_port();
    // A lost answer would come back as the proxy's own timeout, well inside the test's wait,
    // and fail the assertion below with what happened.
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut s = bridge(dir.path(), &url, &["--timeout", "10"]);
    let answer: Value = serde_json::from_str(&s.initialize()).unwrap();
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("{url} could not be reached"))
            && message.contains("Connection refused"),
        "{answer}"
    );
    // The session lives on (the next request gets its own answer), and ends with the client.
    let again = s.request("tools/list", json!({}));
    assert!(again["error"]["message"].is_string(), "{again}");
    let (code, _) = s.finish();
    assert_eq!(code, Some(0));
}

/// The reference a shrunk answer points at.
fn reference_of(result: &Value) -> String {
    budget_meta(result)["artifactRef"]
        .as_str()
        .unwrap_or_else(|| panic!("no artifactRef: {result}"))
        .to_owned()
}

fn tokens_of(result: &Value) -> u64 {
    budget_meta(result)["estimatedTokens"].as_u64().unwrap()
}

#[test]
fn the_fatal_entries_of_a_10000_line_log_come_back_whole_in_a_few_calls() {
    let dir = tempfile::tempdir().unwrap();
    let args = json!({"lines": 10_000, "fatal": true});
    let mut direct = Session::direct(dir.path());
    direct.initialize();
    let log = text_of(&direct.call("read_log", args.clone()))[0].clone();
    let lines: Vec<&str> = log.split_inclusive('\n').collect();
    // The FATAL entries as the log has them: the line and its indented stack trace.
    let want: Vec<String> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains(" FATAL "))
        .map(|(i, _)| {
            let mut entry = lines[i].to_owned();
            entry.extend(
                lines[i + 1..]
                    .iter()
                    .take_while(|l| l.starts_with("    at "))
                    .copied(),
            );
            entry
        })
        .collect();
    assert!(want.len() > 20, "{} FATAL entries", want.len());

    let metrics = dir.path().join("calls.jsonl");
    let mut s = Session::proxy(dir.path(), &["--metrics", metrics.to_str().unwrap()], &[]);
    s.initialize();
    let first = s.call("read_log", args);
    assert_eq!(budget_meta(&first)["outcome"], "chunked");
    let reference = reference_of(&first);
    // The shrunk result says a search is there.
    let howto = text_of(&first).last().unwrap().clone();
    assert!(howto.contains("\"match\""), "{howto}");

    // Paging through everything, for comparison.
    let (mut paged_tokens, mut paged_calls) = (tokens_of(&first), 1);
    let mut page = first.clone();
    while let Some(next) = page["nextCursor"].as_str().map(str::to_owned) {
        page = s.more(json!({ "cursor": next }));
        paged_tokens += tokens_of(&page);
        paged_calls += 1;
    }

    let mut answer = s.more(json!({"ref": reference, "match": "FATAL"}));
    let head = text_of(&answer)[0].clone();
    assert!(
        head.contains(&format!(
            "{} log entries match `FATAL` in 10,000 lines (log)",
            want.len()
        )),
        "{head}"
    );
    let (mut got, mut calls, mut tokens) = (Vec::new(), 1, 0);
    loop {
        assert_within_budget(&answer);
        tokens += tokens_of(&answer);
        let texts = text_of(&answer);
        // Blocks: `--- lines A-B` then the entry, whole.
        for block in texts[1].split("--- lines ").skip(1) {
            let (range, text) = block.split_once('\n').unwrap();
            let (a, b) = range.split_once('-').unwrap();
            let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
            assert_eq!(text, lines[a - 1..b].concat(), "lines {a}-{b}");
            got.push(text.to_owned());
        }
        let Some(next) = answer["nextCursor"].as_str().map(str::to_owned) else {
            break;
        };
        answer = s.more(json!({ "cursor": next }));
        calls += 1;
    }
    assert_eq!(got, want, "every FATAL entry, whole, once, in order");
    assert!(calls <= 3, "{calls} calls");
    assert!(
        tokens * 5 < paged_tokens,
        "the search cost {tokens} tokens in {calls} calls; paging through it all {paged_tokens} in {paged_calls}"
    );
    eprintln!(
        "FATAL entries: {} in {calls} calls, {tokens} tokens; paging through the log: {paged_calls} calls, {paged_tokens} tokens",
        got.len()
    );

    // Context lines around each match, as lines of the log.
    let around = s.more(json!({"ref": reference, "match": "FATAL", "context": 1, "limit": 2}));
    let texts = text_of(&around);
    let block = texts[1].split("--- lines ").nth(1).unwrap();
    let (range, text) = block.split_once('\n').unwrap();
    let (a, b) = range.split_once('-').unwrap();
    let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
    assert_eq!(text, lines[a - 1..b].concat());
    assert!(
        lines[a - 1].contains(" INFO ") && lines[a].contains(" FATAL "),
        "{text}"
    );
    assert_eq!(texts[1].matches("--- lines ").count(), 2, "limit: 2 blocks");
    let next = s.more(json!({"cursor": around["nextCursor"]}));
    let texts = text_of(&next);
    assert!(texts[0].contains("showing 3-4."), "{}", texts[0]);
    assert_eq!(
        texts[1].matches("--- lines ").count(),
        2,
        "the cursor keeps the limit"
    );

    // Nothing matches: an answer, not an error.
    let none = s.more(json!({"ref": reference, "match": "(?i)segfault"}));
    assert!(none.get("isError").is_none(), "{none}");
    assert!(text_of(&none)[0].contains("No log entry matches"), "{none}");

    // The records say how the model read, and how many calls each reading took.
    let (code, _) = s.finish();
    assert_eq!(code, Some(0));
    let records: Vec<Value> = std::fs::read_to_string(&metrics)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ended = |way: &str| -> Vec<&Value> {
        records
            .iter()
            .filter(|r| r["moreWay"] == way && r["moreReachedEnd"] == true)
            .collect()
    };
    let read = ended("read");
    assert_eq!(read.len(), 1);
    assert_eq!(read[0]["moreCalls"], paged_calls - 1, "{}", read[0]);
    assert_eq!(read[0]["moreArguments"], json!(["cursor"]));
    let searches = ended("match");
    assert_eq!(searches[0]["moreCalls"], calls);
    assert_eq!(searches[0]["moreArguments"], json!(["ref", "match"]));
    assert_eq!(searches[0]["artifactRef"], json!(reference));
    // The report draws it.
    let page = Command::new(env!("CARGO_BIN_EXE_mcpguard"))
        .args(["audit", "--from-metrics"])
        .arg(&metrics)
        .args(["--format", "html"])
        .output()
        .unwrap();
    assert!(
        page.status.success(),
        "{}",
        String::from_utf8_lossy(&page.stderr)
    );
    let html = String::from_utf8(page.stdout).unwrap();
    assert!(
        html.contains("How the model read the stored results") && html.contains("match (a search)"),
        "no readings section"
    );
}

#[test]
fn the_cancelled_bookings_among_500_and_their_total_in_one_or_two_calls() {
    let dir = tempfile::tempdir().unwrap();
    let args = json!({"count": 500, "mixed": true});
    let mut direct = Session::direct(dir.path());
    direct.initialize();
    let original: Value =
        serde_json::from_str(&text_of(&direct.call("list_bookings", args.clone()))[0]).unwrap();
    let cancelled: Vec<&Value> = original["bookings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["status"] == "cancelled")
        .collect();
    let total: u64 = cancelled
        .iter()
        .map(|b| b["totalPrice"]["amount"].as_u64().unwrap())
        .sum();
    assert_eq!(cancelled.len(), 50);

    let mut s = Session::proxy(dir.path(), &[], &[]);
    s.initialize();
    let first = s.call("list_bookings", args);
    assert_eq!(budget_meta(&first)["outcome"], "paginated");
    let reference = reference_of(&first);
    assert!(
        text_of(&first).last().unwrap().contains("\"where\""),
        "{first}"
    );

    // How many, and their total: one small answer.
    let figures = s.more(json!({"ref": reference, "where": "status=cancelled",
                                "aggregate": "count, sum(totalPrice.amount)"}));
    let f: Value = serde_json::from_str(&text_of(&figures)[0]).unwrap();
    assert_eq!(f["where"], "status=cancelled");
    assert_eq!(f["matched"], 50);
    assert_eq!(f["of"], 500);
    assert_eq!(f["count"], 50);
    assert_eq!(f["sum(totalPrice.amount)"], total);
    assert!(tokens_of(&figures) < 100, "{}", tokens_of(&figures));
    // Grouped: every status with its count.
    let grouped = s.more(json!({"ref": reference, "aggregate": "count", "group_by": "status"}));
    let g: Value = serde_json::from_str(&text_of(&grouped)[0]).unwrap();
    assert_eq!(g["groups"][0], json!({"status": "confirmed", "count": 400}));

    // Whole records: a page within budget, every record on it cancelled.
    let whole = s.more(json!({"ref": reference, "where": "status=cancelled"}));
    assert_within_budget(&whole);
    let body: Value = serde_json::from_str(&text_of(&whole)[1]).unwrap();
    let items = body["items"].as_array().unwrap();
    assert!(
        items.len() >= 10 && items.iter().all(|b| b["status"] == "cancelled"),
        "{body}"
    );
    assert!(whole["nextCursor"].is_string());

    // The records themselves, narrowed, largest first: every cancelled one, once.
    let mut page = s.more(json!({"ref": reference, "where": "status=cancelled",
                                 "order_by": "totalPrice.amount:desc",
                                 "fields": "id,totalPrice.amount"}));
    assert!(
        text_of(&page)[0].contains("50 of 500 records match `status=cancelled`"),
        "{page}"
    );
    let (mut ids, mut calls, mut last) = (Vec::new(), 1, u64::MAX);
    loop {
        assert_within_budget(&page);
        let body: Value = serde_json::from_str(&text_of(&page)[1]).unwrap();
        for item in body["items"].as_array().unwrap() {
            let amount = item["totalPrice.amount"].as_u64().unwrap();
            assert!(amount <= last, "ordered by amount, largest first");
            last = amount;
            ids.push(item["id"].as_str().unwrap().to_owned());
        }
        let Some(next) = page["nextCursor"].as_str().map(str::to_owned) else {
            break;
        };
        page = s.more(json!({ "cursor": next }));
        calls += 1;
    }
    let mut want: Vec<String> = cancelled
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    want.sort();
    assert_eq!(ids, want);
    assert!(calls <= 2, "{calls} calls");
}

#[test]
fn questions_the_store_cannot_answer_get_errors_that_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::proxy(dir.path(), &[], &[]);
    s.initialize();
    let log = reference_of(&s.call("read_log", json!({})));
    let list = reference_of(&s.call("list_bookings", json!({"count": 500, "mixed": true})));
    for (arguments, says) in [
        (
            json!({"ref": log, "match": "(unclosed"}),
            "not a valid pattern",
        ),
        (
            json!({"ref": log, "match": "\\w{1000}{1000}"}),
            "too costly",
        ),
        (
            json!({"ref": log, "match": "x", "context": 99}),
            "at most 50",
        ),
        (
            json!({"ref": log, "where": "status=cancelled"}),
            "holds text, not a list of records",
        ),
        (
            json!({"ref": list, "where": "statsu=cancelled"}),
            "no record has the field `statsu`; the records have id, guestName, status",
        ),
        (json!({"ref": list, "where": "status"}), "no operator"),
        (
            json!({"ref": list, "aggregate": "median(nights)"}),
            "expected count, sum(FIELD)",
        ),
        (
            json!({"ref": list, "order_by": "nights:sideways"}),
            "expected FIELD, FIELD:asc or FIELD:desc",
        ),
        (
            json!({"ref": log, "match": "ERROR", "lines": "1-5"}),
            "`lines` reads a range",
        ),
    ] {
        let answer = s.more(arguments.clone());
        assert_eq!(answer["isError"], true, "{arguments}: {answer}");
        let text = &text_of(&answer)[0];
        assert!(text.contains(says), "{arguments}: {text}");
    }
    let page = s.more(json!({"ref": log, "match": "ERROR", "limit": 1}));
    let next = page["nextCursor"].as_str().unwrap();
    let answer = s.more(json!({"cursor": next, "match": "INFO"}));
    assert!(
        text_of(&answer)[0].contains("a cursor carries its question"),
        "{answer}"
    );
}
