//! Benchmark: proof verification by `cowboy-proof-verifier` against commonware-storage's own
//! QMDB verifier (the real peer), on the same proofs in the same run, plus proof generation and
//! block commit cost for scale. Run with
//! `CARGO_TARGET_DIR=/work/target-state cargo bench -p cowboy-state --bench verify`.
//! It prints a table; it asserts nothing about speed.

use std::time::Instant;

use commonware_runtime::{deterministic, Runner as _};
use cowboy_proof_verifier::proof::StateProof;
use cowboy_state::verifier::{self, keys, Account};
use cowboy_state::{StateConfig, StateDb};

#[path = "../tests/it/support/commonware.rs"]
mod commonware;

const ACCOUNTS: u32 = 20_000;
const PER_BLOCK: u32 = 500;
const PROOFS: u32 = 500;
const ROUNDS: u32 = 20;

fn addr(i: u32) -> [u8; 20] {
    let mut a = [0u8; 20];
    a[..4].copy_from_slice(&i.to_be_bytes());
    a[4..8].copy_from_slice(&i.wrapping_mul(2_654_435_761).to_be_bytes());
    a
}

fn main() {
    deterministic::Runner::default().start(|context| async move {
        let mut state = StateDb::open(context, &StateConfig::new("bench"))
            .await
            .expect("open");
        let started = Instant::now();
        let blocks = ACCOUNTS / PER_BLOCK;
        for height in 0..u64::from(blocks) {
            let mut batch = state.batch();
            for j in 0..PER_BLOCK {
                let i = height as u32 * PER_BLOCK + j;
                let a = Account {
                    balance: u128::from(i),
                    ..Account::default()
                };
                batch.set_account(&addr(i), &a).await.expect("set");
            }
            let changes = batch.finish();
            state.commit(height, changes).await.expect("commit");
        }
        let commit = started.elapsed();
        let root = state.root().expect("root");

        let started = Instant::now();
        let mut proofs = Vec::new();
        for p in 0..PROOFS {
            let key = keys::account_key(&addr(p * (ACCOUNTS / PROOFS)));
            let (value, proof) = state.prove_key(&key).await.expect("prove");
            proofs.push((key, value.expect("present"), proof));
        }
        let prove = started.elapsed();
        let encoded: Vec<Vec<u8>> = proofs.iter().map(|(_, _, p)| p.encode()).collect();

        let started = Instant::now();
        for _ in 0..ROUNDS {
            for ((key, value, _), bytes) in proofs.iter().zip(&encoded) {
                verifier::verify_key(&root, key, Some(value), bytes).expect("ours");
            }
        }
        let ours = started.elapsed();

        let started = Instant::now();
        for _ in 0..ROUNDS {
            for (key, value, proof) in &proofs {
                let proof: &StateProof = proof;
                assert!(commonware::commonware_verdict(&root, key, Some(value), proof));
            }
        }
        let theirs = started.elapsed();

        let n = f64::from(PROOFS * ROUNDS);
        let digests: usize = proofs.iter().map(|(_, _, p)| p.op.digests.len()).sum();
        println!("state: {ACCOUNTS} accounts in {blocks} blocks of {PER_BLOCK}");
        println!(
            "commit          {:>10.1} us/block",
            commit.as_secs_f64() * 1e6 / f64::from(blocks)
        );
        println!(
            "prove           {:>10.1} us/proof",
            prove.as_secs_f64() * 1e6 / f64::from(PROOFS)
        );
        println!(
            "verify cowboy   {:>10.2} us/proof (decode + verify, {:.1} digests/proof, {} bytes avg)",
            ours.as_secs_f64() * 1e6 / n,
            digests as f64 / f64::from(PROOFS),
            encoded.iter().map(Vec::len).sum::<usize>() / encoded.len()
        );
        println!(
            "verify commonware {:>8.2} us/proof (same proofs, commonware-storage 2026.10.0)",
            theirs.as_secs_f64() * 1e6 / n
        );
    });
}
