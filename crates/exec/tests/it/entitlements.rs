//! The entitlement registry at `0x…07` end to end over real state (CIP-2 §7): grants by a
//! scope's authority only, every refusal typed and changing nothing, the 256-record and
//! 64-role limits, delegation in strict subsets to depth 5 and the chain's validity, expiry
//! with lazy cleanup, uses, amounts and rate limits, revocation, roles, the §7.4 prices, and a
//! pool-restricted job whose candidates are exactly the pool's members in force.

use crate::dispatcher::{
    bytes, get, hash_of, int, job_params, map, ret, spec_with, verification, D,
};
use commonware_runtime::{deterministic, Runner as _};
use cowboy_types::cbor::Value;
use cowboy_types::entitlement::{entitlement_id, Action, Constraints, Scope};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::ENTITLEMENT_REGISTRY as REG;
use cowboy_types::{Address, Hash32, Receipt};

fn addr_v(a: &Address) -> Value {
    bytes(&a.0)
}

fn pool(id: &str) -> (Value, Value) {
    (
        Scope::RunnerPool(id.as_bytes().to_vec()).to_value(),
        Action::RunnerJoinPool(id.as_bytes().to_vec()).to_value(),
    )
}

fn ns(id: &str) -> Value {
    Scope::Namespace(id.as_bytes().to_vec()).to_value()
}

fn custom(c: &str) -> Value {
    Action::Custom(c.as_bytes().to_vec()).to_value()
}

fn delegatable(depth: u8) -> Value {
    Constraints {
        delegatable: depth > 0,
        delegation_depth_max: depth,
        revocable: true,
        ..Default::default()
    }
    .to_value()
}

impl D {
    async fn ent(&mut self, k: u32, handler: &str, args: Vec<Value>) -> Receipt {
        self.send(k, REG, 0, handler, args).await
    }

    async fn ok(&mut self, k: u32, handler: &str, args: Vec<Value>) -> Value {
        let r = self.ent(k, handler, args).await;
        assert!(r.success, "{handler}: {:?}", r.error);
        ret(&r)
    }

    /// The call fails with `class`; nothing of it remains (events reverted, the sender's
    /// records unchanged).
    async fn refused(&mut self, k: u32, handler: &str, args: Vec<Value>, class: &str) -> String {
        let who = D::addr(k);
        let before = self.held(&who);
        let r = self.ent(k, handler, args).await;
        let e = r
            .error
            .clone()
            .unwrap_or_else(|| panic!("{handler} succeeded"));
        assert_eq!(e.class, class, "{}", e.message);
        assert!(r.events.is_empty(), "a refused call's events are reverted");
        assert_eq!(self.held(&who), before, "a refused call changes nothing");
        e.message
    }

    /// Key `k` submits `spec` with the base spec's escrow.
    async fn submit_as(&mut self, k: u32, spec: Value) -> Receipt {
        let to = cowboy_types::system::JOB_DISPATCHER;
        self.send(k, to, 1_010, "submit_job", vec![spec]).await
    }

    fn held(&mut self, a: &Address) -> Value {
        self.query(REG, "entitlements_of", vec![addr_v(a), int(0), int(100)])
    }

    fn check(&mut self, a: &Address, scope: Value, action: Value) -> bool {
        self.query(REG, "check", vec![addr_v(a), scope, action]) == Value::Bool(true)
    }

    fn count(&mut self, a: &Address) -> u64 {
        get(&self.held(a), "total").as_u64().expect("int")
    }
}

fn params() -> GenesisParams {
    job_params()
}

