//! Shared helpers for the PVM integration tests: run a program on a big-stack thread.

use cowboy_pvm::{Limits, RunOutcome};

/// Run `src` with `limits` on a thread with a generous stack.
pub fn run_with(src: &str, limits: Limits) -> RunOutcome {
    let src = src.to_string();
    std::thread::Builder::new()
        .stack_size(64 * 1024 * 1024)
        .spawn(move || cowboy_pvm::run(&src, "test.py", limits))
        .expect("spawn")
        .join()
        .expect("VM thread panicked")
}

#[allow(
    dead_code,
    reason = "shared by several test crates; each uses a subset"
)]
/// Run with default (on-chain) limits and the given cycle budget.
pub fn run_cycles(src: &str, cycles: u64) -> RunOutcome {
    run_with(
        src,
        Limits {
            cycles: Some(cycles),
            ..Limits::default()
        },
    )
}

#[allow(
    dead_code,
    reason = "shared by several test crates; each uses a subset"
)]
/// Last traceback line, or "" on success.
pub fn err_line(o: &RunOutcome) -> String {
    o.error.as_ref().map(|e| e.last_line()).unwrap_or_default()
}
