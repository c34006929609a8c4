//! The ledger of finalized blocks with their receipts, timer executions, hook events and a
//! transaction index
//! (whitepaper "Storage and State Persistence": "The Ledger: Append-only log of blocks";
//! "Auxiliary Indexes ... transaction hashes").
//!
//! Five commonware-storage *immutable archives* (write-once stores addressed by an index and a
//! key, built for finalized chain data):
//!
//! | archive | index | key | value |
//! |---|---|---|---|
//! | `blocks` | height | block hash | `height (u64 BE) ‖ block bytes` |
//! | `receipts` | `height << 24 ‖ i` | tx hash | receipt bytes of the block's `i`-th transaction |
//! | `txs` | `height << 24 ‖ i` | tx hash | `height (u64 BE) ‖ i (u32 BE)` |
//! | `timers` | `height << 24 ‖ i` | execution hash | the block's `i`-th timer execution |
//! | `hooks` | height | block hash | the events of the block's system hooks, if any |
//!
//! Blocks, receipts and timer executions are opaque canonical bytes here: their encoding
//! belongs to `cowboy-types` (and the node), and the store never needs to look inside them. A
//! block holds at most 2^24 transactions (and 2^24 timer executions) and heights are below
//! 2^40, so `height << 24 ‖ i` is unique.
//!
//! **Why a fourth archive for timer executions.** Timer executions (`begin_block` running due
//! timers, issue 16) are not transactions: they have no transaction hash and no place in the
//! `txs` index, and a block's receipts are read by counting slots up from `height << 24` until
//! one is empty, so putting them in the `receipts` archive would need a second, shifted slot
//! space and a count stored somewhere. Their own archive keeps both reads the same simple scan,
//! keeps `receipts` meaning "one per transaction", and keys each execution by its hash (the
//! leaf the header's `receipts_root` commits to) for a later lookup by hash. An empty block
//! writes nothing to it. The events of a block's system hooks (`begin_block`'s downtime
//! jailings, `end_block`'s epoch boundary) are one record per block, in a fifth archive for
//! the same reasons; a block whose hooks emitted nothing writes nothing there. (Stores made
//! before it existed open with it empty: their blocks' hooks emitted nothing.)
//!
//! **Crash safety.** An archive only trusts what its own last `sync` recorded. [BlockStore::append]
//! writes and syncs the timer executions, hook events, receipts and transaction index *first*
//! and the block record *last*, so a block that is present always has its receipts, timer
//! executions, hook events and index; a crash in between leaves entries for a height above the tip, which lookups ignore
//! and the retried append rewrites (writes to an occupied index are no-ops in an immutable
//! archive, and a finalized block always re-executes to the same records).
//!
//! **Shared handles.** The archives live behind an async read-write lock: a [BlockStore] is a
//! cheap handle ([Clone]), so the node's RPC reads blocks and receipts on its own tasks while
//! the chain appends. A read holds the read lock for that read; `append` holds the write lock
//! while it writes one block. What was appended never changes, so a reader needs no snapshot.
//! A receipt is reached in O(1) from its transaction hash ([BlockStore::receipt]: the index,
//! then the receipt's own slot), never by reading its block's other receipts.

use std::num::{NonZeroU64, NonZeroUsize};

use commonware_runtime::buffer::paged::{page_size, CacheRef};
use commonware_storage::archive::immutable::{Archive, Config};
use commonware_storage::archive::{Archive as _, Identifier};
use commonware_utils::sequence::FixedBytes;

use crate::db::Context;
use crate::error::{storage, StateError};

/// Largest number of transactions in one block the index can address.
pub const MAX_TXS_PER_BLOCK: usize = 1 << 24;
/// Heights must stay below this bound (so `height << 24` fits a u64).
pub const MAX_HEIGHT: u64 = 1 << 40;
/// Largest stored block or receipt, in bytes.
pub const MAX_RECORD_LEN: usize = 64 << 20;

type Hash = FixedBytes<32>;
type Records<E> = Archive<E, Hash, Vec<u8>>;
type TxIndex<E> = Archive<E, Hash, FixedBytes<12>>;

