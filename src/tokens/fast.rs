//! `claude-fast`: an estimate of the `claude` count from byte classes, at GB/s.
//!
//! Every byte gets a class (lowercase, uppercase, digit, punctuation, quote, space, tab,
//! newline, a UTF-8 lead byte by length and block, a continuation byte, a control), and every
//! feature the estimate reads is a count of (previous class, class) pairs: letters, word starts,
//! `camelCase` humps, letter-digit switches (what makes base64 and hex expensive), punctuation
//! runs, indentation, non-ASCII characters by script. So the pass over the text only builds a
//! 32 x 32 histogram of pairs, and the estimate is that histogram times a weight table derived
//! from the feature weights.
//!
//! The weights are fitted to `claude` on realistic texts with a relative-error least squares
//! (`cargo run --release --example fit_claude_fast` refits them and prints the accuracy per
//! content type), reweighted so that an under-estimate costs twice an over-estimate, and forty
//! times for base64, hex, non-Latin and CJK texts: a fast count leans high, and `auto` counts
//! exactly wherever a verdict is close.

use super::TokenCounter;

const OTHER: u8 = 0; // ASCII controls
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const DIGIT: u8 = 3;
const PUNCT: u8 = 4;
const QUOTE: u8 = 5;
const SPACE: u8 = 6;
const TAB: u8 = 7;
const NEWLINE: u8 = 8;
const CONTINUATION: u8 = 9;
/// Lead bytes by block. Two bytes: U+0080..U+02AF Latin-1 and Latin extended (C2..CA).
const LATIN: u8 = 10;
/// U+02B0..U+036F: modifier letters and combining diacritics (CA..CD, with CA's upper half).
const COMBINING: u8 = 11;
/// U+0370..U+03FF: Greek (CD..CF).
const GREEK: u8 = 12;
/// U+0530..U+07FF: Armenian, Hebrew, Arabic, Syriac, Thaana, NKo (D4..DF).
const RTL: u8 = 13;
/// Three bytes. U+0800..U+0FFF: Indic scripts, Thai, Lao, Tibetan (E0).
const INDIC: u8 = 14;
/// U+1000..U+1FFF: Myanmar, Georgian, Hangul jamo, Ethiopic, Latin extended additional (E1).
const E1: u8 = 15;
/// U+2000..U+2FFF: general punctuation, currency, arrows, math, box drawing, dingbats (E2).
const SYMBOLS: u8 = 16;
/// U+3000..U+9FFF: CJK punctuation, kana, ideographs (E3..E9).
const CJK: u8 = 17;
/// U+A000..U+D7FF: mostly Hangul syllables (EA..ED).
const HANGUL: u8 = 18;
/// U+E000..U+FFFF: private use, compatibility forms, fullwidth forms, specials (EE..EF).
const PRIVATE: u8 = 19;
/// Four bytes: emoji and the other astral planes.
const ASTRAL: u8 = 20;
/// U+0400..U+04FF: Cyrillic (D0..D3).
const CYRILLIC: u8 = 21;

const CLASSES: usize = 32;

const CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = match b {
            b'a'..=b'z' => LOWER,
            b'A'..=b'Z' => UPPER,
            b'0'..=b'9' => DIGIT,
            b'"' => QUOTE,
            b' ' => SPACE,
            b'\t' => TAB,
            b'\n' | b'\r' => NEWLINE,
            0x80..=0xBF => CONTINUATION,
            0xC0..=0xC9 => LATIN,
            0xCA..=0xCD => COMBINING,
            0xCE..=0xCF => GREEK,
            0xD0..=0xD3 => CYRILLIC,
            0xD4..=0xDF => RTL,
            0xE0 => INDIC,
            0xE1 => E1,
            0xE2 => SYMBOLS,
            0xE3..=0xE9 => CJK,
            0xEA..=0xED => HANGUL,
            0xEE..=0xEF => PRIVATE,
            0xF0..=0xFF => ASTRAL,
            _ if b.is_ascii_punctuation() => PUNCT,
            _ => OTHER,
        };
        i += 1;
    }
    t
};

const fn is_letter(c: u8) -> bool {
    c == LOWER || c == UPPER
}

const fn is_blank(c: u8) -> bool {
    c == SPACE || c == TAB
}

/// A class that continues a word: ASCII letters and every non-ASCII byte.
const fn in_word(c: u8) -> bool {
    is_letter(c) || c >= CONTINUATION
}

