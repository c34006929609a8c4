//! Challenges (whitepaper §5 "Proven dishonesty … is subject to stake slashing via the
//! challenge mechanism", §13 `challenge_window` and `challenge_bond`; CIP-2 Security
//! Considerations): anyone may contest a decided job within the window with a bond, and the
//! chain judges the proof itself, at once, from what it stored.
//!
//! `challenge(job_id, runner, result, [tokens, wall_ms], sig)` with exactly
//! `challenge_bond_wei`, at most `blocks_for_secs(challenge_window_secs)` blocks after the job
//! was decided (verified or failed), against a runner that committed to it. The **proof
//! accepted** is equivocation: a signature of the runner's registered Ed25519 key over the
//! job's result digest (`sign::digest`: chain, job, result, usage) whose commitment
//! `keccak256(result ‖ sig)` is not the one the runner stored. Ed25519 signatures are
//! deterministic, so an honest runner signs exactly one (result, usage) per job: a second,
//! different signed result proves it told the aggregator (or anyone) one thing and committed
//! to another — the runner-result analogue of a validator's double signature.
//!
//! * **Proven**: `challenge_slash_bps` of the runner's slashable stake is slashed (pro rata
//!   over self-bond and delegations, as every runner slash); the challenger gets its bond back
//!   and, out of the slash, up to one more bond as its reward; the rest of the slash is burned;
//!   the runner loses reputation as for an invalid result; each (job, runner) is proven once.
//!   `ChallengeProven`.
//! * **Unproven** (the signature does not verify, or its commitment is the stored one): the
//!   bond is burned. `ChallengeRejected`.
//! * Malformed arguments, a wrong bond, a closed window, an undecided job, a runner without a
//!   commitment or registration: a typed error, and nothing changes (the bond goes back with
//!   the rolled-back call).
//!
//! What is not judged here, and why: a result that is merely *wrong* (the chain never sees the
//! world the runner fetched from, so it cannot tell), misreported usage (the usage is signed
//! and committed with the result; it can only be contested by equivocation), and the
//! aggregator's withholding (the runner's own reveal is its remedy). Payments already made at
//! verification are not clawed back: the slash, not the fee, is the penalty.

use cowboy_types::cbor::{self, Value};
use cowboy_types::{Address, Hash32};

use super::anomaly;
use super::commit;
use super::error::VerifyError;
use super::outcome::outcome_key;
use super::reveal::{check_cycles, Reveal};
use super::sign;
use crate::system::dispatcher::job::corrupt;
use crate::system::dispatcher::lifecycle::{penalty_ops, with_registry};
use crate::system::runners::records::{addr_value, Profile};
use crate::system::runners::stake::{apply_reputation, load_stake, mul_div, slash, RepEvent};
use crate::system::runners::store::profile_key;
use crate::system::{Call, CallError};
use cowboy_types::system::RUNNER_REGISTRY;

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

/// `["challenged", job_id, runner]` → the height a challenge against it was proven.
pub fn challenged_key(id: &Hash32, runner: &Address) -> Vec<u8> {
    cbor::encode(&Value::Array(vec![
        t("challenged"),
        Value::Bytes(id.0.to_vec()),
        Value::Bytes(runner.0.to_vec()),
    ]))
}

/// The cycles of a challenge beyond its metered reads and writes: the proof's check, and for
/// a proven one the stake's read and write, a reputation change and three payments (bond,
/// reward, burn); the refund of an amount held for review is metered as it happens.
fn cycles(call: &Call<'_>, result_bytes: u64) -> u64 {
    let p = call.params;
    check_cycles(p, result_bytes)
        .saturating_add(penalty_ops(p))
        .saturating_add(p.storage_read_cycles.saturating_mul(2))
        .saturating_add(p.storage_write_cycles.saturating_mul(8))
}