/// Where a transaction was included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxLocation {
    /// Height of the block.
    pub height: u64,
    /// Position of the transaction in the block.
    pub index: u32,
}

/// The archives, shared by every handle.
struct Inner<E: Context> {
    blocks: Option<Records<E>>,
    receipts: Option<Records<E>>,
    txs: Option<TxIndex<E>>,
    timers: Option<Records<E>>,
    hooks: Option<Records<E>>,
}

impl<E: Context> Inner<E> {
    fn blocks(&self) -> Result<&Records<E>, StateError> {
        self.blocks.as_ref().ok_or(StateError::Poisoned)
    }

    fn last_height(&self) -> Result<Option<u64>, StateError> {
        Ok(self.blocks()?.last_index())
    }
}

/// The append-only block store (see the module docs). Cloning gives another handle on the
/// same store.
pub struct BlockStore<E: Context> {
    inner: std::sync::Arc<tokio::sync::RwLock<Inner<E>>>,
    /// Height of the last stored block plus one (0: empty), readable without the lock.
    next: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// The height the first block of an empty store carries ([Self::begin_at]; 0: genesis).
    start: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl<E: Context> Clone for BlockStore<E> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            next: self.next.clone(),
            start: self.start.clone(),
        }
    }
}

fn config<C>(prefix: &str, name: &str, codec_config: C, page_cache: &CacheRef) -> Config<C> {
    let p = format!("{prefix}-{name}");
    let buffer = NonZeroUsize::new(1 << 16).unwrap_or(NonZeroUsize::MIN);
    Config {
        metadata_partition: format!("{p}-metadata"),
        freezer_table_partition: format!("{p}-freezer-table"),
        freezer_table_initial_size: 65_536,
        freezer_table_resize_frequency: 4,
        freezer_table_resize_chunk_size: 16_384,
        freezer_key_partition: format!("{p}-freezer-key"),
        freezer_key_page_cache: page_cache.clone(),
        freezer_value_partition: format!("{p}-freezer-value"),
        freezer_value_target_size: 64 << 20,
        freezer_value_compression: None,
        ordinal_partition: format!("{p}-ordinal"),
        items_per_section: NonZeroU64::new(1 << 16).unwrap_or(NonZeroU64::MIN),
        freezer_key_write_buffer: buffer,
        freezer_value_write_buffer: buffer,
        ordinal_write_buffer: buffer,
        replay_buffer: buffer,
        codec_config,
    }
}

fn tx_slot(height: u64, index: usize) -> u64 {
    (height << 24) | index as u64
}

/// The archives of a block store, each a set of partitions named after it.
const ARCHIVES: [&str; 5] = ["blocks", "receipts", "txs", "timers", "hooks"];

/// Every storage partition the block store under `prefix` occupies (to remove it: see
/// [`crate::destroy_partitions`]).
pub fn partitions(prefix: &str) -> Vec<String> {
    let cache = CacheRef::new(page_size(4096), NonZeroUsize::MIN);
    ARCHIVES
        .iter()
        .flat_map(|name| {
            let c = config(prefix, name, (), &cache);
            [
                c.metadata_partition,
                c.freezer_table_partition,
                c.freezer_key_partition,
                c.freezer_value_partition,
                c.ordinal_partition,
            ]
        })
        .collect()
}

