//! Hostile and broken input, as a user (or a server) would hand it over: each case gets a clear
//! message naming the file and the position, a defined exit code, and never a panic or a hang.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{code, mcpguard_in, transcript};

/// Runs mcpguard in `dir`; returns the exit code and everything it printed.
fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = common::run_bounded(mcpguard_in(dir), args);
    (code(&out), transcript(&out))
}

#[test]
fn broken_json_is_named_with_its_position_or_read_as_json_allows() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases: [(&str, &[u8], i32, &str); 12] = [
        // A lone surrogate escape is read, as U+FFFD.
        (
            "surrogate.json",
            br#"{"a":"\ud800x"}"#,
            0,
            "surrogate.json (11 tokens)",
        ),
        (
            "bigexp.json",
            br#"{"a":1e999999}"#,
            2,
            "bigexp.json:1:13: invalid JSON: number out of range: larger than a 64-bit float holds",
        ),
        ("dup.json", br#"{"a":1,"a":2}"#, 0, "dup.json ("),
        // A byte order mark is no part of the document.
        (
            "bom.json",
            b"\xef\xbb\xbf{\"a\":1}",
            0,
            "bom.json (5 tokens)",
        ),
        (
            "bom.jsonl",
            b"\xef\xbb\xbf{\"a\":1}\n{\"b\":2}\n",
            0,
            "bom.jsonl:2 (5 tokens)",
        ),
        ("nul.json", br#"{"a":"x\u0000y"}"#, 0, "nul.json ("),
        (
            "nan.json",
            br#"{"a":NaN}"#,
            2,
            "nan.json:1:6: invalid JSON: expected value: NaN and Infinity are not JSON",
        ),
        (
            "inf.json",
            b"{\"ok\":1,\n \"a\":Infinity}",
            2,
            "inf.json:2:6: invalid JSON: expected value: NaN and Infinity are not JSON",
        ),
        (
            "trailing.json",
            br#"{"a":1} trailing"#,
            2,
            "trailing.json:1:9: invalid JSON: trailing characters",
        ),
        (
            "nonl.jsonl",
            b"{\"a\":1}\n{\"b\":2}",
            0,
            "nonl.jsonl:2 (5 tokens)",
        ),
        (
            "crlf.jsonl",
            b"{\"a\":1}\r\n{\"b\":2}\r\n",
            0,
            "crlf.jsonl:2 (5 tokens)",
        ),
        (
            "utf16.json",
            b"\xff\xfe{\x00}\x00",
            2,
            "utf16.json:1:1: not valid UTF-8 (byte offset 0)",
        ),
    ];
    for (name, bytes, expected, message) in cases {
        std::fs::write(d.join(name), bytes).unwrap();
        let (status, text) = run(d, &["estimate", name]);
        assert_eq!(status, expected, "{name}: {text}");
        assert!(
            text.contains(message),
            "{name}: expected {message:?} in\n{text}"
        );
    }
    // A 400-digit integer: beyond a float, said so.
    std::fs::write(
        d.join("bigint.json"),
        format!("{{\"a\":{}}}", "9".repeat(400)),
    )
    .unwrap();
    let (status, text) = run(d, &["estimate", "bigint.json"]);
    assert_eq!(status, 2, "{text}");
    assert!(
        text.contains("bigint.json:1:405: invalid JSON: number out of range"),
        "{text}"
    );
}

#[test]
fn a_file_of_nothing_but_whitespace_is_empty_input() {
    // 64 MiB of spaces (a 1 GB one takes 4.4 s and 1.0 GB here: the same path, bigger).
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ws.json"), vec![b' '; 64 << 20]).unwrap();
    let (status, text) = run(dir.path(), &["estimate", "ws.json"]);
    assert_eq!(status, 2, "{text}");
    assert!(
        text.contains("ws.json: empty input: expected a JSON document"),
        "{text}"
    );
}

#[test]
fn directories_with_loops_and_unreadable_entries_audit_what_they_can() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let corpus = d.join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    std::fs::write(
        corpus.join("good.json"),
        br#"{"summary":"ok","success":true}"#,
    )
    .unwrap();
    // A link back to the directory itself, and a link to nothing.
    std::os::unix::fs::symlink("..", corpus.join("loop")).unwrap();
    std::os::unix::fs::symlink("missing.json", corpus.join("gone.json")).unwrap();
    let (status, text) = run(d, &["audit", "corpus"]);
    // The readable file is audited; the one that could not be read fails the audit (MG033):
    // a CI gate never passes on a capture it did not see.
    assert_eq!(status, 1, "{text}");
    assert!(text.contains("MG033"), "{text}");
    assert!(text.contains("\n1 document: "), "each file once: {text}");
    assert!(text.contains("corpus/gone.json: cannot read"), "{text}");
    assert_eq!(text.matches("good.json").count(), 1, "{text}");
}

