//! The registry's storage: its keys, typed CBOR reads (through the system actors' [`Store`]),
//! and the counted lists
//! (`"all"` for paging, `"active"` for candidacy) with O(1) push and swap-remove.
//!
//! The state cannot enumerate keys (they are hashed), which is why the lists exist; a
//! member's slot is kept under `["pos", list, addr]` so removal needs no search.

use cowboy_types::cbor::Value;
use cowboy_types::{Address, Hash32};

use crate::state::StateFailure;
use crate::system::store::{addr, key, text};
pub use crate::system::store::{get_value, put_value, Raw, Store};
use crate::system::CallError;

/// `["runner", addr]` → the runner's profile.
pub fn profile_key(a: &Address) -> Vec<u8> {
    key(vec![text("runner"), addr(a)])
}

/// `["stake", addr]` → the runner's stake.
pub fn stake_key(a: &Address) -> Vec<u8> {
    key(vec![text("stake"), addr(a)])
}

/// `["rep", addr]` → the runner's reputation and job counts.
pub fn rep_key(a: &Address) -> Vec<u8> {
    key(vec![text("rep"), addr(a)])
}

/// `["hb", addr]` → the runner's last heartbeat height.
pub fn heartbeat_key(a: &Address) -> Vec<u8> {
    key(vec![text("hb"), addr(a)])
}

/// `["delegation", runner, delegator]` → the delegator's shares.
pub fn delegation_key(runner: &Address, delegator: &Address) -> Vec<u8> {
    key(vec![text("delegation"), addr(runner), addr(delegator)])
}

/// `["tranches", delegator]` → the delegator's tranche count and next tranche id.
pub fn tranches_key(delegator: &Address) -> Vec<u8> {
    key(vec![text("tranches"), addr(delegator)])
}

/// `["unbond", delegator, n]` → an unbonding tranche.
pub fn unbond_key(delegator: &Address, n: u64) -> Vec<u8> {
    key(vec![text("unbond"), addr(delegator), Value::Uint(n)])
}

/// `["model", hash]` → a model record.
pub fn model_key(h: &Hash32) -> Vec<u8> {
    key(vec![text("model"), Value::Bytes(h.0.to_vec())])
}

/// A registry record that does not decode: the registry wrote it, so the state is corrupt.
pub fn corrupt(what: &str) -> CallError {
    CallError::State(StateFailure::Invariant(format!(
        "corrupt runner-registry record: {what}"
    )))
}

fn get_uint<S: Store + ?Sized>(s: &mut S, key: &[u8]) -> Result<Option<u64>, CallError> {
    match get_value(s, key)? {
        None => Ok(None),
        Some(Value::Uint(n)) => Ok(Some(n)),
        Some(_) => Err(corrupt("expected an int")),
    }
}

/// The counted lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum List {
    /// Every runner with a record (paging).
    All,
    /// Runners that may be candidates (status active).
    Active,
}

impl List {
    fn name(self) -> &'static str {
        match self {
            List::All => "all",
            List::Active => "active",
        }
    }
    fn len_key(self) -> Vec<u8> {
        key(vec![text("list"), text(self.name())])
    }
    fn item_key(self, i: u64) -> Vec<u8> {
        key(vec![text("list"), text(self.name()), Value::Uint(i)])
    }
    fn pos_key(self, a: &Address) -> Vec<u8> {
        key(vec![text("pos"), text(self.name()), addr(a)])
    }

    /// Its length.
    pub fn len<S: Store + ?Sized>(self, s: &mut S) -> Result<u64, CallError> {
        Ok(get_uint(s, &self.len_key())?.unwrap_or(0))
    }

    /// Member at slot `i`.
    pub fn get<S: Store + ?Sized>(self, s: &mut S, i: u64) -> Result<Option<Address>, CallError> {
        match get_value(s, &self.item_key(i))? {
            None => Ok(None),
            Some(Value::Bytes(b)) if b.len() == 20 => {
                let mut a = [0u8; 20];
                a.copy_from_slice(&b);
                Ok(Some(Address(a)))
            }
            Some(_) => Err(corrupt("list item")),
        }
    }

    /// Append `a` (the caller knows it is not a member).
    pub fn push<S: Store + ?Sized>(self, s: &mut S, a: &Address) -> Result<(), CallError> {
        let n = self.len(s)?;
        put_value(s, &self.item_key(n), &addr(a))?;
        put_value(s, &self.pos_key(a), &Value::Uint(n))?;
        put_value(s, &self.len_key(), &Value::Uint(n + 1))
    }

    /// Remove `a` if it is a member: the last member takes its slot.
    pub fn remove<S: Store + ?Sized>(self, s: &mut S, a: &Address) -> Result<(), CallError> {
        let Some(pos) = get_uint(s, &self.pos_key(a))? else {
            return Ok(());
        };
        let n = self.len(s)?;
        let last = n.checked_sub(1).ok_or_else(|| corrupt("empty list"))?;
        if pos != last {
            let moved = self.get(s, last)?.ok_or_else(|| corrupt("list hole"))?;
            put_value(s, &self.item_key(pos), &addr(&moved))?;
            put_value(s, &self.pos_key(&moved), &Value::Uint(pos))?;
        }
        s.del(&self.item_key(last))?;
        s.del(&self.pos_key(a))?;
        if last == 0 {
            s.del(&self.len_key())
        } else {
            put_value(s, &self.len_key(), &Value::Uint(last))
        }
    }
}
