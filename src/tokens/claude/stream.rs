//! Normalized text -> the marked stream the tiler reads: word boundaries, case and absorbed
//! spaces written in as marker codepoints.
//!
//! The text is cut into maximal runs of one class (letters, digits, punctuation, space, "hard"
//! characters, unattached marks). A letter run is written `[case] ⟨bow⟩ body ⟨eow⟩` with its case
//! folded into a marker; punctuation, non-ASCII digits and symbol-like hard runs take a ⟨bow⟩ or
//! ⟨eow⟩ only on a side that touches a space; a single space between two marked runs is the
//! "seam" and disappears into the markers. Every rule here is a measured fact of ctok 1.3.0's
//! reconstruction (its README and source explain the method); the comments say which.
//!
//! Nothing is collected: runs are found lazily with a window of two runs behind and one ahead,
//! and the stream is pushed codepoint by codepoint into a [`Sink`], so a 100 MB text costs no
//! more memory than its normalized copy.

use super::table::class_char;

use super::case::{Case, lower, mark_case};
use super::classes::{
    ASCII_CLASSES, Class, classify, digit_bow, digit_eow, hard_bow, hard_eow, hard_kind,
    is_digit_run, is_selector, is_stray_mark,
};

/// Word start, word end, and the two case markers (a literal one in the input is escaped, see
/// [`super::classes::escape_literal_marker`]). The vocabulary's pieces spell them the same way.
pub(super) use super::table::{BOW, CAPS, EOW, SHIFT};

/// Where the stream goes: the tiler, through the seam filter.
pub(super) trait Sink {
    fn push(&mut self, c: char);

    /// Pushes every codepoint of `s` (a run's body): a sink may take ASCII a slice at a time.
    fn push_str(&mut self, s: &str) {
        s.chars().for_each(|c| self.push(c));
    }

    /// Pushes a stream spelled in pair classes ([`super::table::pair_class`]: ASCII as itself,
    /// the markers as 0x80..0x84), as if codepoint by codepoint: the tiler takes it a segment
    /// at a time.
    fn push_marked(&mut self, stream: &[u8]) {
        stream.iter().for_each(|&b| self.push(class_char(b)));
    }

    /// [`Sink::push_marked`], where a cut follows `stream` (a word's ⟨bow⟩ or the end of a
    /// line comes next), so its last segment is complete too.
    fn push_marked_to_cut(&mut self, stream: &[u8]) {
        self.push_marked(stream);
    }

    /// Pushes a run of ASCII digits that no piece joins to what is before or after it.
    fn push_digits(&mut self, digits: &[u8]) {
        self.push_marked(digits);
    }

    /// Pushes a [`Stretch`]: a short stretch of marked stream with a cut on either side.
    fn push_stretch(&mut self, stretch: Stretch) {
        let bytes = stretch.0.to_le_bytes();
        self.push_marked(&bytes[..usize::from(bytes[STRETCH_MAX])]);
    }
}

/// At most [`STRETCH_MAX`] bytes of a marked stream that no piece joins to what is before or
/// after them, as one number: the bytes, then zeros, then the length in the last byte. A
/// sink may cost it whole (it costs what it costs alone) and remember it by this number.
#[derive(Clone, Copy)]
pub(super) struct Stretch(pub u128);

/// The bytes a [`Stretch`] holds (the 16th is the length).
pub(super) const STRETCH_MAX: usize = 15;

/// `bytes[start..start + len]` (`len` <= [`STRETCH_MAX`]) as the low bytes of a little-endian
/// number, zeros above: one unaligned read, also for the last word of a line, where a copy
/// into a scratch array cost a call to `memcpy` per line.
#[inline]
pub(super) fn low_bytes(bytes: &[u8], start: usize, len: usize) -> u128 {
    debug_assert!(len <= STRETCH_MAX && start + len <= bytes.len());
    let word = |at: usize| u128::from_le_bytes(bytes[at..at + 16].try_into().expect("16 bytes"));
    let shifted = match bytes.len().checked_sub(16) {
        Some(last) if start <= last => word(start),
        // The 16 bytes that end the slice, shifted down to `start`: fewer than 16 places, but
        // for an empty stretch at the very end, which the mask clears whatever the shift.
        Some(last) => word(last).wrapping_shr(8 * (start - last) as u32),
        None => bytes[start..start + len]
            .iter()
            .rev()
            .fold(0, |n, &b| n << 8 | u128::from(b)),
    };
    shifted & LOW_MASKS[len]
}

