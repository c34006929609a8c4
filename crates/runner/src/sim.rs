//! `cowboy-runner sim`: a dev chain and N local runners with chosen behaviours, for testing an
//! actor's continuation, timeout and dispute paths (README, "Simulator").
//!
//! It starts `cowboyd --dev` (or attaches to a running dev node with `--node`), funds one
//! account per runner from dev account [`FUNDER`], writes each runner's key and config files
//! under the data directory, and starts one real `cowboy-runner run` process per runner, whose
//! `[simulate]` behaviour is the one asked for. Once every runner is registered it prints one
//! JSON line on stdout (the RPC URL and the runners), then waits for SIGINT or SIGTERM and
//! stops everything it started. A runner or node that exits meanwhile stops the simulator with
//! an error naming its log.
//!
//! The runners' keys are derived from their index (`keccak256("cowboy-sim-runner-" ‖ i)` and
//! `"cowboy-sim-result-" ‖ i`), so a runner's address is the same in every run: public keys
//! for a public dev chain, like the dev accounts.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use cowboy_exec::system::runners::records::Fields;
use cowboy_types::cbor::Value;
use cowboy_types::genesis::WEI_PER_CBY;
use cowboy_types::tx::Payload;
use cowboy_types::{dev_key, keccak256, Address, PrivateKey};
use serde_json::json;
use tokio::process::{Child, Command};

use crate::daemon::chain::{hex0x, Chain, ChainError};
use crate::daemon::simulate::{Behaviour, DEV_CHAIN_ID};

/// The dev account that funds the runners (the last of the ten: tests usually spend from the
/// first ones).
pub const FUNDER: u32 = 9;
/// Each runner's self-bond: the registry's floor.
pub const STAKE: u128 = 10_000 * WEI_PER_CBY;
/// What each runner holds for fees besides its stake.
pub const FEES: u128 = 100 * WEI_PER_CBY;
/// How long the node, a funding transfer or a registration may take (a safety net for a
/// process that never answers).
const PATIENCE: Duration = Duration::from_secs(60);

/// What `sim` is asked for.
#[derive(Clone, Debug)]
pub struct SimArgs {
    /// A running dev node's RPC URL; none: start `cowboyd --dev`.
    pub node: Option<String>,
    /// The `cowboyd` binary (else `$COWBOYD`, else the one beside `cowboy-runner`).
    pub cowboyd: Option<PathBuf>,
    /// The started node's `--block-time` (ms; 0: a block per transaction).
    pub block_time_ms: u64,
    /// One behaviour per runner.
    pub runners: Vec<Behaviour>,
    /// Where the node's and the runners' files go; none: a directory under the system's
    /// temporary directory, removed at the end.
    pub data_dir: Option<PathBuf>,
    /// The HTTP domains the runners serve, each optionally pinned to an address (as curl's
    /// `--resolve`).
    pub domains: Vec<(String, Option<SocketAddr>)>,
    /// Fetch `http://` URLs too.
    pub allow_plain_http: bool,
    /// A PEM file of extra root certificates for HTTPS targets.
    pub extra_roots: Option<PathBuf>,
    /// The rate card: wei per job, per token, per millisecond.
    pub rate: [u128; 3],
}

/// Why the simulator stopped.
#[derive(Debug)]
pub enum SimError {
    /// A file or process (what, and why).
    Io(String, std::io::Error),
    /// No `cowboyd` binary was found (where it looked).
    NoCowboyd(PathBuf),
    /// The node is not a dev chain (its chain id).
    NotDev(u64),
    /// The chain refused or did not answer.
    Chain(ChainError),
    /// A process exited or something did not happen in time (what, with the log to read).
    Stopped(String),
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Io(what, e) => write!(f, "{what}: {e}"),
            SimError::NoCowboyd(p) => write!(
                f,
                "no cowboyd at {}: pass --cowboyd PATH, set COWBOYD, or build it (cargo build \
                 -p cowboy-node --bin cowboyd)",
                p.display()
            ),
            SimError::NotDev(id) => write!(
                f,
                "the node's chain id is {id}: simulated runners run only on a dev chain (id \
                 {DEV_CHAIN_ID})"
            ),
            SimError::Chain(e) => write!(f, "chain: {e}"),
            SimError::Stopped(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for SimError {}

impl From<ChainError> for SimError {
    fn from(e: ChainError) -> Self {
        SimError::Chain(e)
    }
}

/// A child process and the log it writes, killed when dropped.
struct Proc {
    name: String,
    child: Child,
    log: PathBuf,
}

impl Proc {
    fn spawn(name: String, mut cmd: Command, log: PathBuf) -> Result<Proc, SimError> {
        let out = std::fs::File::create(&log).map_err(|e| io(&log, e))?;
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(out)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| SimError::Io(format!("starting {name}"), e))?;
        Ok(Proc { name, child, log })
    }

    /// An error if the process has exited.
    fn check(&mut self) -> Result<(), SimError> {
        match self.child.try_wait() {
            Ok(None) => Ok(()),
            Ok(Some(status)) => Err(self.exited(status.to_string())),
            Err(e) => Err(SimError::Io(self.name.clone(), e)),
        }
    }

    fn exited(&self, how: String) -> SimError {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(10).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        SimError::Stopped(format!(
            "{} exited ({how}); its log, {}, ends:\n{}",
            self.name,
            self.log.display(),
            tail.join("\n")
        ))
    }
}

fn io(p: &Path, e: std::io::Error) -> SimError {
    SimError::Io(p.display().to_string(), e)
}

fn free_port() -> Result<u16, SimError> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| SimError::Io("a free port".into(), e))
}

