//! The staking system actor at `0x…0F` (whitepaper §6.1 "Validator Set", "Staking and
//! Rewards", "Slashing"; §8.2): the validator registry, its epochs, rewards and penalties.
//!
//! Lifecycle (self-bonded only; delegation belongs to runners, CIP-13):
//!
//! ```text
//! register ──▶ pending ──(next boundary)──▶ active ──signal_exit──▶ exiting
//!                                             │                       │ (next boundary)
//!                                       jail ▼                       ▼
//!                                          jailed ──unjail──▶ pending  unbonding ──withdraw──▶ gone
//! ```
//!
//! Handlers (the sender is the validator; writes go in the system lane):
//! * `register(bls_key, pop, consensus_key)` with the stake as value, at least
//!   `minimum_validator_stake_wei`. `bls_key` is a compressed BLS12-381 G1 key (MinPk), checked
//!   in the subgroup by commonware's codec; `pop` is its proof of possession: a signature under
//!   the proof-of-possession DST over [`pop_message`] (`"cowboy-validator-pop" ‖ sender ‖
//!   bls_key`), which stops rogue-key attacks on aggregated keys and binds the key to its
//!   registrant. `consensus_key` is the Ed25519 vote and p2p key (not of small order). Each key
//!   is held by one validator at a time.
//! * `add_stake()` with value; power follows at the next boundary.
//! * `rotate_keys(bls_key, pop, consensus_key)`: new keys from the next boundary.
//! * `signal_exit()`: leaves the set at the next boundary; the stake unbonds
//!   `unbonding_period_secs` (in blocks, [`GenesisParams::unbonding_blocks`]) from now.
//! * `withdraw()`: after the unbonding height and once out of the set, the stake is paid back
//!   and the record and keys are forgotten.
//! * `unjail()`: `jail_period_secs` (in blocks) after a jailing; rejoins at the next boundary.
//! * `submit_evidence(evidence)`: by anyone: double signing ([`slashing`]) or an invalid
//!   proposal ([`invalid_proposal`]).
//!
//! Reads: `validator(addr)` (the record with its `status`, or `None`), `active_set(epoch)`
//! (members ordered by address with `power` = stake, or `None`), `epoch()` (the current epoch
//! and its seed). Every handler charges `validator_call_cycles` (register and rotation
//! `validator_register_cycles`, for the pairing check) before any work, plus storage at the
//! actor storage prices; nothing is free.
//!
//! Events: `ValidatorRegistered`, `StakeAdded`, `KeysRotated`, `ExitSignalled`, `Withdrawn`,
//! `Unjailed`, `ValidatorJailed`, `ValidatorSlashed`, `EvidenceAccepted`. Changes a boundary
//! makes (activation, rotation, exit, rewards) are read from the new set, which a block hook
//! records in state rather than in a receipt.

mod downtime;
mod epoch;
pub(crate) use epoch::raw;
mod error;
mod invalid_proposal;
mod record;
pub mod seats;
mod slashing;

use commonware_codec::{Copying, DecodeExt, Encode};
use commonware_cryptography::bls12381;
use commonware_cryptography::bls12381::primitives::group::Private;
use commonware_cryptography::bls12381::primitives::ops;
use commonware_cryptography::bls12381::primitives::variant::{MinPk, Variant};
use cowboy_types::cbor::Value;
use cowboy_types::system::STAKING;
use cowboy_types::Address;

pub use self::downtime::{
    check_votes, count_missed, record_missed_votes, select_votes, CheckedVotes, Misses, VotesError,
    MAX_DOWNTIME_WINDOW, VOTE_RECORD_LAG,
};
pub use self::epoch::{
    active_set, active_set_key, apply_genesis, decode_active_set, epoch_of, epoch_seed,
    is_boundary, kept_epochs, per_block_mint, registered_keys, set_at, stored_epoch_seed,
    validator, GenesisValidator,
};
pub use self::error::StakingError;
pub use self::invalid_proposal::{
    invalid_proposal_evidence, Exhibit, ProposalFault, ProposedBlock, SplitBlock, INVALID_HEADER,
    INVALID_PROPOSAL, INVALID_TRANSACTION,
};
pub use self::record::{Keys, SetMember, Validator};
pub use self::slashing::{
    consensus_namespace, CONFLICTING_FINALIZE, CONFLICTING_NOTARIZE, NULLIFY_FINALIZE,
};

