//! The write batch of one block: a buffered overlay over its parent's state (the last committed
//! state, or a staged block above it: see [crate::staged]) with nested checkpoints (whitepaper "Single-Block Atomicity": a handler's reads, writes and sends either
//! all commit or all revert).
//!
//! Writes go to an ordered map `state key → Some(value) | None (delete)`; reads look in the map
//! first and fall through to the parent's state. A checkpoint records the length of an undo log
//! of overwritten map entries; rolling back replays the log backwards to that length, so nested
//! handlers revert independently and in O(writes since the checkpoint). Nothing touches the
//! database until [crate::StateDb::commit] applies the finished [Changes] in key order, so the
//! same sequence of batches yields the same root bit for bit.
//!
//! Storage writes keep the owning account's `(storage_items, storage_bytes)` counters exact (see
//! the proof-verifier's `account` module): the counters are updated in the same overlay and so
//! revert with the entry.

use std::collections::BTreeMap;

use cowboy_proof_verifier::account::MAX_METADATA_LEN;
use cowboy_proof_verifier::keys::{self, Address, Digest};
use cowboy_proof_verifier::Account;

use crate::db::{Context, StateDb};
use crate::error::StateError;
use crate::staged::{self, Staged};

/// Largest storage key an actor may use, in bytes.
pub const MAX_STORAGE_KEY_LEN: usize = 1024;
/// Largest storage value, in bytes (the whole default per-actor quota, §3.2).
pub const MAX_STORAGE_VALUE_LEN: usize = 1 << 20;
/// Largest actor code, in bytes.
pub const MAX_CODE_LEN: usize = 1 << 20;

/// The overlay map: state key → `Some(value)` (set) or `None` (delete).
pub(crate) type Overlay = BTreeMap<Vec<u8>, Option<Vec<u8>>>;

/// The finished writes of one block, in key order: `Some(value)` sets, `None` deletes.
///
/// Only [WriteBatch::finish] makes one, so every change passed to [crate::StateDb::commit] went
/// through the batch's checks (sizes, account records, storage counters).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Changes(pub(crate) Overlay);

impl Changes {
    /// Number of keys written.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The writes in key order (`None` = delete).
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], Option<&[u8]>)> {
        self.0.iter().map(|(k, v)| (k.as_slice(), v.as_deref()))
    }
}

/// An undo-log entry: a key and its previous overlay entry (`None` = it was not in the overlay).
type UndoEntry = (Vec<u8>, Option<Option<Vec<u8>>>);

/// A handle to an open checkpoint of a [WriteBatch].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a checkpoint must be rolled back or released"]
pub struct Checkpoint {
    depth: usize,
    undo_len: usize,
}

/// One block's overlay over its parent's state (see the module docs).
pub struct WriteBatch<'a, E: Context> {
    state: &'a StateDb<E>,
    /// The parent's state when it is staged and not committed.
    parent: Option<std::sync::Arc<Staged>>,
    overlay: Overlay,
    /// Previous overlay entries (`None` = the key was not in the overlay), recorded only while a
    /// checkpoint is open.
    undo: Vec<UndoEntry>,
    /// Undo-log lengths of the open checkpoints, outermost first.
    checkpoints: Vec<usize>,
}

impl<'a, E: Context> WriteBatch<'a, E> {
    pub(crate) fn new(state: &'a StateDb<E>, parent: Option<std::sync::Arc<Staged>>) -> Self {
        Self {
            state,
            parent,
            overlay: BTreeMap::new(),
            undo: Vec::new(),
            checkpoints: Vec::new(),
        }
    }

    /// Open a nested checkpoint.
    pub fn checkpoint(&mut self) -> Checkpoint {
        self.checkpoints.push(self.undo.len());
        Checkpoint {
            depth: self.checkpoints.len(),
            undo_len: self.undo.len(),
        }
    }

    fn check(&self, cp: Checkpoint) -> Result<(), StateError> {
        match self.checkpoints.get(cp.depth.wrapping_sub(1)) {
            Some(&len) if len == cp.undo_len => Ok(()),
            _ => Err(StateError::StaleCheckpoint),
        }
    }

    /// Undo every write made since `cp` and close it (and any checkpoint opened inside it).
    pub fn rollback(&mut self, cp: Checkpoint) -> Result<(), StateError> {
        self.check(cp)?;
        while self.undo.len() > cp.undo_len {
            let Some((key, previous)) = self.undo.pop() else {
                break;
            };
            match previous {
                Some(entry) => self.overlay.insert(key, entry),
                None => self.overlay.remove(&key),
            };
        }
        self.checkpoints.truncate(cp.depth - 1);
        self.trim_undo();
        Ok(())
    }

    /// Keep the writes made since `cp` and close it (and any checkpoint opened inside it). They
    /// still revert if an enclosing checkpoint is rolled back.
    pub fn release(&mut self, cp: Checkpoint) -> Result<(), StateError> {
        self.check(cp)?;
        self.checkpoints.truncate(cp.depth - 1);
        self.trim_undo();
        Ok(())
    }

    /// With no checkpoint open, nothing can be undone: drop the log.
    fn trim_undo(&mut self) {
        if self.checkpoints.is_empty() {
            self.undo.clear();
        }
    }

    fn put(&mut self, key: Vec<u8>, value: Option<Vec<u8>>) {
        let previous = self.overlay.insert(key.clone(), value);
        if !self.checkpoints.is_empty() {
            self.undo.push((key, previous));
        }
    }

