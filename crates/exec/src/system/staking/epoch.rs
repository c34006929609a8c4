//! Epochs, the active set and rewards (whitepaper §6.1 "Validator Set", "Staking and Rewards";
//! §8.2 inflation).
//!
//! Epoch `e` is heights `[e·E, (e+1)·E)` with `E = epoch_blocks`. Its active set and seed are
//! fixed in the `end_block` of the last block of epoch `e − 1` ([`boundary`]), so once that
//! block is final the node knows who votes on the next one ([`active_set`]). The boundary:
//!
//! 1. pays epoch `e − 1`'s minted rewards to its members, in proportion to their power;
//! 2. applies key rotations, and takes every registered validator that has not signalled an
//!    exit, is not jailed and still holds `minimum_validator_stake_wei` into the new set with
//!    voting power = stake (no cap), ordered by address;
//! 3. derives the epoch seed `keccak256("cowboy-epoch-seed" ‖ e ‖ R)` from the boundary
//!    block's randomness `R` (the threshold beacon's output where the chain runs one): the node
//!    shuffles the epoch's leader rotation with it ([`stored_epoch_seed`]);
//! 4. forgets the set and seed of the epoch that left the evidence window ([`kept_epochs`]);
//! 5. says what it did in the block's hook events: `RewardPaid` per member of the closing set, `KeysApplied`,
//!    `ValidatorActivated` and `ValidatorDeactivated` per validator changed, then
//!    `EpochStarted` (exec README, "Hook events").
//!
//! Rewards: every block whose epoch has a set mints `per_block_mint` into the staking actor's
//! balance (counted in the block's `minted`), and adds it to the epoch's `minted` tally; the
//! boundary pays each member `floor(minted × power / total power)`. The rounding remainder
//! (less than one wei per member) stays in the staking actor's balance: it is in the supply,
//! owned by nobody. Paying once per epoch rather than per block keeps a block's hook O(1)
//! whatever the size of the set; the boundary is O(registered validators), at most
//! `total_supply_wei / minimum_validator_stake_wei`.

use cowboy_state::{Context, StateDb};
use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::hash::keccak256_concat;
use cowboy_types::system::STAKING;
use cowboy_types::{Address, Hash32};

use super::record::{
    claim, decode_set, load, load_amount, load_index, load_set, minted_key, release, seed_key,
    set_key, store, store_index, store_set, Keys, SetMember, Validator,
};
use super::{addr_value, t};
use crate::state::{SResult, StateFailure};
use crate::system::runners::stake::mul_div;
use crate::system::store::{put_value, Raw, Store};
use crate::system::{move_out, CallError, Hook, SystemState};

/// The epoch of block `height`.
pub fn epoch_of(params: &GenesisParams, height: u64) -> u64 {
    height / params.epoch_blocks.max(1)
}

/// Whether block `height` is the last of its epoch (its `end_block` takes the next set).
pub fn is_boundary(params: &GenesisParams, height: u64) -> bool {
    height
        .wrapping_add(1)
        .is_multiple_of(params.epoch_blocks.max(1))
}

/// Epochs whose set is kept: enough to cover the unbonding period, so evidence against a
/// validator can be checked for as long as its stake cannot have left, plus the current one.
pub fn kept_epochs(params: &GenesisParams) -> u64 {
    params
        .unbonding_blocks()
        .div_ceil(params.epoch_blocks.max(1))
        .saturating_add(1)
}

/// The wei minted by block `height` (§8.2): the year's rate of the genesis supply, spread
/// evenly over the year's blocks (floor). Years are counted in blocks from genesis.
pub fn per_block_mint(params: &GenesisParams, height: u64) -> u128 {
    let per_year = params.blocks_per_year();
    let year = height.saturating_sub(1) / per_year;
    let bps = u128::from(params.inflation_bps(year));
    mul_div(params.total_supply_wei, bps, 10_000 * u128::from(per_year)).unwrap_or(0)
}

/// The seed of epoch `epoch`, derived from randomness `r`.
pub fn epoch_seed(epoch: u64, r: &Hash32) -> Hash32 {
    keccak256_concat(&[&b"cowboy-epoch-seed"[..], &epoch.to_be_bytes(), &r.0])
}

/// A failure inside a hook: the actor's own records are corrupt, never the block's fault.
fn in_hook<T>(r: Result<T, CallError>) -> SResult<T> {
    r.map_err(|e| match e {
        CallError::State(s) => s,
        CallError::Fail(f) => StateFailure::Invariant(format!("staking hook failed: {f:?}")),
    })
}

