//! Live audits in both eras of MCP: the rmcp 3.11 fixture started legacy-only, modern-only and
//! dual-era over stdio and Streamable HTTP; every protocol rule of 2026-07-28 made to fire by
//! its fault and kept silent on the clean server; and the failures the era brings (broken
//! discover answers, a server that demands initialize after advertising 2026-07-28, cut and
//! resumable streams, a server that asks the client mid-call), each with what the audit says.

mod common;

use std::path::Path;

use common::live::{HttpFixture, audit, codes, findings, fixture, json_report, validated};
use common::{code, transcript};
use serde_json::Value;

/// Audits the fixture with `fixture_args` over stdio (`http` false) or HTTP, with `args` for
/// mcpguard; returns the exit code and the combined output.
fn run(dir: &Path, http: bool, fixture_args: &[&str], args: &[&str]) -> (i32, String, Value) {
    let fx = fixture();
    let server;
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--format", "json"]);
    if http {
        server = HttpFixture::with(fixture_args);
        all.extend(["--url", server.url.as_str()]);
        let out = audit(dir, &all);
        return finish(out);
    }
    all.push("--");
    all.push(fx.to_str().unwrap());
    all.extend(fixture_args);
    finish(audit(dir, &all))
}

fn finish(out: std::process::Output) -> (i32, String, Value) {
    let text = transcript(&out);
    let report = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (code(&out), text, report)
}

#[test]
fn every_era_gives_the_same_findings_on_both_transports() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (_, _, baseline) = run(d, false, &["--era", "dual"], &["--probe"]);
    // The same findings; only the sizes differ, by the 2026-07-28 fields (resultType) a legacy
    // peer is not sent.
    let places = |report: &Value| -> Vec<(String, String)> {
        findings(report).into_iter().map(|f| (f.0, f.1)).collect()
    };
    let expected = places(&validated(baseline));
    // era, transport, protocol spoken, dual-era as found, how the era was learned.
    for (era, http, version, dual, detection) in [
        ("dual", false, "2026-07-28", Some(true), "server/discover"),
        ("dual", true, "2026-07-28", Some(true), "server/discover"),
        (
            "modern",
            false,
            "2026-07-28",
            Some(false),
            "server/discover",
        ),
        ("modern", true, "2026-07-28", Some(false), "server/discover"),
        (
            "legacy",
            false,
            "2025-11-25",
            Some(false),
            "initialize, since server/discover answered error -32601 (Method not found)",
        ),
        (
            "legacy",
            true,
            "2025-11-25",
            Some(false),
            "initialize, since server/discover got HTTP 400 without a 2026-07-28 error",
        ),
    ] {
        let (status, text, report) = run(d, http, &["--era", era], &["--probe", "--ask-legacy"]);
        assert_eq!(status, 1, "{era} http={http}: {text}");
        let report = validated(report);
        let server = &report["servers"][0];
        assert_eq!(server["protocolVersion"], version, "{era} http={http}");
        assert_eq!(server["dualEra"].as_bool(), dual, "{era} http={http}");
        assert_eq!(server["eraDetection"], detection, "{era} http={http}");
        assert_eq!(server["calls"], 3, "{era} http={http}");
        assert_eq!(places(&report), expected, "{era} http={http}");
    }

    // Forced eras: legacy on a dual server opens a session without a probe; modern on a
    // legacy server is an error that says what to do.
    let (status, text, report) = run(d, false, &[], &["--protocol", "2025-11-25", "--probe"]);
    assert_eq!(status, 1, "{text}");
    let report = validated(report);
    assert_eq!(report["servers"][0]["protocolVersion"], "2025-11-25");
    assert_eq!(
        report["servers"][0]["eraDetection"],
        "--protocol 2025-11-25"
    );
    assert_eq!(places(&report), expected);
    for http in [false, true] {
        let (status, text, _) = run(d, http, &["--era", "legacy"], &["--protocol", "2026-07-28"]);
        assert_eq!(status, 2, "{text}");
        assert!(
            text.contains("server/discover: the server does not speak 2026-07-28 (server/discover")
                && text.contains("audit it with --protocol 2025-11-25 or auto"),
            "{text}"
        );
    }
}

#[test]
fn each_protocol_rule_fires_on_its_fault_over_both_transports() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (fault, rule) in [
        ("shuffle-tools", "MG024"),
        ("no-cache-hints", "MG025"),
        ("no-result-type", "MG026"),
        ("bad-structured", "MG027"),
        ("dangling-ref", "MG028"),
        ("old-not-found", "MG029"),
        ("stream-notify", "MG030"),
        ("input-required", "MG031"),
        ("bad-header", "MG032"),
    ] {
        for http in [false, true] {
            let (status, text, report) = run(d, http, &["--fault", fault], &["--probe"]);
            // input_required stops every call before its content: only MG031 (info) is left.
            let findings_exit = if rule == "MG031" { 0 } else { 1 };
            assert_eq!(status, findings_exit, "{fault} http={http}: {text}");
            let c = codes(&validated(report));
            assert!(c.contains(&rule.to_owned()), "{fault} http={http}: {c:?}");
            // Only its own rule among the protocol rules.
            let protocol: Vec<&String> = c.iter().filter(|c| c.as_str() >= "MG024").collect();
            assert_eq!(protocol, [rule], "{fault} http={http}");
        }
    }
}

