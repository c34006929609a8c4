//! The daemon end to end (issue 21's "Done means"): a real `cowboyd --dev`, three real
//! `cowboy-runner` processes and a loopback HTTPS price server. `examples/actors/price_feed.py`
//! requests a price; the daemons register themselves, see the assignment, fetch over HTTPS,
//! sign, commit, push their results to the aggregator's inbox, the aggregator submits them,
//! and the feed's `on_price` stores the median; the escrow is settled as the exec README's
//! formulas say. Then a runner is killed with `kill -9` while it works on a second job and
//! restarted: the job still completes, and no runner fetched or committed twice. Then the
//! aggregator of a third job commits and stops: the others reveal their own results and the
//! job is verified without it.
//!
//! The node binary is `$COWBOYD`, else the workspace's `target/debug/cowboyd` (`cargo build
//! -p cowboy-node --bin cowboyd`). Waits poll the chain's state (a safety net of two minutes
//! catches a process that never acts; no assertion is about time).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cowboy_exec::system::dispatcher::job::Status;
use cowboy_runner::daemon::chain::{hex0x, Chain};
use cowboy_test_support::{cowboyd, free_port};
use cowboy_types::cbor::Value;
use cowboy_types::genesis::WEI_PER_CBY;
use cowboy_types::system::{JOB_DISPATCHER, RESULT_VERIFIER};
use cowboy_types::tx::Payload;
use cowboy_types::{dev_key, keccak256, Address, Hash32};
use serde_json::json;

use crate::support::https::{Https, Route};

pub(crate) const DOMAIN: &str = "api.example.com";
pub(crate) const BASE: u128 = 1_000;
/// Each runner's price per token: HTTP runners report none, so only a runner lying about its
/// usage is priced by it (`max_tokens` is 1: the estimate 2,000 stays under the cap).
pub(crate) const PER_TOKEN: u128 = 1_000;
pub(crate) const MAX_PRICE: u128 = 30_000;
const RUNNERS: [u32; 3] = [5, 6, 7];

pub(crate) fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace")
}

/// A process killed when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Polls `check` until it returns `Some` (two minutes at most: a safety net).
pub(crate) async fn wait_for<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let end = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(Instant::now() < end, "gave up waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub(crate) fn field<'a>(v: &'a Value, name: &str) -> &'a Value {
    let Value::Map(m) = v else {
        panic!("not a map: {v:?}")
    };
    m.iter()
        .find(|(k, _)| matches!(k, Value::Text(t) if t == name))
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no {name} in {v:?}"))
}

pub(crate) fn text(s: &str) -> Value {
    Value::Text(s.into())
}

/// One runner daemon: its files and, while running, its process.
pub(crate) struct Runner {
    n: u32,
    config: PathBuf,
    /// The config without a `[simulate]` section.
    base_config: String,
    pub(crate) log: PathBuf,
    proc: Option<Proc>,
}

impl Runner {
    pub(crate) fn address(&self) -> Address {
        dev_key(self.n).address()
    }

    fn setup(dir: &Path, n: u32, node: &str, prices: &Https) -> Runner {
        let home = dir.join(format!("runner-{n}"));
        std::fs::create_dir_all(&home).expect("runner dir");
        let keys = home.join("keys.toml");
        let seed = keccak256(format!("cowboy-test-runner-{n}").as_bytes());
        std::fs::write(
            &keys,
            format!(
                "account_key = \"{}\"\nresult_key = \"{}\"\n",
                hex0x(&dev_key(n).to_bytes()),
                seed.to_hex()
            ),
        )
        .expect("key file");
        let roots = home.join("roots.pem");
        std::fs::write(&roots, &prices.cert_pem).expect("roots");
        let config = home.join("runner.toml");
        let base_config = format!(
            r#"node = "{node}"
key_file = "{keys}"
data_dir = "{data}"
listen = "127.0.0.1:{port}"
register = true
stake = "{stake}"

[profile]
job_types = ["http"]
domains = ["{DOMAIN}"]
rates = [{{ job_type = "http", base = {BASE}, per_token = {PER_TOKEN} }}]
max_concurrent_jobs = 32
commission_bps = 500

[http]
resolve = [["{DOMAIN}", "{addr}"]]
extra_roots = "{roots}"
"#,
            keys = keys.display(),
            data = home.join("data").display(),
            port = free_port(),
            stake = 10_000 * WEI_PER_CBY,
            addr = prices.addr,
            roots = roots.display(),
        );
        std::fs::write(&config, &base_config).expect("config");
        Runner {
            n,
            config,
            base_config,
            log: home.join("runner.log"),
            proc: None,
        }
    }

