//! `cowboy trace` and `--block` on reads against a real `cowboyd --dev` (issue 19, items 2 and
//! 6): a relay's ping traced as a tree with its cost by source line (human and `--json`), and
//! reads and fee estimates of the state before it.

use crate::support::Node;

const RELAY: &str = include_str!("../../../../examples/actors/relay.py");

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn trace_shows_the_call_tree_and_reads_reach_back_by_block() {
    let node = Node::start();
    let dir = tempfile::tempdir().expect("tmp");
    let relay = dir.path().join("relay.py");
    std::fs::write(&relay, RELAY).expect("write");
    let path = relay.to_str().expect("path");
    let deploy = |salt: &str| {
        let out = node
            .cli(&["--dev-account", "6", "deploy", path, "--salt", salt])
            .ok()
            .to_string();
        out.trim()
            .strip_prefix("deployed ")
            .unwrap_or_else(|| panic!("unexpected deploy output: {out}"))
            .to_string()
    };
    let (a, b) = (deploy("1"), deploy("2"));
    let args = format!("[\"{b}\", 1]");
    let receipt = json(
        node.cli(&[
            "--json",
            "--dev-account",
            "6",
            "call",
            &a,
            "ping",
            "--args",
            &args,
        ])
        .ok(),
    );
    assert_eq!(receipt["success"], serde_json::json!(true), "{receipt}");
    let hash = receipt["transactionHash"]
        .as_str()
        .expect("hash")
        .to_string();
    let height = receipt["blockHeight"].as_u64().expect("height");

    let tree = node.cli(&["trace", &hash]).ok().to_string();
    let lines: Vec<&str> = tree.lines().collect();
    assert!(lines[0].contains("success"), "{tree}");
    assert!(
        lines[1].starts_with("  call ") && lines[1].contains(".ping from "),
        "{tree}"
    );
    assert!(
        lines[1].contains("[cycles ") && lines[1].contains("-> 1"),
        "{tree}"
    );
    assert!(tree.contains("    storage read \"hops\" (1 B)"), "{tree}");
    // The handler's cost by source line, each row quoting its line of the actor's source.
    let hops_row = lines
        .iter()
        .find(|l| l.trim_end().ends_with("self.storage[\"hops\"] += 1"))
        .unwrap_or_else(|| panic!("no row for line 12: {tree}"));
    let cols: Vec<&str> = hops_row.split_whitespace().collect();
    assert_eq!(cols[0], "12", "{hops_row}");
    assert!(cols[1].parse::<u64>().expect("cycles") > 0, "{hops_row}");
    let message = lines
        .iter()
        .find(|l| l.starts_with("    message "))
        .unwrap_or_else(|| panic!("no message line: {tree}"));
    let expected = format!("{b}.ping from {a}").to_lowercase();
    assert!(message.to_lowercase().contains(&expected), "{tree}");

    let t = json(node.cli(&["--json", "trace", &hash]).ok());
    assert_eq!(
        t["calls"][0]["calls"][0]["kind"],
        serde_json::json!("message")
    );
    assert_eq!(t["cyclesUsed"], receipt["cyclesUsed"]);

    // Reads as of the block before the ping: A had no hops yet.
    let before = (height - 1).to_string();
    let view = |block: Option<&str>| {
        let mut args = vec!["view", a.as_str(), "hops_of"];
        if let Some(b) = block {
            args.extend(["--block", b]);
        }
        node.cli(&args).ok().trim().to_string()
    };
    assert_eq!(view(Some(&before)), "0");
    assert_eq!(view(None), "1");
    let estimate = |block: &str| {
        json(
            node.cli(&[
                "--json", "estimate", "--block", block, "call", &a, "hops_of",
            ])
            .ok(),
        )
    };
    let then = estimate(&before);
    assert_eq!(then["height"].as_u64(), Some(height - 1), "{then}");
    assert_eq!(then["success"], serde_json::json!(true), "{then}");
    let now = estimate(&height.to_string());
    assert_eq!(now["height"].as_u64(), Some(height), "{now}");
    let s = node.cli(&["storage", &a, "hops", "--block", &before]);
    assert_eq!(s.ok().trim(), "0");
    assert!(s.stderr.contains("without a proof"), "{}", s.stderr);
    let signer = cowboy_types::dev_key(6).address().to_checksum();
    let then = node.cli(&["balance", &signer, "--wei", "--block", &before]);
    let now = node.cli(&["balance", &signer, "--wei"]);
    let (then, now): (u128, u128) = (
        then.ok().trim().parse().expect("wei"),
        now.ok().trim().parse().expect("wei"),
    );
    assert!(then > now, "the ping paid fees: {then} -> {now}");

    // Outside what the node keeps: the error names the window.
    let r = node.cli(&["balance", &signer, "--block", "99999999"]);
    assert!(r.err().contains("history window"), "{}", r.err());
}
