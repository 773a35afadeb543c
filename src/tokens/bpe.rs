//! Byte-pair encoders: Claude's legacy BPE (`@anthropic-ai/tokenizer`, made for the models
//! before Claude 3, kept for comparison) and OpenAI's o200k and cl100k (tiktoken-rs).

use base64::Engine as _;
use rustc_hash::FxHashMap;
use tiktoken_rs::CoreBPE;
use unicode_normalization::UnicodeNormalization as _;

use super::TokenCounter;

/// A byte-pair encoder and how to prepare text for it.
pub(super) struct Bpe {
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
    pub(super) fn openai(core: &'static CoreBPE) -> Self {
        Bpe {
            core: BpeCore::Shared(core),
            claude_rules: false,
        }
    }

    pub(super) fn claude_legacy() -> Self {
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

const CLAUDE_JSON: &str = include_str!("../../data/claude/claude.json");

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
pub(super) fn claude_core() -> Result<CoreBPE, String> {
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
