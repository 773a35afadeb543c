//! The read limits: bounds on what mcpguard reads from outside (documents, lines, nesting,
//! cursors), set under `readLimits:` or by `MCPGUARD_MAX_*`, and enforced by every reader.

use crate::json::parse::MAX_NESTING;

/// Bounds on what is read from outside, so that no input can take the memory: each is a
/// setting (`readLimits:` in the config, or its `MCPGUARD_MAX_*` variable), and going past one
/// is an error of the reader (`document::input::InputError`) that names the input and the
/// setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ReadLimits {
    /// The largest document read whole (a `.json` file, standard input, an artifact); a larger
    /// one is refused before it is read.
    pub max_document_bytes: u64,
    /// The longest line of a JSONL file or transcript; a longer one is skipped unread.
    pub max_line_bytes: u64,
    /// The deepest nesting of a JSON document, at most [`MAX_NESTING`] (serde_json's own).
    pub max_nesting: u64,
    /// The longest cursor `paginate`, `chunk` and the proxy read; longer ones are refused
    /// before decoding, and `paginate` never issues one.
    pub max_cursor_bytes: u64,
}

/// The longest cursor read unless the config says otherwise. mcpguard's own cursors are under
/// 400 bytes; the limit leaves room for long orders and filters.
pub const DEFAULT_MAX_CURSOR_BYTES: usize = 4096;

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_document_bytes: 1 << 30,
            max_line_bytes: 256 << 20,
            max_nesting: MAX_NESTING as u64,
            max_cursor_bytes: DEFAULT_MAX_CURSOR_BYTES as u64,
        }
    }
}

impl ReadLimits {
    /// `max_line_bytes` as a length.
    pub fn line_bytes(&self) -> usize {
        usize::try_from(self.max_line_bytes).unwrap_or(usize::MAX)
    }

    /// `max_cursor_bytes` as a length.
    pub fn cursor_bytes(&self) -> usize {
        usize::try_from(self.max_cursor_bytes).unwrap_or(usize::MAX)
    }
}
