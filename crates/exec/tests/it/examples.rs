//! The escrow and auction examples (`examples/actors/`) driven through signed transactions:
//! value held by actors, paid out by `transfer`, access control with user exception classes,
//! deadlines in block heights, and refunds.

use crate::support::*;
use commonware_runtime::{deterministic, Runner as _};
use cowboy_types::cbor::{self, Value};
use cowboy_types::{actor_address, code_hash, Address, Hash32, Receipt};

const ESCROW: &str = include_str!("../../../../examples/actors/escrow.py");
const AUCTION: &str = include_str!("../../../../examples/actors/auction.py");

fn text(s: &str) -> Value {
    Value::Text(s.into())
}

fn int(i: u64) -> Value {
    Value::Uint(i)
}

fn addr(i: u32) -> Value {
    text(&key(i).address().to_checksum())
}

/// Send one transaction from key `k` in its own block.
async fn send(
    chain: &mut Chain,
    k: u32,
    to: Option<Address>,
    value: u128,
    payload: cowboy_types::Payload,
) -> Receipt {
    let nonce = chain.account(&key(k).address()).await.nonce;
    let tx = signed(&key(k), nonce, to, value, payload);
    chain
        .block(&[tx])
        .await
        .expect("valid block")
        .receipts
        .remove(0)
}

async fn deploy_with_value(
    chain: &mut Chain,
    source: &str,
    salt: u8,
    value: u128,
    args: Vec<Value>,
) -> Address {
    let r = send(
        chain,
        0,
        None,
        value,
        deploy(source, salt, Value::Array(args)),
    )
    .await;
    assert!(r.success, "deploy failed: {:?}", r.error);
    actor_address(&key(0).address(), &Hash32([salt; 32]), &code_hash(source))
}

fn class_of(r: &Receipt) -> String {
    r.error
        .as_ref()
        .map(|e| e.class.clone())
        .unwrap_or_default()
}

#[test]
fn escrow_releases_to_the_seller_or_refunds_the_buyer() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 3).await;
        let (seller, arbiter) = (key(1).address(), key(2).address());
        let e =
            deploy_with_value(&mut chain, ESCROW, 1, 5_000, vec![addr(1), addr(2), int(3)]).await;
        assert_eq!(chain.account(&e).await.balance, 5_000);

        // Neither the seller nor (before the deadline) the buyer may settle.
        let r = send(&mut chain, 1, Some(e), 0, call("release", vec![])).await;
        assert_eq!(class_of(&r), "Unauthorized");
        let line = ESCROW
            .lines()
            .position(|l| l.contains("only the arbiter can release"))
            .expect("line")
            + 1;
        assert_eq!(r.error.as_ref().expect("error").line, line as u64);
        let r = send(&mut chain, 0, Some(e), 0, call("refund", vec![])).await;
        assert_eq!(class_of(&r), "Unauthorized");

        let before = chain.account(&seller).await.balance;
        let r = send(&mut chain, 2, Some(e), 0, call("release", vec![])).await;
        assert!(r.success, "{:?}", r.error);
        assert_eq!(r.events[0].topic, "released");
        assert_eq!(chain.account(&seller).await.balance, before + 5_000);
        assert_eq!(chain.account(&e).await.balance, 0);
        let r = send(&mut chain, 2, Some(e), 0, call("release", vec![])).await;
        assert_eq!(class_of(&r), "RuntimeError");
        let _ = arbiter;

        // A second escrow: after the deadline the buyer reclaims the deposit.
        let e2 =
            deploy_with_value(&mut chain, ESCROW, 2, 700, vec![addr(1), addr(2), int(2)]).await;
        chain.block(&[]).await.expect("empty block");
        chain.block(&[]).await.expect("empty block");
        let buyer = key(0).address();
        let before = chain.account(&buyer).await.balance;
        let r = send(&mut chain, 0, Some(e2), 0, call("refund", vec![])).await;
        assert!(r.success, "{:?}", r.error);
        assert_eq!(
            chain.account(&buyer).await.balance,
            before + 700 - r.fee_paid
        );
        let status = cbor::decode(
            &send(&mut chain, 1, Some(e2), 0, call("status", vec![]))
                .await
                .return_data,
        )
        .expect("cbor");
        let Value::Map(fields) = status else {
            panic!("status is a map")
        };
        assert!(fields.contains(&(text("state"), text("refunded"))));
    });
}

