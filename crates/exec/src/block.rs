//! Whole blocks: the one lifecycle that both builds and verifies a block (whitepaper "The State
//! Transition Function", §4.2, §4.3, §6.3, §6.4; ARCHITECTURE D9).
//!
//! ```text
//! begin_block   the missed votes the block's vote record shows (staking's downtime),
//!               system actors' begin hooks (mailbox: expire dedup records; later: rent),
//!               then due timers in the timer lane (crate::timers::deliver)
//! transactions  lane by lane in priority order; within a lane by keccak256(R ‖ sender),
//!               then nonce (crate::lanes); each one validated, charged to its lane's budget
//!               and applied (crate::apply)
//! end_block     system actors' end hooks (staking: the block's inflation mint and, at an
//!               epoch's last block, the next validator set and the epoch's rewards);
//!               at a reshare round's last block, its outcome (crate::reshare);
//!               the next block's basefees from this block's usage
//! ```
//!
//! Before `begin_block`, the block's dealer logs (if any) are checked and recorded
//! (`crate::reshare`): they need no transaction and change nothing a transaction reads.
//!
//! ```text
//! ```
//!
//! [`build_block`] is what a proposer runs: it puts the candidates in block order itself and
//! skips any that are invalid at their position (wrong nonce, too poor, lane or block full…),
//! with the reason. [`execute_block`] is what a validator runs: the list as proposed must
//! already be in block order, and any invalid transaction makes the whole block invalid.
//! They share [`Lifecycle`], the ordering key and every check, so a block the builder makes
//! is one the verifier accepts: they cannot drift apart. [`propose`] and [`verify`] wrap them
//! with the header rule ([`crate::header`]) and the state root, for the node.

use std::sync::Arc;

use cowboy_state::{Changes, Context, Staged, StateDb};
use cowboy_types::block::Block;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::{
    block_receipts_root, Address, Hash32, HookEvents, Receipt, TimerExecution, Transaction,
    VoteRecord,
};

use crate::apply::{check_stateless, BlockExecutor, BlockUsage, CheckedTx, TxInvalid};
use crate::fees::{next_basefees, Basefees};
use crate::header::{
    check_header_against_execution, check_header_against_parent, env_after, seal_header, BlockEnv,
    BlockError, ChainRules, ExecutedSummary, Parent,
};
use crate::lanes::{order_key, Lane};
use crate::state::{BlockState, SResult, StateFailure};
use crate::system::staking::{check_votes, count_missed, select_votes, CheckedVotes};
use crate::trace::Trace;

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
    /// The timers delivered in `begin_block` (and those dropped), in delivery order.
    pub timers: Vec<TimerExecution>,
    /// The events of the block's system hooks (a downtime jailing, an epoch boundary).
    pub hooks: HookEvents,
    /// The sender of each transaction, in block order (recovered once, on the way in; stores
    /// and indexes need them without recovering signatures again).
    pub senders: Vec<Address>,
    /// What the block used, burned and paid in tips.
    pub usage: BlockUsage,
    /// The basefees of the next block (§4.2).
    pub next_basefees: Basefees,
}

/// A transaction's place in the block order: lane, then `keccak256(R ‖ sender)`, then nonce.
type OrderKey = (Lane, Hash32, u64);

fn position(env: &BlockEnv, c: &CheckedTx) -> OrderKey {
    (c.lane, order_key(&env.randomness, &c.sender), c.tx.nonce)
}

/// Sort transactions into the order a block of environment `env` must have them in (ties,
/// which no valid block contains, by hash).
pub fn put_in_block_order(env: &BlockEnv, txs: &mut [CheckedTx]) {
    txs.sort_by_cached_key(|c| (position(env, c), c.hash));
}

/// One block from `begin_block` to `end_block` (see the module docs).
pub struct Lifecycle<'p> {
    params: &'p GenesisParams,
    exec: BlockExecutor<'p>,
    receipts: Vec<Receipt>,
    timers: Vec<TimerExecution>,
    hooks: HookEvents,
    senders: Vec<Address>,
}

