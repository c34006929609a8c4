//! Stake arithmetic and the registry's crate-internal operations for the next slices:
//! the stake floor, delegation share math, [`slash`], [`apply_reputation`] and the job
//! counters. Everything is integer arithmetic; products go through a 256-bit intermediate
//! ([`mul_div`]) so no amount below 2^128 can overflow on the way.
//!
//! Delegation uses share accounting (the minimal sound form of CIP-13 we could find in the
//! spec's few lines): a runner's delegators own shares of a bonded pool, undelegated stake
//! moves to shares of an unbonding pool. Slashing and (later) rewards change a pool's tokens,
//! never a delegator's record, so both are O(1) whatever the number of delegators.

use cowboy_types::cbor::Value;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::Address;

use super::error::RegistryError;
use super::records::{addr_value, Rep, Stake};
use super::store::{get_value, put_value, rep_key, stake_key, Store};
use crate::system::CallError;

/// `floor(a × b / c)` exactly, or `None` when `c = 0` or the quotient needs more than 128 bits.
pub fn mul_div(a: u128, b: u128, c: u128) -> Option<u128> {
    if c == 0 {
        return None;
    }
    // 256-bit product as (hi, lo) from 64-bit limbs.
    let (a1, a0) = (a >> 64, a & u128::from(u64::MAX));
    let (b1, b0) = (b >> 64, b & u128::from(u64::MAX));
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 64) + (p01 & u128::from(u64::MAX)) + (p10 & u128::from(u64::MAX));
    let lo = (p00 & u128::from(u64::MAX)) | (mid << 64);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    if hi == 0 {
        return Some(lo / c);
    }
    if hi >= c {
        return None;
    }
    // Long division of (hi, lo) by c, one bit at a time; hi < c keeps the quotient in 128 bits.
    let (mut rem, mut q) = (hi, 0u128);
    for i in (0..128).rev() {
        let carry = rem >> 127;
        rem = (rem << 1) | ((lo >> i) & 1);
        q <<= 1;
        if carry == 1 || rem >= c {
            rem = rem.wrapping_sub(c);
            q |= 1;
        }
    }
    Some(q)
}

/// The stake a runner declaring `max_job_value` needs: `max(runner_stake_floor_wei,
/// ceil(1.5 × max_job_value))` (whitepaper §5.2, §17.7).
pub fn required_stake(p: &GenesisParams, max_job_value: u128) -> Result<u128, RegistryError> {
    let one_and_half = max_job_value
        .checked_add(max_job_value.div_ceil(2))
        .ok_or(RegistryError::Overflow("1.5 × max_job_value"))?;
    Ok(one_and_half.max(p.runner_stake_floor_wei))
}

/// The most delegated stake a self-bond carries: `self × (10^4 − bps) / bps`, so that
/// `self ≥ min_self_bond_bps` of the effective stake.
pub fn max_delegated(p: &GenesisParams, self_bond: u128) -> u128 {
    let bps = u128::from(p.min_self_bond_bps.min(10_000));
    if bps == 0 {
        return u128::MAX;
    }
    mul_div(self_bond, 10_000 - bps, bps).unwrap_or(u128::MAX)
}

/// A runner's stake record.
pub fn load_stake<S: Store + ?Sized>(
    s: &mut S,
    runner: &Address,
) -> Result<Option<Stake>, CallError> {
    get_value(s, &stake_key(runner))?
        .map(|v| Stake::from_value(&v))
        .transpose()
}

/// A runner's reputation record.
pub fn load_rep<S: Store + ?Sized>(s: &mut S, runner: &Address) -> Result<Option<Rep>, CallError> {
    get_value(s, &rep_key(runner))?
        .map(|v| Rep::from_value(&v))
        .transpose()
}

/// What [`slash`] took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slashed {
    /// Total taken (≤ the amount asked, ≤ what was slashable).
    pub taken: u128,
    /// From the self-bond.
    pub from_self: u128,
    /// From the bonded delegation pool.
    pub from_delegated: u128,
    /// From the unbonding delegation pool.
    pub from_unbonding: u128,
}

