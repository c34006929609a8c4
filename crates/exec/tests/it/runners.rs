//! The runner registry at `0x…01` end to end over real state: registration, updates,
//! heartbeats and health, unbonding, delegation, the model registry, paging; every hostile
//! path with its typed error; the crate-internal slash and reputation paths driven directly;
//! value conservation across every operation; and the same operations reaching the same root.

use crate::support::*;
use commonware_runtime::{deterministic, Runner as _};
use cowboy_exec::system::runners::stake::{apply_reputation, slash, RepEvent};
use cowboy_exec::system::runners::store::Raw;
use cowboy_exec::BlockState;
use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::{GenesisParams, WEI_PER_CBY};
use cowboy_types::system::RUNNER_REGISTRY;
use cowboy_types::{Address, Receipt};
use curve25519_dalek::constants::ED25519_BASEPOINT_POINT;
use curve25519_dalek::scalar::Scalar;

const CBY: u128 = WEI_PER_CBY;

/// Small amounts and short periods, so tests fit the test accounts' 1,000 CBY and a few blocks.
fn reg_params() -> GenesisParams {
    GenesisParams {
        runner_stake_floor_wei: 100 * CBY,
        model_deposit_wei: 10 * CBY,
        runner_min_delegation_wei: CBY,
        runner_unbonding_blocks: 5,
        runner_heartbeat_timeout_blocks: 3,
        ..params()
    }
}

fn text(s: &str) -> Value {
    Value::Text(s.into())
}

fn int(i: u64) -> Value {
    Value::Uint(i)
}

fn big(i: u128) -> Value {
    Value::from_u128(i)
}

fn bytes(b: &[u8]) -> Value {
    Value::Bytes(b.to_vec())
}

fn map(entries: Vec<(&str, Value)>) -> Value {
    Value::Map(entries.into_iter().map(|(k, v)| (text(k), v)).collect())
}

fn get<'a>(v: &'a Value, name: &str) -> &'a Value {
    let Value::Map(m) = v else {
        panic!("not a map: {v:?}")
    };
    m.iter()
        .find(|(k, _)| *k == text(name))
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no field {name} in {v:?}"))
}

/// A valid Ed25519 public key for runner `i`.
fn ed_key(i: u64) -> Vec<u8> {
    (ED25519_BASEPOINT_POINT * Scalar::from(i + 1))
        .compress()
        .0
        .to_vec()
}

fn model_hash(i: u8) -> [u8; 32] {
    cowboy_types::keccak256(&[b'm', i]).0
}

fn http_caps() -> Value {
    map(vec![
        ("job_types", Value::Array(vec![text("http")])),
        ("domains", Value::Array(vec![text("api.example.com")])),
    ])
}

fn http_rates(base: u64) -> Value {
    Value::Array(vec![map(vec![
        ("job_type", text("http")),
        ("base", int(base)),
    ])])
}

fn llm_caps(models: &[[u8; 32]]) -> Value {
    map(vec![
        ("job_types", Value::Array(vec![text("llm"), text("mcp")])),
        (
            "models",
            Value::Array(models.iter().map(|m| bytes(m)).collect()),
        ),
        ("tee", Value::Bool(true)),
    ])
}

fn llm_rates(models: &[[u8; 32]]) -> Value {
    let mut v: Vec<Value> = models
        .iter()
        .map(|m| {
            map(vec![
                ("job_type", text("llm")),
                ("model", bytes(m)),
                ("base", int(100)),
                ("per_token", int(3)),
            ])
        })
        .collect();
    v.push(map(vec![("job_type", text("mcp")), ("per_ms", int(2))]));
    Value::Array(v)
}

/// `register` arguments for key `i` with an HTTP profile.
fn http_register(i: u64) -> Vec<Value> {
    vec![
        bytes(&ed_key(i)),
        http_caps(),
        http_rates(5),
        int(4),
        int(0),
        int(500),
    ]
}

fn ret(r: &Receipt) -> Value {
    cbor::decode(&r.return_data).expect("return data is canonical CBOR")
}

/// A chain with `n` funded keys, one transaction per block, tracking nonces and burns.
struct H {
    chain: Chain,
    nonce: Vec<u64>,
    burned: u128,
    models: Vec<[u8; 32]>,
    delegators: Vec<(Address, Address)>,
}

impl H {
    async fn new(ctx: deterministic::Context, n: u32, p: GenesisParams) -> H {
        let mut chain = Chain::new(ctx, n).await;
        chain.params = p;
        H {
            chain,
            nonce: vec![0; n as usize],
            burned: 0,
            models: Vec::new(),
            delegators: Vec::new(),
        }
    }

    fn addr(i: u32) -> Address {
        key(i).address()
    }

    async fn tx(
        &mut self,
        k: u32,
        to: Option<Address>,
        value: u128,
        payload: cowboy_types::tx::Payload,
    ) -> Receipt {
        let n = self.nonce[k as usize];
        self.nonce[k as usize] += 1;
        let tx = signed(&key(k), n, to, value, payload);
        let mut out = self.chain.block(&[tx]).await.expect("valid block");
        self.burned += out.usage.burned;
        out.receipts.remove(0)
    }

    async fn send(&mut self, k: u32, value: u128, handler: &str, args: Vec<Value>) -> Receipt {
        self.tx(k, Some(RUNNER_REGISTRY), value, call(handler, args))
            .await
    }

    async fn ok(&mut self, k: u32, value: u128, handler: &str, args: Vec<Value>) -> Receipt {
        let r = self.send(k, value, handler, args).await;
        assert!(r.success, "{handler}: {:?}", r.error);
        r
    }

