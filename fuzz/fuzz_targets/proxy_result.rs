//! Fuzz target: mcpguard::fuzz::proxy_result (see that function for what it reads and asserts).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpguard::fuzz::proxy_result(data));
