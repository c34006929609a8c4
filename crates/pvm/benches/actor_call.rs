//! Benchmark: the cost of one actor invocation and of its parts — compiling the actor and the
//! SDK, creating a VM, and a whole `actor::invoke` of the example token's `transfer` against an
//! in-memory host. Run with `cargo bench -p cowboy-pvm --bench actor_call`. Prints a table;
//! asserts nothing about speed. The same run then times the same two invocations on
//! `python3` in-process (`benches/actor_call_peer.py`: the real token and SDK over a Python
//! host, no sandbox, no metering) and prints PVM ÷ CPython.
//!
//! `ACTOR_CALL_ONLY=transfer` or `=empty` runs only 2,000 invocations of that kind and prints
//! nothing, for an instruction profile of one kind of call:
//! `valgrind --tool=callgrind --toggle-collect='cowboy_pvm::actor::invoke' <bench binary>`;
//! `ACTOR_CALL_N` changes the count (e.g. 100,000 for a `perf record` long enough to read).

use std::collections::BTreeMap;
use std::time::Instant;

/// The allocator cowboyd links.
#[global_allocator]
static ALLOC: std::alloc::System = std::alloc::System;
// mimalloc, as `malloc` (its `override` feature: see the cli crate's Cargo.toml).
use mimalloc as _;

use cowboy_pvm::actor::{invoke, Entry, Invocation};
use cowboy_pvm::host::{Addr, BlockInfo, CallContext, Host, HostCosts, HostError};
use cowboy_pvm::{compile_module, Limits, Vm};
use cowboy_types::cbor::Value;

const TOKEN: &str = include_str!("../../../examples/actors/token.py");
const SDK: &str = include_str!("../src/stdlib/python/cowboy_sdk.py");

/// Storage in a map; everything else answers trivially.
struct MemHost {
    ctx: CallContext,
    store: BTreeMap<Vec<u8>, Vec<u8>>,
}

impl Host for MemHost {
    fn context(&self) -> &CallContext {
        &self.ctx
    }
    fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, HostError> {
        Ok(self.store.get(key).cloned())
    }
    fn storage_set(&mut self, key: &[u8], value: &[u8]) -> Result<(), HostError> {
        self.store.insert(key.to_vec(), value.to_vec());
        Ok(())
    }
    fn storage_delete(&mut self, key: &[u8]) -> Result<(), HostError> {
        self.store.remove(key);
        Ok(())
    }
    fn send_message(&mut self, _: Addr, _: &str, _: &[u8], _: u128) -> Result<[u8; 32], HostError> {
        Ok([0; 32])
    }
    fn emit_event(&mut self, _: &str, _: &[u8]) -> Result<(), HostError> {
        Ok(())
    }
    fn transfer(&mut self, _: Addr, _: u128) -> Result<(), HostError> {
        Ok(())
    }
    fn balance(&mut self, _: Addr) -> Result<u128, HostError> {
        Ok(0)
    }
    fn randomness(&mut self, _: &[u8]) -> Result<[u8; 32], HostError> {
        Ok([7; 32])
    }
    fn tmp_write(&mut self, _: u64) -> Result<(), HostError> {
        Ok(())
    }
}

fn per_iter(n: u32, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed().as_secs_f64() * 1e6 / f64::from(n)
}

fn main() {
    // As block execution does: all invocations share one large stack.
    cowboy_pvm::actor::with_vm_stack(run);
}

