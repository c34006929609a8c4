//! The staking actor's storage: its keys, the validator record, the epoch sets, and typed
//! reads and writes through the system actors' [`Store`].
//!
//! ```text
//! ["val", addr]        → Validator record (map)
//! ["claim", kind, key] → addr holding (or about to hold) that BLS or Ed25519 key
//! ["index"]            → every registered address, sorted (the boundary enumerates it)
//! ["set", e]           → epoch e's active set: [[addr, power, ed25519, bls], …] by address
//! ["seed", e]          → epoch e's randomness (32 bytes)
//! ["minted", e]        → wei minted for epoch e's set so far (paid out at its end)
//! ["missed", addr]     → [window, votes missed in it] (downtime)
//! ["punished", addr, e, view] → 1 (an offence already slashed)
//! ["invalid", addr, e, view]  → 1 (an invalid proposal already jailed)
//! ```
//!
//! The state cannot enumerate keys (they are hashed), which is why the index exists.

use cowboy_types::cbor::Value;
use cowboy_types::Address;

use crate::state::StateFailure;
use crate::system::store::{addr, get_value, key, put_value, text, Store};
use crate::system::CallError;

/// A validator's two keys: BLS12-381 (for the threshold beacon and aggregate certificates to
/// come) and Ed25519 (its consensus votes and p2p identity today).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keys {
    /// Compressed G1 public key (MinPk).
    pub bls: [u8; 48],
    /// Ed25519 public key.
    pub ed25519: [u8; 32],
}

/// A validator's record (`["val", addr]`); the address is the self-bonding account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validator {
    /// Self-bonded stake (wei), held in the staking actor's balance.
    pub stake: u128,
    /// The keys in force.
    pub keys: Keys,
    /// Keys rotated in, effective at the next epoch boundary.
    pub next_keys: Option<Keys>,
    /// Whether it is in the current epoch's active set.
    pub in_set: bool,
    /// Set by `signal_exit`: the first height at which the stake may be withdrawn.
    pub withdraw_at: Option<u64>,
    /// Set while jailed: the first height at which it may `unjail`.
    pub jailed_until: Option<u64>,
}

/// A member of an epoch's active set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetMember {
    /// The validator's address.
    pub address: Address,
    /// Voting power: its stake when the set was taken.
    pub power: u128,
    /// Its keys for the epoch.
    pub keys: Keys,
}

/// `["val", addr]`.
pub fn validator_key(a: &Address) -> Vec<u8> {
    key(vec![text("val"), addr(a)])
}

/// `["claim", kind, key]`.
pub fn claim_key(kind: &str, k: &[u8]) -> Vec<u8> {
    key(vec![text("claim"), text(kind), Value::Bytes(k.to_vec())])
}

/// `["index"]`.
pub fn index_key() -> Vec<u8> {
    key(vec![text("index")])
}

/// `["set", epoch]`.
pub fn set_key(epoch: u64) -> Vec<u8> {
    key(vec![text("set"), Value::Uint(epoch)])
}

/// `["seed", epoch]`.
pub fn seed_key(epoch: u64) -> Vec<u8> {
    key(vec![text("seed"), Value::Uint(epoch)])
}

/// `["minted", epoch]`.
pub fn minted_key(epoch: u64) -> Vec<u8> {
    key(vec![text("minted"), Value::Uint(epoch)])
}

/// `["missed", addr]`.
pub fn missed_key(a: &Address) -> Vec<u8> {
    key(vec![text("missed"), addr(a)])
}

/// `["punished", addr, epoch, view]`.
pub fn punished_key(a: &Address, epoch: u64, view: u64) -> Vec<u8> {
    key(vec![
        text("punished"),
        addr(a),
        Value::Uint(epoch),
        Value::Uint(view),
    ])
}

/// `["invalid", addr, epoch, view]`: kept apart from [`punished_key`], so a jailing for an
/// invalid proposal never spares the same round's equivocation its slash.
pub fn invalid_proposal_key(a: &Address, epoch: u64, view: u64) -> Vec<u8> {
    key(vec![
        text("invalid"),
        addr(a),
        Value::Uint(epoch),
        Value::Uint(view),
    ])
}

