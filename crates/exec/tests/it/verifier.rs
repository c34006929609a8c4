//! The result verifier at `0x…03` end to end over real state: runners' `commit` transactions
//! move a job through the dispatcher's hook; the aggregator's `submit_verified_result` checks
//! every reveal against its commitment and Ed25519 signature, decides by the job's mode and
//! settles (burn, treasury, runners, tip, bonus, refund) with value conserved; the runners'
//! own reveals and the `finalize` timer when the aggregator is silent; the continuation sent
//! once to the callback actor; every refusal a typed error that changes nothing; and a
//! property test over random jobs and runners.

use crate::dispatcher::*;
use crate::support::*;
use commonware_codec::DecodeExt;
use commonware_cryptography::ed25519::PrivateKey;
use commonware_cryptography::Signer as _;
use commonware_runtime::{deterministic, Runner as _};
use cowboy_exec::system::verifier::fault::{Kind, Report};
use cowboy_exec::system::verifier::sign::{self, Usage, NAMESPACE};
use cowboy_types::cbor::Value;
use cowboy_types::system::{JOB_DISPATCHER, RESULT_VERIFIER, SCHEDULER, TREASURY};
use cowboy_types::{Address, Hash32, Receipt};
use proptest::prelude::*;

/// The key index of a runner address among `1..=n`.
pub(crate) fn index_of(a: &Address, n: u32) -> u32 {
    (1..n)
        .find(|&k| D::addr(k) == *a)
        .expect("a registered runner")
}

fn commitment(i: u8) -> Value {
    bytes(&[i; 32])
}

async fn commit(d: &mut D, k: u32, id: &Hash32, c: Value) -> Result<(), String> {
    let r = d
        .send(k, RESULT_VERIFIER, 0, "commit", vec![bytes(&id.0), c])
        .await;
    match r.error {
        None => Ok(()),
        Some(e) => {
            assert!(
                r.events.is_empty(),
                "a refused commit's events are reverted"
            );
            Err(e.class)
        }
    }
}

fn stored(d: &mut D, id: &Hash32, a: &Address) -> Value {
    d.query(
        RESULT_VERIFIER,
        "get_commit",
        vec![bytes(&id.0), bytes(&a.0)],
    )
}

#[test]
fn commits_are_stored_and_refusals_are_typed() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 6, job_params()).await;
        d.register(&[1, 2, 3, 4, 5], &[100 * CBY; 5], "api.example.com", 5, 4)
            .await;
        let sm = spec_with(&[
            (
                "verification",
                Some(verification("structured_match", 3, None)),
            ),
            ("timeout_blocks", Some(int(30))),
        ]);
        let id = d.submit_ok(sm, 1_010).await;
        let job = d.job(&id);
        let sel = addrs_of(get(&job, "selected"));
        let ks: Vec<u32> = sel.iter().map(|a| index_of(a, 6)).collect();
        let outsider = (1..=5u32)
            .find(|k| !ks.contains(k))
            .expect("two runners are off the committee");

        assert_eq!(commit(&mut d, ks[0], &id, commitment(1)).await, Ok(()));
        assert_eq!(stored(&mut d, &id, &sel[0]), commitment(1));
        assert_eq!(
            commit(&mut d, ks[0], &id, commitment(9)).await,
            Err("AlreadyCommitted".into())
        );
        assert_eq!(
            stored(&mut d, &id, &sel[0]),
            commitment(1),
            "first one kept"
        );
        assert_eq!(
            commit(&mut d, outsider, &id, commitment(2)).await,
            Err("NotSelected".into())
        );
        assert_eq!(stored(&mut d, &id, &D::addr(outsider)), Value::Null);
        assert_eq!(
            commit(&mut d, ks[1], &Hash32([7; 32]), commitment(2)).await,
            Err("NoSuchJob".into())
        );
        assert_eq!(
            commit(&mut d, ks[1], &id, bytes(&[1; 31])).await,
            Err("TypeError".into()),
            "a commitment is 32 bytes"
        );
        let r = d
            .send(
                ks[1],
                RESULT_VERIFIER,
                5,
                "commit",
                vec![bytes(&id.0), commitment(2)],
            )
            .await;
        assert_eq!(r.error.expect("refused").class, "ValueNotAllowed");
        assert_eq!(stored(&mut d, &id, &sel[1]), Value::Null);

        assert_eq!(commit(&mut d, ks[1], &id, commitment(2)).await, Ok(()));
        assert_eq!(get(&d.job(&id), "status"), &text("assigned"));
        assert_eq!(commit(&mut d, ks[2], &id, commitment(3)).await, Ok(()));
        let job = d.job(&id);
        assert_eq!(get(&job, "status"), &text("committed"));
        let timer = get(&job, "timer_id").as_u64().expect("id");
        let t = d.query(SCHEDULER, "get", vec![int(timer)]);
        assert_eq!(
            get(&t, "owner"),
            &bytes(&RESULT_VERIFIER.0),
            "the last commit replaces the deadline with the verifier's finalization"
        );
        assert_eq!(get(&t, "handler"), &text("finalize"));
        assert_eq!(
            commit(&mut d, ks[2], &id, commitment(3)).await,
            Err("NotAssigned".into())
        );
        d.check_conservation().await;
    });
}

#[test]
fn a_commit_after_the_deadline_is_late() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 3, job_params()).await;
        d.register(&[1, 2], &[100 * CBY; 2], "api.example.com", 5, 4)
            .await;
        let id = d
            .submit_ok(spec_with(&[("timeout_blocks", Some(int(2)))]), 1_010)
            .await;
        let job = d.job(&id);
        let dl = get(&job, "deadline").as_u64().expect("int");
        let k = index_of(&addrs_of(get(&job, "selected"))[0], 3);
        // In a real block past the deadline the timer has already run (begin_block) and moved
        // the job on, so the late commit is refused by the job's state; `LateCommit` is the
        // dispatcher hook's `Late` (a commit in the deadline's own block before the timer),
        // tested at the hook in `dispatcher::`.
        while d.chain.height + 1 < dl {
            d.chain.poke(|_, _, _| {}).await;
        }
        d.empty().await;
        d.empty().await;
        assert!(d.chain.height > dl);
        assert_eq!(
            commit(&mut d, k, &id, commitment(1)).await,
            Err("NotAssigned".into())
        );
        assert_ne!(get(&d.job(&id), "status"), &text("assigned"));
        assert_eq!(stored(&mut d, &id, &D::addr(k)), Value::Null);
    });
}

// ---- reveals, modes, settlement ----

/// Runner `k`'s Ed25519 signing key (seed `[k; 32]`).
fn sk(k: u32) -> PrivateKey {
    PrivateKey::decode(vec![k as u8; 32]).expect("a 32-byte seed")
}

/// `register` arguments for an HTTP runner signing with [`sk`]`(k)`, `base` wei per job plus
/// `per_ms` per millisecond.
fn signing_runner(k: u32, base: u64, per_ms: u64) -> Vec<Value> {
    vec![
        bytes(sk(k).public_key().as_ref()),
        map(vec![
            ("job_types", Value::Array(vec![text("http")])),
            ("domains", Value::Array(vec![text("api.example.com")])),
        ]),
        Value::Array(vec![map(vec![
            ("job_type", text("http")),
            ("base", int(base)),
            ("per_ms", int(per_ms)),
        ])]),
        int(8),
        int(0),
        int(500),
    ]
}

