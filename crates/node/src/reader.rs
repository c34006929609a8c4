//! Reads that never take the chain's lock: a [`Reader`] is a snapshot of the last finalized
//! state with a handle on the block store, published by the chain after every finalization
//! ([`crate::chain::Chain::readers`]). The RPC serves every read and every simulation
//! (`cowboy_call`, `cowboy_estimateFee`) from it, on its own worker threads, so free calls
//! never wait for, or delay, block production (issue 14, item 8).
//!
//! **Why this is sound.** The state snapshot ([`cowboy_state::StateDb::snapshot`]) reads the
//! QMDB the chain commits to, holding the database's read lock for one key read at a time; it
//! is pinned to the committed height it was taken at, and a read after a later commit fails
//! with `SnapshotStale` instead of mixing two states. A caller that meets it takes the next
//! published reader and starts over ([`is_stale`]). Blocks and receipts are written once and
//! never change, so the block store needs no snapshot, but the chain appends block `h + 1` to
//! it before it commits that block's state and publishes the next reader: a reader shows
//! nothing above its own head, so a client that saw a receipt reads the state that includes it
//! (a receipt of block `h + 1` beside the balance of block `h` was a real race, caught by the
//! kill -9 test).
//!
//! **Receipt records.** A receipt is stored with what its JSON needs from the block (block
//! hash, sender, recipient), so `cowboy_getReceipt` reads the transaction index and one record,
//! never its block or the block's other receipts ([`ReceiptRecord`]). A timer execution is
//! stored likewise with its block's hash ([`TimerRecord`]), in the block store's `timers`
//! archive, next to the block's receipts and in the same crash-safe append.
//!
//! **Pending timers** are read straight from the scheduler's storage in the snapshot
//! (`cowboy_exec::timers::{get, owned}` over a read-only [`BlockState`]): one record read for a
//! timer, and for an address its list (at most `timer_max_per_actor` entries, enforced by
//! `set_timer`) plus one record read per entry, so the work per request is bounded by a genesis
//! parameter. This is the same data the scheduler's `get`/`timers_of` handlers return, without
//! compiling a call or metering cycles nobody pays for.

use std::sync::Arc;

use cowboy_exec::fees::Basefees;
use cowboy_exec::header::{basefees_after, env_after};
use cowboy_exec::timers::{self, Timer};
use cowboy_exec::{
    simulate, BlockEnv, BlockState, ChainRules, Parent, Simulation, StateFailure, TxInvalid,
};
use cowboy_state::verifier::Account;
use cowboy_state::{BlockStore, Context, StateDb, StateError};
use cowboy_types::block::{Block, Receipt};
use cowboy_types::{Address, Hash32, HookEvents, TimerExecution, Transaction};

use crate::chain::{CResult, ChainError, Head};
use crate::genesis::Genesis;

/// A read-only view of the chain at its last finalized block (see the module docs).
pub struct Reader<E: Context> {
    /// The state after `head`, read-only.
    pub state: StateDb<E>,
    /// The block store.
    pub blocks: BlockStore<E>,
    /// The genesis.
    pub genesis: Arc<Genesis>,
    /// The last finalized block.
    pub head: Head,
    /// Basefees of the next block.
    pub basefees: Basefees,
    /// The environment a simulation runs in: the next block's.
    pub sim_env: BlockEnv,
    /// The lowest block this node holds: 0, or the block its state snapshot was taken at
    /// (`crate::snapshot_sync`). Blocks below it, and receipts and timer executions at or
    /// below it, are [`ChainError::BeforeSnapshot`].
    pub base: u64,
}

/// Whether a chain error is a snapshot overtaken by a commit (retry on a newer reader).
pub fn is_stale(e: &StateFailure) -> bool {
    matches!(e, StateFailure::State(StateError::SnapshotStale { .. }))
}

impl<E: Context> Reader<E> {
    /// An account at the snapshot (the default, empty account if absent).
    pub async fn account(&self, address: &Address) -> Result<Account, StateError> {
        Ok(self.state.account(&address.0).await?.unwrap_or_default())
    }

    /// An actor's canonical source.
    pub async fn code(&self, code_hash: &[u8; 32]) -> Result<Option<String>, StateError> {
        Ok(self
            .state
            .code(code_hash)
            .await?
            .map(|b| String::from_utf8_lossy(&b).into_owned()))
    }

