//! The header rule: a block's environment derived from its parent, the header a proposer
//! seals, and every check a validator makes of a header (whitepaper "The State Transition
//! Function", §4.2, §3.4; ARCHITECTURE D9).
//!
//! Everything here is a pure function of the parent header, its hash and the genesis
//! parameters, so a proposer and a verifier (and `exec-replay`) derive the same environment:
//!
//! * **Basefees** of block `h+1` follow block `h`'s usage by the dual EIP-1559 rule
//!   ([`crate::fees::next_basefees`]); the child of genesis starts at the genesis basefees.
//! * **Randomness** `R_n`, on a chain with a beacon group key and above [`crate::beacon::BEACON_LAG`],
//!   is the hash of the group's signature the block carries ([`crate::beacon`], checked by
//!   [`crate::block::verify`]: the signature needs the hash of an ancestor the header does not
//!   name). Otherwise it is the parent block's hash ([`randomness_after`]): CIP-2 §10's phase
//!   L1, which the previous proposer can grind.
//! * **Timestamp** strictly after the parent's. How far ahead of a validator's clock a proposal
//!   may be is the node's business (it waits), never a validity rule: validity cannot depend
//!   on clocks.
//!
//! A rejected header names the field, what it held and what it should have held
//! ([`BlockError`]), as reth's `ConsensusError` does.

use cowboy_types::block::{Block, BlockHeader};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::{Address, Hash32, Receipt};

use crate::apply::TxInvalid;
use crate::fees::{next_basefees, Basefees};
use crate::lanes::Lane;

/// What the block being executed looks like to the transactions in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockEnv {
    /// Chain id transactions must carry.
    pub chain_id: u64,
    /// Height of the block.
    pub height: u64,
    /// Block timestamp (ms since the Unix epoch), from the header.
    pub timestamp_ms: u64,
    /// Receives the tips.
    pub proposer: Address,
    /// The header's randomness `R_n` (§3.4); actors derive `HKDF(R_n, label)` from it.
    pub randomness: Hash32,
    /// The basefees in force.
    pub basefees: Basefees,
    /// Cycles the parent block used (the congestion figure a Gas Bidding Agent sees).
    pub parent_cycles_used: u64,
}

/// The chain a block belongs to: its id and genesis parameters.
#[derive(Debug, Clone, Copy)]
pub struct ChainRules<'p> {
    /// Chain id.
    pub chain_id: u64,
    /// Genesis parameters.
    pub params: &'p GenesisParams,
}

/// The parent of a block: its header and hash.
#[derive(Debug, Clone, Copy)]
pub struct Parent<'h> {
    /// The parent's header.
    pub header: &'h BlockHeader,
    /// The parent's hash.
    pub hash: Hash32,
}

/// A value that differs from what the rule requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GotExpected<T> {
    /// What the block holds.
    pub got: T,
    /// What it should hold.
    pub expected: T,
}

impl<T: std::fmt::Display> std::fmt::Display for GotExpected<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "got {}, expected {}", self.got, self.expected)
    }
}

fn check<T: PartialEq + Copy>(
    got: T,
    expected: T,
    err: impl FnOnce(GotExpected<T>) -> BlockError,
) -> Result<(), BlockError> {
    if got == expected {
        Ok(())
    } else {
        Err(err(GotExpected { got, expected }))
    }
}