/// Register runners `1..=n` with signing keys, in one block.
pub(crate) async fn setup(d: &mut D, n: u32, base: u64, per_ms: u64) {
    let txs: Vec<_> = (1..=n)
        .map(|k| {
            d.tx(
                k,
                cowboy_types::system::RUNNER_REGISTRY,
                100 * CBY,
                "register",
                signing_runner(k, base, per_ms),
            )
        })
        .collect();
    let out = d.run(&txs).await;
    for r in &out.receipts {
        assert!(r.success, "register: {:?}", r.error);
    }
}

fn sig_of(k: u32, id: &Hash32, result: &[u8], u: Usage) -> [u8; 64] {
    let dg = sign::digest(CHAIN_ID, id, result, u);
    sk(k)
        .sign(NAMESPACE, &dg.0)
        .as_ref()
        .try_into()
        .expect("64 bytes")
}

pub(crate) fn usage(tokens: u64, wall_ms: u64) -> Usage {
    Usage { tokens, wall_ms }
}

fn usage_value(u: Usage) -> Value {
    Value::Array(vec![int(u.tokens), int(u.wall_ms)])
}

/// One prepared reveal: runner key, result, usage and the signature committed to.
#[derive(Clone)]
pub(crate) struct Rv {
    pub(crate) k: u32,
    pub(crate) result: Vec<u8>,
    usage: Usage,
    sig: [u8; 64],
}

impl Rv {
    pub(crate) fn new(k: u32, id: &Hash32, result: &[u8], u: Usage) -> Rv {
        Rv {
            k,
            result: result.to_vec(),
            usage: u,
            sig: sig_of(k, id, result, u),
        }
    }

    pub(crate) fn entry(&self) -> Value {
        Value::Array(vec![
            bytes(&D::addr(self.k).0),
            bytes(&self.result),
            usage_value(self.usage),
            bytes(&self.sig),
        ])
    }

    pub(crate) fn commitment(&self) -> Value {
        bytes(&sign::commitment(&self.result, &self.sig).0)
    }
}

/// Commit every reveal's commitment (one block).
pub(crate) async fn commit_all(d: &mut D, id: &Hash32, rvs: &[Rv]) {
    let txs: Vec<_> = rvs
        .iter()
        .map(|r| {
            d.tx(
                r.k,
                RESULT_VERIFIER,
                0,
                "commit",
                vec![bytes(&id.0), r.commitment()],
            )
        })
        .collect();
    let out = d.run(&txs).await;
    for r in &out.receipts {
        assert!(r.success, "commit: {:?}", r.error);
    }
}

pub(crate) async fn aggregate(
    d: &mut D,
    k: u32,
    id: &Hash32,
    result: &[u8],
    rvs: &[Value],
) -> Receipt {
    d.send(
        k,
        RESULT_VERIFIER,
        0,
        "submit_verified_result",
        vec![bytes(&id.0), bytes(result), Value::Array(rvs.to_vec())],
    )
    .await
}

pub(crate) fn refused(r: &Receipt) -> String {
    let e = r.error.clone().expect("refused");
    assert!(r.events.is_empty(), "a refused call's events are reverted");
    e.class
}

pub(crate) fn outcome(d: &mut D, id: &Hash32) -> Value {
    d.query(RESULT_VERIFIER, "get_outcome", vec![bytes(&id.0)])
}

pub(crate) fn amount(v: &Value, name: &str) -> u128 {
    get(v, name).as_u128().expect("an amount")
}

/// The callback actor: stores what its continuation receives.
const CALLBACK: &str = r#"
from cowboy_sdk import actor, sender

@actor
class Consumer:
    def __init__(self):
        self.storage["got"] = []

    def on_result(self, job_id, result):
        self.storage["got"].append([sender(), job_id, result])
"#;

pub(crate) async fn deploy_callback(d: &mut D) -> Address {
    let n = d.nonce[0];
    d.nonce[0] += 1;
    let tx = signed(
        &key(0),
        n,
        None,
        0,
        deploy(CALLBACK, 1, Value::Array(vec![])),
    );
    let out = d.run(&[tx]).await;
    let r = &out.receipts[0];
    assert!(r.success, "deploy: {:?}", r.error);
    addr_of(&ret(r))
}

/// A majority vote of `m` runners, `n` to agree on `field`.
pub(crate) fn majority(m: u64, n: u64, field: &str) -> Value {
    map(vec![
        ("mode", text("majority_vote")),
        ("runners", int(m)),
        ("threshold", int(n)),
        ("params", map(vec![("field", text(field))])),
    ])
}

pub(crate) fn price_spec(mode: Value, callback: Address, max_price: u64, tip: u64) -> Value {
    spec_with(&[
        ("verification", Some(mode)),
        (
            "result_schema",
            Some(map(vec![
                ("max_return_bytes", int(256)),
                ("expected_execution_ms", int(500)),
                ("data_format", text("json")),
            ])),
        ),
        ("max_price", Some(int(max_price))),
        ("tip", Some(int(tip))),
        ("timeout_blocks", Some(int(10))),
        (
            "callback",
            Some(map(vec![
                ("actor", bytes(&callback.0)),
                ("handler", text("on_result")),
            ])),
        ),
    ])
}

