//! Shortening text without losing its point: extractive summaries of prose (seed 001 R003:
//! the first sentence, then the sentences that carry the record's key terms), head-and-tail
//! excerpts of logs (seed 003: "log lines: head/tail with count"), and plain cuts for text
//! that has no sentences (identifiers, URLs, hashes).
//!
//! Every function returns at most `max` characters, counted as Unicode scalar values like the
//! contract's string limit, and never cuts inside a character.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::measure;
use crate::util::human::thousands;
use crate::util::utf8::floor_char_boundary;

/// Words that mark a sentence worth keeping in any record (seed 001 R003's list).
const DOMAIN_TERMS: [&str; 8] = [
    "guest",
    "booking",
    "price",
    "check-in",
    "amenities",
    "error",
    "failed",
    "total",
];

/// `text` in at most `max` characters: unchanged if it fits, else base64 runs replaced by a
/// descriptor, then an extractive summary of prose or a cut of anything else, ending with
/// how much was left out.
///
/// Only a window at the start of a long text is read for sentences (a preview shows its
/// beginning); the word and character counts are of the whole text. So a 100 MB string costs
/// one counting pass, not a summary of 100 MB.
pub fn shorten(text: &str, max: usize, terms: &[String]) -> String {
    Shortener::default().shorten(text, max, terms)
}

/// [`shorten`] that remembers the counts of long texts: a preview tries several levels on the
/// same strings, and counting 100 MB once is enough. Texts are recognised by address, so a
/// shortener must not outlive the strings it was given (a plan's, borrowed for its life).
#[derive(Default)]
pub struct Shortener {
    counted: RefCell<HashMap<(usize, usize), Totals>>,
}

impl Shortener {
    pub fn shorten(&self, text: &str, max: usize, terms: &[String]) -> String {
        let window = floor_char_boundary(text, (64 << 10).max(max.saturating_mul(8)));
        let head = describe_base64(&text[..window]);
        if window == text.len() && head.chars().count() <= max {
            return head.into_owned();
        }
        let totals = self.totals(text);
        if is_prose(&head) {
            extract_with(&head, max, terms, totals)
        } else {
            cut_with(&head, max, totals.chars)
        }
    }

    fn totals(&self, text: &str) -> Totals {
        let count = || Totals {
            words: count_words(text),
            chars: text.chars().count(),
        };
        if text.len() < 64 << 10 {
            return count();
        }
        *self
            .counted
            .borrow_mut()
            .entry((text.as_ptr() as usize, text.len()))
            .or_insert_with(count)
    }
}

/// The word and character counts of a whole text, for "... [N more words; M chars]".
#[derive(Clone, Copy)]
struct Totals {
    words: usize,
    chars: usize,
}

/// Words separated by ASCII whitespace, one byte at a time (the exact count of Unicode
/// whitespace would not change a preview's "N more words" in a way anyone can see).
fn count_words(text: &str) -> usize {
    let b = text.as_bytes();
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c');
    // Word starts: a non-space after a space (written so the compiler vectorizes it).
    let starts = b
        .windows(2)
        .map(|w| usize::from(space(w[0]) & !space(w[1])))
        .sum::<usize>();
    starts + usize::from(b.first().is_some_and(|&c| !space(c)))
}

/// Replaces every base64 run (an inlined image, a data: URI) with `[base64 MIME, N bytes]`.
pub fn describe_base64(text: &str) -> std::borrow::Cow<'_, str> {
    let runs = measure::base64_runs(text);
    if runs.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len().min(4096));
    let mut at = 0;
    for run in runs {
        out.push_str(&text[at..run.start]);
        out.push_str(&base64_descriptor(run.mime, run.len));
        at = run.start + run.len;
    }
    out.push_str(&text[at..]);
    std::borrow::Cow::Owned(out)
}

/// What a base64 blob of `len` characters is: `[base64 image/png, 12,345 bytes]`.
pub fn base64_descriptor(mime: Option<&str>, len: usize) -> String {
    let decoded = len / 4 * 3;
    match mime {
        Some(m) => format!("[base64 {m}, {} bytes]", thousands(decoded as u64)),
        None => format!("[base64, {} bytes]", thousands(decoded as u64)),
    }
}

/// Prose has spaces between words often enough to have sentences.
fn is_prose(text: &str) -> bool {
    let sample: String = text.chars().take(2000).collect();
    let spaces = sample.matches(' ').count();
    spaces * 12 >= sample.chars().count()
}

/// Seed 001's extractive summary: the first sentence, then sentences holding key terms while
/// they fit, then ` ... [N more words; M chars]`, `totals` being the whole text's counts.
fn extract_with(text: &str, max: usize, terms: &[String], totals: Totals) -> String {
    let Totals {
        words: total_words,
        chars: total_chars,
    } = totals;
    let suffix_for = |words: usize| {
        format!(
            " ... [{} more words; {} chars]",
            thousands(words as u64),
            thousands(total_chars as u64)
        )
    };
    // The suffix is at its longest when every word is left out.
    let room = max.saturating_sub(suffix_for(total_words).chars().count());
    if room < 8 {
        return cut_with(text, max, total_chars);
    }
    let sentences = sentences(text);
    let lower_terms: Vec<String> = terms
        .iter()
        .map(|t| t.to_lowercase())
        .filter(|t| t.chars().count() >= 3)
        .chain(DOMAIN_TERMS.iter().map(|t| (*t).to_owned()))
        .collect();
    let mut kept = String::new();
    let mut used = 0;
    for (i, sentence) in sentences.iter().enumerate() {
        let len = sentence.chars().count();
        let sep = usize::from(!kept.is_empty());
        if i == 0 {
            if len <= room {
                kept.push_str(sentence);
                used = len;
            } else {
                kept = cut_words(sentence, room);
                break;
            }
            continue;
        }
        if used + sep + len > room {
            continue;
        }
        let lower = sentence.to_lowercase();
        if lower_terms.iter().any(|t| lower.contains(t.as_str())) {
            if sep == 1 {
                kept.push(' ');
            }
            kept.push_str(sentence);
            used += sep + len;
        }
    }
    let left = total_words.saturating_sub(kept.split_whitespace().count());
    kept.push_str(&suffix_for(left));
    kept
}

