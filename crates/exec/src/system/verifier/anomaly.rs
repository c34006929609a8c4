//! Anomaly review (whitepaper §5 "Runner Resource Accounting": reported usage is trusted by
//! default, "subject to reputation scoring and anomaly detection (>2× expected usage
//! triggers automatic review)"). The spec gives the trigger only; every rule here is a
//! *choice*, written in the exec README ("Anomaly review").
//!
//! * **Expected usage** of a verified job, per dimension, from public data alone: with two or
//!   more winners, the lower median of the winners' reported usage (each clamped to the
//!   job's bounds) — the committee's own measure of the same work, which one inflating
//!   runner cannot move; with one winner, the job's declared
//!   `result_schema.expected_execution_ms` for time and no expectation for tokens (a job
//!   declares none).
//! * A winner is **flagged** when its tokens or its wall time exceed twice the expectation.
//!   It is paid at once for its usage with each dimension bounded at twice the expectation;
//!   the rest of its price (its `a_i` less that bounded price) is **held** in the escrow.
//! * **Review** is the challenge window: a proven challenge against the runner (the
//!   equivocation proof, the one the chain judges; its signed usage is part of it) refunds
//!   its held amount to the submitter; otherwise the verifier's `release` timer, the block
//!   after the window closes, pays it as any payment (10 % burned, 1 % treasury, the runner's
//!   side with its delegators' part). Either way the escrow ends empty.

use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::{JOB_DISPATCHER, RESULT_VERIFIER, RUNNER_REGISTRY};
use cowboy_types::{Address, Hash32};

use super::outcome::{delegators_part, split};
use super::reveal;
use super::sign::Usage;
use crate::system::dispatcher::job::corrupt;
use crate::system::dispatcher::spec::JobSpec;
use crate::system::runners::records::{addr_value, address_of, Profile};
use crate::system::runners::store::profile_key;
use crate::system::{Call, CallError};
use crate::timers;

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

/// What a verified job's runners are expected to have used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    /// Tokens (`None`: no expectation).
    pub tokens: Option<u64>,
    /// Wall-clock milliseconds.
    pub wall_ms: u64,
}

/// `u` clamped to the job's bounds (what settlement prices).
pub fn clamped(spec: &JobSpec, u: Usage) -> Usage {
    Usage {
        tokens: u.tokens.min(spec.max_tokens),
        wall_ms: u.wall_ms.min(spec.max_wall_ms),
    }
}

/// The expected usage of a job whose winners reported `winners` (module docs).
pub fn expected(spec: &JobSpec, winners: &[Usage]) -> Expected {
    if winners.len() < 2 {
        return Expected {
            tokens: None,
            wall_ms: spec.expected_ms,
        };
    }
    let lower_median = |mut v: Vec<u64>| {
        v.sort_unstable();
        v[(v.len() - 1) / 2]
    };
    Expected {
        tokens: Some(lower_median(
            winners.iter().map(|u| clamped(spec, *u).tokens).collect(),
        )),
        wall_ms: lower_median(winners.iter().map(|u| clamped(spec, *u).wall_ms).collect()),
    }
}

/// For a flagged usage (a dimension over twice the expectation), the usage paid at once:
/// each dimension bounded at twice the expectation. `None` when not flagged.
pub fn bounded(u: Usage, e: &Expected) -> Option<Usage> {
    let tokens_max = e.tokens.map(|x| x.saturating_mul(2));
    let wall_max = e.wall_ms.saturating_mul(2);
    let over = tokens_max.is_some_and(|m| u.tokens > m) || u.wall_ms > wall_max;
    over.then(|| Usage {
        tokens: tokens_max.map_or(u.tokens, |m| u.tokens.min(m)),
        wall_ms: u.wall_ms.min(wall_max),
    })
}

/// `["held", job_id]` → `[[runner, amount]]`: the amounts held for review, in committee order.
pub fn held_key(id: &Hash32) -> Vec<u8> {
    cbor::encode(&Value::Array(vec![t("held"), Value::Bytes(id.0.to_vec())]))
}

fn encode(held: &[(Address, u128)]) -> Vec<u8> {
    cbor::encode(&Value::Array(
        held.iter()
            .map(|(a, x)| Value::Array(vec![addr_value(a), Value::from_u128(*x)]))
            .collect(),
    ))
}

