//! Oracle semantics for HTTP jobs over the real block rule (`verifier/oracle.rs`): a job
//! declares its extraction rules, snapshot mode and freshness bound; three signing runners
//! commit, their aggregator reveals, and the verifier checks every result against the
//! declaration and the deciding block's time before the snapshot picks the job's result.
//! Honest and dishonest runners (a lying price, a stale observation, raw HTML instead of the
//! extracted values); refused declarations change nothing; value is conserved throughout.

use crate::dispatcher::*;
use crate::verifier::{
    aggregate, amount, deploy_callback, index_of, outcome, price_spec, refused, setup, usage, Rv,
};
use commonware_runtime::{deterministic, Runner as _};
use cowboy_types::cbor::Value;
use cowboy_types::system::RESULT_VERIFIER;
use cowboy_types::{Address, Hash32};

/// The committee's runner keys are `1..=3`; key 0 submits.
const KEYS: u32 = 4;
/// Each runner's price for a job; the job's budget.
const BASE: u64 = 1_000;
const MAX_PRICE: u64 = 30_000;

/// A chain with three signing runners and a callback actor that records continuations.
async fn start(ctx: deterministic::Context) -> (D, Address) {
    let mut d = D::new(ctx, KEYS, job_params()).await;
    setup(&mut d, 3, BASE, 0).await;
    let cb = deploy_callback(&mut d).await;
    (d, cb)
}

fn rule(name: &str, kind: &str, r: &str) -> Value {
    map(vec![("name", text(name)), (kind, text(r))])
}

/// An oracle verification of 3 runners with `params`.
fn oracle(params: Vec<(&str, Value)>) -> Value {
    map(vec![
        ("mode", text("oracle")),
        ("runners", int(3)),
        ("params", map(params)),
    ])
}

