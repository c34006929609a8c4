//! `cowboy runner …` and `cowboy job …` against a real `cowboyd --dev`: three dev accounts
//! register as runners and one submits a job, all with plain `cowboy call`s to the system
//! actors; then the reads list them, and `job selection` recomputes the job's committee from
//! RPC data alone and finds the chain's.

use crate::support::Node;

const RUNNER_REGISTRY: &str = "0x0000000000000000000000000000000000000001";
const JOB_DISPATCHER: &str = "0x0000000000000000000000000000000000000002";

/// An Ed25519 public key (the curve's base point, compressed): the registry only needs a
/// valid point, and these runners never sign.
const KEY: &str = "0x5866666666666666666666666666666666666666666666666666666666666666";

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn dev(node: &Node, n: u32, args: &[&str]) -> String {
    let d = n.to_string();
    let mut all = vec!["--dev-account", d.as_str()];
    all.extend_from_slice(args);
    node.cli(&all).ok().to_string()
}

#[test]
fn runners_and_jobs_are_read_and_the_selection_recomputes_from_rpc_alone() {
    let node = Node::start();
    let register = format!(
        r#"[{{"bytes": "{KEY}"}}, {{"job_types": ["http"], "domains": ["api.example.com"]}},
            [{{"job_type": "http", "base": 1000}}], 8, 0, 500]"#
    );
    for n in 1..=3 {
        dev(
            &node,
            n,
            &[
                "call",
                RUNNER_REGISTRY,
                "register",
                "--args",
                &register,
                "--value",
                "10000cby",
            ],
        );
    }
    let list = json(node.cli(&["--json", "runner", "list"]).ok());
    let list = list.as_array().expect("a list");
    assert_eq!(list.len(), 3);
    assert!(list
        .iter()
        .all(|r| r["status"] == "active" && r["reputation"] == 70));
    let table = node.cli(&["runner", "list"]).ok().to_string();
    assert!(
        table.lines().count() == 4 && table.contains("active"),
        "{table}"
    );
    let one = json(node.cli(&["--json", "runner", "show", &node_addr(1)]).ok());
    assert_eq!(one["reputation"], 70, "{one}");
    let err = node
        .cli(&["runner", "show", &node_addr(5)])
        .err()
        .to_string();
    assert!(err.contains("is not a registered runner"), "{err}");

    // A heartbeat each (registration counts as one; this keeps them fresh on a slow machine),
    // then a job for all three.
    for n in 1..=3 {
        dev(&node, n, &["call", RUNNER_REGISTRY, "heartbeat"]);
    }
    let spec = r#"[{"job_type": "http", "domains": ["api.example.com"],
        "bounds": {"max_tokens": 1, "max_wall_ms": 1, "max_memory_mb": 1},
        "result_schema": {"max_return_bytes": 64, "expected_execution_ms": 1, "data_format": "json"},
        "verification": {"mode": "structured_match", "runners": 3},
        "max_price": 3000, "timeout_blocks": 600, "callback": {"handler": "on_result"}}]"#;
    let out = dev(
        &node,
        0,
        &[
            "call",
            JOB_DISPATCHER,
            "submit_job",
            "--args",
            spec,
            "--value",
            "3000",
        ],
    );
    let id = json(out.trim())["bytes"]
        .as_str()
        .expect("the job id")
        .to_string();

    let job = json(node.cli(&["--json", "job", "show", &id]).ok());
    assert_eq!(job["status"], "assigned", "{job}");
    assert_eq!(job["selected"].as_array().map(Vec::len), Some(3));
    assert!(job["outcome"].is_null(), "not decided yet");
    let text = node.cli(&["job", "show", &id]).ok().to_string();
    assert!(text.contains("status     assigned"), "{text}");

    let sel = json(node.cli(&["--json", "job", "selection", &id]).ok());
    assert_eq!(sel["seedMatches"], true, "{sel}");
    assert_eq!(sel["rootMatches"], true, "{sel}");
    assert_eq!(sel["committeeMatches"], true, "{sel}");
    assert_eq!(sel["candidates"], 3);
    let chain_committee: Vec<String> = job["selected"]
        .as_array()
        .expect("committee")
        .iter()
        .map(|a| a["bytes"].as_str().expect("bytes").to_string())
        .collect();
    let recomputed: Vec<String> = sel["committee"]
        .as_array()
        .expect("committee")
        .iter()
        .map(|a| a.as_str().expect("address").to_ascii_lowercase())
        .collect();
    assert_eq!(recomputed, chain_committee);

    let missing = format!("0x{}", "00".repeat(32));
    let err = node.cli(&["job", "show", &missing]).err().to_string();
    assert!(err.contains("no job"), "{err}");
    let err = node.cli(&["job", "show", "0x12"]).err().to_string();
    assert!(err.contains("is not a hash"), "{err}");
}

fn node_addr(n: u32) -> String {
    cowboy_types::dev_key(n).address().to_checksum()
}
