//! The exact tokenizers agree with their references, count for count, on realistic documents:
//! `claude` and `claude-v3` with ctok 1.3.0 (tests/fixtures/ctok-counts.json, made by
//! scripts/ctok-reference.py), `claude-legacy` with @anthropic-ai/tokenizer's countTokens and
//! `o200k`/`cl100k` with tiktoken (tests/fixtures/token-counts.json, scripts/token-reference.js).
//! .ci/run re-derives both fixtures with the reference packages, so they cannot drift.

mod common;

use mcpguard::tokens::Tokenizer;
use serde_json::Value;

fn fixture(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(common::repo(path)).unwrap()).unwrap()
}

fn mismatches(counts: &serde_json::Map<String, Value>, tokenizers: &[Tokenizer]) -> Vec<String> {
    let mut out = Vec::new();
    for (file, expected) in counts {
        let text = std::fs::read_to_string(common::repo(file)).unwrap();
        for &tokenizer in tokenizers {
            let got = tokenizer.counter().count(&text) as u64;
            let want = expected[tokenizer.name()].as_u64().unwrap();
            if got != want {
                out.push(format!(
                    "{file} {tokenizer}: mcpguard {got}, reference {want}"
                ));
            }
        }
    }
    out
}

#[test]
fn claude_families_match_ctok_count_for_count() {
    let doc = fixture("tests/fixtures/ctok-counts.json");
    let counts = doc["counts"].as_object().unwrap();
    assert!(counts.len() >= 40, "at least forty realistic documents");
    let bad = mismatches(counts, &[Tokenizer::Claude, Tokenizer::ClaudeV3]);
    assert!(
        bad.is_empty(),
        "{} of {}: {bad:#?}",
        bad.len(),
        counts.len() * 2
    );
}

#[test]
fn bpe_tokenizers_match_their_reference_packages() {
    let doc = fixture("tests/fixtures/token-counts.json");
    let counts = doc.as_object().unwrap();
    assert!(counts.len() >= 5, "at least five realistic documents");
    let bad = mismatches(
        counts,
        &[Tokenizer::ClaudeLegacy, Tokenizer::O200k, Tokenizer::Cl100k],
    );
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn heuristic_error_against_claude_is_reported_honestly() {
    // The seed claims ±20% for 90% of responses. Against the current tokenizer the heuristic
    // undercounts; the test pins the direction on the two extremes so a change is noticed.
    let count = |t: Tokenizer, path: &str| {
        t.counter()
            .count(&std::fs::read_to_string(common::repo(path)).unwrap()) as f64
    };
    let base64 = "contracts/examples/fail-inv003-base64-screenshot.json";
    let (heuristic, claude) = (
        count(Tokenizer::Heuristic, base64),
        count(Tokenizer::Claude, base64),
    );
    assert!(
        heuristic < claude * 0.5,
        "base64 is far denser in tokens than 4 chars each: {heuristic} vs {claude}"
    );
    let records = "contracts/examples/fail-inv001-bookings-60kb.json";
    let (heuristic, claude) = (
        count(Tokenizer::Heuristic, records),
        count(Tokenizer::Claude, records),
    );
    assert!(
        heuristic < claude,
        "pretty JSON records: the heuristic undercounts: {heuristic} vs {claude}"
    );
}

/// Seeded adversarial strings with ctok's counts, written by scripts/ctok-differential.py (which
/// needs ctok, so .ci/run runs it and then this test by name). Fails loudly when the file is
/// missing rather than passing on nothing.
#[test]
#[ignore = "needs target/ctok-differential.json from scripts/ctok-differential.py (.ci/run)"]
fn differential_against_ctok_on_adversarial_strings() {
    let path = common::repo("target/ctok-differential.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run scripts/ctok-differential.py first",
            path.display()
        )
    });
    let cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(cases.len() >= 1000, "a real sample, not {}", cases.len());
    let mut bad = Vec::new();
    for case in &cases {
        let input = case["text"].as_str().unwrap();
        for t in [Tokenizer::Claude, Tokenizer::ClaudeV3] {
            let got = t.counter().count(input) as u64;
            let want = case[t.name()].as_u64().unwrap();
            if got != want {
                bad.push(format!("{t} {input:?}: mcpguard {got}, ctok {want}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} differ:\n{}",
        bad.len(),
        cases.len() * 2,
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// `auto` is exact where it matters: on every corpus text (the token fixtures, the contract's
/// examples, the multilingual fit texts) and for limits on both sides of its count, from 0.55x
/// to 1.8x, its verdict (over or not) is the exact count's verdict.
#[test]
fn auto_verdicts_equal_the_exact_verdicts_near_every_limit() {
    let mut texts: Vec<(String, String)> = Vec::new();
    for dir in ["tests/fixtures/tokens", "contracts/examples"] {
        for entry in std::fs::read_dir(common::repo(dir)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            if text.len() <= 300_000 {
                texts.push((path.display().to_string(), text));
            }
        }
    }
    let jsonl =
        std::fs::read_to_string(common::repo("tests/fixtures/claude-fast-texts.jsonl")).unwrap();
    for (i, line) in jsonl.lines().enumerate() {
        let v: Value = serde_json::from_str(line).unwrap();
        texts.push((
            format!("claude-fast-texts.jsonl:{}", i + 1),
            v["text"].as_str().unwrap().to_owned(),
        ));
    }
    assert!(texts.len() > 250, "{} texts", texts.len());

    let mut wrong = Vec::new();
    for (name, text) in &texts {
        let exact = Tokenizer::Claude.counter().count(text) as u64;
        for factor in [
            0.55, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.25, 1.5, 1.8,
        ] {
            let limit = ((exact as f64 * factor).round() as u64).max(1);
            let (auto, _) =
                Tokenizer::Auto.count_for_verdict([text.as_str()].into_iter(), 0, &[limit]);
            if (auto > limit) != (exact > limit) {
                wrong.push(format!("{name}: limit {limit}, auto {auto}, exact {exact}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Hostile text is counted, by both families, without a panic (linear time and flat memory
/// are shown by scripts/bench-tokens.sh).
#[test]
fn hostile_text_is_counted() {
    let cases = [
        "x".repeat(1_000_000),
        "\u{1F600}".repeat(100_000),
        format!("a{}", "\u{301}".repeat(100_000)),
        "a\0b\0".repeat(10_000),
        "\n".repeat(200_000),
        ".".repeat(100_000) + &"\n".repeat(100_000),
        "\u{FDD0}\u{FDD1}\u{FDD3}\u{FDD4}\u{E000}\u{F8FF}".repeat(1_000),
    ];
    for text in &cases {
        for t in [
            Tokenizer::Claude,
            Tokenizer::ClaudeV3,
            Tokenizer::ClaudeFast,
        ] {
            let n = t.counter().count(text);
            assert!(n > 0 || text.trim_end_matches('\n').is_empty(), "{t}: {n}");
        }
    }
}
