//! Native timers (whitepaper "Native Timers and the Actor Scheduler", §3.3, §17.3, §17.9;
//! key-innovations.md §1; CIP-1): actors schedule their own future execution, with no keeper.
//!
//! An actor calls `cowboy_sdk.set_timer(height, handler, data)` or `set_interval(n, handler,
//! data)`; when the timer is due, `begin_block` runs `handler(data)` on the actor, with the
//! scheduler (`0x…0D`) as `sender()`, paid from the actor's balance at the fee its Gas Bidding
//! Agent bids ([`deliver`]). Everything lives in the scheduler's storage, in the state root:
//!
//! * `["timer", id]` → the [`Timer`] record (owner, handler, data, due height, interval,
//!   agent, deposit, deferrals, place in the queue);
//! * `["owned", owner]` → count, `["owned", owner, i]` → id: each actor's timers, for the
//!   per-actor cap, the progressive deposit and `cowboy_getTimers`;
//! * the tiered queue ([`queue`]);
//! * `["meta"]` → [`Meta`]: the next id, how many are pending, the timer basefee and the
//!   delivery cursor.
//!
//! **Costs and guards** (whitepaper's DoS table, all six):
//! * `set_timer` costs the **timer basefee** in cycles (starts at `set_timer_cycles`, §17.3;
//!   rises by the EIP-1559 rule while more than `timer_queue_target` timers are pending, falls
//!   back when fewer are), times the **same-block surcharge** `2^max(0, k − 16)` for the
//!   actor's k-th timer in the block; both are cycles, paid at the transaction's price and
//!   never refunded. It also pays a cell per byte the record and its queue entries write.
//! * A **progressive deposit** `timer_base_deposit_wei × (1 + floor(n / 100))` (n: the
//!   actor's pending timers) moves from the actor to the scheduler and comes back when the
//!   timer fires (one-shot), is cancelled, or is dropped.
//! * At most `timer_max_per_actor` pending timers per actor.
//! * Delivery is bounded per block by the timer lane's budget and the bid window; the timers
//!   of an actor that keeps being deferred get an anti-starvation boost ([`deliver`]).

pub mod deliver;
pub mod queue;

use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::{DEFAULT_GBA, SCHEDULER};
use cowboy_types::Address;

use crate::state::SResult;
use crate::system::SystemState;
use queue::{corrupt, key, Geometry, Loc};

/// A pending timer's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timer {
    /// Its id (unique, never reused).
    pub id: u64,
    /// The actor that set it, whose handler runs and whose balance pays.
    pub owner: Address,
    /// The public handler of the owner it calls.
    pub handler: String,
    /// Canonical CBOR of the handler's one argument.
    pub data: Vec<u8>,
    /// The height it is (next) due at.
    pub due: u64,
    /// Blocks between firings (0: one-shot).
    pub every: u64,
    /// Its Gas Bidding Agent (`None`: the network default).
    pub gba: Option<Address>,
    /// The deposit held by the scheduler.
    pub deposit: u128,
    /// Blocks it has been deferred since it was last due (anti-starvation).
    pub deferrals: u64,
    /// Of those, consecutive blocks its owner could not pay.
    pub unpaid: u64,
    /// Fees its owner paid for bid queries in blocks that deferred it: reported in the
    /// receipt of its next run or of its drop.
    pub bid_fees: u128,
    /// Position in the owner's list.
    pub owner_index: u64,
    /// Where it is queued.
    pub loc: Loc,
}

fn addr_value(a: &Address) -> Value {
    Value::Bytes(a.0.to_vec())
}

fn addr_from(v: &Value) -> Option<Address> {
    match v {
        Value::Bytes(b) if b.len() == 20 => {
            let mut a = [0u8; 20];
            a.copy_from_slice(b);
            Some(Address(a))
        }
        _ => None,
    }
}

impl Timer {
    fn to_value(&self) -> Value {
        Value::Array(vec![
            addr_value(&self.owner),
            Value::Text(self.handler.clone()),
            Value::Bytes(self.data.clone()),
            Value::Uint(self.due),
            Value::Uint(self.every),
            self.gba.as_ref().map_or(Value::Null, addr_value),
            Value::from_u128(self.deposit),
            Value::Uint(self.deferrals),
            Value::Uint(self.unpaid),
            Value::from_u128(self.bid_fees),
            Value::Uint(self.owner_index),
            self.loc.to_value(),
        ])
    }

