//! The synchronous view of one block's state that execution works on.
//!
//! `cowboy-state`'s [`WriteBatch`] is async (commonware storage), while the PVM calls its host
//! synchronously in the middle of a Python instruction. [`BlockState`] bridges the two by
//! driving each state future to completion with `futures::executor::block_on`. That is sound
//! here because a batch future never waits on another task of the runtime: it reads the batch's
//! own overlay, or the committed QMDB through the runtime's storage (in memory for the
//! deterministic runtime; `spawn_blocking` file reads for tokio, which need a runtime context —
//! so the node calls execution from inside its runtime, e.g. a task or `spawn_blocking`).
//!
//! Each future runs **outside tokio's cooperative budget** ([`tokio::task::unconstrained`]).
//! Called from a tokio task, `block_on` never yields to the scheduler, so the task's budget
//! never refills: once a block has made ~128 storage reads that miss the page cache, every
//! tokio resource (the `spawn_blocking` handle of a read) would answer "pending, try again"
//! forever and execution would spin without end (`tests/it/cold_reads.rs`). Outside tokio the
//! wrapper does nothing.
//!
//! Everything here is infallible except storage I/O; an I/O failure is [`StateFailure`], which
//! aborts the whole block (it is the node's fault, not the transaction's).

use cowboy_state::verifier::{Account, Address as StateAddress, Digest};
use cowboy_state::{Changes, Checkpoint, Context, StateError, WriteBatch};
use cowboy_types::Address;

/// Drive a state future to completion on this thread (see the module docs).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    futures::executor::block_on(tokio::task::unconstrained(f))
}

/// The block cannot be executed on this node: the state could not be read or written, or an
/// internal invariant broke. Never caused by a transaction's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateFailure {
    /// A state read or write failed.
    State(StateError),
    /// An invariant of execution broke (a bug); the message says which.
    Invariant(String),
}

impl std::fmt::Display for StateFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateFailure::State(e) => write!(f, "state failure: {e:?}"),
            StateFailure::Invariant(m) => write!(f, "execution invariant broken: {m}"),
        }
    }
}

impl std::error::Error for StateFailure {}

/// Result of a state operation.
pub type SResult<T> = Result<T, StateFailure>;

/// One block's writes over the committed state, with nested checkpoints (see module docs).
pub struct BlockState<'a, E: Context> {
    batch: WriteBatch<'a, E>,
}

fn key(a: &Address) -> StateAddress {
    a.0
}

impl<'a, E: Context> BlockState<'a, E> {
    /// Wrap a fresh batch.
    pub fn new(batch: WriteBatch<'a, E>) -> Self {
        Self { batch }
    }

    /// The account at `a`, or the empty account (balance 0, nonce 0, no code).
    pub fn account(&self, a: &Address) -> SResult<Account> {
        Ok(block_on(self.batch.account(&key(a)))
            .map_err(StateFailure::State)?
            .unwrap_or_default())
    }

    /// Whether an account record exists at `a`.
    pub fn exists(&self, a: &Address) -> SResult<bool> {
        Ok(block_on(self.batch.account(&key(a)))
            .map_err(StateFailure::State)?
            .is_some())
    }

    /// Write the account at `a` (storage counters are kept by the state).
    pub fn set_account(&mut self, a: &Address, acct: &Account) -> SResult<()> {
        block_on(self.batch.set_account(&key(a), acct)).map_err(StateFailure::State)
    }

    /// Storage entry `k` of actor `a`.
    pub fn storage(&self, a: &Address, k: &[u8]) -> SResult<Option<Vec<u8>>> {
        block_on(self.batch.storage(&key(a), k)).map_err(StateFailure::State)
    }

    /// Set storage entry `k` of actor `a`.
    pub fn set_storage(&mut self, a: &Address, k: &[u8], v: &[u8]) -> SResult<()> {
        block_on(self.batch.set_storage(&key(a), k, v)).map_err(StateFailure::State)
    }

    /// Delete storage entry `k` of actor `a`.
    pub fn delete_storage(&mut self, a: &Address, k: &[u8]) -> SResult<()> {
        block_on(self.batch.delete_storage(&key(a), k)).map_err(StateFailure::State)
    }

    /// Code by hash.
    pub fn code(&self, hash: &Digest) -> SResult<Option<Vec<u8>>> {
        block_on(self.batch.code(hash)).map_err(StateFailure::State)
    }

    /// Store code, returning its hash (keccak256 of the bytes).
    pub fn put_code(&mut self, code: &[u8]) -> SResult<Digest> {
        block_on(self.batch.put_code(code)).map_err(StateFailure::State)
    }

    /// Open a nested checkpoint.
    pub fn checkpoint(&mut self) -> Checkpoint {
        self.batch.checkpoint()
    }

    /// Undo everything since `cp`.
    pub fn rollback(&mut self, cp: Checkpoint) -> SResult<()> {
        self.batch.rollback(cp).map_err(StateFailure::State)
    }

    /// Keep everything since `cp`.
    pub fn release(&mut self, cp: Checkpoint) -> SResult<()> {
        self.batch.release(cp).map_err(StateFailure::State)
    }

    /// Add `amount` to `a`'s balance, creating the account if needed.
    pub fn credit(&mut self, a: &Address, amount: u128) -> SResult<()> {
        if amount == 0 {
            return Ok(());
        }
        let mut acct = self.account(a)?;
        // Total supply is below 2^128 by construction (genesis bounds it), so a balance
        // cannot overflow; saturate rather than panic if that invariant were ever broken.
        acct.balance = acct.balance.saturating_add(amount);
        self.set_account(a, &acct)
    }

    /// Subtract `amount` from `a`'s balance; `false` (and no change) if it is short.
    pub fn debit(&mut self, a: &Address, amount: u128) -> SResult<bool> {
        if amount == 0 {
            return Ok(true);
        }
        let mut acct = self.account(a)?;
        let Some(rest) = acct.balance.checked_sub(amount) else {
            return Ok(false);
        };
        acct.balance = rest;
        self.set_account(a, &acct)?;
        Ok(true)
    }

    /// The block's changes, for `StateDb::commit`.
    pub fn finish(self) -> Changes {
        self.batch.finish()
    }
}
