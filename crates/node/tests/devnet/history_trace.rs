//! Reads at a block and transaction traces (issue 19, items 2 and 6) over a real `cowboyd`:
//! `block` on `cowboy_getAccount`/`cowboy_getStorage`/`cowboy_call` reads the state of an
//! older block; `cowboy_traceTransaction` re-executes a finalized transaction into its call
//! tree (messages, storage, events, failures); both refuse a block outside the history window
//! with an error that names it.

use super::*;

const RELAY: &str = include_str!("../../../../examples/actors/relay.py");

fn deploy(node: &Node, source: &str, salt: u8, args: Vec<Value>) -> (String, u64) {
    let tx = signed(
        node,
        &dev_key(0),
        None,
        0,
        Payload::Deploy {
            source: source.into(),
            salt: Hash32([salt; 32]),
            init_args: Value::Array(args),
        },
    );
    let r = submit_and_wait(node, &tx);
    assert_eq!(r["success"], json!(true), "{r}");
    (
        r["contractAddress"].as_str().unwrap().to_string(),
        r["blockHeight"].as_u64().unwrap(),
    )
}

fn storage_at(node: &Node, actor: &str, key: &str, block: Json) -> Json {
    let key = hex0x(&cbor::encode(&Value::Text(key.into())));
    node.rpc("cowboy_getStorage", json!([actor, key, block]))
}

fn text(v: &str) -> Value {
    Value::Text(v.into())
}

