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
use cowboy_types::tx::{Authorization, Payload, Transaction, TxError};
use cowboy_types::{Address, ExecError, Hash32, Receipt};

use crate::actors::{self, Failure};
use crate::fees::{self, FeeError};
use crate::header::BlockEnv;
use crate::intrinsic::{intrinsic, TxMeter};
use crate::lanes::{Lane, LaneBudgets, LaneFull};
use crate::state::{BlockState, SResult};
use crate::trace::Trace;

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
    /// Larger than `max_tx_size_bytes` (§12.1).
    TooLarge {
        /// Its encoded size.
        size: u64,
        /// The limit.
        max: u64,
    },
    /// Unsigned, or the signature does not recover a sender.
    Signature(TxError),
    /// A dev authorization (impersonated or set-balance) on a chain whose genesis does not
    /// set `dev_chain`.
    DevOnly,
    /// A set-balance transaction with something besides a recipient and an amount.
    SetBalanceShape,
    /// A plain value transfer to a reserved system address (it would be burned by accident;
    /// call the system actor instead).
    TransferToSystem {
        /// The system address.
        to: Address,
    },
    /// The access list is invalid (§2.2 (d)).
    AccessList(AccessListError),
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
    /// The cycles limit does not fit in what remains of the transaction's lane.
    LaneFull(LaneFull),
}

/// Why an access list is invalid (§2.2 (d)). An access list names accounts and storage keys a
/// transaction declares; each may appear once, and a key is at most the state's key size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccessListError {
    /// An address listed twice.
    DuplicateAddress(Address),
    /// A storage key listed twice under one address.
    DuplicateKey {
        /// The entry's address.
        address: Address,
        /// Position of the repeated key in the entry.
        index: usize,
    },
    /// A storage key longer than the state allows.
    KeyTooLong {
        /// The entry's address.
        address: Address,
        /// The key's length.
        len: usize,
        /// The limit ([`cowboy_state::batch::MAX_STORAGE_KEY_LEN`]).
        max: usize,
    },
}

impl std::fmt::Display for AccessListError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AccessListError::DuplicateAddress(a) => {
                write!(f, "address {} is listed twice", a.to_checksum())
            }
            AccessListError::DuplicateKey { address, index } => write!(
                f,
                "storage key {index} of {} is listed twice",
                address.to_checksum()
            ),
            AccessListError::KeyTooLong { address, len, max } => write!(
                f,
                "a storage key of {} is {len} bytes, longer than the {max}-byte limit",
                address.to_checksum()
            ),
        }
    }
}

/// The access list rule (§2.2 (d)): no address twice, no key twice under an address, keys at
/// most the state's key size. Linear in the list's size (sorting aside), which its bytes pay
/// for as cells.
fn check_access_list(tx: &Transaction) -> Result<(), AccessListError> {
    let Some(entries) = &tx.access_list else {
        return Ok(());
    };
    let mut addresses: Vec<&Address> = entries.iter().map(|e| &e.address).collect();
    addresses.sort_unstable();
    if let Some(w) = addresses.windows(2).find(|w| w[0] == w[1]) {
        return Err(AccessListError::DuplicateAddress(*w[0]));
    }
    for e in entries {
        let max = cowboy_state::batch::MAX_STORAGE_KEY_LEN;
        if let Some(k) = e.storage_keys.iter().find(|k| k.len() > max) {
            return Err(AccessListError::KeyTooLong {
                address: e.address,
                len: k.len(),
                max,
            });
        }
        let mut keys: Vec<(&Vec<u8>, usize)> = e.storage_keys.iter().zip(0..).collect();
        keys.sort_unstable();
        if let Some(w) = keys.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(AccessListError::DuplicateKey {
                address: e.address,
                index: w[0].1.max(w[1].1),
            });
        }
    }
    Ok(())
}

impl std::fmt::Display for TxInvalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TxInvalid::WrongChain { expected, got } => {
                write!(f, "wrong chain id {got}, this chain is {expected}")
            }
            TxInvalid::TooLarge { size, max } => write!(
                f,
                "transaction is {size} bytes, larger than the {max}-byte limit (max_tx_size_bytes)"
            ),
            TxInvalid::Signature(e) => write!(f, "bad signature: {e}"),
            TxInvalid::DevOnly => f.write_str(
                "impersonated and set-balance transactions are accepted only by a development \
                 chain (cowboyd --dev); sign the transaction instead",
            ),
            TxInvalid::SetBalanceShape => f.write_str(
                "a set-balance transaction has a recipient and a value only: no payload, \
                 access list, limits or fees",
            ),
            TxInvalid::TransferToSystem { to } => write!(
                f,
                "{} is a reserved system address: a plain transfer there would burn the value; \
                 call the system actor instead",
                to.to_checksum()
            ),
            TxInvalid::AccessList(e) => write!(f, "invalid access list: {e}"),
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
            TxInvalid::LaneFull(full) => full.fmt(f),
        }
    }
}

