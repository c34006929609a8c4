//! The `cowboy` command line: keys, transactions and queries against a node's JSON-RPC
//! (`chain`, `keystore`, `rpc`), and `cowboy pvm run FILE.py`, which runs a Python file on the
//! PVM with the on-chain limits (cycles are counted but unlimited unless `--cycles` is given).

mod chain;
mod keystore;
mod rpc;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The CLI's allocator (see Cargo.toml): actor invocations are allocation-heavy.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "cowboy", about = "Cowboy command line", version)]
struct Cli {
    /// The node's JSON-RPC URL.
    #[arg(
        long,
        global = true,
        default_value = "http://127.0.0.1:8545",
        env = "COWBOY_RPC"
    )]
    rpc: String,
    /// Print results as JSON.
    #[arg(long, global = true)]
    json: bool,
    /// Sign with this keystore key (`cowboy key list`).
    #[arg(long, global = true, value_name = "NAME")]
    key: Option<String>,
    /// Sign with dev account N of a `cowboyd --dev` node.
    #[arg(long, global = true, value_name = "N")]
    dev_account: Option<u32>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Manage the encrypted keystore.
    Key {
        #[command(subcommand)]
        cmd: KeyCmd,
    },
    /// Balance of an account (default: the signer's).
    Balance {
        /// Address.
        address: Option<String>,
    },
    /// Send value (wei, or e.g. 1.5cby).
    Transfer {
        /// Recipient.
        to: String,
        /// Amount.
        amount: String,
    },
    /// Deploy an actor; prints its address.
    Deploy {
        /// The actor's Python source.
        file: std::path::PathBuf,
        /// Salt of the actor address (0x + 64 hex digits, or any text, hashed).
        #[arg(long)]
        salt: Option<String>,
        /// Init arguments: JSON array (positional) or object (keyword).
        #[arg(long)]
        args: Option<String>,
    },
    /// Call a handler in a transaction; prints the return value.
    Call {
        /// Actor address.
        address: String,
        /// Handler name.
        handler: String,
        /// Arguments: JSON array (positional) or object (keyword).
        #[arg(long)]
        args: Option<String>,
        /// Value sent with the call (wei, or e.g. 1.5cby).
        #[arg(long)]
        value: Option<String>,
    },
    /// Run a handler read-only against the latest state.
    View {
        /// Actor address.
        address: String,
        /// Handler name.
        handler: String,
        /// Arguments: JSON array (positional) or object (keyword).
        #[arg(long)]
        args: Option<String>,
    },
    /// A transaction's receipt.
    Receipt {
        /// Transaction hash.
        hash: String,
    },
    /// A block (default: the latest).
    Block {
        /// Height.
        height: Option<u64>,
    },
    /// An actor's storage entry, with its proof checked.
    Storage {
        /// Actor address.
        address: String,
        /// Key: text as the SDK stores it, or 0x-hex raw key bytes.
        #[arg(value_name = "KEY")]
        entry: String,
    },
    /// An actor's events.
    Events {
        /// Actor address.
        address: String,
        /// Only this topic.
        #[arg(long)]
        topic: Option<String>,
        /// Keep printing new events.
        #[arg(long)]
        follow: bool,
    },
    /// An address's pending timers (id, handler, due, every, agent, deposit, deferrals).
    Timers {
        /// Owner (actor) address.
        address: String,
    },
    /// One pending timer.
    Timer {
        /// Timer id.
        id: u64,
    },
    /// The timers a block ran, with their receipts (default: the latest block).
    TimerExecutions {
        /// Height.
        height: Option<u64>,
    },
    /// Python VM tools.
    Pvm {
        #[command(subcommand)]
        cmd: PvmCmd,
    },
}

#[derive(Subcommand)]
enum KeyCmd {
    /// Create a key and store it encrypted.
    New {
        /// Name.
        name: String,
    },
    /// Store an existing private key (hex; read from COWBOY_PRIVATE_KEY or a prompt).
    Import {
        /// Name.
        name: String,
    },
    /// List stored keys.
    List,
}

