//! State snapshots (`StateDb::snapshot_target`, `serve_snapshot`, `from_snapshot`): a state
//! with many keys, updates, deletes and a pruned log, synced into empty storage from its
//! operations, has the same root, height and reads, and goes on committing like the original;
//! a hostile source (a tampered operation, a wrong proof, a short or truncated response, a
//! forged target) is refused with a typed error and leaves the partitions empty. All on the
//! deterministic runtime, in memory.

use std::num::{NonZeroU64, NonZeroUsize};
use std::time::Duration;

use commonware_codec::{Decode as _, Encode as _, RangeCfg};
use commonware_cryptography::blake3::Digest as Blake3Digest;
use commonware_runtime::{deterministic, Clock, Runner as _, Spawner as _, Supervisor as _};
use commonware_storage::merkle::mmr;
use commonware_storage::qmdb::sync::Response;
use cowboy_state::snapshot::{MAX_SNAPSHOT_OPS, MAX_SNAPSHOT_RESPONSE_BYTES};
use cowboy_state::verifier::Account;
use cowboy_state::{
    Changes, Committed, Context, FetchConfig, SnapshotError, SnapshotRequest, SnapshotSource,
    SnapshotTarget, StateConfig, StateDb, StateError,
};

use crate::support::workload::{addr, apply_block};

type Op =
    commonware_storage::qmdb::any::ordered::variable::Operation<mmr::Family, Vec<u8>, Vec<u8>>;
type Resp = Response<mmr::Family, Op, Blake3Digest>;

/// Blocks of the source state after genesis.
const BLOCKS: u64 = 60;
/// Accounts created at genesis, each with [ENTRIES] storage entries.
const GENESIS_ACCOUNTS: u64 = 120;
const ENTRIES: u64 = 5;

fn genesis_addr(i: u64) -> [u8; 20] {
    let mut a = addr(i);
    a[9] = 0x5A;
    a
}

/// Build the source state: genesis with many accounts and entries, a block deleting a third of
/// them, then the shared workload (updates, rolled-back writes, deletes, code), pruning the log
/// every 16 blocks so the snapshot starts above operation 0.
async fn source_state<E: Context>(context: E) -> StateDb<E> {
    let mut state = StateDb::open(context, &StateConfig::new("source"))
        .await
        .expect("open source");
    let mut b = state.batch();
    for i in 0..GENESIS_ACCOUNTS {
        let account = Account {
            balance: u128::from(i) * 1000,
            ..Account::default()
        };
        b.set_account(&genesis_addr(i), &account)
            .await
            .expect("account");
        for k in 0..ENTRIES {
            b.set_storage(
                &genesis_addr(i),
                &k.to_be_bytes(),
                format!("{i}.{k}").as_bytes(),
            )
            .await
            .expect("entry");
        }
    }
    let changes = b.finish();
    state.commit(0, changes).await.expect("genesis");
    for h in 1..=BLOCKS {
        if h == 5 {
            // Delete a third of the genesis entries (and overwrite another third).
            let mut b = state.batch();
            for i in 0..GENESIS_ACCOUNTS {
                for k in 0..ENTRIES {
                    match (i + k) % 3 {
                        0 => b
                            .delete_storage(&genesis_addr(i), &k.to_be_bytes())
                            .await
                            .expect("delete"),
                        1 => b
                            .set_storage(&genesis_addr(i), &k.to_be_bytes(), b"rewritten")
                            .await
                            .expect("rewrite"),
                        _ => {}
                    }
                }
            }
            let changes = b.finish();
            state.commit(h, changes).await.expect("block 5");
        } else {
            apply_block(&mut state, h).await.expect("block");
        }
        if h % 16 == 0 {
            state.prune().await.expect("prune");
        }
    }
    state
}

/// Every key the source ever wrote (present or deleted), as `(address, storage key)` pairs;
/// accounts are read for every address.
fn all_entries() -> Vec<([u8; 20], Vec<u8>)> {
    let mut out = Vec::new();
    for i in 0..GENESIS_ACCOUNTS {
        for k in 0..ENTRIES {
            out.push((genesis_addr(i), k.to_be_bytes().to_vec()));
        }
    }
    for i in 0..48 {
        for s in 0..7 {
            out.push((addr(i), format!("slot{s}").into_bytes()));
        }
    }
    out
}

