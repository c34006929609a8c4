//! The job spec (CIP-2 §1–§2) as `submit_job` receives it: a CBOR map with text keys, checked
//! field by field into a [`JobSpec`]; each bad field is a [`DispatchError::BadSpec`] naming
//! it. The checks are bounded by genesis limits checked before any list is walked, and the
//! spec's encoded size by `job_spec_max_bytes`, so checking costs a constant the handler's
//! base price covers.
//!
//! ```text
//! {"job_type": "llm" | "http" | "mcp" | "custom",
//!  "model": h (llm only, required),          "domains": [text] (http only, required),
//!  "input": any CBOR (the request; optional),
//!  "bounds": {"max_tokens", "max_wall_ms", "max_memory_mb"}          (each ≥ 1),
//!  "result_schema": {"max_return_bytes" (1..=job_result_max_bytes),
//!                    "expected_execution_ms" (≥ 1), "data_format": text | map (non-empty)},
//!  "verification": {"mode": "none" | "economic_bond" | "majority_vote" | "structured_match"
//!                    | "deterministic" | "semantic_similarity" | "oracle" (http only),
//!                   "runners": M (optional), "threshold": N (optional),
//!                   "params": the mode's parameters (verifier::modes)},
//!  "max_price" (≥ 1), "tip", "timeout_blocks" (1..=job_max_timeout_blocks),
//!  "callback": {"actor": addr (default: the submitter), "handler": text},
//!  "tee_required": bool (default false), "required_runner_pool": bytes | null}
//! ```

use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::{Address, Hash32};

use super::error::{bad, DispatchError};
use crate::system::runners::records::{address_of, bytes32, Fields, JobType};
use crate::system::verifier::modes::{self, Format, Rules};

/// The verification modes of CIP-2 §9.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One runner, no verification.
    None,
    /// One runner with an economic bond.
    EconomicBond,
    /// N-of-M vote on a field.
    MajorityVote,
    /// Pipeline of structured checks.
    StructuredMatch,
    /// Byte-identical results.
    Deterministic,
    /// Cosine-similarity clustering.
    SemanticSimilarity,
    /// Extracted external data with a snapshot mode (HTTP jobs; `verifier/oracle.rs`).
    Oracle,
}

impl Mode {
    const ALL: [Mode; 7] = [
        Mode::None,
        Mode::EconomicBond,
        Mode::MajorityVote,
        Mode::StructuredMatch,
        Mode::Deterministic,
        Mode::SemanticSimilarity,
        Mode::Oracle,
    ];

    /// Its wire name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::None => "none",
            Mode::EconomicBond => "economic_bond",
            Mode::MajorityVote => "majority_vote",
            Mode::StructuredMatch => "structured_match",
            Mode::Deterministic => "deterministic",
            Mode::SemanticSimilarity => "semantic_similarity",
            Mode::Oracle => "oracle",
        }
    }

    fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == s)
    }

    /// Whether the mode has a vote threshold N.
    fn has_threshold(self) -> bool {
        matches!(self, Mode::MajorityVote | Mode::SemanticSimilarity)
    }
}

/// A checked job spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobSpec {
    /// What kind of work.
    pub job_type: JobType,
    /// The model (LLM jobs).
    pub model: Option<Hash32>,
    /// HTTP domains the job touches, sorted, no repeats (HTTP jobs).
    pub domains: Vec<String>,
    /// Token bound (input and output).
    pub max_tokens: u64,
    /// Wall-clock bound in milliseconds.
    pub max_wall_ms: u64,
    /// Memory bound in MiB.
    pub max_memory_mb: u64,
    /// Largest result in bytes.
    pub max_return_bytes: u64,
    /// The declared expected execution time (`result_schema.expected_execution_ms`).
    pub expected_ms: u64,
    /// The verification mode.
    pub mode: Mode,
    /// Committee size M.
    pub runners: u64,
    /// Vote threshold N (modes with one; else the mode's fixed need).
    pub threshold: u64,
    /// The mode's checked parameters.
    pub rules: Rules,
    /// How results are read (`result_schema.data_format`).
    pub format: Format,
    /// Most the submitter pays the runners, in wei.
    pub max_price: u128,
    /// Priority tip, in wei.
    pub tip: u128,
    /// Blocks each committee has to commit.
    pub timeout_blocks: u64,
    /// Where the verified result goes.
    pub callback: (Address, String),
    /// Only TEE runners.
    pub tee_required: bool,
    /// Only runners of this pool (CIP-2 §7.3).
    pub pool: Option<Vec<u8>>,
}

