//! The node's chain: finalized state and blocks on disk, blocks proposed or verified but not yet
//! finalized, and the mempool.
//!
//! **Execution model.** A block's header commits to the state root *after its own
//! transactions*. The proposer executes the block it builds; every validator re-executes a
//! proposal and compares roots before voting for it. A block executes on its parent's state:
//! the last finalized state, or, when the parent is a pending block already executed here, that
//! block's staged state over it (`cowboy_state::staged`). Simplex makes the next leader extend
//! the latest *notarized* block, which need not be finalized yet; if a validator could only
//! execute on finalized state, a notarized block whose finalize votes were lost would leave
//! every later view without a block to vote for, and the chain would halt for good (the
//! simulations found exactly that: `tests/devnet/sim.rs`, `sim_split_without_quorum_heals`).
//! The result of executing a pending block (its staged state and receipts) is kept with it, so
//! finalizing it only writes; finalizing a block keeps the executions of its descendants and
//! drops those of every other fork, which can no longer be finalized.
//!
//! **Durability.** Finalizing block `h` appends it (with receipts, timer executions and the
//! transaction index) to the block store, durably, and then commits its state changes. A crash between the two leaves
//! the state one block behind the store; [`Chain::open`] re-executes that block. Pending blocks
//! are written to `pending/` before the node votes for them, so after a restart the consensus
//! engine's replayed votes still refer to blocks the node has.
//!
//! **Generations (dev revert).** The state and the block store live in storage partitions
//! named after a *generation* (`generation` in the data directory; absent: 0, the plain names
//! `state` and `blocks`). [`Chain::revert_to`] rebuilds the chain up to a height into the next
//! generation by re-executing the stored blocks from genesis, records the new generation (the
//! switch, one atomic file write) and removes the old one. QMDB keeps no history, so rebuilding
//! is how a state goes back; the rebuilt blocks hash and commit exactly as before, and a crash
//! leaves either generation whole. [`Chain::install_snapshot`] switches the same way to a
//! generation built from a state snapshot, whose block store begins at the snapshot's block
//! (the `base` file names it per generation). [`Chain::open`] removes what a crash left of the
//! generations beside the one it opens (the one switched from, one half built).
//!
//! **The rule is exec's.** What a block must be (environment, header fields, lanes, order,
//! transactions) is decided by `cowboy_exec::block::{propose, verify}`; the chain only stores,
//! keeps pending blocks and answers queries.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cowboy_exec::block::{self as rule, apply_genesis, Executed};
use cowboy_exec::fees::Basefees;
use cowboy_exec::header::{basefees_after, env_after, genesis_header};
use cowboy_exec::system::staking;
use cowboy_exec::{BlockError, BlockState, ChainRules, CheckedTx, Parent};
use cowboy_state::verifier::Account;
use cowboy_state::{destroy_partitions, BlockStore, Context, Staged, StateConfig, StateDb};
use cowboy_types::block::{Block, BlockHeader};
use cowboy_types::system::STAKING;
use cowboy_types::{Address, Hash32, HookEvents, Receipt, VoteRecord};
use tokio::sync::{broadcast, watch};

use crate::genesis::Genesis;
use crate::mempool::{Mempool, Rejection, SenderState};
use crate::reader::{Reader, ReceiptRecord, TimerRecord};

/// Why a chain operation failed: below the block rule (storage, the disk) or because the node's
/// own data contradicts itself. Fatal for the operation; never caused by a peer's invalid
/// block, which is a [`Verdict::Invalid`] instead.
#[derive(Debug)]
pub enum ChainError {
    /// The state database failed.
    State(cowboy_state::StateError),
    /// Execution could not read or write the state, or broke an invariant.
    Exec(cowboy_exec::StateFailure),
    /// A file of the data directory could not be read or written.
    Io(std::io::Error),
    /// A stored block does not decode.
    Decode(cowboy_types::block::DecodeError),
    /// The data directory holds a chain with another genesis.
    GenesisMismatch(PathBuf),
    /// A block the node stored or was told is final fails the block rule.
    InvalidStored {
        /// Its height.
        height: u64,
        /// The rule it breaks.
        error: BlockError,
    },
    /// A block consensus asked about is not here.
    Missing(Hash32),
    /// The node's own stores disagree (state and block store heights, roots, ancestry).
    Inconsistent(String),
    /// The node's chain begins at a state snapshot (`crate::snapshot_sync`): it holds no
    /// block below `base`, nor receipts, timer executions or state at or below it.
    BeforeSnapshot {
        /// The height asked for.
        height: u64,
        /// The snapshot's block, the lowest this node holds.
        base: u64,
    },
    /// Building or installing a state snapshot failed (nothing changed).
    Snapshot(cowboy_state::SnapshotError),
}

impl std::fmt::Display for ChainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChainError::State(e) => write!(f, "state: {e}"),
            ChainError::Exec(e) => e.fmt(f),
            ChainError::Io(e) => write!(f, "data directory: {e}"),
            ChainError::Decode(e) => write!(f, "stored block: {e}"),
            ChainError::GenesisMismatch(dir) => write!(
                f,
                "{} holds a chain with a different genesis; start with --reset to wipe it, \
                 or use another --data-dir",
                dir.display()
            ),
            ChainError::InvalidStored { height, error } => {
                write!(f, "block {height} is final but invalid: {error}")
            }
            ChainError::Missing(h) => write!(
                f,
                "block {} is not available locally (it will be fetched from a peer)",
                h.to_hex()
            ),
            ChainError::Inconsistent(m) => write!(f, "inconsistent data directory: {m}"),
            ChainError::BeforeSnapshot { height, base } => write!(
                f,
                "block {height} is before this node's state snapshot at block {base}: \
                 it holds no blocks below it, nor receipts or state at or below it"
            ),
            ChainError::Snapshot(e) => write!(f, "state snapshot: {e}"),
        }
    }
}

impl std::error::Error for ChainError {}

macro_rules! from_error {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for ChainError {
            fn from(e: $t) -> Self {
                ChainError::$v(e)
            }
        }
    )*};
}
from_error!(
    cowboy_state::SnapshotError => Snapshot,
    cowboy_state::StateError => State,
    cowboy_exec::StateFailure => Exec,
    std::io::Error => Io,
    cowboy_types::block::DecodeError => Decode
);

/// Result of the chain's operations.
pub type CResult<T> = Result<T, ChainError>;

/// The last finalized block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// Its header.
    pub header: BlockHeader,
    /// Its hash.
    pub hash: Hash32,
}

/// A finalized block with its receipts, as announced to subscribers.
#[derive(Debug)]
pub struct Finalized {
    /// The block.
    pub block: Block,
    /// Its hash.
    pub hash: Hash32,
    /// One receipt per transaction.
    pub receipts: Vec<Receipt>,
    /// The timers delivered in its `begin_block`.
    pub timers: Vec<cowboy_types::TimerExecution>,
    /// The events of its system hooks.
    pub hooks: HookEvents,
}

struct Pending {
    block: Block,
    /// The block's execution (staged state and receipts), once executed here on its parent.
    /// Only a block descending from the head keeps one.
    executed: Option<Executed>,
}

/// Verdict on a proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Valid: vote for it.
    Valid,
    /// Invalid, with the rule it breaks. The block is no longer kept: here it is, with its
    /// parent's header, for the evidence an invalid proposal may give
    /// (`crate::consensus`, "Evidence").
    Invalid {
        /// The rule.
        reason: BlockError,
        /// The block.
        block: Box<Block>,
        /// Its parent's header.
        parent: Box<BlockHeader>,
    },
}

