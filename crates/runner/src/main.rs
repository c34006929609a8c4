//! `cowboy-runner`: the runner daemon (README.md).
//!
//! ```text
//! cowboy-runner run    --config FILE [--node URL] [--key-file FILE] [--data-dir DIR]
//! cowboy-runner status --config FILE [--node URL] [--key-file FILE] [--data-dir DIR]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use cowboy_runner::daemon::config::{Config, ConfigError, Keys};
use cowboy_runner::daemon::work::Executors;
use cowboy_runner::daemon::{self, DaemonError};
use cowboy_runner::executor::http::{HttpConfig, HttpExecutor};
use cowboy_runner::executor::llm::model::ModelFiles;
use cowboy_runner::executor::llm::openai::Endpoint;
use cowboy_runner::executor::llm::{LlmExecutor, ModelConfig};
use cowboy_runner::executor::mcp::{McpConfig, McpExecutor, McpServer};

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

async fn main_async(cli: Cli) -> Result<(), DaemonError> {
    match cli.command {
        Command::Run(c) => {
            let (cfg, keys) = load(&c)?;
            let executors = executors(&cfg)?;
            daemon::run(cfg, keys, executors).await
        }
        Command::Status(c) => {
            let (cfg, keys) = load(&c)?;
            let s = daemon::status(&cfg, keys).await?;
            println!("{s:#}");
            Ok(())
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
