//! What an image, audio or document block costs the model. An image is counted by its pixels
//! as Claude bills them ([`vision`]), its size read from its header ([`image_size`]); where no
//! rule is published (audio, PDFs, a tokenizer that is not Claude's) or the header does not
//! read, a block costs the flat `mediaTokens`, and the cost says which and why.

pub mod image_size;
pub mod vision;

use serde::Serialize;

use self::image_size::ImageSize;
use self::vision::Vision;
use super::Tokenizer;

/// How media blocks are priced for one count: the vision rule of the tokenizer's family (if it
/// is one of Claude's) and the flat figure for everything that rule does not cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MediaRule {
    vision: Option<Vision>,
    flat: u64,
}

/// What one media block costs, and how that was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaCost {
    pub tokens: u64,
    /// The image's size as its header gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// The size the model reads it at, when the family's rule scales it down.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seen_as: Option<[u32; 2]>,
    /// `pixels-v4.7`, `pixels-v3` or `mediaTokens`.
    pub counted_with: &'static str,
    /// Why a block costs the flat figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'static str>,
}

/// How a flat count names itself.
pub const FLAT: &str = "mediaTokens";

impl MediaRule {
    /// The rule `tokenizer` counts media by: the vision rule of its Claude family (`auto` and
    /// `claude-fast` estimate `claude`, so they are its family), else the flat figure.
    pub fn new(tokenizer: Tokenizer, flat: u64) -> Self {
        let vision = match tokenizer {
            Tokenizer::Auto | Tokenizer::Claude | Tokenizer::ClaudeFast => Some(vision::V4_7),
            Tokenizer::ClaudeV3 => Some(vision::V3),
            Tokenizer::ClaudeLegacy
            | Tokenizer::Heuristic
            | Tokenizer::O200k
            | Tokenizer::Cl100k => None,
        };
        MediaRule { vision, flat }
    }

    /// Every block at the flat figure: what a client's own estimate does.
    pub fn flat(flat: u64) -> Self {
        MediaRule { vision: None, flat }
    }

    /// What a block of `mime` whose base64 data is `data` costs.
    pub fn cost(&self, mime: &str, data: &str) -> MediaCost {
        self.price(&Block::read(mime, data))
    }

    /// What a block already read costs: a count that prices one block by several rules, or
    /// measures it for a verdict too, reads its header once.
    pub fn price(&self, block: &Block) -> MediaCost {
        let flat = |note| MediaCost {
            tokens: self.flat,
            width: None,
            height: None,
            seen_as: None,
            counted_with: FLAT,
            note: Some(note),
        };
        let size = match block.kind {
            Kind::Audio => return flat("Claude publishes no token rule for audio"),
            Kind::Pdf => {
                return flat(
                    "Claude publishes no per-page rule for PDFs (their text plus an image a page)",
                );
            }
            Kind::Unreadable { claims_image: true } => {
                return flat("the image's header is not a PNG, JPEG, GIF or WebP one");
            }
            Kind::Unreadable {
                claims_image: false,
            } => return flat("not an image"),
            Kind::Image(size) => size,
        };
        let Some(vision) = self.vision else {
            return MediaCost {
                width: Some(size.width),
                height: Some(size.height),
                ..flat("no Claude vision rule for this tokenizer")
            };
        };
        price(vision, size)
    }
}

/// A media block as its cost depends on it: what it is, and an image's size from its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub kind: Kind,
}

/// What a media block is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Audio,
    Pdf,
    /// An image (whatever MIME type it claims), by its header.
    Image(ImageSize),
    /// No header read: `claims_image` when its MIME type says it is one.
    Unreadable {
        claims_image: bool,
    },
}

impl Block {
    /// Reads a block of `mime` whose base64 data is `data` (the header only, and only when
    /// the MIME type leaves it a possible image).
    pub fn read(mime: &str, data: &str) -> Block {
        let mime = mime.trim().to_ascii_lowercase();
        let kind = if mime.starts_with("audio/") {
            Kind::Audio
        } else if mime == "application/pdf" {
            Kind::Pdf
        } else {
            image_size::read(data).map_or(
                Kind::Unreadable {
                    claims_image: mime.starts_with("image/"),
                },
                Kind::Image,
            )
        };
        Block { kind }
    }

    /// The image's size, when it is one.
    pub fn image(&self) -> Option<ImageSize> {
        match self.kind {
            Kind::Image(size) => Some(size),
            _ => None,
        }
    }
}

fn price(vision: Vision, size: ImageSize) -> MediaCost {
    let seen = vision.seen(size.width, size.height);
    MediaCost {
        tokens: vision::patches(seen.0, seen.1),
        width: Some(size.width),
        height: Some(size.height),
        seen_as: (seen != (size.width, size.height)).then_some([seen.0, seen.1]),
        counted_with: vision.name,
        note: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAABQAAAAUCAYAAACNiR0NAAAAAElFTkSuQmCC";

    #[test]
    fn each_family_counts_by_its_rule_and_the_others_flat() {
        let png = TINY_PNG;
        let cost = MediaRule::new(Tokenizer::Claude, 1600).cost("image/png", png);
        assert_eq!((cost.tokens, cost.counted_with), (1, "pixels-v4.7"));
        assert_eq!((cost.width, cost.height), (Some(20), Some(20)));
        let cost = MediaRule::new(Tokenizer::ClaudeV3, 1600).cost("image/png", png);
        assert_eq!((cost.tokens, cost.counted_with), (1, "pixels-v3"));
        let cost = MediaRule::new(Tokenizer::O200k, 1600).cost("image/png", png);
        assert_eq!((cost.tokens, cost.counted_with), (1600, FLAT));
        assert_eq!(cost.width, Some(20));
        assert_eq!(MediaRule::flat(1600).cost("image/png", png).tokens, 1600);
    }

    #[test]
    fn what_has_no_rule_says_why() {
        let rule = MediaRule::new(Tokenizer::Claude, 1600);
        for (mime, data, why) in [
            ("audio/wav", "UklGRg==", "audio"),
            ("application/pdf", "JVBERi0=", "PDF"),
            ("image/png", "aGVsbG8=", "header"),
            ("application/octet-stream", "aGVsbG8=", "not an image"),
        ] {
            let cost = rule.cost(mime, data);
            assert_eq!((cost.tokens, cost.counted_with), (1600, FLAT), "{mime}");
            assert!(cost.note.unwrap().contains(why), "{mime}: {:?}", cost.note);
        }
        // An image is read by its header, whatever MIME type a blob claims.
        assert_eq!(rule.cost("application/octet-stream", TINY_PNG).tokens, 1);
    }
}
