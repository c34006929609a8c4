//! The Entitlement type system of CIP-2 §7.1: [`Scope`], [`Action`], [`Constraints`],
//! [`Entitlement`] and [`Role`], with their canonical CBOR encoding and the
//! [`entitlement_id`] derivation. The registry that stores and enforces them is the
//! entitlement registry system actor (`0x…07`) in `cowboy-exec`.
//!
//! Encoding (ours; CIP-2 says "codec-encoded" without fixing a codec, and every consensus
//! object here is canonical CBOR, ARCHITECTURE D3):
//!
//! * a scope is a tagged array: `["global"]`, `["actor", addr]`, `["token", bytes32]`,
//!   `["runner", addr]`, `["runner_pool", id]`, `["namespace", id]`;
//! * an action likewise: `["all"]`, `["token_transfer"]`, …, `["actor_execute_handler", name]`,
//!   `["runner_register", min_stake_override | null]`, `["runner_join_pool", id]`,
//!   `["custom", bytes]` (the variant names in snake case);
//! * constraints are a map of the §7.1 field names; a decoder accepts any subset of them (the
//!   rest take [`Constraints::default`]) and refuses unknown keys, and the encoder writes
//!   every field, so a stored record has one encoding.
//!
//! Byte-string operands (pool ids, namespaces, handler names, custom actions, role names) are
//! 1 to [`MAX_ID_BYTES`] bytes: a scope is part of storage keys and ids, so its size is bounded
//! by the format, not by whoever writes it.

use crate::address::Address;
use crate::cbor::{self, Value};
use crate::hash::{keccak256_concat, Hash32};

/// An entitlement's id: `keccak256(grantee ‖ scope ‖ action ‖ parent_id?)`, the scope and
/// action in their canonical encoding.
pub type EntitlementId = Hash32;

/// Longest byte-string operand of a scope or action (pool id, namespace, handler name,
/// custom action) and of a role name.
pub const MAX_ID_BYTES: usize = 64;

/// Why a value is not an entitlement object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    /// The field, e.g. `scope` or `constraints.valid_until`.
    pub field: String,
    /// What is wrong with it.
    pub reason: String,
}

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

impl std::error::Error for FormatError {}

fn bad(field: &str, reason: impl Into<String>) -> FormatError {
    FormatError {
        field: field.to_string(),
        reason: reason.into(),
    }
}

fn tagged(tag: &str, operand: Option<Value>) -> Value {
    let mut v = vec![Value::Text(tag.into())];
    v.extend(operand);
    Value::Array(v)
}

/// Split `["tag", operand?]` into its tag and operands.
fn untag<'v>(v: &'v Value, field: &str) -> Result<(&'v str, &'v [Value]), FormatError> {
    match v {
        Value::Array(items) => match items.split_first() {
            Some((Value::Text(tag), rest)) if rest.len() <= 1 => Ok((tag.as_str(), rest)),
            _ => Err(bad(field, "expected [tag] or [tag, operand]")),
        },
        _ => Err(bad(field, format!("expected an array, got {}", v.kind()))),
    }
}

fn no_operand(rest: &[Value], field: &str, tag: &str) -> Result<(), FormatError> {
    if rest.is_empty() {
        Ok(())
    } else {
        Err(bad(field, format!("{tag:?} takes no operand")))
    }
}

fn operand<'v>(rest: &'v [Value], field: &str, tag: &str) -> Result<&'v Value, FormatError> {
    rest.first()
        .ok_or_else(|| bad(field, format!("{tag:?} needs an operand")))
}

fn id_bytes(v: &Value, field: &str) -> Result<Vec<u8>, FormatError> {
    match v {
        Value::Bytes(b) if !b.is_empty() && b.len() <= MAX_ID_BYTES => Ok(b.clone()),
        Value::Bytes(b) => Err(bad(
            field,
            format!("must be 1 to {MAX_ID_BYTES} bytes, got {}", b.len()),
        )),
        _ => Err(bad(field, format!("expected bytes, got {}", v.kind()))),
    }
}