impl JobSpec {
    /// Commits needed for the job to go on (README "need(mode)").
    pub fn need(&self) -> u64 {
        self.threshold
    }

    /// The escrow `max_price + tip`.
    pub fn escrow(&self) -> Result<u128, DispatchError> {
        self.max_price
            .checked_add(self.tip)
            .ok_or_else(|| bad("tip", "max_price + tip overflows 128 bits"))
    }

    /// Each runner's price cap, `floor(max_price / M)`.
    pub fn cap(&self) -> u128 {
        self.max_price / u128::from(self.runners.max(1))
    }
}

const TOP: &[&str] = &[
    "job_type",
    "model",
    "domains",
    "input",
    "bounds",
    "result_schema",
    "verification",
    "max_price",
    "tip",
    "timeout_blocks",
    "callback",
    "tee_required",
    "required_runner_pool",
];

/// A map's fields, refusing keys outside `known`.
fn fields<'a>(v: &'a Value, field: &str, known: &[&str]) -> Result<Fields<'a>, DispatchError> {
    let f = Fields::of(v).ok_or_else(|| bad(field, "must be a map"))?;
    for (k, _) in f.0 {
        match k {
            Value::Text(k) if known.contains(&k.as_str()) => {}
            Value::Text(k) => {
                let name = if field.is_empty() {
                    k.clone()
                } else {
                    format!("{field}.{k}")
                };
                return Err(bad(name, "unknown field"));
            }
            _ => return Err(bad(field, "keys must be text")),
        }
    }
    Ok(f)
}

fn required<'a>(f: &Fields<'a>, name: &str, field: &str) -> Result<&'a Value, DispatchError> {
    match f.get(name) {
        None | Some(Value::Null) => Err(bad(field, "is required")),
        Some(v) => Ok(v),
    }
}

fn positive(f: &Fields<'_>, name: &str, field: &str) -> Result<u64, DispatchError> {
    match required(f, name, field)?.as_u64() {
        Some(0) => Err(bad(field, "must be at least 1")),
        Some(n) => Ok(n),
        None => Err(bad(field, "must be a non-negative int")),
    }
}

fn wei(f: &Fields<'_>, name: &str) -> Result<u128, DispatchError> {
    match f.get(name) {
        None => Ok(0),
        Some(v) => v
            .as_u128()
            .ok_or_else(|| bad(name, "must be a non-negative int < 2^128")),
    }
}

fn opt_u64(f: &Fields<'_>, name: &str, field: &str) -> Result<Option<u64>, DispatchError> {
    match f.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| bad(field, "must be a non-negative int")),
    }
}

