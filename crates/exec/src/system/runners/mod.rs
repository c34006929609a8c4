//! The runner registry system actor at `0x…01` (CIP-2 §4, whitepaper §5.1–§5.2, §17.7): who
//! may run off-chain jobs, with what stake, capabilities and prices, how healthy and how
//! reputable; and the model registry that capabilities and rate cards refer to by hash. The
//! design of the whole of CIP-2's on-chain half, with every choice where the spec is silent,
//! is the exec README's "Off-chain compute (CIP-2)".
//!
//! * **Runners** `register` with a self-bond (the call's value) of at least `max(10,000 CBY,
//!   1.5 × max_job_value)`, an Ed25519 key, capabilities (job types, models, HTTP domains,
//!   TEE), a rate card and limits; `update` their profile; `heartbeat` (health is computed on
//!   read: the last heartbeat within `runner_heartbeat_timeout_blocks`); `add_stake`;
//!   `begin_unbond` (they leave candidacy at once) and `withdraw` after
//!   `runner_unbonding_blocks`.
//! * **Delegators** (CIP-13) `delegate` to an active runner, `undelegate` shares into an
//!   unbonding tranche, `withdraw_delegation` after the unbonding period. Effective stake =
//!   self-bond + bonded delegations; the self-bond stays ≥ `min_self_bond_bps` of it.
//! * **Models** (§5.1) are published with `register_model(hash, metadata)` and a refundable
//!   `model_deposit_wei`, and retired by their publisher.
//! * **Reads**: `get_runner`, `runners` (paged by slot), `delegation`, `tranche`, `model`.
//! * **For the dispatcher and verifier** (crate-internal, [`stake`]): `slash`,
//!   `apply_reputation`, `job_started`, `job_finished`, through [`store::Raw`].
//!
//! Every handler charges `runner_call_cycles` (`runner_register_cycles` for `register` and
//! `update`) before it works, then every storage read and write at the cost-table prices
//! through [`Call`]; no handler walks an unbounded structure (lists are counted, pages are
//! capped, profiles are bounded by genesis limits). Every change emits an event. The stake
//! the registry holds is its balance: Σ self-bonds + Σ pool tokens + Σ model deposits.

pub mod error;
pub mod profile;
pub mod records;
pub mod stake;
pub mod store;

use cowboy_types::cbor::{self, Value};
use cowboy_types::system::RUNNER_REGISTRY;
use cowboy_types::{Address, Hash32};

use self::error::RegistryError;
use self::records::{
    addr_value, pair_from, pair_value, Model, Profile, Rep, Stake, Status, Unbond,
};
use self::stake::{load_rep, load_stake, max_delegated, mul_div, required_stake};
use self::store::{
    delegation_key, get_value, heartbeat_key, model_key, profile_key, put_value, rep_key,
    stake_key, tranches_key, unbond_key, List,
};
use super::{Args, Call, CallError, SystemActor};
use crate::lanes::Lane;

/// The runner registry.
pub struct RunnerRegistry;

const HANDLERS: &str = "register, update, heartbeat, add_stake, begin_unbond, withdraw, delegate, \
     undelegate, withdraw_delegation, register_model, retire_model, get_runner, runners, \
     delegation, tranche, model";

impl SystemActor for RunnerRegistry {
    fn address(&self) -> Address {
        RUNNER_REGISTRY
    }

