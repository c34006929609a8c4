//! `cowboyd`: run a Cowboy node. `cowboyd --dev` starts a single-validator devnet with ten
//! funded accounts; `cowboyd --genesis FILE --validator-key FILE` joins a configured network;
//! `cowboyd devnet --validators N` runs a local network of N validator processes.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// The node's allocator is mimalloc (actor invocations are allocation-heavy), linked with its
/// `override` feature so that it is the process's `malloc`/`free`, reached through the standard
/// library's `System` allocator (see Cargo.toml for why not `mimalloc::MiMalloc`).
#[global_allocator]
static ALLOC: std::alloc::System = std::alloc::System;
use mimalloc as _;

use clap::Parser;
use commonware_codec::{DecodeExt, Encode};
use commonware_cryptography::ed25519;
use commonware_cryptography::Signer;
use commonware_runtime::Runner as _;
use cowboy_node::genesis::{dev_account, dev_validator_key, Genesis, DEV_ACCOUNTS, DEV_FUNDS};
use cowboy_node::node::{lock_data_dir, run, NodeConfig, LOCK_FILE};
use cowboy_node::production::Mining;

/// Run a Cowboy node.
#[derive(Parser, Debug)]
#[command(
    name = "cowboyd",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
struct Args {
    #[command(subcommand)]
    command: Option<Sub>,
    /// Single-validator devnet with ten pre-funded dev accounts (keys printed at start).
    #[arg(long)]
    dev: bool,
    /// Genesis file of the network (required without --dev).
    #[arg(long, value_name = "FILE")]
    genesis: Option<PathBuf>,
    /// File holding this validator's ed25519 key as hex (required without --dev); a full
    /// node's p2p identity (alias --node-key).
    #[arg(long, value_name = "FILE", alias = "node-key")]
    validator_key: Option<PathBuf>,
    /// Run as a full node: follow the chain, execute and keep every block, serve RPC and
    /// relay transactions to the validators; never vote or propose. Its key must be one the
    /// validators list with --follower.
    #[arg(long, conflicts_with = "dev")]
    full_node: bool,
    /// A full node this node lets connect and follow the chain, by its public key (hex, as
    /// --print-public-key prints it). Repeatable.
    #[arg(long = "follower", value_name = "KEY", value_parser = parse_public_key)]
    followers: Vec<ed25519::PublicKey>,
    /// Where state, blocks and the consensus journal live.
    #[arg(long, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Wipe the data directory first.
    #[arg(long)]
    reset: bool,
    /// JSON-RPC (HTTP and WebSocket) address.
    #[arg(long, default_value = "127.0.0.1:8545")]
    rpc_addr: SocketAddr,
    /// p2p listen address.
    #[arg(long, default_value = "127.0.0.1:30333")]
    p2p_addr: SocketAddr,
    /// The p2p address peers should dial, announced to them signed by the validator key
    /// [default: --p2p-addr]. Give it when listening behind NAT or on 0.0.0.0, or after
    /// moving: peers learn it from discovery, so the genesis address need not change.
    #[arg(long, value_name = "ADDR")]
    p2p_external_addr: Option<SocketAddr>,
    /// Where the tips of this validator's blocks go (0x-hex address) [default: its genesis
    /// entry's coinbase]. Required for a validator that is not in the genesis list.
    #[arg(long, value_name = "ADDRESS", value_parser = parse_coinbase)]
    coinbase: Option<cowboy_types::Address>,
    /// A peer to dial at start besides the genesis validators, as KEY@HOST:PORT (KEY in hex,
    /// as --print-public-key prints it). Repeatable; wins over the genesis address of KEY.
    #[arg(long = "bootstrap", value_name = "KEY@ADDR", value_parser = parse_bootstrap)]
    bootstrap: Vec<(ed25519::PublicKey, SocketAddr)>,
    /// Serve Prometheus metrics here.
    #[arg(long)]
    metrics_addr: Option<SocketAddr>,
    /// Target time between blocks, in milliseconds [default: the genesis `block_time_ms`].
    /// 0 (with --dev): a block as soon as a transaction arrives or `dev_mine` asks, none
    /// otherwise.
    #[arg(long, value_name = "MS")]
    block_time: Option<u64>,
    /// Most transactions the mempool holds.
    #[arg(long, default_value_t = 100_000)]
    mempool_size: usize,
    /// Blocks of state history kept: reads at a block (`block` on `cowboy_getAccount`,
    /// `cowboy_getStorage`, `cowboy_call`…) and `cowboy_traceTransaction` reach back this far.
    /// Costs the disk of that many blocks' overwritten values.
    #[arg(long, default_value_t = cowboy_state::DEFAULT_HISTORY_BLOCKS, value_name = "N")]
    history_blocks: u64,
    /// Never catch up from a state snapshot: a node more than an epoch behind re-executes
    /// every block from its head instead, keeping every block and receipt.
    #[arg(long)]
    no_snapshot_sync: bool,
    /// Threads running RPC simulations and heavy reads (default: half the cores, at least 1).
    #[arg(long, value_name = "N")]
    rpc_workers: Option<usize>,
    /// Close an RPC connection (HTTP or WebSocket) without subscriptions after this many
    /// seconds without a request.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    rpc_idle_timeout: u64,
    /// Log as JSON lines instead of text.
    #[arg(long)]
    log_json: bool,
    /// Print the public key of --validator-key (for a genesis file's validator list) and exit.
    #[arg(long)]
    print_public_key: bool,
    /// Shut down when stdin reaches its end, as on SIGTERM (how `cowboyd devnet` makes sure
    /// its validators never outlive it).
    #[arg(long, hide = true)]
    exit_on_stdin_close: bool,
}

