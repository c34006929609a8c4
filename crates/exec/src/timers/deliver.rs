//! Delivering due timers in `begin_block`: the Gas Bidding Agent auction (CIP-1) within the
//! timer lane (§17.9).
//!
//! At block `H`, after the system actors' begin hooks and before any transaction:
//!
//! 1. **Migrate** the share of the epoch and overflow buckets whose windows contain `H`
//!    ([`super::queue`]).
//! 2. **Take** up to `timer_bid_window` due timers from the ring, oldest slot first (a timer
//!    deferred last block sits in slot `H`, behind any never-considered older ones). At most
//!    four times that many slots and entries are looked at, so a block's scan is bounded.
//! 3. **Bid.** Each timer's agent is asked for fee parameters with the CIP-1 context
//!    (`trigger_block_height`, `current_block_height`, `basefee_cycle`, `basefee_cell`,
//!    `last_block_cycle_usage`, `owner_actor_balance`, plus `timer_id`, `owner`, `deferrals`).
//!    The network default agent answers natively ([`default_bid`]). Another agent is an actor
//!    whose public `get_gas_bid(context)` runs read-only (its writes are rolled back, its
//!    messages dropped), with at most `timer_gba_cycles` cycles; the owner pays those cycles at
//!    the cycle basefee (burned) and they count in the timer lane. An agent that fails, runs
//!    out of cycles or returns anything but a map of non-negative ints gets the **default
//!    bid**; missing keys take the default's values.
//! 4. **Order** by priority, highest first: the effective tip per cycle plus an
//!    **anti-starvation boost** of `timer_starvation_boost_bps` of the cycle basefee per point
//!    of the owner's starvation score; ties by timer id (older first). The score is per actor
//!    (whitepaper: "tracks an actor's scheduling history ... with exponential decay"): +1 for
//!    each block in which one of its timers was deferred, halved for each block in which one
//!    ran. A per-timer count would not do: an actor outbidding everyone with fresh timers
//!    every block has deferred timers of nearly the same age, whose boost would keep pace;
//!    its score instead stays near 1 while it runs every block, and the starved actor's grows
//!    until its boost passes the attacker's tip.
//! 5. **Run** each in that order while it fits: its cycles limit in what the timer lane has
//!    left, both limits in what the block has left, maxima at or above the basefees, and the
//!    owner able to cover the reservation. The handler runs as a message from the scheduler
//!    with `data` as its one argument, after the intrinsic `timer_schedule_base_cycles` /
//!    `_cells` (§17.2), under the same metering, atomicity and settlement as a transaction
//!    (refund, tip to the proposer, basefee burned). A one-shot timer is then removed and its
//!    deposit returned; an interval re-arms at its next scheduled height after `H`.
//! 6. **Defer** the rest to slot `H + 1` with one more deferral. A timer whose owner could not
//!    pay (the bid query or the reservation) for more than `timer_unpaid_deferrals_max`
//!    consecutive blocks is **dropped**: removed, deposit returned, and a `TimerDropped`
//!    execution record in the block whose receipt carries the scheduler's `TimerDropped`
//!    event (`timer_id`, `owner`, `deposit`). Bid-query fees paid in blocks that deferred a timer are
//!    reported in the receipt of its next run (or drop), so receipts account for every wei.
//! 7. Adjust the timer basefee from the number pending (EIP-1559 rule, target
//!    `timer_queue_target`, floor `set_timer_cycles`).

use cowboy_pvm::actor::Entry;
use cowboy_state::Context;
use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::SCHEDULER;
use cowboy_types::{Event, ExecError, Receipt, TimerExecution};

use super::queue::{self, corrupt, Geometry, Loc};
use super::{enqueue, get, put, remove, Meta, Timer};
use crate::actors::{Failure, TxRun};
use crate::apply::{BlockExecutor, BlockUsage};
use crate::fees::{self, Basefees, FeeParams};
use crate::intrinsic::TxMeter;
use crate::lanes::Lane;
use crate::state::{BlockState, SResult, StateFailure};

/// The network default agent's bid: twice the basefees as maxima, no tip, the default limits.
pub fn default_bid(p: &GenesisParams, basefees: Basefees) -> FeeParams {
    FeeParams {
        cycles_limit: p.timer_default_cycles_limit,
        cells_limit: p.timer_default_cells_limit,
        max_fee_per_cycle: basefees.cycle.saturating_mul(2),
        max_fee_per_cell: basefees.cell.saturating_mul(2),
        tip_per_cycle: 0,
        tip_per_cell: 0,
    }
}

