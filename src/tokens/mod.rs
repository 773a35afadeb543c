//! Token counters behind one trait, and the names users pick them by.
//!
//! - `claude` (Opus 4.7 and later) and `claude-v3` (Claude 3 through Opus 4.6) reproduce ctok
//!   1.3.0's offline reconstruction of Claude's tokenizers ([`claude`]): exact against ctok,
//!   which itself matches Anthropic's `count_tokens` on the millions of texts it measured. They
//!   are a reconstruction, not an official tokenizer.
//! - `claude-fast` estimates `claude`: a model of character classes in one pass at GB/s
//!   ([`fast`]), scaled on each response by the exact count of a few windows of it
//!   ([`calibrated`]).
//! - `auto`, the default, is `claude-fast`, and the exact `claude` count wherever the estimate
//!   lands near a limit that decides a verdict ([`Tokenizer::needs_exact`]): exact where it
//!   matters, fast where it does not. `claude-fast` counts a response of up to 2 KB of text
//!   exactly, and says so.
//! - `claude-legacy` is the BPE of `@anthropic-ai/tokenizer`, made for the models before Claude 3
//!   (it undercounts today's models); `heuristic` is the seed's R001 rule, for budgeting exactly
//!   as the seed's servers do; `o200k` and `cl100k` are OpenAI's encodings.
//!
//! Claude's tables are laid out when mcpguard is compiled and read in place (microseconds);
//! the BPE tables (legacy, o200k, cl100k) are built once per process, on first use, so a run
//! that never counts with them never pays for them.

mod bpe;
pub mod calibrated;
pub mod claude;
pub mod fast;
pub mod media;

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use self::bpe::Bpe;
use self::claude::{Claude, Family};

/// Counts the tokens of a text. Implementations are cheap to call from many threads.
pub trait TokenCounter: Send + Sync {
    fn count(&self, text: &str) -> usize;
}

/// The counters mcpguard knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Tokenizer {
    #[default]
    Auto,
    Claude,
    ClaudeV3,
    ClaudeFast,
    ClaudeLegacy,
    Heuristic,
    O200k,
    Cl100k,
}

/// How far (as a fraction of the limit) a `claude-fast` estimate may land from a limit before
/// `auto` stops trusting it and counts exactly. On the 371 texts claude-fast was measured on
/// (examples/fit_claude_fast.rs) the error of its class model alone against `claude` stays
/// within -31% and +41%, so an estimate further than 45% from a limit is on the same side of it
/// as the exact count; the scaled estimate is checked against the band too (see
/// [`calibrated`]).
pub const AUTO_EXACT_BAND: f64 = 0.45;

/// And how many tokens either side of a limit always get the exact count: a relative band is
/// meaningless for a text of a few tokens (the frame absorbs trailing newlines, say), and
/// counting such a text exactly costs nothing.
pub const AUTO_EXACT_SLACK: u64 = 32;

impl Tokenizer {
    /// The counters `estimate --compare` shows, `claude` (the reference) first. `auto` is not
    /// one: it shows one of `claude` and `claude-fast`.
    pub const COMPARED: [Tokenizer; 7] = [
        Tokenizer::Claude,
        Tokenizer::ClaudeV3,
        Tokenizer::ClaudeFast,
        Tokenizer::ClaudeLegacy,
        Tokenizer::Heuristic,
        Tokenizer::O200k,
        Tokenizer::Cl100k,
    ];

