//! `exec-replay SEED BLOCKS`: build a pseudo-random block sequence from `SEED` (transfers,
//! deploys of the example actors, handler calls that succeed and fail, messages, heartbeats
//! whose native timers fire, are deferred and are stopped, and invalid transactions that block
//! building skips), execute it from genesis over a fresh state, and print the final state root
//! and a digest of every receipt and timer execution. Two processes given the same
//! arguments must print the same line: the replay test (`tests/it/replay.rs`) checks exactly that.
//!
//! Blocks are made exactly as a node's proposer makes them: `block::propose` on top of the
//! parent header, so the environment (basefees, randomness), lanes, order and header come from
//! the same block rule.

use commonware_runtime::{deterministic, Runner as _};
use cowboy_exec::block::{apply_genesis, check_all, propose};
use cowboy_exec::header::{basefees_after, genesis_header};
use cowboy_exec::{BlockState, ChainRules, Parent};
use cowboy_state::{StateConfig, StateDb};
use cowboy_types::cbor::Value;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::hash::{hex_lower, keccak256_concat};
use cowboy_types::tx::Payload;
use cowboy_types::{actor_address, code_hash, keccak256, Address, Hash32, PrivateKey, Transaction};

const SOURCES: [&str; 5] = [
    include_str!("../../../../examples/actors/counter.py"),
    include_str!("../../../../examples/actors/todo.py"),
    include_str!("../../../../examples/actors/token.py"),
    include_str!("../../../../examples/actors/relay.py"),
    include_str!("../../../../examples/actors/heartbeat.py"),
];
const KEYS: u64 = 6;

/// splitmix64: a fixed, portable generator (the sequence is part of the test's definition).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn key(i: u64) -> PrivateKey {
    PrivateKey::from_bytes(&keccak256(format!("replay-key-{i}").as_bytes()).0).expect("key")
}

fn args_for(rng: &mut Rng, kind: usize, actors: &[(Address, usize)]) -> (String, Vec<Value>) {
    let t = |s: &str| Value::Text(s.into());
    match kind {
        0 => match rng.below(3) {
            0 => ("increment".into(), vec![Value::Uint(rng.below(100))]),
            1 => ("get".into(), vec![]),
            _ => ("increment".into(), vec![t("not a number")]),
        },
        1 => match rng.below(3) {
            0 => ("add".into(), vec![t(&format!("item {}", rng.below(1000)))]),
            1 => ("done".into(), vec![Value::Uint(rng.below(4))]),
            _ => ("items".into(), vec![]),
        },
        2 => {
            let to = key(rng.below(KEYS)).address().to_checksum();
            ("transfer".into(), vec![t(&to), Value::Uint(rng.below(50))])
        }
        4 => match rng.below(6) {
            0 => ("stop".into(), vec![]),
            1 => ("fund".into(), vec![]),
            _ => ("status".into(), vec![]),
        },
        _ => {
            let relays: Vec<&(Address, usize)> = actors.iter().filter(|(_, k)| *k == 3).collect();
            let other = relays[rng.below(relays.len() as u64) as usize].0;
            (
                "ping".into(),
                vec![t(&other.to_checksum()), Value::Uint(rng.below(6))],
            )
        }
    }
}

