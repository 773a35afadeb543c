//! `claude-fast`: an estimate of the `claude` count from byte classes, at GB/s.
//!
//! Every byte gets a class (lowercase, uppercase, digit, punctuation, quote, space, tab,
//! newline, a UTF-8 lead byte by length and block, a continuation byte, a control), and every
//! feature the estimate reads is a count of (previous class, class) pairs: letters, word starts,
//! `camelCase` humps, letter-digit switches (what makes base64 and hex expensive), punctuation
//! runs, indentation, non-ASCII characters by script. The pass over the text only counts the
//! features (see [`Features`]: 64 ASCII bytes at a time as bit masks), and the estimate is their
//! weighted sum.
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

/// The features each (previous class, class) pair counts towards, a bit per feature.
const PAIR_FEATURES: [u32; CLASSES * CLASSES] = {
    let mut table = [0u32; CLASSES * CLASSES];
    let mut i = 0;
    while i < CLASSES * CLASSES {
        let f = pair_features((i / CLASSES) as u8, (i % CLASSES) as u8);
        let mut k = 0;
        while k < N {
            if f[k] {
                table[i] |= 1 << k;
            }
            k += 1;
        }
        i += 1;
    }
    table
};

/// The feature counts of a text: what the estimate reads. The text's start reads as a newline.
///
/// A text is read 64 bytes at a time as a bit mask per class: the features of the pairs of two
/// ASCII bytes (most of a tool result) are population counts of the masks (`word_starts` is
/// letters whose previous byte is not one), and only the pairs with a non-ASCII byte, and the
/// pair across each block's start, are tallied one by one and turned into features through
/// [`PAIR_FEATURES`] at the end. The counts are integers, so however a text is read (by masks,
/// pair by pair, in parts on several cores) they are the same, and so is the estimate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Features([u64; N]);

impl Features {
    /// One pass, or for a long text one pass over each part of it on every core: the features
    /// of a text are the features of its parts, each part read after the class of the byte
    /// before it.
    pub fn of(bytes: &[u8]) -> Features {
        Features::after(NEWLINE, bytes)
    }

    /// The features of `bytes` read after a byte of class `prev`.
    fn after(prev: u8, bytes: &[u8]) -> Features {
        /// A part shorter than this is not worth a thread (a few milliseconds of counting).
        const PARALLEL_FROM: usize = 4 << 20;
        if bytes.len() < PARALLEL_FROM {
            return Features(Tally::of(prev, bytes));
        }
        let (first, second) = bytes.split_at(bytes.len() / 2);
        let seam = CLASS[usize::from(first[first.len() - 1])];
        let (mut a, b) = rayon::join(
            || Features::after(prev, first),
            || Features::after(seam, second),
        );
        a.0.iter_mut().zip(b.0).for_each(|(n, m)| *n += m);
        a
    }

    /// The counts, in [`FEATURES`] order.
    pub fn counts(&self) -> [f64; N] {
        self.0.map(|n| n as f64)
    }

    /// The estimate under `weights` (the fitted ones are [`WEIGHTS`]), rounded up.
    pub fn estimate(&self, weights: &[f64; N]) -> usize {
        self.weighted(weights).ceil() as usize
    }

    /// The estimate under `weights`, not rounded (never negative).
    pub fn weighted(&self, weights: &[f64; N]) -> f64 {
        let sum: f64 = self.0.iter().zip(weights).map(|(&n, w)| n as f64 * w).sum();
        sum.max(0.0)
    }
}

/// The features of one part of a text (under 4 GB: the pair counts are `u32`).
struct Tally {
    /// Features counted from the masks.
    counts: [u64; N],
    /// Pairs met one by one, and which of them were met (a short text visits only those).
    pairs: [u32; CLASSES * CLASSES],
    seen: [u64; CLASSES * CLASSES / 64],
}

