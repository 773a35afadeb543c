//! Fuzz target: mcpguard::fuzz::lean_paging (see that function for what it reads and asserts).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpguard::fuzz::lean_paging(data));
