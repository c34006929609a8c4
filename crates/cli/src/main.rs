//! The `cowboy` command line: keys, transactions and queries against a node's JSON-RPC
//! (`chain`, `keystore`, `rpc`); `cowboy actor test FILE.py`, which deploys an actor into an
//! in-process chain and calls it (`actor`, `devchain`); and `cowboy pvm run FILE.py`, which runs
//! a Python file on the PVM with the on-chain limits (cycles are counted but unlimited unless
//! `--cycles` is given).
//! Output goes through [`out`], which ends the process quietly when stdout is a closed pipe
//! (`cowboy … | head`), as `cat` does.

mod actor;
mod args;
mod chain;
mod devchain;
mod jobs;
mod keystore;
mod rpc;
mod validator;

use clap::{CommandFactory as _, FromArgMatches as _, Parser, Subcommand};
use std::io::Write as _;
use std::process::ExitCode;

/// The CLI's allocator is mimalloc (actor invocations are allocation-heavy), linked with its
/// `override` feature so that it is the process's `malloc`/`free`, reached through the standard
/// library's `System` allocator (see Cargo.toml for why not `mimalloc::MiMalloc`).
#[global_allocator]
static ALLOC: std::alloc::System = std::alloc::System;
use mimalloc as _;

/// Print one line to stdout. A closed pipe (the reader, e.g. `head`, has seen enough) ends the
/// process with status 0 instead of a panic; any other write failure ends it with status 1.
pub fn out(line: impl std::fmt::Display) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        let _ = writeln!(std::io::stderr(), "cowboy: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

/// Print a note to stderr; a closed stderr is ignored.
pub fn note(line: impl std::fmt::Display) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Print a JSON value, pretty, to stdout.
pub fn out_json(v: &serde_json::Value) {
    out(serde_json::to_string_pretty(v).unwrap_or_default());
}

const ENVIRONMENT: &str = "\
Environment:
  COWBOY_RPC          the node's JSON-RPC URL (as --rpc; default http://127.0.0.1:8545)
  COWBOY_HOME         where keys live: $COWBOY_HOME/keys (default ~/.cowboy/keys, mode 0700,
                      one Web3 Secret Storage v3 file per key, mode 0600)
  COWBOY_PASSWORD     the keystore password, for scripts and CI (no prompt, no confirmation)
  COWBOY_PRIVATE_KEY  the hex private key `key import` stores (instead of a prompt)

Amounts (--value, transfer): an integer number of wei, or a decimal number with a unit:
  wei, gwei (10^9 wei) or cby (10^18 wei), e.g. 1.5cby, 20gwei, 7wei.

Start a local devnet with `cowboyd --dev` (from a checkout:
`cargo run --release -p cowboy-node --bin cowboyd -- --dev`); sign with --dev-account N.
No node yet? `cowboy actor test FILE.py --call 'HANDLER(ARG, …)'` runs an actor in an
in-process chain.";

#[derive(Parser)]
#[command(name = "cowboy", about = "Cowboy command line", version, after_help = ENVIRONMENT)]
struct Cli {
    /// The node's JSON-RPC URL.
    #[arg(
        long,
        global = true,
        default_value = "http://127.0.0.1:8545",
        env = "COWBOY_RPC",
        display_order = 100
    )]
    rpc: String,
    /// Print results as JSON (one document on stdout; notes still go to stderr).
    #[arg(long, global = true, display_order = 101)]
    json: bool,
    /// Sign with this keystore key (`cowboy key list`). Reads only need its address, kept in
    /// clear: no password is asked until something is signed.
    #[arg(long, global = true, value_name = "NAME", display_order = 102)]
    key: Option<String>,
    /// Sign with dev account N of a `cowboyd --dev` node.
    #[arg(long, global = true, value_name = "N", display_order = 103)]
    dev_account: Option<u32>,
    #[command(subcommand)]
    cmd: Cmd,
}

// The global options are listed after each command's own (display_order 100+) in its help.