    async fn fails(&mut self, k: u32, value: u128, handler: &str, args: Vec<Value>) -> String {
        let root_registry = self.chain.account(&RUNNER_REGISTRY).await.balance;
        let r = self.send(k, value, handler, args).await;
        let e = r
            .error
            .clone()
            .unwrap_or_else(|| panic!("{handler} succeeded"));
        assert!(r.events.is_empty(), "a failed call's events are reverted");
        assert_eq!(
            self.chain.account(&RUNNER_REGISTRY).await.balance,
            root_registry,
            "a failed call moves no stake"
        );
        format!("{}: {}", e.class, e.message)
    }

    async fn empty_blocks(&mut self, n: u64) {
        for _ in 0..n {
            let out = self.chain.block(&[]).await.expect("empty block");
            self.burned += out.usage.burned;
        }
    }

    /// A read-only call (the RPC's `cowboy_call`), on the committed state.
    fn query(&mut self, handler: &str, args: Vec<Value>) -> Value {
        let tx = signed(&key(0), 0, Some(RUNNER_REGISTRY), 0, call(handler, args));
        let env = self.chain.env();
        let mut bs = BlockState::new(self.chain.state.batch());
        let sim = cowboy_exec::simulate(&mut bs, &self.chain.params, &env, key(0).address(), &tx)
            .expect("state")
            .expect("valid");
        assert!(sim.receipt.success, "{handler}: {:?}", sim.receipt.error);
        cbor::decode(&sim.receipt.return_data).expect("canonical")
    }

    fn runner(&mut self, i: u32) -> Value {
        self.query("get_runner", vec![bytes(&Self::addr(i).0)])
    }

    /// Σ balances of every account the tests touch.
    async fn total(&self, n: u32) -> u128 {
        let mut t = 0;
        for i in 0..n {
            t += self.chain.account(&Self::addr(i)).await.balance;
        }
        t += self.chain.account(&RUNNER_REGISTRY).await.balance;
        t + self.chain.account(&self.chain.proposer).await.balance
    }

    /// What the registry's records say it holds: stakes, pools and model deposits.
    fn held(&mut self, n: u32) -> u128 {
        let mut t = 0;
        for i in 0..n {
            let r = self.runner(i);
            if r != Value::Null {
                for f in ["self_bond", "delegated", "delegated_unbonding"] {
                    t += get(&r, f).as_u128().expect("amount");
                }
            }
        }
        for m in self.models.clone() {
            let v = self.query("model", vec![bytes(&m)]);
            if v != Value::Null {
                t += get(&v, "deposit").as_u128().expect("deposit");
            }
        }
        t
    }

    /// Value is conserved: Σ balances + burned fees is what genesis gave, and the registry's
    /// balance is exactly what its records say it holds.
    async fn check_conservation(&mut self, n: u32) {
        assert_eq!(self.total(n).await + self.burned, u128::from(n) * FUNDS);
        let held = self.held(n);
        assert_eq!(self.chain.account(&RUNNER_REGISTRY).await.balance, held);
    }
}

#[test]
fn register_update_heartbeat_and_health() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut h = H::new(ctx, 2, reg_params()).await;
        let m = model_hash(1);
        h.models.push(m);
        let r = h
            .ok(
                1,
                10 * CBY,
                "register_model",
                vec![bytes(&m), map(vec![("name", text("llama-3-8b"))])],
            )
            .await;
        assert_eq!(r.events[0].topic, "ModelRegistered");
        assert_eq!(r.events[0].emitter, RUNNER_REGISTRY);
        let v = h.query("model", vec![bytes(&m)]);
        assert_eq!(get(&v, "publisher"), &bytes(&H::addr(1).0));
        assert_eq!(get(&v, "retired"), &Value::Bool(false));

        let args = vec![
            bytes(&ed_key(0)),
            llm_caps(&[m]),
            llm_rates(&[m]),
            int(8),
            big(100 * CBY),
            int(1_000),
        ];
        // 1.5 × max_job_value = 150 CBY is above the 100 CBY floor.
        let e = h.fails(0, 149 * CBY, "register", args.clone()).await;
        assert!(e.starts_with("StakeTooLow"), "{e}");
        let r = h.ok(0, 150 * CBY, "register", args).await;
        assert_eq!(r.events.len(), 1);
        assert_eq!(r.events[0].topic, "RunnerRegistered");
        assert!(
            r.cycles_used > 10_000 + 20_000,
            "base price charged: {}",
            r.cycles_used
        );
        let reg_height = h.chain.height;

        let v = h.runner(0);
        assert_eq!(get(&v, "status"), &text("active"));
        assert_eq!(get(&v, "self_bond"), &big(150 * CBY));
        assert_eq!(get(&v, "effective_stake"), &big(150 * CBY));
        assert_eq!(get(&v, "reputation"), &int(70));
        assert_eq!(get(&v, "key"), &bytes(&ed_key(0)));
        assert_eq!(
            get(&v, "job_types"),
            &Value::Array(vec![text("llm"), text("mcp")])
        );
        assert_eq!(get(&v, "tee"), &Value::Bool(true));
        assert_eq!(get(&v, "last_heartbeat"), &int(reg_height));
        assert_eq!(get(&v, "healthy"), &Value::Bool(true));
        let rates = get(&v, "rates");
        let Value::Array(rates) = rates else { panic!() };
        assert_eq!(rates.len(), 2);
        assert_eq!(get(&rates[0], "per_token"), &int(3));

        // Health is computed on read: three blocks after the last heartbeat it still holds,
        // the fourth it lapses; a heartbeat restores it.
        h.empty_blocks(2).await;
        assert_eq!(get(&h.runner(0), "healthy"), &Value::Bool(true));
        h.empty_blocks(1).await;
        assert_eq!(get(&h.runner(0), "healthy"), &Value::Bool(false));
        let registry = cowboy_exec::system::lookup(&RUNNER_REGISTRY).expect("registered");
        assert_eq!(registry.lane("heartbeat"), cowboy_exec::lanes::Lane::Runner);
        assert_eq!(registry.lane("register"), cowboy_exec::lanes::Lane::User);
        let r = h.ok(0, 0, "heartbeat", vec![]).await;
        assert_eq!(r.events[0].topic, "RunnerHeartbeat");
        let v = h.runner(0);
        assert_eq!(get(&v, "healthy"), &Value::Bool(true));
        assert_eq!(get(&v, "last_heartbeat"), &int(h.chain.height));

        // Update to an HTTP profile with a larger job value than the stake covers: refused;
        // within the stake: stored.
        let upd = |mjv: u128| vec![http_caps(), http_rates(9), int(2), big(mjv), int(0)];
        let e = h.fails(0, 0, "update", upd(101 * CBY)).await;
        assert!(e.starts_with("StakeTooLow"), "{e}");
        let r = h.ok(0, 0, "update", upd(100 * CBY)).await;
        assert_eq!(r.events[0].topic, "RunnerUpdated");
        let v = h.runner(0);
        assert_eq!(get(&v, "job_types"), &Value::Array(vec![text("http")]));
        assert_eq!(
            get(&v, "domains"),
            &Value::Array(vec![text("api.example.com")])
        );
        assert_eq!(get(&v, "max_concurrent_jobs"), &int(2));
        assert_eq!(get(&v, "key"), &bytes(&ed_key(0)), "the key is kept");
        assert_eq!(get(&v, "registered_at"), &int(reg_height));

        // More stake.
        let r = h.ok(0, 5 * CBY, "add_stake", vec![]).await;
        assert_eq!(ret(&r), big(155 * CBY));
        h.check_conservation(2).await;
    });
}