async fn assert_same_reads<A: Context, B: Context>(a: &StateDb<A>, b: &StateDb<B>) {
    let mut present = 0;
    for (address, key) in all_entries() {
        let want = a.storage(&address, &key).await.expect("read a");
        present += usize::from(want.is_some());
        assert_eq!(want, b.storage(&address, &key).await.expect("read b"));
    }
    assert!(
        present > 300,
        "the workload leaves many entries ({present})"
    );
    for address in (0..GENESIS_ACCOUNTS)
        .map(genesis_addr)
        .chain((0..48).map(addr))
    {
        assert_eq!(
            a.account(&address).await.expect("account a"),
            b.account(&address).await.expect("account b")
        );
    }
}

/// The partitions of `config` hold nothing.
async fn assert_empty<E: Context>(context: &E, config: &StateConfig) {
    for p in config.partitions() {
        match context.scan(&p).await {
            Ok(blobs) => assert!(blobs.is_empty(), "partition {p} holds {blobs:?}"),
            Err(commonware_runtime::Error::PartitionMissing(_)) => {}
            Err(e) => panic!("scan {p}: {e}"),
        }
    }
}

fn small_fetch() -> FetchConfig {
    FetchConfig {
        batch_ops: NonZeroU64::new(64).expect("nonzero"),
        outstanding: NonZeroUsize::new(3).expect("nonzero"),
    }
}

fn trusted_of(target: &SnapshotTarget) -> Committed {
    Committed {
        height: target.height,
        root: target.root,
    }
}

/// Build a state in `context` from `source` against `target`, trusted at its own height and
/// root, in small batches (many requests per sync).
async fn sync_from<E: Context, S: SnapshotSource>(
    context: E,
    config: &StateConfig,
    target: &SnapshotTarget,
    source: S,
) -> Result<StateDb<E>, SnapshotError> {
    StateDb::from_snapshot(
        context,
        config,
        trusted_of(target),
        target,
        source,
        small_fetch(),
    )
    .await
}

/// An honest peer: serves from its handle on the source state.
struct Peer<E: Context>(StateDb<E>);

impl<E: Context + Send + Sync + 'static> SnapshotSource for Peer<E> {
    type Error = SnapshotError;

    async fn fetch(&self, request: SnapshotRequest) -> Result<Vec<u8>, SnapshotError> {
        // Through the wire encoding, as a network peer would see it.
        let request = SnapshotRequest::decode(&request.encode())?;
        self.0.serve_snapshot(&request).await
    }
}

/// What a hostile peer does to the honest answer.
#[derive(Debug, Clone, Copy)]
enum Lie {
    /// Replace one operation of every operations response by a delete of another key.
    TamperOp,
    /// Flip a bit of one proof digest.
    WrongProof,
    /// Answer with only the first of the proven operations (the proof is of more).
    DropOps,
    /// Cut the encoded response short.
    Truncate,
    /// Answer with a response larger than the bound.
    Oversize,
}

struct Hostile<E: Context>(StateDb<E>, Lie);

fn decode(bytes: &[u8], max_ops: usize) -> Resp {
    let codec = (
        (RangeCfg::from(..=64usize), ()),
        (RangeCfg::from(..=(2usize << 20)), ()),
    );
    Resp::decode_cfg(bytes.to_vec(), &(max_ops, codec)).expect("honest response decodes")
}

impl<E: Context + Send + Sync + 'static> SnapshotSource for Hostile<E> {
    type Error = SnapshotError;

    async fn fetch(&self, request: SnapshotRequest) -> Result<Vec<u8>, SnapshotError> {
        let honest = self.0.serve_snapshot(&request).await?;
        let SnapshotRequest::Operations { max_ops, .. } = request else {
            // Boundary requests are answered honestly: the lies are in the operations.
            return Ok(honest);
        };
        let mut response = decode(&honest, max_ops as usize);
        let Response::Operations { proof, operations } = &mut response else {
            panic!("an operations request gets operations");
        };
        match self.1 {
            Lie::TamperOp => {
                let i = operations.len() / 2;
                operations[i] = Op::Delete(b"\x02forged".to_vec());
            }
            Lie::WrongProof => {
                let d = proof
                    .digests
                    .first_mut()
                    .expect("a proof of a range has digests");
                d.0[0] ^= 1;
            }
            Lie::DropOps => {
                // Keep the first operation only, if there were more; else drop it too.
                if operations.len() > 1 {
                    operations.truncate(1);
                } else {
                    operations.clear();
                }
            }
            Lie::Truncate => return Ok(honest[..honest.len() - 7].to_vec()),
            Lie::Oversize => return Ok(vec![0u8; MAX_SNAPSHOT_RESPONSE_BYTES + 1]),
        }
        Ok(response.encode().to_vec())
    }
}

