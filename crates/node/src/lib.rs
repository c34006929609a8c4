//! `cowboyd`, the Cowboy node: commonware simplex consensus ([`consensus`]) over the chain
//! ([`chain`]: execution, state, blocks), a mempool ([`mempool`]), the JSON-RPC server
//! ([`rpc`], contract in `RPC.md`; it reads through [`reader`] snapshots within the bounds of
//! [`limits`]), metrics ([`metrics`]) and the genesis ([`genesis`]). [`production`] decides
//! when blocks are built; [`dev`] holds the `dev_*` controls of a `--dev` node.
//! [`node::run`] wires them together; `src/main.rs` is the command line.

pub mod chain;
pub mod consensus;
pub mod dev;
pub mod genesis;
pub mod limits;
pub mod mempool;
pub mod metrics;
pub mod node;
pub mod production;
pub mod reader;
pub mod rpc;
pub mod trace;
