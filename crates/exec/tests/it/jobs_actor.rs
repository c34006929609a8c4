//! Off-chain jobs from an actor's side over the real block rule: the price-feed example
//! (`examples/actors/price_feed.py`) submits through `cowboy_sdk.submit_job`, the id it
//! predicted is the dispatcher's, three signing runners commit and their aggregator reveals,
//! and the continuation stores the verified price and cancels the feed's own timer, once. When
//! the runners never answer the job fails with its escrow refunded to the feed and the feed's
//! timer gives up; a result verified after that timeout is refused by the continuation.
//! (Value conservation over jobs is `verifier::`'s property test; the feed holds value the
//! harness's conservation check does not count, so these tests assert the escrow exactly.)

use crate::dispatcher::*;
use crate::support::*;
use crate::verifier::{aggregate, commit_all, index_of, setup, usage, Rv};
use commonware_runtime::{deterministic, Runner as _};
use cowboy_exec::system::dispatcher::job::job_id;
use cowboy_types::cbor::Value;
use cowboy_types::system::{JOB_DISPATCHER, RESULT_VERIFIER, SCHEDULER};
use cowboy_types::{Address, Hash32};

const FEED: &str = include_str!("../../../../examples/actors/price_feed.py");

/// What the feed may spend on one job (three runners at 1,000 wei a job fit its cap).
const MAX_PRICE: u64 = 30_000;

/// Deploy the feed from key 0 with `wait_blocks` of patience and 1 CBY to spend.
async fn deploy_feed(d: &mut D, wait_blocks: u64) -> Address {
    let n = d.nonce[0];
    d.nonce[0] += 1;
    let args = Value::Array(vec![
        text("api.example.com"),
        int(MAX_PRICE),
        int(wait_blocks),
    ]);
    let tx = signed(&key(0), n, None, CBY, deploy(FEED, 7, args));
    let out = d.run(&[tx]).await;
    let r = &out.receipts[0];
    assert!(r.success, "deploy: {:?}", r.error);
    addr_of(&ret(r))
}

/// `request(symbol)` from the owner; the job id the feed returned.
async fn request(d: &mut D, feed: Address, symbol: &str) -> Hash32 {
    let r = d.send(0, feed, 0, "request", vec![text(symbol)]).await;
    assert!(r.success, "request: {:?}", r.error);
    hash_of(&ret(&r))
}

fn price(d: &mut D, feed: Address, symbol: &str) -> Value {
    d.query(feed, "price", vec![text(symbol)])
}

/// How many timers the feed has pending, as the scheduler lists them.
fn timers_of(d: &mut D, feed: Address) -> usize {
    match d.query(SCHEDULER, "timers_of", vec![bytes(&feed.0)]) {
        Value::Array(ts) => ts.len(),
        other => panic!("timers_of: {other:?}"),
    }
}

/// The committee's reveals of `prices` for `id`, observed at the current block's time,
/// committed: the aggregator, the reveal entries, and the verified result — the median's, which
/// the callers put first (every price is within 1 % of it).
async fn answer(d: &mut D, id: &Hash32, prices: [&str; 3]) -> (u32, Vec<Value>, Vec<u8>) {
    let job = d.job(id);
    let sel = addrs_of(get(&job, "selected"));
    let observed_at = 1_700_000_000 + d.chain.height;
    let rvs: Vec<Rv> = sel
        .iter()
        .zip(prices)
        .map(|(a, p)| {
            let body = format!(r#"{{"observed_at": {observed_at}, "values": {{"price": {p}}}}}"#);
            Rv::new(index_of(a, 4), id, body.as_bytes(), usage(0, 100))
        })
        .collect();
    commit_all(d, id, &rvs).await;
    let job = d.job(id);
    let agg = index_of(&addr_of(get(&job, "aggregator")), 4);
    let median = rvs[0].result.clone();
    (agg, rvs.iter().map(Rv::entry).collect(), median)
}

#[test]
fn the_feed_gets_its_price_once_and_cancels_its_timer() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 4, job_params()).await;
        setup(&mut d, 3, 1_000, 0).await;
        let feed = deploy_feed(&mut d, 50).await;
        let id = request(&mut d, feed, "ETH").await;
        assert_eq!(
            id,
            job_id(&feed, 0),
            "the id the SDK predicted is the dispatcher's"
        );
        let job = d.job(&id);
        assert_eq!(addr_of(get(&job, "submitter")), feed);
        assert_eq!(get(&job, "status"), &text("assigned"));
        assert_eq!(get(&job, "escrow"), &int(MAX_PRICE));
        assert_eq!(timers_of(&mut d, feed), 1, "the feed's timeout");
        let r = d.send(0, feed, 0, "request", vec![text("ETH")]).await;
        assert_eq!(
            r.error.expect("refused").class,
            "ValueError",
            "one in flight"
        );
        let r = d.send(1, feed, 0, "request", vec![text("BTC")]).await;
        assert_eq!(
            r.error.expect("refused").class,
            "PermissionError",
            "owner only"
        );

        let (agg, entries, verified) = answer(&mut d, &id, ["2500.5", "2501.25", "2499.75"]).await;
        let r = aggregate(&mut d, agg, &id, &verified, &entries).await;
        assert!(r.success, "aggregate: {:?}", r.error);
        assert_eq!(
            price(&mut d, feed, "ETH"),
            Value::Null,
            "the continuation runs next block"
        );

        let out = d.empty().await;
        let runs: Vec<_> = out
            .timers
            .iter()
            .filter(|t| t.owner == RESULT_VERIFIER)
            .collect();
        assert_eq!(runs.len(), 1);
        assert!(runs[0].receipt.success, "{:?}", runs[0].receipt.error);
        let p = price(&mut d, feed, "ETH");
        let want = 2500.5; // the median
        assert_eq!(get(&p, "price"), &Value::Float(want));
        assert_eq!(get(&p, "job"), &bytes(&id.0));
        assert_eq!(
            timers_of(&mut d, feed),
            0,
            "the feed's timeout timer was cancelled"
        );
        // Never again; and the next request is the feed's second job.
        for _ in 0..3 {
            let out = d.empty().await;
            assert!(out
                .timers
                .iter()
                .all(|t| t.owner != RESULT_VERIFIER && t.owner != feed));
        }
        assert_eq!(request(&mut d, feed, "ETH").await, job_id(&feed, 1));
    });
}

