//! The mempool: transactions waiting for a block (whitepaper §6.3, §6.4).
//!
//! - **Entry** runs the checks execution runs (chain id, signature, payload, limits, intrinsic
//!   cost, fee caps against the current basefees) plus the sender's nonce and balance at the
//!   last finalized state, and answers the submitter with a typed [`Rejection`].
//! - **Per-sender order**: a sender's transactions are kept by nonce. Nonces below the account's
//!   are rejected; up to [`MAX_NONCE_GAP`] ahead are queued (they wait for the gap to fill).
//! - **Pending and queued** (the censorship attack of issue 14): a sender's *pending* run is
//!   its transactions at consecutive nonces from the account's next one whose summed cost
//!   (`value + cycles_limit·max_fee_per_cycle + cells_limit·max_fee_per_cell`) the balance at
//!   the last finalized state covers. Only pending transactions are selected for a block, count
//!   towards `pendingNonce` ([`Mempool::next_nonce`]) and are protected from eviction; the rest
//!   are *queued*: at most [`MAX_QUEUED_PER_SENDER`] per sender, evicted first when the pool
//!   is full, and dropped after [`QUEUED_TTL_BLOCKS`] finalized blocks. Admission refuses a
//!   transaction unless the balance covers the cost of *every* queued transaction of the
//!   sender plus its own (as reth's pool does), so a sender cannot queue spending it cannot
//!   pay. A transaction the block builder finds invalid (stale nonce, balance gone, any
//!   failure other than "no room left" or a fee cap below a risen basefee) leaves the pool
//!   ([`Mempool::on_skipped`]) instead of holding a block's budget again.
//! - **Replacement**: a transaction with the same sender and nonce replaces the queued one if it
//!   raises both tips by at least 10%.
//! - **Lanes** (§6.3, §17.9): every transaction carries its lane (`cowboy_exec::lanes`, where the
//!   rule and the budgets live); selection fills lanes in priority order, each up to its
//!   genesis budget, with what the reserved lanes leave spilling to the user lane, so the set
//!   it offers fits the budgets the block rule enforces.
//! - **Selection** (§6.4): within a lane, by highest effective fee computed from intrinsic costs,
//!   `intrinsic_cycles·min(max_fee_per_cycle, basefee_cycle + tip_per_cycle) + intrinsic_cells·…`,
//!   ties broken by transaction hash; a sender's transactions are taken in nonce order (only a
//!   sender's next transaction competes). The selected set is then ordered by
//!   `keccak256(R ‖ sender)` with `R` the block's randomness, keeping each sender's nonces in
//!   order, so a proposer cannot place transactions where it likes.
//! - **Bounds**: at most `max_txs` transactions and `max_bytes` bytes in all, and
//!   [`MAX_PER_SENDER`] per sender. When full, the cheapest transaction that is last in its
//!   sender's queue is evicted if the newcomer pays more; otherwise the newcomer is refused.
//!
//! Nothing here depends on arrival time or on `HashMap` order: the same pool selects the same
//! block.

use std::collections::BTreeMap;

use cowboy_exec::fees::Basefees;
use cowboy_exec::lanes::{Lane, LaneBudgets};
use cowboy_exec::{check_stateless, CheckedTx, TxInvalid};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::hash::keccak256_concat;
use cowboy_types::{Address, Hash32, Transaction};

/// How far ahead of the account's nonce a transaction may be queued.
pub const MAX_NONCE_GAP: u64 = 64;
/// Transactions per sender (pending and queued).
pub const MAX_PER_SENDER: usize = 256;
/// Queued (not pending: behind a nonce gap, or beyond what the balance covers) transactions
/// per sender.
pub const MAX_QUEUED_PER_SENDER: usize = 16;
/// Finalized blocks after which a queued transaction is dropped.
pub const QUEUED_TTL_BLOCKS: u64 = 600;
/// Largest transaction the pool holds whatever the genesis says (bytes of its canonical
/// encoding). The limit applied is the smaller of this and `max_tx_size_bytes`.
pub const MAX_TX_BYTES: usize = 1 << 20;

/// Why the mempool refused a transaction. `kind()` is the RPC's `reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// Bytes are not a canonical signed transaction.
    Decode(String),
    /// Larger than `max_tx_size_bytes`.
    TooLarge {
        /// The transaction's size in bytes.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// Fails a check execution would fail.
    Invalid(TxInvalid),
    /// Nonce already used.
    NonceTooLow {
        /// The account's next nonce.
        expected: u64,
        /// The transaction's.
        got: u64,
    },
    /// Nonce too far ahead.
    NonceGap {
        /// The account's next nonce.
        expected: u64,
        /// The transaction's.
        got: u64,
    },
    /// Balance below value plus maximum fee.
    InsufficientBalance {
        /// Needed.
        needed: u128,
        /// Held.
        balance: u128,
    },
    /// Same sender and nonce queued with tips that this one does not beat by 10%.
    ReplacementUnderpriced,
    /// Pool full of better-paying transactions.
    Full,
    /// This exact transaction is already queued.
    AlreadyKnown,
    /// The sender has too many transactions in the pool.
    SenderFull,
    /// The sender has too many queued (not pending) transactions.
    QueuedFull,
}

