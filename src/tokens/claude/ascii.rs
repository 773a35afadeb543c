//! The marked stream of ASCII text, written in one loop over its bytes: the stream
//! [`super::stream`] writes, for the common case in which every character is ASCII, and for
//! the ASCII [`spans`] of a line that has other characters too.
//!
//! In ASCII each of the stream's rules looks at most two bytes to either side of a run: a case
//! marker reads the run itself, a border marker the byte beside the run, a contraction the two
//! bytes before it, and the seam (`⟨eow⟩ ␠ [case] ⟨bow⟩` loses its space) the byte before a
//! single space and the run after it. So no window of runs is kept and no seam filter runs per
//! codepoint: the stream is written into a buffer spelled in pair classes
//! ([`super::table::pair_class`]), which the tiler takes a segment at a time.
//!
//! Normalized ASCII holds only TAB, LF and U+0020..U+007E ([`super::normalize`] removes or
//! replaces every other control), so its runs are letters, digits, punctuation and space.

use super::case::{Case, mark_ascii_case};
use super::classes::{ASCII_CLASSES, Class};
use super::normalize::first_non_ascii;
use super::stream::{
    self, CONTRACTION_SUFFIXES, LOW_MASKS, STRETCH_MAX, Sink, StreamRules, Stretch, low_bytes,
};
use super::table::pair_class;

/// The markers as the buffer spells them: their pair classes.
const BOW: u8 = marker_class(stream::BOW);
const EOW: u8 = marker_class(stream::EOW);
const SHIFT: u8 = marker_class(stream::SHIFT);
const CAPS: u8 = marker_class(stream::CAPS);

const fn marker_class(marker: char) -> u8 {
    match pair_class(marker) {
        Some(class) => class as u8,
        None => panic!("every marker has a pair class"),
    }
}

/// Bytes written before the buffer is handed to the sink: a line is usually far shorter, and a
/// 100 MB JSON on one line is not held whole. (In tests a few dozen, so that every test's text
/// reaches the sink in parts cut everywhere, in the middle of a segment too.)
const FLUSH_AT: usize = if cfg!(test) { 61 } else { 1 << 14 };

/// [`super::stream::write`] for normalized ASCII `text`: the head of a text, which the
/// frame's ⟨bow⟩ precedes. `buf` is scratch space (left empty). `cut_after`: the text ends
/// where a cut follows (the end of a line), rather than where [`spans`] split a line.
pub(super) fn write(
    text: &[u8],
    raw_head_space: bool,
    cut_after: bool,
    rules: StreamRules,
    buf: &mut Vec<u8>,
    sink: &mut impl Sink,
) {
    let mut text = text;
    // A single leading space is the frame's ⟨bow⟩; two or more are a whitespace token.
    if raw_head_space && text.first() == Some(&b' ') && text.get(1) != Some(&b' ') {
        text = &text[1..];
    }
    let Some(&first) = text.first() else {
        // Content that normalizes away still pays for the frame's ⟨bow⟩.
        return sink.push_marked(&[BOW]);
    };
    // The frame ends in ⟨bow⟩: a first run that writes its own takes it over, a word-opening
    // apostrophe is handed a space instead, and anything else gets the frame's written here.
    let head_quote = opens_word(text, 0);
    let own_bow = !head_quote
        && match class(first) {
            Class::Wordy | Class::Punct => true,
            Class::Space => first == b' ',
            _ => false,
        };
    if !own_bow {
        buf.push(if head_quote { b' ' } else { BOW });
    }
    write_runs(text, true, cut_after, rules, buf, sink);
}

/// [`super::stream::write_line`] for normalized ASCII `text`: a line that follows a newline,
/// or a span of one that follows a split of [`spans`] (`cut_after` as for [`write`]).
pub(super) fn write_line(
    text: &[u8],
    cut_after: bool,
    rules: StreamRules,
    buf: &mut Vec<u8>,
    sink: &mut impl Sink,
) {
    write_runs(text, false, cut_after, rules, buf, sink);
}

