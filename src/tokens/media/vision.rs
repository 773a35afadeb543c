//! What Claude bills for an image of a given size, by the rule Anthropic publishes in its vision
//! guide (<https://platform.claude.com/docs/en/build-with-claude/vision>, "Evaluate image
//! size"): Claude reads an image in patches of 28 x 28 pixels, one visual token each, so an
//! image costs `ceil(width / 28) x ceil(height / 28)` tokens. An image larger than the model's
//! native resolution is first scaled down, keeping its aspect ratio, to the largest size within
//! it. The native resolution is a long edge and a number of patches, by model family:
//!
//! - Opus 4.7 and later (the `claude` tokenizer's family): 2,576 pixels and 4,784 patches
//!   (3,840 x 2,160 is read as 2,576 x 1,449: 92 x 52 patches);
//! - the models before (`claude-v3`'s family, Claude 3 through Opus 4.6): 1,568 pixels and
//!   1,568 patches (about 1.15 megapixels).
//!
//! The older approximation `width x height / 750` (the guide's formula until the patch rule
//! replaced it) differs by a few percent: 1,000 x 1,000 is 1,333 by it, 1,296 patches. The
//! guide does not spell out how the scaled size is rounded; here the long edge is the largest
//! whole number of pixels within both limits and the short edge follows it rounded down, so a
//! resized image may land one row or column of patches from the API's own count.

/// One model family's native resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vision {
    /// How reports name the rule (`countedWith`).
    pub name: &'static str,
    /// The longest edge read, in pixels.
    pub max_edge: u32,
    /// The most patches read.
    pub max_patches: u64,
}

/// The side of a patch, in pixels.
pub const PATCH: u32 = 28;

/// Opus 4.7 and later.
pub const V4_7: Vision = Vision {
    name: "pixels-v4.7",
    max_edge: 2576,
    max_patches: 4784,
};

/// Claude 3 through Opus 4.6.
pub const V3: Vision = Vision {
    name: "pixels-v3",
    max_edge: 1568,
    max_patches: 1568,
};

/// Patches covering `width x height`.
pub fn patches(width: u32, height: u32) -> u64 {
    u64::from(width.div_ceil(PATCH)) * u64::from(height.div_ceil(PATCH))
}

impl Vision {
    /// The size the model reads an image of `width x height` at (both at least 1).
    pub fn seen(&self, width: u32, height: u32) -> (u32, u32) {
        let (width, height) = (width.max(1), height.max(1));
        if width.max(height) <= self.max_edge && patches(width, height) <= self.max_patches {
            return (width, height);
        }
        let (long, short) = (width.max(height), width.min(height));
        // The short edge a long edge of `l` keeps, rounded down, at least one pixel.
        let short_for =
            |l: u32| ((u64::from(short) * u64::from(l) / u64::from(long)) as u32).max(1);
        // Start where the area allows (patches are at least 784 pixels each) and step down:
        // a few steps at most, each one pixel of the long edge.
        let by_area = (self.max_patches as f64 * f64::from(PATCH * PATCH)
            / (f64::from(long) * f64::from(short)))
        .sqrt();
        let mut l = self
            .max_edge
            .min(long)
            .min((f64::from(long) * by_area).ceil() as u32)
            .max(1);
        while l > 1 && patches(l, short_for(l)) > self.max_patches {
            l -= 1;
        }
        let s = short_for(l);
        if width >= height { (l, s) } else { (s, l) }
    }

    /// The tokens an image of `width x height` costs.
    pub fn tokens(&self, width: u32, height: u32) -> u64 {
        let (w, h) = self.seen(width, height);
        patches(w, h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_images_cost_their_patches() {
        assert_eq!(V4_7.tokens(1, 1), 1);
        assert_eq!(V4_7.tokens(20, 20), 1);
        assert_eq!(V4_7.tokens(28, 28), 1);
        assert_eq!(V4_7.tokens(29, 28), 2);
        assert_eq!(V4_7.tokens(1000, 1000), 1296);
        // The guide's screenshot of 1,366 x 639 (w*h/750 said about 1,164).
        assert_eq!(V4_7.tokens(1366, 639), 49 * 23);
        assert_eq!(V3.tokens(1366, 639), 49 * 23);
    }

    #[test]
    fn large_images_are_read_at_the_familys_resolution() {
        // 4K: the long edge limit alone brings it to 92 x 52 patches, the v4.7 limit exactly.
        assert_eq!(V4_7.seen(3840, 2160), (2576, 1449));
        assert_eq!(V4_7.tokens(3840, 2160), 4784);
        // The v3 family reads it at about 1.15 megapixels.
        let (w, h) = V3.seen(3840, 2160);
        assert!(w <= 1568 && patches(w, h) <= 1568, "{w}x{h}");
        assert!(patches(w, h) > 1500, "{w}x{h}");
        assert_eq!(V3.seen(2160, 3840), (h, w));
        // A square over the patch limit but within the edge limit.
        let (w, h) = V4_7.seen(2400, 2400);
        assert_eq!(w, h);
        assert!(patches(w, h) <= 4784 && patches(w + 28, h + 28) > 4784);
    }

    #[test]
    fn every_size_is_within_both_limits_and_the_largest_that_is() {
        for vision in [V4_7, V3] {
            for (w, h) in [
                (1, 9000),
                (9000, 1),
                (8000, 8000),
                (5000, 37),
                (1568, 1568),
                (2577, 100),
                (3000, 2000),
                (1920, 1080),
            ] {
                let (sw, sh) = vision.seen(w, h);
                assert!(sw.max(sh) <= vision.max_edge, "{w}x{h} -> {sw}x{sh}");
                assert!(
                    patches(sw, sh) <= vision.max_patches,
                    "{w}x{h} -> {sw}x{sh}"
                );
                assert!(sw <= w && sh <= h && sw >= 1 && sh >= 1);
                // The aspect ratio is kept, to a pixel of the short edge.
                let (long, short) = (w.max(h), w.min(h));
                let kept = f64::from(short) * f64::from(sw.max(sh)) / f64::from(long);
                assert!(
                    (kept - f64::from(sw.min(sh))).abs() < 1.0 || sw.min(sh) == 1,
                    "{w}x{h} -> {sw}x{sh}"
                );
            }
        }
    }
}