    fn name(&self) -> &'static str {
        "runner registry"
    }

    /// Heartbeats are runner attestations: the runner lane keeps user traffic from crowding
    /// them out (and a runner from being marked unhealthy by congestion).
    fn lane(&self, handler: &str) -> Lane {
        if handler == "heartbeat" {
            Lane::Runner
        } else {
            Lane::User
        }
    }

    fn call(
        &self,
        call: &mut Call<'_>,
        handler: &str,
        args: &Args<'_>,
    ) -> Result<Value, CallError> {
        let p = call.params;
        let base = match handler {
            "register" | "update" => p.runner_register_cycles,
            _ => p.runner_call_cycles,
        };
        call.charge(base)?;
        match handler {
            "register" => register(call, args),
            "update" => update(call, args),
            "heartbeat" => heartbeat(call, args),
            "add_stake" => add_stake(call, args),
            "begin_unbond" => begin_unbond(call, args),
            "withdraw" => withdraw(call, args),
            "delegate" => delegate(call, args),
            "undelegate" => undelegate(call, args),
            "withdraw_delegation" => withdraw_delegation(call, args),
            "register_model" => register_model(call, args),
            "retire_model" => retire_model(call, args),
            "get_runner" => get_runner(call, args),
            "runners" => runners(call, args),
            "delegation" => delegation(call, args),
            "tranche" => tranche(call, args),
            "model" => model(call, args),
            other => Err(CallError::fail(
                "NoSuchHandler",
                format!("the runner registry has no handler {other:?} (it has: {HANDLERS})"),
            )),
        }
    }
}

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

fn no_value(call: &Call<'_>) -> Result<(), CallError> {
    if call.value != 0 {
        return Err(RegistryError::ValueNotAllowed { got: call.value }.into());
    }
    Ok(())
}

fn uint(args: &Args<'_>, i: usize, name: &str) -> Result<u64, CallError> {
    args.get(i, name)?.as_u64().ok_or_else(|| {
        CallError::fail(
            "TypeError",
            format!("argument {name:?} must be a non-negative int"),
        )
    })
}

fn big(args: &Args<'_>, i: usize, name: &str) -> Result<u128, CallError> {
    args.get(i, name)?.as_u128().ok_or_else(|| {
        CallError::fail(
            "TypeError",
            format!("argument {name:?} must be a non-negative int < 2^128"),
        )
    })
}

fn put_stake(call: &mut Call<'_>, runner: &Address, st: &Stake) -> Result<(), CallError> {
    put_value(call, &stake_key(runner), &st.to_value())
}

fn load_profile(call: &mut Call<'_>, runner: &Address) -> Result<Option<Profile>, CallError> {
    get_value(call, &profile_key(runner))?
        .map(|v| Profile::from_value(&v))
        .transpose()
}

fn load_model(call: &mut Call<'_>, h: &Hash32) -> Result<Option<Model>, CallError> {
    get_value(call, &model_key(h))?
        .map(|v| Model::from_value(&v))
        .transpose()
}

/// The runner's stake record if it is `need`.
fn stake_in(call: &mut Call<'_>, runner: &Address, need: Status) -> Result<Stake, CallError> {
    let st = load_stake(call, runner)?.ok_or(RegistryError::NotRegistered(*runner))?;
    if st.status != need {
        return Err(RegistryError::WrongStatus {
            runner: *runner,
            status: st.status.name(),
            need: need.name(),
        }
        .into());
    }
    Ok(st)
}

/// Parse and check a profile from `args` starting at position `at` (capabilities, rates,
/// max_concurrent_jobs, max_job_value, commission_bps); every model must be registered and
/// not retired.
fn read_profile(
    call: &mut Call<'_>,
    args: &Args<'_>,
    at: usize,
    key: [u8; 32],
    registered_at: u64,
) -> Result<Profile, CallError> {
    let p = call.params;
    let caps = profile::parse_capabilities(args.get(at, "capabilities")?, p)?;
    let rates = profile::parse_rates(args.get(at + 1, "rates")?, &caps, p)?;
    let (max_concurrent_jobs, max_job_value, commission_bps) = profile::parse_limits(
        args.get(at + 2, "max_concurrent_jobs")?,
        args.get(at + 3, "max_job_value")?,
        args.get(at + 4, "commission_bps")?,
        p,
    )?;
    for m in &caps.models {
        match load_model(call, m)? {
            None => return Err(RegistryError::UnknownModel(*m).into()),
            Some(model) if model.retired => return Err(RegistryError::RetiredModel(*m).into()),
            Some(_) => {}
        }
    }
    Ok(Profile {
        key,
        job_types: caps.job_types,
        models: caps.models,
        domains: caps.domains,
        tee: caps.tee,
        rates,
        max_concurrent_jobs,
        max_job_value,
        commission_bps,
        registered_at,
        endpoint: caps.endpoint,
    })
}

