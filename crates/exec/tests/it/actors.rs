//! Actors end to end over real state: deploy, handler calls, persistence (including in-place
//! mutation of stored values), atomic failure with the Python exception and its actor line,
//! every metering limit, messages, events, isolation and randomness.

use crate::support::*;
use commonware_runtime::{deterministic, Runner as _};
use cowboy_types::cbor::{self, Value};
use cowboy_types::{actor_address, code_hash, Address, Hash32, Receipt};

const COUNTER: &str = include_str!("../../../../examples/actors/counter.py");
const LEGACY: &str = include_str!("../../../../examples/actors/legacy_counter.py");
const TODO: &str = include_str!("../../../../examples/actors/todo.py");
const TOKEN: &str = include_str!("../../../../examples/actors/token.py");
const RELAY: &str = include_str!("../../../../examples/actors/relay.py");

fn text(s: &str) -> Value {
    Value::Text(s.into())
}

fn int(i: u64) -> Value {
    Value::Uint(i)
}

fn ret(r: &Receipt) -> Value {
    cbor::decode(&r.return_data).expect("return data is canonical CBOR")
}

/// Deploy `source` from key 0 with `salt`; returns the actor address.
async fn deploy_ok(
    chain: &mut Chain,
    nonce: u64,
    source: &str,
    salt: u8,
    args: Vec<Value>,
) -> Address {
    let tx = signed(
        &key(0),
        nonce,
        None,
        0,
        deploy(source, salt, Value::Array(args)),
    );
    let out = chain.block(&[tx]).await.expect("valid block");
    let r = &out.receipts[0];
    assert!(r.success, "deploy failed: {:?}", r.error);
    let expected = actor_address(&key(0).address(), &Hash32([salt; 32]), &code_hash(source));
    assert_eq!(ret(r), Value::Bytes(expected.0.to_vec()));
    expected
}

async fn call_tx(
    chain: &mut Chain,
    k: u32,
    nonce: u64,
    to: Address,
    handler: &str,
    args: Vec<Value>,
) -> Receipt {
    let tx = signed(&key(k), nonce, Some(to), 0, call(handler, args));
    let mut out = chain.block(&[tx]).await.expect("valid block");
    out.receipts.remove(0)
}

#[test]
fn counter_deploys_and_counts() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        let c = deploy_ok(&mut chain, 0, COUNTER, 1, vec![int(5)]).await;
        assert_eq!(chain.storage(&c, &text("count")).await, Some(int(5)));
        let r = call_tx(&mut chain, 0, 1, c, "increment", vec![]).await;
        assert!(r.success, "{:?}", r.error);
        assert_eq!(ret(&r), int(6));
        // Intrinsic 10,000 plus the interpreter's work and the host calls.
        assert!(r.cycles_used > 10_000 + 200, "{}", r.cycles_used);
        assert!(r.cells_used > 0);
        let r = call_tx(&mut chain, 0, 2, c, "increment", vec![int(10)]).await;
        assert_eq!(ret(&r), int(16));
        assert_eq!(chain.storage(&c, &text("count")).await, Some(int(16)));
        let acct = chain.account(&c).await;
        assert_eq!(acct.code_hash, Some(code_hash(COUNTER).0));
    });
}

#[test]
fn in_place_mutation_of_stored_values_persists() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        let t = deploy_ok(&mut chain, 0, TODO, 1, vec![]).await;
        assert_eq!(
            ret(&call_tx(&mut chain, 0, 1, t, "add", vec![text("milk")]).await),
            int(1)
        );
        assert_eq!(
            ret(&call_tx(&mut chain, 0, 2, t, "add", vec![text("eggs")]).await),
            int(2)
        );
        assert!(
            call_tx(&mut chain, 0, 3, t, "done", vec![int(0)])
                .await
                .success
        );
        let items = ret(&call_tx(&mut chain, 0, 4, t, "items", vec![]).await);
        let item = |s: &str, done: bool| {
            Value::Map(vec![
                (text("done"), Value::Bool(done)),
                (text("text"), text(s)),
            ])
        };
        assert_eq!(
            items,
            Value::Array(vec![item("milk", true), item("eggs", false)])
        );
    });
}

#[test]
fn the_low_level_actor_form_persists_its_attributes() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        let a = deploy_ok(&mut chain, 0, LEGACY, 1, vec![]).await;
        for n in 1..=3u64 {
            assert_eq!(
                ret(&call_tx(&mut chain, 0, n, a, "increment", vec![]).await),
                int(n)
            );
        }
        assert_eq!(
            ret(&call_tx(&mut chain, 0, 4, a, "get_count", vec![]).await),
            int(3)
        );
    });
}

