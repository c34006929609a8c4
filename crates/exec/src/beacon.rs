//! The threshold randomness beacon's block rule (issue 17 item 3; CIP-2 §10 phase L3; the
//! node README, "The threshold beacon").
//!
//! On a chain with a beacon, block `n` whose `n − k` (`k` = [`BEACON_LAG`]) is at or above the
//! beacon's first height ([`Schedule::from`]) carries `σ_{n−k}`: the group's BLS threshold
//! signature, under the namespace [`NAMESPACE`], over [`message`]`(chain id, n − k, hash of
//! block n − k)`, and its header's randomness is `keccak256(σ)`. Every other block keeps the
//! parent-hash rule ([`crate::header::randomness_after`]), as does every block of a chain
//! without a beacon.
//!
//! **Where the group comes from** ([`schedule`]). Either it was dealt before genesis
//! (`GenesisParams::beacon_group_key`; the beacon covers targets from height 1 on), or the
//! genesis validators generate it on chain (`beacon_dkg = 1`): a distributed key generation
//! with no previous sharing runs as a reshare round ([`crate::reshare`]) in epoch 0 and again
//! each epoch until one succeeds; its outcome block `A` records the group key and first
//! height `A + 1` here ([`record_generated`]), and no party ever held the secret. Before that
//! the chain runs on the parent-hash rule; from then on, as with a dealt group.
//!
//! Why this is unbiasable: honest share holders sign only *finalized* blocks, a BLS signature
//! is unique for its key and message, and any `t` partials recover the same `σ`. So no
//! proposer chooses `R_n`; it can only withhold its block, and the next leader carries the
//! same `σ`. A block without it is invalid: an optional beacon would let the proposer pick
//! between two values.
//!
//! What the block rule cannot see: which block is the chain's `n − k`. Headers name only
//! their parent, and exec holds no block history, so the caller (the node, which stores the
//! chain) passes the hash of block `n − k` on the block's own chain, and the signature is
//! checked over it: a signature over any other block (a fork's, another height's) fails the
//! pairing check. Verification costs one pairing check (two Miller loops) and one hash to
//! G1 per block.
//!
//! The group key never changes once the chain has one: resharing at set changes
//! ([`crate::reshare`]) moves the shares to new holders and keeps the key, so this rule never
//! changes with the set. The schedule is read from the parent's state; once recorded it never
//! changes either, so a later state answers the same for every earlier block.

use commonware_codec::DecodeExt;
use commonware_cryptography::bls12381::primitives::group::{G1, G2};
use commonware_cryptography::bls12381::primitives::ops;
use commonware_cryptography::bls12381::primitives::variant::MinSig;
use cowboy_state::{Context, StateDb};
use cowboy_types::block::BEACON_SIGNATURE_BYTES;
use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::{GenesisParams, BEACON_KEY_BYTES};
use cowboy_types::system::STAKING;
use cowboy_types::{keccak256, Hash32};

use crate::state::{SResult, StateFailure};
use crate::system::staking::raw;
use crate::system::store::{get_value, put_value};
use crate::system::{CallError, SystemState};

/// `k`: block `n` carries the signature over block `n − k`. A leader builds on a parent that
/// is only notarized, and finalization trails notarization by about a round, so block `h` is
/// final (and its partial signatures on their way) about when `h + 3` is built. One home for
/// the number: the node waits for exactly this signature.
pub const BEACON_LAG: u64 = 3;

/// The namespace of beacon signatures (commonware's namespaced signing), so that no other
/// message a share could sign is ever a beacon signature.
pub const NAMESPACE: &[u8] = b"cowboy-beacon-v1";

/// The BLS variant: 96-byte group key on G2, 48-byte signatures on G1 (one per block).
pub type Variant = MinSig;

/// A beacon signature with the hash of the block it is over, as a proposer holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signed {
    /// The hash of the signed block.
    pub target_hash: Hash32,
    /// The group's signature.
    pub signature: [u8; BEACON_SIGNATURE_BYTES],
}

