//! A job's life after submission (exec README lifecycle diagram): assigning a committee (the
//! registry's `active_jobs`, the deadline timer), the deadline (penalties, exclusion, top-up
//! from the snapshot with the retry seed, or failure with a full refund), and the commit hook
//! the verifier (slice 3) will call.
//!
//! The deadline is a native timer owned by the dispatcher (`timers::schedule_system`): it runs
//! `deadline([job_id, attempt])` with the scheduler as sender, in the timer lane, in the first
//! block at or after the deadline with room. A deadline that finds its job in another state
//! or attempt (all committed early, or a stale attempt) does nothing. Commits are judged by
//! height against the stored `deadline`, never by whether the timer has run yet.
//!
//! **Metering.** Registry updates go through `store::Raw` (unmetered) and are charged here
//! per update as [`penalty_ops`] or [`counter_ops`], before they are made. The
//! deadline's worst case is prepaid by the submitter ([`deadline_prepay`]), since the timer's
//! run debits no one; the run itself is metered against `system_timer_cycles_limit`.

use cowboy_types::cbor::{self, Value};
use cowboy_types::entitlement::{Action, Scope};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::{
    ENTITLEMENT_REGISTRY, JOB_DISPATCHER, RESULT_VERIFIER, RUNNER_REGISTRY, SCHEDULER,
};
use cowboy_types::{Address, Hash32};

use super::error::DispatchError;
use super::job::{candidates_key, corrupt, job_key, snapshot_from, Candidate, Job, Status};
use super::select::{aggregator, retry_seed, select};
use super::spec::JobSpec;
use crate::system::entitlements::store::{self as ent_store, LOOKUP_READS, MAX_CHAIN};
use crate::system::runners::records::addr_value;
use crate::system::runners::stake::{
    apply_reputation, job_finished, job_started, load_rep, RepEvent,
};
use crate::system::runners::store::Raw;
use crate::system::{Call, CallError, SystemState};
use crate::timers;

/// Cycles charged for one penalty (`apply_reputation` and `job_finished`): at worst four
/// record reads (the registration check, the reputation twice, a non-response slash's stake)
/// and five writes (the reputation twice, the stake and two balances).
pub fn penalty_ops(p: &GenesisParams) -> u64 {
    4 * p.storage_read_cycles + 5 * p.storage_write_cycles
}

/// Cycles charged for one counter update (`job_started` or `job_finished` after the
/// registration check): two reads and a write.
pub fn counter_ops(p: &GenesisParams) -> u64 {
    2 * p.storage_read_cycles + p.storage_write_cycles
}

/// Cycles charged for spending one use of a selected runner's pool membership: the
/// entitlement lookup's reads, a write per record of its delegation chain, and the
/// `EntitlementUsed` event.
pub fn pool_use_cycles(p: &GenesisParams) -> u64 {
    LOOKUP_READS * p.storage_read_cycles + MAX_CHAIN * p.storage_write_cycles + p.emit_event_cycles
}

/// The cycles one deadline can charge at most, for a snapshot of `c` candidates and a
/// committee of `m` (`pooled`: the job names a runner pool): its base, two record reads, a
/// penalty and an assignment per member (and a pool use), a re-selection (`c × m`), the
/// timer and job writes (a deadline or the verifier's finalization) and its events.
pub fn deadline_cycles(p: &GenesisParams, c: u64, m: u64, pooled: bool) -> u64 {
    let pool_use = if pooled { pool_use_cycles(p) } else { 0 };
    let per_member = penalty_ops(p) + counter_ops(p) + pool_use;
    p.runner_call_cycles
        .saturating_add(2 * p.storage_read_cycles)
        .saturating_add(m.saturating_mul(per_member))
        .saturating_add(c.saturating_mul(m))
        .saturating_add(8 * p.storage_write_cycles)
        .saturating_add(4 * p.emit_event_cycles)
}

/// The last height at which a committed job's results may be revealed: the aggregator's
/// window, then the self-aggregation window, each `aggregator_timeout_blocks` long.
pub fn reveal_deadline(p: &GenesisParams, committed_at: u64) -> u64 {
    committed_at.saturating_add(p.aggregator_timeout_blocks.saturating_mul(2))
}

