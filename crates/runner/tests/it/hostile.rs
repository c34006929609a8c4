//! Hostile runners through real daemons (issue 21, "Hostile paths"): the daemon end-to-end
//! network of `daemon.rs` (a real `cowboyd --dev`, three real `cowboy-runner` processes, the
//! loopback HTTPS price server and `examples/actors/price_feed.py`), with one runner restarted
//! under a simulated behaviour (`[simulate]`, README "Simulator") for each job. The chain alone
//! decides each outcome; every runner's balance is checked to the wei against the exec README's
//! formulas (its fees counted from the receipts of the transactions its log names).
//!
//! One chain for the whole sequence (CI time is a budget). The aggregator is the runner with
//! the lowest address (equal reputations at the first selection, ties to the lowest address;
//! it stays honest and wins every job, so it stays first), and the hostile runner is the
//! highest: its reputation falls 5 per misdeed, from 71 to 51, still above the dispatcher's
//! floor of 50 for the last job.

use std::collections::BTreeSet;

use cowboy_exec::system::dispatcher::job::Status;
use cowboy_runner::daemon::chain::{hex0x, Chain};
use cowboy_runner::daemon::simulate::DEV_CHAIN_ID;
use cowboy_types::cbor::Value;
use cowboy_types::system::JOB_DISPATCHER;
use cowboy_types::{Address, Hash32};
use serde_json::json;

use crate::daemon::{
    balance, decided, deploy_feed, field, outcome_of, request, wait_for, workspace, Net, Runner,
    BASE, MAX_PRICE,
};

/// A payment's parts (exec README, Formulas): burned 10 %, treasury 1 %, the runner the rest.
fn split(a: u128) -> (u128, u128, u128) {
    let (burn, treasury) = (a * 1000 / 10_000, a * 100 / 10_000);
    (burn, treasury, a - burn - treasury)
}

/// The aggregator's bonus: `min(max_price × 2 %, max_price − paid − held)`.
fn bonus(paid: u128, held: u128) -> u128 {
    (MAX_PRICE * 200 / 10_000).min(MAX_PRICE - paid - held)
}

async fn balance_at(chain: &Chain, a: &Address, height: u64) -> u128 {
    chain
        .request("cowboy_getAccount", json!([hex0x(&a.0), height]))
        .await
        .expect("account")["balance"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("a balance")
}

fn amount(v: &Value) -> u128 {
    v.as_u128()
        .unwrap_or_else(|| panic!("not an amount: {v:?}"))
}

fn addresses(v: &Value) -> BTreeSet<Address> {
    let Value::Array(items) = v else {
        panic!("not a list: {v:?}")
    };
    items
        .iter()
        .map(|a| match a {
            Value::Bytes(b) => Address(b.as_slice().try_into().expect("20 bytes")),
            _ => panic!("not an address: {a:?}"),
        })
        .collect()
}

/// The fees `runner` paid in blocks `(from, to]`: every transaction its log names (register,
/// update, heartbeat, commit, aggregate, reveal), by its receipt.
async fn fees(chain: &Chain, runner: &Runner, from: u64, to: u64) -> u128 {
    let log = std::fs::read_to_string(&runner.log).unwrap_or_default();
    let hashes: BTreeSet<String> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|l| l["fields"]["tx"].as_str().map(str::to_string))
        .collect();
    let mut total = 0;
    for h in hashes {
        let r = chain
            .request("cowboy_getReceipt", json!([h]))
            .await
            .expect("receipt");
        let at = r["blockHeight"].as_u64();
        if at.is_some_and(|at| from < at && at <= to) {
            total += r["feePaid"]
                .as_str()
                .and_then(|s| s.parse::<u128>().ok())
                .expect("feePaid");
        }
    }
    total
}

async fn reputation_of(net: &Net, i: usize) -> u64 {
    let record = net
        .owner
        .runner(&net.runners[i].address())
        .await
        .expect("runner")
        .expect("registered");
    field(&record, "reputation").as_u64().expect("a reputation")
}