#[test]
fn auction_refunds_outbid_bidders_and_pays_the_seller() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 3).await;
        let a = deploy_with_value(
            &mut chain,
            AUCTION,
            1,
            0,
            vec![text("lamp"), int(6), int(100)],
        )
        .await;
        let r = send(&mut chain, 1, Some(a), 50, call("bid", vec![])).await;
        assert_eq!(class_of(&r), "ValueError");
        assert_eq!(
            chain.account(&a).await.balance,
            0,
            "a failed bid keeps no value"
        );
        assert!(
            send(&mut chain, 1, Some(a), 200, call("bid", vec![]))
                .await
                .success
        );
        assert_eq!(
            class_of(&send(&mut chain, 2, Some(a), 150, call("bid", vec![])).await),
            "ValueError"
        );

        let bidder1 = key(1).address();
        let before = chain.account(&bidder1).await.balance;
        let r = send(&mut chain, 2, Some(a), 300, call("bid", vec![])).await;
        assert!(r.success, "{:?}", r.error);
        assert_eq!(
            chain.account(&bidder1).await.balance,
            before + 200,
            "outbid bidder refunded"
        );
        assert_eq!(chain.account(&a).await.balance, 300);

        let r = send(&mut chain, 1, Some(a), 0, call("close", vec![])).await;
        assert_eq!(class_of(&r), "RuntimeError");
        while chain.height < 8 {
            chain.block(&[]).await.expect("empty block");
        }
        let seller = key(0).address();
        let before = chain.account(&seller).await.balance;
        let r = send(&mut chain, 1, Some(a), 0, call("close", vec![])).await;
        assert!(r.success, "{:?}", r.error);
        assert_eq!(chain.account(&seller).await.balance, before + 300);
        assert_eq!(chain.account(&a).await.balance, 0);
        let history = cbor::decode(
            &send(&mut chain, 0, Some(a), 0, call("history", vec![]))
                .await
                .return_data,
        )
        .expect("cbor");
        assert_eq!(
            history,
            Value::Array(vec![
                Value::Array(vec![addr(1), int(200)]),
                Value::Array(vec![addr(2), int(300)]),
            ])
        );
    });
}

const TOKEN: &str = include_str!("../../../../examples/actors/token.py");

/// An address in the three letter cases a user meets: all lowercase (as `cowboyd --dev`
/// prints them), checksummed (as `sender()` returns them), all uppercase hex.
fn cases(a: &Address) -> [String; 3] {
    let lower = format!("0x{}", cowboy_types::hash::hex_lower(&a.0));
    let upper = format!(
        "0x{}",
        cowboy_types::hash::hex_lower(&a.0).to_ascii_uppercase()
    );
    [lower, a.to_checksum(), upper]
}

/// A wrong EIP-55 checksum: the checksummed form with the case of its first letter flipped.
fn bad_checksum(a: &Address) -> String {
    let good = a.to_checksum();
    let i = 2 + good[2..]
        .find(|c: char| c.is_ascii_alphabetic())
        .expect("an address with a letter");
    let mut s = good.into_bytes();
    s[i] ^= 0x20;
    String::from_utf8(s).expect("ascii")
}

/// Issue 19: tokens sent to an address typed in lowercase used to land on a storage key its
/// owner (whose `sender()` is checksummed) could never spend from. `Address` parameters are
/// now canonical, so every letter case reaches the same balance.
#[test]
fn token_balances_are_one_key_whatever_the_address_case() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 3).await;
        let tok = deploy_with_value(&mut chain, TOKEN, 1, 0, vec![text("Cow"), int(1000)]).await;
        let owner = key(1).address();
        // Send 100 to each case of key 1's address.
        for (i, a) in cases(&owner).iter().enumerate() {
            let r = send(
                &mut chain,
                0,
                Some(tok),
                0,
                call("transfer", vec![text(a), int(100)]),
            )
            .await;
            assert!(r.success, "case {i}: {:?}", r.error);
            let Value::Map(data) = cbor::decode(&r.events[0].data).expect("cbor") else {
                panic!("event data is a map")
            };
            assert!(data.contains(&(text("to"), text(&owner.to_checksum()))));
        }
        // Every case reads the one balance...
        for a in cases(&owner) {
            let r = send(
                &mut chain,
                2,
                Some(tok),
                0,
                call("balance_of", vec![text(&a)]),
            )
            .await;
            assert_eq!(cbor::decode(&r.return_data).expect("cbor"), int(300), "{a}");
        }
        // ...and its owner spends all of it.
        let back = key(0).address();
        let r = send(
            &mut chain,
            1,
            Some(tok),
            0,
            call("transfer", vec![text(&cases(&back)[0]), int(300)]),
        )
        .await;
        assert!(r.success, "{:?}", r.error);
        let r = send(
            &mut chain,
            2,
            Some(tok),
            0,
            call("balance_of", vec![text(&back.to_checksum())]),
        )
        .await;
        assert_eq!(cbor::decode(&r.return_data).expect("cbor"), int(1000));

        // A mixed-case address whose checksum is wrong is refused, naming the parameter.
        let r = send(
            &mut chain,
            0,
            Some(tok),
            0,
            call("transfer", vec![text(&bad_checksum(&owner)), int(1)]),
        )
        .await;
        assert!(!r.success);
        let e = r.error.expect("error");
        assert!(
            e.message.contains("argument 'to'") && e.message.contains("checksum"),
            "{e:?}"
        );
        let r = send(
            &mut chain,
            0,
            Some(tok),
            0,
            call("transfer", vec![text("0x1234"), int(1)]),
        )
        .await;
        assert!(!r.success);
        // Keyword arguments are normalised too.
        let r = send(
            &mut chain,
            0,
            Some(tok),
            0,
            cowboy_types::Payload::Call {
                handler: "transfer".into(),
                args: Value::Map(vec![
                    (text("amount"), int(5)),
                    (text("to"), text(&cases(&owner)[2])),
                ]),
            },
        )
        .await;
        assert!(r.success, "{:?}", r.error);
        let r = send(
            &mut chain,
            2,
            Some(tok),
            0,
            call("balance_of", vec![text(&owner.to_checksum())]),
        )
        .await;
        assert_eq!(cbor::decode(&r.return_data).expect("cbor"), int(5));
    });
}

