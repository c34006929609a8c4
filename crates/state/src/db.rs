//! The authenticated state database: accounts, actor storage and actor code in one
//! commonware-storage QMDB (`qmdb::current::ordered::variable`, MMR family, Blake3), with one
//! state root per committed block (whitepaper "Storage and State Persistence", D6).
//!
//! * **Why `current::ordered`.** An `any` QMDB proves that a key *once* had a value; only a
//!   `current` QMDB (which authenticates an activity bitmap grafted onto the operations MMR)
//!   proves that it *still* has it. The `ordered` flavour links each active key to the next one,
//!   which is what exclusion proofs need. So it is the one variant that proves both inclusion and
//!   exclusion of accounts and storage entries against a root.
//! * **What the root commits to.** The QMDB canonical root: the operations MMR, the activity
//!   bitmap, and so the set of active `key → value` pairs of every namespace (see the
//!   proof-verifier's `keys` module), plus each commit's metadata, which is the committed block
//!   height (8 bytes, big-endian). Two nodes that applied the same batches have the same root.
//! * **Atomicity.** A block's writes become one QMDB batch ending in a commit operation, applied
//!   and made durable by `commit()`. QMDB's recovery rewinds the log to the last commit operation,
//!   so after a crash the state is exactly that of the last committed block, whose height is read
//!   back from the commit metadata.
//! * **Shared handles and snapshots.** The QMDB lives behind an async read-write lock shared by
//!   the owning handle and any number of [StateDb::snapshot]s. A read holds the read lock only
//!   for that one read; `commit` and `prune` hold the write lock. So a snapshot used on another
//!   thread (the node's `cowboy_call`) never makes a commit wait longer than one key read. QMDB
//!   keeps no readable history, so a snapshot cannot outlive its state: it is pinned to the
//!   committed height it was taken at, and each read checks, under the same lock, that this is
//!   still the committed height; once a later block is committed every read through it fails
//!   with [StateError::SnapshotStale] and the caller starts over on a fresh snapshot. A snapshot
//!   therefore never mixes two states.

use std::num::{NonZeroU64, NonZeroUsize};
use std::sync::Arc;

use commonware_codec::RangeCfg;
use commonware_cryptography::Blake3;
use commonware_parallel::Sequential;
use commonware_runtime::buffer::paged::{page_size, CacheRef};
use commonware_storage::merkle::{full::Config as MerkleConfig, mmr};
use commonware_storage::qmdb::current::ordered::proof::ExclusionProof;
use commonware_storage::qmdb::current::ordered::variable::Db;
use commonware_storage::qmdb::current::proof::constant::OperationProof as QmdbOperationProof;
use commonware_storage::qmdb::current::VariableConfig;
use commonware_storage::qmdb::floor::Proportional;
use commonware_storage::translator::EightCap;
use cowboy_proof_verifier::keys::{self, Address, Digest};
use cowboy_proof_verifier::proof::{Claim, OperationProof, StateProof, CHUNK_BYTES};
use cowboy_proof_verifier::Account;

use crate::batch::{Changes, Overlay, WriteBatch};
use crate::error::{storage, StateError};
use crate::history::{self, Changeset, Changesets, View};
use crate::staged::Staged;

/// What a runtime context must provide to host the state: storage, a clock, metrics and task
/// spawning (commonware's tokio runtime in production, its deterministic runtime in tests).
pub trait Context:
    commonware_runtime::Storage
    + commonware_runtime::Clock
    + commonware_runtime::Metrics
    + commonware_runtime::Spawner
{
}

impl<T> Context for T where
    T: commonware_runtime::Storage
        + commonware_runtime::Clock
        + commonware_runtime::Metrics
        + commonware_runtime::Spawner
{
}

/// A state root: the QMDB canonical root, a Blake3 digest.
pub type Root = [u8; 32];

/// Bytes in one activity-bitmap chunk (the `N` of the `current` database); the proof verifier
/// hard-codes the same value.
const N: usize = CHUNK_BYTES;

/// The concrete QMDB behind the state.
pub(crate) type Qmdb<E> = Db<mmr::Family, E, Vec<u8>, Vec<u8>, Blake3, EightCap, N, Sequential>;
/// A block's changes merkleized over its parent's state, ready to apply.
pub(crate) type Merkleized = std::sync::Arc<
    commonware_storage::qmdb::current::batch::MerkleizedBatch<
        mmr::Family,
        commonware_cryptography::blake3::Digest,
        commonware_storage::qmdb::any::ordered::Update<
            Vec<u8>,
            commonware_storage::qmdb::any::value::VariableEncoding<Vec<u8>>,
        >,
        N,
        Sequential,
    >,
