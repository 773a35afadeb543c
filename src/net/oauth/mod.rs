//! mcpguard as the OAuth client of a remote MCP server (DESIGN.md section 10): the pure parts
//! of the MCP authorization specification (2025-11-25 and 2026-07-28, basic/authorization) that
//! every entry point shares. [`challenge`] reads a 401 or 403; [`discovery`] says where the
//! protected-resource and authorization-server metadata are and which documents may be used;
//! [`flow`] builds the PKCE authorization request, checks the redirect back (state, RFC 9207
//! `iss`) and shapes the token and registration requests. No printing, no browser, no sockets:
//! the transports around it send what it builds.
//!
//! [`session`] runs a login over HTTP (the redirect through the caller's user agent), refreshes
//! and steps up; [`store`] keeps logins between processes (0600 files, a lock per server), so
//! that `audit --oauth`, `mcpguard auth`, the stdio bridge (`proxy --url`) and the HTTP proxy's
//! `--oauth` share one login.

pub mod challenge;
pub mod discovery;
pub mod flow;
pub mod session;
pub mod store;
