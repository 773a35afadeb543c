//! A vocabulary as the tiler reads it, laid out as flat `u32` tables: built from ctok's file by
//! build.rs when mcpguard is compiled, embedded in the binary and read in place, so no process
//! builds a trie before its first count (the kernel pages in only the tables a count touches).
//!
//! std only: build.rs includes this file as it is (`#[path]`), so the writer and the reader
//! of the layout are one piece of code.
//!
//! The pieces sit in a trie read backwards (see tiling.rs): a node's children are
//! `edges[first..first + len]`, sorted by label; a node with many children (a word end has
//! thousands of last letters) also has a direct table of its ASCII children. An edge's target
//! carries the target's terminal flag in its top bit, so "is there a piece ending here" comes
//! with the edge.

/// Word start, word end, and the two case markers of the marked stream, as ctok's pieces spell
/// them: noncharacters, absent from real text.
pub const BOW: char = '\u{FDD0}';
pub const EOW: char = '\u{FDD1}';
pub const SHIFT: char = '\u{FDD3}';
pub const CAPS: char = '\u{FDD4}';

/// The ring the tiler keeps: longer than the longest piece (checked when the tables are built).
pub const WINDOW: usize = 256;

/// No edge, no table.
pub const NONE: u32 = u32::MAX;

/// The terminal flag in an edge's target.
pub const TERMINAL: u32 = 1 << 31;

/// Children above which a node gets a direct ASCII table.
pub const LINEAR_CHILDREN: usize = 8;

/// The first word of every embedded table ("CTK3"), so a stale or foreign file is refused.
const MAGIC: u32 = u32::from_le_bytes(*b"CTK3");

/// The characters whose pairs [`Tables::joins`] records: ASCII, then the five marker
/// codepoints U+FDD0..U+FDD4. Any other character may join anything.
pub const PAIR_CLASSES: usize = 128 + 5;

/// A character's place among [`PAIR_CLASSES`], if it has one. A marked stream written as bytes
/// spells each codepoint as this (see [`class_char`]).
#[inline]
pub const fn pair_class(c: char) -> Option<usize> {
    match c as u32 {
        a @ 0..=0x7F => Some(a as usize),
        m @ 0xFDD0..=0xFDD4 => Some(128 + (m - BOW as u32) as usize),
        _ => None,
    }
}

/// The character whose [`pair_class`] `class` is (a byte of a marked stream read back).
#[inline]
pub fn class_char(class: u8) -> char {
    if class.is_ascii() {
        char::from(class)
    } else {
        char::from_u32(BOW as u32 + u32::from(class - 128)).unwrap_or(char::REPLACEMENT_CHARACTER)
    }
}

/// A vocabulary's tables, owned (as built) or borrowed (as embedded).
#[derive(Clone, Copy, Debug)]
pub struct Tables<'a> {
    /// Fold curly quotes to straight ones before counting (v3).
    pub fold_quotes: bool,
    /// The shortest all-caps word the stream marks as one (v3), if any.
    pub allcaps_min: Option<u32>,
    /// `n` if every string of 1 to `n` ASCII digits is a piece and no string of more is: then
    /// a run of digits that no piece joins to its neighbours costs its length / `n`, rounded up.
    pub digit_group: Option<u32>,
    /// `[first, len, ascii]` per node; node 0 is the root.
    pub nodes: &'a [[u32; 3]],
    /// `[label, target | TERMINAL]`: every node's children, contiguous.
    pub edges: &'a [[u32; 2]],
    /// 128 entries per node that has a direct ASCII table.
    pub ascii_tables: &'a [u32],
    /// The root's edge target for every BMP codepoint (NONE where there is none).
    pub root_bmp: &'a [u32],
    /// Byte prefixes of the UTF-8 floor, packed by [`pack`], sorted.
    pub byte_prefixes: &'a [u32],
    /// `[char, after, period]`, sorted by char: runs of one character whose cost settles.
    pub shortcuts: &'a [[u32; 3]],
    /// A bit per ordered pair of [`PAIR_CLASSES`] (`a * PAIR_CLASSES + b`): set when some piece
    /// has `a` right before `b`. Where the stream has an unset pair, no piece spans it, so the
    /// tiling splits there into two independent tilings.
    pub joins: &'a [u32],
}