/// `LOW_MASKS[n]`: the low `n` bytes of a number set (a load, where a 128-bit shift by a
/// variable amount is a dozen instructions).
pub(super) const LOW_MASKS: [u128; 16] = {
    let mut masks = [0; 16];
    let mut n = 1;
    while n < 16 {
        masks[n] = (1 << (8 * n)) - 1;
        n += 1;
    }
    masks
};

/// The suffixes an apostrophe binds into the word before it (whole-word, lowercase only).
pub(super) const CONTRACTION_SUFFIXES: [&str; 7] = ["s", "t", "d", "m", "ll", "re", "ve"];

/// One maximal run of a class (hard runs further split by kind).
#[derive(Clone, Copy, Debug)]
pub(super) struct Run<'a> {
    pub(super) class: Class,
    pub(super) body: &'a str,
}

impl Run<'_> {
    /// Writes a boundary marker of its own on its right edge (so an apostrophe after it cannot
    /// be a contraction seam).
    pub(super) fn takes_right_border(self) -> bool {
        self.class == Class::Punct
            || hard_eow(self.body)
            || (matches!(self.class, Class::Digit | Class::Hard) && digit_eow(self.body))
    }

    /// A lone `'` that opens the word after it (`'First`, `x 'REXX`).
    pub(super) fn opens_word(self, next: Option<Run<'_>>) -> bool {
        self.body == "'" && next.is_some_and(|n| matches!(n.class, Class::Wordy | Class::StrayMark))
    }
}

/// The runs of a text, found lazily.
pub(super) struct Runs<'a> {
    pub(super) text: &'a str,
    pub(super) at: usize,
}

impl<'a> Iterator for Runs<'a> {
    type Item = Run<'a>;

    #[inline]
    fn next(&mut self) -> Option<Run<'a>> {
        let rest = &self.text[self.at..];
        let &lead = rest.as_bytes().first()?;
        // Most runs start with ASCII: its class is a lookup, and it is never a mark.
        let (first, class) = match ASCII_CLASSES.get(usize::from(lead)) {
            Some(&class) => (char::from(lead), class),
            None => {
                let first = rest.chars().next()?;
                let mut class = classify(first);
                if class == Class::Wordy && is_stray_mark(first) {
                    class = Class::StrayMark; // nothing in front of it can be its base
                }
                (first, class)
            }
        };
        let kind = (class == Class::Hard).then(|| hard_kind(first));
        // ASCII of the run's own class extends it, byte by byte; the first other character
        // goes the general way below.
        let mut from = first.len_utf8();
        if matches!(
            class,
            Class::Wordy | Class::Digit | Class::Punct | Class::Space
        ) {
            let bytes = rest.as_bytes();
            while bytes
                .get(from)
                .is_some_and(|&b| ASCII_CLASSES.get(usize::from(b)) == Some(&class))
            {
                from += 1;
            }
            // An ASCII character of another class ends the run: no need to classify it twice.
            if bytes.get(from).is_none_or(u8::is_ascii) {
                self.at += from;
                return Some(Run {
                    class,
                    body: &rest[..from],
                });
            }
        }
        let mut end = rest.len();
        for (i, c) in rest[from..].char_indices() {
            let i = from + i;
            let k = classify(c);
            let extends = match class {
                // Consecutive unattached marks are one run; a letter starts a word.
                Class::StrayMark => k == Class::Wordy && is_stray_mark(c),
                // A variation selector rides its base's sub-run.
                Class::Hard => k == Class::Hard && (is_selector(c) || Some(hard_kind(c)) == kind),
                _ => k == class,
            };
            if !extends {
                end = i;
                break;
            }
        }
        self.at += end;
        Some(Run {
            class,
            body: &rest[..end],
        })
    }
}

/// The family switches the stream reads.
#[derive(Clone, Copy, Debug)]
pub(super) struct StreamRules {
    /// Shortest all-caps run that takes ⟨caps⟩; `None`: the family has no ⟨caps⟩ (v4.7).
    pub allcaps_min: Option<usize>,
    /// The vocabulary joins no word to its neighbours ([`super::table::Tables::words_stand_alone`]):
    /// a short word may be handed over as a [`Sink::push_stretch`].
    pub words_stand_alone: bool,
    /// ... and no digit to anything else ([`super::table::Tables::digits_stand_alone`]): a run
    /// of ASCII digits may be handed over with [`Sink::push_digits`].
    pub digits_stand_alone: bool,
}

