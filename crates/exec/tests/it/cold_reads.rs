//! Execution on the tokio runtime over a state much larger than the page cache: every account
//! read misses the cache and goes to disk through `spawn_blocking`. Execution drives those
//! reads with `block_on` from inside a tokio task, which never yields, so without opting out
//! of tokio's cooperative budget the ~128th read would spin forever (`src/state.rs`). The
//! block runs on a watchdog thread so a regression fails the test instead of hanging CI.

use std::num::NonZeroUsize;
use std::sync::mpsc;
use std::time::Duration;

use commonware_runtime::{tokio as cw_tokio, Runner as _};
use cowboy_exec::block::{apply_genesis, execute_block};
use cowboy_exec::fees::Basefees;
use cowboy_exec::{BlockEnv, BlockState};
use cowboy_state::{StateConfig, StateDb};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::tx::Payload;
use cowboy_types::{keccak256, Address, PrivateKey, Transaction};

const ACCOUNTS: u64 = 20_000;
const TXS: u64 = 400;

fn filler(i: u64) -> Address {
    let h = keccak256(&i.to_be_bytes());
    let mut a = [0u8; 20];
    a.copy_from_slice(&h.0[..20]);
    Address(a)
}

fn run() -> usize {
    let dir = std::env::temp_dir().join(format!("cowboy-cold-reads-{}", std::process::id()));
    let cfg = cw_tokio::Config::new().with_storage_directory(&dir);
    let receipts = cw_tokio::Runner::new(cfg).start(|context| async move {
        let params = GenesisParams::default();
        let config = StateConfig {
            // 64 KiB of cache for a state of megabytes: nearly every read goes to disk.
            cache_pages: NonZeroUsize::new(16).expect("nonzero"),
            ..StateConfig::new("cold")
        };
        let mut state = StateDb::open(context, &config).await.expect("open");
        let key = PrivateKey::from_bytes(&keccak256(b"cold-reads-sender").0).expect("key");
        let mut batch = BlockState::new(state.batch());
        let mut alloc: Vec<(Address, u128)> = (0..ACCOUNTS).map(|i| (filler(i), 1)).collect();
        alloc.push((key.address(), 10u128.pow(24)));
        apply_genesis(&mut batch, &alloc).expect("genesis");
        state.commit(0, batch.finish()).await.expect("commit");
        state.prune().await.expect("prune");

        // Transfers to accounts spread over the whole state.
        let txs: Vec<Transaction> = (0..TXS)
            .map(|n| {
                let mut t = Transaction {
                    chain_id: 1,
                    nonce: n,
                    to: Some(filler(n * (ACCOUNTS / TXS))),
                    value: 1,
                    cycles_limit: 10_000,
                    cells_limit: 20_000,
                    max_fee_per_cycle: 10,
                    max_fee_per_cell: 10,
                    tip_per_cycle: 1,
                    tip_per_cell: 0,
                    access_list: None,
                    payload: Payload::Transfer.encode(),
                    signature: None,
                };
                t.sign(&key).expect("sign");
                t
            })
            .collect();
        let env = BlockEnv {
            chain_id: 1,
            height: 1,
            timestamp_ms: 1000,
            proposer: Address([0xEE; 20]),
            randomness: keccak256(b"r"),
            basefees: Basefees { cycle: 1, cell: 1 },
            parent_cycles_used: 0,
        };
        let mut batch = BlockState::new(state.batch());
        let out = execute_block(
            &mut batch,
            &params,
            env,
            &cowboy_exec::system::staking::CheckedVotes::none(),
            &txs,
        )
        .expect("state")
        .expect("valid block");
        assert!(out.receipts.iter().all(|r| r.success));
        let receipts = out.receipts.len();
        state.commit(1, batch.finish()).await.expect("commit");
        receipts
    });
    let _ = std::fs::remove_dir_all(&dir);
    receipts
}

#[test]
fn a_block_of_cold_reads_on_tokio_completes() {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run());
    });
    // Generous: the block takes well under a second; this only turns a livelock into a failure.
    match rx.recv_timeout(Duration::from_secs(300)) {
        Ok(n) => assert_eq!(n, TXS as usize),
        Err(e) => panic!("block execution on tokio did not finish: {e}"),
    }
}