#[test]
fn a_synced_state_has_the_same_root_height_and_reads_and_goes_on_committing() {
    deterministic::Runner::seeded(7).start(|context| async move {
        let mut source = source_state(context.child("source")).await;
        let target = source
            .snapshot_target()
            .await
            .expect("target")
            .expect("committed");
        assert_eq!(target.height, BLOCKS);
        assert!(
            target.lower > 0,
            "the source pruned, so the snapshot starts above 0"
        );
        assert_eq!(SnapshotTarget::decode(&target.encode()), Ok(target.clone()));

        let config = StateConfig::new("synced");
        let mut synced = sync_from(
            context.child("synced"),
            &config,
            &target,
            Peer(source.snapshot()),
        )
        .await
        .expect("sync");
        assert_eq!(synced.last_committed(), Some(trusted_of(&target)));
        assert_eq!(synced.root(), source.root());
        assert_same_reads(&source, &synced).await;

        // Proofs from the synced state verify against the header's root.
        let (account, proof) = synced.prove_account(&genesis_addr(3)).await.expect("prove");
        assert!(account.is_some());
        cowboy_state::verifier::verify_account(
            &target.root,
            &genesis_addr(3),
            account.as_ref(),
            &proof,
        )
        .expect("a proof from the synced state verifies against the header root");

        // No history below the snapshot.
        assert!(matches!(
            synced.at(BLOCKS - 1).await,
            Err(StateError::HistoryUnavailable { .. })
        ));

        // Both go on with the same blocks and agree.
        for h in BLOCKS + 1..=BLOCKS + 4 {
            let a = apply_block(&mut source, h).await.expect("source block");
            let b = apply_block(&mut synced, h).await.expect("synced block");
            assert_eq!(a, b, "root after block {h}");
        }
        assert_eq!(
            synced
                .at(BLOCKS + 2)
                .await
                .map(|v| v.last_committed().map(|c| c.height)),
            Ok(Some(BLOCKS + 2))
        );

        // The synced state is durable: a reopen recovers it.
        let root = synced.root().expect("root");
        drop(synced);
        let reopened = StateDb::open(context.child("reopened"), &config)
            .await
            .expect("reopen");
        assert_eq!(reopened.root(), Ok(root));
        assert_eq!(
            reopened.last_committed().map(|c| c.height),
            Some(BLOCKS + 4)
        );
        assert_same_reads(&source, &reopened).await;
    });
}

#[test]
fn an_older_target_is_still_served_after_later_commits() {
    deterministic::Runner::seeded(8).start(|context| async move {
        let mut source = source_state(context.child("source")).await;
        let target = source
            .snapshot_target()
            .await
            .expect("target")
            .expect("committed");
        let peer = source.snapshot();
        for h in BLOCKS + 1..=BLOCKS + 3 {
            apply_block(&mut source, h).await.expect("block");
        }
        let synced = StateDb::from_snapshot(
            context.child("synced"),
            &StateConfig::new("synced"),
            trusted_of(&target),
            &target,
            Peer(peer),
            FetchConfig::default(),
        )
        .await
        .expect("sync to the older target");
        assert_eq!(synced.last_committed(), Some(trusted_of(&target)));

        // Pruning moves the log's start past the old target's lower bound: now refused.
        source.prune().await.expect("prune");
        let request = SnapshotRequest::Operations {
            size: target.size,
            start: target.lower,
            max_ops: 8,
        };
        match source.serve_snapshot(&request).await {
            // Pruning keeps whole sections, so the old start may survive it; if it did not,
            // the refusal names what can be served.
            Ok(_) => {}
            Err(SnapshotError::Unavailable { oldest, .. }) => assert!(oldest > target.lower),
            Err(e) => panic!("unexpected {e:?}"),
        }
    });
}

