//! What Claude's tokenizer does to text before anything else: NFC, control and private-use
//! characters stripped, NUL read as a space, the Thai SARA AM composed, the v3 family's curly
//! quotes folded to ASCII, every space separator but U+3000 read as U+0020.
//!
//! The steps run in the order ctok measured them (NFC first, then the strip, then the folds),
//! because the order shows: a control character between a letter and its combining mark blocks
//! composition, and stripping it afterwards leaves the pair decomposed.
//!
//! Text that is plain ASCII without control characters (most JSON) is returned borrowed.

use std::borrow::Cow;

use unicode_normalization::UnicodeNormalization as _;

use super::classes::escape_literal_marker;

/// C0/C1 controls the API strips (every Cc but TAB, LF and NUL).
fn is_stripped_control(c: char) -> bool {
    matches!(c, '\u{01}'..='\u{08}' | '\u{0B}'..='\u{1F}' | '\u{7F}'..='\u{9F}')
}

/// Space separators read as U+0020: every Zs but U+3000, plus Zl and Zp.
fn is_folded_space(c: char) -> bool {
    matches!(
        c,
        '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}'
    )
}

/// The four standard curly quotes, folded by v3 alone (U+201E, the low-9 mark, is not).
fn fold_quote(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' => '\'',
        '\u{201C}' | '\u{201D}' => '"',
        c => c,
    }
}

const THAI_NIKHAHIT: char = '\u{0E4D}';
const THAI_SARA_AA: char = '\u{0E32}';
const THAI_SARA_AM: char = '\u{0E33}';

/// The text as the tokenizer reads it, with literal marker codepoints escaped.
pub(super) fn normalize(text: &str, fold_quotes: bool) -> Cow<'_, str> {
    if text.is_ascii() {
        return normalize_ascii(text);
    }
    let mut out = String::with_capacity(text.len());
    // NFC only where it can change something. ASCII never composes with what follows it and
    // nothing composes into an ASCII character, so a text splits, exactly, before the ASCII
    // character that precedes each non-ASCII stretch: mostly-ASCII JSON with a few accented
    // names skips the normalizer almost entirely.
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let Some(offset) = first_non_ascii(&bytes[at..]) else {
            out.push_str(&normalize_ascii(&text[at..]));
            break;
        };
        // The ASCII run, less its last character, which may be the base of a combining mark.
        let split = (at + offset).saturating_sub(1).max(at);
        out.push_str(&normalize_ascii(&text[at..split]));
        // The non-ASCII stretch runs until an ASCII character that another ASCII one follows
        // (stripped controls excepted: the Thai fold joins across them).
        let plain = |b: &u8| b.is_ascii() && !is_stripped_control(char::from(*b));
        let mut end = at + offset;
        while end < bytes.len() && !(plain(&bytes[end]) && bytes.get(end + 1).is_none_or(plain)) {
            end += 1;
        }
        let stretch = &text[split..end];
        if unicode_normalization::is_nfc_quick(stretch.chars())
            == unicode_normalization::IsNormalized::Yes
        {
            push_folded(&mut out, stretch.chars(), fold_quotes);
        } else {
            push_folded(&mut out, stretch.nfc(), fold_quotes);
        }
        at = end;
    }
    Cow::Owned(out)
}

/// Pieces of about this many bytes are normalized one at a time (in tests a few dozen, so that
/// every test's text is cut, some in odd places).
const PIECE: usize = if cfg!(test) { 37 } else { 1 << 16 };