impl<'p> Lifecycle<'p> {
    /// `begin_block`: the missed votes of the block's checked vote record, the system actors'
    /// begin hooks, then the due timers. Runs actors: call it on a VM stack
    /// (`cowboy_pvm::actor::with_vm_stack`).
    pub fn begin<E: Context>(
        state: &mut BlockState<'_, E>,
        params: &'p GenesisParams,
        env: BlockEnv,
        votes: &CheckedVotes,
    ) -> SResult<Self> {
        // A downtime jailing's event is the first of the block's hook events.
        let mut begin = count_missed(state, params, env.height, votes)?;
        // Begin hooks mint nothing (rewards are minted at the end of the block).
        crate::system::run_hooks(state, params, &env, false, &mut begin)?;
        let mut exec = BlockExecutor::new(params, env);
        let timers = crate::timers::deliver::deliver(state, &mut exec)?;
        Ok(Lifecycle {
            params,
            exec,
            receipts: Vec::new(),
            timers,
            hooks: HookEvents {
                begin,
                end: Vec::new(),
            },
            senders: Vec::new(),
        })
    }

    /// Apply one transaction at the block's next position. `Ok(Err(_))`: it cannot be part of
    /// the block here, and the state is unchanged.
    pub fn apply<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        c: &CheckedTx,
    ) -> SResult<Result<(), TxInvalid>> {
        Ok(self.exec.apply_checked(state, c)?.map(|r| {
            self.receipts.push(r);
            self.senders.push(c.sender);
        }))
    }

    /// `end_block`: the system actors' end hooks, then the next basefees.
    pub fn end<E: Context>(mut self, state: &mut BlockState<'_, E>) -> SResult<BlockOutcome> {
        let env = *self.exec.env();
        let end = &mut self.hooks.end;
        let minted = crate::system::run_hooks(state, self.params, &env, true, end)?;
        end.append(&mut crate::reshare::end_block(
            state,
            self.params,
            env.height,
        )?);
        let mut usage = self.exec.usage().clone();
        // Added to what the block minted already (a dev chain's set-balance transactions).
        usage.minted = usage.minted.saturating_add(minted);
        let next = next_basefees(env.basefees, usage.cycles, usage.cells, self.params);
        Ok(BlockOutcome {
            receipts: self.receipts,
            timers: self.timers,
            hooks: self.hooks,
            senders: self.senders,
            usage,
            next_basefees: next,
        })
    }
}

/// Execute a proposed block's transactions, after counting what its checked vote record
/// shows (`votes`). `Ok(Err(_))`: the block is invalid, and the caller must discard `state`
/// (it holds partial writes).
pub fn execute_block<E: Context>(
    state: &mut BlockState<'_, E>,
    params: &GenesisParams,
    env: BlockEnv,
    votes: &CheckedVotes,
    txs: &[Transaction],
) -> SResult<Result<BlockOutcome, BlockError>> {
    if txs.len() as u64 > params.max_txs_per_block() {
        return Ok(Err(BlockError::TooManyTransactions {
            got: txs.len(),
            max: params.max_txs_per_block(),
        }));
    }
    let checked = check_all(txs, params, env.chain_id);
    // Order is checked on the whole list before anything runs: it needs no state.
    let mut previous: Option<OrderKey> = None;
    let mut valid = Vec::with_capacity(checked.len());
    for (index, c) in checked.into_iter().enumerate() {
        let c = c.map_err(|reason| BlockError::Transaction { index, reason });
        let c = match c {
            Ok(c) => c,
            Err(e) => return Ok(Err(e)),
        };
        let key = position(&env, &c);
        if previous.is_some_and(|p| p >= key) {
            return Ok(Err(BlockError::OutOfOrder {
                index,
                lane: c.lane,
            }));
        }
        previous = Some(key);
        valid.push(c);
    }
    // One VM stack for the whole block, not one per actor invocation.
    let applied =
        cowboy_pvm::actor::with_vm_stack(|| -> SResult<Result<Lifecycle, BlockError>> {
            let mut life = Lifecycle::begin(state, params, env, votes)?;
            for (index, c) in valid.iter().enumerate() {
                if let Err(reason) = life.apply(state, c)? {
                    return Ok(Err(BlockError::Transaction { index, reason }));
                }
            }
            Ok(Ok(life))
        })?;
    match applied {
        Ok(life) => life.end(state).map(Ok),
        Err(e) => Ok(Err(e)),
    }
}

