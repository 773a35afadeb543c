//! A JSON text 64 bytes at a time as bit masks, a bit per byte: which bytes are quotes,
//! backslashes and whitespace, which characters a backslash escapes (carried from block to
//! block), and from those where strings end. Whitespace counting ([`crate::json::whitespace`])
//! and the string reader of [`crate::json::parse`] and the pointer scanner stand on them: a
//! string dense with escapes (JSON inside a text block) is crossed at the same speed as one
//! without.

/// The index of the first quote at or after `at` that no backslash escapes (the closing quote
/// of a string whose contents start at `at`), or `None` when the text ends first. Read 64
/// bytes at a time: a block's quotes minus the characters its backslashes escape.
pub fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut carry = 0;
    let mut base = at;
    loop {
        let rest = bytes.get(base..)?;
        let block = match rest.first_chunk::<64>() {
            Some(block) => *block,
            None => {
                // The rest, padded with bytes of no class.
                let mut last = [0u8; 64];
                last[..rest.len()].copy_from_slice(rest);
                last
            }
        };
        let (quote, backslash, _) = byte_masks(&block);
        let closing = quote & !escaped_by(backslash, &mut carry);
        if closing != 0 {
            return Some(base + closing.trailing_zeros() as usize);
        }
        if rest.len() <= 64 {
            return None;
        }
        base += 64;
    }
}

/// A bit per byte: which are `"`, which `\`, which JSON whitespace. Sixteen bytes a compare
/// with SSE2.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn byte_masks(block: &[u8; 64]) -> (u64, u64, u64) {
    // SAFETY: SSE2 is part of the x86_64 architecture: every processor that runs x86_64 code
    // has it (and Rust's x86_64 targets enable it).
    unsafe { sse2_byte_masks(block) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn sse2_byte_masks(block: &[u8; 64]) -> (u64, u64, u64) {
    use std::arch::x86_64::{__m128i, _mm_set_epi64x};
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
    let (mut quote, mut backslash, mut space) = (0u64, 0u64, 0u64);
    let byte = |c: u8| _mm_set1_epi8(c as i8);
    let bits = |m: __m128i, lane: usize| u64::from(_mm_movemask_epi8(m) as u16) << (lane * 16);
    for (lane, sixteen) in block.as_chunks::<16>().0.iter().enumerate() {
        // The lane as two words: the compiler makes it one load.
        let x = u128::from_le_bytes(*sixteen);
        let v = _mm_set_epi64x((x >> 64) as i64, x as i64);
        quote |= bits(_mm_cmpeq_epi8(v, byte(b'"')), lane);
        backslash |= bits(_mm_cmpeq_epi8(v, byte(b'\\')), lane);
        let blank = _mm_or_si128(
            _mm_or_si128(
                _mm_cmpeq_epi8(v, byte(b' ')),
                _mm_cmpeq_epi8(v, byte(b'\n')),
            ),
            _mm_or_si128(
                _mm_cmpeq_epi8(v, byte(b'\r')),
                _mm_cmpeq_epi8(v, byte(b'\t')),
            ),
        );
        space |= bits(blank, lane);
    }
    (quote, backslash, space)
}

/// A bit per byte: which are `"`, which `\`, which JSON whitespace.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(crate) fn byte_masks(block: &[u8; 64]) -> (u64, u64, u64) {
    let (mut quote, mut backslash, mut space) = (0u64, 0u64, 0u64);
    for (i, &c) in block.iter().enumerate() {
        quote |= u64::from(c == b'"') << i;
        backslash |= u64::from(c == b'\\') << i;
        space |= u64::from(matches!(c, b' ' | b'\n' | b'\r' | b'\t')) << i;
    }
    (quote, backslash, space)
}

/// A bit per byte that a JSON string cannot hold as it is: `"`, `\` and the controls (below
/// 0x20). Sixteen bytes a compare with SSE2.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn string_stops(block: &[u8; 64]) -> u64 {
    // SAFETY: SSE2 is part of the x86_64 architecture (see `byte_masks`).
    unsafe { sse2_string_stops(block) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn sse2_string_stops(block: &[u8; 64]) -> u64 {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8};
    use std::arch::x86_64::{_mm_or_si128, _mm_set_epi64x, _mm_set1_epi8};
    let byte = |c: u8| _mm_set1_epi8(c as i8);
    let mut stops = 0u64;
    for (lane, sixteen) in block.as_chunks::<16>().0.iter().enumerate() {
        let x = u128::from_le_bytes(*sixteen);
        let v = _mm_set_epi64x((x >> 64) as i64, x as i64);
        // A byte is a control when the smaller of it and 0x1F is itself.
        let control = _mm_cmpeq_epi8(_mm_min_epu8(v, byte(0x1F)), v);
        let quote_or_backslash = _mm_or_si128(
            _mm_cmpeq_epi8(v, byte(b'"')),
            _mm_cmpeq_epi8(v, byte(b'\\')),
        );
        let m = _mm_movemask_epi8(_mm_or_si128(control, quote_or_backslash)) as u16;
        stops |= u64::from(m) << (lane * 16);
    }
    stops
}

/// A bit per byte that a JSON string cannot hold as it is: `"`, `\` and the controls.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub(crate) fn string_stops(block: &[u8; 64]) -> u64 {
    let mut stops = 0u64;
    for (i, &c) in block.iter().enumerate() {
        stops |= u64::from(c < 0x20 || c == b'"' || c == b'\\') << i;
    }
    stops
}

