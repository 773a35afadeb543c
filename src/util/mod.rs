//! The bottom layer: small tools every other layer uses, knowing nothing of JSON or MCP.

pub mod dirs;
pub mod fsutil;
pub mod human;
pub mod lines;
pub mod parallel;
pub mod random;
pub mod text_memo;
pub mod utf8;
