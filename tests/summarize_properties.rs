//! The invariant users rely on: whatever the input and whatever the limits (above a small
//! floor), `summarize` produces valid JSON that fits every limit: bytes, tokens, depth, array,
//! string and summary lengths, no base64 runs. It is checked by mcpguard's own linter, the
//! same rules `mcpguard audit` applies, on the finished output.

mod common;

use std::collections::BTreeMap;

use mcpguard::audit::{self, Context};
use mcpguard::config::Config;
use mcpguard::contract::Limits;
use mcpguard::document::input::Document;
use mcpguard::reshape::summarize::{self, Fields, Options, Outcome};
use mcpguard::tokens::Tokenizer;
use proptest::prelude::*;
use serde_json::{Value, json};

fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z0-9 .,é\u{1F600}-]{0,40}",
        // Prose long enough to be summarized.
        1 => prop::collection::vec("[A-Z][a-z]{1,9}( [a-z]{1,9}){2,14}[.!?]", 1..40)
            .prop_map(|s| s.join(" ")),
        // Base64-looking blobs, bare or in a data: URI.
        1 => ("[A-Za-z0-9+/]{300,1200}", any::<bool>())
            .prop_map(|(b, uri)| if uri { format!("data:image/png;base64,{b}") } else { b }),
        // Long unbroken text, and multi-line logs.
        1 => "[a-z0-9é]{400,2000}",
        1 => prop::collection::vec("2026-11-20 10:[0-5][0-9] (INFO|ERROR) [a-z ]{5,60}", 5..60)
            .prop_map(|l| l.join("\n")),
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        arb_string().prop_map(Value::String),
    ];
    common::random_json(
        leaf.boxed(),
        "(id|name|status|notes|[a-zA-Z_]{1,12})",
        (8, 400),
        (40, 12),
    )
}

/// The value as a response: plain, a tool result's JSON text (maybe with structuredContent),
/// a plain-text tool result, or a JSON-RPC result.
fn arb_document() -> impl Strategy<Value = String> {
    (arb_json(), 0..5u8, any::<bool>()).prop_map(|(v, wrap, pretty)| {
        let text = |v: &Value| {
            if pretty {
                serde_json::to_string_pretty(v).unwrap()
            } else {
                v.to_string()
            }
        };
        let doc = match wrap {
            0 => v,
            1 => json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text(&v)}]}}),
            2 => json!({"jsonrpc": "2.0", "id": 2, "result": {
                "content": [{"type": "text", "text": text(&v)}], "structuredContent": v}}),
            3 => json!({"content": [{"type": "text", "text": match &v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }}]}),
            _ => json!({"jsonrpc": "2.0", "id": "r", "result": v}),
        };
        text(&doc)
    })
}

fn arb_limits() -> impl Strategy<Value = (Limits, u64)> {
    (
        1024u64..20_000,
        1u64..12,
        64u64..600,
        2u64..6,
        40u64..120,
        300u64..5000,
    )
        .prop_map(|(bytes, items, string, depth, summary, budget)| {
            let limits = Limits {
                max_bytes: bytes,
                max_array_items: items,
                max_string_length: string,
                max_json_depth: depth,
                max_summary_length: summary,
                ..Limits::default()
            };
            (limits, budget)
        })
}

fn document(text: String) -> Document {
    let value = serde_json::from_str(&text).unwrap();
    Document {
        name: "prop.json".into(),
        file: "prop.json".into(),
        line: 1,
        text,
        value,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_output_always_fits(
        text in arb_document(),
        (limits, budget) in arb_limits(),
        force in any::<bool>(),
        artifact in any::<bool>(),
        fields in prop_oneof![Just(Fields::Auto), Just(Fields::All),
            Just(Fields::Paths(vec!["id".into(), "status".into(), "notes.text".into()]))],
    ) {
        let projections = BTreeMap::new();
        let opts = Options {
            limits: limits.clone(),
            budget,
            tokenizer: Tokenizer::Heuristic,
            media_tokens: 1600,
            fields,
            projections: &projections,
            drop_empty: false,
            table: false,
            force,
            output_schema: None,
            domain: None,
            artifact,
            more_tool: None,
        };
        let mut stored = None;
        let summary = summarize::summarize("prop.json", text.clone(), &opts, |r, t| {
            stored = Some((r.to_string(), t.len()));
            Ok(())
        }).map_err(|e| TestCaseError::fail(e.to_string()))?;
        if summary.report.outcome == Outcome::Unchanged {
            prop_assert_eq!(&summary.output, &text);
        }
        // It parses, and mcpguard's own rules find nothing in it.
        let out = document(summary.output.clone());
        let config = Config {
            limits: limits.clone(),
            token_budget_threshold: budget,
            hard_cap: budget,
            ..Config::default()
        };
        let ctx = Context {
            config,
            tokenizer: Tokenizer::Heuristic,
            clients: BTreeMap::new(),
            contract: None,
        };
        let report = audit::audit_document(&audit::Message::of(&out), &Default::default(), &ctx);
        let codes: Vec<&str> = report.findings.iter().map(|f| f.code).collect();
        if summary.report.outcome == Outcome::Unchanged {
            // What passes through was within the limits; it may still be pretty-printed or
            // send structuredContent twice, which only summarizing fixes.
            const LIMITS: [&str; 8] = ["MG001", "MG002", "MG003", "MG004", "MG007", "MG008", "MG009", "MG012"];
            prop_assert!(!codes.iter().any(|c| LIMITS.contains(c)), "{:?}", report.findings);
        } else {
            prop_assert!(codes.is_empty(), "{:?} in {}", report.findings, summary.output);
        }
        prop_assert!(summary.output.len() as u64 <= limits.max_bytes || summary.report.outcome == Outcome::Unchanged);
        prop_assert!(report.tokens <= budget);
        // The artifact it names is the one handed to the store, holding the whole input.
        match (&summary.artifact, &stored) {
            (Some(r), Some((s, len))) => {
                prop_assert_eq!(&r.to_string(), s);
                prop_assert_eq!(*len, text.len());
                prop_assert!(summary.output.contains(s.as_str()) || summary.report.outcome == Outcome::Unchanged);
            }
            (None, None) => prop_assert!(!artifact || summary.report.outcome == Outcome::Unchanged),
            other => prop_assert!(false, "artifact {:?}", other),
        }
    }
}
