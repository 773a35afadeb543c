//! Whitespace a minify would remove from a JSON text, counted 64 bytes at a time as bit masks
//! ([`crate::json::masks`]) without parsing: summarize's "minify" fix measures its savings with
//! it, and the audit's MG014 (pretty-printed JSON) reports it.

use crate::json::masks::{byte_masks, escaped_by, prefix_xor};

/// Bytes a minify would remove: whitespace outside strings (trailing whitespace aside).
///
/// Read 64 bytes at a time as bit masks (a bit per byte): which bytes are quotes, backslashes
/// and whitespace; which characters a run of backslashes escapes (an odd run escapes the one
/// after it, carried across blocks); and, from the unescaped quotes by a prefix XOR, which bytes
/// are inside a string (carried too). The whitespace outside strings is then a population
/// count: about a byte a cycle, whatever the strings' lengths (100 MB of short records in tens
/// of milliseconds). The text is JSON that parsed: no backslash stands outside a string.
pub fn insignificant(text: &str) -> u64 {
    let b = text.trim_end().as_bytes();
    let (mut n, mut escaped_carry, mut inside_carry) = (0u64, 0u64, 0u64);
    let mut count = |block: &[u8; 64]| {
        let (quote, backslash, space) = byte_masks(block);
        let escaped = escaped_by(backslash, &mut escaped_carry);
        let inside = prefix_xor(quote & !escaped) ^ inside_carry;
        // All ones when the block ends inside a string.
        inside_carry = ((inside as i64) >> 63) as u64;
        n += u64::from((space & !inside).count_ones());
    };
    let (blocks, rest) = b.as_chunks::<64>();
    blocks.iter().for_each(&mut count);
    // The rest, padded with bytes of no class.
    let mut last = [0u8; 64];
    last[..rest.len()].copy_from_slice(rest);
    count(&last);
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The whitespace outside strings, found a quote at a time: the oracle for the masks.
    fn whitespace_by_quotes(text: &str) -> u64 {
        let b = text.trim_end().as_bytes();
        let (mut n, mut at) = (0u64, 0);
        while at < b.len() {
            let next = memchr::memchr(b'"', &b[at..]).map_or(b.len(), |i| at + i);
            n += b[at..next]
                .iter()
                .filter(|c| matches!(c, b' ' | b'\n' | b'\r' | b'\t'))
                .count() as u64;
            at = next + 1;
            while at < b.len() {
                match memchr::memchr2(b'"', b'\\', &b[at..]) {
                    Some(i) if b[at + i] == b'\\' => at += i + 2,
                    Some(i) => {
                        at += i + 1;
                        break;
                    }
                    None => at = b.len(),
                }
            }
        }
        n
    }

    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<i64>().prop_map(Value::from),
            // Quotes, backslashes (runs of them too), whitespace and control characters.
            "[ a\"\\\\\n\t\r\u{1}é日🦀]{0,80}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                proptest::collection::vec(("[ a\"\\\\]{0,6}", inner), 0..8)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn whitespace_masks_agree_with_a_quote_by_quote_scan(v in any_json(), indent in 0usize..4) {
            let pretty = if indent == 0 {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                let mut out = Vec::new();
                let style = " ".repeat(indent).into_bytes();
                let f = serde_json::ser::PrettyFormatter::with_indent(&style);
                let mut ser = serde_json::Serializer::with_formatter(&mut out, f);
                serde::Serialize::serialize(&v, &mut ser).unwrap();
                String::from_utf8(out).unwrap()
            };
            for text in [pretty.clone(), serde_json::to_string(&v).unwrap(), format!("  {pretty}\n\n")] {
                proptest::prop_assert_eq!(insignificant(&text), whitespace_by_quotes(&text));
            }
        }
    }

    #[test]
    fn minify_counts_whitespace_outside_strings() {
        assert_eq!(insignificant("{\n  \"a b\": [1, 2]\n}\n"), 6);
        assert_eq!(insignificant(r#"{"a\" b": "c\\", "d" : 1}"#), 4);
    }
}