/// Re-execute transaction `index` of a finalized block on `state` (which must hold the
/// state of the block's parent) and record its call tree (`crate::trace`): `begin_block`, the
/// transactions before it, then it, traced. The block passed [`verify`] once, so each of
/// these transactions is valid at its position; `Ok(Err(_))` says the state given was not the
/// parent's. `votes` is the block's checked record ([`check_block_votes`]). Costs at most the
/// block's own execution (its cycle cap bounds it).
pub fn trace_transaction<E: Context>(
    state: &mut BlockState<'_, E>,
    params: &GenesisParams,
    env: BlockEnv,
    votes: &CheckedVotes,
    txs: &[Transaction],
    index: usize,
) -> SResult<Result<(Receipt, Trace), BlockError>> {
    let no_such = || {
        StateFailure::Invariant(format!(
            "no transaction {index} in a block of {}",
            txs.len()
        ))
    };
    let upto = txs.get(..=index).ok_or_else(no_such)?;
    let mut checked = Vec::with_capacity(upto.len());
    for (i, c) in check_all(upto, params, env.chain_id)
        .into_iter()
        .enumerate()
    {
        match c {
            Ok(c) => checked.push(c),
            Err(reason) => return Ok(Err(BlockError::Transaction { index: i, reason })),
        }
    }
    cowboy_pvm::actor::with_vm_stack(|| -> SResult<Result<(Receipt, Trace), BlockError>> {
        let mut life = Lifecycle::begin(state, params, env, votes)?;
        let (target, before) = checked.split_last().ok_or_else(no_such)?;
        for (i, c) in before.iter().enumerate() {
            if let Err(reason) = life.apply(state, c)? {
                return Ok(Err(BlockError::Transaction { index: i, reason }));
            }
        }
        Ok(life
            .exec
            .apply_traced(state, target)?
            .map_err(|reason| BlockError::Transaction { index, reason }))
    })
}

/// A block assembled by [`build_block`].
#[derive(Debug, Clone)]
pub struct BuiltBlock {
    /// The transactions included, in block order.
    pub included: Vec<CheckedTx>,
    /// Candidates left out, with the reason.
    pub skipped: Vec<(CheckedTx, TxInvalid)>,
    /// Candidates not tried because the proposer's cutoff said stop (they stay pooled).
    pub deferred: usize,
    /// Receipts and usage of the included transactions.
    pub outcome: BlockOutcome,
}

/// The proposer's cutoff of [`build_block`]: asked between candidates, true means stop.
/// `Sync`, so a proposer may hold it across the awaits of [`propose`] on a multi-threaded
/// runtime.
pub type Cutoff<'a> = &'a (dyn Fn() -> bool + Sync);

/// A proposer's cutoff that never stops a build: every candidate is tried (tests, replays,
/// single-validator dev chains).
pub fn no_cutoff() -> bool {
    false
}

