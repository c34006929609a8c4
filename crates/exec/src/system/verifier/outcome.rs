//! Deciding a committed job from its reveals, settling it, and sending its continuation
//! (exec README lifecycle, "Formulas"; CIP-2 §4.3, §9; whitepaper §17.7).
//!
//! * **VERIFIED** (the mode's [`Verdict::Consensus`]): each winner `i` earns
//!   `a_i = min(price_i, cap)`, `price_i = base + per_token × min(tokens, max_tokens) + per_ms
//!   × min(wall_ms, max_wall_ms)` from its rate entry for the job, `cap = floor(max_price /
//!   M)`; of `a_i`, `floor(a_i × runner_fee_burn_bps / 10^4)` is burned (counted in the
//!   block's `burned`), `floor(a_i × job_fee_treasury_bps / 10^4)` goes to the treasury
//!   (`0x…08`) and the rest is the runner's side, of which its delegators' part
//!   (`pool_tokens / effective_stake`, less the runner's `commission_bps`) is added to its
//!   delegation pool ([`delegators_part`]). The tip is split equally among the winners, its
//!   remainder to the aggregator; the aggregator's bonus is `min(max_price ×
//!   aggregator_bonus_bps / 10^4, max_price − Σ a_i)`; everything else of the escrow is
//!   refunded to the submitter. Winners gain reputation (`Success`), the other committed
//!   runners (outvoted or missing) lose it (`InvalidResult`, −5). The continuation is armed as
//!   the verifier's own timer for the next block ([`send_continuation`]).
//! * **FAILED** ([`Verdict::NoConsensus`]): the whole escrow (tip included) is refunded; the
//!   committed runners that revealed nothing lose reputation. Runners that revealed valid but
//!   disagreeing results are not penalised: without a majority nobody is shown wrong.
//! * **FAILED by a fault** ([`Verdict::Fault`]: a majority reported the job impossible, an
//!   external fault or the actor's fault, [`super::fault`]): only the reporters are paid, pro
//!   rata by their progress or the minimum fee `job_min_fee_wei`, split as above; no tip and
//!   no bonus; the rest is refunded. Only the committed runners that revealed nothing lose
//!   reputation.
//! * Either way every committed runner is done with the job (`job_finished`) and the decision
//!   is stored under `["outcome", job_id]`; the job's record moves to `verified` or `failed`,
//!   so a late or second reveal, aggregate or finalization is refused or does nothing.
//!
//! In a self-aggregated job (no aggregate before the reveal deadline) there is no aggregator:
//! no bonus is paid and the tip's remainder is refunded.

use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::{JOB_DISPATCHER, RESULT_VERIFIER, RUNNER_REGISTRY, TREASURY};
use cowboy_types::{Address, Hash32};

use super::anomaly;
use super::fault::{Kind, Report};
use super::modes::{self, Verdict};
use super::reveal::{self, reveal_key, Reveal};
use super::sign::Usage;
use crate::system::dispatcher::job::{corrupt, Job, Status};
use crate::system::dispatcher::lifecycle::{counter_ops, penalty_ops, registered, with_registry};
use crate::system::dispatcher::spec::JobSpec;
use crate::system::runners::records::{addr_value, JobType, Profile, Stake};
use crate::system::runners::stake::{apply_reputation, job_finished, mul_div, RepEvent};
use crate::system::runners::store::{profile_key, stake_key};
use crate::system::{Call, CallError};
use crate::timers;

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

fn addrs(v: &[Address]) -> Value {
    Value::Array(v.iter().map(addr_value).collect())
}

/// `["outcome", job_id]` → the decision (`get_outcome`).
pub fn outcome_key(id: &Hash32) -> Vec<u8> {
    cbor::encode(&Value::Array(vec![
        t("outcome"),
        Value::Bytes(id.0.to_vec()),
    ]))
}

