//! `cowboy runner …` and `cowboy job …`: the off-chain compute reads of CIP-2 over the public
//! RPC (`cowboy_getRunners`, `cowboy_getRunner`, `cowboy_getJob`, `cowboy_getJobCandidates`,
//! `cowboy_getBlockByNumber`), and `job selection`, which recomputes a job's committee from
//! that public data alone with the dispatcher's own pure functions
//! (`cowboy_exec::system::dispatcher::select`): the seed from the submission block's
//! randomness, the candidates' Merkle root from the snapshot, and the Fisher-Yates draw.

use cowboy_exec::system::dispatcher::select::{candidates_root, retry_seed, seed, select};
use cowboy_types::{Address, Hash32};
use serde_json::{json, Value as Json};

use crate::chain::{hex0x, parse_address, parse_hash, rpc, CmdResult, Ctx};

/// `{"bytes": "0x…"}` (the RPC's rendering of CBOR bytes) as bytes.
fn bytes_of(v: &Json) -> Option<Vec<u8>> {
    let s = v["bytes"].as_str()?.strip_prefix("0x")?;
    hex::decode(s).ok()
}

fn address_of(v: &Json) -> Option<Address> {
    Some(Address(bytes_of(v)?.try_into().ok()?))
}

fn hash_of(v: &Json) -> Option<Hash32> {
    Some(Hash32(bytes_of(v)?.try_into().ok()?))
}

fn addresses_of(v: &Json) -> Option<Vec<Address>> {
    v.as_array()?.iter().map(address_of).collect()
}

fn shown(a: &Address) -> String {
    a.to_checksum()
}

/// Every item of a paged RPC read: `method` with `args` then the page's start, the items in
/// each page's `field`, until a page has no `next`.
fn all_pages(ctx: &Ctx, method: &str, args: &[Json], field: &str) -> Result<Vec<Json>, String> {
    let mut all = Vec::new();
    let mut start = 0u64;
    loop {
        let mut params = args.to_vec();
        params.push(json!(start));
        let page = ctx.client.call(method, Json::Array(params)).map_err(rpc)?;
        all.extend(page[field].as_array().cloned().unwrap_or_default());
        match page["next"].as_u64() {
            Some(n) => start = n,
            None => return Ok(all),
        }
    }
}

/// `cowboy runner list`: every registered runner, page by page.
pub fn runner_list(ctx: &Ctx) -> CmdResult {
    let all = all_pages(ctx, "cowboy_getRunners", &[], "runners")?;
    if ctx.json {
        crate::out_json(&Json::Array(all));
        return Ok(());
    }
    if all.is_empty() {
        crate::note("no runner is registered");
        return Ok(());
    }
    crate::out("address                                     status     healthy  reputation  effective stake (wei)");
    for r in &all {
        let a = address_of(&r["address"])
            .map(|a| shown(&a))
            .unwrap_or_default();
        crate::out(format!(
            "{a:<43} {:<10} {:<8} {:<11} {}",
            r["status"].as_str().unwrap_or_default(),
            r["healthy"].to_string(),
            r["reputation"].to_string(),
            r["effective_stake"]
                .as_str()
                .map_or_else(|| r["effective_stake"].to_string(), str::to_string),
        ));
    }
    Ok(())
}

/// `cowboy runner show ADDR`: one runner's record.
pub fn runner_show(ctx: &Ctx, addr: &str) -> CmdResult {
    let a = parse_address(addr)?;
    let r = ctx
        .client
        .call("cowboy_getRunner", json!([hex0x(&a.0)]))
        .map_err(rpc)?;
    if r.is_null() {
        return Err(format!("{} is not a registered runner", shown(&a)));
    }
    crate::out_json(&r);
    Ok(())
}

fn get_job(ctx: &Ctx, id: &str) -> Result<(String, Json), String> {
    let id = parse_hash(id)?;
    let job = ctx.client.call("cowboy_getJob", json!([id])).map_err(rpc)?;
    if job.is_null() {
        return Err(format!("no job {id}"));
    }
    Ok((id, job))
}

/// `cowboy job list ADDR`: the jobs `ADDR` submitted, oldest first, page by page
/// (`cowboy_getJobsOf`): id, status and attempt.
pub fn job_list(ctx: &Ctx, addr: &str) -> CmdResult {
    let a = parse_address(addr)?;
    let all = all_pages(ctx, "cowboy_getJobsOf", &[json!(a.to_checksum())], "jobs")?;
    if ctx.json {
        crate::out_json(&Json::Array(all));
        return Ok(());
    }
    if all.is_empty() {
        crate::note(format!("{} submitted no job", shown(&a)));
        return Ok(());
    }
    crate::out(
        "job id                                                              status     attempt",
    );
    for j in &all {
        let id = bytes_of(&j["job_id"])
            .map(|b| hex0x(&b))
            .unwrap_or_default();
        crate::out(format!(
            "{id:<67} {:<10} {}",
            j["status"].as_str().unwrap_or_default(),
            j["attempt"]
        ));
    }
    Ok(())
}

