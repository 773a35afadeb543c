//! An image's pixel size, read from the header inside its base64 text: PNG, JPEG, GIF and WebP.
//! Nothing is decoded but the few bytes a header needs (a JPEG's segments are skipped by their
//! lengths), so a 5 MB screenshot costs microseconds and no copy of itself.

use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

/// The image formats Claude reads, by their headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Png,
    Jpeg,
    Gif,
    WebP,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Jpeg => "jpeg",
            Format::Gif => "gif",
            Format::WebP => "webp",
        }
    }
}

/// A header read: the format and the size in pixels, both at least 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageSize {
    pub format: Format,
    pub width: u32,
    pub height: u32,
}

/// The size of the image whose base64 text is `data` (standard or URL-safe alphabet, padded
/// or not, line breaks allowed), or `None` when no PNG, JPEG, GIF or WebP header reads whole.
pub fn read(data: &str) -> Option<ImageSize> {
    let bytes = Base64Bytes::new(data)?;
    let head = bytes.get(0, 30)?;
    let (format, width, height) = if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        png(&head)?
    } else if head.starts_with(b"\xFF\xD8") {
        (Format::Jpeg, 0, 0)
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        gif(&head)?
    } else if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP") {
        webp(&head)?
    } else {
        return None;
    };
    let (width, height) = if format == Format::Jpeg {
        jpeg(&bytes)?
    } else {
        (width, height)
    };
    (width > 0 && height > 0).then_some(ImageSize {
        format,
        width,
        height,
    })
}

fn be16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_be_bytes(
        b.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn le16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_le_bytes(
        b.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn le24(b: &[u8], at: usize) -> Option<u32> {
    let x = b.get(at..at + 3)?;
    Some(u32::from(x[0]) | u32::from(x[1]) << 8 | u32::from(x[2]) << 16)
}

/// The IHDR chunk comes first: width and height, big-endian, at bytes 16 and 20.
fn png(head: &[u8]) -> Option<(Format, u32, u32)> {
    if head.get(12..16)? != b"IHDR" {
        return None;
    }
    let w = u32::from_be_bytes(head.get(16..20)?.try_into().ok()?);
    let h = u32::from_be_bytes(head.get(20..24)?.try_into().ok()?);
    Some((Format::Png, w, h))
}

/// The logical screen: width and height, little-endian, at bytes 6 and 8.
fn gif(head: &[u8]) -> Option<(Format, u32, u32)> {
    Some((Format::Gif, le16(head, 6)?, le16(head, 8)?))
}

/// The first chunk says which of WebP's three headers follows (RFC 9649).
fn webp(head: &[u8]) -> Option<(Format, u32, u32)> {
    let (w, h) = match head.get(12..16)? {
        // Lossy: a key frame's start code, then 14-bit sizes.
        b"VP8 " if head.get(23..26)? == [0x9D, 0x01, 0x2A] => {
            (le16(head, 26)? & 0x3FFF, le16(head, 28)? & 0x3FFF)
        }
        // Lossless: a signature byte, then 14 bits of width - 1 and 14 of height - 1.
        b"VP8L" if *head.get(20)? == 0x2F => {
            let bits = u32::from_le_bytes(head.get(21..25)?.try_into().ok()?);
            ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        }
        // Extended: the canvas, 24 bits each of width - 1 and height - 1.
        b"VP8X" => (le24(head, 24)? + 1, le24(head, 27)? + 1),
        _ => return None,
    };
    Some((Format::WebP, w, h))
}

/// The size in the first start-of-frame segment, found by walking the segments from the
/// start-of-image marker by their lengths. At most `MAX_SEGMENTS` are walked, each a few
/// bytes decoded, so a hostile file costs a bounded time.
fn jpeg(bytes: &Base64Bytes<'_>) -> Option<(u32, u32)> {
    const MAX_SEGMENTS: usize = 4096;
    let mut at = 2;
    for _ in 0..MAX_SEGMENTS {
        let seg = bytes.get(at, 9)?;
        if seg[0] != 0xFF {
            return None;
        }
        let marker = seg[1];
        match marker {
            // Fill bytes before a marker.
            0xFF => at += 1,
            // Markers without a length: TEM, RSTn.
            0x01 | 0xD0..=0xD7 => at += 2,
            // The end of the image or the start of the scan, and no frame header before it.
            0xD9 | 0xDA => return None,
            // SOF0-SOF15, except DHT (C4), JPG (C8) and DAC (CC): height, then width.
            0xC0..=0xCF if !matches!(marker, 0xC4 | 0xC8 | 0xCC) => {
                return Some((be16(&seg, 7)?, be16(&seg, 5)?));
            }
            _ => at += 2 + be16(&seg, 2)? as usize,
        }
    }
    None
}

/// The bytes a base64 text stands for, decoded a few at a time where they are asked for.
struct Base64Bytes<'a> {
    /// The text without line breaks or spaces: borrowed when it has none (the usual case).
    text: std::borrow::Cow<'a, [u8]>,
    engine: &'static GeneralPurpose,
}

/// Padding is optional (some servers leave it off) and a cut group's trailing bits are not
/// the reader's business: only whole bytes before them are read.
const CONFIG: GeneralPurposeConfig = GeneralPurposeConfig::new()
    .with_decode_padding_mode(DecodePaddingMode::Indifferent)
    .with_decode_allow_trailing_bits(true);
static STANDARD: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::STANDARD, CONFIG);
static URL_SAFE: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::URL_SAFE, CONFIG);

