//! `cowboyd devnet --validators 4 --full-nodes 1` (issue 17): four real validator processes
//! and a full node under one supervisor. Transactions sent to different validators are all
//! included; a validator killed with `kill -9` is restarted and catches up; all four and the
//! full node agree on every block hash and state root; SIGTERM stops everything, a restart on the same directory resumes the chain, SIGINT
//! stops it as SIGTERM does (and it resumes again), and the validators do not outlive a
//! supervisor killed with `kill -9`.

use std::io::BufRead;
use std::sync::mpsc;

use super::*;

/// A running `cowboyd devnet` and the lines it prints.
struct Devnet {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Devnet {
    fn start(dir: &Path, rpc: u16, p2p: u16) -> Devnet {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("supervisor.log"))
            .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_cowboyd"))
            .args(["devnet", "--validators", "4", "--full-nodes", "1"])
            .args(["--block-time", "200"])
            .arg("--data-dir")
            .arg(dir.join("net"))
            .args(["--rpc-addr", &format!("127.0.0.1:{rpc}")])
            .args(["--p2p-addr", &format!("127.0.0.1:{p2p}")])
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("spawn cowboyd devnet");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Devnet { child, lines }
    }

    /// The pid of the next validator started (`validator <i>  pid <pid>`), and its index.
    fn next_started(&self) -> (usize, u32) {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .expect("the devnet starts its validators");
            let words: Vec<&str> = line.split_whitespace().collect();
            if let ["validator", i, "pid", pid] = words[..] {
                return (i.parse().unwrap(), pid.parse().unwrap());
            }
        }
    }

    /// Until the four validators are started: their pids, and their RPC endpoints once they
    /// answer (the full node's is the next port: [`full_node`]).
    fn validators(&self, rpc: u16) -> (Vec<u32>, Vec<Node>) {
        let mut pids = vec![0; 4];
        for _ in 0..4 {
            let (i, pid) = self.next_started();
            pids[i] = pid;
        }
        let nodes: Vec<Node> = (0..4)
            .map(|i| Node {
                child: None,
                url: format!("http://127.0.0.1:{}", rpc + i),
            })
            .collect();
        for node in &nodes {
            wait_answers(node);
        }
        (pids, nodes)
    }

    fn signal(&self, signal: &str) {
        let ok = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }
}