/// Pushes the marked stream of `text` (normalized, trailing newlines removed) into `sink`.
/// `raw_head_space`: the raw text began with a space, which the frame's ⟨bow⟩ absorbs.
pub(super) fn write(text: &str, raw_head_space: bool, rules: StreamRules, sink: &mut impl Sink) {
    let mut text = text;
    // A single leading space is the frame's ⟨bow⟩ (' a' costs what 'a' costs); two or more are a
    // whitespace token. A space normalization made or exposed is not absorbed.
    if raw_head_space && text.starts_with(' ') && !text[1..].starts_with(' ') {
        text = &text[1..];
    }
    let mut runs = Runs { text, at: 0 }.peekable();
    let Some(first) = runs.next() else {
        // Content that normalizes away still pays for the frame's ⟨bow⟩.
        sink.push(BOW);
        return;
    };
    // The frame ends in ⟨bow⟩. A first run that writes its own takes it over; anything else
    // gets it written here, except a word-opening apostrophe, which is handed a space instead.
    let head_quote = first.opens_word(runs.peek().copied());
    let has_own_bow = !head_quote
        && (matches!(first.class, Class::Wordy | Class::Punct | Class::StrayMark)
            || hard_bow(first.body)
            || (matches!(first.class, Class::Digit | Class::Hard) && digit_bow(first.body))
            || (first.class == Class::Space && first.body.starts_with(' ')));
    if !has_own_bow {
        sink.push(if head_quote { ' ' } else { BOW });
    }

    write_runs(first, None, runs, rules, sink);
}

/// Pushes the marked stream of a line that follows a newline of the same text (`text` does
/// not start with one): its first run has that newline before it, and the frame's head is
/// somewhere else. See [`super::lines`] for why a line can be counted on its own.
pub(super) fn write_line(text: &str, rules: StreamRules, sink: &mut impl Sink) {
    pub(super) const NEWLINE: Run<'static> = Run {
        class: Class::Space,
        body: "\n",
    };
    let mut runs = Runs { text, at: 0 }.peekable();
    if let Some(first) = runs.next() {
        write_runs(first, Some(NEWLINE), runs, rules, sink);
    }
}

/// Writes `first` (with the run `before` it, if any) and every run after it.
pub(super) fn write_runs<'a>(
    first: Run<'a>,
    before: Option<Run<'a>>,
    mut runs: std::iter::Peekable<Runs<'a>>,
    rules: StreamRules,
    sink: &mut impl Sink,
) {
    let mut window = Window {
        before2: None,
        before,
        run: first,
        after: runs.peek().copied(),
    };
    loop {
        window.write(rules, sink);
        let Some(next) = runs.next() else { break };
        window = Window {
            before2: window.before,
            before: Some(window.run),
            run: next,
            after: runs.peek().copied(),
        };
    }
}

/// A run with the neighbours its markers depend on.
pub(super) struct Window<'a> {
    pub(super) before2: Option<Run<'a>>,
    pub(super) before: Option<Run<'a>>,
    pub(super) run: Run<'a>,
    pub(super) after: Option<Run<'a>>,
}