impl Rejection {
    /// Machine-readable kind (RPC error data `reason`).
    pub fn kind(&self) -> &'static str {
        match self {
            Rejection::Decode(_) => "decode",
            Rejection::TooLarge { .. } => "tooLarge",
            Rejection::Invalid(TxInvalid::Signature(_)) => "signature",
            Rejection::Invalid(TxInvalid::WrongChain { .. }) => "wrongChain",
            Rejection::Invalid(TxInvalid::Payload(_)) => "payload",
            Rejection::Invalid(TxInvalid::DevOnly) => "devOnly",
            Rejection::Invalid(TxInvalid::Fees(cowboy_exec::fees::FeeError::LimitTooHigh {
                ..
            }))
            | Rejection::Invalid(TxInvalid::Intrinsic { .. }) => "limits",
            Rejection::Invalid(TxInvalid::Fees(_)) => "feeCapBelowBasefee",
            Rejection::Invalid(_) => "invalid",
            Rejection::NonceTooLow { .. } => "nonceTooLow",
            Rejection::NonceGap { .. } => "nonceGap",
            Rejection::InsufficientBalance { .. } => "insufficientBalance",
            Rejection::ReplacementUnderpriced => "replacementUnderpriced",
            Rejection::Full | Rejection::SenderFull | Rejection::QueuedFull => "mempoolFull",
            Rejection::AlreadyKnown => "alreadyKnown",
        }
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejection::Decode(e) => write!(f, "not a canonical signed transaction: {e}"),
            Rejection::TooLarge { size, limit } => write!(
                f,
                "transaction is {size} bytes, larger than the {limit}-byte limit (max_tx_size_bytes)"
            ),
            Rejection::Invalid(e) => write!(f, "{e}"),
            Rejection::NonceTooLow { expected, got } => {
                write!(f, "nonce {got} is already used; the account's next nonce is {expected}")
            }
            Rejection::NonceGap { expected, got } => write!(
                f,
                "nonce {got} is more than {MAX_NONCE_GAP} ahead of the account's next nonce {expected}"
            ),
            Rejection::InsufficientBalance { needed, balance } => write!(
                f,
                "balance {balance} does not cover value plus maximum fee of this and the \
                 sender's queued transactions, {needed}"
            ),
            Rejection::ReplacementUnderpriced => f.write_str(
                "a transaction with this nonce is queued; a replacement must raise both tips by 10%",
            ),
            Rejection::Full => f.write_str("the mempool is full of better-paying transactions"),
            Rejection::SenderFull => write!(f, "the sender has {MAX_PER_SENDER} transactions in the pool"),
            Rejection::QueuedFull => write!(
                f,
                "the sender has {MAX_QUEUED_PER_SENDER} transactions waiting behind a nonce gap \
                 or beyond its balance"
            ),
            Rejection::AlreadyKnown => f.write_str("transaction already queued"),
        }
    }
}

/// What the pool needs to know about a sender at the last finalized state.
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderState {
    /// Next nonce.
    pub nonce: u64,
    /// Balance.
    pub balance: u128,
}

#[derive(Clone, Debug)]
struct Entry {
    /// Decoded, its sender recovered and its stateless checks passed once, on admission; the
    /// block builder takes it as is.
    checked: CheckedTx,
    /// The most the transaction can take from the sender ([`CheckedTx::max_spend`]).
    cost: u128,
    /// The pool's height when it was admitted (for the queued expiry).
    since: u64,
}

impl Entry {
    fn tx(&self) -> &Transaction {
        &self.checked.tx
    }
    fn sender(&self) -> Address {
        self.checked.sender
    }
    fn bytes(&self) -> usize {
        usize::try_from(self.checked.size).unwrap_or(usize::MAX)
    }
    fn effective_fee(&self, basefees: Basefees) -> u128 {
        let per_cycle = self
            .tx()
            .max_fee_per_cycle
            .min(basefees.cycle.saturating_add(self.tx().tip_per_cycle));
        let per_cell = self
            .tx()
            .max_fee_per_cell
            .min(basefees.cell.saturating_add(self.tx().tip_per_cell));
        u128::from(self.checked.intrinsic.cycles)
            .saturating_mul(per_cycle)
            .saturating_add(u128::from(self.checked.intrinsic.cells).saturating_mul(per_cell))
    }
}

/// One sender's transactions by nonce, with its account at the last finalized state.
#[derive(Debug, Default)]
struct Queue {
    account: SenderState,
    txs: BTreeMap<u64, Hash32>,
}

/// The pool (see the module docs).
#[derive(Debug)]
pub struct Mempool {
    max_txs: usize,
    max_bytes: usize,
    bytes: usize,
    queued_ttl: u64,
    /// Finalized blocks seen (advanced by [`Mempool::prune`]).
    height: u64,
    by_hash: BTreeMap<Hash32, Entry>,
    by_sender: BTreeMap<Address, Queue>,
}

