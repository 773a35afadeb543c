//! `claude-fast`: an estimate of the `claude` count from character classes, in one pass.
//!
//! The text is read as runs: alphanumeric runs (words, numbers, identifiers, and the long
//! random-looking runs of base64 and hex), punctuation, spaces, newlines, and non-ASCII text by
//! script. Each run adds to a handful of features, and the estimate is a weighted sum of them
//! with weights fitted to `claude` on realistic texts (`cargo run --release --example
//! fit_claude_fast` refits them and prints the accuracy). The weights of base64, hex and
//! non-Latin scripts are set from the highest ratio measured, not the mean, so that those texts
//! are never under-estimated by much: the verdicts that matter go through `auto`, which counts
//! exactly near a limit, but a fast count should still lean high.

use super::TokenCounter;

/// What the estimate reads from a text.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Features {
    /// Letter runs in ordinary words and identifiers.
    pub words: u32,
    /// Letters in them.
    pub letters: u32,
    /// Lower-to-upper steps inside a word (`camelCase`): each tends to start a token.
    pub humps: u32,
    /// Digit runs, and digits (pieces hold up to three).
    pub numbers: u32,
    pub digits: u32,
    /// ASCII punctuation, and runs of it.
    pub punct: u32,
    pub punct_runs: u32,
    /// Runs of two or more spaces or tabs (indentation), and newline runs.
    pub indents: u32,
    pub newlines: u32,
    /// Characters in long random-looking runs: base64-like, and hex.
    pub base64: u32,
    pub hex: u32,
    /// Non-ASCII characters by UTF-8 length and script.
    pub two_byte: u32,
    pub cjk: u32,
    pub hangul: u32,
    pub other_bmp: u32,
    pub astral: u32,
}

impl Features {
    pub const NAMES: [&'static str; 16] = [
        "words",
        "letters",
        "humps",
        "numbers",
        "digits",
        "punct",
        "punct_runs",
        "indents",
        "newlines",
        "base64",
        "hex",
        "two_byte",
        "cjk",
        "hangul",
        "other_bmp",
        "astral",
    ];

    pub fn values(&self) -> [f64; 16] {
        [
            self.words,
            self.letters,
            self.humps,
            self.numbers,
            self.digits,
            self.punct,
            self.punct_runs,
            self.indents,
            self.newlines,
            self.base64,
            self.hex,
            self.two_byte,
            self.cjk,
            self.hangul,
            self.other_bmp,
            self.astral,
        ]
        .map(f64::from)
    }
}

/// The fitted weights, in [`Features::NAMES`] order (see the module doc for how to refit).
pub const WEIGHTS: [f64; 16] = [
    1.0, 0.05, 0.8, 0.7, 0.25, 0.6, 0.3, 1.0, 1.0, 0.75, 0.6, 0.5, 0.9, 1.0, 1.0, 2.5,
];

/// The estimator.
pub struct ClaudeFast;

impl TokenCounter for ClaudeFast {
    fn count(&self, text: &str) -> usize {
        estimate(&features(text.as_bytes()))
    }
}

/// The weighted sum, rounded up.
pub fn estimate(f: &Features) -> usize {
    let sum: f64 = f.values().iter().zip(WEIGHTS).map(|(v, w)| v * w).sum();
    sum.ceil() as usize
}

const LOWER: u8 = 1;
const UPPER: u8 = 2;
const DIGIT: u8 = 3;
const PUNCT: u8 = 4;
const BLANK: u8 = 5; // space or tab
const NEWLINE: u8 = 6;
const HIGH: u8 = 7; // a non-ASCII byte
const OTHER: u8 = 0; // controls

const CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c.is_ascii_lowercase() {
            LOWER
        } else if c.is_ascii_uppercase() {
            UPPER
        } else if c.is_ascii_digit() {
            DIGIT
        } else if c.is_ascii_punctuation() {
            PUNCT
        } else if c == b' ' || c == b'\t' {
            BLANK
        } else if c == b'\n' || c == b'\r' {
            NEWLINE
        } else if c >= 0x80 {
            HIGH
        } else {
            OTHER
        };
        b += 1;
    }
    t
};