#[test]
fn protocol_findings_read_the_same_from_a_saved_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fx = fixture();
    for (fault, rule) in [
        ("shuffle-tools", "MG024"),
        ("no-cache-hints", "MG025"),
        ("no-result-type", "MG026"),
        ("bad-structured", "MG027"),
        ("dangling-ref", "MG028"),
        ("old-not-found", "MG029"),
    ] {
        let saved = format!("saved-{fault}");
        let live = audit(
            d,
            &[
                "--probe",
                "--format",
                "json",
                "--save",
                &saved,
                "--",
                fx.to_str().unwrap(),
                "--fault",
                fault,
            ],
        );
        let live = json_report(&live);
        let again = json_report(&audit(d, &[&saved, "--format", "json"]));
        assert_eq!(findings(&again), findings(&live), "{fault}");
        assert!(codes(&again).contains(&rule.to_owned()), "{fault}");
    }
    // What each rule says, on the saved evidence.
    let shuffled = json_report(&audit(d, &["saved-shuffle-tools", "--format", "json"]));
    let messages: Vec<String> = findings(&shuffled)
        .into_iter()
        .filter(|f| f.0 == "MG024")
        .map(|f| format!("{} {}", f.1, f.2))
        .collect();
    assert_eq!(
        messages,
        [
            "/result/tools tools/list listed the same 3 tools in another order than before (position 0: `get_report` where `list_bookings` was): a client that puts the catalog in the prompt loses its prompt cache and pays for the whole catalog again"
        ]
    );
    let bad = json_report(&audit(d, &["saved-bad-structured", "--format", "json"]));
    assert!(
        findings(&bad).iter().any(|f| f.0 == "MG027"
            && f.1 == "/result/structuredContent/occupancy"
            && f.2.starts_with("get_report: structuredContent does not match the tool's outputSchema: \"82%\" is not of type \"number\"")),
        "{:#?}",
        findings(&bad)
    );
    let dangling = json_report(&audit(d, &["saved-dangling-ref", "--format", "json"]));
    assert!(
        findings(&dangling).iter().any(|f| f.0 == "MG028"
            && f.1 == "/result/tools/2/outputSchema/properties/week"
            && f.2 == "get_report: outputSchema has $ref \"#/$defs/Week\", which points at nothing in the schema"),
        "{:#?}",
        findings(&dangling)
    );
}

#[test]
fn broken_era_answers_say_what_the_server_did() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for http in [false, true] {
        for (fault, message) in [
            (
                "discover-garbage",
                "the server wrote a line that is not JSON while mcpguard waited for server/discover: \"<html><body>upstream timeout",
            ),
            (
                "discover-unknown-versions",
                "server/discover: the server lists [\"2099-01-01\"], and mcpguard speaks 2026-07-28 and 2025-11-25",
            ),
        ] {
            let (status, text, _) = run(d, http, &["--fault", fault], &[]);
            assert_eq!(status, 2, "{fault} http={http}: {text}");
            assert!(text.contains(message), "{fault} http={http}: {text}");
            assert!(
                text.contains("fixture_server") || text.contains("127.0.0.1"),
                "{text}"
            );
        }

        // A discover answer shaped like a modern one but listing no versions: reported, and
        // the server audited in the era it answers (it is dual, so initialize works).
        let (status, text, report) = run(d, http, &["--fault", "discover-no-versions"], &[]);
        assert_eq!(status, 1, "http={http}: {text}");
        let report = validated(report);
        assert_eq!(report["servers"][0]["protocolVersion"], "2025-11-25");
        assert_eq!(
            report["servers"][0]["eraDetection"],
            "initialize, since server/discover answered a result that is not a DiscoverResult (supportedVersions: nothing)"
        );
        assert!(
            report["corpusFindings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["code"] == "MG030"
                    && f["message"]
                        .as_str()
                        .unwrap()
                        .ends_with("though it has the fields of one")),
            "{report:#}"
        );

        // Advertises 2026-07-28, then demands initialize: reported, and audited in the era it
        // really speaks.
        let (status, text, report) = run(d, http, &["--fault", "claims-modern"], &["--probe"]);
        assert_eq!(status, 1, "http={http}: {text}");
        let report = validated(report);
        assert_eq!(report["servers"][0]["protocolVersion"], "2025-11-25");
        assert_eq!(report["servers"][0]["calls"], 3);
        let era: Vec<&Value> = report["corpusFindings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "MG030")
            .collect();
        assert_eq!(era.len(), 1, "{era:?}");
        assert!(
            era[0]["message"].as_str().unwrap().starts_with(
                "tools/list: the server advertised 2026-07-28 (server/discover), then answered error -32600 (Server not initialized: send initialize first)"
            ),
            "{era:?}"
        );
    }
}

