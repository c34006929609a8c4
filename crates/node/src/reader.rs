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
//! never change, so the block store needs no snapshot.
//!
//! **Receipt records.** A receipt is stored with what its JSON needs from the block (block
//! hash, sender, recipient), so `cowboy_getReceipt` reads the transaction index and one record,
//! never its block or the block's other receipts ([`ReceiptRecord`]).

use std::sync::Arc;

use cowboy_exec::fees::Basefees;
use cowboy_exec::{simulate, BlockEnv, BlockState, Simulation, StateFailure, TxInvalid};
use cowboy_state::verifier::Account;
use cowboy_state::{BlockStore, Context, StateDb, StateError};
use cowboy_types::block::{Block, Receipt};
use cowboy_types::{Address, Hash32, Transaction};

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

    /// A finalized block by height.
    pub async fn block(&self, height: u64) -> CResult<Option<Block>> {
        match self.blocks.block(height).await? {
            Some(b) => Ok(Some(Block::decode(&b, self.genesis.params.block_limits())?)),
            None => Ok(None),
        }
    }

    /// A finalized block by hash.
    pub async fn block_by_hash(&self, hash: &Hash32) -> CResult<Option<Block>> {
        match self.blocks.block_by_hash(&hash.0).await? {
            Some((_, b)) => Ok(Some(Block::decode(&b, self.genesis.params.block_limits())?)),
            None => Ok(None),
        }
    }

    /// Where a finalized transaction is: `(height, index)`.
    pub async fn tx_location(&self, hash: &Hash32) -> CResult<Option<(u64, u32)>> {
        Ok(self
            .blocks
            .tx_location(&hash.0)
            .await?
            .map(|l| (l.height, l.index)))
    }

    /// The receipts of a finalized block.
    pub async fn receipts(&self, height: u64) -> CResult<Vec<Receipt>> {
        let mut out = Vec::new();
        for r in self.blocks.receipts(height).await? {
            out.push(ReceiptRecord::decode(&r)?.receipt);
        }
        Ok(out)
    }

    /// The receipt of a finalized transaction with its location and record: O(1) in the size
    /// of its block for records written since receipts carry their context; older (bare)
    /// receipts get it from their block.
    pub async fn located_receipt(
        &self,
        hash: &Hash32,
    ) -> CResult<Option<(u64, u32, ReceiptRecord)>> {
        let Some((loc, bytes)) = self.blocks.located_receipt(&hash.0).await? else {
            return Ok(None);
        };
        let mut record = ReceiptRecord::decode(&bytes)?;
        if record.context.is_none() {
            let Some(block) = self.block(loc.height).await? else {
                return Ok(None);
            };
            let Some(tx) = block.transactions.get(loc.index as usize) else {
                return Ok(None);
            };
            record.context = Some(ReceiptContext {
                block_hash: block.header.hash(),
                from: tx.sender().unwrap_or(Address([0; 20])),
                to: tx.to,
            });
        }
        Ok(Some((loc.height, loc.index, record)))
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
/// (20, if 1) ‖ canonical receipt`. A record that does not start with `0x01` is a bare
/// canonical receipt (written before records carried their context; a CBOR receipt never
/// starts with `0x01`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceiptRecord {
    /// Context, absent in bare records.
    pub context: Option<ReceiptContext>,
    /// The receipt.
    pub receipt: Receipt,
}

const RECORD_TAG: u8 = 0x01;

impl ReceiptRecord {
    /// Encode the record of `receipt` for `tx` in block `block_hash`.
    pub fn encode(block_hash: &Hash32, tx: &Transaction, receipt: &Receipt) -> Vec<u8> {
        let from = tx.sender().unwrap_or(Address([0; 20]));
        let body = receipt.encode();
        let mut out = Vec::with_capacity(1 + 32 + 20 + 21 + body.len());
        out.push(RECORD_TAG);
        out.extend_from_slice(&block_hash.0);
        out.extend_from_slice(&from.0);
        match tx.to {
            Some(to) => {
                out.push(1);
                out.extend_from_slice(&to.0);
            }
            None => out.push(0),
        }
        out.extend_from_slice(&body);
        out
    }

    /// Decode a record (or a bare receipt).
    pub fn decode(bytes: &[u8]) -> CResult<ReceiptRecord> {
        let Some((&RECORD_TAG, rest)) = bytes.split_first() else {
            return Ok(ReceiptRecord {
                context: None,
                receipt: Receipt::decode(bytes)?,
            });
        };
        let bad = || ChainError::Inconsistent("corrupt receipt record".into());
        let block_hash = Hash32(
            rest.get(..32)
                .ok_or_else(bad)?
                .try_into()
                .map_err(|_| bad())?,
        );
        let from = Address(
            rest.get(32..52)
                .ok_or_else(bad)?
                .try_into()
                .map_err(|_| bad())?,
        );
        let (to, body) = match rest.get(52) {
            Some(0) => (None, rest.get(53..).ok_or_else(bad)?),
            Some(1) => (
                Some(Address(
                    rest.get(53..73)
                        .ok_or_else(bad)?
                        .try_into()
                        .map_err(|_| bad())?,
                )),
                rest.get(73..).ok_or_else(bad)?,
            ),
            _ => return Err(bad()),
        };
        Ok(ReceiptRecord {
            context: Some(ReceiptContext {
                block_hash,
                from,
                to,
            }),
            receipt: Receipt::decode(body)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cowboy_types::tx::Payload;

    #[test]
    fn receipt_records_round_trip_and_bare_receipts_still_decode() {
        let mut tx = Transaction {
            chain_id: 1,
            nonce: 0,
            to: None,
            value: 0,
            cycles_limit: 1,
            cells_limit: 1,
            max_fee_per_cycle: 1,
            max_fee_per_cell: 1,
            tip_per_cycle: 0,
            tip_per_cell: 0,
            access_list: None,
            payload: Payload::Transfer.encode(),
            signature: None,
        };
        tx.sign(&cowboy_types::dev_key(0)).unwrap();
        let r = Receipt {
            success: true,
            cycles_used: 5,
            cells_used: 6,
            fee_paid: 7,
            return_data: vec![1, 2],
            events: vec![],
            error: None,
        };
        for to in [None, Some(Address([3; 20]))] {
            tx.to = to;
            let rec =
                ReceiptRecord::decode(&ReceiptRecord::encode(&Hash32([9; 32]), &tx, &r)).unwrap();
            let ctx = rec.context.unwrap();
            assert_eq!(ctx.to, to);
            assert_eq!(ctx.block_hash, Hash32([9; 32]));
            assert_eq!(ctx.from, cowboy_types::dev_key(0).address());
            assert_eq!(rec.receipt, r);
        }
        let bare = ReceiptRecord::decode(&r.encode()).unwrap();
        assert_eq!((bare.context, bare.receipt), (None, r));
        assert!(ReceiptRecord::decode(&[RECORD_TAG, 1, 2]).is_err());
    }
}