/// The tables a build makes, before they are borrowed as [`Tables`].
#[derive(Debug, Default)]
pub struct Built {
    pub fold_quotes: bool,
    pub allcaps_min: Option<u32>,
    pub digit_group: Option<u32>,
    pub nodes: Vec<[u32; 3]>,
    pub edges: Vec<[u32; 2]>,
    pub ascii_tables: Vec<u32>,
    pub root_bmp: Vec<u32>,
    pub byte_prefixes: Vec<u32>,
    pub shortcuts: Vec<[u32; 3]>,
    pub joins: Vec<u32>,
}

impl Built {
    /// The vocabulary of ctok's file: its pieces, its contraction suffixes (written glued to
    /// the word end, as the stream writes them) and its byte prefixes in hex.
    pub fn from_file(
        fold_quotes: bool,
        allcaps_min: Option<u32>,
        pieces: &[String],
        contractions: &[String],
        byte_prefixes_hex: &[String],
    ) -> Result<Built, String> {
        let mut all: Vec<Vec<char>> = pieces.iter().map(|p| p.chars().collect()).collect();
        all.extend(
            contractions
                .iter()
                .map(|c| c.chars().chain([EOW]).collect()),
        );
        let prefixes = byte_prefixes_hex
            .iter()
            .map(|hex| decode_hex(hex).ok_or_else(|| format!("byte prefix `{hex}` is not hex")))
            .collect::<Result<Vec<_>, _>>()?;
        let mut built = Built::new(all, &prefixes)?;
        built.fold_quotes = fold_quotes;
        built.allcaps_min = allcaps_min;
        Ok(built)
    }

    /// The trie over `pieces` (each a codepoint sequence) and the byte floor.
    pub fn new(mut pieces: Vec<Vec<char>>, byte_prefixes: &[Vec<u8>]) -> Result<Built, String> {
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
        let joins = joined_pairs(&pieces);
        pieces.iter_mut().for_each(|p| p.reverse());
        pieces.sort_unstable();
        pieces.dedup();

        let mut built = Built {
            digit_group: digit_group(&pieces),
            nodes: vec![[0, 0, NONE]],
            root_bmp: vec![NONE; 0x10000],
            shortcuts,
            joins,
            ..Built::default()
        };
        built.fill(0, &pieces, 0);
        let [first, len, _] = built.nodes[0];
        for &[label, target] in &built.edges[first as usize..(first + len) as usize] {
            if label < 0x10000 {
                built.root_bmp[label as usize] = target;
            }
        }
        for prefix in byte_prefixes {
            if !(2..=3).contains(&prefix.len()) {
                return Err(format!("a byte prefix of {} bytes", prefix.len()));
            }
            built.byte_prefixes.push(pack(prefix));
        }
        built.byte_prefixes.sort_unstable();
        Ok(built)
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
            self.edges
                .push([label as u32, self.nodes.len() as u32 | terminal]);
            self.nodes.push([0, 0, NONE]);
        }
        let mut ascii = NONE;
        if ranges.len() > LINEAR_CHILDREN {
            ascii = (self.ascii_tables.len() / 128) as u32;
            self.ascii_tables.extend([NONE; 128]);
            let table = &mut self.ascii_tables[ascii as usize * 128..];
            for &[label, target] in &self.edges[first..] {
                if label < 128 {
                    table[label as usize] = target;
                }
            }
        }
        self.nodes[node] = [first as u32, ranges.len() as u32, ascii];
        for (k, &(_, lo, hi)) in ranges.iter().enumerate() {
            let child = (self.edges[first + k][1] & !TERMINAL) as usize;
            let lo = if group[lo].len() == depth + 1 {
                lo + 1
            } else {
                lo
            };
            self.fill(child, &group[lo..hi], depth + 1);
        }
    }

    /// The tables, borrowed.
    pub fn tables(&self) -> Tables<'_> {
        Tables {
            fold_quotes: self.fold_quotes,
            allcaps_min: self.allcaps_min,
            digit_group: self.digit_group,
            nodes: &self.nodes,
            edges: &self.edges,
            ascii_tables: &self.ascii_tables,
            root_bmp: &self.root_bmp,
            byte_prefixes: &self.byte_prefixes,
            shortcuts: &self.shortcuts,
            joins: &self.joins,
        }
    }
}