    fn start(&mut self) {
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("log");
        let child = Command::new(env!("CARGO_BIN_EXE_cowboy-runner"))
            .arg("run")
            .arg("--config")
            .arg(&self.config)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn cowboy-runner");
        self.proc = Some(Proc(child));
    }

    /// Restarts the daemon with a simulated `behaviour` (README, "Simulator").
    pub(crate) fn simulate(&mut self, behaviour: &str) {
        self.kill();
        let text = format!(
            "{}\n[simulate]\nbehaviour = \"{behaviour}\"\n",
            self.base_config
        );
        std::fs::write(&self.config, text).expect("config");
        self.start();
    }

    /// `kill -9`.
    pub(crate) fn kill(&mut self) {
        if let Some(mut p) = self.proc.take() {
            p.0.kill().expect("SIGKILL");
            p.0.wait().expect("reaped");
        }
    }

    pub(crate) fn log_lines(&self, needle: &str) -> usize {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(needle))
            .count()
    }
}

pub(crate) async fn receipt(chain: &Chain, hash: &Hash32) -> serde_json::Value {
    wait_for("a receipt", || async {
        let r = chain
            .request("cowboy_getReceipt", json!([hash.to_hex()]))
            .await
            .ok()?;
        (!r.is_null()).then_some(r)
    })
    .await
}