/// `cowboy job show ID`: the job, its committee and its outcome.
pub fn job_show(ctx: &Ctx, id: &str) -> CmdResult {
    let (id, job) = get_job(ctx, id)?;
    if ctx.json {
        crate::out_json(&job);
        return Ok(());
    }
    let list = |v: &Json| {
        addresses_of(v)
            .unwrap_or_default()
            .iter()
            .map(shown)
            .collect::<Vec<_>>()
            .join(", ")
    };
    crate::out(format!("job        {id}"));
    crate::out(format!(
        "status     {} (attempt {})",
        job["status"].as_str().unwrap_or_default(),
        job["attempt"]
    ));
    let submitter = address_of(&job["submitter"])
        .map(|a| shown(&a))
        .unwrap_or_default();
    crate::out(format!(
        "submitter  {submitter} at block {}",
        job["submitted_at"]
    ));
    crate::out(format!("escrow     {} wei", job["escrow"]));
    crate::out(format!("committee  {}", list(&job["selected"])));
    let agg = address_of(&job["aggregator"])
        .map(|a| shown(&a))
        .unwrap_or_default();
    crate::out(format!("aggregator {agg}"));
    crate::out(format!("committed  {}", list(&job["committed"])));
    crate::out(format!("deadline   block {}", job["deadline"]));
    let o = &job["outcome"];
    if !o.is_null() {
        // A job failed by a majority's fault report names the fault; its "winners" are the
        // paid reporters.
        let verdict = match o["fault"].as_str() {
            Some(kind) => format!(
                "{} ({kind} fault): reporters",
                o["status"].as_str().unwrap_or_default()
            ),
            None => format!("{}: winners", o["status"].as_str().unwrap_or_default()),
        };
        crate::out(format!(
            "outcome    {verdict} {}; paid {}, burned {}, refund {}",
            list(&o["winners"]),
            o["paid"],
            o["burned"],
            o["refund"]
        ));
    }
    Ok(())
}

/// What `job selection` recomputed, and whether it matches what the chain stored.
#[derive(Debug, PartialEq, Eq)]
pub struct Recomputed {
    /// The seed from the submission block's randomness, the job id and the height.
    pub seed: Hash32,
    /// Whether it equals the stored seed.
    pub seed_matches: bool,
    /// The snapshot's Merkle root.
    pub root: Hash32,
    /// Whether it equals the stored `candidates_root`.
    pub root_matches: bool,
    /// The first committee, drawn from the snapshot with the seed.
    pub committee: Vec<Address>,
}

/// Recompute a job's first committee from public data: the job as `cowboy_getJob` returns it,
/// its candidate snapshot `(address, weight)` in stored order, and the `randomness` of the
/// header of its submission block.
pub fn recompute(
    id: &Hash32,
    job: &Json,
    snapshot: &[(Address, u64)],
    randomness: &Hash32,
) -> Result<Recomputed, String> {
    let height = job["submitted_at"]
        .as_u64()
        .ok_or("the job has no submitted_at")?;
    let m = job["spec"]["verification"]["runners"]
        .as_u64()
        .or_else(|| job["selected"].as_array().map(|s| s.len() as u64))
        .ok_or("the job names no committee size")?;
    let stored_seed = hash_of(&job["seed"]).ok_or("the job has no seed")?;
    let stored_root = hash_of(&job["candidates_root"]).ok_or("the job has no candidates_root")?;
    let s = seed(randomness, id, height);
    let root = candidates_root(snapshot);
    let m = usize::try_from(m).map_err(|_| "committee size overflows")?;
    Ok(Recomputed {
        seed: s,
        seed_matches: s == stored_seed,
        root,
        root_matches: root == stored_root,
        committee: select(snapshot, &s, m),
    })
}

/// Every committee of a job, attempt by attempt, from public data: attempt 0 is the draw
/// from the snapshot with `seed`; each later attempt keeps the members of the one before that
/// committed (in commit order, as the dispatcher keeps them), excludes the others for good,
/// and tops the committee up to `m` from what is left of the snapshot with `retry_seed(seed,
/// a)`. `committed` is the job's `committed` list (commit order, across attempts). Also
/// returns the members excluded before the current attempt, in the order the dispatcher
/// appended them to the job's `excluded`.
pub fn rounds(
    seed: &Hash32,
    m: usize,
    snapshot: &[(Address, u64)],
    attempt: u64,
    committed: &[Address],
) -> (Vec<Vec<Address>>, Vec<Address>) {
    let mut out = vec![select(snapshot, seed, m)];
    let mut gone: Vec<Address> = Vec::new();
    for a in 1..=attempt {
        let prev = out.last().cloned().unwrap_or_default();
        let kept: Vec<Address> = committed
            .iter()
            .filter(|c| prev.contains(c))
            .copied()
            .collect();
        gone.extend(prev.iter().filter(|x| !kept.contains(x)));
        let left: Vec<(Address, u64)> = snapshot
            .iter()
            .filter(|(x, _)| !gone.contains(x) && !kept.contains(x))
            .copied()
            .collect();
        let s = retry_seed(seed, u32::try_from(a).unwrap_or(u32::MAX));
        let picks = select(&left, &s, m.saturating_sub(kept.len()));
        out.push(kept.into_iter().chain(picks).collect());
    }
    (out, gone)
}

