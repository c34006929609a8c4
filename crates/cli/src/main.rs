//! The `cowboy` command line. `cowboy pvm run FILE.py` runs a Python file on the PVM with the
//! on-chain limits (cycles are counted but unlimited unless `--cycles` is given).

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "cowboy", about = "Cowboy command line")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Python VM tools.
    Pvm {
        #[command(subcommand)]
        cmd: PvmCmd,
    },
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
        Cmd::Pvm {
            cmd:
                PvmCmd::Run {
                    cycles,
                    max_depth,
                    memory,
                    stats,
                    file,
                },
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
