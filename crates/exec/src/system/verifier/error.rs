//! The result verifier's typed errors. Each becomes the receipt's failure with the variant's
//! name as its class and the `Display` text as its message (as the dispatcher's errors do).

use std::fmt;

use cowboy_types::{Address, Hash32};

use crate::system::CallError;

/// Why a verifier call was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifyError {
    /// The verifier's handlers take no value.
    ValueNotAllowed {
        /// Wei sent.
        got: u128,
    },
    /// No job with that id.
    NoSuchJob(Hash32),
    /// The job is not waiting for commits (committed, failed or settled).
    NotAssigned(Hash32),
    /// The commit came after the committee's deadline.
    LateCommit {
        /// The block height of the commit.
        height: u64,
        /// The deadline (last height at which a commit counts).
        deadline: u64,
    },
    /// The sender is not on the job's current committee.
    NotSelected(Address),
    /// The sender already committed to this job.
    AlreadyCommitted(Address),
    /// The job is not waiting for reveals (not committed yet, or already decided).
    NotCommitted(Hash32),
    /// `submit_verified_result` from someone other than the job's aggregator.
    NotAggregator {
        /// The sender.
        got: Address,
        /// The designated aggregator.
        expected: Address,
    },
    /// A runner's own reveal before the aggregator's window has passed.
    RevealTooEarly {
        /// The block height of the reveal.
        height: u64,
        /// The first height at which runners may reveal their own results.
        opens: u64,
    },
    /// A reveal after the reveal deadline.
    LateReveal {
        /// The block height of the reveal.
        height: u64,
        /// The last height at which reveals count.
        deadline: u64,
    },
    /// A reveal for a runner that did not commit to the job.
    NotACommitter(Address),
    /// The same runner twice in one aggregate.
    DuplicateReveal(Address),
    /// The runner already revealed its result.
    AlreadyRevealed(Address),
    /// `keccak256(result ‖ sig)` is not the runner's commitment.
    CommitmentMismatch(Address),
    /// The signature does not verify under the runner's registered key.
    BadSignature(Address),
    /// A result larger than the job's `max_return_bytes`.
    ResultTooLarge {
        /// Whose result.
        runner: Address,
        /// Its size.
        got: u64,
        /// The job's limit.
        max: u64,
    },
    /// The aggregator's claimed result is not the one the reveals verify to.
    ResultMismatch,
    /// A reveal entry that is not `[runner, result, [tokens, wall_ms], sig]`.
    BadReveal {
        /// Its position in the list.
        index: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A runner with no registry record (and so no key) to check a reveal against.
    UnknownRunner(Address),
    /// A handler only the scheduler's timers call.
    NotScheduler(Address),
    /// A challenge not carrying exactly `challenge_bond_wei`.
    WrongBond {
        /// Wei sent.
        got: u128,
        /// The bond.
        expected: u128,
    },
    /// A challenge of a job that has not been decided (nothing was paid to contest).
    NotDecided(Hash32),
    /// A challenge after the challenge window.
    ChallengeClosed {
        /// The current height.
        height: u64,
        /// The last height of the window.
        closed_at: u64,
    },
    /// The runner was already proven dishonest for this job.
    AlreadyChallenged(Address),
}