#[test]
fn a_legacy_answer_to_discover_means_legacy_and_a_refused_version_is_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for http in [false, true] {
        // `{}` for server/discover, as the conformance suite's legacy servers (and any server
        // whose SDK answers an unknown method with an empty result) give: legacy, no finding.
        let (status, text, report) = run(
            d,
            http,
            &["--fault", "discover-empty"],
            &["--probe", "--save", "empty"],
        );
        assert_eq!(status, 1, "http={http}: {text}");
        let report = validated(report);
        let server = &report["servers"][0];
        assert_eq!(server["protocolVersion"], "2025-11-25", "http={http}");
        assert_eq!(
            server["eraDetection"],
            "initialize, since server/discover answered a result that is not a DiscoverResult (supportedVersions: nothing)"
        );
        assert_eq!(server["calls"], 3, "http={http}");
        assert!(!codes(&report).contains(&"MG030".to_owned()), "{text}");

        // UnsupportedProtocolVersion for the first discover, 2026-07-28 listed: asked again in
        // 2026-07-28, then spoken to in it.
        let (status, text, report) = run(
            d,
            http,
            &["--fault", "refuse-version-once"],
            &["--probe", "--save", "refused"],
        );
        assert_eq!(status, 1, "http={http}: {text}");
        let report = validated(report);
        let server = &report["servers"][0];
        assert_eq!(server["protocolVersion"], "2026-07-28", "http={http}");
        assert_eq!(server["eraDetection"], "server/discover", "http={http}");
        // Not asked about the legacy era without --ask-legacy.
        assert!(
            server.get("dualEra").is_none_or(Value::is_null),
            "{server:#}"
        );
        let session = std::fs::read_dir(d.join("refused"))
            .unwrap()
            .flatten()
            .find(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
            .expect("a saved session");
        let saved = std::fs::read_to_string(session.path()).unwrap();
        let methods: Vec<String> = saved
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|m| m.get("method").and_then(Value::as_str).map(str::to_owned))
            .collect();
        assert_eq!(
            methods[..2],
            ["server/discover", "server/discover"],
            "{methods:?}"
        );
        assert!(!methods.contains(&"initialize".to_owned()), "{methods:?}");
        std::fs::remove_dir_all(d.join("refused")).unwrap();
        std::fs::remove_dir_all(d.join("empty")).unwrap();
    }
    // The table says the legacy era was not asked.
    let fx = fixture();
    let out = audit(d, &["--", fx.to_str().unwrap(), "--era", "modern"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("2026-07-28 (legacy not asked)"), "{text}");
}

#[test]
fn streams_are_resumed_or_reissued_as_each_era_says() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (_, _, clean) = run(d, true, &["--era", "legacy"], &["--probe"]);
    let clean = findings(&validated(clean));

    // 2025-11-25: every answer held back behind a priming event; GET with Last-Event-ID
    // fetches it, and the audit is complete.
    let (status, text, report) = run(
        d,
        true,
        &["--era", "legacy", "--fault", "sse-poll"],
        &["--probe", "--save", "polled"],
    );
    assert_eq!(status, 1, "{text}");
    let report = validated(report);
    assert_eq!(findings(&report), clean);
    assert_eq!(report["servers"][0]["calls"], 3);
    // A resumed stream that never delivers ends at --timeout, not later.
    let started = std::time::Instant::now();
    let (status, text, _) = run(
        d,
        true,
        &["--era", "legacy", "--fault", "sse-never"],
        &["--probe", "--timeout", "1"],
    );
    assert_eq!(status, 2, "{text}");
    assert!(
        text.contains("no answer to tools/call within 1.0 s"),
        "{text}"
    );
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());

    // 2026-07-28: a stream cut once is re-issued with a new id (and reported); cut every
    // time, the audit ends with the reason.
    let (status, text, report) = run(
        d,
        true,
        &["--fault", "cut-once"],
        &["--probe", "--save", "cut"],
    );
    assert_eq!(status, 1, "{text}");
    let report = validated(report);
    assert_eq!(report["servers"][0]["calls"], 3);
    let cut: Vec<String> = report["corpusFindings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "MG030")
        .map(|f| f["message"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        cut,
        [
            "the response stream of tools/call broke before its answer (the server closed it); mcpguard re-issued it once with a new id"
        ]
    );
    let saved =
        std::fs::read_to_string(d.join("cut/127.0.0.1-".to_owned() + &port_of(&report) + ".jsonl"))
            .unwrap();
    let calls: Vec<Value> = saved
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["method"] == "tools/call")
        .collect();
    assert_eq!(calls.len(), 4, "three calls, one of them sent twice");
    assert_eq!(calls[0]["params"], calls[1]["params"]);
    assert_ne!(calls[0]["id"], calls[1]["id"]);

    let (status, text, _) = run(d, true, &["--fault", "cut-always"], &["--probe"]);
    assert_eq!(status, 2, "{text}");
    assert!(
        text.contains("the response stream of tools/call ended before its answer: the server closed it, and again when re-issued with a new id"),
        "{text}"
    );
}

