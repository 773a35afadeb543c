//! `mcpguard audit` against live servers: the rmcp fixture (examples/fixture_server.rs) over
//! stdio and Streamable HTTP, well-behaved and misbehaving, a client's server list, saved
//! transcripts read again, and secrets kept out of every output.

mod common;

use std::path::Path;

use common::live::{HttpFixture, audit, codes, findings, fixture, json_report};
use common::{code, mcpguard_in, transcript};
use serde_json::{Value, json};

#[test]
fn a_stdio_server_is_listed_probed_and_audited_and_its_transcript_says_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let fx = fixture();
    let out = audit(
        dir.path(),
        &[
            "--probe",
            "--ask-legacy",
            "--format",
            "json",
            "--save",
            "saved",
            "--",
            fx.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&out), 1, "{}", transcript(&out));
    let report = json_report(&out);
    let server = &report["servers"][0];
    assert_eq!(server["name"], "fixture_server");
    assert_eq!(server["transport"], "stdio");
    // rmcp 3.11 is dual-era: auto speaks 2026-07-28 to it and finds it answers initialize too.
    assert_eq!(server["protocolVersion"], "2026-07-28");
    assert_eq!(server["dualEra"], true);
    assert_eq!(server["eraDetection"], "server/discover");
    assert!(
        server["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2025-11-25"))
    );
    assert_eq!(
        server["capabilities"],
        json!(["prompts", "resources", "tools"])
    );
    assert_eq!(server["toolCount"], 10);
    assert_eq!(server["toolPages"], 4);
    assert!(server["catalogTokens"].as_u64().unwrap() > 0);
    // --probe called the read-only tools it could fill, and nothing else.
    assert_eq!(server["calls"], 3);
    let skipped = server["skipped"].as_array().unwrap();
    assert!(
        skipped[0]
            .as_str()
            .unwrap()
            .starts_with("search: no default"),
        "{skipped:?}"
    );
    let saved = std::fs::read_to_string(dir.path().join("saved/fixture_server.jsonl")).unwrap();
    for tool in ["list_bookings", "screenshot", "get_report"] {
        assert!(
            saved.contains(&format!("\"name\":\"{tool}\"")),
            "{tool} was called"
        );
    }
    for never in ["delete_everything", "hang", "crash"] {
        assert!(
            !saved.contains(&format!("\"params\":{{\"name\":\"{never}\"")),
            "{never} was called"
        );
    }
    // Every list followed to its end: 4 pages of tools, 3 of resources, templates, prompts;
    // tools/list's first page once more (its order must hold), the invalid-cursor probe
    // answered with -32602 (no MG020), and a missing resource read (-32602 on 2026-07-28).
    let methods: Vec<String> = saved
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["method"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(methods.iter().filter(|m| *m == "tools/list").count(), 6);
    assert_eq!(methods.iter().filter(|m| *m == "resources/list").count(), 3);
    assert_eq!(methods.iter().filter(|m| *m == "resources/read").count(), 1);
    assert_eq!(methods[0], "server/discover");
    assert!(!methods.contains(&"initialize".to_owned()), "{methods:?}");
    // Every 2026-07-28 request carried its own _meta; nothing on it was a session.
    for line in saved.lines().filter(|l| l.contains("\"method\"")) {
        assert!(
            line.contains("\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\""),
            "{line}"
        );
    }
    assert!(saved.contains("\"code\":-32602"));
    let c = codes(&report);
    for expected in ["MG001", "MG002", "MG005", "MG009", "MG012", "MG013"] {
        assert!(c.contains(&expected.to_owned()), "{expected} in {c:?}");
    }
    // A clean server: none of the list or protocol rules fire.
    for clean in [
        "MG020", "MG021", "MG022", "MG024", "MG025", "MG026", "MG027", "MG028", "MG029", "MG030",
        "MG031",
    ] {
        assert!(!c.contains(&clean.to_owned()), "{clean} in {c:?}");
    }
    // Latency was measured for each response.
    let latencies: Vec<&Value> = report["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["latencyMs"])
        .collect();
    assert!(
        latencies.iter().all(|l| l.as_f64().is_some()),
        "{latencies:?}"
    );

    // The saved transcript, audited as a file, gives the same findings.
    let again = audit(dir.path(), &["saved", "--format", "json"]);
    assert_eq!(findings(&json_report(&again)), findings(&report));
}

#[test]
fn the_same_server_over_streamable_http_gives_the_same_findings() {
    let dir = tempfile::tempdir().unwrap();
    let fx = fixture();
    let stdio = json_report(&audit(
        dir.path(),
        &["--probe", "--format", "json", "--", fx.to_str().unwrap()],
    ));
    let http = HttpFixture::start(None);
    let out = audit(
        dir.path(),
        &["--probe", "--format", "json", "--url", &http.url],
    );
    assert_eq!(code(&out), 1, "{}", transcript(&out));
    let report = json_report(&out);
    assert_eq!(report["servers"][0]["transport"], "http");
    assert_eq!(report["servers"][0]["toolPages"], 4);
    assert_eq!(findings(&report), findings(&stdio));
}

#[test]
fn list_faults_are_findings_on_both_transports() {
    let dir = tempfile::tempdir().unwrap();
    let fx = fixture();
    for (fault, expected, extra) in [
        ("repeat-cursor", "MG021", vec![]),
        ("runaway", "MG022", vec!["--max-pages", "5"]),
        ("accept-bad-cursor", "MG020", vec![]),
    ] {
        let mut args = vec!["--format", "json"];
        args.extend(&extra);
        let mut stdio_args = args.clone();
        stdio_args.extend(["--", fx.to_str().unwrap(), "--fault", fault]);
        let out = audit(dir.path(), &stdio_args);
        assert_eq!(code(&out), 1, "{fault} stdio: {}", transcript(&out));
        assert!(
            codes(&json_report(&out)).contains(&expected.to_owned()),
            "{fault} stdio"
        );

        let http = HttpFixture::start(Some(fault));
        let mut http_args = args.clone();
        http_args.extend(["--url", &http.url]);
        let out = audit(dir.path(), &http_args);
        assert_eq!(code(&out), 1, "{fault} http: {}", transcript(&out));
        assert!(
            codes(&json_report(&out)).contains(&expected.to_owned()),
            "{fault} http"
        );
    }
}

/// Writes a --calls file calling one tool.
fn calls(dir: &Path, tool: &str) -> String {
    let path = dir.join(format!("{tool}.yaml"));
    std::fs::write(&path, format!("- tool: {tool}\n")).unwrap();
    path.display().to_string()
}

#[test]
fn a_server_that_hangs_crashes_floods_or_writes_garbage_ends_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fx = fixture();
    let fx = fx.to_str().unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "--timeout".into(),
                "1".into(),
                "--".into(),
                fx.into(),
                "--fault".into(),
                "hang-list".into(),
            ],
            "no answer to tools/list within 1.0 s",
        ),
        (
            vec![
                "--timeout".into(),
                "1".into(),
                "--calls".into(),
                calls(d, "hang"),
                "--".into(),
                fx.into(),
            ],
            "no answer to tools/call within 1.0 s",
        ),
        (
            vec!["--calls".into(), calls(d, "crash"), "--".into(), fx.into()],
            "the server exited (exit status: 3) while mcpguard waited for the answer to tools/call",
        ),
        (
            vec![
                "--calls".into(),
                calls(d, "garbage"),
                "--".into(),
                fx.into(),
            ],
            "the server wrote a line that is not JSON while mcpguard waited for tools/call: \"Traceback",
        ),
        (
            vec![
                "--calls".into(),
                calls(d, "huge"),
                "--max-message-bytes".into(),
                "1000000".into(),
                "--".into(),
                fx.into(),
            ],
            "a message of more than 1000000 bytes from the server",
        ),
        (
            vec!["--server".into(), "mcpguard-no-such-server --stdio".into()],
            "cannot start `mcpguard-no-such-server --stdio`: No such file or directory (os error 2); is it installed and on PATH?",
        ),
    ];
    for (args, message) in cases {
        let started = std::time::Instant::now();
        let out = mcpguard_in(d).arg("audit").args(&args).output().unwrap();
        assert_eq!(code(&out), 2, "{args:?}: {}", transcript(&out));
        let stderr = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(message),
            "{args:?}: expected {message:?} in\n{stderr}"
        );
        // Hangs end at the timeout, and the lingering server is killed, not waited for.
        assert!(
            started.elapsed().as_secs() < 10,
            "{args:?} took {:?}",
            started.elapsed()
        );
    }

    // Over HTTP: a hang, a crash, a flood, an HTML body, nothing listening.
    let http = HttpFixture::start(None);
    let garbage = http.url.replace("/mcp", "/garbage");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "--timeout".into(),
                "1".into(),
                "--calls".into(),
                calls(d, "hang"),
                "--url".into(),
                http.url.clone(),
            ],
            "no answer to tools/call within 1.0 s",
        ),
        (
            vec![
                "--calls".into(),
                calls(d, "huge"),
                "--max-message-bytes".into(),
                "1000000".into(),
                "--url".into(),
                http.url.clone(),
            ],
            "a message of more than 1000000 bytes from the server",
        ),
        (
            vec!["--url".into(), garbage],
            "the server wrote a line that is not JSON while mcpguard waited for server/discover: \"<html>",
        ),
        (
            vec!["--url".into(), "http://127.0.0.1:9/mcp".into()],
            "http://127.0.0.1:9/mcp:",
        ),
        (
            vec![
                "--calls".into(),
                calls(d, "crash"),
                "--url".into(),
                http.url.clone(),
            ],
            http.url.as_str(),
        ),
    ];
    for (args, message) in cases {
        let out = mcpguard_in(d).arg("audit").args(&args).output().unwrap();
        assert_eq!(code(&out), 2, "{args:?}: {}", transcript(&out));
        let all = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(
            all.contains(message),
            "{args:?}: expected {message:?} in\n{all}"
        );
    }
}