/// One job of the sequence, decided.
struct Decided {
    id: Hash32,
    outcome: Value,
    /// The block of the request, and the block that decided the job.
    requested: u64,
    decided: u64,
}

impl Decided {
    /// Requests `symbol` from `feed` and waits for the job to be verified.
    async fn run(net: &Net, feed: Address, symbol: &str) -> Decided {
        Decided::run_to(net, feed, symbol, Status::Verified).await
    }

    /// Requests `symbol` from `feed` and waits for the job's decision, which must be `want`.
    async fn run_to(net: &Net, feed: Address, symbol: &str, want: Status) -> Decided {
        let id = request(&net.owner, feed, symbol).await;
        let requested = net
            .owner
            .request("cowboy_getJob", json!([id.to_hex()]))
            .await
            .expect("the job")["submitted_at"]
            .as_u64()
            .expect("submitted_at");
        let job = decided(&net.owner, &id).await;
        let outcome = outcome_of(&net.owner, &id).await;
        assert_eq!(job.status, want, "{symbol}: {outcome:?}");
        let decided = field(&outcome, "height").as_u64().expect("height");
        Decided {
            id,
            outcome,
            requested,
            decided,
        }
    }

    fn get(&self, name: &str) -> u128 {
        amount(field(&self.outcome, name))
    }

    /// What `runner` received in the job's blocks, its own fees added back.
    async fn received(&self, net: &Net, runner: &Runner) -> u128 {
        let a = runner.address();
        let before = balance_at(&net.owner, &a, self.requested).await;
        let after = balance_at(&net.owner, &a, self.decided).await;
        let fees = fees(&net.owner, runner, self.requested, self.decided).await;
        (after + fees)
            .checked_sub(before)
            .unwrap_or_else(|| panic!("{:?} lost {}", runner.address(), before - after))
    }