fn main() {
    let mut argv = std::env::args().skip(1);
    let seed: u64 = argv.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let blocks: u64 = argv.next().and_then(|s| s.parse().ok()).unwrap_or(40);
    let line = deterministic::Runner::default().start(|ctx| async move {
        let params = GenesisParams::default();
        let mut state = StateDb::open(ctx, &StateConfig::new("replay"))
            .await
            .expect("open");
        let alloc: Vec<(Address, u128)> = (0..KEYS)
            .map(|i| (key(i).address(), 10u128.pow(24)))
            .collect();
        let mut batch = BlockState::new(state.batch());
        apply_genesis(&mut batch, &alloc).expect("genesis");
        state.commit(0, batch.finish()).await.expect("commit");
        let rules = ChainRules {
            chain_id: 1,
            params: &params,
        };
        let mut parent = genesis_header(&params, 0, Hash32(state.root().expect("root")));

        let mut rng = Rng(seed);
        let mut nonces = vec![0u64; KEYS as usize];
        let mut actors: Vec<(Address, usize)> = Vec::new();
        let mut digest = Hash32([0; 32]);
        let (mut ok, mut failed, mut skipped, mut timers) = (0u64, 0u64, 0u64, 0u64);
        for height in 1..=blocks {
            let basefees = basefees_after(&parent, &params);
            let mut txs = Vec::new();
            for _ in 0..rng.below(12) + 1 {
                let k = rng.below(KEYS);
                let sk = key(k);
                // Now and then a stale or future nonce: block building must skip it.
                let nonce = match rng.below(20) {
                    0 => nonces[k as usize] + 5,
                    _ => nonces[k as usize],
                };
                let (to, payload, value) = match rng.below(4) {
                    0 => (
                        Some(key(rng.below(KEYS)).address()),
                        Payload::Transfer,
                        u128::from(rng.below(1_000_000)),
                    ),
                    1 => {
                        let kind = (rng.below(5)) as usize;
                        let salt = Hash32(keccak256(&rng.next().to_be_bytes()).0);
                        let args = match kind {
                            0 => vec![Value::Uint(rng.below(10))],
                            2 => vec![Value::Text("Replay".into()), Value::Uint(1_000_000)],
                            4 => vec![Value::Uint(rng.below(6) + 1)],
                            _ => vec![],
                        };
                        // A heartbeat needs a balance for its deposit and its beats.
                        let value = if kind == 4 { 10u128.pow(20) } else { 0 };
                        let src = SOURCES[kind];
                        actors.push((actor_address(&sk.address(), &salt, &code_hash(src)), kind));
                        (
                            None,
                            Payload::Deploy {
                                source: src.into(),
                                salt,
                                init_args: Value::Array(args),
                            },
                            value,
                        )
                    }
                    _ if actors.iter().filter(|(_, k)| *k == 3).count() > 0
                        || !actors.is_empty() =>
                    {
                        let (addr, kind) = actors[rng.below(actors.len() as u64) as usize];
                        let kind = if kind == 3 && actors.iter().all(|(_, k)| *k != 3) {
                            0
                        } else {
                            kind
                        };
                        let (handler, args) = args_for(&mut rng, kind, &actors);
                        (
                            Some(addr),
                            Payload::Call {
                                handler,
                                args: Value::Array(args),
                            },
                            0,
                        )
                    }
                    _ => (Some(Address([9; 20])), Payload::Transfer, 1),
                };
                let mut tx = Transaction {
                    chain_id: 1,
                    nonce,
                    to,
                    value,
                    cycles_limit: 300_000 + rng.below(700_000),
                    cells_limit: 5_000 + rng.below(20_000),
                    max_fee_per_cycle: basefees.cycle * 2,
                    max_fee_per_cell: basefees.cell * 2,
                    tip_per_cycle: rng.below(3).into(),
                    tip_per_cell: rng.below(3).into(),
                    access_list: None,
                    payload: payload.encode(),
                    signature: None,
                };
                tx.sign(&sk).expect("sign");
                if nonce == nonces[k as usize] {
                    nonces[k as usize] += 1;
                }
                txs.push(tx);
            }
            let checked = check_all(&txs, &params, rules.chain_id);
            let invalid = checked.iter().filter(|c| c.is_err()).count() as u64;
            let candidates = checked.into_iter().flatten().collect();
            let at = Parent {
                header: &parent,
                hash: parent.hash(),
            };
            let proposal = propose(
                &state,
                None,
                rules,
                at,
                1_000 * height,
                Address([0xEE; 20]),
                candidates,
                None,
                None,
                Vec::new(),
                &cowboy_exec::block::no_cutoff,
            )
            .await
            .expect("state");
            state
                .commit_staged(&proposal.executed.state)
                .await
                .expect("commit");
            // A skipped transaction leaves its sender's later nonces gapped: resynchronise.
            for (i, n) in nonces.iter_mut().enumerate() {
                let acct = state
                    .account(&key(i as u64).address().0)
                    .await
                    .expect("read");
                *n = acct.map_or(0, |a| a.nonce);
            }
            skipped += proposal.skipped.len() as u64 + invalid;
            for t in &proposal.executed.timers {
                timers += 1;
                digest = keccak256_concat(&[&digest.0, &t.encode()]);
            }
            for r in &proposal.executed.receipts {
                if r.success {
                    ok += 1;
                } else {
                    failed += 1;
                }
                digest = keccak256_concat(&[&digest.0, &r.encode()]);
            }
            if !proposal.executed.hooks.is_empty() {
                digest = keccak256_concat(&[&digest.0, &proposal.executed.hooks.encode()]);
            }
            parent = proposal.block.header;
        }
        let root = state.root().expect("root");
        format!(
            "root={} receipts={} succeeded={ok} failed={failed} skipped={skipped} timers={timers}",
            hex_lower(&root),
            hex_lower(&digest.0)
        )
    });
    println!("{line}");
}