/// The cycles [`decide`] is charged for a committee of `m` (the mode's evaluation is charged
/// apart, by [`modes::cycles`]): per member a profile read, a reputation change and a counter;
/// per winner the stake's read and write and a payment to its pool (in the `move_from` and
/// `read_at`/`write_at` charges as they happen);
/// `m + 4` payments (two account writes each); the job, outcome and result records; a timer
/// (four writes); three events' base price.
pub fn decide_cycles(p: &GenesisParams, m: u64) -> u64 {
    // A profile read, a reputation change, a counter; as a winner a stake read and write and
    // a payment to its pool.
    let per_member =
        2 * p.storage_read_cycles + penalty_ops(p) + counter_ops(p) + 3 * p.storage_write_cycles;
    m.saturating_mul(per_member)
        .saturating_add(
            m.saturating_add(4)
                .saturating_mul(2 * p.storage_write_cycles),
        )
        .saturating_add(7 * p.storage_write_cycles)
        .saturating_add(3 * p.emit_event_cycles)
        .saturating_add(anomaly::hold_cycles(p))
}

/// The most a `finalize` timer run of a committee of `m` with results of at most
/// `max_return_bytes` can be charged: its base, the job read, `m` reveal reads, the mode over
/// `m` full results, and [`decide_cycles`]. The submitter prepays it; a job for which it
/// exceeds `system_timer_cycles_limit` is refused at submission.
pub fn finalize_cycles(
    p: &GenesisParams,
    rules: &modes::Rules,
    m: u64,
    max_return_bytes: u64,
) -> u64 {
    p.runner_call_cycles
        .saturating_add(m.saturating_add(1).saturating_mul(p.storage_read_cycles))
        .saturating_add(modes::cycles(
            p,
            rules,
            m,
            m.saturating_mul(max_return_bytes),
        ))
        .saturating_add(decide_cycles(p, m))
}

/// Winner `i`'s price for `usage` (clamped to the job's bounds) at its current rate card:
/// `None` on overflow (the cap applies), `Some(0)` when it no longer rates the job.
fn price(profile: &Profile, spec: &JobSpec, usage: Usage) -> Option<u128> {
    let model = if spec.job_type == JobType::Llm {
        spec.model
    } else {
        None
    };
    let Some(rate) = profile
        .rates
        .iter()
        .find(|x| x.job_type == spec.job_type && x.model == model)
    else {
        return Some(0);
    };
    let tokens = u128::from(usage.tokens.min(spec.max_tokens));
    let ms = u128::from(usage.wall_ms.min(spec.max_wall_ms));
    rate.base
        .checked_add(rate.per_token.checked_mul(tokens)?)?
        .checked_add(rate.per_ms.checked_mul(ms)?)
}

/// What a verified job paid, in wei.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settlement {
    /// Σ a_i.
    pub paid: u128,
    /// Burned (10 % of each a_i).
    pub burned: u128,
    /// To the treasury (1 % of each a_i).
    pub treasury: u128,
    /// Tip paid out (to winners and the aggregator).
    pub tip: u128,
    /// The aggregator's bonus.
    pub bonus: u128,
    /// Back to the submitter.
    pub refund: u128,
    /// Of the runners' side, added to their delegators' pools (part of `paid`).
    pub delegators: u128,
    /// Held for anomaly review (not part of `paid`; [`anomaly`]).
    pub held: u128,
}

/// The split of a payment `a`: (the runner's side, burned, to the treasury).
pub fn split(p: &GenesisParams, a: u128) -> (u128, u128, u128) {
    let burn = mul_div(a, u128::from(p.runner_fee_burn_bps), 10_000).unwrap_or(0);
    let treasury = mul_div(a, u128::from(p.job_fee_treasury_bps), 10_000).unwrap_or(0);
    (a - burn - treasury, burn, treasury)
}

