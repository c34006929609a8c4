//! Phase 2 of commit/reveal (CIP-2 §4.1–§4.2): a committed job's results are revealed, by its
//! designated aggregator in one transaction (`submit_verified_result`) or, once the
//! aggregator's window has passed, by each committed runner for itself (`reveal`). Every
//! reveal is checked here before anything is stored: the runner committed, the result fits the
//! job's `max_return_bytes`, `keccak256(result ‖ sig)` is its commitment, and the signature
//! verifies under the runner's registered Ed25519 key ([`super::sign`]). A reveal that fails
//! any check refuses the whole call with a typed error: a commitment mismatch proves nothing
//! against the runner (anyone can submit garbage in its name), and a runner whose reveal is
//! never accepted is "missing" when the job is decided, which is its fault (README lifecycle).
//!
//! **Timing** (heights, against the job's `committed_at` = c and `T` =
//! `aggregator_timeout_blocks`): the aggregator submits at any height ≤ c + 2T while the job
//! is committed; a runner reveals its own result at heights c + T < h ≤ c + 2T. The
//! verifier's `finalize` timer runs at c + 2T + 1 and decides with what was revealed.
//!
//! **Metering.** Before each reveal is checked: two record reads (the commitment, the runner's
//! profile for its key), hashing the result twice (the commitment and the digest) at the
//! cost-table's hash prices, and `verify_signature_cycles` (§17.3's price of a signature
//! check) for the Ed25519 verification.

use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::RUNNER_REGISTRY;
use cowboy_types::{Address, Hash32};

use super::commit;
use super::error::VerifyError;
use super::sign::{self, Usage};
use crate::system::dispatcher::job::{corrupt, job_key, Job};
use crate::system::runners::records::{address_of, Fields, Profile};
use crate::system::runners::store::profile_key;
use crate::system::{Call, CallError};
use cowboy_types::system::JOB_DISPATCHER;

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

/// A checked reveal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reveal {
    /// The runner.
    pub runner: Address,
    /// Its result.
    pub result: Vec<u8>,
    /// The usage it signed.
    pub usage: Usage,
}

/// `["reveal", job_id, runner]` → `{result, tokens, wall_ms}`: a runner's own reveal, and the
/// job's result (the first winner's reveal) once it is verified.
pub fn reveal_key(id: &Hash32, runner: &Address) -> Vec<u8> {
    cbor::encode(&Value::Array(vec![
        t("reveal"),
        Value::Bytes(id.0.to_vec()),
        Value::Bytes(runner.0.to_vec()),
    ]))
}

impl Reveal {
    /// The stored form (without the runner, which is in the key).
    pub fn to_value(&self) -> Value {
        Value::Map(vec![
            (t("result"), Value::Bytes(self.result.clone())),
            (t("tokens"), Value::Uint(self.usage.tokens)),
            (t("wall_ms"), Value::Uint(self.usage.wall_ms)),
        ])
    }

    /// Decode a stored reveal of `runner`.
    pub fn from_value(runner: Address, v: &Value) -> Result<Reveal, CallError> {
        let f = Fields::of(v).ok_or_else(|| corrupt("reveal"))?;
        (|| {
            Some(Reveal {
                runner,
                result: match f.get("result")? {
                    Value::Bytes(b) => b.clone(),
                    _ => return None,
                },
                usage: Usage {
                    tokens: f.get("tokens")?.as_u64()?,
                    wall_ms: f.get("wall_ms")?.as_u64()?,
                },
            })
        })()
        .ok_or_else(|| corrupt("reveal"))
    }
}

/// The stored reveal of `runner` for job `id`, if any (metered).
pub fn load(
    call: &mut Call<'_>,
    id: &Hash32,
    runner: &Address,
) -> Result<Option<Reveal>, CallError> {
    match call.read(&reveal_key(id, runner))? {
        None => Ok(None),
        Some(b) => {
            let v = cbor::decode(&b).map_err(|_| corrupt("reveal not canonical CBOR"))?;
            Reveal::from_value(*runner, &v).map(Some)
        }
    }
}

/// Read the job `id` from the dispatcher's storage (metered).
pub fn load_job(call: &mut Call<'_>, id: &Hash32) -> Result<Option<Job>, CallError> {
    match call.read_at(&JOB_DISPATCHER, &job_key(id))? {
        None => Ok(None),
        Some(b) => {
            let v = cbor::decode(&b).map_err(|_| corrupt("job not canonical CBOR"))?;
            Job::from_value(&v).map(Some)
        }
    }
}

