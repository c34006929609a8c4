//! The entitlement registry's storage (keys and values canonical CBOR, under `0x…07`):
//!
//! | key | value |
//! |---|---|
//! | `["ent", id]` | `{entitlement, grantor, depth, rate_window, rate_used}` ([`Record`]) |
//! | `["held", grantee, keccak256(scope ‖ action)]` | the id of the grantee's one live record for that pair |
//! | `["of", addr]`, `["of", addr, i]`, `["of_pos", addr, id]` | counted list of the address's records (≤ 256) |
//! | `["owner", scope]` | the address that claimed a runner pool or namespace |
//! | `["role", id]` | `{role, creator}` |
//! | `["dset", name]` | a curated HTTP domain set: its domains, sorted |
//! | `["dom", domain]` | the curated set a domain belongs to (at most one) |
//! | `["roles", addr]`, `["roles", addr, i]`, `["roles_pos", addr, id]` | counted list of roles assigned to the address (≤ 64) |
//!
//! [`lookup`] is the one membership test: the registry's `check` and the dispatcher's
//! filter 7 both call it, so they cannot disagree. It reads at most [`LOOKUP_READS`] records.

use cowboy_types::cbor::Value;
use cowboy_types::entitlement::{Action, Entitlement, EntitlementId, Role, Scope};
use cowboy_types::hash::keccak256_concat;
use cowboy_types::{Address, Hash32};

use super::error::EntitlementError;
use crate::state::StateFailure;
use crate::system::store::{addr, get_value, key, put_value, text, Store};
use crate::system::CallError;

/// A stored entitlement with what the registry keeps beside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The §7.1 record.
    pub ent: Entitlement,
    /// Who granted (or delegated) it: with the scope's authority and the grantee, who may
    /// revoke it.
    pub grantor: Address,
    /// Delegation depth: 0 for a grant, the parent's + 1 for a delegation.
    pub depth: u64,
    /// The rate limit's current window (`height / window_blocks`).
    pub rate_window: u64,
    /// Uses in that window.
    pub rate_used: u64,
}

impl Record {
    /// The stored value.
    pub fn to_value(&self) -> Value {
        Value::Map(vec![
            (text("entitlement"), self.ent.to_value()),
            (text("grantor"), addr(&self.grantor)),
            (text("depth"), Value::Uint(self.depth)),
            (text("rate_window"), Value::Uint(self.rate_window)),
            (text("rate_used"), Value::Uint(self.rate_used)),
        ])
    }

    /// Read a stored value.
    pub fn from_value(v: &Value) -> Result<Record, CallError> {
        let Value::Map(entries) = v else {
            return Err(corrupt("record"));
        };
        let f = |name: &str| {
            entries
                .iter()
                .find(|(k, _)| matches!(k, Value::Text(t) if t == name))
                .map(|(_, v)| v)
                .ok_or_else(|| corrupt(name))
        };
        let uint = |name: &str| f(name)?.as_u64().ok_or_else(|| corrupt(name));
        Ok(Record {
            ent: Entitlement::from_value(f("entitlement")?).map_err(|_| corrupt("entitlement"))?,
            grantor: address_of(f("grantor")?)?,
            depth: uint("depth")?,
            rate_window: uint("rate_window")?,
            rate_used: uint("rate_used")?,
        })
    }
}

/// A record that does not decode: the registry wrote it, so the state is corrupt.
pub fn corrupt(what: &str) -> CallError {
    CallError::State(StateFailure::Invariant(format!(
        "corrupt entitlement-registry record: {what}"
    )))
}

fn address_of(v: &Value) -> Result<Address, CallError> {
    match v {
        Value::Bytes(b) if b.len() == 20 => {
            let mut a = [0u8; 20];
            a.copy_from_slice(b);
            Ok(Address(a))
        }
        _ => Err(corrupt("address")),
    }
}

fn hash_of(v: &Value) -> Result<Hash32, CallError> {
    match v {
        Value::Bytes(b) if b.len() == 32 => {
            let mut h = [0u8; 32];
            h.copy_from_slice(b);
            Ok(Hash32(h))
        }
        _ => Err(corrupt("hash")),
    }
}