#[test]
fn an_aggregate_is_checked_decided_settled_and_continued_once() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 6, job_params()).await;
        setup(&mut d, 5, 1_000, 1).await;
        let cb = deploy_callback(&mut d).await;
        let mode = majority(5, 3, "price");
        let id = d.submit_ok(price_spec(mode, cb, 10_000, 10), 10_010).await;
        let job = d.job(&id);
        let sel = addrs_of(get(&job, "selected"));
        let agg = index_of(&addr_of(get(&job, "aggregator")), 6);
        // Two liars, three honest runners with different usage.
        let honest = br#"{"price": 100.25}"#.to_vec();
        let rvs: Vec<Rv> = sel
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let k = index_of(a, 6);
                let res: &[u8] = if i % 2 == 1 {
                    br#"{"price": 1}"#
                } else {
                    &honest
                };
                Rv::new(k, &id, res, usage(0, 500 * i as u64))
            })
            .collect();
        commit_all(&mut d, &id, &rvs).await;
        assert_eq!(get(&d.job(&id), "status"), &text("committed"));
        let entries: Vec<Value> = rvs.iter().map(Rv::entry).collect();

        // Every refusal is typed and changes nothing.
        let other = rvs.iter().find(|r| r.k != agg).expect("a non-aggregator").k;
        assert_eq!(
            refused(&aggregate(&mut d, other, &id, &honest, &entries).await),
            "NotAggregator"
        );
        let mut tampered = rvs[0].clone();
        tampered.result = br#"{"price": 100.26}"#.to_vec();
        assert_eq!(
            refused(&aggregate(&mut d, agg, &id, &honest, &[tampered.entry()]).await),
            "CommitmentMismatch"
        );
        assert_eq!(
            refused(
                &aggregate(
                    &mut d,
                    agg,
                    &id,
                    &honest,
                    &[entries[0].clone(), entries[0].clone()]
                )
                .await
            ),
            "DuplicateReveal"
        );
        let stranger = Rv::new(agg, &Hash32([9; 32]), b"x", usage(0, 0));
        let mut stranger_entry = stranger.entry();
        if let Value::Array(x) = &mut stranger_entry {
            x[0] = bytes(&[0xaa; 20]);
        }
        assert_eq!(
            refused(&aggregate(&mut d, agg, &id, &honest, &[stranger_entry]).await),
            "NotACommitter"
        );
        assert_eq!(
            refused(&aggregate(&mut d, agg, &id, &honest, &[int(1)]).await),
            "BadReveal"
        );
        assert_eq!(
            refused(&aggregate(&mut d, agg, &id, br#"{"price": 1}"#, &entries).await),
            "ResultMismatch",
            "the claimed result must be the verified one"
        );
        assert_eq!(
            refused(
                &d.send(
                    agg,
                    RESULT_VERIFIER,
                    0,
                    "finalize",
                    vec![Value::Array(vec![bytes(&id.0)])]
                )
                .await
            ),
            "NotScheduler"
        );
        let early = &rvs[0];
        assert_eq!(
            refused(
                &d.send(
                    early.k,
                    RESULT_VERIFIER,
                    0,
                    "reveal",
                    vec![
                        bytes(&id.0),
                        bytes(&early.result),
                        usage_value(early.usage),
                        bytes(&early.sig)
                    ],
                )
                .await
            ),
            "RevealTooEarly"
        );
        assert_eq!(get(&d.job(&id), "status"), &text("committed"));

        // The aggregate.
        let before: Vec<u128> = {
            let mut v = Vec::new();
            for k in 0..6 {
                v.push(d.chain.account(&D::addr(k)).await.balance);
            }
            v
        };
        let r = aggregate(&mut d, agg, &id, &honest, &entries).await;
        assert!(r.success, "aggregate: {:?}", r.error);
        let job = d.job(&id);
        assert_eq!(get(&job, "status"), &text("verified"));
        assert_eq!(get(&job, "escrow"), &int(0));
        let o = outcome(&mut d, &id);
        let winners = addrs_of(get(&o, "winners"));
        // Committee order is the order of the commits (the block's transaction order).
        let want: Vec<Address> = addrs_of(get(&job, "committed"))
            .into_iter()
            .filter(|a| sel.iter().step_by(2).any(|h| h == a))
            .collect();
        assert_eq!(
            winners, want,
            "the three honest runners, in committee order"
        );
        // a_i = min(1,000 + 1 × wall_ms, cap = 2,000): 1,000, 2,000 (capped), 2,000 (capped).
        assert_eq!(amount(&o, "paid"), 1_000 + 2_000 + 2_000);
        assert_eq!(amount(&o, "burned"), 100 + 200 + 200);
        assert_eq!(amount(&o, "treasury"), 10 + 20 + 20);
        assert_eq!(amount(&o, "tip"), 10);
        assert_eq!(amount(&o, "bonus"), 200, "2 % of max_price");
        assert_eq!(amount(&o, "refund"), 10_010 - 5_000 - 10 - 200);
        assert_eq!(d.chain.account(&TREASURY).await.balance, 50);
        assert_eq!(
            d.chain.account(&D::addr(0)).await.balance - before[0],
            10_010 - 5_000 - 10 - 200,
            "the submitter's refund"
        );
        for (i, a) in sel.iter().enumerate() {
            let k = index_of(a, 6);
            let (rep, jobs) = d.rep_and_jobs(a);
            assert_eq!(jobs, 0, "every member is done with the job");
            assert_eq!(rep, if i % 2 == 1 { 65 } else { 71 }, "liars −5, honest +1");
            if k != agg {
                let earned = match i {
                    0 => 890 + 3,
                    1 | 3 => 0,
                    _ => 1_780 + 3,
                };
                assert_eq!(
                    d.chain.account(a).await.balance - before[k as usize],
                    earned,
                    "runner {i}"
                );
            }
        }
        // The continuation runs in the next block, once, from the verifier.
        let out = d.empty().await;
        let runs: Vec<_> = out
            .timers
            .iter()
            .filter(|t| t.owner == RESULT_VERIFIER)
            .collect();
        assert_eq!(runs.len(), 1);
        assert!(runs[0].receipt.success, "{:?}", runs[0].receipt.error);
        let got = d
            .chain
            .storage(&cb, &text("got"))
            .await
            .expect("the callback stored its continuation");
        let Value::Array(got) = got else { panic!() };
        assert_eq!(got.len(), 1);
        let Value::Array(x) = &got[0] else { panic!() };
        assert_eq!(x[0], text(&RESULT_VERIFIER.to_checksum()));
        assert_eq!(x[1], bytes(&id.0), "the correlation id");
        assert_eq!(x[2], bytes(&honest));
        for _ in 0..3 {
            let out = d.empty().await;
            assert!(
                out.timers.iter().all(|t| t.owner != RESULT_VERIFIER),
                "once"
            );
        }
        // Late and duplicate calls are refused.
        assert_eq!(
            refused(&aggregate(&mut d, agg, &id, &honest, &entries).await),
            "NotCommitted"
        );
        d.check_conservation().await;
    });
}

#[test]
fn a_silent_aggregator_leaves_the_runners_to_reveal_and_the_timer_to_finalize() {
    deterministic::Runner::default().start(|ctx| async move {
        let p = job_params();
        let t = p.aggregator_timeout_blocks;
        let mut d = D::new(ctx, 5, p).await;
        setup(&mut d, 4, 100, 0).await;
        let cb = deploy_callback(&mut d).await;
        let mode = map(vec![("mode", text("deterministic")), ("runners", int(3))]);
        let id = d.submit_ok(price_spec(mode, cb, 3_000, 10), 3_010).await;
        let sel = addrs_of(get(&d.job(&id), "selected"));
        let rvs: Vec<Rv> = sel
            .iter()
            .map(|a| Rv::new(index_of(a, 5), &id, b"\"42\"", usage(0, 0)))
            .collect();
        // A runner that commits to a signature that does not verify.
        let mut forged = rvs[2].clone();
        forged.sig = sig_of(forged.k, &Hash32([1; 32]), &forged.result, forged.usage);
        commit_all(
            &mut d,
            &id,
            &[rvs[0].clone(), rvs[1].clone(), forged.clone()],
        )
        .await;
        let c = get(&d.job(&id), "committed_at").as_u64().expect("int");
        let own = |d: &mut D, r: &Rv| {
            d.tx(
                r.k,
                RESULT_VERIFIER,
                0,
                "reveal",
                vec![
                    bytes(&id.0),
                    bytes(&r.result),
                    usage_value(r.usage),
                    bytes(&r.sig),
                ],
            )
        };
        while d.chain.height < c + t {
            d.empty().await;
        }
        let tx = own(&mut d, &rvs[0]);
        let r = d.run(&[tx]).await.receipts.remove(0);
        assert!(r.success, "reveal: {:?}", r.error);
        let tx = own(&mut d, &rvs[0]);
        assert_eq!(refused(&d.run(&[tx]).await.receipts[0]), "AlreadyRevealed");
        let tx = own(&mut d, &forged);
        assert_eq!(refused(&d.run(&[tx]).await.receipts[0]), "BadSignature");
        let tx = own(&mut d, &rvs[1]);
        assert!(d.run(&[tx]).await.receipts[0].success);
        assert_eq!(
            d.query(
                RESULT_VERIFIER,
                "get_reveal",
                vec![bytes(&id.0), bytes(&sel[1].0)]
            ),
            map(vec![
                ("result", bytes(b"\"42\"")),
                ("tokens", int(0)),
                ("wall_ms", int(0))
            ])
        );
        let before = d.chain.account(&D::addr(0)).await.balance;
        // The finalization runs at c + 2T + 1, the continuation in the block after.
        let mut fin = None;
        while d.chain.height < c + 2 * t + 2 {
            let out = d.empty().await;
            for x in out.timers {
                if x.owner == RESULT_VERIFIER {
                    assert!(x.receipt.success, "{}: {:?}", x.handler, x.receipt.error);
                    if x.handler == "finalize" {
                        fin = Some(d.chain.height);
                    }
                }
            }
        }
        assert_eq!(fin, Some(c + 2 * t + 1));
        assert_eq!(get(&d.job(&id), "status"), &text("verified"));
        let o = outcome(&mut d, &id);
        assert_eq!(addrs_of(get(&o, "winners")), sel[..2].to_vec());
        assert_eq!(addrs_of(get(&o, "faulty")), vec![sel[2]]);
        assert_eq!(get(&o, "aggregator"), &Value::Null);
        assert_eq!(amount(&o, "bonus"), 0, "no aggregator, no bonus");
        // a_i = 100 each; tip 10 = 5 + 5; refund 3,010 − 200 − 10.
        assert_eq!(amount(&o, "refund"), 2_800);
        assert_eq!(d.chain.account(&D::addr(0)).await.balance - before, 2_800);
        assert_eq!(
            d.rep_and_jobs(&sel[2]).0,
            65,
            "the forger revealed nothing valid"
        );
        let Some(Value::Array(got)) = d.chain.storage(&cb, &text("got")).await else {
            panic!("no continuation")
        };
        assert_eq!(got.len(), 1);
        // Reveals after the decision are refused.
        let tx = own(&mut d, &rvs[2]);
        assert_eq!(refused(&d.run(&[tx]).await.receipts[0]), "NotCommitted");
        d.check_conservation().await;
    });
}

