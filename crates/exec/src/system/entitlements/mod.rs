//! The entitlement registry system actor at `0x…07` (CIP-2 §7; whitepaper §15): permission
//! records of one (scope, action) pair each, granted by a scope's authority, delegated in
//! strict subsets, revoked, expiring by height and bounded in uses, amounts and rate; named
//! roles; and the runner-pool membership the dispatcher's filter 7 reads ([`store::lookup`]).
//! The exec README's "Entitlement registry" lists every choice where the spec is silent.
//!
//! * **Who may grant** ([`authority`]): in `Actor(a)` and `Runner(a)` the address `a` itself;
//!   in `Global` and `Token(_)` governance (`0x…09`, no actor yet, so nobody today); a
//!   `RunnerPool(id)` or `Namespace(id)` belongs to whoever first grants in it or makes a role
//!   over it (claimed, `ScopeClaimed`). Anyone else reaches a scope only by delegation.
//! * `grant(grantee, scope, action, constraints)` (§7.2 instr. 30), `revoke(id)` (31) by the
//!   grantor, the scope's authority or the grantee (renouncing), `delegate(id, delegatee,
//!   constraints)` (32) by the grantee, with constraints a strict subset of the parent's and
//!   depth ≤ `entitlement_max_delegation_depth`; `create_role` (33), `assign_role` (34),
//!   `revoke_role` (35).
//! * `consume(grantee, scope, action, amount)` by the scope's authority: one use (the
//!   grantee acting on it), counted on the record and on every ancestor, so a delegation
//!   never spends more than its grantor has.
//! * `check(grantee, scope, action)` (records, then assigned roles), `prune(id)` (anyone:
//!   deletes an expired, spent or orphaned record — the lazy cleanup of §7.5, which `check`
//!   and `grant` also do on the records they touch).
//! * Reads: `get(id)`, `entitlements_of(addr, start, limit)`, `get_role(id)`,
//!   `roles_of(addr, start, limit)`.
//!
//! Every handler charges its §7.4 price (cycles and cells, genesis `entitlement_*`) or
//! `runner_call_cycles` before working, then every storage read and write at the cost-table
//! prices; no handler walks more than a delegation chain (≤ 5), a role (≤
//! `entitlement_role_max_pairs` pairs) or an address's roles (≤ 64). Every change emits an
//! event. A grantee holds at most one live record per (scope, action): a second grant or
//! delegation of the pair is `AlreadyHeld`, so a check is one index read.

pub mod error;
pub mod store;

use cowboy_types::cbor::Value;
use cowboy_types::entitlement::{Action, Constraints, Entitlement, EntitlementId, Role, Scope};
use cowboy_types::system::{ENTITLEMENT_REGISTRY, GOVERNANCE};
use cowboy_types::{Address, Hash32};

use self::error::{bad, EntitlementError as E};
use self::store::{held_key, lookup, not_in_force, owner_key, Record, HELD, ROLES};
use super::store::{addr, put_value};
use super::{Args, Call, CallError, SystemActor};

/// The entitlement registry.
pub struct EntitlementRegistry;

const HANDLERS: &str = "grant, revoke, delegate, consume, check, prune, create_role, \
     assign_role, revoke_role, set_domain_set, get, entitlements_of, get_role, roles_of, \
     domain_set";

impl SystemActor for EntitlementRegistry {
    fn address(&self) -> Address {
        ENTITLEMENT_REGISTRY
    }