impl<E: Context> BlockStore<E> {
    /// Open (or create) the block store under partition prefix `prefix`.
    pub async fn open(context: E, prefix: &str) -> Result<Self, StateError> {
        let cache = CacheRef::new(
            page_size(4096),
            NonZeroUsize::new(1024).unwrap_or(NonZeroUsize::MIN),
        );
        let record_cfg = ((..=MAX_RECORD_LEN).into(), ());
        let blocks = Archive::init(
            context.child("blocks"),
            config(prefix, "blocks", record_cfg, &cache),
        )
        .await
        .map_err(storage)?;
        let receipts = Archive::init(
            context.child("receipts"),
            config(prefix, "receipts", record_cfg, &cache),
        )
        .await
        .map_err(storage)?;
        let txs = Archive::init(context.child("txs"), config(prefix, "txs", (), &cache))
            .await
            .map_err(storage)?;
        let timers = Archive::init(
            context.child("timers"),
            config(prefix, "timers", record_cfg, &cache),
        )
        .await
        .map_err(storage)?;
        let hooks = Archive::init(
            context.child("hooks"),
            config(prefix, "hooks", record_cfg, &cache),
        )
        .await
        .map_err(storage)?;
        let next = blocks.last_index().map_or(0, |h| h + 1);
        Ok(Self {
            inner: std::sync::Arc::new(tokio::sync::RwLock::new(Inner {
                blocks: Some(blocks),
                receipts: Some(receipts),
                txs: Some(txs),
                timers: Some(timers),
                hooks: Some(hooks),
            })),
            next: std::sync::Arc::new(std::sync::atomic::AtomicU64::new(next)),
            start: Default::default(),
        })
    }

    /// Height of the last stored block, `None` if the store is empty.
    pub fn last_height(&self) -> Result<Option<u64>, StateError> {
        Ok(self
            .next
            .load(std::sync::atomic::Ordering::Acquire)
            .checked_sub(1))
    }

    /// Make an empty store start at `height`: its first [Self::append] carries that height
    /// (a store built from a state snapshot holds nothing below the snapshot's block). Once
    /// the first block is stored, reopening finds it as usual. Refused on a store that holds
    /// a block.
    pub fn begin_at(&mut self, height: u64) -> Result<(), StateError> {
        if let Some(last) = self.last_height()? {
            return Err(StateError::BlockOutOfOrder {
                expected: last + 1,
                got: height,
            });
        }
        if height >= MAX_HEIGHT {
            return Err(StateError::BlockOutOfOrder {
                expected: 0,
                got: height,
            });
        }
        self.start
            .store(height, std::sync::atomic::Ordering::Release);
        Ok(())
    }

    /// Height of the first stored block (0 for a chain from genesis; a store built from a
    /// snapshot begins at its block), `None` if the store is empty.
    pub async fn first_height(&self) -> Result<Option<u64>, StateError> {
        Ok(self.inner.read().await.blocks()?.first_index())
    }

    /// The height the next [Self::append] must carry.
    pub fn next_height(&self) -> Result<u64, StateError> {
        Ok(self.last_height()?.map_or_else(
            || self.start.load(std::sync::atomic::Ordering::Acquire),
            |h| h + 1,
        ))
    }