/// Slash up to `amount` of `runner`'s stake, pro rata from its self-bond, its bonded pool and
/// its unbonding pool (CIP-13 via whitepaper §5.2: "delegated stake is slashable
/// proportionally alongside the runner's self-bond"; unbonding stake stays slashable until
/// withdrawn). The amount taken is paid to `to`, or burned when `to` is `None` (the supply
/// falls by it; the caller accounts for the burn). Emits `RunnerSlashed`.
pub fn slash<S: Store + ?Sized>(
    s: &mut S,
    runner: &Address,
    amount: u128,
    to: Option<&Address>,
) -> Result<Slashed, CallError> {
    let mut st = load_stake(s, runner)?.ok_or(RegistryError::NotRegistered(*runner))?;
    let total = st.slashable();
    let x = amount.min(total);
    // floor each share; the rounding remainder comes from the self-bond first, then the pools.
    let mut from_self = mul_div(x, st.self_bond, total).unwrap_or(0);
    let mut from_delegated = mul_div(x, st.pool_tokens, total).unwrap_or(0);
    let mut from_unbonding = mul_div(x, st.unbonding_tokens, total).unwrap_or(0);
    let mut left = x - from_self - from_delegated - from_unbonding;
    for (part, cap) in [
        (&mut from_self, st.self_bond),
        (&mut from_delegated, st.pool_tokens),
        (&mut from_unbonding, st.unbonding_tokens),
    ] {
        let more = left.min(cap - *part);
        *part += more;
        left -= more;
    }
    st.self_bond -= from_self;
    st.pool_tokens -= from_delegated;
    st.unbonding_tokens -= from_unbonding;
    put_value(s, &stake_key(runner), &st.to_value())?;
    s.pay(to, x)?;
    let t = |k: &str| Value::Text(k.into());
    s.emit(
        "RunnerSlashed",
        Value::Map(vec![
            (t("runner"), addr_value(runner)),
            (t("taken"), Value::from_u128(x)),
            (t("from_self"), Value::from_u128(from_self)),
            (t("from_delegated"), Value::from_u128(from_delegated)),
            (t("from_unbonding"), Value::from_u128(from_unbonding)),
            (t("to"), to.map_or(Value::Null, addr_value)),
        ]),
    )?;
    Ok(Slashed {
        taken: x,
        from_self,
        from_delegated,
        from_unbonding,
    })
}

/// What happened to a runner that reputation is adjusted for (CIP-2 §6, whitepaper failure
/// table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepEvent {
    /// Its result was accepted: `+runner_success_reward`, and its failure streak ends.
    Success,
    /// It missed a commit deadline: `−runner_timeout_penalty`.
    Timeout,
    /// Its result was invalid, missing at reveal or outvoted: `−runner_timeout_penalty`.
    InvalidResult,
    /// It never committed to a job that failed after every retry: `−runner_slash_threshold`,
    /// and after `runner_slash_threshold` consecutive ones `runner_nonresponse_slash_bps` of
    /// its stake is slashed and burned.
    NonResponder,
}

impl RepEvent {
    fn name(self) -> &'static str {
        match self {
            RepEvent::Success => "success",
            RepEvent::Timeout => "timeout",
            RepEvent::InvalidResult => "invalid_result",
            RepEvent::NonResponder => "non_responder",
        }
    }
}

/// What [`apply_reputation`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepChange {
    /// Reputation before.
    pub before: u64,
    /// Reputation after.
    pub after: u64,
    /// The stake slash it triggered, if any.
    pub slashed: Option<Slashed>,
}

