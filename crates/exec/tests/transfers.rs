//! Transfers and transaction validity end to end: exact fee settlement, supply accounting,
//! every rejection reason of §2.2 leaving the state untouched, and deterministic roots.

mod support;

use commonware_runtime::{deterministic, Runner as _};
use cowboy_exec::TxInvalid;
use cowboy_types::tx::Payload;
use cowboy_types::Address;
use proptest::prelude::*;
use support::*;

#[test]
fn a_transfer_settles_exactly() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 2).await;
        let (a, b) = (key(0), key(1));
        let tx = signed(&a, 0, Some(b.address()), 1_000, Payload::Transfer);
        let out = chain.block(&[tx]).await.expect("valid block");
        let r = &out.receipts[0];
        assert!(r.success);
        // Intrinsic transfer cost only: 10,000 cycles, 0 cells.
        assert_eq!((r.cycles_used, r.cells_used), (10_000, 0));
        // price per cycle = basefee 10 + min(tip 2, 100 − 10) = 12.
        assert_eq!(r.fee_paid, 120_000);
        assert_eq!(out.usage.burned, 100_000);
        assert_eq!(out.usage.tips, 20_000);
        let sa = chain.account(&a.address()).await;
        assert_eq!(sa.balance, FUNDS - 1_000 - 120_000);
        assert_eq!(sa.nonce, 1);
        assert_eq!(chain.account(&b.address()).await.balance, FUNDS + 1_000);
        assert_eq!(chain.account(&chain.proposer).await.balance, 20_000);
        // A block far below target lowers both basefees (by at most 12.5%).
        assert!(out.next_basefees.cycle < 10 && out.next_basefees.cycle >= 8);
    });
}

#[test]
fn invalid_transactions_make_the_block_invalid_and_change_nothing() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 2).await;
        let (a, b) = (key(0), key(1));
        let to = Some(b.address());
        let root = chain.root();

        let mut cases: Vec<(cowboy_types::Transaction, &str)> = Vec::new();
        cases.push((signed(&a, 1, to, 1, Payload::Transfer), "nonce"));
        let mut t = signed(&a, 0, to, 1, Payload::Transfer);
        t.chain_id = 8;
        cases.push((t, "chain"));
        let mut t = signed(&a, 0, to, 1, Payload::Transfer);
        t.signature = None;
        cases.push((t, "unsigned"));
        let mut t = signed(&a, 0, to, 1, Payload::Transfer);
        t.value = 2; // signed for value 1: recovers another (unfunded) sender or fails
        cases.push((t, "tampered"));
        cases.push((signed(&a, 0, to, FUNDS, Payload::Transfer), "balance"));
        let mut t = signed(&a, 0, to, 1, Payload::Transfer);
        t.cycles_limit = 9_999;
        t.sign(&a).expect("sign");
        cases.push((t, "intrinsic"));
        let mut t = signed(&a, 0, to, 1, Payload::Transfer);
        t.max_fee_per_cycle = 9;
        t.sign(&a).expect("sign");
        cases.push((t, "underpriced"));
        let mut t = signed(&a, 0, to, 1, Payload::Transfer);
        t.cycles_limit = chain.params.block_cycles_cap + 1;
        t.sign(&a).expect("sign");
        cases.push((t, "limit"));
        let mut t = signed(&a, 0, None, 0, Payload::Transfer);
        t.payload = vec![0xff];
        t.sign(&a).expect("sign");
        cases.push((t, "payload"));

        for (tx, what) in cases {
            let err = chain.block(&[tx]).await.expect_err(what);
            assert_eq!(err.index, 0, "{what}");
            let ok = matches!(
                (&err.reason, what),
                (
                    TxInvalid::Nonce {
                        expected: 0,
                        got: 1
                    },
                    "nonce"
                ) | (
                    TxInvalid::WrongChain {
                        expected: 7,
                        got: 8
                    },
                    "chain"
                ) | (TxInvalid::Signature(_), "unsigned")
                    | (
                        TxInvalid::InsufficientBalance { .. } | TxInvalid::Signature(_),
                        "tampered"
                    )
                    | (TxInvalid::InsufficientBalance { .. }, "balance")
                    | (
                        TxInvalid::Intrinsic {
                            meter: "cycles",
                            needed: 10_000,
                            limit: 9_999
                        },
                        "intrinsic"
                    )
                    | (TxInvalid::Fees(_), "underpriced" | "limit")
                    | (TxInvalid::Payload(_), "payload")
            );
            assert!(ok, "{what}: unexpected {:?}", err.reason);
            assert!(!err.to_string().is_empty());
            assert_eq!(chain.root(), root, "{what} changed the state");
        }
        // The sender can still use nonce 0.
        let ok = signed(&a, 0, to, 1, Payload::Transfer);
        assert!(chain.block(&[ok]).await.expect("valid").receipts[0].success);
    });
}