/// How many features the estimate reads.
pub const N: usize = 31;

/// What the estimate reads, in weight order.
pub const FEATURES: [&str; N] = [
    "lower",
    "upper",
    "word_starts",
    "humps",
    "digits",
    "number_starts",
    "letter_digit_switches",
    "punct",
    "punct_runs",
    "quotes",
    "blank_after_blank",
    "indents",
    "newline_runs",
    "controls",
    "latin",
    "latin_in_ascii_word",
    "combining",
    "greek",
    "greek_word_starts",
    "cyrillic",
    "cyrillic_word_starts",
    "rtl",
    "rtl_word_starts",
    "indic",
    "e1",
    "symbols",
    "cjk",
    "hangul",
    "hangul_word_starts",
    "private",
    "astral",
];

/// The features a (previous class, class) pair counts towards.
const fn pair_features(prev: u8, c: u8) -> [bool; N] {
    let mut f = [false; N];
    f[0] = c == LOWER;
    f[1] = c == UPPER;
    f[2] = is_letter(c) && !in_word(prev);
    f[3] = prev == LOWER && c == UPPER;
    f[4] = c == DIGIT;
    f[5] = c == DIGIT && prev != DIGIT;
    f[6] = (is_letter(prev) && c == DIGIT) || (prev == DIGIT && is_letter(c));
    f[7] = c == PUNCT;
    f[8] = c == PUNCT && prev != PUNCT;
    f[9] = c == QUOTE;
    f[10] = is_blank(prev) && is_blank(c);
    f[11] = prev == NEWLINE && is_blank(c);
    f[12] = c == NEWLINE && prev != NEWLINE;
    f[13] = c == OTHER;
    f[14] = c == LATIN;
    f[15] = (c == LATIN && is_letter(prev)) || (prev == CONTINUATION && is_letter(c));
    f[16] = c == COMBINING;
    f[17] = c == GREEK;
    f[18] = c == GREEK && prev != CONTINUATION;
    f[19] = c == CYRILLIC;
    f[20] = c == CYRILLIC && prev != CONTINUATION;
    f[21] = c == RTL;
    f[22] = c == RTL && prev != CONTINUATION;
    f[23] = c == INDIC;
    f[24] = c == E1;
    f[25] = c == SYMBOLS;
    f[26] = c == CJK;
    f[27] = c == HANGUL;
    f[28] = c == HANGUL && prev != CONTINUATION;
    f[29] = c == PRIVATE;
    f[30] = c == ASTRAL;
    f
}

/// The fitted weights, in [`FEATURES`] order.
// Fitted numbers; one of them happens to lie near log10(2).
#[allow(clippy::approx_constant)]
pub const WEIGHTS: [f64; N] = [
    0.3268,  // lower
    0.8380,  // upper
    0.5460,  // word_starts
    0.8805,  // humps
    0.0997,  // digits
    2.0160,  // number_starts
    -0.2204, // letter_digit_switches
    0.4839,  // punct
    0.1427,  // punct_runs
    0.3400,  // quotes
    0.1575,  // blank_after_blank
    0.8624,  // indents
    0.5745,  // newline_runs
    0.1623,  // controls
    0.5914,  // latin
    0.6249,  // latin_in_ascii_word
    1.3023,  // combining
    0.9231,  // greek
    0.1410,  // greek_word_starts
    0.4521,  // cyrillic
    0.3135,  // cyrillic_word_starts
    0.6962,  // rtl
    1.1659,  // rtl_word_starts
    1.1042,  // indic
    0.9702,  // e1
    0.8348,  // symbols
    1.1210,  // cjk
    1.1727,  // hangul
    0.4065,  // hangul_word_starts
    0.3010,  // private
    2.1326,  // astral
];

/// The weight of each pair: the sum of the weights of the features it counts towards.
const fn pair_weights(weights: &[f64; N]) -> [f64; CLASSES * CLASSES] {
    let mut table = [0.0; CLASSES * CLASSES];
    let mut i = 0;
    while i < CLASSES * CLASSES {
        let f = pair_features((i / CLASSES) as u8, (i % CLASSES) as u8);
        let mut k = 0;
        while k < N {
            if f[k] {
                table[i] += weights[k];
            }
            k += 1;
        }
        i += 1;
    }
    table
}

