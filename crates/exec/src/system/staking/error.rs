//! The staking actor's typed errors. Each becomes the receipt's failure with the variant's name
//! as its class and the `Display` text as its message (as the runner registry's do).

use std::fmt;

use cowboy_types::Address;

use crate::system::CallError;

/// Why a staking call was refused. A refused call changes nothing: the transaction rolls back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StakingError {
    /// A handler that takes no value was sent some.
    ValueNotAllowed {
        /// Wei sent.
        got: u128,
    },
    /// `add_stake` with no value.
    NoValue,
    /// The stake sent is below `minimum_validator_stake_wei`.
    StakeTooLow {
        /// Wei sent.
        got: u128,
        /// The minimum.
        need: u128,
    },
    /// The BLS12-381 public key does not decode to a G1 point in the subgroup (or is the
    /// identity).
    BadBlsKey,
    /// The proof of possession does not decode or does not verify for the key and the sender.
    BadProofOfPossession,
    /// The Ed25519 consensus key is unusable.
    BadConsensusKey(&'static str),
    /// The sender already has a validator record.
    AlreadyRegistered(Address),
    /// Another validator holds (or has claimed for its next epoch) this key.
    KeyInUse {
        /// `"bls"` or `"ed25519"`.
        kind: &'static str,
        /// Its holder.
        holder: Address,
    },
    /// The sender (or the named address) is not a validator.
    NotRegistered(Address),
    /// The validator has signalled its exit: it can only wait and withdraw.
    Exiting(Address),
    /// `withdraw` before `signal_exit`.
    NotExiting(Address),
    /// `withdraw` before the unbonding period is over, or while the validator is still in the
    /// current epoch's set.
    StillBonded {
        /// The first height at which it may withdraw.
        withdraw_at: u64,
        /// The current height.
        height: u64,
        /// Whether it is still in the current epoch's active set.
        in_set: bool,
    },
    /// `unjail` of a validator that is not jailed.
    NotJailed(Address),
    /// `unjail` before the jail period is over.
    StillJailed {
        /// The first height at which it may unjail.
        until: u64,
        /// The current height.
        height: u64,
    },
    /// The evidence does not decode or does not prove a fault.
    BadEvidence(String),
    /// No active set is kept for the evidence's epoch (never existed, or older than the
    /// unbonding period and pruned).
    UnknownEpoch(u64),
    /// This offence (validator, epoch, view) has already been punished.
    AlreadyPunished,
    /// Evidence of an invalid proposal whose block passes every check the chain can make
    /// without state.
    ValidProposal,
}

impl StakingError {
    /// The variant's name: the failure class.
    pub fn class(&self) -> &'static str {
        match self {
            StakingError::ValueNotAllowed { .. } => "ValueNotAllowed",
            StakingError::NoValue => "NoValue",
            StakingError::StakeTooLow { .. } => "StakeTooLow",
            StakingError::BadBlsKey => "BadBlsKey",
            StakingError::BadProofOfPossession => "BadProofOfPossession",
            StakingError::BadConsensusKey(_) => "BadConsensusKey",
            StakingError::AlreadyRegistered(_) => "AlreadyRegistered",
            StakingError::KeyInUse { .. } => "KeyInUse",
            StakingError::NotRegistered(_) => "NotRegistered",
            StakingError::Exiting(_) => "Exiting",
            StakingError::NotExiting(_) => "NotExiting",
            StakingError::StillBonded { .. } => "StillBonded",
            StakingError::NotJailed(_) => "NotJailed",
            StakingError::StillJailed { .. } => "StillJailed",
            StakingError::BadEvidence(_) => "BadEvidence",
            StakingError::UnknownEpoch(_) => "UnknownEpoch",
            StakingError::AlreadyPunished => "AlreadyPunished",
            StakingError::ValidProposal => "ValidProposal",
        }
    }
}

impl fmt::Display for StakingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StakingError::ValueNotAllowed { got } => {
                write!(f, "this handler takes no value (got {got} wei)")
            }
            StakingError::NoValue => write!(f, "add_stake needs a value to add"),
            StakingError::StakeTooLow { got, need } => write!(
                f,
                "a validator stakes at least {need} wei (minimum_validator_stake_wei); got {got}"
            ),
            StakingError::BadBlsKey => write!(
                f,
                "bls_key is not a compressed BLS12-381 G1 point in the subgroup (48 bytes)"
            ),
            StakingError::BadProofOfPossession => write!(
                f,
                "pop is not a BLS12-381 signature by bls_key over the proof-of-possession \
                 message of the sender (96 bytes)"
            ),
            StakingError::BadConsensusKey(why) => {
                write!(f, "consensus_key is not a usable Ed25519 key: {why}")
            }
            StakingError::AlreadyRegistered(a) => {
                write!(f, "{} is already a validator", a.to_checksum())
            }
            StakingError::KeyInUse { kind, holder } => write!(
                f,
                "the {kind} key is already held by validator {}",
                holder.to_checksum()
            ),
            StakingError::NotRegistered(a) => write!(f, "{} is not a validator", a.to_checksum()),
            StakingError::Exiting(a) => {
                write!(f, "validator {} has signalled its exit", a.to_checksum())
            }
            StakingError::NotExiting(a) => write!(
                f,
                "validator {} must signal_exit before it withdraws",
                a.to_checksum()
            ),
            StakingError::StillBonded {
                withdraw_at,
                height,
                in_set,
            } => write!(
                f,
                "the stake unbonds at height {withdraw_at} (now {height}){}",
                if *in_set {
                    " and the validator is in the current epoch's set"
                } else {
                    ""
                }
            ),
            StakingError::NotJailed(a) => write!(f, "validator {} is not jailed", a.to_checksum()),
            StakingError::StillJailed { until, height } => {
                write!(f, "jailed until height {until} (now {height})")
            }
            StakingError::BadEvidence(why) => write!(f, "evidence rejected: {why}"),
            StakingError::UnknownEpoch(e) => write!(
                f,
                "no validator set is kept for epoch {e} (not yet begun, or past the unbonding period)"
            ),
            StakingError::AlreadyPunished => {
                write!(f, "this offence has already been punished")
            }
            StakingError::ValidProposal => {
                write!(f, "the block is valid as far as the chain can check")
            }
        }
    }
}

impl From<StakingError> for CallError {
    fn from(e: StakingError) -> Self {
        CallError::fail(e.class(), e.to_string())
    }
}