/// The text in pieces that normalize one at a time to the text's normalization, and whose
/// normalized lines are the text's: each piece but the last is at least [`PIECE`] bytes and
/// ends with a newline that a plain ASCII byte follows (not a newline and not a stripped
/// control, so the next piece starts with that byte, normalized or not). Nothing reaches across
/// such a cut: NFC neither composes with a newline nor into an ASCII character, and every other
/// step reads one character (the Thai fold two, both non-ASCII). So a long text with a few
/// accented names is copied a piece at a time where those are, not whole. A text without such
/// a newline is one piece.
pub(super) fn pieces(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let text = rest?;
        let bytes = text.as_bytes();
        let mut from = PIECE;
        while let Some(newline) = bytes.get(from..).and_then(|b| memchr::memchr(b'\n', b)) {
            let cut = from + newline + 1;
            match bytes.get(cut) {
                Some(&b) if b.is_ascii() && b != b'\n' && !is_stripped_control(char::from(b)) => {
                    let (piece, after) = text.split_at(cut);
                    rest = Some(after);
                    return Some(piece);
                }
                _ => from = cut,
            }
        }
        rest = None;
        Some(text)
    })
}

/// Where the first non-ASCII byte of `bytes` is: eight bytes at a time, as a text with a few
/// accented names is ASCII for kilobytes between them.
pub(super) fn first_non_ascii(bytes: &[u8]) -> Option<usize> {
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let high =
            u64::from_le_bytes(word.try_into().expect("eight bytes")) & 0x8080_8080_8080_8080;
        if high != 0 {
            return Some(at + high.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|b| !b.is_ascii())
        .map(|p| at + p)
}

/// Everything after NFC, in order: controls stripped and NUL read as a space, Thai SARA AM
/// composed, private use stripped, quotes (v3) and spaces folded, literal markers escaped.
fn push_folded(out: &mut String, nfc: impl Iterator<Item = char>, fold_quotes: bool) {
    let mut chars = nfc
        .filter(|&c| !is_stripped_control(c))
        .map(|c| if c == '\0' { ' ' } else { c })
        .peekable();
    while let Some(mut c) = chars.next() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        // Claude composes a decomposed SARA AM (NFC leaves it: it is a compatibility form).
        if c == THAI_NIKHAHIT && chars.peek() == Some(&THAI_SARA_AA) {
            chars.next();
            c = THAI_SARA_AM;
        }
        // BMP private use is stripped, so its two neighbours join.
        if ('\u{E000}'..='\u{F8FF}').contains(&c) {
            continue;
        }
        if fold_quotes {
            c = fold_quote(c);
        }
        if is_folded_space(c) {
            c = ' ';
        }
        // Literal occurrences of the codepoints the stream uses as markers are escaped into the
        // private-use area, which is free now that the input's own private use is gone.
        if let Some(escape) = escape_literal_marker(c) {
            c = escape;
        }
        out.push(c);
    }
}