#[derive(clap::Subcommand, Debug)]
enum Sub {
    /// Run a local network of N validators (and M full nodes), each a `cowboyd` process, on
    /// loopback.
    Devnet(DevnetArgs),
}

/// `cowboyd devnet`.
#[derive(clap::Args, Debug)]
struct DevnetArgs {
    /// Validators.
    #[arg(long, default_value_t = 4)]
    validators: usize,
    /// Full nodes (`cowboyd --full-node`: they follow and serve RPC, never vote), on the
    /// ports after the validators'.
    #[arg(long, default_value_t = 0)]
    full_nodes: usize,
    /// Genesis, keys, the validators' data directories and logs (reused on a restart).
    #[arg(long, value_name = "DIR")]
    data_dir: PathBuf,
    /// Validator 0's JSON-RPC address; validator i serves on its port + i, full node j on
    /// its port + validators + j.
    #[arg(long, default_value = "127.0.0.1:8545")]
    rpc_addr: SocketAddr,
    /// Validator 0's p2p address; validator i listens on its port + i.
    #[arg(long, default_value = "127.0.0.1:30333")]
    p2p_addr: SocketAddr,
    /// Target time between blocks, in milliseconds [default: the genesis `block_time_ms`].
    #[arg(long, value_name = "MS")]
    block_time: Option<u64>,
    /// Each validator's stake as a multiple of the minimum, comma-separated, one per
    /// validator (e.g. `3,1,1,1`: validator 0 holds three of six seats) [default: 1 each].
    #[arg(long, value_name = "K,K,...", value_delimiter = ',')]
    stakes: Vec<u64>,
}

/// `cowboyd devnet`: supervise the validators until SIGINT/SIGTERM.
fn devnet(args: DevnetArgs) {
    let exe = std::env::current_exe()
        .unwrap_or_else(|e| fail(format!("cannot find the cowboyd executable: {e}")));
    let cfg = cowboy_node::devnet::DevnetConfig {
        validators: args.validators,
        full_nodes: args.full_nodes,
        dir: args.data_dir,
        rpc: args.rpc_addr,
        p2p: args.p2p_addr,
        block_time_ms: args.block_time,
        stakes: args.stakes,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(format!("cannot start a runtime: {e}")));
    let result = runtime.block_on(cowboy_node::devnet::run(
        &exe,
        &cfg,
        cowboy_node::node::shutdown_signal(),
    ));
    if let Err(e) = result {
        fail(e);
    }
}