#[test]
fn hostile_calls_fail_with_typed_errors_and_change_nothing() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut h = H::new(ctx, 3, reg_params()).await;
        let m = model_hash(1);
        h.models.push(m);
        let meta = map(vec![("name", text("m"))]);
        // The model deposit is exact, metadata bounded, a model registered once, retired by
        // its publisher only.
        let e = h
            .fails(1, 9 * CBY, "register_model", vec![bytes(&m), meta.clone()])
            .await;
        assert!(e.starts_with("WrongDeposit"), "{e}");
        let e = h
            .fails(
                1,
                10 * CBY,
                "register_model",
                vec![bytes(&m), bytes(&[0; 1100])],
            )
            .await;
        assert!(e.starts_with("BadField: metadata"), "{e}");
        h.ok(1, 10 * CBY, "register_model", vec![bytes(&m), meta.clone()])
            .await;
        let e = h
            .fails(2, 10 * CBY, "register_model", vec![bytes(&m), meta.clone()])
            .await;
        assert!(e.starts_with("ModelExists"), "{e}");
        let e = h.fails(2, 0, "retire_model", vec![bytes(&m)]).await;
        assert!(e.starts_with("NotPublisher"), "{e}");

        let stake = 100 * CBY;
        let with =
            |key: Value, caps: Value, rates: Value| vec![key, caps, rates, int(4), int(0), int(0)];
        let good_key = bytes(&ed_key(0));
        let mut off_curve = [0u8; 32];
        off_curve[0] = 2;
        let mut identity = [0u8; 32];
        identity[0] = 1;
        let cases: Vec<(Vec<Value>, &str)> = vec![
            (
                with(bytes(&[1; 31]), http_caps(), http_rates(1)),
                "BadKey: runner key: must be 32 bytes",
            ),
            (
                with(bytes(&off_curve), http_caps(), http_rates(1)),
                "BadKey: runner key: not a point",
            ),
            (
                with(bytes(&identity), http_caps(), http_rates(1)),
                "BadKey: runner key: a small-order",
            ),
            (
                with(
                    good_key.clone(),
                    llm_caps(&[model_hash(9)]),
                    llm_rates(&[model_hash(9)]),
                ),
                "UnknownModel",
            ),
            (
                with(
                    good_key.clone(),
                    map(vec![("job_types", Value::Array(vec![text("gpu")]))]),
                    http_rates(1),
                ),
                "BadField: capabilities.job_types[0]",
            ),
            (
                with(
                    good_key.clone(),
                    map(vec![("job_types", Value::Array(vec![]))]),
                    http_rates(1),
                ),
                "BadField: capabilities.job_types",
            ),
            (
                with(
                    good_key.clone(),
                    map(vec![
                        ("job_types", Value::Array(vec![text("http")])),
                        ("domains", Value::Array(vec![text("API.example.com")])),
                    ]),
                    http_rates(1),
                ),
                "BadField: capabilities.domains[0]",
            ),
            (
                with(
                    good_key.clone(),
                    map(vec![("job_types", Value::Array(vec![text("http")]))]),
                    http_rates(1),
                ),
                "BadField: capabilities.domains: an http runner declares its domains",
            ),
            (
                with(
                    good_key.clone(),
                    map(vec![
                        ("job_types", Value::Array(vec![text("llm")])),
                        (
                            "models",
                            Value::Array((0..33).map(|i| bytes(&model_hash(i))).collect()),
                        ),
                    ]),
                    Value::Array(vec![]),
                ),
                "TooMany: capabilities.models has 33 entries, the limit is 32",
            ),
            (
                with(good_key.clone(), llm_caps(&[m]), http_rates(1)),
                "BadField: rates[0].job_type: http is not a declared job type",
            ),
            (
                with(good_key.clone(), http_caps(), Value::Array(vec![])),
                "BadField: rates: no rate for job type http",
            ),
            (
                with(
                    good_key.clone(),
                    http_caps(),
                    Value::Array(vec![
                        map(vec![("job_type", text("http"))]),
                        map(vec![("job_type", text("http")), ("base", int(2))]),
                    ]),
                ),
                "BadField: rates: prices a (job type, model) twice",
            ),
            (
                with(
                    good_key.clone(),
                    http_caps(),
                    Value::Array(vec![map(vec![
                        ("job_type", text("http")),
                        ("model", bytes(&m)),
                    ])]),
                ),
                "BadField: rates[0].model: only llm rates name a model",
            ),
            (
                vec![
                    good_key.clone(),
                    http_caps(),
                    http_rates(1),
                    int(0),
                    int(0),
                    int(0),
                ],
                "BadField: max_concurrent_jobs",
            ),
            (
                vec![
                    good_key.clone(),
                    http_caps(),
                    http_rates(1),
                    int(4),
                    int(0),
                    int(10_001),
                ],
                "BadField: commission_bps",
            ),
            (vec![good_key.clone(), http_caps()], "TypeError"),
        ];
        for (args, want) in cases {
            let e = h.fails(0, stake, "register", args).await;
            assert!(e.starts_with(want), "want {want}, got {e}");
        }
        assert_eq!(h.runner(0), Value::Null, "nothing was registered");

        // A retired model cannot be newly declared.
        h.ok(1, 0, "retire_model", vec![bytes(&m)]).await;
        let e = h
            .fails(
                0,
                stake,
                "register",
                with(good_key.clone(), llm_caps(&[m]), llm_rates(&[m])),
            )
            .await;
        assert!(e.starts_with("RetiredModel"), "{e}");
        let e = h.fails(1, 0, "retire_model", vec![bytes(&m)]).await;
        assert!(e.starts_with("RetiredModel"), "{e}");

        // Calls that need a registration, from an address that has none.
        for handler in ["heartbeat", "begin_unbond", "withdraw"] {
            let e = h.fails(2, 0, handler, vec![]).await;
            assert!(e.starts_with("NotRegistered"), "{handler}: {e}");
        }
        let e = h.fails(2, CBY, "add_stake", vec![]).await;
        assert!(e.starts_with("NotRegistered"), "{e}");
        let e = h
            .fails(
                2,
                0,
                "update",
                vec![http_caps(), http_rates(1), int(1), int(0), int(0)],
            )
            .await;
        assert!(e.starts_with("NotRegistered"), "{e}");

        // Register; a second registration is refused; value where none is allowed is refused.
        h.ok(0, stake, "register", http_register(0)).await;
        let e = h.fails(0, stake, "register", http_register(0)).await;
        assert!(e.starts_with("AlreadyRegistered"), "{e}");
        let e = h.fails(0, 1, "heartbeat", vec![]).await;
        assert!(e.starts_with("ValueNotAllowed"), "{e}");
        let e = h.fails(0, 0, "add_stake", vec![]).await;
        assert!(e.starts_with("BadField: value"), "{e}");
        let e = h.fails(0, 0, "withdraw", vec![]).await;
        assert!(e.starts_with("WrongStatus"), "{e}");
        let e = h.fails(0, 0, "no_such", vec![]).await;
        assert!(e.starts_with("NoSuchHandler"), "{e}");
        // Paging bounds.
        let e = h.fails(0, 0, "runners", vec![int(0), int(101)]).await;
        assert!(e.starts_with("PageTooLarge"), "{e}");
        h.check_conservation(3).await;
    });
}