/// The chain (see the module docs).
pub struct Chain<E: Context> {
    /// The runtime context the stores are opened in (a revert opens new ones).
    context: E,
    /// The data directory.
    dir: PathBuf,
    /// Prefix of the names of its storage partitions: empty for `cowboyd` (one node per
    /// storage), one per node where several share a runtime's storage (the simulations).
    partition_prefix: String,
    /// The generation of `state` and `blocks` (see the module docs).
    generation: u64,
    genesis: Genesis,
    state: StateDb<E>,
    blocks: BlockStore<E>,
    head: Head,
    pending: BTreeMap<Hash32, Pending>,
    pending_dir: PathBuf,
    /// Transactions waiting for a block.
    pub mempool: Mempool,
    head_tx: watch::Sender<Head>,
    finalized_tx: broadcast::Sender<Arc<Finalized>>,
    since_prune: u64,
    /// Blocks of state history kept (see `cowboy_state::StateConfig::history_blocks`).
    history_blocks: u64,
    /// A read-only view of the last finalized block, replaced after each (see `crate::reader`).
    readers: watch::Sender<Option<Arc<Reader<E>>>>,
    /// Signed dealer logs of the running reshare round this node holds (its own and those
    /// that verified from peers: `crate::reshare_task`), offered to every block it builds;
    /// exec's `propose` keeps the ones the chain has not recorded. At most one per dealer.
    dealer_logs: Vec<Vec<u8>>,
    /// Where the chain begins if it was built from a state snapshot (`crate::snapshot_sync`).
    base: Option<SnapshotBase>,
    /// The `lower` bounds of the snapshot targets of the two newest boundary records: the
    /// state log is pruned no further, so peers can still fetch those snapshots.
    keep_ops: [Option<u64>; 2],
    /// Whether catch-up may build the state from a snapshot (`crate::snapshot_sync`); off,
    /// a node far behind re-executes every block (and so keeps every receipt).
    snapshot_sync: bool,
}

/// The beginning of a chain built from a state snapshot: the snapshot's block and the hashes
/// of the blocks below it the beacon rule still names (exec's `beacon::target_height`: the
/// next blocks carry signatures over blocks up to `BEACON_LAG` below them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotBase {
    /// The snapshot's block height.
    pub height: u64,
    /// The hashes of blocks `height + 1 − hashes.len() ..= height`, lowest first.
    pub hashes: Vec<Hash32>,
}

impl SnapshotBase {
    /// The hash of block `height`, if it is one this base names.
    fn hash_at(&self, height: u64) -> Option<Hash32> {
        let first = self
            .height
            .checked_add(1)?
            .checked_sub(self.hashes.len() as u64)?;
        let i = height.checked_sub(first)?;
        self.hashes.get(usize::try_from(i).ok()?).copied()
    }

    /// `generation height hash…` (hex), one line.
    fn encode(&self, generation: u64) -> String {
        let mut line = format!("{generation} {}", self.height);
        for h in &self.hashes {
            line.push(' ');
            line.push_str(&hex::encode(h.0));
        }
        line
    }

    /// The base a `base` file names for `generation` (`None`: it names only other
    /// generations'). The file holds one line per generation ([`Self::encode`]): the one an
    /// install switches to and, until the switch is done, the one it switches from, so a
    /// crash on either side of the switch finds the base of the generation it opens. Any
    /// line that does not decode (or names no hash: a base names at least its own block) is
    /// refused whole.
    fn decode(text: &str, generation: u64) -> CResult<Option<SnapshotBase>> {
        let mut found = None;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let bad = || ChainError::Inconsistent(format!("{BASE_FILE} holds {line:?}"));
            let mut words = line.split_whitespace();
            let of: u64 = words.next().and_then(|w| w.parse().ok()).ok_or_else(bad)?;
            let height: u64 = words.next().and_then(|w| w.parse().ok()).ok_or_else(bad)?;
            let hashes = words
                .map(|w| {
                    hex::decode(w)
                        .ok()
                        .and_then(|b| <[u8; 32]>::try_from(b).ok())
                        .map(Hash32)
                })
                .collect::<Option<Vec<_>>>()
                .ok_or_else(bad)?;
            // A snapshot is of a block above genesis, and names at least its own hash.
            if height == 0 || hashes.is_empty() || hashes.len() as u64 > height.saturating_add(1) {
                return Err(bad());
            }
            if of == generation {
                found = Some(SnapshotBase { height, hashes });
            }
        }
        if text.trim().is_empty() {
            return Err(ChainError::Inconsistent(format!("{BASE_FILE} is empty")));
        }
        Ok(found)
    }
}

/// Where a state snapshot is built before [`Chain::install_snapshot`] switches to it: the
/// next generation's state partitions, emptied ([`Chain::snapshot_slot`]).
pub struct SnapshotSlot<E> {
    /// The runtime context to build the state in.
    pub context: E,
    /// The state's configuration (its partitions).
    pub config: StateConfig,
    /// The generation it belongs to.
    pub generation: u64,
}

/// Where the certificates of epochs' last blocks are kept ([`Chain::keep_certificate`]),
/// and their boundary records ([`Chain::boundary`]).
const CERTIFICATES_DIR: &str = "certificates";
/// The file naming where a chain built from a snapshot begins ([`SnapshotBase`]).
const BASE_FILE: &str = "base";
/// Unverified blocks received from peers kept at most.
const MAX_RECEIVED: usize = 256;
/// Prune the state's history every this many blocks.
const PRUNE_EVERY: u64 = 256;

impl<E: Context> Chain<E> {
    /// Open the chain in `dir` (the runtime's storage directory is `dir/db`; its partitions'
    /// names start with `partition_prefix`), initialising it from `genesis` on first use and
    /// recovering after a crash.
    pub async fn open(
        context: E,
        dir: &Path,
        partition_prefix: &str,
        genesis: Genesis,
        mempool: Mempool,
        history_blocks: u64,
    ) -> CResult<Self> {
        std::fs::create_dir_all(dir)?;
        let genesis_file = dir.join("genesis.json");
        match std::fs::read_to_string(&genesis_file) {
            Ok(existing)
                if Genesis::from_json(&existing).map(|g| g.identity()).ok()
                    != Some(genesis.identity()) =>
            {
                return Err(ChainError::GenesisMismatch(dir.to_path_buf()))
            }
            Ok(_) => {}
            Err(_) => write_atomic(&genesis_file, genesis.to_json().as_bytes())?,
        }
        let pending_dir = dir.join("pending");
        std::fs::create_dir_all(&pending_dir)?;

        let generation = match std::fs::read_to_string(dir.join(GENERATION_FILE)) {
            Ok(text) => text.trim().parse().map_err(|_| {
                ChainError::Inconsistent(format!("{GENERATION_FILE} holds {text:?}"))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(e) => return Err(e.into()),
        };
        let (mut state, mut blocks) =
            open_stores(&context, partition_prefix, generation, history_blocks).await?;
        init_genesis(&mut state, &mut blocks, &genesis).await?;

        let tip = blocks.last_height()?.unwrap_or(0);
        let limits = genesis.params.block_limits();
        let head = read_head(&blocks, tip, limits).await?;
        let committed = state.last_committed().map_or(0, |c| c.height);
        let (head_tx, _) = watch::channel(head.clone());
        let (finalized_tx, _) = broadcast::channel(1024);
        let mut chain = Chain {
            context,
            dir: dir.to_path_buf(),
            partition_prefix: partition_prefix.to_string(),
            generation,
            genesis,
            state,
            blocks,
            head,
            pending: BTreeMap::new(),
            pending_dir,
            mempool,
            head_tx,
            finalized_tx,
            since_prune: 0,
            history_blocks,
            readers: watch::channel(None).0,
            dealer_logs: Vec::new(),
            base: None,
            keep_ops: [None; 2],
            snapshot_sync: true,
        };
        match std::fs::read_to_string(chain.dir.join(BASE_FILE)) {
            Ok(text) => chain.base = SnapshotBase::decode(&text, generation)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e.into()),
        }
        // A chain that began at a snapshot has a block store beginning at the snapshot's
        // block, whose hash its base names last; any other chain's begins at genesis.
        let first = chain.blocks.first_height().await?.unwrap_or(0);
        match &chain.base {
            None if first == 0 => {}
            Some(base) if base.height == first => {
                let stored = read_head(&chain.blocks, first, limits).await?.hash;
                if base.hashes.last() != Some(&stored) {
                    return Err(ChainError::Inconsistent(format!(
                        "{BASE_FILE} names block {first} {}, the block store holds {}",
                        base.hashes.last().map_or_else(String::new, |h| h.to_hex()),
                        stored.to_hex()
                    )));
                }
            }
            base => {
                return Err(ChainError::Inconsistent(format!(
                    "generation {generation}'s block store begins at block {first}, but \
                     {BASE_FILE} names {}",
                    base.as_ref()
                        .map_or("no snapshot".to_string(), |b| format!("block {}", b.height))
                )))
            }
        }
        // What a crash may have left of other generations: the one switched from (a crash
        // after the switch, before its removal) and one being built (a crash before the
        // switch). Neither is ever opened again.
        for other in [generation.checked_sub(1), generation.checked_add(1)]
            .into_iter()
            .flatten()
        {
            destroy_partitions(&chain.context, &partitions(partition_prefix, other)).await?;
        }
        // The boundaries whose snapshots this node serves: the two newest at or below the head.
        let newest = staking::epoch_of(&chain.genesis.params, tip + 1);
        for (slot, back) in [(0, 2), (1, 1)] {
            chain.keep_ops[slot] = newest
                .checked_sub(back)
                .and_then(|e| chain.boundary(e))
                .and_then(|b| crate::snapshot_sync::Boundary::decode(&b).ok())
                .map(|b| b.target.lower);
        }
        if committed + 1 == tip {
            // Crashed after storing block `tip` but before committing its state.
            tracing::info!(height = tip, "re-executing the last stored block");
            let bytes = chain.blocks.block(tip).await?.unwrap_or_default();
            let block = Block::decode(&bytes, limits)?;
            let parent = read_head(&chain.blocks, committed, limits).await?;
            let executed = chain
                .execute(&parent, None, &block)
                .await?
                .map_err(|error| ChainError::InvalidStored { height: tip, error })?;
            let root = chain.state.commit_staged(&executed.state).await?;
            if root != block.header.state_root.0 {
                return Err(ChainError::Inconsistent(format!(
                    "re-executed block {tip} to a different state root"
                )));
            }
        } else if committed != tip {
            return Err(ChainError::Inconsistent(format!(
                "state is at block {committed} but the block store at {tip}"
            )));
        }
        chain.load_pending()?;
        chain.publish_reader();
        Ok(chain)
    }

    /// Readers of the last finalized block, one per finalization, for work done outside the
    /// chain's lock (see `crate::reader`).
    pub fn readers(&self) -> watch::Receiver<Option<Arc<Reader<E>>>> {
        self.readers.subscribe()
    }

    fn publish_reader(&self) {
        let head = self.head.clone();
        // Simulations run as the next block would: at the head's timestamp plus one.
        let sim_env = env_after(
            self.rules(),
            Parent {
                header: &head.header,
                hash: head.hash,
            },
            head.header.timestamp_ms + 1,
            Address([0; 20]),
        );
        let reader = Reader {
            state: self.state.snapshot(),
            blocks: self.blocks.clone(),
            genesis: Arc::new(self.genesis.clone()),
            basefees: self.next_basefees(),
            head,
            sim_env,
            base: self.base.as_ref().map_or(0, |b| b.height),
        };
        self.readers.send_replace(Some(Arc::new(reader)));
    }

    /// The data directory the chain was opened in (files the node keeps beside the chain's
    /// own, such as `snapshot_sync::BAD_SOURCES_FILE`, go here).
    pub fn data_dir(&self) -> &Path {
        &self.dir
    }

    /// The genesis.
    pub fn genesis(&self) -> &Genesis {
        &self.genesis
    }

    /// The last finalized block.
    pub fn head(&self) -> &Head {
        &self.head
    }

    /// Watch the head (changes on every finalization).
    pub fn watch_head(&self) -> watch::Receiver<Head> {
        self.head_tx.subscribe()
    }

    /// Finalized blocks as they come.
    pub fn subscribe_finalized(&self) -> broadcast::Receiver<Arc<Finalized>> {
        self.finalized_tx.subscribe()
    }

    fn rules(&self) -> ChainRules<'_> {
        ChainRules {
            chain_id: self.genesis.chain_id,
            params: &self.genesis.params,
        }
    }

