//! `mcpguard chunk` as a user runs it: a 10,000-line log with stack traces walked chunk by
//! chunk, ranges, documents, tool results, and bad input.

mod common;

use std::fmt::Write as _;
use std::fs;

use common::{code, mcpguard_in, settings, transcript};
use serde_json::Value;

const SECRET: &str = "chunk-test-secret";

/// A realistic application log: access lines, warnings, Java stack traces with causes, Python
/// tracebacks. Deterministic.
fn log(lines: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    let mut i = 0u64;
    while n < lines {
        i += 1;
        let ts = format!(
            "2026-11-20 {:02}:{:02}:{:02}.{:03}",
            (i / 3600) % 24,
            (i / 60) % 60,
            i % 60,
            (i * 37) % 1000
        );
        match i % 23 {
            7 => {
                let _ = write!(
                    out,
                    "{ts} ERROR [http-nio-8080-exec-{}] c.a.booking.PaymentService - capture failed for bk_{i:05}\n\
                     java.lang.IllegalStateException: card declined\n\
                     \tat com.acme.booking.payment.StripeGateway.capture(StripeGateway.java:214)\n\
                     \tat com.acme.booking.payment.PaymentService.charge(PaymentService.java:88)\n\
                     \tat com.acme.booking.api.BookingController.confirm(BookingController.java:152)\n\
                     Caused by: com.stripe.exception.CardException: insufficient funds\n\
                     \tat com.stripe.net.LiveStripeResponseGetter.handleApiError(LiveStripeResponseGetter.java:216)\n\
                     \t... 41 more\n",
                    i % 40
                );
                n += 8;
            }
            13 => {
                let _ = write!(
                    out,
                    "{ts} ERROR worker crashed\nTraceback (most recent call last):\n  File \"worker.py\", line 88, in run\n    process(job)\n  File \"jobs.py\", line 12, in process\n    raise ValueError(\"bad job\")\nValueError: bad job\n"
                );
                n += 7;
            }
            _ => {
                let _ = writeln!(
                    out,
                    "{ts} INFO  [exec-{}] GET /api/v1/bookings?page={} 200 {}ms",
                    i % 40,
                    i % 50,
                    i % 380
                );
                n += 1;
            }
        }
    }
    out
}

fn chunk(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    mcpguard_in(dir)
        .env("MCPGUARD_CURSOR_SECRET", SECRET)
        .arg("chunk")
        .args(args)
        .args(["--at", "1763712000"])
        .output()
        .unwrap()
}

fn continues_an_entry(first_line: &str) -> bool {
    first_line.starts_with('\t')
        || first_line.starts_with("  ")
        || first_line.starts_with("Caused by")
        || first_line.starts_with("Traceback")
        || first_line.starts_with("java.lang.")
        || first_line.starts_with("ValueError")
}

#[test]
fn a_ten_thousand_line_log_in_200_line_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let text = log(10_000);
    fs::write(dir.path().join("app.log"), &text).unwrap();
    let mut cursor: Option<String> = None;
    let mut joined = String::new();
    let mut seen = 0;
    loop {
        let mut args = vec!["app.log", "--max-lines", "200", "--max-tokens", "100000"];
        if let Some(c) = &cursor {
            args.extend(["--cursor", c.as_str()]);
        }
        let out = chunk(dir.path(), &args);
        assert_eq!(code(&out), 0, "{}", transcript(&out));
        let c: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(c["chunkIndex"], seen);
        let content = c["content"].as_str().unwrap();
        let lines = content.lines().count();
        assert!(lines <= 200, "chunk {seen} has {lines} lines");
        assert_eq!(c["metadata"]["kind"], "log");
        assert!(
            c["metadata"].get("splitEntry").is_none(),
            "no entry is longer than a chunk here"
        );
        let first = content.lines().next().unwrap();
        assert!(
            !continues_an_entry(first),
            "chunk {seen} starts inside an entry: {first:?}"
        );
        assert_eq!(
            c["metadata"]["bytesInChunk"].as_u64(),
            Some(content.len() as u64)
        );
        joined.push_str(content);
        seen += 1;
        match c.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => {
                assert_eq!(c["totalChunks"], seen);
                break;
            }
        }
    }
    assert!(
        seen >= 50,
        "10,000 lines in chunks of at most 200: {seen} chunks"
    );
    assert_eq!(
        joined, text,
        "concatenated chunks are the file, byte for byte"
    );
    // The same, all at once.
    let all = chunk(
        dir.path(),
        &[
            "app.log",
            "--max-lines",
            "200",
            "--max-tokens",
            "100000",
            "--all",
            "--format",
            "text",
        ],
    );
    assert_eq!(String::from_utf8(all.stdout).unwrap(), text);
}