    /// A storage entry with its proof against the snapshot's state root.
    pub async fn prove_storage(
        &self,
        address: &Address,
        key: &[u8],
    ) -> Result<(Option<Vec<u8>>, Vec<u8>), StateError> {
        self.state.prove_storage(&address.0, key).await
    }

    /// This reader as of the end of its finalized block `height`: the state then (a historical
    /// view, [`StateDb::at`], within the node's history window), that block as head, and a
    /// simulation environment of the block after it. Blocks above this reader's head are
    /// [`StateError::HistoryUnavailable`] too: they are not finalized as far as it knows.
    pub async fn at(&self, height: u64) -> CResult<Reader<E>> {
        let latest = self.head.header.height;
        if height > latest {
            let oldest = self.state.history_range().await?.map_or(0, |(o, _)| o);
            return Err(StateError::HistoryUnavailable {
                height,
                oldest,
                latest: Some(latest),
            }
            .into());
        }
        self.held(height, false)?;
        let state = self.state.at(height).await?;
        let block = self.block(height).await?.ok_or_else(|| {
            ChainError::Inconsistent(format!("block {height} missing from the block store"))
        })?;
        let head = Head {
            hash: block.header.hash(),
            header: block.header,
        };
        let params = &self.genesis.params;
        let rules = ChainRules {
            chain_id: self.genesis.chain_id,
            params,
        };
        let parent = Parent {
            header: &head.header,
            hash: head.hash,
        };
        Ok(Reader {
            sim_env: env_after(
                rules,
                parent,
                head.header.timestamp_ms + 1,
                Address([0; 20]),
            ),
            basefees: basefees_after(&head.header, params),
            state,
            blocks: self.blocks.clone(),
            genesis: self.genesis.clone(),
            head,
            base: self.base,
        })
    }

    /// Whether block `height` is part of this reader's view (see the module docs).
    fn visible(&self, height: u64) -> bool {
        height <= self.head.header.height
    }

    /// [`ChainError::BeforeSnapshot`] if this node has no records of block `height` (its
    /// receipts and timer executions, `and_at`: also the snapshot's own block's).
    fn held(&self, height: u64, and_at: bool) -> CResult<()> {
        if self.base > 0 && (height < self.base || (and_at && height == self.base)) {
            return Err(ChainError::BeforeSnapshot {
                height,
                base: self.base,
            });
        }
        Ok(())
    }

    /// A finalized block by height.
    pub async fn block(&self, height: u64) -> CResult<Option<Block>> {
        if !self.visible(height) {
            return Ok(None);
        }
        self.held(height, false)?;
        match self.blocks.block(height).await? {
            Some(b) => Ok(Some(Block::decode(&b, self.genesis.params.block_limits())?)),
            None => Ok(None),
        }
    }

    /// A finalized block by hash.
    pub async fn block_by_hash(&self, hash: &Hash32) -> CResult<Option<Block>> {
        match self.blocks.block_by_hash(&hash.0).await? {
            Some((height, b)) if self.visible(height) => {
                Ok(Some(Block::decode(&b, self.genesis.params.block_limits())?))
            }
            _ => Ok(None),
        }
    }

    /// Where a finalized transaction is: `(height, index)`.
    pub async fn tx_location(&self, hash: &Hash32) -> CResult<Option<(u64, u32)>> {
        Ok(self
            .blocks
            .tx_location(&hash.0)
            .await?
            .filter(|l| self.visible(l.height))
            .map(|l| (l.height, l.index)))
    }

    /// The receipts of a finalized block.
    pub async fn receipts(&self, height: u64) -> CResult<Vec<Receipt>> {
        let mut out = Vec::new();
        if !self.visible(height) {
            return Ok(out);
        }
        self.held(height, true)?;
        for r in self.blocks.receipts(height).await? {
            out.push(ReceiptRecord::decode(&r)?.receipt);
        }
        Ok(out)
    }

    /// The receipt of a finalized transaction with its location and record: O(1) in the size
    /// of its block.
    pub async fn located_receipt(
        &self,
        hash: &Hash32,
    ) -> CResult<Option<(u64, u32, ReceiptRecord)>> {
        let Some((loc, bytes)) = self.blocks.located_receipt(&hash.0).await? else {
            return Ok(None);
        };
        if !self.visible(loc.height) {
            return Ok(None);
        }
        Ok(Some((
            loc.height,
            loc.index,
            ReceiptRecord::decode(&bytes)?,
        )))
    }