impl Tally {
    /// The features of `bytes` read after a byte of class `prev`.
    fn of(prev: u8, bytes: &[u8]) -> [u64; N] {
        // The same code, built for the processor's vector width and population count where it
        // has them: the x86_64 baseline promises SSE2's 16 bytes a compare and no POPCNT (a
        // software count is fifteen instructions).
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("popcnt")
            {
                // SAFETY: the processor has AVX2 and POPCNT, just checked.
                return unsafe { Tally::of_with_avx2(prev, bytes) };
            }
            if std::arch::is_x86_feature_detected!("popcnt") {
                // SAFETY: the processor has POPCNT, just checked.
                return unsafe { Tally::of_with_popcnt(prev, bytes) };
            }
        }
        Tally::of_anywhere(prev, bytes, Masks::of)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    fn of_with_avx2(prev: u8, bytes: &[u8]) -> [u64; N] {
        Tally::of_anywhere(prev, bytes, |block| avx2_masks(block))
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    fn of_with_popcnt(prev: u8, bytes: &[u8]) -> [u64; N] {
        Tally::of_anywhere(prev, bytes, Masks::of)
    }

    #[inline(always)]
    fn of_anywhere(prev: u8, bytes: &[u8], masks_of: impl Fn(&[u8; 64]) -> Masks) -> [u64; N] {
        if bytes.len() <= SHORT {
            let mut direct = Direct([0; N]);
            read(prev, bytes, masks_of, &mut direct);
            return direct.0;
        }
        let mut t = Tally {
            counts: [0; N],
            pairs: [0; CLASSES * CLASSES],
            seen: [0; CLASSES * CLASSES / 64],
        };
        read(prev, bytes, masks_of, &mut t);
        t.finish()
    }

    /// The masks' counts plus the features of the pairs met one by one.
    fn finish(mut self) -> [u64; N] {
        for (w, &word) in self.seen.iter().enumerate() {
            let mut met = word;
            while met != 0 {
                let i = w * 64 + met.trailing_zeros() as usize;
                let n = u64::from(self.pairs[i]);
                let mut features = PAIR_FEATURES[i];
                while features != 0 {
                    self.counts[features.trailing_zeros() as usize] += n;
                    features &= features - 1;
                }
                met &= met - 1;
            }
        }
        self.counts
    }
}

/// Texts up to this many bytes add each pair's features as it comes: a histogram of pairs
/// (4 KB to clear, then to visit) costs more than a line of a log (a chunker counts every one).
const SHORT: usize = 256;

/// Where the pairs read one by one go, and the counts the masks add to.
trait PairSink {
    fn counts(&mut self) -> &mut [u64; N];
    fn pair(&mut self, prev: u8, c: u8);
}

impl PairSink for Tally {
    #[inline(always)]
    fn counts(&mut self) -> &mut [u64; N] {
        &mut self.counts
    }

    #[inline(always)]
    fn pair(&mut self, prev: u8, c: u8) {
        let i = usize::from(prev) * CLASSES + usize::from(c);
        self.pairs[i] += 1;
        self.seen[i / 64] |= 1 << (i % 64);
    }
}

/// A short text's features, each pair's added as it comes.
struct Direct([u64; N]);

impl PairSink for Direct {
    #[inline(always)]
    fn counts(&mut self) -> &mut [u64; N] {
        &mut self.0
    }

    #[inline(always)]
    fn pair(&mut self, prev: u8, c: u8) {
        let mut features = PAIR_FEATURES[usize::from(prev) * CLASSES + usize::from(c)];
        while features != 0 {
            self.0[features.trailing_zeros() as usize] += 1;
            features &= features - 1;
        }
    }
}

/// Reads `bytes` after a byte of class `prev`: 64 bytes at a time by their masks, the pairs
/// with a non-ASCII byte, the pair across each block's start and the last bytes one by one.
#[inline(always)]
fn read(
    mut prev: u8,
    bytes: &[u8],
    masks_of: impl Fn(&[u8; 64]) -> Masks,
    sink: &mut impl PairSink,
) {
    let (blocks, rest) = bytes.as_chunks::<64>();
    for block in blocks {
        let masks = masks_of(block);
        let one_by_one = masks.high | (masks.high << 1) | 1;
        masks.add_ascii_pairs(!one_by_one, sink.counts());
        let mut bits = one_by_one;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            let before = if i == 0 {
                prev
            } else {
                CLASS[usize::from(block[i - 1])]
            };
            sink.pair(before, CLASS[usize::from(block[i])]);
            bits &= bits - 1;
        }
        prev = CLASS[usize::from(block[63])];
    }
    for &b in rest {
        let c = CLASS[usize::from(b)];
        sink.pair(prev, c);
        prev = c;
    }
}

