//! Proof of stake over real `cowboyd` processes on loopback (issue 17; at the end the leaver's
//! owner withdraws its unbonded stake): with 40-block epochs
//! and a threshold beacon the genesis validators generate on chain (`beacon_dkg = 1`: epoch
//! 0's key generation, nothing dealt; if it fails, epoch `e1` generates among its set), a
//! fifth node's owner stakes it in and a genesis validator's owner signals exit, both sent at
//! once in epoch 0. On a loaded machine they may
//! land in a later epoch, and the test follows: `e1` is the epoch after theirs (normally 1).
//! From epoch `e1` the set has the newcomer and not the leaver: the newcomer, which no peer
//! connected to before (it is not in the genesis), syncs over p2p, votes and leads blocks, and
//! epoch `e1`'s resharing round (p2p channel 7) moves the beacon to the new set: every
//! player's share file names round `e1`. Then the leaver is stopped for good, validator 1 is
//! killed with `kill -9` and restarted (it must come back on its round-`e1` share), and
//! validator 0 is stopped for good: validators 1, 2 and the newcomer are now exactly the three
//! of four members consensus needs, and exactly the `t = 3` holders of the new sharing every
//! block's beacon signature needs, so the chain crossing the next boundary proves the
//! restarted node signs with the share it reloaded and the newcomer with the one it was
//! dealt. Every node agrees on every block hash and state root (from the highest state
//! snapshot one of them caught up from, if any did: a node more than an epoch behind on a
//! loaded machine may).

use super::*;

/// Blocks per epoch: long enough for the staking calls sent at height ~3 to be final in
/// epoch 0 on an idle machine, short enough for the test to cross two boundaries quickly.
const EPOCH: u64 = 40;

/// A staking-actor call from `key`, within the system lane's budget.
fn staking_tx(
    node: &Node,
    key: &PrivateKey,
    handler: &str,
    args: Vec<Value>,
    value: u128,
) -> Transaction {
    let payload = Payload::Call {
        handler: handler.into(),
        args: Value::Array(args),
    };
    let mut tx = signed(
        node,
        key,
        Some(cowboy_types::system::STAKING),
        value,
        payload,
    );
    tx.cycles_limit = 500_000;
    tx.sign(key).unwrap();
    tx
}

fn set_of(node: &Node, epoch: u64) -> Vec<String> {
    let set = node.rpc("cowboy_getValidatorSet", json!([epoch]));
    set["members"]
        .as_array()
        .unwrap_or_else(|| panic!("no set for epoch {epoch}: {set}"))
        .iter()
        .map(|m| {
            let v = &m["validator"];
            let hex = v.as_str().or(v["bytes"].as_str());
            hex.unwrap_or_else(|| panic!("a member without an address: {m}"))
                .to_lowercase()
        })
        .collect()
}