impl Mempool {
    /// An empty pool bounded to `max_txs` transactions and `max_bytes` bytes.
    pub fn new(max_txs: usize, max_bytes: usize) -> Self {
        Self {
            max_txs,
            max_bytes,
            bytes: 0,
            queued_ttl: QUEUED_TTL_BLOCKS,
            height: 0,
            by_hash: BTreeMap::new(),
            by_sender: BTreeMap::new(),
        }
    }

    /// Drop queued transactions after `blocks` finalized blocks instead of
    /// [`QUEUED_TTL_BLOCKS`].
    pub fn with_queued_ttl(mut self, blocks: u64) -> Self {
        self.queued_ttl = blocks;
        self
    }

    /// The end of the sender's pending run starting at `from` (see the module docs): the first
    /// nonce at or after `from` that is absent, or whose cost, added to the run's, the balance
    /// does not cover, or (with `basefees`) whose fee caps are below them.
    fn pending_end(&self, q: &Queue, from: u64, basefees: Option<Basefees>) -> u64 {
        let mut n = from;
        let mut spent = 0u128;
        while let Some(e) = q.txs.get(&n).map(|h| &self.by_hash[h]) {
            spent = spent.saturating_add(e.cost);
            // A dev chain's set-balance pays no fee, so no basefee prices it out.
            let priced_out = !e.checked.is_set_balance()
                && basefees.is_some_and(|b| {
                    e.tx().max_fee_per_cycle < b.cycle || e.tx().max_fee_per_cell < b.cell
                });
            if spent > q.account.balance || priced_out {
                break;
            }
            n += 1;
        }
        n
    }

    /// Pending and queued transactions (see the module docs).
    pub fn counts(&self) -> (usize, usize) {
        let pending: usize = self
            .by_sender
            .values()
            .map(|q| {
                let end = self.pending_end(q, q.account.nonce, None);
                q.txs.range(q.account.nonce..end).count()
            })
            .sum();
        (pending, self.by_hash.len() - pending)
    }

    /// Drop every transaction, keeping the bounds (a dev revert: they were admitted against a
    /// state that no longer is).
    pub fn clear(&mut self) {
        self.bytes = 0;
        self.by_hash.clear();
        self.by_sender.clear();
    }

    /// Queued transactions.
    pub fn len(&self) -> usize {
        self.by_hash.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }

    /// Senders with queued transactions.
    pub fn senders(&self) -> Vec<Address> {
        self.by_sender.keys().copied().collect()
    }

    /// Whether `sender` has a transaction queued at nonce `nonce` or later (one a block on a
    /// state where `nonce` is its next nonce could still include).
    pub fn holds_from(&self, sender: &Address, nonce: u64) -> bool {
        self.by_sender
            .get(sender)
            .is_some_and(|q| q.txs.range(nonce..).next().is_some())
    }

    /// A queued transaction by hash.
    pub fn get(&self, hash: &Hash32) -> Option<(&Transaction, Address)> {
        self.by_hash.get(hash).map(|e| (e.tx(), e.sender()))
    }

    /// The nonce after the sender's pending run starting at `account_nonce` (what a wallet
    /// should sign next): queued transactions, which may never be mined, do not count.
    pub fn next_nonce(&self, sender: &Address, account_nonce: u64) -> u64 {
        match self.by_sender.get(sender) {
            Some(q) => self.pending_end(q, account_nonce, None),
            None => account_nonce,
        }
    }

    /// Validate and queue a transaction. `lookup` gives the sender's state at the last finalized
    /// block; `basefees` are those of the next block.
    pub fn insert(
        &mut self,
        bytes: &[u8],
        params: &GenesisParams,
        chain_id: u64,
        basefees: Basefees,
        lookup: impl FnOnce(&Address) -> SenderState,
    ) -> Result<Hash32, Rejection> {
        let checked = Self::check(bytes, params, chain_id)?;
        self.insert_checked(checked, basefees, lookup)
    }

    /// The checks admission runs that need no state: size, canonical decoding, and those
    /// execution runs on a lone transaction (chain id, signature, payload, limits). They cost
    /// a signature recovery, so a caller may run them without holding the pool.
    pub fn check(
        bytes: &[u8],
        params: &GenesisParams,
        chain_id: u64,
    ) -> Result<CheckedTx, Rejection> {
        let limit = max_tx_bytes(params);
        if bytes.len() > limit {
            return Err(Rejection::TooLarge {
                size: bytes.len(),
                limit,
            });
        }
        let tx = Transaction::decode_with_limit(bytes, limit)
            .map_err(|e| Rejection::Decode(e.to_string()))?;
        check_stateless(&tx, params, chain_id).map_err(Rejection::Invalid)
    }