/// `register(key, capabilities, rates, max_concurrent_jobs, max_job_value, commission_bps)`
/// with the self-bond as value. An exited runner (self-bond withdrawn, delegations left)
/// registers again over its record and keeps its pools and reputation.
fn register(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(6)?;
    let runner = call.sender;
    let existing = load_stake(call, &runner)?;
    if matches!(&existing, Some(s) if s.status != Status::Exited) {
        return Err(RegistryError::AlreadyRegistered(runner).into());
    }
    let key = profile::parse_key(args.get(0, "key")?)?;
    let height = call.env.height;
    let prof = read_profile(call, args, 1, key, height)?;
    let need = required_stake(call.params, prof.max_job_value)?;
    if call.value < need {
        return Err(RegistryError::StakeTooLow {
            got: call.value,
            need,
        }
        .into());
    }
    let max = call.params.runner_max_active;
    if List::Active.len(call)? >= max {
        return Err(RegistryError::RegistryFull { max }.into());
    }
    let fresh = existing.is_none();
    let mut st = existing.unwrap_or(Stake {
        status: Status::Active,
        self_bond: 0,
        release_at: 0,
        pool_tokens: 0,
        pool_shares: 0,
        unbonding_tokens: 0,
        unbonding_shares: 0,
        delegators: 0,
    });
    st.status = Status::Active;
    st.self_bond = call.value;
    st.release_at = 0;
    // A re-registering runner's pools must still respect the self-bond ratio.
    if st.pool_tokens > max_delegated(call.params, st.self_bond) {
        return Err(RegistryError::SelfBondTooLow {
            self_bond: st.self_bond,
            max_delegated: max_delegated(call.params, st.self_bond),
        }
        .into());
    }
    put_value(call, &profile_key(&runner), &prof.to_value())?;
    put_stake(call, &runner, &st)?;
    if load_rep(call, &runner)?.is_none() {
        let rep = Rep {
            reputation: call.params.runner_initial_reputation,
            failures: 0,
            active_jobs: 0,
        };
        put_value(call, &rep_key(&runner), &rep.to_value())?;
    }
    // Registering counts as the first heartbeat.
    put_value(call, &heartbeat_key(&runner), &Value::Uint(height))?;
    List::Active.push(call, &runner)?;
    if fresh {
        List::All.push(call, &runner)?;
    }
    call.emit(
        "RunnerRegistered",
        &Value::Map(vec![
            (t("runner"), addr_value(&runner)),
            (t("self_bond"), Value::from_u128(st.self_bond)),
            (t("key"), Value::Bytes(key.to_vec())),
        ]),
    )?;
    Ok(Value::Null)
}

/// `update(capabilities, rates, max_concurrent_jobs, max_job_value, commission_bps)` of an
/// active runner; its effective stake must cover the new `max_job_value`. The key is fixed
/// for a registration.
fn update(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    no_value(call)?;
    args.expect_count(5)?;
    let runner = call.sender;
    let st = stake_in(call, &runner, Status::Active)?;
    let old = load_profile(call, &runner)?
        .ok_or_else(|| store::corrupt("active runner without a profile"))?;
    let prof = read_profile(call, args, 0, old.key, old.registered_at)?;
    let need = required_stake(call.params, prof.max_job_value)?;
    if st.effective() < need {
        return Err(RegistryError::StakeTooLow {
            got: st.effective(),
            need,
        }
        .into());
    }
    put_value(call, &profile_key(&runner), &prof.to_value())?;
    call.emit(
        "RunnerUpdated",
        &Value::Map(vec![(t("runner"), addr_value(&runner))]),
    )?;
    Ok(Value::Null)
}

fn heartbeat(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    no_value(call)?;
    args.expect_count(0)?;
    let runner = call.sender;
    stake_in(call, &runner, Status::Active)?;
    let height = call.env.height;
    put_value(call, &heartbeat_key(&runner), &Value::Uint(height))?;
    call.emit(
        "RunnerHeartbeat",
        &Value::Map(vec![
            (t("runner"), addr_value(&runner)),
            (t("height"), Value::Uint(height)),
        ]),
    )?;
    Ok(Value::Null)
}