/// Read a bid from an agent's answer: a map with text keys, each optional, each a
/// non-negative int. `None`: garbage.
pub fn parse_bid(v: &Value, default: FeeParams) -> Option<FeeParams> {
    let Value::Map(entries) = v else { return None };
    let mut bid = default;
    for (k, v) in entries {
        let Value::Text(k) = k else { return None };
        let n = v.as_u128()?;
        match k.as_str() {
            "cycles_limit" => bid.cycles_limit = u64::try_from(n).ok()?,
            "cells_limit" => bid.cells_limit = u64::try_from(n).ok()?,
            "max_fee_per_cycle" => bid.max_fee_per_cycle = n,
            "max_fee_per_cell" => bid.max_fee_per_cell = n,
            "tip_per_cycle" => bid.tip_per_cycle = n,
            "tip_per_cell" => bid.tip_per_cell = n,
            _ => return None,
        }
    }
    Some(bid)
}

/// The GBA context of CIP-1 for timer `t` at block `env` (a CBOR map with text keys).
fn context(t: &Timer, h: u64, basefees: Basefees, parent_cycles: u64, balance: u128) -> Value {
    let text = |s: &str| Value::Text(s.into());
    Value::Map(vec![
        (text("trigger_block_height"), Value::Uint(t.due)),
        (text("current_block_height"), Value::Uint(h)),
        (text("basefee_cycle"), Value::from_u128(basefees.cycle)),
        (text("basefee_cell"), Value::from_u128(basefees.cell)),
        (text("last_block_cycle_usage"), Value::Uint(parent_cycles)),
        (text("owner_actor_balance"), Value::from_u128(balance)),
        (text("timer_id"), Value::Uint(t.id)),
        (text("owner"), Value::Text(t.owner.to_checksum())),
        (text("deferrals"), Value::Uint(t.deferrals)),
    ])
}

/// What a bid query came to.
enum Bid {
    /// Fee parameters (the agent's, or the default's).
    Params(FeeParams),
    /// The owner cannot pay for the query.
    Unpaid,
    /// The timer lane has no room left for a query.
    NoRoom,
}

/// Ask `t`'s agent for a bid (step 3 of the module docs), charging the owner for the query.
fn ask<E: Context>(
    state: &mut BlockState<'_, E>,
    exec: &mut BlockExecutor<'_>,
    t: &Timer,
    fees_paid: &mut u128,
) -> SResult<Bid> {
    let p = exec.params();
    let env = *exec.env();
    let default = default_bid(p, env.basefees);
    let Some(agent) = t.gba else {
        return Ok(Bid::Params(default));
    };
    let cap = p.timer_gba_cycles;
    if exec.lanes.fits(Lane::Timer, cap).is_err() || exec.block_room().0 < cap {
        return Ok(Bid::NoRoom);
    }
    let owner_balance = state.account(&t.owner)?.balance;
    let max_cost = u128::from(cap).saturating_mul(env.basefees.cycle);
    if owner_balance < max_cost {
        return Ok(Bid::Unpaid);
    }
    let ctx = context(
        t,
        env.height,
        env.basefees,
        env.parent_cycles_used,
        owner_balance,
    );
    let entry = Entry::Call {
        handler: "get_gas_bid".into(),
        args: Value::Array(vec![ctx]),
    };
    // Read-only: a scratch tally (the query is bounded by its own cap) and a rollback.
    let mut scratch = BlockUsage::default();
    let mut meter = TxMeter::new(cap, p.max_return_data_bytes);
    let cp = state.checkpoint();
    let answer =
        TxRun::new(p, &env, &mut scratch).query(state, &mut meter, agent, SCHEDULER, entry)?;
    state.rollback(cp)?;
    let used = meter.cycles();
    let cost = u128::from(used) * env.basefees.cycle;
    if !state.debit(&t.owner, cost)? {
        return Err(StateFailure::Invariant(
            "owner balance fell during a read-only query".into(),
        ));
    }
    *fees_paid += cost;
    exec.record_timer_work(used, 0, cost, 0);
    let bid = answer
        .ok()
        .and_then(|raw| cbor::decode(&raw).ok())
        .and_then(|v| parse_bid(&v, default))
        .unwrap_or(default);
    Ok(Bid::Params(bid))
}

/// A candidate of this block's auction.
struct Candidate {
    timer: Timer,
    bid: Bid,
    /// Fees already paid for the bid query.
    query_fee: u128,
    /// The owner's starvation score.
    starvation: u64,
}