/// A bit per byte of a 64-byte block for each ASCII class, and for the bytes that are not
/// ASCII (which are in no ASCII class).
#[derive(Debug, Default, PartialEq, Eq)]
struct Masks {
    high: u64,
    lower: u64,
    upper: u64,
    digit: u64,
    punct: u64,
    quote: u64,
    space: u64,
    tab: u64,
    newline: u64,
    control: u64,
}

impl Masks {
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn of(block: &[u8; 64]) -> Masks {
        // SAFETY: SSE2 is part of the x86_64 architecture: every processor that runs x86_64
        // code has it (and Rust's x86_64 targets enable it).
        unsafe { sse2_masks(block) }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn of(block: &[u8; 64]) -> Masks {
        Masks::byte_by_byte(block)
    }

    /// The masks one byte at a time: other processors' way, and the vector ones' oracle.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn byte_by_byte(block: &[u8; 64]) -> Masks {
        let mask = |class: u8| {
            block.iter().enumerate().fold(0u64, |m, (i, &b)| {
                m | u64::from(b.is_ascii() && CLASS[usize::from(b)] == class) << i
            })
        };
        Masks {
            high: (block.iter().enumerate())
                .fold(0, |m, (i, &b)| m | u64::from(!b.is_ascii()) << i),
            lower: mask(LOWER),
            upper: mask(UPPER),
            digit: mask(DIGIT),
            punct: mask(PUNCT),
            quote: mask(QUOTE),
            space: mask(SPACE),
            tab: mask(TAB),
            newline: mask(NEWLINE),
            control: mask(OTHER),
        }
    }

    /// A vector path's masks finished: its control compare also caught non-ASCII bytes (negative
    /// when signed), tab and newlines, and punctuation is the rest of ASCII.
    #[inline(always)]
    fn completed(mut self) -> Masks {
        self.control &= !(self.high | self.tab | self.newline);
        self.punct = !(self.high
            | self.lower
            | self.upper
            | self.digit
            | self.quote
            | self.space
            | self.tab
            | self.newline
            | self.control);
        self
    }