/// The `cowboyd` to start: `explicit`, else `$COWBOYD`, else the one beside this program.
fn find_cowboyd(explicit: Option<&Path>) -> Result<PathBuf, SimError> {
    let path = match (explicit, std::env::var_os("COWBOYD")) {
        (Some(p), _) => p.to_path_buf(),
        (None, Some(p)) => PathBuf::from(p),
        (None, None) => std::env::current_exe()
            .map_err(|e| SimError::Io("this program's path".into(), e))?
            .with_file_name("cowboyd"),
    };
    if path.is_file() {
        Ok(path)
    } else {
        Err(SimError::NoCowboyd(path))
    }
}

/// Runner `i`'s account and result keys (`None` only if the digest is not a secp256k1 scalar,
/// which happens with probability ~2^-128).
pub fn runner_keys(i: usize) -> Option<(PrivateKey, [u8; 32])> {
    let account =
        PrivateKey::from_bytes(&keccak256(format!("cowboy-sim-runner-{i}").as_bytes()).0).ok()?;
    let result = keccak256(format!("cowboy-sim-result-{i}").as_bytes()).0;
    Some((account, result))
}

/// A TOML string literal.
fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// Polls `check` until it gives a value, within [`PATIENCE`], checking the processes.
async fn wait<T, F, Fut>(what: &str, procs: &mut [Proc], mut check: F) -> Result<T, SimError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let end = Instant::now() + PATIENCE;
    loop {
        if let Some(v) = check().await {
            return Ok(v);
        }
        for p in procs.iter_mut() {
            p.check()?;
        }
        if Instant::now() > end {
            return Err(SimError::Stopped(format!("no {what} after {PATIENCE:?}")));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Runs the simulator until SIGINT or SIGTERM (README, "Simulator").
pub async fn run(args: SimArgs) -> Result<(), SimError> {
    let (dir, temporary) = match &args.data_dir {
        Some(d) => (d.clone(), false),
        None => (
            std::env::temp_dir().join(format!("cowboy-runner-sim-{}", std::process::id())),
            true,
        ),
    };
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    let outcome = simulate(&args, &dir).await;
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    outcome
}

async fn simulate(args: &SimArgs, dir: &Path) -> Result<(), SimError> {
    let mut procs: Vec<Proc> = Vec::new();
    let url = match &args.node {
        Some(url) => url.clone(),
        None => {
            let binary = find_cowboyd(args.cowboyd.as_deref())?;
            let port = free_port()?;
            let mut cmd = Command::new(&binary);
            cmd.arg("--dev")
                .args(["--block-time", &args.block_time_ms.to_string()])
                .arg("--data-dir")
                .arg(dir.join("chain"))
                .args(["--rpc-addr", &format!("127.0.0.1:{port}")])
                .args(["--p2p-addr", &format!("127.0.0.1:{}", free_port()?)]);
            procs.push(Proc::spawn("cowboyd".into(), cmd, dir.join("cowboyd.log"))?);
            format!("http://127.0.0.1:{port}")
        }
    };
    let funder = wait("answer from the node", &mut procs, || async {
        Chain::connect(&url, dev_key(FUNDER)).await.ok()
    })
    .await?;
    if funder.chain_id != DEV_CHAIN_ID {
        return Err(SimError::NotDev(funder.chain_id));
    }

    // Fund every runner up to its stake and fees, all transfers at once.
    let mut runners = Vec::new();
    let mut transfers = Vec::new();
    for (i, behaviour) in args.runners.iter().enumerate() {
        let (account, result) = runner_keys(i)
            .ok_or_else(|| SimError::Stopped(format!("runner {i}'s key is not a key")))?;
        let address = account.address();
        let held = balance(&funder, &address).await?;
        let want = STAKE + FEES;
        if held < want {
            let tx = funder
                .prepare_payload(Some(address), "transfer", Payload::Transfer, want - held)
                .await?;
            funder.broadcast(&tx).await?;
            transfers.push(tx);
        }
        runners.push(write_runner(
            args, dir, &url, i, *behaviour, &account, &result,
        )?);
    }
    for tx in &transfers {
        let receipt = wait("funding receipt", &mut procs, || async {
            funder.receipt(&tx.hash).await.ok().flatten()
        })
        .await?;
        if !receipt.success {
            return Err(SimError::Stopped(format!(
                "funding transfer {} failed: {}",
                tx.hash, receipt.error
            )));
        }
    }

    let exe = std::env::current_exe().map_err(|e| SimError::Io("this program".into(), e))?;
    for r in &runners {
        let mut cmd = Command::new(&exe);
        cmd.arg("run").arg("--config").arg(&r.config);
        procs.push(Proc::spawn(
            format!("runner {} ({})", r.index, r.behaviour),
            cmd,
            r.log.clone(),
        )?);
    }
    for r in &runners {
        wait("registration", &mut procs, || async {
            let record = funder.runner(&r.address).await.ok()??;
            let endpoint = Fields::of(&record)?.get("endpoint").cloned();
            (endpoint == Some(Value::Text(r.endpoint.clone()))).then_some(())
        })
        .await?;
    }

    let listed: Vec<_> = runners
        .iter()
        .map(|r| {
            json!({
                "index": r.index, "address": hex0x(&r.address.0),
                "behaviour": r.behaviour.to_string(), "endpoint": r.endpoint,
                "config": r.config, "log": r.log,
            })
        })
        .collect();
    let ready = json!({
        "rpc": url, "chain_id": funder.chain_id, "data_dir": dir, "runners": listed,
    });
    println!("{ready}");

    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| SimError::Io("SIGTERM handler".into(), e))?;
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => return Ok(()),
            _ = term.recv() => return Ok(()),
            _ = tokio::time::sleep(Duration::from_millis(500)) => {
                for p in procs.iter_mut() {
                    p.check()?;
                }
            }
        }
    }
}