fn default_data_dir(dev: bool) -> PathBuf {
    let base = directories::ProjectDirs::from("xyz", "cowboy", "cowboy")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from(".cowboy"));
    base.join(if dev { "devnet" } else { "node" })
}

/// A validator key file: the 32-byte ed25519 seed as hex.
/// `--coinbase ADDRESS`.
fn parse_coinbase(s: &str) -> Result<cowboy_types::Address, String> {
    cowboy_node::genesis::parse_address(s)
        .ok_or_else(|| format!("{s:?} is not a 20-byte address in 0x-hex"))
}

/// `--bootstrap KEY@HOST:PORT`.
fn parse_bootstrap(s: &str) -> Result<(ed25519::PublicKey, SocketAddr), String> {
    let (key, addr) = s
        .split_once('@')
        .ok_or("expected KEY@HOST:PORT (the peer's public key in hex, then its p2p address)")?;
    let key = parse_public_key(key)?;
    let addr = addr
        .parse()
        .map_err(|e| format!("{addr:?} is not a HOST:PORT socket address: {e}"))?;
    Ok((key, addr))
}

/// A peer's ed25519 public key in hex (`--follower KEY`, the KEY of `--bootstrap`).
fn parse_public_key(key: &str) -> Result<ed25519::PublicKey, String> {
    hex::decode(key.trim_start_matches("0x"))
        .ok()
        .and_then(|b| ed25519::PublicKey::decode(b).ok())
        .ok_or_else(|| format!("{key:?} is not an ed25519 public key in hex (64 digits)"))
}

fn read_validator_key(path: &std::path::Path) -> ed25519::PrivateKey {
    let hex_key = std::fs::read_to_string(path)
        .unwrap_or_else(|e| fail(format!("cannot read {}: {e}", path.display())));
    hex::decode(hex_key.trim().trim_start_matches("0x"))
        .ok()
        .and_then(|b| ed25519::PrivateKey::decode(b).ok())
        .unwrap_or_else(|| {
            fail(format!(
                "{} does not hold a hex ed25519 key",
                path.display()
            ))
        })
}

