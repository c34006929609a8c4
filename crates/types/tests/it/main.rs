//! The protocol types' integration tests, as one test binary.
//!
//! Every file directly under `tests/` is a test crate of its own that links the crate and its
//! dependencies (k256, proptest) again; so the tests live here as modules of one crate that
//! links once (README for engineers: "few integration-test binaries per crate"). A test's name
//! is `<module>::<test>`, so `cargo test -p cowboy-types --test it vectors::` runs one module.
//! The modules are pure functions of fixed inputs and share no state; `vectors` runs
//! `python3` (with `cbor2`) as a child process to cross-check the encodings.

mod golden;
mod properties;
mod transactions;
mod vectors;