/// A staking record that does not decode: the actor wrote it, so the state is corrupt.
pub fn corrupt(what: &str) -> CallError {
    CallError::State(StateFailure::Invariant(format!(
        "corrupt staking record: {what}"
    )))
}

fn fixed<const N: usize>(v: &Value) -> Option<[u8; N]> {
    match v {
        Value::Bytes(b) => b.as_slice().try_into().ok(),
        _ => None,
    }
}

fn address_from(v: &Value) -> Option<Address> {
    fixed::<20>(v).map(Address)
}

fn opt_uint(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::Uint)
}

impl Keys {
    fn to_value(self) -> Value {
        Value::Array(vec![
            Value::Bytes(self.bls.to_vec()),
            Value::Bytes(self.ed25519.to_vec()),
        ])
    }

    fn from_value(v: &Value) -> Option<Keys> {
        match v {
            Value::Array(items) => match items.as_slice() {
                [bls, ed] => Some(Keys {
                    bls: fixed(bls)?,
                    ed25519: fixed(ed)?,
                }),
                _ => None,
            },
            _ => None,
        }
    }
}

impl Validator {
    /// The record as stored (and as the `validator` read returns it, with `status` added).
    pub fn to_value(&self) -> Value {
        Value::Map(vec![
            (text("stake"), Value::from_u128(self.stake)),
            (text("bls_key"), Value::Bytes(self.keys.bls.to_vec())),
            (
                text("consensus_key"),
                Value::Bytes(self.keys.ed25519.to_vec()),
            ),
            (
                text("next_keys"),
                self.next_keys.map_or(Value::Null, Keys::to_value),
            ),
            (text("in_set"), Value::Bool(self.in_set)),
            (text("withdraw_at"), opt_uint(self.withdraw_at)),
            (text("jailed_until"), opt_uint(self.jailed_until)),
        ])
    }

    pub(super) fn from_value(v: &Value) -> Option<Validator> {
        let Value::Map(entries) = v else { return None };
        let get = |name: &str| {
            entries
                .iter()
                .find(|(k, _)| matches!(k, Value::Text(t) if t == name))
                .map(|(_, v)| v)
        };
        let opt = |name: &str| match get(name)? {
            Value::Null => Some(None),
            Value::Uint(n) => Some(Some(*n)),
            _ => None,
        };
        Some(Validator {
            stake: get("stake")?.as_u128()?,
            keys: Keys {
                bls: fixed(get("bls_key")?)?,
                ed25519: fixed(get("consensus_key")?)?,
            },
            next_keys: match get("next_keys")? {
                Value::Null => None,
                k => Some(Keys::from_value(k)?),
            },
            in_set: matches!(get("in_set")?, Value::Bool(true)),
            withdraw_at: opt("withdraw_at")?,
            jailed_until: opt("jailed_until")?,
        })
    }

    /// Its status, as the `validator` read reports it.
    pub fn status(&self) -> &'static str {
        match (self.withdraw_at, self.jailed_until, self.in_set) {
            (Some(_), _, true) => "exiting",
            (Some(_), _, false) => "unbonding",
            (None, Some(_), _) => "jailed",
            (None, None, true) => "active",
            (None, None, false) => "pending",
        }
    }
}

impl SetMember {
    fn to_value(&self) -> Value {
        Value::Array(vec![
            addr(&self.address),
            Value::from_u128(self.power),
            Value::Bytes(self.keys.ed25519.to_vec()),
            Value::Bytes(self.keys.bls.to_vec()),
        ])
    }

    fn from_value(v: &Value) -> Option<SetMember> {
        let Value::Array(items) = v else { return None };
        let [a, power, ed, bls] = items.as_slice() else {
            return None;
        };
        Some(SetMember {
            address: address_from(a)?,
            power: power.as_u128()?,
            keys: Keys {
                bls: fixed(bls)?,
                ed25519: fixed(ed)?,
            },
        })
    }