fn fixed<const N: usize>(v: &Value, field: &str) -> Result<[u8; N], FormatError> {
    match v {
        Value::Bytes(b) => b
            .as_slice()
            .try_into()
            .map_err(|_| bad(field, format!("must be {N} bytes, got {}", b.len()))),
        _ => Err(bad(field, format!("expected bytes, got {}", v.kind()))),
    }
}

/// The resource boundary a permission applies to (CIP-2 §7.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Chain-wide.
    Global,
    /// A specific actor.
    Actor(Address),
    /// A specific token (token id).
    Token([u8; 32]),
    /// A specific runner.
    Runner(Address),
    /// Runner-pool membership (pool id bytes).
    RunnerPool(Vec<u8>),
    /// A custom named namespace.
    Namespace(Vec<u8>),
}

impl Scope {
    /// The canonical CBOR value.
    pub fn to_value(&self) -> Value {
        match self {
            Scope::Global => tagged("global", None),
            Scope::Actor(a) => tagged("actor", Some(Value::Bytes(a.0.to_vec()))),
            Scope::Token(t) => tagged("token", Some(Value::Bytes(t.to_vec()))),
            Scope::Runner(a) => tagged("runner", Some(Value::Bytes(a.0.to_vec()))),
            Scope::RunnerPool(id) => tagged("runner_pool", Some(Value::Bytes(id.clone()))),
            Scope::Namespace(id) => tagged("namespace", Some(Value::Bytes(id.clone()))),
        }
    }

    /// Read a scope from its CBOR value.
    pub fn from_value(v: &Value) -> Result<Scope, FormatError> {
        const F: &str = "scope";
        let (tag, rest) = untag(v, F)?;
        Ok(match tag {
            "global" => {
                no_operand(rest, F, tag)?;
                Scope::Global
            }
            "actor" => Scope::Actor(Address(fixed(operand(rest, F, tag)?, F)?)),
            "token" => Scope::Token(fixed(operand(rest, F, tag)?, F)?),
            "runner" => Scope::Runner(Address(fixed(operand(rest, F, tag)?, F)?)),
            "runner_pool" => Scope::RunnerPool(id_bytes(operand(rest, F, tag)?, F)?),
            "namespace" => Scope::Namespace(id_bytes(operand(rest, F, tag)?, F)?),
            other => return Err(bad(F, format!("unknown scope {other:?}"))),
        })
    }

    /// Its canonical encoding.
    pub fn encode(&self) -> Vec<u8> {
        cbor::encode(&self.to_value())
    }
}

/// The permitted operation, one per record (CIP-2 §7.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Wildcard.
    All,
    /// Token transfer.
    TokenTransfer,
    /// Token mint.
    TokenMint,
    /// Token burn.
    TokenBurn,
    /// Token freeze.
    TokenFreeze,
    /// Set a token's hook.
    TokenSetHook,
    /// Transfer a token's ownership.
    TokenTransferOwnership,
    /// Deploy an actor.
    ActorDeploy,
    /// Send a message.
    ActorSendMessage,
    /// Execute the named handler.
    ActorExecuteHandler(Vec<u8>),
    /// Register as a runner, optionally below the stake floor.
    RunnerRegister {
        /// The stake this registrant needs instead of the floor.
        min_stake_override: Option<u128>,
    },
    /// Submit a job.
    RunnerSubmitJob,
    /// Submit a result.
    RunnerSubmitResult,
    /// Membership of the pool (pool id).
    RunnerJoinPool(Vec<u8>),
    /// System transfer.
    SystemTransfer,
    /// Create an account.
    SystemCreateAccount,
    /// Upgrade.
    SystemUpgrade,
    /// A custom action.
    Custom(Vec<u8>),
}