/// Writes every run of `text`; `head`: nothing is before it but the frame (whose ⟨bow⟩ is a
/// space), rather than a newline.
fn write_runs(
    text: &[u8],
    head: bool,
    cut_after: bool,
    rules: StreamRules,
    buf: &mut Vec<u8>,
    sink: &mut impl Sink,
) {
    let mut start = 0;
    while let Some(&lead) = text.get(start) {
        let kind = class(lead);
        let end = start
            + 1
            + text[start + 1..]
                .iter()
                .position(|&b| class(b) != kind)
                .unwrap_or(text.len() - start - 1);
        let body = &text[start..end];
        // A seam after a word or punctuation is skipped with it, not dispatched as a run.
        let next = match kind {
            Class::Wordy | Class::Punct if is_seam(text, end) => end + 1,
            _ => end,
        };
        match kind {
            Class::Wordy => {
                let case = mark_ascii_case(body, rules.allcaps_min);
                let bow = !contraction_seam(text, start, body);
                if bow
                    && rules.words_stand_alone
                    && let Some(word) = word_stretch(text, start, end, case)
                {
                    hand_on_to_cut(buf, sink); // the cut before the word
                    sink.push_stretch(word);
                    start = next;
                    continue;
                }
                buf.extend(case_marker(case));
                if bow {
                    buf.push(BOW);
                }
                match case {
                    Case::Literal => copy(body, buf),
                    // A title-case word's tail has no capitals.
                    Case::Shift => {
                        buf.push(lead.to_ascii_lowercase());
                        copy(&body[1..], buf);
                    }
                    Case::Caps => buf.extend(body.iter().map(u8::to_ascii_lowercase)),
                }
                buf.push(EOW);
            }
            Class::Punct => {
                // Marked only on a side that borders a space.
                let space_before = match start {
                    0 => head,
                    _ => text[start - 1] == b' ',
                };
                if space_before && !opens_word(text, start) {
                    buf.push(BOW);
                }
                copy(body, buf);
                if space_after(text, end) {
                    buf.push(EOW);
                }
            }
            Class::Digit if rules.digits_stand_alone => {
                hand_on_to_cut(buf, sink); // the cut before the digits
                sink.push_digits(body);
            }
            // Space, and ASCII digits: no markers (only a border digit takes them).
            _ => copy(body, buf),
        }
        if buf.len() >= FLUSH_AT {
            sink.push_marked(buf);
            buf.clear();
        }
        start = next;
    }
    if cut_after {
        // A cut follows a line's newlines, and the end of the text.
        hand_on_to_cut(buf, sink);
    } else if !buf.is_empty() {
        // The line goes on in another writer: its segment may too.
        sink.push_marked(buf);
        buf.clear();
    }
}

/// ASCII shorter than this stays with the non-ASCII around it: a span written apart costs a
/// change of writers. (In tests one byte, so that every mixed text of a test is split wherever
/// it may be.)
const SPAN_MIN: usize = if cfg!(test) { 1 } else { 32 };

/// The spans of a normalized line with non-ASCII in it that [`write`] and [`write_line`] may
/// write, in order (a JSON text with one emoji in it is one line, which the general writer
/// writes at less than half this one's speed); the general writer writes what is between
/// them. A span starts at the line's start or at a split, and ends at a split or the line's
/// end (where `cut_after`).
///
/// A split is a place the stream's rules do not read across. Each rule reads a run and its
/// neighbours, and a neighbour matters only when it is a space (a border marker, a seam) or a
/// lone apostrophe (a contraction, a word-opening quote). So between two runs of ASCII letters,
/// digits or punctuation, with neither an apostrophe, the stream of the whole line is the
/// stream of the part before and the part after, each written as a line's continuation.
pub(super) fn spans(text: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < text.len() {
            let Some(from) = text[at..].iter().position(u8::is_ascii) else {
                at = text.len();
                break;
            };
            let a = at + from;
            let b = a + first_non_ascii(&text[a..]).unwrap_or(text.len() - a);
            at = b;
            let start = if a == 0 {
                Some(0)
            } else {
                (a + 1..b).find(|&p| splits(text, p))
            };
            let Some(start) = start else { continue };
            let end = if b == text.len() {
                Some(b)
            } else {
                (start + 1..b).rev().find(|&q| splits(text, q))
            };
            if let Some(end) = end.filter(|&end| end - start >= SPAN_MIN) {
                return Some((start, end));
            }
        }
        None
    })
}