fn is_alnum(class: u8) -> bool {
    matches!(class, LOWER | UPPER | DIGIT)
}

/// A run of letters and digits this long, mixing both, reads as encoded data, not words.
const RANDOM_RUN: usize = 16;

/// Reads the features of `bytes` (UTF-8) in one pass.
pub fn features(bytes: &[u8]) -> Features {
    let mut f = Features::default();
    let n = bytes.len();
    let mut i = 0;
    while i < n {
        let class = CLASS[usize::from(bytes[i])];
        let start = i;
        i += 1;
        match class {
            LOWER | UPPER | DIGIT => {
                while i < n && is_alnum(CLASS[usize::from(bytes[i])]) {
                    i += 1;
                }
                alnum_run(&bytes[start..i], &mut f);
            }
            PUNCT => {
                while i < n && CLASS[usize::from(bytes[i])] == PUNCT {
                    i += 1;
                }
                f.punct += (i - start) as u32;
                f.punct_runs += 1;
            }
            BLANK => {
                while i < n && CLASS[usize::from(bytes[i])] == BLANK {
                    i += 1;
                }
                f.indents += u32::from(i - start >= 2);
            }
            NEWLINE => {
                while i < n && CLASS[usize::from(bytes[i])] == NEWLINE {
                    i += 1;
                }
                f.newlines += 1;
            }
            HIGH => {
                // One codepoint: its lead byte says its length, and for three bytes, its block.
                let lead = bytes[start];
                let len = match lead {
                    0xF0.. => 4,
                    0xE0.. => 3,
                    _ => 2,
                };
                i = (start + len).min(n);
                match len {
                    2 => f.two_byte += 1,
                    4 => f.astral += 1,
                    _ => match lead {
                        // U+3000..U+9FFF: CJK symbols, kana, CJK unified ideographs.
                        0xE3..=0xE9 => f.cjk += 1,
                        // U+A000..U+D7FF: mostly Hangul syllables.
                        0xEA..=0xED => f.hangul += 1,
                        _ => f.other_bmp += 1,
                    },
                }
            }
            _ => {}
        }
    }
    f
}

/// One run of ASCII letters and digits: words and numbers, or encoded data.
fn alnum_run(run: &[u8], f: &mut Features) {
    let (mut digits, mut letters, mut hex_letters) = (0usize, 0usize, 0usize);
    for &b in run {
        match b {
            b'0'..=b'9' => digits += 1,
            b'a'..=b'f' | b'A'..=b'F' => {
                letters += 1;
                hex_letters += 1
            }
            _ => letters += 1,
        }
    }
    let mixed = digits > 0 && letters > 0;
    if mixed && hex_letters == letters && run.len() >= 8 {
        f.hex += run.len() as u32;
        return;
    }
    if mixed && run.len() >= RANDOM_RUN {
        f.base64 += run.len() as u32;
        return;
    }
    // Words, numbers and the humps between them.
    let mut prev = OTHER;
    for &b in run {
        let class = CLASS[usize::from(b)];
        match class {
            DIGIT => {
                f.digits += 1;
                f.numbers += u32::from(prev != DIGIT);
            }
            _ => {
                f.letters += 1;
                if prev != LOWER && prev != UPPER {
                    f.words += 1;
                } else if prev == LOWER && class == UPPER {
                    f.humps += 1;
                }
            }
        }
        prev = class;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_become_features() {
        let f = features(b"parseJSON 42  x\n\n{\"a\":1}");
        assert_eq!((f.words, f.humps, f.numbers), (3, 1, 2));
        assert_eq!((f.indents, f.newlines, f.punct_runs), (1, 1, 3));
        let f = features(b"9f86d081884c7d65 iVBORw0KGgoAAAANSUhEUg");
        assert_eq!((f.hex, f.base64, f.words), (16, 22, 0));
        let f = features("日本語 한국어 😀 é".as_bytes());
        assert_eq!((f.cjk, f.hangul, f.astral, f.two_byte), (3, 3, 1, 1));
    }

    #[test]
    fn empty_is_zero() {
        assert_eq!(ClaudeFast.count(""), 0);
    }
}
