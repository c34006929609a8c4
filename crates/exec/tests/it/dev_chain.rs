//! Dev authorizations (`cowboy_types::tx`, "Dev authorizations"): on a chain whose genesis sets
//! `dev_chain`, set-balance and impersonated transactions are part of the block rule and replay
//! like any other; on every other chain they make a block invalid and change nothing.

use crate::support::*;
use commonware_runtime::{deterministic, Runner as _};
use cowboy_exec::{check_stateless, BlockError, TxInvalid};
use cowboy_types::tx::Payload;
use cowboy_types::{dev_balance_authority, Address, Authorization, Transaction};

/// A set-balance transaction of the test chain: `account`'s balance becomes `amount`.
fn set_balance(nonce: u64, account: Address, amount: u128) -> Transaction {
    Transaction::set_balance(CHAIN_ID, nonce, account, amount)
}

/// `tx` re-authorized as sent by `from` without a signature.
fn impersonated(mut tx: Transaction, from: Address) -> Transaction {
    tx.signature = Some(Authorization::Impersonated(from));
    tx
}

async fn dev_chain(ctx: deterministic::Context) -> Chain {
    let mut chain = Chain::new(ctx, 1).await;
    chain.params.dev_chain = 1;
    chain
}

#[test]
fn without_the_flag_dev_transactions_are_refused_and_change_nothing() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        assert!(!chain.params.is_dev_chain());
        let stranger = Address([0x51; 20]);
        let (a, b) = (key(0), key(1));
        let root = chain.root();
        let spend = impersonated(
            signed(&b, 0, Some(stranger), 1, Payload::Transfer),
            a.address(),
        );
        for tx in [set_balance(0, stranger, 1_000), spend] {
            assert_eq!(
                check_stateless(&tx, &chain.params, CHAIN_ID).map(|_| ()),
                Err(TxInvalid::DevOnly)
            );
            let err = chain.block(&[tx]).await.expect_err("refused");
            assert!(
                matches!(
                    err,
                    BlockError::Transaction {
                        index: 0,
                        reason: TxInvalid::DevOnly
                    }
                ),
                "{err}"
            );
            assert!(err.to_string().contains("cowboyd --dev"), "{err}");
            assert_eq!(chain.root(), root);
        }
        // A flag of any value but 1 is not a dev chain.
        chain.params.dev_chain = 2;
        assert_eq!(
            check_stateless(&set_balance(0, stranger, 1), &chain.params, CHAIN_ID).map(|_| ()),
            Err(TxInvalid::DevOnly)
        );
    });
}

#[test]
fn set_balance_sets_it_and_counts_the_difference_as_minted_or_burned() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = dev_chain(ctx).await;
        let (rich, empty) = (key(0).address(), Address([0x52; 20]));
        let out = chain
            .block(&[set_balance(0, empty, 7_000), set_balance(1, rich, 5)])
            .await
            .expect("valid block");
        assert!(out.receipts.iter().all(|r| r.success && r.fee_paid == 0));
        assert_eq!(chain.account(&empty).await.balance, 7_000);
        assert_eq!(chain.account(&rich).await.balance, 5);
        assert_eq!(out.usage.minted, 7_000);
        assert_eq!(out.usage.burned, FUNDS - 5);
        assert_eq!(out.usage.tips, 0);
        let authority = chain.account(&dev_balance_authority()).await;
        assert_eq!((authority.nonce, authority.balance), (2, 0));

        // Its nonce orders and deduplicates: a replayed set-balance is refused.
        let err = chain
            .block(&[set_balance(0, empty, 1)])
            .await
            .expect_err("replay");
        assert!(
            matches!(
                err,
                BlockError::Transaction {
                    reason: TxInvalid::Nonce {
                        expected: 2,
                        got: 0
                    },
                    ..
                }
            ),
            "{err}"
        );

        // Anything besides a recipient and an amount is refused.
        let mut with_fee = set_balance(2, empty, 1);
        with_fee.cycles_limit = 10_000;
        let mut with_payload = set_balance(2, empty, 1);
        with_payload.payload = vec![0x80];
        let mut deploy = set_balance(2, empty, 1);
        deploy.to = None;
        for tx in [with_fee, with_payload, deploy] {
            assert_eq!(
                check_stateless(&tx, &chain.params, CHAIN_ID).map(|_| ()),
                Err(TxInvalid::SetBalanceShape)
            );
        }
    });
}

#[test]
fn an_impersonated_transaction_runs_as_its_sender_and_pays_like_one() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = dev_chain(ctx).await;
        let owner = Address([0x53; 20]); // nobody holds its key
        let to = Address([0x54; 20]);
        chain
            .block(&[set_balance(0, owner, FUNDS)])
            .await
            .expect("funded");
        // Signed by an unrelated key first: the impersonation replaces the signature, so the
        // key does not matter.
        let tx = impersonated(
            signed(&key(0), 0, Some(to), 1_000, Payload::Transfer),
            owner,
        );
        let checked = check_stateless(&tx, &chain.params, CHAIN_ID).expect("dev chain accepts");
        assert_eq!(checked.sender, owner);
        let out = chain
            .block(std::slice::from_ref(&tx))
            .await
            .expect("valid block");
        let r = &out.receipts[0];
        assert!(r.success && r.fee_paid > 0);
        assert_eq!(out.senders, vec![owner]);
        let account = chain.account(&owner).await;
        assert_eq!(account.nonce, 1);
        assert_eq!(account.balance, FUNDS - 1_000 - r.fee_paid);
        assert_eq!(chain.account(&to).await.balance, 1_000);
        // Nonces hold for impersonated senders too.
        let err = chain.block(&[tx]).await.expect_err("replay");
        assert!(
            matches!(
                err,
                BlockError::Transaction {
                    reason: TxInvalid::Nonce { .. },
                    ..
                }
            ),
            "{err}"
        );
    });
}

#[test]
fn dev_blocks_replay_to_the_same_state() {
    let run = |seed: u64| {
        deterministic::Runner::seeded(seed).start(|ctx| async move {
            let mut chain = dev_chain(ctx).await;
            let owner = Address([0x55; 20]);
            chain
                .block(&[set_balance(0, owner, FUNDS)])
                .await
                .expect("block 1");
            let spend = impersonated(
                signed(&key(0), 0, Some(Address([0x56; 20])), 9, Payload::Transfer),
                owner,
            );
            chain.block(&[spend]).await.expect("block 2");
            (chain.root(), chain.account(&owner).await.balance)
        })
    };
    let (first, second) = (run(1), run(2));
    assert_eq!(first, second);
    assert!(first.1 < FUNDS);
}