/// Empty the data directory but for its lock file (which this process holds).
fn wipe(dir: &std::path::Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        // The lock is held; the beacon share is a key, like the validator key kept
        // outside: a reset wipes the chain, not the node's identity.
        if entry.file_name() == LOCK_FILE || entry.file_name() == cowboy_node::beacon::SHARE_FILE {
            continue;
        }
        if entry.file_type()?.is_dir() {
            std::fs::remove_dir_all(entry.path())?;
        } else {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

fn fail(msg: impl std::fmt::Display) -> ! {
    eprintln!("cowboyd: {msg}");
    std::process::exit(2)
}

fn main() {
    let mut args = Args::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,commonware=warn"));
    if args.log_json {
        tracing_subscriber::fmt()
            .json()
            .with_env_filter(filter)
            .init();
    } else {
        // Colour only for a terminal (and not under `NO_COLOR`): a log redirected to a file,
        // as every supervisor and `cowboyd devnet` does, is read and grepped as plain text.
        let colour = std::io::IsTerminal::is_terminal(&std::io::stderr())
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_ansi(colour)
            .with_env_filter(filter)
            .init();
    }

    if let Some(Sub::Devnet(d)) = args.command.take() {
        return devnet(d);
    }

    if args.print_public_key {
        let key = match &args.validator_key {
            Some(k) => read_validator_key(k),
            None => dev_validator_key(),
        };
        println!("{}", hex::encode(key.public_key().encode()));
        return;
    }

    let data_dir = args
        .data_dir
        .clone()
        .unwrap_or_else(|| default_data_dir(args.dev));
    let (genesis, validator_key) = if args.dev {
        (Genesis::dev(args.p2p_addr), dev_validator_key())
    } else {
        let Some(g) = &args.genesis else {
            fail("give --dev for a devnet, or --genesis FILE and --validator-key FILE")
        };
        let text = std::fs::read_to_string(g)
            .unwrap_or_else(|e| fail(format!("cannot read {}: {e}", g.display())));
        let genesis = Genesis::from_json(&text).unwrap_or_else(|e| fail(e));
        let Some(k) = &args.validator_key else {
            fail("--validator-key FILE is required")
        };
        (genesis, read_validator_key(k))
    };
    // Locked before anything is wiped or opened, and held until the process ends.
    let _lock = lock_data_dir(&data_dir).unwrap_or_else(|e| fail(e));
    if args.reset {
        wipe(&data_dir)
            .unwrap_or_else(|e| fail(format!("cannot wipe {}: {e}", data_dir.display())));
    }

    let beacon_share = if args.dev {
        Some(cowboy_node::genesis::dev_beacon().1)
    } else {
        cowboy_node::beacon::read_share(&data_dir).unwrap_or_else(|e| fail(e))
    };
    let dev = args.dev;
    let chain_id = genesis.chain_id;
    let shown_dir = data_dir.clone();
    let on_ready = Box::new(move |rpc: SocketAddr| {
        let url = format!("http://{rpc}");
        println!();
        println!("Cowboy node running");
        println!("  chain id   {chain_id}");
        println!("  RPC        {url}   (WebSocket: ws://{rpc})");
        println!("  data dir   {}", shown_dir.display());
        if dev {
            println!();
            println!(
                "Dev accounts ({} CBY each; public keys, devnet only):",
                DEV_FUNDS / 10u128.pow(18)
            );
            for i in 0..DEV_ACCOUNTS {
                let k = dev_account(i);
                println!(
                    "  ({i}) 0x{}  key 0x{}",
                    hex::encode(k.address().0),
                    hex::encode(k.to_bytes())
                );
            }
            println!();
            println!("Try:");
            println!("  cowboy --dev-account 0 deploy examples/actors/counter.py");
            println!("  cowboy --dev-account 0 call <ADDRESS> increment");
            println!("  cowboy view <ADDRESS> get");
            println!("  cowboy block");
        }
        println!();
    });

    let mining = match args.block_time.unwrap_or(genesis.params.block_time_ms) {
        0 if dev => Mining::OnDemand,
        0 => {
            fail("--block-time 0 (blocks on demand) needs --dev: a network's validators keep time")
        }
        ms => Mining::Interval(Duration::from_millis(ms)),
    };
    let shutdown: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> =
        if args.exit_on_stdin_close {
            Box::pin(async {
                tokio::select! {
                    _ = cowboy_node::node::shutdown_signal() => {}
                    _ = cowboy_node::devnet::stdin_closed() => {}
                }
            })
        } else {
            Box::pin(cowboy_node::node::shutdown_signal())
        };
    let cfg = NodeConfig {
        data_dir: data_dir.clone(),
        genesis,
        validator_key,
        full_node: args.full_node,
        followers: args.followers,
        beacon_share,
        p2p_addr: args.p2p_addr,
        p2p_external_addr: args.p2p_external_addr,
        coinbase: args.coinbase,
        bootstrappers: args.bootstrap,
        rpc_addr: args.rpc_addr,
        metrics_addr: args.metrics_addr,
        mining,
        dev,
        mempool_txs: args.mempool_size.max(1),
        history_blocks: args.history_blocks,
        snapshot_sync: !args.no_snapshot_sync,
        rpc_limits: {
            let mut l = cowboy_node::limits::RpcLimits::default();
            if let Some(n) = args.rpc_workers {
                l.workers = n.max(1);
            }
            l.idle = Duration::from_secs(args.rpc_idle_timeout.max(1));
            l
        },
        on_ready,
        tamper_proposals: None,
        shutdown,
    };
    let runtime = commonware_runtime::tokio::Config::new()
        .with_storage_directory(data_dir.join("db"))
        .with_worker_threads(4)
        .with_catch_panics(false);
    let result = commonware_runtime::tokio::Runner::new(runtime).start(|context| run(context, cfg));
    if let Err(e) = result {
        fail(e);
    }
}
