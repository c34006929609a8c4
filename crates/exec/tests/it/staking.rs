//! The staking actor at `0x…0F` end to end over real state: the validator lifecycle (register →
//! pending → active at the next boundary → exit → withdraw after unbonding), stake and key
//! changes taking effect at the boundary, rewards paid in proportion to power, evidence of
//! equivocation built with commonware's own simplex types and verified on chain, downtime
//! jailing, and every hostile path refused with its typed error and no change. A seeded
//! property test checks supply = genesis + minted − burned over random blocks.

use crate::support::*;
use commonware_codec::{DecodeExt, Encode};
use commonware_consensus::simplex::scheme::ed25519::Scheme as VoteScheme;
use commonware_consensus::simplex::types::{ConflictingNotarize, Notarize, Proposal};
use commonware_consensus::types::{Epoch, Round, View};
use commonware_cryptography::{ed25519, Hasher as _, Sha256, Signer as _};
use commonware_runtime::{deterministic, Runner as _};
use commonware_utils::ordered::Set;
use commonware_utils::TryFromIterator as _;
use cowboy_exec::system::staking::{
    self, bls_key_from_seed, bls_public_key, consensus_namespace, per_block_mint, sign_pop,
    GenesisValidator, Keys,
};
use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::{GenesisParams, WEI_PER_CBY};
use cowboy_types::system::STAKING;
use cowboy_types::{keccak256, Address, Hash32, Receipt, Vote, VoteRecord};
use proptest::prelude::*;

const CBY: u128 = WEI_PER_CBY;

/// Four-block epochs, a six-block unbonding, a three-block jail, a 100 CBY minimum: the whole
/// lifecycle fits a few dozen blocks and the test accounts' 1,000 CBY.
fn stake_params() -> GenesisParams {
    GenesisParams {
        minimum_validator_stake_wei: 100 * CBY,
        epoch_blocks: 4,
        block_time_ms: 1_000,
        unbonding_period_secs: 6,
        jail_period_secs: 3,
        downtime_window_blocks: 10,
        ..params()
    }
}

/// Validator `i`'s BLS secret and Ed25519 consensus key.
fn vkeys(
    i: u32,
) -> (
    commonware_cryptography::bls12381::primitives::group::Private,
    ed25519::PrivateKey,
) {
    let bls = bls_key_from_seed(&keccak256(format!("bls-{i}").as_bytes()).0).expect("bls");
    let ed = ed25519::PrivateKey::decode(keccak256(format!("ed-{i}").as_bytes()).0.to_vec())
        .expect("ed25519 seed");
    (bls, ed)
}

fn ed_bytes(k: &ed25519::PrivateKey) -> [u8; 32] {
    k.public_key()
        .encode()
        .as_ref()
        .try_into()
        .expect("32 bytes")
}

fn keys_of(i: u32) -> Keys {
    let (bls, ed) = vkeys(i);
    Keys {
        bls: bls_public_key(&bls),
        ed25519: ed_bytes(&ed),
    }
}

fn bytes(b: &[u8]) -> Value {
    Value::Bytes(b.to_vec())
}

/// `register`/`rotate_keys` arguments for validator keys `i`, proven for `who`.
fn key_args(i: u32, who: &Address) -> Vec<Value> {
    let (bls, ed) = vkeys(i);
    vec![
        bytes(&bls_public_key(&bls)),
        bytes(&sign_pop(&bls, who)),
        bytes(&ed_bytes(&ed)),
    ]
}

fn get<'a>(v: &'a Value, name: &str) -> &'a Value {
    let Value::Map(m) = v else {
        panic!("not a map: {v:?}")
    };
    m.iter()
        .find(|(k, _)| *k == Value::Text(name.into()))
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no field {name} in {v:?}"))
}

fn ret(r: &Receipt) -> Value {
    cbor::decode(&r.return_data).expect("return data is canonical CBOR")
}

fn addr(i: u32) -> Address {
    key(i).address()
}

/// A chain whose genesis validators are test keys `genesis` (validator keys of the same
/// index), one transaction per block, tracking nonces, burns and mints.
struct H {
    chain: Chain,
    nonce: Vec<u64>,
    genesis_supply: u128,
    burned: u128,
    minted: u128,
    /// The `end_block` hook events of the blocks since the test last drained them.
    end_events: Vec<cowboy_types::Event>,
}

impl H {
    async fn new(ctx: deterministic::Context, n: u32, genesis: &[(u32, u128)]) -> H {
        let mut chain = Chain::new(ctx, n).await;
        chain.params = stake_params();
        let validators: Vec<GenesisValidator> = genesis
            .iter()
            .map(|&(i, stake)| GenesisValidator {
                address: addr(i),
                stake,
                keys: keys_of(i),
            })
            .collect();
        chain
            .poke(|state, params, _| {
                staking::apply_genesis(state, params, &validators).expect("genesis validators")
            })
            .await;
        let staked: u128 = genesis.iter().map(|g| g.1).sum();
        H {
            chain,
            nonce: vec![0; n as usize],
            genesis_supply: u128::from(n) * FUNDS + staked,
            burned: 0,
            minted: 0,
            end_events: Vec::new(),
        }
    }

    /// The next block with `txs` (empty: an empty block); its receipts.
    async fn block(&mut self, txs: &[cowboy_types::Transaction]) -> Vec<Receipt> {
        let out = self.chain.block(txs).await.expect("valid block");
        self.burned += out.usage.burned;
        self.minted += out.usage.minted;
        self.end_events.extend(out.hooks.end);
        out.receipts
    }

    /// The topics of the `end_block` hook events since the last [`H::drain_end_events`].
    fn boundary_topics(&self) -> Vec<&str> {
        self.end_events.iter().map(|e| e.topic.as_str()).collect()
    }

    fn drain_end_events(&mut self) {
        self.end_events.clear();
    }

    /// The payload of the first `topic` event among them, emitted by the staking actor.
    fn boundary_event(&self, topic: &str) -> Value {
        let e = self
            .end_events
            .iter()
            .find(|e| e.topic == topic)
            .unwrap_or_else(|| panic!("no {topic} in {:?}", self.boundary_topics()));
        assert_eq!(e.emitter, STAKING);
        cbor::decode(&e.data).expect("canonical CBOR")
    }

    async fn send(&mut self, k: u32, value: u128, handler: &str, args: Vec<Value>) -> Receipt {
        let n = self.nonce[k as usize];
        self.nonce[k as usize] += 1;
        let mut tx = signed(&key(k), n, Some(STAKING), value, call(handler, args));
        // Staking writes ride the system lane, whose budget is 5% of the block's cycles.
        tx.cycles_limit = 900_000;
        tx.signature = None;
        tx.sign(&key(k)).expect("sign");
        self.block(&[tx]).await.remove(0)
    }

    async fn ok(&mut self, k: u32, value: u128, handler: &str, args: Vec<Value>) -> Receipt {
        let r = self.send(k, value, handler, args).await;
        assert!(r.success, "{handler}: {:?}", r.error);
        r
    }

    /// A call that must fail: returns `"Class: message"`, and checks it changed nothing of the
    /// actor's (its balance, the caller's record and every key claim it named) and left no
    /// events.
    async fn fails(&mut self, k: u32, value: u128, handler: &str, args: Vec<Value>) -> String {
        let balance = self.chain.account(&STAKING).await.balance;
        let minted_before = self.minted;
        let record = self.record(addr(k)).await;
        let r = self.send(k, value, handler, args).await;
        let e = r
            .error
            .clone()
            .unwrap_or_else(|| panic!("{handler} succeeded"));
        assert!(r.events.is_empty(), "a failed call's events are reverted");
        // The block's own mint lands in the actor; an epoch's last block also pays rewards out.
        if !staking::is_boundary(&self.chain.params, self.chain.height) {
            assert_eq!(
                self.chain.account(&STAKING).await.balance,
                balance + minted_here(self.minted, minted_before),
                "a failed call moves no stake"
            );
            assert_eq!(self.record(addr(k)).await, record, "record unchanged");
        }
        format!("{}: {}", e.class, e.message)
    }

    /// A read through a (paid) transaction from key 0.
    async fn read(&mut self, handler: &str, args: Vec<Value>) -> Value {
        let r = self.ok(0, 0, handler, args).await;
        ret(&r)
    }

    async fn record(&self, a: Address) -> Option<Value> {
        self.chain
            .storage(
                &STAKING,
                &Value::Array(vec![Value::Text("val".into()), bytes(&a.0)]),
            )
            .await
    }