    /// Adds the features of the pairs at the bits of `pairs` (bit i: byte i after byte i - 1,
    /// both ASCII, i >= 1): [`pair_features`] for ASCII classes, as population counts.
    #[inline(always)]
    fn add_ascii_pairs(&self, pairs: u64, counts: &mut [u64; N]) {
        let after = |mask: u64| mask << 1;
        let n = |mask: u64| u64::from((mask & pairs).count_ones());
        let letter = self.lower | self.upper;
        let blank = self.space | self.tab;
        counts[0] += n(self.lower);
        counts[1] += n(self.upper);
        counts[2] += n(letter & !after(letter)); // word_starts
        counts[3] += n(after(self.lower) & self.upper); // humps
        counts[4] += n(self.digit);
        counts[5] += n(self.digit & !after(self.digit)); // number_starts
        counts[6] += n(after(letter) & self.digit) + n(after(self.digit) & letter);
        counts[7] += n(self.punct);
        counts[8] += n(self.punct & !after(self.punct)); // punct_runs
        counts[9] += n(self.quote);
        counts[10] += n(after(blank) & blank); // blank_after_blank
        counts[11] += n(after(self.newline) & blank); // indents
        counts[12] += n(self.newline & !after(self.newline)); // newline_runs
        counts[13] += n(self.control);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn sse2_masks(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{__m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8};
    use std::arch::x86_64::{_mm_movemask_epi8, _mm_or_si128, _mm_set_epi64x, _mm_set1_epi8};
    let byte = |c: u8| _mm_set1_epi8(c as i8);
    // `lo <= v <= hi`, compared signed: a byte over 0x7F is negative, so never within.
    let within = |v, lo: u8, hi: u8| {
        _mm_and_si128(
            _mm_cmpgt_epi8(v, byte(lo - 1)),
            _mm_cmpgt_epi8(byte(hi + 1), v),
        )
    };
    let bits = |m: __m128i, lane: usize| u64::from(_mm_movemask_epi8(m) as u16) << (lane * 16);
    let mut m = Masks::default();
    for (lane, sixteen) in block.as_chunks::<16>().0.iter().enumerate() {
        // The lane as two words: the compiler makes it one load.
        let x = u128::from_le_bytes(*sixteen);
        let v = _mm_set_epi64x((x >> 64) as i64, x as i64);
        m.high |= bits(v, lane);
        m.lower |= bits(within(v, b'a', b'z'), lane);
        m.upper |= bits(within(v, b'A', b'Z'), lane);
        m.digit |= bits(within(v, b'0', b'9'), lane);
        m.quote |= bits(_mm_cmpeq_epi8(v, byte(b'"')), lane);
        m.space |= bits(_mm_cmpeq_epi8(v, byte(b' ')), lane);
        m.tab |= bits(_mm_cmpeq_epi8(v, byte(b'\t')), lane);
        let newline = _mm_or_si128(
            _mm_cmpeq_epi8(v, byte(b'\n')),
            _mm_cmpeq_epi8(v, byte(b'\r')),
        );
        m.newline |= bits(newline, lane);
        // Below a space (negative bytes, tab and newlines taken out below), and DEL.
        let control = _mm_or_si128(_mm_cmpgt_epi8(byte(b' '), v), _mm_cmpeq_epi8(v, byte(0x7f)));
        m.control |= bits(control, lane);
    }
    m.completed()
}

/// [`sse2_masks`], 32 bytes a compare.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn avx2_masks(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::_mm256_set_epi64x;
    use std::arch::x86_64::{__m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8};
    use std::arch::x86_64::{_mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8};
    let byte = |c: u8| _mm256_set1_epi8(c as i8);
    let within = |v, lo: u8, hi: u8| {
        _mm256_and_si256(
            _mm256_cmpgt_epi8(v, byte(lo - 1)),
            _mm256_cmpgt_epi8(byte(hi + 1), v),
        )
    };
    let bits = |m: __m256i, lane: usize| u64::from(_mm256_movemask_epi8(m) as u32) << (lane * 32);
    let mut m = Masks::default();
    for (lane, half) in block.as_chunks::<32>().0.iter().enumerate() {
        // The lane as four words: the compiler makes it one load.
        let (words, _) = half.as_chunks::<8>();
        let w = |i: usize| i64::from_le_bytes(words[i]);
        let v = _mm256_set_epi64x(w(3), w(2), w(1), w(0));
        m.high |= bits(v, lane);
        m.lower |= bits(within(v, b'a', b'z'), lane);
        m.upper |= bits(within(v, b'A', b'Z'), lane);
        m.digit |= bits(within(v, b'0', b'9'), lane);
        m.quote |= bits(_mm256_cmpeq_epi8(v, byte(b'"')), lane);
        m.space |= bits(_mm256_cmpeq_epi8(v, byte(b' ')), lane);
        m.tab |= bits(_mm256_cmpeq_epi8(v, byte(b'\t')), lane);
        let newline = _mm256_or_si256(
            _mm256_cmpeq_epi8(v, byte(b'\n')),
            _mm256_cmpeq_epi8(v, byte(b'\r')),
        );
        m.newline |= bits(newline, lane);
        let control = _mm256_or_si256(
            _mm256_cmpgt_epi8(byte(b' '), v),
            _mm256_cmpeq_epi8(v, byte(0x7f)),
        );
        m.control |= bits(control, lane);
    }
    m.completed()
}

/// The estimator.
pub struct ClaudeFast;

impl TokenCounter for ClaudeFast {
    fn count(&self, text: &str) -> usize {
        Features::of(text.as_bytes()).estimate(&WEIGHTS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The features pair by pair, straight from [`pair_features`]: the oracle for the masks,
    /// the pair table and the parts.
    fn one_pair_at_a_time(bytes: &[u8]) -> [u64; N] {
        let mut out = [0; N];
        let mut prev = NEWLINE;
        for &b in bytes {
            let c = CLASS[usize::from(b)];
            let f = pair_features(prev, c);
            (0..N).filter(|&k| f[k]).for_each(|k| out[k] += 1);
            prev = c;
        }
        out
    }

    #[test]
    fn every_ascii_pair_in_a_block_and_across_blocks_counts_as_one_pair_at_a_time() {
        let filler = b"The quick brown fox, 42 jumps\tover \"lazy\" dogs;\n  x = y_z + 7; ok";
        for x in 0..128u8 {
            for y in 0..128u8 {
                // Inside a block, at a block's start, and across two blocks.
                // A short text (pairs added as they come) and a long one (a histogram).
                for (at, copies) in [(10, 2), (63, 2), (64, 2), (70, 5), (127, 5), (128, 5)] {
                    let mut text = filler.repeat(copies);
                    text[at] = x;
                    text[at + 1] = y;
                    assert_eq!(
                        Features::of(&text).0,
                        one_pair_at_a_time(&text),
                        "{x} {y} at {at}"
                    );
                }
            }
        }
    }

    /// Blocks of every byte value, in runs and alone, read by every way this processor has.
    #[test]
    fn masks_are_the_same_on_every_path() {
        let mut next = crate::tokens::xorshift(0x9e37_79b9_7f4a_7c15);
        for round in 0..20_000 {
            let block: [u8; 64] = std::array::from_fn(|i| {
                let seed = next();
                // Mostly ASCII, sometimes any byte, and every value at some place.
                match seed % 4 {
                    0 => (round + i) as u8,
                    _ => (seed >> 8) as u8 & 0x7f,
                }
            });
            let oracle = Masks::byte_by_byte(&block);
            #[cfg(target_arch = "x86_64")]
            {
                // SAFETY: SSE2 is x86_64's baseline.
                assert_eq!(unsafe { sse2_masks(&block) }, oracle, "{block:?}");
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the processor has AVX2, just checked.
                    assert_eq!(unsafe { avx2_masks(&block) }, oracle, "{block:?}");
                }
            }
            assert_eq!(Masks::of(&block), oracle);
        }
    }

    #[test]
    fn any_text_counts_as_one_pair_at_a_time() {
        let mut next = crate::tokens::xorshift(0x2545_f491_4f6c_dd1d);
        let pieces = [
            "abc", "XYZ", "Zürich", "東京", "🚀", " ", "\t", "\n", "\r\n", "  ", "42", "\"", "{",
            "}:", "\u{1}", "\u{7f}", "é", "Жж", "한국", "a1b2",
        ];
        for round in 0..2_000 {
            let len = [1, 5, 30, 200][round % 4];
            let text: String = (0..len)
                .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                .collect();
            let bytes = text.as_bytes();
            assert_eq!(Features::of(bytes).0, one_pair_at_a_time(bytes), "{text:?}");
        }
    }

    #[test]
    fn a_long_text_counted_in_parts_counts_as_one_pass() {
        // Every class meets every other at some seam: the parts' boundaries fall at odd places.
        let unit = "{\"id\": \"bk_00042\", \"note\": \"Zürich — 東京 🚀\tok\"}\r\n  ";
        for len in [(4 << 20) - 1, 4 << 20, (9 << 20) + 7] {
            let text: Vec<u8> = unit.bytes().cycle().take(len).collect();
            assert_eq!(
                Features::of(&text).0,
                one_pair_at_a_time(&text),
                "{len} bytes"
            );
        }
    }

    fn feature(text: &str, name: &str) -> f64 {
        Features::of(text.as_bytes()).counts()[FEATURES.iter().position(|&n| n == name).unwrap()]
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
    fn the_estimate_is_the_weighted_sum_rounded_up() {
        let text = "Some text, with 3 numbers: 1, 22 and 333; and \"quotes\".\n  日本 😀";
        let features = Features::of(text.as_bytes());
        let direct: f64 = features
            .counts()
            .iter()
            .zip(WEIGHTS)
            .map(|(f, w)| f * w)
            .sum();
        assert_eq!(features.estimate(&WEIGHTS), direct.ceil() as usize);
        assert_eq!(ClaudeFast.count(""), 0);
    }
}
