//! Benchmark: the timer scheduler's per-block cost is flat in the number of pending timers,
//! and how many timer executions a block's timer lane delivers per second (issue 16).
//!
//! ```text
//! cargo bench -p cowboy-exec --bench timers
//! BENCH_TIMERS=100000 BENCH_BLOCKS=30 cargo bench -p cowboy-exec --bench timers
//! ```
//!
//! **Flat cost.** Three chains on disk (commonware tokio runtime, a temporary directory) run
//! the same `BENCH_BLOCKS` blocks, one block of each in turn (so all see the same page cache
//! and load), each block delivering the same `BENCH_DUE_PER_BLOCK` timers of one actor (a
//! handler that increments a stored counter) through the real block lifecycle
//! (`execute_block`, then the state commit):
//!
//! * **none**: nothing else in the state;
//! * **full**: `BENCH_TIMERS` (default 1,000,000) other pending timers of 1,000 actors, due one
//!   every two blocks from just after the measured blocks onwards, so the measured blocks also
//!   migrate epoch and overflow buckets as on a live chain (written with `timers::schedule`,
//!   the code path `set_timer` takes after the VM);
//! * **filler**: as many plain storage entries as those timers write (three each) and no
//!   timers: the control for the state's size, whose cost (deeper Merkle paths, reads that
//!   miss the page cache) every entry of any kind pays.
//!
//! The ratio full / filler isolates the scheduler (goal ≤ 1.2); full / none is printed too.
//! Setup time is reported, not measured.
//!
//! **Lane throughput.** A fourth chain has 2,048 timers due at one height; blocks run until all
//! have fired. The table gives executions per block (bounded by the timer lane, 20% of the
//! cycle cap, with the default bid's 100,000-cycle limit) and executions per second of block
//! time. Nothing is asserted about speed.

use std::time::{Duration, Instant};

/// The allocator cowboyd links.
#[global_allocator]
static ALLOC: std::alloc::System = std::alloc::System;
// mimalloc, as `malloc` (its `override` feature: see the cli crate's Cargo.toml).
use mimalloc as _;

use commonware_runtime::{tokio as cw_tokio, Runner as _, Supervisor as _};
use cowboy_exec::block::{apply_genesis, execute_block};
use cowboy_exec::fees::Basefees;
use cowboy_exec::timers::{schedule, NewTimer};
use cowboy_exec::{BlockEnv, BlockState};
use cowboy_state::{StateConfig, StateDb};
use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::tx::Payload;
use cowboy_types::{actor_address, code_hash, keccak256, Address, Hash32, PrivateKey, Transaction};

const TICKER: &str = r#"
from cowboy_sdk import actor

@actor
class Ticker:
    def __init__(self):
        self.storage["n"] = 0

    def tick(self, data):
        self.storage["n"] += 1
"#;

const FUNDS: u128 = 10u128.pow(24);

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn owner(i: u64) -> Address {
    let h = keccak256(&i.to_be_bytes());
    let mut a = [0u8; 20];
    a.copy_from_slice(&h.0[..20]);
    Address(a)
}

/// A chain on its own partition, advanced one block at a time.
struct Chain {
    state: StateDb<cw_tokio::Context>,
    params: GenesisParams,
    height: u64,
    deployer: PrivateKey,
    nonce: u64,
    /// Time spent executing (the rest of a block's time is the commit).
    exec_time: Duration,
}

impl Chain {
    async fn open(ctx: cw_tokio::Context, name: &str, owners: u64) -> Chain {
        let mut state = StateDb::open(ctx, &StateConfig::new(name))
            .await
            .expect("open");
        let deployer = PrivateKey::from_bytes(&keccak256(b"timer-bench").0).expect("key");
        let mut alloc = vec![(deployer.address(), FUNDS)];
        alloc.extend((0..owners).map(|i| (owner(i), FUNDS)));
        let mut batch = BlockState::new(state.batch());
        apply_genesis(&mut batch, &alloc).expect("genesis");
        state.commit(0, batch.finish()).await.expect("commit");
        Chain {
            state,
            params: GenesisParams::default(),
            height: 0,
            deployer,
            nonce: 0,
            exec_time: Duration::ZERO,
        }
    }

    fn env(&self) -> BlockEnv {
        let h = self.height + 1;
        BlockEnv {
            chain_id: 1,
            height: h,
            timestamp_ms: h * 1000,
            proposer: Address([0xEE; 20]),
            randomness: keccak256(&h.to_be_bytes()),
            basefees: Basefees { cycle: 1, cell: 1 },
            parent_cycles_used: 0,
        }
    }