#[test]
fn a_client_config_with_two_servers_audits_both_and_keeps_secrets_out() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let http = HttpFixture::start(None);
    let config = json!({"mcpServers": {
        "bookings-stdio": {"command": fixture(), "args": [], "env": {"API_KEY": "${FIXTURE_SECRET}"}},
        "bookings-http": {"type": "http", "url": http.url, "headers": {"Authorization": "Bearer ${FIXTURE_SECRET}"}}
    }});
    std::fs::write(d.join(".mcp.json"), config.to_string()).unwrap();
    let out = mcpguard_in(d)
        .env("FIXTURE_SECRET", "hunter2-do-not-print")
        .args([
            "audit",
            "--mcp-config",
            ".mcp.json",
            "--save",
            "saved",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    // Listing alone finds nothing wrong with this server: exit 0.
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    let report = json_report(&out);
    let names: Vec<&str> = report["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["bookings-stdio", "bookings-http"]);
    // Both list the same ten tools: a client that merges the lists keeps one of each (MG034).
    let collisions: Vec<&serde_json::Value> = report["corpusFindings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "MG034")
        .collect();
    assert_eq!(collisions.len(), 10, "{collisions:?}");
    assert!(
        collisions.iter().any(|f| f["message"]
            .as_str()
            .unwrap()
            .contains("`get_report` is listed by bookings-stdio and bookings-http")),
        "{collisions:?}"
    );
    let mut everything =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    for entry in std::fs::read_dir(d.join("saved")).unwrap() {
        everything += &std::fs::read_to_string(entry.unwrap().path()).unwrap();
    }
    assert!(
        !everything.contains("hunter2"),
        "a secret was printed or saved"
    );

    // The table adds up what a client that starts both loads.
    let table = mcpguard_in(d)
        .env("FIXTURE_SECRET", "x")
        .args(["audit", "--mcp-config", ".mcp.json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains(
            "all 2 servers: 20 tools, 1,700 catalog tokens, 0.8% of a 200,000-token context window"
        ),
        "{text}"
    );
    // And what the tiered gateway would give a client instead, tier by tier (seed 004).
    assert!(text.contains("behind the tiered gateway"), "{text}");
    for tier in ["T0", "T1", "T2", "T3"] {
        assert!(text.contains(&format!("\n    {tier} ")), "{tier}: {text}");
    }
    let plan = &report["tierPlan"];
    assert_eq!(
        (plan["servers"].as_u64(), plan["tools"].as_u64()),
        (Some(2), Some(20))
    );
    let tiers = plan["tiers"].as_array().unwrap();
    assert_eq!(tiers.len(), 4);
    let total = |i: usize| tiers[i]["tokens"].as_u64().unwrap();
    assert!(total(0) < plan["fullTokens"].as_u64().unwrap(), "{plan}");
    assert!(
        (1..4).all(|i| total(i) == total(i - 1) + tiers[i]["added"].as_u64().unwrap()),
        "{plan}"
    );
    assert!(
        tiers[2]["holds"]
            .as_str()
            .unwrap()
            .contains("(bookings-stdio, 10 tools; first page)"),
        "{plan}"
    );
    // Both catalogs together, over a budget of 1,000: one MG016 for the whole list.
    std::fs::write(
        d.join("mcpguard.yaml"),
        "limits: {maxCatalogTokens: 1000}\n",
    )
    .unwrap();
    let tight = mcpguard_in(d)
        .env("FIXTURE_SECRET", "x")
        .args(["audit", "--mcp-config", ".mcp.json", "--format", "json"])
        .output()
        .unwrap();
    let across: Vec<String> = json_report(&tight)["corpusFindings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "MG016")
        .map(|f| f["message"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(across.len(), 1, "{across:?}");
    assert!(
        across[0].starts_with("the 2 servers' catalogs cost ")
            && across[0].contains("behind the tiered gateway it would load "),
        "{across:?}"
    );
    std::fs::remove_file(d.join("mcpguard.yaml")).unwrap();

    // --name picks one; an unknown name lists the known ones.
    let one = mcpguard_in(d)
        .env("FIXTURE_SECRET", "x")
        .args([
            "audit",
            "--mcp-config",
            ".mcp.json",
            "--name",
            "bookings-http",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(json_report(&one)["servers"].as_array().unwrap().len(), 1);
    let unknown = mcpguard_in(d)
        .args(["audit", "--mcp-config", ".mcp.json", "--name", "nope"])
        .output()
        .unwrap();
    assert_eq!(code(&unknown), 2);
    assert!(
        String::from_utf8_lossy(&unknown.stderr)
            .contains(".mcp.json: no server named `nope`; it has: bookings-stdio, bookings-http")
    );
}

#[test]
fn call_expectations_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("calls.yaml"),
        "- tool: list_bookings\n  arguments: {status: confirmed}\n  expect: {maxBytes: 10240}\n\
         - tool: get_report\n  arguments: {format: json}\n  expect: {isError: false, contains: occupancy}\n",
    )
    .unwrap();
    let fx = fixture();
    let out = audit(
        d,
        &[
            "--calls",
            "calls.yaml",
            "--format",
            "json",
            "--",
            fx.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&out), 1, "{}", transcript(&out));
    let report = json_report(&out);
    let corpus: Vec<&Value> = report["corpusFindings"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    assert_eq!(corpus.len(), 1, "{corpus:?}");
    assert_eq!(corpus[0]["code"], "MG023");
    assert!(
        corpus[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("list_bookings: ")
    );
    assert_eq!(report["servers"][0]["calls"], 2);
}