    fn from_value(id: u64, v: &Value) -> Option<Timer> {
        let Value::Array(f) = v else { return None };
        let [owner, handler, data, due, every, gba, deposit, deferrals, unpaid, fees, oi, loc] =
            f.as_slice()
        else {
            return None;
        };
        let uint = |v: &Value| match v {
            Value::Uint(n) => Some(*n),
            _ => None,
        };
        Some(Timer {
            id,
            owner: addr_from(owner)?,
            handler: match handler {
                Value::Text(t) => t.clone(),
                _ => return None,
            },
            data: match data {
                Value::Bytes(b) => b.clone(),
                _ => return None,
            },
            due: uint(due)?,
            every: uint(every)?,
            gba: match gba {
                Value::Null => None,
                other => Some(addr_from(other)?),
            },
            deposit: deposit.as_u128()?,
            deferrals: uint(deferrals)?,
            unpaid: uint(unpaid)?,
            bid_fees: fees.as_u128()?,
            owner_index: uint(oi)?,
            loc: Loc::from_value(loc)?,
        })
    }

    /// The agent that bids for it.
    pub fn agent(&self) -> Address {
        self.gba.unwrap_or(DEFAULT_GBA)
    }

    /// The record as the RPC shows it (a CBOR map with text keys).
    pub fn to_public_value(&self) -> Value {
        let text = |s: &str| Value::Text(s.into());
        Value::Map(vec![
            (text("id"), Value::Uint(self.id)),
            (text("owner"), addr_value(&self.owner)),
            (text("handler"), Value::Text(self.handler.clone())),
            (text("data"), Value::Bytes(self.data.clone())),
            (text("due"), Value::Uint(self.due)),
            (text("every"), Value::Uint(self.every)),
            (text("gba"), addr_value(&self.agent())),
            (text("deposit"), Value::from_u128(self.deposit)),
            (text("deferrals"), Value::Uint(self.deferrals)),
        ])
    }
}

fn timer_key(id: u64) -> Vec<u8> {
    key(&[Value::Text("timer".into()), Value::Uint(id)])
}

fn owned_count_key(owner: &Address) -> Vec<u8> {
    key(&[Value::Text("owned".into()), addr_value(owner)])
}

fn owned_key(owner: &Address, i: u64) -> Vec<u8> {
    key(&[
        Value::Text("owned".into()),
        addr_value(owner),
        Value::Uint(i),
    ])
}

fn starve_key(owner: &Address) -> Vec<u8> {
    key(&[Value::Text("starve".into()), addr_value(owner)])
}

/// The owner's starvation score: blocks in which one of its timers was deferred, halved each
/// block in which one of them ran (exponential decay; [`deliver`]).
pub fn starvation(state: &dyn SystemState, owner: &Address) -> SResult<u64> {
    queue::read_uint(state, &starve_key(owner))
}

pub(crate) fn set_starvation(state: &mut dyn SystemState, owner: &Address, n: u64) -> SResult<()> {
    queue::write_uint(state, &starve_key(owner), n).map(|_| ())
}

fn meta_key() -> Vec<u8> {
    key(&[Value::Text("meta".into())])
}

/// The scheduler's global figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    /// The next timer id.
    pub next_id: u64,
    /// Timers pending (queued or in flight).
    pub pending: u64,
    /// The cycle price of `set_timer` before the same-block surcharge.
    pub basefee_cycles: u64,
    /// The oldest height whose ring slot may hold timers.
    pub cursor: u64,
}

impl Meta {
    /// Read it (the initial figures if no timer was ever set).
    pub fn load(state: &dyn SystemState, p: &GenesisParams) -> SResult<Meta> {
        let Some(raw) = state.storage(&SCHEDULER, &meta_key())? else {
            return Ok(Meta {
                next_id: 0,
                pending: 0,
                basefee_cycles: p.set_timer_cycles,
                cursor: 0,
            });
        };
        match cbor::decode(&raw) {
            Ok(Value::Array(f)) => match f.as_slice() {
                [Value::Uint(a), Value::Uint(b), Value::Uint(c), Value::Uint(d)] => Ok(Meta {
                    next_id: *a,
                    pending: *b,
                    basefee_cycles: *c,
                    cursor: *d,
                }),
                _ => Err(corrupt("meta")),
            },
            _ => Err(corrupt("meta")),
        }
    }