/// What the group signs for block `height` with hash `hash` on chain `chain_id`:
/// `chain_id (8 bytes BE) ‖ height (8 bytes BE) ‖ hash (32)`.
pub fn message(chain_id: u64, height: u64, hash: &Hash32) -> [u8; 48] {
    let mut out = [0u8; 48];
    out[..8].copy_from_slice(&chain_id.to_be_bytes());
    out[8..16].copy_from_slice(&height.to_be_bytes());
    out[16..].copy_from_slice(&hash.0);
    out
}

/// The beacon a block's rule checks against: the group key and the first height whose
/// signature blocks carry (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// The group's public key (compressed G2).
    pub group_key: [u8; BEACON_KEY_BYTES],
    /// The lowest target height: block `n` carries `σ_{n−k}` once `n − k ≥ from`.
    pub from: u64,
}

/// The staking actor's storage key of a generated group: `[from, key bytes]`.
fn generated_key() -> Vec<u8> {
    cbor::encode(&Value::Array(vec![
        Value::Text("beacon".into()),
        Value::Text("generated".into()),
    ]))
}

fn corrupt() -> StateFailure {
    StateFailure::Invariant("corrupt beacon record: generated group".into())
}

fn state_err(e: CallError) -> StateFailure {
    match e {
        CallError::State(s) => s,
        CallError::Fail(f) => StateFailure::Invariant(format!("beacon storage: {f:?}")),
    }
}

fn parse_generated(v: &Value) -> SResult<Schedule> {
    match v {
        Value::Array(items) if items.len() == 2 => match (&items[0], &items[1]) {
            (Value::Uint(from), Value::Bytes(key)) => Ok(Schedule {
                group_key: key.as_slice().try_into().map_err(|_| corrupt())?,
                from: *from,
            }),
            _ => Err(corrupt()),
        },
        _ => Err(corrupt()),
    }
}

/// Record the group a genesis key generation produced, decided by block `height`'s
/// `end_block` ([`crate::reshare`]): blocks carry signatures over targets from `height + 1`.
/// Called once in a chain's life; a second call is a bug of the caller.
pub fn record_generated(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    height: u64,
    group_key: [u8; BEACON_KEY_BYTES],
) -> SResult<()> {
    let mut s = raw(state, params, height);
    if get_value(&mut s, &generated_key())
        .map_err(state_err)?
        .is_some()
    {
        return Err(StateFailure::Invariant(
            "the beacon's group was generated already".into(),
        ));
    }
    let v = Value::Array(vec![
        Value::Uint(height + 1),
        Value::Bytes(group_key.to_vec()),
    ]);
    put_value(&mut s, &generated_key(), &v).map_err(state_err)
}

/// The schedule when it does not depend on state: `Some(schedule)` on a chain whose group
/// was dealt (`beacon_group_key`) or that has no beacon; `None` on a chain that generates its
/// group, whose schedule is read from state ([`schedule`]).
pub fn fixed_schedule(params: &GenesisParams) -> Option<Option<Schedule>> {
    match params.beacon_group_key {
        Some(group_key) => Some(Some(Schedule { group_key, from: 1 })),
        None if params.beacon_by_dkg() => None,
        None => Some(None),
    }
}

/// The beacon in the state of a block at `height` (its parent's state, or any later one on
/// its chain: see the module docs). `None`: no beacon yet, or none on this chain.
pub fn schedule(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    height: u64,
) -> SResult<Option<Schedule>> {
    if let Some(fixed) = fixed_schedule(params) {
        return Ok(fixed);
    }
    let mut s = raw(state, params, height);
    get_value(&mut s, &generated_key())
        .map_err(state_err)?
        .map(|v| parse_generated(&v))
        .transpose()
}

/// [`schedule`] in the committed state of `db`.
pub async fn committed_schedule<E: Context>(
    db: &StateDb<E>,
    params: &GenesisParams,
) -> SResult<Option<Schedule>> {
    if let Some(fixed) = fixed_schedule(params) {
        return Ok(fixed);
    }
    let Some(bytes) = db
        .storage(&STAKING.0, &generated_key())
        .await
        .map_err(StateFailure::State)?
    else {
        return Ok(None);
    };
    parse_generated(&cbor::decode(&bytes).map_err(|_| corrupt())?).map(Some)
}