/// Apply `event` to `runner`'s reputation, within 0..=`runner_max_reputation`. Emits
/// `ReputationChanged` (and `RunnerSlashed` when the non-response streak triggers a slash).
pub fn apply_reputation<S: Store + ?Sized>(
    s: &mut S,
    runner: &Address,
    event: RepEvent,
) -> Result<RepChange, CallError> {
    let mut rep = load_rep(s, runner)?.ok_or(RegistryError::NotRegistered(*runner))?;
    let p = s.params().clone();
    let before = rep.reputation;
    let mut slash_due = false;
    match event {
        RepEvent::Success => {
            rep.reputation = rep
                .reputation
                .saturating_add(p.runner_success_reward)
                .min(p.runner_max_reputation);
            rep.failures = 0;
        }
        RepEvent::Timeout | RepEvent::InvalidResult => {
            rep.reputation = rep.reputation.saturating_sub(p.runner_timeout_penalty);
        }
        RepEvent::NonResponder => {
            rep.reputation = rep.reputation.saturating_sub(p.runner_slash_threshold);
            rep.failures += 1;
            if rep.failures >= p.runner_slash_threshold.max(1) {
                rep.failures = 0;
                slash_due = true;
            }
        }
    }
    put_value(s, &rep_key(runner), &rep.to_value())?;
    let t = |k: &str| Value::Text(k.into());
    s.emit(
        "ReputationChanged",
        Value::Map(vec![
            (t("runner"), addr_value(runner)),
            (t("event"), t(event.name())),
            (t("before"), Value::Uint(before)),
            (t("after"), Value::Uint(rep.reputation)),
        ]),
    )?;
    let slashed = if slash_due {
        let st = load_stake(s, runner)?.ok_or(RegistryError::NotRegistered(*runner))?;
        let amount = mul_div(
            st.slashable(),
            u128::from(p.runner_nonresponse_slash_bps),
            10_000,
        )
        .unwrap_or(0);
        Some(slash(s, runner, amount, None)?)
    } else {
        None
    };
    Ok(RepChange {
        before,
        after: rep.reputation,
        slashed,
    })
}

/// Count a job assigned to `runner` (the dispatcher's concurrency filter reads it).
pub fn job_started<S: Store + ?Sized>(s: &mut S, runner: &Address) -> Result<u64, CallError> {
    let mut rep = load_rep(s, runner)?.ok_or(RegistryError::NotRegistered(*runner))?;
    rep.active_jobs = rep.active_jobs.saturating_add(1);
    put_value(s, &rep_key(runner), &rep.to_value())?;
    Ok(rep.active_jobs)
}

/// Count a job of `runner` finished, whatever its outcome.
pub fn job_finished<S: Store + ?Sized>(s: &mut S, runner: &Address) -> Result<u64, CallError> {
    let mut rep = load_rep(s, runner)?.ok_or(RegistryError::NotRegistered(*runner))?;
    rep.active_jobs = rep.active_jobs.saturating_sub(1);
    put_value(s, &rep_key(runner), &rep.to_value())?;
    Ok(rep.active_jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_div_is_exact_past_128_bits() {
        assert_eq!(mul_div(6, 7, 4), Some(10));
        assert_eq!(mul_div(0, 7, 4), Some(0));
        assert_eq!(mul_div(1, 1, 0), None);
        assert_eq!(mul_div(u128::MAX, u128::MAX, u128::MAX), Some(u128::MAX));
        assert_eq!(mul_div(u128::MAX, 2, 1), None);
        assert_eq!(mul_div(u128::MAX, 3, 4), Some(u128::MAX / 4 * 3 + 2));
        let a = 10u128.pow(27);
        assert_eq!(mul_div(a, a, a), Some(a));
        assert_eq!(mul_div(a, 3 * a, 2 * a), Some(3 * a / 2));
        // Against a direct computation where it fits.
        let mut x = 0x1234_5678_9abc_def0u128;
        for _ in 0..200 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (a, b, c) = (x >> 70, (x >> 3) & 0xffff_ffff_ffff, (x >> 40) | 1);
            assert_eq!(mul_div(a, b, c), Some(a * b / c), "{a} {b} {c}");
        }
    }

    #[test]
    fn stake_floor_and_ratio() {
        let p = GenesisParams::default();
        assert_eq!(required_stake(&p, 0), Ok(p.runner_stake_floor_wei));
        let big = 100_000 * cowboy_types::genesis::WEI_PER_CBY;
        assert_eq!(
            required_stake(&p, big),
            Ok(150_000 * cowboy_types::genesis::WEI_PER_CBY)
        );
        assert_eq!(
            required_stake(&p, u128::MAX - 1),
            Err(RegistryError::Overflow("1.5 × max_job_value"))
        );
        // 10% self-bond: at most 9× as much delegated.
        assert_eq!(max_delegated(&p, 1_000), 9_000);
    }
}