#[test]
fn registry_full_refuses_a_candidate_past_the_limit() {
    deterministic::Runner::default().start(|ctx| async move {
        let p = GenesisParams {
            runner_max_active: 1,
            ..reg_params()
        };
        let mut h = H::new(ctx, 2, p).await;
        h.ok(0, 100 * CBY, "register", http_register(0)).await;
        let e = h.fails(1, 100 * CBY, "register", http_register(1)).await;
        assert!(e.starts_with("RegistryFull"), "{e}");
        // Leaving candidacy frees the slot at once.
        h.ok(0, 0, "begin_unbond", vec![]).await;
        h.ok(1, 100 * CBY, "register", http_register(1)).await;
    });
}

#[test]
fn unbonding_leaves_candidacy_at_once_and_withdraws_after_the_period() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut h = H::new(ctx, 2, reg_params()).await;
        h.ok(0, 120 * CBY, "register", http_register(0)).await;
        let r = h.ok(0, 0, "begin_unbond", vec![]).await;
        let release = h.chain.height + 5;
        assert_eq!(ret(&r), int(release));
        assert_eq!(r.events[0].topic, "UnbondingBegun");
        let v = h.runner(0);
        assert_eq!(get(&v, "status"), &text("unbonding"));
        assert_eq!(get(&v, "healthy"), &Value::Bool(false), "not a candidate");
        let e = h.fails(0, 0, "heartbeat", vec![]).await;
        assert!(e.starts_with("WrongStatus"), "{e}");
        let e = h.fails(0, 0, "begin_unbond", vec![]).await;
        assert!(e.starts_with("WrongStatus"), "{e}");
        // Early: refused with the release height.
        let e = h.fails(0, 0, "withdraw", vec![]).await;
        assert!(e.contains(&format!("unbonds at height {release}")), "{e}");
        while h.chain.height + 1 < release {
            h.empty_blocks(1).await;
        }
        let before = h.chain.account(&H::addr(0)).await.balance;
        let r = h.ok(0, 0, "withdraw", vec![]).await;
        assert_eq!(ret(&r), big(120 * CBY));
        assert_eq!(
            h.chain.account(&H::addr(0)).await.balance,
            before + 120 * CBY - r.fee_paid
        );
        assert_eq!(
            h.runner(0),
            Value::Null,
            "no delegations: the records are gone"
        );
        let page = h.query("runners", vec![int(0), int(10)]);
        assert_eq!(get(&page, "total"), &int(0));
        h.check_conservation(2).await;
        // And it may register again, fresh.
        h.ok(0, 100 * CBY, "register", http_register(0)).await;
        assert_eq!(get(&h.runner(0), "reputation"), &int(70));
        h.check_conservation(2).await;
    });
}