/// Whether the stream may be written in two parts before `text[at]` (see [`spans`]).
fn splits(text: &[u8], at: usize) -> bool {
    let side = |b: u8| {
        b.is_ascii() && b != b'\'' && matches!(class(b), Class::Wordy | Class::Digit | Class::Punct)
    };
    let (left, right) = (text[at - 1], text[at]);
    side(left) && side(right) && class(left) != class(right)
}

/// Hands the buffer to the sink where a cut follows it, and empties it.
#[inline]
fn hand_on_to_cut(buf: &mut Vec<u8>, sink: &mut impl Sink) {
    if !buf.is_empty() {
        sink.push_marked_to_cut(buf);
        buf.clear();
    }
}

/// The marker a word's case takes before its ⟨bow⟩, if any.
fn case_marker(case: Case) -> Option<u8> {
    match case {
        Case::Literal => None,
        Case::Shift => Some(SHIFT),
        Case::Caps => Some(CAPS),
    }
}

/// A word's stream, `[case] ⟨bow⟩ body ⟨eow⟩`, as a [`Stretch`], if it is short enough: built
/// from the text's bytes as one number, lowered in place (every byte of the body is an ASCII
/// letter, which `| 0x20` lowers).
fn word_stretch(text: &[u8], start: usize, end: usize, case: Case) -> Option<Stretch> {
    let len = end - start;
    let (head, head_len) = match case_marker(case) {
        None => (u128::from(BOW), 1),
        Some(marker) => (u128::from(marker) | u128::from(BOW) << 8, 2),
    };
    let stream_len = head_len + len + 1;
    if stream_len > STRETCH_MAX {
        return None;
    }
    let mut body = low_bytes(text, start, len);
    body |= match case {
        Case::Literal => 0,
        Case::Shift => 0x20,
        Case::Caps => 0x2020_2020_2020_2020_2020_2020_2020_2020 & LOW_MASKS[len],
    };
    Some(Stretch(
        head | body << (8 * head_len)
            | u128::from(EOW) << (8 * (head_len + len))
            | (stream_len as u128) << (8 * STRETCH_MAX),
    ))
}

/// Appends a run's body: a byte at a time, as runs are a few bytes long and a call to copy
/// them costs more than the copy.
#[inline]
fn copy(body: &[u8], buf: &mut Vec<u8>) {
    buf.reserve(body.len());
    body.iter().for_each(|&b| buf.push(b));
}

#[inline]
fn class(b: u8) -> Class {
    ASCII_CLASSES[usize::from(b & 0x7F)]
}

/// A lone `'` that opens the word after it (`'First`): it takes no ⟨bow⟩.
fn opens_word(text: &[u8], start: usize) -> bool {
    text[start] == b'\'' && text.get(start + 1).is_some_and(u8::is_ascii_alphabetic)
}

/// A right-hand marker is written for a single space only.
fn space_after(text: &[u8], end: usize) -> bool {
    text.get(end) == Some(&b' ') && text.get(end + 1) != Some(&b' ')
}

/// `it's`: a lone apostrophe before a contraction suffix is the suffix's ⟨bow⟩. (The run before
/// the apostrophe never writes a right border of its own in ASCII: it is not punctuation.)
fn contraction_seam(text: &[u8], start: usize, body: &[u8]) -> bool {
    body.len() <= 2
        && start >= 1
        && text[start - 1] == b'\''
        && (start == 1 || class(text[start - 2]) != Class::Punct)
        && CONTRACTION_SUFFIXES.iter().any(|s| s.as_bytes() == body)
}

