//! JSON text exactly as Python's `json.dumps` writes it, with its default arguments.
//!
//! The seed's cursor codec signs `json.dumps(payload)` and its decoder recomputes that text from
//! the parsed payload, so for a cursor mcpguard issues to verify in the seed's server, mcpguard
//! must produce the same bytes: `", "` and `": "` separators, every non-ASCII character escaped
//! as `\uXXXX` (lowercase hex, astral characters as surrogate pairs), and floats as Python's
//! `repr`: shortest round-trip digits, `.0` on integral values, exponent form below 1e-4 and
//! from 1e16 on (`1e-05`, `1e+16`).

use std::fmt::Write as _;

use serde_json::Value;

/// `json.dumps(value)`.
pub fn dumps(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
                write_float(out, f);
            } else {
                out.push_str(&n.to_string());
            }
        }
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str(out, k);
                out.push_str(": ");
                write_value(out, v);
            }
            out.push('}');
        }
    }
}

/// The length of `s` as [`write_str`] writes it, quotes left out: what a string costs a cursor.
pub fn escaped_len(s: &str) -> usize {
    s.chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{08}' | '\u{0c}' => 2,
            ' '..='~' => 1,
            c => 6 * c.len_utf16(),
        })
        .sum()
}

/// A string as `json.dumps` (ensure_ascii=True) writes it.
fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            // Python's ensure_ascii keeps exactly ' '..='~' as they are.
            ' '..='~' => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// A float as Python's `repr` writes it (`float_repr_style == 'short'`).
fn write_float(out: &mut String, f: f64) {
    if f.is_nan() {
        return out.push_str("NaN");
    }
    if f.is_infinite() {
        return out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.763712e9", "-2.5e-5", "0e0".
    let sci = format!("{f:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    // Python puts the decimal point after `decpt` digits, and switches to exponent form when
    // decpt <= -4 or decpt > 16.
    let decpt = exponent + 1;
    if negative {
        out.push('-');
    }
    if decpt <= -4 || decpt > 16 {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:02}", exponent.abs());
    } else if decpt <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-decpt) as usize));
        out.push_str(&digits);
    } else {
        let decpt = decpt as usize;
        if digits.len() <= decpt {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', decpt - digits.len()));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..decpt]);
            out.push('.');
            out.push_str(&digits[decpt..]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn float(f: f64) -> String {
        let mut s = String::new();
        write_float(&mut s, f);
        s
    }

    #[test]
    fn floats_like_python_repr() {
        // Each right-hand side is what CPython 3.11 prints for repr(x).
        let cases = [
            (1763712000.0, "1763712000.0"),
            (1763712000.123, "1763712000.123"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e16, "1e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (12345678901234567.0, "1.2345678901234568e+16"),
            (1e22, "1e+22"),
            (-2.5, "-2.5"),
            (123.456, "123.456"),
            (1e300, "1e+300"),
        ];
        for (f, want) in cases {
            assert_eq!(float(f), want, "{f:e}");
        }
    }

    #[test]
    fn dumps_like_python() {
        let v = json!({"offset": 50, "ts": 1763712000.0, "order": "créé:desc", "f": {"a": [1, true, null]}, "e": "😀\"\\\n\u{1}\u{7f}"});
        assert_eq!(
            dumps(&v),
            r#"{"offset": 50, "ts": 1763712000.0, "order": "cr\u00e9\u00e9:desc", "f": {"a": [1, true, null]}, "e": "\ud83d\ude00\"\\\n\u0001\u007f"}"#
        );
        for s in ["créé:desc", "😀\"\\\n\u{1}\u{7f}", "plain"] {
            assert_eq!(escaped_len(s), dumps(&json!(s)).len() - 2, "{s}");
        }
    }
}