fn add_stake(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(0)?;
    let runner = call.sender;
    if call.value == 0 {
        return Err(RegistryError::BadField {
            field: "value".into(),
            reason: "send the stake to add".into(),
        }
        .into());
    }
    let mut st = stake_in(call, &runner, Status::Active)?;
    st.self_bond = st
        .self_bond
        .checked_add(call.value)
        .ok_or(RegistryError::Overflow("self-bond"))?;
    put_stake(call, &runner, &st)?;
    call.emit(
        "StakeAdded",
        &Value::Map(vec![
            (t("runner"), addr_value(&runner)),
            (t("amount"), Value::from_u128(call.value)),
            (t("self_bond"), Value::from_u128(st.self_bond)),
        ]),
    )?;
    Ok(Value::from_u128(st.self_bond))
}

fn begin_unbond(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    no_value(call)?;
    args.expect_count(0)?;
    let runner = call.sender;
    let mut st = stake_in(call, &runner, Status::Active)?;
    st.status = Status::Unbonding;
    st.release_at = call
        .env
        .height
        .saturating_add(call.params.runner_unbonding_blocks);
    put_stake(call, &runner, &st)?;
    List::Active.remove(call, &runner)?;
    call.emit(
        "UnbondingBegun",
        &Value::Map(vec![
            (t("runner"), addr_value(&runner)),
            (t("release_at"), Value::Uint(st.release_at)),
        ]),
    )?;
    Ok(Value::Uint(st.release_at))
}

/// Delete an exited runner's records once nothing is left in its pools.
fn forget_if_empty(call: &mut Call<'_>, runner: &Address, st: &Stake) -> Result<bool, CallError> {
    let empty = st.status == Status::Exited
        && st.pool_shares == 0
        && st.unbonding_shares == 0
        && st.delegators == 0;
    if !empty {
        return Ok(false);
    }
    for k in [
        profile_key(runner),
        stake_key(runner),
        rep_key(runner),
        heartbeat_key(runner),
    ] {
        call.delete(&k)?;
    }
    List::All.remove(call, runner)?;
    Ok(true)
}

fn withdraw(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    no_value(call)?;
    args.expect_count(0)?;
    let runner = call.sender;
    let mut st = stake_in(call, &runner, Status::Unbonding)?;
    let height = call.env.height;
    if height < st.release_at {
        return Err(RegistryError::StillUnbonding {
            release_at: st.release_at,
            height,
        }
        .into());
    }
    let amount = st.self_bond;
    st.self_bond = 0;
    st.status = Status::Exited;
    st.release_at = 0;
    call.pay(&runner, amount)?;
    let removed = forget_if_empty(call, &runner, &st)?;
    if !removed {
        put_stake(call, &runner, &st)?;
    }
    call.emit(
        "StakeWithdrawn",
        &Value::Map(vec![
            (t("runner"), addr_value(&runner)),
            (t("amount"), Value::from_u128(amount)),
            (t("removed"), Value::Bool(removed)),
        ]),
    )?;
    Ok(Value::from_u128(amount))
}

fn load_shares(call: &mut Call<'_>, runner: &Address, who: &Address) -> Result<u128, CallError> {
    match get_value(call, &delegation_key(runner, who))? {
        None => Ok(0),
        Some(v) => v.as_u128().ok_or_else(|| store::corrupt("delegation")),
    }
}

fn load_tranches(call: &mut Call<'_>, who: &Address) -> Result<(u64, u64), CallError> {
    match get_value(call, &tranches_key(who))? {
        None => Ok((0, 0)),
        Some(v) => {
            let (count, next) = pair_from(&v)?;
            let count = u64::try_from(count).map_err(|_| store::corrupt("tranche count"))?;
            Ok((count, next))
        }
    }
}

