//! The minimum-cost tiling of the marked stream: every vocabulary piece costs one token, and a
//! codepoint no piece covers falls to its UTF-8 bytes, tiled over the measured byte prefixes.
//!
//! The pieces sit in a trie read backwards, so when a codepoint arrives the tiler walks back
//! from it through exactly the pieces that can end there. The tiler only counts, so it keeps
//! a ring of the last [`WINDOW`] codepoints and their best costs: constant memory whatever the
//! length of the text, and no allocation per call.
//!
//! One shortcut keeps long runs of one character linear in practice as well as in theory: deep
//! inside a run of `c` (say 10 MB of newlines), only pieces made of `c` can end at a position,
//! and once the run is longer than `max_len + K * sum(lengths)` an optimal tiling always uses the
//! longest such piece `K` (K copies of a shorter piece can be swapped for fewer copies of K), so
//! `best(p) = best(p - K) + 1` exactly, without the walk.

use rustc_hash::FxHashMap;

use super::stream::{Sink, unescape_literal_marker};

/// The ring the tiler keeps: longer than the longest piece (checked when the vocabulary loads).
const WINDOW: usize = 256;

const NONE: u32 = u32::MAX;

/// An edge's target with the target's terminal flag in the top bit, so a walk step reads one
/// array: "is there a piece ending here" comes with the edge.
const TERMINAL: u32 = 1 << 31;

/// A node's children are `edges[first..first + len]`, sorted by label. A node with many
/// children (a word end has thousands of last letters) also has a direct table of its ASCII
/// children at `ascii_tables[ascii * 128..]`: one load instead of a mispredicted binary search.
#[derive(Clone, Copy, Debug)]
struct Node {
    first: u32,
    len: u32,
    ascii: u32,
}

impl Default for Node {
    fn default() -> Self {
        Node {
            first: 0,
            len: 0,
            ascii: NONE,
        }
    }
}

/// Children above which a node gets a direct ASCII table.
const LINEAR_CHILDREN: usize = 8;

/// A run of one character, and the period its cost settles into.
#[derive(Clone, Copy, Debug)]
struct RunShortcut {
    after: usize,
    period: usize,
}

/// The vocabulary as the tiler reads it.
pub(super) struct Vocabulary {
    nodes: Vec<Node>,
    /// (label, target | TERMINAL): every node's children, contiguous.
    edges: Vec<(char, u32)>,
    ascii_tables: Vec<u32>,
    /// The root's edge target for every BMP codepoint (NONE where there is none): the one
    /// lookup every position makes.
    root_bmp: Box<[u32]>,
    /// Byte prefixes of the UTF-8 floor, packed as `len << 24 | bytes`, sorted.
    byte_prefixes: Vec<u32>,
    shortcuts: FxHashMap<char, RunShortcut>,
    /// The shortest run any shortcut needs, so most positions skip the map.
    shortest_shortcut: usize,
}

impl Vocabulary {
    /// Builds the trie over `pieces` (each a codepoint sequence) and the byte floor.
    pub(super) fn new(
        mut pieces: Vec<Vec<char>>,
        byte_prefixes: &[Vec<u8>],
    ) -> Result<Self, String> {
        if let Some(long) = pieces.iter().find(|p| p.len() >= WINDOW) {
            return Err(format!(
                "a piece of {} codepoints (the tiler keeps {WINDOW})",
                long.len()
            ));
        }
        if pieces.iter().any(Vec::is_empty) {
            return Err("an empty piece".into());
        }
        let shortcuts = run_shortcuts(&pieces);
        pieces.iter_mut().for_each(|p| p.reverse());
        pieces.sort_unstable();
        pieces.dedup();

        let mut vocab = Vocabulary {
            nodes: vec![Node::default()],
            edges: Vec::new(),
            ascii_tables: Vec::new(),
            root_bmp: vec![NONE; 0x10000].into_boxed_slice(),
            byte_prefixes: Vec::new(),
            shortest_shortcut: shortcuts
                .values()
                .map(|s| s.after)
                .min()
                .unwrap_or(usize::MAX),
            shortcuts,
        };
        vocab.fill(0, &pieces, 0);
        let root = vocab.nodes[0];
        for &(label, target) in &vocab.edges[root.first as usize..(root.first + root.len) as usize]
        {
            if let Ok(bmp) = u16::try_from(label as u32) {
                vocab.root_bmp[usize::from(bmp)] = target;
            }
        }
        for prefix in byte_prefixes {
            if !(2..=3).contains(&prefix.len()) {
                return Err(format!("a byte prefix of {} bytes", prefix.len()));
            }
            vocab.byte_prefixes.push(pack(prefix));
        }
        vocab.byte_prefixes.sort_unstable();
        Ok(vocab)
    }

