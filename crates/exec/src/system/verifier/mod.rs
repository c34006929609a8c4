//! The result verifier system actor at `0x…03` (CIP-2 §4–§5, §9; whitepaper §5.3, §17.7):
//! the selected runners of a job commit to their results here, reveal them (through the
//! designated aggregator, or each for itself once the aggregator's window has passed), and
//! the verifier decides the job by its verification mode, settles the escrow and sends the
//! continuation. The design (formulas, storage, lifecycle) is the exec README's "Off-chain
//! compute (CIP-2) — design"; "Result verifier (0x…03, built)" there is what this builds.
//!
//! * `commit(job_id, commitment)` ([`commit`]): a selected runner of an assigned job, at or
//!   before the deadline, stores `keccak256(result ‖ sig)`; the dispatcher's hook records it,
//!   and the last commit moves the job to committed and arms the verifier's `finalize`.
//! * `submit_verified_result(job_id, result, reveals)`: the job's aggregator, while it is
//!   committed and at most `2 × aggregator_timeout_blocks` after it became so; `reveals` is a
//!   list of `[runner, result, [tokens, wall_ms], sig]`, each checked ([`reveal`]); the mode
//!   decides ([`modes`]), unless a majority reports a fault ([`fault`]), and `result` must be
//!   the verified result (the first winner's, in committee order; a decisive fault's first
//!   report); then [`outcome::decide`] settles and the `finalize` timer is cancelled.
//! * `reveal(job_id, result, [tokens, wall_ms], sig)`: a committed runner's own reveal in the
//!   self-aggregation window; checked and stored.
//! * `finalize([job_id])`, `continue([job_id])`: the verifier's own timers (scheduler only):
//!   decide with the runners' own reveals after the reveal deadline; send the continuation.
//! * `challenge(job_id, runner, result, [tokens, wall_ms], sig)` with the bond, within the
//!   challenge window after the job was decided ([`challenge`]): a proven equivocation slashes
//!   the runner and pays the challenger; an unproven one burns the bond.
//! * Reads: `get_commit(job_id, runner)`, `get_reveal(job_id, runner)`, `get_outcome(job_id)`.
//!
//! Every handler charges `runner_call_cycles` first, then each read, write, hash, signature
//! check and the mode's evaluation before doing it ([`reveal::check_cycles`],
//! [`modes::cycles`], [`outcome::decide_cycles`]). The timers' work is prepaid by the
//! submitter at submission ([`outcome::finalize_cycles`], `job_callback_cycles`).

pub mod anomaly;
pub mod challenge;
pub mod commit;
pub mod error;
pub mod extract;
pub mod fault;
pub mod jsonpath;
pub mod modes;
pub mod oracle;
pub mod outcome;
pub mod reveal;
pub mod sign;

use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::{RESULT_VERIFIER, SCHEDULER};
use cowboy_types::{Address, Hash32};

use self::error::VerifyError;
use self::reveal::Reveal;
use super::dispatcher::job::{corrupt, Status};
use super::dispatcher::lifecycle::reveal_deadline;
use super::{Args, Call, CallError, SystemActor};

/// The result verifier.
pub struct ResultVerifier;

const HANDLERS: &str = "commit, submit_verified_result, reveal, challenge, finalize, continue, \
                        release, get_commit, get_reveal, get_outcome";

impl SystemActor for ResultVerifier {
    fn address(&self) -> Address {
        RESULT_VERIFIER
    }