    /// Write it back if it changed; returns the bytes written.
    pub fn store(&self, state: &mut dyn SystemState, before: &Meta) -> SResult<u64> {
        if self == before {
            return Ok(0);
        }
        ensure_account(state)?;
        let v = cbor::encode(&Value::Array(vec![
            Value::Uint(self.next_id),
            Value::Uint(self.pending),
            Value::Uint(self.basefee_cycles),
            Value::Uint(self.cursor),
        ]));
        let k = meta_key();
        state.set_storage(&SCHEDULER, &k, &v)?;
        Ok((k.len() + v.len()) as u64)
    }
}

fn ensure_account(state: &mut dyn SystemState) -> SResult<()> {
    if !state.exists(&SCHEDULER)? {
        state.set_account(&SCHEDULER, &Default::default())?;
    }
    Ok(())
}

/// The timer `id`, if pending.
pub fn get(state: &dyn SystemState, id: u64) -> SResult<Option<Timer>> {
    match state.storage(&SCHEDULER, &timer_key(id))? {
        None => Ok(None),
        Some(raw) => {
            let v = cbor::decode(&raw).map_err(|_| corrupt("timer record"))?;
            Timer::from_value(id, &v)
                .map(Some)
                .ok_or_else(|| corrupt("timer record"))
        }
    }
}

/// Write a record; returns the bytes written.
pub(crate) fn put(state: &mut dyn SystemState, t: &Timer) -> SResult<u64> {
    let k = timer_key(t.id);
    let v = cbor::encode(&t.to_value());
    state.set_storage(&SCHEDULER, &k, &v)?;
    Ok((k.len() + v.len()) as u64)
}

/// How many timers `owner` has pending.
pub fn owned_count(state: &dyn SystemState, owner: &Address) -> SResult<u64> {
    queue::read_uint(state, &owned_count_key(owner))
}

/// The ids of `owner`'s pending timers (at most `timer_max_per_actor` of them).
pub fn owned(state: &dyn SystemState, owner: &Address) -> SResult<Vec<u64>> {
    let n = owned_count(state, owner)?;
    (0..n)
        .map(|i| queue::read_uint(state, &owned_key(owner, i)))
        .collect()
}

/// Queue `t` (its `due` set) for height `now`'s placement rule; updates `t.loc` and writes the
/// record. Returns the bytes written.
pub(crate) fn enqueue(
    state: &mut dyn SystemState,
    g: &Geometry,
    now: u64,
    t: &mut Timer,
) -> SResult<u64> {
    let (tier, bucket) = g.place(now, t.due);
    let (loc, written) = queue::push(state, tier, bucket, t.id)?;
    t.loc = loc;
    Ok(written + put(state, t)?)
}

/// Take `t` out of its bucket (if queued), fixing the record of the entry moved into its place.
fn dequeue(state: &mut dyn SystemState, t: &Timer) -> SResult<()> {
    if let Loc::Queued {
        tier,
        bucket,
        index,
    } = t.loc
    {
        if let Some(moved) = queue::swap_remove(state, tier, bucket, index)? {
            let mut m = get(state, moved)?.ok_or_else(|| corrupt("queued id without record"))?;
            m.loc = Loc::Queued {
                tier,
                bucket,
                index,
            };
            put(state, &m)?;
        }
    }
    Ok(())
}