impl std::error::Error for TxInvalid {}

/// A transaction that passed the stateless checks: decoded, its sender recovered and its
/// payload decoded once, on its way in (mempool or block), and carried from there to execution
/// so nothing downstream re-decodes or re-recovers. Only [`check_stateless`] makes one for a
/// signed transaction.
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
    /// Its encoded size in bytes.
    pub size: u64,
    /// Its block lane ([`crate::lanes`]).
    pub lane: Lane,
}

impl CheckedTx {
    /// Whether this is a dev chain's set-balance transaction ([`Authorization::SetBalance`]).
    pub fn is_set_balance(&self) -> bool {
        self.tx.signature == Some(Authorization::SetBalance)
    }

    /// The most this transaction can take from its sender's balance at `basefees`: `value`
    /// plus the fee reservation, or nothing for a set-balance (its value is the recipient's
    /// new balance, and it pays no fee). What a pool must check the balance against.
    pub fn max_spend(&self, basefees: crate::fees::Basefees) -> Result<u128, FeeError> {
        if self.is_set_balance() {
            return Ok(0);
        }
        Ok(fees::reservation(&self.tx, basefees)?.saturating_add(self.tx.value))
    }
}

/// The lane of a transaction: a call to a system actor's handler that the actor places in a
/// reserved lane, else the user lane.
fn lane_of(to: Option<Address>, payload: &Payload) -> Lane {
    match (to, payload) {
        (Some(to), Payload::Call { handler, .. }) if to.is_system() => {
            crate::system::lookup(&to).map_or(Lane::User, |a| a.lane(handler))
        }
        _ => Lane::User,
    }
}

/// Decode the payload (canonicalising a deploy's source) and price it.
fn decode_payload(
    tx: &Transaction,
    params: &GenesisParams,
    size: u64,
) -> Result<(Payload, crate::intrinsic::Intrinsic), TxInvalid> {
    let mut payload = Payload::decode(tx.to.is_some(), &tx.payload)
        .map_err(|e| TxInvalid::Payload(e.to_string()))?;
    let mut code_len = 0;
    if let Payload::Deploy { source, .. } = &mut payload {
        let canonical = cowboy_types::canonicalize_source(source.as_bytes())
            .map_err(|e| TxInvalid::Payload(format!("actor source: {e}")))?;
        code_len = canonical.len();
        *source = canonical;
    }
    let intrinsic = intrinsic(params, &payload, size, code_len as u64);
    Ok((payload, intrinsic))
}

/// Stateless validity (§2.2 (a), (c), (d), (e), §12.1 and §17.2): everything that depends on
/// the transaction and the parameters alone. The basefee check depends on the block and is
/// made when the transaction is applied.
pub fn check_stateless(
    tx: &Transaction,
    params: &GenesisParams,
    chain_id: u64,
) -> Result<CheckedTx, TxInvalid> {
    let size = tx.encode().len() as u64;
    if size > params.max_tx_size_bytes {
        return Err(TxInvalid::TooLarge {
            size,
            max: params.max_tx_size_bytes,
        });
    }
    if tx.chain_id != chain_id {
        return Err(TxInvalid::WrongChain {
            expected: chain_id,
            got: tx.chain_id,
        });
    }
    let dev = tx.signature.as_ref().is_some_and(Authorization::is_dev);
    if dev && !params.is_dev_chain() {
        return Err(TxInvalid::DevOnly);
    }
    let sender = tx.sender().map_err(TxInvalid::Signature)?;
    if tx.signature == Some(Authorization::SetBalance) {
        return check_set_balance(tx, params, sender, size);
    }
    let (payload, intrinsic) = decode_payload(tx, params, size)?;
    if let (Some(to), Payload::Transfer) = (tx.to, &payload) {
        if to.is_system() {
            return Err(TxInvalid::TransferToSystem { to });
        }
    }
    check_access_list(tx).map_err(TxInvalid::AccessList)?;
    fees::check_limits(tx, params).map_err(TxInvalid::Fees)?;
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
    let lane = lane_of(tx.to, &payload);
    // A limit above the most its lane ever has fits in no block: refuse it here, where the
    // sender hears why, rather than leave it waiting in a pool forever.
    let most = LaneBudgets::new(params).most(lane);
    if tx.cycles_limit > most {
        return Err(TxInvalid::LaneFull(LaneFull {
            lane,
            budget: most,
            used: 0,
            limit: tx.cycles_limit,
        }));
    }
    Ok(CheckedTx {
        hash: tx.hash(),
        lane,
        tx: tx.clone(),
        sender,
        payload,
        intrinsic,
        size,
    })
}

