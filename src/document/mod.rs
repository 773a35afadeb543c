//! What a document is, and what of it the model sees.
//!
//! A captured message is one of: a JSON-RPC response carrying an MCP tool result, a list result
//! (`tools/list`, `resources/list`, ...), resource contents, another result, an error, a request
//! or notification; or, without the JSON-RPC envelope, a bare tool result or plain JSON.
//!
//! The wire size is the whole message. What reaches the model is less and different: the text of
//! content blocks (a JSON text block is parsed so its structure can be measured), images and
//! audio at a fixed token cost, `structuredContent`, and for other results the result itself.
//! [`Anatomy::parts`] lists those pieces with the JSON pointer of each.

pub mod input;
pub mod records;
pub mod result_text;

mod anatomy;
mod kind;
mod twin;

pub use anatomy::{
    Anatomy, Part, PartContent, anatomy, anatomy_in, anatomy_shallow, looks_like_json,
    parse_json_text, written_compact,
};
pub use kind::{Kind, ListKind};
pub use twin::{Twin, repeats_structured, twin_of};

/// For property tests: small JSON values whose numbers include 0.0, -0.0 and 1.0 (written
/// otherwise than the integers 0 and 1) and whose strings need escapes.
#[cfg(test)]
fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    use serde_json::Value;
    let scalars = prop_oneof![
        (-3i64..3).prop_map(Value::from),
        prop_oneof![Just(0.0), Just(-0.0), Just(1.0), Just(0.5)].prop_map(Value::from),
    ];
    crate::json::compact::random_json(scalars, "[ab\"é]{0,2}", 3, 3)
}

