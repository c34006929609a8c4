//! The result verifier system actor at `0x…03` (CIP-2 §4–§5, whitepaper §5.3): the selected
//! runners of a job commit to their results here, before the committee's deadline; the
//! design (commitment formula, reveals, modes, settlement) is the exec README's "Off-chain
//! compute (CIP-2) — design", and what this slice builds is its "Result verifier (0x…03,
//! built)" section.
//!
//! * `commit(job_id, commitment)`: a selected runner of an assigned job, at or before the
//!   deadline, stores `commitment` (32 bytes, `keccak256(result_bytes ‖ sig)`) under
//!   `["commit", job_id, runner]` and is recorded by the dispatcher's hook
//!   ([`crate::system::dispatcher::lifecycle::record_commit`]); the last member's commit moves
//!   the job to committed and cancels its deadline timer. Emits `ResultCommitted`.
//! * Reads: `get_commit(job_id, runner)` → the commitment or `None`.
//!
//! Every handler charges `runner_call_cycles` first; `commit` then charges, before any work,
//! the dispatcher's job read and rewrite and a timer cancel (its worst case: the last commit
//! cancels the deadline), and cells for the bytes the job record grows by, then writes the
//! commitment at the storage price. Not built yet: reveals, aggregation, modes, settlement.

pub mod commit;
pub mod error;

use cowboy_types::cbor::Value;
use cowboy_types::system::RESULT_VERIFIER;
use cowboy_types::Address;

use self::error::VerifyError;
use super::{Args, Call, CallError, SystemActor};

/// The result verifier.
pub struct ResultVerifier;

const HANDLERS: &str = "commit, get_commit";

impl SystemActor for ResultVerifier {
    fn address(&self) -> Address {
        RESULT_VERIFIER
    }

    fn name(&self) -> &'static str {
        "result verifier"
    }

    fn call(
        &self,
        call: &mut Call<'_>,
        handler: &str,
        args: &Args<'_>,
    ) -> Result<Value, CallError> {
        call.charge(call.params.runner_call_cycles)?;
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
            "get_commit" => {
                args.expect_count(2)?;
                let id = args.hash(0, "job_id")?;
                let runner = args.address(1, "runner")?;
                Ok(commit::get(call, &id, &runner)?
                    .map_or(Value::Null, |h| Value::Bytes(h.0.to_vec())))
            }
            other => Err(CallError::fail(
                "NoSuchHandler",
                format!("the result verifier has no handler {other:?} (it has: {HANDLERS})"),
            )),
        }
    }
}