/// Cycles [`arm_finalize`] is charged: four writes, as [`arm`].
pub fn arm_finalize_cycles(p: &GenesisParams) -> u64 {
    4 * p.storage_write_cycles
}

/// The job just became committed at `height`: arm the verifier's `finalize([job_id])` for the
/// block after the reveal deadline (it settles with whatever was revealed if the aggregator
/// never submitted). Unmetered: returns the bytes written for the caller to charge as
/// cells, and the caller charges [`arm_finalize_cycles`] before.
pub fn arm_finalize(
    state: &mut dyn SystemState,
    p: &GenesisParams,
    height: u64,
    id: &Hash32,
    job: &mut Job,
) -> Result<u64, CallError> {
    job.status = Status::Committed;
    job.committed_at = height;
    let due = reveal_deadline(p, height).saturating_add(1);
    let data = Value::Array(vec![Value::Bytes(id.0.to_vec())]);
    let (timer_id, written) =
        timers::schedule_system(state, p, height, RESULT_VERIFIER, due, "finalize", &data)?;
    job.timer_id = timer_id;
    Ok(written)
}

/// What a submission prepays for its deadlines: `(runner_max_retries + 1) ×`
/// [`deadline_cycles`].
pub fn deadline_prepay(p: &GenesisParams, c: u64, m: u64, pooled: bool) -> u64 {
    p.runner_max_retries
        .saturating_add(1)
        .saturating_mul(deadline_cycles(p, c, m, pooled))
}

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

fn addrs(v: &[Address]) -> Value {
    Value::Array(v.iter().map(addr_value).collect())
}

