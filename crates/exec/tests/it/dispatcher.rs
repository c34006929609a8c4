//! The job dispatcher at `0x…02` end to end over real state: a submission's committee is the
//! pure selection recomputed from the stored snapshot and seed; every spec check and refusal
//! with its typed error; escrow held and refunded with value conserved; deadlines that
//! re-select with penalties and finally fail with a full refund; commits (through the
//! verifier's hook) that move a job on or cancel its deadline; capacity accounting; and a
//! 4,096-runner registry whose scan is charged before it runs.

use crate::support::*;
use commonware_runtime::{deterministic, Runner as _};
use cowboy_exec::block::BlockOutcome;
use cowboy_exec::system::dispatcher::job::{job_id, Status};
use cowboy_exec::system::dispatcher::lifecycle::{record_commit, CommitRefused};
use cowboy_exec::system::dispatcher::select::{candidates_root, retry_seed, seed, select};
use cowboy_exec::system::runners::records::{
    JobType, Profile, Rate, Rep, Stake, Status as RunnerStatus,
};
use cowboy_exec::system::runners::store::{
    heartbeat_key, profile_key, put_value, rep_key, stake_key, List, Raw,
};
use cowboy_exec::BlockState;
use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::{GenesisParams, WEI_PER_CBY};
use cowboy_types::system::{JOB_DISPATCHER, RUNNER_REGISTRY, SCHEDULER};
use cowboy_types::tx::Payload;
use cowboy_types::{keccak256, Address, Hash32, Receipt, Transaction};
use curve25519_dalek::constants::ED25519_BASEPOINT_POINT;
use curve25519_dalek::scalar::Scalar;

pub(crate) const CBY: u128 = WEI_PER_CBY;

pub(crate) fn job_params() -> GenesisParams {
    GenesisParams {
        runner_stake_floor_wei: 100 * CBY,
        runner_heartbeat_timeout_blocks: 1_000,
        ..params()
    }
}

pub(crate) fn text(s: &str) -> Value {
    Value::Text(s.into())
}

pub(crate) fn int(i: u64) -> Value {
    Value::Uint(i)
}

pub(crate) fn bytes(b: &[u8]) -> Value {
    Value::Bytes(b.to_vec())
}

pub(crate) fn map(entries: Vec<(&str, Value)>) -> Value {
    Value::Map(entries.into_iter().map(|(k, v)| (text(k), v)).collect())
}

pub(crate) fn get<'a>(v: &'a Value, name: &str) -> &'a Value {
    let Value::Map(m) = v else {
        panic!("not a map: {v:?}")
    };
    m.iter()
        .find(|(k, _)| *k == text(name))
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no field {name} in {v:?}"))
}

pub(crate) fn addr_of(v: &Value) -> Address {
    let Value::Bytes(b) = v else {
        panic!("not bytes: {v:?}")
    };
    Address(b.as_slice().try_into().expect("20 bytes"))
}

pub(crate) fn addrs_of(v: &Value) -> Vec<Address> {
    let Value::Array(a) = v else {
        panic!("not a list: {v:?}")
    };
    a.iter().map(addr_of).collect()
}

pub(crate) fn hash_of(v: &Value) -> Hash32 {
    let Value::Bytes(b) = v else {
        panic!("not bytes: {v:?}")
    };
    Hash32(b.as_slice().try_into().expect("32 bytes"))
}

pub(crate) fn ed_key(i: u64) -> Vec<u8> {
    (ED25519_BASEPOINT_POINT * Scalar::from(i + 1))
        .compress()
        .0
        .to_vec()
}

/// `register` arguments: an HTTP runner serving `domain` at `base` wei per job.
pub(crate) fn http_runner(i: u64, domain: &str, base: u64, capacity: u64) -> Vec<Value> {
    vec![
        bytes(&ed_key(i)),
        map(vec![
            ("job_types", Value::Array(vec![text("http")])),
            ("domains", Value::Array(vec![text(domain)])),
        ]),
        Value::Array(vec![map(vec![
            ("job_type", text("http")),
            ("base", int(base)),
        ])]),
        int(capacity),
        int(0),
        int(500),
    ]
}

/// A valid HTTP job spec for one runner (mode none), 1,000 wei + 10 tip, 3 blocks.
pub(crate) fn base_spec() -> Vec<(String, Value)> {
    vec![
        ("job_type".into(), text("http")),
        (
            "domains".into(),
            Value::Array(vec![text("api.example.com")]),
        ),
        (
            "input".into(),
            map(vec![("url", text("https://api.example.com/price"))]),
        ),
        (
            "bounds".into(),
            map(vec![
                ("max_tokens", int(1)),
                ("max_wall_ms", int(1_000)),
                ("max_memory_mb", int(64)),
            ]),
        ),
        (
            "result_schema".into(),
            map(vec![
                ("max_return_bytes", int(256)),
                ("expected_execution_ms", int(500)),
                ("data_format", text("json")),
            ]),
        ),
        ("verification".into(), map(vec![("mode", text("none"))])),
        ("max_price".into(), int(1_000)),
        ("tip".into(), int(10)),
        ("timeout_blocks".into(), int(3)),
        ("callback".into(), map(vec![("handler", text("on_result"))])),
    ]
}

/// A field replaced (`Some`) or removed (`None`).
pub(crate) type Change<'a> = (&'a str, Option<Value>);

/// `base_spec` with fields replaced (`Some`) or removed (`None`).
pub(crate) fn spec_with(changes: &[Change]) -> Value {
    let mut s = base_spec();
    for (k, v) in changes {
        s.retain(|(name, _)| name != k);
        if let Some(v) = v {
            s.push((k.to_string(), v.clone()));
        }
    }
    Value::Map(s.into_iter().map(|(k, v)| (text(&k), v)).collect())
}