    fn name(&self) -> &'static str {
        "entitlement registry"
    }

    fn call(
        &self,
        call: &mut Call<'_>,
        handler: &str,
        args: &Args<'_>,
    ) -> Result<Value, CallError> {
        let p = call.params;
        let (cycles, cells) = match handler {
            "grant" => (p.entitlement_grant_cycles, p.entitlement_grant_cells),
            "revoke" | "prune" => (p.entitlement_revoke_cycles, p.entitlement_revoke_cells),
            "delegate" => (p.entitlement_delegate_cycles, p.entitlement_delegate_cells),
            "create_role" => (
                p.entitlement_create_role_cycles,
                p.entitlement_create_role_cells,
            ),
            "assign_role" | "revoke_role" => (
                p.entitlement_assign_role_cycles,
                p.entitlement_assign_role_cells,
            ),
            "check" => (p.candidate_scan_cycles, 0),
            _ => (p.runner_call_cycles, 0),
        };
        call.charge(cycles)?;
        call.charge_millicells(u128::from(cells) * 1000)?;
        if call.value != 0 {
            return Err(E::ValueNotAllowed { got: call.value }.into());
        }
        // The registry holds no value, so its account may not exist before the first write.
        call.ensure_account()?;
        match handler {
            "grant" => grant(call, args),
            "revoke" => revoke(call, args),
            "delegate" => delegate(call, args),
            "consume" => consume(call, args),
            "check" => check(call, args),
            "prune" => prune(call, args),
            "create_role" => create_role(call, args),
            "assign_role" => assign_role(call, args),
            "revoke_role" => revoke_role(call, args),
            "set_domain_set" => set_domain_set(call, args),
            "domain_set" => {
                args.expect_count(1)?;
                let name = set_name(args)?;
                let domains = store::domain_set(call, &name)?;
                Ok(Value::Array(domains.iter().map(|d| t(d)).collect()))
            }
            "get" => get(call, args),
            "entitlements_of" => page(call, args, false),
            "get_role" => get_role(call, args),
            "roles_of" => page(call, args, true),
            other => Err(CallError::fail(
                "NoSuchHandler",
                format!("the entitlement registry has no handler {other:?} (it has: {HANDLERS})"),
            )),
        }
    }
}

fn scope_arg(args: &Args<'_>, i: usize) -> Result<Scope, CallError> {
    Scope::from_value(args.get(i, "scope")?).map_err(|e| bad(e.field, e.reason).into())
}

fn action_arg(args: &Args<'_>, i: usize) -> Result<Action, CallError> {
    Action::from_value(args.get(i, "action")?).map_err(|e| bad(e.field, e.reason).into())
}

fn constraints_arg(args: &Args<'_>, i: usize) -> Result<Constraints, CallError> {
    Constraints::from_value(args.get(i, "constraints")?).map_err(|e| bad(e.field, e.reason).into())
}

fn uint(args: &Args<'_>, i: usize, name: &str) -> Result<u64, CallError> {
    args.get(i, name)?
        .as_u64()
        .ok_or_else(|| bad(name, "must be a non-negative int").into())
}

/// The scope's authority: who may grant in it without a delegation. A pool or namespace is
/// claimed by its first grantor (`claim`), except `Namespace("http")`, the genesis
/// `http_domain_curator`'s.
fn authority(call: &mut Call<'_>, scope: &Scope) -> Result<Option<Address>, CallError> {
    Ok(match scope {
        Scope::Namespace(n) if n == store::HTTP_NAMESPACE => Some(call.params.http_domain_curator),
        Scope::Global | Scope::Token(_) => Some(GOVERNANCE),
        Scope::Actor(a) | Scope::Runner(a) => Some(*a),
        Scope::RunnerPool(_) | Scope::Namespace(_) => store::owner(call, scope)?,
    })
}

/// Refuse unless the caller is the scope's authority, claiming an unclaimed pool or
/// namespace for it.
fn require_authority(call: &mut Call<'_>, scope: &Scope) -> Result<(), CallError> {
    let caller = call.sender;
    match authority(call, scope)? {
        Some(a) if a == caller => Ok(()),
        None => {
            put_value(call, &owner_key(scope), &addr(&caller))?;
            call.emit(
                "ScopeClaimed",
                &Value::Map(vec![
                    (t("scope"), scope.to_value()),
                    (t("owner"), addr(&caller)),
                ]),
            )
        }
        authority => Err(E::NotAuthority { caller, authority }.into()),
    }
}

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

/// Constraints a new grant or delegation may carry: nothing used yet, a depth within the
/// limit and consistent with `delegatable`, and a validity window that has not ended.
fn check_fresh(call: &Call<'_>, c: &Constraints) -> Result<(), CallError> {
    let max = call.params.entitlement_max_delegation_depth;
    if c.used_count != 0 || c.total_amount_used != 0 {
        return Err(bad(
            "constraints.used_count",
            "a new entitlement has used nothing",
        )
        .into());
    }
    if u64::from(c.delegation_depth_max) > max {
        return Err(bad(
            "constraints.delegation_depth_max",
            format!(
                "{} exceeds the maximum delegation depth {max}",
                c.delegation_depth_max
            ),
        )
        .into());
    }
    if c.delegatable != (c.delegation_depth_max > 0) {
        return Err(bad(
            "constraints.delegatable",
            "delegatable exactly when delegation_depth_max > 0",
        )
        .into());
    }
    if let (Some(f), Some(u)) = (c.valid_from, c.valid_until) {
        if f >= u {
            return Err(bad("constraints.valid_from", "must be below valid_until").into());
        }
    }
    if c.expired(call.env.height) {
        return Err(bad(
            "constraints.valid_until",
            format!("already expired at height {}", call.env.height),
        )
        .into());
    }
    Ok(())
}