/// A public handler name: 1 to 64 bytes of `[A-Za-z0-9_]`, not starting with `_` or a digit.
fn handler_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && !b[0].is_ascii_digit()
        && b[0] != b'_'
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// Check `v` as a job spec submitted by `submitter`.
pub fn parse(v: &Value, submitter: Address, p: &GenesisParams) -> Result<JobSpec, DispatchError> {
    let size = cbor::encode(v).len() as u64;
    if size > p.job_spec_max_bytes {
        return Err(bad(
            "spec",
            format!(
                "{size} bytes encoded; the limit is {}",
                p.job_spec_max_bytes
            ),
        ));
    }
    let f = fields(v, "", TOP)?;
    let job_type = match required(&f, "job_type", "job_type")? {
        Value::Text(s) => JobType::parse(s),
        _ => None,
    }
    .ok_or_else(|| bad("job_type", "one of llm, http, mcp, custom"))?;

    let model = match f.get("model") {
        None | Some(Value::Null) => None,
        Some(m) => Some(Hash32(
            bytes32(m).ok_or_else(|| bad("model", "must be 32 bytes"))?,
        )),
    };
    match (job_type, model) {
        (JobType::Llm, None) => return Err(bad("model", "an llm job names its model")),
        (JobType::Llm, Some(_)) | (_, None) => {}
        (_, Some(_)) => return Err(bad("model", "only llm jobs name a model")),
    }

    let domains = match f.get("domains") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => {
            if a.len() as u64 > p.runner_max_domains {
                return Err(bad(
                    "domains",
                    format!("{} entries; the limit is {}", a.len(), p.runner_max_domains),
                ));
            }
            let mut out = Vec::with_capacity(a.len());
            for (i, d) in a.iter().enumerate() {
                match d {
                    Value::Text(s) if !s.is_empty() => out.push(s.clone()),
                    _ => return Err(bad(format!("domains[{i}]"), "must be non-empty text")),
                }
            }
            out.sort();
            if out.windows(2).any(|w| w[0] == w[1]) {
                return Err(bad("domains", "lists a domain twice"));
            }
            out
        }
        Some(_) => return Err(bad("domains", "must be a list")),
    };
    match (job_type, domains.is_empty()) {
        (JobType::Http, true) => return Err(bad("domains", "an http job names its domains")),
        (JobType::Http, false) | (_, true) => {}
        (_, false) => return Err(bad("domains", "only http jobs name domains")),
    }

    let b = fields(
        required(&f, "bounds", "bounds")?,
        "bounds",
        &["max_tokens", "max_wall_ms", "max_memory_mb"],
    )?;
    let max_tokens = positive(&b, "max_tokens", "bounds.max_tokens")?;
    let max_wall_ms = positive(&b, "max_wall_ms", "bounds.max_wall_ms")?;
    let max_memory_mb = positive(&b, "max_memory_mb", "bounds.max_memory_mb")?;

    let rs = fields(
        required(&f, "result_schema", "result_schema")?,
        "result_schema",
        &["max_return_bytes", "expected_execution_ms", "data_format"],
    )?;
    let max_return_bytes = positive(&rs, "max_return_bytes", "result_schema.max_return_bytes")?;
    if max_return_bytes > p.job_result_max_bytes {
        return Err(bad(
            "result_schema.max_return_bytes",
            format!(
                "{max_return_bytes}; the limit is {}",
                p.job_result_max_bytes
            ),
        ));
    }
    let expected_ms = positive(
        &rs,
        "expected_execution_ms",
        "result_schema.expected_execution_ms",
    )?;
    let data_format = required(&rs, "data_format", "result_schema.data_format")?;
    match data_format {
        Value::Text(s) if !s.is_empty() => {}
        Value::Map(m) if !m.is_empty() => {}
        _ => {
            return Err(bad(
                "result_schema.data_format",
                "must be non-empty text or a non-empty map",
            ))
        }
    }
    let format = Format::of(data_format);

    let vf = fields(
        required(&f, "verification", "verification")?,
        "verification",
        &["mode", "runners", "threshold", "params"],
    )?;
    let mode = match required(&vf, "mode", "verification.mode")? {
        Value::Text(s) => Mode::parse(s),
        _ => None,
    }
    .ok_or_else(|| {
        bad(
            "verification.mode",
            "one of none, economic_bond, majority_vote, structured_match, deterministic, \
             semantic_similarity, oracle",
        )
    })?;
    if mode == Mode::Oracle && job_type != JobType::Http {
        return Err(bad("verification.mode", "the oracle mode is for http jobs"));
    }
    let (runners, threshold) = committee(
        mode,
        opt_u64(&vf, "runners", "verification.runners")?,
        opt_u64(&vf, "threshold", "verification.threshold")?,
        p,
    )?;
    let rules = modes::rules(mode, vf.get("params"), threshold)
        .map_err(|e| bad("verification.params", e))?;

    let max_price = wei(&f, "max_price")?;
    if max_price == 0 {
        return Err(bad("max_price", "must be at least 1 wei"));
    }
    let tip = wei(&f, "tip")?;
    let timeout_blocks = positive(&f, "timeout_blocks", "timeout_blocks")?;
    if timeout_blocks > p.job_max_timeout_blocks {
        return Err(bad(
            "timeout_blocks",
            format!(
                "{timeout_blocks}; the limit is {}",
                p.job_max_timeout_blocks
            ),
        ));
    }

    let cb = fields(
        required(&f, "callback", "callback")?,
        "callback",
        &["actor", "handler"],
    )?;
    let actor = match cb.get("actor") {
        None | Some(Value::Null) => submitter,
        Some(a) => address_of(a).ok_or_else(|| bad("callback.actor", "must be 20 bytes"))?,
    };
    let handler =
        match required(&cb, "handler", "callback.handler")? {
            Value::Text(s) if handler_name(s) => s.clone(),
            _ => return Err(bad(
                "callback.handler",
                "a public handler name: 1 to 64 of A-Z a-z 0-9 _, not starting with _ or a digit",
            )),
        };

    let tee_required = match f.get("tee_required") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad("tee_required", "must be a bool")),
    };
    let pool = match f.get("required_runner_pool") {
        None | Some(Value::Null) => None,
        Some(Value::Bytes(b)) if !b.is_empty() && b.len() <= 64 => Some(b.clone()),
        Some(_) => return Err(bad("required_runner_pool", "must be 1 to 64 bytes or null")),
    };
    let spec = JobSpec {
        job_type,
        model,
        domains,
        max_tokens,
        max_wall_ms,
        max_memory_mb,
        max_return_bytes,
        expected_ms,
        mode,
        runners,
        threshold,
        rules,
        format,
        max_price,
        tip,
        timeout_blocks,
        callback: (actor, handler),
        tee_required,
        pool,
    };
    spec.escrow()?;
    Ok(spec)
}

