//! Criterion benchmark: start-up of a program, i.e. parse, compile and run a 100-line
//! actor-style module (`benches/startup/escrow_market.py`: classes, a decorator, handlers that
//! run) in a fresh VM, in-process. The target is under 1 ms. Run with
//! `cargo bench -p cowboy-pvm --bench startup`; asserts nothing about speed.

use criterion::{criterion_group, criterion_main, Criterion};

/// The allocator cowboyd links (start-up is allocation-bound).
#[global_allocator]
static ALLOC: std::alloc::System = std::alloc::System;
// mimalloc, as `malloc` (its `override` feature: see the cli crate's Cargo.toml).
use mimalloc as _;

const SRC: &str = include_str!("startup/escrow_market.py");

fn startup(c: &mut Criterion) {
    // The module must really run to the end, not stop at an error.
    let check = cowboy_pvm::run(SRC, "escrow_market.py", cowboy_pvm::Limits::default());
    assert!(check.error.is_none(), "the start-up module failed");
    c.bench_function("parse + compile + run a 100-line actor module", |b| {
        b.iter(|| cowboy_pvm::run(SRC, "escrow_market.py", cowboy_pvm::Limits::default()))
    });
    c.bench_function("compile only", |b| {
        b.iter(|| cowboy_pvm::compile_module(SRC, "escrow_market.py").expect("compiles"))
    });
}

criterion_group!(benches, startup);
criterion_main!(benches);