#[test]
fn a_failing_handler_reverts_everything_and_reports_its_line() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 2).await;
        let tok = deploy_ok(&mut chain, 0, TOKEN, 1, vec![text("Cow"), int(1000)]).await;
        let holder = key(0).address().to_checksum();
        let other = key(1).address().to_checksum();
        let r = call_tx(
            &mut chain,
            0,
            1,
            tok,
            "transfer",
            vec![text(&other), int(300)],
        )
        .await;
        assert!(r.success, "{:?}", r.error);
        assert_eq!(r.events.len(), 1);
        assert_eq!(r.events[0].topic, "Transfer");
        assert_eq!(r.events[0].emitter, tok);
        assert_eq!(
            cbor::decode(&r.events[0].data).expect("cbor"),
            Value::Map(vec![
                (text("to"), text(&other)),
                (text("from"), text(&holder)),
                (text("amount"), int(300)),
            ])
        );
        let root = chain.root();
        let before = chain.account(&key(1).address()).await;
        // key 1 holds 300 and tries to send 500: ValueError on the line of the raise.
        let r = call_tx(
            &mut chain,
            1,
            0,
            tok,
            "transfer",
            vec![text(&holder), int(500)],
        )
        .await;
        assert!(!r.success);
        let e = r.error.clone().expect("error");
        assert_eq!(e.class, "ValueError");
        assert_eq!(e.message, "insufficient balance: 300 < 500");
        let line = TOKEN
            .lines()
            .position(|l| l.contains("raise ValueError(f\"insufficient"))
            .expect("line")
            + 1;
        assert_eq!(e.line, line as u64);
        assert!(r.events.is_empty());
        assert!(r.return_data.is_empty());
        // The sender paid for what it used; nothing else changed.
        let after = chain.account(&key(1).address()).await;
        assert_eq!(after.nonce, before.nonce + 1);
        assert_eq!(after.balance, before.balance - r.fee_paid);
        assert_ne!(chain.root(), root);
        let bal = |h: &str| Value::Text(format!("bal:{h}"));
        assert_eq!(chain.storage(&tok, &bal(&other)).await, Some(int(300)));
        assert_eq!(chain.storage(&tok, &bal(&holder)).await, Some(int(700)));
    });
}

#[test]
fn deploy_rejects_bad_programs_with_the_error_and_line() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        let cases = [
            (
                "class Actor:\n    def f(self):\n        return (\n",
                "SyntaxError",
            ),
            ("import os\nclass Actor:\n    pass\n", "ModuleNotFoundError"),
            ("x = 1\n", "NoActorClass"),
            (
                "class Actor:\n    def __init__(self):\n        raise KeyError('boom')\n",
                "KeyError",
            ),
        ];
        for (nonce, (src, class)) in cases.iter().enumerate() {
            let tx = signed(
                &key(0),
                nonce as u64,
                None,
                0,
                deploy(src, 9, Value::Array(vec![])),
            );
            let out = chain.block(&[tx]).await.expect("valid block");
            let r = &out.receipts[0];
            assert!(!r.success, "{src}");
            let e = r.error.as_ref().expect("error");
            assert_eq!(e.class, *class, "{src}: {e:?}");
            let addr = actor_address(&key(0).address(), &Hash32([9; 32]), &code_hash(src));
            assert_eq!(chain.account(&addr).await.code_hash, None, "{src}");
        }
    });
}

#[test]
fn calls_that_cannot_dispatch_fail_cleanly() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        let c = deploy_ok(&mut chain, 0, COUNTER, 1, vec![]).await;
        let cases: Vec<(&str, Vec<Value>, &str)> = vec![
            ("missing", vec![], "NoSuchHandler"),
            ("__init__", vec![], "NoSuchHandler"),
            ("_private", vec![], "NoSuchHandler"),
            ("increment", vec![int(1), int(2), int(3)], "TypeError"),
        ];
        for (i, (h, args, class)) in cases.into_iter().enumerate() {
            let r = call_tx(&mut chain, 0, 1 + i as u64, c, h, args).await;
            assert!(!r.success);
            assert_eq!(r.error.as_ref().expect("error").class, class, "{h}");
        }
        let r = call_tx(&mut chain, 0, 5, Address([0x42; 20]), "f", vec![]).await;
        assert_eq!(r.error.expect("error").class, "NoSuchActor");
    });
}