use self::record::{
    claim, holder, load, load_index, load_set, release, seed_key, store, store_index,
};
use super::store::get_value;
use super::{Args, Call, CallError, Hook, SystemActor};
use crate::lanes::Lane;
use crate::state::SResult;

/// The staking actor.
pub struct Staking;

const HANDLERS: &str = "register, add_stake, rotate_keys, signal_exit, withdraw, unjail, \
     submit_evidence, validator, active_set, epoch";

/// The namespace of the proof of possession.
pub const POP_NAMESPACE: &[u8] = b"cowboy-validator-pop";

/// What a validator's proof of possession signs: `POP_NAMESPACE ‖ address ‖ bls_key`.
pub fn pop_message(address: &Address, bls_key: &[u8; 48]) -> Vec<u8> {
    [POP_NAMESPACE, &address.0[..], &bls_key[..]].concat()
}

/// The BLS12-381 private key of a 32-byte seed (a devnet's or a test's fixed key; an operator
/// generates its own): the seed, big-endian, with its top two bits cleared so it is below the
/// group order. `None` for the one seed that gives zero.
pub fn bls_key_from_seed(seed: &[u8; 32]) -> Option<Private> {
    let mut s = *seed;
    s[0] &= 0x3f;
    Private::decode(Copying(&s[..])).ok()
}

/// The BLS key of a validator whose Ed25519 consensus key has the 32-byte `seed` (the node's
/// `--validator-key` file): `keccak256("bls" ‖ seed)` as a seed ([`bls_key_from_seed`]), so
/// one secret file holds both keys and `cowboy validator register` derives the same key the
/// node does. `None` only for a seed hashing to the one zero key, out of reach.
pub fn validator_bls_key(seed: &[u8]) -> Option<Private> {
    bls_key_from_seed(&cowboy_types::keccak256(&[b"bls".as_slice(), seed].concat()).0)
}

/// The compressed public key of `private`.
pub fn bls_public_key(private: &Private) -> [u8; 48] {
    let public = bls12381::PublicKey::from(ops::compute_public::<MinPk>(private));
    let mut out = [0u8; 48];
    out.copy_from_slice(&public.encode());
    out
}

/// `private`'s proof of possession for validator `address` (what `register` checks).
pub fn sign_pop(private: &Private, address: &Address) -> [u8; 96] {
    let message = pop_message(address, &bls_public_key(private));
    let sig = bls12381::Signature::from(ops::sign::<MinPk>(
        private,
        MinPk::PROOF_OF_POSSESSION,
        &message,
    ));
    let mut out = [0u8; 96];
    out.copy_from_slice(&sig.encode());
    out
}

impl SystemActor for Staking {
    fn address(&self) -> Address {
        STAKING
    }

    fn name(&self) -> &'static str {
        "staking"
    }

    /// Validator updates and slashing are the system lane's traffic (§6.3); reads stay in the
    /// user lane.
    fn lane(&self, handler: &str) -> Lane {
        match handler {
            "validator" | "active_set" | "epoch" => Lane::User,
            _ => Lane::System,
        }
    }

    fn call(
        &self,
        call: &mut Call<'_>,
        handler: &str,
        args: &Args<'_>,
    ) -> Result<Value, CallError> {
        let base = match handler {
            "register" | "rotate_keys" => call.params.validator_register_cycles,
            _ => call.params.validator_call_cycles,
        };
        if handler != "submit_evidence" {
            call.charge(base)?;
        }
        if !matches!(handler, "register" | "add_stake") && call.value != 0 {
            return Err(StakingError::ValueNotAllowed { got: call.value }.into());
        }
        match handler {
            "register" => register(call, args),
            "add_stake" => add_stake(call, args),
            "rotate_keys" => rotate_keys(call, args),
            "signal_exit" => signal_exit(call, args),
            "withdraw" => withdraw(call, args),
            "unjail" => unjail(call, args),
            "submit_evidence" => {
                args.expect_count(1)?;
                slashing::submit_evidence(call, args.blob(0, "evidence")?)
            }
            "validator" => {
                args.expect_count(1)?;
                let a = args.address(0, "validator")?;
                Ok(load(call, &a)?.map_or(Value::Null, |v| public(&v)))
            }
            "active_set" => {
                args.expect_count(1)?;
                let e = uint(args, 0, "epoch")?;
                Ok(load_set(call, e)?.map_or(Value::Null, |set| {
                    Value::Array(set.iter().map(SetMember::to_public_value).collect())
                }))
            }
            "epoch" => {
                args.expect_count(0)?;
                let e = epoch_of(call.params, call.env.height);
                let seed = get_value(call, &seed_key(e))?.unwrap_or(Value::Null);
                Ok(Value::Map(vec![
                    (t("epoch"), Value::Uint(e)),
                    (t("seed"), seed),
                ]))
            }
            other => Err(CallError::fail(
                "NoSuchHandler",
                format!("the staking actor has no handler {other:?} (it has: {HANDLERS})"),
            )),
        }
    }

    fn end_block(&self, hook: &mut Hook<'_>) -> SResult<()> {
        epoch::end_block(hook)
    }
}

