//! System actors (whitepaper §9; ARCHITECTURE D10): protocol logic that lives at a reserved
//! address and runs natively inside the block, in the spirit of revm's precompiles.
//!
//! A system actor is a Rust value implementing [`SystemActor`], registered by address in
//! [`REGISTRY`]. It is reached exactly as a Python actor is: by a transaction's call payload
//! (`[handler, args]`), by an actor's `send_message`, and by the RPC's read-only
//! `cowboy_call`. Its calls are metered from the genesis cost table through [`Call`] (storage
//! reads and writes at the §17.3/§17.4 prices, plus whatever base price the actor charges for
//! a handler), its state is the storage of its own address in the authenticated state (so
//! proofs cover it), and it may hook the start and the end of every block
//! ([`SystemActor::begin_block`], [`SystemActor::end_block`], run by the block lifecycle in
//! `crate::block`).
//!
//! Every address up to `0x…0100` is reserved (`Address::is_system`). A call to a reserved
//! address with no actor registered fails with `NoSuchActor`; a plain value transfer to one is
//! an invalid transaction ([`crate::TxInvalid::TransferToSystem`]) and an actor's `transfer()`
//! to one raises, so value is never burned there by accident.
//!
//! Adding one: write `system/<name>.rs` with a unit struct implementing [`SystemActor`], put
//! its address in `cowboy_types::system`, add it to [`REGISTRY`] in address order, and give
//! its prices genesis parameters. `mailbox.rs` is the worked example.

pub mod default_gba;
pub mod dispatcher;
pub mod entitlements;
pub mod mailbox;
pub mod runners;
pub mod scheduler;
pub mod staking;
pub mod store;
pub mod verifier;

use cowboy_state::verifier::Account;
use cowboy_state::Context;
use cowboy_types::cbor::Value;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::{Address, Event, Hash32};

use crate::actors::Failure;
use crate::header::BlockEnv;
use crate::intrinsic::TxMeter;
use crate::lanes::Lane;
use crate::state::{BlockState, SResult, StateFailure};

/// The state operations system actors use. Object-safe, so one registry serves every storage
/// runtime; implemented by [`BlockState`].
pub trait SystemState {
    /// The account at `a` (the empty account if absent).
    fn account(&self, a: &Address) -> SResult<Account>;
    /// Whether an account record exists at `a`.
    fn exists(&self, a: &Address) -> SResult<bool>;
    /// Write the account at `a`.
    fn set_account(&mut self, a: &Address, acct: &Account) -> SResult<()>;
    /// Storage entry `k` of `a`.
    fn storage(&self, a: &Address, k: &[u8]) -> SResult<Option<Vec<u8>>>;
    /// Set storage entry `k` of `a`.
    fn set_storage(&mut self, a: &Address, k: &[u8], v: &[u8]) -> SResult<()>;
    /// Delete storage entry `k` of `a`.
    fn delete_storage(&mut self, a: &Address, k: &[u8]) -> SResult<()>;
}

impl<E: Context> SystemState for BlockState<'_, E> {
    fn account(&self, a: &Address) -> SResult<Account> {
        BlockState::account(self, a)
    }
    fn exists(&self, a: &Address) -> SResult<bool> {
        BlockState::exists(self, a)
    }
    fn set_account(&mut self, a: &Address, acct: &Account) -> SResult<()> {
        BlockState::set_account(self, a, acct)
    }
    fn storage(&self, a: &Address, k: &[u8]) -> SResult<Option<Vec<u8>>> {
        BlockState::storage(self, a, k)
    }
    fn set_storage(&mut self, a: &Address, k: &[u8], v: &[u8]) -> SResult<()> {
        BlockState::set_storage(self, a, k, v)
    }
    fn delete_storage(&mut self, a: &Address, k: &[u8]) -> SResult<()> {
        BlockState::delete_storage(self, a, k)
    }
}

/// Why a system actor's call did not return a value.
#[derive(Debug)]
pub enum CallError {
    /// The call failed; the transaction rolls back and its receipt carries this.
    Fail(Failure),
    /// The node's state failed (not the transaction's fault): the block aborts.
    State(StateFailure),
}

impl From<StateFailure> for CallError {
    fn from(e: StateFailure) -> Self {
        CallError::State(e)
    }
}

impl CallError {
    /// A failure with a Python-style class and a message.
    pub fn fail(class: &str, message: impl Into<String>) -> Self {
        CallError::Fail(Failure::new(class, message))
    }
}

