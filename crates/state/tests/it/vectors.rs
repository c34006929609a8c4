//! Golden proof vectors shared with `cowboy-proof-verifier`: the state after 30 blocks of the
//! deterministic workload, its root, and proofs of an account, an absent account, a storage
//! entry and an absent storage entry. `cowboy-proof-verifier/tests/vectors.rs` verifies the
//! same file without this crate, so the two crates are checked against one pinned artefact.
//! Regenerate with `COWBOY_WRITE_VECTORS=1 cargo test -p cowboy-state --test it vectors::` only on
//! purpose (a change here changes the proof format or the state layout).

use commonware_runtime::{deterministic, Runner as _};
use cowboy_state::{StateConfig, StateDb};

use crate::support::workload;

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../proof-verifier/tests/vectors.txt"
);

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `name hex` lines describing the golden state and its proofs.
fn generate() -> String {
    deterministic::Runner::default().start(|context| async move {
        let mut state = StateDb::open(context, &StateConfig::new("vectors"))
            .await
            .expect("open");
        for height in 0..30 {
            workload::apply_block(&mut state, height)
                .await
                .expect("apply");
        }
        let root = state.root().expect("root");
        let present = workload::addr(7);
        let absent = workload::addr(4242);
        let (account, account_proof) = state.prove_account(&present).await.expect("prove");
        let account = account.expect("account 7 exists");
        let (none, absent_proof) = state.prove_account(&absent).await.expect("prove");
        assert!(none.is_none());
        // Find a stored slot of account 7 for the storage vector.
        let mut slot = None;
        for s in 0..7 {
            let key = format!("slot{s}");
            if state
                .storage(&present, key.as_bytes())
                .await
                .expect("read")
                .is_some()
            {
                slot = Some(key);
                break;
            }
        }
        let slot = slot.expect("account 7 has a stored slot");
        let (value, storage_proof) = state
            .prove_storage(&present, slot.as_bytes())
            .await
            .expect("prove");
        let value = value.expect("stored");
        let (none, no_storage_proof) = state
            .prove_storage(&present, b"no-such-slot")
            .await
            .expect("prove");
        assert!(none.is_none());
        let lines = [
            ("root", hex(&root)),
            ("account_address", hex(&present)),
            ("account_record", hex(&account.encode())),
            ("account_proof", hex(&account_proof)),
            ("absent_address", hex(&absent)),
            ("absent_proof", hex(&absent_proof)),
            ("storage_key", hex(slot.as_bytes())),
            ("storage_value", hex(&value)),
            ("storage_proof", hex(&storage_proof)),
            ("absent_storage_key", hex(b"no-such-slot")),
            ("absent_storage_proof", hex(&no_storage_proof)),
        ];
        lines.iter().map(|(k, v)| format!("{k} {v}\n")).collect()
    })
}

#[test]
fn prover_output_matches_the_pinned_vectors() {
    let generated = generate();
    if std::env::var_os("COWBOY_WRITE_VECTORS").is_some() {
        std::fs::write(VECTORS, &generated).expect("write vectors");
    }
    let pinned = std::fs::read_to_string(VECTORS).expect("read vectors");
    assert_eq!(
        generated, pinned,
        "proof vectors changed; regenerate only on purpose"
    );
}
