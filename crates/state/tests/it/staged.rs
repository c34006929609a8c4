//! Staged blocks (`StateDb::stage`, `batch_on`, `commit_staged`): a block executed on a parent
//! that is not committed reads the parent's writes, gets the root sequential commits give, and
//! commits without merkleizing again; a block staged on a fork that lost is refused and
//! changes nothing.

use std::sync::Arc;

use commonware_runtime::{deterministic, Runner as _, Supervisor as _};
use cowboy_state::verifier::Account;
use cowboy_state::{Changes, StateConfig, StateDb, StateError};

use crate::support::workload::addr;

fn funded(balance: u128) -> Account {
    Account {
        balance,
        ..Account::default()
    }
}

/// Block 1 of the tests: two accounts, storage on the first.
async fn block1<E: cowboy_state::Context>(state: &StateDb<E>) -> Changes {
    let mut b = state.batch();
    b.set_account(&addr(1), &funded(10)).await.expect("a1");
    b.set_account(&addr(2), &funded(20)).await.expect("a2");
    b.set_storage(&addr(1), b"k", b"v1").await.expect("k");
    b.set_storage(&addr(1), b"gone", b"soon")
        .await
        .expect("gone");
    b.finish()
}

#[test]
fn a_child_staged_on_a_staged_parent_matches_sequential_commits() {
    deterministic::Runner::default().start(|context| async move {
        let mut staged_db = StateDb::open(context.child("a"), &StateConfig::new("staged"))
            .await
            .expect("open");
        let mut plain_db = StateDb::open(context.child("b"), &StateConfig::new("plain"))
            .await
            .expect("open");
        for db in [&mut staged_db, &mut plain_db] {
            db.commit(0, Changes::default()).await.expect("genesis");
        }

        // Block 1 staged, block 2 executed on it before block 1 is committed.
        let p = staged_db
            .stage(None, 1, block1(&staged_db).await)
            .await
            .expect("stage 1");
        let mut b = staged_db.batch_on(Some(&p));
        // Reads see the parent's writes.
        assert_eq!(
            b.storage(&addr(1), b"k").await.expect("read"),
            Some(b"v1".to_vec())
        );
        assert_eq!(
            b.account(&addr(2)).await.expect("read").map(|a| a.balance),
            Some(20)
        );
        b.set_storage(&addr(1), b"k", b"v2").await.expect("k2");
        b.delete_storage(&addr(1), b"gone").await.expect("delete");
        b.set_account(&addr(3), &funded(30)).await.expect("a3");
        // A key set and deleted inside the child never existed for the root.
        b.set_storage(&addr(3), b"tmp", b"x").await.expect("tmp");
        b.delete_storage(&addr(3), b"tmp").await.expect("tmp del");
        let counters = b.account(&addr(1)).await.expect("read").expect("a1");
        assert_eq!((counters.storage_items, counters.storage_bytes), (1, 3));
        let child_changes = b.finish();
        let c = staged_db
            .stage(Some(&p), 2, child_changes.clone())
            .await
            .expect("stage 2");

        // The same blocks committed one after the other.
        let c1 = block1(&plain_db).await;
        let r1 = plain_db.commit(1, c1).await.expect("commit 1");
        let r2 = plain_db.commit(2, child_changes).await.expect("commit 2");
        assert_eq!((p.root(), c.root()), (r1, r2));

        // Committing the staged blocks applies them and gives the same roots.
        assert_eq!(staged_db.commit_staged(&p).await.expect("commit p"), r1);
        assert_eq!(staged_db.commit_staged(&c).await.expect("commit c"), r2);
        assert_eq!(staged_db.root().expect("root"), r2);
        assert_eq!(
            staged_db.storage(&addr(1), b"k").await.expect("read"),
            Some(b"v2".to_vec())
        );
        assert_eq!(
            staged_db.storage(&addr(1), b"gone").await.expect("read"),
            None
        );
    });
}

#[test]
fn a_block_on_the_losing_fork_is_refused_and_changes_nothing() {
    deterministic::Runner::default().start(|context| async move {
        let mut db = StateDb::open(context, &StateConfig::new("fork"))
            .await
            .expect("open");
        db.commit(0, Changes::default()).await.expect("genesis");
        // Two siblings at height 1, and a child of the second.
        let mut a = db.batch();
        a.set_account(&addr(1), &funded(1)).await.expect("a");
        let a = db.stage(None, 1, a.finish()).await.expect("stage a");
        let mut b = db.batch();
        b.set_account(&addr(1), &funded(2)).await.expect("b");
        let b = db.stage(None, 1, b.finish()).await.expect("stage b");
        let mut bc = db.batch_on(Some(&b));
        bc.set_account(&addr(2), &funded(3)).await.expect("bc");
        let bc = db.stage(Some(&b), 2, bc.finish()).await.expect("stage bc");

        let root_a = db.commit_staged(&a).await.expect("commit a");
        assert_eq!(
            db.commit_staged(&b).await,
            Err(StateError::HeightMismatch {
                expected: 2,
                got: 1
            })
        );
        assert_eq!(
            db.commit_staged(&bc).await,
            Err(StateError::StaleStage {
                height: 2,
                committed: 1
            })
        );
        // Staging on the losing sibling is refused too.
        assert_eq!(
            db.stage(Some(&b), 2, Changes::default()).await.map(|_| ()),
            Err(StateError::StaleStage {
                height: 2,
                committed: 1
            })
        );
        // Nothing changed: the handle works and holds block a.
        assert_eq!(db.root().expect("root"), root_a);
        assert_eq!(
            db.account(&addr(1)).await.expect("read").map(|x| x.balance),
            Some(1)
        );
        assert_eq!(db.account(&addr(2)).await.expect("read"), None);
        let mut next = db.batch();
        next.set_account(&addr(4), &funded(4)).await.expect("next");
        db.commit(2, next.finish()).await.expect("commit 2");
    });
}

#[test]
fn committing_a_staged_block_releases_its_parent() {
    deterministic::Runner::default().start(|context| async move {
        let mut db = StateDb::open(context, &StateConfig::new("release"))
            .await
            .expect("open");
        db.commit(0, Changes::default()).await.expect("genesis");
        let p = db.stage(None, 1, block1(&db).await).await.expect("stage 1");
        let mut c = db.batch_on(Some(&p));
        c.set_account(&addr(9), &funded(9)).await.expect("c");
        let c = db.stage(Some(&p), 2, c.finish()).await.expect("stage 2");
        assert_eq!(
            Arc::strong_count(&p),
            2,
            "the child holds its staged parent"
        );
        db.commit_staged(&p).await.expect("commit 1");
        db.commit_staged(&c).await.expect("commit 2");
        assert_eq!(
            Arc::strong_count(&p),
            1,
            "a committed child lets its parent go"
        );
    });
}