/// One call of a system actor: who calls, with what value, and metered access to the actor's
/// own storage.
pub struct Call<'c> {
    /// The system actor's address.
    pub me: Address,
    /// The caller (the transaction's sender, or the actor that sent the message).
    pub sender: Address,
    /// Value sent with the call, already credited to `me`.
    pub value: u128,
    /// The block.
    pub env: &'c BlockEnv,
    /// Genesis parameters (the cost table).
    pub params: &'c GenesisParams,
    pub(crate) state: &'c mut dyn SystemState,
    pub(crate) meter: &'c mut TxMeter,
    /// The transaction's events (rolled back with it).
    pub(crate) events: &'c mut Vec<Event>,
    /// Messages the call sends, delivered after it returns (a job's continuation).
    pub(crate) outbox: &'c mut Vec<OutMessage>,
    /// Wei the call burned (added to the block's tally if the execution succeeds).
    pub(crate) burned: &'c mut u128,
}

/// A message a system actor sends (no value): `handler(*args)` of the actor at `to`.
#[derive(Debug, Clone)]
pub struct OutMessage {
    /// The receiving actor.
    pub to: Address,
    /// Its handler.
    pub handler: String,
    /// The arguments (a CBOR array).
    pub args: Value,
}

impl Call<'_> {
    /// Charge `cycles` before doing work worth them.
    pub fn charge(&mut self, cycles: u64) -> Result<(), CallError> {
        self.meter
            .charge_cycles(cycles)
            .map_err(|e| CallError::Fail(Failure::out_of(e)))
    }

    pub(crate) fn charge_millicells(&mut self, millicells: u128) -> Result<(), CallError> {
        self.meter
            .charge_millicells(millicells)
            .map_err(|e| CallError::Fail(Failure::out_of(e)))
    }

    /// Read entry `key` of the actor's storage, charged as an actor's `storage_read()`.
    pub fn read(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, CallError> {
        let me = self.me;
        self.read_at(&me, key)
    }

    /// Set entry `key` of the actor's storage, charged as an actor's `storage_write()`:
    /// `storage_write_cycles` and a cell per byte of key and value. System actors have no
    /// storage quota: whoever makes them grow pays every byte.
    pub fn write(&mut self, key: &[u8], value: &[u8]) -> Result<(), CallError> {
        let me = self.me;
        self.write_at(&me, key, value)
    }

    /// Read entry `key` of system actor `at`'s storage (a sibling's record this actor works
    /// on, as the verifier reads the dispatcher's jobs), charged as [`Call::read`].
    pub(crate) fn read_at(
        &mut self,
        at: &Address,
        key: &[u8],
    ) -> Result<Option<Vec<u8>>, CallError> {
        self.charge(self.params.storage_read_cycles)?;
        let v = self.state.storage(at, key)?;
        let bytes = key.len() + v.as_ref().map_or(0, Vec::len);
        let per = u128::from(self.params.state_read_millicells_per_byte);
        self.charge_millicells(per * bytes as u128)?;
        Ok(v)
    }

    /// Set entry `key` of system actor `at`'s storage, charged as [`Call::write`].
    pub(crate) fn write_at(
        &mut self,
        at: &Address,
        key: &[u8],
        value: &[u8],
    ) -> Result<(), CallError> {
        self.charge(self.params.storage_write_cycles)?;
        let cells = self
            .params
            .state_write_cells_per_byte
            .saturating_mul((key.len() + value.len()) as u64);
        self.charge_millicells(u128::from(cells) * 1000)?;
        self.state.set_storage(at, key, value)?;
        Ok(())
    }

    /// Delete entry `key` of the actor's storage, charged `storage_write_cycles`.
    pub fn delete(&mut self, key: &[u8]) -> Result<(), CallError> {
        self.charge(self.params.storage_write_cycles)?;
        self.state.delete_storage(&self.me, key)?;
        Ok(())
    }

    /// Emit an event from the actor, charged as an actor's `emit_event()` (cycles per byte of
    /// data, half a cell per byte of topic and data).
    pub fn emit(&mut self, topic: &str, data: &Value) -> Result<(), CallError> {
        let data = cowboy_types::cbor::encode(data);
        let p = self.params;
        let cycles = p.emit_event_cycles.saturating_add(
            p.emit_event_cycles_per_byte
                .saturating_mul(data.len() as u64),
        );
        self.charge(cycles)?;
        let per = u128::from(p.event_millicells_per_byte);
        self.charge_millicells(per * (topic.len() + data.len()) as u128)?;
        self.events.push(Event {
            emitter: self.me,
            topic: topic.to_string(),
            data,
        });
        Ok(())
    }

    /// Pay `amount` from the actor's balance to `to`, charged as two storage writes (two
    /// account records). The actor must hold the amount: a shortfall is a broken invariant
    /// of the actor's own accounting, so it aborts the block rather than fail the call.
    pub fn pay(&mut self, to: &Address, amount: u128) -> Result<(), CallError> {
        self.charge(self.params.storage_write_cycles.saturating_mul(2))?;
        move_out(&mut *self.state, &self.me, Some(to), amount)?;
        Ok(())
    }

    /// Move `amount` from system actor `from`'s balance (the caller's own, or a sibling
    /// system actor's it settles for, as the verifier settles the dispatcher's escrow) to
    /// `to`, or burn it when `to` is `None` (counted in the block's burn tally). Charged as two
    /// storage writes. A shortfall is a broken invariant and aborts the block.
    pub(crate) fn move_from(
        &mut self,
        from: &Address,
        to: Option<&Address>,
        amount: u128,
    ) -> Result<(), CallError> {
        self.charge(self.params.storage_write_cycles.saturating_mul(2))?;
        move_out(&mut *self.state, from, to, amount)?;
        if to.is_none() {
            *self.burned = self.burned.saturating_add(amount);
        }
        Ok(())
    }

    /// Send `handler(*args)` to the actor at `to`, delivered after this call returns.
    pub(crate) fn send(&mut self, to: Address, handler: &str, args: Value) {
        self.outbox.push(OutMessage {
            to,
            handler: handler.to_string(),
            args,
        });
    }

    /// Create the actor's empty account if it has none: storage needs one, and a system actor
    /// that holds no value may not have one yet. One account write, inside the price of the
    /// handler that calls it.
    pub(crate) fn ensure_account(&mut self) -> Result<(), CallError> {
        if !self.state.exists(&self.me)? {
            self.state.set_account(&self.me, &Account::default())?;
        }
        Ok(())
    }

    /// Refuse value: for handlers that take none.
    pub fn no_value(&self) -> Result<(), CallError> {
        if self.value == 0 {
            return Ok(());
        }
        Err(CallError::fail(
            "ValueError",
            format!("this handler takes no value (got {} wei)", self.value),
        ))
    }
}