#[test]
fn entitle_grants_come_from_the_scope_authority_and_refusals_change_nothing() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 4, params()).await;
        let (a0, a1, a2) = (D::addr(0), D::addr(1), D::addr(2));
        let (ps, pa) = pool("gpu");

        // The first grant in a pool claims it; the receipt pays the §7.4 price on top of the
        // bytes stored.
        let args = vec![addr_v(&a1), ps.clone(), pa.clone(), Value::Map(vec![])];
        let r = d.ent(0, "grant", args).await;
        assert!(r.success, "{:?}", r.error);
        let id = hash_of(&ret(&r));
        assert_eq!(
            id,
            entitlement_id(
                &a1,
                &Scope::RunnerPool(b"gpu".to_vec()),
                &Action::RunnerJoinPool(b"gpu".to_vec()),
                None
            )
        );
        let topics: Vec<&str> = r.events.iter().map(|e| e.topic.as_str()).collect();
        assert_eq!(topics, ["ScopeClaimed", "EntitlementGranted"]);
        assert!(
            r.cycles_used >= 10_000 + 5_000 && r.cells_used >= 500,
            "{} / {}",
            r.cycles_used,
            r.cells_used
        );
        assert!(d.check(&a1, ps.clone(), pa.clone()));
        assert!(!d.check(&a2, ps.clone(), pa.clone()));
        let got = d.query(REG, "get", vec![bytes(&id.0)]);
        assert_eq!(get(&got, "in_force"), &Value::Bool(true));
        assert_eq!(d.count(&a1), 1);

        // Somebody else may not grant in the claimed pool, in another's actor scope, or
        // globally (governance only).
        let m = d
            .refused(
                2,
                "grant",
                vec![addr_v(&a2), ps.clone(), pa.clone(), Value::Map(vec![])],
                "NotAuthority",
            )
            .await;
        assert!(m.contains(&a0.to_checksum()), "{m}");
        let other_actor = Scope::Actor(a0).to_value();
        d.refused(
            2,
            "grant",
            vec![
                addr_v(&a2),
                other_actor,
                Action::ActorSendMessage.to_value(),
                Value::Map(vec![]),
            ],
            "NotAuthority",
        )
        .await;
        d.refused(
            2,
            "grant",
            vec![
                addr_v(&a2),
                Scope::Global.to_value(),
                Action::All.to_value(),
                Value::Map(vec![]),
            ],
            "NotAuthority",
        )
        .await;
        // An actor grants in its own scope.
        d.ok(
            2,
            "grant",
            vec![
                addr_v(&a1),
                Scope::Actor(a2).to_value(),
                Action::ActorSendMessage.to_value(),
                Value::Map(vec![]),
            ],
        )
        .await;

        // One live record per (grantee, scope, action).
        let m = d
            .refused(
                0,
                "grant",
                vec![addr_v(&a1), ps.clone(), pa.clone(), Value::Map(vec![])],
                "AlreadyHeld",
            )
            .await;
        assert!(m.contains(&id.to_hex()), "{m}");

        // Malformed and inconsistent arguments, each naming its field.
        let t = |s: &str| Value::Text(s.into());
        let bad_constraints = [
            (
                map(vec![
                    ("delegation_depth_max", int(6)),
                    ("delegatable", Value::Bool(true)),
                ]),
                "constraints.delegation_depth_max",
            ),
            (
                map(vec![("delegatable", Value::Bool(true))]),
                "constraints.delegatable",
            ),
            (map(vec![("used_count", int(1))]), "constraints.used_count"),
            (
                map(vec![("valid_until", int(1))]),
                "constraints.valid_until",
            ),
            (
                map(vec![("valid_from", int(90)), ("valid_until", int(80))]),
                "constraints.valid_from",
            ),
            (map(vec![("forever", Value::Bool(true))]), "constraints"),
        ];
        for (c, field) in bad_constraints {
            let m = d
                .refused(
                    0,
                    "grant",
                    vec![addr_v(&a2), ps.clone(), pa.clone(), c],
                    "BadArgument",
                )
                .await;
            assert!(m.starts_with(field), "{m}");
        }
        let m = d
            .refused(
                0,
                "grant",
                vec![
                    addr_v(&a2),
                    Value::Array(vec![t("planet")]),
                    pa.clone(),
                    Value::Map(vec![]),
                ],
                "BadArgument",
            )
            .await;
        assert!(m.starts_with("scope"), "{m}");
        let r = d.send(0, REG, 5, "get", vec![bytes(&id.0)]).await;
        assert_eq!(r.error.expect("refused").class, "ValueNotAllowed");
        d.check_conservation().await;
    });
}

