//! Fuzz `execute_block` / `propose` / `verify` with arbitrary transactions over real state, and
//! `verify` with a Byzantine proposer's tamperings of the blocks they make. The input
//! decoding and the block driver live in `tests/it/support/arbitrary_block.rs`, which the stable
//! test `tests/it/arbitrary_blocks.rs` also runs (on the committed corpus and generated inputs), so
//! what the fuzzer finds stays tested in CI.
#![no_main]

#[path = "../../tests/it/support/arbitrary_block.rs"]
mod arbitrary_block;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = arbitrary_block::run(data);
});
