//! The job dispatcher system actor at `0x…02` (CIP-2 §2–§6, whitepaper §5): jobs are
//! submitted with their escrow, a committee of runners is selected verifiably from the runner
//! registry's active list, and a committee that does not commit in time is replaced, up to
//! `runner_max_retries` times, before the job fails with a full refund. The design, with
//! every choice where the spec is silent, is the exec README's "Off-chain compute (CIP-2)";
//! this slice builds the dispatcher's half of it (commits, reveals and payment are the
//! verifier's, slice 3).
//!
//! * `submit_job(spec)` with value `max_price + tip` ([`spec`] checks the spec): the job id
//!   `keccak256(submitter ‖ n_le8 ‖ "job")` (`n`: the submitter's jobs before this one), the
//!   seed ([`select::seed`]), the candidate list ([`candidates`]), its Merkle root, the
//!   committee ([`select::select`]), the aggregator, the deadline timer ([`lifecycle`]).
//!   Emits `JobSubmitted` and `JobAssigned`.
//! * `deadline([job_id, attempt])`: the timer's handler; only the scheduler calls it.
//! * Reads: `get_job(job_id)`, `get_candidates(job_id, start, limit)` (the snapshot, paged,
//!   to recompute the selection), `jobs_of(submitter, start, limit)`.
//!
//! Every handler charges its base (`job_submit_cycles` for `submit_job`, `runner_call_cycles`
//! otherwise) before it works, then every storage read and write at the cost-table prices,
//! the scan per candidate before scanning, hashing and selection before computing them, and a
//! submission prepays its deadlines' worst case. The escrows are the dispatcher's balance.

pub mod candidates;
pub mod error;
pub mod job;
pub mod lifecycle;
pub mod select;
pub mod spec;

use cowboy_types::cbor::{self, Value};
use cowboy_types::system::JOB_DISPATCHER;
use cowboy_types::{Address, Hash32};

use self::error::DispatchError;
use self::job::{
    candidates_key, corrupt, job_id, jobs_of_count_key, jobs_of_key, snapshot_value, Job, Status,
};
use self::select::{candidates_root, root_hashes};
use self::spec::JobSpec;
use super::runners::records::addr_value;
use super::verifier::outcome::finalize_cycles;
use super::{Args, Call, CallError, SystemActor};

pub use self::select::{aggregator, retry_seed, select};

/// The job dispatcher.
pub struct JobDispatcher;

const HANDLERS: &str = "submit_job, deadline, get_job, get_candidates, jobs_of";

impl SystemActor for JobDispatcher {
    fn address(&self) -> Address {
        JOB_DISPATCHER
    }

    fn name(&self) -> &'static str {
        "job dispatcher"
    }

    fn call(
        &self,
        call: &mut Call<'_>,
        handler: &str,
        args: &Args<'_>,
    ) -> Result<Value, CallError> {
        let p = call.params;
        let base = match handler {
            "submit_job" => p.job_submit_cycles,
            _ => p.runner_call_cycles,
        };
        call.charge(base)?;
        if handler != "submit_job" && call.value != 0 {
            return Err(DispatchError::ValueNotAllowed { got: call.value }.into());
        }
        match handler {
            "submit_job" => submit_job(call, args),
            "deadline" => {
                args.expect_count(1)?;
                let data = args.get(0, "data")?;
                lifecycle::deadline(call, data)
            }
            "get_job" => get_job(call, args),
            "get_candidates" => get_candidates(call, args),
            "jobs_of" => jobs_of(call, args),
            other => Err(CallError::fail(
                "NoSuchHandler",
                format!("the job dispatcher has no handler {other:?} (it has: {HANDLERS})"),
            )),
        }
    }
}

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

fn uint(args: &Args<'_>, i: usize, name: &str) -> Result<u64, CallError> {
    args.get(i, name)?.as_u64().ok_or_else(|| {
        CallError::fail(
            "TypeError",
            format!("argument {name:?} must be a non-negative int"),
        )
    })
}

fn read_uint(call: &mut Call<'_>, key: &[u8]) -> Result<u64, CallError> {
    match call.read(key)? {
        None => Ok(0),
        Some(b) => match cbor::decode(&b) {
            Ok(Value::Uint(n)) => Ok(n),
            _ => Err(corrupt("counter")),
        },
    }
}

fn write_uint(call: &mut Call<'_>, key: &[u8], n: u64) -> Result<(), CallError> {
    call.write(key, &cbor::encode(&Value::Uint(n)))
}