/// The job's whole candidate snapshot, page by page.
fn snapshot(ctx: &Ctx, id: &str) -> Result<Vec<(Address, u64)>, String> {
    all_pages(ctx, "cowboy_getJobCandidates", &[json!(id)], "candidates")?
        .iter()
        .map(|e| {
            let a = address_of(&e[0]).ok_or("a snapshot entry without an address")?;
            let w = e[1].as_u64().ok_or("a snapshot entry without a weight")?;
            Ok((a, w))
        })
        .collect()
}

/// `cowboy job selection ID`: recompute the job's committee from RPC data alone and compare.
/// Exits non-zero if anything differs from what the chain stored.
pub fn job_selection(ctx: &Ctx, id: &str) -> CmdResult {
    let (id_hex, job) = get_job(ctx, id)?;
    let id = Hash32::from_hex(&id_hex[2..]).ok_or("bad job id")?;
    let height = job["submitted_at"]
        .as_u64()
        .ok_or("the job has no submitted_at")?;
    let block = ctx
        .client
        .call("cowboy_getBlockByNumber", json!([height]))
        .map_err(rpc)?;
    let randomness = block["randomness"]
        .as_str()
        .and_then(|s| Hash32::from_hex(s.strip_prefix("0x")?))
        .ok_or_else(|| format!("block {height} has no randomness"))?;
    let snap = snapshot(ctx, &id_hex)?;
    let r = recompute(&id, &job, &snap, &randomness)?;
    let attempt = job["attempt"].as_u64().unwrap_or(0);
    let stored = addresses_of(&job["selected"]).unwrap_or_default();
    let committed = addresses_of(&job["committed"]).unwrap_or_default();
    let excluded = addresses_of(&job["excluded"]).unwrap_or_default();
    // Every re-selection after a timeout is recomputed too, round by round.
    let (all, gone) = rounds(&r.seed, r.committee.len(), &snap, attempt, &committed);
    let last = all.last().cloned().unwrap_or_default();
    // While assigned the stored committee is the last round's; once committed, verified or
    // failed it holds only (some of) that round's members.
    let committee_matches = excluded.starts_with(&gone)
        && if job["status"].as_str() == Some("assigned") {
            stored == last
        } else {
            stored.iter().all(|a| last.contains(a))
        };
    if ctx.json {
        crate::out_json(&json!({
            "jobId": id_hex,
            "seed": hex0x(&r.seed.0),
            "seedMatches": r.seed_matches,
            "candidatesRoot": hex0x(&r.root.0),
            "rootMatches": r.root_matches,
            "candidates": snap.len(),
            "committee": r.committee.iter().map(shown).collect::<Vec<_>>(),
            "rounds": all
                .iter()
                .map(|c| c.iter().map(shown).collect::<Vec<_>>())
                .collect::<Vec<_>>(),
            "committeeMatches": committee_matches,
            "attempt": attempt,
        }));
    } else {
        let yes = |b: bool| {
            if b {
                "matches the chain"
            } else {
                "DIFFERS from the chain"
            }
        };
        crate::out(format!(
            "seed       {} ({})",
            hex0x(&r.seed.0),
            yes(r.seed_matches)
        ));
        crate::out(format!(
            "candidates {} (root {}, {})",
            snap.len(),
            hex0x(&r.root.0),
            yes(r.root_matches)
        ));
        for (a, c) in all.iter().enumerate() {
            crate::out(format!(
                "attempt {a}  {}",
                c.iter().map(shown).collect::<Vec<_>>().join(", ")
            ));
        }
        crate::out(format!("committee  {}", yes(committee_matches)));
    }
    if r.seed_matches && r.root_matches && committee_matches {
        Ok(())
    } else {
        Err("the recomputed selection differs from the chain's".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kept members stay first, the silent are excluded for good, each top-up draws from what
    /// is left of the snapshot with the retry seed of its attempt.
    #[test]
    fn rounds_keep_committed_members_and_exclude_the_silent() {
        let snap: Vec<(Address, u64)> = (1..=6u8).map(|i| (Address([i; 20]), 1)).collect();
        let s = Hash32([7; 32]);
        let (all, gone) = rounds(&s, 3, &snap, 0, &[]);
        assert_eq!(all, vec![select(&snap, &s, 3)]);
        assert!(gone.is_empty());
        let first = all[0].clone();
        // Attempt 1: the first member committed, the other two timed out.
        let (all, gone) = rounds(&s, 3, &snap, 1, &[first[0]]);
        assert_eq!(gone, vec![first[1], first[2]]);
        let left: Vec<(Address, u64)> = snap
            .iter()
            .filter(|(a, _)| !first.contains(a))
            .copied()
            .collect();
        let mut want = vec![first[0]];
        want.extend(select(&left, &retry_seed(&s, 1), 2));
        assert_eq!(all[1], want);
        assert!(all[1][1..].iter().all(|a| !first.contains(a)));
    }
}
