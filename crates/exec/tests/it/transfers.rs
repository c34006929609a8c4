//! Transfers and transaction validity end to end: exact fee settlement, supply accounting,
//! every rejection reason of §2.2 leaving the state untouched, and deterministic roots.

use crate::support::*;
use commonware_runtime::{deterministic, Runner as _};
use cowboy_exec::{BlockError, TxInvalid};
use cowboy_types::tx::Payload;
use cowboy_types::Address;
use proptest::prelude::*;

#[test]
fn a_transfer_settles_exactly() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 2).await;
        let (a, b) = (key(0), key(1));
        let tx = signed(&a, 0, Some(b.address()), 1_000, Payload::Transfer);
        let n = tx.encode().len() as u128;
        let out = chain.block(&[tx]).await.expect("valid block");
        let r = &out.receipts[0];
        assert!(r.success);
        // Intrinsic transfer cost only: 10,000 cycles, and a cell per byte of the transaction.
        assert_eq!((r.cycles_used, u128::from(r.cells_used)), (10_000, n));
        // price per cycle = basefee 10 + min(tip 2, 100 − 10) = 12; per cell 5 + min(1, 95) = 6.
        let fee = 120_000 + 6 * n;
        assert_eq!(r.fee_paid, fee);
        assert_eq!(out.usage.burned, 100_000 + 5 * n);
        assert_eq!(out.usage.tips, 20_000 + n);
        let sa = chain.account(&a.address()).await;
        assert_eq!(sa.balance, FUNDS - 1_000 - fee);
        assert_eq!(sa.nonce, 1);
        assert_eq!(chain.account(&b.address()).await.balance, FUNDS + 1_000);
        assert_eq!(chain.account(&chain.proposer).await.balance, 20_000 + n);
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
        // A staking write runs in the system lane (5 % of the cap): a limit above that lane's
        // whole budget fits in no block, so it is refused before any execution.
        let staking = Payload::Call {
            handler: "signal_exit".into(),
            args: cowboy_types::cbor::Value::Array(Vec::new()),
        };
        let mut t = signed(&a, 0, Some(cowboy_types::system::STAKING), 0, staking);
        t.cycles_limit = chain.params.block_cycles_cap / 20 + 1;
        t.sign(&a).expect("sign");
        cases.push((t, "lane"));

        for (tx, what) in cases {
            let err = chain.block(&[tx]).await.expect_err(what);
            let BlockError::Transaction { index, reason } = &err else {
                panic!("{what}: not a transaction error: {err}")
            };
            assert_eq!(*index, 0, "{what}");
            let ok = matches!(
                (reason, what),
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
                    | (
                        TxInvalid::LaneFull(cowboy_exec::lanes::LaneFull { used: 0, .. }),
                        "lane"
                    )
            );
            assert!(ok, "{what}: unexpected {reason:?}");
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
        assert_eq!(
            err,
            BlockError::Transaction {
                index: 2,
                reason: TxInvalid::BlockFull { meter: "cycles" }
            }
        );
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

/// The block rule beyond single transactions: the order is fixed by `keccak256(R ‖ sender)`,
/// a transaction over `max_tx_size_bytes` or with an invalid access list is refused with its
/// typed error, and every byte of a transaction is charged as a cell.
#[test]
fn order_size_access_lists_and_cells_for_every_byte() {
    use cowboy_exec::lanes::order_key;
    use cowboy_types::AccessListEntry;
    deterministic::Runner::default().start(|ctx| async move {
        let mut chain = Chain::new(ctx, 3).await;
        let to = Some(Address([1; 20]));
        let r = chain.env().randomness;
        let mut txs: Vec<_> = (0..3)
            .map(|i| signed(&key(i), 0, to, 1, Payload::Transfer))
            .collect();
        txs.sort_by_key(|t| order_key(&r, &t.sender().expect("signed")));
        txs.swap(0, 1);
        let root = chain.root();
        let err = chain.block_as_is(&txs).await.expect_err("out of order");
        assert!(
            matches!(err, BlockError::OutOfOrder { index: 1, .. }),
            "{err}"
        );
        assert_eq!(chain.root(), root);

        // Too large: named with its size and the limit.
        let mut big = signed(&key(0), 0, to, 1, Payload::Transfer);
        big.access_list = Some(vec![AccessListEntry {
            address: Address([2; 20]),
            storage_keys: (0..200).map(|i| vec![i as u8; 700]).collect(),
        }]);
        big.sign(&key(0)).expect("sign");
        let size = big.encode().len() as u64;
        let err = chain.block(&[big]).await.expect_err("too large");
        assert_eq!(
            err,
            BlockError::Transaction {
                index: 0,
                reason: TxInvalid::TooLarge {
                    size,
                    max: 128 * 1024
                }
            }
        );

        // Access lists (§2.2 (d)): no address or key twice, keys within the state's key size.
        let with_list = |entries: Vec<AccessListEntry>| {
            let mut t = signed(&key(0), 0, to, 1, Payload::Transfer);
            t.access_list = Some(entries);
            t.sign(&key(0)).expect("sign");
            t
        };
        let entry = |a: u8, keys: Vec<Vec<u8>>| AccessListEntry {
            address: Address([a; 20]),
            storage_keys: keys,
        };
        for (bad, what) in [
            (
                vec![entry(2, vec![]), entry(2, vec![])],
                "duplicate address",
            ),
            (
                vec![entry(2, vec![vec![1], vec![2], vec![1]])],
                "duplicate key",
            ),
            (vec![entry(2, vec![vec![0; 1025]])], "long key"),
        ] {
            let err = chain.block(&[with_list(bad)]).await.expect_err(what);
            assert!(
                matches!(
                    err,
                    BlockError::Transaction {
                        reason: TxInvalid::AccessList(_),
                        ..
                    }
                ),
                "{what}: {err}"
            );
        }

        // A valid access list is paid for byte by byte: a transfer's cells are its size.
        let t = with_list(vec![entry(2, (0..50).map(|i| vec![i; 32]).collect())]);
        let size = t.encode().len() as u64;
        assert!(size > 1_700);
        let out = chain.block(&[t]).await.expect("valid");
        assert_eq!(out.receipts[0].cells_used, size);
    });
}

/// The largest block the caps allow fits `GenesisParams::max_block_bytes` (and so the p2p and
/// block-store limits the node checks against it): the cell cap stops a flood of
/// maximum-size transactions.
#[test]
fn a_flood_of_maximum_size_transactions_fills_a_block_within_its_byte_bound() {
    use cowboy_exec::block::{build_block, check_all};
    deterministic::Runner::default().start(|ctx| async move {
        let chain = Chain::new(ctx, 12).await;
        let params = chain.params.clone();
        let txs: Vec<_> = (0..12)
            .map(|i| {
                let mut t = signed(&key(i), 0, Some(Address([1; 20])), 1, Payload::Transfer);
                t.cells_limit = 0;
                t.access_list = Some(vec![cowboy_types::AccessListEntry {
                    address: Address([2; 20]),
                    storage_keys: (0..127).map(|k| vec![k as u8; 1020]).collect(),
                }]);
                let size = t.encode().len() as u64 + 70;
                t.cells_limit = size;
                t.sign(&key(i)).expect("sign");
                assert!(t.encode().len() as u64 <= params.max_tx_size_bytes);
                t
            })
            .collect();
        let checked: Vec<_> = check_all(&txs, &params, CHAIN_ID)
            .into_iter()
            .map(|c| c.expect("valid"))
            .collect();
        let mut bs = cowboy_exec::BlockState::new(chain.state.batch());
        let built = build_block(
            &mut bs,
            &params,
            chain.env(),
            &cowboy_exec::system::staking::CheckedVotes::none(),
            checked,
            &cowboy_exec::block::no_cutoff,
        )
        .expect("state");
        // ~130 KB each against a 1,000,000-cell cap: seven fit, the rest wait.
        assert_eq!(built.included.len(), 7);
        assert!(built
            .skipped
            .iter()
            .all(|(_, r)| *r == TxInvalid::BlockFull { meter: "cells" }));
        let block = cowboy_types::Block {
            header: cowboy_exec::header::genesis_header(&params, 0, cowboy_types::Hash32([0; 32])),
            transactions: built.included.into_iter().map(|c| c.tx).collect(),
            votes: None,
            beacon: None,
            dealer_logs: Vec::new(),
        };
        let bytes = block.encode().len() as u64;
        assert!(
            bytes > 900_000 && bytes <= params.max_block_bytes(),
            "{bytes}"
        );
    });
}

/// The proposer's cutoff (its time budget in the node) stops a build between transactions:
/// the block holds what was tried before it said stop, at least one transaction whatever it
/// says, the rest are neither included nor skipped (they stay pooled), and the block is valid.
#[test]
fn a_proposers_cutoff_seals_the_block_tried_so_far_and_defers_the_rest() {
    use cowboy_exec::block::{check_all, propose, verify};
    use cowboy_exec::header::genesis_header;
    use cowboy_exec::{ChainRules, Parent};
    use cowboy_types::Hash32;
    use std::sync::atomic::{AtomicUsize, Ordering};
    deterministic::Runner::default().start(|ctx| async move {
        let chain = Chain::new(ctx, 5).await;
        let params = chain.params.clone();
        let rules = ChainRules {
            chain_id: CHAIN_ID,
            params: &params,
        };
        let genesis = genesis_header(&params, 1_000, Hash32(chain.root()));
        let parent = Parent {
            header: &genesis,
            hash: genesis.hash(),
        };
        let txs: Vec<_> = (0..5)
            .map(|i| signed(&key(i), 0, Some(Address([1; 20])), 5, Payload::Transfer))
            .collect();
        let candidates = || -> Vec<_> {
            check_all(&txs, &params, CHAIN_ID)
                .into_iter()
                .map(|c| c.expect("valid"))
                .collect()
        };
        for (stop_at, included) in [(2, 2), (1, 1), (0, 1), (9, 5)] {
            // Says stop from its `stop_at`-th question on (never asked before one is in).
            let asked = AtomicUsize::new(0);
            let cutoff = || asked.fetch_add(1, Ordering::Relaxed) + 1 >= stop_at;
            let proposal = propose(
                &chain.state,
                None,
                rules,
                parent,
                2_000,
                Address([9; 20]),
                candidates(),
                None,
                None,
                Vec::new(),
                &cutoff,
            )
            .await
            .expect("state");
            assert_eq!(
                proposal.block.transactions.len(),
                included,
                "stop at {stop_at}"
            );
            assert_eq!(proposal.deferred, 5 - included, "stop at {stop_at}");
            assert!(proposal.skipped.is_empty());
            assert!(
                verify(&chain.state, None, rules, parent, &proposal.block, None)
                    .await
                    .expect("state")
                    .is_ok()
            );
        }
    });
}

/// A Byzantine proposer's blocks: `block::propose` makes a valid block and `block::verify`
/// accepts it; every tampering — each header field, the order, a transaction over the size
/// limit, transactions over the block's cycle cap — is rejected with the typed error naming it, and changes no state.
#[test]
fn verify_rejects_every_tampered_field_of_a_proposal_with_its_typed_error() {
    use cowboy_exec::block::{check_all, propose, verify};
    use cowboy_exec::header::genesis_header;
    use cowboy_exec::lanes::order_key;
    use cowboy_exec::{ChainRules, Parent};
    use cowboy_types::Hash32;
    deterministic::Runner::default().start(|ctx| async move {
        let chain = Chain::new(ctx, 3).await;
        let params = chain.params.clone();
        let rules = ChainRules {
            chain_id: CHAIN_ID,
            params: &params,
        };
        let genesis = genesis_header(&params, 1_000, Hash32(chain.root()));
        let parent = Parent {
            header: &genesis,
            hash: genesis.hash(),
        };
        let txs: Vec<_> = (0..3)
            .map(|i| signed(&key(i), 0, Some(Address([1; 20])), 5, Payload::Transfer))
            .collect();
        let candidates = check_all(&txs, &params, CHAIN_ID)
            .into_iter()
            .map(|c| c.expect("valid"))
            .collect();
        let proposal = propose(
            &chain.state,
            None,
            rules,
            parent,
            2_000,
            Address([9; 20]),
            candidates,
            None,
            None,
            Vec::new(),
            &cowboy_exec::block::no_cutoff,
        )
        .await
        .expect("state");
        assert!(proposal.skipped.is_empty());
        let good = proposal.block;
        assert_eq!(good.transactions.len(), 3);
        assert!(verify(&chain.state, None, rules, parent, &good, None)
            .await
            .expect("state")
            .is_ok());

        let tamper = |f: &dyn Fn(&mut cowboy_types::Block)| {
            let mut b = good.clone();
            f(&mut b);
            b
        };
        let reseal = |b: &mut cowboy_types::Block| {
            b.header.tx_root = cowboy_types::Block::tx_root(&b.transactions);
        };
        let cases: Vec<(cowboy_types::Block, &str)> = vec![
            (tamper(&|b| b.header.height = 5), "height"),
            (
                tamper(&|b| b.header.parent_hash = Hash32([1; 32])),
                "parent_hash",
            ),
            (tamper(&|b| b.header.timestamp_ms = 1_000), "timestamp_ms"),
            (
                tamper(&|b| b.header.randomness = Hash32([2; 32])),
                "randomness",
            ),
            (tamper(&|b| b.header.cycle_basefee += 1), "cycle_basefee"),
            (tamper(&|b| b.header.cell_basefee -= 1), "cell_basefee"),
            (tamper(&|b| b.header.tx_root = Hash32([3; 32])), "tx_root"),
            (
                tamper(&|b| b.header.receipts_root = Hash32([4; 32])),
                "receipts_root",
            ),
            (tamper(&|b| b.header.cycles_used += 1), "cycles_used"),
            (tamper(&|b| b.header.cells_used -= 1), "cells_used"),
            (
                tamper(&|b| b.header.state_root = Hash32([5; 32])),
                "state_root",
            ),
            (
                tamper(&|b| {
                    b.transactions.swap(0, 2);
                    reseal(b);
                }),
                "out of order",
            ),
            (
                // Transactions whose cycle limits are each nearly the block's cap: once the
                // first two have used 10,000 cycles each, the third's limit no longer fits in what
                // the block (and its user lane, every reserve spilled into it) has left.
                tamper(&|b| {
                    let mut heavy: Vec<_> = (0..3)
                        .map(|i| {
                            let mut t =
                                signed(&key(i), 0, Some(Address([1; 20])), 5, Payload::Transfer);
                            t.cycles_limit = params.block_cycles_cap - 15_000;
                            t.sign(&key(i)).expect("sign");
                            t
                        })
                        .collect();
                    heavy.sort_by_cached_key(|t| {
                        order_key(&b.header.randomness, &t.sender().expect("signed"))
                    });
                    b.transactions = heavy;
                    reseal(b);
                }),
                "over the cap",
            ),
            (
                tamper(&|b| {
                    let mut t = b.transactions[0].clone();
                    t.payload = vec![0; 140_000];
                    b.transactions[0] = t;
                    reseal(b);
                }),
                "too large",
            ),
        ];
        for (block, what) in cases {
            let err = verify(&chain.state, None, rules, parent, &block, None)
                .await
                .expect("state")
                .expect_err(what);
            let named = matches!(
                (&err, what),
                (BlockError::Height(_), "height")
                    | (BlockError::ParentHash(_), "parent_hash")
                    | (BlockError::TimestampNotAfterParent { .. }, "timestamp_ms")
                    | (BlockError::Randomness(_), "randomness")
                    | (BlockError::CycleBasefee(_), "cycle_basefee")
                    | (BlockError::CellBasefee(_), "cell_basefee")
                    | (BlockError::TxRoot(_), "tx_root")
                    | (BlockError::ReceiptsRoot(_), "receipts_root")
                    | (BlockError::CyclesUsed(_), "cycles_used")
                    | (BlockError::CellsUsed(_), "cells_used")
                    | (BlockError::StateRoot(_), "state_root")
                    | (BlockError::OutOfOrder { .. }, "out of order")
                    | (
                        BlockError::Transaction {
                            index: 2,
                            reason: TxInvalid::BlockFull { meter: "cycles" },
                        },
                        "over the cap",
                    )
                    | (
                        BlockError::Transaction {
                            index: 0,
                            reason: TxInvalid::TooLarge { .. },
                        },
                        "too large",
                    )
            );
            assert!(named, "{what}: got {err}");
            // The message names the field; got/expected variants say both values.
            assert!(!err.to_string().is_empty());
        }
        // Nothing was committed by any of it.
        assert_eq!(chain.state.root().expect("root"), genesis.state_root.0);
    });
}
