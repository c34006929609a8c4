//! The dispatcher's records and keys (exec README, "Storage layout", 0x02): a job's record,
//! its candidate snapshot (apart, written once: the record is rewritten at every step and
//! should not carry up to `runner_max_active` entries each time), the per-submitter index and
//! the job counter. Keys and values are canonical CBOR; a stored record that does not decode
//! is a corrupt state, never a caller's error.

use cowboy_types::cbor::{self, Value};
use cowboy_types::{Address, Hash32};

use crate::state::StateFailure;
use crate::system::runners::records::{address_of, bytes32, Fields};
use crate::system::CallError;

/// Where a job is in its life (README lifecycle).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// A committee is assigned and its commit deadline is pending.
    Assigned,
    /// Enough runners committed; the verifier takes over (reveals, then the outcome).
    Committed,
    /// The verifier accepted a result: the continuation is sent and the job is settled.
    Verified,
    /// No committee committed in time after every retry, or the reveals reached no
    /// consensus: escrow refunded.
    Failed,
}

impl Status {
    /// Its wire name.
    pub fn name(self) -> &'static str {
        match self {
            Status::Assigned => "assigned",
            Status::Committed => "committed",
            Status::Verified => "verified",
            Status::Failed => "failed",
        }
    }
    fn parse(s: &str) -> Option<Status> {
        [
            Status::Assigned,
            Status::Committed,
            Status::Verified,
            Status::Failed,
        ]
        .into_iter()
        .find(|x| x.name() == s)
    }
}

/// A job's record under `["job", job_id]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// The spec as submitted (canonical CBOR map).
    pub spec: Value,
    /// Who submitted it (and gets refunds).
    pub submitter: Address,
    /// Its life stage.
    pub status: Status,
    /// 0 for the first committee, then one more per retry.
    pub attempt: u64,
    /// The selection seed.
    pub seed: Hash32,
    /// The submission height.
    pub submitted_at: u64,
    /// The candidate snapshot's Merkle root.
    pub candidates_root: Hash32,
    /// How many candidates the snapshot holds.
    pub candidates: u64,
    /// The current committee, in pick order (runners kept from earlier attempts first).
    pub selected: Vec<Address>,
    /// Runners of the committee that committed (slice 3 fills it).
    pub committed: Vec<Address>,
    /// Runners that timed out, excluded from every later attempt.
    pub excluded: Vec<Address>,
    /// The committee's aggregator.
    pub aggregator: Address,
    /// Wei held for the job: `max_price + tip` until it is settled or refunded.
    pub escrow: u128,
    /// Height the current committee was assigned at.
    pub assigned_at: u64,
    /// Last height at which the current committee may commit.
    pub deadline: u64,
    /// The pending timer (the scheduler's id): the commit deadline while assigned, the
    /// verifier's finalization once committed.
    pub timer_id: u64,
    /// Height the job became committed (0 before): the reveal windows count from it.
    pub committed_at: u64,
}

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

fn addr(a: &Address) -> Value {
    Value::Bytes(a.0.to_vec())
}

fn addrs(v: &[Address]) -> Value {
    Value::Array(v.iter().map(addr).collect())
}

fn key(parts: Vec<Value>) -> Vec<u8> {
    cbor::encode(&Value::Array(parts))
}

/// A dispatcher record that does not decode: the dispatcher wrote it, so the state is corrupt.
pub fn corrupt(what: &str) -> CallError {
    CallError::State(StateFailure::Invariant(format!(
        "corrupt job-dispatcher record: {what}"
    )))
}

/// `["job", job_id]`.
pub fn job_key(id: &Hash32) -> Vec<u8> {
    key(vec![t("job"), Value::Bytes(id.0.to_vec())])
}

/// `["cands", job_id]` → `[[addr, weight, reputation]]`, in address order.
pub fn candidates_key(id: &Hash32) -> Vec<u8> {
    key(vec![t("cands"), Value::Bytes(id.0.to_vec())])
}

/// `["jobs_of", submitter]` → count.
pub fn jobs_of_count_key(a: &Address) -> Vec<u8> {
    key(vec![t("jobs_of"), addr(a)])
}

/// `["jobs_of", submitter, i]` → job id.
pub fn jobs_of_key(a: &Address, i: u64) -> Vec<u8> {
    key(vec![t("jobs_of"), addr(a), Value::Uint(i)])
}

