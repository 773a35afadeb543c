//! JSON Pointer (RFC 6901) building, for findings and reports that name a place in a document.
//!
//! Two flavours: an exact pointer (`/bookings/3/notes`) and a pattern where every array index is
//! `*` (`/bookings/*/notes`), which is how per-path costs are aggregated across a list's items.

/// Appends one reference token to `pointer`, escaping `~` and `/` as RFC 6901 requires.
pub fn push_key(pointer: &mut String, key: &str) {
    pointer.push('/');
    for c in key.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Appends an array index.
pub fn push_index(pointer: &mut String, index: usize) {
    use std::fmt::Write as _;
    let _ = write!(pointer, "/{index}");
}

/// Joins a key onto a pointer, returning a new one.
pub fn join(pointer: &str, key: &str) -> String {
    let mut p = String::with_capacity(pointer.len() + key.len() + 1);
    p.push_str(pointer);
    push_key(&mut p, key);
    p
}

/// Shows a pointer to a human: the root is `/` rather than the empty string.
pub fn display(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_per_rfc6901() {
        let mut p = String::new();
        push_key(&mut p, "a/b");
        push_key(&mut p, "m~n");
        push_index(&mut p, 3);
        assert_eq!(p, "/a~1b/m~0n/3");
        assert_eq!(display(""), "/");
        let v = serde_json::json!({"a/b": {"m~n": [0, 1, 2, 42]}});
        assert_eq!(v.pointer(&p), Some(&serde_json::json!(42)));
    }
}
