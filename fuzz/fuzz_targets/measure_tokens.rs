//! Fuzz target: mcpguard::fuzz::measure_tokens (see that function for what it reads and asserts).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpguard::fuzz::measure_tokens(data));