/// The operand-less actions and their tags.
const PLAIN_ACTIONS: &[(&str, Action)] = &[
    ("all", Action::All),
    ("token_transfer", Action::TokenTransfer),
    ("token_mint", Action::TokenMint),
    ("token_burn", Action::TokenBurn),
    ("token_freeze", Action::TokenFreeze),
    ("token_set_hook", Action::TokenSetHook),
    ("token_transfer_ownership", Action::TokenTransferOwnership),
    ("actor_deploy", Action::ActorDeploy),
    ("actor_send_message", Action::ActorSendMessage),
    ("runner_submit_job", Action::RunnerSubmitJob),
    ("runner_submit_result", Action::RunnerSubmitResult),
    ("system_transfer", Action::SystemTransfer),
    ("system_create_account", Action::SystemCreateAccount),
    ("system_upgrade", Action::SystemUpgrade),
];

impl Action {
    /// The canonical CBOR value.
    pub fn to_value(&self) -> Value {
        match self {
            Action::ActorExecuteHandler(h) => {
                tagged("actor_execute_handler", Some(Value::Bytes(h.clone())))
            }
            Action::RunnerRegister { min_stake_override } => tagged(
                "runner_register",
                Some(min_stake_override.map_or(Value::Null, Value::from_u128)),
            ),
            Action::RunnerJoinPool(id) => {
                tagged("runner_join_pool", Some(Value::Bytes(id.clone())))
            }
            Action::Custom(c) => tagged("custom", Some(Value::Bytes(c.clone()))),
            plain => {
                let tag = PLAIN_ACTIONS
                    .iter()
                    .find(|(_, a)| a == plain)
                    .map_or("all", |(t, _)| *t);
                tagged(tag, None)
            }
        }
    }

    /// Read an action from its CBOR value.
    pub fn from_value(v: &Value) -> Result<Action, FormatError> {
        const F: &str = "action";
        let (tag, rest) = untag(v, F)?;
        if let Some((_, a)) = PLAIN_ACTIONS.iter().find(|(t, _)| *t == tag) {
            no_operand(rest, F, tag)?;
            return Ok(a.clone());
        }
        Ok(match tag {
            "actor_execute_handler" => {
                Action::ActorExecuteHandler(id_bytes(operand(rest, F, tag)?, F)?)
            }
            "runner_register" => Action::RunnerRegister {
                min_stake_override: match operand(rest, F, tag)? {
                    Value::Null => None,
                    v => Some(
                        v.as_u128()
                            .ok_or_else(|| bad(F, "min_stake_override must be an int < 2^128"))?,
                    ),
                },
            },
            "runner_join_pool" => Action::RunnerJoinPool(id_bytes(operand(rest, F, tag)?, F)?),
            "custom" => Action::Custom(id_bytes(operand(rest, F, tag)?, F)?),
            other => return Err(bad(F, format!("unknown action {other:?}"))),
        })
    }

    /// Its canonical encoding.
    pub fn encode(&self) -> Vec<u8> {
        cbor::encode(&self.to_value())
    }
}

/// At most `max_uses` uses in any window of `window_blocks` blocks (windows are aligned:
/// `height / window_blocks`). CIP-2 names `RateLimit` without its fields; these are ours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// Uses allowed per window (≥ 1).
    pub max_uses: u64,
    /// The window's length in blocks (≥ 1).
    pub window_blocks: u64,
}

/// Use conditions attached to an entitlement (CIP-2 §7.1). Heights are block heights; an
/// entitlement is in force at heights `valid_from ≤ h < valid_until`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Constraints {
    /// First height it is in force.
    pub valid_from: Option<u64>,
    /// First height it is no longer in force (expiry).
    pub valid_until: Option<u64>,
    /// Uses allowed (0 = unlimited).
    pub max_uses: u64,
    /// Uses so far.
    pub used_count: u64,
    /// Largest amount of one use.
    pub max_amount_per_use: Option<u64>,
    /// Largest total amount over all uses.
    pub max_total_amount: Option<u64>,
    /// Amount used so far.
    pub total_amount_used: u64,
    /// Uses per window.
    pub rate_limit: Option<RateLimit>,
    /// Whether the grantee may delegate it.
    pub delegatable: bool,
    /// Longest delegation chain below it (0 = non-delegatable).
    pub delegation_depth_max: u8,
    /// Whether its grantor may revoke it.
    pub revocable: bool,
}

