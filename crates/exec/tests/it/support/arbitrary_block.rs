//! Arbitrary blocks over real state, shared by the coverage-guided fuzz target
//! (`crates/exec/fuzz`, `cargo +nightly fuzz run apply_block`) and the stable replay test
//! (`tests/it/arbitrary_blocks.rs`, which runs in CI): raw transaction bytes, transfers, deploys of
//! arbitrary source text, and calls of deployed actors with arbitrary handler names and CBOR
//! arguments, all signed by funded keys so they reach execution. Each input also makes a
//! Byzantine proposer of the honest block: three tamperings chosen by the input's hash, from
//! every header field to the order, the transaction list, the size limit and the block's
//! caps ([`tamper`]). [`run`] panics only on a bug: nothing in `execute_block`/`propose`/
//! `verify` may panic, a proposed block must verify, a tampered one must be rejected with the
//! typed error that names the violation, and every committed block must leave a readable state.

use commonware_runtime::{deterministic, Runner as _};
use cowboy_exec::block::{
    apply_genesis, check_all, execute_block, propose, put_in_block_order, verify,
};
use cowboy_exec::header::{env_after, genesis_header};
use cowboy_exec::{BlockEnv, BlockError, BlockState, ChainRules, Parent, TxInvalid};
use cowboy_state::{StateConfig, StateDb};
use cowboy_types::block::{Block, BlockHeader};
use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::tx::Payload;
use cowboy_types::{actor_address, code_hash, keccak256, Address, Hash32, PrivateKey, Transaction};

const COUNTER: &str = include_str!("../../../../../examples/actors/counter.py");
const TOKEN: &str = include_str!("../../../../../examples/actors/token.py");

fn key(i: u8) -> PrivateKey {
    PrivateKey::from_bytes(&keccak256(&[b'k', i % 4]).0).expect("key")
}

/// Funded keys that only the "over the cap" tampering uses, so it adds senders of its own.
fn heavy_key(i: u8) -> PrivateKey {
    PrivateKey::from_bytes(&keccak256(&[b'h', i]).0).expect("key")
}

/// Receives every block's tips.
const PROPOSER: Address = Address([0xEE; 20]);

fn parent_of(header: &BlockHeader) -> Parent<'_> {
    Parent {
        header,
        hash: header.hash(),
    }
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
        let nonce = &mut nonces[usize::from(k)];
        let limits = (10_000 + u64::from(limit) * 30, u64::from(limit));
        let tip = u128::from(h[2] % 2);
        out.push(signed(
            &key(k),
            *nonce,
            to,
            u128::from(h[3]),
            limits,
            tip,
            &payload,
        ));
        *nonce += 1;
    }
    out
}

/// A chain-1 transaction with fee caps of 2 wei a cycle and a cell, signed by `sk`;
/// `limits` are its cycles and cells limits.
fn signed(
    sk: &PrivateKey,
    nonce: u64,
    to: Option<Address>,
    value: u128,
    limits: (u64, u64),
    tip_per_cycle: u128,
    payload: &Payload,
) -> Transaction {
    let mut tx = Transaction {
        chain_id: 1,
        nonce,
        to,
        value,
        cycles_limit: limits.0,
        cells_limit: limits.1,
        max_fee_per_cycle: 2,
        max_fee_per_cell: 2,
        tip_per_cycle,
        tip_per_cell: 0,
        access_list: None,
        payload: payload.encode(),
        signature: None,
    };
    tx.sign(sk).expect("sign");
    tx
}