#[test]
fn pruning_keeps_what_a_kept_target_needs() {
    deterministic::Runner::seeded(9).start(|context| async move {
        let mut source = source_state(context.child("source")).await;
        let target = source
            .snapshot_target()
            .await
            .expect("target")
            .expect("committed");
        for h in BLOCKS + 1..=BLOCKS + 30 {
            apply_block(&mut source, h).await.expect("block");
        }
        source
            .prune_keeping(Some(target.lower))
            .await
            .expect("prune");
        let request = SnapshotRequest::Operations {
            size: target.size,
            start: target.lower,
            max_ops: 8,
        };
        source
            .serve_snapshot(&request)
            .await
            .expect("the kept target is still served");
        let synced = StateDb::from_snapshot(
            context.child("synced"),
            &StateConfig::new("synced"),
            trusted_of(&target),
            &target,
            Peer(source.snapshot()),
            small_fetch(),
        )
        .await
        .expect("sync to the kept target");
        assert_eq!(synced.last_committed(), Some(trusted_of(&target)));
    });
}

#[test]
fn a_hostile_source_is_refused_and_leaves_nothing() {
    let cases = [
        (Lie::TamperOp, "invalid"),
        (Lie::WrongProof, "invalid"),
        (Lie::DropOps, "invalid"),
        (Lie::Truncate, "malformed"),
        (Lie::Oversize, "malformed"),
    ];
    for (lie, expected) in cases {
        deterministic::Runner::seeded(9).start(|context| async move {
            let source = source_state(context.child("source")).await;
            let target = source
                .snapshot_target()
                .await
                .expect("target")
                .expect("committed");
            let config = StateConfig::new("synced");
            let result = sync_from(
                context.child("hostile"),
                &config,
                &target,
                Hostile(source.snapshot(), lie),
            )
            .await;
            match (&result, expected) {
                (Err(SnapshotError::InvalidResponse), "invalid") => {}
                (Err(SnapshotError::MalformedResponse(_)), "malformed") => {}
                (other, _) => panic!("{lie:?}: {:?}", other.as_ref().map(|_| "a state")),
            }
            assert_empty(&context, &config).await;
            // Nothing usable: the partitions open as an empty state...
            let empty = StateDb::open(context.child("empty"), &config)
                .await
                .expect("open");
            assert_eq!(empty.last_committed(), None);
            drop(empty);
            cowboy_state::destroy_partitions(&context, &config.partitions())
                .await
                .expect("destroy");
            // ...and an honest peer then fills them.
            let synced = sync_from(
                context.child("honest"),
                &config,
                &target,
                Peer(source.snapshot()),
            )
            .await
            .expect("honest sync after a hostile one");
            assert_eq!(synced.root(), source.root());
        });
    }
}