pub(crate) async fn balance(chain: &Chain, a: &Address) -> u128 {
    chain
        .request("cowboy_getAccount", json!([hex0x(&a.0)]))
        .await
        .expect("account")["balance"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("a balance")
}

pub(crate) async fn request(owner: &Chain, feed: Address, symbol: &str) -> Hash32 {
    let tx = owner
        .send(feed, "request", Value::Array(vec![text(symbol)]), 0)
        .await
        .expect("request sent");
    let r = receipt(owner, &tx.hash).await;
    assert_eq!(r["success"], true, "request: {r}");
    let id = r["returnValue"]["bytes"].as_str().expect("a job id");
    Hash32::from_hex(id).expect("32 bytes")
}

pub(crate) async fn decided(
    chain: &Chain,
    id: &Hash32,
) -> cowboy_exec::system::dispatcher::job::Job {
    wait_for("the job's decision", || async {
        let job = chain.job(id).await.ok()??;
        matches!(job.status, Status::Verified | Status::Failed).then_some(job)
    })
    .await
}

/// The result verifier's outcome of job `id` (`get_outcome`).
pub(crate) async fn outcome_of(chain: &Chain, id: &Hash32) -> Value {
    chain
        .call(
            RESULT_VERIFIER,
            "get_outcome",
            Value::Array(vec![Value::Bytes(id.0.to_vec())]),
        )
        .await
        .expect("the outcome")
}

/// Deploys a price feed from `source` (the example's, or a variant of it) with the tests'
/// domain and budget, and 100 blocks of patience.
pub(crate) async fn deploy_feed(owner: &Chain, source: String, salt: Hash32) -> Address {
    let deploy = owner
        .prepare_payload(
            None,
            "deploy",
            Payload::Deploy {
                source,
                salt,
                init_args: Value::Array(vec![
                    text(DOMAIN),
                    Value::from_u128(MAX_PRICE),
                    Value::Uint(100),
                ]),
            },
            WEI_PER_CBY,
        )
        .await
        .expect("deploy signed");
    owner.broadcast(&deploy).await.expect("deploy sent");
    let r = receipt(owner, &deploy.hash).await;
    assert_eq!(r["success"], true, "deploy: {r}");
    Address(
        cowboy_types::hash::parse_hex(&r["contractAddress"].as_str().expect("address")[2..])
            .and_then(|b| b.try_into().ok())
            .expect("20 bytes"),
    )
}

/// A devnet with three registered daemons, the price server and a deployed feed.
pub(crate) struct Net {
    _dir: tempfile::TempDir,
    _server: Https,
    _node: Proc,
    pub(crate) owner: Chain,
    pub(crate) runners: Vec<Runner>,
    pub(crate) feed: Address,
    /// Requests the price server answered, by query string.
    fetched: Arc<Mutex<BTreeMap<String, u64>>>,
}

impl Net {
    fn fetches(&self, query: &str) -> u64 {
        self.fetched
            .lock()
            .expect("counts")
            .get(query)
            .copied()
            .unwrap_or(0)
    }

    pub(crate) async fn start(block_time_ms: u64) -> Net {
        // The node's and the daemons' logs stay for a post-mortem with KEEP_TEST_FILES set.
        let dir = tempfile::Builder::new()
            .disable_cleanup(std::env::var_os("KEEP_TEST_FILES").is_some())
            .tempdir()
            .expect("temp dir");
        eprintln!("test files in {}", dir.path().display());
        // The price server: ETH and BTC at fixed prices, any other symbol at 1.5.
        let fetched = Arc::new(Mutex::new(BTreeMap::new()));
        let counts = fetched.clone();
        let prices = Route::Fn(Arc::new(move |query: &str| {
            let price = match query {
                "symbol=ETH" => "2500.5",
                "symbol=BTC" => "61000.25",
                _ => "1.5",
            };
            *counts
                .lock()
                .expect("counts")
                .entry(query.to_string())
                .or_insert(0) += 1;
            (200, format!(r#"{{"price": {price}}}"#))
        }));
        // And three hostile sites for `hostile.rs`: one that never answers, a redirect loop,
        // and a gigabyte.
        let server = Https::start(
            &[DOMAIN],
            vec![
                ("/price", prices),
                ("/hang", Route::Hang),
                ("/loop", Route::Redirect("/loop".into())),
                ("/huge", Route::Stream(1 << 30)),
            ],
        )
        .await;

        let rpc = free_port();
        let node_log = File::create(dir.path().join("cowboyd.log")).expect("log");
        let node = Proc(
            Command::new(cowboyd())
                .args([
                    "--dev",
                    "--block-time",
                    &block_time_ms.to_string(),
                    "--data-dir",
                ])
                .arg(dir.path().join("chain"))
                .args(["--rpc-addr", &format!("127.0.0.1:{rpc}")])
                .args(["--p2p-addr", &format!("127.0.0.1:{}", free_port())])
                .stdout(Stdio::null())
                .stderr(node_log)
                .spawn()
                .expect("spawn cowboyd"),
        );
        let url = format!("http://127.0.0.1:{rpc}");
        let owner = wait_for("cowboyd", || async {
            Chain::connect(&url, dev_key(0)).await.ok()
        })
        .await;

        let mut runners: Vec<Runner> = RUNNERS
            .iter()
            .map(|n| Runner::setup(dir.path(), *n, &url, &server))
            .collect();
        for r in &mut runners {
            r.start();
        }
        // Each daemon registers itself (register = true) with its inbox as its endpoint.
        for r in &runners {
            let record = wait_for("the registration", || async {
                owner.runner(&r.address()).await.ok()?
            })
            .await;
            assert_eq!(field(&record, "healthy"), &Value::Bool(true));
            let Value::Text(endpoint) = field(&record, "endpoint") else {
                panic!("an endpoint")
            };
            assert!(endpoint.starts_with("http://127.0.0.1:"), "{endpoint}");
        }

        let source = std::fs::read_to_string(workspace().join("examples/actors/price_feed.py"))
            .expect("the example");
        let feed = deploy_feed(&owner, source, Hash32::ZERO).await;
        Net {
            _dir: dir,
            _server: server,
            _node: node,
            owner,
            runners,
            feed,
            fetched,
        }
    }

    /// The price the feed stored for `symbol`, once its continuation ran.
    pub(crate) async fn stored(&self, symbol: &str) -> Value {
        wait_for("on_price", || async {
            let v = self
                .owner
                .call(self.feed, "price", Value::Array(vec![text(symbol)]))
                .await
                .ok()?;
            (v != Value::Null).then_some(v)
        })
        .await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_daemons_price_the_feed_a_killed_one_restarts_without_double_work_and_a_withholding_aggregator_is_bypassed(
) {
    let mut net = Net::start(100).await;
    let (owner, feed) = (&net.owner, net.feed);
    // The happy path: every daemon executes, commits and is paid; the median is stored.
    let feed_before = balance(owner, &feed).await;
    let dispatcher_before = balance(owner, &JOB_DISPATCHER).await;
    let eth = request(owner, feed, "ETH").await;
    let job = decided(owner, &eth).await;
    assert_eq!(job.status, Status::Verified);
    let outcome = outcome_of(owner, &eth).await;
    let Value::Array(winners) = field(&outcome, "winners") else {
        panic!("winners")
    };
    assert_eq!(winners.len(), 3, "all three agreed: {outcome:?}");
    assert_eq!(
        field(&outcome, "aggregator"),
        &Value::Bytes(job.aggregator.0.to_vec())
    );
    // Payments (exec README, Formulas): each winner a_i = base = 1,000 (per_ms 0); the
    // aggregator's bonus min(max_price × 2 %, max_price − Σ a_i); the rest refunded.
    let paid = 3 * BASE;
    let bonus = (MAX_PRICE * 200 / 10_000).min(MAX_PRICE - paid);
    assert_eq!(field(&outcome, "paid").as_u128(), Some(paid));
    assert_eq!(field(&outcome, "bonus").as_u128(), Some(bonus));
    assert_eq!(field(&outcome, "burned").as_u128(), Some(3 * (BASE / 10)));
    assert_eq!(
        field(&outcome, "treasury").as_u128(),
        Some(3 * (BASE / 100))
    );
    assert_eq!(
        field(&outcome, "refund").as_u128(),
        Some(MAX_PRICE - paid - bonus)
    );
    assert_eq!(
        balance(owner, &JOB_DISPATCHER).await,
        dispatcher_before,
        "escrow spent to the wei"
    );

    // The continuation runs in the next block: the feed stores the price it was served.
    let stored = net.stored("ETH").await;
    assert_eq!(field(&stored, "price"), &Value::Float(2500.5));
    assert_eq!(field(&stored, "job"), &Value::Bytes(eth.0.to_vec()));
    let feed_after = balance(owner, &feed).await;
    assert!(
        feed_before - feed_after >= MAX_PRICE - (MAX_PRICE - paid - bonus),
        "the feed paid the runners and the bonus (and its own timer): {feed_before} → {feed_after}"
    );
    assert_eq!(net.fetches("symbol=ETH"), 3, "one fetch per runner");
    for r in &net.runners {
        assert_eq!(
            r.log_lines(r#""message":"executing""#),
            1,
            "runner {} executed once",
            r.n
        );
        assert_eq!(
            r.log_lines(r#""action":"commit""#),
            1,
            "runner {} sent one commit",
            r.n
        );
    }

    // kill -9 one runner while it works on the next job (as soon as it logs the execution),
    // then restart it: the job completes, and nothing was done twice.
    let victim = 1;
    let runners = &mut net.runners;
    let before_exec = runners[victim].log_lines(r#""message":"executing""#);
    let before_commit = runners[victim].log_lines(r#""action":"commit""#);
    let btc = request(owner, feed, "BTC").await;
    wait_for("the victim's execution", || async {
        (runners[victim].log_lines(r#""message":"executing""#) > before_exec).then_some(())
    })
    .await;
    runners[victim].kill();
    runners[victim].start();
    let (before_exec, before_commit) = (before_exec + 1, before_commit + 1);
    let job = decided(&net.owner, &btc).await;
    assert_eq!(job.status, Status::Verified, "{job:?}");
    let stored = net.stored("BTC").await;
    assert_eq!(field(&stored, "price"), &Value::Float(61000.25));
    assert!(
        net.fetches("symbol=BTC") <= 3,
        "at most one fetch per runner across the restart"
    );
    let victim_runner = &net.runners[victim];
    assert_eq!(
        victim_runner.log_lines(r#""message":"executing""#),
        before_exec,
        "the restarted runner did not execute again"
    );
    assert!(
        victim_runner.log_lines(r#""action":"commit""#) <= before_commit,
        "at most one commit sent for the job"
    );
    // An aggregator that withholds (`withhold`): it commits and collects, and never submits.
    // The members' pushes go unused; after the aggregator's window they reveal their own
    // results, the verifier finalizes with those two (the median of two agreeing members is a
    // strict majority of three), and the silent aggregator is paid nothing and loses 5.
    // Every daemon withholds as the aggregator (honest as a member), so whichever is drawn
    // withholds, with no race against its own collection.
    for r in net.runners.iter_mut() {
        r.simulate("withhold");
    }
    let sol = request(&net.owner, feed, "SOL").await;
    let job = wait_for("the committee", || async {
        net.owner.job(&sol).await.ok()?
    })
    .await;
    let rep = |record: Option<Value>| field(&record.expect("registered"), "reputation").as_u64();
    let rep_before = rep(net.owner.runner(&job.aggregator).await.expect("runner"));
    let job = decided(&net.owner, &sol).await;
    assert_eq!(job.status, Status::Verified, "{job:?}");
    let outcome = outcome_of(&net.owner, &sol).await;
    assert_eq!(
        field(&outcome, "aggregator"),
        &Value::Null,
        "self-aggregated: {outcome:?}"
    );
    let Value::Array(winners) = field(&outcome, "winners") else {
        panic!("winners")
    };
    assert_eq!(winners.len(), 2, "{outcome:?}");
    assert!(!winners.contains(&Value::Bytes(job.aggregator.0.to_vec())));
    assert_eq!(field(&outcome, "bonus").as_u128(), Some(0));
    assert_eq!(field(&outcome, "paid").as_u128(), Some(2 * BASE));
    assert_eq!(
        rep(net.owner.runner(&job.aggregator).await.expect("runner")),
        rep_before.map(|r| r - 5),
        "the withholding aggregator is missing"
    );
    assert_eq!(field(&net.stored("SOL").await, "price"), &Value::Float(1.5));

    // The restarted daemon came back to the same registration and kept its journal.
    let status = Command::new(env!("CARGO_BIN_EXE_cowboy-runner"))
        .arg("status")
        .arg("--config")
        .arg(&net.runners[victim].config)
        .output()
        .expect("status");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).expect("JSON");
    assert_eq!(status["registration"]["status"], "active");
    assert_eq!(status["registration"]["key_matches"], true);
    assert!(status["journal"]["jobs"].as_u64() >= Some(2), "{status}");
}

/// Throughput and latency on loopback (README, "Measured"): `jobs` requests for distinct
/// symbols sent four at a time, then the time until every continuation ran, and per job the time from
/// the block of its last commit to the block of its `PriceUpdated` event (block timestamps).
/// Run: `cargo test --release -p cowboy-runner --test it daemon::measure -- --ignored
/// --nocapture` (with `COWBOYD` a release `cowboyd`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a test"]
async fn measure() {
    let jobs: usize = std::env::var("JOBS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    let block_ms: u64 = std::env::var("BLOCK_MS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100);
    let net = Net::start(block_ms).await;
    let symbols: Vec<String> = (0..jobs).map(|i| format!("S{i}")).collect();
    let started = Instant::now();
    // In batches of four: one actor may spend 1,000,000 cycles a block, about six requests.
    for batch in symbols.chunks(4) {
        let mut sent = Vec::new();
        for s in batch {
            sent.push(
                net.owner
                    .send(net.feed, "request", Value::Array(vec![text(s)]), 0)
                    .await
                    .expect("request sent"),
            );
        }
        for tx in &sent {
            let r = receipt(&net.owner, &tx.hash).await;
            assert_eq!(r["success"], true, "{r}");
        }
    }
    for s in &symbols {
        net.stored(s).await;
    }
    let took = started.elapsed();
    let timestamp = |h: u64| {
        let owner = &net.owner;
        async move {
            owner
                .request("cowboy_getBlockByNumber", json!([h, false]))
                .await
                .expect("block")["timestamp"]
                .as_u64()
                .expect("a timestamp")
        }
    };
    let events = |topic: &'static str, address: Address| {
        let owner = &net.owner;
        async move {
            owner
                .request(
                    "cowboy_getEvents",
                    json!([{"address": hex0x(&address.0), "topic": topic, "fromBlock": 0}]),
                )
                .await
                .expect("events")
        }
    };
    let commits = events("ResultCommitted", RESULT_VERIFIER).await;
    let updates = events("PriceUpdated", net.feed).await;
    let mut latencies = Vec::new();
    for u in updates.as_array().expect("events") {
        let job = u["dataValue"]["job"]["bytes"].as_str().expect("job id");
        let last_commit = commits
            .as_array()
            .expect("events")
            .iter()
            .filter(|c| c["dataValue"]["job_id"]["bytes"].as_str() == Some(job))
            .filter_map(|c| c["blockHeight"].as_u64())
            .max()
            .expect("a commit");
        let callback = u["blockHeight"].as_u64().expect("height");
        latencies.push(timestamp(callback).await - timestamp(last_commit).await);
    }
    latencies.sort_unstable();
    println!(
        "{jobs} jobs, block time {block_ms} ms: {:.2} s from the first request to the last \
         continuation = {:.2} jobs/s; commit-to-callback latency (block timestamps) median {} ms, \
         max {} ms",
        took.as_secs_f64(),
        jobs as f64 / took.as_secs_f64(),
        latencies[latencies.len() / 2],
        latencies[latencies.len() - 1],
    );
}
