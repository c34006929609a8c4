//! `cowboy-runner`: the runner daemon (README.md).
//!
//! ```text
//! cowboy-runner run    --config FILE [--node URL] [--key-file FILE] [--data-dir DIR]
//! cowboy-runner status --config FILE [--node URL] [--key-file FILE] [--data-dir DIR]
//! cowboy-runner sim    [--node URL | --cowboyd PATH] [--runners honest,wrong,…] [--runner B]…
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use cowboy_runner::daemon::config::{Config, ConfigError, Keys};
use cowboy_runner::daemon::simulate::Behaviour;
use cowboy_runner::daemon::work::Executors;
use cowboy_runner::daemon::{self, DaemonError};
use cowboy_runner::executor::http::{HttpConfig, HttpExecutor};
use cowboy_runner::executor::llm::model::ModelFiles;
use cowboy_runner::executor::llm::openai::Endpoint;
use cowboy_runner::executor::llm::{LlmExecutor, ModelConfig};
use cowboy_runner::executor::mcp::{McpConfig, McpExecutor, McpServer};
use cowboy_runner::sim::{SimArgs, SimError};

#[derive(Parser)]
#[command(
    name = "cowboy-runner",
    version,
    about = "The Cowboy runner daemon (CIP-2 off-chain jobs)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args)]
struct Common {
    /// The configuration file (TOML).
    #[arg(long)]
    config: PathBuf,
    /// The node's JSON-RPC URL (overrides `node`).
    #[arg(long)]
    node: Option<String>,
    /// The key file (overrides `key_file`).
    #[arg(long)]
    key_file: Option<PathBuf>,
    /// The data directory (overrides `data_dir`).
    #[arg(long)]
    data_dir: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the daemon.
    Run(Common),
    /// Print the registration on chain and the jobs in flight (JSON).
    Status(Common),
    /// Testing: a dev node and local runners with chosen behaviours (README, "Simulator").
    Sim(SimFlags),
}

/// `cowboy-runner sim`'s flags.
#[derive(clap::Args)]
struct SimFlags {
    /// Attach to this running dev node instead of starting one.
    #[arg(long, conflicts_with = "cowboyd")]
    node: Option<String>,
    /// The cowboyd binary (default: $COWBOYD, else the one beside cowboy-runner).
    #[arg(long)]
    cowboyd: Option<PathBuf>,
    /// The started node's block time in ms (0: a block per transaction).
    #[arg(long, default_value_t = 100)]
    block_time: u64,
    /// Runners' behaviours, comma-separated: honest, slow=MS, wrong, silent, garbage,
    /// oversized, lying_usage.
    #[arg(long, value_delimiter = ',')]
    runners: Vec<Behaviour>,
    /// One more runner with this behaviour (repeatable; after those of --runners).
    #[arg(long)]
    runner: Vec<Behaviour>,
    /// Where the node's and runners' files go (default: a temporary directory, removed at
    /// the end).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// An HTTP domain the runners serve, optionally pinned to an address: NAME or
    /// NAME=IP:PORT (repeatable).
    #[arg(long, value_parser = parse_domain)]
    domain: Vec<(String, Option<SocketAddr>)>,
    /// Fetch http:// URLs too (for a plain loopback server).
    #[arg(long)]
    allow_plain_http: bool,
    /// A PEM file of extra root certificates (a loopback HTTPS server's).
    #[arg(long)]
    extra_roots: Option<PathBuf>,
    /// Each runner's price per job, in wei.
    #[arg(long, default_value_t = 1000)]
    base: u128,
    /// Each runner's price per token, in wei.
    #[arg(long, default_value_t = 0)]
    per_token: u128,
    /// Each runner's price per millisecond, in wei.
    #[arg(long, default_value_t = 0)]
    per_ms: u128,
}

fn parse_domain(s: &str) -> Result<(String, Option<SocketAddr>), String> {
    match s.split_once('=') {
        None => Ok((s.to_string(), None)),
        Some((name, addr)) => addr
            .parse()
            .map(|a| (name.to_string(), Some(a)))
            .map_err(|_| format!("{addr:?} is not IP:PORT")),
    }
}

fn load(c: &Common) -> Result<(Config, Keys), ConfigError> {
    let mut cfg = Config::load(&c.config)?;
    if let Some(n) = &c.node {
        cfg.node = n.clone();
    }
    if let Some(k) = &c.key_file {
        cfg.key_file = k.clone();
    }
    if let Some(d) = &c.data_dir {
        cfg.data_dir = d.clone();
    }
    let keys = Keys::load(&cfg.key_file)?;
    Ok((cfg, keys))
}

