//! The classes a codepoint falls in for ctok 1.3.0's runs (letters, digits, punctuation, space,
//! hard characters, unattached marks), and the few rules that decide a run's word markers at
//! its edges. Each rule is a measured fact of the reconstruction; the comments say which.

use unicode_general_category::{GeneralCategory as Gc, get_general_category};
use unicode_normalization::char::canonical_combining_class;

/// A literal U+FDD0..U+FDD4 in the input becomes U+E000..U+E004 (free: normalization strips
/// the input's own private use). The byte floor prices it as the original codepoint.
pub(super) fn escape_literal_marker(c: char) -> Option<char> {
    ('\u{FDD0}'..='\u{FDD4}')
        .contains(&c)
        .then(|| char::from_u32(c as u32 - 0xFDD0 + 0xE000).unwrap_or(c))
}

/// The inverse of [`escape_literal_marker`].
pub(super) fn unescape_literal_marker(c: char) -> char {
    if ('\u{E000}'..='\u{E004}').contains(&c) {
        char::from_u32(c as u32 - 0xE000 + 0xFDD0).unwrap_or(c)
    } else {
        c
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Class {
    /// Letters (and Alphabetic BMP marks): the full word model.
    Wordy,
    /// Ideographs, Hangul, astral characters, symbols, marks that are not Alphabetic.
    Hard,
    /// ASCII and Arabic-Indic digits.
    Digit,
    /// ASCII punctuation and symbols, and a measured list of others.
    Punct,
    Space,
    /// A combining mark with nothing before it that could be its base.
    StrayMark,
}

/// Non-ASCII symbols measured to tile over the punctuation vocabulary. Enumerated in ctok:
/// no category rule reproduces them (`（` is punctuation, `）` is hard).
pub(super) const PUNCT_SYMS: &str = "—»«•°„–−£§€…√→（№†└│།·─═█";

/// The category-So members of CJK Symbols and Punctuation, measured markerless.
pub(super) const IDEOGRAPHIC_SYMBOLS: &str = "〄〒〓〠〶〷〾〿";

/// Symbol-letters that take the full word model like Latin letters (by block, not category).
pub(super) const SYMBOL_LETTERS: [(char, char); 4] = [
    ('\u{16EE}', '\u{16F0}'), // Runic golden numbers
    ('\u{2160}', '\u{2188}'), // Roman numerals
    ('\u{24B6}', '\u{24E9}'), // circled letters
    ('\u{A6E6}', '\u{A6EF}'), // Bamum number-letters
];

pub(super) fn is_letter(g: Gc) -> bool {
    matches!(
        g,
        Gc::UppercaseLetter
            | Gc::LowercaseLetter
            | Gc::TitlecaseLetter
            | Gc::ModifierLetter
            | Gc::OtherLetter
    )
}

pub(super) fn is_mark(g: Gc) -> bool {
    matches!(g, Gc::NonspacingMark | Gc::SpacingMark | Gc::EnclosingMark)
}

pub(super) fn is_punctuation(g: Gc) -> bool {
    matches!(
        g,
        Gc::ConnectorPunctuation
            | Gc::DashPunctuation
            | Gc::OpenPunctuation
            | Gc::ClosePunctuation
            | Gc::InitialPunctuation
            | Gc::FinalPunctuation
            | Gc::OtherPunctuation
    )
}

pub(super) fn is_symbol(g: Gc) -> bool {
    matches!(
        g,
        Gc::MathSymbol | Gc::CurrencySymbol | Gc::ModifierSymbol | Gc::OtherSymbol
    )
}

/// Codepoints Unicode 16 gave case pairs that older data (and the source models) know.
pub(super) fn new_case_pair(c: char) -> Option<char> {
    match c {
        '\u{1C89}' => Some('\u{1C8A}'),
        '\u{A7CB}' => Some('\u{0264}'),
        _ => None,
    }
}

pub(super) fn is_new_cased(c: char) -> bool {
    matches!(c, '\u{1C89}' | '\u{1C8A}' | '\u{A7CB}' | '\u{0264}')
}

/// `ϴ` is a capital to Unicode and caseless to the models.
pub(super) const UNCASED: char = '\u{03F4}';

pub(super) fn is_selector(c: char) -> bool {
    ('\u{FE00}'..='\u{FE0F}').contains(&c)
}

/// The class of every ASCII character, looked up rather than matched (most text is ASCII).
pub(super) const ASCII_CLASSES: [Class; 128] = {
    let mut classes = [Class::Hard; 128]; // controls; normalization removed all but NUL
    let mut b = 0;
    while b < 128 {
        classes[b] = match b as u8 {
            b'a'..=b'z' | b'A'..=b'Z' => Class::Wordy,
            b'0'..=b'9' => Class::Digit,
            b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C => Class::Space,
            b'!'..=b'/' | b':'..=b'@' | b'['..=b'`' | b'{'..=b'~' => Class::Punct,
            _ => Class::Hard,
        };
        b += 1;
    }
    classes
};

pub(super) fn classify(c: char) -> Class {
    if let Some(&class) = ASCII_CLASSES.get(c as usize) {
        return class;
    }
    if is_new_cased(c) {
        return Class::Wordy;
    }
    let g = get_general_category(c);
    if matches!(
        g,
        Gc::SpaceSeparator | Gc::LineSeparator | Gc::ParagraphSeparator
    ) {
        return Class::Space;
    }
    if SYMBOL_LETTERS
        .iter()
        .any(|&(lo, hi)| (lo..=hi).contains(&c))
    {
        return Class::Wordy;
    }
    if g == Gc::DecimalNumber
        && (('\u{0660}'..='\u{0669}').contains(&c) || ('\u{06F0}'..='\u{06F9}').contains(&c))
    {
        return Class::Digit;
    }
    if PUNCT_SYMS.contains(c) {
        return Class::Punct;
    }
    if is_selector(c) {
        return Class::Hard; // a mark by category, but it takes no word model
    }
    if is_mark(g) {
        // The models take every astral codepoint down the hard path.
        return if (c as u32) < 0x10000 && c.is_alphabetic() {
            Class::Wordy
        } else {
            Class::Hard
        };
    }
    if is_letter(g) && !is_hard_letter(c) {
        return Class::Wordy;
    }
    Class::Hard
}

/// Letters priced one by one rather than as words: astral, CJK, Hangul syllables, and the
/// ideographic iteration marks that continue the Han run they follow.
pub(super) fn is_hard_letter(c: char) -> bool {
    let o = c as u32;
    o >= 0x10000
        || (0x4E00..=0x9FFF).contains(&o)
        || (0x3400..=0x4DBF).contains(&o)
        || (0xF900..=0xFAFF).contains(&o)
        || (0xAC00..=0xD7A3).contains(&o)
        || matches!(
            o,
            0x3005 | 0x3006 | 0x3031 | 0x3032 | 0x3033 | 0x3034 | 0x3035 | 0x303B | 0x303C
        )
}

/// A BMP mark that is not Alphabetic (variation selectors aside) closes a word run.
pub(super) fn is_separator_mark(c: char) -> bool {
    (c as u32) < 0x10000
        && is_mark(get_general_category(c))
        && !is_selector(c)
        && !c.is_alphabetic()
}

/// A Syriac vowel point or superscript alaph, which acts as a letter where no base holds it.
pub(super) fn is_syriac_vowel(c: char) -> bool {
    c == '\u{0711}' || ('\u{0730}'..='\u{073F}').contains(&c)
}

/// A combining mark asked about where nothing before it can be its base.
pub(super) fn is_stray_mark(c: char) -> bool {
    !c.is_ascii()
        && !is_syriac_vowel(c)
        && canonical_combining_class(c) != 0
        && !is_separator_mark(c)
}

/// Punctuation, symbols, format characters and separator marks: what may take border markers.
/// Ideographic punctuation stays with its ideographs; astral characters (emoji) never qualify.
pub(super) fn marks_like_punct(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation(); // P and S; the rest of ASCII is letters, digits, Cc, Zs
    }
    let c = unescape_literal_marker(c);
    if c as u32 >= 0x10000 {
        return false;
    }
    if is_separator_mark(c) {
        return true;
    }
    let g = get_general_category(c);
    let ideographic_punct = ('\u{3001}'..='\u{303F}').contains(&c)
        && (is_punctuation(g) || IDEOGRAPHIC_SYMBOLS.contains(c));
    (is_punctuation(g) || is_symbol(g) || matches!(g, Gc::Format | Gc::Unassigned))
        && !ideographic_punct
}

/// Non-ASCII digits (and every other number below U+10000) take border markers.
pub(super) fn is_border_digit(c: char) -> bool {
    if c.is_ascii() {
        return false;
    }
    let g = get_general_category(c);
    (g == Gc::OtherNumber || (g == Gc::DecimalNumber && !c.is_ascii())) && (c as u32) < 0x10000
}

/// A run of one number category (Nd or No) throughout.
pub(super) fn is_digit_run(body: &str) -> bool {
    if body.is_ascii() {
        return !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit());
    }
    let mut chars = body.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let g = get_general_category(first);
    matches!(g, Gc::DecimalNumber | Gc::OtherNumber) && chars.all(|c| get_general_category(c) == g)
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum HardKind {
    Punct,
    Number,
    Letter,
}

/// A hard run splits where the pretokenizer's alternative changes: letters | numbers | the rest.
pub(super) fn hard_kind(c: char) -> HardKind {
    if marks_like_punct(c) {
        HardKind::Punct
    } else if is_border_digit(c) {
        HardKind::Number
    } else {
        HardKind::Letter
    }
}

pub(super) fn first_char(s: &str) -> Option<char> {
    s.chars().next()
}

pub(super) fn last_char(s: &str) -> Option<char> {
    s.chars().next_back()
}

pub(super) fn hard_bow(body: &str) -> bool {
    first_char(body).is_some_and(|c| is_selector(c) || marks_like_punct(c))
}

pub(super) fn hard_eow(body: &str) -> bool {
    last_char(body).is_some_and(|c| is_selector(c) || marks_like_punct(c))
}

pub(super) fn digit_bow(body: &str) -> bool {
    is_digit_run(body) && first_char(body).is_some_and(is_border_digit)
}

pub(super) fn digit_eow(body: &str) -> bool {
    is_digit_run(body) && last_char(body).is_some_and(is_border_digit)
}
