//! Building a job's candidate list (CIP-2 §4) from the runner registry's `"active"` list at
//! the submission block: every filter, then address order.
//!
//! Filters, in the order they are evaluated (each runner's records are read only as far as
//! needed): status active; reputation ≥ `runner_min_reputation`; last heartbeat within
//! `runner_heartbeat_timeout_blocks`; `active_jobs < max_concurrent_jobs`; the job type
//! declared, with the model (LLM) or every domain (HTTP); TEE when required; the runner's
//! price estimate for the job ≤ the per-runner cap `floor(max_price / M)`; effective stake ≥
//! the registry's stake floor for its declared `max_job_value`; and, for a job naming
//! `required_runner_pool`, a `RunnerJoinPool(pool_id)` entitlement in
//! `RunnerPool(pool_id)` in force at the submission block ([`pool_admits`]: the entitlement
//! registry's own lookup, CIP-2 §7.3; the check counts no use, but a use-bounded membership
//! must have a use left, which the runner's selection spends).
//!
//! **Metering.** The scan reads at most five registry records per runner (list slot, stake,
//! reputation, heartbeat, profile), and for a pool job at most
//! [`entitlements::store::LOOKUP_READS`] entitlement records more. Before it starts, the
//! whole list is charged at its worst case: `len × (candidate_scan_cycles + reads ×
//! storage_read_cycles)`; the bytes read are charged as cells
//! (`state_read_millicells_per_byte`) when the scan ends. The list is at most
//! `runner_max_active` long.

use cowboy_types::cbor::Value;
use cowboy_types::entitlement::{Action, Scope};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::{ENTITLEMENT_REGISTRY, RUNNER_REGISTRY};
use cowboy_types::{Address, Event};

use super::error::DispatchError;
use super::job::Candidate;
use super::select::weight;
use super::spec::JobSpec;
use crate::system::runners::records::{JobType, Profile, Status};
use crate::system::runners::stake::{load_rep, load_stake, required_stake};
use crate::system::runners::store::{
    self, get_value, heartbeat_key, profile_key, List, Raw, Store,
};
use crate::system::{entitlements, Call, CallError};

/// Registry reads (read-only), counting the bytes read so the caller can charge them.
struct Reader<'s> {
    raw: Raw<'s>,
    bytes: u64,
}

impl Store for Reader<'_> {
    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, CallError> {
        let v = self.raw.get(key)?;
        self.bytes += (key.len() + v.as_ref().map_or(0, Vec::len)) as u64;
        Ok(v)
    }
    fn put(&mut self, _: &[u8], _: &[u8]) -> Result<(), CallError> {
        Err(store::corrupt("the dispatcher's scan is read-only"))
    }
    fn del(&mut self, _: &[u8]) -> Result<(), CallError> {
        Err(store::corrupt("the dispatcher's scan is read-only"))
    }
    fn pay(&mut self, _: Option<&Address>, _: u128) -> Result<(), CallError> {
        Err(store::corrupt("the dispatcher's scan is read-only"))
    }
    fn emit(&mut self, topic: &str, data: Value) -> Result<(), CallError> {
        self.raw.emit(topic, data)
    }
    fn height(&self) -> u64 {
        self.raw.height
    }
    fn params(&self) -> &GenesisParams {
        self.raw.params
    }
}

/// Runner-pool membership (CIP-2 §4 filter 7, §7.3): whether `runner` holds
/// `RunnerJoinPool(pool)` in `RunnerPool(pool)` in force at `height`, read from the
/// entitlement registry's storage through the same counting reader. A membership bounded in
/// uses must also have a use left now (uses and rate window, on its whole delegation chain):
/// selection spends one ([`super::lifecycle`]), and a runner whose use would be refused is
/// no candidate.
fn pool_admits(
    r: &mut Reader<'_>,
    runner: &Address,
    pool: &[u8],
    height: u64,
) -> Result<bool, CallError> {
    let scope = Scope::RunnerPool(pool.to_vec());
    let action = Action::RunnerJoinPool(pool.to_vec());
    r.raw.me = ENTITLEMENT_REGISTRY;
    let found = entitlements::store::lookup_chain(r, runner, &scope, &action, height);
    r.raw.me = RUNNER_REGISTRY;
    Ok(match found? {
        None => false,
        Some(mut chain) => {
            !entitlements::store::counts_uses(&chain)
                || entitlements::store::spend_chain(&mut chain, 0, height).is_ok()
        }
    })
}

/// HTTP access (whitepaper: "governed by the Entitlements system"): every domain of the job
/// must be open to `submitter` ([`entitlements::store::http_refusal`]). Charged at the worst
/// case per domain before reading, the bytes read as cells after.
pub fn check_domains(
    call: &mut Call<'_>,
    spec: &JobSpec,
    submitter: &Address,
) -> Result<(), CallError> {
    let p = call.params;
    let per = entitlements::store::HTTP_CHECK_READS.saturating_mul(p.storage_read_cycles);
    call.charge(per.saturating_mul(spec.domains.len() as u64))?;
    let height = call.env.height;
    let mut r = Reader {
        raw: raw(call),
        bytes: 0,
    };
    r.raw.me = ENTITLEMENT_REGISTRY;
    let mut refused = None;
    for d in &spec.domains {
        if let Some(set) = entitlements::store::http_refusal(&mut r, submitter, d, height)? {
            refused = Some((d.clone(), set));
            break;
        }
    }
    let bytes = r.bytes;
    charge_bytes(call, bytes)?;
    match refused {
        Some((domain, set)) => Err(DispatchError::DomainNotEntitled { domain, set }.into()),
        None => Ok(()),
    }
}