/// Why a block is invalid. Every variant names the field or transaction at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockError {
    /// `parent_hash` is not the parent's hash.
    ParentHash(GotExpected<Hash32>),
    /// `height` is not the parent's plus one.
    Height(GotExpected<u64>),
    /// `timestamp_ms` is not after the parent's.
    TimestampNotAfterParent {
        /// The block's timestamp.
        got: u64,
        /// The parent's.
        parent: u64,
    },
    /// `randomness` is not the one derived from the parent.
    Randomness(GotExpected<Hash32>),
    /// `cycle_basefee` does not follow the parent's usage.
    CycleBasefee(GotExpected<u128>),
    /// `cell_basefee` does not follow the parent's usage.
    CellBasefee(GotExpected<u128>),
    /// `tx_root` does not commit to the transactions.
    TxRoot(GotExpected<Hash32>),
    /// `votes_root` does not commit to the block's vote record (or one is there without the
    /// other).
    VotesRoot {
        /// The header's.
        got: Option<Hash32>,
        /// The hash of the block's record, if it has one.
        expected: Option<Hash32>,
    },
    /// The vote record is invalid (`crate::system::staking::check_votes`).
    Votes(crate::system::staking::VotesError),
    /// The beacon signature is missing, not due, or not the group's over the right block
    /// (`crate::beacon::check`).
    Beacon(crate::beacon::BeaconError),
    /// `dealings_root` does not commit to the block's dealer logs.
    DealingsRoot {
        /// The header's.
        got: Option<Hash32>,
        /// The commitment to the block's logs, if it has any.
        expected: Option<Hash32>,
    },
    /// The dealer logs are refused (`crate::reshare::check_logs`).
    Reshare(crate::reshare::ReshareError),
    /// More transactions than any block can hold.
    TooManyTransactions {
        /// The block's count.
        got: usize,
        /// [`GenesisParams::max_txs_per_block`].
        max: u64,
    },
    /// A transaction cannot be part of the block (invalid, or its lane is full).
    Transaction {
        /// Its position.
        index: usize,
        /// Why.
        reason: TxInvalid,
    },
    /// A transaction is out of the block order (lanes in priority order; within a lane by
    /// `keccak256(R ‖ sender)`, then nonce).
    OutOfOrder {
        /// Its position.
        index: usize,
        /// Its lane.
        lane: Lane,
    },
    /// `receipts_root` does not match execution.
    ReceiptsRoot(GotExpected<Hash32>),
    /// `cycles_used` does not match execution.
    CyclesUsed(GotExpected<u64>),
    /// `cells_used` does not match execution.
    CellsUsed(GotExpected<u64>),
    /// `state_root` does not match execution.
    StateRoot(GotExpected<Hash32>),
}

impl std::fmt::Display for BlockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BlockError::ParentHash(d) => write!(f, "parent_hash: {d}"),
            BlockError::Height(d) => write!(f, "height: {d}"),
            BlockError::TimestampNotAfterParent { got, parent } => {
                write!(f, "timestamp_ms {got} is not after the parent's {parent}")
            }
            BlockError::Randomness(d) => write!(f, "randomness: {d}"),
            BlockError::CycleBasefee(d) => write!(f, "cycle_basefee: {d}"),
            BlockError::CellBasefee(d) => write!(f, "cell_basefee: {d}"),
            BlockError::TxRoot(d) => write!(f, "tx_root: {d}"),
            BlockError::VotesRoot { got, expected } => {
                let show = |h: &Option<Hash32>| h.map_or("none".to_string(), |h| h.to_hex());
                write!(
                    f,
                    "votes_root: got {}, expected {}",
                    show(got),
                    show(expected)
                )
            }
            BlockError::Votes(e) => write!(f, "vote record: {e}"),
            BlockError::Beacon(e) => write!(f, "beacon: {e}"),
            BlockError::DealingsRoot { got, expected } => {
                let show = |h: &Option<Hash32>| h.map_or("none".to_string(), |h| h.to_hex());
                write!(
                    f,
                    "dealings_root: got {}, expected {}",
                    show(got),
                    show(expected)
                )
            }
            BlockError::Reshare(e) => write!(f, "dealer logs: {e}"),
            BlockError::TooManyTransactions { got, max } => {
                write!(
                    f,
                    "{got} transactions, more than the {max} a block can hold"
                )
            }
            BlockError::Transaction { index, reason } => {
                write!(f, "transaction {index} is invalid: {reason}")
            }
            BlockError::OutOfOrder { index, lane } => write!(
                f,
                "transaction {index} ({lane} lane) is out of the block order (lanes by \
                 priority, then keccak256(R ‖ sender), then nonce)"
            ),
            BlockError::ReceiptsRoot(d) => write!(f, "receipts_root: {d}"),
            BlockError::CyclesUsed(d) => write!(f, "cycles_used: {d}"),
            BlockError::CellsUsed(d) => write!(f, "cells_used: {d}"),
            BlockError::StateRoot(d) => write!(f, "state_root: {d}"),
        }
    }
}