/// Sentences: text up to `. `, `! `, `? ` or a line break, trimmed.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let end = match b {
            b'\n' => Some(i),
            b'.' | b'!' | b'?' if bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()) => {
                Some(i + 1)
            }
            _ => None,
        };
        if let Some(end) = end {
            if end >= start {
                let s = text[start..end].trim();
                if !s.is_empty() {
                    out.push(s);
                }
            }
            start = if b == b'\n' { i + 1 } else { end };
        }
    }
    let rest = text[start.min(text.len())..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// The first words of `text` in at most `max` characters (a word is cut only when it alone
/// is longer).
fn cut_words(text: &str, max: usize) -> String {
    let mut last_space = None;
    for (n, (i, c)) in text.char_indices().enumerate() {
        if n == max {
            return match last_space {
                Some(space) if space > 0 => text[..space].trim_end().to_owned(),
                _ => text[..i].to_owned(),
            };
        }
        if c.is_whitespace() {
            last_space = Some(i);
        }
    }
    text.to_owned()
}

/// The first characters of `text` and `… [+N chars]`, in at most `max` characters.
pub fn cut(text: &str, max: usize) -> String {
    cut_with(text, max, text.chars().count())
}

/// [`cut`] of a text's beginning, `total` being the whole text's length in characters.
fn cut_with(text: &str, max: usize, total: usize) -> String {
    if total <= max {
        return text.to_owned();
    }
    let suffix = format!("… [+{} chars]", thousands(total as u64));
    let keep = max.saturating_sub(suffix.chars().count());
    if keep == 0 {
        return text.chars().take(max).collect();
    }
    let mut out: String = text.chars().take(keep).collect();
    let left = total - keep;
    out.push_str(&format!("… [+{} chars]", thousands(left as u64)));
    out
}

/// A log's first and last lines around `... [N more lines] ...`: `keep` entries in all, each
/// at most `max` characters. Returns the lines and the text's line count.
pub fn head_tail(text: &str, keep: usize, max: usize) -> (Vec<String>, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    if total <= keep {
        return (lines.iter().map(|l| shorten(l, max, &[])).collect(), total);
    }
    if keep < 3 {
        return (
            lines[..keep].iter().map(|l| shorten(l, max, &[])).collect(),
            total,
        );
    }
    let head = (keep - 1).div_ceil(2);
    let tail = keep - 1 - head;
    let mut out: Vec<String> = lines[..head].iter().map(|l| shorten(l, max, &[])).collect();
    let marker = format!(
        "... [{} more lines] ...",
        thousands((total - head - tail) as u64)
    );
    out.push(cut(&marker, max));
    out.extend(lines[total - tail..].iter().map(|l| shorten(l, max, &[])));
    (out, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extract(text: &str, max: usize, terms: &[String]) -> String {
        let totals = Totals {
            words: count_words(text),
            chars: text.chars().count(),
        };
        extract_with(text, max, terms, totals)
    }

    const NOTES: &str = "The guest arrives late on Friday. Parking is behind the building. \
        The total price includes a cleaning fee of 45 EUR. Quiet hours start at ten. \
        Please leave the keys in the box by the door when you check out on Sunday morning.";

    #[test]
    fn extract_keeps_the_first_sentence_and_key_sentences() {
        let s = extract(NOTES, 120, &[]);
        assert!(s.chars().count() <= 120, "{s}");
        assert!(s.starts_with("The guest arrives late on Friday."), "{s}");
        assert!(s.contains("The total price includes"), "{s}");
        assert!(!s.contains("Parking"), "{s}");
        assert!(
            s.ends_with(&format!("more words; {} chars]", NOTES.len())),
            "{s}"
        );
    }

    #[test]
    fn shorten_never_exceeds_the_limit() {
        for max in [1, 5, 12, 30, 60, 200] {
            for text in [NOTES, &"x".repeat(900), &"é ".repeat(400), "short"] {
                let s = shorten(text, max, &["keys".into()]);
                assert!(
                    s.chars().count() <= max.max(text.chars().count().min(max)),
                    "{max}: {s}"
                );
            }
        }
    }

    #[test]
    fn base64_runs_become_descriptors() {
        let blob = "iVBORw0KGgo".repeat(40);
        let text = format!("see data:image/png;base64,{blob} here");
        let s = describe_base64(&text);
        assert_eq!(
            s,
            "see data:image/png;base64,[base64 image/png, 330 bytes] here"
        );
    }

    #[test]
    fn head_tail_counts_what_it_leaves_out() {
        let log: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
        let (lines, total) = head_tail(&log, 10, 500);
        assert_eq!(total, 1000);
        assert_eq!(lines.len(), 10);
        assert_eq!(lines[0], "line 1");
        assert_eq!(lines[5], "... [991 more lines] ...");
        assert_eq!(lines[9], "line 1000");
    }
}