>;

/// Codec bounds of the operation log: `(key length, value length)` configurations.
type LogCodec = ((RangeCfg<usize>, ()), (RangeCfg<usize>, ()));

/// Longest state key (a hashed key is 33 bytes; the bound leaves room and rejects garbage).
const MAX_KEY_LEN: usize = 64;
/// Longest stored value: code and storage values are at most 1 MiB; accounts are small.
const MAX_VALUE_LEN: usize = 2 << 20;

/// The last block whose state is committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Committed {
    /// Its height.
    pub height: u64,
    /// The state root after it.
    pub root: Root,
}

/// Where and how the state is stored.
#[derive(Debug, Clone)]
pub struct StateConfig {
    /// Prefix of every storage partition of the state (one runtime storage may host several).
    pub partition: String,
    /// Pages of the shared read cache (4 KiB each).
    pub cache_pages: NonZeroUsize,
    /// Blocks of history kept for [StateDb::at]: the state as of the end of any of the last
    /// this many blocks can be read (see `history`).
    pub history_blocks: u64,
    /// Bytes of history one historical view may fold in before its reads are refused
    /// ([StateError::HistoryTooLarge]): bounds the memory and work of a read at an old block.
    pub history_fold_bytes: u64,
}

impl StateConfig {
    /// A configuration with the given partition prefix and a 32 MiB page cache.
    pub fn new(partition: impl Into<String>) -> Self {
        Self {
            partition: partition.into(),
            cache_pages: NonZeroUsize::new(8192).unwrap_or(NonZeroUsize::MIN),
            history_blocks: history::DEFAULT_HISTORY_BLOCKS,
            history_fold_bytes: history::DEFAULT_FOLD_BYTES,
        }
    }

    /// Every storage partition the state with this configuration occupies (to remove it: see
    /// [`destroy_partitions`]).
    pub fn partitions(&self) -> Vec<String> {
        let q = self.qmdb();
        // commonware's journals derive the partitions they really write from the configured
        // name: a fixed journal (the MMR's) writes `-blobs` and a `-metadata` checkpoint, a
        // variable one (the log) `_data` and an offsets journal `_offsets` (itself `-blobs`
        // and `-metadata`). The base names are kept too. `tests/it/snapshot.rs` checks on real
        // files that this list covers every partition, so an upgrade that renames one fails.
        let mmr = q.merkle_config.journal_partition;
        let log = q.journal_config.partition;
        let mut all = vec![
            format!("{mmr}-blobs"),
            format!("{mmr}-metadata"),
            mmr,
            q.merkle_config.metadata_partition,
            format!("{log}_data"),
            format!("{log}_offsets"),
            format!("{log}_offsets-blobs"),
            format!("{log}_offsets-metadata"),
            log,
            q.grafted_metadata_partition,
        ];
        all.extend(history::partitions(&self.partition));
        // Last, so that removing the partitions removes the marker only once the rest is gone.
        all.push(self.unfinished_snapshot_partition());
        all
    }

    /// The partition that holds a marker while a snapshot is being built into this state's
    /// partitions (see `snapshot`): [StateDb::open] refuses a state that has it.
    pub(crate) fn unfinished_snapshot_partition(&self) -> String {
        format!("{}-snapshot-unfinished", self.partition)
    }

    /// Codec bounds of one operation of the log (also what a snapshot response is decoded with).
    pub(crate) fn log_codec() -> LogCodec {
        (
            ((..=MAX_KEY_LEN).into(), ()),
            ((..=MAX_VALUE_LEN).into(), ()),
        )
    }