#[test]
fn entitle_the_per_address_limits_are_256_records_and_64_roles() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 3, params()).await;
        let a1 = D::addr(1);
        let p = d.chain.params.clone();
        assert_eq!(
            (
                p.entitlement_max_per_address,
                p.entitlement_max_roles_per_address
            ),
            (256, 64)
        );
        for chunk in 0..4u64 {
            let txs: Vec<_> = (0..64u64)
                .map(|i| {
                    let n = format!("ns{}", chunk * 64 + i);
                    d.tx(
                        0,
                        REG,
                        0,
                        "grant",
                        vec![addr_v(&a1), ns(&n), custom("x"), Value::Map(vec![])],
                    )
                })
                .collect();
            let out = d.run(&txs).await;
            assert!(out.receipts.iter().all(|r| r.success));
        }
        assert_eq!(d.count(&a1), 256);
        let m = d
            .refused(
                0,
                "grant",
                vec![addr_v(&a1), ns("one-more"), custom("x"), Value::Map(vec![])],
                "LimitReached",
            )
            .await;
        assert!(m.contains("256 entitlements"), "{m}");
        // Renouncing one makes room (the grantee may always give one up).
        let items = d.held(&a1);
        let Value::Array(list) = get(&items, "items") else {
            panic!()
        };
        let id = hash_of(get(&list[0], "id"));
        d.ok(1, "revoke", vec![bytes(&id.0)]).await;
        d.ok(
            0,
            "grant",
            vec![addr_v(&a1), ns("one-more"), custom("x"), Value::Map(vec![])],
        )
        .await;
        assert_eq!(d.count(&a1), 256);

        // 64 roles.
        let txs: Vec<_> = (0..65u64)
            .map(|i| {
                d.tx(
                    2,
                    REG,
                    0,
                    "create_role",
                    vec![
                        bytes(format!("r{i}").as_bytes()),
                        Value::Array(vec![ns(&format!("role-ns{i}"))]),
                        Value::Array(vec![custom("x")]),
                        Value::Map(vec![]),
                    ],
                )
            })
            .collect();
        let out = d.run(&txs).await;
        let roles: Vec<Hash32> = out
            .receipts
            .iter()
            .map(|r| {
                assert!(r.success, "{:?}", r.error);
                hash_of(&ret(r))
            })
            .collect();
        let txs: Vec<_> = roles[..64]
            .iter()
            .map(|id| d.tx(2, REG, 0, "assign_role", vec![bytes(&id.0), addr_v(&a1)]))
            .collect();
        let out = d.run(&txs).await;
        assert!(out.receipts.iter().all(|r| r.success));
        let m = d
            .refused(
                2,
                "assign_role",
                vec![bytes(&roles[64].0), addr_v(&a1)],
                "LimitReached",
            )
            .await;
        assert!(m.contains("64 roles"), "{m}");
    });
}

#[test]
fn entitle_delegation_is_a_strict_subset_at_most_five_deep_and_dies_with_its_root() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 8, params()).await;
        let a: Vec<Address> = (0..8).map(D::addr).collect();
        let scope = ns("data");
        let action = custom("read");
        let root = hash_of(
            &d.ok(
                0,
                "grant",
                vec![addr_v(&a[1]), scope.clone(), action.clone(), delegatable(5)],
            )
            .await,
        );

        // Only the grantee delegates; the child must be a strict subset.
        d.refused(
            2,
            "delegate",
            vec![bytes(&root.0), addr_v(&a[2]), delegatable(4)],
            "NotGrantee",
        )
        .await;
        let m = d
            .refused(
                1,
                "delegate",
                vec![bytes(&root.0), addr_v(&a[2]), delegatable(5)],
                "NotSubset",
            )
            .await;
        assert!(m.contains("delegation_depth_max"), "{m}");
        let irrevocable = Constraints {
            delegatable: true,
            delegation_depth_max: 4,
            ..Default::default()
        }
        .to_value();
        let m = d
            .refused(
                1,
                "delegate",
                vec![bytes(&root.0), addr_v(&a[2]), irrevocable],
                "NotSubset",
            )
            .await;
        assert!(m.contains("revocable"), "{m}");

        // A chain 1 → 2 → 3 → 4 → 5 → 6: five delegations, each one level shallower.
        let mut ids = vec![root];
        for depth in 1..=5u8 {
            let k = u32::from(depth);
            let child = d
                .ok(
                    k,
                    "delegate",
                    vec![
                        bytes(&ids.last().expect("id").0),
                        addr_v(&a[usize::from(depth) + 1]),
                        delegatable(5 - depth),
                    ],
                )
                .await;
            ids.push(hash_of(&child));
        }
        let last = ids[5];
        let got = d.query(REG, "get", vec![bytes(&last.0)]);
        assert_eq!(get(&got, "depth"), &int(5));
        assert!(d.check(&a[6], scope.clone(), action.clone()));
        // The sixth level is refused: depth 0 is not delegatable.
        d.refused(
            6,
            "delegate",
            vec![bytes(&last.0), addr_v(&a[7]), delegatable(0)],
            "NotDelegatable",
        )
        .await;

        // Uses of a delegation count against every ancestor: the authority (a0) consumes.
        let limited = Constraints {
            max_uses: 2,
            delegatable: true,
            delegation_depth_max: 1,
            revocable: true,
            ..Default::default()
        }
        .to_value();
        let scope2 = ns("metered");
        let top = hash_of(
            &d.ok(
                0,
                "grant",
                vec![addr_v(&a[1]), scope2.clone(), action.clone(), limited],
            )
            .await,
        );
        let one_use = Constraints {
            max_uses: 2,
            revocable: true,
            ..Default::default()
        }
        .to_value();
        d.ok(1, "delegate", vec![bytes(&top.0), addr_v(&a[2]), one_use])
            .await;
        d.ok(
            0,
            "consume",
            vec![addr_v(&a[2]), scope2.clone(), action.clone(), int(0)],
        )
        .await;
        d.ok(
            0,
            "consume",
            vec![addr_v(&a[1]), scope2.clone(), action.clone(), int(0)],
        )
        .await;
        // The parent's two uses are spent (one by each): the child is no longer in force.
        assert!(!d.check(&a[2], scope2.clone(), action.clone()));
        d.refused(
            0,
            "consume",
            vec![addr_v(&a[2]), scope2.clone(), action.clone(), int(0)],
            "NotInForce",
        )
        .await;
        // Only the scope's authority consumes.
        d.refused(
            3,
            "consume",
            vec![addr_v(&a[1]), scope2, action.clone(), int(0)],
            "NotAuthority",
        )
        .await;

        // Revoking the root ends the whole chain below it.
        d.ok(0, "revoke", vec![bytes(&root.0)]).await;
        for (level, holder) in a[1..=6].iter().enumerate() {
            assert!(
                !d.check(holder, scope.clone(), action.clone()),
                "level {level}"
            );
        }
        let got = d.query(REG, "get", vec![bytes(&last.0)]);
        assert_eq!(get(&got, "in_force"), &Value::Bool(false));
        // An orphan can be pruned by anyone; an in-force record cannot.
        d.ok(7, "prune", vec![bytes(&last.0)]).await;
        assert_eq!(d.query(REG, "get", vec![bytes(&last.0)]), Value::Null);
        let live = hash_of(
            &d.ok(
                0,
                "grant",
                vec![
                    addr_v(&a[3]),
                    ns("live"),
                    action.clone(),
                    Value::Map(vec![]),
                ],
            )
            .await,
        );
        d.refused(7, "prune", vec![bytes(&live.0)], "StillInForce")
            .await;
        d.check_conservation().await;
    });
}