    /// Basefees of the next block.
    pub fn next_basefees(&self) -> Basefees {
        basefees_after(&self.head.header, &self.genesis.params)
    }

    /// Execute `block` on its parent's state (`parent_state` when the parent is pending, else
    /// the committed state, which must then be the parent's), under exec's block rule.
    /// `Ok(Err(_))`: the block is invalid.
    async fn execute(
        &self,
        parent: &Head,
        parent_state: Option<&Arc<Staged>>,
        block: &Block,
    ) -> CResult<Result<Executed, BlockError>> {
        let target = self
            .beacon_target(parent, parent_state, block.header.height)
            .await?;
        let parent = Parent {
            header: &parent.header,
            hash: parent.hash,
        };
        Ok(rule::verify(
            &self.state,
            parent_state,
            self.rules(),
            parent,
            block,
            target,
        )
        .await?)
    }

    /// The hash of the block a child of `parent` at `height` must carry the beacon
    /// signature over (exec's `beacon::target_height` under the beacon's schedule in the
    /// parent's state, `parent_state` or the committed one), on `parent`'s chain: found among
    /// the pending blocks back to the finalized chain, then in the block store. `None` if the
    /// child carries none. `parent` is the head or a pending block descending from it.
    async fn beacon_target(
        &self,
        parent: &Head,
        parent_state: Option<&Arc<Staged>>,
        height: u64,
    ) -> CResult<Option<Hash32>> {
        let schedule = self.schedule_on(parent_state, height)?;
        let Some(target) = cowboy_exec::beacon::target_height(schedule.as_ref(), height) else {
            return Ok(None);
        };
        let (mut at, mut hash) = (parent.header.clone(), parent.hash);
        while at.height > target && at.height > self.head.header.height {
            let Some(p) = self.pending.get(&at.parent_hash) else {
                break;
            };
            hash = at.parent_hash;
            at = p.block.header.clone();
        }
        if at.height == target {
            return Ok(Some(hash));
        }
        // Below a snapshot's block the store holds nothing; the base names what is needed.
        if let Some(hash) = self.base.as_ref().and_then(|b| b.hash_at(target)) {
            return Ok(Some(hash));
        }
        let limits = self.genesis.params.block_limits();
        Ok(Some(read_head(&self.blocks, target, limits).await?.hash))
    }

    /// What the leader of a child of `parent` needs from the beacon: the height and hash of
    /// the block the child must carry the signature over, and whether that block is
    /// finalized here (only a finalized block is signed). `None`: the child carries none.
    pub async fn beacon_need(&self, parent: &Hash32) -> CResult<Option<(u64, Hash32, bool)>> {
        let (head, state) = self.base(parent).ok_or(ChainError::Missing(*parent))?;
        let height = head.header.height + 1;
        Ok(self
            .beacon_target(&head, state.as_ref(), height)
            .await?
            .map(|hash| {
                let target = height - cowboy_exec::beacon::BEACON_LAG;
                (target, hash, target <= self.head.header.height)
            }))
    }

    /// The beacon's schedule (exec's `beacon::schedule`) in `state` (a pending block's, or the
    /// committed state), as a block at `height` reads it.
    fn schedule_on(
        &self,
        state: Option<&Arc<Staged>>,
        height: u64,
    ) -> CResult<Option<cowboy_exec::beacon::Schedule>> {
        // A dealt group's schedule (or none) needs no state: no view is opened for it.
        if let Some(fixed) = cowboy_exec::beacon::fixed_schedule(&self.genesis.params) {
            return Ok(fixed);
        }
        let mut view = cowboy_exec::BlockState::new(self.state.batch_on(state));
        Ok(cowboy_exec::beacon::schedule(
            &mut view,
            &self.genesis.params,
            height,
        )?)
    }

    /// The beacon's schedule in the state of `parent` (the head or a pending block executed
    /// here), else in the committed state: a later state on the chain answers the same for
    /// every block the schedule covers (exec's `beacon`).
    pub fn beacon_schedule(
        &self,
        parent: &Hash32,
    ) -> CResult<Option<cowboy_exec::beacon::Schedule>> {
        let state = self.base(parent).and_then(|(_, s)| s);
        self.schedule_on(state.as_ref(), self.head.header.height + 1)
    }

    /// The block `parent` as a child can be executed on: the head (whose state is the
    /// committed one), or a pending block executed here (with its staged state). `None` if it
    /// is neither (unknown, not executed yet, or on a fork the head does not descend from).
    fn base(&self, parent: &Hash32) -> Option<(Head, Option<Arc<Staged>>)> {
        if *parent == self.head.hash {
            return Some((self.head.clone(), None));
        }
        let p = self.pending.get(parent)?;
        let state = p.executed.as_ref()?.state.clone();
        Some((
            Head {
                header: p.block.header.clone(),
                hash: *parent,
            },
            Some(state),
        ))
    }

    /// The header of block `parent` if a child of it can be built or verified here now: it is
    /// the head, or a pending block executed here.
    pub fn extendable(&self, parent: &Hash32) -> Option<BlockHeader> {
        self.base(parent).map(|(head, _)| head.header)
    }

