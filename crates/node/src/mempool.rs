//! The mempool: transactions waiting for a block (whitepaper §6.3, §6.4).
//!
//! - **Entry** runs the checks execution runs (chain id, signature, payload, limits, intrinsic
//!   cost, fee caps against the current basefees) plus the sender's nonce and balance at the
//!   last finalized state, and answers the submitter with a typed [`Rejection`].
//! - **Per-sender order**: a sender's transactions are kept by nonce. Nonces below the account's
//!   are rejected; up to [`MAX_NONCE_GAP`] ahead are queued (they wait for the gap to fill).
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
use cowboy_exec::{check_stateless, TxInvalid};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::hash::keccak256_concat;
use cowboy_types::{Address, Hash32, Transaction};

/// How far ahead of the account's nonce a transaction may be queued.
pub const MAX_NONCE_GAP: u64 = 64;
/// Queued transactions per sender.
pub const MAX_PER_SENDER: usize = 256;
/// Largest transaction accepted (bytes of its canonical encoding).
pub const MAX_TX_BYTES: usize = 1 << 20;

/// Why the mempool refused a transaction. `kind()` is the RPC's `reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// Bytes are not a canonical signed transaction.
    Decode(String),
    /// Too large.
    TooLarge(usize),
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
    /// The sender has too many queued transactions.
    SenderFull,
}

impl Rejection {
    /// Machine-readable kind (RPC error data `reason`).
    pub fn kind(&self) -> &'static str {
        match self {
            Rejection::Decode(_) | Rejection::TooLarge(_) => "decode",
            Rejection::Invalid(TxInvalid::Signature(_)) => "signature",
            Rejection::Invalid(TxInvalid::WrongChain { .. }) => "wrongChain",
            Rejection::Invalid(TxInvalid::Payload(_)) => "payload",
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
            Rejection::Full | Rejection::SenderFull => "mempoolFull",
            Rejection::AlreadyKnown => "alreadyKnown",
        }
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejection::Decode(e) => write!(f, "not a canonical signed transaction: {e}"),
            Rejection::TooLarge(n) => write!(f, "transaction is {n} bytes; the limit is {MAX_TX_BYTES}"),
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
                "balance {balance} does not cover value plus maximum fee {needed}"
            ),
            Rejection::ReplacementUnderpriced => f.write_str(
                "a transaction with this nonce is queued; a replacement must raise both tips by 10%",
            ),
            Rejection::Full => f.write_str("the mempool is full of better-paying transactions"),
            Rejection::SenderFull => write!(f, "the sender has {MAX_PER_SENDER} queued transactions"),
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
    tx: Transaction,
    sender: Address,
    lane: Lane,
    bytes: usize,
    intrinsic_cycles: u64,
    intrinsic_cells: u64,
}

impl Entry {
    fn effective_fee(&self, basefees: Basefees) -> u128 {
        let per_cycle = self
            .tx
            .max_fee_per_cycle
            .min(basefees.cycle.saturating_add(self.tx.tip_per_cycle));
        let per_cell = self
            .tx
            .max_fee_per_cell
            .min(basefees.cell.saturating_add(self.tx.tip_per_cell));
        u128::from(self.intrinsic_cycles)
            .saturating_mul(per_cycle)
            .saturating_add(u128::from(self.intrinsic_cells).saturating_mul(per_cell))
    }
}

/// The pool (see the module docs).
#[derive(Debug)]
pub struct Mempool {
    max_txs: usize,
    max_bytes: usize,
    bytes: usize,
    by_hash: BTreeMap<Hash32, Entry>,
    by_sender: BTreeMap<Address, BTreeMap<u64, Hash32>>,
}

