//! The revisions of the MCP specification mcpguard speaks, named by their date: the names stay
//! true when the next revision comes. The MCP client, the OAuth client and the proxy all name
//! them, so they sit below all three.

/// The revision without a handshake: every request carries its version in `_meta`.
pub const V2026_07_28: &str = "2026-07-28";
/// The revision mcpguard asks for in `initialize`.
pub const V2025_11_25: &str = "2025-11-25";
/// The revisions that open a session with `initialize` whose handshake mcpguard can complete
/// (the server's answer decides).
pub const HANDSHAKE_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