/// The committee size M and the commits needed for `mode` (CIP-2 §9): none and economic bond
/// one runner; structured match and deterministic M ≥ 2 and need 2; majority vote and
/// semantic similarity a threshold 3 ≤ N ≤ M (a majority vote's N a strict majority of M).
/// M defaults to 1 or `runner_committee_size`, N to `runner_committee_threshold`.
fn committee(
    mode: Mode,
    runners: Option<u64>,
    threshold: Option<u64>,
    p: &GenesisParams,
) -> Result<(u64, u64), DispatchError> {
    let single = matches!(mode, Mode::None | Mode::EconomicBond);
    let m = runners.unwrap_or(if single { 1 } else { p.runner_committee_size });
    if m == 0 || m > p.job_max_runners {
        return Err(bad(
            "verification.runners",
            format!("{m}; a committee is 1 to {} runners", p.job_max_runners),
        ));
    }
    if !mode.has_threshold() && threshold.is_some() {
        return Err(bad(
            "verification.threshold",
            format!("the {} mode has no threshold", mode.name()),
        ));
    }
    let need = match mode {
        Mode::None | Mode::EconomicBond => {
            if m != 1 {
                return Err(bad(
                    "verification.runners",
                    format!("the {} mode uses exactly 1 runner, not {m}", mode.name()),
                ));
            }
            1
        }
        Mode::StructuredMatch | Mode::Deterministic => {
            if m < 2 {
                return Err(bad(
                    "verification.runners",
                    format!("the {} mode needs at least 2 runners", mode.name()),
                ));
            }
            2
        }
        // A strict majority of the committee (verifier/oracle.rs).
        Mode::Oracle => crate::system::verifier::oracle::need(m),
        Mode::MajorityVote | Mode::SemanticSimilarity => {
            let n = threshold.unwrap_or(p.runner_committee_threshold);
            if n < 3 || n > m {
                return Err(bad(
                    "verification.threshold",
                    format!("{n}; the {} mode needs 3 ≤ N ≤ M = {m}", mode.name()),
                ));
            }
            if mode == Mode::MajorityVote && 2 * n <= m {
                return Err(bad(
                    "verification.threshold",
                    format!("{n} of {m} is not a majority"),
                ));
            }
            n
        }
    };
    Ok((m, need))
}
