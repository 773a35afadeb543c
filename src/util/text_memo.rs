//! Values computed from texts, kept by each text's address and length: a response's views
//! share their texts (a client that shows structuredContent alone shows the run's own text of
//! it), and what one view read of a text another takes instead of reading it again.
//!
//! The texts kept stay borrowed for as long as the memo lives, so no other text can have both
//! the address and the length of one of them: the same address and length is the same text
//! (empty texts may share an address, and are the same text). A memo holds the few texts of
//! one response and is searched in order.

/// Values of texts read, by the text.
pub struct TextMemo<'t, V> {
    known: Vec<(&'t str, V)>,
}

impl<V> Default for TextMemo<'_, V> {
    fn default() -> Self {
        TextMemo { known: Vec::new() }
    }
}

impl<'t, V: Copy> TextMemo<'t, V> {
    /// `value` of `text`, kept.
    pub fn keep(&mut self, text: &'t str, value: impl FnOnce(&str) -> V) -> V {
        let v = value(text);
        self.known.push((text, v));
        v
    }

    /// The value kept for `text` (this very text, not one with the same bytes elsewhere).
    pub fn get(&self, text: &str) -> Option<V> {
        self.known
            .iter()
            .find(|(known, _)| std::ptr::eq(*known, text))
            .map(|&(_, v)| v)
    }

    /// The value kept for `text`, else `value` of it (not kept: `text` may not live as long).
    pub fn get_or(&self, text: &str, value: impl FnOnce(&str) -> V) -> V {
        self.get(text).unwrap_or_else(|| value(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept value answers for the very text it was read from: not for a shorter text at the
    /// same address, nor for a text with the same bytes elsewhere.
    #[test]
    fn a_kept_value_answers_for_its_own_text_only() {
        let log = "2026-11-28T19:00:00Z GET /api/v1/items?page=2 200 14ms\n".repeat(60);
        let copy = log.clone();
        let mut memo = TextMemo::default();
        assert_eq!(memo.keep(&log, str::len), log.len());
        assert_eq!(memo.get(&log), Some(log.len()));
        assert_eq!(memo.get(&copy), None);
        let head = &log[..log.len() / 3];
        assert!(std::ptr::eq(head.as_ptr(), log.as_ptr()));
        assert_eq!(memo.get(head), None);
    }
}