    /// Make `hash` extendable when it is a pending block not executed here yet whose
    /// ancestors are pending blocks down to one that is extendable: execute them, oldest
    /// first, as verifying them would. This is the case of blocks reloaded from disk after a
    /// restart ([`Self::load_pending`] keeps them unexecuted): the engine may have notarized
    /// them before the crash and will not ask to verify them again, so a proposal or a
    /// verification waiting for one as its parent would otherwise wait until a finalization
    /// executes it, which on a single validator never comes. Whether `hash` is extendable
    /// after; at most the pending set's blocks are walked.
    pub async fn execute_reloaded(&mut self, hash: &Hash32) -> CResult<bool> {
        let mut unexecuted = Vec::new();
        let mut at = *hash;
        while self.extendable(&at).is_none() {
            let Some(p) = self.pending.get(&at) else {
                return Ok(false);
            };
            if unexecuted.len() > self.pending.len() {
                return Ok(false);
            }
            unexecuted.push(at);
            at = p.block.header.parent_hash;
        }
        for h in unexecuted.iter().rev() {
            if self.verify(h).await? != Verdict::Valid {
                return Ok(false);
            }
        }
        Ok(self.extendable(hash).is_some())
    }

    /// Next nonces at `state` (a pending block's, or the committed state) of every sender
    /// with queued transactions.
    async fn queued_nonces(&self, state: Option<&Arc<Staged>>) -> CResult<BTreeMap<Address, u64>> {
        let view = self.state.batch_on(state);
        let mut out = BTreeMap::new();
        for sender in self.mempool.senders() {
            let nonce = view.account(&sender.0).await?.map_or(0, |a| a.nonce);
            out.insert(sender, nonce);
        }
        Ok(out)
    }

    /// Whether the mempool holds a transaction a child of `parent` could include: one at or
    /// after its sender's next nonce at `parent`'s state. Transactions already in `parent` or
    /// a pending ancestor stay pooled until finalized, but do not count.
    pub async fn holds_txs_for(&self, parent: &Hash32) -> CResult<bool> {
        let Some((_, state)) = self.base(parent) else {
            return Ok(!self.mempool.is_empty());
        };
        let nonces = self.queued_nonces(state.as_ref()).await?;
        Ok(nonces
            .iter()
            .any(|(sender, nonce)| self.mempool.holds_from(sender, *nonce)))
    }

    /// Build a child of `parent` (the head, or a pending block executed here: see
    /// [`Self::extendable`]): select from the mempool, then let exec's block rule build and
    /// seal it, with the valid ones of `votes` (collected for `parent`'s parent) as its vote
    /// record, trying candidates until `cutoff` says stop (the proposer's time budget:
    /// [`cowboy_exec::block::build_block`]). The block is kept (and persisted) as pending; its
    /// hash is the consensus payload.
    pub async fn build(
        &mut self,
        parent: &Hash32,
        timestamp_ms: u64,
        proposer: Address,
        votes: Option<VoteRecord>,
        beacon: Option<cowboy_exec::beacon::Signed>,
        cutoff: cowboy_exec::block::Cutoff<'_>,
    ) -> CResult<Block> {
        let (parent, parent_state) = self.base(parent).ok_or(ChainError::Missing(*parent))?;
        let basefees = basefees_after(&parent.header, &self.genesis.params);
        let randomness = beacon.as_ref().map_or_else(
            || cowboy_exec::header::randomness_after(&parent.hash),
            |b| cowboy_exec::beacon::randomness_of(&b.signature),
        );
        let nonces = self.queued_nonces(parent_state.as_ref()).await?;
        let candidates = self
            .mempool
            .select(&self.genesis.params, basefees, &randomness, |a| {
                nonces.get(a).copied().unwrap_or(0)
            });
        let proposal = rule::propose(
            &self.state,
            parent_state.as_ref(),
            self.rules(),
            Parent {
                header: &parent.header,
                hash: parent.hash,
            },
            timestamp_ms,
            proposer,
            candidates,
            votes,
            beacon,
            // Exec keeps the valid ones whose dealer has no log recorded on this branch.
            self.dealer_logs.clone(),
            cutoff,
        )
        .await?;
        // Transactions the rule found invalid leave the pool instead of holding their budget.
        self.mempool.on_skipped(&proposal.skipped);
        if proposal.deferred > 0 {
            tracing::info!(
                height = proposal.block.header.height,
                txs = proposal.block.transactions.len(),
                deferred = proposal.deferred,
                "build stopped at the time budget; the rest stay pooled"
            );
        }
        let block = proposal.block;
        self.keep_pending(block.clone(), Some(proposal.executed))?;
        Ok(block)
    }

    /// The dealer logs the blocks this node builds offer (see the field's docs); replaces
    /// the previous offer (empty: none).
    pub fn offer_dealer_logs(&mut self, logs: Vec<Vec<u8>>) {
        self.dealer_logs = logs;
    }

    /// The height of the highest block built or received here, final or not.
    pub fn built_height(&self) -> u64 {
        self.pending
            .values()
            .map(|p| p.block.header.height)
            .fold(self.head.header.height, u64::max)
    }

    /// A pending (built, verified or received) block by hash.
    pub fn pending_block(&self, hash: &Hash32) -> Option<&Block> {
        self.pending.get(hash).map(|p| &p.block)
    }

    /// Keep a block received from a peer until consensus asks about it. Returns its hash, or
    /// `None` if it cannot matter (at or below the finalized height) or is not the block its
    /// hash names: a body the header does not commit to. Kept, such a forgery would sit under
    /// the real block's hash (the first body in wins), and a peer relaying a leader's header
    /// with another body ahead of the leader would make honest validators refuse a valid
    /// proposal. Checking costs a hash per transaction, which verification pays anyway.
    pub fn receive(&mut self, block: Block) -> Option<Hash32> {
        if block.header.height <= self.head.header.height || !block.body_matches_header() {
            return None;
        }
        let hash = block.header.hash();
        if !self.pending.contains_key(&hash) {
            if self.pending.len() >= MAX_RECEIVED {
                // Drop the highest unexecuted block: the furthest from being useful.
                let victim = self
                    .pending
                    .iter()
                    .filter(|(_, p)| p.executed.is_none())
                    .max_by_key(|(h, p)| (p.block.header.height, **h))
                    .map(|(h, _)| *h);
                if let Some(v) = victim {
                    self.pending.remove(&v);
                }
            }
            self.pending.insert(
                hash,
                Pending {
                    block,
                    executed: None,
                },
            );
        }
        self.head_tx.send_modify(|_| {});
        Some(hash)
    }

    /// Verify pending block `hash`, whose parent must be extendable ([`Self::extendable`]).
    /// Persists it when valid.
    pub async fn verify(&mut self, hash: &Hash32) -> CResult<Verdict> {
        let Some(p) = self.pending.get(hash) else {
            return Err(ChainError::Missing(*hash));
        };
        if p.executed.is_some() {
            return Ok(Verdict::Valid);
        }
        let block = p.block.clone();
        let parent_hash = block.header.parent_hash;
        let (parent, parent_state) = self
            .base(&parent_hash)
            .ok_or(ChainError::Missing(parent_hash))?;
        match self.execute(&parent, parent_state.as_ref(), &block).await? {
            Ok(executed) => {
                self.keep_pending(block, Some(executed))?;
                Ok(Verdict::Valid)
            }
            Err(reason) => {
                self.pending.remove(hash);
                Ok(Verdict::Invalid {
                    reason,
                    block: Box::new(block),
                    parent: Box::new(parent.header),
                })
            }
        }
    }

    fn keep_pending(&mut self, block: Block, executed: Option<Executed>) -> CResult<()> {
        let hash = block.header.hash();
        let path = self
            .pending_dir
            .join(format!("{}.block", hex::encode(hash.0)));
        if !path.exists() {
            write_atomic(&path, &block.encode())?;
        }
        let executed_now = executed.is_some();
        self.pending.insert(hash, Pending { block, executed });
        if executed_now {
            // Children of this block waiting to be built or verified can go ahead.
            self.head_tx.send_modify(|_| {});
        }
        Ok(())
    }