    pub(crate) fn qmdb(&self) -> VariableConfig<EightCap, LogCodec, Sequential> {
        let p = &self.partition;
        let page_cache = CacheRef::new(page_size(4096), self.cache_pages);
        let buffer = NonZeroUsize::new(1 << 16).unwrap_or(NonZeroUsize::MIN);
        let per_blob = NonZeroU64::new(1 << 16).unwrap_or(NonZeroU64::MIN);
        VariableConfig {
            merkle_config: MerkleConfig {
                journal_partition: format!("{p}-mmr-journal"),
                metadata_partition: format!("{p}-mmr-metadata"),
                items_per_blob: per_blob,
                write_buffer: buffer,
                replay_buffer: buffer,
                strategy: Sequential,
                page_cache: page_cache.clone(),
            },
            journal_config: commonware_storage::journal::contiguous::variable::Config {
                partition: format!("{p}-log"),
                items_per_section: per_blob,
                compression: None,
                codec_config: Self::log_codec(),
                page_cache,
                write_buffer: buffer,
                replay_buffer: buffer,
            },
            grafted_metadata_partition: format!("{p}-grafted-metadata"),
            translator: EightCap,
            init_cache: NonZeroUsize::new(1 << 16),
            init_buffer: NonZeroUsize::new(1 << 20).unwrap_or(NonZeroUsize::MIN),
            init_concurrency: (),
        }
    }
}

/// Remove storage partitions (a state's [`StateConfig::partitions`] or a block store's
/// [`blocks::partitions`](crate::blocks::partitions)) that nothing writes to any more.
/// A partition that does not exist is not an error, so an interrupted removal can be redone.
pub async fn destroy_partitions<E: Context>(
    context: &E,
    partitions: &[String],
) -> Result<(), StateError> {
    for p in partitions {
        match context.remove(p, None).await {
            Ok(()) | Err(commonware_runtime::Error::PartitionMissing(_)) => {}
            Err(e) => return Err(storage(e)),
        }
    }
    Ok(())
}

/// What the handles share: the database, its recent history and the last commit.
pub(crate) struct Inner<E: Context> {
    /// `None` once a failed mutation has consumed the handle (see [StateError::Poisoned]).
    db: Option<Qmdb<E>>,
    /// The changesets of recent blocks (see `history`); `None` once poisoned, like `db`.
    history: Option<Changesets<E>>,
    /// Blocks of history served ([StateConfig::history_blocks]).
    window: u64,
    /// Bytes one view may fold ([StateConfig::history_fold_bytes]).
    fold_cap: u64,
    pub(crate) committed: Option<Committed>,
}

impl<E: Context> Inner<E> {
    pub(crate) fn db(&self) -> Result<&Qmdb<E>, StateError> {
        self.db.as_ref().ok_or(StateError::Poisoned)
    }

    fn history(&self) -> Result<&Changesets<E>, StateError> {
        self.history.as_ref().ok_or(StateError::Poisoned)
    }
}

pub(crate) type ReadGuard<'a, E> = tokio::sync::RwLockReadGuard<'a, Inner<E>>;

/// The authenticated state (see the module docs): the owning handle, or a read-only snapshot.
pub struct StateDb<E: Context> {
    shared: std::sync::Arc<tokio::sync::RwLock<Inner<E>>>,
    /// The last commit as this handle knows it: the owner's latest, or a snapshot's pin.
    committed: Option<Committed>,
    /// Whether this handle is a snapshot (read-only, pinned to `committed`).
    snapshot: bool,
    /// For a historical view ([Self::at]): the changesets folded over the current state.
    view: Option<std::sync::Arc<View>>,
}

impl<E: Context> StateDb<E> {
    /// Open (or create) the state in `context`'s storage, recovering to the last committed block.
    pub async fn open(context: E, config: &StateConfig) -> Result<Self, StateError> {
        // A snapshot cut short (a crash mid-sync) leaves partial, unverified data: never open it.
        match context.scan(&config.unfinished_snapshot_partition()).await {
            Ok(blobs) if !blobs.is_empty() => return Err(StateError::SnapshotUnfinished),
            Ok(_) | Err(commonware_runtime::Error::PartitionMissing(_)) => {}
            Err(e) => return Err(storage(e)),
        }
        let history = history::open(context.child("history"), &config.partition).await?;
        let db = Qmdb::init(context, config.qmdb(), None)
            .await
            .map_err(storage)?;
        let committed = match db.get_metadata().await.map_err(storage)? {
            Some(meta) => Some(Committed {
                height: decode_height(&meta)?,
                root: digest(&db.root()),
            }),
            None => None,
        };
        Ok(Self::owner(db, history, config, committed))
    }