impl Window<'_> {
    /// Does the run's left side touch a space? The message start counts (the frame ends in
    /// ⟨bow⟩, a space); only a real U+0020 next to the run does.
    pub(super) fn space_before(&self) -> bool {
        match self.before {
            None => true,
            Some(r) => r.class == Class::Space && r.body.ends_with(' '),
        }
    }

    /// A right-hand marker is written for a seam space only, never before two spaces.
    pub(super) fn space_after(&self) -> bool {
        self.after.is_some_and(|r| {
            r.class == Class::Space && r.body.starts_with(' ') && !r.body.starts_with("  ")
        })
    }

    /// `it's`: a lone apostrophe before a contraction suffix is the suffix's ⟨bow⟩, unless the
    /// run before the apostrophe writes a right border of its own.
    pub(super) fn contraction_seam(&self) -> bool {
        self.run.body.len() <= 2
            && CONTRACTION_SUFFIXES.contains(&self.run.body)
            && self
                .before
                .is_some_and(|b| b.class == Class::Punct && b.body == "'")
            && !self.before2.is_some_and(Run::takes_right_border)
    }

    pub(super) fn write(&self, rules: StreamRules, sink: &mut impl Sink) {
        let Run { class, body } = self.run;
        match class {
            // Whitespace takes no markers, and neither do ASCII digits (only a border digit
            // does): the common runs skip the tests below, which would all say no.
            Class::Space => sink.push_str(body),
            Class::Digit if body.is_ascii() => sink.push_str(body),
            Class::Wordy => {
                // A word opened by an unattached mark continues that mark's word.
                let fused = self.before.is_some_and(|b| b.class == Class::StrayMark);
                let case = mark_case(body, rules.allcaps_min, fused);
                match case {
                    Case::Shift => sink.push(SHIFT),
                    Case::Caps => sink.push(CAPS),
                    Case::Literal => {}
                }
                if !fused && !self.contraction_seam() {
                    sink.push(BOW);
                }
                match case {
                    Case::Literal => sink.push_str(body),
                    // A title-case word's tail has no capitals.
                    Case::Shift if body.is_ascii() => {
                        sink.push(char::from(body.as_bytes()[0].to_ascii_lowercase()));
                        sink.push_str(&body[1..]);
                    }
                    Case::Caps if body.is_ascii() => body
                        .bytes()
                        .for_each(|b| sink.push(char::from(b.to_ascii_lowercase()))),
                    // Shift keeps İ literal (the only case in which a lowered run may hold one).
                    Case::Shift => body.chars().for_each(|c| {
                        if c == 'İ' {
                            sink.push(c)
                        } else {
                            lower(c, |l| sink.push(l))
                        }
                    }),
                    // Per-codepoint lowering never yields final sigma, as the ⟨caps⟩ body wants.
                    Case::Caps => body.chars().for_each(|c| lower(c, |l| sink.push(l))),
                }
                sink.push(EOW);
            }
            Class::StrayMark => {
                // A word of its own: ⟨bow⟩ always, ⟨eow⟩ unless a letter continues it.
                sink.push(BOW);
                sink.push_str(body);
                if !self.after.is_some_and(|a| a.class == Class::Wordy) {
                    sink.push(EOW);
                }
            }
            _ if class == Class::Punct || hard_bow(body) || hard_eow(body) => {
                // Marked only on a side that borders a space; the vocabulary decides whether a
                // piece swallows the marker.
                let punct = class == Class::Punct;
                if self.space_before()
                    && !self.run.opens_word(self.after)
                    && (punct || hard_bow(body))
                {
                    sink.push(BOW);
                }
                sink.push_str(body);
                if self.space_after() && (punct || hard_eow(body)) {
                    sink.push(EOW);
                }
            }
            Class::Digit | Class::Hard if is_digit_run(body) => {
                // Border markers as punctuation takes them, decided by the border digit.
                if digit_bow(body) && self.space_before() {
                    sink.push(BOW);
                }
                sink.push_str(body);
                if digit_eow(body) && self.space_after() {
                    sink.push(EOW);
                }
            }
            // Hard letter scripts: no markers (whitespace took the first arm).
            _ => sink.push_str(body),
        }
    }
}

/// The seam law: `⟨eow⟩ ␠ [case markers] ⟨bow⟩` loses its space, which the two markers stand for.
pub(super) struct Seam<'s, S: Sink> {
    pub(super) inner: &'s mut S,
    pub(super) state: SeamState,
}

#[derive(Clone, Copy)]
pub(super) enum SeamState {
    Plain,
    /// The last codepoint was ⟨eow⟩.
    AfterEow,
    /// ⟨eow⟩ ␠ seen, then these case markers (a word takes at most one).
    Held {
        markers: [char; 2],
        len: usize,
    },
}

impl<'s, S: Sink> Seam<'s, S> {
    pub(super) fn new(inner: &'s mut S) -> Self {
        Seam {
            inner,
            state: SeamState::Plain,
        }
    }

    /// Releases a held space that no ⟨bow⟩ followed.
    pub(super) fn finish(&mut self) {
        if let SeamState::Held { markers, len } = self.state {
            self.inner.push(' ');
            markers[..len].iter().for_each(|&m| self.inner.push(m));
        }
        self.state = SeamState::Plain;
    }
}