fn opt_u64(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::Uint)
}

fn read_u64(v: &Value, field: &str) -> Result<u64, FormatError> {
    v.as_u64().ok_or_else(|| {
        bad(
            field,
            format!("expected a non-negative int, got {}", v.kind()),
        )
    })
}

fn read_opt_u64(v: &Value, field: &str) -> Result<Option<u64>, FormatError> {
    match v {
        Value::Null => Ok(None),
        v => read_u64(v, field).map(Some),
    }
}

fn read_bool(v: &Value, field: &str) -> Result<bool, FormatError> {
    match v {
        Value::Bool(b) => Ok(*b),
        _ => Err(bad(field, format!("expected a bool, got {}", v.kind()))),
    }
}

impl Constraints {
    /// The canonical CBOR value: a map of every field.
    pub fn to_value(&self) -> Value {
        let t = |s: &str| Value::Text(s.into());
        let rate = self.rate_limit.map_or(Value::Null, |r| {
            Value::Map(vec![
                (t("max_uses"), Value::Uint(r.max_uses)),
                (t("window_blocks"), Value::Uint(r.window_blocks)),
            ])
        });
        Value::Map(vec![
            (t("valid_from"), opt_u64(self.valid_from)),
            (t("valid_until"), opt_u64(self.valid_until)),
            (t("max_uses"), Value::Uint(self.max_uses)),
            (t("used_count"), Value::Uint(self.used_count)),
            (t("max_amount_per_use"), opt_u64(self.max_amount_per_use)),
            (t("max_total_amount"), opt_u64(self.max_total_amount)),
            (t("total_amount_used"), Value::Uint(self.total_amount_used)),
            (t("rate_limit"), rate),
            (t("delegatable"), Value::Bool(self.delegatable)),
            (
                t("delegation_depth_max"),
                Value::Uint(u64::from(self.delegation_depth_max)),
            ),
            (t("revocable"), Value::Bool(self.revocable)),
        ])
    }

    /// Read constraints from a map of any subset of the fields (the rest default).
    pub fn from_value(v: &Value) -> Result<Constraints, FormatError> {
        let Value::Map(entries) = v else {
            return Err(bad(
                "constraints",
                format!("expected a map, got {}", v.kind()),
            ));
        };
        let mut c = Constraints::default();
        for (k, v) in entries {
            let Value::Text(name) = k else {
                return Err(bad("constraints", "keys must be text"));
            };
            let field = format!("constraints.{name}");
            let f = field.as_str();
            match name.as_str() {
                "valid_from" => c.valid_from = read_opt_u64(v, f)?,
                "valid_until" => c.valid_until = read_opt_u64(v, f)?,
                "max_uses" => c.max_uses = read_u64(v, f)?,
                "used_count" => c.used_count = read_u64(v, f)?,
                "max_amount_per_use" => c.max_amount_per_use = read_opt_u64(v, f)?,
                "max_total_amount" => c.max_total_amount = read_opt_u64(v, f)?,
                "total_amount_used" => c.total_amount_used = read_u64(v, f)?,
                "rate_limit" => c.rate_limit = read_rate(v, f)?,
                "delegatable" => c.delegatable = read_bool(v, f)?,
                "delegation_depth_max" => {
                    c.delegation_depth_max =
                        u8::try_from(read_u64(v, f)?).map_err(|_| bad(f, "must be at most 255"))?;
                }
                "revocable" => c.revocable = read_bool(v, f)?,
                other => return Err(bad("constraints", format!("unknown field {other:?}"))),
            }
        }
        Ok(c)
    }