#[test]
fn default_token_limit_and_the_cursor_binds_the_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("app.log"), log(3_000)).unwrap();
    let first = chunk(dir.path(), &["app.log"]);
    let c: Value = serde_json::from_slice(&first.stdout).unwrap();
    let tokens = mcpguard::tokens::Tokenizer::Heuristic
        .counter()
        .count(c["content"].as_str().unwrap());
    assert!(tokens <= 2000, "chunkSize 2000 by default: {tokens}");
    let next = c["nextCursor"].as_str().unwrap().to_owned();

    fs::write(
        dir.path().join("other.log"),
        log(3_000) + "2026-11-20 23:59:59.999 INFO  one more line\n",
    )
    .unwrap();
    let elsewhere = chunk(dir.path(), &["other.log", "--cursor", &next]);
    let contradicted = chunk(
        dir.path(),
        &["app.log", "--cursor", &next, "--max-lines", "10"],
    );
    let page = {
        let out = mcpguard_in(dir.path())
            .env("MCPGUARD_CURSOR_SECRET", SECRET)
            .args(["paginate", "-", "--limit", "1", "--at", "1763712000"])
            .write_stdin("[1,2]")
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["nextCursor"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let wrong_kind = chunk(dir.path(), &["app.log", "--cursor", &page]);
    assert_eq!(
        (code(&elsewhere), code(&contradicted), code(&wrong_kind)),
        (1, 1, 1)
    );
    settings(Some(dir.path())).bind(|| {
        insta::assert_snapshot!(format!(
            "{}\n{}\n{}",
            transcript(&elsewhere),
            transcript(&contradicted),
            transcript(&wrong_kind)
        ))
    });
}

#[test]
fn small_content_comes_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("note.txt"), "A short note.\n").unwrap();
    let out = mcpguard_in(dir.path())
        .args(["chunk", "note.txt"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "no secret needed for a single piece");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"content\":\"A short note.\\n\"}\n"
    );
}