    /// Execute the next block with `txs`; returns the timers it delivered and its time.
    async fn block(&mut self, txs: &[Transaction]) -> (usize, Duration) {
        let env = self.env();
        let t0 = Instant::now();
        let mut batch = BlockState::new(self.state.batch());
        let out = execute_block(
            &mut batch,
            &self.params,
            env,
            &cowboy_exec::system::staking::CheckedVotes::none(),
            txs,
        )
        .expect("state")
        .expect("valid block");
        self.exec_time += t0.elapsed();
        assert!(out.receipts.iter().all(|r| r.success), "{:?}", out.receipts);
        assert!(
            out.timers.iter().all(|t| t.receipt.success),
            "{:?}",
            out.timers.iter().find(|t| !t.receipt.success)
        );
        self.height += 1;
        self.state
            .commit(self.height, batch.finish())
            .await
            .expect("commit");
        (out.timers.len(), t0.elapsed())
    }

    /// Deploy a ticker with a large balance (deposits and fees); returns its address.
    async fn ticker(&mut self, salt: u8) -> Address {
        let payload = Payload::Deploy {
            source: TICKER.to_string(),
            salt: Hash32([salt; 32]),
            init_args: Value::Array(vec![]),
        };
        let mut tx = Transaction {
            chain_id: 1,
            nonce: self.nonce,
            to: None,
            value: FUNDS / 10,
            cycles_limit: 1_000_000,
            cells_limit: 100_000,
            max_fee_per_cycle: 10,
            max_fee_per_cell: 10,
            tip_per_cycle: 0,
            tip_per_cell: 0,
            access_list: None,
            payload: payload.encode(),
            signature: None,
        };
        tx.sign(&self.deployer).expect("sign");
        self.nonce += 1;
        self.block(&[tx]).await;
        let a = actor_address(
            &self.deployer.address(),
            &Hash32([salt; 32]),
            &code_hash(TICKER),
        );
        assert!(self.state.account(&a.0).await.expect("read").is_some());
        a
    }

    /// Write timers `(owner, due)` directly, as `set_timer` would after the VM, committing
    /// every 50,000 as a block of its own height.
    async fn schedule_all(&mut self, timers: impl Iterator<Item = (Address, u64)>) {
        let data = cbor::encode(&Value::Uint(0));
        let timers: Vec<(Address, u64)> = timers.collect();
        for chunk in timers.chunks(50_000) {
            let mut batch = BlockState::new(self.state.batch());
            for (owner, due) in chunk {
                let t = NewTimer {
                    owner: *owner,
                    due: *due,
                    every: 0,
                    handler: "tick",
                    data: &data,
                    gba: None,
                };
                schedule(&mut batch, &self.params, self.height, &t)
                    .expect("state")
                    .expect("accepted");
            }
            let changes = batch.finish();
            self.height += 1;
            self.state
                .commit(self.height, changes)
                .await
                .expect("commit");
        }
        self.state.prune().await.expect("prune");
    }
}

/// What a chain holds besides the measured timers.
#[derive(Clone, Copy)]
enum Backlog {
    /// Nothing.
    None,
    /// This many other pending timers.
    Timers(u64),
    /// As many state entries as that many timers write (record, owner entry, queue entry),
    /// but no timers: the control for the state's size.
    Filler(u64),
}

impl Backlog {
    fn count(self) -> u64 {
        match self {
            Backlog::None => 0,
            Backlog::Timers(n) | Backlog::Filler(n) => n,
        }
    }
}

impl Chain {
    /// Write the filler of [`Backlog::Filler`]: three storage entries per would-be timer.
    async fn fill(&mut self, n: u64, owners: u64) {
        let record = [7u8; 100];
        for start in (0..n).step_by(50_000) {
            let mut batch = BlockState::new(self.state.batch());
            for i in start..(start + 50_000).min(n) {
                let a = owner(i % owners);
                for (j, v) in [&record[..], &[1u8; 9], &[2u8; 9]].iter().enumerate() {
                    let k = cbor::encode(&Value::Array(vec![
                        Value::Text("filler".into()),
                        Value::Uint(i),
                        Value::Uint(j as u64),
                    ]));
                    batch.set_storage(&a, &k, v).expect("state");
                }
            }
            self.height += 1;
            self.state
                .commit(self.height, batch.finish())
                .await
                .expect("commit");
        }
        self.state.prune().await.expect("prune");
    }
}