    async fn set(&self, epoch: u64) -> Vec<(Address, u128)> {
        staking::active_set(&self.chain.state, epoch)
            .await
            .expect("read")
            .unwrap_or_default()
            .iter()
            .map(|m| (m.address, m.power))
            .collect()
    }

    fn epoch(&self) -> u64 {
        staking::epoch_of(&self.chain.params, self.chain.height)
    }

    /// Empty blocks until the chain's last block is the first of the next epoch.
    async fn next_epoch(&mut self) {
        let target = self.epoch() + 1;
        while self.epoch() < target {
            self.block(&[]).await;
        }
    }

    /// Total balance of every account the tests touch.
    async fn supply(&self, n: u32, extra: &[Address]) -> u128 {
        let mut total = 0u128;
        for i in 0..n {
            total += self.chain.account(&addr(i)).await.balance;
        }
        for a in [STAKING, self.chain.proposer].iter().chain(extra) {
            total += self.chain.account(a).await.balance;
        }
        total
    }
}

fn minted_here(after: u128, before: u128) -> u128 {
    after - before
}

fn status(v: &Value) -> String {
    match get(v, "status") {
        Value::Text(s) => s.clone(),
        other => panic!("status {other:?}"),
    }
}

#[test]
fn lifecycle_register_activate_rotate_exit_withdraw() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut h = H::new(ctx, 3, &[(0, 200 * CBY)]).await;
        assert_eq!(h.set(0).await, vec![(addr(0), 200 * CBY)]);

        // Register: pending until the next boundary (epochs are two blocks long here).
        h.drain_end_events();
        let me = addr(1);
        let r = h.ok(1, 150 * CBY, "register", key_args(1, &me)).await;
        assert_eq!(r.events[0].topic, "ValidatorRegistered");
        let v = h.read("validator", vec![bytes(&me.0)]).await;
        assert_eq!(status(&v), "pending");
        assert_eq!(h.set(h.epoch()).await.len(), 1, "not in the current set");

        h.next_epoch().await;
        let e = h.epoch();
        // The one boundary since the registration: epoch e−1's reward to its one member, the
        // newcomer's activation, the new epoch.
        let topics = h.boundary_topics();
        assert_eq!(topics, ["RewardPaid", "ValidatorActivated", "EpochStarted"]);
        let ev = h.boundary_event("ValidatorActivated");
        assert_eq!(get(&ev, "validator"), &bytes(&me.0));
        assert_eq!(get(&ev, "epoch"), &Value::Uint(e));
        assert_eq!(get(&ev, "power"), &Value::from_u128(150 * CBY));
        let ev = h.boundary_event("EpochStarted");
        assert_eq!(get(&ev, "epoch"), &Value::Uint(e));
        assert_eq!(get(&ev, "validators"), &Value::Uint(2));
        assert_eq!(get(&ev, "power"), &Value::from_u128(350 * CBY));
        let ev = h.boundary_event("RewardPaid");
        assert_eq!(get(&ev, "validator"), &bytes(&addr(0).0));
        assert_eq!(get(&ev, "epoch"), &Value::Uint(e - 1));
        let mut expected = vec![(addr(0), 200 * CBY), (me, 150 * CBY)];
        expected.sort_by_key(|m| m.0 .0);
        assert_eq!(
            h.set(e).await,
            expected,
            "active from the next epoch, by address"
        );
        assert_eq!(
            status(&h.read("validator", vec![bytes(&me.0)]).await),
            "active"
        );
        let read = h.read("active_set", vec![Value::Uint(e)]).await;
        let Value::Array(members) = read else {
            panic!("{read:?}")
        };
        assert_eq!(members.len(), 2);

        // More stake and new keys: both from the next boundary.
        h.drain_end_events();
        h.ok(1, 50 * CBY, "add_stake", vec![]).await;
        h.ok(1, 0, "rotate_keys", key_args(11, &me)).await;
        assert!(h.set(e).await.contains(&(me, 150 * CBY)));
        h.next_epoch().await;
        let e = h.epoch();
        assert!(h.set(e).await.contains(&(me, 200 * CBY)));
        let ev = h.boundary_event("KeysApplied");
        assert_eq!(get(&ev, "validator"), &bytes(&me.0));
        assert_eq!(get(&ev, "bls_key"), &bytes(&keys_of(11).bls));
        let members = staking::active_set(&h.chain.state, e)
            .await
            .unwrap()
            .unwrap();
        let mine = members.iter().find(|m| m.address == me).unwrap();
        assert_eq!(mine.keys, keys_of(11), "rotated keys in force");
        // The old keys are free again: another validator may take them.
        h.ok(2, 100 * CBY, "register", key_args(1, &addr(2))).await;

        // Exit: still in the set until the boundary; withdrawal waits for unbonding.
        h.drain_end_events();
        let r = h.ok(1, 0, "signal_exit", vec![]).await;
        let Value::Uint(withdraw_at) = ret(&r) else {
            panic!()
        };
        let e = h.fails(1, 0, "withdraw", vec![]).await;
        assert!(e.starts_with("StillBonded"), "{e}");
        assert!(e.contains("in the current epoch's set"), "{e}");
        let e = h.fails(1, 10 * CBY, "add_stake", vec![]).await;
        assert!(e.starts_with("Exiting"), "{e}");
        h.next_epoch().await;
        assert!(!h.set(h.epoch()).await.iter().any(|m| m.0 == me));
        let ev = h.boundary_event("ValidatorDeactivated");
        assert_eq!(get(&ev, "validator"), &bytes(&me.0));
        assert_eq!(get(&ev, "reason"), &Value::Text("exiting".into()));
        assert_eq!(
            status(&h.read("validator", vec![bytes(&me.0)]).await),
            "unbonding"
        );
        while h.chain.height + 2 < withdraw_at {
            h.block(&[]).await;
        }
        if h.chain.height + 1 < withdraw_at {
            let e = h.fails(1, 0, "withdraw", vec![]).await;
            assert!(e.starts_with("StillBonded"), "one block early: {e}");
        }
        let before = h.chain.account(&me).await.balance;
        let r = h.ok(1, 0, "withdraw", vec![]).await;
        assert_eq!(ret(&r), Value::from_u128(200 * CBY));
        let fee_paid = before + 200 * CBY - h.chain.account(&me).await.balance;
        assert!(fee_paid < CBY, "the stake came back, less the fee");
        assert_eq!(h.record(me).await, None, "record forgotten");
        // Its rotated keys are free too.
        h.ok(1, 100 * CBY, "register", key_args(11, &me)).await;
    });
}

/// A set never empties: when the last member signals exit, the closing epoch's set votes on
/// (an empty set could never finalize another block). The registered validators' keys, which
/// the node lets connect, include one waiting for the next epoch.
#[test]
fn the_set_never_empties_and_registered_keys_include_the_pending() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut h = H::new(ctx, 3, &[(0, 200 * CBY)]).await;
        h.ok(0, 0, "signal_exit", vec![]).await;
        h.next_epoch().await;
        assert_eq!(
            h.set(h.epoch()).await,
            vec![(addr(0), 200 * CBY)],
            "the exiting last member still votes"
        );
        let keys = staking::registered_keys(&h.chain.state).await.unwrap();
        assert_eq!(keys, vec![keys_of(0)]);
        h.ok(1, 150 * CBY, "register", key_args(1, &addr(1))).await;
        let mut keys = staking::registered_keys(&h.chain.state).await.unwrap();
        let mut expected = vec![keys_of(0), keys_of(1)];
        keys.sort_by_key(|k| k.ed25519);
        expected.sort_by_key(|k| k.ed25519);
        assert_eq!(keys, expected, "a pending validator's keys are listed");
        // Once someone qualifies, the set is taken from stake again.
        h.next_epoch().await;
        assert_eq!(h.set(h.epoch()).await, vec![(addr(1), 150 * CBY)]);
    });
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut h = H::new(ctx, 3, &[(0, 200 * CBY)]).await;
        let me = addr(1);

        let e = h.fails(1, 99 * CBY, "register", key_args(1, &me)).await;
        assert!(e.starts_with("StakeTooLow"), "{e}");

        let mut bad_bls = key_args(1, &me);
        bad_bls[0] = bytes(&[0xAB; 48]);
        let e = h.fails(1, 100 * CBY, "register", bad_bls).await;
        assert!(e.starts_with("BadBlsKey"), "{e}");

        // A proof of possession made for another address (a copied key) does not verify.
        let mut stolen = key_args(1, &me);
        stolen[1] = key_args(1, &addr(2))[1].clone();
        let e = h.fails(1, 100 * CBY, "register", stolen).await;
        assert!(e.starts_with("BadProofOfPossession"), "{e}");
        let mut garbage_pop = key_args(1, &me);
        garbage_pop[1] = bytes(&[7; 96]);
        let e = h.fails(1, 100 * CBY, "register", garbage_pop).await;
        assert!(e.starts_with("BadProofOfPossession"), "{e}");

        let mut small_order = key_args(1, &me);
        let mut identity = [0u8; 32];
        identity[0] = 1;
        small_order[2] = bytes(&identity);
        let e = h.fails(1, 100 * CBY, "register", small_order).await;
        assert!(e.starts_with("BadConsensusKey"), "{e}");

        // Genesis validator 0's keys cannot be taken.
        let e = h.fails(1, 100 * CBY, "register", key_args(0, &me)).await;
        assert!(e.starts_with("KeyInUse"), "{e}");

        h.ok(1, 100 * CBY, "register", key_args(1, &me)).await;
        let e = h.fails(1, 100 * CBY, "register", key_args(12, &me)).await;
        assert!(e.starts_with("AlreadyRegistered"), "{e}");

        let e = h.fails(1, 0, "withdraw", vec![]).await;
        assert!(e.starts_with("NotExiting"), "{e}");
        let e = h.fails(2, 0, "signal_exit", vec![]).await;
        assert!(e.starts_with("NotRegistered"), "{e}");
        let e = h.fails(1, 0, "unjail", vec![]).await;
        assert!(e.starts_with("NotJailed"), "{e}");
        let e = h.fails(1, 5, "signal_exit", vec![]).await;
        assert!(e.starts_with("ValueNotAllowed"), "{e}");
        let e = h.fails(1, 0, "add_stake", vec![]).await;
        assert!(e.starts_with("NoValue"), "{e}");
        let e = h.fails(1, 0, "no_such", vec![]).await;
        assert!(e.starts_with("NoSuchHandler"), "{e}");
    });
}