    /// Whether the constraints let it be used at `height`: in its validity window, uses and
    /// amount not exhausted. (A rate limit is judged per use, by the registry.)
    pub fn in_force(&self, height: u64) -> bool {
        self.valid_from.is_none_or(|f| height >= f)
            && !self.expired(height)
            && (self.max_uses == 0 || self.used_count < self.max_uses)
            && self
                .max_total_amount
                .is_none_or(|m| self.total_amount_used < m)
    }

    /// Whether it has expired at `height` (it never comes back).
    pub fn expired(&self, height: u64) -> bool {
        self.valid_until.is_some_and(|u| height >= u)
    }

    /// Whether `child` is a strict subset of these constraints, for a delegation (CIP-2 §7.2
    /// `EntitlementDelegate`): never valid earlier or longer, never more uses, amount or rate
    /// than the parent has left, revocable if the parent is, and a strictly shorter
    /// delegation depth (which is what makes every delegation strict). On refusal, the field
    /// that is not a subset.
    pub fn subset_violation(&self, child: &Constraints) -> Option<&'static str> {
        let from = |c: &Constraints| c.valid_from.unwrap_or(0);
        let until = |c: &Constraints| c.valid_until.unwrap_or(u64::MAX);
        if from(child) < from(self) {
            return Some("valid_from");
        }
        if until(child) > until(self) {
            return Some("valid_until");
        }
        if self.max_uses != 0 {
            let left = self.max_uses.saturating_sub(self.used_count);
            if child.max_uses == 0 || child.max_uses > left {
                return Some("max_uses");
            }
        }
        if let Some(p) = self.max_amount_per_use {
            if child.max_amount_per_use.is_none_or(|c| c > p) {
                return Some("max_amount_per_use");
            }
        }
        if let Some(p) = self.max_total_amount {
            let left = p.saturating_sub(self.total_amount_used);
            if child.max_total_amount.is_none_or(|c| c > left) {
                return Some("max_total_amount");
            }
        }
        if let Some(p) = self.rate_limit {
            let tighter = child
                .rate_limit
                .is_some_and(|c| c.max_uses <= p.max_uses && c.window_blocks >= p.window_blocks);
            if !tighter {
                return Some("rate_limit");
            }
        }
        if self.revocable && !child.revocable {
            return Some("revocable");
        }
        if child.delegation_depth_max >= self.delegation_depth_max {
            return Some("delegation_depth_max");
        }
        None
    }
}

fn read_rate(v: &Value, field: &str) -> Result<Option<RateLimit>, FormatError> {
    let entries = match v {
        Value::Null => return Ok(None),
        Value::Map(entries) if entries.len() == 2 => entries,
        _ => return Err(bad(field, "expected null or {max_uses, window_blocks}")),
    };
    let get = |name: &str| {
        entries
            .iter()
            .find(|(k, _)| matches!(k, Value::Text(t) if t == name))
            .map(|(_, v)| v)
            .ok_or_else(|| bad(field, format!("missing {name}")))
    };
    let max_uses = read_u64(get("max_uses")?, field)?;
    let window_blocks = read_u64(get("window_blocks")?, field)?;
    if max_uses == 0 || window_blocks == 0 {
        return Err(bad(field, "max_uses and window_blocks must be at least 1"));
    }
    Ok(Some(RateLimit {
        max_uses,
        window_blocks,
    }))
}

/// Field `name` of `v`, a map of exactly `n` text-keyed fields (a stored `what`).
fn map_field<'v>(v: &'v Value, n: usize, what: &str, name: &str) -> Result<&'v Value, FormatError> {
    match v {
        Value::Map(entries) if entries.len() == n => entries
            .iter()
            .find(|(k, _)| matches!(k, Value::Text(t) if t == name))
            .map(|(_, v)| v)
            .ok_or_else(|| bad(what, format!("missing {name}"))),
        _ => Err(bad(what, format!("expected a map of {n} fields"))),
    }
}

