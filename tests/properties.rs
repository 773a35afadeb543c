//! Properties of the measuring core on arbitrary JSON: every pointer it reports resolves to
//! the thing it describes, and the reported sizes are the true ones.

mod common;

use mcpguard::measure;
use proptest::prelude::*;
use serde_json::Value;

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-z~/ é\u{1F600}]{0,40}".prop_map(Value::String),
    ];
    common::random_json(leaf.boxed(), "[a-z~/]{1,6}", (6, 64), (8, 6))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn reported_pointers_resolve(value in arb_json()) {
        let shape = measure::shape(&value);
        if let Some(a) = &shape.longest_array {
            let found = value.pointer(&a.pointer).and_then(Value::as_array).map(Vec::len);
            prop_assert_eq!(found, Some(a.len));
        }
        if let Some(s) = &shape.longest_string {
            let found = value.pointer(&s.pointer).and_then(Value::as_str).map(|t| t.chars().count());
            prop_assert_eq!(found, Some(s.len));
        }
        // The deepest pointer has exactly `depth` reference tokens.
        let tokens = shape.deepest.matches('/').count();
        prop_assert_eq!(tokens, shape.depth);
        prop_assert!(value.pointer(&shape.deepest).is_some());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Any text as a filter: a clear error or a filter that prints back to the same conditions,
    /// and that judges any item without panicking.
    #[test]
    fn filters_parse_or_refuse_and_never_panic(text in "[ a-zA-Zé0-9.=!<>~(),'\"_:+-]{0,40}", item in arb_json()) {
        if let Ok(filter) = mcpguard::reshape::paginate::Where::parse(&[&text]) {
            let again = mcpguard::reshape::paginate::Where::parse(&[filter.to_string()]).unwrap();
            prop_assert_eq!(again.canonical(), filter.canonical());
            let _ = filter.matches(&item);
        }
    }

    /// Any bytes as a stored result: streamed text or a fall-back to the tree, never a panic;
    /// and for a real tool result, the tree's text.
    #[test]
    fn result_text_streams_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300), text in "\\PC{0,60}") {
        let _ = mcpguard::document::result_text::stream(&bytes[..], &mut |_| true);
        let result = serde_json::json!({"content": [{"type": "text", "text": text}], "isError": false});
        let body = serde_json::to_vec(&result).unwrap();
        let mut out = Vec::new();
        mcpguard::document::result_text::stream(std::io::BufReader::with_capacity(3, &body[..]), &mut |p| {
            out.extend_from_slice(p);
            true
        }).unwrap();
        prop_assert_eq!(String::from_utf8(out).unwrap(), text);
    }

    /// Search over any text, in pieces of any size: the same blocks as in one piece, each its
    /// lines of the text.
    #[test]
    fn search_in_pieces_is_search_whole(lines in proptest::collection::vec("[a-c ]{0,6}", 0..40), piece in 1usize..9, context in 0usize..3) {
        use mcpguard::reshape::chunk::search::{self, Query, Window};
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let query = || Query { pattern: search::compile("ab").unwrap(), context, kind: None };
        let window = Window { skip: 0, max_blocks: usize::MAX, max_tokens: u64::MAX, tokenizer: mcpguard::tokens::Tokenizer::Heuristic };
        let whole = search::search(text.as_bytes(), query(), window);
        let mut s = search::Searcher::new(query(), window);
        for p in text.as_bytes().chunks(piece) {
            s.feed(p);
        }
        let pieces = s.finish();
        prop_assert_eq!(&pieces.shown, &whole.shown);
        let all: Vec<&str> = text.split_inclusive('\n').collect();
        for b in &whole.shown {
            prop_assert_eq!(b.text.as_str(), all[b.start_line as usize - 1..b.end_line as usize].concat());
        }
    }
}
