//! mcpguard as the OAuth client of a remote MCP server (DESIGN.md section 10): the pure parts
//! of the MCP authorization specification (2025-11-25 and 2026-07-28, basic/authorization) that
//! every entry point shares. [`challenge`] reads a 401 or 403; [`discovery`] says where the
//! protected-resource and authorization-server metadata are and which documents may be used;
//! [`flow`] builds the PKCE authorization request, checks the redirect back (state, RFC 9207
//! `iss`) and shapes the token and registration requests. No printing, no browser, no sockets:
//! the transports around it send what it builds.
//!
//! Not yet wired to any command (issue 27 goes on from here: the fetching, the loopback
//! callback, the token store and its lock, then `audit --oauth`, the stdio bridge and the HTTP
//! proxy's `--oauth`).

pub mod challenge;
pub mod discovery;
pub mod flow;
pub mod session;