    /// Queue a transaction that passed [`Mempool::check`] (the rest of [`Mempool::insert`]).
    pub fn insert_checked(
        &mut self,
        checked: CheckedTx,
        basefees: Basefees,
        lookup: impl FnOnce(&Address) -> SenderState,
    ) -> Result<Hash32, Rejection> {
        let hash = checked.hash;
        if self.by_hash.contains_key(&hash) {
            return Err(Rejection::AlreadyKnown);
        }
        let sender = checked.sender;
        let account = lookup(&sender);
        if checked.tx.nonce < account.nonce {
            return Err(Rejection::NonceTooLow {
                expected: account.nonce,
                got: checked.tx.nonce,
            });
        }
        if checked.tx.nonce > account.nonce.saturating_add(MAX_NONCE_GAP) {
            return Err(Rejection::NonceGap {
                expected: account.nonce,
                got: checked.tx.nonce,
            });
        }
        let cost = checked
            .max_spend(basefees)
            .map_err(|e| Rejection::Invalid(TxInvalid::Fees(e)))?;
        // The balance must cover this transaction and every other one of the sender's still
        // in the pool (the one it replaces excepted).
        let queue = self.by_sender.entry(sender).or_default();
        queue.account = account;
        let queued_cost = queue
            .txs
            .range(account.nonce..)
            .filter(|(n, _)| **n != checked.tx.nonce)
            .fold(0u128, |sum, (_, h)| {
                sum.saturating_add(self.by_hash[h].cost)
            });
        let needed = queued_cost.saturating_add(cost);
        if account.balance < needed {
            self.forget_if_empty(&sender);
            return Err(Rejection::InsufficientBalance {
                needed,
                balance: account.balance,
            });
        }
        let entry = Entry {
            checked,
            cost,
            since: self.height,
        };
        let result = self.admit(entry, hash, basefees);
        self.forget_if_empty(&sender);
        result
    }

    /// Drop the sender's (empty) queue, kept only while it holds transactions.
    fn forget_if_empty(&mut self, sender: &Address) {
        if self.by_sender.get(sender).is_some_and(|q| q.txs.is_empty()) {
            self.by_sender.remove(sender);
        }
    }

    /// Whether `entry`, once in the sender's queue, would be pending.
    fn would_be_pending(&self, entry: &Entry) -> bool {
        let Some(q) = self.by_sender.get(&entry.sender()) else {
            return entry.tx().nonce == 0;
        };
        // Admission checked that the balance covers the whole queue with this transaction, so
        // it is pending exactly when no nonce is missing before it.
        let end = self.pending_end(q, q.account.nonce, None);
        entry.tx().nonce <= end
    }

    /// Replacement, per-sender bounds and eviction for an admitted transaction.
    fn admit(
        &mut self,
        entry: Entry,
        hash: Hash32,
        basefees: Basefees,
    ) -> Result<Hash32, Rejection> {
        let sender = entry.sender();
        // Kept aside: removing a replaced or evicted transaction may drop the sender's queue.
        let account = self
            .by_sender
            .get(&sender)
            .map(|q| q.account)
            .unwrap_or_default();
        let pending = self.would_be_pending(&entry);
        let queued_here = self.by_sender.get(&sender).map_or(0, |q| {
            let end = self.pending_end(q, q.account.nonce, None);
            q.txs.len() - q.txs.range(q.account.nonce..end).count()
        });
        if !pending && queued_here >= MAX_QUEUED_PER_SENDER {
            return Err(Rejection::QueuedFull);
        }

        // Replacement of the same (sender, nonce).
        let existing = self
            .by_sender
            .get(&sender)
            .and_then(|q| q.txs.get(&entry.tx().nonce))
            .copied();
        if let Some(old_hash) = existing {
            let old = self.by_hash[&old_hash].tx();
            let bumped =
                |new: u128, old: u128| new >= old.saturating_add(old.div_ceil(10)).max(old + 1);
            if !(bumped(entry.tx().tip_per_cycle, old.tip_per_cycle)
                && bumped(entry.tx().tip_per_cell, old.tip_per_cell))
            {
                return Err(Rejection::ReplacementUnderpriced);
            }
            self.remove(&old_hash);
        } else if self.by_sender.get(&sender).map_or(0, |q| q.txs.len()) >= MAX_PER_SENDER {
            return Err(Rejection::SenderFull);
        }

        // Make room: queued transactions go first, then the cheapest pending tail.
        let rank = (pending, entry.effective_fee(basefees));
        while self.by_hash.len() >= self.max_txs || self.bytes + entry.bytes() > self.max_bytes {
            match self.cheapest_evictable(basefees) {
                Some((victim, h)) if victim < rank => {
                    self.remove(&h);
                }
                _ => return Err(Rejection::Full),
            }
        }

        self.bytes += entry.bytes();
        let queue = self.by_sender.entry(sender).or_default();
        queue.account = account;
        queue.txs.insert(entry.tx().nonce, hash);
        self.by_hash.insert(hash, entry);
        Ok(hash)
    }

    /// The eviction candidate: a queued transaction if any (the cheapest), else the
    /// lowest-paying transaction that is last in its sender's queue; with whether it is
    /// pending and its fee.
    fn cheapest_evictable(&self, basefees: Basefees) -> Option<((bool, u128), Hash32)> {
        self.by_sender
            .values()
            .filter_map(|q| {
                let (n, h) = q.txs.iter().next_back()?;
                let pending = *n < self.pending_end(q, q.account.nonce, None);
                Some(((pending, self.by_hash[h].effective_fee(basefees)), *h))
            })
            .min()
    }