fn hash_value(h: &Hash32) -> Value {
    Value::Bytes(h.0.to_vec())
}

/// `["ent", id]`.
pub fn ent_key(id: &EntitlementId) -> Vec<u8> {
    key(vec![text("ent"), hash_value(id)])
}

/// `["held", grantee, keccak256(scope ‖ action)]`.
pub fn held_key(grantee: &Address, scope: &Scope, action: &Action) -> Vec<u8> {
    let pair = keccak256_concat(&[&scope.encode(), &action.encode()]);
    key(vec![text("held"), addr(grantee), hash_value(&pair)])
}

/// `["owner", scope]`.
pub fn owner_key(scope: &Scope) -> Vec<u8> {
    key(vec![text("owner"), scope.to_value()])
}

/// `["role", id]`.
pub fn role_key(id: &Hash32) -> Vec<u8> {
    key(vec![text("role"), hash_value(id)])
}

/// The scope under which HTTP access is granted: `Namespace("http")`, whose authority is the
/// genesis `http_domain_curator` (never claimed). Its actions: `Custom(domain)` for one
/// domain, `Custom("@" ‖ set)` for every domain of a curated set, `All` for any.
pub const HTTP_NAMESPACE: &[u8] = b"http";

/// `["dset", name]`.
pub fn domain_set_key(name: &str) -> Vec<u8> {
    key(vec![text("dset"), text(name)])
}

/// `["dom", domain]`.
pub fn domain_key(domain: &str) -> Vec<u8> {
    key(vec![text("dom"), text(domain)])
}

/// The domains of curated set `name` (empty if there is no such set).
pub fn domain_set<S: Store + ?Sized>(s: &mut S, name: &str) -> Result<Vec<String>, CallError> {
    match get_value(s, &domain_set_key(name))? {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|v| match v {
                Value::Text(d) => Ok(d),
                _ => Err(corrupt("domain set entry")),
            })
            .collect(),
        Some(_) => Err(corrupt("domain set")),
    }
}

/// The curated set `domain` belongs to, if any.
pub fn set_of_domain<S: Store + ?Sized>(
    s: &mut S,
    domain: &str,
) -> Result<Option<String>, CallError> {
    match get_value(s, &domain_key(domain))? {
        None => Ok(None),
        Some(Value::Text(set)) => Ok(Some(set)),
        Some(_) => Err(corrupt("domain index")),
    }
}

/// Records [`http_refusal`] reads at most: the domain's set, then two lookups.
pub const HTTP_CHECK_READS: u64 = 1 + 2 * LOOKUP_READS;

/// Whether `actor` may have runners fetch `domain` at `height` (whitepaper: "HTTP access is
/// governed by the Entitlements system"): a domain in no curated set is open; a curated one
/// needs, in `Namespace("http")`, `Custom(domain)`, `Custom("@" ‖ set)` or `All` in force.
/// `Some(set)` when refused. Read-only; at most [`HTTP_CHECK_READS`] reads.
pub fn http_refusal<S: Store + ?Sized>(
    s: &mut S,
    actor: &Address,
    domain: &str,
    height: u64,
) -> Result<Option<String>, CallError> {
    let Some(set) = set_of_domain(s, domain)? else {
        return Ok(None);
    };
    let scope = Scope::Namespace(HTTP_NAMESPACE.to_vec());
    for action in [domain.as_bytes().to_vec(), format!("@{set}").into_bytes()] {
        if lookup(s, actor, &scope, &Action::Custom(action), height)?.is_some() {
            return Ok(None);
        }
    }
    Ok(Some(set))
}

/// Load the record `id`.
pub fn load<S: Store + ?Sized>(s: &mut S, id: &EntitlementId) -> Result<Option<Record>, CallError> {
    get_value(s, &ent_key(id))?
        .map(|v| Record::from_value(&v))
        .transpose()
}

/// The bytes [`save`] writes for a record: its key and its value.
pub fn stored_bytes(r: &Record) -> u64 {
    (ent_key(&r.ent.id()).len() + cowboy_types::cbor::encode(&r.to_value()).len()) as u64
}