/// Execute the transactions decoded from `data` over a fresh chain (genesis, then a block
/// deploying the counter and token examples): as a validator executes a proposed list (valid
/// or not, in any order), then as a proposer builds and seals block 2 from the valid ones,
/// which must verify; then as a Byzantine proposer would, tampering with that block in three
/// ways chosen by `data`, each of which `verify` must reject with the typed error naming it.
/// Returns the tamperings applied (numbers below [`TAMPERINGS`]).
pub fn run(data: &[u8]) -> Vec<usize> {
    deterministic::Runner::default().start(|ctx| async move {
        // Basefees of 1 wei, so the transactions' small fee caps reach execution.
        let params = GenesisParams {
            initial_cycle_basefee_wei: 1,
            initial_cell_basefee_wei: 1,
            ..GenesisParams::default()
        };
        let rules = ChainRules {
            chain_id: 1,
            params: &params,
        };
        let mut state = StateDb::open(ctx, &StateConfig::new("fuzz"))
            .await
            .expect("open");
        let alloc: Vec<(Address, u128)> = (0..4)
            .map(key)
            .chain((0..3).map(heavy_key))
            .map(|k| (k.address(), 10u128.pow(22)))
            .collect();
        let mut b = BlockState::new(state.batch());
        apply_genesis(&mut b, &alloc).expect("genesis");
        let root = state.commit(0, b.finish()).await.expect("commit");
        let genesis = genesis_header(&params, 1_000, Hash32(root));

        // Block 1: the two actors the calls target.
        let deploy = |nonce, src: &str, args| {
            let payload = Payload::Deploy {
                source: src.into(),
                salt: Hash32([1; 32]),
                init_args: Value::Array(args),
            };
            signed(&key(0), nonce, None, 0, (2_000_000, 50_000), 0, &payload)
        };
        let setup = vec![
            deploy(0, COUNTER, vec![]),
            deploy(1, TOKEN, vec![Value::Text("F".into()), Value::Uint(1000)]),
        ];
        let setup = check_all(&setup, &params, 1)
            .into_iter()
            .flatten()
            .collect();
        let first = propose(
            &state,
            None,
            rules,
            parent_of(&genesis),
            2_000,
            PROPOSER,
            setup,
            None,
            None,
            Vec::new(),
            &cowboy_exec::block::no_cutoff,
        )
        .await
        .expect("state");
        assert_eq!(first.block.transactions.len(), 2, "{:?}", first.skipped);
        state
            .commit_staged(&first.executed.state)
            .await
            .expect("commit");
        let block1 = first.block.header;
        let me = key(0).address();
        let actors = [
            actor_address(&me, &Hash32([1; 32]), &code_hash(COUNTER)),
            actor_address(&me, &Hash32([1; 32]), &code_hash(TOKEN)),
        ];

        let txs = txs_from(data, &actors);
        let env = env_after(rules, parent_of(&block1), 3_000, PROPOSER);
        // As a validator would: the proposed list, valid or not, in any order (block-level
        // violations: order, lanes, caps, invalid transactions)...
        let mut b = BlockState::new(state.batch());
        let _ = execute_block(
            &mut b,
            &params,
            env,
            &cowboy_exec::system::staking::CheckedVotes::none(),
            &txs,
        )
        .expect("state");
        drop(b);
        // ...and the stateless-valid ones in block order, so execution itself is reached.
        let mut checked: Vec<_> = check_all(&txs, &params, 1).into_iter().flatten().collect();
        put_in_block_order(&env, &mut checked);
        let ordered: Vec<Transaction> = checked.iter().map(|c| c.tx.clone()).collect();
        let mut b = BlockState::new(state.batch());
        let _ = execute_block(
            &mut b,
            &params,
            env,
            &cowboy_exec::system::staking::CheckedVotes::none(),
            &ordered,
        )
        .expect("state");
        drop(b);
        // As a proposer would: skip what is invalid, seal the rest; the block must verify.
        let proposal = propose(
            &state,
            None,
            rules,
            parent_of(&block1),
            3_000,
            PROPOSER,
            checked,
            None,
            None,
            Vec::new(),
            &cowboy_exec::block::no_cutoff,
        )
        .await
        .expect("state");
        let good = proposal.block;
        let verified = verify(&state, None, rules, parent_of(&block1), &good, None)
            .await
            .expect("state")
            .expect("a proposed block verifies");
        assert_eq!(verified.receipts, proposal.executed.receipts);
        // As a Byzantine proposer would: each tampering is rejected, naming what is wrong.
        let pick = keccak256(data).0;
        let mut applied = Vec::new();
        for choice in &pick[..3] {
            let (bad, expected, kind) = tamper(&good, &block1, &env, &params, usize::from(*choice));
            applied.push(kind);
            let err = verify(&state, None, rules, parent_of(&block1), &bad, None)
                .await
                .expect("state")
                .expect_err("a tampered block is invalid");
            assert!(
                expected.matches(&err),
                "tampering {choice}: expected {expected:?}, got {err:?}"
            );
        }
        state.commit_staged(&verified.state).await.expect("commit");
        for a in actors {
            state.account(&a.0).await.expect("readable");
        }
        applied
    })
}