/// Options of every command that sends a transaction.
#[derive(clap::Args, Clone, Copy)]
struct SendOpts {
    /// Send even when the pre-flight simulation fails (the transaction is then mined as a
    /// failure and its fee is paid).
    #[arg(long)]
    force: bool,
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
        /// Print the exact number of wei instead of CBY.
        #[arg(long)]
        wei: bool,
        /// Read the state as of the end of this block (a height) instead of the latest; the
        /// node serves its last 10,000 blocks by default (`cowboyd --history-blocks`).
        #[arg(long, value_name = "HEIGHT")]
        block: Option<u64>,
    },
    /// Nonce of an account (default: the signer's): the next one to sign, and the mined one.
    Nonce {
        /// Address.
        address: Option<String>,
    },
    /// Send value (wei, or e.g. 1.5cby, 20gwei).
    Transfer {
        /// Recipient.
        to: String,
        /// Amount.
        amount: String,
        #[command(flatten)]
        send: SendOpts,
    },
    /// Deploy an actor; prints its address. Refuses when the simulated `__init__` fails.
    Deploy {
        /// The actor's Python source.
        file: std::path::PathBuf,
        /// Salt of the actor address (0x + 64 hex digits, or any text, hashed).
        #[arg(long)]
        salt: Option<String>,
        /// Init arguments: JSON array (positional) or object (keyword); integers are exact.
        #[arg(long)]
        args: Option<String>,
        /// Value sent to the new actor (wei, or e.g. 1.5cby).
        #[arg(long)]
        value: Option<String>,
        #[command(flatten)]
        send: SendOpts,
    },
    /// Call a handler in a transaction; prints the return value. Refuses when the simulated
    /// call fails.
    Call {
        /// Actor address.
        address: String,
        /// Handler name.
        handler: String,
        /// Arguments: JSON array (positional) or object (keyword); integers are exact.
        #[arg(long)]
        args: Option<String>,
        /// Value sent with the call (wei, or e.g. 1.5cby).
        #[arg(long)]
        value: Option<String>,
        #[command(flatten)]
        send: SendOpts,
    },
    /// Run a handler read-only against the latest state (nothing is signed or paid).
    View {
        /// Actor address.
        address: String,
        /// Handler name.
        handler: String,
        /// Arguments: JSON array (positional) or object (keyword); integers are exact.
        #[arg(long)]
        args: Option<String>,
        /// Value the call carries (the sender must hold it).
        #[arg(long)]
        value: Option<String>,
        /// Sender the handler sees (default: the signer's address, else the zero address).
        #[arg(long)]
        from: Option<String>,
        /// Read the state as of the end of this block (a height) instead of the latest; the
        /// node serves its last 10,000 blocks by default (`cowboyd --history-blocks`).
        #[arg(long, value_name = "HEIGHT")]
        block: Option<u64>,
    },
    /// Estimate the cycles, cells and fees of a transaction without sending it.
    Estimate {
        #[command(subcommand)]
        what: EstimateCmd,
        /// Simulate on the state as of the end of this block (a height) and price with the
        /// basefees of the block after it, instead of the latest.
        #[arg(long, value_name = "HEIGHT", global = true)]
        block: Option<u64>,
    },
    /// A transaction, with its status.
    Tx {
        /// Transaction hash.
        hash: String,
    },
    /// A transaction's receipt.
    Receipt {
        /// Transaction hash.
        hash: String,
        /// Also check that the transaction and this receipt are in their block: the paths to
        /// its header's roots (`cowboy_getTransactionProof`), verified here.
        #[arg(long)]
        prove: bool,
    },
    /// A block: `latest` (the default), a height, or a block hash.
    Block {
        /// `latest`, a height, or 0x + 64 hex digits.
        #[arg(default_value = "latest")]
        block: String,
        /// Include the transactions, not just their hashes.
        #[arg(long)]
        full: bool,
    },
    /// An actor's Python source.
    Source {
        /// Actor address.
        address: String,
    },
    /// An actor's storage entry, with its proof checked.
    Storage {
        /// Actor address.
        address: String,
        /// Key: text as the SDK stores it, or 0x-hex raw key bytes.
        #[arg(value_name = "KEY")]
        entry: String,
        /// Read the entry as of the end of this block (a height). Proofs are of the latest
        /// state only, so an older entry comes without one.
        #[arg(long, value_name = "HEIGHT")]
        block: Option<u64>,
    },
    /// Re-execute a finalized transaction and show its call tree, with costs per source line.
    ///
    /// Every handler and message with its sender, value, cycles and cells, events, storage
    /// reads and writes, and outcome, and under each Python handler its cycles and cells by
    /// source line (the line quoted from the actor's source). The node must still hold the
    /// state before the transaction's block (its last 10,000 blocks by default). `--json`
    /// prints the node's `cowboy_traceTransaction` answer.
    Trace {
        /// Transaction hash.
        hash: String,
    },
    /// An actor's events (default: the last 10,000 blocks).
    Events {
        /// Actor address.
        address: String,
        /// Only this topic.
        #[arg(long)]
        topic: Option<String>,
        /// First block (default: 9,999 below the last).
        #[arg(long, value_name = "HEIGHT")]
        from: Option<u64>,
        /// Last block (default: the latest).
        #[arg(long, value_name = "HEIGHT")]
        to: Option<u64>,
        /// Keep printing new events.
        #[arg(long, conflicts_with = "to")]
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
    /// The events a block's system hooks emitted (downtime jailings; an epoch boundary's
    /// rewards and set changes; a beacon round's decision); default: the latest block.
    HookEvents {
        /// Height.
        height: Option<u64>,
    },
    /// Off-chain compute runners (CIP-2 registry, 0x…01).
    Runner {
        #[command(subcommand)]
        cmd: RunnerCmd,
    },
    /// Off-chain compute jobs (CIP-2 dispatcher and verifier, 0x…02 and 0x…03).
    Job {
        #[command(subcommand)]
        cmd: JobCmd,
    },
    /// Proof-of-stake validators (the staking actor, 0x…0F): register, stake, exit, read the set.
    Validator {
        #[command(subcommand)]
        cmd: ValidatorCmd,
    },
    /// Run actors without a node: deploy into an in-process chain and call handlers.
    Actor {
        #[command(subcommand)]
        cmd: ActorCmd,
    },
    /// Python VM tools.
    Pvm {
        #[command(subcommand)]
        cmd: PvmCmd,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    ///
    /// For example `cowboy completions bash > ~/.local/share/bash-completion/completions/cowboy`;
    /// for zsh, into a directory on `$fpath` as `_cowboy`; for fish, into
    /// `~/.config/fish/completions/cowboy.fish`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

const ACTOR_TEST_HELP: &str = "\
Steps run in the order given. --args, --from and --value belong to the step before them; given
before the first --call or --view they are the deploy's (__init__'s arguments, the deployer,
the value sent to the new actor).

Call expressions: HANDLER(ARG, …) or HANDLER(NAME=ARG, …), where an ARG is a JSON value
(integers exact at any size), True/False/None, a 'single-quoted' string, dev0 … dev9 (the dev
accounts' checksummed addresses) or actor (the actor's). Or give HANDLER alone with --args JSON.

The chain is the devnet's genesis (chain 1337; dev0 … dev9, the keys of `--dev-account N`, hold
1,000,000 CBY each) executed by the real block rule over a real state database in a temporary
directory, removed afterwards. Each --call is a signed transaction in a block of its own; a
failing call is mined too (its fee is paid) and its traceback quotes the local file. The exit
status is 1 if any step failed.