pub(crate) fn verification(mode: &str, runners: u64, threshold: Option<u64>) -> Value {
    let mut v = vec![("mode", text(mode)), ("runners", int(runners))];
    if let Some(n) = threshold {
        v.push(("threshold", int(n)));
    }
    map(v)
}

pub(crate) fn ret(r: &Receipt) -> Value {
    cbor::decode(&r.return_data).expect("return data is canonical CBOR")
}

pub(crate) fn signed_with(
    k: u32,
    nonce: u64,
    to: Address,
    value: u128,
    p: Payload,
    cycles: u64,
) -> Transaction {
    let mut tx = Transaction {
        chain_id: CHAIN_ID,
        nonce,
        to: Some(to),
        value,
        cycles_limit: cycles,
        cells_limit: 400_000,
        max_fee_per_cycle: 100,
        max_fee_per_cell: 100,
        tip_per_cycle: 2,
        tip_per_cell: 1,
        access_list: None,
        payload: p.encode(),
        signature: None,
    };
    tx.sign(&key(k)).expect("sign");
    tx
}

/// A chain of `n` funded keys: key 0 submits jobs, the others run them.
pub(crate) struct D {
    pub(crate) chain: Chain,
    pub(crate) n: u32,
    pub(crate) nonce: Vec<u64>,
    pub(crate) burned: u128,
}

impl D {
    pub(crate) async fn new(ctx: deterministic::Context, n: u32, p: GenesisParams) -> D {
        let mut chain = Chain::new(ctx, n).await;
        chain.params = p;
        D {
            chain,
            n,
            nonce: vec![0; n as usize],
            burned: 0,
        }
    }

    pub(crate) fn addr(i: u32) -> Address {
        key(i).address()
    }

    pub(crate) fn tx(
        &mut self,
        k: u32,
        to: Address,
        value: u128,
        handler: &str,
        args: Vec<Value>,
    ) -> Transaction {
        let n = self.nonce[k as usize];
        self.nonce[k as usize] += 1;
        signed(&key(k), n, Some(to), value, call(handler, args))
    }

    pub(crate) async fn run(&mut self, txs: &[Transaction]) -> BlockOutcome {
        let out = self.chain.block(txs).await.expect("valid block");
        self.burned += out.usage.burned;
        out
    }

    pub(crate) async fn send(
        &mut self,
        k: u32,
        to: Address,
        value: u128,
        handler: &str,
        args: Vec<Value>,
    ) -> Receipt {
        let tx = self.tx(k, to, value, handler, args);
        self.run(&[tx]).await.receipts.remove(0)
    }

    /// Register runners `ks` (one block), each with `stakes[i]` and the given profile.
    pub(crate) async fn register(
        &mut self,
        ks: &[u32],
        stakes: &[u128],
        domain: &str,
        base: u64,
        capacity: u64,
    ) {
        let txs: Vec<Transaction> = ks
            .iter()
            .zip(stakes)
            .map(|(&k, &s)| {
                self.tx(
                    k,
                    RUNNER_REGISTRY,
                    s,
                    "register",
                    http_runner(u64::from(k), domain, base, capacity),
                )
            })
            .collect();
        let out = self.run(&txs).await;
        for r in &out.receipts {
            assert!(r.success, "register: {:?}", r.error);
        }
    }

    pub(crate) async fn submit(&mut self, spec: Value, value: u128) -> Receipt {
        self.send(0, JOB_DISPATCHER, value, "submit_job", vec![spec])
            .await
    }

    pub(crate) async fn submit_ok(&mut self, spec: Value, value: u128) -> Hash32 {
        let r = self.submit(spec, value).await;
        assert!(r.success, "submit_job: {:?}", r.error);
        hash_of(&ret(&r))
    }

    pub(crate) async fn fails(&mut self, spec: Value, value: u128) -> String {
        let before = self.chain.account(&JOB_DISPATCHER).await.balance;
        let r = self.submit(spec, value).await;
        let e = r
            .error
            .clone()
            .unwrap_or_else(|| panic!("submit_job succeeded"));
        assert!(r.events.is_empty(), "a failed call's events are reverted");
        assert_eq!(
            self.chain.account(&JOB_DISPATCHER).await.balance,
            before,
            "a refused job escrows nothing"
        );
        format!("{}: {}", e.class, e.message)
    }

    pub(crate) async fn empty(&mut self) -> BlockOutcome {
        self.run(&[]).await
    }

    /// A read-only call on the committed state.
    pub(crate) fn query(&mut self, to: Address, handler: &str, args: Vec<Value>) -> Value {
        let tx = signed(&key(0), 0, Some(to), 0, call(handler, args));
        let env = self.chain.env();
        let mut bs = BlockState::new(self.chain.state.batch());
        let sim = cowboy_exec::simulate(&mut bs, &self.chain.params, &env, key(0).address(), &tx)
            .expect("state")
            .expect("valid");
        assert!(sim.receipt.success, "{handler}: {:?}", sim.receipt.error);
        cbor::decode(&sim.receipt.return_data).expect("canonical")
    }

    pub(crate) fn job(&mut self, id: &Hash32) -> Value {
        self.query(JOB_DISPATCHER, "get_job", vec![bytes(&id.0)])
    }

    pub(crate) fn runner(&mut self, a: &Address) -> Value {
        self.query(RUNNER_REGISTRY, "get_runner", vec![bytes(&a.0)])
    }

    pub(crate) fn rep_and_jobs(&mut self, a: &Address) -> (u64, u64) {
        let r = self.runner(a);
        (
            get(&r, "reputation").as_u64().expect("int"),
            get(&r, "active_jobs").as_u64().expect("int"),
        )
    }

