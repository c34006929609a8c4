//! The Cowboy Python VM (PVM): a deterministic, metered Python 3.11 compiler and interpreter
//! (whitepaper "The Cowboy Actor VM", §3; ARCHITECTURE D2).
//!
//! What it is: source → [`compiler`] (ruff parser, scope analysis, bytecode) → [`vm`] (one
//! dispatch loop charging cycles from [`cost`]) with limits from [`limits`] and deterministic
//! memory accounting in [`memory`]. What it is not: CPython, or a sandbox around one.
//! Start reading at [`run`], then `vm/mod.rs`.
//!
//! The public surface, which is all other crates use:
//! - [`run`] a program and read its [`RunOutcome`] (or [`RunError`]), under [`Limits`];
//! - [`actor`]: invoke an actor method ([`actor::invoke`], on [`actor::with_vm_stack`]);
//! - [`host`]: what an invocation asks of the chain ([`host::Host`]) and is told by it;
//! - [`compiler`]: [`compile_module`] and the pre-parse [`compiler::check`] deploys are priced by;
//! - [`cost`] (the cycle table), [`limits`] (on-chain defaults), [`memory`] (live and peak
//!   accounted bytes), [`vm`] ([`Vm`], and [`vm::profile`]'s per-line costs for traces), and
//!   [`LIBRARY`], the modules a program may import, which a [`Vm`] is made with.
//!
//! Every other module is private, and the modules are layered: each uses only the layers
//! below it (README "Layers", kept by `tests/it/layers.rs`).

// The public surface (see the list above).
pub mod actor;
pub mod compiler;
pub mod cost;
pub mod host;
pub mod limits;
pub mod memory;
pub mod vm;

pub use compiler::{compile_module, CompileError};
pub use limits::Limits;
pub use modules::LIBRARY;
pub use outcome::{run, RunError, RunOutcome};
pub use vm::{Abort, Exc, Vm};

// Everything else is internal (README "Layers" orders it).
mod body_cache;
mod builtins;
mod bytecode;
mod cbor_bridge;
mod code_cache;
mod codec;
mod format;
mod modules;
mod native;
mod objects;
mod outcome;
mod sdk;
mod tmpfs;
mod unicode;
mod value;