fn run() {
    let n = std::env::var("ACTOR_CALL_N")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2_000);
    let only = std::env::var("ACTOR_CALL_ONLY").ok();
    // Compiling is milliseconds, not microseconds: fewer rounds keep the run short.
    let rounds = if only.is_some() { 1 } else { n / 20 };
    let compile_token = per_iter(rounds, || {
        compile_module(TOKEN, "token.py").expect("compiles");
    });
    let compile_sdk = per_iter(rounds, || {
        compile_module(SDK, "cowboy_sdk.py").expect("compiles");
    });
    // The thread's first VM builds the shared base (builtin classes, cowboy_sdk): once per
    // thread, reported on its own.
    let base = per_iter(1, || {
        drop(Vm::new(Limits::default(), &cowboy_pvm::LIBRARY));
    });
    let vm_new = per_iter(n, || {
        drop(Vm::new(Limits::default(), &cowboy_pvm::LIBRARY));
    });
    let mut host = MemHost {
        ctx: CallContext {
            self_address: [1; 20],
            sender: [2; 20],
            value: 0,
            block: BlockInfo {
                height: 1,
                timestamp_ms: 0,
                chain_id: 1,
                proposer: [3; 20],
            },
        },
        store: BTreeMap::new(),
    };
    // The chain stores code under its keccak256 and exec passes that hash with the source, so
    // an invocation does not hash the source: the bench does the same.
    let token_hash = Some(cowboy_types::keccak256(TOKEN.as_bytes()).0);
    let limits = Limits {
        cycles: Some(1_000_000),
        ..Limits::default()
    };
    let deploy = Invocation {
        source: TOKEN,
        code_hash: token_hash,
        filename: "token.py",
        entry: Entry::Deploy {
            args: Value::Array(vec![Value::Text("T".into()), Value::Uint(1 << 60)]),
        },
        limits,
        costs: HostCosts::default(),
    };
    invoke(deploy, &mut host).result.expect("deploy");
    let mut i = 0u64;
    let mut cycles = 0;
    let transfers = match only.as_deref() {
        Some("transfer") => n,
        Some(_) => 0,
        None => n,
    };
    let call = per_iter(transfers, || {
        i += 1;
        let inv = Invocation {
            source: TOKEN,
            code_hash: token_hash,
            filename: "token.py",
            entry: Entry::Call {
                handler: "transfer".into(),
                args: Value::Array(vec![Value::Text(format!("0x{:040x}", i)), Value::Uint(1)]),
            },
            limits,
            costs: HostCosts::default(),
        };
        let out = invoke(inv, &mut host);
        out.result.expect("transfer");
        cycles = out.cycles;
    });
    // Cost of one host round trip: a handler making `k` raw storage reads, k = 0 and 200.
    let probe = "import pvm_host\nclass Actor:\n    def reads(self, k):\n        for _ in range(k):\n            pvm_host.storage_get('x')\n";
    let probe_hash = Some(cowboy_types::keccak256(probe.as_bytes()).0);
    let mut reads = |k: u64| {
        per_iter(200, || {
            let inv = Invocation {
                source: probe,
                code_hash: probe_hash,
                filename: "probe.py",
                entry: Entry::Call {
                    handler: "reads".into(),
                    args: Value::Array(vec![Value::Uint(k)]),
                },
                limits,
                costs: HostCosts::default(),
            };
            invoke(inv, &mut host).result.expect("reads");
        })
    };
    if only.is_some() {
        if only.as_deref() == Some("empty") {
            for _ in 0..n / 200 {
                reads(0);
            }
        }
        return;
    }
    let empty = reads(0);
    let round_trip = (reads(200) - empty) / 200.0;
    println!("| part | µs |");
    println!("|---|---|");
    println!("| compile token.py | {compile_token:.1} |");
    println!("| compile cowboy_sdk.py | {compile_sdk:.1} |");
    println!("| first Vm::new of a thread (builds the shared base) | {base:.1} |");
    println!("| Vm::new | {vm_new:.1} |");
    println!("| invoke token.transfer (whole) | {call:.1} |");
    println!("| invoke of an empty handler (no storage) | {empty:.1} |");
    println!("| one host call (storage read incl. VM work) | {round_trip:.2} |");
    println!(
        "\ncycles per token.transfer invocation: {cycles}; invocations/s: {:.0}",
        1e6 / call
    );
    match cpython_peer() {
        Ok(peer) => {
            println!("\nThe CPython peer, same run (benches/actor_call_peer.py):\n");
            println!("| invocation | PVM µs | CPython µs | PVM ÷ CPython |");
            println!("|---|---|---|---|");
            for (kind, pvm) in [("transfer", call), ("empty", empty)] {
                if let Some(py) = peer.get(kind) {
                    println!("| {kind} | {pvm:.1} | {py:.1} | {:.2} |", pvm / py);
                }
            }
        }
        Err(e) => println!("\nno CPython peer: {e}"),
    }
}

/// Run the peer script and read its `<kind> <µs>` lines.
fn cpython_peer() -> Result<BTreeMap<String, f64>, String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/actor_call_peer.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .output()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (kind, us) = l.split_once(' ')?;
            Some((kind.to_string(), us.parse().ok()?))
        })
        .collect())
}