/// The checked spec of a stored job under the chain's parameters `p` (it was checked at
/// submission, so a failure now is corrupt state). The limits are lifted for the re-check:
/// the spec met them when it was stored, and defaults (M, N) come from `p` as they did then.
pub(crate) fn spec_of(
    job: &Job,
    p: &cowboy_types::genesis::GenesisParams,
) -> Result<JobSpec, CallError> {
    let p = cowboy_types::genesis::GenesisParams {
        job_spec_max_bytes: u64::MAX,
        job_result_max_bytes: u64::MAX,
        job_max_timeout_blocks: u64::MAX,
        job_max_runners: u64::MAX,
        runner_max_domains: u64::MAX,
        ..p.clone()
    };
    spec::parse(&job.spec, job.submitter, &p).map_err(|_| corrupt("stored job spec"))
}

/// `submit_job(spec)` with value `max_price + tip`; returns the job id.
fn submit_job(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(1)?;
    let raw_spec = args.get(0, "spec")?;
    let submitter = call.sender;
    let p = call.params;
    let spec = spec::parse(raw_spec, submitter, p)?;
    // The verifier's finalization of this job runs in one system timer run: its worst case
    // (every member's full result through the mode) must fit that run's limit.
    let finalize = finalize_cycles(p, &spec.rules, spec.runners, spec.max_return_bytes);
    if finalize > p.system_timer_cycles_limit {
        return Err(error::bad(
            "result_schema.max_return_bytes",
            format!(
                "{} runners × {} bytes: verifying that on chain would take {finalize} cycles, \
                 over the {} of one system timer run",
                spec.runners, spec.max_return_bytes, p.system_timer_cycles_limit
            ),
        )
        .into());
    }
    if let super::verifier::modes::Rules::Oracle(o) = &spec.rules {
        // Extraction rules are parsed or compiled as a runner would, charged first.
        call.charge(o.extraction_cycles(p))?;
        o.check_extraction()
            .map_err(|e| error::bad("verification.params", e))?;
    }
    let escrow = spec.escrow()?;
    if call.value != escrow {
        return Err(DispatchError::WrongEscrow {
            got: call.value,
            expected: escrow,
        }
        .into());
    }
    candidates::check_domains(call, &spec, &submitter)?;
    let height = call.env.height;
    // The id is numbered per submitter, so an actor that submits through a message (and never
    // sees this handler's return value) knows its job's id beforehand: it counts its own jobs.
    let n = read_uint(call, &jobs_of_count_key(&submitter))?;
    let id = job_id(&submitter, n);
    let seed = select::seed(&call.env.randomness, &id, height);

    let snapshot = candidates::scan(call, &spec)?;
    let c = snapshot.len() as u64;
    if c < spec.runners {
        return Err(DispatchError::NotEnoughCandidates {
            eligible: c,
            need: spec.runners,
        }
        .into());
    }
    let pairs: Vec<(Address, u64)> = snapshot.iter().map(|c| (c.address, c.weight)).collect();
    // Hashing (the root), the draw (c × M) and the deadlines' worst case, before the work.
    let per_hash = p.hash_base_cycles + 64 * p.hash_cycles_per_byte;
    call.charge(root_hashes(c).saturating_mul(per_hash))?;
    call.charge(c.saturating_mul(spec.runners))?;
    call.charge(lifecycle::deadline_prepay(
        p,
        c,
        spec.runners,
        spec.pool.is_some(),
    ))?;
    // The verifier's timers: the finalization's worst case, the release of amounts held for
    // anomaly review, and the continuation's limits.
    call.charge(finalize.saturating_add(p.job_callback_cycles))?;
    call.charge(super::verifier::anomaly::release_cycles(p, spec.runners))?;
    call.charge_millicells(u128::from(p.job_callback_cells) * 1000)?;
    let root = candidates_root(&pairs);
    let m = usize::try_from(spec.runners).unwrap_or(usize::MAX);
    let selected = select::select(&pairs, &seed, m);
    let agg = lifecycle::aggregator_of(&selected, &snapshot);

    call.write(
        &candidates_key(&id),
        &cbor::encode(&snapshot_value(&snapshot)),
    )?;
    lifecycle::assign_first(call, &selected, &spec)?;
    let mut job = Job {
        spec: raw_spec.clone(),
        submitter,
        status: Status::Assigned,
        attempt: 0,
        seed,
        submitted_at: height,
        candidates_root: root,
        candidates: c,
        selected,
        committed: Vec::new(),
        excluded: Vec::new(),
        aggregator: agg,
        escrow,
        assigned_at: height,
        deadline: height.saturating_add(spec.timeout_blocks),
        timer_id: 0,
        committed_at: 0,
    };
    lifecycle::arm(call, &id, &mut job)?;
    lifecycle::store(call, &id, &job)?;
    call.write(
        &jobs_of_key(&submitter, n),
        &cbor::encode(&Value::Bytes(id.0.to_vec())),
    )?;
    write_uint(call, &jobs_of_count_key(&submitter), n + 1)?;
    call.emit(
        "JobSubmitted",
        &Value::Map(vec![
            (t("job_id"), Value::Bytes(id.0.to_vec())),
            (t("submitter"), addr_value(&submitter)),
            (t("job_type"), t(spec.job_type.name())),
            (t("escrow"), Value::from_u128(escrow)),
            (t("candidates"), Value::Uint(c)),
            (t("candidates_root"), Value::Bytes(root.0.to_vec())),
        ]),
    )?;
    lifecycle::emit_assigned(call, &id, &job)?;
    Ok(Value::Bytes(id.0.to_vec()))
}