#[test]
fn no_consensus_refunds_everything_and_blames_only_the_missing() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 5, job_params()).await;
        setup(&mut d, 4, 100, 0).await;
        let cb = deploy_callback(&mut d).await;
        // Two jobs, deterministic with two runners: one reveals disagreeing results, the
        // other's aggregate leaves a member out.
        let mode = map(vec![("mode", text("deterministic")), ("runners", int(2))]);
        for case in 0..2 {
            let id = d
                .submit_ok(price_spec(mode.clone(), cb, 1_000, 10), 1_010)
                .await;
            let job = d.job(&id);
            let sel = addrs_of(get(&job, "selected"));
            let agg = index_of(&addr_of(get(&job, "aggregator")), 5);
            let reps: Vec<u64> = sel.iter().map(|a| d.rep_and_jobs(a).0).collect();
            let rvs: Vec<Rv> = sel
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    let res = if case == 0 {
                        vec![b'a' + i as u8]
                    } else {
                        b"same".to_vec()
                    };
                    Rv::new(index_of(a, 5), &id, &res, usage(0, 0))
                })
                .collect();
            commit_all(&mut d, &id, &rvs).await;
            let entries: Vec<Value> = if case == 0 {
                rvs.iter().map(Rv::entry).collect()
            } else {
                rvs.iter().filter(|r| r.k == agg).map(Rv::entry).collect()
            };
            let before = d.chain.account(&D::addr(0)).await.balance;
            let r = aggregate(&mut d, agg, &id, b"", &entries).await;
            assert!(r.success, "{:?}", r.error);
            assert!(topics(&r).contains(&(RESULT_VERIFIER, "JobFailed".into())));
            assert_eq!(get(&d.job(&id), "status"), &text("failed"));
            assert_eq!(d.chain.account(&D::addr(0)).await.balance - before, 1_010);
            for (i, a) in sel.iter().enumerate() {
                let (rep, jobs) = d.rep_and_jobs(a);
                assert_eq!(jobs, 0);
                let missing = case == 1 && index_of(a, 5) != agg;
                assert_eq!(
                    rep,
                    reps[i] - if missing { 5 } else { 0 },
                    "case {case} runner {i}"
                );
            }
        }
        d.check_conservation().await;
    });
}

#[test]
fn a_job_too_large_to_verify_in_one_timer_run_is_refused() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 3, job_params()).await;
        setup(&mut d, 2, 100, 0).await;
        let mode = map(vec![("mode", text("deterministic")), ("runners", int(16))]);
        let spec = spec_with(&[
            ("verification", Some(mode)),
            (
                "result_schema",
                Some(map(vec![
                    ("max_return_bytes", int(65_536)),
                    ("expected_execution_ms", int(500)),
                    ("data_format", text("json")),
                ])),
            ),
        ]);
        let e = d.fails(spec, 1_010).await;
        assert!(
            e.starts_with("BadSpec: result_schema.max_return_bytes"),
            "{e}"
        );
        let bad_params = spec_with(&[(
            "verification",
            Some(map(vec![
                ("mode", text("majority_vote")),
                ("runners", int(3)),
                ("threshold", int(3)),
                ("params", map(vec![("fild", text("x"))])),
            ])),
        )]);
        let e = d.fails(bad_params, 1_010).await;
        assert!(e.starts_with("BadSpec: verification.params"), "{e}");
    });
}

/// A random job: its mode, which runners lie, which report a fault (of which kind, with what
/// progress), which stay silent, whether the aggregator submits, the runners' usage.
#[derive(Clone, Debug)]
struct Plan {
    mode: u8,
    liars: u8,
    /// Runners revealing a fault report instead of a result (over lying).
    faults: u8,
    fault_kind: u8,
    progress_bps: u16,
    silent: u8,
    aggregated: bool,
    wall_ms: [u16; 4],
    tip: u16,
    /// Drawn from a runner pool whose memberships are bounded in uses.
    pool: bool,
}

fn plan() -> impl Strategy<Value = Plan> {
    (
        (0u8..3, any::<u8>(), any::<u8>(), 0u8..3, 0u16..=10_000),
        any::<u8>(),
        any::<bool>(),
        any::<[u16; 4]>(),
        any::<u16>(),
        any::<bool>(),
    )
        .prop_map(
            |(
                (mode, liars, faults, fault_kind, progress_bps),
                silent,
                aggregated,
                wall_ms,
                tip,
                pool,
            )| Plan {
                mode,
                liars,
                faults,
                fault_kind,
                progress_bps,
                silent,
                aggregated,
                wall_ms,
                tip,
                pool,
            },
        )
}

