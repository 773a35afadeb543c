//! `mcpguard install`'s core: where each client keeps its servers ([`clients`]) and the edit
//! that puts mcpguard in front of them in place, keeping the rest of the file ([`edit`]).

pub mod clients;
pub mod edit;