    /// The stored snapshot as `(address, weight)` pairs, in stored order, page by page.
    pub(crate) fn snapshot(&mut self, id: &Hash32) -> Vec<(Address, u64)> {
        let mut out = Vec::new();
        let mut start = 0;
        loop {
            let v = self.query(
                JOB_DISPATCHER,
                "get_candidates",
                vec![bytes(&id.0), int(start), int(1_024)],
            );
            let Value::Array(items) = get(&v, "candidates") else {
                panic!("snapshot: {v:?}")
            };
            out.extend(items.iter().map(|e| {
                let Value::Array(x) = e else { panic!() };
                (addr_of(&x[0]), x[1].as_u64().expect("weight"))
            }));
            match get(&v, "next") {
                Value::Uint(n) => start = *n,
                _ => return out,
            }
        }
    }

    /// Σ balances of every account the tests touch; with the fees burned it is what genesis gave.
    pub(crate) async fn check_conservation(&mut self) {
        let mut t = 0;
        for i in 0..self.n {
            t += self.chain.account(&Self::addr(i)).await.balance;
        }
        for a in [
            JOB_DISPATCHER,
            RUNNER_REGISTRY,
            SCHEDULER,
            cowboy_types::system::RESULT_VERIFIER,
            cowboy_types::system::TREASURY,
            self.chain.proposer,
        ] {
            t += self.chain.account(&a).await.balance;
        }
        assert_eq!(t + self.burned, u128::from(self.n) * FUNDS);
    }

    /// Run empty blocks up to and including height `h`; the dispatcher's timer executions.
    pub(crate) async fn until(&mut self, h: u64) -> Vec<Receipt> {
        let mut out = Vec::new();
        while self.chain.height < h {
            let o = self.empty().await;
            for t in o.timers {
                if t.owner == JOB_DISPATCHER {
                    assert_eq!(t.handler, "deadline");
                    out.push(t.receipt);
                }
            }
        }
        out
    }
}

pub(crate) fn topics(r: &Receipt) -> Vec<(Address, String)> {
    r.events
        .iter()
        .map(|e| (e.emitter, e.topic.clone()))
        .collect()
}

#[test]
fn selection_is_the_pure_function_of_the_stored_snapshot() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 9, job_params()).await;
        // Keys 1–6 qualify with weights 2, 3, 4 (stakes of 1, 3 and 7 floors); key 7 serves
        // another domain and key 8 prices above the cap: neither is a candidate.
        d.register(
            &[1, 2, 3, 4, 5, 6],
            &[
                100 * CBY,
                300 * CBY,
                700 * CBY,
                100 * CBY,
                300 * CBY,
                700 * CBY,
            ],
            "api.example.com",
            5,
            4,
        )
        .await;
        d.register(&[7], &[100 * CBY], "other.example.com", 5, 4)
            .await;
        d.register(&[8], &[100 * CBY], "api.example.com", 400, 4)
            .await;

        let spec = spec_with(&[(
            "verification",
            Some(verification("structured_match", 3, None)),
        )]);
        let before = d.chain.account(&D::addr(0)).await.balance;
        let r = d.submit(spec, 1_010).await;
        assert!(r.success, "{:?}", r.error);
        let h = d.chain.height;
        let id = hash_of(&ret(&r));
        assert_eq!(
            id,
            job_id(&D::addr(0), 0),
            "job_id = keccak256(submitter ‖ 0_le8 ‖ \"job\")"
        );
        assert_eq!(
            topics(&r),
            vec![
                (JOB_DISPATCHER, "JobSubmitted".to_string()),
                (JOB_DISPATCHER, "JobAssigned".to_string())
            ]
        );
        println!(
            "submit_job, 8 active runners, M = 3: {} cycles / {} cells",
            r.cycles_used, r.cells_used
        );
        // Scan charged for all eight active runners before it ran, on top of the bases.
        assert!(
            r.cycles_used > 10_000 + 5_000 + 8 * 550,
            "{}",
            r.cycles_used
        );
        // Escrow held, exactly; the submitter paid it and the fee.
        assert_eq!(d.chain.account(&JOB_DISPATCHER).await.balance, 1_010);
        assert_eq!(
            d.chain.account(&D::addr(0)).await.balance,
            before - 1_010 - r.fee_paid
        );

        let job = d.job(&id);
        assert_eq!(get(&job, "status"), &text("assigned"));
        assert_eq!(get(&job, "attempt"), &int(0));
        assert_eq!(get(&job, "submitted_at"), &int(h));
        assert_eq!(get(&job, "deadline"), &int(h + 3));
        assert_eq!(get(&job, "candidates"), &int(6));
        assert_eq!(get(&job, "escrow"), &int(1_010));

        // Anyone recomputes the committee from public data: the snapshot, the block's parent
        // hash (the test chain's randomness), the job id and the height.
        let snap = d.snapshot(&id);
        let mut want: Vec<(Address, u64)> = (1..=6)
            .map(|k| {
                let w = [2, 3, 4][(k as usize - 1) % 3];
                (D::addr(k), w)
            })
            .collect();
        want.sort_by_key(|c| c.0 .0);
        assert_eq!(snap, want, "filtered, weighted, in address order");
        let s = seed(&keccak256(&h.to_be_bytes()), &id, h);
        assert_eq!(hash_of(get(&job, "seed")), s);
        assert_eq!(
            hash_of(get(&job, "candidates_root")),
            candidates_root(&snap)
        );
        let selected = addrs_of(get(&job, "selected"));
        assert_eq!(selected, select(&snap, &s, 3));
        // Equal reputations: the aggregator is the committee's lowest address.
        let lowest = *selected.iter().min_by_key(|a| a.0).expect("three");
        assert_eq!(addr_of(get(&job, "aggregator")), lowest);
        for a in &selected {
            assert_eq!(d.rep_and_jobs(a), (70, 1), "assigned counts in active_jobs");
        }

        // A second job from the same submitter, then the paged index.
        let id2 = d.submit_ok(spec_with(&[]), 1_010).await;
        assert_eq!(id2, job_id(&D::addr(0), 1));
        let page = d.query(
            JOB_DISPATCHER,
            "jobs_of",
            vec![bytes(&D::addr(0).0), int(0), int(1)],
        );
        assert_eq!(get(&page, "total"), &int(2));
        assert_eq!(get(&page, "next"), &int(1));
        let Value::Array(jobs) = get(&page, "jobs") else {
            panic!()
        };
        assert_eq!(get(&jobs[0], "job_id"), &bytes(&id.0));
        let page = d.query(
            JOB_DISPATCHER,
            "jobs_of",
            vec![bytes(&D::addr(0).0), int(1), int(5)],
        );
        assert_eq!(get(&page, "next"), &Value::Null);
        assert_eq!(d.job(&Hash32([9; 32])), Value::Null);
        d.check_conservation().await;
    });
}