/// A runner's price for the job: `base + per_token × max_tokens + per_ms × max_wall_ms` from
/// its rate entry for (job type, model); `None` without an entry or on overflow.
pub fn estimate(profile: &Profile, spec: &JobSpec) -> Option<u128> {
    let model = if spec.job_type == JobType::Llm {
        spec.model
    } else {
        None
    };
    let rate = profile
        .rates
        .iter()
        .find(|r| r.job_type == spec.job_type && r.model == model)?;
    let tokens = rate.per_token.checked_mul(u128::from(spec.max_tokens))?;
    let time = rate.per_ms.checked_mul(u128::from(spec.max_wall_ms))?;
    rate.base.checked_add(tokens)?.checked_add(time)
}

/// Whether `profile` can run `spec` at the runner's prices within the per-runner cap.
fn qualifies(profile: &Profile, spec: &JobSpec) -> bool {
    if !profile.job_types.contains(&spec.job_type) {
        return false;
    }
    if let Some(m) = &spec.model {
        if profile.models.binary_search(m).is_err() {
            return false;
        }
    }
    if spec
        .domains
        .iter()
        .any(|d| profile.domains.binary_search(d).is_err())
    {
        return false;
    }
    if spec.tee_required && !profile.tee {
        return false;
    }
    matches!(estimate(profile, spec), Some(e) if e <= spec.cap())
}

/// Records read per runner at worst (list slot, stake, reputation, heartbeat, profile).
pub const READS_PER_CANDIDATE: u64 = 5;

/// Scan the active list for `spec` at the call's height; charged as the module docs say.
/// Returns the candidates in ascending address order.
pub fn scan(call: &mut Call<'_>, spec: &JobSpec) -> Result<Vec<Candidate>, CallError> {
    let p: &GenesisParams = call.params;
    let height = call.env.height;
    call.charge(p.storage_read_cycles)?;
    let (len, bytes) = {
        let mut r = Reader {
            raw: raw(call),
            bytes: 0,
        };
        (List::Active.len(&mut r)?, r.bytes)
    };
    charge_bytes(call, bytes)?;
    let reads = READS_PER_CANDIDATE
        + spec
            .pool
            .as_ref()
            .map_or(0, |_| entitlements::store::LOOKUP_READS);
    let per = p
        .candidate_scan_cycles
        .saturating_add(reads.saturating_mul(p.storage_read_cycles));
    call.charge(len.saturating_mul(per))?;

    let mut out = Vec::new();
    let mut r = Reader {
        raw: raw(call),
        bytes: 0,
    };
    for i in 0..len {
        let a = List::Active
            .get(&mut r, i)?
            .ok_or_else(|| store::corrupt("list hole"))?;
        if let Some(c) = check(&mut r, &a, spec, p, height)? {
            out.push(c);
        }
    }
    let bytes = r.bytes;
    charge_bytes(call, bytes)?;
    out.sort_by_key(|c| c.address.0);
    Ok(out)
}

fn raw<'s>(call: &'s mut Call<'_>) -> Raw<'s> {
    Raw {
        me: RUNNER_REGISTRY,
        state: &mut *call.state,
        params: call.params,
        height: call.env.height,
        events: Vec::<Event>::new(),
    }
}

fn charge_bytes(call: &mut Call<'_>, bytes: u64) -> Result<(), CallError> {
    let per = u128::from(call.params.state_read_millicells_per_byte);
    call.charge_millicells(per * u128::from(bytes))
}

/// One runner through every filter.
fn check(
    r: &mut Reader<'_>,
    a: &Address,
    spec: &JobSpec,
    p: &GenesisParams,
    height: u64,
) -> Result<Option<Candidate>, CallError> {
    let st = load_stake(r, a)?.ok_or_else(|| store::corrupt("listed runner without stake"))?;
    if st.status != Status::Active {
        return Ok(None);
    }
    let rep = load_rep(r, a)?.ok_or_else(|| store::corrupt("listed runner without rep"))?;
    if rep.reputation < p.runner_min_reputation {
        return Ok(None);
    }
    let hb = get_value(r, &heartbeat_key(a))?
        .and_then(|v| v.as_u64())
        .unwrap_or(0);
    if height.saturating_sub(hb) > p.runner_heartbeat_timeout_blocks {
        return Ok(None);
    }
    let prof = get_value(r, &profile_key(a))?
        .map(|v| Profile::from_value(&v))
        .transpose()?
        .ok_or_else(|| store::corrupt("listed runner without profile"))?;
    if rep.active_jobs >= prof.max_concurrent_jobs || !qualifies(&prof, spec) {
        return Ok(None);
    }
    match required_stake(p, prof.max_job_value) {
        Ok(need) if st.effective() >= need => {}
        _ => return Ok(None),
    }
    if let Some(pool) = &spec.pool {
        if !pool_admits(r, a, pool, height)? {
            return Ok(None);
        }
    }
    Ok(Some(Candidate {
        address: *a,
        weight: weight(st.effective(), p.runner_stake_floor_wei),
        reputation: rep.reputation,
    }))
}