#[test]
fn rewards_follow_stake_and_supply_balances() {
    deterministic::Runner::default().start(|ctx| async move {
        // Validators 0 and 1 with stakes 1:3; key 2 just pays fees.
        let mut h = H::new(ctx, 3, &[(0, 100 * CBY), (1, 300 * CBY)]).await;
        let (b0, b1) = (
            h.chain.account(&addr(0)).await.balance,
            h.chain.account(&addr(1)).await.balance,
        );
        h.next_epoch().await;
        // Epoch 0's blocks minted; its boundary paid them out 1:3 (remainder stays staked).
        let (g0, g1) = (
            h.chain.account(&addr(0)).await.balance - b0,
            h.chain.account(&addr(1)).await.balance - b1,
        );
        let epoch0: u128 = (2..4).map(|ht| per_block_mint(&h.chain.params, ht)).sum();
        assert!(epoch0 > 0);
        assert_eq!(g0, epoch0 / 4, "rewards in proportion to power");
        assert_eq!(g1, epoch0 * 3 / 4);
        assert!(epoch0 - (g0 + g1) < 2, "dust below one wei per member");
        assert_eq!(
            h.minted,
            (2..=h.chain.height)
                .map(|ht| per_block_mint(&h.chain.params, ht))
                .sum::<u128>(),
            "every block of a staked epoch mints the schedule's amount"
        );
        assert_eq!(
            h.supply(3, &[]).await,
            h.genesis_supply + h.minted - h.burned
        );
    });
}

#[test]
fn the_schedule_steps_down_by_year_to_the_floor() {
    let p = GenesisParams::default();
    let year = p.blocks_per_year();
    assert_eq!(year, 31_536_000);
    let at = |h| per_block_mint(&p, h);
    // 8% of 1e9 CBY over a year of one-second blocks.
    assert_eq!(at(1), p.total_supply_wei * 800 / 10_000 / u128::from(year));
    assert_eq!(at(year), at(1));
    assert_eq!(at(year + 1) * 8, at(1) * 6);
    assert_eq!(at(2 * year + 1) * 8, at(1) * 4);
    assert_eq!(at(3 * year + 1) * 8, at(1) * 3);
    assert_eq!(at(4 * year + 1) * 8, at(1) * 2);
    assert_eq!(at(40 * year), at(4 * year + 1), "2% floor");
}

/// Two conflicting notarize votes by validator keys `i` in `epoch`, view 7, signed over the
/// set `participants` — what simplex reports as `ConflictingNotarize` — tagged for the chain.
fn equivocation(i: u32, participants: &[u32], epoch: u64) -> Vec<u8> {
    equivocation_in_view(i, participants, epoch, 7)
}

/// [`equivocation`] in view `view`.
fn equivocation_in_view(i: u32, participants: &[u32], epoch: u64, view: u64) -> Vec<u8> {
    let set = Set::try_from_iter(participants.iter().map(|&p| vkeys(p).1.public_key())).unwrap();
    let scheme = VoteScheme::signer(&consensus_namespace(CHAIN_ID), set, vkeys(i).1).unwrap();
    let round = Round::new(Epoch::new(epoch), View::new(view));
    let vote = |payload: &[u8]| {
        Notarize::sign(
            &scheme,
            Proposal::new(round, View::new(view - 1), Sha256::hash(&[payload])),
        )
        .unwrap()
    };
    let evidence = ConflictingNotarize::new(vote(b"a"), vote(b"b"));
    [vec![0u8], evidence.encode().to_vec()].concat()
}

#[test]
fn evidence_slashes_and_jails_once_and_forgeries_change_nothing() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut h = H::new(ctx, 3, &[(0, 200 * CBY), (1, 200 * CBY)]).await;
        h.chain.params.jail_period_secs = 6;
        let evidence = equivocation(1, &[0, 1], 0);

        // Forged: one byte of a signature changed; and votes from a key outside the set.
        let mut forged = evidence.clone();
        let last = forged.len() - 1;
        forged[last] ^= 1;
        let e = h.fails(2, 0, "submit_evidence", vec![bytes(&forged)]).await;
        assert!(e.starts_with("BadEvidence"), "{e}");
        let outsider = equivocation(5, &[0, 5], 0);
        let e = h
            .fails(2, 0, "submit_evidence", vec![bytes(&outsider)])
            .await;
        assert!(e.starts_with("BadEvidence"), "{e}");
        let e = h
            .fails(
                2,
                0,
                "submit_evidence",
                vec![bytes(&equivocation(1, &[0, 1], 9))],
            )
            .await;
        assert!(e.starts_with("UnknownEpoch"), "{e}");
        let e = h
            .fails(2, 0, "submit_evidence", vec![bytes(&[3, 1, 2])])
            .await;
        assert!(e.starts_with("BadEvidence"), "{e}");
        assert!(h.record(addr(1)).await.is_some());

        // Anyone submits the real thing: 1% burned, jailed.
        let burned_before = h.burned;
        let r = h.ok(2, 0, "submit_evidence", vec![bytes(&evidence)]).await;
        assert_eq!(ret(&r), Value::from_u128(2 * CBY));
        assert!(h.burned - burned_before >= 2 * CBY, "the slash is burned");
        let topics: Vec<_> = r.events.iter().map(|e| e.topic.as_str()).collect();
        assert_eq!(
            topics,
            ["ValidatorSlashed", "ValidatorJailed", "EvidenceAccepted"]
        );
        let v = h.read("validator", vec![bytes(&addr(1).0)]).await;
        assert_eq!(status(&v), "jailed");
        assert_eq!(get(&v, "stake"), &Value::from_u128(198 * CBY));
        let e = h
            .fails(2, 0, "submit_evidence", vec![bytes(&evidence)])
            .await;
        assert!(e.starts_with("AlreadyPunished"), "{e}");

        // Out of the next set; unjail only after the jail period, then back a boundary later.
        let e = h.fails(1, 0, "unjail", vec![]).await;
        assert!(e.starts_with("StillJailed"), "{e}");
        h.next_epoch().await;
        assert_eq!(h.set(h.epoch()).await, vec![(addr(0), 200 * CBY)]);
        for _ in 0..6 {
            h.block(&[]).await;
        }
        h.ok(1, 0, "unjail", vec![]).await;
        h.next_epoch().await;
        assert!(h.set(h.epoch()).await.contains(&(addr(1), 198 * CBY)));
        assert_eq!(
            h.supply(3, &[]).await,
            h.genesis_supply + h.minted - h.burned
        );
    });
}