impl Mempool {
    /// An empty pool bounded to `max_txs` transactions and `max_bytes` bytes.
    pub fn new(max_txs: usize, max_bytes: usize) -> Self {
        Self {
            max_txs,
            max_bytes,
            bytes: 0,
            by_hash: BTreeMap::new(),
            by_sender: BTreeMap::new(),
        }
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

    /// A queued transaction by hash.
    pub fn get(&self, hash: &Hash32) -> Option<(&Transaction, Address)> {
        self.by_hash.get(hash).map(|e| (&e.tx, e.sender))
    }

    /// The nonce after the sender's queued run of consecutive transactions starting at
    /// `account_nonce` (what a wallet should sign next).
    pub fn next_nonce(&self, sender: &Address, account_nonce: u64) -> u64 {
        let mut n = account_nonce;
        if let Some(q) = self.by_sender.get(sender) {
            while q.contains_key(&n) {
                n += 1;
            }
        }
        n
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
        if bytes.len() > MAX_TX_BYTES {
            return Err(Rejection::TooLarge(bytes.len()));
        }
        let tx = Transaction::decode_with_limit(bytes, MAX_TX_BYTES)
            .map_err(|e| Rejection::Decode(e.to_string()))?;
        let checked = check_stateless(&tx, params, chain_id).map_err(Rejection::Invalid)?;
        let hash = checked.hash;
        if self.by_hash.contains_key(&hash) {
            return Err(Rejection::AlreadyKnown);
        }
        let sender = checked.sender;
        let account = lookup(&sender);
        if tx.nonce < account.nonce {
            return Err(Rejection::NonceTooLow {
                expected: account.nonce,
                got: tx.nonce,
            });
        }
        if tx.nonce > account.nonce.saturating_add(MAX_NONCE_GAP) {
            return Err(Rejection::NonceGap {
                expected: account.nonce,
                got: tx.nonce,
            });
        }
        let reserved = cowboy_exec::fees::reservation(&tx, basefees)
            .map_err(|e| Rejection::Invalid(TxInvalid::Fees(e)))?;
        let needed = reserved.saturating_add(tx.value);
        if account.balance < needed {
            return Err(Rejection::InsufficientBalance {
                needed,
                balance: account.balance,
            });
        }
        let entry = Entry {
            lane: checked.lane,
            sender,
            bytes: bytes.len(),
            intrinsic_cycles: checked.intrinsic.cycles,
            intrinsic_cells: checked.intrinsic.cells,
            tx,
        };

        // Replacement of the same (sender, nonce).
        let existing = self
            .by_sender
            .get(&sender)
            .and_then(|q| q.get(&entry.tx.nonce))
            .copied();
        if let Some(old_hash) = existing {
            let old = &self.by_hash[&old_hash].tx;
            let bumped =
                |new: u128, old: u128| new >= old.saturating_add(old.div_ceil(10)).max(old + 1);
            if !(bumped(entry.tx.tip_per_cycle, old.tip_per_cycle)
                && bumped(entry.tx.tip_per_cell, old.tip_per_cell))
            {
                return Err(Rejection::ReplacementUnderpriced);
            }
            self.remove(&old_hash);
        } else if self.by_sender.get(&sender).map_or(0, BTreeMap::len) >= MAX_PER_SENDER {
            return Err(Rejection::SenderFull);
        }

        // Make room.
        while self.by_hash.len() >= self.max_txs || self.bytes + entry.bytes > self.max_bytes {
            let victim = self.cheapest_evictable(basefees);
            match victim {
                Some((fee, h)) if fee < entry.effective_fee(basefees) => {
                    self.remove(&h);
                }
                _ => return Err(Rejection::Full),
            }
        }

        self.bytes += entry.bytes;
        self.by_sender
            .entry(sender)
            .or_default()
            .insert(entry.tx.nonce, hash);
        self.by_hash.insert(hash, entry);
        Ok(hash)
    }

    /// The lowest-paying transaction that is last in its sender's queue.
    fn cheapest_evictable(&self, basefees: Basefees) -> Option<(u128, Hash32)> {
        self.by_sender
            .values()
            .filter_map(|q| q.values().next_back())
            .map(|h| (self.by_hash[h].effective_fee(basefees), *h))
            .min()
    }

    fn remove(&mut self, hash: &Hash32) {
        if let Some(e) = self.by_hash.remove(hash) {
            self.bytes -= e.bytes;
            if let Some(q) = self.by_sender.get_mut(&e.sender) {
                q.remove(&e.tx.nonce);
                if q.is_empty() {
                    self.by_sender.remove(&e.sender);
                }
            }
        }
    }

    /// After a block is finalized: drop every transaction whose nonce the sender has used.
    pub fn prune(&mut self, nonce_of: impl Fn(&Address) -> u64) {
        let senders: Vec<Address> = self.by_sender.keys().copied().collect();
        for s in senders {
            let next = nonce_of(&s);
            let stale: Vec<Hash32> = self.by_sender[&s].range(..next).map(|(_, h)| *h).collect();
            for h in stale {
                self.remove(&h);
            }
        }
    }

    /// Candidates for the next block, in the order the builder should try them (see the module
    /// docs). `nonce_of` gives each sender's next nonce at the parent state.
    pub fn select(
        &self,
        params: &GenesisParams,
        basefees: Basefees,
        randomness: &Hash32,
        nonce_of: impl Fn(&Address) -> u64,
    ) -> Vec<Transaction> {
        let budgets = LaneBudgets::new(params);
        let mut chosen: Vec<&Entry> = Vec::new();
        let mut spill = 0u64;
        for lane in Lane::ALL {
            let mut budget = budgets.reserved(lane);
            if lane == Lane::User {
                budget = budget.saturating_add(spill);
            }
            let used = self.fill_lane(lane, budget, basefees, &nonce_of, &mut chosen);
            if lane != Lane::User {
                spill = spill.saturating_add(budget - used);
            }
        }
        // VRF-style ordering: senders in keccak(R ‖ sender) order, each sender's nonces in order.
        chosen.sort_by_key(|e| (keccak256_concat(&[&randomness.0, &e.sender.0]), e.tx.nonce));
        chosen.into_iter().map(|e| e.tx.clone()).collect()
    }

    /// Take the lane's best ready transactions up to `budget` cycles of limits; returns the
    /// cycles taken.
    fn fill_lane<'a>(
        &'a self,
        lane: Lane,
        budget: u64,
        basefees: Basefees,
        nonce_of: &impl Fn(&Address) -> u64,
        chosen: &mut Vec<&'a Entry>,
    ) -> u64 {
        // Each sender's next ready transaction competes; taking it exposes the sender's next.
        let mut heads: BTreeMap<(std::cmp::Reverse<u128>, Hash32), &Entry> = BTreeMap::new();
        let mut next: BTreeMap<Address, u64> = BTreeMap::new();
        for (sender, q) in &self.by_sender {
            let n = nonce_of(sender);
            if let Some(h) = q.get(&n) {
                let e = &self.by_hash[h];
                if e.lane == lane {
                    heads.insert((std::cmp::Reverse(e.effective_fee(basefees)), *h), e);
                    next.insert(*sender, n);
                }
            }
        }
        let mut used = 0u64;
        while let Some((_, e)) = heads.pop_first() {
            if used.saturating_add(e.tx.cycles_limit) > budget {
                continue;
            }
            used += e.tx.cycles_limit;
            chosen.push(e);
            let n = next[&e.sender] + 1;
            if let Some(h) = self.by_sender[&e.sender].get(&n) {
                let nx = &self.by_hash[h];
                if nx.lane == lane {
                    heads.insert((std::cmp::Reverse(nx.effective_fee(basefees)), *h), nx);
                    next.insert(e.sender, n);
                }
            }
        }
        used
    }
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
        let order: Vec<(Address, u64)> = picked
            .iter()
            .map(|t| (t.sender().unwrap(), t.nonce))
            .collect();
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
        pool.prune(|_| 4);
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
}