    /// Every name: `auto`, then the compared counters.
    pub const ALL: [Tokenizer; 8] = {
        let mut all = [Tokenizer::Auto; 8];
        let mut i = 0;
        while i < Self::COMPARED.len() {
            all[i + 1] = Self::COMPARED[i];
            i += 1;
        }
        all
    };

    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Auto => "auto",
            Tokenizer::Claude => "claude",
            Tokenizer::ClaudeV3 => "claude-v3",
            Tokenizer::ClaudeFast => "claude-fast",
            Tokenizer::ClaudeLegacy => "claude-legacy",
            Tokenizer::Heuristic => "heuristic",
            Tokenizer::O200k => "o200k",
            Tokenizer::Cl100k => "cl100k",
        }
    }

    /// One line on what the counter is, for `--help` and reports.
    pub fn describe(self) -> &'static str {
        match self {
            Tokenizer::Auto => {
                "claude-fast, and the exact claude count near a limit that decides a verdict (default)"
            }
            Tokenizer::Claude => {
                "Claude Opus 4.7 and later (Opus 4.8, Sonnet 5): ctok 1.3.0's reconstruction, exact"
            }
            Tokenizer::ClaudeV3 => "Claude 3 through Opus 4.6: ctok 1.3.0's reconstruction, exact",
            Tokenizer::ClaudeFast => {
                "estimate of claude: character classes at GB/s, scaled by 2 KB counted exactly"
            }
            Tokenizer::ClaudeLegacy => {
                "legacy BPE of @anthropic-ai/tokenizer (pre-Claude 3; undercounts current models)"
            }
            Tokenizer::Heuristic => "seed R001: floor(chars/4) + 20% (what the seed's servers use)",
            Tokenizer::O200k => "OpenAI o200k_base (GPT-4o, GPT-4.1, GPT-5)",
            Tokenizer::Cl100k => "OpenAI cl100k_base (GPT-4, GPT-3.5)",
        }
    }

    /// The counter for this name, built on first use and shared afterwards. For `auto` this is
    /// its fast stage; verdicts go through [`Tokenizer::needs_exact`] as well.
    pub fn counter(self) -> &'static dyn TokenCounter {
        match self {
            Tokenizer::Auto | Tokenizer::ClaudeFast => &fast::ClaudeFast,
            Tokenizer::Claude => claude_family(Family::V4_7),
            Tokenizer::ClaudeV3 => claude_family(Family::V3),
            Tokenizer::ClaudeLegacy => {
                static LEGACY: OnceLock<Bpe> = OnceLock::new();
                LEGACY.get_or_init(Bpe::claude_legacy)
            }
            Tokenizer::Heuristic => &Heuristic,
            Tokenizer::O200k => {
                static O200K: OnceLock<Bpe> = OnceLock::new();
                O200K.get_or_init(|| Bpe::openai(tiktoken_rs::o200k_base_singleton()))
            }
            Tokenizer::Cl100k => {
                static CL100K: OnceLock<Bpe> = OnceLock::new();
                CL100K.get_or_init(|| Bpe::openai(tiktoken_rs::cl100k_base_singleton()))
            }
        }
    }

    /// Builds this counter now, and for `auto` its exact stage too, so that the first count
    /// does not pay for the tables (a BPE's take tens of milliseconds; Claude's are read in
    /// place): a server warms them before it takes requests, not under its first client's.
    pub fn prepare(self) {
        self.counter();
        if self == Tokenizer::Auto {
            Tokenizer::Claude.counter();
        }
    }

    /// For `auto`: is an estimate of `estimate` tokens close enough to one of `limits` that the
    /// verdict needs the exact count? Always false for the other counters, which are what they
    /// are.
    pub fn needs_exact(self, estimate: u64, limits: &[u64]) -> bool {
        self == Tokenizer::Auto
            && limits.iter().any(|&limit| {
                (estimate as f64 - limit as f64).abs()
                    <= AUTO_EXACT_BAND * limit as f64 + AUTO_EXACT_SLACK as f64
            })
    }

    /// The counter that counts first: `claude-fast` for `auto`, else this counter itself.
    fn first_stage(self) -> Tokenizer {
        match self {
            Tokenizer::Auto => Tokenizer::ClaudeFast,
            t => t,
        }
    }

    /// Counts `texts` for a verdict against `limits`, `fixed` tokens (media) added: with `auto`,
    /// exactly when the estimate is near a limit. Returns the count and the counter it came from.
    pub fn count_for_verdict<'t>(
        self,
        texts: impl Iterator<Item = &'t str> + Clone,
        fixed: u64,
        limits: &[u64],
    ) -> (u64, Tokenizer) {
        let counted = self.count_texts(texts, fixed, limits);
        (counted.tokens, counted.by)
    }

    /// [`Tokenizer::count_for_verdict`], with what a later verdict against other limits needs
    /// to know (see [`Counted::settles`]).
    pub fn count_texts<'t>(
        self,
        texts: impl Iterator<Item = &'t str> + Clone,
        fixed: u64,
        limits: &[u64],
    ) -> Counted {
        self.count_texts_with(texts, fixed, limits, calibrated::model)
    }

    /// [`Tokenizer::count_texts`], `claude-fast`'s class model taking each text's estimate from
    /// `model_of` (the ones a count of the same response already made: [`crate::util::text_memo::TextMemo`]).
    pub fn count_texts_with<'t>(
        self,
        texts: impl Iterator<Item = &'t str> + Clone,
        fixed: u64,
        limits: &[u64],
        model_of: impl FnMut(&'t str) -> f64,
    ) -> Counted {
        let stage = self.first_stage();
        let first = if stage == Tokenizer::ClaudeFast {
            // The model's own estimate is what the band is wide enough for, so either estimate
            // near a limit takes the exact count.
            let exact = Tokenizer::Claude.counter();
            let e = calibrated::estimate_unless(texts.clone(), exact, model_of, |model| {
                self.needs_exact(model + fixed, limits)
            });
            Counted {
                tokens: e.tokens + fixed,
                // A small response is counted exactly, and says so.
                by: if e.exact { Tokenizer::Claude } else { stage },
                model: e.model + fixed,
            }
        } else {
            let counter = stage.counter();
            let tokens = texts
                .clone()
                .map(|text| counter.count(text) as u64)
                .sum::<u64>()
                + fixed;
            Counted {
                tokens,
                by: stage,
                model: tokens,
            }
        };
        if self == Tokenizer::Auto && !first.settles(limits) {
            // The exact counter remembers its recent long texts (the proxy counts a page to fit
            // it, then the answer the page is part of): see `claude`.
            let exact = Tokenizer::Claude.counter();
            let tokens = texts.map(|text| exact.count(text) as u64).sum::<u64>() + fixed;
            Counted {
                tokens,
                by: Tokenizer::Claude,
                model: first.model,
            }
        } else {
            first
        }
    }
}

