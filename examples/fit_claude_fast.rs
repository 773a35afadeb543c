//! Refits the weights of `claude-fast` (src/tokens/fast.rs) to the exact `claude` count, and
//! prints its accuracy per content type against every counter.
//!
//! `claude-fast` is the class model scaled on each response by the exact count of a sample of
//! it (src/tokens/calibrated.rs); the table prints both, the model alone as `class model`.
//!
//!     cargo run --release --example fit_claude_fast            # accuracy of the shipped weights
//!     cargo run --release --example fit_claude_fast -- --fit   # refit, print the new WEIGHTS
//!
//! The texts: tests/fixtures/tokens (prose in 14 languages, code, logs, diffs, JSON, MCP
//! messages, base64, hex, UUIDs), tests/fixtures/claude-fast-texts.jsonl (prose, records, logs
//! and CSV in 28 languages), contracts/examples, the corpus of captured MCP responses
//! (tests/fixtures/corpus), the large ones also cut into 4 KB pieces, and
//! generated base64 and hex of several lengths. The fit is least squares on the relative error,
//! reweighted so that an under-estimate costs twice an over-estimate (a fast count should
//! lean high).

use std::collections::BTreeMap;
use std::path::Path;

use mcpguard::tokens::Tokenizer;
use mcpguard::tokens::calibrated;
use mcpguard::tokens::fast::{FEATURES, Features, N, WEIGHTS};

struct Sample {
    kind: &'static str,
    text: String,
    claude: f64,
    features: [f64; N],
}

fn kind_of(name: &str) -> &'static str {
    let non_latin = ["ru", "el", "ar", "hi", "th"];
    let cjk = ["ja", "zh", "ko"];
    match name {
        n if cjk.iter().any(|l| n.starts_with(&format!("prose-{l}"))) => "CJK",
        n if n.starts_with("prose-")
            && non_latin
                .iter()
                .any(|l| n.starts_with(&format!("prose-{l}"))) =>
        {
            "non-Latin prose"
        }
        n if n.starts_with("prose-") || n.ends_with(".md") => "prose",
        n if n.starts_with("code-") => "code",
        n if n.starts_with("log-") || n.starts_with("git-log") => "logs",
        n if n.starts_with("diff") => "diffs",
        n if n.starts_with("base64") => "base64",
        n if n.starts_with("hex") || n.starts_with("uuid") => "hex",
        n if n.starts_with("emoji") || n.starts_with("combining") => "emoji, marks",
        _ => "JSON, MCP",
    }
}

/// A deterministic byte stream (xorshift), for generated base64 and hex.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn texts() -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let add_file = |path: &Path, kind: &'static str, out: &mut Vec<(&'static str, String)>| {
        let Ok(text) = std::fs::read_to_string(path) else {
            return;
        };
        if text.len() > 8_000 {
            // Large texts also as pieces, cut at line ends.
            let mut piece = String::new();
            for line in text.split_inclusive('\n') {
                piece.push_str(line);
                if piece.len() >= 4_000 {
                    out.push((kind, std::mem::take(&mut piece)));
                }
            }
        }
        out.push((kind, text));
    };
    let mut entries: Vec<_> = std::fs::read_dir("tests/fixtures/tokens")
        .expect("run from the repository root")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        add_file(&path, kind_of(&name), &mut out);
    }
    for dir in ["contracts/examples", "tests/fixtures/corpus"] {
        let Ok(read) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut paths: Vec<_> = read.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
        {
            let name = path.file_name().unwrap().to_string_lossy();
            let kind = if name.contains("base64") {
                "base64"
            } else {
                "JSON, MCP"
            };
            add_file(path, kind, &mut out);
        }
    }
    // Multilingual prose, records, logs and CSV from scripts/make-fit-texts.py.
    if let Ok(jsonl) = std::fs::read_to_string("tests/fixtures/claude-fast-texts.jsonl") {
        for line in jsonl.lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("one JSON object a line");
            let source = v["source"].as_str().unwrap_or("");
            let cjk = ["ja_JP", "zh_CN", "zh_TW", "ko_KR"]
                .iter()
                .any(|l| source.contains(l));
            let kind = match v["kind"].as_str().unwrap_or("") {
                "non-Latin prose" | "non-Latin names" if cjk => "faker CJK",
                "prose" => "faker prose",
                "logs" => "faker logs",
                "JSON, MCP" => "faker records",
                _ => "faker non-Latin",
            };
            out.push((kind, v["text"].as_str().unwrap_or("").to_owned()));
        }
    }
    use base64::Engine as _;
    for (i, len) in [60usize, 300, 1_500, 6_000, 30_000].into_iter().enumerate() {
        let bytes = noise(i as u64 + 7, len);
        out.push((
            "base64",
            base64::engine::general_purpose::STANDARD.encode(&bytes),
        ));
        out.push((
            "base64",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&bytes),
        ));
        out.push(("hex", bytes.iter().map(|b| format!("{b:02x}")).collect()));
        out.push((
            "hex",
            bytes
                .iter()
                .map(|b| format!("{b:02X}"))
                .collect::<Vec<_>>()
                .join(" "),
        ));
    }
    out
}