fn wait_all(nodes: &[&Node], h: u64, what: &str) {
    let started = Instant::now();
    for node in nodes {
        while node.height() < h {
            assert!(
                started.elapsed() < Duration::from_secs(240),
                "{what}: a node did not reach height {h} (heights {:?})",
                nodes.iter().map(|n| n.height()).collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

#[test]
fn a_validator_stakes_in_another_exits_and_consensus_follows_the_set() {
    use commonware_codec::Encode;
    use commonware_cryptography::Signer;
    use cowboy_exec::system::staking;

    let dir = test_dir();
    let (joiner, leaver) = (4usize, 3usize);
    let joiner_owner = dev_key(1);
    let leaver_owner = dev_key(2);
    let net = ValidatorNetwork::with_genesis(dir.path(), 4, |g| {
        g["params"] = json!({
            "epoch_blocks": EPOCH,
            // 10,000 CBY: the lowest round minimum whose largest vote record (one vote per
            // possible validator) still fits a block in a p2p message (the genesis check).
            "minimum_validator_stake_wei": "10000000000000000000000",
            "beacon_dkg": "1",
            // Short enough that the leaver's stake is free by the end.
            "unbonding_period_secs": "20",
        });
        // The joiner's owner stakes 10,000 CBY and pays fees; the leaver's owner (its coinbase,
        // so its validator address) pays the exit's fee.
        g["allocations"][hex0x(&joiner_owner.address().0)] = json!("20000000000000000000000");
        g["allocations"][hex0x(&leaver_owner.address().0)] = json!("10000000000000000000");
        g["validators"][leaver]["coinbase"] = json!(hex0x(&leaver_owner.address().0));
    });
    let mut nodes: Vec<Option<Node>> = (0..4).map(|i| Some(net.start(i))).collect();
    let coinbase = hex0x(&joiner_owner.address().0);
    nodes.push(Some(net.start_args(
        joiner,
        free_port(),
        &["--coinbase", &coinbase],
    )));
    let node = |nodes: &[Option<Node>], i: usize| -> Node { nodes[i].as_ref().unwrap().handle() };
    wait_height(&node(&nodes, 0), 2);

    // The joiner's owner registers it with its keys; the leaver's owner exits.
    let (seed, key) = ValidatorNetwork::key(joiner);
    let bls = staking::validator_bls_key(&seed.0).expect("bls key");
    let register = staking_tx(
        &node(&nodes, 0),
        &joiner_owner,
        "register",
        vec![
            Value::Bytes(staking::bls_public_key(&bls).to_vec()),
            Value::Bytes(staking::sign_pop(&bls, &joiner_owner.address()).to_vec()),
            Value::Bytes(key.public_key().encode().to_vec()),
        ],
        10_000 * 10u128.pow(18),
    );
    let exit = staking_tx(
        &node(&nodes, 1),
        &leaver_owner,
        "signal_exit",
        Vec::new(),
        0,
    );
    // Both are sent at once, so that they land in one epoch however slow the machine.
    let (r, x) = std::thread::scope(|s| {
        let (n0, n1) = (node(&nodes, 0), node(&nodes, 1));
        let register = s.spawn(move || submit_and_wait(&n0, &register));
        let exit = s.spawn(move || submit_and_wait(&n1, &exit));
        (register.join().unwrap(), exit.join().unwrap())
    });
    assert_eq!(r["success"], json!(true), "register: {r}");
    assert_eq!(x["success"], json!(true), "exit: {x}");
    // The set they change is the one of the epoch after theirs (`e1`), taken in the `end_block`
    // of their epoch's last block. The test follows wherever they landed; it needs only that
    // they share an epoch and that neither is that epoch's last block (then the change would be
    // split over two epochs and two reshare rounds).
    let heights = [r, x].map(|r| r["blockHeight"].as_u64().unwrap());
    let e1 = heights[0] / EPOCH + 1;
    assert!(
        heights
            .iter()
            .all(|h| h / EPOCH + 1 == e1 && h % EPOCH < EPOCH - 1),
        "the staking calls landed at heights {heights:?}, not together inside one epoch"
    );

    // Epoch e1's set: the newcomer in, the leaver out.
    wait_all(&[&node(&nodes, 0)], e1 * EPOCH + 1, "entering epoch e1");
    let set = set_of(&node(&nodes, 0), e1);
    let joiner_addr = coinbase.to_lowercase();
    let leaver_addr = hex0x(&leaver_owner.address().0).to_lowercase();
    assert!(
        set.contains(&joiner_addr),
        "epoch {e1}'s set {set:?} lacks the newcomer"
    );
    assert!(
        !set.contains(&leaver_addr),
        "epoch {e1}'s set {set:?} still has the leaver"
    );
    assert_eq!(set.len(), 4, "epoch {e1}'s set {set:?}");
    // The boundary said so in its block's hook events, which `cowboy_getEvents` serves with
    // the transactions' (no transaction hash; `hook` names the phase).
    let boundary = e1 * EPOCH - 1;
    let hooks = node(&nodes, 0).rpc("cowboy_getHookEvents", json!([boundary]));
    let of = |topic: &str| -> Vec<Json> {
        let all = hooks["end"].as_array().expect("end events").iter();
        all.filter(|e| e["topic"] == json!(topic))
            .cloned()
            .collect()
    };
    let who = |e: &Json| {
        e["dataValue"]["validator"]["bytes"]
            .as_str()
            .map(str::to_lowercase)
    };
    let activated = of("ValidatorActivated");
    assert_eq!(activated.len(), 1, "{hooks}");
    assert_eq!(who(&activated[0]), Some(joiner_addr.clone()));
    let deactivated = of("ValidatorDeactivated");
    assert_eq!(deactivated.len(), 1, "{hooks}");
    assert_eq!(who(&deactivated[0]), Some(leaver_addr.clone()));
    assert_eq!(deactivated[0]["dataValue"]["reason"], json!("exiting"));
    assert_eq!(of("EpochStarted")[0]["dataValue"]["epoch"], json!(e1));
    let staking_addr = hex0x(&cowboy_types::system::STAKING.0);
    let filter = json!([{"address": staking_addr, "topic": "ValidatorActivated", "fromBlock": 0}]);
    let events = node(&nodes, 0).rpc("cowboy_getEvents", filter);
    let events = events.as_array().expect("events");
    assert!(
        events.iter().any(|e| who(e) == Some(joiner_addr.clone())
            && e["blockHeight"] == json!(boundary)
            && e["hook"] == json!("end")
            && e["transactionHash"].is_null()),
        "cowboy_getEvents: {events:?}"
    );
    // Epoch 0's key generation was decided half way through it.
    let filter = json!([{"address": staking_addr, "topic": "BeaconRoundDecided", "fromBlock": 0}]);
    let decided = node(&nodes, 0).rpc("cowboy_getEvents", filter);
    let first = &decided.as_array().expect("events")[0];
    assert_eq!(first["blockHeight"], json!(EPOCH / 2), "{decided}");
    assert_eq!(first["dataValue"]["round"], json!(0));
    assert_eq!(first["dataValue"]["generation"], json!(true));

    // The newcomer syncs and leads a final block in epoch e1.
    let started = Instant::now();
    let led = loop {
        let head = node(&nodes, 0).height();
        let led = (e1 * EPOCH..=head).find(|h| {
            let b = node(&nodes, 0).rpc("cowboy_getBlockByNumber", json!([h, false]));
            b["proposer"].as_str().map(str::to_lowercase) == Some(joiner_addr.clone())
        });
        if let Some(h) = led {
            break h;
        }
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "the newcomer led no block of epoch {e1} (head {head}); its log tail:\n{}",
            tail(&net.log(joiner))
        );
        std::thread::sleep(Duration::from_millis(500));
    };

    // Epoch e1 reshares to its set: each player replaces the share epoch 0's key generation
    // gave it with round e1's (from the outcome block, half way through the epoch); the
    // leaver deals but plays no part. (Had the generation failed, epoch e1 generates among
    // its set, and the shares name round e1 all the same.)
    let started = Instant::now();
    while [0, 1, 2, joiner]
        .iter()
        .any(|&i| net.share_round(i) != Some(e1))
    {
        let rounds: Vec<_> = (0..=joiner).map(|i| net.share_round(i)).collect();
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "epoch {e1} did not reshare: share rounds {rounds:?} at height {}; the newcomer's log tail:\n{}",
            node(&nodes, 0).height(),
            tail(&net.log(joiner))
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    assert_ne!(
        net.share_round(leaver),
        Some(e1),
        "the leaver is no player of round {e1}"
    );

    // The leaver stops for good; validator 1 is killed and restarted on its round-e1 share and
    // catches up; then validator 0 stops for good. Validators 1, 2 and the newcomer, the only
    // quorum left and the only `t` holders of the new sharing, carry the chain across epoch
    // 2's boundary.
    nodes[leaver].take().unwrap().kill9();
    nodes[1].take().unwrap().kill9();
    nodes[1] = Some(net.start(1));
    let caught_up = node(&nodes, 2).height();
    wait_all(
        &[&node(&nodes, 1)],
        caught_up,
        "validator 1 after its restart",
    );
    nodes[0].take().unwrap().kill9();
    let running: Vec<Node> = [1, 2, joiner].iter().map(|&i| node(&nodes, i)).collect();
    let target = ((e1 + 1) * EPOCH + 5)
        .max(led + 5)
        .max(running[1].height() + 10);
    wait_all(
        &running.iter().collect::<Vec<_>>(),
        target,
        "after the exit and the kill -9",
    );

    // Every running node agrees on every block and state root it holds: a node that fell more
    // than an epoch behind on a loaded machine (the newcomer syncing in epoch 0, or validator 1
    // after its restart) may have caught up from a state snapshot of a boundary, and holds
    // only the blocks above it.
    let snapshots: Vec<Option<u64>> = running.iter().map(snapshot_height).collect();
    println!("snapshot heights of validators 1, 2 and the newcomer: {snapshots:?}");
    let from = snapshots.iter().flatten().max().map_or(0, |b| b + 1);
    for h in from..=target {
        let expected = running[0].rpc("cowboy_getBlockByNumber", json!([h, false]));
        for (k, n) in running.iter().enumerate().skip(1) {
            let b = n.rpc("cowboy_getBlockByNumber", json!([h, false]));
            assert_eq!(
                b["hash"], expected["hash"],
                "node {k} differs at height {h}"
            );
            assert_eq!(
                b["stateRoot"], expected["stateRoot"],
                "node {k} differs at height {h}"
            );
        }
    }
    let set2 = set_of(&running[0], e1 + 1);
    assert!(
        set2.contains(&joiner_addr) && !set2.contains(&leaver_addr),
        "epoch {}'s set {set2:?}",
        e1 + 1
    );

    // The leaver's owner takes the stake back: unbonded and out of the set, its record goes
    // and the stake is paid to it.
    let balance = |n: &Node| -> u128 {
        let a = n.rpc("cowboy_getAccount", json!([leaver_addr]));
        a["balance"]
            .as_str()
            .unwrap_or("0")
            .parse()
            .expect("a balance")
    };
    let record = running[0].rpc("cowboy_getValidator", json!([leaver_addr]));
    assert_eq!(record["status"], json!("unbonding"), "the leaver: {record}");
    let stake: u128 = match &record["stake"] {
        Json::String(s) => s.parse().expect("a stake"),
        other => u128::from(other.as_u64().expect("a stake")),
    };
    let before = balance(&running[0]);
    let withdraw = staking_tx(&running[0], &leaver_owner, "withdraw", Vec::new(), 0);
    let w = submit_and_wait(&running[0], &withdraw);
    assert_eq!(w["success"], json!(true), "withdraw: {w}");
    let after = balance(&running[0]);
    // The stake back, less the withdrawal's fee (far below one CBY).
    assert!(
        after > before && after - before + 10u128.pow(18) > stake,
        "the leaver got {} back, its stake is {stake}",
        after.saturating_sub(before)
    );
    let gone = running[0].rpc("cowboy_getValidator", json!([leaver_addr]));
    assert_eq!(gone, Json::Null, "the leaver's record after withdrawing");
}

/// The last 40 lines of a log.
fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}