/// A count, the counter it came from, and for `claude-fast` its class model's estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted {
    pub tokens: u64,
    pub by: Tokenizer,
    /// For `auto` and `claude-fast`, the class model's estimate alone; else the count.
    pub model: u64,
}

impl Counted {
    /// The count over the first counter's own: what the parts of the response counted by
    /// [`Tokenizer::counter`] are multiplied by to add up to the count (1 where they are
    /// the same counter).
    pub fn scale(&self) -> f64 {
        if self.model == 0 {
            1.0
        } else {
            self.tokens as f64 / self.model as f64
        }
    }

    /// Whether this count decides a verdict against each of `limits` as the exact `claude`
    /// count would: it is exact, or neither claude-fast estimate lands in `auto`'s band around
    /// any of them (see [`AUTO_EXACT_BAND`] and [`calibrated`]).
    pub fn settles(&self, limits: &[u64]) -> bool {
        match self.by {
            Tokenizer::Claude => true,
            Tokenizer::ClaudeFast => {
                !Tokenizer::Auto.needs_exact(self.tokens, limits)
                    && !Tokenizer::Auto.needs_exact(self.model, limits)
            }
            _ => false,
        }
    }
}

fn claude_family(family: Family) -> &'static Claude {
    static V3: OnceLock<Claude> = OnceLock::new();
    static V4_7: OnceLock<Claude> = OnceLock::new();
    let cell = match family {
        Family::V3 => &V3,
        Family::V4_7 => &V4_7,
    };
    cell.get_or_init(|| {
        Claude::load(family).expect("embedded data/claude/ctok-*.json is valid (unit-tested)")
    })
}