/// Run `plan` on a fresh chain, checking value is conserved; returns the job's status, and
/// for a fault-decided job `failed:<kind>`.
fn run_plan(pl: Plan) -> String {
    deterministic::Runner::default().start(|ctx| async move {
        let p = job_params();
        let t = p.aggregator_timeout_blocks;
        let mut d = D::new(ctx, 6, p).await;
        setup(&mut d, 5, 300, 1).await;
        let cb = deploy_callback(&mut d).await;
        let mode = match pl.mode {
            0 => map(vec![("mode", text("deterministic")), ("runners", int(4))]),
            1 => map(vec![
                ("mode", text("majority_vote")),
                ("runners", int(4)),
                ("threshold", int(3)),
                ("params", map(vec![("field", text("v"))])),
            ]),
            _ => map(vec![
                ("mode", text("structured_match")),
                ("runners", int(4)),
                (
                    "params",
                    map(vec![(
                        "fields",
                        Value::Array(vec![map(vec![
                            ("path", text("v")),
                            ("tolerance_bps", int(50)),
                        ])]),
                    )]),
                ),
            ]),
        };
        let tip = u64::from(pl.tip);
        let mut spec = price_spec(mode, cb, 8_000, tip);
        if pl.pool {
            // Every runner holds a two-use membership of pool "p" (key 0 claims the pool).
            let scope = cowboy_types::entitlement::Scope::RunnerPool(b"p".to_vec());
            let action = cowboy_types::entitlement::Action::RunnerJoinPool(b"p".to_vec());
            let c = cowboy_types::entitlement::Constraints {
                max_uses: 2,
                ..Default::default()
            };
            let txs: Vec<_> = (1..=5u32)
                .map(|k| {
                    d.tx(
                        0,
                        cowboy_types::system::ENTITLEMENT_REGISTRY,
                        0,
                        "grant",
                        vec![
                            bytes(&D::addr(k).0),
                            scope.to_value(),
                            action.to_value(),
                            c.to_value(),
                        ],
                    )
                })
                .collect();
            for r in d.run(&txs).await.receipts {
                assert!(r.success, "{:?}", r.error);
            }
            if let Value::Map(m) = &mut spec {
                m.push((text("required_runner_pool"), bytes(b"p")));
            }
        }
        let id = d.submit_ok(spec, 8_000 + u128::from(tip)).await;
        let job = d.job(&id);
        let sel = addrs_of(get(&job, "selected"));
        let agg = index_of(&addr_of(get(&job, "aggregator")), 6);
        let rvs: Vec<Rv> = sel
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let v = if pl.liars >> i & 1 == 1 { 7 + i } else { 1_000 };
                let res = if pl.faults >> i & 1 == 1 {
                    let kind =
                        [Kind::Impossible, Kind::External, Kind::Actor][usize::from(pl.fault_kind)];
                    Report {
                        kind,
                        progress_bps: u64::from(pl.progress_bps),
                    }
                    .encode()
                } else {
                    format!("{{\"v\": {v}}}").into_bytes()
                };
                Rv::new(
                    index_of(a, 6),
                    &id,
                    &res,
                    usage(0, u64::from(pl.wall_ms[i])),
                )
            })
            .collect();
        commit_all(&mut d, &id, &rvs).await;
        let speaking: Vec<&Rv> = rvs
            .iter()
            .enumerate()
            .filter(|(i, _)| pl.silent >> i & 1 == 0)
            .map(|(_, r)| r)
            .collect();
        if pl.aggregated {
            let entries: Vec<Value> = speaking.iter().map(|r| r.entry()).collect();
            // Claim the first result that the mode could pick; a mismatch is refused, and the
            // aggregator then claims nothing but the truth the chain computes: try each.
            let mut done = false;
            for claim in speaking
                .iter()
                .map(|r| r.result.clone())
                .chain([Vec::new()])
            {
                let r = aggregate(&mut d, agg, &id, &claim, &entries).await;
                if r.success {
                    done = true;
                    break;
                }
                assert_eq!(r.error.expect("refused").class, "ResultMismatch");
            }
            assert!(done);
        } else {
            let c = get(&d.job(&id), "committed_at").as_u64().expect("int");
            while d.chain.height < c + t {
                d.empty().await;
            }
            let txs: Vec<_> = speaking
                .iter()
                .map(|r| {
                    d.tx(
                        r.k,
                        RESULT_VERIFIER,
                        0,
                        "reveal",
                        vec![
                            bytes(&id.0),
                            bytes(&r.result),
                            usage_value(r.usage),
                            bytes(&r.sig),
                        ],
                    )
                })
                .collect();
            for r in d.run(&txs).await.receipts {
                assert!(r.success, "{:?}", r.error);
            }
            while d.chain.height < c + 2 * t + 1 {
                d.empty().await;
            }
        }
        d.empty().await;
        // Anomaly review: what was held is released the block after the challenge window.
        let o = outcome(&mut d, &id);
        if amount(&o, "held") > 0 {
            let h = get(&o, "height").as_u64().expect("int");
            let window = d
                .chain
                .params
                .blocks_for_secs(d.chain.params.challenge_window_secs);
            while d.chain.height < h + window + 1 {
                d.empty().await;
            }
        }
        let status = match get(&d.job(&id), "status") {
            Value::Text(s) => s.clone(),
            v => panic!("{v:?}"),
        };
        assert!(status == "verified" || status == "failed", "{status}");
        assert_eq!(
            d.chain.account(&JOB_DISPATCHER).await.balance,
            0,
            "escrow emptied"
        );
        // Σ balances (accounts, escrow, stake, treasury, proposer) + Σ burned = genesis funds.
        d.check_conservation().await;
        let o = outcome(&mut d, &id);
        let s = amount(&o, "paid")
            + amount(&o, "held")
            + amount(&o, "tip")
            + amount(&o, "bonus")
            + amount(&o, "refund");
        assert_eq!(
            s,
            8_000 + u128::from(tip),
            "the escrow is accounted for exactly"
        );
        match get(&o, "fault") {
            Value::Text(kind) => format!("{status}:{kind}"),
            _ => status,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    /// Whatever the job's mode, runners and outcome (a result, no consensus, or a fault
    /// row), value is only burned, never created or lost: balances + escrow + stake + treasury change by exactly −(fees and job burn).
    #[test]
    fn a_job_creates_or_destroys_no_value_but_the_burn(pl in plan()) {
        let _ = run_plan(pl);
    }
}

#[test]
fn the_property_sees_every_outcome() {
    let all_honest = Plan {
        mode: 1,
        liars: 0,
        faults: 0,
        fault_kind: 0,
        progress_bps: 0,
        silent: 0,
        aggregated: true,
        wall_ms: [1, 2, 3, 4],
        tip: 7,
        pool: false,
    };
    assert_eq!(run_plan(all_honest.clone()), "verified");
    let split = Plan {
        liars: 0b0011,
        aggregated: false,
        ..all_honest.clone()
    };
    assert_eq!(run_plan(split), "failed");
    // The new paths: a pool job's uses are spent, and an inflater's excess is held and
    // released.
    let pooled_inflated = Plan {
        wall_ms: [10, 10, 10, 900],
        pool: true,
        ..all_honest.clone()
    };
    assert_eq!(run_plan(pooled_inflated), "verified");
    // The fault rows, aggregated and self-aggregated; an external fault whose reporter
    // inflated its usage has its excess held and released like a result's.
    let impossible = Plan {
        faults: 0b0111,
        progress_bps: 3_333,
        ..all_honest.clone()
    };
    assert_eq!(run_plan(impossible), "failed:impossible");
    let external = Plan {
        faults: 0b1110,
        fault_kind: 1,
        progress_bps: 10_000,
        wall_ms: [10, 10, 10, 900],
        aggregated: false,
        ..all_honest.clone()
    };
    assert_eq!(run_plan(external), "failed:external");
    let actor = Plan {
        faults: 0b1111,
        fault_kind: 2,
        silent: 0b0001,
        ..all_honest
    };
    assert_eq!(run_plan(actor), "failed:actor");
}

#[test]
fn a_job_committed_at_its_deadline_is_aggregated_by_a_member_that_committed() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 5, job_params()).await;
        setup(&mut d, 4, 100, 0).await;
        let cb = deploy_callback(&mut d).await;
        let mode = map(vec![("mode", text("deterministic")), ("runners", int(3))]);
        let id = d.submit_ok(price_spec(mode, cb, 3_000, 0), 3_000).await;
        let job = d.job(&id);
        let sel = addrs_of(get(&job, "selected"));
        let first = addr_of(get(&job, "aggregator"));
        // Everyone but the aggregator commits; the deadline keeps the two (need 2).
        let rvs: Vec<Rv> = sel
            .iter()
            .filter(|a| **a != first)
            .map(|a| Rv::new(index_of(a, 5), &id, b"1", usage(0, 0)))
            .collect();
        commit_all(&mut d, &id, &rvs).await;
        let dl = get(&job, "deadline").as_u64().expect("int");
        while d.chain.height < dl {
            d.empty().await;
        }
        let job = d.job(&id);
        assert_eq!(get(&job, "status"), &text("committed"));
        let agg = addr_of(get(&job, "aggregator"));
        assert_ne!(agg, first, "the silent aggregator is replaced");
        assert!(rvs.iter().any(|r| D::addr(r.k) == agg));
        let entries: Vec<Value> = rvs.iter().map(Rv::entry).collect();
        let r = aggregate(&mut d, index_of(&agg, 5), &id, b"1", &entries).await;
        assert!(r.success, "{:?}", r.error);
        assert_eq!(get(&d.job(&id), "status"), &text("verified"));
        d.check_conservation().await;
    });
}