Example:
  cowboy actor test examples/actors/token.py --args '[\"Tok\", 1000]' \\
      --call 'transfer(dev1, 5)' --view 'balance_of(dev1)' \\
      --call 'transfer(dev0, 10)' --from dev1";

#[derive(Subcommand)]
enum RunnerCmd {
    /// Every registered runner: status, health, reputation, effective stake.
    List,
    /// One runner's record (profile, stake, reputation, heartbeat) as JSON.
    Show {
        /// Runner address.
        address: String,
    },
}

#[derive(Subcommand)]
enum ValidatorCmd {
    /// Stake and register the signer as a validator, with the keys of FILE (the node's
    /// `cowboyd --validator-key` file): active from the next epoch boundary.
    Register {
        /// The validator's key file (an Ed25519 seed as hex; the BLS key derives from it).
        #[arg(long, value_name = "FILE")]
        validator_key: std::path::PathBuf,
        /// The self-bonded stake (wei, or e.g. 100000cby); at least the genesis
        /// `minimum_validator_stake_wei`.
        #[arg(long)]
        stake: String,
        #[command(flatten)]
        send: SendOpts,
    },
    /// Add to the signer's stake (power follows at the next boundary).
    AddStake {
        /// Amount (wei, or e.g. 10cby).
        amount: String,
        #[command(flatten)]
        send: SendOpts,
    },
    /// Replace the signer's keys with FILE's from the next boundary.
    RotateKeys {
        /// The new key file.
        #[arg(long, value_name = "FILE")]
        validator_key: std::path::PathBuf,
        #[command(flatten)]
        send: SendOpts,
    },
    /// Leave the set at the next boundary; the stake unbonds for the unbonding period.
    Exit {
        #[command(flatten)]
        send: SendOpts,
    },
    /// Take the stake back once unbonded and out of the set.
    Withdraw {
        #[command(flatten)]
        send: SendOpts,
    },
    /// Rejoin after the jail period (from the next boundary).
    Unjail {
        #[command(flatten)]
        send: SendOpts,
    },
    /// Print the arguments `register` and `rotate_keys` take for FILE's keys, as JSON
    /// `{bls_key, pop, consensus_key}`, for a client that sends the transaction itself. The
    /// proof of possession is signed for one address: --for, else the signer's. Sends nothing.
    KeyArgs {
        /// The validator's key file (an Ed25519 seed as hex; the BLS key derives from it).
        #[arg(long, value_name = "FILE")]
        validator_key: std::path::PathBuf,
        /// The account that will send `register` or `rotate_keys` (default: the signer).
        #[arg(long = "for", value_name = "ADDRESS")]
        sender: Option<String>,
    },
    /// A validator's record and status as JSON (default: the signer's).
    Show {
        /// Validator address.
        address: Option<String>,
    },
    /// The active set of an epoch (default: the current one): members and stake.
    Set {
        /// Epoch number.
        #[arg(long)]
        epoch: Option<u64>,
    },
    /// The attributable faults (double votes, invalid proposals) the node's consensus
    /// reported, as evidence.
    Evidence,
    /// Submit evidence of a fault (from `cowboy validator evidence`): the chain verifies it
    /// and jails the offender, slashing it for a double vote.
    SubmitEvidence {
        /// The evidence, 0x + hex.
        evidence: String,
        #[command(flatten)]
        send: SendOpts,
    },
}

