//! mcpguard as a client on the network: the one [`http`] client, the raw JSON-RPC [`mcp`]
//! client (stdio and Streamable HTTP, both eras) and the [`oauth`] client of servers behind a
//! login (DESIGN.md section 10).

pub mod http;
pub mod mcp;
pub mod oauth;
pub mod version;