impl fmt::Display for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, thiserror::Error)]
#[error(
    "unknown tokenizer `{0}`; expected one of auto, claude, claude-v3, claude-fast, claude-legacy, heuristic, o200k, cl100k"
)]
pub struct UnknownTokenizer(pub String);

impl FromStr for Tokenizer {
    type Err = UnknownTokenizer;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Tokenizer::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| UnknownTokenizer(s.to_owned()))
    }
}

/// The seed's R001 estimate over a character count.
///
/// Written as the seed writes it, `int(base * 0.20)` in f64, so that it agrees with the Python
/// reference for every count (the two only differ above 2^53 characters, where neither matters).
pub fn heuristic_from_chars(chars: usize) -> usize {
    let base = chars / 4;
    base + (base as f64 * 0.20) as usize
}

/// `floor(chars/4) + floor(0.2 * floor(chars/4))`, chars as Unicode scalar values.
pub struct Heuristic;

impl TokenCounter for Heuristic {
    fn count(&self, text: &str) -> usize {
        // std's `chars().count()` counts non-continuation bytes a word at a time: several GB/s.
        heuristic_from_chars(text.chars().count())
    }
}

/// A seeded xorshift64 generator for the tokenizers' randomized tests: the same numbers every
/// run, with no dependency.
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heuristic_is_the_seed_rule() {
        // Python: base = n // 4; base + int(base * 0.20)
        for (chars, expected) in [(0, 0), (3, 0), (4, 1), (20, 6), (99, 28), (100_000, 30_000)] {
            assert_eq!(heuristic_from_chars(chars), expected, "chars={chars}");
        }
        // Unicode scalar values, not bytes: 8 two-byte chars are 8 chars.
        assert_eq!(Heuristic.count("éééééééé"), 2);
    }

    #[test]
    fn legacy_data_builds_and_counts() {
        let counter = Tokenizer::ClaudeLegacy.counter();
        assert!(counter.count("Hello, world!") > 0);
        assert_eq!(counter.count(""), 0);
    }

    #[test]
    fn names_round_trip() {
        for t in Tokenizer::ALL {
            assert_eq!(t.name().parse::<Tokenizer>().unwrap(), t);
        }
        assert!("gpt2".parse::<Tokenizer>().is_err());
    }

    #[test]
    fn auto_counts_exactly_only_near_a_limit() {
        let auto = Tokenizer::Auto;
        assert!(auto.needs_exact(3_900, &[4_000]));
        assert!(auto.needs_exact(5_700, &[4_000]));
        assert!(!auto.needs_exact(6_000, &[4_000]));
        assert!(auto.needs_exact(14, &[8]));
        assert!(!auto.needs_exact(1_000, &[4_000, 12_000]));
        assert!(!auto.needs_exact(40_000, &[4_000, 12_000]));
        assert!(!Tokenizer::Heuristic.needs_exact(4_000, &[4_000]));

        let text = "The quick brown fox jumps over the lazy dog. ".repeat(100);
        let exact = Tokenizer::Claude.counter().count(&text) as u64;
        let (far, by) = auto.count_for_verdict([text.as_str()].into_iter(), 0, &[exact * 100]);
        assert_eq!(by, Tokenizer::ClaudeFast);
        let calibrated =
            calibrated::estimate([text.as_str()].into_iter(), claude_family(Family::V4_7));
        assert_eq!(far, calibrated.tokens);
        // Near a limit by the class model alone is near enough to count exactly.
        let by_model = auto.count_texts([text.as_str()].into_iter(), 0, &[calibrated.model]);
        assert_eq!((by_model.tokens, by_model.by), (exact, Tokenizer::Claude));
        assert!(far.abs_diff(exact) * 10 <= exact, "{far} {exact}");
        let (near, by) = auto.count_for_verdict([text.as_str()].into_iter(), 0, &[exact]);
        assert_eq!((near, by), (exact, Tokenizer::Claude));
    }
}
