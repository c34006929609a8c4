//! The whitepaper's outcome table, the rows besides success and runner fault (which
//! `verifier.rs` covers): a committee whose majority reveals a signed fault report decides the
//! job as an impossible job, an external fault or an actor fault, with exact balances for
//! every party; a minority's reports are outvoted and never count as a result.

use crate::dispatcher::*;
use crate::verifier::*;
use commonware_runtime::{deterministic, Runner as _};
use cowboy_exec::system::verifier::fault::{Kind, Report};
use cowboy_types::cbor::Value;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::{JOB_DISPATCHER, RESULT_VERIFIER, TREASURY};
use cowboy_types::{Address, Hash32, Receipt};

fn report(kind: Kind, progress_bps: u64) -> Vec<u8> {
    Report { kind, progress_bps }.encode()
}

/// Every runner's price is 1,000 + 1 wei per ms; a job of three runners with `max_price`
/// 9,000 caps each at 3,000.
const MAX_PRICE: u64 = 9_000;
const TIP: u64 = 10;

/// What a decided job left: its id, committee, the aggregate's receipt, its sender and the
/// fees it paid for its claims, and the balances of keys `0..n` just before them.
struct Decided {
    id: Hash32,
    sel: Vec<Address>,
    receipt: Receipt,
    agg: u32,
    agg_fees: u128,
    before: Vec<u128>,
}

/// Run a deterministic job of `results.len()` runners on a chain of `n` keys (runners
/// `1..n`) whose committee member `i` reveals `results[i]` after `wall_ms[i]` ms, aggregated.
/// The aggregator first claims a result that is not the verdict's (refused, nothing changes).
async fn decide(d: &mut D, n: u32, results: &[Vec<u8>], wall_ms: &[u64]) -> Decided {
    let cb = deploy_callback(d).await;
    let mode = map(vec![
        ("mode", text("deterministic")),
        ("runners", int(results.len() as u64)),
    ]);
    let escrow = u128::from(MAX_PRICE + TIP);
    let id = d
        .submit_ok(price_spec(mode, cb, MAX_PRICE, TIP), escrow)
        .await;
    let job = d.job(&id);
    let sel = addrs_of(get(&job, "selected"));
    let agg = index_of(&addr_of(get(&job, "aggregator")), n);
    let rvs: Vec<Rv> = sel
        .iter()
        .zip(results.iter().zip(wall_ms))
        .map(|(a, (res, &ms))| Rv::new(index_of(a, n), &id, res, usage(0, ms)))
        .collect();
    commit_all(d, &id, &rvs).await;
    let entries: Vec<Value> = rvs.iter().map(Rv::entry).collect();
    assert_eq!(
        refused(&aggregate(d, agg, &id, b"not the verdict", &entries).await),
        "ResultMismatch"
    );
    assert_eq!(get(&d.job(&id), "status"), &text("committed"));
    let mut before = Vec::new();
    for k in 0..n {
        before.push(d.chain.account(&D::addr(k)).await.balance);
    }
    // The claim is the first paid reveal's bytes in committee (commit) order: the verdict's
    // result or its first report. Try each; the others are refused.
    let mut receipt = None;
    let mut agg_fees = 0;
    for claim in results {
        let r = aggregate(d, agg, &id, claim, &entries).await;
        agg_fees += r.fee_paid;
        if r.success {
            receipt = Some(r);
            break;
        }
        assert_eq!(refused(&r), "ResultMismatch");
    }
    let receipt = receipt.expect("one claim is the verdict's");
    Decided {
        id,
        sel,
        receipt,
        agg,
        agg_fees,
        before,
    }
}

/// Check a fault-decided job: status, outcome record, event, every runner's balance change
/// (`pay[i]` to committee member `i`, less the aggregate's fee for the aggregator), the
/// submitter's refund, the treasury, reputations unchanged, no continuation, the escrow
/// empty and value conserved.
async fn check_fault(d: &mut D, x: &Decided, kind: &str, pay: &[u128], burned: u128) {
    let n = x.before.len() as u32;
    assert!(topics(&x.receipt).contains(&(RESULT_VERIFIER, "JobFailed".into())));
    assert_eq!(get(&d.job(&x.id), "status"), &text("failed"));
    let o = outcome(d, &x.id);
    assert_eq!(get(&o, "fault"), &text(kind));
    assert_eq!(get(&o, "result_from"), &Value::Null);
    let paid: u128 = pay.iter().sum::<u128>() + burned + amount(&o, "treasury");
    assert_eq!(amount(&o, "paid"), paid);
    assert_eq!(amount(&o, "burned"), burned);
    assert_eq!(amount(&o, "tip"), 0, "no tip without a result");
    assert_eq!(amount(&o, "bonus"), 0, "no bonus without a result");
    let refund = u128::from(MAX_PRICE + TIP) - paid;
    assert_eq!(amount(&o, "refund"), refund);
    assert_eq!(
        d.chain.account(&D::addr(0)).await.balance - x.before[0],
        refund,
        "the submitter's refund"
    );
    assert_eq!(
        d.chain.account(&TREASURY).await.balance,
        amount(&o, "treasury")
    );
    for (i, a) in x.sel.iter().enumerate() {
        let k = index_of(a, n);
        let fee = if k == x.agg { x.agg_fees } else { 0 };
        assert_eq!(
            d.chain.account(a).await.balance + fee - x.before[k as usize],
            pay[i],
            "member {i}"
        );
        assert_eq!(
            d.rep_and_jobs(a),
            (70, 0),
            "a fault is nobody's fault among those who revealed"
        );
    }
    assert_eq!(d.chain.account(&JOB_DISPATCHER).await.balance, 0);
    let out = d.empty().await;
    assert!(
        out.timers.iter().all(|t| t.owner != RESULT_VERIFIER),
        "a failed job sends no continuation"
    );
    d.check_conservation().await;
}

