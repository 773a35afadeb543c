//! `mcpguard proxy`: the contract applied to a live server's traffic (DESIGN.md section 9).
//!
//! [`policy`] decides, without I/O, what each message becomes; [`shrink`] is its answer to a
//! result over budget and [`more`] the tool it adds to read the rest; [`store`] keeps the
//! full results; [`stdio`] is the transport that moves the bytes, to a command [`launch`]
//! starts (and the [`warden`] ends if the proxy cannot) or, through [`bridge`], to a remote
//! server over Streamable HTTP; [`http`] serves many clients; [`throttle`] keeps a flood of
//! one event from flooding the log. [`gateway`] is one server in front of all of a client's
//! servers, which the same policy serves (DESIGN.md section 12); [`names`] are the names it
//! gives their tools, which the tiered catalog reads back.

pub mod bridge;
pub mod catalog;
pub mod find;
pub mod gateway;
pub mod http;
pub mod launch;
pub mod metrics;
pub mod more;
pub mod names;
pub mod policy;
pub mod ranker;
pub mod result;
pub mod shrink;
pub mod stdio;
pub mod store;
pub mod throttle;
pub mod tiers;
pub mod warden;

pub use policy::Policy;