/// Store the record (under its own id).
pub fn save<S: Store + ?Sized>(s: &mut S, r: &Record) -> Result<(), CallError> {
    put_value(s, &ent_key(&r.ent.id()), &r.to_value())
}

/// The id the grantee holds for (scope, action), if any.
pub fn held<S: Store + ?Sized>(
    s: &mut S,
    grantee: &Address,
    scope: &Scope,
    action: &Action,
) -> Result<Option<EntitlementId>, CallError> {
    get_value(s, &held_key(grantee, scope, action))?
        .map(|v| hash_of(&v))
        .transpose()
}

/// The address that owns a claimable scope (runner pool, namespace), if claimed.
pub fn owner<S: Store + ?Sized>(s: &mut S, scope: &Scope) -> Result<Option<Address>, CallError> {
    get_value(s, &owner_key(scope))?
        .map(|v| address_of(&v))
        .transpose()
}

/// A role and its creator.
pub fn load_role<S: Store + ?Sized>(
    s: &mut S,
    id: &Hash32,
) -> Result<Option<(Role, Address)>, CallError> {
    let Some(v) = get_value(s, &role_key(id))? else {
        return Ok(None);
    };
    let Value::Array(parts) = &v else {
        return Err(corrupt("role"));
    };
    match parts.as_slice() {
        [role, creator] => Ok(Some((
            Role::from_value(role).map_err(|_| corrupt("role"))?,
            address_of(creator)?,
        ))),
        _ => Err(corrupt("role")),
    }
}

/// Store a role with its creator.
pub fn save_role<S: Store + ?Sized>(
    s: &mut S,
    id: &Hash32,
    role: &Role,
    creator: &Address,
) -> Result<(), CallError> {
    put_value(
        s,
        &role_key(id),
        &Value::Array(vec![role.to_value(), addr(creator)]),
    )
}

/// Records [`lookup`] reads at most: for each of the exact action and `All`, the held index,
/// the record and up to five ancestors.
pub const LOOKUP_READS: u64 = 2 * (1 + MAX_CHAIN);

/// Why a record is not in force at `height`, walking its delegation chain (every ancestor
/// must still exist and be in force: revoking or exhausting a grant ends what was delegated
/// from it). At most `depth` ≤ 5 ancestor reads.
pub fn not_in_force<S: Store + ?Sized>(
    s: &mut S,
    r: &Record,
    height: u64,
) -> Result<Option<&'static str>, CallError> {
    Ok(ancestors_in_force(s, r, height)?.err())
}

/// The ancestors of a record in force at `height` (parent first), or why it is not in force.
/// At most `depth` ≤ 5 reads.
fn ancestors_in_force<S: Store + ?Sized>(
    s: &mut S,
    r: &Record,
    height: u64,
) -> Result<Result<Vec<Record>, &'static str>, CallError> {
    if let Some(why) = own_reason(&r.ent, height) {
        return Ok(Err(why));
    }
    let mut chain = Vec::new();
    let mut parent = r.ent.parent_id;
    while let Some(pid) = parent {
        let Some(p) = load(s, &pid)? else {
            return Ok(Err("a grant it was delegated from was revoked"));
        };
        if own_reason(&p.ent, height).is_some() {
            return Ok(Err("a grant it was delegated from is no longer in force"));
        }
        parent = p.ent.parent_id;
        chain.push(p);
    }
    Ok(Ok(chain))
}

/// Whether a record is dead at `height`: not in force, and not merely waiting for its
/// `valid_from`. A dead record may be pruned by anyone and is replaced by a new grant of its
/// pair; a future-dated one is still held.
pub fn dead<S: Store + ?Sized>(s: &mut S, r: &Record, height: u64) -> Result<bool, CallError> {
    let waiting = r.ent.constraints.valid_from.is_some_and(|f| height < f);
    Ok(!waiting && not_in_force(s, r, height)?.is_some())
}

fn own_reason(e: &Entitlement, height: u64) -> Option<&'static str> {
    let c = &e.constraints;
    if c.expired(height) {
        Some("expired")
    } else if c.valid_from.is_some_and(|f| height < f) {
        Some("not yet valid")
    } else if !c.in_force(height) {
        Some("its uses or amount are spent")
    } else {
        None
    }
}

