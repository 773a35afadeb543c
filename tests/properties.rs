//! Properties of the measuring core on arbitrary JSON: every pointer it reports resolves to
//! the thing it describes, and the reported sizes are the true ones.

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
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(("[a-z~/]{1,6}", inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
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
