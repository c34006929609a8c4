//! Full nodes (issue 17, item 6) over real `cowboyd` processes on loopback: four validators
//! with 10-block epochs and a dealt beacon, each started with `--follower KEY` of one full
//! node, and two `cowboyd --full-node` processes that no genesis entry or stake names:
//!
//! - the listed full node syncs, follows the chain across epoch boundaries (each epoch the
//!   validators track the set again, followers included), runs every engine as an observer,
//!   and agrees with the validators on every block hash and state root;
//! - a transfer sent to its RPC reaches the validators (it gossips to the set it tracks) and
//!   is included; the full node serves its receipt;
//! - the full node that no validator lists gets no connection, so no block.

use super::*;

/// Blocks per epoch: short, so the full node crosses boundaries within seconds.
const EPOCH: u64 = 10;

/// Validator-network index of the listed full node's key, and of the unlisted one's (both
/// past the four validators, so no genesis entry names them).
const FOLLOWER: usize = 4;
const STRANGER: usize = 5;

/// The hex public key of network index `i`'s key (as `--print-public-key` prints it).
fn public_key_hex(i: usize) -> String {
    use commonware_codec::Encode;
    use commonware_cryptography::Signer;
    hex::encode(ValidatorNetwork::key(i).1.public_key().encode())
}

/// Wait until `cond` holds, polling every 100 ms; fail after two minutes naming `what`.
fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let started = Instant::now();
    while !cond() {
        assert!(started.elapsed() < Duration::from_secs(120), "{what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A log line without its terminal colour codes (`ESC [ … m`).
fn plain(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find('\u{1b}') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        rest = rest.find('m').map_or("", |end| &rest[end + 1..]);
    }
    out + rest
}

#[test]
fn a_listed_full_node_follows_the_chain_and_relays_transactions() {
    let dir = test_dir();
    let net = ValidatorNetwork::with_genesis(dir.path(), 4, |g| {
        g["params"] = json!({ "epoch_blocks": EPOCH });
    });
    net.deal_beacon();
    let follower = public_key_hex(FOLLOWER);
    let validators: Vec<Node> = (0..4)
        .map(|i| net.start_args(i, net.ports[i], &["--follower", &follower]))
        .collect();
    wait_height(&validators[0], 3);

    // Re-executing every block (not a state snapshot, which a node more than an epoch behind
    // takes: on a slow machine the full node can start that late with 10-block epochs), so
    // it holds every block from the genesis up to compare.
    let full = net.start_args(
        FOLLOWER,
        free_port(),
        &["--full-node", "--no-snapshot-sync"],
    );
    let stranger = net.start_args(STRANGER, free_port(), &["--full-node"]);

    // It catches up and keeps up, past at least two epoch boundaries of its own watching.
    let target = validators[0].height() + 2 * EPOCH;
    wait_until("the full node follows past two epoch boundaries", || {
        full.height() >= target
    });

    // A transfer sent to the full node: it never proposes, so only gossip to the validators
    // gets it included.
    let to = Address([0xCD; 20]);
    let tx = transfer(&dev_key(0), 0, to, 7, 100_000, 1);
    send(&full, &tx).unwrap();
    let on_validator = wait_receipt(&validators[2], &tx.hash());
    let on_full = wait_receipt(&full, &tx.hash());
    assert_eq!(on_validator["success"], json!(true), "{on_validator}");
    assert_eq!(
        on_full, on_validator,
        "the full node serves the same receipt"
    );

    // Same blocks and state everywhere, from the genesis up.
    let top = full.height().min(validators[0].height());
    for h in 0..=top {
        let expected = validators[0].rpc("cowboy_getBlockByNumber", json!([h, false]));
        for (name, node) in [("validator 3", &validators[3]), ("the full node", &full)] {
            let b = node.rpc("cowboy_getBlockByNumber", json!([h, false]));
            assert_eq!(b["hash"], expected["hash"], "{name} at {h}");
            assert_eq!(b["stateRoot"], expected["stateRoot"], "{name} at {h}");
        }
    }

    // It ran its engines as an observer (never a signer), one epoch after another.
    let log = std::fs::read_to_string(dir.path().join(format!("v{FOLLOWER}.log"))).unwrap();
    let engines: Vec<String> = log
        .lines()
        .filter(|l| l.contains("consensus engine started"))
        .map(plain)
        .collect();
    assert!(engines.len() >= 2, "an engine per epoch: {engines:?}");
    assert!(
        engines.iter().all(|l| l.contains("member=false")),
        "{engines:?}"
    );

    // No validator tracks the stranger, so none lets it connect: it has no block past the
    // genesis while the listed one followed two epochs.
    assert_eq!(stranger.height(), 0, "an unlisted full node got blocks");
}

/// What `cowboyd` refuses, with a clear error and exit status 2, before it joins anything: a
/// full node on a genesis validator's key (a validator that never votes is a fault), and a
/// `--follower` that is not a public key.
#[test]
fn a_full_node_on_a_validator_key_and_a_malformed_follower_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let net = ValidatorNetwork::new(dir.path(), 4);
    let refused = |extra: &[&str]| -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_cowboyd"))
            .args(["--genesis", net.genesis.to_str().unwrap()])
            .args(["--validator-key", dir.path().join("key0").to_str().unwrap()])
            .args(extra)
            .arg("--data-dir")
            .arg(dir.path().join("v0"))
            .args(["--rpc-addr", &format!("127.0.0.1:{}", free_port())])
            .args(["--p2p-addr", &format!("127.0.0.1:{}", free_port())])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = refused(&["--full-node"]);
    assert!(
        err.contains("--full-node") && err.contains("genesis validator"),
        "{err}"
    );
    let err = refused(&["--follower", "abcd"]);
    assert!(
        err.contains("--follower") && err.contains("not an ed25519 public key"),
        "{err}"
    );
}
