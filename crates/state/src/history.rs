//! Recent state history: per committed block, its *changeset* (the value every key the block
//! wrote had before it), kept for a bounded window of recent blocks, and the read-only view
//! "state as of the end of block h" built from them.
//!
//! QMDB reads only the current state. The changeset of block `b` holds, for each key `b` wrote,
//! `Some(previous value)` or `None` (the key did not exist), plus the root after `b`. The value
//! of key `k` at the end of block `h < now` is then the previous value in the *oldest* changeset
//! among blocks `h+1..=now` that wrote `k`, or, if none did, its current value. A [View] folds
//! those changesets into one map once (oldest first, first writer wins) and reads the current
//! state through it, under the state's read lock, so a view never mixes two states; when later
//! blocks are committed, the view folds in their changesets too before its next read.
//!
//! **Storage.** One commonware *prunable archive* (index: height, key: height, value: the encoded
//! changeset), written and synced by `StateDb::commit` *before* the block's QMDB commit, so a
//! committed block always has its changeset (a `kill -9` in between leaves a changeset above the
//! state's height, which views never read and which the retried commit of the same block finds
//! already stored). After each commit the archive is pruned below `height - window`; pruning is
//! per section of 256 heights, so a little more than the window may stay on disk, but only the
//! window is served.
//!
//! **Encoding** (ours, big-endian): `root (32) ‖ count (u32) ‖ count × (key_len (u32) ‖ key ‖
//! tag (u8: 0 absent, 1 present) ‖ [value_len (u32) ‖ value])`, keys in ascending order.

use std::collections::BTreeMap;
use std::num::{NonZeroU64, NonZeroUsize};

use commonware_runtime::buffer::paged::{page_size, CacheRef};
use commonware_storage::archive::prunable::{Archive, Config};
use commonware_storage::archive::{Archive as _, Identifier};
use commonware_storage::translator::EightCap;
use commonware_utils::sequence::FixedBytes;

use crate::batch::Overlay;
use crate::cursor::Reader;
use crate::db::{Context, Root};
use crate::error::{storage, StateError};

/// Blocks of history kept by default: views of the last this many blocks can be read.
pub const DEFAULT_HISTORY_BLOCKS: u64 = 10_000;

/// Bytes of changesets one view may fold in by default (see [`Changeset::fold_bytes`]): a read
/// at an old block on a busy chain needs every changeset since, and a client may ask for such
/// reads over and over, so what one view holds and decodes is capped.
pub const DEFAULT_FOLD_BYTES: u64 = 64 << 20;

/// What one overlay entry costs beyond its key and value bytes (a map node and two vectors).
const ENTRY_OVERHEAD: u64 = 64;

/// Heights per archive section (the granularity of pruning).
const SECTION: u64 = 256;

/// The changeset archive: height → encoded changeset.
pub(crate) type Changesets<E> = Archive<EightCap, E, FixedBytes<8>, Vec<u8>>;

/// One block's changeset (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Changeset {
    /// The state root after the block.
    pub root: Root,
    /// Every key the block wrote, with its value before the block (`None`: absent).
    pub previous: Overlay,
}

impl Changeset {
    /// What folding this changeset into a view costs, in bytes: its keys and values plus a
    /// fixed overhead per entry, whether or not an earlier changeset already wrote the key
    /// (it was read and decoded either way).
    pub fn fold_bytes(&self) -> u64 {
        self.previous
            .iter()
            .map(|(k, v)| ENTRY_OVERHEAD + (k.len() + v.as_ref().map_or(0, Vec::len)) as u64)
            .sum()
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(36 + self.previous.len() * 64);
        out.extend_from_slice(&self.root);
        out.extend_from_slice(&(self.previous.len() as u32).to_be_bytes());
        for (key, value) in &self.previous {
            out.extend_from_slice(&(key.len() as u32).to_be_bytes());
            out.extend_from_slice(key);
            match value {
                None => out.push(0),
                Some(v) => {
                    out.push(1);
                    out.extend_from_slice(&(v.len() as u32).to_be_bytes());
                    out.extend_from_slice(v);
                }
            }
        }
        out
    }

    pub fn decode(height: u64, bytes: &[u8]) -> Result<Self, StateError> {
        let corrupt = || StateError::CorruptHistory(height);
        let mut r = Reader(bytes);
        let root: Root = r.array().ok_or_else(corrupt)?;
        let count = r.u32().ok_or_else(corrupt)?;
        let mut previous = Overlay::new();
        for _ in 0..count {
            let len = r.u32().ok_or_else(corrupt)? as usize;
            let key = r.take(len).ok_or_else(corrupt)?.to_vec();
            let value = match r.take(1).ok_or_else(corrupt)? {
                [0] => None,
                [1] => {
                    let len = r.u32().ok_or_else(corrupt)? as usize;
                    Some(r.take(len).ok_or_else(corrupt)?.to_vec())
                }
                _ => return Err(corrupt()),
            };
            previous.insert(key, value);
        }
        if !r.0.is_empty() {
            return Err(corrupt());
        }
        Ok(Self { root, previous })
    }
}

