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

use super::stream::escape_literal_marker;

/// C0/C1 controls the API strips (every Cc but TAB, LF and NUL).
fn is_stripped_control(c: char) -> bool {
    matches!(c, '\u{01}'..='\u{08}' | '\u{0B}'..='\u{1F}' | '\u{7F}'..='\u{9F}')
}

/// Space separators read as U+0020: every Zs but U+3000, plus Zl and Zp.
fn is_folded_space(c: char) -> bool {
    matches!(
        c,
        '\u{A0}' | '\u{1680}' | '\u{2000}'..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}'
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
    // NUL reads as a space; the strip runs on NFC's output.
    let mut chars = text
        .nfc()
        .filter(|&c| !is_stripped_control(c))
        .map(|c| if c == '\0' { ' ' } else { c })
        .peekable();
    while let Some(mut c) = chars.next() {
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
    Cow::Owned(out)
}

/// ASCII is NFC already; only the controls need work, and most texts have none.
fn normalize_ascii(text: &str) -> Cow<'_, str> {
    let needs_work = text
        .bytes()
        .any(|b| b == 0 || is_stripped_control(char::from(b)));
    if !needs_work {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .filter(|&c| !is_stripped_control(c))
            .map(|c| if c == '\0' { ' ' } else { c })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_without_controls_is_borrowed() {
        assert!(matches!(normalize("{\"a\": 1}\n", true), Cow::Borrowed(_)));
        assert_eq!(normalize("a\r\nb\0c\x7f", true), "a\nb c");
    }

    #[test]
    fn steps_run_in_the_measured_order() {
        // NFC composes e + U+0301; a control between them blocks it and is stripped after.
        assert_eq!(normalize("e\u{301}", true), "\u{e9}");
        assert_eq!(normalize("e\u{1}\u{301}", true), "e\u{301}");
        // Thai SARA AM is composed, also across a stripped control, not across private use.
        assert_eq!(normalize("\u{e4d}\u{e32}", true), "\u{e33}");
        assert_eq!(normalize("\u{e4d}\u{1}\u{e32}", true), "\u{e33}");
        assert_eq!(normalize("\u{e4d}\u{e000}\u{e32}", true), "\u{e4d}\u{e32}");
        // Quotes fold for v3 only; U+201E never; U+3000 stays.
        assert_eq!(normalize("\u{201c}x\u{2019}", true), "\"x'");
        assert_eq!(normalize("\u{201c}x\u{201e}", false), "\u{201c}x\u{201e}");
        assert_eq!(normalize("a\u{a0}b\u{3000}c", true), "a b\u{3000}c");
    }
}