/// Store a new record for `grantee` after the per-address limit and the one-record-per-pair
/// rule (an existing dead record for the pair is cleaned up first; a future-dated one holds
/// the pair).
fn insert(call: &mut Call<'_>, r: Record, topic: &str) -> Result<Value, CallError> {
    let g = r.ent.grantee;
    if let Some(old) = store::held(call, &g, &r.ent.scope, &r.ent.action)? {
        let rec = store::load(call, &old)?.ok_or_else(|| store::corrupt("held without record"))?;
        if !store::dead(call, &rec, call.env.height)? {
            return Err(E::AlreadyHeld {
                grantee: g,
                id: old,
            }
            .into());
        }
        remove(call, &rec, "EntitlementExpired")?;
    }
    let max = call.params.entitlement_max_per_address;
    if HELD.len(call, &g)? >= max {
        return Err(E::LimitReached {
            what: "entitlements",
            address: g,
            max,
        }
        .into());
    }
    let id = r.ent.id();
    store::save(call, &r)?;
    put_value(
        call,
        &held_key(&g, &r.ent.scope, &r.ent.action),
        &Value::Bytes(id.0.to_vec()),
    )?;
    HELD.push(call, &g, &id)?;
    call.emit(
        topic,
        &Value::Map(vec![
            (t("id"), Value::Bytes(id.0.to_vec())),
            (t("grantor"), addr(&r.grantor)),
            (t("entitlement"), r.ent.to_value()),
        ]),
    )?;
    Ok(Value::Bytes(id.0.to_vec()))
}

/// Delete a record and its indexes, with an event.
fn remove(call: &mut Call<'_>, r: &Record, topic: &str) -> Result<(), CallError> {
    let id = r.ent.id();
    let g = r.ent.grantee;
    call.delete(&store::ent_key(&id))?;
    call.delete(&held_key(&g, &r.ent.scope, &r.ent.action))?;
    HELD.remove(call, &g, &id)?;
    call.emit(
        topic,
        &Value::Map(vec![
            (t("id"), Value::Bytes(id.0.to_vec())),
            (t("grantee"), addr(&g)),
            (t("by"), addr(&call.sender)),
        ]),
    )
}

fn grant(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(4)?;
    let grantee = args.address(0, "grantee")?;
    let scope = scope_arg(args, 1)?;
    let action = action_arg(args, 2)?;
    let constraints = constraints_arg(args, 3)?;
    check_fresh(call, &constraints)?;
    require_authority(call, &scope)?;
    let ent = Entitlement {
        grantee,
        scope,
        action,
        constraints,
        parent_id: None,
    };
    let r = Record {
        ent,
        grantor: call.sender,
        depth: 0,
        rate_window: 0,
        rate_used: 0,
    };
    insert(call, r, "EntitlementGranted")
}

fn load_or_refuse(call: &mut Call<'_>, id: &EntitlementId) -> Result<Record, CallError> {
    Ok(store::load(call, id)?.ok_or(E::NoSuchEntitlement(*id))?)
}

fn revoke(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(1)?;
    let id = args.hash(0, "entitlement_id")?;
    let r = load_or_refuse(call, &id)?;
    let caller = call.sender;
    if caller != r.ent.grantee {
        let authority = authority(call, &r.ent.scope)?;
        if caller != r.grantor && authority != Some(caller) {
            return Err(E::NotRevocable {
                id,
                reason: "only its grantor, the scope's authority or its grantee may revoke it",
            }
            .into());
        }
        if !r.ent.constraints.revocable {
            return Err(E::NotRevocable {
                id,
                reason: "it was granted irrevocable (its grantee may still renounce it)",
            }
            .into());
        }
    }
    remove(call, &r, "EntitlementRevoked")?;
    Ok(Value::Null)
}