/// Forget a timer entirely: out of its bucket, out of its owner's list, record deleted, the
/// deposit back to the owner, one fewer pending. The caller holds `meta`.
pub(crate) fn remove(state: &mut dyn SystemState, meta: &mut Meta, t: &Timer) -> SResult<()> {
    dequeue(state, t)?;
    let ck = owned_count_key(&t.owner);
    let n = queue::read_uint(state, &ck)?;
    if t.owner_index >= n {
        return Err(corrupt("owner index past the owner's list"));
    }
    let last_key = owned_key(&t.owner, n - 1);
    let last = queue::read_uint(state, &last_key)?;
    state.delete_storage(&SCHEDULER, &last_key)?;
    queue::write_uint(state, &ck, n - 1)?;
    if n == 1 {
        // Its last timer: nothing left to starve.
        set_starvation(state, &t.owner, 0)?;
    }
    if t.owner_index != n - 1 {
        let v = cbor::encode(&Value::Uint(last));
        state.set_storage(&SCHEDULER, &owned_key(&t.owner, t.owner_index), &v)?;
        let mut m = get(state, last)?.ok_or_else(|| corrupt("owned id without record"))?;
        m.owner_index = t.owner_index;
        put(state, &m)?;
    }
    state.delete_storage(&SCHEDULER, &timer_key(t.id))?;
    transfer(state, &SCHEDULER, &t.owner, t.deposit)?;
    meta.pending = meta.pending.saturating_sub(1);
    Ok(())
}

fn transfer(state: &mut dyn SystemState, from: &Address, to: &Address, v: u128) -> SResult<()> {
    if v == 0 {
        return Ok(());
    }
    let mut a = state.account(from)?;
    a.balance = a
        .balance
        .checked_sub(v)
        .ok_or_else(|| corrupt("the scheduler holds less than the deposits it owes"))?;
    state.set_account(from, &a)?;
    let mut b = state.account(to)?;
    b.balance = b.balance.saturating_add(v);
    state.set_account(to, &b)
}

/// Why a `set_timer` or `cancel_timer` was refused: a Python exception class and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// `ValueError`, `RuntimeError`, …
    pub class: &'static str,
    /// What is wrong.
    pub message: String,
}

fn refused(class: &'static str, message: String) -> Refused {
    Refused { class, message }
}

/// A timer to schedule (from `cowboy_sdk`, through the host).
#[derive(Debug, Clone)]
pub struct NewTimer<'a> {
    /// The owner (the running actor).
    pub owner: Address,
    /// First due height.
    pub due: u64,
    /// Interval (0: one-shot).
    pub every: u64,
    /// Handler name (already checked public and a method by the VM).
    pub handler: &'a str,
    /// CBOR of the argument.
    pub data: &'a [u8],
    /// Agent.
    pub gba: Option<Address>,
}

/// The deposit an actor with `n` pending timers pays for its next one.
pub fn deposit_for(p: &GenesisParams, n: u64) -> u128 {
    let steps = u128::from(n / p.timer_deposit_step_count.max(1));
    p.timer_base_deposit_wei.saturating_mul(1 + steps)
}

/// The same-block surcharge factor of an actor's k-th timer in a block (k from 1).
pub fn surcharge_factor(p: &GenesisParams, k: u64) -> u64 {
    let exp = k.saturating_sub(p.timer_surcharge_free_per_block);
    if exp >= 63 {
        return u64::MAX;
    }
    1u64 << exp
}

