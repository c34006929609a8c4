//! Conformance of `cowboy-proof-verifier` with commonware-storage's own QMDB verifier: every
//! proof the state emits is rebuilt as commonware's `KeyValueProof` / `ExclusionProof` and
//! checked by both verifiers, intact and after targeted tampering (digests, leaf count,
//! inactive peaks, chunk, partial digest, ops root, location, claimed value). The two must give
//! the same answer every time — the verifier is a re-derivation, and this is its reference.

use commonware_runtime::{deterministic, Runner as _};
use cowboy_proof_verifier::proof::StateProof;
use cowboy_state::verifier::{self, keys, Account};
use cowboy_state::{StateConfig, StateDb};

use crate::support::commonware::commonware_verdict;

fn addr(i: u32) -> [u8; 20] {
    let mut a = [0u8; 20];
    a[..4].copy_from_slice(&i.to_be_bytes());
    a
}

fn ours(root: &[u8; 32], key: &[u8], claimed: Option<&[u8]>, p: &StateProof) -> bool {
    verifier::verify_key(root, key, claimed, &p.encode()).is_ok()
}

/// Variants of a valid proof, each with one field damaged.
fn tampered(p: &StateProof) -> Vec<StateProof> {
    let mut out = Vec::new();
    for i in 0..p.op.digests.len() {
        let mut t = p.clone();
        t.op.digests[i][0] ^= 1;
        out.push(t);
    }
    let mut t = p.clone();
    t.op.digests.reverse();
    out.push(t);
    for delta in [1u64, 256] {
        let mut t = p.clone();
        t.op.leaves += delta;
        out.push(t);
        let mut t = p.clone();
        t.op.leaves = t.op.leaves.saturating_sub(delta);
        out.push(t);
    }
    let mut t = p.clone();
    t.op.inactive_peaks += 1;
    out.push(t);
    let mut t = p.clone();
    t.op.inactive_peaks = t.op.inactive_peaks.saturating_sub(1);
    out.push(t);
    let mut t = p.clone();
    t.op.loc ^= 1;
    out.push(t);
    let mut t = p.clone();
    t.op.chunk[31] ^= 0x80;
    out.push(t);
    let mut t = p.clone();
    t.op.partial_chunk_digest = match t.op.partial_chunk_digest {
        Some(_) => None,
        None => Some([0; 32]),
    };
    out.push(t);
    let mut t = p.clone();
    t.op.ops_root[5] ^= 4;
    out.push(t);
    out
}

#[test]
fn cowboy_and_commonware_verifiers_agree() {
    deterministic::Runner::default().start(|context| async move {
        let mut state = StateDb::open(context, &StateConfig::new("conf"))
            .await
            .expect("open");
        let (mut agreed, mut accepted) = (0u64, 0u64);
        for height in 0..120u64 {
            let mut batch = state.batch();
            for j in 0..(1 + height % 9) as u32 {
                let i = (height as u32 * 7 + j * 3) % 150;
                let a = Account {
                    balance: u128::from(height),
                    nonce: u64::from(j),
                    ..Account::default()
                };
                batch.set_account(&addr(i), &a).await.expect("set");
            }
            if height % 4 == 3 {
                batch
                    .delete_account(&addr((height as u32 * 11) % 150))
                    .await
                    .expect("del");
            }
            let changes = batch.finish();
            state.commit(height, changes).await.expect("commit");
            if height % 50 == 49 {
                state.prune().await.expect("prune");
            }
            let root = state.root().expect("root");
            for probe in [0u32, 13, (height as u32 * 7) % 150, 149, 5000] {
                let key = keys::account_key(&addr(probe));
                let (value, proof) = state.prove_key(&key).await.expect("prove");
                let claimed = value.as_deref();
                assert!(
                    commonware_verdict(&root, &key, claimed, &proof),
                    "commonware rejects"
                );
                assert!(ours(&root, &key, claimed, &proof), "we reject");
                accepted += 1;
                // The wrong claim for the same proof.
                let wrong: Option<&[u8]> = match claimed {
                    Some(_) => None,
                    None => Some(b"x"),
                };
                assert_eq!(
                    commonware_verdict(&root, &key, wrong, &proof),
                    ours(&root, &key, wrong, &proof)
                );
                for t in tampered(&proof) {
                    assert_eq!(
                        commonware_verdict(&root, &key, claimed, &t),
                        ours(&root, &key, claimed, &t),
                        "verdicts differ at height {height} probe {probe}: {:?}",
                        t.op
                    );
                    agreed += 1;
                }
            }
        }
        assert!(
            accepted >= 600 && agreed > 5000,
            "accepted {accepted} agreed {agreed}"
        );
    });
}