impl<'a> Tables<'a> {
    /// Does some piece have a codepoint of pair class `a` right before one of class `b`?
    pub fn pair_joins(&self, a: usize, b: usize) -> bool {
        self.joins_at(a * PAIR_CLASSES + b)
    }

    /// [`Tables::joins`]' bit for the pair `a * PAIR_CLASSES + b` (so a caller may keep `a`'s
    /// row from one codepoint to the next).
    #[inline]
    pub fn joins_at(&self, bit: usize) -> bool {
        self.joins[bit / 32] & (1 << (bit % 32)) != 0
    }

    /// No piece joins a word's markers to what is outside the word: nothing follows ⟨eow⟩,
    /// nothing comes before a case marker, and only a case marker before ⟨bow⟩. Then a word's
    /// stream, `[case] ⟨bow⟩ body ⟨eow⟩`, has a cut on either side and costs what it costs
    /// alone. (True of both of ctok's vocabularies; a test checks it stays true.)
    pub fn words_stand_alone(&self) -> bool {
        let class = |marker: char| pair_class(marker).unwrap_or(usize::MAX);
        let (bow, eow, shift, caps) = (class(BOW), class(EOW), class(SHIFT), class(CAPS));
        (0..PAIR_CLASSES).all(|x| {
            !self.pair_joins(eow, x)
                && !self.pair_joins(x, shift)
                && !self.pair_joins(x, caps)
                && (x == shift || x == caps || !self.pair_joins(x, bow))
        })
    }

    /// No piece has an ASCII digit beside anything but another (of ASCII and the markers): a
    /// run of digits is tiled on its own. (True of both of ctok's vocabularies.)
    pub fn digits_stand_alone(&self) -> bool {
        let is_digit = |x: usize| (usize::from(b'0')..=usize::from(b'9')).contains(&x);
        (0..PAIR_CLASSES).filter(|&d| is_digit(d)).all(|d| {
            (0..PAIR_CLASSES)
                .filter(|&x| !is_digit(x))
                .all(|x| !self.pair_joins(d, x) && !self.pair_joins(x, d))
        })
    }

    /// The tables as one run of words: a header (magic, switches, lengths), then each table.
    pub fn to_words(self) -> Vec<u32> {
        let mut words = vec![
            MAGIC,
            u32::from(self.fold_quotes),
            self.allcaps_min.unwrap_or(NONE),
            self.digit_group.unwrap_or(NONE),
            self.nodes.len() as u32,
            self.edges.len() as u32,
            self.ascii_tables.len() as u32,
            self.root_bmp.len() as u32,
            self.byte_prefixes.len() as u32,
            self.shortcuts.len() as u32,
            self.joins.len() as u32,
        ];
        words.extend(self.nodes.iter().flatten());
        words.extend(self.edges.iter().flatten());
        words.extend(self.ascii_tables);
        words.extend(self.root_bmp);
        words.extend(self.byte_prefixes);
        words.extend(self.shortcuts.iter().flatten());
        words.extend(self.joins);
        words
    }

