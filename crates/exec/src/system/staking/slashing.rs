//! Jailing and slashing (whitepaper "Slashing": the conservative table).
//!
//! | offence | penalty | how it reaches the chain |
//! |---|---|---|
//! | double signing, proposer equivocation | jail + slash `double_sign_slash_bps` (1%) | [`submit_evidence`], by anyone |
//! | downtime: > `downtime_max_missed_bps` of a `downtime_window_blocks` window | jail | the vote record every block may carry ([`super::downtime`]) |
//! | an invalid block proposal (stateless faults only) | jail | [`submit_evidence`] with tag `3` (the block), `4` (one transaction and its path) or `5` (the header), by anyone ([`super::invalid_proposal`]) |
//!
//! A jailed validator stays in the current epoch's set (consensus cannot change its set
//! mid-epoch) and is left out of every later one until it calls `unjail`, allowed
//! `jail_period_secs` (in blocks) after the jailing. Slashed stake is burned (§8.4).
//!
//! **Evidence** is what commonware's simplex reports as a fault, encoded with commonware's
//! codec after a one-byte tag: `0` `ConflictingNotarize` (two notarize votes for different
//! proposals in one round; a leader's two proposals show up as this too), `1`
//! `ConflictingFinalize`, `2` `NullifyFinalize`. Both signatures are checked on chain with
//! simplex's Ed25519 scheme built over the offence epoch's active set (keys sorted as
//! commonware's `Set` sorts them) and the chain's consensus namespace, so the evidence is
//! exactly what a validator's own engine accepts. The consensus epoch is the staking epoch:
//! the node keeps that contract when it moves consensus to the staked set. Evidence is
//! accepted while its epoch's set is kept (the unbonding period): after that the offender's
//! stake may have left. Each offence (validator, epoch, view) is punished once.

use commonware_codec::{Copying, DecodeExt};
use commonware_consensus::simplex::scheme::ed25519::Scheme as VoteScheme;
use commonware_consensus::simplex::types::{
    Attributable, ConflictingFinalize, ConflictingNotarize, NullifyFinalize,
};
use commonware_consensus::{Epochable, Viewable};
use commonware_cryptography::sha256;
use cowboy_types::cbor::Value;
use cowboy_types::Address;

use super::addr_value;
use super::downtime::participants;
use super::error::StakingError;
use super::invalid_proposal::{INVALID_HEADER, INVALID_PROPOSAL, INVALID_TRANSACTION};
use super::record::{load, load_set, punished_key, store};
use crate::system::store::Store;
use crate::system::{Call, CallError};

/// `submit_evidence`'s tag for a `ConflictingNotarize` (two notarize votes in one view).
pub const CONFLICTING_NOTARIZE: u8 = 0;
/// `submit_evidence`'s tag for a `ConflictingFinalize` (two finalize votes in one view).
pub const CONFLICTING_FINALIZE: u8 = 1;
/// `submit_evidence`'s tag for a `NullifyFinalize` (a nullify and a finalize in one view).
pub const NULLIFY_FINALIZE: u8 = 2;

/// The namespace consensus signs votes under on chain `chain_id` (the node's, one home).
pub fn consensus_namespace(chain_id: u64) -> Vec<u8> {
    format!("cowboy-{chain_id}").into_bytes()
}

/// Jail validator `a` until `jail_blocks` from now; `reason` goes in the event.
pub fn jail<S: Store + ?Sized>(s: &mut S, a: &Address, reason: &str) -> Result<(), CallError> {
    let mut v = load(s, a)?.ok_or(StakingError::NotRegistered(*a))?;
    let until = s.height().saturating_add(s.params().jail_blocks());
    v.jailed_until = Some(until);
    store(s, a, &v)?;
    s.emit(
        "ValidatorJailed",
        Value::Map(vec![
            (Value::Text("validator".into()), addr_value(a)),
            (Value::Text("until".into()), Value::Uint(until)),
            (Value::Text("reason".into()), Value::Text(reason.into())),
        ]),
    )
}

/// Burn `bps` of validator `a`'s stake; returns the wei burned.
pub fn slash<S: Store + ?Sized>(s: &mut S, a: &Address, bps: u64) -> Result<u128, CallError> {
    let mut v = load(s, a)?.ok_or(StakingError::NotRegistered(*a))?;
    let amount =
        crate::system::runners::stake::mul_div(v.stake, u128::from(bps.min(10_000)), 10_000)
            .unwrap_or(0);
    v.stake -= amount;
    store(s, a, &v)?;
    s.pay(None, amount)?;
    s.emit(
        "ValidatorSlashed",
        Value::Map(vec![
            (Value::Text("validator".into()), addr_value(a)),
            (Value::Text("amount".into()), Value::from_u128(amount)),
            (Value::Text("stake".into()), Value::from_u128(v.stake)),
        ]),
    )?;
    Ok(amount)
}

type Digest = sha256::Digest;

/// A fault as commonware's simplex reports it (see the module docs for the encoding).
enum Evidence {
    Notarize(ConflictingNotarize<VoteScheme, Digest>),
    Finalize(ConflictingFinalize<VoteScheme, Digest>),
    NullifyFinalize(NullifyFinalize<VoteScheme, Digest>),
}