fn put_tranches(
    call: &mut Call<'_>,
    who: &Address,
    count: u64,
    next: u64,
) -> Result<(), CallError> {
    if count == 0 && next == 0 {
        return call.delete(&tranches_key(who));
    }
    put_value(
        call,
        &tranches_key(who),
        &pair_value(u128::from(count), next),
    )
}

/// `delegate(runner)` with the stake as value: shares of the runner's bonded pool at its
/// current exchange rate (1:1 for the first delegation).
fn delegate(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(1)?;
    let runner = args.address(0, "runner")?;
    let who = call.sender;
    let p = call.params;
    let v = call.value;
    if v < p.runner_min_delegation_wei {
        return Err(RegistryError::DelegationTooSmall {
            got: v,
            min: p.runner_min_delegation_wei,
        }
        .into());
    }
    let mut st = stake_in(call, &runner, Status::Active)?;
    if st.pool_tokens == 0 && st.pool_shares > 0 {
        return Err(RegistryError::PoolWipedOut(runner).into());
    }
    let cap = max_delegated(p, st.self_bond);
    if st.pool_tokens.saturating_add(v) > cap {
        return Err(RegistryError::SelfBondTooLow {
            self_bond: st.self_bond,
            max_delegated: cap,
        }
        .into());
    }
    let held = load_shares(call, &runner, &who)?;
    if held == 0 {
        if st.delegators >= p.max_delegators_per_runner {
            return Err(RegistryError::TooManyDelegators {
                max: p.max_delegators_per_runner,
            }
            .into());
        }
        let (count, next) = load_tranches(call, &who)?;
        if count >= p.max_active_tranches_per_delegator {
            return Err(RegistryError::TooManyTranches {
                max: p.max_active_tranches_per_delegator,
            }
            .into());
        }
        put_tranches(call, &who, count + 1, next)?;
        st.delegators += 1;
    }
    let shares = if st.pool_shares == 0 {
        v
    } else {
        mul_div(v, st.pool_shares, st.pool_tokens).ok_or(RegistryError::Overflow("pool shares"))?
    };
    if shares == 0 {
        return Err(RegistryError::DelegationTooSmall { got: v, min: v + 1 }.into());
    }
    st.pool_tokens += v;
    st.pool_shares = st
        .pool_shares
        .checked_add(shares)
        .ok_or(RegistryError::Overflow("pool shares"))?;
    let total = held
        .checked_add(shares)
        .ok_or(RegistryError::Overflow("delegation shares"))?;
    put_value(
        call,
        &delegation_key(&runner, &who),
        &Value::from_u128(total),
    )?;
    put_stake(call, &runner, &st)?;
    call.emit(
        "Delegated",
        &Value::Map(vec![
            (t("runner"), addr_value(&runner)),
            (t("delegator"), addr_value(&who)),
            (t("amount"), Value::from_u128(v)),
            (t("shares"), Value::from_u128(shares)),
        ]),
    )?;
    Ok(Value::from_u128(shares))
}

