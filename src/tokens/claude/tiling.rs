//! The minimum-cost tiling of the marked stream: every vocabulary piece costs one token, and a
//! codepoint no piece covers falls to its UTF-8 bytes, tiled over the measured byte prefixes.
//!
//! The pieces sit in a trie read backwards (its tables are [`super::table`]'s, built when
//! mcpguard is compiled), so when a codepoint arrives the tiler walks back from it through
//! exactly the pieces that can end there. The tiler only counts, so it keeps
//! a ring of the last [`WINDOW`] codepoints and their best costs: constant memory whatever the
//! length of the text, and no allocation per call.
//!
//! One shortcut keeps long runs of one character linear in practice as well as in theory: deep
//! inside a run of `c` (say 10 MB of newlines), only pieces made of `c` can end at a position,
//! and once the run is longer than `max_len + K * sum(lengths)` an optimal tiling always uses the
//! longest such piece `K` (K copies of a shorter piece can be swapped for fewer copies of K), so
//! `best(p) = best(p - K) + 1` exactly, without the walk.

use super::stream::{Sink, unescape_literal_marker};
use super::table::{LINEAR_CHILDREN, NONE, TERMINAL, Tables, WINDOW, pack};

/// The vocabulary as the tiler reads it: the tables, and the shortest run any shortcut needs
/// (so most positions skip the shortcuts).
pub(super) struct Vocabulary<'a> {
    tables: Tables<'a>,
    shortest_shortcut: usize,
}

impl<'a> Vocabulary<'a> {
    pub(super) fn new(tables: Tables<'a>) -> Self {
        Vocabulary {
            shortest_shortcut: tables
                .shortcuts
                .iter()
                .map(|s| s[1] as usize)
                .min()
                .unwrap_or(usize::MAX),
            tables,
        }
    }

    /// The root's edge for `c`: target | TERMINAL, or NONE.
    #[inline]
    fn root_edge(&self, c: char) -> u32 {
        match self.tables.root_bmp.get(c as usize) {
            Some(&edge) => edge,
            None => self.edge(0, c),
        }
    }

    /// `node`'s edge for `c`: target | TERMINAL, or NONE.
    #[inline]
    fn edge(&self, node: usize, c: char) -> u32 {
        let [first, len, ascii] = self.tables.nodes[node];
        if ascii != NONE && c.is_ascii() {
            return self.tables.ascii_tables[ascii as usize * 128 + c as usize];
        }
        let edges = &self.tables.edges[first as usize..(first + len) as usize];
        let c = c as u32;
        let found = if edges.len() <= LINEAR_CHILDREN {
            edges.iter().find(|e| e[0] == c)
        } else {
            edges
                .binary_search_by(|e| e[0].cmp(&c))
                .ok()
                .map(|i| &edges[i])
        };
        found.map_or(NONE, |e| e[1])
    }

    /// The period a run of `c` settles into once it is `after` long, if it does.
    fn shortcut(&self, c: char) -> Option<(usize, usize)> {
        let shortcuts = self.tables.shortcuts;
        let i = shortcuts.binary_search_by(|s| s[0].cmp(&(c as u32))).ok()?;
        Some((shortcuts[i][1] as usize, shortcuts[i][2] as usize))
    }

    /// What a codepoint no piece covers costs: its UTF-8 bytes, each a token, except where a
    /// measured byte prefix covers two or three of them at once.
    fn byte_floor(&self, c: char) -> u32 {
        let c = unescape_literal_marker(c);
        let mut buf = [0u8; 4];
        let bytes = c.encode_utf8(&mut buf).as_bytes();
        let mut best = [0u32; 5];
        for end in 1..=bytes.len() {
            best[end] = best[end - 1] + 1;
            for start in end.saturating_sub(3)..end.saturating_sub(1) {
                if self
                    .tables
                    .byte_prefixes
                    .binary_search(&pack(&bytes[start..end]))
                    .is_ok()
                {
                    best[end] = best[end].min(best[start] + 1);
                }
            }
        }
        best[bytes.len()]
    }
}

/// Counts the tokens of a stream pushed into it.
pub(super) struct Tiler<'v> {
    vocab: &'v Vocabulary<'v>,
    chars: [char; WINDOW],
    best: [u32; WINDOW],
    /// Codepoints pushed so far.
    pos: usize,
    run_char: char,
    run_len: usize,
}

impl<'v> Tiler<'v> {
    pub(super) fn new(vocab: &'v Vocabulary<'v>) -> Self {
        Tiler {
            vocab,
            chars: ['\0'; WINDOW],
            best: [0; WINDOW],
            pos: 0,
            run_char: '\0',
            run_len: 0,
        }
    }