    async fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StateError> {
        if let Some(entry) = self.overlay.get(key) {
            return Ok(entry.clone());
        }
        let committed = self.state.last_committed().map(|c| c.height);
        match staged::read(self.parent.as_ref(), committed, key) {
            Some(entry) => Ok(entry),
            None => self.state.get_raw(key).await,
        }
    }

    /// The account at `address` as this batch sees it.
    pub async fn account(&self, address: &Address) -> Result<Option<Account>, StateError> {
        match self.get(&keys::account_key(address)).await? {
            Some(bytes) => Account::decode(&bytes)
                .map(Some)
                .map_err(StateError::CorruptAccount),
            None => Ok(None),
        }
    }

    /// Create or overwrite the account at `address`.
    ///
    /// The storage counters are the state's to keep: the counters of the existing record are
    /// kept, whatever `account` says, so a caller cannot desynchronise them from the entries.
    pub async fn set_account(
        &mut self,
        address: &Address,
        account: &Account,
    ) -> Result<(), StateError> {
        if account.metadata.len() > MAX_METADATA_LEN {
            return Err(StateError::MetadataTooLong(account.metadata.len()));
        }
        let mut record = account.clone();
        let (items, bytes) = match self.account(address).await? {
            Some(existing) => (existing.storage_items, existing.storage_bytes),
            None => (0, 0),
        };
        record.storage_items = items;
        record.storage_bytes = bytes;
        self.put(keys::account_key(address).to_vec(), Some(record.encode()));
        Ok(())
    }

    /// Delete the account at `address`. An actor that still owns storage entries cannot be
    /// deleted (its entries would be orphaned: the state cannot enumerate them).
    pub async fn delete_account(&mut self, address: &Address) -> Result<(), StateError> {
        if let Some(existing) = self.account(address).await? {
            if existing.storage_items > 0 {
                return Err(StateError::StorageNotEmpty {
                    address: *address,
                    items: existing.storage_items,
                });
            }
            self.put(keys::account_key(address).to_vec(), None);
        }
        Ok(())
    }

    /// The storage entry `key` of the actor at `address`.
    pub async fn storage(
        &self,
        address: &Address,
        key: &[u8],
    ) -> Result<Option<Vec<u8>>, StateError> {
        self.get(&keys::storage_key(address, key)).await
    }

    /// Set storage entry `key` of the actor at `address`, keeping the account's counters exact.
    pub async fn set_storage(
        &mut self,
        address: &Address,
        key: &[u8],
        value: &[u8],
    ) -> Result<(), StateError> {
        check_len("storage key", key.len(), MAX_STORAGE_KEY_LEN)?;
        check_len("storage value", value.len(), MAX_STORAGE_VALUE_LEN)?;
        let mut account = self
            .account(address)
            .await?
            .ok_or(StateError::AccountMissing(*address))?;
        let old = self.storage(address, key).await?;
        let bad = || StateError::CounterInconsistent(*address);
        if let Some(old) = &old {
            let old_size = (key.len() + old.len()) as u64;
            account.storage_bytes = account
                .storage_bytes
                .checked_sub(old_size)
                .ok_or_else(bad)?;
        } else {
            account.storage_items = account.storage_items.checked_add(1).ok_or_else(bad)?;
        }
        let new_size = (key.len() + value.len()) as u64;
        account.storage_bytes = account
            .storage_bytes
            .checked_add(new_size)
            .ok_or_else(bad)?;
        self.put(
            keys::storage_key(address, key).to_vec(),
            Some(value.to_vec()),
        );
        self.put(keys::account_key(address).to_vec(), Some(account.encode()));
        Ok(())
    }

    /// Delete storage entry `key` of the actor at `address` (a no-op if it is absent).
    pub async fn delete_storage(
        &mut self,
        address: &Address,
        key: &[u8],
    ) -> Result<(), StateError> {
        let Some(old) = self.storage(address, key).await? else {
            return Ok(());
        };
        let mut account = self
            .account(address)
            .await?
            .ok_or(StateError::AccountMissing(*address))?;
        let bad = || StateError::CounterInconsistent(*address);
        account.storage_items = account.storage_items.checked_sub(1).ok_or_else(bad)?;
        let size = (key.len() + old.len()) as u64;
        account.storage_bytes = account.storage_bytes.checked_sub(size).ok_or_else(bad)?;
        self.put(keys::storage_key(address, key).to_vec(), None);
        self.put(keys::account_key(address).to_vec(), Some(account.encode()));
        Ok(())
    }

    /// The code with hash `code_hash`.
    pub async fn code(&self, code_hash: &Digest) -> Result<Option<Vec<u8>>, StateError> {
        self.get(&keys::code_key(code_hash)).await
    }

    /// Store `code` under its hash and return the hash. Storing the same code twice is a no-op.
    pub async fn put_code(&mut self, code: &[u8]) -> Result<Digest, StateError> {
        check_len("code", code.len(), MAX_CODE_LEN)?;
        let hash = keys::code_hash(code);
        let key = keys::code_key(&hash).to_vec();
        if self.get(&key).await?.is_none() {
            self.put(key, Some(code.to_vec()));
        }
        Ok(hash)
    }

    /// Number of distinct keys written so far.
    pub fn len(&self) -> usize {
        self.overlay.len()
    }

    /// Whether nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.overlay.is_empty()
    }

    /// Finish the batch and hand back its changes for [crate::StateDb::commit]. Checkpoints
    /// still open are released (their writes are kept).
    pub fn finish(self) -> Changes {
        Changes(self.overlay)
    }
}

fn check_len(what: &'static str, len: usize, max: usize) -> Result<(), StateError> {
    if len > max {
        return Err(StateError::TooLarge { what, len, max });
    }
    Ok(())
}
