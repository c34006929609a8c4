//! End to end: real `cowboyd --dev` processes on loopback, driven through JSON-RPC with
//! transactions signed by `cowboy-types`. Covers deploy/call/view/storage proofs/events, hostile
//! RPC input, durability under `kill -9` in a loop, a four-validator network in which one
//! validator starts late and catches up by fetching blocks from its peers, a Byzantine proposer
//! among three honest validators, the mempool censorship attack of issue 14, the RPC's
//! limits (WebSocket floods, oversized and unaffordable calls), and native timers across
//! `kill -9` (issue 16: each fires exactly once, their executions stay readable), the
//! devnet controls (`dev_controls`), transaction gossip between validators (`gossip`),
//! `cowboyd devnet` (`devnet_command`), validators joining and leaving by stake (`staking`),
//! validators catching up from a state snapshot after `kill -9` (`snapshot`), reads at a block with transaction traces
//! (`history_trace`), the block explorer in a headless browser (`explorer`), blocks built
//! and verified on unfinalized parents (`notarized_parents`), and
//! deterministic simulations of n validators running the node's code on commonware's
//! deterministic runtime and simulated network (`sim`).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cowboy_test_support::{free_port, free_ports};
use cowboy_types::cbor::{self, Value};
use cowboy_types::tx::Payload;
use cowboy_types::{dev_key, Address, Hash32, PrivateKey, Transaction};
use serde_json::{json, Value as Json};

#[path = "devnet/bootstrap.rs"]
mod bootstrap;
#[path = "devnet/dev_controls.rs"]
mod dev_controls;
#[path = "devnet/devnet_command.rs"]
mod devnet_command;
#[path = "devnet/explorer.rs"]
mod explorer;
#[path = "devnet/full_node.rs"]
mod full_node;
#[path = "devnet/gossip.rs"]
mod gossip;
#[path = "devnet/history_trace.rs"]
mod history_trace;
#[path = "devnet/notarized_parents.rs"]
mod notarized_parents;
#[path = "devnet/sim.rs"]
mod sim;
#[path = "devnet/snapshot.rs"]
mod snapshot;
#[path = "devnet/staking.rs"]
mod staking;

/// A node under test: a `cowboyd` process, or (`child` = `None`) a node run in this process.
struct Node {
    child: Option<Child>,
    url: String,
}

impl Node {
    fn start(dir: &Path) -> Node {
        Node::start_with(dir, &["--dev", "--block-time", "100"], free_port())
    }