fn read_pem(path: &Option<PathBuf>) -> Result<Vec<u8>, ConfigError> {
    match path {
        Some(p) => std::fs::read(p).map_err(|e| ConfigError::Read(p.clone(), e)),
        None => Ok(Vec::new()),
    }
}

/// The executors for the job types the profile declares, each from its config section.
fn executors(cfg: &Config) -> Result<Executors, DaemonError> {
    let wants = |t: &str| cfg.profile.job_types.iter().any(|j| j == t);
    let field = |name: &str, e: String| ConfigError::Field(name.into(), e);
    let mut executors = Executors::default();
    if wants("http") {
        let http = HttpExecutor::new(HttpConfig {
            allowed_domains: Some(cfg.profile.domains.clone()),
            resolve: cfg.http.resolve.clone(),
            extra_root_certs: read_pem(&cfg.http.extra_roots)?,
            allow_plain_http: cfg.http.allow_plain_http,
            allow_private_addresses: cfg.http.allow_private_addresses,
            ..HttpConfig::default()
        })
        .map_err(|e| field("http", e.to_string()))?;
        executors.http = Some(http);
    }
    if wants("llm") {
        let mut models = Vec::new();
        for (i, m) in cfg.llm.iter().enumerate() {
            let hash = cowboy_types::hash::parse_hex(&m.hash)
                .and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
                .ok_or_else(|| field(&format!("llm[{i}].hash"), "not 32 bytes of hex".into()))?;
            models.push(ModelConfig {
                hash: cowboy_types::Hash32(hash),
                files: ModelFiles {
                    weights: m.weights.clone(),
                    arch: m.arch.clone(),
                    tokenizer: m.tokenizer.clone(),
                    license: m.license.clone(),
                },
                endpoint: Endpoint {
                    base_url: m.base_url.clone(),
                    served_name: m.served_name.clone(),
                    api_key: m.api_key.clone(),
                },
            });
        }
        let llm = LlmExecutor::new(models).map_err(|e| field("llm", e.to_string()))?;
        executors.llm = Some(llm);
    }
    if wants("mcp") {
        let mut servers = std::collections::BTreeMap::new();
        for (name, s) in &cfg.mcp.servers {
            let server = match (&s.command, &s.url) {
                (Some(program), None) => McpServer::Stdio {
                    program: program.clone(),
                    args: s.args.clone(),
                    env: s.env.clone().into_iter().collect(),
                },
                (None, Some(url)) => McpServer::Http { url: url.clone() },
                _ => {
                    return Err(field(
                        &format!("mcp.servers.{name}"),
                        "give exactly one of `command` and `url`".into(),
                    )
                    .into())
                }
            };
            servers.insert(name.clone(), server);
        }
        let mcp = McpExecutor::new(McpConfig {
            servers,
            extra_root_certs: read_pem(&cfg.mcp.extra_roots)?,
        })
        .map_err(|e| field("mcp", e.to_string()))?;
        executors.mcp = Some(mcp);
    }
    Ok(executors)
}

async fn main_async(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    match cli.command {
        Command::Run(c) => {
            let (cfg, keys) = load(&c)?;
            let executors = executors(&cfg)?;
            Ok(daemon::run(cfg, keys, executors).await?)
        }
        Command::Status(c) => {
            let (cfg, keys) = load(&c)?;
            let s = daemon::status(&cfg, keys).await?;
            println!("{s:#}");
            Ok(())
        }
        Command::Sim(f) => {
            let mut runners = f.runners;
            runners.extend(f.runner);
            if runners.is_empty() {
                return Err(
                    SimError::Stopped("no runners: give --runners or --runner".into()).into(),
                );
            }
            let args = SimArgs {
                node: f.node,
                cowboyd: f.cowboyd,
                block_time_ms: f.block_time,
                runners,
                data_dir: f.data_dir,
                domains: f.domain,
                allow_plain_http: f.allow_plain_http,
                extra_roots: f.extra_roots,
                rate: [f.base, f.per_token, f.per_ms],
            };
            Ok(cowboy_runner::sim::run(args).await?)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .json()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("cowboy-runner: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(main_async(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cowboy-runner: {e}");
            ExitCode::FAILURE
        }
    }
}
