//! Benchmark: secp256k1 public-key recovery, the bulk of a transaction's stateless check, on
//! libsecp256k1 (what `Signature::recover` uses) against k256 (`Signature::recover_with_k256`),
//! both in the same run on the same signatures. Rounds alternate between the two so load on
//! the machine falls on both alike; the fastest round of each is kept. Prints µs per recovery
//! and the ratio; asserts only that both recover the signer.
//!
//! ```text
//! cargo bench -p cowboy-types --bench recover
//! ```

use cowboy_types::{keccak256, PrivateKey, Signature};
use std::time::{Duration, Instant};

const SIGNATURES: usize = 1_000;
const ROUNDS: usize = 7;

fn main() {
    // Deterministic keys and messages: key i is keccak256("key" ‖ i), message keccak256(i).
    let signed: Vec<_> = (0..SIGNATURES as u32)
        .map(|i| {
            let seed = keccak256(&[b"key".as_slice(), &i.to_le_bytes()].concat());
            let key = PrivateKey::from_bytes(&seed.0).expect("a valid key");
            let hash = keccak256(&i.to_le_bytes());
            let sig = key.sign_hash(&hash).expect("sign");
            (key.address(), hash, sig)
        })
        .collect();
    let time = |recover: fn(&Signature, &cowboy_types::Hash32) -> bool| {
        let start = Instant::now();
        for (_, hash, sig) in &signed {
            assert!(recover(sig, hash));
        }
        start.elapsed()
    };
    for (address, hash, sig) in &signed {
        assert_eq!(sig.recover(hash).as_ref(), Ok(address));
        assert_eq!(sig.recover_with_k256(hash).as_ref(), Ok(address));
    }
    let (mut lib, mut k256) = (Duration::MAX, Duration::MAX);
    for _ in 0..ROUNDS {
        lib = lib.min(time(|s, h| s.recover(h).is_ok()));
        k256 = k256.min(time(|s, h| s.recover_with_k256(h).is_ok()));
    }
    let per = |d: Duration| d.as_secs_f64() * 1e6 / SIGNATURES as f64;
    println!("recovery of {SIGNATURES} signatures, best of {ROUNDS} alternating rounds:");
    println!(
        "  libsecp256k1 (Signature::recover)           {:7.1} µs each",
        per(lib)
    );
    println!(
        "  k256         (Signature::recover_with_k256) {:7.1} µs each",
        per(k256)
    );
    println!(
        "  k256 / libsecp256k1: {:.2}x",
        k256.as_secs_f64() / lib.as_secs_f64()
    );
}