#[test]
fn every_refusal_is_typed_and_escrows_nothing() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 3, job_params()).await;
        d.register(&[1, 2], &[100 * CBY, 100 * CBY], "api.example.com", 5, 4)
            .await;
        let cases: Vec<(Vec<Change>, &str)> = vec![
            (vec![("job_type", Some(text("gpu")))], "BadSpec: job_type:"),
            (vec![("domains", None)], "BadSpec: domains: an http job"),
            (
                vec![("job_type", Some(text("llm"))), ("domains", None)],
                "BadSpec: model: an llm job",
            ),
            (
                vec![("model", Some(bytes(&[1; 32])))],
                "BadSpec: model: only llm",
            ),
            (
                vec![("domains", Some(Value::Array(vec![])))],
                "BadSpec: domains: an http job",
            ),
            (
                vec![(
                    "bounds",
                    Some(map(vec![
                        ("max_tokens", int(0)),
                        ("max_wall_ms", int(1)),
                        ("max_memory_mb", int(1)),
                    ])),
                )],
                "BadSpec: bounds.max_tokens: must be at least 1",
            ),
            (
                vec![(
                    "bounds",
                    Some(map(vec![("max_tokens", int(1)), ("max_wall_ms", int(1))])),
                )],
                "BadSpec: bounds.max_memory_mb: is required",
            ),
            (vec![("bounds", None)], "BadSpec: bounds: is required"),
            (
                vec![("result_schema", None)],
                "BadSpec: result_schema: is required",
            ),
            (
                vec![(
                    "result_schema",
                    Some(map(vec![
                        ("max_return_bytes", int(65_537)),
                        ("expected_execution_ms", int(1)),
                        ("data_format", text("json")),
                    ])),
                )],
                "BadSpec: result_schema.max_return_bytes: 65537; the limit is 65536",
            ),
            (
                vec![(
                    "result_schema",
                    Some(map(vec![
                        ("max_return_bytes", int(10)),
                        ("expected_execution_ms", int(1)),
                        ("data_format", text("")),
                    ])),
                )],
                "BadSpec: result_schema.data_format:",
            ),
            (
                vec![("max_price", Some(int(0)))],
                "BadSpec: max_price: must be at least 1 wei",
            ),
            (
                vec![("timeout_blocks", Some(int(0)))],
                "BadSpec: timeout_blocks: must be at least 1",
            ),
            (
                vec![("timeout_blocks", Some(int(601)))],
                "BadSpec: timeout_blocks: 601; the limit is 600",
            ),
            (
                vec![("verification", Some(map(vec![("mode", text("vibes"))])))],
                "BadSpec: verification.mode:",
            ),
            (
                vec![("verification", Some(verification("none", 2, None)))],
                "BadSpec: verification.runners: the none mode uses exactly 1 runner, not 2",
            ),
            (
                vec![(
                    "verification",
                    Some(verification("majority_vote", 3, Some(2))),
                )],
                "BadSpec: verification.threshold: 2; the majority_vote mode needs 3 ≤ N ≤ M = 3",
            ),
            (
                vec![(
                    "verification",
                    Some(verification("majority_vote", 6, Some(3))),
                )],
                "BadSpec: verification.threshold: 3 of 6 is not a majority",
            ),
            (
                vec![(
                    "verification",
                    Some(verification("structured_match", 1, None)),
                )],
                "BadSpec: verification.runners: the structured_match mode needs at least 2",
            ),
            (
                vec![(
                    "verification",
                    Some(verification("structured_match", 17, None)),
                )],
                "BadSpec: verification.runners: 17; a committee is 1 to 16 runners",
            ),
            (
                vec![(
                    "verification",
                    Some(verification("deterministic", 2, Some(2))),
                )],
                "BadSpec: verification.threshold: the deterministic mode has no threshold",
            ),
            (
                vec![("color", Some(text("blue")))],
                "BadSpec: color: unknown field",
            ),
            (
                vec![("callback", Some(map(vec![("handler", text("_private"))])))],
                "BadSpec: callback.handler:",
            ),
            (vec![("callback", None)], "BadSpec: callback: is required"),
            (
                vec![("required_runner_pool", Some(int(3)))],
                "BadSpec: required_runner_pool:",
            ),
        ];
        for (changes, want) in cases {
            let e = d.fails(spec_with(&changes), 1_010).await;
            assert!(e.starts_with(want), "{changes:?}: got {e:?}, want {want:?}");
        }
        let e = d.fails(Value::Array(vec![]), 0).await;
        assert_eq!(e, "BadSpec: : must be a map");
        let e = d.fails(spec_with(&[]), 1_009).await;
        assert_eq!(
            e,
            "WrongEscrow: send exactly max_price + tip = 1010 wei as escrow (got 1009)"
        );
        let e = d.fails(spec_with(&[]), 1_011).await;
        assert!(e.starts_with("WrongEscrow"), "{e}");
        let e = d
            .fails(
                spec_with(&[(
                    "verification",
                    Some(verification("structured_match", 3, None)),
                )]),
                1_010,
            )
            .await;
        assert_eq!(
            e,
            "NotEnoughCandidates: 2 runners are eligible for this job; its committee needs 3"
        );
        // Over the spec size limit.
        let big = spec_with(&[("input", Some(bytes(&[7; 17_000])))]);
        let e = d.fails(big, 1_010).await;
        assert!(e.starts_with("BadSpec: spec:"), "{e}");

        // Reads take no value; the deadline handler is the scheduler's; unknown handlers.
        let r = d
            .send(0, JOB_DISPATCHER, 1, "get_job", vec![bytes(&[0; 32])])
            .await;
        assert_eq!(r.error.expect("refused").class, "ValueNotAllowed");
        let r = d
            .send(
                0,
                JOB_DISPATCHER,
                0,
                "deadline",
                vec![Value::Array(vec![bytes(&[0; 32]), int(0)])],
            )
            .await;
        let e = r.error.expect("refused");
        assert_eq!(e.class, "NotScheduler");
        let r = d.send(0, JOB_DISPATCHER, 0, "cancel", vec![]).await;
        assert_eq!(r.error.expect("refused").class, "NoSuchHandler");
        let r = d
            .send(
                0,
                JOB_DISPATCHER,
                0,
                "jobs_of",
                vec![bytes(&D::addr(0).0), int(0), int(101)],
            )
            .await;
        assert_eq!(r.error.expect("refused").class, "PageTooLarge");
        let r = d
            .send(
                0,
                JOB_DISPATCHER,
                0,
                "get_candidates",
                vec![bytes(&[0; 32]), int(0), int(1_025)],
            )
            .await;
        assert_eq!(r.error.expect("refused").class, "PageTooLarge");
        assert_eq!(d.chain.account(&JOB_DISPATCHER).await.balance, 0);
        d.check_conservation().await;
    });
}

