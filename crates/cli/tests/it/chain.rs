//! The chain commands against a real `cowboyd --dev`: each friction point of issue 19 that
//! the CLI met, reproduced and now passing. One node serves the whole test (a node start is
//! the slow part); each section signs with its own dev account so nonces never collide.

use std::process::Stdio;

use crate::support::{cowboy, run, Node};
use cowboy_types::dev_key;

const TOKEN: &str = include_str!("../../../../examples/actors/token.py");

/// An actor whose `__init__` divides by its argument: `[0]` fails on line 7.
const BAD_INIT: &str = "from cowboy_sdk import actor


@actor
class Bad:
    def __init__(self, n):
        self.storage[\"n\"] = 10 // n

    def get(self):
        return self.storage[\"n\"]
";

fn addr(n: u32) -> String {
    dev_key(n).address().to_checksum()
}

fn lower(n: u32) -> String {
    addr(n).to_ascii_lowercase()
}

fn nonce(node: &Node, n: u32) -> u64 {
    node.cli(&["nonce", &addr(n)])
        .ok()
        .trim()
        .parse()
        .expect("a nonce")
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Deploy `path` from dev account `n`; the actor's address.
fn deploy(node: &Node, n: u32, path: &std::path::Path, args: &str) -> String {
    let d = n.to_string();
    let out = node
        .cli(&[
            "--dev-account",
            &d,
            "deploy",
            path.to_str().expect("path"),
            "--args",
            args,
        ])
        .ok()
        .to_string();
    out.trim()
        .strip_prefix("deployed ")
        .unwrap_or_else(|| panic!("unexpected deploy output: {out}"))
        .to_string()
}

#[test]
fn chain_commands_against_a_real_node() {
    let node = Node::start();
    let dir = tempfile::tempdir().expect("tmp");
    let bad = dir.path().join("bad.py");
    std::fs::write(&bad, BAD_INIT).expect("write");
    let token = dir.path().join("token.py");
    std::fs::write(&token, TOKEN).expect("write");

    // A deploy whose simulated __init__ fails is not sent: the user pays nothing, and the
    // traceback quotes the line from the local file.
    let r = node.cli(&[
        "--dev-account",
        "0",
        "deploy",
        bad.to_str().unwrap(),
        "--args",
        "[0]",
    ]);
    let err = r.err();
    assert!(
        err.contains(&format!("File \"{}\", line 7, in __init__", bad.display())),
        "{err}"
    );
    assert!(err.contains("self.storage[\"n\"] = 10 // n"), "{err}");
    assert!(err.contains("ZeroDivisionError"), "{err}");
    assert!(
        err.contains("nothing was sent") && err.contains("--force"),
        "{err}"
    );
    assert!(!err.contains("sent 0x"), "{err}");
    assert_eq!(nonce(&node, 0), 0, "a refused deploy must not be sent");
    // --force sends it: mined as a failure, the same traceback, the fee paid.
    let r = node.cli(&[
        "--dev-account",
        "0",
        "deploy",
        bad.to_str().unwrap(),
        "--args",
        "[0]",
        "--force",
    ]);
    let err = r.err();
    assert!(err.contains("sent 0x"), "{err}");
    assert!(
        err.contains("line 7, in __init__") && err.contains("10 // n"),
        "{err}"
    );
    assert_eq!(nonce(&node, 0), 1);

    // Exact big integers in --args: a supply of 10^30 wei is not rounded through a float.
    let big = "1000000000000000000000000000000";
    let tok = deploy(&node, 1, &token, &format!("[\"Cow\", {big}]"));
    let r = node.cli(&[
        "view",
        &tok,
        "balance_of",
        "--args",
        &format!("[\"{}\"]", addr(1)),
    ]);
    assert_eq!(r.ok().trim(), format!("\"{big}\""));

    // A call whose simulation fails is refused; the line comes from the actor's source.
    let r = node.cli(&[
        "--dev-account",
        "2",
        "call",
        &tok,
        "transfer",
        "--args",
        &format!("[\"{}\", 5]", addr(1)),
    ]);
    let err = r.err();
    assert!(
        err.contains("raise ValueError(f\"insufficient balance"),
        "{err}"
    );
    assert!(
        err.contains("ValueError: insufficient balance: 0 < 5"),
        "{err}"
    );
    assert!(err.contains("nothing was sent"), "{err}");
    assert_eq!(nonce(&node, 2), 0);

    // Tokens sent to a lowercase address (as `cowboyd --dev` prints them) are spendable by
    // their owner, who is the checksummed `sender()`.
    let r = node.cli(&[
        "--dev-account",
        "1",
        "call",
        &tok,
        "transfer",
        "--args",
        &format!("[\"{}\", 70]", lower(2)),
    ]);
    assert_eq!(r.ok().trim(), "true");
    let r = node.cli(&[
        "--dev-account",
        "2",
        "call",
        &tok,
        "transfer",
        "--args",
        &format!("[\"{}\", 70]", lower(3)),
    ]);
    assert_eq!(r.ok().trim(), "true");
    let r = node.cli(&[
        "view",
        &tok,
        "balance_of",
        "--args",
        &format!("[\"{}\"]", addr(3)),
    ]);
    assert_eq!(r.ok().trim(), "70");
    // Both transfers' events, with an explicit range; none in a range before the token.
    let tip = json(node.cli(&["block", "latest"]).ok())["height"]
        .as_u64()
        .expect("height");
    let r = node.cli(&[
        "events",
        &tok,
        "--topic",
        "Transfer",
        "--from",
        "0",
        "--to",
        &tip.to_string(),
    ]);
    assert_eq!(r.ok().lines().count(), 2, "{}", r.stdout);
    assert!(r.stdout.contains(&addr(3)), "{}", r.stdout);
    let r = node.cli(&["events", &tok, "--from", "0", "--to", "1"]);
    assert_eq!(r.ok(), "");
    // A mixed-case address with a wrong checksum is refused before anything is sent.
    let mut wrong = addr(3).into_bytes();
    let i = 2 + wrong[2..]
        .iter()
        .position(u8::is_ascii_alphabetic)
        .expect("a letter");
    wrong[i] ^= 0x20;
    let wrong = String::from_utf8(wrong).expect("ascii");
    let r = node.cli(&[
        "--dev-account",
        "3",
        "call",
        &tok,
        "transfer",
        "--args",
        &format!("[\"{wrong}\", 1]"),
    ]);
    assert!(
        r.err().contains("argument 'to'") && r.err().contains("checksum"),
        "{}",
        r.stderr
    );

    // Sending more than the balance is a user error naming both amounts, from the estimate
    // (`cowboy estimate`) and from `transfer`, never the node's internal error.
    for args in [
        vec![
            "--dev-account",
            "4",
            "transfer",
            "0x000000000000000000000000000000000000dead",
            "2000000cby",
        ],
        vec![
            "--dev-account",
            "4",
            "estimate",
            "transfer",
            "0x000000000000000000000000000000000000dead",
            "2000000cby",
        ],
    ] {
        let r = node.cli(&args);
        let err = r.err();
        assert!(
            err.contains("insufficient balance") && err.contains("2000000 CBY"),
            "{err}"
        );
        assert!(
            !err.contains("-32603") && !err.contains("invariant"),
            "{err}"
        );
    }

    // Units, tx, receipt, nonce, balance in wei.
    let r = node.cli(&[
        "--dev-account",
        "4",
        "transfer",
        "0x000000000000000000000000000000000000dEaD",
        "1.5gwei",
    ]);
    r.ok();
    let hash = r
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("sent "))
        .expect("the hash is printed")
        .to_string();
    assert_eq!(
        node.cli(&[
            "balance",
            "--wei",
            "0x000000000000000000000000000000000000dead"
        ])
        .ok()
        .trim(),
        "1500000000"
    );
    let t = node.cli(&["tx", &hash]);
    let t = t.ok();
    assert!(
        t.contains("status       success") && t.contains("kind         transfer"),
        "{t}"
    );
    assert!(t.contains("0.0000000015 CBY"), "{t}");
    let tj = json(node.cli(&["--json", "tx", &hash]).ok());
    assert_eq!(tj["status"], "success");
    assert_eq!(tj["value"], "1500000000");
    let height = tj["blockHeight"].as_u64().expect("mined");
    assert_eq!(nonce(&node, 4), 1);
    assert!(node
        .cli(&["tx", &format!("0x{}", "11".repeat(32))])
        .err()
        .contains("no transaction"));
    // The receipt, proven in its block against the header's roots.
    let proven = node.cli(&["receipt", "--prove", &hash]);
    assert!(
        proven.stderr.contains("proven in block"),
        "{}",
        proven.stderr
    );
    assert_eq!(json(proven.ok())["success"], true);

    // block latest | N | HASH agree.
    let b = json(node.cli(&["block", &height.to_string()]).ok());
    let by_hash = json(node.cli(&["block", b["hash"].as_str().expect("hash")]).ok());
    assert_eq!(b, by_hash);
    assert!(b["transactions"]
        .as_array()
        .expect("txs")
        .contains(&serde_json::json!(hash)));
    let latest = json(node.cli(&["block", "latest"]).ok());
    assert!(latest["height"].as_u64().expect("height") >= height);
    assert!(node.cli(&["block", "soon"]).err().contains("latest"));

    // --value on deploy and view; source; estimate of a call.
    let payable = dir.path().join("payable.py");
    std::fs::write(
        &payable,
        "from cowboy_sdk import actor, value, balance\n\n\n@actor\nclass P:\n    def __init__(self):\n        self.storage[\"got\"] = value()\n\n    def seen(self):\n        return [value(), balance()]\n",
    )
    .expect("write");
    let d = node.cli(&[
        "--dev-account",
        "5",
        "deploy",
        payable.to_str().unwrap(),
        "--value",
        "2gwei",
    ]);
    let p = d
        .ok()
        .trim()
        .strip_prefix("deployed ")
        .expect("address")
        .to_string();
    assert_eq!(
        node.cli(&["balance", "--wei", &p]).ok().trim(),
        "2000000000"
    );
    let r = node.cli(&["--dev-account", "5", "view", &p, "seen", "--value", "7wei"]);
    assert_eq!(json(r.ok()), serde_json::json!([7, 2000000007]));
    assert!(node.cli(&["source", &p]).ok().contains("def seen(self):"));
    let est = json(
        node.cli(&[
            "--json",
            "--dev-account",
            "5",
            "estimate",
            "call",
            &p,
            "seen",
        ])
        .ok(),
    );
    assert_eq!(est["success"], true);
    assert!(est["cycles"].as_u64().expect("cycles") > 0);

    // Reads with --key need no password: the address is in the keystore file in clear.
    let mut import = node.cmd(&["key", "import", "six"]);
    import
        .env("COWBOY_PASSWORD", "pw")
        .env("COWBOY_PRIVATE_KEY", hex::encode(dev_key(6).to_bytes()));
    run(import).ok();
    let r = node.cli(&["--key", "six", "balance"]); // stdin is null: a prompt would fail
    assert_eq!(r.ok().trim(), "1000000 CBY");
    assert_eq!(node.cli(&["--key", "six", "nonce"]).ok().trim(), "0");
    // Signing asks for it, and says how to give it without a terminal.
    let r = node.cli(&["--key", "six", "transfer", &addr(7), "1wei"]);
    assert!(r.err().contains("COWBOY_PASSWORD"), "{}", r.stderr);
    let mut send = node.cmd(&["--key", "six", "transfer", &addr(7), "1wei"]);
    send.env("COWBOY_PASSWORD", "pw");
    run(send).ok();

    // --json on every command prints one JSON document.
    for args in [
        vec!["balance", addr(7).as_str()],
        vec!["nonce", addr(7).as_str()],
        vec!["source", p.as_str()],
        vec!["view", p.as_str(), "seen"],
        vec!["block", "latest"],
        vec!["key", "list"],
    ] {
        let mut a = vec!["--json"];
        a.extend(args.iter().copied());
        json(node.cli(&a).ok());
    }

    // The hook events of a block (an epoch boundary's; a dev chain's first epoch is 3,600
    // blocks, so none here): both phases empty, said as much; a block above the tip is named.
    let hooks = json(node.cli(&["--json", "hook-events", "1"]).ok());
    assert_eq!(hooks, serde_json::json!({"begin": [], "end": []}));
    let none = node.cli(&["hook-events"]);
    assert!(none.ok().is_empty(), "{}", none.stdout);
    assert!(none.stderr.contains("emitted no events"), "{}", none.stderr);
    let above = node.cli(&["hook-events", "999999999"]).err().to_string();
    assert!(above.contains("no such block"), "{above}");

    // A closed stdout (`cowboy … | head`) ends the command quietly, without a panic.
    let mut c = node.cmd(&["block", "latest", "--full"]);
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn");
    drop(child.stdout.take()); // the reader is gone before anything is written
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

#[test]
fn a_missing_node_says_how_to_start_one() {
    let home = tempfile::tempdir().expect("home");
    let mut c = cowboy(home.path());
    c.args(["--rpc", "http://127.0.0.1:9", "balance", &addr(0)]);
    let r = run(c);
    let err = r.err();
    assert!(
        err.contains("cannot reach the node at http://127.0.0.1:9"),
        "{err}"
    );
    assert!(err.contains("cowboyd --dev"), "{err}");
}
