//! Claude's current tokenizers, reconstructed offline: the method of ctok 1.3.0 (Sander Land,
//! MIT; PyPI `ctok`), written again in Rust over the two vocabularies it measured against
//! Anthropic's `count_tokens` (data/claude/ctok-*.json, with their licence).
//!
//! A count goes through three steps, one module each:
//! 1. [`normalize`]: NFC, stripped controls and private use, folded spaces and (v3) quotes;
//! 2. [`stream`]: the text rewritten as a marked stream (word, case and boundary markers);
//! 3. [`tiling`]: the minimum-cost tiling of that stream over the vocabulary, with a UTF-8 byte
//!    floor for what no piece covers.
//!
//! The count is the content's tokens: ctok's `token_count(text) - token_count("")`. The message
//! frame belongs to a message, not to a tool result inside one. This reproduces a
//! reconstruction, not an official tokenizer; ctok reports no undercount on 2.3 million measured
//! texts per family, which is what mcpguard's verdicts need.

mod normalize;
mod stream;
mod tiling;

use serde::Deserialize;

use self::stream::{Seam, Sink, StreamRules};
use self::tiling::{Tiler, Vocabulary};
use super::TokenCounter;

/// A reconstructed tokenizer generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Claude 3 through Opus 4.6.
    V3,
    /// Opus 4.7 and later (Opus 4.8 and Sonnet 5 reuse this vocabulary).
    V4_7,
}

impl Family {
    fn data(self) -> &'static str {
        match self {
            Family::V3 => include_str!("../../../data/claude/ctok-v3.json"),
            Family::V4_7 => include_str!("../../../data/claude/ctok-v4_7.json"),
        }
    }
}

/// One family's vocabulary and switches, loaded once per process.
pub struct Claude {
    vocab: Vocabulary,
    fold_quotes: bool,
    rules: StreamRules,
}

/// The embedded vocabulary file, as scripts/ctok-vocab.py writes it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VocabularyFile {
    fold_quotes: bool,
    allcaps_min: Option<usize>,
    contractions: Vec<String>,
    byte_prefixes: Vec<String>,
    pieces: Vec<String>,
}

impl Claude {
    /// Loads a family from the embedded data.
    pub fn load(family: Family) -> Result<Self, String> {
        let file: VocabularyFile =
            serde_json::from_str(family.data()).map_err(|e| e.to_string())?;
        let mut pieces: Vec<Vec<char>> = file.pieces.iter().map(|p| p.chars().collect()).collect();
        // The file stores `'s`; the stream writes the suffix glued to its word end, `'s⟨eow⟩`.
        pieces.extend(
            file.contractions
                .iter()
                .map(|c| c.chars().chain([stream::EOW]).collect()),
        );
        let prefixes = file
            .byte_prefixes
            .iter()
            .map(|hex| decode_hex(hex).ok_or_else(|| format!("byte prefix `{hex}` is not hex")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Claude {
            vocab: Vocabulary::new(pieces, &prefixes)?,
            fold_quotes: file.fold_quotes,
            rules: StreamRules {
                allcaps_min: file.allcaps_min,
            },
        })
    }
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

impl TokenCounter for Claude {
    fn count(&self, text: &str) -> usize {
        let norm = normalize::normalize(text, self.fold_quotes);
        let body = norm.trim_end_matches('\n');
        let mut tiler = Tiler::new(&self.vocab);
        let mut seam = Seam::new(&mut tiler);
        stream::write(body, text.starts_with(' '), self.rules, &mut seam);
        seam.finish();
        // The empty message's stream is the frame's ⟨bow⟩ alone: one token that is not content.
        let mut content = tiler.total().saturating_sub(1) as usize;

        // The frame appends two newlines after the content, and a token may span into them, so
        // a final run of n newlines is tiled as n + 2, less the frame's own last token (the cost
        // is not monotonic: 28 trailing newlines are free on v3, 29 cost one).
        let trailing = norm.len() - body.len();
        if trailing > 0 {
            let mut tail = Tiler::new(&self.vocab);
            (0..trailing + 2).for_each(|_| tail.push('\n'));
            content += tail.total().saturating_sub(1) as usize;
        }
        content
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_families_load_and_count_like_ctok() {
        let v3 = Claude::load(Family::V3).unwrap();
        let v47 = Claude::load(Family::V4_7).unwrap();
        // ctok 1.3.0: token_count(text, family) - token_count("", family).
        for (text, want_v3, want_v47) in [
            ("hello, world", 2, 3),
            ("it's", 1, 1),
            ("NASA likes Tokens", 3, 8),
            (" a", 0, 0),
            ("42", 1, 1),
            ("\n\n\n", 0, 0),
            ("", 0, 0),
        ] {
            assert_eq!(v3.count(text), want_v3, "v3 {text:?}");
            assert_eq!(v47.count(text), want_v47, "v4.7 {text:?}");
        }
    }
}