    /// Reads tables written by [`Tables::to_words`], in place.
    pub fn from_words(words: &'a [u32]) -> Result<Tables<'a>, String> {
        let Some((header, mut rest)) = words.split_first_chunk::<11>() else {
            return Err("shorter than its header".into());
        };
        let [
            magic,
            fold,
            caps,
            digits,
            nodes,
            edges,
            ascii,
            bmp,
            prefixes,
            shortcuts,
            joins,
        ] = *header;
        if magic != MAGIC {
            return Err("not a vocabulary table (wrong magic)".into());
        }
        let mut take = |n: u32| -> Result<&'a [u32], String> {
            let (head, tail) = rest
                .split_at_checked(n as usize)
                .ok_or("shorter than its header says")?;
            rest = tail;
            Ok(head)
        };
        let tables = Tables {
            fold_quotes: fold != 0,
            allcaps_min: (caps != NONE).then_some(caps),
            digit_group: (digits != NONE).then_some(digits),
            nodes: take(nodes * 3)?.as_chunks().0,
            edges: take(edges * 2)?.as_chunks().0,
            ascii_tables: take(ascii)?,
            root_bmp: take(bmp)?,
            byte_prefixes: take(prefixes)?,
            shortcuts: take(shortcuts * 3)?.as_chunks().0,
            joins: take(joins)?,
        };
        if !rest.is_empty()
            || tables.root_bmp.len() != 0x10000
            || tables.nodes.is_empty()
            || tables.joins.len() != (PAIR_CLASSES * PAIR_CLASSES).div_ceil(32)
        {
            return Err("its tables do not add up".into());
        }
        Ok(tables)
    }
}

/// [`Tables::digit_group`] of a vocabulary's (distinct) pieces.
fn digit_group(pieces: &[Vec<char>]) -> Option<u32> {
    let mut by_length = [0u64; 10];
    for piece in pieces {
        if piece.iter().all(char::is_ascii_digit) {
            *by_length.get_mut(piece.len())? += 1;
        }
    }
    let longest = by_length.iter().rposition(|&n| n > 0).filter(|&n| n > 0)?;
    (1..=longest)
        .all(|n| by_length[n] == 10u64.pow(n as u32))
        .then_some(longest as u32)
}

/// A byte prefix (at most three bytes) as one sortable number: its length, then its bytes.
pub fn pack(bytes: &[u8]) -> u32 {
    (bytes.len() as u32) << 24 | bytes.iter().fold(0, |acc, &b| acc << 8 | u32::from(b))
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The runs of one character whose cost settles (see tiling.rs): deep inside a run of `c`, once
/// it is longer than `max_len + K * sum(lengths)`, an optimal tiling always uses the longest
/// piece of `c`s, `K`, so the cost repeats with period `K`.
fn run_shortcuts(pieces: &[Vec<char>]) -> Vec<[u32; 3]> {
    let max_len = pieces.iter().map(Vec::len).max().unwrap_or(0);
    let mut lengths: Vec<(char, usize)> = pieces
        .iter()
        .filter(|p| p.iter().all(|&c| c == p[0]))
        .map(|p| (p[0], p.len()))
        .collect();
    lengths.sort_unstable();
    lengths
        .chunk_by(|a, b| a.0 == b.0)
        .filter_map(|run| {
            let c = run[0].0;
            let longest = run.iter().map(|r| r.1).max()?;
            let sum: usize = run.iter().map(|r| r.1).sum();
            // The swap argument needs the one-character piece (cost 1) among the coins.
            (longest >= 2 && run.iter().any(|r| r.1 == 1))
                .then(|| [c as u32, (max_len + longest * sum) as u32, longest as u32])
        })
        .collect()
}

/// The pairs of [`PAIR_CLASSES`] that occur inside a piece, as [`Tables::joins`] keeps them.
fn joined_pairs(pieces: &[Vec<char>]) -> Vec<u32> {
    let mut bits = vec![0u32; (PAIR_CLASSES * PAIR_CLASSES).div_ceil(32)];
    for piece in pieces {
        for pair in piece.windows(2) {
            if let (Some(a), Some(b)) = (pair_class(pair[0]), pair_class(pair[1])) {
                let bit = a * PAIR_CLASSES + b;
                bits[bit / 32] |= 1 << (bit % 32);
            }
        }
    }
    bits
}