#[test]
fn every_meter_stops_a_runaway_handler() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        let src = "from cowboy_sdk import actor\n@actor\nclass A:\n    def spin(self):\n        while True:\n            pass\n    def big(self, n):\n        self.storage['x'] = 'y' * n\n";
        let a = deploy_ok(&mut chain, 0, src, 1, vec![]).await;
        // Transaction limit below the per-actor allowance: OutOfCycles at the limit.
        let mut tx = signed(&key(0), 1, Some(a), 0, call("spin", vec![]));
        tx.cycles_limit = 300_000;
        tx.sign(&key(0)).expect("sign");
        let r = chain.block(&[tx]).await.expect("valid").receipts.remove(0);
        assert_eq!(r.error.as_ref().expect("error").class, "OutOfCycles");
        assert_eq!(r.cycles_used, 300_000);
        // Transaction limit above the per-actor allowance (1,000,000): the allowance stops it.
        let r = call_tx(&mut chain, 0, 2, a, "spin", vec![]).await;
        let e = r.error.expect("error");
        assert_eq!(e.class, "OutOfCycles");
        assert!(e.message.contains("per-block"), "{}", e.message);
        // Cells: a 50 kB value with a 20,000-cell limit.
        let mut tx = signed(&key(0), 3, Some(a), 0, call("big", vec![int(50_000)]));
        tx.cells_limit = 20_000;
        tx.sign(&key(0)).expect("sign");
        let r = chain.block(&[tx]).await.expect("valid").receipts.remove(0);
        assert_eq!(r.error.as_ref().expect("error").class, "OutOfCells");
        assert_eq!(r.cells_used, 20_000);
        assert_eq!(chain.storage(&a, &text("x")).await, None);
    });
}

#[test]
fn the_storage_quota_is_enforced() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        chain.params.storage_quota_per_actor_bytes = 10_000;
        let src = "from cowboy_sdk import actor\n@actor\nclass A:\n    def put(self, k, n):\n        self.storage[k] = b'x' * n\n";
        let a = deploy_ok(&mut chain, 0, src, 1, vec![]).await;
        assert!(call_tx(&mut chain, 0, 1, a, "put", vec![text("a"), int(6_000)]).await.success);
        let r = call_tx(&mut chain, 0, 2, a, "put", vec![text("b"), int(6_000)]).await;
        let e = r.error.expect("error");
        assert_eq!(e.class, "MemoryError");
        assert!(e.message.contains("quota"), "{}", e.message);
        // Replacing a value by a smaller one is always allowed.
        assert!(call_tx(&mut chain, 0, 3, a, "put", vec![text("a"), int(100)]).await.success);
    });
}

#[test]
fn messages_are_delivered_in_the_same_transaction_with_reentrancy() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        let r1 = deploy_ok(&mut chain, 0, RELAY, 1, vec![]).await;
        let r2 = deploy_ok(&mut chain, 1, RELAY, 2, vec![]).await;
        let r = call_tx(
            &mut chain,
            0,
            2,
            r1,
            "ping",
            vec![Value::Text(r2.to_checksum()), int(5)],
        )
        .await;
        assert!(r.success, "{:?}", r.error);
        // r1 runs for n = 5, 3, 1; r2 for n = 4, 2, 0.
        assert_eq!(chain.storage(&r1, &text("hops")).await, Some(int(3)));
        assert_eq!(chain.storage(&r2, &text("hops")).await, Some(int(3)));
        assert_eq!(
            chain.storage(&r2, &text("last_sender")).await,
            Some(Value::Text(r1.to_checksum()))
        );
        // Each send bumped the sending actor's nonce (message ids are per sender nonce).
        assert_eq!(chain.account(&r1).await.nonce, 3);
        assert_eq!(chain.account(&r2).await.nonce, 2);
    });
}

#[test]
fn a_failing_message_reverts_the_whole_transaction() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        let r1 = deploy_ok(&mut chain, 0, RELAY, 1, vec![]).await;
        let r2 = deploy_ok(&mut chain, 1, RELAY, 2, vec![]).await;
        let r = call_tx(
            &mut chain,
            0,
            2,
            r1,
            "fail_after",
            vec![Value::Text(r2.to_checksum()), int(3)],
        )
        .await;
        let e = r.error.expect("error");
        assert_eq!(e.class, "RuntimeError");
        assert!(e.message.contains("in message"), "{}", e.message);
        assert_eq!(chain.storage(&r1, &text("hops")).await, Some(int(0)));
        assert_eq!(chain.storage(&r2, &text("hops")).await, Some(int(0)));
    });
}

