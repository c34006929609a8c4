//! Errors of the state and block store. Every failure is a typed variant that names what was
//! wrong (ARCHITECTURE.md rule 4); storage-engine failures are carried as text because
//! commonware's error types are generic over the Merkle family and not part of our interface.

use cowboy_proof_verifier::AccountError;

/// An error from [crate::StateDb], [crate::WriteBatch] or [crate::BlockStore].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateError {
    /// The storage engine (QMDB, journal, archive) failed; the text is its message.
    Storage(String),
    /// An earlier storage failure consumed the database handle. Reopen the state: it recovers
    /// to the last committed block.
    Poisoned,
    /// `commit` was given a height that does not follow the last committed one.
    HeightMismatch {
        /// The height that must be committed next.
        expected: u64,
        /// The height that was given.
        got: u64,
    },
    /// A stored account record does not decode: the database is corrupt.
    CorruptAccount(AccountError),
    /// The commit metadata (block height) of the database is not 8 bytes: the database is corrupt.
    CorruptMetadata(usize),
    /// A storage entry was written or deleted for an address that has no account.
    AccountMissing([u8; 20]),
    /// An account was deleted while it still owns storage entries.
    StorageNotEmpty {
        /// The account.
        address: [u8; 20],
        /// How many entries it still owns.
        items: u64,
    },
    /// Account metadata exceeds the record limit.
    MetadataTooLong(usize),
    /// A storage key, storage value or code exceeds its size limit.
    TooLarge {
        /// Which field.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A storage counter of an account would overflow or go negative: the record is inconsistent
    /// with its entries.
    CounterInconsistent([u8; 20]),
    /// A checkpoint was used after it had been closed (rolled back or released).
    StaleCheckpoint,
    /// A staged block does not build on the committed state: its parent is neither the last
    /// committed block nor staged above it (a sibling was committed instead).
    StaleStage {
        /// The staged block's height.
        height: u64,
        /// The last committed height.
        committed: u64,
    },
    /// A block-store write is not the next height or conflicts with what is stored.
    BlockOutOfOrder {
        /// The height that must be appended next.
        expected: u64,
        /// The height that was given.
        got: u64,
    },
    /// More transactions in one block than the transaction index can address.
    TooManyTransactions(usize),
    /// More timer executions in one block than the timer archive can address.
    TooManyTimerExecutions(usize),
    /// A read through a [crate::StateDb::snapshot] after a later block was committed: the state
    /// it was pinned to is gone. Take a new snapshot and start over.
    SnapshotStale {
        /// The committed height the snapshot reads.
        pinned: u64,
        /// The committed height now.
        now: u64,
    },
    /// A snapshot was asked to commit or prune: snapshots only read.
    ReadOnly,
    /// The state as of block `height` was asked for, but only the heights `oldest..=latest`
    /// can be read (the history window, `StateConfig::history_blocks`; `latest` is `None`
    /// before the first commit).
    HistoryUnavailable {
        /// The height asked for.
        height: u64,
        /// The oldest height that can be read now.
        oldest: u64,
        /// The latest committed height.
        latest: Option<u64>,
    },
    /// A read at block `height` needed more history than one view may fold: the changesets of
    /// blocks up to `through` exceed `cap` bytes (`StateConfig::history_fold_bytes`).
    HistoryTooLarge {
        /// The height asked for.
        height: u64,
        /// The block whose changeset went over the cap.
        through: u64,
        /// The cap, in bytes.
        cap: u64,
    },
    /// A stored changeset of block `.0` is missing or does not decode, or a retried commit of
    /// that block wrote different changes than were stored: the history is corrupt.
    CorruptHistory(u64),
    /// A proof was asked of a historical view (of block `.0`): proofs are of the current state.
    HistoricalProof(u64),
    /// The state's partitions hold a snapshot whose build did not finish (the process stopped
    /// during `StateDb::from_snapshot`): its data is partial and unverified. Remove the
    /// partitions (`destroy_partitions` with `StateConfig::partitions`) and sync again.
    SnapshotUnfinished,
    /// The number of receipts differs from the number of transactions.
    ReceiptCountMismatch {
        /// Transactions in the block.
        txs: usize,
        /// Receipts given.
        receipts: usize,
    },
}

impl core::fmt::Display for StateError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            StateError::HistoryUnavailable {
                height,
                oldest,
                latest: Some(latest),
            } => write!(
                f,
                "the state of block {height} is not available: this node keeps the state of \
                 blocks {oldest}..={latest} (its history window)"
            ),
            StateError::HistoryUnavailable { height, .. } => {
                write!(
                    f,
                    "the state of block {height} is not available: nothing is committed yet"
                )
            }
            StateError::HistoryTooLarge {
                height,
                through,
                cap,
            } => write!(
                f,
                "the state of block {height} is too far behind to read: the blocks after it \
                 (through {through}) changed more than {cap} bytes of state; read a more recent block"
            ),
            _ => write!(f, "{self:?}"),
        }
    }
}

impl std::error::Error for StateError {}

/// Wrap a storage-engine error.
pub(crate) fn storage<E: core::fmt::Display>(e: E) -> StateError {
    StateError::Storage(e.to_string())
}