/// Who, besides the paid runners' prices, a settlement rewards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reward {
    /// A decisive fault: no tip, no bonus (they reward a delivered result).
    Nothing,
    /// A self-aggregated result: the tip, shared by the winners.
    Tip,
    /// An aggregated result: the tip (its remainder to the aggregator) and the bonus.
    TipAndBonus,
}

/// The pure settlement arithmetic: `prices` are the paid runners' prices paid now, before
/// the cap; `held` is what is held for review on top of them (paid or refunded later).
pub fn settle_amounts(
    p: &GenesisParams,
    spec: &JobSpec,
    escrow: u128,
    prices: &[u128],
    held: u128,
    reward: Reward,
) -> (Vec<(u128, u128)>, Settlement) {
    let cap = spec.cap();
    let mut s = Settlement {
        held,
        ..Settlement::default()
    };
    let mut per = Vec::with_capacity(prices.len());
    for &x in prices {
        let a = x.min(cap);
        let (runner, burn, treasury) = split(p, a);
        s.paid += a;
        s.burned += burn;
        s.treasury += treasury;
        per.push((runner, 0));
    }
    let n = per.len() as u128;
    if reward == Reward::Nothing {
        s.refund = escrow - s.paid - s.held;
        return (per, s);
    }
    if let Some(share) = spec.tip.checked_div(n) {
        for x in &mut per {
            x.1 = share;
        }
        s.tip = share * n;
    }
    if reward == Reward::TipAndBonus {
        // The tip's remainder and the bonus go to the aggregator.
        s.tip = spec.tip;
        let bonus =
            mul_div(spec.max_price, u128::from(p.aggregator_bonus_bps), 10_000).unwrap_or(0);
        s.bonus = bonus.min(spec.max_price.saturating_sub(s.paid + s.held));
    }
    s.refund = escrow - s.paid - s.held - s.tip - s.bonus;
    (per, s)
}