impl<'a> Base64Bytes<'a> {
    fn new(data: &'a str) -> Option<Self> {
        let raw = data.as_bytes();
        // Base64 that is wrapped is wrapped at a fixed width (76 for MIME, 64 for PEM): a text
        // with no break in its first KB has none, and a 5 MB image is not scanned whole.
        let head = &raw[..raw.len().min(1024)];
        let text = if memchr::memchr3(b'\n', b'\r', b' ', head).is_some() {
            let clean: Vec<u8> = raw
                .iter()
                .copied()
                .filter(|b| !b.is_ascii_whitespace())
                .collect();
            std::borrow::Cow::Owned(clean)
        } else {
            std::borrow::Cow::Borrowed(raw)
        };
        let url_safe = memchr::memchr2(b'-', b'_', &text[..text.len().min(64)]).is_some();
        let engine = if url_safe { &URL_SAFE } else { &STANDARD };
        Some(Base64Bytes { text, engine })
    }

    /// Bytes `at..at + len`, or `None` past the end or where the text is not base64.
    fn get(&self, at: usize, len: usize) -> Option<Vec<u8>> {
        // Three bytes are four characters: decode the groups that hold the range.
        let first = at / 3;
        let last = (at + len).div_ceil(3);
        let start = first.checked_mul(4)?;
        if start >= self.text.len() {
            return None;
        }
        let end = (last * 4).min(self.text.len());
        let mut chars = &self.text[start..end];
        while let [rest @ .., b'='] = chars {
            chars = rest;
        }
        let decoded = self.engine.decode(chars).ok()?;
        let skip = at - first * 3;
        decoded.get(skip..skip + len).map(<[u8]>::to_vec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    #[test]
    fn bytes_are_read_anywhere_in_the_text() {
        let raw: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let text = b64(&raw);
        let bytes = Base64Bytes::new(&text).unwrap();
        for (at, len) in [(0, 1), (1, 2), (2, 7), (500, 30), (997, 3)] {
            assert_eq!(bytes.get(at, len).unwrap(), raw[at..at + len], "{at} {len}");
        }
        assert!(bytes.get(998, 3).is_none());
        assert!(bytes.get(5000, 1).is_none());
        // Line breaks, as MIME writes them every 76 characters.
        let wrapped: String = text
            .as_bytes()
            .chunks(76)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect::<Vec<_>>()
            .join("\r\n");
        let bytes = Base64Bytes::new(&wrapped).unwrap();
        assert_eq!(bytes.get(600, 20).unwrap(), raw[600..620]);
    }

    #[test]
    fn text_that_is_no_image_has_no_size() {
        for data in ["", "aGVsbG8gd29ybGQ=", "not base64 at all!", "iVBORw0KGgo="] {
            assert_eq!(read(data), None, "{data}");
        }
    }

    #[test]
    fn webps_three_headers_and_a_progressive_jpeg_read() {
        // RFC 9649's layouts, written out: lossy (a key frame's 14-bit sizes), extended (a
        // 24-bit canvas). The lossless one is checked on real files (tests/cli_media.rs).
        let mut lossy = b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0\x10\x02\x00\x9d\x01\x2a".to_vec();
        lossy.extend_from_slice(&1366u16.to_le_bytes());
        lossy.extend_from_slice(&(639u16 | 0x4000).to_le_bytes()); // a scale in the top bits
        let size = read(&b64(&lossy)).unwrap();
        assert_eq!(
            (size.format, size.width, size.height),
            (Format::WebP, 1366, 639)
        );
        let mut extended = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\x10\0\0\0".to_vec();
        extended.extend_from_slice(&(3839u32.to_le_bytes()[..3]));
        extended.extend_from_slice(&(2159u32.to_le_bytes()[..3]));
        let size = read(&b64(&extended)).unwrap();
        assert_eq!((size.width, size.height), (3840, 2160));
        // A progressive JPEG (SOF2) after an EXIF segment of 40 KB.
        let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xE1, 0x9C, 0x42];
        jpeg.resize(jpeg.len() + 0x9C40, 0x00);
        jpeg.extend_from_slice(&[0xFF, 0xC2, 0x00, 0x11, 0x08, 0x08, 0x70, 0x0F, 0x00]);
        let size = read(&b64(&jpeg)).unwrap();
        assert_eq!(
            (size.format, size.width, size.height),
            (Format::Jpeg, 3840, 2160)
        );
    }

    #[test]
    fn a_jpeg_walk_is_bounded() {
        // Start of image, then segments of length 2 forever: no frame header is ever found.
        let mut raw = vec![0xFF, 0xD8];
        for _ in 0..10_000 {
            raw.extend_from_slice(&[0xFF, 0xE1, 0x00, 0x02]);
        }
        assert_eq!(read(&b64(&raw)), None);
    }
}