impl Candidate {
    fn priority(&self, p: &GenesisParams, basefees: Basefees) -> u128 {
        let Bid::Params(bid) = &self.bid else {
            return 0;
        };
        let boost = basefees
            .cycle
            .saturating_mul(u128::from(self.starvation))
            .saturating_mul(u128::from(p.timer_starvation_boost_bps))
            / 10_000;
        bid.effective_tip_per_cycle(basefees).saturating_add(boost)
    }
}

/// Steps 1–7 of the module docs for the block `exec` is executing. Returns the execution
/// records, in delivery order.
pub fn deliver<E: Context>(
    state: &mut BlockState<'_, E>,
    exec: &mut BlockExecutor<'_>,
) -> SResult<Vec<TimerExecution>> {
    let p = exec.params();
    let env = *exec.env();
    let h = env.height;
    let g = Geometry::new(p);
    let before = Meta::load(&*state, p)?;
    if before.pending == 0 && before.basefee_cycles <= p.set_timer_cycles {
        return Ok(Vec::new());
    }
    // 1. Migrations.
    for (tier, bucket, n) in queue::migrations(&*state, &g, h)? {
        for _ in 0..n {
            let Some(id) = queue::pop(state, tier, bucket)? else {
                break;
            };
            let mut t = get(&*state, id)?.ok_or_else(|| corrupt("queued id without record"))?;
            enqueue(state, &g, h, &mut t)?;
        }
    }
    // 2. Take due timers, oldest slot first.
    let mut meta = before;
    let window = usize::try_from(p.timer_bid_window).unwrap_or(usize::MAX);
    let scan_limit = p.timer_bid_window.saturating_mul(4);
    let mut taken = Vec::new();
    let mut scanned = 0;
    while taken.len() < window && meta.cursor <= h && scanned < scan_limit {
        scanned += 1;
        match queue::pop(state, 1, meta.cursor)? {
            Some(id) => {
                let mut t = get(&*state, id)?.ok_or_else(|| corrupt("queued id without record"))?;
                t.loc = Loc::InFlight;
                put(state, &t)?;
                taken.push(t);
            }
            None => meta.cursor += 1,
        }
    }
    meta.store(state, &before)?;
    // 3. Bids.
    let mut candidates = Vec::with_capacity(taken.len());
    for timer in taken {
        let mut query_fee = 0;
        let bid = ask(state, exec, &timer, &mut query_fee)?;
        let starvation = super::starvation(&*state, &timer.owner)?;
        candidates.push(Candidate {
            timer,
            bid,
            query_fee,
            starvation,
        });
    }
    // 4. Order.
    candidates.sort_by_key(|c| (std::cmp::Reverse(c.priority(p, env.basefees)), c.timer.id));
    // 5–6. Run or defer.
    let mut out = Vec::new();
    // Owners with a timer run (true) or only deferred (false) in this block.
    let mut owners: std::collections::BTreeMap<cowboy_types::Address, bool> = Default::default();
    for c in candidates {
        // An earlier handler of this block may have cancelled it.
        let Some(current) = get(&*state, c.timer.id)? else {
            continue;
        };
        let outcome = match c.bid {
            Bid::Params(bid) => run(state, exec, &current, bid, c.query_fee)?,
            Bid::Unpaid => Run::Deferred { unpaid: true },
            Bid::NoRoom => Run::Deferred { unpaid: false },
        };
        let ran = matches!(outcome, Run::Done(_));
        *owners.entry(current.owner).or_insert(ran) |= ran;
        match outcome {
            Run::Done(receipt) => {
                out.push(record(&current, receipt));
                finish(state, p, &g, h, current.id)?;
            }
            Run::Deferred { unpaid } => {
                if let Some(dropped) = defer(state, p, h, current, unpaid, c.query_fee)? {
                    out.push(dropped);
                }
            }
        }
    }
    for (owner, ran) in owners {
        let score = super::starvation(&*state, &owner)?;
        let next = if ran { score / 2 } else { score + 1 };
        if next != score && super::owned_count(&*state, &owner)? > 0 {
            super::set_starvation(state, &owner, next)?;
        }
    }
    // 7. The timer basefee.
    let before = Meta::load(&*state, p)?;
    let mut meta = before;
    let next = fees::next_basefee(
        u128::from(meta.basefee_cycles),
        meta.pending,
        p.timer_queue_target,
        p.basefee_alpha,
        p.basefee_max_change_bps,
        u128::from(p.set_timer_cycles),
    );
    meta.basefee_cycles = u64::try_from(next).unwrap_or(u64::MAX);
    meta.store(state, &before)?;
    Ok(out)
}

/// What trying to run a timer came to.
enum Run {
    Done(Receipt),
    Deferred { unpaid: bool },
}

