//! The crate's integration tests, one module per concern, in one test binary: the state,
//! runtime and PVM link once instead of once per file (CI time on a 2-core machine).

mod actors;
mod arbitrary_blocks;
mod beacon;
mod cold_reads;
mod dev_chain;
mod dispatcher;
mod entitlements;
mod examples;
mod jobs_actor;
mod oracle;
mod outcomes;
mod replay;
mod reshare;
mod runners;
mod staking;
mod supply;
mod support;
mod timers;
mod trace;
mod transfers;
mod verifier;