#[test]
fn deadlines_reselect_with_penalties_then_fail_with_a_full_refund() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 7, job_params()).await;
        d.register(
            &[1, 2, 3, 4, 5, 6],
            &[100 * CBY; 6],
            "api.example.com",
            5,
            4,
        )
        .await;
        let id = d
            .submit_ok(spec_with(&[("timeout_blocks", Some(int(2)))]), 1_010)
            .await;
        let after_submit = d.chain.account(&D::addr(0)).await.balance;
        let snap = d.snapshot(&id);
        let job = d.job(&id);
        let s = hash_of(get(&job, "seed"));
        let mut gone: Vec<Address> = Vec::new();
        for attempt in 0..=3u64 {
            let job = d.job(&id);
            assert_eq!(get(&job, "attempt"), &int(attempt));
            let committee = addrs_of(get(&job, "selected"));
            assert_eq!(committee.len(), 1);
            // The committee is the pure draw over what is left of the snapshot.
            let left: Vec<(Address, u64)> = snap
                .iter()
                .filter(|c| !gone.contains(&c.0))
                .copied()
                .collect();
            let seed_now = if attempt == 0 {
                s
            } else {
                retry_seed(&s, attempt as u32)
            };
            assert_eq!(committee, select(&left, &seed_now, 1), "attempt {attempt}");
            assert_eq!(d.rep_and_jobs(&committee[0]), (70, 1));
            let deadline = get(&job, "deadline").as_u64().expect("int");
            let runs = d.until(deadline).await;
            assert_eq!(runs.len(), 1, "one deadline at height {deadline}");
            let run = &runs[0];
            assert!(run.success, "{:?}", run.error);
            assert_eq!(run.fee_paid, 0, "prepaid at submission");
            println!(
                "deadline, attempt {attempt}, 6 candidates, M = 1: {} cycles / {} cells",
                run.cycles_used, run.cells_used
            );
            assert!(run.cycles_used <= d.chain.params.system_timer_cycles_limit);
            let t = topics(run);
            assert!(
                t.contains(&(RUNNER_REGISTRY, "ReputationChanged".into())),
                "{t:?}"
            );
            gone.push(committee[0]);
            if attempt < 3 {
                assert!(t.contains(&(JOB_DISPATCHER, "JobAssigned".into())), "{t:?}");
                assert_eq!(d.rep_and_jobs(&committee[0]), (65, 0), "timeout −5, freed");
            } else {
                assert!(t.contains(&(JOB_DISPATCHER, "JobFailed".into())), "{t:?}");
                assert_eq!(
                    d.rep_and_jobs(&committee[0]),
                    (60, 0),
                    "the last attempt's non-responder: −SLASH_THRESHOLD"
                );
            }
        }
        let job = d.job(&id);
        assert_eq!(get(&job, "status"), &text("failed"));
        assert_eq!(get(&job, "escrow"), &int(0));
        assert_eq!(addrs_of(get(&job, "excluded")), gone);
        // 100 % refund: the submitter got the escrow back and paid nothing since.
        assert_eq!(
            d.chain.account(&D::addr(0)).await.balance,
            after_submit + 1_010
        );
        assert_eq!(d.chain.account(&JOB_DISPATCHER).await.balance, 0);
        // No timer left behind.
        let stats = d.query(SCHEDULER, "stats", vec![]);
        assert_eq!(get(&stats, "pending"), &int(0));
        d.check_conservation().await;
    });
}