/// Take `amount` from `from`'s balance and credit it to `to`, or burn it when `to` is `None`
/// (the supply falls by `amount`). `from` must hold it.
pub(crate) fn move_out(
    state: &mut dyn SystemState,
    from: &Address,
    to: Option<&Address>,
    amount: u128,
) -> SResult<()> {
    if amount == 0 {
        return Ok(());
    }
    let mut acct = state.account(from)?;
    acct.balance = acct.balance.checked_sub(amount).ok_or_else(|| {
        StateFailure::Invariant(format!(
            "system actor {} pays {amount} wei but holds {}",
            from.to_checksum(),
            acct.balance
        ))
    })?;
    state.set_account(from, &acct)?;
    if let Some(to) = to {
        let mut dest = state.account(to)?;
        dest.balance = dest.balance.saturating_add(amount);
        state.set_account(to, &dest)?;
    }
    Ok(())
}

/// Access to the state for a block hook (unmetered: protocol work bounded by what the block's
/// transactions paid for).
pub struct Hook<'h> {
    /// The system actor's address.
    pub me: Address,
    /// The block.
    pub env: &'h BlockEnv,
    /// Genesis parameters.
    pub params: &'h GenesisParams,
    /// The block's state.
    pub state: &'h mut dyn SystemState,
    /// Wei the hook minted (new supply, counted in the block's `minted`).
    pub minted: u128,
    /// Events the hook emitted, in order (the block's `HookEvents`).
    pub events: Vec<Event>,
}

/// A call's positional or keyword arguments (a CBOR array or text-keyed map, as for Python
/// actors), read into typed values by position or name.
pub struct Args<'a> {
    value: &'a Value,
}

impl<'a> Args<'a> {
    /// Wrap the call's CBOR arguments.
    pub fn new(value: &'a Value) -> Self {
        Args { value }
    }