#[test]
fn delegation_shares_limits_and_exit() {
    deterministic::Runner::default().start(|ctx| async move {
        let p = GenesisParams {
            max_delegators_per_runner: 2,
            max_active_tranches_per_delegator: 2,
            ..reg_params()
        };
        let mut h = H::new(ctx, 5, p).await;
        let runner = H::addr(0);
        let r0 = bytes(&runner.0);
        h.delegators.push((runner, H::addr(1)));
        h.ok(0, 100 * CBY, "register", http_register(0)).await;

        let e = h.fails(1, CBY - 1, "delegate", vec![r0.clone()]).await;
        assert!(e.starts_with("DelegationTooSmall"), "{e}");
        // 10% self-bond: 100 CBY carries at most 900 CBY delegated.
        let r = h.ok(1, 500 * CBY, "delegate", vec![r0.clone()]).await;
        assert_eq!(ret(&r), big(500 * CBY), "first delegation: shares 1:1");
        assert_eq!(r.events[0].topic, "Delegated");
        let e = h.fails(2, 401 * CBY, "delegate", vec![r0.clone()]).await;
        assert!(e.starts_with("SelfBondTooLow"), "{e}");
        h.ok(2, 10 * CBY, "delegate", vec![r0.clone()]).await;
        let e = h.fails(3, 10 * CBY, "delegate", vec![r0.clone()]).await;
        assert!(e.starts_with("TooManyDelegators"), "{e}");
        let e = h
            .fails(3, 10 * CBY, "delegate", vec![bytes(&H::addr(4).0)])
            .await;
        assert!(e.starts_with("NotRegistered"), "{e}");
        let v = h.runner(0);
        assert_eq!(get(&v, "effective_stake"), &big(610 * CBY));
        assert_eq!(get(&v, "delegators"), &int(2));
        let d = h.query("delegation", vec![r0.clone(), bytes(&H::addr(1).0)]);
        assert_eq!(get(&d, "value"), &big(500 * CBY));

        // Partial undelegation: a tranche; the delegation stays.
        let e = h
            .fails(1, 0, "undelegate", vec![r0.clone(), big(501 * CBY)])
            .await;
        assert!(e.starts_with("BadShares"), "{e}");
        let e = h
            .fails(3, 0, "undelegate", vec![r0.clone(), big(CBY)])
            .await;
        assert!(e.starts_with("NoDelegation"), "{e}");
        let r = h
            .ok(1, 0, "undelegate", vec![r0.clone(), big(200 * CBY)])
            .await;
        assert_eq!(ret(&r), int(0), "tranche 0");
        let release = h.chain.height + 5;
        // The delegation and one tranche fill the delegator's two slots.
        let e = h
            .fails(1, 0, "undelegate", vec![r0.clone(), big(CBY)])
            .await;
        assert!(e.starts_with("TooManyTranches"), "{e}");
        let tr = h.query("tranche", vec![bytes(&H::addr(1).0), int(0)]);
        assert_eq!(get(&tr, "value"), &big(200 * CBY));
        assert_eq!(get(&tr, "release_at"), &int(release));
        let e = h.fails(1, 0, "withdraw_delegation", vec![int(0)]).await;
        assert!(e.starts_with("StillUnbonding"), "{e}");
        let e = h.fails(1, 0, "withdraw_delegation", vec![int(7)]).await;
        assert!(e.starts_with("NoTranche"), "{e}");
        h.check_conservation(5).await;

        // The runner leaves while delegations remain: its record stays, exited; delegating
        // to it is refused.
        h.ok(0, 0, "begin_unbond", vec![]).await;
        let e = h.fails(3, 10 * CBY, "delegate", vec![r0.clone()]).await;
        assert!(e.starts_with("WrongStatus"), "{e}");
        h.empty_blocks(5).await;
        let r = h.ok(1, 0, "withdraw_delegation", vec![int(0)]).await;
        assert_eq!(ret(&r), big(200 * CBY));
        h.ok(0, 0, "withdraw", vec![]).await;
        let v = h.runner(0);
        assert_eq!(get(&v, "status"), &text("exited"));
        assert_eq!(get(&v, "effective_stake"), &big(310 * CBY));
        h.check_conservation(5).await;

        // Both delegators leave fully; once the last tranche is withdrawn the record goes.
        let r = h
            .ok(1, 0, "undelegate", vec![r0.clone(), big(300 * CBY)])
            .await;
        let t1 = ret(&r);
        let r = h
            .ok(2, 0, "undelegate", vec![r0.clone(), big(10 * CBY)])
            .await;
        let t2 = ret(&r);
        h.empty_blocks(5).await;
        h.ok(1, 0, "withdraw_delegation", vec![t1]).await;
        assert_ne!(h.runner(0), Value::Null);
        h.ok(2, 0, "withdraw_delegation", vec![t2]).await;
        assert_eq!(h.runner(0), Value::Null);
        assert_eq!(h.chain.account(&RUNNER_REGISTRY).await.balance, 0);
        h.check_conservation(5).await;
    });
}

