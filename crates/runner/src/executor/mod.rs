//! Executors: the off-chain work of one job, by job type. Each takes a [`Job`] (the parts of
//! the job's spec the work needs) and returns an [`Outcome`]: the result bytes with the usage
//! the runner signs and is paid for, or a fault report (`cowboy-fault-v1`) when it cannot
//! produce one. Executors enforce the job's bounds themselves (wall time, tokens, return
//! bytes, memory); the daemon only schedules them.

pub mod bounded;
pub mod http;
pub mod llm;
pub mod mcp;

use cowboy_types::cbor::Value;
use cowboy_types::Hash32;

/// What an executor is asked to do.
#[derive(Clone, Debug)]
pub struct Job {
    /// The job's id.
    pub id: Hash32,
    /// The model (LLM jobs): its registry hash.
    pub model: Option<Hash32>,
    /// The domains the job may touch (HTTP jobs), as the spec lists them.
    pub domains: Vec<String>,
    /// The request, as the submitter wrote it (`spec.input`).
    pub input: Value,
    /// The job's resource bounds.
    pub bounds: Bounds,
    /// Largest result in bytes (`result_schema.max_return_bytes`).
    pub max_return_bytes: u64,
    /// The verification mode's wire name (`"oracle"`, `"deterministic"`, …).
    pub mode: String,
    /// The mode's parameters as submitted (`verification.params`; `Value::Null` if none).
    pub params: Value,
}

/// A job's resource bounds (`spec.bounds`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Tokens, input and output together.
    pub max_tokens: u64,
    /// Wall-clock milliseconds.
    pub max_wall_ms: u64,
    /// Memory in MiB.
    pub max_memory_mb: u64,
}

/// What the runner measured, signed beside its result and paid at its rate card.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Tokens consumed, input and output.
    pub tokens: u64,
    /// Wall-clock milliseconds of execution.
    pub wall_ms: u64,
}

/// Why a runner could not produce a result (exec README, "Outcome table").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The job's bounds are too tight for it.
    Impossible,
    /// An external dependency (the API, the model) is unavailable.
    External,
    /// The actor's input is malformed.
    Actor,
}

/// An executor's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The result bytes (at most `max_return_bytes`) and what producing them cost.
    Done {
        /// The result.
        result: Vec<u8>,
        /// The usage.
        usage: Usage,
    },
    /// A fault report in place of a result.
    Fault {
        /// Whose fault.
        kind: FaultKind,
        /// Share of the work done, 0..=10,000 basis points.
        progress_bps: u16,
        /// The usage so far.
        usage: Usage,
    },
}