impl VerifyError {
    /// The failure class: the variant's name.
    pub fn class(&self) -> &'static str {
        match self {
            VerifyError::ValueNotAllowed { .. } => "ValueNotAllowed",
            VerifyError::NoSuchJob(_) => "NoSuchJob",
            VerifyError::NotAssigned(_) => "NotAssigned",
            VerifyError::LateCommit { .. } => "LateCommit",
            VerifyError::NotSelected(_) => "NotSelected",
            VerifyError::AlreadyCommitted(_) => "AlreadyCommitted",
            VerifyError::NotCommitted(_) => "NotCommitted",
            VerifyError::NotAggregator { .. } => "NotAggregator",
            VerifyError::RevealTooEarly { .. } => "RevealTooEarly",
            VerifyError::LateReveal { .. } => "LateReveal",
            VerifyError::NotACommitter(_) => "NotACommitter",
            VerifyError::DuplicateReveal(_) => "DuplicateReveal",
            VerifyError::AlreadyRevealed(_) => "AlreadyRevealed",
            VerifyError::CommitmentMismatch(_) => "CommitmentMismatch",
            VerifyError::BadSignature(_) => "BadSignature",
            VerifyError::ResultTooLarge { .. } => "ResultTooLarge",
            VerifyError::ResultMismatch => "ResultMismatch",
            VerifyError::BadReveal { .. } => "BadReveal",
            VerifyError::UnknownRunner(_) => "UnknownRunner",
            VerifyError::NotScheduler(_) => "NotScheduler",
            VerifyError::WrongBond { .. } => "WrongBond",
            VerifyError::NotDecided(_) => "NotDecided",
            VerifyError::ChallengeClosed { .. } => "ChallengeClosed",
            VerifyError::AlreadyChallenged(_) => "AlreadyChallenged",
        }
    }
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::ValueNotAllowed { got } => {
                write!(f, "the result verifier takes no value (got {got} wei)")
            }
            VerifyError::NoSuchJob(id) => write!(f, "no job {}", id.to_hex()),
            VerifyError::NotAssigned(id) => {
                write!(f, "job {} is not waiting for commits", id.to_hex())
            }
            VerifyError::LateCommit { height, deadline } => write!(
                f,
                "commit at height {height}, after the committee's deadline {deadline}"
            ),
            VerifyError::NotSelected(a) => {
                write!(f, "{} is not on this job's committee", a.to_checksum())
            }
            VerifyError::AlreadyCommitted(a) => {
                write!(f, "{} already committed to this job", a.to_checksum())
            }
            VerifyError::NotCommitted(id) => {
                write!(f, "job {} is not waiting for reveals", id.to_hex())
            }
            VerifyError::NotAggregator { got, expected } => write!(
                f,
                "only the job's aggregator {} submits its verified result, not {}",
                expected.to_checksum(),
                got.to_checksum()
            ),
            VerifyError::RevealTooEarly { height, opens } => write!(
                f,
                "reveal at height {height}: runners reveal their own results from height \
                 {opens}, after the aggregator's window"
            ),
            VerifyError::LateReveal { height, deadline } => write!(
                f,
                "reveal at height {height}, after the reveal deadline {deadline}"
            ),
            VerifyError::NotACommitter(a) => {
                write!(f, "{} did not commit to this job", a.to_checksum())
            }
            VerifyError::DuplicateReveal(a) => {
                write!(f, "{} is revealed twice", a.to_checksum())
            }
            VerifyError::AlreadyRevealed(a) => {
                write!(f, "{} already revealed its result", a.to_checksum())
            }
            VerifyError::CommitmentMismatch(a) => write!(
                f,
                "keccak256(result ‖ sig) is not the commitment of {}",
                a.to_checksum()
            ),
            VerifyError::BadSignature(a) => write!(
                f,
                "the signature does not verify under the registered key of {}",
                a.to_checksum()
            ),
            VerifyError::ResultTooLarge { runner, got, max } => write!(
                f,
                "the result of {} is {got} bytes; the job allows {max}",
                runner.to_checksum()
            ),
            VerifyError::ResultMismatch => write!(
                f,
                "the claimed result is not the result the reveals verify to"
            ),
            VerifyError::BadReveal { index, reason } => write!(f, "reveals[{index}]: {reason}"),
            VerifyError::UnknownRunner(a) => {
                write!(
                    f,
                    "{} has no registry record to check against",
                    a.to_checksum()
                )
            }
            VerifyError::NotScheduler(a) => write!(
                f,
                "only the scheduler's timers call this handler, not {}",
                a.to_checksum()
            ),
            VerifyError::WrongBond { got, expected } => write!(
                f,
                "a challenge carries exactly the bond of {expected} wei (got {got})"
            ),
            VerifyError::NotDecided(id) => {
                write!(
                    f,
                    "job {} has not been decided; nothing to challenge",
                    id.to_hex()
                )
            }
            VerifyError::ChallengeClosed { height, closed_at } => write!(
                f,
                "the challenge window closed at height {closed_at} (now {height})"
            ),
            VerifyError::AlreadyChallenged(a) => write!(
                f,
                "{} was already proven dishonest for this job",
                a.to_checksum()
            ),
        }
    }
}

impl From<VerifyError> for CallError {
    fn from(e: VerifyError) -> Self {
        CallError::fail(e.class(), e.to_string())
    }
}
