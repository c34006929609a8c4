//! Applying transactions and blocks (whitepaper "The State Transition Function", §2.2, §2.3,
//! §4.2, §17).
//!
//! A transaction goes through four steps, and only the first two can reject it:
//!
//! 1. **Stateless validity** (§2.2): chain id, signature (sender recovery, low-s), payload
//!    decoding, limits within the block caps, limits covering the intrinsic cost (§17.2),
//!    maximum fees covering the basefees.
//! 2. **Stateful validity**: the nonce is the sender's next nonce, the balance covers
//!    `value + cycles_limit·max_fee_per_cycle + cells_limit·max_fee_per_cell`, and both limits
//!    fit in what is left of the block. An invalid transaction is not part of the block: a
//!    proposer skips it ([`BlockExecutor::try_apply`]), a block that contains one is invalid.
//! 3. **Execution**: the reservation is debited and the nonce bumped; then, inside a
//!    checkpoint, the value moves and the payload runs (transfer, deploy, call with all the
//!    messages it causes). Any failure — Python exception, out of cycles or cells, a limit —
//!    rolls the checkpoint back: the transaction is atomic as a whole.
//! 4. **Settlement** (§2.3): the sender is refunded `reserved − fee`, the proposer receives the
//!    tip, and the basefee part is burned (it simply is not credited to anyone), so the supply
//!    falls by exactly the burn.

use std::collections::BTreeMap;

use cowboy_state::Context;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::tx::{Payload, Transaction, TxError};
use cowboy_types::{Address, ExecError, Hash32, Receipt};

use crate::actors::{self, Failure};
use crate::fees::{self, Basefees, FeeError};
use crate::intrinsic::{intrinsic, TxMeter};
use crate::state::{BlockState, SResult};

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
}

/// Why a transaction cannot be part of a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TxInvalid {
    /// Signed for another chain.
    WrongChain {
        /// This chain.
        expected: u64,
        /// The transaction's.
        got: u64,
    },
    /// Unsigned, or the signature does not recover a sender.
    Signature(TxError),
    /// The payload does not decode for this kind of transaction.
    Payload(String),
    /// Limits or fee caps are unacceptable.
    Fees(FeeError),
    /// A limit does not cover the intrinsic cost.
    Intrinsic {
        /// `"cycles"` or `"cells"`.
        meter: &'static str,
        /// What the kind costs.
        needed: u64,
        /// The transaction's limit.
        limit: u64,
    },
    /// The nonce is not the sender's next one.
    Nonce {
        /// The sender's next nonce.
        expected: u64,
        /// The transaction's.
        got: u64,
    },
    /// The balance does not cover value plus maximum fee.
    InsufficientBalance {
        /// value + reservation.
        needed: u128,
        /// The sender's balance.
        balance: u128,
    },
    /// A limit does not fit in what remains of the block.
    BlockFull {
        /// `"cycles"` or `"cells"`.
        meter: &'static str,
    },
}

impl std::fmt::Display for TxInvalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TxInvalid::WrongChain { expected, got } => {
                write!(f, "wrong chain id {got}, this chain is {expected}")
            }
            TxInvalid::Signature(e) => write!(f, "bad signature: {e}"),
            TxInvalid::Payload(e) => write!(f, "bad payload: {e}"),
            TxInvalid::Fees(e) => write!(f, "{e}"),
            TxInvalid::Intrinsic {
                meter,
                needed,
                limit,
            } => write!(
                f,
                "{meter} limit {limit} is below the intrinsic cost {needed} of this transaction"
            ),
            TxInvalid::Nonce { expected, got } => {
                write!(f, "nonce {got} is not the sender's next nonce {expected}")
            }
            TxInvalid::InsufficientBalance { needed, balance } => write!(
                f,
                "balance {balance} does not cover value plus maximum fee {needed}"
            ),
            TxInvalid::BlockFull { meter } => {
                write!(
                    f,
                    "the block has no room left for this transaction's {meter} limit"
                )
            }
        }
    }
}

impl std::error::Error for TxInvalid {}

/// A transaction that passed the stateless checks.
#[derive(Debug, Clone)]
pub struct CheckedTx {
    /// The transaction.
    pub tx: Transaction,
    /// Its hash.
    pub hash: Hash32,
    /// The recovered sender.
    pub sender: Address,
    /// The decoded payload; a deploy's source is already canonical.
    pub payload: Payload,
    /// Intrinsic cycles and cells.
    pub intrinsic: crate::intrinsic::Intrinsic,
}

