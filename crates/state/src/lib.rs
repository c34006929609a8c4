//! Cowboy's authenticated state, block store and indexes (whitepaper "Accounts and State",
//! "Storage and State Persistence"; ARCHITECTURE.md D6).
//!
//! * [StateDb] — accounts, actor code and actor storage in one commonware QMDB with a state root
//!   per block; reads, a per-block [WriteBatch] overlay with nested checkpoints, atomic durable
//!   commits, and inclusion/exclusion proofs that `cowboy-proof-verifier` checks.
//! * [snapshot] — state snapshots: serve the operation log with proofs, and build a fresh
//!   [StateDb] from an untrusted peer against a trusted header's height and root.
//! * [BlockStore] — the append-only ledger of finalized blocks with their receipts and a
//!   transaction-hash index.
//!
//! It does not execute transactions, charge fees or rent, or decide what a block contains: the
//! state transition (`cowboy-exec`) drives it. Start reading at [db].
pub mod batch;
pub mod blocks;
mod cursor;
pub mod db;
pub mod error;
mod history;
pub mod snapshot;
pub mod staged;

pub use batch::{Changes, Checkpoint, WriteBatch};

pub use blocks::{BlockStore, TxLocation};
pub use cowboy_proof_verifier as verifier;
pub use db::{destroy_partitions, Committed, Context, Root, StateConfig, StateDb};
pub use error::StateError;
pub use history::DEFAULT_HISTORY_BLOCKS;
pub use snapshot::{FetchConfig, SnapshotError, SnapshotRequest, SnapshotSource, SnapshotTarget};
pub use staged::Staged;
