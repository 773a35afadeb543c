//! A text counted line by line, and the lines seen before remembered whole.
//!
//! In both vocabularies no piece has a newline followed by anything but another newline (a
//! test below reads every piece), so the stream always has a cut after the last newline of a
//! group: no piece spans it, and the count of the whole is the count of the part before it
//! plus the count of the part after it. What the part after writes depends only on itself: a
//! run's markers look at the runs beside it, and a newline before a run is a space run that
//! takes no markers, ends in no U+0020 and holds no seam. So every line after the first costs
//! the same wherever it occurs, and tool results repeat lines: pretty-printed JSON (`    },`,
//! `      "status": "ok",`), a git log's authors and blank lines, a diff's context. In the
//! corpus's captures a fifth of the text is lines seen before in the same text.

use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_128;

/// The text cut after each group of newlines: the head (which the frame precedes), then each
/// line with the newlines that end it. Nothing is left out: the pieces concatenate to `text`,
/// and an empty text is one empty head.
pub(super) fn split(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let text = rest?;
        let bytes = text.as_bytes();
        let Some(newline) = memchr::memchr(b'\n', bytes) else {
            rest = None;
            return Some(text);
        };
        let end = newline + bytes[newline..].iter().take_while(|&&b| b == b'\n').count();
        let (line, after) = text.split_at(end);
        rest = (!after.is_empty()).then_some(after);
        Some(line)
    })
}

/// Costs of lines (not the head) by their normalized text, per family and thread. A line is
/// known by its length and 128-bit XXH3, as whole texts are (`super::RECENT`): no line is
/// copied or allocated to be remembered.
///
/// Once the memo is past [`EAGER_MAX`] lines, a line is remembered the second time it is seen,
/// not the first: a log's lines, each with its own number or timestamp, never come back, and
/// remembering every one of them cost a quarter of the count (a miss and an insert in a table
/// of megabytes per line, and the table's growth). A small table of fingerprints in front,
/// [`SEEN_SLOTS`] of them by hash, tells a line seen lately from one never seen; only the
/// former are looked up and remembered.
pub(super) struct LineMemo {
    costs: FxHashMap<(u32, u128), u32>,
    /// A fingerprint of the last line whose hash fell in each slot (0: none yet).
    fingerprints: Box<[u32]>,
}

impl Default for LineMemo {
    fn default() -> Self {
        LineMemo {
            costs: FxHashMap::default(),
            fingerprints: vec![0; SEEN_SLOTS].into_boxed_slice(),
        }
    }
}

/// Lines longer than this are neither looked up nor remembered (a long line seldom recurs).
const LINE_MAX: usize = 4096;

/// Lines a memo keeps before it starts again (about 1.5 MB).
const LINES_MAX: usize = 1 << 16;

/// Until the memo holds this many lines, a line is remembered the first time it is seen: a
/// small table costs little to fill, and a text of a few lines repeated (pretty-printed JSON)
/// is spared their second writing.
const EAGER_MAX: usize = 1 << 12;

/// Fingerprints of lines seen lately (128 KB: they stay in the cache). A line seen again
/// after so many others that its slot was taken is counted afresh once more, which costs time,
/// never a wrong count.
const SEEN_SLOTS: usize = 1 << 15;

/// A line's key, if it is short enough to be remembered.
pub(super) fn key(line: &str) -> Option<(u32, u128)> {
    (line.len() <= LINE_MAX).then(|| (line.len() as u32, xxh3_128(line.as_bytes())))
}

/// What the memo knows of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Seen {
    /// Its cost.
    Known(u32),
    /// Count it and remember it: it was seen lately, or the memo is still small.
    Remember,
    /// Count it, and do not remember it yet: not seen lately, and the memo is large.
    Pass,
}

impl LineMemo {
    /// What is known of the line with `key`; marks it seen.
    pub(super) fn seen(&mut self, key: (u32, u128)) -> Seen {
        let (_, hash) = key;
        let slot = hash as usize % SEEN_SLOTS;
        // Never 0, which marks an empty slot.
        let fingerprint = (hash >> 96) as u32 | 1;
        if self.fingerprints[slot] != fingerprint {
            self.fingerprints[slot] = fingerprint;
            if self.costs.len() >= EAGER_MAX {
                return Seen::Pass;
            }
        }
        match self.costs.get(&key) {
            Some(&cost) => Seen::Known(cost),
            None => Seen::Remember,
        }
    }

