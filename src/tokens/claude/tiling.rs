//! The minimum-cost tiling of the marked stream: every vocabulary piece costs one token, and a
//! codepoint no piece covers falls to its UTF-8 bytes, tiled over the measured byte prefixes.
//!
//! The pieces sit in a trie read backwards (its tables are [`super::table`]'s, built when
//! mcpguard is compiled), so when a codepoint arrives the walk goes back from it through
//! exactly the pieces that can end there. It only counts, so it keeps a ring of the last
//! [`WINDOW`] codepoints and their best costs: constant memory whatever the length of the text.
//!
//! Most of a stream never needs the walk. Where two neighbours form a pair that no piece
//! contains, no piece spans them, so the best tiling of the whole is the sum of the best tilings
//! of the pieces of stream between such cuts; short segments recur (a JSON key with its quotes,
//! a log level, a word with its markers) and their costs are remembered.
//!
//! One shortcut keeps long runs of one character linear in practice as well as in theory: deep
//! inside a run of `c` (say 10 MB of newlines), only pieces made of `c` can end at a position,
//! and once the run is longer than `max_len + K * sum(lengths)` an optimal tiling always uses the
//! longest such piece `K` (K copies of a shorter piece can be swapped for fewer copies of K), so
//! `best(p) = best(p - K) + 1` exactly, without the walk.

use rustc_hash::FxHashMap;