/// One entitlement record: one (scope, action) pair for one grantee (CIP-2 §7.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entitlement {
    /// Who holds it.
    pub grantee: Address,
    /// Where it applies.
    pub scope: Scope,
    /// What it permits.
    pub action: Action,
    /// Its use conditions.
    pub constraints: Constraints,
    /// The entitlement it was delegated from.
    pub parent_id: Option<EntitlementId>,
}

impl Entitlement {
    /// Its id.
    pub fn id(&self) -> EntitlementId {
        entitlement_id(
            &self.grantee,
            &self.scope,
            &self.action,
            self.parent_id.as_ref(),
        )
    }

    /// The canonical CBOR value: `{grantee, scope, action, constraints, parent_id}`.
    pub fn to_value(&self) -> Value {
        let t = |s: &str| Value::Text(s.into());
        Value::Map(vec![
            (t("grantee"), Value::Bytes(self.grantee.0.to_vec())),
            (t("scope"), self.scope.to_value()),
            (t("action"), self.action.to_value()),
            (t("constraints"), self.constraints.to_value()),
            (
                t("parent_id"),
                self.parent_id
                    .map_or(Value::Null, |p| Value::Bytes(p.0.to_vec())),
            ),
        ])
    }

    /// Read a record from its CBOR value (every field required).
    pub fn from_value(v: &Value) -> Result<Entitlement, FormatError> {
        let field = |name: &str| map_field(v, 5, "entitlement", name);
        Ok(Entitlement {
            grantee: Address(fixed(field("grantee")?, "grantee")?),
            scope: Scope::from_value(field("scope")?)?,
            action: Action::from_value(field("action")?)?,
            constraints: Constraints::from_value(field("constraints")?)?,
            parent_id: match field("parent_id")? {
                Value::Null => None,
                p => Some(Hash32(fixed(p, "parent_id")?)),
            },
        })
    }
}

/// `keccak256(grantee ‖ scope ‖ action ‖ parent_id?)` (CIP-2 §7.1), scope and action in
/// their canonical encoding.
pub fn entitlement_id(
    grantee: &Address,
    scope: &Scope,
    action: &Action,
    parent: Option<&EntitlementId>,
) -> EntitlementId {
    let (s, a) = (scope.encode(), action.encode());
    let p = parent.map_or(&[][..], |p| &p.0[..]);
    keccak256_concat(&[&grantee.0, &s, &a, p])
}

/// A named permission set (RBAC role, CIP-2 §7.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Role {
    /// Its name (1 to [`MAX_ID_BYTES`] bytes).
    pub name: Vec<u8>,
    /// Its scopes.
    pub scopes: Vec<Scope>,
    /// Its actions: the role grants every (scope, action) pair.
    pub actions: Vec<Action>,
    /// The constraints of every pair.
    pub constraints: Constraints,
}

impl Role {
    /// The canonical CBOR value: `{name, scopes, actions, constraints}`.
    pub fn to_value(&self) -> Value {
        let t = |s: &str| Value::Text(s.into());
        Value::Map(vec![
            (t("name"), Value::Bytes(self.name.clone())),
            (
                t("scopes"),
                Value::Array(self.scopes.iter().map(Scope::to_value).collect()),
            ),
            (
                t("actions"),
                Value::Array(self.actions.iter().map(Action::to_value).collect()),
            ),
            (t("constraints"), self.constraints.to_value()),
        ])
    }

