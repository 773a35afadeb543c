//! Cutting UTF-8 text by bytes without splitting a character (`str::floor_char_boundary` is
//! newer than this crate's minimum Rust).

/// The largest character boundary of `text` at or before byte `at` (its length when `at` is
/// past the end).
pub fn floor_char_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    let mut i = at;
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    #[test]
    fn never_splits_a_character() {
        let text = "aé€";
        let ends: Vec<usize> = (0..8)
            .map(|at| super::floor_char_boundary(text, at))
            .collect();
        assert_eq!(ends, [0, 1, 1, 3, 3, 3, 6, 6]);
    }
}