/// A notarize record for `payload` in `epoch`, view 9 (parent view 8): the votes of validator
/// keys `voters`, each signed over the set of keys `0..members` and numbered as simplex
/// numbers them (keys in ascending order).
fn notarizes(voters: &[u32], members: u32, epoch: u64, payload: &Hash32) -> VoteRecord {
    let set = Set::try_from_iter((0..members).map(|p| vkeys(p).1.public_key())).unwrap();
    let proposal = Proposal::new(
        Round::new(Epoch::new(epoch), View::new(9)),
        View::new(8),
        commonware_cryptography::sha256::Digest(payload.0),
    );
    let votes = voters
        .iter()
        .map(|&i| {
            let scheme =
                VoteScheme::signer(&consensus_namespace(CHAIN_ID), set.clone(), vkeys(i).1)
                    .unwrap();
            let vote = Notarize::sign(&scheme, proposal.clone()).unwrap();
            let signature = vote.attestation.signature.get().unwrap().encode();
            Vote {
                signer: set.position(&vkeys(i).1.public_key()).unwrap() as u32,
                signature: signature.as_ref().try_into().unwrap(),
            }
        })
        .collect();
    VoteRecord {
        epoch,
        view: 9,
        parent_view: 8,
        votes,
    }
}

/// Downtime through the block rule: block `n` carries the notarize votes seen for block
/// `n − 2`; every validator checks them and `begin_block` counts each member without a vote
/// as a miss. Validator 3 never votes and is jailed (not slashed) at its sixth miss of a
/// ten-block window; the others never are. The proposer's selection drops duplicates,
/// strangers and bad signatures; a block whose record holds any of them, fewer than a
/// quorum, or a record its header does not commit to, is invalid with the typed error.
#[test]
fn vote_records_count_misses_and_jail_past_the_window_and_bad_records_are_refused() {
    use cowboy_exec::block::{propose, verify};
    use cowboy_exec::header::genesis_header;
    use cowboy_exec::{BlockError, ChainRules, Parent};
    use cowboy_types::block::{Block, BlockHeader};
    use staking::VotesError;
    deterministic::Runner::default().start(|ctx| async move {
        let stake = 200 * CBY;
        let mut h = H::new(ctx, 4, &[(0, stake), (1, stake), (2, stake), (3, stake)]).await;
        // One epoch for the whole test; a window of 10 blocks: 5 misses allowed, the 6th jails.
        h.chain.params.epoch_blocks = 100;
        let params = h.chain.params.clone();
        let rules = ChainRules {
            chain_id: CHAIN_ID,
            params: &params,
        };
        let state = &mut h.chain.state;
        // The state holds block 1 (the genesis validators); its header stands in for it.
        let mut block1 = genesis_header(&params, 1_000, Hash32(state.root().unwrap()));
        block1.height = 1;
        let mut headers: Vec<BlockHeader> = vec![block1];
        let stake_before = get(&h_record(state, addr(3)).await, "stake").clone();
        for height in 2..=9u64 {
            let parent = headers.last().unwrap().clone();
            let at = Parent {
                header: &parent,
                hash: parent.hash(),
            };
            // What the proposer collected for the grandparent: validators 0–2's votes, and
            // noise the selection must drop (a duplicate, a stranger's index, validator 3's
            // vote with a broken signature).
            let candidate = (height >= 3).then(|| {
                let mut r = notarizes(&[0, 1, 2, 3, 0], 4, 0, &parent.parent_hash);
                r.votes[3].signature[0] ^= 1;
                r.votes.push(Vote {
                    signer: 7,
                    signature: [1; 64],
                });
                r
            });
            let proposal = propose(
                state,
                None,
                rules,
                at,
                parent.timestamp_ms + 1_000,
                addr(0),
                Vec::new(),
                candidate,
                None,
                Vec::new(),
                &cowboy_exec::block::no_cutoff,
            )
            .await
            .expect("state");
            let block = proposal.block;
            assert_eq!(block.votes.is_some(), height >= 3, "height {height}");
            if let Some(record) = &block.votes {
                assert_eq!(record.votes.len(), 3, "only the three valid votes");
                assert_eq!(block.header.votes_root, Some(record.hash()));
            }

            if height == 5 {
                // Hostile records: each makes the block invalid, naming what is wrong.
                let record = block.votes.clone().unwrap();
                let with = |f: &dyn Fn(&mut VoteRecord)| {
                    let mut b = block.clone();
                    let mut r = record.clone();
                    f(&mut r);
                    b.header.votes_root = Some(r.hash());
                    b.votes = Some(r);
                    b
                };
                let first = record.votes[0].signer;
                let cases: Vec<(Block, BlockError)> = vec![
                    (
                        with(&|r| r.votes[0].signature[5] ^= 1),
                        BlockError::Votes(VotesError::BadSignature { signer: first }),
                    ),
                    (
                        with(&|r| r.votes.insert(1, r.votes[0].clone())),
                        BlockError::Votes(VotesError::SignerOrder { index: 1 }),
                    ),
                    (
                        with(&|r| r.votes[2].signer = 4),
                        BlockError::Votes(VotesError::UnknownSigner {
                            signer: 4,
                            members: 4,
                        }),
                    ),
                    (
                        with(&|r| {
                            r.votes.pop();
                        }),
                        BlockError::Votes(VotesError::BelowQuorum { got: 2, need: 3 }),
                    ),
                    (
                        // Votes for another block (the parent, not the grandparent).
                        with(&|r| *r = notarizes(&[0, 1, 2], 4, 0, &parent.hash())),
                        BlockError::Votes(VotesError::BadSignature {
                            signer: record.votes[0].signer,
                        }),
                    ),
                    (
                        {
                            let mut b = block.clone();
                            b.header.votes_root = None;
                            b
                        },
                        BlockError::VotesRoot {
                            got: None,
                            expected: Some(record.hash()),
                        },
                    ),
                ];
                for (bad, error) in cases {
                    let got = verify(state, None, rules, at, &bad, None)
                        .await
                        .expect("state");
                    assert_eq!(got.err(), Some(error.clone()), "{error}");
                }
            }

            let executed = verify(state, None, rules, at, &block, None)
                .await
                .expect("state")
                .expect("the proposer's block is valid");
            state.commit_staged(&executed.state).await.expect("commit");
            headers.push(block.header);

            // Block n counted a miss on block n − 2: the sixth (block 8) jails, and its
            // `begin_block` says so in the block's hook events (no transaction carries it).
            let jailed = |v: &Value| get(v, "jailed_until") != &Value::Null;
            let three = h_record(state, addr(3)).await;
            assert_eq!(jailed(&three), height >= 8, "height {height}");
            let jail_events: Vec<_> = executed
                .hooks
                .begin
                .iter()
                .map(|e| e.topic.as_str())
                .collect();
            assert_eq!(
                jail_events,
                if height == 8 {
                    vec!["ValidatorJailed"]
                } else {
                    vec![]
                }
            );
            if height == 8 {
                let e = cbor::decode(&executed.hooks.begin[0].data).unwrap();
                assert_eq!(get(&e, "validator"), &bytes(&addr(3).0));
                assert_eq!(get(&e, "reason"), &Value::Text("downtime".into()));
                assert_eq!(executed.hooks.begin[0].emitter, STAKING);
            }
            for i in 0..3 {
                assert!(!jailed(&h_record(state, addr(i)).await), "validator {i}");
            }
        }
        // Jailed, not slashed.
        assert_eq!(get(&h_record(state, addr(3)).await, "stake"), &stake_before);
    });
}

/// Downtime counts a sliding window: misses on both sides of a multiple of the window, which
/// tumbling windows would split under the threshold, jail; misses spread thinner never do.
#[test]
fn downtime_counts_the_last_window_of_heights_not_fixed_windows() {
    deterministic::Runner::default().start(|ctx| async move {
        let stake = 200 * CBY;
        let mut h = H::new(ctx, 4, &[(0, stake), (1, stake), (2, stake), (3, stake)]).await;
        // A window of 10 heights, at most 5 missed.
        h.chain.params.epoch_blocks = 1_000;
        let jailed = |v: &Value| get(v, "jailed_until") != &Value::Null;
        let miss = |heights: Vec<u64>, who: u32| {
            move |state: &mut dyn cowboy_exec::system::SystemState,
                  params: &GenesisParams,
                  at: u64| {
                for v in &heights {
                    staking::record_missed_votes(state, params, *v, at, &[addr(who)])
                        .expect("state");
                }
            }
        };
        // Validator 3: 3 misses at heights 7–9 and 3 at 11–13: six within the ten heights
        // 4..=13 (tumbling windows [0, 10) and [10, 20) would see 3 each).
        h.chain.poke(miss(vec![7, 8, 9, 11, 12, 13], 3)).await;
        assert!(
            jailed(&h_record(&h.chain.state, addr(3)).await),
            "six misses in ten heights"
        );
        // Validator 2: a miss every other height: five in any ten, never more.
        h.chain.poke(miss((1..=40).step_by(2).collect(), 2)).await;
        assert!(
            !jailed(&h_record(&h.chain.state, addr(2)).await),
            "half of the heights"
        );
        // One more miss beside the last makes six of the ten heights 30..=39 +1.
        h.chain.poke(miss(vec![40], 2)).await;
        assert!(
            jailed(&h_record(&h.chain.state, addr(2)).await),
            "six in 31..=40"
        );
    });
}

