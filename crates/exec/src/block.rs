//! Whole blocks: genesis allocation, executing a proposed block, and building one from
//! candidate transactions (whitepaper "The State Transition Function", §4.2, §4.3).
//!
//! A block's execution starts by expiring old dedup records ([`crate::mailbox::prune`]), then
//! applies its transactions in order through [`BlockExecutor`], and ends by computing the next
//! block's basefees from its usage. [`execute_block`] is what a validator runs on a proposal:
//! one invalid transaction makes the whole block invalid. [`build_block`] is what a proposer
//! runs: invalid candidates (wrong nonce, too poor, no room left…) are skipped with their
//! reason. Both are deterministic functions of the state, the parameters, the environment and
//! the transaction list.

use cowboy_state::Context;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::{Address, Receipt, Transaction};

use crate::apply::{check_stateless, BlockEnv, BlockExecutor, BlockUsage, CheckedTx, TxInvalid};
use crate::fees::{next_basefees, Basefees};
use crate::state::{BlockState, SResult};

/// Credit the genesis allocations (block 0 carries no transactions).
pub fn apply_genesis<E: Context>(
    state: &mut BlockState<'_, E>,
    allocations: &[(Address, u128)],
) -> SResult<()> {
    for (address, amount) in allocations {
        let mut acct = state.account(address)?;
        acct.balance = acct.balance.saturating_add(*amount);
        state.set_account(address, &acct)?;
    }
    Ok(())
}

/// The result of executing a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockOutcome {
    /// One receipt per transaction, in block order.
    pub receipts: Vec<Receipt>,
    /// What the block used, burned and paid in tips.
    pub usage: BlockUsage,
    /// The basefees of the next block (§4.2).
    pub next_basefees: Basefees,
}

/// A block contains a transaction that could not be included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidBlock {
    /// Position of the offending transaction.
    pub index: usize,
    /// Why it is invalid.
    pub reason: TxInvalid,
}

impl std::fmt::Display for InvalidBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "transaction {} is invalid: {}", self.index, self.reason)
    }
}

impl std::error::Error for InvalidBlock {}

/// Execute a proposed block. `Ok(Err(_))`: the block is invalid, and the caller must discard
/// `state` (it holds the partial writes).
pub fn execute_block<E: Context>(
    state: &mut BlockState<'_, E>,
    params: &GenesisParams,
    env: BlockEnv,
    txs: &[Transaction],
) -> SResult<Result<BlockOutcome, InvalidBlock>> {
    crate::mailbox::prune(state, params, env.height)?;
    let checked = check_all(txs, params, &env);
    let mut exec = BlockExecutor::new(params, env);
    let mut receipts = Vec::with_capacity(txs.len());
    // One VM stack for the whole block, not one per actor invocation.
    cowboy_pvm::actor::with_vm_stack(|| {
        for (index, c) in checked.into_iter().enumerate() {
            let applied = match c {
                Ok(c) => exec.apply_checked(state, &c)?,
                Err(e) => Err(e),
            };
            match applied {
                Ok(r) => receipts.push(r),
                Err(reason) => return Ok(Err(InvalidBlock { index, reason })),
            }
        }
        Ok(Ok(finish(exec, params, receipts)))
    })
}

/// A block assembled by [`build_block`].
#[derive(Debug, Clone)]
pub struct BuiltBlock {
    /// The transactions included, in order.
    pub included: Vec<Transaction>,
    /// Candidates left out, with the reason.
    pub skipped: Vec<(Transaction, TxInvalid)>,
    /// Receipts and usage of the included transactions.
    pub outcome: BlockOutcome,
}

/// Assemble a block from `candidates` in the given order (the mempool's selection order),
/// skipping any that are invalid at their position.
pub fn build_block<E: Context>(
    state: &mut BlockState<'_, E>,
    params: &GenesisParams,
    env: BlockEnv,
    candidates: Vec<Transaction>,
) -> SResult<BuiltBlock> {
    crate::mailbox::prune(state, params, env.height)?;
    let checked = check_all(&candidates, params, &env);
    let mut exec = BlockExecutor::new(params, env);
    let mut receipts = Vec::new();
    let mut included = Vec::new();
    let mut skipped = Vec::new();
    // One VM stack for the whole block, not one per actor invocation.
    cowboy_pvm::actor::with_vm_stack(|| -> SResult<()> {
        for (tx, c) in candidates.into_iter().zip(checked) {
            let applied = match c {
                Ok(c) => exec.apply_checked(state, &c)?,
                Err(e) => Err(e),
            };
            match applied {
                Ok(r) => {
                    receipts.push(r);
                    included.push(tx);
                }
                Err(reason) => skipped.push((tx, reason)),
            }
        }
        Ok(())
    })?;
    Ok(BuiltBlock {
        included,
        skipped,
        outcome: finish(exec, params, receipts),
    })
}

/// The stateless checks of every transaction (signature recovery dominates), spread over the
/// machine's cores. Each result depends only on its own transaction, so the outcome is the same
/// on any number of threads; the state is then applied in block order on this thread.
fn check_all(
    txs: &[Transaction],
    params: &GenesisParams,
    env: &BlockEnv,
) -> Vec<Result<CheckedTx, TxInvalid>> {
    let check = |tx: &Transaction| check_stateless(tx, params, env.chain_id, env.basefees);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || txs.len() < 64 {
        return txs.iter().map(check).collect();
    }
    let chunk = txs.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = txs
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(check).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(v) => v,
                // A panicking check is a bug; re-raise it on this thread.
                Err(p) => std::panic::resume_unwind(p),
            })
            .collect()
    })
}

fn finish(exec: BlockExecutor<'_>, params: &GenesisParams, receipts: Vec<Receipt>) -> BlockOutcome {
    let usage = exec.usage().clone();
    let next = next_basefees(exec.env().basefees, usage.cycles, usage.cells, params);
    BlockOutcome {
        receipts,
        usage,
        next_basefees: next,
    }
}