/// Decide job `id` from `reveals` (checked, in committee order), settle it, store the
/// decision, and arm the continuation if it was verified. `aggregator` is the aggregate's
/// sender (none when self-aggregated).
pub fn decide(
    call: &mut Call<'_>,
    id: &Hash32,
    mut job: Job,
    spec: &JobSpec,
    reveals: &[Reveal],
    verdict: &Verdict,
    aggregator: Option<Address>,
) -> Result<(), CallError> {
    let p = call.params;
    let m = job.committed.len() as u64;
    call.charge(decide_cycles(p, m))?;
    let committed = job.committed.clone();
    // The paid: a result's winners, or a decisive fault's reporters.
    let winners: Vec<&Reveal> = verdict
        .winners()
        .iter()
        .filter_map(|&i| reveals.get(i))
        .collect();
    let verified = matches!(verdict, Verdict::Consensus(_));
    let fault = match verdict {
        Verdict::Fault(kind, _) => Some(*kind),
        _ => None,
    };
    let winner_addrs: Vec<Address> = winners.iter().map(|r| r.runner).collect();
    let revealed: Vec<Address> = reveals.iter().map(|r| r.runner).collect();
    // Who loses reputation: with a result, everyone committed but not among the winners;
    // without one (no consensus, or a fault), only those who revealed nothing.
    let faulty: Vec<Address> = committed
        .iter()
        .filter(|a| {
            if verified {
                !winner_addrs.contains(a)
            } else {
                !revealed.contains(a)
            }
        })
        .copied()
        .collect();
    let escrow = job.escrow;
    let mut settlement = Settlement {
        refund: escrow,
        ..Settlement::default()
    };
    let mut per = Vec::new();
    let mut commissions: Vec<u64> = Vec::new();
    let mut held: Vec<(Address, u128)> = Vec::new();
    if !winners.is_empty() {
        let usages: Vec<Usage> = winners.iter().map(|r| r.usage).collect();
        let expected = anomaly::expected(spec, &usages);
        let cap = spec.cap();
        let mut prices = Vec::with_capacity(winners.len());
        for r in &winners {
            commissions.push(0u64);
            let profile = match call.read_at(&RUNNER_REGISTRY, &profile_key(&r.runner))? {
                Some(b) => Some(Profile::from_value(
                    &cbor::decode(&b).map_err(|_| corrupt("profile not canonical CBOR"))?,
                )?),
                None => None,
            };
            if let Some(pr) = &profile {
                if let Some(c) = commissions.last_mut() {
                    *c = pr.commission_bps;
                }
            }
            // A forgotten runner (exited since) has no rate card: it is paid nothing.
            let at = |u: Usage| {
                profile
                    .as_ref()
                    .map(|pr| price(pr, spec, u).unwrap_or(u128::MAX))
                    .unwrap_or(0)
            };
            let full = at(r.usage).min(cap);
            // Over twice the expected usage: paid now for the bounded usage, the rest held.
            let rest = match anomaly::bounded(anomaly::clamped(spec, r.usage), &expected) {
                Some(b) => full - at(b).min(full),
                None => 0,
            };
            // The fault rows (`fault` module docs): pro rata by the reported progress, or the
            // minimum fee (nothing to a forgotten runner, as for a result).
            let (now, rest) = match (fault, Report::parse(&r.result)) {
                (Some(Kind::Actor), _) if profile.is_some() => (p.job_min_fee_wei.min(cap), 0),
                (Some(Kind::Actor), _) => (0, 0),
                (Some(_), Some(report)) => (report.pro_rata(full - rest), report.pro_rata(rest)),
                _ => (full - rest, rest),
            };
            if rest > 0 {
                held.push((r.runner, rest));
            }
            prices.push(now);
        }
        let held_total: u128 = held.iter().map(|x| x.1).sum();
        let reward = match (verified, aggregator) {
            (false, _) => Reward::Nothing,
            (true, None) => Reward::Tip,
            (true, Some(_)) => Reward::TipAndBonus,
        };
        let (p2, s) = settle_amounts(p, spec, escrow, &prices, held_total, reward);
        per = p2;
        settlement = s;
    }
    // Reputation and counters (charged in decide_cycles).
    with_registry(call, |raw| {
        for a in &committed {
            if !registered(raw, a)? {
                continue;
            }
            if verified && winner_addrs.contains(a) {
                apply_reputation(raw, a, RepEvent::Success)?;
            } else if faulty.contains(a) {
                apply_reputation(raw, a, RepEvent::InvalidResult)?;
            }
            job_finished(raw, a)?;
        }
        Ok(())
    })?;
    // Payments out of the dispatcher's escrow.
    for ((r, (runner, tip)), commission) in winners.iter().zip(&per).zip(&commissions) {
        let pool = delegators_part(call, &r.runner, *runner, *commission)?;
        settlement.delegators += pool;
        call.move_from(&JOB_DISPATCHER, Some(&RUNNER_REGISTRY), pool)?;
        call.move_from(&JOB_DISPATCHER, Some(&r.runner), runner - pool + tip)?;
    }
    call.move_from(&JOB_DISPATCHER, Some(&TREASURY), settlement.treasury)?;
    call.move_from(&JOB_DISPATCHER, None, settlement.burned)?;
    if let Some(agg) = aggregator {
        let share: u128 = per.iter().map(|x| x.1).sum();
        call.move_from(
            &JOB_DISPATCHER,
            Some(&agg),
            settlement.tip - share + settlement.bonus,
        )?;
    }
    call.move_from(&JOB_DISPATCHER, Some(&job.submitter), settlement.refund)?;

    job.escrow = settlement.held;
    if !held.is_empty() {
        anomaly::hold(call, id, &held)?;
    }
    job.status = if verified {
        Status::Verified
    } else {
        Status::Failed
    };
    job.selected = committed;
    reveal::store_job(call, id, &job)?;
    let height = call.env.height;
    let result_from = winners.first().filter(|_| verified).map(|r| r.runner);
    let record = Value::Map(vec![
        (t("status"), t(job.status.name())),
        (t("winners"), addrs(&winner_addrs)),
        (t("faulty"), addrs(&faulty)),
        (
            t("result_from"),
            result_from.as_ref().map_or(Value::Null, addr_value),
        ),
        (
            t("aggregator"),
            aggregator.as_ref().map_or(Value::Null, addr_value),
        ),
        (t("paid"), Value::from_u128(settlement.paid)),
        (t("burned"), Value::from_u128(settlement.burned)),
        (t("treasury"), Value::from_u128(settlement.treasury)),
        (t("tip"), Value::from_u128(settlement.tip)),
        (t("bonus"), Value::from_u128(settlement.bonus)),
        (t("refund"), Value::from_u128(settlement.refund)),
        (t("delegators"), Value::from_u128(settlement.delegators)),
        (t("held"), Value::from_u128(settlement.held)),
        (t("fault"), fault.map_or(Value::Null, |k| t(k.name()))),
        (t("height"), Value::Uint(height)),
    ]);
    call.write(&outcome_key(id), &cbor::encode(&record))?;
    if let Some(first) = winners.first().filter(|_| verified) {
        // The job's result, for the continuation and `get_result`: a self-revealed one is
        // stored already; an aggregate's is stored now, paid by the aggregator.
        if aggregator.is_some() {
            call.write(
                &reveal_key(id, &first.runner),
                &cbor::encode(&first.to_value()),
            )?;
        }
        arm_continuation(call, id)?;
        call.emit(
            "JobVerified",
            &Value::Map(vec![
                (t("job_id"), Value::Bytes(id.0.to_vec())),
                (t("winners"), addrs(&winner_addrs)),
                (t("outvoted"), addrs(&faulty)),
                (t("paid"), Value::from_u128(settlement.paid)),
                (t("burned"), Value::from_u128(settlement.burned)),
                (t("refund"), Value::from_u128(settlement.refund)),
                (t("held"), Value::from_u128(settlement.held)),
            ]),
        )?;
    } else {
        call.emit(
            "JobFailed",
            &Value::Map(vec![
                (t("job_id"), Value::Bytes(id.0.to_vec())),
                (t("reason"), t(fault.map_or("no_consensus", Kind::name))),
                (t("revealed"), addrs(&revealed)),
                (t("missing"), addrs(&faulty)),
                (t("paid"), Value::from_u128(settlement.paid)),
                (t("refund"), Value::from_u128(settlement.refund)),
            ]),
        )?;
    }
    Ok(())
}