/// The byte at `at`, after a word or punctuation, is a seam: a single space after a run that
/// ended in ⟨eow⟩ (a word does; punctuation does before a single space) and before one that
/// starts with ⟨bow⟩, after its case marker if it has one (a word does; punctuation does after
/// a space unless it is an apostrophe opening a word).
fn is_seam(text: &[u8], at: usize) -> bool {
    text.get(at) == Some(&b' ')
        && text.get(at + 1).is_some_and(|&next| match class(next) {
            Class::Wordy => true,
            Class::Punct => !opens_word(text, at + 1),
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::super::stream::{self, Seam};
    use super::*;

    /// Pieces of ASCII the stream's rules turn on: case (title, all caps, inner capitals),
    /// contractions and apostrophes, digit runs short and long, seams, tabs, newlines,
    /// punctuation on either side of spaces, words too long for a stretch.
    const FRAGMENTS: [&str; 34] = [
        "word",
        "Word",
        "WORD",
        "NASA",
        "WiFi",
        "I",
        "it",
        "'",
        "s",
        "ll",
        "t",
        "re",
        "42",
        "2026",
        "1234567",
        " ",
        " ",
        "  ",
        "\t",
        "\n",
        "\n\n",
        ",",
        "\":",
        "{",
        "}",
        "(",
        "-",
        ".",
        "'s",
        "Internationalization",
        "ABCDEFGHIJKLMNOP",
        "abcdefghijklm",
        "a1b2",
        "x",
    ];

    fn random_texts(rounds: usize) -> impl Iterator<Item = String> {
        let mut next = crate::tokens::xorshift(0x2545_f491_4f6c_dd1d);
        (0..rounds).map(move |round| {
            let n = (next() % [3, 10, 30][round % 3]) as usize;
            (0..n)
                .map(|_| FRAGMENTS[(next() % FRAGMENTS.len() as u64) as usize])
                .collect()
        })
    }

    /// [`stream::write`] (or `write_line`), through the seam filter, codepoint by codepoint.
    fn general(text: &str, head: bool, rules: StreamRules) -> String {
        let mut out = String::new();
        let mut seam = Seam::new(&mut out);
        if head {
            stream::write(text, text.starts_with(' '), rules, &mut seam);
        } else {
            stream::write_line(text, rules, &mut seam);
        }
        seam.finish();
        out
    }

    fn fused(text: &str, head: bool, rules: StreamRules) -> String {
        let (mut out, mut buf) = (String::new(), Vec::new());
        if head {
            write(
                text.as_bytes(),
                text.starts_with(' '),
                true,
                rules,
                &mut buf,
                &mut out,
            );
        } else {
            write_line(text.as_bytes(), true, rules, &mut buf, &mut out);
        }
        assert!(buf.is_empty(), "the buffer is handed on whole");
        out
    }

    /// The fused writer writes the general stream exactly, for heads and lines, with and
    /// without ⟨caps⟩, and with the words and digits handed over whole or written out.
    #[test]
    fn writes_the_stream_the_general_writer_writes() {
        let mut words = 0;
        for text in random_texts(6_000) {
            for allcaps_min in [Some(4), None] {
                for stand_alone in [false, true] {
                    let rules = StreamRules {
                        allcaps_min,
                        words_stand_alone: stand_alone,
                        digits_stand_alone: stand_alone,
                    };
                    for head in [true, false] {
                        let want = general(&text, head, rules);
                        assert_eq!(fused(&text, head, rules), want, "{text:?} {rules:?} {head}");
                        words += want.matches(stream::EOW).count();
                    }
                }
            }
        }
        assert!(words > 100_000, "the texts had words: {words}");
    }

    /// A text longer than the buffer is handed on in parts, and still written exactly.
    #[test]
    fn a_long_line_is_written_in_parts() {
        let text: String = random_texts(3_000)
            .collect::<Vec<_>>()
            .join(" ")
            .replace('\n', " ");
        assert!(text.len() > 4 * FLUSH_AT, "{}", text.len());
        let rules = StreamRules {
            allcaps_min: Some(4),
            words_stand_alone: false,
            digits_stand_alone: false,
        };
        assert_eq!(fused(&text, true, rules), general(&text, true, rules));
    }
}
