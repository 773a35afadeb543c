//! `paginate` and `decode-cursor` as users run them, and cursors exchanged both ways with the
//! seed's reference Python code (tests/peers/seed_ref.py).

mod common;

use std::fs;
use std::process::Command as StdCommand;

use common::{code, mcpguard, repo, settings, transcript};
use serde_json::Value;

const SECRET: &str = "test-secret";
const AT: &str = "1763712000";

fn paginate(args: &[&str]) -> std::process::Output {
    mcpguard()
        .env("MCPGUARD_CURSOR_SECRET", SECRET)
        .arg("paginate")
        .args(args)
        .args(["--at", AT])
        .output()
        .unwrap()
}

fn decode(cursor: &str, extra: &[&str]) -> std::process::Output {
    mcpguard()
        .env("MCPGUARD_CURSOR_SECRET", SECRET)
        .args(["decode-cursor", cursor, "--at", "1763712100"])
        .args(extra)
        .output()
        .unwrap()
}

fn json(out: &std::process::Output) -> Value {
    common::stdout_json(out)
}

/// Runs Python with the seed's module imported; returns stdout.
fn python(code: &str) -> String {
    let out = StdCommand::new("python3")
        .args([
            "-c",
            &format!(
                "import sys, json; sys.path.insert(0, 'tests/peers'); import seed_ref\n{code}"
            ),
        ])
        .current_dir(common::root())
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "python: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

const BOOKINGS: &str = "tests/fixtures/bookings-500.json";

#[test]
fn five_hundred_bookings_in_ten_pages_of_fifty() {
    let mut cursor: Option<String> = None;
    let mut ids = Vec::new();
    let mut created = Vec::new();
    let mut pages = 0;
    loop {
        let mut args = vec![BOOKINGS, "--limit", "50"];
        if let Some(c) = &cursor {
            args.extend(["--cursor", c.as_str()]);
        }
        let out = paginate(&args);
        assert_eq!(code(&out), 0, "{}", transcript(&out));
        let page = json(&out);
        pages += 1;
        let items = page["bookings"].as_array().unwrap();
        assert_eq!(items.len(), 50);
        assert_eq!(page["meta"]["totalCount"], 500);
        assert_eq!(page["meta"]["pageSize"], 50);
        assert_eq!(page["total"], 500, "the rest of the document is kept");
        ids.extend(items.iter().map(|b| b["id"].as_str().unwrap().to_owned()));
        created.extend(
            items
                .iter()
                .map(|b| b["createdAt"].as_str().unwrap().to_owned()),
        );
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) => {
                assert_eq!(page["meta"]["hasMore"], true);
                let d = decode(next, &["--data", BOOKINGS]);
                assert_eq!(code(&d), 0, "{}", transcript(&d));
                assert!(String::from_utf8_lossy(&d.stdout).contains("matches the cursor"));
                cursor = Some(next.to_owned());
            }
            None => {
                assert_eq!(page["meta"]["hasMore"], false);
                break;
            }
        }
    }
    assert_eq!(pages, 10);
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 500, "every booking exactly once");
    assert!(
        created.windows(2).all(|w| w[0] >= w[1]),
        "newest first (FR-006)"
    );
}

#[test]
fn all_pages_as_jsonl() {
    let out = paginate(&[BOOKINGS, "--all", "--limit", "200"]);
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let pages: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(pages.len(), 3);
    let counts: Vec<usize> = pages
        .iter()
        .map(|p| p["bookings"].as_array().unwrap().len())
        .collect();
    assert_eq!(counts, [200, 200, 100]);
    assert!(pages[2].get("nextCursor").is_none());
}

