//! Recent state history (`StateDb::at`): a view of the state as of the end of any block in the
//! window reads exactly what the state held then, stays right while later blocks commit,
//! survives a reopen, and a height outside the window is a clear error that names the window.

use commonware_runtime::{deterministic, Runner as _, Supervisor as _};
use cowboy_state::verifier::Account;
use cowboy_state::{Root, StateConfig, StateDb, StateError};

use crate::support::workload::{self, addr};

/// Every account and storage slot the workload touches, as read through `state`.
type Picture = Vec<(Option<Account>, Vec<Option<Vec<u8>>>)>;

async fn picture<E: cowboy_state::Context>(state: &StateDb<E>) -> Picture {
    let mut out = Vec::new();
    for i in 0..48 {
        let account = state.account(&addr(i)).await.expect("account");
        let mut slots = Vec::new();
        for s in 0..7 {
            let key = format!("slot{s}");
            slots.push(state.storage(&addr(i), key.as_bytes()).await.expect("slot"));
        }
        out.push((account, slots));
    }
    out
}

fn config(window: u64) -> StateConfig {
    let mut cfg = StateConfig::new("history");
    cfg.history_blocks = window;
    cfg
}

#[test]
fn views_read_each_recent_block_exactly_and_survive_later_commits_and_reopen() {
    deterministic::Runner::default().start(|context| async move {
        let cfg = config(10);
        let mut expected: Vec<(Root, Picture)> = Vec::new();
        {
            let mut state = StateDb::open(context.child("first"), &cfg)
                .await
                .expect("open");
            for height in 0..30 {
                let root = workload::apply_block(&mut state, height)
                    .await
                    .expect("apply");
                expected.push((root, picture(&state).await));
            }
            assert_eq!(state.history_range().await.expect("range"), Some((19, 29)));
            for h in 19..=29u64 {
                let view = state.at(h).await.expect("in the window");
                let c = view.last_committed().expect("pinned");
                assert_eq!((c.height, c.root), (h, expected[h as usize].0));
                assert_eq!(picture(&view).await, expected[h as usize].1, "block {h}");
            }
            // A view taken now keeps reading its block while later blocks commit.
            let view = state.at(24).await.expect("view");
            for height in 30..34 {
                let root = workload::apply_block(&mut state, height)
                    .await
                    .expect("apply");
                expected.push((root, picture(&state).await));
                assert_eq!(picture(&view).await, expected[24].1, "after block {height}");
            }
        }
        // The changesets are on disk: a reopened state serves the same window.
        let state = StateDb::open(context.child("second"), &cfg)
            .await
            .expect("reopen");
        for h in 23..=33u64 {
            let view = state.at(h).await.expect("in the window after reopen");
            assert_eq!(view.root().expect("root"), expected[h as usize].0);
            assert_eq!(picture(&view).await, expected[h as usize].1, "block {h}");
        }
    });
}

#[test]
fn outside_the_window_is_a_clear_error_and_views_only_read() {
    deterministic::Runner::default().start(|context| async move {
        let mut state = StateDb::open(context, &config(5)).await.expect("open");
        let err = state.at(0).await.err().expect("nothing committed");
        assert!(err.to_string().contains("nothing is committed"), "{err}");
        for height in 0..12 {
            workload::apply_block(&mut state, height)
                .await
                .expect("apply");
        }
        for h in [0, 5, 12, 1000] {
            let err = state.at(h).await.err().expect("outside the window");
            assert_eq!(
                err,
                StateError::HistoryUnavailable {
                    height: h,
                    oldest: 6,
                    latest: Some(11)
                }
            );
        }
        let err = state.at(5).await.err().expect("outside");
        assert!(
            err.to_string()
                .contains("blocks 6..=11 (its history window)"),
            "{err}"
        );

        let mut view = state.at(8).await.expect("view");
        assert_eq!(
            view.prove_account(&addr(1)).await.err(),
            Some(StateError::HistoricalProof(8))
        );
        let changes = view.batch().finish();
        assert_eq!(view.commit(9, changes).await, Err(StateError::ReadOnly));
        assert_eq!(view.prune().await, Err(StateError::ReadOnly));
        // A batch over a view reads the view (what re-executing an old block needs).
        let batch = view.batch();
        let old = state.at(8).await.expect("view");
        assert_eq!(
            batch.account(&addr(3)).await.expect("read"),
            old.account(&addr(3)).await.expect("read")
        );
    });
}

#[test]
fn a_view_folding_more_than_the_cap_is_refused_and_a_recent_one_still_reads() {
    deterministic::Runner::default().start(|context| async move {
        let mut cfg = config(50);
        // Enough for a few blocks of the workload's changes, not for twenty.
        cfg.history_fold_bytes = 4 << 10;
        let mut state = StateDb::open(context, &cfg).await.expect("open");
        let mut pictures = Vec::new();
        for height in 0..20 {
            workload::apply_block(&mut state, height)
                .await
                .expect("apply");
            pictures.push(picture(&state).await);
        }
        let old = state.at(1).await.expect("in the window");
        let err = old.account(&addr(1)).await.expect_err("over the cap");
        match &err {
            StateError::HistoryTooLarge { height, cap, .. } => {
                assert_eq!((*height, *cap), (1, 4 << 10));
            }
            other => panic!("expected HistoryTooLarge, got {other:?}"),
        }
        assert!(
            err.to_string().contains("read a more recent block"),
            "{err}"
        );
        // Still refused on a retry: the view does not start over and fold again.
        assert!(old.account(&addr(1)).await.is_err());
        let recent = state.at(18).await.expect("in the window");
        assert_eq!(picture(&recent).await, pictures[18]);
    });
}