/// The staking actor's own storage view at `height` (also the reshare records': `crate::reshare`).
pub(crate) fn raw<'s>(
    state: &'s mut dyn SystemState,
    params: &'s GenesisParams,
    height: u64,
) -> Raw<'s> {
    Raw {
        me: STAKING,
        state,
        params,
        height,
        events: Vec::new(),
    }
}

/// Epoch `epoch`'s active set in the block's state (in the set's order, by address), if a
/// set is kept for it: whom the beacon's reshare round chooses its players from
/// (`crate::reshare`).
pub fn set_at(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    height: u64,
    epoch: u64,
) -> SResult<Option<Vec<SetMember>>> {
    let mut s = raw(state, params, height);
    in_hook(load_set(&mut s, epoch))
}

/// The staking actor's `end_block`: this block's mint, then the boundary if it ends an epoch.
pub fn end_block(hook: &mut Hook<'_>) -> SResult<()> {
    let (params, height) = (hook.params, hook.env.height);
    let randomness = hook.env.randomness;
    let mut s = raw(&mut *hook.state, params, height);
    let minted = in_hook(mint(&mut s, height))?;
    if is_boundary(params, height) {
        in_hook(boundary(&mut s, epoch_of(params, height) + 1, &randomness))?;
    }
    hook.events.append(&mut s.events);
    hook.minted = hook.minted.saturating_add(minted);
    Ok(())
}

/// Mint block `height`'s reward into the staking actor if its epoch has a set; the wei minted.
fn mint(s: &mut Raw<'_>, height: u64) -> Result<u128, CallError> {
    let epoch = epoch_of(s.params, height);
    if load_set(s, epoch)?.is_none_or(|set| set.is_empty()) {
        return Ok(0);
    }
    let amount = per_block_mint(s.params, height);
    if amount == 0 {
        return Ok(0);
    }
    let mut me = s.state.account(&STAKING)?;
    me.balance = me.balance.saturating_add(amount);
    s.state.set_account(&STAKING, &me)?;
    let tally = load_amount(s, &minted_key(epoch))?.saturating_add(amount);
    put_value(s, &minted_key(epoch), &Value::from_u128(tally))?;
    Ok(amount)
}

/// Close epoch `next − 1` and open epoch `next` (see the module docs).
fn boundary(s: &mut Raw<'_>, next: u64, randomness: &Hash32) -> Result<(), CallError> {
    let closing = next - 1;
    pay_rewards(s, closing)?;
    let index = load_index(s)?;
    if index.is_empty() {
        return Ok(());
    }
    let floor = s.params.minimum_validator_stake_wei;
    let mut set = Vec::new();
    for a in &index {
        let mut v = load(s, a)?.ok_or_else(|| super::record::corrupt("index names no record"))?;
        let before = v.clone();
        if let Some(keys) = v.next_keys.take() {
            release(s, &v.keys)?;
            claim(s, a, &keys)?;
            v.keys = keys;
        }
        v.in_set = v.withdraw_at.is_none() && v.jailed_until.is_none() && v.stake >= floor;
        if v.keys != before.keys {
            s.emit(
                "KeysApplied",
                event(
                    a,
                    next,
                    [
                        ("bls_key", Value::Bytes(v.keys.bls.to_vec())),
                        ("consensus_key", Value::Bytes(v.keys.ed25519.to_vec())),
                    ],
                ),
            )?;
        }
        if v.in_set && !before.in_set {
            s.emit(
                "ValidatorActivated",
                event(a, next, [("power", Value::from_u128(v.stake))]),
            )?;
        } else if before.in_set && !v.in_set {
            let reason = if v.withdraw_at.is_some() {
                "exiting"
            } else if v.jailed_until.is_some() {
                "jailed"
            } else {
                "below_minimum"
            };
            s.emit(
                "ValidatorDeactivated",
                event(a, next, [("reason", t(reason))]),
            )?;
        }
        if v.in_set {
            set.push(SetMember {
                address: *a,
                power: v.stake,
                keys: v.keys,
            });
        }
        if v != before {
            store(s, a, &v)?;
        }
    }
    if set.is_empty() {
        // No validator qualifies (all exited, jailed or under the floor): an empty set could
        // never finalize another block, so the closing epoch's set votes on, as it stands.
        set = load_set(s, closing)?.unwrap_or_default();
    }
    store_set(s, next, &set)?;
    let seed = epoch_seed(next, randomness);
    put_value(s, &seed_key(next), &Value::Bytes(seed.0.to_vec()))?;
    let power = set.iter().map(|m| m.power).fold(0, u128::saturating_add);
    s.emit(
        "EpochStarted",
        Value::Map(vec![
            (t("epoch"), Value::Uint(next)),
            (t("validators"), Value::Uint(set.len() as u64)),
            (t("power"), Value::from_u128(power)),
            (t("seed"), Value::Bytes(seed.0.to_vec())),
        ]),
    )?;
    if let Some(old) = next.checked_sub(kept_epochs(s.params)) {
        s.del(&set_key(old))?;
        s.del(&seed_key(old))?;
    }
    Ok(())
}