/// `job_id = keccak256(submitter ‖ n_le8 ‖ "job")`, `n` the number of jobs `submitter`
/// submitted before (its `jobs_of` count): unique, and predictable by the submitter alone.
pub fn job_id(submitter: &Address, n: u64) -> Hash32 {
    cowboy_types::hash::keccak256_concat(&[&submitter.0, &n.to_le_bytes(), b"job"])
}

/// One entry of a candidate snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The runner.
    pub address: Address,
    /// Its selection weight at submission.
    pub weight: u64,
    /// Its reputation at submission (the aggregator rule).
    pub reputation: u64,
}

/// Encode a snapshot.
pub fn snapshot_value(c: &[Candidate]) -> Value {
    Value::Array(
        c.iter()
            .map(|c| {
                Value::Array(vec![
                    addr(&c.address),
                    Value::Uint(c.weight),
                    Value::Uint(c.reputation),
                ])
            })
            .collect(),
    )
}

/// Decode a stored snapshot.
pub fn snapshot_from(v: &Value) -> Result<Vec<Candidate>, CallError> {
    let Value::Array(items) = v else {
        return Err(corrupt("snapshot"));
    };
    items
        .iter()
        .map(|e| match e {
            Value::Array(x) => match x.as_slice() {
                [a, Value::Uint(w), Value::Uint(r)] => address_of(a).map(|address| Candidate {
                    address,
                    weight: *w,
                    reputation: *r,
                }),
                _ => None,
            },
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| corrupt("snapshot"))
}

fn addr_list(v: Option<&Value>) -> Option<Vec<Address>> {
    match v? {
        Value::Array(a) => a.iter().map(address_of).collect(),
        _ => None,
    }
}

impl Job {
    /// CBOR form (also what `get_job` returns, with the id added).
    pub fn to_value(&self) -> Value {
        Value::Map(vec![
            (t("spec"), self.spec.clone()),
            (t("submitter"), addr(&self.submitter)),
            (t("status"), t(self.status.name())),
            (t("attempt"), Value::Uint(self.attempt)),
            (t("seed"), Value::Bytes(self.seed.0.to_vec())),
            (t("submitted_at"), Value::Uint(self.submitted_at)),
            (
                t("candidates_root"),
                Value::Bytes(self.candidates_root.0.to_vec()),
            ),
            (t("candidates"), Value::Uint(self.candidates)),
            (t("selected"), addrs(&self.selected)),
            (t("committed"), addrs(&self.committed)),
            (t("excluded"), addrs(&self.excluded)),
            (t("aggregator"), addr(&self.aggregator)),
            (t("escrow"), Value::from_u128(self.escrow)),
            (t("assigned_at"), Value::Uint(self.assigned_at)),
            (t("deadline"), Value::Uint(self.deadline)),
            (t("timer_id"), Value::Uint(self.timer_id)),
            (t("committed_at"), Value::Uint(self.committed_at)),
        ])
    }

    /// Decode a stored record.
    pub fn from_value(v: &Value) -> Result<Job, CallError> {
        let f = Fields::of(v).ok_or_else(|| corrupt("job"))?;
        let u = |n: &str| f.get(n).and_then(Value::as_u64);
        (|| {
            Some(Job {
                spec: f.get("spec")?.clone(),
                submitter: address_of(f.get("submitter")?)?,
                status: match f.get("status")? {
                    Value::Text(s) => Status::parse(s)?,
                    _ => return None,
                },
                attempt: u("attempt")?,
                seed: Hash32(bytes32(f.get("seed")?)?),
                submitted_at: u("submitted_at")?,
                candidates_root: Hash32(bytes32(f.get("candidates_root")?)?),
                candidates: u("candidates")?,
                selected: addr_list(f.get("selected"))?,
                committed: addr_list(f.get("committed"))?,
                excluded: addr_list(f.get("excluded"))?,
                aggregator: address_of(f.get("aggregator")?)?,
                escrow: f.get("escrow")?.as_u128()?,
                assigned_at: u("assigned_at")?,
                deadline: u("deadline")?,
                timer_id: u("timer_id")?,
                committed_at: u("committed_at")?,
            })
        })()
        .ok_or_else(|| corrupt("job"))
    }
}