#[test]
fn a_fifo_is_read_like_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            std::fs::write(&fifo, br#"{"items":[1,2,3]}"#).unwrap();
        })
    };
    let (status, text) = run(dir.path(), &["estimate", "pipe.json"]);
    writer.join().unwrap();
    assert_eq!(status, 0, "{text}");
    assert!(text.contains("pipe.json"), "{text}");
}

#[test]
fn an_alias_bomb_in_a_config_is_refused_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let mut yaml = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 9].join(", ");
        yaml.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    yaml.push_str("maxBytes: *a9\n");
    std::fs::write(dir.path().join("bomb.yaml"), yaml).unwrap();
    let (status, text) = run(dir.path(), &["validate-config", "bomb.yaml"]);
    assert_eq!(status, 1, "{text}");
    assert!(
        text.contains(
            "bomb.yaml:6:20: not valid YAML: the document expands past the parser's budget"
        ),
        "{text}"
    );
}

#[test]
fn a_huge_variable_expansion_is_never_printed() {
    // 100 copies of a 100 KB variable: a 10 MB argument, more than Linux lets one argument be.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let arg = "${BIG}".repeat(100);
    let config = serde_json::json!({"mcpServers": {"big": {"command": "echo", "args": [arg]}}});
    std::fs::write(d.join("mcp.json"), config.to_string()).unwrap();
    let out = mcpguard_in(d)
        .env("BIG", "x".repeat(100_000))
        .args(["audit", "--mcp-config", "mcp.json", "--timeout", "2"])
        .output()
        .unwrap();
    let text = transcript(&out);
    assert_eq!(code(&out), 2, "{}", &text[..text.len().min(2000)]);
    assert!(text.len() < 10_000, "{} bytes of output", text.len());
    assert!(
        !text.contains("xxxxxxxxxx"),
        "an expanded value was printed"
    );
    assert!(text.contains("big (echo '${BIG}${BIG}"), "{text}");
}