    fn start_with(dir: &Path, args: &[&str], p2p: u16) -> Node {
        let rpc = free_port();
        let log_path = dir.with_extension("log");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .expect("log file");
        let child = Command::new(env!("CARGO_BIN_EXE_cowboyd"))
            .args(args)
            .arg("--data-dir")
            .arg(dir)
            .args(["--rpc-addr", &format!("127.0.0.1:{rpc}")])
            .args(["--p2p-addr", &format!("127.0.0.1:{p2p}")])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn cowboyd");
        let node = Node {
            child: Some(child),
            url: format!("http://127.0.0.1:{rpc}"),
        };
        let started = Instant::now();
        while node.try_rpc("cowboy_chainId", json!([])).is_err() {
            if started.elapsed() > Duration::from_secs(60) {
                let log = std::fs::read_to_string(&log_path).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(30).collect();
                panic!(
                    "cowboyd did not start; log tail:\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        node
    }

    fn try_rpc(&self, method: &str, params: Json) -> Result<Json, Json> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        self.raw(&body.to_string())
            .map_err(|e| json!({"transport": e}))
            .and_then(|v| match v.get("error") {
                Some(e) => Err(e.clone()),
                None => Ok(v["result"].clone()),
            })
    }

    fn raw(&self, body: &str) -> Result<Json, String> {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .new_agent();
        let mut resp = agent
            .post(&self.url)
            .header("content-type", "application/json")
            .send(body)
            .map_err(|e| e.to_string())?;
        resp.body_mut()
            .with_config()
            .limit(64 << 20)
            .read_json()
            .map_err(|e| e.to_string())
    }

    fn rpc(&self, method: &str, params: Json) -> Json {
        self.try_rpc(method, params)
            .unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    fn height(&self) -> u64 {
        self.rpc("cowboy_blockNumber", json!([])).as_u64().unwrap()
    }

    fn kill9(self) {
        drop(self); // SIGKILL
    }

    /// Another handle on the same node's RPC, which does not own (or kill) its process.
    fn handle(&self) -> Node {
        Node {
            child: None,
            url: self.url.clone(),
        }
    }

    fn process(&mut self) -> &mut Child {
        self.child.as_mut().expect("a cowboyd process")
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn hex0x(b: &[u8]) -> String {
    format!("0x{}", hex::encode(b))
}

fn signed(
    node: &Node,
    key: &PrivateKey,
    to: Option<Address>,
    value: u128,
    payload: Payload,
) -> Transaction {
    let acct = node.rpc("cowboy_getAccount", json!([hex0x(&key.address().0)]));
    let mut tx = Transaction {
        chain_id: 1337,
        nonce: acct["pendingNonce"].as_u64().unwrap(),
        to,
        value,
        cycles_limit: 2_000_000,
        cells_limit: 100_000,
        max_fee_per_cycle: 10_000_000_000,
        max_fee_per_cell: 10_000_000_000,
        tip_per_cycle: 1,
        tip_per_cell: 1,
        access_list: None,
        payload: payload.encode(),
        signature: None,
    };
    tx.sign(key).unwrap();
    tx
}

fn submit_and_wait(node: &Node, tx: &Transaction) -> Json {
    let hash = node.rpc("cowboy_sendRawTransaction", json!([hex0x(&tx.encode())]));
    assert_eq!(hash, json!(hex0x(&tx.hash().0)));
    let started = Instant::now();
    loop {
        let r = node.rpc("cowboy_getReceipt", json!([hash]));
        if !r.is_null() {
            return r;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no receipt");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Call `handler` of the actor at `to` from dev account 0 and wait for the receipt.
fn call(node: &Node, to: &str, handler: &str, args: Vec<Value>) -> Json {
    let tx = signed(
        node,
        &dev_key(0),
        Some(parse(to)),
        0,
        Payload::Call {
            handler: handler.into(),
            args: Value::Array(args),
        },
    );
    submit_and_wait(node, &tx)
}

const COUNTER: &str = include_str!("../../../examples/actors/counter.py");
const TOKEN: &str = include_str!("../../../examples/actors/token.py");

#[test]
fn deploy_call_view_storage_and_events() {
    let dir = tempfile::tempdir().unwrap();
    let node = Node::start(dir.path());
    let key = dev_key(0);

    let deploy = signed(
        &node,
        &key,
        None,
        0,
        Payload::Deploy {
            source: COUNTER.into(),
            salt: Hash32([7; 32]),
            init_args: Value::Array(vec![Value::Uint(40)]),
        },
    );
    let r = submit_and_wait(&node, &deploy);
    assert_eq!(r["success"], json!(true), "{r}");
    let actor = r["contractAddress"].as_str().unwrap().to_string();

    let call = signed(
        &node,
        &key,
        Some(parse(&actor)),
        0,
        Payload::Call {
            handler: "increment".into(),
            args: Value::Array(vec![Value::Uint(2)]),
        },
    );
    let r = submit_and_wait(&node, &call);
    assert_eq!(r["returnValue"], json!(42), "{r}");
    assert!(r["cyclesUsed"].as_u64().unwrap() > 0);
    assert!(r["feePaid"].as_str().unwrap().parse::<u128>().unwrap() > 0);

    // Read-only call sees the committed value and changes nothing.
    let args = hex0x(&cbor::encode(&Value::Array(vec![])));
    let v = node.rpc(
        "cowboy_call",
        json!([{"to": actor, "handler": "get", "args": args}]),
    );
    assert_eq!(v["returnValue"], json!(42));
    let v = node.rpc(
        "cowboy_call",
        json!([{"to": actor, "handler": "increment", "args": args}]),
    );
    assert_eq!(v["returnValue"], json!(43));
    let v = node.rpc(
        "cowboy_call",
        json!([{"to": actor, "handler": "get", "args": args}]),
    );
    assert_eq!(v["returnValue"], json!(42), "a view call must not write");

    // A failing view names the exception and the actor line.
    let bad = hex0x(&cbor::encode(&Value::Array(vec![Value::Text("x".into())])));
    let v = node.rpc(
        "cowboy_call",
        json!([{"to": actor, "handler": "increment", "args": bad}]),
    );
    assert_eq!(v["success"], json!(false));
    assert_eq!(v["error"]["class"], json!("TypeError"));
    assert_eq!(v["error"]["line"], json!(11));

    // Storage with a proof that verifies against the block's state root.
    let key_bytes = cbor::encode(&Value::Text("count".into()));
    let s = node.rpc("cowboy_getStorage", json!([actor, hex0x(&key_bytes)]));
    let value = hex::decode(s["value"].as_str().unwrap().trim_start_matches("0x")).unwrap();
    assert_eq!(cbor::decode(&value).unwrap(), Value::Uint(42));
    let proof = hex::decode(s["proof"].as_str().unwrap().trim_start_matches("0x")).unwrap();
    let root: [u8; 32] = hex::decode(s["stateRoot"].as_str().unwrap().trim_start_matches("0x"))
        .unwrap()
        .try_into()
        .unwrap();
    let addr = parse(&actor);
    cowboy_proof_verifier::verify_storage(&root, &addr.0, &key_bytes, Some(&value), &proof)
        .unwrap();
    assert!(cowboy_proof_verifier::verify_storage(
        &root,
        &addr.0,
        &key_bytes,
        Some(b"\x01"),
        &proof
    )
    .is_err());
    let header = node.rpc("cowboy_getBlockByNumber", json!([s["height"], false]));
    assert_eq!(header["stateRoot"], s["stateRoot"]);

    // Events of a token transfer are queryable by actor and topic.
    let token = signed(
        &node,
        &key,
        None,
        0,
        Payload::Deploy {
            source: TOKEN.into(),
            salt: Hash32([8; 32]),
            init_args: Value::Array(vec![Value::Text("Gold".into()), Value::Uint(1000)]),
        },
    );
    let r = submit_and_wait(&node, &token);
    let token_addr = r["contractAddress"].as_str().unwrap().to_string();
    let to = dev_key(1).address();
    let t = signed(
        &node,
        &key,
        Some(parse(&token_addr)),
        0,
        Payload::Call {
            handler: "transfer".into(),
            args: Value::Array(vec![Value::Text(hex0x(&to.0)), Value::Uint(5)]),
        },
    );
    let r = submit_and_wait(&node, &t);
    assert_eq!(r["success"], json!(true), "{r}");
    let evs = node.rpc(
        "cowboy_getEvents",
        json!([{"address": token_addr, "topic": "Transfer"}]),
    );
    assert_eq!(evs.as_array().unwrap().len(), 1, "{evs}");
    assert_eq!(evs[0]["dataValue"]["amount"], json!(5));
    assert_eq!(evs[0]["transactionHash"], r["transactionHash"]);

    // The transfer and its receipt (with its event), proven in the block by their paths to
    // the header's roots, with nothing else from the block.
    let p = node.rpc("cowboy_getTransactionProof", json!([r["transactionHash"]]));
    let bytes = |v: &Json| hex::decode(v.as_str().unwrap().trim_start_matches("0x")).unwrap();
    let header = cowboy_types::BlockHeader::decode(&bytes(&p["header"])).unwrap();
    assert_eq!(hex0x(&header.hash().0), p["blockHash"].as_str().unwrap());
    assert_eq!(p["blockHash"], r["blockHash"]);
    let inclusion = |v: &Json| cowboy_proof_verifier::Inclusion {
        index: v["index"].as_u64().unwrap(),
        count: v["count"].as_u64().unwrap(),
        siblings: v["siblings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| bytes(d).try_into().unwrap())
            .collect(),
    };
    let tx = Transaction::decode(&bytes(&p["transaction"])).unwrap();
    assert_eq!(hex0x(&tx.hash().0), r["transactionHash"].as_str().unwrap());
    let tx_proof = inclusion(&p["transactionProof"]);
    cowboy_proof_verifier::verify_inclusion(&header.tx_root.0, &tx.hash().0, &tx_proof).unwrap();
    let receipt = cowboy_types::Receipt::decode(&bytes(&p["receipt"])).unwrap();
    assert!(receipt.success);
    assert_eq!(receipt.events[0].topic, "Transfer");
    let receipt_proof = inclusion(&p["receiptProof"]);
    let root = header.receipts_root.0;
    cowboy_proof_verifier::verify_inclusion(&root, &receipt.hash().0, &receipt_proof).unwrap();
    // Not as the other list's item, nor at another index.
    assert!(cowboy_proof_verifier::verify_inclusion(&root, &tx.hash().0, &receipt_proof).is_err());
    let moved = cowboy_proof_verifier::Inclusion {
        index: receipt_proof.index ^ 1,
        ..receipt_proof.clone()
    };
    assert!(cowboy_proof_verifier::verify_inclusion(&root, &receipt.hash().0, &moved).is_err());
    assert_eq!(
        node.rpc("cowboy_getTransactionProof", json!([hex0x(&[9; 32])])),
        Json::Null
    );
}

fn parse(a: &str) -> Address {
    Address(
        hex::decode(a.trim_start_matches("0x"))
            .unwrap()
            .try_into()
            .unwrap(),
    )
}

#[test]
fn hostile_rpc_input_gets_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let node = Node::start(dir.path());
    let key = dev_key(2);

    let e = node
        .try_rpc("cowboy_sendRawTransaction", json!(["0xdeadbeef"]))
        .unwrap_err();
    assert_eq!(e["code"], json!(-32000));
    assert_eq!(e["data"]["reason"], json!("decode"));

    let mut wrong_chain = signed(&node, &key, Some(Address([1; 20])), 1, Payload::Transfer);
    wrong_chain.chain_id = 9;
    wrong_chain.sign(&key).unwrap();
    let e = node
        .try_rpc(
            "cowboy_sendRawTransaction",
            json!([hex0x(&wrong_chain.encode())]),
        )
        .unwrap_err();
    assert_eq!(e["data"]["reason"], json!("wrongChain"));

    let ok = signed(&node, &key, Some(Address([1; 20])), 1, Payload::Transfer);
    submit_and_wait(&node, &ok);
    let e = node
        .try_rpc("cowboy_sendRawTransaction", json!([hex0x(&ok.encode())]))
        .unwrap_err();
    assert_eq!(e["data"]["reason"], json!("nonceTooLow"), "{e}");

    let poor = PrivateKey::from_bytes(&[9; 32]).unwrap();
    let tx = signed(&node, &poor, Some(Address([1; 20])), 1, Payload::Transfer);
    let e = node
        .try_rpc("cowboy_sendRawTransaction", json!([hex0x(&tx.encode())]))
        .unwrap_err();
    assert_eq!(e["data"]["reason"], json!("insufficientBalance"));

    // Replacement needs a 10% tip bump.
    let mut a = signed(&node, &key, Some(Address([1; 20])), 1, Payload::Transfer);
    a.nonce += 5; // queued behind a gap, so it stays in the pool
    a.sign(&key).unwrap();
    node.rpc("cowboy_sendRawTransaction", json!([hex0x(&a.encode())]));
    let mut b = a.clone();
    b.value = 2;
    b.sign(&key).unwrap();
    let e = node
        .try_rpc("cowboy_sendRawTransaction", json!([hex0x(&b.encode())]))
        .unwrap_err();
    assert_eq!(e["data"]["reason"], json!("replacementUnderpriced"));
    b.tip_per_cycle = 2;
    b.tip_per_cell = 2;
    b.sign(&key).unwrap();
    node.rpc("cowboy_sendRawTransaction", json!([hex0x(&b.encode())]));

    let e = node
        .try_rpc("cowboy_getAccount", json!(["0x12"]))
        .unwrap_err();
    assert_eq!(e["code"], json!(-32602));
    let e = node.try_rpc("cowboy_nope", json!([])).unwrap_err();
    assert_eq!(e["code"], json!(-32601));

    // Batches, garbage and oversized bodies.
    let batch = node
        .raw(r#"[{"jsonrpc":"2.0","id":1,"method":"cowboy_chainId"},{"jsonrpc":"2.0","id":2,"method":"cowboy_blockNumber"}]"#)
        .unwrap();
    assert_eq!(batch.as_array().unwrap().len(), 2);
    let garbage = node.raw("{not json").unwrap();
    assert_eq!(garbage["error"]["code"], json!(-32700));
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"cowboy_sendRawTransaction","params":["0x{}"]}}"#,
        "00".repeat(3 << 20)
    );
    let r = node.raw(&big);
    assert!(
        r.map_or(true, |v| v.get("error").is_some()),
        "oversized request must fail"
    );
    // The node is still serving.
    assert_eq!(node.rpc("cowboy_chainId", json!([])), json!(1337));
}

#[test]
fn kill_9_loses_no_finalized_block_and_restart_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let key = dev_key(3);
    let mut finalized: Vec<(u64, Json)> = Vec::new();
    let mut sent: u128 = 0;
    for round in 0..5u64 {
        let node = Node::start(dir.path());
        // Every block seen finalized before a kill is still there, with the same hash.
        for (h, hash) in &finalized {
            let b = node.rpc("cowboy_getBlockByNumber", json!([h, false]));
            assert_eq!(
                &b["hash"], hash,
                "block {h} changed after kill -9 (round {round})"
            );
        }
        let tx = signed(
            &node,
            &key,
            Some(Address([0xAB; 20])),
            1000 + u128::from(round),
            Payload::Transfer,
        );
        let r = submit_and_wait(&node, &tx);
        sent += 1000 + u128::from(round);
        let h = r["blockHeight"].as_u64().unwrap();
        let b = node.rpc("cowboy_getBlockByNumber", json!([h, false]));
        finalized.push((h, b["hash"].clone()));
        let bal = node.rpc("cowboy_getAccount", json!([hex0x(&[0xAB; 20])]));
        assert_eq!(bal["balance"], json!(sent.to_string()));
        // Kill at an arbitrary point of the next block's life.
        std::thread::sleep(Duration::from_millis(37 * round));
        node.kill9();
    }
    let node = Node::start(dir.path());
    let h0 = node.height();
    let started = Instant::now();
    while node.height() <= h0 + 2 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "chain did not resume"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let bal = node.rpc("cowboy_getAccount", json!([hex0x(&[0xAB; 20])]));
    assert_eq!(bal["balance"], json!(sent.to_string()));
}

/// An actor that schedules itself: `later(n, data)` sets a timer `n` blocks ahead whose
/// handler logs `data` and emits an event.
const ALARM: &str = r#"
from cowboy_sdk import actor, set_timer, block_info, emit_event, sender, SCHEDULER

@actor
class Alarm:
    def __init__(self):
        self.storage["rang"] = []

    def later(self, n, data):
        return set_timer(block_info().height + n, self.ring, data)

    def ring(self, data):
        assert sender() == SCHEDULER
        self.storage["rang"].append(data)
        emit_event("Rang", data)
        return data

    def rang(self):
        return self.storage["rang"]
"#;

/// Every timer execution in blocks `0..=tip`, with its block height.
fn all_timer_executions(node: &Node) -> Vec<Json> {
    let tip = node.height();
    let mut out = Vec::new();
    for h in 0..=tip {
        let xs = node.rpc("cowboy_getTimerExecutions", json!([h]));
        out.extend(
            xs.as_array()
                .expect("an array below the tip")
                .iter()
                .cloned(),
        );
    }
    out
}

fn wait_height(node: &Node, h: u64) {
    let started = Instant::now();
    while node.height() < h {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "chain did not reach {h}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn timers_fire_exactly_once_across_kill_9_and_their_executions_persist() {
    let dir = tempfile::tempdir().unwrap();
    let key = dev_key(4);
    let node = Node::start(dir.path());
    let deploy = signed(
        &node,
        &key,
        None,
        10u128.pow(19),
        Payload::Deploy {
            source: ALARM.into(),
            salt: Hash32([16; 32]),
            init_args: Value::Array(vec![]),
        },
    );
    let r = submit_and_wait(&node, &deploy);
    assert_eq!(r["success"], json!(true), "{r}");
    let alarm = r["contractAddress"].as_str().unwrap().to_string();
    let later = |node: &Node, n: u64, data: u64| {
        let tx = signed(
            node,
            &key,
            Some(parse(&alarm)),
            0,
            Payload::Call {
                handler: "later".into(),
                args: Value::Array(vec![Value::Uint(n), Value::Uint(data)]),
            },
        );
        let r = submit_and_wait(node, &tx);
        assert_eq!(r["success"], json!(true), "{r}");
        (
            r["returnValue"].as_u64().unwrap(),
            r["blockHeight"].as_u64().unwrap(),
        )
    };
    // One timer that fires before the kill, one that is pending through it.
    let (near, set_at) = later(&node, 3, 7);
    let (far, far_set_at) = later(&node, 40, 8);
    assert_ne!(near, far);
    let pending = node.rpc("cowboy_getTimer", json!([far]));
    assert_eq!(pending["id"], json!(far), "{pending}");
    assert_eq!(pending["owner"], json!(alarm));
    assert_eq!(pending["handler"], json!("ring"));
    assert_eq!(pending["due"], json!(far_set_at + 40));
    assert_eq!(pending["every"], json!(0));
    assert_eq!(pending["dataValue"], json!(8));
    assert_eq!(
        pending["gba"],
        json!(hex0x(&cowboy_types::system::DEFAULT_GBA.0))
    );
    assert!(
        pending["deposit"]
            .as_str()
            .unwrap()
            .parse::<u128>()
            .unwrap()
            > 0
    );

    wait_height(&node, set_at + 3);
    let fired = all_timer_executions(&node);
    assert_eq!(fired.len(), 1, "{fired:?}");
    let x = &fired[0];
    assert_eq!(x["timerId"], json!(near));
    assert_eq!(x["success"], json!(true), "{x}");
    assert_eq!(x["returnValue"], json!(7));
    assert_eq!(x["due"], json!(set_at + 3));
    assert_eq!(x["events"][0]["topic"], json!("Rang"));
    assert_eq!(x["events"][0]["timerId"], json!(near));
    assert!(x["feePaid"].as_str().unwrap().parse::<u128>().unwrap() > 0);
    let h = x["blockHeight"].as_u64().unwrap();
    let block = node.rpc("cowboy_getBlockByNumber", json!([h, false]));
    assert_eq!(block["timerExecutions"], json!([x["hash"]]));
    assert_eq!(block["hash"], x["blockHash"]);
    assert_eq!(node.rpc("cowboy_getTimer", json!([near])), Json::Null);
    let mine = node.rpc("cowboy_getTimers", json!([alarm]));
    assert_eq!(mine.as_array().map(Vec::len), Some(1), "{mine}");
    assert_eq!(mine[0]["id"], json!(far));
    // The timer's event is found like any other.
    let evs = node.rpc(
        "cowboy_getEvents",
        json!([{"address": alarm, "topic": "Rang"}]),
    );
    assert_eq!(evs.as_array().map(Vec::len), Some(1), "{evs}");
    assert_eq!(evs[0]["timerExecutionHash"], x["hash"]);

    // Kill with the far timer pending, then again just before it is due.
    assert_eq!(node.rpc("cowboy_getTimer", json!([far]))["id"], json!(far));
    node.kill9();
    let node = Node::start(dir.path());
    assert_eq!(
        all_timer_executions(&node),
        fired,
        "executions changed after kill -9"
    );
    assert_eq!(node.rpc("cowboy_getTimer", json!([far]))["id"], json!(far));
    wait_height(&node, far_set_at + 39);
    node.kill9();
    let node = Node::start(dir.path());
    wait_height(&node, far_set_at + 45);
    let all = all_timer_executions(&node);
    let ids: Vec<u64> = all.iter().map(|x| x["timerId"].as_u64().unwrap()).collect();
    assert_eq!(
        ids,
        vec![near, far],
        "each timer fires exactly once: {all:?}"
    );
    assert_eq!(all[0], fired[0]);
    assert_eq!(all[1]["due"], json!(far_set_at + 40));
    assert_eq!(all[1]["returnValue"], json!(8));
    assert_eq!(node.rpc("cowboy_getTimer", json!([far])), Json::Null);
    assert_eq!(node.rpc("cowboy_getTimers", json!([alarm])), json!([]));
    let args = hex0x(&cbor::encode(&Value::Array(vec![])));
    let v = node.rpc(
        "cowboy_call",
        json!([{"to": alarm, "handler": "rang", "args": args}]),
    );
    assert_eq!(v["returnValue"], json!([7, 8]));
    // A height above the tip has no executions yet: null, not an empty list.
    let above = node.height() + 1000;
    assert_eq!(
        node.rpc("cowboy_getTimerExecutions", json!([above])),
        Json::Null
    );
    let bad = node.try_rpc("cowboy_getTimer", json!(["x"])).unwrap_err();
    assert_eq!(bad["code"], json!(-32602), "{bad}");
}

/// The snapshot height `node` names when asked for block 1, if it began at a snapshot above
/// it (`-32001`, `reason: "beforeSnapshot"`); `None` while it serves block 1.
fn snapshot_height(node: &Node) -> Option<u64> {
    match node.try_rpc("cowboy_getBlockByNumber", json!([1, false])) {
        Ok(_) => None,
        Err(e) if e["data"]["reason"] == json!("beforeSnapshot") => {
            assert_eq!(e["code"], json!(-32001), "{e}");
            assert_eq!(e["data"]["height"], json!(1), "{e}");
            Some(
                e["data"]["snapshotHeight"]
                    .as_u64()
                    .expect("a snapshot height"),
            )
        }
        Err(e) => panic!("block 1: {e}"),
    }
}

/// A test's directory: removed at the end, or kept (its path printed) when
/// `COWBOY_KEEP_TEST_DIR` is set, to read the validators' logs after a failure.
struct TestDir {
    path: std::path::PathBuf,
    _temp: Option<tempfile::TempDir>,
}

impl TestDir {
    fn path(&self) -> &Path {
        &self.path
    }
}

fn test_dir() -> TestDir {
    let dir = tempfile::tempdir().unwrap();
    if std::env::var_os("COWBOY_KEEP_TEST_DIR").is_some() {
        let path = dir.keep();
        println!("test directory kept: {}", path.display());
        return TestDir { path, _temp: None };
    }
    TestDir {
        path: dir.path().to_path_buf(),
        _temp: Some(dir),
    }
}

/// A network of validators on loopback: their keys, ports and the genesis, under one directory.
struct ValidatorNetwork {
    dir: std::path::PathBuf,
    ports: Vec<u16>,
    genesis: std::path::PathBuf,
}

impl ValidatorNetwork {
    /// `n` validators (coinbase of validator `i`: `[i + 1; 20]`); dev keys 0 and 1 funded.
    fn new(dir: &Path, n: usize) -> ValidatorNetwork {
        Self::with_genesis(dir, n, |_| {})
    }

    /// As [`ValidatorNetwork::new`], the genesis JSON changed by `edit` before it is written.
    fn with_genesis(dir: &Path, n: usize, edit: impl FnOnce(&mut Json)) -> ValidatorNetwork {
        use commonware_codec::Encode;
        use commonware_cryptography::Signer;
        let ports: Vec<u16> = (0..n).map(|_| free_port()).collect();
        let mut validators = Vec::new();
        for (i, port) in ports.iter().enumerate() {
            let (seed, key) = Self::key(i);
            std::fs::write(dir.join(format!("key{i}")), hex::encode(seed.0)).unwrap();
            validators.push(json!({
                "publicKey": hex::encode(key.public_key().encode()),
                "p2p": format!("127.0.0.1:{port}"),
                "coinbase": hex0x(&[i as u8 + 1; 20]),
                "blsPublicKey": hex::encode(cowboy_node::genesis::validator_bls_key(&seed.0)),
            }));
        }
        let mut genesis = json!({
            "chainId": 1337,
            "allocations": {
                hex0x(&dev_key(0).address().0): "1000000000000000000000",
                hex0x(&dev_key(1).address().0): "1000000000000000000000",
            },
            "validators": validators,
        });
        edit(&mut genesis);
        let genesis_path = dir.join("genesis.json");
        std::fs::write(&genesis_path, genesis.to_string()).unwrap();
        ValidatorNetwork {
            dir: dir.to_path_buf(),
            ports,
            genesis: genesis_path,
        }
    }

    /// Deal a threshold beacon group to the genesis validators (from a fixed seed: a test
    /// rehearsal, as `cowboyd devnet`'s dealing is), write validator `i`'s share into its data
    /// directory and the group into the genesis, as `cowboyd devnet` does.
    fn deal_beacon(&self) {
        use rand::SeedableRng as _;
        let text = std::fs::read_to_string(&self.genesis).unwrap();
        let mut genesis = cowboy_node::genesis::Genesis::from_json(&text).unwrap();
        let members: Vec<_> = genesis
            .validators
            .iter()
            .map(|v| v.public_key.clone())
            .collect();
        let rng = rand::rngs::ChaCha20Rng::seed_from_u64(17);
        let (sharing, shares) = cowboy_node::genesis::deal_beacon(rng, &members).unwrap();
        for (key, share) in &shares {
            let i = (0..self.ports.len())
                .find(|i| {
                    use commonware_cryptography::Signer;
                    Self::key(*i).1.public_key() == *key
                })
                .expect("a share for a genesis validator");
            let dir = self.dir.join(format!("v{i}"));
            std::fs::create_dir_all(&dir).unwrap();
            cowboy_node::beacon::write_share(&dir, share).unwrap();
        }
        genesis.params.beacon_group_key = Some(cowboy_node::genesis::beacon_group_key(&sharing));
        genesis.beacon = Some(sharing);
        std::fs::write(&self.genesis, genesis.to_json()).unwrap();
    }

    /// The round of the beacon share in validator `i`'s data directory, if it holds one.
    fn share_round(&self, i: usize) -> Option<u64> {
        cowboy_node::beacon::read_share_round(&self.dir.join(format!("v{i}")))
            .unwrap()
            .map(|(round, _)| round)
    }

    /// Validator `i`'s key: its seed (the key file's content) and the key.
    fn key(i: usize) -> (Hash32, commonware_cryptography::ed25519::PrivateKey) {
        use commonware_codec::DecodeExt;
        let seed = cowboy_types::keccak256(format!("test-validator-{i}").as_bytes());
        let key = commonware_cryptography::ed25519::PrivateKey::decode(seed.0.to_vec()).unwrap();
        (seed, key)
    }

    /// Validator `i` as a `cowboyd` process (200 ms blocks; log in `v{i}.log`).
    fn start(&self, i: usize) -> Node {
        self.start_at(i, self.ports[i])
    }

    /// Validator `i` listening for p2p on `port`, which need not be the one its genesis entry
    /// names: it announces where it listens, and discovery tells the others.
    fn start_at(&self, i: usize, port: u16) -> Node {
        self.start_args(i, port, &[])
    }

    /// Validator `i` on p2p port `port` with `extra` arguments; its key file is written if
    /// it is not one of the genesis validators'.
    fn start_args(&self, i: usize, port: u16, extra: &[&str]) -> Node {
        self.start_with_dir(i, port, &self.dir.join(format!("v{i}")), extra)
    }

    /// Validator `i` on its genesis p2p port with its data in `data_dir` (log beside it, in
    /// `<data_dir>.log`) and `extra` arguments.
    fn start_in(&self, i: usize, data_dir: &Path, extra: &[&str]) -> Node {
        self.start_with_dir(i, self.ports[i], data_dir, extra)
    }

    fn start_with_dir(&self, i: usize, port: u16, data_dir: &Path, extra: &[&str]) -> Node {
        let key = self.dir.join(format!("key{i}"));
        if !key.exists() {
            std::fs::write(&key, hex::encode(Self::key(i).0 .0)).unwrap();
        }
        let mut args = vec![
            "--genesis",
            self.genesis.to_str().unwrap(),
            "--validator-key",
            key.to_str().unwrap(),
            "--block-time",
            "200",
        ];
        args.extend_from_slice(extra);
        Node::start_with(data_dir, &args, port)
    }

    /// Validator `i` run in this process by the node's own code (`cowboy_node::node::run`),
    /// each block it proposes rewritten by `tamper` before it is relayed. It stops when the
    /// returned guard is dropped.
    fn start_in_process(
        &self,
        i: usize,
        tamper: cowboy_node::consensus::ProposalTamper,
    ) -> (Node, InProcess) {
        use commonware_runtime::Runner as _;
        let data_dir = self.dir.join(format!("v{i}"));
        std::fs::create_dir_all(&data_dir).unwrap();
        let genesis = std::fs::read_to_string(&self.genesis).unwrap();
        let (ready_tx, ready) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let cfg = cowboy_node::node::NodeConfig {
            data_dir: data_dir.clone(),
            genesis: cowboy_node::genesis::Genesis::from_json(&genesis).unwrap(),
            validator_key: Self::key(i).1,
            full_node: false,
            followers: Vec::new(),
            beacon_share: cowboy_node::beacon::read_share(&data_dir).unwrap(),
            p2p_addr: format!("127.0.0.1:{}", self.ports[i]).parse().unwrap(),
            p2p_external_addr: None,
            coinbase: None,
            bootstrappers: Vec::new(),
            rpc_addr: "127.0.0.1:0".parse().unwrap(),
            metrics_addr: None,
            mining: cowboy_node::production::Mining::Interval(Duration::from_millis(200)),
            dev: false,
            mempool_txs: 1_000,
            history_blocks: cowboy_state::DEFAULT_HISTORY_BLOCKS,
            snapshot_sync: true,
            rpc_limits: cowboy_node::limits::RpcLimits::default(),
            on_ready: Box::new(move |addr| {
                let _ = ready_tx.send(addr);
            }),
            tamper_proposals: Some(tamper),
            shutdown: Box::pin(async move {
                let _ = stopped.await;
            }),
        };
        let thread = std::thread::spawn(move || {
            let runtime = commonware_runtime::tokio::Config::new()
                .with_storage_directory(data_dir.join("db"))
                .with_worker_threads(2);
            commonware_runtime::tokio::Runner::new(runtime)
                .start(|context| cowboy_node::node::run(context, cfg))
                .expect("in-process node");
        });
        let addr = ready
            .recv_timeout(Duration::from_secs(60))
            .expect("the in-process node serves RPC");
        let node = Node {
            child: None,
            url: format!("http://{addr}"),
        };
        let guard = InProcess {
            stop: Some(stop),
            thread: Some(thread),
        };
        (node, guard)
    }

    fn log(&self, i: usize) -> String {
        std::fs::read_to_string(self.dir.join(format!("v{i}.log"))).unwrap_or_default()
    }
}

/// A node run in this process: stopped (and waited for) on drop, before its directory goes.
struct InProcess {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for InProcess {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// How many blocks the late validator of `four_validators_agree_and_a_late_one_catches_up`
/// misses.
const LATE_BY: u64 = 210;

#[test]
fn four_validators_agree_and_a_late_one_catches_up() {
    let dir = tempfile::tempdir().unwrap();
    let net = ValidatorNetwork::new(dir.path(), 4);
    let start = |i: usize| net.start(i);
    let funded = dev_key(0).address();
    let mut nodes: Vec<Node> = [0, 1, 3].into_iter().map(start).collect();
    let started = Instant::now();
    while nodes[0].height() < LATE_BY {
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "three of four validators stall"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Late, so it must fetch the blocks it missed; and moved: it listens on a port its
    // genesis entry does not name, so the others reach it only at the address it announces.
    nodes.push(net.start_at(2, free_port()));

    let tx = signed(
        &nodes[0],
        &dev_key(0),
        Some(Address([0xCD; 20])),
        777,
        Payload::Transfer,
    );
    let r = submit_and_wait(&nodes[0], &tx);
    let h = r["blockHeight"].as_u64().unwrap();
    let target = h + 3;
    let started = Instant::now();
    for node in &nodes {
        while node.height() < target {
            assert!(
                started.elapsed() < Duration::from_secs(90),
                "a validator did not catch up"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let expected = nodes[0].rpc("cowboy_getBlockByNumber", json!([target, false]));
    for node in &nodes[1..] {
        let b = node.rpc("cowboy_getBlockByNumber", json!([target, false]));
        assert_eq!(b["hash"], expected["hash"]);
        assert_eq!(b["stateRoot"], expected["stateRoot"]);
        let acct = node.rpc("cowboy_getAccount", json!([hex0x(&[0xCD; 20])]));
        assert_eq!(acct["balance"], json!("777"));
        let receipt = node.rpc("cowboy_getReceipt", json!([r["transactionHash"]]));
        assert_eq!(receipt["blockHash"], r["blockHash"]);
    }
    // It fetched what it missed in ranges: one block per round trip would ask for each of the
    // LATE_BY blocks by name. (A request is repeated while its answer is on the way, so count
    // the distinct blocks asked for, not the requests: the line's one `0x` hash.)
    let log = net.log(2);
    // A log written to a file is plain text: no terminal colour codes around levels or fields.
    assert!(
        !log.is_empty() && !log.contains('\u{1b}'),
        "the log file holds terminal escape codes"
    );
    let asked: std::collections::BTreeSet<&str> = log
        .lines()
        .filter(|l| l.contains("fetching finalized blocks from peers"))
        .filter_map(|l| l.find("0x").and_then(|i| l.get(i..i + 66)))
        .collect();
    assert!(
        !asked.is_empty() && asked.len() < 50,
        "{} blocks asked for to catch up {LATE_BY}",
        asked.len()
    );

    // A flood of maximum-size transactions (each ~128 KiB, its access list paid cell by cell):
    // the proposer fills blocks up to the cell cap (~1 MB), relays them to the other three,
    // and every validator keeps finalizing the same chain.
    let key = dev_key(0);
    let first_nonce = nodes[0].rpc("cowboy_getAccount", json!([hex0x(&funded.0)]))["pendingNonce"]
        .as_u64()
        .unwrap();
    let mut hashes = Vec::new();
    for (i, nonce) in (0..14u8).zip(first_nonce..) {
        let mut tx = signed(
            &nodes[0],
            &key,
            Some(Address([0xCE; 20])),
            1,
            Payload::Transfer,
        );
        tx.nonce = nonce;
        tx.access_list = Some(vec![cowboy_types::AccessListEntry {
            address: Address([i; 20]),
            storage_keys: (0..127).map(|k| vec![k as u8; 1020]).collect(),
        }]);
        tx.cells_limit = 140_000;
        tx.sign(&key).unwrap();
        assert!(tx.encode().len() > 120_000 && tx.encode().len() <= 128 * 1024);
        let h = nodes[0].rpc("cowboy_sendRawTransaction", json!([hex0x(&tx.encode())]));
        hashes.push((h, tx.encode().len() as u64));
    }
    let started = Instant::now();
    let mut last = 0;
    let mut per_block = std::collections::BTreeMap::new();
    for (h, size) in &hashes {
        let r = loop {
            let r = nodes[0].rpc("cowboy_getReceipt", json!([h]));
            if !r.is_null() {
                break r;
            }
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "the flood stalled the chain"
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        assert!(r["cellsUsed"].as_u64().unwrap() >= *size, "{r}");
        let height = r["blockHeight"].as_u64().unwrap();
        *per_block.entry(height).or_insert(0) += 1;
        last = last.max(height);
    }
    let target = last + 2;
    for node in &nodes {
        while node.height() < target {
            assert!(
                started.elapsed() < Duration::from_secs(150),
                "a validator stopped finalizing under the flood"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    // The cell cap admits seven such transactions a block, and a full block was built.
    assert!(per_block.values().all(|n| *n <= 7), "{per_block:?}");
    assert!(per_block.values().any(|n| *n >= 5), "{per_block:?}");
    let expected = nodes[0].rpc("cowboy_getBlockByNumber", json!([last, false]));
    for node in &nodes[1..] {
        let b = node.rpc("cowboy_getBlockByNumber", json!([last, false]));
        assert_eq!(b["hash"], expected["hash"]);
    }
}

#[test]
fn metrics_endpoint_serves_prometheus_text() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let metrics = free_port();
    let addr = format!("127.0.0.1:{metrics}");
    let node = Node::start_with(
        dir.path(),
        &["--dev", "--block-time", "100", "--metrics-addr", &addr],
        free_port(),
    );
    let started = Instant::now();
    while node.height() < 3 {
        assert!(started.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(50));
    }
    node.rpc("cowboy_chainId", json!([]));
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nhost: x\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
    for name in [
        "cowboy_block_height",
        "cowboy_finalization_latency_seconds",
        "cowboy_mempool_size",
        "cowboy_rpc_requests_total",
        "cowboy_rpc_latency_seconds",
        "cowboy_transactions_total",
    ] {
        assert!(text.contains(name), "missing {name}");
    }
}

#[test]
fn sigterm_shuts_down_cleanly_and_restart_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let mut node = Node::start(dir.path());
    let started = Instant::now();
    while node.height() < 3 {
        assert!(started.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = Command::new("kill")
        .args(["-TERM", &node.process().id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let started = Instant::now();
    let exit = loop {
        if let Some(s) = node.process().try_wait().unwrap() {
            break s;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no exit after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "exit status {exit:?}");
    drop(node);
    let node = Node::start(dir.path());
    assert!(node.height() >= 3, "restart lost finalized blocks");
}

/// A transfer with a nonce and limits of the test's choosing.
#[allow(clippy::too_many_arguments)]
fn transfer(
    key: &PrivateKey,
    nonce: u64,
    to: Address,
    value: u128,
    cycles_limit: u64,
    tip: u128,
) -> Transaction {
    let mut tx = Transaction {
        chain_id: 1337,
        nonce,
        to: Some(to),
        value,
        cycles_limit,
        cells_limit: 10_000,
        max_fee_per_cycle: 10_000_000_000,
        max_fee_per_cell: 10_000_000_000,
        tip_per_cycle: tip,
        tip_per_cell: tip,
        access_list: None,
        payload: Payload::Transfer.encode(),
        signature: None,
    };
    tx.sign(key).unwrap();
    tx
}

fn send(node: &Node, tx: &Transaction) -> Result<Json, Json> {
    node.try_rpc("cowboy_sendRawTransaction", json!([hex0x(&tx.encode())]))
}

fn wait_receipt(node: &Node, hash: &Hash32) -> Json {
    let started = Instant::now();
    loop {
        let r = node.rpc("cowboy_getReceipt", json!([hex0x(&hash.0)]));
        if !r.is_null() {
            return r;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no receipt");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Issue 14, item 7: two throwaway keys each queue nonce 0 (sending nearly their whole
/// balance away) and nonce 1 (a whole block's cycles at a high tip), and a third parks
/// gapped nonces with huge limits. None of it may keep 20 honest transfers out of the next
/// blocks, and `pendingNonce` must not count what will never be mined.
#[test]
fn mempool_censorship_attack_does_not_delay_honest_transfers() {
    let dir = tempfile::tempdir().unwrap();
    let node = Node::start(dir.path());
    let funder = dev_key(4);
    let attackers: Vec<PrivateKey> = (0x51..0x54u8)
        .map(|b| PrivateKey::from_bytes(&[b; 32]).unwrap())
        .collect();
    let cby = 10u128.pow(18);
    let mut last = Hash32([0; 32]);
    for (i, a) in attackers.iter().enumerate() {
        let tx = transfer(&funder, i as u64, a.address(), 2 * cby, 100_000, 1);
        send(&node, &tx).unwrap();
        last = tx.hash();
    }
    wait_receipt(&node, &last);

    let sink = Address([0x77; 20]);
    let fee_of = |t: &Transaction| {
        u128::from(t.cycles_limit) * t.max_fee_per_cycle
            + u128::from(t.cells_limit) * t.max_fee_per_cell
    };
    for a in &attackers[..2] {
        let probe = transfer(a, 0, sink, 0, 100_000, 1);
        let drain = transfer(a, 0, sink, 2 * cby - fee_of(&probe), 100_000, 1);
        send(&node, &drain).unwrap();
        let greedy = transfer(a, 1, sink, 0, 10_000_000, 1_000_000_000);
        let e = send(&node, &greedy).unwrap_err();
        assert_eq!(e["code"], json!(-32000), "{e}");
        assert_eq!(e["data"]["reason"], json!("insufficientBalance"), "{e}");
        let acct = node.rpc("cowboy_getAccount", json!([hex0x(&a.address().0)]));
        assert_eq!(acct["pendingNonce"], json!(1), "{acct}");
    }
    // Gapped nonces with a whole block's cycles each: queued, bounded, never pending.
    let parker = &attackers[2];
    let mut queued = 0;
    for n in 1..=40u64 {
        match send(
            &node,
            &transfer(parker, n, sink, 0, 1_000_000, 1_000_000_000),
        ) {
            Ok(_) => queued += 1,
            Err(e) => {
                let reason = e["data"]["reason"].clone();
                assert!(
                    reason == json!("mempoolFull") || reason == json!("insufficientBalance"),
                    "{e}"
                );
            }
        }
    }
    assert!(
        (1..=16).contains(&queued),
        "{queued} gapped transactions queued"
    );
    let acct = node.rpc("cowboy_getAccount", json!([hex0x(&parker.address().0)]));
    assert_eq!(
        acct["pendingNonce"],
        json!(0),
        "gapped nonces are not pending"
    );

    // Twenty honest transfers, four from each of five accounts.
    let mut honest = Vec::new();
    for k in 5..10 {
        let key = dev_key(k);
        for _ in 0..4 {
            let acct = node.rpc("cowboy_getAccount", json!([hex0x(&key.address().0)]));
            let nonce = acct["pendingNonce"].as_u64().unwrap();
            let tx = transfer(&key, nonce, Address([0x66; 20]), 1, 100_000, 1);
            send(&node, &tx).unwrap();
            honest.push(tx.hash());
        }
    }
    let submitted_at = node.height();
    for h in &honest {
        let r = wait_receipt(&node, h);
        assert_eq!(r["success"], json!(true), "{r}");
        let included = r["blockHeight"].as_u64().unwrap();
        assert!(
            included <= submitted_at + 3,
            "honest transfer waited from block {submitted_at} to {included}"
        );
    }
    // The parked transactions were never included, and the drains were.
    let acct = node.rpc("cowboy_getAccount", json!([hex0x(&parker.address().0)]));
    assert_eq!(acct["nonce"], json!(0));
    for a in &attackers[..2] {
        let acct = node.rpc("cowboy_getAccount", json!([hex0x(&a.address().0)]));
        assert_eq!(acct["nonce"], json!(1), "{acct}");
    }
}

/// Open a WebSocket by hand (the handshake only) and return the HTTP status (0: closed).
fn ws_open(url: &str) -> (std::net::TcpStream, u16) {
    use std::io::{Read, Write};
    let addr = url.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let req = format!(
        "GET / HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    if s.write_all(req.as_bytes()).is_err() {
        return (s, 0);
    }
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return (s, 0),
        }
    }
    let text = String::from_utf8_lossy(&head);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (s, status)
}

/// Issue 14, items 8 and 4: free calls are bounded and typed, and idle WebSockets can
/// neither lock HTTP out nor stay forever.
#[test]
fn rpc_limits_hold_under_websocket_floods_and_bad_calls() {
    let dir = tempfile::tempdir().unwrap();
    let node = Node::start_with(
        dir.path(),
        &["--dev", "--block-time", "100", "--rpc-idle-timeout", "2"],
        free_port(),
    );

    // A deploy larger than max_tx_size_bytes cannot be estimated.
    let source = format!("x = 1\n# {}\n", "y".repeat(130 << 10));
    let deploy = Payload::Deploy {
        source,
        salt: Hash32([1; 32]),
        init_args: Value::Array(vec![]),
    };
    let e = node
        .try_rpc(
            "cowboy_estimateFee",
            json!([{"payload": hex0x(&deploy.encode())}]),
        )
        .unwrap_err();
    assert_eq!(e["code"], json!(-32000), "{e}");
    assert_eq!(e["data"]["reason"], json!("tooLarge"), "{e}");
    assert_eq!(e["data"]["limit"], json!(128 << 10), "{e}");
    assert!(e["data"]["size"].as_u64().unwrap() > 128 << 10, "{e}");
    // So cannot a transaction of that size be submitted.
    let mut big = transfer(&dev_key(1), 0, Address([1; 20]), 1, 100_000, 1);
    big.payload = vec![0; 130 << 10];
    big.sign(&dev_key(1)).unwrap();
    let e = send(&node, &big).unwrap_err();
    assert_eq!(e["data"]["reason"], json!("tooLarge"), "{e}");

    // A value above the balance is an ordinary typed error, not an internal one.
    let args = hex0x(&cbor::encode(&Value::Array(vec![])));
    for method in ["cowboy_call", "cowboy_estimateFee"] {
        let e = node
            .try_rpc(
                method,
                json!([{"to": hex0x(&[5; 20]), "handler": "get", "args": args,
                        "value": "1000000000000000000000000000", "from": hex0x(&[6; 20])}]),
            )
            .unwrap_err();
        assert_eq!(e["code"], json!(-32000), "{method}: {e}");
        assert_eq!(e["data"]["reason"], json!("insufficientBalance"), "{e}");
        assert_eq!(e["data"]["balance"], json!("0"), "{e}");
    }

    // 256 idle WebSockets: a bounded number is accepted, the rest refused, HTTP still served.
    let sockets: Vec<(std::net::TcpStream, u16)> = (0..256).map(|_| ws_open(&node.url)).collect();
    let accepted = sockets.iter().filter(|(_, s)| *s == 101).count();
    assert!(
        (1..256).contains(&accepted),
        "{accepted} WebSockets accepted"
    );
    assert!(sockets.iter().all(|(_, s)| [101, 429, 0].contains(s)));
    assert_eq!(node.rpc("cowboy_chainId", json!([])), json!(1337));
    let h = node.height();
    let started = Instant::now();
    while node.height() < h + 3 {
        assert!(started.elapsed() < Duration::from_secs(30), "chain stalled");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Idle WebSockets are closed by the node.
    {
        use std::io::Read;
        let (mut ws, _) = sockets.into_iter().find(|(_, s)| *s == 101).unwrap();
        let mut buf = [0u8; 64];
        loop {
            match ws.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => {} // a close frame
                Err(e) => {
                    assert!(
                        !matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ),
                        "an idle WebSocket was not closed"
                    );
                    break;
                }
            }
        }
    }
    assert_eq!(node.rpc("cowboy_chainId", json!([])), json!(1337));
}

/// A Byzantine validator among three honest ones. Validator 3 runs in this process (the node's
/// own code on the same p2p network) and rewrites every block it proposes to break one rule
/// before relaying it: a header field it cannot choose (randomness, cycle basefee, state root),
/// the transaction order, a transaction over `max_tx_size_bytes`. The honest `cowboyd`
/// processes reject each with the error naming the rule, never finalize one of its blocks, and
/// keep finalizing the same chain, including an honest transfer.
#[test]
fn byzantine_proposer_blocks_are_rejected_and_honest_validators_go_on() {
    use cowboy_types::Block;
    use std::sync::{Arc, Mutex};

    let dir = tempfile::tempdir().unwrap();
    let net = ValidatorNetwork::new(dir.path(), 4);
    let honest: Vec<Node> = (0..3).map(|i| net.start(i)).collect();
    // What an honest validator logs for each tampering, in the order they were made.
    let made: Arc<Mutex<Vec<&'static str>>> = Arc::default();
    let record = made.clone();
    let tamper: cowboy_node::consensus::ProposalTamper = Arc::new(move |mut b: Block| {
        let mut made = record.lock().unwrap();
        let logged = match made.len() % 5 {
            0 => {
                b.header.randomness.0[0] ^= 1;
                "randomness: got"
            }
            1 => {
                b.header.cycle_basefee += 1;
                "cycle_basefee: got"
            }
            2 => {
                b.header.state_root.0[0] ^= 1;
                "state_root: got"
            }
            3 if b.transactions.len() >= 2 => {
                b.transactions.swap(0, 1);
                b.header.tx_root = Block::tx_root(&b.transactions);
                "is out of the block order"
            }
            3 => {
                b.header.receipts_root.0[0] ^= 1;
                "receipts_root: got"
            }
            _ => {
                let big = Transaction {
                    chain_id: 1337,
                    nonce: 0,
                    to: Some(Address([0xB1; 20])),
                    value: 0,
                    cycles_limit: 10_000,
                    cells_limit: 200_000,
                    max_fee_per_cycle: 1,
                    max_fee_per_cell: 1,
                    tip_per_cycle: 0,
                    tip_per_cell: 0,
                    access_list: None,
                    payload: vec![0; 140_000],
                    signature: None,
                };
                b.transactions.push(big);
                b.header.tx_root = Block::tx_root(&b.transactions);
                "larger than the 131072-byte limit"
            }
        };
        made.push(logged);
        b
    });
    let (byzantine, _stop) = net.start_in_process(3, tamper);
    // Transactions sent to the Byzantine validator, a few more on every look below, so that
    // its pool holds two or more when it leads and its blocks have an order to break. (It
    // gossips them, so honest leaders include them too; the feed keeps its pool from running
    // dry.)
    let key = dev_key(1);
    let feed = || {
        let nonce = byzantine.rpc("cowboy_getAccount", json!([hex0x(&key.address().0)]))
            ["pendingNonce"]
            .as_u64()
            .unwrap();
        for n in nonce..nonce + 4 {
            let _ = send(
                &byzantine,
                &transfer(&key, n, Address([0xB0; 20]), 1, 100_000, 1),
            );
        }
    };

    let wanted = [
        "randomness: got",
        "cycle_basefee: got",
        "state_root: got",
        "is out of the block order",
        "larger than the 131072-byte limit",
    ];
    let started = Instant::now();
    loop {
        let proposed = made.lock().unwrap().clone();
        let logged = (0..3).all(|i| {
            let log = net.log(i);
            wanted.iter().all(|w| log.contains(w))
        });
        if logged && wanted.iter().all(|w| proposed.contains(w)) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "honest validators did not log a rejection of every tampering; proposed {proposed:?}"
        );
        feed();
        std::thread::sleep(Duration::from_millis(250));
    }

    // The honest three keep finalizing: a transfer lands, and all agree on the chain.
    let tx = signed(
        &honest[0],
        &dev_key(0),
        Some(Address([0xCD; 20])),
        5,
        Payload::Transfer,
    );
    let target = submit_and_wait(&honest[0], &tx)["blockHeight"]
        .as_u64()
        .unwrap()
        + 2;
    let started = Instant::now();
    for node in honest.iter().chain([&byzantine]) {
        while node.height() < target {
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "a validator stopped finalizing"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let expected = honest[0].rpc("cowboy_getBlockByNumber", json!([target, false]));
    for node in honest[1..].iter().chain([&byzantine]) {
        let b = node.rpc("cowboy_getBlockByNumber", json!([target, false]));
        assert_eq!(b["hash"], expected["hash"]);
        assert_eq!(b["stateRoot"], expected["stateRoot"]);
    }
    // None of the Byzantine validator's blocks was finalized (every one it made was tampered).
    let byzantine_coinbase = hex0x(&[4; 20]);
    for h in 1..=target {
        let b = honest[0].rpc("cowboy_getBlockByNumber", json!([h, false]));
        let proposer = b["proposer"].as_str().unwrap().to_lowercase();
        assert_ne!(
            proposer, byzantine_coinbase,
            "block {h} was the Byzantine's"
        );
    }
    assert!(made.lock().unwrap().len() >= wanted.len());
}