#[test]
fn a_forged_target_is_refused_before_anything_is_fetched() {
    deterministic::Runner::seeded(10).start(|context| async move {
        let source = source_state(context.child("source")).await;
        let target = source
            .snapshot_target()
            .await
            .expect("target")
            .expect("committed");
        let trusted = trusted_of(&target);
        let config = StateConfig::new("synced");

        // Another state entirely (one block), presented as the trusted one.
        let mut other = StateDb::open(context.child("other"), &StateConfig::new("other"))
            .await
            .expect("open other");
        other.commit(0, Changes::default()).await.expect("commit");
        let mut forged = other
            .snapshot_target()
            .await
            .expect("target")
            .expect("some");
        forged.height = target.height;
        forged.root = target.root;

        let mut wrong_height = target.clone();
        wrong_height.height += 1;
        let mut wrong_witness = target.clone();
        wrong_witness.grafted_root[0] ^= 1;
        let mut empty_range = target.clone();
        empty_range.lower = empty_range.size;

        let check = |t: SnapshotTarget| {
            let context = context.child("attempt");
            let config = config.clone();
            let peer = Peer(source.snapshot());
            async move {
                StateDb::from_snapshot(context, &config, trusted, &t, peer, small_fetch())
                    .await
                    .map(|_| ())
            }
        };
        assert!(matches!(
            check(forged).await,
            Err(SnapshotError::TargetNotAuthentic { .. })
        ));
        assert!(matches!(
            check(wrong_witness).await,
            Err(SnapshotError::TargetNotAuthentic { .. })
        ));
        assert!(matches!(
            check(wrong_height).await,
            Err(SnapshotError::BadTarget(_))
        ));
        assert!(matches!(
            check(empty_range).await,
            Err(SnapshotError::BadTarget(_))
        ));
        assert_empty(&context, &config).await;

        // A lower bound above the state's inactivity floor leaves out operations the state
        // needs (the floor's own commit among them): the build fails and leaves nothing.
        for lower in [target.lower + 300, target.size - 1] {
            let mut too_high = target.clone();
            too_high.lower = lower;
            let result = check(too_high).await;
            assert!(
                matches!(result, Err(SnapshotError::BuildFailed(_))),
                "lower {lower}: {result:?}"
            );
            assert_empty(&context, &config).await;
        }
        // One inside the boundary's bitmap chunk is harmless: the same chunks are pruned, the
        // same state is built, and it has the trusted root (which is what is checked).
        let mut same_chunk = target.clone();
        same_chunk.lower += 1;
        assert_eq!(check(same_chunk).await, Ok(()));
    });
}

/// A peer that answers the first `answers` requests and then never again (a sync that a crash
/// will cut short).
struct Stalls<E: Context>(StateDb<E>, E, std::sync::atomic::AtomicUsize);

impl<E: Context + Clock + Send + Sync + 'static> SnapshotSource for Stalls<E> {
    type Error = SnapshotError;

    async fn fetch(&self, request: SnapshotRequest) -> Result<Vec<u8>, SnapshotError> {
        if self.2.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= 4 {
            self.1.sleep(Duration::from_secs(1 << 30)).await;
        }
        self.0.serve_snapshot(&request).await
    }
}

#[test]
fn a_sync_cut_short_leaves_a_state_that_does_not_open() {
    deterministic::Runner::seeded(13).start(|context| async move {
        let source = source_state(context.child("source")).await;
        let target = source
            .snapshot_target()
            .await
            .expect("target")
            .expect("committed");
        let config = StateConfig::new("synced");
        // The sync runs in a task that is dropped mid-way, as a crash would stop it.
        let sync = context.child("sync").spawn({
            let (config, target) = (config.clone(), target.clone());
            let peer = Stalls(source.snapshot(), context.child("peer"), Default::default());
            move |context| async move {
                let _ = sync_from(context, &config, &target, peer).await;
            }
        });
        context.sleep(Duration::from_secs(10)).await;
        sync.abort();
        let _ = sync.await;

        assert!(matches!(
            StateDb::open(context.child("open"), &config).await,
            Err(StateError::SnapshotUnfinished)
        ));
        let retry = sync_from(
            context.child("retry"),
            &config,
            &target,
            Peer(source.snapshot()),
        )
        .await;
        assert!(matches!(retry, Err(SnapshotError::PartitionNotEmpty(_))));
        // Removing the partitions is the way out, then the sync starts over.
        cowboy_state::destroy_partitions(&context, &config.partitions())
            .await
            .expect("destroy");
        let synced = sync_from(
            context.child("again"),
            &config,
            &target,
            Peer(source.snapshot()),
        )
        .await
        .expect("sync after the crash");
        assert_eq!(synced.root(), source.root());
        drop(synced);
        // A finished snapshot opens.
        let reopened = StateDb::open(context.child("reopen"), &config)
            .await
            .expect("open");
        assert_eq!(reopened.last_committed(), Some(trusted_of(&target)));
    });
}

