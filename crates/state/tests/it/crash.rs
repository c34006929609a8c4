//! Crash safety, for real: a writer process (`state-crash-writer`) commits deterministic blocks
//! to a state and block store on disk and is killed with SIGKILL at varying moments, over and
//! over. After every kill the store must reopen at exactly the state of some committed block `N`
//! — its root equal to the root recomputed in-process for block `N` — with nothing torn, no
//! commit the writer reported lost, the ledger at most one block ahead, and writing must resume.

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use commonware_runtime::{deterministic, tokio, Runner as _, Supervisor as _};
use cowboy_state::{verifier, BlockStore, Root, StateConfig, StateDb};

use crate::support::workload;

/// Heights the writer may reach; roots are precomputed for all of them.
const MAX_HEIGHT: u64 = 800;
/// Kill-and-recover rounds.
const ROUNDS: u64 = 24;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The root after each block, computed in-process on the deterministic (in-memory) runtime.
fn expected_roots() -> Vec<Root> {
    expected_roots_to(MAX_HEIGHT)
}

/// The roots after blocks `0..=max`.
fn expected_roots_to(max: u64) -> Vec<Root> {
    deterministic::Runner::default().start(|context| async move {
        let mut state = StateDb::open(context, &StateConfig::new("state"))
            .await
            .expect("open");
        let mut roots = Vec::new();
        for height in 0..=max {
            roots.push(
                workload::apply_block(&mut state, height)
                    .await
                    .expect("apply"),
            );
        }
        roots
    })
}

/// What a reopened store holds.
struct Recovered {
    height: Option<u64>,
    root: Root,
    /// The root of the block before `height` as its historical view reports it (its changeset,
    /// written before that block's commit, survived the kill).
    previous_root: Option<Root>,
    ledger_tip: Option<u64>,
}

/// Reopen the on-disk store in this process and check its internal consistency.
fn recover(dir: &Path) -> Recovered {
    let cfg = tokio::Config::new().with_storage_directory(dir);
    tokio::Runner::new(cfg).start(|context| async move {
        let blocks = BlockStore::open(context.child("blocks"), "blocks")
            .await
            .expect("reopen blocks");
        let state = StateDb::open(context.child("state"), &StateConfig::new("state"))
            .await
            .expect("reopen state");
        let root = state.root().expect("root");
        let height = state.last_committed().map(|c| c.height);
        let ledger_tip = blocks.last_height().expect("ledger tip");
        if let Some(h) = height {
            assert_eq!(state.last_committed().map(|c| c.root), Some(root));
            // The ledger holds every block whose state is committed, intact.
            assert_eq!(
                blocks.block(h).await.expect("block"),
                Some(workload::block_bytes(h))
            );
            assert_eq!(
                blocks.receipts(h).await.expect("receipts"),
                workload::receipts(h)
            );
            assert_eq!(
                blocks.timer_executions(h).await.expect("timer executions"),
                workload::timer_executions(h)
                    .into_iter()
                    .map(|(_, b)| b)
                    .collect::<Vec<_>>()
            );
            assert_eq!(
                blocks.hook_events(h).await.expect("hook events"),
                workload::hook_events(h)
            );
            assert_eq!(
                blocks
                    .block_by_hash(&workload::block_hash(h))
                    .await
                    .expect("by hash"),
                Some((h, workload::block_bytes(h)))
            );
            for (i, tx) in workload::tx_hashes(h).iter().enumerate() {
                let loc = blocks.tx_location(tx).await.expect("tx").expect("indexed");
                assert_eq!((loc.height, loc.index as usize), (h, i));
            }
            // Reads and proofs work on the recovered state.
            let probe = workload::addr((h * 5) % 48);
            let (account, proof) = state.prove_account(&probe).await.expect("prove");
            verifier::verify_account(&root, &probe, account.as_ref(), &proof)
                .expect("proof on recovered state");
        }
        let previous_root = match height {
            Some(h) if h > 0 => {
                let view = state
                    .at(h - 1)
                    .await
                    .expect("history of the previous block");
                view.account(&workload::addr(h % 48))
                    .await
                    .expect("historical read");
                view.last_committed().map(|c| c.root)
            }
            _ => None,
        };
        Recovered {
            height,
            root,
            previous_root,
            ledger_tip,
        }
    })
}

/// Run the writer; after `lines` commits have been reported (or at once when 0) wait `delay` and
/// SIGKILL it. Returns the heights it reported as committed.
fn run_and_kill(dir: &Path, lines: usize, delay: Duration) -> Vec<(u64, String)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_state-crash-writer"))
        .arg(dir)
        .arg(MAX_HEIGHT.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn writer");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let Some((h, root)) = line.split_once(' ') else {
                continue;
            };
            if tx
                .send((h.parse::<u64>().expect("height"), root.to_string()))
                .is_err()
            {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    while seen.len() < lines {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(entry) => seen.push(entry),
            Err(_) => break,
        }
    }
    std::thread::sleep(delay);
    // `Child::kill` sends SIGKILL on Unix: no destructors, no flushes, no chance to clean up.
    child.kill().expect("kill");
    child.wait().expect("wait");
    reader.join().expect("reader");
    seen.extend(rx.try_iter());
    seen
}