#[test]
fn commits_move_a_job_on_or_cancel_its_deadline() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 6, job_params()).await;
        d.register(&[1, 2, 3, 4, 5], &[100 * CBY; 5], "api.example.com", 5, 4)
            .await;
        let sm = spec_with(&[
            (
                "verification",
                Some(verification("structured_match", 3, None)),
            ),
            ("timeout_blocks", Some(int(4))),
        ]);
        let a = d.submit_ok(sm.clone(), 1_010).await;
        let b = d.submit_ok(sm.clone(), 1_010).await;
        let ja = d.job(&a);
        let sel_a = addrs_of(get(&ja, "selected"));
        let sel_b = addrs_of(get(&d.job(&b), "selected"));
        let deadline_b = get(&d.job(&b), "timer_id").as_u64().expect("id");
        let outsider = (1..=5)
            .map(D::addr)
            .find(|x| !sel_a.contains(x))
            .expect("two runners are not on a's committee");
        let (a0, a1, a2) = (sel_a[0], sel_a[1], sel_a[2]);
        let sb = sel_b.clone();
        d.chain
            .poke(move |state, p, h| {
                let c = |s: &mut dyn cowboy_exec::system::SystemState, id: &Hash32, r: &Address| {
                    record_commit(s, p, h, id, r)
                        .expect("state")
                        .map(|(status, _)| status)
                };
                assert_eq!(c(state, &a, &a0), Ok(Status::Assigned));
                assert_eq!(c(state, &a, &a1), Ok(Status::Assigned));
                assert_eq!(c(state, &a, &a1), Err(CommitRefused::AlreadyCommitted));
                assert_eq!(c(state, &a, &outsider), Err(CommitRefused::NotSelected));
                assert_eq!(
                    c(state, &Hash32([3; 32]), &a0),
                    Err(CommitRefused::NoSuchJob)
                );
                assert_eq!(c(state, &b, &sb[0]), Ok(Status::Assigned));
                assert_eq!(c(state, &b, &sb[1]), Ok(Status::Assigned));
                assert_eq!(c(state, &b, &sb[2]), Ok(Status::Committed));
                assert_eq!(c(state, &b, &sb[2]), Err(CommitRefused::NotAssigned));
            })
            .await;
        // b's deadline timer was cancelled (the verifier's finalization replaces it); a's
        // fires: two of three committed ≥ need 2.
        assert_eq!(
            d.query(SCHEDULER, "get", vec![int(deadline_b)]),
            Value::Null
        );
        let timer_b = get(&d.job(&b), "timer_id").as_u64().expect("id");
        let t = d.query(SCHEDULER, "get", vec![int(timer_b)]);
        assert_eq!(get(&t, "handler"), &text("finalize"));
        let deadline = get(&ja, "deadline").as_u64().expect("int");
        let runs = d.until(deadline + 1).await;
        assert_eq!(runs.len(), 1, "only a's deadline runs");
        assert!(topics(&runs[0]).contains(&(JOB_DISPATCHER, "JobCommitted".into())));
        let ja = d.job(&a);
        assert_eq!(get(&ja, "status"), &text("committed"));
        assert_eq!(addrs_of(get(&ja, "selected")), vec![a0, a1]);
        assert_eq!(d.rep_and_jobs(&a2).0, 65, "the non-committer −5");
        assert_eq!(get(&d.job(&b), "status"), &text("committed"));
        // Escrow stays held for the verifier: two jobs.
        assert_eq!(d.chain.account(&JOB_DISPATCHER).await.balance, 2 * 1_010);

        // A commit after the deadline height is late even before the timer has run (pokes
        // run no block hooks).
        let c = d
            .submit_ok(spec_with(&[("timeout_blocks", Some(int(2)))]), 1_010)
            .await;
        let jc = d.job(&c);
        let dl = get(&jc, "deadline").as_u64().expect("int");
        let rc = addrs_of(get(&jc, "selected"))[0];
        d.chain.poke(|_, _, _| {}).await;
        d.chain.poke(|_, _, _| {}).await;
        d.chain
            .poke(move |state, p, h| {
                assert_eq!(h, dl + 1);
                assert_eq!(
                    record_commit(state, p, h, &c, &rc).expect("state"),
                    Err(CommitRefused::Late { deadline: dl })
                );
            })
            .await;
        d.check_conservation().await;
    });
}

#[test]
fn capacity_is_counted_and_freed() {
    deterministic::Runner::default().start(|ctx| async move {
        let p = GenesisParams {
            runner_max_retries: 0,
            ..job_params()
        };
        let mut d = D::new(ctx, 3, p).await;
        d.register(&[1, 2], &[100 * CBY; 2], "api.example.com", 5, 1)
            .await;
        let one = spec_with(&[("timeout_blocks", Some(int(5)))]);
        let j1 = d.submit_ok(one.clone(), 1_010).await;
        let j2 = d.submit_ok(one.clone(), 1_010).await;
        let r1 = addrs_of(get(&d.job(&j1), "selected"))[0];
        let r2 = addrs_of(get(&d.job(&j2), "selected"))[0];
        assert_ne!(r1, r2, "a runner at capacity is not a candidate");
        let e = d.fails(one.clone(), 1_010).await;
        assert!(e.starts_with("NotEnoughCandidates: 0 runners"), "{e}");
        // With no retries the first deadline fails the jobs and frees both runners.
        let dl = get(&d.job(&j2), "deadline").as_u64().expect("int");
        let runs = d.until(dl).await;
        assert_eq!(runs.len(), 2);
        assert_eq!(d.rep_and_jobs(&r1), (60, 0));
        assert_eq!(d.rep_and_jobs(&r2), (60, 0));
        assert_eq!(get(&d.job(&j1), "status"), &text("failed"));
        let j3 = d.submit_ok(one, 1_010).await;
        assert_eq!(get(&d.job(&j3), "candidates"), &int(2));
        d.check_conservation().await;
    });
}