    fn load_pending(&mut self) -> CResult<()> {
        let limits = self.genesis.params.block_limits();
        for entry in std::fs::read_dir(&self.pending_dir)? {
            let path = entry?.path();
            let keep = std::fs::read(&path)
                .ok()
                .and_then(|b| Block::decode(&b, limits).ok())
                .filter(|b| b.header.height > self.head.header.height);
            match keep {
                Some(block) => {
                    let hash = block.header.hash();
                    self.pending.insert(
                        hash,
                        Pending {
                            block,
                            executed: None,
                        },
                    );
                }
                None => {
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        Ok(())
    }

    /// Finalize pending block `hash` (a child of the head): store it, commit its state, announce
    /// it. Already finalized blocks are ignored (consensus replays finalizations after a
    /// restart).
    pub async fn finalize(&mut self, hash: &Hash32) -> CResult<Option<Arc<Finalized>>> {
        if self.blocks.block_by_hash(&hash.0).await?.is_some() {
            return Ok(None);
        }
        let Some(p) = self.pending.remove(hash) else {
            return Err(ChainError::Missing(*hash));
        };
        let head = self.head.clone();
        let Executed {
            state,
            receipts,
            timers,
            hooks,
            senders,
        } = match p.executed {
            Some(e) => e,
            None => self
                .execute(&head, None, &p.block)
                .await?
                .map_err(|error| ChainError::InvalidStored {
                    height: p.block.header.height,
                    error,
                })?,
        };
        let block = p.block;
        let height = block.header.height;
        store_block(
            &mut self.blocks,
            &mut self.state,
            hash,
            &block,
            &state,
            (&receipts[..], &timers[..], &hooks, &senders[..]),
        )
        .await?;
        self.head = Head {
            header: block.header.clone(),
            hash: *hash,
        };
        if staking::is_boundary(&self.genesis.params, height) {
            // Only now, while this block's state is the latest, can its proofs be made.
            if let Err(e) = self.keep_boundary(&block.header).await {
                tracing::warn!(height, error = %e, "cannot keep the epoch's boundary record");
            }
        }
        // Siblings and stale blocks can never be finalized now. Descendants of this block keep
        // their executions (staged over its state, now committed); blocks on other forks lose
        // theirs, so nothing is ever built or verified on them.
        self.pending.retain(|_, p| p.block.header.height > height);
        let mut by_height: Vec<(u64, Hash32, Hash32)> = self
            .pending
            .iter()
            .map(|(h, p)| (p.block.header.height, *h, p.block.header.parent_hash))
            .collect();
        by_height.sort();
        let mut descendants = std::collections::BTreeSet::from([*hash]);
        for (_, h, parent) in by_height {
            if descendants.contains(&parent) {
                descendants.insert(h);
            } else if let Some(p) = self.pending.get_mut(&h) {
                p.executed = None;
            }
        }
        self.remove_pending_files(height);
        let mut accounts = BTreeMap::new();
        for sender in self.mempool.senders() {
            let a = self.account(&sender).await?;
            accounts.insert(
                sender,
                SenderState {
                    nonce: a.nonce,
                    balance: a.balance,
                },
            );
        }
        self.mempool
            .prune(|a| accounts.get(a).copied().unwrap_or_default());
        self.since_prune += 1;
        if self.since_prune >= PRUNE_EVERY {
            self.since_prune = 0;
            let keep = self.keep_ops.iter().flatten().min().copied();
            self.state.prune_keeping(keep).await?;
        }
        let finalized = Arc::new(Finalized {
            block,
            hash: *hash,
            receipts,
            timers,
            hooks,
        });
        let _ = self.finalized_tx.send(finalized.clone());
        self.publish_reader();
        let head = self.head.clone();
        self.head_tx.send_replace(head);
        Ok(Some(finalized))
    }

    /// Remove the persisted pending blocks at or below `height` (and any that do not decode).
    fn remove_pending_files(&self, height: u64) {
        let limits = self.genesis.params.block_limits();
        if let Ok(dir) = std::fs::read_dir(&self.pending_dir) {
            for entry in dir.flatten() {
                let stale = std::fs::read(entry.path())
                    .ok()
                    .and_then(|b| Block::decode(&b, limits).ok())
                    .is_none_or(|b| b.header.height <= height);
                if stale {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
    }

    /// The height of finalized block `hash`, if it is final here.
    pub async fn final_height(&self, hash: &Hash32) -> CResult<Option<u64>> {
        Ok(self.blocks.block_by_hash(&hash.0).await?.map(|(h, _)| h))
    }

    /// Whether block `hash` is final here.
    pub async fn knows_final(&self, hash: &Hash32) -> CResult<bool> {
        Ok(self.final_height(hash).await?.is_some())
    }

    /// The height of block `hash` if a pending block names it as its parent (what
    /// [`Self::finalize_through`] found missing, when it walked down to it).
    pub fn missing_height(&self, hash: &Hash32) -> Option<u64> {
        self.pending
            .values()
            .find(|p| p.block.header.parent_hash == *hash)
            .and_then(|p| p.block.header.height.checked_sub(1))
    }

    /// Whether block `hash` is here, pending or finalized.
    pub async fn knows(&self, hash: &Hash32) -> CResult<bool> {
        Ok(self.pending.contains_key(hash) || self.blocks.block_by_hash(&hash.0).await?.is_some())
    }

    /// Revert the chain to its block at `height`, which must hash to `hash` (a dev node's
    /// `dev_revert`; see the module docs, "Generations"): re-execute blocks `1..=height` from
    /// genesis into the next generation's stores, switch to them, and drop every block above,
    /// pending blocks and the mempool. Costs the execution of those blocks; the chain is
    /// locked meanwhile. On error nothing changed (the half-built generation is removed by the
    /// next attempt).
    pub async fn revert_to(&mut self, height: u64, hash: &Hash32) -> CResult<()> {
        let limits = self.genesis.params.block_limits();
        let next = self.generation + 1;
        let prefix = self.partition_prefix.clone();
        destroy_partitions(&self.context, &partitions(&prefix, next)).await?;
        let (mut state, mut blocks) =
            open_stores(&self.context, &prefix, next, self.history_blocks).await?;
        init_genesis(&mut state, &mut blocks, &self.genesis).await?;
        let mut parent = read_head(&blocks, 0, limits).await?;
        for h in 1..=height {
            let bytes = self.blocks.block(h).await?.ok_or_else(|| {
                ChainError::Inconsistent(format!("block {h} missing from the block store"))
            })?;
            let block = Block::decode(&bytes, limits)?;
            let schedule =
                cowboy_exec::beacon::committed_schedule(&state, &self.genesis.params).await?;
            let target = match cowboy_exec::beacon::target_height(schedule.as_ref(), h) {
                Some(t) => Some(read_head(&blocks, t, limits).await?.hash),
                None => None,
            };
            let at = Parent {
                header: &parent.header,
                hash: parent.hash,
            };
            let executed = rule::verify(&state, None, self.rules(), at, &block, target)
                .await?
                .map_err(|error| ChainError::InvalidStored { height: h, error })?;
            let block_hash = block.header.hash();
            let Executed {
                state: staged,
                receipts,
                timers,
                hooks,
                senders,
            } = executed;
            store_block(
                &mut blocks,
                &mut state,
                &block_hash,
                &block,
                &staged,
                (&receipts[..], &timers[..], &hooks, &senders[..]),
            )
            .await?;
            parent = Head {
                header: block.header,
                hash: block_hash,
            };
        }
        if parent.hash != *hash {
            return Err(ChainError::Inconsistent(format!(
                "block {height} rebuilt to {}, not {}",
                parent.hash.to_hex(),
                hash.to_hex()
            )));
        }
        write_atomic(&self.dir.join(GENERATION_FILE), next.to_string().as_bytes())?;
        let old = self.generation;
        self.generation = next;
        self.state = state;
        self.blocks = blocks;
        self.head = parent;
        self.pending.clear();
        self.remove_pending_files(u64::MAX);
        self.mempool.clear();
        self.since_prune = 0;
        self.base = None;
        // Readers still holding the old stores fail their next read and retry on the new one.
        // What cannot be removed now is removed when the chain is next opened.
        if let Err(e) = destroy_partitions(&self.context, &partitions(&prefix, old)).await {
            tracing::warn!(generation = old, error = %e, "cannot remove the old generation");
        }
        self.publish_reader();
        let head = self.head.clone();
        self.head_tx.send_replace(head);
        Ok(())
    }

    /// Finalize `hash` and every unfinalized ancestor of it, oldest first. `Ok(Err(missing))`
    /// names the first block on the way back to the head that is not here (to be fetched from
    /// a peer); what could be finalized before it is not, since the path is walked first.
    pub async fn finalize_through(
        &mut self,
        hash: &Hash32,
    ) -> CResult<Result<Vec<Arc<Finalized>>, Hash32>> {
        if self.blocks.block_by_hash(&hash.0).await?.is_some() {
            return Ok(Ok(Vec::new()));
        }
        let mut path = Vec::new();
        let mut cur = *hash;
        while cur != self.head.hash {
            let Some(p) = self.pending.get(&cur) else {
                return Ok(Err(cur));
            };
            if p.block.header.height <= self.head.header.height {
                return Err(ChainError::Inconsistent(format!(
                    "finalized block {} does not descend from the finalized head",
                    hash.to_hex()
                )));
            }
            path.push(cur);
            cur = p.block.header.parent_hash;
        }
        let mut done = Vec::new();
        for h in path.into_iter().rev() {
            if let Some(f) = self.finalize(&h).await? {
                done.push(f);
            }
        }
        Ok(Ok(done))
    }

    /// Keep `certificate`, the finalization certificate of epoch `epoch`'s last block (final
    /// here), in the data directory's `certificates/`, one file per epoch, written atomically:
    /// what a peer catching up across that epoch asks for (`crate::sync`, `WantTip`). Small
    /// (an ed25519 certificate is 64 bytes and a bit per signer) and one per epoch.
    pub fn keep_certificate(&self, epoch: u64, certificate: &[u8]) -> CResult<()> {
        let dir = self.dir.join(CERTIFICATES_DIR);
        std::fs::create_dir_all(&dir)?;
        write_atomic(&dir.join(format!("{epoch}.fin")), certificate)?;
        Ok(())
    }

    /// The certificate kept for epoch `epoch`'s last block ([`Self::keep_certificate`]).
    pub fn certificate(&self, epoch: u64) -> Option<Vec<u8>> {
        std::fs::read(self.dir.join(CERTIFICATES_DIR).join(format!("{epoch}.fin"))).ok()
    }

    /// Keep the boundary record of `header`'s block, the last of its epoch, whose state is
    /// the latest committed one (see `crate::snapshot_sync`): the snapshot target of that
    /// state and the next epoch's set entry with its proof, in `certificates/<epoch>.boundary`.
    async fn keep_boundary(&mut self, header: &BlockHeader) -> CResult<()> {
        let epoch = staking::epoch_of(&self.genesis.params, header.height);
        let target = self.state.snapshot_target().await?.ok_or_else(|| {
            ChainError::Inconsistent("a boundary block's state is not committed".into())
        })?;
        let (set, proof) = self
            .state
            .prove_storage(&STAKING.0, &staking::active_set_key(epoch + 1))
            .await?;
        let Some(set) = set else {
            return Err(ChainError::Inconsistent(format!(
                "no active set for epoch {} after its boundary",
                epoch + 1
            )));
        };
        let lower = target.lower;
        let record = crate::snapshot_sync::Boundary {
            header: header.clone(),
            target,
            set,
            proof,
        };
        self.keep_boundary_record(epoch, &record.encode())?;
        self.keep_ops = [self.keep_ops[1], Some(lower)];
        Ok(())
    }

    /// Keep `record`, epoch `epoch`'s boundary record (made here, or verified from a peer),
    /// atomically in `certificates/<epoch>.boundary`.
    pub fn keep_boundary_record(&self, epoch: u64, record: &[u8]) -> CResult<()> {
        let dir = self.dir.join(CERTIFICATES_DIR);
        std::fs::create_dir_all(&dir)?;
        write_atomic(&dir.join(format!("{epoch}.boundary")), record)?;
        Ok(())
    }

    /// The boundary record kept for epoch `epoch`'s last block ([`Self::keep_boundary_record`]).
    pub fn boundary(&self, epoch: u64) -> Option<Vec<u8>> {
        std::fs::read(
            self.dir
                .join(CERTIFICATES_DIR)
                .join(format!("{epoch}.boundary")),
        )
        .ok()
    }

    /// Whether catch-up may use a state snapshot (default: yes).
    pub fn snapshot_sync(&self) -> bool {
        self.snapshot_sync
    }

    /// Let catch-up use a state snapshot, or not (then a node far behind re-executes every
    /// block from its head, keeping every block, receipt and index).
    pub fn set_snapshot_sync(&mut self, on: bool) {
        self.snapshot_sync = on;
    }

    /// Where the chain begins, if it was built from a state snapshot.
    pub fn snapshot_base(&self) -> Option<&SnapshotBase> {
        self.base.as_ref()
    }

    /// The storage to build a state snapshot in: the next generation's state partitions,
    /// emptied first (what a failed or interrupted build left). Build it with
    /// `StateDb::from_snapshot` *without* the chain's lock, then [`Self::install_snapshot`].
    pub async fn snapshot_slot(&self) -> CResult<SnapshotSlot<E>> {
        let generation = self.generation + 1;
        destroy_partitions(
            &self.context,
            &partitions(&self.partition_prefix, generation),
        )
        .await?;
        let (mut config, _) = store_names(&self.partition_prefix, generation);
        config.history_blocks = self.history_blocks;
        Ok(SnapshotSlot {
            context: self
                .context
                .child("state")
                .with_attribute("generation", generation),
            config,
            generation,
        })
    }

    /// Switch the chain to a state built from a snapshot in `generation`'s slot
    /// ([`Self::snapshot_slot`]) at the certified `block`, the last of its epoch, whose
    /// certificate is `certificate` and boundary record `record` (both verified by the
    /// caller: `crate::snapshot_sync::check_epoch`); `below` are the hashes of the blocks
    /// under it the beacon rule still names, lowest first, authenticated by `block`'s parent
    /// links. Like a revert (see the module docs, "Generations"): the new block store begins
    /// at `block`; the epoch's certificate and record are kept, the base file gets the new
    /// generation's line beside the current one's, then the generation file is written (the
    /// switch) and the old generation is removed. Every write that can fail the install comes
    /// before the switch, so on error (or a crash) before it the chain is still the old
    /// generation, whole, and a restart reopens that with its base; after it, only the new
    /// one is opened. Pending blocks above `block` stay (unexecuted); the mempool is emptied.
    /// On error nothing changed (what the attempt wrote is removed by the next one, or when
    /// the chain is next opened).
    pub async fn install_snapshot(
        &mut self,
        generation: u64,
        state: StateDb<E>,
        block: &Block,
        below: Vec<Hash32>,
        (certificate, record): (&[u8], &[u8]),
    ) -> CResult<()> {
        let height = block.header.height;
        let hash = block.header.hash();
        let trusted = Some(cowboy_state::Committed {
            height,
            root: block.header.state_root.0,
        });
        if generation != self.generation + 1
            || height <= self.head.header.height
            || state.last_committed() != trusted
            || !block.body_matches_header()
            || !staking::is_boundary(&self.genesis.params, height)
        {
            return Err(ChainError::Inconsistent(format!(
                "a snapshot of block {height} (generation {generation}) does not fit a chain \
                 at {} (generation {})",
                self.head.header.height, self.generation
            )));
        }
        let prefix = self.partition_prefix.clone();
        let (_, blocks_prefix) = store_names(&prefix, generation);
        let mut blocks = BlockStore::open(
            self.context
                .child("blocks")
                .with_attribute("generation", generation),
            &blocks_prefix,
        )
        .await?;
        blocks.begin_at(height)?;
        // No receipts, timer executions or transaction index: they come from executing the
        // block, which this node did not (RPC answers `BeforeSnapshot` for them).
        blocks
            .append(height, hash.0, &block.encode(), &[], &[], &[], None)
            .await?;
        let mut hashes = below;
        hashes.push(hash);
        let base = SnapshotBase { height, hashes };
        let epoch = staking::epoch_of(&self.genesis.params, height);
        self.keep_certificate(epoch, certificate)?;
        self.keep_boundary_record(epoch, record)?;
        // The base of the generation switched from stays in the file until the switch is
        // done: a crash before it reopens that generation, which needs its own.
        let mut lines = self
            .base
            .as_ref()
            .map(|b| b.encode(self.generation) + "\n")
            .unwrap_or_default();
        lines.push_str(&base.encode(generation));
        write_atomic(&self.dir.join(BASE_FILE), lines.as_bytes())?;
        // The switch. Nothing after it may fail the install: the data directory names the
        // new generation now, so the chain must run on it.
        write_atomic(
            &self.dir.join(GENERATION_FILE),
            generation.to_string().as_bytes(),
        )?;
        if let Err(e) = write_atomic(
            &self.dir.join(BASE_FILE),
            base.encode(generation).as_bytes(),
        ) {
            tracing::warn!(error = %e, "cannot drop the old generation's line of the base file");
        }
        let old = self.generation;
        self.generation = generation;
        self.state = state;
        self.blocks = blocks;
        self.base = Some(base);
        self.head = Head {
            header: block.header.clone(),
            hash,
        };
        self.pending.retain(|_, p| p.block.header.height > height);
        for p in self.pending.values_mut() {
            p.executed = None;
        }
        self.remove_pending_files(height);
        self.mempool.clear();
        self.since_prune = 0;
        self.keep_ops = [None, None];
        if let Ok(b) = crate::snapshot_sync::Boundary::decode(record) {
            self.keep_ops[1] = Some(b.target.lower);
        }
        // Readers still holding the old stores fail their next read and retry on the new one.
        // What cannot be removed now is removed when the chain is next opened.
        if let Err(e) = destroy_partitions(&self.context, &partitions(&prefix, old)).await {
            tracing::warn!(generation = old, error = %e, "cannot remove the old generation");
        }
        self.publish_reader();
        let head = self.head.clone();
        self.head_tx.send_replace(head);
        Ok(())
    }

    /// A block's canonical bytes, pending or finalized (to answer a peer's request).
    pub async fn block_bytes(&self, hash: &Hash32) -> CResult<Option<Vec<u8>>> {
        if let Some(p) = self.pending.get(hash) {
            return Ok(Some(p.block.encode()));
        }
        Ok(self.blocks.block_by_hash(&hash.0).await?.map(|(_, b)| b))
    }

    /// Submit a signed transaction to the mempool.
    pub async fn submit(&mut self, bytes: &[u8]) -> CResult<Result<Hash32, Rejection>> {
        match Mempool::check(bytes, &self.genesis.params, self.genesis.chain_id) {
            Ok(checked) => self.submit_checked(checked).await,
            Err(rejection) => Ok(Err(rejection)),
        }
    }

    /// Submit a transaction that passed [`Mempool::check`]: the checks that read the state
    /// (nonce, balance at the last finalized block) and the pool's bounds.
    pub async fn submit_checked(
        &mut self,
        checked: CheckedTx,
    ) -> CResult<Result<Hash32, Rejection>> {
        let account = self.account(&checked.sender).await?;
        let basefees = self.next_basefees();
        Ok(self
            .mempool
            .insert_checked(checked, basefees, |_| SenderState {
                nonce: account.nonce,
                balance: account.balance,
            }))
    }

    /// An account at the last finalized state (the default, empty account if absent).
    pub async fn account(&self, address: &Address) -> CResult<Account> {
        Ok(self.state.account(&address.0).await?.unwrap_or_default())
    }
}

/// The file naming the generation of the stores (see the module docs).
const GENERATION_FILE: &str = "generation";

/// The state's configuration and the block store's prefix of `generation`, under `prefix`.
fn store_names(prefix: &str, generation: u64) -> (StateConfig, String) {
    match generation {
        0 => (
            StateConfig::new(format!("{prefix}state")),
            format!("{prefix}blocks"),
        ),
        g => (
            StateConfig::new(format!("{prefix}state-g{g}")),
            format!("{prefix}blocks-g{g}"),
        ),
    }
}

/// Every storage partition of `generation`'s stores under `prefix`.
fn partitions(prefix: &str, generation: u64) -> Vec<String> {
    let (state, blocks) = store_names(prefix, generation);
    let mut all = state.partitions();
    all.extend(cowboy_state::blocks::partitions(&blocks));
    all
}

async fn open_stores<E: Context>(
    context: &E,
    prefix: &str,
    generation: u64,
    history_blocks: u64,
) -> CResult<(StateDb<E>, BlockStore<E>)> {
    let (mut state_cfg, blocks_prefix) = store_names(prefix, generation);
    state_cfg.history_blocks = history_blocks;
    let state = StateDb::open(
        context
            .child("state")
            .with_attribute("generation", generation),
        &state_cfg,
    )
    .await?;
    let blocks = BlockStore::open(
        context
            .child("blocks")
            .with_attribute("generation", generation),
        &blocks_prefix,
    )
    .await?;
    Ok((state, blocks))
}

/// Commit the genesis state and store the genesis block, whichever is not there yet.
async fn init_genesis<E: Context>(
    state: &mut StateDb<E>,
    blocks: &mut BlockStore<E>,
    genesis: &Genesis,
) -> CResult<()> {
    if state.last_committed().is_none() {
        if blocks.last_height()?.is_some() {
            return Err(ChainError::Inconsistent(
                "block store has blocks but the state is empty".into(),
            ));
        }
        let mut bs = BlockState::new(state.batch());
        apply_genesis(&mut bs, &genesis.allocations)?;
        staking::apply_genesis(&mut bs, &genesis.params, &genesis.staked_validators())?;
        // The beacon's current sharing, which reshare rounds start from (exec `reshare`).
        match genesis.beacon_output() {
            Some(output) => cowboy_exec::reshare::apply_genesis(&mut bs, &genesis.params, &output)?,
            None if genesis.beacon.is_some() => {
                return Err(ChainError::Inconsistent(
                    "the genesis beacon polynomial is not a quorum sharing of the validators"
                        .into(),
                ))
            }
            None => {}
        }
        let changes = bs.finish();
        state.commit(0, changes).await?;
    }
    if blocks.last_height()?.is_none() {
        let root = state.root()?;
        let header = genesis_header(&genesis.params, genesis.timestamp_ms, Hash32(root));
        let block = Block {
            header,
            transactions: Vec::new(),
            votes: None,
            beacon: None,
            dealer_logs: Vec::new(),
        };
        blocks
            .append(
                0,
                block.header.hash().0,
                &block.encode(),
                &[],
                &[],
                &[],
                None,
            )
            .await?;
    }
    Ok(())
}

/// Append an executed block (with its receipt and timer records and transaction index) to
/// the block store, durably, then commit its staged state and check the root against the
/// header (the crash-safe order: see the module docs).
async fn store_block<E: Context>(
    blocks: &mut BlockStore<E>,
    state: &mut StateDb<E>,
    hash: &Hash32,
    block: &Block,
    staged: &Staged,
    (receipts, timers, hooks, senders): (
        &[Receipt],
        &[cowboy_types::TimerExecution],
        &HookEvents,
        &[Address],
    ),
) -> CResult<()> {
    let height = block.header.height;
    let tx_hashes: Vec<[u8; 32]> = block.transactions.iter().map(|t| t.hash().0).collect();
    let encoded: Vec<Vec<u8>> = block
        .transactions
        .iter()
        .zip(senders.iter().zip(receipts))
        .map(|(tx, (from, r))| ReceiptRecord::encode(hash, *from, tx.to, r))
        .collect();
    let timer_records: Vec<([u8; 32], Vec<u8>)> = timers
        .iter()
        .map(|t| TimerRecord::encode(hash, t))
        .collect();
    let hook_record = (!hooks.is_empty()).then(|| hooks.encode());
    blocks
        .append(
            height,
            hash.0,
            &block.encode(),
            &tx_hashes,
            &encoded,
            &timer_records,
            hook_record.as_deref(),
        )
        .await?;
    let root = state.commit_staged(staged).await?;
    if root != block.header.state_root.0 {
        return Err(ChainError::Inconsistent(format!(
            "block {height} committed to a different state root"
        )));
    }
    Ok(())
}

async fn read_head<E: Context>(
    blocks: &BlockStore<E>,
    height: u64,
    limits: cowboy_types::block::BlockLimits,
) -> CResult<Head> {
    let bytes = blocks.block(height).await?.ok_or_else(|| {
        ChainError::Inconsistent(format!("block {height} missing from the block store"))
    })?;
    let block = Block::decode(&bytes, limits)?;
    Ok(Head {
        hash: block.header.hash(),
        header: block.header,
    })
}

/// Write a file so that a crash leaves either the old or the new content.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-validator dev chain in `dir`, opened as the node named `name` (a restarted node
    /// opens the same directory again under another name).
    fn open_dev<'a>(
        context: &commonware_runtime::deterministic::Context,
        dir: &'a Path,
        genesis: &Genesis,
        name: &'static str,
    ) -> impl std::future::Future<Output = CResult<Chain<commonware_runtime::deterministic::Context>>> + 'a
    {
        use commonware_runtime::Supervisor as _;
        Chain::open(
            context.child(name),
            dir,
            "c-",
            genesis.clone(),
            Mempool::new(100, 1 << 20),
            10,
        )
    }

    #[test]
    fn a_snapshot_base_names_the_hashes_below_it_and_round_trips_per_generation() {
        let base = SnapshotBase {
            height: 79,
            hashes: vec![Hash32([1; 32]), Hash32([2; 32]), Hash32([3; 32])],
        };
        assert_eq!(base.hash_at(77), Some(Hash32([1; 32])));
        assert_eq!(base.hash_at(79), Some(Hash32([3; 32])));
        assert_eq!(base.hash_at(76), None);
        assert_eq!(base.hash_at(80), None);
        let line = base.encode(2);
        assert_eq!(
            SnapshotBase::decode(&line, 2).expect("decodes"),
            Some(base.clone())
        );
        // Another generation's base (a later revert or snapshot switched away): not this one's.
        assert_eq!(SnapshotBase::decode(&line, 3).expect("decodes"), None);
        for bad in ["", "2", "2 x", "2 79 zz", "2 79 0102"] {
            assert!(
                matches!(
                    SnapshotBase::decode(bad, 2),
                    Err(ChainError::Inconsistent(_))
                ),
                "{bad:?}"
            );
        }
        // A base names at least its own block, and no block below genesis.
        let three = format!("2 1 {0} {0} {0}", hex::encode([7; 32]));
        let zero = format!("2 0 {}", hex::encode([7; 32]));
        let top = format!("2 {} {}", u64::MAX, hex::encode([7; 32]));
        assert_eq!(
            SnapshotBase::decode(&top, 2)
                .expect("decodes")
                .map(|b| b.hash_at(0)),
            Some(None)
        );
        for bad in ["2 79", &three, &zero, "\n \n"] {
            assert!(
                matches!(
                    SnapshotBase::decode(bad, 2),
                    Err(ChainError::Inconsistent(_))
                ),
                "{bad:?}"
            );
        }
        // While an install switches generations the file names both, each opening its own;
        // a line that does not decode is refused whichever generation is opened.
        let next = SnapshotBase {
            height: 99,
            hashes: vec![Hash32([4; 32])],
        };
        let both = format!("{}\n{}\n", base.encode(2), next.encode(3));
        assert_eq!(
            SnapshotBase::decode(&both, 2).expect("decodes"),
            Some(base.clone())
        );
        assert_eq!(SnapshotBase::decode(&both, 3).expect("decodes"), Some(next));
        assert_eq!(SnapshotBase::decode(&both, 4).expect("decodes"), None);
        assert!(matches!(
            SnapshotBase::decode(&format!("{both}3 zz"), 2),
            Err(ChainError::Inconsistent(_))
        ));
        // Near genesis fewer hashes are named, never one below height 0.
        let early = SnapshotBase {
            height: 1,
            hashes: vec![Hash32([9; 32])],
        };
        assert_eq!(early.hash_at(1), Some(Hash32([9; 32])));
        assert_eq!(early.hash_at(0), None);
    }

    /// A data directory whose `generation` or `base` file is garbage, or whose base does not
    /// fit its block store, is refused with a typed error when the chain opens; a base of
    /// another generation is ignored.
    #[test]
    fn open_refuses_generation_and_base_files_that_do_not_fit() {
        use commonware_runtime::{deterministic, Runner as _};
        deterministic::Runner::default().start(|context| async move {
            let dir = tempfile::tempdir().expect("dir");
            let genesis = crate::devnet::genesis(1, "127.0.0.1:9000".parse().expect("addr"));
            let open = |name: &'static str| open_dev(&context, dir.path(), &genesis, name);
            let genesis_hash = open("first").await.expect("a new chain").head().hash;
            let stranger = hex::encode([7; 32]);
            let cases: [(&str, &str, bool); 7] = [
                (GENERATION_FILE, "one", false),
                (BASE_FILE, "garbage", false),
                (BASE_FILE, "", false),
                // Generation 0 begins at genesis, not at a snapshot's block 5.
                (BASE_FILE, &format!("0 5 {stranger}"), false),
                (BASE_FILE, &format!("0 {} {stranger}", u64::MAX), false),
                // Nor at a snapshot of its genesis block.
                (
                    BASE_FILE,
                    &format!("0 0 {}", hex::encode(genesis_hash.0)),
                    false,
                ),
                // Another generation's base: not this one's.
                (BASE_FILE, &format!("3 5 {stranger}"), true),
            ];
            for (file, text, opens) in cases {
                std::fs::write(dir.path().join(file), text).expect("write");
                match open("again").await {
                    Ok(_) => assert!(opens, "{file} {text:?} was accepted"),
                    Err(ChainError::Inconsistent(_)) => {
                        assert!(!opens, "{file} {text:?} was refused")
                    }
                    Err(e) => panic!("{file} {text:?}: {e}"),
                }
                let _ = std::fs::remove_file(dir.path().join(file));
            }
            assert_eq!(
                open("last").await.expect("reopens").head().hash,
                genesis_hash
            );
        });
    }

    /// A block built or verified here is kept in `pending/` but reloaded after a crash
    /// unexecuted, and the engine may not ask to verify it again. Executing it when it is
    /// needed as a parent (`build_on` and `check` call `execute_reloaded`) makes it, and the
    /// reloaded ancestors it stands on, extendable again with the state it was built with; a
    /// lone validator killed between building and finalizing a block stalled without this.
    #[test]
    fn a_pending_block_reloaded_after_a_crash_executes_when_needed_as_a_parent() {
        use commonware_runtime::{deterministic, Runner as _};
        use cowboy_types::tx::{Payload, Transaction};
        deterministic::Runner::default().start(|context| async move {
            let dir = tempfile::tempdir().expect("dir");
            let genesis = crate::devnet::genesis(1, "127.0.0.1:9000".parse().expect("addr"));
            let open = |name: &'static str| open_dev(&context, dir.path(), &genesis, name);
            let proposer = genesis.validators[0].coinbase;
            let payee = Address([9; 20]);
            let mut chain = open("before").await.expect("a new chain");
            let origin = chain.head().hash;
            let mut tx = Transaction {
                chain_id: genesis.chain_id,
                nonce: 0,
                to: Some(payee),
                value: 5,
                cycles_limit: 100_000,
                cells_limit: 1_000,
                max_fee_per_cycle: 1 << 40,
                max_fee_per_cell: 1 << 40,
                tip_per_cycle: 0,
                tip_per_cell: 0,
                access_list: None,
                payload: Payload::Transfer.encode(),
                signature: None,
            };
            tx.sign(&crate::genesis::dev_account(0)).expect("signs");
            chain
                .submit(&tx.encode())
                .await
                .expect("state")
                .expect("pooled");
            let cutoff = cowboy_exec::block::no_cutoff;
            let one = chain
                .build(&origin, 1_000, proposer, None, None, &cutoff)
                .await
                .expect("builds on genesis");
            assert_eq!(one.transactions.len(), 1);
            let one = one.header.hash();
            let two = chain
                .build(&one, 2_000, proposer, None, None, &cutoff)
                .await
                .expect("builds on its own pending block")
                .header
                .hash();
            drop(chain);

            // Restarted with nothing finalized: both blocks are back, neither executed.
            let mut chain = open("after").await.expect("reopens");
            assert_eq!(chain.head().hash, origin);
            assert!(chain.pending_block(&two).is_some());
            assert!(chain.extendable(&one).is_none() && chain.extendable(&two).is_none());
            assert!(matches!(
                chain
                    .build(&two, 3_000, proposer, None, None, &cutoff)
                    .await,
                Err(ChainError::Missing(h)) if h == two
            ));
            // A hash the chain does not hold stays unknown.
            assert!(!chain
                .execute_reloaded(&Hash32([5; 32]))
                .await
                .expect("state"));

            // Needed as a parent: executed, its reloaded parent first.
            assert!(chain.execute_reloaded(&two).await.expect("state"));
            assert!(chain.extendable(&one).is_some());
            let three = chain
                .build(&two, 3_000, proposer, None, None, &cutoff)
                .await
                .expect("builds on the reloaded block");
            let three = three.header.hash();
            for h in [one, two, three] {
                chain.finalize(&h).await.expect("state").expect("finalizes");
            }
            assert_eq!(chain.head().hash, three);
            assert_eq!(chain.account(&payee).await.expect("state").balance, 5);
        });
    }
}