/// For property tests: structuredContent (an object, often one member wrapping a list) and a
/// text block: the text written from it, from what it wraps, or from another value, compact or
/// indented, and now and then with one of its numbers or strings changed.
#[cfg(test)]
pub(crate) fn structured_and_text()
-> impl proptest::strategy::Strategy<Value = (serde_json::Value, String)> {
    use proptest::prelude::*;
    use serde_json::{Value, json};
    let wrapper = (prop_oneof![Just("items"), Just("result")], json_value())
        .prop_map(|(k, v)| json!({ k: if v.is_array() { v } else { json!([v]) } }));
    let object = json_value().prop_map(|v| if v.is_object() { v } else { json!({"v": v}) });
    let structured = prop_oneof![wrapper, object];
    (
        structured,
        json_value(),
        0..3usize,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(structured, other, source, pretty, nudge)| {
            let inner = structured
                .as_object()
                .and_then(|m| m.values().next())
                .cloned();
            let from = match source {
                0 => structured.clone(),
                1 => inner.unwrap_or(Value::Null),
                _ => other,
            };
            let mut text = if pretty {
                serde_json::to_string_pretty(&from).unwrap()
            } else {
                serde_json::to_string(&from).unwrap()
            };
            if nudge {
                // The first 0 becomes -0 (and 0.0 -0.0), or the first "a" "b".
                text = text
                    .replacen(":0", ":-0", 1)
                    .replacen("[0", "[-0", 1)
                    .replacen("\"a", "\"b", 1);
            }
            (structured, text)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};
    use std::borrow::Cow;

    use crate::json::node::Node;

    /// The text block's tree: borrowed from structuredContent or parsed, and what it holds.
    fn text_json(text: &str, structured: &Value) -> (bool, Option<Value>) {
        let doc =
            json!({"content": [{"type": "text", "text": text}], "structuredContent": structured});
        let a = anatomy(&doc, "");
        match &a.parts[0].content {
            PartContent::Text { json, .. } => (
                matches!(json, Some(Cow::Borrowed(_))),
                json.as_ref().map(|v| v.as_ref().clone()),
            ),
            other => panic!("not a text part: {other:?}"),
        }
    }

    #[test]
    fn a_text_block_written_out_from_structured_content_borrows_its_tree() {
        let structured = json!({"items": [{"id": 1, "name": "é\"x", "ok": true, "v": [0.5, -2, null]}], "total": 1});
        for text in [
            serde_json::to_string(&structured).unwrap(),
            serde_json::to_string_pretty(&structured).unwrap(),
            // The same strings escaped otherwise.
            r#"{"items":[{"id":1,"name":"\u00e9\"\u0078","ok":true,"v":[0.5,-2,null]}],"total":1}"#
                .to_owned(),
        ] {
            assert_eq!(
                text_json(&text, &structured),
                (true, Some(structured.clone())),
                "{text}"
            );
        }
        // A list, and structuredContent the object that wraps it.
        let list = json!([{"id": 0, "tags": ["a"]}, {"id": 1, "tags": []}]);
        let text = serde_json::to_string(&list).unwrap();
        for wrapper in [json!({"items": list}), json!({"result": list})] {
            assert_eq!(text_json(&text, &wrapper), (true, Some(list.clone())));
        }
        // Not when the wrapper has more than the list, or the list is another.
        for not_a_wrapper in [
            json!({"items": list, "total": 2}),
            json!({"items": [list[0]]}),
        ] {
            assert_eq!(
                text_json(&text, &not_a_wrapper),
                (false, Some(list.clone()))
            );
        }
    }

    #[test]
    fn a_twin_is_the_same_tree_not_an_equal_one() {
        let structured = json!({"items": [1, 2]});
        let list = &structured["items"];
        assert_eq!(twin_of(&structured, &structured), Some(Twin::Whole));
        assert_eq!(
            twin_of(&structured, list),
            Some(Twin::Wrapped { key: "items" })
        );
        assert_eq!(twin_of(&structured, &structured.clone()), None);
        assert_eq!(twin_of(&structured, &list.clone()), None);
        let empty = json!({"items": []});
        assert_eq!(twin_of(&empty, &empty["items"]), None);
    }

    #[test]
    fn a_text_block_repeats_structured_content_or_the_list_it_wraps() {
        let list = json!([{"id": 1, "tags": ["a"]}]);
        let object = json!({"a": 1, "b": list});
        assert!(repeats_structured(&object, &object));
        // Equal as JSON values: another key order is the same object.
        assert!(repeats_structured(&object, &json!({"b": list, "a": 1})));
        assert!(repeats_structured(&json!({"items": list}), &list));
        assert!(repeats_structured(&json!({"result": list}), &list.clone()));
        for (structured, json) in [
            (json!({"items": list, "total": 1}), list.clone()),
            (json!({"items": [1]}), list.clone()),
            (json!({"items": {"id": 1}}), json!({"id": 1})),
            (object.clone(), json!({"a": 1})),
        ] {
            assert!(
                !repeats_structured(&structured, &json),
                "{structured} {json}"
            );
        }
    }

    #[test]
    fn a_text_block_that_differs_in_any_way_is_parsed_on_its_own() {
        let structured = json!({"a": 1, "b": [0.0, "x"]});
        for text in [
            r#"{"b":[0.0,"x"],"a":1}"#,       // another order
            r#"{"a":1.0,"b":[0.0,"x"]}"#,     // a float for an integer
            r#"{"a":1,"b":[-0.0,"x"]}"#,      // -0.0 is written otherwise
            r#"{"a":1,"b":[0.0,"y"]}"#,       // another string
            r#"{"a":1,"b":[0.0]}"#,           // an item fewer
            r#"{"a":1,"b":[0.0,"x",null]}"#,  // an item more
            r#"{"a":1}"#,                     // a member fewer
            r#"{"a":1,"b":[0.0,"x"],"c":2}"#, // a member more
            r#"{"a":0,"a":1,"b":[0.0,"x"]}"#, // a duplicate key (the last wins)
            r#"[1]"#,
        ] {
            let parsed: Value = serde_json::from_str(text).unwrap();
            assert_eq!(
                text_json(text, &structured),
                (false, Some(parsed)),
                "{text}"
            );
        }
        // Not JSON at all, or JSON with something after it: no tree, as before.
        assert_eq!(
            text_json(r#"{"a":1,"b":[0.0,"x"]} and more"#, &structured),
            (false, None)
        );
        assert_eq!(text_json("a=1", &structured), (false, None));
    }

    /// What an anatomy shows, whichever tree it was read from: the kind, the id and payload,
    /// and each part with its pointer, its text, its tree (and whether that tree is borrowed
    /// from structuredContent) and whether the text is that tree's compact JSON.
    fn shown<'a, N: Node + Clone>(a: &Anatomy<'a, N>) -> String {
        let parts: Vec<String> = a
            .parts
            .iter()
            .map(|p| {
                let content = match &p.content {
                    PartContent::Text {
                        text,
                        json,
                        compact,
                    } => format!(
                        "text {text:?} json {:?} borrowed {} compact {compact}",
                        json.as_ref().map(|j| j.to_value().to_string()),
                        matches!(json, Some(Cow::Borrowed(_)))
                    ),
                    PartContent::Media { mime, data } => format!("media {mime} {}", data.len()),
                    PartContent::Json(v) => format!("json {}", v.to_value()),
                    PartContent::Raw(text) => format!("raw {text:?}"),
                };
                format!("{} {content}", p.pointer)
            })
            .collect();
        format!(
            "{:?} id {:?} payload {} at {:?} error {} parts {parts:#?}",
            a.kind,
            a.id.map(|i| i.to_value()),
            a.payload.to_value(),
            a.payload_pointer,
            a.is_error
        )
    }

    fn same_anatomy_from_either_tree(text: &str) {
        let value = crate::json::parse::parse(text).unwrap();
        let arena = bumpalo::Bump::new();
        let json = crate::json::borrowed::parse(text, &arena).unwrap();
        assert_eq!(
            shown(&anatomy_in(&json, text, &arena)),
            shown(&anatomy(&value, text))
        );
        assert_eq!(
            shown(&anatomy_shallow(&json, text)),
            shown(&anatomy_shallow(&value, text))
        );
    }

    #[test]
    fn the_borrowed_tree_shows_what_serde_json_s_shows() {
        for entry in std::fs::read_dir("tests/fixtures/corpus").unwrap() {
            same_anatomy_from_either_tree(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
        }
        for text in [
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"u","text":"[1]"},{"uri":"v","blob":"AAAA","mimeType":"image/png"}]}}"#,
            r#"{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"resource","resource":{"text":"{\"a\":1}"}}],"isError":true}"#,
            r#"{"plain": ["json"]}"#,
        ] {
            same_anatomy_from_either_tree(text);
        }
    }

    proptest! {
        /// structuredContent's compact JSON is taken from the text exactly when the text is it,
        /// or the non-empty list it wraps written compact; and it is then what is written.
        #[test]
        fn structured_content_taken_from_its_text_is_its_compact_json(
            (structured, text) in structured_and_text()
        ) {
            let doc = json!({"content": [{"type": "text", "text": text}], "structuredContent": structured});
            let a = anatomy(&doc, "");
            let structured = &doc["structuredContent"];
            let compact = crate::json::compact::string(structured);
            let list = structured
                .as_object()
                .filter(|m| m.len() == 1)
                .and_then(|m| m.values().next())
                .filter(|l| l.as_array().is_some_and(|items| !items.is_empty()));
            let taken = text == compact || list.is_some_and(|l| text == crate::json::compact::string(l));
            let from_text = written_compact(&a, structured);
            prop_assert_eq!(from_text.is_some(), taken);
            if let Some(from_text) = from_text {
                prop_assert_eq!(from_text.as_ref(), compact.as_str());
            }
        }

        /// The text blocks of the property documents read the same from the borrowed tree.
        #[test]
        fn the_borrowed_tree_finds_the_same_twins((structured, text) in structured_and_text()) {
            let doc = json!({"content": [{"type": "text", "text": text}], "structuredContent": structured});
            same_anatomy_from_either_tree(&doc.to_string());
        }

        /// Borrowed exactly when the text's own tree is structuredContent's, or the list it
        /// wraps, written the same (so equal bit for bit); and the tree is always the text's.
        #[test]
        fn the_text_block_tree_is_always_the_texts_own((structured, text) in structured_and_text()) {
            let own: Option<Value> = parse_json_text(&text, ());
            let (borrowed, tree) = text_json(&text, &structured);
            let written = |v: Option<&Value>| v.map(|v| serde_json::to_string(v).unwrap());
            prop_assert_eq!(written(tree.as_ref()), written(own.as_ref()));
            let twin = match (&own, &structured) {
                (Some(Value::Array(_)), Value::Object(m)) if m.len() == 1 => m.values().next(),
                (Some(Value::Object(_)), _) => Some(&structured),
                _ => None,
            };
            let identical = own.is_some() && written(own.as_ref()) == written(twin);
            prop_assert_eq!(borrowed, identical);
        }
    }

    #[test]
    fn structured_content_of_real_captures_is_taken_from_its_compact_text() {
        for (capture, taken) in [
            // The text is structuredContent written out compact.
            (
                "everything__tools_call__get-structured-content__new_york.json",
                true,
            ),
            // The text is the list `{"items": [...]}` wraps, compact.
            ("paged__tools_call__big__2000.json", true),
            // The text is not JSON, and structuredContent wraps it.
            ("filesystem__tools_call__search_files__all_rs.json", false),
        ] {
            let text = std::fs::read_to_string(format!("tests/fixtures/corpus/{capture}")).unwrap();
            let doc: Value = serde_json::from_str(&text).unwrap();
            let a = anatomy(&doc, &text);
            let structured = &doc["result"]["structuredContent"];
            let compact = crate::json::compact::string(structured);
            match written_compact(&a, structured) {
                Some(from_text) => assert!(taken && from_text == compact, "{capture}"),
                None => assert!(!taken, "{capture}"),
            }
            // The same without the text's being compact: indented, it is parsed on its own.
            let mut indented = doc.clone();
            if let Some(t) = indented["result"]["content"][0]["text"].as_str()
                && let Ok(tree) = serde_json::from_str::<Value>(t)
            {
                indented["result"]["content"][0]["text"] =
                    serde_json::to_string_pretty(&tree).unwrap().into();
                let a = anatomy(&indented, "");
                assert!(written_compact(&a, &indented["result"]["structuredContent"]).is_none());
            }
        }
    }

    #[test]
    fn tool_result_parts() {
        let v = json!({"jsonrpc":"2.0","id":7,"result":{
            "content":[{"type":"text","text":"{\"a\":1}"},{"type":"image","data":"AAAA","mimeType":"image/png"}],
            "structuredContent":{"a":1}}});
        let a = anatomy(&v, "");
        assert_eq!(a.kind, Kind::ToolResult);
        assert_eq!(a.id, Some(&json!(7)));
        let pointers: Vec<_> = a.parts.iter().map(|p| p.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/result/content/0/text",
                "/result/content/1",
                "/result/structuredContent"
            ]
        );
        assert!(matches!(
            &a.parts[0].content,
            PartContent::Text { json: Some(_), .. }
        ));
        assert!(matches!(
            a.parts[1].content,
            PartContent::Media { data, .. } if data.len() == 4
        ));
    }

    #[test]
    fn plain_and_lists() {
        let v = json!({"bookings": []});
        assert_eq!(anatomy(&v, "{\"bookings\": []}").kind, Kind::Plain);
        let v = json!({"jsonrpc":"2.0","id":1,"result":{"tools":[]}});
        assert_eq!(anatomy(&v, "").kind, Kind::ListResult(ListKind::Tools));
        let v = json!({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}});
        assert_eq!(anatomy(&v, "").kind, Kind::Error);
        let v = json!({"content":[{"type":"text","text":"hi"}]});
        assert_eq!(anatomy(&v, "").kind, Kind::ToolResult);
    }
}