#[test]
fn line_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let text = log(5_000);
    fs::write(dir.path().join("app.log"), &text).unwrap();
    let out = mcpguard_in(dir.path())
        .args(["chunk", "app.log", "--lines", "4990:5010"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected: String = text
        .lines()
        .skip(4989)
        .take(21)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(got["content"], expected);
    assert_eq!(
        got["metadata"]["totalLines"].as_u64(),
        Some(text.lines().count() as u64)
    );
    let raw = mcpguard_in(dir.path())
        .args(["chunk", "app.log", "--lines", "2", "--format", "text"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(raw.stdout).unwrap(),
        format!("{}\n", text.lines().nth(1).unwrap())
    );
    let reversed = mcpguard_in(dir.path())
        .args(["chunk", "app.log", "--lines", "200:100"])
        .output()
        .unwrap();
    let past = mcpguard_in(dir.path())
        .args(["chunk", "app.log", "--lines", "99999:100000"])
        .output()
        .unwrap();
    assert_eq!((code(&reversed), code(&past)), (2, 2));
    settings(Some(dir.path())).bind(|| {
        insta::assert_snapshot!(format!("{}\n{}", transcript(&reversed), transcript(&past)))
    });
}

#[test]
fn documents_jsonl_and_tool_results() {
    let dir = tempfile::tempdir().unwrap();
    let mut md = String::from("# Guide\n\nIntro paragraph.\n\n");
    for s in 0..30 {
        let _ = write!(
            md,
            "## Section {s}\n\nSome prose about section {s}. It has two sentences.\n\n```python\ndef f{s}():\n    return {s}\n\n\nprint(f{s}())\n```\n\n"
        );
    }
    fs::write(dir.path().join("guide.md"), &md).unwrap();
    let out = chunk(
        dir.path(),
        &[
            "guide.md",
            "--max-lines",
            "25",
            "--all",
            "--format",
            "jsonl",
        ],
    );
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    let chunks: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let contents: Vec<&str> = chunks
        .iter()
        .map(|c| c["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents.concat(), md);
    for c in &contents {
        assert_eq!(
            c.matches("```").count() % 2,
            0,
            "a fence is never split: {c}"
        );
    }
    assert_eq!(chunks[0]["metadata"]["kind"], "markdown");

    let records: String = (0..3000)
        .map(|i| format!("{{\"id\":{i},\"msg\":\"record number {i}\"}}\n"))
        .collect();
    fs::write(dir.path().join("events.jsonl"), &records).unwrap();
    let out = chunk(
        dir.path(),
        &[
            "events.jsonl",
            "--max-tokens",
            "500",
            "--all",
            "--format",
            "jsonl",
        ],
    );
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let c: Value = serde_json::from_str(line).unwrap();
        for record in c["content"].as_str().unwrap().lines() {
            serde_json::from_str::<Value>(record).expect("whole records only");
        }
    }

    let result = serde_json::json!({"jsonrpc": "2.0", "id": 5, "result": {"content": [{"type": "text", "text": log(2_000)}]}});
    fs::write(dir.path().join("tool.json"), result.to_string()).unwrap();
    let out = chunk(dir.path(), &["tool.json"]);
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        c["content"]
            .as_str()
            .unwrap()
            .starts_with("2026-11-20 00:00:01"),
        "the tool result's text is chunked"
    );
    assert_eq!(c["metadata"]["kind"], "log");
}

#[test]
fn bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("empty.log"), "").unwrap();
    fs::write(d.join("image.png"), b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR").unwrap();
    fs::write(d.join("latin1.txt"), b"caf\xe9 au lait\n").unwrap();
    // Large enough to need more than one chunk, so a cursor (and a secret) is needed.
    fs::write(d.join("ok.log"), log(3_000)).unwrap();
    let runs: Vec<std::process::Output> = ["empty.log", "image.png", "latin1.txt", "missing.log"]
        .iter()
        .map(|f| chunk(d, &[f]))
        .collect();
    let no_secret = mcpguard_in(d)
        .env_remove("MCPGUARD_CURSOR_SECRET")
        .args(["chunk", "ok.log"])
        .output()
        .unwrap();
    for out in runs.iter().chain([&no_secret]) {
        assert_eq!(code(out), 2, "{}", transcript(out));
        assert!(out.stdout.is_empty());
    }
    let text: Vec<String> = runs.iter().chain([&no_secret]).map(transcript).collect();
    settings(Some(d)).bind(|| insta::assert_snapshot!(text.join("\n")));
}

#[test]
fn a_single_50_mb_line() {
    let dir = tempfile::tempdir().unwrap();
    let sentence = "The quick brown fox jumps over the lazy dog again and again. ";
    let line: String = sentence.repeat(50 * 1024 * 1024 / sentence.len());
    fs::write(dir.path().join("one-line.txt"), &line).unwrap();
    let out = chunk(dir.path(), &["one-line.txt", "--all", "--format", "jsonl"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let mut joined = String::with_capacity(line.len());
    let mut n = 0;
    for l in String::from_utf8(out.stdout).unwrap().lines() {
        let c: Value = serde_json::from_str(l).unwrap();
        assert_eq!(c["metadata"]["splitEntry"], true);
        let content = c["content"].as_str().unwrap();
        if c.get("nextCursor").is_some() {
            assert!(content.ends_with(". "), "cut after a sentence");
        }
        joined.push_str(content);
        n += 1;
    }
    assert!(n > 1000);
    assert!(joined == line, "the pieces are the line");
}
