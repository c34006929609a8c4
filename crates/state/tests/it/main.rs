//! The state crate's integration tests, as one test binary.
//!
//! Every file directly under `tests/` is a test crate of its own that links the whole
//! dependency graph (commonware's storage and runtimes included) again; so the tests live here
//! as modules of one crate that links once (README for engineers: "few integration-test
//! binaries per crate"). A test's name is `<module>::<test>`, so
//! `cargo test -p cowboy-state --test it crash::` runs one module.
//!
//! The modules share one process but no state: each test opens its own store on its own
//! runtime (commonware's deterministic runtime in memory; `crash` uses the tokio runtime on a
//! directory named after the process and the test), and none sets environment variables or a
//! panic hook. `crash` runs the `state-crash-writer` binary as its child process.
//!
//! `support` holds the code shared with the rest of the crate: `workload` (the deterministic
//! blocks, also compiled into `state-crash-writer`) and `commonware` (commonware's own verifier
//! as a reference, also compiled into the `verify` benchmark); both include it by `#[path]`.

mod conformance;
mod crash;
mod history;
mod proofs;
mod snapshot;
mod staged;
mod state;
mod support {
    pub mod commonware;
    pub mod workload;
}
mod vectors;
