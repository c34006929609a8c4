//! Catch-up from a state snapshot over real `cowboyd` processes on loopback (issue 17, item
//! 6; the simulations in `sim.rs` cover the same path on the deterministic runtime, with
//! liars and crashes). Four validators with 10-block epochs and a beacon dealt at genesis:
//!
//! 1. validator 3 is killed with `kill -9` and stays down while the other three finalize more
//!    than two epochs; restarted from its data directory, it installs the state of a certified
//!    epoch boundary: its RPC answers a read of block 1, which it held before, with
//!    `beforeSnapshot` naming a boundary more than an epoch above its old head;
//! 2. validator 2 is killed; validators 0, 1 and 3 finalize three blocks without it, which
//!    needs validator 3's votes and beacon partials (a quorum and `t` are both 3 of 4); then
//!    validator 2 is restarted with a fresh data directory (only its beacon share, the
//!    operator's key material, copied in) and installs a snapshot too;
//! 3. validator 0 is killed for good: 1, 2 and 3 carry the chain across the next epoch
//!    boundary, which needs both snapshot nodes to vote. Their signatures are in the blocks'
//!    vote records.
//!
//! Every running node has the same hash and state root at every height from the snapshots up.
//!
//! `snapshot_catch_up_measure` (run only with `COWBOY_MEASURE_SNAPSHOT` set) times a catch-up
//! by snapshot against one by re-execution (`--no-snapshot-sync`) over the same gap.

use super::*;

/// Blocks per epoch: short, so that being down for two epochs takes seconds.
const EPOCH: u64 = 10;

/// How long any one wait of this test may take (each is a condition, never a timing claim).
const WAIT: Duration = Duration::from_secs(120);

/// The network of the snapshot tests: `n` validators, `EPOCH`-block epochs, a dealt beacon.
fn snapshot_network(dir: &Path, epoch: u64, edit: impl FnOnce(&mut Json)) -> ValidatorNetwork {
    let net = ValidatorNetwork::with_genesis(dir, 4, |g| {
        g["params"] = json!({ "epoch_blocks": epoch });
        edit(g);
    });
    net.deal_beacon();
    net
}