#[test]
fn sigkill_at_any_moment_recovers_the_last_committed_block() {
    let roots = expected_roots();
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("state-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);

    let mut durable: Option<u64> = None;
    let mut distinct_heights = std::collections::BTreeSet::new();
    for round in 0..ROUNDS {
        // Vary the moment: during open/recovery (0 lines), or mid-stream after a few commits,
        // plus a delay that lands at different points of the next commit.
        let lines = (round % 4) as usize;
        let delay = Duration::from_millis((round * 7) % 23);
        let reported = run_and_kill(&dir, lines, delay);
        for (h, root) in &reported {
            assert_eq!(
                *root,
                hex(&roots[*h as usize]),
                "writer reported a wrong root at {h}"
            );
        }

        let recovered = recover(&dir);
        if let Some(h) = recovered.height {
            assert_eq!(
                recovered.root, roots[h as usize],
                "round {round}: torn state at {h}"
            );
            if h > 0 {
                assert_eq!(
                    recovered.previous_root,
                    Some(roots[h as usize - 1]),
                    "round {round}: the changeset of block {} is lost or wrong",
                    h - 1
                );
            }
            distinct_heights.insert(h);
        }
        // Nothing the writer reported committed may be lost, and the state never goes back.
        let last_reported = reported.iter().map(|(h, _)| *h).max();
        assert!(
            recovered.height >= last_reported.max(durable),
            "round {round}: recovered {:?}, writer reported {last_reported:?}, before {durable:?}",
            recovered.height
        );
        // The ledger is the state's height or one block ahead.
        match (recovered.height, recovered.ledger_tip) {
            (Some(h), Some(t)) => assert!(t == h || t == h + 1, "ledger {t} vs state {h}"),
            (None, t) => assert!(t.is_none() || t == Some(0)),
            (Some(h), None) => panic!("state at {h} with an empty ledger"),
        }
        durable = recovered.height;
    }
    assert!(
        distinct_heights.len() >= 5,
        "kills landed on too few distinct heights: {distinct_heights:?}"
    );

    // Writing resumes: a run to completion continues from the recovered block.
    let start = durable.map_or(0, |h| h + 1);
    let target = (start + 10).min(MAX_HEIGHT);
    let out = Command::new(env!("CARGO_BIN_EXE_state-crash-writer"))
        .arg(&dir)
        .arg(target.to_string())
        .output()
        .expect("writer");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let heights: Vec<u64> = text
        .lines()
        .filter_map(|l| l.split_once(' ')?.0.parse().ok())
        .collect();
    assert_eq!(heights.first(), Some(&start));
    assert_eq!(heights.last(), Some(&target));
    let recovered = recover(&dir);
    assert_eq!(recovered.height, Some(target));
    assert_eq!(recovered.root, roots[target as usize]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Damaged files (a torn tail, a flipped byte) are bad input from a file: reopening either
/// recovers to an earlier committed block, exactly, or fails with a typed error — never a panic
/// and never a state that matches no block.
#[test]
fn damaged_log_recovers_to_a_committed_block_or_errors() {
    let roots = expected_roots_to(40);
    let base =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("state-damage-{}", std::process::id()));
    // (description, damage): truncate the log tail, or flip one byte near its end.
    let damages: [Damage; 3] = [
        ("truncate 300 bytes", |f| {
            let len = std::fs::metadata(f).expect("meta").len();
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(f)
                .expect("open");
            file.set_len(len.saturating_sub(300)).expect("truncate");
        }),
        ("flip a byte 200 from the end", |f| flip(f, 200)),
        ("flip a byte 5000 from the end", |f| flip(f, 5000)),
    ];
    for (what, damage) in damages {
        let dir = base.join(what.replace(' ', "-"));
        let _ = std::fs::remove_dir_all(&dir);
        let out = Command::new(env!("CARGO_BIN_EXE_state-crash-writer"))
            .arg(&dir)
            .arg("40")
            .output()
            .expect("writer");
        assert!(out.status.success());
        damage(&dir.join("state-log_data").join("0000000000000000"));

        let cfg = tokio::Config::new().with_storage_directory(&dir);
        let outcome = tokio::Runner::new(cfg).start(|context| async move {
            match StateDb::open(context.child("state"), &StateConfig::new("state")).await {
                Ok(state) => Ok((state.last_committed(), state.root().expect("root"))),
                Err(e) => Err(e),
            }
        });
        eprintln!(
            "{what}: {:?}",
            outcome.as_ref().map(|(c, _)| c.map(|c| c.height))
        );
        match outcome {
            Ok((Some(c), root)) => {
                assert!(c.height <= 40, "{what}");
                assert_eq!(
                    root, roots[c.height as usize],
                    "{what}: state matches no block"
                );
            }
            Ok((None, _)) => {}
            Err(e) => assert!(
                matches!(e, cowboy_state::StateError::Storage(_)),
                "{what}: {e}"
            ),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A named way of damaging a file.
type Damage = (&'static str, fn(&Path));

fn flip(file: &Path, from_end: u64) {
    let mut bytes = std::fs::read(file).expect("read");
    let len = bytes.len() as u64;
    let at = len.saturating_sub(from_end) as usize;
    if let Some(b) = bytes.get_mut(at) {
        *b ^= 0x40;
    }
    std::fs::write(file, bytes).expect("write");
}