#[test]
fn silent_runners_fail_the_job_refund_the_feed_and_its_timer_gives_up() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 4, job_params()).await;
        setup(&mut d, 3, 1_000, 0).await;
        let feed = deploy_feed(&mut d, 20).await;
        let before = d.chain.account(&feed).await.balance;
        let id = request(&mut d, feed, "ETH").await;
        let after_request = d.chain.account(&feed).await.balance;
        assert!(
            before - after_request >= u128::from(MAX_PRICE),
            "escrow and timer deposit"
        );

        // Nobody commits: at the deadline the three are excluded, no one is left to top the
        // committee up, and the job fails with a full refund.
        let deadline = get(&d.job(&id), "deadline").as_u64().expect("int");
        d.until(deadline + 1).await;
        assert_eq!(get(&d.job(&id), "status"), &text("failed"));
        assert_eq!(d.chain.account(&JOB_DISPATCHER).await.balance, 0);
        assert_eq!(
            d.chain.account(&feed).await.balance - after_request,
            u128::from(MAX_PRICE),
            "the escrow is back"
        );

        // The feed's own timer fires and gives the job up.
        let mut gave_up = false;
        while !gave_up {
            let out = d.empty().await;
            for t in out.timers.iter().filter(|t| t.owner == feed) {
                assert!(t.receipt.success, "{:?}", t.receipt.error);
                assert!(t.receipt.events.iter().any(|e| e.topic == "PriceTimedOut"));
                gave_up = true;
            }
            assert!(d.chain.height < 100, "the feed's timer never fired");
        }
        assert_eq!(price(&mut d, feed, "ETH"), Value::Null);
        assert_eq!(timers_of(&mut d, feed), 0);
        // Nothing in flight: the owner may ask again.
        request(&mut d, feed, "ETH").await;
    });
}

#[test]
fn a_result_after_the_feeds_timeout_is_refused() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 4, job_params()).await;
        setup(&mut d, 3, 1_000, 0).await;
        let feed = deploy_feed(&mut d, 2).await;
        let id = request(&mut d, feed, "ETH").await;
        // The feed stops waiting two blocks later; the runners are slower but within the job's
        // own deadline, so the verifier still settles the job and sends the continuation.
        d.empty().await;
        d.empty().await;
        let (agg, entries, verified) = answer(&mut d, &id, ["10", "10", "10"]).await;
        let r = aggregate(&mut d, agg, &id, &verified, &entries).await;
        assert!(r.success, "aggregate: {:?}", r.error);
        assert_eq!(get(&d.job(&id), "status"), &text("verified"));

        let out = d.empty().await;
        let runs: Vec<_> = out
            .timers
            .iter()
            .filter(|t| t.owner == RESULT_VERIFIER)
            .collect();
        assert_eq!(runs.len(), 1);
        let e = runs[0]
            .receipt
            .error
            .clone()
            .expect("the late result is refused");
        assert_eq!(e.class, "PermissionError", "{}", e.message);
        assert_eq!(price(&mut d, feed, "ETH"), Value::Null);
    });
}
