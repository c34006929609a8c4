//! The Cowboy Python VM (PVM): a deterministic, metered Python 3.11 compiler and interpreter
//! (whitepaper "The Cowboy Actor VM", §3; ARCHITECTURE D2).
//!
//! What it is: source → [`compiler`] (ruff parser, scope analysis, bytecode) → [`vm`] (one
//! dispatch loop charging cycles from [`cost`]) with limits from [`limits`] and deterministic
//! memory accounting in [`memory`]. What it is not: CPython, or a sandbox around one.
//! Start reading at [`run`], then `vm/mod.rs`.

pub mod actor;
pub mod builtins;
pub mod bytecode;
pub mod cbor_bridge;
pub mod code_cache;
pub mod codec;
pub mod compiler;
pub mod cost;
pub mod format;
pub mod frame;
pub mod host;
pub mod limits;
pub mod memory;
pub mod modules;
pub mod native;
pub mod objects;
mod outcome;
pub mod sdk;
pub mod tmpfs;
mod unicode;
mod unicode_tables;
pub mod value;
pub mod vm;

pub use compiler::{compile_module, CompileError};
pub use limits::Limits;
pub use vm::{Abort, Exc, Vm};

pub use outcome::{run, RunError, RunOutcome};