#[test]
fn runners_pages_by_slot_and_survives_removal() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut h = H::new(ctx, 5, reg_params()).await;
        for i in 0..5 {
            h.ok(i, 100 * CBY, "register", http_register(u64::from(i)))
                .await;
        }
        let page = h.query("runners", vec![int(0), int(2)]);
        assert_eq!(get(&page, "total"), &int(5));
        assert_eq!(get(&page, "next"), &int(2));
        let Value::Array(items) = get(&page, "runners") else {
            panic!()
        };
        assert_eq!(items.len(), 2);
        assert_eq!(get(&items[0], "address"), &bytes(&H::addr(0).0));
        let page = h.query("runners", vec![int(4), int(2)]);
        assert_eq!(get(&page, "next"), &Value::Null);
        let page = h.query("runners", vec![int(9), int(2)]);
        assert_eq!(get(&page, "runners"), &Value::Array(vec![]));
        // Runner 1 leaves entirely: the last one takes its slot; every runner is still listed once.
        h.ok(1, 0, "begin_unbond", vec![]).await;
        h.empty_blocks(5).await;
        h.ok(1, 0, "withdraw", vec![]).await;
        let page = h.query("runners", vec![int(0), int(100)]);
        assert_eq!(get(&page, "total"), &int(4));
        let Value::Array(items) = get(&page, "runners") else {
            panic!()
        };
        let mut listed: Vec<Value> = items.iter().map(|i| get(i, "address").clone()).collect();
        listed.sort_by_key(cbor::encode);
        let mut want: Vec<Value> = [0, 2, 3, 4].iter().map(|i| bytes(&H::addr(*i).0)).collect();
        want.sort_by_key(cbor::encode);
        assert_eq!(listed, want);
        assert_eq!(get(&items[1], "address"), &bytes(&H::addr(4).0));
    });
}

/// The crate-internal paths the verifier and dispatcher will use, driven directly on a block's
/// state: slashing is pro rata over self-bond and both pools and moves exactly what it takes;
/// reputation stays in bounds and a non-response streak slashes.
#[test]
fn slash_and_reputation_paths() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut h = H::new(ctx, 4, reg_params()).await;
        let r0 = bytes(&H::addr(0).0);
        h.ok(0, 100 * CBY, "register", http_register(0)).await;
        h.ok(1, 300 * CBY, "delegate", vec![r0.clone()]).await;
        h.ok(1, 0, "undelegate", vec![r0.clone(), big(100 * CBY)])
            .await;
        // self 100, bonded 200, unbonding 100: slash 40 → 10 / 20 / 10.
        let params = h.chain.params.clone();
        let height = h.chain.height + 1;
        let challenger = H::addr(3);
        let mut bs = BlockState::new(h.chain.state.batch());
        let reg_before = bs.account(&RUNNER_REGISTRY).expect("read").balance;
        let ch_before = bs.account(&challenger).expect("read").balance;
        let mut raw = Raw {
            me: RUNNER_REGISTRY,
            state: &mut bs,
            params: &params,
            height,
            events: Vec::new(),
        };
        let s = slash(&mut raw, &H::addr(0), 40 * CBY, Some(&challenger)).expect("slash");
        assert_eq!(
            (s.taken, s.from_self, s.from_delegated, s.from_unbonding),
            (40 * CBY, 10 * CBY, 20 * CBY, 10 * CBY)
        );
        assert_eq!(raw.events[0].topic, "RunnerSlashed");
        // Burn all that is left and more: capped at what is slashable.
        let s = slash(&mut raw, &H::addr(0), 10_000 * CBY, None).expect("slash");
        assert_eq!(s.taken, 360 * CBY);
        // An unknown runner is a typed refusal.
        assert!(slash(&mut raw, &H::addr(2), CBY, None).is_err());
        drop(raw);
        assert_eq!(
            bs.account(&RUNNER_REGISTRY).expect("read").balance,
            reg_before - 400 * CBY
        );
        assert_eq!(
            bs.account(&challenger).expect("read").balance,
            ch_before + 40 * CBY
        );

        // Reputation on a second runner: bounded above and below, a streak slashes 1%.
        drop(bs);
        h.ok(2, 100 * CBY, "register", http_register(2)).await;
        let params = GenesisParams {
            runner_slash_threshold: 3,
            ..h.chain.params.clone()
        };
        let mut bs = BlockState::new(h.chain.state.batch());
        let mut raw = Raw {
            me: RUNNER_REGISTRY,
            state: &mut bs,
            params: &params,
            height: h.chain.height + 1,
            events: Vec::new(),
        };
        let a = H::addr(2);
        let mut last = 70;
        for _ in 0..40 {
            let c = apply_reputation(&mut raw, &a, RepEvent::Success).expect("rep");
            assert_eq!(c.before, last);
            last = c.after;
        }
        assert_eq!(last, 100, "capped at runner_max_reputation");
        let c = apply_reputation(&mut raw, &a, RepEvent::Timeout).expect("rep");
        assert_eq!((c.before, c.after), (100, 95));
        let c = apply_reputation(&mut raw, &a, RepEvent::InvalidResult).expect("rep");
        assert_eq!(c.after, 90);
        let c = apply_reputation(&mut raw, &a, RepEvent::NonResponder).expect("rep");
        assert_eq!((c.after, c.slashed.clone()), (87, None));
        apply_reputation(&mut raw, &a, RepEvent::NonResponder).expect("rep");
        let c = apply_reputation(&mut raw, &a, RepEvent::NonResponder).expect("rep");
        assert_eq!(c.after, 81);
        let s = c.slashed.expect("third consecutive non-response slashes");
        assert_eq!(s.taken, CBY, "1% of 100 CBY, burned");
        for _ in 0..40 {
            apply_reputation(&mut raw, &a, RepEvent::Timeout).expect("rep");
        }
        let c = apply_reputation(&mut raw, &a, RepEvent::Timeout).expect("rep");
        assert_eq!((c.before, c.after), (0, 0), "floored at 0");
        assert!(raw.events.iter().any(|e| e.topic == "ReputationChanged"));
    });
}