#[test]
fn fanout_and_depth_limits_hold() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        chain.params.fanout_per_tx = 10;
        let r1 = deploy_ok(&mut chain, 0, RELAY, 1, vec![]).await;
        let r2 = deploy_ok(&mut chain, 1, RELAY, 2, vec![]).await;
        let ok = call_tx(
            &mut chain,
            0,
            2,
            r1,
            "flood",
            vec![Value::Text(r2.to_checksum()), int(10)],
        )
        .await;
        assert!(ok.success, "{:?}", ok.error);
        let r = call_tx(
            &mut chain,
            0,
            3,
            r1,
            "flood",
            vec![Value::Text(r2.to_checksum()), int(11)],
        )
        .await;
        assert_eq!(r.error.expect("error").class, "RuntimeError");
        chain.params.fanout_per_tx = 1024;
        let r = call_tx(
            &mut chain,
            0,
            4,
            r1,
            "ping",
            vec![Value::Text(r2.to_checksum()), int(40)],
        )
        .await;
        let e = r.error.expect("error");
        assert_eq!(e.class, "RecursionError", "{e:?}");
    });
}

#[test]
fn invocations_share_nothing_but_storage() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        let src = "from cowboy_sdk import actor\nSEEN = []\n@actor\nclass A:\n    def touch(self):\n        SEEN.append(1)\n        return len(SEEN)\n";
        let a = deploy_ok(&mut chain, 0, src, 1, vec![]).await;
        for n in 1..=3 {
            assert_eq!(ret(&call_tx(&mut chain, 0, n, a, "touch", vec![]).await), int(1));
        }
        // Two calls in one block, too.
        let t1 = signed(&key(0), 4, Some(a), 0, call("touch", vec![]));
        let t2 = signed(&key(0), 5, Some(a), 0, call("touch", vec![]));
        let out = chain.block(&[t1, t2]).await.expect("valid");
        assert_eq!(ret(&out.receipts[1]), int(1));
    });
}

#[test]
fn randomness_is_hkdf_of_the_block_seed() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        let src = "from cowboy_sdk import actor, randomness, block_info\n@actor\nclass A:\n    def roll(self, label):\n        return [randomness(label), block_info().height]\n";
        let a = deploy_ok(&mut chain, 0, src, 1, vec![]).await;
        let env = chain.env();
        let r = call_tx(&mut chain, 0, 1, a, "roll", vec![text("dice")]).await;
        let expected = cowboy_exec::randomness::derive(&env.randomness, b"dice");
        assert_eq!(
            ret(&r),
            Value::Array(vec![Value::Bytes(expected.to_vec()), int(env.height)])
        );
    });
}

/// The same actor workload on two fresh databases ends at the same, pinned, root.
#[test]
fn actor_blocks_replay_to_a_golden_root() {
    let run = || {
        deterministic::Runner::default().start(|ctx| async move {
            let mut chain = Chain::new(ctx, 2).await;
            let c = deploy_ok(&mut chain, 0, COUNTER, 1, vec![int(1)]).await;
            let t = deploy_ok(&mut chain, 1, TODO, 1, vec![]).await;
            let txs = vec![
                signed(&key(0), 2, Some(c), 0, call("increment", vec![int(2)])),
                signed(&key(1), 0, Some(t), 7, call("add", vec![text("x")])),
                signed(&key(0), 3, Some(t), 0, call("add", vec![text("")])),
            ];
            let out = chain.block(&txs).await.expect("valid");
            // Block order is by keccak256(R ‖ sender): one of the three fails, whatever its place.
            assert_eq!(out.receipts.iter().filter(|r| r.success).count(), 2);
            cowboy_types::hash::hex_lower(&chain.root())
        })
    };
    let a = run();
    assert_eq!(a, run());
    assert_eq!(
        a, GOLDEN_ROOT,
        "the state transition changed: if deliberate, update GOLDEN_ROOT"
    );
}

const GOLDEN_ROOT: &str = "530df3d7b4a684b9eddd3576ba35adab9efb1c98aab1c76037d65d84c6d0f962";

/// An actor that sends one message and returns its id.
const ASKER: &str = r#"
from cowboy_sdk import actor, send_message


@actor
class Asker:
    def ask(self, target, handler, args):
        return send_message(target, handler, args)
"#;