/// 64 bytes of a text loaded for their [`string_stops`], followed by sixteen bytes of filler
/// that are no stop, so that a run between two stops is copied out sixteen bytes at a time.
/// The string writer of [`crate::json::compact`] and the unescape of [`crate::json::parse`] read their
/// strings through it.
pub(crate) struct StopBlock([u8; 80]);

impl StopBlock {
    pub(crate) fn new() -> Self {
        StopBlock([b'a'; 80])
    }

    /// Loads the first 64 bytes of `text` (all of it when shorter, the rest filler) and returns
    /// their stops.
    pub(crate) fn load(&mut self, text: &[u8]) -> u64 {
        let n = text.len().min(64);
        self.0[..n].copy_from_slice(&text[..n]);
        self.0[n..64].fill(b'a');
        let (block, _) = self.0.split_first_chunk::<64>().expect("80 bytes hold 64");
        string_stops(block)
    }

    /// The loaded byte at `i` (below 64).
    pub(crate) fn byte(&self, i: usize) -> u8 {
        self.0[i]
    }

    /// Copies the loaded bytes `from..to` to `dst` at `at`, sixteen at a time: up to fifteen
    /// bytes past `at + (to - from)` are written too, so `dst` must have that slack.
    pub(crate) fn copy_run(&self, from: usize, to: usize, dst: &mut [u8], at: usize) {
        for k in (from..to).step_by(16) {
            let d = at + k - from;
            dst[d..d + 16].copy_from_slice(&self.0[k..k + 16]);
        }
    }
}

/// The characters escaped by a backslash: the one after each odd-length run of backslashes.
/// `carry` says the block starts with an escaped character (the previous block ended in an
/// odd run), and is set for the next block.
#[inline]
pub(crate) fn escaped_by(backslash: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let backslash = backslash & !*carry;
    let follows = (backslash << 1) | *carry;
    // Adding a run's first bit to the run carries out of its end: runs that start on an odd
    // bit end up marking even bits, and the others odd ones.
    let odd_starts = backslash & !EVEN & !follows;
    let (ends, overflow) = odd_starts.overflowing_add(backslash);
    *carry = u64::from(overflow);
    (EVEN ^ (ends << 1)) & follows
}

/// Each bit the XOR of itself and every lower bit: from an opening quote up to (not
/// including) its closing quote, the bits are set.
#[inline]
pub(crate) fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

/// Whether a JSON string must escape `byte`: a control, `"` or `\`.
#[inline]
fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// The first byte at or after `from` that a JSON string must escape: a control, `"` or `\`.
/// Eight bytes a step, by [`escapes_in`].
pub(crate) fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    let rest = &bytes[from..];
    let (words, tail) = rest.as_chunks::<8>();
    for (i, word) in words.iter().enumerate() {
        let special = escapes_in(u64::from_le_bytes(*word));
        if special != 0 {
            return Some(from + i * 8 + (special.trailing_zeros() / 8) as usize);
        }
    }
    let done = from + words.len() * 8;
    tail.iter().position(|&b| needs_escape(b)).map(|i| done + i)
}

/// A mask with the top bit set in every byte of the little-endian word `x` that a JSON
/// string must escape (a control, `"` or `\`), and possibly in bytes above such a byte: the
/// lowest set bit is exact, the borrows only spill upwards.
#[inline]
fn escapes_in(x: u64) -> u64 {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const TOPS: u64 = u64::from_ne_bytes([0x80; 8]);
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & TOPS;
    let below_space = x.wrapping_sub(ONES * 0x20) & !x & TOPS;
    below_space | zero_byte(x ^ (ONES * u64::from(b'"'))) | zero_byte(x ^ (ONES * u64::from(b'\\')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The closing quote found a byte at a time: the oracle.
    fn end_by_bytes(bytes: &[u8], mut at: usize) -> Option<usize> {
        while let Some(&b) = bytes.get(at) {
            match b {
                b'"' => return Some(at),
                b'\\' => at += 2,
                _ => at += 1,
            }
        }
        None
    }

    proptest! {
        #[test]
        fn a_block_s_stops_are_its_quotes_backslashes_and_controls(
            block in proptest::array::uniform32(any::<u8>()),
            other in proptest::array::uniform32(prop::sample::select(vec![0u8, 0x1f, 0x20, b'"', b'\\', b'a', 0x7f, 0x80, 0xff])),
        ) {
            let mut bytes = [0u8; 64];
            bytes[..32].copy_from_slice(&block);
            bytes[32..].copy_from_slice(&other);
            let oracle = bytes.iter().enumerate().fold(0u64, |m, (i, &c)| {
                m | (u64::from(c < 0x20 || c == b'"' || c == b'\\') << i)
            });
            prop_assert_eq!(string_stops(&bytes), oracle);
        }

        #[test]
        fn a_string_ends_where_a_byte_by_byte_reading_ends_it(
            // Runs of backslashes of every length, across every block boundary.
            text in "[a\"\\\\é]{0,300}",
            lead in "[a\"]{0,70}",
        ) {
            let bytes = format!("{lead}{text}");
            prop_assert_eq!(string_end(bytes.as_bytes(), 0), end_by_bytes(bytes.as_bytes(), 0));
            // A string written out, then more text: it ends at its own closing quote.
            let written = format!("{}, \"{text}\"", serde_json::to_string(&text).unwrap());
            prop_assert_eq!(string_end(written.as_bytes(), 1), Some(serde_json::to_string(&text).unwrap().len() - 1));
        }
    }
}