    fn remove(&mut self, hash: &Hash32) {
        if let Some(e) = self.by_hash.remove(hash) {
            self.bytes -= e.bytes();
            if let Some(q) = self.by_sender.get_mut(&e.sender()) {
                q.txs.remove(&e.tx().nonce);
                if q.txs.is_empty() {
                    self.by_sender.remove(&e.sender());
                }
            }
        }
    }

    /// After a block is finalized: note the senders' new accounts, drop every transaction
    /// whose nonce the sender has used, and drop queued transactions older than the queued
    /// lifetime.
    pub fn prune(&mut self, account_of: impl Fn(&Address) -> SenderState) {
        self.height += 1;
        let senders: Vec<Address> = self.by_sender.keys().copied().collect();
        for s in senders {
            let account = account_of(&s);
            let Some(q) = self.by_sender.get_mut(&s) else {
                continue;
            };
            q.account = account;
            let q = &self.by_sender[&s];
            let end = self.pending_end(q, account.nonce, None);
            let drop: Vec<Hash32> = q
                .txs
                .iter()
                .filter(|(n, h)| {
                    **n < account.nonce
                        || (**n >= end
                            && self.height.saturating_sub(self.by_hash[*h].since)
                                >= self.queued_ttl)
                })
                .map(|(_, h)| *h)
                .collect();
            for h in drop {
                self.remove(&h);
            }
        }
    }

    /// Feed back what the block builder skipped: a transaction that cannot be included for a
    /// reason of its own leaves the pool, so it cannot claim the next block's budget again.
    /// Kept: "no room left in the block" (it may fit the next one), a fee cap below the
    /// basefee (the basefee may fall; selection skips it meanwhile) and a nonce ahead of the
    /// sender's (an earlier transaction of the sender was skipped in the same block).
    /// Returns how many were dropped.
    pub fn on_skipped(&mut self, skipped: &[(CheckedTx, TxInvalid)]) -> usize {
        use cowboy_exec::fees::FeeError;
        let mut dropped = 0;
        for (checked, reason) in skipped {
            let keep = match reason {
                TxInvalid::BlockFull { .. } | TxInvalid::LaneFull(_) => true,
                TxInvalid::Nonce { expected, got } => got > expected,
                TxInvalid::Fees(
                    FeeError::CycleFeeBelowBasefee { .. } | FeeError::CellFeeBelowBasefee { .. },
                ) => true,
                _ => false,
            };
            if !keep {
                let hash = checked.hash;
                if self.by_hash.contains_key(&hash) {
                    tracing::debug!(hash = %hash.to_hex(), %reason, "dropped from the mempool");
                    self.remove(&hash);
                    dropped += 1;
                }
            }
        }
        dropped
    }

    /// Candidates for the next block, in the order the builder should try them (see the module
    /// docs). `nonce_of` gives each sender's next nonce at the parent state.
    pub fn select(
        &self,
        params: &GenesisParams,
        basefees: Basefees,
        randomness: &Hash32,
        nonce_of: impl Fn(&Address) -> u64,
    ) -> Vec<CheckedTx> {
        let budgets = LaneBudgets::new(params);
        let mut chosen: Vec<&Entry> = Vec::new();
        let mut spill = 0u64;
        // Each sender's pending run at the parent state: only it is offered.
        let pending: BTreeMap<Address, std::ops::Range<u64>> = self
            .by_sender
            .iter()
            .map(|(s, q)| {
                let from = nonce_of(s);
                (*s, from..self.pending_end(q, from, Some(basefees)))
            })
            .collect();
        for lane in Lane::ALL {
            let mut budget = budgets.reserved(lane);
            if lane == Lane::User {
                budget = budget.saturating_add(spill);
            }
            let used = self.fill_lane(lane, budget, basefees, &pending, &mut chosen);
            if lane != Lane::User {
                spill = spill.saturating_add(budget - used);
            }
        }
        // VRF-style ordering: senders in keccak(R ‖ sender) order, each sender's nonces in order.
        chosen.sort_by_key(|e| {
            (
                keccak256_concat(&[&randomness.0, &e.sender().0]),
                e.tx().nonce,
            )
        });
        chosen.into_iter().map(|e| e.checked.clone()).collect()
    }

