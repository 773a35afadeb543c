//! Claude's current tokenizers, reconstructed offline: the method of ctok 1.3.0 (Sander Land,
//! MIT; PyPI `ctok`), written again in Rust over the two vocabularies it measured against
//! Anthropic's `count_tokens` (data/claude/ctok-*.json, with their licence).
//!
//! A count goes through three steps, one module each:
//! 1. [`normalize`]: NFC, stripped controls and private use, folded spaces and (v3) quotes;
//! 2. [`stream`]: the text rewritten as a marked stream (word, case and boundary markers);
//! 3. [`tiling`]: the minimum-cost tiling of that stream over the vocabulary, with a UTF-8 byte
//!    floor for what no piece covers. The vocabulary's trie is [`table`]'s: build.rs lays it out
//!    when mcpguard is compiled, and a process reads it in place.
//!
//! Steps 2 and 3 go a line at a time ([`lines`]): a line after the first costs what it costs
//! anywhere, and one seen before is not written or tiled again. An ASCII line (most of a tool
//! result) is written by [`ascii`] in one loop over its bytes and tiled a segment at a time; so
//! are the long ASCII spans of any other line (a one-line JSON text with an emoji in it).
//!
//! The count is the content's tokens: ctok's `token_count(text) - token_count("")`. The message
//! frame belongs to a message, not to a tool result inside one. This reproduces a
//! reconstruction, not an official tokenizer; ctok reports no undercount on 2.3 million measured
//! texts per family, which is what mcpguard's verdicts need.

mod ascii;
mod case;
mod classes;
mod lines;
mod normalize;
mod stream;
#[cfg_attr(not(test), allow(dead_code))] // the builder half is build.rs's (and the tests')
mod table;
mod tiling;

use self::lines::{LineMemo, Seen};
use self::stream::{Seam, Sink, StreamRules};
use self::table::Tables;
use self::tiling::{Memo, Tiler, Vocabulary};
use super::TokenCounter;
use zerocopy::FromBytes;

/// A reconstructed tokenizer generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Claude 3 through Opus 4.6.
    V3,
    /// Opus 4.7 and later (Opus 4.8 and Sonnet 5 reuse this vocabulary).
    V4_7,
}

/// Bytes aligned for reading as `u32` words.
#[repr(C, align(4))]
struct Aligned<B: ?Sized>(B);

/// The families' tables, as build.rs laid them out from data/claude/ctok-*.json.
static V3_TABLES: &Aligned<[u8]> = &Aligned(*include_bytes!(concat!(
    env!("OUT_DIR"),
    "/claude-v3.tables"
)));
static V4_7_TABLES: &Aligned<[u8]> = &Aligned(*include_bytes!(concat!(
    env!("OUT_DIR"),
    "/claude-v4_7.tables"
)));

impl Family {
    fn tables(self) -> &'static [u8] {
        match self {
            Family::V3 => &V3_TABLES.0,
            Family::V4_7 => &V4_7_TABLES.0,
        }
    }
}

/// One family's vocabulary and switches, read in place from the binary.
pub struct Claude {
    vocab: Vocabulary<'static>,
    fold_quotes: bool,
    rules: StreamRules,
    family: Family,
}

thread_local! {
    /// Each family's remembered segment and line costs, per thread (see [`tiling::Memo`] and
    /// [`lines::LineMemo`]), and the buffer [`ascii`] writes a stream into.
    static MEMOS: std::cell::RefCell<[(Memo, LineMemo, Vec<u8>); 2]> =
        std::cell::RefCell::default();
    /// Each family's counts of the last few long texts, newest first: (length, 128-bit hash,
    /// count). One text is often counted again: `estimate`'s where-the-tokens-go of a single
    /// text block is that block; the proxy counts a page to fit it, then the answer it is in.
    static RECENT: std::cell::RefCell<[[Remembered; REMEMBERED_SLOTS]; 2]> =
        const { std::cell::RefCell::new([[(0, 0, 0); REMEMBERED_SLOTS]; 2]) };
}

type Remembered = (usize, u128, usize);