    /// The owning handle on `db` and its changeset archive, last committed at `committed`.
    fn owner(
        db: Qmdb<E>,
        history: Changesets<E>,
        config: &StateConfig,
        committed: Option<Committed>,
    ) -> Self {
        Self {
            shared: std::sync::Arc::new(tokio::sync::RwLock::new(Inner {
                db: Some(db),
                history: Some(history),
                window: config.history_blocks,
                fold_cap: config.history_fold_bytes,
                committed,
            })),
            committed,
            snapshot: false,
            view: None,
        }
    }

    /// A handle on a QMDB built elsewhere (a state snapshot), committed at `committed`, with
    /// the history archive opened in `history_context`.
    pub(crate) async fn from_parts(
        history_context: E,
        config: &StateConfig,
        db: Qmdb<E>,
        committed: Committed,
    ) -> Result<Self, StateError> {
        let history = history::open(history_context, &config.partition).await?;
        Ok(Self::owner(db, history, config, Some(committed)))
    }

    /// Take the read lock whatever this handle is pinned to: for work that names the state it
    /// wants itself (a snapshot request names a log size, and the log is append-only).
    pub(crate) async fn read_unpinned(&self) -> ReadGuard<'_, E> {
        self.shared.read().await
    }

    /// Take the read lock to read the current state itself (not a historical view's): what
    /// proofs and snapshot serving need.
    pub(crate) async fn read_current(&self) -> Result<ReadGuard<'_, E>, StateError> {
        if let Some(view) = &self.view {
            return Err(StateError::HistoricalProof(view.height));
        }
        self.read().await
    }

    /// A read-only handle on the state as last committed, usable from other tasks and threads
    /// while this handle goes on committing. Its reads fail with [StateError::SnapshotStale]
    /// once a later block is committed (see the module docs).
    pub fn snapshot(&self) -> StateDb<E> {
        StateDb {
            shared: self.shared.clone(),
            committed: self.committed,
            snapshot: true,
            view: self.view.clone(),
        }
    }

    /// A read-only handle on the state as of the end of block `height`, which must be within
    /// the last [StateConfig::history_blocks] committed blocks (else
    /// [StateError::HistoryUnavailable], which names the heights that can be read). Unlike a
    /// snapshot it stays valid while later blocks are committed: it reads the current state
    /// through their changesets (see `history`). Its [Self::last_committed] is `height` and the
    /// root after it; it cannot prove, commit or prune.
    pub async fn at(&self, height: u64) -> Result<StateDb<E>, StateError> {
        let guard = self.shared.read().await;
        let Some(now) = guard.committed else {
            return Err(StateError::HistoryUnavailable {
                height,
                oldest: 0,
                latest: None,
            });
        };
        let oldest = history::oldest(guard.history()?, now.height, guard.window);
        if height > now.height || height < oldest {
            return Err(StateError::HistoryUnavailable {
                height,
                oldest,
                latest: Some(now.height),
            });
        }
        let root = if height == now.height {
            now.root
        } else {
            history::load(guard.history()?, height)
                .await?
                .ok_or(StateError::HistoryUnavailable {
                    height,
                    oldest,
                    latest: Some(now.height),
                })?
                .root
        };
        Ok(StateDb {
            shared: self.shared.clone(),
            committed: Some(Committed { height, root }),
            snapshot: true,
            view: Some(std::sync::Arc::new(View::new(height))),
        })
    }

    /// The oldest and latest heights [Self::at] can read now (`None` before the first commit).
    pub async fn history_range(&self) -> Result<Option<(u64, u64)>, StateError> {
        let guard = self.shared.read().await;
        Ok(match guard.committed {
            Some(now) => Some((
                history::oldest(guard.history()?, now.height, guard.window),
                now.height,
            )),
            None => None,
        })
    }

    /// Take the read lock, checking that a snapshot's state is still the committed one (a
    /// historical view reads any later state through its changesets).
    async fn read(&self) -> Result<ReadGuard<'_, E>, StateError> {
        let guard = self.shared.read().await;
        if self.snapshot && self.view.is_none() && guard.committed != self.committed {
            return Err(StateError::SnapshotStale {
                pinned: self.committed.map_or(0, |c| c.height),
                now: guard.committed.map_or(0, |c| c.height),
            });
        }
        Ok(guard)
    }

    /// The last committed block and its root, `None` before the first (genesis) commit. For a
    /// snapshot: the commit it is pinned to.
    pub fn last_committed(&self) -> Option<Committed> {
        self.committed
    }

    /// The current state root (of the last commit, or of the empty state).
    pub fn root(&self) -> Result<Root, StateError> {
        if let Some(c) = self.committed {
            return Ok(c.root);
        }
        // Before the first commit nobody writes, so the lock is free.
        let guard = self.shared.try_read().map_err(|_| StateError::Poisoned)?;
        Ok(digest(&guard.db()?.root()))
    }

    /// The value under a raw state key at the last committed state.
    pub async fn get_raw(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StateError> {
        let Some(view) = &self.view else {
            let guard = self.read().await?;
            return guard.db()?.get(&key.to_vec()).await.map_err(storage);
        };
        // Fold in the changesets committed since the last read, one per read-lock hold so a
        // commit never waits on more than one changeset read, then read under the lock that
        // saw the fold complete (so the fold and the current state agree).
        let mut folded = view.folded.lock().await;
        loop {
            let guard = self.shared.read().await;
            let now = guard.committed.map_or(0, |c| c.height);
            if folded.through >= now {
                if let Some(value) = folded.overlay.get(key) {
                    return Ok(value.clone());
                }
                return guard.db()?.get(&key.to_vec()).await.map_err(storage);
            }
            let next = folded.through + 1;
            let Some(changeset) = history::load(guard.history()?, next).await? else {
                // Pruned before this view folded it in: the view fell out of the window.
                return Err(StateError::HistoryUnavailable {
                    height: view.height,
                    oldest: history::oldest(guard.history()?, now, guard.window),
                    latest: Some(now),
                });
            };
            let cap = guard.fold_cap;
            drop(guard);
            folded.bytes = folded.bytes.saturating_add(changeset.fold_bytes());
            if folded.bytes > cap {
                return Err(StateError::HistoryTooLarge {
                    height: view.height,
                    through: next,
                    cap,
                });
            }
            for (k, v) in changeset.previous {
                folded.overlay.entry(k).or_insert(v);
            }
            folded.through = next;
        }
    }

    /// The account at `address` at the last committed state.
    pub async fn account(&self, address: &Address) -> Result<Option<Account>, StateError> {
        match self.get_raw(&keys::account_key(address)).await? {
            Some(bytes) => Account::decode(&bytes)
                .map(Some)
                .map_err(StateError::CorruptAccount),
            None => Ok(None),
        }
    }

    /// The storage entry `key` of the actor at `address` at the last committed state.
    pub async fn storage(
        &self,
        address: &Address,
        key: &[u8],
    ) -> Result<Option<Vec<u8>>, StateError> {
        self.get_raw(&keys::storage_key(address, key)).await
    }

    /// The code with hash `code_hash` at the last committed state.
    pub async fn code(&self, code_hash: &Digest) -> Result<Option<Vec<u8>>, StateError> {
        self.get_raw(&keys::code_key(code_hash)).await
    }

    /// Start the write batch of the next block, over the committed state.
    pub fn batch(&self) -> WriteBatch<'_, E> {
        WriteBatch::new(self, None)
    }

    /// Start the write batch of the block after `parent`: over the committed state when
    /// `parent` is `None`, else over that staged block's state (see [crate::staged]).
    pub fn batch_on(&self, parent: Option<&Arc<Staged>>) -> WriteBatch<'_, E> {
        WriteBatch::new(self, parent.cloned())
    }

    /// The height the next [Self::commit] must carry.
    pub fn next_height(&self) -> u64 {
        self.committed.map_or(0, |c| c.height + 1)
    }

    /// Apply one block's `changes` atomically and durably as block `height`, returning the new
    /// root: [Self::stage] on the committed state, then [Self::commit_staged].
    pub async fn commit(&mut self, height: u64, changes: Changes) -> Result<Root, StateError> {
        let staged = self.stage(None, height, changes).await?;
        self.commit_staged(&staged).await
    }

    /// Stage block `height`'s `changes` over `parent`'s state (the committed state when
    /// `None`) without writing anything: the result carries the root committing it will give,
    /// which a proposer puts in the header and a validator compares with it, and is what
    /// [Self::commit_staged] later applies and a child's [Self::batch_on] reads through.
    pub async fn stage(
        &self,
        parent: Option<&Arc<Staged>>,
        height: u64,
        changes: Changes,
    ) -> Result<Arc<Staged>, StateError> {
        if self.view.is_some() {
            return Err(StateError::ReadOnly);
        }
        // A parent committed by now is the committed state itself; one at a committed height
        // that is not the committed block is on a fork that can no longer be committed.
        let parent = match (parent, self.committed) {
            (Some(p), Some(c)) if p.height <= c.height => {
                if (p.height, p.root) != (c.height, c.root) {
                    return Err(StateError::StaleStage {
                        height,
                        committed: c.height,
                    });
                }
                None
            }
            (parent, _) => parent,
        };
        let expected = parent.map_or(self.next_height(), |p| p.height + 1);
        if height != expected {
            return Err(StateError::HeightMismatch {
                expected,
                got: height,
            });
        }
        let guard = self.read().await?;
        let db = guard.db()?;
        let mut batch = match parent {
            Some(p) => p.merkleized.new_batch::<Blake3>(),
            None => db.new_batch(),
        };
        for (key, value) in &changes.0 {
            // A delete of a key that does not exist in the parent state (set and deleted inside
            // one block) is dropped: it would otherwise depend on how QMDB treats deleting an
            // absent key.
            if value.is_none() && batch.get(key, db).await.map_err(storage)?.is_none() {
                continue;
            }
            batch = batch.write(key.clone(), value.clone());
        }
        let merkleized = batch
            .merkleize(db, Some(height.to_be_bytes().to_vec()), &mut Proportional)
            .await
            .map_err(storage)?;
        Ok(Arc::new(Staged {
            height,
            root: digest(&merkleized.root()),
            changes,
            merkleized,
            parent: std::sync::Mutex::new(parent.cloned()),
        }))
    }

    /// Commit a staged block atomically and durably, returning its root. Its parent must be
    /// the last committed block ([StateError::StaleStage] otherwise, with nothing changed). On
    /// a storage failure the handle is poisoned; reopening recovers the last commit.
    pub async fn commit_staged(&mut self, staged: &Staged) -> Result<Root, StateError> {
        let expected = self.next_height();
        if staged.height != expected {
            return Err(StateError::HeightMismatch {
                expected,
                got: staged.height,
            });
        }
        if self.snapshot {
            return Err(StateError::ReadOnly);
        }
        let mut inner = self.shared.write().await;
        let db = inner.db.take().ok_or(StateError::Poisoned)?;
        if db.validate_batch(&staged.merkleized).is_err() {
            inner.db = Some(db);
            return Err(StateError::StaleStage {
                height: staged.height,
                committed: expected.saturating_sub(1),
            });
        }
        let previous = previous_values(&db, &staged.changes).await?;
        // The changeset is durable before the block is: a committed block always has one.
        let archive = inner.history.take().ok_or(StateError::Poisoned)?;
        let changeset = Changeset {
            root: staged.root,
            previous,
        };
        inner.history =
            Some(history::record(archive, staged.height, &changeset, inner.window).await?);
        let db = db
            .apply_batch(staged.merkleized.clone())
            .await
            .map_err(storage)?;
        let db = db.commit().await.map_err(storage)?;
        inner.db = Some(db);
        inner.committed = Some(Committed {
            height: staged.height,
            root: staged.root,
        });
        self.committed = inner.committed;
        staged.detach();
        Ok(staged.root)
    }

    /// Drop log history below the inactivity floor that no longer backs the current state, then
    /// sync everything (including the activity bitmap's metadata) so the next open needs no log
    /// replay. Bounds disk use and startup time; call it every few blocks. Proofs and reads of
    /// the current state are unaffected, and so are future roots.
    pub async fn prune(&mut self) -> Result<(), StateError> {
        self.prune_keeping(None).await
    }

    /// [Self::prune], but keep the log from operation `keep` on if that is below the sync
    /// boundary: a node keeps the operations a [crate::SnapshotTarget] it serves needs (the
    /// target's `lower`), so that target stays servable while later blocks commit.
    pub async fn prune_keeping(&mut self, keep: Option<u64>) -> Result<(), StateError> {
        if self.snapshot {
            return Err(StateError::ReadOnly);
        }
        let mut inner = self.shared.write().await;
        let db = inner.db.take().ok_or(StateError::Poisoned)?;
        let boundary = match keep {
            Some(keep) => db
                .sync_boundary()
                .min(commonware_storage::merkle::Location::new(keep)),
            None => db.sync_boundary(),
        };
        let db = db.prune(boundary).await.map_err(storage)?;
        let db = db.sync().await.map_err(storage)?;
        inner.db = Some(db);
        Ok(())
    }

    /// Prove the account at `address` (or its absence) against [Self::root].
    pub async fn prove_account(
        &self,
        address: &Address,
    ) -> Result<(Option<Account>, Vec<u8>), StateError> {
        let (value, proof) = self.prove_key(&keys::account_key(address)).await?;
        let account = match value {
            Some(bytes) => Some(Account::decode(&bytes).map_err(StateError::CorruptAccount)?),
            None => None,
        };
        Ok((account, proof.encode()))
    }

    /// Prove storage entry `key` of the actor at `address` (or its absence) against [Self::root].
    pub async fn prove_storage(
        &self,
        address: &Address,
        key: &[u8],
    ) -> Result<(Option<Vec<u8>>, Vec<u8>), StateError> {
        let (value, proof) = self.prove_key(&keys::storage_key(address, key)).await?;
        Ok((value, proof.encode()))
    }

    /// Prove the code with hash `code_hash` (or its absence) against [Self::root].
    pub async fn prove_code(
        &self,
        code_hash: &Digest,
    ) -> Result<(Option<Vec<u8>>, Vec<u8>), StateError> {
        let (value, proof) = self.prove_key(&keys::code_key(code_hash)).await?;
        Ok((value, proof.encode()))
    }

    /// Prove a raw state key: its value with an inclusion proof, or `None` with an exclusion one.
    pub async fn prove_key(&self, key: &[u8]) -> Result<(Option<Vec<u8>>, StateProof), StateError> {
        if let Some(view) = &self.view {
            return Err(StateError::HistoricalProof(view.height));
        }
        let guard = self.read().await?;
        let db = guard.db()?;
        let key = key.to_vec();
        match db.get(&key).await.map_err(storage)? {
            Some(value) => {
                let kv = db.key_value_proof(key).await.map_err(storage)?;
                let proof = StateProof {
                    op: operation_proof(&kv.proof),
                    claim: Claim::Present {
                        next_key: kv.next_key,
                    },
                };
                Ok((Some(value), proof))
            }
            None => {
                let proof = match db.exclusion_proof(&key).await.map_err(storage)? {
                    ExclusionProof::KeyValue(op, update) => StateProof {
                        op: operation_proof(&op),
                        claim: Claim::AbsentInSpan {
                            key: update.key,
                            value: update.value,
                            next_key: update.next_key,
                        },
                    },
                    ExclusionProof::Commit(op, metadata) => StateProof {
                        op: operation_proof(&op),
                        claim: Claim::Empty { metadata },
                    },
                };
                Ok((None, proof))
            }
        }
    }
}