#[derive(Subcommand)]
enum JobCmd {
    /// The jobs an address submitted, oldest first: id, status and attempt.
    List {
        /// The submitter (an account or an actor).
        address: String,
    },
    /// A job: status, committee, aggregator, commits and outcome.
    Show {
        /// Job id (0x + 64 hex digits).
        id: String,
    },
    /// Recompute the job's committee from public RPC data alone (the seed from the submission
    /// block, the snapshot's Merkle root, the draw) and compare it with the chain's.
    Selection {
        /// Job id (0x + 64 hex digits).
        id: String,
    },
}

#[derive(Subcommand)]
enum ActorCmd {
    /// Deploy FILE into a fresh in-process chain and run the steps given, printing each
    /// receipt: return value, events, cycles, cells, fee, traceback.
    #[command(after_help = ACTOR_TEST_HELP)]
    Test {
        /// The actor's Python source.
        file: std::path::PathBuf,
        /// Call a handler in a transaction (a block of its own): HANDLER(ARGS) or HANDLER.
        #[arg(long, value_name = "CALL")]
        call: Vec<String>,
        /// Run a handler read-only on the latest state (nothing is mined or paid).
        #[arg(long, value_name = "CALL")]
        view: Vec<String>,
        /// Mine N empty blocks (due timers run in them).
        #[arg(long, value_name = "N")]
        mine: Vec<String>,
        /// Arguments of the step before: JSON array (positional) or object (keyword).
        #[arg(long, value_name = "JSON")]
        args: Vec<String>,
        /// Sender of the step before: dev account N, devN, or its address (default:
        /// --dev-account, else 0).
        #[arg(long, value_name = "ACCOUNT")]
        from: Vec<String>,
        /// Value sent with the step before (wei, or e.g. 1.5cby).
        #[arg(long, value_name = "AMOUNT")]
        value: Vec<String>,
        /// Salt of the actor's address (default: fixed, so every run gives the same address).
        #[arg(long)]
        salt: Option<String>,
        /// Run the remaining steps after one fails (the exit status is still 1).
        #[arg(long)]
        keep_going: bool,
    },
}

#[derive(Subcommand)]
enum EstimateCmd {
    /// A handler call.
    Call {
        /// Actor address.
        address: String,
        /// Handler name.
        handler: String,
        /// Arguments: JSON array (positional) or object (keyword).
        #[arg(long)]
        args: Option<String>,
        /// Value sent with the call.
        #[arg(long)]
        value: Option<String>,
    },
    /// A deploy (runs `__init__`).
    Deploy {
        /// The actor's Python source.
        file: std::path::PathBuf,
        /// Init arguments: JSON array (positional) or object (keyword).
        #[arg(long)]
        args: Option<String>,
        /// Value sent to the new actor.
        #[arg(long)]
        value: Option<String>,
    },
    /// A value transfer.
    Transfer {
        /// Recipient.
        to: String,
        /// Amount.
        amount: String,
    },
}