pub(super) fn t(s: &str) -> Value {
    Value::Text(s.into())
}

pub(super) fn addr_value(a: &Address) -> Value {
    Value::Bytes(a.0.to_vec())
}

fn uint(args: &Args<'_>, i: usize, name: &str) -> Result<u64, CallError> {
    match args.get(i, name)? {
        Value::Uint(n) => Ok(*n),
        _ => Err(CallError::fail(
            "TypeError",
            format!("argument {name:?} must be a non-negative int"),
        )),
    }
}

/// The record as the `validator` read returns it.
fn public(v: &Validator) -> Value {
    let Value::Map(mut entries) = v.to_value() else {
        return Value::Null;
    };
    entries.push((t("status"), t(v.status())));
    Value::Map(entries)
}

/// Check `(bls_key, pop, consensus_key)` at positions 0–2 for `sender`.
fn read_keys(args: &Args<'_>, sender: &Address) -> Result<Keys, CallError> {
    args.expect_count(3)?;
    let bls: [u8; 48] = args
        .blob(0, "bls_key")?
        .try_into()
        .map_err(|_| StakingError::BadBlsKey)?;
    let public =
        bls12381::PublicKey::decode(Copying(&bls[..])).map_err(|_| StakingError::BadBlsKey)?;
    let pop = bls12381::Signature::decode(Copying(args.blob(1, "pop")?))
        .map_err(|_| StakingError::BadProofOfPossession)?;
    let (public, pop): (&<MinPk as Variant>::Public, &<MinPk as Variant>::Signature) =
        (public.as_ref(), pop.as_ref());
    ops::verify::<MinPk>(
        public,
        MinPk::PROOF_OF_POSSESSION,
        &pop_message(sender, &bls),
        pop,
    )
    .map_err(|_| StakingError::BadProofOfPossession)?;
    let ed25519 =
        super::runners::profile::parse_key(args.get(2, "consensus_key")?).map_err(|e| match e {
            super::runners::error::RegistryError::BadKey(why) => StakingError::BadConsensusKey(why),
            _ => StakingError::BadConsensusKey("malformed"),
        })?;
    Ok(Keys { bls, ed25519 })
}

/// Refuse keys another validator holds or has claimed.
fn keys_free(call: &mut Call<'_>, me: &Address, keys: &Keys) -> Result<(), CallError> {
    for (kind, k) in [("bls", &keys.bls[..]), ("ed25519", &keys.ed25519[..])] {
        if let Some(holder) = holder(call, kind, k)? {
            if holder != *me {
                return Err(StakingError::KeyInUse { kind, holder }.into());
            }
        }
    }
    Ok(())
}

fn register(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    let me = call.sender;
    let need = call.params.minimum_validator_stake_wei;
    if call.value < need {
        return Err(StakingError::StakeTooLow {
            got: call.value,
            need,
        }
        .into());
    }
    let keys = read_keys(args, &me)?;
    if load(call, &me)?.is_some() {
        return Err(StakingError::AlreadyRegistered(me).into());
    }
    keys_free(call, &me, &keys)?;
    claim(call, &me, &keys)?;
    let v = Validator {
        stake: call.value,
        keys,
        next_keys: None,
        in_set: false,
        withdraw_at: None,
        jailed_until: None,
    };
    store(call, &me, &v)?;
    let mut index = load_index(call)?;
    if let Err(at) = index.binary_search_by_key(&me.0, |a| a.0) {
        index.insert(at, me);
    }
    store_index(call, &index)?;
    call.emit(
        "ValidatorRegistered",
        &Value::Map(vec![
            (t("validator"), addr_value(&me)),
            (t("stake"), Value::from_u128(call.value)),
            (t("bls_key"), Value::Bytes(keys.bls.to_vec())),
            (t("consensus_key"), Value::Bytes(keys.ed25519.to_vec())),
            (
                t("active_from_epoch"),
                Value::Uint(epoch_of(call.params, call.env.height) + 1),
            ),
        ]),
    )?;
    Ok(Value::Null)
}

