//! mcpguard's library: everything that measures, checks and reshapes MCP responses.
//!
//! The core is pure: it reads the inputs it is handed and returns data (documents,
//! measurements, findings, configs). It never prints and never exits, so the `mcpguard`
//! binary, its tests and the proxy drive the same code; printing lives in the binary's
//! `src/cli/`.
//!
//! The modules are layers, listed here from the bottom up; each uses only the ones above it in
//! this list (`tests/architecture.rs` holds the map and checks every import against it):
//!
//! | layer | what it holds |
//! |---|---|
//! | [`util`] | files written whole, line reads with a cap, parallel joins, human numbers |
//! | [`json`] | parsing, the borrowed tree, the node trait, compact and Python forms, pointers |
//! | [`tokens`] | token counters behind one trait: Claude's, the fast estimate, OpenAI's |
//! | [`contract`] | limits, client profiles, the rule catalogue, the telemetry record |
//! | [`config`] | defaults, file, environment, validation, the read limits |
//! | [`document`] | loading documents and recognising what they are: response, result, list |
//! | [`measure`] | one pass over a value: sizes, depth, where the tokens go; the estimate |
//! | [`reshape`] | summarize, paginate, chunk, cursors, artifacts |
//! | [`net`] | the HTTP client, the raw MCP client, the OAuth client |
//! | [`audit`] | the linter, on captured responses and live servers |
//! | [`proxy`] | the policy in front of a live server and its transports |
//! | [`install`] | clients' config files, edited in place |
//!
//! A captured response, read and measured as `mcpguard audit` does before its rules judge it:
//!
//! ```
//! use mcpguard::document::input::parse_text;
//! use mcpguard::measure::shape;
//!
//! let text = r#"{"jsonrpc":"2.0","id":1,"result":{"items":[{"id":1},{"id":2},{"id":3}]}}"#;
//! let doc = parse_text("capture.json", text).remove(0).expect("one JSON document");
//! let longest = shape(&doc.value).longest_array.expect("a list");
//! assert_eq!((longest.pointer.as_str(), longest.len), ("/result/items", 3));
//! ```
//!
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod util;

pub mod json;

pub mod tokens;

pub mod contract;

pub mod config;

pub mod document;

pub mod measure;

pub mod reshape;

pub mod net;

pub mod audit;

pub mod proxy;

pub mod install;

#[doc(hidden)]
pub mod fuzz;