#[derive(Subcommand)]
enum PvmCmd {
    /// Run a Python file on the PVM.
    Run {
        /// Cycle budget (default: unlimited, counted).
        #[arg(long)]
        cycles: Option<u64>,
        /// Maximum call depth.
        #[arg(long, default_value_t = cowboy_pvm::limits::DEFAULT_MAX_DEPTH)]
        max_depth: u32,
        /// Memory limit in bytes.
        #[arg(long, default_value_t = cowboy_pvm::limits::DEFAULT_MEMORY)]
        memory: u64,
        /// Print cycles, peak memory and instruction count to stderr.
        #[arg(long)]
        stats: bool,
        /// The program.
        file: std::path::PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Pvm { cmd } => pvm(cmd),
        Cmd::Key { cmd } => finish(key(cmd, cli.json)),
        cmd => {
            let signer = match (&cli.key, cli.dev_account) {
                (Some(_), Some(_)) => {
                    return finish(Err("give --key or --dev-account, not both".into()))
                }
                (Some(name), None) => match keystore::password(&format!("password for {name}: "))
                    .and_then(|p| keystore::load(name, &p))
                {
                    Ok(k) => Some(k),
                    Err(e) => return finish(Err(e)),
                },
                (None, Some(n)) => Some(cowboy_types::dev_key(n)),
                (None, None) => None,
            };
            let ctx = chain::Ctx {
                client: rpc::Client::new(&cli.rpc),
                json: cli.json,
                key: signer,
            };
            finish(match cmd {
                Cmd::Balance { address } => chain::balance(&ctx, address.as_deref()),
                Cmd::Transfer { to, amount } => chain::transfer(&ctx, &to, &amount),
                Cmd::Deploy { file, salt, args } => {
                    chain::deploy(&ctx, &file, salt.as_deref(), args.as_deref())
                }
                Cmd::Call {
                    address,
                    handler,
                    args,
                    value,
                } => chain::call(&ctx, &address, &handler, args.as_deref(), value.as_deref()),
                Cmd::View {
                    address,
                    handler,
                    args,
                } => chain::view(&ctx, &address, &handler, args.as_deref()),
                Cmd::Receipt { hash } => chain::receipt(&ctx, &hash),
                Cmd::Block { height } => chain::block(&ctx, height),
                Cmd::Storage { address, entry } => chain::storage(&ctx, &address, &entry),
                Cmd::Events {
                    address,
                    topic,
                    follow,
                } => chain::events(&ctx, &address, topic.as_deref(), follow),
                Cmd::Timers { address } => chain::timers(&ctx, &address),
                Cmd::Timer { id } => chain::timer(&ctx, id),
                Cmd::TimerExecutions { height } => chain::timer_executions(&ctx, height),
                Cmd::Pvm { .. } | Cmd::Key { .. } => Ok(()),
            })
        }
    }
}

fn finish(r: chain::CmdResult) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}

fn key(cmd: KeyCmd, json: bool) -> chain::CmdResult {
    match cmd {
        KeyCmd::New { name } => {
            let k = keystore::generate()?;
            let p = keystore::password(&format!("new password for {name}: "))?;
            let path = keystore::save(&name, &k, &p)?;
            println!("0x{}", hex::encode(k.address().0));
            eprintln!("stored in {}", path.display());
            Ok(())
        }
        KeyCmd::Import { name } => {
            let hex_key = match std::env::var("COWBOY_PRIVATE_KEY") {
                Ok(k) => k,
                Err(_) => {
                    rpassword::prompt_password("private key (hex): ").map_err(|e| e.to_string())?
                }
            };
            let bytes: [u8; 32] = hex::decode(hex_key.trim().trim_start_matches("0x"))
                .ok()
                .and_then(|b| b.try_into().ok())
                .ok_or("the private key must be 32 bytes of hex")?;
            let k = cowboy_types::PrivateKey::from_bytes(&bytes).map_err(|e| e.to_string())?;
            let p = keystore::password(&format!("new password for {name}: "))?;
            keystore::save(&name, &k, &p)?;
            println!("0x{}", hex::encode(k.address().0));
            Ok(())
        }
        KeyCmd::List => {
            for (name, address) in keystore::list() {
                if json {
                    println!("{}", serde_json::json!({"name": name, "address": address}));
                } else {
                    println!("{name}\t{address}");
                }
            }
            Ok(())
        }
    }
}

fn pvm(cmd: PvmCmd) -> ExitCode {
    match cmd {
        PvmCmd::Run {
            cycles,
            max_depth,
            memory,
            stats,
            file,
        } => {
            let src = match std::fs::read_to_string(&file) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("cowboy: cannot read {}: {e}", file.display());
                    return ExitCode::from(2);
                }
            };
            let name = file.display().to_string();
            let limits = cowboy_pvm::Limits {
                cycles,
                max_depth,
                memory,
                tmp_bytes: cowboy_pvm::limits::DEFAULT_TMP_BYTES,
            };
            // Deep --max-depth values recurse on the Rust stack: run on a big-stack thread.
            let stack = 64 * 1024 * 1024 + (max_depth as usize) * 256 * 1024;
            let handle = std::thread::Builder::new()
                .stack_size(stack)
                .spawn(move || cowboy_pvm::run(&src, &name, limits));
            let out = match handle.map(|h| h.join()) {
                Ok(Ok(o)) => o,
                _ => {
                    eprintln!("cowboy: the VM thread failed");
                    return ExitCode::from(2);
                }
            };
            if stats {
                eprintln!(
                    "cycles: {}\npeak memory: {}\ninstructions: {}",
                    out.cycles, out.peak_memory, out.instructions
                );
            }
            print!("{}", out.stdout);
            match out.error {
                None => ExitCode::SUCCESS,
                Some(cowboy_pvm::RunError::Compile(c)) => {
                    eprintln!(
                        "  File \"{}\", line {}\n{}: {}",
                        c.filename, c.line, c.kind, c.msg
                    );
                    ExitCode::from(1)
                }
                Some(cowboy_pvm::RunError::Uncaught { traceback, .. }) => {
                    eprintln!("{traceback}");
                    ExitCode::from(1)
                }
            }
        }
    }
}