/// A chain over `backlog` whose next block is the first of `blocks` that each deliver `due`
/// timers.
async fn setup(
    ctx: cw_tokio::Context,
    name: &str,
    backlog: Backlog,
    blocks: u64,
    due: u64,
) -> Chain {
    let owners = 1_000u64;
    let mut chain = Chain::open(ctx, name, owners).await;
    let ticker = chain.ticker(1).await;
    let t0 = Instant::now();
    // The due stream, identical on every chain: `due` per block from two blocks after setup
    // (which commits one height per 50,000 timers or fillers).
    let n = backlog.count();
    let setup_heights = (blocks * due).div_ceil(50_000) + n.div_ceil(50_000) + 1;
    let first = chain.height + setup_heights + 3;
    let stream = (0..blocks).flat_map(|b| (0..due).map(move |_| (ticker, first + b)));
    // The pending timers: one every two blocks from just after the measured blocks.
    let after = first + blocks + 1;
    match backlog {
        Backlog::Timers(n) => {
            let pending = (0..n).map(|i| (owner(i % owners), after + 2 * i));
            chain.schedule_all(stream.chain(pending)).await;
        }
        Backlog::Filler(n) => {
            chain.schedule_all(stream).await;
            chain.fill(n, owners).await;
        }
        Backlog::None => chain.schedule_all(stream).await,
    }
    println!("{name}: set up in {:.1?}", t0.elapsed());
    assert!(chain.height < first, "setup overran the first due height");
    while chain.height + 1 < first {
        chain.block(&[]).await;
    }
    chain.exec_time = Duration::ZERO;
    chain
}

/// Run the measured blocks of every chain, one block of each in turn (so all see the same
/// machine: page cache, other load); returns each chain's time per block.
async fn measure(chains: &mut [(&str, Chain)], blocks: u64, due: u64) -> Vec<Duration> {
    let mut totals = vec![Duration::ZERO; chains.len()];
    for _ in 0..blocks {
        for ((_, chain), total) in chains.iter_mut().zip(&mut totals) {
            let (fired, took) = chain.block(&[]).await;
            assert_eq!(
                fired as u64, due,
                "each measured block delivers the same timers"
            );
            *total += took;
        }
    }
    for ((name, chain), total) in chains.iter().zip(&totals) {
        println!(
            "{name}: per block {:.2?}, of which execution {:.2?}",
            *total / blocks as u32,
            chain.exec_time / blocks as u32
        );
    }
    totals.iter().map(|t| *t / blocks as u32).collect()
}

/// Timers delivered per block and per second when 2,048 are due at once.
async fn lane(ctx: cw_tokio::Context) -> (f64, f64) {
    let mut chain = Chain::open(ctx, "lane", 0).await;
    let a = chain.ticker(1).await;
    let b = chain.ticker(2).await;
    let due = chain.height + 3;
    let all = (0..2_048u64).map(|i| (if i % 2 == 0 { a } else { b }, due));
    chain.schedule_all(all).await;
    while chain.height + 1 < due {
        chain.block(&[]).await;
    }
    let (mut fired, mut blocks, mut time) = (0usize, 0u64, Duration::ZERO);
    while fired < 2_048 {
        let (n, took) = chain.block(&[]).await;
        fired += n;
        blocks += 1;
        time += took;
    }
    (
        fired as f64 / blocks as f64,
        fired as f64 / time.as_secs_f64(),
    )
}

fn main() {
    let pending = env_or("BENCH_TIMERS", 1_000_000);
    let blocks = env_or("BENCH_BLOCKS", 50);
    let due = env_or("BENCH_DUE_PER_BLOCK", 8);
    let dir = std::env::temp_dir().join(format!("cowboy-timer-bench-{}", std::process::id()));
    let cfg = cw_tokio::Config::new().with_storage_directory(&dir);
    let (none, filler, full, (per_block, per_sec)) =
        cw_tokio::Runner::new(cfg).start(|ctx| async move {
            let none = setup(ctx.child("none"), "none", Backlog::None, blocks, due).await;
            let filler = setup(
                ctx.child("filler"),
                "filler",
                Backlog::Filler(pending),
                blocks,
                due,
            )
            .await;
            let full = setup(
                ctx.child("full"),
                "full",
                Backlog::Timers(pending),
                blocks,
                due,
            )
            .await;
            let mut chains = [("none", none), ("filler", filler), ("full", full)];
            let t = measure(&mut chains, blocks, due).await;
            (t[0], t[1], t[2], lane(ctx.child("lane")).await)
        });
    let _ = std::fs::remove_dir_all(&dir);
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!();
    println!("| chain | time per block ({due} timers delivered) |");
    println!("|---|---:|");
    println!("| no other state | {none:.2?} |");
    println!("| {pending} × 3 filler entries, no timers | {filler:.2?} |");
    println!("| {pending} pending timers | {full:.2?} |");
    println!(
        "ratio, {pending} pending timers / the same state size without timers: {:.2}",
        ratio(full, filler)
    );
    println!(
        "ratio, {pending} pending timers / an empty state: {:.2}",
        ratio(full, none)
    );
    println!(
        "lane: {per_block:.1} timer executions per block, {per_sec:.0} executions/s of block time"
    );
}
