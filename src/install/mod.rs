//! `mcpguard install`'s core: where each client keeps its servers ([`clients`]) and the edit
//! that puts mcpguard in front of them in place, keeping the rest of the file ([`edit`]), or
//! gathers them behind one gateway entry ([`gateway`]).

pub mod clients;
pub mod edit;
pub mod gateway;
pub mod launcher;