/// Assemble a block from `candidates` (in any order: the block order is fixed here), skipping
/// any that are invalid at their position, after counting what its vote record shows.
///
/// `cutoff` is the proposer's own limit on how long it builds (the node's is a share of its
/// leader timeout, read from its clock): asked before each candidate once one is included, and
/// when it says stop the rest are not tried (`deferred`; neither included nor skipped, so they
/// stay pooled for the next block). It is no part of validity: a verifier executes the block
/// it is given, whatever stopped its proposer, so it may read anything, a clock included. It
/// exists for liveness: a block whose execution takes longer than consensus waits for a
/// proposal to be notarized is built again by every leader and never certified.
pub fn build_block<E: Context>(
    state: &mut BlockState<'_, E>,
    params: &GenesisParams,
    env: BlockEnv,
    votes: &CheckedVotes,
    mut candidates: Vec<CheckedTx>,
    cutoff: Cutoff<'_>,
) -> SResult<BuiltBlock> {
    put_in_block_order(&env, &mut candidates);
    let max_txs = usize::try_from(params.max_txs_per_block()).unwrap_or(usize::MAX);
    let mut included = Vec::new();
    let mut skipped = Vec::new();
    let mut previous: Option<OrderKey> = None;
    let mut deferred = 0;
    let life = cowboy_pvm::actor::with_vm_stack(|| -> SResult<Lifecycle> {
        let mut life = Lifecycle::begin(state, params, env, votes)?;
        let total = candidates.len();
        for (tried, c) in candidates.into_iter().enumerate() {
            // At least one transaction goes in whatever the cutoff says, so a slow machine
            // still makes progress on the pool.
            if !included.is_empty() && cutoff() {
                deferred = total - tried;
                break;
            }
            // A second transaction at the same position (same sender and nonce) can never
            // follow the first in a valid block; it is a replacement the pool kept too.
            let key = position(&env, &c);
            if previous == Some(key) {
                let got = c.tx.nonce;
                let expected = got + 1;
                skipped.push((c, TxInvalid::Nonce { expected, got }));
                continue;
            }
            if included.len() >= max_txs {
                let full = TxInvalid::BlockFull {
                    meter: "transactions",
                };
                skipped.push((c, full));
                continue;
            }
            match life.apply(state, &c)? {
                Ok(()) => {
                    previous = Some(key);
                    included.push(c);
                }
                Err(reason) => skipped.push((c, reason)),
            }
        }
        Ok(life)
    })?;
    Ok(BuiltBlock {
        included,
        skipped,
        deferred,
        outcome: life.end(state)?,
    })
}