const PAIR_WEIGHTS: [f64; CLASSES * CLASSES] = pair_weights(&WEIGHTS);

/// How often each (previous class, class) pair occurs; the text's start reads as a newline.
#[derive(Clone)]
pub struct Pairs([u32; CLASSES * CLASSES]);

impl Pairs {
    /// One pass, or for a long text one pass over each part of it on every core: the pairs of
    /// a text are the pairs of its parts, each part read after the class of the byte before it.
    pub fn of(bytes: &[u8]) -> Pairs {
        Pairs::after(NEWLINE, bytes)
    }

    /// The pairs of `bytes` read after a byte of class `prev`.
    fn after(prev: u8, bytes: &[u8]) -> Pairs {
        /// A part shorter than this is not worth a thread (a few milliseconds of counting).
        const PARALLEL_FROM: usize = 4 << 20;
        if bytes.len() < PARALLEL_FROM {
            return Pairs::one_pass(prev, bytes);
        }
        let (first, second) = bytes.split_at(bytes.len() / 2);
        let seam = CLASS[usize::from(first[first.len() - 1])];
        let (mut a, b) = rayon::join(|| Pairs::after(prev, first), || Pairs::after(seam, second));
        a.0.iter_mut().zip(b.0).for_each(|(n, m)| *n += m);
        a
    }

    /// Four histograms take turns so that a run of one pair (a long word) does not wait on its
    /// own previous increment.
    fn one_pass(prev: u8, bytes: &[u8]) -> Pairs {
        let mut lanes = [[0u32; CLASSES * CLASSES]; 4];
        let mut prev = usize::from(prev);
        let mut chunks = bytes.chunks_exact(4);
        for chunk in &mut chunks {
            for (lane, &b) in lanes.iter_mut().zip(chunk) {
                let c = usize::from(CLASS[usize::from(b)]);
                lane[prev * CLASSES + c] += 1;
                prev = c;
            }
        }
        for &b in chunks.remainder() {
            let c = usize::from(CLASS[usize::from(b)]);
            lanes[0][prev * CLASSES + c] += 1;
            prev = c;
        }
        let mut total = lanes[0];
        for lane in &lanes[1..] {
            total.iter_mut().zip(lane).for_each(|(t, &n)| *t += n);
        }
        Pairs(total)
    }

    /// The feature counts, in [`FEATURES`] order.
    pub fn features(&self) -> [f64; N] {
        let mut out = [0.0; N];
        for prev in 0..CLASSES as u8 {
            for c in 0..CLASSES as u8 {
                let n = f64::from(self.0[usize::from(prev) * CLASSES + usize::from(c)]);
                let f = pair_features(prev, c);
                (0..N).filter(|&k| f[k]).for_each(|k| out[k] += n);
            }
        }
        out
    }

    /// The estimate under `weights` (the fitted ones are [`WEIGHTS`]), rounded up.
    pub fn estimate(&self, weights: &[f64; N]) -> usize {
        self.weighted(&pair_weights(weights))
    }

    /// The histogram times a table of pair weights, rounded up.
    fn weighted(&self, table: &[f64; CLASSES * CLASSES]) -> usize {
        let sum: f64 = self
            .0
            .iter()
            .zip(table)
            .map(|(&n, w)| f64::from(n) * w)
            .sum();
        sum.max(0.0).ceil() as usize
    }
}

/// The estimator.
pub struct ClaudeFast;

impl TokenCounter for ClaudeFast {
    fn count(&self, text: &str) -> usize {
        let bytes = text.as_bytes();
        if bytes.len() <= SHORT {
            return short_count(bytes);
        }
        // The table of the fitted weights is built at compile time.
        Pairs::of(bytes).weighted(&PAIR_WEIGHTS)
    }
}

/// Texts up to this many bytes are counted without a histogram (a chunker counts every line).
const SHORT: usize = 256;

