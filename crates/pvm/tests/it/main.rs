//! The PVM's integration tests, as one test binary.
//!
//! Every file directly under `tests/` is a test crate of its own, and each one links the
//! whole dependency graph again; ten of them cost CI ten links. So the tests live here as
//! modules of a single crate that links once (README for engineers: "few integration-test
//! binaries per crate"). A test's name is `<module>::<test>`, so
//! `cargo test -p cowboy-pvm --test it hostile::` runs one module.
//!
//! The modules share one process, so none of them may change process-wide state (environment
//! variables, the current directory, a panic hook) or depend on a fresh process: the VM's
//! caches and memory accounting are thread-local and every test starts its VM on a thread of
//! its own. `determinism` re-executes this binary for its child processes, filtered to its
//! `child_entry` test. The data the modules read stays beside this directory: `tests/conformance/`,
//! `tests/pvm_only/`, `tests/golden/` with `tests/golden_cycles.txt`, and `tests/lang/`.

mod actor_cache;
mod body_cache;
mod common;
mod conformance;
mod decimal_actor;
mod determinism;
mod dispatch_shape;
mod golden_cycles;
mod hostile;
mod hostile_stdlib;
mod jobs_sdk;
mod language;
mod layers;
mod line_profile;
mod robustness;
mod shared_sdk;
mod storage;
mod tmpfs;
mod typed_dispatch;