/// What `verify` must answer to a tampered block.
#[derive(Debug)]
enum Expected {
    /// The header field of this name is wrong.
    Field(&'static str),
    /// The transaction at this index is out of the block order.
    OutOfOrder(usize),
    /// The transaction at this index (any index if `None`) is invalid for a reason `ok` accepts.
    Tx(Option<usize>, fn(&TxInvalid) -> bool),
    /// More transactions than a block can hold.
    TooMany,
}

impl Expected {
    fn matches(&self, err: &BlockError) -> bool {
        match (self, err) {
            (Expected::Field(name), err) => field(err) == Some(name),
            (Expected::OutOfOrder(i), BlockError::OutOfOrder { index, .. }) => i == index,
            (Expected::Tx(at, ok), BlockError::Transaction { index, reason }) => {
                at.is_none_or(|i| i == *index) && ok(reason)
            }
            (Expected::TooMany, BlockError::TooManyTransactions { .. }) => true,
            _ => false,
        }
    }
}

/// The header field a [`BlockError`] names, if it names one.
fn field(err: &BlockError) -> Option<&'static str> {
    Some(match err {
        BlockError::ParentHash(_) => "parent_hash",
        BlockError::Height(_) => "height",
        BlockError::TimestampNotAfterParent { .. } => "timestamp_ms",
        BlockError::Randomness(_) => "randomness",
        BlockError::CycleBasefee(_) => "cycle_basefee",
        BlockError::CellBasefee(_) => "cell_basefee",
        BlockError::TxRoot(_) => "tx_root",
        BlockError::ReceiptsRoot(_) => "receipts_root",
        BlockError::CyclesUsed(_) => "cycles_used",
        BlockError::CellsUsed(_) => "cells_used",
        BlockError::StateRoot(_) => "state_root",
        _ => return None,
    })
}

fn flip(h: &mut Hash32) {
    h.0[0] ^= 1;
}

fn full(r: &TxInvalid) -> bool {
    matches!(
        r,
        TxInvalid::BlockFull { meter: "cycles" } | TxInvalid::LaneFull(_)
    )
}

/// Block order of `txs` in `env` (all must pass the stateless checks).
fn in_block_order(env: &BlockEnv, params: &GenesisParams, txs: &[Transaction]) -> Vec<Transaction> {
    let mut checked: Vec<_> = check_all(txs, params, env.chain_id)
        .into_iter()
        .map(|c| c.expect("stateless-valid"))
        .collect();
    put_in_block_order(env, &mut checked);
    checked.into_iter().map(|c| c.tx).collect()
}

/// A first transfer of 1 wei from `sk`.
fn transfer(sk: &PrivateKey, cycles_limit: u64) -> Transaction {
    let to = Some(Address([0x77; 20]));
    signed(sk, 0, to, 1, (cycles_limit, 1_000), 0, &Payload::Transfer)
}

/// How many kinds of tampering [`tamper`] knows: eleven header fields, then the transaction
/// list (order, duplicate, censoring, signature, size, chain, count, cycle cap, balance).
pub const TAMPERINGS: usize = 20;