/// Judge a challenge of `r` (the contested signed result) on job `id`.
pub fn challenge(
    call: &mut Call<'_>,
    id: &Hash32,
    r: &Reveal,
    sig: &[u8; 64],
) -> Result<Value, CallError> {
    let p = call.params;
    if call.value != p.challenge_bond_wei {
        return Err(VerifyError::WrongBond {
            got: call.value,
            expected: p.challenge_bond_wei,
        }
        .into());
    }
    call.charge(cycles(call, r.result.len() as u64))?;
    let decided_at = match call.read(&outcome_key(id))? {
        None => return Err(VerifyError::NotDecided(*id).into()),
        Some(b) => {
            let v = cbor::decode(&b).map_err(|_| corrupt("outcome not canonical CBOR"))?;
            crate::system::runners::records::Fields::of(&v)
                .and_then(|f| f.get("height").and_then(Value::as_u64))
                .ok_or_else(|| corrupt("outcome height"))?
        }
    };
    let height = call.env.height;
    let closed_at = decided_at.saturating_add(p.blocks_for_secs(p.challenge_window_secs));
    if height > closed_at {
        return Err(VerifyError::ChallengeClosed { height, closed_at }.into());
    }
    let runner = r.runner;
    let committed = commit::get(call, id, &runner)?.ok_or(VerifyError::NotACommitter(runner))?;
    if call.read(&challenged_key(id, &runner))?.is_some() {
        return Err(VerifyError::AlreadyChallenged(runner).into());
    }
    let key = match call.read_at(&RUNNER_REGISTRY, &profile_key(&runner))? {
        None => return Err(VerifyError::UnknownRunner(runner).into()),
        Some(b) => {
            let v = cbor::decode(&b).map_err(|_| corrupt("profile not canonical CBOR"))?;
            Profile::from_value(&v)?.key
        }
    };
    let d = sign::digest(call.env.chain_id, id, &r.result, r.usage);
    let proven = sign::verify(&key, &d, sig) && sign::commitment(&r.result, sig) != committed;
    let challenger = call.sender;
    let bond = call.value;
    if !proven {
        let me = call.me;
        call.move_from(&me, None, bond)?;
        call.emit(
            "ChallengeRejected",
            &Value::Map(vec![
                (t("job_id"), Value::Bytes(id.0.to_vec())),
                (t("runner"), addr_value(&runner)),
                (t("challenger"), addr_value(&challenger)),
                (t("burned"), Value::from_u128(bond)),
            ]),
        )?;
        return Ok(Value::Bool(false));
    }
    call.write(
        &challenged_key(id, &runner),
        &cbor::encode(&Value::Uint(height)),
    )?;
    let me = call.me;
    call.move_from(&me, Some(&challenger), bond)?;
    let (reward, burned) = with_registry(call, |raw| {
        let stake = load_stake(raw, &runner)?.map_or(0, |s| s.slashable());
        let amount =
            mul_div(stake, u128::from(raw.params.challenge_slash_bps), 10_000).unwrap_or(0);
        let reward = amount.min(raw.params.challenge_bond_wei);
        let paid = slash(raw, &runner, reward, Some(&challenger))?.taken;
        let burned = slash(raw, &runner, amount - paid, None)?.taken;
        apply_reputation(raw, &runner, RepEvent::InvalidResult)?;
        Ok((paid, burned))
    })?;
    *call.burned = call.burned.saturating_add(burned);
    // Anomaly review: what was held of the runner's pay goes back to the submitter.
    let refunded = anomaly::refund(call, id, &runner)?;
    call.emit(
        "ChallengeProven",
        &Value::Map(vec![
            (t("job_id"), Value::Bytes(id.0.to_vec())),
            (t("runner"), addr_value(&runner)),
            (t("challenger"), addr_value(&challenger)),
            (t("reward"), Value::from_u128(reward)),
            (t("burned"), Value::from_u128(burned)),
            (t("refunded"), Value::from_u128(refunded)),
        ]),
    )?;
    Ok(Value::Bool(true))
}