/// Wait until `cond` holds, polling every 100 ms; fail after [`WAIT`] naming `what`.
fn wait_for<T>(what: &str, mut cond: impl FnMut() -> Option<T>) -> T {
    let started = Instant::now();
    loop {
        if let Some(v) = cond() {
            return v;
        }
        assert!(started.elapsed() < WAIT, "{what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Wait until every node in `nodes` is at height `h` or above.
fn wait_heights(nodes: &[&Node], h: u64, what: &str) {
    wait_for(what, || nodes.iter().all(|n| n.height() >= h).then_some(()));
}

/// Validator `i`'s index in the vote records' `signers` (its position in the set, ordered
/// by key; the set never changes in these tests).
fn signer(i: usize) -> u64 {
    use commonware_cryptography::Signer;
    use commonware_utils::TryFromIterator as _;
    let keys = (0..4).map(|k| ValidatorNetwork::key(k).1.public_key());
    let set = commonware_utils::ordered::Set::try_from_iter(keys).expect("distinct keys");
    let key = ValidatorNetwork::key(i).1.public_key();
    set.position(&key).expect("a member") as u64
}

/// The first height in `from..=to` whose block's vote record (read at `node`) holds
/// validator `i`'s vote.
fn voted(node: &Node, i: usize, from: u64, to: u64) -> Option<u64> {
    let me = json!(signer(i));
    (from..=to).find(|h| {
        let b = node.rpc("cowboy_getBlockByNumber", json!([h, false]));
        b["votes"]["signers"]
            .as_array()
            .is_some_and(|s| s.contains(&me))
    })
}

/// Every node of `nodes` has the same block hash and state root at every height in
/// `from..=to`.
fn agree(nodes: &[(usize, &Node)], from: u64, to: u64) {
    for h in from..=to {
        let (i0, first) = nodes[0];
        let expected = first.rpc("cowboy_getBlockByNumber", json!([h, false]));
        for (i, n) in &nodes[1..] {
            let b = n.rpc("cowboy_getBlockByNumber", json!([h, false]));
            assert_eq!(b["hash"], expected["hash"], "v{i} and v{i0} at height {h}");
            assert_eq!(
                b["stateRoot"], expected["stateRoot"],
                "v{i} and v{i0} at height {h}"
            );
        }
    }
}

/// All four validators, started at once (each waits for its RPC), so that none starts an
/// epoch behind the others.
fn start_all(net: &ValidatorNetwork) -> Vec<Option<Node>> {
    std::thread::scope(|s| {
        let started: Vec<_> = (0..4).map(|i| s.spawn(move || net.start(i))).collect();
        started
            .into_iter()
            .map(|t| Some(t.join().expect("a validator starts")))
            .collect()
    })
}

#[test]
fn a_validator_down_for_epochs_catches_up_from_a_snapshot_and_votes() {
    let dir = test_dir();
    let net = snapshot_network(dir.path(), EPOCH, |_| {});
    let mut nodes = start_all(&net);
    let node = |nodes: &[Option<Node>], i: usize| -> Node { nodes[i].as_ref().unwrap().handle() };

    // 1. Validator 3 goes down and stays down while the others finalize the boundaries of two
    //    more epochs than its head's: a catch-up of more than an epoch. (If it started late
    //    it may already hold a snapshot; the one it installs after the restart is higher.)
    wait_heights(&[&node(&nodes, 3)], 3, "the four validators start");
    let old_head = node(&nodes, 3).height();
    nodes[3].take().unwrap().kill9();
    // Its head on disk is `old_head` or a block or two more (finalized before the kill).
    let far = (((old_head + 2) / EPOCH) + 2) * EPOCH + 1;
    let three: Vec<Node> = (0..3).map(|i| node(&nodes, i)).collect();
    wait_heights(
        &three.iter().collect::<Vec<_>>(),
        far,
        "three validators finalize on without validator 3",
    );
    nodes[3] = Some(net.start(3));
    let base3 = wait_for("validator 3 installs a snapshot", || {
        snapshot_height(&node(&nodes, 3)).filter(|b| *b > old_head)
    });
    assert_eq!(
        base3 % EPOCH,
        EPOCH - 1,
        "a snapshot of a boundary: {base3}"
    );
    assert!(
        base3 > old_head + EPOCH,
        "the snapshot at {base3} is more than an epoch above the old head {old_head}"
    );
    // It catches up the rest by re-execution.
    let head = node(&nodes, 0).height();
    wait_heights(
        &[&node(&nodes, 3)],
        head,
        "validator 3 catches up after its snapshot",
    );

    // 2. Validator 2 is killed; 0, 1 and 3 finalize without it (only with validator 3's
    //    votes); then it starts again on an empty data directory holding only its beacon share.
    nodes[2].take().unwrap().kill9();
    let stopped = node(&nodes, 0).height();
    // Three blocks past `stopped` are finalized by 0, 1 and 3 alone (a block at `stopped + 1`
    // may have been notarized with validator 2's vote before the kill).
    let without_v2 = stopped + 3;
    wait_heights(
        &[&node(&nodes, 0)],
        without_v2,
        "validators 0, 1 and 3 finalize without validator 2",
    );
    let fresh = dir.path().join("v2-fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    std::fs::copy(
        dir.path().join("v2").join(cowboy_node::beacon::SHARE_FILE),
        fresh.join(cowboy_node::beacon::SHARE_FILE),
    )
    .unwrap();
    nodes[2] = Some(net.start_in(2, &fresh, &[]));
    let base2 = wait_for("validator 2 installs a snapshot", || {
        snapshot_height(&node(&nodes, 2))
    });
    assert_eq!(
        base2 % EPOCH,
        EPOCH - 1,
        "a snapshot of a boundary: {base2}"
    );
    let head = node(&nodes, 0).height();
    wait_heights(
        &[&node(&nodes, 2)],
        head,
        "validator 2 catches up after its snapshot",
    );
    let v3_voted = voted(&node(&nodes, 0), 3, stopped + 1, without_v2);
    assert!(
        v3_voted.is_some(),
        "no block in {}..={without_v2} records validator 3's vote",
        stopped + 1
    );

    // 3. Validator 0 stops for good: 1, 2 and 3 (a quorum and the beacon's `t` exactly) must
    //    cross the next epoch boundary, so both snapshot nodes vote and sign.
    nodes[0].take().unwrap().kill9();
    let running: Vec<(usize, Node)> = (1..4).map(|i| (i, node(&nodes, i))).collect();
    let stopped = running.iter().map(|(_, n)| n.height()).max().unwrap();
    let target = (stopped / EPOCH + 1) * EPOCH + 2;
    wait_heights(
        &running.iter().map(|(_, n)| n).collect::<Vec<_>>(),
        target,
        "validators 1, 2 and 3 finalize without validator 0",
    );
    for i in [2, 3] {
        assert!(
            voted(&running[0].1, i, stopped + 1, target).is_some(),
            "no block in {}..={target} records validator {i}'s vote",
            stopped + 1
        );
    }
    // The snapshot's own block is served without its records (`beforeSnapshot`); above it
    // every node holds the same chain.
    let refs: Vec<(usize, &Node)> = running.iter().map(|(i, n)| (*i, n)).collect();
    agree(&refs, base2.max(base3) + 1, target);
    agree(&[refs[0], refs[2]], base3 + 1, target);
    assert_eq!(snapshot_height(&running[1].1), Some(base2));
    assert_eq!(snapshot_height(&running[2].1), Some(base3));
}

/// A measurement, not a test: it returns at once unless `COWBOY_MEASURE_SNAPSHOT` is set to
/// `ACCOUNTS:HEIGHT` (e.g. `2000:300`). Validators 0, 1 and 2 (20-block epochs) finalize
/// `ACCOUNTS` transfers, each to a new account, and run to at least `HEIGHT`; then validator 2
/// stops, so the chain halts (two of four are no quorum) at a height `H`. Validator 3 then
/// starts on an empty data directory, twice: catching up by snapshot, then with
/// `--no-snapshot-sync` (re-executing every block), each timed from its start until its
/// height is the halted chain's (its votes then move the chain on a little; it is stopped
/// before the next run, which catches up to the new halt). Prints the times, the gaps and
/// the snapshot's transfer as validator 3's log names it (operations, responses, bytes).
///
/// `COWBOY_MEASURE_SNAPSHOT=2000:300 cargo test -p cowboy-node --test devnet --
/// --exact snapshot::snapshot_catch_up_measure --nocapture`
#[test]
fn snapshot_catch_up_measure() {
    let Ok(spec) = std::env::var("COWBOY_MEASURE_SNAPSHOT") else {
        return;
    };
    let (accounts, height) = spec
        .split_once(':')
        .and_then(|(a, h)| Some((a.parse::<u64>().ok()?, h.parse::<u64>().ok()?)))
        .expect("COWBOY_MEASURE_SNAPSHOT=ACCOUNTS:HEIGHT");
    const SENDERS: u32 = 8;
    const MEASURE_EPOCH: u64 = 20;
    let dir = test_dir();
    let net = snapshot_network(dir.path(), MEASURE_EPOCH, |g| {
        for k in 0..SENDERS {
            g["allocations"][hex0x(&dev_key(k).address().0)] = json!("1000000000000000000000");
        }
    });
    let mut nodes: Vec<Node> = (0..3).map(|i| net.start(i)).collect();
    wait_heights(&[&nodes[0]], 2, "three validators start");

    // The state: `accounts` new accounts, from eight senders, each sending to one validator
    // (in nonce order) 12 at a time: blocks of ~100 transfers. (Before the leaders' build
    // budget, full blocks of 200 took longer to build and verify in the debug `cowboyd` than
    // a view waits, and the chain stalled; with 60 at a time this measures the budget: see
    // the README's limits.)
    let began = Instant::now();
    let mut nonces: Vec<u64> = vec![0; SENDERS as usize];
    let mut sent = 0u64;
    while sent < accounts {
        let mut last = Vec::new();
        for (k, nonce) in nonces.iter_mut().enumerate() {
            let key = dev_key(k as u32);
            for _ in 0..12 {
                if sent == accounts {
                    break;
                }
                let mut to = [0xA0; 20];
                to[12..].copy_from_slice(&sent.to_be_bytes());
                let tx = transfer(&key, *nonce, Address(to), 1, 100_000, 1);
                let target = &nodes[k % 3];
                send(target, &tx).unwrap_or_else(|e| panic!("transfer {sent}: {e}"));
                *nonce += 1;
                sent += 1;
                last.push(tx.hash());
            }
        }
        if let Some(h) = last.last() {
            wait_receipt(&nodes[0], h);
        }
        for h in &last {
            wait_receipt(&nodes[0], h);
        }
    }
    println!(
        "{accounts} accounts made in {:.1} s, head {}",
        began.elapsed().as_secs_f64(),
        nodes[0].height()
    );
    let height = height.max(nodes[0].height() + 2 * MEASURE_EPOCH);
    let long = Duration::from_secs(3_600);
    let started = Instant::now();
    while nodes[0].height() < height {
        assert!(started.elapsed() < long, "the chain stalls");
        std::thread::sleep(Duration::from_millis(200));
    }
    // Halt the chain: two validators of four are no quorum.
    nodes.pop().unwrap().kill9();
    let mut halted = 0;
    for _ in 0..30 {
        std::thread::sleep(Duration::from_millis(100));
        halted = nodes.iter().map(|n| n.height()).max().unwrap();
    }

    let mut results = Vec::new();
    for (run, extra) in [
        ("snapshot", &[][..]),
        ("re-execution", &["--no-snapshot-sync"][..]),
    ] {
        let data = dir.path().join(format!("v3-{run}"));
        std::fs::create_dir_all(&data).unwrap();
        std::fs::copy(
            dir.path().join("v3").join(cowboy_node::beacon::SHARE_FILE),
            data.join(cowboy_node::beacon::SHARE_FILE),
        )
        .unwrap();
        let t = Instant::now();
        let late = net.start_in(3, &data, extra);
        while late.height() < halted {
            assert!(t.elapsed() < long, "{run}: no catch-up");
            std::thread::sleep(Duration::from_millis(20));
        }
        let took = t.elapsed();
        late.kill9();
        let log = std::fs::read_to_string(data.with_extension("log")).unwrap_or_default();
        let installed = log
            .lines()
            .find(|l| l.contains("state snapshot installed"))
            .unwrap_or("no snapshot installed")
            .to_string();
        println!(
            "{run}: caught up from genesis to height {halted} in {:.2} s; {installed}",
            took.as_secs_f64()
        );
        results.push((run, halted, took));
        // Validator 3's votes moved the chain on; it halts again without them.
        for _ in 0..30 {
            std::thread::sleep(Duration::from_millis(100));
            halted = nodes.iter().map(|n| n.height()).max().unwrap();
        }
    }
    println!("{results:?}");
}