/// The amounts held for job `id` (empty when none).
pub fn load(call: &mut Call<'_>, id: &Hash32) -> Result<Vec<(Address, u128)>, CallError> {
    let Some(b) = call.read(&held_key(id))? else {
        return Ok(Vec::new());
    };
    let Ok(Value::Array(items)) = cbor::decode(&b) else {
        return Err(corrupt("held amounts"));
    };
    items
        .iter()
        .map(|e| match e {
            Value::Array(x) => match x.as_slice() {
                [a, v] => Some((address_of(a)?, v.as_u128()?)),
                _ => None,
            },
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| corrupt("held amounts"))
}

/// Cycles [`hold`] does beyond its metered write: the timer's four writes. Part of the
/// decision's charge (`outcome::decide_cycles`).
pub fn hold_cycles(p: &GenesisParams) -> u64 {
    4 * p.storage_write_cycles
}

/// Hold `held` (non-empty, each amount > 0) of job `id`, decided at the call's height, and
/// arm `release([job_id])` for the block after the challenge window closes.
pub fn hold(call: &mut Call<'_>, id: &Hash32, held: &[(Address, u128)]) -> Result<(), CallError> {
    let p = call.params;
    call.write(&held_key(id), &encode(held))?;
    let h = call.env.height;
    let due = h
        .saturating_add(p.blocks_for_secs(p.challenge_window_secs))
        .saturating_add(1);
    let data = Value::Array(vec![Value::Bytes(id.0.to_vec())]);
    let (_, written) = timers::schedule_system(
        &mut *call.state,
        p,
        h,
        RESULT_VERIFIER,
        due,
        "release",
        &data,
    )?;
    call.charge_millicells(u128::from(p.state_write_cells_per_byte) * u128::from(written) * 1000)
}

/// The most a `release` run of a committee of `m` is charged: its base, the held record's
/// read and delete, the job's read and write, per runner a profile read, the delegators'
/// stake read and write and four payments, and an event. Prepaid at submission.
pub fn release_cycles(p: &GenesisParams, m: u64) -> u64 {
    let per_runner =
        2 * p.storage_read_cycles + p.storage_write_cycles + 8 * p.storage_write_cycles;
    p.runner_call_cycles
        .saturating_add(4 * p.storage_read_cycles + 2 * p.storage_write_cycles)
        .saturating_add(m.saturating_mul(per_runner))
        .saturating_add(p.emit_event_cycles)
}

/// A proven challenge against `runner` on job `id`: its held amount (if any) goes back to the
/// submitter. Returns the amount refunded. Charged by the challenge (a read, two writes,
/// a payment).
pub fn refund(call: &mut Call<'_>, id: &Hash32, runner: &Address) -> Result<u128, CallError> {
    let mut held = load(call, id)?;
    let Some(slot) = held.iter_mut().find(|(a, x)| a == runner && *x > 0) else {
        return Ok(0);
    };
    let amount = std::mem::take(&mut slot.1);
    call.write(&held_key(id), &encode(&held))?;
    let mut job = reveal::load_job(call, id)?.ok_or_else(|| corrupt("held for no job"))?;
    job.escrow -= amount;
    reveal::store_job(call, id, &job)?;
    call.move_from(&JOB_DISPATCHER, Some(&job.submitter), amount)?;
    Ok(amount)
}

/// `release([job_id])`, the verifier's timer after the challenge window: pay every amount
/// still held, split as any payment, and empty the job's escrow.
pub fn release(call: &mut Call<'_>, id: &Hash32) -> Result<Value, CallError> {
    let held = load(call, id)?;
    if held.is_empty() {
        return Ok(Value::Null);
    }
    let p = call.params;
    let mut job = reveal::load_job(call, id)?.ok_or_else(|| corrupt("held for no job"))?;
    let (mut paid, mut burned, mut treasury) = (0u128, 0u128, 0u128);
    for (runner, amount) in &held {
        if *amount == 0 {
            continue;
        }
        let commission = match call.read_at(&RUNNER_REGISTRY, &profile_key(runner))? {
            Some(b) => {
                let v = cbor::decode(&b).map_err(|_| corrupt("profile not canonical CBOR"))?;
                Profile::from_value(&v)?.commission_bps
            }
            None => 0,
        };
        let (side, burn, fee) = split(p, *amount);
        let pool = delegators_part(call, runner, side, commission)?;
        call.move_from(&JOB_DISPATCHER, Some(&RUNNER_REGISTRY), pool)?;
        call.move_from(&JOB_DISPATCHER, Some(runner), side - pool)?;
        call.move_from(&JOB_DISPATCHER, Some(&cowboy_types::system::TREASURY), fee)?;
        call.move_from(&JOB_DISPATCHER, None, burn)?;
        paid += amount;
        burned += burn;
        treasury += fee;
    }
    job.escrow -= paid;
    reveal::store_job(call, id, &job)?;
    call.delete(&held_key(id))?;
    call.emit(
        "HeldReleased",
        &Value::Map(vec![
            (t("job_id"), Value::Bytes(id.0.to_vec())),
            (t("paid"), Value::from_u128(paid)),
            (t("burned"), Value::from_u128(burned)),
            (t("treasury"), Value::from_u128(treasury)),
        ]),
    )?;
    Ok(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(tokens: u64, wall_ms: u64) -> Usage {
        Usage { tokens, wall_ms }
    }

    #[test]
    fn twice_the_median_is_the_bound_and_one_inflater_cannot_move_it() {
        let e = Expected {
            tokens: Some(100),
            wall_ms: 50,
        };
        assert_eq!(bounded(u(200, 100), &e), None, "exactly 2× is not over");
        assert_eq!(bounded(u(201, 10), &e), Some(u(200, 10)));
        assert_eq!(bounded(u(10, 101), &e), Some(u(10, 100)));
        let no_tokens = Expected {
            tokens: None,
            wall_ms: 50,
        };
        assert_eq!(bounded(u(u64::MAX, 100), &no_tokens), None);
    }
}