/// Solves (A^T W A + ridge) w = A^T W b by Gaussian elimination.
fn least_squares(rows: &[[f64; N]], targets: &[f64], weights: &[f64]) -> [f64; N] {
    let mut m = [[0.0f64; N + 1]; N];
    for ((x, &y), &w) in rows.iter().zip(targets).zip(weights) {
        for i in 0..N {
            for j in 0..N {
                m[i][j] += w * x[i] * x[j];
            }
            m[i][N] += w * x[i] * y;
        }
    }
    // A little ridge: features few texts have stay near zero instead of absorbing noise.
    let ridge = 1e-3 * (0..N).map(|i| m[i][i]).sum::<f64>() / N as f64;
    for (i, row) in m.iter_mut().enumerate() {
        row[i] += ridge;
    }
    for col in 0..N {
        let pivot = (col..N)
            .max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))
            .unwrap();
        m.swap(col, pivot);
        let pivot_row = m[col];
        for (r, row) in m.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot_row[col];
                row.iter_mut()
                    .zip(&pivot_row)
                    .skip(col)
                    .for_each(|(x, p)| *x -= f * p);
            }
        }
    }
    std::array::from_fn(|i| m[i][N] / m[i][i])
}

/// How much more an under-estimate costs than an over-estimate in the fit.
const UNDER_COST: f64 = 2.0;

/// The kinds the estimate must not under-estimate by more than 10%, and what doing so costs.
const PROTECTED: [&str; 6] = [
    "base64",
    "hex",
    "non-Latin prose",
    "faker non-Latin",
    "CJK",
    "faker CJK",
];
const PROTECTED_UNDER_COST: f64 = 40.0;

