//! Arbitrary blocks over real state, shared by the coverage-guided fuzz target
//! (`crates/exec/fuzz`, `cargo +nightly fuzz run apply_block`) and the stable replay test
//! (`tests/arbitrary_blocks.rs`, which runs in CI): raw transaction bytes, transfers, deploys of
//! arbitrary source text, and calls of deployed actors with arbitrary handler names and CBOR
//! arguments, all signed by funded keys so they reach execution. [`run`] panics only on a
//! bug: nothing in `execute_block`/`build_block` may panic, and every committed block must
//! leave a readable state.

use commonware_runtime::{deterministic, Runner as _};
use cowboy_exec::block::{
    apply_genesis, build_block, check_all, execute_block, put_in_block_order,
};
use cowboy_exec::fees::Basefees;
use cowboy_exec::{BlockEnv, BlockState};
use cowboy_state::{StateConfig, StateDb};
use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::tx::Payload;
use cowboy_types::{actor_address, code_hash, keccak256, Address, Hash32, PrivateKey, Transaction};

const COUNTER: &str = include_str!("../../../../examples/actors/counter.py");
const TOKEN: &str = include_str!("../../../../examples/actors/token.py");

fn key(i: u8) -> PrivateKey {
    PrivateKey::from_bytes(&keccak256(&[b'k', i % 4]).0).expect("key")
}

fn take<'a>(data: &mut &'a [u8], n: usize) -> &'a [u8] {
    let n = n.min(data.len());
    let (head, tail) = data.split_at(n);
    *data = tail;
    head
}

fn txs_from(mut data: &[u8], actors: &[Address]) -> Vec<Transaction> {
    let mut out = Vec::new();
    let mut nonces = [1u64, 0, 0, 0];
    while data.len() >= 6 && out.len() < 16 {
        let h = take(&mut data, 6);
        let (kind, k, limit) = (h[0] % 4, h[1] % 4, u16::from_be_bytes([h[2], h[3]]));
        let len = usize::from(u16::from_be_bytes([h[4], h[5]]) % 512);
        let body = take(&mut data, len);
        if kind == 0 {
            if let Ok(tx) = Transaction::decode(body) {
                out.push(tx);
            }
            continue;
        }
        let (to, payload) = match kind {
            1 => (Some(Address([h[3]; 20])), Payload::Transfer),
            2 => (
                None,
                Payload::Deploy {
                    source: String::from_utf8_lossy(body).into_owned(),
                    salt: Hash32([h[2]; 32]),
                    init_args: Value::Array(vec![]),
                },
            ),
            _ => {
                let split = body.iter().position(|b| *b == 0).unwrap_or(body.len());
                let handler = String::from_utf8_lossy(&body[..split]).into_owned();
                let args = match cbor::decode(body.get(split + 1..).unwrap_or(&[])) {
                    Ok(v @ (Value::Array(_) | Value::Map(_))) => v,
                    _ => Value::Array(vec![Value::Text(handler.clone())]),
                };
                let target = actors[usize::from(h[2]) % actors.len()];
                (Some(target), Payload::Call { handler, args })
            }
        };
        let sk = key(k);
        let mut tx = Transaction {
            chain_id: 1,
            nonce: nonces[usize::from(k)],
            to,
            value: u128::from(h[3]),
            cycles_limit: 10_000 + u64::from(limit) * 30,
            cells_limit: u64::from(limit),
            max_fee_per_cycle: 2,
            max_fee_per_cell: 2,
            tip_per_cycle: u128::from(h[2] % 2),
            tip_per_cell: 0,
            access_list: None,
            payload: payload.encode(),
            signature: None,
        };
        if tx.sign(&sk).is_ok() {
            nonces[usize::from(k)] += 1;
            out.push(tx);
        }
    }
    out
}

