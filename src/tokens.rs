//! Token estimators behind one trait.
//!
//! - `heuristic` is the seed's R001 rule, exactly: `floor(chars / 4) + floor(20% of that)`, chars
//!   counted as Unicode scalar values (what Python's `len(str)` counts). It is the default because
//!   it is what the seed's servers budget with, and it costs one pass over the bytes.
//! - `claude` is the legacy Claude BPE shipped in the npm package `@anthropic-ai/tokenizer`
//!   (`data/claude/claude.json`, MIT), run through tiktoken-rs's `CoreBPE` after NFKC
//!   normalisation, as that package's `countTokens` does. It approximates Claude 3+ models.
//! - `o200k` and `cl100k` are OpenAI's encodings, embedded in tiktoken-rs.
//!
//! The BPE tables are built once per process, on first use, so a run that only needs the
//! heuristic never pays for them.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use base64::Engine as _;
use rustc_hash::FxHashMap;
use tiktoken_rs::CoreBPE;
use unicode_normalization::UnicodeNormalization as _;

/// Counts the tokens of a text. Implementations are cheap to call from many threads.
pub trait TokenCounter: Send + Sync {
    fn count(&self, text: &str) -> usize;
}

/// The estimators mcpguard knows, in the order `--compare` shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Tokenizer {
    #[default]
    Heuristic,
    Claude,
    O200k,
    Cl100k,
}

impl Tokenizer {
    pub const ALL: [Tokenizer; 4] = [
        Tokenizer::Heuristic,
        Tokenizer::Claude,
        Tokenizer::O200k,
        Tokenizer::Cl100k,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Heuristic => "heuristic",
            Tokenizer::Claude => "claude",
            Tokenizer::O200k => "o200k",
            Tokenizer::Cl100k => "cl100k",
        }
    }

    /// One line on what the estimator is, for `--help` and reports.
    pub fn describe(self) -> &'static str {
        match self {
            Tokenizer::Heuristic => "seed R001: floor(chars/4) + 20% margin (default, fastest)",
            Tokenizer::Claude => {
                "legacy Claude BPE (@anthropic-ai/tokenizer); approximates Claude 3+ models"
            }
            Tokenizer::O200k => "OpenAI o200k_base (GPT-4o, GPT-4.1, GPT-5)",
            Tokenizer::Cl100k => "OpenAI cl100k_base (GPT-4, GPT-3.5)",
        }
    }

    /// The counter for this estimator, built on first use and shared afterwards.
    pub fn counter(self) -> &'static dyn TokenCounter {
        static CLAUDE: OnceLock<Bpe> = OnceLock::new();
        match self {
            Tokenizer::Heuristic => &Heuristic,
            Tokenizer::Claude => CLAUDE.get_or_init(Bpe::claude),
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
}

impl fmt::Display for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, thiserror::Error)]
#[error("unknown tokenizer `{0}`; expected one of heuristic, claude, o200k, cl100k")]
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

/// A byte-pair encoder and how to prepare text for it.
struct Bpe {
    core: BpeCore,
    /// Claude's package NFKC-normalises and lets special tokens through; OpenAI's counts treat
    /// every input as ordinary text, as their APIs do for user content.
    claude_rules: bool,
}

enum BpeCore {
    Owned(CoreBPE),
    Shared(&'static CoreBPE),
}

impl Bpe {
    fn openai(core: &'static CoreBPE) -> Self {
        Bpe {
            core: BpeCore::Shared(core),
            claude_rules: false,
        }
    }

    fn claude() -> Self {
        let core = claude_core().expect("embedded data/claude/claude.json is valid (unit-tested)");
        Bpe {
            core: BpeCore::Owned(core),
            claude_rules: true,
        }
    }

    fn core(&self) -> &CoreBPE {
        match &self.core {
            BpeCore::Owned(core) => core,
            BpeCore::Shared(core) => core,
        }
    }
}

impl TokenCounter for Bpe {
    fn count(&self, text: &str) -> usize {
        if !self.claude_rules {
            return self.core().encode_ordinary(text).len();
        }
        // ASCII is already in NFKC form: skip the allocation for the common case.
        if text.is_ascii() {
            self.core().encode_with_special_tokens(text).len()
        } else {
            let normalized: String = text.nfkc().collect();
            self.core().encode_with_special_tokens(&normalized).len()
        }
    }
}

const CLAUDE_JSON: &str = include_str!("../data/claude/claude.json");

#[derive(serde::Deserialize)]
struct ClaudeData {
    pat_str: String,
    special_tokens: FxHashMap<String, u32>,
    bpe_ranks: String,
}

/// Builds Claude's BPE from the package's data.
///
/// `bpe_ranks` is tiktoken's "lite" format: one line per run of consecutive ranks,
/// `<marker> <first rank> <base64 token> <base64 token> ...`.
fn claude_core() -> Result<CoreBPE, String> {
    let data: ClaudeData = serde_json::from_str(CLAUDE_JSON).map_err(|e| e.to_string())?;
    let mut encoder: FxHashMap<Vec<u8>, u32> = FxHashMap::default();
    encoder.reserve(70_000);
    for line in data.bpe_ranks.lines().filter(|l| !l.is_empty()) {
        let mut fields = line.split(' ');
        let _marker = fields.next();
        let first: u32 = fields
            .next()
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| format!("bad rank line: {line:.40}"))?;
        for (i, token) in fields.enumerate() {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(token)
                .map_err(|e| e.to_string())?;
            encoder.insert(bytes, first + i as u32);
        }
    }
    CoreBPE::new(encoder, data.special_tokens, &data.pat_str).map_err(|e| e.to_string())
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
    fn claude_data_builds_and_counts() {
        let counter = Tokenizer::Claude.counter();
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
}