/// The height whose signature block `height` must carry, if it must carry one under
/// `schedule` (a chain with a beacon, a target at or above its first height).
pub fn target_height(schedule: Option<&Schedule>, height: u64) -> Option<u64> {
    let from = schedule?.from.max(1);
    height.checked_sub(BEACON_LAG).filter(|h| *h >= from)
}

/// The randomness `R_n` of a block carrying `signature`.
pub fn randomness_of(signature: &[u8; BEACON_SIGNATURE_BYTES]) -> Hash32 {
    keccak256(signature)
}

/// Why a block's beacon signature is not the one the rule requires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BeaconError {
    /// The block carries no signature, and must carry the one over block `target`.
    Missing {
        /// The height the signature must be over.
        target: u64,
    },
    /// The block carries a signature where none is due (a chain without a beacon, or a block
    /// whose target is below the beacon's first height).
    Unexpected,
    /// The signature is not the group's over block `target` with hash `target_hash` (or
    /// does not decode to a point of the group).
    BadSignature {
        /// The height it must be over.
        target: u64,
        /// The hash of that block on this block's chain.
        target_hash: Hash32,
    },
    /// The chain's group key does not decode (a genesis the node should have refused; a
    /// generated key always decodes).
    BadGroupKey,
}

impl std::fmt::Display for BeaconError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BeaconError::Missing { target } => write!(
                f,
                "no beacon signature; the block must carry the group's signature over block \
                 {target}"
            ),
            BeaconError::Unexpected => f.write_str("a beacon signature where none is due"),
            BeaconError::BadSignature {
                target,
                target_hash,
            } => write!(
                f,
                "the beacon signature is not the group's over block {target} ({})",
                target_hash.to_hex()
            ),
            BeaconError::BadGroupKey => f.write_str("the genesis beacon group key does not decode"),
        }
    }
}

/// Decode a group key (checked: a point of G2's prime-order subgroup, not infinity).
pub fn decode_group_key(bytes: &[u8; BEACON_KEY_BYTES]) -> Option<G2> {
    G2::decode(bytes.to_vec()).ok()
}

/// Decode a signature (checked as the key is, on G1).
pub fn decode_signature(bytes: &[u8; BEACON_SIGNATURE_BYTES]) -> Option<G1> {
    G1::decode(bytes.to_vec()).ok()
}

/// Whether `signature` is the group's (`group_key`) over block `height` with hash `hash` on
/// chain `chain_id`. One pairing check.
pub fn verify_signature(
    group_key: &G2,
    chain_id: u64,
    height: u64,
    hash: &Hash32,
    signature: &[u8; BEACON_SIGNATURE_BYTES],
) -> bool {
    let Some(sig) = decode_signature(signature) else {
        return false;
    };
    ops::verify_message::<Variant>(group_key, NAMESPACE, &message(chain_id, height, hash), &sig)
        .is_ok()
}

/// The beacon rule for block `height` carrying `signature` (see the module docs), whose
/// chain's block at `height − BEACON_LAG` has hash `target_hash` (given by the caller when
/// that height exists; `None` below it). Returns the block's randomness when it carries a
/// signature, `None` when the parent-hash rule applies.
pub fn check(
    schedule: Option<&Schedule>,
    chain_id: u64,
    height: u64,
    signature: Option<&[u8; BEACON_SIGNATURE_BYTES]>,
    target_hash: Option<Hash32>,
) -> Result<Option<Hash32>, BeaconError> {
    let Some(target) = target_height(schedule, height) else {
        return match signature {
            None => Ok(None),
            Some(_) => Err(BeaconError::Unexpected),
        };
    };
    let Some(signature) = signature else {
        return Err(BeaconError::Missing { target });
    };
    let key = schedule
        .and_then(|s| decode_group_key(&s.group_key))
        .ok_or(BeaconError::BadGroupKey)?;
    // Without the ancestor's hash nothing can be checked: the caller's chain does not reach
    // down to it, which no valid block can make right.
    let bad = |target_hash| BeaconError::BadSignature {
        target,
        target_hash,
    };
    let target_hash = target_hash.ok_or(bad(Hash32([0; 32])))?;
    if !verify_signature(&key, chain_id, target, &target_hash, signature) {
        return Err(bad(target_hash));
    }
    Ok(Some(randomness_of(signature)))
}