/// The delegators' part of runner `who`'s side `r` (README Formulas "runner side"):
/// `d = floor(r × pool_tokens / effective_stake)`, of which the runner keeps
/// `floor(d × commission_bps / 10^4)`; the rest is added to its bonded pool's tokens (so every
/// delegator's shares gain value, O(1)) and returned, for the caller to move to the registry,
/// which holds the stake. Nothing when the runner has no delegators or no stake record.
/// Charged as a read and a write.
pub(super) fn delegators_part(
    call: &mut Call<'_>,
    who: &Address,
    r: u128,
    commission_bps: u64,
) -> Result<u128, CallError> {
    let key = stake_key(who);
    let Some(b) = call.read_at(&RUNNER_REGISTRY, &key)? else {
        return Ok(0);
    };
    let mut st = Stake::from_value(&cbor::decode(&b).map_err(|_| corrupt("stake"))?)?;
    if st.pool_shares == 0 || st.pool_tokens == 0 {
        return Ok(0);
    }
    let d = mul_div(r, st.pool_tokens, st.effective()).unwrap_or(0);
    let kept = mul_div(d, u128::from(commission_bps.min(10_000)), 10_000).unwrap_or(0);
    let pool = d - kept;
    if pool == 0 {
        return Ok(0);
    }
    st.pool_tokens = st.pool_tokens.saturating_add(pool);
    call.write_at(&RUNNER_REGISTRY, &key, &cbor::encode(&st.to_value()))?;
    Ok(pool)
}