/// The port a report's HTTP server was on (reports name servers by host and port).
fn port_of(report: &Value) -> String {
    let name = report["servers"][0]["name"].as_str().unwrap();
    name.rsplit('-').next().unwrap().to_owned()
}

#[test]
fn a_request_from_the_server_mid_call_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for http in [false, true] {
        let (status, text, report) = run(
            d,
            http,
            &["--era", "legacy", "--fault", "ask-roots"],
            &["--probe", "--timeout", "5", "--save", "asked"],
        );
        // Each call waited on roots/list; refused at once, every call still completes.
        assert_eq!(status, 1, "http={http}: {text}");
        let report = validated(report);
        assert_eq!(report["servers"][0]["calls"], 3);
        let name = report["servers"][0]["name"].as_str().unwrap().to_owned();
        let saved = std::fs::read_to_string(d.join(format!("asked/{name}.jsonl"))).unwrap();
        let refusals = saved
            .lines()
            .filter(|l| l.contains("mcpguard does not provide roots/list"))
            .count();
        assert_eq!(refusals, 3, "http={http}");
    }
}

#[test]
fn annotated_arguments_travel_as_headers_on_2026_07_28() {
    // The fixture's `search` marks `query` with x-mcp-header; over HTTP on 2026-07-28 the
    // server rejects a call without a matching Mcp-Param-Query (HeaderMismatch, -32020).
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("search.yaml"),
        "- tool: search\n  arguments: {query: \"Zoë Dupont\"}\n  expect: {isError: false, contains: Dupont}\n",
    )
    .unwrap();
    let (status, text, report) = run(d, true, &[], &["--calls", "search.yaml"]);
    assert_eq!(status, 0, "{text}");
    let report = validated(report);
    assert_eq!(report["servers"][0]["protocolVersion"], "2026-07-28");
    assert_eq!(report["servers"][0]["calls"], 1);
    assert!(
        report["corpusFindings"].as_array().unwrap().is_empty(),
        "{text}"
    );
}

#[test]
fn a_tool_with_a_bad_header_annotation_is_reported_and_never_called_over_http() {
    // With `bad-header`, search's x-mcp-header is "Search Query" (a space): a 2026-07-28
    // client over Streamable HTTP must drop the tool. Over stdio it may ignore annotations.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("search.yaml"),
        "- tool: search\n  arguments: {query: Dupont}\n",
    )
    .unwrap();
    for http in [true, false] {
        let (status, text, report) = run(
            d,
            http,
            &["--fault", "bad-header"],
            &["--calls", "search.yaml", "--save", "saved"],
        );
        assert_eq!(status, 1, "http={http}: {text}");
        let report = validated(report);
        let found: Vec<_> = findings(&report)
            .into_iter()
            .filter(|f| f.0 == "MG032")
            .collect();
        assert_eq!(found.len(), 1, "http={http}: {found:?}");
        assert_eq!(found[0].1, "/result/tools/0/inputSchema/properties/query");
        assert!(
            found[0].2.starts_with(
                "search: x-mcp-header \"Search Query\" is not an HTTP field-name token"
            ),
            "{}",
            found[0].2
        );
        let server = &report["servers"][0];
        let session = std::fs::read_dir(d.join("saved"))
            .unwrap()
            .flatten()
            .find(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
            .expect("a saved session");
        let saved = std::fs::read_to_string(session.path()).unwrap();
        std::fs::remove_dir_all(d.join("saved")).unwrap();
        if http {
            assert_eq!(server["calls"], 0, "{server:#}");
            assert!(!saved.contains("\"tools/call\""), "{saved}");
            let skipped = server["skipped"][0].as_str().unwrap();
            assert!(
                skipped.starts_with("search: x-mcp-header \"Search Query\"")
                    && skipped
                        .ends_with("(MG032); a 2026-07-28 client over Streamable HTTP drops it"),
                "{skipped}"
            );
        } else {
            assert_eq!(server["calls"], 1, "{server:#}");
            assert!(saved.contains("\"tools/call\""), "{saved}");
        }
    }
}