    /// Append finalized block `height` with hash `hash`, its canonical bytes, the hashes of its
    /// transactions in order, their receipts, the timer executions of its `begin_block` in
    /// order (each as its hash and its bytes) and the events of its system hooks (`None`: they
    /// emitted none). Durable when it returns.
    #[allow(clippy::too_many_arguments)]
    pub async fn append(
        &mut self,
        height: u64,
        hash: [u8; 32],
        block: &[u8],
        tx_hashes: &[[u8; 32]],
        receipts: &[Vec<u8>],
        timers: &[([u8; 32], Vec<u8>)],
        hooks: Option<&[u8]>,
    ) -> Result<(), StateError> {
        let expected = self.next_height()?;
        if height != expected || height >= MAX_HEIGHT {
            return Err(StateError::BlockOutOfOrder {
                expected,
                got: height,
            });
        }
        if tx_hashes.len() > MAX_TXS_PER_BLOCK {
            return Err(StateError::TooManyTransactions(tx_hashes.len()));
        }
        if tx_hashes.len() != receipts.len() {
            return Err(StateError::ReceiptCountMismatch {
                txs: tx_hashes.len(),
                receipts: receipts.len(),
            });
        }
        if timers.len() > MAX_TXS_PER_BLOCK {
            return Err(StateError::TooManyTimerExecutions(timers.len()));
        }
        if let Some(big) = receipts.iter().find(|r| r.len() > MAX_RECORD_LEN) {
            return Err(StateError::TooLarge {
                what: "receipt",
                len: big.len(),
                max: MAX_RECORD_LEN,
            });
        }
        if let Some((_, big)) = timers.iter().find(|(_, r)| r.len() > MAX_RECORD_LEN) {
            return Err(StateError::TooLarge {
                what: "timer execution",
                len: big.len(),
                max: MAX_RECORD_LEN,
            });
        }
        if let Some(big) = hooks.filter(|r| r.len() > MAX_RECORD_LEN) {
            return Err(StateError::TooLarge {
                what: "hook events",
                len: big.len(),
                max: MAX_RECORD_LEN,
            });
        }
        if block.len() + 8 > MAX_RECORD_LEN {
            return Err(StateError::TooLarge {
                what: "block",
                len: block.len(),
                max: MAX_RECORD_LEN - 8,
            });
        }

        // Timer executions, receipts and index first, each made durable before the block
        // record that vouches for them (see the module docs).
        let mut inner = self.inner.write().await;
        if !timers.is_empty() {
            let mut archive = inner.timers.take().ok_or(StateError::Poisoned)?;
            for (i, (key, record)) in timers.iter().enumerate() {
                archive = archive
                    .put(tx_slot(height, i), Hash::new(*key), record)
                    .await
                    .map_err(storage)?;
            }
            inner.timers = Some(archive.sync().await.map_err(storage)?);
        }
        if let Some(record) = hooks {
            let archive = inner.hooks.take().ok_or(StateError::Poisoned)?;
            let archive = archive
                .put_sync(height, Hash::new(hash), &record.to_vec())
                .await
                .map_err(storage)?;
            inner.hooks = Some(archive);
        }
        let mut txs = inner.txs.take().ok_or(StateError::Poisoned)?;
        let mut rcpts = inner.receipts.take().ok_or(StateError::Poisoned)?;
        for (i, (tx, receipt)) in tx_hashes.iter().zip(receipts).enumerate() {
            let mut loc = [0u8; 12];
            loc[..8].copy_from_slice(&height.to_be_bytes());
            loc[8..].copy_from_slice(&(i as u32).to_be_bytes());
            let slot = tx_slot(height, i);
            txs = txs
                .put(slot, Hash::new(*tx), &FixedBytes::new(loc))
                .await
                .map_err(storage)?;
            rcpts = rcpts
                .put(slot, Hash::new(*tx), receipt)
                .await
                .map_err(storage)?;
        }
        inner.txs = Some(txs.sync().await.map_err(storage)?);
        inner.receipts = Some(rcpts.sync().await.map_err(storage)?);

        let mut record = Vec::with_capacity(8 + block.len());
        record.extend_from_slice(&height.to_be_bytes());
        record.extend_from_slice(block);
        let blocks = inner.blocks.take().ok_or(StateError::Poisoned)?;
        let blocks = blocks
            .put_sync(height, Hash::new(hash), &record)
            .await
            .map_err(storage)?;
        inner.blocks = Some(blocks);
        self.next
            .store(height + 1, std::sync::atomic::Ordering::Release);
        Ok(())
    }

    /// The canonical bytes of the block at `height`.
    pub async fn block(&self, height: u64) -> Result<Option<Vec<u8>>, StateError> {
        let inner = self.inner.read().await;
        let record = inner
            .blocks()?
            .get(Identifier::Index(height))
            .await
            .map_err(storage)?;
        Ok(record.map(|r| r.get(8..).unwrap_or_default().to_vec()))
    }

    /// The height and canonical bytes of the block with hash `hash`.
    pub async fn block_by_hash(
        &self,
        hash: &[u8; 32],
    ) -> Result<Option<(u64, Vec<u8>)>, StateError> {
        let key = Hash::new(*hash);
        let inner = self.inner.read().await;
        let record = inner
            .blocks()?
            .get(Identifier::Key(&key))
            .await
            .map_err(storage)?;
        Ok(record.and_then(|r| {
            let height = u64::from_be_bytes(r.get(..8)?.try_into().ok()?);
            Some((height, r.get(8..)?.to_vec()))
        }))
    }

