//! Devnet controls (issue 19, item 4) over real `cowboyd` processes: on-demand blocks
//! (`--block-time 0`), `dev_mine`, the dev clock, snapshot and revert (the rebuilt chain keeps
//! its hashes and survives a restart), set-balance and impersonation (transactions in blocks,
//! so they survive restarts and reverts undo them), the controls refused without `--dev`, and
//! the data directory's lock.

use super::*;
use cowboy_types::Authorization;

fn on_demand(dir: &Path) -> Node {
    Node::start_with(dir, &["--dev", "--block-time", "0"], free_port())
}

fn block(node: &Node, height: u64) -> Json {
    node.rpc("cowboy_getBlockByNumber", json!([height]))
}

fn balance(node: &Node, a: &Address) -> u128 {
    node.rpc("cowboy_getAccount", json!([hex0x(&a.0)]))["balance"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// Stop `node` with SIGTERM (a clean shutdown) and start it again on `dir`.
fn restart(mut node: Node, dir: &Path) -> Node {
    let status = Command::new("kill")
        .args(["-TERM", &node.process().id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    node.process().wait().unwrap();
    drop(node);
    on_demand(dir)
}

fn pay(node: &Node, from: &PrivateKey, to: Address, value: u128) -> Json {
    submit_and_wait(
        node,
        &signed(node, from, Some(to), value, Payload::Transfer),
    )
}

#[test]
fn on_demand_blocks_come_from_transactions_and_dev_mine_only() {
    let dir = tempfile::tempdir().unwrap();
    let node = on_demand(dir.path());
    let mode = node.rpc("dev_mining", json!([]));
    assert_eq!(mode["mode"], json!("onDemand"), "{mode}");

    // A transaction is sealed at once, and nothing follows it.
    let r = pay(&node, &dev_key(0), Address([7; 20]), 5);
    let h = r["blockHeight"].as_u64().unwrap();
    assert_eq!(node.height(), h, "no block without a transaction");
    assert_eq!(node.rpc("dev_mine", json!([])), json!(h + 1));
    assert_eq!(node.rpc("dev_mine", json!([5])), json!(h + 6));
    assert_eq!(node.height(), h + 6, "exactly the blocks asked for");
    for bad in [json!([0]), json!([10_001]), json!([-1]), json!(["x"])] {
        let e = node.try_rpc("dev_mine", bad.clone()).unwrap_err();
        assert_eq!(e["code"], json!(-32602), "{bad}: {e}");
    }
    assert_eq!(node.height(), h + 6, "a refused dev_mine mines nothing");

    // The clock: forward a day, then a fixed timestamp, each on the next block.
    let before = block(&node, h + 6)["timestamp"].as_u64().unwrap();
    let day = 86_400_000u64;
    assert_eq!(node.rpc("dev_increaseTime", json!([day])), json!(day));
    node.rpc("dev_mine", json!([1]));
    let after = block(&node, h + 7)["timestamp"].as_u64().unwrap();
    assert!(after >= before + day, "{before} -> {after}");
    let fixed = after + 5 * day;
    node.rpc("dev_setNextBlockTimestamp", json!([fixed]));
    node.rpc("dev_mine", json!([2]));
    assert_eq!(block(&node, h + 8)["timestamp"], json!(fixed));
    assert!(block(&node, h + 9)["timestamp"].as_u64().unwrap() > fixed);
    let e = node
        .try_rpc("dev_setNextBlockTimestamp", json!([fixed]))
        .unwrap_err();
    assert_eq!(e["code"], json!(-32602), "{e}");
    let e = node
        .try_rpc("dev_increaseTime", json!([u64::MAX]))
        .unwrap_err();
    assert_eq!(e["code"], json!(-32602), "{e}");
}

#[test]
fn revert_rebuilds_the_chain_at_the_snapshot_with_the_same_hashes() {
    let dir = tempfile::tempdir().unwrap();
    let node = on_demand(dir.path());
    let (alice, bob) = (dev_key(0), Address([9; 20]));
    pay(&node, &alice, bob, 100);
    let s0 = node.rpc("dev_snapshot", json!([])).as_u64().unwrap();
    let h0 = node.height();
    let at_s0 = block(&node, h0);

    let r1 = pay(&node, &alice, bob, 20);
    let s1 = node.rpc("dev_snapshot", json!([])).as_u64().unwrap();
    let h1 = node.height();
    let at_s1 = block(&node, h1);
    let r2 = pay(&node, &alice, bob, 3);
    node.rpc("dev_mine", json!([4]));
    assert_eq!(balance(&node, &bob), 123);

    assert_eq!(node.rpc("dev_revert", json!([s1])), json!(h1));
    assert_eq!(node.height(), h1);
    assert_eq!(
        block(&node, h1),
        at_s1,
        "the rebuilt block is the same block"
    );
    assert_eq!(block(&node, h1 + 1), Json::Null);
    assert_eq!(balance(&node, &bob), 120);
    let gone = node.rpc("cowboy_getReceipt", json!([r2["transactionHash"]]));
    assert_eq!(
        gone,
        Json::Null,
        "the reverted transaction's receipt is gone"
    );
    let kept = node.rpc("cowboy_getReceipt", json!([r1["transactionHash"]]));
    assert_eq!(kept, r1);
    let e = node.try_rpc("dev_revert", json!([s1])).unwrap_err();
    assert_eq!(e["code"], json!(-32001), "a snapshot reverts once: {e}");

    // The chain goes on from the reverted head (alice's nonce is the snapshot's again).
    let r3 = pay(&node, &alice, bob, 7);
    assert_eq!(r3["blockHeight"], json!(h1 + 1));
    assert_eq!(balance(&node, &bob), 127);

    // An older snapshot is still there; the state and blocks are those of a restart too.
    assert_eq!(node.rpc("dev_revert", json!([s0])), json!(h0));
    assert_eq!(block(&node, h0), at_s0);
    assert_eq!(balance(&node, &bob), 100);
    pay(&node, &alice, bob, 1);
    let head = block(&node, h0 + 1);
    let node = restart(node, dir.path());
    assert_eq!(node.height(), h0 + 1);
    assert_eq!(
        block(&node, h0 + 1),
        head,
        "the reverted chain is what restarts"
    );
    assert_eq!(balance(&node, &bob), 101);
    pay(&node, &alice, bob, 1);
    assert_eq!(balance(&node, &bob), 102, "the restarted node still builds");
}

/// `dev_setBalance` and `dev_impersonate` send dev transactions (see `cowboy_types::tx`): each
/// is in a block, so a restart keeps it and a revert to before it undoes it.
#[test]
fn set_balance_and_impersonation_are_blocks_that_revert_and_restart_replay() {
    let dir = tempfile::tempdir().unwrap();
    let node = on_demand(dir.path());
    let (keyless, payee) = (Address([0x42; 20]), Address([0x43; 20]));
    let set = |node: &Node, amount: &str| {
        let hash = node.rpc("dev_setBalance", json!([hex0x(&keyless.0), amount]));
        wait_receipt(
            node,
            &Hash32::from_hex(&hash.as_str().unwrap()[2..]).unwrap(),
        )
    };
    let snapshot = node.rpc("dev_snapshot", json!([])).as_u64().unwrap();
    let r = set(&node, "5000000000000000000000");
    assert_eq!(r["success"], json!(true), "{r}");
    assert_eq!(r["feePaid"], json!("0"), "{r}");
    assert_eq!(balance(&node, &keyless), 5_000 * 10u128.pow(18));

    // Send from the keyless account: an unsigned transaction, authorized by the dev node.
    let mut tx = signed(&node, &dev_key(0), Some(payee), 77, Payload::Transfer);
    tx.nonce = 0;
    tx.signature = None;
    let e = node
        .try_rpc(
            "dev_impersonate",
            json!([
                hex0x(&keyless.0),
                hex0x(&signed(&node, &dev_key(0), None, 0, Payload::Transfer).encode())
            ]),
        )
        .unwrap_err();
    assert_eq!(
        e["code"],
        json!(-32602),
        "a signed transaction is refused: {e}"
    );
    let hash = node.rpc(
        "dev_impersonate",
        json!([hex0x(&keyless.0), hex0x(&tx.encode())]),
    );
    let r = wait_receipt(
        &node,
        &Hash32::from_hex(&hash.as_str().unwrap()[2..]).unwrap(),
    );
    assert_eq!(r["success"], json!(true), "{r}");
    assert_eq!(r["from"], json!(hex0x(&keyless.0)), "{r}");
    let fee: u128 = r["feePaid"].as_str().unwrap().parse().unwrap();
    assert!(fee > 0, "an impersonated sender pays its fees");
    assert_eq!(balance(&node, &payee), 77);
    assert_eq!(balance(&node, &keyless), 5_000 * 10u128.pow(18) - 77 - fee);

    // A revert to before them undoes both.
    node.rpc("dev_revert", json!([snapshot]));
    assert_eq!(balance(&node, &keyless), 0);
    assert_eq!(balance(&node, &payee), 0);

    // A set balance is re-executed by a revert's rebuild from genesis, and is still there
    // after a restart.
    set(&node, "12345");
    let later = node.rpc("dev_snapshot", json!([])).as_u64().unwrap();
    pay(&node, &dev_key(0), keyless, 5);
    node.rpc("dev_revert", json!([later]));
    assert_eq!(balance(&node, &keyless), 12_345);
    let node = restart(node, dir.path());
    assert_eq!(balance(&node, &keyless), 12_345);
    set(&node, "0");
    assert_eq!(balance(&node, &keyless), 0, "the restarted node takes more");
}

#[test]
fn dev_controls_are_refused_without_dev_and_so_is_block_time_zero() {
    let dir = tempfile::tempdir().unwrap();
    let net = ValidatorNetwork::new(dir.path(), 1);
    let node = net.start(0);
    for method in [
        "dev_mine",
        "dev_snapshot",
        "dev_revert",
        "dev_increaseTime",
        "dev_setBalance",
        "dev_impersonate",
    ] {
        let e = node.try_rpc(method, json!([1])).unwrap_err();
        assert_eq!(e["code"], json!(-32601), "{method}: {e}");
        assert!(
            e["message"].as_str().unwrap().contains("--dev"),
            "{method}: {e}"
        );
    }
    // Dev transactions sent raw are refused by the block rule of a chain without the flag.
    let set_balance = Transaction::set_balance(1337, 0, Address([3; 20]), 1);
    let mut impersonated = signed(
        &node,
        &dev_key(1),
        Some(Address([3; 20])),
        1,
        Payload::Transfer,
    );
    impersonated.signature = Some(Authorization::Impersonated(dev_key(0).address()));
    for tx in [set_balance, impersonated] {
        let e = node
            .try_rpc("cowboy_sendRawTransaction", json!([hex0x(&tx.encode())]))
            .unwrap_err();
        assert_eq!(e["code"], json!(-32000), "{e}");
        assert!(
            e["message"].as_str().unwrap().contains("cowboyd --dev"),
            "{e}"
        );
    }
    assert_eq!(balance(&node, &Address([3; 20])), 0);
    drop(node);

    let key = dir.path().join("key0");
    let out = Command::new(env!("CARGO_BIN_EXE_cowboyd"))
        .args(["--genesis", net.genesis.to_str().unwrap()])
        .args([
            "--validator-key",
            key.to_str().unwrap(),
            "--block-time",
            "0",
        ])
        .arg("--data-dir")
        .arg(dir.path().join("v0"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--block-time 0") && err.contains("--dev"),
        "{err}"
    );
}

#[test]
fn a_second_node_on_the_same_data_dir_fails_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let first = on_demand(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_cowboyd"))
        .args(["--dev", "--reset", "--data-dir"])
        .arg(dir.path())
        .args(["--rpc-addr", &format!("127.0.0.1:{}", free_port())])
        .args(["--p2p-addr", &format!("127.0.0.1:{}", free_port())])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("in use by another cowboyd"), "{err}");
    // Its --reset wiped nothing: the first node goes on with its chain.
    let r = pay(&first, &dev_key(1), Address([3; 20]), 1);
    assert_eq!(r["success"], json!(true));
    assert_eq!(first.rpc("dev_mine", json!([2])), json!(first.height()));
}