#[test]
fn the_block_caps_bound_the_limits_of_included_transactions() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 1).await;
        let a = key(0);
        let cap = chain.params.block_cycles_cap;
        let mut t1 = signed(&a, 0, Some(Address([1; 20])), 1, Payload::Transfer);
        t1.cycles_limit = cap - 5_000;
        t1.sign(&a).expect("sign");
        // As with EIP-1559's gas limit: a limit must fit in the cap minus what the block has
        // *used* so far (each transfer uses 10,000 cycles).
        let mut t2 = signed(&a, 1, Some(Address([1; 20])), 1, Payload::Transfer);
        t2.cycles_limit = cap - 10_000;
        t2.sign(&a).expect("sign");
        let mut t3 = signed(&a, 2, Some(Address([1; 20])), 1, Payload::Transfer);
        t3.cycles_limit = cap - 20_000 + 1;
        t3.sign(&a).expect("sign");
        let err = chain
            .block(&[t1, t2, t3])
            .await
            .expect_err("third does not fit");
        assert_eq!(err.index, 2);
        assert_eq!(err.reason, TxInvalid::BlockFull { meter: "cycles" });
    });
}

/// Runs the same blocks on two fresh states and returns both roots.
fn roots_of(seed: u64, plan: Vec<(u32, u32, u128)>) -> ([u8; 32], [u8; 32], bool) {
    let run = |plan: Vec<(u32, u32, u128)>| {
        deterministic::Runner::seeded(seed).start(|ctx| async move {
            let mut chain = Chain::new(ctx, 4).await;
            let mut nonces = [0u64; 4];
            let start: u128 = 4 * FUNDS;
            let mut burned = 0u128;
            for chunk in plan.chunks(3) {
                let txs: Vec<_> = chunk
                    .iter()
                    .map(|&(from, to, v)| {
                        let n = nonces[from as usize];
                        nonces[from as usize] += 1;
                        signed(&key(from), n, Some(key(to).address()), v, Payload::Transfer)
                    })
                    .collect();
                let out = chain.block(&txs).await.expect("valid");
                burned += out.usage.burned;
            }
            let mut total = chain.account(&chain.proposer).await.balance;
            for i in 0..4 {
                total += chain.account(&key(i).address()).await.balance;
            }
            (chain.root(), total == start - burned)
        })
    };
    let (r1, supply_ok) = run(plan.clone());
    let (r2, _) = run(plan);
    (r1, r2, supply_ok)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Total supply falls by exactly the burned basefees, and the root is a function of the
    /// blocks alone (two runs, two fresh databases, one root).
    #[test]
    fn supply_changes_by_exactly_the_burn(
        plan in proptest::collection::vec((0u32..4, 0u32..4, 0u128..1_000_000_000u128), 1..10),
        seed in any::<u64>(),
    ) {
        let (r1, r2, supply_ok) = roots_of(seed, plan);
        prop_assert!(supply_ok);
        prop_assert_eq!(r1, r2);
    }
}
