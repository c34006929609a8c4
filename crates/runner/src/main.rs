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

fn executors(cfg: &Config) -> Result<Executors, DaemonError> {
    let wants_http = cfg.profile.job_types.iter().any(|t| t == "http");
    if !wants_http {
        return Ok(Executors::default());
    }
    let extra_root_certs = match &cfg.http.extra_roots {
        Some(p) => std::fs::read(p).map_err(|e| ConfigError::Read(p.clone(), e))?,
        None => Vec::new(),
    };
    let http = HttpExecutor::new(HttpConfig {
        allowed_domains: Some(cfg.profile.domains.clone()),
        resolve: cfg.http.resolve.clone(),
        extra_root_certs,
        allow_plain_http: cfg.http.allow_plain_http,
        ..HttpConfig::default()
    })
    .map_err(|e| ConfigError::Field("http".into(), e.to_string()))?;
    Ok(Executors { http: Some(http) })
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