/// The same operations on two fresh chains reach the same state root after every block, and
/// value is conserved after every operation.
#[test]
fn same_operations_same_root_and_value_conserved() {
    let run = || {
        deterministic::Runner::default().start(|ctx| async move {
            let mut h = H::new(ctx, 4, reg_params()).await;
            let m = model_hash(3);
            h.models.push(m);
            let r0 = bytes(&H::addr(0).0);
            let mut roots = Vec::new();
            let ops: Vec<(u32, u128, &str, Vec<Value>)> = vec![
                (3, 10 * CBY, "register_model", vec![bytes(&m), text("m3")]),
                (
                    0,
                    100 * CBY,
                    "register",
                    vec![
                        bytes(&ed_key(0)),
                        llm_caps(&[m]),
                        llm_rates(&[m]),
                        int(4),
                        int(0),
                        int(0),
                    ],
                ),
                (1, 100 * CBY, "register", http_register(1)),
                (2, 50 * CBY, "delegate", vec![r0.clone()]),
                (0, 0, "heartbeat", vec![]),
                (2, 0, "undelegate", vec![r0.clone(), big(20 * CBY)]),
                (1, 7 * CBY, "add_stake", vec![]),
                (2, 1, "delegate", vec![r0.clone()]), // fails: too small
                (1, 0, "begin_unbond", vec![]),
                (3, 0, "retire_model", vec![bytes(&m)]),
            ];
            for (k, v, handler, args) in ops {
                h.send(k, v, handler, args).await;
                h.check_conservation(4).await;
                roots.push(h.chain.root());
            }
            h.empty_blocks(5).await;
            h.ok(1, 0, "withdraw", vec![]).await;
            h.ok(2, 0, "withdraw_delegation", vec![int(0)]).await;
            h.check_conservation(4).await;
            roots.push(h.chain.root());
            roots
        })
    };
    assert_eq!(run(), run());
}

/// An actor that publishes and retires a model through messages, paying the deposit from its
/// own balance.
const PUBLISHER: &str = r#"
from cowboy_sdk import actor, send_message


@actor
class Publisher:
    def publish(self, registry, h, deposit):
        return send_message(registry, "register_model", [h, "via an actor"], deposit)

    def retire(self, registry, h):
        return send_message(registry, "retire_model", [h])
"#;

/// Actors reach the registry by message like any actor: the message's value is the deposit,
/// the actor is the publisher and gets the refund, and a refused message fails the whole
/// transaction naming the message.
#[test]
fn actors_reach_the_registry_by_message() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut h = H::new(ctx, 1, reg_params()).await;
        let r = h
            .tx(
                0,
                None,
                30 * CBY,
                deploy(PUBLISHER, 1, Value::Array(vec![])),
            )
            .await;
        assert!(r.success, "{:?}", r.error);
        let Value::Bytes(a) = ret(&r) else { panic!() };
        let actor = Address(a.as_slice().try_into().expect("20 bytes"));
        let m = model_hash(7);
        let reg = text(&RUNNER_REGISTRY.to_checksum());
        let r = h
            .tx(
                0,
                Some(actor),
                0,
                call("publish", vec![reg.clone(), bytes(&m), big(9 * CBY)]),
            )
            .await;
        let e = r.error.expect("wrong deposit");
        assert_eq!(e.class, "WrongDeposit");
        assert!(e.message.contains("in message"), "{}", e.message);
        assert_eq!(h.chain.account(&actor).await.balance, 30 * CBY);
        let r = h
            .tx(
                0,
                Some(actor),
                0,
                call("publish", vec![reg.clone(), bytes(&m), big(10 * CBY)]),
            )
            .await;
        assert!(r.success, "{:?}", r.error);
        assert!(r
            .events
            .iter()
            .any(|e| e.topic == "ModelRegistered" && e.emitter == RUNNER_REGISTRY));
        assert_eq!(h.chain.account(&actor).await.balance, 20 * CBY);
        let v = h.query("model", vec![bytes(&m)]);
        assert_eq!(get(&v, "publisher"), &bytes(&actor.0));
        assert_eq!(get(&v, "metadata"), &text("via an actor"));
        let r = h
            .tx(0, Some(actor), 0, call("retire", vec![reg, bytes(&m)]))
            .await;
        assert!(r.success, "{:?}", r.error);
        assert_eq!(h.chain.account(&actor).await.balance, 30 * CBY);
        assert_eq!(h.chain.account(&RUNNER_REGISTRY).await.balance, 0);
    });
}