/// Run `f` on the registry through `Raw`, then move its events into the call's.
pub(crate) fn with_registry<R>(
    call: &mut Call<'_>,
    f: impl FnOnce(&mut Raw<'_>) -> Result<R, CallError>,
) -> Result<R, CallError> {
    let mut raw = Raw {
        me: RUNNER_REGISTRY,
        state: &mut *call.state,
        params: call.params,
        height: call.env.height,
        events: Vec::new(),
    };
    let r = f(&mut raw)?;
    let events = std::mem::take(&mut raw.events);
    call.events.extend(events);
    Ok(r)
}

/// Read the job `id` (metered).
pub fn load(call: &mut Call<'_>, id: &Hash32) -> Result<Option<Job>, CallError> {
    match call.read(&job_key(id))? {
        None => Ok(None),
        Some(b) => {
            let v = cbor::decode(&b).map_err(|_| corrupt("job not canonical CBOR"))?;
            Job::from_value(&v).map(Some)
        }
    }
}

/// Write the job `id` (metered).
pub fn store(call: &mut Call<'_>, id: &Hash32, job: &Job) -> Result<(), CallError> {
    call.write(&job_key(id), &cbor::encode(&job.to_value()))
}

/// The committee's aggregator from the snapshot's reputations.
pub fn aggregator_of(selected: &[Address], snapshot: &[Candidate]) -> Address {
    let committee: Vec<(Address, u64)> = selected
        .iter()
        .map(|a| {
            let rep = snapshot
                .binary_search_by_key(&a.0, |c| c.address.0)
                .map_or(0, |i| snapshot[i].reputation);
            (*a, rep)
        })
        .collect();
    aggregator(&committee).unwrap_or(Address([0; 20]))
}

/// Count `picks` as assigned in the registry (charged [`counter_ops`] each) and, for a job
/// restricted to runner pool `pool`, spend one use of each pick's membership.
fn start_jobs(
    call: &mut Call<'_>,
    picks: &[Address],
    pool: Option<&[u8]>,
) -> Result<(), CallError> {
    call.charge(counter_ops(call.params).saturating_mul(picks.len() as u64))?;
    with_registry(call, |raw| {
        for a in picks {
            if registered(raw, a)? {
                job_started(raw, a)?;
            }
        }
        Ok(())
    })?;
    if let Some(pool) = pool {
        spend_pool_uses(call, picks, pool)?;
    }
    Ok(())
}

/// Spend one use (of amount 0) of each pick's `RunnerJoinPool(pool)` membership that is
/// bounded in uses (CIP-2 §7.3: an unbounded membership is checked, never spent), through
/// the entitlement registry's consume path: on the record and every ancestor, with its
/// `EntitlementUsed` event. Charged [`pool_use_cycles`] per pick before, and the bytes
/// written as cells after. The committee is drawn from the snapshot fixed at submission, so
/// a pick whose use can no longer be spent (spent elsewhere since, or a chain shared with
/// another pick of this committee) still serves; its use is simply not counted.
fn spend_pool_uses(call: &mut Call<'_>, picks: &[Address], pool: &[u8]) -> Result<(), CallError> {
    let p = call.params;
    call.charge(pool_use_cycles(p).saturating_mul(picks.len() as u64))?;
    let scope = Scope::RunnerPool(pool.to_vec());
    let action = Action::RunnerJoinPool(pool.to_vec());
    let height = call.env.height;
    let mut raw = Raw {
        me: ENTITLEMENT_REGISTRY,
        state: &mut *call.state,
        params: p,
        height,
        events: Vec::new(),
    };
    let mut written = 0u64;
    for a in picks {
        let Some(chain) = ent_store::lookup_chain(&mut raw, a, &scope, &action, height)? else {
            continue;
        };
        if !ent_store::counts_uses(&chain) {
            continue;
        }
        let bytes: u64 = chain.iter().map(ent_store::stored_bytes).sum();
        if ent_store::use_chain(&mut raw, chain, 0)?.is_ok() {
            written = written.saturating_add(bytes);
        }
    }
    let events = std::mem::take(&mut raw.events);
    call.events.extend(events);
    call.charge_millicells(u128::from(p.state_write_cells_per_byte) * u128::from(written) * 1000)
}

/// Whether `runner` still has registry records. A snapshot runner may have exited and been
/// forgotten since the submission (only possible when unbonding is shorter than a job's
/// deadlines); it is still picked (the draw is over the fixed snapshot) but has no counters
/// to update and no reputation to lose, and it will not commit.
pub(crate) fn registered(raw: &mut Raw<'_>, runner: &Address) -> Result<bool, CallError> {
    Ok(load_rep(raw, runner)?.is_some())
}

/// Arm the deadline of `job` (attempt `job.attempt`) at `job.deadline`; charged as four
/// writes and a cell per byte written.
pub fn arm(call: &mut Call<'_>, id: &Hash32, job: &mut Job) -> Result<(), CallError> {
    let p = call.params;
    call.charge(4 * p.storage_write_cycles)?;
    let data = Value::Array(vec![Value::Bytes(id.0.to_vec()), Value::Uint(job.attempt)]);
    let (timer_id, written) = timers::schedule_system(
        &mut *call.state,
        p,
        call.env.height,
        JOB_DISPATCHER,
        job.deadline,
        "deadline",
        &data,
    )?;
    job.timer_id = timer_id;
    call.charge_millicells(u128::from(p.state_write_cells_per_byte) * u128::from(written) * 1000)
}

/// Emit `JobAssigned` for the current committee.
pub fn emit_assigned(call: &mut Call<'_>, id: &Hash32, job: &Job) -> Result<(), CallError> {
    call.emit(
        "JobAssigned",
        &Value::Map(vec![
            (t("job_id"), Value::Bytes(id.0.to_vec())),
            (t("attempt"), Value::Uint(job.attempt)),
            (t("runners"), addrs(&job.selected)),
            (t("aggregator"), addr_value(&job.aggregator)),
            (t("deadline"), Value::Uint(job.deadline)),
        ]),
    )
}

/// Assign the first committee of a new job (registry counters; the caller arms and stores).
pub fn assign_first(
    call: &mut Call<'_>,
    selected: &[Address],
    spec: &JobSpec,
) -> Result<(), CallError> {
    start_jobs(call, selected, spec.pool.as_deref())
}

/// `deadline([job_id, attempt])`, from the scheduler's timer.
pub fn deadline(call: &mut Call<'_>, data: &Value) -> Result<Value, CallError> {
    if call.sender != SCHEDULER {
        return Err(DispatchError::NotScheduler(call.sender).into());
    }
    let (id, attempt) = match data {
        Value::Array(x) => match x.as_slice() {
            [Value::Bytes(b), Value::Uint(a)] if b.len() == 32 => {
                let mut h = [0u8; 32];
                h.copy_from_slice(b);
                Some((Hash32(h), *a))
            }
            _ => None,
        },
        _ => None,
    }
    .ok_or_else(|| corrupt("deadline timer data"))?;
    let Some(mut job) = load(call, &id)? else {
        return Ok(Value::Null);
    };
    if job.status != Status::Assigned || job.attempt != attempt {
        // Settled before its deadline (every member committed): nothing to do.
        return Ok(Value::Null);
    }
    let spec = super::spec_of(&job, call.params)?;
    let non: Vec<Address> = job
        .selected
        .iter()
        .filter(|a| !job.committed.contains(a))
        .copied()
        .collect();
    let committed = job.committed.clone();
    let need = spec.need();
    let last = job.attempt >= call.params.runner_max_retries;
    let enough = committed.len() as u64 >= need;
    // Non-committers: −timeout (−SLASH_THRESHOLD at the last attempt's failure), done with
    // this job either way.
    let event = if !enough && last {
        RepEvent::NonResponder
    } else {
        RepEvent::Timeout
    };
    call.charge(penalty_ops(call.params).saturating_mul(non.len() as u64))?;
    let slashed = with_registry(call, |raw| {
        let mut burned = 0u128;
        for a in &non {
            if registered(raw, a)? {
                let change = apply_reputation(raw, a, event)?;
                // A persistent non-responder's stake slash is burned: the block's tally.
                burned += change.slashed.map_or(0, |s| s.taken);
                job_finished(raw, a)?;
            }
        }
        Ok(burned)
    })?;
    *call.burned = call.burned.saturating_add(slashed);
    if enough {
        if !committed.contains(&job.aggregator) {
            // The aggregator timed out: the committed member with the highest reputation in
            // the snapshot takes over, by the same rule.
            let raw = call
                .read(&candidates_key(&id))?
                .ok_or_else(|| corrupt("job without snapshot"))?;
            let snapshot = snapshot_from(
                &cbor::decode(&raw).map_err(|_| corrupt("snapshot not canonical CBOR"))?,
            )?;
            job.aggregator = aggregator_of(&committed, &snapshot);
        }
        job.selected = committed;
        call.charge(arm_finalize_cycles(call.params))?;
        let height = call.env.height;
        let written = arm_finalize(&mut *call.state, call.params, height, &id, &mut job)?;
        call.charge_millicells(
            u128::from(call.params.state_write_cells_per_byte) * u128::from(written) * 1000,
        )?;
        store(call, &id, &job)?;
        call.emit(
            "JobCommitted",
            &Value::Map(vec![
                (t("job_id"), Value::Bytes(id.0.to_vec())),
                (t("runners"), addrs(&job.selected)),
                (t("timed_out"), addrs(&non)),
            ]),
        )?;
        return Ok(Value::Null);
    }
    job.excluded.extend(non.iter().copied());
    if last {
        return fail(call, &id, job, &non);
    }
    retry(call, &id, job, &spec, &non)
}

/// Top the committee up to M from the snapshot (minus the excluded and the kept), with the
/// retry seed of attempt + 1.
fn retry(
    call: &mut Call<'_>,
    id: &Hash32,
    mut job: Job,
    spec: &JobSpec,
    timed_out: &[Address],
) -> Result<Value, CallError> {
    let raw = call
        .read(&candidates_key(id))?
        .ok_or_else(|| corrupt("job without snapshot"))?;
    let snapshot =
        snapshot_from(&cbor::decode(&raw).map_err(|_| corrupt("snapshot not canonical CBOR"))?)?;
    let kept = job.committed.clone();
    let remaining: Vec<(Address, u64)> = snapshot
        .iter()
        .filter(|c| !job.excluded.contains(&c.address) && !kept.contains(&c.address))
        .map(|c| (c.address, c.weight))
        .collect();
    let want = spec.runners.saturating_sub(kept.len() as u64);
    call.charge((snapshot.len() as u64).saturating_mul(want.saturating_add(1)))?;
    let next = job.attempt + 1;
    let s = retry_seed(&job.seed, u32::try_from(next).unwrap_or(u32::MAX));
    let picks = select(&remaining, &s, usize::try_from(want).unwrap_or(usize::MAX));
    if ((kept.len() + picks.len()) as u64) < spec.need() {
        return fail(call, id, job, timed_out);
    }
    start_jobs(call, &picks, spec.pool.as_deref())?;
    job.selected = kept.into_iter().chain(picks).collect();
    job.aggregator = aggregator_of(&job.selected, &snapshot);
    job.attempt = next;
    job.assigned_at = call.env.height;
    job.deadline = call.env.height.saturating_add(spec.timeout_blocks);
    arm(call, id, &mut job)?;
    store(call, id, &job)?;
    emit_assigned(call, id, &job)?;
    Ok(Value::Null)
}

/// FAILED: refund the whole escrow to the submitter; the committed members are done with it.
fn fail(
    call: &mut Call<'_>,
    id: &Hash32,
    mut job: Job,
    timed_out: &[Address],
) -> Result<Value, CallError> {
    let done: Vec<Address> = job.committed.clone();
    call.charge(counter_ops(call.params).saturating_mul(done.len() as u64))?;
    with_registry(call, |raw| {
        for a in &done {
            if registered(raw, a)? {
                job_finished(raw, a)?;
            }
        }
        Ok(())
    })?;
    let refund = job.escrow;
    job.escrow = 0;
    job.status = Status::Failed;
    job.selected.clear();
    store(call, id, &job)?;
    call.pay(&job.submitter, refund)?;
    call.emit(
        "JobFailed",
        &Value::Map(vec![
            (t("job_id"), Value::Bytes(id.0.to_vec())),
            (t("attempt"), Value::Uint(job.attempt)),
            (t("refund"), Value::from_u128(refund)),
            (t("timed_out"), addrs(timed_out)),
        ]),
    )?;
    Ok(Value::Null)
}

/// Why [`record_commit`] refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommitRefused {
    /// No such job.
    NoSuchJob,
    /// The job is not waiting for commits.
    NotAssigned,
    /// Past the committee's deadline.
    Late {
        /// The deadline.
        deadline: u64,
    },
    /// The runner is not on the current committee.
    NotSelected,
    /// The runner already committed.
    AlreadyCommitted,
}