/// `undelegate(runner, shares)`: the shares' value moves to an unbonding tranche, released
/// after `runner_unbonding_blocks`; returns the tranche id (or `None` when the shares are
/// worth nothing after a slash, and are simply cancelled).
fn undelegate(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    no_value(call)?;
    args.expect_count(2)?;
    let runner = args.address(0, "runner")?;
    let asked = big(args, 1, "shares")?;
    let who = call.sender;
    let p = call.params;
    let held = load_shares(call, &runner, &who)?;
    if held == 0 {
        return Err(RegistryError::NoDelegation { runner }.into());
    }
    if asked == 0 || asked > held {
        return Err(RegistryError::BadShares { asked, held }.into());
    }
    let mut st =
        load_stake(call, &runner)?.ok_or_else(|| store::corrupt("delegation to no runner"))?;
    let tokens = mul_div(asked, st.pool_tokens, st.pool_shares).unwrap_or(0);
    let (mut count, mut next) = load_tranches(call, &who)?;
    let full = asked == held;
    if full {
        call.delete(&delegation_key(&runner, &who))?;
        st.delegators -= 1;
        // The delegation's tranche slot passes to the unbonding tranche, if any.
        count = count
            .checked_sub(1)
            .ok_or_else(|| store::corrupt("tranche count"))?;
    } else {
        put_value(
            call,
            &delegation_key(&runner, &who),
            &Value::from_u128(held - asked),
        )?;
    }
    st.pool_tokens -= tokens;
    st.pool_shares -= asked;
    let mut id = Value::Null;
    let release_at = call.env.height.saturating_add(p.runner_unbonding_blocks);
    if tokens > 0 {
        if count >= p.max_active_tranches_per_delegator {
            return Err(RegistryError::TooManyTranches {
                max: p.max_active_tranches_per_delegator,
            }
            .into());
        }
        if st.unbonding_shares > 0 && st.unbonding_tokens == 0 {
            return Err(RegistryError::PoolWipedOut(runner).into());
        }
        let ushares = if st.unbonding_shares == 0 {
            tokens
        } else {
            mul_div(tokens, st.unbonding_shares, st.unbonding_tokens)
                .ok_or(RegistryError::Overflow("unbonding shares"))?
        };
        st.unbonding_tokens += tokens;
        st.unbonding_shares = st
            .unbonding_shares
            .checked_add(ushares)
            .ok_or(RegistryError::Overflow("unbonding shares"))?;
        let tranche = Unbond {
            runner,
            shares: ushares,
            release_at,
        };
        put_value(call, &unbond_key(&who, next), &tranche.to_value())?;
        id = Value::Uint(next);
        count += 1;
        next += 1;
    }
    put_tranches(call, &who, count, next)?;
    put_stake(call, &runner, &st)?;
    call.emit(
        "Undelegated",
        &Value::Map(vec![
            (t("runner"), addr_value(&runner)),
            (t("delegator"), addr_value(&who)),
            (t("shares"), Value::from_u128(asked)),
            (t("amount"), Value::from_u128(tokens)),
            (t("tranche"), id.clone()),
            (t("release_at"), Value::Uint(release_at)),
        ]),
    )?;
    Ok(id)
}

fn withdraw_delegation(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    no_value(call)?;
    args.expect_count(1)?;
    let n = uint(args, 0, "tranche")?;
    let who = call.sender;
    let tranche = get_value(call, &unbond_key(&who, n))?
        .map(|v| Unbond::from_value(&v))
        .transpose()?
        .ok_or(RegistryError::NoTranche(n))?;
    let height = call.env.height;
    if height < tranche.release_at {
        return Err(RegistryError::StillUnbonding {
            release_at: tranche.release_at,
            height,
        }
        .into());
    }
    let runner = tranche.runner;
    let mut st =
        load_stake(call, &runner)?.ok_or_else(|| store::corrupt("tranche of no runner"))?;
    let amount = mul_div(tranche.shares, st.unbonding_tokens, st.unbonding_shares).unwrap_or(0);
    st.unbonding_tokens -= amount;
    st.unbonding_shares -= tranche.shares;
    call.delete(&unbond_key(&who, n))?;
    let (count, next) = load_tranches(call, &who)?;
    put_tranches(call, &who, count.saturating_sub(1), next)?;
    call.pay(&who, amount)?;
    if !forget_if_empty(call, &runner, &st)? {
        put_stake(call, &runner, &st)?;
    }
    call.emit(
        "DelegationWithdrawn",
        &Value::Map(vec![
            (t("runner"), addr_value(&runner)),
            (t("delegator"), addr_value(&who)),
            (t("tranche"), Value::Uint(n)),
            (t("amount"), Value::from_u128(amount)),
        ]),
    )?;
    Ok(Value::from_u128(amount))
}

