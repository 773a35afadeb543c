//! Making a response fit: the operations `summarize`, `paginate` and `chunk` run, the signed
//! [`cursor`] that pages and chunks carry (DESIGN.md section 4), and the [`artifact`] store
//! that keeps a full result when only a part of it is sent.

pub mod artifact;
pub mod chunk;
pub mod cursor;
pub mod paginate;
pub mod summarize;