/// The grantee's record in force at `height` for (scope, action): the exact pair, else the
/// scope's `All`. Read-only; at most [`LOOKUP_READS`] reads.
pub fn lookup<S: Store + ?Sized>(
    s: &mut S,
    grantee: &Address,
    scope: &Scope,
    action: &Action,
    height: u64,
) -> Result<Option<Record>, CallError> {
    Ok(lookup_chain(s, grantee, scope, action, height)?.map(|mut chain| chain.swap_remove(0)))
}

/// As [`lookup`], with the record's delegation chain: the record first, then its ancestors
/// (parent first). Read-only; at most [`LOOKUP_READS`] reads.
pub fn lookup_chain<S: Store + ?Sized>(
    s: &mut S,
    grantee: &Address,
    scope: &Scope,
    action: &Action,
    height: u64,
) -> Result<Option<Vec<Record>>, CallError> {
    for a in [action, &Action::All] {
        if let Some(id) = held(s, grantee, scope, a)? {
            let r = load(s, &id)?.ok_or_else(|| corrupt("held index without record"))?;
            if let Ok(ancestors) = ancestors_in_force(s, &r, height)? {
                let mut chain = vec![r];
                chain.extend(ancestors);
                return Ok(Some(chain));
            }
        }
        if *action == Action::All {
            break;
        }
    }
    Ok(None)
}

/// Whether a use is counted on this chain at all: some record in it bounds uses (`max_uses`
/// or a rate limit). CIP-2 §7.3: an unbounded membership is only checked, never spent.
pub fn counts_uses(chain: &[Record]) -> bool {
    chain.iter().any(|r| {
        let c = &r.ent.constraints;
        c.max_uses > 0 || c.rate_limit.is_some()
    })
}

/// Count one use of `amount` on every record of `chain` (a record and its ancestors, from
/// [`lookup_chain`]), or refuse without changing any: per-use and total amount, uses (a
/// spent record is no longer in force), and the rate window at `height`.
pub fn spend_chain(chain: &mut [Record], amount: u64, height: u64) -> Result<(), EntitlementError> {
    let mut spent = chain.to_vec();
    for r in &mut spent {
        spend(r, amount, height)?;
    }
    chain.clone_from_slice(&spent);
    Ok(())
}

/// Count one use of `amount` on `r`, or refuse.
fn spend(r: &mut Record, amount: u64, height: u64) -> Result<(), EntitlementError> {
    let c = &mut r.ent.constraints;
    if let Some(max) = c.max_amount_per_use {
        if amount > max {
            return Err(EntitlementError::AmountTooLarge { got: amount, max });
        }
    }
    if let Some(total) = c.max_total_amount {
        let left = total.saturating_sub(c.total_amount_used);
        if amount > left {
            return Err(EntitlementError::AmountTooLarge {
                got: amount,
                max: left,
            });
        }
    }
    if let Some(rl) = c.rate_limit {
        let window = height / rl.window_blocks;
        if window != r.rate_window {
            r.rate_window = window;
            r.rate_used = 0;
        }
        if r.rate_used >= rl.max_uses {
            return Err(EntitlementError::RateLimited {
                next_window: (window + 1).saturating_mul(rl.window_blocks),
            });
        }
        r.rate_used += 1;
    }
    c.used_count = c.used_count.saturating_add(1);
    c.total_amount_used = c.total_amount_used.saturating_add(amount);
    Ok(())
}

/// Spend one use of `amount` on `chain` (from [`lookup_chain`]: the record, then its
/// ancestors), save it and emit `EntitlementUsed`: the registry's one consume path, for its
/// `consume` handler and the dispatcher's pool uses. Returns the record's id, or why the use
/// was refused (nothing changed). At most [`MAX_CHAIN`] writes.
pub fn use_chain<S: Store + ?Sized>(
    s: &mut S,
    mut chain: Vec<Record>,
    amount: u64,
) -> Result<Result<EntitlementId, EntitlementError>, CallError> {
    let height = s.height();
    if let Err(e) = spend_chain(&mut chain, amount, height) {
        return Ok(Err(e));
    }
    for r in &chain {
        save(s, r)?;
    }
    let id = chain
        .first()
        .ok_or_else(|| corrupt("an empty delegation chain"))?
        .ent
        .id();
    s.emit(
        "EntitlementUsed",
        Value::Map(vec![
            (text("id"), hash_value(&id)),
            (text("amount"), Value::Uint(amount)),
        ]),
    )?;
    Ok(Ok(id))
}

