//! `cowboy validator …` against a real `cowboyd --dev`: the dev chain's set, a dev account
//! registering with a validator key file (keys and proof of possession derived here, checked
//! on chain), `key-args` printing the same keys, adding stake, rotating keys, exiting, and the
//! refusals a user meets (unjail when not jailed, withdraw while bonded, stake while exiting,
//! garbage evidence).

use crate::support::Node;

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn addr(n: u32) -> String {
    cowboy_types::dev_key(n).address().to_checksum()
}

fn stake_of(record: &serde_json::Value) -> u128 {
    match &record["stake"] {
        serde_json::Value::String(s) => s.parse().expect("a number"),
        other => u128::from(other.as_u64().expect("a number")),
    }
}

#[test]
fn register_add_stake_and_read_the_set() {
    let node = Node::start();
    let set = json(node.cli(&["--json", "validator", "set"]).ok());
    assert_eq!(set["members"].as_array().map(Vec::len), Some(1), "{set}");
    let table = node.cli(&["validator", "set"]).ok().to_string();
    assert!(table.contains("1 validators"), "{table}");

    let dir = tempfile::tempdir().expect("dir");
    let key = dir.path().join("validator.key");
    std::fs::write(&key, format!("{}\n", hex::encode([7u8; 32]))).expect("write key");
    let key = key.to_str().expect("utf-8 path");

    // Too little stake: the pre-flight simulation shows the actor's refusal; nothing is sent.
    let low = node
        .cli(&[
            "--dev-account",
            "3",
            "validator",
            "register",
            "--validator-key",
            key,
            "--stake",
            "1cby",
        ])
        .err()
        .to_lowercase();
    assert!(low.contains("stake"), "{low}");

    // A file that holds no key is named.
    let bad = dir.path().join("bad.key");
    std::fs::write(&bad, "not a key").expect("write");
    let err = node
        .cli(&[
            "--dev-account",
            "3",
            "validator",
            "register",
            "--validator-key",
            bad.to_str().expect("utf-8"),
            "--stake",
            "100000cby",
        ])
        .err()
        .to_string();
    assert!(err.contains("does not hold a validator key"), "{err}");

    node.cli(&[
        "--dev-account",
        "3",
        "validator",
        "register",
        "--validator-key",
        key,
        "--stake",
        "100000cby",
    ])
    .ok();
    let record = json(node.cli(&["--json", "validator", "show", &addr(3)]).ok());
    assert_eq!(record["status"], "pending", "{record}");
    let staked = stake_of(&record);
    assert_eq!(staked, 100_000 * 10u128.pow(18));

    // `key-args` prints the keys `register` sent (for a client that sends it itself): for
    // --for's address, else the signer's; the proof of possession differs per address.
    let key_args = |before: &[&str], after: &[&str]| {
        let args = [
            before,
            &["validator", "key-args", "--validator-key", key],
            after,
        ]
        .concat();
        node.cli(&args)
    };
    let printed = json(key_args(&[], &["--for", &addr(3)]).ok());
    assert_eq!(printed["bls_key"], record["bls_key"]["bytes"], "{printed}");
    assert_eq!(
        printed["consensus_key"], record["consensus_key"]["bytes"],
        "{printed}"
    );
    let pop = printed["pop"].as_str().expect("pop");
    assert_eq!(pop.len(), 2 + 2 * 96, "{printed}");
    let as_signer = json(key_args(&["--dev-account", "3"], &[]).ok());
    assert_eq!(as_signer, printed);
    let other = json(key_args(&[], &["--for", &addr(4)]).ok());
    assert_eq!(other["bls_key"], printed["bls_key"]);
    assert_ne!(other["pop"], printed["pop"]);
    let nobody = key_args(&[], &[]).err().to_string();
    assert!(nobody.contains("give an address"), "{nobody}");

    // The same key cannot be registered twice.
    let twice = node
        .cli(&[
            "--dev-account",
            "4",
            "validator",
            "register",
            "--validator-key",
            key,
            "--stake",
            "100000cby",
        ])
        .err()
        .to_string();
    assert!(!twice.is_empty());

    node.cli(&["--dev-account", "3", "validator", "add-stake", "5cby"])
        .ok();
    let record = json(
        node.cli(&["--json", "--dev-account", "3", "validator", "show"])
            .ok(),
    );
    assert_eq!(stake_of(&record), staked + 5 * 10u128.pow(18), "{record}");

    let none = node.cli(&["validator", "show", &addr(9)]).err().to_string();
    assert!(none.contains("is not a validator"), "{none}");

    // Rotating to another key file: the new keys wait for the next boundary.
    let next = dir.path().join("next.key");
    std::fs::write(&next, format!("{}\n", hex::encode([8u8; 32]))).expect("write key");
    let next = next.to_str().expect("utf-8 path");
    node.cli(&[
        "--dev-account",
        "3",
        "validator",
        "rotate-keys",
        "--validator-key",
        next,
    ])
    .ok();
    let record = json(node.cli(&["--json", "validator", "show", &addr(3)]).ok());
    let next_args = json(
        node.cli(&[
            "validator",
            "key-args",
            "--validator-key",
            next,
            "--for",
            &addr(3),
        ])
        .ok(),
    );
    assert_eq!(
        record["next_keys"][0]["bytes"], next_args["bls_key"],
        "{record}"
    );
    assert_eq!(
        record["next_keys"][1]["bytes"], next_args["consensus_key"],
        "{record}"
    );

    // What a validator that is not jailed, or still bonded, meets: the actor's refusal,
    // shown before anything is sent.
    let refused = |cmd: &str| {
        node.cli(&["--dev-account", "3", "validator", cmd])
            .err()
            .to_string()
    };
    let e = refused("unjail");
    assert!(e.contains("NotJailed"), "{e}");
    let e = refused("withdraw");
    assert!(e.contains("NotExiting"), "{e}");

    // Exit: unbonding; then more stake is refused and the stake cannot leave before the
    // unbonding period (dev epochs are 3,600 blocks).
    node.cli(&["--dev-account", "3", "validator", "exit"]).ok();
    let record = json(node.cli(&["--json", "validator", "show", &addr(3)]).ok());
    assert_eq!(record["status"], "unbonding", "{record}");
    let e = node
        .cli(&["--dev-account", "3", "validator", "add-stake", "1cby"])
        .err()
        .to_string();
    assert!(e.contains("Exiting"), "{e}");
    let e = refused("withdraw");
    assert!(e.contains("StillBonded"), "{e}");
    assert_eq!(
        stake_of(&record),
        staked + 5 * 10u128.pow(18),
        "nothing left"
    );

    // Evidence: the dev node reported none; garbage is refused with the reason.
    let evidence = node
        .cli(&["--json", "validator", "evidence"])
        .ok()
        .to_string();
    assert!(
        json(&evidence).as_array().is_some_and(Vec::is_empty),
        "{evidence}"
    );
    let e = node
        .cli(&[
            "--dev-account",
            "3",
            "validator",
            "submit-evidence",
            "0x0102",
        ])
        .err()
        .to_string();
    assert!(e.contains("BadEvidence"), "{e}");
}