fn height_key(height: u64) -> FixedBytes<8> {
    FixedBytes::new(height.to_be_bytes())
}

/// Every storage partition of the changeset archive of the state under `prefix`.
pub(crate) fn partitions(prefix: &str) -> Vec<String> {
    let c = config(prefix);
    vec![c.metadata_partition, c.key_partition, c.value_partition]
}

fn config(prefix: &str) -> Config<EightCap, (commonware_codec::RangeCfg<usize>, ())> {
    let p = format!("{prefix}-history");
    let buffer = NonZeroUsize::new(1 << 16).unwrap_or(NonZeroUsize::MIN);
    Config {
        translator: EightCap,
        metadata_partition: format!("{p}-metadata"),
        key_partition: format!("{p}-key"),
        key_page_cache: CacheRef::new(
            page_size(4096),
            NonZeroUsize::new(64).unwrap_or(NonZeroUsize::MIN),
        ),
        value_partition: format!("{p}-value"),
        compression: None,
        // Our own records, CRC-checked by the archive; their size is the block's writes'.
        codec_config: ((..).into(), ()),
        items_per_section: NonZeroU64::new(SECTION).unwrap_or(NonZeroU64::MIN),
        key_write_buffer: buffer,
        value_write_buffer: buffer,
        replay_buffer: buffer,
    }
}

/// Open (or create) the changeset archive of the state under `prefix`.
pub(crate) async fn open<E: Context>(
    context: E,
    prefix: &str,
) -> Result<Changesets<E>, StateError> {
    Archive::init(context, config(prefix))
        .await
        .map_err(storage)
}

/// Store block `height`'s changeset durably, then drop changesets older than the window.
/// A changeset already stored at `height` (a commit retried after a crash) must be the same.
pub(crate) async fn record<E: Context>(
    archive: Changesets<E>,
    height: u64,
    changeset: &Changeset,
    window: u64,
) -> Result<Changesets<E>, StateError> {
    let bytes = changeset.encode();
    let mut archive = archive;
    match archive
        .get(Identifier::Index(height))
        .await
        .map_err(storage)?
    {
        Some(stored) if stored != bytes => return Err(StateError::CorruptHistory(height)),
        Some(_) => {}
        None => {
            archive = archive
                .put_sync(height, height_key(height), &bytes)
                .await
                .map_err(storage)?;
        }
    }
    if let Some(floor) = height.checked_sub(window) {
        archive = archive.prune(floor).await.map_err(storage)?;
    }
    Ok(archive)
}

/// The oldest height whose view can be read when `now` is committed: the window's start, or
/// later if changesets are missing (a state older than this history, or a fresh one).
pub(crate) fn oldest<E: Context>(archive: &Changesets<E>, now: u64, window: u64) -> u64 {
    let floor = now.saturating_sub(window);
    // Views down to `h` need the changesets of `h..=now` (`h`'s for its root).
    let stored = archive
        .ranges()
        .find(|(start, end)| *start <= now && now <= *end)
        .map_or(now, |(start, _)| start);
    floor.max(stored)
}

/// The changeset of block `height`, `None` if it is not stored (pruned, or never written).
pub(crate) async fn load<E: Context>(
    archive: &Changesets<E>,
    height: u64,
) -> Result<Option<Changeset>, StateError> {
    match archive
        .get(Identifier::Index(height))
        .await
        .map_err(storage)?
    {
        Some(bytes) => Changeset::decode(height, &bytes).map(Some),
        None => Ok(None),
    }
}

/// A view's fold of the changesets above its height (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct View {
    /// The height the view reads.
    pub height: u64,
    /// What the view has folded so far.
    pub folded: tokio::sync::Mutex<Fold>,
}

/// The changesets of blocks `height+1..=through` folded into one overlay.
#[derive(Debug, Default)]
pub(crate) struct Fold {
    /// The last block folded in (the view's own height when nothing is).
    pub through: u64,
    /// The previous values of the blocks folded in, first writer wins.
    pub overlay: Overlay,
    /// [`Changeset::fold_bytes`] of every changeset folded in, against the cap.
    pub bytes: u64,
}

impl View {
    /// A view at `height` with nothing folded yet (current state: `height`).
    pub fn new(height: u64) -> Self {
        Self {
            height,
            folded: tokio::sync::Mutex::new(Fold {
                through: height,
                overlay: BTreeMap::new(),
                bytes: 0,
            }),
        }
    }
}
