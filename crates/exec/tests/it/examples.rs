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