/// Receipt costs of each verifier step, for the README (`--nocapture` prints them).
#[test]
fn costs_of_each_step() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 6, job_params()).await;
        setup(&mut d, 5, 100, 0).await;
        let cb = deploy_callback(&mut d).await;
        let mode = majority(5, 3, "price");
        let sub = d.submit(price_spec(mode, cb, 10_000, 10), 10_010).await;
        assert!(sub.success, "{:?}", sub.error);
        let id = hash_of(&ret(&sub));
        let job = d.job(&id);
        let sel = addrs_of(get(&job, "selected"));
        let agg = index_of(&addr_of(get(&job, "aggregator")), 6);
        let res = br#"{"price": 100.25}"#;
        let rvs: Vec<Rv> = sel
            .iter()
            .map(|a| Rv::new(index_of(a, 6), &id, res, usage(0, 0)))
            .collect();
        let c = d
            .send(
                rvs[0].k,
                RESULT_VERIFIER,
                0,
                "commit",
                vec![bytes(&id.0), rvs[0].commitment()],
            )
            .await;
        commit_all(&mut d, &id, &rvs[1..]).await;
        let entries: Vec<Value> = rvs.iter().map(Rv::entry).collect();
        let a = aggregate(&mut d, agg, &id, res, &entries).await;
        assert!(a.success, "{:?}", a.error);
        let out = d.empty().await;
        let cont = &out
            .timers
            .iter()
            .find(|t| t.owner == RESULT_VERIFIER)
            .expect("the continuation")
            .receipt;
        assert!(cont.success);
        eprintln!(
            "submit_job (M = 5, 5 candidates): {} cycles / {} cells; commit: {} / {}; \
             submit_verified_result (5 reveals): {} / {}; continuation run: {} / {}",
            sub.cycles_used,
            sub.cells_used,
            c.cycles_used,
            c.cells_used,
            a.cycles_used,
            a.cells_used,
            cont.cycles_used,
            cont.cells_used
        );
        assert!(a.cycles_used > 5 * d.chain.params.verify_signature_cycles);
    });
}

/// Measurement, not a test (ignored): wall time per charged cycle of each mode's worst case
/// (16 results; deterministic: 64 KiB results equal but for the last byte; majority vote and
/// structured match with 32 fields: every field the whole ~64 KiB document; semantic
/// similarity: 1,024-dimension embeddings), and of an Ed25519 check priced at
/// `verify_signature_cycles`, against a Python loop's ns/cycle in the same run.
/// `cargo test -p cowboy-exec --test it verifier::measure -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_modes_and_signatures_against_a_python_loop() {
    use cowboy_exec::system::dispatcher::spec::Mode;
    use cowboy_exec::system::verifier::modes::{self, Format};
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 1, job_params()).await;
        let p = d.chain.params.clone();
        let src = "from cowboy_sdk import actor\n@actor\nclass A:\n    def spin(self, n):\n        i = 0\n        while i < n:\n            i += 1\n        return i\n";
        let tx = signed(&key(0), 0, None, 0, deploy(src, 1, Value::Array(vec![])));
        let out = d.run(&[tx]).await;
        let actor = addr_of(&ret(&out.receipts[0]));
        d.nonce[0] = 1;
        let (mut loop_ns, mut loop_cycles) = (0u128, 0u64);
        for _ in 0..4 {
            let n = d.nonce[0];
            d.nonce[0] += 1;
            let tx = signed(&key(0), n, Some(actor), 0, call("spin", vec![int(60_000)]));
            let t = std::time::Instant::now();
            let out = d.run(&[tx]).await;
            loop_ns += t.elapsed().as_nanos();
            loop_cycles += out.receipts[0].cycles_used;
        }
        let peer = loop_ns as f64 / loop_cycles as f64;
        let big_list = |last: u8| {
            let mut s = String::from("{\"a\": [");
            while s.len() < 65_000 {
                s.push_str("1,");
            }
            s.push_str(&format!("{last}]}}"));
            s.into_bytes()
        };
        let emb = |i: usize| {
            let v: Vec<String> = (0..1_024).map(|j| format!("{}.{:04}", (i + j) % 3, j)).collect();
            format!("{{\"embedding\": [{}]}}", v.join(",")).into_bytes()
        };
        let fields = Value::Array(
            (0..32)
                .map(|_| map(vec![("path", text("a")), ("tolerance_bps", int(1))]))
                .collect(),
        );
        let cases: Vec<(&str, modes::Rules, Vec<Vec<u8>>)> = vec![
            (
                "deterministic",
                modes::rules(Mode::Deterministic, None, 2).expect("rules"),
                (0..16u8).map(|i| { let mut b = vec![7u8; 65_536]; b[65_535] = i; b }).collect(),
            ),
            (
                "majority_vote (whole document)",
                modes::rules(Mode::MajorityVote, None, 9).expect("rules"),
                (0..16u8).map(big_list).collect(),
            ),
            (
                "structured_match (32 fields)",
                modes::rules(Mode::StructuredMatch, Some(&map(vec![("fields", fields)])), 2)
                    .expect("rules"),
                (0..16u8).map(big_list).collect(),
            ),
            (
                "semantic_similarity (1,024 dims)",
                modes::rules(Mode::SemanticSimilarity, None, 3).expect("rules"),
                (0..16).map(emb).collect(),
            ),
        ];
        for (name, rules, results) in cases {
            let refs: Vec<&[u8]> = results.iter().map(Vec::as_slice).collect();
            let total: u64 = refs.iter().map(|r| r.len() as u64).sum();
            let charged = modes::cycles(&p, &rules, 16, total);
            let t = std::time::Instant::now();
            for _ in 0..3 {
                std::hint::black_box(modes::evaluate(&rules, Format::Json, &refs, 0));
            }
            let ns = t.elapsed().as_nanos() as f64 / 3.0;
            println!(
                "{name}: {total} bytes, {charged} cycles charged, {:.3} ns/cycle, ratio to the loop {:.2}",
                ns / charged as f64,
                ns / charged as f64 / peer
            );
        }
        let id = Hash32([1; 32]);
        let rv = Rv::new(1, &id, b"result", usage(1, 2));
        let pk: [u8; 32] = sk(1).public_key().as_ref().try_into().expect("32");
        let dg = sign::digest(CHAIN_ID, &id, b"result", usage(1, 2));
        let t = std::time::Instant::now();
        for _ in 0..200 {
            assert!(sign::verify(&pk, &dg, std::hint::black_box(&rv.sig)));
        }
        let ns = t.elapsed().as_nanos() as f64 / 200.0;
        let charged = p.verify_signature_cycles as f64;
        println!(
            "ed25519 verify: {ns:.0} ns, {charged} cycles charged, {:.3} ns/cycle, ratio {:.2}; python loop {peer:.3} ns/cycle",
            ns / charged,
            ns / charged / peer
        );
    });
}

