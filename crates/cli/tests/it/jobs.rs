//! `cowboy runner …` and `cowboy job …` against a real `cowboyd --dev`: three dev accounts
//! register as runners and one submits a job, all with plain `cowboy call`s to the system
//! actors; then the reads list them, and `job selection` recomputes the job's committee from
//! RPC data alone and finds the chain's; a job one of whose members times out is
//! re-selected, and `job selection` recomputes every round from RPC data alone too.

use crate::support::Node;

const RUNNER_REGISTRY: &str = "0x0000000000000000000000000000000000000001";
const JOB_DISPATCHER: &str = "0x0000000000000000000000000000000000000002";
const RESULT_VERIFIER: &str = "0x0000000000000000000000000000000000000003";

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

/// Register dev accounts `runners` as HTTP runners for `api.example.com` at 1,000 wei a job.
fn register_runners(node: &Node, runners: std::ops::RangeInclusive<u32>) {
    let register = format!(
        r#"[{{"bytes": "{KEY}"}}, {{"job_types": ["http"], "domains": ["api.example.com"]}},
            [{{"job_type": "http", "base": 1000}}], 8, 0, 500]"#
    );
    for n in runners {
        dev(
            node,
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
}

/// Dev account 0 submits a structured-match job of `m` runners with a deadline of
/// `timeout_blocks`; returns its id.
fn submit(node: &Node, m: u32, timeout_blocks: u32) -> String {
    let spec = format!(
        r#"[{{"job_type": "http", "domains": ["api.example.com"],
        "bounds": {{"max_tokens": 1, "max_wall_ms": 1, "max_memory_mb": 1}},
        "result_schema": {{"max_return_bytes": 64, "expected_execution_ms": 1, "data_format": "json"}},
        "verification": {{"mode": "structured_match", "runners": {m}}},
        "max_price": 3000, "timeout_blocks": {timeout_blocks}, "callback": {{"handler": "on_result"}}}}]"#
    );
    let out = dev(
        node,
        0,
        &[
            "call",
            JOB_DISPATCHER,
            "submit_job",
            "--args",
            &spec,
            "--value",
            "3000",
        ],
    );
    json(out.trim())["bytes"]
        .as_str()
        .expect("the job id")
        .to_string()
}

/// The addresses of a JSON list of `{"bytes": …}` (the job's rendering), lower-case hex.
fn byte_addrs(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|a| a["bytes"].as_str().expect("bytes").to_string())
        .collect()
}

/// The addresses of a JSON list of checksummed strings (`job selection`'s), lower-case.
fn shown_addrs(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|a| a.as_str().expect("address").to_ascii_lowercase())
        .collect()
}

#[test]
fn runners_and_jobs_are_read_and_the_selection_recomputes_from_rpc_alone() {
    let node = Node::start();
    register_runners(&node, 1..=3);
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
    let id = submit(&node, 3, 600);

    let job = json(node.cli(&["--json", "job", "show", &id]).ok());
    assert_eq!(job["status"], "assigned", "{job}");
    assert_eq!(job["selected"].as_array().map(Vec::len), Some(3));
    assert!(job["outcome"].is_null(), "not decided yet");
    let text = node.cli(&["job", "show", &id]).ok().to_string();
    assert!(text.contains("status     assigned"), "{text}");
    // The submitter's jobs, listed.
    let mine = json(node.cli(&["--json", "job", "list", &node_addr(0)]).ok());
    let mine = mine.as_array().expect("a list");
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert_eq!(mine[0]["job_id"]["bytes"], id.as_str());
    assert_eq!(mine[0]["status"], "assigned");
    let text = node.cli(&["job", "list", &node_addr(0)]).ok().to_string();
    assert!(text.contains(&id) && text.contains("assigned"), "{text}");
    let none = node.cli(&["job", "list", &node_addr(1)]);
    assert!(none.ok().trim().is_empty(), "only a note on stderr");

    let sel = json(node.cli(&["--json", "job", "selection", &id]).ok());
    assert_eq!(sel["seedMatches"], true, "{sel}");
    assert_eq!(sel["rootMatches"], true, "{sel}");
    assert_eq!(sel["committeeMatches"], true, "{sel}");
    assert_eq!(sel["candidates"], 3);
    assert_eq!(shown_addrs(&sel["committee"]), byte_addrs(&job["selected"]));

    let missing = format!("0x{}", "00".repeat(32));
    let err = node.cli(&["job", "show", &missing]).err().to_string();
    assert!(err.contains("no job"), "{err}");
    let err = node.cli(&["job", "show", "0x12"]).err().to_string();
    assert!(err.contains("is not a hash"), "{err}");
}

fn node_addr(n: u32) -> String {
    cowboy_types::dev_key(n).address().to_checksum()
}

#[test]
fn a_reselected_jobs_every_round_recomputes_from_rpc_alone() {
    let node = Node::start();
    register_runners(&node, 1..=5);
    for n in 1..=5 {
        dev(&node, n, &["call", RUNNER_REGISTRY, "heartbeat"]);
    }
    // Two of five; 100 blocks (10 s at the test node's 100 ms) leave the committing member
    // ample time, and the deadline comes without anyone waiting on a clock: the test polls
    // the job's state.
    let id = submit(&node, 2, 100);
    let job = json(node.cli(&["--json", "job", "show", &id]).ok());
    let first = byte_addrs(&job["selected"]);
    assert_eq!(first.len(), 2, "{job}");
    // The first member commits (any 32 bytes: nobody reveals here); the second stays silent.
    let committer = (1..=5)
        .find(|&n| node_addr(n).to_ascii_lowercase() == first[0])
        .expect("a dev runner");
    let commitment = format!(
        r#"[{{"bytes": "{id}"}}, {{"bytes": "0x{}"}}]"#,
        "ab".repeat(32)
    );
    dev(
        &node,
        committer,
        &["call", RESULT_VERIFIER, "commit", "--args", &commitment],
    );
    // The deadline passes: the silent member is excluded and the committee topped up from
    // the snapshot with the retry seed.
    let started = std::time::Instant::now();
    let job = loop {
        let job = json(node.cli(&["--json", "job", "show", &id]).ok());
        if job["attempt"] == 1 {
            break job;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(300),
            "no re-selection: {job}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert_eq!(job["status"], "assigned", "{job}");
    assert_eq!(byte_addrs(&job["excluded"]), vec![first[1].clone()]);
    let second = byte_addrs(&job["selected"]);
    assert_eq!(second[0], first[0], "the committed member is kept");
    assert!(!first.contains(&second[1]), "a new member: {second:?}");

    // `job selection` rebuilds both rounds from the RPC's job, snapshot and block alone.
    let sel = json(node.cli(&["--json", "job", "selection", &id]).ok());
    assert_eq!(sel["seedMatches"], true, "{sel}");
    assert_eq!(sel["rootMatches"], true, "{sel}");
    assert_eq!(sel["committeeMatches"], true, "{sel}");
    assert_eq!(sel["attempt"], 1);
    assert_eq!(sel["candidates"], 5);
    let rounds = sel["rounds"].as_array().expect("rounds");
    assert_eq!(rounds.len(), 2, "{sel}");
    assert_eq!(shown_addrs(&rounds[0]), first);
    assert_eq!(shown_addrs(&rounds[1]), second);
    let text = node.cli(&["job", "selection", &id]).ok().to_string();
    assert!(
        text.contains("attempt 1") && text.contains("committee  matches the chain"),
        "{text}"
    );
}
