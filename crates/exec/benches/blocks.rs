//! Benchmark: executing blocks of (a) transfers and (b) token-transfer actor calls over a
//! state of `BENCH_ACCOUNTS` (default 1,000,000) accounts on disk (commonware tokio runtime,
//! a temporary directory), **including the state commit**, on one core. Reports
//! transactions/s, cycles/s, and where the time goes (execution, which recovers signatures on
//! all cores first; commit), with the cost of recovering every signature on one core as a
//! reference.
//!
//! ```text
//! cargo bench -p cowboy-exec --bench blocks
//! BENCH_ACCOUNTS=100000 BENCH_BLOCKS=3 cargo bench -p cowboy-exec --bench blocks
//! ```
//!
//! The two kinds of block alternate (transfers, token calls, transfers, …), so a slow spell of
//! the machine weighs on both, and the table's first ratio is token calls/s ÷ transfers/s.
//! Transactions are signed before the clock starts. Token calls all go to one token actor, so
//! the benchmark raises `per_actor_per_block_cycles` to the block cap (the default 1,000,000
//! would stop a block after ~100 calls to one actor — a protocol limit, not a speed one). It
//! prints a table and asserts nothing about speed.
//!
//! **Peer engine.** The same process then runs the same token transfers in revm (`erc20/`):
//! the ERC-20 `transfer` of `erc20/Token.sol`, the same work as `token.py`'s `transfer`,
//! deployed by the same key over an in-memory `CacheDB` of the same accounts, sent to the same
//! distinct holders, one `transact_commit` per transaction in order on one thread, with and
//! without a secp256k1 signature recovery per transaction (Cowboy's own). It asserts that every transfer
//! succeeded and checks `balanceOf` afterwards; the table gets revm rows (tx/s, gas/s) and the
//! ratio of Cowboy's token calls/s to revm's. The sides differ in what they include, as the
//! table says: Cowboy's figure includes signature recovery (all cores), the Python VM, fee
//! accounting and the QMDB commit with merkleization on disk; revm's includes EVM execution,
//! its fee accounting and its in-memory commit, no signature, no Merkle root, no disk.
//!
//! `erc20/Token.bin` is the contract's creation bytecode, committed (nothing is downloaded at
//! bench time); regenerate it with the pinned solc (npm `solc@0.8.28`, optimizer, 200 runs):
//!
//! ```text
//! crates/exec/benches/erc20/build.sh
//! ```

use std::time::{Duration, Instant};

/// The allocator cowboyd links.
#[global_allocator]
static ALLOC: std::alloc::System = std::alloc::System;
// mimalloc, as `malloc` (its `override` feature: see the cli crate's Cargo.toml).
use mimalloc as _;

use commonware_runtime::{tokio as cw_tokio, Runner as _};
use cowboy_exec::block::{apply_genesis, execute_block};
use cowboy_exec::fees::Basefees;
use cowboy_exec::{BlockEnv, BlockState};
use cowboy_state::{StateConfig, StateDb};
use cowboy_types::cbor::Value;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::tx::Payload;
use cowboy_types::{actor_address, code_hash, keccak256, Address, Hash32, PrivateKey, Transaction};

const TOKEN: &str = include_str!("../../../examples/actors/token.py");

mod erc20;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn filler(i: u64) -> Address {
    let h = keccak256(&i.to_be_bytes());
    let mut a = [0u8; 20];
    a.copy_from_slice(&h.0[..20]);
    Address(a)
}

fn key(i: u64) -> PrivateKey {
    PrivateKey::from_bytes(&keccak256(format!("bench-key-{i}").as_bytes()).0).expect("key")
}

fn tx(
    k: &PrivateKey,
    nonce: u64,
    to: Option<Address>,
    payload: Payload,
    cycles: u64,
) -> Transaction {
    let mut t = Transaction {
        chain_id: 1,
        nonce,
        to,
        value: 1,
        cycles_limit: cycles,
        cells_limit: 20_000,
        max_fee_per_cycle: 10,
        max_fee_per_cell: 10,
        tip_per_cycle: 1,
        tip_per_cell: 0,
        access_list: None,
        payload: payload.encode(),
        signature: None,
    };
    t.sign(k).expect("sign");
    t
}

struct Timing {
    txs: u64,
    cycles: u64,
    exec: Duration,
    commit: Duration,
    recover: Duration,
}