#[test]
fn a_snapshot_is_only_built_into_empty_storage() {
    deterministic::Runner::seeded(11).start(|context| async move {
        let source = source_state(context.child("source")).await;
        let target = source
            .snapshot_target()
            .await
            .expect("target")
            .expect("committed");
        let config = StateConfig::new("occupied");
        let mut occupied = StateDb::open(context.child("occupied"), &config)
            .await
            .expect("open");
        let root = occupied
            .commit(0, Changes::default())
            .await
            .expect("commit");
        drop(occupied);
        let result = sync_from(
            context.child("sync"),
            &config,
            &target,
            Peer(source.snapshot()),
        )
        .await;
        assert!(matches!(result, Err(SnapshotError::PartitionNotEmpty(_))));
        // The state that was there is untouched.
        let reopened = StateDb::open(context.child("reopen"), &config)
            .await
            .expect("reopen");
        assert_eq!(
            reopened.last_committed().map(|c| (c.height, c.root)),
            Some((0, root))
        );
    });
}

#[test]
fn serving_is_bounded_and_requests_are_checked() {
    deterministic::Runner::seeded(12).start(|context| async move {
        let source = source_state(context.child("source")).await;
        let target = source
            .snapshot_target()
            .await
            .expect("target")
            .expect("committed");

        // A request for far more than the cap gets the cap.
        let request = SnapshotRequest::Operations {
            size: target.size,
            start: target.lower,
            max_ops: 1 << 40,
        };
        let bytes = source.serve_snapshot(&request).await.expect("serve");
        assert!(bytes.len() <= MAX_SNAPSHOT_RESPONSE_BYTES);
        let Response::Operations { operations, .. } = decode(&bytes, 1 << 40) else {
            panic!("operations");
        };
        let left = target.size - target.lower;
        assert_eq!(operations.len() as u64, MAX_SNAPSHOT_OPS.min(left));

        // Beyond the log, or below what is kept: refused, naming what can be served.
        let beyond = SnapshotRequest::Boundary {
            size: target.size + 1,
            start: 0,
        };
        assert!(matches!(
            source.serve_snapshot(&beyond).await,
            Err(SnapshotError::Unavailable { size_now, .. }) if size_now == target.size
        ));

        // The wire form: round trip, and malformed requests are typed errors.
        for r in [request, beyond] {
            assert_eq!(SnapshotRequest::decode(&r.encode()), Ok(r));
        }
        let mut zero = request.encode();
        zero[17..].fill(0);
        assert_eq!(
            SnapshotRequest::decode(&zero),
            Err(SnapshotError::BadRequest("max_ops is zero"))
        );
        let backwards = SnapshotRequest::Operations {
            size: 5,
            start: 5,
            max_ops: 1,
        };
        assert!(matches!(
            SnapshotRequest::decode(&backwards.encode()),
            Err(SnapshotError::BadRequest(_))
        ));
        assert!(matches!(
            SnapshotRequest::decode(&[0u8; 3]),
            Err(SnapshotError::BadRequest(_))
        ));
        assert!(matches!(
            SnapshotTarget::decode(&target.encode()[..50]),
            Err(SnapshotError::BadTarget(_))
        ));
    });
}

/// `StateConfig::partitions` names every partition the state writes, including the ones a
/// snapshot sync creates, so `destroy_partitions` (a failed sync's cleanup, the node's
/// generation switch) really leaves nothing. Checked on real files: the tokio runtime keeps one
/// directory per partition.
#[test]
fn the_state_partitions_are_all_listed_and_destroyed() {
    use commonware_runtime::tokio;
    let dir = std::env::temp_dir().join(format!("cowboy-state-partitions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = tokio::Config::new().with_storage_directory(&dir);
    let listed = tokio::Runner::new(cfg).start(|context| async move {
        let source = source_state(context.child("source")).await;
        let target = source
            .snapshot_target()
            .await
            .expect("target")
            .expect("committed");
        let config = StateConfig::new("synced");
        let synced = sync_from(
            context.child("synced"),
            &config,
            &target,
            Peer(source.snapshot()),
        )
        .await
        .expect("sync");
        drop(synced);
        drop(source);
        let mut listed = StateConfig::new("source").partitions();
        listed.extend(config.partitions());
        cowboy_state::destroy_partitions(&context, &listed)
            .await
            .expect("destroy");
        listed
    });
    let left: Vec<String> = std::fs::read_dir(&dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        // The runtime's own lock file, not a partition.
        .filter(|name| name != ".hold")
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(left.is_empty(), "left behind: {left:?}; listed: {listed:?}");
}