/// ASCII is NFC already; only the controls need work, and most texts have none.
fn normalize_ascii(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    // In ASCII: NUL and the stripped controls are every control but TAB and LF, and DEL.
    let stripped_or_nul = |b: u8| (b < 0x20) & (b != b'\t') & (b != b'\n') | (b == 0x7F);
    // Looked for 32 bytes at a time with no early exit inside a block, which vectorizes.
    let Some(block) = bytes
        .chunks(32)
        .position(|block| block.iter().fold(false, |any, &b| any | stripped_or_nul(b)))
    else {
        return Cow::Borrowed(text);
    };
    let first = block * 32;
    // Copied a stretch at a time between the controls (a CRLF text has one per line).
    let mut out = Vec::with_capacity(bytes.len());
    let mut from = 0;
    for (at, &b) in bytes.iter().enumerate().skip(first) {
        if stripped_or_nul(b) {
            out.extend_from_slice(&bytes[from..at]);
            if b == 0 {
                out.push(b' ');
            }
            from = at + 1;
        }
    }
    out.extend_from_slice(&bytes[from..]);
    Cow::Owned(
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_non_ascii_byte_is_found_in_any_word_and_the_tail() {
        for len in 0..40 {
            let mut bytes = vec![b'a'; len];
            assert_eq!(first_non_ascii(&bytes), None);
            for at in 0..len {
                bytes[at] = 0xC3;
                if let Some(after) = bytes.get_mut(at + 3) {
                    *after = 0xA9; // a later one does not hide the first
                }
                assert_eq!(first_non_ascii(&bytes), Some(at), "len {len}, at {at}");
                bytes.fill(b'a');
            }
        }
    }

    #[test]
    fn ascii_without_controls_is_borrowed() {
        assert!(matches!(normalize("{\"a\": 1}\n", true), Cow::Borrowed(_)));
        assert_eq!(normalize("a\r\nb\0c\x7f", true), "a\nb c");
        // Every ASCII byte, at every offset within and across the 32-byte blocks searched.
        for at in 0..70 {
            for b in 0..0x80u8 {
                let text: String = (0..70)
                    .map(|i| if i == at { char::from(b) } else { 'x' })
                    .collect();
                let oracle: String = text
                    .chars()
                    .filter(|&c| !is_stripped_control(c))
                    .map(|c| if c == '\0' { ' ' } else { c })
                    .collect();
                let got = normalize(&text, true);
                assert_eq!(got, oracle, "byte {b:#x} at {at}");
                assert_eq!(
                    matches!(got, Cow::Borrowed(_)),
                    got == text,
                    "{b:#x} at {at}"
                );
            }
        }
    }

    /// Normalizing piece by piece gives the whole text's normalization, on texts made of
    /// what the steps turn on around newlines (controls, CR, NUL, combining marks, the Thai
    /// pair, private use, quotes, spaces), and the pieces are the text, cut after newlines.
    #[test]
    fn pieces_normalize_to_the_whole() {
        const FRAGMENTS: [&str; 18] = [
            "\n", "\n", "\r\n", "\u{1}", "\0", "x", "word ", "é", "e", "\u{301}", "\u{e4d}",
            "\u{e32}", "\u{e000}", "\u{201c}", "\u{a0}", "\t", "中", " ",
        ];
        let mut next = crate::tokens::xorshift(0x05ee_d0f1_ece5);
        let mut cuts = 0;
        for _ in 0..3_000 {
            let n = 1 + (next() % 60) as usize;
            let text: String = (0..n)
                .map(|_| FRAGMENTS[(next() % FRAGMENTS.len() as u64) as usize])
                .collect();
            let parts: Vec<&str> = pieces(&text).collect();
            assert_eq!(parts.concat(), text);
            for part in &parts[..parts.len() - 1] {
                assert!(part.len() >= PIECE && part.ends_with('\n'), "{part:?}");
            }
            cuts += parts.len() - 1;
            for fold in [false, true] {
                let whole = normalize(&text, fold);
                let by_piece: Vec<Cow<'_, str>> =
                    parts.iter().map(|p| normalize(p, fold)).collect();
                assert_eq!(by_piece.concat(), whole, "{text:?}");
                // Every piece after the first starts a line of the normalized text.
                assert!(
                    by_piece[1..]
                        .iter()
                        .all(|p| !p.is_empty() && !p.starts_with('\n'))
                );
            }
        }
        assert!(cuts > 1_000, "the texts were cut: {cuts}");
        assert_eq!(pieces("").collect::<Vec<_>>(), [""]);
    }

    #[test]
    fn steps_run_in_the_measured_order() {
        // NFC composes e + U+0301; a control between them blocks it and is stripped after.
        assert_eq!(normalize("e\u{301}", true), "\u{e9}");
        assert_eq!(normalize("e\u{1}\u{301}", true), "e\u{301}");
        // Thai SARA AM is composed, also across a stripped control, not across private use.
        assert_eq!(normalize("\u{e4d}\u{e32}", true), "\u{e33}");
        assert_eq!(normalize("\u{e4d}\u{1}\u{e32}", true), "\u{e33}");
        assert_eq!(normalize("x\u{e4d}\u{1}\u{1}\u{e32}y", true), "x\u{e33}y");
        assert_eq!(normalize("\u{e4d}\u{e000}\u{e32}", true), "\u{e4d}\u{e32}");
        // Quotes fold for v3 only; U+201E never; U+3000 stays.
        assert_eq!(normalize("\u{201c}x\u{2019}", true), "\"x'");
        assert_eq!(normalize("\u{201c}x\u{201e}", false), "\u{201c}x\u{201e}");
        assert_eq!(normalize("a\u{a0}b\u{3000}c", true), "a b\u{3000}c");
    }
}