/// The same sum as `Pairs::of(bytes).weighted(&PAIR_WEIGHTS)`, bit for bit, for a short text:
/// each pair's count times its weight is added in the histogram's order (the zero entries it
/// skips add nothing to a float sum), found through a bitmap of the pairs seen, instead of
/// zeroing and walking four 1,024-entry histograms for a line of 80 bytes.
fn short_count(bytes: &[u8]) -> usize {
    const WORDS: usize = CLASSES * CLASSES / 64;
    let mut counts = [0u16; CLASSES * CLASSES];
    let mut seen = [0u64; WORDS];
    let mut prev = usize::from(NEWLINE);
    for &b in bytes {
        let c = usize::from(CLASS[usize::from(b)]);
        let pair = prev * CLASSES + c;
        counts[pair] += 1;
        seen[pair / 64] |= 1 << (pair % 64);
        prev = c;
    }
    let mut sum = 0.0f64;
    for (w, &word) in seen.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let pair = w * 64 + bits.trailing_zeros() as usize;
            sum += f64::from(counts[pair]) * PAIR_WEIGHTS[pair];
            bits &= bits - 1;
        }
    }
    sum.max(0.0).ceil() as usize
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_text_counted_in_parts_has_the_pairs_of_one_pass() {
        // Every class meets every other at some seam: the parts' boundaries fall at odd places.
        let unit = "{\"id\": \"bk_00042\", \"note\": \"Zürich — 東京 🚀\tok\"}\r\n  ";
        for len in [(4 << 20) - 1, 4 << 20, (9 << 20) + 7, 17 << 20] {
            let text: Vec<u8> = unit.bytes().cycle().take(len).collect();
            let whole = super::Pairs::one_pass(super::NEWLINE, &text);
            assert_eq!(super::Pairs::of(&text).0, whole.0, "{len} bytes");
        }
    }

    #[test]
    fn short_texts_count_exactly_as_the_histogram_does() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let samples = [
            "",
            "a",
            "2026-11-23T08:00:00.123Z INFO  [worker-3] processed booking bk_00042\n",
            "{\"id\":\"bk_00001\",\"status\":\"confirmed\"}",
            "   \t\n\n",
            "Zürich — 東京 🚀",
        ];
        let mut texts: Vec<Vec<u8>> = samples.iter().map(|s| s.as_bytes().to_vec()).collect();
        for len in 0..=super::SHORT {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed % 128) as u8
                })
                .collect();
            texts.push(bytes);
        }
        for bytes in texts.iter().filter(|b| b.len() <= super::SHORT) {
            assert_eq!(
                super::short_count(bytes),
                super::Pairs::of(bytes).weighted(&super::PAIR_WEIGHTS),
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    use super::*;

    fn features(text: &str) -> [f64; N] {
        Pairs::of(text.as_bytes()).features()
    }

    fn feature(text: &str, name: &str) -> f64 {
        features(text)[FEATURES.iter().position(|&n| n == name).unwrap()]
    }

    #[test]
    fn pairs_become_features() {
        let t = "parseJSON 42  x\n\n  {\"a\":1}";
        assert_eq!(feature(t, "word_starts"), 3.0);
        assert_eq!(feature(t, "humps"), 1.0);
        assert_eq!(feature(t, "number_starts"), 2.0);
        assert_eq!(feature(t, "blank_after_blank"), 2.0);
        assert_eq!(feature(t, "indents"), 1.0);
        assert_eq!(feature(t, "newline_runs"), 1.0);
        assert_eq!(feature(t, "quotes"), 2.0);
        assert_eq!(feature("a1b2c3", "letter_digit_switches"), 5.0);
        let t = "日本語 한국어 😀 é Жж";
        assert_eq!(
            [
                "cjk",
                "hangul",
                "astral",
                "latin",
                "cyrillic",
                "cyrillic_word_starts"
            ]
            .map(|name| feature(t, name)),
            [3.0, 3.0, 1.0, 1.0, 2.0, 1.0]
        );
    }

    #[test]
    fn the_pair_table_is_the_feature_weights() {
        let text = "Some text, with 3 numbers: 1, 22 and 333; and \"quotes\".\n  日本 😀";
        let pairs = Pairs::of(text.as_bytes());
        let direct: f64 = pairs
            .features()
            .iter()
            .zip(WEIGHTS)
            .map(|(f, w)| f * w)
            .sum();
        assert_eq!(pairs.estimate(&WEIGHTS), direct.ceil() as usize);
    }

    #[test]
    fn lanes_add_up_whatever_the_length() {
        for text in ["", "a", "ab", "abc", "abcd", "abcde", "hello, world\n"] {
            let pairs = Pairs::of(text.as_bytes());
            assert_eq!(pairs.0.iter().sum::<u32>() as usize, text.len(), "{text:?}");
        }
    }
}
