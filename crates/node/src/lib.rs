//! `cowboyd`, the Cowboy node: commonware simplex consensus ([`consensus`]) over the chain
//! ([`chain`]: execution, state, blocks), a mempool ([`mempool`]) whose transactions
//! [`gossip`] forwards to the other validators, the JSON-RPC server ([`rpc`], contract in
//! `RPC.md`; it reads through [`reader`] snapshots within the bounds of [`limits`]), metrics
//! ([`metrics`]) and the genesis ([`genesis`]). [`production`] decides when blocks are built;
//! [`sync`] fetches missed blocks in ranges, [`catchup`] catches up a node far behind and
//! [`snapshot_sync`] one more than an epoch behind from a state snapshot; [`dev`] holds the `dev_*` controls of a `--dev`
//! node; [`devnet`] is `cowboyd devnet`; [`explorer`] serves the block explorer on the RPC port.
//! [`reshare_task`] runs the beacon's reshare rounds ([`reshare`]) and switches its sharing.
//! Votes weigh by stake through [`seats`] (the vote scheme) and [`seat_net`] (its channels).
//! [`node::run`] wires them together; `src/main.rs` is the command line.

pub mod beacon;
pub mod catchup;
pub mod chain;
pub mod consensus;
pub mod dev;
pub mod devnet;
pub mod epochs;
pub mod explorer;
pub mod genesis;
pub mod gossip;
pub mod leaders;
pub mod limits;
pub mod mempool;
pub mod metrics;
pub mod node;
pub mod production;
pub mod reader;
pub mod reshare;
pub mod reshare_task;
pub mod rpc;
pub mod seat_net;
pub mod seats;
pub mod snapshot_sync;
pub mod sync;
pub mod trace;