    /// The member as the `active_set` read returns it.
    pub fn to_public_value(&self) -> Value {
        Value::Map(vec![
            (text("validator"), addr(&self.address)),
            (text("power"), Value::from_u128(self.power)),
            (
                text("consensus_key"),
                Value::Bytes(self.keys.ed25519.to_vec()),
            ),
            (text("bls_key"), Value::Bytes(self.keys.bls.to_vec())),
        ])
    }
}

/// The record of validator `a`, if it has one.
pub fn load<S: Store + ?Sized>(s: &mut S, a: &Address) -> Result<Option<Validator>, CallError> {
    get_value(s, &validator_key(a))?
        .map(|v| Validator::from_value(&v).ok_or_else(|| corrupt("validator")))
        .transpose()
}

/// Write validator `a`'s record.
pub fn store<S: Store + ?Sized>(s: &mut S, a: &Address, v: &Validator) -> Result<(), CallError> {
    put_value(s, &validator_key(a), &v.to_value())
}

/// Who holds (or has claimed) key `k` of `kind`.
pub fn holder<S: Store + ?Sized>(
    s: &mut S,
    kind: &str,
    k: &[u8],
) -> Result<Option<Address>, CallError> {
    get_value(s, &claim_key(kind, k))?
        .map(|v| address_from(&v).ok_or_else(|| corrupt("key claim")))
        .transpose()
}

/// Claim both keys for `a`.
pub fn claim<S: Store + ?Sized>(s: &mut S, a: &Address, keys: &Keys) -> Result<(), CallError> {
    put_value(s, &claim_key("bls", &keys.bls), &addr(a))?;
    put_value(s, &claim_key("ed25519", &keys.ed25519), &addr(a))
}

/// Release both keys.
pub fn release<S: Store + ?Sized>(s: &mut S, keys: &Keys) -> Result<(), CallError> {
    s.del(&claim_key("bls", &keys.bls))?;
    s.del(&claim_key("ed25519", &keys.ed25519))
}

/// Every registered address, sorted.
pub fn load_index<S: Store + ?Sized>(s: &mut S) -> Result<Vec<Address>, CallError> {
    match get_value(s, &index_key())? {
        None => Ok(Vec::new()),
        Some(v) => decode_index(&v).ok_or_else(|| corrupt("index")),
    }
}

/// Decode the stored index.
pub fn decode_index(v: &Value) -> Option<Vec<Address>> {
    match v {
        Value::Array(items) => items.iter().map(address_from).collect(),
        _ => None,
    }
}

/// Write the index (deleted when empty, so a chain whose validators all left stores nothing).
pub fn store_index<S: Store + ?Sized>(s: &mut S, index: &[Address]) -> Result<(), CallError> {
    if index.is_empty() {
        return s.del(&index_key());
    }
    put_value(
        s,
        &index_key(),
        &Value::Array(index.iter().map(addr).collect()),
    )
}

/// Epoch `e`'s active set, if one is stored.
pub fn load_set<S: Store + ?Sized>(
    s: &mut S,
    epoch: u64,
) -> Result<Option<Vec<SetMember>>, CallError> {
    get_value(s, &set_key(epoch))?
        .map(|v| decode_set(&v).ok_or_else(|| corrupt("active set")))
        .transpose()
}

/// Decode a stored active set.
pub fn decode_set(v: &Value) -> Option<Vec<SetMember>> {
    match v {
        Value::Array(items) => items.iter().map(SetMember::from_value).collect(),
        _ => None,
    }
}

/// Write epoch `e`'s active set.
pub fn store_set<S: Store + ?Sized>(
    s: &mut S,
    epoch: u64,
    set: &[SetMember],
) -> Result<(), CallError> {
    let v = Value::Array(set.iter().map(SetMember::to_value).collect());
    put_value(s, &set_key(epoch), &v)
}

/// A stored unsigned amount (zero when absent).
pub fn load_amount<S: Store + ?Sized>(s: &mut S, k: &[u8]) -> Result<u128, CallError> {
    match get_value(s, k)? {
        None => Ok(0),
        Some(v) => v.as_u128().ok_or_else(|| corrupt("amount")),
    }
}