#[test]
fn entitle_expiry_uses_amounts_rate_and_revocation() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 4, params()).await;
        let (a1, a2) = (D::addr(1), D::addr(2));
        let action = custom("act");

        // Expiry by height, with lazy cleanup on the first check after it.
        let until = d.chain.height + 4;
        let c = Constraints {
            valid_until: Some(until),
            revocable: true,
            ..Default::default()
        }
        .to_value();
        let id = hash_of(
            &d.ok(0, "grant", vec![addr_v(&a1), ns("e"), action.clone(), c])
                .await,
        );
        assert!(d.check(&a1, ns("e"), action.clone()));
        while d.chain.height + 1 < until {
            d.empty().await;
        }
        assert!(
            !d.check(&a1, ns("e"), action.clone()),
            "expired at valid_until"
        );
        assert_eq!(d.count(&a1), 1, "still stored until someone touches it");
        let r = d
            .ent(3, "check", vec![addr_v(&a1), ns("e"), action.clone()])
            .await;
        assert_eq!(ret(&r), Value::Bool(false));
        assert_eq!(
            r.events
                .iter()
                .map(|e| e.topic.as_str())
                .collect::<Vec<_>>(),
            ["EntitlementExpired"]
        );
        assert_eq!(d.count(&a1), 0);
        assert_eq!(d.query(REG, "get", vec![bytes(&id.0)]), Value::Null);
        // Not yet valid.
        let later = Constraints {
            valid_from: Some(d.chain.height + 50),
            ..Default::default()
        }
        .to_value();
        let waiting = hash_of(
            &d.ok(
                0,
                "grant",
                vec![addr_v(&a1), ns("later"), action.clone(), later],
            )
            .await,
        );
        assert!(!d.check(&a1, ns("later"), action.clone()));
        // A future-dated record still holds its pair: not replaced, not pruned.
        d.refused(
            0,
            "grant",
            vec![addr_v(&a1), ns("later"), action.clone(), Value::Map(vec![])],
            "AlreadyHeld",
        )
        .await;
        d.refused(3, "prune", vec![bytes(&waiting.0)], "StillInForce")
            .await;

        // Max uses, amount per use and in total, and a rate limit.
        let c = Constraints {
            max_uses: 3,
            max_amount_per_use: Some(10),
            max_total_amount: Some(15),
            rate_limit: Some(cowboy_types::entitlement::RateLimit {
                max_uses: 2,
                window_blocks: 1_000,
            }),
            revocable: true,
            ..Default::default()
        }
        .to_value();
        d.ok(0, "grant", vec![addr_v(&a2), ns("m"), action.clone(), c])
            .await;
        let use_ = |n: u64| vec![addr_v(&a2), ns("m"), action.clone(), int(n)];
        let m = d.refused(0, "consume", use_(11), "AmountTooLarge").await;
        assert!(m.contains("at most 10"), "{m}");
        d.ok(0, "consume", use_(10)).await;
        let m = d.refused(0, "consume", use_(6), "AmountTooLarge").await;
        assert!(m.contains("at most 5"), "{m}");
        d.ok(0, "consume", use_(1)).await;
        d.refused(0, "consume", use_(1), "RateLimited").await;

        // Revocation: irrevocable grants refuse their grantor, not their grantee.
        let fixed = Constraints::default().to_value();
        let id = hash_of(
            &d.ok(
                0,
                "grant",
                vec![addr_v(&a1), ns("fixed"), action.clone(), fixed],
            )
            .await,
        );
        let m = d
            .refused(0, "revoke", vec![bytes(&id.0)], "NotRevocable")
            .await;
        assert!(m.contains("irrevocable"), "{m}");
        d.refused(3, "revoke", vec![bytes(&id.0)], "NotRevocable")
            .await;
        let r = d.ent(1, "revoke", vec![bytes(&id.0)]).await;
        assert!(r.success);
        assert_eq!(r.events[0].topic, "EntitlementRevoked");
        d.refused(1, "revoke", vec![bytes(&id.0)], "NoSuchEntitlement")
            .await;
        d.check_conservation().await;
    });
}