/// Pay epoch `epoch`'s minted tally to its set, in proportion to power.
fn pay_rewards(s: &mut Raw<'_>, epoch: u64) -> Result<(), CallError> {
    let minted = load_amount(s, &minted_key(epoch))?;
    if minted == 0 {
        return Ok(());
    }
    s.del(&minted_key(epoch))?;
    let set = load_set(s, epoch)?.unwrap_or_default();
    let total: u128 = set.iter().map(|m| m.power).fold(0, u128::saturating_add);
    for m in &set {
        let share = mul_div(minted, m.power, total).unwrap_or(0);
        move_out(&mut *s.state, &STAKING, Some(&m.address), share)?;
        s.emit(
            "RewardPaid",
            event(&m.address, epoch, [("amount", Value::from_u128(share))]),
        )?;
    }
    Ok(())
}

/// A boundary event's payload: `{validator, epoch, …fields}`.
fn event<const N: usize>(a: &Address, epoch: u64, fields: [(&str, Value); N]) -> Value {
    let mut map = vec![
        (t("validator"), addr_value(a)),
        (t("epoch"), Value::Uint(epoch)),
    ];
    map.extend(fields.into_iter().map(|(k, v)| (t(k), v)));
    Value::Map(map)
}

/// A validator of the genesis set: staked and active in epoch 0 with no ceremony.
#[derive(Debug, Clone)]
pub struct GenesisValidator {
    /// Its address (the self-bonding account, which receives its rewards).
    pub address: Address,
    /// Its stake, counted in the genesis supply.
    pub stake: u128,
    /// Its keys (the genesis file's; the node checked they decode).
    pub keys: Keys,
}

/// Seed the staking actor at genesis: every validator registered, in epoch 0's set, its stake
/// in the actor's balance. Duplicate addresses or keys are refused.
pub fn apply_genesis(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    validators: &[GenesisValidator],
) -> SResult<()> {
    if validators.is_empty() {
        return Ok(());
    }
    // The account first: storage lives under an existing account. Its balance holds every stake.
    let total = validators
        .iter()
        .fold(0u128, |sum, v| sum.saturating_add(v.stake));
    let mut me = state.account(&STAKING)?;
    me.balance = me.balance.saturating_add(total);
    state.set_account(&STAKING, &me)?;
    let mut s = raw(state, params, 0);
    let mut index: Vec<Address> = validators.iter().map(|v| v.address).collect();
    index.sort_by_key(|a| a.0);
    index.dedup();
    if index.len() != validators.len() {
        return Err(StateFailure::Invariant(
            "genesis validators: an address appears twice".into(),
        ));
    }
    let mut set = Vec::with_capacity(validators.len());
    for g in validators {
        for (kind, k) in [("bls", &g.keys.bls[..]), ("ed25519", &g.keys.ed25519[..])] {
            if in_hook(super::record::holder(&mut s, kind, k))?.is_some() {
                return Err(StateFailure::Invariant(format!(
                    "genesis validators: a {kind} key appears twice"
                )));
            }
        }
        in_hook(claim(&mut s, &g.address, &g.keys))?;
        let v = Validator {
            stake: g.stake,
            keys: g.keys,
            next_keys: None,
            in_set: true,
            withdraw_at: None,
            jailed_until: None,
        };
        in_hook(store(&mut s, &g.address, &v))?;
        set.push(SetMember {
            address: g.address,
            power: g.stake,
            keys: g.keys,
        });
    }
    set.sort_by_key(|m| m.address.0);
    in_hook(store_index(&mut s, &index))?;
    in_hook(store_set(&mut s, 0, &set))?;
    let seed = epoch_seed(0, &Hash32([0; 32]));
    in_hook(put_value(
        &mut s,
        &seed_key(0),
        &Value::Bytes(seed.0.to_vec()),
    ))
}