    fn name(&self) -> &'static str {
        "result verifier"
    }

    fn timer_limits(&self, p: &GenesisParams, handler: &str) -> (u64, u64) {
        match handler {
            "continue" => (p.job_callback_cycles, p.job_callback_cells),
            _ => (p.system_timer_cycles_limit, p.system_timer_cells_limit),
        }
    }

    fn call(
        &self,
        call: &mut Call<'_>,
        handler: &str,
        args: &Args<'_>,
    ) -> Result<Value, CallError> {
        call.charge(call.params.runner_call_cycles)?;
        if handler == "challenge" {
            args.expect_count(5)?;
            let id = args.hash(0, "job_id")?;
            let (usage, sig) = usage_and_sig(args, 3)?;
            let r = Reveal {
                runner: args.address(1, "runner")?,
                result: args.blob(2, "result")?.to_vec(),
                usage,
            };
            return challenge::challenge(call, &id, &r, &sig);
        }
        if call.value != 0 {
            return Err(VerifyError::ValueNotAllowed { got: call.value }.into());
        }
        match handler {
            "commit" => {
                args.expect_count(2)?;
                let id = args.hash(0, "job_id")?;
                let c = args.hash(1, "commitment")?;
                commit::commit(call, &id, &c)
            }
            "submit_verified_result" => {
                args.expect_count(3)?;
                let id = args.hash(0, "job_id")?;
                let result = args.blob(1, "result")?.to_vec();
                let Value::Array(list) = args.get(2, "reveals")? else {
                    return Err(CallError::fail(
                        "TypeError",
                        "argument \"reveals\" must be a list",
                    ));
                };
                submit_verified_result(call, &id, &result, list)
            }
            "reveal" => {
                args.expect_count(4)?;
                let id = args.hash(0, "job_id")?;
                let result = args.blob(1, "result")?.to_vec();
                let (usage, sig) = usage_and_sig(args, 2)?;
                let r = Reveal {
                    runner: call.sender,
                    result,
                    usage,
                };
                self_reveal(call, &id, r, &sig)
            }
            "finalize" | "continue" | "release" => {
                if call.sender != SCHEDULER {
                    return Err(VerifyError::NotScheduler(call.sender).into());
                }
                args.expect_count(1)?;
                let id = timer_job(args.get(0, "data")?)?;
                match handler {
                    "finalize" => outcome::finalize(call, &id),
                    "release" => anomaly::release(call, &id),
                    _ => outcome::send_continuation(call, &id),
                }
            }
            "get_commit" => {
                args.expect_count(2)?;
                let id = args.hash(0, "job_id")?;
                let runner = args.address(1, "runner")?;
                Ok(commit::get(call, &id, &runner)?
                    .map_or(Value::Null, |h| Value::Bytes(h.0.to_vec())))
            }
            "get_reveal" => {
                args.expect_count(2)?;
                let id = args.hash(0, "job_id")?;
                let runner = args.address(1, "runner")?;
                Ok(reveal::load(call, &id, &runner)?.map_or(Value::Null, |r| r.to_value()))
            }
            "get_outcome" => {
                args.expect_count(1)?;
                let id = args.hash(0, "job_id")?;
                match call.read(&outcome::outcome_key(&id))? {
                    None => Ok(Value::Null),
                    Some(b) => cbor::decode(&b).map_err(|_| corrupt("outcome")),
                }
            }
            other => Err(CallError::fail(
                "NoSuchHandler",
                format!("the result verifier has no handler {other:?} (it has: {HANDLERS})"),
            )),
        }
    }
}

/// The job id in a verifier timer's data `[job_id]`.
fn timer_job(data: &Value) -> Result<Hash32, CallError> {
    match data {
        Value::Array(x) => match x.as_slice() {
            [Value::Bytes(b)] if b.len() == 32 => {
                let mut h = [0u8; 32];
                h.copy_from_slice(b);
                Some(Hash32(h))
            }
            _ => None,
        },
        _ => None,
    }
    .ok_or_else(|| corrupt("verifier timer data"))
}

