//! Devnet controls: what the `dev_*` RPC methods do on a `--dev` node (a node without `--dev`
//! has no [`Devnet`] and refuses them).
//!
//! - **Mine** ([`Devnet::mine`]): ask [`Production`] for `n` blocks now and wait until they are
//!   final. The blocks are ordinary blocks: proposed through the consensus engine, built and
//!   checked by exec's block rule.
//! - **Clock**: `dev_increaseTime` and `dev_setNextBlockTimestamp` move the timestamps the node
//!   proposes ([`Production`]); the block rule only wants them increasing.
//! - **Snapshot and revert**: a snapshot records the head (height and hash) and the clock's
//!   offset, which costs nothing. Reverting rebuilds the chain up to the snapshot's block by
//!   re-executing blocks `1..=height` from genesis into fresh stores and switching to them
//!   ([`Chain::revert_to`]): a cost in proportion to the chain's length at the snapshot, paid
//!   once per revert, while block production waits on the chain's lock. The rebuilt chain has
//!   the same block hashes and state roots; blocks above it, pending blocks and the mempool are
//!   gone, and so are the reverted snapshot and every later one (as in anvil). The beacon
//!   service forgets what it signed above the snapshot's block ([`Beacon::rewind`]).
//! - **Set a balance, impersonate an account**: these send transactions, not side effects on
//!   the state. The dev genesis sets `dev_chain`, under which exec's block rule accepts a
//!   set-balance transaction (sent by a keyless authority whose nonce orders them) and
//!   transactions authorized as their sender without a signature (see `cowboy_types::tx`).
//!   They go through the pool into ordinary blocks, so a replay (revert, restart, sync)
//!   re-executes them like everything else; a chain without the flag refuses them.
//!
//! Each `dev_mine` request, and each block built and whom it was built on, is logged at
//! debug level (`RUST_LOG=cowboy_node=debug`).

use std::sync::{Arc, Mutex};

use cowboy_types::Hash32;

use crate::beacon::Beacon;
use crate::chain::{Chain, ChainError};
use crate::consensus::Ctx;
use crate::production::{ClockError, Production};

/// Most blocks one `dev_mine` asks for.
pub const MAX_MINE: u64 = 10_000;
/// Most snapshots kept at once.
pub const MAX_SNAPSHOTS: usize = 1_024;

/// Why a devnet control was refused or failed.
#[derive(Debug)]
pub enum DevError {
    /// `dev_mine` asked for no block or too many.
    BlockCount {
        /// Blocks asked for.
        got: u64,
        /// The most one call may ask for.
        limit: u64,
    },
    /// No snapshot has this id (never taken, or reverted already).
    UnknownSnapshot(u64),
    /// [`MAX_SNAPSHOTS`] are kept; revert to one to free them.
    TooManySnapshots(usize),
    /// The clock cannot be set so.
    Clock(ClockError),
    /// The chain failed (storage); nothing changed.
    Chain(ChainError),
}

impl std::fmt::Display for DevError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DevError::BlockCount { got, limit } => {
                write!(f, "asked for {got} blocks; ask for 1 to {limit}")
            }
            DevError::UnknownSnapshot(id) => write!(
                f,
                "no snapshot {id}: it was never taken or was reverted already (take one with dev_snapshot)"
            ),
            DevError::TooManySnapshots(n) => {
                write!(f, "{n} snapshots are kept already; revert to one to free them")
            }
            DevError::Clock(e) => e.fmt(f),
            DevError::Chain(e) => e.fmt(f),
        }
    }
}

impl From<ChainError> for DevError {
    fn from(e: ChainError) -> Self {
        DevError::Chain(e)
    }
}

/// A snapshot: the head it was taken at and the clock then.
#[derive(Debug, Clone)]
struct Snapshot {
    id: u64,
    height: u64,
    hash: Hash32,
    offset_ms: u64,
}

#[derive(Debug, Default)]
struct Snapshots {
    next_id: u64,
    /// Taken, oldest first (ids increase).
    kept: Vec<Snapshot>,
}

/// The devnet controls of a `--dev` node (see the module docs).
pub struct Devnet {
    chain: Arc<tokio::sync::Mutex<Chain<Ctx>>>,
    production: Arc<Production>,
    /// The beacon service, rewound with the chain ([`crate::beacon::Beacon::rewind`]).
    beacon: Option<Beacon>,
    snapshots: Mutex<Snapshots>,
}

impl Devnet {
    /// The controls of `chain`, whose blocks `production` plans and, on a chain with a
    /// beacon, whose seeds `beacon` signs.
    pub fn new(
        chain: Arc<tokio::sync::Mutex<Chain<Ctx>>>,
        production: Arc<Production>,
        beacon: Option<Beacon>,
    ) -> Self {
        Self {
            chain,
            production,
            beacon,
            snapshots: Mutex::new(Snapshots::default()),
        }
    }

    fn snapshots(&self) -> std::sync::MutexGuard<'_, Snapshots> {
        self.snapshots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The block production plan (for the clock controls).
    pub fn production(&self) -> &Production {
        &self.production
    }

    /// The head's timestamp (ms).
    pub async fn head_timestamp(&self) -> u64 {
        self.chain.lock().await.head().header.timestamp_ms
    }

    /// Build `n` blocks now; returns the head's height once they are final.
    pub async fn mine(&self, n: u64) -> Result<u64, DevError> {
        if n == 0 || n > MAX_MINE {
            return Err(DevError::BlockCount {
                got: n,
                limit: MAX_MINE,
            });
        }
        let (mut head, start, target) = {
            // Under the lock no block is being built, so every block built from here on
            // consumes one of the `n` asked for, and the target counts those built already.
            let chain = self.chain.lock().await;
            self.production.request(n);
            let start = chain.head().header.height;
            (chain.watch_head(), start, chain.built_height() + n)
        };
        tracing::debug!(
            n,
            start,
            target,
            requested = self.production.requested(),
            "dev_mine"
        );
        let done = head
            .wait_for(|h| h.header.height >= target || h.header.height < start)
            .await
            .map_err(|_| DevError::Chain(ChainError::Inconsistent("the node stopped".into())))?;
        Ok(done.header.height)
    }

    /// Take a snapshot of the head; returns its id.
    pub async fn snapshot(&self) -> Result<u64, DevError> {
        let chain = self.chain.lock().await;
        let mut s = self.snapshots();
        if s.kept.len() >= MAX_SNAPSHOTS {
            return Err(DevError::TooManySnapshots(s.kept.len()));
        }
        let id = s.next_id;
        s.next_id += 1;
        s.kept.push(Snapshot {
            id,
            height: chain.head().header.height,
            hash: chain.head().hash,
            offset_ms: self.production.offset_ms(),
        });
        Ok(id)
    }

    /// Revert to snapshot `id` (see the module docs); returns the head's height after.
    pub async fn revert(&self, id: u64) -> Result<u64, DevError> {
        let mut chain = self.chain.lock().await;
        let Some(snap) = self.snapshots().kept.iter().find(|s| s.id == id).cloned() else {
            return Err(DevError::UnknownSnapshot(id));
        };
        chain.revert_to(snap.height, &snap.hash).await?;
        if let Some(beacon) = &self.beacon {
            beacon.rewind(snap.height);
        }
        self.production.set_offset(snap.offset_ms);
        self.snapshots().kept.retain(|s| s.id < id);
        tracing::info!(height = snap.height, snapshot = id, "reverted");
        Ok(snap.height)
    }
}