#[test]
fn seed_cursors_work_in_mcpguard() {
    // Made by the seed's encode_cursor: integral and fractional timestamps, an order, a
    // non-ASCII secret. mcpguard must verify each and continue from its offset.
    for (ts, secret) in [
        ("1763712000.0", "test-secret"),
        ("1763711999.25", "sécret-ключ-🔑"),
    ] {
        let c = python(&format!(
            "print(seed_ref.encode_cursor(50, {ts}, {secret:?}, order='createdAt:desc'))"
        ));
        let d = mcpguard()
            .env("MCPGUARD_CURSOR_SECRET", secret)
            .args([
                "decode-cursor",
                &c,
                "--at",
                "1763712100",
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        assert_eq!(code(&d), 0, "{}", transcript(&d));
        let report = json(&d);
        assert_eq!(report["verdict"], "valid");
        assert_eq!(report["payload"]["offset"], 50);
        assert_eq!(report["payload"]["order"], "createdAt:desc");

        let page = mcpguard()
            .env("MCPGUARD_CURSOR_SECRET", secret)
            .args([
                "paginate",
                BOOKINGS,
                "--limit",
                "50",
                "--at",
                "1763712100",
                "--cursor",
                &c,
            ])
            .output()
            .unwrap();
        assert_eq!(code(&page), 0, "{}", transcript(&page));
        assert_eq!(json(&page)["meta"]["offset"], 50);
    }
    // The seed's own page-2 cursor lands on the same items as mcpguard's.
    let ours = json(&paginate(&[BOOKINGS, "--limit", "50"]));
    let theirs = python(
        "print(seed_ref.encode_cursor(50, 1763712000.0, 'test-secret', order='createdAt:desc'))",
    );
    let via_ours = json(&paginate(&[
        BOOKINGS,
        "--cursor",
        ours["nextCursor"].as_str().unwrap(),
    ]));
    let via_theirs = json(&paginate(&[BOOKINGS, "--limit", "50", "--cursor", &theirs]));
    assert_eq!(via_ours["bookings"], via_theirs["bookings"]);
}

#[test]
fn mcpguard_cursors_work_in_the_seed() {
    let page = json(&paginate(&[
        BOOKINGS,
        "--limit",
        "50",
        "--filter",
        "status=confirmed",
        "--order-by",
        "totalPrice.amount:asc",
    ]));
    let c = page["nextCursor"].as_str().unwrap();
    let payload: Value = serde_json::from_str(&python(&format!(
        "print(json.dumps(seed_ref.decode_cursor({c:?}, 'test-secret')))"
    )))
    .unwrap();
    assert_eq!(payload["offset"], 50);
    assert_eq!(payload["ts"], 1763712000.0);
    assert_eq!(payload["order"], "totalPrice.amount:asc");
    assert_eq!(payload["filters"]["status"], "confirmed");
    assert_eq!(payload["kind"], "page");
    // And with a wrong secret the seed refuses it, as it should.
    let refused = python(&format!(
        "try:\n    seed_ref.decode_cursor({c:?}, 'other')\n    print('accepted')\nexcept ValueError as e:\n    print('refused')"
    ));
    assert_eq!(refused, "refused");
}

#[test]
fn order_and_filters_are_bound_to_the_cursor() {
    let first = json(&paginate(&[
        BOOKINGS,
        "--limit",
        "20",
        "--filter",
        "status=confirmed",
    ]));
    let c = first["nextCursor"].as_str().unwrap().to_owned();
    assert!(
        first["bookings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["status"] == "confirmed")
    );
    // Left out, the cursor's filters and page size carry on.
    let second = json(&paginate(&[BOOKINGS, "--cursor", &c]));
    assert_eq!(second["meta"]["offset"], 20);
    assert!(
        second["bookings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["status"] == "confirmed")
    );
    // Contradicted, the cursor is refused.
    let other_filter = paginate(&[BOOKINGS, "--cursor", &c, "--filter", "status=pending"]);
    let other_order = paginate(&[BOOKINGS, "--cursor", &c, "--order-by", "nights:desc"]);
    assert_eq!((code(&other_filter), code(&other_order)), (1, 1));
    settings(None).bind(|| {
        insta::assert_snapshot!(format!(
            "{}\n{}",
            transcript(&other_filter),
            transcript(&other_order)
        ))
    });
}

#[test]
fn changed_data_and_expired_cursors_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.json");
    fs::copy(repo(BOOKINGS), &file).unwrap();
    let file = file.to_str().unwrap();
    let first = json(&paginate(&[file, "--limit", "100"]));
    let c = first["nextCursor"].as_str().unwrap().to_owned();

    let expired = mcpguard()
        .env("MCPGUARD_CURSOR_SECRET", SECRET)
        .args(["paginate", file, "--cursor", &c, "--at", "1763712601"])
        .output()
        .unwrap();
    assert_eq!(code(&expired), 1);

    let mut data: Value = serde_json::from_str(&fs::read_to_string(file).unwrap()).unwrap();
    data["bookings"].as_array_mut().unwrap().remove(3);
    fs::write(file, data.to_string()).unwrap();
    let changed = paginate(&[file, "--cursor", &c]);
    assert_eq!(code(&changed), 1);
    let d = decode(&c, &["--data", file]);
    assert_eq!(code(&d), 1);
    settings(Some(dir.path())).bind(|| {
        insta::assert_snapshot!(format!(
            "{}\n{}\n{}",
            transcript(&expired),
            transcript(&changed),
            transcript(&d)
        ))
    });
}

#[test]
fn budget_shrinks_the_page_and_paging_still_covers_everything() {
    let mut cursor: Option<String> = None;
    let mut seen = Vec::new();
    loop {
        let mut args = vec![
            BOOKINGS,
            "--limit",
            "100",
            "--budget",
            "1500",
            "--tokenizer",
            "claude",
        ];
        if let Some(c) = &cursor {
            args.extend(["--cursor", c.as_str()]);
        }
        let out = paginate(&args);
        assert_eq!(code(&out), 0, "{}", transcript(&out));
        let page = json(&out);
        let tokens = mcpguard::tokens::Tokenizer::Claude
            .counter()
            .count(&page.to_string());
        assert!(tokens <= 1500, "page of {tokens} tokens");
        let items = page["bookings"].as_array().unwrap();
        assert!(items.len() < 100 || page.get("nextCursor").is_none());
        // Held back: what this page would have carried without the budget, less what it does.
        let offset = page["meta"]["offset"].as_u64().unwrap() as usize;
        let would_carry = 100.min(500 - offset);
        assert_eq!(
            page["meta"]["heldBack"].as_u64().unwrap() as usize,
            would_carry - items.len()
        );
        seen.extend(items.iter().map(|b| b["id"].as_str().unwrap().to_owned()));
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!((seen.len(), unique.len()), (500, 500));
}

#[test]
fn tool_results_stay_tool_results() {
    let out = paginate(&[
        "contracts/examples/fail-inv001-pretty-duplicated-structured.json",
        "--limit",
        "10",
    ]);
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    let doc = json(&out);
    assert_eq!(doc["jsonrpc"], "2.0");
    assert_eq!(doc["id"], 33);
    let text: Value =
        serde_json::from_str(doc["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["nights"].as_array().unwrap().len(), 10);
    assert_eq!(text["meta"]["totalCount"], 62);
    assert_eq!(
        doc["result"]["structuredContent"], text,
        "structuredContent kept in step"
    );
}

#[test]
fn a_list_that_fits_comes_back_unchanged() {
    let path = "contracts/examples/fail-inv002-search-25-items.json";
    let out = paginate(&[path]);
    assert_eq!(code(&out), 0);
    assert_eq!(out.stdout, fs::read(repo(path)).unwrap());
}

#[test]
fn root_arrays_become_items_pages() {
    let out = mcpguard()
        .env("MCPGUARD_CURSOR_SECRET", SECRET)
        .args(["paginate", "-", "--limit", "2", "--at", AT])
        .write_stdin(r#"[{"n":1},{"n":2},{"n":3}]"#)
        .output()
        .unwrap();
    let page = json(&out);
    assert_eq!(page["items"], serde_json::json!([{"n": 1}, {"n": 2}]));
    assert_eq!(page["meta"]["hasMore"], true);
}

#[test]
fn bad_cursors_and_requests() {
    let good = json(&paginate(&[BOOKINGS]))["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();
    // The payload changed, the signature kept: decode, edit the offset, re-encode.
    let tampered = {
        use base64::Engine as _;
        let e = base64::engine::general_purpose::URL_SAFE;
        let text = String::from_utf8(e.decode(&good).unwrap()).unwrap();
        e.encode(text.replace("\"offset\": 50", "\"offset\": 450"))
    };
    let negative = python(
        "print(seed_ref.encode_cursor(-5, 1763712000.0, 'test-secret', order='createdAt:desc'))",
    );
    let past_end = python(
        "print(seed_ref.encode_cursor(600, 1763712000.0, 'test-secret', order='createdAt:desc'))",
    );
    let future = python(
        "print(seed_ref.encode_cursor(50, 1763719000.0, 'test-secret', order='createdAt:desc'))",
    );
    let wrong_secret = python(
        "print(seed_ref.encode_cursor(50, 1763712000.0, 'not-our-secret', order='createdAt:desc'))",
    );
    let base64_of_text = {
        use base64::Engine as _;
        base64::engine::general_purpose::URL_SAFE.encode("hello, not json")
    };
    let huge = "A".repeat(100 * 1024);
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "tampered payload, old signature",
            vec!["--cursor", &tampered],
        ),
        (
            "truncated base64",
            vec!["--cursor", &good[..good.len() - 7]],
        ),
        ("not base64", vec!["--cursor", "this is not a cursor!"]),
        ("base64 of non-JSON", vec!["--cursor", &base64_of_text]),
        ("empty cursor", vec!["--cursor", ""]),
        ("100 KB cursor", vec!["--cursor", &huge]),
        ("negative offset", vec!["--cursor", &negative]),
        ("offset past the end", vec!["--cursor", &past_end]),
        ("timestamp in the future", vec!["--cursor", &future]),
        ("wrong secret", vec!["--cursor", &wrong_secret]),
        ("limit 0", vec!["--limit", "0"]),
        ("limit 10,000", vec!["--limit", "10000"]),
    ];
    let mut log = String::new();
    for (what, args) in &cases {
        let mut all = vec![BOOKINGS];
        all.extend(args.iter().copied());
        let out = paginate(&all);
        let expected = if what.starts_with("limit") { 2 } else { 1 };
        assert_eq!(code(&out), expected, "{what}: {}", transcript(&out));
        assert!(out.stdout.is_empty(), "{what}: nothing on stdout");
        log.push_str(&format!(
            "## {what}\n{}",
            transcript(&out).replace(&huge, "A...A")
        ));
    }
    let no_list = mcpguard()
        .env("MCPGUARD_CURSOR_SECRET", SECRET)
        .args(["paginate", "-"])
        .write_stdin(r#"{"status": "ok", "count": 3}"#)
        .output()
        .unwrap();
    assert_eq!(code(&no_list), 2);
    log.push_str(&format!(
        "## a document with no list\n{}",
        transcript(&no_list)
    ));
    let no_secret = mcpguard().args(["paginate", BOOKINGS]).output().unwrap();
    assert_eq!(code(&no_secret), 2);
    log.push_str(&format!("## no secret\n{}", transcript(&no_secret)));
    settings(None).bind(|| insta::assert_snapshot!(log));
}

#[test]
fn secret_files_rotate_and_secrets_never_show() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("old"), "0ld-s3cret-value\n").unwrap();
    fs::write(
        dir.path().join("rotated"),
        "n3w-s3cret-value\n0ld-s3cret-value\n",
    )
    .unwrap();
    let run = |secret_file: &str, extra: &[&str]| {
        mcpguard()
            .arg("paginate")
            .arg(BOOKINGS)
            .arg("--secret-file")
            .arg(dir.path().join(secret_file))
            .args(["--at", AT])
            .args(extra)
            .output()
            .unwrap()
    };
    let c = json(&run("old", &[]))["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();
    let next = run("rotated", &["--cursor", &c]);
    assert_eq!(
        code(&next),
        0,
        "an old-secret cursor verifies after rotation"
    );
    let fresh = json(&next)["nextCursor"].as_str().unwrap().to_owned();
    let with_old_only = run("old", &["--cursor", &fresh]);
    assert_eq!(code(&with_old_only), 1, "the new secret signs");
    for out in [&next, &with_old_only] {
        let text = transcript(out);
        assert!(!text.contains("s3cret-value"), "{text}");
    }
}

#[test]
fn decode_cursor_report() {
    let c = python(
        "print(seed_ref.encode_cursor(150, 1763711900.5, 'test-secret', order='createdAt:desc'))",
    );
    let table = decode(&c, &[]);
    assert_eq!(code(&table), 0);
    let no_secret = mcpguard()
        .args(["decode-cursor", "-", "--at", "1763712100"])
        .write_stdin(format!("{c}\n"))
        .output()
        .unwrap();
    assert_eq!(code(&no_secret), 0);
    assert!(
        String::from_utf8_lossy(&no_secret.stdout).contains("signature  not checked: no secret"),
        "{}",
        transcript(&no_secret)
    );
    let bad = decode("bm9wZQ==", &[]);
    assert_eq!(code(&bad), 1);
    let report = json(&decode(&c, &["--format", "json"]));
    let schema: Value = serde_json::from_str(
        &fs::read_to_string(repo("contracts/schemas/decode-cursor.schema.json")).unwrap(),
    )
    .unwrap();
    assert!(
        jsonschema::validator_for(&schema)
            .unwrap()
            .is_valid(&report),
        "{report:#}"
    );
    settings(None).bind(|| {
        insta::assert_snapshot!(format!(
            "{}\n{}\n{}",
            transcript(&table),
            transcript(&no_secret),
            transcript(&bad)
        ))
    });
}

const USERS: &str = "tests/fixtures/users-by-id-250.json";

#[test]
fn a_map_of_records_pages_in_key_order_and_the_pages_add_up() {
    let original: Value = serde_json::from_str(&fs::read_to_string(repo(USERS)).unwrap()).unwrap();
    let mut keys: Vec<String> = original["users"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    keys.sort();
    let mut seen = serde_json::Map::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut args = vec![USERS, "--limit", "50"];
        if let Some(c) = &cursor {
            args.extend(["--cursor", c.as_str()]);
        }
        let out = paginate(&args);
        assert_eq!(code(&out), 0, "{}", transcript(&out));
        let page = json(&out);
        pages += 1;
        // Each page is a map of the same kind, beside the rest of the document.
        let users = page["users"].as_object().unwrap();
        assert_eq!(users.len(), 50);
        assert_eq!(page["meta"]["totalCount"], 250);
        assert_eq!(page["total"], 250);
        for (k, v) in users {
            assert!(seen.insert(k.clone(), v.clone()).is_none(), "{k} twice");
        }
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, 5);
    // In key order, and every record exactly as it was.
    assert_eq!(seen.keys().cloned().collect::<Vec<_>>(), keys);
    assert_eq!(
        &Value::Object(seen),
        &original["users"]
            .clone()
            .as_object()
            .map(|m| {
                let mut sorted: Vec<_> = m.iter().collect();
                sorted.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(
                    sorted
                        .into_iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                )
            })
            .unwrap()
    );

    // --order-by a record field instead of the key; --path names the map.
    let out = paginate(&[
        USERS,
        "--path",
        "/users",
        "--order-by",
        "createdAt:desc",
        "--limit",
        "5",
    ]);
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    let page = json(&out);
    let created: Vec<&str> = page["users"]
        .as_object()
        .unwrap()
        .values()
        .map(|u| u["createdAt"].as_str().unwrap())
        .collect();
    assert!(created.windows(2).all(|w| w[0] >= w[1]), "{created:?}");
    let newest = original["users"]
        .as_object()
        .unwrap()
        .values()
        .map(|u| u["createdAt"].as_str().unwrap())
        .max()
        .unwrap();
    assert_eq!(created[0], newest);
}

#[test]
fn long_cursors_are_shown_by_decode_cursor_and_refused_by_paginate() {
    // paginate will not issue a cursor it could not read back.
    let long_field = "f".repeat(5000);
    let out = paginate(&[BOOKINGS, "--order-by", &long_field, "--limit", "5"]);
    assert_eq!(code(&out), 2, "{}", transcript(&out));
    assert!(out.stdout.is_empty(), "nothing half-written");
    assert!(
        transcript(&out).contains("-byte cursor, over the 4096 that paginate reads back"),
        "{}",
        transcript(&out)
    );
    // A signed cursor of that size, made by the seed's reference code: decode-cursor shows it
    // with a warning (exit 1); paginate refuses it before decoding.
    let cursor = python(&format!(
        "print(seed_ref.encode_cursor(5, 1763712000.0, 'test-secret', order='{long_field}'))"
    ));
    assert!(
        cursor.len() > 4096 && cursor.len() < 64 << 10,
        "{}",
        cursor.len()
    );
    let shown = decode(&cursor, &[]);
    assert_eq!(code(&shown), 1, "{}", transcript(&shown));
    let text = transcript(&shown);
    assert!(text.contains("verdict    valid"), "{text}");
    assert!(text.contains("warning    this cursor is "), "{text}");
    assert!(
        text.contains("mcpguard: warning: this cursor is ")
            && text.contains("bytes, over the 4096 that paginate and chunk accept"),
        "{text}"
    );
    let json_report = decode(&cursor, &["--format", "json"]);
    assert!(json(&json_report)["warning"].as_str().is_some());
    let refused = paginate(&[BOOKINGS, "--cursor", &cursor]);
    assert_eq!(code(&refused), 1);
    assert!(transcript(&refused).contains("over the 4096-byte limit; not decoded"));
    // Past 64 KB even decode-cursor does not decode.
    let huge = "A".repeat(70 * 1024);
    let out = decode(&huge, &[]);
    assert_eq!(code(&out), 1);
    assert!(transcript(&out).contains("over the 65536-byte limit; not decoded"));
}