/// A runner's result: the values it extracted and when it observed them.
fn result(observed_at: u64, values: &str) -> Vec<u8> {
    format!(r#"{{"observed_at": {observed_at}, "values": {values}}}"#).into_bytes()
}

/// The block time (unix seconds) of the next block: the harness stamps block `h` at
/// `1_700_000_000 + h` seconds.
fn now(d: &D) -> u64 {
    1_700_000_000 + d.chain.height + 1
}

/// Submit `mode` for 3 runners and commit `answers` in committee order; the job, its
/// committee's prepared reveals, and the aggregator's key.
async fn answered(
    d: &mut D,
    cb: Address,
    mode: Value,
    answers: &[Vec<u8>],
) -> (Hash32, Vec<Rv>, u32) {
    let id = d
        .submit_ok(price_spec(mode, cb, MAX_PRICE, 0), u128::from(MAX_PRICE))
        .await;
    let job = d.job(&id);
    let rvs: Vec<Rv> = addrs_of(get(&job, "selected"))
        .iter()
        .zip(answers)
        .map(|(a, r)| Rv::new(index_of(a, KEYS), &id, r, usage(0, 100)))
        .collect();
    // One block each, so that the committee order (the order of commits) is `answers`'.
    for r in &rvs {
        let c = d
            .send(
                r.k,
                RESULT_VERIFIER,
                0,
                "commit",
                vec![bytes(&id.0), r.commitment()],
            )
            .await;
        assert!(c.success, "commit: {:?}", c.error);
    }
    let job = d.job(&id);
    assert_eq!(get(&job, "status"), &text("committed"));
    let order: Vec<Address> = rvs.iter().map(|r| D::addr(r.k)).collect();
    assert_eq!(addrs_of(get(&job, "committed")), order);
    let agg = index_of(&addr_of(get(&job, "aggregator")), KEYS);
    (id, rvs, agg)
}

/// The aggregator reveals `rvs` claiming `result`; the outcome.
async fn decided(d: &mut D, agg: u32, id: &Hash32, result: &[u8], rvs: &[Value]) -> Value {
    let r = aggregate(d, agg, id, result, rvs).await;
    assert!(r.success, "aggregate: {:?}", r.error);
    outcome(d, id)
}

fn entries(rvs: &[Rv]) -> Vec<Value> {
    rvs.iter().map(Rv::entry).collect()
}

fn price_rules() -> Value {
    Value::Array(vec![rule("price", "jsonpath", "$.data.price")])
}

#[test]
fn a_median_oracle_takes_the_middle_price_and_outvotes_a_liar() {
    deterministic::Runner::default().start(|ctx| async move {
        let (mut d, cb) = start(ctx).await;
        let mode = oracle(vec![
            ("extract", price_rules()),
            ("snapshot", text("median")),
            ("field", text("price")),
            ("tolerance_bps", int(100)),
            ("max_age_seconds", int(60)),
        ]);
        let t = now(&d);
        let answers = [
            result(t, r#"{"price": 2500.5}"#),
            result(t, r#"{"price": 99999}"#),
            result(t, r#"{"price": 2501}"#),
        ];
        let (id, rvs, agg) = answered(&mut d, cb, mode, &answers).await;
        let all = entries(&rvs);
        // The median (2501) is the job's result, whoever committed first.
        for wrong in [&answers[0], &answers[1]] {
            assert_eq!(
                refused(&aggregate(&mut d, agg, &id, wrong, &all).await),
                "ResultMismatch"
            );
        }
        let o = decided(&mut d, agg, &id, &answers[2], &all).await;
        assert_eq!(get(&o, "status"), &text("verified"));
        assert_eq!(addr_of(get(&o, "result_from")), D::addr(rvs[2].k));
        assert_eq!(addrs_of(get(&o, "faulty")), vec![D::addr(rvs[1].k)]);
        assert_eq!(
            amount(&o, "paid"),
            2 * u128::from(BASE),
            "the liar is not paid"
        );
        let liar = D::addr(rvs[1].k);
        assert_eq!(d.rep_and_jobs(&liar).0, 65);

        d.empty().await;
        let Some(Value::Array(got)) = d.chain.storage(&cb, &text("got")).await else {
            panic!("no continuation")
        };
        let Value::Array(x) = &got[0] else { panic!() };
        assert_eq!(x[2], bytes(&answers[2]), "the continuation gets the median");
        d.check_conservation().await;
    });
}

#[test]
fn stale_and_unextracted_results_agree_with_nothing() {
    deterministic::Runner::default().start(|ctx| async move {
        let (mut d, cb) = start(ctx).await;
        let mode = || {
            oracle(vec![
                ("extract", price_rules()),
                ("snapshot", text("first_valid")),
                ("max_age_seconds", int(30)),
            ])
        };
        // The first runner's observation is stale: the first *valid* one stands.
        let t = now(&d);
        let answers = [
            result(t - 100, r#"{"price": 1}"#),
            result(t, r#"{"price": 2500}"#),
            result(t, r#"{"price": 2600}"#),
        ];
        let (id, rvs, agg) = answered(&mut d, cb, mode(), &answers).await;
        let o = decided(&mut d, agg, &id, &answers[1], &entries(&rvs)).await;
        assert_eq!(addr_of(get(&o, "result_from")), D::addr(rvs[1].k));
        assert_eq!(addrs_of(get(&o, "faulty")), vec![D::addr(rvs[0].k)]);

        // Raw HTML, a value the job did not declare, and a stale one: one valid result of
        // the two needed, so the job fails and the escrow comes back whole.
        d.empty().await;
        let t = now(&d);
        let answers = [
            b"<html><span class=price>2500</span></html>".to_vec(),
            result(t, r#"{"price": 2500, "page": "<html>"}"#),
            result(t, r#"{"price": 2500}"#),
        ];
        let (id, rvs, agg) = answered(&mut d, cb, mode(), &answers).await;
        let before = d.chain.account(&D::addr(0)).await.balance;
        let o = decided(&mut d, agg, &id, &answers[2], &entries(&rvs)).await;
        assert_eq!(get(&o, "status"), &text("failed"));
        assert_eq!(amount(&o, "refund"), u128::from(MAX_PRICE));
        assert_eq!(
            d.chain.account(&D::addr(0)).await.balance - before,
            u128::from(MAX_PRICE)
        );
        d.check_conservation().await;
    });
}

#[test]
fn majority_and_latest_snapshots_choose_on_chain() {
    deterministic::Runner::default().start(|ctx| async move {
        let (mut d, cb) = start(ctx).await;
        let two = Value::Array(vec![
            rule("trend", "css", "span.trend"),
            rule("unit", "regex", "[A-Z]{3}"),
        ]);
        // Majority on every extracted value: the runner reading another unit is outvoted.
        let t = now(&d);
        let answers = [
            result(t, r#"{"trend": "up", "unit": "USD"}"#),
            result(t, r#"{"unit": "EUR", "trend": "up"}"#),
            result(t - 5, r#"{"unit": "USD", "trend": "up"}"#),
        ];
        let mode = oracle(vec![
            ("extract", two.clone()),
            ("snapshot", text("majority")),
        ]);
        let (id, rvs, agg) = answered(&mut d, cb, mode, &answers).await;
        let o = decided(&mut d, agg, &id, &answers[0], &entries(&rvs)).await;
        assert_eq!(get(&o, "status"), &text("verified"));
        assert_eq!(addrs_of(get(&o, "faulty")), vec![D::addr(rvs[1].k)]);

        // Latest: the newest observation is the job's result; everyone valid is paid.
        d.empty().await;
        let t = now(&d);
        let answers = [
            result(t - 9, r#"{"trend": "up", "unit": "USD"}"#),
            result(t - 1, r#"{"trend": "down", "unit": "USD"}"#),
            result(t - 4, r#"{"trend": "flat", "unit": "USD"}"#),
        ];
        let mode = oracle(vec![("extract", two), ("snapshot", text("latest"))]);
        let (id, rvs, agg) = answered(&mut d, cb, mode, &answers).await;
        assert_eq!(
            refused(&aggregate(&mut d, agg, &id, &answers[0], &entries(&rvs)).await),
            "ResultMismatch"
        );
        let o = decided(&mut d, agg, &id, &answers[1], &entries(&rvs)).await;
        assert_eq!(addr_of(get(&o, "result_from")), D::addr(rvs[1].k));
        assert_eq!(amount(&o, "paid"), 3 * u128::from(BASE));
        d.check_conservation().await;
    });
}

#[test]
fn bad_oracle_declarations_are_refused_and_change_nothing() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, KEYS, job_params()).await;
        setup(&mut d, 3, BASE, 0).await;
        let good = || {
            vec![
                ("extract", price_rules()),
                ("snapshot", text("median")),
                ("field", text("price")),
            ]
        };
        let value = u128::from(MAX_PRICE);
        let not_http = spec_with(&[
            ("job_type", Some(text("custom"))),
            ("domains", None),
            ("verification", Some(oracle(good()))),
            ("max_price", Some(int(MAX_PRICE))),
            ("tip", Some(int(0))),
        ]);
        let e = d.fails(not_http, value).await;
        assert!(e.contains("verification.mode") && e.contains("http"), "{e}");
        for (params, why) in [
            (vec![("snapshot", text("median"))], "extract"),
            (
                vec![("extract", price_rules()), ("snapshot", text("average"))],
                "snapshot",
            ),
            (
                vec![
                    ("extract", Value::Array(vec![rule("price", "xpath", "//p")])),
                    ("snapshot", text("latest")),
                ],
                "extract[0]",
            ),
            (
                vec![
                    ("extract", price_rules()),
                    ("snapshot", text("median")),
                    ("field", text("volume")),
                ],
                "field",
            ),
            // Rules are compiled (regex, by the PVM's engine) or parsed (JSONPath, CSS) at
            // submission, and a malformed one is refused with the engine's or parser's reason.
            (
                vec![
                    (
                        "extract",
                        Value::Array(vec![rule("price", "regex", "(\\d+")]),
                    ),
                    ("snapshot", text("latest")),
                ],
                "extract[0].regex: missing )",
            ),
            // A pattern whose program is over the engine's cap (1,024 instructions) is over
            // the rule's 256 bytes too, which refuses it first (`extract.rs` tests the cap
            // itself at its exact size, and that no 256-byte rule comes near it).
            (
                vec![
                    (
                        "extract",
                        Value::Array(vec![rule("price", "regex", &"()*".repeat(400))]),
                    ),
                    ("snapshot", text("latest")),
                ],
                "extract[0].regex: 1 to 256 bytes",
            ),
            (
                vec![
                    (
                        "extract",
                        Value::Array(vec![rule("price", "jsonpath", "$.a[?(@.b ==)]")]),
                    ),
                    ("snapshot", text("latest")),
                ],
                "extract[0].jsonpath: expected a number",
            ),
            (
                vec![
                    (
                        "extract",
                        Value::Array(vec![rule("price", "css", "span.price::before")]),
                    ),
                    ("snapshot", text("latest")),
                ],
                "extract[0].css: the only pseudo-elements are ::text and ::attr(name)",
            ),
        ] {
            let spec = spec_with(&[
                ("verification", Some(oracle(params))),
                ("max_price", Some(int(MAX_PRICE))),
                ("tip", Some(int(0))),
            ]);
            let e = d.fails(spec, value).await;
            assert!(e.contains("verification.params") && e.contains(why), "{e}");
        }
        let ok = spec_with(&[
            ("verification", Some(oracle(good()))),
            ("max_price", Some(int(MAX_PRICE))),
            ("tip", Some(int(0))),
        ]);
        let id = d.submit_ok(ok, value).await;
        assert_eq!(get(&d.job(&id), "status"), &text("assigned"));
        // Each kind's well-formed rule is accepted; the regex compile is charged first at the
        // engine's worst case for its size.
        let kinds = Value::Array(vec![
            rule("a", "regex", "price: ([0-9.]+)"),
            rule("b", "css", "#quote > span.price::text"),
            rule("c", "jsonpath", "$.data[?(@.sym == 'BTC')].price"),
        ]);
        let spec = spec_with(&[
            (
                "verification",
                Some(oracle(vec![
                    ("extract", kinds),
                    ("snapshot", text("latest")),
                ])),
            ),
            ("max_price", Some(int(MAX_PRICE))),
            ("tip", Some(int(0))),
        ]);
        let r = d.submit(spec, value).await;
        assert!(r.success, "{:?}", r.error);
        let p = &d.chain.params;
        let floor = cowboy_exec::system::verifier::extract::rule_cycles(
            p,
            cowboy_exec::system::verifier::extract::Kind::Regex,
            "price: ([0-9.]+)",
        );
        assert!(r.cycles_used > floor, "{} cycles", r.cycles_used);
    });
}
