//! The fuzz target's body on the stable toolchain, so CI runs it: every input of the committed
//! fuzz corpus (`fuzz/corpus/apply_block/`, minimized from coverage-guided runs) and inputs
//! generated from a fixed LCG, some built to decode into the transaction kinds the driver knows
//! (so they reach execution) and some random bytes. Each must execute and commit without a
//! panic, its proposed block must verify, and three tampered versions of it (a Byzantine
//! proposer's) must each be rejected with the typed error naming what is wrong (see
//! `support/arbitrary_block.rs`).

use crate::support::arbitrary_block;

use std::path::Path;

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn byte(&mut self) -> u8 {
        self.next() as u8
    }
}

/// Fragments the generated bodies draw from: Python that deploys (or fails to), handler names
/// of the example actors, CBOR argument lists, and garbage.
const BODIES: &[&[u8]] = &[
    b"class A:\n    def __init__(self):\n        self.storage['n'] = 1\n",
    b"while True:\n    pass\n",
    b"import os\n",
    b"def f(:\n",
    b"x = [0] * 10**9\n",
    b"increment\x00\x80",
    b"transfer\x00\x82\x54\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x05",
    b"get\x00",
    b"balance_of\x00\x81\x40",
    b"no_such_handler\x00\xff\xff",
    b"__init__\x00\x80",
    b"\x00\x00\x00\x00\x00",
    b"\xf8\x6b\x80\x84\x3b\x9a\xca\x00",
];

fn generated(rng: &mut Lcg) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..1 + rng.next() % 6 {
        let body: Vec<u8> = if rng.next().is_multiple_of(4) {
            (0..rng.next() % 64).map(|_| rng.byte()).collect()
        } else {
            BODIES[(rng.next() as usize) % BODIES.len()].to_vec()
        };
        let len = body.len() as u16;
        out.extend_from_slice(&[
            rng.byte(),
            rng.byte(),
            rng.byte(),
            rng.byte(),
            (len >> 8) as u8,
            len as u8,
        ]);
        out.extend_from_slice(&body);
    }
    out
}

#[test]
fn committed_fuzz_corpus_executes_without_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/apply_block");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the committed corpus")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "empty corpus at {}", dir.display());
    for f in files {
        let _ = arbitrary_block::run(&std::fs::read(&f).expect("read"));
    }
}

/// Generated inputs, each also tampered with three ways; together they apply every kind of
/// tampering, so no rejection path goes untested.
#[test]
fn generated_blocks_execute_and_every_tampering_is_rejected() {
    let mut rng = Lcg(0xC0B0);
    let mut applied = [0u32; arbitrary_block::TAMPERINGS];
    for _ in 0..300 {
        let data = generated(&mut rng);
        for kind in arbitrary_block::run(&data) {
            applied[kind] += 1;
        }
    }
    assert!(
        applied.iter().all(|n| *n > 0),
        "tamperings applied: {applied:?}"
    );
}