impl Evidence {
    fn decode(bytes: &[u8]) -> Result<Evidence, StakingError> {
        let (tag, body) = bytes
            .split_first()
            .ok_or_else(|| StakingError::BadEvidence("empty".into()))?;
        let bad =
            |e: commonware_codec::Error| StakingError::BadEvidence(format!("does not decode: {e}"));
        Ok(match tag {
            &CONFLICTING_NOTARIZE => {
                Evidence::Notarize(ConflictingNotarize::decode(Copying(body)).map_err(bad)?)
            }
            &CONFLICTING_FINALIZE => {
                Evidence::Finalize(ConflictingFinalize::decode(Copying(body)).map_err(bad)?)
            }
            &NULLIFY_FINALIZE => {
                Evidence::NullifyFinalize(NullifyFinalize::decode(Copying(body)).map_err(bad)?)
            }
            t => {
                return Err(StakingError::BadEvidence(format!(
                    "unknown evidence kind {t}"
                )))
            }
        })
    }

    /// Epoch, view and the signer's index in that epoch's participant set.
    fn round(&self) -> (u64, u64, usize) {
        let (e, v, p) = match self {
            Evidence::Notarize(f) => (f.epoch(), f.view(), f.signer()),
            Evidence::Finalize(f) => (f.epoch(), f.view(), f.signer()),
            Evidence::NullifyFinalize(f) => (f.epoch(), f.view(), f.signer()),
        };
        (e.get(), v.get(), usize::from(p))
    }

    /// Whether both signatures verify under `scheme`.
    fn verify(&self, scheme: &VoteScheme) -> bool {
        let mut rng = fixed_rng();
        let strategy = commonware_parallel::Sequential;
        match self {
            Evidence::Notarize(f) => f.verify(&mut rng, scheme, &strategy),
            Evidence::Finalize(f) => f.verify(&mut rng, scheme, &strategy),
            Evidence::NullifyFinalize(f) => f.verify(&mut rng, scheme, &strategy),
        }
    }
}

/// The rng a vote check is handed: an Ed25519 attestation check draws no randomness, but the
/// interface asks for an rng, so it gets a fixed one, and the verdict is the same on every
/// validator.
pub(super) fn fixed_rng() -> commonware_utils::rng::TestRng {
    commonware_utils::rng::TestRng::new(0)
}

/// Participant `signer` of `epoch`'s set (simplex's numbering): its validator address, and
/// the verifier of that epoch's votes under the chain's consensus namespace.
pub(super) fn voter(
    call: &mut Call<'_>,
    epoch: u64,
    signer: usize,
) -> Result<(Address, VoteScheme), CallError> {
    let members = load_set(call, epoch)?.ok_or(StakingError::UnknownEpoch(epoch))?;
    let set = participants(&members)?;
    let offender = *set
        .addresses
        .get(signer)
        .ok_or_else(|| StakingError::BadEvidence(format!("signer {signer} is outside the set")))?;
    let scheme = VoteScheme::verifier(&consensus_namespace(call.env.chain_id), set.keys);
    Ok((offender, scheme))
}

/// Jail `offender` for `reason` unless it already is, then emit `EvidenceAccepted` for its
/// offence in round (`epoch`, `view`) as participant `signer`, with `burned` wei slashed and
/// any `more` fields.
pub(super) fn accepted(
    call: &mut Call<'_>,
    offender: &Address,
    reason: &str,
    (epoch, view, signer): (u64, u64, usize),
    burned: u128,
    more: Vec<(Value, Value)>,
) -> Result<(), CallError> {
    let already_jailed = load(call, offender)?.is_some_and(|v| v.jailed_until.is_some());
    if !already_jailed {
        jail(call, offender, reason)?;
    }
    let mut fields = vec![
        (Value::Text("validator".into()), addr_value(offender)),
        (Value::Text("epoch".into()), Value::Uint(epoch)),
        (Value::Text("view".into()), Value::Uint(view)),
        (Value::Text("signer".into()), Value::Uint(signer as u64)),
        (Value::Text("burned".into()), Value::from_u128(burned)),
    ];
    fields.extend(more);
    call.emit("EvidenceAccepted", &Value::Map(fields))
}

/// `submit_evidence(evidence)`: verify a fault (see the module docs), then slash the offender
/// `double_sign_slash_bps` and jail it. Charged `validator_call_cycles` and two signature
/// checks before any work, plus the set read.
pub fn submit_evidence(call: &mut Call<'_>, bytes: &[u8]) -> Result<Value, CallError> {
    if let Some((&tag @ (INVALID_PROPOSAL | INVALID_TRANSACTION | INVALID_HEADER), body)) =
        bytes.split_first()
    {
        return super::invalid_proposal::submit(call, tag, body);
    }
    let p = call.params;
    call.charge(
        p.validator_call_cycles
            .saturating_add(p.verify_signature_cycles.saturating_mul(2)),
    )?;
    let evidence = Evidence::decode(bytes)?;
    let (epoch, view, signer) = evidence.round();
    let (offender, scheme) = voter(call, epoch, signer)?;
    if !evidence.verify(&scheme) {
        return Err(StakingError::BadEvidence(
            "a signature does not verify for its signer in that epoch's set".into(),
        )
        .into());
    }
    if call.read(&punished_key(&offender, epoch, view))?.is_some() {
        return Err(StakingError::AlreadyPunished.into());
    }
    call.write(&punished_key(&offender, epoch, view), &[1])?;
    let burned = slash(call, &offender, p.double_sign_slash_bps)?;
    let round = (epoch, view, signer);
    accepted(call, &offender, "equivocation", round, burned, Vec::new())?;
    Ok(Value::from_u128(burned))
}