fn record(t: &Timer, receipt: Receipt) -> TimerExecution {
    TimerExecution {
        timer_id: t.id,
        owner: t.owner,
        handler: t.handler.clone(),
        due: t.due,
        receipt,
    }
}

/// Step 5 for one timer with its bid.
fn run<E: Context>(
    state: &mut BlockState<'_, E>,
    exec: &mut BlockExecutor<'_>,
    t: &Timer,
    bid: FeeParams,
    query_fee: u128,
) -> SResult<Run> {
    let p = exec.params();
    let env = *exec.env();
    let bid = FeeParams {
        cycles_limit: bid.cycles_limit.min(p.per_actor_per_block_cycles),
        ..bid
    };
    let wait = Run::Deferred { unpaid: false };
    if t.owner.is_system() {
        return run_system(state, exec, t);
    }
    if bid.cycles_limit < p.timer_schedule_base_cycles
        || bid.cells_limit < p.timer_schedule_base_cells
    {
        // Too small to pay the intrinsic cost: the agent asked for nothing to run.
        return Ok(wait);
    }
    let (room_cycles, room_cells) = exec.block_room();
    if exec.lanes.fits(Lane::Timer, bid.cycles_limit).is_err()
        || bid.cycles_limit > room_cycles
        || bid.cells_limit > room_cells
    {
        return Ok(wait);
    }
    let Ok(reserved) = fees::reservation(bid, env.basefees) else {
        // Maxima below the basefees: the agent chose to wait for cheaper blocks.
        return Ok(wait);
    };
    if !state.debit(&t.owner, reserved)? {
        return Ok(Run::Deferred { unpaid: true });
    }
    let called = call_handler(state, exec, t, bid.cycles_limit, bid.cells_limit)?;
    let (success, return_data, events, error) = (
        called.success,
        called.return_data,
        called.events,
        called.error,
    );
    let (cycles, cells) = (called.cycles, called.cells);
    let split = fees::settle(bid, env.basefees, cycles, cells)
        .map_err(|e| StateFailure::Invariant(format!("timer settlement failed: {e}")))?;
    state.credit(&t.owner, split.refund)?;
    state.credit(&env.proposer, split.tip)?;
    exec.record_timer_work(cycles, cells, split.burned, split.tip);
    Ok(Run::Done(Receipt {
        success,
        cycles_used: cycles,
        cells_used: cells,
        fee_paid: split.fee + query_fee + t.bid_fees,
        return_data,
        events,
        error,
    }))
}

/// Step 5 for a system actor's own timer (`super::schedule_system`): its work was paid for
/// when it was set, so it runs with the `system_timer_*` limits, debits no one and pays no
/// tip, but it must fit the timer lane and the block like any other run, and its cycles and
/// cells count there.
fn run_system<E: Context>(
    state: &mut BlockState<'_, E>,
    exec: &mut BlockExecutor<'_>,
    t: &Timer,
) -> SResult<Run> {
    let p = exec.params();
    let (cycles_limit, cells_limit) = crate::system::lookup(&t.owner).map_or(
        (p.system_timer_cycles_limit, p.system_timer_cells_limit),
        |a| a.timer_limits(p, &t.handler),
    );
    let (room_cycles, room_cells) = exec.block_room();
    if exec.lanes.fits(Lane::Timer, cycles_limit).is_err()
        || cycles_limit > room_cycles
        || cells_limit > room_cells
    {
        return Ok(Run::Deferred { unpaid: false });
    }
    let called = call_handler(state, exec, t, cycles_limit, cells_limit)?;
    let (success, return_data, events, error) = (
        called.success,
        called.return_data,
        called.events,
        called.error,
    );
    let (cycles, cells) = (called.cycles, called.cells);
    exec.record_timer_work(cycles, cells, 0, 0);
    Ok(Run::Done(Receipt {
        success,
        cycles_used: cycles,
        cells_used: cells,
        fee_paid: 0,
        return_data,
        events,
        error,
    }))
}

/// What one timer handler call did: its receipt's parts and the cycles and cells it used.
struct Called {
    success: bool,
    return_data: Vec<u8>,
    events: Vec<Event>,
    error: Option<ExecError>,
    cycles: u64,
    cells: u64,
}