#[test]
fn fault_an_impossible_job_pays_its_reporters_pro_rata_and_refunds_the_rest() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 5, job_params()).await;
        setup(&mut d, 4, 1_000, 1).await;
        let results = [
            report(Kind::Impossible, 2_500),
            report(Kind::Impossible, 5_000),
            b"\"42\"".to_vec(),
        ];
        let x = decide(&mut d, 5, &results, &[400, 600, 100]).await;
        // a = 1,400 × 25 % = 350 (35 burned, 3 treasury) and 1,600 × 50 % = 800 (80, 8);
        // the runner who answered anyway is paid nothing.
        check_fault(&mut d, &x, "impossible", &[312, 712, 0], 35 + 80).await;
        assert_eq!(amount(&outcome(&mut d, &x.id), "treasury"), 3 + 8);
    });
}

#[test]
fn fault_an_external_fault_pays_its_reporters_pro_rata_and_refunds_the_rest() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 5, job_params()).await;
        setup(&mut d, 4, 1_000, 1).await;
        // The API answered one runner only: two report it down, one having done it all
        // (retries up to its bounds), one nothing.
        let results = [
            report(Kind::External, 10_000),
            br#""42""#.to_vec(),
            report(Kind::External, 0),
        ];
        let x = decide(&mut d, 5, &results, &[900, 100, 600]).await;
        // a = 1,900 × 100 % (190 burned, 19 treasury) and 1,600 × 0 %.
        check_fault(&mut d, &x, "external", &[1_691, 0, 0], 190).await;
    });
}

#[test]
fn fault_an_actor_fault_pays_each_reporter_the_minimum_fee_up_to_the_cap() {
    // With the minimum fee under the cap each reporter gets it whatever its progress; with the
    // default (10^14 wei) the cap of 3,000 binds.
    for (min_fee, each) in [(700u128, 700u128), (100_000_000_000_000, 3_000)] {
        deterministic::Runner::default().start(|ctx| async move {
            let p = GenesisParams {
                job_min_fee_wei: min_fee,
                ..job_params()
            };
            let mut d = D::new(ctx, 5, p).await;
            setup(&mut d, 4, 1_000, 1).await;
            let results = [
                report(Kind::Actor, 0),
                report(Kind::Actor, 3_000),
                report(Kind::Actor, 10_000),
            ];
            let x = decide(&mut d, 5, &results, &[10, 20, 30]).await;
            let burn = each / 10;
            let side = each - burn - each / 100;
            check_fault(&mut d, &x, "actor", &[side, side, side], 3 * burn).await;
        });
    }
}

#[test]
fn fault_a_minoritys_reports_are_outvoted_and_never_agree_as_a_result() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 6, job_params()).await;
        setup(&mut d, 5, 1_000, 1).await;
        // Two identical reports of four are not a majority; byte-identical as they are, they
        // do not form the deterministic mode's largest group either: the two results win.
        let results = [
            report(Kind::Impossible, 5_000),
            report(Kind::Impossible, 5_000),
            br#""42""#.to_vec(),
            br#""42""#.to_vec(),
        ];
        let x = decide(&mut d, 6, &results, &[100, 100, 100, 100]).await;
        assert_eq!(get(&d.job(&x.id), "status"), &text("verified"));
        let o = outcome(&mut d, &x.id);
        assert_eq!(get(&o, "fault"), &Value::Null);
        let sorted = |mut v: Vec<Address>| {
            v.sort();
            v
        };
        assert_eq!(
            sorted(addrs_of(get(&o, "winners"))),
            sorted(x.sel[2..].to_vec())
        );
        assert_eq!(
            sorted(addrs_of(get(&o, "faulty"))),
            sorted(x.sel[..2].to_vec())
        );
        // Cap 9,000 / 4 = 2,250; each winner's a = 1,100.
        assert_eq!(amount(&o, "paid"), 2_200);
        for (i, a) in x.sel.iter().enumerate() {
            let rep = if i < 2 { 65 } else { 71 };
            assert_eq!(d.rep_and_jobs(a), (rep, 0), "member {i}");
        }
        d.check_conservation().await;
    });
}
