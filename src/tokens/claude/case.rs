//! Case folded into markers: a letter run's case (lower, capitalized, all caps) found and the
//! run written lowercase, as ctok 1.3.0 marks it.

use unicode_general_category::get_general_category;

use super::classes::{UNCASED, is_letter, is_mark, is_new_cased, new_case_pair};

/// How a letter run's case is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Case {
    Literal,
    /// ⟨shift⟩ + the run lowered: a title-case word.
    Shift,
    /// ⟨caps⟩ + the run lowered: an all-caps word of at least `allcaps_min` letters (v3).
    Caps,
}

/// `c` lowered as the models lower it, one codepoint at a time (so no final-sigma rule).
pub(super) fn lower(c: char, mut out: impl FnMut(char)) {
    if c == UNCASED {
        out(c)
    } else if let Some(pair) = new_case_pair(c) {
        out(pair)
    } else {
        c.to_lowercase().for_each(out)
    }
}

pub(super) fn lowers_to_itself(c: char) -> bool {
    if c == UNCASED {
        return true;
    }
    if new_case_pair(c).is_some() {
        return false;
    }
    let mut lowered = c.to_lowercase();
    lowered.next() == Some(c) && lowered.next().is_none()
}

/// A capital is one that lowers to something else (`ℂ` is Lu with no lowercase: caseless).
pub(super) fn is_upper(c: char) -> bool {
    c != UNCASED && (new_case_pair(c).is_some() || (c.is_uppercase() && !lowers_to_itself(c)))
}

pub(super) fn is_lower(c: char) -> bool {
    matches!(c, '\u{1C8A}' | '\u{0264}') || c.is_lowercase()
}

/// Which case marker a letter run takes. Only a whole span is marked: all caps (v3, at least
/// `allcaps_min` long) or title case; `GaN`, `WiFi`, `QQ` stay literal.
pub(super) fn mark_case(span: &str, allcaps_min: Option<usize>, head_mark: bool) -> Case {
    // A word opened by an unattached mark has that mark as its head: no marker can apply.
    if head_mark {
        return Case::Literal;
    }
    if span.is_ascii() {
        return mark_ascii_case(span.as_bytes(), allcaps_min);
    }
    if span.contains('ẞ') {
        return Case::Literal;
    }
    let mut chars = span.chars();
    let Some(first) = chars.next() else {
        return Case::Literal;
    };
    if span.contains('İ') {
        // İ is transparent to the title-case test and stays literal in the lowered body; it
        // blocks only at the head.
        let tail_upper = chars.any(|c| c != 'İ' && is_upper(c));
        return if is_upper(first) && first != 'İ' && !tail_upper {
            Case::Shift
        } else {
            Case::Literal
        };
    }
    if let Some(min) = allcaps_min {
        let mut len = 0;
        let mut cased = false;
        let mut all_upper = true;
        let mut caseless_letter = false;
        for c in span.chars() {
            len += 1;
            let (up, low) = (is_upper(c), is_lower(c));
            cased |= up || low;
            all_upper &= up || !low;
            // A letter or mark that is neither upper nor lower blocks ⟨caps⟩ (`ヲBUTTヲ`).
            let g = get_general_category(c);
            caseless_letter |= (is_new_cased(c) || is_letter(g) || is_mark(g)) && !low && !up;
        }
        if len >= min && cased && all_upper && !caseless_letter {
            return Case::Caps;
        }
    }
    if lowers_to_itself(first) {
        return Case::Literal;
    }
    if is_upper(first) && !span.chars().skip(1).any(is_upper) {
        return Case::Shift;
    }
    Case::Literal
}

/// [`mark_case`] for ASCII letters, where every letter is cased and lowers to one letter.
pub(super) fn mark_ascii_case(span: &[u8], allcaps_min: Option<usize>) -> Case {
    let Some((&first, tail)) = span.split_first() else {
        return Case::Literal;
    };
    let all_upper = span.iter().all(u8::is_ascii_uppercase);
    if all_upper && allcaps_min.is_some_and(|min| span.len() >= min) {
        Case::Caps
    } else if first.is_ascii_uppercase() && !tail.iter().any(u8::is_ascii_uppercase) {
        Case::Shift
    } else {
        Case::Literal
    }
}