/// Arm `continue([job_id])` for the next block: the callback runs in its own timer run, so a
/// callback that fails cannot undo the settlement, and it runs exactly once (a one-shot timer).
fn arm_continuation(call: &mut Call<'_>, id: &Hash32) -> Result<(), CallError> {
    let p = call.params;
    call.charge(4 * p.storage_write_cycles)?;
    let h = call.env.height;
    let data = Value::Array(vec![Value::Bytes(id.0.to_vec())]);
    let (_, written) = timers::schedule_system(
        &mut *call.state,
        p,
        h,
        RESULT_VERIFIER,
        h.saturating_add(1),
        "continue",
        &data,
    )?;
    call.charge_millicells(u128::from(p.state_write_cells_per_byte) * u128::from(written) * 1000)
}

/// `continue([job_id])`, the verifier's timer: send `handler(job_id, result)` to the job's
/// callback actor, from the verifier. A callback actor with no code (an account, or an actor
/// gone) gets nothing. The run's limits are `job_callback_cycles` / `job_callback_cells`,
/// prepaid at submission.
pub fn send_continuation(call: &mut Call<'_>, id: &Hash32) -> Result<Value, CallError> {
    let Some(job) = reveal::load_job(call, id)? else {
        return Err(corrupt("continuation for no job"));
    };
    if job.status != Status::Verified {
        return Ok(Value::Null);
    }
    let Some(b) = call.read(&outcome_key(id))? else {
        return Err(corrupt("verified job without outcome"));
    };
    let o = cbor::decode(&b).map_err(|_| corrupt("outcome"))?;
    let from = crate::system::runners::records::Fields::of(&o)
        .and_then(|f| f.get("result_from"))
        .and_then(crate::system::runners::records::address_of)
        .ok_or_else(|| corrupt("outcome"))?;
    let result =
        reveal::load(call, id, &from)?.ok_or_else(|| corrupt("verified job without result"))?;
    let spec = crate::system::dispatcher::spec_of(&job, call.params)?;
    let (actor, handler) = spec.callback;
    call.charge(call.params.storage_read_cycles)?;
    if call.state.account(&actor)?.code_hash.is_none() {
        return Ok(Value::Null);
    }
    call.send(
        actor,
        &handler,
        Value::Array(vec![
            Value::Bytes(id.0.to_vec()),
            Value::Bytes(result.result),
        ]),
    );
    Ok(Value::Null)
}

/// `finalize([job_id])`, the verifier's timer after the reveal deadline: if the job is still
/// committed (no aggregate came), decide it with the runners' own reveals.
pub fn finalize(call: &mut Call<'_>, id: &Hash32) -> Result<Value, CallError> {
    let Some(job) = reveal::load_job(call, id)? else {
        return Ok(Value::Null);
    };
    if job.status != Status::Committed {
        return Ok(Value::Null);
    }
    let spec = crate::system::dispatcher::spec_of(&job, call.params)?;
    let mut reveals = Vec::new();
    for a in job.committed.clone() {
        if let Some(r) = reveal::load(call, id, &a)? {
            reveals.push(r);
        }
    }
    let total: u64 = reveals.iter().map(|r| r.result.len() as u64).sum();
    call.charge(modes::cycles(
        call.params,
        &spec.rules,
        reveals.len() as u64,
        total,
    ))?;
    let results: Vec<&[u8]> = reveals.iter().map(|r| r.result.as_slice()).collect();
    let verdict = modes::verdict(
        &spec.rules,
        spec.format,
        &results,
        call.env.timestamp_ms / 1000,
        spec.need(),
    );
    decide(call, id, job, &spec, &reveals, &verdict, None)?;
    Ok(Value::Null)
}