impl<S: Sink> Sink for Seam<'_, S> {
    #[inline]
    fn push(&mut self, c: char) {
        match self.state {
            SeamState::AfterEow if c == ' ' => {
                self.state = SeamState::Held {
                    markers: [' '; 2],
                    len: 0,
                };
                return;
            }
            SeamState::Held {
                mut markers,
                mut len,
            } => {
                if (c == SHIFT || c == CAPS) && len < markers.len() {
                    markers[len] = c;
                    len += 1;
                    self.state = SeamState::Held { markers, len };
                    return;
                }
                if c == BOW {
                    markers[..len].iter().for_each(|&m| self.inner.push(m));
                    self.inner.push(BOW);
                    self.state = SeamState::Plain;
                    return;
                }
                self.finish();
            }
            _ => {}
        }
        self.inner.push(c);
        self.state = if c == EOW {
            SeamState::AfterEow
        } else {
            SeamState::Plain
        };
    }

    /// Once plain, ASCII leaves the seam plain (only ⟨eow⟩ changes it): the rest of an ASCII
    /// body goes through whole. (One copy, called once a run, rather than one inlined where
    /// each kind of run is written.)
    #[inline(never)]
    fn push_str(&mut self, s: &str) {
        let mut chars = s.chars();
        while !matches!(self.state, SeamState::Plain) {
            match chars.next() {
                Some(c) => self.push(c),
                None => return,
            }
        }
        let rest = chars.as_str();
        if rest.is_ascii() {
            self.inner.push_str(rest);
        } else {
            rest.chars().for_each(|c| self.push(c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn low_bytes_reads_any_stretch_of_any_slice() {
        let all: Vec<u8> = (1..=40).collect();
        for size in 0..=all.len() {
            let bytes = &all[..size];
            for start in 0..=size {
                for len in 0..=STRETCH_MAX.min(size - start) {
                    let mut expected = [0; 16];
                    expected[..len].copy_from_slice(&bytes[start..start + len]);
                    let got = low_bytes(bytes, start, len).to_le_bytes();
                    assert_eq!(got, expected, "size {size}, start {start}, len {len}");
                }
            }
        }
    }

    impl Sink for String {
        fn push(&mut self, c: char) {
            String::push(self, c)
        }
    }

    /// The stream in ctok's public notation, for readable expectations.
    pub(super) fn stream(text: &str, allcaps_min: Option<usize>) -> String {
        let mut out = String::new();
        let mut seam = Seam::new(&mut out);
        write(
            text,
            text.starts_with(' '),
            StreamRules {
                allcaps_min,
                words_stand_alone: false,
                digits_stand_alone: false,
            },
            &mut seam,
        );
        seam.finish();
        out.replace(BOW, "⟨bow⟩")
            .replace(EOW, "⟨eow⟩")
            .replace(SHIFT, "⟨shift⟩")
            .replace(CAPS, "⟨caps⟩")
    }

    #[test]
    pub(super) fn words_seams_and_punctuation() {
        // ctok's README example.
        assert_eq!(
            stream("hello, world", Some(4)),
            "⟨bow⟩hello⟨eow⟩,⟨eow⟩⟨bow⟩world⟨eow⟩"
        );
        assert_eq!(stream("a! b", Some(4)), "⟨bow⟩a⟨eow⟩!⟨eow⟩⟨bow⟩b⟨eow⟩");
        assert_eq!(stream("a!b", Some(4)), "⟨bow⟩a⟨eow⟩!⟨bow⟩b⟨eow⟩");
        // Two spaces are no seam.
        assert_eq!(stream("a  b", Some(4)), "⟨bow⟩a⟨eow⟩  ⟨bow⟩b⟨eow⟩");
    }

    #[test]
    pub(super) fn case_markers_by_family() {
        assert_eq!(
            stream("NASA likes Tokens", Some(4)),
            "⟨caps⟩⟨bow⟩nasa⟨eow⟩⟨bow⟩likes⟨eow⟩⟨shift⟩⟨bow⟩tokens⟨eow⟩"
        );
        // v4.7 has no ⟨caps⟩; short all-caps and inner capitals stay literal.
        assert_eq!(stream("NASA", None), "⟨bow⟩NASA⟨eow⟩");
        assert_eq!(stream("WiFi QQ", Some(4)), "⟨bow⟩WiFi⟨eow⟩⟨bow⟩QQ⟨eow⟩");
    }

    #[test]
    pub(super) fn contractions_and_heads() {
        assert_eq!(stream("it's", Some(4)), "⟨bow⟩it⟨eow⟩'s⟨eow⟩");
        // A single leading space is the frame's; a digit head gets the frame's ⟨bow⟩ written.
        assert_eq!(stream(" a", Some(4)), "⟨bow⟩a⟨eow⟩");
        assert_eq!(stream("42", Some(4)), "⟨bow⟩42");
        assert_eq!(stream("", Some(4)), "⟨bow⟩");
    }
}