/// For the verifier: record that `runner` committed to job `id` at `height`. When the whole
/// committee has committed, the job moves to committed, its deadline timer is cancelled and
/// the verifier's finalization is armed ([`arm_finalize`]). Unmetered: the verifier's commit
/// handler charges for it (a job read and write, a timer cancel, [`arm_finalize_cycles`]);
/// returns the status and the bytes the finalization timer wrote (for cells).
pub fn record_commit(
    state: &mut dyn SystemState,
    p: &GenesisParams,
    height: u64,
    id: &Hash32,
    runner: &Address,
) -> Result<Result<(Status, u64), CommitRefused>, CallError> {
    let Some(raw) = state.storage(&JOB_DISPATCHER, &job_key(id))? else {
        return Ok(Err(CommitRefused::NoSuchJob));
    };
    let v = cbor::decode(&raw).map_err(|_| corrupt("job not canonical CBOR"))?;
    let mut job = Job::from_value(&v)?;
    if job.status != Status::Assigned {
        return Ok(Err(CommitRefused::NotAssigned));
    }
    if height > job.deadline {
        return Ok(Err(CommitRefused::Late {
            deadline: job.deadline,
        }));
    }
    if !job.selected.contains(runner) {
        return Ok(Err(CommitRefused::NotSelected));
    }
    if job.committed.contains(runner) {
        return Ok(Err(CommitRefused::AlreadyCommitted));
    }
    job.committed.push(*runner);
    let mut written = 0;
    if job.committed.len() == job.selected.len() {
        if let Err(r) = timers::cancel(state, p, &JOB_DISPATCHER, job.timer_id)? {
            return Err(CallError::State(crate::state::StateFailure::Invariant(
                format!("job deadline timer: {}", r.message),
            )));
        }
        written = arm_finalize(state, p, height, id, &mut job)?;
    }
    state.set_storage(
        &JOB_DISPATCHER,
        &job_key(id),
        &cbor::encode(&job.to_value()),
    )?;
    Ok(Ok((job.status, written)))
}