#[derive(Subcommand)]
enum KeyCmd {
    /// Create a key and store it encrypted (the password is asked twice, or read from
    /// COWBOY_PASSWORD).
    New {
        /// Name.
        name: String,
    },
    /// Store an existing key: a Web3 Secret Storage v3 file (geth, foundry, MetaMask exports;
    /// kept encrypted under its own password) with --keystore, else a hex private key from
    /// COWBOY_PRIVATE_KEY or a prompt.
    Import {
        /// Name.
        name: String,
        /// A v3 keystore JSON file to import.
        #[arg(long, value_name = "FILE")]
        keystore: Option<std::path::PathBuf>,
    },
    /// Write a key as a Web3 Secret Storage v3 file (to stdout, or --out FILE with mode 0600).
    Export {
        /// Name.
        name: String,
        /// Destination file (must not exist).
        #[arg(long, value_name = "FILE")]
        out: Option<std::path::PathBuf>,
    },
    /// Delete a stored key (asks for its password first, to prove it is yours to delete).
    Delete {
        /// Name.
        name: String,
    },
    /// List stored keys (no password needed).
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
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let (Some(_), Some(_)) = (&cli.key, cli.dev_account) {
        return finish(Err("give --key or --dev-account, not both".into()));
    }
    let json = cli.json;
    let ctx = chain::Ctx {
        client: rpc::Client::new(&cli.rpc),
        json,
        signer: match (cli.key, cli.dev_account) {
            (Some(name), _) => chain::Signer::Keystore(name),
            (None, Some(n)) => chain::Signer::Dev(n),
            (None, None) => chain::Signer::None,
        },
    };
    finish(match cli.cmd {
        Cmd::Pvm { cmd } => return pvm(cmd, json),
        Cmd::Actor {
            cmd:
                ActorCmd::Test {
                    file,
                    salt,
                    keep_going,
                    ..
                },
        } => match (&ctx.signer, actor_test_matches(&matches)) {
            (chain::Signer::Keystore(_), _) => Err("actor test signs with the dev accounts of \
                its in-process chain: use --from or --dev-account N, not --key"
                .into()),
            (_, None) => Err("internal: no matches for actor test".into()),
            (signer, Some(m)) => actor::test(
                actor::Options {
                    file,
                    salt,
                    keep_going,
                    json,
                    dev_account: match signer {
                        chain::Signer::Dev(n) => *n,
                        _ => 0,
                    },
                },
                m,
            ),
        },
        Cmd::Key { cmd } => key(cmd, json),
        Cmd::Balance {
            address,
            wei,
            block,
        } => chain::balance(&ctx, address.as_deref(), wei, block),
        Cmd::Nonce { address } => chain::nonce(&ctx, address.as_deref()),
        Cmd::Transfer { to, amount, send } => chain::transfer(&ctx, &to, &amount, send.force),
        Cmd::Deploy {
            file,
            salt,
            args,
            value,
            send,
        } => chain::deploy(
            &ctx,
            &file,
            salt.as_deref(),
            args.as_deref(),
            value.as_deref(),
            send.force,
        ),
        Cmd::Call {
            address,
            handler,
            args,
            value,
            send,
        } => chain::call(
            &ctx,
            &address,
            &handler,
            args.as_deref(),
            value.as_deref(),
            send.force,
        ),
        Cmd::View {
            address,
            handler,
            args,
            value,
            from,
            block,
        } => chain::view(
            &ctx,
            &address,
            &handler,
            args.as_deref(),
            value.as_deref(),
            from.as_deref(),
            block,
        ),
        Cmd::Estimate { what, block } => match what {
            EstimateCmd::Call {
                address,
                handler,
                args,
                value,
            } => chain::estimate_call(
                &ctx,
                &address,
                &handler,
                args.as_deref(),
                value.as_deref(),
                block,
            ),
            EstimateCmd::Deploy { file, args, value } => {
                chain::estimate_deploy(&ctx, &file, args.as_deref(), value.as_deref(), block)
            }
            EstimateCmd::Transfer { to, amount } => {
                chain::estimate_transfer(&ctx, &to, &amount, block)
            }
        },
        Cmd::Tx { hash } => chain::tx(&ctx, &hash),
        Cmd::Receipt { hash, prove } => chain::receipt(&ctx, &hash, prove),
        Cmd::Block { block, full } => chain::block(&ctx, &block, full),
        Cmd::Source { address } => chain::source(&ctx, &address),
        Cmd::Storage {
            address,
            entry,
            block,
        } => chain::storage(&ctx, &address, &entry, block),
        Cmd::Trace { hash } => chain::trace(&ctx, &hash),
        Cmd::Events {
            address,
            topic,
            from,
            to,
            follow,
        } => chain::events(&ctx, &address, topic.as_deref(), from, to, follow),
        Cmd::Timers { address } => chain::timers(&ctx, &address),
        Cmd::Timer { id } => chain::timer(&ctx, id),
        Cmd::TimerExecutions { height } => chain::timer_executions(&ctx, height),
        Cmd::HookEvents { height } => chain::hook_events(&ctx, height),
        Cmd::Runner { cmd } => match cmd {
            RunnerCmd::List => jobs::runner_list(&ctx),
            RunnerCmd::Show { address } => jobs::runner_show(&ctx, &address),
        },
        Cmd::Validator { cmd } => match cmd {
            ValidatorCmd::Register {
                validator_key,
                stake,
                send,
            } => validator::register(&ctx, &validator_key, &stake, send.force),
            ValidatorCmd::AddStake { amount, send } => {
                validator::add_stake(&ctx, &amount, send.force)
            }
            ValidatorCmd::RotateKeys {
                validator_key,
                send,
            } => validator::rotate_keys(&ctx, &validator_key, send.force),
            ValidatorCmd::Exit { send } => validator::simple(&ctx, "signal_exit", send.force),
            ValidatorCmd::Withdraw { send } => validator::simple(&ctx, "withdraw", send.force),
            ValidatorCmd::Unjail { send } => validator::simple(&ctx, "unjail", send.force),
            ValidatorCmd::KeyArgs {
                validator_key,
                sender,
            } => validator::print_key_args(&ctx, &validator_key, sender.as_deref()),
            ValidatorCmd::Show { address } => validator::show(&ctx, address.as_deref()),
            ValidatorCmd::Set { epoch } => validator::set(&ctx, epoch),
            ValidatorCmd::Evidence => validator::evidence(&ctx),
            ValidatorCmd::SubmitEvidence { evidence, send } => {
                validator::submit_evidence(&ctx, &evidence, send.force)
            }
        },
        Cmd::Job { cmd } => match cmd {
            JobCmd::List { address } => jobs::job_list(&ctx, &address),
            JobCmd::Show { id } => jobs::job_show(&ctx, &id),
            JobCmd::Selection { id } => jobs::job_selection(&ctx, &id),
        },
        Cmd::Completions { shell } => completions(shell),
    })
}