/// Schedule a timer at block `now`: checks, deposit, record, queue. `Ok(Err(_))` changes
/// nothing. `Ok(Ok((id, bytes written)))`.
pub fn schedule(
    state: &mut dyn SystemState,
    p: &GenesisParams,
    now: u64,
    t: &NewTimer<'_>,
) -> SResult<Result<(u64, u64), Refused>> {
    if t.due <= now {
        return Ok(Err(refused(
            "ValueError",
            format!(
                "timer height {} is not after the current block {now}",
                t.due
            ),
        )));
    }
    let size = (t.handler.len() + t.data.len()) as u64;
    if size > p.max_return_data_bytes {
        return Ok(Err(refused(
            "ValueError",
            format!(
                "timer handler and data are {size} bytes, the limit is {}",
                p.max_return_data_bytes
            ),
        )));
    }
    if let Some(g) = t.gba {
        let ok = g == DEFAULT_GBA || (!g.is_system() && state.account(&g)?.code_hash.is_some());
        if !ok {
            return Ok(Err(refused(
                "ValueError",
                format!("no Gas Bidding Agent is deployed at {}", g.to_checksum()),
            )));
        }
    }
    let n = owned_count(state, &t.owner)?;
    if n >= p.timer_max_per_actor {
        return Ok(Err(refused(
            "RuntimeError",
            format!("this actor already has {n} pending timers, the most one actor may have"),
        )));
    }
    let deposit = deposit_for(p, n);
    let balance = state.account(&t.owner)?.balance;
    if balance < deposit {
        return Ok(Err(refused(
            "ValueError",
            format!("the timer deposit is {deposit} wei and this actor has {balance}"),
        )));
    }
    ensure_account(state)?;
    transfer(state, &t.owner, &SCHEDULER, deposit)?;
    let before = Meta::load(state, p)?;
    let mut meta = before;
    let id = meta.next_id;
    meta.next_id += 1;
    meta.pending += 1;
    if meta.pending == 1 && before.pending == 0 {
        // An empty queue's cursor is stale: nothing older than the next block can be due.
        meta.cursor = now + 1;
    }
    let ok = owned_key(&t.owner, n);
    let ov = cbor::encode(&Value::Uint(id));
    state.set_storage(&SCHEDULER, &ok, &ov)?;
    let mut written = (ok.len() + ov.len()) as u64;
    written += queue::write_uint(state, &owned_count_key(&t.owner), n + 1)?;
    let mut timer = Timer {
        id,
        owner: t.owner,
        handler: t.handler.to_string(),
        data: t.data.to_vec(),
        due: t.due,
        every: t.every,
        gba: t.gba.filter(|g| *g != DEFAULT_GBA),
        deposit,
        deferrals: 0,
        unpaid: 0,
        bid_fees: 0,
        owner_index: n,
        loc: Loc::InFlight,
    };
    written += enqueue(state, &Geometry::new(p), now, &mut timer)?;
    written += meta.store(state, &before)?;
    Ok(Ok((id, written)))
}

/// Schedule a one-shot timer owned by a system actor (the dispatcher's deadlines): no deposit
/// and no per-actor cap, since protocol work is bounded by what its callers paid (the
/// dispatcher charges a job's deadline work at submission). Its run is charged to no one
/// but still counts in the timer lane and the block ([`deliver`]). Returns the timer id and
/// the bytes written (for the caller to charge as cells).
pub(crate) fn schedule_system(
    state: &mut dyn SystemState,
    p: &GenesisParams,
    now: u64,
    owner: Address,
    due: u64,
    handler: &str,
    data: &Value,
) -> SResult<(u64, u64)> {
    if !owner.is_system() || due <= now {
        return Err(corrupt("a system timer for a user actor or in the past"));
    }
    ensure_account(state)?;
    let before = Meta::load(state, p)?;
    let mut meta = before;
    let id = meta.next_id;
    meta.next_id += 1;
    meta.pending += 1;
    if meta.pending == 1 && before.pending == 0 {
        meta.cursor = now + 1;
    }
    let n = owned_count(state, &owner)?;
    let ok = owned_key(&owner, n);
    let ov = cbor::encode(&Value::Uint(id));
    state.set_storage(&SCHEDULER, &ok, &ov)?;
    let mut written = (ok.len() + ov.len()) as u64;
    written += queue::write_uint(state, &owned_count_key(&owner), n + 1)?;
    let mut timer = Timer {
        id,
        owner,
        handler: handler.to_string(),
        data: cbor::encode(data),
        due,
        every: 0,
        gba: None,
        deposit: 0,
        deferrals: 0,
        unpaid: 0,
        bid_fees: 0,
        owner_index: n,
        loc: Loc::InFlight,
    };
    written += enqueue(state, &Geometry::new(p), now, &mut timer)?;
    written += meta.store(state, &before)?;
    Ok((id, written))
}

/// Cancel timer `id` on behalf of `caller`; returns the refunded deposit.
pub fn cancel(
    state: &mut dyn SystemState,
    p: &GenesisParams,
    caller: &Address,
    id: u64,
) -> SResult<Result<u128, Refused>> {
    let Some(t) = get(state, id)? else {
        return Ok(Err(refused(
            "ValueError",
            format!("no pending timer has id {id}"),
        )));
    };
    if t.owner != *caller {
        return Ok(Err(refused(
            "PermissionError",
            format!(
                "timer {id} belongs to {}, not to this actor",
                t.owner.to_checksum()
            ),
        )));
    }
    let before = Meta::load(state, p)?;
    let mut meta = before;
    remove(state, &mut meta, &t)?;
    meta.store(state, &before)?;
    Ok(Ok(t.deposit))
}
