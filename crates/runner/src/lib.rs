//! The runner daemon's library: what `cowboy-runner` is made of (README.md).
//!
//! A runner is a staked account of the runner registry (`0x…01`) that the job dispatcher
//! (`0x…02`) assigns off-chain jobs; it executes them ([`executor`]), commits to its signed
//! result at the result verifier (`0x…03`), and is paid when the job's verification mode
//! accepts its result (CIP-2; the chain's side is `crates/exec/README.md`, "Runners").

pub mod daemon;
pub mod executor;
pub mod sim;