/// Execute the transactions decoded from `data` in a block over a fresh chain (genesis, then a
/// block deploying the counter and token examples), once as a validator (the list as proposed)
/// and once as a proposer (valid ones committed), then read the touched accounts back.
pub fn run(data: &[u8]) {
    deterministic::Runner::default().start(|ctx| async move {
        let params = GenesisParams::default();
        let mut state = StateDb::open(ctx, &StateConfig::new("fuzz"))
            .await
            .expect("open");
        let alloc: Vec<(Address, u128)> =
            (0..4).map(|i| (key(i).address(), 10u128.pow(22))).collect();
        let mut b = BlockState::new(state.batch());
        apply_genesis(&mut b, &alloc).expect("genesis");
        state.commit(0, b.finish()).await.expect("commit");
        let basefees = Basefees { cycle: 1, cell: 1 };
        let env = |height| BlockEnv {
            chain_id: 1,
            height,
            timestamp_ms: height * 1000,
            proposer: Address([0xEE; 20]),
            randomness: keccak256(&height.to_be_bytes()),
            basefees,
        };
        // Block 1: the two actors the calls target.
        let deploy = |nonce, src: &str, args| {
            let mut tx = Transaction {
                chain_id: 1,
                nonce,
                to: None,
                value: 0,
                cycles_limit: 2_000_000,
                cells_limit: 50_000,
                max_fee_per_cycle: 2,
                max_fee_per_cell: 2,
                tip_per_cycle: 0,
                tip_per_cell: 0,
                access_list: None,
                payload: Payload::Deploy {
                    source: src.into(),
                    salt: Hash32([1; 32]),
                    init_args: Value::Array(args),
                }
                .encode(),
                signature: None,
            };
            tx.sign(&key(0)).expect("sign");
            tx
        };
        let setup = vec![
            deploy(0, COUNTER, vec![]),
            deploy(1, TOKEN, vec![Value::Text("F".into()), Value::Uint(1000)]),
        ];
        let mut b = BlockState::new(state.batch());
        let setup = check_all(&setup, &params, 1)
            .into_iter()
            .flatten()
            .collect();
        let built = build_block(&mut b, &params, env(1), setup).expect("state");
        assert_eq!(built.included.len(), 2);
        state.commit(1, b.finish()).await.expect("commit");
        let me = key(0).address();
        let actors = [
            actor_address(&me, &Hash32([1; 32]), &code_hash(COUNTER)),
            actor_address(&me, &Hash32([1; 32]), &code_hash(TOKEN)),
        ];

        let txs = txs_from(data, &actors);
        // As a validator would: the proposed list, valid or not, in any order (block-level
        // violations: order, lanes, caps, invalid transactions)...
        let mut b = BlockState::new(state.batch());
        let _ = execute_block(&mut b, &params, env(2), &txs).expect("state");
        drop(b);
        // ...and the stateless-valid ones in block order, so execution itself is reached.
        let mut checked: Vec<_> = check_all(&txs, &params, 1).into_iter().flatten().collect();
        put_in_block_order(&env(2), &mut checked);
        let ordered: Vec<Transaction> = checked.iter().map(|c| c.tx.clone()).collect();
        let mut b = BlockState::new(state.batch());
        let _ = execute_block(&mut b, &params, env(2), &ordered).expect("state");
        drop(b);
        // As a proposer would: skip what is invalid, commit the rest, read it back; the block
        // it built must verify.
        let mut b = BlockState::new(state.batch());
        let built = build_block(&mut b, &params, env(2), checked).expect("state");
        assert_eq!(built.outcome.receipts.len(), built.included.len());
        drop(b);
        let included: Vec<Transaction> = built.included.iter().map(|c| c.tx.clone()).collect();
        let mut b = BlockState::new(state.batch());
        let verified = execute_block(&mut b, &params, env(2), &included)
            .expect("state")
            .expect("a built block verifies");
        assert_eq!(verified, built.outcome);
        state.commit(2, b.finish()).await.expect("commit");
        for a in actors {
            state.account(&a.0).await.expect("readable");
        }
    });
}