use super::classes::unescape_literal_marker;
use super::stream::{STRETCH_MAX, Sink, Stretch, low_bytes};
use super::table::{
    LINEAR_CHILDREN, NONE, PAIR_CLASSES, TERMINAL, Tables, WINDOW, class_char, pack, pair_class,
};

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

    #[cfg(test)]
    pub(super) fn digit_group(&self) -> Option<u32> {
        self.tables.digit_group
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

    /// Does some piece have `a` right before `b`? (Yes for any pair it does not record.)
    #[cfg(test)]
    pub(super) fn joins(&self, a: char, b: char) -> bool {
        !pair_class(b).is_some_and(|b| self.cuts(row(pair_class(a)), b))
    }

    /// Is there a cut between a left neighbour whose [`row`] this is and a codepoint of pair
    /// class `b`: no piece has the two side by side.
    #[inline]
    fn cuts(&self, row: usize, b: usize) -> bool {
        row != JOINS_ANY && !self.tables.joins_at(row.wrapping_add(b))
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

/// A left neighbour of pair class `class` as [`Vocabulary::cuts`] reads it: where its pairs
/// start in the joins bits (the class times [`PAIR_CLASSES`]), worked out once as it is pushed
/// rather than again for the codepoint after it.
#[inline]
fn row(class: Option<usize>) -> usize {
    class.map_or(JOINS_ANY, |a| a * PAIR_CLASSES)
}

/// The row of nothing (the start of the stream) and of a codepoint the joins bits do not record:
/// it joins whatever follows.
const JOINS_ANY: usize = usize::MAX;

/// Segment costs remembered by their codepoints: a JSON key with its quotes, a log level, a word
/// with its markers recur, and each is tiled once.
///
/// Most segments are a few ASCII characters and markers: those are keyed by their codes packed
/// into one `u128` (see [`Packed`]), hashed and compared as two words; the others by their
/// codepoints.
#[derive(Default)]
pub(super) struct Memo {
    packed: Generations<u128>,
    spelled: Generations<Box<[char]>>,
}

impl Memo {
    pub(super) fn clear(&mut self) {
        self.packed.clear();
        self.spelled.clear();
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.packed.len() + self.spelled.len()
    }
}

/// Costs remembered in two generations of at most [`GENERATION_MAX`]: when the newer is full it
/// becomes the older and the older is forgotten, and a cost found in the older moves to the
/// newer. So what recurs stays remembered however much passes through once (a log's line
/// numbers and timestamps), where one table started again when full forgot every word with them.
struct Generations<K> {
    newer: FxHashMap<K, u32>,
    older: FxHashMap<K, u32>,
}

impl<K> Default for Generations<K> {
    fn default() -> Self {
        Generations {
            newer: FxHashMap::default(),
            older: FxHashMap::default(),
        }
    }
}

impl<K: std::hash::Hash + Eq> Generations<K> {
    /// The cost remembered for `key`; one found in the older generation moves to the newer.
    #[inline]
    fn get<Q>(&mut self, key: &Q) -> Option<u32>
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        if let Some(&cost) = self.newer.get(key) {
            return Some(cost);
        }
        if self.older.is_empty() {
            return None;
        }
        let (key, cost) = self.older.remove_entry(key)?;
        self.remember(key, cost);
        Some(cost)
    }

    fn remember(&mut self, key: K, cost: u32) {
        if self.newer.len() >= GENERATION_MAX {
            std::mem::swap(&mut self.newer, &mut self.older);
            self.newer.clear();
        }
        self.newer.insert(key, cost);
    }

    fn clear(&mut self) {
        self.newer.clear();
        self.older.clear();
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.newer.len() + self.older.len()
    }
}

/// A short segment of ASCII and markers as one number: a byte per codepoint (ASCII as itself,
/// U+FDD0..U+FDD4 as 0x80..0x84), the length in the last byte. Two segments are equal exactly
/// when their numbers are.
#[derive(Clone, Copy)]
struct Packed {
    bytes: [u8; 16],
    /// Still packable: every codepoint so far had a byte, and there are at most [`PACKED_MAX`].
    whole: bool,
}

/// Codepoints a [`Packed`] key holds (the 16th byte is the length): a packed segment's key is a
/// [`Stretch`]'s number.
const PACKED_MAX: usize = STRETCH_MAX;

impl Packed {
    const EMPTY: Packed = Packed {
        bytes: [0; 16],
        whole: true,
    };

    /// A codepoint's byte is its pair class ([`pair_class`]: ASCII, then the markers).
    #[inline]
    fn push(&mut self, c: char, len_before: usize) {
        match (self.bytes.get_mut(len_before), pair_class(c)) {
            (Some(slot), Some(byte)) if len_before < PACKED_MAX => *slot = byte as u8,
            _ => self.whole = false,
        }
    }

    /// The key of a segment of `len` codepoints, if it packs.
    fn key(mut self, len: usize) -> Option<u128> {
        self.bytes[PACKED_MAX] = len as u8;
        self.whole.then(|| u128::from_le_bytes(self.bytes))
    }
}

/// Segments up to this many codepoints are remembered; a longer one is tiled as it comes.
const SEGMENT_MAX: usize = 24;

/// Entries a generation of a memo keeps: a few MB a family and thread for both generations.
const GENERATION_MAX: usize = 1 << 15;

/// Counts the tokens of a stream pushed into it.
///
/// The stream is cut where two neighbours form a pair no piece contains ([`Vocabulary::cuts`]):
/// no piece spans such a cut, so the best tiling of the whole is the sum of the best tilings of
/// the segments, and a segment seen before costs a lookup.
pub(super) struct Tiler<'v, 'm> {
    vocab: &'v Vocabulary<'v>,
    memo: &'m mut Memo,
    walk: Walk,
    /// The current segment, while it is short enough to remember.
    segment: [char; SEGMENT_MAX],
    len: usize,
    /// ... and its key, if it packs.
    packed: Packed,
    /// The current segment outgrew `segment` and is being tiled by `walk` as it comes.
    long: bool,
    /// The last codepoint pushed, as its [`row`].
    left: usize,
    /// The cost of the segments before the current one.
    settled: u32,
}

impl<'v, 'm> Tiler<'v, 'm> {
    pub(super) fn new(vocab: &'v Vocabulary<'v>, memo: &'m mut Memo) -> Self {
        Tiler {
            vocab,
            memo,
            walk: Walk::new(),
            segment: ['\0'; SEGMENT_MAX],
            len: 0,
            packed: Packed::EMPTY,
            long: false,
            left: JOINS_ANY,
            settled: 0,
        }
    }

    /// The cost of the best tiling of everything pushed.
    pub(super) fn total(&mut self) -> u32 {
        self.close_segment();
        self.settled
    }

    fn close_segment(&mut self) {
        let cost = if self.long {
            self.walk.total()
        } else if self.len == 0 {
            0
        } else if let Some(key) = self.packed.key(self.len) {
            self.packed_cost(key)
        } else {
            let segment = self.segment;
            self.spelled_cost(&segment[..self.len])
        };
        self.settled += cost;
        self.len = 0;
        self.packed = Packed::EMPTY;
        self.long = false;
    }
}

impl Sink for Tiler<'_, '_> {
    #[inline]
    fn push(&mut self, c: char) {
        let class = pair_class(c);
        if let Some(b) = class
            && self.vocab.cuts(self.left, b)
        {
            self.close_segment();
        }
        self.left = row(class);
        if self.long {
            self.walk.push(self.vocab, c);
        } else if self.len < SEGMENT_MAX {
            self.segment[self.len] = c;
            self.packed.push(c, self.len);
            self.len += 1;
        } else {
            self.long = true;
            self.walk.reset();
            for &early in &self.segment {
                self.walk.push(self.vocab, early);
            }
            self.walk.push(self.vocab, c);
        }
    }

    /// ASCII in a tight loop: each byte's pair with the one before looked up directly, and
    /// stored while the segment is short; anything else codepoint by codepoint.
    fn push_str(&mut self, s: &str) {
        if !s.is_ascii() {
            return s.chars().for_each(|c| self.push(c));
        }
        for &b in s.as_bytes() {
            let c = char::from(b);
            if self.long || self.len >= PACKED_MAX {
                self.push(c);
                continue;
            }
            if self.vocab.cuts(self.left, b as usize) {
                self.close_segment();
            }
            self.left = row(Some(b as usize));
            self.segment[self.len] = c;
            self.packed.bytes[self.len] = b;
            self.len += 1;
        }
    }

    /// A marked stream a segment at a time: see [`Tiler::tile_marked`].
    fn push_marked(&mut self, stream: &[u8]) {
        self.tile_marked(stream, false);
    }

    fn push_marked_to_cut(&mut self, stream: &[u8]) {
        self.tile_marked(stream, true);
    }

    /// A run of digits with a cut on either side costs a token per group of
    /// [`super::table::Tables::digit_group`] digits, if the vocabulary has every such group.
    fn push_digits(&mut self, digits: &[u8]) {
        let Some(group) = self.vocab.tables.digit_group else {
            return self.push_marked(digits);
        };
        self.close_segment();
        self.settled += (digits.len() as u32).div_ceil(group);
        self.left = JOINS_ANY;
    }

    /// A stretch with a cut on either side closes the segment in progress and is costed whole
    /// (a word is one lookup, whatever cuts it holds), remembered as a packed segment is.
    fn push_stretch(&mut self, stretch: Stretch) {
        self.close_segment();
        self.settled += self.packed_cost(stretch.0);
        self.left = JOINS_ANY;
    }
}

impl Tiler<'_, '_> {
    /// Tiles a marked stream a segment at a time: the cuts are found byte by byte, and each
    /// segment between two of them is found in the memo (or tiled) as a slice, never copied
    /// codepoint by codepoint. What comes before the first cut continues the segment in
    /// progress, and so does, unless `cut_after`, what comes after the last one (it may go on
    /// in the next push): both go codepoint by codepoint.
    fn tile_marked(&mut self, stream: &[u8], cut_after: bool) {
        let vocab = self.vocab;
        if cut_after && self.len == 0 && !self.long && (1..=PACKED_MAX).contains(&stream.len()) {
            // A cut on either side (the punctuation and space between two words): costed
            // whole, as a stretch is, one lookup whatever cuts it holds.
            self.settled += self.marked_cost(stream, 0, stream.len());
            self.left = JOINS_ANY;
            return;
        }
        let mut start = 0;
        if self.len > 0 || self.long {
            let mut left = self.left;
            let first_cut = stream.iter().position(|&b| {
                let cut = vocab.cuts(left, usize::from(b));
                left = usize::from(b) * PAIR_CLASSES;
                cut
            });
            match first_cut {
                Some(cut) => start = cut,
                None => return stream.iter().for_each(|&b| self.push(class_char(b))),
            }
            stream[..start]
                .iter()
                .for_each(|&b| self.push(class_char(b)));
            self.close_segment();
        }
        let Some(&first) = stream.get(start) else {
            return;
        };
        let mut left = usize::from(first) * PAIR_CLASSES;
        for at in start + 1..stream.len() {
            let b = usize::from(stream[at]);
            if vocab.cuts(left, b) {
                self.settled += self.marked_cost(stream, start, at);
                start = at;
            }
            left = b * PAIR_CLASSES;
        }
        // No segment is in progress: the next codepoint starts one, with nothing to cut.
        self.left = JOINS_ANY;
        if cut_after {
            self.settled += self.marked_cost(stream, start, stream.len());
        } else {
            stream[start..]
                .iter()
                .for_each(|&b| self.push(class_char(b)));
        }
    }

    /// The cost of the segment `stream[start..end]`, remembered as [`Tiler::close_segment`]
    /// remembers it (the same keys: a byte of a marked stream is its codepoint's pair class).
    fn marked_cost(&mut self, stream: &[u8], start: usize, end: usize) -> u32 {
        let segment = &stream[start..end];
        let len = segment.len();
        if len <= PACKED_MAX {
            let key = low_bytes(stream, start, len) | (len as u128) << (8 * PACKED_MAX);
            self.packed_cost(key)
        } else if len <= SEGMENT_MAX {
            let mut chars = ['\0'; SEGMENT_MAX];
            chars
                .iter_mut()
                .zip(segment)
                .for_each(|(c, &b)| *c = class_char(b));
            self.spelled_cost(&chars[..len])
        } else {
            self.walk
                .tile(self.vocab, segment.iter().map(|&b| class_char(b)))
        }
    }

    /// The cost of a short stretch of stream (between two cuts) whose [`Packed`] key (a
    /// [`Stretch`]'s number: its pair classes, then its length) is `key`: remembered, or tiled
    /// from the key's own bytes and remembered.
    fn packed_cost(&mut self, key: u128) -> u32 {
        if let Some(cost) = self.memo.packed.get(&key) {
            return cost;
        }
        let bytes = key.to_le_bytes();
        let stretch = &bytes[..usize::from(bytes[PACKED_MAX])];
        let cost = self
            .walk
            .tile(self.vocab, stretch.iter().map(|&b| class_char(b)));
        self.memo.packed.remember(key, cost);
        cost
    }

    /// The cost of a segment (between two cuts) that does not pack, by its codepoints:
    /// remembered, or tiled now and remembered.
    fn spelled_cost(&mut self, segment: &[char]) -> u32 {
        if let Some(cost) = self.memo.spelled.get(segment) {
            return cost;
        }
        let cost = self.walk.tile(self.vocab, segment.iter().copied());
        self.memo.spelled.remember(segment.into(), cost);
        cost
    }
}

/// The minimum-cost tiling of one segment, codepoint by codepoint: a ring of the last
/// [`WINDOW`] codepoints and their best costs.
struct Walk {
    chars: [char; WINDOW],
    best: [u32; WINDOW],
    /// Codepoints pushed since the segment began.
    pos: usize,
    run_char: char,
    run_len: usize,
}

impl Walk {
    fn new() -> Self {
        Walk {
            chars: ['\0'; WINDOW],
            best: [0; WINDOW],
            pos: 0,
            run_char: '\0',
            run_len: 0,
        }
    }

    /// Starts a segment: nothing pushed, cost 0.
    fn reset(&mut self) {
        self.pos = 0;
        self.best[0] = 0;
        self.run_char = '\0';
        self.run_len = 0;
    }

    fn total(&self) -> u32 {
        self.best[self.pos % WINDOW]
    }

    /// The cost of the best tiling of `segment` alone.
    fn tile(&mut self, vocab: &Vocabulary, segment: impl IntoIterator<Item = char>) -> u32 {
        self.reset();
        segment.into_iter().for_each(|c| self.push(vocab, c));
        self.total()
    }

    #[inline]
    fn push(&mut self, vocab: &Vocabulary, c: char) {
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
        let mut memo = Memo::default();
        let mut t = Tiler::new(v, &mut memo);
        text.chars().for_each(|c| t.push(c));
        t.total()
    }

    /// The tiling without cuts or memo: one walk over the whole text.
    fn walk(v: &Vocabulary, text: &str) -> u32 {
        let mut w = Walk::new();
        text.chars().for_each(|c| w.push(v, c));
        w.total()
    }

    /// A cost looked up at least once a generation stays, however many others pass through
    /// once; one that is not looked up is forgotten; the memo never holds more than two
    /// generations.
    #[test]
    fn what_recurs_stays_remembered_while_one_offs_pass_through() {
        let mut memo = Generations::<u128>::default();
        memo.remember(7, 3);
        let passing = 5 * GENERATION_MAX as u128;
        for k in 0..passing {
            memo.remember(1_000 + k, 1);
            if k % 1_000 == 0 {
                assert_eq!(memo.get(&7), Some(3), "after {k}");
            }
            assert!(memo.len() <= 2 * GENERATION_MAX);
        }
        assert_eq!(memo.get(&7), Some(3));
        assert_eq!(memo.get(&1_000), None);
        assert_eq!(memo.get(&(1_000 + passing - 1)), Some(1));
    }

    /// Cutting the stream where no piece joins two neighbours, and remembering segments,
    /// changes no count: random texts over an alphabet whose pieces join some pairs and not
    /// others, long segments and runs among them, against one walk over the whole text.
    #[test]
    fn cut_and_remembered_segments_count_as_one_walk() {
        let v = vocab(
            &[
                "a", "b", "c", " ", "\n", "ab", "abc", "bca", " a", "a ", "\n\n", "\n\n\n\n", "cc",
                "ccc", "\"a\"", "\":", "é",
            ],
            &[b"\xc3\xa9"],
        );
        assert!(v.joins('a', 'b') && !v.joins('b', 'b') && v.joins('é', 'a'));
        let alphabet: Vec<char> = "abc \n\":,éx".chars().collect();
        let mut memo = Memo::default();
        let mut next = crate::tokens::xorshift(0x2545_f491_4f6c_dd1d);
        for round in 0..3_000 {
            let len = [3, 20, 60, 400][round % 4];
            let text: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let mut t = Tiler::new(&v, &mut memo);
            text.chars().for_each(|c| t.push(c));
            assert_eq!(t.total(), walk(&v, &text), "{text:?}");
        }
        assert!(memo.len() > 100, "segments were remembered: {}", memo.len());
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
        assert!(Tables::from_words(&[0; 10]).is_err());
    }
}