fn delegate(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(3)?;
    let id = args.hash(0, "entitlement_id")?;
    let delegatee = args.address(1, "delegatee")?;
    let constraints = constraints_arg(args, 2)?;
    let parent = load_or_refuse(call, &id)?;
    if parent.ent.grantee != call.sender {
        return Err(E::NotGrantee {
            caller: call.sender,
            grantee: parent.ent.grantee,
        }
        .into());
    }
    if let Some(reason) = not_in_force(call, &parent, call.env.height)? {
        return Err(E::NotInForce { id, reason }.into());
    }
    let pc = &parent.ent.constraints;
    if !pc.delegatable || pc.delegation_depth_max == 0 {
        return Err(E::NotDelegatable(id).into());
    }
    check_fresh(call, &constraints)?;
    if let Some(field) = pc.subset_violation(&constraints) {
        return Err(E::NotSubset { field }.into());
    }
    let ent = Entitlement {
        grantee: delegatee,
        scope: parent.ent.scope.clone(),
        action: parent.ent.action.clone(),
        constraints,
        parent_id: Some(id),
    };
    let r = Record {
        ent,
        grantor: call.sender,
        depth: parent.depth + 1,
        rate_window: 0,
        rate_used: 0,
    };
    insert(call, r, "EntitlementDelegated")
}

/// One use of `amount` against the record and each ancestor (every one must allow it).
fn consume(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(4)?;
    let grantee = args.address(0, "grantee")?;
    let scope = scope_arg(args, 1)?;
    let action = action_arg(args, 2)?;
    let amount = uint(args, 3, "amount")?;
    let caller = call.sender;
    let authority = authority(call, &scope)?;
    if authority != Some(caller) {
        return Err(E::NotAuthority { caller, authority }.into());
    }
    let height = call.env.height;
    let chain =
        store::lookup_chain(call, &grantee, &scope, &action, height)?.ok_or(E::NotInForce {
            id: cowboy_types::entitlement::entitlement_id(&grantee, &scope, &action, None),
            reason: "the grantee holds no entitlement in force for this scope and action",
        })?;
    let id = store::use_chain(call, chain, amount)??;
    Ok(Value::Bytes(id.0.to_vec()))
}

