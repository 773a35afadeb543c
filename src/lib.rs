//! mcpguard's library: everything that measures, checks and reshapes MCP responses.
//!
//! The core is pure: it reads the inputs it is handed and returns data (documents, measurements,
//! findings, configs). It never prints and never exits, so the `mcpguard` binary, its tests and a
//! future proxy all drive the same code. Printing lives in `src/cli/`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod artifact;
pub mod audit;
pub mod blocking_http;
pub mod chunk;
pub mod collection;
pub mod compact;
pub mod config;
pub mod contract;
pub mod cursor;
pub mod document;
pub mod estimate;
pub mod fsutil;
#[doc(hidden)]
pub mod fuzz;
pub mod human;
pub mod input;
pub mod json_masks;
pub mod json_node;
pub mod json_tree;
pub mod json_view;
pub mod json_whitespace;
pub mod leanjson;
pub mod lines;
pub mod mcp;
pub mod measure;
pub mod oauth;
pub mod paginate;
pub mod parallel;
pub mod pointer;
pub mod proxy;
pub mod pyjson;
pub mod result_text;
pub mod summarize;
pub mod text_memo;
pub mod tokens;