impl std::error::Error for BlockError {}

/// The randomness `R_n` of the child of the block with hash `parent_hash` (see module docs).
pub fn randomness_after(parent_hash: &Hash32) -> Hash32 {
    *parent_hash
}

/// The basefees in force for the child of `parent`.
pub fn basefees_after(parent: &BlockHeader, params: &GenesisParams) -> Basefees {
    if parent.height == 0 {
        return Basefees {
            cycle: params.initial_cycle_basefee_wei,
            cell: params.initial_cell_basefee_wei,
        };
    }
    next_basefees(
        Basefees {
            cycle: parent.cycle_basefee,
            cell: parent.cell_basefee,
        },
        parent.cycles_used,
        parent.cells_used,
        params,
    )
}

/// The environment of the child of `parent`, proposed by `proposer` at `timestamp_ms`.
pub fn env_after(
    rules: ChainRules<'_>,
    parent: Parent<'_>,
    timestamp_ms: u64,
    proposer: Address,
) -> BlockEnv {
    BlockEnv {
        chain_id: rules.chain_id,
        height: parent.header.height + 1,
        timestamp_ms,
        proposer,
        randomness: randomness_after(&parent.hash),
        basefees: basefees_after(parent.header, rules.params),
        parent_cycles_used: parent.header.cycles_used,
    }
}

/// The header of block 0: no transactions, the genesis basefees, the state root of the
/// allocations.
pub fn genesis_header(
    params: &GenesisParams,
    timestamp_ms: u64,
    state_root: Hash32,
) -> BlockHeader {
    BlockHeader {
        parent_hash: Hash32([0; 32]),
        height: 0,
        timestamp_ms,
        proposer: Address([0; 20]),
        state_root,
        tx_root: Block::tx_root(&[]),
        receipts_root: Receipt::receipts_root(&[]),
        cycle_basefee: params.initial_cycle_basefee_wei,
        cell_basefee: params.initial_cell_basefee_wei,
        cycles_used: 0,
        cells_used: 0,
        randomness: Hash32([0; 32]),
        votes_root: None,
        dealings_root: None,
    }
}

/// The checks that need only the header and its parent, made before executing anything.
/// Returns the environment the block's transactions run in. A block the beacon rule covers
/// (`crate::beacon::target_height` under `beacon`, the schedule in the parent's state) keeps
/// its header's randomness here: whether that is the hash of the right signature needs an
/// ancestor's hash, which [`crate::block::verify`] is given and checks.
pub fn check_header_against_parent(
    rules: ChainRules<'_>,
    parent: Parent<'_>,
    header: &BlockHeader,
    beacon: Option<&crate::beacon::Schedule>,
) -> Result<BlockEnv, BlockError> {
    check(header.parent_hash, parent.hash, BlockError::ParentHash)?;
    check(
        header.height,
        parent.header.height.saturating_add(1),
        BlockError::Height,
    )?;
    if header.timestamp_ms <= parent.header.timestamp_ms {
        return Err(BlockError::TimestampNotAfterParent {
            got: header.timestamp_ms,
            parent: parent.header.timestamp_ms,
        });
    }
    let mut env = env_after(rules, parent, header.timestamp_ms, header.proposer);
    if crate::beacon::target_height(beacon, header.height).is_some() {
        env.randomness = header.randomness;
    } else {
        check(header.randomness, env.randomness, BlockError::Randomness)?;
    }
    check(
        header.cycle_basefee,
        env.basefees.cycle,
        BlockError::CycleBasefee,
    )?;
    check(
        header.cell_basefee,
        env.basefees.cell,
        BlockError::CellBasefee,
    )?;
    Ok(env)
}

/// What executing a block produced, as far as its header commits to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecutedSummary {
    /// Commitment to the receipts.
    pub receipts_root: Hash32,
    /// Cycles used.
    pub cycles_used: u64,
    /// Cells used.
    pub cells_used: u64,
    /// The state root after the block.
    pub state_root: Hash32,
}