/// System actors (the mailbox at 0x…0C) are reached like any actor: by a transaction, by an
/// actor's message and by a read-only simulation; reserved addresses without an actor fail
/// clearly, and value is never sent there by a plain transfer.
#[test]
fn system_actors_are_reached_like_actors_and_reserved_addresses_refuse_clearly() {
    use cowboy_types::system::{MAILBOX, TREASURY};
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        let asker = deploy_ok(&mut chain, 0, ASKER, 1, vec![]).await;
        let relay = deploy_ok(&mut chain, 1, RELAY, 1, vec![]).await;
        let bytes = |a: &Address| Value::Bytes(a.0.to_vec());

        // A message to the relay, delivered in the same transaction: its id is in the mailbox.
        let r = call_tx(
            &mut chain,
            0,
            2,
            asker,
            "ask",
            vec![
                text(&relay.to_checksum()),
                text("hops_of"),
                Value::Array(vec![]),
            ],
        )
        .await;
        assert!(r.success, "{:?}", r.error);
        let id = ret(&r);
        assert!(matches!(&id, Value::Bytes(b) if b.len() == 32));

        // A transaction calls the mailbox's `delivered` handler.
        let r = call_tx(
            &mut chain,
            0,
            3,
            MAILBOX,
            "delivered",
            vec![bytes(&relay), id.clone()],
        )
        .await;
        assert!(r.success, "{:?}", r.error);
        assert_eq!(ret(&r), Value::Bool(true));
        let other = Value::Bytes(vec![7; 32]);
        let r = call_tx(
            &mut chain,
            0,
            4,
            MAILBOX,
            "delivered",
            vec![bytes(&relay), other],
        )
        .await;
        assert_eq!(ret(&r), Value::Bool(false));
        assert!(r.cycles_used > 10_000, "the storage read is charged");

        // Typed arguments: a wrong shape is a TypeError, an unknown handler NoSuchHandler.
        let r = call_tx(&mut chain, 0, 5, MAILBOX, "delivered", vec![int(1), int(2)]).await;
        assert_eq!(
            r.error.as_ref().map(|e| e.class.as_str()),
            Some("TypeError")
        );
        let r = call_tx(&mut chain, 0, 6, MAILBOX, "steal", vec![]).await;
        assert_eq!(
            r.error.as_ref().map(|e| e.class.as_str()),
            Some("NoSuchHandler")
        );

        // An actor's message reaches it too; a failing system call fails the transaction
        // and names the message.
        let r = call_tx(
            &mut chain,
            0,
            7,
            asker,
            "ask",
            vec![
                text(&MAILBOX.to_checksum()),
                text("delivered"),
                Value::Array(vec![bytes(&relay), id.clone()]),
            ],
        )
        .await;
        assert!(r.success, "{:?}", r.error);
        let r = call_tx(
            &mut chain,
            0,
            8,
            asker,
            "ask",
            vec![
                text(&MAILBOX.to_checksum()),
                text("nope"),
                Value::Array(vec![]),
            ],
        )
        .await;
        let e = r.error.expect("fails");
        assert_eq!(e.class, "NoSuchHandler");
        assert!(e.message.contains("in message"), "{}", e.message);

        // A reserved address with no system actor: a clear failure from a transaction and at
        // the send_message line.
        let r = call_tx(&mut chain, 0, 9, TREASURY, "anything", vec![]).await;
        let e = r.error.expect("fails");
        assert_eq!(e.class, "NoSuchActor");
        assert!(
            e.message.contains("reserved system address"),
            "{}",
            e.message
        );
        let r = call_tx(
            &mut chain,
            0,
            10,
            asker,
            "ask",
            vec![
                text(&TREASURY.to_checksum()),
                text("x"),
                Value::Array(vec![]),
            ],
        )
        .await;
        let e = r.error.expect("fails");
        assert_eq!(
            (e.class.as_str(), e.line),
            ("ValueError", 8),
            "{}",
            e.message
        );

        // A plain transfer to a system address is not a valid transaction at all.
        let root = chain.root();
        let t = signed(
            &key(0),
            11,
            Some(MAILBOX),
            5,
            cowboy_types::tx::Payload::Transfer,
        );
        let err = chain.block(&[t]).await.expect_err("refused");
        assert!(
            matches!(
                err,
                cowboy_exec::BlockError::Transaction {
                    index: 0,
                    reason: cowboy_exec::TxInvalid::TransferToSystem { to }
                } if to == MAILBOX
            ),
            "{err}"
        );
        assert_eq!(chain.root(), root);

        // A read-only simulation (the RPC's cowboy_call) reaches it the same way.
        let query = signed(
            &key(0),
            11,
            Some(MAILBOX),
            0,
            call("delivered", vec![bytes(&relay), id]),
        );
        let env = chain.env();
        let mut bs = cowboy_exec::BlockState::new(chain.state.batch());
        let sim = cowboy_exec::simulate(&mut bs, &chain.params, &env, key(0).address(), &query)
            .expect("state")
            .expect("valid");
        assert!(sim.receipt.success);
        assert_eq!(
            cbor::decode(&sim.receipt.return_data),
            Ok(Value::Bool(true))
        );
    });
}