fn main() {
    let accounts = env_or("BENCH_ACCOUNTS", 1_000_000);
    let blocks = env_or("BENCH_BLOCKS", 5);
    let per_block = env_or("BENCH_TXS_PER_BLOCK", 1_000);
    let dir = std::env::temp_dir().join(format!("cowboy-exec-bench-{}", std::process::id()));
    let cfg = cw_tokio::Config::new().with_storage_directory(&dir);
    let (a, t) = cw_tokio::Runner::new(cfg).start(|context| async move {
        // Blocks five times the default size, so that 1,000 token calls fit the user lane's
        // share of the cap (lanes.rs) and one actor may use it all (the default 1,000,000
        // per actor per block would stop a block after ~30 calls: a protocol limit, not a
        // speed one).
        let params = GenesisParams {
            block_cycles_cap: 100_000_000,
            block_cycles_target: 50_000_000,
            per_actor_per_block_cycles: 100_000_000,
            ..GenesisParams::default()
        };
        let mut state = StateDb::open(context, &StateConfig::new("bench"))
            .await
            .expect("open");
        let senders: Vec<PrivateKey> = (0..per_block).map(key).collect();

        // Genesis: funded senders plus filler accounts up to `accounts`, in chunks.
        let started = Instant::now();
        let chunk = 100_000u64;
        let mut height = 0u64;
        let mut next = 0u64;
        while next < accounts {
            let mut batch = BlockState::new(state.batch());
            let end = (next + chunk).min(accounts);
            let mut alloc = Vec::new();
            for i in next..end {
                let a = if i < per_block {
                    senders[i as usize].address()
                } else {
                    filler(i)
                };
                alloc.push((a, 10u128.pow(24)));
            }
            apply_genesis(&mut batch, &alloc).expect("genesis");
            state.commit(height, batch.finish()).await.expect("commit");
            height += 1;
            next = end;
        }
        state.prune().await.expect("prune");
        println!(
            "state: {accounts} accounts written in {:.1?}",
            started.elapsed()
        );

        let mut basefees = Basefees { cycle: 1, cell: 1 };
        let mut nonces = vec![0u64; per_block as usize];
        let proposer = Address([0xEE; 20]);
        let run =
            |state: &mut StateDb<_>, mut txs: Vec<Transaction>, h: u64, basefees: &mut Basefees| {
                let env = BlockEnv {
                    chain_id: 1,
                    height: h,
                    timestamp_ms: h * 1000,
                    proposer,
                    randomness: keccak256(&h.to_be_bytes()),
                    basefees: *basefees,
                    parent_cycles_used: 0,
                };
                // The block order of the rule (untimed): by keccak256(R ‖ sender), then nonce.
                txs.sort_by_cached_key(|t| {
                    let sender = t.sender().expect("signed");
                    (
                        cowboy_exec::lanes::order_key(&env.randomness, &sender),
                        t.nonce,
                    )
                });
                let t0 = Instant::now();
                for t in &txs {
                    let _ = t.sender();
                }
                let recover = t0.elapsed();
                let t0 = Instant::now();
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
                let exec = t0.elapsed();
                *basefees = Basefees { cycle: 1, cell: 1 };
                let failed = out.receipts.iter().filter(|r| !r.success).count();
                assert_eq!(
                    failed,
                    0,
                    "a benchmark transaction failed: {:?}",
                    out.receipts.iter().find(|r| !r.success)
                );
                (batch.finish(), exec, recover, out.usage.cycles)
            };

        // The token: deployed before either workload is timed.
        let deployer = &senders[0];
        let dep = Payload::Deploy {
            source: TOKEN.to_string(),
            salt: Hash32([1; 32]),
            init_args: Value::Array(vec![Value::Text("Bench".into()), Value::Uint(u64::MAX)]),
        };
        let d = tx(deployer, nonces[0], None, dep, 2_000_000);
        nonces[0] += 1;
        let (changes, _, _, _) = run(&mut state, vec![d], height, &mut basefees);
        state.commit(height, changes).await.expect("commit");
        height += 1;
        let token = actor_address(&deployer.address(), &Hash32([1; 32]), &code_hash(TOKEN));

        // The two workloads alternate block by block, so that both meet the machine in the
        // same state (a busy neighbour, a cold cache, a slow spell) and their ratio is
        // readable from one run.
        let zero = || Timing {
            txs: 0,
            cycles: 0,
            exec: Duration::ZERO,
            commit: Duration::ZERO,
            recover: Duration::ZERO,
        };
        let (mut a, mut t) = (zero(), zero());
        for b in 0..blocks {
            // (a) transfers: each sender to a filler account.
            let transfers: Vec<Transaction> = senders
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    let n = nonces[i];
                    nonces[i] += 1;
                    let to = filler(per_block + (b * per_block + i as u64) % accounts.max(1));
                    tx(k, n, Some(to), Payload::Transfer, 10_000)
                })
                .collect();
            // (b) token transfers: calls from the deployer to distinct holders.
            let calls: Vec<Transaction> = (0..per_block)
                .map(|i| {
                    let n = nonces[0];
                    nonces[0] += 1;
                    let holder = filler(b * per_block + i).to_checksum();
                    let call = Payload::Call {
                        handler: "transfer".into(),
                        args: Value::Array(vec![Value::Text(holder), Value::Uint(1)]),
                    };
                    // Intrinsic 10,000 + the actor's load (~6,600: compilation is metered on
                    // every call) + the transfer (~5,000), with headroom; 19,000 predated the
                    // load charge and every call ran out of cycles; 1,000 such calls fill a
                    // block of the benchmark's cap.
                    tx(deployer, n, Some(token), call, 30_000)
                })
                .collect();
            for (txs, timing) in [(transfers, &mut a), (calls, &mut t)] {
                let (changes, exec, recover, cycles) = run(&mut state, txs, height, &mut basefees);
                let t0 = Instant::now();
                state.commit(height, changes).await.expect("commit");
                timing.commit += t0.elapsed();
                timing.exec += exec;
                timing.recover += recover;
                timing.cycles += cycles;
                timing.txs += per_block;
                height += 1;
            }
        }

        (a, t)
    });
    let _ = std::fs::remove_dir_all(&dir);

    // The peer: the same token transfers in revm, over the same accounts, in this process.
    let deployer = key(0);
    let alloc: Vec<(Address, u128)> = (0..accounts)
        .map(|i| {
            (
                if i < per_block {
                    key(i).address()
                } else {
                    filler(i)
                },
                10u128.pow(24),
            )
        })
        .collect();
    let evm = erc20::run(&alloc, &deployer, filler, blocks, per_block, false);
    let evm_sig = erc20::run(&alloc, &deployer, filler, blocks, per_block, true);
    drop(alloc);

    println!("\n{accounts} accounts, {blocks} blocks × {per_block} transactions, one core\n");
    println!("| workload | tx/s (exec+commit) | cycles/s (Cowboy) or gas/s (EVM) | exec ms/block | sig recovery alone, one core, ms/block | commit ms/block |");
    println!("|---|---|---|---|---|---|");
    for (name, r) in [("transfer", &a), ("token.transfer call", &t)] {
        let total = (r.exec + r.commit).as_secs_f64();
        println!(
            "| {name} | {:.0} | {:.2e} | {:.1} | {:.1} | {:.1} |",
            r.txs as f64 / total,
            r.cycles as f64 / total,
            r.exec.as_secs_f64() * 1000.0 / blocks as f64,
            r.recover.as_secs_f64() * 1000.0 / blocks as f64,
            r.commit.as_secs_f64() * 1000.0 / blocks as f64,
        );
    }
    for (name, r) in [
        ("revm 43 ERC-20 transfer", &evm),
        ("revm 43 ERC-20 transfer + signature recovery", &evm_sig),
    ] {
        let total = r.time.as_secs_f64();
        println!(
            "| {name} | {:.0} | {:.2e} | {:.1} | – | (in exec) |",
            r.txs as f64 / total,
            r.gas as f64 / total,
            total * 1000.0 / blocks as f64,
        );
    }
    let ours = t.txs as f64 / (t.exec + t.commit).as_secs_f64();
    let transfers = a.txs as f64 / (a.exec + a.commit).as_secs_f64();
    println!(
        "\nratio, Cowboy token calls/s ÷ Cowboy transfers/s (blocks alternating): {:.3}",
        ours / transfers
    );
    let theirs = evm.txs as f64 / evm.time.as_secs_f64();
    let theirs_sig = evm_sig.txs as f64 / evm_sig.time.as_secs_f64();
    println!(
        "ratio, Cowboy token calls/s ÷ revm transfers/s: {:.4} (1 : {:.0}); with revm recovering a signature per transaction: {:.3} (1 : {:.1})",
        ours / theirs,
        theirs / ours,
        ours / theirs_sig,
        theirs_sig / ours,
    );
    println!(
        "\nCowboy includes: signature recovery (all cores, before the ordered execution), the \
         Python VM, fee accounting, and the QMDB state commit with merkleization, on disk.\n\
         revm includes: EVM execution with its fee accounting and the commit of each transaction \
         to its in-memory CacheDB; no signature (unless stated: Cowboy's own recovery, \
         libsecp256k1, on this one thread), no Merkle root, nothing on disk."
    );
}