/// Texts counted per family and thread that are remembered whole (a hash each: the audit of a
/// corpus counts a handful of small texts near the budget between two captures of one large
/// result, and four slots let them push it out)...
const REMEMBERED_SLOTS: usize = 32;
/// ...when they are at least this long (a shorter text costs less to count than to hash).
const REMEMBERED_FROM: usize = 2048;

impl Claude {
    /// Reads a family's embedded tables: no parsing and no building, so it costs microseconds.
    pub fn load(family: Family) -> Result<Self, String> {
        let words = <[u32]>::ref_from_bytes(family.tables())
            .map_err(|_| "the embedded tables are not whole words".to_owned())?;
        let tables = Tables::from_words(words)?;
        Ok(Claude {
            fold_quotes: tables.fold_quotes,
            rules: StreamRules {
                allcaps_min: tables.allcaps_min.map(|n| n as usize),
                words_stand_alone: tables.words_stand_alone(),
                digits_stand_alone: tables.digits_stand_alone(),
            },
            vocab: Vocabulary::new(tables),
            family,
        })
    }
}

/// Forgets the whole texts' counts this thread remembers, for both families: a benchmark's
/// runs each count afresh.
#[doc(hidden)]
pub fn forget_counts() {
    RECENT.with_borrow_mut(|recent| *recent = [[(0, 0, 0); REMEMBERED_SLOTS]; 2]);
}

/// Forgets everything this thread remembers (segment and line costs, whole texts' counts), for
/// both families: a benchmark measures a text seen for the first time.
#[doc(hidden)]
pub fn forget_remembered_segments() {
    MEMOS.with_borrow_mut(|memos| {
        memos.iter_mut().for_each(|(segments, lines, _)| {
            segments.clear();
            lines.clear();
        })
    });
    forget_counts();
}

impl TokenCounter for Claude {
    fn count(&self, text: &str) -> usize {
        if text.len() < REMEMBERED_FROM {
            return self.count_afresh(text);
        }
        let family = self.family as usize;
        let key = (text.len(), xxhash_rust::xxh3::xxh3_128(text.as_bytes()));
        let known = RECENT.with_borrow(|recent| {
            recent[family]
                .iter()
                .find(|&&(len, hash, _)| (len, hash) == key)
                .map(|&(_, _, count)| count)
        });
        known.unwrap_or_else(|| {
            let count = self.count_afresh(text);
            RECENT.with_borrow_mut(|recent| {
                recent[family].rotate_right(1);
                recent[family][0] = (key.0, key.1, count);
            });
            count
        })
    }
}

impl Claude {
    /// The count, tiled now (segments may still be remembered). The text is normalized a
    /// piece at a time ([`normalize::pieces`]), so only the pieces that need it are copied.
    fn count_afresh(&self, text: &str) -> usize {
        MEMOS.with_borrow_mut(|memos| {
            let (memo, line_memo, buf) = &mut memos[self.family as usize];
            let mut tiler = Tiler::new(&self.vocab, memo);
            let mut pieces = normalize::pieces(text).peekable();
            // The head's raw-space flag until the head is written.
            let mut head = Some(text.starts_with(' '));
            let mut settled = 0;
            let mut remembered = 0;
            let mut trailing = 0;
            while let Some(piece) = pieces.next() {
                let norm = normalize::normalize(piece, self.fold_quotes);
                let mut body: &str = &norm;
                if pieces.peek().is_none() {
                    body = norm.trim_end_matches('\n');
                    trailing = norm.len() - body.len();
                }
                let mut parts = lines::split(body);
                if let Some(space) = head.take() {
                    let first = parts.next().unwrap_or_default();
                    self.write_part(first, Some(space), buf, &mut tiler);
                    // A cut follows every part but the last, so the tiling so far is settled
                    // there.
                    settled = tiler.total();
                }
                for line in parts {
                    let key = lines::key(line);
                    let seen = key.map(|key| line_memo.seen(key));
                    if let Some(Seen::Known(cost)) = seen {
                        remembered += cost;
                        continue;
                    }
                    self.write_part(line, None, buf, &mut tiler);
                    let total = tiler.total();
                    if let (Some(key), Some(Seen::Remember)) = (key, seen) {
                        line_memo.remember(key, total - settled);
                    }
                    settled = total;
                }
            }
            // The empty message's stream is the frame's ⟨bow⟩ alone: one token that is not
            // content.
            let content = (tiler.total() + remembered).saturating_sub(1) as usize;
            content + self.final_newlines(trailing, memo)
        })
    }