    /// Gives `node` the children found at `depth` of `group` (sorted, sharing `depth` labels,
    /// none of them ending at `depth`).
    fn fill(&mut self, node: usize, group: &[Vec<char>], depth: usize) {
        // Each child's range of `group`, by the label at `depth`.
        let mut ranges = Vec::new();
        let mut start = 0;
        for i in 1..=group.len() {
            if i == group.len() || group[i][depth] != group[start][depth] {
                ranges.push((group[start][depth], start, i));
                start = i;
            }
        }
        let first = self.edges.len();
        for &(label, lo, _) in &ranges {
            // Sorted, so a piece that ends at the child comes first in its range.
            let terminal = if group[lo].len() == depth + 1 {
                TERMINAL
            } else {
                0
            };
            self.edges.push((label, self.nodes.len() as u32 | terminal));
            self.nodes.push(Node::default());
        }
        let mut ascii = NONE;
        if ranges.len() > LINEAR_CHILDREN {
            ascii = (self.ascii_tables.len() / 128) as u32;
            self.ascii_tables.extend([NONE; 128]);
            let table = &mut self.ascii_tables[ascii as usize * 128..];
            for &(label, target) in &self.edges[first..] {
                if label.is_ascii() {
                    table[label as usize] = target;
                }
            }
        }
        self.nodes[node] = Node {
            first: first as u32,
            len: ranges.len() as u32,
            ascii,
        };
        for (k, &(_, lo, hi)) in ranges.iter().enumerate() {
            let child = (self.edges[first + k].1 & !TERMINAL) as usize;
            let lo = if group[lo].len() == depth + 1 {
                lo + 1
            } else {
                lo
            };
            self.fill(child, &group[lo..hi], depth + 1);
        }
    }

    /// The root's edge for `c`: target | TERMINAL, or NONE.
    #[inline]
    fn root_edge(&self, c: char) -> u32 {
        match u16::try_from(c as u32) {
            Ok(bmp) => self.root_bmp[usize::from(bmp)],
            Err(_) => self.edge(0, c),
        }
    }

    /// `node`'s edge for `c`: target | TERMINAL, or NONE.
    #[inline]
    fn edge(&self, node: usize, c: char) -> u32 {
        let Node { first, len, ascii } = self.nodes[node];
        if ascii != NONE && c.is_ascii() {
            return self.ascii_tables[ascii as usize * 128 + c as usize];
        }
        let edges = &self.edges[first as usize..(first + len) as usize];
        let found = if edges.len() <= LINEAR_CHILDREN {
            edges.iter().find(|e| e.0 == c)
        } else {
            edges
                .binary_search_by(|e| e.0.cmp(&c))
                .ok()
                .map(|i| &edges[i])
        };
        found.map_or(NONE, |e| e.1)
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

/// A byte prefix (at most three bytes) as one sortable number: its length, then its bytes.
fn pack(bytes: &[u8]) -> u32 {
    (bytes.len() as u32) << 24 | bytes.iter().fold(0, |acc, &b| acc << 8 | u32::from(b))
}

/// The runs of one character whose cost settles, by character (see the module doc).
fn run_shortcuts(pieces: &[Vec<char>]) -> FxHashMap<char, RunShortcut> {
    let max_len = pieces.iter().map(Vec::len).max().unwrap_or(0);
    let mut lengths: FxHashMap<char, Vec<usize>> = FxHashMap::default();
    for p in pieces {
        if p.iter().all(|&c| c == p[0]) {
            lengths.entry(p[0]).or_default().push(p.len());
        }
    }
    lengths
        .into_iter()
        .filter_map(|(c, ls)| {
            let longest = *ls.iter().max()?;
            // The swap argument needs the one-character piece (cost 1) among the coins.
            (longest >= 2 && ls.contains(&1)).then(|| {
                let sum: usize = ls.iter().sum();
                (
                    c,
                    RunShortcut {
                        after: max_len + longest * sum,
                        period: longest,
                    },
                )
            })
        })
        .collect()
}

/// Counts the tokens of a stream pushed into it.
pub(super) struct Tiler<'v> {
    vocab: &'v Vocabulary,
    chars: [char; WINDOW],
    best: [u32; WINDOW],
    /// Codepoints pushed so far.
    pos: usize,
    run_char: char,
    run_len: usize,
}

impl<'v> Tiler<'v> {
    pub(super) fn new(vocab: &'v Vocabulary) -> Self {
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
            && let Some(s) = vocab.shortcuts.get(&c)
            && self.run_len >= s.after
        {
            self.best[end % WINDOW] = self.best[(end - s.period) % WINDOW] + 1;
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

    fn vocab(pieces: &[&str], prefixes: &[&[u8]]) -> Vocabulary {
        Vocabulary::new(
            pieces.iter().map(|p| p.chars().collect()).collect(),
            &prefixes.iter().map(|p| p.to_vec()).collect::<Vec<_>>(),
        )
        .unwrap()
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
        let shortcut = v.shortcuts[&'\n'];
        assert_eq!(shortcut.period, 5);
        for n in [
            1,
            7,
            shortcut.after - 1,
            shortcut.after,
            shortcut.after + 13,
            5000,
        ] {
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
        assert!(Vocabulary::new(vec![long], &[]).is_err());
    }
}