impl Drop for Devnet {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The devnet's full node, serving RPC on the port after the four validators'.
fn full_node(rpc: u16) -> Node {
    let node = Node {
        child: None,
        url: format!("http://127.0.0.1:{}", rpc + 4),
    };
    wait_answers(&node);
    node
}

/// Handles on the validators' RPC and the full node's.
fn with_full_node(validators: &[Node], full: &Node) -> Vec<Node> {
    validators.iter().chain([full]).map(Node::handle).collect()
}

fn wait_answers(node: &Node) {
    let started = Instant::now();
    while node.try_rpc("cowboy_chainId", json!([])).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{} never answered",
            node.url
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Wait until nothing serves `node`'s RPC any more (its process has exited).
fn wait_gone(node: &Node) {
    let started = Instant::now();
    while node.try_rpc("cowboy_chainId", json!([])).is_ok() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{} still answers",
            node.url
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn kill9(pid: u32) {
    let ok = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

/// Send `signal` to the supervisor: it exits successfully and every validator with it.
fn stop_cleanly(mut devnet: Devnet, signal: &str, nodes: &[Node]) {
    devnet.signal(signal);
    let status = devnet.child.wait().unwrap();
    assert!(status.success(), "after {signal}: {status}");
    for node in nodes {
        wait_gone(node);
    }
}

/// Start the devnet again on `dir`: its chain goes on past `last` with the transfers of
/// `nonces`, and every validator agrees; the devnet, its validators and the new height.
fn resume(
    dir: &Path,
    rpc: u16,
    p2p: u16,
    nonces: std::ops::Range<u64>,
    last: u64,
) -> (Devnet, Vec<Node>, u64) {
    let devnet = Devnet::start(dir, rpc, p2p);
    let (_, nodes) = devnet.validators(rpc);
    let after = transfers_round_the_validators(&nodes, nonces);
    assert!(after > last, "the chain went on from where it stopped");
    all_agree_through(&nodes, after);
    (devnet, nodes, after)
}

/// Send transfers of 1 with nonces `nonces` from dev key 0, nonce `n` to validator `n % 4`,
/// and wait until `nodes[0]` has their receipts; the highest block holding one.
fn transfers_round_the_validators(nodes: &[Node], nonces: std::ops::Range<u64>) -> u64 {
    let key = dev_key(0);
    let hashes: Vec<Hash32> = nonces
        .map(|nonce| {
            let tx = transfer(&key, nonce, Address([0xEE; 20]), 1, 100_000, 1);
            send(&nodes[nonce as usize % 4], &tx).unwrap();
            tx.hash()
        })
        .collect();
    hashes
        .iter()
        .map(|h| wait_receipt(&nodes[0], h)["blockHeight"].as_u64().unwrap())
        .max()
        .unwrap()
}

/// Every node reaches `height`, and all agree on each block's hash and state root up to it.
/// Each block above the beacon's lag shows the signature it carries over block `h − 3`, and
/// its randomness is that signature's keccak256 (RPC.md, "Block").
fn all_agree_through(nodes: &[Node], height: u64) {
    for node in nodes {
        wait_height(node, height);
    }
    for h in 1..=height {
        let expected = nodes[0].rpc("cowboy_getBlockByNumber", json!([h, false]));
        let beacon = &expected["beacon"];
        if h > 3 {
            assert_eq!(beacon["height"], h - 3, "block {h}: {beacon}");
            let sig = hex::decode(
                beacon["signature"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("0x"),
            )
            .unwrap();
            assert_eq!(sig.len(), 48, "block {h}");
            let randomness = hex0x(&cowboy_types::keccak256(&sig).0);
            assert_eq!(expected["randomness"], randomness, "block {h}");
        } else {
            assert!(beacon.is_null(), "block {h}: {beacon}");
        }
        for node in &nodes[1..] {
            let b = node.rpc("cowboy_getBlockByNumber", json!([h, false]));
            assert_eq!(b["hash"], expected["hash"], "block {h}");
            assert_eq!(b["stateRoot"], expected["stateRoot"], "block {h}");
        }
    }
}

#[test]
fn devnet_command_runs_four_validators_survives_kill_9_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let (rpc, p2p) = (free_ports(5), free_ports(5));
    let devnet = Devnet::start(dir.path(), rpc, p2p);
    let (pids, nodes) = devnet.validators(rpc);
    let full = full_node(rpc);

    transfers_round_the_validators(&nodes, 0..4);

    // kill -9 one validator: the supervisor starts it again, it catches up.
    kill9(pids[2]);
    let (i, pid) = devnet.next_started();
    assert_eq!(i, 2);
    assert_ne!(pid, pids[2]);
    wait_answers(&nodes[2]);
    let last = transfers_round_the_validators(&nodes, 4..8);
    all_agree_through(&nodes, last + 2);
    // The full node follows the same chain (it never votes: four validators are the set).
    all_agree_through(&[nodes[0].handle(), full.handle()], last + 2);
    let to = nodes[2].rpc("cowboy_getAccount", json!([hex0x(&[0xEE; 20])]));
    assert_eq!(to["balance"], json!("8"));

    // SIGTERM stops the supervisor and every validator; started again on the same directory,
    // the network resumes its chain.
    stop_cleanly(devnet, "-TERM", &with_full_node(&nodes, &full));
    let (devnet, nodes, after) = resume(dir.path(), rpc, p2p, 8..12, last);
    let to = nodes[1].rpc("cowboy_getAccount", json!([hex0x(&[0xEE; 20])]));
    assert_eq!(to["balance"], json!("12"));

    // SIGINT (Ctrl-C in a terminal) stops it as SIGTERM does, and it resumes again.
    stop_cleanly(devnet, "-INT", &with_full_node(&nodes, &full));
    let (devnet, nodes, _) = resume(dir.path(), rpc, p2p, 12..16, after);

    // The supervisor killed with kill -9: its validators and full node exit too (their
    // stdin pipe closes).
    devnet.signal("-9");
    for node in nodes.iter().chain([&full]) {
        wait_gone(node);
    }
}