/// The checks of a header against its block's execution.
pub fn check_header_against_execution(
    header: &BlockHeader,
    executed: &ExecutedSummary,
) -> Result<(), BlockError> {
    check(
        header.receipts_root,
        executed.receipts_root,
        BlockError::ReceiptsRoot,
    )?;
    check(
        header.cycles_used,
        executed.cycles_used,
        BlockError::CyclesUsed,
    )?;
    check(
        header.cells_used,
        executed.cells_used,
        BlockError::CellsUsed,
    )?;
    check(
        header.state_root,
        executed.state_root,
        BlockError::StateRoot,
    )
}

/// The header a proposer seals over an executed block (`votes_root`: the hash of its vote
/// record, if it carries one; `dealings_root`: the commitment to its dealer logs, if any).
pub fn seal_header(
    env: &BlockEnv,
    parent_hash: Hash32,
    tx_root: Hash32,
    votes_root: Option<Hash32>,
    dealings_root: Option<Hash32>,
    executed: &ExecutedSummary,
) -> BlockHeader {
    BlockHeader {
        parent_hash,
        height: env.height,
        timestamp_ms: env.timestamp_ms,
        proposer: env.proposer,
        state_root: executed.state_root,
        tx_root,
        receipts_root: executed.receipts_root,
        cycle_basefee: env.basefees.cycle,
        cell_basefee: env.basefees.cell,
        cycles_used: executed.cycles_used,
        cells_used: executed.cells_used,
        randomness: env.randomness,
        votes_root,
        dealings_root,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent() -> BlockHeader {
        let mut h = genesis_header(&GenesisParams::default(), 1_000, Hash32([3; 32]));
        h.height = 5;
        h.cycles_used = 20_000_000;
        h
    }

    #[test]
    fn every_header_field_is_checked_with_got_and_expected() {
        let p = GenesisParams::default();
        let rules = ChainRules {
            chain_id: 7,
            params: &p,
        };
        let ph = parent();
        let parent = Parent {
            header: &ph,
            hash: ph.hash(),
        };
        let env = env_after(rules, parent, 2_000, Address([4; 20]));
        // A full parent raises the cycle basefee by 12.5%.
        assert_eq!(env.basefees.cycle, ph.cycle_basefee / 8 * 9);
        let summary = ExecutedSummary {
            receipts_root: Hash32([1; 32]),
            cycles_used: 0,
            cells_used: 0,
            state_root: Hash32([2; 32]),
        };
        let good = seal_header(&env, parent.hash, Hash32([5; 32]), None, None, &summary);
        assert_eq!(
            check_header_against_parent(rules, parent, &good, None),
            Ok(env)
        );
        assert_eq!(check_header_against_execution(&good, &summary), Ok(()));

        let bad = |f: fn(&mut BlockHeader)| {
            let mut h = good.clone();
            f(&mut h);
            check_header_against_parent(rules, parent, &h, None)
        };
        assert_eq!(
            bad(|h| h.height = 9),
            Err(BlockError::Height(GotExpected {
                got: 9,
                expected: 6
            }))
        );
        assert!(matches!(
            bad(|h| h.parent_hash = Hash32([0; 32])),
            Err(BlockError::ParentHash(_))
        ));
        assert_eq!(
            bad(|h| h.timestamp_ms = 1_000),
            Err(BlockError::TimestampNotAfterParent {
                got: 1_000,
                parent: 1_000
            })
        );
        assert!(matches!(
            bad(|h| h.randomness = Hash32([0; 32])),
            Err(BlockError::Randomness(_))
        ));
        assert!(matches!(
            bad(|h| h.cycle_basefee += 1),
            Err(BlockError::CycleBasefee(_))
        ));
        assert!(matches!(
            bad(|h| h.cell_basefee += 1),
            Err(BlockError::CellBasefee(_))
        ));
        let mut h = good.clone();
        h.cells_used = 3;
        assert_eq!(
            check_header_against_execution(&h, &summary),
            Err(BlockError::CellsUsed(GotExpected {
                got: 3,
                expected: 0
            }))
        );
        h = good;
        h.state_root = Hash32([0; 32]);
        assert!(matches!(
            check_header_against_execution(&h, &summary),
            Err(BlockError::StateRoot(_))
        ));
    }
}