/// A set-balance transaction (dev chains, [`Authorization::SetBalance`]) names an account and
/// an amount and nothing else: it has no payload to run and no fees to pay, so its limits and
/// fee caps must be zero. It still takes a transfer's intrinsic cycles and cells from the
/// block's room (unpaid), so the bounds derived from "every transaction costs at least
/// that much" (most transactions and bytes per block) hold for dev blocks too.
fn check_set_balance(
    tx: &Transaction,
    params: &GenesisParams,
    sender: Address,
    size: u64,
) -> Result<CheckedTx, TxInvalid> {
    let bare = tx.to.is_some()
        && tx.payload.is_empty()
        && tx.access_list.is_none()
        && [tx.cycles_limit, tx.cells_limit] == [0, 0]
        && [
            tx.max_fee_per_cycle,
            tx.max_fee_per_cell,
            tx.tip_per_cycle,
            tx.tip_per_cell,
        ] == [0; 4];
    if !bare {
        return Err(TxInvalid::SetBalanceShape);
    }
    Ok(CheckedTx {
        hash: tx.hash(),
        lane: Lane::User,
        tx: tx.clone(),
        sender,
        intrinsic: intrinsic(params, &Payload::Transfer, size, 0),
        payload: Payload::Transfer,
        size,
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
    /// Timers each actor has set in this block (the same-block surcharge, `crate::timers`).
    pub timers_set: BTreeMap<Address, u64>,
    /// Sum of burned basefees (wei), for supply accounting.
    pub burned: u128,
    /// Wei minted by the block (the staking actor's inflation reward, §8.2), for supply
    /// accounting: supply = genesis + Σ minted − Σ burned.
    pub minted: u128,
    /// Sum of tips paid to the proposer (wei).
    pub tips: u128,
}

/// Executes the transactions of one block, in order, over a [`BlockState`].
pub struct BlockExecutor<'p> {
    params: &'p GenesisParams,
    env: BlockEnv,
    pub(crate) usage: BlockUsage,
    pub(crate) lanes: crate::lanes::LaneMeter,
}

impl<'p> BlockExecutor<'p> {
    /// Start executing a block with environment `env`.
    pub fn new(params: &'p GenesisParams, env: BlockEnv) -> Self {
        Self {
            params,
            env,
            usage: BlockUsage::default(),
            lanes: crate::lanes::LaneMeter::new(params),
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

    /// The genesis parameters.
    pub(crate) fn params(&self) -> &'p GenesisParams {
        self.params
    }

    /// Cycles and cells the block has left under its caps.
    pub(crate) fn block_room(&self) -> (u64, u64) {
        (
            self.params
                .block_cycles_cap
                .saturating_sub(self.usage.cycles),
            self.params.block_cells_cap.saturating_sub(self.usage.cells),
        )
    }

    /// Count work done for timers (`crate::timers::deliver`) in the block and its lane.
    pub(crate) fn record_timer_work(&mut self, cycles: u64, cells: u64, burned: u128, tip: u128) {
        self.usage.cycles += cycles;
        self.usage.cells += cells;
        self.lanes.record(Lane::Timer, cycles);
        self.usage.burned += burned;
        self.usage.tips += tip;
    }

    /// Apply a transaction that passed [`check_stateless`] for this block.
    pub fn apply_checked<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        c: &CheckedTx,
    ) -> SResult<Result<Receipt, TxInvalid>> {
        Ok(self.apply(state, c, false)?.map(|(receipt, _)| receipt))
    }

    /// [`Self::apply_checked`], recording the transaction's call tree (`crate::trace`).
    pub fn apply_traced<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        c: &CheckedTx,
    ) -> SResult<Result<(Receipt, Trace), TxInvalid>> {
        Ok(self
            .apply(state, c, true)?
            .map(|(receipt, trace)| (receipt, trace.unwrap_or_default())))
    }

    fn apply<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        c: &CheckedTx,
        traced: bool,
    ) -> SResult<Result<(Receipt, Option<Trace>), TxInvalid>> {
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
        if let Err(full) = self.lanes.fits(c.lane, tx.cycles_limit) {
            return Ok(Err(TxInvalid::LaneFull(full)));
        }
        let mut sender = state.account(&c.sender)?;
        if tx.nonce != sender.nonce {
            return Ok(Err(TxInvalid::Nonce {
                expected: sender.nonce,
                got: tx.nonce,
            }));
        }
        if c.is_set_balance() {
            let applied = self.set_balance(state, c)?;
            return Ok(applied.map(|receipt| (receipt, traced.then(Trace::default))));
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
        let mut run = actors::TxRun::new(self.params, &self.env, &mut self.usage);
        if traced {
            run = run.traced();
        }
        let outcome = run.execute(state, &mut meter, c)?;
        let trace = run.take_trace();
        let (success, return_data, events, error) = match outcome {
            Ok(done) => {
                state.release(cp)?;
                self.usage.burned += done.burned;
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
        self.lanes.record(c.lane, cycles_used);
        self.usage.burned += split.burned;
        self.usage.tips += split.tip;
        let receipt = Receipt {
            success,
            cycles_used,
            cells_used,
            fee_paid: split.fee,
            return_data,
            events,
            error,
        };
        Ok(Ok((receipt, trace)))
    }
}

impl BlockExecutor<'_> {
    /// Execute a checked set-balance transaction whose nonce is its authority's next: the
    /// recipient's balance becomes the value. The difference counts as minted or burned, so
    /// supply accounting (genesis + minted − burned) still adds up on a dev chain. Its
    /// intrinsic cost comes out of the block's and the user lane's room, paid by nobody.
    fn set_balance<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        c: &CheckedTx,
    ) -> SResult<Result<Receipt, TxInvalid>> {
        let Some(to) = c.tx.to else {
            return Err(crate::state::StateFailure::Invariant(
                "a checked set-balance transaction has a recipient".into(),
            ));
        };
        let (room_cycles, room_cells) = self.block_room();
        if c.intrinsic.cycles > room_cycles {
            return Ok(Err(TxInvalid::BlockFull { meter: "cycles" }));
        }
        if c.intrinsic.cells > room_cells {
            return Ok(Err(TxInvalid::BlockFull { meter: "cells" }));
        }
        if let Err(full) = self.lanes.fits(c.lane, c.intrinsic.cycles) {
            return Ok(Err(TxInvalid::LaneFull(full)));
        }
        let mut authority = state.account(&c.sender)?;
        authority.nonce += 1;
        state.set_account(&c.sender, &authority)?;
        self.usage.cycles += c.intrinsic.cycles;
        self.usage.cells += c.intrinsic.cells;
        self.lanes.record(c.lane, c.intrinsic.cycles);
        let mut account = state.account(&to)?;
        let (old, new) = (account.balance, c.tx.value);
        if new >= old {
            self.usage.minted = self.usage.minted.saturating_add(new - old);
        } else {
            self.usage.burned = self.usage.burned.saturating_add(old - new);
        }
        account.balance = new;
        state.set_account(&to, &account)?;
        Ok(Ok(Receipt {
            success: true,
            cycles_used: c.intrinsic.cycles,
            cells_used: c.intrinsic.cells,
            fee_paid: 0,
            return_data: Vec::new(),
            events: Vec::new(),
            error: None,
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

/// An upper bound on the size `tx` will have once its sender fills in the nonce, limits and
/// fees and signs it: the same payload, recipient and access list with every number at its
/// widest encoding and a signature. A simulation charges the calldata cells of this size, so
/// an estimate taken from it covers the transaction actually sent.
fn signed_size_bound(tx: &Transaction) -> u64 {
    if tx.signature.is_some() {
        return tx.encode().len() as u64;
    }
    let widest = Transaction {
        nonce: u64::MAX,
        value: u128::MAX,
        cycles_limit: u64::MAX,
        cells_limit: u64::MAX,
        max_fee_per_cycle: u128::MAX,
        max_fee_per_cell: u128::MAX,
        tip_per_cycle: u128::MAX,
        tip_per_cell: u128::MAX,
        signature: Some(Authorization::Signed(cowboy_types::Signature {
            y_parity: 1,
            r: [0xff; 32],
            s: [0xff; 32],
        })),
        ..tx.clone()
    };
    widest.encode().len() as u64
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
    let size = signed_size_bound(tx);
    if size > params.max_tx_size_bytes {
        return Ok(Err(TxInvalid::TooLarge {
            size,
            max: params.max_tx_size_bytes,
        }));
    }
    let (payload, intrinsic) = match decode_payload(tx, params, size) {
        Ok(p) => p,
        Err(e) => return Ok(Err(e)),
    };
    if let (Some(to), Payload::Transfer) = (tx.to, &payload) {
        if to.is_system() {
            return Ok(Err(TxInvalid::TransferToSystem { to }));
        }
    }
    let needed = tx.value;
    let balance = state.account(&sender)?.balance;
    if balance < needed {
        return Ok(Err(TxInvalid::InsufficientBalance { needed, balance }));
    }
    let checked = CheckedTx {
        hash: tx.hash(),
        lane: lane_of(tx.to, &payload),
        tx: tx.clone(),
        sender,
        payload,
        intrinsic,
        size,
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
    let mut usage = BlockUsage::default();
    let mut run = actors::TxRun::new(params, env, &mut usage);
    let outcome = run.execute(state, &mut meter, &checked)?;
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