/// `cowboy completions SHELL`: the script clap_complete generates from this very command
/// definition, so it cannot drift from the commands and flags.
fn completions(shell: clap_complete::Shell) -> chain::CmdResult {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "cowboy", &mut script);
    let script = String::from_utf8(script).map_err(|e| format!("completion script: {e}"))?;
    out(script.trim_end());
    Ok(())
}

/// A script that imports `cowboy_sdk` (or `pvm_host`) needs a chain: `pvm run` has none, so
/// its ImportError is followed by the command that runs the file as an actor.
fn with_actor_hint(class: &str, traceback: &str, file: &std::path::Path) -> String {
    if class != "ImportError" || !traceback.contains("needs a chain host") {
        return traceback.to_string();
    }
    format!(
        "{traceback}\nhint: `pvm run` runs plain Python with no chain; an actor runs on one:\n  \
         cowboy actor test {} --call 'HANDLER(ARG, …)'\ndeploys it into an in-process chain \
         and calls its handlers (`cowboy actor test --help`)",
        file.display()
    )
}

/// The matches of `actor test`: its steps' order is read from their argument indices.
fn actor_test_matches(m: &clap::ArgMatches) -> Option<&clap::ArgMatches> {
    m.subcommand_matches("actor")?.subcommand_matches("test")
}

fn finish(r: chain::CmdResult) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            note(e);
            ExitCode::from(1)
        }
    }
}