    /// The cost of the best tiling of everything pushed.
    pub(super) fn total(&self) -> u32 {
        self.best[self.pos % WINDOW]
    }
}

impl Sink for Tiler<'_> {
    #[inline]
    fn push(&mut self, c: char) {
        let vocab = self.vocab;
        let end = self.pos + 1;
        self.chars[self.pos % WINDOW] = c;
        self.pos = end;
        if c == self.run_char {
            self.run_len += 1;
        } else {
            self.run_char = c;
            self.run_len = 1;
        }
        if self.run_len >= vocab.shortest_shortcut
            && let Some((after, period)) = vocab.shortcut(c)
            && self.run_len >= after
        {
            self.best[end % WINDOW] = self.best[(end - period) % WINDOW] + 1;
            return;
        }

        let before = self.best[(end - 1) % WINDOW];
        let edge = vocab.root_edge(c);
        let mut best = if edge != NONE && edge & TERMINAL != 0 {
            before + 1
        } else {
            before + vocab.byte_floor(c)
        };
        if edge != NONE {
            // Walk back through the pieces that end here; the trie is shallower than the ring.
            let mut node = (edge & !TERMINAL) as usize;
            let mut start = end - 1;
            while start > 0 {
                start -= 1;
                let edge = vocab.edge(node, self.chars[start % WINDOW]);
                if edge == NONE {
                    break;
                }
                if edge & TERMINAL != 0 {
                    best = best.min(self.best[start % WINDOW] + 1);
                }
                node = (edge & !TERMINAL) as usize;
            }
        }
        self.best[end % WINDOW] = best;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::table::Built;

    fn built(pieces: &[&str], prefixes: &[&[u8]]) -> Result<Built, String> {
        Built::new(
            pieces.iter().map(|p| p.chars().collect()).collect(),
            &prefixes.iter().map(|p| p.to_vec()).collect::<Vec<_>>(),
        )
    }

    fn vocab(pieces: &[&str], prefixes: &[&[u8]]) -> Vocabulary<'static> {
        Vocabulary::new(Box::leak(Box::new(built(pieces, prefixes).unwrap())).tables())
    }

    fn tile(v: &Vocabulary, text: &str) -> u32 {
        let mut t = Tiler::new(v);
        text.chars().for_each(|c| t.push(c));
        t.total()
    }

    #[test]
    fn minimum_cost_over_pieces_and_bytes() {
        let v = vocab(
            &["a", "b", "ab", "abc", "bcd", "\n", "\n\n\n"],
            &[b"\xe4\xb8"],
        );
        assert_eq!(tile(&v, ""), 0);
        assert_eq!(tile(&v, "abcd"), 2); // a + bcd
        assert_eq!(tile(&v, "abd"), 2);
        // A codepoint with no piece pays its bytes; a measured prefix covers two of them.
        assert_eq!(tile(&v, "é"), 2);
        assert_eq!(tile(&v, "中"), 2);
        assert_eq!(tile(&v, "😀"), 4);
    }

    #[test]
    fn long_runs_take_the_shortcut_and_agree_with_the_walk() {
        let v = vocab(&["\n", "\n\n", "\n\n\n\n\n", "x"], &[]);
        let (after, period) = v.shortcut('\n').unwrap();
        assert_eq!(period, 5);
        assert_eq!(v.shortcut('x'), None);
        for n in [1, 7, after - 1, after, after + 13, 5000] {
            let text: String = std::iter::once('x')
                .chain(std::iter::repeat_n('\n', n))
                .collect();
            // Greedy is optimal for coins 1, 2, 5.
            let expect = 1 + (n / 5 + (n % 5) / 2 + (n % 5) % 2) as u32;
            assert_eq!(tile(&v, &text), expect, "n={n}");
        }
    }

    #[test]
    fn refuses_pieces_longer_than_the_window() {
        let long = vec!['-'; WINDOW];
        assert!(Built::new(vec![long], &[]).is_err());
    }

    #[test]
    fn tables_read_in_place_count_as_built() {
        let built = built(
            &["a", "b", "ab", "abc", "bcd", "\n", "\n\n"],
            &[b"\xe4\xb8"],
        )
        .unwrap();
        let words = built.tables().to_words();
        let read = Vocabulary::new(Tables::from_words(&words).unwrap());
        let v = Vocabulary::new(built.tables());
        for text in ["abcd", "abd\n\n\n", "中é", &"\n".repeat(300)] {
            assert_eq!(tile(&read, text), tile(&v, text), "{text:?}");
        }
        // A truncated or foreign table is refused, not misread.
        assert!(Tables::from_words(&words[..words.len() - 1]).is_err());
        assert!(Tables::from_words(&[0; 9]).is_err());
    }
}