/// A Byzantine proposer's version of `good` (block 2, child of `parent`, environment `env`):
/// tampering number `choice` (modulo the kinds there are; one that needs more transactions
/// than the block has falls back to a header field), the error `verify` must give, and the
/// kind applied.
fn tamper(
    good: &Block,
    parent: &BlockHeader,
    env: &BlockEnv,
    params: &GenesisParams,
    choice: usize,
) -> (Block, Expected, usize) {
    const HEADER_KINDS: usize = 11;
    const KINDS: usize = TAMPERINGS;
    let mut b = good.clone();
    let n = b.transactions.len();
    let at = |m: usize| (choice / KINDS) % m.max(1);
    let mut kind = choice % KINDS;
    let needs = match kind {
        11 | 13 => 2,
        12 | 14..=16 => 1,
        _ => 0,
    };
    if n < needs {
        kind %= HEADER_KINDS;
    }
    let h = &mut b.header;
    let expected = match kind {
        0 => {
            h.height += 1;
            Expected::Field("height")
        }
        1 => {
            flip(&mut h.parent_hash);
            Expected::Field("parent_hash")
        }
        2 => {
            h.timestamp_ms = parent.timestamp_ms;
            Expected::Field("timestamp_ms")
        }
        3 => {
            flip(&mut h.randomness);
            Expected::Field("randomness")
        }
        4 => {
            h.cycle_basefee += 1;
            Expected::Field("cycle_basefee")
        }
        5 => {
            h.cell_basefee += 1;
            Expected::Field("cell_basefee")
        }
        6 => {
            flip(&mut h.tx_root);
            Expected::Field("tx_root")
        }
        7 => {
            flip(&mut h.receipts_root);
            Expected::Field("receipts_root")
        }
        8 => {
            h.cycles_used += 1;
            Expected::Field("cycles_used")
        }
        9 => {
            h.cells_used += 1;
            Expected::Field("cells_used")
        }
        10 => {
            flip(&mut h.state_root);
            Expected::Field("state_root")
        }
        // From here on the proposer re-seals `tx_root` over the list it made.
        11 => {
            // Any swap breaks the strictly increasing order at the position after the first.
            let i = at(n - 1);
            b.transactions.swap(i, n - 1);
            Expected::OutOfOrder(i + 1)
        }
        12 => {
            let k = at(n);
            let copy = b.transactions[k].clone();
            b.transactions.insert(k + 1, copy);
            Expected::OutOfOrder(k + 1)
        }
        13 => {
            // Censoring one transaction: the sender's next one now has a nonce gap; if it
            // had none, the block is valid but its header no longer matches its execution.
            let k = at(n);
            let sender = b.transactions[k].sender().expect("signed");
            b.transactions.remove(k);
            match b.transactions[k..]
                .iter()
                .position(|t| t.sender().expect("signed") == sender)
            {
                Some(p) => Expected::Tx(Some(k + p), |r| matches!(r, TxInvalid::Nonce { .. })),
                None => Expected::Field("receipts_root"),
            }
        }
        14 => {
            let k = at(n);
            b.transactions[k].signature = None;
            Expected::Tx(Some(k), |r| matches!(r, TxInvalid::Signature(_)))
        }
        15 => {
            let k = at(n);
            b.transactions[k].payload = vec![0; 140_000];
            Expected::Tx(Some(k), |r| matches!(r, TxInvalid::TooLarge { .. }))
        }
        16 => {
            let k = at(n);
            b.transactions[k].chain_id += 1;
            Expected::Tx(Some(k), |r| matches!(r, TxInvalid::WrongChain { .. }))
        }
        17 => {
            let max = usize::try_from(params.max_txs_per_block()).expect("fits");
            b.transactions = vec![transfer(&heavy_key(0), 10_000); max + 1];
            Expected::TooMany
        }
        18 => {
            // Three senders of their own, each with a limit just under the block's cycle cap:
            // whatever else the block holds, they cannot all fit.
            let mut txs = b.transactions.clone();
            txs.extend((0..3).map(|i| transfer(&heavy_key(i), params.block_cycles_cap - 15_000)));
            b.transactions = in_block_order(env, params, &txs);
            Expected::Tx(None, full)
        }
        _ => {
            // A sender with no balance at all, placed where the order puts it.
            let pauper = PrivateKey::from_bytes(&keccak256(b"pauper").0).expect("key");
            let tx = transfer(&pauper, 10_000);
            let mut txs = b.transactions.clone();
            txs.push(tx.clone());
            b.transactions = in_block_order(env, params, &txs);
            let p = b
                .transactions
                .iter()
                .position(|t| *t == tx)
                .expect("placed");
            Expected::Tx(Some(p), |r| {
                full(r) || matches!(r, TxInvalid::InsufficientBalance { .. })
            })
        }
    };
    if kind >= HEADER_KINDS {
        b.header.tx_root = Block::tx_root(&b.transactions);
    }
    (b, expected, kind)
}