    pub(super) fn remember(&mut self, key: (u32, u128), cost: u32) {
        if self.costs.len() >= LINES_MAX {
            self.costs.clear();
        }
        self.costs.insert(key, cost);
    }

    pub(super) fn clear(&mut self) {
        self.costs.clear();
        self.fingerprints.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_cuts_after_each_group_of_newlines() {
        fn parts(text: &str) -> Vec<&str> {
            split(text).collect()
        }
        assert_eq!(parts(""), [""]);
        assert_eq!(parts("a"), ["a"]);
        assert_eq!(parts("a\nb"), ["a\n", "b"]);
        assert_eq!(parts("a\n\n\n  b\nc"), ["a\n\n\n", "  b\n", "c"]);
        assert_eq!(parts("\n\nx"), ["\n\n", "x"]);
        assert_eq!(parts("x\n"), ["x\n"]);
        assert_eq!(parts("é\n中\n"), ["é\n", "中\n"]);
    }

    /// The fact the cut rests on, read from the vocabulary files the tables are built from.
    #[test]
    fn no_piece_has_a_newline_before_anything_but_a_newline() {
        for path in ["data/claude/ctok-v3.json", "data/claude/ctok-v4_7.json"] {
            let text =
                std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
            let file: serde_json::Value = serde_json::from_str(&text).unwrap();
            let pieces = file["pieces"].as_array().unwrap();
            assert!(pieces.len() > 10_000, "{path}");
            for piece in pieces {
                let piece = piece.as_str().unwrap();
                let chars: Vec<char> = piece.chars().collect();
                assert!(
                    chars.windows(2).all(|w| w[0] != '\n' || w[1] == '\n'),
                    "{path}: {piece:?} spans a line's end"
                );
            }
            // The other pieces the tables hold: contractions (with ⟨eow⟩) and byte prefixes.
            for contraction in file["contractions"].as_array().unwrap() {
                assert!(!contraction.as_str().unwrap().contains('\n'), "{path}");
            }
        }
    }

    #[test]
    fn long_lines_are_not_remembered_and_a_full_memo_starts_again() {
        assert!(key(&"x".repeat(LINE_MAX)).is_some());
        assert_eq!(key(&"x".repeat(LINE_MAX + 1)), None);
        assert_ne!(key("ab\n"), key("ba\n"));
        let mut memo = LineMemo::default();
        for i in 0..LINES_MAX + 3 {
            memo.remember(key(&format!("{i}\n")).unwrap(), 1);
        }
        assert_eq!(memo.costs.len(), 3);
        assert_eq!(
            memo.costs
                .get(&key(&format!("{}\n", LINES_MAX + 2)).unwrap()),
            Some(&1)
        );
        assert_eq!(memo.costs.get(&key("0\n").unwrap()), None);
    }

    /// While the memo is small a line is remembered at once; past that, from its second
    /// sighting, and lines that never come back cost the big table nothing.
    #[test]
    fn a_line_is_remembered_when_it_comes_back() {
        let mut memo = LineMemo::default();
        let first = key("{\n").unwrap();
        assert_eq!(memo.seen(first), Seen::Remember);
        memo.remember(first, 1);
        assert_eq!(memo.seen(first), Seen::Known(1));
        for i in 1..EAGER_MAX {
            memo.remember(key(&format!("{i}:filler\n")).unwrap(), 2);
        }
        let line = key("      \"status\": \"ok\",\n").unwrap();
        assert_eq!(memo.seen(line), Seen::Pass);
        assert_eq!(memo.seen(line), Seen::Remember);
        memo.remember(line, 7);
        assert_eq!(memo.seen(line), Seen::Known(7));
        // Ten thousand lines that never come back: none of them is remembered, and the line
        // that recurs between them is still known.
        for i in 0..10_000 {
            assert_eq!(memo.seen(key(&format!("{i}:entry\n")).unwrap()), Seen::Pass);
            if i % 1000 == 0 {
                assert_eq!(memo.seen(line), Seen::Known(7));
            }
        }
        assert_eq!(memo.costs.len(), EAGER_MAX + 1);
        memo.clear();
        assert_eq!(memo.seen(line), Seen::Remember);
    }
}