/// `submit_verified_result(job_id, result, reveals)` by the job's aggregator.
fn submit_verified_result(
    call: &mut Call<'_>,
    id: &Hash32,
    result: &[u8],
    list: &[Value],
) -> Result<Value, CallError> {
    let job = reveal::load_job(call, id)?.ok_or(VerifyError::NoSuchJob(*id))?;
    if job.status != Status::Committed {
        return Err(VerifyError::NotCommitted(*id).into());
    }
    if call.sender != job.aggregator {
        return Err(VerifyError::NotAggregator {
            got: call.sender,
            expected: job.aggregator,
        }
        .into());
    }
    let p = call.params;
    let height = call.env.height;
    let deadline = reveal_deadline(p, job.committed_at);
    if height > deadline {
        return Err(VerifyError::LateReveal { height, deadline }.into());
    }
    let spec = super::dispatcher::spec_of(&job, p)?;
    if list.len() > job.committed.len() {
        return Err(VerifyError::BadReveal {
            index: job.committed.len(),
            reason: "more reveals than committed runners",
        }
        .into());
    }
    let mut checked: Vec<Reveal> = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let (r, sig) = reveal::parse_entry(i, v)?;
        if checked.iter().any(|c| c.runner == r.runner) {
            return Err(VerifyError::DuplicateReveal(r.runner).into());
        }
        reveal::check(call, id, &job, spec.max_return_bytes, &r, &sig)?;
        checked.push(r);
    }
    // Committee order, whatever order the aggregator listed them in.
    let mut ordered: Vec<Reveal> = Vec::with_capacity(checked.len());
    for a in &job.committed {
        if let Some(i) = checked.iter().position(|r| r.runner == *a) {
            ordered.push(checked.swap_remove(i));
        }
    }
    let total: u64 = ordered.iter().map(|r| r.result.len() as u64).sum();
    call.charge(modes::cycles(p, &spec.rules, ordered.len() as u64, total))?;
    let results: Vec<&[u8]> = ordered.iter().map(|r| r.result.as_slice()).collect();
    let verdict = modes::verdict(
        &spec.rules,
        spec.format,
        &results,
        call.env.timestamp_ms / 1000,
        spec.need(),
    );
    // The claimed result is the verified one, or the decisive fault's first report.
    if let Some(&first) = verdict.winners().first() {
        if ordered.get(first).map(|r| r.result.as_slice()) != Some(result) {
            return Err(VerifyError::ResultMismatch.into());
        }
    }
    // The finalization timer is no longer needed (a read and two writes in the scheduler).
    call.charge(p.storage_read_cycles + 2 * p.storage_write_cycles)?;
    let timer = job.timer_id;
    if let Err(r) = crate::timers::cancel(&mut *call.state, p, &RESULT_VERIFIER, timer)? {
        return Err(CallError::State(crate::state::StateFailure::Invariant(
            format!("job finalization timer: {}", r.message),
        )));
    }
    let agg = call.sender;
    outcome::decide(call, id, job, &spec, &ordered, &verdict, Some(agg))?;
    Ok(Value::Null)
}

/// `reveal(job_id, result, usage, sig)`: a committed runner's own reveal in the
/// self-aggregation window.
fn self_reveal(
    call: &mut Call<'_>,
    id: &Hash32,
    r: Reveal,
    sig: &[u8; 64],
) -> Result<Value, CallError> {
    let job = reveal::load_job(call, id)?.ok_or(VerifyError::NoSuchJob(*id))?;
    if job.status != Status::Committed {
        return Err(VerifyError::NotCommitted(*id).into());
    }
    let p = call.params;
    let height = call.env.height;
    let opens = job
        .committed_at
        .saturating_add(p.aggregator_timeout_blocks)
        .saturating_add(1);
    if height < opens {
        return Err(VerifyError::RevealTooEarly { height, opens }.into());
    }
    let deadline = reveal_deadline(p, job.committed_at);
    if height > deadline {
        return Err(VerifyError::LateReveal { height, deadline }.into());
    }
    if !job.committed.contains(&r.runner) {
        return Err(VerifyError::NotACommitter(r.runner).into());
    }
    if reveal::load(call, id, &r.runner)?.is_some() {
        return Err(VerifyError::AlreadyRevealed(r.runner).into());
    }
    let spec = super::dispatcher::spec_of(&job, p)?;
    reveal::check(call, id, &job, spec.max_return_bytes, &r, sig)?;
    call.write(
        &reveal::reveal_key(id, &r.runner),
        &cbor::encode(&r.to_value()),
    )?;
    call.emit(
        "ResultRevealed",
        &Value::Map(vec![
            (Value::Text("job_id".into()), Value::Bytes(id.0.to_vec())),
            (
                Value::Text("runner".into()),
                Value::Bytes(r.runner.0.to_vec()),
            ),
        ]),
    )?;
    Ok(Value::Null)
}

/// The `[tokens, wall_ms]` usage and the 64-byte signature at positions `at` and `at + 1`.
fn usage_and_sig(args: &Args<'_>, at: usize) -> Result<(sign::Usage, [u8; 64]), CallError> {
    let usage = reveal::parse_usage(args.get(at, "usage")?).ok_or_else(|| {
        CallError::fail("TypeError", "argument \"usage\" must be [tokens, wall_ms]")
    })?;
    let sig = reveal::parse_sig(args.get(at + 1, "sig")?)
        .ok_or_else(|| CallError::fail("TypeError", "argument \"sig\" must be 64 bytes"))?;
    Ok((usage, sig))
}