/// `register_model(hash, metadata)` with exactly `model_deposit_wei` (whitepaper §5.1; the
/// hash is `keccak256(weights ‖ arch ‖ tokenizer ‖ license)`, computed off chain). A retired
/// model may be published again, by anyone.
fn register_model(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(2)?;
    let h = args.hash(0, "hash")?;
    let metadata = args.get(1, "metadata")?.clone();
    let p = call.params;
    if call.value != p.model_deposit_wei {
        return Err(RegistryError::WrongDeposit {
            got: call.value,
            expected: p.model_deposit_wei,
        }
        .into());
    }
    let size = cbor::encode(&metadata).len() as u64;
    if size > p.model_metadata_max_bytes {
        return Err(RegistryError::BadField {
            field: "metadata".into(),
            reason: format!(
                "{size} bytes encoded; the limit is {}",
                p.model_metadata_max_bytes
            ),
        }
        .into());
    }
    if matches!(load_model(call, &h)?, Some(m) if !m.retired) {
        return Err(RegistryError::ModelExists(h).into());
    }
    let m = Model {
        publisher: call.sender,
        deposit: call.value,
        metadata,
        registered_at: call.env.height,
        retired: false,
    };
    put_value(call, &model_key(&h), &m.to_value())?;
    call.emit(
        "ModelRegistered",
        &Value::Map(vec![
            (t("model"), Value::Bytes(h.0.to_vec())),
            (t("publisher"), addr_value(&m.publisher)),
        ]),
    )?;
    Ok(Value::Null)
}

/// `retire_model(hash)`: the publisher takes its deposit back; runners that declare the model
/// keep it, new declarations are refused.
fn retire_model(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    no_value(call)?;
    args.expect_count(1)?;
    let h = args.hash(0, "hash")?;
    let mut m = load_model(call, &h)?.ok_or(RegistryError::UnknownModel(h))?;
    if m.retired {
        return Err(RegistryError::RetiredModel(h).into());
    }
    if m.publisher != call.sender {
        return Err(RegistryError::NotPublisher {
            model: h,
            publisher: m.publisher,
        }
        .into());
    }
    let refund = m.deposit;
    m.deposit = 0;
    m.retired = true;
    put_value(call, &model_key(&h), &m.to_value())?;
    call.pay(&m.publisher, refund)?;
    call.emit(
        "ModelRetired",
        &Value::Map(vec![
            (t("model"), Value::Bytes(h.0.to_vec())),
            (t("refund"), Value::from_u128(refund)),
        ]),
    )?;
    Ok(Value::from_u128(refund))
}

/// Whether a runner is healthy at `height`: active, and its last heartbeat within
/// `runner_heartbeat_timeout_blocks`.
pub fn healthy(st: &Stake, last_heartbeat: u64, height: u64, timeout: u64) -> bool {
    st.status == Status::Active && height.saturating_sub(last_heartbeat) <= timeout
}

fn last_heartbeat(call: &mut Call<'_>, runner: &Address) -> Result<u64, CallError> {
    Ok(get_value(call, &heartbeat_key(runner))?
        .and_then(|v| v.as_u64())
        .unwrap_or(0))
}

fn get_runner(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    no_value(call)?;
    args.expect_count(1)?;
    let runner = args.address(0, "runner")?;
    let Some(st) = load_stake(call, &runner)? else {
        return Ok(Value::Null);
    };
    let prof =
        load_profile(call, &runner)?.ok_or_else(|| store::corrupt("runner without profile"))?;
    let rep = load_rep(call, &runner)?.ok_or_else(|| store::corrupt("runner without rep"))?;
    let hb = last_heartbeat(call, &runner)?;
    let ok = healthy(
        &st,
        hb,
        call.env.height,
        call.params.runner_heartbeat_timeout_blocks,
    );
    let Value::Map(mut out) = prof.to_value() else {
        return Err(store::corrupt("profile form"));
    };
    out.extend([
        (t("address"), addr_value(&runner)),
        (t("status"), t(st.status.name())),
        (t("self_bond"), Value::from_u128(st.self_bond)),
        (t("delegated"), Value::from_u128(st.pool_tokens)),
        (
            t("delegated_unbonding"),
            Value::from_u128(st.unbonding_tokens),
        ),
        (t("pool_shares"), Value::from_u128(st.pool_shares)),
        (t("effective_stake"), Value::from_u128(st.effective())),
        (t("delegators"), Value::Uint(st.delegators)),
        (t("release_at"), Value::Uint(st.release_at)),
        (t("reputation"), Value::Uint(rep.reputation)),
        (t("failures"), Value::Uint(rep.failures)),
        (t("active_jobs"), Value::Uint(rep.active_jobs)),
        (t("last_heartbeat"), Value::Uint(hb)),
        (t("healthy"), Value::Bool(ok)),
    ]);
    Ok(Value::Map(out))
}