    /// Take the lane's best ready transactions up to `budget` cycles of limits; returns the
    /// cycles taken.
    fn fill_lane<'a>(
        &'a self,
        lane: Lane,
        budget: u64,
        basefees: Basefees,
        pending: &BTreeMap<Address, std::ops::Range<u64>>,
        chosen: &mut Vec<&'a Entry>,
    ) -> u64 {
        let ready = |sender: &Address, n: u64| {
            pending
                .get(sender)
                .is_some_and(|r| r.contains(&n))
                .then(|| self.by_sender[sender].txs.get(&n))
                .flatten()
        };
        // Each sender's next ready transaction competes; taking it exposes the sender's next.
        let mut heads: BTreeMap<(std::cmp::Reverse<u128>, Hash32), &Entry> = BTreeMap::new();
        let mut next: BTreeMap<Address, u64> = BTreeMap::new();
        for sender in self.by_sender.keys() {
            let n = pending.get(sender).map_or(0, |r| r.start);
            if let Some(h) = ready(sender, n) {
                let e = &self.by_hash[h];
                if e.checked.lane == lane {
                    heads.insert((std::cmp::Reverse(e.effective_fee(basefees)), *h), e);
                    next.insert(*sender, n);
                }
            }
        }
        let mut used = 0u64;
        while let Some((_, e)) = heads.pop_first() {
            if used.saturating_add(e.tx().cycles_limit) > budget {
                continue;
            }
            used += e.tx().cycles_limit;
            chosen.push(e);
            let n = next[&e.sender()] + 1;
            if let Some(h) = ready(&e.sender(), n) {
                let nx = &self.by_hash[h];
                if nx.checked.lane == lane {
                    heads.insert((std::cmp::Reverse(nx.effective_fee(basefees)), *h), nx);
                    next.insert(e.sender(), n);
                }
            }
        }
        used
    }
}

