//! Concatenating every chunk reproduces the input byte for byte, for any text (CRLF, no final
//! newline, long lines, any Unicode), any kind and any limits; and no chunk breaks its limits
//! unless it is a cut of one over-long unit.

use mcpguard::reshape::chunk::{self, Kind, Options};
use mcpguard::tokens::Tokenizer;
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        "[a-zA-Z0-9 .,!?é日]{0,80}",
        Just("2026-11-20 06:00:00 ERROR failed".to_owned()),
        Just("\tat com.acme.Foo.bar(Foo.java:12)".to_owned()),
        Just("```".to_owned()),
        Just("# Heading".to_owned()),
        Just(String::new()),
        "[a-z ]{200,900}",
    ];
    (
        prop::collection::vec(line, 1..60),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, final_newline)| {
            let sep = if crlf { "\r\n" } else { "\n" };
            let mut t = lines.join(sep);
            if final_newline {
                t.push_str(sep);
            }
            if t.is_empty() {
                t.push('x');
            }
            t
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn chunks_concatenate_to_the_input(
        t in text(),
        max_tokens in 1u64..300,
        max_lines in 1u64..30,
        kind in prop_oneof![Just(Kind::Log), Just(Kind::Markdown), Just(Kind::Text), Just(Kind::Jsonl)],
    ) {
        let opts = Options { max_tokens, max_lines, kind: Some(kind), tokenizer: Tokenizer::Heuristic };
        let idx = chunk::index("t", t.as_bytes(), &opts).unwrap();
        let mut joined = String::new();
        let mut expected_start = 0;
        for b in &idx.chunks {
            prop_assert_eq!(b.start, expected_start, "contiguous");
            prop_assert!(b.end > b.start, "never empty");
            let piece = &t[b.start as usize..b.end as usize];
            if !b.split_entry {
                let tokens = mcpguard::tokens::Tokenizer::Heuristic.counter().count(piece) as u64;
                prop_assert!(tokens <= max_tokens, "{} tokens > {}", tokens, max_tokens);
                prop_assert!(piece.matches('\n').count() as u64 <= max_lines);
            }
            joined.push_str(piece);
            expected_start = b.end;
        }
        prop_assert_eq!(joined, t);
    }
}
