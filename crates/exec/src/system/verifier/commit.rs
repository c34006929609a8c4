//! `commit(job_id, commitment)`: phase 1 of commit/reveal (CIP-2 §4.1). A runner binds itself
//! to a result without showing it: `commitment = keccak256(result_bytes ‖ sig)` (README
//! Formulas). The dispatcher owns the job's state machine, so this handler only stores the
//! commitment and asks the dispatcher's hook to record the commit; every refusal of the hook
//! becomes a typed [`VerifyError`] and leaves no state behind (the call rolls back).

use cowboy_types::cbor::{self, Value};
use cowboy_types::{Address, Hash32};

use super::error::VerifyError;
use crate::system::dispatcher::lifecycle::{record_commit, CommitRefused};
use crate::system::{Call, CallError};

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

/// `["commit", job_id, runner]` → the 32-byte commitment.
pub fn commit_key(id: &Hash32, runner: &Address) -> Vec<u8> {
    cbor::encode(&Value::Array(vec![
        t("commit"),
        Value::Bytes(id.0.to_vec()),
        Value::Bytes(runner.0.to_vec()),
    ]))
}

/// The commitment of `runner` to job `id`, if any (metered read).
pub fn get(
    call: &mut Call<'_>,
    id: &Hash32,
    runner: &Address,
) -> Result<Option<Hash32>, CallError> {
    match call.read(&commit_key(id, runner))? {
        None => Ok(None),
        Some(b) => match cbor::decode(&b) {
            Ok(Value::Bytes(h)) if h.len() == 32 => {
                let mut out = [0u8; 32];
                out.copy_from_slice(&h);
                Ok(Some(Hash32(out)))
            }
            _ => Err(CallError::State(crate::state::StateFailure::Invariant(
                "corrupt result-verifier record: commitment".into(),
            ))),
        },
    }
}

/// Record the sender's commitment to job `id`.
pub fn commit(call: &mut Call<'_>, id: &Hash32, commitment: &Hash32) -> Result<Value, CallError> {
    let p = call.params;
    // The hook's worst case, before it runs: the job read, its rewrite, and a timer cancel
    // (the last commit cancels the deadline: a read and two writes in the scheduler).
    call.charge(
        p.storage_read_cycles
            .saturating_mul(2)
            .saturating_add(p.storage_write_cycles.saturating_mul(3))
            .saturating_add(crate::system::dispatcher::lifecycle::arm_finalize_cycles(p)),
    )?;
    // The job record grows by one 20-byte address (and its CBOR header byte).
    call.charge_millicells(u128::from(p.state_write_cells_per_byte) * 21 * 1000)?;
    let runner = call.sender;
    let height = call.env.height;
    let refused = match record_commit(&mut *call.state, p, height, id, &runner)? {
        Ok((_, written)) => {
            // The finalization timer armed by the last commit.
            call.charge_millicells(
                u128::from(p.state_write_cells_per_byte) * u128::from(written) * 1000,
            )?;
            None
        }
        Err(CommitRefused::NoSuchJob) => Some(VerifyError::NoSuchJob(*id)),
        Err(CommitRefused::NotAssigned) => Some(VerifyError::NotAssigned(*id)),
        Err(CommitRefused::Late { deadline }) => Some(VerifyError::LateCommit { height, deadline }),
        Err(CommitRefused::NotSelected) => Some(VerifyError::NotSelected(runner)),
        Err(CommitRefused::AlreadyCommitted) => Some(VerifyError::AlreadyCommitted(runner)),
    };
    if let Some(e) = refused {
        return Err(e.into());
    }
    // The verifier holds no value, so its account may not exist before the first commit.
    call.ensure_account()?;
    call.write(
        &commit_key(id, &runner),
        &cbor::encode(&Value::Bytes(commitment.0.to_vec())),
    )?;
    call.emit(
        "ResultCommitted",
        &Value::Map(vec![
            (t("job_id"), Value::Bytes(id.0.to_vec())),
            (t("runner"), Value::Bytes(runner.0.to_vec())),
            (t("commitment"), Value::Bytes(commitment.0.to_vec())),
        ]),
    )?;
    Ok(Value::Null)
}
