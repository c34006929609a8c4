//! The job dispatcher's typed errors. Each becomes the receipt's failure with the variant's
//! name as its class and the `Display` text as its message (as the registry's errors do).

use std::fmt;

use cowboy_types::{Address, Hash32};

use crate::system::CallError;

/// Why a dispatcher call was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DispatchError {
    /// A handler that takes no value was sent some.
    ValueNotAllowed {
        /// Wei sent.
        got: u128,
    },
    /// A job spec field is missing or malformed.
    BadSpec {
        /// The field, e.g. `bounds.max_tokens` or `verification.threshold`.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The value sent is not the escrow the spec asks for.
    WrongEscrow {
        /// Wei sent.
        got: u128,
        /// `max_price + tip`.
        expected: u128,
    },
    /// Fewer eligible runners than the committee needs.
    NotEnoughCandidates {
        /// Eligible runners at submission.
        eligible: u64,
        /// The committee size M.
        need: u64,
    },
    /// No job with that id.
    NoSuchJob(Hash32),
    /// A handler only the scheduler may call (a timer's delivery).
    NotScheduler(Address),
    /// An HTTP job names a domain of a curated set the submitter is not entitled to.
    DomainNotEntitled {
        /// The domain.
        domain: String,
        /// Its curated set.
        set: String,
    },
    /// A page larger than `runner_page_max`.
    PageTooLarge {
        /// Asked for.
        got: u64,
        /// The limit.
        max: u64,
    },
}

impl DispatchError {
    /// The failure class: the variant's name.
    pub fn class(&self) -> &'static str {
        match self {
            DispatchError::ValueNotAllowed { .. } => "ValueNotAllowed",
            DispatchError::BadSpec { .. } => "BadSpec",
            DispatchError::WrongEscrow { .. } => "WrongEscrow",
            DispatchError::NotEnoughCandidates { .. } => "NotEnoughCandidates",
            DispatchError::NoSuchJob(_) => "NoSuchJob",
            DispatchError::NotScheduler(_) => "NotScheduler",
            DispatchError::PageTooLarge { .. } => "PageTooLarge",
            DispatchError::DomainNotEntitled { .. } => "DomainNotEntitled",
        }
    }
}

impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DispatchError::ValueNotAllowed { got } => {
                write!(f, "this handler takes no value (got {got} wei)")
            }
            DispatchError::BadSpec { field, reason } => write!(f, "{field}: {reason}"),
            DispatchError::WrongEscrow { got, expected } => write!(
                f,
                "send exactly max_price + tip = {expected} wei as escrow (got {got})"
            ),
            DispatchError::NotEnoughCandidates { eligible, need } => write!(
                f,
                "{eligible} runners are eligible for this job; its committee needs {need}"
            ),
            DispatchError::NoSuchJob(id) => write!(f, "no job {}", id.to_hex()),
            DispatchError::NotScheduler(a) => write!(
                f,
                "only the scheduler's timers call this handler, not {}",
                a.to_checksum()
            ),
            DispatchError::DomainNotEntitled { domain, set } => write!(
                f,
                "{domain} is in the curated domain set {set}: the submitter needs \
                 Custom(\"{domain}\") or Custom(\"@{set}\") in Namespace(\"http\") from the \
                 curator"
            ),
            DispatchError::PageTooLarge { got, max } => {
                write!(f, "a page of {got} jobs; the limit is {max}")
            }
        }
    }
}

impl From<DispatchError> for CallError {
    fn from(e: DispatchError) -> Self {
        CallError::fail(e.class(), e.to_string())
    }
}

/// A [`DispatchError::BadSpec`].
pub fn bad(field: impl Into<String>, reason: impl Into<String>) -> DispatchError {
    DispatchError::BadSpec {
        field: field.into(),
        reason: reason.into(),
    }
}
