//! Hostile and broken input, as a user (or a server) would hand it over: each case gets a clear
//! message naming the file and the position, a defined exit code, and never a panic or a hang.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{code, mcpguard_in, transcript};

/// Runs mcpguard in `dir`; returns the exit code and everything it printed.
fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let started = Instant::now();
    let out = mcpguard_in(dir).args(args).output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{args:?} took {:?}",
        started.elapsed()
    );
    let text = transcript(&out);
    assert!(!text.contains("panicked"), "{args:?} panicked:\n{text}");
    (code(&out), text)
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
            "surrogate.json (9 tokens)",
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
            "bom.json (6 tokens)",
        ),
        (
            "bom.jsonl",
            b"\xef\xbb\xbf{\"a\":1}\n{\"b\":2}\n",
            0,
            "bom.jsonl:2 (6 tokens)",
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
            "nonl.jsonl:2 (6 tokens)",
        ),
        (
            "crlf.jsonl",
            b"{\"a\":1}\r\n{\"b\":2}\r\n",
            0,
            "crlf.jsonl:2 (6 tokens)",
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
    assert_eq!(status, 0, "the readable file is audited: {text}");
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
