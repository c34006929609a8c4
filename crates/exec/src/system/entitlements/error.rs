//! The entitlement registry's typed errors. Each becomes the receipt's failure with the
//! variant's name as its class and the `Display` text as its message (as the other system
//! actors' errors do). A refused call changes nothing: the transaction rolls back.

use std::fmt;

use cowboy_types::{Address, Hash32};

use crate::system::CallError;

/// Why an entitlement-registry call was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntitlementError {
    /// A handler that takes no value was sent some.
    ValueNotAllowed {
        /// Wei sent.
        got: u128,
    },
    /// An argument is malformed (a scope, action or constraints that do not decode, or
    /// constraints that are inconsistent).
    BadArgument {
        /// The field, e.g. `constraints.delegation_depth_max`.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The caller is not the authority of the scope (who may grant in it).
    NotAuthority {
        /// The caller.
        caller: Address,
        /// The scope's authority, if it has one.
        authority: Option<Address>,
    },
    /// The grantee already holds a live entitlement for this (scope, action).
    AlreadyHeld {
        /// The grantee.
        grantee: Address,
        /// The entitlement it holds.
        id: Hash32,
    },
    /// A per-address limit (CIP-2 §7.5) would be exceeded.
    LimitReached {
        /// `entitlements` or `roles`.
        what: &'static str,
        /// The address.
        address: Address,
        /// The limit.
        max: u64,
    },
    /// No entitlement with that id.
    NoSuchEntitlement(Hash32),
    /// The caller may not revoke it (neither its grantor, the scope's authority, nor its
    /// grantee), or it is not revocable.
    NotRevocable {
        /// The entitlement.
        id: Hash32,
        /// Why not.
        reason: &'static str,
    },
    /// Only the grantee may delegate or use it this way.
    NotGrantee {
        /// The caller.
        caller: Address,
        /// The grantee.
        grantee: Address,
    },
    /// The entitlement may not be delegated (further).
    NotDelegatable(Hash32),
    /// The entitlement is not in force: expired, not yet valid, exhausted, or its delegation
    /// chain is broken.
    NotInForce {
        /// The entitlement.
        id: Hash32,
        /// Why.
        reason: &'static str,
    },
    /// A delegation's constraints are not a strict subset of its parent's.
    NotSubset {
        /// The first field that is not.
        field: &'static str,
    },
    /// A use above the per-use or the total amount.
    AmountTooLarge {
        /// The amount asked.
        got: u64,
        /// What is allowed.
        max: u64,
    },
    /// A use beyond the rate limit's uses in this window.
    RateLimited {
        /// First height of the next window.
        next_window: u64,
    },
    /// The entitlement is still in force: only an expired, exhausted or orphaned one can be
    /// pruned.
    StillInForce(Hash32),
    /// No role with that id.
    NoSuchRole(Hash32),
    /// The caller already has a role of that name.
    RoleExists(Hash32),
    /// Only the role's creator may assign it.
    NotRoleCreator {
        /// The caller.
        caller: Address,
        /// The creator.
        creator: Address,
    },
    /// The address already has the role.
    RoleAlreadyAssigned(Hash32),
    /// The address does not have the role.
    RoleNotAssigned(Hash32),
    /// A page larger than `runner_page_max`.
    PageTooLarge {
        /// Asked for.
        got: u64,
        /// The limit.
        max: u64,
    },
}

impl EntitlementError {
    /// The failure class: the variant's name.
    pub fn class(&self) -> &'static str {
        use EntitlementError::*;
        match self {
            ValueNotAllowed { .. } => "ValueNotAllowed",
            BadArgument { .. } => "BadArgument",
            NotAuthority { .. } => "NotAuthority",
            AlreadyHeld { .. } => "AlreadyHeld",
            LimitReached { .. } => "LimitReached",
            NoSuchEntitlement(_) => "NoSuchEntitlement",
            NotRevocable { .. } => "NotRevocable",
            NotGrantee { .. } => "NotGrantee",
            NotDelegatable(_) => "NotDelegatable",
            NotInForce { .. } => "NotInForce",
            NotSubset { .. } => "NotSubset",
            AmountTooLarge { .. } => "AmountTooLarge",
            RateLimited { .. } => "RateLimited",
            StillInForce(_) => "StillInForce",
            NoSuchRole(_) => "NoSuchRole",
            RoleExists(_) => "RoleExists",
            NotRoleCreator { .. } => "NotRoleCreator",
            RoleAlreadyAssigned(_) => "RoleAlreadyAssigned",
            RoleNotAssigned(_) => "RoleNotAssigned",
            PageTooLarge { .. } => "PageTooLarge",
        }
    }
}

impl fmt::Display for EntitlementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use EntitlementError::*;
        match self {
            ValueNotAllowed { got } => write!(f, "this handler takes no value (got {got} wei)"),
            BadArgument { field, reason } => write!(f, "{field}: {reason}"),
            NotAuthority { caller, authority } => match authority {
                Some(a) => write!(
                    f,
                    "{} may not grant in this scope; its authority is {}",
                    caller.to_checksum(),
                    a.to_checksum()
                ),
                None => write!(f, "{} may not grant in this scope", caller.to_checksum()),
            },
            AlreadyHeld { grantee, id } => write!(
                f,
                "{} already holds entitlement {} for this scope and action",
                grantee.to_checksum(),
                id.to_hex()
            ),
            LimitReached { what, address, max } => write!(
                f,
                "{} already has {max} {what}, the limit",
                address.to_checksum()
            ),
            NoSuchEntitlement(id) => write!(f, "no entitlement {}", id.to_hex()),
            NotRevocable { id, reason } => {
                write!(f, "entitlement {} cannot be revoked: {reason}", id.to_hex())
            }
            NotGrantee { caller, grantee } => write!(
                f,
                "only its grantee {} may do this, not {}",
                grantee.to_checksum(),
                caller.to_checksum()
            ),
            NotDelegatable(id) => write!(f, "entitlement {} is not delegatable", id.to_hex()),
            NotInForce { id, reason } => {
                write!(f, "entitlement {} is not in force: {reason}", id.to_hex())
            }
            NotSubset { field } => write!(
                f,
                "constraints.{field} is not a strict subset of the parent's"
            ),
            AmountTooLarge { got, max } => {
                write!(f, "an amount of {got}; at most {max} is allowed")
            }
            RateLimited { next_window } => write!(
                f,
                "the rate limit's uses for this window are spent; the next window starts at height {next_window}"
            ),
            StillInForce(id) => write!(f, "entitlement {} is still in force", id.to_hex()),
            NoSuchRole(id) => write!(f, "no role {}", id.to_hex()),
            RoleExists(id) => write!(f, "role {} exists already", id.to_hex()),
            NotRoleCreator { caller, creator } => write!(
                f,
                "only the role's creator {} may do this, not {}",
                creator.to_checksum(),
                caller.to_checksum()
            ),
            RoleAlreadyAssigned(id) => write!(f, "role {} is already assigned", id.to_hex()),
            RoleNotAssigned(id) => write!(f, "role {} is not assigned", id.to_hex()),
            PageTooLarge { got, max } => write!(f, "a page of {got}; the limit is {max}"),
        }
    }
}

impl From<EntitlementError> for CallError {
    fn from(e: EntitlementError) -> Self {
        CallError::fail(e.class(), e.to_string())
    }
}

/// A [`EntitlementError::BadArgument`].
pub fn bad(field: impl Into<String>, reason: impl Into<String>) -> EntitlementError {
    EntitlementError::BadArgument {
        field: field.into(),
        reason: reason.into(),
    }
}