#[test]
fn entitle_roles_grant_their_pairs_to_assignees() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 4, params()).await;
        let (a1, a2) = (D::addr(1), D::addr(2));
        let scopes = Value::Array(vec![ns("ops")]);
        let actions = Value::Array(vec![custom("deploy"), custom("pause")]);
        let role = hash_of(
            &d.ok(
                0,
                "create_role",
                vec![
                    bytes(b"operator"),
                    scopes.clone(),
                    actions.clone(),
                    Value::Map(vec![]),
                ],
            )
            .await,
        );
        d.refused(
            0,
            "create_role",
            vec![
                bytes(b"operator"),
                scopes.clone(),
                actions.clone(),
                Value::Map(vec![]),
            ],
            "RoleExists",
        )
        .await;
        // A role over a scope the creator does not govern is refused.
        d.refused(
            1,
            "create_role",
            vec![bytes(b"thief"), scopes, actions, Value::Map(vec![])],
            "NotAuthority",
        )
        .await;
        let too_many = Value::Array((0..17).map(|i| custom(&format!("a{i}"))).collect());
        let m = d
            .refused(
                0,
                "create_role",
                vec![
                    bytes(b"big"),
                    Value::Array(vec![ns("ops")]),
                    too_many,
                    Value::Map(vec![]),
                ],
                "BadArgument",
            )
            .await;
        assert!(m.contains("1 to 16"), "{m}");

        d.refused(
            1,
            "assign_role",
            vec![bytes(&role.0), addr_v(&a2)],
            "NotRoleCreator",
        )
        .await;
        d.ok(0, "assign_role", vec![bytes(&role.0), addr_v(&a2)])
            .await;
        d.refused(
            0,
            "assign_role",
            vec![bytes(&role.0), addr_v(&a2)],
            "RoleAlreadyAssigned",
        )
        .await;
        assert!(d.check(&a2, ns("ops"), custom("pause")));
        assert!(!d.check(&a2, ns("ops"), custom("other")));
        assert!(!d.check(&a1, ns("ops"), custom("pause")));
        // The assignee may give it up; then it grants nothing.
        d.ok(2, "revoke_role", vec![bytes(&role.0), addr_v(&a2)])
            .await;
        assert!(!d.check(&a2, ns("ops"), custom("pause")));
        d.refused(
            0,
            "revoke_role",
            vec![bytes(&role.0), addr_v(&a2)],
            "RoleNotAssigned",
        )
        .await;
    });
}

