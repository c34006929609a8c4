//! Blocks built and verified on a parent that is executed but not finalized (a notarized
//! block), as simplex asks of a leader: two real [`Chain`]s on commonware's deterministic
//! runtime, one proposing and one verifying, driven directly (no consensus engine), so each
//! step of the pipeline is checked where it happens.

use commonware_runtime::{deterministic, Runner as _, Supervisor as _};
use cowboy_node::chain::{Chain, Verdict};
use cowboy_node::devnet::genesis;
use cowboy_node::mempool::Mempool;
use cowboy_types::{dev_key, Address, Hash32};

use super::transfer;

const TO: Address = Address([0x42; 20]);

async fn open<E: cowboy_state::Context>(context: E, name: &str, dir: &std::path::Path) -> Chain<E> {
    Chain::open(
        context,
        dir,
        &format!("{name}-"),
        genesis(1, "127.0.0.1:9000".parse().expect("addr")),
        Mempool::new(10_000, 64 << 20),
        1_000,
    )
    .await
    .expect("open chain")
}

async fn submit<E: cowboy_state::Context>(chain: &mut Chain<E>, nonce: u64) -> Hash32 {
    let tx = transfer(&dev_key(0), nonce, TO, 1, 100_000, 1);
    chain
        .submit(&tx.encode())
        .await
        .expect("submit")
        .expect("accepted")
}

#[test]
fn a_child_of_an_unfinalized_block_is_built_verified_and_finalized_with_it() {
    deterministic::Runner::default().start(|context| async move {
        let dirs = (
            tempfile::tempdir().expect("dir"),
            tempfile::tempdir().expect("dir"),
        );
        let mut proposer = open(context.child("proposer"), "p", dirs.0.path()).await;
        let mut validator = open(context.child("validator"), "v", dirs.1.path()).await;
        let genesis_hash = proposer.head().hash;

        // Block 1 on the finalized head, verified by the validator: pending on both.
        let tx1 = submit(&mut proposer, 0).await;
        let b1 = proposer
            .build(
                &genesis_hash,
                1_000,
                Address([1; 20]),
                None,
                None,
                &cowboy_exec::block::no_cutoff,
            )
            .await
            .expect("build 1");
        let h1 = b1.header.hash();
        assert_eq!(
            b1.transactions.iter().map(|t| t.hash()).collect::<Vec<_>>(),
            vec![tx1]
        );
        // A relay ahead of the leader with block 1's header and another body: not kept, so
        // the leader's block is not shadowed under its own hash.
        let mut forged = b1.clone();
        forged.transactions.clear();
        assert_eq!(forged.header.hash(), h1);
        assert_eq!(validator.receive(forged), None);
        assert_eq!(validator.receive(b1.clone()), Some(h1));
        assert_eq!(
            validator.verify(&h1).await.expect("verify 1"),
            Verdict::Valid
        );

        // Block 2 on block 1, which neither has finalized. The proposer reads nonces at block
        // 1's staged state, so the transaction already in block 1 is not offered again.
        let tx2 = submit(&mut proposer, 1).await;
        assert!(proposer.extendable(&h1).is_some());
        let b2 = proposer
            .build(
                &h1,
                2_000,
                Address([1; 20]),
                None,
                None,
                &cowboy_exec::block::no_cutoff,
            )
            .await
            .expect("build 2 on an unfinalized parent");
        assert_eq!(b2.header.parent_hash, h1);
        assert_eq!(
            b2.transactions.iter().map(|t| t.hash()).collect::<Vec<_>>(),
            vec![tx2]
        );
        let h2 = b2.header.hash();
        validator.receive(b2.clone());
        assert!(validator.extendable(&h1).is_some(), "block 1 was verified");
        assert_eq!(
            validator.verify(&h2).await.expect("verify 2"),
            Verdict::Valid,
            "the validator re-executes block 2 on block 1's staged state and agrees"
        );

        // One finalization of block 2 finalizes both, to the roots the headers name.
        for chain in [&mut proposer, &mut validator] {
            let done = chain
                .finalize_through(&h2)
                .await
                .expect("finalize")
                .expect("nothing missing");
            assert_eq!(done.len(), 2);
            assert_eq!(chain.head().hash, h2);
            assert_eq!(chain.head().header.state_root, b2.header.state_root);
        }
        assert!(proposer.mempool.is_empty(), "both transactions are final");
    });
}

#[test]
fn finalizing_one_fork_drops_what_was_executed_on_the_other() {
    deterministic::Runner::default().start(|context| async move {
        let dir = tempfile::tempdir().expect("dir");
        let mut chain = open(context.child("chain"), "c", dir.path()).await;
        let head = chain.head().hash;
        submit(&mut chain, 0).await;
        // Two children of the head (two leaders' proposals in different views), and a child
        // of the second.
        let a = chain
            .build(
                &head,
                1_000,
                Address([1; 20]),
                None,
                None,
                &cowboy_exec::block::no_cutoff,
            )
            .await
            .expect("a");
        let b = chain
            .build(
                &head,
                1_001,
                Address([2; 20]),
                None,
                None,
                &cowboy_exec::block::no_cutoff,
            )
            .await
            .expect("b");
        let (ha, hb) = (a.header.hash(), b.header.hash());
        assert_ne!(ha, hb);
        let b2 = chain
            .build(
                &hb,
                2_000,
                Address([2; 20]),
                None,
                None,
                &cowboy_exec::block::no_cutoff,
            )
            .await
            .expect("b2");
        let hb2 = b2.header.hash();
        assert!(chain.extendable(&hb2).is_some());

        chain
            .finalize_through(&ha)
            .await
            .expect("finalize a")
            .expect("nothing missing");
        assert_eq!(chain.head().hash, ha);
        assert!(
            chain.extendable(&hb).is_none(),
            "the losing sibling is gone"
        );
        assert!(
            chain.extendable(&hb2).is_none(),
            "its child's execution is dropped: nothing builds on a fork that lost"
        );
        assert!(chain
            .build(
                &hb2,
                3_000,
                Address([2; 20]),
                None,
                None,
                &cowboy_exec::block::no_cutoff
            )
            .await
            .is_err());
        // The winning fork goes on.
        let a2 = chain
            .build(
                &ha,
                2_000,
                Address([1; 20]),
                None,
                None,
                &cowboy_exec::block::no_cutoff,
            )
            .await
            .expect("a2");
        chain
            .finalize_through(&a2.header.hash())
            .await
            .expect("finalize a2")
            .expect("nothing missing");
        assert_eq!(chain.head().header.height, 2);
    });
}