/// The largest transaction accepted: `max_tx_size_bytes` (§12.1), never above [`MAX_TX_BYTES`].
pub fn max_tx_bytes(params: &GenesisParams) -> usize {
    usize::try_from(params.max_tx_size_bytes)
        .unwrap_or(usize::MAX)
        .min(MAX_TX_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cowboy_types::tx::Payload;
    use cowboy_types::{dev_key, PrivateKey};

    const BASE: Basefees = Basefees {
        cycle: 10,
        cell: 10,
    };

    fn tx(key: &PrivateKey, nonce: u64, tip: u128, to: Address) -> Vec<u8> {
        let mut t = Transaction {
            chain_id: 1337,
            nonce,
            to: Some(to),
            value: 1,
            cycles_limit: 100_000,
            cells_limit: 1_000,
            max_fee_per_cycle: 1_000,
            max_fee_per_cell: 1_000,
            tip_per_cycle: tip,
            tip_per_cell: tip,
            access_list: None,
            payload: Payload::Transfer.encode(),
            signature: None,
        };
        t.sign(key).unwrap();
        t.encode()
    }

    fn rich(_: &Address) -> SenderState {
        SenderState {
            nonce: 0,
            balance: u128::MAX / 2,
        }
    }

    fn insert(pool: &mut Mempool, bytes: &[u8]) -> Result<Hash32, Rejection> {
        pool.insert(bytes, &GenesisParams::default(), 1337, BASE, rich)
    }

    #[test]
    fn selection_pays_best_first_and_keeps_nonce_order() {
        let mut pool = Mempool::new(100, 1 << 20);
        let (a, b) = (dev_key(0), dev_key(1));
        let to = Address([7; 20]);
        insert(&mut pool, &tx(&a, 1, 100, to)).unwrap(); // a's second pays most
        insert(&mut pool, &tx(&a, 0, 1, to)).unwrap();
        insert(&mut pool, &tx(&b, 0, 5, to)).unwrap();
        insert(&mut pool, &tx(&b, 2, 50, to)).unwrap(); // gap: not ready
        let picked = pool.select(&GenesisParams::default(), BASE, &Hash32([0; 32]), |_| 0);
        let order: Vec<(Address, u64)> = picked.iter().map(|c| (c.sender, c.tx.nonce)).collect();
        assert_eq!(order.len(), 3, "b's nonce 2 waits for nonce 1");
        let a_pos: Vec<u64> = order
            .iter()
            .filter(|(s, _)| *s == a.address())
            .map(|(_, n)| *n)
            .collect();
        assert_eq!(a_pos, vec![0, 1]);
    }

    #[test]
    fn user_lane_gets_its_reserve_plus_what_others_leave() {
        // User lane: 500k reserved + 500k spilled from the empty system, timer and runner lanes.
        let params = GenesisParams {
            block_cycles_cap: 1_000_000,
            ..GenesisParams::default()
        };
        let mut pool = Mempool::new(100, 1 << 20);
        for i in 0..12 {
            insert(&mut pool, &tx(&dev_key(i), 0, 1, Address([9; 20]))).unwrap();
        }
        let picked = pool.select(&params, BASE, &Hash32([1; 32]), |_| 0);
        assert_eq!(picked.len(), 10, "10 × 100k cycles fill the whole cap");
    }

    #[test]
    fn replacement_needs_a_ten_percent_bump() {
        let mut pool = Mempool::new(100, 1 << 20);
        let k = dev_key(2);
        let to = Address([3; 20]);
        insert(&mut pool, &tx(&k, 0, 10, to)).unwrap();
        assert_eq!(
            insert(&mut pool, &tx(&k, 0, 10, to)),
            Err(Rejection::AlreadyKnown)
        );
        assert_eq!(
            insert(&mut pool, &tx(&k, 0, 10, Address([4; 20]))),
            Err(Rejection::ReplacementUnderpriced)
        );
        insert(&mut pool, &tx(&k, 0, 11, to)).unwrap();
        assert_eq!(pool.len(), 1);
    }

    #[test]
    fn full_pool_evicts_the_cheapest_or_refuses() {
        let mut pool = Mempool::new(2, 1 << 20);
        let to = Address([5; 20]);
        insert(&mut pool, &tx(&dev_key(0), 0, 5, to)).unwrap();
        insert(&mut pool, &tx(&dev_key(1), 0, 6, to)).unwrap();
        assert_eq!(
            insert(&mut pool, &tx(&dev_key(2), 0, 1, to)),
            Err(Rejection::Full)
        );
        let best = insert(&mut pool, &tx(&dev_key(3), 0, 9, to)).unwrap();
        assert_eq!(pool.len(), 2);
        assert!(pool.get(&best).is_some());
        assert!(
            pool.senders().iter().all(|s| *s != dev_key(0).address()),
            "cheapest evicted"
        );
    }

    #[test]
    fn nonces_are_checked_and_pruned() {
        let mut pool = Mempool::new(100, 1 << 20);
        let k = dev_key(4);
        let to = Address([6; 20]);
        let at = |n| {
            move |_: &Address| SenderState {
                nonce: n,
                balance: u128::MAX / 2,
            }
        };
        let p = GenesisParams::default();
        assert!(matches!(
            pool.insert(&tx(&k, 2, 1, to), &p, 1337, BASE, at(3)),
            Err(Rejection::NonceTooLow {
                expected: 3,
                got: 2
            })
        ));
        assert!(matches!(
            pool.insert(&tx(&k, 3 + MAX_NONCE_GAP + 1, 1, to), &p, 1337, BASE, at(3)),
            Err(Rejection::NonceGap { .. })
        ));
        pool.insert(&tx(&k, 3, 1, to), &p, 1337, BASE, at(3))
            .unwrap();
        pool.insert(&tx(&k, 4, 1, to), &p, 1337, BASE, at(3))
            .unwrap();
        assert_eq!(pool.next_nonce(&k.address(), 3), 5);
        pool.prune(|_| SenderState {
            nonce: 4,
            balance: u128::MAX / 2,
        });
        assert_eq!(pool.len(), 1);
        let poor = |_: &Address| SenderState {
            nonce: 0,
            balance: 5,
        };
        assert!(matches!(
            pool.insert(&tx(&dev_key(5), 0, 1, to), &p, 1337, BASE, poor),
            Err(Rejection::InsufficientBalance { .. })
        ));
        assert!(matches!(
            pool.insert(b"garbage", &p, 1337, BASE, rich),
            Err(Rejection::Decode(_))
        ));
    }

    fn spend(key: &PrivateKey, nonce: u64, value: u128, cycles_limit: u64, tip: u128) -> Vec<u8> {
        let mut t = Transaction {
            chain_id: 1337,
            nonce,
            to: Some(Address([0xEE; 20])),
            value,
            cycles_limit,
            cells_limit: 1_000,
            max_fee_per_cycle: 1_000,
            max_fee_per_cell: 1_000,
            tip_per_cycle: tip,
            tip_per_cell: tip,
            access_list: None,
            payload: Payload::Transfer.encode(),
            signature: None,
        };
        t.sign(key).unwrap();
        t.encode()
    }

    fn holding(balance: u128) -> impl Fn(&Address) -> SenderState + Copy {
        move |_| SenderState { nonce: 0, balance }
    }

    /// The attack of issue 14: nonce 0 sends nearly everything away, nonce 1 asks for a whole
    /// block at a high tip. The balance does not cover both, so nonce 1 is refused.
    #[test]
    fn admission_counts_the_senders_queued_spending() {
        let p = GenesisParams::default();
        let mut pool = Mempool::new(100, 1 << 20);
        let k = dev_key(6);
        let balance = 10_000_000_000u128;
        let fee0 = 100_000 * 1_000 + 1_000 * 1_000;
        pool.insert(
            &spend(&k, 0, balance - fee0, 100_000, 1),
            &p,
            1337,
            BASE,
            holding(balance),
        )
        .unwrap();
        let greedy = spend(&k, 1, 0, 1_000_000, 900);
        match pool.insert(&greedy, &p, 1337, BASE, holding(balance)) {
            Err(Rejection::InsufficientBalance { needed, balance: b }) => {
                assert_eq!(b, balance);
                assert_eq!(needed, balance + 1_000_000 * 1_000 + 1_000 * 1_000);
            }
            other => panic!("{other:?}"),
        }
        // In either order.
        let mut pool = Mempool::new(100, 1 << 20);
        pool.insert(&greedy, &p, 1337, BASE, holding(balance))
            .unwrap();
        assert!(matches!(
            pool.insert(
                &spend(&k, 0, balance - fee0, 100_000, 1),
                &p,
                1337,
                BASE,
                holding(balance)
            ),
            Err(Rejection::InsufficientBalance { .. })
        ));
        // A replacement is counted instead of the transaction it replaces.
        pool.insert(
            &spend(&k, 1, 0, 1_000_000, 1_000),
            &p,
            1337,
            BASE,
            holding(balance),
        )
        .unwrap();
        assert_eq!(pool.len(), 1);
    }

    #[test]
    fn a_balance_that_fell_leaves_the_rest_queued_and_unselected() {
        let p = GenesisParams::default();
        let mut pool = Mempool::new(100, 1 << 20);
        let k = dev_key(7);
        let rich = holding(u128::MAX / 2);
        for n in 0..3 {
            pool.insert(&spend(&k, n, 1, 100_000, 1), &p, 1337, BASE, rich)
                .unwrap();
        }
        assert_eq!(pool.next_nonce(&k.address(), 0), 3);
        // The balance now covers one transaction (another validator's block spent the rest).
        let one = 1 + 100_000 * 1_000 + 1_000 * 1_000;
        pool.prune(holding(one + 5));
        assert_eq!(pool.next_nonce(&k.address(), 0), 1);
        assert_eq!(pool.counts(), (1, 2));
        let picked = pool.select(&p, BASE, &Hash32([0; 32]), |_| 0);
        assert_eq!(picked.len(), 1);
        assert_eq!(picked[0].tx.nonce, 0);
    }

    #[test]
    fn transactions_the_builder_skips_leave_the_pool() {
        let p = GenesisParams::default();
        let mut pool = Mempool::new(100, 1 << 20);
        let (a, b) = (dev_key(8), dev_key(9));
        let rich = holding(u128::MAX / 2);
        let checked = |bytes: Vec<u8>| {
            check_stateless(&Transaction::decode(&bytes).unwrap(), &p, 1337).unwrap()
        };
        let ta = checked(spend(&a, 0, 1, 100_000, 1));
        let tb = checked(spend(&b, 0, 1, 100_000, 1));
        pool.insert(&ta.tx.encode(), &p, 1337, BASE, rich).unwrap();
        pool.insert(&tb.tx.encode(), &p, 1337, BASE, rich).unwrap();
        let dropped = pool.on_skipped(&[
            (
                ta.clone(),
                TxInvalid::InsufficientBalance {
                    needed: 2,
                    balance: 1,
                },
            ),
            (tb.clone(), TxInvalid::BlockFull { meter: "cycles" }),
        ]);
        assert_eq!(dropped, 1);
        assert!(pool.get(&ta.hash).is_none(), "dead transaction dropped");
        assert!(
            pool.get(&tb.hash).is_some(),
            "no room is not the transaction's fault"
        );
        let stale = TxInvalid::Nonce {
            expected: 1,
            got: 0,
        };
        let behind = TxInvalid::Nonce {
            expected: 0,
            got: 1,
        };
        assert_eq!(pool.on_skipped(&[(tb.clone(), behind)]), 0);
        assert_eq!(pool.on_skipped(&[(tb.clone(), stale)]), 1);
        assert!(pool.is_empty());
    }

    #[test]
    fn gapped_transactions_are_bounded_expire_and_are_not_pending() {
        let p = GenesisParams::default();
        let mut pool = Mempool::new(1_000, 1 << 20).with_queued_ttl(3);
        let k = dev_key(10);
        let rich = holding(u128::MAX / 2);
        for n in 1..=MAX_QUEUED_PER_SENDER as u64 {
            pool.insert(&spend(&k, n, 1, 100_000, 9), &p, 1337, BASE, rich)
                .unwrap();
        }
        assert_eq!(
            pool.insert(&spend(&k, 40, 1, 100_000, 9), &p, 1337, BASE, rich),
            Err(Rejection::QueuedFull)
        );
        assert_eq!(pool.next_nonce(&k.address(), 0), 0, "a gap is not pending");
        assert_eq!(pool.counts(), (0, MAX_QUEUED_PER_SENDER));
        assert!(pool.select(&p, BASE, &Hash32([0; 32]), |_| 0).is_empty());
        // Queued transactions are evicted before any pending one.
        let mut small = Mempool::new(2, 1 << 20);
        small
            .insert(&spend(&k, 5, 1, 100_000, 900), &p, 1337, BASE, rich)
            .unwrap();
        small
            .insert(&spend(&dev_key(11), 0, 1, 100_000, 1), &p, 1337, BASE, rich)
            .unwrap();
        small
            .insert(&spend(&dev_key(12), 0, 1, 100_000, 1), &p, 1337, BASE, rich)
            .unwrap();
        assert_eq!(small.counts(), (2, 0));
        // And they expire.
        pool.prune(rich);
        pool.prune(rich);
        assert_eq!(pool.len(), MAX_QUEUED_PER_SENDER);
        pool.prune(rich);
        assert!(pool.is_empty());
    }

    #[test]
    fn the_size_limit_is_max_tx_size_bytes() {
        let p = GenesisParams {
            max_tx_size_bytes: 100,
            ..GenesisParams::default()
        };
        let mut pool = Mempool::new(10, 1 << 20);
        let bytes = spend(&dev_key(13), 0, 1, 100_000, 1);
        assert!(bytes.len() > 100);
        assert_eq!(
            pool.insert(&bytes, &p, 1337, BASE, rich),
            Err(Rejection::TooLarge {
                size: bytes.len(),
                limit: 100
            })
        );
        assert_eq!(max_tx_bytes(&GenesisParams::default()), 128 << 10);
    }
}