/// Whether `grantee` may do `action` in `scope` now: a record in force (cleaning up the pair's
/// record if it has expired), else an assigned role that grants the pair and is in its
/// validity window.
fn check(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(3)?;
    let grantee = args.address(0, "grantee")?;
    let scope = scope_arg(args, 1)?;
    let action = action_arg(args, 2)?;
    let height = call.env.height;
    if lookup(call, &grantee, &scope, &action, height)?.is_some() {
        return Ok(Value::Bool(true));
    }
    if let Some(id) = store::held(call, &grantee, &scope, &action)? {
        let r = store::load(call, &id)?.ok_or_else(|| store::corrupt("held without record"))?;
        if r.ent.constraints.expired(height) {
            remove(call, &r, "EntitlementExpired")?;
        }
    }
    let n = ROLES.len(call, &grantee)?;
    for i in 0..n {
        let rid = ROLES
            .get(call, &grantee, i)?
            .ok_or_else(|| store::corrupt("role list hole"))?;
        let (role, _) =
            store::load_role(call, &rid)?.ok_or_else(|| store::corrupt("assigned role"))?;
        let c = &role.constraints;
        let in_window = c.valid_from.is_none_or(|f| height >= f) && !c.expired(height);
        let grants = role.scopes.contains(&scope)
            && (role.actions.contains(&action) || role.actions.contains(&Action::All));
        if in_window && grants {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

/// Longest domain name (RFC 1035's 253 characters).
const MAX_DOMAIN_BYTES: usize = 253;

fn set_name(args: &Args<'_>) -> Result<String, CallError> {
    match args.get(0, "name")? {
        Value::Text(n)
            if !n.is_empty()
                && n.len() <= 64
                && n.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') =>
        {
            Ok(n.clone())
        }
        _ => Err(bad("name", "1 to 64 of a-z 0-9 _").into()),
    }
}

/// `set_domain_set(name, domains)` by the curator: the set's members become `domains`
/// (sorted; an empty list deletes the set). A domain belongs to at most one set, so the
/// submission check is one read per domain. At most `runner_max_domains` domains, each
/// lowercase `a-z 0-9 . -`, 1 to 253 bytes. Emits `DomainSetChanged`.
fn set_domain_set(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(2)?;
    let caller = call.sender;
    let curator = call.params.http_domain_curator;
    if caller != curator {
        return Err(E::NotAuthority {
            caller,
            authority: Some(curator),
        }
        .into());
    }
    let name = set_name(args)?;
    let max = call.params.runner_max_domains;
    let Value::Array(list) = args.get(1, "domains")? else {
        return Err(bad("domains", "must be a list").into());
    };
    if list.len() as u64 > max {
        return Err(bad(
            "domains",
            format!("{} domains; the limit is {max}", list.len()),
        )
        .into());
    }
    let mut domains = Vec::with_capacity(list.len());
    for (i, d) in list.iter().enumerate() {
        match d {
            Value::Text(d)
                if !d.is_empty()
                    && d.len() <= MAX_DOMAIN_BYTES
                    && d.bytes().all(|b| {
                        b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-'
                    }) =>
            {
                domains.push(d.clone())
            }
            _ => {
                return Err(bad(
                    format!("domains[{i}]"),
                    "a lowercase domain name (a-z 0-9 . -), 1 to 253 bytes",
                )
                .into())
            }
        }
    }
    domains.sort();
    if domains.windows(2).any(|w| w[0] == w[1]) {
        return Err(bad("domains", "lists a domain twice").into());
    }
    for d in &domains {
        match store::set_of_domain(call, d)? {
            Some(other) if other != name => {
                return Err(bad(
                    "domains",
                    format!("{d} is already in the curated set {other}"),
                )
                .into())
            }
            _ => {}
        }
    }
    for old in store::domain_set(call, &name)? {
        if domains.binary_search(&old).is_err() {
            call.delete(&store::domain_key(&old))?;
        }
    }
    for d in &domains {
        put_value(call, &store::domain_key(d), &t(&name))?;
    }
    let list = Value::Array(domains.iter().map(|d| t(d)).collect());
    if domains.is_empty() {
        call.delete(&store::domain_set_key(&name))?;
    } else {
        put_value(call, &store::domain_set_key(&name), &list)?;
    }
    call.emit(
        "DomainSetChanged",
        &Value::Map(vec![(t("set"), t(&name)), (t("domains"), list)]),
    )?;
    Ok(Value::Null)
}

fn prune(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(1)?;
    let id = args.hash(0, "entitlement_id")?;
    let r = load_or_refuse(call, &id)?;
    if !store::dead(call, &r, call.env.height)? {
        return Err(E::StillInForce(id).into());
    }
    remove(call, &r, "EntitlementExpired")?;
    Ok(Value::Null)
}

fn create_role(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(4)?;
    let name = args.blob(0, "name")?.to_vec();
    let list = |i: usize, field: &str| -> Result<&Vec<Value>, CallError> {
        match args.get(i, field)? {
            Value::Array(items) => Ok(items),
            _ => Err(bad(field, "expected an array").into()),
        }
    };
    let scopes = list(1, "scopes")?;
    let actions = list(2, "actions")?;
    let max = call.params.entitlement_role_max_pairs;
    let pairs = (scopes.len() as u64).saturating_mul(actions.len() as u64);
    if pairs == 0 || pairs > max {
        return Err(bad(
            "scopes",
            format!("a role grants 1 to {max} (scope, action) pairs, not {pairs}"),
        )
        .into());
    }
    let role = Role::from_value(&Value::Map(vec![
        (t("name"), Value::Bytes(name)),
        (t("scopes"), Value::Array(scopes.clone())),
        (t("actions"), Value::Array(actions.clone())),
        (t("constraints"), args.get(3, "constraints")?.clone()),
    ]))
    .map_err(|e| bad(e.field, e.reason))?;
    check_fresh(call, &role.constraints)?;
    for s in &role.scopes {
        require_authority(call, s)?;
    }
    let id = Role::id(&call.sender, &role.name);
    if store::load_role(call, &id)?.is_some() {
        return Err(E::RoleExists(id).into());
    }
    let creator = call.sender;
    store::save_role(call, &id, &role, &creator)?;
    call.emit(
        "RoleCreated",
        &Value::Map(vec![
            (t("id"), Value::Bytes(id.0.to_vec())),
            (t("creator"), addr(&call.sender)),
            (t("role"), role.to_value()),
        ]),
    )?;
    Ok(Value::Bytes(id.0.to_vec()))
}

fn role_and_assignee(
    call: &mut Call<'_>,
    args: &Args<'_>,
) -> Result<(Hash32, Address, Address), CallError> {
    args.expect_count(2)?;
    let id = args.hash(0, "role_id")?;
    let assignee = args.address(1, "assignee")?;
    let (_, creator) = store::load_role(call, &id)?.ok_or(E::NoSuchRole(id))?;
    Ok((id, assignee, creator))
}

fn role_event(
    call: &mut Call<'_>,
    topic: &str,
    id: &Hash32,
    assignee: &Address,
) -> Result<(), CallError> {
    call.emit(
        topic,
        &Value::Map(vec![
            (t("id"), Value::Bytes(id.0.to_vec())),
            (t("assignee"), addr(assignee)),
        ]),
    )
}

fn assign_role(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    let (id, assignee, creator) = role_and_assignee(call, args)?;
    if creator != call.sender {
        return Err(E::NotRoleCreator {
            caller: call.sender,
            creator,
        }
        .into());
    }
    if ROLES.contains(call, &assignee, &id)? {
        return Err(E::RoleAlreadyAssigned(id).into());
    }
    let max = call.params.entitlement_max_roles_per_address;
    if ROLES.len(call, &assignee)? >= max {
        return Err(E::LimitReached {
            what: "roles",
            address: assignee,
            max,
        }
        .into());
    }
    ROLES.push(call, &assignee, &id)?;
    role_event(call, "RoleAssigned", &id, &assignee)?;
    Ok(Value::Null)
}

/// By the role's creator, or the assignee giving it up.
fn revoke_role(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    let (id, assignee, creator) = role_and_assignee(call, args)?;
    if call.sender != creator && call.sender != assignee {
        return Err(E::NotRoleCreator {
            caller: call.sender,
            creator,
        }
        .into());
    }
    if !ROLES.contains(call, &assignee, &id)? {
        return Err(E::RoleNotAssigned(id).into());
    }
    ROLES.remove(call, &assignee, &id)?;
    role_event(call, "RoleRevoked", &id, &assignee)?;
    Ok(Value::Null)
}

/// A record as reads return it, with whether it is in force now.
fn record_value(r: &Record, id: &EntitlementId, why: Option<&str>) -> Value {
    Value::Map(vec![
        (t("id"), Value::Bytes(id.0.to_vec())),
        (t("entitlement"), r.ent.to_value()),
        (t("grantor"), addr(&r.grantor)),
        (t("depth"), Value::Uint(r.depth)),
        (t("in_force"), Value::Bool(why.is_none())),
    ])
}

fn get(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(1)?;
    let id = args.hash(0, "entitlement_id")?;
    let Some(r) = store::load(call, &id)? else {
        return Ok(Value::Null);
    };
    let height = call.env.height;
    let why = not_in_force(call, &r, height)?;
    Ok(record_value(&r, &id, why))
}

fn get_role(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(1)?;
    let id = args.hash(0, "role_id")?;
    Ok(match store::load_role(call, &id)? {
        None => Value::Null,
        Some((role, creator)) => Value::Map(vec![
            (t("role"), role.to_value()),
            (t("creator"), addr(&creator)),
        ]),
    })
}

/// A page of an address's records (each with whether it is in force) or role ids:
/// `{total, items, next}`, `next` the start of the following page or null.
fn page(call: &mut Call<'_>, args: &Args<'_>, roles: bool) -> Result<Value, CallError> {
    let list = if roles { ROLES } else { HELD };
    args.expect_count(3)?;
    let who = args.address(0, "address")?;
    let start = uint(args, 1, "start")?;
    let limit = uint(args, 2, "limit")?;
    let max = call.params.runner_page_max;
    if limit > max {
        return Err(E::PageTooLarge { got: limit, max }.into());
    }
    let n = list.len(call, &who)?;
    let height = call.env.height;
    let mut items = Vec::new();
    for i in start..n.min(start.saturating_add(limit)) {
        let id = list
            .get(call, &who, i)?
            .ok_or_else(|| store::corrupt("list hole"))?;
        if roles {
            items.push(Value::Bytes(id.0.to_vec()));
            continue;
        }
        let r = store::load(call, &id)?.ok_or_else(|| store::corrupt("listed record"))?;
        let why = not_in_force(call, &r, height)?;
        items.push(record_value(&r, &id, why));
    }
    let end = n.min(start.saturating_add(limit));
    Ok(Value::Map(vec![
        (t("total"), Value::Uint(n)),
        (t("items"), Value::Array(items)),
        (
            t("next"),
            if end < n {
                Value::Uint(end)
            } else {
                Value::Null
            },
        ),
    ]))
}