/// Stateless validity (§2.2 (a), (c), (d), (e) and §17.2). `basefees` are the block's.
pub fn check_stateless(
    tx: &Transaction,
    params: &GenesisParams,
    chain_id: u64,
    basefees: Basefees,
) -> Result<CheckedTx, TxInvalid> {
    if tx.chain_id != chain_id {
        return Err(TxInvalid::WrongChain {
            expected: chain_id,
            got: tx.chain_id,
        });
    }
    let sender = tx.sender().map_err(TxInvalid::Signature)?;
    let mut payload = Payload::decode(tx.to.is_some(), &tx.payload)
        .map_err(|e| TxInvalid::Payload(e.to_string()))?;
    let mut code_len = 0;
    if let Payload::Deploy { source, .. } = &mut payload {
        let canonical = cowboy_types::canonicalize_source(source.as_bytes())
            .map_err(|e| TxInvalid::Payload(format!("actor source: {e}")))?;
        code_len = canonical.len();
        *source = canonical;
    }
    fees::check_limits(tx, params).map_err(TxInvalid::Fees)?;
    fees::reservation(tx, basefees).map_err(TxInvalid::Fees)?;
    let intrinsic = intrinsic(params, &payload, tx.payload.len(), code_len);
    if tx.cycles_limit < intrinsic.cycles {
        return Err(TxInvalid::Intrinsic {
            meter: "cycles",
            needed: intrinsic.cycles,
            limit: tx.cycles_limit,
        });
    }
    if tx.cells_limit < intrinsic.cells {
        return Err(TxInvalid::Intrinsic {
            meter: "cells",
            needed: intrinsic.cells,
            limit: tx.cells_limit,
        });
    }
    Ok(CheckedTx {
        hash: tx.hash(),
        tx: tx.clone(),
        sender,
        payload,
        intrinsic,
    })
}

/// Resources a block has used so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockUsage {
    /// Cycles used by included transactions.
    pub cycles: u64,
    /// Cells used by included transactions.
    pub cells: u64,
    /// Cycles each actor has run for in this block (`per_actor_per_block_cycles`).
    pub per_actor: BTreeMap<Address, u64>,
    /// Sum of burned basefees (wei), for supply accounting.
    pub burned: u128,
    /// Sum of tips paid to the proposer (wei).
    pub tips: u128,
}

/// Executes the transactions of one block, in order, over a [`BlockState`].
pub struct BlockExecutor<'p> {
    params: &'p GenesisParams,
    env: BlockEnv,
    usage: BlockUsage,
}

impl<'p> BlockExecutor<'p> {
    /// Start executing a block with environment `env`.
    pub fn new(params: &'p GenesisParams, env: BlockEnv) -> Self {
        Self {
            params,
            env,
            usage: BlockUsage::default(),
        }
    }

    /// The block environment.
    pub fn env(&self) -> &BlockEnv {
        &self.env
    }

    /// What the block has used so far.
    pub fn usage(&self) -> &BlockUsage {
        &self.usage
    }

    /// Validate and, if valid, apply `tx`. `Ok(Err(_))` means the transaction is not part of
    /// the block and the state is unchanged; `Err` means the state itself failed.
    pub fn try_apply<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        tx: &Transaction,
    ) -> SResult<Result<Receipt, TxInvalid>> {
        let checked = match check_stateless(tx, self.params, self.env.chain_id, self.env.basefees) {
            Ok(c) => c,
            Err(e) => return Ok(Err(e)),
        };
        self.apply_checked(state, &checked)
    }

    /// Apply a transaction that passed [`check_stateless`] for this block.
    pub fn apply_checked<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        c: &CheckedTx,
    ) -> SResult<Result<Receipt, TxInvalid>> {
        let tx = &c.tx;
        let basefees = self.env.basefees;
        // Both limits must fit in what the block has left (the block caps of §4.3).
        let room_cycles = self
            .params
            .block_cycles_cap
            .saturating_sub(self.usage.cycles);
        let room_cells = self.params.block_cells_cap.saturating_sub(self.usage.cells);
        if tx.cycles_limit > room_cycles {
            return Ok(Err(TxInvalid::BlockFull { meter: "cycles" }));
        }
        if tx.cells_limit > room_cells {
            return Ok(Err(TxInvalid::BlockFull { meter: "cells" }));
        }
        let mut sender = state.account(&c.sender)?;
        if tx.nonce != sender.nonce {
            return Ok(Err(TxInvalid::Nonce {
                expected: sender.nonce,
                got: tx.nonce,
            }));
        }
        let reserved = match fees::reservation(tx, basefees) {
            Ok(r) => r,
            Err(e) => return Ok(Err(TxInvalid::Fees(e))),
        };
        let needed = reserved.saturating_add(tx.value);
        if sender.balance < needed || needed == u128::MAX {
            return Ok(Err(TxInvalid::InsufficientBalance {
                needed,
                balance: sender.balance,
            }));
        }

        // Valid: from here on the transaction is in the block and pays for what it uses.
        sender.balance -= reserved;
        sender.nonce += 1;
        state.set_account(&c.sender, &sender)?;

        let mut meter = TxMeter::new(tx.cycles_limit, tx.cells_limit);
        // Limits were checked to cover the intrinsic cost, so these cannot fail.
        let _ = meter.charge_cycles(c.intrinsic.cycles);
        let _ = meter.charge_cells(c.intrinsic.cells);

        let cp = state.checkpoint();
        let mut run = actors::TxRun::new(self.params, &self.env, c, &mut self.usage.per_actor);
        let outcome = run.execute(state, &mut meter)?;
        let (success, return_data, events, error) = match outcome {
            Ok(done) => {
                state.release(cp)?;
                (true, done.return_data, done.events, None)
            }
            Err(failure) => {
                state.rollback(cp)?;
                (
                    false,
                    Vec::new(),
                    Vec::new(),
                    Some(failure_to_error(failure)),
                )
            }
        };

        let (cycles_used, cells_used) = (meter.cycles(), meter.cells());
        let split = match fees::settle(tx, basefees, cycles_used, cells_used) {
            Ok(s) => s,
            // Unreachable: usage never exceeds the limits and the reservation succeeded.
            Err(e) => {
                return Err(crate::state::StateFailure::Invariant(format!(
                    "settlement failed: {e}"
                )))
            }
        };
        state.credit(&c.sender, split.refund)?;
        state.credit(&self.env.proposer, split.tip)?;
        self.usage.cycles += cycles_used;
        self.usage.cells += cells_used;
        self.usage.burned += split.burned;
        self.usage.tips += split.tip;
        Ok(Ok(Receipt {
            success,
            cycles_used,
            cells_used,
            fee_paid: split.fee,
            return_data,
            events,
            error,
        }))
    }
}