async fn balance(chain: &Chain, a: &Address) -> Result<u128, SimError> {
    let account = chain
        .request("cowboy_getAccount", json!([hex0x(&a.0)]))
        .await?;
    Ok(account["balance"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0))
}

/// One simulated runner's files.
struct SimRunner {
    index: usize,
    behaviour: Behaviour,
    address: Address,
    endpoint: String,
    config: PathBuf,
    log: PathBuf,
}

/// Writes runner `i`'s key file and config under `dir/runner-i`.
fn write_runner(
    args: &SimArgs,
    dir: &Path,
    node: &str,
    i: usize,
    behaviour: Behaviour,
    account: &PrivateKey,
    result: &[u8; 32],
) -> Result<SimRunner, SimError> {
    let home = dir.join(format!("runner-{i}"));
    std::fs::create_dir_all(&home).map_err(|e| io(&home, e))?;
    let keys = home.join("keys.toml");
    std::fs::write(
        &keys,
        format!(
            "account_key = \"{}\"\nresult_key = \"{}\"\n",
            hex0x(&account.to_bytes()),
            hex0x(result)
        ),
    )
    .map_err(|e| io(&keys, e))?;
    let listen = format!("127.0.0.1:{}", free_port()?);
    let names: Vec<String> = args.domains.iter().map(|(d, _)| quoted(d)).collect();
    let resolve: Vec<String> = args
        .domains
        .iter()
        .filter_map(|(d, a)| a.map(|a| format!("[{}, {}]", quoted(d), quoted(&a.to_string()))))
        .collect();
    let roots = match &args.extra_roots {
        Some(p) => format!("extra_roots = {}\n", quoted(&p.display().to_string())),
        None => String::new(),
    };
    let [base, per_token, per_ms] = args.rate;
    let text = format!(
        "# Written by `cowboy-runner sim`: a simulated runner on a dev chain.\n\
         node = {node}\nkey_file = {keys}\ndata_dir = {data}\nlisten = \"{listen}\"\n\
         register = true\nstake = \"{STAKE}\"\n\n\
         [profile]\njob_types = [\"http\"]\ndomains = [{names}]\n\
         rates = [{{ job_type = \"http\", base = \"{base}\", per_token = \"{per_token}\", \
         per_ms = \"{per_ms}\" }}]\nmax_concurrent_jobs = 8\n\n\
         [http]\nresolve = [{resolve}]\nallow_plain_http = {plain}\n{roots}\n\
         [simulate]\nbehaviour = \"{behaviour}\"\n",
        node = quoted(node),
        keys = quoted(&keys.display().to_string()),
        data = quoted(&home.join("data").display().to_string()),
        names = names.join(", "),
        resolve = resolve.join(", "),
        plain = args.allow_plain_http,
    );
    let config = home.join("runner.toml");
    std::fs::write(&config, text).map_err(|e| io(&config, e))?;
    Ok(SimRunner {
        index: i,
        behaviour,
        address: account.address(),
        endpoint: format!("http://{listen}"),
        config,
        log: home.join("runner.log"),
    })
}
