//! The result verifier at `0x…03` end to end over real state: runners' `commit` transactions
//! move a job through the dispatcher's hook, every refusal is a typed error that stores
//! nothing, and commitments are readable back.

use crate::dispatcher::*;
use commonware_runtime::{deterministic, Runner as _};
use cowboy_types::cbor::Value;
use cowboy_types::system::{RESULT_VERIFIER, SCHEDULER};
use cowboy_types::{Address, Hash32};

/// The key index of a runner address among `1..=n`.
fn index_of(a: &Address, n: u32) -> u32 {
    (1..n)
        .find(|&k| D::addr(k) == *a)
        .expect("a registered runner")
}

fn commitment(i: u8) -> Value {
    bytes(&[i; 32])
}

async fn commit(d: &mut D, k: u32, id: &Hash32, c: Value) -> Result<(), String> {
    let r = d
        .send(k, RESULT_VERIFIER, 0, "commit", vec![bytes(&id.0), c])
        .await;
    match r.error {
        None => Ok(()),
        Some(e) => {
            assert!(
                r.events.is_empty(),
                "a refused commit's events are reverted"
            );
            Err(e.class)
        }
    }
}

fn stored(d: &mut D, id: &Hash32, a: &Address) -> Value {
    d.query(
        RESULT_VERIFIER,
        "get_commit",
        vec![bytes(&id.0), bytes(&a.0)],
    )
}

#[test]
fn commits_are_stored_and_refusals_are_typed() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 6, job_params()).await;
        d.register(&[1, 2, 3, 4, 5], &[100 * CBY; 5], "api.example.com", 5, 4)
            .await;
        let sm = spec_with(&[
            (
                "verification",
                Some(verification("structured_match", 3, None)),
            ),
            ("timeout_blocks", Some(int(30))),
        ]);
        let id = d.submit_ok(sm, 1_010).await;
        let job = d.job(&id);
        let sel = addrs_of(get(&job, "selected"));
        let ks: Vec<u32> = sel.iter().map(|a| index_of(a, 6)).collect();
        let outsider = (1..=5u32)
            .find(|k| !ks.contains(k))
            .expect("two runners are off the committee");

        assert_eq!(commit(&mut d, ks[0], &id, commitment(1)).await, Ok(()));
        assert_eq!(stored(&mut d, &id, &sel[0]), commitment(1));
        assert_eq!(
            commit(&mut d, ks[0], &id, commitment(9)).await,
            Err("AlreadyCommitted".into())
        );
        assert_eq!(
            stored(&mut d, &id, &sel[0]),
            commitment(1),
            "first one kept"
        );
        assert_eq!(
            commit(&mut d, outsider, &id, commitment(2)).await,
            Err("NotSelected".into())
        );
        assert_eq!(stored(&mut d, &id, &D::addr(outsider)), Value::Null);
        assert_eq!(
            commit(&mut d, ks[1], &Hash32([7; 32]), commitment(2)).await,
            Err("NoSuchJob".into())
        );
        assert_eq!(
            commit(&mut d, ks[1], &id, bytes(&[1; 31])).await,
            Err("TypeError".into()),
            "a commitment is 32 bytes"
        );
        let r = d
            .send(
                ks[1],
                RESULT_VERIFIER,
                5,
                "commit",
                vec![bytes(&id.0), commitment(2)],
            )
            .await;
        assert_eq!(r.error.expect("refused").class, "ValueNotAllowed");
        assert_eq!(stored(&mut d, &id, &sel[1]), Value::Null);

        assert_eq!(commit(&mut d, ks[1], &id, commitment(2)).await, Ok(()));
        assert_eq!(get(&d.job(&id), "status"), &text("assigned"));
        assert_eq!(commit(&mut d, ks[2], &id, commitment(3)).await, Ok(()));
        let job = d.job(&id);
        assert_eq!(get(&job, "status"), &text("committed"));
        let timer = get(&job, "timer_id").as_u64().expect("id");
        assert_eq!(
            d.query(SCHEDULER, "get", vec![int(timer)]),
            Value::Null,
            "the last commit cancels the deadline"
        );
        assert_eq!(
            commit(&mut d, ks[2], &id, commitment(3)).await,
            Err("NotAssigned".into())
        );
        d.check_conservation().await;
    });
}

#[test]
fn a_commit_after_the_deadline_is_late() {
    deterministic::Runner::default().start(|ctx| async move {
        let mut d = D::new(ctx, 3, job_params()).await;
        d.register(&[1, 2], &[100 * CBY; 2], "api.example.com", 5, 4)
            .await;
        let id = d
            .submit_ok(spec_with(&[("timeout_blocks", Some(int(2)))]), 1_010)
            .await;
        let job = d.job(&id);
        let dl = get(&job, "deadline").as_u64().expect("int");
        let k = index_of(&addrs_of(get(&job, "selected"))[0], 3);
        // In a real block past the deadline the timer has already run (begin_block) and moved
        // the job on, so the late commit is refused by the job's state; `LateCommit` is the
        // dispatcher hook's `Late` (a commit in the deadline's own block before the timer),
        // tested at the hook in `dispatcher::`.
        while d.chain.height + 1 < dl {
            d.chain.poke(|_, _, _| {}).await;
        }
        d.empty().await;
        d.empty().await;
        assert!(d.chain.height > dl);
        assert_eq!(
            commit(&mut d, k, &id, commitment(1)).await,
            Err("NotAssigned".into())
        );
        assert_ne!(get(&d.job(&id), "status"), &text("assigned"));
        assert_eq!(stored(&mut d, &id, &D::addr(k)), Value::Null);
    });
}
