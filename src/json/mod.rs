//! JSON as mcpguard reads and writes it, below any idea of a response.
//!
//! Two trees and one trait over both: [`parse`] reads text into serde_json's `Value` (and
//! repairs what other tools write, such as lone surrogates), [`borrowed`] reads it into an
//! arena tree whose strings borrow the input, and [`node`] is the trait the measurers walk
//! either with. [`compact`] writes a tree as `JSON.stringify` would, [`python`] measures
//! Python's `json.dumps` form, [`large`] parses a huge tool result in about its own size.
//! [`pointer`] is RFC 6901, [`masks`] and [`whitespace`] look at the bytes without a tree, and
//! [`collection`] says which arrays and objects hold records.

pub mod borrowed;
pub mod collection;
pub mod compact;
pub mod large;
pub mod masks;
pub mod node;
pub mod parse;
pub mod pointer;
pub mod python;
pub mod whitespace;