#[test]
fn every_read_limit_is_a_setting_and_going_past_one_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let records: Vec<_> = (0..100)
        .map(|i| serde_json::json!({"id": i, "name": format!("user {i}")}))
        .collect();
    let list = serde_json::json!({ "items": records }).to_string();
    std::fs::write(d.join("list.json"), &list).unwrap();
    let with = |var: &str, value: &str, args: &[&str], stdin: &[u8]| {
        let out = mcpguard_in(d)
            .env(var, value)
            .args(args)
            .write_stdin(stdin.to_vec())
            .output()
            .unwrap();
        let text = transcript(&out);
        assert!(!text.contains("panicked"), "{args:?}: {text}");
        (code(&out), text)
    };

    // A document over the limit is refused before it is read: a file by its size, standard
    // input once it has gone past the limit.
    let (status, text) = with(
        "MCPGUARD_MAX_DOCUMENT_BYTES",
        "1000",
        &["estimate", "list.json"],
        b"",
    );
    assert_eq!(status, 2, "{text}");
    let size = list.len();
    assert!(
        text.contains(&format!(
            "list.json: {size} bytes; not read (readLimits.maxDocumentBytes is 1000 bytes"
        )),
        "{text}"
    );
    let (status, text) = with(
        "MCPGUARD_MAX_DOCUMENT_BYTES",
        "1000",
        &["summarize", "-"],
        list.as_bytes(),
    );
    assert_eq!(status, 2, "{text}");
    assert!(
        text.contains("<stdin>: more than 1000 bytes; not read"),
        "{text}"
    );
    // The same document within a raised limit is read.
    let (status, text) = with(
        "MCPGUARD_MAX_DOCUMENT_BYTES",
        "100000",
        &["estimate", "list.json"],
        b"",
    );
    assert_eq!(status, 0, "{text}");

    // Nesting: the setting, with the position of the first level too deep.
    std::fs::write(d.join("deep.json"), r#"{"a": {"b": {"c": [1, {"d": 2}]}}}"#).unwrap();
    let (status, text) = with("MCPGUARD_MAX_NESTING", "3", &["estimate", "deep.json"], b"");
    assert_eq!(status, 2, "{text}");
    assert!(
        text.contains("deep.json:1:19: JSON nested deeper than 3 levels, the most mcpguard reads (readLimits.maxNesting"),
        "{text}"
    );
    let (status, _) = with("MCPGUARD_MAX_NESTING", "5", &["estimate", "deep.json"], b"");
    assert_eq!(status, 0);
    // Brackets inside strings are text, not nesting.
    std::fs::write(d.join("brackets.json"), r#"{"a": "[[[[{{{{\"[["}"#).unwrap();
    let (status, text) = with(
        "MCPGUARD_MAX_NESTING",
        "1",
        &["estimate", "brackets.json"],
        b"",
    );
    assert_eq!(status, 0, "{text}");
    // Past the parser's own bound is not a setting.
    let (status, text) = with(
        "MCPGUARD_MAX_NESTING",
        "500",
        &["estimate", "list.json"],
        b"",
    );
    assert_eq!(status, 2, "{text}");
    assert!(text.contains("MCPGUARD_MAX_NESTING"), "{text}");
    assert!(text.contains("128"), "{text}");

    // A JSONL line over the limit is skipped unread; the lines around it are audited.
    let long = format!(
        "{{\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}]}}}}",
        "x".repeat(5000)
    );
    let small = r#"{"result":{"content":[{"type":"text","text":"ok"}]}}"#;
    std::fs::write(d.join("t.jsonl"), format!("{small}\n{long}\n{small}\n")).unwrap();
    let (status, text) = with(
        "MCPGUARD_MAX_LINE_BYTES",
        "1000",
        &["audit", "t.jsonl", "--fail-on", "never"],
        b"",
    );
    assert_eq!(status, 0, "{text}");
    assert!(
        text.contains("t.jsonl:2: a line of more than 1000 bytes; not read"),
        "{text}"
    );
    assert!(
        text.contains("t.jsonl:1") && text.contains("t.jsonl:3"),
        "{text}"
    );
    assert!(
        text.contains("\n2 documents: 1 error, 0 warnings, 0 info; 1 input could not be read"),
        "{text}"
    );
    assert!(text.contains("MG033 t.jsonl:2"), "{text}");

    // A cursor limit: paginate issues none it could not read back, decode-cursor warns.
    let secret = "limits-secret";
    let out = mcpguard_in(d)
        .env("MCPGUARD_CURSOR_SECRET", secret)
        .args(["paginate", "list.json", "--limit", "10"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", transcript(&out));
    let page: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cursor = page["nextCursor"].as_str().unwrap().to_owned();
    assert!(cursor.len() > 64, "{cursor}");
    let out = mcpguard_in(d)
        .env("MCPGUARD_CURSOR_SECRET", secret)
        .env("MCPGUARD_MAX_CURSOR_BYTES", "64")
        .args(["paginate", "list.json", "--limit", "10"])
        .output()
        .unwrap();
    let text = transcript(&out);
    assert_eq!(code(&out), 2, "{text}");
    assert!(
        out.stdout.is_empty(),
        "no page without a cursor that reads back"
    );
    assert!(
        text.contains("over the 64 that paginate reads back (readLimits.maxCursorBytes)"),
        "{text}"
    );
    let out = mcpguard_in(d)
        .env("MCPGUARD_CURSOR_SECRET", secret)
        .env("MCPGUARD_MAX_CURSOR_BYTES", "64")
        .args(["paginate", "list.json", "--cursor", &cursor])
        .output()
        .unwrap();
    let text = transcript(&out);
    // Refused as every unusable cursor is (exit 1: start again without it).
    assert_eq!(code(&out), 1, "{text}");
    assert!(
        text.contains("over the 64-byte limit; not decoded"),
        "{text}"
    );
    let out = mcpguard_in(d)
        .env("MCPGUARD_CURSOR_SECRET", secret)
        .env("MCPGUARD_MAX_CURSOR_BYTES", "64")
        .args(["decode-cursor", &cursor])
        .output()
        .unwrap();
    let text = transcript(&out);
    assert!(
        text.contains("over the 64 that paginate and chunk accept (readLimits.maxCursorBytes)"),
        "{text}"
    );
    assert!(
        text.contains("\"offset\": 10") || text.contains("offset"),
        "still decoded: {text}"
    );
}

#[test]
fn a_file_that_shrinks_while_it_is_read_is_named_never_a_panic() {
    // A 64 MB document cut to a few bytes while mcpguard reads it: read before the cut it is
    // whole, read after it is JSON that ends early; in between, the read stops where the file
    // now ends. Each run must end in one of those, with a defined code.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let items: String = (0..2_000_000).map(|i| format!("{i},")).collect();
    let whole = format!("{{\"items\":[{}0]}}", items);
    let mut seen = std::collections::BTreeSet::new();
    for delay_ms in [0u64, 2, 5, 10, 20, 40] {
        std::fs::write(d.join("shrinks.json"), &whole).unwrap();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpguard"))
            .current_dir(d)
            .env("NO_COLOR", "1")
            .args(["estimate", "shrinks.json", "--tokenizer", "claude-fast"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(d.join("shrinks.json"))
            .unwrap();
        file.set_len(12).unwrap();
        let out = child.wait_with_output().unwrap();
        let text = transcript(&out);
        assert!(!text.contains("panicked"), "{text}");
        match code(&out) {
            0 | 1 => assert!(text.contains("shrinks.json ("), "read whole: {text}"),
            // Cut at the new end, or (a read racing the truncation) where the kernel had
            // already zeroed the page being cut.
            2 => assert!(
                text.contains("mcpguard: error: shrinks.json:1:")
                    && text.contains(": invalid JSON: "),
                "read cut: {text}"
            ),
            other => panic!("exit {other}: {text}"),
        }
        seen.insert(code(&out));
    }
    eprintln!("outcomes seen: {seen:?}");
}
