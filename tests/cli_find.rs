//! Finding from the command line, on the same core the proxy's `mcpguard_more` answers from:
//! `paginate --where` (and `--aggregate`), `chunk --match`, and `artifacts show --match /
//! --where / --aggregate` on an artifact in a store. Real data: 500 bookings with varied
//! statuses and dates, the 2 MB application log of the examples.

mod common;

use common::{code, mcpguard, mcpguard_in, repo};
use serde_json::{Value, json};

fn bookings() -> Vec<Value> {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(repo("tests/fixtures/bookings-500.json")).unwrap(),
    )
    .unwrap();
    doc["bookings"].as_array().unwrap().clone()
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// Every item of every page of `paginate --all` with these flags.
fn all_pages(flags: &[&str]) -> Vec<Value> {
    let out = mcpguard()
        .env("MCPGUARD_CURSOR_SECRET", "cli-find-test")
        .arg("paginate")
        .arg(repo("tests/fixtures/bookings-500.json"))
        .args(flags)
        .args(["--all", "--limit", "40"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    stdout(&out)
        .lines()
        .flat_map(|l| {
            let page: Value = serde_json::from_str(l).unwrap();
            page["bookings"].as_array().unwrap().clone()
        })
        .collect()
}

#[test]
fn paginate_where_compares_numbers_dates_text_and_sets() {
    let all = bookings();
    let got = all_pages(&[
        "--where",
        "status in (cancelled, pending) and totalPrice.amount>=2000",
        "--where",
        "checkInDate<2027-01-01",
        "--order-by",
        "id",
    ]);
    let want: Vec<Value> = all
        .iter()
        .filter(|b| {
            matches!(b["status"].as_str(), Some("cancelled" | "pending"))
                && b["totalPrice"]["amount"].as_u64().unwrap() >= 2000
                && b["checkInDate"].as_str().unwrap() < "2027-01-01"
        })
        .cloned()
        .collect();
    assert!(want.len() > 40 && want.len() < 200, "{} match", want.len());
    assert_eq!(got, want);

    // Instants, not text: an offset moves the time compared.
    let late = all_pages(&[
        "--where",
        "createdAt>2026-10-31T12:00:00+02:00",
        "--order-by",
        "id",
    ]);
    let cut = "2026-10-31T10:00:00Z";
    let want: Vec<Value> = all
        .iter()
        .filter(|b| b["createdAt"].as_str().unwrap() > cut)
        .cloned()
        .collect();
    assert_eq!(late, want);
    // Contains, in any case; --filter is the same language.
    let named = all_pages(&["--filter", "guestName~SCHMIDT", "--order-by", "id"]);
    assert!(!named.is_empty());
    assert!(
        named
            .iter()
            .all(|b| b["guestName"].as_str().unwrap().contains("Schmidt"))
    );
}

#[test]
fn a_cursor_is_bound_to_its_conditions() {
    let first = mcpguard()
        .env("MCPGUARD_CURSOR_SECRET", "cli-find-test")
        .arg("paginate")
        .arg(repo("tests/fixtures/bookings-500.json"))
        .args(["--where", "nights>5", "--limit", "10"])
        .output()
        .unwrap();
    let page: Value = serde_json::from_slice(&first.stdout).unwrap();
    let next = page["nextCursor"].as_str().unwrap();
    // The cursor carries the condition (mcpguard's `where`; equality stays in the seed's map).
    let decoded = mcpguard()
        .args(["decode-cursor", next, "--format", "json"])
        .output()
        .unwrap();
    assert!(
        stdout(&decoded).contains("nights>5"),
        "{}",
        stdout(&decoded)
    );
    let other = mcpguard()
        .env("MCPGUARD_CURSOR_SECRET", "cli-find-test")
        .arg("paginate")
        .arg(repo("tests/fixtures/bookings-500.json"))
        .args(["--where", "nights>6", "--cursor", next])
        .output()
        .unwrap();
    assert_eq!(code(&other), 1);
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(
        err.contains("issued for filters nights>5; this request has nights>6"),
        "{err}"
    );
    let bad = mcpguard()
        .arg("paginate")
        .arg(repo("tests/fixtures/bookings-500.json"))
        .args(["--where", "nights", "--aggregate", "count"])
        .output()
        .unwrap();
    assert_eq!(code(&bad), 2);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--where `nights`: no operator"));
}

#[test]
fn paginate_aggregate_answers_with_figures() {
    let out = mcpguard()
        .arg("paginate")
        .arg(repo("tests/fixtures/bookings-500.json"))
        .args([
            "--where",
            "status=cancelled",
            "--aggregate",
            "count, sum(totalPrice.amount), max(nights)",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let figures: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cancelled: Vec<Value> = bookings()
        .into_iter()
        .filter(|b| b["status"] == "cancelled")
        .collect();
    let sum: u64 = cancelled
        .iter()
        .map(|b| b["totalPrice"]["amount"].as_u64().unwrap())
        .sum();
    let max = cancelled
        .iter()
        .map(|b| b["nights"].as_u64().unwrap())
        .max()
        .unwrap();
    assert_eq!(
        figures,
        json!({"matched": cancelled.len(), "of": 500, "count": cancelled.len(),
               "sum(totalPrice.amount)": sum, "max(nights)": max})
    );
}

/// The log of the examples, its entries as a log chunker cuts them.
fn log_entries() -> (String, Vec<String>) {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(repo("contracts/examples/fail-inv003-log-2mb-text.json")).unwrap(),
    )
    .unwrap();
    let log = doc["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut entries: Vec<String> = Vec::new();
    for line in log.split_inclusive('\n') {
        if line.starts_with("2026-") || entries.is_empty() {
            entries.push(line.to_owned());
        } else {
            entries.last_mut().unwrap().push_str(line);
        }
    }
    (log, entries)
}

/// The blocks of `--match` output: (first line, last line, text).
fn blocks(text: &str) -> Vec<(usize, usize, String)> {
    text.split("--- lines ")
        .skip(1)
        .map(|b| {
            let (range, body) = b.split_once('\n').unwrap();
            let (a, z) = range.split_once('-').unwrap();
            (a.parse().unwrap(), z.parse().unwrap(), body.to_owned())
        })
        .collect()
}

#[test]
fn chunk_match_gives_each_matching_entry_whole() {
    let (log, entries) = log_entries();
    let want: Vec<&String> = entries.iter().filter(|e| e.contains("Exception")).collect();
    assert!(want.len() > 10);
    let out = mcpguard()
        .arg("chunk")
        .arg(repo("contracts/examples/fail-inv003-log-2mb-text.json"))
        .args(["--match", "Exception"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0);
    let got = blocks(&stdout(&out));
    let lines: Vec<&str> = log.split_inclusive('\n').collect();
    for (a, z, text) in &got {
        assert_eq!(
            *text,
            lines[a - 1..*z].concat(),
            "lines {a}-{z} are the log's"
        );
    }
    let texts: Vec<&String> = got.iter().map(|(_, _, t)| t).collect();
    assert_eq!(texts, want);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{} log entries match `Exception`", want.len())),
        "{err}"
    );

    // JSON Lines for programs; nothing matching exits 1; a bad pattern exits 2.
    let jsonl = mcpguard()
        .arg("chunk")
        .arg(repo("contracts/examples/fail-inv003-log-2mb-text.json"))
        .args([
            "--match",
            "Exception",
            "--context",
            "1",
            "--format",
            "jsonl",
        ])
        .output()
        .unwrap();
    let first: Value = serde_json::from_str(stdout(&jsonl).lines().next().unwrap()).unwrap();
    let (a, z) = (
        first["startLine"].as_u64().unwrap() as usize,
        first["endLine"].as_u64().unwrap() as usize,
    );
    assert_eq!(first["text"], lines[a - 1..z].concat());
    assert!(
        !lines[a - 1].contains("Exception"),
        "a line of context before"
    );
    let none = mcpguard()
        .arg("chunk")
        .arg(repo("contracts/examples/fail-inv003-log-2mb-text.json"))
        .args(["--match", "no such thing"])
        .output()
        .unwrap();
    assert_eq!(code(&none), 1);
    let bad = mcpguard()
        .arg("chunk")
        .arg(repo("contracts/examples/fail-inv003-log-2mb-text.json"))
        .args(["--match", "(a"])
        .output()
        .unwrap();
    assert_eq!(code(&bad), 2);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not a valid pattern"));
}

#[test]
fn artifacts_show_finds_in_a_stored_result() {
    use mcpguard::proxy::store::{Artifacts as _, DirStore};
    use mcpguard::reshape::artifact::Ref;
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    let mut store = DirStore::new(&store_dir, std::time::Duration::from_secs(3600), 1 << 30);
    let log = std::fs::read(repo("contracts/examples/fail-inv003-log-2mb-text.json")).unwrap();
    let log_result =
        serde_json::to_vec(&serde_json::from_slice::<Value>(&log).unwrap()["result"]).unwrap();
    let log_ref = Ref::for_content("read_log", &log_result);
    store.put(&log_ref, &log_result).unwrap();
    let list = json!({"content": [{"type": "text",
        "text": std::fs::read_to_string(repo("tests/fixtures/bookings-500.json")).unwrap()}]});
    let list = serde_json::to_vec(&list).unwrap();
    let list_ref = Ref::for_content("list_bookings", &list);
    store.put(&list_ref, &list).unwrap();
    let show = |args: &[&str]| {
        mcpguard_in(dir.path())
            .args(["artifacts", "show", "--artifact-dir"])
            .arg(&store_dir)
            .args(args)
            .output()
            .unwrap()
    };

    let (_, entries) = log_entries();
    let found = show(&[&log_ref.to_string(), "--match", "ERROR"]);
    assert_eq!(
        code(&found),
        0,
        "{}",
        String::from_utf8_lossy(&found.stderr)
    );
    let texts: Vec<String> = blocks(&stdout(&found)).into_iter().map(|b| b.2).collect();
    let want: Vec<String> = entries
        .into_iter()
        .filter(|e| e.contains("ERROR"))
        .collect();
    assert_eq!(texts, want);

    let cancelled: Vec<Value> = bookings()
        .into_iter()
        .filter(|b| b["status"] == "cancelled")
        .collect();
    let records = show(&[&list_ref.to_string(), "--where", "status=cancelled"]);
    assert_eq!(
        code(&records),
        0,
        "{}",
        String::from_utf8_lossy(&records.stderr)
    );
    let got: Vec<Value> = stdout(&records)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(got, cancelled);
    let figures = show(&[
        &list_ref.to_string(),
        "--aggregate",
        "count",
        "--group-by",
        "status",
    ]);
    let f: Value = serde_json::from_slice(&figures.stdout).unwrap();
    let groups = f["groups"].as_array().unwrap();
    assert_eq!(
        groups
            .iter()
            .map(|g| g["count"].as_u64().unwrap())
            .sum::<u64>(),
        500
    );
    // A filter on text says so.
    let wrong = show(&[&log_ref.to_string(), "--where", "status=cancelled"]);
    assert_eq!(code(&wrong), 2);
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("holds text, not a list of records"));
}