/// Write `n` healthy HTTP runners straight into the registry's records (registering 4,096
/// through transactions would test the registry, not the dispatcher).
fn fill_registry(
    state: &mut dyn cowboy_exec::system::SystemState,
    p: &GenesisParams,
    h: u64,
    n: u64,
) {
    if !state.exists(&RUNNER_REGISTRY).expect("read") {
        state
            .set_account(&RUNNER_REGISTRY, &Default::default())
            .expect("write");
    }
    let mut raw = Raw {
        me: RUNNER_REGISTRY,
        state,
        params: p,
        height: h,
        events: Vec::new(),
    };
    for i in 0..n {
        let mut a = [0u8; 20];
        a.copy_from_slice(&keccak256(&i.to_le_bytes()).0[..20]);
        let a = Address(a);
        let prof = Profile {
            key: [7; 32],
            job_types: vec![JobType::Http],
            models: Vec::new(),
            domains: vec!["api.example.com".into()],
            tee: false,
            rates: vec![Rate {
                job_type: JobType::Http,
                model: None,
                base: 5,
                per_token: 0,
                per_ms: 0,
            }],
            max_concurrent_jobs: 4,
            max_job_value: 0,
            commission_bps: 0,
            registered_at: h,
            endpoint: None,
        };
        let st = Stake {
            status: RunnerStatus::Active,
            self_bond: p.runner_stake_floor_wei * u128::from(1 + i % 8),
            release_at: 0,
            pool_tokens: 0,
            pool_shares: 0,
            unbonding_tokens: 0,
            unbonding_shares: 0,
            delegators: 0,
        };
        let rep = Rep {
            reputation: 70,
            failures: 0,
            active_jobs: 0,
        };
        put_value(&mut raw, &profile_key(&a), &prof.to_value()).expect("write");
        put_value(&mut raw, &stake_key(&a), &st.to_value()).expect("write");
        put_value(&mut raw, &rep_key(&a), &rep.to_value()).expect("write");
        put_value(&mut raw, &heartbeat_key(&a), &Value::Uint(h)).expect("write");
        List::Active.push(&mut raw, &a).expect("push");
        List::All.push(&mut raw, &a).expect("push");
    }
}

#[test]
fn hostile_4096_runners_scan_is_charged_before_it_runs() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 1, job_params()).await;
        let n = d.chain.params.runner_max_active;
        d.chain.poke(move |s, p, h| fill_registry(s, p, h, n)).await;
        let spec = spec_with(&[("timeout_blocks", Some(int(1)))]);
        // A limit below the list's price: refused before one runner record is read (the
        // read cells are charged after a scan, and none were).
        let per = d.chain.params.candidate_scan_cycles + 5 * d.chain.params.storage_read_cycles;
        let limit = 1_000_000;
        assert!(n * per > limit);
        let tx = signed_with(
            0,
            0,
            JOB_DISPATCHER,
            1_010,
            call("submit_job", vec![spec.clone()]),
            limit,
        );
        let r = d.run(&[tx]).await.receipts.remove(0);
        assert_eq!(
            r.error.as_ref().expect("out of cycles").class,
            "OutOfCycles"
        );
        assert!(r.cycles_used <= limit);
        assert!(r.cells_used < 2_000, "no scan ran: {} cells", r.cells_used);
        // With enough cycles it scans every runner, and pays for each.
        let tx = signed_with(
            0,
            1,
            JOB_DISPATCHER,
            1_010,
            call("submit_job", vec![spec]),
            9_000_000,
        );
        let r = d.run(&[tx]).await.receipts.remove(0);
        assert!(r.success, "{:?}", r.error);
        assert!(r.cycles_used > n * per, "{}", r.cycles_used);
        let id = hash_of(&ret(&r));
        let job = d.job(&id);
        assert_eq!(get(&job, "candidates"), &int(n));
        let snap = d.snapshot(&id);
        assert_eq!(snap.len() as u64, n);
        assert!(snap.windows(2).all(|w| w[0].0 .0 < w[1].0 .0));
        let s = hash_of(get(&job, "seed"));
        assert_eq!(addrs_of(get(&job, "selected")), select(&snap, &s, 1));
        assert_eq!(
            hash_of(get(&job, "candidates_root")),
            candidates_root(&snap)
        );
        // Its deadline re-selects over the 4,096-entry snapshot within the system timer's
        // limits.
        let dl = get(&job, "deadline").as_u64().expect("int");
        let runs = d.until(dl).await;
        assert_eq!(runs.len(), 1);
        assert!(runs[0].success, "{:?}", runs[0].error);
        println!(
            "4,096 candidates: submit {} cycles / {} cells; deadline re-selection {} / {}",
            r.cycles_used, r.cells_used, runs[0].cycles_used, runs[0].cells_used
        );
        assert_eq!(get(&d.job(&id), "attempt"), &int(1));
    });
}

/// A committee member that exits and is forgotten before the deadline (possible only when
/// unbonding is shorter than a job's deadlines) does not wedge the job: the deadline still
/// runs, re-selects and, at the end, refunds.
#[test]
fn a_forgotten_runner_does_not_wedge_its_job() {
    deterministic::Runner::default().start(|ctx| async move {
        let p = GenesisParams {
            runner_unbonding_blocks: 1,
            runner_max_retries: 1,
            ..job_params()
        };
        let mut d = D::new(ctx, 3, p).await;
        d.register(&[1, 2], &[100 * CBY; 2], "api.example.com", 5, 4)
            .await;
        let id = d
            .submit_ok(spec_with(&[("timeout_blocks", Some(int(6)))]), 1_010)
            .await;
        let r = addrs_of(get(&d.job(&id), "selected"))[0];
        let k = (1..=2).find(|&k| D::addr(k) == r).expect("a key");
        let e = d.send(k, RUNNER_REGISTRY, 0, "begin_unbond", vec![]).await;
        assert!(e.success, "{:?}", e.error);
        d.empty().await;
        let w = d.send(k, RUNNER_REGISTRY, 0, "withdraw", vec![]).await;
        assert!(w.success, "{:?}", w.error);
        assert_eq!(d.runner(&r), Value::Null, "records deleted");
        let dl = get(&d.job(&id), "deadline").as_u64().expect("int");
        let runs = d.until(dl).await;
        assert!(runs[0].success, "{:?}", runs[0].error);
        let job = d.job(&id);
        assert_eq!(get(&job, "attempt"), &int(1));
        let dl = get(&job, "deadline").as_u64().expect("int");
        let runs = d.until(dl).await;
        assert!(runs[0].success, "{:?}", runs[0].error);
        assert_eq!(get(&d.job(&id), "status"), &text("failed"));
        assert_eq!(d.chain.account(&JOB_DISPATCHER).await.balance, 0);
        d.check_conservation().await;
    });
}