fn fit(samples: &[Sample]) -> [f64; N] {
    // Relative error: each row divided by its count, the target 1.
    let rows: Vec<[f64; N]> = samples
        .iter()
        .map(|s| s.features.map(|f| f / s.claude))
        .collect();
    let ones = vec![1.0; rows.len()];
    let mut w = vec![1.0; rows.len()];
    let mut weights = least_squares(&rows, &ones, &w);
    for _ in 0..30 {
        for (i, row) in rows.iter().enumerate() {
            let pred: f64 = row.iter().zip(&weights).map(|(x, w)| x * w).sum();
            w[i] = match (pred < 1.0, PROTECTED.contains(&samples[i].kind)) {
                (true, true) => PROTECTED_UNDER_COST,
                (true, false) => UNDER_COST,
                (false, _) => 1.0,
            };
        }
        weights = least_squares(&rows, &ones, &w);
    }
    weights
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let refit = std::env::args().any(|a| a == "--fit");
    let claude = Tokenizer::Claude.counter();
    let samples: Vec<Sample> = texts()
        .into_iter()
        .map(|(kind, text)| Sample {
            kind,
            claude: claude.count(&text) as f64,
            features: Features::of(text.as_bytes()).counts(),
            text,
        })
        .filter(|s| s.claude >= 20.0)
        .collect();

    let weights = if refit { fit(&samples) } else { WEIGHTS };
    // Generalisation: fit on every other text, measure on the rest.
    let (train, test): (Vec<_>, Vec<_>) = samples.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let train: Vec<Sample> = train
        .into_iter()
        .map(|(_, s)| Sample {
            kind: s.kind,
            text: s.text.clone(),
            claude: s.claude,
            features: s.features,
        })
        .collect();
    let half = fit(&train);
    let held_out: Vec<f64> = test
        .iter()
        .map(|(_, s)| {
            (Features::of(s.text.as_bytes()).estimate(&half) as f64 - s.claude) / s.claude * 100.0
        })
        .collect();
    let within = held_out.iter().filter(|e| e.abs() <= 10.0).count();
    println!(
        "class model held out (fit on half, measured on the other {}): {:.1}% within 10%, worst {:+.1}% / {:+.1}%",
        held_out.len(),
        within as f64 * 100.0 / held_out.len() as f64,
        held_out.iter().copied().fold(f64::INFINITY, f64::min),
        held_out.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    if refit {
        println!("pub const WEIGHTS: [f64; N] = [");
        for (name, w) in FEATURES.iter().zip(weights) {
            println!("    {w:.4}, // {name}");
        }
        println!("];\n");
    }

    // Error of each counter against claude, per kind: median, worst under, worst over, share within 10%.
    let mut by_kind: BTreeMap<(&str, &str), Vec<f64>> = BTreeMap::new();
    for s in &samples {
        let fast = Features::of(s.text.as_bytes()).estimate(&weights) as f64;
        let mut record = |name: &'static str, n: f64| {
            let err = (n - s.claude) / s.claude * 100.0;
            by_kind.entry((name, s.kind)).or_default().push(err);
            by_kind.entry((name, "all")).or_default().push(err);
            let origin = if s.kind.starts_with("faker") {
                "all faker"
            } else {
                "all real"
            };
            by_kind.entry((name, origin)).or_default().push(err);
            if s.text.len() > calibrated::SAMPLE {
                // The texts claude-fast estimates rather than counts.
                by_kind
                    .entry((name, "all over 2 KB"))
                    .or_default()
                    .push(err);
            }
        };
        // What a response gets: the model scaled by its exact count on a sample of the text.
        let response = calibrated::estimate([s.text.as_str()].into_iter(), claude).tokens as f64;
        record("claude-fast", response);
        record("class model", fast);
        for t in [
            Tokenizer::ClaudeV3,
            Tokenizer::ClaudeLegacy,
            Tokenizer::Heuristic,
            Tokenizer::O200k,
        ] {
            record(t.name(), t.counter().count(&s.text) as f64);
        }
    }
    if std::env::var_os("FIT_WORST").is_some() {
        let mut worst: Vec<(f64, &Sample)> = samples
            .iter()
            .map(|s| {
                (
                    (Features::of(s.text.as_bytes()).estimate(&weights) as f64 - s.claude)
                        / s.claude
                        * 100.0,
                    s,
                )
            })
            .collect();
        worst.sort_by(|a, b| b.0.abs().total_cmp(&a.0.abs()));
        for (err, s) in worst.iter().take(40) {
            let head: String = s.text.chars().take(60).collect();
            println!("{err:+6.1}% {:>6} {:<16} {head:?}", s.claude, s.kind);
        }
    }
    println!(
        "{} texts ({} bytes)",
        samples.len(),
        samples.iter().map(|s| s.text.len()).sum::<usize>()
    );
    println!(
        "{:<14} {:<16} {:>5} {:>8} {:>8} {:>8} {:>8}",
        "counter", "content", "texts", "median", "min", "max", "<=10%"
    );
    for ((name, kind), mut errs) in by_kind {
        errs.sort_by(f64::total_cmp);
        let within = errs.iter().filter(|e| e.abs() <= 10.0).count() as f64 / errs.len() as f64;
        println!(
            "{name:<14} {kind:<16} {:>5} {:>+7.1}% {:>+7.1}% {:>+7.1}% {:>7.0}%",
            errs.len(),
            percentile(&errs, 0.5),
            errs[0],
            errs[errs.len() - 1],
            within * 100.0
        );
    }
}
