//! `cowboy-runner sim` as an actor developer runs it (README, "Simulator"): it starts its own
//! `cowboyd --dev`, funds and registers one runner per behaviour, prints them as one JSON
//! line, and stops everything it started on SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use cowboy_runner::daemon::chain::Chain;
use cowboy_test_support::cowboyd;
use cowboy_types::cbor::Value;
use cowboy_types::dev_key;

use crate::daemon::{field, wait_for};

/// Starts `cowboy-runner sim` with `runners` and reads its ready line.
fn start_sim(dir: &std::path::Path, runners: &[&str]) -> (Child, serde_json::Value) {
    let log = std::fs::File::create(dir.join("sim.log")).expect("log");
    let mut sim = Command::new(env!("CARGO_BIN_EXE_cowboy-runner"))
        .arg("sim")
        .arg("--cowboyd")
        .arg(cowboyd())
        .args(runners.iter().flat_map(|r| ["--runner", r]))
        .args(["--domain", "api.example.com=127.0.0.1:9"])
        .arg("--data-dir")
        .arg(dir.join("sim"))
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("spawn cowboy-runner sim");
    let mut line = String::new();
    BufReader::new(sim.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the ready line");
    let ready: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    (sim, ready)
}

/// Waits until nothing answers at `url` (`http://host:port`).
async fn stopped(what: &str, url: &str) {
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    wait_for(what, || async {
        std::net::TcpStream::connect(&addr).is_err().then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sim_starts_a_dev_node_and_its_runners_and_stops_them_on_sigterm() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut sim, ready) = start_sim(dir.path(), &["honest", "wrong", "slow=10"]);
    assert_eq!(ready["chain_id"], 1337, "{ready}");
    let url = ready["rpc"].as_str().expect("rpc").to_string();
    let runners = ready["runners"].as_array().expect("runners");
    let behaviours: Vec<&str> = runners
        .iter()
        .map(|r| r["behaviour"].as_str().expect("behaviour"))
        .collect();
    assert_eq!(behaviours, ["honest", "wrong", "slow=10"]);

    let chain = Chain::connect(&url, dev_key(0)).await.expect("the node");
    for r in runners {
        let address = cowboy_types::hash::parse_hex(&r["address"].as_str().expect("address")[2..])
            .and_then(|b| b.try_into().ok())
            .map(cowboy_types::Address)
            .expect("20 bytes");
        let record = chain
            .runner(&address)
            .await
            .expect("read")
            .expect("registered");
        assert_eq!(field(&record, "status"), &Value::Text("active".into()));
        assert_eq!(
            field(&record, "endpoint"),
            &Value::Text(r["endpoint"].as_str().expect("endpoint").into())
        );
    }

    let term = Command::new("kill")
        .args(["-TERM", &sim.id().to_string()])
        .status()
        .expect("kill");
    assert!(term.success());
    assert!(sim.wait().expect("exit").success(), "sim exits cleanly");
    stopped("the node to stop", &url).await;
}