/// `runners(start, limit)`: slots `start..start+limit` of the list of every runner record, as
/// `{"runners": [{address, status, effective_stake, reputation, healthy}], "next": slot |
/// None, "total"}`.
fn runners(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    no_value(call)?;
    args.expect_count(2)?;
    let start = uint(args, 0, "start")?;
    let limit = uint(args, 1, "limit")?;
    let max = call.params.runner_page_max;
    if limit > max {
        return Err(RegistryError::PageTooLarge { got: limit, max }.into());
    }
    let total = List::All.len(call)?;
    let end = start.saturating_add(limit).min(total);
    let mut page = Vec::new();
    for i in start..end {
        let a = List::All
            .get(call, i)?
            .ok_or_else(|| store::corrupt("list hole"))?;
        let st = load_stake(call, &a)?.ok_or_else(|| store::corrupt("listed runner"))?;
        let rep = load_rep(call, &a)?.ok_or_else(|| store::corrupt("listed runner"))?;
        let hb = last_heartbeat(call, &a)?;
        let ok = healthy(
            &st,
            hb,
            call.env.height,
            call.params.runner_heartbeat_timeout_blocks,
        );
        page.push(Value::Map(vec![
            (t("address"), addr_value(&a)),
            (t("status"), t(st.status.name())),
            (t("effective_stake"), Value::from_u128(st.effective())),
            (t("reputation"), Value::Uint(rep.reputation)),
            (t("healthy"), Value::Bool(ok)),
        ]));
    }
    let next = if end < total {
        Value::Uint(end)
    } else {
        Value::Null
    };
    Ok(Value::Map(vec![
        (t("runners"), Value::Array(page)),
        (t("next"), next),
        (t("total"), Value::Uint(total)),
    ]))
}

/// `delegation(runner, delegator)` → `{"shares", "value"}` or `None`.
fn delegation(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    no_value(call)?;
    args.expect_count(2)?;
    let runner = args.address(0, "runner")?;
    let who = args.address(1, "delegator")?;
    let shares = load_shares(call, &runner, &who)?;
    if shares == 0 {
        return Ok(Value::Null);
    }
    let st = load_stake(call, &runner)?.ok_or_else(|| store::corrupt("delegation to no runner"))?;
    let value = mul_div(shares, st.pool_tokens, st.pool_shares).unwrap_or(0);
    Ok(Value::Map(vec![
        (t("shares"), Value::from_u128(shares)),
        (t("value"), Value::from_u128(value)),
    ]))
}

/// `tranche(delegator, n)` → `{"runner", "shares", "value", "release_at"}` or `None`.
fn tranche(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    no_value(call)?;
    args.expect_count(2)?;
    let who = args.address(0, "delegator")?;
    let n = uint(args, 1, "tranche")?;
    let Some(v) = get_value(call, &unbond_key(&who, n))? else {
        return Ok(Value::Null);
    };
    let u = Unbond::from_value(&v)?;
    let st = load_stake(call, &u.runner)?.ok_or_else(|| store::corrupt("tranche of no runner"))?;
    let value = mul_div(u.shares, st.unbonding_tokens, st.unbonding_shares).unwrap_or(0);
    let Value::Map(mut out) = u.to_value() else {
        return Err(store::corrupt("tranche form"));
    };
    out.push((t("value"), Value::from_u128(value)));
    Ok(Value::Map(out))
}

fn model(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    no_value(call)?;
    args.expect_count(1)?;
    let h = args.hash(0, "hash")?;
    Ok(load_model(call, &h)?.map_or(Value::Null, |m| m.to_value()))
}