    /// Read a role from its CBOR value (every field required).
    pub fn from_value(v: &Value) -> Result<Role, FormatError> {
        let field = |name: &str| map_field(v, 4, "role", name);
        let list = |name: &str| -> Result<&Vec<Value>, FormatError> {
            match field(name)? {
                Value::Array(items) => Ok(items),
                _ => Err(bad(name, "expected an array")),
            }
        };
        Ok(Role {
            name: id_bytes(field("name")?, "name")?,
            scopes: list("scopes")?
                .iter()
                .map(Scope::from_value)
                .collect::<Result<_, _>>()?,
            actions: list("actions")?
                .iter()
                .map(Action::from_value)
                .collect::<Result<_, _>>()?,
            constraints: Constraints::from_value(field("constraints")?)?,
        })
    }

    /// Its id: `keccak256("role" ‖ creator ‖ name)` (ours: one role per name per creator).
    pub fn id(creator: &Address, name: &[u8]) -> Hash32 {
        keccak256_concat(&[b"role", &creator.0, name])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_scope() -> Vec<Scope> {
        vec![
            Scope::Global,
            Scope::Actor(Address([1; 20])),
            Scope::Token([2; 32]),
            Scope::Runner(Address([3; 20])),
            Scope::RunnerPool(b"pool".to_vec()),
            Scope::Namespace(b"ns".to_vec()),
        ]
    }

    fn every_action() -> Vec<Action> {
        let mut v: Vec<Action> = PLAIN_ACTIONS.iter().map(|(_, a)| a.clone()).collect();
        v.extend([
            Action::ActorExecuteHandler(b"h".to_vec()),
            Action::RunnerRegister {
                min_stake_override: None,
            },
            Action::RunnerRegister {
                min_stake_override: Some(u128::MAX),
            },
            Action::RunnerJoinPool(b"pool".to_vec()),
            Action::Custom(b"c".to_vec()),
        ]);
        v
    }

    #[test]
    fn scopes_and_actions_round_trip_canonically_and_distinctly() {
        let scopes = every_scope();
        for s in &scopes {
            let bytes = s.encode();
            let back = Scope::from_value(&cbor::decode(&bytes).expect("canonical")).expect("ok");
            assert_eq!(&back, s);
        }
        let actions = every_action();
        for a in &actions {
            let back = Action::from_value(&cbor::decode(&a.encode()).expect("ok")).expect("ok");
            assert_eq!(&back, a);
        }
        let mut encs: Vec<Vec<u8>> = scopes.iter().map(Scope::encode).collect();
        encs.extend(actions.iter().map(Action::encode));
        let n = encs.len();
        encs.sort();
        encs.dedup();
        assert_eq!(encs.len(), n, "every scope and action encodes distinctly");
    }

    #[test]
    fn malformed_scopes_and_actions_are_refused_with_the_field() {
        let t = |s: &str| Value::Text(s.into());
        let cases = [
            Value::Array(vec![t("global"), Value::Uint(1)]),
            Value::Array(vec![t("actor"), Value::Bytes(vec![0; 19])]),
            Value::Array(vec![t("runner_pool"), Value::Bytes(vec![])]),
            Value::Array(vec![
                t("runner_pool"),
                Value::Bytes(vec![0; MAX_ID_BYTES + 1]),
            ]),
            Value::Array(vec![t("planet")]),
            Value::Uint(3),
        ];
        for c in &cases {
            let e = Scope::from_value(c).expect_err("refused");
            assert_eq!(e.field, "scope");
        }
        let e = Action::from_value(&Value::Array(vec![t("runner_join_pool")])).expect_err("x");
        assert!(e.reason.contains("needs an operand"), "{e}");
    }

    #[test]
    fn constraints_round_trip_and_refuse_unknown_fields() {
        let c = Constraints {
            valid_from: Some(3),
            valid_until: Some(9),
            max_uses: 4,
            rate_limit: Some(RateLimit {
                max_uses: 1,
                window_blocks: 10,
            }),
            delegatable: true,
            delegation_depth_max: 5,
            revocable: true,
            ..Default::default()
        };
        let back = Constraints::from_value(&c.to_value()).expect("ok");
        assert_eq!(back, c);
        assert_eq!(
            Constraints::from_value(&Value::Map(vec![])).expect("ok"),
            Constraints::default()
        );
        let e = Constraints::from_value(&Value::Map(vec![(
            Value::Text("forever".into()),
            Value::Bool(true),
        )]))
        .expect_err("unknown");
        assert!(e.reason.contains("forever"));
    }

    #[test]
    fn validity_window_uses_and_amounts() {
        let c = Constraints {
            valid_from: Some(10),
            valid_until: Some(20),
            max_uses: 2,
            used_count: 1,
            ..Default::default()
        };
        assert!(!c.in_force(9));
        assert!(c.in_force(10) && c.in_force(19));
        assert!(!c.in_force(20) && c.expired(20));
        let used = Constraints {
            used_count: 2,
            ..c.clone()
        };
        assert!(!used.in_force(15));
        let spent = Constraints {
            max_total_amount: Some(5),
            total_amount_used: 5,
            ..Default::default()
        };
        assert!(!spent.in_force(0));
    }

    #[test]
    fn a_delegation_must_be_a_strict_subset() {
        let parent = Constraints {
            valid_until: Some(100),
            max_uses: 10,
            used_count: 4,
            max_amount_per_use: Some(50),
            delegatable: true,
            delegation_depth_max: 2,
            revocable: true,
            ..Default::default()
        };
        let ok = Constraints {
            valid_until: Some(100),
            max_uses: 6,
            max_amount_per_use: Some(50),
            delegatable: true,
            delegation_depth_max: 1,
            revocable: true,
            ..Default::default()
        };
        assert_eq!(parent.subset_violation(&ok), None);
        let worse: [(&str, Constraints); 6] = [
            (
                "valid_until",
                Constraints {
                    valid_until: None,
                    ..ok.clone()
                },
            ),
            (
                "max_uses",
                Constraints {
                    max_uses: 7,
                    ..ok.clone()
                },
            ),
            (
                "max_uses",
                Constraints {
                    max_uses: 0,
                    ..ok.clone()
                },
            ),
            (
                "max_amount_per_use",
                Constraints {
                    max_amount_per_use: Some(51),
                    ..ok.clone()
                },
            ),
            (
                "revocable",
                Constraints {
                    revocable: false,
                    ..ok.clone()
                },
            ),
            (
                "delegation_depth_max",
                Constraints {
                    delegation_depth_max: 2,
                    ..ok.clone()
                },
            ),
        ];
        for (field, child) in worse {
            assert_eq!(parent.subset_violation(&child), Some(field));
        }
        // Identical constraints are not a strict subset: the depth must shrink.
        let fresh = Constraints {
            used_count: 0,
            ..parent.clone()
        };
        assert_eq!(fresh.subset_violation(&fresh), Some("delegation_depth_max"));
    }

    #[test]
    fn ids_depend_on_every_part() {
        let g = Address([7; 20]);
        let s = Scope::RunnerPool(b"p".to_vec());
        let a = Action::RunnerJoinPool(b"p".to_vec());
        let base = entitlement_id(&g, &s, &a, None);
        assert_ne!(base, entitlement_id(&Address([8; 20]), &s, &a, None));
        assert_ne!(base, entitlement_id(&g, &Scope::Global, &a, None));
        assert_ne!(base, entitlement_id(&g, &s, &Action::All, None));
        assert_ne!(base, entitlement_id(&g, &s, &a, Some(&Hash32([0; 32]))));
        let e = Entitlement {
            grantee: g,
            scope: s,
            action: a,
            constraints: Constraints::default(),
            parent_id: Some(base),
        };
        assert_eq!(Entitlement::from_value(&e.to_value()).expect("ok"), e);
        // Pinned, checked against pycryptodome's keccak over the hand-written CBOR bytes.
        assert_eq!(
            base.to_hex(),
            "0x533736301b127d56e8e501c419582a90b402296be7aaef21129ba9e7a34c8b1d"
        );
    }
}