#[test]
fn a_non_responders_stake_slash_is_counted_in_the_blocks_burn() {
    deterministic::Runner::default().start(|ctx| async move {
        let p = cowboy_types::genesis::GenesisParams {
            runner_slash_threshold: 1,
            runner_max_retries: 0,
            ..job_params()
        };
        let mut d = D::new(ctx, 3, p).await;
        d.register(&[1, 2], &[100 * CBY; 2], "api.example.com", 5, 4)
            .await;
        let id = d
            .submit_ok(spec_with(&[("timeout_blocks", Some(int(2)))]), 1_010)
            .await;
        let dl = get(&d.job(&id), "deadline").as_u64().expect("int");
        let stake = d
            .chain
            .account(&cowboy_types::system::RUNNER_REGISTRY)
            .await
            .balance;
        let burned = d.burned;
        let runs = d.until(dl).await;
        assert!(topics(&runs[0]).contains(&(
            cowboy_types::system::RUNNER_REGISTRY,
            "RunnerSlashed".into()
        )));
        assert_eq!(get(&d.job(&id), "status"), &text("failed"));
        let taken = stake
            - d.chain
                .account(&cowboy_types::system::RUNNER_REGISTRY)
                .await
                .balance;
        assert_eq!(taken, CBY, "1 % of 100 CBY");
        assert!(d.burned - burned >= taken);
        d.check_conservation().await;
    });
}

#[test]
fn delegators_share_a_winners_pay_less_its_commission() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 5, job_params()).await;
        setup(&mut d, 3, 1_000, 0).await;
        let r = d
            .send(
                4,
                cowboy_types::system::RUNNER_REGISTRY,
                100 * CBY,
                "delegate",
                vec![bytes(&D::addr(1).0)],
            )
            .await;
        assert!(r.success, "{:?}", r.error);
        let cb = deploy_callback(&mut d).await;
        let mode = map(vec![("mode", text("deterministic")), ("runners", int(3))]);
        let id = d.submit_ok(price_spec(mode, cb, 3_000, 0), 3_000).await;
        let job = d.job(&id);
        let agg = index_of(&addr_of(get(&job, "aggregator")), 5);
        let rvs: Vec<Rv> = (1..=3)
            .map(|k| Rv::new(k, &id, b"7", usage(0, 0)))
            .collect();
        commit_all(&mut d, &id, &rvs).await;
        let registry = cowboy_types::system::RUNNER_REGISTRY;
        let before = d.chain.account(&registry).await.balance;
        let one = d.chain.account(&D::addr(1)).await.balance;
        let entries: Vec<Value> = rvs.iter().map(Rv::entry).collect();
        let a = aggregate(&mut d, agg, &id, b"7", &entries).await;
        assert!(a.success, "{:?}", a.error);
        // Runner 1: a = 1,000, runner side 890; half its stake is delegated: d = 445, of
        // which it keeps its 5 % commission (22); 423 goes to the pool.
        let o = outcome(&mut d, &id);
        assert_eq!(amount(&o, "delegators"), 423);
        assert_eq!(d.chain.account(&registry).await.balance - before, 423);
        if agg != 1 {
            assert_eq!(d.chain.account(&D::addr(1)).await.balance - one, 890 - 423);
        }
        d.check_conservation().await;
    });
}

// ---- challenges ----

/// A one-runner job (mode none) verified with runner 1's signed `{"p":1}`; the chain's
/// challenge bond 4 CBY and window 5 blocks, so a 10 % slash of its 100 CBY stake (10 CBY)
/// pays the challenger 4 CBY and burns 6.
async fn challenged_job(d: &mut D) -> (Hash32, Rv) {
    setup(d, 1, 5, 0).await;
    let id = d.submit_ok(spec_with(&[]), 1_010).await;
    let rv = Rv::new(1, &id, br#"{"p":1}"#, usage(1, 10));
    commit_all(d, &id, std::slice::from_ref(&rv)).await;
    let r = aggregate(d, 1, &id, &rv.result, &[rv.entry()]).await;
    assert!(r.success, "{:?}", r.error);
    (id, rv)
}

fn challenge_params() -> cowboy_types::genesis::GenesisParams {
    cowboy_types::genesis::GenesisParams {
        challenge_bond_wei: 4 * CBY,
        challenge_window_secs: 5,
        ..job_params()
    }
}

fn challenge_args(id: &Hash32, k: u32, result: &[u8], u: Usage, sig: &[u8; 64]) -> Vec<Value> {
    vec![
        bytes(&id.0),
        bytes(&D::addr(k).0),
        bytes(result),
        usage_value(u),
        bytes(sig),
    ]
}

/// A proven challenge's `ChallengeProven` data.
fn proven(r: &Receipt) -> Value {
    assert!(r.success, "{:?}", r.error);
    assert_eq!(ret(r), Value::Bool(true));
    let e = r
        .events
        .iter()
        .find(|e| e.topic == "ChallengeProven")
        .expect("event");
    cowboy_types::cbor::decode(&e.data).expect("cbor")
}

/// Key `k` challenges with `value` wei.
async fn challenge(d: &mut D, k: u32, value: u128, args: Vec<Value>) -> Receipt {
    d.send(k, RESULT_VERIFIER, value, "challenge", args).await
}

#[test]
fn a_proven_equivocation_slashes_the_runner_and_pays_the_challenger() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 4, challenge_params()).await;
        let (id, _) = challenged_job(&mut d).await;
        let runner = D::addr(1);
        let (rep, _) = d.rep_and_jobs(&runner);
        // Runner 1 also signed another result for the same job.
        let other = br#"{"p":2}"#;
        let u = usage(1, 10);
        let sig = sig_of(1, &id, other, u);
        let registry = cowboy_types::system::RUNNER_REGISTRY;
        let reg_before = d.chain.account(&registry).await.balance;
        let me_before = d.chain.account(&D::addr(2)).await.balance;
        let burned_before = d.burned;
        let r = challenge(&mut d, 2, 4 * CBY, challenge_args(&id, 1, other, u, &sig)).await;
        let data = proven(&r);
        assert_eq!(amount(&data, "reward"), 4 * CBY);
        assert_eq!(amount(&data, "burned"), 6 * CBY);
        // Exact balances: the registry lost the 10 CBY slash; the challenger got its bond back
        // and 4 CBY, less its fee; the verifier holds nothing; the 6 CBY are in the burn.
        assert_eq!(
            reg_before - d.chain.account(&registry).await.balance,
            10 * CBY
        );
        assert_eq!(
            d.chain.account(&D::addr(2)).await.balance,
            me_before + 4 * CBY - r.fee_paid
        );
        assert_eq!(d.chain.account(&RESULT_VERIFIER).await.balance, 0);
        assert!(d.burned - burned_before >= 6 * CBY);
        let stake = get(&d.runner(&runner), "self_bond").as_u128().expect("int");
        assert_eq!(stake, 90 * CBY);
        assert_eq!(d.rep_and_jobs(&runner).0, rep - 5);
        d.check_conservation().await;

        // Once per (job, runner).
        let r = challenge(&mut d, 3, 4 * CBY, challenge_args(&id, 1, other, u, &sig)).await;
        assert_eq!(refused(&r), "AlreadyChallenged");
        d.check_conservation().await;
    });
}