/// Validator `a`'s record in `state`.
async fn h_record(state: &cowboy_state::StateDb<deterministic::Context>, a: Address) -> Value {
    let key = cbor::encode(&Value::Array(vec![Value::Text("val".into()), bytes(&a.0)]));
    let raw = state
        .storage(&STAKING.0, &key)
        .await
        .expect("read")
        .expect("registered");
    cbor::decode(&raw).expect("canonical")
}

/// One random operation of the supply property.
#[derive(Debug, Clone)]
enum Op {
    Empty,
    Transfer(u32, u32, u64),
    Register(u32, u64),
    AddStake(u32, u64),
    Exit(u32),
    Withdraw(u32),
    /// Account `a` submits double-signing evidence against the genesis validator in view
    /// `v` of epoch 0 (a view punished already is refused: a failure, fees still burned).
    Slash(u32, u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::Empty),
        (0u32..4, 0u32..4, 1u64..50).prop_map(|(a, b, v)| Op::Transfer(a, b, v)),
        (0u32..4, 90u64..300).prop_map(|(a, v)| Op::Register(a, v)),
        (0u32..4, 1u64..50).prop_map(|(a, v)| Op::AddStake(a, v)),
        (0u32..4).prop_map(Op::Exit),
        (0u32..4).prop_map(Op::Withdraw),
        (0u32..4, 2u64..5).prop_map(|(a, v)| Op::Slash(a, v)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 32,
        rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha,
        ..ProptestConfig::default()
    })]

    /// Whatever the blocks do (transfers, registrations, stake, exits, withdrawals, slashes,
    /// failures among them), the total of every balance is genesis + minted − burned (a
    /// slash burns the stake it takes).
    #[test]
    fn supply_is_genesis_plus_minted_minus_burned(ops in proptest::collection::vec(op(), 1..24)) {
        deterministic::Runner::default().start(|ctx| async move {
            let mut h = H::new(ctx, 4, &[(3, 200 * CBY)]).await;
            for op in ops {
                match op {
                    Op::Empty => { h.block(&[]).await; }
                    Op::Transfer(a, b, v) => {
                        let n = h.nonce[a as usize];
                        h.nonce[a as usize] += 1;
                        let tx = signed(&key(a), n, Some(addr(b)), u128::from(v) * CBY,
                            cowboy_types::tx::Payload::Transfer);
                        h.block(&[tx]).await;
                    }
                    Op::Register(a, v) => {
                        h.send(a, u128::from(v) * CBY, "register", key_args(a, &addr(a))).await;
                    }
                    Op::AddStake(a, v) => {
                        h.send(a, u128::from(v) * CBY, "add_stake", vec![]).await;
                    }
                    Op::Exit(a) => { h.send(a, 0, "signal_exit", vec![]).await; }
                    Op::Withdraw(a) => { h.send(a, 0, "withdraw", vec![]).await; }
                    Op::Slash(a, v) => {
                        let evidence = equivocation_in_view(3, &[3], 0, v);
                        h.send(a, 0, "submit_evidence", vec![bytes(&evidence)]).await;
                    }
                }
            }
            assert_eq!(h.supply(4, &[]).await, h.genesis_supply + h.minted - h.burned);
        });
    }
}

/// Invalid proposals: the leader's notarize of a block, the block and (for a fault against it)
/// its parent's header. Four-validator set; validator keys `1` offends, test key `2` submits.
mod invalid_proposal {
    use super::*;
    use cowboy_exec::header::{basefees_after, genesis_header};
    use cowboy_types::block::{Block, BlockHeader};
    use cowboy_types::{Payload, Transaction};
    use staking::{invalid_proposal_evidence, Exhibit};

    const MEMBERS: [u32; 4] = [0, 1, 2, 3];

    /// Validator keys `i`'s index in the set of `MEMBERS` (as simplex numbers them) and its
    /// notarize signature over `(epoch, view, view − 1, payload)`.
    fn sign(i: u32, epoch: u64, view: u64, payload: &Hash32) -> Vote {
        let set = Set::try_from_iter(MEMBERS.iter().map(|&p| vkeys(p).1.public_key())).unwrap();
        let scheme =
            VoteScheme::signer(&consensus_namespace(CHAIN_ID), set.clone(), vkeys(i).1).unwrap();
        let proposal = Proposal::new(
            Round::new(Epoch::new(epoch), View::new(view)),
            View::new(view - 1),
            commonware_cryptography::sha256::Digest(payload.0),
        );
        let vote = Notarize::sign(&scheme, proposal).unwrap();
        Vote {
            signer: set.position(&vkeys(i).1.public_key()).unwrap() as u32,
            signature: vote
                .attestation
                .signature
                .get()
                .unwrap()
                .encode()
                .as_ref()
                .try_into()
                .unwrap(),
        }
    }

    /// The evidence of `vote` (over `payload` in `epoch`, `view`) with `block` and `parent`.
    fn evidence(
        vote: &Vote,
        epoch: u64,
        view: u64,
        payload: &Hash32,
        block: &[u8],
        parent: Option<&BlockHeader>,
    ) -> Vec<u8> {
        let round = VoteRecord {
            epoch,
            view,
            parent_view: view - 1,
            votes: Vec::new(),
        };
        let exhibit = Exhibit::Block {
            block: block.to_vec(),
            parent: parent.map(BlockHeader::encode),
        };
        invalid_proposal_evidence(&round, payload, vote, &exhibit).unwrap()
    }

    /// Validator `i`'s evidence for block bytes `block` (header hash `payload`) in epoch 0.
    fn signed_by(
        i: u32,
        view: u64,
        payload: &Hash32,
        block: &[u8],
        parent: Option<&BlockHeader>,
    ) -> Vec<u8> {
        evidence(&sign(i, 0, view, payload), 0, view, payload, block, parent)
    }

    fn parent_header(params: &GenesisParams) -> BlockHeader {
        let mut p = genesis_header(params, 1_000, Hash32([7; 32]));
        p.height = 5;
        p
    }

    fn transfer(nonce: u64) -> Transaction {
        signed(&key(0), nonce, Some(addr(1)), 1, Payload::Transfer)
    }

    /// A child of `parent` with `txs` that every stateless rule accepts (its roots of
    /// execution are made up: no stateless check can see them).
    fn valid_child(params: &GenesisParams, parent: &BlockHeader, txs: Vec<Transaction>) -> Block {
        let basefees = basefees_after(parent, params);
        Block {
            header: BlockHeader {
                parent_hash: parent.hash(),
                height: parent.height + 1,
                timestamp_ms: parent.timestamp_ms + 1_000,
                proposer: addr(1),
                state_root: Hash32([1; 32]),
                tx_root: Block::tx_root(&txs),
                receipts_root: Hash32([2; 32]),
                cycle_basefee: basefees.cycle,
                cell_basefee: basefees.cell,
                cycles_used: 0,
                cells_used: 0,
                randomness: parent.hash(),
                votes_root: None,
                dealings_root: None,
            },
            transactions: txs,
            votes: None,
            beacon: None,
            dealer_logs: Vec::new(),
        }
    }

    /// A block of one transaction built by `f` (its tx_root sealed over it).
    fn with_tx(
        params: &GenesisParams,
        parent: &BlockHeader,
        f: impl Fn(&mut Transaction),
    ) -> Block {
        let mut tx = transfer(0);
        f(&mut tx);
        valid_child(params, parent, vec![tx])
    }

    /// A chain with validators 0–3 of 200 CBY each in one long epoch 0.
    async fn chain(ctx: deterministic::Context) -> H {
        let stake = 200 * CBY;
        let mut h = H::new(ctx, 4, &[(0, stake), (1, stake), (2, stake), (3, stake)]).await;
        h.chain.params.epoch_blocks = 1_000;
        h
    }

