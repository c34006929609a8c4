//! Fuzz `build_block` / `execute_block` with arbitrary transactions over real state. The input
//! decoding and the block driver live in `tests/support/arbitrary_block.rs`, which the stable
//! test `tests/arbitrary_blocks.rs` also runs (on the committed corpus and generated inputs), so
//! what the fuzzer finds stays tested in CI.
#![no_main]

#[path = "../../tests/support/arbitrary_block.rs"]
mod arbitrary_block;

libfuzzer_sys::fuzz_target!(|data: &[u8]| arbitrary_block::run(data));