/// A seeded random mix of every registry operation (valid and not) from five accounts, with
/// slashes committed between blocks: after each step Σ balances + burned is what genesis gave
/// and the registry holds exactly its records' stake, pools and deposits.
#[test]
fn random_operations_conserve_value() {
    deterministic::Runner::default().start(|ctx| async move {
        let p = GenesisParams {
            runner_unbonding_blocks: 3,
            max_delegators_per_runner: 3,
            max_active_tranches_per_delegator: 3,
            ..reg_params()
        };
        let n = 5u32;
        let mut h = H::new(ctx, n, p).await;
        for i in 0..3 {
            h.models.push(model_hash(i));
        }
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let (mut ok, mut failed, mut slashes) = (0, 0, 0);
        let mut succeeded = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let k = next(u64::from(n)) as u32;
            let other = bytes(&H::addr(next(u64::from(n)) as u32).0);
            let amount = (1 + next(60)) as u128 * CBY;
            let m = model_hash(next(3) as u8);
            let kind = next(12);
            let r = match kind {
                0 | 1 => {
                    h.send(
                        k,
                        amount + 90 * CBY,
                        "register",
                        http_register(u64::from(k)),
                    )
                    .await
                }
                2 => h.send(k, 0, "heartbeat", vec![]).await,
                3 => h.send(k, amount / 10, "add_stake", vec![]).await,
                4 | 5 => h.send(k, amount, "delegate", vec![other]).await,
                6 => {
                    let shares = big(amount / 4);
                    h.send(k, 0, "undelegate", vec![other, shares]).await
                }
                7 => {
                    let t = int(next(2));
                    h.send(k, 0, "withdraw_delegation", vec![t]).await
                }
                8 => h.send(k, 0, "begin_unbond", vec![]).await,
                9 => h.send(k, 0, "withdraw", vec![]).await,
                10 => {
                    if next(2) == 0 {
                        h.send(k, 10 * CBY, "register_model", vec![bytes(&m), int(1)])
                            .await
                    } else {
                        h.send(k, 0, "retire_model", vec![bytes(&m)]).await
                    }
                }
                _ => {
                    // A slash of a random runner, committed as its own height; half go to an
                    // account, half are burned.
                    let params = h.chain.params.clone();
                    let height = h.chain.height + 1;
                    let to = (next(2) == 0).then(|| H::addr(k));
                    let mut bs = BlockState::new(h.chain.state.batch());
                    let mut raw = Raw {
                        me: RUNNER_REGISTRY,
                        state: &mut bs,
                        params: &params,
                        height,
                        events: Vec::new(),
                    };
                    let victim = H::addr(next(u64::from(n)) as u32);
                    if let Ok(s) = slash(&mut raw, &victim, amount, to.as_ref()) {
                        slashes += 1;
                        if to.is_none() {
                            h.burned += s.taken;
                        }
                    }
                    let changes = bs.finish();
                    h.chain.height += 1;
                    h.chain
                        .state
                        .commit(h.chain.height, changes)
                        .await
                        .expect("commit");
                    h.check_conservation(n).await;
                    continue;
                }
            };
            if r.success {
                ok += 1;
                succeeded.insert(kind);
            } else {
                failed += 1;
            }
            h.check_conservation(n).await;
        }
        // The mix exercises both outcomes.
        assert!(
            ok > 20 && failed > 20 && slashes > 3,
            "{ok} {failed} {slashes}"
        );
        // Registration, delegation, undelegation, tranche and self-bond withdrawal all happen.
        for kinds in [&[0, 1][..], &[4, 5], &[6], &[7], &[9]] {
            assert!(
                kinds.iter().any(|k| succeeded.contains(k)),
                "{kinds:?}: {succeeded:?}"
            );
        }
    });
}

/// The optional `endpoint` in a profile's capabilities (where the runner takes other runners'
/// results when it aggregates): accepted and shown by `get_runner`, replaced or dropped by
/// `update`, and refused when malformed or too long, changing nothing. A profile without one
/// has no `endpoint` key at all (its encoding is what it was before the field existed).
#[test]
fn endpoint_is_declared_checked_and_updated() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut h = H::new(ctx, 2, reg_params()).await;
        let with_endpoint = |url: Value| {
            map(vec![
                ("job_types", Value::Array(vec![text("http")])),
                ("domains", Value::Array(vec![text("api.example.com")])),
                ("endpoint", url),
            ])
        };
        let register = |caps: Value| {
            vec![
                bytes(&ed_key(0)),
                caps,
                http_rates(5),
                int(4),
                int(0),
                int(500),
            ]
        };
        let too_long = format!("https://{}", "a".repeat(249));
        for (url, why) in [
            (
                text("ftp://runner.example.com"),
                "must start with http:// or https://",
            ),
            (text("http://"), "must name a host"),
            (text("http://a b"), "only printable ASCII"),
            (text(&too_long), "must be 1 to 256 bytes"),
            (int(7), "must be text"),
        ] {
            let e = h
                .fails(0, 100 * CBY, "register", register(with_endpoint(url)))
                .await;
            assert!(
                e.starts_with("BadField: capabilities.endpoint") && e.contains(why),
                "{e}"
            );
            assert_eq!(
                h.runner(0),
                Value::Null,
                "a refused registration leaves nothing"
            );
        }

        let url = "http://127.0.0.1:9400";
        h.ok(0, 100 * CBY, "register", register(with_endpoint(text(url))))
            .await;
        assert_eq!(get(&h.runner(0), "endpoint"), &text(url));

        // Updating to a malformed one changes nothing; a good one replaces it; leaving it out
        // drops it.
        let update = |caps: Value| vec![caps, http_rates(5), int(4), int(0), int(500)];
        let e = h
            .fails(0, 0, "update", update(with_endpoint(text("http://:80"))))
            .await;
        assert!(e.starts_with("BadField: capabilities.endpoint"), "{e}");
        assert_eq!(get(&h.runner(0), "endpoint"), &text(url));
        let longest = format!("https://{}", "b".repeat(248));
        h.ok(0, 0, "update", update(with_endpoint(text(&longest))))
            .await;
        assert_eq!(get(&h.runner(0), "endpoint"), &text(&longest));
        h.ok(0, 0, "update", update(http_caps())).await;
        let Value::Map(fields) = h.runner(0) else {
            panic!("a runner record is a map")
        };
        assert!(
            !fields.iter().any(|(k, _)| *k == text("endpoint")),
            "no endpoint key without an endpoint"
        );
        h.check_conservation(2).await;
    });
}
