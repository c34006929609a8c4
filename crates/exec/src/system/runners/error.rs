//! The runner registry's typed errors. Each becomes the receipt's failure with the variant's
//! name as its class and the `Display` text as its message, so a client can match on the class
//! and a person can read what was wrong and by how much.

use std::fmt;

use cowboy_types::{Address, Hash32};

use crate::system::CallError;

/// Why a runner-registry call was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryError {
    /// A handler that takes no value was sent some.
    ValueNotAllowed {
        /// Wei sent.
        got: u128,
    },
    /// The self-bond (or the effective stake, on `update`) is below what the runner needs.
    StakeTooLow {
        /// What it has or sent.
        got: u128,
        /// `max(runner_stake_floor_wei, ceil(1.5 × max_job_value))`.
        need: u128,
    },
    /// The runner public key is not a usable Ed25519 key.
    BadKey(&'static str),
    /// A profile field is malformed.
    BadField {
        /// The field, e.g. `capabilities.domains[3]`.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A list field is longer than its genesis limit.
    TooMany {
        /// The field.
        field: &'static str,
        /// Its length.
        got: u64,
        /// The limit.
        max: u64,
    },
    /// A model hash that is not in the model registry.
    UnknownModel(Hash32),
    /// A model that its publisher retired (existing references stay, new ones are refused).
    RetiredModel(Hash32),
    /// The sender already has an active or unbonding registration.
    AlreadyRegistered(Address),
    /// The address has no registration.
    NotRegistered(Address),
    /// The runner is not in the status this handler needs.
    WrongStatus {
        /// The runner.
        runner: Address,
        /// Its status.
        status: &'static str,
        /// The status the handler needs.
        need: &'static str,
    },
    /// Withdrawal before the unbonding period ends.
    StillUnbonding {
        /// First height at which it may be withdrawn.
        release_at: u64,
        /// The current height.
        height: u64,
    },
    /// No more runners may be candidates (`runner_max_active`).
    RegistryFull {
        /// The limit.
        max: u64,
    },
    /// A delegation below `runner_min_delegation_wei`.
    DelegationTooSmall {
        /// Wei sent.
        got: u128,
        /// The minimum.
        min: u128,
    },
    /// The delegation would push the runner's self-bond below `min_self_bond_bps` of its
    /// effective stake.
    SelfBondTooLow {
        /// The runner's self-bond.
        self_bond: u128,
        /// The most delegated stake it can carry.
        max_delegated: u128,
    },
    /// The runner already has `max_delegators_per_runner` delegators.
    TooManyDelegators {
        /// The limit.
        max: u64,
    },
    /// The delegator already holds `max_active_tranches_per_delegator` delegations and
    /// unbonding tranches.
    TooManyTranches {
        /// The limit.
        max: u64,
    },
    /// The sender has no delegation to that runner.
    NoDelegation {
        /// The runner.
        runner: Address,
    },
    /// More shares asked for than held (or zero).
    BadShares {
        /// Asked for.
        asked: u128,
        /// Held.
        held: u128,
    },
    /// The sender has no unbonding tranche with that id.
    NoTranche(u64),
    /// The runner's delegation pool has been slashed to nothing while shares remain: new
    /// stake would be worth nothing in it.
    PoolWipedOut(Address),
    /// The model is already registered (and not retired).
    ModelExists(Hash32),
    /// The model deposit must be sent exactly.
    WrongDeposit {
        /// Wei sent.
        got: u128,
        /// `model_deposit_wei`.
        expected: u128,
    },
    /// Only the publisher may retire a model.
    NotPublisher {
        /// The model.
        model: Hash32,
        /// Its publisher.
        publisher: Address,
    },
    /// A page larger than `runner_page_max`.
    PageTooLarge {
        /// Asked for.
        got: u64,
        /// The limit.
        max: u64,
    },
    /// An amount would overflow 128 bits.
    Overflow(&'static str),
}

impl RegistryError {
    /// The failure class: the variant's name.
    pub fn class(&self) -> &'static str {
        match self {
            RegistryError::ValueNotAllowed { .. } => "ValueNotAllowed",
            RegistryError::StakeTooLow { .. } => "StakeTooLow",
            RegistryError::BadKey(_) => "BadKey",
            RegistryError::BadField { .. } => "BadField",
            RegistryError::TooMany { .. } => "TooMany",
            RegistryError::UnknownModel(_) => "UnknownModel",
            RegistryError::RetiredModel(_) => "RetiredModel",
            RegistryError::AlreadyRegistered(_) => "AlreadyRegistered",
            RegistryError::NotRegistered(_) => "NotRegistered",
            RegistryError::WrongStatus { .. } => "WrongStatus",
            RegistryError::StillUnbonding { .. } => "StillUnbonding",
            RegistryError::RegistryFull { .. } => "RegistryFull",
            RegistryError::DelegationTooSmall { .. } => "DelegationTooSmall",
            RegistryError::SelfBondTooLow { .. } => "SelfBondTooLow",
            RegistryError::TooManyDelegators { .. } => "TooManyDelegators",
            RegistryError::TooManyTranches { .. } => "TooManyTranches",
            RegistryError::NoDelegation { .. } => "NoDelegation",
            RegistryError::BadShares { .. } => "BadShares",
            RegistryError::NoTranche(_) => "NoTranche",
            RegistryError::PoolWipedOut(_) => "PoolWipedOut",
            RegistryError::ModelExists(_) => "ModelExists",
            RegistryError::WrongDeposit { .. } => "WrongDeposit",
            RegistryError::NotPublisher { .. } => "NotPublisher",
            RegistryError::PageTooLarge { .. } => "PageTooLarge",
            RegistryError::Overflow(_) => "Overflow",
        }
    }
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::ValueNotAllowed { got } => {
                write!(f, "this handler takes no value (got {got} wei)")
            }
            RegistryError::StakeTooLow { got, need } => {
                write!(f, "stake of {got} wei is below the {need} wei required")
            }
            RegistryError::BadKey(why) => write!(f, "runner key: {why}"),
            RegistryError::BadField { field, reason } => write!(f, "{field}: {reason}"),
            RegistryError::TooMany { field, got, max } => {
                write!(f, "{field} has {got} entries, the limit is {max}")
            }
            RegistryError::UnknownModel(h) => {
                write!(f, "model {} is not in the model registry", h.to_hex())
            }
            RegistryError::RetiredModel(h) => {
                write!(f, "model {} was retired by its publisher", h.to_hex())
            }
            RegistryError::AlreadyRegistered(a) => {
                write!(f, "{} is already a registered runner", a.to_checksum())
            }
            RegistryError::NotRegistered(a) => {
                write!(f, "{} is not a registered runner", a.to_checksum())
            }
            RegistryError::WrongStatus {
                runner,
                status,
                need,
            } => write!(
                f,
                "runner {} is {status}; this needs it {need}",
                runner.to_checksum()
            ),
            RegistryError::StillUnbonding { release_at, height } => write!(
                f,
                "the stake unbonds at height {release_at}; this is height {height}"
            ),
            RegistryError::RegistryFull { max } => {
                write!(f, "the registry already has {max} active runners")
            }
            RegistryError::DelegationTooSmall { got, min } => {
                write!(f, "a delegation of {got} wei is below the {min} wei minimum")
            }
            RegistryError::SelfBondTooLow {
                self_bond,
                max_delegated,
            } => write!(
                f,
                "a self-bond of {self_bond} wei carries at most {max_delegated} wei of delegated stake"
            ),
            RegistryError::TooManyDelegators { max } => {
                write!(f, "the runner already has {max} delegators")
            }
            RegistryError::TooManyTranches { max } => write!(
                f,
                "the delegator already holds {max} delegations and unbonding tranches"
            ),
            RegistryError::NoDelegation { runner } => {
                write!(f, "no delegation to runner {}", runner.to_checksum())
            }
            RegistryError::BadShares { asked, held } => {
                write!(f, "asked to undelegate {asked} shares; {held} are held (and 0 is refused)")
            }
            RegistryError::NoTranche(n) => write!(f, "no unbonding tranche {n}"),
            RegistryError::PoolWipedOut(a) => write!(
                f,
                "runner {}'s delegation pool was slashed to nothing",
                a.to_checksum()
            ),
            RegistryError::ModelExists(h) => {
                write!(f, "model {} is already registered", h.to_hex())
            }
            RegistryError::WrongDeposit { got, expected } => write!(
                f,
                "the model deposit is exactly {expected} wei (got {got})"
            ),
            RegistryError::NotPublisher { model, publisher } => write!(
                f,
                "only the publisher {} may retire model {}",
                publisher.to_checksum(),
                model.to_hex()
            ),
            RegistryError::PageTooLarge { got, max } => {
                write!(f, "a page of {got} runners; the limit is {max}")
            }
            RegistryError::Overflow(what) => write!(f, "{what} would overflow"),
        }
    }
}

impl From<RegistryError> for CallError {
    fn from(e: RegistryError) -> Self {
        CallError::fail(e.class(), e.to_string())
    }
}