/// Measurement, not a test (ignored; run it in release): wall time per cycle of a
/// `submit_job` that scans `runner_max_active` runners, against a Python loop's in the same
/// run. `cargo test --release -p cowboy-exec --test it dispatcher::measure -- --ignored
/// --nocapture`.
#[test]
#[ignore]
fn measure_scan_time_per_cycle_against_a_python_loop() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 1, job_params()).await;
        let n = d.chain.params.runner_max_active;
        d.chain.poke(move |s, p, h| fill_registry(s, p, h, n)).await;
        let src = "from cowboy_sdk import actor\n@actor\nclass A:\n    def spin(self, n):\n        i = 0\n        while i < n:\n            i += 1\n        return i\n";
        let tx = signed(&key(0), 0, None, 0, deploy(src, 1, Value::Array(vec![])));
        let out = d.run(&[tx]).await;
        assert!(out.receipts[0].success, "{:?}", out.receipts[0].error);
        let actor = addr_of(&ret(&out.receipts[0]));
        d.nonce[0] = 1;
        let spec = spec_with(&[("timeout_blocks", Some(int(600)))]);
        let (mut scan_ns, mut scan_cycles, mut loop_ns, mut loop_cycles) = (0u128, 0u64, 0u128, 0u64);
        for round in 0..5u64 {
            let nonce = d.nonce[0];
            d.nonce[0] += 1;
            let tx = signed_with(0, nonce, JOB_DISPATCHER, 1_010, call("submit_job", vec![spec.clone()]), 9_000_000);
            let t0 = std::time::Instant::now();
            let out = d.run(&[tx]).await;
            let dt = t0.elapsed().as_nanos();
            let r = &out.receipts[0];
            assert!(r.success, "{:?}", r.error);
            let nonce = d.nonce[0];
            d.nonce[0] += 1;
            let tx = signed(&key(0), nonce, Some(actor), 0, call("spin", vec![int(60_000)]));
            let t1 = std::time::Instant::now();
            let out2 = d.run(&[tx]).await;
            let dt2 = t1.elapsed().as_nanos();
            let r2 = &out2.receipts[0];
            assert!(r2.success, "{:?}", r2.error);
            if round > 0 {
                scan_ns += dt;
                scan_cycles += r.cycles_used;
                loop_ns += dt2;
                loop_cycles += r2.cycles_used;
            }
        }
        let a = scan_ns as f64 / scan_cycles as f64;
        let b = loop_ns as f64 / loop_cycles as f64;
        println!(
            "submit_job over {n} runners: {a:.3} ns/cycle ({scan_cycles} cycles); python loop: {b:.3} ns/cycle ({loop_cycles} cycles); ratio {:.2}",
            a / b
        );
    });
}

/// Seeded random operations (submissions of every committee shape, commits, empty blocks that
/// fire deadlines): after every step the dispatcher holds exactly the escrow its jobs record,
/// every runner's `active_jobs` is the number of live jobs whose committee holds it, and value
/// is conserved.
#[test]
fn random_operations_keep_escrow_and_capacity_exact() {
    deterministic::Runner::default().start(|ctx| async move {
        let p = GenesisParams {
            runner_max_retries: 2,
            ..job_params()
        };
        let mut d = D::new(ctx, 8, p).await;
        d.register(
            &[1, 2, 3, 4, 5, 6, 7],
            &[100 * CBY; 7],
            "api.example.com",
            5,
            3,
        )
        .await;
        let runners: Vec<Address> = (1..=7).map(D::addr).collect();
        let mut jobs: Vec<Hash32> = Vec::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut submitted, mut commits, mut refused) = (0, 0, 0);
        for _step in 0..60 {
            match next() % 4 {
                0 | 1 => {
                    let (mode, m) = match next() % 3 {
                        0 => ("none", 1),
                        1 => ("structured_match", 2 + next() % 2),
                        _ => ("majority_vote", 3),
                    };
                    let threshold = (mode == "majority_vote").then_some(3);
                    let spec = spec_with(&[
                        ("verification", Some(verification(mode, m, threshold))),
                        ("timeout_blocks", Some(int(1 + next() % 4))),
                    ]);
                    let r = d.submit(spec, 1_010).await;
                    if r.success {
                        jobs.push(hash_of(&ret(&r)));
                        submitted += 1;
                    } else {
                        assert_eq!(r.error.expect("error").class, "NotEnoughCandidates");
                        refused += 1;
                    }
                }
                2 if !jobs.is_empty() => {
                    let id = jobs[(next() % jobs.len() as u64) as usize];
                    let job = d.job(&id);
                    let sel = addrs_of(get(&job, "selected"));
                    let done = addrs_of(get(&job, "committed"));
                    let pick = sel
                        .get((next() % sel.len().max(1) as u64) as usize)
                        .copied();
                    if let Some(r) = pick.filter(|r| !done.contains(r)) {
                        d.chain
                            .poke(move |s, p, h| {
                                let _ = record_commit(s, p, h, &id, &r).expect("state");
                            })
                            .await;
                        commits += 1;
                    }
                }
                _ => {
                    d.empty().await;
                }
            }
            // Invariants.
            let mut escrow = 0u128;
            let mut load = vec![0u64; runners.len()];
            for id in &jobs {
                let job = d.job(id);
                escrow += get(&job, "escrow").as_u128().expect("escrow");
                let status = get(&job, "status").clone();
                if status != text("failed") {
                    for a in addrs_of(get(&job, "selected")) {
                        let i = runners.iter().position(|r| *r == a).expect("a runner");
                        load[i] += 1;
                    }
                }
            }
            assert_eq!(d.chain.account(&JOB_DISPATCHER).await.balance, escrow);
            for (i, a) in runners.iter().enumerate() {
                assert_eq!(d.rep_and_jobs(a).1, load[i], "active_jobs of runner {i}");
            }
            d.check_conservation().await;
        }
        assert!(
            submitted > 5 && commits > 3 && refused > 0,
            "{submitted} {commits} {refused}"
        );
    });
}