fn get_job(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(1)?;
    let id = args.hash(0, "job_id")?;
    let Some(job) = lifecycle::load(call, &id)? else {
        return Ok(Value::Null);
    };
    let Value::Map(mut out) = job.to_value() else {
        return Err(corrupt("job form"));
    };
    out.push((t("job_id"), Value::Bytes(id.0.to_vec())));
    Ok(Value::Map(out))
}

/// Most snapshot entries one `get_candidates` page holds: an entry encodes in at most 40
/// bytes, so a page of `max_return_data_bytes / 64` fits the return limit with room to spare.
pub fn candidates_page_max(p: &cowboy_types::genesis::GenesisParams) -> u64 {
    p.max_return_data_bytes / 64
}

/// `get_candidates(job_id, start, limit)` → `{"candidates": [[address, weight, reputation]],
/// "next": i | None, "total"}`: entries `start..start+limit` of the snapshot (address order),
/// or `None` for an unknown job. The whole snapshot is read (and charged) for every page.
fn get_candidates(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(3)?;
    let id: Hash32 = args.hash(0, "job_id")?;
    let start = uint(args, 1, "start")?;
    let limit = uint(args, 2, "limit")?;
    let max = candidates_page_max(call.params);
    if limit > max {
        return Err(DispatchError::PageTooLarge { got: limit, max }.into());
    }
    let Some(b) = call.read(&candidates_key(&id))? else {
        return Ok(Value::Null);
    };
    let Value::Array(all) = cbor::decode(&b).map_err(|_| corrupt("snapshot not canonical CBOR"))?
    else {
        return Err(corrupt("snapshot"));
    };
    let total = all.len() as u64;
    let end = start.saturating_add(limit).min(total);
    let page: Vec<Value> = all
        .into_iter()
        .skip(usize::try_from(start).unwrap_or(usize::MAX))
        .take(usize::try_from(end.saturating_sub(start)).unwrap_or(0))
        .collect();
    let next = if end < total {
        Value::Uint(end)
    } else {
        Value::Null
    };
    Ok(Value::Map(vec![
        (t("candidates"), Value::Array(page)),
        (t("next"), next),
        (t("total"), Value::Uint(total)),
    ]))
}

/// `jobs_of(submitter, start, limit)`: the submitter's jobs `start..start+limit` in
/// submission order, as `{"jobs": [{job_id, status, attempt}], "next": i | None, "total"}`.
fn jobs_of(call: &mut Call<'_>, args: &Args<'_>) -> Result<Value, CallError> {
    args.expect_count(3)?;
    let who = args.address(0, "submitter")?;
    let start = uint(args, 1, "start")?;
    let limit = uint(args, 2, "limit")?;
    let max = call.params.runner_page_max;
    if limit > max {
        return Err(DispatchError::PageTooLarge { got: limit, max }.into());
    }
    let total = read_uint(call, &jobs_of_count_key(&who))?;
    let end = start.saturating_add(limit).min(total);
    let mut page = Vec::new();
    for i in start..end {
        let id = match call.read(&jobs_of_key(&who, i))? {
            Some(b) => match cbor::decode(&b) {
                Ok(Value::Bytes(h)) if h.len() == 32 => {
                    let mut x = [0u8; 32];
                    x.copy_from_slice(&h);
                    Hash32(x)
                }
                _ => return Err(corrupt("jobs_of entry")),
            },
            None => return Err(corrupt("jobs_of hole")),
        };
        let job = lifecycle::load(call, &id)?.ok_or_else(|| corrupt("indexed job"))?;
        page.push(Value::Map(vec![
            (t("job_id"), Value::Bytes(id.0.to_vec())),
            (t("status"), t(job.status.name())),
            (t("attempt"), Value::Uint(job.attempt)),
        ]));
    }
    let next = if end < total {
        Value::Uint(end)
    } else {
        Value::Null
    };
    Ok(Value::Map(vec![
        (t("jobs"), Value::Array(page)),
        (t("next"), next),
        (t("total"), Value::Uint(total)),
    ]))
}