fn failure_to_error(f: Failure) -> ExecError {
    ExecError {
        class: f.class,
        message: f.message,
        line: u64::from(f.line.unwrap_or(0)),
    }
}

/// What a simulated transaction did ([`simulate`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Simulation {
    /// The receipt it would get; `fee_paid` is zero (nothing is charged).
    pub receipt: Receipt,
    /// Intrinsic cycles and cells included in the receipt's usage.
    pub intrinsic: crate::intrinsic::Intrinsic,
}

/// Run `tx` as `sender` the way [`BlockExecutor::apply_checked`] runs it, without a signature,
/// nonce, fee reservation or settlement: the read-only `cowboy_call` and fee estimation of the
/// RPC. The transaction's limits bound the run; the caller discards `state` afterwards.
pub fn simulate<E: Context>(
    state: &mut BlockState<'_, E>,
    params: &GenesisParams,
    env: &BlockEnv,
    sender: Address,
    tx: &Transaction,
) -> SResult<Result<Simulation, TxInvalid>> {
    let mut payload = match Payload::decode(tx.to.is_some(), &tx.payload) {
        Ok(p) => p,
        Err(e) => return Ok(Err(TxInvalid::Payload(e.to_string()))),
    };
    let mut code_len = 0;
    if let Payload::Deploy { source, .. } = &mut payload {
        match cowboy_types::canonicalize_source(source.as_bytes()) {
            Ok(canonical) => {
                code_len = canonical.len();
                *source = canonical;
            }
            Err(e) => return Ok(Err(TxInvalid::Payload(format!("actor source: {e}")))),
        }
    }
    let intrinsic = intrinsic(params, &payload, tx.payload.len(), code_len);
    let checked = CheckedTx {
        hash: tx.hash(),
        tx: tx.clone(),
        sender,
        payload,
        intrinsic,
    };
    let mut meter = TxMeter::new(tx.cycles_limit, tx.cells_limit);
    if meter.charge_cycles(intrinsic.cycles).is_err()
        || meter.charge_cells(intrinsic.cells).is_err()
    {
        return Ok(Err(TxInvalid::Intrinsic {
            meter: "cycles or cells",
            needed: intrinsic.cycles.max(intrinsic.cells),
            limit: tx.cycles_limit.min(tx.cells_limit),
        }));
    }
    // As in a real transaction, the sender's nonce is bumped before the payload runs.
    let mut acct = state.account(&sender)?;
    acct.nonce = acct.nonce.saturating_add(1);
    state.set_account(&sender, &acct)?;
    let mut per_actor = BTreeMap::new();
    let mut run = actors::TxRun::new(params, env, &checked, &mut per_actor);
    let outcome = run.execute(state, &mut meter)?;
    let (success, return_data, events, error) = match outcome {
        Ok(done) => (true, done.return_data, done.events, None),
        Err(failure) => (
            false,
            Vec::new(),
            Vec::new(),
            Some(failure_to_error(failure)),
        ),
    };
    Ok(Ok(Simulation {
        receipt: Receipt {
            success,
            cycles_used: meter.cycles(),
            cells_used: meter.cells(),
            fee_paid: 0,
            return_data,
            events,
            error,
        },
        intrinsic,
    }))
}