/// Write the job `id` to the dispatcher's storage (metered).
pub fn store_job(call: &mut Call<'_>, id: &Hash32, job: &Job) -> Result<(), CallError> {
    call.write_at(
        &JOB_DISPATCHER,
        &job_key(id),
        &cbor::encode(&job.to_value()),
    )
}

/// The cycles checking one reveal of `bytes` result bytes is charged.
pub fn check_cycles(p: &GenesisParams, bytes: u64) -> u64 {
    let hash = |n: u64| p.hash_base_cycles + p.hash_cycles_per_byte.saturating_mul(n);
    (2 * p.storage_read_cycles)
        .saturating_add(hash(bytes.saturating_add(64)))
        .saturating_add(hash(bytes))
        .saturating_add(hash(32 + 8 + 32 + 32 + 16))
        .saturating_add(p.verify_signature_cycles)
}

/// Parse a `[runner, result, [tokens, wall_ms], sig]` reveal entry.
pub fn parse_entry(index: usize, v: &Value) -> Result<(Reveal, [u8; 64]), VerifyError> {
    let bad = |reason| VerifyError::BadReveal { index, reason };
    let Value::Array(x) = v else {
        return Err(bad("must be [runner, result, [tokens, wall_ms], sig]"));
    };
    let [runner, result, usage, sig] = x.as_slice() else {
        return Err(bad("must be [runner, result, [tokens, wall_ms], sig]"));
    };
    let runner = address_of(runner).ok_or(bad("runner must be 20 bytes"))?;
    let Value::Bytes(result) = result else {
        return Err(bad("result must be bytes"));
    };
    let usage = parse_usage(usage).ok_or(bad("usage must be [tokens, wall_ms]"))?;
    let sig = parse_sig(sig).ok_or(bad("sig must be 64 bytes"))?;
    Ok((
        Reveal {
            runner,
            result: result.clone(),
            usage,
        },
        sig,
    ))
}

/// `[tokens, wall_ms]`.
pub fn parse_usage(v: &Value) -> Option<Usage> {
    match v {
        Value::Array(u) => match u.as_slice() {
            [a, b] => Some(Usage {
                tokens: a.as_u64()?,
                wall_ms: b.as_u64()?,
            }),
            _ => None,
        },
        _ => None,
    }
}

/// A 64-byte signature.
pub fn parse_sig(v: &Value) -> Option<[u8; 64]> {
    match v {
        Value::Bytes(b) => b.as_slice().try_into().ok(),
        _ => None,
    }
}

/// Check `r` with signature `sig` against job `id` (every check of the module docs), charged
/// before the work.
pub fn check(
    call: &mut Call<'_>,
    id: &Hash32,
    job: &Job,
    max_return_bytes: u64,
    r: &Reveal,
    sig: &[u8; 64],
) -> Result<(), CallError> {
    if !job.committed.contains(&r.runner) {
        return Err(VerifyError::NotACommitter(r.runner).into());
    }
    let got = r.result.len() as u64;
    if got > max_return_bytes {
        return Err(VerifyError::ResultTooLarge {
            runner: r.runner,
            got,
            max: max_return_bytes,
        }
        .into());
    }
    // Two reads, two hashes and the signature, before any of them.
    call.charge(
        check_cycles(call.params, got).saturating_sub(2 * call.params.storage_read_cycles),
    )?;
    let committed = commit::get(call, id, &r.runner)?
        .ok_or_else(|| corrupt("a committer without a commitment"))?;
    if sign::commitment(&r.result, sig) != committed {
        return Err(VerifyError::CommitmentMismatch(r.runner).into());
    }
    let key = match call.read_at(&RUNNER_REGISTRY, &profile_key(&r.runner))? {
        None => return Err(VerifyError::UnknownRunner(r.runner).into()),
        Some(b) => {
            let v = cbor::decode(&b).map_err(|_| corrupt("profile not canonical CBOR"))?;
            Profile::from_value(&v)?.key
        }
    };
    let d = sign::digest(call.env.chain_id, id, &r.result, r.usage);
    if !sign::verify(&key, &d, sig) {
        return Err(VerifyError::BadSignature(r.runner).into());
    }
    Ok(())
}