    /// Where the transaction with hash `tx` was included, if it is in a stored block.
    pub async fn tx_location(&self, tx: &[u8; 32]) -> Result<Option<TxLocation>, StateError> {
        let inner = self.inner.read().await;
        Self::locate(&inner, tx).await
    }

    async fn locate(inner: &Inner<E>, tx: &[u8; 32]) -> Result<Option<TxLocation>, StateError> {
        let txs = inner.txs.as_ref().ok_or(StateError::Poisoned)?;
        let key = Hash::new(*tx);
        let Some(loc) = txs.get(Identifier::Key(&key)).await.map_err(storage)? else {
            return Ok(None);
        };
        let loc: &[u8] = loc.as_ref();
        let (h, i) = loc.split_at(8);
        let location = TxLocation {
            height: u64::from_be_bytes(h.try_into().unwrap_or_default()),
            index: u32::from_be_bytes(i.try_into().unwrap_or_default()),
        };
        // Entries above the tip are leftovers of an append a crash interrupted.
        match inner.last_height()? {
            Some(tip) if location.height <= tip => Ok(Some(location)),
            _ => Ok(None),
        }
    }

    /// The receipt of the transaction with hash `tx`, if it is in a stored block.
    pub async fn receipt(&self, tx: &[u8; 32]) -> Result<Option<Vec<u8>>, StateError> {
        Ok(self.located_receipt(tx).await?.map(|(_, r)| r))
    }

    /// Where the transaction with hash `tx` was included, with its receipt: one index read and
    /// one receipt read, whatever the size of the block.
    pub async fn located_receipt(
        &self,
        tx: &[u8; 32],
    ) -> Result<Option<(TxLocation, Vec<u8>)>, StateError> {
        let inner = self.inner.read().await;
        let Some(loc) = Self::locate(&inner, tx).await? else {
            return Ok(None);
        };
        let receipts = inner.receipts.as_ref().ok_or(StateError::Poisoned)?;
        let receipt = receipts
            .get(Identifier::Index(tx_slot(loc.height, loc.index as usize)))
            .await
            .map_err(storage)?;
        Ok(receipt.map(|r| (loc, r)))
    }

    /// The receipts of the block at `height`, in transaction order.
    pub async fn receipts(&self, height: u64) -> Result<Vec<Vec<u8>>, StateError> {
        let mut out = Vec::new();
        let inner = self.inner.read().await;
        if inner.last_height()?.is_none_or(|tip| height > tip) {
            return Ok(out);
        }
        let receipts = inner.receipts.as_ref().ok_or(StateError::Poisoned)?;
        while out.len() < MAX_TXS_PER_BLOCK {
            let slot = tx_slot(height, out.len());
            match receipts
                .get(Identifier::Index(slot))
                .await
                .map_err(storage)?
            {
                Some(r) => out.push(r),
                None => break,
            }
        }
        Ok(out)
    }

    /// The timer executions of the block at `height`, in execution order (empty for a block
    /// above the tip or one in which no timer ran).
    pub async fn timer_executions(&self, height: u64) -> Result<Vec<Vec<u8>>, StateError> {
        let mut out = Vec::new();
        let inner = self.inner.read().await;
        if inner.last_height()?.is_none_or(|tip| height > tip) {
            return Ok(out);
        }
        let timers = inner.timers.as_ref().ok_or(StateError::Poisoned)?;
        while out.len() < MAX_TXS_PER_BLOCK {
            let slot = tx_slot(height, out.len());
            match timers.get(Identifier::Index(slot)).await.map_err(storage)? {
                Some(r) => out.push(r),
                None => break,
            }
        }
        Ok(out)
    }

    /// The events of the system hooks of the block at `height` (`None`: above the tip, or its
    /// hooks emitted none).
    pub async fn hook_events(&self, height: u64) -> Result<Option<Vec<u8>>, StateError> {
        let inner = self.inner.read().await;
        if inner.last_height()?.is_none_or(|tip| height > tip) {
            return Ok(None);
        }
        let hooks = inner.hooks.as_ref().ok_or(StateError::Poisoned)?;
        hooks.get(Identifier::Index(height)).await.map_err(storage)
    }
}