    /// The settlement when every winner is paid `BASE` now and `held` waits for review, the
    /// aggregator `agg` earning the bonus: the outcome's sums and each runner's receipts.
    async fn check_paid(
        &self,
        net: &Net,
        winners: &[usize],
        losers: &[usize],
        agg: usize,
        held: u128,
    ) {
        let paid = BASE * winners.len() as u128;
        let (burn, treasury, side) = split(BASE);
        let n = winners.len() as u128;
        assert_eq!(self.get("paid"), paid, "{:?}", self.outcome);
        assert_eq!(self.get("held"), held);
        assert_eq!(self.get("burned"), n * burn);
        assert_eq!(self.get("treasury"), n * treasury);
        assert_eq!(self.get("bonus"), bonus(paid, held));
        assert_eq!(self.get("tip"), 0);
        assert_eq!(
            self.get("refund"),
            MAX_PRICE - paid - held - bonus(paid, held)
        );
        let want: BTreeSet<Address> = winners.iter().map(|i| net.runners[*i].address()).collect();
        assert_eq!(addresses(field(&self.outcome, "winners")), want);
        for i in winners {
            let extra = if *i == agg { bonus(paid, held) } else { 0 };
            assert_eq!(
                self.received(net, &net.runners[*i]).await,
                side + extra,
                "winner {i}"
            );
        }
        for i in losers {
            assert_eq!(
                self.received(net, &net.runners[*i]).await,
                0,
                "loser {i} is paid nothing"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_runners_are_outvoted_missing_or_held_and_paid_to_the_wei() {
    let mut net = Net::start(100).await;
    assert_eq!(
        net.owner.chain_id, DEV_CHAIN_ID,
        "the runner's copy of the id"
    );
    let mut order: Vec<usize> = (0..net.runners.len()).collect();
    order.sort_by_key(|i| net.runners[*i].address());
    let (agg, other, hostile) = (order[0], order[1], order[2]);
    let everyone = [agg, other, hostile];
    let feed = net.feed;

    // Lying about usage (10 × the bounds): its result wins, but it is paid now only for usage
    // bounded at twice the committee's (the lower median of the winners' clamped tokens, 0),
    // BASE; the rest of its price min(BASE + PER_TOKEN × min(10, max_tokens = 1), cap) =
    // 2,000 is held in the escrow for the challenge window (exec README, "Anomaly review").
    net.runners[other].simulate("lying_usage");
    let dispatcher = balance(&net.owner, &JOB_DISPATCHER).await;
    let lie = Decided::run(&net, feed, "LIE").await;
    lie.check_paid(&net, &everyone, &[], agg, BASE).await;
    let job = net.owner.job(&lie.id).await.expect("job").expect("a job");
    assert_eq!(job.escrow, BASE, "the held part stays in escrow");
    assert_eq!(
        balance(&net.owner, &JOB_DISPATCHER).await,
        dispatcher + BASE
    );
    assert!(addresses(field(&lie.outcome, "faulty")).is_empty());
    net.runners[other].simulate("honest");

    // A runner whose commit comes late (`slow`: 3 s after executing, past the feed's 10
    // blocks of 100 ms) is missing: the other two decide, it is paid nothing and loses 5.
    // (Another runner than the one below: five penalties would take that one under the
    // reputation floor, and the committee needs all three.)
    net.runners[other].simulate("slow=3000");
    let before = reputation_of(&net, other).await;
    let dispatcher = balance(&net.owner, &JOB_DISPATCHER).await;
    let late = Decided::run(&net, feed, "LATE").await;
    late.check_paid(&net, &[agg, hostile], &[other], agg, 0)
        .await;
    assert_eq!(reputation_of(&net, other).await, before - 5);
    assert_eq!(balance(&net.owner, &JOB_DISPATCHER).await, dispatcher);
    net.runners[other].simulate("honest");

    // Each of these answers agrees with nothing, or never arrives: the other two decide, the
    // hostile runner is paid nothing and loses 5 reputation; the escrow is spent to the wei.
    for (behaviour, symbol) in [
        ("wrong", "WRONG"),
        ("garbage", "JUNK"),
        ("oversized", "BIG"),
        ("silent", "QUIET"),
    ] {
        net.runners[hostile].simulate(behaviour);
        let before = reputation_of(&net, hostile).await;
        let dispatcher = balance(&net.owner, &JOB_DISPATCHER).await;
        let d = Decided::run(&net, feed, symbol).await;
        d.check_paid(&net, &[agg, other], &[hostile], agg, 0).await;
        assert_eq!(
            reputation_of(&net, hostile).await,
            before - 5,
            "{behaviour}"
        );
        assert_eq!(
            balance(&net.owner, &JOB_DISPATCHER).await,
            dispatcher,
            "{behaviour}: the escrow is spent to the wei"
        );
        // The honest answer stands: the served price.
        assert_eq!(
            field(&net.stored(symbol).await, "price"),
            &Value::Float(1.5),
            "{behaviour}"
        );
        if behaviour != "silent" {
            let faulty = addresses(field(&d.outcome, "faulty"));
            assert_eq!(
                faulty,
                BTreeSet::from([net.runners[hostile].address()]),
                "{behaviour}: {:?}",
                d.outcome
            );
        }
    }
    net.runners[hostile].simulate("honest");

    // A callback actor that always fails: the runners are paid the success row and the escrow
    // is settled at verification; the continuation runs once, fails, and takes nothing back.
    let source = std::fs::read_to_string(workspace().join("examples/actors/price_feed.py"))
        .expect("the example")
        .replace(
            "        symbol = context.symbol\n",
            "        raise RuntimeError(\"this callback always fails\")\n",
        );
    let failing = deploy_feed(&net.owner, source, Hash32([1; 32])).await;
    let dispatcher = balance(&net.owner, &JOB_DISPATCHER).await;
    let d = Decided::run(&net, failing, "FAIL").await;
    d.check_paid(&net, &everyone, &[], agg, 0).await;
    assert_eq!(balance(&net.owner, &JOB_DISPATCHER).await, dispatcher);
    let run = wait_for("the continuation", || async {
        let runs = net
            .owner
            .request("cowboy_getTimerExecutions", json!([d.decided + 1]))
            .await
            .ok()?;
        runs.as_array()?
            .iter()
            .find(|r| r["handler"] == "continue")
            .cloned()
    })
    .await;
    assert_eq!(run["success"], false, "the callback failed: {run}");
    let price = net
        .owner
        .call(
            failing,
            "price",
            Value::Array(vec![crate::daemon::text("FAIL")]),
        )
        .await
        .expect("price");
    assert_eq!(price, Value::Null, "nothing stored");
    assert_eq!(
        balance(&net.owner, &JOB_DISPATCHER).await,
        dispatcher,
        "the failed continuation took nothing back"
    );
}

/// `price_feed.py` fetching `path` from the price server, with the default 10 s wall bound and
/// a deadline `timeout_blocks` after assignment (the example's is 10: at 100 ms blocks the
/// deadline binds first).
fn feed_fetching(path: &str, timeout_blocks: u64) -> String {
    std::fs::read_to_string(workspace().join("examples/actors/price_feed.py"))
        .expect("the example")
        .replace("/price?symbol=", &format!("{path}?symbol="))
        .replace(
            "timeout_blocks=10,",
            &format!("timeout_blocks={timeout_blocks},"),
        )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_sites_fail_the_job_as_the_runners_fault_reports_say_and_refund_the_escrow() {
    let net = Net::start(100).await;
    let everyone: Vec<usize> = (0..net.runners.len()).collect();
    // Each site defeats every honest runner the same way: all three report the fault (with no
    // progress), the majority's kind decides, nobody is paid or loses reputation, and the
    // whole escrow goes back to the feed (exec README, "Outcome table").
    //
    // The site that never answers has the example's 10 blocks: it is reported in time only
    // because the daemons cut the execution to the deadline. The others have 60, so that the
    // cap they test (redirects, body size) is the one that stops them on a loaded machine.
    for (i, (path, timeout_blocks, fault)) in [
        ("/hang", 10, "external"), // never answers: cut off in time for the deadline
        ("/loop", 60, "external"), // redirects to itself: stopped after 5
        ("/huge", 60, "impossible"), // a gigabyte: refused at the 8 MiB body cap
    ]
    .into_iter()
    .enumerate()
    {
        let salt = Hash32([i as u8 + 10; 32]);
        let feed = deploy_feed(&net.owner, feed_fetching(path, timeout_blocks), salt).await;
        let mut reputations = Vec::new();
        for r in &everyone {
            reputations.push(reputation_of(&net, *r).await);
        }
        let dispatcher = balance(&net.owner, &JOB_DISPATCHER).await;
        let d = Decided::run_to(&net, feed, "SITE", Status::Failed).await;
        assert_eq!(
            field(&d.outcome, "fault"),
            &Value::Text(fault.into()),
            "{path}: {:?}",
            d.outcome
        );
        for name in ["paid", "held", "burned", "treasury", "bonus", "tip"] {
            assert_eq!(d.get(name), 0, "{path}: {name}");
        }
        assert_eq!(d.get("refund"), MAX_PRICE, "{path}: the whole escrow back");
        assert!(addresses(field(&d.outcome, "faulty")).is_empty(), "{path}");
        for r in &everyone {
            assert_eq!(
                d.received(&net, &net.runners[*r]).await,
                0,
                "{path}: runner {r}"
            );
        }
        for (r, before) in everyone.iter().zip(reputations) {
            assert_eq!(reputation_of(&net, *r).await, before, "{path}: runner {r}");
        }
        assert_eq!(
            balance(&net.owner, &JOB_DISPATCHER).await,
            dispatcher,
            "{path}: the escrow is spent to the wei"
        );
    }
}