/// CIP-2 §4 filter 7: a job naming a pool draws only from runners holding the pool's
/// membership in force at submission; expired and revoked members are out.
#[test]
fn entitle_a_pool_job_selects_only_pool_members() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 9, params()).await;
        let runners: Vec<u32> = (1..=8).collect();
        d.register(
            &runners,
            &[200 * crate::dispatcher::CBY; 8],
            "api.example.com",
            100,
            4,
        )
        .await;
        let (ps, pa) = pool("trusted");
        // Key 0 owns the pool: members 1, 2, 3 and 4; 3's membership expires, 4's is revoked.
        let h = d.chain.height;
        let expiring = Constraints {
            valid_until: Some(h + 3),
            revocable: true,
            ..Default::default()
        }
        .to_value();
        let revocable = Constraints {
            revocable: true,
            ..Default::default()
        }
        .to_value();
        let mut txs = Vec::new();
        for (k, c) in [
            (1u32, &revocable),
            (2, &revocable),
            (3, &expiring),
            (4, &revocable),
        ] {
            txs.push(d.tx(
                0,
                REG,
                0,
                "grant",
                vec![addr_v(&D::addr(k)), ps.clone(), pa.clone(), c.clone()],
            ));
        }
        let out = d.run(&txs).await;
        let ids: Vec<Hash32> = out
            .receipts
            .iter()
            .map(|r| {
                assert!(r.success, "{:?}", r.error);
                hash_of(&ret(r))
            })
            .collect();
        d.ok(0, "revoke", vec![bytes(&ids[3].0)]).await;
        while d.chain.height < h + 3 {
            d.empty().await;
        }
        let spec = spec_with(&[
            ("verification", Some(verification("none", 1, None))),
            ("required_runner_pool", Some(bytes(b"trusted"))),
        ]);
        let id = d.submit_ok(spec, 1_010).await;
        let snapshot: Vec<Address> = d.snapshot(&id).into_iter().map(|(a, _)| a).collect();
        let mut members = vec![D::addr(1), D::addr(2)];
        members.sort_by_key(|a| a.0);
        assert_eq!(snapshot, members, "exactly the members in force");
        let job = d.job(&id);
        let selected = crate::dispatcher::addrs_of(get(&job, "selected"));
        assert!(members.contains(&selected[0]));

        // A pool nobody is in has no candidates; a job without a pool draws from all eight.
        let none = spec_with(&[("required_runner_pool", Some(bytes(b"empty")))]);
        let m = d.fails(none, 1_010).await;
        assert!(m.starts_with("NotEnoughCandidates: 0 runners"), "{m}");
        let open = d.submit_ok(spec_with(&[]), 1_010).await;
        assert_eq!(d.snapshot(&open).len(), 8);
        d.check_conservation().await;
    });
}

/// CIP-2 §7.3: a membership bounded in uses (a trial) is spent once per selection, through
/// the registry's consume path (record and ancestors, `EntitlementUsed`); an unbounded one is
/// never spent; a spent membership is out of the next snapshot; a re-selection spends the new
/// member's use too. Value is conserved.
#[test]
fn entitle_a_pool_selection_spends_use_bounded_memberships() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 5, params()).await;
        d.register(
            &[1, 2, 3, 4],
            &[200 * crate::dispatcher::CBY; 4],
            "api.example.com",
            100,
            4,
        )
        .await;
        let (ps, pa) = pool("trial");
        let uses = |n: u64| {
            Constraints {
                max_uses: n,
                revocable: true,
                ..Default::default()
            }
            .to_value()
        };
        let mut ids = Vec::new();
        for (k, n) in [(1u32, 1u64), (2, 0), (3, 2), (4, 3)] {
            let id = d
                .ok(
                    0,
                    "grant",
                    vec![addr_v(&D::addr(k)), ps.clone(), pa.clone(), uses(n)],
                )
                .await;
            ids.push(hash_of(&id));
        }
        let used = |d: &mut D, i: usize| {
            let r = d.query(REG, "get", vec![bytes(&ids[i].0)]);
            get(get(get(&r, "entitlement"), "constraints"), "used_count")
                .as_u64()
                .expect("int")
        };
        let pooled = |v: Value, timeout: u64| {
            spec_with(&[
                ("verification", Some(v)),
                ("required_runner_pool", Some(bytes(b"trial"))),
                ("timeout_blocks", Some(int(timeout))),
            ])
        };

        // All four drawn: the three bounded memberships each lose a use, the unbounded none.
        let r = d
            .submit(pooled(verification("structured_match", 4, None), 3), 1_010)
            .await;
        assert!(r.success, "{:?}", r.error);
        let spent = r
            .events
            .iter()
            .filter(|e| e.emitter == REG && e.topic == "EntitlementUsed")
            .count();
        assert_eq!(spent, 3, "one use per bounded membership");
        assert_eq!(
            (0..4).map(|i| used(&mut d, i)).collect::<Vec<_>>(),
            vec![1, 0, 1, 1]
        );
        // Runner 1's one-use trial is spent: it is no longer a member in force.
        assert!(!d.check(&D::addr(1), ps.clone(), pa.clone()));

        // The next pool job's snapshot leaves runner 1 out; its committee times out and is
        // re-selected: every selection of a bounded member spends one of its uses.
        let id = d
            .submit_ok(pooled(verification("none", 1, None), 2), 1_010)
            .await;
        let mut members: Vec<Address> = [2, 3, 4].iter().map(|&k| D::addr(k)).collect();
        members.sort_by_key(|a| a.0);
        let snapshot: Vec<Address> = d.snapshot(&id).into_iter().map(|(a, _)| a).collect();
        assert_eq!(snapshot, members);
        let selected = |d: &mut D| crate::dispatcher::addrs_of(get(&d.job(&id), "selected"));
        let mut drawn: Vec<Address> = selected(&mut d);
        for _ in 0..2 {
            let deadline = get(&d.job(&id), "deadline").as_u64().expect("int");
            let runs = d.until(deadline).await;
            assert!(runs.iter().all(|r| r.success), "{runs:?}");
            drawn.extend(selected(&mut d));
        }
        assert_eq!(drawn.len(), 3, "the first committee and two re-selections");
        let times = |a: Address| drawn.iter().filter(|x| **x == a).count() as u64;
        assert_eq!(used(&mut d, 1), 0, "unbounded: never spent");
        assert_eq!(used(&mut d, 2), 1 + times(D::addr(3)));
        assert_eq!(used(&mut d, 3), 1 + times(D::addr(4)));
        d.check_conservation().await;
    });
}

