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
