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
        }
    }
}

impl From<VerifyError> for CallError {
    fn from(e: VerifyError) -> Self {
        CallError::fail(e.class(), e.to_string())
    }
}