#[test]
fn reads_at_a_block_and_traces_of_finalized_transactions() {
    let dir = tempfile::tempdir().unwrap();
    let node = Node::start_with(
        dir.path(),
        &["--dev", "--block-time", "0", "--history-blocks", "4"],
        free_port(),
    );
    let me = hex0x(&dev_key(0).address().0);

    // Reads at a block see that block's state; the latest read keeps its proof.
    let (counter, _) = deploy(&node, COUNTER, 1, vec![Value::Uint(40)]);
    let first = call(&node, &counter, "increment", vec![Value::Uint(2)]);
    let h1 = first["blockHeight"].as_u64().unwrap();
    let balance_h1 = node.rpc("cowboy_getAccount", json!([me, h1]))["balance"].clone();
    call(&node, &counter, "increment", vec![Value::Uint(3)]);
    let old = storage_at(&node, &counter, "count", json!(h1));
    assert_eq!(old["valueValue"], json!(42), "{old}");
    assert_eq!(old["height"], json!(h1));
    assert_eq!(old["proof"], Json::Null, "an older entry has no proof");
    let latest = storage_at(&node, &counter, "count", json!("latest"));
    assert_eq!(latest["valueValue"], json!(45));
    assert!(latest["proof"].is_string());
    let get = json!({"to": counter, "handler": "get", "args": hex0x(&cbor::encode(&Value::Array(vec![])))});
    assert_eq!(
        node.rpc("cowboy_call", json!([get, h1]))["returnValue"],
        json!(42)
    );
    assert_eq!(
        node.rpc("cowboy_call", json!([get]))["returnValue"],
        json!(45)
    );
    // A fee estimate at a block simulates on that block's state (issue 19: `block` on
    // every read), and says which.
    let inc = json!({"from": me, "to": counter, "payload": hex0x(&Payload::Call {
        handler: "increment".into(),
        args: Value::Array(vec![Value::Uint(1)]),
    }.encode())});
    let at_h1 = node.rpc("cowboy_estimateFee", json!([inc, h1]));
    assert_eq!(
        (at_h1["height"].as_u64(), &at_h1["success"]),
        (Some(h1), &json!(true)),
        "{at_h1}"
    );
    let now = node.rpc("cowboy_estimateFee", json!([inc, "latest"]));
    assert_eq!(now["height"], json!(node.height()), "{now}");
    let e = node
        .try_rpc("cowboy_estimateFee", json!([inc, "yesterday"]))
        .unwrap_err();
    assert_eq!(e["code"], json!(-32602), "{e}");
    let acct = node.rpc("cowboy_getAccount", json!([me, h1]));
    assert_eq!(acct["balance"], balance_h1, "the same block reads the same");
    assert_eq!(acct["pendingNonce"], Json::Null);
    assert_ne!(
        node.rpc("cowboy_getAccount", json!([me]))["balance"],
        balance_h1,
        "the second call paid fees"
    );

    // A trace: A.ping(B, 2) → B.ping(A, 1) → A.ping(B, 0), each a frame under its sender.
    let (a, _) = deploy(&node, RELAY, 2, vec![]);
    let (b, _) = deploy(&node, RELAY, 3, vec![]);
    let ping = call(&node, &a, "ping", vec![text(&b), Value::Uint(2)]);
    assert_eq!(ping["success"], json!(true), "{ping}");
    let t = node.rpc("cowboy_traceTransaction", json!([ping["transactionHash"]]));
    assert_eq!(t["blockHeight"], ping["blockHeight"], "{t}");
    assert_eq!(t["cyclesUsed"], ping["cyclesUsed"]);
    assert_eq!(t["cellsUsed"], ping["cellsUsed"]);
    let top = &t["calls"][0];
    assert_eq!(t["calls"].as_array().unwrap().len(), 1, "{t}");
    assert_eq!(
        (
            top["kind"].as_str(),
            top["handler"].as_str(),
            top["returnValue"].as_u64()
        ),
        (Some("call"), Some("ping"), Some(1))
    );
    assert_eq!(top["from"], json!(me));
    let second = &top["calls"][0];
    assert_eq!(second["kind"], json!("message"));
    assert_eq!(
        second["to"].as_str().unwrap().to_lowercase(),
        b.to_lowercase()
    );
    assert_eq!(
        second["from"].as_str().unwrap().to_lowercase(),
        a.to_lowercase()
    );
    assert_eq!(second["depth"], json!(1));
    let third = &second["calls"][0];
    assert_eq!(
        third["to"].as_str().unwrap().to_lowercase(),
        a.to_lowercase()
    );
    assert_eq!(third["depth"], json!(2));
    assert_eq!(third["calls"], json!([]));
    let mut cycles = 0;
    for f in [top, second, third] {
        assert!(f["cycles"].as_u64().unwrap() > 0, "{f}");
        cycles += f["cycles"].as_u64().unwrap();
        // Its cost by source line sums to its own.
        let lines = f["lines"].as_array().unwrap();
        assert!(lines.iter().any(|l| l["line"].is_u64()), "{f}");
        let by_line: u64 = lines.iter().map(|l| l["cycles"].as_u64().unwrap()).sum();
        assert_eq!(Some(by_line), f["cycles"].as_u64(), "{f}");
        let ops: Vec<(&str, Json)> = f["storage"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["op"].as_str().unwrap(), s["size"].clone()))
            .collect();
        assert!(ops.contains(&("read", json!(1))), "hops was read: {f}");
        assert!(ops.iter().any(|(op, _)| *op == "write"), "{f}");
    }
    assert!(cycles <= ping["cyclesUsed"].as_u64().unwrap());

    // A failing message: the failure is in the frame that raised it, with its line.
    let fail = call(&node, &a, "fail_after", vec![text(&b), Value::Uint(1)]);
    assert_eq!(fail["success"], json!(false));
    let t = node.rpc("cowboy_traceTransaction", json!([fail["transactionHash"]]));
    assert_eq!(t["success"], json!(false));
    assert_eq!(t["calls"][0]["success"], json!(true), "{t}");
    let failed = &t["calls"][0]["calls"][0];
    assert_eq!(failed["success"], json!(false), "{t}");
    assert_eq!(failed["error"]["class"], json!("RuntimeError"));
    assert!(failed["error"]["line"].as_u64().is_some(), "{failed}");

    // Outside the window (4 blocks): a clear error naming it, for reads and traces.
    let e = node
        .try_rpc(
            "cowboy_getStorage",
            json!([counter, hex0x(&cbor::encode(&text("count"))), h1]),
        )
        .unwrap_err();
    assert_eq!(e["code"], json!(-32001), "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("history window"),
        "{e}"
    );
    assert!(e["data"]["oldest"].as_u64().unwrap() > h1);
    let e = node
        .try_rpc("cowboy_traceTransaction", json!([first["transactionHash"]]))
        .unwrap_err();
    assert_eq!(e["code"], json!(-32001), "{e}");
    let e = node
        .try_rpc("cowboy_getAccount", json!([me, node.height() + 5]))
        .unwrap_err();
    assert_eq!(e["code"], json!(-32001), "{e}");
    let e = node
        .try_rpc("cowboy_traceTransaction", json!([hex0x(&[7; 32])]))
        .unwrap_err();
    assert_eq!(e["code"], json!(-32001), "{e}");
    let e = node
        .try_rpc("cowboy_getAccount", json!([me, "yesterday"]))
        .unwrap_err();
    assert_eq!(e["code"], json!(-32602), "{e}");
}