/// The sender's record, which must exist and not be exiting.
fn bonded(call: &mut Call<'_>) -> Result<Validator, CallError> {
    let me = call.sender;
    let v = load(call, &me)?.ok_or(StakingError::NotRegistered(me))?;
    if v.withdraw_at.is_some() {
        return Err(StakingError::Exiting(me).into());
    }
    Ok(v)
}

fn add_stake(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(0)?;
    if call.value == 0 {
        return Err(StakingError::NoValue.into());
    }
    let mut v = bonded(call)?;
    v.stake = v.stake.saturating_add(call.value);
    let me = call.sender;
    store(call, &me, &v)?;
    call.emit(
        "StakeAdded",
        &Value::Map(vec![
            (t("validator"), addr_value(&me)),
            (t("amount"), Value::from_u128(call.value)),
            (t("stake"), Value::from_u128(v.stake)),
        ]),
    )?;
    Ok(Value::from_u128(v.stake))
}

fn rotate_keys(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    let me = call.sender;
    let keys = read_keys(args, &me)?;
    let mut v = bonded(call)?;
    keys_free(call, &me, &keys)?;
    // A second rotation in one epoch replaces the first: its claims are released, except
    // for a key the validator keeps using.
    if let Some(previous) = v.next_keys.take() {
        release(call, &previous)?;
        claim(call, &me, &v.keys)?;
    }
    claim(call, &me, &keys)?;
    v.next_keys = Some(keys);
    store(call, &me, &v)?;
    call.emit(
        "KeysRotated",
        &Value::Map(vec![
            (t("validator"), addr_value(&me)),
            (t("bls_key"), Value::Bytes(keys.bls.to_vec())),
            (t("consensus_key"), Value::Bytes(keys.ed25519.to_vec())),
            (
                t("effective_epoch"),
                Value::Uint(epoch_of(call.params, call.env.height) + 1),
            ),
        ]),
    )?;
    Ok(Value::Null)
}

fn signal_exit(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(0)?;
    let mut v = bonded(call)?;
    let at = call
        .env
        .height
        .saturating_add(call.params.unbonding_blocks());
    v.withdraw_at = Some(at);
    let me = call.sender;
    store(call, &me, &v)?;
    call.emit(
        "ExitSignalled",
        &Value::Map(vec![
            (t("validator"), addr_value(&me)),
            (t("withdraw_at"), Value::Uint(at)),
        ]),
    )?;
    Ok(Value::Uint(at))
}

fn withdraw(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(0)?;
    let me = call.sender;
    let v = load(call, &me)?.ok_or(StakingError::NotRegistered(me))?;
    let withdraw_at = v.withdraw_at.ok_or(StakingError::NotExiting(me))?;
    let height = call.env.height;
    if height < withdraw_at || v.in_set {
        return Err(StakingError::StillBonded {
            withdraw_at,
            height,
            in_set: v.in_set,
        }
        .into());
    }
    release(call, &v.keys)?;
    if let Some(next) = v.next_keys {
        release(call, &next)?;
    }
    call.delete(&record::validator_key(&me))?;
    call.delete(&record::missed_key(&me))?;
    let mut index = load_index(call)?;
    index.retain(|a| *a != me);
    store_index(call, &index)?;
    call.pay(&me, v.stake)?;
    call.emit(
        "Withdrawn",
        &Value::Map(vec![
            (t("validator"), addr_value(&me)),
            (t("amount"), Value::from_u128(v.stake)),
        ]),
    )?;
    Ok(Value::from_u128(v.stake))
}

fn unjail(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(0)?;
    let me = call.sender;
    let mut v = load(call, &me)?.ok_or(StakingError::NotRegistered(me))?;
    let until = v.jailed_until.ok_or(StakingError::NotJailed(me))?;
    let height = call.env.height;
    if height < until {
        return Err(StakingError::StillJailed { until, height }.into());
    }
    v.jailed_until = None;
    store(call, &me, &v)?;
    call.emit(
        "Unjailed",
        &Value::Map(vec![(t("validator"), addr_value(&me))]),
    )?;
    Ok(Value::Null)
}
