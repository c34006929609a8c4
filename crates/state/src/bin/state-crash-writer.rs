//! Test helper for the crash-safety test (`tests/it/crash.rs`): commits the deterministic
//! workload's blocks to a state and block store on disk, one per height, printing
//! `height root_hex` after each commit (and pruning old history every 8 blocks), until it
//! reaches `max_height` or is killed.
//!
//! Usage: `state-crash-writer <directory> <max_height>`. It resumes from whatever the directory
//! holds, so running it again after a SIGKILL continues where the last commit left off.

use std::io::Write as _;

use commonware_runtime::{tokio, Runner as _, Supervisor as _};
use cowboy_state::{BlockStore, StateConfig, StateDb};

#[path = "../../tests/it/support/workload.rs"]
mod workload;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(max)) = (args.next(), args.next()) else {
        eprintln!("usage: state-crash-writer <directory> <max_height>");
        std::process::exit(2);
    };
    let Ok(max_height) = max.parse::<u64>() else {
        eprintln!("max_height must be an integer, got {max:?}");
        std::process::exit(2);
    };
    let cfg = tokio::Config::new().with_storage_directory(dir);
    let code = tokio::Runner::new(cfg).start(|context| async move {
        let mut blocks = match BlockStore::open(context.child("blocks"), "blocks").await {
            Ok(b) => b,
            Err(e) => {
                eprintln!("open blocks: {e}");
                return 1;
            }
        };
        let mut state =
            match StateDb::open(context.child("state"), &StateConfig::new("state")).await {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("open state: {e}");
                    return 1;
                }
            };
        let mut out = std::io::stdout().lock();
        for height in state.next_height()..=max_height {
            // Store the block before its state, as a node does: the ledger may be one block
            // ahead of the state after a crash, never behind.
            if let Err(e) = workload::store_block(&mut blocks, height).await {
                eprintln!("store block {height}: {e}");
                return 1;
            }
            match workload::apply_block(&mut state, height).await {
                Ok(root) => {
                    let _ = writeln!(out, "{height} {}", hex(&root));
                    let _ = out.flush();
                }
                Err(e) => {
                    eprintln!("commit {height}: {e}");
                    return 1;
                }
            }
            // Prune old history now and then, so kills also land inside a prune.
            if height % 8 == 7 {
                if let Err(e) = state.prune().await {
                    eprintln!("prune after {height}: {e}");
                    return 1;
                }
            }
        }
        0
    });
    std::process::exit(code);
}