/// The committed value of every key `changes` writes (`None`: absent): a block's changeset.
async fn previous_values<E: Context>(
    db: &Qmdb<E>,
    changes: &Changes,
) -> Result<Overlay, StateError> {
    let mut previous = Overlay::new();
    for key in changes.0.keys() {
        previous.insert(key.clone(), db.get(key).await.map_err(storage)?);
    }
    Ok(previous)
}

pub(crate) fn decode_height(meta: &[u8]) -> Result<u64, StateError> {
    let bytes: [u8; 8] = meta
        .try_into()
        .map_err(|_| StateError::CorruptMetadata(meta.len()))?;
    Ok(u64::from_be_bytes(bytes))
}

pub(crate) fn digest(d: &commonware_cryptography::blake3::Digest) -> Root {
    let mut out = [0u8; 32];
    out.copy_from_slice(d.as_ref());
    out
}

/// Convert QMDB's operation proof into the verifier's wire structure.
fn operation_proof(
    p: &QmdbOperationProof<mmr::Family, commonware_cryptography::blake3::Digest, N>,
) -> OperationProof {
    let range = &p.range_proof;
    OperationProof {
        loc: *p.loc,
        chunk: p.chunk,
        leaves: *range.proof.leaves,
        inactive_peaks: range.proof.inactive_peaks as u64,
        digests: range.proof.digests.iter().map(digest).collect(),
        partial_chunk_digest: range.partial_chunk_digest.as_ref().map(digest),
        ops_root: digest(&range.ops_root),
    }
}