/// Issue 19: an escrow deployed with its arbiter typed in lowercase refused the real arbiter.
#[test]
fn escrow_accepts_its_arbiter_typed_in_any_case() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 3).await;
        let seller = key(1).address();
        let arbiter = key(2).address();
        let e = deploy_with_value(
            &mut chain,
            ESCROW,
            1,
            900,
            vec![text(&cases(&seller)[2]), text(&cases(&arbiter)[0]), int(3)],
        )
        .await;
        let before = chain.account(&seller).await.balance;
        let r = send(&mut chain, 2, Some(e), 0, call("release", vec![])).await;
        assert!(r.success, "{:?}", r.error);
        assert_eq!(chain.account(&seller).await.balance, before + 900);

        // A wrong checksum in a deploy argument fails the deploy, naming the parameter.
        let r = send(
            &mut chain,
            0,
            None,
            0,
            deploy(
                ESCROW,
                2,
                Value::Array(vec![
                    text(&seller.to_checksum()),
                    text(&bad_checksum(&arbiter)),
                    int(3),
                ]),
            ),
        )
        .await;
        assert!(!r.success);
        assert!(r
            .error
            .expect("error")
            .message
            .contains("argument 'arbiter'"));
    });
}

/// `address()`, `Address()`, string annotations (PEP 563) and keyword-only parameters.
const ADDRESSES: &str = r#"
from __future__ import annotations
from cowboy_sdk import Address, actor, address, sender


@actor
class Book:
    def norm(self, a, b: Address, *, c: Address = None):
        return [address(a), Address(a), b, c, sender() == b]
"#;

#[test]
fn address_helpers_and_annotation_forms_canonicalise() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        let book = deploy_with_value(&mut chain, ADDRESSES, 1, 0, vec![]).await;
        let me = key(0).address();
        let [lower, checksum, upper] = cases(&me);
        let r = send(
            &mut chain,
            0,
            Some(book),
            0,
            cowboy_types::Payload::Call {
                handler: "norm".into(),
                args: Value::Map(vec![
                    (text("a"), text(&upper)),
                    (text("b"), text(&lower)),
                    (text("c"), text(&upper)),
                ]),
            },
        )
        .await;
        assert!(r.success, "{:?}", r.error);
        let c = text(&checksum);
        assert_eq!(
            cbor::decode(&r.return_data).expect("cbor"),
            Value::Array(vec![c.clone(), c.clone(), c.clone(), c, Value::Bool(true)])
        );
        // An unannotated parameter is the actor's business; None passes an optional one.
        let r = send(
            &mut chain,
            0,
            Some(book),
            0,
            call("norm", vec![text(&lower), Value::Null]),
        )
        .await;
        assert!(r.success, "{:?}", r.error);
        let Value::Array(items) = cbor::decode(&r.return_data).expect("cbor") else {
            panic!("a list")
        };
        assert_eq!(items[2], Value::Null);
        // address() of a bad checksum raises ValueError inside the handler.
        let r = send(
            &mut chain,
            0,
            Some(book),
            0,
            call("norm", vec![text(&bad_checksum(&me)), text(&lower)]),
        )
        .await;
        let e = r.error.expect("error");
        assert_eq!(e.class, "ValueError");
        assert!(e.message.contains("checksum"), "{e:?}");
    });
}
