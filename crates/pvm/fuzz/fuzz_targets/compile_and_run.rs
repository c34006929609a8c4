//! Fuzz target: compile and run arbitrary text with a small budget. Any input must end in
//! success, a Python error, a compile error or an abort — never a panic, hang or stack overflow.
//! Run with `cargo +nightly fuzz run compile_and_run` from crates/pvm.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(src) = std::str::from_utf8(data) {
        let limits = cowboy_pvm::Limits { cycles: Some(20_000), max_depth: 32, memory: 1 << 20, ..Default::default() };
        let _ = cowboy_pvm::run(src, "fuzz.py", limits);
    }
});