    /// Writes one part of a body into the tiler: the head (`Some(raw_head_space)`: the raw text
    /// began with a space), which the frame precedes, or a line after a newline (`None`). ASCII
    /// goes through [`ascii`] in one loop over its bytes; a part with other characters too has
    /// its long ASCII [`ascii::spans`] written so, and the rest through [`stream`] and the seam
    /// filter, each piece after the first as a line's continuation.
    fn write_part(&self, part: &str, head: Option<bool>, buf: &mut Vec<u8>, tiler: &mut Tiler) {
        let bytes = part.as_bytes();
        if part.is_ascii() {
            return self.write_ascii(bytes, head, true, buf, tiler);
        }
        let mut head = head;
        let mut done = 0;
        for (start, end) in ascii::spans(bytes) {
            if start > done {
                self.write_general(&part[done..start], head.take(), tiler);
            }
            let cut_after = end == bytes.len();
            self.write_ascii(&bytes[start..end], head.take(), cut_after, buf, tiler);
            done = end;
        }
        if done < part.len() {
            self.write_general(&part[done..], head, tiler);
        }
    }

    fn write_ascii(
        &self,
        bytes: &[u8],
        head: Option<bool>,
        cut_after: bool,
        buf: &mut Vec<u8>,
        tiler: &mut Tiler,
    ) {
        match head {
            Some(space) => ascii::write(bytes, space, cut_after, self.rules, buf, tiler),
            None => ascii::write_line(bytes, cut_after, self.rules, buf, tiler),
        }
    }

    fn write_general(&self, text: &str, head: Option<bool>, tiler: &mut Tiler) {
        let mut seam = Seam::new(tiler);
        match head {
            Some(space) => stream::write(text, space, self.rules, &mut seam),
            None => stream::write_line(text, self.rules, &mut seam),
        }
        seam.finish();
    }