/// The keys of every registered validator in the committed state of `db` (active, waiting for
/// the next epoch, exiting or jailed), in address order: the peers a node lets connect
/// besides the active set, so that a validator about to join can sync first.
pub async fn registered_keys<E: Context>(db: &StateDb<E>) -> Result<Vec<Keys>, StateFailure> {
    let read = |k: Vec<u8>| async move {
        let bytes = db
            .storage(&STAKING.0, &k)
            .await
            .map_err(StateFailure::State)?;
        bytes
            .map(|b| cbor::decode(&b))
            .transpose()
            .map_err(|_| StateFailure::Invariant("corrupt staking record".into()))
    };
    let index = match read(super::record::index_key()).await? {
        None => return Ok(Vec::new()),
        Some(v) => v,
    };
    let addresses = super::record::decode_index(&index)
        .ok_or_else(|| StateFailure::Invariant("corrupt staking record: index".into()))?;
    let mut keys = Vec::with_capacity(addresses.len());
    for a in &addresses {
        let record = read(super::record::validator_key(a)).await?;
        let v = record
            .as_ref()
            .and_then(Validator::from_value)
            .ok_or_else(|| StateFailure::Invariant("corrupt staking record: validator".into()))?;
        keys.push(v.keys);
        keys.extend(v.next_keys);
    }
    Ok(keys)
}

/// Validator `a`'s record in the committed state of `db` (`None`: not registered).
pub async fn validator<E: Context>(
    db: &StateDb<E>,
    a: &Address,
) -> Result<Option<Validator>, StateFailure> {
    read_committed(db, &super::record::validator_key(a), "validator", |v| {
        Validator::from_value(v)
    })
    .await
}

/// Epoch `epoch`'s seed in the committed state of `db` (`None`: not taken yet, or pruned): what
/// the node shuffles the epoch's leader rotation with. Taken at the same boundary as the set,
/// from that block's randomness, so no member knows the order before the boundary's `R`.
pub async fn stored_epoch_seed<E: Context>(
    db: &StateDb<E>,
    epoch: u64,
) -> Result<Option<Hash32>, StateFailure> {
    read_committed(db, &seed_key(epoch), "epoch seed", |v| match v {
        Value::Bytes(b) => <[u8; 32]>::try_from(b.as_slice()).ok().map(Hash32),
        _ => None,
    })
    .await
}

/// The staking record under `key` in the committed state of `db`, decoded by `decode`
/// (`what` names it when it does not decode).
async fn read_committed<E: Context, T>(
    db: &StateDb<E>,
    key: &[u8],
    what: &str,
    decode: impl Fn(&Value) -> Option<T>,
) -> Result<Option<T>, StateFailure> {
    let Some(bytes) = db
        .storage(&STAKING.0, key)
        .await
        .map_err(StateFailure::State)?
    else {
        return Ok(None);
    };
    cbor::decode(&bytes)
        .ok()
        .and_then(|v| decode(&v))
        .map(Some)
        .ok_or_else(|| StateFailure::Invariant(format!("corrupt staking record: {what}")))
}

/// The staking actor's storage key of epoch `epoch`'s active set (the entry [`active_set`]
/// reads): what a node proves against a boundary block's state root so that a peer who
/// never executed the epoch learns the next set (the node's `snapshot_sync`).
pub fn active_set_key(epoch: u64) -> Vec<u8> {
    set_key(epoch)
}

/// An active set from the bytes of its storage entry ([`active_set_key`]); `None` if they are
/// not one. A pure decode, the one [`active_set`] applies.
pub fn decode_active_set(bytes: &[u8]) -> Option<Vec<SetMember>> {
    cbor::decode(bytes).ok().and_then(|v| decode_set(&v))
}

/// Epoch `epoch`'s active set in the committed state of `db`, ordered by address: what the node
/// reads to run consensus for that epoch. `None` if no set is kept for it (not taken yet, or
/// pruned). A pure read: the same state gives the same set on every node.
pub async fn active_set<E: Context>(
    db: &StateDb<E>,
    epoch: u64,
) -> Result<Option<Vec<SetMember>>, StateFailure> {
    read_committed(db, &set_key(epoch), "active set", decode_set).await
}