    /// The argument at position `i`, or the keyword `name`.
    pub fn get(&self, i: usize, name: &str) -> Result<&'a Value, CallError> {
        let found = match self.value {
            Value::Array(items) => items.get(i),
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| matches!(k, Value::Text(t) if t == name))
                .map(|(_, v)| v),
            _ => None,
        };
        found.ok_or_else(|| {
            CallError::fail(
                "TypeError",
                format!("missing required argument {name:?} (position {i})"),
            )
        })
    }

    /// Exactly `n` arguments, no more.
    pub fn expect_count(&self, n: usize) -> Result<(), CallError> {
        let got = match self.value {
            Value::Array(items) => items.len(),
            Value::Map(entries) => entries.len(),
            Value::Null => 0,
            _ => usize::MAX,
        };
        if got == n {
            return Ok(());
        }
        Err(CallError::fail(
            "TypeError",
            format!("expected {n} arguments, got {got}"),
        ))
    }

    /// A byte string of any length.
    pub fn blob(&self, i: usize, name: &str) -> Result<&'a [u8], CallError> {
        match self.get(i, name)? {
            Value::Bytes(b) => Ok(b),
            _ => Err(CallError::fail(
                "TypeError",
                format!("argument {name:?} must be bytes"),
            )),
        }
    }

    fn bytes<const N: usize>(&self, i: usize, name: &str) -> Result<[u8; N], CallError> {
        match self.get(i, name)? {
            Value::Bytes(b) => b.as_slice().try_into().ok(),
            _ => None,
        }
        .ok_or_else(|| CallError::fail("TypeError", format!("argument {name:?} must be {N} bytes")))
    }

    /// A 20-byte address.
    pub fn address(&self, i: usize, name: &str) -> Result<Address, CallError> {
        self.bytes::<20>(i, name).map(Address)
    }

    /// A 32-byte hash.
    pub fn hash(&self, i: usize, name: &str) -> Result<Hash32, CallError> {
        self.bytes::<32>(i, name).map(Hash32)
    }
}

/// A native system actor (see the module docs).
pub trait SystemActor: Sync {
    /// Its reserved address.
    fn address(&self) -> Address;
    /// Its name, for errors and the RPC.
    fn name(&self) -> &'static str;
    /// The block lane of a transaction calling `handler` ([`crate::lanes`]). Default: user.
    fn lane(&self, _handler: &str) -> Lane {
        Lane::User
    }
    /// Handle a call of `handler` with `args`; the value it returns goes back to the caller
    /// as canonical CBOR, billed as return data.
    fn call(&self, call: &mut Call<'_>, handler: &str, args: &Args<'_>)
        -> Result<Value, CallError>;
    /// The cycle and cell limits of a run of this actor's own timer calling `handler`
    /// (`timers::schedule_system`). Default: `system_timer_cycles_limit` /
    /// `system_timer_cells_limit`.
    fn timer_limits(&self, p: &GenesisParams, _handler: &str) -> (u64, u64) {
        (p.system_timer_cycles_limit, p.system_timer_cells_limit)
    }
    /// Runs at the start of every block, before its transactions.
    fn begin_block(&self, _hook: &mut Hook<'_>) -> SResult<()> {
        Ok(())
    }
    /// Runs at the end of every block, after its transactions.
    fn end_block(&self, _hook: &mut Hook<'_>) -> SResult<()> {
        Ok(())
    }
}

/// Every system actor, in address order.
pub static REGISTRY: &[&dyn SystemActor] = &[
    &runners::RunnerRegistry,
    &dispatcher::JobDispatcher,
    &verifier::ResultVerifier,
    &entitlements::EntitlementRegistry,
    &mailbox::Mailbox,
    &scheduler::Scheduler,
    &default_gba::DefaultGba,
    &staking::Staking,
];

/// The system actor at `address`, if one is registered.
pub fn lookup(address: &Address) -> Option<&'static dyn SystemActor> {
    REGISTRY.iter().copied().find(|a| a.address() == *address)
}

/// Run every system actor's `begin_block` (or `end_block` when `end`), in address order;
/// the wei they minted. Their events are appended to `events`.
pub(crate) fn run_hooks(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    env: &BlockEnv,
    end: bool,
    events: &mut Vec<Event>,
) -> SResult<u128> {
    let mut minted: u128 = 0;
    for actor in REGISTRY {
        let mut hook = Hook {
            me: actor.address(),
            env,
            params,
            state: &mut *state,
            minted: 0,
            events: Vec::new(),
        };
        if end {
            actor.end_block(&mut hook)?;
        } else {
            actor.begin_block(&mut hook)?;
        }
        minted = minted.saturating_add(hook.minted);
        events.append(&mut hook.events);
    }
    Ok(minted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_in_address_order_at_reserved_addresses() {
        for pair in REGISTRY.windows(2) {
            assert!(pair[0].address().0 < pair[1].address().0);
        }
        for actor in REGISTRY {
            assert!(actor.address().is_system(), "{}", actor.name());
            assert!(lookup(&actor.address()).is_some());
        }
        assert!(lookup(&cowboy_types::system::TREASURY).is_none());
    }
}