#[test]
fn an_unproven_challenge_burns_its_bond_and_malformed_ones_change_nothing() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 4, challenge_params()).await;
        let (id, rv) = challenged_job(&mut d).await;
        let registry = cowboy_types::system::RUNNER_REGISTRY;
        let reg_before = d.chain.account(&registry).await.balance;
        let u = usage(1, 10);

        // Refusals: each typed, the bond returned with the rolled-back call.
        let me_before = d.chain.account(&D::addr(2)).await.balance;
        let honest = rv.result.clone();
        let sig = sig_of(1, &id, &honest, u);
        let cases: Vec<(u128, Vec<Value>, &str)> = vec![
            (CBY, challenge_args(&id, 1, &honest, u, &sig), "WrongBond"),
            (
                4 * CBY,
                challenge_args(&Hash32([9; 32]), 1, &honest, u, &sig),
                "NotDecided",
            ),
            (
                4 * CBY,
                challenge_args(&id, 3, &honest, u, &sig),
                "NotACommitter",
            ),
        ];
        let mut fees = 0;
        for (value, args, class) in cases {
            let r = challenge(&mut d, 2, value, args).await;
            assert_eq!(refused(&r), class);
            fees += r.fee_paid;
        }
        assert_eq!(d.chain.account(&D::addr(2)).await.balance, me_before - fees);

        // The honest committed result, and a forged signature, prove nothing: bond burned.
        for (result, sig) in [(honest.clone(), sig), (b"{}".to_vec(), [7u8; 64])] {
            let before = d.chain.account(&D::addr(2)).await.balance;
            let burned = d.burned;
            let r = challenge(&mut d, 2, 4 * CBY, challenge_args(&id, 1, &result, u, &sig)).await;
            assert!(r.success, "{:?}", r.error);
            assert_eq!(ret(&r), Value::Bool(false));
            assert_eq!(r.events[0].topic, "ChallengeRejected");
            assert_eq!(
                d.chain.account(&D::addr(2)).await.balance,
                before - 4 * CBY - r.fee_paid
            );
            assert!(d.burned - burned >= 4 * CBY);
        }
        assert_eq!(
            d.chain.account(&registry).await.balance,
            reg_before,
            "nobody slashed"
        );
        assert_eq!(d.chain.account(&RESULT_VERIFIER).await.balance, 0);

        // After the window (5 blocks from the decision) a proof comes too late.
        let decided = get(&outcome(&mut d, &id), "height").as_u64().expect("int");
        while d.chain.height < decided + 5 {
            d.empty().await;
        }
        let other = br#"{"p":2}"#;
        let sig = sig_of(1, &id, other, u);
        let r = challenge(&mut d, 2, 4 * CBY, challenge_args(&id, 1, other, u, &sig)).await;
        assert_eq!(refused(&r), "ChallengeClosed");
        d.check_conservation().await;
    });
}

// ---- anomaly review ----

/// A majority-vote job of four runners (base 300 wei + 1 wei/ms, cap 2,000) whose committee
/// agrees; the fourth in committee order reports 900 ms against the others' 100, 110 and
/// 120. Expected time is their lower median, 110 ms: the fourth is over twice that, so it is
/// paid now for 220 ms (520 wei) and the other 680 wei of its 1,200 are held. Returns the
/// job, the inflating runner's key and the decision's height.
async fn inflated_job(d: &mut D, cb: Address) -> (Hash32, u32, u64) {
    let mode = majority(4, 3, "v");
    let id = d.submit_ok(price_spec(mode, cb, 8_000, 0), 8_000).await;
    let job = d.job(&id);
    let n = d.n;
    let sel: Vec<u32> = addrs_of(get(&job, "selected"))
        .iter()
        .map(|a| index_of(a, n))
        .collect();
    let agg = index_of(&addr_of(get(&job, "aggregator")), n);
    let rvs: Vec<Rv> = sel
        .iter()
        .zip([100, 110, 120, 900])
        .map(|(&k, ms)| Rv::new(k, &id, br#"{"v": 1000}"#, usage(0, ms)))
        .collect();
    commit_all(d, &id, &rvs).await;
    let entries: Vec<Value> = rvs.iter().map(Rv::entry).collect();
    let r = aggregate(d, agg, &id, &rvs[0].result, &entries).await;
    assert!(r.success, "{:?}", r.error);
    let o = outcome(d, &id);
    assert_eq!(get(&o, "status"), &text("verified"));
    assert_eq!(
        addrs_of(get(&o, "winners")).len(),
        4,
        "the inflater's result won"
    );
    assert_eq!(amount(&o, "paid"), 400 + 410 + 420 + 520);
    assert_eq!(amount(&o, "held"), 680);
    assert_eq!(amount(&o, "bonus"), 160);
    assert_eq!(amount(&o, "refund"), 8_000 - 1_750 - 680 - 160);
    assert_eq!(d.chain.account(&JOB_DISPATCHER).await.balance, 680);
    assert_eq!(get(&d.job(&id), "escrow"), &int(680));
    (id, sel[3], d.chain.height)
}

/// Whitepaper §5: usage over twice the expected is reviewed. An honest committee is paid in
/// full at once; an inflater's excess is held for the challenge window, then released (split
/// 89/10/1 like any payment) or, after a proven challenge, refunded to the submitter. Exact
/// balances, and value conserved through both.
#[test]
fn anomaly_an_inflaters_excess_is_held_then_released_or_refunded() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 7, challenge_params()).await;
        setup(&mut d, 5, 300, 1).await;
        let cb = deploy_callback(&mut d).await;
        let window = d
            .chain
            .params
            .blocks_for_secs(d.chain.params.challenge_window_secs);

        // Released: nobody challenged within the window.
        let (id, k, decided) = inflated_job(&mut d, cb).await;
        let treasury = cowboy_types::system::TREASURY;
        let runner_before = d.chain.account(&D::addr(k)).await.balance;
        let treasury_before = d.chain.account(&treasury).await.balance;
        let burned_before = d.burned;
        let mut released = None;
        while d.chain.height < decided + window + 1 {
            let out = d.empty().await;
            for t in out.timers {
                if t.handler == "release" {
                    released = Some(t.receipt);
                }
            }
        }
        let run = released.expect("the release timer ran");
        assert!(run.success, "{:?}", run.error);
        assert_eq!(run.fee_paid, 0, "prepaid at submission");
        // 680: 68 burned, 6 to the treasury, 606 to the runner (it has no delegators).
        assert_eq!(
            d.chain.account(&D::addr(k)).await.balance,
            runner_before + 606
        );
        assert_eq!(
            d.chain.account(&treasury).await.balance,
            treasury_before + 6
        );
        assert_eq!(d.burned - burned_before, 68);
        assert_eq!(d.chain.account(&JOB_DISPATCHER).await.balance, 0);
        assert_eq!(get(&d.job(&id), "escrow"), &int(0));
        d.check_conservation().await;

        // Refunded: a proven challenge against the inflater within the window.
        let (id, k, decided) = inflated_job(&mut d, cb).await;
        let submitter_before = d.chain.account(&D::addr(0)).await.balance;
        let other = br#"{"v": 999}"#;
        let u = usage(0, 900);
        let sig = sig_of(k, &id, other, u);
        let r = challenge(&mut d, 6, 4 * CBY, challenge_args(&id, k, other, u, &sig)).await;
        let data = proven(&r);
        assert_eq!(amount(&data, "refunded"), 680);
        assert_eq!(
            d.chain.account(&D::addr(0)).await.balance,
            submitter_before + 680
        );
        assert_eq!(d.chain.account(&JOB_DISPATCHER).await.balance, 0);
        let runner_before = d.chain.account(&D::addr(k)).await.balance;
        while d.chain.height < decided + window + 1 {
            d.empty().await;
        }
        assert_eq!(
            d.chain.account(&D::addr(k)).await.balance,
            runner_before,
            "nothing left to release"
        );
        assert_eq!(get(&d.job(&id), "escrow"), &int(0));
        d.check_conservation().await;
    });
}