/// The stateless checks of every transaction (signature recovery dominates), spread over the
/// machine's cores. Each result depends only on its own transaction, so the outcome is the same
/// on any number of threads; the state is then applied in block order on this thread.
pub fn check_all(
    txs: &[Transaction],
    params: &GenesisParams,
    chain_id: u64,
) -> Vec<Result<CheckedTx, TxInvalid>> {
    let check = |tx: &Transaction| check_stateless(tx, params, chain_id);
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

/// A block executed on the state of its parent: what to commit if it is finalized.
#[derive(Debug)]
pub struct Executed {
    /// The block's state changes, staged over its parent's state: what
    /// `StateDb::commit_staged` commits and a child block executes on.
    pub state: Arc<Staged>,
    /// One receipt per transaction.
    pub receipts: Vec<Receipt>,
    /// The timers delivered (and dropped) in `begin_block`.
    pub timers: Vec<TimerExecution>,
    /// The events of its system hooks.
    pub hooks: HookEvents,
    /// The sender of each transaction.
    pub senders: Vec<Address>,
}

/// What a header commits to about an executed block: its receipts, usage and the state root
/// after `changes`, staged over the parent's state (`parent_state`, or the committed state)
/// without writing. One function for proposer and verifier, so the two compare the same figures.
async fn summarize<E: Context>(
    db: &StateDb<E>,
    parent_state: Option<&Arc<Staged>>,
    height: u64,
    changes: Changes,
    outcome: &BlockOutcome,
) -> SResult<(ExecutedSummary, Arc<Staged>)> {
    let staged = db
        .stage(parent_state, height, changes)
        .await
        .map_err(StateFailure::State)?;
    let summary = ExecutedSummary {
        receipts_root: block_receipts_root(&outcome.timers, &outcome.receipts, &outcome.hooks),
        cycles_used: outcome.usage.cycles,
        cells_used: outcome.usage.cells,
        state_root: Hash32(staged.root()),
    };
    Ok((summary, staged))
}

/// A block a proposer built.
#[derive(Debug)]
pub struct Proposal {
    /// The sealed block.
    pub block: Block,
    /// Its execution.
    pub executed: Executed,
    /// Candidates left out, with the reason (for the mempool to drop or demote).
    pub skipped: Vec<(CheckedTx, TxInvalid)>,
    /// Candidates not tried because `cutoff` said stop ([`build_block`]).
    pub deferred: usize,
}

/// Build and seal the child of `parent`, whose state is `parent_state` if it is staged and
/// not committed, else the committed state of `db`: the environment from the header rule (its
/// randomness from `beacon`, the group's signature over the block the beacon rule names with
/// that block's hash, when the rule covers the child: `crate::beacon`), the
/// vote record from the grandparent's votes the proposer collected (`votes`; the valid ones
/// if they are a quorum, else none: `staking::select_votes`), the block from `candidates`
/// until `cutoff` says stop ([`build_block`]), the header over the result.
#[allow(clippy::too_many_arguments)]
pub async fn propose<E: Context>(
    db: &StateDb<E>,
    parent_state: Option<&Arc<Staged>>,
    rules: ChainRules<'_>,
    parent: Parent<'_>,
    timestamp_ms: u64,
    proposer: Address,
    candidates: Vec<CheckedTx>,
    votes: Option<VoteRecord>,
    beacon: Option<crate::beacon::Signed>,
    dealer_logs: Vec<Vec<u8>>,
    cutoff: Cutoff<'_>,
) -> SResult<Proposal> {
    let timestamp_ms = timestamp_ms.max(parent.header.timestamp_ms.saturating_add(1));
    let mut env = env_after(rules, parent, timestamp_ms, proposer);
    let mut bs = BlockState::new(db.batch_on(parent_state));
    let schedule = crate::beacon::schedule(&mut bs, rules.params, env.height)?;
    // The proposer checks the signature it was handed exactly as a verifier will: a block it
    // cannot make valid is a bug of the caller, not a block.
    let randomness = crate::beacon::check(
        schedule.as_ref(),
        rules.chain_id,
        env.height,
        beacon.as_ref().map(|b| &b.signature),
        beacon.as_ref().map(|b| b.target_hash),
    )
    .map_err(|e| StateFailure::Invariant(format!("cannot propose block {}: {e}", env.height)))?;
    if let Some(r) = randomness {
        env.randomness = r;
    }
    let selected = match votes {
        Some(candidate) => select_votes(
            &mut bs,
            rules.params,
            rules.chain_id,
            env.height,
            &parent.header.parent_hash,
            candidate,
        )?,
        None => None,
    };
    let (votes, checked) = selected.map_or((None, CheckedVotes::none()), |(r, c)| (Some(r), c));
    // The logs the node holds that this block may carry; checked and recorded as a verifier
    // will (a selection that fails the check is a bug here, not a block).
    let dealer_logs = crate::reshare::select_logs(&mut bs, rules.params, env.height, dealer_logs)?;
    let logs = crate::reshare::check_logs(&mut bs, rules.params, env.height, &dealer_logs)?
        .map_err(|e| {
            StateFailure::Invariant(format!("cannot propose block {}: {e}", env.height))
        })?;
    crate::reshare::record(&mut bs, rules.params, env.height, &logs)?;
    let built = build_block(&mut bs, rules.params, env, &checked, candidates, cutoff)?;
    let changes = bs.finish();
    let (summary, state) = summarize(db, parent_state, env.height, changes, &built.outcome).await?;
    let transactions: Vec<Transaction> = built.included.into_iter().map(|c| c.tx).collect();
    let votes_root = votes.as_ref().map(VoteRecord::hash);
    let header = seal_header(
        &env,
        parent.hash,
        Block::tx_root(&transactions),
        votes_root,
        Block::dealings_root(&dealer_logs),
        &summary,
    );
    Ok(Proposal {
        block: Block {
            header,
            transactions,
            votes,
            beacon: beacon.map(|b| b.signature),
            dealer_logs,
        },
        executed: Executed {
            state,
            receipts: built.outcome.receipts,
            timers: built.outcome.timers,
            hooks: built.outcome.hooks,
            senders: built.outcome.senders,
        },
        skipped: built.skipped,
        deferred: built.deferred,
    })
}

/// Verify `block` as the child of `parent`, whose state is `parent_state` if it is staged and
/// not committed, else the committed state of `db`: every header check, the beacon signature
/// (over the block of `beacon_target`: the hash of the block at the height the beacon rule
/// names on this block's chain, which the caller knows and a header does not; `None` below
/// it), the block order and lanes, every transaction, and the header's commitments to the
/// execution. `Ok(Err(_))`: the block is invalid, with the reason.
pub async fn verify<E: Context>(
    db: &StateDb<E>,
    parent_state: Option<&Arc<Staged>>,
    rules: ChainRules<'_>,
    parent: Parent<'_>,
    block: &Block,
    beacon_target: Option<Hash32>,
) -> SResult<Result<Executed, BlockError>> {
    let h = &block.header;
    let mut bs = BlockState::new(db.batch_on(parent_state));
    let schedule = crate::beacon::schedule(&mut bs, rules.params, h.height)?;
    let env = match check_header_against_parent(rules, parent, h, schedule.as_ref()) {
        Ok(env) => env,
        Err(e) => return Ok(Err(e)),
    };
    match crate::beacon::check(
        schedule.as_ref(),
        rules.chain_id,
        h.height,
        block.beacon.as_ref(),
        beacon_target,
    ) {
        Err(e) => return Ok(Err(BlockError::Beacon(e))),
        Ok(Some(expected)) if expected != h.randomness => {
            return Ok(Err(BlockError::Randomness(crate::header::GotExpected {
                got: h.randomness,
                expected,
            })))
        }
        Ok(_) => {}
    }
    let tx_root = Block::tx_root(&block.transactions);
    if h.tx_root != tx_root {
        return Ok(Err(BlockError::TxRoot(crate::header::GotExpected {
            got: h.tx_root,
            expected: tx_root,
        })));
    }
    let votes = match check_block_votes(&mut bs, rules, parent, block)? {
        Ok(v) => v,
        Err(e) => return Ok(Err(e)),
    };
    let dealings_root = Block::dealings_root(&block.dealer_logs);
    if h.dealings_root != dealings_root {
        return Ok(Err(BlockError::DealingsRoot {
            got: h.dealings_root,
            expected: dealings_root,
        }));
    }
    match crate::reshare::check_logs(&mut bs, rules.params, h.height, &block.dealer_logs)? {
        Ok(logs) => crate::reshare::record(&mut bs, rules.params, h.height, &logs)?,
        Err(e) => return Ok(Err(BlockError::Reshare(e))),
    }
    let outcome = match execute_block(&mut bs, rules.params, env, &votes, &block.transactions)? {
        Ok(o) => o,
        Err(e) => return Ok(Err(e)),
    };
    let changes = bs.finish();
    let (summary, state) = summarize(db, parent_state, env.height, changes, &outcome).await?;
    if let Err(e) = check_header_against_execution(h, &summary) {
        return Ok(Err(e));
    }
    Ok(Ok(Executed {
        state,
        receipts: outcome.receipts,
        timers: outcome.timers,
        hooks: outcome.hooks,
        senders: outcome.senders,
    }))
}

/// Check `block`'s vote record, the child of `parent` on `state` (the parent's): the header's
/// `votes_root` commits to it, and it is valid against the voted block's set
/// (`staking::check_votes`). A block without one counts nothing. Reads only.
pub fn check_block_votes<E: Context>(
    state: &mut BlockState<'_, E>,
    rules: ChainRules<'_>,
    parent: Parent<'_>,
    block: &Block,
) -> SResult<Result<CheckedVotes, BlockError>> {
    let expected = block.votes.as_ref().map(VoteRecord::hash);
    if block.header.votes_root != expected {
        return Ok(Err(BlockError::VotesRoot {
            got: block.header.votes_root,
            expected,
        }));
    }
    let Some(record) = &block.votes else {
        return Ok(Ok(CheckedVotes::none()));
    };
    Ok(check_votes(
        state,
        rules.params,
        rules.chain_id,
        block.header.height,
        &parent.header.parent_hash,
        record,
    )?
    .map_err(BlockError::Votes))
}