fn print_key(json: bool, name: &str, address: &str, path: Option<&std::path::Path>) {
    if json {
        out_json(&serde_json::json!({
            "name": name, "address": address, "path": path.map(|p| p.display().to_string()),
        }));
    } else {
        out(address);
        if let Some(p) = path {
            note(format!("stored in {}", p.display()));
        }
    }
}

fn key(cmd: KeyCmd, json: bool) -> chain::CmdResult {
    match cmd {
        KeyCmd::New { name } => {
            keystore::check_free(&name)?;
            let p = keystore::new_password(&name)?;
            let k = keystore::generate()?;
            let path = keystore::save(&name, &k, &p)?;
            print_key(json, &name, &k.address().to_checksum(), Some(&path));
            Ok(())
        }
        KeyCmd::Import {
            name,
            keystore: Some(file),
        } => {
            keystore::check_free(&name)?;
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let p = keystore::password(&format!("password of {}: ", file.display()))?;
            let (k, path) = keystore::import_v3(&name, &text, &p)?;
            print_key(json, &name, &k.address().to_checksum(), Some(&path));
            Ok(())
        }
        KeyCmd::Import {
            name,
            keystore: None,
        } => {
            keystore::check_free(&name)?;
            let hex_key = match std::env::var("COWBOY_PRIVATE_KEY") {
                Ok(k) => k,
                Err(_) => keystore::prompt("private key (hex): ")?,
            };
            let bytes: [u8; 32] = hex::decode(hex_key.trim().trim_start_matches("0x"))
                .ok()
                .and_then(|b| b.try_into().ok())
                .ok_or("the private key must be 32 bytes of hex")?;
            let k = cowboy_types::PrivateKey::from_bytes(&bytes).map_err(|e| e.to_string())?;
            let p = keystore::new_password(&name)?;
            let path = keystore::save(&name, &k, &p)?;
            print_key(json, &name, &k.address().to_checksum(), Some(&path));
            Ok(())
        }
        KeyCmd::Export { name, out: dest } => {
            let p = keystore::password(&format!("password for {name}: "))?;
            let doc = keystore::export_v3(&name, &p)?;
            let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
            match dest {
                Some(path) => {
                    keystore::write_private(&path, &text)?;
                    note(format!("wrote {}", path.display()));
                }
                None => out(text),
            }
            Ok(())
        }
        KeyCmd::Delete { name } => {
            let p = keystore::password(&format!("password for {name}: "))?;
            let path = keystore::delete(&name, &p)?;
            note(format!("deleted {}", path.display()));
            Ok(())
        }
        KeyCmd::List => {
            let keys = keystore::list();
            if json {
                let list: Vec<_> = keys
                    .iter()
                    .map(|(n, a)| serde_json::json!({"name": n, "address": a}))
                    .collect();
                out_json(&serde_json::Value::Array(list));
            } else {
                for (name, address) in keys {
                    out(format!("{name}\t{address}"));
                }
            }
            Ok(())
        }
    }
}

fn pvm(cmd: PvmCmd, json: bool) -> ExitCode {
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
                    note(format!("cowboy: cannot read {}: {e}", file.display()));
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
                    note("cowboy: the VM thread failed");
                    return ExitCode::from(2);
                }
            };
            let error = match &out.error {
                None => None,
                Some(cowboy_pvm::RunError::Compile(c)) => Some(format!(
                    "  File \"{}\", line {}\n{}: {}",
                    c.filename, c.line, c.kind, c.msg
                )),
                Some(cowboy_pvm::RunError::Uncaught { class, traceback }) => {
                    Some(with_actor_hint(class, traceback, &file))
                }
            };
            if json {
                out_json(&serde_json::json!({
                    "stdout": out.stdout,
                    "error": error,
                    "cycles": out.cycles,
                    "peakMemory": out.peak_memory,
                    "instructions": out.instructions,
                }));
            } else {
                if stats {
                    note(format!(
                        "cycles: {}\npeak memory: {}\ninstructions: {}",
                        out.cycles, out.peak_memory, out.instructions
                    ));
                }
                let mut stdout = std::io::stdout().lock();
                if let Err(e) = stdout
                    .write_all(out.stdout.as_bytes())
                    .and_then(|()| stdout.flush())
                {
                    if e.kind() != std::io::ErrorKind::BrokenPipe {
                        note(format!("cowboy: cannot write to stdout: {e}"));
                        return ExitCode::from(2);
                    }
                }
                if let Some(e) = &error {
                    note(e);
                }
            }
            if error.is_some() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
    }
}
