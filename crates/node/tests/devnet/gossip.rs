//! Transaction gossip (issue 17, item 6) over four real `cowboyd` validators: a transaction
//! sent to one validator reaches every validator's mempool, and transactions sent to
//! different validators are each included exactly once, whoever leads.

use super::*;

/// Wait until every node answers `cowboy_getTransaction(hash)` with the transaction (in its
/// mempool or in a block).
fn wait_known_everywhere(nodes: &[Node], hash: &Hash32) {
    let started = Instant::now();
    for (i, node) in nodes.iter().enumerate() {
        while node
            .rpc("cowboy_getTransaction", json!([hex0x(&hash.0)]))
            .is_null()
        {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "validator {i} never received the transaction"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[test]
fn a_transaction_sent_to_one_validator_reaches_all_and_is_included_once() {
    let dir = tempfile::tempdir().unwrap();
    let net = ValidatorNetwork::new(dir.path(), 4);
    let nodes: Vec<Node> = (0..4).map(|i| net.start(i)).collect();
    wait_height(&nodes[0], 2);

    // A transaction behind a nonce gap cannot be included, so it stays queued: if every
    // validator holds it, gossip carried it there from the one it was sent to.
    let key = dev_key(1);
    let to = Address([0xAB; 20]);
    let gapped = transfer(&key, 1, to, 20, 100_000, 1);
    send(&nodes[3], &gapped).unwrap();
    wait_known_everywhere(&nodes, &gapped.hash());
    for node in &nodes {
        let tx = node.rpc("cowboy_getTransaction", json!([hex0x(&gapped.hash().0)]));
        assert!(tx["blockHeight"].is_null(), "{tx}");
    }

    // The gap filler, to another validator: both are included, once each.
    let first = transfer(&key, 0, to, 1, 100_000, 1);
    send(&nodes[1], &first).unwrap();
    let r0 = wait_receipt(&nodes[2], &first.hash());
    let r1 = wait_receipt(&nodes[2], &gapped.hash());
    assert_eq!(r0["success"], json!(true), "{r0}");
    assert_eq!(r1["success"], json!(true), "{r1}");

    // Transfers sent round the validators, one at a time: each is included once, by
    // whichever validator leads when it arrives.
    let key = dev_key(0);
    let mut sent = Vec::new();
    for nonce in 0..8u64 {
        let tx = transfer(&key, nonce, to, 100, 100_000, 1);
        send(&nodes[nonce as usize % 4], &tx).unwrap();
        sent.push(tx.hash());
    }
    let receipts: Vec<Json> = sent.iter().map(|h| wait_receipt(&nodes[0], h)).collect();
    let last = receipts
        .iter()
        .map(|r| r["blockHeight"].as_u64().unwrap())
        .max()
        .unwrap();
    for node in &nodes {
        wait_height(node, last);
    }
    for node in &nodes {
        let to_acct = node.rpc("cowboy_getAccount", json!([hex0x(&to.0)]));
        assert_eq!(
            to_acct["balance"],
            json!("821"),
            "each transfer counted once"
        );
        let from = node.rpc("cowboy_getAccount", json!([hex0x(&key.address().0)]));
        assert_eq!(from["nonce"], json!(8));
        for (h, r) in sent.iter().zip(&receipts) {
            let here = node.rpc("cowboy_getReceipt", json!([hex0x(&h.0)]));
            assert_eq!(here["blockHash"], r["blockHash"]);
        }
    }
    // Every validator admitted transactions from its peers.
    for i in 0..4 {
        let log = net.log(i);
        assert!(
            !log.contains("cannot admit a gossiped transaction"),
            "{log}"
        );
    }
}