/// Records in a delegation chain at most: a grant and five delegations.
pub const MAX_CHAIN: u64 = 6;

/// A counted list of hashes owned by an address (records held, roles assigned), with O(1)
/// push and swap-remove; the state cannot enumerate keys, so lists are how an address's
/// entries are found.
#[derive(Clone, Copy)]
pub struct IdList {
    name: &'static str,
    pos: &'static str,
}

/// The records an address holds.
pub const HELD: IdList = IdList {
    name: "of",
    pos: "of_pos",
};
/// The roles assigned to an address.
pub const ROLES: IdList = IdList {
    name: "roles",
    pos: "roles_pos",
};

impl IdList {
    fn len_key(self, a: &Address) -> Vec<u8> {
        key(vec![text(self.name), addr(a)])
    }
    fn item_key(self, a: &Address, i: u64) -> Vec<u8> {
        key(vec![text(self.name), addr(a), Value::Uint(i)])
    }
    fn pos_key(self, a: &Address, id: &Hash32) -> Vec<u8> {
        key(vec![text(self.pos), addr(a), hash_value(id)])
    }

    /// Its length.
    pub fn len<S: Store + ?Sized>(self, s: &mut S, a: &Address) -> Result<u64, CallError> {
        match get_value(s, &self.len_key(a))? {
            None => Ok(0),
            Some(Value::Uint(n)) => Ok(n),
            Some(_) => Err(corrupt("list length")),
        }
    }

    /// Whether `id` is in it.
    pub fn contains<S: Store + ?Sized>(
        self,
        s: &mut S,
        a: &Address,
        id: &Hash32,
    ) -> Result<bool, CallError> {
        Ok(s.get(&self.pos_key(a, id))?.is_some())
    }

    /// The entry at slot `i`.
    pub fn get<S: Store + ?Sized>(
        self,
        s: &mut S,
        a: &Address,
        i: u64,
    ) -> Result<Option<Hash32>, CallError> {
        get_value(s, &self.item_key(a, i))?
            .map(|v| hash_of(&v))
            .transpose()
    }

    /// Append `id` (the caller knows it is not in the list).
    pub fn push<S: Store + ?Sized>(
        self,
        s: &mut S,
        a: &Address,
        id: &Hash32,
    ) -> Result<(), CallError> {
        let n = self.len(s, a)?;
        put_value(s, &self.item_key(a, n), &hash_value(id))?;
        put_value(s, &self.pos_key(a, id), &Value::Uint(n))?;
        put_value(s, &self.len_key(a), &Value::Uint(n + 1))
    }

    /// Remove `id` if present: the last entry takes its slot.
    pub fn remove<S: Store + ?Sized>(
        self,
        s: &mut S,
        a: &Address,
        id: &Hash32,
    ) -> Result<(), CallError> {
        let Some(pos) = get_value(s, &self.pos_key(a, id))? else {
            return Ok(());
        };
        let pos = pos.as_u64().ok_or_else(|| corrupt("list position"))?;
        let last = self
            .len(s, a)?
            .checked_sub(1)
            .ok_or_else(|| corrupt("empty list"))?;
        if pos != last {
            let moved = self.get(s, a, last)?.ok_or_else(|| corrupt("list hole"))?;
            put_value(s, &self.item_key(a, pos), &hash_value(&moved))?;
            put_value(s, &self.pos_key(a, &moved), &Value::Uint(pos))?;
        }
        s.del(&self.item_key(a, last))?;
        s.del(&self.pos_key(a, id))?;
        if last == 0 {
            s.del(&self.len_key(a))
        } else {
            put_value(s, &self.len_key(a), &Value::Uint(last))
        }
    }
}