    /// What `trailing` newlines at the end of the content cost. The frame appends two newlines
    /// after the content, and a token may span into them, so a final run of n newlines is
    /// tiled as n + 2, less the frame's own last token (the cost is not monotonic: 28 trailing
    /// newlines are free on v3, 29 cost one).
    fn final_newlines(&self, trailing: usize, memo: &mut Memo) -> usize {
        if trailing == 0 {
            return 0;
        }
        let mut tail = Tiler::new(&self.vocab, memo);
        (0..trailing + 2).for_each(|_| tail.push('\n'));
        tail.total().saturating_sub(1) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables in the binary are the vocabulary files' (build.rs made them from the same
    /// files with the same code): built again here from the JSON, word for word.
    #[test]
    fn embedded_tables_are_the_vocabulary_files() {
        for (family, path) in [
            (Family::V3, "data/claude/ctok-v3.json"),
            (Family::V4_7, "data/claude/ctok-v4_7.json"),
        ] {
            let text =
                std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
            let file: serde_json::Value = serde_json::from_str(&text).unwrap();
            let strings =
                |key: &str| -> Vec<String> { serde_json::from_value(file[key].clone()).unwrap() };
            let built = table::Built::from_file(
                file["foldQuotes"].as_bool().unwrap(),
                file["allcapsMin"].as_u64().map(|n| n as u32),
                &strings("pieces"),
                &strings("contractions"),
                &strings("bytePrefixes"),
            )
            .unwrap();
            let embedded = <[u32]>::ref_from_bytes(family.tables()).unwrap();
            assert!(built.tables().to_words() == embedded, "{path}");
        }
    }

    impl Claude {
        fn vocab_digit_group(&self) -> Option<u32> {
            self.vocab.digit_group()
        }
    }

    fn both_families() -> [Claude; 2] {
        [
            Claude::load(Family::V3).unwrap(),
            Claude::load(Family::V4_7).unwrap(),
        ]
    }

    /// A text of 1 to `most` fragments, drawn by `next`.
    fn random_text(next: &mut impl FnMut() -> u64, fragments: &[&str], most: u64) -> String {
        let n = 1 + (next() % most) as usize;
        (0..n)
            .map(|_| fragments[(next() % fragments.len() as u64) as usize])
            .collect()
    }

    /// The count without cutting at lines: the whole body written and tiled at once.
    fn count_whole(claude: &Claude, text: &str) -> usize {
        let mut memo = Memo::default();
        let norm = normalize::normalize(text, claude.fold_quotes);
        let body = norm.trim_end_matches('\n');
        let mut tiler = Tiler::new(&claude.vocab, &mut memo);
        let mut seam = Seam::new(&mut tiler);
        stream::write(body, text.starts_with(' '), claude.rules, &mut seam);
        seam.finish();
        let content = tiler.total().saturating_sub(1) as usize;
        content + claude.final_newlines(norm.len() - body.len(), &mut memo)
    }

    /// Counting line by line, with lines remembered, changes no count: random texts built of
    /// the pieces the stream's rules turn on (spaces and seams around newlines, case,
    /// contractions, stray marks, border digits and punctuation, escaped markers), each
    /// counted three times, against the whole text written and tiled at once.
    #[test]
    fn lines_count_as_the_whole_text() {
        const FRAGMENTS: [&str; 30] = [
            "\n", "\n", "\n\n", " \n", "\n ", "\n  ", "\t", " ", "  ", "word", "Word", "NASA",
            "it", "'", "s", "ll", "42", "٣٤", "²", ",", "\":", "—", "(", "中文", "é", "\u{301}",
            "\u{FDD0}", "\u{FE0F}", "😀", "\r\n",
        ];
        let families = both_families();
        // A log of lines that never come back first, so that the line memo is past the size
        // where it remembers every line at first sight: the random texts' lines then go
        // through all three of its answers (pass, remember, known).
        let log: String = (0..6_000)
            .map(|i| format!("{i}: GET /items/{i} 200\n"))
            .collect();
        for claude in &families {
            assert_eq!(claude.count(&log), count_whole(claude, &log));
        }
        let mut next = crate::tokens::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut lines = 0;
        for round in 0..4_000 {
            let text = random_text(&mut next, &FRAGMENTS, [4, 12, 40][round % 3]);
            lines += lines::split(&text).count();
            for claude in &families {
                let whole = count_whole(claude, &text);
                assert_eq!(claude.count(&text), whole, "{:?} {text:?}", claude.family);
                for time in ["second", "third"] {
                    assert_eq!(
                        claude.count(&text),
                        whole,
                        "{:?} the {time} time: {text:?}",
                        claude.family
                    );
                }
            }
        }
        assert!(lines > 10_000, "the texts had lines to cut: {lines}");
    }

    /// ASCII lines are written by [`ascii`] and tiled a segment at a time, words and digit runs
    /// costed whole: random ASCII texts (JSON and log shapes, numbers, case, contractions,
    /// long words) count as the general writer's stream tiled codepoint by codepoint.
    #[test]
    fn ascii_texts_count_as_the_general_stream() {
        const FRAGMENTS: [&str; 30] = [
            "\n",
            "\n",
            "  \"",
            "\": ",
            "\",\n",
            "{",
            "}",
            "[",
            "]",
            " ",
            "  ",
            "\t",
            "id",
            "Name",
            "NASA",
            "ERROR",
            "it",
            "'",
            "s",
            "ve",
            "42",
            "2026-11-27",
            "1234567",
            "0.5",
            ":",
            "-",
            "Internationalization",
            "https://example.com/a?b=c",
            "x",
            "Ok",
        ];
        let families = both_families();
        assert!(families.iter().all(|c| c.rules.words_stand_alone));
        assert!(families.iter().all(|c| c.rules.digits_stand_alone));
        assert!(families.iter().all(|c| c.vocab_digit_group() == Some(3)));
        let mut next = crate::tokens::xorshift(0x853c_49e6_748f_ea9b);
        for round in 0..3_000 {
            let text = random_text(&mut next, &FRAGMENTS, [6, 30, 200][round % 3]);
            for claude in &families {
                let whole = count_whole(claude, &text);
                assert_eq!(claude.count(&text), whole, "{:?} {text:?}", claude.family);
                assert_eq!(claude.count(&text), whole, "{:?} again", claude.family);
            }
        }
    }

    /// A line longer than [`ascii`]'s buffer reaches the tiler in parts, each cut anywhere (a
    /// segment may go on into the next part): one-line JSON of about 300 KB counts as the
    /// general writer's stream.
    #[test]
    fn a_long_ascii_line_counts_as_the_general_stream() {
        let record = |i: usize| {
            format!(
                "{{\"id\":\"bk_{i:06}\",\"guestName\":\"Guest {i}\",\"status\":\"CONFIRMED\",\
                 \"notes\":\"it's  {}   ok\",\"amount\":{}}},",
                "=".repeat(i % 40),
                i * 7919 % 100_003
            )
        };
        let text: String = (0..3_000).map(record).collect();
        assert!(text.len() > 250_000 && text.is_ascii() && !text.contains('\n'));
        for family in [Family::V3, Family::V4_7] {
            let claude = Claude::load(family).unwrap();
            forget_remembered_segments();
            assert_eq!(
                claude.count(&text),
                count_whole(&claude, &text),
                "{family:?}"
            );
        }
    }

    /// A line with non-ASCII in it has its ASCII spans written by [`ascii`] and the rest by
    /// the general writer (split wherever [`ascii::spans`] may, in tests): JSON and log lines
    /// with emoji, dashes, accents, CJK, marks, Arabic digits and escaped markers among their
    /// ASCII, and next to its apostrophes and spaces, count as the general writer's stream.
    #[test]
    fn mixed_lines_count_as_the_general_stream() {
        const FRAGMENTS: [&str; 36] = [
            "{\"id\":",
            "\"title\":\"",
            "\",",
            "}",
            " ",
            "  ",
            "\t",
            "word",
            "Word",
            "NASA",
            "it",
            "'",
            "s",
            "ll",
            "42",
            "2026-11-29",
            ":",
            "-",
            "https://example.com/a?b=c",
            "\n",
            "—",
            "🤖",
            "→",
            "é",
            "É",
            "İ",
            "\u{301}",
            "中文",
            "٣٤",
            "²",
            "\u{FDD0}",
            "\u{FE0F}",
            "«",
            "ß",
            "Ωmega",
            "x",
        ];
        let families = both_families();
        let mut next = crate::tokens::xorshift(0x2f2e_1d3c_5b4a_6978);
        let mut split = 0;
        for round in 0..3_000 {
            let text = random_text(&mut next, &FRAGMENTS, [8, 40, 300][round % 3]);
            split += lines::split(&text)
                .filter(|line| !line.is_ascii())
                .map(|line| ascii::spans(line.as_bytes()).count())
                .sum::<usize>();
            for claude in &families {
                forget_remembered_segments();
                let whole = count_whole(claude, &text);
                assert_eq!(claude.count(&text), whole, "{:?} {text:?}", claude.family);
            }
        }
        assert!(split > 10_000, "lines were split into spans: {split}");
    }

    #[test]
    fn both_families_load_and_count_like_ctok() {
        let v3 = Claude::load(Family::V3).unwrap();
        let v47 = Claude::load(Family::V4_7).unwrap();
        // ctok 1.3.0: token_count(text, family) - token_count("", family).
        for (text, want_v3, want_v47) in [
            ("hello, world", 2, 3),
            ("it's", 1, 1),
            ("NASA likes Tokens", 3, 8),
            (" a", 0, 0),
            ("42", 1, 1),
            ("\n\n\n", 0, 0),
            ("", 0, 0),
        ] {
            assert_eq!(v3.count(text), want_v3, "v3 {text:?}");
            assert_eq!(v47.count(text), want_v47, "v4.7 {text:?}");
        }
    }
}
