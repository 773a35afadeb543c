//! Fuzz target: mcpguard::fuzz::live_inputs (see that function for what it reads and asserts).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpguard::fuzz::live_inputs(data));