    /// The timer executions of a finalized block, in the order they ran.
    pub async fn timer_executions(&self, height: u64) -> CResult<Vec<TimerRecord>> {
        let mut out = Vec::new();
        if !self.visible(height) {
            return Ok(out);
        }
        self.held(height, true)?;
        for r in self.blocks.timer_executions(height).await? {
            out.push(TimerRecord::decode(&r)?);
        }
        Ok(out)
    }

    /// The events of a finalized block's system hooks (empty: they emitted none).
    pub async fn hook_events(&self, height: u64) -> CResult<HookEvents> {
        if !self.visible(height) {
            return Ok(HookEvents::default());
        }
        self.held(height, true)?;
        Ok(match self.blocks.hook_events(height).await? {
            Some(bytes) => HookEvents::decode(&bytes)?,
            None => HookEvents::default(),
        })
    }

    /// The pending timer `id` at the snapshot. Blocking: call it on a worker thread.
    pub fn timer(&self, id: u64) -> Result<Option<Timer>, StateFailure> {
        let bs = BlockState::new(self.state.batch());
        timers::get(&bs, id)
    }

    /// The pending timers of `owner` at the snapshot, in the order of its list (see the module
    /// docs for the bound). Blocking: call it on a worker thread.
    pub fn timers_of(&self, owner: &Address) -> Result<Vec<Timer>, StateFailure> {
        let bs = BlockState::new(self.state.batch());
        let cap = usize::try_from(self.genesis.params.timer_max_per_actor).unwrap_or(usize::MAX);
        let mut out = Vec::new();
        for id in timers::owned(&bs, owner)?.into_iter().take(cap) {
            if let Some(t) = timers::get(&bs, id)? {
                out.push(t);
            }
        }
        Ok(out)
    }

    /// Run `tx` as `sender` read-only on the snapshot, as the next block would. Blocking: call
    /// it on a worker thread. `Err` with [`is_stale`] means a block was committed meanwhile.
    pub fn simulate(
        &self,
        sender: Address,
        tx: &Transaction,
    ) -> Result<Result<Simulation, TxInvalid>, StateFailure> {
        let mut bs = BlockState::new(self.state.batch());
        simulate(&mut bs, &self.genesis.params, &self.sim_env, sender, tx)
    }
}

/// What a receipt's JSON needs from its block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceiptContext {
    /// Hash of the block holding the transaction.
    pub block_hash: Hash32,
    /// The transaction's sender.
    pub from: Address,
    /// The transaction's recipient (`None`: a deploy).
    pub to: Option<Address>,
}

/// A receipt as the node stores it: `0x01 ‖ block hash (32) ‖ sender (20) ‖ 0|1 ‖ recipient
/// (20, if 1) ‖ canonical receipt`. The leading byte is the record's version: a node meeting
/// another refuses it rather than misreading it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceiptRecord {
    /// Where the transaction is and who sent it where.
    pub context: ReceiptContext,
    /// The receipt.
    pub receipt: Receipt,
}

const RECORD_VERSION: u8 = 0x01;

/// A stored record's head: the version byte, then the block hash. Returns the hash and the
/// record from the hash on (the hash's 32 bytes included, so offsets read as in the layout),
/// or what is wrong.
fn record_head(bytes: &[u8]) -> Result<(Hash32, &[u8]), &'static str> {
    let Some((&RECORD_VERSION, rest)) = bytes.split_first() else {
        return Err("unknown version");
    };
    let hash = rest
        .get(..32)
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .map(Hash32)
        .ok_or("truncated")?;
    Ok((hash, rest))
}

impl ReceiptRecord {
    /// Encode the record of `receipt` for a transaction from `from` to `to` in block
    /// `block_hash`.
    pub fn encode(
        block_hash: &Hash32,
        from: Address,
        to: Option<Address>,
        receipt: &Receipt,
    ) -> Vec<u8> {
        let body = receipt.encode();
        let mut out = Vec::with_capacity(1 + 32 + 20 + 21 + body.len());
        out.push(RECORD_VERSION);
        out.extend_from_slice(&block_hash.0);
        out.extend_from_slice(&from.0);
        match to {
            Some(to) => {
                out.push(1);
                out.extend_from_slice(&to.0);
            }
            None => out.push(0),
        }
        out.extend_from_slice(&body);
        out
    }