/// Call the timer's handler as its owner, sender `SCHEDULER`, under the given limits (the
/// schedule base already charged), keeping its writes on success and rolling them back on
/// failure. Shared by user timers (`run`) and system timers (`run_system`).
fn call_handler<E: Context>(
    state: &mut BlockState<'_, E>,
    exec: &mut BlockExecutor<'_>,
    t: &Timer,
    cycles_limit: u64,
    cells_limit: u64,
) -> SResult<Called> {
    let p = exec.params();
    let env = *exec.env();
    let mut meter = TxMeter::new(cycles_limit, cells_limit);
    let _ = meter.charge_cycles(p.timer_schedule_base_cycles);
    let _ = meter.charge_cells(p.timer_schedule_base_cells);
    let data = cbor::decode(&t.data).map_err(|_| corrupt("timer data"))?;
    let entry = Entry::Call {
        handler: t.handler.clone(),
        args: Value::Array(vec![data]),
    };
    let cp = state.checkpoint();
    let outcome = {
        let mut usage = std::mem::take(&mut exec.usage);
        let r = TxRun::new(p, &env, &mut usage).call(state, &mut meter, t.owner, SCHEDULER, entry);
        exec.usage = usage;
        r?
    };
    let (success, return_data, events, error) = match outcome {
        Ok(done) => {
            state.release(cp)?;
            exec.usage.burned += done.burned;
            (true, done.return_data, done.events, None)
        }
        Err(f) => {
            state.rollback(cp)?;
            (false, Vec::new(), Vec::new(), Some(error_of(f)))
        }
    };
    Ok(Called {
        success,
        return_data,
        events,
        error,
        cycles: meter.cycles(),
        cells: meter.cells(),
    })
}

fn error_of(f: Failure) -> ExecError {
    ExecError {
        class: f.class,
        message: f.message,
        line: u64::from(f.line.unwrap_or(0)),
    }
}

/// After a run: remove a one-shot timer (deposit back), re-arm an interval at its next
/// scheduled height after `h`. A timer its own handler cancelled is already gone.
fn finish(
    state: &mut dyn crate::system::SystemState,
    p: &GenesisParams,
    g: &Geometry,
    h: u64,
    id: u64,
) -> SResult<()> {
    let Some(mut t) = get(state, id)? else {
        return Ok(());
    };
    if t.loc != Loc::InFlight {
        // Its handler cancelled it and set a new timer that reused nothing: ids are unique,
        // so a queued record with this id is this timer re-queued, which cannot happen.
        return Err(corrupt("a running timer was queued by its own handler"));
    }
    if t.every == 0 {
        let before = Meta::load(state, p)?;
        let mut meta = before;
        remove(state, &mut meta, &t)?;
        meta.store(state, &before)?;
        return Ok(());
    }
    // Re-arm from the scheduled height, not from when it ran: the next d + k·every > h.
    let missed = (h + 1 - t.due.min(h)).div_ceil(t.every);
    t.due = t.due.saturating_add(missed.max(1).saturating_mul(t.every));
    t.deferrals = 0;
    t.unpaid = 0;
    t.bid_fees = 0;
    enqueue(state, g, h, &mut t)?;
    Ok(())
}

/// Step 6: roll `t` over to the next block, or drop it after too many unpaid blocks.
fn defer(
    state: &mut dyn crate::system::SystemState,
    p: &GenesisParams,
    h: u64,
    mut t: Timer,
    unpaid: bool,
    query_fee: u128,
) -> SResult<Option<TimerExecution>> {
    t.deferrals = t.deferrals.saturating_add(1);
    t.unpaid = if unpaid { t.unpaid + 1 } else { 0 };
    t.bid_fees = t.bid_fees.saturating_add(query_fee);
    if t.unpaid > p.timer_unpaid_deferrals_max {
        let before = Meta::load(state, p)?;
        let mut meta = before;
        remove(state, &mut meta, &t)?;
        meta.store(state, &before)?;
        let receipt = Receipt {
            success: false,
            cycles_used: 0,
            cells_used: 0,
            fee_paid: t.bid_fees,
            return_data: Vec::new(),
            // The scheduler's event, so subscribers to events learn of the drop too.
            events: vec![Event {
                emitter: SCHEDULER,
                topic: "TimerDropped".into(),
                data: cbor::encode(&Value::Map(vec![
                    (Value::Text("timer_id".into()), Value::Uint(t.id)),
                    (
                        Value::Text("owner".into()),
                        Value::Text(t.owner.to_checksum()),
                    ),
                    (Value::Text("deposit".into()), Value::from_u128(t.deposit)),
                ])),
            }],
            error: Some(ExecError {
                class: "TimerDropped".into(),
                message: format!(
                    "the owner could not pay for its timer in {} consecutive blocks; the \
                     deposit of {} wei was returned",
                    t.unpaid, t.deposit
                ),
                line: 0,
            }),
        };
        return Ok(Some(record(&t, receipt)));
    }
    let (loc, _) = queue::push(state, 1, h + 1, t.id)?;
    t.loc = loc;
    put(state, &t)?;
    Ok(None)
}