/// HTTP domain entitlements (whitepaper "curated domain sets"): the genesis curator keeps the
/// sets in the registry; a domain in no set is open; a curated domain needs the submitter to
/// hold `Custom(domain)` or `Custom("@" ‖ set)` in `Namespace("http")`, which only the curator
/// grants. Every refusal is typed and changes nothing.
#[test]
fn entitle_http_domains_of_curated_sets_need_the_submitters_entitlement() {
    deterministic::Runner::default().start(|ctx| async move {
        let curator = 5u32;
        let p = GenesisParams {
            http_domain_curator: D::addr(curator),
            ..params()
        };
        let mut d = D::new(ctx, 6, p).await;
        d.register(
            &[1, 2],
            &[200 * crate::dispatcher::CBY; 2],
            "api.example.com",
            100,
            4,
        )
        .await;
        let job = || spec_with(&[]);
        // Uncurated: open to any submitter.
        d.submit_ok(job(), 1_010).await;

        let set = |name: &str, domains: &[&str]| {
            vec![
                crate::dispatcher::text(name),
                Value::Array(domains.iter().map(|x| crate::dispatcher::text(x)).collect()),
            ]
        };
        let feeds = set("price_feeds", &["api.kraken.com", "api.example.com"]);
        d.refused(1, "set_domain_set", feeds.clone(), "NotAuthority")
            .await;
        d.refused(
            curator,
            "set_domain_set",
            set("Feeds!", &["a.com"]),
            "BadArgument",
        )
        .await;
        d.refused(
            curator,
            "set_domain_set",
            set("x", &["A.com"]),
            "BadArgument",
        )
        .await;
        d.refused(
            curator,
            "set_domain_set",
            set("x", &["a.com", "a.com"]),
            "BadArgument",
        )
        .await;
        let r = d.ent(curator, "set_domain_set", feeds).await;
        assert!(r.success, "{:?}", r.error);
        assert_eq!(r.events[0].topic, "DomainSetChanged");
        assert_eq!(
            d.query(
                REG,
                "domain_set",
                vec![crate::dispatcher::text("price_feeds")]
            ),
            Value::Array(vec![
                crate::dispatcher::text("api.example.com"),
                crate::dispatcher::text("api.kraken.com")
            ]),
            "sorted"
        );
        // A domain is in one set at most.
        let m = d
            .refused(
                curator,
                "set_domain_set",
                set("other", &["api.example.com"]),
                "BadArgument",
            )
            .await;
        assert!(m.contains("already in the curated set price_feeds"), "{m}");

        // Curated now: the submitter (key 0) holds nothing, so the job is refused.
        let m = d.fails(job(), 1_010).await;
        assert!(
            m.starts_with(
                "DomainNotEntitled: api.example.com is in the curated domain set price_feeds"
            ),
            "{m}"
        );

        // Only the curator grants in Namespace("http"): nobody can claim it.
        let http = ns("http");
        let g = |k: u32| addr_v(&D::addr(k));
        let plain = Constraints {
            revocable: true,
            ..Default::default()
        }
        .to_value();
        d.refused(
            1,
            "grant",
            vec![g(0), http.clone(), custom("@price_feeds"), plain.clone()],
            "NotAuthority",
        )
        .await;
        // The set's grant admits every domain of the set.
        let set_grant = hash_of(
            &d.ok(
                curator,
                "grant",
                vec![g(0), http.clone(), custom("@price_feeds"), plain.clone()],
            )
            .await,
        );
        d.submit_ok(job(), 1_010).await;
        // Revoked: refused again; a grant of the one domain admits it.
        d.ok(curator, "revoke", vec![bytes(&set_grant.0)]).await;
        d.fails(job(), 1_010).await;
        d.ok(
            curator,
            "grant",
            vec![g(0), http.clone(), custom("api.example.com"), plain],
        )
        .await;
        d.submit_ok(job(), 1_010).await;
        // Key 3 holds nothing: refused; once the domain leaves the set, open to it too.
        let r = d.submit_as(3, job()).await;
        assert_eq!(r.error.expect("refused").class, "DomainNotEntitled");
        d.ok(
            curator,
            "set_domain_set",
            set("price_feeds", &["api.kraken.com"]),
        )
        .await;
        let r = d.submit_as(3, job()).await;
        assert!(r.success, "{:?}", r.error);
        d.check_conservation().await;
    });
}