    /// The block bytes and header hash of a block whose parts are `header` and `txs` (CBOR
    /// values, whatever they hold) and, if given, `votes`.
    fn raw_block(header: Value, txs: Vec<Value>, votes: Option<Value>) -> (Vec<u8>, Hash32) {
        let payload = keccak256(&cbor::encode(&header));
        let mut items = vec![header, Value::Array(txs)];
        items.extend(votes);
        (cbor::encode(&Value::Array(items)), payload)
    }

    /// A fault case: what it is, the block's bytes, its payload, the parent if the fault
    /// needs it, and the words the fault is named with.
    type Case = (
        &'static str,
        Vec<u8>,
        Hash32,
        Option<BlockHeader>,
        &'static str,
    );

    /// Each stateless fault, submitted by anyone: accepted, the signer jailed and not
    /// slashed, the events of the other jail paths emitted, the fault named in the result.
    #[test]
    fn each_stateless_fault_jails_without_slashing() {
        let params = {
            let mut p = stake_params();
            p.epoch_blocks = 1_000;
            p
        };
        let parent = parent_header(&params);
        let hash = |b: &Block| b.header.hash();
        let tx_value = |t: &Transaction| cbor::decode(&t.encode()).unwrap();
        let mut cases: Vec<Case> = Vec::new();
        let (raw, payload) = raw_block(Value::Array(vec![Value::Uint(1)]), vec![], None);
        cases.push((
            "not a header",
            raw,
            payload,
            None,
            "the header does not decode",
        ));
        let mut far = parent.clone();
        far.height = 1_500;
        let b = valid_child(&params, &far, vec![]);
        cases.push((
            "another epoch",
            b.encode(),
            hash(&b),
            None,
            "is in epoch 1, proposed in epoch 0",
        ));
        let mut b = valid_child(&params, &parent, vec![]);
        b.header.height += 1;
        cases.push((
            "height",
            b.encode(),
            hash(&b),
            Some(parent.clone()),
            "against its parent: height",
        ));
        let mut b = valid_child(&params, &parent, vec![]);
        b.header.cycle_basefee += 1;
        cases.push((
            "basefee",
            b.encode(),
            hash(&b),
            Some(parent.clone()),
            "cycle_basefee",
        ));
        // As blocks on a chain with a beacon carry it (every block above the lag), and a
        // resharing epoch's blocks their dealer logs: the evidence is the block as it was.
        let mut b = valid_child(&params, &parent, vec![]);
        b.header.cycle_basefee += 1;
        b.beacon = Some([5; cowboy_types::block::BEACON_SIGNATURE_BYTES]);
        cases.push((
            "basefee, with a beacon",
            b.encode(),
            hash(&b),
            Some(parent.clone()),
            "cycle_basefee",
        ));
        b.dealer_logs = vec![vec![1, 2, 3]];
        cases.push((
            "basefee, with a beacon and dealer logs",
            b.encode(),
            hash(&b),
            Some(parent.clone()),
            "cycle_basefee",
        ));
        let b = with_tx(&params, &parent, |t| t.signature = None);
        cases.push((
            "unsigned",
            b.encode(),
            hash(&b),
            None,
            "transaction 0 is invalid",
        ));
        let b = with_tx(&params, &parent, |t| {
            t.chain_id = CHAIN_ID + 1;
            t.signature = None;
            t.sign(&key(0)).unwrap();
        });
        cases.push((
            "wrong chain",
            b.encode(),
            hash(&b),
            None,
            "transaction 0 is invalid",
        ));
        let good = valid_child(&params, &parent, vec![]);
        let txs = vec![tx_value(&transfer(0)), Value::Uint(5)];
        let hashes: Vec<Hash32> = txs.iter().map(|t| keccak256(&cbor::encode(t))).collect();
        let mut header = good.header.clone();
        header.tx_root = cowboy_types::list_root(&hashes);
        let (raw, payload) = raw_block(cbor::decode(&header.encode()).unwrap(), txs, None);
        cases.push((
            "not a transaction",
            raw,
            payload,
            None,
            "transaction 1 does not decode",
        ));
        let mut header = good.header.clone();
        header.votes_root = Some(keccak256(&cbor::encode(&Value::Uint(9))));
        let header = cbor::decode(&header.encode()).unwrap();
        let (raw, payload) = raw_block(header, vec![], Some(Value::Uint(9)));
        cases.push((
            "not a vote record",
            raw,
            payload,
            None,
            "the vote record does not decode",
        ));

        // Each case twice: the block whole, then as the node shows it (`exhibit`: the header
        // with what the fault needs, or the bad transaction and its path).
        let cases = cases
            .into_iter()
            .flat_map(|c| [(c.clone(), false), (c, true)]);
        for ((what, block, payload, parent, named), shown) in cases {
            deterministic::Runner::default().start(|ctx| async move {
                let mut h = chain(ctx).await;
                let stake_before = get(&h.record(addr(1)).await.unwrap(), "stake").clone();
                let proof = if shown {
                    let params = h.chain.params.clone();
                    let parent = parent.as_ref().map(BlockHeader::encode);
                    let proposed = staking::SplitBlock::split(&payload, &block, parent.as_deref())
                        .and_then(staking::SplitBlock::committed)
                        .unwrap();
                    let fault = proposed.fault(&params, CHAIN_ID, 0, None).unwrap();
                    let exhibit = proposed.exhibit(&fault, parent.as_deref());
                    let tag = if named.starts_with("transaction") {
                        4
                    } else {
                        5
                    };
                    let proof = showing(1, 10, &payload, &exhibit);
                    assert_eq!(proof[0], tag, "{what}: {exhibit:?}");
                    proof
                } else {
                    signed_by(1, 10, &payload, &block, parent.as_ref())
                };
                let what = format!("{what} ({})", if shown { "shown" } else { "whole" });
                let r = h.ok(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
                let Value::Text(fault) = ret(&r) else {
                    panic!("{what}: {:?}", ret(&r))
                };
                assert!(fault.contains(named), "{what}: {fault}");
                let topics: Vec<_> = r.events.iter().map(|e| e.topic.as_str()).collect();
                assert_eq!(topics, ["ValidatorJailed", "EvidenceAccepted"], "{what}");
                let v = h.read("validator", vec![bytes(&addr(1).0)]).await;
                assert_eq!(status(&v), "jailed", "{what}");
                assert_eq!(
                    get(&v, "stake"),
                    &stake_before,
                    "{what}: jailed, not slashed"
                );
                // Once per offence.
                let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
                assert!(e.starts_with("AlreadyPunished"), "{what}: {e}");
            });
        }
    }

    /// Hostile submissions: each refused by name, changing nothing.
    #[test]
    fn hostile_evidence_is_refused_and_changes_nothing() {
        deterministic::Runner::default().start(|ctx| async move {
            let mut h = chain(ctx).await;
            let params = h.chain.params.clone();
            let parent = parent_header(&params);
            let bad = with_tx(&params, &parent, |t| t.signature = None);
            let (bad_bytes, bad_hash) = (bad.encode(), bad.header.hash());
            let valid = valid_child(&params, &parent, vec![transfer(0)]);
            let (valid_bytes, valid_hash) = (valid.encode(), valid.header.hash());
            let refused = |e: &str, class: &str, why: &str| {
                assert!(e.starts_with(class) && e.contains(why), "{e}");
            };

            // A valid block, with or without its parent.
            for parent in [None, Some(&parent)] {
                let proof = signed_by(1, 10, &valid_hash, &valid_bytes, parent);
                let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
                refused(
                    &e,
                    "ValidProposal",
                    "the block is valid as far as the chain can check",
                );
            }
            // The valid block re-encoded (a longer array head): not the signed bytes.
            let reencoded = [&[0x98, 0x02][..], &valid_bytes[1..]].concat();
            let proof = signed_by(1, 10, &valid_hash, &reencoded, None);
            let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            refused(&e, "BadEvidence", "not canonical");
            // The valid header with another body (an unsigned transaction): not the body the
            // header commits to.
            let dressed = Block {
                transactions: bad.transactions.clone(),
                ..valid.clone()
            };
            let proof = signed_by(1, 10, &valid_hash, &dressed.encode(), None);
            let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            refused(&e, "BadEvidence", "tx_root commits to");
            // A vote record the header does not commit to, appended to the valid block.
            let mut appended = valid.clone();
            appended.votes = Some(VoteRecord {
                epoch: 0,
                view: 1,
                parent_view: 0,
                votes: vec![],
            });
            let proof = signed_by(1, 10, &valid_hash, &appended.encode(), None);
            let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            refused(&e, "BadEvidence", "votes_root commits to");
            // Not a block's shape: an empty vote item, or a sixth item.
            let Value::Array(items) = cbor::decode(&bad_bytes).unwrap() else {
                panic!("a block is an array")
            };
            for extra in [vec![Value::Null], vec![Value::Null; 4]] {
                let odd = cbor::encode(&Value::Array([items.clone(), extra].concat()));
                let proof = signed_by(1, 10, &bad_hash, &odd, None);
                let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
                refused(&e, "BadEvidence", "followed by the vote record");
            }
            // A parent that is not the block's.
            let mut other = parent.clone();
            other.height = 4;
            let proof = signed_by(1, 10, &bad_hash, &bad_bytes, Some(&other));
            let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            refused(&e, "BadEvidence", "not the block's parent_hash");
            // A block the validator never signed: its vote is for another payload.
            let proof = evidence(
                &sign(1, 0, 10, &valid_hash),
                0,
                10,
                &bad_hash,
                &bad_bytes,
                None,
            );
            let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            refused(&e, "BadEvidence", "does not verify");
            // Framed: validator 0's signature presented as validator 1's.
            let mut framed = sign(0, 0, 10, &bad_hash);
            framed.signer = sign(1, 0, 10, &bad_hash).signer;
            let proof = evidence(&framed, 0, 10, &bad_hash, &bad_bytes, None);
            let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            refused(&e, "BadEvidence", "does not verify");
            // Replayed into another view, or another epoch.
            let vote = sign(1, 0, 10, &bad_hash);
            let proof = evidence(&vote, 0, 11, &bad_hash, &bad_bytes, None);
            let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            refused(&e, "BadEvidence", "does not verify");
            let proof = evidence(&vote, 1, 10, &bad_hash, &bad_bytes, None);
            let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            refused(&e, "UnknownEpoch", "epoch 1");
            // A signer outside the set.
            let mut stranger = vote.clone();
            stranger.signer = 4;
            let proof = evidence(&stranger, 0, 10, &bad_hash, &bad_bytes, None);
            let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            refused(&e, "BadEvidence", "outside the set");
            // Not evidence at all.
            for junk in [
                vec![3],
                vec![3, 0x83, 1, 2, 3],
                [
                    &[3][..],
                    &cbor::encode(&Value::Array(vec![
                        bytes(b"x"),
                        bytes(&bad_bytes),
                        Value::Null,
                    ])),
                ]
                .concat(),
            ] {
                let e = h.fails(2, 0, "submit_evidence", vec![bytes(&junk)]).await;
                refused(&e, "BadEvidence", "");
            }
            // Work is paid before it is done: a block of 100 transactions costs 100 signature
            // checks, more than the submission's cycles cover; refused before any is made.
            let many = valid_child(&params, &parent, (0..100).map(transfer).collect());
            let proof = signed_by(1, 10, &many.header.hash(), &many.encode(), None);
            let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            assert!(e.starts_with("OutOfCycles"), "{e}");

            let v = h.read("validator", vec![bytes(&addr(1).0)]).await;
            assert_eq!(status(&v), "active", "nothing above jailed anyone");
            // The real evidence still works after all that.
            let proof = signed_by(1, 10, &bad_hash, &bad_bytes, None);
            h.ok(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
        });
    }

    /// The evidence of validator `i`'s notarize (view `view`, epoch 0) of a block, showing
    /// `exhibit`.
    fn showing(i: u32, view: u64, payload: &Hash32, exhibit: &Exhibit) -> Vec<u8> {
        let round = VoteRecord {
            epoch: 0,
            view,
            parent_view: view - 1,
            votes: Vec::new(),
        };
        invalid_proposal_evidence(&round, payload, &sign(i, 0, view, payload), exhibit).unwrap()
    }

    /// A block of 60 transfers with an unsigned one at 37, too large for any transaction to
    /// carry whole, is shown by its bad transaction and that one's path (what the node picks,
    /// through `ProposedBlock::exhibit`); the signer is jailed once for the round, whichever
    /// form comes second.
    #[test]
    fn a_bad_transaction_of_a_block_too_large_to_carry_is_shown_by_its_path() {
        deterministic::Runner::default().start(|ctx| async move {
            let mut h = chain(ctx).await;
            h.chain.params.max_tx_size_bytes = 4_096;
            let params = h.chain.params.clone();
            let parent = parent_header(&params);
            let mut txs: Vec<Transaction> = (0..60).map(transfer).collect();
            txs[37].signature = None;
            let block = valid_child(&params, &parent, txs);
            let (encoded, payload) = (block.encode(), block.header.hash());
            let proposed = staking::SplitBlock::split(&payload, &encoded, None)
                .and_then(staking::SplitBlock::committed)
                .unwrap();
            let fault = proposed.fault(&params, CHAIN_ID, 0, None).unwrap();
            assert!(
                fault.to_string().starts_with("transaction 37 is invalid"),
                "{fault}"
            );
            let exhibit = proposed.exhibit(&fault, None);
            let Exhibit::Transaction { path, .. } = &exhibit else {
                panic!("a transaction's fault is shown by the transaction: {exhibit:?}")
            };
            assert_eq!((path.index, path.count), (37, 60));
            let whole = signed_by(1, 10, &payload, &encoded, None);
            let proof = showing(1, 10, &payload, &exhibit);
            assert!(
                whole.len() as u64 > params.max_tx_size_bytes,
                "{}",
                whole.len()
            );
            assert!(proof.len() < 1_024, "{}", proof.len());

            let r = h.ok(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            assert_eq!(
                ret(&r),
                Value::Text(fault.to_string()),
                "the fault named as the block's own check names it"
            );
            let topics: Vec<_> = r.events.iter().map(|e| e.topic.as_str()).collect();
            assert_eq!(topics, ["ValidatorJailed", "EvidenceAccepted"]);
            assert_eq!(
                status(&h.read("validator", vec![bytes(&addr(1).0)]).await),
                "jailed"
            );
            // Once per round, in either form.
            let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            assert!(e.starts_with("AlreadyPunished"), "{e}");
            let small = with_tx(&params, &parent, |t| t.signature = None);
            let whole = signed_by(1, 10, &small.header.hash(), &small.encode(), None);
            let e = h.fails(2, 0, "submit_evidence", vec![bytes(&whole)]).await;
            assert!(e.starts_with("AlreadyPunished"), "{e}");
        });
    }

    /// A block of 60 transfers too large to carry whole, whose header breaks the rule
    /// against its parent, is shown by its header and the parent's; hostile header evidence
    /// is refused by name and changes nothing.
    #[test]
    fn a_header_fault_is_shown_by_the_header_whatever_the_blocks_size() {
        deterministic::Runner::default().start(|ctx| async move {
            let mut h = chain(ctx).await;
            h.chain.params.max_tx_size_bytes = 4_096;
            let params = h.chain.params.clone();
            let parent = parent_header(&params);
            let mut block = valid_child(&params, &parent, (0..60).map(transfer).collect());
            block.header.cycle_basefee += 1;
            let (encoded, payload) = (block.encode(), block.header.hash());
            assert!(encoded.len() as u64 > params.max_tx_size_bytes);
            let parent_bytes = parent.encode();
            let proposed = staking::SplitBlock::split(&payload, &encoded, Some(&parent_bytes))
                .and_then(staking::SplitBlock::committed)
                .unwrap();
            let fault = proposed.fault(&params, CHAIN_ID, 0, None).unwrap();
            let exhibit = proposed.exhibit(&fault, Some(&parent_bytes));
            let header = block.header.encode();
            assert_eq!(
                exhibit,
                Exhibit::Header {
                    header: header.clone(),
                    parent: Some(parent_bytes.clone()),
                    votes: None,
                }
            );
            let refused = |e: &str, class: &str, why: &str| {
                assert!(e.starts_with(class) && e.contains(why), "{e}");
            };
            let with =
                |header: &[u8], parent: Option<&[u8]>, votes: Option<&[u8]>| Exhibit::Header {
                    header: header.to_vec(),
                    parent: parent.map(<[u8]>::to_vec),
                    votes: votes.map(<[u8]>::to_vec),
                };
            let mut other = parent.clone();
            other.height = 4;
            let valid = valid_child(&params, &parent, vec![transfer(0)]);
            let cases: Vec<(Hash32, Exhibit, &str, &str)> = vec![
                // The fault needs the parent: without it the header alone is no fault.
                (payload, with(&header, None, None), "ValidProposal", "valid"),
                (
                    valid.header.hash(),
                    with(&valid.header.encode(), Some(&parent_bytes), None),
                    "ValidProposal",
                    "valid",
                ),
                (
                    payload,
                    with(&valid.header.encode(), Some(&parent_bytes), None),
                    "BadEvidence",
                    "not the signed payload",
                ),
                (
                    payload,
                    with(&header, Some(&other.encode()), None),
                    "BadEvidence",
                    "not the block's parent_hash",
                ),
                (
                    payload,
                    with(
                        &header,
                        Some(&parent_bytes),
                        Some(&cbor::encode(&Value::Uint(9))),
                    ),
                    "BadEvidence",
                    "votes_root commits to",
                ),
            ];
            for (signed, exhibit, class, why) in cases {
                let proof = showing(1, 10, &signed, &exhibit);
                let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
                refused(&e, class, why);
            }
            let Value::Array(items) =
                cbor::decode(&showing(1, 10, &payload, &exhibit)[1..]).unwrap()
            else {
                panic!("evidence is an array")
            };
            for body in [
                items[..3].to_vec(),
                [items.clone(), vec![Value::Null]].concat(),
                vec![
                    items[0].clone(),
                    items[1].clone(),
                    Value::Uint(1),
                    Value::Null,
                ],
            ] {
                let junk = [vec![5], cbor::encode(&Value::Array(body))].concat();
                let e = h.fails(2, 0, "submit_evidence", vec![bytes(&junk)]).await;
                refused(
                    &e,
                    "BadEvidence",
                    "expected [notarize, header, parent header or null",
                );
            }
            let v = h.read("validator", vec![bytes(&addr(1).0)]).await;
            assert_eq!(status(&v), "active", "nothing above jailed anyone");

            let proof = showing(1, 10, &payload, &exhibit);
            assert!(proof.len() < 1_024, "{}", proof.len());
            let r = h.ok(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            assert_eq!(ret(&r), Value::Text(fault.to_string()));
            let v = h.read("validator", vec![bytes(&addr(1).0)]).await;
            assert_eq!(status(&v), "jailed");
        });
    }

    /// More transactions than a block can hold is shown by any one of them: the root seals
    /// the list's length, so its path proves the count.
    #[test]
    fn too_many_transactions_are_shown_by_one_and_the_count_its_path_proves() {
        deterministic::Runner::default().start(|ctx| async move {
            let mut h = chain(ctx).await;
            let params = h.chain.params.clone();
            let parent = parent_header(&params);
            let tx = transfer(0).encode();
            let max = params.max_txs_per_block();
            let hashes = vec![keccak256(&tx).0; max as usize + 1];
            let mut header = valid_child(&params, &parent, vec![]).header;
            header.tx_root = Hash32(cowboy_proof_verifier::list_root(&hashes));
            let path = cowboy_proof_verifier::inclusion::prove(&hashes, 5).unwrap();
            let exhibit = Exhibit::Transaction {
                header: header.encode(),
                transaction: tx,
                path,
            };
            let proof = showing(1, 10, &header.hash(), &exhibit);
            let r = h.ok(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            let want = format!(
                "{} transactions, more than the {max} a block can hold",
                max + 1
            );
            assert_eq!(ret(&r), Value::Text(want));
        });
    }

    /// A change to a one-transaction exhibit's path, header bytes and transaction bytes.
    type Tamper<'a> =
        dyn Fn(&mut cowboy_proof_verifier::Inclusion, &mut Vec<u8>, &mut Vec<u8>) + 'a;

    /// Hostile one-transaction evidence: each refused by name, changing nothing; a valid
    /// transaction with its true path is no fault.
    #[test]
    fn hostile_transaction_evidence_is_refused_and_changes_nothing() {
        deterministic::Runner::default().start(|ctx| async move {
            let mut h = chain(ctx).await;
            let params = h.chain.params.clone();
            let parent = parent_header(&params);
            let mut txs: Vec<Transaction> = (0..5).map(transfer).collect();
            txs[3].signature = None;
            let block = valid_child(&params, &parent, txs.clone());
            let payload = block.header.hash();
            let hashes: Vec<[u8; 32]> = txs.iter().map(|t| keccak256(&t.encode()).0).collect();
            let shown = |i: usize, f: &Tamper<'_>| {
                let mut path = cowboy_proof_verifier::inclusion::prove(&hashes, i).unwrap();
                let (mut header, mut tx) = (block.header.encode(), txs[i].encode());
                f(&mut path, &mut header, &mut tx);
                Exhibit::Transaction {
                    header,
                    transaction: tx,
                    path,
                }
            };
            let refused = |e: &str, class: &str, why: &str| {
                assert!(e.starts_with(class) && e.contains(why), "{e}");
            };
            let cases: Vec<(&str, Exhibit, &str, &str)> = vec![
                (
                    "a valid transaction",
                    shown(1, &|_, _, _| {}),
                    "ValidProposal",
                    "valid",
                ),
                (
                    "another index",
                    shown(3, &|p, _, _| p.index = 2),
                    "BadEvidence",
                    "tx_root commits to",
                ),
                (
                    "another count",
                    shown(3, &|p, _, _| p.count = 6),
                    "BadEvidence",
                    "tx_root commits to",
                ),
                (
                    "a flipped sibling",
                    shown(3, &|p, _, _| p.siblings[0][0] ^= 1),
                    "BadEvidence",
                    "tx_root commits to",
                ),
                (
                    "a dropped sibling",
                    shown(3, &|p, _, _| {
                        p.siblings.pop();
                    }),
                    "BadEvidence",
                    "tx_root commits to",
                ),
                (
                    "another transaction at its place",
                    shown(3, &|_, _, t| *t = transfer(9).encode()),
                    "BadEvidence",
                    "tx_root commits to",
                ),
                (
                    "another header",
                    shown(3, &|_, hd, _| {
                        let mut other = block.header.clone();
                        other.timestamp_ms += 1;
                        *hd = other.encode();
                    }),
                    "BadEvidence",
                    "not the signed payload",
                ),
            ];
            for (what, exhibit, class, why) in cases {
                let proof = showing(1, 10, &payload, &exhibit);
                let e = h.fails(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
                assert!(e.starts_with(class) && e.contains(why), "{what}: {e}");
            }
            // Malformed: a short sibling, 65 siblings, a missing item.
            let good = showing(1, 10, &payload, &shown(3, &|_, _, _| {}));
            let Value::Array(items) = cbor::decode(&good[1..]).unwrap() else {
                panic!("evidence is an array")
            };
            let mut short = items.clone();
            short[4] = Value::Array(vec![bytes(&[0; 31])]);
            let mut long = items.clone();
            long[4] = Value::Array(vec![bytes(&[0; 32]); 65]);
            for (body, why) in [
                (
                    short,
                    "expected [notarize, header, index, count, [sibling…], transaction]",
                ),
                (long, "at most 64 siblings"),
                (items[..5].to_vec(), "expected [notarize, header"),
            ] {
                let junk = [vec![4], cbor::encode(&Value::Array(body))].concat();
                let e = h.fails(2, 0, "submit_evidence", vec![bytes(&junk)]).await;
                refused(&e, "BadEvidence", why);
            }
            let v = h.read("validator", vec![bytes(&addr(1).0)]).await;
            assert_eq!(status(&v), "active", "nothing above jailed anyone");
            h.ok(2, 0, "submit_evidence", vec![bytes(&good)]).await;
        });
    }

    /// An invalid-proposal jailing does not spare the same round's equivocation its slash.
    #[test]
    fn equivocation_in_the_same_view_is_still_slashed() {
        deterministic::Runner::default().start(|ctx| async move {
            let mut h = chain(ctx).await;
            let params = h.chain.params.clone();
            let parent = parent_header(&params);
            let bad = with_tx(&params, &parent, |t| t.signature = None);
            // `equivocation` signs view 7 of epoch 0 over the set {0, 1}; the set here is
            // {0, 1, 2, 3}, so sign this one in view 7 too and build the double vote over it.
            let proof = signed_by(1, 7, &bad.header.hash(), &bad.encode(), None);
            h.ok(2, 0, "submit_evidence", vec![bytes(&proof)]).await;
            let double = equivocation(1, &MEMBERS, 0);
            let r = h.ok(2, 0, "submit_evidence", vec![bytes(&double)]).await;
            assert_eq!(ret(&r), Value::from_u128(2 * CBY), "1% of 200 CBY burned");
        });
    }
}