    /// Decode a record.
    pub fn decode(bytes: &[u8]) -> CResult<ReceiptRecord> {
        let bad = |what: &str| ChainError::Inconsistent(format!("corrupt receipt record: {what}"));
        let address = |b: Option<&[u8]>| {
            b.and_then(|b| <[u8; 20]>::try_from(b).ok())
                .map(Address)
                .ok_or_else(|| bad("truncated"))
        };
        let (block_hash, rest) = record_head(bytes).map_err(bad)?;
        let from = address(rest.get(32..52))?;
        let (to, body) = match rest.get(52) {
            Some(0) => (None, &rest[53..]),
            Some(1) => (
                Some(address(rest.get(53..73))?),
                rest.get(73..).unwrap_or(&[]),
            ),
            _ => return Err(bad("recipient flag")),
        };
        Ok(ReceiptRecord {
            context: ReceiptContext {
                block_hash,
                from,
                to,
            },
            receipt: Receipt::decode(body)?,
        })
    }
}

/// A timer execution as the node stores it: `0x01 ‖ block hash (32) ‖ canonical
/// [`TimerExecution`]`, versioned like [`ReceiptRecord`]. Keyed in the store by the
/// execution's hash (the leaf of the header's `receipts_root`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerRecord {
    /// Hash of the block whose `begin_block` ran it.
    pub block_hash: Hash32,
    /// The execution with its receipt.
    pub execution: TimerExecution,
}

impl TimerRecord {
    /// Encode the record of `execution` run in block `block_hash`, with its store key.
    pub fn encode(block_hash: &Hash32, execution: &TimerExecution) -> ([u8; 32], Vec<u8>) {
        let body = execution.encode();
        let mut out = Vec::with_capacity(1 + 32 + body.len());
        out.push(RECORD_VERSION);
        out.extend_from_slice(&block_hash.0);
        out.extend_from_slice(&body);
        (execution.hash().0, out)
    }

    /// Decode a record.
    pub fn decode(bytes: &[u8]) -> CResult<TimerRecord> {
        let bad = |what: &str| {
            ChainError::Inconsistent(format!("corrupt timer execution record: {what}"))
        };
        let (block_hash, rest) = record_head(bytes).map_err(bad)?;
        Ok(TimerRecord {
            block_hash,
            execution: TimerExecution::decode(rest.get(32..).unwrap_or(&[]))?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receipt_records_round_trip_and_refuse_what_they_are_not() {
        let r = Receipt {
            success: true,
            cycles_used: 5,
            cells_used: 6,
            fee_paid: 7,
            return_data: vec![1, 2],
            events: vec![],
            error: None,
        };
        let from = Address([7; 20]);
        for to in [None, Some(Address([3; 20]))] {
            let rec = ReceiptRecord::decode(&ReceiptRecord::encode(&Hash32([9; 32]), from, to, &r))
                .unwrap();
            assert_eq!(
                rec.context,
                ReceiptContext {
                    block_hash: Hash32([9; 32]),
                    from,
                    to
                }
            );
            assert_eq!(rec.receipt, r);
        }
        // A bare receipt, a truncated record, a bad flag: errors, never a wrong receipt.
        assert!(ReceiptRecord::decode(&r.encode()).is_err());
        assert!(ReceiptRecord::decode(&[RECORD_VERSION, 1, 2]).is_err());
        let mut bad_flag = ReceiptRecord::encode(&Hash32([9; 32]), from, None, &r);
        bad_flag[53] = 2;
        assert!(ReceiptRecord::decode(&bad_flag).is_err());
    }

    #[test]
    fn timer_records_round_trip_and_refuse_what_they_are_not() {
        let execution = TimerExecution {
            timer_id: 3,
            owner: Address([4; 20]),
            handler: "tick".into(),
            due: 17,
            receipt: Receipt {
                success: true,
                cycles_used: 5,
                cells_used: 6,
                fee_paid: 7,
                return_data: vec![],
                events: vec![],
                error: None,
            },
        };
        let (key, bytes) = TimerRecord::encode(&Hash32([9; 32]), &execution);
        assert_eq!(key, execution.hash().0);
        let rec = TimerRecord::decode(&bytes).unwrap();
        assert_eq!(rec.block_hash, Hash32([9; 32]));
        assert_eq!(rec.execution, execution);
        assert!(TimerRecord::decode(&execution.encode()).is_err());
        assert!(TimerRecord::decode(&bytes[..40]).is_err());
        assert!(TimerRecord::decode(&[RECORD_VERSION]).is_err());
    }
}