/// The pool filter's reads are charged before the scan: per candidate, the entitlement
/// lookup's worst case on top of the registry's five reads.
#[test]
fn entitle_a_pool_scan_is_charged_at_its_worst_case() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 4, params()).await;
        d.register(
            &[1, 2, 3],
            &[200 * crate::dispatcher::CBY; 3],
            "api.example.com",
            100,
            4,
        )
        .await;
        let open = d.submit(spec_with(&[]), 1_010).await;
        let pooled = d
            .submit(
                spec_with(&[("required_runner_pool", Some(bytes(b"p")))]),
                1_010,
            )
            .await;
        assert!(open.success);
        assert!(!pooled.success, "nobody is in pool p");
        let p = &d.chain.params;
        let lookup = cowboy_exec::system::entitlements::store::LOOKUP_READS * p.storage_read_cycles;
        assert!(
            pooled.cycles_used >= 3 * lookup,
            "{} cycles",
            pooled.cycles_used
        );
    });
}

/// What each handler costs in a receipt (intrinsic call cost and transaction bytes included),
/// each at least its §7.4 price on top of the 10,000-cycle call; printed for the README
/// (`cargo test -p cowboy-exec --test it entitle_costs -- --nocapture`).
#[test]
fn entitle_costs_of_each_step() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 4, params()).await;
        let p = d.chain.params.clone();
        let (a1, a2) = (D::addr(1), D::addr(2));
        let (ps, pa) = pool("gpu");
        let mut report = Vec::new();
        let mut step = |name: &str, r: &Receipt, cycles: u64, cells: u64| {
            assert!(r.success, "{name}: {:?}", r.error);
            assert!(
                r.cycles_used >= 10_000 + cycles && r.cells_used >= cells,
                "{name}"
            );
            report.push(format!(
                "{name}: {} cycles / {} cells",
                r.cycles_used, r.cells_used
            ));
        };
        let r = d
            .ent(
                0,
                "grant",
                vec![addr_v(&a1), ps.clone(), pa.clone(), delegatable(2)],
            )
            .await;
        step(
            "grant (pool, claims it)",
            &r,
            p.entitlement_grant_cycles,
            p.entitlement_grant_cells,
        );
        let id = hash_of(&ret(&r));
        let r = d
            .ent(
                1,
                "delegate",
                vec![bytes(&id.0), addr_v(&a2), delegatable(1)],
            )
            .await;
        step(
            "delegate",
            &r,
            p.entitlement_delegate_cycles,
            p.entitlement_delegate_cells,
        );
        let r = d
            .ent(3, "check", vec![addr_v(&a2), ps.clone(), pa.clone()])
            .await;
        step("check (depth 1)", &r, p.candidate_scan_cycles, 0);
        let r = d
            .ent(
                0,
                "consume",
                vec![addr_v(&a2), ps.clone(), pa.clone(), int(1)],
            )
            .await;
        step("consume (depth 1)", &r, p.runner_call_cycles, 0);
        let r = d.ent(0, "revoke", vec![bytes(&id.0)]).await;
        step(
            "revoke",
            &r,
            p.entitlement_revoke_cycles,
            p.entitlement_revoke_cells,
        );
        let r = d
            .ent(
                0,
                "create_role",
                vec![
                    bytes(b"ops"),
                    Value::Array(vec![ns("ops")]),
                    Value::Array(vec![custom("x")]),
                    Value::Map(vec![]),
                ],
            )
            .await;
        step(
            "create_role",
            &r,
            p.entitlement_create_role_cycles,
            p.entitlement_create_role_cells,
        );
        let role = hash_of(&ret(&r));
        let r = d
            .ent(0, "assign_role", vec![bytes(&role.0), addr_v(&a1)])
            .await;
        step(
            "assign_role",
            &r,
            p.entitlement_assign_role_cycles,
            p.entitlement_assign_role_cells,
        );
        for line in report {
            println!("{line}");
        }
    });
}
